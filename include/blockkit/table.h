/* blockkit: analyst tables of the chain (docs/export.md).
 *
 * 1. bk_table_writer: one row sink, three formats. Rows are given column by
 *    column in schema order (bk_pq_column: name, type, flags) and written
 *    as Parquet (blockkit/parquet.h), CSV (RFC 4180: a header line, CRLF
 *    line ends, fields quoted when they hold a comma, quote, CR or LF;
 *    null is an empty unquoted field, "" an empty string; lists as a JSON
 *    array text) or NDJSON (one flat JSON object per line, keys in schema
 *    order, null as null, integers as numbers, lists as arrays).
 *    Timestamps in the text formats: "YYYY-MM-DD HH:MM:SS" UTC (with a
 *    fraction when not whole seconds). Any later dataset (the UTXO set,
 *    block stats) defines its columns and reuses the writer.
 *
 * 2. The four Bitcoin tables, columns named as BigQuery's crypto_bitcoin
 *    dataset names them where the meaning is the same: bk_dataset_columns()
 *    and bk_table_block_rows(), which appends one block's rows to any of
 *    the four writers.
 *
 * 3. Chunk files: <dir>/<dataset>/<dataset>_<first:08>_<last:08>.<ext>,
 *    written under a temporary name in the same directory and renamed when
 *    complete (bk_chunk_file_*), so a listing sorts by height and a killed
 *    run never leaves a partial file under a final name. */
#ifndef BLOCKKIT_TABLE_H
#define BLOCKKIT_TABLE_H

#include <blockkit/bitcoin.h>
#include <blockkit/parquet.h>
#include <blockkit/sha256.h>
#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bk_table_format {
    BK_TABLE_PARQUET = 0,
    BK_TABLE_CSV,
    BK_TABLE_NDJSON,
    BK_TABLE_FORMAT_COUNT_
} bk_table_format;

/* "parquet", "csv", "ndjson" (also "json"); BK_ERR_ARG otherwise. */
BK_API bk_status bk_table_format_parse(const char *name, bk_table_format *out) BK_WARN_UNUSED;
/* File extension without the dot: "parquet", "csv", "ndjson". */
BK_API const char *bk_table_format_ext(bk_table_format f);

typedef struct bk_table_writer {
    bk_table_format format;
    const bk_pq_column *cols;
    size_t ncols;
    bk_pq_writer *pq;          /* Parquet */
    bk_writer out;             /* text formats: flushed to the sink */
    bk_writer tmp;             /* scratch for hex / asm values */
    bk_writer lst;             /* text formats: the open list's JSON text */
    size_t next;
    size_t in_list;
    uint32_t list_items;
    uint64_t rows;
    uint64_t text_bytes;       /* text formats: bytes handed to the sink */
    const int16_t *map;        /* bk_table_set_columns: caller's column -> this writer's, -1 dropped */
    size_t nmap;
    bk_sink_fn sink;           /* text formats: the caller's sink */
    void *sink_ctx;
    bk_status status;
    char msg[BK_ERROR_MSG_MAX];
    /* text formats: the last timestamp's text */
    int ts_valid, ts_type;
    int64_t ts_value;
    size_t ts_len;
    char ts_text[40];
} bk_table_writer;

/* Open a writer of ncols columns (array and names must outlive it) into
 * sink. pq: Parquet options (NULL = defaults; ignored for text). CSV
 * writes its header line at once. */
BK_API bk_status bk_table_open(bk_table_writer *t, bk_table_format format, const bk_pq_column *cols,
                               size_t ncols, const bk_pq_opts *pq, bk_sink_fn sink, void *ctx,
                               const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
/* Column selection (bk_table_schema): the calls below then take the
 * columns of the full schema map was built from (nmap of them) and drop
 * the values of columns it maps to -1; map must outlive the writer (NULL:
 * the columns as opened). bk_table_wants says whether a column is kept,
 * for a caller that can skip computing a dropped value. */
BK_API void bk_table_set_columns(bk_table_writer *t, const int16_t *map, size_t nmap);
/* (internal, for the row code's inline paths) the writer's column, or SIZE_MAX when dropped */
static inline size_t bk_table_col_(const bk_table_writer *t, size_t col)
{
    if (!t->map) return col;
    return col < t->nmap && t->map[col] >= 0 ? (size_t)t->map[col] : SIZE_MAX;
}
BK_API int bk_table_wants(const bk_table_writer *t, size_t col);
BK_API void bk_table_null(bk_table_writer *t, size_t col);
BK_API void bk_table_bool(bk_table_writer *t, size_t col, int v);
/* INT32, INT64 and TIMESTAMP columns (the value in the column's unit). */
BK_API void bk_table_int(bk_table_writer *t, size_t col, int64_t v);
BK_API void bk_table_str(bk_table_writer *t, size_t col, const char *s, size_t len);
/* A STRING column holding the lowercase hex of n bytes; rev: last byte
 * first (Core's display order of hashes). A BYTES or FIXED32 column
 * (--profile lean) gets the bytes themselves, in the same order; the text
 * formats always the hex. */
BK_API void bk_table_hex(bk_table_writer *t, size_t col, const uint8_t *p, size_t n, int rev);
/* The scratch writer for building a string value in place (script asm,
 * descriptors): reset it, write into it, then bk_table_tmp_str. */
static inline bk_writer *bk_table_tmp(bk_table_writer *t)
{
    bk_writer_reset(&t->tmp);
    return &t->tmp;
}
BK_API void bk_table_tmp_str(bk_table_writer *t, size_t col);
/* A STRING value written in place: open returns the writer to append the
 * value's bytes to (Parquet: the column's page buffer, no copy; text
 * formats: the scratch), close ends the value. No other call on t between. */
BK_API bk_writer *bk_table_str_open(bk_table_writer *t, size_t col);
BK_API void bk_table_str_close(bk_table_writer *t, size_t col);
BK_API void bk_table_list_begin(bk_table_writer *t, size_t col);
BK_API void bk_table_list_end(bk_table_writer *t, size_t col);
BK_API bk_status bk_table_end_row(bk_table_writer *t, bk_error *err) BK_WARN_UNUSED;
/* Parquet: the footer's key_value_metadata (bk_pq_set_metadata; kept
 * until the finish). The text formats have no place for it: ignored. */
BK_API void bk_table_set_metadata(bk_table_writer *t, const bk_pq_kv *kv, size_t n);
/* Flush everything (Parquet: the footer). */
BK_API bk_status bk_table_finish(bk_table_writer *t, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_table_close(bk_table_writer *t);
/* Start over on a new sink with the same format, columns and options,
 * keeping the buffers (Parquet: bk_pq_writer_reset; CSV writes its header
 * again). */
BK_API bk_status bk_table_reopen(bk_table_writer *t, bk_sink_fn sink, void *ctx, bk_error *err) BK_WARN_UNUSED;
/* Bytes handed to the sink so far. */
BK_API uint64_t bk_table_bytes(const bk_table_writer *t);

/* ---- the Bitcoin tables ---- */

typedef enum bk_dataset {
    BK_DS_BLOCKS = 0,
    BK_DS_TRANSACTIONS,
    BK_DS_INPUTS,
    BK_DS_OUTPUTS,
    BK_DS_BLOCK_STATS,         /* Core's getblockstats as typed columns (not in the default set) */
    BK_DS_BLOCK_FILTERS,       /* BIP158 basic filters and headers, Core's getblockfilter (not in the default set) */
    BK_DS_SP_TWEAKS,           /* BIP352 tweaks: one row per eligible transaction (not in the default set) */
    BK_DS_SP_OUTPUTS,          /* BIP352: the eligible transactions' taproot outputs (not in the default set) */
    BK_DS_COUNT_
} bk_dataset;
/* The default datasets (and "all"): blocks, transactions, inputs, outputs. */
#define BK_DS_DEFAULT_MASK 0xfu

BK_API const char *bk_dataset_name(bk_dataset ds);
BK_API bk_status bk_dataset_parse(const char *name, bk_dataset *out) BK_WARN_UNUSED;
/* The dataset's columns (docs/export.md documents each). */
BK_API const bk_pq_column *bk_dataset_columns(bk_dataset ds, size_t *n_out);

/* Profiles (docs/export.md "Profiles and columns"). The default is the
 * BigQuery crypto_bitcoin layout: hashes, scripts and witness items as hex
 * STRING, script_asm and desc beside script_hex. lean: hashes as
 * FIXED_LEN_BYTE_ARRAY(32) in Core's display order (hex(col) is the
 * default profile's text), scripts, witness items, the coinbase and filters
 * as BYTE_ARRAY, no script_asm or desc (derived from script_hex); the
 * text formats keep hex. */
typedef enum bk_table_profile { BK_PROFILE_DEFAULT = 0, BK_PROFILE_LEAN, BK_PROFILE_COUNT_ } bk_table_profile;
BK_API bk_status bk_table_profile_parse(const char *name, bk_table_profile *out) BK_WARN_UNUSED;
BK_API const char *bk_table_profile_name(bk_table_profile p);

#define BK_TABLE_COLS_MAX 64
/* The columns a run writes of one dataset: its schema under a profile,
 * less the columns a selection leaves out, in the dataset's order; map
 * for bk_table_set_columns. */
typedef struct bk_table_schema {
    bk_dataset dataset;
    bk_table_profile profile;
    bk_pq_column cols[BK_TABLE_COLS_MAX];
    size_t ncols;
    int16_t map[BK_TABLE_COLS_MAX];
    size_t nmap;
} bk_table_schema;
/* columns: "dataset.column,..." to keep (a dataset it does not name keeps
 * all its columns); exclude: the same to leave out; either NULL. Entries
 * of other datasets are checked and otherwise ignored. BK_ERR_ARG naming
 * an unknown dataset or column, a column the profile does not have, or a
 * selection that leaves no column. */
BK_API bk_status bk_table_schema_build(bk_table_schema *s, bk_dataset ds, bk_table_profile p, const char *columns,
                                       const char *exclude, bk_error *err) BK_WARN_UNUSED;
/* Every entry of list names a column (of profile p): BK_ERR_ARG naming
 * the first that does not. */
BK_API bk_status bk_table_columns_check(const char *list, bk_table_profile p, bk_error *err) BK_WARN_UNUSED;
/* A column's types as text: Parquet's ("BYTE_ARRAY (STRING)",
 * "FIXED_LEN_BYTE_ARRAY(32)", "INT64 (TIMESTAMP(MICROS,UTC))", lists as
 * "LIST<...>") and the SQL type DuckDB reads it as. */
BK_API void bk_table_column_types(const bk_pq_column *c, char *parquet, size_t pcap, char *sql, size_t scap);

/* What a block's rows need beyond its bytes. */
typedef struct bk_table_block_info {
    bk_network net;
    int64_t height;
    const uint8_t *hash;        /* 32 bytes internal order, or NULL to hash the header */
    int64_t mediantime;         /* Core GetMedianTimePast, or -1 when not known (column null) */
    const uint8_t *chainwork;   /* 32 bytes big-endian, or NULL (column null) */
} bk_table_block_info;

/* One row of the block_stats dataset (columns bk_dataset_columns(
 * BK_DS_BLOCK_STATS)): st NULL writes nulls but for height and blockhash. */
struct bk_block_stats;
/* One row of the block_filters dataset: height, hash (display order), the
 * serialized filter and its header (display order) in hex as Core's
 * getblockfilter prints them; header NULL writes null (a block not on the
 * best chain, --orphans). */
BK_API bk_status bk_table_block_filter_row(bk_table_writer *t, int64_t height, const uint8_t hash[32],
                                           const uint8_t *filter, size_t len, const uint8_t *header,
                                           bk_error *err) BK_WARN_UNUSED;
/* The sp_tweaks and sp_outputs rows of block b (its CBlockUndo beside it)
 * into w (either may be NULL): per BIP352-eligible transaction (blockkit/
 * silentpay.h) height, block_hash, tx_index, txid, tweak; and per taproot
 * output of it height, txid, vout, pubkey (x-only), value. */
struct bk_sp_scratch;
BK_API bk_status bk_table_sp_rows(bk_table_writer *tweaks, bk_table_writer *outputs, const bk_block *b,
                                  const bk_block_undo *undo, int64_t height, const uint8_t hash[32],
                                  struct bk_sp_scratch *s, bk_error *err) BK_WARN_UNUSED;
BK_API bk_status bk_table_block_stats_row(bk_table_writer *t, const struct bk_block_stats *st, int64_t height,
                                          const uint8_t hash[32], bk_error *err) BK_WARN_UNUSED;

/* Reusable scratch of bk_table_block_rows (txids, wtxids, tx offsets):
 * grows to the largest block, then allocates nothing. */
typedef struct bk_table_scratch {
    const bk_allocator *alloc;
    uint8_t *ids;
    size_t ids_cap;
} bk_table_scratch;

BK_API void bk_table_scratch_init(bk_table_scratch *s, const bk_allocator *alloc);
BK_API void bk_table_scratch_free(bk_table_scratch *s);

/* Append block b's rows to the writers of w[BK_DS_COUNT_] (NULL entries
 * are skipped; each must have been opened with bk_dataset_columns of its
 * dataset). undo: the block's CBlockUndo or NULL (fee, input values and the
 * spent-output columns are then null); it is checked against the block
 * first (BK_ERR_MISMATCH). Errors of the writers are returned with their
 * message. */
BK_API bk_status bk_table_block_rows(bk_table_writer *const w[BK_DS_COUNT_], const bk_block *b,
                                     const bk_block_undo *undo, const bk_table_block_info *info,
                                     bk_table_scratch *s, bk_error *err) BK_WARN_UNUSED;

/* ---- chunk files ---- */

#define BK_CHUNK_PATH_MAX 4096
#define BK_CHUNK_BUF ((size_t)1 << 20) /* write buffer of a chunk file */

typedef struct bk_chunk_file {
    char path[BK_CHUNK_PATH_MAX];      /* final name */
    char tmp_path[BK_CHUNK_PATH_MAX];  /* <final>.tmp-<pid> */
    int fd;
    int failed;                        /* a write failed (errno in err_no) */
    int err_no;
    bk_writer buf;                     /* storage of the write buffer in front of fd */
    bk_writer buf2;                    /* storage of the second one (O_DIRECT: written while the other fills) */
    uint8_t *wb;                       /* the buffer being filled, 4 KiB aligned */
    uint8_t *wb2;                      /* the other one (O_DIRECT), being written or free */
    size_t wcap;                       /* their size: a multiple of 4 KiB, at most BK_CHUNK_BUF */
    size_t wlen;                       /* bytes in wb */
    int direct;                        /* fd is O_DIRECT (written a whole buffer at a time) */
    struct bk_chunk_io *io;            /* the thread that writes full buffers of an O_DIRECT fd, or NULL */
    int chunk_named;                   /* opened by bk_chunk_file_open: a commit removes older partials */
    bk_sha256_ctx digest;              /* of the bytes written, in order */
    uint64_t size;                     /* bytes written */
    uint8_t sha256[32];                /* after a commit: SHA-256 of the file's bytes (the catalogue's) */
    bk_table_writer table;
    /* after a commit: table and buf kept for the next open of this struct */
    int kept;
    const bk_allocator *kept_alloc;
    bk_pq_opts kept_pq;
} bk_chunk_file;

/* The final path of a chunk into out (BK_ERR_BUFFER when it does not fit). */
BK_API bk_status bk_chunk_path(char *out, size_t cap, const char *dir, const char *dataset, int64_t first,
                               int64_t last, const char *ext) BK_WARN_UNUSED;
/* Create <dir>/<dataset>/ if needed and open the temporary file, then the
 * table writer on it (f->table). The file is written in 1 MiB pieces with
 * O_DIRECT where the filesystem takes it (no copy into the page cache; the
 * last piece and any filesystem that refuses it written the usual way).
 * BK_ERR_IO naming the path. f must be
 * zeroed before its first open; a struct reopened after a commit reuses
 * the committed chunk's table writer and buffers when the format, columns,
 * options and allocator are the same (so a run of chunks allocates once). */
BK_API bk_status bk_chunk_file_open(bk_chunk_file *f, const char *dir, const char *dataset, int64_t first,
                                    int64_t last, bk_table_format format, const bk_pq_column *cols,
                                    size_t ncols, const bk_pq_opts *pq, const bk_allocator *alloc,
                                    bk_error *err) BK_WARN_UNUSED;
/* The same for one file of the caller's naming (`utxo dump -o FILE`):
 * written as <path>.tmp-<pid> and renamed to path by the commit, so a
 * failed or interrupted run never leaves a partial file under path nor
 * replaces what was there; the temporary files a killed run left there
 * are removed first (bk_tmp_sweep_stale). Creates no directory. */
BK_API bk_status bk_chunk_file_open_path(bk_chunk_file *f, const char *path, bk_table_format format,
                                         const bk_pq_column *cols, size_t ncols, const bk_pq_opts *pq,
                                         const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
/* Remove the <path>.tmp-<pid> files of processes that no longer run
 * (what a SIGKILLed or crashed run of a writer left beside path); the
 * temporary files of running processes, this one's included, stay.
 * bk_chunk_file_open_path calls it; a writer of its own temporary file
 * by that scheme (`utxo snapshot`) calls it before creating its own.
 * Returns the number of files removed. */
BK_API size_t bk_tmp_sweep_stale(const char *path);
/* Finish the table, flush, fsync, close and rename to the final name;
 * then, for a chunk (bk_chunk_file_open), remove older partial chunks of
 * the same dataset and first height (<dataset>_<first>_<other last>.<ext>).
 * On failure the temporary file is removed. */
BK_API bk_status bk_chunk_file_commit(bk_chunk_file *f, bk_error *err) BK_WARN_UNUSED;
/* Close and remove the temporary file, and free what f holds (after a
 * commit: the kept writer). */
BK_API void bk_chunk_file_abort(bk_chunk_file *f);
/* Free the writer and buffers a commit kept for the next open (no-op if
 * none): call once f will not be opened again. */
BK_API void bk_chunk_file_release(bk_chunk_file *f);

#ifdef __cplusplus
}
#endif
#endif
