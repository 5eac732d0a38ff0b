#include <blockkit/stream.h>

/* ---- reader ---- */

void bk_reader_init(bk_reader *r, const void *data, size_t len)
{
    r->data = data;
    r->len = data ? len : 0;
    r->pos = 0;
    r->base = 0;
    r->status = BK_OK;
    r->err_pos = 0;
    r->err_msg = NULL;
}

bk_status bk_reader_fail(bk_reader *r, bk_status st, size_t pos, const char *msg)
{
    if (r->status == BK_OK) {
        r->status = st;
        r->err_pos = pos;
        r->err_msg = msg;
    }
    return r->status;
}

bk_status bk_reader_error(const bk_reader *r, bk_error *err)
{
    if (r->status == BK_OK) return BK_OK;
    return bk_error_set(err, r->status, r->base + r->err_pos, "%s",
                        r->err_msg ? r->err_msg : bk_status_str(r->status));
}

/* Core: serialize.h ReadCompactSize. */
uint64_t bk_read_compact_size(bk_reader *r, int range_check)
{
    size_t start = r->pos;
    uint8_t first = bk_read_u8(r);
    uint64_t v;
    if (first < 0xfd) {
        v = first;
    } else if (first == 0xfd) {
        v = bk_read_u16(r);
        if (r->status == BK_OK && v < 0xfd)
            bk_reader_fail(r, BK_ERR_NONCANONICAL, start, "non-canonical ReadCompactSize()");
    } else if (first == 0xfe) {
        v = bk_read_u32(r);
        if (r->status == BK_OK && v < 0x10000u)
            bk_reader_fail(r, BK_ERR_NONCANONICAL, start, "non-canonical ReadCompactSize()");
    } else {
        v = bk_read_u64(r);
        if (r->status == BK_OK && v < 0x100000000ull)
            bk_reader_fail(r, BK_ERR_NONCANONICAL, start, "non-canonical ReadCompactSize()");
    }
    if (r->status != BK_OK) return 0;
    if (range_check && v > BK_MAX_SIZE) {
        bk_reader_fail(r, BK_ERR_SIZE, start, "ReadCompactSize(): size too large");
        return 0;
    }
    return v;
}

/* Core: serialize.h ReadVarInt, mode DEFAULT, into uint64_t. */
uint64_t bk_read_varint(bk_reader *r)
{
    size_t start = r->pos;
    uint64_t n = 0;
    for (;;) {
        uint8_t b = bk_read_u8(r);
        if (r->status != BK_OK) return 0;
        if (n > (UINT64_MAX >> 7)) {
            bk_reader_fail(r, BK_ERR_OVERFLOW, start, "ReadVarInt(): size too large");
            return 0;
        }
        n = (n << 7) | (b & 0x7f);
        if (!(b & 0x80)) return n;
        if (n == UINT64_MAX) {
            bk_reader_fail(r, BK_ERR_OVERFLOW, start, "ReadVarInt(): size too large");
            return 0;
        }
        n++;
    }
}

size_t bk_compact_size_encode(uint8_t out[9], uint64_t v)
{
    if (v < 0xfd) {
        out[0] = (uint8_t)v;
        return 1;
    }
    if (v <= 0xffff) {
        out[0] = 0xfd;
        out[1] = (uint8_t)v;
        out[2] = (uint8_t)(v >> 8);
        return 3;
    }
    if (v <= 0xffffffffu) {
        out[0] = 0xfe;
        bk_store_le32(out + 1, (uint32_t)v);
        return 5;
    }
    out[0] = 0xff;
    bk_store_le64(out + 1, v);
    return 9;
}

/* Core: serialize.h WriteVarInt. */
size_t bk_varint_encode(uint8_t out[10], uint64_t v)
{
    uint8_t tmp[10];
    size_t len = 0;
    for (;;) {
        tmp[len] = (uint8_t)((v & 0x7f) | (len ? 0x80 : 0x00));
        if (v <= 0x7f) break;
        v = (v >> 7) - 1;
        len++;
    }
    for (size_t i = 0; i <= len; i++) out[i] = tmp[len - i];
    return len + 1;
}

/* ---- writer ---- */

void bk_writer_init(bk_writer *w, const bk_allocator *alloc)
{
    w->data = NULL;
    w->len = 0;
    w->cap = 0;
    w->alloc = alloc;
    w->status = BK_OK;
    w->sink = NULL;
    w->sink_ctx = NULL;
    w->flush_at = 0;
}

void bk_writer_init_sink(bk_writer *w, const bk_allocator *alloc, bk_sink_fn sink, void *ctx,
                         size_t chunk)
{
    bk_writer_init(w, alloc);
    w->sink = sink;
    w->sink_ctx = ctx;
    w->flush_at = chunk ? chunk : 65536;
}

static int writer_grow(bk_writer *w, size_t need)
{
    if (w->status != BK_OK) return 0;
    if (need <= w->cap) return 1;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *p = bk_realloc(w->alloc, w->data, w->cap, cap);
    if (!p) {
        w->status = BK_ERR_NOMEM;
        return 0;
    }
    w->data = p;
    w->cap = cap;
    return 1;
}

bk_status bk_writer_flush(bk_writer *w)
{
    if (w->status != BK_OK || !w->sink || w->len == 0) return w->status;
    if (w->sink(w->sink_ctx, w->data, w->len) != 0) w->status = BK_ERR_IO;
    w->len = 0;
    return w->status;
}

bk_status bk_writer_reserve(bk_writer *w, size_t extra)
{
    if (w->status != BK_OK) return w->status;
    if (extra <= w->cap - w->len) return BK_OK;
    if (w->sink && bk_writer_flush(w) != BK_OK) return w->status;
    if (extra > SIZE_MAX - w->len) {
        w->status = BK_ERR_NOMEM;
        return w->status;
    }
    size_t need = w->len + extra;
    if (w->sink && need < w->flush_at) need = w->flush_at;
    writer_grow(w, need);
    return w->status;
}

void bk_writer_put_slow(bk_writer *w, const void *p, size_t n)
{
    if (w->status != BK_OK) return;
    if (w->sink && n >= w->flush_at) {
        /* Large piece: flush what is buffered and hand it over directly. */
        if (bk_writer_flush(w) != BK_OK) return;
        if (w->sink(w->sink_ctx, p, n) != 0) w->status = BK_ERR_IO;
        return;
    }
    if (bk_writer_reserve(w, n) != BK_OK) return;
    memcpy(w->data + w->len, p, n);
    w->len += n;
}

uint8_t *bk_writer_space(bk_writer *w, size_t n)
{
    if (bk_writer_reserve(w, n) != BK_OK) return NULL;
    return w->data + w->len;
}

void bk_writer_reset(bk_writer *w)
{
    w->len = 0;
    if (w->status == BK_ERR_IO || w->status == BK_ERR_NOMEM) w->status = BK_OK;
}

void bk_writer_free(bk_writer *w)
{
    bk_free(w->alloc, w->data, w->cap);
    w->data = NULL;
    w->len = 0;
    w->cap = 0;
}
