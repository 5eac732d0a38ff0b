/* blockkit: umbrella header. */
#ifndef BLOCKKIT_H
#define BLOCKKIT_H

#define BK_VERSION_MAJOR 0
#define BK_VERSION_MINOR 1
#define BK_VERSION_PATCH 0
#define BK_VERSION_STRING "0.1.0"

#include <blockkit/status.h>
#include <blockkit/alloc.h>
#include <blockkit/stream.h>
#include <blockkit/hex.h>
#include <blockkit/sha256.h>
#include <blockkit/network.h>
#include <blockkit/bitcoin.h>
#include <blockkit/undo.h>
#include <blockkit/blockfile.h>
#include <blockkit/chain.h>
#include <blockkit/blockindex.h>
#include <blockkit/leveldb.h>
#include <blockkit/txindex.h>
#include <blockkit/addrindex.h>
#include <blockkit/lookup.h>
#include <blockkit/merkle.h>
#include <blockkit/script.h>
#include <blockkit/json.h>
#include <blockkit/blockstats.h>
#include <blockkit/engine.h>
#include <blockkit/ssz.h>
#include <blockkit/electrum.h>

#endif
