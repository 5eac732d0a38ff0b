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
#include <blockkit/table.h>

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

/* Defaults: main, all datasets, Parquet with zstd, heights 0..tip, chunks
 * of 10000, one worker. */
BK_API void bk_export_opts_init(bk_export_opts *o);

/* "blocks,transactions" -> bits; BK_ERR_ARG for an unknown name. */
BK_API bk_status bk_export_datasets_parse(const char *list, unsigned *bits_out);

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
