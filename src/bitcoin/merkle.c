/* Bitcoin merkle roots and branches, in place (include/blockkit/merkle.h).
 *
 * Core: src/consensus/merkle.cpp ComputeMerkleRoot hashes each level with
 * SHA256D64 in place after appending a copy of the last node when the level
 * is odd; with an exact-capacity vector that push_back reallocates. Here the
 * caller's buffer already holds the spare slot (bk_merkle_capacity), so a
 * level is: write the duplicate into the spare slot, hash the pairs into the
 * front of the buffer, repeat. */
#include <blockkit/merkle.h>

#include <string.h>

#include "merkle_internal.h"

/* Pairs fed to the hash engine per call while comparing for mutation: 64
 * pairs = 4 KiB of input, read once by the compare and once by the hash
 * while still in L1. */
#define MERKLE_BATCH 64

/* 1 when the two 32-byte nodes at p and p + 32 are equal. Branch-free: the
 * result is OR-ed into the level's flag. SSE2 (every x86-64) halves the
 * cost of the check against the 64-bit form (2.8 -> 1.1 ns per leaf). */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline int pair_equal(const uint8_t *p)
{
    __m128i a0 = _mm_loadu_si128((const __m128i *)p), a1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i b0 = _mm_loadu_si128((const __m128i *)(p + 32)), b1 = _mm_loadu_si128((const __m128i *)(p + 48));
    __m128i eq = _mm_and_si128(_mm_cmpeq_epi8(a0, b0), _mm_cmpeq_epi8(a1, b1));
    return _mm_movemask_epi8(eq) == 0xffff;
}
#else
static inline int pair_equal(const uint8_t *p)
{
    uint64_t a[4], b[4];
    memcpy(a, p, 32);
    memcpy(b, p + 32, 32);
    return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0;
}
#endif

/* Replace the m >= 1 nodes at buf by the (m + 1) / 2 nodes of the next
 * level, packed at the front (a single node is hashed with itself: the
 * chunked order's right edge). buf must hold m + 1 nodes when m is odd.
 * Returns 1 when check is set and some pair (2i, 2i + 1) of the original
 * nodes is equal (Core compares only real pairs, never the duplicate). */
static int hash_level(uint8_t *buf, size_t m, int check)
{
    size_t pairs = (m + 1) / 2;
    size_t real_pairs = m / 2;
    int mutated = 0;

    if (m & 1) memcpy(buf + 32 * m, buf + 32 * (m - 1), 32);
    if (!check) {
        bk_sha256d_64(buf, buf, pairs);
        return 0;
    }
    /* Batches start at multiples of MERKLE_BATCH pairs: the first hashes
     * with out == in, every later one writes below its input (out ends at
     * 32 * (i + B) <= 64 * i for i >= B), so the engine always sees either
     * identical or disjoint buffers, and no output overwrites an input that
     * is still to be read. */
    for (size_t i = 0; i < pairs; i += MERKLE_BATCH) {
        size_t cnt = pairs - i < MERKLE_BATCH ? pairs - i : MERKLE_BATCH;
        size_t cmp_end = i + cnt < real_pairs ? i + cnt : real_pairs;
        const uint8_t *in = buf + 64 * i;
        for (size_t j = i; j < cmp_end; j++) mutated |= pair_equal(buf + 64 * j);
        bk_sha256d_64(buf + 32 * i, in, cnt);
    }
    return mutated;
}

size_t bk_merkle_depth(size_t n)
{
    size_t d = 0;
    while (n > 1) {
        n = (n + 1) / 2;
        d++;
    }
    return d;
}

static bk_status check_capacity(size_t n, size_t capacity)
{
    if (capacity < n) return BK_ERR_BUFFER;
    if (n > 1 && (n & 1) && capacity == n) return BK_ERR_BUFFER;
    return BK_OK;
}

/* Hash the m >= 1 nodes at buf up `levels` levels; a single node is paired
 * with itself (the odd duplicate) until the target level. */
static int reduce_levels(uint8_t *buf, size_t m, unsigned levels, int check)
{
    int mutated = 0;
    for (unsigned j = 0; j < levels; j++, m = (m + 1) / 2) mutated |= hash_level(buf, m, check);
    return mutated;
}

/* Level by level until one node is left, in cache-sized pieces: while the
 * level has more than one chunk of nodes, each aligned chunk of
 * 2^BK_MERKLE_CHUNK_LOG2 nodes is reduced to its subtree root while it is
 * still in L1/L2, and the roots are packed at the front. Pairs (2i, 2i+1)
 * never straddle an aligned chunk, and the odd duplicate of a level is
 * always the last node of the last chunk, which is why a short last chunk
 * is paired with itself up to the chunk's height (as Core's
 * MerkleComputation sweeps the right edge): same hashes, same comparisons,
 * same result as the plain level-by-level order. */
static int reduce(uint8_t *buf, size_t m, int check)
{
    const size_t chunk = (size_t)1 << BK_MERKLE_CHUNK_LOG2;
    int mutated = 0;
    while (m > chunk) {
        size_t nchunks = (m + chunk - 1) / chunk;
        for (size_t c = 0; c < nchunks; c++) {
            size_t start = c * chunk, cnt = m - start < chunk ? m - start : chunk;
            mutated |= reduce_levels(buf + 32 * start, cnt, BK_MERKLE_CHUNK_LOG2, check);
            if (c) memcpy(buf + 32 * c, buf + 32 * start, 32);
        }
        m = nchunks;
    }
    for (; m > 1; m = (m + 1) / 2) mutated |= hash_level(buf, m, check);
    return mutated;
}

bk_status bk_merkle_root(uint8_t *leaves, size_t n, size_t capacity, uint8_t root_out[32], int *mutated_out)
{
    if (!root_out) return BK_ERR_ARG;
    if (n > 0 && !leaves) return BK_ERR_ARG;
    bk_status st = check_capacity(n, capacity);
    if (st != BK_OK) return st;

    int mutated = 0;
    if (n == 0) {
        /* Core: an empty list gives uint256() and mutated false. */
        memset(root_out, 0, 32);
    } else {
        mutated = reduce(leaves, n, mutated_out != NULL);
        memmove(root_out, leaves, 32);
    }
    if (mutated_out) *mutated_out = mutated;
    return BK_OK;
}

bk_status bk_merkle_branch(uint8_t *leaves, size_t n, size_t capacity, size_t index, uint8_t *branch_out,
                           size_t branch_len, size_t *depth_out, uint8_t root_out[32], int *mutated_out)
{
    if (index >= n || !leaves) return BK_ERR_ARG;
    bk_status st = check_capacity(n, capacity);
    if (st != BK_OK) return st;
    size_t depth = bk_merkle_depth(n);
    if (depth > 0 && !branch_out) return BK_ERR_ARG;
    if (branch_len / 32 < depth) return BK_ERR_BUFFER;

    int mutated = 0;
    size_t k = 0;
    for (size_t m = n; m > 1; m = (m + 1) / 2, k++) {
        /* Core: the sibling is the other node of the pair; at the end of an
         * odd level that is the duplicate, i.e. the node itself. */
        size_t sib = index ^ 1;
        if (sib >= m) sib = m - 1;
        memcpy(branch_out + 32 * k, leaves + 32 * sib, 32);
        mutated |= hash_level(leaves, m, mutated_out != NULL);
        index >>= 1;
    }
    if (depth_out) *depth_out = depth;
    if (root_out) memmove(root_out, leaves, 32);
    if (mutated_out) *mutated_out = mutated;
    return BK_OK;
}

void bk_merkle_root_from_branch(const uint8_t leaf[32], const uint8_t *branch, size_t depth, uint64_t index,
                                uint8_t root_out[32])
{
    /* Core: ComputeMerkleRootFromBranch. */
    uint8_t pair[64];
    memmove(pair, leaf, 32);
    for (size_t k = 0; k < depth; k++) {
        if (k < 64 && ((index >> k) & 1)) {
            memmove(pair + 32, pair, 32);
            memcpy(pair, branch + 32 * k, 32);
        } else {
            memcpy(pair + 32, branch + 32 * k, 32);
        }
        bk_sha256d_64(pair, pair, 1);
    }
    memcpy(root_out, pair, 32);
}

int bk_merkle_verify_branch(const uint8_t leaf[32], const uint8_t *branch, size_t depth, uint64_t index,
                            const uint8_t root[32])
{
    uint8_t r[32];
    bk_merkle_root_from_branch(leaf, branch, depth, index, r);
    return memcmp(r, root, 32) == 0;
}
