/* blockkit: the UTXO set without a node - Bitcoin Core's chainstate
 * (LevelDB) and its dumptxoutset snapshot files, and gettxoutsetinfo's
 * statistics and hashes (hash_serialized_3, MuHash3072, none).
 *
 * Coins are bk_coin values (blockkit/undo.h) decoded from Core's own Coin
 * serialization (coins.h: VARINT(height*2+coinbase), compressed amount,
 * compressed script; bk_coin_read_txout) with their outpoint. Both readers
 * stream: memory stays bounded whatever the size of the set (a buffer of
 * about 1 MiB for a snapshot; LevelDB's block cache for a chainstate).
 *
 * Key order: the chainstate's keys are 'C' + txid + VARINT(vout), so coins
 * come txid by txid (txid bytes compared as stored, internal order), and
 * within a txid in the byte order of VARINT(vout), which is numeric order
 * except across VARINT lengths (vout 16511 comes after 16512). dumptxoutset
 * writes the same order. Core's statistics (kernel/coinstats.cpp) collect
 * each txid's coins in a std::map, i.e. numeric vout order: bk_utxo_stats
 * does the same. */
#ifndef BLOCKKIT_UTXO_H
#define BLOCKKIT_UTXO_H

#include <signal.h>
#include <stdio.h>

#include <blockkit/chain.h>
#include <blockkit/json.h>
#include <blockkit/network.h>
#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One unspent output: its outpoint and coin. coin.raw_script (when not
 * NULL) borrows the reader's buffer until its next call. */
typedef struct bk_utxo {
    uint8_t txid[32]; /* internal byte order */
    uint32_t vout;
    bk_coin coin;
} bk_utxo;

/* Decode a whole Coin value (a chainstate value after de-obfuscation):
 * bk_coin_read_txout plus BK_ERR_TRAILING for bytes after it. Raw scripts
 * point into data. */
BK_API bk_status bk_utxo_coin_decode(const uint8_t *data, size_t len, bk_coin *coin_out,
                                     bk_error *err) BK_WARN_UNUSED;

/* Core's MoneyRange: 0 <= value <= 21,000,000 BTC. */
static inline int bk_money_range(int64_t v) { return v >= 0 && v <= 2100000000000000LL; }

/* ---------------------------------------------------------------- MuHash */

/* MuHash3072 (Core: crypto/muhash.h): numerator and denominator, each a
 * 3072-bit number below 2^3072 (not necessarily reduced below p). Plain
 * data: may be copied; needs no cleanup. */
typedef struct bk_muhash {
    uint64_t num[48];
    uint64_t den[48];
} bk_muhash;

/* The empty set (numerator = denominator = 1). */
BK_API void bk_muhash_init(bk_muhash *m);
/* Multiply in / divide out one element (any bytes). */
BK_API void bk_muhash_insert(bk_muhash *m, const void *data, size_t len);
BK_API void bk_muhash_remove(bk_muhash *m, const void *data, size_t len);
/* m = m * other (the union of two disjoint sets; order never matters). */
BK_API void bk_muhash_combine(bk_muhash *m, const bk_muhash *other);
/* Core's MuHash3072::Finalize: SHA-256 of (num / den mod p) as 384
 * little-endian bytes. out is in Core's uint256 byte order: print it
 * reversed (GetHex), as gettxoutsetinfo does. m is unchanged. */
BK_API void bk_muhash_finalize(const bk_muhash *m, uint8_t out[32]);
/* The 3072-bit number of one element, as 384 little-endian bytes:
 * ChaCha20(key = SHA256(data), nonce 0, counter 0) key stream. */
BK_API void bk_muhash_element(const void *data, size_t len, uint8_t out[384]);

/* -------------------------------------------------------------- snapshot */

#define BK_UTXO_SNAPSHOT_VERSION 2
/* Magic, version, network magic, base hash, coin count. */
#define BK_UTXO_SNAPSHOT_HEADER_SIZE 51

/* Core's node::SnapshotMetadata (node/utxo_snapshot.h). */
typedef struct bk_utxo_snapshot_meta {
    uint16_t version;
    uint8_t magic[4];          /* the network's message start */
    bk_network net;            /* the network of that magic */
    uint8_t base_hash[32];     /* internal byte order */
    uint64_t coin_count;
} bk_utxo_snapshot_meta;

/* Pull bytes: fill up to cap bytes into buf, set *got (0 = end of input);
 * return 0, or non-zero on a read error. */
typedef int (*bk_read_fn)(void *ctx, uint8_t *buf, size_t cap, size_t *got);

typedef struct bk_utxo_snapshot bk_utxo_snapshot;

/* Open a snapshot stream and read its metadata. Errors (err->offset is the
 * file offset): BK_ERR_TRUNCATED (shorter than the 51-byte metadata),
 * BK_ERR_INVALID (magic is not "utxo\xff": not a UTXO snapshot),
 * BK_ERR_INVALID also for a version other than 2 (the version Core writes),
 * BK_ERR_MAGIC (a network magic of no known network), BK_ERR_IO (read
 * failure), BK_ERR_NOMEM. The reader holds one buffer of about 1 MiB
 * through alloc (NULL = default). */
BK_API bk_status bk_utxo_snapshot_open(bk_utxo_snapshot **out, bk_read_fn read, void *ctx,
                                       const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
/* The same over a file descriptor (read(2); EINTR retried) or a FILE. The
 * descriptor or FILE stays the caller's to close. */
BK_API bk_status bk_utxo_snapshot_open_fd(bk_utxo_snapshot **out, int fd, const bk_allocator *alloc,
                                          bk_error *err) BK_WARN_UNUSED;
BK_API bk_status bk_utxo_snapshot_open_file(bk_utxo_snapshot **out, FILE *f, const bk_allocator *alloc,
                                            bk_error *err) BK_WARN_UNUSED;

BK_API const bk_utxo_snapshot_meta *bk_utxo_snapshot_meta_get(const bk_utxo_snapshot *s);

/* Refuse coins above this height, as Core's loader does ("Bad snapshot
 * data"): call before the first coin when the base block's height is
 * known. */
BK_API void bk_utxo_snapshot_set_base_height(bk_utxo_snapshot *s, uint32_t height);

/* The next coin, in file order: 1 and *u filled, or 0 at the end or on an
 * error (bk_utxo_snapshot_status says which). The end is checked as Core's
 * loader checks it: exactly coin_count coins, then no byte more. Errors
 * carry the file offset: BK_ERR_TRUNCATED (the file ends inside a coin or
 * before coin_count coins), BK_ERR_COUNT (a txid's coin count over the
 * coins left: "Mismatch in coins count"), BK_ERR_TRAILING (bytes after the
 * last coin), BK_ERR_NONCANONICAL / BK_ERR_SIZE (a CompactSize),
 * BK_ERR_OVERFLOW (a VARINT), BK_ERR_SCRIPT (a compressed key off the
 * curve), BK_ERR_VALUE (an amount outside MoneyRange, a height over the
 * base height), BK_ERR_IO. */
BK_API int bk_utxo_snapshot_next(bk_utxo_snapshot *s, bk_utxo *u);
BK_API bk_status bk_utxo_snapshot_status(const bk_utxo_snapshot *s, bk_error *err);
/* Coins returned so far, and bytes consumed (the offset after the last
 * coin returned). */
BK_API uint64_t bk_utxo_snapshot_coins_read(const bk_utxo_snapshot *s);
BK_API uint64_t bk_utxo_snapshot_offset(const bk_utxo_snapshot *s);
BK_API void bk_utxo_snapshot_close(bk_utxo_snapshot *s);

/* ------------------------------------------------------------ chainstate */

typedef struct bk_chainstate bk_chainstate;
typedef struct bk_chainstate_iter bk_chainstate_iter;

/* Open Core's chainstate directory (e.g. D/regtest/chainstate) through a
 * private LevelDB snapshot (blockkit/leveldb.h: the node's directory is
 * never opened by LevelDB, written or locked; works while bitcoind runs).
 * Reads the obfuscation key (key "\x0e\x00obfuscate_key": a CompactSize
 * length then the key bytes; absent = no obfuscation) and the best block
 * ('B'). Errors: those of bk_ldb_open; BK_ERR_INVALID when the head-blocks
 * marker ('H') is present ("the node was interrupted during a flush: start
 * bitcoind again and let it finish") or no best block is recorded, or the
 * obfuscation key or best block value is malformed (message names the
 * key); BK_ERR_UNSUPPORTED for the per-transaction 'c' records of Core
 * before 0.15 (Core upgrades them at its next start). blockkit's own
 * memory (handles, value buffers) comes from alloc (NULL = default);
 * LevelDB's comes from the C library. */
BK_API bk_status bk_chainstate_open(const char *dir, const char *tmpdir, const bk_allocator *alloc,
                                    bk_chainstate **out, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_chainstate_close(bk_chainstate *cs);

/* The best block (internal byte order). */
BK_API void bk_chainstate_best_block(const bk_chainstate *cs, uint8_t out[32]);
/* The obfuscation key: its length (0, or 8 as Core writes it) and bytes. */
BK_API size_t bk_chainstate_obfuscate_key(const bk_chainstate *cs, const uint8_t **key_out);
/* LevelDB's approximate on-disk size of the coin range ['C', 'D'): Core's
 * CCoinsViewDB::EstimateSize, gettxoutsetinfo's disk_size. */
BK_API uint64_t bk_chainstate_disk_size(bk_chainstate *cs);

/* Look up one coin. BK_OK and *u (raw_script borrows cs's buffer until its
 * next call); BK_ERR_NOT_FOUND when the outpoint is not in the set; coin
 * errors (with the key in hex and the offset in the value). */
BK_API bk_status bk_chainstate_get(bk_chainstate *cs, const uint8_t txid[32], uint32_t vout, bk_utxo *u,
                                   bk_error *err) BK_WARN_UNUSED;

/* Core's AccessByTxid over the chainstate on disk: the unspent output of
 * txid with the lowest key (any unspent output of a transaction carries its
 * block's height, which is what gettxoutproof asks it for). BK_OK and *u
 * (raw_script borrows cs's buffer until its next call); BK_ERR_NOT_FOUND
 * when no output of txid is unspent; coin errors as bk_chainstate_get. */
BK_API bk_status bk_chainstate_find_txid(bk_chainstate *cs, const uint8_t txid[32], bk_utxo *u,
                                         bk_error *err) BK_WARN_UNUSED;

/* Iterate every coin in key order. next: 1 and *u (valid until the next
 * call), or 0 at the end or on an error (status says which): a key of the
 * 'C' range that is not 'C' + 32 bytes + a canonical VARINT vout below
 * 2^32, or a value that does not decode (err->msg has the key in hex,
 * err->offset the byte in the key or the value). */
BK_API bk_status bk_chainstate_iter_new(bk_chainstate *cs, bk_chainstate_iter **out,
                                        bk_error *err) BK_WARN_UNUSED;
BK_API int bk_chainstate_iter_next(bk_chainstate_iter *it, bk_utxo *u);
BK_API bk_status bk_chainstate_iter_status(const bk_chainstate_iter *it, bk_error *err);
BK_API void bk_chainstate_iter_free(bk_chainstate_iter *it);

/* Decode one chainstate entry (key without de-obfuscation; value XORed
 * with the key, repeated): for fuzzing and tools. */
BK_API bk_status bk_chainstate_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                                      const uint8_t *obf, size_t obf_len, uint8_t *scratch,
                                      size_t scratch_cap, bk_utxo *u, bk_error *err) BK_WARN_UNUSED;

/* The height of a block in Core's block index (blocks/index: 'b' + hash ->
 * CDiskBlockIndex, whose second VARINT is nHeight), through a private
 * snapshot. BK_ERR_NOT_FOUND when the index has no such block. */
BK_API bk_status bk_block_index_height(const char *index_dir, const char *tmpdir, const uint8_t hash[32],
                                       int32_t *height_out, bk_error *err) BK_WARN_UNUSED;

/* ----------------------------------------------------------------- stats */

typedef enum bk_utxo_hash_type {
    BK_UTXO_HASH_SERIALIZED_3 = 0, /* "hash_serialized_3" */
    BK_UTXO_HASH_MUHASH,           /* "muhash" */
    BK_UTXO_HASH_NONE,             /* "none" */
} bk_utxo_hash_type;

/* Parse "hash_serialized_3" | "muhash" | "none". BK_ERR_ARG otherwise. */
BK_API bk_status bk_utxo_hash_type_parse(const char *s, bk_utxo_hash_type *out) BK_WARN_UNUSED;
BK_API const char *bk_utxo_hash_type_name(bk_utxo_hash_type t);

/* gettxoutsetinfo's numbers (Core: kernel/coinstats.cpp ComputeUTXOStats).
 *  - hash_serialized_3: SHA256d over, for every coin in key order (txids in
 *    byte order, each txid's coins by numeric vout), TxOutSer = txid, vout
 *    (uint32 LE), height*2+coinbase (uint32 LE), value (int64 LE),
 *    CompactSize script length, script.
 *  - muhash: MuHash3072 with each coin's TxOutSer inserted.
 *  - bogosize: per coin 32+4+4+8+2 + script length.
 * Coins must come in key order (txids non-decreasing; each txid's coins
 * together): anything else is BK_ERR_INVALID, as is a vout seen twice. The
 * only memory is one txid's coins (at most a block's outputs), through
 * alloc; a txid whose coins exceed 64 MiB of TxOutSer (no block can create
 * that many) is BK_ERR_LENGTH. */
typedef struct bk_utxo_stats {
    bk_utxo_hash_type hash_type;
    uint64_t txouts;
    uint64_t transactions;
    uint64_t bogosize;
    int64_t total_amount;
    int total_amount_ok;     /* 0 when the sum left int64 (Core: CheckedAdd) */
    uint8_t hash[32];        /* after bk_utxo_stats_end: Core's uint256 order (print reversed) */
    void *priv_;
} bk_utxo_stats;

BK_API bk_status bk_utxo_stats_begin(bk_utxo_stats *st, bk_utxo_hash_type type, const bk_allocator *alloc,
                                     bk_error *err) BK_WARN_UNUSED;
/* muhash only: multiply on `threads` worker threads (0 or 1: inline, the
 * default). Call after begin, before the first coin. The result does not
 * depend on it (the product is order-free); memory grows by
 * (2 x threads + 1) x 256 KiB of batches. BK_ERR_ARG after the first coin. */
BK_API bk_status bk_utxo_stats_set_threads(bk_utxo_stats *st, unsigned threads) BK_WARN_UNUSED;
BK_API bk_status bk_utxo_stats_add(bk_utxo_stats *st, const bk_utxo *u, bk_error *err) BK_WARN_UNUSED;
BK_API bk_status bk_utxo_stats_end(bk_utxo_stats *st, bk_error *err) BK_WARN_UNUSED;
/* Release the working memory (also after an error). */
BK_API void bk_utxo_stats_free(bk_utxo_stats *st);

/* Core's gettxoutsetinfo result object: height, bestblock, txouts,
 * bogosize, hash_serialized_3 or muhash (not for none), total_amount,
 * transactions, disk_size. */
BK_API void bk_utxo_stats_json(bk_json *j, const bk_utxo_stats *st, int32_t height,
                               const uint8_t bestblock[32], uint64_t disk_size);

/* TxOutSer of one coin into out (at most 53 + 10000 bytes, BK_UTXO_SER_MAX);
 * returns its length. */
#define BK_UTXO_SER_MAX (32 + 4 + 4 + 8 + 5 + 10000)
BK_API size_t bk_utxo_txout_ser(const bk_utxo *u, uint8_t *out);


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

/* MuHash3072's Finalize as bk_muhash_finalize, with the inverse by the
 * extended Euclidean algorithm (libgmp mpz_invert) instead of Fermat's
 * little theorem: the same bytes, about 100 times faster. */
BK_API void bk_muhash_finalize_fast(const bk_muhash *m, uint8_t out[32]);

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
 * order and calls emit. Memory: the engine's window of blocks (2 x
 * workers + 1) and per worker a txid table; nothing grows with the chain.
 * Errors: BK_ERR_ARG (range), BK_ERR_NOT_FOUND (a block without data or
 * undo: pruned), the engine's (*where, may be NULL, names the block and
 * file position), emit's, BK_ERR_CANCELLED. */
BK_API bk_status bk_coinstats_series(const struct bk_chain *c, const struct bk_blocksdir *dir,
                                     const bk_coinstats_series_opts *o, bk_coinstats_emit_fn emit, void *ctx,
                                     struct bk_engine_where *where, bk_error *err) BK_WARN_UNUSED;

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

/* -------------------------------------------------- writing a snapshot */

/* A dumptxoutset file (format version 2: node/utxo_snapshot.h, Core's
 * WriteUTXOSnapshot) written through a file descriptor: the metadata, then
 * coins grouped by txid (txid, CompactSize coin count, per coin
 * CompactSize(vout) and the Coin serialization: VARINT(height*2+coinbase),
 * VARINT(CompressAmount(value)), the compressed script). Coins must come
 * in key order (each txid's coins together, as a chainstate cursor or
 * bk_utxo_rollback gives them). The coin count in the metadata is written
 * last, at its offset (pwrite): fd must be a regular file opened for
 * writing, positioned at 0. Memory: one txid's coins and a 1 MiB buffer. */
typedef struct bk_utxo_snapshot_writer bk_utxo_snapshot_writer;

BK_API bk_status bk_utxo_snapshot_writer_open(bk_utxo_snapshot_writer **out, int fd, bk_network net,
                                              const uint8_t base_hash[32], const bk_allocator *alloc,
                                              bk_error *err) BK_WARN_UNUSED;
/* BK_ERR_INVALID for coins out of key order; BK_ERR_IO (errno in the
 * message). */
BK_API bk_status bk_utxo_snapshot_writer_add(bk_utxo_snapshot_writer *w, const bk_utxo *u,
                                             bk_error *err) BK_WARN_UNUSED;
/* Flush the last group and write the coin count; *coins_out (may be
 * NULL) the coins written. */
BK_API bk_status bk_utxo_snapshot_writer_finish(bk_utxo_snapshot_writer *w, uint64_t *coins_out,
                                                bk_error *err) BK_WARN_UNUSED;
BK_API void bk_utxo_snapshot_writer_free(bk_utxo_snapshot_writer *w);

/* Core's ScriptCompression of a scriptPubKey into out (at most 5 + len
 * bytes); returns the length. Uncompressed P2PK keys are compressed only
 * when they are valid points (CPubKey::IsFullyValid). */
BK_API size_t bk_script_compress(const uint8_t *script, size_t len, uint8_t *out);

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

#ifdef __cplusplus
}
#endif
#endif
