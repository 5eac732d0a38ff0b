/* blockkit: the address (scripthash) index, blockkit's own LevelDB.
 *
 * Core declines to build an address index; this one is built from the
 * node's blk/rev files (one forward pass on the block engine) into a
 * directory the caller names, never inside the node's datadir. It answers
 * what Electrum clients ask: the confirmed history of a scripthash (every
 * transaction that pays or spends its script, in blockchain order), its
 * status hash, balance and coins, a transaction's position and raw bytes
 * without Core's txindex, merkle branches, headers by height.
 *
 * The scripthash is Electrum's: SHA-256 of the scriptPubKey, in the byte
 * order of the digest (the hex Electrum prints is that digest reversed;
 * bk_addrindex_scripthash_hex converts).
 *
 * Handles. A handle opened BK_ADDRINDEX_WRITE owns the database (LevelDB's
 * LOCK: one writer per directory, a second is BK_ERR_LOCKED) and may build
 * and update it. A handle opened BK_ADDRINDEX_READ never takes the lock and
 * never writes: it reads a private snapshot of the directory (as src/db
 * reads Core's databases), so it works while a writer runs; its tip stays
 * the one it opened at until bk_addrindex_refresh.
 *
 * Consistency. Every block is applied or undone in one atomic LevelDB
 * batch that also moves the index's tip; every query on a handle reads one
 * LevelDB snapshot, so it sees a whole tip, old or new, never half a block.
 *
 * Threads. Queries on one handle may run concurrently from many threads.
 * bk_addrindex_update and bk_addrindex_refresh may run while queries do:
 * a query started before them finishes on the tip it started with.
 *
 * The library never prints or exits; every failure is a status and a
 * bk_error naming what and where. */
#ifndef BLOCKKIT_ADDRINDEX_H
#define BLOCKKIT_ADDRINDEX_H

#include <blockkit/alloc.h>
#include <blockkit/network.h>
#include <blockkit/status.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bk_addrindex bk_addrindex;

typedef enum bk_addrindex_mode {
    BK_ADDRINDEX_READ = 0,      /* a private snapshot; no lock, no writes */
    BK_ADDRINDEX_WRITE = 1      /* the one writer: build, update */
} bk_addrindex_mode;

/* Progress of a build or update (called on the calling thread). */
typedef void (*bk_addrindex_progress_fn)(void *ctx, int32_t height, int32_t tip, uint64_t bytes_done,
                                         uint64_t bytes_total);

typedef struct bk_addrindex_opts {
    const char *datadir;        /* the node's datadir (blocks, block index), read-only */
    const char *blocksdir;      /* NULL: <datadir>/<net>/blocks */
    bk_network net;             /* the index records it; opening another network's index is refused */
    const char *tmpdir;         /* sorted runs and snapshots (NULL: $TMPDIR or /tmp) */
    size_t mem_bytes;           /* build memory bound (0: 1 GiB) */
    int workers;                /* -j (0 or 1: one) */
    const volatile sig_atomic_t *cancel;   /* non-zero: stop at the next block (BK_ERR_CANCELLED) */
    bk_addrindex_progress_fn progress;
    void *progress_ctx;
    const bk_allocator *alloc;  /* NULL: default */
} bk_addrindex_opts;

/* Open (BK_ADDRINDEX_WRITE creates dir when absent) the index in dir. A dir
 * inside the node's datadir, a file, another network's or another format
 * version's index, a LevelDB that is not a blockkit index: refused with a
 * message naming dir. */
BK_API bk_status bk_addrindex_open(bk_addrindex **ix_out, const char *dir, bk_addrindex_mode mode,
                                   const bk_addrindex_opts *opts, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_addrindex_close(bk_addrindex *ix);

/* Build from the index's tip (none: the genesis) to the node's best tip:
 * resumable, one forward pass, sorted runs spilled to tmpdir. WRITE only. */
BK_API bk_status bk_addrindex_build(bk_addrindex *ix, bk_error *err) BK_WARN_UNUSED;

/* Bring the index to the node's current best tip: undo the blocks a reorg
 * removed (from their undo data), apply the new ones, one atomic batch per
 * block. *applied_out / *undone_out: block counts (may be NULL). WRITE only. */
BK_API bk_status bk_addrindex_update(bk_addrindex *ix, int32_t *applied_out, int32_t *undone_out,
                                     bk_error *err) BK_WARN_UNUSED;

/* READ handles: take a new snapshot; *changed_out = 1 when the tip moved. */
BK_API bk_status bk_addrindex_refresh(bk_addrindex *ix, int *changed_out, bk_error *err) BK_WARN_UNUSED;

/* The index's tip (height -1 and a zero hash for an empty index). */
BK_API bk_status bk_addrindex_tip(bk_addrindex *ix, int32_t *height_out, uint8_t hash_out[32],
                                  bk_error *err) BK_WARN_UNUSED;

/* The 80-byte header at height (BK_ERR_NOT_FOUND above the tip). */
BK_API bk_status bk_addrindex_header(bk_addrindex *ix, int32_t height, uint8_t header_out[80],
                                     bk_error *err) BK_WARN_UNUSED;

/* ---- scripthash queries (confirmed chain only) -------------------------- */

typedef struct bk_addr_tx {
    uint8_t txid[32];           /* internal byte order */
    int32_t height;
    uint32_t pos;               /* position in its block */
} bk_addr_tx;

typedef struct bk_addr_coin {
    uint8_t txid[32];
    uint32_t vout;
    int32_t height;
    uint32_t pos;               /* the funding tx's position in its block */
    uint64_t value;             /* satoshis */
} bk_addr_coin;

/* Electrum's scripthash of a scriptPubKey (the SHA-256 digest). */
BK_API void bk_addrindex_scripthash(const uint8_t *script, size_t len, uint8_t sh_out[32]);

/* Every confirmed transaction paying or spending sh, once, in blockchain
 * order (height, then position). More than limit entries (limit > 0):
 * BK_ERR_LENGTH, the message naming the limit. *txs_out is allocated with
 * the handle's allocator; free with bk_addrindex_free. */
BK_API bk_status bk_addrindex_history(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_tx **txs_out,
                                      size_t *n_out, bk_error *err) BK_WARN_UNUSED;

/* The unspent coins of sh in Core's UTXO set (no OP_RETURN, no script over
 * 10,000 bytes), ordered by (height, pos, vout). */
BK_API bk_status bk_addrindex_utxos(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_coin **coins_out,
                                    size_t *n_out, bk_error *err) BK_WARN_UNUSED;

/* Confirmed balance in satoshis (the sum of bk_addrindex_utxos). */
BK_API bk_status bk_addrindex_balance(bk_addrindex *ix, const uint8_t sh[32], uint64_t *confirmed_out,
                                      bk_error *err) BK_WARN_UNUSED;

/* Electrum's status: SHA-256 of the concatenated "txid_hex:height:" of the
 * history; *has_out = 0 (and status_out untouched) for no history. */
BK_API bk_status bk_addrindex_status(bk_addrindex *ix, const uint8_t sh[32], size_t limit, uint8_t status_out[32],
                                     int *has_out, bk_error *err) BK_WARN_UNUSED;

/* ---- transactions ------------------------------------------------------- */

/* Where a confirmed transaction is (BK_ERR_NOT_FOUND: not on the index's chain). */
BK_API bk_status bk_addrindex_tx_locate(bk_addrindex *ix, const uint8_t txid[32], int32_t *height_out,
                                        uint32_t *pos_out, bk_error *err) BK_WARN_UNUSED;

/* The raw transaction, read from the node's blk file; the caller frees
 * *raw_out with bk_addrindex_free. *height_out may be NULL. */
BK_API bk_status bk_addrindex_tx_raw(bk_addrindex *ix, const uint8_t txid[32], uint8_t **raw_out, size_t *len_out,
                                     int32_t *height_out, bk_error *err) BK_WARN_UNUSED;

/* The raw block at height with its undo data (undo NULL/0 for the genesis);
 * both freed with bk_addrindex_free. */
BK_API bk_status bk_addrindex_block_raw(bk_addrindex *ix, int32_t height, uint8_t **block_out, size_t *block_len_out,
                                        uint8_t **undo_out, size_t *undo_len_out, bk_error *err) BK_WARN_UNUSED;

/* The merkle branch of the tx at (height, pos): *n_out sibling hashes
 * (internal byte order) into branch_out (room for 32 levels); *txid_out
 * receives the tx's id (blockchain.transaction.id_from_pos). */
BK_API bk_status bk_addrindex_merkle(bk_addrindex *ix, int32_t height, uint32_t pos, uint8_t txid_out[32],
                                     uint8_t branch_out[32][32], size_t *n_out, bk_error *err) BK_WARN_UNUSED;

BK_API void bk_addrindex_free(bk_addrindex *ix, void *p);

#ifdef __cplusplus
}
#endif

#endif
