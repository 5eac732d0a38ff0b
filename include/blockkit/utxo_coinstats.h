/* blockkit: the coin statistics at every height, as Core's coinstatsindex
 * keeps them, from blocks and undo data in one forward pass. Part of
 * blockkit/utxo.h. */
#ifndef BLOCKKIT_UTXO_COINSTATS_H
#define BLOCKKIT_UTXO_COINSTATS_H

#include <signal.h>

#include <blockkit/json.h>
#include <blockkit/network.h>
#include <blockkit/undo.h>
#include <blockkit/utxo_coin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------- coin statistics at every height */

/* What Core's coinstatsindex keeps per block (index/coinstatsindex.cpp)
 * and gettxoutsetinfo <hash_type> <height> true prints from it
 * (rpc/blockchain.cpp). The set it describes is the UTXO set after block
 * `height`, built forward from the genesis block by blocks and undo data:
 *  - each output of a block enters the set (txouts + 1, bogosize + 32 + 4 +
 *    4 + 8 + 2 + script length, its TxOutSer into the MuHash) unless its
 *    script is provably unspendable (starts with OP_RETURN, or is over
 *    10,000 bytes: CScript::IsUnspendable), then its value counts in
 *    unspendables.scripts; each input's coin (from the undo data) leaves
 *    it (removed from the MuHash, prevout_spent + value);
 *  - the genesis block's output never enters the set: its subsidy is
 *    unspendables.genesis_block;
 *  - the coinbases of mainnet blocks 91722 and 91812 (Core's
 *    IsBIP30Unspendable; later overwritten by duplicates) are skipped:
 *    the subsidy counts in unspendables.bip30;
 *  - unclaimed rewards: after each block, (spent + subsidies) - (new
 *    outputs + coinbase outputs + unspendables so far), the part of a
 *    subsidy or fee no output claimed.
 * The cumulative flows (subsidy, prevout spent, new outputs, coinbase) can
 * exceed int64 over mainnet's history (Core #30469 widened them): they are
 * kept modulo 2^64 here, which leaves every difference Core prints exact.
 * The amounts of the set itself (total_amount, the unspendables) are
 * bounded by the supply. */
typedef struct bk_coinstats {
    int32_t height;                /* -1 before the genesis block */
    uint8_t bestblock[32];         /* internal byte order */
    uint64_t txouts;
    uint64_t bogosize;
    int has_muhash;                /* muhash[] is the finalized set hash */
    uint8_t muhash[32];            /* Core's uint256 order (print reversed) */
    int64_t total_amount;
    int64_t total_unspendable_amount;
    uint64_t total_subsidy;        /* cumulative flows: modulo 2^64 (above) */
    uint64_t total_prevout_spent_amount;
    uint64_t total_new_outputs_ex_coinbase_amount;
    uint64_t total_coinbase_amount;
    int64_t total_unspendables_genesis_block;
    int64_t total_unspendables_bip30;
    int64_t total_unspendables_scripts;
    int64_t total_unspendables_unclaimed_rewards;
} bk_coinstats;

/* One block's contribution (amounts in satoshis, all modulo 2^64). */
typedef struct bk_coinstats_delta {
    int32_t height;
    uint8_t hash[32];
    uint64_t subsidy;
    uint64_t coins_added, coins_spent;
    uint64_t bogosize_added, bogosize_spent;
    uint64_t prevout_spent, new_outputs_ex_coinbase, coinbase, scripts, bip30, genesis;
    int has_muhash;
    bk_muhash mu;                  /* added coins in num, spent coins in den */
} bk_coinstats_delta;

/* The state before the genesis block (height -1, everything zero). */
BK_API void bk_coinstats_init(bk_coinstats *st);

/* The contribution of block b at height (its hash, internal order) with
 * its undo data (NULL for the genesis block, height 0, which has none).
 * txids: the block's txids (32 x n_tx, bk_block_txids). with_muhash: also
 * the MuHash of the added and spent coins. Errors: BK_ERR_MISMATCH when
 * the undo does not fit the block (bk_block_undo_check), BK_ERR_ARG for a
 * missing undo above height 0. Allocates nothing. */
BK_API bk_status bk_coinstats_block_delta(bk_network net, int32_t height, const uint8_t hash[32],
                                          const bk_block *b, const uint8_t *txids, const bk_block_undo *undo,
                                          int with_muhash, bk_coinstats_delta *d, bk_error *err) BK_WARN_UNUSED;

/* Apply d to the running state: the stats after block d->height. mu is
 * the running MuHash (bk_muhash_init before the genesis); finalize: also
 * fill st->muhash (one modular inverse, about 40 us). BK_ERR_INVALID when
 * d->height is not st->height + 1. */
BK_API bk_status bk_coinstats_apply(bk_coinstats *st, bk_muhash *mu, const bk_coinstats_delta *d, int finalize,
                                    bk_error *err) BK_WARN_UNUSED;

/* Core's gettxoutsetinfo <hash_type> <height> true result: height,
 * bestblock, txouts, bogosize, muhash (hash type muhash only), total_amount,
 * total_unspendable_amount, block_info {prevout_spent, coinbase,
 * new_outputs_ex_coinbase, unspendable, unspendables {genesis_block, bip30,
 * scripts, unclaimed_rewards}}: the differences between cur and prev (the
 * stats of the block before; NULL at height 0). */
BK_API void bk_coinstats_json(bk_json *j, const bk_coinstats *cur, const bk_coinstats *prev, int with_muhash);

/* block_info's numbers (satoshis) as gettxoutsetinfo prints them. */
typedef struct bk_coinstats_block_info {
    int64_t prevout_spent, coinbase, new_outputs_ex_coinbase, unspendable;
    int64_t genesis_block, bip30, scripts, unclaimed_rewards;
} bk_coinstats_block_info;
BK_API void bk_coinstats_block_info_get(const bk_coinstats *cur, const bk_coinstats *prev,
                                        bk_coinstats_block_info *out);

struct bk_chain;
struct bk_blocksdir;
struct bk_engine_where;

/* Called for each height of [start, end], in height order, with the
 * stats after that block and after the block before (prev: NULL at height
 * 0). Anything but BK_OK stops the run with that status. */
typedef bk_status (*bk_coinstats_emit_fn)(void *ctx, const bk_coinstats *cur, const bk_coinstats *prev,
                                          bk_error *err);

typedef struct bk_coinstats_series_opts {
    int32_t start, end;            /* heights on the active chain, start <= end <= tip */
    int with_muhash;
    int workers;                   /* threads reading blocks and hashing their coins (< 1: 1) */
    const volatile sig_atomic_t *cancel;
    const bk_allocator *alloc;     /* NULL = default */
} bk_coinstats_series_opts;

/* The series in one forward pass over the active chain of c (blocks 0 ..
 * end with their undo data from dir), as coinstatsindex builds itself: the
 * workers read and decode blocks and compute each block's delta (its
 * coins' MuHash product); the calling thread applies the deltas in height
 * order and calls emit. Blocks go to the workers in tasks of up to 16
 * consecutive heights; a worker hashes a block's coins (SHA-256), expands
 * them into MuHash elements 8 at a time and multiplies them into the
 * block's numerator and denominator; the calling thread multiplies those
 * into the running state and finalizes 64 heights per modular inverse.
 * Memory: the engine's window (4 x workers + 2 tasks of deltas, each
 * about 900 bytes a block), per worker one block, its txids and its coins'
 * keys (32 bytes a coin); nothing grows with the chain.
 * Errors: BK_ERR_ARG (range), BK_ERR_NOT_FOUND (a block without data or
 * undo: pruned), the engine's (*where, may be NULL, names the block and
 * file position), emit's, BK_ERR_CANCELLED. */
BK_API bk_status bk_coinstats_series(const struct bk_chain *c, const struct bk_blocksdir *dir,
                                     const bk_coinstats_series_opts *o, bk_coinstats_emit_fn emit, void *ctx,
                                     struct bk_engine_where *where, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
