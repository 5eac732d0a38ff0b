/* The cache-chunked order of bk_merkle_root with a tiny chunk (4 leaves),
 * so every tree from 5 leaves up goes through several rounds of chunking:
 * roots and the mutation flag must equal a plain reference for every count,
 * with equal pairs planted at every position of every level. The same
 * source file is compiled into the library with the real chunk size. */
#define BK_MERKLE_CHUNK_LOG2 2
#include "bitcoin/merkle.c"

#include "check.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static void random_leaves(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < 32 * n; i += 8) {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        memcpy(p + i, &rng_state, 8);
    }
}

/* One array per level, explicit duplication, one-shot SHA-256d, Core's
 * comparison of every real pair. */
static void ref_root(const uint8_t *leaves, size_t n, uint8_t root[32], int *mutated)
{
    *mutated = 0;
    if (n == 0) {
        memset(root, 0, 32);
        return;
    }
    uint8_t *level = malloc(32 * (n + 1));
    memcpy(level, leaves, 32 * n);
    while (n > 1) {
        for (size_t pos = 0; pos + 1 < n; pos += 2)
            if (!memcmp(level + 32 * pos, level + 32 * (pos + 1), 32)) *mutated = 1;
        if (n & 1) memcpy(level + 32 * n, level + 32 * (n - 1), 32), n++;
        uint8_t *next = malloc(32 * (n / 2 + 1));
        for (size_t i = 0; i < n / 2; i++) bk_sha256d(next + 32 * i, level + 64 * i, 64);
        free(level);
        level = next;
        n /= 2;
    }
    memcpy(root, level, 32);
    free(level);
}

static int same_as_reference(const uint8_t *leaves, size_t n, uint8_t *work)
{
    uint8_t want[32], got[32], got2[32];
    int want_mut, got_mut = -1;
    ref_root(leaves, n, want, &want_mut);
    memcpy(work, leaves, 32 * n);
    if (bk_merkle_root(work, n, bk_merkle_capacity(n), got, &got_mut) != BK_OK) return 0;
    memcpy(work, leaves, 32 * n);
    if (bk_merkle_root(work, n, bk_merkle_capacity(n), got2, NULL) != BK_OK) return 0;
    return !memcmp(want, got, 32) && !memcmp(want, got2, 32) && want_mut == got_mut;
}

static void every_count_through_chunks(void)
{
    uint8_t *leaves = malloc(32 * 700), *work = malloc(32 * 702);
    int bad = 0;
    for (size_t n = 0; n <= 700; n++) {
        random_leaves(leaves, n);
        if (!same_as_reference(leaves, n, work)) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    free(leaves);
    free(work);
}

/* Equal pairs at level 0 in every position, and equal sibling subtrees
 * (2^k leaves repeated) at every aligned position of higher levels. */
static void planted_pairs_at_every_position(void)
{
    static const size_t counts[] = {5, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 129, 257};
    uint8_t *leaves = malloc(32 * 300), *work = malloc(32 * 302);
    int bad = 0, flagged = 0;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t n = counts[c];
        for (size_t k = 0; ((size_t)2 << k) <= n; k++) {
            size_t span = (size_t)1 << k;
            for (size_t at = 0; at + 2 * span <= n; at += 2 * span) {
                random_leaves(leaves, n);
                memcpy(leaves + 32 * (at + span), leaves + 32 * at, 32 * span);
                if (!same_as_reference(leaves, n, work)) bad++;
                uint8_t root[32];
                int mut = 0;
                memcpy(work, leaves, 32 * n);
                if (bk_merkle_root(work, n, bk_merkle_capacity(n), root, &mut) == BK_OK) flagged += mut;
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(flagged > 0);
    free(leaves);
    free(work);
}

/* Core merkle_test: duplicating the last 2^ctz(n) leaves keeps the root. */
static void duplicated_tail_through_chunks(void)
{
    uint8_t *leaves = malloc(32 * 2100), *work = malloc(32 * 2102);
    for (size_t n = 5; n <= 260; n++) {
        random_leaves(leaves, n);
        size_t dup = n & (~n + 1);
        if (dup >= n) continue;
        uint8_t r0[32], r1[32];
        int m0 = -1, m1 = -1;
        memcpy(work, leaves, 32 * n);
        CHECK_EQ_INT(bk_merkle_root(work, n, bk_merkle_capacity(n), r0, &m0), BK_OK);
        memcpy(leaves + 32 * n, leaves + 32 * (n - dup), 32 * dup);
        memcpy(work, leaves, 32 * (n + dup));
        CHECK_EQ_INT(bk_merkle_root(work, n + dup, bk_merkle_capacity(n + dup), r1, &m1), BK_OK);
        CHECK_MEM(r0, r1, 32);
        CHECK_EQ_INT(m0, 0);
        CHECK_EQ_INT(m1, 1);
    }
    free(leaves);
    free(work);
}

int main(void)
{
    RUN(every_count_through_chunks);
    RUN(planted_pairs_at_every_position);
    RUN(duplicated_tail_through_chunks);
    return check_finish();
}
