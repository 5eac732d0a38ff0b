/* blockkit: the BIP158 block filter index computed from a node's files
 * (what Core's -blockfilterindex stores and `getblockfilter` serves),
 * without the index: the filters of a list of blocks and, along a path
 * from the genesis, their filter headers. The filter rules are in
 * blockkit/blockfilter.h; this is the engine that runs them over a chain
 * (blockkit/engine.h: N workers read and decode each block with its undo
 * data, the results arrive on the calling thread in list order).
 *
 * Filter headers chain: header(B) = SHA256d(SHA256d(filter(B)) ||
 * header(parent of B)), the genesis block's parent header being zero. So
 * the header of a block at height H needs the filters of all H + 1 blocks
 * of its branch: there is no shortcut, as there is none for Core, which
 * builds its index by connecting every block. A pruned node can give the
 * filters of the blocks it keeps, not their headers.
 *
 * Which blocks have a filter (Core's getblockfilter): a block Core
 * connected (BLOCK_VALID_SCRIPTS and not failed), which has its undo
 * data. For the active chain that is every block. For a block off it, a
 * node that ran with the index while it was connected answers its filter
 * and the header along its own branch; bk_filter_block_connected says
 * whether a block qualifies (Core's "block was connected").
 *
 * Nothing here prints or exits; files are read with pread, no locks. */
#ifndef BLOCKKIT_FILTERS_H
#define BLOCKKIT_FILTERS_H

#include <blockkit/blockfilter.h>
#include <blockkit/engine.h>
#include <blockkit/json.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One block's result on the calling thread, in list order: the
 * serialized filter (valid during the call) and, when headers are
 * computed, its header (internal byte order; NULL otherwise). */
typedef bk_status (*bk_filter_emit_fn)(void *ctx, size_t item, const bk_chain_entry *e, int64_t height,
                                       const uint8_t *filter, size_t len, const uint8_t *header, bk_error *err);

typedef struct bk_filter_run_opts {
    const bk_chain *chain;
    const bk_blocksdir *dir;           /* where chain's files are */
    const bk_engine_item *items;       /* the blocks, in the order wanted */
    size_t n_items;
    int headers;                       /* 1: items are a path (each item's block the child of the one
                                          before) and the header chain runs along it from prev_header */
    uint8_t prev_header[32];           /* the header of items[0]'s parent (zeros for the genesis) */
    size_t emit_from;                  /* items before it are computed (their headers needed) but not
                                          emitted */
    bk_ordered_opts run;               /* workers, window, cancel, tick, alloc */
    bk_filter_emit_fn emit;            /* required */
    void *ctx;
} bk_filter_run_opts;

BK_API void bk_filter_run_opts_init(bk_filter_run_opts *o);

/* Run it. BK_OK; BK_ERR_CANCELLED; BK_ERR_ARG (no emit, or headers asked
 * for a list that is not a path: the message names the item); else the
 * first failure in list order, res->where naming the block and file
 * position: a block without data (BK_ERR_NOT_FOUND, "Block not available
 * (pruned data)" or "(not fully downloaded)"), a block above the genesis
 * without undo data (BK_ERR_NOT_FOUND, "Undo data not available"), the
 * readers' and decoders' errors, the emitter's. res may be NULL. Memory:
 * per worker the largest block, its undo data and its filter builder;
 * window x the largest filter in flight. */
BK_API bk_status bk_filter_run(const bk_filter_run_opts *o, bk_engine_result *res, bk_error *err) BK_WARN_UNUSED;

/* Fill items[0 .. to->height - from_height] with the blocks of to's
 * branch at heights from_height..to->height (to last), following parent
 * links: the path a header chain needs. to must be connected (height >=
 * 0) and from_height <= to->height. BK_ERR_ARG otherwise; BK_ERR_INVALID
 * when a parent link is missing (a chain that was not built whole). */
BK_API bk_status bk_filter_path(const bk_chain *c, const bk_chain_entry *to, int64_t from_height,
                                bk_engine_item *items, bk_error *err) BK_WARN_UNUSED;

/* Core's "block was connected" (rpc/blockchain.cpp getblockfilter:
 * IsValid(BLOCK_VALID_SCRIPTS)): validity level SCRIPTS and no failure
 * flag, read from the block index status (a chain built from Core's
 * block index). 1 or 0. */
BK_API int bk_filter_block_connected(const bk_chain_entry *e);

/* The first block of to's branch that is on the active chain (the fork
 * point; to itself when it is active), or NULL for an orphan. */
BK_API const bk_chain_entry *bk_chain_fork_point(const bk_chain *c, const bk_chain_entry *to);

/* ---- getblockfilter for a list of blocks ---- */

/* Core's getblockfilter refusals (rpc/protocol.h codes). */
#define BK_FILTER_NOT_CONNECTED_MSG "Filter not found. Block was not connected to active chain."

/* One block's answer: rpc_code 0 and the filter (owned, len bytes) and
 * header, or Core's RPC error (rpc_code, msg). */
typedef struct bk_filter_answer {
    const bk_chain_entry *block;
    int rpc_code;
    char msg[96];
    uint8_t *filter;
    size_t len;
    uint8_t header[32];
} bk_filter_answer;

/* Answer getblockfilter <hash> basic for blocks[0..n) into answers[0..n):
 * one pass along the active chain from the genesis to the highest height
 * the answers need (each active block's own, and each off-chain block's
 * fork point), then one along each off-chain block's branch. A block
 * that is not connected (bk_filter_block_connected false: never
 * connected, or invalid) is answered with Core's -5 "Filter not found.
 * Block was not connected to active chain."; an off-chain connected
 * block with its filter and the header along its own branch (what a node
 * that had the index on when it connected the block answers). The runs
 * use run's workers and cancel flag. A run's failure (a block without
 * data or undo below a height asked for) fails the call: res names the
 * block. Free the answers with bk_filter_answers_free. */
BK_API bk_status bk_filter_answer_blocks(const bk_chain *c, const bk_blocksdir *dir,
                                         const bk_chain_entry *const *blocks, size_t n, const bk_ordered_opts *run,
                                         bk_filter_answer *answers, bk_engine_result *res,
                                         bk_error *err) BK_WARN_UNUSED;
BK_API void bk_filter_answers_free(bk_filter_answer *answers, size_t n);

/* Core's getblockfilter result: {"filter":"<hex>","header":"<hex, display
 * order>"} (j's indent as bitcoin-cli's). */
BK_API void bk_json_filter(bk_json *j, const uint8_t *filter, size_t len, const uint8_t header[32]);

#ifdef __cplusplus
}
#endif
#endif
