/* The Electrum server's internals shared by its dispatcher, loop and node
 * RPC client. */
#ifndef BK_SERVER_ELECTRUM_INTERNAL_H
#define BK_SERVER_ELECTRUM_INTERNAL_H

#include "answer_cache.h"  /* beside this header: the fuzz targets include it by path */
#include "mempool.h"

#include <blockkit/electrum.h>

#include <pthread.h>


/* What every session of one server shares: the options and the chain's
 * header hashes (for cp_height proofs), refreshed when the tip moves, and
 * the rendered answers of the current tip. */
typedef struct bk_electrum_shared {
    bk_electrum_opts o;
    const bk_allocator *alloc;
    pthread_rwlock_t lock;      /* hashes, tip */
    uint8_t (*hashes)[32];
    size_t hashes_cap;
    int32_t tip;                /* -1: no index or empty */
    int32_t base;               /* the index's first header: 0, or the first block of a
                                 * blocks directory without the genesis block */
    uint8_t genesis[32];        /* the genesis block's hash, when has_genesis */
    int has_genesis;            /* base 0 (its header) or 1 (the first header's parent) */
    bk_answer_cache answers;    /* rendered scripthash answers of this tip */
    bk_mempool_poller *poller;  /* with an index and --rpc-url: the node's mempool */
    bk_mempool *mempool;        /* its last snapshot (under lock) */
} bk_electrum_shared;

bk_status bk_electrum_shared_init(bk_electrum_shared *sh, const bk_electrum_opts *o, bk_error *err);
/* Refresh the index snapshot and the hashes; *changed_out = 1 when the tip moved. */
bk_status bk_electrum_shared_refresh(bk_electrum_shared *sh, int *changed_out, bk_error *err);
void bk_electrum_shared_free(bk_electrum_shared *sh);
/* Poll the node's mempool (sh->poller); *changed_out = 1 when the snapshot
 * changed (the kept answers then go). */
bk_status bk_electrum_shared_mempool_poll(bk_electrum_shared *sh, int *changed_out, bk_error *err);

bk_status bk_electrum_session_new_shared(bk_electrum_shared *sh, bk_electrum_session **s_out, bk_error *err);
/* The event loop's own answer to line, appended to out, when it needs no
 * index read (server.ping and the like; a scripthash's history, balance or
 * coins while its view is in the index's cache): 1, or 0 (out untouched)
 * when a worker must answer it. A batch, a malformed line or any other
 * method: 0. */
int bk_electrum_session_fast(bk_electrum_session *s, const char *line, size_t len, bk_writer *out);
/* Notifications owed after a tip change (headers, changed statuses) into out. */
bk_status bk_electrum_session_notify(bk_electrum_session *s, bk_writer *out, bk_error *err);

/* One call to the node's JSON-RPC: method with params (JSON text, an
 * array); the reply's "result" as JSON text in *result_out (freed with
 * free()). A node error: BK_ERR_INVALID with the node's message. */
bk_status bk_node_rpc_call(const char *url, const char *auth, const char *method, const char *params,
                           char **result_out, size_t *len_out, bk_error *err);

#endif
