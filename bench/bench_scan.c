/* Scan/sample/v3/j1 and j2: `blockkit scan --verbosity 3` (the engine in
 * the library's scan engine, blockkit/scan.h, in process, each line written
 * to /dev/null with write(2) as the CLI does) over a generated blocks directory of
 * 217 MB (scripts/gen_bench_blocks.c, seed 1): 130 copies of block 866342
 * plus 10 each of 367891 and 277647, all with their real undo data, every
 * transaction made distinct (its nLockTime; in-block spends re-pointed,
 * merkle roots recomputed), linked into one chain on top of the mainnet
 * genesis (each rev record's checksum over the new parent), written as Core
 * writes them: blk/rev files of at most 128 MiB, XOR-obfuscated with an
 * xor.dat key. Until 2026-12-04 the copies repeated their transactions
 * (figures from before are marked so in the docs).
 * Output to /dev/null. One op = one whole scan, chain build included;
 * unit = MB of blk input (blocks/s = MB/s x 150 / 217.1, see docs/scan.md).
 * Setup writes the directory under $TMPDIR; teardown deletes it. With
 * BLOCKKIT_BENCH_SCAN_DIR=DIR the directory is DIR, generated when it has
 * no xor.dat yet, and kept. */
#include "bench.h"
#include "../scripts/gen_bench_blocks.h"
#include <blockkit/scan.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_866342 130
#define N_OTHER 10
#define SIZE_866342 1581623u
#define SIZE_367891 999994u
#define SIZE_277647 149164u
#define SCAN_BYTES ((double)N_866342 * SIZE_866342 + (double)N_OTHER * (SIZE_367891 + SIZE_277647))
#define N_BLOCKS (N_866342 + 2 * N_OTHER)

typedef struct scan_bench {
    char dir[4096];
    FILE *devnull;
    int workers;
    int keep;
} scan_bench;

typedef struct src_block {
    uint8_t *raw, *undo;
    size_t len, undo_len;
} src_block;

static uint8_t *read_all(const char *name, size_t *len)
{
    char path[4096];
    if (bk_bench_data_path(path, sizeof path, name) != 0) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = n > 0 ? malloc((size_t)n) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* The directory: scripts/gen_bench_blocks.c with the templates from
 * tests/data, seed 1, then the marker that says it is this generator's
 * version (a kept BLOCKKIT_BENCH_SCAN_DIR from an earlier one - repeated
 * transactions, or v1's scripts repeated in every copy - is not reused). */
#define MARKER "bench-blocks-distinct-v2"
static int generate(const char *dir)
{
    static const char *const names[3] = {"866342", "367891", "277647"};
    static const unsigned weights[3] = {13, 1, 1};
    src_block src[3];
    bk_gen_template t[3];
    memset(src, 0, sizeof src);
    int rc = -1;
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "blocks/block%s.raw", names[i]);
        src[i].raw = read_all(name, &src[i].len);
        snprintf(name, sizeof name, "undo/block%s_undo.raw", names[i]);
        src[i].undo = read_all(name, &src[i].undo_len);
        if (!src[i].raw || !src[i].undo) goto done;
        t[i] = (bk_gen_template){src[i].raw, src[i].undo, src[i].len, src[i].undo_len, weights[i]};
    }
    bk_gen_stats gs;
    if (bk_gen_bench_blocks(dir, t, 3, (uint64_t)SCAN_BYTES, 1, &gs) != 0 || gs.blocks != N_BLOCKS ||
        (double)gs.block_bytes != SCAN_BYTES)
        goto done;
    char path[4400];
    snprintf(path, sizeof path, "%s/" MARKER, dir);
    FILE *m = fopen(path, "wb");
    if (!m || fclose(m) != 0) goto done;
    rc = 0;
done:
    for (int i = 0; i < 3; i++) {
        free(src[i].raw);
        free(src[i].undo);
    }
    return rc;
}

static int scan_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    scan_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    b->workers = (int)(intptr_t)arg;
    const char *keep = getenv("BLOCKKIT_BENCH_SCAN_DIR");
    b->devnull = fopen("/dev/null", "wb");
    if (keep && *keep) {
        /* Keep (and reuse) the generated directory, e.g. to time the CLI. */
        b->keep = 1;
        snprintf(b->dir, sizeof b->dir, "%s", keep);
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/" MARKER, b->dir);
        if (b->devnull && access(probe, R_OK) != 0 && (mkdir(b->dir, 0755) != 0 || generate(b->dir) != 0)) {
            fclose(b->devnull);
            bk_free(alloc, b, sizeof *b);
            return 1;
        }
        *ctx = b;
        return b->devnull ? 0 : 1;
    }
    if (!b->devnull || bk_bench_tmpdir(b->dir, sizeof b->dir, "scan") || generate(b->dir) != 0) {
        if (b->devnull) fclose(b->devnull);
        bk_bench_rm_tree(b->dir);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    *ctx = b;
    return 0;
}

/* The CLI's sink: each line with one write(2). */
static bk_status devnull_sink(void *ctx, const bk_scan_line *line, bk_error *err)
{
    scan_bench *b = ctx;
    size_t done = 0;
    while (done < line->len) {
        ssize_t r = write(fileno(b->devnull), line->data + done, line->len - done);
        if (r <= 0) return bk_error_set(err, BK_ERR_IO, 0, "write error");
        done += (size_t)r;
    }
    return BK_OK;
}

static void scan_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    scan_bench *b = ctx;
    bk_bench_affinity aff; /* the workers of a -j2 row use every CPU */
    bk_bench_widen(&aff, b->workers);
    for (uint64_t i = 0; i < iters; i++) {
        bk_scan_opts o;
        bk_scan_opts_init(&o);
        o.blocksdir = b->dir;
        o.verbosity = 3;
        o.workers = b->workers;
        o.quiet = 1;
        o.sink = devnull_sink;
        o.sink_ctx = b;
        o.alloc = alloc;
        bk_scan_stats st;
        if (bk_scan_run(&o, &st, NULL) != BK_OK || st.blocks != N_BLOCKS) {
            fprintf(stderr, "bench Scan: scan failed\n");
            break;
        }
        bk_bench_keep(&st);
    }
    bk_bench_unwiden(&aff);
}

static void scan_teardown(void *ctx, const bk_allocator *alloc)
{
    scan_bench *b = ctx;
    fclose(b->devnull);
    if (!b->keep) bk_bench_rm_tree(b->dir);
    bk_free(alloc, b, sizeof *b);
}

BK_BENCH(bench_scan_j1, "Scan/sample/v3/j1", "MB", SCAN_BYTES / 1e6, SCAN_BYTES, (const void *)(intptr_t)1,
         scan_setup, scan_run, scan_teardown)
BK_BENCH(bench_scan_j2, "Scan/sample/v3/j2", "MB", SCAN_BYTES / 1e6, SCAN_BYTES, (const void *)(intptr_t)2,
         scan_setup, scan_run, scan_teardown)
