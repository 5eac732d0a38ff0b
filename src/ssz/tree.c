/* Incremental re-hashing: a cached tree over a value's bytes (bk_ssz_tree).
 *
 * The tree owns a copy of the serialization. For the top-level container
 * it keeps every field's root; for every field that is a list or vector of
 * CACHE_MIN_CHUNKS chunks or more at its limit (a BeaconState's validators,
 * balances, participation flags, inactivity scores, randao mixes, block and
 * state roots) it also keeps the data tree's levels: level 0 the element
 * roots (composite elements; packed basic values are their own chunks and
 * are read from the bytes), level k the 2^k-chunk subtree roots, up to the
 * one node that covers the data; above it the tree continues with zero
 * subtrees to the limit's depth, and lists mix in their length.
 *
 * An edit (bk_ssz_tree_set, bk_ssz_tree_append) writes the bytes and marks
 * the leaf it touched; bk_ssz_tree_root re-hashes only the marked leaves'
 * paths, a level at a time (the parents of all marked nodes of one level
 * in one bk_sha256_64 call), then the fields whose roots changed, then the
 * top container from its field roots. Fields that are not cached (small
 * ones; progressive lists) are re-hashed from their bytes when touched.
 *
 * Memory per cached element: 32 bytes at level 0 (composite elements only)
 * plus about 32 bytes of upper levels per leaf chunk; for a 2^20-validator
 * BeaconState about 64 bytes per validator for the registry and 16 bytes per
 * validator for balances and inactivity scores (packed four to a chunk),
 * plus the state's own bytes (121 + 8 + 1 + 1 + 8 per validator). */
#include "ssz_internal.h"

#include <stdlib.h>
#include <string.h>

#define CACHE_MIN_CHUNKS 256

typedef struct cfield {
    int cached;
    int packed;            /* leaves are the data's own chunks */
    uint64_t count;        /* leaf chunks of the data now */
    unsigned nlev;         /* levels stored: 0 .. nlev (nlev = ceil_log2(count)) */
    uint8_t *lev[65];      /* lev[k]: ceil(count / 2^k) nodes; lev[0] NULL when packed */
    uint64_t cap[65];      /* nodes allocated per level */
    uint64_t *dirty;       /* marked leaves (unsorted, may repeat) */
    size_t ndirty, capdirty;
    int all;               /* rebuild the whole field */
} cfield;

struct bk_ssz_tree {
    const bk_allocator *alloc;
    const bk_ssz_type *t;
    bk_writer buf;         /* the serialization */
    uint8_t *roots;        /* nfields * 32 */
    uint8_t *fdirty;       /* per field: its root must be recomputed */
    cfield *f;             /* per field */
    uint8_t root[32];
    int root_valid;
    /* The container's own levels over the field roots (not for a
     * ProgressiveContainer): tlev[k] has ceil(nfields / 2^k) nodes. */
    uint8_t *tlev[65];
    size_t tlev_n[65];
    int top_built;
    uint8_t *changed;      /* per field: root changed since the last root */
    uint8_t *msgs;         /* scratch: pairs of one level */
    size_t msgcap;         /* messages */
};

static unsigned ceil_log2_u64(uint64_t n)
{
    unsigned d = 0;
    while (d < 64 && (UINT64_C(1) << d) < n) d++;
    return d;
}

static int is_packed_seq(const bk_ssz_type *t)
{
    return (t->kind == BK_SSZ_VECTOR || t->kind == BK_SSZ_LIST) && bk_ssz_is_basic(t->elem);
}

/* Leaf chunks of a field's data now. */
static uint64_t leaf_count(const bk_ssz_type *ft, const uint8_t *p, size_t n)
{
    if (is_packed_seq(ft)) return (n + 31) / 32;
    return bk_ssz_elem_count(ft, p, n);
}

static void field_span(const bk_ssz_tree *tr, size_t i, const uint8_t **p, size_t *n)
{
    bk_ssz_elem_span(tr->t, tr->buf.data, tr->buf.len, i, p, n);
}

static uint8_t *take_msgs(bk_ssz_tree *tr, size_t n)
{
    if (n <= tr->msgcap) return tr->msgs;
    size_t cap = tr->msgcap ? tr->msgcap : 64;
    while (cap < n) cap *= 2;
    uint8_t *m = bk_realloc(tr->alloc, tr->msgs, 64 * tr->msgcap, 64 * cap);
    if (!m) return NULL;
    tr->msgs = m;
    tr->msgcap = cap;
    return m;
}

static int ensure_level(bk_ssz_tree *tr, cfield *c, unsigned k, uint64_t nodes)
{
    if (nodes <= c->cap[k] && c->lev[k]) return 1;
    uint64_t cap = c->cap[k] ? c->cap[k] : 1;
    while (cap < nodes) cap *= 2;
    uint8_t *p = bk_realloc(tr->alloc, c->lev[k], 32 * (size_t)c->cap[k], 32 * (size_t)cap);
    if (!p) return 0;
    c->lev[k] = p;
    c->cap[k] = cap;
    return 1;
}

/* Chunk i of a packed field (zero padded past the data). */
static void packed_leaf(const uint8_t *p, size_t n, uint64_t i, uint8_t out[32])
{
    size_t a = (size_t)(32 * i), b = a + 32 < n ? a + 32 : n;
    memset(out, 0, 32);
    if (a < b) memcpy(out, p + a, b - a);
}

/* Node k,i of a cached field (zero subtrees past the data). */
static const uint8_t *node_at(const cfield *c, const uint8_t *p, size_t n, unsigned k, uint64_t i, uint8_t tmp[32])
{
    uint64_t nodes = k >= 64 ? 1 : (c->count + (UINT64_C(1) << k) - 1) >> k;
    if (c->count == 0 || i >= nodes) return bk_ssz_zero_hash(k);
    if (k == 0 && c->packed) {
        packed_leaf(p, n, i, tmp);
        return tmp;
    }
    return c->lev[k] + 32 * (size_t)i;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sort the marked leaves d[0..nd), all below `count`: qsort for a few, an
 * LSD radix sort (11-bit digits, tmp of nd entries) for many (10,486
 * scattered balances: ~40 us instead of qsort's ~0.5 ms). */
#define RADIX_MIN 256
static void sort_leaves(uint64_t *d, size_t nd, uint64_t count, uint64_t *tmp)
{
    if (nd < RADIX_MIN || !tmp) {
        qsort(d, nd, sizeof *d, cmp_u64);
        return;
    }
    unsigned bits = ceil_log2_u64(count);
    uint64_t *src = d, *dst = tmp;
    for (unsigned shift = 0; shift < bits; shift += 11) {
        size_t cnt[2048 + 1];
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < nd; i++) cnt[((src[i] >> shift) & 2047) + 1]++;
        for (size_t b = 1; b <= 2048; b++) cnt[b] += cnt[b - 1];
        for (size_t i = 0; i < nd; i++) dst[cnt[(src[i] >> shift) & 2047]++] = src[i];
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != d) memcpy(d, src, nd * sizeof *d);
}

/* Nodes at level k of a field of `count` leaves. */
static uint64_t level_nodes(uint64_t count, unsigned k)
{
    return k >= 64 ? (count != 0) : (count + (UINT64_C(1) << k) - 1) >> k;
}

/* One marked leaf: its path up the stored levels as one dependent chain,
 * each digest written into the half of the next message it belongs to (the
 * sibling copied beside it) and stored on the way; the data node (level
 * nlev) is left in m[0..32). The siblings are prefetched first: none
 * depends on the chain, so their cache misses overlap instead of adding
 * up along it. */
static void refresh_path(cfield *c, const uint8_t *p, size_t n, uint64_t leaf, uint8_t m[64])
{
    unsigned nlev = c->nlev;
    uint8_t tmp[32];
    if (nlev == 0) {
        memcpy(m, node_at(c, p, n, 0, 0, tmp), 32);
        return;
    }
    for (unsigned k = 0; k < nlev; k++) {
        uint64_t sib = (leaf >> k) ^ 1;
        if (sib >= level_nodes(c->count, k)) continue;
        if (k == 0 && c->packed) {
            if (32 * sib < n) __builtin_prefetch(p + 32 * (size_t)sib);
        } else {
            __builtin_prefetch(c->lev[k] + 32 * (size_t)sib);
        }
    }
    uint8_t buf[2][64];
    uint8_t *x = buf[0];
    uint64_t i = leaf;
    memcpy(x + 32 * (i & 1), node_at(c, p, n, 0, i, tmp), 32);
    memcpy(x + 32 * (~i & 1), node_at(c, p, n, 0, i ^ 1, tmp), 32);
    for (unsigned k = 1; k <= nlev; k++) {
        i >>= 1;
        uint8_t *y = k == nlev ? m : x == buf[0] ? buf[1] : buf[0];
        uint8_t *o = y + 32 * (i & 1); /* i == 0 at the top */
        bk_ssz_sha64(o, x, 1);
        memcpy(c->lev[k] + 32 * (size_t)i, o, 32);
        if (k < nlev) memcpy(y + 32 * (~i & 1), node_at(c, p, n, k, i ^ 1, tmp), 32);
        x = y;
    }
}

/* The marked nodes' parents a level at a time (all of one level in one
 * bk_sha256_64 call, so several are in flight); d: the marked leaves,
 * sorted and unique (overwritten). */
static int refresh_levels(bk_ssz_tree *tr, cfield *c, const uint8_t *p, size_t n, uint64_t *d, size_t nd)
{
    uint64_t count = c->count;
    for (unsigned k = 1; k <= c->nlev && nd; k++) {
        size_t m = 0;
        for (size_t j = 0; j < nd; j++)
            if (m == 0 || d[m - 1] != d[j] / 2) d[m++] = d[j] / 2;
        nd = m;
        uint8_t *msgs = take_msgs(tr, nd);
        if (!msgs) return 0;
        uint8_t tmp[32];
        for (size_t j = 0; j < nd; j++) {
            memcpy(msgs + 64 * j, node_at(c, p, n, k - 1, 2 * d[j], tmp), 32);
            memcpy(msgs + 64 * j + 32, node_at(c, p, n, k - 1, 2 * d[j] + 1, tmp), 32);
        }
        uint8_t *out = c->lev[k];
        if (nd == level_nodes(count, k) && d[0] == 0) {
            bk_ssz_sha64(out, msgs, nd); /* the whole level: contiguous */
        } else {
            uint8_t *res = msgs; /* in place: digests packed at the front */
            bk_ssz_sha64(res, msgs, nd);
            for (size_t j = nd; j-- > 0;) memmove(out + 32 * (size_t)d[j], res + 32 * j, 32);
        }
    }
    return 1;
}

/* Recompute the level-0 roots of the marked composite elements, then every
 * marked path upwards, then the field root: the data node, zero subtrees to
 * the limit's depth, the length for lists (one chain, each digest written
 * where the next message wants it). Returns 0 on out-of-memory or a hashing
 * error. */
static int refresh_field(bk_ssz_tree *tr, bk_ssz_hasher *h, size_t fi, bk_error *err)
{
    cfield *c = &tr->f[fi];
    const bk_ssz_type *ft = tr->t->fields[fi].type;
    const uint8_t *p;
    size_t n;
    field_span(tr, fi, &p, &n);
    uint64_t count = leaf_count(ft, p, n);
    unsigned nlev = ceil_log2_u64(count);
    int rebuild = c->all;
    if (rebuild || count != c->count)
        for (unsigned k = c->packed ? 1 : 0; k <= nlev; k++) {
            uint64_t nodes = level_nodes(count, k);
            if (!ensure_level(tr, c, k, nodes ? nodes : 1))
                return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory"), 0;
        }
    c->count = count;
    c->nlev = nlev;
    /* The marked leaves at level 0, sorted and unique. */
    uint64_t *d = c->dirty;
    size_t nd = c->ndirty;
    if (rebuild) {
        if (count > c->capdirty) {
            uint64_t *nd2 = bk_realloc(tr->alloc, c->dirty, 8 * c->capdirty, 8 * (size_t)count);
            if (!nd2) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory"), 0;
            c->dirty = d = nd2;
            c->capdirty = (size_t)count;
        }
        for (uint64_t i = 0; i < count; i++) d[i] = i;
        nd = (size_t)count;
    } else {
        if (nd > 1) sort_leaves(d, nd, count, nd >= RADIX_MIN ? (uint64_t *)take_msgs(tr, (nd + 7) / 8) : NULL);
        size_t m = 0;
        for (size_t i = 0; i < nd; i++)
            if (d[i] < count && (m == 0 || d[m - 1] != d[i])) d[m++] = d[i];
        nd = m;
    }
    if (!c->packed) {
        for (size_t j = 0; j < nd; j++) {
            const uint8_t *ep;
            size_t en;
            bk_ssz_elem_span(ft, p, n, d[j], &ep, &en);
            bk_status st = bk_ssz_root_unchecked(h, ft->elem, ep, en, c->lev[0] + 32 * (size_t)d[j], err);
            if (st != BK_OK) {
                c->all = 1; /* the marks are spent: rebuild next time */
                return 0;
            }
        }
    }
    uint8_t m[64], tmp[32];
    if (nd == 1 && !rebuild) {
        refresh_path(c, p, n, d[0], m);
    } else {
        if (!refresh_levels(tr, c, p, n, d, nd)) {
            c->all = 1; /* the marks are spent: rebuild next time */
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory"), 0;
        }
        memcpy(m, node_at(c, p, n, nlev, 0, tmp), 32);
    }
    c->ndirty = 0;
    c->all = 0;
    if (count == 0) memcpy(m, bk_ssz_zero_hash(ft->depth), 32);
    else
        for (unsigned k = nlev; k < ft->depth; k++) {
            memcpy(m + 32, bk_ssz_zero_hash(k), 32);
            bk_ssz_sha64(m, m, 1);
        }
    if (ft->kind == BK_SSZ_LIST) {
        memset(m + 32, 0, 32);
        bk_store_le64(m + 32, bk_ssz_elem_count(ft, p, n));
        bk_ssz_sha64(m, m, 1);
    }
    memcpy(tr->roots + 32 * fi, m, 32);
    return 1;
}

/* Mark a leaf; without room to list it the whole field is rebuilt. */
static void mark(bk_ssz_tree *tr, cfield *c, uint64_t leaf)
{
    if (c->all) return;
    if (c->ndirty == c->capdirty) {
        size_t cap = c->capdirty ? 2 * c->capdirty : 16;
        uint64_t *d = bk_realloc(tr->alloc, c->dirty, 8 * c->capdirty, 8 * cap);
        if (!d) {
            c->all = 1;
            return;
        }
        c->dirty = d;
        c->capdirty = cap;
    }
    c->dirty[c->ndirty++] = leaf;
}

void bk_ssz_tree_free(bk_ssz_tree *tr)
{
    if (!tr) return;
    size_t nf = tr->t->nfields;
    for (size_t i = 0; tr->f && i < nf; i++) {
        cfield *c = &tr->f[i];
        for (unsigned k = 0; k < 65; k++) bk_free(tr->alloc, c->lev[k], 32 * (size_t)c->cap[k]);
        bk_free(tr->alloc, c->dirty, 8 * c->capdirty);
    }
    bk_free(tr->alloc, tr->f, nf * sizeof *tr->f);
    bk_free(tr->alloc, tr->roots, 32 * nf);
    bk_free(tr->alloc, tr->fdirty, nf);
    bk_free(tr->alloc, tr->changed, nf);
    for (unsigned k = 0; k < 65; k++) bk_free(tr->alloc, tr->tlev[k], 32 * tr->tlev_n[k]);
    bk_free(tr->alloc, tr->msgs, 64 * tr->msgcap);
    bk_writer_free(&tr->buf);
    bk_free(tr->alloc, tr, sizeof *tr);
}

bk_status bk_ssz_tree_create(bk_ssz_tree **out, const bk_ssz_type *t, const uint8_t *data, size_t len,
                             const bk_allocator *alloc, bk_error *err)
{
    *out = NULL;
    if (t->kind != BK_SSZ_CONTAINER)
        return bk_error_set(err, BK_ERR_ARG, 0, "a cached tree is built over a container");
    bk_status st = bk_ssz_validate(t, data, len, err);
    if (st != BK_OK) return st;
    bk_ssz_tree *tr = bk_alloc(alloc, sizeof *tr);
    if (!tr) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(tr, 0, sizeof *tr);
    tr->alloc = alloc;
    tr->t = t;
    bk_writer_init(&tr->buf, alloc);
    size_t nf = t->nfields;
    tr->roots = bk_alloc(alloc, 32 * nf);
    tr->fdirty = bk_alloc(alloc, nf);
    tr->changed = bk_alloc(alloc, nf);
    tr->f = bk_alloc(alloc, nf * sizeof *tr->f);
    if (tr->changed) memset(tr->changed, 1, nf);
    if (!t->progressive)
        for (unsigned k = 1; k <= t->depth && tr->changed; k++) {
            tr->tlev_n[k] = (nf + ((size_t)1 << k) - 1) >> k;
            tr->tlev[k] = bk_alloc(alloc, 32 * tr->tlev_n[k]);
            if (!tr->tlev[k]) {
                bk_ssz_tree_free(tr);
                return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            }
        }
    bk_writer_put(&tr->buf, data, len);
    if (!tr->roots || !tr->fdirty || !tr->changed || !tr->f || bk_writer_status(&tr->buf) != BK_OK) {
        bk_ssz_tree_free(tr);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    memset(tr->f, 0, nf * sizeof *tr->f);
    for (size_t i = 0; i < nf; i++) {
        const bk_ssz_type *ft = t->fields[i].type;
        cfield *c = &tr->f[i];
        c->cached = !ft->progressive && (ft->kind == BK_SSZ_VECTOR || ft->kind == BK_SSZ_LIST) &&
                    ft->chunk_count >= CACHE_MIN_CHUNKS;
        c->packed = c->cached && is_packed_seq(ft);
        c->all = 1;
        tr->fdirty[i] = 1;
    }
    *out = tr;
    return BK_OK;
}

bk_status bk_ssz_tree_root(bk_ssz_tree *tr, bk_ssz_hasher *h, uint8_t out[32], bk_error *err)
{
    if (tr->root_valid) {
        memcpy(out, tr->root, 32);
        return BK_OK;
    }
    const bk_ssz_type *t = tr->t;
    size_t mark_used = h->used;
    for (size_t i = 0; i < t->nfields; i++) {
        if (!tr->fdirty[i]) continue;
        if (tr->f[i].cached) {
            if (!refresh_field(tr, h, i, err)) {
                h->used = mark_used;
                return err ? err->status : BK_ERR_NOMEM;
            }
        } else {
            const uint8_t *p;
            size_t n;
            field_span(tr, i, &p, &n);
            bk_status st = bk_ssz_root_unchecked(h, t->fields[i].type, p, n, tr->roots + 32 * i, err);
            if (st != BK_OK) {
                h->used = mark_used;
                return st;
            }
        }
        tr->fdirty[i] = 0;
        tr->changed[i] = 1;
    }
    h->used = mark_used;
    /* The container from its field roots. */
    if (t->progressive) {
        /* Positions of the active-fields bitvector; progressive subtrees. */
        uint8_t pos[256 * 32];
        memset(pos, 0, 32 * (size_t)t->active_bits);
        for (size_t i = 0; i < t->nfields; i++) memcpy(pos + 32 * (size_t)t->fields[i].chunk, tr->roots + 32 * i, 32);
        uint8_t sub[34][32], acc[32] = {0};
        unsigned k = 0;
        for (uint64_t lo = 0, w = 1; lo < t->active_bits; lo += w, w <<= 2, k++) {
            uint64_t cnt = t->active_bits - lo < w ? t->active_bits - lo : w;
            bk_status st = bk_ssz_merkleize(h, pos + 32 * (size_t)lo, cnt, w, sub[k], err);
            if (st != BK_OK) return st;
        }
        while (k-- > 0) bk_ssz_hash_pair(acc, sub[k], acc);
        uint8_t bits[32] = {0};
        memcpy(bits, t->active_fields, (t->active_bits + 7) / 8);
        bk_ssz_hash_pair(tr->root, acc, bits);
    } else if (t->depth == 0) {
        memcpy(tr->root, tr->roots, 32);
    } else {
        /* Only the changed fields' paths through the container's levels:
         * changed[] (one flag per node, in place) marks a level's nodes
         * whose subtree changed; their parents are hashed in one call. */
        uint8_t *dirty = tr->changed;
        if (!tr->top_built) memset(dirty, 1, t->nfields);
        for (unsigned k = 1; k <= t->depth; k++) {
            size_t below = k == 1 ? t->nfields : tr->tlev_n[k - 1];
            const uint8_t *lower = k == 1 ? tr->roots : tr->tlev[k - 1];
            size_t nd = 0;
            for (size_t j = 0; j < tr->tlev_n[k]; j++) {
                dirty[j] = dirty[2 * j] | (2 * j + 1 < below ? dirty[2 * j + 1] : 0);
                nd += dirty[j];
            }
            if (nd == 0) break;
            uint8_t one[64], *msgs = nd == 1 ? one : take_msgs(tr, nd);
            if (!msgs) {
                tr->top_built = 0; /* the flags are spent: rebuild the levels next time */
                return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            }
            size_t m = 0;
            for (size_t j = 0; j < tr->tlev_n[k]; j++) {
                if (!dirty[j]) continue;
                memcpy(msgs + 64 * m, lower + 64 * j, 32);
                memcpy(msgs + 64 * m + 32, 2 * j + 1 < below ? lower + 32 * (2 * j + 1) : bk_ssz_zero_hash(k - 1),
                       32);
                m++;
            }
            if (nd == tr->tlev_n[k]) {
                bk_ssz_sha64(tr->tlev[k], msgs, nd);
            } else {
                bk_ssz_sha64(msgs, msgs, nd); /* digests packed at the front */
                m = 0;
                for (size_t j = 0; j < tr->tlev_n[k]; j++)
                    if (dirty[j]) memcpy(tr->tlev[k] + 32 * j, msgs + 32 * m++, 32);
            }
        }
        memcpy(tr->root, tr->tlev[t->depth], 32);
        tr->top_built = 1;
    }
    memset(tr->changed, 0, t->nfields);
    tr->root_valid = 1;
    memcpy(out, tr->root, 32);
    return BK_OK;
}

const uint8_t *bk_ssz_tree_bytes(const bk_ssz_tree *tr, size_t *len_out)
{
    *len_out = tr->buf.len;
    return tr->buf.data;
}

/* Resolve a path to the bytes of a fixed-size value: the top field, the
 * element of that field (for a cached field), and the span. */
static bk_status resolve(const bk_ssz_tree *tr, const char *const *path, size_t npath, size_t *field_out,
                         uint64_t *elem_out, int *has_elem, size_t *off_out, const bk_ssz_type **type_out,
                         bk_error *err)
{
    const bk_ssz_type *t = tr->t;
    const uint8_t *p = tr->buf.data;
    size_t n = tr->buf.len;
    *has_elem = 0;
    for (size_t k = 0; k < npath; k++) {
        const char *s = path[k];
        uint64_t i;
        if (t->kind == BK_SSZ_CONTAINER) {
            for (i = 0; i < t->nfields && strcmp(t->fields[i].name, s) != 0; i++) {}
            if (i == t->nfields) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no field \"%s\" in %s", s, t->name);
        } else if (t->kind == BK_SSZ_VECTOR || t->kind == BK_SSZ_LIST) {
            char *end;
            i = strtoull(s, &end, 10);
            if (!*s || *end) return bk_error_set(err, BK_ERR_ARG, 0, "path element \"%s\": expected an index", s);
            if (i >= bk_ssz_elem_count(t, p, n))
                return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "index %llu past the end (%llu elements)",
                                    (unsigned long long)i, (unsigned long long)bk_ssz_elem_count(t, p, n));
        } else if (t->kind == BK_SSZ_UNION && t->compatible) {
            /* The selected option's value (never cached: the field is re-hashed). */
            if (strcmp(s, "data") != 0)
                return bk_error_set(err, BK_ERR_ARG, 0, "path element \"%s\": below a CompatibleUnion only \"data\" "
                                    "can be set (the selector chooses the type)", s);
            t = t->fields[p[0]].type;
            p++;
            n--;
            continue;
        } else {
            return bk_error_set(err, BK_ERR_ARG, 0, "path element \"%s\" below a basic value or bitfield", s);
        }
        if (k == 0) *field_out = (size_t)i;
        if (k == 1) {
            *elem_out = i;
            *has_elem = 1;
        }
        const uint8_t *q;
        size_t m;
        bk_ssz_elem_span(t, p, n, i, &q, &m);
        t = t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem;
        p = q;
        n = m;
    }
    if (npath == 0) return bk_error_set(err, BK_ERR_ARG, 0, "an empty path");
    if (t->is_variable) return bk_error_set(err, BK_ERR_ARG, 0, "the path names a variable-size value");
    *off_out = (size_t)(p - tr->buf.data);
    *type_out = t;
    return BK_OK;
}

/* Write n validated bytes at off, inside field fi (element ei of it when
 * has_elem), and mark what they touched. */
static void commit(bk_ssz_tree *tr, size_t fi, int has_elem, uint64_t ei, size_t off, const uint8_t *value,
                   size_t n)
{
    memcpy(tr->buf.data + off, value, n);
    tr->fdirty[fi] = 1;
    tr->root_valid = 0;
    cfield *c = &tr->f[fi];
    if (!c->cached) return;
    if (!has_elem) {
        c->all = 1;
        return;
    }
    if (c->packed) {
        const uint8_t *p;
        size_t pn;
        field_span(tr, fi, &p, &pn);
        size_t rel = off - (size_t)(p - tr->buf.data);
        for (uint64_t leaf = rel / 32; leaf <= (rel + n - 1) / 32; leaf++) mark(tr, c, leaf);
    } else {
        mark(tr, c, ei);
    }
}

bk_status bk_ssz_tree_set(bk_ssz_tree *tr, const char *const *path, size_t npath, const uint8_t *value, size_t n,
                          bk_error *err)
{
    size_t fi = 0, off = 0;
    uint64_t ei = 0;
    int has_elem;
    const bk_ssz_type *vt = NULL;
    bk_status st = resolve(tr, path, npath, &fi, &ei, &has_elem, &off, &vt, err);
    if (st != BK_OK) return st;
    if (n != vt->fixed_size)
        return bk_error_set(err, BK_ERR_LENGTH, 0, "the value is %zu bytes, the path's type %llu", n,
                            (unsigned long long)vt->fixed_size);
    st = bk_ssz_validate(vt, value, n, err);
    if (st != BK_OK) return st;
    commit(tr, fi, has_elem, ei, off, value, n);
    return BK_OK;
}

bk_status bk_ssz_tree_field(const bk_ssz_tree *tr, const char *name, size_t *field_out, bk_error *err)
{
    const bk_ssz_type *t = tr->t;
    for (size_t i = 0; i < t->nfields; i++)
        if (strcmp(t->fields[i].name, name) == 0) {
            *field_out = i;
            return BK_OK;
        }
    return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no field \"%s\" in %s", name, t->name);
}

bk_status bk_ssz_tree_set_elem(bk_ssz_tree *tr, size_t field, uint64_t index, const uint8_t *value, size_t n,
                               bk_error *err)
{
    const bk_ssz_type *t = tr->t;
    if (field >= t->nfields)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no field %zu in %s (%zu fields)", field, t->name, t->nfields);
    const bk_ssz_type *ft = t->fields[field].type;
    if ((ft->kind != BK_SSZ_VECTOR && ft->kind != BK_SSZ_LIST) || ft->elem->is_variable)
        return bk_error_set(err, BK_ERR_ARG, 0, "%s is not a list or vector of fixed-size values",
                            t->fields[field].name);
    const bk_ssz_type *vt = ft->elem;
    if (n != vt->fixed_size)
        return bk_error_set(err, BK_ERR_LENGTH, 0, "the value is %zu bytes, an element of %s %llu", n,
                            t->fields[field].name, (unsigned long long)vt->fixed_size);
    const uint8_t *p;
    size_t pn;
    field_span(tr, field, &p, &pn);
    uint64_t count = pn / vt->fixed_size;
    if (index >= count)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "index %llu past the end (%llu elements)",
                            (unsigned long long)index, (unsigned long long)count);
    if (!vt->fixed_any) {
        bk_status st = bk_ssz_validate(vt, value, n, err);
        if (st != BK_OK) return st;
    }
    commit(tr, field, 1, index, (size_t)(p - tr->buf.data) + (size_t)index * n, value, n);
    return BK_OK;
}

bk_status bk_ssz_tree_append(bk_ssz_tree *tr, const char *field, const uint8_t *value, size_t n, bk_error *err)
{
    const bk_ssz_type *t = tr->t;
    size_t fi;
    for (fi = 0; fi < t->nfields && strcmp(t->fields[fi].name, field) != 0; fi++) {}
    if (fi == t->nfields) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no field \"%s\" in %s", field, t->name);
    const bk_ssz_type *ft = t->fields[fi].type;
    if (ft->kind != BK_SSZ_LIST || ft->elem->is_variable)
        return bk_error_set(err, BK_ERR_ARG, 0, "%s is not a list of fixed-size values", field);
    if (n != ft->elem->fixed_size)
        return bk_error_set(err, BK_ERR_LENGTH, 0, "the value is %zu bytes, an element of %s %llu", n, field,
                            (unsigned long long)ft->elem->fixed_size);
    bk_status st = bk_ssz_validate(ft->elem, value, n, err);
    if (st != BK_OK) return st;
    const uint8_t *p;
    size_t pn;
    field_span(tr, fi, &p, &pn);
    uint64_t count = bk_ssz_elem_count(ft, p, pn);
    if (count >= ft->length) return bk_error_set(err, BK_ERR_LENGTH, 0, "%s is full (limit %llu)", field,
                                                 (unsigned long long)ft->length);
    if (tr->buf.len + n > UINT32_MAX) return bk_error_set(err, BK_ERR_LENGTH, 0, "the value would pass 4 GiB");
    size_t at = (size_t)(p - tr->buf.data) + pn;
    /* Insert at the end of the field's bytes; later variable fields move. */
    if (bk_writer_reserve(&tr->buf, n) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memmove(tr->buf.data + at + n, tr->buf.data + at, tr->buf.len - at);
    memcpy(tr->buf.data + at, value, n);
    tr->buf.len += n;
    for (size_t j = fi + 1; j < t->nfields; j++)
        if (t->fields[j].type->is_variable) {
            uint8_t *o = tr->buf.data + t->fields[j].offset;
            bk_store_le32(o, bk_load_le32(o) + (uint32_t)n);
        }
    tr->fdirty[fi] = 1;
    tr->root_valid = 0;
    cfield *c = &tr->f[fi];
    if (c->cached) {
        if (c->packed) {
            size_t rel = pn;
            for (uint64_t leaf = rel / 32; leaf <= (rel + n - 1) / 32; leaf++) mark(tr, c, leaf);
        } else {
            mark(tr, c, count);
        }
    }
    return BK_OK;
}

/* ---- nodes and proofs from the cached tree ---- */

static unsigned log2_floor(uint64_t g)
{
    unsigned d = 0;
    while (g >> (d + 1)) d++;
    return d;
}

/* Node g (relative to field fi's root) of a cached list/vector field. */
static bk_status cached_field_node(bk_ssz_tree *tr, bk_ssz_hasher *h, size_t fi, uint64_t g, uint8_t out[32],
                                   bk_error *err)
{
    const bk_ssz_type *ft = tr->t->fields[fi].type;
    cfield *c = &tr->f[fi];
    const uint8_t *p;
    size_t n;
    field_span(tr, fi, &p, &n);
    if (g == 1) {
        memcpy(out, tr->roots + 32 * fi, 32);
        return BK_OK;
    }
    unsigned dg = log2_floor(g);
    if (ft->kind == BK_SSZ_LIST) {
        /* hash(data root, length): the length chunk on the right. */
        uint64_t top = UINT64_C(1) << (dg - 1);
        if (g & top) {
            if (dg != 1) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a length chunk");
            memset(out, 0, 32);
            bk_store_le64(out, bk_ssz_elem_count(ft, p, n));
            return BK_OK;
        }
        g = (g & (top - 1)) | top;
        dg--;
    }
    unsigned D = ft->depth;
    if (dg <= D) {
        unsigned height = D - dg;
        uint64_t idx = g - (UINT64_C(1) << dg);
        if (height <= c->nlev) {
            uint8_t tmp[32];
            memcpy(out, node_at(c, p, n, height, idx, tmp), 32);
            return BK_OK;
        }
        /* Above the data: the data node joined with zero subtrees, or zero. */
        if (idx != 0 || c->count == 0) {
            memcpy(out, bk_ssz_zero_hash(height), 32);
            return BK_OK;
        }
        uint8_t tmp[32];
        memcpy(out, node_at(c, p, n, c->nlev, 0, tmp), 32);
        for (unsigned k = c->nlev; k < height; k++) bk_ssz_hash_pair(out, out, bk_ssz_zero_hash(k));
        return BK_OK;
    }
    /* Below a leaf chunk: inside a composite element. */
    uint64_t i = (g >> (dg - D)) - (UINT64_C(1) << D);
    if (c->packed || i >= c->count)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a %s", c->packed ? "packed chunk" : "padding chunk");
    uint64_t rest = dg - D;
    uint64_t sub = (g & ((UINT64_C(1) << rest) - 1)) | (UINT64_C(1) << rest);
    const uint8_t *ep;
    size_t en;
    bk_ssz_elem_span(ft, p, n, i, &ep, &en);
    return bk_ssz_node(h, ft->elem, ep, en, sub, out, err);
}

/* Node g of the tree's value, from the cache where it holds it. */
static bk_status tree_node(bk_ssz_tree *tr, bk_ssz_hasher *h, uint64_t g, uint8_t out[32], bk_error *err)
{
    const bk_ssz_type *t = tr->t;
    if (g == 1) {
        memcpy(out, tr->root, 32);
        return BK_OK;
    }
    if (t->progressive) return bk_ssz_node(h, t, tr->buf.data, tr->buf.len, g, out, err);
    unsigned dg = log2_floor(g), D = t->depth;
    if (dg <= D) {
        unsigned height = D - dg;
        uint64_t idx = g - (UINT64_C(1) << dg);
        if (height == 0) {
            if (idx < t->nfields) memcpy(out, tr->roots + 32 * idx, 32);
            else memset(out, 0, 32);
        } else if (idx < tr->tlev_n[height]) {
            memcpy(out, tr->tlev[height] + 32 * idx, 32);
        } else {
            memcpy(out, bk_ssz_zero_hash(height), 32);
        }
        return BK_OK;
    }
    uint64_t fi = (g >> (dg - D)) - (UINT64_C(1) << D);
    if (fi >= t->nfields) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "generalized index below a padding chunk");
    uint64_t rest = dg - D;
    uint64_t sub = (g & ((UINT64_C(1) << rest) - 1)) | (UINT64_C(1) << rest);
    if (tr->f[fi].cached) return cached_field_node(tr, h, (size_t)fi, sub, out, err);
    const uint8_t *p;
    size_t n;
    field_span(tr, (size_t)fi, &p, &n);
    return bk_ssz_node(h, t->fields[fi].type, p, n, sub, out, err);
}

bk_status bk_ssz_tree_prove(bk_ssz_tree *tr, bk_ssz_hasher *h, uint64_t g, uint8_t leaf_out[32],
                            uint8_t (*branch_out)[32], unsigned *depth_out, bk_error *err)
{
    if (g == 0) return bk_error_set(err, BK_ERR_ARG, 0, "generalized index 0 (the root is 1)");
    uint8_t root[32];
    bk_status st = bk_ssz_tree_root(tr, h, root, err);
    if (st != BK_OK) return st;
    unsigned depth = log2_floor(g);
    if (depth > 64) return bk_error_set(err, BK_ERR_ARG, 0, "generalized index too deep");
    st = tree_node(tr, h, g, leaf_out, err);
    for (unsigned k = 0; k < depth && st == BK_OK; k++) st = tree_node(tr, h, (g >> k) ^ 1, branch_out[k], err);
    if (st == BK_OK) *depth_out = depth;
    return st;
}
