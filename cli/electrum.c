/* blockkit electrum: an Electrum protocol 1.4 server over the address index
 * (the library's bk_electrum_serve; docs/electrum.md). */
#include "cli.h"
#include "opt.h"
#include "source.h"

#include <blockkit/electrum.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char electrum_intro[] =
    "Serve Electrum clients (Sparrow, Electrum, BlueWallet) from blockkit's address\n"
    "index: newline-delimited JSON-RPC 2.0 over TCP (default 127.0.0.1:50001) and,\n"
    "with --tls-listen, over TLS. The index directory is opened read-only (a private\n"
    "snapshot) and followed: a new tip, written by `blockkit index update --follow`,\n"
    "is pushed to subscribers within --poll-ms. Fee estimates, the relay fee and\n"
    "broadcasts go to the node's JSON-RPC when --rpc-url is given (credentials from\n"
    "Core's cookie file or a password file, never the command line).\n"
    "Without --index only the server.* methods answer (the others: a JSON-RPC error).\n"
    "SIGINT/SIGTERM: stop accepting, answer what was asked, close every connection.\n";

static const char electrum_outro[] =
    "Limits (each refusal is a JSON-RPC error naming it): see docs/electrum.md.\n"
    "Exit status: 128+N after signal N (143 for SIGTERM), 64 usage, 66 no index,\n"
    "74 cannot listen or read the TLS/cookie files, 70 software.\n";

/* The first line of a small secret file, without its newline. */
static int read_secret(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return bk_cli_fail("electrum", BK_EXIT_IO, "cannot open %s", path);
    if (!fgets(out, (int)cap, f)) out[0] = 0;
    fclose(f);
    out[strcspn(out, "\r\n")] = 0;
    if (!out[0]) return bk_cli_fail("electrum", BK_EXIT_DATA, "%s is empty", path);
    return 0;
}

static void on_ready(void *ctx, int tcp_port, int tls_port)
{
    (void)ctx;
    if (tls_port)
        fprintf(stderr, "electrum: listening on TCP port %d and TLS port %d\n", tcp_port, tls_port);
    else
        fprintf(stderr, "electrum: listening on TCP port %d\n", tcp_port);
}

static int electrum_main(int argc, char **argv)
{
    bk_cli_source src;
    bk_cli_source_init(&src);
    bk_electrum_opts o;
    bk_electrum_opts_init(&o);
    const char *index = NULL, *listen = "127.0.0.1:50001", *tls_listen = NULL, *tls_cert = NULL, *tls_key = NULL;
    const char *rpc_url = NULL, *rpc_cookie = NULL, *rpc_user = NULL, *rpc_pw_file = NULL, *banner = NULL;
    int max_clients = (int)o.limits.max_clients, workers = 2, loops = 1, poll_ms = 1000;
    int idle = (int)o.limits.idle_timeout_s, max_pending = (int)o.limits.max_pending;
    int max_batch = (int)o.limits.max_batch, max_subs = (int)o.limits.max_subs;
    int max_history = (int)o.limits.max_history;
    int64_t max_line = (int64_t)o.limits.max_line, max_outbuf = (int64_t)o.limits.max_outbuf;
    bk_opt opts[] = {
        BK_OPT_ROW_STR("--index", 0, &index, "DIR", "the address index (blockkit index build --out DIR)"),
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_ROW_STR("--listen", 0, &listen, "ADDR:PORT", "TCP address (default 127.0.0.1:50001; port 0: any)"),
        BK_OPT_ROW_STR("--tls-listen", 0, &tls_listen, "ADDR:PORT", "also serve TLS there (needs --tls-cert, --tls-key)"),
        BK_OPT_ROW_STR("--tls-cert", 0, &tls_cert, "FILE", "PEM certificate (chain) for the TLS port"),
        BK_OPT_ROW_STR("--tls-key", 0, &tls_key, "FILE", "PEM private key for the TLS port"),
        BK_OPT_ROW_STR("--rpc-url", 0, &rpc_url, "URL", "the node's JSON-RPC, http://HOST:PORT"),
        BK_OPT_ROW_STR("--rpc-cookie", 0, &rpc_cookie, "FILE", "Core's .cookie file (user:password)"),
        BK_OPT_ROW_STR("--rpc-user", 0, &rpc_user, "USER", "RPC user (with --rpc-password-file)"),
        BK_OPT_ROW_STR("--rpc-password-file", 0, &rpc_pw_file, "FILE", "a file whose first line is the RPC password"),
        BK_OPT_ROW_STR("--banner", 0, &banner, "TEXT", "server.banner's text"),
        BK_OPT_ROW_INT("--max-clients", 0, &max_clients, 1, 1000000, "N", "connections held (default 1024)"),
        BK_OPT_ROW_INT("--workers", 'j', &workers, 1, 256, "N", "query threads (default 2)"),
        BK_OPT_ROW_INT("--loops", 0, &loops, 1, 64, "N", "event-loop threads holding the connections (default 1)"),
        BK_OPT_ROW_INT("--poll-ms", 0, &poll_ms, 10, 3600000, "MS", "how often the index's tip is checked (default 1000)"),
        BK_OPT_ROW_INT("--idle-timeout", 0, &idle, 1, 86400 * 7, "S", "close a client silent this long (default 600)"),
        BK_OPT_ROW_I64("--max-line", 0, &max_line, 64, 64 << 20, "BYTES", "request line size (default 262144)"),
        BK_OPT_ROW_INT("--max-batch", 0, &max_batch, 1, 1000000, "N", "requests in a batch (default 1000)"),
        BK_OPT_ROW_INT("--max-subs", 0, &max_subs, 0, 100000000, "N", "scripthash subscriptions per client (default 10000)"),
        BK_OPT_ROW_INT("--max-pending", 0, &max_pending, 1, 1000000, "N", "lines queued per client (default 100)"),
        BK_OPT_ROW_I64("--max-outbuf", 0, &max_outbuf, 4096, (int64_t)1 << 34, "BYTES",
                       "unsent answers before a client is cut off (default 8 MiB)"),
        BK_OPT_ROW_INT("--max-history", 0, &max_history, 1, 100000000, "N", "transactions in one history (default 100000)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {"electrum", NULL, electrum_intro, electrum_outro, opts, 0};
    bk_opt_args args;
    int rc = bk_opt_parse(&spec, argc, argv, &args);
    if (rc != BK_OPT_CONTINUE) return rc;
    bk_opt_args_free(&args);

    if (tls_listen && (!tls_cert || !tls_key))
        return bk_cli_fail("electrum", BK_EXIT_USAGE, "--tls-listen needs --tls-cert FILE and --tls-key FILE");
    if (rpc_cookie && (rpc_user || rpc_pw_file))
        return bk_cli_fail("electrum", BK_EXIT_USAGE, "--rpc-cookie or --rpc-user with --rpc-password-file, not both");
    if (!!rpc_user != !!rpc_pw_file)
        return bk_cli_fail("electrum", BK_EXIT_USAGE, "--rpc-user and --rpc-password-file go together");
    if ((rpc_cookie || rpc_user) && !rpc_url)
        return bk_cli_fail("electrum", BK_EXIT_USAGE, "RPC credentials without --rpc-url");

    char auth[1024] = "";
    if (rpc_cookie && (rc = read_secret(rpc_cookie, auth, sizeof auth))) return rc;
    if (rpc_user) {
        char pw[512];
        if ((rc = read_secret(rpc_pw_file, pw, sizeof pw))) return rc;
        snprintf(auth, sizeof auth, "%s:%s", rpc_user, pw);
        memset(pw, 0, sizeof pw);
    }

    bk_addrindex *ix = NULL;
    bk_blocksdir blocks;
    int have_blocks = 0;
    if (index) {
        if ((rc = bk_cli_source_resolve("electrum", &src, BK_CLI_NEED_BLOCKS))) return rc;
        bk_addrindex_opts io;
        bk_addrindex_opts_init(&io);
        io.net = src.net;
        io.node_datadir = src.datadir;
        io.tmpdir = src.tmpdir;
        bk_error err;
        if (bk_blocksdir_open(&blocks, src.blocksdir, src.net, NULL, &err) != BK_OK) {
            bk_cli_source_free(&src);
            return bk_cli_report("electrum", &err);
        }
        have_blocks = 1;
        if (bk_addrindex_open(&ix, index, BK_ADDRINDEX_READ, &io, &err) != BK_OK) {
            bk_blocksdir_close(&blocks);
            bk_cli_source_free(&src);
            return bk_cli_report("electrum", &err);
        }
    }

    o.ix = ix;
    o.blocks = have_blocks ? &blocks : NULL;
    o.net = src.net;
    o.listen = listen;
    o.tls_listen = tls_listen;
    o.tls_cert = tls_cert;
    o.tls_key = tls_key;
    o.rpc_url = rpc_url;
    o.rpc_auth = rpc_url ? auth : NULL;
    o.banner = banner;
    o.workers = workers;
    o.loops = loops;
    o.poll_ms = (unsigned)poll_ms;
    o.limits.max_clients = (uint32_t)max_clients;
    o.limits.idle_timeout_s = (uint32_t)idle;
    o.limits.max_line = (size_t)max_line;
    o.limits.max_batch = (uint32_t)max_batch;
    o.limits.max_subs = (uint32_t)max_subs;
    o.limits.max_pending = (uint32_t)max_pending;
    o.limits.max_outbuf = (size_t)max_outbuf;
    o.limits.max_history = (uint32_t)max_history;
    o.stop = &bk_cli_stop;
    o.ready = on_ready;

    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    bk_error err;
    bk_status st = bk_electrum_serve(&o, &err);
    bk_cli_stop_signals_restore(&saved);
    memset(auth, 0, sizeof auth);
    if (ix) bk_addrindex_close(ix);
    if (have_blocks) bk_blocksdir_close(&blocks);
    bk_cli_source_free(&src);
    if (st != BK_OK) return bk_cli_report("electrum", &err);
    if (bk_cli_stop) {
        fprintf(stderr, "electrum: stopped by signal %d, every connection closed\n", (int)bk_cli_stop);
        return 128 + bk_cli_stop;
    }
    return BK_EXIT_OK;
}

BK_CLI_COMMAND(cli_electrum, "electrum", "--index DIR --datadir DIR [--listen ADDR:PORT] [--tls-listen ...]",
               "Electrum protocol server over the address index", electrum_main)
