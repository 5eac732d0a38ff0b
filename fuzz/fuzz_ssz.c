/* Fuzz SSZ decoding: input = selector byte + serialized bytes. Whatever
 * validates must hash, convert to value JSON and back to the same bytes,
 * and answer node queries; whatever does not must be refused everywhere.
 * No crash, no out-of-bounds read, no leak. */
#include <stdlib.h>
#include <string.h>

#include <blockkit/blockkit.h>
#include <blockkit/ssz.h>

#include "fuzz_ssz_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bk_ssz_registry *reg;
static bk_ssz_hasher *hasher;
static const bk_ssz_type *types[FUZZ_SSZ_NTYPES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!reg) {
        if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&hasher, 0, NULL) != BK_OK) abort();
        for (size_t i = 0; i < FUZZ_SSZ_NTYPES; i++)
            if (bk_ssz_type_parse(reg, fuzz_ssz_types[i], &types[i], NULL) != BK_OK) abort();
    }
    if (size < 1) return 0;
    const bk_ssz_type *t = types[data[0] % FUZZ_SSZ_NTYPES];
    /* Copy so that a read past the end hits ASan's redzone. */
    size_t n = size - 1;
    uint8_t *buf = malloc(n ? n : 1);
    memcpy(buf, data + 1, n);
    bk_error err;
    uint8_t root[32], root2[32];
    bk_status st = bk_ssz_validate(t, buf, n, &err);
    bk_status hst = bk_ssz_hash_tree_root(hasher, t, buf, n, root, NULL);
    if ((st == BK_OK) != (hst == BK_OK)) abort();
    bk_writer w, w2;
    bk_writer_init(&w, NULL);
    bk_writer_init(&w2, NULL);
    bk_status jst = bk_ssz_to_json(t, buf, n, &w, NULL);
    if ((st == BK_OK) != (jst == BK_OK)) abort();
    if (st == BK_OK) {
        if (bk_ssz_from_json(t, (const char *)w.data, w.len, &w2, NULL, &err) != BK_OK) abort();
        if (w2.len != n || (n && memcmp(w2.data, buf, n))) abort();
        if (bk_ssz_hash_tree_root(hasher, t, w2.data, w2.len, root2, NULL) != BK_OK) abort();
        if (memcmp(root, root2, 32)) abort();
        /* The root is node 1; any other node either exists or is refused. */
        uint8_t node[32];
        if (bk_ssz_node(hasher, t, buf, n, 1, node, NULL) != BK_OK || memcmp(node, root, 32)) abort();
        uint64_t g = 2 + (n ? buf[n - 1] : 0) * 7u + (n > 1 ? buf[0] : 0);
        uint8_t leaf[32], branch[64][32];
        unsigned depth;
        if (bk_ssz_prove(hasher, t, buf, n, g, leaf, branch, &depth, NULL) == BK_OK &&
            !bk_ssz_verify_branch(leaf, (const uint8_t(*)[32])branch, depth, g, root))
            abort();
    }
    bk_writer_free(&w);
    bk_writer_free(&w2);
    free(buf);
    return 0;
}
