/* blockkit scan: a whole Bitcoin Core blocks directory as getblock JSON,
 * one object per line in height order, rendered in parallel
 * (cli/scan_engine.c; docs/scan.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "scan_engine.h"
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    "                        stops at the tip; --end -N stops N blocks below the tip)\n"
    "  --verbosity N         0 hex, 1 txids (default), 2 transactions and fees, 3 with prevouts\n"
    "  -j N                  worker threads (default: online CPUs)\n"
    "  -o FILE|-             output file (default standard output); an existing file\n"
    "                        that is not empty is refused unless --resume or --force\n"
    "  --resume              continue -o FILE after its last complete line (a partial\n"
    "                        last line is dropped; the file's last block must be on the\n"
    "                        best chain, and an explicit --start must follow it)\n"
    "  --force               overwrite a non-empty -o FILE\n"
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
    "SIGINT (Ctrl-C), SIGTERM and SIGHUP stop after the current line (or stop the\n"
    "chain build) and print the height to resume from with --start (or --resume);\n"
    "the status is then 128 + the signal number. Every line written is complete.\n"
    "A closed output pipe (| head) ends quietly with status 0.\n"
    "Exit status: 0 ok, 64 usage, 65 bad data, missing undo or another network's\n"
    "files, 66 no blk files, no block connected to a genesis (see --orphans), no\n"
    "block index (--source index) or --start in a pruned range,\n"
    "74 I/O (the message names the file and the height to resume from),\n"
    "128+N stopped by signal N.\n";

static volatile sig_atomic_t scan_stop;

/* SIGINT, SIGTERM, SIGHUP: remember which; the chain build polls the flag,
 * the render finishes the current line (scan_engine.h). */
static void on_stop_signal(int sig)
{
    scan_stop = sig;
}

static int hexnib(int ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* --resume: make FILE end with a complete line (a partial last line, left
 * by a kill, is cut off) and find the block its last line holds: the
 * "hash" member a getblock object starts with (verbosity >= 1), or the
 * header of the hex string (verbosity 0). *have = 0 for a missing or empty
 * file (a fresh start). Returns 0 or an exit code after a message. */
static int resume_prepare(const char *cmd, const char *path, uint8_t hash[32], int *have)
{
    *have = 0;
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        return bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume: %s is not a regular file", path);
    }
    /* Back from the end to the last newline, then to the one before it. */
    enum { CHUNK = 65536 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf) {
        close(fd);
        return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    }
    off_t end = st.st_size, pos = end, nl[2] = {-1, -1};
    int found = 0;
    while (pos > 0 && found < 2) {
        size_t n = pos >= CHUNK ? CHUNK : (size_t)pos;
        pos -= (off_t)n;
        if (pread(fd, buf, n, pos) != (ssize_t)n) {
            int e = errno;
            free(buf);
            close(fd);
            return bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", path, e ? strerror(e) : "short read");
        }
        for (size_t i = n; i-- > 0 && found < 2;)
            if (buf[i] == '\n') nl[found++] = pos + (off_t)i;
    }
    off_t keep = found ? nl[0] + 1 : 0;
    if (keep < end) {
        if (ftruncate(fd, keep) != 0) {
            int e = errno;
            free(buf);
            close(fd);
            return bk_cli_fail(cmd, BK_EXIT_IO, "%s: cannot drop the partial last line: %s", path, strerror(e));
        }
        fprintf(stderr, "blockkit: scan: %s: dropped a partial last line (%lld bytes)\n", path,
                (long long)(end - keep));
    }
    int rc = 0;
    if (keep > 0) {
        off_t line = found == 2 ? nl[1] + 1 : 0;
        size_t n = keep - line < 200 ? (size_t)(keep - line) : 200;
        ssize_t r = pread(fd, buf, n, line);
        static const char key[] = "{\"hash\":\"";
        int ok = 0;
        if (r == (ssize_t)n && n >= sizeof key - 1 + 64 && memcmp(buf, key, sizeof key - 1) == 0) {
            ok = 1;
            for (int i = 0; i < 32 && ok; i++) {
                int a = hexnib(buf[sizeof key - 1 + 2 * i]), b = hexnib(buf[sizeof key - 1 + 2 * i + 1]);
                if (a < 0 || b < 0) ok = 0;
                else hash[31 - i] = (uint8_t)(a << 4 | b);
            }
        } else if (r == (ssize_t)n && n >= 161 && buf[0] == '"') {
            uint8_t hdr[80];
            ok = 1;
            for (int i = 0; i < 80 && ok; i++) {
                int a = hexnib(buf[1 + 2 * i]), b = hexnib(buf[2 + 2 * i]);
                if (a < 0 || b < 0) ok = 0;
                else hdr[i] = (uint8_t)(a << 4 | b);
            }
            if (ok) bk_sha256d(hash, hdr, 80);
        }
        if (!ok)
            rc = bk_cli_fail(cmd, BK_EXIT_DATA,
                             "--resume: the last line of %s is not a line of blockkit scan (NDJSON getblock); "
                             "refusing to append to it", path);
        *have = ok;
    }
    free(buf);
    close(fd);
    return rc;
}


static int scan_main(int argc, char **argv)
{
    const char *cmd = "scan";
    const char *blocksdir = NULL, *datadir = NULL, *out_file = NULL;
    int summary = 0, resume = 0, force = 0;
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
            return bk_cli_help(cmd, scan_help);
        }
        if (!strcmp(a, "--verify-merkle")) o.verify_merkle = 1;
        else if (!strcmp(a, "--allow-missing-undo")) o.allow_missing_undo = 1;
        else if (!strcmp(a, "--orphans")) o.orphans = 1;
        else if (!strcmp(a, "--pretty")) o.indent = 2;
        else if (!strcmp(a, "--summary")) summary = 1;
        else if (!strcmp(a, "--resume")) resume = 1;
        else if (!strcmp(a, "--force")) force = 1;
        else if (!strncmp(a, "-j", 2) && a[2]) {
            int64_t n = 0;
            if (!bk_cli_parse_i64(a + 2, &n) || n < 1 || n > 256)
                return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for -j: '%s'", a + 2);
            o.workers = (int)n;
        }
        else if (a[0] == '-' && a[1] && (src_rc = bk_cli_source_option(cmd, &src, argc, argv, &i)) >= 0) {
            if (src_rc) return src_rc;
        } else if (a[0] == '-' && a[1]) {
            const char *given = i + 1 < argc ? argv[++i] : NULL; /* NULL: known options say so below */
            const char *v = given ? given : "";
            int64_t n = 0;
            int ok = 1;
            if (!strcmp(a, "--blocksdir")) blocksdir = v;
            else if (!strcmp(a, "--datadir")) datadir = v;
            else if (!strcmp(a, "--chain")) ok = bk_network_parse(v, &o.net) == BK_OK;
            else if (!strcmp(a, "--start")) {
                ok = bk_cli_parse_i64(v, &o.start) && o.start >= 0;
                o.start_given = 1;
            } else if (!strcmp(a, "--end")) {
                /* --end -N: N blocks below the tip */
                ok = bk_cli_parse_i64(v, &n);
                if (ok && v[0] == '-') {
                    ok = n > INT64_MIN;
                    o.end_below_tip = -n;
                    o.end = -1;
                } else {
                    ok = ok && n >= 0;
                    o.end = n;
                    o.end_below_tip = -1;
                }
            }
            else if (!strcmp(a, "--verbosity")) {
                ok = bk_cli_parse_i64(v, &n) && n >= 0 && n <= 3;
                o.verbosity = (int)n;
            } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
                ok = bk_cli_parse_i64(v, &n) && n >= 1 && n <= 256;
                o.workers = (int)n;
            } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_file = v;
            else if (!strcmp(a, "--progress")) {
                if (!strcmp(v, "auto")) o.progress = BK_SCAN_PROGRESS_AUTO;
                else if (!strcmp(v, "always")) o.progress = BK_SCAN_PROGRESS_ALWAYS;
                else if (!strcmp(v, "never")) o.progress = BK_SCAN_PROGRESS_NEVER;
                else ok = 0;
            } else if (!strcmp(a, "--max-memory")) {
                ok = bk_cli_parse_i64(v, &n) && n >= 1 && n <= ((int64_t)1 << 40);
                o.max_memory = (size_t)n << 20;
            } else if (!strcmp(a, "--core-compat")) {
                ok = bk_cli_parse_i64(v, &n) && n >= BK_CORE_MIN && n <= BK_CORE_NEWEST;
                o.core_version = (int)n;
            } else return bk_cli_unknown_option(cmd, a);
            if (!given) return bk_cli_missing_value(cmd, a);
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
    src.orphans_ok = o.orphans;
    o.src = &src;

    int to_file = out_file && strcmp(out_file, "-") != 0;
    uint8_t resume_hash[32];
    if (resume) {
        int have = 0, rrc = 0;
        if (!to_file) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume continues an output file: give -o FILE");
        else if (o.indent) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume needs NDJSON (not --pretty)");
        else if (o.orphans) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume follows the best chain (not --orphans)");
        else if (force) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give --resume or --force, not both");
        else rrc = resume_prepare(cmd, out_file, resume_hash, &have);
        if (rrc) {
            bk_cli_source_free(&src);
            return rrc;
        }
        if (have) o.resume_after = resume_hash;
    } else if (to_file && !force) {
        /* Never clobber a finished (or interrupted) scan by accident. */
        struct stat ost;
        if (stat(out_file, &ost) == 0 && S_ISREG(ost.st_mode) && ost.st_size > 0) {
            bk_cli_source_free(&src);
            return bk_cli_fail(cmd, BK_EXIT_USAGE,
                               "%s exists and is not empty: --resume continues it, --force overwrites it", out_file);
        }
    }

    FILE *out = stdout;
    if (to_file) {
        out = fopen(out_file, resume ? "ab" : "wb");
        if (!out) {
            int e = errno;
            bk_cli_source_free(&src);
            return bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", out_file, strerror(e));
        }
    }
    o.out = out;
    o.out_path = out_file;

    /* SIGINT, SIGTERM, SIGHUP: finish the current line, then stop
     * (blockkit/engine.h); during the chain build, stop it (bk_chain_opts.cancel). */
    static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESTART; /* a write in progress completes */
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 3; k++) sigaddset(&sa.sa_mask, stop_signals[k]);
    scan_stop = 0;
    for (int k = 0; k < 3; k++) sigaction(stop_signals[k], &sa, &old[k]);
    o.stop = &scan_stop;
    o.fees = summary;

    bk_scan_stats st;
    int rc = bk_scan_run(&o, &st);
    for (int k = 0; k < 3; k++) sigaction(stop_signals[k], &old[k], NULL);

    if (out != stdout) {
        int crc = bk_cli_output_close(cmd, out, out_file, 0);
        if (rc == 0) rc = crc;
    }
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

BK_CLI_COMMAND(scan_command, "scan", "--blocksdir DIR | --datadir DIR [--verbosity 0-3] [-j N] [--start H] [--end H|-N] [-o FILE [--resume|--force]]",
               "a blocks directory as getblock NDJSON, in height order, in parallel", scan_main)
