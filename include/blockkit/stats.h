/* blockkit: Bitcoin Core's getblockstats for the blocks of a chain, in
 * height order, on worker threads (`blockkit stats --datadir`;
 * docs/stats.md): each block read with its undo data by the block engine
 * (blockkit/engine.h), its statistics computed from the undo record's
 * bytes in one pass (blockkit/blockstats.h) and printed as Core's JSON,
 * one line per block, handed to the caller in height order. Nothing here
 * prints or exits. */
#ifndef BLOCKKIT_STATS_H
#define BLOCKKIT_STATS_H

#include <signal.h>

#include <blockkit/blockstats.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>
#include <blockkit/json.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a result is printed: the statistics selected (0: all), the Core
 * release whose fields and numbers (BK_CORE_MIN .. BK_STATS_CORE_NEWEST),
 * the JSON indent (0: compact, one line). */
typedef struct bk_stats_format {
    uint32_t select;
    int core_version;
    unsigned indent;
} bk_stats_format;

/* One block's result, then a newline, appended to w: from the parsed undo,
 * or (undo_raw not NULL) from the CBlockUndo bytes in one pass
 * (bk_block_stats_compute_undo). hash: the block's (internal order; NULL:
 * computed). Errors: the computation's (Core's texts), BK_ERR_NOMEM. */
BK_API bk_status bk_stats_line(bk_block_stats_scratch *sc, const bk_block *b, const bk_block_undo *undo,
                               const uint8_t *undo_raw, size_t undo_len, const bk_chain_context *ctx,
                               const uint8_t *hash, const bk_stats_format *f, bk_writer *w,
                               bk_error *err) BK_WARN_UNUSED;

/* The lines in order: data is one block's line (or, past the first, a
 * task's lines); anything but BK_OK stops the run with that status. */
typedef bk_status (*bk_stats_consume_fn)(void *ctx, const uint8_t *data, size_t len, bk_error *err);

typedef struct bk_stats_run_opts {
    const bk_chain *chain;
    const bk_blocksdir *dir;   /* chain's blk/rev files */
    /* one block by its hash (internal order), on the best chain or not
     * (Core's hash_or_height); NULL: the heights below */
    const uint8_t *hash;
    int64_t start;             /* -1: the lowest height with data (a pruned node's prune height) */
    int64_t end, below_tip;    /* -1 when not given: bk_engine_range_end (an end past the tip: the tip) */
    int single;                /* start == end asked for one block: past the tip is Core's error */
    bk_stats_format format;
    int workers;               /* < 1: 1 */
    const volatile sig_atomic_t *cancel;
    bk_stats_consume_fn consume;
    void *consume_ctx;
} bk_stats_run_opts;

typedef struct bk_stats_run_result {
    size_t blocks;             /* the blocks of the run */
    size_t emitted;            /* lines consumed */
    int64_t next_height;       /* the height of the first block not consumed (-1: none) */
    int empty;                 /* BK_ERR_NOT_FOUND: the range holds no block */
    int no_height;             /* BK_ERR_NOT_FOUND: the hash's block is not connected to a genesis block */
    int consume_failed;        /* the failure is consume's */
    bk_engine_where where;     /* a block's failure (bk_stats_error_format) */
} bk_stats_run_result;

/* Run it. BK_OK (nothing to do is BK_OK too), BK_ERR_CANCELLED (the lines
 * consumed are complete; next_height says where to resume), or the first
 * failure: BK_ERR_NOT_FOUND for the hash not in the chain ("Block not
 * found"), a block with no height (no_height), one height past the tip
 * with single ("Target block height H after current tip T"), a range
 * without a block (empty), a start below the chain's first height; a
 * block without data ("Block not available (pruned data)" or "(not fully
 * downloaded)") or undo data ("Undo data not available"), Core's texts
 * with the block's hash and height; the engine's read and decode errors
 * (where); consume's (consume_failed); BK_ERR_NOMEM. res may not be NULL. */
BK_API bk_status bk_stats_run(const bk_stats_run_opts *o, bk_stats_run_result *res, bk_error *err) BK_WARN_UNUSED;

/* The message of a failed run into buf: Core's own for a block's
 * statistics, "block H at height N: Can't read undo data from disk (...,
 * revNNNNN.dat offset O)" for an undo checksum, else the engine's
 * (bk_engine_error_format). Returns buf. */
BK_API char *bk_stats_error_format(const bk_engine_where *w, const bk_error *err, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
