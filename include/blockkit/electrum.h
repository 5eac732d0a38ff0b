/* blockkit: an Electrum protocol 1.4 server over the address index.
 *
 * One epoll loop owns the sockets (plain TCP and, with OpenSSL, TLS); a
 * worker pool answers the requests. A connection's lines are answered one
 * at a time, in the order they arrived, so answers keep request order;
 * different connections are answered in parallel. Requests are
 * newline-delimited JSON-RPC 2.0, batches included.
 *
 * Every refusal is a JSON-RPC error whose message names the limit
 * (bk_electrum_limits' field name): a line over max_line (-32600, the
 * line is skipped), a batch over max_batch (-32600), a subscription past
 * max_subs, a history longer than max_history (-32000). A client with
 * max_pending lines queued is not read until they are answered. A client
 * whose unsent answers pass max_outbuf (it does not read) or that sends
 * nothing for idle_timeout_s is disconnected; connections past
 * max_clients are closed at accept.
 *
 * The library never prints or exits. */
#ifndef BLOCKKIT_ELECTRUM_H
#define BLOCKKIT_ELECTRUM_H

#include <blockkit/addrindex.h>
#include <blockkit/alloc.h>
#include <blockkit/network.h>
#include <blockkit/status.h>
#include <blockkit/stream.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_ELECTRUM_PROTOCOL "1.4"

typedef struct bk_electrum_limits {
    size_t max_line;            /* bytes in one request line (256 KiB) */
    uint32_t max_batch;         /* requests in one batch (1,000) */
    uint32_t max_subs;          /* scripthash subscriptions per client (10,000) */
    uint32_t max_pending;       /* lines queued per client before it is not read (100) */
    uint32_t idle_timeout_s;    /* seconds without a request (600) */
    size_t max_outbuf;          /* unsent answer bytes per client (8 MiB) */
    uint32_t max_history;       /* transactions in one history (100,000) */
    uint32_t max_clients;       /* connections (1,024) */
} bk_electrum_limits;

BK_API void bk_electrum_limits_init(bk_electrum_limits *l);

typedef struct bk_electrum_opts {
    bk_addrindex *ix;           /* a READ handle; NULL: the server.* methods only */
    const bk_blocksdir *blocks; /* the node's blk files (blockchain.transaction.get) */
    bk_network net;             /* addresses in verbose transactions */
    const char *listen;         /* "HOST:PORT" (NULL: 127.0.0.1:50001; port 0: any) */
    const char *tls_listen;     /* NULL: no TLS port */
    const char *tls_cert, *tls_key;   /* PEM files */
    const char *rpc_url;        /* node JSON-RPC "http://HOST:PORT[/]" or NULL */
    const char *rpc_auth;       /* "user:password" (the cookie file's text), never logged */
    const char *banner;         /* server.banner (NULL: a default) */
    int workers;                /* 0: 2 */
    int loops;                  /* event-loop threads (0: 1) */
    unsigned poll_ms;           /* tip poll period (0: 1000) */
    bk_electrum_limits limits;
    const volatile sig_atomic_t *stop;  /* non-zero: drain, close every connection, return BK_OK */
    /* Called once when listening, with the bound ports (TLS 0 when none). */
    void (*ready)(void *ctx, int tcp_port, int tls_port);
    void *ready_ctx;
    const bk_allocator *alloc;
} bk_electrum_opts;

BK_API void bk_electrum_opts_init(bk_electrum_opts *o);

/* Serve until *o->stop. BK_ERR_IO (address in use, bad certificate) names
 * what failed. */
BK_API bk_status bk_electrum_serve(const bk_electrum_opts *o, bk_error *err) BK_WARN_UNUSED;

/* The dispatcher without sockets: a session holds one client's state
 * (negotiated version, subscriptions). bk_electrum_session_line answers
 * one request line (single or batch; no newline) into out, newline
 * included; a line of notifications only writes nothing. */
typedef struct bk_electrum_session bk_electrum_session;
BK_API bk_status bk_electrum_session_new(const bk_electrum_opts *o, bk_electrum_session **s_out,
                                         bk_error *err) BK_WARN_UNUSED;
BK_API bk_status bk_electrum_session_line(bk_electrum_session *s, const char *line, size_t len, bk_writer *out,
                                          bk_error *err) BK_WARN_UNUSED;
BK_API void bk_electrum_session_free(bk_electrum_session *s);

#ifdef __cplusplus
}
#endif

#endif
