/* Export/parquet/j1, Export/parquet/j2, Export/csv/j1, Export/parquet-lean/j1
 * and /j2 (--profile lean): bk_export_run (the engine of `blockkit export`,
 * all four tables, every column of the profile) over the generated blocks
 * directory of the Scan rows (bench_scan.c, scripts/gen_bench_blocks.c: 150
 * blocks, 217 MB, every transaction distinct, XOR-obfuscated, real undo
 * data), in chunks of 15 blocks: 10
 * chunks of about the same size, an even share for each of two workers.
 * (With 15 chunks of 10 the last chunk runs alone and j2/j1 measures that
 * tail, 1.67 against 1.89 here: the real chain's 90 chunks of 10,000
 * heights leave a tail of about one chunk in 90.) Parquet with zstd (the default level)
 * or CSV, into a temporary directory emptied before each op. One op = one
 * whole export, chain build and fsyncs included; unit = MB of blk input.
 * The directory comes from the Scan bench's setup (BLOCKKIT_BENCH_SCAN_DIR
 * when set, else a temporary one removed at teardown). Teardown prints
 * the output size relative to the block data on stderr. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <blockkit/export.h>

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT_BYTES (130.0 * 1581623 + 10.0 * (999994 + 149164))
#define EXPORT_BLOCKS 150
#define EXPORT_CHUNK 15 /* 10 chunks; see above */

typedef struct export_bench {
    char dir[4096];
    char out[4096];
    int keep;
    int workers;
    bk_table_format format;
    bk_table_profile profile;
    uint64_t bytes_out;
    double ratio;
} export_bench;

typedef struct export_arg {
    int workers;
    bk_table_format format;
    bk_table_profile profile;
} export_arg;

static int export_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    const export_arg *a = arg;
    export_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    b->workers = a->workers;
    b->format = a->format;
    b->profile = a->profile;
    int rc = bk_bench_sample_dir(b->dir, sizeof b->dir, &b->keep, alloc);
    if (rc != 0 || bk_bench_tmpdir(b->out, sizeof b->out, "export-out")) {
        if (rc == 0 && !b->keep) bk_bench_rm_tree(b->dir);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    *ctx = b;
    return 0;
}

static void export_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    export_bench *b = ctx;
    bk_bench_affinity aff; /* the workers of a -j2 row use every CPU */
    bk_bench_widen(&aff, b->workers);
    char out[4200];
    snprintf(out, sizeof out, "%s/x", b->out);
    for (uint64_t i = 0; i < iters; i++) {
        bk_bench_rm_tree(out);
        bk_export_opts o;
        bk_export_opts_init(&o);
        o.blocksdir = b->dir;
        o.out_dir = out;
        o.format = b->format;
        o.profile = b->profile;
        o.chunk_size = EXPORT_CHUNK;
        o.workers = b->workers;
        /* the counting allocator is single-threaded: count the j1 rows only */
        o.alloc = b->workers == 1 ? alloc : NULL;
        bk_export_stats st;
        bk_error err;
        if (bk_export_run(&o, &st, &err) != BK_OK || st.blocks != EXPORT_BLOCKS) {
            fprintf(stderr, "bench Export: export failed: %s\n", err.msg);
            break;
        }
        b->bytes_out = st.bytes_out;
        bk_bench_keep(&st);
    }
    bk_bench_unwiden(&aff);
}

static void export_teardown(void *ctx, const bk_allocator *alloc)
{
    export_bench *b = ctx;
    if (b->bytes_out)
        fprintf(stderr, "Export/%s%s: output %.1f MB = %.3f x the block data (%.1f MB)\n",
                bk_table_format_ext(b->format), b->profile == BK_PROFILE_LEAN ? "-lean" : "",
                (double)b->bytes_out / 1e6, (double)b->bytes_out / EXPORT_BYTES,
                EXPORT_BYTES / 1e6);
    bk_bench_rm_tree(b->out);
    if (!b->keep) bk_bench_rm_tree(b->dir);
    bk_free(alloc, b, sizeof *b);
}

static const export_arg PQ_J1 = {1, BK_TABLE_PARQUET, BK_PROFILE_DEFAULT}, PQ_J2 = {2, BK_TABLE_PARQUET, BK_PROFILE_DEFAULT},
                        CSV_J1 = {1, BK_TABLE_CSV, BK_PROFILE_DEFAULT}, LEAN_J1 = {1, BK_TABLE_PARQUET, BK_PROFILE_LEAN},
                        LEAN_J2 = {2, BK_TABLE_PARQUET, BK_PROFILE_LEAN};

BK_BENCH(bench_export_pq_j1, "Export/parquet/j1", "MB", EXPORT_BYTES / 1e6, EXPORT_BYTES, &PQ_J1, export_setup,
         export_run, export_teardown)
BK_BENCH(bench_export_pq_j2, "Export/parquet/j2", "MB", EXPORT_BYTES / 1e6, EXPORT_BYTES, &PQ_J2, export_setup,
         export_run, export_teardown)
BK_BENCH(bench_export_csv_j1, "Export/csv/j1", "MB", EXPORT_BYTES / 1e6, EXPORT_BYTES, &CSV_J1, export_setup,
         export_run, export_teardown)
BK_BENCH(bench_export_lean_j1, "Export/parquet-lean/j1", "MB", EXPORT_BYTES / 1e6, EXPORT_BYTES, &LEAN_J1, export_setup,
         export_run, export_teardown)
BK_BENCH(bench_export_lean_j2, "Export/parquet-lean/j2", "MB", EXPORT_BYTES / 1e6, EXPORT_BYTES, &LEAN_J2, export_setup,
         export_run, export_teardown)
