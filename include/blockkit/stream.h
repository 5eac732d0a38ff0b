/* blockkit: bounds-checked reader over borrowed bytes, growable writer.
 *
 * bk_reader borrows the caller's bytes (it never copies or frees them). Reads
 * past the end, non-canonical CompactSize, sizes over MAX_SIZE and VARINT
 * overflow set a sticky error: the first fault's status, message and offset
 * are kept, later reads return 0 / NULL and change nothing. Check
 * bk_reader_ok() (or bk_reader_error()) once after a sequence of reads.
 *
 * bk_writer is a growable byte buffer. Memory comes from the caller's
 * bk_allocator; bk_writer_reset() keeps the buffer for reuse; bk_writer_free()
 * releases it without zeroing. An allocation failure is sticky too: later
 * writes are dropped and bk_writer_status() reports BK_ERR_NOMEM. A writer
 * may have a sink (a FILE, a socket): when the buffer passes its flush
 * chunk size the bytes are handed to the sink and the buffer is reused. */
#ifndef BLOCKKIT_STREAM_H
#define BLOCKKIT_STREAM_H

#include <string.h>
#include <blockkit/alloc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Core's serialize.h MAX_SIZE: the largest CompactSize a length may have. */
#define BK_MAX_SIZE 0x02000000u

typedef struct bk_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    uint64_t base;          /* added to offsets in errors (position of data in a file) */
    bk_status status;       /* BK_OK until the first fault */
    size_t err_pos;         /* position of the first fault (relative to data) */
    const char *err_msg;    /* static message of the first fault */
} bk_reader;

BK_API void bk_reader_init(bk_reader *r, const void *data, size_t len);

/* Record a fault at position pos (sticky: only the first is kept). Returns
 * the reader's status afterwards. */
BK_API bk_status bk_reader_fail(bk_reader *r, bk_status st, size_t pos, const char *msg);

/* Copy the reader's first fault into *err (if any); returns its status. */
BK_API bk_status bk_reader_error(const bk_reader *r, bk_error *err);

static inline int bk_reader_ok(const bk_reader *r) { return r->status == BK_OK; }
static inline size_t bk_reader_remaining(const bk_reader *r) { return r->len - r->pos; }

/* Borrow n bytes; NULL (and a truncation fault) when fewer remain. */
static inline const uint8_t *bk_read_span(bk_reader *r, size_t n)
{
    if (r->status != BK_OK) return NULL;
    if (n > r->len - r->pos) {
        bk_reader_fail(r, BK_ERR_TRUNCATED, r->pos, "end of data");
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

static inline int bk_read_bytes(bk_reader *r, void *out, size_t n)
{
    const uint8_t *p = bk_read_span(r, n);
    if (!p) return 0;
    memcpy(out, p, n);
    return 1;
}

static inline uint8_t bk_read_u8(bk_reader *r)
{
    const uint8_t *p = bk_read_span(r, 1);
    return p ? p[0] : 0;
}

static inline uint16_t bk_load_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t bk_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t bk_load_le64(const uint8_t *p)
{
    return (uint64_t)bk_load_le32(p) | ((uint64_t)bk_load_le32(p + 4) << 32);
}
static inline void bk_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void bk_store_le64(uint8_t *p, uint64_t v)
{
    bk_store_le32(p, (uint32_t)v); bk_store_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t bk_read_u16(bk_reader *r) { const uint8_t *p = bk_read_span(r, 2); return p ? bk_load_le16(p) : 0; }
static inline uint32_t bk_read_u32(bk_reader *r) { const uint8_t *p = bk_read_span(r, 4); return p ? bk_load_le32(p) : 0; }
static inline uint64_t bk_read_u64(bk_reader *r) { const uint8_t *p = bk_read_span(r, 8); return p ? bk_load_le64(p) : 0; }
static inline int64_t bk_read_i64(bk_reader *r) { return (int64_t)bk_read_u64(r); }

/* Core's ReadCompactSize: rejects non-canonical encodings ("non-canonical
 * ReadCompactSize()") and, when range_check is non-zero, values over
 * BK_MAX_SIZE ("ReadCompactSize(): size too large"). */
BK_API uint64_t bk_read_compact_size(bk_reader *r, int range_check);

/* Core's ReadVarInt (mode DEFAULT, MSB-first base-128 with the +1 bijection),
 * into a uint64 ("ReadVarInt(): size too large" on overflow). */
BK_API uint64_t bk_read_varint(bk_reader *r);

/* Encoders (for tests and writers): return the number of bytes written to
 * out (at most 9 for CompactSize, 10 for VARINT). */
BK_API size_t bk_compact_size_encode(uint8_t out[9], uint64_t v);
BK_API size_t bk_varint_encode(uint8_t out[10], uint64_t v);
/* Bytes the CompactSize encoding of v takes (1, 3, 5 or 9). */
static inline size_t bk_compact_size_len(uint64_t v)
{
    return v < 0xfd ? 1 : v <= 0xffff ? 3 : v <= 0xffffffffu ? 5 : 9;
}

/* ---- writer ---- */

/* A sink receives flushed bytes; it returns 0 on success, non-zero on
 * failure (the writer then reports BK_ERR_IO). */
typedef int (*bk_sink_fn)(void *ctx, const uint8_t *data, size_t len);

typedef struct bk_writer {
    uint8_t *data;
    size_t len;
    size_t cap;
    const bk_allocator *alloc;
    bk_status status;
    bk_sink_fn sink;        /* NULL: accumulate in memory */
    void *sink_ctx;
    size_t flush_at;        /* with a sink: flush when len reaches this */
} bk_writer;

/* A memory writer; alloc NULL = default allocator. Allocates nothing yet. */
BK_API void bk_writer_init(bk_writer *w, const bk_allocator *alloc);
/* A writer that flushes to sink every time about chunk bytes are buffered
 * (chunk 0 = 64 KiB). Call bk_writer_flush() at the end. */
BK_API void bk_writer_init_sink(bk_writer *w, const bk_allocator *alloc, bk_sink_fn sink,
                                void *ctx, size_t chunk);
/* Ensure room for extra more bytes. */
BK_API bk_status bk_writer_reserve(bk_writer *w, size_t extra) BK_WARN_UNUSED;
/* Slow path of bk_writer_put (growth or flush). */
BK_API void bk_writer_put_slow(bk_writer *w, const void *p, size_t n);
/* Hand buffered bytes to the sink (no-op without one). */
BK_API bk_status bk_writer_flush(bk_writer *w) BK_WARN_UNUSED;
/* Forget the contents, keep the memory. */
BK_API void bk_writer_reset(bk_writer *w);
/* Release the memory (never zeroed). The writer may be initialised again. */
BK_API void bk_writer_free(bk_writer *w);
static inline bk_status bk_writer_status(const bk_writer *w) { return w->status; }

static inline void bk_writer_put(bk_writer *w, const void *p, size_t n)
{
    if (n <= w->cap - w->len) {
        memcpy(w->data + w->len, p, n);
        w->len += n;
        return;
    }
    bk_writer_put_slow(w, p, n);
}
static inline void bk_writer_putc(bk_writer *w, char c)
{
    if (w->len < w->cap) { w->data[w->len++] = (uint8_t)c; return; }
    bk_writer_put_slow(w, &c, 1);
}
static inline void bk_writer_puts(bk_writer *w, const char *s) { bk_writer_put(w, s, strlen(s)); }

/* Room for n bytes at the end of the buffer, to be committed with
 * bk_writer_commit(); NULL after an allocation failure. With a sink, this
 * may flush first. */
BK_API uint8_t *bk_writer_space(bk_writer *w, size_t n);
static inline void bk_writer_commit(bk_writer *w, size_t n) { w->len += n; }

#ifdef __cplusplus
}
#endif
#endif
