/* blockkit: Bitcoin Core's chainstate (LevelDB: the UTXO set of a node)
 * read without the node, and the heights of its block index. Part of
 * blockkit/utxo.h.
 *
 * Key order: the chainstate's keys are 'C' + txid + VARINT(vout), so coins
 * come txid by txid (txid bytes compared as stored, internal order), and
 * within a txid in the byte order of VARINT(vout), which is numeric order
 * except across VARINT lengths (vout 16511 comes after 16512). dumptxoutset
 * writes the same order. */
#ifndef BLOCKKIT_UTXO_CHAINSTATE_H
#define BLOCKKIT_UTXO_CHAINSTATE_H

#include <blockkit/utxo_coin.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
