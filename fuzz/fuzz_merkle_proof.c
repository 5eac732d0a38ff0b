/* Fuzz the partial merkle tree code (include/blockkit/merkle.h): the
 * CMerkleBlock parser and match extraction that `proof verify` runs on
 * user input, and the builder.
 *
 * Byte 0 chooses the mode.
 *   even: the rest is a serialized CMerkleBlock. A parse that fails names an
 *         offset inside the input; a parsed proof lies within the input;
 *         extraction never writes more matches than the proof has hashes,
 *         returns positions that rise and lie below the transaction count,
 *         and, when it accepts, says no reason.
 *   odd:  the rest is leaves (32 bytes each, up to 64) followed by one
 *         match byte per leaf. The built proof parses back whole, extracts
 *         to the merkle root of the leaves (bk_merkle_root) unless the tree
 *         is mutated (two equal siblings), and its matches are exactly the
 *         chosen leaves in order. */
#include <blockkit/merkle.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_proof(const uint8_t *data, size_t size)
{
    bk_merkle_proof p;
    bk_error err;
    if (bk_merkle_proof_parse(data, size, &p, &err) != BK_OK) {
        if (err.offset > size) abort();
        return;
    }
    if (p.size > size || p.n_hashes > size / 32 || p.n_flag_bytes > size) abort();
    size_t cap = p.n_hashes ? p.n_hashes : 1;
    uint8_t *m = malloc(32 * cap);
    uint32_t *idx = malloc(sizeof *idx * cap);
    if (!m || !idx) abort();
    uint8_t root[32];
    size_t nm = SIZE_MAX;
    const char *why = NULL;
    int ok = bk_merkle_proof_extract(&p, m, idx, &nm, root, &why);
    if (nm > p.n_hashes) abort();
    if (ok) {
        if (why) abort();
        for (size_t i = 0; i < nm; i++)
            if (idx[i] >= p.n_tx || (i && idx[i] <= idx[i - 1])) abort();
    } else if (!why) {
        abort();
    }
    free(idx);
    free(m);
}

static void check_build(const uint8_t *data, size_t size)
{
    size_t n = size / 33;
    if (n > 64) n = 64;
    if (n == 0) return;
    const uint8_t *leaves = data, *match = data + 32 * n;
    uint8_t hdr[80], root[32], tmp[65 * 32];
    memset(hdr, 0, sizeof hdr);
    memcpy(tmp, leaves, 32 * n);
    int mutated = 0;
    if (bk_merkle_root(tmp, n, bk_merkle_capacity(n), root, &mutated) != BK_OK) abort();
    memcpy(hdr + 36, root, 32);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_error err;
    if (bk_merkle_proof_build(hdr, leaves, n, match, NULL, &w, &err) != BK_OK) abort();
    bk_merkle_proof p;
    if (bk_merkle_proof_parse(w.data, w.len, &p, &err) != BK_OK || p.size != w.len || p.n_tx != n) abort();
    uint8_t m[64 * 32], r[32];
    uint32_t idx[64];
    size_t nm = 0;
    const char *why = NULL;
    int ok = bk_merkle_proof_extract(&p, m, idx, &nm, r, &why);
    if (ok) {
        if (memcmp(r, root, 32) != 0) abort();
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (match[i]) {
                if (k >= nm || idx[k] != i || memcmp(m + 32 * k, leaves + 32 * i, 32) != 0) abort();
                k++;
            }
        if (k != nm) abort();
    } else if (!mutated) {
        /* equal siblings inside a subtree of unmatched leaves are hashed
         * away; only a walk that meets them refuses, and then the tree has
         * two equal hashes at some level */
        int equal = 0;
        for (size_t i = 0; i + 1 < n && !equal; i++)
            for (size_t k = i + 1; k < n && !equal; k++) equal = !memcmp(leaves + 32 * i, leaves + 32 * k, 32);
        if (!equal) abort();
    }
    bk_writer_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    if (data[0] & 1) check_build(data + 1, size - 1);
    else check_proof(data + 1, size - 1);
    return 0;
}
