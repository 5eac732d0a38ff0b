/* The Parquet writer: RLE/bit-packed hybrid round trips, misuse errors,
 * bounded buffering, and files of every type, flag and codec read back by
 * three independent readers (DuckDB, hyparquet, parquet-wasm via
 * tests/export/check_parquet.mjs) against the values given to the writer. */
#include "check.h"

#include <blockkit/parquet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_rle(void)
{
    static uint32_t v[5000], back[5000];
    for (unsigned bw = 1; bw <= 20; bw++) {
        for (int shape = 0; shape < 4; shape++) {
            size_t n = 1 + rnd() % 4999;
            for (size_t i = 0; i < n; i++) {
                uint32_t m = bw == 32 ? UINT32_MAX : ((1u << bw) - 1);
                if (shape == 0) v[i] = (uint32_t)rnd() & m;
                else if (shape == 1) v[i] = (uint32_t)((i / 13) & m);
                else if (shape == 2) v[i] = (rnd() % 10 == 0) ? ((uint32_t)rnd() & m) : 0;
                else v[i] = m;
            }
            bk_writer w;
            bk_writer_init(&w, NULL);
            bk_pq_rle_encode(&w, v, n, bw);
            CHECK(bk_writer_status(&w) == BK_OK);
            CHECK(bk_pq_rle_decode(w.data, w.len, bw, back, n) == BK_OK);
            CHECK(memcmp(v, back, n * sizeof *v) == 0);
            /* one value short of the stream is refused, not read past */
            CHECK(bk_pq_rle_decode(w.data, w.len > 1 ? w.len - 1 : 0, bw, back, n) != BK_OK || w.len <= 1);
            bk_writer_free(&w);
        }
    }
    /* the byte-level encoder of definition / repetition levels */
    static uint8_t v8[5000];
    for (unsigned bw = 1; bw <= 8; bw++) {
        for (int shape = 0; shape < 5; shape++) {
            size_t n = 1 + rnd() % 4999;
            uint32_t m = (1u << bw) - 1;
            for (size_t i = 0; i < n; i++) {
                if (shape == 0) v8[i] = (uint8_t)(rnd() & m);
                else if (shape == 1) v8[i] = (uint8_t)((i / 13) & m);
                else if (shape == 2) v8[i] = (rnd() % 10 == 0) ? (uint8_t)(rnd() & m) : (uint8_t)m;
                else if (shape == 3) v8[i] = (uint8_t)m;
                else v8[i] = (uint8_t)((i % 9 == 0) ? 0 : m); /* runs of 8 across group boundaries */
            }
            bk_writer w;
            bk_writer_init(&w, NULL);
            bk_pq_rle_encode_u8(&w, v8, n, bw);
            CHECK(bk_writer_status(&w) == BK_OK);
            CHECK(bk_pq_rle_decode(w.data, w.len, bw, back, n) == BK_OK);
            int same = 1;
            for (size_t i = 0; i < n; i++) same &= back[i] == v8[i];
            CHECK(same);
            /* the same bytes as the 32-bit encoder */
            for (size_t i = 0; i < n; i++) v[i] = v8[i];
            bk_writer w32;
            bk_writer_init(&w32, NULL);
            bk_pq_rle_encode(&w32, v, n, bw);
            CHECK(w32.len == w.len && memcmp(w32.data, w.data, w.len) == 0);
            bk_writer_free(&w32);
            bk_writer_free(&w);
        }
    }
}

typedef struct membuf {
    uint8_t *p;
    size_t n, cap;
} membuf;

static int mem_sink(void *ctx, const uint8_t *d, size_t n)
{
    membuf *m = ctx;
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2;
        m->p = realloc(m->p, m->cap);
        if (!m->p) return -1;
    }
    memcpy(m->p + m->n, d, n);
    m->n += n;
    return 0;
}

static int fail_sink(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    (void)d;
    (void)n;
    return -1;
}

static void test_misuse(void)
{
    const bk_pq_column cols[] = {{"a", BK_PQ_INT64, 0}, {"b", BK_PQ_STRING, BK_PQ_OPTIONAL}};
    membuf m = {0};
    bk_pq_writer *w = NULL;
    bk_error err;
    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, mem_sink, &m, NULL, &err) == BK_OK);
    bk_pq_null(w, 0); /* required */
    CHECK(bk_pq_end_row(w, &err) == BK_ERR_ARG);
    CHECK(strstr(err.msg, "required column a") != NULL);
    bk_pq_writer_free(w);

    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, mem_sink, &m, NULL, &err) == BK_OK);
    bk_pq_i64(w, 0, 1);
    CHECK(bk_pq_end_row(w, &err) == BK_ERR_ARG); /* b missing */
    bk_pq_writer_free(w);

    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, mem_sink, &m, NULL, &err) == BK_OK);
    bk_pq_str(w, 1, "x", 1); /* out of order */
    CHECK(bk_pq_end_row(w, &err) == BK_ERR_ARG);
    bk_pq_writer_free(w);

    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, mem_sink, &m, NULL, &err) == BK_OK);
    bk_pq_str(w, 0, "x", 1); /* wrong type */
    CHECK(bk_pq_end_row(w, &err) == BK_ERR_ARG);
    bk_pq_writer_free(w);

    /* an in-place string left open, or a value while one is open */
    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, mem_sink, &m, NULL, &err) == BK_OK);
    bk_pq_i64(w, 0, 1);
    bk_writer_puts(bk_pq_str_open(w, 1), "x");
    CHECK(bk_pq_end_row(w, &err) == BK_ERR_ARG);
    bk_pq_writer_free(w);
    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, mem_sink, &m, NULL, &err) == BK_OK);
    bk_writer_puts(bk_pq_str_open(w, 0), "x"); /* wrong type: a scratch, dropped */
    bk_pq_str_close(w, 0);
    CHECK(bk_pq_end_row(w, &err) == BK_ERR_ARG);
    bk_pq_writer_free(w);
    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, mem_sink, &m, NULL, &err) == BK_OK);
    bk_pq_i64(w, 0, 1);
    (void)bk_pq_str_open(w, 1);
    bk_pq_null(w, 1);
    CHECK(bk_pq_end_row(w, &err) == BK_ERR_ARG);
    bk_pq_writer_free(w);

    CHECK(bk_pq_writer_new(&w, cols, 2, NULL, fail_sink, NULL, NULL, &err) == BK_ERR_IO);
    const bk_pq_column bad[] = {{"", BK_PQ_INT64, 0}};
    CHECK(bk_pq_writer_new(&w, bad, 1, NULL, mem_sink, &m, NULL, &err) == BK_ERR_ARG);
    free(m.p);
}

/* Columns of every kind. */
enum { C_ID, C_I32, C_FLAG, C_S, C_BIG, C_TS, C_TM, C_LST, C_OLST, C_CAT, C_N64, C_REQB, NCOL };
static const bk_pq_column COLS[NCOL] = {
    {"id", BK_PQ_INT64, 0},
    {"i32", BK_PQ_INT32, BK_PQ_OPTIONAL},
    {"flag", BK_PQ_BOOLEAN, BK_PQ_OPTIONAL},
    {"s", BK_PQ_STRING, BK_PQ_OPTIONAL | BK_PQ_DICT},
    {"big", BK_PQ_STRING, 0},
    {"ts", BK_PQ_TIMESTAMP_MICROS, 0},
    {"tm", BK_PQ_TIMESTAMP_MILLIS, BK_PQ_OPTIONAL},
    {"lst", BK_PQ_STRING, BK_PQ_LIST},
    {"olst", BK_PQ_INT64, BK_PQ_LIST | BK_PQ_OPTIONAL | BK_PQ_DICT},
    {"cat", BK_PQ_STRING, BK_PQ_DICT},
    {"n64", BK_PQ_INT64, BK_PQ_DICT},
    {"reqb", BK_PQ_BOOLEAN, 0},
};

static const char *const CATS[] = {"pubkeyhash", "scripthash", "witness_v0_keyhash", "", "nulldata", "été"};

static void rand_str(char *s, size_t n)
{
    static const char al[] = "abcdefghijklmnopqrstuvwxyz0123456789 ,";
    for (size_t i = 0; i < n; i++) s[i] = al[rnd() % (sizeof al - 1)];
}

static void json_str(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    fwrite(s, 1, n, f);
    fputc('"', f);
}

/* A string value by either path: bk_pq_str, or (every other value, at
 * random) built in place with bk_pq_str_open / bk_pq_str_close in pieces. */
static void put_str(bk_pq_writer *w, size_t col, const char *s, size_t n)
{
    if (rnd() % 2) {
        bk_pq_str(w, col, s, n);
        return;
    }
    bk_writer *o = bk_pq_str_open(w, col);
    size_t half = n / 2;
    if (half) bk_writer_put(o, s, half);
    if (n - half) bk_writer_put(o, s + half, n - half);
    bk_pq_str_close(w, col);
}

/* A hex value (bk_pq_hex) of n random bytes, forward or reversed; its
 * text into f as a JSON string. */
static void put_hex(bk_pq_writer *w, size_t col, FILE *f, size_t n, int fixed)
{
    static const char hd[] = "0123456789abcdef";
    uint8_t b[64] = {0};
    if (n > sizeof b) n = sizeof b;
    for (size_t i = 0; i < n; i++) b[i] = fixed ? (uint8_t)(0xa5 + i) : (uint8_t)rnd();
    int rev = (int)(rnd() % 2);
    bk_pq_hex(w, col, b, n, rev);
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        uint8_t x = b[rev ? n - 1 - i : i];
        fputc(hd[x >> 4], f);
        fputc(hd[x & 15], f);
    }
    fputc('"', f);
}

/* Write nrows rows into w and their expected JSON into f. */
static void gen_rows(bk_pq_writer *w, FILE *f, size_t nrows, int with_big)
{
    static char buf[3 << 20];
    for (size_t r = 0; r < nrows; r++) {
        fputc('{', f);
        int64_t id = (int64_t)r * 7 - 100;
        bk_pq_i64(w, C_ID, id);
        fprintf(f, "\"id\":\"%lld\"", (long long)id);
        if (rnd() % 5 == 0) {
            bk_pq_null(w, C_I32);
            fprintf(f, ",\"i32\":null");
        } else {
            int32_t v = (int32_t)(uint32_t)rnd();
            bk_pq_i32(w, C_I32, v);
            fprintf(f, ",\"i32\":\"%d\"", v);
        }
        uint64_t fl = rnd() % 3;
        if (fl == 2) {
            bk_pq_null(w, C_FLAG);
            fprintf(f, ",\"flag\":null");
        } else {
            bk_pq_bool(w, C_FLAG, (int)fl);
            fprintf(f, ",\"flag\":%s", fl ? "true" : "false");
        }
        if (rnd() % 4 == 0) {
            bk_pq_null(w, C_S);
            fprintf(f, ",\"s\":null");
        } else if (rnd() % 6 == 0) {
            /* hex into a dictionary column: two values, repeated */
            fprintf(f, ",\"s\":");
            put_hex(w, C_S, f, 2, 1);
        } else {
            size_t n = rnd() % 3 == 0 ? 0 : 1 + rnd() % 80;
            if (rnd() % 2) n = 3; /* repeats for the dictionary */
            rand_str(buf, n);
            if (n == 3) memcpy(buf, "abc", 3);
            put_str(w, C_S, buf, n);
            fprintf(f, ",\"s\":");
            json_str(f, buf, n);
        }
        size_t bn = rnd() % 50;
        if (with_big && r % 997 == 5) bn = (size_t)(1 + rnd() % 3) << 20; /* 1-3 MiB strings */
        if (rnd() % 3 == 0) {
            fprintf(f, ",\"big\":");
            put_hex(w, C_BIG, f, bn, 0);
        } else {
            rand_str(buf, bn);
            put_str(w, C_BIG, buf, bn);
            fprintf(f, ",\"big\":");
            json_str(f, buf, bn);
        }
        int64_t ts = (int64_t)1231006505 * 1000000 + (int64_t)r * 600000000;
        bk_pq_i64(w, C_TS, ts);
        fprintf(f, ",\"ts\":\"%lld\"", (long long)ts);
        if (r % 3 == 0) {
            bk_pq_null(w, C_TM);
            fprintf(f, ",\"tm\":null");
        } else {
            int64_t tm = (int64_t)1700000000000 + (int64_t)r;
            bk_pq_i64(w, C_TM, tm);
            fprintf(f, ",\"tm\":\"%lld\"", (long long)(tm * 1000));
        }
        size_t nl = rnd() % 4 == 0 ? 0 : rnd() % 6;
        bk_pq_list_begin(w, C_LST);
        fprintf(f, ",\"lst\":[");
        for (size_t k = 0; k < nl; k++) {
            size_t n = rnd() % 40;
            if (k) fputc(',', f);
            if (rnd() % 3 == 0) {
                put_hex(w, C_LST, f, n, 0);
                continue;
            }
            rand_str(buf, n);
            put_str(w, C_LST, buf, n);
            json_str(f, buf, n);
        }
        bk_pq_list_end(w, C_LST);
        fputc(']', f);
        uint64_t ol = rnd() % 4;
        if (ol == 0) {
            bk_pq_null(w, C_OLST);
            fprintf(f, ",\"olst\":null");
        } else {
            bk_pq_list_begin(w, C_OLST);
            fprintf(f, ",\"olst\":[");
            for (uint64_t k = 0; k < ol - 1; k++) {
                int64_t v = (int64_t)(rnd() % 5) - 2;
                if (rnd() % 50 == 0) v = INT64_MIN;
                bk_pq_i64(w, C_OLST, v);
                fprintf(f, "%s\"%lld\"", k ? "," : "", (long long)v);
            }
            bk_pq_list_end(w, C_OLST);
            fputc(']', f);
        }
        const char *cat = CATS[rnd() % 6];
        bk_pq_str(w, C_CAT, cat, strlen(cat));
        fprintf(f, ",\"cat\":");
        json_str(f, cat, strlen(cat));
        int64_t n64 = (int64_t)(r / 10);
        bk_pq_i64(w, C_N64, n64);
        fprintf(f, ",\"n64\":\"%lld\"", (long long)n64);
        bk_pq_bool(w, C_REQB, (int)(r & 1));
        fprintf(f, ",\"reqb\":%s}\n", (r & 1) ? "true" : "false");
        bk_error err;
        if (bk_pq_end_row(w, &err) != BK_OK) {
            fprintf(stderr, "end_row: %s\n", err.msg);
            CHECK(0);
            return;
        }
    }
}

static int file_sink(void *ctx, const uint8_t *d, size_t n) { return fwrite(d, 1, n, (FILE *)ctx) == n ? 0 : -1; }

static void test_files(void)
{
    char dir[] = "/tmp/bk-parquet-XXXXXX";
    const char *t = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/bk-parquet-XXXXXX", t && *t ? t : "/tmp");
    char *d = mkdtemp(tmpl);
    CHECK(d != NULL);
    if (!d) return;
    (void)dir;
    struct {
        const char *name;
        bk_pq_codec codec;
        size_t page, rg, dict;
        size_t rows;
        int big;
    } cases[] = {
        {"zstd", BK_PQ_ZSTD, 0, 0, 0, 3000, 1},
        /* zstd's fast levels (literals Huffman-coded all the same) */
        {"zstd_fast", BK_PQ_ZSTD, 0, 0, 0, 3000, 1},
        {"snappy", BK_PQ_SNAPPY, 0, 0, 0, 3000, 1},
        {"none", BK_PQ_UNCOMPRESSED, 0, 0, 0, 3000, 1},
        /* tiny pages and row groups, a dictionary that overflows into PLAIN */
        {"small", BK_PQ_UNCOMPRESSED, 512, 65536, 256, 3000, 0},
        {"small_snappy", BK_PQ_SNAPPY, 700, 30000, 100, 2000, 0},
        {"rowgroups_zstd", BK_PQ_ZSTD, 0, 200000, 0, 3000, 0},
        {"empty", BK_PQ_ZSTD, 0, 0, 0, 0, 0},
        {"one", BK_PQ_UNCOMPRESSED, 0, 0, 0, 1, 0},
        /* pages of over 40K list entries: bit-packed levels larger than
         * the room the writer keeps before the values (copied behind them) */
        {"levels_big", BK_PQ_ZSTD, 0, 0, 0, 25000, 0},
    };
    char cmd[65536];
    size_t off = (size_t)snprintf(cmd, sizeof cmd, "node %s/../export/check_parquet.mjs --pairs", BK_TEST_DATA);
    int ok = 1;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[4200], exp[4200];
        snprintf(path, sizeof path, "%s/%s.parquet", d, cases[c].name);
        snprintf(exp, sizeof exp, "%s/%s.ndjson", d, cases[c].name);
        FILE *pf = fopen(path, "wb"), *ef = fopen(exp, "wb");
        CHECK(pf && ef);
        if (!pf || !ef) return;
        bk_pq_opts o;
        bk_pq_opts_init(&o);
        o.codec = cases[c].codec;
        if (!strcmp(cases[c].name, "zstd_fast")) o.zstd_level = -7;
        if (!strcmp(cases[c].name, "rowgroups_zstd")) o.zstd_level = 3;
        if (cases[c].page) o.page_size = cases[c].page;
        if (cases[c].rg) o.row_group_size = cases[c].rg;
        if (cases[c].dict) o.dict_max_bytes = cases[c].dict;
        bk_counting_allocator ca;
        bk_counting_allocator_init(&ca, NULL);
        bk_pq_writer *w;
        bk_error err;
        if (!strcmp(cases[c].name, "rowgroups_zstd") || !strcmp(cases[c].name, "small")) {
            /* a writer reused: rows of an unfinished first file (buffers,
             * dictionaries, statistics, open pages), then reset onto the file */
            membuf junk = {0};
            CHECK(bk_pq_writer_new(&w, COLS, NCOL, &o, mem_sink, &junk, &ca.base, &err) == BK_OK);
            FILE *nul = fopen("/dev/null", "w");
            CHECK(nul != NULL);
            rng = 0x999;
            gen_rows(w, nul, 700, 0);
            bk_pq_i64(w, C_ID, 1); /* and half a row */
            if (nul) fclose(nul);
            CHECK(bk_pq_writer_reset(w, file_sink, pf, &err) == BK_OK);
            free(junk.p);
        } else {
            CHECK(bk_pq_writer_new(&w, COLS, NCOL, &o, file_sink, pf, &ca.base, &err) == BK_OK);
        }
        rng = 0x1234567 + c;
        gen_rows(w, ef, cases[c].rows, cases[c].big);
        CHECK(bk_pq_finish(w, &err) == BK_OK);
        CHECK_EQ_INT(bk_pq_rows(w), cases[c].rows);
        bk_pq_writer_free(w);
        CHECK_EQ_INT(ca.live, 0);
        if (cases[c].rg) {
            printf("%s: peak %llu bytes (row group limit %zu)\n", cases[c].name, (unsigned long long)ca.peak, cases[c].rg);
            CHECK(ca.peak < 4 * cases[c].rg + (256 << 10)); /* bounded by the row group */
        }
        CHECK(fclose(pf) == 0 && fclose(ef) == 0);
        /* every file and its expected rows, read in one node run below */
        int n = snprintf(cmd + off, sizeof cmd - off, " %s %s", exp, path);
        if (n < 0 || (size_t)n >= sizeof cmd - off) ok = 0;
        else off += (size_t)n;
    }
    if (system(cmd) != 0) {
        fprintf(stderr, "readers disagree (files in %s)\n", d);
        ok = 0;
    }
    CHECK(ok);
    if (ok) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", d);
        CHECK(system(cmd) == 0);
    }
}

int main(void)
{
    RUN(test_rle);
    RUN(test_misuse);
    RUN(test_files);
    return check_finish();
}
