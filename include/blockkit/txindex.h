/* blockkit: Bitcoin Core's transaction index (`indexes/txindex`, written by
 * a node started with -txindex=1), read-only.
 *
 * The index is a LevelDB directory (read through a private snapshot,
 * blockkit/leveldb.h: the node's own directory is never opened) mapping
 *   't' || txid (32 bytes, internal order) -> CDiskTxPos
 * where CDiskTxPos = VARINT nFile (Core's NONNEGATIVE_SIGNED mode: an int
 * >= 0), VARINT nPos (the block's data position in blkNNNNN.dat: its first
 * header byte, after the record's magic and size), VARINT nTxOffset (where
 * the transaction starts, counted from the end of the 80-byte header: the
 * first transaction sits at the length of the tx count's CompactSize).
 * VARINT is Core's MSB-first base-128 with the +1 bijection (serialize.h).
 * 'B' holds the CBlockLocator of the block the index is synced to (int32
 * version, CompactSize count, that many 32-byte hashes, the first being
 * the block itself). Core: index/txindex.cpp, index/disktxpos.h,
 * index/base.cpp.
 *
 * Core writes an entry when it connects a block and never removes one: a
 * transaction of a block that was later reorganised away still resolves to
 * that (stale) block; a block that was never connected has none. Values are
 * not obfuscated, but when the database holds an obfuscation key
 * ("\x0e\x00obfuscate_key", as CDBWrapper would write with obfuscation on)
 * values are de-obfuscated with it. */
#ifndef BLOCKKIT_TXINDEX_H
#define BLOCKKIT_TXINDEX_H

#include <blockkit/alloc.h>
#include <blockkit/blockfile.h>
#include <blockkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a transaction is stored (CDiskTxPos). */
typedef struct bk_tx_pos {
    uint32_t file;       /* blkNNNNN.dat (<= INT32_MAX) */
    uint32_t block_pos;  /* offset of the block's header in that file */
    uint32_t tx_offset;  /* offset of the transaction after the 80-byte header */
} bk_tx_pos;

/* Decode a CDiskTxPos value (len bytes, nothing after it). Errors with the
 * byte offset: BK_ERR_TRUNCATED (a VARINT cut short), BK_ERR_OVERFLOW (a
 * VARINT over 64 bits, nFile over INT32_MAX, nPos or nTxOffset over
 * UINT32_MAX: Core's ReadVarInt "size too large"), BK_ERR_TRAILING (bytes
 * after the three numbers; Core ignores them, blockkit refuses a value it
 * cannot account for). */
BK_API bk_status bk_tx_pos_decode(const uint8_t *val, size_t len, bk_tx_pos *pos_out,
                                  bk_error *err) BK_WARN_UNUSED;

/* Decode a CBlockLocator value: *n_out hashes, the first copied to
 * first_out (may be NULL). BK_ERR_TRUNCATED, BK_ERR_NONCANONICAL /
 * BK_ERR_SIZE for the count, BK_ERR_COUNT for a count the bytes cannot hold,
 * BK_ERR_TRAILING, BK_ERR_INVALID for an empty locator. */
BK_API bk_status bk_block_locator_decode(const uint8_t *val, size_t len, uint8_t first_out[32], uint64_t *n_out,
                                         bk_error *err) BK_WARN_UNUSED;

typedef struct bk_txindex bk_txindex;

/* Open the txindex directory `dir` (normally <datadir>/indexes/txindex)
 * through a private LevelDB snapshot made under tmpdir (NULL: $TMPDIR or
 * /tmp). BK_ERR_NOT_FOUND when dir is missing or not a LevelDB directory
 * (the node runs without -txindex); BK_ERR_IO, BK_ERR_NOMEM as bk_ldb_open.
 * Release with bk_txindex_close (removes the snapshot). */
BK_API bk_status bk_txindex_open(const char *dir, const char *tmpdir, bk_txindex **tx_out,
                                 bk_error *err) BK_WARN_UNUSED;
BK_API void bk_txindex_close(bk_txindex *ti);

/* Look up txid (internal order). BK_ERR_NOT_FOUND when the index has no
 * entry; a malformed value is the decoder's error with the message naming
 * the key ("txindex key t<txid>: ..."); BK_ERR_IO from LevelDB. */
BK_API bk_status bk_txindex_find(bk_txindex *ti, const uint8_t txid[32], bk_tx_pos *pos_out,
                                 bk_error *err) BK_WARN_UNUSED;

/* The block the index says it is synced to (the locator's first hash).
 * BK_ERR_NOT_FOUND when there is no 'B' record. */
BK_API bk_status bk_txindex_best_block(bk_txindex *ti, uint8_t hash_out[32], bk_error *err) BK_WARN_UNUSED;

/* Read what pos points to in d, as Core's TxIndex::FindTx does: the block
 * header at pos->block_pos (its hash into block_hash_out), then the
 * transaction pos->tx_offset bytes after the header, which must lie inside
 * the block's record (the record's size field bounds it). The transaction's
 * bytes are copied into memory from alloc (NULL: default), *tx_out /
 * *len_out; free with bk_free(alloc, *tx_out, *len_out). With txid
 * non-NULL, BK_ERR_MISMATCH when the transaction there has another txid
 * (Core: "txid mismatch"). BK_ERR_NOT_FOUND when d has no such blk file
 * (pruned or not copied); BK_ERR_TRUNCATED / BK_ERR_INVALID when the
 * position is outside the file or the record; the transaction's parse
 * errors (offset into the file). */
BK_API bk_status bk_txindex_read_tx(const bk_blocksdir *d, const bk_tx_pos *pos, const uint8_t txid[32],
                                    const bk_allocator *alloc, uint8_t **tx_out, size_t *len_out,
                                    uint8_t block_hash_out[32], bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
