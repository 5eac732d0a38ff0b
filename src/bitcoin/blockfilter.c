/* BIP158 basic block filters (include/blockkit/blockfilter.h).
 *
 * Core: src/blockfilter.cpp (BasicFilterElements, GCSFilter, BlockFilter::
 * ComputeHeader), src/util/golombrice.h, src/crypto/siphash.cpp, BIP158.
 * Written from the BIP's description; the element order, the range
 * mapping and the coding are what Core's index stores. */
#include <blockkit/blockfilter.h>

#include <blockkit/sha256.h>

#include <string.h>

/* ---- SipHash-2-4 ---- */

static inline uint64_t rotl64(uint64_t x, unsigned b) { return (x << b) | (x >> (64 - b)); }

#define SIPROUND                                                                                              \
    do {                                                                                                      \
        v0 += v1; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32);                                         \
        v2 += v3; v3 = rotl64(v3, 16); v3 ^= v2;                                                              \
        v0 += v3; v3 = rotl64(v3, 21); v3 ^= v0;                                                              \
        v2 += v1; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32);                                         \
    } while (0)

uint64_t bk_siphash24(uint64_t k0, uint64_t k1, const uint8_t *data, size_t len)
{
    uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
    size_t words = len / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t m = bk_load_le64(data + 8 * i);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    const uint8_t *t = data + 8 * words;
    switch (len & 7) {
    case 7: b |= (uint64_t)t[6] << 48; /* fall through */
    case 6: b |= (uint64_t)t[5] << 40; /* fall through */
    case 5: b |= (uint64_t)t[4] << 32; /* fall through */
    case 4: b |= (uint64_t)t[3] << 24; /* fall through */
    case 3: b |= (uint64_t)t[2] << 16; /* fall through */
    case 2: b |= (uint64_t)t[1] << 8;  /* fall through */
    case 1: b |= (uint64_t)t[0]; break;
    default: break;
    }
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t bk_fastrange64(uint64_t h, uint64_t range)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)h * range) >> 64);
}

void bk_blockfilter_key(const uint8_t block_hash[32], uint64_t key_out[2])
{
    key_out[0] = bk_load_le64(block_hash);
    key_out[1] = bk_load_le64(block_hash + 8);
}

/* ---- the builder ---- */

void bk_blockfilter_init(bk_blockfilter *f, const bk_allocator *alloc)
{
    memset(f, 0, sizeof *f);
    f->alloc = alloc ? alloc : bk_default_allocator();
}

void bk_blockfilter_free(bk_blockfilter *f)
{
    if (f->elems) bk_free(f->alloc, f->elems, f->cap * sizeof *f->elems);
    if (f->tmp) bk_free(f->alloc, f->tmp, f->cap * sizeof *f->tmp);
    if (f->arena) bk_free(f->alloc, f->arena, f->arena_cap);
    if (f->filter) bk_free(f->alloc, f->filter, f->filter_cap);
    const bk_allocator *a = f->alloc;
    memset(f, 0, sizeof *f);
    f->alloc = a;
}

void bk_blockfilter_reset(bk_blockfilter *f, const uint8_t block_hash[32])
{
    bk_blockfilter_key(block_hash, f->key);
    f->n = 0;
    f->arena_len = 0;
    f->filter_len = 0;
    f->n_elements = 0;
    f->status = BK_OK;
}

static int grow_elems(bk_blockfilter *f, size_t need)
{
    if (need <= f->cap) return 1;
    size_t ncap = f->cap ? f->cap : 256;
    while (ncap < need) ncap *= 2;
    bk_blockfilter_elem *e = bk_realloc(f->alloc, f->elems, f->cap * sizeof *e, ncap * sizeof *e);
    if (!e) return 0;
    f->elems = e;
    /* tmp keeps no data between calls: free and allocate anew. */
    if (f->tmp) bk_free(f->alloc, f->tmp, f->cap * sizeof *f->tmp);
    f->tmp = bk_alloc(f->alloc, ncap * sizeof *f->tmp);
    if (!f->tmp) {
        /* elems is already ncap long. */
        f->cap = ncap;
        return 0;
    }
    f->cap = ncap;
    return 1;
}

static void push_borrowed(bk_blockfilter *f, const uint8_t *p, size_t len)
{
    if (f->status != BK_OK) return;
    if (len > UINT32_MAX || (f->n == f->cap && !grow_elems(f, f->n + 1))) {
        f->status = BK_ERR_NOMEM;
        return;
    }
    bk_blockfilter_elem *e = &f->elems[f->n++];
    e->hash = bk_siphash24(f->key[0], f->key[1], p, len);
    e->bytes = p;
    e->offset = 0;
    e->len = (uint32_t)len;
}

static void push_copy(bk_blockfilter *f, const uint8_t *p, size_t len)
{
    if (f->status != BK_OK) return;
    if (len > UINT32_MAX || f->arena_len + len > UINT32_MAX) {
        f->status = BK_ERR_NOMEM;
        return;
    }
    if (f->arena_len + len > f->arena_cap) {
        size_t ncap = f->arena_cap ? f->arena_cap : 4096;
        while (ncap < f->arena_len + len) ncap *= 2;
        uint8_t *a = bk_realloc(f->alloc, f->arena, f->arena_cap, ncap);
        if (!a) {
            f->status = BK_ERR_NOMEM;
            return;
        }
        f->arena = a;
        f->arena_cap = ncap;
    }
    if (f->n == f->cap && !grow_elems(f, f->n + 1)) {
        f->status = BK_ERR_NOMEM;
        return;
    }
    if (len) memcpy(f->arena + f->arena_len, p, len);
    bk_blockfilter_elem *e = &f->elems[f->n++];
    e->hash = bk_siphash24(f->key[0], f->key[1], p, len);
    e->bytes = NULL;
    e->offset = (uint32_t)f->arena_len;
    e->len = (uint32_t)len;
    f->arena_len += len;
}

void bk_blockfilter_add(bk_blockfilter *f, const uint8_t *elem, size_t len)
{
    push_copy(f, elem, len);
}

void bk_blockfilter_add_block(bk_blockfilter *f, const bk_block *b, const bk_block_undo *undo)
{
    /* Core BasicFilterElements: outputs first, then the spent coins; the
     * order does not matter (the set is sorted). */
    for (uint32_t t = 0; t < b->n_tx; t++) {
        bk_txout_iter it;
        bk_txout o;
        bk_txout_iter_init(&it, &b->txs[t]);
        while (bk_txout_next(&it, &o)) {
            if (o.script_len == 0 || o.script[0] == 0x6a) continue;
            push_borrowed(f, o.script, o.script_len);
        }
    }
    if (!undo) return;
    bk_undo_iter ui;
    uint32_t n_coins;
    bk_coin c;
    bk_undo_iter_init(&ui, undo);
    while (bk_undo_next_tx(&ui, &n_coins)) {
        while (bk_undo_next_coin(&ui, &c)) {
            if (c.script_len == 0) continue;
            if (c.raw_script) push_borrowed(f, c.raw_script, c.script_len);
            else push_copy(f, c.script_buf, c.script_len);
        }
    }
}

static inline const uint8_t *elem_bytes(const bk_blockfilter *f, const bk_blockfilter_elem *e)
{
    return e->bytes ? e->bytes : f->arena + e->offset;
}

/* LSD radix sort of elems[0..n) by hash, 8 bits a pass, skipping the
 * passes whose digit is the same in every element; insertion sort for
 * short lists. The result is in f->elems. */
static void sort_elems(bk_blockfilter *f)
{
    size_t n = f->n;
    bk_blockfilter_elem *a = f->elems, *b = f->tmp;
    if (n < 48) {
        for (size_t i = 1; i < n; i++) {
            bk_blockfilter_elem x = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1].hash > x.hash) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    static const size_t zero[256];
    size_t count[8][256];
    for (int d = 0; d < 8; d++) memcpy(count[d], zero, sizeof zero);
    for (size_t i = 0; i < n; i++) {
        uint64_t h = a[i].hash;
        for (int d = 0; d < 8; d++) count[d][(h >> (8 * d)) & 0xff]++;
    }
    for (int d = 0; d < 8; d++) {
        size_t *c = count[d];
        if (c[(a[0].hash >> (8 * d)) & 0xff] == n) continue; /* one digit value: nothing moves */
        size_t sum = 0;
        for (int k = 0; k < 256; k++) {
            size_t v = c[k];
            c[k] = sum;
            sum += v;
        }
        for (size_t i = 0; i < n; i++) b[c[(a[i].hash >> (8 * d)) & 0xff]++] = a[i];
        bk_blockfilter_elem *t = a;
        a = b;
        b = t;
    }
    if (a != f->elems) memcpy(f->elems, a, n * sizeof *a);
}

/* Most-significant-bit-first bit writer. */
typedef struct bitw {
    uint8_t *p;
    uint64_t acc;
    unsigned n; /* bits held in acc (< 8 between calls) */
} bitw;

static inline void put_bits(bitw *w, uint64_t v, unsigned nbits)
{
    /* nbits <= 56 */
    w->acc = (w->acc << nbits) | (v & (((uint64_t)1 << nbits) - 1));
    w->n += nbits;
    while (w->n >= 8) {
        w->n -= 8;
        *w->p++ = (uint8_t)(w->acc >> w->n);
    }
}

static inline void golomb_rice_encode(bitw *w, uint64_t x)
{
    uint64_t q = x >> BK_BASIC_FILTER_P;
    while (q > 0) {
        unsigned k = q < 32 ? (unsigned)q : 32;
        put_bits(w, ~(uint64_t)0, k);
        q -= k;
    }
    /* the terminating zero, then the remainder */
    put_bits(w, x & (((uint64_t)1 << BK_BASIC_FILTER_P) - 1), BK_BASIC_FILTER_P + 1);
}

bk_status bk_blockfilter_finish(bk_blockfilter *f, bk_error *err)
{
    if (f->status != BK_OK) return bk_error_set(err, f->status, 0, "out of memory building the block filter");
    if (f->n > 0 && !f->tmp) {
        /* a growth whose second buffer failed earlier */
        f->tmp = bk_alloc(f->alloc, f->cap * sizeof *f->tmp);
        if (!f->tmp) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory building the block filter");
    }
    sort_elems(f);
    /* Deduplicate by bytes: equal hashes are adjacent; within a run of
     * equal hashes keep each distinct byte string once. */
    size_t kept = 0;
    for (size_t i = 0; i < f->n;) {
        size_t j = i + 1;
        while (j < f->n && f->elems[j].hash == f->elems[i].hash) j++;
        size_t run_start = kept;
        for (size_t k = i; k < j; k++) {
            const bk_blockfilter_elem *e = &f->elems[k];
            int dup = 0;
            for (size_t m = run_start; m < kept && !dup; m++) {
                const bk_blockfilter_elem *g = &f->elems[m];
                dup = g->len == e->len && (e->len == 0 || !memcmp(elem_bytes(f, g), elem_bytes(f, e), e->len));
            }
            if (!dup) f->elems[kept++] = *e;
        }
        i = j;
    }
    if (kept >= ((uint64_t)1 << 32))
        return bk_error_set(err, BK_ERR_LENGTH, 0, "%zu filter elements: N must be < 2^32", kept);
    uint64_t range = (uint64_t)kept * BK_BASIC_FILTER_M;
    /* Bits: per element a zero bit and P remainder bits, and the quotients
     * sum to at most range >> P plus one per element (the differences sum
     * to less than the range). */
    size_t bits = kept * (BK_BASIC_FILTER_P + 2) + (size_t)(range >> BK_BASIC_FILTER_P);
    size_t need = 9 + bits / 8 + 2;
    if (need > f->filter_cap) {
        uint8_t *p = bk_realloc(f->alloc, f->filter, f->filter_cap, need);
        if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "cannot allocate %zu bytes for the block filter", need);
        f->filter = p;
        f->filter_cap = need;
    }
    size_t off = bk_compact_size_encode(f->filter, kept);
    bitw w = {f->filter + off, 0, 0};
    uint64_t last = 0;
    for (size_t i = 0; i < kept; i++) {
        /* FastRange64 is monotonic in the hash: the values come sorted. */
        uint64_t v = bk_fastrange64(f->elems[i].hash, range);
        golomb_rice_encode(&w, v - last);
        last = v;
    }
    if (w.n) *w.p++ = (uint8_t)(w.acc << (8 - w.n));
    f->filter_len = (size_t)(w.p - f->filter);
    f->n_elements = (uint32_t)kept;
    return BK_OK;
}

bk_status bk_blockfilter_build(bk_blockfilter *f, const bk_block *b, const bk_block_undo *undo, bk_error *err)
{
    uint8_t h[32];
    bk_block_hash(b, h);
    bk_blockfilter_reset(f, h);
    bk_blockfilter_add_block(f, b, undo);
    return bk_blockfilter_finish(f, err);
}

void bk_blockfilter_header(const uint8_t *filter, size_t len, const uint8_t prev_header[32], uint8_t header_out[32])
{
    uint8_t pair[64];
    bk_sha256d(pair, filter, len);
    memcpy(pair + 32, prev_header, 32);
    bk_sha256d_64(header_out, pair, 1);
}

/* ---- reading ---- */

/* Most-significant-bit-first bit reader over data[pos..len). */
typedef struct bitr {
    const uint8_t *d;
    size_t len;
    size_t pos;     /* next byte to load */
    uint64_t acc;   /* bits not yet read, right-aligned */
    unsigned n;     /* how many */
} bitr;

/* Read nbits (<= 32); 0 when the bytes end first. */
static inline int get_bits(bitr *r, unsigned nbits, uint64_t *v)
{
    while (r->n < nbits) {
        if (r->pos >= r->len) return 0;
        r->acc = (r->acc << 8) | r->d[r->pos++];
        r->n += 8;
    }
    r->n -= nbits;
    *v = (r->acc >> r->n) & (((uint64_t)1 << nbits) - 1);
    return 1;
}

/* Core GolombRiceDecode: the unary quotient, then P bits; arithmetic
 * modulo 2^64 as in Core. 0 when the bytes end first. */
static inline int golomb_rice_decode(bitr *r, uint64_t *x)
{
    uint64_t q = 0, bit;
    for (;;) {
        if (r->n == 0) {
            if (r->pos >= r->len) return 0;
            /* whole bytes of ones at once */
            if (r->d[r->pos] == 0xff) {
                r->pos++;
                q += 8;
                continue;
            }
        }
        if (!get_bits(r, 1, &bit)) return 0;
        if (!bit) break;
        q++;
    }
    uint64_t rem;
    if (!get_bits(r, BK_BASIC_FILTER_P, &rem)) return 0;
    *x = (q << BK_BASIC_FILTER_P) + rem;
    return 1;
}

bk_status bk_blockfilter_parse(const uint8_t *data, size_t len, const uint8_t block_hash[32],
                               bk_blockfilter_view *out, bk_error *err)
{
    if (!out || (!data && len)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    memset(out, 0, sizeof *out);
    bk_reader rd;
    bk_reader_init(&rd, data, len);
    uint64_t n = bk_read_compact_size(&rd, 1);
    if (!bk_reader_ok(&rd)) {
        bk_status st = bk_reader_error(&rd, err);
        if (st == BK_ERR_TRUNCATED)
            return bk_error_set(err, st, rd.err_pos, "filter ends before its element count (byte %zu)", rd.err_pos);
        return st;
    }
    out->data = data;
    out->len = len;
    out->body = rd.pos;
    out->n = (uint32_t)n;
    out->range = n * BK_BASIC_FILTER_M;
    if (block_hash) bk_blockfilter_key(block_hash, out->key);
    bitr r = {data, len, rd.pos, 0, 0};
    for (uint64_t i = 0; i < n; i++) {
        uint64_t x;
        if (!golomb_rice_decode(&r, &x))
            return bk_error_set(err, BK_ERR_TRUNCATED, len,
                                "filter element %llu of %llu runs past the end of the filter (byte %zu)",
                                (unsigned long long)i, (unsigned long long)n, len);
    }
    /* Core reads whole bytes: the bytes consumed end at r.pos. */
    if (r.pos != len)
        return bk_error_set(err, BK_ERR_TRAILING, r.pos, "filter has %zu bytes of excess data after its %llu elements (byte %zu)",
                            len - r.pos, (unsigned long long)n, r.pos);
    return BK_OK;
}

bk_status bk_blockfilter_values(const bk_blockfilter_view *v, uint64_t *values, size_t cap, bk_error *err)
{
    if (cap < v->n) return bk_error_set(err, BK_ERR_BUFFER, 0, "%zu values of room, %u needed", cap, v->n);
    bitr r = {v->data, v->len, v->body, 0, 0};
    uint64_t value = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        uint64_t x;
        if (!golomb_rice_decode(&r, &x))
            return bk_error_set(err, BK_ERR_TRUNCATED, v->len, "filter element %u runs past the end", i);
        value += x;
        values[i] = value;
    }
    return BK_OK;
}

static void sort_u64(uint64_t *a, size_t n)
{
    /* Shell sort (Ciura gaps): queries are few. */
    static const size_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        size_t gap = gaps[g];
        for (size_t i = gap; i < n; i++) {
            uint64_t x = a[i];
            size_t j = i;
            while (j >= gap && a[j - gap] > x) {
                a[j] = a[j - gap];
                j -= gap;
            }
            a[j] = x;
        }
    }
}

/* Core GCSFilter::MatchInternal over sorted query values. */
static int match_sorted(const bk_blockfilter_view *v, const uint64_t *q, size_t nq)
{
    bitr r = {v->data, v->len, v->body, 0, 0};
    uint64_t value = 0;
    size_t qi = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        uint64_t x;
        if (!golomb_rice_decode(&r, &x)) return 0; /* a parsed view cannot end early */
        value += x;
        for (;;) {
            if (qi == nq) return 0;
            if (q[qi] == value) return 1;
            if (q[qi] > value) break;
            qi++;
        }
    }
    return 0;
}

int bk_blockfilter_match_any(const bk_blockfilter_view *v, const uint8_t *const *elems, const size_t *lens, size_t n,
                             uint64_t *scratch)
{
    if (!v || v->n == 0 || n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        scratch[i] = bk_fastrange64(bk_siphash24(v->key[0], v->key[1], elems[i], lens[i]), v->range);
    sort_u64(scratch, n);
    return match_sorted(v, scratch, n);
}

int bk_blockfilter_match(const bk_blockfilter_view *v, const uint8_t *elem, size_t len)
{
    uint64_t q;
    const uint8_t *e[1] = {elem};
    size_t l[1] = {len};
    return bk_blockfilter_match_any(v, e, l, 1, &q);
}
