/* blockkit: Bitcoin merkle roots, computed in place.
 *
 * Results are exactly Bitcoin Core's (src/consensus/merkle.cpp
 * ComputeMerkleRoot): each level hashes node pairs with double SHA-256; a
 * level with an odd number of nodes (other than the top) pairs its last node
 * with itself; no leaves gives the zero hash; one leaf is its own root.
 *
 * Memory: the leaves live in one caller buffer whose capacity (in 32-byte
 * nodes) is the count rounded up to even, bk_merkle_capacity(n). Each level
 * is hashed in place into the front of that buffer (large trees one
 * cache-sized aligned subtree at a time), and the odd duplicate is written
 * into the spare slot, so nothing is ever reallocated or allocated: the
 * leaves are DESTROYED (overwritten by the inner levels). Copy them first
 * if you need them again.
 *
 * Mutation (CVE-2012-2459): a level whose nodes at positions 2i and 2i+1 are
 * equal (before the odd duplicate is appended) lets a different transaction
 * list produce the same root. Core reports that as `mutated` and rejects the
 * block ("bad-txns-duplicate"); blockkit reports the same flag, computed in
 * the hashing pass itself (each pair is compared as it is fed to the hash
 * batch).
 *
 * Byte order: every hash here is in internal order (as serialized, as
 * SHA-256 outputs it); Core's GetHex() and the CLI print it reversed.
 *
 * Nothing in this header allocates except bk_block_merkle_alloc, which
 * allocates exactly one scratch buffer through the caller's allocator. All
 * functions are thread-safe on distinct buffers. */
#ifndef BLOCKKIT_MERKLE_H
#define BLOCKKIT_MERKLE_H

#include <blockkit/alloc.h>
#include <blockkit/bitcoin.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_MERKLE_HASH_LEN 32

/* Nodes (32 bytes each) a leaf buffer must hold for bk_merkle_root and
 * bk_merkle_branch to compute n leaves in place: n rounded up to even
 * (0 -> 0, 1 -> 2, 9001 -> 9002). This is the bound for every n; n == 1
 * alone would also work with a capacity of 1 (one leaf is the root, nothing
 * is hashed). n must not exceed SIZE_MAX / 32 (a buffer that large cannot
 * exist). */
static inline size_t bk_merkle_capacity(size_t n) { return n + (n & 1); }

/* Number of hashes in a merkle branch of a tree of n leaves: 0 for n <= 1,
 * else ceil(log2(n)) (the number of levels above the leaves). */
BK_API size_t bk_merkle_depth(size_t n);

/* Compute the merkle root of n leaves in place.
 *
 * leaves:      n * 32 bytes of leaf hashes (internal order), capacity * 32
 *              bytes writable. Destroyed. May be NULL when n == 0.
 * n:           number of leaves (0 allowed).
 * capacity:    nodes the buffer holds. Must be >= n, and >= n + 1 when n is
 *              odd and greater than 1 (room for the odd duplicate):
 *              bk_merkle_capacity(n) always suffices.
 * root_out:    receives the root (the zero hash when n == 0, the leaf itself
 *              when n == 1). May alias leaves.
 * mutated_out: if not NULL, receives 1 when some level has two equal nodes at
 *              positions 2i, 2i+1 (Core's `mutated`), else 0. When NULL the
 *              comparisons are skipped (slightly faster).
 *
 * Returns BK_OK, BK_ERR_BUFFER when capacity is too small (nothing is
 * touched), BK_ERR_ARG when leaves or root_out is NULL with n > 0. Never
 * allocates. */
BK_API bk_status bk_merkle_root(uint8_t *leaves, size_t n, size_t capacity, uint8_t root_out[32],
                                int *mutated_out) BK_WARN_UNUSED;

/* Compute the merkle branch (proof) of leaf `index` in place: the sibling
 * hash at each level from the leaves up, as Core's ComputeMerkleBranch
 * (src/test/merkle_tests.cpp; earlier src/consensus/merkle.cpp) returns it.
 * Where the leaf's path ends a level with an odd count, the sibling is the
 * node itself (the duplicate).
 *
 * leaves, n, capacity: as for bk_merkle_root (the leaves are destroyed).
 * index:       the leaf, < n.
 * branch_out:  receives depth = bk_merkle_depth(n) hashes, 32 bytes each,
 *              lowest level first. May be NULL when depth is 0.
 * branch_len:  bytes available at branch_out; must be >= depth * 32.
 * depth_out:   if not NULL, receives the depth.
 * root_out:    if not NULL, receives the root (computed on the way).
 * mutated_out: if not NULL, receives the mutation flag as bk_merkle_root.
 *
 * Returns BK_OK, BK_ERR_ARG (index >= n, NULL buffers), BK_ERR_BUFFER
 * (capacity or branch_len too small; nothing is touched). Never allocates. */
BK_API bk_status bk_merkle_branch(uint8_t *leaves, size_t n, size_t capacity, size_t index,
                                  uint8_t *branch_out, size_t branch_len, size_t *depth_out,
                                  uint8_t root_out[32], int *mutated_out) BK_WARN_UNUSED;

/* The root a branch proves for `leaf` at `index` (Core's
 * ComputeMerkleRootFromBranch): at level k the running hash h becomes
 * SHA256d(branch[k] || h) when bit k of index is 1, else SHA256d(h ||
 * branch[k]). Bits of index above depth are ignored, as in Core. root_out
 * may alias leaf. */
BK_API void bk_merkle_root_from_branch(const uint8_t leaf[32], const uint8_t *branch, size_t depth,
                                       uint64_t index, uint8_t root_out[32]);

/* 1 when the branch proves leaf at index under root, else 0. */
BK_API int bk_merkle_verify_branch(const uint8_t leaf[32], const uint8_t *branch, size_t depth,
                                   uint64_t index, const uint8_t root[32]);

/* ---- block level ---- */

/* BIP141 witness commitment check, as Core's CheckWitnessMalleation
 * (src/validation.cpp). */
typedef enum bk_witness_commitment {
    /* No coinbase output is a commitment (GetWitnessCommitmentIndex finds
     * none). Core then requires that no tx has witness data
     * ("unexpected-witness"): see bk_block_merkle_result.has_witness. */
    BK_WITNESS_COMMITMENT_ABSENT = 0,
    /* SHA256d(witness root || reserved value) equals the committed hash. */
    BK_WITNESS_COMMITMENT_OK,
    /* It does not ("bad-witness-merkle-match"). */
    BK_WITNESS_COMMITMENT_MISMATCH,
    /* A commitment exists but the coinbase input's witness is not exactly
     * one 32-byte item ("bad-witness-nonce-size"). */
    BK_WITNESS_COMMITMENT_BAD_NONCE,
} bk_witness_commitment;

/* Short name: "absent", "ok", "mismatch", "bad-nonce". Never NULL. */
BK_API const char *bk_witness_commitment_str(bk_witness_commitment c);

typedef struct bk_block_merkle_result {
    uint8_t merkle_root[32];          /* root of the txids */
    uint8_t witness_root[32];         /* root of the wtxids, the coinbase's taken as zero */
    int mutated;                      /* CVE-2012-2459 duplicate in the txid tree */
    int header_match;                 /* merkle_root equals the header's hashMerkleRoot */
    bk_witness_commitment witness_commitment;
    int64_t commitment_output;        /* coinbase output index of the commitment, -1 when absent */
    uint8_t commitment[32];           /* the committed hash (zero when absent) */
    int has_witness;                  /* some tx is serialized with witness data */
} bk_block_merkle_result;

/* Scratch bytes bk_block_merkle / bk_block_merkle_branch need for a block of
 * n_tx transactions: two trees of bk_merkle_capacity(n_tx) nodes (txids and
 * wtxids side by side, so both come from one hashing pass in which a
 * transaction without witness is hashed once). A real block of 5,000
 * transactions needs 320 KB; the bound for any block the parser accepts,
 * from its length, is bk_block_merkle_scratch_size(bk_block_max_txs(len)). */
static inline size_t bk_block_merkle_scratch_size(size_t n_tx) { return 2 * bk_merkle_capacity(n_tx) * 32; }

/* Compute the txid root (with the mutation flag), the witness root, the
 * witness commitment check and the header match of a parsed block, using the
 * caller's scratch (scratch_len >= bk_block_merkle_scratch_size(b->n_tx)).
 * Never allocates. Returns BK_OK (the result says whether the block's
 * commitments hold), BK_ERR_BUFFER when the scratch is too small, BK_ERR_ARG
 * for a block without transactions. */
BK_API bk_status bk_block_merkle(const bk_block *b, uint8_t *scratch, size_t scratch_len,
                                 bk_block_merkle_result *out, bk_error *err) BK_WARN_UNUSED;

/* Same, allocating the scratch through alloc (NULL = default) and freeing
 * it before returning: one allocation. BK_ERR_NOMEM when it fails. */
BK_API bk_status bk_block_merkle_alloc(const bk_block *b, const bk_allocator *alloc,
                                       bk_block_merkle_result *out, bk_error *err) BK_WARN_UNUSED;

/* The branch of transaction `index` in the txid tree (bk_merkle_branch over
 * the block's txids), using the caller's scratch as bk_block_merkle. */
BK_API bk_status bk_block_merkle_branch(const bk_block *b, size_t index, uint8_t *scratch,
                                        size_t scratch_len, uint8_t *branch_out, size_t branch_len,
                                        size_t *depth_out, bk_error *err) BK_WARN_UNUSED;

/* ---- partial merkle trees (CMerkleBlock, BIP37; gettxoutproof) ----
 *
 * Core: src/merkleblock.cpp CPartialMerkleTree. The tree over n_tx leaves
 * is walked depth first from the root (height h = bk_merkle_depth(n_tx));
 * each node visited adds one flag bit (1: some matched leaf below it);
 * a node with flag 0, or a leaf, adds its hash and is not descended; a
 * right child that does not exist (the odd end of a level) is not
 * visited. Subtree hashes are bk_merkle_root over the subtree's leaves,
 * paired with themselves up to the subtree's height (Core's CalcHash).
 * Serialized (a CMerkleBlock): the 80-byte header, u32 n_tx,
 * CompactSize hash count + hashes (32 bytes each, internal order),
 * CompactSize flag byte count + flag bytes (bit i in byte i / 8 at bit
 * position i % 8, least significant first). */

/* Core's limit on n_tx in ExtractMatches: MAX_BLOCK_WEIGHT /
 * MIN_TRANSACTION_WEIGHT. */
#define BK_MERKLE_PROOF_MAX_TX (4000000u / 240u)

/* A serialized CMerkleBlock, borrowed. */
typedef struct bk_merkle_proof {
    const uint8_t *header;     /* 80 bytes */
    uint32_t n_tx;
    const uint8_t *hashes;     /* n_hashes * 32 bytes */
    size_t n_hashes;
    const uint8_t *flags;      /* n_flag_bytes bytes: 8 * n_flag_bytes flag bits */
    size_t n_flag_bytes;
    size_t size;               /* bytes the CMerkleBlock spans */
} bk_merkle_proof;

/* Build the partial merkle tree of the leaves txids[0..n) (internal order)
 * for the leaves whose match[i] is non-zero, and append the whole
 * CMerkleBlock (header80 first) to out. Scratch (about 96 bytes per leaf)
 * comes from alloc (NULL = default) and is freed before returning.
 * BK_ERR_ARG (n == 0, NULL pointers), BK_ERR_NOMEM. */
BK_API bk_status bk_merkle_proof_build(const uint8_t header80[80], const uint8_t *txids, size_t n,
                                       const uint8_t *match, const bk_allocator *alloc, bk_writer *out,
                                       bk_error *err) BK_WARN_UNUSED;

/* Core's CMerkleBlock(block, txids): the proof of the block's
 * transactions whose txid is in want[0..n_want) (32 bytes each, internal
 * order, any order); *n_found_out (may be NULL) receives how many of the
 * block's transactions matched (Core's gettxoutproof refuses when that is
 * not the number of txids asked: "Not all transactions found in specified
 * or retrieved block"). */
BK_API bk_status bk_block_merkle_proof(const bk_block *b, const uint8_t *want, size_t n_want,
                                       const bk_allocator *alloc, bk_writer *out, size_t *n_found_out,
                                       bk_error *err) BK_WARN_UNUSED;

/* Parse a CMerkleBlock at the start of data as Core's deserializer reads
 * it: header, n_tx, then two vectors whose CompactSize counts must be
 * canonical and within MAX_SIZE, their bytes present. Bytes after it are
 * allowed (verifytxoutproof ignores them); proof->size says where it
 * ended. Errors, each with the byte offset: BK_ERR_TRUNCATED (naming what
 * the bytes end in), BK_ERR_NONCANONICAL, BK_ERR_SIZE. Never allocates. */
BK_API bk_status bk_merkle_proof_parse(const uint8_t *data, size_t len, bk_merkle_proof *proof_out,
                                       bk_error *err) BK_WARN_UNUSED;

/* Core's CPartialMerkleTree::ExtractMatches: walk the tree, collect the
 * matched leaves (hash and position, in block order) and compute the
 * root. Returns 1 with *root_out, or 0 when Core returns the zero hash:
 * n_tx 0 or over BK_MERKLE_PROOF_MAX_TX, more hashes than n_tx, fewer flag
 * bits than hashes, the walk running out of bits or hashes, a node whose
 * two children are equal (CVE-2012-2459), flag bytes or hashes left over;
 * *why_out (may be NULL) then names the reason. matches_out (32 bytes a
 * match) and index_out (may be NULL) must hold p->n_hashes entries (no
 * proof matches more leaves than it has hashes); *n_match_out receives
 * the count (also when 0 is returned: what Core's vMatch holds then). */
BK_API int bk_merkle_proof_extract(const bk_merkle_proof *p, uint8_t *matches_out, uint32_t *index_out,
                                   size_t *n_match_out, uint8_t root_out[32], const char **why_out);

#ifdef __cplusplus
}
#endif
#endif
