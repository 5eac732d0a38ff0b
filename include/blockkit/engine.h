/* blockkit: the ordered parallel block engine shared by `scan`, `stats` and
 * `export` (and any other consumer of a range of a node's blocks).
 *
 * Two layers:
 *
 * 1. bk_ordered_run: jobs 0..n-1 run by N worker threads, each job's
 *    output (bytes in a bk_writer) handed to the caller's consumer on the
 *    calling thread strictly in job order. A window of W slots bounds what
 *    is in flight: a worker waits before job j until job j - W has been
 *    consumed (back-pressure), so memory is W x the largest job output.
 *
 * 2. bk_engine_run: the same over blocks of a bk_chain. The caller lists
 *    the blocks (bk_engine_item: chain entry and height, in the order
 *    wanted) and optionally groups consecutive items into tasks (a task is
 *    one ordered job: one block each by default; `export` uses one height
 *    chunk per task). Each worker owns a bk_block_reader (pread of the
 *    block and its undo record by position, xor.dat de-obfuscation, size
 *    and undo checksum checks, block and undo decoding) and calls the
 *    caller's per-block callback with the decoded block; task outputs go
 *    to the consumer in task order.
 *
 * Errors stop the run at the first failing job in order: every job before
 * it has been consumed, none after it. The failure names the task, the
 * block (height, hash) and the file position (bk_engine_where;
 * bk_engine_error_format renders it). Cancellation: *cancel (a
 * sig_atomic_t set by a signal handler) is read by the calling thread
 * only (signals are blocked in the workers), at least every tick_ms; the
 * workers then finish the block they are on and stop. Nothing here prints
 * or exits; files are opened read-only with no locks. */
#ifndef BLOCKKIT_ENGINE_H
#define BLOCKKIT_ENGINE_H

#include <blockkit/bitcoin.h>
#include <blockkit/blockfile.h>
#include <blockkit/blockreader.h>
#include <blockkit/chain.h>
#include <blockkit/stream.h>
#include <blockkit/undo.h>

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. ordered jobs ---------------------------------------------------- */

/* Run job on worker (0..workers-1, for per-worker state) into out (empty on
 * entry). A non-OK status fails the job (err says why). */
typedef bk_status (*bk_ordered_work_fn)(void *ctx, size_t job, int worker, bk_writer *out, bk_error *err);
/* A finished job's output, on the calling thread, in job order. */
typedef bk_status (*bk_ordered_consume_fn)(void *ctx, size_t job, const uint8_t *data, size_t len, bk_error *err);
/* Called on the calling thread while it waits, about every tick_ms. */
typedef void (*bk_ordered_tick_fn)(void *ctx);

typedef struct bk_ordered_opts {
    int workers;                        /* >= 1 (default 1) */
    size_t window;                      /* jobs in flight, raised to >= workers (default 2 x workers + 1) */
    size_t slot_reserve;                /* reserve this much in a slot's writer before its first job (0: none) */
    size_t shrink_above;                /* free a slot's buffer after its consume when larger (0: never) */
    const volatile sig_atomic_t *cancel; /* non-zero: stop (read by the calling thread only) */
    bk_ordered_tick_fn tick;            /* NULL: none */
    unsigned tick_ms;                   /* default 100 */
    const bk_allocator *alloc;          /* the slot writers (NULL: default) */
} bk_ordered_opts;

typedef enum bk_ordered_failure {
    BK_ORDERED_OK = 0,
    BK_ORDERED_WORK,                    /* job `consumed` failed in its worker */
    BK_ORDERED_CONSUME,                 /* the consumer failed on job `consumed` */
    BK_ORDERED_CANCELLED,               /* *cancel was set */
    BK_ORDERED_SETUP                    /* no memory or no thread */
} bk_ordered_failure;

typedef struct bk_ordered_result {
    size_t consumed;                    /* jobs 0..consumed-1 were consumed */
    bk_ordered_failure failure;
    int workers;                        /* threads started */
    size_t window;
    size_t peak_slot_bytes;             /* the largest slot writer seen */
} bk_ordered_result;

/* Defaults above (1 worker). */
BK_API void bk_ordered_opts_init(bk_ordered_opts *o);

/* BK_OK when every job was consumed; BK_ERR_CANCELLED when stopped by
 * *cancel; else the failing job's (or consumer's) status and error. res
 * (may be NULL) says how far it got. */
BK_API bk_status bk_ordered_run(size_t njobs, const bk_ordered_opts *o, bk_ordered_work_fn work,
                                bk_ordered_consume_fn consume, void *ctx, bk_ordered_result *res,
                                bk_error *err) BK_WARN_UNUSED;

/* ---- 2. blocks of a chain ----------------------------------------------- */

/* One block to process: chain->entries[entry], at height (an orphan's
 * BIP34 height). */
typedef struct bk_engine_item {
    uint32_t entry;
    int64_t height;
    int orphan;
} bk_engine_item;

/* A task: items [first, first + count). */
typedef struct bk_engine_task {
    size_t first, count;
} bk_engine_task;

/* Per block, on the worker. out is the task's output writer. */
typedef bk_status (*bk_engine_block_fn)(void *ctx, int worker, const bk_engine_block *b, bk_writer *out,
                                        bk_error *err);
/* Optional, on the worker: before a task's first block, and after its
 * last (also when it failed or was cancelled: status says so; end's
 * return replaces an OK status). */
typedef bk_status (*bk_engine_task_begin_fn)(void *ctx, int worker, size_t task, bk_error *err);
typedef bk_status (*bk_engine_task_end_fn)(void *ctx, int worker, size_t task, bk_status status, bk_writer *out,
                                           bk_error *err);

typedef struct bk_engine_opts {
    const bk_chain *chain;
    const bk_blocksdir *dir;            /* where chain's files are */
    const bk_engine_item *items;
    size_t n_items;
    const bk_engine_task *tasks;        /* NULL: one task per item */
    size_t n_tasks;
    unsigned read_flags;                /* BK_READ_* */
    bk_ordered_opts run;                /* workers, window, cancel, tick, alloc */
    bk_engine_block_fn block;           /* required */
    bk_engine_task_begin_fn begin;      /* may be NULL */
    bk_engine_task_end_fn end;          /* may be NULL */
    bk_ordered_consume_fn consume;      /* may be NULL (job = task index) */
    void *ctx;
} bk_engine_opts;

typedef struct bk_engine_result {
    bk_ordered_result run;              /* run.consumed: tasks consumed */
    bk_engine_where where;              /* of the failure (stage NONE when none) */
} bk_engine_result;

BK_API void bk_engine_opts_init(bk_engine_opts *o);

/* Run it: BK_OK, BK_ERR_CANCELLED, or the first failure in task order
 * (res->where names it). BK_ERR_ARG for bad options. */
BK_API bk_status bk_engine_run(const bk_engine_opts *o, bk_engine_result *res, bk_error *err) BK_WARN_UNUSED;

/* "block at height H (HASH): MSG [at byte B] (blkNNNNN.dat offset O)" as
 * fits the stage (the undo stages say "undo of block"); the consumer's and
 * setup's messages as they are. Returns buf. */
BK_API char *bk_engine_error_format(const bk_engine_where *w, const bk_error *err, char *buf, size_t cap);

/* The best chain's blocks of heights [start, end] as items (entry, height,
 * orphan 0), in height order, appended to *items (capacity *cap, grown
 * with alloc): the one range builder of scan, export and stats. A height
 * with no block (below an implied genesis) has no item. A block with no
 * data on this node (pruned, or its blk file missing) is an item when
 * with_no_data (stats: Core answers such a height with an error), else it
 * has none and is reported, a run of them at a time, to skipped (may be
 * NULL). start > end: nothing. BK_ERR_NOMEM. */
BK_API bk_status bk_engine_chain_items(const bk_chain *chain, int64_t start, int64_t end, int with_no_data,
                                       bk_engine_item **items, size_t *n, size_t *cap,
                                       void (*skipped)(void *ctx, int64_t first, int64_t last), void *ctx,
                                       const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
/* The last height of a range: end (>= 0) clipped to top, else top less
 * below_tip (>= 0), else top. */
static inline int64_t bk_engine_range_end(int64_t top, int64_t end, int64_t below_tip)
{
    if (end >= 0) return end < top ? end : top;
    return below_tip >= 0 ? top - below_tip : top;
}

/* Append to *items (capacity *cap, grown with alloc) the orphans of chain
 * (entries not connected to a genesis) whose coinbase gives a BIP34 height
 * in [start, end] (end < 0: no limit), sorted by height, then entry. A
 * block that does not decode or has no BIP34 height is skipped and counted
 * in *no_height (may be NULL). Read errors are returned (err names the
 * file). */
BK_API bk_status bk_engine_add_orphans(const bk_chain *chain, const bk_blocksdir *dir, int64_t start, int64_t end,
                                       bk_engine_item **items, size_t *n, size_t *cap, uint64_t *no_height,
                                       const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
