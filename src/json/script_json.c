/* Script fields of transaction JSON, rendered through the script module
 * (include/blockkit/script.h).
 *
 * Core: ScriptToUniv(script, out, include_hex=true, include_address=true)
 * (src/core_io.cpp): asm (no sighash decoding), desc, hex, address (only
 * when ExtractDestination succeeds and the type is not pubkey), type. */
#include <blockkit/json.h>
#include <blockkit/script.h>

#include "json/json_internal.h"

/* The members of the scriptPubKey object, into an open object. */
void bk_json_script_pubkey_members_(bk_json *j, const uint8_t *script, size_t len, bk_network net)
{
    bk_script_info info;
    if (bk_script_info_get(script, len, net, &info) != BK_OK) {
        /* Only an unknown network fails; nothing valid can be written. */
        if (j->status == BK_OK) j->status = BK_ERR_ARG;
        return;
    }
    uint8_t *p = jw_key(j, JW_KEY_N("asm"), 1);
    if (p) {
        *p++ = '"';
        jw_commit(j, p);
        bk_script_asm(j->w, script, len, 0);
        bk_writer_putc(j->w, '"');
    }
    p = jw_key(j, JW_KEY_N("desc"), 1);
    if (p) {
        *p++ = '"';
        jw_commit(j, p);
        bk_script_info_descriptor(j->w, script, len, &info);
        bk_writer_putc(j->w, '"');
    }
    jw_kv_hex(j, JW_KEY_N("hex"), script, len);
    /* Core: ExtractDestination returns false for PUBKEY (a
     * PubKeyDestination), multisig, nulldata and nonstandard. */
    if (info.address_len && info.sol.type != BK_SCRIPT_PUBKEY)
        jw_kv_raw_str(j, JW_KEY_N("address"), info.address, info.address_len);
    const char *type = bk_script_type_name(info.sol.type);
    jw_kv_raw_str(j, JW_KEY_N("type"), type, strlen(type));
}

void bk_json_script_pubkey(bk_json *j, const uint8_t *script, size_t len, bk_network net)
{
    bk_json_begin_object(j);
    bk_json_script_pubkey_members_(j, script, len, net);
    bk_json_end_object(j);
}

/* Core: TxToUniv scriptSig "asm" = ScriptToAsmStr(scriptSig, true). */
void bk_json_script_sig_asm_(bk_writer *w, const uint8_t *script, size_t len)
{
    bk_script_asm(w, script, len, 1);
}
