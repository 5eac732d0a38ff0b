/* blockkit: Bitcoin Core's block index (<datadir>/blocks/index, LevelDB)
 * and the chainstate's best block, read through private snapshots
 * (blockkit/leveldb.h), and the chain built from them.
 *
 * Records of blocks/index (Core: src/node/blockstorage.cpp, src/chain.h,
 * src/txdb.cpp; values are not obfuscated):
 *
 *   'b' + hash(32)         CDiskBlockIndex: VARINT client version,
 *                          VARINT height, VARINT nStatus, VARINT nTx,
 *                          VARINT nFile (when nStatus has data or undo),
 *                          VARINT nDataPos (HAVE_DATA), VARINT nUndoPos
 *                          (HAVE_UNDO), then the 80-byte block header
 *   'f' + int32 LE file    CBlockFileInfo: 7 VARINTs (blocks, size,
 *                          undo size, first/last height, first/last time)
 *   'l'                    int32 LE: the last blk file number written
 *   'R'                    present while a reindex is in progress
 *   'F' + CompactSize name flag ('1' / '0'), e.g. "prunedblockfiles"
 *
 * VARINT is Core's serialize.h ReadVarInt: MSB-first base-128 digits with
 * +1 per continuation, read into the field's type (a value over the type's
 * range is "size too large"). Every decoder below checks every byte: a
 * record that is truncated, has trailing bytes, an overflowing VARINT,
 * status bits Core never sets, or a header whose hash is not its key is
 * an error (BK_ERR_INVALID, BK_ERR_TRUNCATED, BK_ERR_OVERFLOW,
 * BK_ERR_TRAILING, BK_ERR_VALUE) whose message names the key in hex and
 * whose offset is the byte of the value where the fault is. Decoders
 * borrow nothing and allocate nothing.
 *
 * The chainstate (<datadir>/chainstate) keeps its values XORed with the
 * key stored under "\x0e\x00obfuscate_key" (a CompactSize-prefixed byte
 * vector, 8 bytes); 'B' holds the hash of the block the UTXO set is at,
 * 'H' (only after an interrupted flush) the new and old heads. */
#ifndef BLOCKKIT_BLOCKINDEX_H
#define BLOCKKIT_BLOCKINDEX_H

#include <blockkit/bitcoin.h>
#include <blockkit/chain.h>
#include <blockkit/network.h> /* bk_network_datadir_subdir, bk_network_datadir_path */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- nStatus (Core: chain.h enum BlockStatus) ---- */

#define BK_BLOCK_VALID_UNKNOWN 0u
#define BK_BLOCK_VALID_RESERVED 1u
#define BK_BLOCK_VALID_TREE 2u
#define BK_BLOCK_VALID_TRANSACTIONS 3u
#define BK_BLOCK_VALID_CHAIN 4u
#define BK_BLOCK_VALID_SCRIPTS 5u
#define BK_BLOCK_VALID_MASK 7u
#define BK_BLOCK_HAVE_DATA 8u
#define BK_BLOCK_HAVE_UNDO 16u
#define BK_BLOCK_HAVE_MASK (BK_BLOCK_HAVE_DATA | BK_BLOCK_HAVE_UNDO)
#define BK_BLOCK_FAILED_VALID 32u
#define BK_BLOCK_FAILED_CHILD 64u
#define BK_BLOCK_FAILED_MASK (BK_BLOCK_FAILED_VALID | BK_BLOCK_FAILED_CHILD)
#define BK_BLOCK_OPT_WITNESS 128u
#define BK_BLOCK_STATUS_RESERVED 256u /* formerly BLOCK_ASSUMED_VALID */
/* Every bit Core has ever written; the validity level must be 0..5. */
#define BK_BLOCK_STATUS_KNOWN 0x1ffu

/* Core CBlockIndex::IsValid(level): not failed and validity >= level. */
static inline int bk_block_status_valid(uint32_t status, uint32_t level)
{
    return !(status & BK_BLOCK_FAILED_MASK) && (status & BK_BLOCK_VALID_MASK) >= level;
}

/* ---- record decoders (pure functions over bytes) ---- */

/* The kind of a blocks/index key (its first byte). */
typedef enum bk_index_key_kind {
    BK_INDEX_KEY_OTHER = 0,
    BK_INDEX_KEY_BLOCK,      /* 'b' */
    BK_INDEX_KEY_FILE,       /* 'f' */
    BK_INDEX_KEY_LAST_FILE,  /* 'l' */
    BK_INDEX_KEY_REINDEX,    /* 'R' */
    BK_INDEX_KEY_FLAG        /* 'F' */
} bk_index_key_kind;

BK_API bk_index_key_kind bk_index_key_kind_of(const uint8_t *key, size_t klen);

/* Core CDiskBlockIndex. */
typedef struct bk_disk_block_index {
    uint8_t hash[32];        /* from the key (internal order); checked against the header */
    int32_t client_version;  /* the CLIENT_VERSION that wrote it */
    int32_t height;
    uint32_t status;         /* nStatus */
    uint32_t n_tx;
    int32_t file;            /* nFile; 0 unless status & BK_BLOCK_HAVE_MASK */
    uint32_t data_pos;       /* offset of the block bytes in blkNNNNN.dat (after magic and size); 0 without HAVE_DATA */
    uint32_t undo_pos;       /* offset of the CBlockUndo in revNNNNN.dat; 0 without HAVE_UNDO */
    bk_header header;
} bk_disk_block_index;

/* Decode a 'b' record. key must be 'b' + 32 bytes. check_hash non-zero:
 * SHA256d of the stored header must equal the key (BK_ERR_MISMATCH).
 * Errors: BK_ERR_ARG (not a 'b' key of 33 bytes), BK_ERR_TRUNCATED,
 * BK_ERR_OVERFLOW (a VARINT over its field's type: client version,
 * height and nFile are non-negative int32, the others uint32),
 * BK_ERR_VALUE (status bits outside BK_BLOCK_STATUS_KNOWN, validity level
 * 6 or 7), BK_ERR_TRAILING. */
BK_API bk_status bk_disk_block_index_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                                            int check_hash, bk_disk_block_index *out,
                                            bk_error *err) BK_WARN_UNUSED;

/* Core CBlockFileInfo ('f' + int32 LE file number). */
typedef struct bk_block_file_info {
    int32_t file;
    uint32_t n_blocks;
    uint32_t size;           /* bytes of blkNNNNN.dat in use */
    uint32_t undo_size;      /* bytes of revNNNNN.dat in use */
    uint32_t height_first, height_last;
    uint64_t time_first, time_last;
} bk_block_file_info;

BK_API bk_status bk_block_file_info_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                                           bk_block_file_info *out, bk_error *err) BK_WARN_UNUSED;

/* 'l': the last block file (int32 LE, non-negative). */
BK_API bk_status bk_index_last_file_decode(const uint8_t *val, size_t vlen, int32_t *file_out,
                                           bk_error *err) BK_WARN_UNUSED;

/* 'F' + name: *name_out borrows the key bytes (not NUL-terminated);
 * the value must be '1' or '0'. */
BK_API bk_status bk_index_flag_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                                      const uint8_t **name_out, size_t *name_len_out, int *value_out,
                                      bk_error *err) BK_WARN_UNUSED;

/* ---- chainstate ---- */

#define BK_OBFUSCATE_KEY_MAX 32
/* The chainstate key of the obfuscation key: "\x0e\x00obfuscate_key". */
#define BK_OBFUSCATE_KEY_KEY "\x0e\x00obfuscate_key"
#define BK_OBFUSCATE_KEY_KEY_LEN 15

/* Decode the obfuscation key record's value (CompactSize n, n bytes; Core
 * writes n = 8, an empty key means none). BK_ERR_LENGTH when n is over
 * BK_OBFUSCATE_KEY_MAX. */
BK_API bk_status bk_obfuscate_key_decode(const uint8_t *val, size_t vlen, uint8_t key_out[BK_OBFUSCATE_KEY_MAX],
                                         size_t *key_len_out, bk_error *err) BK_WARN_UNUSED;

/* XOR buf with key repeated from its first byte (Core: CDBWrapper values);
 * key_len 0 is the identity. */
BK_API void bk_deobfuscate(uint8_t *buf, size_t len, const uint8_t *key, size_t key_len);

/* Read the chainstate's best block from the LevelDB directory chainstate_dir
 * (through a private snapshot under tmpdir, NULL = $TMPDIR or /tmp): 'B'
 * de-obfuscated, or when absent the new head of 'H' (an interrupted
 * flush). BK_ERR_NOT_FOUND when neither is there (or no such directory). */
BK_API bk_status bk_chainstate_tip(const char *chainstate_dir, const char *tmpdir, uint8_t hash_out[32],
                                          bk_error *err) BK_WARN_UNUSED;

/* ---- the chain from the index ---- */

/* The most chainstate table bytes bk_chain_build_index copies into a
 * snapshot to read the best block (see there). */
#define BK_CHAINSTATE_COPY_MAX ((uint64_t)256 << 20)

/* Where a node keeps things. Core: blk/rev files in <blocksdir> (its
 * -blocksdir option can move them), the index always in
 * <datadir>/<net>/blocks/index, the chainstate in <datadir>/<net>/chainstate. */
typedef struct bk_index_dirs {
    const char *blocksdir;      /* blkNNNNN.dat, revNNNNN.dat, xor.dat */
    const char *indexdir;       /* the LevelDB block index; NULL = <blocksdir>/index */
    const char *chainstatedir;  /* NULL: no chainstate (the tip is the most-work block, below) */
    /* Non-zero: do not read each record's header to learn its size and
     * check its position; a record's size is the distance to the next
     * record the index knows in the same file (only the last one of each
     * file is read). For lookups of a few blocks on a node whose files are
     * not in the page cache (one page per block otherwise). A position
     * that holds something else is then found only when the block is read
     * (its hash or its parse fails). Overlapping positions are still an
     * error. */
    int trust_positions;
} bk_index_dirs;

/* Build *c (the same bk_chain the header scan fills; release it with
 * bk_chain_free) from Core's block index:
 *  - one entry per 'b' record, in height order (then key order), then
 *    the appended blocks (below) in file order; heights, nTx, status, file, data and undo positions
 *    exactly as Core recorded them. Block and undo sizes are read from the
 *    8-byte record headers in the blk/rev files (their magic is checked),
 *    and the block header at a data position must be the stored one
 *    (version, parent, time, bits, nonce): a position past the end of its
 *    file, a record header that is not there, or another block's header,
 *    is an error naming the index key and the file. A blk or rev
 *    file that is not there at all (pruned by a running node after its
 *    index was read, or a copy with only the index) leaves its blocks
 *    without data (no_data) or undo, counted in c->n_missing.
 *  - chain work (GetBlockProof summed from the genesis) and median time
 *    past from the stored headers. A height that is not the parent's + 1,
 *    a parent that is not in the index, or a block without a parent at a
 *    height other than 0, is an error naming the block.
 *  - the tip: the chainstate's best block (bk_chainstate_best_block) when
 *    dirs->chainstatedir is given and has one (then c->tip_from_chainstate
 *    is 1). Reading one key must not copy a mainnet UTXO set: when the
 *    snapshot directory is on another filesystem than the chainstate (no
 *    hard links) and its tables exceed BK_CHAINSTATE_COPY_MAX bytes, the
 *    chainstate is not read (c->chainstate_skipped = 1; pass a tmpdir on
 *    the node's filesystem). Without it, the block with the most work
 *    that has data, is not failed nor has a failed ancestor (Core's
 *    FindMostWorkChain) and was connected once (validity
 *    BK_BLOCK_VALID_SCRIPTS; the genesis, which Core leaves at
 *    BK_BLOCK_VALID_TRANSACTIONS, counts):
 *    blocks downloaded but never connected (valid-headers) are not taken;
 *    equal work goes to the lower (file, data position), where Core would
 *    use its in-memory arrival order (a preciousblock tie can only be read
 *    from the chainstate). The best chain is that tip's ancestry: next,
 *    active and confirmations follow.
 *  - pruned nodes: every block keeps its height, work, mediantime and
 *    next; entries without data have no_data = 1 (offset and size 0) and
 *    c->prune_height is the lowest height from which every best-chain
 *    block up to the tip has data (Core's getblockchaininfo pruneheight;
 *    0 when nothing is missing). c->pruned is the 'F' prunedblockfiles
 *    flag.
 *  - blocks written to blk files after the index's last flush: each blk
 *    file's records past the last position the index covers in it (the
 *    whole file when the index has no block in it) are read; a block whose
 *    parent is known joins the chain (c->n_appended counts them; the tip
 *    moves to the most-work such block that descends from it). A block
 *    the index knows only by its header gets its data position; one it
 *    knows with data is counted in n_duplicates. Undo records past the
 *    last position the index covers in each rev file are given to the
 *    block of the same file number, without undo yet, whose parent hash
 *    the record's checksum commits to (the best chain first). The last
 *    record of a blk file is decoded in full: an interrupted write is
 *    dropped. These blocks have status 0 (Core has not recorded one).
 * opts may be NULL; its cancel flag is polled (BK_ERR_CANCELLED) and its
 * tmpdir used for the snapshots. The build runs on the calling thread and
 * one more (the 'b' records in two key ranges; then the block sizes beside
 * the links and undo sizes): the result is the same as a serial build's,
 * and alloc is called from both threads, one call at a time (it need not
 * be thread-safe). Nothing is written to the node's
 * directories. Errors: those of bk_ldb_open (BK_ERR_NOT_FOUND when there
 * is no index), the decoders' (naming the key), BK_ERR_IO naming a file,
 * BK_ERR_NOMEM. On error *c is left empty (bk_chain_free is harmless). */
BK_API bk_status bk_chain_build_index_dirs(bk_chain *c, const bk_index_dirs *dirs, bk_network net,
                                           const bk_chain_opts *opts, const bk_allocator *alloc,
                                           bk_error *err) BK_WARN_UNUSED;

/* The same for a Core -datadir: blocks in <datadir>/<subdir>blocks, the
 * index in its index/ directory, the chainstate in <datadir>/<subdir>chainstate
 * when that directory exists (subdir = bk_network_datadir_subdir(net)). */
BK_API bk_status bk_chain_build_index(bk_chain *c, const char *datadir, bk_network net, const bk_chain_opts *opts,
                                      const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
