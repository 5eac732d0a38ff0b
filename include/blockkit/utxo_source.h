/* blockkit: one coin source over the UTXO readers - a chainstate, a
 * dumptxoutset file, or the chainstate rolled back to a height. Part of
 * blockkit/utxo.h. */
#ifndef BLOCKKIT_UTXO_SOURCE_H
#define BLOCKKIT_UTXO_SOURCE_H

#include <stdio.h>

#include <blockkit/chain.h>
#include <blockkit/utxo_chainstate.h>
#include <blockkit/utxo_rollback.h>
#include <blockkit/utxo_snapshot.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------- one coin source
 *
 * The set as `utxo dump`, `utxo stats` and `export --datasets utxos` read
 * it: a node's chainstate (a private LevelDB snapshot: safe while bitcoind
 * runs), a dumptxoutset file, or the chainstate rolled back to a height
 * (bk_utxo_rollback with the block index and the undo data above it).
 * Coins come in key order. */
typedef struct bk_utxo_source_opts {
    const char *datadir;       /* a node's datadir: <net>/chainstate, <net>/blocks/index */
    const char *snapshot;      /* or a dumptxoutset file; "-" reads standard input */
    const char *blocksdir;     /* at_height below the best block: the blk/rev directory */
    const char *tmpdir;        /* the LevelDB snapshots and the rollback's runs (NULL: TMPDIR) */
    bk_network net;            /* datadir: the network's folder; snapshot: with net_given, the file's network */
    int net_given;
    int32_t height;            /* snapshot: its base block's height (-1: from datadir's block index) */
    int32_t at_height;         /* datadir: the set after this height (-1: the chainstate's own) */
    int height_optional;       /* the base block's height may stay unknown (-1) */
} bk_utxo_source_opts;

BK_API void bk_utxo_source_opts_init(bk_utxo_source_opts *o);

typedef struct bk_utxo_source {
    bk_utxo_snapshot *snap;
    FILE *snap_file;
    bk_chainstate *cs;
    bk_chainstate_iter *it;
    bk_utxo_rollback *rb;      /* at_height below the best block: the coins come from it */
    bk_chain chain;            /* rb's block index chain */
    bk_blocksdir dir;          /* and blocks */
    int have_chain, have_dir;
    bk_network net;
    uint8_t best[32];          /* the block the set is after (internal order) */
    int32_t height;            /* its height, -1 when not known (height_optional) */
    uint64_t disk_size;        /* the chainstate's bytes (gettxoutsetinfo disk_size); a snapshot's once read */
    const char *snap_name;     /* the snapshot's path ("standard input" for -), named in its errors */
} bk_utxo_source;

/* Open the source o names. Errors, each saying what and where:
 * BK_ERR_NOT_FOUND (no chainstate, no snapshot file, no block index to
 * tell a height, a height above the tip, undo data missing for a
 * rollback), BK_ERR_MISMATCH (a snapshot of another network than
 * net_given asks, a base block not in the block index, a best block off
 * the active chain), BK_ERR_ARG (neither source; a snapshot without a
 * height when one is needed), BK_ERR_IO, and the readers' own errors.
 * On failure s holds nothing. */
BK_API bk_status bk_utxo_source_open(bk_utxo_source *s, const bk_utxo_source_opts *o, bk_error *err) BK_WARN_UNUSED;
/* 1 with the next coin (valid until the next call), 0 at the end or on an
 * error: bk_utxo_source_status says which. */
BK_API int bk_utxo_source_next(bk_utxo_source *s, bk_utxo *u);
BK_API bk_status bk_utxo_source_status(bk_utxo_source *s, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_utxo_source_close(bk_utxo_source *s);

/* ---------------------------------------- a node's files for past heights
 *
 * What the set at a past height and the statistics at every height read
 * from a datadir: the active chain of its block index (<net>/blocks/index
 * through a private snapshot: bk_chain_build_index), its blocks directory
 * (o->blocksdir: bk_blocksdir_open) and, with BK_UTXO_NODE_CHAINSTATE,
 * its chainstate (<net>/chainstate: bk_chainstate_open). o: datadir, net,
 * blocksdir, tmpdir (the other fields are not read). */
typedef struct bk_utxo_node {
    bk_chain chain;
    bk_blocksdir dir;
    bk_chainstate *cs;         /* BK_UTXO_NODE_CHAINSTATE */
    int have_chain, have_dir;
    int no_index;              /* BK_UTXO_NODE_INDEX_OPTIONAL: the datadir has no block index */
} bk_utxo_node;

#define BK_UTXO_NODE_CHAINSTATE 1u      /* also open the chainstate */
#define BK_UTXO_NODE_INDEX_OPTIONAL 2u  /* no block index is BK_ERR_NOT_FOUND with no_index set */

/* Errors: BK_ERR_ARG (a path too long), the block index builder's, the
 * blocks directory's, the chainstate's (each naming its directory). On
 * failure n holds nothing (no_index kept). */
BK_API bk_status bk_utxo_node_open(bk_utxo_node *n, const bk_utxo_source_opts *o, unsigned flags,
                                   bk_error *err) BK_WARN_UNUSED;
BK_API void bk_utxo_node_close(bk_utxo_node *n);

#ifdef __cplusplus
}
#endif
#endif
