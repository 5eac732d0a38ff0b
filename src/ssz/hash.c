/* SSZ hash_tree_root straight from serialized bytes.
 *
 * A streaming merkleizer (consensus-specs ssz/simple-serialize.md,
 * "Merkleization"): leaf chunks gather in a batch buffer of K = 2^k chunks;
 * a full batch is reduced level by level in place with bk_sha256_64 (K/2,
 * K/4, ... pairs per call, so many messages are in flight), and its root is
 * pushed onto a stack of one 32-byte slot per tree level, which works as a
 * binary counter. Whole batches are hashed straight from the input when the
 * chunks are the serialized bytes themselves. At the end a partial batch is
 * padded in place with zero_hash[level] at each odd level (never by growing
 * a buffer) and joined with the stack and zero hashes up to the depth of the
 * *limit*. All memory comes from the hasher's scratch, allocated once. */
#include "ssz_internal.h"

#include <string.h>

#include "zero_hashes.inc"

#define DEFAULT_SCRATCH (256u * 1024u)
#define KMAX_LOG2 10              /* batches of up to 1024 chunks (32 KiB) */

_Thread_local uint64_t bk_ssz_tls_compressions;

uint64_t bk_ssz_compressions(void) { return bk_ssz_tls_compressions; }

const uint8_t *bk_ssz_zero_hash(unsigned depth)
{
    return depth <= 64 ? bk_ssz_zero_hashes[depth] : NULL;
}

void bk_ssz_hash_pair(uint8_t out[32], const uint8_t left[32], const uint8_t right[32])
{
    uint8_t m[64];
    memcpy(m, left, 32);
    memcpy(m + 32, right, 32);
    bk_ssz_sha64(out, m, 1);
}

void bk_ssz_mix_in_length(uint8_t out[32], const uint8_t root[32], uint64_t length)
{
    uint8_t m[64];
    memcpy(m, root, 32);
    memset(m + 32, 0, 32);
    bk_store_le64(m + 32, length);
    bk_ssz_sha64(out, m, 1);
}

bk_status bk_ssz_hasher_create(bk_ssz_hasher **h_out, size_t scratch_bytes, const bk_allocator *alloc)
{
    *h_out = NULL;
    if (scratch_bytes == 0) scratch_bytes = DEFAULT_SCRATCH;
    scratch_bytes &= ~(size_t)31;
    if (scratch_bytes < 4096) scratch_bytes = 4096;
    bk_ssz_hasher *h = bk_alloc(alloc, sizeof *h);
    if (!h) return BK_ERR_NOMEM;
    h->alloc = alloc;
    h->scratch = bk_alloc(alloc, scratch_bytes);
    if (!h->scratch) {
        bk_free(alloc, h, sizeof *h);
        return BK_ERR_NOMEM;
    }
    h->cap = scratch_bytes;
    h->used = 0;
    h->pool = NULL;
    h->in_parallel = 0;
    *h_out = h;
    return BK_OK;
}

void bk_ssz_hasher_free(bk_ssz_hasher *h)
{
    if (!h) return;
    bk_free(h->alloc, h->scratch, h->cap);
    bk_free(h->alloc, h, sizeof *h);
}

uint8_t *bk_ssz_scratch_take(bk_ssz_hasher *h, size_t n)
{
    if (n > h->cap - h->used) return NULL;
    uint8_t *p = h->scratch + h->used;
    h->used += n;
    return p;
}

/* ---- the merkleizer ---- */

typedef struct mz {
    uint8_t *slots;        /* slot[L] at slots + 32*L, L = 0..depth */
    uint8_t *buf;          /* K chunks */
    unsigned kdepth;       /* K = 2^kdepth */
    unsigned depth;        /* tree height */
    uint64_t nbuf;         /* chunks in buf */
    uint64_t blocks;       /* full batches pushed (binary counter from level kdepth) */
    size_t mark;           /* scratch mark to release */
} mz;

static bk_status mz_init(bk_ssz_hasher *h, mz *m, unsigned depth, uint64_t count, bk_error *err)
{
    m->mark = h->used;
    m->depth = depth;
    m->nbuf = 0;
    m->blocks = 0;
    m->slots = bk_ssz_scratch_take(h, 32 * ((size_t)depth + 1));
    if (!m->slots) return bk_error_set(err, BK_ERR_BUFFER, 0, "hasher scratch too small for this type's depth");
    unsigned k = 0;
    while (k < KMAX_LOG2 && k < depth && (UINT64_C(1) << k) < count) k++;
    /* Shrink the batch to what the scratch still holds. */
    while (k > 0 && (h->cap - h->used) < ((size_t)32 << k)) k--;
    m->buf = bk_ssz_scratch_take(h, (size_t)32 << k);
    if (!m->buf) {
        h->used = m->mark;
        return bk_error_set(err, BK_ERR_BUFFER, 0, "hasher scratch too small for this type's depth");
    }
    m->kdepth = k;
    return BK_OK;
}

static void mz_release(bk_ssz_hasher *h, mz *m) { h->used = m->mark; }

/* Reduce 2^kdepth chunks at src to one root in m->buf[0..32). src may be
 * m->buf. */
static void mz_reduce_block(mz *m, const uint8_t *src)
{
    uint64_t n = UINT64_C(1) << m->kdepth;
    if (n == 1) {
        if (src != m->buf) memcpy(m->buf, src, 32);
        return;
    }
    bk_ssz_sha64(m->buf, src, (size_t)(n / 2));
    for (n /= 2; n > 1; n /= 2) bk_ssz_sha64(m->buf, m->buf, (size_t)(n / 2));
}

static void mz_push_root(mz *m, const uint8_t *root)
{
    uint8_t cur[32];
    memcpy(cur, root, 32);
    unsigned L = m->kdepth;
    uint64_t b = m->blocks;
    while (b & 1) {
        bk_ssz_hash_pair(cur, m->slots + 32 * (size_t)L, cur);
        b >>= 1;
        L++;
    }
    memcpy(m->slots + 32 * (size_t)L, cur, 32);
    m->blocks++;
}

static void mz_push(mz *m, const uint8_t *chunks, uint64_t n)
{
    uint64_t K = UINT64_C(1) << m->kdepth;
    while (n) {
        if (m->nbuf == 0 && n >= K) {
            mz_reduce_block(m, chunks);
            mz_push_root(m, m->buf);
            chunks += 32 * K;
            n -= K;
            continue;
        }
        uint64_t take = K - m->nbuf < n ? K - m->nbuf : n;
        memcpy(m->buf + 32 * m->nbuf, chunks, (size_t)(32 * take));
        m->nbuf += take;
        chunks += 32 * take;
        n -= take;
        if (m->nbuf == K) {
            mz_reduce_block(m, m->buf);
            mz_push_root(m, m->buf);
            m->nbuf = 0;
        }
    }
}

/* The next chunk slot; fill 32 bytes then call mz_commit. */
static uint8_t *mz_slot(mz *m) { return m->buf + 32 * m->nbuf; }

static void mz_commit(mz *m)
{
    if (++m->nbuf == (UINT64_C(1) << m->kdepth)) {
        mz_reduce_block(m, m->buf);
        mz_push_root(m, m->buf);
        m->nbuf = 0;
    }
}

static void mz_finish(bk_ssz_hasher *h, mz *m, uint8_t out[32])
{
    uint8_t cur[32];
    int have = 0;
    if (m->nbuf) {
        uint64_t cnt = m->nbuf;
        for (unsigned level = 0; level < m->kdepth; level++) {
            if (cnt & 1) memcpy(m->buf + 32 * cnt++, bk_ssz_zero_hashes[level], 32);
            bk_ssz_sha64(m->buf, m->buf, (size_t)(cnt / 2));
            cnt /= 2;
        }
        memcpy(cur, m->buf, 32);
        have = 1;
    }
    for (unsigned L = m->kdepth; L < m->depth; L++) {
        int bit = (int)((m->blocks >> (L - m->kdepth)) & 1);
        if (bit) bk_ssz_hash_pair(cur, m->slots + 32 * (size_t)L, have ? cur : bk_ssz_zero_hashes[L]);
        else if (have) bk_ssz_hash_pair(cur, cur, bk_ssz_zero_hashes[L]);
        have |= bit;
    }
    if (have) memcpy(out, cur, 32);
    else if (m->blocks) memcpy(out, m->slots + 32 * (size_t)m->depth, 32);
    else memcpy(out, bk_ssz_zero_hashes[m->depth], 32);
    mz_release(h, m);
}

/* ---- chunks of a type ---- */

/* Packed bytes of a basic sequence or bitfield: bytes d[0..n), with the
 * last one replaced by last (a bitlist's last byte without its delimiter)
 * when has_last. */
typedef struct packed {
    const uint8_t *d;
    uint64_t n;
    int has_last;
    uint8_t last;
} packed;

static int is_packed(const bk_ssz_type *t)
{
    return t->kind == BK_SSZ_BITVECTOR || t->kind == BK_SSZ_BITLIST ||
           ((t->kind == BK_SSZ_VECTOR || t->kind == BK_SSZ_LIST) && bk_ssz_is_basic(t->elem));
}

static packed packed_of(const bk_ssz_type *t, const uint8_t *d, size_t len)
{
    packed p = {d, len, 0, 0};
    if (t->kind == BK_SSZ_BITLIST) {
        uint8_t last = d[len - 1];
        unsigned hi = 7;
        while (hi && !(last >> hi)) hi--;
        if (hi == 0) p.n = len - 1;
        else {
            p.has_last = 1;
            p.last = (uint8_t)(last & ((1u << hi) - 1));
        }
    }
    return p;
}

/* Elements whose root is their own 32 serialized bytes (ByteVector[32],
 * Vector[uint64,4], ...): their roots can be pushed straight from the input. */
static int root_is_bytes(const bk_ssz_type *e)
{
    return e->kind == BK_SSZ_VECTOR && bk_ssz_is_basic(e->elem) && e->fixed_size == 32;
}

uint64_t bk_ssz_chunks(const bk_ssz_type *t, const uint8_t *d, size_t len)
{
    if (is_packed(t)) {
        packed p = packed_of(t, d, len);
        return (p.n + 31) / 32;
    }
    if (t->kind == BK_SSZ_CONTAINER) return t->nfields;
    if (t->kind == BK_SSZ_VECTOR || t->kind == BK_SSZ_LIST) return bk_ssz_elem_count(t, d, len);
    return 1;
}

static void packed_chunk(const packed *p, uint64_t i, uint8_t out[32])
{
    uint64_t a = 32 * i, b = a + 32 < p->n ? a + 32 : p->n;
    memset(out, 0, 32);
    if (a < b) memcpy(out, p->d + a, (size_t)(b - a));
    if (p->has_last && p->n - 1 >= a && p->n - 1 < a + 32) out[p->n - 1 - a] = p->last;
}

static bk_status root_of(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint8_t out[32],
                         bk_error *err);

bk_status bk_ssz_chunk(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t i,
                       uint8_t out[32], bk_error *err)
{
    if (is_packed(t)) {
        packed p = packed_of(t, d, len);
        packed_chunk(&p, i, out);
        return BK_OK;
    }
    if (t->kind == BK_SSZ_CONTAINER || t->kind == BK_SSZ_VECTOR || t->kind == BK_SSZ_LIST) {
        if (i >= bk_ssz_chunks(t, d, len)) {
            memset(out, 0, 32);
            return BK_OK;
        }
        const uint8_t *p;
        size_t n;
        bk_ssz_elem_span(t, d, len, i, &p, &n);
        return root_of(h, t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem, p, n, out, err);
    }
    return root_of(h, t, d, len, out, err);
}

static inline void plan_gather(uint8_t *dst, bk_ssz_pref r, const uint8_t *d, const uint8_t *vals,
                               const uint8_t *ext, const uint8_t *vch)
{
    switch (r.kind) {
    case BK_SSZ_PREF_LEAF:
        /* Constant sizes so the copies inline (uint64 fields are common). */
        switch (r.len) {
        case 32: memcpy(dst, d + r.v, 32); break;
        case 8:
            memcpy(dst, d + r.v, 8);
            memset(dst + 8, 0, 24);
            break;
        case 1:
            dst[0] = d[r.v];
            memset(dst + 1, 0, 31);
            break;
        case 16:
            memcpy(dst, d + r.v, 16);
            memset(dst + 16, 0, 16);
            break;
        default:
            memset(dst, 0, 32);
            memcpy(dst, d + r.v, r.len);
            break;
        }
        break;
    case BK_SSZ_PREF_ZERO: memcpy(dst, bk_ssz_zero_hashes[r.v], 32); break;
    case BK_SSZ_PREF_EXT: memcpy(dst, ext + 32 * (size_t)r.v, 32); break;
    case BK_SSZ_PREF_VCHUNK: memcpy(dst, vch + 32 * (size_t)r.v, 32); break;
    default: memcpy(dst, vals + 32 * (size_t)r.v, 32); break;
    }
}


/* Elements of one fixed-size type, hashed together: every level of the
 * element plan runs for g elements in one bk_sha256_64 call (g times the
 * messages, so the SHA engine stays full even when one element's levels are
 * a single pair). Node j of element e lives at vals[j*g + e], so a level's
 * digests land contiguously. Roots go to out[32*e]. */
static void run_plan_many(const bk_ssz_plan *pl, const uint8_t *d, uint64_t stride, uint64_t g, uint8_t *vals,
                          uint8_t *msgs, uint8_t *out)
{
    uint32_t start = 0;
    for (uint32_t b = 0; b < pl->nbatches; b++) {
        uint32_t end = pl->batch_end[b];
        uint8_t *m = msgs;
        for (uint32_t j = start; j < end; j++) {
            const bk_ssz_pnode *x = &pl->nodes[j];
            for (uint64_t e = 0; e < g; e++, m += 64) {
                const uint8_t *de = d + e * stride;
                uint8_t *ve = vals + 32 * e;
                /* NODE refs index by j*g + e: pre-scale through ve and g. */
                bk_ssz_pref l = x->l, r = x->r;
                if (l.kind == BK_SSZ_PREF_NODE) memcpy(m, ve + 32 * (size_t)l.v * g, 32);
                else plan_gather(m, l, de, NULL, NULL, NULL);
                if (r.kind == BK_SSZ_PREF_NODE) memcpy(m + 32, ve + 32 * (size_t)r.v * g, 32);
                else plan_gather(m + 32, r, de, NULL, NULL, NULL);
            }
        }
        bk_ssz_sha64(vals + 32 * (size_t)start * g, msgs, (size_t)((end - start) * g));
        start = end;
    }
    for (uint64_t e = 0; e < g; e++) {
        if (pl->root.kind == BK_SSZ_PREF_NODE) memcpy(out + 32 * e, vals + 32 * ((size_t)pl->root.v * g + e), 32);
        else plan_gather(out + 32 * e, pl->root, d + e * stride, NULL, NULL, NULL);
    }
}

/* Roots of fixed-size elements [lo, hi) of a vector/list pushed into m in
 * groups through run_plan_many. Returns 0 when the scratch cannot hold a
 * group of two (the caller hashes element by element). */
static int push_planned_elems(bk_ssz_hasher *h, mz *m, const bk_ssz_type *e, const uint8_t *d, uint64_t lo,
                              uint64_t hi)
{
    const bk_ssz_plan *pl = e->plan;
    size_t per = 32 * (size_t)pl->nnodes + 64 * (size_t)pl->max_batch + 32;
    size_t room = h->cap - h->used;
    uint64_t g = room / 2 / per;
    if (g > 64) g = 64;
    if (g > hi - lo) g = hi - lo;
    if (g < 2) return 0;
    size_t mark = h->used;
    uint8_t *vals = bk_ssz_scratch_take(h, 32 * (size_t)pl->nnodes * g);
    uint8_t *msgs = bk_ssz_scratch_take(h, 64 * (size_t)pl->max_batch * g);
    uint8_t *roots = bk_ssz_scratch_take(h, 32 * g);
    for (uint64_t i = lo; i < hi;) {
        uint64_t n = hi - i < g ? hi - i : g;
        run_plan_many(pl, d + i * e->fixed_size, e->fixed_size, n, vals, msgs, roots);
        mz_push(m, roots, n);
        i += n;
    }
    h->used = mark;
    return 1;
}

bk_status bk_ssz_subtree(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t lo,
                         unsigned sub_depth, uint8_t out[32], bk_error *err)
{
    uint64_t total = bk_ssz_chunks(t, d, len);
    if (lo >= total) {
        memcpy(out, bk_ssz_zero_hashes[sub_depth], 32);
        return BK_OK;
    }
    uint64_t span = sub_depth >= 64 ? UINT64_MAX : UINT64_C(1) << sub_depth;
    uint64_t hi = total - lo < span ? total : lo + span;
    bk_status st;
    if (bk_ssz_par_subtree(h, t, d, len, lo, hi, sub_depth, out, &st, err)) return st;
    mz m;
    st = mz_init(h, &m, sub_depth, hi - lo, err);
    if (st != BK_OK) return st;
    if (is_packed(t)) {
        packed p = packed_of(t, d, len);
        /* Whole chunks straight from the input, the last one through a slot. */
        uint64_t full = hi - lo;
        if (32 * hi > p.n || (p.has_last && hi == total)) full--;
        mz_push(&m, p.d + 32 * lo, full);
        for (uint64_t i = lo + full; i < hi; i++) {
            packed_chunk(&p, i, mz_slot(&m));
            mz_commit(&m);
        }
    } else if (t->kind != BK_SSZ_CONTAINER && root_is_bytes(t->elem)) {
        mz_push(&m, d + 32 * lo, hi - lo);
    } else if (t->kind != BK_SSZ_CONTAINER && t->elem->plan && !((const bk_ssz_plan *)t->elem->plan)->has_ext &&
               push_planned_elems(h, &m, t->elem, d, lo, hi)) {
        /* done: fixed-size elements hashed a group at a time */
    } else {
        for (uint64_t i = lo; i < hi; i++) {
            const uint8_t *p;
            size_t n;
            bk_ssz_elem_span(t, d, len, i, &p, &n);
            const bk_ssz_type *e = t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem;
            st = root_of(h, e, p, n, mz_slot(&m), err);
            if (st != BK_OK) {
                mz_release(h, &m);
                return st;
            }
            mz_commit(&m);
        }
    }
    mz_finish(h, &m, out);
    return BK_OK;
}

/* Run a precompiled plan: the roots of variable-size fields first (EXT),
 * then one bk_sha256_64 call per tree height. Returns 0 when the scratch
 * cannot hold it (the caller takes the streaming path). */
static int run_plan(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint8_t out[32],
                    bk_status *st, bk_error *err)
{
    const bk_ssz_plan *pl = t->plan;
    size_t mark = h->used;
    uint8_t *ext = NULL, *vch = NULL;
    *st = BK_OK;
    if (pl->has_ext) {
        ext = bk_ssz_scratch_take(h, 32 * t->nfields);
        vch = ext ? bk_ssz_scratch_take(h, 32 * (size_t)pl->nvchunks) : NULL;
        if (!ext || (!vch && pl->nvchunks)) {
            h->used = mark;
            return 0;
        }
        for (size_t i = 0; i < t->nfields; i++) {
            if (pl->field_mode[i] == BK_SSZ_FIELD_FIXED) continue;
            const bk_ssz_type *f = t->fields[i].type;
            const uint8_t *p;
            size_t n;
            bk_ssz_elem_span(t, d, len, i, &p, &n);
            if (pl->field_mode[i] == BK_SSZ_FIELD_FOLDED) {
                /* Chunks to the limit (zero past the data), then the length. */
                uint8_t *c = vch + 32 * (size_t)pl->fold_base[i];
                packed pk = packed_of(f, p, n);
                for (uint64_t j = 0; j < f->chunk_count; j++) packed_chunk(&pk, j, c + 32 * j);
                memset(c + 32 * f->chunk_count, 0, 32);
                bk_store_le64(c + 32 * f->chunk_count, bk_ssz_elem_count(f, p, n));
                continue;
            }
            if ((*st = root_of(h, f, p, n, ext + 32 * i, err)) != BK_OK) {
                h->used = mark;
                return 1;
            }
        }
    }
    uint8_t *vals = bk_ssz_scratch_take(h, 32 * (size_t)pl->nnodes);
    uint8_t *msgs = vals ? bk_ssz_scratch_take(h, 64 * (size_t)pl->max_batch) : NULL;
    if (!msgs) {
        h->used = mark;
        return 0;
    }
    uint32_t start = 0;
    for (uint32_t b = 0; b < pl->nbatches; b++) {
        uint32_t end = pl->batch_end[b];
        for (uint32_t j = start; j < end; j++) {
            uint8_t *m = msgs + 64 * (size_t)(j - start);
            plan_gather(m, pl->nodes[j].l, d, vals, ext, vch);
            plan_gather(m + 32, pl->nodes[j].r, d, vals, ext, vch);
        }
        bk_ssz_sha64(vals + 32 * (size_t)start, msgs, end - start);
        start = end;
    }
    plan_gather(out, pl->root, d, vals, ext, vch);
    h->used = mark;
    return 1;
}

/* ---- progressive merkleization (EIP-7916, EIP-7495) ----
 *
 * merkleize_progressive(chunks, n=1) = zero chunk when chunks is empty, else
 * hash(merkleize(chunks[:n], n), merkleize_progressive(chunks[n:], 4n)):
 * subtrees of 1, 4, 16, ... leaves (depths 0, 2, 4, ...) hung off a right
 * spine that ends in a zero chunk. The subtree roots are computed first,
 * then folded from the end. */
#define PROG_MAX_LEVELS 34  /* 2^64 chunks need at most 33 subtrees */

/* Root of positions [lo, lo + 4^k) of a ProgressiveContainer's chunks:
 * field roots at active positions, zero chunks elsewhere. */
static bk_status prog_container_subtree(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len,
                                        uint64_t lo, unsigned depth, uint8_t out[32], bk_error *err)
{
    uint64_t hi = lo + (UINT64_C(1) << depth);
    if (hi > t->active_bits) hi = t->active_bits;
    mz m;
    bk_status st = mz_init(h, &m, depth, hi - lo, err);
    if (st != BK_OK) return st;
    size_t f = 0;
    while (f < t->nfields && t->fields[f].chunk < lo) f++;
    for (uint64_t pos = lo; pos < hi; pos++) {
        uint8_t *slot = mz_slot(&m);
        if (f < t->nfields && t->fields[f].chunk == pos) {
            const uint8_t *p;
            size_t n;
            bk_ssz_elem_span(t, d, len, f, &p, &n);
            st = root_of(h, t->fields[f].type, p, n, slot, err);
            if (st != BK_OK) {
                mz_release(h, &m);
                return st;
            }
            f++;
        } else {
            memset(slot, 0, 32);
        }
        mz_commit(&m);
    }
    mz_finish(h, &m, out);
    return BK_OK;
}

/* Subtree k of a progressive data tree: chunks [start_k, start_k + 4^k),
 * start_k = (4^k - 1) / 3, depth 2k. */
bk_status bk_ssz_prog_subtree(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, unsigned k,
                              uint8_t out[32], bk_error *err)
{
    uint64_t lo = ((UINT64_C(1) << (2 * k)) - 1) / 3;
    return t->kind == BK_SSZ_CONTAINER ? prog_container_subtree(h, t, d, len, lo, 2 * k, out, err)
                                       : bk_ssz_subtree(h, t, d, len, lo, 2 * k, out, err);
}

uint64_t bk_ssz_prog_chunks(const bk_ssz_type *t, const uint8_t *d, size_t len)
{
    return t->kind == BK_SSZ_CONTAINER ? t->active_bits : bk_ssz_chunks(t, d, len);
}

/* Spine node k0 of a progressive data tree: merkleize_progressive of the
 * chunks from start_k0 on (k0 = 0: the data root). */
bk_status bk_ssz_prog_spine(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, unsigned k0,
                            uint8_t out[32], bk_error *err)
{
    uint64_t total = bk_ssz_prog_chunks(t, d, len);
    uint8_t roots[PROG_MAX_LEVELS][32];
    unsigned k = k0;
    for (uint64_t lo = ((UINT64_C(1) << (2 * k0)) - 1) / 3, width = UINT64_C(1) << (2 * k0); lo < total && k < PROG_MAX_LEVELS - 1;
         lo += width, width <<= 2, k++) {
        bk_status st = bk_ssz_prog_subtree(h, t, d, len, k, roots[k - k0], err);
        if (st != BK_OK) return st;
        if (width > UINT64_MAX / 4) {
            k++;
            break;
        }
    }
    uint8_t acc[32] = {0};
    for (unsigned j = k - k0; j-- > 0;) bk_ssz_hash_pair(acc, roots[j], acc);
    memcpy(out, acc, 32);
    return BK_OK;
}

uint64_t bk_ssz_prog_chunk_gindex(uint64_t pos)
{
    /* k right steps along the spine, one left step into subtree k, then
     * 2k steps to the chunk (chainsafe's progressiveChunkGindex, EIP-7916). */
    unsigned k = 0;
    uint64_t start = 0, width = 1;
    while (pos >= start + width) {
        start += width;
        width <<= 2;
        k++;
    }
    if (2 * k + 1 + k >= 63) return 0;
    uint64_t g = 1;
    for (unsigned i = 0; i < k; i++) g = 2 * g + 1;
    g = 2 * g;
    return (g << (2 * k)) | (pos - start);
}

static bk_status prog_root(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint8_t out[32],
                           bk_error *err)
{
    uint8_t acc[32];
    bk_status st = bk_ssz_prog_spine(h, t, d, len, 0, acc, err);
    if (st != BK_OK) return st;
    if (t->kind == BK_SSZ_CONTAINER) {
        /* mix_in_active_fields: hash(root, the bitvector packed into one chunk). */
        uint8_t bits[32] = {0};
        memcpy(bits, t->active_fields, (t->active_bits + 7) / 8);
        bk_ssz_hash_pair(out, acc, bits);
    } else {
        bk_ssz_mix_in_length(out, acc, bk_ssz_elem_count(t, d, len));
    }
    return BK_OK;
}

static bk_status root_of(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint8_t out[32],
                         bk_error *err)
{
    bk_status pst;
    if (t->progressive) return prog_root(h, t, d, len, out, err);
    if (t->plan && run_plan(h, t, d, len, out, &pst, err)) return pst;
    switch (t->kind) {
    case BK_SSZ_NONE:
        memset(out, 0, 32);
        return BK_OK;
    case BK_SSZ_UINT:
    case BK_SSZ_BOOL:
        memset(out, 0, 32);
        memcpy(out, d, t->size);
        return BK_OK;
    case BK_SSZ_UNION: {
        /* mix_in_selector(hash_tree_root(value), selector); None's root is a zero chunk. */
        uint8_t r[32];
        bk_status st = root_of(h, t->fields[d[0]].type, d + 1, len - 1, r, err);
        if (st != BK_OK) return st;
        bk_ssz_mix_in_length(out, r, d[0]);
        return BK_OK;
    }
    default: break;
    }
    if (root_is_bytes(t)) {
        memcpy(out, d, 32);
        return BK_OK;
    }
    bk_status st = bk_ssz_subtree(h, t, d, len, 0, t->depth, out, err);
    if (st != BK_OK) return st;
    if (t->kind == BK_SSZ_LIST || t->kind == BK_SSZ_BITLIST) bk_ssz_mix_in_length(out, out, bk_ssz_elem_count(t, d, len));
    return BK_OK;
}

bk_status bk_ssz_root_unchecked(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len,
                                uint8_t out[32], bk_error *err)
{
    return root_of(h, t, d, len, out, err);
}

bk_status bk_ssz_hash_tree_root(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t len,
                                uint8_t out[32], bk_error *err)
{
    bk_status st = bk_ssz_validate(t, data, len, err);
    if (st != BK_OK) return st;
    static const uint8_t empty[1];
    if (!data) data = empty;
    if (h) {
        size_t mark = h->used;
        st = root_of(h, t, data, len, out, err);
        h->used = mark;
        return st;
    }
    st = bk_ssz_hasher_create(&h, 0, NULL);
    if (st != BK_OK) return bk_error_set(err, st, 0, "out of memory");
    st = root_of(h, t, data, len, out, err);
    bk_ssz_hasher_free(h);
    return st;
}

bk_status bk_ssz_merkleize(bk_ssz_hasher *h, const uint8_t *chunks, uint64_t n, uint64_t limit, uint8_t out[32],
                           bk_error *err)
{
    if (limit == UINT64_MAX) limit = n;
    if (n > limit)
        return bk_error_set(err, BK_ERR_LENGTH, 0, "%llu chunks exceed the limit %llu", (unsigned long long)n,
                            (unsigned long long)limit);
    if (limit > (UINT64_C(1) << 63))
        return bk_error_set(err, BK_ERR_LENGTH, 0, "limit over 2^63 chunks");
    unsigned depth = 0;
    while ((UINT64_C(1) << depth) < limit) depth++;
    bk_ssz_hasher *own = NULL;
    if (!h) {
        bk_status st = bk_ssz_hasher_create(&own, 0, NULL);
        if (st != BK_OK) return bk_error_set(err, st, 0, "out of memory");
        h = own;
    }
    mz m;
    bk_status st = mz_init(h, &m, depth, n, err);
    if (st == BK_OK) {
        mz_push(&m, chunks, n);
        mz_finish(h, &m, out);
    }
    bk_ssz_hasher_free(own);
    return st;
}
