/* blockkit: the best chain of a Bitcoin Core blocks directory, without the
 * block index database.
 *
 * Every blk*.dat record's header is hashed and linked to its parent through
 * a hash table; heights, chain work (Core's GetBlockProof summed along the
 * chain), median time past and the chain with the most work follow. Then
 * every rev*.dat record is paired with its block (same file number, tx
 * count - 1 CTxUndo, the checksum SHA256d(parent hash || CBlockUndo); when
 * siblings in the same file share the parent, the shape decides: one coin
 * per input, checked by decoding the blocks; spec §9.1). The last record
 * of each blk file is decoded in full: an interrupted write is dropped.
 *
 * Rules and decisions (docs/blockfiles.md):
 *  - A genesis is a block whose hashPrevBlock is all zeros (height 0). A
 *    block whose parent is the network's genesis block, when that genesis is
 *    not in the files, gets height 1; the implied genesis adds its work and
 *    its nTime to the median time past (this is how btcd's
 *    mainnet_blocks_1-255.blk, which has no genesis record, forms a chain).
 *    Any other block whose parent is missing is an orphan: height -1, on no
 *    chain, and so are its descendants.
 *  - Proof of work, merkle roots and consensus rules are NOT checked: work
 *    counts only nBits. Invalid, negative or overflowing compact targets
 *    give zero work (Core: arith_uint256::SetCompact / GetBlockProof).
 *  - Equal work: the block seen first (lower file number, then offset) wins,
 *    standing in for Core's nSequenceId.
 *  - A block stored twice keeps its first record; the others are counted in
 *    n_duplicates.
 *
 * Memory: one bk_chain_entry per distinct block plus a hash table of
 * 2-4 slots per block, all through the allocator; no per-block
 * allocation. Core's files are opened one at a time. */
#ifndef BLOCKKIT_CHAIN_H
#define BLOCKKIT_CHAIN_H

#include <blockkit/bitcoin.h>
#include <blockkit/blockfile.h>

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_CHAIN_NONE UINT32_MAX

typedef struct bk_chain_entry {
    uint8_t hash[32];          /* internal byte order */
    uint8_t prev_hash[32];
    uint8_t chainwork[32];     /* big-endian; meaningful when height >= 0 */
    int64_t mediantime;        /* Core GetMedianTimePast; meaningful when height >= 0 */
    int32_t height;            /* -1: not connected to a genesis (orphan) */
    int32_t version;
    uint32_t time;
    uint32_t bits;
    uint32_t nonce;
    uint32_t n_tx;             /* the record's transaction count */
    uint32_t parent;           /* entry index, or BK_CHAIN_NONE */
    uint32_t next;             /* next block on the best chain, or BK_CHAIN_NONE */
    uint32_t file;             /* blkNNNNN.dat */
    uint32_t size;             /* block bytes */
    uint64_t offset;           /* of the block bytes in the file (after magic and size) */
    uint32_t undo_file;        /* revNNNNN.dat, when has_undo */
    uint32_t undo_size;        /* CBlockUndo bytes */
    uint64_t undo_offset;      /* of the CBlockUndo in the rev file */
    uint8_t active;            /* on the best chain */
    uint8_t has_undo;          /* a rev record verified for this block */
    /* Set by bk_chain_build_index (blockkit/blockindex.h); zero from the
     * header scan. */
    uint8_t no_data;           /* the index holds no data for it (pruned, or only its header is known): file/offset/size unused */
    uint8_t failed;            /* status & BK_BLOCK_FAILED_MASK: Core found it (or an ancestor) invalid */
    uint32_t status;           /* Core's nStatus (BK_BLOCK_*) */
} bk_chain_entry;

/* How one scanned file ended (bk_record_iter). */
typedef struct bk_chain_file {
    bk_file_kind kind;
    uint32_t number;
    uint64_t records;
    bk_file_end end;
    uint64_t end_offset;
} bk_chain_file;

typedef struct bk_chain {
    const bk_allocator *alloc;
    bk_network net;
    bk_chain_entry *entries;   /* distinct blocks in file order */
    size_t n_entries;
    size_t cap_entries;
    uint32_t *table;           /* open addressing over entry indices */
    size_t table_cap;
    uint32_t *active;          /* active[h - base_height] = entry index */
    size_t n_active;
    int32_t base_height;       /* height of active[0]: 0, or 1 with an implied genesis */
    uint32_t tip;              /* entry index, or BK_CHAIN_NONE when no block is connected */
    bk_chain_file *files;      /* scan reports, blk files then rev files */
    size_t n_files;
    size_t cap_files;
    uint64_t n_records;        /* blk records seen */
    uint64_t n_bad_records;    /* blk records too short, with an unreadable tx count, or a last record that does not parse (interrupted write) */
    uint64_t n_duplicates;
    uint64_t n_orphans;
    uint64_t n_stale;          /* connected, not on the best chain */
    uint64_t n_undo_records;
    uint64_t n_undo_paired;
    uint64_t n_undo_unpaired;  /* checksum or shape matched no block */
    /* Set by bk_chain_build_index (blockkit/blockindex.h); zero from the
     * header scan. */
    uint8_t from_index;        /* built from Core's block index */
    uint8_t tip_from_chainstate; /* the tip is the chainstate's best block */
    uint8_t pruned;            /* the index's prunedblockfiles flag */
    uint8_t reindexing;        /* the index's reindex flag ('R') */
    uint8_t chainstate_skipped; /* the chainstate was not read: a snapshot would have copied too much (blockindex.h) */
    int32_t prune_height;      /* lowest height from which every best-chain block has data (0: none missing) */
    int32_t last_file;         /* the index's last blk file ('l'), -1 when absent */
    uint64_t n_no_data;        /* entries without block data */
    uint64_t n_appended;       /* blocks found in blk files past the index's last flush */
    uint64_t n_missing;        /* blocks (undo records) the index places in a blk (rev) file that is not there: no_data (no undo) */
} bk_chain;

/* Options shared by every way of building a chain (header scan of the
 * files, Core's block index). Zero-initialise, then set what you need. */
typedef struct bk_chain_opts {
    /* Non-NULL: the build polls *cancel (at least every few thousand records
     * and between files, so within well under a second) and returns
     * BK_ERR_CANCELLED, keeping nothing, once it is non-zero. Set it from a
     * signal handler. */
    const volatile sig_atomic_t *cancel;
    /* Where private LevelDB snapshots are made (blockkit/leveldb.h); NULL =
     * $TMPDIR or /tmp. */
    const char *tmpdir;
} bk_chain_opts;

/* Scan d (all blk files, then all rev files) and build the chain into *c.
 * BK_ERR_IO naming the file when one cannot be read (nothing is kept);
 * BK_ERR_NOMEM. Damaged records do not fail the build: they end their
 * file's scan (see files[]) or are counted. Release with bk_chain_free. */
BK_API bk_status bk_chain_build(bk_chain *c, const bk_blocksdir *d, const bk_allocator *alloc,
                                bk_error *err) BK_WARN_UNUSED;

/* The same from file images (memory or mapped): blk[] and rev[] carry
 * their file numbers; rev may be NULL. The images must use one network. */
BK_API bk_status bk_chain_build_files(bk_chain *c, bk_network net, const bk_blockfile *blk, size_t n_blk,
                                      const bk_blockfile *rev, size_t n_rev, const bk_allocator *alloc,
                                      bk_error *err) BK_WARN_UNUSED;

BK_API void bk_chain_free(bk_chain *c);

/* The entry of a block hash (internal order), or NULL. */
BK_API const bk_chain_entry *bk_chain_find(const bk_chain *c, const uint8_t hash[32]);
/* The best-chain entry at a height, or NULL. */
BK_API const bk_chain_entry *bk_chain_at_height(const bk_chain *c, int64_t height);
static inline const bk_chain_entry *bk_chain_tip(const bk_chain *c)
{
    return c->tip == BK_CHAIN_NONE ? NULL : &c->entries[c->tip];
}

/* Fill ctx for e (spec §11): network, height, confirmations (tip height -
 * height + 1 on the best chain, -1 for a stale block), mediantime,
 * chainwork, next hash, tip nBits. BK_ERR_NOT_FOUND for an orphan. */
BK_API bk_status bk_chain_context_fill(const bk_chain *c, const bk_chain_entry *e, bk_chain_context *ctx,
                                       bk_error *err) BK_WARN_UNUSED;

/* Core: chain.cpp GetBlockProof - 2^256 / (target + 1) as
 * (~target / (target + 1)) + 1, target from nBits by SetCompact; zero for a
 * negative, overflowing or zero target. Big-endian. */
BK_API void bk_block_proof(uint32_t bits, uint8_t work_out[32]);

#ifdef __cplusplus
}
#endif
#endif
