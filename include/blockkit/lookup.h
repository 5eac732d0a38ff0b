/* blockkit: answers bitcoin-cli would give, computed from a node's files
 * (a bk_chain built from Core's block index, blockkit/blockindex.h).
 *
 * getchaintips (Core: rpc/blockchain.cpp getchaintips): the tips are the
 * active tip plus every block off the active chain that no other block
 * off the active chain has as its parent; sorted by height, highest first
 * (Core's CompareBlocksByHeight; blocks of equal height Core orders by
 * their CBlockIndex addresses, which differ from one start of the node to
 * the next: blockkit keeps the chain's entry order, i.e. index order).
 * branchlen = height - the height of the last active ancestor. Status, in
 * Core's order of tests:
 *   active         on the active chain
 *   invalid        the block or an ancestor failed validation (Core marks
 *                  the descendants of a failed block BLOCK_FAILED_CHILD
 *                  when it loads the index; blockkit follows the parents)
 *   headers-only   the block or an ancestor never had its data (nTx 0:
 *                  Core's HaveNumChainTxs; a pruned block keeps its nTx)
 *   valid-fork     validity BLOCK_VALID_SCRIPTS: connected once
 *   valid-headers  validity BLOCK_VALID_TREE: never connected
 *   unknown        anything else */
#ifndef BLOCKKIT_LOOKUP_H
#define BLOCKKIT_LOOKUP_H

#include <blockkit/chain.h>
#include <blockkit/json.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bk_tip_status {
    BK_TIP_ACTIVE = 0,
    BK_TIP_INVALID,
    BK_TIP_HEADERS_ONLY,
    BK_TIP_VALID_FORK,
    BK_TIP_VALID_HEADERS,
    BK_TIP_UNKNOWN
} bk_tip_status;

/* "active", "invalid", "headers-only", "valid-fork", "valid-headers",
 * "unknown". Never NULL. */
BK_API const char *bk_tip_status_str(bk_tip_status s);

typedef struct bk_chaintip {
    uint32_t entry;          /* index into c->entries */
    int32_t height;
    int32_t branchlen;
    bk_tip_status status;
} bk_chaintip;

/* The tips of c in getchaintips' order into *tips_out (n_out of them;
 * memory from alloc, NULL = default; free with bk_free(alloc, *tips_out,
 * *n_out * sizeof **tips_out)). Entries that are not connected to a
 * genesis (height -1) are left out. Status needs Core's nStatus, so c
 * should come from the block index (c->from_index); from a header scan
 * every block off the active chain reads "unknown". BK_ERR_NOT_FOUND when
 * c has no tip; BK_ERR_NOMEM. */
BK_API bk_status bk_chain_tips(const bk_chain *c, const bk_allocator *alloc, bk_chaintip **tips_out,
                               size_t *n_out, bk_error *err) BK_WARN_UNUSED;

/* getchaintips' result: [{"height":..,"hash":..,"branchlen":..,"status":..},...]. */
BK_API bk_status bk_json_chain_tips(bk_json *j, const bk_chain *c, const bk_chaintip *tips, size_t n,
                                    bk_error *err) BK_WARN_UNUSED;

/* ---- lookups in a node's datadir ---- */

/* Core's RPC error codes the lookups answer with (rpc/protocol.h). */
#define BK_RPC_MISC_ERROR (-1)
#define BK_RPC_INVALID_ADDRESS_OR_KEY (-5)
#define BK_RPC_INVALID_PARAMETER (-8)

/* A node's datadir opened for lookups: the chain from its block index
 * (bk_chain_build_index: heights, status, undo positions as Core recorded
 * them; the tip is the chainstate's best block), its blocks directory,
 * and on demand its txindex and a snapshot of the block index (for the
 * headers of pruned blocks). Read-only; LevelDB directories only through
 * private snapshots, removed by bk_lookup_close. Not thread-safe. */
typedef struct bk_lookup bk_lookup;

/* datadir and blocksdir as Core's -datadir and -blocksdir: the index in
 * <datadir>/<net subdir>blocks/index, the chainstate (when present) in
 * <datadir>/<net subdir>chainstate, the txindex in
 * <datadir>/<net subdir>indexes/txindex, blk/rev files in
 * <blocksdir>/<net subdir>blocks (blocksdir NULL = datadir). opts may be
 * NULL (tmpdir for the snapshots, cancel flag). alloc NULL = default.
 * Errors as bk_chain_build_index_dirs and bk_blocksdir_open. */
BK_API bk_status bk_lookup_open(const char *datadir, const char *blocksdir, bk_network net,
                                const bk_chain_opts *opts, const bk_allocator *alloc, bk_lookup **l_out,
                                bk_error *err) BK_WARN_UNUSED;
BK_API void bk_lookup_close(bk_lookup *l);
BK_API const bk_chain *bk_lookup_chain(const bk_lookup *l);
/* The blk/rev files the chain points into (for bk_engine_run and the
 * engines over it), or NULL when the datadir has none. */
BK_API const bk_blocksdir *bk_lookup_blocksdir(const bk_lookup *l);

/* After a lookup function failed with the answer Core would give as an
 * RPC error: its code (BK_RPC_*; err->msg is then Core's message, byte for
 * byte). 0 when the failure is one Core would not report that way (an I/O
 * error, damaged files): err->msg says what. */
BK_API int bk_lookup_rpc_code(const bk_lookup *l);
/* A note about the last lookup that still succeeded the way Core does
 * (e.g. an undo record whose checksum fails: Core, and so blockkit, then
 * renders the block without fee and prevout), or NULL. */
BK_API const char *bk_lookup_warning(const bk_lookup *l);

/* A block named as bitcoin-cli users name it: 64 hex digits (a hash, as
 * Core's ParseHashV reads it for a parameter called param_name) or a
 * decimal height on the active chain (getblockhash). RPC errors: -8
 * "<param> must be of length 64 (not N, for 'X')", "<param> must be
 * hexadecimal string (not 'X')", "Block height out of range"; -5 "Block
 * not found". */
BK_API bk_status bk_lookup_resolve(bk_lookup *l, const char *arg, const char *param_name,
                                   const bk_chain_entry **e_out, bk_error *err) BK_WARN_UNUSED;

/* getblockheader <hash> <verbose>: the header object (Core field set for
 * o->core_version), or with verbose 0 the 80 bytes' hex as a JSON string.
 * Answers for every block of the index, pruned or headers-only included. */
BK_API bk_status bk_lookup_block_header(bk_lookup *l, const bk_chain_entry *e, int verbose,
                                        const bk_block_json_opts *o, bk_json *j, bk_error *err) BK_WARN_UNUSED;

/* getblock <hash> <o->verbosity>: 0 the block's hex as a JSON string,
 * 1..3 blockToJSON with the chain context and, at 2 and 3, the block's undo
 * data at the position the index records (none for a block never
 * connected). RPC errors -1 "Block not available (pruned data)" and "Block
 * not found on disk". */
BK_API bk_status bk_lookup_block(bk_lookup *l, const bk_chain_entry *e, const bk_block_json_opts *o, bk_json *j,
                                 bk_error *err) BK_WARN_UNUSED;

/* getrawtransaction <txid> <verbosity 0..2> through indexes/txindex (no
 * block hash argument): 0 the hex string; 1 TxToUniv with hex, then
 * blockhash, confirmations and (on the active chain) time and blocktime;
 * 2 with fee and prevout from the block's undo data. txid in internal
 * order. o may be NULL (signed_version from it; network and verbosity are
 * set here). RPC errors -5: "The genesis block coinbase is not considered
 * an ordinary transaction and cannot be retrieved", "No such mempool
 * transaction. Use -txindex or provide a block hash to enable blockchain
 * transaction queries. Use gettransaction for wallet transactions." (no
 * txindex, or a pruned node, which Core never runs with one), "No such
 * mempool or blockchain transaction. Use gettransaction for wallet
 * transactions.". j must be at its top level (the result is one value). */
BK_API bk_status bk_lookup_transaction(bk_lookup *l, const uint8_t txid[32], int verbosity,
                                       const bk_tx_json_opts *o, bk_json *j, bk_error *err) BK_WARN_UNUSED;

/* getrawtransaction <txid> <verbosity> <blockhash>: the transaction looked
 * for in block in_block (no txindex needed; NULL = through the txindex as
 * bk_lookup_transaction). The result starts with "in_active_chain". RPC
 * errors: the genesis coinbase as above; -1 "Block not available" (no
 * data: pruned or headers-only); -5 "No such transaction found in the
 * provided block. Use gettransaction for wallet transactions.". */
BK_API bk_status bk_lookup_transaction_in(bk_lookup *l, const uint8_t txid[32], const bk_chain_entry *in_block,
                                          int verbosity, const bk_tx_json_opts *o, bk_json *j,
                                          bk_error *err) BK_WARN_UNUSED;

/* gettxoutproof ["txid",...] ( "blockhash" ): the serialized CMerkleBlock
 * (blockkit/merkle.h, bk_block_merkle_proof) of the transactions
 * txids[0..n) (display hex, as the RPC takes them) appended to out as
 * bytes (the RPC prints them as hex). Core's order of checks and its
 * messages (rpc/txoutproof.cpp): -8 "Parameter 'txids' cannot be empty",
 * ParseHashV's "txid must be of length 64 (not N, for 'X')" / "txid must
 * be hexadecimal string (not 'X')", "Invalid parameter, duplicated txid:
 * X"; with blockhash (NULL: none) -5 "Block not found"; without it the
 * block is the height of the first txid (in Core's set order, the
 * internal bytes compared as memcmp) with an unspent output in the
 * chainstate, else through the txindex with the smallest txid: -5
 * "Transaction not yet in block" (no txindex, or not in it), -32603
 * "Transaction index corrupt"; then -1 "Block not available (pruned
 * data)" / "Block not available (not fully downloaded)", -32603 "Can't
 * read block from disk", -5 "Not all transactions found in specified or
 * retrieved block". The chainstate is read as last flushed to disk (the
 * node's in-memory cache is not visible). */
#define BK_RPC_INTERNAL_ERROR (-32603)
BK_API bk_status bk_lookup_txoutproof(bk_lookup *l, const char *const *txids, size_t n, const char *blockhash,
                                      bk_writer *out, bk_error *err) BK_WARN_UNUSED;

/* verifytxoutproof "proof" (hex, as the RPC takes it): the txids the proof
 * commits to, in block order, as a JSON array of display hex. Core's
 * answers: -8 "proof must be hexadecimal string (not 'X')"; a proof that
 * does not deserialize is an error naming the byte (bk_merkle_proof_parse;
 * Core throws its stream's message); a tree that does not reduce to the
 * header's merkle root gives [] (bk_lookup_warning says why); a header
 * whose block is not on the active chain (or has no transactions
 * recorded) -5 "Block not found in chain"; a transaction count other than
 * the block's gives []. Bytes after the CMerkleBlock are ignored, as Core
 * does. */
BK_API bk_status bk_lookup_verifytxoutproof(bk_lookup *l, const char *proof_hex, bk_json *j,
                                            bk_error *err) BK_WARN_UNUSED;

/* getchaintips. */
BK_API bk_status bk_lookup_chain_tips(bk_lookup *l, bk_json *j, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
