/* Generalized indices and Merkle proofs over serialized SSZ values
 * (ethereum/consensus-specs ssz/merkle-proofs.md: get_generalized_index,
 * get_helper_indices, is_valid_merkle_branch, calculate_multi_merkle_root). */
#include "ssz_internal.h"

#include <blockkit/hex.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned floor_log2(uint64_t g)
{
    unsigned d = 0;
    while (g >>= 1) d++;
    return d;
}

static uint64_t pow2_ceil(uint64_t n)
{
    /* merkle-proofs.md get_power_of_two_ceil: 1 for 0 and 1. */
    uint64_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

static int parse_index(const char *s, size_t n, uint64_t *out)
{
    if (!n || (s[0] == '0' && n > 1)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        if (v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

bk_status bk_ssz_gindex_parse(const char *s, size_t len, uint64_t *g_out, bk_error *err)
{
    *g_out = 0;
    if (len == 0) return bk_error_set(err, BK_ERR_ARG, 0, "empty generalized index");
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return bk_error_set(err, BK_ERR_ARG, i, "a generalized index is a decimal number 1..2^64-1");
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return bk_error_set(err, BK_ERR_ARG, i, "generalized index over 2^64-1");
        v = v * 10 + d;
    }
    if (v == 0) return bk_error_set(err, BK_ERR_ARG, 0, "generalized index 0 (the root is 1)");
    *g_out = v;
    return BK_OK;
}

/* One path step from type *tp at gindex *root; element p[0..n), reported at
 * offset `at` (the element's number or its character offset). *tp becomes
 * NULL when nothing may follow (__len__, a bitfield chunk). */
static bk_status gindex_step(const bk_ssz_type **tp, uint64_t *rootp, const char *p, size_t n, uint64_t at,
                             bk_error *err)
{
    const bk_ssz_type *t = *tp;
    uint64_t root = *rootp;
    int len_elem = n == 7 && memcmp(p, "__len__", 7) == 0;
    if (bk_ssz_is_basic(t) || t->kind == BK_SSZ_NONE)
        return bk_error_set(err, BK_ERR_ARG, at, "path element \"%.*s\" goes below a basic type", (int)n, p);
    if (len_elem) {
        if (t->kind != BK_SSZ_LIST && t->kind != BK_SSZ_BITLIST)
            return bk_error_set(err, BK_ERR_ARG, at, "__len__ of a type that is not a list");
        if (root > (UINT64_MAX - 1) / 2) return bk_error_set(err, BK_ERR_OVERFLOW, at, "generalized index over 64 bits");
        *rootp = root * 2 + 1;
        *tp = NULL;
        return BK_OK;
    }
    uint64_t pos;
    const bk_ssz_type *next;
    if (t->kind == BK_SSZ_CONTAINER) {
        size_t i = 0;
        while (i < t->nfields && !(strlen(t->fields[i].name) == n && memcmp(t->fields[i].name, p, n) == 0)) i++;
        if (i == t->nfields)
            return bk_error_set(err, BK_ERR_NOT_FOUND, at, "Container:%s has no field \"%.*s\"", t->name, (int)n, p);
        pos = i;
        next = t->fields[i].type;
    } else if (t->kind == BK_SSZ_UNION && t->compatible) {
        /* EIP-8016: the value's root on the left (gindex 2), the selector
         * on the right (3), named as @chainsafe/ssz names them. The type
         * below "data" is the lowest selector's option (bk_ssz_gindex tries
         * the others when the rest of the path is not in it). */
        int is_sel = n == 8 && memcmp(p, "selector", 8) == 0;
        if (!is_sel && !(n == 4 && memcmp(p, "data", 4) == 0))
            return bk_error_set(err, BK_ERR_NOT_FOUND, at, "a CompatibleUnion has \"data\" and \"selector\", not \"%.*s\"",
                                (int)n, p);
        if (root > (UINT64_MAX - 1) / 2) return bk_error_set(err, BK_ERR_OVERFLOW, at, "generalized index over 64 bits");
        *rootp = root * 2 + (uint64_t)is_sel;
        size_t s = 1;
        while (!t->fields[s].type) s++;
        *tp = is_sel ? NULL : t->fields[s].type;
        return BK_OK;
    } else if (t->kind == BK_SSZ_UNION) {
        return bk_error_set(err, BK_ERR_ARG, at, "paths through a Union are not defined by the spec");
    } else {
        uint64_t idx;
        if (!parse_index(p, n, &idx)) return bk_error_set(err, BK_ERR_ARG, at, "\"%.*s\" is not an index", (int)n, p);
        if (idx >= t->length) return bk_error_set(err, BK_ERR_NOT_FOUND, at, "index %llu past the length %llu",
                                                  (unsigned long long)idx, (unsigned long long)t->length);
        if (t->kind == BK_SSZ_BITVECTOR || t->kind == BK_SSZ_BITLIST) {
            pos = idx / 256;
            next = NULL;
        } else if (bk_ssz_is_basic(t->elem)) {
            pos = idx * t->elem->size / 32;
            next = t->elem;
        } else {
            pos = idx;
            next = t->elem;
        }
    }
    if (t->kind == BK_SSZ_CONTAINER && t->progressive) pos = t->fields[pos].chunk;
    if (t->progressive) {
        /* The data tree is the left child (the length or the active fields
         * on the right), then the progressive path to the chunk. */
        uint64_t rel = bk_ssz_prog_chunk_gindex(pos), r;
        unsigned dr = rel ? floor_log2(rel) : 0;
        if (!rel || __builtin_mul_overflow(root, 2, &r) || dr >= 63 || r > (UINT64_MAX >> dr))
            return bk_error_set(err, BK_ERR_OVERFLOW, at, "generalized index over 64 bits");
        *rootp = (r << dr) | (rel & ((UINT64_C(1) << dr) - 1));
        *tp = next;
        return BK_OK;
    }
    uint64_t base = (t->kind == BK_SSZ_LIST || t->kind == BK_SSZ_BITLIST) ? 2 : 1;
    uint64_t width = pow2_ceil(t->chunk_count), r;
    if (__builtin_mul_overflow(root, base, &r) || __builtin_mul_overflow(r, width, &r) ||
        __builtin_add_overflow(r, pos, &r))
        return bk_error_set(err, BK_ERR_OVERFLOW, at, "generalized index over 64 bits");
    *rootp = r;
    *tp = next;
    return BK_OK;
}

/* A path: an array of elements (v) or a dotted text. */
typedef struct gpath {
    const char *const *v;
    size_t nv;
    const char *text;
    size_t len;
} gpath;

/* Element at cursor i ([*p, *p + *n), reported at *at: its number or its
 * character offset) and the cursor after it; 0 past the end. */
static int gpath_elem(const gpath *gp, size_t i, const char **p, size_t *n, uint64_t *at, size_t *next)
{
    if (gp->v) {
        if (i >= gp->nv) return 0;
        *p = gp->v[i];
        *n = strlen(*p);
        *at = i;
        *next = i + 1;
        return 1;
    }
    if (!gp->len || i > gp->len) return 0;
    size_t b = i;
    while (b < gp->len && gp->text[b] != '.') b++;
    *p = gp->text + i;
    *n = b - i;
    *at = i;
    *next = b + 1;
    return 1;
}

#define GINDEX_WORK_MAX 100000UL

/* The path from cursor i below type t at gindex root. Below a
 * CompatibleUnion's "data" the rest is resolved in each option in selector
 * order until one has it (compatible options give a field the same gindex
 * in every option that has it); *work bounds that search. */
static bk_status gindex_walk(const bk_ssz_type *t, uint64_t root, const gpath *gp, size_t i, uint64_t *out,
                             unsigned long *work, bk_error *err)
{
    const char *p;
    size_t n, next;
    uint64_t at;
    const char *why = NULL;
    while (gpath_elem(gp, i, &p, &n, &at, &next)) {
        if (!t) return bk_error_set(err, BK_ERR_ARG, at, "path continues %s", why);
        if (!gp->v && n == 0) return bk_error_set(err, BK_ERR_ARG, at, "empty path element");
        if (++*work > GINDEX_WORK_MAX)
            return bk_error_set(err, BK_ERR_NOT_FOUND, at, "path not resolved within %lu steps through unions",
                                GINDEX_WORK_MAX);
        const bk_ssz_type *u = t;
        bk_status st = gindex_step(&t, &root, p, n, at, err);
        if (st != BK_OK) return st;
        if (!t) {
            int is_len = n == 7 && memcmp(p, "__len__", 7) == 0;
            why = is_len ? "after __len__" : u->kind == BK_SSZ_UNION ? "after a CompatibleUnion selector"
                                                                       : "below a bitfield chunk";
        }
        const char *q;
        size_t qn, qnext;
        uint64_t qat;
        if (t && u->kind == BK_SSZ_UNION && u->compatible && gpath_elem(gp, next, &q, &qn, &qat, &qnext)) {
            bk_status first = BK_OK;
            for (size_t s = 1; s < u->nfields; s++) {
                if (!u->fields[s].type) continue;
                bk_error tmp;
                st = gindex_walk(u->fields[s].type, root, gp, next, out, work, first == BK_OK ? err : &tmp);
                if (st == BK_OK) return BK_OK;
                if (first == BK_OK) first = st;
                if (st != BK_ERR_NOT_FOUND || *work > GINDEX_WORK_MAX) break;
            }
            return first;
        }
        i = next;
    }
    *out = root;
    return BK_OK;
}

bk_status bk_ssz_gindex(const bk_ssz_type *t, const char *const *path, size_t npath, uint64_t *gindex_out,
                        bk_error *err)
{
    *gindex_out = 0;
    gpath gp = {path, npath, NULL, 0};
    unsigned long work = 0;
    return gindex_walk(t, 1, &gp, 0, gindex_out, &work, err);
}

bk_status bk_ssz_path_gindex(const bk_ssz_type *t, const char *path, size_t len, uint64_t *gindex_out,
                             bk_error *err)
{
    *gindex_out = 0;
    gpath gp = {NULL, 0, path, len};
    unsigned long work = 0;
    return gindex_walk(t, 1, &gp, 0, gindex_out, &work, err);
}

static bk_status node_rec(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t g,
                          uint8_t out[32], bk_error *err);

/* Node g (>= 2, depth dg) of a progressive type: the data tree on the left
 * (spine nodes on the right, subtree k on the left of spine node k), the
 * length or active-fields chunk on the right. */
static bk_status prog_node(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t g,
                           unsigned dg, uint8_t out[32], bk_error *err)
{
    uint64_t top = UINT64_C(1) << (dg - 1);
    if (g & top) {
        if (dg != 1) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a length chunk");
        memset(out, 0, 32);
        if (t->kind == BK_SSZ_CONTAINER) memcpy(out, t->active_fields, (t->active_bits + 7) / 8);
        else bk_store_le64(out, bk_ssz_elem_count(t, d, len));
        return BK_OK;
    }
    /* Walk the bits below the data root: 1 = along the spine, 0 = into a subtree. */
    int bit = (int)dg - 2;
    unsigned k = 0;
    while (bit >= 0 && ((g >> bit) & 1)) {
        k++;
        bit--;
        if (k > 32) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index past the progressive tree");
    }
    if (bit < 0) return bk_ssz_prog_spine(h, t, d, len, k, out, err);
    /* Past the data a spine node is one zero chunk: nothing hangs below it. */
    if (((UINT64_C(1) << (2 * k)) - 1) / 3 >= bk_ssz_prog_chunks(t, d, len))
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below the empty end of a progressive tree");
    bit--; /* the step into subtree k */
    unsigned sd = 2 * k;     /* subtree depth */
    unsigned rem = (unsigned)(bit + 1);
    uint64_t start = ((UINT64_C(1) << (2 * k)) - 1) / 3;
    uint64_t below = rem ? g & ((UINT64_C(1) << rem) - 1) : 0;
    if (rem == 0) return bk_ssz_prog_subtree(h, t, d, len, k, out, err);
    if (rem < sd) {
        /* An inner node of subtree k. */
        uint64_t lo = start + (below << (sd - rem));
        uint64_t total = bk_ssz_prog_chunks(t, d, len);
        if (lo >= total) {
            memcpy(out, bk_ssz_zero_hash(sd - rem), 32);
            return BK_OK;
        }
        if (t->kind == BK_SSZ_CONTAINER) {
            /* Positions lo .. lo + 2^(sd-rem): field roots or zero chunks. */
            uint8_t chunks[256 * 32];
            uint64_t n = (UINT64_C(1) << (sd - rem));
            if (lo + n > total) n = total - lo;
            for (uint64_t j = 0; j < n; j++) {
                memset(chunks + 32 * j, 0, 32);
                for (size_t f = 0; f < t->nfields; f++)
                    if (t->fields[f].chunk == lo + j) {
                        const uint8_t *p;
                        size_t pn;
                        bk_ssz_elem_span(t, d, len, f, &p, &pn);
                        bk_status st = bk_ssz_root_unchecked(h, t->fields[f].type, p, pn, chunks + 32 * j, err);
                        if (st != BK_OK) return st;
                    }
            }
            return bk_ssz_merkleize(h, chunks, n, UINT64_C(1) << (sd - rem), out, err);
        }
        return bk_ssz_subtree(h, t, d, len, lo, sd - rem, out, err);
    }
    /* A chunk (rem == sd), or below one (an element's own tree). */
    uint64_t pos = start + (below >> (rem - sd));
    uint64_t sub = (g & ((UINT64_C(1) << (rem - sd)) - 1)) | (UINT64_C(1) << (rem - sd));
    if (pos >= bk_ssz_prog_chunks(t, d, len)) {
        if (sub != 1) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a padding chunk");
        memset(out, 0, 32);
        return BK_OK;
    }
    if (t->kind == BK_SSZ_CONTAINER) {
        for (size_t f = 0; f < t->nfields; f++)
            if (t->fields[f].chunk == pos) {
                const uint8_t *p;
                size_t pn;
                bk_ssz_elem_span(t, d, len, f, &p, &pn);
                return node_rec(h, t->fields[f].type, p, pn, sub, out, err);
            }
        if (sub != 1) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below an inactive field");
        memset(out, 0, 32);
        return BK_OK;
    }
    if (sub == 1) return bk_ssz_chunk(h, t, d, len, pos, out, err);
    if (t->kind == BK_SSZ_BITLIST || bk_ssz_is_basic(t->elem))
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a packed chunk");
    const uint8_t *p;
    size_t pn;
    bk_ssz_elem_span(t, d, len, pos, &p, &pn);
    return node_rec(h, t->elem, p, pn, sub, out, err);
}

/* Node g (relative, >= 1) of the tree of validated data d of type t. */
static bk_status node_rec(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t g,
                          uint8_t out[32], bk_error *err)
{
    if (g == 1) return bk_ssz_root_unchecked(h, t, d, len, out, err);
    if (bk_ssz_is_basic(t) || t->kind == BK_SSZ_NONE)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a basic leaf");
    unsigned dg = floor_log2(g);
    if (t->progressive) return prog_node(h, t, d, len, g, dg, out, err);
    if (t->kind == BK_SSZ_LIST || t->kind == BK_SSZ_BITLIST || t->kind == BK_SSZ_UNION) {
        /* Root = hash(left, right): left the data tree / option root,
         * right the length / selector chunk. */
        uint64_t top = UINT64_C(1) << (dg - 1);
        int right = (g & top) != 0;
        uint64_t sub = (g & (top - 1)) | top;
        if (right) {
            if (sub != 1) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a length chunk");
            memset(out, 0, 32);
            if (t->kind == BK_SSZ_UNION) out[0] = d[0];
            else bk_store_le64(out, bk_ssz_elem_count(t, d, len));
            return BK_OK;
        }
        if (t->kind == BK_SSZ_UNION) return node_rec(h, t->fields[d[0]].type, d + 1, len - 1, sub, out, err);
        g = sub;
        if (g == 1) return bk_ssz_subtree(h, t, d, len, 0, t->depth, out, err);
        dg = floor_log2(g);
    }
    unsigned D = t->depth;
    if (dg < D) {
        uint64_t idx = g - (UINT64_C(1) << dg);
        return bk_ssz_subtree(h, t, d, len, idx << (D - dg), D - dg, out, err);
    }
    uint64_t i = (g >> (dg - D)) - (UINT64_C(1) << D);
    if (dg == D) return bk_ssz_chunk(h, t, d, len, i, out, err);
    if (t->kind == BK_SSZ_BITVECTOR || t->kind == BK_SSZ_BITLIST ||
        ((t->kind == BK_SSZ_VECTOR || t->kind == BK_SSZ_LIST) && bk_ssz_is_basic(t->elem)))
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a packed chunk");
    if (i >= bk_ssz_chunks(t, d, len))
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a padding chunk");
    uint64_t rest = dg - D;
    uint64_t sub = (g & ((UINT64_C(1) << rest) - 1)) | (UINT64_C(1) << rest);
    const uint8_t *p;
    size_t n;
    bk_ssz_elem_span(t, d, len, i, &p, &n);
    bk_status st = node_rec(h, t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem, p, n, sub, out, err);
    return st;
}

static bk_status with_hasher(bk_ssz_hasher **h, bk_ssz_hasher **own, bk_error *err)
{
    *own = NULL;
    if (*h) return BK_OK;
    bk_status st = bk_ssz_hasher_create(own, 0, NULL);
    if (st != BK_OK) return bk_error_set(err, st, 0, "out of memory");
    *h = *own;
    return BK_OK;
}

bk_status bk_ssz_node(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t len, uint64_t g,
                      uint8_t out[32], bk_error *err)
{
    if (g == 0) return bk_error_set(err, BK_ERR_ARG, 0, "generalized index 0");
    bk_status st = bk_ssz_validate(t, data, len, err);
    if (st != BK_OK) return st;
    static const uint8_t empty[1];
    if (!data) data = empty;
    bk_ssz_hasher *own;
    if ((st = with_hasher(&h, &own, err)) != BK_OK) return st;
    size_t mark = h->used;
    st = node_rec(h, t, data, len, g, out, err);
    h->used = mark;
    bk_ssz_hasher_free(own);
    return st;
}

bk_status bk_ssz_prove(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t len, uint64_t g,
                       uint8_t leaf_out[32], uint8_t (*branch_out)[32], unsigned *depth_out, bk_error *err)
{
    *depth_out = 0;
    if (g == 0) return bk_error_set(err, BK_ERR_ARG, 0, "generalized index 0");
    bk_status st = bk_ssz_validate(t, data, len, err);
    if (st != BK_OK) return st;
    static const uint8_t empty[1];
    if (!data) data = empty;
    bk_ssz_hasher *own;
    if ((st = with_hasher(&h, &own, err)) != BK_OK) return st;
    size_t mark = h->used;
    unsigned depth = floor_log2(g);
    st = node_rec(h, t, data, len, g, leaf_out, err);
    for (unsigned i = 0; st == BK_OK && i < depth; i++) st = node_rec(h, t, data, len, (g >> i) ^ 1, branch_out[i], err);
    h->used = mark;
    bk_ssz_hasher_free(own);
    if (st == BK_OK) *depth_out = depth;
    return st;
}

int bk_ssz_verify_branch(const uint8_t leaf[32], const uint8_t (*branch)[32], unsigned depth, uint64_t g,
                         const uint8_t root[32])
{
    if (g == 0 || depth > 63 || floor_log2(g) != depth) return 0;
    uint64_t index = g - (UINT64_C(1) << depth);
    uint8_t v[32];
    memcpy(v, leaf, 32);
    for (unsigned i = 0; i < depth; i++) {
        if ((index >> i) & 1) bk_ssz_hash_pair(v, branch[i], v);
        else bk_ssz_hash_pair(v, v, branch[i]);
    }
    return memcmp(v, root, 32) == 0;
}

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static size_t sort_unique_desc(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_desc);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

/* Helper indices into a scratch array; returns the count or SIZE_MAX. */
static bk_status helpers_scratch(bk_ssz_hasher *h, const uint64_t *indices, size_t n, uint64_t **out,
                                 size_t *count, bk_error *err)
{
    size_t room = (h->cap - h->used) / 8;
    if (n > room / 128) return bk_error_set(err, BK_ERR_BUFFER, 0, "too many indices for the hasher scratch");
    uint64_t *branch = (uint64_t *)(void *)(h->scratch + h->used);
    uint64_t *path = branch + 64 * n;
    size_t nb = 0, np = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t g = indices[i];
        if (g == 0) return bk_error_set(err, BK_ERR_ARG, 0, "generalized index 0");
        /* get_branch_indices / get_path_indices: every level below the root. */
        for (; g > 1; g >>= 1) {
            branch[nb++] = g ^ 1;
            path[np++] = g;
        }
    }
    nb = sort_unique_desc(branch, nb);
    np = sort_unique_desc(path, np);
    size_t m = 0, j = 0;
    for (size_t i = 0; i < nb; i++) {
        while (j < np && path[j] > branch[i]) j++;
        if (j < np && path[j] == branch[i]) continue;
        branch[m++] = branch[i];
    }
    *out = branch;
    *count = m;
    return BK_OK;
}

bk_status bk_ssz_helper_indices(bk_ssz_hasher *h, const uint64_t *indices, size_t n, uint64_t *helpers_out,
                                size_t cap, size_t *nhelpers_out, bk_error *err)
{
    *nhelpers_out = 0;
    bk_ssz_hasher *own;
    bk_status st;
    if ((st = with_hasher(&h, &own, err)) != BK_OK) return st;
    uint64_t *v;
    size_t m;
    st = helpers_scratch(h, indices, n, &v, &m, err);
    if (st == BK_OK) {
        *nhelpers_out = m;
        if (m > cap) st = bk_error_set(err, BK_ERR_BUFFER, 0, "%zu helper indices, room for %zu", m, cap);
        else memcpy(helpers_out, v, m * sizeof *v);
    }
    bk_ssz_hasher_free(own);
    return st;
}

typedef struct node_entry {
    uint64_t g;
    uint8_t v[32];
} node_entry;

static node_entry *find_node(node_entry *e, size_t n, uint64_t g)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].g == g) return &e[i];
    return NULL;
}

bk_status bk_ssz_multi_root(bk_ssz_hasher *h, const uint8_t (*leaves)[32], const uint64_t *indices, size_t n,
                            const uint8_t (*proof)[32], size_t nproof, uint8_t root_out[32], bk_error *err)
{
    bk_ssz_hasher *own;
    bk_status st;
    if ((st = with_hasher(&h, &own, err)) != BK_OK) return st;
    size_t mark = h->used;
    uint64_t *helpers;
    size_t nh;
    st = helpers_scratch(h, indices, n, &helpers, &nh, err);
    if (st != BK_OK) goto out;
    if (nh != nproof) {
        st = bk_error_set(err, BK_ERR_ARG, 0, "proof has %zu nodes, the indices need %zu", nproof, nh);
        goto out;
    }
    /* Keep the helpers, then the node table. */
    h->used += (nh * 8 + 31) & ~(size_t)31;
    size_t total = n + nh, cap = 2 * total + 1;
    node_entry *e = (node_entry *)(void *)bk_ssz_scratch_take(h, ((cap * sizeof(node_entry)) + 31) & ~(size_t)31);
    if (!e) {
        st = bk_error_set(err, BK_ERR_BUFFER, 0, "too many proof nodes for the hasher scratch");
        goto out;
    }
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        node_entry *x = find_node(e, ne, indices[i]);
        if (!x) x = &e[ne++];
        x->g = indices[i];
        memcpy(x->v, leaves[i], 32);
    }
    for (size_t i = 0; i < nh; i++) {
        node_entry *x = find_node(e, ne, helpers[i]);
        if (!x) x = &e[ne++];
        x->g = helpers[i];
        memcpy(x->v, proof[i], 32);
    }
    /* Keys in descending order, parents appended as they are made. */
    for (size_t i = 1; i < ne; i++)
        for (size_t j = i; j > 0 && e[j - 1].g < e[j].g; j--) {
            node_entry tmp = e[j];
            e[j] = e[j - 1];
            e[j - 1] = tmp;
        }
    for (size_t pos = 0; pos < ne; pos++) {
        uint64_t k = e[pos].g;
        if (k <= 1) continue;
        node_entry *sib = find_node(e, ne, k ^ 1);
        if (!sib || find_node(e, ne, k / 2)) continue;
        if (ne == cap) {
            st = bk_error_set(err, BK_ERR_BUFFER, 0, "proof node table full");
            goto out;
        }
        node_entry *l = (k & 1) ? sib : &e[pos], *r = (k & 1) ? &e[pos] : sib;
        uint8_t v[32];
        bk_ssz_hash_pair(v, l->v, r->v);
        e[ne].g = k / 2;
        memcpy(e[ne].v, v, 32);
        ne++;
    }
    node_entry *root = find_node(e, ne, 1);
    if (!root) st = bk_error_set(err, BK_ERR_INVALID, 0, "the proof does not reach the root");
    else memcpy(root_out, root->v, 32);
out:
    h->used = mark;
    bk_ssz_hasher_free(own);
    return st;
}

/* ---- proof documents ---- */

static void put_h32(bk_writer *w, const uint8_t v[32])
{
    char s[68] = {'"', '0', 'x'};
    bk_hex_encode(s + 3, v, 32);
    s[67] = '"';
    bk_writer_put(w, s, 68);
}

static void put_u64(bk_writer *w, uint64_t v)
{
    char s[24];
    int n = snprintf(s, sizeof s, "\"%llu\"", (unsigned long long)v);
    bk_writer_put(w, s, (size_t)n);
}

bk_status bk_ssz_proof_to_json(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t len,
                               const uint64_t *gindices, size_t n, bk_writer *w, bk_error *err)
{
    if (n == 0) return bk_error_set(err, BK_ERR_ARG, 0, "no generalized index");
    bk_status st = bk_ssz_validate(t, data, len, err);
    if (st != BK_OK) return st;
    static const uint8_t empty[1];
    if (!data) data = empty;
    bk_ssz_hasher *own;
    if ((st = with_hasher(&h, &own, err)) != BK_OK) return st;
    size_t mark = h->used;
    uint8_t root[32], v[32];
    st = bk_ssz_root_unchecked(h, t, data, len, root, err);
    if (st == BK_OK && n == 1) {
        uint64_t g = gindices[0];
        unsigned depth = floor_log2(g);
        st = g ? node_rec(h, t, data, len, g, v, err) : bk_error_set(err, BK_ERR_ARG, 0, "generalized index 0");
        if (st == BK_OK) {
            bk_writer_puts(w, "{\"gindex\":");
            put_u64(w, g);
            char s[32];
            snprintf(s, sizeof s, ",\"depth\":%u,\"leaf\":", depth);
            bk_writer_puts(w, s);
            put_h32(w, v);
            bk_writer_puts(w, ",\"branch\":[");
            for (unsigned i = 0; st == BK_OK && i < depth; i++) {
                st = node_rec(h, t, data, len, (g >> i) ^ 1, v, err);
                if (i) bk_writer_putc(w, ',');
                put_h32(w, v);
            }
            bk_writer_puts(w, "],\"root\":");
            put_h32(w, root);
            bk_writer_puts(w, "}");
        }
    } else if (st == BK_OK) {
        uint64_t *helpers;
        size_t nh;
        st = helpers_scratch(h, gindices, n, &helpers, &nh, err);
        if (st == BK_OK) {
            /* Keep the helpers out of the way of the node computations. */
            h->used += (nh * 8 + 31) & ~(size_t)31;
            bk_writer_puts(w, "{\"gindices\":[");
            for (size_t i = 0; i < n; i++) {
                if (i) bk_writer_putc(w, ',');
                put_u64(w, gindices[i]);
            }
            bk_writer_puts(w, "],\"helper_indices\":[");
            for (size_t i = 0; i < nh; i++) {
                if (i) bk_writer_putc(w, ',');
                put_u64(w, helpers[i]);
            }
            bk_writer_puts(w, "],\"leaves\":[");
            for (size_t i = 0; st == BK_OK && i < n; i++) {
                st = node_rec(h, t, data, len, gindices[i], v, err);
                if (i) bk_writer_putc(w, ',');
                put_h32(w, v);
            }
            bk_writer_puts(w, "],\"proof\":[");
            for (size_t i = 0; st == BK_OK && i < nh; i++) {
                st = node_rec(h, t, data, len, helpers[i], v, err);
                if (i) bk_writer_putc(w, ',');
                put_h32(w, v);
            }
            bk_writer_puts(w, "],\"root\":");
            put_h32(w, root);
            bk_writer_puts(w, "}");
        }
    }
    h->used = mark;
    bk_ssz_hasher_free(own);
    if (st == BK_OK && bk_writer_status(w) != BK_OK) st = bk_error_set(err, bk_writer_status(w), 0, "writer failed");
    return st;
}

static int json_h32(const bk_sjson *v, uint8_t out[32])
{
    if (!v || v->kind != BK_SJSON_STRING || v->len != 66 || v->str[0] != '0' || v->str[1] != 'x') return 0;
    return bk_hex_decode(out, v->str + 2, 32, NULL) == BK_OK;
}

static int json_u64(const bk_sjson *v, uint64_t *out)
{
    if (!v || (v->kind != BK_SJSON_STRING && v->kind != BK_SJSON_NUMBER)) return 0;
    char buf[24];
    if (v->len == 0 || v->len >= sizeof buf) return 0;
    memcpy(buf, v->str, v->len);
    buf[v->len] = 0;
    return parse_index(buf, strlen(buf), out);
}

/* Read an array of 32-byte hex nodes into scratch. */
static bk_status json_nodes(bk_ssz_hasher *h, const bk_sjson *a, uint8_t (**out)[32], bk_error *err)
{
    if (!a || a->kind != BK_SJSON_ARRAY) return bk_error_set(err, BK_ERR_INVALID, a ? a->off : 0, "expected an array of nodes");
    uint8_t(*v)[32] = (uint8_t(*)[32])(void *)bk_ssz_scratch_take(h, 32 * a->n);
    if (!v && a->n) return bk_error_set(err, BK_ERR_BUFFER, a->off, "too many nodes for the hasher scratch");
    size_t i = 0;
    for (const bk_sjson *c = a->child; c; c = c->next, i++)
        if (!json_h32(c, v[i])) return bk_error_set(err, BK_ERR_INVALID, c->off, "a node is \"0x\" + 64 hex digits");
    *out = v;
    return BK_OK;
}

bk_status bk_ssz_proof_verify_json(bk_ssz_hasher *h, const char *json, size_t len, const uint8_t *root,
                                   uint64_t gindex_want, const bk_allocator *alloc, bk_error *err)
{
    bk_arena a;
    bk_arena_init(&a, alloc);
    bk_sjson *doc;
    bk_ssz_hasher *own = NULL;
    /* Syntax first, without allocating: a document rejected at its last
     * byte costs no parse tree. */
    size_t nvalues = 0;
    bk_status st = bk_sjson_check(json, len, &nvalues, err);
    /* Every node, leaf and helper of a proof is a 66-character string, and
     * every gindex comes with a leaf: a real document has far fewer than one
     * JSON value per 16 bytes. More would only inflate the parse tree (80
     * bytes a value: finding 11), so it is refused before the tree exists. */
    if (st == BK_OK && nvalues > len / 16 + 64)
        st = bk_error_set(err, BK_ERR_INVALID, 0,
                          "proof document of %zu bytes holds %zu JSON values: more than one per 16 bytes", len, nvalues);
    if (st == BK_OK) st = bk_sjson_parse(&a, json, len, &doc, err);
    if (st != BK_OK) goto out;
    if ((st = with_hasher(&h, &own, err)) != BK_OK) goto out;
    size_t mark = h->used;
    uint8_t want[32], got[32];
    if (!root) {
        if (!json_h32(bk_sjson_get(doc, "root"), want)) {
            st = bk_error_set(err, BK_ERR_INVALID, doc->off, "no root given and none in the proof");
            goto done;
        }
        root = want;
    }
    const bk_sjson *gv = bk_sjson_get(doc, "gindex");
    if (gv) {
        uint64_t g;
        uint8_t leaf[32], (*branch)[32];
        const bk_sjson *bv = bk_sjson_get(doc, "branch");
        if (!json_u64(gv, &g) || g == 0) {
            st = bk_error_set(err, BK_ERR_INVALID, gv->off, "bad gindex");
            goto done;
        }
        if (!json_h32(bk_sjson_get(doc, "leaf"), leaf)) {
            st = bk_error_set(err, BK_ERR_INVALID, doc->off, "bad or missing leaf");
            goto done;
        }
        if ((st = json_nodes(h, bv, &branch, err)) != BK_OK) goto done;
        if (bv->n != floor_log2(g)) {
            st = bk_error_set(err, BK_ERR_MISMATCH, bv->off, "branch of %zu nodes for a gindex of depth %u", bv->n,
                              floor_log2(g));
            goto done;
        }
        if (gindex_want && g != gindex_want) {
            st = bk_error_set(err, BK_ERR_MISMATCH, gv->off, "proof is for gindex %llu, the path gives %llu",
                              (unsigned long long)g, (unsigned long long)gindex_want);
            goto done;
        }
        if (!bk_ssz_verify_branch(leaf, (const uint8_t(*)[32])branch, (unsigned)bv->n, g, root))
            st = bk_error_set(err, BK_ERR_MISMATCH, doc->off, "the branch does not prove the leaf against the root");
        goto done;
    }
    const bk_sjson *gs = bk_sjson_get(doc, "gindices");
    if (!gs || gs->kind != BK_SJSON_ARRAY || gs->n == 0) {
        st = bk_error_set(err, BK_ERR_INVALID, doc->off, "a proof has \"gindex\" or \"gindices\"");
        goto done;
    }
    {
        uint64_t *g = (uint64_t *)(void *)bk_ssz_scratch_take(h, (8 * gs->n + 31) & ~(size_t)31);
        if (!g) {
            st = bk_error_set(err, BK_ERR_BUFFER, gs->off, "too many indices");
            goto done;
        }
        size_t i = 0;
        for (const bk_sjson *c = gs->child; c; c = c->next, i++)
            if (!json_u64(c, &g[i]) || g[i] == 0) {
                st = bk_error_set(err, BK_ERR_INVALID, c->off, "bad gindex");
                goto done;
            }
        uint8_t(*leaves)[32], (*proof)[32];
        const bk_sjson *lv = bk_sjson_get(doc, "leaves"), *pv = bk_sjson_get(doc, "proof");
        if ((st = json_nodes(h, lv, &leaves, err)) != BK_OK || (st = json_nodes(h, pv, &proof, err)) != BK_OK)
            goto done;
        if (lv->n != gs->n) {
            st = bk_error_set(err, BK_ERR_INVALID, lv->off, "%zu leaves for %zu indices", lv->n, gs->n);
            goto done;
        }
        st = bk_ssz_multi_root(h, (const uint8_t(*)[32])leaves, g, gs->n, (const uint8_t(*)[32])proof, pv->n, got, err);
        if (st == BK_ERR_ARG) {
            /* Copy first: formatting err->msg into itself overlaps. */
            char msg[BK_ERROR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err ? err->msg : "bad proof size");
            st = bk_error_set(err, BK_ERR_MISMATCH, pv->off, "%s", msg);
        }
        if (st == BK_OK && memcmp(got, root, 32) != 0)
            st = bk_error_set(err, BK_ERR_MISMATCH, doc->off, "the multiproof does not reach the root");
    }
done:
    h->used = mark;
out:
    bk_ssz_hasher_free(own);
    bk_arena_free(&a);
    return st;
}
