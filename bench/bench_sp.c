/* Silent payments (BIP352, blockkit/silentpay.h).
 *
 * SilentPayments/866342: every tweak of mainnet block 866342 from the
 * decoded block and its parsed undo data (bk_sp_block_each: eligibility,
 * key extraction, the sum, input_hash, input_hash·A, and the txid of each
 * eligible transaction); unit = eligible transaction (2241 in the block),
 * so ns/unit x 2241 is the time per block.
 * SilentPayments/866342/floor: the libsecp256k1 calls alone for the same
 * 2241 transactions, their keys found in setup: parse each key, combine,
 * serialize A, the tagged hash, one tweak multiplication, serialize. The
 * block row's target: within 1.25x of this.
 * SilentPayments/sample/j1, /j2: `sp tweaks --txs` over the Scan rows'
 * blocks directory (bench/sample_dir.c, 150 blocks, 217 MB): the chain
 * built from the files, then bk_sp_run with its lines dropped; unit = MB of
 * blk input, beside Scan/sample/v3/j1.
 * SilentPaymentsScan/866342: one `sp scan` key over the block's 2241
 * tweaks and their taproot outputs (ecdh, t_0, B_spend + t_0·G, the change
 * label), unit = eligible transaction. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <blockkit/blockkit.h>

#include <secp256k1.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_866342 1581623u
#define UNDO_866342 270516u
#define ELIGIBLE_866342 2241

typedef struct sp_bench {
    uint8_t *raw, *undo;
    bk_block_decoder dec;
    bk_block b;
    bk_block_undo u;
    bk_sp_scratch sc;
    /* the floor: per transaction its keys and outpoint_L */
    uint8_t *keys;        /* 33 bytes each */
    uint32_t *first, *count;
    uint8_t (*outpoint)[36];
    size_t n_keys;
    secp256k1_pubkey *parsed;
    const secp256k1_pubkey **ptrs;
    size_t max_keys;
    /* the scan */
    bk_sp_scanner *scanner;
    uint8_t (*tweaks)[33];
    uint8_t *outs;
    uint32_t *out_first, *out_count;
    bk_sp_found found[4096];
    size_t n_tx;
} sp_bench;

static void sp_teardown(void *ctx, const bk_allocator *alloc)
{
    sp_bench *b = ctx;
    bk_sp_scratch_free(&b->sc);
    bk_block_decoder_free(&b->dec);
    bk_sp_scanner_free(b->scanner);
    free(b->keys);
    free(b->first);
    free(b->count);
    free(b->outpoint);
    free(b->parsed);
    free(b->ptrs);
    free(b->tweaks);
    free(b->outs);
    free(b->out_first);
    free(b->out_count);
    bk_free(alloc, b->raw, SIZE_866342 + 1);
    bk_free(alloc, b->undo, UNDO_866342 + 1);
    bk_free(alloc, b, sizeof *b);
}

/* Setup's pass: the keys of every eligible transaction, its tweak and
 * its taproot outputs. */
static bk_status collect(void *ctx, const bk_block *blk, const bk_sp_tx *t, bk_error *err)
{
    (void)blk, (void)err;
    sp_bench *b = ctx;
    size_t i = b->n_tx++;
    memcpy(b->tweaks[i], t->tweak.tweak, 33);
    b->first[i] = (uint32_t)b->n_keys;
    b->count[i] = 0;
    int have = 0;
    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, t->tx);
    /* the coins of this transaction: walk the undo to it */
    bk_undo_iter it;
    bk_undo_iter_init(&it, &b->u);
    uint32_t n;
    for (uint32_t k = 1; k < t->tx_index; k++) {
        (void)bk_undo_next_tx(&it, &n);
        bk_coin c;
        for (uint32_t m = 0; m < n; m++) (void)bk_undo_next_coin(&it, &c);
    }
    (void)bk_undo_next_tx(&it, &n);
    while (bk_txin_next(&ii, &in)) {
        bk_coin c;
        (void)bk_undo_next_coin(&it, &c);
        uint8_t op[36];
        memcpy(op, in.prev_txid, 32);
        bk_store_le32(op + 32, in.prev_index);
        if (!have || memcmp(op, b->outpoint[i], 36) < 0) memcpy(b->outpoint[i], op, 36);
        have = 1;
        bk_sp_input si = {in.prev_txid, in.prev_index, in.script_sig, in.script_sig_len, in.witness, in.witness_items,
                          bk_coin_script(&c), c.script_len};
        bk_sp_key_kind kind = bk_sp_input_key(&si, b->keys + 33 * b->n_keys);
        if (kind != BK_SP_KEY_NONE && kind != BK_SP_KEY_WITNESS_V2) {
            b->n_keys++;
            b->count[i]++;
        }
    }
    if (b->count[i] > b->max_keys) b->max_keys = b->count[i];
    b->out_first[i] = b->out_count[i] = 0;
    size_t base = 0;
    for (size_t k = 0; k < i; k++) base += b->out_count[k];
    b->out_first[i] = (uint32_t)base;
    bk_txout_iter oi;
    bk_txout o;
    bk_txout_iter_init(&oi, t->tx);
    while (bk_txout_next(&oi, &o))
        if (bk_sp_is_taproot(o.script, o.script_len)) memcpy(b->outs + 32 * (base + b->out_count[i]++), o.script + 2, 32);
    return BK_OK;
}

static int sp_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    sp_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    bk_block_decoder_init(&b->dec, alloc);
    bk_sp_scratch_init(&b->sc, alloc);
    b->raw = bk_bench_load("blocks/block866342.raw", SIZE_866342, alloc);
    b->undo = bk_bench_load("undo/block866342_undo.raw", UNDO_866342, alloc);
    if (!b->raw || !b->undo || bk_block_decode(&b->dec, b->raw, SIZE_866342, &b->b, NULL) != BK_OK ||
        bk_block_undo_parse(b->undo, UNDO_866342, &b->u, NULL) != BK_OK) {
        sp_teardown(b, alloc);
        return 1;
    }
    size_t ins = 0, outs = 0;
    for (uint32_t i = 0; i < b->b.n_tx; i++) ins += b->b.txs[i].n_in, outs += b->b.txs[i].n_out;
    /* setup's own buffers: plain malloc (freed in teardown) */
    b->keys = malloc(33 * ins);
    b->first = malloc(sizeof *b->first * b->b.n_tx);
    b->count = malloc(sizeof *b->count * b->b.n_tx);
    b->outpoint = malloc(sizeof *b->outpoint * b->b.n_tx);
    b->tweaks = malloc(sizeof *b->tweaks * b->b.n_tx);
    b->outs = malloc(32 * outs);
    b->out_first = malloc(sizeof *b->out_first * b->b.n_tx);
    b->out_count = malloc(sizeof *b->out_count * b->b.n_tx);
    uint64_t eligible = 0;
    if (!b->keys || !b->first || !b->count || !b->outpoint || !b->tweaks || !b->outs || !b->out_first ||
        !b->out_count || bk_sp_block_each(&b->sc, &b->b, &b->u, NULL, collect, b, &eligible, NULL) != BK_OK ||
        eligible != ELIGIBLE_866342 || b->n_tx != ELIGIBLE_866342) {
        fprintf(stderr, "bench SilentPayments: block 866342 gave %llu eligible transactions, not %d\n",
                (unsigned long long)eligible, ELIGIBLE_866342);
        sp_teardown(b, alloc);
        return 1;
    }
    b->parsed = malloc(sizeof *b->parsed * (b->max_keys + 1));
    b->ptrs = malloc(sizeof *b->ptrs * (b->max_keys + 1));
    /* a scan key, B_spend = G, the change label */
    uint8_t scan[32] = {1}, G[33];
    static const char g_hex[] = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    uint32_t label0 = 0;
    if (!b->parsed || !b->ptrs || bk_hex_decode(G, g_hex, 33, NULL) != BK_OK ||
        bk_sp_scanner_new(scan, G, &label0, 1, alloc, &b->scanner, NULL) != BK_OK) {
        sp_teardown(b, alloc);
        return 1;
    }
    *ctx = b;
    return 0;
}

static bk_status drop(void *ctx, const bk_block *blk, const bk_sp_tx *t, bk_error *err)
{
    (void)ctx, (void)blk, (void)err;
    bk_bench_keep(t->tweak.tweak);
    return BK_OK;
}

static void sp_block_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    sp_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++)
        if (bk_sp_block_each(&b->sc, &b->b, &b->u, NULL, drop, b, NULL, NULL) != BK_OK) return;
}

static void sp_floor_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    sp_bench *b = ctx;
    const secp256k1_context *c = secp256k1_context_static;
    for (uint64_t it = 0; it < iters; it++) {
        for (size_t t = 0; t < b->n_tx; t++) {
            const uint8_t *k = b->keys + 33 * (size_t)b->first[t];
            for (uint32_t j = 0; j < b->count[t]; j++) {
                if (!secp256k1_ec_pubkey_parse(c, &b->parsed[j], k + 33 * j, 33)) return;
                b->ptrs[j] = &b->parsed[j];
            }
            secp256k1_pubkey A;
            if (!secp256k1_ec_pubkey_combine(c, &A, b->ptrs, b->count[t])) return;
            uint8_t msg[69], h[32], out[33];
            size_t len = 33;
            memcpy(msg, b->outpoint[t], 36);
            (void)secp256k1_ec_pubkey_serialize(c, msg + 36, &len, &A, SECP256K1_EC_COMPRESSED);
            if (!secp256k1_tagged_sha256(c, h, (const unsigned char *)"BIP0352/Inputs", 14, msg, 69)) return;
            if (!secp256k1_ec_pubkey_tweak_mul(c, &A, h)) return;
            len = 33;
            (void)secp256k1_ec_pubkey_serialize(c, out, &len, &A, SECP256K1_EC_COMPRESSED);
            bk_bench_keep(out);
        }
    }
}

static void sp_scan_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    sp_bench *b = ctx;
    for (uint64_t it = 0; it < iters; it++)
        for (size_t t = 0; t < b->n_tx; t++) {
            size_t nf;
            if (bk_sp_scan(b->scanner, &b->sc, b->tweaks[t], b->outs + 32 * (size_t)b->out_first[t], b->out_count[t],
                           b->found, &nf, NULL) != BK_OK)
                return;
            bk_bench_keep(&nf);
        }
}

BK_BENCH(bench_sp_block, .name = "SilentPayments/866342", .unit = "tx", .units_per_op = ELIGIBLE_866342,
         .bytes_per_op = SIZE_866342, .setup = sp_setup, .run = sp_block_run, .teardown = sp_teardown)
BK_BENCH(bench_sp_floor, .name = "SilentPayments/866342/floor", .unit = "tx", .units_per_op = ELIGIBLE_866342,
         .bytes_per_op = SIZE_866342, .setup = sp_setup, .run = sp_floor_run, .teardown = sp_teardown)
BK_BENCH(bench_sp_scan, .name = "SilentPaymentsScan/866342", .unit = "tx", .units_per_op = ELIGIBLE_866342,
         .bytes_per_op = SIZE_866342, .setup = sp_setup, .run = sp_scan_run, .teardown = sp_teardown)

/* ---- the bench blocks directory ---- */

typedef struct spd_bench {
    char dir[4096];
    int keep;
    int workers;
} spd_bench;

static int spd_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    spd_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    b->workers = (int)(intptr_t)arg;
    if (bk_bench_sample_dir(b->dir, sizeof b->dir, &b->keep, alloc) != 0) {
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    *ctx = b;
    return 0;
}

static void spd_teardown(void *ctx, const bk_allocator *alloc)
{
    spd_bench *b = ctx;
    if (!b->keep) bk_bench_rm_tree(b->dir);
    bk_free(alloc, b, sizeof *b);
}

static bk_status spd_consume(void *ctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    (void)ctx, (void)job, (void)err;
    bk_bench_keep(data);
    bk_bench_keep(&len);
    return BK_OK;
}

static void spd_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    spd_bench *b = ctx;
    bk_bench_affinity aff;
    bk_bench_widen(&aff, b->workers);
    const bk_allocator *a = b->workers == 1 ? alloc : NULL; /* the counting allocator is single-threaded */
    for (uint64_t i = 0; i < iters; i++) {
        bk_error err;
        bk_blocksdir d;
        bk_chain c;
        if (bk_blocksdir_open(&d, b->dir, BK_NET_MAIN, a, &err) != BK_OK) break;
        if (bk_chain_build(&c, &d, a, &err) != BK_OK) {
            bk_blocksdir_close(&d);
            break;
        }
        bk_engine_item *items = NULL;
        size_t n = 0, cap = 0;
        const bk_chain_entry *tip = bk_chain_tip(&c);
        if (tip && bk_engine_chain_items(&c, c.base_height, tip->height, 0, &items, &n, &cap, NULL, NULL, a, &err) ==
                       BK_OK) {
            bk_engine_opts eo;
            bk_engine_opts_init(&eo);
            eo.chain = &c;
            eo.dir = &d;
            eo.items = items;
            eo.n_items = n;
            eo.run.workers = b->workers;
            eo.run.alloc = a;
            eo.consume = spd_consume;
            eo.ctx = b;
            bk_sp_lines_opts lo;
            memset(&lo, 0, sizeof lo);
            lo.form = BK_SP_FORM_TXS;
            bk_engine_result er;
            bk_sp_run_stats rs;
            if (bk_sp_run(&lo, &eo, &er, &rs, &err) != BK_OK) fprintf(stderr, "bench SilentPayments: %s\n", err.msg);
            bk_bench_keep(&rs);
        }
        bk_free(a ? a : bk_default_allocator(), items, cap * sizeof *items);
        bk_chain_free(&c);
        bk_blocksdir_close(&d);
    }
    bk_bench_unwiden(&aff);
}

BK_BENCH(bench_sp_j1, "SilentPayments/sample/j1", "MB", BK_BENCH_SAMPLE_BYTES / 1e6, BK_BENCH_SAMPLE_BYTES,
         (const void *)(intptr_t)1, spd_setup, spd_run, spd_teardown)
BK_BENCH(bench_sp_j2, "SilentPayments/sample/j2", "MB", BK_BENCH_SAMPLE_BYTES / 1e6, BK_BENCH_SAMPLE_BYTES,
         (const void *)(intptr_t)2, spd_setup, spd_run, spd_teardown)
