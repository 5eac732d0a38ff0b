/* Fuzz bk_merkle_root / bk_merkle_branch against a simple reference.
 *
 * Input: byte 0-1 = leaf count (mod 1200), byte 2 = number of distinct leaf
 * values (small values make equal pairs, i.e. mutations, frequent), byte 3-4
 * = branch index; the rest picks which value each leaf takes and seeds the
 * values. Checks: root and mutated equal the reference's (one array per
 * level, explicit duplication, one-shot SHA-256d), the capacity of n is
 * refused for odd n > 1, and the branch of the chosen index is the
 * reference tree's and verifies.
 *
 * merkle.c is compiled in here with a cache chunk of 8 leaves (the library
 * uses 4096) so that the chunked order is fuzzed on small trees too; the
 * code is the library's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BK_MERKLE_CHUNK_LOG2 3
#include "../src/bitcoin/merkle.c"

#define MAX_LEAVES 1200

static void ref_root(const uint8_t *leaves, size_t n, size_t index, uint8_t root[32], int *mutated,
                     uint8_t *branch, size_t *depth)
{
    *mutated = 0;
    *depth = 0;
    if (n == 0) {
        memset(root, 0, 32);
        return;
    }
    uint8_t *level = malloc(32 * (n + 1));
    memcpy(level, leaves, 32 * n);
    size_t size = n;
    while (size > 1) {
        for (size_t pos = 0; pos + 1 < size; pos += 2)
            if (!memcmp(level + 32 * pos, level + 32 * (pos + 1), 32)) *mutated = 1;
        if (size & 1) {
            memcpy(level + 32 * size, level + 32 * (size - 1), 32);
            size++;
        }
        memcpy(branch + 32 * (*depth)++, level + 32 * (index ^ 1), 32);
        uint8_t *next = malloc(32 * (size / 2 + 1));
        for (size_t i = 0; i < size / 2; i++) bk_sha256d(next + 32 * i, level + 64 * i, 64);
        free(level);
        level = next;
        size /= 2;
        index >>= 1;
    }
    memcpy(root, level, 32);
    free(level);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5) return 0;
    size_t n = (size_t)(data[0] | data[1] << 8) % (MAX_LEAVES + 1);
    size_t kinds = (size_t)data[2] + 1;
    size_t index = n ? (size_t)(data[3] | data[4] << 8) % n : 0;
    const uint8_t *rest = data + 5;
    size_t rest_len = size - 5;

    size_t cap = bk_merkle_capacity(n);
    uint8_t *leaves = malloc(32 * cap + 1), *work = malloc(32 * cap + 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t pick = rest_len ? rest[i % rest_len] : (uint8_t)i;
        size_t v = pick % kinds;
        for (size_t j = 0; j < 32; j++)
            leaves[32 * i + j] = (uint8_t)(v * 131 + j * 7 + (rest_len ? rest[(v + j) % rest_len] : 0));
    }

    uint8_t want[32], got[32], want_branch[32 * 12], branch[32 * 12];
    int want_mut, got_mut = -1;
    size_t want_depth, depth = 0;
    ref_root(leaves, n, index, want, &want_mut, want_branch, &want_depth);

    if (n) memcpy(work, leaves, 32 * n);
    if (bk_merkle_root(n ? work : NULL, n, cap, got, &got_mut) != BK_OK) abort();
    if (memcmp(want, got, 32) || want_mut != got_mut) abort();
    if (n) memcpy(work, leaves, 32 * n);
    if (bk_merkle_root(n ? work : NULL, n, cap, got, NULL) != BK_OK || memcmp(want, got, 32)) abort();

    if (n > 1 && (n & 1) && bk_merkle_root(work, n, n, got, NULL) != BK_ERR_BUFFER) abort();

    if (n) {
        memcpy(work, leaves, 32 * n);
        got_mut = -1;
        if (bk_merkle_branch(work, n, cap, index, branch, sizeof branch, &depth, got, &got_mut) != BK_OK) abort();
        if (depth != want_depth || depth != bk_merkle_depth(n) || memcmp(branch, want_branch, 32 * depth) ||
            memcmp(got, want, 32) || got_mut != want_mut)
            abort();
        if (!bk_merkle_verify_branch(leaves + 32 * index, branch, depth, index, want)) abort();
    }
    free(leaves);
    free(work);
    return 0;
}
