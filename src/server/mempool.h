/* The node's mempool for the Electrum server (internal): polled through
 * its JSON-RPC (getrawmempool, getrawtransaction), each transaction's
 * outputs and the outputs it spends (from a mempool parent or, through
 * the address index, the node's blk files) kept by scripthash. A poll
 * builds a new immutable snapshot; the server swaps it in under its lock.
 *
 * Electrum's rules (protocol 1.4, electrumx's protocol documentation):
 * a mempool transaction of a script has height 0 when every input it
 * spends is confirmed, -1 when one is another mempool transaction's
 * output, and its fee in satoshis; get_history appends them to the
 * confirmed history; get_balance's "unconfirmed" is what they pay the
 * script minus what they spend of its coins; listunspent drops the coins
 * they spend and adds their unspent outputs with height 0. Here the
 * mempool rows come in one order everywhere: height 0 before -1, then by
 * txid (internal byte order), so the status hash and get_history agree. */
#ifndef BK_SERVER_MEMPOOL_H
#define BK_SERVER_MEMPOOL_H

#include <blockkit/addrindex.h>
#include <blockkit/blockfile.h>

#include <stddef.h>
#include <stdint.h>

typedef struct bk_mempool_tx {
    uint8_t txid[32];           /* internal byte order */
    int64_t fee;                /* satoshis */
    int height;                 /* 0 or -1 */
    uint32_t vsize;             /* virtual size: (weight + 3) / 4 */
} bk_mempool_tx;

typedef struct bk_mempool bk_mempool;                 /* a snapshot */
typedef struct bk_mempool_poller bk_mempool_poller;   /* the decoded transactions across polls */

bk_status bk_mempool_poller_new(bk_mempool_poller **p_out, const char *rpc_url, const char *rpc_auth,
                                bk_addrindex *ix, const bk_blocksdir *blocks, bk_error *err);
void bk_mempool_poller_free(bk_mempool_poller *p);
/* The node call the poller makes (bk_node_rpc_call's contract: the
 * reply's result text, BK_ERR_INVALID for the node's refusal); by default
 * bk_node_rpc_call with the poller's URL and auth. The fuzz target's seam. */
typedef bk_status (*bk_mempool_call_fn)(void *ctx, const char *method, const char *params, char **result_out,
                                        size_t *len_out, bk_error *err);
void bk_mempool_poller_set_call(bk_mempool_poller *p, bk_mempool_call_fn fn, void *ctx);
/* How a confirmed output is found: 1 with its scripthash and value, 0 not
 * (yet), -1 an error in err. By default through the index's tx_raw. */
typedef int (*bk_mempool_lookup_fn)(void *ctx, const uint8_t txid[32], uint32_t vout, uint8_t sh_out[32],
                                    int64_t *value_out, bk_error *err);
void bk_mempool_poller_set_lookup(bk_mempool_poller *p, bk_mempool_lookup_fn fn, void *ctx);
/* The scripthash of the snapshot's i-th output row: 1, or 0 past the last. */
int bk_mempool_output_sh(const bk_mempool *m, size_t i, uint8_t sh_out[32]);
/* Ask the node for its mempool; a snapshot of it in *snap_out when it
 * differs from the last one returned (NULL when the same). Transactions
 * whose spent outputs cannot be found yet (the index behind the node, a
 * parent that arrived after the list) wait for a later poll. */
bk_status bk_mempool_poll(bk_mempool_poller *p, bk_mempool **snap_out, bk_error *err);
void bk_mempool_free(bk_mempool *m);

/* The mempool transactions paying or spending sh, in the one order (a
 * malloc'd array, free()). 0, or -1 out of memory. */
int bk_mempool_history(const bk_mempool *m, const uint8_t sh[32], bk_mempool_tx **txs_out, size_t *n_out);
/* What the mempool pays sh minus what it spends of sh's coins. */
int64_t bk_mempool_delta(const bk_mempool *m, const uint8_t sh[32]);
/* Whether a mempool transaction spends the output (txid, vout) of sh. */
int bk_mempool_spends(const bk_mempool *m, const uint8_t sh[32], const uint8_t txid[32], uint32_t vout);
/* sh's mempool outputs no mempool transaction spends (height 0, pos 0), in
 * the one order then by vout (malloc'd, free()). 0, or -1 out of memory. */
int bk_mempool_coins(const bk_mempool *m, const uint8_t sh[32], bk_addr_coin **coins_out, size_t *n_out);
size_t bk_mempool_size(const bk_mempool *m);
/* mempool.get_fee_histogram's [fee rate, vsize] pairs (owned by the
 * snapshot; 0 pairs for NULL). The protocol leaves the intervals to the
 * server; here, as electrumx documents its own: the transactions by fee
 * rate (fee / vsize), highest first, summed into tranches of more than
 * 100,000 vB, each tranche's bound 10% above the last one's; a pair is the
 * lowest rate of its tranche (sat/vB, rounded down) and the tranche's
 * vsize, and the last tranche is given even when under its bound, so the
 * pairs add up to the whole mempool's vsize. */
size_t bk_mempool_fee_histogram(const bk_mempool *m, const uint64_t (**pairs_out)[2]);

#endif
