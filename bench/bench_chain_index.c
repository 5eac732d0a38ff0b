/* ChainFromIndex/900k and ChainFromFiles/900k: the chain of a synthetic
 * regtest datadir of 900,000 blocks (scripts/gen-synth-datadir.c: linked
 * headers with 1-2 tx bodies, undo records, XORed blk/rev files, a LevelDB
 * block index written the way Core lays it out, the chainstate's best
 * block), built from Core's block index (bk_chain_build_index; /trusted:
 * with bk_index_dirs.trust_positions, as the lookups build it) and by the
 * header scan of the blk/rev files (bk_chain_build). One op = one whole
 * build, unit "chain"; peak bytes = what the build holds through the
 * allocator (the chain itself; LevelDB's own buffers are not counted, so
 * setup also reports the wall and CPU time and peak RSS of one build, the
 * peak reset first: on a busy machine the CPU time is the steadier figure;
 * the index rows also print the header scan's wall and CPU time over
 * theirs, the ratio of issue 12). The builds run with every CPU (the
 * runner pins to one; the index build uses two threads).
 *
 * The directory is BLOCKKIT_BENCH_SYNTH_DIR, else $TMPDIR (or /tmp)
 * /blockkit-synth-900k; it is generated once, by hand (about 15 s, 360 MB):
 *     build/gen-synth-datadir /tmp/blockkit-synth-900k
 * and the rows are skipped with a message while it is missing. Run them
 * with few epochs: blockkit bench --filter 'ChainFrom' --epochs 3.
 *
 * LevelDBIter/index/900k: only iterating the same index's 'b' records
 * through the private snapshot (checksums verified, as Core reads them),
 * one thread, nothing decoded: the part of ChainFromIndex no build can
 * avoid. */
#include "bench.h"

#include <blockkit/blockindex.h>
#include <blockkit/chain.h>
#include <blockkit/leveldb.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#define SYNTH_BLOCKS 900000u

typedef struct synth {
    char dir[4096];
    char blocks[4200];
    int files; /* 1: header scan, 0: block index */
    int trust; /* block index with trusted positions (bk_index_dirs.trust_positions) */
} synth;

static int build_once(const synth *s, const bk_allocator *alloc, size_t *n_active)
{
    bk_chain c;
    bk_error err;
    bk_status st;
    if (s->files) {
        bk_blocksdir d;
        st = bk_blocksdir_open(&d, s->blocks, BK_NET_REGTEST, alloc, &err);
        if (st != BK_OK) {
            fprintf(stderr, "bench ChainFromFiles: %s\n", err.msg);
            return -1;
        }
        st = bk_chain_build(&c, &d, alloc, &err);
        bk_blocksdir_close(&d);
    } else if (!s->trust) {
        st = bk_chain_build_index(&c, s->dir, BK_NET_REGTEST, NULL, alloc, &err);
    } else {
        /* As the lookups build it: positions trusted, record sizes read
         * only for the records a lookup reads. */
        char cs[4300];
        snprintf(cs, sizeof cs, "%s/regtest/chainstate", s->dir);
        bk_index_dirs dirs;
        memset(&dirs, 0, sizeof dirs);
        dirs.blocksdir = s->blocks;
        dirs.chainstatedir = cs;
        dirs.trust_positions = 1;
        st = bk_chain_build_index_dirs(&c, &dirs, BK_NET_REGTEST, NULL, alloc, &err);
    }
    if (st != BK_OK) {
        fprintf(stderr, "bench ChainFrom%s: %s\n", s->files ? "Files" : "Index", err.msg);
        return -1;
    }
    *n_active = c.n_active;
    bk_chain_free(&c);
    return 0;
}

/* The runner pins this thread to one CPU and threads inherit that; the
 * index build reads the index and the files on two threads: every CPU for
 * the builds of these rows (the header scan has one thread, so its row is
 * the same either way). Returns whether the mask was widened. */
static int widen(cpu_set_t *pinned)
{
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof *pinned, pinned) != 0) return 0;
    CPU_ZERO(&all);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++) CPU_SET((int)c, &all);
    return sched_setaffinity(0, sizeof all, &all) == 0;
}

/* CPU seconds of one ChainFromFiles/900k build in this process (the rows
 * run in name order: Files first), or -1. */
static double files_cpu = -1, files_wall = -1;

static long proc_status_kb(const char *field)
{
    long kb = -1;
    size_t fl = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, fl)) kb = strtol(line + fl, NULL, 10);
    if (f) fclose(f);
    return kb;
}

static double tv_diff(struct timeval a, struct timeval b)
{
    return (double)(a.tv_sec - b.tv_sec) + (double)(a.tv_usec - b.tv_usec) / 1e6;
}

static int synth_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    synth *s = bk_alloc(alloc, sizeof *s);
    if (!s) return 1;
    memset(s, 0, sizeof *s);
    s->files = (int)(intptr_t)arg == 1;
    s->trust = (int)(intptr_t)arg == 2;
    const char *name = s->files ? "ChainFromFiles/900k" : s->trust ? "ChainFromIndex/900k/trusted" : "ChainFromIndex/900k";
    const char *env = getenv("BLOCKKIT_BENCH_SYNTH_DIR"), *t = getenv("TMPDIR");
    if (env && *env) snprintf(s->dir, sizeof s->dir, "%s", env);
    else snprintf(s->dir, sizeof s->dir, "%s/blockkit-synth-900k", t && *t ? t : "/tmp");
    snprintf(s->blocks, sizeof s->blocks, "%s/regtest/blocks", s->dir);
    char probe[4400];
    snprintf(probe, sizeof probe, "%s/index/CURRENT", s->blocks);
    if (access(probe, R_OK) != 0) {
        fprintf(stderr,
                "# %s: skipped: no synthetic datadir at %s (make it once with `build/gen-synth-datadir %s`, "
                "or point BLOCKKIT_BENCH_SYNTH_DIR at one)\n",
                name, s->dir, s->dir);
        bk_free(alloc, s, sizeof *s);
        return 1;
    }
    /* One build measured on its own: CPU time, and peak RSS (LevelDB and
     * mapped files included) after resetting the process's peak (Linux
     * /proc/self/clear_refs "5") to what it holds before the build (also
     * printed: memory earlier rows left with the allocator counts there).
     * Not in a forked child: LevelDB's background thread does not survive
     * fork(). */
    FILE *cr = fopen("/proc/self/clear_refs", "w");
    int reset = cr && fputs("5", cr) >= 0;
    if (cr && fclose(cr) != 0) reset = 0;
    long base_kb = proc_status_kb("VmRSS:");
    struct rusage r0, r1;
    struct timeval w0, w1;
    cpu_set_t pinned;
    int widened = widen(&pinned);
    getrusage(RUSAGE_SELF, &r0);
    gettimeofday(&w0, NULL);
    size_t n_active = 0;
    int ok = build_once(s, NULL, &n_active) == 0 && n_active == SYNTH_BLOCKS;
    gettimeofday(&w1, NULL);
    getrusage(RUSAGE_SELF, &r1);
    if (widened) sched_setaffinity(0, sizeof pinned, &pinned);
    if (!ok) {
        fprintf(stderr, "# %s: skipped: the build failed or did not give %u active blocks\n", name, SYNTH_BLOCKS);
        bk_free(alloc, s, sizeof *s);
        return 1;
    }
    long hwm_kb = proc_status_kb("VmHWM:");
    double user = tv_diff(r1.ru_utime, r0.ru_utime), sys = tv_diff(r1.ru_stime, r0.ru_stime), wall = tv_diff(w1, w0);
    fprintf(stderr,
            "# %s: one build: %.2f s wall, %.2f s CPU (%.2f user, %.2f sys), peak RSS %.1f MB%s (%.1f MB before it)\n",
            name, wall, user + sys, user, sys, (double)hwm_kb / 1024.0,
            reset ? "" : " (the process's peak: it could not be reset)", (double)base_kb / 1024.0);
    /* The ratio the issue asks for, on the steadier figure: CPU of one
     * header scan over CPU of one index build, both in this process. */
    if (s->files) {
        files_cpu = user + sys;
        files_wall = wall;
    } else if (files_cpu > 0 && user + sys > 0 && wall > 0) {
        fprintf(stderr, "# %s: the header scan (ChainFromFiles/900k) took %.1fx its wall time, %.1fx its CPU in this run\n",
                name, files_wall / wall, files_cpu / (user + sys));
    }
    *ctx = s;
    return 0;
}

static void synth_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    synth *s = ctx;
    cpu_set_t pinned;
    int widened = widen(&pinned);
    for (uint64_t i = 0; i < iters; i++) {
        size_t n = 0;
        if (build_once(s, alloc, &n) != 0) break;
        bk_bench_keep(&n);
    }
    if (widened) sched_setaffinity(0, sizeof pinned, &pinned);
}

static void synth_teardown(void *ctx, const bk_allocator *alloc) { bk_free(alloc, ctx, sizeof(synth)); }

BK_BENCH(bench_chain_from_index, "ChainFromIndex/900k", "chain", 1, 0, (const void *)(intptr_t)0, synth_setup,
         synth_run, synth_teardown)
BK_BENCH(bench_chain_from_index_trusted, "ChainFromIndex/900k/trusted", "chain", 1, 0, (const void *)(intptr_t)2,
         synth_setup, synth_run, synth_teardown)
BK_BENCH(bench_chain_from_files, "ChainFromFiles/900k", "chain", 1, 0, (const void *)(intptr_t)1, synth_setup,
         synth_run, synth_teardown)

/* ---- LevelDBIter/index/900k ---- */

typedef struct ldb_iter_bench {
    bk_ldb *db;
} ldb_iter_bench;

static int ldb_iter_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    const char *env = getenv("BLOCKKIT_BENCH_SYNTH_DIR"), *t = getenv("TMPDIR");
    char index[4300];
    if (env && *env) snprintf(index, sizeof index, "%s/regtest/blocks/index", env);
    else snprintf(index, sizeof index, "%s/blockkit-synth-900k/regtest/blocks/index", t && *t ? t : "/tmp");
    ldb_iter_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    bk_error err;
    if (bk_ldb_open(index, NULL, &b->db, &err) != BK_OK) {
        fprintf(stderr, "# LevelDBIter/index/900k: skipped: %s (make it with `build/gen-synth-datadir`)\n", err.msg);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    *ctx = b;
    return 0;
}

static void ldb_iter_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    ldb_iter_bench *b = ctx;
    static const uint8_t pfx = 'b';
    for (uint64_t i = 0; i < iters; i++) {
        bk_ldb_iter *it;
        if (bk_ldb_iter_new(b->db, &pfx, 1, &it, NULL) != BK_OK) break;
        const uint8_t *k, *v;
        size_t kl, vl, n = 0;
        while (bk_ldb_iter_next(it, &k, &kl, &v, &vl)) n += vl;
        bk_ldb_iter_free(it);
        bk_bench_keep(&n);
    }
}

static void ldb_iter_teardown(void *ctx, const bk_allocator *alloc)
{
    ldb_iter_bench *b = ctx;
    bk_ldb_close(b->db);
    bk_free(alloc, b, sizeof *b);
}

BK_BENCH(bench_ldb_iter_index, "LevelDBIter/index/900k", "pass", 1, 0, NULL, ldb_iter_setup, ldb_iter_run,
         ldb_iter_teardown)
