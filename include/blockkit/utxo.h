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

#include <blockkit/json.h>
#include <blockkit/network.h>
#include <blockkit/table.h>
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
 * BK_ERR_UNSUPPORTED (version other than 2, the version Core writes),
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


/* ------------------------------------------------------------ the table */

/* The utxos dataset (`blockkit export --datasets utxos`, `blockkit utxo
 * dump`; docs/utxo.md): txid (hex, Core's display order), vout (INT64),
 * value (satoshis, INT64), height (INT32), is_coinbase (BOOLEAN),
 * script_hex, type (Core's name, dictionary-encoded), address (optional:
 * null when Core prints none), desc (Core's inferred descriptor with its
 * checksum). type, address and desc are what Core's gettxout prints in
 * scriptPubKey. */
BK_API const bk_pq_column *bk_utxo_columns(size_t *n_out);

/* Rows are rendered a batch at a time: the coins are copied in (their
 * scripts into the batch's own arena), then bk_utxo_batch_render computes
 * every text column (hex, type, address, descriptor; the taproot key checks
 * of the whole batch at once, with AVX-512 when the CPU has it), then
 * bk_utxo_batch_write hands rows to a table writer. Distinct batches may be
 * rendered on distinct threads. A batch holds at most BK_UTXO_BATCH coins
 * and BK_UTXO_BATCH_SCRIPT_BYTES of raw scripts, so its memory stays about
 * 1.5 MB whatever the coins. */
#define BK_UTXO_BATCH 1024
#define BK_UTXO_BATCH_SCRIPT_BYTES (256u << 10)

typedef struct bk_utxo_batch bk_utxo_batch;

BK_API bk_status bk_utxo_batch_new(bk_utxo_batch **out, bk_network net, const bk_allocator *alloc) BK_WARN_UNUSED;
BK_API void bk_utxo_batch_free(bk_utxo_batch *b);
/* Empty it (keeps its memory). */
BK_API void bk_utxo_batch_reset(bk_utxo_batch *b);
/* Copy u in: 1, or 0 when the batch is full (u not added). */
BK_API int bk_utxo_batch_add(bk_utxo_batch *b, const bk_utxo *u);
BK_API size_t bk_utxo_batch_count(const bk_utxo_batch *b);
/* The i-th coin as added (its raw script in the batch's arena). */
BK_API const bk_utxo *bk_utxo_batch_coin(const bk_utxo_batch *b, size_t i);
/* Render the text columns of every coin. BK_ERR_NOMEM. */
BK_API bk_status bk_utxo_batch_render(bk_utxo_batch *b) BK_WARN_UNUSED;
/* Rows [from, to) of a rendered batch into t (opened with bk_utxo_columns),
 * each ended with bk_table_end_row; the writer's errors are returned. */
BK_API bk_status bk_utxo_batch_write(const bk_utxo_batch *b, size_t from, size_t to, bk_table_writer *t,
                                     bk_error *err) BK_WARN_UNUSED;

/* ---- the rows of a whole set, rendered in parallel, in order ----
 *
 * The engine of `blockkit utxo dump` and `blockkit export --datasets utxos`:
 * coins from next (a chainstate iterator, a snapshot reader, anything that
 * returns them in order) are copied into batches, the batches rendered on
 * worker threads, and each handed to emit on the calling thread in the
 * source's order. At most threads + 2 batches exist (about 1.5 MB each),
 * whatever the size of the set. */

/* 1 with the next coin in *u (valid until the next call), 0 at the end or
 * on an error (the caller asks its source which, after the run). */
typedef int (*bk_utxo_next_fn)(void *ctx, bk_utxo *u);
/* A rendered batch, in order; anything but BK_OK ends the run with that
 * status (set err to say why). */
typedef bk_status (*bk_utxo_emit_fn)(void *ctx, const bk_utxo_batch *b, bk_error *err);

#define BK_UTXO_ROWS_THREADS_MAX 64

/* Run the source to its end. threads < 2 renders on the calling thread;
 * more start that many workers (at most BK_UTXO_ROWS_THREADS_MAX; none
 * could be started: inline). cancel (may be NULL) is polled between
 * batches: BK_ERR_CANCELLED, the batches still being rendered waited for
 * and not emitted. Errors: emit's, BK_ERR_NOMEM (batches, or rendering),
 * BK_ERR_ARG (no next or emit). The source's own end status is not looked
 * at here: check it after BK_OK. */
BK_API bk_status bk_utxo_rows_run(bk_network net, bk_utxo_next_fn next, void *next_ctx, unsigned threads,
                                  bk_utxo_emit_fn emit, void *emit_ctx, const volatile sig_atomic_t *cancel,
                                  const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
