/* Fuzz the text parsers behind `ssz proof/verify --path` and `--gindex`:
 * bk_ssz_path_gindex (a dotted path of any length) against splitting the
 * text and calling bk_ssz_gindex on the elements (same status, same gindex),
 * and bk_ssz_gindex_parse against strtoull with the strict rules (digits
 * only, 1..2^64-1). A gindex the path gives is then proved on the type's
 * all-zero value when that value is valid. Input: a type selector byte, then
 * the text. No crash, no leak. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <blockkit/blockkit.h>
#include <blockkit/ssz.h>

#include "fuzz_ssz_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bk_ssz_registry *reg;
static bk_ssz_hasher *hasher;
static const bk_ssz_type *types[FUZZ_SSZ_NTYPES];

static void check_gindex_parse(const char *s, size_t n)
{
    uint64_t g = 7;
    bk_status st = bk_ssz_gindex_parse(s, n, &g, NULL);
    int ok = n > 0;
    for (size_t i = 0; ok && i < n; i++) ok = s[i] >= '0' && s[i] <= '9';
    unsigned long long v = 0;
    if (ok) {
        char *buf = malloc(n + 1);
        if (!buf) abort();
        memcpy(buf, s, n);
        buf[n] = 0;
        errno = 0;
        v = strtoull(buf, NULL, 10);
        ok = errno == 0 && v != 0;
        free(buf);
    }
    if ((st == BK_OK) != ok) abort();
    if (ok && g != v) abort();
    if (!ok && g != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!reg) {
        if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&hasher, 0, NULL) != BK_OK) abort();
        for (size_t i = 0; i < FUZZ_SSZ_NTYPES; i++)
            if (bk_ssz_type_parse(reg, fuzz_ssz_types[i], &types[i], NULL) != BK_OK) abort();
    }
    if (size < 1) return 0;
    const bk_ssz_type *t = types[data[0] % FUZZ_SSZ_NTYPES];
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    check_gindex_parse(text, n);

    uint64_t g = 0;
    bk_error err;
    bk_status st = bk_ssz_path_gindex(t, text, n, &g, &err);
    if (st == BK_OK && g == 0) abort();
    if (st != BK_OK && (err.offset > n || g != 0)) abort();

    /* The reference: split at dots (NUL-free text only: the array form
     * takes NUL-terminated elements). */
    if (!memchr(text, 0, n)) {
        char *copy = malloc(n + 1);
        const char **elems = malloc((n + 2) * sizeof *elems);   /* n dots: n + 1 elements */
        if (!copy || !elems) abort();
        memcpy(copy, text, n);
        copy[n] = 0;
        size_t ne = 0;
        int empty = 0;
        if (n) {
            for (char *p = copy;;) {
                char *dot = strchr(p, '.');
                if (dot) *dot = 0;
                if (!*p) empty = 1;
                elems[ne++] = p;
                if (!dot) break;
                p = dot + 1;
            }
        }
        uint64_t g2 = 0;
        bk_status st2 = bk_ssz_gindex(t, elems, ne, &g2, NULL);
        if (empty) {
            /* An empty element is refused by the path form; the array form
             * refuses it too (as a field or index), unless an earlier
             * element already failed or ended the path. */
            if (st == BK_OK) abort();
        } else {
            if (st != st2) abort();
            if (st == BK_OK && g != g2) abort();
        }
        free(elems);
        free(copy);
    }

    /* Prove the gindex on the all-zero value, when it is a valid value. */
    if (st == BK_OK) {
        uint64_t len = bk_ssz_min_size(t);
        if (len <= 4096) {
            uint8_t *zero = calloc(1, len ? len : 1);
            if (!zero) abort();
            if (bk_ssz_validate(t, zero, len, NULL) == BK_OK) {
                uint8_t leaf[32], branch[64][32], root[32];
                unsigned depth = 0;
                if (bk_ssz_prove(hasher, t, zero, len, g, leaf, branch, &depth, NULL) == BK_OK) {
                    if (bk_ssz_hash_tree_root(hasher, t, zero, len, root, NULL) != BK_OK) abort();
                    if (!bk_ssz_verify_branch(leaf, (const uint8_t(*)[32])branch, depth, g, root)) abort();
                }
            }
            free(zero);
        }
    }
    return 0;
}
