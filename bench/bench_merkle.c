/* Merkle root benchmarks, shaped like Bitcoin Core's src/bench/merkle_root.cpp:
 * 9001 random leaves (odd, so the first level needs the duplicate), the copy
 * of the leaves into the working buffer counted in every op (Core copies its
 * vector each time), one leaf = one unit.
 *
 *   MerkleRoot                 mutated_out == NULL: no pair comparisons
 *   MerkleRootWithMutation     mutated_out given: comparisons folded into the
 *                              hashing pass (Core's bench always asks for it)
 *   MerkleRoot/2000, /1M       other sizes, no comparisons
 *   MerkleRoot/ReallocBaseline Core's algorithm with Core's memory behaviour:
 *                              an exact-capacity vector per op that grows x2
 *                              when the odd duplicate is pushed, a separate
 *                              compare pass, freed at the end
 *
 * Memory: the random input leaves are the caller's data (malloc, not
 * counted); the working buffer is allocated once in setup through the
 * counted allocator with bk_merkle_capacity(n) nodes, so peak bytes are
 * 9002 x 32 = 288,064 and allocs/op is 0. The baseline allocates per op and
 * peaks at 18,002 x 32 = 576,064 bytes.
 *
 *   BlockMerkle/413567, /866342  bk_block_merkle on a parsed block (txids and
 *                              wtxids in one batched pass, both roots with
 *                              the mutation check, witness commitment, header
 *                              match) into a scratch allocated in setup:
 *                              0 allocs/op; unit = transaction. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blockkit/merkle.h>

typedef struct merkle_cfg {
    size_t n;
    int mutation;
    int baseline;
} merkle_cfg;

typedef struct merkle_ctx {
    merkle_cfg cfg;
    uint8_t *leaves;  /* input, uncounted */
    uint8_t *work;    /* counted, capacity bk_merkle_capacity(n) */
    size_t cap;
} merkle_ctx;

static int merkle_setup(void **ctxp, const void *arg, const bk_allocator *alloc)
{
    const merkle_cfg *cfg = arg;
    merkle_ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    c->cfg = *cfg;
    c->leaves = malloc(32 * cfg->n);
    if (!c->leaves) {
        free(c);
        return 1;
    }
    uint64_t s = 0x243f6a8885a308d3ull; /* fixed seed: same leaves every run */
    for (size_t i = 0; i < 32 * cfg->n; i += 8) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        memcpy(c->leaves + i, &s, 8);
    }
    if (!cfg->baseline) {
        c->cap = bk_merkle_capacity(cfg->n);
        c->work = bk_alloc(alloc, 32 * c->cap);
        if (!c->work) {
            free(c->leaves);
            free(c);
            return 1;
        }
    }
    *ctxp = c;
    return 0;
}

static void merkle_teardown(void *ctx, const bk_allocator *alloc)
{
    merkle_ctx *c = ctx;
    if (c->work) bk_free(alloc, c->work, 32 * c->cap);
    free(c->leaves);
    free(c);
}

static void merkle_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    merkle_ctx *c = ctx;
    (void)alloc;
    size_t n = c->cfg.n;
    uint8_t root[32];
    int mutated = 0;
    for (uint64_t it = 0; it < iters; it++) {
        memcpy(c->work, c->leaves, 32 * n);
        if (bk_merkle_root(c->work, n, c->cap, root, c->cfg.mutation ? &mutated : NULL) != BK_OK) return;
        /* As Core's bench: feed the result back so no op can be skipped. */
        memcpy(c->leaves + 32 * (size_t)(mutated != 0), root, 32);
        bk_bench_keep(c->leaves);
    }
}

/* Core's ComputeMerkleRoot (src/consensus/merkle.cpp) over a vector copied
 * from the leaves, i.e. with capacity == size: compare pass, push_back of
 * the duplicate (growing the vector x2 when full, as libstdc++ does), in
 * place SHA256D64, resize. */
static void merkle_run_baseline(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    merkle_ctx *c = ctx;
    size_t n = c->cfg.n;
    for (uint64_t it = 0; it < iters; it++) {
        size_t cap = n, size = n;
        uint8_t *v = bk_alloc(alloc, 32 * cap);
        if (!v) return;
        memcpy(v, c->leaves, 32 * n);
        int mutated = 0;
        while (size > 1) {
            for (size_t pos = 0; pos + 1 < size; pos += 2)
                if (!memcmp(v + 32 * pos, v + 32 * (pos + 1), 32)) mutated = 1;
            if (size & 1) {
                if (size == cap) {
                    uint8_t *nv = bk_realloc(alloc, v, 32 * cap, 64 * cap);
                    if (!nv) {
                        bk_free(alloc, v, 32 * cap);
                        return;
                    }
                    v = nv;
                    cap *= 2;
                }
                memcpy(v + 32 * size, v + 32 * (size - 1), 32);
                size++;
            }
            bk_sha256d_64(v, v, size / 2);
            size /= 2;
        }
        memcpy(c->leaves + 32 * (size_t)mutated, v, 32);
        bk_bench_keep(c->leaves);
        bk_free(alloc, v, 32 * cap);
    }
}

static const merkle_cfg cfg_9001 = {9001, 0, 0};
static const merkle_cfg cfg_9001_mut = {9001, 1, 0};
static const merkle_cfg cfg_2000 = {2000, 0, 0};
static const merkle_cfg cfg_1m = {1000000, 0, 0};
static const merkle_cfg cfg_baseline = {9001, 1, 1};

BK_BENCH(bench_merkle_root, "MerkleRoot", "leaf", 9001, 9001 * 32.0, &cfg_9001, merkle_setup, merkle_run,
         merkle_teardown)
BK_BENCH(bench_merkle_root_mut, "MerkleRootWithMutation", "leaf", 9001, 9001 * 32.0, &cfg_9001_mut, merkle_setup,
         merkle_run, merkle_teardown)
BK_BENCH(bench_merkle_root_2000, "MerkleRoot/2000", "leaf", 2000, 2000 * 32.0, &cfg_2000, merkle_setup,
         merkle_run, merkle_teardown)
BK_BENCH(bench_merkle_root_1m, "MerkleRoot/1M", "leaf", 1000000, 1000000 * 32.0, &cfg_1m, merkle_setup,
         merkle_run, merkle_teardown)
BK_BENCH(bench_merkle_root_baseline, "MerkleRoot/ReallocBaseline", "leaf", 9001, 9001 * 32.0, &cfg_baseline,
         merkle_setup, merkle_run_baseline, merkle_teardown)

/* ---- block level ---- */

typedef struct block_merkle_ctx {
    uint8_t *data;   /* the block file, uncounted */
    size_t len;
    bk_block_decoder dec;
    bk_block block;
    uint8_t *scratch;
    size_t scratch_len;
} block_merkle_ctx;

static int block_merkle_setup(void **ctxp, const void *arg, const bk_allocator *alloc)
{
    char path[4096];
    if (bk_bench_data_path(path, sizeof path, (const char *)arg) != 0) return 1;
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    block_merkle_ctx *c = calloc(1, sizeof *c);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    c->len = n > 0 ? (size_t)n : 0;
    c->data = malloc(c->len ? c->len : 1);
    int ok = c->data && fread(c->data, 1, c->len, f) == c->len;
    fclose(f);
    bk_block_decoder_init(&c->dec, alloc);
    if (ok && bk_block_decode(&c->dec, c->data, c->len, &c->block, NULL) == BK_OK) {
        c->scratch_len = bk_block_merkle_scratch_size(c->block.n_tx);
        c->scratch = bk_alloc(alloc, c->scratch_len);
    }
    if (!c->scratch) {
        bk_block_decoder_free(&c->dec);
        free(c->data);
        free(c);
        return 1;
    }
    *ctxp = c;
    return 0;
}

static void block_merkle_teardown(void *ctx, const bk_allocator *alloc)
{
    block_merkle_ctx *c = ctx;
    bk_free(alloc, c->scratch, c->scratch_len);
    bk_block_decoder_free(&c->dec);
    free(c->data);
    free(c);
}

static void block_merkle_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    block_merkle_ctx *c = ctx;
    bk_block_merkle_result r;
    (void)alloc;
    for (uint64_t it = 0; it < iters; it++) {
        if (bk_block_merkle(&c->block, c->scratch, c->scratch_len, &r, NULL) != BK_OK || !r.header_match) return;
        bk_bench_keep(&r);
    }
}

BK_BENCH(bench_block_merkle_413567, "BlockMerkle/413567", "tx", 1557, 999887, "block413567.raw",
         block_merkle_setup, block_merkle_run, block_merkle_teardown)
BK_BENCH(bench_block_merkle_866342, "BlockMerkle/866342", "tx", 4864, 1581623, "block866342.raw",
         block_merkle_setup, block_merkle_run, block_merkle_teardown)
