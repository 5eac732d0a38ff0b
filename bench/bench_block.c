/* Block decoding benches over Core's bench block 413567 (1557 txs, 999,887
 * bytes): DeserializeBlock (parse into a reused decoder: 0 allocs/op),
 * DeserializeAndHashBlock (plus every txid and wtxid, one engine call each
 * through the decoder), BlockTxids (bk_block_txids, chunked, no scratch)
 * and BlockTxidsOneCall (the decoder's single call): the txids are the cost
 * centre, compare them with the block's compression floor. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include <blockkit/bitcoin.h>

typedef struct block_bench {
    uint8_t *data;
    size_t len;
    bk_block_decoder dec;
    bk_block block;
    uint8_t *ids;   /* 32 * n_tx */
    uint8_t *wids;  /* 32 * n_tx */
} block_bench;

static int block_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    char path[4096];
    if (bk_bench_data_path(path, sizeof path, "block413567.raw") != 0) return 1;
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    block_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) {
        fclose(f);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b->len = n > 0 ? (size_t)n : 0;
    b->data = bk_alloc(alloc, b->len ? b->len : 1);
    if (!b->data || fread(b->data, 1, b->len, f) != b->len) {
        fclose(f);
        bk_free(alloc, b->data, b->len ? b->len : 1);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    fclose(f);
    /* the first decode grows the decoder's table: later ones allocate nothing */
    bk_block_decoder_init(&b->dec, alloc);
    if (bk_block_decode(&b->dec, b->data, b->len, &b->block, NULL) != BK_OK) {
        bk_block_decoder_free(&b->dec);
        bk_free(alloc, b->data, b->len);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    b->ids = bk_alloc(alloc, 32 * (size_t)b->block.n_tx);
    b->wids = bk_alloc(alloc, 32 * (size_t)b->block.n_tx);
    /* and the decoder's hashing scratch */
    if (b->ids && b->wids && bk_block_decoder_hash(&b->dec, &b->block, b->ids, b->wids) != BK_OK) {
        bk_free(alloc, b->ids, 32 * (size_t)b->block.n_tx);
        b->ids = NULL;
    }
    if (!b->ids || !b->wids) {
        bk_free(alloc, b->ids, 32 * (size_t)b->block.n_tx);
        bk_free(alloc, b->wids, 32 * (size_t)b->block.n_tx);
        bk_block_decoder_free(&b->dec);
        bk_free(alloc, b->data, b->len);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    *ctx = b;
    return 0;
}

static void block_teardown(void *ctx, const bk_allocator *alloc)
{
    block_bench *b = ctx;
    bk_free(alloc, b->ids, 32 * (size_t)b->block.n_tx);
    bk_free(alloc, b->wids, 32 * (size_t)b->block.n_tx);
    bk_block_decoder_free(&b->dec);
    bk_free(alloc, b->data, b->len);
    bk_free(alloc, b, sizeof *b);
}

static void run_deserialize(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    block_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_status st = bk_block_decode(&b->dec, b->data, b->len, &b->block, NULL);
        bk_bench_keep(&st);
        bk_bench_keep(&b->block);
    }
}

static void run_deserialize_hash(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    block_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_status st = bk_block_decode(&b->dec, b->data, b->len, &b->block, NULL);
        bk_bench_keep(&st);
        st = bk_block_decoder_hash(&b->dec, &b->block, b->ids, b->wids);
        bk_bench_keep(&st);
        bk_bench_keep(b->ids);
        bk_bench_keep(b->wids);
    }
}

static void run_txids(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    block_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_block_txids(&b->block, b->ids);
        bk_bench_keep(b->ids);
    }
}

/* One engine call over the whole block through the decoder's scratch. */
static void run_txids_one_call(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    block_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_status st = bk_block_decoder_hash(&b->dec, &b->block, b->ids, NULL);
        bk_bench_keep(&st);
        bk_bench_keep(b->ids);
    }
}

BK_BENCH(bench_deserialize_block, .name = "DeserializeBlock", .unit = "block", .units_per_op = 1,
         .bytes_per_op = 999887, .setup = block_setup, .run = run_deserialize,
         .teardown = block_teardown)

BK_BENCH(bench_deserialize_hash_block, .name = "DeserializeAndHashBlock", .unit = "block",
         .units_per_op = 1, .bytes_per_op = 999887, .setup = block_setup,
         .run = run_deserialize_hash, .teardown = block_teardown)

BK_BENCH(bench_block_txids, .name = "BlockTxids", .unit = "block", .units_per_op = 1,
         .bytes_per_op = 999887, .setup = block_setup, .run = run_txids,
         .teardown = block_teardown)

BK_BENCH(bench_block_txids_one_call, .name = "BlockTxidsOneCall", .unit = "block",
         .units_per_op = 1, .bytes_per_op = 999887, .setup = block_setup, .run = run_txids_one_call,
         .teardown = block_teardown)
