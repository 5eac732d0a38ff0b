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
 * The scripthash is Electrum's: SHA-256 of the scriptPubKey, kept in the
 * digest's byte order (the hex Electrum prints is that digest reversed:
 * bk_hex_encode_rev / bk_hex_decode_rev convert).
 *
 * Keys (docs/index.md says why). The rows a script or txid is found by are
 * compact keys without values, electrs' layout: a kind byte, the first 8
 * bytes of the scripthash (or txid), the height (BE32) and the position in
 * the block (BE24), so a script's rows are one key range in blockchain
 * order. What a row means is read from its transaction in the node's blk
 * files (the header row locates the block, the offsets row the tx): an
 * output pays the script only if its script hashes to the whole
 * scripthash, an input spends it only if it spends such an output, a txid
 * row names the tx only if the tx hashes to it. A prefix collision (two
 * scripts or txids sharing 8 bytes) costs a read, never a wrong answer.
 *   "V"                        format version (3), network
 *   "T"                        tip: height (i32 LE), hash
 *   "B"                        the blocks directory it was built from
 *   "C"                        the number of bulk commits (u32 LE)
 *   "W"                        present while a commit is in progress
 *   'h' height(BE32)           hash, header (80), blk file, offset, size, n_tx
 *   'x' height(BE32)           the offset of each tx in the block (u32 LE)
 *   'o' sh[0..8) height pos    a tx paying the script
 *   'p' sh[0..8) height pos    a tx spending a coin of the script
 *   'i' txid[0..8) height pos  a tx
 *   'O' 'P' 'I' commit(BE32) last row (6-byte prefix, height, pos)
 *                              a bulk commit's rows of that kind, up to 128
 *                              to a value (a sync of 144 blocks or more
 *                              writes its rows so; a shorter one one key a
 *                              row; queries read both)
 *
 * Handles. A handle opened BK_ADDRINDEX_WRITE owns the database (LevelDB's
 * LOCK: a second writer gets BK_ERR_LOCKED) and may sync it. A handle opened
 * BK_ADDRINDEX_READ never takes the lock and never writes: it reads a
 * private snapshot of the directory (src/db, as blockkit reads Core's
 * databases), so it works while a writer runs; its tip stays the one it
 * opened at until bk_addrindex_refresh.
 *
 * Consistency. The tip moves only once every row of the blocks up to it is
 * written, and every block is undone in one batch that also moves the tip;
 * readers ignore rows above the tip. A kill at any point leaves the index
 * at a whole tip; the rows a cut commit left above it are written again,
 * identically, by the next sync, or deleted first when their blocks left
 * the best chain ("W" names the last of them).
 *
 * Threads. Queries on a READ handle may run concurrently from many threads,
 * and bk_addrindex_refresh beside them (a query finishes on the snapshot it
 * started with). The library never prints or exits. */
#ifndef BLOCKKIT_ADDRINDEX_H
#define BLOCKKIT_ADDRINDEX_H

#include <blockkit/alloc.h>
#include <blockkit/blockfile.h>
#include <blockkit/chain.h>
#include <blockkit/network.h>
#include <blockkit/status.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_ADDRINDEX_VERSION 3

typedef struct bk_addrindex bk_addrindex;

typedef enum bk_addrindex_mode {
    BK_ADDRINDEX_READ = 0,      /* a private snapshot; no lock, no writes */
    BK_ADDRINDEX_WRITE = 1      /* the one writer: sync */
} bk_addrindex_mode;

/* Progress of a sync, on the thread that called it: once before the first
 * block (height: the index's tip), then after each block's rows are taken
 * and after each written batch (height: the last block taken). */
typedef void (*bk_addrindex_progress_fn)(void *ctx, int64_t height, int64_t tip);

#define BK_ADDRINDEX_CACHE_DEFAULT ((size_t)64 << 20)

typedef struct bk_addrindex_opts {
    bk_network net;             /* an index of another network is refused; READ: BK_NET_COUNT_ takes the index's */
    const char *node_datadir;   /* non-NULL: a dir inside it is refused */
    const char *tmpdir;         /* READ: where the snapshot is made; WRITE: the sorted runs (NULL: $TMPDIR or /tmp) */
    size_t mem_bytes;           /* WRITE: rows held in memory before a sorted run is spilled (0: 256 MiB) */
    const bk_blocksdir *blocks; /* READ: the node's blocks, outliving the handle (NULL: the directory the
                                   index was built from, opened by the handle) */
    int workers;                /* WRITE: block workers (0 or 1: one) */
    size_t cache_bytes;         /* READ: the views (history, coins) of the scripthashes asked for last, kept
                                   until the tip changes, up to this many bytes (bk_addrindex_opts_init:
                                   BK_ADDRINDEX_CACHE_DEFAULT; 0: none) */
    const volatile sig_atomic_t *cancel;   /* non-zero: stop after the current batch (BK_ERR_CANCELLED) */
    bk_addrindex_progress_fn progress;
    void *progress_ctx;
    const bk_allocator *alloc;  /* NULL: default */
} bk_addrindex_opts;

BK_API void bk_addrindex_opts_init(bk_addrindex_opts *o);

/* Open the index in dir (BK_ADDRINDEX_WRITE creates it when absent). A dir
 * inside opts->node_datadir, a file, another network's or another format
 * version's index, a LevelDB that is not a blockkit index: refused with a
 * message naming dir (BK_ERR_ARG, BK_ERR_INVALID, BK_ERR_MISMATCH); READ of
 * a dir with no index: BK_ERR_NOT_FOUND; a second writer: BK_ERR_LOCKED. */
BK_API bk_status bk_addrindex_open(bk_addrindex **ix_out, const char *dir, bk_addrindex_mode mode,
                                   const bk_addrindex_opts *opts, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_addrindex_close(bk_addrindex *ix);

/* The index's network (a READ handle opened with opts->net BK_NET_COUNT_
 * takes the one the index records). */
BK_API bk_network bk_addrindex_network(const bk_addrindex *ix);

/* Bring a WRITE index to chain's best tip: undo (from the node's undo
 * data, one batch each) the blocks of the index above the fork point with
 * chain, then apply the new ones in one forward pass (the block engine,
 * opts->workers): rows are sorted in memory (opts->mem_bytes), spilled as
 * sorted runs to opts->tmpdir, and merged into the index in key order;
 * the tip moves after each merge (every 63 runs, and at the end or a
 * cancel). A fresh index is a build;
 * a killed one continues. *applied_out / *undone_out: block counts (may be
 * NULL). A block without undo data (pruned) above the genesis:
 * BK_ERR_NOT_FOUND naming it. */
BK_API bk_status bk_addrindex_sync(bk_addrindex *ix, const bk_chain *chain, const bk_blocksdir *dir,
                                   int64_t *applied_out, int64_t *undone_out, bk_error *err) BK_WARN_UNUSED;

/* READ handles: take a new snapshot; *changed_out = 1 when the tip moved. */
BK_API bk_status bk_addrindex_refresh(bk_addrindex *ix, int *changed_out, bk_error *err) BK_WARN_UNUSED;

/* The index's tip (height -1 and a zero hash for an empty index). */
BK_API bk_status bk_addrindex_tip(bk_addrindex *ix, int64_t *height_out, uint8_t hash_out[32],
                                  bk_error *err) BK_WARN_UNUSED;

/* READ handles: the lowest height the index holds a header of, into
 * *height_out: 0 for a chain from its genesis block, the first block's
 * height for a blocks directory without it (-1 for an empty index). Every
 * height from it to the tip has its header. */
BK_API bk_status bk_addrindex_first(bk_addrindex *ix, int64_t *height_out, bk_error *err) BK_WARN_UNUSED;

/* The 80-byte header at height (BK_ERR_NOT_FOUND above the tip). */
BK_API bk_status bk_addrindex_header(bk_addrindex *ix, int64_t height, uint8_t header_out[80],
                                     bk_error *err) BK_WARN_UNUSED;

/* ---- scripthash queries (confirmed chain only; READ handles) ------------ */

typedef struct bk_addr_tx {
    uint8_t txid[32];           /* internal byte order */
    int64_t height;
    uint32_t pos;               /* position in its block */
} bk_addr_tx;

typedef struct bk_addr_coin {
    uint8_t txid[32];
    uint32_t vout;
    int64_t height;
    uint32_t pos;               /* the funding tx's position in its block */
    uint64_t value;             /* satoshis */
} bk_addr_coin;

/* Electrum's scripthash of a scriptPubKey (the SHA-256 digest). */
BK_API void bk_addrindex_scripthash(const uint8_t *script, size_t len, uint8_t sh_out[32]);

/* Every confirmed transaction paying or spending sh, once, in blockchain
 * order (height, then position). More than limit (limit > 0) of them:
 * BK_ERR_LENGTH, the message naming the limit. *txs_out (NULL when none)
 * is freed with bk_addrindex_free. */
BK_API bk_status bk_addrindex_history(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_tx **txs_out,
                                      size_t *n_out, bk_error *err) BK_WARN_UNUSED;

/* The unspent coins of sh in Core's UTXO set (no OP_RETURN, no script over
 * 10,000 bytes, not the genesis output), ordered by (height, pos, vout). */
BK_API bk_status bk_addrindex_utxos(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_coin **coins_out,
                                    size_t *n_out, bk_error *err) BK_WARN_UNUSED;

/* Confirmed balance in satoshis (the sum of bk_addrindex_utxos). */
BK_API bk_status bk_addrindex_balance(bk_addrindex *ix, const uint8_t sh[32], size_t limit, uint64_t *confirmed_out,
                                      bk_error *err) BK_WARN_UNUSED;

/* Electrum's status of a history: SHA-256 of the concatenated
 * "txid_hex:height:" strings; *has_out = 0 for no history. */
/* 1 when sh's view (its history and coins) is in the READ handle's cache
 * now, so a query of it reads no disk (until the cache lets it go), and it
 * holds at most limit transactions and at most limit coins (limit 0: any
 * size); 0 when not, or with no cache. */
BK_API int bk_addrindex_cached(bk_addrindex *ix, const uint8_t sh[32], size_t limit);

BK_API void bk_addrindex_status_of(const bk_addr_tx *txs, size_t n, uint8_t status_out[32], int *has_out);
BK_API bk_status bk_addrindex_status(bk_addrindex *ix, const uint8_t sh[32], size_t limit, uint8_t status_out[32],
                                     int *has_out, bk_error *err) BK_WARN_UNUSED;

/* ---- transactions ------------------------------------------------------- */

/* Where a confirmed transaction is (BK_ERR_NOT_FOUND: not on the index's chain). */
BK_API bk_status bk_addrindex_tx_locate(bk_addrindex *ix, const uint8_t txid[32], int64_t *height_out,
                                        uint32_t *pos_out, bk_error *err) BK_WARN_UNUSED;

/* The raw transaction, read from the node's blk files in dir; *raw_out is
 * freed with bk_addrindex_free. *height_out may be NULL. */
BK_API bk_status bk_addrindex_tx_raw(bk_addrindex *ix, const bk_blocksdir *dir, const uint8_t txid[32],
                                     uint8_t **raw_out, size_t *len_out, int64_t *height_out,
                                     bk_error *err) BK_WARN_UNUSED;

/* The merkle branch of the tx at (height, pos): *n_out sibling hashes
 * (internal byte order, lowest level first) into branch_out (room for 32);
 * txid_out receives the tx's id (blockchain.transaction.id_from_pos). */
BK_API bk_status bk_addrindex_merkle(bk_addrindex *ix, int64_t height, uint32_t pos, uint8_t txid_out[32],
                                     uint8_t branch_out[32][32], size_t *n_out, bk_error *err) BK_WARN_UNUSED;

/* ---- contents ----------------------------------------------------------- */

/* Every row of a READ handle's snapshot once, in key order, as what it
 * says rather than how it is stored, for comparing two indexes' contents
 * (tests/tools/ldb_dump.c): a row a script or txid is found by as the
 * 14-byte key kind ('o', 'p' or 'i'), the first 6 bytes of the hash,
 * height (BE32), position (BE24), no value, whether stored one key a row
 * or in a bulk commit's groups; every other row as stored, except the
 * count of bulk commits ("C"); the groups of a commit a kill cut as
 * stored. All of them are held in memory at once (a tool for test-sized
 * indexes). fn returning non-zero stops it (BK_ERR_CANCELLED); a damaged
 * group: BK_ERR_INVALID naming its key. */
typedef int (*bk_addrindex_row_fn)(void *ctx, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen);
BK_API bk_status bk_addrindex_rows(bk_addrindex *ix, bk_addrindex_row_fn fn, void *ctx,
                                   bk_error *err) BK_WARN_UNUSED;

BK_API void bk_addrindex_free(bk_addrindex *ix, void *p);

#ifdef __cplusplus
}
#endif

#endif
