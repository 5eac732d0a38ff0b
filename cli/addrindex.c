/* blockkit index / blockkit address: the address index (blockkit/addrindex.h,
 * docs/index.md): build and update it from a node's files, and ask it
 * what Electrum clients ask. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "opt.h"
#include "source.h"

#include <blockkit/addrindex.h>
#include <blockkit/hex.h>
#include <blockkit/json.h>
#include <blockkit/script.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char index_intro[] =
    "Build blockkit's address index in DIR (a LevelDB of its own, never inside the\n"
    "node's datadir) from the node's blk/rev files, or bring it to the node's tip:\n"
    "blocks a reorganisation removed are undone from their undo data, new ones\n"
    "applied, each batch atomically with the index's tip, so a killed build or\n"
    "update continues where it stopped. build and update are the same pass;\n"
    "--follow keeps updating every --interval seconds until a signal.\n"
    "Prints {\"height\":H,\"hash\":\"..\",\"applied\":N,\"undone\":M} when done.\n";

static const char index_outro[] =
    "SIGINT, SIGTERM and SIGHUP stop after the current batch (the index stays\n"
    "whole) and end with status 128 + the signal number.\n"
    "Exit status: 0 ok, 64 usage (an index directory inside the datadir), 65 a\n"
    "damaged or foreign index, another network's, 66 no such datadir, 74 I/O,\n"
    "75 another writer has the index open, 128+N signal N.\n";

static void print_tip(bk_addrindex *ix, int64_t applied, int64_t undone)
{
    int64_t h;
    uint8_t hash[32];
    bk_error err;
    if (bk_addrindex_tip(ix, &h, hash, &err) != BK_OK) return;
    char hex[65];
    printf("{\"height\":%lld,\"hash\":\"%s\",\"applied\":%lld,\"undone\":%lld}\n", (long long)h,
           bk_hash_to_hex(hex, hash), (long long)applied, (long long)undone);
}

static void on_progress(void *ctx, int64_t height, int64_t tip)
{
    (void)ctx;
    fprintf(stderr, "blockkit: index: height %lld of %lld\n", (long long)height, (long long)tip);
}

static int index_main(int argc, char **argv)
{
    const char *cmd = "index";
    if (argc >= 2 && (!strcmp(argv[1], "build") || !strcmp(argv[1], "update"))) {
        cmd = !strcmp(argv[1], "build") ? "index build" : "index update";
        argc--;
        argv++;
    } else if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h") && strcmp(argv[1], "--usage")) {
        return bk_cli_fail("index", BK_EXIT_USAGE, "unknown subcommand '%s' (build, update; see --help)", argv[1]);
    }
    bk_cli_source src;
    bk_cli_source_init(&src);
    const char *dir = NULL;
    int jobs = 1, follow = 0, interval = 5, mem = 256, progress = BK_PROGRESS_AUTO;
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_SOURCE_INDEX(&src),
        BK_OPT_ROW_STR("--index", 0, &dir, "DIR", "the address index's directory (made when absent)"),
        BK_OPT_JOBS(&jobs, "block workers (default 1)"),
        BK_OPT_ROW_INT("--mem", 0, &mem, 1, 1 << 20, "MB",
                       "rows sorted in memory before a run is spilled to --tmpdir (default 256)"),
        BK_OPT_PROGRESS(&progress),
        BK_OPT_ROW_FLAG("--follow", 0, &follow, "keep following the node's tip until a signal"),
        BK_OPT_ROW_INT("--interval", 0, &interval, 1, 3600, "S", "--follow: seconds between updates (default 5)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, index_intro, index_outro, opts, 0};
    bk_opt_args args;
    int rc = bk_opt_parse(&spec, argc, argv, &args);
    if (rc != BK_OPT_CONTINUE) return rc;
    rc = 0;
    if (!strcmp(cmd, "index")) rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give a subcommand: build or update");
    else if (!dir) rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give --index DIR");
    if (!rc) rc = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_BLOCKS);
    bk_addrindex *ix = NULL;
    bk_blocksdir bd;
    int bd_open = 0;
    bk_error err;
    bk_error_clear(&err);
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    if (!rc) {
        bk_addrindex_opts o;
        bk_addrindex_opts_init(&o);
        o.net = src.net;
        o.node_datadir = src.datadir;
        o.workers = jobs;
        o.mem_bytes = (size_t)mem << 20;
        o.tmpdir = src.tmpdir;
        o.cancel = &bk_cli_stop;
        if (bk_cli_progress_on(progress)) o.progress = on_progress;
        /* a directory inside the node's blocks directory is refused too */
        if (!src.datadir && src.blocksdir) o.node_datadir = src.blocksdir;
        bk_status st = bk_addrindex_open(&ix, dir, BK_ADDRINDEX_WRITE, &o, &err);
        if (st != BK_OK) rc = bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
    }
    if (!rc) {
        if (bk_blocksdir_open(&bd, src.blocksdir, src.net, NULL, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
        else bd_open = 1;
    }
    int64_t applied = 0, undone = 0;
    for (int first = 1; !rc; first = 0) {
        bk_chain chain;
        rc = bk_cli_source_build(cmd, &src, src.net, &bk_cli_stop, !first, &chain);
        if (rc) break;
        int64_t a = 0, u = 0;
        bk_status st = bk_addrindex_sync(ix, &chain, &bd, &a, &u, &err);
        bk_chain_free(&chain);
        applied += a;
        undone += u;
        if (st == BK_ERR_CANCELLED || bk_cli_stop) {
            fprintf(stderr, "blockkit: %s: stopped by a signal; the index is whole, run again to continue\n", cmd);
            print_tip(ix, applied, undone);
            rc = 128 + (int)bk_cli_stop;
            break;
        }
        if (st != BK_OK) {
            rc = bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
            break;
        }
        if (!follow) {
            print_tip(ix, applied, undone);
            rc = bk_cli_output_flush(cmd, stdout, NULL);
            break;
        }
        if (a || u || first) {
            print_tip(ix, a, u);
            fflush(stdout);
        }
        for (int s = 0; s < interval * 10 && !bk_cli_stop; s++) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (bk_cli_stop) {
            rc = 128 + (int)bk_cli_stop;
            break;
        }
    }
    bk_cli_stop_signals_restore(&saved);
    if (bd_open) bk_blocksdir_close(&bd);
    bk_addrindex_close(ix);
    bk_opt_args_free(&args);
    bk_cli_source_free(&src);
    return rc;
}

BK_CLI_COMMAND(index_command, "index", "build|update --datadir DIR --index DIR [-j N] [--mem MB] [--follow]",
               "blockkit's address index from a node's files: build, update, follow the tip", index_main)

/* ---- address ------------------------------------------------------------ */

static const char address_intro[] =
    "Ask the address index (blockkit index build) what Electrum clients ask of a\n"
    "script, given as ADDRESS arguments, --scripthash HEX (Electrum's: the\n"
    "SHA-256 of the script, byte-reversed), --script HEX, or --scripthashes FILE|-\n"
    "(one scripthash a line). One line per script, in the order given, in the\n"
    "Electrum protocol's shape:\n"
    "  history  [{\"tx_hash\":..,\"height\":..},...] (blockchain.scripthash.get_history)\n"
    "  balance  {\"confirmed\":N,\"unconfirmed\":0}       (get_balance)\n"
    "  utxos    [{\"tx_hash\",\"tx_pos\",\"height\",\"value\"},...] (listunspent)\n"
    "  status   \"hex\" or null                        (subscribe)\n"
    "  merkle   TXID...: {\"block_height\",\"merkle\",\"pos\"} (transaction.get_merkle)\n"
    "Confirmed transactions only: the index has no mempool. Every answer reads\n"
    "its transactions from the node's blk files: those of --datadir/--blocksdir\n"
    "when given, else the blocks directory the index was built from.\n";

static const char address_outro[] =
    "Exit status: 0 ok, 64 usage (a bad address, scripthash or script), 65 a\n"
    "damaged or foreign index, a history over --limit, 66 no index, or a txid not\n"
    "on the index's chain, 74 I/O.\n";

enum { Q_HISTORY, Q_BALANCE, Q_UTXOS, Q_STATUS, Q_MERKLE };

static int hex_arg(const char *cmd, const char *what, const char *hex, uint8_t *out, size_t n, int rev)
{
    bk_error err;
    if (strlen(hex) != 2 * n) return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad %s '%s': want %zu hex digits", what, hex, 2 * n);
    if ((rev ? bk_hex_decode_rev(out, hex, n, &err) : bk_hex_decode(out, hex, n, &err)) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad %s '%s': %s", what, hex, err.msg);
    return 0;
}

static int query_one(const char *cmd, bk_addrindex *ix, int q, const uint8_t key[32], size_t limit, bk_writer *w)
{
    bk_error err;
    bk_status st = BK_OK;
    char hex[65];
    if (q == Q_MERKLE) {
        int64_t h;
        uint32_t pos;
        uint8_t txid[32], branch[32][32];
        size_t n = 0;
        st = bk_addrindex_tx_locate(ix, key, &h, &pos, &err);
        if (st == BK_OK) st = bk_addrindex_merkle(ix, h, pos, txid, branch, &n, &err);
        if (st != BK_OK) return bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
        char line[96];
        snprintf(line, sizeof line, "{\"block_height\":%lld,\"merkle\":[", (long long)h);
        bk_writer_puts(w, line);
        for (size_t i = 0; i < n; i++) {
            bk_writer_puts(w, i ? ",\"" : "\"");
            bk_writer_put_hex_rev(w, branch[i], 32);
            bk_writer_putc(w, '"');
        }
        snprintf(line, sizeof line, "],\"pos\":%u}\n", pos);
        bk_writer_puts(w, line);
        return 0;
    }
    if (q == Q_HISTORY || q == Q_STATUS) {
        bk_addr_tx *txs = NULL;
        size_t n = 0;
        st = bk_addrindex_history(ix, key, limit, &txs, &n, &err);
        if (st != BK_OK) return bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
        if (q == Q_STATUS) {
            uint8_t s[32];
            int has;
            bk_addrindex_status_of(txs, n, s, &has);
            if (has) {
                bk_writer_putc(w, '"');
                bk_writer_put_hex(w, s, 32);
                bk_writer_puts(w, "\"\n");
            } else {
                bk_writer_puts(w, "null\n");
            }
        } else {
            bk_writer_putc(w, '[');
            for (size_t i = 0; i < n; i++) {
                char line[160];
                bk_hex_encode_rev(hex, txs[i].txid, 32);
                hex[64] = 0;
                snprintf(line, sizeof line, "%s{\"tx_hash\":\"%s\",\"height\":%lld}", i ? "," : "", hex,
                         (long long)txs[i].height);
                bk_writer_puts(w, line);
            }
            bk_writer_puts(w, "]\n");
        }
        bk_addrindex_free(ix, txs);
        return 0;
    }
    bk_addr_coin *c = NULL;
    size_t n = 0;
    st = bk_addrindex_utxos(ix, key, limit, &c, &n, &err);
    if (st != BK_OK) return bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
    char line[200];
    if (q == Q_BALANCE) {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) sum += c[i].value;
        snprintf(line, sizeof line, "{\"confirmed\":%llu,\"unconfirmed\":0}\n", (unsigned long long)sum);
        bk_writer_puts(w, line);
    } else {
        bk_writer_putc(w, '[');
        for (size_t i = 0; i < n; i++) {
            bk_hex_encode_rev(hex, c[i].txid, 32);
            hex[64] = 0;
            snprintf(line, sizeof line, "%s{\"tx_hash\":\"%s\",\"tx_pos\":%u,\"height\":%lld,\"value\":%llu}",
                     i ? "," : "", hex, c[i].vout, (long long)c[i].height, (unsigned long long)c[i].value);
            bk_writer_puts(w, line);
        }
        bk_writer_puts(w, "]\n");
    }
    bk_addrindex_free(ix, c);
    return 0;
}

/* Each line of FILE (or stdin) as a scripthash (or, for merkle, a txid). */
static int query_file(const char *cmd, bk_addrindex *ix, int q, const char *path, size_t limit, bk_writer *w)
{
    bk_cli_input in;
    int rc = bk_cli_read_input_max(cmd, path, (size_t)1 << 30, "one hex hash a line", &in);
    if (rc) return rc;
    const char *p = (const char *)in.data, *end = p + in.len;
    size_t line = 0;
    while (!rc && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line++;
        if (len && p[len - 1] == '\r') len--;
        if (len) {
            char hex[65];
            uint8_t key[32];
            bk_error err;
            if (len != 64 || (memcpy(hex, p, 64), hex[64] = 0, bk_hex_decode_rev(key, hex, 32, &err) != BK_OK))
                rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "%s line %zu: not a 64-digit hex hash",
                                 strcmp(path, "-") ? path : "standard input", line);
            else rc = query_one(cmd, ix, q, key, limit, w);
        }
        p = nl ? nl + 1 : end;
    }
    bk_cli_input_free(&in);
    return rc;
}

static int address_main(int argc, char **argv)
{
    static const char *const names[] = {"history", "balance", "utxos", "status", "merkle"};
    int q = -1;
    char cmdbuf[32] = "address";
    if (argc >= 2)
        for (int i = 0; i < 5; i++)
            if (!strcmp(argv[1], names[i])) q = i;
    if (q >= 0) {
        snprintf(cmdbuf, sizeof cmdbuf, "address %s", names[q]);
        argc--;
        argv++;
    } else if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h") && strcmp(argv[1], "--usage")) {
        return bk_cli_fail("address", BK_EXIT_USAGE,
                           "unknown subcommand '%s' (history, balance, utxos, status, merkle; see --help)", argv[1]);
    }
    const char *cmd = cmdbuf;
    bk_cli_source src;
    bk_cli_source_init(&src);
    const char *dir = NULL, *file = NULL;
    int64_t limit = 0;
    bk_opt_list shs = {0}, scripts = {0};
    bk_opt opts[] = {
        BK_OPT_ROW_STR("--index", 0, &dir, "DIR", "the address index (blockkit index build)"),
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_ROW_LIST("--scripthash", 0, &shs, "HEX", "a script by its Electrum scripthash (repeatable)"),
        BK_OPT_ROW_LIST("--script", 0, &scripts, "HEX", "a scriptPubKey in hex (repeatable)"),
        BK_OPT_ROW_STR("--scripthashes", 0, &file, "FILE|-", "scripthashes (merkle: txids), one a line"),
        BK_OPT_ROW_I64("--limit", 0, &limit, 1, INT64_MAX, "N",
                       "refuse a history (or coin list) longer than N (electrs' txid_limit)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, q == Q_MERKLE ? "TXID..." : "ADDRESS...", address_intro, address_outro, opts,
                        SIZE_MAX};
    bk_opt_args args;
    int rc = bk_opt_parse(&spec, argc, argv, &args);
    if (rc != BK_OPT_CONTINUE) return rc;
    rc = 0;
    if (q < 0) rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give a subcommand: history, balance, utxos, status or merkle");
    else if (!dir) rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give --index DIR");
    else if (!args.n && !shs.n && !scripts.n && !file)
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, q == Q_MERKLE ? "give a TXID" : "give an ADDRESS, --scripthash or --script");
    else if (q == Q_MERKLE && (shs.n || scripts.n))
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "merkle takes TXID arguments or --scripthashes FILE of txids");
    bk_addrindex *ix = NULL;
    bk_error err;
    /* the blocks the answers' transactions are read from: those named, else
     * the directory the index was built from */
    bk_blocksdir bd;
    int bd_open = 0;
    if (!rc && (src.datadir || src.blocksdir)) {
        rc = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_BLOCKS);
        if (!rc && bk_blocksdir_open(&bd, src.blocksdir, src.net, NULL, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
        bd_open = !rc;
    }
    if (!rc) {
        bk_addrindex_opts o;
        bk_addrindex_opts_init(&o);
        o.net = src.chain_given || bd_open ? src.net : BK_NET_COUNT_;
        o.tmpdir = src.tmpdir;
        if (bd_open) o.blocks = &bd;
        bk_status st = bk_addrindex_open(&ix, dir, BK_ADDRINDEX_READ, &o, &err);
        if (st != BK_OK) rc = bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
    }
    bk_network net = ix ? bk_addrindex_network(ix) : BK_NET_MAIN;
    bk_writer w;
    bk_writer_init(&w, NULL);
    for (size_t i = 0; !rc && i < args.n; i++) {
        uint8_t key[32];
        if (q == Q_MERKLE) {
            rc = hex_arg(cmd, "txid", args.v[i], key, 32, 1);
        } else {
            uint8_t script[64];
            size_t len = 0;
            if (bk_address_decode(args.v[i], net, script, sizeof script, &len, &err) != BK_OK)
                rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad address '%s' for %s: %s", args.v[i],
                                 bk_network_get(net)->name, err.msg);
            else bk_addrindex_scripthash(script, len, key);
        }
        if (!rc) rc = query_one(cmd, ix, q, key, (size_t)limit, &w);
    }
    for (size_t i = 0; !rc && i < shs.n; i++) {
        uint8_t key[32];
        rc = hex_arg(cmd, "scripthash", shs.v[i], key, 32, 1);
        if (!rc) rc = query_one(cmd, ix, q, key, (size_t)limit, &w);
    }
    for (size_t i = 0; !rc && i < scripts.n; i++) {
        size_t n = strlen(scripts.v[i]);
        uint8_t *s = malloc(n / 2 + 1), key[32];
        if (!s) rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        else if (n % 2 || bk_hex_decode(s, scripts.v[i], n / 2, &err) != BK_OK)
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --script '%s': not hex", scripts.v[i]);
        else bk_addrindex_scripthash(s, n / 2, key);
        free(s);
        if (!rc) rc = query_one(cmd, ix, q, key, (size_t)limit, &w);
    }
    if (!rc && file) rc = query_file(cmd, ix, q, file, (size_t)limit, &w);
    if (!rc && bk_writer_status(&w) != BK_OK) rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    if (!rc) rc = bk_cli_output_write(cmd, stdout, NULL, w.data, w.len);
    if (!rc) rc = bk_cli_output_flush(cmd, stdout, NULL);
    bk_writer_free(&w);
    bk_addrindex_close(ix);
    if (bd_open) bk_blocksdir_close(&bd);
    bk_opt_args_free(&args);
    bk_cli_source_free(&src);
    return rc;
}

BK_CLI_COMMAND(address_command, "address",
               "history|balance|utxos|status|merkle --index DIR ADDRESS...|--scripthash HEX|--script HEX",
               "the address index's answers: Electrum's history, balance, coins, status, merkle", address_main)
