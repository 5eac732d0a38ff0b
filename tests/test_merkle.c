/* Merkle roots and branches against a deliberately simple reference (one new
 * array per level, explicit duplication, one-shot SHA-256d per node), Core's
 * merkle_tests rules (src/test/merkle_tests.cpp), in-place batching and the
 * capacity contract. Block-level checks live in test_merkle_block.c. */
#include "check.h"

#include <blockkit/blockkit.h>
#include <blockkit/merkle.h>

#include "bitcoin/merkle_internal.h"

/* ---- reference ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void random_leaves(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < 32 * n; i += 8) {
        uint64_t v = rng();
        memcpy(p + i, &v, 8);
    }
}

/* The whole tree as Core's pre-2015 BlockBuildMerkleTree laid it out: level
 * after level, each level's odd last node paired with itself. Returns the
 * node count; *mutated as Core's ComputeMerkleRoot (any equal real pair). */
static size_t ref_tree(const uint8_t *leaves, size_t n, uint8_t *tree, int *mutated)
{
    size_t j = 0, total = n;
    *mutated = 0;
    memcpy(tree, leaves, 32 * n);
    for (size_t size = n; size > 1; size = (size + 1) / 2) {
        for (size_t i = 0; i < size; i += 2) {
            size_t i2 = i + 1 < size ? i + 1 : size - 1;
            uint8_t pair[64];
            if (i2 == i + 1 && !memcmp(tree + 32 * (j + i), tree + 32 * (j + i2), 32)) *mutated = 1;
            memcpy(pair, tree + 32 * (j + i), 32);
            memcpy(pair + 32, tree + 32 * (j + i2), 32);
            bk_sha256d(tree + 32 * total, pair, 64);
            total++;
        }
        j += size;
    }
    return total;
}

static void ref_root(const uint8_t *leaves, size_t n, uint8_t root[32], int *mutated)
{
    if (n == 0) {
        memset(root, 0, 32);
        *mutated = 0;
        return;
    }
    uint8_t *tree = malloc(32 * (2 * n + 16));
    size_t total = ref_tree(leaves, n, tree, mutated);
    memcpy(root, tree + 32 * (total - 1), 32);
    free(tree);
}

/* Core's pre-2015 BlockGetMerkleBranch over a tree built by ref_tree. */
static size_t ref_branch(const uint8_t *tree, size_t n, size_t index, uint8_t *branch)
{
    size_t j = 0, k = 0;
    for (size_t size = n; size > 1; size = (size + 1) / 2) {
        size_t i = (index ^ 1) < size - 1 ? (index ^ 1) : size - 1;
        memcpy(branch + 32 * k++, tree + 32 * (j + i), 32);
        index >>= 1;
        j += size;
    }
    return k;
}

/* bk_merkle_root on a copy in a buffer of exactly bk_merkle_capacity(n)
 * nodes (heap, so ASan sees any write past it). */
static bk_status root_of(const uint8_t *leaves, size_t n, uint8_t root[32], int *mutated)
{
    size_t cap = bk_merkle_capacity(n);
    uint8_t *buf = malloc(cap ? 32 * cap : 1);
    if (n) memcpy(buf, leaves, 32 * n);
    bk_status st = bk_merkle_root(buf, n, cap, root, mutated);
    free(buf);
    return st;
}

static int matches_reference(const uint8_t *leaves, size_t n)
{
    uint8_t want[32], got[32], got2[32];
    int want_mut, got_mut = -1;
    ref_root(leaves, n, want, &want_mut);
    if (root_of(leaves, n, got, &got_mut) != BK_OK) return 0;
    if (root_of(leaves, n, got2, NULL) != BK_OK) return 0;
    return !memcmp(want, got, 32) && !memcmp(want, got2, 32) && want_mut == got_mut;
}

/* Every index of every tree up to this many leaves: 300 on the first (best)
 * backend, fewer on the others and on the portable one (the exhaustive pass
 * to 300 is ~9M node hashes: a second with SHA-NI, minutes under ASan with
 * the portable code). */
static size_t branch_max_leaves = 300;
/* The other exhaustive sweeps, full on the first backend, smaller on the
 * others (each backend is also checked against the portable one by
 * test_sha256). */
static int full_sweep = 1;

/* ---- rules ---- */

static void capacity_is_count_rounded_up_to_even(void)
{
    CHECK_EQ_INT(bk_merkle_capacity(0), 0);
    CHECK_EQ_INT(bk_merkle_capacity(1), 2);
    CHECK_EQ_INT(bk_merkle_capacity(2), 2);
    CHECK_EQ_INT(bk_merkle_capacity(9001), 9002);
    CHECK_EQ_INT(bk_merkle_capacity(9002), 9002);
    CHECK_EQ_INT(bk_merkle_depth(0), 0);
    CHECK_EQ_INT(bk_merkle_depth(1), 0);
    CHECK_EQ_INT(bk_merkle_depth(2), 1);
    CHECK_EQ_INT(bk_merkle_depth(3), 2);
    CHECK_EQ_INT(bk_merkle_depth(4), 2);
    CHECK_EQ_INT(bk_merkle_depth(5), 3);
    CHECK_EQ_INT(bk_merkle_depth(9001), 14);
}

static void empty_list_is_zero_hash_not_mutated(void)
{
    uint8_t root[32], zero[32] = {0};
    int mutated = -1;
    memset(root, 0xaa, 32);
    CHECK_EQ_INT(bk_merkle_root(NULL, 0, 0, root, &mutated), BK_OK);
    CHECK_MEM(root, zero, 32);
    CHECK_EQ_INT(mutated, 0);
}

static void one_leaf_is_its_own_root(void)
{
    uint8_t leaf[32], copy[32], root[32];
    int mutated = -1;
    random_leaves(leaf, 1);
    memcpy(copy, leaf, 32);
    /* Core: a single leaf is returned as is, nothing hashed: capacity 1 is enough. */
    CHECK_EQ_INT(bk_merkle_root(leaf, 1, 1, root, &mutated), BK_OK);
    CHECK_MEM(root, copy, 32);
    CHECK_EQ_INT(mutated, 0);
    /* root_out may alias the leaves. */
    CHECK_EQ_INT(bk_merkle_root(leaf, 1, 1, leaf, NULL), BK_OK);
    CHECK_MEM(leaf, copy, 32);
}

static void odd_count_needs_room_for_duplicate(void)
{
    uint8_t buf[32 * 8], before[32 * 8], root[32];
    random_leaves(buf, 8);
    memcpy(before, buf, sizeof buf);
    for (size_t n = 3; n <= 7; n += 2) {
        CHECK_EQ_INT(bk_merkle_root(buf, n, n, root, NULL), BK_ERR_BUFFER);
        CHECK_EQ_INT(bk_merkle_root(buf, n, n - 1, root, NULL), BK_ERR_BUFFER);
        CHECK_MEM(buf, before, sizeof buf); /* refused before touching anything */
    }
    CHECK_EQ_INT(bk_merkle_root(buf, 4, 3, root, NULL), BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_merkle_root(buf, 1, 0, root, NULL), BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_merkle_root(buf, 4, 4, NULL, NULL), BK_ERR_ARG);
    CHECK_EQ_INT(bk_merkle_root(NULL, 4, 4, root, NULL), BK_ERR_ARG);
    CHECK_MEM(buf, before, sizeof buf);
    CHECK_EQ_INT(bk_merkle_root(buf, 3, 4, root, NULL), BK_OK);
    CHECK_EQ_INT(bk_merkle_root(buf, 4, 4, root, NULL), BK_OK); /* even counts need nothing extra */
}

static void every_count_to_1000_matches_reference(void)
{
    size_t max = full_sweep ? 1000 : 300;
    uint8_t *leaves = malloc(32 * max);
    random_leaves(leaves, max);
    int bad = 0;
    for (size_t n = 0; n <= max; n++)
        if (!matches_reference(leaves, n)) {
            bad++;
            fprintf(stderr, "  count %zu differs from the reference\n", n);
        }
    CHECK_EQ_INT(bad, 0);
    free(leaves);
}

static void powers_of_two_plus_minus_one_match_reference(void)
{
    size_t max = (1u << 16) + 1;
    uint8_t *leaves = malloc(32 * max);
    random_leaves(leaves, max);
    for (unsigned k = 1; k <= (full_sweep ? 16u : 12u); k++) {
        size_t p = (size_t)1 << k;
        CHECK(matches_reference(leaves, p - 1));
        CHECK(matches_reference(leaves, p));
        CHECK(matches_reference(leaves, p + 1));
    }
    free(leaves);
}

static size_t ctz(size_t v)
{
    size_t j = 0;
    if (!v) return 0;
    while (!(v & 1)) { v >>= 1; j++; }
    return j;
}

/* Core merkle_test: duplicating the last 2^ctz(n) leaves (up to three times)
 * keeps the root and is detected as a mutation. */
static void duplicated_tail_keeps_root_and_is_mutated(void)
{
    uint8_t *leaves = malloc(32 * 40000);
    for (int t = 0; t < 40; t++) {
        size_t ntx = t <= 16 ? (size_t)t : 17 + (size_t)(rng() % (full_sweep ? 4000 : 1000));
        random_leaves(leaves, ntx);
        uint8_t base[32];
        int base_mut = -1;
        CHECK_EQ_INT(root_of(leaves, ntx, base, &base_mut), BK_OK);
        CHECK_EQ_INT(base_mut, 0);
        size_t cur = ntx;
        for (int mutate = 1; mutate <= 3; mutate++) {
            size_t dup = (size_t)1 << ctz(cur);
            if (dup >= cur) break; /* duplicating the whole tree adds a level */
            memcpy(leaves + 32 * cur, leaves + 32 * (cur - dup), 32 * dup);
            cur += dup;
            uint8_t root[32];
            int mut = -1;
            CHECK_EQ_INT(root_of(leaves, cur, root, &mut), BK_OK);
            CHECK_MEM(root, base, 32);
            CHECK_EQ_INT(mut, 1);
            CHECK(matches_reference(leaves, cur));
        }
    }
    free(leaves);
}

/* Core merkle_test_OddTxWithRepeatedLastTx_block. */
static void repeated_last_of_three_is_mutated_same_root(void)
{
    uint8_t leaves[32 * 4], r3[32], r4[32];
    int m3 = -1, m4 = -1;
    random_leaves(leaves, 3);
    memcpy(leaves + 96, leaves + 64, 32);
    CHECK_EQ_INT(root_of(leaves, 3, r3, &m3), BK_OK);
    CHECK_EQ_INT(root_of(leaves, 4, r4, &m4), BK_OK);
    CHECK_MEM(r3, r4, 32);
    CHECK_EQ_INT(m3, 0);
    CHECK_EQ_INT(m4, 1);
}

/* An equal pair at positions 2i, 2i+1 anywhere is a mutation (Core compares
 * every pair, not only the last); equal nodes straddling two pairs are not. */
static void equal_pair_in_the_middle_is_mutated(void)
{
    uint8_t leaves[32 * 10];
    int mut = -1;
    uint8_t root[32];
    random_leaves(leaves, 10);
    memcpy(leaves + 32 * 5, leaves + 32 * 4, 32); /* pair (4,5) */
    CHECK_EQ_INT(root_of(leaves, 10, root, &mut), BK_OK);
    CHECK_EQ_INT(mut, 1);
    CHECK(matches_reference(leaves, 10));
    random_leaves(leaves, 10);
    memcpy(leaves + 32 * 4, leaves + 32 * 3, 32); /* (3,4): different pairs */
    CHECK_EQ_INT(root_of(leaves, 10, root, &mut), BK_OK);
    CHECK_EQ_INT(mut, 0);
    /* Equal subtrees one level up: leaves 0-1 equal 2-3. */
    random_leaves(leaves, 10);
    memcpy(leaves + 64, leaves, 64);
    CHECK_EQ_INT(root_of(leaves, 10, root, &mut), BK_OK);
    CHECK_EQ_INT(mut, 1);
    CHECK(matches_reference(leaves, 10));
}

/* Core merkle_test_LeftSubtreeRightSubtree. */
static void root_of_four_is_root_of_two_subroots(void)
{
    uint8_t leaves[32 * 4], work[32 * 4], lr[64], root[32], lr_root[32];
    random_leaves(leaves, 4);
    memcpy(work, leaves, sizeof work);
    CHECK_EQ_INT(bk_merkle_root(work, 4, 4, root, NULL), BK_OK);
    memcpy(work, leaves, 64);
    CHECK_EQ_INT(bk_merkle_root(work, 2, 2, lr, NULL), BK_OK);
    memcpy(work, leaves + 64, 64);
    CHECK_EQ_INT(bk_merkle_root(work, 2, 2, lr + 32, NULL), BK_OK);
    CHECK_EQ_INT(bk_merkle_root(lr, 2, 2, lr_root, NULL), BK_OK);
    CHECK_MEM(root, lr_root, 32);
}

/* Equal pairs placed at the edges of the engine batches (64 pairs) on every
 * level size around them: each is found, and the root stays the reference's. */
static void in_place_batches_across_boundaries(void)
{
    static const size_t counts[] = {127, 128, 129, 130, 255, 256, 257, 258, 383, 384, 385, 1023, 1025};
    static const size_t pairs[] = {0, 1, 62, 63, 64, 65, 127, 128, 191, 192};
    uint8_t *leaves = malloc(32 * 1100);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t n = counts[c];
        random_leaves(leaves, n);
        CHECK(matches_reference(leaves, n));
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            size_t i = pairs[p];
            if (2 * i + 1 >= n) continue;
            random_leaves(leaves, n);
            memcpy(leaves + 32 * (2 * i + 1), leaves + 32 * (2 * i), 32);
            uint8_t root[32];
            int mut = -1;
            CHECK_EQ_INT(root_of(leaves, n, root, &mut), BK_OK);
            CHECK_EQ_INT(mut, 1);
            CHECK(matches_reference(leaves, n));
        }
        /* The last node of an odd level next to its duplicate is no mutation. */
        if (n & 1) {
            random_leaves(leaves, n);
            uint8_t root[32];
            int mut = -1;
            CHECK_EQ_INT(root_of(leaves, n, root, &mut), BK_OK);
            CHECK_EQ_INT(mut, 0);
        }
    }
    free(leaves);
}

/* Trees larger than one cache chunk are reduced chunk by chunk: counts
 * around multiples of the chunk, with an equal pair planted in the first
 * chunk, in the short last chunk, and as equal sibling chunks. */
static void chunk_boundaries_match_reference(void)
{
    const size_t chunk = (size_t)1 << BK_MERKLE_CHUNK_LOG2;
    const size_t counts[] = {chunk - 1, chunk, chunk + 1, chunk + 2, chunk + 3, 2 * chunk - 1, 2 * chunk + 1,
                             3 * chunk + 5, 4 * chunk + 1};
    uint8_t *leaves = malloc(32 * (4 * chunk + 2));
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t n = counts[c];
        if (!full_sweep && n > 2 * chunk + 1) continue;
        random_leaves(leaves, n);
        CHECK(matches_reference(leaves, n));
        memcpy(leaves + 32 * 7, leaves + 32 * 6, 32);
        CHECK(matches_reference(leaves, n));
        random_leaves(leaves, n);
        size_t last_pair = (n - 1) & ~(size_t)1;
        if (last_pair + 1 < n) {
            memcpy(leaves + 32 * (last_pair + 1), leaves + 32 * last_pair, 32);
            CHECK(matches_reference(leaves, n));
        }
        if (n >= 2 * chunk) {
            random_leaves(leaves, n);
            memcpy(leaves + 32 * chunk, leaves, 32 * chunk);
            uint8_t root[32];
            int mut = -1;
            CHECK_EQ_INT(root_of(leaves, n, root, &mut), BK_OK);
            CHECK_EQ_INT(mut, 1);
            CHECK(matches_reference(leaves, n));
        }
    }
    free(leaves);
}

static void branches_of_every_index_to_300_round_trip(void)
{
    uint8_t leaves[32 * 300], work[32 * 300], branch[32 * 16], want[32 * 16], root[32], want_root[32];
    uint8_t *tree = malloc(32 * (2 * 300 + 16));
    int bad = 0;
    random_leaves(leaves, 300);
    for (size_t n = 1; n <= branch_max_leaves; n++) {
        int mut;
        size_t total = ref_tree(leaves, n, tree, &mut);
        memcpy(want_root, tree + 32 * (total - 1), 32);
        for (size_t i = 0; i < n; i++) {
            size_t depth = 99;
            memcpy(work, leaves, 32 * n);
            bk_status st = bk_merkle_branch(work, n, bk_merkle_capacity(n), i, branch, sizeof branch, &depth,
                                            root, NULL);
            size_t want_depth = ref_branch(tree, n, i, want);
            if (st != BK_OK || depth != want_depth || depth != bk_merkle_depth(n) ||
                memcmp(branch, want, 32 * depth) || memcmp(root, want_root, 32) ||
                !bk_merkle_verify_branch(leaves + 32 * i, branch, depth, i, want_root)) {
                if (bad++ < 5) fprintf(stderr, "  branch n=%zu i=%zu wrong\n", n, i);
            }
            /* A different index (a different path) does not verify. */
            if (n > 2 && bk_merkle_verify_branch(leaves + 32 * i, branch, depth, (i + 1) % n, want_root) &&
                memcmp(leaves + 32 * i, leaves + 32 * ((i + 1) % n), 32))
                bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    free(tree);
}

static void branch_refuses_bad_arguments(void)
{
    uint8_t leaves[32 * 6], branch[32 * 3], root[32];
    random_leaves(leaves, 5);
    CHECK_EQ_INT(bk_merkle_branch(leaves, 5, 6, 5, branch, sizeof branch, NULL, root, NULL), BK_ERR_ARG);
    CHECK_EQ_INT(bk_merkle_branch(leaves, 5, 5, 0, branch, sizeof branch, NULL, root, NULL), BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_merkle_branch(leaves, 5, 6, 0, branch, 32 * 3 - 1, NULL, root, NULL), BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_merkle_branch(leaves, 5, 6, 0, NULL, 0, NULL, root, NULL), BK_ERR_ARG);
    /* One leaf: empty branch, the leaf is the root. */
    size_t depth = 7;
    uint8_t copy[32];
    memcpy(copy, leaves, 32);
    CHECK_EQ_INT(bk_merkle_branch(leaves, 1, 1, 0, NULL, 0, &depth, root, NULL), BK_OK);
    CHECK_EQ_INT(depth, 0);
    CHECK_MEM(root, copy, 32);
}

/* Branch computation reports the same mutation flag as the root. */
static void branch_reports_mutation(void)
{
    uint8_t leaves[32 * 8], branch[32 * 3], root[32];
    int mut = -1;
    size_t depth;
    random_leaves(leaves, 7);
    memcpy(leaves + 32 * 3, leaves + 32 * 2, 32);
    CHECK_EQ_INT(bk_merkle_branch(leaves, 7, 8, 6, branch, sizeof branch, &depth, root, &mut), BK_OK);
    CHECK_EQ_INT(mut, 1);
    CHECK_EQ_INT(depth, 3);
}

static void run_all(void)
{
    RUN(capacity_is_count_rounded_up_to_even);
    RUN(empty_list_is_zero_hash_not_mutated);
    RUN(one_leaf_is_its_own_root);
    RUN(odd_count_needs_room_for_duplicate);
    RUN(every_count_to_1000_matches_reference);
    RUN(powers_of_two_plus_minus_one_match_reference);
    RUN(duplicated_tail_keeps_root_and_is_mutated);
    RUN(repeated_last_of_three_is_mutated_same_root);
    RUN(equal_pair_in_the_middle_is_mutated);
    RUN(root_of_four_is_root_of_two_subroots);
    RUN(in_place_batches_across_boundaries);
    RUN(chunk_boundaries_match_reference);
    RUN(branches_of_every_index_to_300_round_trip);
    RUN(branch_refuses_bad_arguments);
    RUN(branch_reports_mutation);
}

int main(void)
{
    /* Every SHA-256 backend this build and CPU run. */
    const char *names[8];
    size_t nb = bk_sha256_backends(names, 8);
    for (size_t b = 0; b < nb && b < 8; b++) {
        if (bk_sha256_use(names[b]) != BK_OK) continue;
        branch_max_leaves = b == 0 && strcmp(names[b], "portable") ? 300 : b == 0 ? 120 : 64;
#ifndef NDEBUG
        /* Debug/sanitizer builds: a quarter of the exhaustive work. */
        if (branch_max_leaves > 150) branch_max_leaves = 150;
#endif
        full_sweep = b == 0;
        printf("backend %s\n", names[b]);
        fflush(stdout);
        run_all();
    }
    return check_finish();
}
