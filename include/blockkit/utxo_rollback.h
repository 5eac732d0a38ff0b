/* blockkit: the UTXO set at a past height - a chainstate rolled back with
 * the undo data of the blocks above it, without the node. Part of
 * blockkit/utxo.h. */
#ifndef BLOCKKIT_UTXO_ROLLBACK_H
#define BLOCKKIT_UTXO_ROLLBACK_H

#include <signal.h>

#include <blockkit/utxo_chainstate.h>
#include <blockkit/utxo_stats.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bk_chain;
struct bk_blocksdir;

/* --------------------------------------------- the UTXO set at a past height */

/* The coins of the chainstate rolled back to a height of its chain,
 * without touching the node: the set after block H is
 *   { chainstate coins with height <= H }
 *   + { coins spent by blocks H+1 .. tip (their undo data) created at
 *       height <= H, with their outpoint from the spending input },
 * which is what Core's DisconnectBlock leaves, block by block, from the tip
 * down to H+1 (coins created above H are never in it; the BIP30 duplicate
 * coinbases keep Core's behaviour). The restored coins are collected in
 * memory up to mem_limit bytes, sorted in key order, spilled as sorted runs
 * to unlinked temporary files in tmpdir, and merged with the chainstate's
 * cursor: memory stays about mem_limit + 256 KiB per run whatever the size
 * of the set or the depth of the rollback; the cost is the blocks undone
 * plus one pass over the chainstate. Coins come in chainstate key order. */
typedef struct bk_utxo_rollback bk_utxo_rollback;

typedef struct bk_utxo_rollback_opts {
    const char *tmpdir;            /* runs; NULL = $TMPDIR or /tmp */
    size_t mem_limit;              /* 0 = 64 MiB */
    const volatile sig_atomic_t *cancel; /* polled between blocks: BK_ERR_CANCELLED */
    const bk_allocator *alloc;     /* NULL = default */
} bk_utxo_rollback_opts;

/* cs: the chainstate whose best block is on c's active chain (c built from
 * the same node's block index); dir: its blocks. height: 0 .. the best
 * block's height. Reads every block above height with its undo data.
 * Errors: BK_ERR_NOT_FOUND (best block not on c, a block without data or
 * undo, a height above the tip: Core's "Target block height H after
 * current tip T"), BK_ERR_ARG (a negative height), BK_ERR_MISMATCH (undo not fitting its block),
 * the readers', BK_ERR_IO (a run file), BK_ERR_NOMEM, BK_ERR_CANCELLED. */
BK_API bk_status bk_utxo_rollback_open(bk_utxo_rollback **out, bk_chainstate *cs, const struct bk_chain *c,
                                       const struct bk_blocksdir *dir, int32_t height,
                                       const bk_utxo_rollback_opts *o, bk_error *err) BK_WARN_UNUSED;
/* The next coin of the set at the height: 1 and *u (valid until the next
 * call), or 0 at the end or on an error (status says which: the
 * chainstate's, a run file's BK_ERR_IO, BK_ERR_INVALID for an outpoint both
 * restored and in the chainstate). */
BK_API int bk_utxo_rollback_next(bk_utxo_rollback *r, bk_utxo *u);
BK_API bk_status bk_utxo_rollback_status(const bk_utxo_rollback *r, bk_error *err);
/* The base block (internal order) and its height; the blocks undone, the
 * coins their inputs spent (coins_undone; those created at or below the
 * height are restored: coins_restored), the chainstate coins left out so
 * far (created above the height; counted while iterating), the runs
 * spilled. */
typedef struct bk_utxo_rollback_info {
    uint8_t base_hash[32];
    int32_t base_height;
    int32_t tip_height;
    uint64_t nchaintx;             /* transactions in blocks 0 .. base (Core's nChainTx) */
    uint64_t blocks_undone;
    uint64_t coins_restored;
    uint64_t coins_undone;         /* the inputs of the blocks undone */
    uint64_t coins_dropped;        /* chainstate coins created above the height */
    uint64_t runs;
} bk_utxo_rollback_info;
BK_API const bk_utxo_rollback_info *bk_utxo_rollback_info_get(const bk_utxo_rollback *r);
BK_API void bk_utxo_rollback_close(bk_utxo_rollback *r);

/* gettxoutsetinfo's statistics of the set rolled back to height: the
 * rollback (arguments and errors as bk_utxo_rollback_open) read to its
 * end into st (begun here with hash type `type`; bk_utxo_stats_free it
 * after, also after an error). info_out (may be NULL): the rollback's
 * info after the last coin (base_hash: the block the set is after). */
BK_API bk_status bk_utxo_rollback_stats(bk_chainstate *cs, const struct bk_chain *c, const struct bk_blocksdir *dir,
                                        int32_t height, const bk_utxo_rollback_opts *o, bk_utxo_hash_type type,
                                        bk_utxo_stats *st, bk_utxo_rollback_info *info_out,
                                        bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
