/* Fuzz the SSZ value JSON side: input = selector byte + JSON text. A value
 * that encodes must validate, decode back to JSON that encodes to the same
 * bytes. Also feeds the text to the schema loader and proof verifier. No
 * crash, no leak. */
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
    size_t n = size - 1;
    char *text = malloc(n ? n : 1);
    memcpy(text, data + 1, n);
    bk_writer w, w2, w3;
    bk_writer_init(&w, NULL);
    bk_writer_init(&w2, NULL);
    bk_writer_init(&w3, NULL);
    if (bk_ssz_from_json(t, text, n, &w, NULL, NULL) == BK_OK) {
        if (bk_ssz_validate(t, w.data, w.len, NULL) != BK_OK) abort();
        if (bk_ssz_to_json(t, w.data, w.len, &w2, NULL) != BK_OK) abort();
        if (bk_ssz_from_json(t, (const char *)w2.data, w2.len, &w3, NULL, NULL) != BK_OK) abort();
        if (w3.len != w.len || (w.len && memcmp(w3.data, w.data, w.len))) abort();
    }
    if (bk_ssz_proof_verify_json(hasher, text, n, NULL, 0, NULL, NULL) != BK_OK) { /* either answer */
    }
    /* A throwaway registry for schema text (types stay in it until freed). */
    bk_ssz_registry *r2;
    if (bk_ssz_registry_create(&r2, NULL) == BK_OK) {
        if (bk_ssz_registry_load_schema(r2, text, n, NULL) == BK_OK) {
            const bk_ssz_type *x;
            if (bk_ssz_type_parse(r2, "Container:A", &x, NULL) != BK_OK) { /* either answer */
            }
        }
        bk_ssz_registry_free(r2);
    }
    bk_writer_free(&w);
    bk_writer_free(&w2);
    bk_writer_free(&w3);
    free(text);
    return 0;
}
