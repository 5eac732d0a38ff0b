/* Parquet writer (see blockkit/parquet.h). Written from apache/parquet-format
 * (parquet.thrift, Encodings.md, Compression.md, LogicalTypes.md).
 *
 * Per column: the open page (levels as u32, PLAIN values or dictionary
 * indices), the chunk's finished pages (header + compressed body), the
 * chunk's dictionary (PLAIN entries + an open-addressing table) and its
 * statistics. A row group is written column after column (dictionary page
 * first) when the buffered bytes pass row_group_size; its metadata is kept
 * serialized until the footer. */
#include <blockkit/parquet.h>

#include "thrift.h"
#include "writer_internal.h"

#include <blockkit/hex.h>

#include <snappy-c.h>
#include <stdarg.h>
#include <stdio.h>
/* for ZSTD_c_literalCompressionMode (a parameter of ZSTD_CCtx_setParameter,
 * the stable entry point; libzstd >= 1.4.5 knows it, older ones refuse it
 * and keep their default) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

/* bk_writer_put that accepts nothing to write (NULL, 0). */
static inline void put_n(bk_writer *w, const void *p, size_t n)
{
    if (n) bk_writer_put(w, p, n);
}


void bk_pq_opts_init(bk_pq_opts *o)
{
    memset(o, 0, sizeof *o);
    o->codec = BK_PQ_ZSTD;
    o->zstd_level = BK_PQ_ZSTD_LEVEL_DEFAULT;
    o->page_size = (size_t)1 << 20;
    o->row_group_size = (size_t)64 << 20;
    o->dict_max_bytes = (size_t)1 << 20;
    o->created_by = "blockkit";
}

bk_status bk_pq_codec_parse(const char *name, bk_pq_codec *out)
{
    if (!name || !out) return BK_ERR_ARG;
    if (!strcmp(name, "zstd")) *out = BK_PQ_ZSTD;
    else if (!strcmp(name, "snappy")) *out = BK_PQ_SNAPPY;
    else if (!strcmp(name, "none") || !strcmp(name, "uncompressed")) *out = BK_PQ_UNCOMPRESSED;
    else return BK_ERR_ARG;
    return BK_OK;
}

static void fail(bk_pq_writer *w, bk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(bk_pq_writer *w, bk_status st, const char *fmt, ...)
{
    if (w->status != BK_OK) return;
    w->status = st;
    w->fast = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof w->msg, fmt, ap);
    va_end(ap);
}

static bk_status report(const bk_pq_writer *w, bk_error *err)
{
    if (w->status == BK_OK) return BK_OK;
    return bk_error_set(err, w->status, w->pos, "parquet: %s", w->msg);
}

static void out_put(bk_pq_writer *w, const void *p, size_t n)
{
    if (w->status != BK_OK || n == 0) return;
    if (w->sink(w->sink_ctx, p, n) != 0) {
        fail(w, BK_ERR_IO, "writing to the sink failed"); /* report() adds the offset */
        return;
    }
    w->pos += n;
}

static int grow_u32(const bk_allocator *a, uint32_t **p, size_t *cap, size_t need)
{
    if (need <= *cap) return 1;
    size_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    uint32_t *q = bk_realloc(a, *p, *cap * sizeof **p, n * sizeof **p);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* ---- RLE / bit-packed hybrid (Encodings.md) ---- */

/* The encoder over values of type T (uint32_t dictionary indices, uint8_t
 * levels): runs of 8 or more as RLE runs, the rest as bit-packed groups of
 * 8 until a run of 8 starts at a group boundary; only the last group of
 * the stream is padded. Bits are packed through a 64-bit accumulator. */
#define BK_PQ_RLE_ENCODER(NAME, T)                                                                            \
    static size_t NAME##_run(const T *v, size_t i, size_t n, size_t limit)                                    \
    {                                                                                                         \
        size_t j = i + 1;                                                                                     \
        while (j < n && j - i < limit && v[j] == v[i]) j++;                                                   \
        return j - i;                                                                                         \
    }                                                                                                         \
    static void NAME(bk_writer *out, const T *v, size_t n, unsigned bw)                                       \
    {                                                                                                         \
        size_t vbytes = (bw + 7) / 8;                                                                         \
        size_t i = 0;                                                                                         \
        while (i < n) {                                                                                       \
            size_t r = NAME##_run(v, i, n, SIZE_MAX);                                                         \
            if (r >= 8) {                                                                                     \
                tc_varint(out, (uint64_t)r << 1);                                                             \
                uint8_t b[4];                                                                                 \
                for (size_t k = 0; k < vbytes; k++) b[k] = (uint8_t)((uint32_t)v[i] >> (8 * k));              \
                bk_writer_put(out, b, vbytes);                                                                \
                i += r;                                                                                       \
                continue;                                                                                     \
            }                                                                                                 \
            size_t j = i;                                                                                     \
            do {                                                                                              \
                j += 8;                                                                                       \
            } while (j < n && NAME##_run(v, j, n, 8) < 8 && (j - i) / 8 < 0x3fffffff);                        \
            size_t groups = (j - i) / 8;                                                                      \
            tc_varint(out, ((uint64_t)groups << 1) | 1);                                                      \
            size_t nbytes = groups * bw;                                                                      \
            uint8_t *p = bk_writer_space(out, nbytes);                                                        \
            if (!p) return;                                                                                   \
            uint64_t acc = 0;                                                                                 \
            unsigned nb = 0;                                                                                  \
            for (size_t k = i; k < j; k++) {                                                                  \
                acc |= (uint64_t)(k < n ? (uint32_t)v[k] : 0u) << nb;                                         \
                nb += bw;                                                                                     \
                while (nb >= 8) {                                                                             \
                    *p++ = (uint8_t)acc;                                                                      \
                    acc >>= 8;                                                                                \
                    nb -= 8;                                                                                  \
                }                                                                                             \
            }                                                                                                 \
            bk_writer_commit(out, nbytes);                                                                    \
            i = j;                                                                                            \
        }                                                                                                     \
    }

BK_PQ_RLE_ENCODER(rle_u32, uint32_t)
BK_PQ_RLE_ENCODER(rle_u8, uint8_t)

void bk_pq_rle_encode(bk_writer *out, const uint32_t *v, size_t n, unsigned bw) { rle_u32(out, v, n, bw); }

void bk_pq_rle_encode_u8(bk_writer *out, const uint8_t *v, size_t n, unsigned bw)
{
    if (bw > 8) bw = 8;
    rle_u8(out, v, n, bw);
}

bk_status bk_pq_rle_decode(const uint8_t *p, size_t len, unsigned bw, uint32_t *vals, size_t n)
{
    if (bw < 1 || bw > 32) return BK_ERR_ARG;
    size_t pos = 0, got = 0, vbytes = (bw + 7) / 8;
    while (got < n) {
        uint64_t h = 0;
        unsigned shift = 0;
        for (;;) {
            if (pos >= len) return BK_ERR_TRUNCATED;
            uint8_t b = p[pos++];
            if (shift > 63) return BK_ERR_INVALID;
            h |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80)) break;
        }
        if (h & 1) {
            uint64_t cnt = (h >> 1) * 8;
            if (len - pos < (h >> 1) * bw) return BK_ERR_TRUNCATED;
            uint64_t bit = 0;
            for (uint64_t k = 0; k < cnt; k++) {
                uint32_t x = 0;
                for (unsigned b = 0; b < bw; b++, bit++)
                    x |= (uint32_t)((p[pos + (bit >> 3)] >> (bit & 7)) & 1) << b;
                if (got < n) vals[got++] = x;
                else if (x) return BK_ERR_INVALID;
            }
            pos += (size_t)((h >> 1) * bw);
        } else {
            uint64_t cnt = h >> 1;
            if (len - pos < vbytes) return BK_ERR_TRUNCATED;
            uint32_t x = 0;
            for (size_t k = 0; k < vbytes; k++) x |= (uint32_t)p[pos + k] << (8 * k);
            pos += vbytes;
            if (cnt > n - got) return BK_ERR_INVALID;
            for (uint64_t k = 0; k < cnt; k++) vals[got++] = x;
        }
    }
    return BK_OK;
}

static unsigned bits_for(uint64_t max)
{
    unsigned b = 0;
    while (max) {
        b++;
        max >>= 1;
    }
    return b ? b : 1;
}

/* ---- schema ---- */

static int ptype_of(bk_pq_type t)
{
    switch (t) {
    case BK_PQ_BOOLEAN: return PT_BOOLEAN;
    case BK_PQ_INT32: return PT_INT32;
    case BK_PQ_STRING:
    case BK_PQ_BYTES: return PT_BYTE_ARRAY;
    case BK_PQ_FIXED32: return PT_FIXED_LEN_BYTE_ARRAY;
    default: return PT_INT64;
    }
}

/* Empty the open page's values, keeping the room for its levels (an
 * allocation failure shows as the writer's status, checked at the flush). */
static inline size_t vals_bytes(const pq_col *c) { return c->vals.len > c->head ? c->vals.len - c->head : 0; }

static void vals_reset(pq_col *c)
{
    bk_writer_reset(&c->vals);
    if (c->head && bk_writer_space(&c->vals, c->head)) bk_writer_commit(&c->vals, c->head);
}

static void col_init(bk_pq_writer *w, pq_col *c, const bk_pq_column *d)
{
    memset(c, 0, sizeof *c);
    c->def = d;
    c->ptype = ptype_of(d->type);
    c->width = c->ptype == PT_INT32 ? 4 : c->ptype == PT_INT64 ? 8 : c->ptype == PT_FIXED_LEN_BYTE_ARRAY ? 32 : 0;
    int opt = (d->flags & BK_PQ_OPTIONAL) != 0;
    if (d->flags & BK_PQ_LIST) {
        c->max_def = 1 + opt;
        c->max_rep = 1;
    } else {
        c->max_def = opt;
    }
    c->use_dict = (d->flags & BK_PQ_DICT) && c->ptype != PT_BOOLEAN;
    c->dict_on = c->use_dict;
    c->minmax = !(d->flags & BK_PQ_NO_MINMAX);
    bk_writer_init(&c->vals, w->alloc);
    bk_writer_init(&c->dict, w->alloc);
    bk_writer_init(&c->chunk, w->alloc);
    bk_writer_init(&c->smin, w->alloc);
    bk_writer_init(&c->smax, w->alloc);
    c->head = (c->max_def || c->max_rep) && c->ptype != PT_BOOLEAN ? LEVEL_ROOM : 0;
    vals_reset(c);
}

static void col_free(bk_pq_writer *w, pq_col *c)
{
    const bk_allocator *a = w->alloc;
    bk_free(a, c->def_lv, c->lv_cap);
    bk_free(a, c->rep_lv, c->rep_cap);
    bk_free(a, c->idx, c->idx_cap * sizeof(uint32_t));
    bk_free(a, c->ents, c->ents_cap * sizeof(dict_ent));
    bk_free(a, c->table, c->table_cap * sizeof(uint64_t));
    bk_writer_free(&c->vals);
    bk_writer_free(&c->dict);
    bk_writer_free(&c->chunk);
    bk_writer_free(&c->smin);
    bk_writer_free(&c->smax);
}

bk_status bk_pq_writer_new(bk_pq_writer **out, const bk_pq_column *cols, size_t ncols, const bk_pq_opts *opts,
                           bk_sink_fn sink, void *ctx, const bk_allocator *alloc, bk_error *err)
{
    if (!out || !cols || !ncols || !sink || ncols > 100000)
        return bk_error_set(err, BK_ERR_ARG, 0, "parquet: no columns or no sink");
    *out = NULL;
    for (size_t i = 0; i < ncols; i++) {
        if (!cols[i].name || !cols[i].name[0] || cols[i].type >= BK_PQ_TYPE_COUNT_ ||
            (cols[i].flags & ~(BK_PQ_OPTIONAL | BK_PQ_LIST | BK_PQ_DICT | BK_PQ_NO_MINMAX)))
            return bk_error_set(err, BK_ERR_ARG, 0, "parquet: column %zu has no name, or a bad type or flags", i);
    }
    bk_pq_writer *w = bk_alloc(alloc, sizeof *w);
    if (!w) return bk_error_set(err, BK_ERR_NOMEM, 0, "parquet: out of memory");
    memset(w, 0, sizeof *w);
    w->alloc = alloc;
    if (opts) w->o = *opts;
    else bk_pq_opts_init(&w->o);
    if (!w->o.page_size) w->o.page_size = (size_t)1 << 20;
    if (!w->o.row_group_size) w->o.row_group_size = (size_t)64 << 20;
    if (!w->o.dict_max_bytes) w->o.dict_max_bytes = (size_t)1 << 20;
    if (!w->o.created_by) w->o.created_by = "blockkit";
    w->page_check = w->o.page_size / 16;
    if (w->page_check > w->o.row_group_size / 64) w->page_check = w->o.row_group_size / 64;
    if (w->page_check > ((size_t)64 << 10)) w->page_check = (size_t)64 << 10;
    if (w->o.codec != BK_PQ_UNCOMPRESSED && w->o.codec != BK_PQ_SNAPPY && w->o.codec != BK_PQ_ZSTD) {
        bk_free(alloc, w, sizeof *w);
        return bk_error_set(err, BK_ERR_ARG, 0, "parquet: unknown codec %d", (int)w->o.codec);
    }
    w->cols_def = cols;
    w->ncols = ncols;
    w->sink = sink;
    w->sink_ctx = ctx;
    w->in_list = SIZE_MAX;
    bk_writer_init(&w->page, alloc);
    bk_writer_init(&w->comp, alloc);
    bk_writer_init(&w->hdr, alloc);
    bk_writer_init(&w->rgmeta, alloc);
    bk_writer_init(&w->scratch, alloc);
    w->open_str = SIZE_MAX;
    w->fast = 1;
    w->cols = bk_alloc(alloc, ncols * sizeof *w->cols);
    if (!w->cols) {
        bk_free(alloc, w, sizeof *w);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "parquet: out of memory");
    }
    for (size_t i = 0; i < ncols; i++) col_init(w, &w->cols[i], &cols[i]);
    if (w->o.codec == BK_PQ_ZSTD) {
        w->zctx = ZSTD_createCCtx();
        if (!w->zctx) {
            bk_pq_writer_free(w);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "parquet: out of memory (zstd context)");
        }
        /* One context for every page of the writer. Negative (fast) levels
         * turn Huffman coding of literals off by default; the pages here are
         * mostly hex text (4 bits of entropy per byte) that matches rarely,
         * so literal coding is what compresses them: keep it on. */
        size_t r = ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_compressionLevel, w->o.zstd_level);
        if (ZSTD_isError(r)) {
            bk_pq_writer_free(w);
            return bk_error_set(err, BK_ERR_ARG, 0, "parquet: zstd level %d: %s", w->o.zstd_level,
                                ZSTD_getErrorName(r));
        }
        (void)ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_literalCompressionMode, 1 /* ZSTD_ps_enable */);
        /* ... and at those levels matches of at least 7 bytes: the shorter
         * ones zstd's fast levels take in such text cost more bits than the
         * Huffman-coded literals they replace (the block export's files 4%
         * smaller, compressed 7% faster; the utxos' within 1%). */
        if (w->o.zstd_level < 0) (void)ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_minMatch, 7);
    }
    out_put(w, "PAR1", 4);
    if (w->status != BK_OK) {
        bk_status st = report(w, err);
        bk_pq_writer_free(w);
        return st;
    }
    *out = w;
    return BK_OK;
}

bk_status bk_pq_writer_reset(bk_pq_writer *w, bk_sink_fn sink, void *ctx, bk_error *err)
{
    if (!w || !sink) return bk_error_set(err, BK_ERR_ARG, 0, "parquet: no writer or no sink");
    for (size_t i = 0; i < w->ncols; i++) {
        pq_col *c = &w->cols[i];
        c->nlv = c->nidx = c->page_values = 0;
        vals_reset(c);
        bk_writer_reset(&c->dict);
        c->nents = 0;
        c->last_idx = 0;
        if (c->table) memset(c->table, 0, c->table_cap * sizeof *c->table);
        c->dict_on = c->use_dict;
        bk_writer_reset(&c->chunk);
        c->chunk_values = c->chunk_uncompressed = 0;
        c->had_plain = c->had_dict = 0;
        c->nulls = 0;
        c->has_minmax = 0;
        c->smin_cut = c->smax_cut = 0;
        bk_writer_reset(&c->smin);
        bk_writer_reset(&c->smax);
        c->str_at = 0;
    }
    w->sink = sink;
    w->sink_ctx = ctx;
    w->kv = NULL;
    w->nkv = 0;
    w->pos = 0;
    w->rows = w->rg_rows = 0;
    w->next = 0;
    w->in_list = SIZE_MAX;
    w->list_items = 0;
    w->open_str = SIZE_MAX;
    w->since_check = 0;
    bk_writer_reset(&w->page);
    bk_writer_reset(&w->comp);
    bk_writer_reset(&w->hdr);
    bk_writer_reset(&w->rgmeta);
    bk_writer_reset(&w->scratch);
    w->n_rowgroups = 0;
    w->status = BK_OK;
    w->msg[0] = 0;
    w->finished = 0;
    w->fast = 1;
    out_put(w, "PAR1", 4);
    return report(w, err);
}

void bk_pq_writer_free(bk_pq_writer *w)
{
    if (!w) return;
    const bk_allocator *a = w->alloc;
    if (w->cols)
        for (size_t i = 0; i < w->ncols; i++) col_free(w, &w->cols[i]);
    bk_free(a, w->cols, w->ncols * sizeof *w->cols);
    bk_writer_free(&w->page);
    bk_writer_free(&w->comp);
    bk_writer_free(&w->hdr);
    bk_writer_free(&w->rgmeta);
    bk_writer_free(&w->scratch);
    if (w->zctx) ZSTD_freeCCtx(w->zctx);
    bk_free(a, w, sizeof *w);
}

uint64_t bk_pq_rows(const bk_pq_writer *w) { return w->rows; }
uint64_t bk_pq_bytes(const bk_pq_writer *w) { return w->pos; }

static size_t col_buffered(const pq_col *c)
{
    return c->chunk.len + vals_bytes(c) + c->nidx * 4 + c->nlv * 2 + c->dict.len + c->nents * sizeof(dict_ent) +
           c->table_cap * 8;
}

/* ---- values ---- */

static int levels_grow(bk_pq_writer *w, pq_col *c)
{
    if (c->nlv == c->lv_cap) {
        size_t nc = c->lv_cap ? c->lv_cap * 2 : 4096;
        uint8_t *d = bk_realloc(w->alloc, c->def_lv, c->lv_cap, nc);
        if (!d) {
            fail(w, BK_ERR_NOMEM, "out of memory (levels of column %s)", c->def->name);
            return 0;
        }
        c->def_lv = d;
        c->lv_cap = nc;
    }
    if (c->max_rep && c->nlv == c->rep_cap) {
        size_t nc = c->rep_cap ? c->rep_cap * 2 : 4096;
        uint8_t *r = bk_realloc(w->alloc, c->rep_lv, c->rep_cap, nc);
        if (!r) {
            fail(w, BK_ERR_NOMEM, "out of memory (levels of column %s)", c->def->name);
            return 0;
        }
        c->rep_lv = r;
        c->rep_cap = nc;
    }
    return 1;
}

static inline void push_levels(bk_pq_writer *w, pq_col *c, uint32_t def, uint32_t rep)
{
    c->page_values++;
    if (!c->max_def && !c->max_rep) return;
    if ((c->nlv == c->lv_cap || (c->max_rep && c->nlv == c->rep_cap)) && !levels_grow(w, c)) return;
    c->def_lv[c->nlv] = (uint8_t)def;
    if (c->max_rep) c->rep_lv[c->nlv] = (uint8_t)rep;
    c->nlv++;
}

static int dict_rehash(bk_pq_writer *w, pq_col *c, size_t cap)
{
    uint64_t *t = bk_alloc(w->alloc, cap * sizeof *t);
    if (!t) return 0;
    memset(t, 0, cap * sizeof *t);
    for (size_t e = 0; e < c->nents; e++) {
        uint32_t hv = c->ents[e].hash, h = hv & (uint32_t)(cap - 1);
        while (t[h]) h = (h + 1) & (uint32_t)(cap - 1);
        t[h] = (uint64_t)hv << 32 | ((uint32_t)e + 1);
    }
    bk_free(w->alloc, c->table, c->table_cap * sizeof *c->table);
    c->table = t;
    c->table_cap = cap;
    return 1;
}


/* The dictionary index of the value bytes p[0..n), inserting it: 1 when
 * it was there, 2 when inserted, 0 out of memory. */
static int dict_index(bk_pq_writer *w, pq_col *c, const uint8_t *p, size_t n, uint32_t *idx_out)
{
    /* Runs of one value (block_hash, block_number on every row of a block). */
    if (c->nents && c->last_idx < c->nents) {
        const dict_ent *e = &c->ents[c->last_idx];
        if (e->len == n && bytes_eq(c->dict.data + e->off, p, n)) {
            *idx_out = c->last_idx;
            return 1;
        }
    }
    if ((c->nents + 1) * 2 > c->table_cap && !dict_rehash(w, c, c->table_cap ? c->table_cap * 2 : 256)) return 0;
    uint32_t mask = (uint32_t)(c->table_cap - 1);
    uint32_t hv = hash_bytes(p, n), h = hv & mask;
    while (c->table[h]) {
        uint64_t slot = c->table[h];
        if ((uint32_t)(slot >> 32) == hv) {
            uint32_t ix = (uint32_t)slot - 1;
            const dict_ent *e = &c->ents[ix];
            if (e->len == n && bytes_eq(c->dict.data + e->off, p, n)) {
                *idx_out = c->last_idx = ix;
                return 1;
            }
        }
        h = (h + 1) & mask;
    }
    if (c->nents == c->ents_cap) {
        size_t nc = c->ents_cap ? c->ents_cap * 2 : 256;
        dict_ent *q = bk_realloc(w->alloc, c->ents, c->ents_cap * sizeof *q, nc * sizeof *q);
        if (!q) return 0;
        c->ents = q;
        c->ents_cap = nc;
    }
    if (c->ptype == PT_BYTE_ARRAY) {
        uint8_t l[4];
        bk_store_le32(l, (uint32_t)n);
        put_n(&c->dict, l, 4);
    }
    size_t off = c->dict.len;
    put_n(&c->dict, p, n);
    if (bk_writer_status(&c->dict) != BK_OK || off > UINT32_MAX) return 0;
    c->ents[c->nents].off = (uint32_t)off;
    c->ents[c->nents].len = (uint32_t)n;
    c->ents[c->nents].hash = hv;
    c->table[h] = (uint64_t)hv << 32 | ((uint32_t)c->nents + 1);
    *idx_out = c->last_idx = (uint32_t)c->nents++;
    return 2;
}


static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t m = an < bn ? an : bn;
    int r = m ? memcmp(a, b, m) : 0;
    if (r) return r;
    return an < bn ? -1 : an > bn;
}


void bk_pq_stat_str_slow_(pq_col *c, const uint8_t *p, size_t n, uint64_t k)
{
    size_t t = n < STAT_MAX ? n : STAT_MAX;
    if (!c->has_minmax) {
        put_n(&c->smin, p, t);
        put_n(&c->smax, p, t);
        c->smin_key = c->smax_key = k;
        c->smin_cut = c->smax_cut = t < n;
        c->has_minmax = 1;
        return;
    }
    /* Truncation keeps the order (a <= b gives cut(a) <= cut(b)). */
    int r = k < c->smin_key ? -1 : bytes_cmp(p, t, c->smin.data, c->smin.len);
    if (r < 0) {
        bk_writer_reset(&c->smin);
        put_n(&c->smin, p, t);
        c->smin_key = k;
        c->smin_cut = t < n;
    } else if (r == 0 && t == n) {
        c->smin_cut = 0;
    }
    r = k > c->smax_key ? 1 : bytes_cmp(p, t, c->smax.data, c->smax.len);
    if (r > 0) {
        bk_writer_reset(&c->smax);
        put_n(&c->smax, p, t);
        c->smax_key = k;
        c->smax_cut = t < n;
    } else if (r == 0 && t < n) {
        c->smax_cut = 1;
    }
}


static void flush_page(bk_pq_writer *w, pq_col *c);

static size_t page_bytes(const pq_col *c) { return vals_bytes(c) + c->nidx * 4 + c->nlv * (c->max_rep ? 2 : 1); }

/* At a row boundary: the dictionary's fallback to PLAIN and the page
 * limit of column c. */
static inline void col_row_done(bk_pq_writer *w, pq_col *c)
{
    if (c->dict_on && c->dict.len > w->o.dict_max_bytes) {
        /* Too many distinct values: this page keeps its indices, the rest
         * of the chunk is PLAIN. */
        flush_page(w, c);
        c->dict_on = 0;
    }
    if (page_bytes(c) >= w->o.page_size) flush_page(w, c);
}

static pq_col *value_col_slow(bk_pq_writer *w, size_t col, int want_ptype, const char *what)
{
    if (w->status != BK_OK) return NULL;
    if (w->finished) {
        fail(w, BK_ERR_ARG, "value after finish");
        return NULL;
    }
    if (col >= w->ncols) {
        fail(w, BK_ERR_ARG, "no column %zu", col);
        return NULL;
    }
    pq_col *c = &w->cols[col];
    if (c->ptype != want_ptype) {
        fail(w, BK_ERR_ARG, "column %s does not take %s", c->def->name, what);
        return NULL;
    }
    if (w->open_str != SIZE_MAX) {
        fail(w, BK_ERR_ARG, "column %s: a value while a string of column %s is open", c->def->name,
             w->cols[w->open_str].def->name);
        return NULL;
    }
    if (w->in_list != SIZE_MAX) {
        if (w->in_list != col) {
            fail(w, BK_ERR_ARG, "column %s: a value inside the list of column %s", c->def->name,
                 w->cols[w->in_list].def->name);
            return NULL;
        }
        push_levels(w, c, (uint32_t)c->max_def, w->list_items ? 1u : 0u);
        w->list_items++;
        return c;
    }
    if (col != w->next) {
        fail(w, BK_ERR_ARG, "column %s given out of order (column %zu expected)", c->def->name, w->next);
        return NULL;
    }
    if (c->def->flags & BK_PQ_LIST) {
        fail(w, BK_ERR_ARG, "column %s is a list: use bk_pq_list_begin", c->def->name);
        return NULL;
    }
    push_levels(w, c, (uint32_t)c->max_def, 0);
    w->next++;
    return c;
}

/* The column for the next value, its levels pushed; NULL on misuse (sticky
 * error). The common case (a flat column, in order, no list, no error) is
 * decided by one compare of next and one of the type. */
static inline pq_col *value_col(bk_pq_writer *w, size_t col, int want_ptype, const char *what)
{
    if (w->fast && col == w->next && col < w->ncols) {
        pq_col *c = &w->cols[col];
        if (c->ptype == want_ptype && !c->max_rep) {
            push_levels(w, c, (uint32_t)c->max_def, 0);
            w->next++;
            return c;
        }
    }
    if (w->in_list == col && w->status == BK_OK && w->open_str == SIZE_MAX) {
        /* the next element of the open list */
        pq_col *c = &w->cols[col];
        if (c->ptype == want_ptype) {
            push_levels(w, c, (uint32_t)c->max_def, w->list_items ? 1u : 0u);
            w->list_items++;
            return c;
        }
    }
    return value_col_slow(w, col, want_ptype, what);
}



/* bk_writer_space with the common case (room left) inline. */
static inline uint8_t *vspace(bk_writer *b, size_t n)
{
    if (n <= b->cap - b->len && b->status == BK_OK) return b->data + b->len;
    return bk_writer_space(b, n);
}

/* Append a value; returns 1 when the statistics must see it (a PLAIN
 * value, or one new to the chunk's dictionary: the statistics of a chunk
 * already hold every entry of its dictionary), 0 otherwise. */
static int put_value(bk_pq_writer *w, pq_col *c, const uint8_t *p, size_t n)
{
    w->since_check += n + 4;
    if (c->dict_on) {
        uint32_t ix;
        int r = 0;
        if ((c->nidx < c->idx_cap || grow_u32(w->alloc, &c->idx, &c->idx_cap, c->nidx + 1)) &&
            (r = dict_index(w, c, p, n, &ix)) != 0) {
            c->idx[c->nidx++] = ix;
            return r == 2;
        }
        fail(w, BK_ERR_NOMEM, "out of memory (dictionary of column %s)", c->def->name);
        return 0;
    }
    if (c->ptype == PT_BYTE_ARRAY) {
        uint8_t *d = vspace(&c->vals, n + 4);
        if (!d) {
            fail(w, BK_ERR_NOMEM, "out of memory (column %s)", c->def->name);
            return 0;
        }
        bk_store_le32(d, (uint32_t)n);
        if (n) memcpy(d + 4, p, n);
        bk_writer_commit(&c->vals, n + 4);
        return 1;
    }
    put_n(&c->vals, p, n);
    if (bk_writer_status(&c->vals) != BK_OK) fail(w, BK_ERR_NOMEM, "out of memory (column %s)", c->def->name);
    return 1;
}

/* A value of c is complete. (Pages are closed at row ends: bk_pq_end_row.) */
static inline void value_done(bk_pq_writer *w, pq_col *c)
{
    (void)w;
    (void)c;
}

void bk_pq_null(bk_pq_writer *w, size_t col)
{
    if (w->status != BK_OK) return;
    if (col >= w->ncols || col != w->next || w->in_list != SIZE_MAX || w->open_str != SIZE_MAX || w->finished) {
        fail(w, BK_ERR_ARG, "null for column %zu out of order (column %zu expected)", col, w->next);
        return;
    }
    pq_col *c = &w->cols[col];
    if (!(c->def->flags & BK_PQ_OPTIONAL)) {
        fail(w, BK_ERR_ARG, "null for required column %s", c->def->name);
        return;
    }
    push_levels(w, c, 0, 0);
    c->nulls++;
    w->next++;
    w->since_check++;
}

void bk_pq_bool(bk_pq_writer *w, size_t col, int v)
{
    pq_col *c = value_col(w, col, PT_BOOLEAN, "a boolean");
    if (!c) return;
    uint8_t b = v ? 1 : 0;
    bk_writer_putc(&c->vals, (char)b);
    w->since_check++;
    if (bk_writer_status(&c->vals) != BK_OK) fail(w, BK_ERR_NOMEM, "out of memory (column %s)", c->def->name);
    if (c->minmax) stat_int(c, b);
    value_done(w, c);
}

void bk_pq_i32(bk_pq_writer *w, size_t col, int32_t v)
{
    pq_col *c = value_col(w, col, PT_INT32, "an INT32");
    if (!c) return;
    uint8_t b[4];
    bk_store_le32(b, (uint32_t)v);
    if (put_value(w, c, b, 4) && c->minmax) stat_int(c, v);
    value_done(w, c);
}

void bk_pq_i64(bk_pq_writer *w, size_t col, int64_t v)
{
    pq_col *c = value_col(w, col, PT_INT64, "an INT64");
    if (!c) return;
    if (c->dict_on) {
        uint8_t b[8];
        bk_store_le64(b, (uint64_t)v);
        if (dict_repeat(w, c, b, 8) || !put_value(w, c, b, 8)) goto done;
    } else {
        uint8_t *d = vspace(&c->vals, 8);
        if (!d) {
            fail(w, BK_ERR_NOMEM, "out of memory (column %s)", c->def->name);
            return;
        }
        bk_store_le64(d, (uint64_t)v);
        bk_writer_commit(&c->vals, 8);
        w->since_check += 8;
    }
    if (c->minmax) stat_int(c, v);
done:
    value_done(w, c);
}

void bk_pq_str(bk_pq_writer *w, size_t col, const char *s, size_t len)
{
    if (len > 0x7fffffff) {
        fail(w, BK_ERR_ARG, "string of %zu bytes for column %zu (limit 2 GiB - 1)", len, col);
        return;
    }
    pq_col *c = value_col(w, col, PT_BYTE_ARRAY, "a string");
    if (!c) return;
    if (c->dict_on && dict_repeat(w, c, (const uint8_t *)s, len)) return;
    if (put_value(w, c, (const uint8_t *)s, len) && c->minmax) stat_str(c, (const uint8_t *)s, len);
    value_done(w, c);
}

void bk_pq_hex(bk_pq_writer *w, size_t col, const uint8_t *p, size_t n, int rev)
{
    if (n > 0x3fffffff) {
        fail(w, BK_ERR_ARG, "hex of %zu bytes for column %zu (limit 1 GiB - 1)", n, col);
        return;
    }
    pq_col *c = value_col(w, col, PT_BYTE_ARRAY, "a string");
    if (!c) return;
    size_t len = 2 * n;
    bk_writer *b = c->dict_on ? &w->scratch : &c->vals;
    if (c->dict_on) bk_writer_reset(b);
    uint8_t *d = vspace(b, len + 4);
    if (!d) {
        fail(w, BK_ERR_NOMEM, "out of memory (column %s)", c->def->name);
        return;
    }
    bk_store_le32(d, (uint32_t)len);
    if (rev) bk_hex_encode_rev((char *)d + 4, p, n);
    else bk_hex_encode((char *)d + 4, p, n);
    if (c->dict_on) {
        /* the text from the scratch into the dictionary */
        if (!dict_repeat(w, c, d + 4, len) && put_value(w, c, d + 4, len) && c->minmax) stat_str(c, d + 4, len);
        return;
    }
    bk_writer_commit(b, len + 4);
    w->since_check += len + 4;
    if (c->minmax) stat_str(c, d + 4, len);
}

void bk_pq_bin(bk_pq_writer *w, size_t col, const uint8_t *p, size_t n, int rev)
{
    int fixed = col < w->ncols && w->cols[col].ptype == PT_FIXED_LEN_BYTE_ARRAY;
    if (fixed ? n != 32 : n > 0x7fffffff) {
        fail(w, BK_ERR_ARG, "%zu bytes for column %zu (%s)", n, col, fixed ? "FIXED_LEN_BYTE_ARRAY(32)" : "limit 2 GiB - 1");
        return;
    }
    pq_col *c = value_col(w, col, fixed ? PT_FIXED_LEN_BYTE_ARRAY : PT_BYTE_ARRAY, "bytes");
    if (!c) return;
    uint8_t r[32];
    if (rev && n <= sizeof r) {
        for (size_t i = 0; i < n; i++) r[i] = p[n - 1 - i];
        p = r;
    } else if (rev) {
        fail(w, BK_ERR_ARG, "column %s: reversed bytes of more than 32", c->def->name);
        return;
    }
    if (c->dict_on && dict_repeat(w, c, p, n)) return;
    if (put_value(w, c, p, n) && c->minmax) stat_str(c, p, n);
    value_done(w, c);
}

bk_writer *bk_pq_str_open(bk_pq_writer *w, size_t col)
{
    bk_writer_reset(&w->scratch);
    pq_col *c = value_col(w, col, PT_BYTE_ARRAY, "a string");
    if (!c) return &w->scratch; /* written into and dropped: the error is sticky */
    w->open_str = col;
    w->fast = 0;
    if (c->dict_on) return &w->scratch;
    c->str_at = c->vals.len;
    uint8_t *d = vspace(&c->vals, 4);
    if (d) bk_writer_commit(&c->vals, 4);
    return &c->vals;
}

void bk_pq_str_close(bk_pq_writer *w, size_t col)
{
    if (w->status != BK_OK) return;
    if (w->open_str != col) {
        fail(w, BK_ERR_ARG, "close of a string for column %zu that is not open", col);
        return;
    }
    w->open_str = SIZE_MAX;
    w->fast = w->in_list == SIZE_MAX;
    pq_col *c = &w->cols[col];
    const uint8_t *p;
    size_t n;
    if (c->dict_on) {
        if (bk_writer_status(&w->scratch) != BK_OK) {
            fail(w, BK_ERR_NOMEM, "out of memory (column %s)", c->def->name);
            return;
        }
        n = w->scratch.len;
        p = n ? w->scratch.data : (const uint8_t *)"";
        if (n > 0x7fffffff) {
            fail(w, BK_ERR_ARG, "string of %zu bytes for column %s (limit 2 GiB - 1)", n, c->def->name);
            return;
        }
        if (!put_value(w, c, p, n)) {
            value_done(w, c);
            return;
        }
    } else {
        if (bk_writer_status(&c->vals) != BK_OK) {
            fail(w, BK_ERR_NOMEM, "out of memory (column %s)", c->def->name);
            return;
        }
        n = c->vals.len - c->str_at - 4;
        if (n > 0x7fffffff) {
            fail(w, BK_ERR_ARG, "string of %zu bytes for column %s (limit 2 GiB - 1)", n, c->def->name);
            return;
        }
        bk_store_le32(c->vals.data + c->str_at, (uint32_t)n);
        p = c->vals.data + c->str_at + 4;
        w->since_check += n + 4;
    }
    if (c->minmax) stat_str(c, p, n);
    value_done(w, c);
}

void bk_pq_list_begin(bk_pq_writer *w, size_t col)
{
    if (w->status != BK_OK) return;
    if (col >= w->ncols || col != w->next || w->in_list != SIZE_MAX || w->open_str != SIZE_MAX || w->finished ||
        !(w->cols[col].def->flags & BK_PQ_LIST)) {
        fail(w, BK_ERR_ARG, "list for column %zu: not the next column, not a list, or inside a list", col);
        return;
    }
    w->in_list = col;
    w->fast = 0;
    w->list_items = 0;
}

void bk_pq_list_end(bk_pq_writer *w, size_t col)
{
    if (w->status != BK_OK) return;
    if (w->in_list != col || w->open_str != SIZE_MAX) {
        fail(w, BK_ERR_ARG, "end of a list for column %zu that is not open", col);
        return;
    }
    pq_col *c = &w->cols[col];
    if (!w->list_items) push_levels(w, c, (uint32_t)c->max_def - 1, 0);
    w->in_list = SIZE_MAX;
    w->fast = 1;
    w->next++;
    w->since_check++;
}

/* ---- pages ---- */

static void put_u32_at(bk_writer *b, size_t at, uint32_t v)
{
    if (bk_writer_status(b) == BK_OK) bk_store_le32(b->data + at, v);
}

/* Compress the page body src[0..n) into w->comp; returns the compressed
 * length (the bytes are w->comp.data), or n with *out = src when the codec
 * is none. */
static size_t compress_page(bk_pq_writer *w, const uint8_t *src, size_t n, const uint8_t **out)
{
    *out = src;
    if (w->o.codec == BK_PQ_UNCOMPRESSED) return n;
    bk_writer_reset(&w->comp);
    if (w->o.codec == BK_PQ_ZSTD) {
        size_t cap = ZSTD_compressBound(n);
        uint8_t *p = bk_writer_space(&w->comp, cap);
        if (!p) {
            fail(w, BK_ERR_NOMEM, "out of memory (compression buffer)");
            return 0;
        }
        size_t r = ZSTD_compress2(w->zctx, p, cap, src, n);
        if (ZSTD_isError(r)) {
            fail(w, BK_ERR_INVALID, "zstd: %s", ZSTD_getErrorName(r));
            return 0;
        }
        bk_writer_commit(&w->comp, r);
    } else {
        size_t cap = snappy_max_compressed_length(n);
        uint8_t *p = bk_writer_space(&w->comp, cap);
        if (!p) {
            fail(w, BK_ERR_NOMEM, "out of memory (compression buffer)");
            return 0;
        }
        size_t r = cap;
        if (snappy_compress((const char *)src, n, (char *)p, &r) != SNAPPY_OK) {
            fail(w, BK_ERR_INVALID, "snappy compression failed");
            return 0;
        }
        bk_writer_commit(&w->comp, r);
    }
    *out = w->comp.data;
    return w->comp.len;
}

/* Append a page (header + compressed body src[0..n)) to dst; returns its
 * total uncompressed size (header included) or 0 on failure. */
static uint64_t emit_page(bk_pq_writer *w, bk_writer *dst, int type, uint32_t num_values, int encoding,
                          const uint8_t *src, size_t n)
{
    if (n > 0x7fffffff) {
        fail(w, BK_ERR_LENGTH, "a page of %zu bytes (limit 2 GiB - 1)", n);
        return 0;
    }
    const uint8_t *body;
    size_t body_len = compress_page(w, src, n, &body);
    if (w->status != BK_OK) return 0;
    bk_writer *h = &w->hdr;
    bk_writer_reset(h);
    int last = 0;
    tc_i32(h, &last, 1, type);
    tc_i32(h, &last, 2, (int32_t)n);
    tc_i32(h, &last, 3, (int32_t)body_len);
    if (type == PAGE_DATA) {
        tc_struct(h, &last, 5);
        int l2 = 0;
        tc_i32(h, &l2, 1, (int32_t)num_values);
        tc_i32(h, &l2, 2, encoding);
        tc_i32(h, &l2, 3, ENC_RLE);
        tc_i32(h, &l2, 4, ENC_RLE);
        tc_stop(h);
    } else {
        tc_struct(h, &last, 7);
        int l2 = 0;
        tc_i32(h, &l2, 1, (int32_t)num_values);
        tc_i32(h, &l2, 2, ENC_PLAIN);
        tc_stop(h);
    }
    tc_stop(h);
    put_n(dst, h->data, h->len);
    put_n(dst, body, body_len);
    if (bk_writer_status(h) != BK_OK || bk_writer_status(dst) != BK_OK) {
        fail(w, BK_ERR_NOMEM, "out of memory (pages)");
        return 0;
    }
    return h->len + n;
}

static void levels_section(bk_pq_writer *w, const uint8_t *lv, size_t n, unsigned bw)
{
    size_t at = w->page.len;
    put_n(&w->page, "\0\0\0\0", 4);
    rle_u8(&w->page, lv, n, bw);
    put_u32_at(&w->page, at, (uint32_t)(w->page.len - at - 4));
}

static void flush_page(bk_pq_writer *w, pq_col *c)
{
    if (!c->page_values || w->status != BK_OK) return;
    bk_writer_reset(&w->page);
    if (c->max_rep) levels_section(w, c->rep_lv, c->nlv, bits_for((uint64_t)c->max_rep));
    if (c->max_def) levels_section(w, c->def_lv, c->nlv, bits_for((uint64_t)c->max_def));
    int enc = ENC_PLAIN;
    if (c->nidx) {
        enc = ENC_RLE_DICTIONARY;
        unsigned bw = bits_for(c->nents ? c->nents - 1 : 0);
        bk_writer_putc(&w->page, (char)bw);
        rle_u32(&w->page, c->idx, c->nidx, bw);
        c->had_dict = 1;
    } else if (c->ptype == PT_BOOLEAN) {
        size_t nb = (c->vals.len + 7) / 8;
        uint8_t *p = bk_writer_space(&w->page, nb);
        if (p) {
            memset(p, 0, nb);
            for (size_t i = 0; i < c->vals.len; i++)
                if (c->vals.data[i]) p[i >> 3] |= (uint8_t)(1u << (i & 7));
            bk_writer_commit(&w->page, nb);
        }
        c->had_plain = 1;
    } else {
        c->had_plain = 1;
    }
    if (bk_writer_status(&w->page) != BK_OK || bk_writer_status(&c->vals) != BK_OK || c->vals.len < c->head) {
        fail(w, BK_ERR_NOMEM, "out of memory (page of column %s)", c->def->name);
        return;
    }
    const uint8_t *body = w->page.len ? w->page.data : (const uint8_t *)"";
    size_t body_len = w->page.len;
    if (enc == ENC_PLAIN && c->ptype != PT_BOOLEAN) {
        size_t nv = c->vals.len - c->head;
        if (!w->page.len) {
            /* no levels: the values are the page, no copy */
            body = nv ? c->vals.data + c->head : (const uint8_t *)"";
            body_len = nv;
        } else if (w->page.len <= c->head) {
            /* the levels into the room before the values: no copy of the values */
            uint8_t *start = c->vals.data + c->head - w->page.len;
            memcpy(start, w->page.data, w->page.len);
            body = start;
            body_len = w->page.len + nv;
        } else {
            put_n(&w->page, c->vals.data + c->head, nv);
            if (bk_writer_status(&w->page) != BK_OK) {
                fail(w, BK_ERR_NOMEM, "out of memory (page of column %s)", c->def->name);
                return;
            }
            body = w->page.data;
            body_len = w->page.len;
        }
    }
    uint64_t u = emit_page(w, &c->chunk, PAGE_DATA, (uint32_t)c->page_values, enc, body, body_len);
    c->chunk_uncompressed += u;
    c->chunk_values += c->page_values;
    c->page_values = 0;
    c->nlv = 0;
    c->nidx = 0;
    vals_reset(c);
}


/* ---- row groups and footer ---- */

static void write_stats(bk_writer *m, int *last, const pq_col *c)
{
    if (c->def->flags & BK_PQ_LIST) return; /* LIST order is undefined; null_count ambiguous */
    tc_struct(m, last, 12);
    int l = 0;
    tc_i64(m, &l, 3, c->nulls);
    if (c->has_minmax) {
        uint8_t mn[8], mx[8];
        size_t n = 0;
        const uint8_t *pmin = mn, *pmax = mx;
        size_t nmin = 0, nmax = 0;
        int max_exact = 1, have_max = 1;
        uint8_t cut[STAT_MAX];
        if (c->ptype == PT_BYTE_ARRAY || c->ptype == PT_FIXED_LEN_BYTE_ARRAY) {
            pmin = c->smin.data;
            nmin = c->smin.len;
            pmax = c->smax.data;
            nmax = c->smax.len;
            if (c->smax_cut) {
                /* an upper bound: the prefix with its last byte below 0x7f raised */
                memcpy(cut, c->smax.data, nmax);
                while (nmax && cut[nmax - 1] >= 0x7f) nmax--;
                if (nmax) cut[nmax - 1]++;
                else have_max = 0;
                pmax = cut;
                max_exact = 0;
            }
        } else {
            n = c->ptype == PT_BOOLEAN ? 1 : c->width;
            for (size_t i = 0; i < n; i++) {
                mn[i] = (uint8_t)((uint64_t)c->imin >> (8 * i));
                mx[i] = (uint8_t)((uint64_t)c->imax >> (8 * i));
            }
            nmin = nmax = n;
        }
        if (have_max) {
            tc_binary(m, &l, 5, pmax, nmax);
            tc_binary(m, &l, 6, pmin, nmin);
            tc_bool(m, &l, 7, max_exact);
            tc_bool(m, &l, 8, c->ptype != PT_BYTE_ARRAY || !c->smin_cut);
        }
    }
    tc_stop(m);
}

static void path_in_schema(bk_writer *m, int *last, const pq_col *c)
{
    int list = (c->def->flags & BK_PQ_LIST) != 0;
    tc_list(m, last, 3, TC_BINARY, list ? 3 : 1);
    tc_raw_binary(m, c->def->name, strlen(c->def->name));
    if (list) {
        tc_raw_binary(m, "list", 4);
        tc_raw_binary(m, "element", 7);
    }
}

static void flush_row_group(bk_pq_writer *w)
{
    if (!w->rg_rows || w->status != BK_OK) return;
    bk_writer *m = &w->rgmeta;
    int lrg = 0;
    uint64_t rg_start = w->pos, total_unc = 0;
    /* RowGroup.columns: each chunk written and described in turn. */
    tc_list(m, &lrg, 1, TC_STRUCT, w->ncols);
    for (size_t i = 0; i < w->ncols && w->status == BK_OK; i++) {
        pq_col *c = &w->cols[i];
        flush_page(w, c);
        uint64_t dict_off = 0, unc = c->chunk_uncompressed, comp = 0;
        int has_dict = c->had_dict && c->nents;
        if (has_dict) {
            bk_writer_reset(&w->hdr);
            bk_writer tmp;
            bk_writer_init(&tmp, w->alloc);
            uint64_t du = emit_page(w, &tmp, PAGE_DICTIONARY, (uint32_t)c->nents, ENC_PLAIN, c->dict.data, c->dict.len);
            dict_off = w->pos;
            out_put(w, tmp.data, tmp.len);
            comp += tmp.len;
            unc += du;
            bk_writer_free(&tmp);
        }
        uint64_t data_off = w->pos;
        out_put(w, c->chunk.data, c->chunk.len);
        comp += c->chunk.len;
        total_unc += unc;

        int lcc = 0;
        tc_i64(m, &lcc, 2, 0);
        tc_struct(m, &lcc, 3);
        int l = 0;
        tc_i32(m, &l, 1, c->ptype);
        int nenc = 1 + (has_dict ? 1 : 0) + ((c->had_plain || has_dict) ? 1 : 0);
        tc_list(m, &l, 2, TC_I32, (size_t)nenc);
        tc_zigzag(m, ENC_RLE);
        if (has_dict) tc_zigzag(m, ENC_RLE_DICTIONARY);
        if (c->had_plain || has_dict) tc_zigzag(m, ENC_PLAIN);
        path_in_schema(m, &l, c);
        tc_i32(m, &l, 4, (int32_t)w->o.codec);
        tc_i64(m, &l, 5, (int64_t)c->chunk_values);
        tc_i64(m, &l, 6, (int64_t)unc);
        tc_i64(m, &l, 7, (int64_t)comp);
        tc_i64(m, &l, 9, (int64_t)data_off);
        if (has_dict) tc_i64(m, &l, 11, (int64_t)dict_off);
        write_stats(m, &l, c);
        tc_stop(m); /* ColumnMetaData */
        tc_stop(m); /* ColumnChunk */

        /* reset the chunk */
        bk_writer_reset(&c->chunk);
        c->chunk_values = c->chunk_uncompressed = 0;
        c->had_plain = c->had_dict = 0;
        c->nulls = 0;
        c->has_minmax = 0;
        c->smin_cut = c->smax_cut = 0;
        bk_writer_reset(&c->smin);
        bk_writer_reset(&c->smax);
        bk_writer_reset(&c->dict);
        c->nents = 0;
        if (c->table) memset(c->table, 0, c->table_cap * sizeof *c->table);
        c->dict_on = c->use_dict;
    }
    tc_i64(m, &lrg, 2, (int64_t)total_unc);
    tc_i64(m, &lrg, 3, (int64_t)w->rg_rows);
    tc_i64(m, &lrg, 5, (int64_t)rg_start);
    tc_i64(m, &lrg, 6, (int64_t)(w->pos - rg_start));
    tc_field(m, &lrg, 7, TC_I16);
    tc_zigzag(m, (int64_t)(w->n_rowgroups & 0x7fff));
    tc_stop(m);
    if (bk_writer_status(m) != BK_OK) fail(w, BK_ERR_NOMEM, "out of memory (metadata)");
    w->n_rowgroups++;
    w->rg_rows = 0;
}

bk_status bk_pq_end_row(bk_pq_writer *w, bk_error *err)
{
    if (w->status == BK_OK &&
        (w->next != w->ncols || w->in_list != SIZE_MAX || w->open_str != SIZE_MAX || w->finished))
        fail(w, BK_ERR_ARG, "row ended at column %zu of %zu%s", w->next, w->ncols,
             w->in_list != SIZE_MAX ? " inside a list" : "");
    if (w->status != BK_OK) return report(w, err);
    w->next = 0;
    w->rows++;
    w->rg_rows++;
    /* Pages, dictionaries and the row group are looked at once page_check
     * bytes of values were added since the last look (values, levels and
     * dictionary entries grow with the bytes counted in since_check), not
     * per row: a page ends at the first row end past page_size +
     * page_check, a row group within about row_group_size + page_check +
     * one row. */
    if (w->since_check >= w->page_check) {
        w->since_check = 0;
        size_t total = 0;
        for (size_t i = 0; i < w->ncols; i++) {
            col_row_done(w, &w->cols[i]);
            total += col_buffered(&w->cols[i]);
        }
        if (total >= w->o.row_group_size) flush_row_group(w);
    }
    return report(w, err);
}

static void schema_leaf(bk_writer *m, const pq_col *c, const char *name, int rep)
{
    int l = 0;
    tc_i32(m, &l, 1, c->ptype);
    if (c->ptype == PT_FIXED_LEN_BYTE_ARRAY) tc_i32(m, &l, 2, (int32_t)c->width);
    tc_i32(m, &l, 3, rep);
    tc_binary(m, &l, 4, name, strlen(name));
    bk_pq_type t = c->def->type;
    if (t == BK_PQ_STRING) {
        tc_i32(m, &l, 6, CV_UTF8);
        tc_struct(m, &l, 10);
        int lt = 0;
        tc_struct(m, &lt, 1);
        tc_stop(m);
        tc_stop(m);
    } else if (t == BK_PQ_TIMESTAMP_MILLIS || t == BK_PQ_TIMESTAMP_MICROS) {
        tc_i32(m, &l, 6, t == BK_PQ_TIMESTAMP_MILLIS ? CV_TIMESTAMP_MILLIS : CV_TIMESTAMP_MICROS);
        tc_struct(m, &l, 10);
        int lt = 0;
        tc_struct(m, &lt, 8);
        int ts = 0;
        tc_bool(m, &ts, 1, 1);
        tc_struct(m, &ts, 2);
        int tu = 0;
        tc_struct(m, &tu, t == BK_PQ_TIMESTAMP_MILLIS ? 1 : 2);
        tc_stop(m); /* MilliSeconds / MicroSeconds */
        tc_stop(m); /* TimeUnit */
        tc_stop(m); /* TimestampType */
        tc_stop(m); /* LogicalType */
    }
    tc_stop(m);
}

void bk_pq_set_metadata(bk_pq_writer *w, const bk_pq_kv *kv, size_t n)
{
    if (!w) return;
    w->kv = n ? kv : NULL;
    w->nkv = kv ? n : 0;
}

bk_status bk_pq_finish(bk_pq_writer *w, bk_error *err)
{
    if (w->status == BK_OK && w->finished) fail(w, BK_ERR_ARG, "finished twice");
    if (w->status == BK_OK && (w->next != 0 || w->in_list != SIZE_MAX)) fail(w, BK_ERR_ARG, "finish inside a row");
    if (w->status != BK_OK) return report(w, err);
    flush_row_group(w);
    w->finished = 1;
    w->fast = 0;
    bk_writer m;
    bk_writer_init(&m, w->alloc);
    int l = 0;
    tc_i32(&m, &l, 1, 2);
    size_t nschema = 1;
    for (size_t i = 0; i < w->ncols; i++) nschema += (w->cols[i].def->flags & BK_PQ_LIST) ? 3 : 1;
    tc_list(&m, &l, 2, TC_STRUCT, nschema);
    {
        int r = 0;
        tc_binary(&m, &r, 4, "schema", 6);
        tc_i32(&m, &r, 5, (int32_t)w->ncols);
        tc_stop(&m);
    }
    for (size_t i = 0; i < w->ncols; i++) {
        const pq_col *c = &w->cols[i];
        int opt = (c->def->flags & BK_PQ_OPTIONAL) != 0;
        if (c->def->flags & BK_PQ_LIST) {
            int g = 0;
            tc_i32(&m, &g, 3, opt ? REP_OPTIONAL : REP_REQUIRED);
            tc_binary(&m, &g, 4, c->def->name, strlen(c->def->name));
            tc_i32(&m, &g, 5, 1);
            tc_i32(&m, &g, 6, CV_LIST);
            tc_struct(&m, &g, 10);
            int lt = 0;
            tc_struct(&m, &lt, 3);
            tc_stop(&m);
            tc_stop(&m);
            tc_stop(&m);
            int r = 0;
            tc_i32(&m, &r, 3, REP_REPEATED);
            tc_binary(&m, &r, 4, "list", 4);
            tc_i32(&m, &r, 5, 1);
            tc_stop(&m);
            schema_leaf(&m, c, "element", REP_REQUIRED);
        } else {
            schema_leaf(&m, c, c->def->name, opt ? REP_OPTIONAL : REP_REQUIRED);
        }
    }
    tc_i64(&m, &l, 3, (int64_t)w->rows);
    tc_list(&m, &l, 4, TC_STRUCT, w->n_rowgroups);
    put_n(&m, w->rgmeta.data, w->rgmeta.len);
    if (w->nkv) {
        tc_list(&m, &l, 5, TC_STRUCT, w->nkv);
        for (size_t i = 0; i < w->nkv; i++) {
            int k = 0;
            tc_binary(&m, &k, 1, w->kv[i].key, strlen(w->kv[i].key));
            if (w->kv[i].value) tc_binary(&m, &k, 2, w->kv[i].value, strlen(w->kv[i].value));
            tc_stop(&m);
        }
    }
    tc_binary(&m, &l, 6, w->o.created_by, strlen(w->o.created_by));
    tc_list(&m, &l, 7, TC_STRUCT, w->ncols);
    for (size_t i = 0; i < w->ncols; i++) {
        int co = 0;
        tc_struct(&m, &co, 1); /* TYPE_ORDER */
        tc_stop(&m);
        tc_stop(&m);
    }
    tc_stop(&m);
    if (bk_writer_status(&m) != BK_OK || m.len > UINT32_MAX) {
        fail(w, BK_ERR_NOMEM, "out of memory (footer)");
    } else {
        uint8_t tail[8];
        bk_store_le32(tail, (uint32_t)m.len);
        memcpy(tail + 4, "PAR1", 4);
        out_put(w, m.data, m.len);
        out_put(w, tail, 8);
    }
    bk_writer_free(&m);
    return report(w, err);
}
