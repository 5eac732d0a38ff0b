/* blockkit bench: benchmark registration (nanobench-style runner in
 * bench/harness.c). A benchmark file defines setup/run/teardown and
 * registers with BK_BENCH or bk_bench_register (for rows generated at start,
 * e.g. one per SHA-256 backend).
 *
 * The runner: calls setup once (allocations there count toward peak_bytes
 * but not allocs/op), calibrates iters so one sample lasts long enough, runs
 * several epochs of run(ctx, iters), and reports the median ns per unit
 * (unit = units_per_op units per call of the op), err% (median absolute
 * percent deviation across epochs), allocs/op and bytes/op (counted through
 * the bk_allocator handed to setup and run), and peak bytes (maximum bytes
 * live through that allocator, setup included). */
#ifndef BLOCKKIT_BENCH_H
#define BLOCKKIT_BENCH_H

#include <stdint.h>
#include <blockkit/alloc.h>

typedef struct bk_bench {
    const char *name;          /* "SHA256/64B/shani" */
    const char *unit;          /* "message", "leaf", "block", ... */
    double units_per_op;       /* units one op processes (e.g. 9001 leaves) */
    double bytes_per_op;       /* input bytes per op for an MB/s column, 0 = none */
    const void *arg;           /* passed to setup (e.g. a backend name) */
    /* Prepare state; return 0, or non-zero to skip this bench (e.g. a
     * missing backend or data file); *ctx receives the state. */
    int (*setup)(void **ctx, const void *arg, const bk_allocator *alloc);
    /* Perform the op iters times. */
    void (*run)(void *ctx, uint64_t iters, const bk_allocator *alloc);
    void (*teardown)(void *ctx, const bk_allocator *alloc);
} bk_bench;

void bk_bench_register(const bk_bench *b);

#define BK_BENCH(ident, ...)                                      \
    static const bk_bench ident = {__VA_ARGS__};                  \
    __attribute__((constructor)) static void ident##_register(void) \
    {                                                             \
        bk_bench_register(&ident);                                \
    }

/* Keep a value alive so the optimizer cannot drop the work. */
static inline void bk_bench_keep(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* Path of a bench data file: $BLOCKKIT_DATA/<name>, else the source tree's
 * data/ and tests/data/ directories (compiled in). Returns 0 and fills buf
 * when the file exists. */
int bk_bench_data_path(char *buf, size_t cap, const char *name);
/* A bench data file (bk_bench_data_path) of exactly want bytes, read into
 * want + 1 bytes from alloc (free them with that size); NULL when it is
 * missing or has another size. */
uint8_t *bk_bench_load(const char *name, size_t want, const bk_allocator *alloc);

/* A new empty directory $TMPDIR/blockkit-bench-<name>-?????? (/tmp when
 * TMPDIR is unset), made with mkdtemp(3), its path in dir. 0 when made;
 * otherwise 1 and dir is "". The caller removes it (bk_bench_rm_tree). */
int bk_bench_tmpdir(char *dir, size_t cap, const char *name);


/* The bench blocks directory of the Scan rows (bench_scan.c: 150 blocks of
 * mainnet with their undo data, 217 MB), for other rows that read a whole
 * directory (bench/sample_dir.c): BLOCKKIT_BENCH_SCAN_DIR when set (*keep
 * = 1, generated there if empty), else a fresh temporary one the caller
 * removes with bk_bench_rm_tree. 0 when it is ready. */
#define BK_BENCH_SAMPLE_BYTES (130.0 * 1581623 + 10.0 * (999994 + 149164))
#define BK_BENCH_SAMPLE_BLOCKS 150
int bk_bench_sample_dir(char *dir, size_t cap, int *keep, const bk_allocator *alloc);
void bk_bench_rm_tree(const char *path);

/* The runner pins the calling thread to one CPU and threads inherit that:
 * a row with workers > 1 widens the affinity to every online CPU for its
 * run (bk_bench_widen) and puts the pin back after (bk_bench_unwiden). */
typedef struct bk_bench_affinity {
    int widened;
    unsigned char saved[128];   /* a cpu_set_t */
} bk_bench_affinity;
void bk_bench_widen(bk_bench_affinity *a, int workers);
void bk_bench_unwiden(const bk_bench_affinity *a);

/* The registered benches (bench/registry.c). */
extern const bk_bench *bk_bench_table[];
extern size_t bk_bench_count;

/* The hybrid-kernel probe's loops (bench_sha256_hybrid.c, built with
 * AVX-512 and SHA-NI; call only when the CPU runs both): n steps each. */
void bk_bench_hybrid_avx512(long n);
void bk_bench_hybrid_shani(long n);
void bk_bench_hybrid_both(long n);

#endif
