/* blockkit: umbrella header. */
#ifndef BLOCKKIT_H
#define BLOCKKIT_H

/* BK_VERSION_MAJOR, _MINOR, _PATCH, _STRING: blockkit/status.h. */

#include <blockkit/status.h>
#include <blockkit/alloc.h>
#include <blockkit/stream.h>
#include <blockkit/hex.h>
#include <blockkit/sha256.h>
#include <blockkit/network.h>
#include <blockkit/bitcoin.h>
#include <blockkit/undo.h>
#include <blockkit/blockfile.h>
#include <blockkit/blockreader.h>
#include <blockkit/chain.h>
#include <blockkit/blockindex.h>
#include <blockkit/leveldb.h>
#include <blockkit/txindex.h>
#include <blockkit/addrindex.h>
#include <blockkit/lookup.h>
#include <blockkit/merkle.h>
#include <blockkit/script.h>
#include <blockkit/json.h>
#include <blockkit/blockfilter.h>
#include <blockkit/blockstats.h>
#include <blockkit/stats.h>
#include <blockkit/engine.h>
#include <blockkit/filters.h>
#include <blockkit/scan.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_coin.h>
#include <blockkit/utxo_snapshot.h>
#include <blockkit/utxo_chainstate.h>
#include <blockkit/utxo_stats.h>
#include <blockkit/utxo_coinstats.h>
#include <blockkit/utxo_rollback.h>
#include <blockkit/utxo_source.h>
#include <blockkit/parquet.h>
#include <blockkit/table.h>
#include <blockkit/utxo_table.h>
#include <blockkit/export.h>
#include <blockkit/silentpay.h>
#include <blockkit/ssz.h>
#include <blockkit/electrum.h>

#endif
