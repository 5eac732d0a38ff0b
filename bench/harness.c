/* blockkit bench: nanobench-style measurement (see harness.h, bench.h).
 *
 * Per bench: setup once through a counting allocator; calibrate iters
 * (doubling, then scaling) until one epoch lasts at least
 * min_time / epochs; run the epochs, each timed with CLOCK_MONOTONIC; report
 * the median ns per unit and the median absolute percent deviation of the
 * epochs (err%). Allocations are counted over the timed epochs only and
 * divided by the ops; the peak covers setup, calibration and epochs.
 * Hardware counters (instructions, cycles, branches, branch misses) come
 * from perf_event_open, user space only, when the kernel allows it. */
#include "harness.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int bk_bench_pin_cpu(int want)
{
    int cpu = want;
    if (cpu < 0) cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

/* ---- hardware counters ---- */

enum { HW_CYCLES, HW_INSTRUCTIONS, HW_BRANCHES, HW_BRANCH_MISSES, HW_N };

typedef struct hw {
    int fd[HW_N];
    int ok;
    uint64_t total[HW_N];
} hw;

static int perf_open(uint64_t config, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = config;
    a.disabled = group < 0;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
    return fd < 0 ? -1 : (int)fd;
}

static void hw_close(hw *h)
{
    for (int i = HW_N - 1; i >= 0; i--)
        if (h->fd[i] >= 0) close(h->fd[i]);
    h->ok = 0;
}

static void hw_open(hw *h, int want)
{
    static const uint64_t cfg[HW_N] = {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
                                       PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES};
    memset(h, 0, sizeof *h);
    for (int i = 0; i < HW_N; i++) h->fd[i] = -1;
    if (!want) return;
    for (int i = 0; i < HW_N; i++) {
        h->fd[i] = perf_open(cfg[i], i == 0 ? -1 : h->fd[0]);
        if (h->fd[i] < 0) {
            hw_close(h);
            return;
        }
    }
    h->ok = 1;
}

static void hw_start(hw *h)
{
    if (!h->ok) return;
    ioctl(h->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
    ioctl(h->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

static void hw_stop(hw *h)
{
    if (!h->ok) return;
    ioctl(h->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    uint64_t buf[1 + HW_N];
    ssize_t n = read(h->fd[0], buf, sizeof buf);
    if (n != (ssize_t)sizeof buf || buf[0] != HW_N) {
        hw_close(h);
        return;
    }
    for (int i = 0; i < HW_N; i++) h->total[i] += buf[1 + i];
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- one bench ---- */

#define MAX_EPOCHS 101

int bk_bench_measure(const bk_bench *b, const bk_bench_opts *o, bk_bench_result *r)
{
    bk_counting_allocator ca;
    const bk_allocator *alloc = &ca.base;
    void *ctx = NULL;
    int epochs = o->epochs < 1 ? 1 : o->epochs > MAX_EPOCHS ? MAX_EPOCHS : o->epochs;
    double epoch_ns = o->min_time_ms * 1e6 / epochs;

    memset(r, 0, sizeof *r);
    r->bench = b;
    bk_counting_allocator_init(&ca, NULL);
    if (b->setup && b->setup(&ctx, b->arg, alloc) != 0) return 1;

    /* Calibrate: grow iters until one epoch takes epoch_ns. The first,
     * short runs double as warm-up. */
    uint64_t iters = 1;
    for (;;) {
        double t0 = now_ns();
        b->run(ctx, iters, alloc);
        double t = now_ns() - t0;
        if (t >= epoch_ns) break;
        if (t >= epoch_ns / 2) {  /* close: scale once and stop */
            iters = (uint64_t)ceil((double)iters * epoch_ns / t * 1.05);
            break;
        }
        double scale = t > 0 ? epoch_ns / t : 10;
        scale = scale < 2 ? 2 : scale > 10 ? 10 : scale;
        iters = (uint64_t)ceil((double)iters * scale);
    }

    /* Timed epochs; allocation counters cover exactly these. */
    uint64_t setup_peak = ca.peak;
    bk_counting_allocator_reset(&ca);
    hw h;
    hw_open(&h, o->hw_counters);
    double per_unit[MAX_EPOCHS];
    double units = b->units_per_op > 0 ? b->units_per_op : 1;
    for (int e = 0; e < epochs; e++) {
        hw_start(&h);
        double t0 = now_ns();
        b->run(ctx, iters, alloc);
        double t = now_ns() - t0;
        hw_stop(&h);
        per_unit[e] = t / ((double)iters * units);
    }
    double ops = (double)iters * epochs;
    r->iters = iters;
    r->epochs = epochs;
    r->allocs_per_op = (double)ca.allocs / ops;
    r->bytes_per_op = (double)ca.bytes / ops;

    double dev[MAX_EPOCHS];
    double med = median(per_unit, epochs);  /* sorts per_unit */
    r->ns_per_unit_min = per_unit[0];
    for (int e = 0; e < epochs; e++) dev[e] = med > 0 ? fabs(per_unit[e] - med) / med * 100 : 0;
    r->ns_per_unit = med;
    r->err_pct = median(dev, epochs);
    r->units_per_s = med > 0 ? 1e9 / med : 0;
    if (b->bytes_per_op > 0 && med > 0) r->mb_per_s = b->bytes_per_op * 1e3 / (med * units);

    if (h.ok && h.total[HW_CYCLES] > 0) {
        double total_units = ops * units;
        r->have_hw = 1;
        r->cyc_per_unit = (double)h.total[HW_CYCLES] / total_units;
        r->ins_per_unit = (double)h.total[HW_INSTRUCTIONS] / total_units;
        r->ipc = (double)h.total[HW_INSTRUCTIONS] / (double)h.total[HW_CYCLES];
        r->branch_miss_pct = h.total[HW_BRANCHES]
            ? 100.0 * (double)h.total[HW_BRANCH_MISSES] / (double)h.total[HW_BRANCHES] : 0;
    }
    hw_close(&h);

    if (b->teardown) b->teardown(ctx, alloc);
    r->peak_bytes = ca.peak > setup_peak ? ca.peak : setup_peak;
    return 0;
}
