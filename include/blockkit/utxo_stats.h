/* blockkit: gettxoutsetinfo's statistics of a UTXO set and its hashes
 * (hash_serialized_3, MuHash3072, none). Part of blockkit/utxo.h.
 *
 * Core's statistics (kernel/coinstats.cpp) collect each txid's coins in a
 * std::map, i.e. numeric vout order: bk_utxo_stats does the same (the
 * chainstate's own key order is VARINT order: blockkit/utxo_chainstate.h). */
#ifndef BLOCKKIT_UTXO_STATS_H
#define BLOCKKIT_UTXO_STATS_H

#include <blockkit/json.h>
#include <blockkit/utxo_coin.h>

#ifdef __cplusplus
extern "C" {
#endif

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
/* The same without disk_size: a set with no database to measure (one
 * rolled back to a past height). */
BK_API void bk_utxo_stats_json_no_disk(bk_json *j, const bk_utxo_stats *st, int32_t height,
                                       const uint8_t bestblock[32]);

#ifdef __cplusplus
}
#endif
#endif
