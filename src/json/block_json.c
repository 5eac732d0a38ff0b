/* Blocks as Core's getblockheader / getblock render them
 * (src/rpc/blockchain.cpp blockheaderToJSON, blockToJSON; spec §3, §4).
 * Field order: hash, confirmations, height, version, versionHex,
 * merkleroot, time, mediantime, nonce, bits, [target], difficulty,
 * chainwork, nTx, [previousblockhash], [nextblockhash], then for getblock
 * strippedsize, size, weight, [coinbase_tx], tx. */
#include <blockkit/json.h>

#include <stdio.h>

#include "json/json_internal.h"

void bk_block_json_opts_init(bk_block_json_opts *o)
{
    memset(o, 0, sizeof *o);
    o->verbosity = 1;
    o->core_version = BK_CORE_NEWEST;
}

void bk_chain_context_standalone(bk_chain_context *ctx, const bk_block *b, bk_network net, int64_t height)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->network = net;
    ctx->height = height;
    ctx->confirmations = 1;
    ctx->mediantime = b->header.time;
    ctx->tip_bits = b->header.bits;
}

static int core_version_of(const bk_block_json_opts *o)
{
    return o->core_version ? o->core_version : BK_CORE_NEWEST;
}

static void hex32_key(bk_json *j, const char *key, size_t klen, uint32_t v)
{
    char buf[9];
    snprintf(buf, sizeof buf, "%08x", v);
    bk_json_key_n(j, key, klen);
    bk_json_string_n(j, buf, 8);
}

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* The members of blockheaderToJSON, written into an open object. */
static bk_status header_fields(bk_json *j, const bk_block *b, const bk_chain_context *ctx,
                               const bk_block_json_opts *o, bk_error *err)
{
    int core = core_version_of(o);
    const bk_header *h = &b->header;
    uint8_t hash[32];
    if (o->hash) memcpy(hash, o->hash, 32);
    else bk_block_hash(b, hash);

    BK_JSON_KEY(j, "hash");
    bk_json_hex_rev(j, hash, 32);
    BK_JSON_KEY(j, "confirmations");
    bk_json_int(j, ctx->confirmations);
    BK_JSON_KEY(j, "height");
    bk_json_int(j, ctx->height);
    BK_JSON_KEY(j, "version");
    bk_json_int(j, h->version);
    hex32_key(j, "versionHex", 10, (uint32_t)h->version);
    BK_JSON_KEY(j, "merkleroot");
    bk_json_hex_rev(j, h->merkle_root, 32);
    BK_JSON_KEY(j, "time");
    bk_json_uint(j, h->time);
    BK_JSON_KEY(j, "mediantime");
    bk_json_int(j, ctx->mediantime);
    BK_JSON_KEY(j, "nonce");
    bk_json_uint(j, h->nonce);
    hex32_key(j, "bits", 4, h->bits);
    if (core >= 29) {
        /* Core v29+ (PR #31583): GetTarget -> DeriveTarget, which
         * CHECK_NONFATALs on a negative, zero, overflowing or
         * above-powLimit target. Core v29.0 (issue #33440, fixed by PR
         * #33446) printed the tip's target for every block. */
        uint32_t bits = o->tip_target ? ctx->tip_bits : h->bits;
        uint8_t target[32];
        const bk_network_params *np = bk_network_get(ctx->network);
        if (!np) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
        if (!bk_target_from_bits(bits, target) || memcmp(target, np->pow_limit, 32) > 0)
            return bk_error_set(err, BK_ERR_INVALID, 72, "nBits %08x gives no valid target for %s", bits,
                                np->name);
        BK_JSON_KEY(j, "target");
        bk_json_hex(j, target, 32);
    }
    BK_JSON_KEY(j, "difficulty");
    bk_json_double(j, bk_difficulty(h->bits));
    BK_JSON_KEY(j, "chainwork");
    bk_json_hex(j, ctx->chainwork, 32);
    BK_JSON_KEY(j, "nTx");
    bk_json_uint(j, b->n_tx);
    /* Core: previousblockhash only when the index has a parent; only a
     * genesis block (all-zero hashPrevBlock) has none. */
    if (!all_zero(h->prev_hash, 32)) {
        BK_JSON_KEY(j, "previousblockhash");
        bk_json_hex_rev(j, h->prev_hash, 32);
    }
    if (ctx->has_next) {
        BK_JSON_KEY(j, "nextblockhash");
        bk_json_hex_rev(j, ctx->next_hash, 32);
    }
    return BK_OK;
}

static bk_status check_args(bk_json *j, const bk_block *b, const bk_chain_context *ctx,
                            const bk_block_json_opts *o, bk_error *err)
{
    if (!j || !b || !ctx || !o) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    int core = core_version_of(o);
    if (core < BK_CORE_MIN || core > BK_CORE_NEWEST)
        return bk_error_set(err, BK_ERR_ARG, 0, "core version %d not supported (%d..%d)", core, BK_CORE_MIN,
                            BK_CORE_NEWEST);
    if (o->verbosity < 0 || o->verbosity > 3)
        return bk_error_set(err, BK_ERR_ARG, 0, "verbosity %d not in 0..3", o->verbosity);
    if (b->n_tx == 0) return bk_error_set(err, BK_ERR_NO_TX, 80, "block has no transactions");
    return BK_OK;
}

static bk_status finish(bk_json *j, bk_error *err)
{
    bk_status st = j->status != BK_OK ? j->status : j->w->status;
    if (st != BK_OK) return bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
    return BK_OK;
}

bk_status bk_json_block_header(bk_json *j, const bk_block *b, const bk_chain_context *ctx,
                               const bk_block_json_opts *o, bk_error *err)
{
    bk_block_json_opts defaults;
    if (!o) {
        bk_block_json_opts_init(&defaults);
        o = &defaults;
    }
    bk_status st = check_args(j, b, ctx, o, err);
    if (st != BK_OK) return st;
    bk_json_begin_object(j);
    st = header_fields(j, b, ctx, o, err);
    if (st != BK_OK) return st;
    bk_json_end_object(j);
    return finish(j, err);
}

bk_status bk_json_block_header_raw(bk_json *j, const uint8_t header[BK_HEADER_SIZE], uint32_t n_tx,
                                   const bk_chain_context *ctx, const bk_block_json_opts *o, bk_error *err)
{
    bk_block_json_opts defaults;
    if (!o) {
        bk_block_json_opts_init(&defaults);
        o = &defaults;
    }
    if (!header) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    /* A block view of the header alone: header_fields reads only the
     * header, its bytes (for the hash) and n_tx. */
    bk_block b;
    memset(&b, 0, sizeof b);
    b.data = header;
    b.size = b.stripped_size = BK_HEADER_SIZE;
    b.n_tx = 1;
    bk_status st = check_args(j, &b, ctx, o, err);
    if (st == BK_OK) st = bk_header_parse(header, BK_HEADER_SIZE, &b.header, err);
    if (st != BK_OK) return st;
    b.n_tx = n_tx;
    bk_json_begin_object(j);
    st = header_fields(j, &b, ctx, o, err);
    if (st != BK_OK) return st;
    bk_json_end_object(j);
    return finish(j, err);
}

/* Core coinbaseTxToJSON (master, PR #34512): version, locktime, sequence,
 * coinbase, and witness when the coinbase input's stack is non-empty
 * (Core CHECK-fails on more than one item). */
static bk_status coinbase_tx_json(bk_json *j, const bk_tx *cb, bk_error *err)
{
    bk_txin_iter it;
    bk_txin in;
    bk_txin_iter_init(&it, cb);
    if (!bk_txin_next(&it, &in)) return bk_error_set(err, BK_ERR_INVALID, 0, "coinbase without input");
    if (in.witness_items > 1)
        return bk_error_set(err, BK_ERR_INVALID, 0, "coinbase witness has %u items (Core expects at most one)",
                            (unsigned)in.witness_items);
    BK_JSON_KEY(j, "coinbase_tx");
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "version");
    bk_json_uint(j, cb->version);
    BK_JSON_KEY(j, "locktime");
    bk_json_uint(j, cb->locktime);
    BK_JSON_KEY(j, "sequence");
    bk_json_uint(j, in.sequence);
    BK_JSON_KEY(j, "coinbase");
    bk_json_hex(j, in.script_sig, in.script_sig_len);
    if (in.witness_items == 1) {
        bk_witness_iter wi;
        const uint8_t *item;
        uint32_t len;
        bk_witness_iter_init(&wi, &in);
        if (bk_witness_next(&wi, &item, &len)) {
            BK_JSON_KEY(j, "witness");
            bk_json_hex(j, item, len);
        }
    }
    bk_json_end_object(j);
    return BK_OK;
}

bk_status bk_json_block(bk_json *j, const bk_block *b, const bk_block_undo *undo, const bk_chain_context *ctx,
                        const bk_block_json_opts *o, bk_error *err)
{
    bk_block_json_opts defaults;
    if (!o) {
        bk_block_json_opts_init(&defaults);
        o = &defaults;
    }
    bk_status st = check_args(j, b, ctx, o, err);
    if (st != BK_OK) return st;
    if (o->verbosity == 0) {
        /* getblock verbosity 0: the serialized block as a hex string. */
        bk_json_hex(j, b->data, b->size);
        return finish(j, err);
    }
    /* Core indexes vtxundo without checks; a mismatch is corrupt undo. */
    if (undo && o->verbosity >= 2) {
        st = bk_block_undo_check(undo, b, err);
        if (st != BK_OK) return st;
    }
    int core = core_version_of(o);

    bk_json_begin_object(j);
    st = header_fields(j, b, ctx, o, err);
    if (st != BK_OK) return st;
    BK_JSON_KEY(j, "strippedsize");
    bk_json_uint(j, b->stripped_size);
    BK_JSON_KEY(j, "size");
    bk_json_uint(j, b->size);
    BK_JSON_KEY(j, "weight");
    bk_json_uint(j, bk_block_weight(b));
    if (core >= 31) {
        st = coinbase_tx_json(j, &b->txs[0], err);
        if (st != BK_OK) return st;
    }
    BK_JSON_KEY(j, "tx");
    bk_json_begin_array(j);
    if (o->verbosity == 1) {
        uint8_t id[32];
        for (uint32_t i = 0; i < b->n_tx; i++) {
            const uint8_t *p = id;
            if (o->txids) p = o->txids + 32 * (size_t)i;
            else bk_tx_txid(&b->txs[i], id);
            jw_elem_hash(j, p);
        }
    } else {
        bk_tx_json_opts to;
        bk_tx_json_opts_init(&to);
        to.network = ctx->network;
        to.verbosity = o->verbosity;
        to.include_hex = 1;
        to.signed_version = o->signed_tx_version;
        bk_undo_iter ui;
        if (undo) bk_undo_iter_init(&ui, undo);
        /* Taproot keys decided 128 at a time ahead of rendering (SIMD),
         * and the Base58Check checksums of P2PKH/P2SH hashed 128 at a time. */
        bk_script_cursors_ cur;
        bk_script_cursors_init_(&cur, b, undo && o->verbosity >= BK_TXV_DETAILS_AND_PREVOUT ? undo : NULL,
                                ctx->network);
        for (uint32_t i = 0; i < b->n_tx; i++) {
            to.txid = o->txids ? o->txids + 32 * (size_t)i : NULL;
            to.wtxid = o->wtxids ? o->wtxids + 32 * (size_t)i : NULL;
            bk_undo_iter *u = NULL;
            if (undo && i > 0) {
                uint32_t n_coins;
                if (!bk_undo_next_tx(&ui, &n_coins))
                    return bk_error_set(err, BK_ERR_MISMATCH, ui.pos, "undo data does not match block");
                u = &ui;
            }
            st = bk_json_tx_cursor_(j, &b->txs[i], &to, u, &cur, err);
            if (st != BK_OK) return st;
        }
    }
    bk_json_end_array(j);
    bk_json_end_object(j);
    return finish(j, err);
}
