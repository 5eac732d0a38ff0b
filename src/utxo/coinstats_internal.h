/* Internal: the coins of one block as coinstatsindex counts them (not
 * public API; the series' workers and the UtxoStats/floor bench). */
#ifndef BLOCKKIT_UTXO_COINSTATS_INTERNAL_H
#define BLOCKKIT_UTXO_COINSTATS_INTERNAL_H

#include <blockkit/utxo_coinstats.h>

/* One coin the block adds (spent 0) or spends (spent 1), as its TxOutSer
 * (the bytes MuHash hashes; valid during the call). Anything but BK_OK
 * stops the walk with that status. */
typedef bk_status (*bk_coinstats_coin_fn)(void *ctx, const uint8_t *ser, size_t len, int spent, bk_error *err);

/* bk_coinstats_block_delta's walk: fills d's numbers (d->mu is set to the
 * empty set and left so) and hands each coin that enters or leaves the set
 * to coin (NULL: none; txids are then not read). */
bk_status bk_coinstats_block_walk(bk_network net, int32_t height, const uint8_t hash[32], const bk_block *b,
                                  const uint8_t *txids, const bk_block_undo *undo, bk_coinstats_coin_fn coin,
                                  void *coin_ctx, bk_coinstats_delta *d, bk_error *err) BK_WARN_UNUSED;

#endif
