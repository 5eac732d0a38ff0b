/* Script fields of transaction JSON, rendered through the script module
 * (include/blockkit/script.h).
 *
 * Core: ScriptToUniv(script, out, include_hex=true, include_address=true)
 * (src/core_io.cpp): asm (no sighash decoding), desc, hex, address (only
 * when ExtractDestination succeeds and the type is not pubkey), type. */
#include <blockkit/json.h>
#include <blockkit/script.h>

#include "bitcoin/script_internal.h" /* bk_script_info_get_hint, bk_script_xonly_valid_many */
#include "json/json_internal.h"

/* The members of the scriptPubKey object, into an open object. */
void bk_json_script_pubkey_members_(bk_json *j, const uint8_t *script, size_t len, bk_network net,
                                    int taproot_hint)
{
    bk_script_info info;
    if (bk_script_info_get_hint(script, len, net, taproot_hint, &info) != BK_OK) {
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
    bk_json_script_pubkey_members_(j, script, len, net, -1);
    bk_json_end_object(j);
}

/* Core: TxToUniv scriptSig "asm" = ScriptToAsmStr(scriptSig, true). */
void bk_json_script_sig_asm_(bk_writer *w, const uint8_t *script, size_t len)
{
    bk_script_asm(w, script, len, 1);
}

/* ---- taproot keys decided in batches (bk_xonly_cursor_) ---- */

/* Core: Solver's WITNESS_V1_TAPROOT is OP_1 followed by a 32-byte push;
 * anything else the solver calls taproot gets no hint and is decided on
 * its own (the hint is only used for taproot scripts). */
static int is_taproot(const uint8_t *s, size_t n)
{
    return n == 34 && s[0] == 0x51 && s[1] == 0x20;
}

void bk_xonly_cursor_init_(bk_xonly_cursor_ *c, const bk_block *b, const bk_block_undo *undo)
{
    c->b = b;
    c->prevouts = undo != NULL;
    if (undo) bk_undo_iter_init(&c->ui, undo);
    c->tx = 0;
    c->phase = 0;
    c->pos = c->count = 0;
    c->off = 0;
}

static void cursor_fill(bk_xonly_cursor_ *c)
{
    c->pos = c->count = 0;
    while (c->count < BK_XONLY_BATCH && c->phase != 3) {
        if (c->phase == 0) {
            if (c->tx == c->b->n_tx) {
                c->phase = 3;
            } else if (c->prevouts && c->tx > 0) {
                uint32_t n_coins;
                c->phase = bk_undo_next_tx(&c->ui, &n_coins) ? 1 : 3;
            } else {
                bk_txout_iter_init(&c->oi, &c->b->txs[c->tx]);
                c->phase = 2;
            }
        } else if (c->phase == 1) {
            bk_coin coin;
            if (!bk_undo_next_coin(&c->ui, &coin)) {
                bk_txout_iter_init(&c->oi, &c->b->txs[c->tx]);
                c->phase = 2;
                continue;
            }
            const uint8_t *s = bk_coin_script(&coin);
            if (is_taproot(s, coin.script_len)) memcpy(c->keys[c->count++], s + 2, 32);
        } else {
            bk_txout o;
            if (!bk_txout_next(&c->oi, &o)) {
                c->tx++;
                c->phase = 0;
                continue;
            }
            if (is_taproot(o.script, o.script_len)) memcpy(c->keys[c->count++], o.script + 2, 32);
        }
    }
    bk_script_xonly_valid_many(&c->keys[0][0], c->count, c->valid);
}

int bk_xonly_cursor_take_(bk_xonly_cursor_ *c, const uint8_t *s, size_t n)
{
    if (!c || c->off || !is_taproot(s, n)) return -1;
    if (c->pos == c->count) {
        cursor_fill(c);
        if (c->count == 0) {
            c->off = 1;
            return -1;
        }
    }
    if (memcmp(c->keys[c->pos], s + 2, 32) != 0) {
        c->off = 1;
        return -1;
    }
    return c->valid[c->pos++];
}
