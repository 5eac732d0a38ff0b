/* A Parquet file from arbitrary bytes: the bytes choose a schema (1-8
 * columns of every type, optional / list / dictionary), the writer's
 * options (codec, tiny pages, row groups and dictionaries) and the rows'
 * values (nulls, empty lists, long strings, extreme integers). Shared by
 * fuzz/fuzz_parquet.c (invariants) and tests/test_parquet_fuzz.c (files
 * read back by DuckDB, hyparquet and parquet-wasm). The expected rows go
 * to `expect` (NDJSON, normalized as tests/export/readers.mjs) when not
 * NULL. Returns the writer's status. */
#ifndef BLOCKKIT_FUZZ_PARQUET_GEN_H
#define BLOCKKIT_FUZZ_PARQUET_GEN_H

#include <blockkit/parquet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pqgen_in {
    const uint8_t *p;
    size_t n, pos;
} pqgen_in;

static inline uint8_t pqgen_byte(pqgen_in *in) { return in->pos < in->n ? in->p[in->pos++] : 0; }

static inline uint64_t pqgen_u64(pqgen_in *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | pqgen_byte(in);
    return v;
}

typedef struct pqgen_mem {
    uint8_t *p;
    size_t n, cap;
} pqgen_mem;

static inline int pqgen_sink(void *ctx, const uint8_t *d, size_t n)
{
    pqgen_mem *m = ctx;
    if (m->n + n > m->cap) {
        size_t c = (m->n + n) * 2;
        uint8_t *q = realloc(m->p, c);
        if (!q) return -1;
        m->p = q;
        m->cap = c;
    }
    memcpy(m->p + m->n, d, n);
    m->n += n;
    return 0;
}

/* The expected value of n bytes written as hex text or as binary: their
 * hex, last byte first when rev. */
static inline void pqgen_expect_hex(FILE *expect, const uint8_t *p, size_t n, int rev)
{
    static const char hd[] = "0123456789abcdef";
    if (!expect) return;
    fputc('"', expect);
    for (size_t q = 0; q < n; q++) {
        uint8_t x = p[rev ? n - 1 - q : q];
        fputc(hd[x >> 4], expect);
        fputc(hd[x & 15], expect);
    }
    fputc('"', expect);
}

static inline bk_status pqgen_run(const uint8_t *data, size_t size, pqgen_mem *out, FILE *expect,
                                  uint64_t *rows_out, const bk_allocator *alloc)
{
    pqgen_in in = {data, size, 0};
    static char names[8][24];
    bk_pq_column cols[8];
    size_t ncols = 1 + pqgen_byte(&in) % 8;
    for (size_t i = 0; i < ncols; i++) {
        snprintf(names[i], sizeof names[i], "c%zu", i);
        cols[i].name = names[i];
        cols[i].type = (bk_pq_type)(pqgen_byte(&in) % BK_PQ_TYPE_COUNT_);
        cols[i].flags = pqgen_byte(&in) % 16;
    }
    bk_pq_opts o;
    bk_pq_opts_init(&o);
    uint8_t cb = pqgen_byte(&in), c = cb % 3;
    o.codec = c == 0 ? BK_PQ_UNCOMPRESSED : c == 1 ? BK_PQ_SNAPPY : BK_PQ_ZSTD;
    o.zstd_level = (int)(cb / 3 % 12) - 7; /* -7 .. 4: the fast levels too */
    o.page_size = 16 + (size_t)pqgen_byte(&in) * 64;
    o.row_group_size = 512 + (size_t)pqgen_byte(&in) * 1024;
    o.dict_max_bytes = 8 + (size_t)pqgen_byte(&in) * 32;
    bk_pq_writer *w;
    bk_status st = bk_pq_writer_new(&w, cols, ncols, &o, pqgen_sink, out, alloc, NULL);
    if (st != BK_OK) return st;
    size_t nrows = pqgen_byte(&in);
    nrows = nrows * 4 + pqgen_byte(&in) % 4;
    static char sbuf[70000];
    for (size_t r = 0; r < nrows && st == BK_OK; r++) {
        if (expect) fputc('{', expect);
        for (size_t i = 0; i < ncols; i++) {
            if (expect) fprintf(expect, "%s\"%s\":", i ? "," : "", cols[i].name);
            int isnull = (cols[i].flags & BK_PQ_OPTIONAL) && pqgen_byte(&in) % 4 == 0;
            if (isnull) {
                bk_pq_null(w, i);
                if (expect) fputs("null", expect);
                continue;
            }
            int list = (cols[i].flags & BK_PQ_LIST) != 0;
            size_t nv = list ? pqgen_byte(&in) % 5 : 1;
            if (list) {
                bk_pq_list_begin(w, i);
                if (expect) fputc('[', expect);
            }
            for (size_t k = 0; k < nv; k++) {
                if (expect && k) fputc(',', expect);
                uint8_t sel = pqgen_byte(&in);
                switch (cols[i].type) {
                case BK_PQ_BOOLEAN:
                    bk_pq_bool(w, i, sel & 1);
                    if (expect) fputs(sel & 1 ? "true" : "false", expect);
                    break;
                case BK_PQ_INT32: {
                    int32_t v = sel < 8 ? (sel & 1 ? INT32_MIN : INT32_MAX) : (int32_t)(sel % 7) - 3;
                    if (sel > 200) v = (int32_t)(uint32_t)pqgen_u64(&in);
                    bk_pq_i32(w, i, v);
                    if (expect) fprintf(expect, "\"%d\"", v);
                    break;
                }
                case BK_PQ_STRING: {
                    size_t len = sel == 255 ? 1000 + pqgen_byte(&in) * 270u : sel % 24;
                    for (size_t q = 0; q < len; q++) sbuf[q] = (char)('a' + (q * 7 + sel) % 26);
                    if ((sel >> 6) == 3 && sel != 255) {
                        /* the hex text of len / 2 bytes, forward or reversed */
                        size_t nb = len / 2;
                        int rev = (sel >> 1) & 1;
                        bk_pq_hex(w, i, (const uint8_t *)sbuf, nb, rev);
                        pqgen_expect_hex(expect, (const uint8_t *)sbuf, nb, rev);
                        break;
                    }
                    if ((sel >> 5) & 1) {
                        /* built in place, in two pieces */
                        bk_writer *sw = bk_pq_str_open(w, i);
                        if (len / 2) bk_writer_put(sw, sbuf, len / 2);
                        if (len - len / 2) bk_writer_put(sw, sbuf + len / 2, len - len / 2);
                        bk_pq_str_close(w, i);
                    } else {
                        bk_pq_str(w, i, sbuf, len);
                    }
                    if (expect) {
                        fputc('"', expect);
                        fwrite(sbuf, 1, len, expect);
                        fputc('"', expect);
                    }
                    break;
                }
                case BK_PQ_BYTES:
                case BK_PQ_FIXED32: {
                    /* raw bytes (read back as their hex), forward or reversed */
                    size_t len = cols[i].type == BK_PQ_FIXED32 ? 32 : sel == 255 ? 1000 + pqgen_byte(&in) * 270u : sel % 40;
                    int rev = len <= 32 && ((sel >> 6) & 1);
                    for (size_t q = 0; q < len; q++) sbuf[q] = (char)(q * 37 + sel * 11 + (q >> 3));
                    bk_pq_bin(w, i, (const uint8_t *)sbuf, len, rev);
                    pqgen_expect_hex(expect, (const uint8_t *)sbuf, len, rev);
                    break;
                }
                default: {
                    /* INT64 and the timestamps: keep timestamps where every
                     * reader can show them (within +-10000 years) */
                    int64_t v = sel < 8 ? (sel & 1 ? INT64_MIN : INT64_MAX) : (int64_t)(sel % 9) - 4;
                    if (sel > 200) v = (int64_t)pqgen_u64(&in);
                    int ts = cols[i].type != BK_PQ_INT64;
                    int64_t lim = cols[i].type == BK_PQ_TIMESTAMP_MILLIS ? 250000000000000LL : 250000000000000000LL;
                    if (ts && (v > lim || v < -lim)) v %= lim;
                    bk_pq_i64(w, i, v);
                    if (expect) {
                        if (cols[i].type == BK_PQ_TIMESTAMP_MILLIS) fprintf(expect, "\"%lld\"", (long long)v * 1000);
                        else fprintf(expect, "\"%lld\"", (long long)v);
                    }
                    break;
                }
                }
            }
            if (list) {
                bk_pq_list_end(w, i);
                if (expect) fputc(']', expect);
            }
        }
        if (expect) fputs("}\n", expect);
        st = bk_pq_end_row(w, NULL);
    }
    if (st == BK_OK) st = bk_pq_finish(w, NULL);
    if (rows_out) *rows_out = bk_pq_rows(w);
    bk_pq_writer_free(w);
    return st;
}

#endif
