/* Reader and writer rules: Core's CompactSize and VARINT, sticky errors with
 * offsets, writer growth and reuse through a counting allocator. */
#include "check.h"

#include <blockkit/blockkit.h>

static uint64_t read_cs(const char *hex, bk_status *st, size_t *err_pos, int range)
{
    size_t n;
    uint8_t *b = check_unhex(hex, &n);
    bk_reader r;
    bk_reader_init(&r, b, n);
    uint64_t v = bk_read_compact_size(&r, range);
    *st = r.status;
    *err_pos = r.err_pos;
    free(b);
    return v;
}

static void compact_size_canonical_forms(void)
{
    bk_status st;
    size_t pos;
    CHECK_EQ_INT(read_cs("00", &st, &pos, 1), 0);
    CHECK_EQ_INT(st, BK_OK);
    CHECK_EQ_INT(read_cs("fc", &st, &pos, 1), 0xfc);
    CHECK_EQ_INT(read_cs("fdfd00", &st, &pos, 1), 0xfd);
    CHECK_EQ_INT(st, BK_OK);
    CHECK_EQ_INT(read_cs("feffff0000", &st, &pos, 0), 0);  /* 0xffff in 5 bytes */
    CHECK_EQ_INT(st, BK_ERR_NONCANONICAL);
    CHECK_EQ_INT(read_cs("fe00000100", &st, &pos, 1), 0x10000);
    CHECK_EQ_INT(st, BK_OK);
    CHECK_EQ_INT(read_cs("ffffffffff00000000", &st, &pos, 0), 0);
    CHECK_EQ_INT(st, BK_ERR_NONCANONICAL);
    CHECK_EQ_INT(read_cs("ff0000000001000000", &st, &pos, 0), 0x100000000ull);
    CHECK_EQ_INT(st, BK_OK);
}

static void compact_size_noncanonical_each_form(void)
{
    bk_status st;
    size_t pos;
    read_cs("fd0000", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_NONCANONICAL);
    read_cs("fdfc00", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_NONCANONICAL);
    read_cs("fe0000ffff", &st, &pos, 1);  /* 0xffff0000? no: LE = 0xffff0000 >= 0x10000 ok */
    CHECK_EQ_INT(st, BK_ERR_SIZE);         /* but over MAX_SIZE */
    read_cs("feffff0000", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_NONCANONICAL);
    read_cs("ffffffffff00000000", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_NONCANONICAL);
}

static void compact_size_max_size(void)
{
    bk_status st;
    size_t pos;
    CHECK_EQ_INT(read_cs("fe00000002", &st, &pos, 1), 0x02000000);
    CHECK_EQ_INT(st, BK_OK);
    read_cs("fe01000002", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_SIZE);
    CHECK_EQ_INT(read_cs("fe01000002", &st, &pos, 0), 0x02000001);
    CHECK_EQ_INT(st, BK_OK);
}

static void compact_size_truncated(void)
{
    bk_status st;
    size_t pos;
    read_cs("", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_TRUNCATED);
    read_cs("fd01", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_TRUNCATED);
    CHECK_EQ_INT(pos, 1);
    read_cs("ff00000000000000", &st, &pos, 1);
    CHECK_EQ_INT(st, BK_ERR_TRUNCATED);
}

static void compact_size_roundtrip(void)
{
    const uint64_t vals[] = {0, 1, 0xfc, 0xfd, 0xffff, 0x10000, 0xffffffffu, 0x100000000ull, UINT64_MAX};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint8_t buf[9];
        size_t n = bk_compact_size_encode(buf, vals[i]);
        CHECK_EQ_INT(n, bk_compact_size_len(vals[i]));
        bk_reader r;
        bk_reader_init(&r, buf, n);
        CHECK(bk_read_compact_size(&r, 0) == vals[i]);
        CHECK_EQ_INT(r.status, BK_OK);
        CHECK_EQ_INT(r.pos, n);
    }
}

/* Spec §9.3 vectors. */
static void varint_vectors(void)
{
    static const struct { uint64_t v; const char *hex; } vec[] = {
        {0, "00"}, {1, "01"}, {127, "7f"}, {128, "8000"}, {255, "807f"}, {256, "8100"},
        {16383, "fe7f"}, {16384, "ff00"}, {16511, "ff7f"}, {65535, "82fe7f"},
        {4294967296ull, "8efefeff00"},
    };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        uint8_t buf[10];
        char hex[21];
        size_t n = bk_varint_encode(buf, vec[i].v);
        check_hex(hex, buf, n);
        CHECK_EQ_STR(hex, vec[i].hex);
        size_t m;
        uint8_t *b = check_unhex(vec[i].hex, &m);
        bk_reader r;
        bk_reader_init(&r, b, m);
        CHECK(bk_read_varint(&r) == vec[i].v);
        CHECK_EQ_INT(r.status, BK_OK);
        CHECK_EQ_INT(r.pos, m);
        free(b);
    }
    uint8_t buf[10];
    size_t n = bk_varint_encode(buf, UINT64_MAX);
    bk_reader r;
    bk_reader_init(&r, buf, n);
    CHECK(bk_read_varint(&r) == UINT64_MAX);
}

static void varint_overflow_and_truncation(void)
{
    uint8_t over[11];
    memset(over, 0xff, 10);
    over[10] = 0x00;
    bk_reader r;
    bk_reader_init(&r, over, sizeof over);
    bk_read_varint(&r);
    CHECK_EQ_INT(r.status, BK_ERR_OVERFLOW);
    CHECK_EQ_INT(r.err_pos, 0);
    uint8_t trunc[2] = {0x80, 0x80};
    bk_reader_init(&r, trunc, 2);
    bk_read_varint(&r);
    CHECK_EQ_INT(r.status, BK_ERR_TRUNCATED);
    CHECK_EQ_INT(r.err_pos, 2);
}

static void reader_sticky_error_keeps_first_offset(void)
{
    uint8_t b[6] = {1, 2, 3, 4, 5, 6};
    bk_reader r;
    bk_reader_init(&r, b, sizeof b);
    r.base = 1000;
    CHECK_EQ_INT(bk_read_u32(&r), 0x04030201);
    CHECK_EQ_INT(bk_read_u32(&r), 0);      /* only 2 left */
    CHECK_EQ_INT(r.status, BK_ERR_TRUNCATED);
    CHECK_EQ_INT(bk_read_u8(&r), 0);       /* sticky */
    CHECK(bk_read_span(&r, 0) == NULL);
    bk_error e;
    CHECK_EQ_INT(bk_reader_error(&r, &e), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(e.offset, 1004);
    CHECK_EQ_STR(e.msg, "end of data");
}

static void writer_growth_and_reuse(void)
{
    bk_counting_allocator c;
    bk_counting_allocator_init(&c, NULL);
    bk_writer w;
    bk_writer_init(&w, &c.base);
    CHECK_EQ_INT(c.allocs, 0);
    char piece[100];
    memset(piece, 'x', sizeof piece);
    for (int i = 0; i < 1000; i++) bk_writer_put(&w, piece, sizeof piece);
    CHECK_EQ_INT(w.len, 100000);
    CHECK_EQ_INT(bk_writer_status(&w), BK_OK);
    /* 256 doubling to 131072: 10 growth steps. */
    CHECK_EQ_INT(c.allocs, 10);
    CHECK_EQ_INT(w.cap, 131072);
    uint64_t before = c.allocs;
    bk_writer_reset(&w);
    for (int i = 0; i < 1000; i++) bk_writer_put(&w, piece, sizeof piece);
    CHECK_EQ_INT(c.allocs, before);  /* reuse allocates nothing */
    bk_writer_free(&w);
    CHECK_EQ_INT(c.live, 0);         /* no leak */
    CHECK_EQ_INT(c.frees, 1);
}

static void *fail_alloc(void *ctx, size_t n) { (void)ctx; (void)n; return NULL; }
static void *fail_realloc(void *ctx, void *p, size_t a, size_t b) { (void)ctx; (void)p; (void)a; (void)b; return NULL; }
static void fail_free(void *ctx, void *p, size_t n) { (void)ctx; (void)p; (void)n; }

static void writer_allocation_failure_is_sticky(void)
{
    bk_allocator failing = {fail_alloc, fail_realloc, fail_free, NULL};
    bk_writer w;
    bk_writer_init(&w, &failing);
    bk_writer_puts(&w, "hello");
    CHECK_EQ_INT(bk_writer_status(&w), BK_ERR_NOMEM);
    CHECK_EQ_INT(w.len, 0);
    CHECK(bk_writer_space(&w, 10) == NULL);
    bk_writer_free(&w);
}

static int collect(void *ctx, const uint8_t *p, size_t n)
{
    bk_writer *dst = ctx;
    bk_writer_put(dst, p, n);
    return 0;
}

static void writer_sink_flushes_in_chunks(void)
{
    bk_writer dst, w;
    bk_writer_init(&dst, NULL);
    bk_writer_init_sink(&w, NULL, collect, &dst, 1024);
    for (int i = 0; i < 5000; i++) bk_writer_putc(&w, (char)('a' + i % 26));
    uint8_t big[4096];
    memset(big, 'Z', sizeof big);
    bk_writer_put(&w, big, sizeof big);
    bk_writer_puts(&w, "end");
    CHECK_EQ_INT(bk_writer_flush(&w), BK_OK);
    CHECK_EQ_INT(dst.len, 5000 + 4096 + 3);
    CHECK(w.cap <= 2048);
    CHECK(dst.data[0] == 'a' && dst.data[4999] == (uint8_t)('a' + 4999 % 26));
    CHECK(dst.data[5000] == 'Z' && memcmp(dst.data + 9096, "end", 3) == 0);
    bk_writer_free(&w);
    bk_writer_free(&dst);
}

int main(void)
{
    RUN(compact_size_canonical_forms);
    RUN(compact_size_noncanonical_each_form);
    RUN(compact_size_max_size);
    RUN(compact_size_truncated);
    RUN(compact_size_roundtrip);
    RUN(varint_vectors);
    RUN(varint_overflow_and_truncation);
    RUN(reader_sticky_error_keeps_first_offset);
    RUN(writer_growth_and_reuse);
    RUN(writer_allocation_failure_is_sticky);
    RUN(writer_sink_flushes_in_chunks);
    return check_finish();
}
