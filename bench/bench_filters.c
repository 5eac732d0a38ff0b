/* BIP158 basic block filters (blockkit/blockfilter.h, blockkit/filters.h).
 *
 * BlockFilter/866342: the filter of mainnet block 866342 with its undo data
 * (bk_blockfilter_build on the decoded block and parsed undo: element set,
 * SipHash, sort, Golomb-Rice); unit = block, MB/s over the block's bytes.
 * After the first op the builder allocates nothing.
 *
 * Filters/sample/j1 and /j2: what `blockkit filter --start 0` computes over
 * the Scan rows' blocks directory (bench/sample_dir.c: 150 blocks, 217 MB,
 * XOR-obfuscated, real undo data): the chain built from the files, then
 * bk_filter_run over every block with its undo record (read, checksum
 * verified, decoded), filters and the header chain; each filter line
 * rendered as the CLI renders it into a buffer that is dropped. One op = one
 * whole run, chain build included, as in the Scan/sample/v3 rows; unit = MB of blk
 * input, so the rows compare with Scan/sample/v3/j1 directly (the issue's
 * floor: >= 2x its MB/s). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <blockkit/filters.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE_866342 1581623u
#define UNDO_866342 270516u

/* ---- one block ---- */

typedef struct bf_bench {
    uint8_t *raw, *undo;
    bk_block_decoder dec;
    bk_block b;
    bk_block_undo u;
    bk_blockfilter f;
} bf_bench;

static void bf_teardown(void *ctx, const bk_allocator *alloc)
{
    bf_bench *b = ctx;
    bk_blockfilter_free(&b->f);
    bk_block_decoder_free(&b->dec);
    bk_free(alloc, b->raw, SIZE_866342 + 1);
    bk_free(alloc, b->undo, UNDO_866342 + 1);
    bk_free(alloc, b, sizeof *b);
}

static int bf_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    bf_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    bk_block_decoder_init(&b->dec, alloc);
    bk_blockfilter_init(&b->f, alloc);
    b->raw = bk_bench_load("blocks/block866342.raw", SIZE_866342, alloc);
    b->undo = bk_bench_load("undo/block866342_undo.raw", UNDO_866342, alloc);
    if (!b->raw || !b->undo || bk_block_decode(&b->dec, b->raw, SIZE_866342, &b->b, NULL) != BK_OK ||
        bk_block_undo_parse(b->undo, UNDO_866342, &b->u, NULL) != BK_OK ||
        bk_blockfilter_build(&b->f, &b->b, &b->u, NULL) != BK_OK) { /* warm: buffers grown in setup */
        bf_teardown(b, alloc);
        return 1;
    }
    *ctx = b;
    return 0;
}

static void bf_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    bf_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        if (bk_blockfilter_build(&b->f, &b->b, &b->u, NULL) != BK_OK) return;
        bk_bench_keep(b->f.filter);
    }
}

BK_BENCH(bench_blockfilter, .name = "BlockFilter/866342", .unit = "block", .units_per_op = 1,
         .bytes_per_op = SIZE_866342, .setup = bf_setup, .run = bf_run, .teardown = bf_teardown)

/* ---- a blocks directory ---- */

typedef struct fs_bench {
    char dir[4096];
    int keep;
    int workers;
    bk_writer line;
    uint64_t lines;
} fs_bench;

static int fs_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    fs_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    b->workers = (int)(intptr_t)arg;
    if (bk_bench_sample_dir(b->dir, sizeof b->dir, &b->keep, alloc) != 0) {
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    bk_writer_init(&b->line, NULL);
    *ctx = b;
    return 0;
}

static bk_status fs_emit(void *ctx, size_t item, const bk_chain_entry *e, int64_t height, const uint8_t *filter,
                         size_t len, const uint8_t *header, bk_error *err)
{
    (void)item, (void)e, (void)height;
    fs_bench *b = ctx;
    bk_writer_reset(&b->line);
    bk_json j;
    bk_json_init(&j, &b->line, 0);
    bk_json_filter(&j, filter, len, header);
    bk_writer_putc(&b->line, '\n');
    if (bk_writer_status(&b->line) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    b->lines++;
    return BK_OK;
}

static void fs_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    fs_bench *b = ctx;
    bk_bench_affinity aff; /* the workers of a -j2 row use every CPU */
    bk_bench_widen(&aff, b->workers);
    const bk_allocator *a = b->workers == 1 ? alloc : NULL; /* the counting allocator is single-threaded */
    for (uint64_t i = 0; i < iters; i++) {
        bk_error err;
        bk_blocksdir d;
        bk_chain c;
        if (bk_blocksdir_open(&d, b->dir, BK_NET_MAIN, a, &err) != BK_OK) {
            fprintf(stderr, "bench Filters: %s\n", err.msg);
            break;
        }
        bk_status st = bk_chain_build(&c, &d, a, &err);
        if (st != BK_OK) {
            fprintf(stderr, "bench Filters: %s\n", err.msg);
            bk_blocksdir_close(&d);
            break;
        }
        /* the genesis is implied (the directory starts at height 1, on the
         * mainnet genesis hash): the headers chain from zeros there */
        const bk_chain_entry *tip = bk_chain_tip(&c);
        size_t n = tip && tip->height == BK_BENCH_SAMPLE_BLOCKS ? BK_BENCH_SAMPLE_BLOCKS : 0;
        bk_engine_item *items = n ? malloc(n * sizeof *items) : NULL;
        if (items && bk_filter_path(&c, tip, 1, items, &err) == BK_OK) {
            bk_filter_run_opts o;
            bk_filter_run_opts_init(&o);
            o.chain = &c;
            o.dir = &d;
            o.items = items;
            o.n_items = n;
            o.headers = 1;
            o.run.workers = b->workers;
            o.run.window = 4 * (size_t)b->workers + 2;
            o.run.alloc = a;
            o.emit = fs_emit;
            o.ctx = b;
            b->lines = 0;
            st = bk_filter_run(&o, NULL, &err);
            if (st == BK_OK && b->lines != BK_BENCH_SAMPLE_BLOCKS) st = bk_error_set(&err, BK_ERR_INVALID, 0, "lines");
        } else {
            st = bk_error_set(&err, BK_ERR_INVALID, 0, "the directory's chain is not the bench's");
        }
        if (st != BK_OK) fprintf(stderr, "bench Filters: run failed: %s\n", err.msg);
        free(items);
        bk_chain_free(&c);
        bk_blocksdir_close(&d);
        if (st != BK_OK) break;
    }
    bk_bench_unwiden(&aff);
}

static void fs_teardown(void *ctx, const bk_allocator *alloc)
{
    fs_bench *b = ctx;
    bk_writer_free(&b->line);
    if (!b->keep) bk_bench_rm_tree(b->dir);
    bk_free(alloc, b, sizeof *b);
}

BK_BENCH(bench_filters_j1, "Filters/sample/j1", "MB", BK_BENCH_SAMPLE_BYTES / 1e6, BK_BENCH_SAMPLE_BYTES,
         (const void *)(intptr_t)1, fs_setup, fs_run, fs_teardown)
BK_BENCH(bench_filters_j2, "Filters/sample/j2", "MB", BK_BENCH_SAMPLE_BYTES / 1e6, BK_BENCH_SAMPLE_BYTES,
         (const void *)(intptr_t)2, fs_setup, fs_run, fs_teardown)
