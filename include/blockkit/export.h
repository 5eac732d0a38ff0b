/* blockkit: the best chain of a blocks directory exported as chunked
 * tables (blockkit/table.h; docs/export.md).
 *
 * Heights are grouped into chunks of chunk_size blocks aligned to
 * multiples of it: chunk k holds heights [k*S, k*S + S - 1] (clipped to
 * --start). Each dataset of a chunk is one file,
 * <out>/<dataset>/<dataset>_<first:08>_<last:08>.<ext>, written under a
 * temporary name and renamed when complete. A chunk whose file exists is
 * skipped (resume). The last chunk, when the range ends inside it, is
 * written with the range's end as its last height unless complete_only is
 * set (--follow); a later run that can write more of it replaces that
 * partial file. Chunks are written by `workers` threads, one chunk per
 * thread at a time, each chunk's bytes depending only on its blocks (the
 * same bytes whatever the thread count or an earlier interruption).
 *
 * The library prints nothing: progress goes to the caller's callback. */
#ifndef BLOCKKIT_EXPORT_H
#define BLOCKKIT_EXPORT_H

#include <blockkit/chain.h>
#include <blockkit/engine.h>
#include <blockkit/json.h>
#include <blockkit/table.h>
#include <blockkit/utxo_rollback.h>

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A chunk being written, for an ETA that knows what is in flight. */
typedef struct bk_export_chunk_progress {
    int64_t first, last;       /* its heights */
    uint64_t bytes_done, bytes_total;    /* block bytes read into it / of it */
    double seconds;            /* since its worker began it */
} bk_export_chunk_progress;

typedef struct bk_export_progress {
    int64_t height;            /* the highest height written so far (-1: none) */
    uint64_t blocks_done, blocks_total;
    uint64_t bytes_done, bytes_total;    /* block bytes (done: read into a chunk) */
    uint64_t chunks_done, chunks_total;  /* of this run (skipped ones not counted) */
    double seconds;
    /* A block's work is done when its chunk's files are committed (its
     * rows encoded, compressed, written and renamed), which is later than
     * bytes_done says: */
    uint64_t bytes_committed;  /* block bytes of the chunks committed */
    double chunk_seconds;      /* the worker time those chunks took, begin to commit */
    int workers;
    const bk_export_chunk_progress *busy;  /* the chunks in flight now (n_busy <= workers) */
    size_t n_busy;
} bk_export_progress;

typedef struct bk_export_opts {
    const char *blocksdir;     /* the blocks directory itself */
    bk_network net;
    const char *out_dir;
    unsigned datasets;         /* bit (1 << bk_dataset) per table; 0 = all four */
    bk_table_format format;
    bk_pq_opts pq;             /* Parquet options */
    int64_t start;             /* first height (default 0) */
    int64_t end;               /* last height, -1 = the tip minus below_tip */
    int64_t below_tip;         /* --end -N */
    int64_t chunk_size;        /* blocks per chunk (default 10000) */
    int complete_only;         /* write only chunks whose whole range is <= the end (follow) */
    int workers;               /* >= 1 */
    int orphans;               /* blocks whose ancestors are not in the files, by their BIP34 height */
    int allow_missing_undo;    /* export blocks without rev data (spent columns null) instead of stopping */
    bk_table_profile profile;  /* default (BigQuery's layout) or lean (blockkit/table.h) */
    const char *columns;       /* "dataset.column,..." to keep, or NULL (bk_table_schema_build) */
    const char *exclude_columns; /* the same to leave out, or NULL */
    const volatile sig_atomic_t *cancel;  /* non-zero: stop soon; unfinished chunks are dropped */
    void (*progress)(void *ctx, const bk_export_progress *p);  /* from the calling thread, ~4/s */
    void *progress_ctx;
    const bk_allocator *alloc; /* NULL = default */
    /* Non-NULL: the chain to export, built by the caller (from Core's block
     * index: bk_chain_build_index, exact undo positions, pruned blocks marked
     * no_data and skipped); it is only read. NULL: the header scan of
     * blocksdir (bk_chain_build). */
    const bk_chain *chain;
    /* Non-zero: the caller holds out_dir's lock (bk_out_lock_take, e.g.
     * across the runs of --follow); zero: the run takes it for its
     * duration. */
    int out_locked;
} bk_export_opts;

typedef struct bk_export_stats {
    uint64_t chunks_written, chunks_skipped;
    uint64_t files_written;
    uint64_t blocks;           /* exported in this run */
    uint64_t bytes_in;         /* block bytes of those */
    uint64_t bytes_out;        /* file bytes written */
    uint64_t rows[BK_DS_COUNT_];
    int64_t tip_height;        /* -1 when there is no block */
    int64_t end_height;        /* the last height this run covered */
    int64_t next_height;       /* the first height of the first chunk not written (complete_only) */
    uint64_t missing_undo;     /* blocks exported without undo (allow_missing_undo) */
    uint64_t chunks_rewritten; /* files under a chunk's name that were there and failed bk_export_check_chunk */
    uint64_t chunks_removed;   /* listed chunks above the range whose blocks left the best chain */
    int64_t waiting_undo;      /* complete_only: the height whose undo data the next chunk waits for (-1: none) */
    double chain_seconds, seconds;
    int workers;
} bk_export_stats;

/* One writer per output directory: an exclusive flock(2) on
 * OUT/.blockkit-lock (created with OUT; the holder's pid written into it),
 * released by bk_out_lock_release (which removes the file) or by the
 * kernel when the process dies (the file then stays, holding no lock).
 * BK_ERR_LOCKED, at once, when another process holds it: "another blockkit
 * (pid N) writes into OUT"; BK_ERR_IO when OUT cannot be created. */
typedef struct bk_out_lock {
    int fd;
    char path[4096];
} bk_out_lock;
BK_API bk_status bk_out_lock_take(bk_out_lock *l, const char *out_dir, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_out_lock_release(bk_out_lock *l);

/* ---- provenance: OUT/_blockkit/ (docs/export.md "Provenance and --verify") ----
 *
 * Every chunk file is listed in OUT/_blockkit/chunks.ndjson, one line
 * appended (and fsynced) right after the file's rename; the latest line
 * of a file wins, and each run ends by rewriting the catalogue with one
 * line per file that exists (atomically: temporary file, rename). A
 * Parquet chunk also carries its provenance in its footer's
 * key_value_metadata (blockkit.* keys, bk_export_footer_keys). The
 * datasets of an export (format, chunk size, network, the range covered)
 * are in OUT/_blockkit/datasets.ndjson. */
#define BK_EXPORT_SCHEMA_VERSION 1
#define BK_CATALOG_FILE_MAX 160

typedef struct bk_catalog_entry {
    char file[BK_CATALOG_FILE_MAX]; /* under OUT: "<dataset>/<dataset>_<first>_<last>.<ext>" */
    bk_dataset dataset;
    bk_table_format format;
    bk_network net;
    int64_t first, last;         /* its heights */
    uint8_t first_hash[32];      /* the best-chain blocks at the lowest and highest of its heights the chain
                                    had when it was written (internal order; an implied genesis is not one) */
    uint8_t last_hash[32];
    uint8_t chain_sha256[32];    /* bk_export_chain_digest(first, last) when written */
    uint64_t rows;
    uint64_t bytes;              /* the file's size */
    uint8_t sha256[32];          /* of the file's bytes */
    int64_t mtime_ns;            /* the file's mtime after the rename (the quick check) */
    uint32_t schema;             /* BK_EXPORT_SCHEMA_VERSION */
    uint64_t seq;                /* (the catalogue's: its order of arrival, the latest line of a file wins) */
} bk_catalog_entry;

typedef struct bk_catalog {
    bk_catalog_entry *e;
    size_t n, cap;
    size_t n_sorted;             /* e[0..n_sorted) sorted by file, one each; the rest added since */
    uint64_t seq_next;
    const bk_allocator *alloc;
    uint64_t bad_lines;          /* lines load could not read (skipped) */
    uint64_t first_bad_line;     /* 1-based */
    char first_bad[BK_ERROR_MSG_MAX];
} bk_catalog;

/* One line of the catalogue, without its newline, into out (at least
 * 1024 bytes): the length, 0 when it does not fit. */
BK_API size_t bk_catalog_line(const bk_catalog_entry *e, char *out, size_t cap);
/* Parse one line (without its newline). BK_ERR_INVALID naming the byte. */
BK_API bk_status bk_catalog_parse_line(const char *line, size_t len, bk_catalog_entry *e, bk_error *err) BK_WARN_UNUSED;
/* Read OUT/_blockkit/chunks.ndjson (absent: an empty catalogue). Lines
 * that cannot be read are counted in bad_lines and skipped (a line torn
 * by a crash); BK_ERR_IO when the file cannot be read. */
BK_API bk_status bk_catalog_load(bk_catalog *c, const char *out_dir, const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_catalog_free(bk_catalog *c);
BK_API const bk_catalog_entry *bk_catalog_find(const bk_catalog *c, const char *file);
/* Add e, replacing the entry of the same file. */
BK_API bk_status bk_catalog_put(bk_catalog *c, const bk_catalog_entry *e, bk_error *err) BK_WARN_UNUSED;
/* SHA-256 of the 32-byte hashes (internal order) of the best-chain blocks
 * at heights first..last, in height order (a height without one: 32 zero
 * bytes). */
BK_API void bk_export_chain_digest(const bk_chain *c, int64_t first, int64_t last, uint8_t out[32]);

/* What is wrong with a chunk (bk_export_check_chunk, bk_export_verify). */
typedef enum bk_chunk_problem {
    BK_CHUNK_OK = 0,
    BK_CHUNK_MISSING,          /* listed, no file; or heights of the range no chunk holds */
    BK_CHUNK_NOT_REGULAR,      /* a directory or another non-file under a chunk's name */
    BK_CHUNK_UNLISTED,         /* a file under a chunk's name that the catalogue does not list */
    BK_CHUNK_TRUNCATED,        /* shorter than written */
    BK_CHUNK_DAMAGED,          /* other bytes than written (size, SHA-256, footer, rows) */
    BK_CHUNK_FOREIGN,          /* another network's, or a footer naming other blocks than the catalogue */
    BK_CHUNK_REORGED,          /* its blocks are no longer all on the best chain */
    BK_CHUNK_BEYOND_TIP,       /* heights above the chain's tip (a node behind the export, or still syncing) */
    BK_CHUNK_PARTIAL,          /* ends before its chunk does while the range goes on */
    BK_CHUNK_OUTSIDE,          /* not a chunk of the export's grid (chunk size, start) */
    BK_CHUNK_CATALOGUE,        /* a catalogue line that cannot be read */
    BK_CHUNK_PROBLEM_COUNT_
} bk_chunk_problem;
BK_API const char *bk_chunk_problem_name(bk_chunk_problem p);

/* Check one listed chunk: the file (lstat, size, the Parquet footer's
 * provenance against e), its bytes (SHA-256, when deep or when its mtime
 * is not the one listed), its rows (deep), and chain (NULL: not checked):
 * the hashes of heights first..last against e's. why: one line, what is
 * wrong. Never fails: an unreadable file is BK_CHUNK_DAMAGED saying why. */
BK_API bk_chunk_problem bk_export_check_chunk(const char *out_dir, const bk_catalog_entry *e, const bk_chain *chain,
                                              bk_network net, int deep, char *why, size_t why_cap);

typedef struct bk_export_verify_opts {
    const char *out_dir;
    const bk_chain *chain;     /* the node's best chain now */
    bk_network net;
    int deep;                  /* every file's SHA-256 and rows, not only those whose mtime changed */
    /* one call per problem: file (under OUT, or "" for the catalogue), what */
    void (*report)(void *ctx, const char *file, bk_chunk_problem p, const char *why);
    void *ctx;
    const volatile sig_atomic_t *cancel;
    const bk_allocator *alloc;
} bk_export_verify_opts;

typedef struct bk_export_verify_stats {
    uint64_t datasets, chunks, files_ok, problems, bytes_hashed;
    uint64_t problem_count[BK_CHUNK_PROBLEM_COUNT_];
    int64_t start, end;        /* the range checked (the widest over the datasets) */
    int64_t tip_height;
} bk_export_verify_stats;

/* Check an export directory against the chain: for every dataset in
 * datasets.ndjson, every chunk of the range [start, end] (the grid of its
 * chunk size; end the highest listed) present, listed, whole, its own and
 * on the best chain; every file under a chunk's name listed. BK_OK with
 * stats->problems == 0 when complete; BK_ERR_NOT_FOUND when OUT is not an
 * export (no _blockkit/datasets.ndjson); BK_ERR_CANCELLED; BK_ERR_IO. */
BK_API bk_status bk_export_verify(const bk_export_verify_opts *o, bk_export_verify_stats *stats,
                                  bk_error *err) BK_WARN_UNUSED;

/* ---- the UTXO set as chunked tables (`export --datasets utxos`; docs/utxo.md) ---- */

struct bk_utxo_source_opts;
typedef struct bk_utxo_export_opts {
    const struct bk_utxo_source_opts *source;  /* the set (blockkit/utxo.h: chainstate, snapshot, a past height) */
    const char *out_dir;
    bk_table_format format;
    bk_pq_opts pq;
    bk_table_profile profile;  /* lean: txid and script as bytes, no desc */
    uint64_t chunk_rows;       /* rows per file */
    unsigned threads;          /* rendering threads; >= 2 also two chunk writers on a source read twice */
    const volatile sig_atomic_t *cancel;  /* non-zero: stop soon (BK_ERR_CANCELLED; the files are incomplete) */
    /* the single writer's rows and files so far, about 4 times a second (calling thread) */
    void (*progress)(void *ctx, uint64_t rows, uint64_t files, double seconds);
    void *progress_ctx;
    const bk_allocator *alloc;
    int out_locked;            /* the caller holds out_dir's lock (bk_out_lock_take) */
} bk_utxo_export_opts;

typedef struct bk_utxo_export_stats {
    uint64_t rows, files, bytes;
    uint8_t best[32];          /* the block the set is after (internal order) */
    int32_t height;            /* its height, -1 when not known */
    bk_network net;
    uint64_t disk_size;
    double seconds;
} bk_utxo_export_stats;

/* Write every coin of the source, DIR/utxos/utxos_<first>_<last>.<ext>,
 * each chunk committed as the block datasets' are (its footer naming its
 * rows and the best block), then remove the utxos files of this format it
 * did not write (so DIR holds exactly this set). Errors: the source's
 * (bk_utxo_source_open), BK_ERR_IO (a file), BK_ERR_LOCKED,
 * BK_ERR_CANCELLED, BK_ERR_NOMEM. */
BK_API bk_status bk_utxo_export_run(const bk_utxo_export_opts *o, bk_utxo_export_stats *stats,
                                    bk_error *err) BK_WARN_UNUSED;

/* ---- gettxoutsetinfo by height as one table (`export --datasets utxo_stats`) ---- */

typedef struct bk_utxo_stats_export_opts {
    const char *datadir;       /* a node's datadir: the chain from its block index */
    const char *blocksdir;     /* its blk/rev directory (bk_blocksdir_open) */
    const char *tmpdir;        /* the block index's private snapshot (NULL: TMPDIR) */
    bk_network net;
    const char *out_dir;
    bk_table_format format;
    bk_pq_opts pq;
    int64_t start;
    int64_t end, below_tip;    /* -1 when not given: bk_engine_range_end (an end past the tip: the tip) */
    int workers;               /* bk_coinstats_series' threads */
    const volatile sig_atomic_t *cancel;  /* non-zero: stop soon (BK_ERR_CANCELLED, no file written) */
    int out_locked;            /* the caller holds out_dir's lock (bk_out_lock_take) */
} bk_utxo_stats_export_opts;

typedef struct bk_utxo_stats_export_result {
    int64_t start, end;        /* the heights asked for, the end resolved against the tip */
    int64_t tip_height;        /* -1: no active chain */
    uint64_t rows;             /* rows written, one per height */
    /* a failure: opening is 1 when it was opening something (the block
     * index, the blocks directory, out_dir's lock, the file; err names it
     * with its status), 0 for the range and the run (where names a block's
     * failure; stage BK_STAGE_NONE otherwise: bk_engine_error_format
     * renders either) */
    int opening;
    bk_engine_where where;
} bk_utxo_stats_export_result;

/* Core's gettxoutsetinfo muhash <height> true for heights [start, end]
 * of the datadir's active chain (bk_coinstats_series: one forward pass
 * over blocks and undo data) as one table,
 * DIR/utxo_stats/utxo_stats_<first>_<last>.<ext> (bk_coinstats_columns),
 * written under a temporary name and renamed when complete. Errors: the
 * block index's and blocks directory's (bk_chain_build_index,
 * bk_blocksdir_open), BK_ERR_NOT_FOUND "no block in heights S..E (the tip
 * is at height T)" for a range without a block, BK_ERR_LOCKED, the file's,
 * the series' (res->where), BK_ERR_CANCELLED. res may be NULL. */
BK_API bk_status bk_utxo_stats_export_run(const bk_utxo_stats_export_opts *o, bk_utxo_stats_export_result *res,
                                          bk_error *err) BK_WARN_UNUSED;

/* ---- Core's dumptxoutset FILE rollback (`utxo snapshot`) ---- */

typedef struct bk_utxo_dump_result {
    uint64_t coins_written;
    uint8_t base_hash[32];     /* internal order */
    int32_t base_height;
    uint64_t nchaintx;         /* transactions in blocks 0 .. base */
    uint8_t txoutset_hash[32]; /* hash_serialized_3 of the set, Core's uint256 order (print reversed) */
} bk_utxo_dump_result;

/* The chainstate cs rolled back to height of c's active chain
 * (bk_utxo_rollback over dir's blocks and undo data; ro: its tmpdir,
 * memory and cancel flag, may be NULL) written to path as Core's
 * dumptxoutset writes it (bk_utxo_snapshot_writer), with its
 * hash_serialized_3: as path.tmp-PID (a path.tmp-PID of no running
 * process removed first: bk_tmp_sweep_stale), fsynced and renamed when
 * complete; after a failure nothing stays under either name. path itself
 * is replaced if it exists (Core refuses it: the caller checks). Errors:
 * the rollback's (Core's "Target block height H after current tip T"),
 * BK_ERR_IO naming the file and errno, BK_ERR_CANCELLED, BK_ERR_NOMEM.
 * res may be NULL. */
BK_API bk_status bk_utxo_dump_run(bk_chainstate *cs, const bk_chain *c, const bk_blocksdir *dir, int32_t height,
                                  const char *path, const bk_utxo_rollback_opts *ro,
                                  bk_utxo_dump_result *res, bk_error *err) BK_WARN_UNUSED;
/* dumptxoutset's result: {"coins_written", "base_hash", "base_height",
 * "path", "txoutset_hash", "nchaintx"}. */
BK_API void bk_utxo_dump_json(bk_json *j, const bk_utxo_dump_result *r, const char *path);

/* Defaults: main, all datasets, Parquet with zstd, heights 0..tip, chunks
 * of 10000, one worker. */
BK_API void bk_export_opts_init(bk_export_opts *o);

/* "blocks,transactions" -> bits; BK_ERR_ARG for an unknown name. */
BK_API bk_status bk_export_datasets_parse(const char *list, unsigned *bits_out) BK_WARN_UNUSED;

/* Run the export. Errors: BK_ERR_IO (a file that cannot be read or
 * written, named), BK_ERR_NOT_FOUND (a block without undo data, unless
 * allow_missing_undo), the block and undo parsers' errors (with the
 * height), BK_ERR_CANCELLED, BK_ERR_LOCKED (another export writes into
 * out_dir), BK_ERR_ARG for bad options. Complete chunks
 * stay complete whatever happens; the others are removed. */
BK_API bk_status bk_export_run(const bk_export_opts *o, bk_export_stats *stats, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
