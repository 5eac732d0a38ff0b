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

/* Core's Solver templates: SCRIPTHASH is OP_HASH160 <20> OP_EQUAL,
 * PUBKEYHASH is OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG. */
static int is_p2sh(const uint8_t *s, size_t n) { return n == 23 && s[0] == 0xa9 && s[1] == 0x14 && s[22] == 0x87; }
static int is_p2pkh(const uint8_t *s, size_t n)
{
    return n == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 0x14 && s[23] == 0x88 && s[24] == 0xac;
}

/* Whether s is what the cursor queues. */
static int wanted(const bk_xonly_cursor_ *c, const uint8_t *s, size_t n)
{
    return c->kind == 0 ? is_taproot(s, n) : is_p2sh(s, n) || is_p2pkh(s, n);
}

/* What the cursor queues for s (wanted): the taproot key, or the
 * version byte + hash160 of the address. */
static void queue(bk_xonly_cursor_ *c, const uint8_t *s, size_t n)
{
    uint8_t *k = c->keys[c->count++];
    if (c->kind == 0) {
        memcpy(k, s + 2, 32);
    } else {
        int sh = n == 23;
        k[0] = c->prefix[sh];
        memcpy(k + 1, s + (sh ? 2 : 3), 20);
    }
}

static int same(const bk_xonly_cursor_ *c, const uint8_t *s, size_t n)
{
    const uint8_t *k = c->keys[c->pos];
    if (c->kind == 0) return memcmp(k, s + 2, 32) == 0;
    int sh = n == 23;
    return k[0] == c->prefix[sh] && memcmp(k + 1, s + (sh ? 2 : 3), 20) == 0;
}

void bk_xonly_cursor_init_(bk_xonly_cursor_ *c, const bk_block *b, const bk_block_undo *undo)
{
    c->b = b;
    c->kind = 0;
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
            if (wanted(c, s, coin.script_len)) queue(c, s, coin.script_len);
        } else {
            bk_txout o;
            if (!bk_txout_next(&c->oi, &o)) {
                c->tx++;
                c->phase = 0;
                continue;
            }
            if (wanted(c, o.script, o.script_len)) queue(c, o.script, o.script_len);
        }
    }
    if (c->kind == 0) {
        bk_script_xonly_valid_many(&c->keys[0][0], c->count, c->valid);
        return;
    }
    for (uint32_t i = 0; i < c->count; i++) {
        c->seg[i].data = c->keys[i];
        c->seg[i].len = 21;
        c->msg[i].segs = &c->seg[i];
        c->msg[i].nsegs = 1;
    }
    if (c->count) bk_sha256d_msgs(&c->sums[0][0], c->msg, c->count);
}

/* Whether the cursor has s next (then c->pos is its place). */
static int has_next(bk_xonly_cursor_ *c, const uint8_t *s, size_t n)
{
    if (!c || c->off || !wanted(c, s, n)) return 0;
    if (c->pos == c->count) {
        cursor_fill(c);
        if (c->count == 0) {
            c->off = 1;
            return 0;
        }
    }
    if (!same(c, s, n)) {
        c->off = 1;
        return 0;
    }
    return 1;
}

int bk_xonly_cursor_take_(bk_xonly_cursor_ *c, const uint8_t *s, size_t n)
{
    if (!c || c->kind != 0 || !has_next(c, s, n)) return -1;
    return c->valid[c->pos++];
}

void bk_b58_cursor_init_(bk_xonly_cursor_ *c, const bk_block *b, const bk_block_undo *undo, bk_network net)
{
    bk_xonly_cursor_init_(c, b, undo);
    const bk_network_params *p = bk_network_get(net);
    c->kind = 1;
    c->off = p == NULL;
    c->prefix[0] = p ? p->p2pkh_prefix : 0;
    c->prefix[1] = p ? p->p2sh_prefix : 0;
}

size_t bk_b58_cursor_take_(bk_xonly_cursor_ *c, const uint8_t *s, size_t n, char *out)
{
    if (!c || c->kind != 1 || !has_next(c, s, n)) return 0;
    const uint8_t *k = c->keys[c->pos];
    size_t len = bk_base58check21_sum(out, k[0], k + 1, c->sums[c->pos]);
    c->pos++;
    return len;
}
