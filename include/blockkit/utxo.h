/* blockkit: the UTXO set without a node - Bitcoin Core's chainstate
 * (LevelDB) and its dumptxoutset snapshot files, and gettxoutsetinfo's
 * statistics and hashes (hash_serialized_3, MuHash3072, none).
 *
 * One header per subject, all included here:
 *   blockkit/utxo_coin.h        bk_utxo, the Coin value, script compression,
 *                               TxOutSer, MuHash3072
 *   blockkit/utxo_snapshot.h    dumptxoutset files: reader and writer
 *   blockkit/utxo_chainstate.h  a node's chainstate and block index heights
 *   blockkit/utxo_stats.h       gettxoutsetinfo over a set (bk_utxo_stats)
 *   blockkit/utxo_coinstats.h   the statistics at every height (coinstatsindex)
 *   blockkit/utxo_rollback.h    the set at a past height
 *   blockkit/utxo_source.h      one coin source over all of them
 *
 * Both readers stream: memory stays bounded whatever the size of the set
 * (a buffer of about 1 MiB for a snapshot; LevelDB's block cache for a
 * chainstate). Coins come in the chainstate's key order
 * (blockkit/utxo_chainstate.h), which dumptxoutset writes too. */
#ifndef BLOCKKIT_UTXO_H
#define BLOCKKIT_UTXO_H

#include <signal.h>
#include <stdio.h>

#include <blockkit/chain.h>
#include <blockkit/json.h>
#include <blockkit/network.h>
#include <blockkit/undo.h>

#include <blockkit/utxo_coin.h>
#include <blockkit/utxo_snapshot.h>
#include <blockkit/utxo_chainstate.h>
#include <blockkit/utxo_stats.h>
#include <blockkit/utxo_coinstats.h>
#include <blockkit/utxo_rollback.h>
#include <blockkit/utxo_source.h>

#endif
