/* Whole-state SSZ benches: a mainnet-size BeaconState (electra, 2^20
 * validators, balances, participation flags and inactivity scores; made by
 * bk_ssz_synthesize with the lists indexed by validator full: the mainnet
 * shape; the other lists empty) hashed straight from its bytes.
 *
 *   HashTreeRoot/BeaconState/2^20/j1      one thread, unit state
 *   HashTreeRoot/BeaconState/2^20/j2      a pool of two threads (the caller + one)
 *   HashTreeRoot/BeaconState/2^20/sha-floor
 *                                         the same number of 64-byte compressions
 *                                         (counted by bk_ssz_compressions over one
 *                                         root) through bk_sha256_64 in batches of
 *                                         1024: the SHA-256 work alone, the floor
 *                                         the j1 row is measured against
 *   Rehash/BeaconState/2^20/1-validator   a bk_ssz_tree over that state: one
 *                                         balance changed (bk_ssz_tree_set_elem,
 *                                         the field resolved once at setup), then
 *                                         the root (unit update)
 *   Rehash/BeaconState/2^20/1-validator/path
 *                                         the same through bk_ssz_tree_set with a
 *                                         string path {"balances", "<i>"} formatted
 *                                         per edit (snprintf and parsing included)
 *   Rehash/BeaconState/2^20/1-validator/sha-chain
 *                                         the floor of that row: as many 64-byte
 *                                         hashes as one update makes (counted by
 *                                         bk_ssz_compressions: 45), each through
 *                                         bk_sha256_64 with n = 1 and each message
 *                                         made from the previous digest, so they
 *                                         are as dependent as the path's
 *   Rehash/BeaconState/2^20/1%-of-balances
 *                                         10,486 balances changed (set_elem), then
 *                                         the root
 *   Rehash/BeaconState/2^20/1%-of-balances/path
 *                                         the same through bk_ssz_tree_set and
 *                                         string paths
 * The balances changed are spread over the list by a multiplicative hash of
 * a counter, so each edit's path through the cached levels is cold-ish, as
 * for a real state's scattered updates. */
#include "bench.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <blockkit/sha256.h>
#include <blockkit/ssz.h>

#define STATE_TYPE "electra:BeaconState"
#define STATE_VALIDATORS (UINT64_C(1) << 20)

typedef enum { S_ROOT, S_FLOOR, S_REHASH, S_CHAIN } skind;
typedef struct state_arg {
    skind k;
    unsigned threads;
    unsigned edits;        /* S_REHASH: balances changed per update */
    int by_path;           /* S_REHASH: through bk_ssz_tree_set and a string path */
} state_arg;

typedef struct state_ctx {
    bk_ssz_registry *reg;
    bk_ssz_hasher *h;
    bk_ssz_pool *pool;
    const bk_ssz_type *t;
    bk_writer w;
    uint64_t compressions;
    uint8_t *msgs;         /* S_FLOOR: 1024 messages */
    bk_ssz_tree *tree;     /* S_REHASH */
    size_t balances;       /* S_REHASH: the field's index */
    uint64_t seq;
    const state_arg *arg;
} state_ctx;

static void state_teardown(void *p, const bk_allocator *alloc)
{
    state_ctx *c = p;
    if (!c) return;
    bk_ssz_tree_free(c->tree);
    bk_ssz_hasher_free(c->h);
    bk_ssz_pool_free(c->pool);
    bk_ssz_registry_free(c->reg);
    bk_writer_free(&c->w);
    bk_free(alloc, c->msgs, 64 * 1024);
    bk_free(alloc, c, sizeof *c);
}

static int state_setup(void **out, const void *argp, const bk_allocator *alloc)
{
    const state_arg *a = argp;
    state_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    memset(c, 0, sizeof *c);
    c->arg = a;
    bk_writer_init(&c->w, alloc);
    if (bk_ssz_registry_create(&c->reg, alloc) != BK_OK || bk_ssz_hasher_create(&c->h, 0, alloc) != BK_OK ||
        bk_ssz_type_parse(c->reg, STATE_TYPE, &c->t, NULL) != BK_OK ||
        bk_ssz_synthesize(c->t, STATE_VALIDATORS, UINT64_C(1) << 40, 1, &c->w, NULL) != BK_OK) {
        state_teardown(c, alloc);
        return 1;
    }
    if (a->threads > 1) {
        /* The runner pins this thread to one CPU; threads inherit the mask,
         * so the pool's workers are started with every CPU allowed. */
        cpu_set_t pinned, all;
        int widened = 0;
        if (sched_getaffinity(0, sizeof pinned, &pinned) == 0) {
            CPU_ZERO(&all);
            long n = sysconf(_SC_NPROCESSORS_ONLN);
            for (long k = 0; k < n && k < CPU_SETSIZE; k++) CPU_SET((int)k, &all);
            widened = sched_setaffinity(0, sizeof all, &all) == 0;
        }
        bk_status st = bk_ssz_pool_create(&c->pool, a->threads, 0, alloc, NULL);
        if (widened) sched_setaffinity(0, sizeof pinned, &pinned);
        if (st != BK_OK) {
            state_teardown(c, alloc);
            return 1;
        }
        bk_ssz_hasher_set_pool(c->h, c->pool);
    }
    if (a->k == S_REHASH || a->k == S_CHAIN) {
        uint8_t r[32];
        if (bk_ssz_tree_create(&c->tree, c->t, c->w.data, c->w.len, alloc, NULL) != BK_OK ||
            bk_ssz_tree_root(c->tree, c->h, r, NULL) != BK_OK ||
            bk_ssz_tree_field(c->tree, "balances", &c->balances, NULL) != BK_OK) {
            state_teardown(c, alloc);
            return 1;
        }
        bk_writer_free(&c->w); /* the tree has its own copy */
        if (a->k == S_CHAIN) {
            /* The compressions of one balance's update; then the tree goes. */
            uint8_t v[8] = {1};
            uint64_t c0 = bk_ssz_compressions();
            if (bk_ssz_tree_set_elem(c->tree, c->balances, STATE_VALIDATORS / 3, v, 8, NULL) != BK_OK ||
                bk_ssz_tree_root(c->tree, c->h, r, NULL) != BK_OK) {
                state_teardown(c, alloc);
                return 1;
            }
            c->compressions = bk_ssz_compressions() - c0;
            bk_ssz_tree_free(c->tree);
            c->tree = NULL;
            c->msgs = bk_alloc(alloc, 64 * 1024);
            if (!c->msgs) {
                state_teardown(c, alloc);
                return 1;
            }
            memset(c->msgs, 0x5a, 64 * 1024);
        }
    }
    if (a->k == S_FLOOR) {
        uint8_t r[32];
        uint64_t c0 = bk_ssz_compressions();
        if (bk_ssz_hash_tree_root(c->h, c->t, c->w.data, c->w.len, r, NULL) != BK_OK) {
            state_teardown(c, alloc);
            return 1;
        }
        c->compressions = bk_ssz_compressions() - c0;
        c->msgs = bk_alloc(alloc, 64 * 1024);
        if (!c->msgs) {
            state_teardown(c, alloc);
            return 1;
        }
        memset(c->msgs, 0x5a, 64 * 1024);
    }
    *out = c;
    return 0;
}

static void state_run(void *p, uint64_t iters, const bk_allocator *alloc)
{
    state_ctx *c = p;
    uint8_t r[32];
    (void)alloc;
    for (uint64_t i = 0; i < iters; i++) {
        if (c->arg->k == S_ROOT) {
            if (bk_ssz_hash_tree_root(c->h, c->t, c->w.data, c->w.len, r, NULL) != BK_OK) r[0] = 0;
            bk_bench_keep(r);
        } else if (c->arg->k == S_REHASH) {
            for (unsigned e = 0; e < c->arg->edits; e++) {
                uint8_t v[8];
                uint64_t k = (c->seq * 2654435761u + e * 97u) % STATE_VALIDATORS;
                bk_store_le64(v, 32000000000ull + c->seq++);
                if (c->arg->by_path) {
                    char idx[24];
                    snprintf(idx, sizeof idx, "%llu", (unsigned long long)k);
                    const char *path[2] = {"balances", idx};
                    if (bk_ssz_tree_set(c->tree, path, 2, v, 8, NULL) != BK_OK) r[0] = 1;
                } else if (bk_ssz_tree_set_elem(c->tree, c->balances, k, v, 8, NULL) != BK_OK) {
                    r[0] = 1;
                }
            }
            if (bk_ssz_tree_root(c->tree, c->h, r, NULL) != BK_OK) r[0] = 0;
            bk_bench_keep(r);
        } else if (c->arg->k == S_CHAIN) {
            /* Digest k lands in the first half of message k + 1; the second
             * half is a constant sibling, as up the zero levels. */
            uint8_t *m = c->msgs;
            for (uint64_t k = 0; k < c->compressions; k++) bk_sha256_64(m, m, 1);
            bk_bench_keep(m);
        } else {
            /* In place, as the merkleizer reduces its levels. */
            for (uint64_t left = c->compressions; left;) {
                size_t n = left < 1024 ? (size_t)left : 1024;
                bk_sha256_64(c->msgs, c->msgs, n);
                left -= n;
            }
            bk_bench_keep(c->msgs);
        }
    }
}

static const state_arg a_j1 = {S_ROOT, 1, 0, 0}, a_j2 = {S_ROOT, 2, 0, 0}, a_floor = {S_FLOOR, 1, 0, 0};
static const state_arg a_re1 = {S_REHASH, 1, 1, 0}, a_re1path = {S_REHASH, 1, 1, 1}, a_re1pct = {S_REHASH, 1, 10486, 0};
static const state_arg a_re1pctpath = {S_REHASH, 1, 10486, 1}, a_chain = {S_CHAIN, 1, 1, 0};
BK_BENCH(bench_state_j1, "HashTreeRoot/BeaconState/2^20/j1", "state", 1, 0, &a_j1, state_setup, state_run,
         state_teardown)
BK_BENCH(bench_state_j2, "HashTreeRoot/BeaconState/2^20/j2", "state", 1, 0, &a_j2, state_setup, state_run,
         state_teardown)
BK_BENCH(bench_state_floor, "HashTreeRoot/BeaconState/2^20/sha-floor", "state", 1, 0, &a_floor, state_setup,
         state_run, state_teardown)
BK_BENCH(bench_state_rehash1, "Rehash/BeaconState/2^20/1-validator", "update", 1, 0, &a_re1, state_setup, state_run,
         state_teardown)
BK_BENCH(bench_state_rehash1path, "Rehash/BeaconState/2^20/1-validator/path", "update", 1, 0, &a_re1path,
         state_setup, state_run, state_teardown)
BK_BENCH(bench_state_chain, "Rehash/BeaconState/2^20/1-validator/sha-chain", "update", 1, 0, &a_chain, state_setup,
         state_run, state_teardown)
BK_BENCH(bench_state_rehash1pct, "Rehash/BeaconState/2^20/1%-of-balances", "update", 1, 0, &a_re1pct, state_setup,
         state_run, state_teardown)
BK_BENCH(bench_state_rehash1pctpath, "Rehash/BeaconState/2^20/1%-of-balances/path", "update", 1, 0, &a_re1pctpath,
         state_setup, state_run, state_teardown)
