/* blockkit: the ordered scan engine behind `blockkit scan` -- a range of a
 * node's chain rendered as getblock JSON, one value and a newline per
 * block, handed to the caller's sink in height order, rendered by N worker
 * threads (the ordered block engine, blockkit/engine.h; docs/engine.md).
 *
 * The caller gives the blocks directory and, optionally, the chain it
 * built (Core's block index or the header scan: blockkit/chain.h); the
 * engine lists the blocks (--start..--end of the best chain, pruned ranges
 * skipped, then with orphans the disconnected blocks by their BIP34
 * height), stops before the first block that needs undo data and has none
 * at verbosity >= 2 (unless allow_missing_undo), renders and hands each
 * line to the sink on the calling thread. Nothing here prints or exits:
 * notes go to the note callback, progress to the progress callback, and a
 * failure is a status, an error and stats->failure saying which one. */
#ifndef BLOCKKIT_SCAN_H
#define BLOCKKIT_SCAN_H

#include <blockkit/alloc.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* When the caller shows progress (the CLI's --progress). The library does
 * not read it: it calls on_progress whenever that is set. */
typedef enum bk_scan_progress {
    BK_SCAN_PROGRESS_NEVER = 0,
    BK_SCAN_PROGRESS_ALWAYS,
    BK_SCAN_PROGRESS_AUTO       /* when the caller's stderr is a terminal */
} bk_scan_progress;

/* One rendered block: data[0..len) is the JSON value and its '\n'. */
typedef struct bk_scan_line {
    const uint8_t *data;
    size_t len;
    int64_t height;
    const uint8_t *hash;        /* internal byte order */
    uint32_t n_tx;
    int orphan;
} bk_scan_line;

/* Called on the calling thread, in job order. A non-OK status stops the
 * scan (stats->failure BK_SCAN_FAIL_SINK; the lines before it were taken). */
typedef bk_status (*bk_scan_sink_fn)(void *ctx, const bk_scan_line *line, bk_error *err);

/* Progress, on the calling thread: after every line (the caller
 * throttles) and once more with final = 1 when the render ends. */
typedef struct bk_scan_report {
    int64_t height;             /* of the last line taken (-1: none yet) */
    uint64_t blocks_done, blocks_total;
    uint64_t bytes_done, bytes_total;   /* block bytes of the lines taken / of all jobs */
    double seconds;             /* since the render started */
    int final;
} bk_scan_report;
typedef void (*bk_scan_progress_fn)(void *ctx, const bk_scan_report *r);

/* A note for the user (a skipped pruned range, orphans without a BIP34
 * height, a block rendered without undo data, -j lowered): one line of
 * text without a newline. Not called when quiet is set. */
typedef void (*bk_scan_note_fn)(void *ctx, const char *msg);

typedef struct bk_scan_opts {
    const char *blocksdir;      /* the blocks directory itself */
    /* The chain, built by the caller (bk_chain_build_index, or the header
     * scan); only read. NULL: the header scan of blocksdir, cancelled by
     * *stop. */
    const bk_chain *chain;
    bk_network net;
    int64_t start;              /* first height (default 0) */
    /* The output already ends with this block (internal byte order): the
     * scan continues at its height + 1, after checking that it is on the
     * best chain and that an explicit start (start_given) agrees. */
    const uint8_t *resume_after;
    int start_given;            /* start was given (with resume_after it must agree; in a pruned
                                   range it is an error) */
    int64_t end;                /* last height, -1 = the tip */
    int64_t end_below_tip;      /* >= 0: the last height is the tip's minus this; overrides end */
    int verbosity;              /* 0..3 */
    int core_version;           /* BK_CORE_MIN..BK_CORE_NEWEST */
    int indent;                 /* 0 = NDJSON; 2 = bitcoin-cli's pretty form */
    int workers;                /* >= 1 */
    size_t max_memory;          /* bytes; bounds window x per-slot estimate */
    int verify_merkle;
    int allow_missing_undo;
    int orphans;                /* also blocks whose ancestors are missing (by BIP34 height) */
    int fees;                   /* sum fees into the stats */
    int quiet;                  /* no notes */
    bk_scan_progress progress;  /* for the caller (see above) */
    /* Set asynchronously to the number of the signal that asks to stop:
     * the chain build is cancelled, the render finishes the current line;
     * the run returns BK_ERR_CANCELLED. */
    volatile sig_atomic_t *stop;
    const bk_allocator *alloc;  /* worker buffers (NULL = default) */
    bk_scan_sink_fn sink;       /* required */
    void *sink_ctx;
    bk_scan_progress_fn on_progress; /* NULL: none */
    void *progress_ctx;
    bk_scan_note_fn note;       /* NULL: none */
    void *note_ctx;
} bk_scan_opts;

/* Why a scan stopped (stats->failure). */
typedef enum bk_scan_failure {
    BK_SCAN_FAIL_NONE = 0,
    BK_SCAN_FAIL_ARG,           /* bad options (BK_ERR_ARG) */
    BK_SCAN_FAIL_DIR,           /* the blocks directory cannot be opened (err names it) */
    BK_SCAN_FAIL_CHAIN,         /* the header scan failed, or found no block connected to a genesis */
    BK_SCAN_FAIL_RESUME_BLOCK,  /* resume_after is not on the best chain (resume_found: 1 when it is
                                   in the files at all) */
    BK_SCAN_FAIL_RESUME_START,  /* an explicit start does not follow resume_after (resume_height) */
    BK_SCAN_FAIL_PRUNED_START,  /* an explicit start is in a pruned range (the chain's prune_height) */
    BK_SCAN_FAIL_MEMORY,        /* max_memory is below one worker's need (need_bytes, max_block) */
    BK_SCAN_FAIL_ORPHANS,       /* reading the orphans' coinbases failed (err) */
    BK_SCAN_FAIL_RENDER,        /* a block failed: err is the engine's error, where says where
                                   (bk_engine_error_format renders both) */
    BK_SCAN_FAIL_SINK,          /* the sink refused a line (err is its error) */
    BK_SCAN_FAIL_MISSING_UNDO,  /* stopped before a block without undo data (missing_height, missing_hash) */
    BK_SCAN_FAIL_CANCELLED,     /* *stop was set (chain_cancelled: during the chain build) */
    BK_SCAN_FAIL_NOMEM
} bk_scan_failure;

typedef struct bk_scan_stats {
    uint64_t blocks;            /* lines taken by the sink */
    uint64_t txs;
    uint64_t bytes_in;          /* block bytes rendered */
    uint64_t bytes_out;         /* JSON bytes handed over */
    int64_t fees;               /* sum over blocks rendered with undo (fees set) */
    uint64_t blocks_with_undo;
    uint64_t missing_undo;      /* rendered without undo (allow_missing_undo) */
    int64_t first_height, last_height;
    int64_t resume_height;      /* the first height not handed over (-1: finished) */
    double seconds;             /* render (after the chain was built) */
    double chain_seconds;       /* building the chain (0 when the caller gave it) */
    int workers;
    size_t window;
    size_t peak_slot_bytes;
    /* the failure, when the run did not return BK_OK */
    bk_scan_failure failure;
    bk_engine_where where;      /* BK_SCAN_FAIL_RENDER */
    int chain_cancelled;        /* BK_SCAN_FAIL_CANCELLED during the chain build */
    int resume_found;           /* BK_SCAN_FAIL_RESUME_BLOCK */
    int64_t missing_height;     /* BK_SCAN_FAIL_MISSING_UNDO */
    uint8_t missing_hash[32];
    size_t need_bytes, max_block; /* BK_SCAN_FAIL_MEMORY */
} bk_scan_stats;

/* Defaults: main, heights 0..tip, verbosity 1, newest Core, 1 worker,
 * 1024 MB, no callbacks. */
BK_API void bk_scan_opts_init(bk_scan_opts *o);

/* Run the scan. BK_OK when every job was handed over; else the status of
 * the failure (BK_ERR_CANCELLED when stopped), err saying what, and
 * stats->failure which one (stats may be NULL; filled either way; the
 * messages name heights, never an option of a program). Every line before
 * the failure went to the sink whole. */
BK_API bk_status bk_scan_run(const bk_scan_opts *o, bk_scan_stats *stats, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
