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
                                    bk_script_cursors_ *cur)
{
    bk_script_info info;
    if (bk_script_info_cursors_(script, len, net, cur, &info) != BK_OK) {
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
    bk_json_script_pubkey_members_(j, script, len, net, NULL);
    bk_json_end_object(j);
}

/* Core: TxToUniv scriptSig "asm" = ScriptToAsmStr(scriptSig, true). */
void bk_json_script_sig_asm_(bk_writer *w, const uint8_t *script, size_t len)
{
    bk_script_asm(w, script, len, 1);
}

/* ---- script facts decided in batches (bk_script_cursors_) ---- */

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

/* The queue s goes to (NULL: none), and its key there: the taproot key,
 * or the version byte + hash160 of the address. */
static bk_script_queue_ *queue_of(bk_script_cursors_ *c, const uint8_t *s, size_t n, uint8_t key[32])
{
    if (is_taproot(s, n)) {
        memcpy(key, s + 2, 32);
        return &c->tr;
    }
    if (!c->b58 || !(is_p2sh(s, n) || is_p2pkh(s, n))) return NULL;
    int sh = n == 23;
    key[0] = c->prefix[sh];
    memcpy(key + 1, s + (sh ? 2 : 3), 20);
    return &c->pk;
}

static void enqueue(bk_script_cursors_ *c, const uint8_t *s, size_t n)
{
    uint8_t key[32];
    bk_script_queue_ *q = queue_of(c, s, n, key);
    if (q) memcpy(q->keys[q->count++], key, 32);
}

void bk_script_cursors_init_(bk_script_cursors_ *c, const bk_block *b, const bk_block_undo *undo, bk_network net)
{
    const bk_network_params *p = bk_network_get(net);
    c->b = b;
    c->b58 = p != NULL;
    c->prefix[0] = p ? p->p2pkh_prefix : 0;
    c->prefix[1] = p ? p->p2sh_prefix : 0;
    c->prevouts = undo != NULL;
    if (undo) bk_undo_iter_init(&c->ui, undo);
    c->tx = 0;
    c->phase = 0;
    c->off = 0;
    c->skip_taproot = 0;
    c->tr.pos = c->tr.count = c->pk.pos = c->pk.count = 0;
}

/* The next batches: called when the queue asked is used up. In step, the
 * renderer has then taken every answer walked so far, so both queues
 * start empty; the walk stops when either is full. */
static void cursors_fill(bk_script_cursors_ *c)
{
    if (c->tr.pos != c->tr.count || c->pk.pos != c->pk.count) {
        c->off = 1;
        return;
    }
    c->tr.pos = c->tr.count = c->pk.pos = c->pk.count = 0;
    while (c->tr.count < BK_SCRIPT_BATCH && c->pk.count < BK_SCRIPT_BATCH && c->phase != 3) {
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
            enqueue(c, bk_coin_script(&coin), coin.script_len);
        } else {
            bk_txout o;
            if (!bk_txout_next(&c->oi, &o)) {
                c->tx++;
                c->phase = 0;
                continue;
            }
            enqueue(c, o.script, o.script_len);
        }
    }
    if (c->tr.count && c->skip_taproot) memset(c->valid, 0, c->tr.count);
    else if (c->tr.count) bk_script_xonly_valid_many(&c->tr.keys[0][0], c->tr.count, c->valid);
    for (uint32_t i = 0; i < c->pk.count; i++) {
        c->seg[i].data = c->pk.keys[i];
        c->seg[i].len = 21;
        c->msg[i].segs = &c->seg[i];
        c->msg[i].nsegs = 1;
    }
    if (c->pk.count) bk_sha256d_msgs(&c->sums[0][0], c->msg, c->pk.count);
}

/* Whether the cursors have the script of key `key` next in queue q (then
 * q->pos is its place). */
static int has_next(bk_script_cursors_ *c, const bk_script_queue_ *q, const uint8_t key[32])
{
    if (c->off) return 0;
    if (q->pos == q->count) {
        cursors_fill(c);
        if (c->off || q->count == 0) {
            c->off = 1;
            return 0;
        }
    }
    if (memcmp(q->keys[q->pos], key, q == &c->tr ? 32 : 21) != 0) {
        c->off = 1;
        return 0;
    }
    return 1;
}

static int take_taproot(bk_script_cursors_ *c, const uint8_t key[32])
{
    return has_next(c, &c->tr, key) ? c->valid[c->tr.pos++] : -1;
}

static size_t take_b58(bk_script_cursors_ *c, const uint8_t key[32], char *out)
{
    if (!has_next(c, &c->pk, key)) return 0;
    uint32_t i = c->pk.pos++;
    return bk_base58check21_sum(out, key[0], key + 1, c->sums[i]);
}

int bk_script_cursors_taproot_(bk_script_cursors_ *c, const uint8_t *s, size_t n)
{
    uint8_t key[32];
    if (!c || queue_of(c, s, n, key) != &c->tr) return -1;
    return take_taproot(c, key);
}

size_t bk_script_cursors_b58_(bk_script_cursors_ *c, const uint8_t *s, size_t n, char *out)
{
    uint8_t key[32];
    if (!c || queue_of(c, s, n, key) != &c->pk) return 0;
    return take_b58(c, key, out);
}

bk_status bk_script_info_cursors_(const uint8_t *s, size_t n, bk_network net, bk_script_cursors_ *c,
                                  bk_script_info *info)
{
    uint8_t key[32];
    const bk_script_queue_ *q = c ? queue_of(c, s, n, key) : NULL;
    int skip = c && c->skip_taproot;
    if (!q) return bk_script_info_get_hint(s, n, net, skip ? 0 : -1, info);
    if (q == &c->tr) {
        int v = take_taproot(c, key);
        return bk_script_info_get_hint(s, n, net, skip ? 0 : v, info);
    }
    size_t alen = take_b58(c, key, info->address);
    if (!alen) return bk_script_info_get_hint(s, n, net, -1, info);
    bk_script_solve(s, n, &info->sol);
    info->address_len = alen;
    info->taproot_valid = 0;
    return BK_OK;
}
