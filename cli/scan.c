/* blockkit scan: a whole Bitcoin Core blocks directory as getblock JSON,
 * one object per line in height order, rendered in parallel
 * (cli/scan_engine.c; docs/scan.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "scan_engine.h"
#include "source.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char scan_help[] =
    "usage: blockkit scan (--blocksdir DIR | --datadir DIR) [options]\n"
    "\n"
    "Print every block of the best chain in a Bitcoin Core blocks directory\n"
    "(blk*.dat, rev*.dat, xor.dat; read-only, safe while bitcoind runs; the\n"
    "chain from the node's block index when there is one, see --source) as\n"
    "Bitcoin Core's getblock result: one compact JSON object per line (NDJSON),\n"
    "in height order, each exactly what `blockkit block` prints for it with its\n"
    "chain context (height, confirmations against the best tip, mediantime,\n"
    "chainwork, nextblockhash) and, at verbosity >= 2, its undo data.\n"
    "\n"
    "  --blocksdir DIR       the blocks directory itself\n"
    "  --datadir DIR         DIR/blocks (main) or DIR/<testnet3|testnet4|signet|regtest>/blocks\n"
    "  --chain NAME          main (default), test|testnet3, testnet4, signet, regtest\n"
    BK_CLI_SOURCE_HELP
    "  --start H, --end H    heights to print (default: 0 to the tip; --end past the tip\n"
    "                        stops at the tip)\n"
    "  --verbosity N         0 hex, 1 txids (default), 2 transactions and fees, 3 with prevouts\n"
    "  -j N                  worker threads (default: online CPUs)\n"
    "  -o FILE|-             output file (default standard output)\n"
    "  --progress WHEN       auto (default: when stderr is a terminal), always, never\n"
    "  --verify-merkle       recompute each block's merkle root and witness commitment;\n"
    "                        a mismatch stops the scan (exit 65) naming the block\n"
    "  --allow-missing-undo  verbosity >= 2: render blocks whose rev record is not\n"
    "                        written yet without fee and prevout (reported on stderr);\n"
    "                        without it the scan stops before such a block (exit 65)\n"
    "  --orphans             also print blocks whose ancestors are not in the files\n"
    "                        (pruned or partial copies), after the best chain, ordered\n"
    "                        by their BIP34 coinbase height, with the context\n"
    "                        `blockkit block` gives a lone block (confirmations 1,\n"
    "                        mediantime = its time, chainwork 0, no next block)\n"
    "  --max-memory MB       bound for in-flight blocks and their JSON (default 1024)\n"
    "  --core-compat V       Core release shape: 28, 29, 30, 31 (default 31)\n"
    "  --pretty              bitcoin-cli's indented form (not NDJSON; for one block)\n"
    "  --summary             one line on stderr at the end: blocks, txs, fees, MB/s, time\n"
    "\n"
    "Ctrl-C stops after the current line and prints the height to resume from\n"
    "with --start. A closed output pipe (| head) ends quietly with status 0.\n"
    "Exit status: 0 ok, 64 usage, 65 bad data or missing undo, 66 no block\n"
    "index (--source index) or --start in a pruned range, 74 I/O (the\n"
    "message names the file).\n";

static volatile sig_atomic_t scan_stop;

static void on_sigint(int sig)
{
    (void)sig;
    scan_stop = 1;
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return 0;
    *out = v;
    return 1;
}

static int scan_main(int argc, char **argv)
{
    const char *cmd = "scan";
    const char *blocksdir = NULL, *datadir = NULL, *out_file = NULL;
    int summary = 0;
    bk_scan_opts o;
    bk_scan_opts_init(&o);
    bk_cli_source src;
    memset(&src, 0, sizeof src);
    int src_rc;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.workers = ncpu > 0 ? (int)(ncpu > 256 ? 256 : ncpu) : 1;
    o.progress = BK_SCAN_PROGRESS_AUTO;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(scan_help, stdout);
            return BK_EXIT_OK;
        }
        if (!strcmp(a, "--verify-merkle")) o.verify_merkle = 1;
        else if (!strcmp(a, "--allow-missing-undo")) o.allow_missing_undo = 1;
        else if (!strcmp(a, "--orphans")) o.orphans = 1;
        else if (!strcmp(a, "--pretty")) o.indent = 2;
        else if (!strcmp(a, "--summary")) summary = 1;
        else if (!strncmp(a, "-j", 2) && a[2]) {
            int64_t n = 0;
            if (!parse_i64(a + 2, &n) || n < 1 || n > 256)
                return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for -j: '%s'", a + 2);
            o.workers = (int)n;
        }
        else if (a[0] == '-' && a[1] && (src_rc = bk_cli_source_option(cmd, &src, argc, argv, &i)) >= 0) {
            if (src_rc) return src_rc;
        } else if (a[0] == '-' && a[1]) {
            if (i + 1 >= argc) return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s needs a value", a);
            const char *v = argv[++i];
            int64_t n = 0;
            int ok = 1;
            if (!strcmp(a, "--blocksdir")) blocksdir = v;
            else if (!strcmp(a, "--datadir")) datadir = v;
            else if (!strcmp(a, "--chain")) ok = bk_network_parse(v, &o.net) == BK_OK;
            else if (!strcmp(a, "--start")) ok = parse_i64(v, &o.start) && o.start >= 0 && (o.start_set = 1);
            else if (!strcmp(a, "--end")) ok = parse_i64(v, &o.end) && o.end >= 0;
            else if (!strcmp(a, "--verbosity")) {
                ok = parse_i64(v, &n) && n >= 0 && n <= 3;
                o.verbosity = (int)n;
            } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
                ok = parse_i64(v, &n) && n >= 1 && n <= 256;
                o.workers = (int)n;
            } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_file = v;
            else if (!strcmp(a, "--progress")) {
                if (!strcmp(v, "auto")) o.progress = BK_SCAN_PROGRESS_AUTO;
                else if (!strcmp(v, "always")) o.progress = BK_SCAN_PROGRESS_ALWAYS;
                else if (!strcmp(v, "never")) o.progress = BK_SCAN_PROGRESS_NEVER;
                else ok = 0;
            } else if (!strcmp(a, "--max-memory")) {
                ok = parse_i64(v, &n) && n >= 1 && n <= ((int64_t)1 << 40);
                o.max_memory = (size_t)n << 20;
            } else if (!strcmp(a, "--core-compat")) {
                ok = parse_i64(v, &n) && n >= BK_CORE_MIN && n <= BK_CORE_NEWEST;
                o.core_version = (int)n;
            } else return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown option %s (see --help)", a);
            if (!ok) return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for %s: '%s'", a, v);
        } else {
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "unexpected argument '%s' (see --help)", a);
        }
    }
    if (!blocksdir == !datadir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "give one of --blocksdir or --datadir");
    if (o.end >= 0 && o.end < o.start)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--end %lld is below --start %lld", (long long)o.end,
                           (long long)o.start);
    src.datadir = datadir;
    src.blocksdir = blocksdir;
    int src_err = bk_cli_source_blocksdir(cmd, &src, o.net);
    if (src_err) return src_err;
    blocksdir = src.blocksdir;
    o.blocksdir = blocksdir;
    o.src = &src;

    FILE *out = stdout;
    if (out_file && strcmp(out_file, "-") != 0) {
        out = fopen(out_file, "wb");
        if (!out) {
            int e = errno;
            bk_cli_source_free(&src);
            return bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", out_file, strerror(e));
        }
    }
    o.out = out;

    /* SIGINT: finish the current line, then stop (ordered.h). */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESTART; /* a write in progress completes */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    scan_stop = 0;
    o.stop = &scan_stop;
    o.fees = summary;

    bk_scan_stats st;
    int rc = bk_scan_run(&o, &st);
    sigaction(SIGINT, &old, NULL);

    if (out != stdout && fclose(out) != 0 && rc == 0)
        rc = bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", out_file, strerror(errno));
    if (summary) {
        double mbs = st.seconds > 0 ? (double)st.bytes_in / 1e6 / st.seconds : 0;
        fprintf(stderr, "blockkit: scan: %llu blocks", (unsigned long long)st.blocks);
        if (st.blocks) fprintf(stderr, " (heights %lld-%lld)", (long long)st.first_height, (long long)st.last_height);
        fprintf(stderr, ", %llu txs, ", (unsigned long long)st.txs);
        if (st.blocks && st.blocks_with_undo == st.blocks)
            fprintf(stderr, "fees %lld.%08lld BTC, ", (long long)(st.fees / 100000000),
                    (long long)(st.fees % 100000000));
        else if (st.blocks_with_undo)
            fprintf(stderr, "fees %lld.%08lld BTC (%llu blocks with undo), ", (long long)(st.fees / 100000000),
                    (long long)(st.fees % 100000000), (unsigned long long)st.blocks_with_undo);
        fprintf(stderr, "%.1f MB in, %.1f MB of JSON, %.3f s (+ %.3f s chain) = %.1f MB/s, -j%d\n",
                (double)st.bytes_in / 1e6, (double)st.bytes_out / 1e6, st.seconds, st.chain_seconds, mbs,
                st.workers);
    }
    bk_cli_source_free(&src);
    return rc;
}

BK_CLI_COMMAND(scan_command, "scan", "--blocksdir DIR | --datadir DIR [--verbosity 0-3] [-j N] [--start H] [--end H]",
               "a blocks directory as getblock NDJSON, in height order, in parallel", scan_main)
