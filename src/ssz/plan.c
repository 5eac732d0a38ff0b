/* Hashing plans for small fixed-size SSZ types. The tree of a fixed-size
 * type does not depend on the data: leaves are byte ranges of the input (or
 * zero hashes for padding), internal nodes are pairs. Compiled once, nodes
 * are grouped by level so that every pair of one level -- across all
 * fields -- goes through one bk_sha256_64 call (DepositData: 2, 2, 2, 1
 * messages instead of 7 dependent single hashes). */
#include "ssz_internal.h"

#include <string.h>

#define PLAN_MAX_NODES 2048

typedef struct builder {
    bk_ssz_pnode *nodes;    /* NULL while counting */
    uint32_t *height;
    uint32_t n;
    const bk_allocator *alloc;
    int fail;
    uint32_t nv;            /* VCHUNK slots used */
    uint8_t *mode;          /* top-level field modes (build pass only) */
    uint32_t *fbase;
} builder;

static int foldable(const bk_ssz_type *f)
{
    return (f->kind == BK_SSZ_BITLIST || (f->kind == BK_SSZ_LIST && bk_ssz_is_basic(f->elem))) &&
           f->chunk_count <= BK_SSZ_FOLD_MAX_CHUNKS;
}

static uint32_t ref_height(const builder *b, bk_ssz_pref r)
{
    return r.kind == BK_SSZ_PREF_NODE && b->height ? b->height[r.v] : 0;
}

static bk_ssz_pref add_node(builder *b, bk_ssz_pref l, bk_ssz_pref r)
{
    bk_ssz_pref out = {BK_SSZ_PREF_NODE, 0, b->n};
    if (b->nodes) {
        b->nodes[b->n].l = l;
        b->nodes[b->n].r = r;
        uint32_t hl = ref_height(b, l), hr = ref_height(b, r);
        b->height[b->n] = 1 + (hl > hr ? hl : hr);
    }
    b->n++;
    if (b->n > PLAN_MAX_NODES) b->fail = 1;
    return out;
}

/* merkleize(refs[0..n), 2^depth) of the spec, as plan nodes. refs is
 * reused in place level by level. */
static bk_ssz_pref merkle(builder *b, bk_ssz_pref *refs, uint64_t n, unsigned depth)
{
    if (n == 0) return (bk_ssz_pref){BK_SSZ_PREF_ZERO, 0, depth};
    for (unsigned level = 0; level < depth; level++) {
        uint64_t m = 0;
        for (uint64_t i = 0; i < n; i += 2) {
            bk_ssz_pref r = i + 1 < n ? refs[i + 1] : (bk_ssz_pref){BK_SSZ_PREF_ZERO, 0, level};
            refs[m++] = add_node(b, refs[i], r);
            if (b->fail) return refs[0];
        }
        n = m;
    }
    return refs[0];
}

static bk_ssz_pref merkle(builder *b, bk_ssz_pref *refs, uint64_t n, unsigned depth);

/* A folded field: merkleize its chunk slots to the limit's depth, then mix
 * in the length slot. */
static bk_ssz_pref build_folded(builder *b, const bk_ssz_type *f, uint32_t base)
{
    bk_ssz_pref refs[BK_SSZ_FOLD_MAX_CHUNKS + 1];
    uint64_t n = f->chunk_count;
    for (uint64_t j = 0; j < n; j++) refs[j] = (bk_ssz_pref){BK_SSZ_PREF_VCHUNK, 0, (uint32_t)(base + j)};
    bk_ssz_pref data = merkle(b, refs, n, f->depth);
    return add_node(b, data, (bk_ssz_pref){BK_SSZ_PREF_VCHUNK, 0, (uint32_t)(base + n)});
}

static bk_ssz_pref build(builder *b, const bk_ssz_type *t, uint64_t off)
{
    bk_ssz_pref leaf = {BK_SSZ_PREF_LEAF, 32, (uint32_t)off};
    if (t->kind == BK_SSZ_UINT || t->kind == BK_SSZ_BOOL) {
        leaf.len = (uint8_t)t->size;
        return leaf;
    }
    if (t->progressive) {
        /* A progressive tree is hashed by hash.c, never inlined in a plan. */
        b->fail = 1;
        return leaf;
    }
    uint64_t n = t->chunk_count;
    bk_ssz_pref *refs = bk_alloc(b->alloc, (size_t)(n ? n : 1) * sizeof *refs);
    if (!refs) {
        b->fail = 1;
        return leaf;
    }
    if (t->kind == BK_SSZ_BITVECTOR || bk_ssz_is_basic(t->elem ? t->elem : t)) {
        /* Packed bytes: chunk i is bytes [32i, 32i+32) of the value. */
        for (uint64_t i = 0; i < n; i++) {
            uint64_t rem = t->fixed_size - 32 * i;
            refs[i] = (bk_ssz_pref){BK_SSZ_PREF_LEAF, (uint8_t)(rem < 32 ? rem : 32), (uint32_t)(off + 32 * i)};
        }
    } else if (t->kind == BK_SSZ_CONTAINER) {
        /* Only the top-level container may be variable-size (below it every
         * offset would depend on the data): its variable fields are EXT. */
        for (uint64_t i = 0; i < n && !b->fail; i++) {
            const bk_ssz_type *f = t->fields[i].type;
            uint8_t mode = !f->is_variable ? BK_SSZ_FIELD_FIXED : foldable(f) ? BK_SSZ_FIELD_FOLDED : BK_SSZ_FIELD_EXT;
            if (b->mode && t->is_variable) b->mode[i] = mode;   /* the top level only */
            if (mode == BK_SSZ_FIELD_FIXED) {
                refs[i] = build(b, f, off + t->fields[i].offset);
            } else if (mode == BK_SSZ_FIELD_EXT) {
                refs[i] = (bk_ssz_pref){BK_SSZ_PREF_EXT, 0, (uint32_t)i};
            } else {
                if (b->fbase) b->fbase[i] = b->nv;
                uint32_t base = b->nv;
                b->nv += (uint32_t)f->chunk_count + 1;
                refs[i] = build_folded(b, f, base);
            }
        }
    } else {
        for (uint64_t i = 0; i < n && !b->fail; i++) refs[i] = build(b, t->elem, off + i * t->elem->fixed_size);
    }
    bk_ssz_pref r = b->fail ? leaf : merkle(b, refs, n, t->depth);
    bk_free(b->alloc, refs, (size_t)(n ? n : 1) * sizeof *refs);
    return r;
}

/* Reassign levels (initially the height, i.e. as soon as possible) to
 * balance the batches: SHA-NI hashes two messages in the time of one, so a
 * batch of 3 costs as much as 4. Each level first takes the nodes that
 * cannot wait (as late as possible == this level, keeping the critical
 * path); an odd batch then takes one more ready node, the most urgent.
 * DepositData: 3,2,1,1 messages become 2,2,2,1 (one round fewer). */
static int balance_levels(const bk_ssz_pnode *nodes, uint32_t *level, uint32_t n, uint32_t root, uint32_t L,
                          const bk_allocator *alloc)
{
    uint32_t *alap = bk_alloc(alloc, n * sizeof *alap), *asap = bk_alloc(alloc, n * sizeof *asap);
    if (!alap || !asap) {
        bk_free(alloc, alap, n * sizeof *alap);
        bk_free(alloc, asap, n * sizeof *asap);
        return 0;
    }
    memcpy(asap, level, n * sizeof *asap);
    /* Children are built before their parent: walk down from the root. */
    for (uint32_t i = 0; i < n; i++) alap[i] = 0;
    alap[root] = L;
    for (uint32_t i = n; i-- > 0;) {
        const bk_ssz_pref *c[2] = {&nodes[i].l, &nodes[i].r};
        for (int k = 0; k < 2; k++)
            if (c[k]->kind == BK_SSZ_PREF_NODE) alap[c[k]->v] = alap[i] - 1;
    }
    for (uint32_t i = 0; i < n; i++) level[i] = 0;
    for (uint32_t l = 1; l <= L; l++) {
        uint32_t cnt = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!level[i] && alap[i] == l) {
                level[i] = l;
                cnt++;
            }
        if (!(cnt & 1)) continue;
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            if (level[i] || asap[i] > l) continue;
            int ready = 1;
            const bk_ssz_pref *c[2] = {&nodes[i].l, &nodes[i].r};
            for (int k = 0; k < 2; k++)
                if (c[k]->kind == BK_SSZ_PREF_NODE && (!level[c[k]->v] || level[c[k]->v] >= l)) ready = 0;
            if (ready && (best == UINT32_MAX || alap[i] < alap[best])) best = i;
        }
        if (best != UINT32_MAX) level[best] = l;
    }
    bk_free(alloc, alap, n * sizeof *alap);
    bk_free(alloc, asap, n * sizeof *asap);
    return 1;
}

const bk_ssz_plan *bk_ssz_plan_build(bk_arena *a, const bk_allocator *alloc, const bk_ssz_type *t)
{
    if ((t->is_variable && t->kind != BK_SSZ_CONTAINER) || bk_ssz_is_basic(t) || t->kind == BK_SSZ_NONE ||
        t->fixed_size > UINT32_MAX || t->chunk_count > PLAN_MAX_NODES)
        return NULL;
    /* Count first, then build. */
    builder b = {NULL, NULL, 0, alloc, 0, 0, NULL, NULL};
    build(&b, t, 0);
    if (b.fail || b.n == 0) return NULL;
    uint32_t n = b.n;
    bk_ssz_pnode *tmp = bk_alloc(alloc, n * sizeof *tmp);
    uint32_t *height = bk_alloc(alloc, n * sizeof *height);
    uint32_t *remap = bk_alloc(alloc, n * sizeof *remap);
    bk_ssz_plan *plan = bk_arena_alloc(a, sizeof *plan);
    bk_ssz_pnode *nodes = bk_arena_alloc(a, n * sizeof *nodes);
    uint8_t *mode = t->is_variable ? bk_arena_alloc(a, t->nfields) : NULL;
    uint32_t *fbase = t->is_variable ? bk_arena_alloc(a, t->nfields * sizeof *fbase) : NULL;
    uint32_t maxh = 0;
    bk_ssz_pref root = {0, 0, 0};
    if (tmp && height && remap && plan && nodes && (!t->is_variable || (mode && fbase))) {
        b = (builder){tmp, height, 0, alloc, 0, 0, mode, fbase};
        root = build(&b, t, 0);
        for (uint32_t i = 0; i < n; i++)
            if (height[i] > maxh) maxh = height[i];
    }
    int ok = tmp && height && remap && plan && nodes && !b.fail && root.kind == BK_SSZ_PREF_NODE &&
             balance_levels(tmp, height, n, root.v, maxh, alloc);
    uint32_t *ends = ok ? bk_arena_alloc(a, maxh * sizeof *ends) : NULL;
    if (ends) {
        /* Stable counting sort by level; remap node references. */
        uint32_t k = 0, maxb = 0;
        for (uint32_t h = 1; h <= maxh; h++) {
            uint32_t start = k;
            for (uint32_t i = 0; i < n; i++)
                if (height[i] == h) remap[i] = k++;
            ends[h - 1] = k;
            if (k - start > maxb) maxb = k - start;
        }
        for (uint32_t i = 0; i < n; i++) {
            bk_ssz_pnode x = tmp[i];
            if (x.l.kind == BK_SSZ_PREF_NODE) x.l.v = remap[x.l.v];
            if (x.r.kind == BK_SSZ_PREF_NODE) x.r.v = remap[x.r.v];
            nodes[remap[i]] = x;
        }
        if (root.kind == BK_SSZ_PREF_NODE) root.v = remap[root.v];
        plan->nnodes = n;
        plan->nodes = nodes;
        plan->nbatches = maxh;
        plan->batch_end = ends;
        plan->max_batch = maxb;
        plan->root = root;
        plan->has_ext = t->is_variable;
        plan->field_mode = mode;
        plan->fold_base = fbase;
        plan->nvchunks = b.nv;
    }
    bk_free(alloc, tmp, n * sizeof *tmp);
    bk_free(alloc, height, n * sizeof *height);
    bk_free(alloc, remap, n * sizeof *remap);
    return ends ? plan : NULL;
}
