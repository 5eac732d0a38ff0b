/* blockkit bench: the measuring core behind `blockkit bench` (harness.c).
 * Implements the contract of bench.h: setup once, calibrate, several timed
 * epochs, median ns per unit, err%, allocations through a counting
 * allocator, peak bytes, optional hardware counters. */
#ifndef BLOCKKIT_BENCH_HARNESS_H
#define BLOCKKIT_BENCH_HARNESS_H

#include "bench.h"

typedef struct bk_bench_opts {
    double min_time_ms;    /* total measured time per bench (all epochs) */
    int epochs;            /* timed samples per bench (odd: a true median) */
    int hw_counters;       /* try perf_event_open (0 = never) */
} bk_bench_opts;

typedef struct bk_bench_result {
    const bk_bench *bench;
    uint64_t iters;          /* ops per epoch */
    int epochs;
    double ns_per_unit;      /* median over epochs */
    double ns_per_unit_min;  /* fastest epoch (steadier than the median on a busy machine) */
    double units_per_s;
    double err_pct;          /* median absolute percent deviation of epochs */
    double allocs_per_op;
    double bytes_per_op;
    uint64_t peak_bytes;     /* max live bytes through the allocator, setup included */
    double mb_per_s;         /* 0 when the bench has no bytes_per_op */
    int have_hw;             /* the hardware counters below are valid */
    double ins_per_unit, cyc_per_unit, ipc, branch_miss_pct;
} bk_bench_result;

/* Run one bench. Returns 0 with *r filled, 1 when the bench's setup asked
 * to be skipped. */
int bk_bench_measure(const bk_bench *b, const bk_bench_opts *o, bk_bench_result *r);

/* Pin the calling thread to CPU want (want < 0: the CPU it runs on);
 * returns that CPU, or -1 when it cannot be pinned there (not a CPU the
 * process may use). */
int bk_bench_pin_cpu(int want);

#endif
