/* blockkit: a streaming Apache Parquet writer (apache/parquet-format).
 *
 * Flat schemas of leaf columns, each required, optional, or a list of
 * required values (the three-level LIST structure of LogicalTypes.md:
 * `<required|optional> group name (LIST) { repeated group list { required
 * <type> element; } }`). Physical and logical types: BOOLEAN, INT32, INT64,
 * BYTE_ARRAY (STRING, or raw bytes), FIXED_LEN_BYTE_ARRAY(32), INT64
 * TIMESTAMP(MILLIS|MICROS, UTC).
 *
 * Data pages (v1) are PLAIN or, for columns that ask for it, RLE_DICTIONARY
 * with one PLAIN dictionary page per column chunk (a chunk whose dictionary
 * grows past dict_max_bytes continues with PLAIN pages). Definition and
 * repetition levels use the RLE / bit-packed hybrid. Pages end at row
 * boundaries once their values pass page_size bytes (looked at every
 * min(page_size / 16, 64 KiB) bytes of values); a row group is written out
 * once the bytes buffered for it (compressed pages, open pages and
 * dictionaries) pass row_group_size, so memory is bounded by about
 * row_group_size plus 64 KiB plus one row. Each page body is compressed
 * with zstd (one context per writer; negative levels keep Huffman-coded
 * literals), snappy or nothing. Column chunk statistics: null_count always (non-list
 * columns), min_value / max_value in the type's order (strings compared as
 * unsigned bytes and cut to 64 bytes: the min a prefix, the max a prefix
 * with its last byte raised, flagged not exact), so engines prune row
 * groups by a column such as block_number.
 *
 * The output is a byte stream handed to a sink (no seeking): "PAR1",
 * column chunks, the Thrift compact FileMetaData, its length, "PAR1".
 *
 * Values of a row are given column by column in schema order with the
 * bk_pq_* calls, then bk_pq_end_row. Misuse (a value of the wrong type, a
 * null for a required column, a column out of order, a missing value) is a
 * sticky BK_ERR_ARG reported by bk_pq_end_row / bk_pq_finish with a
 * message naming the column. All memory comes from the caller's allocator. */
#ifndef BLOCKKIT_PARQUET_H
#define BLOCKKIT_PARQUET_H

#include <blockkit/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bk_pq_type {
    BK_PQ_BOOLEAN = 0,
    BK_PQ_INT32,
    BK_PQ_INT64,
    BK_PQ_STRING,              /* BYTE_ARRAY, logical STRING (UTF-8) */
    BK_PQ_TIMESTAMP_MILLIS,    /* INT64, TIMESTAMP(isAdjustedToUTC, MILLIS) */
    BK_PQ_TIMESTAMP_MICROS,    /* INT64, TIMESTAMP(isAdjustedToUTC, MICROS) */
    BK_PQ_BYTES,               /* BYTE_ARRAY, no annotation (raw bytes) */
    BK_PQ_FIXED32,             /* FIXED_LEN_BYTE_ARRAY(32), no annotation (a hash) */
    BK_PQ_TYPE_COUNT_
} bk_pq_type;

/* Column flags. */
#define BK_PQ_OPTIONAL 1u  /* the value (or the list) may be null */
#define BK_PQ_LIST 2u      /* a list of required values of the type */
#define BK_PQ_DICT 4u      /* dictionary-encode (falls back to PLAIN when the dictionary gets large) */
#define BK_PQ_NO_MINMAX 8u /* no min/max statistics (null_count only): for long, unclustered strings */

typedef struct bk_pq_column {
    const char *name;      /* ASCII; the writer keeps the pointer */
    bk_pq_type type;
    unsigned flags;
} bk_pq_column;

typedef enum bk_pq_codec {
    BK_PQ_UNCOMPRESSED = 0,
    BK_PQ_SNAPPY = 1,
    BK_PQ_ZSTD = 6
} bk_pq_codec;

#define BK_PQ_ZSTD_LEVEL_DEFAULT (-5)

typedef struct bk_pq_opts {
    bk_pq_codec codec;         /* default BK_PQ_ZSTD */
    int zstd_level;            /* default BK_PQ_ZSTD_LEVEL_DEFAULT; negative = zstd's fast levels,
                                  always with Huffman-coded literals and matches of 7+ bytes
                                  (docs/export.md) */
    size_t page_size;          /* default 1 MiB of encoded values */
    size_t row_group_size;     /* default 64 MiB buffered */
    size_t dict_max_bytes;     /* default 1 MiB of dictionary per chunk */
    const char *created_by;    /* default "blockkit" */
} bk_pq_opts;

BK_API void bk_pq_opts_init(bk_pq_opts *o);
/* "zstd", "snappy", "none" (or "uncompressed"). BK_ERR_ARG otherwise. */
BK_API bk_status bk_pq_codec_parse(const char *name, bk_pq_codec *out) BK_WARN_UNUSED;

typedef struct bk_pq_writer bk_pq_writer;

/* A writer for ncols columns (the array and its names must outlive it),
 * writing to sink(ctx, ...). Writes "PAR1" at once. BK_ERR_ARG for an
 * empty or bad schema (no name, unknown type or flags), BK_ERR_NOMEM,
 * BK_ERR_IO when the sink fails. */
BK_API bk_status bk_pq_writer_new(bk_pq_writer **out, const bk_pq_column *cols, size_t ncols,
                                  const bk_pq_opts *opts, bk_sink_fn sink, void *ctx,
                                  const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;

/* The next value of column col (which must be the next in schema order,
 * or, inside a list, the list's column). */
BK_API void bk_pq_null(bk_pq_writer *w, size_t col);
BK_API void bk_pq_bool(bk_pq_writer *w, size_t col, int v);
BK_API void bk_pq_i32(bk_pq_writer *w, size_t col, int32_t v);
/* INT64 and both TIMESTAMP types. */
BK_API void bk_pq_i64(bk_pq_writer *w, size_t col, int64_t v);
BK_API void bk_pq_str(bk_pq_writer *w, size_t col, const char *s, size_t len);
/* A STRING value: the lowercase hex of p[0..n) (rev: last byte first, the
 * display order of hashes), written straight into the page. */
BK_API void bk_pq_hex(bk_pq_writer *w, size_t col, const uint8_t *p, size_t n, int rev);
/* A BYTES or FIXED32 value (also a STRING column's bytes as they are): n
 * bytes at p (rev: last byte first, at most 32; FIXED32 takes exactly
 * 32). */
BK_API void bk_pq_bin(bk_pq_writer *w, size_t col, const uint8_t *p, size_t n, int rev);
/* A string value built in place (hex, script text) without a copy: open
 * returns the writer to append the value's bytes to (the column's page
 * buffer itself for a PLAIN column, a scratch buffer for a dictionary
 * column; never NULL, after an error a scratch whose bytes are dropped),
 * close ends the value. No other call of the writer may come between. */
BK_API bk_writer *bk_pq_str_open(bk_pq_writer *w, size_t col);
BK_API void bk_pq_str_close(bk_pq_writer *w, size_t col);
/* A list value: begin, then its elements with the calls above (not null),
 * then end. An empty list is begin + end; a null list (BK_PQ_OPTIONAL) is
 * bk_pq_null. */
BK_API void bk_pq_list_begin(bk_pq_writer *w, size_t col);
BK_API void bk_pq_list_end(bk_pq_writer *w, size_t col);

/* Close the row (every column must have its value); may write pages or a
 * row group to the sink. Returns the sticky status. */
BK_API bk_status bk_pq_end_row(bk_pq_writer *w, bk_error *err) BK_WARN_UNUSED;
/* key_value_metadata of the footer (FileMetaData field 5): n pairs of
 * NUL-terminated strings (value NULL: the key alone), written by
 * bk_pq_finish; the array and strings must live until then. A later call
 * replaces the set; bk_pq_writer_reset clears it. */
typedef struct bk_pq_kv {
    const char *key;
    const char *value;
} bk_pq_kv;
BK_API void bk_pq_set_metadata(bk_pq_writer *w, const bk_pq_kv *kv, size_t n);

/* Write the last row group and the footer. The writer accepts nothing
 * after. Returns the sticky status. */
BK_API bk_status bk_pq_finish(bk_pq_writer *w, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_pq_writer_free(bk_pq_writer *w);
/* Start a new file on sink(ctx, ...) with the same schema and options,
 * keeping the buffers (pages, dictionaries, column chunks) at the sizes
 * they grew to: for a run of files, no allocation after the first. Any
 * state of the previous file (finished or not) is dropped; the sticky
 * status is cleared. Writes "PAR1" (BK_ERR_IO when the sink fails). */
BK_API bk_status bk_pq_writer_reset(bk_pq_writer *w, bk_sink_fn sink, void *ctx, bk_error *err) BK_WARN_UNUSED;

BK_API uint64_t bk_pq_rows(const bk_pq_writer *w);
/* Bytes handed to the sink so far. */
BK_API uint64_t bk_pq_bytes(const bk_pq_writer *w);

/* ---- reading a footer back (bk_export_verify, tests) ---- */

/* The file's last 8 bytes (footer length, "PAR1") and its size -> where
 * the Thrift FileMetaData is. BK_ERR_TRUNCATED under 12 bytes,
 * BK_ERR_INVALID without the magic or with a length over the file. */
BK_API bk_status bk_pq_footer_locate(const uint8_t tail[8], uint64_t file_size, uint64_t *meta_offset,
                                     uint32_t *meta_len, bk_error *err) BK_WARN_UNUSED;

typedef struct bk_pq_kv_view {
    const char *key, *value;   /* into the parsed bytes, not terminated; value NULL when absent */
    size_t key_len, value_len;
} bk_pq_kv_view;

#define BK_PQ_FOOTER_KV_MAX 32
typedef struct bk_pq_footer {
    int64_t num_rows;          /* FileMetaData.num_rows */
    int64_t rowgroup_rows;     /* the sum of RowGroup.num_rows */
    uint64_t n_rowgroups;
    bk_pq_kv_view kv[BK_PQ_FOOTER_KV_MAX]; /* the first key_value_metadata entries */
    size_t nkv;
    uint64_t n_kv_total;
} bk_pq_footer;

/* Decode FileMetaData (the bytes bk_pq_footer_locate points at): what
 * is above, the rest skipped. Errors (BK_ERR_TRUNCATED, BK_ERR_INVALID)
 * name the byte; nesting is bounded; nothing is allocated. */
BK_API bk_status bk_pq_footer_parse(const uint8_t *meta, size_t len, bk_pq_footer *f, bk_error *err) BK_WARN_UNUSED;
/* The value of key, or NULL. */
BK_API const bk_pq_kv_view *bk_pq_footer_get(const bk_pq_footer *f, const char *key);

/* ---- building blocks (exposed for tests and fuzzing) ---- */

/* Append the RLE / bit-packed hybrid encoding of n values of bit_width bits
 * (1..32) to out (no length prefix). */
BK_API void bk_pq_rle_encode(bk_writer *out, const uint32_t *vals, size_t n, unsigned bit_width);
/* The same for byte values (definition / repetition levels), bit_width 1..8. */
BK_API void bk_pq_rle_encode_u8(bk_writer *out, const uint8_t *vals, size_t n, unsigned bit_width);
/* Decode a hybrid stream into vals[0..n); BK_ERR_TRUNCATED when it ends
 * early, BK_ERR_INVALID for a run over n. For tests. */
BK_API bk_status bk_pq_rle_decode(const uint8_t *p, size_t len, unsigned bit_width, uint32_t *vals,
                                  size_t n) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
