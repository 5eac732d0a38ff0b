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

#ifdef __cplusplus
}
#endif
#endif
