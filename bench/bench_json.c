/* JSON benches: Core's getblock / TxToUniv work on real blocks into a
 * reused writer (allocs/op must be 0), and hex encoding.
 *
 * Core's own benches (src/bench/rpc_blockchain.cpp BlockToJsonVerbosity*)
 * render a block whose transactions were deserialized beforehand, so their
 * txids are cached; likewise the txids/wtxids here are computed in setup
 * and passed in (bk_block_json_opts.txids/wtxids). JSON sizes are those of
 * the newest Core shape (--core-compat 31) in compact form; setup checks
 * that the rendering has exactly that size. */
#include "bench.h"

#include <blockkit/json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compact JSON sizes (no trailing newline), checked in setup. */
#define JSON_866342_V1 326905
#define JSON_866342_V2 10470652
#define JSON_866342_V3 13393439
#define JSON_413567_V2 6836300
#define HEX_BYTES 1000000

typedef struct json_bench_arg {
    const char *block;
    const char *undo;     /* NULL: no undo */
    int verbosity;        /* 1..3; 0 = TxToJson (each tx alone) */
    size_t json_len;
} json_bench_arg;

typedef struct json_ctx {
    uint8_t *raw, *undo_raw;
    bk_block_decoder dec;
    bk_block b;
    bk_block_undo undo;
    int have_undo;
    uint8_t *ids;         /* txids then wtxids */
    bk_chain_context chain;
    bk_block_json_opts opts;
    bk_writer w;
    int verbosity;
} json_ctx;

static uint8_t *load(const char *name, size_t *len, const bk_allocator *alloc)
{
    char path[4096];
    if (bk_bench_data_path(path, sizeof path, name) != 0) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = n > 0 ? bk_alloc(alloc, (size_t)n) : NULL;
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        if (p) bk_free(alloc, p, (size_t)n);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static size_t raw_len, undo_len;

static void render_once(json_ctx *c);

static void json_teardown(void *ctx, const bk_allocator *alloc)
{
    json_ctx *c = ctx;
    if (!c) return;
    bk_writer_free(&c->w);
    bk_block_decoder_free(&c->dec);
    if (c->ids) bk_free(alloc, c->ids, (size_t)c->b.n_tx * 64);
    if (c->raw) bk_free(alloc, c->raw, raw_len);
    if (c->undo_raw) bk_free(alloc, c->undo_raw, undo_len);
    bk_free(alloc, c, sizeof *c);
}

static int json_setup(void **ctx, const void *argp, const bk_allocator *alloc)
{
    const json_bench_arg *arg = argp;
    json_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    memset(c, 0, sizeof *c);
    *ctx = c;
    bk_block_decoder_init(&c->dec, alloc);
    bk_writer_init(&c->w, alloc);
    c->verbosity = arg->verbosity;
    c->raw = load(arg->block, &raw_len, alloc);
    if (!c->raw || bk_block_decode(&c->dec, c->raw, raw_len, &c->b, NULL) != BK_OK) goto fail;
    if (arg->undo) {
        c->undo_raw = load(arg->undo, &undo_len, alloc);
        if (!c->undo_raw || bk_block_undo_parse(c->undo_raw, undo_len, &c->undo, NULL) != BK_OK ||
            bk_block_undo_check(&c->undo, &c->b, NULL) != BK_OK)
            goto fail;
        c->have_undo = 1;
    }
    c->ids = bk_alloc(alloc, (size_t)c->b.n_tx * 64);
    if (!c->ids) goto fail;
    bk_block_txids(&c->b, c->ids);
    bk_block_wtxids(&c->b, c->ids + 32 * (size_t)c->b.n_tx);
    uint32_t h = 0;
    if (bk_block_bip34_height(&c->b, &h) != BK_OK) goto fail;
    bk_chain_context_standalone(&c->chain, &c->b, BK_NET_MAIN, h);
    bk_block_json_opts_init(&c->opts);
    c->opts.verbosity = arg->verbosity ? arg->verbosity : 3;
    c->opts.txids = c->ids;
    c->opts.wtxids = c->ids + 32 * (size_t)c->b.n_tx;
    /* Warm up: the writer reaches its final size here, not in run(). */
    render_once(c);
    if (bk_writer_status(&c->w) != BK_OK || c->w.len != arg->json_len) {
        fprintf(stderr, "bench_json: %s rendered %zu bytes, expected %zu\n", arg->block, c->w.len, arg->json_len);
        goto fail;
    }
    return 0;
fail:
    json_teardown(c, alloc);
    *ctx = NULL;
    return 1;
}

static void render_once(json_ctx *c)
{
    bk_writer_reset(&c->w);
    bk_json j;
    bk_json_init(&j, &c->w, 0);
    if (c->verbosity) {
        if (bk_json_block(&j, &c->b, c->have_undo ? &c->undo : NULL, &c->chain, &c->opts, NULL) != BK_OK)
            c->w.status = BK_ERR_INVALID;
        return;
    }
    /* TxToJson: every transaction as its own TxToUniv object (verbosity 3
     * with its coins), concatenated, as getrawtransaction would return them. */
    bk_tx_json_opts o;
    bk_tx_json_opts_init(&o);
    o.verbosity = BK_TXV_DETAILS_AND_PREVOUT;
    bk_undo_iter ui;
    bk_undo_iter_init(&ui, &c->undo);
    for (uint32_t i = 0; i < c->b.n_tx; i++) {
        o.txid = c->ids + 32 * (size_t)i;
        o.wtxid = c->ids + 32 * ((size_t)c->b.n_tx + i);
        bk_undo_iter *u = NULL;
        uint32_t n;
        if (i > 0 && bk_undo_next_tx(&ui, &n)) u = &ui;
        if (bk_json_tx(&j, &c->b.txs[i], &o, u, NULL) != BK_OK) c->w.status = BK_ERR_INVALID;
    }
}

static void json_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    json_ctx *c = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        render_once(c);
        bk_bench_keep(c->w.data);
    }
}

#define JSON_866342_TXS 13387558 /* the 4864 TxToUniv objects, concatenated */
static const json_bench_arg arg_tx = {"block866342.raw", "block866342_undo.raw", 0, JSON_866342_TXS};
static const json_bench_arg arg_v1 = {"block866342.raw", "block866342_undo.raw", 1, JSON_866342_V1};
static const json_bench_arg arg_v2 = {"block866342.raw", "block866342_undo.raw", 2, JSON_866342_V2};
static const json_bench_arg arg_v3 = {"block866342.raw", "block866342_undo.raw", 3, JSON_866342_V3};
static const json_bench_arg arg_413567 = {"block413567.raw", NULL, 2, JSON_413567_V2};

BK_BENCH(bench_tx_to_json, .name = "TxToJson/block866342", .unit = "tx", .units_per_op = 4864,
         .bytes_per_op = JSON_866342_TXS, .arg = &arg_tx, .setup = json_setup, .run = json_run, .teardown = json_teardown)
BK_BENCH(bench_block_v1, .name = "BlockToJsonVerbosity1", .unit = "block", .units_per_op = 1,
         .bytes_per_op = JSON_866342_V1, .arg = &arg_v1, .setup = json_setup, .run = json_run,
         .teardown = json_teardown)
BK_BENCH(bench_block_v2, .name = "BlockToJsonVerbosity2", .unit = "block", .units_per_op = 1,
         .bytes_per_op = JSON_866342_V2, .arg = &arg_v2, .setup = json_setup, .run = json_run,
         .teardown = json_teardown)
BK_BENCH(bench_block_v3, .name = "BlockToJsonVerbosity3", .unit = "block", .units_per_op = 1,
         .bytes_per_op = JSON_866342_V3, .arg = &arg_v3, .setup = json_setup, .run = json_run,
         .teardown = json_teardown)
BK_BENCH(bench_block_413567, .name = "BlockToJsonVerbosity2/413567", .unit = "block", .units_per_op = 1,
         .bytes_per_op = JSON_413567_V2, .arg = &arg_413567, .setup = json_setup, .run = json_run,
         .teardown = json_teardown)

/* ---- hex ---- */

typedef struct hex_ctx {
    uint8_t *in;
    char *out;
} hex_ctx;

static int hex_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    hex_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    c->in = bk_alloc(alloc, HEX_BYTES);
    c->out = bk_alloc(alloc, 2 * HEX_BYTES);
    if (!c->in || !c->out) return 1;
    uint32_t x = 12345;
    for (size_t i = 0; i < HEX_BYTES; i++) {
        x = x * 1103515245u + 12345u;
        c->in[i] = (uint8_t)(x >> 16);
    }
    *ctx = c;
    return 0;
}

static void hex_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    hex_ctx *c = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_hex_encode(c->out, c->in, HEX_BYTES);
        bk_bench_keep(c->out);
    }
}

static void hex_teardown(void *ctx, const bk_allocator *alloc)
{
    hex_ctx *c = ctx;
    if (!c) return;
    bk_free(alloc, c->in, HEX_BYTES);
    bk_free(alloc, c->out, 2 * HEX_BYTES);
    bk_free(alloc, c, sizeof *c);
}

BK_BENCH(bench_hex, .name = "HexEncode/1MB", .unit = "byte", .units_per_op = HEX_BYTES, .bytes_per_op = HEX_BYTES,
         .setup = hex_setup, .run = hex_run, .teardown = hex_teardown)
