/* Transactions as Core's TxToUniv renders them (src/core_io.cpp; spec §5.1).
 * Field order: txid, hash, version, size, vsize, weight, locktime, vin,
 * vout, [fee], [hex]. Nothing here allocates: every value streams straight
 * into the caller's writer. */
#include <blockkit/json.h>

#include "json/json_internal.h"

void bk_tx_json_opts_init(bk_tx_json_opts *o)
{
    memset(o, 0, sizeof *o);
    o->network = BK_NET_MAIN;
    o->verbosity = BK_TXV_DETAILS;
    o->include_hex = 1;
}

/* Core: MAX_MONEY / MoneyRange (src/consensus/amount.h). */
#define BK_MAX_MONEY (21000000LL * 100000000LL)

static void witness_json(bk_json *j, const bk_txin *in)
{
    bk_witness_iter wi;
    const uint8_t *item;
    uint32_t len;
    jw_kv_open(j, JW_KEY_N("txinwitness"), 0);
    bk_witness_iter_init(&wi, in);
    while (bk_witness_next(&wi, &item, &len)) jw_elem_hex(j, item, len);
    jw_close(j, 0);
}

/* Core TxToUniv "prevout" (SHOW_DETAILS_AND_PREVOUT with undo). */
static void prevout_json(bk_json *j, const bk_coin *coin, bk_network net, bk_script_cursors_ *cur)
{
    jw_kv_open(j, JW_KEY_N("prevout"), 1);
    jw_kv_bool(j, JW_KEY_N("generated"), coin->coinbase);
    jw_kv_uint(j, JW_KEY_N("height"), coin->height);
    jw_kv_amount(j, JW_KEY_N("value"), coin->value);
    jw_kv_open(j, JW_KEY_N("scriptPubKey"), 1);
    const uint8_t *script = bk_coin_script(coin);
    bk_json_script_pubkey_members_(j, script, coin->script_len, net, cur);
    jw_close(j, 1);
    jw_close(j, 1);
}

bk_status bk_json_tx(bk_json *j, const bk_tx *tx, const bk_tx_json_opts *o, bk_undo_iter *undo,
                     bk_error *err)
{
    return bk_json_tx_cursor_(j, tx, o, undo, NULL, err);
}

bk_status bk_json_tx_cursor_(bk_json *j, const bk_tx *tx, const bk_tx_json_opts *o, bk_undo_iter *undo,
                             bk_script_cursors_ *cur, bk_error *err)
{
    bk_tx_json_opts defaults;
    if (!o) {
        bk_tx_json_opts_init(&defaults);
        o = &defaults;
    }
    if (!j || !tx) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    int coinbase = bk_tx_is_coinbase(tx);
    if (undo) {
        /* Core passes no CTxUndo for the coinbase (blockToJSON: i >= 1). */
        if (coinbase) return bk_error_set(err, BK_ERR_ARG, 0, "a coinbase has no spent coins");
        if (undo->coins_left != tx->n_in)
            return bk_error_set(err, BK_ERR_MISMATCH, undo->pos,
                                "undo data does not match block: %u coins for %u inputs",
                                (unsigned)undo->coins_left, (unsigned)tx->n_in);
    }

    uint8_t txid[32], wtxid[32];
    const uint8_t *id = o->txid, *wid = o->wtxid;
    if (!id) {
        bk_tx_txid(tx, txid);
        id = txid;
    }
    if (!wid) {
        if (tx->has_witness) {
            bk_tx_wtxid(tx, wtxid);
            wid = wtxid;
        } else {
            wid = id;
        }
    }

    /* The object itself goes through the public call: it may be the root,
     * an array element or a member value. */
    bk_json_begin_object(j);
    jw_kv_hash(j, JW_KEY_N("txid"), id);
    jw_kv_hash(j, JW_KEY_N("hash"), wid);
    /* Core >= v28 (PR #29325): nVersion is uint32_t; before, int32_t. */
    if (o->signed_version) jw_kv_int(j, JW_KEY_N("version"), (int32_t)tx->version);
    else jw_kv_uint(j, JW_KEY_N("version"), tx->version);
    jw_kv_uint(j, JW_KEY_N("size"), tx->size);
    jw_kv_uint(j, JW_KEY_N("vsize"), bk_tx_vsize(tx));
    jw_kv_uint(j, JW_KEY_N("weight"), bk_tx_weight(tx));
    jw_kv_uint(j, JW_KEY_N("locktime"), tx->locktime);

    int64_t total_in = 0;
    int amounts_ok = 1;
    jw_kv_open(j, JW_KEY_N("vin"), 0);
    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, tx);
    while (bk_txin_next(&ii, &in)) {
        jw_elem_open(j, 1);
        if (coinbase) {
            jw_kv_hex(j, JW_KEY_N("coinbase"), in.script_sig, in.script_sig_len);
        } else {
            jw_kv_hash(j, JW_KEY_N("txid"), in.prev_txid);
            jw_kv_uint(j, JW_KEY_N("vout"), in.prev_index);
            jw_kv_open(j, JW_KEY_N("scriptSig"), 1);
            uint8_t *p = jw_key(j, JW_KEY_N("asm"), 1);
            if (p) {
                *p++ = '"';
                jw_commit(j, p);
                bk_json_script_sig_asm_(j->w, in.script_sig, in.script_sig_len);
                bk_writer_putc(j->w, '"');
            }
            jw_kv_hex(j, JW_KEY_N("hex"), in.script_sig, in.script_sig_len);
            jw_close(j, 1);
        }
        /* Core: txinwitness only when the stack is non-empty, coinbase too. */
        if (in.witness_items) witness_json(j, &in);
        if (undo) {
            bk_coin coin;
            if (!bk_undo_next_coin(undo, &coin))
                return bk_error_set(err, BK_ERR_MISMATCH, undo->pos, "undo data does not match block");
            if (__builtin_add_overflow(total_in, coin.value, &total_in)) amounts_ok = 0;
            if (o->verbosity >= BK_TXV_DETAILS_AND_PREVOUT) prevout_json(j, &coin, o->network, cur);
        }
        jw_kv_uint(j, JW_KEY_N("sequence"), in.sequence);
        jw_close(j, 1);
    }
    jw_close(j, 0);

    int64_t total_out = 0;
    jw_kv_open(j, JW_KEY_N("vout"), 0);
    bk_txout_iter oi;
    bk_txout out;
    bk_txout_iter_init(&oi, tx);
    for (uint32_t n = 0; bk_txout_next(&oi, &out); n++) {
        jw_elem_open(j, 1);
        jw_kv_amount(j, JW_KEY_N("value"), out.value);
        jw_kv_uint(j, JW_KEY_N("n"), n);
        jw_kv_open(j, JW_KEY_N("scriptPubKey"), 1);
        bk_json_script_pubkey_members_(j, out.script, out.script_len, o->network, cur);
        jw_close(j, 1);
        jw_close(j, 1);
        if (__builtin_add_overflow(total_out, out.value, &total_out)) amounts_ok = 0;
    }
    jw_close(j, 0);

    if (undo) {
        /* Core: fee = in - out, CHECK_NONFATAL(MoneyRange(fee)). */
        int64_t fee = 0;
        if (!amounts_ok || __builtin_sub_overflow(total_in, total_out, &fee) || fee < 0 || fee > BK_MAX_MONEY)
            return bk_error_set(err, BK_ERR_INVALID, 0, "fee out of range (inputs %lld, outputs %lld)",
                                (long long)total_in, (long long)total_out);
        jw_kv_amount(j, JW_KEY_N("fee"), fee);
    }
    if (o->include_hex) jw_kv_hex(j, JW_KEY_N("hex"), tx->data, tx->size);
    bk_json_end_object(j);
    bk_status st = j->status != BK_OK ? j->status : j->w->status;
    if (st != BK_OK) return bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
    return BK_OK;
}

/* ---- decoderawtransaction's DecodeTx heuristics ---- */

/* Core: MAX_SCRIPT_SIZE, MAX_SCRIPT_ELEMENT_SIZE, MAX_OPCODE (OP_NOP10). */
#define BK_MAX_SCRIPT_SIZE 10000
#define BK_MAX_ELEMENT_SIZE 520
#define BK_MAX_OPCODE 0xb9

/* Core CScript::HasValidOps and the size limit of CheckTxScriptsSanity. */
static int script_sane(const uint8_t *s, size_t n)
{
    if (n > BK_MAX_SCRIPT_SIZE) return 0;
    size_t i = 0;
    while (i < n) {
        uint8_t op = s[i++];
        size_t len = 0;
        if (op < 0x4c) {
            len = op;
        } else if (op == 0x4c) {
            if (n - i < 1) return 0;
            len = s[i];
            i += 1;
        } else if (op == 0x4d) {
            if (n - i < 2) return 0;
            len = bk_load_le16(s + i);
            i += 2;
        } else if (op == 0x4e) {
            if (n - i < 4) return 0;
            len = bk_load_le32(s + i);
            i += 4;
        } else if (op > BK_MAX_OPCODE) {
            return 0;
        }
        if (len > n - i || len > BK_MAX_ELEMENT_SIZE) return 0;
        i += len;
    }
    return 1;
}

/* Core CheckTxScriptsSanity (src/core_io.cpp). */
static int tx_scripts_sane(const bk_tx *tx)
{
    if (!bk_tx_is_coinbase(tx)) {
        bk_txin_iter ii;
        bk_txin in;
        bk_txin_iter_init(&ii, tx);
        while (bk_txin_next(&ii, &in))
            if (!script_sane(in.script_sig, in.script_sig_len)) return 0;
    }
    bk_txout_iter oi;
    bk_txout out;
    bk_txout_iter_init(&oi, tx);
    while (bk_txout_next(&oi, &out))
        if (!script_sane(out.script, out.script_len)) return 0;
    return 1;
}

bk_status bk_tx_decode_core(const uint8_t *data, size_t len, bk_tx *tx_out, bk_error *err)
{
    if (!tx_out || (!data && len)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_tx ext, leg;
    bk_error e;
    bk_error_clear(&e);
    int ext_ok = bk_tx_parse(data, len, &ext, NULL, &e) == BK_OK;
    int leg_ok = bk_tx_parse_legacy(data, len, &leg, NULL, NULL) == BK_OK;
    if (ext_ok && leg_ok) {
        int ext_sane = tx_scripts_sane(&ext), leg_sane = tx_scripts_sane(&leg);
        *tx_out = (leg_sane && !ext_sane) ? leg : ext;
        return BK_OK;
    }
    if (ext_ok) {
        *tx_out = ext;
        return BK_OK;
    }
    if (leg_ok) {
        *tx_out = leg;
        return BK_OK;
    }
    if (err) *err = e;
    return e.status != BK_OK ? e.status : BK_ERR_INVALID;
}
