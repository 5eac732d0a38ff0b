/* The Parquet writer's state (src/parquet/writer.c) and the short paths of
 * its value calls, inline for the row code of the library's own tables
 * (src/table/): a flat column, in order, with room in its buffers, no
 * error, takes the value here; anything else (a first value, a full
 * buffer, a list, misuse) returns 0 before touching anything and the
 * caller makes the public call, which does the rest. Not installed. */
#ifndef BLOCKKIT_PARQUET_WRITER_INTERNAL_H
#define BLOCKKIT_PARQUET_WRITER_INTERNAL_H

#include <blockkit/parquet.h>

#include <string.h>
#include <zstd.h>

#define STAT_MAX 64 /* bytes kept of a string min/max */
/* Room kept before a page's PLAIN values for its encoded levels, so a page
 * with levels is compressed in place rather than copied behind them (the
 * levels of a 1 MiB page are a few hundred bytes when they repeat, at most
 * about 1/16 of the value count when bit-packed; more falls back to the copy). */
#define LEVEL_ROOM 8192

/* Physical types (parquet.thrift Type). */
enum { PT_BOOLEAN = 0, PT_INT32 = 1, PT_INT64 = 2, PT_BYTE_ARRAY = 6, PT_FIXED_LEN_BYTE_ARRAY = 7 };
/* Encoding. */
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };
/* FieldRepetitionType. */
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1, REP_REPEATED = 2 };
/* ConvertedType. */
enum { CV_UTF8 = 0, CV_LIST = 3, CV_TIMESTAMP_MILLIS = 9, CV_TIMESTAMP_MICROS = 10 };
/* PageType. */
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };

typedef struct dict_ent {
    uint32_t off; /* of the value bytes in dict */
    uint32_t len;
    uint32_t hash;
} dict_ent;

typedef struct pq_col {
    const bk_pq_column *def;
    int max_def, max_rep;
    int ptype;
    size_t width;          /* fixed PLAIN width (0: byte array, bool packs bits) */
    /* open page */
    uint8_t *def_lv, *rep_lv;  /* levels are 0..2: a byte each */
    size_t nlv, lv_cap, rep_cap;
    bk_writer vals;        /* PLAIN values (bools one byte each), after head bytes of room */
    size_t head;           /* room before the values for the page's levels (columns with levels) */
    uint32_t *idx;
    size_t nidx, idx_cap;
    size_t page_values;    /* level entries (or rows) in the page */
    /* dictionary of the chunk */
    int use_dict;          /* column asked for it */
    int dict_on;           /* values go to the dictionary */
    bk_writer dict;        /* PLAIN entries */
    dict_ent *ents;
    size_t nents, ents_cap;
    uint32_t last_idx;
    uint64_t *table;       /* hash << 32 | entry + 1, 0 empty: a probe reads an entry only on a hash match */
    size_t table_cap;
    /* finished pages of the chunk */
    bk_writer chunk;
    uint64_t chunk_values;
    uint64_t chunk_uncompressed;
    int had_plain, had_dict;
    /* statistics */
    int64_t nulls;
    int has_minmax;
    int minmax;            /* keeps min/max (no BK_PQ_NO_MINMAX) */
    int64_t imin, imax;
    bk_writer smin, smax;
    uint64_t smin_key, smax_key; /* first 8 bytes of smin / smax, big-endian, zero-padded */
    int smin_cut, smax_cut;
    size_t str_at;         /* bk_pq_str_open: where the value's length goes in vals */
} pq_col;

struct bk_pq_writer {
    const bk_allocator *alloc;
    bk_pq_opts o;
    const bk_pq_column *cols_def;
    pq_col *cols;
    size_t ncols;
    bk_sink_fn sink;
    void *sink_ctx;
    uint64_t pos;          /* bytes written */
    uint64_t rows, rg_rows;
    size_t next;           /* column expected next */
    size_t in_list;        /* column of the open list, or SIZE_MAX */
    uint32_t list_items;
    size_t open_str;       /* column of an open bk_pq_str_open value, or SIZE_MAX */
    int fast;              /* status OK, no list or string open, not finished: values take the short path */
    size_t since_check;    /* value bytes added since pages and the buffered total were last looked at */
    size_t page_check;     /* ... every this many bytes */
    bk_writer scratch;     /* bk_pq_str_open of a dictionary column, or after an error */
    bk_writer page;        /* scratch: a page body */
    bk_writer comp;        /* scratch: compressed body */
    bk_writer hdr;         /* scratch: page header */
    bk_writer rgmeta;      /* serialized RowGroup structs */
    size_t n_rowgroups;
    ZSTD_CCtx *zctx;
    bk_status status;
    char msg[BK_ERROR_MSG_MAX];
    int finished;
    const bk_pq_kv *kv;    /* bk_pq_set_metadata: the footer's key_value_metadata */
    size_t nkv;
};

/* a[0..n) == b[0..n), inline: the values compared here are short (8-byte
 * integers, 64-byte hashes), a call to memcmp costs more than the compare. */
static inline int bytes_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint64_t d = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        d |= x ^ y;
    }
    for (; i < n; i++) d |= (uint64_t)(a[i] ^ b[i]);
    return d == 0;
}

/* The dictionary's hash: 64-bit multiply-xorshift over 8-byte words, then
 * murmur3's fmix64: the table takes the low bits, and hex text (16 values
 * a byte) needs every input bit mixed into them. */
static inline uint32_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        h = (h ^ v) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* Asks the cache for the dictionary table slot where the value p[0..n)
 * of column col will be looked up (a value of a later row: a value new to
 * the dictionary, such as each transaction's hash, misses the cache there,
 * and the load then overlaps the rows written before it). Changes
 * nothing; a rehash in between only wastes the load. */
static inline void bk_pq_dict_prefetch_(const bk_pq_writer *w, size_t col, const uint8_t *p, size_t n)
{
    if (col >= w->ncols) return;
    const pq_col *c = &w->cols[col];
    if (!c->dict_on || !c->table_cap) return;
    const void *slot = &c->table[hash_bytes(p, n) & (uint32_t)(c->table_cap - 1)];
#if defined(__GNUC__) && defined(__x86_64__)
    /* an asm: gcc 12 at -O1 and above drops a __builtin_prefetch behind
     * these conditions once inlined into the row loop (no instruction left) */
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)slot));
#else
    __builtin_prefetch(slot);
#endif
}

static inline void stat_int(pq_col *c, int64_t v)
{
    if (!c->has_minmax) {
        c->imin = c->imax = v;
        c->has_minmax = 1;
        return;
    }
    if (v < c->imin) c->imin = v;
    if (v > c->imax) c->imax = v;
}

/* The first 8 bytes, big-endian, zero-padded: key(a) < key(b) implies a < b
 * in unsigned byte order (a shorter string sorts before its extensions, as
 * its zero padding does), so most values are placed by one compare. */
static inline uint64_t str_key(const uint8_t *p, size_t n)
{
    uint64_t k = 0;
    if (n >= 8) {
        memcpy(&k, p, 8);
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        return __builtin_bswap64(k);
#else
        k = 0;
#endif
    }
    size_t m = n < 8 ? n : 8;
    for (size_t i = 0; i < 8; i++) k = (k << 8) | (i < m ? p[i] : 0u);
    return k;
}

void bk_pq_stat_str_slow_(pq_col *c, const uint8_t *p, size_t n, uint64_t k);

static inline void stat_str(pq_col *c, const uint8_t *p, size_t n)
{
    uint64_t k = str_key(p, n);
    if (c->has_minmax && k > c->smin_key && k < c->smax_key) return; /* strictly inside */
    bk_pq_stat_str_slow_(c, p, n, k);
}

/* A dictionary column whose value p[0..n) is the one of its last index
 * (block_hash, block_number on every row of a block; transaction_hash on
 * the rows of one transaction): that index again, without the hash table.
 * 1 when done. */
static inline int dict_repeat(bk_pq_writer *w, pq_col *c, const uint8_t *p, size_t n)
{
    if (c->last_idx >= c->nents || c->nidx >= c->idx_cap) return 0;
    const dict_ent *e = &c->ents[c->last_idx];
    if (e->len != n || !bytes_eq(c->dict.data + e->off, p, n)) return 0;
    c->idx[c->nidx++] = c->last_idx;
    w->since_check += n + 4;
    return 1;
}

/* The column for the next value when the short path applies: flat (no
 * list), in order, of the type, with room for its level; NULL otherwise. */
static inline __attribute__((always_inline)) pq_col *pq_short_col(bk_pq_writer *w, size_t col, int ptype)
{
    if (!w->fast || col != w->next || col >= w->ncols) return NULL;
    pq_col *c = &w->cols[col];
    if (c->ptype != ptype || c->max_rep || (c->max_def && c->nlv >= c->lv_cap)) return NULL;
    return c;
}

static inline __attribute__((always_inline)) void pq_short_levels(bk_pq_writer *w, pq_col *c)
{
    c->page_values++;
    if (c->max_def) c->def_lv[c->nlv++] = (uint8_t)c->max_def;
    w->next++;
}

/* bk_pq_i64 (INT64 and TIMESTAMP columns); 1 when done. */
static inline __attribute__((always_inline)) int bk_pq_i64_short_(bk_pq_writer *w, size_t col, int64_t v)
{
    pq_col *c = pq_short_col(w, col, PT_INT64);
    if (!c) return 0;
    if (c->dict_on) {
        uint8_t b[8];
        bk_store_le64(b, (uint64_t)v);
        if (c->last_idx >= c->nents || c->nidx >= c->idx_cap) return 0;
        const dict_ent *e = &c->ents[c->last_idx];
        if (e->len != 8 || !bytes_eq(c->dict.data + e->off, b, 8)) return 0;
        pq_short_levels(w, c);
        c->idx[c->nidx++] = c->last_idx;
        w->since_check += 12;
        return 1;
    }
    if (c->vals.cap - c->vals.len < 8 || c->vals.status != BK_OK) return 0;
    pq_short_levels(w, c);
    bk_store_le64(c->vals.data + c->vals.len, (uint64_t)v);
    c->vals.len += 8;
    w->since_check += 8;
    if (c->minmax) stat_int(c, v);
    return 1;
}

/* bk_pq_bool; 1 when done. */
static inline __attribute__((always_inline)) int bk_pq_bool_short_(bk_pq_writer *w, size_t col, int v)
{
    pq_col *c = pq_short_col(w, col, PT_BOOLEAN);
    if (!c || c->vals.cap == c->vals.len || c->vals.status != BK_OK) return 0;
    pq_short_levels(w, c);
    uint8_t b = v ? 1 : 0;
    c->vals.data[c->vals.len++] = b;
    w->since_check++;
    if (c->minmax) stat_int(c, b);
    return 1;
}

/* bk_pq_null; 1 when done. */
static inline __attribute__((always_inline)) int bk_pq_null_short_(bk_pq_writer *w, size_t col)
{
    if (!w->fast || col != w->next || col >= w->ncols) return 0;
    pq_col *c = &w->cols[col];
    if (!(c->def->flags & BK_PQ_OPTIONAL) || c->max_rep || c->nlv >= c->lv_cap) return 0;
    c->page_values++;
    c->def_lv[c->nlv++] = 0;
    c->nulls++;
    w->next++;
    w->since_check++;
    return 1;
}

/* bk_pq_bin of a FIXED_LEN_BYTE_ARRAY(32) value already in its order; 1 when done. */
static inline __attribute__((always_inline)) int bk_pq_fixed32_short_(bk_pq_writer *w, size_t col, const uint8_t *p)
{
    pq_col *c = pq_short_col(w, col, PT_FIXED_LEN_BYTE_ARRAY);
    if (!c) return 0;
    if (c->dict_on) {
        if (c->last_idx >= c->nents || c->nidx >= c->idx_cap) return 0;
        const dict_ent *e = &c->ents[c->last_idx];
        if (e->len != 32 || !bytes_eq(c->dict.data + e->off, p, 32)) return 0;
        pq_short_levels(w, c);
        c->idx[c->nidx++] = c->last_idx;
        w->since_check += 36;
        return 1;
    }
    if (c->vals.cap - c->vals.len < 32 || c->vals.status != BK_OK) return 0;
    pq_short_levels(w, c);
    memcpy(c->vals.data + c->vals.len, p, 32);
    c->vals.len += 32;
    w->since_check += 32;
    if (c->minmax) stat_str(c, p, 32);
    return 1;
}

/* bk_pq_str; 1 when done. */
static inline __attribute__((always_inline)) int bk_pq_str_short_(bk_pq_writer *w, size_t col, const char *s, size_t n)
{
    pq_col *c = pq_short_col(w, col, PT_BYTE_ARRAY);
    if (!c || n > 0x7fffffff) return 0;
    const uint8_t *p = (const uint8_t *)s;
    if (c->dict_on) {
        if (c->last_idx >= c->nents || c->nidx >= c->idx_cap) return 0;
        const dict_ent *e = &c->ents[c->last_idx];
        if (e->len != n || !bytes_eq(c->dict.data + e->off, p, n)) return 0;
        pq_short_levels(w, c);
        c->idx[c->nidx++] = c->last_idx;
        w->since_check += n + 4;
        return 1;
    }
    if (c->vals.cap - c->vals.len < n + 4 || c->vals.status != BK_OK) return 0;
    pq_short_levels(w, c);
    uint8_t *d = c->vals.data + c->vals.len;
    bk_store_le32(d, (uint32_t)n);
    if (n) memcpy(d + 4, p, n);
    c->vals.len += n + 4;
    w->since_check += n + 4;
    if (c->minmax) stat_str(c, p, n);
    return 1;
}

#endif
