/* Per-update times of the cached-tree re-root (docs/ssz.md, "Figures: whole
 * states and incremental roots"): the same work as the bench rows
 * Rehash/BeaconState/2^20/1-validator, .../1-validator/path and
 * .../1-validator/sha-chain, but every update timed on its own, so a shared
 * machine's preemptions land on a few samples instead of on every epoch:
 *   cc -O2 -Iinclude scripts/ssz-rehash-times.c build/libblockkit.a \
 *      -lsecp256k1 -lzstd -lsnappy -lgmp -lleveldb -lm -lpthread -o /tmp/rehash-times
 *   /tmp/rehash-times [updates]
 * Prints best, 10th percentile, median and mean per update (ns), the
 * compressions one update makes, and the best and median root after 10,486
 * balance edits. A measurement, not a test: nothing in ctest runs it. */
#define _GNU_SOURCE
#include <blockkit/sha256.h>
#include <blockkit/ssz.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVAL (UINT64_C(1) << 20)

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *name, double *t, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += t[i];
    qsort(t, n, sizeof *t, cmp_d);
    printf("%-22s best %7.0f  p10 %7.0f  median %7.0f  mean %7.0f ns\n", name, t[0], t[n / 10], t[n / 2],
           sum / (double)n);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 30000;
    if (n < 10) n = 10;
    cpu_set_t cpu;
    if (sched_getaffinity(0, sizeof cpu, &cpu) == 0) {
        for (int k = 0; k < CPU_SETSIZE; k++)
            if (CPU_ISSET(k, &cpu)) {
                CPU_ZERO(&cpu);
                CPU_SET(k, &cpu);
                sched_setaffinity(0, sizeof cpu, &cpu);
                break;
            }
    }
    bk_ssz_registry *reg;
    bk_ssz_hasher *h;
    const bk_ssz_type *t;
    bk_ssz_tree *tr;
    bk_writer w;
    uint8_t r[32];
    size_t bal;
    bk_writer_init(&w, NULL);
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&h, 0, NULL) != BK_OK ||
        bk_ssz_type_parse(reg, "electra:BeaconState", &t, NULL) != BK_OK ||
        bk_ssz_synthesize(t, NVAL, UINT64_C(1) << 40, 1, &w, NULL) != BK_OK ||
        bk_ssz_tree_create(&tr, t, w.data, w.len, NULL, NULL) != BK_OK || bk_ssz_tree_root(tr, h, r, NULL) != BK_OK ||
        bk_ssz_tree_field(tr, "balances", &bal, NULL) != BK_OK) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    bk_writer_free(&w);
    double *ts = malloc(n * sizeof *ts);
    if (!ts) return 1;
    uint64_t seq = 0, c0 = bk_ssz_compressions(), comp = 0;
    /* The balances spread by a multiplicative hash, as in the bench. */
    for (int mode = 0; mode < 2; mode++) {
        for (size_t i = 0; i < n; i++) {
            uint8_t v[8];
            uint64_t k = (seq * 2654435761u) % NVAL;
            bk_store_le64(v, 32000000000ull + seq++);
            double t0 = now_ns();
            bk_status st;
            if (mode == 0) {
                st = bk_ssz_tree_set_elem(tr, bal, k, v, 8, NULL);
            } else {
                char idx[24];
                snprintf(idx, sizeof idx, "%llu", (unsigned long long)k);
                const char *path[2] = {"balances", idx};
                st = bk_ssz_tree_set(tr, path, 2, v, 8, NULL);
            }
            if (st != BK_OK || bk_ssz_tree_root(tr, h, r, NULL) != BK_OK) return 1;
            ts[i] = now_ns() - t0;
            if (mode == 0 && i == 0) comp = bk_ssz_compressions() - c0;
        }
        report(mode == 0 ? "1-validator (set_elem)" : "1-validator/path", ts, n);
    }
    /* The floor: as many dependent bk_sha256_64 (n = 1) calls. */
    uint8_t m[64];
    memset(m, 0x5a, sizeof m);
    for (size_t i = 0; i < n; i++) {
        double t0 = now_ns();
        for (uint64_t k = 0; k < comp; k++) bk_sha256_64(m, m, 1);
        ts[i] = now_ns() - t0;
    }
    report("sha-chain", ts, n);
    printf("compressions per update: %llu\n", (unsigned long long)comp);
    /* 1% of the balances, then the root (edits by index). */
    size_t rounds = 21;
    for (size_t i = 0; i < rounds; i++) {
        for (unsigned e = 0; e < 10486; e++) {
            uint8_t v[8];
            uint64_t k = (seq * 2654435761u + e * 97u) % NVAL;
            bk_store_le64(v, 32000000000ull + seq++);
            if (bk_ssz_tree_set_elem(tr, bal, k, v, 8, NULL) != BK_OK) return 1;
        }
        double t0 = now_ns();
        if (bk_ssz_tree_root(tr, h, r, NULL) != BK_OK) return 1;
        ts[i] = now_ns() - t0;
    }
    qsort(ts, rounds, sizeof *ts, cmp_d);
    printf("1%%-of-balances root    best %7.3f  median %7.3f ms\n", ts[0] / 1e6, ts[rounds / 2] / 1e6);
    free(ts);
    bk_ssz_tree_free(tr);
    bk_ssz_hasher_free(h);
    bk_ssz_registry_free(reg);
    return 0;
}
