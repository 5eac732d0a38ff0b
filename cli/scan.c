/* blockkit scan: a whole Bitcoin Core blocks directory as getblock JSON,
 * one object per line in height order, rendered in parallel
 * (cli/scan_engine.c; docs/scan.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "opt.h"
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

static const char scan_intro[] =
    "Print every block of the best chain in a Bitcoin Core blocks directory\n"
    "(blk*.dat, rev*.dat, xor.dat; read-only, safe while bitcoind runs; the\n"
    "chain from the node's block index when there is one, see --source) as\n"
    "Bitcoin Core's getblock result: one compact JSON object per line (NDJSON),\n"
    "in height order, each exactly what `blockkit block` prints for it with its\n"
    "chain context (height, confirmations against the best tip, mediantime,\n"
    "chainwork, nextblockhash) and, at verbosity >= 2, its undo data.\n";

static const char scan_outro[] =
    "With -o FILE the options that shape the lines (--verbosity, --core-compat,\n"
    "--chain, --orphans) are recorded in FILE.scan.json; --resume refuses to\n"
    "continue FILE with other ones.\n"
    "\n"
    "SIGINT (Ctrl-C), SIGTERM and SIGHUP stop after the current line (or stop the\n"
    "chain build) and print the height to resume from with --start (or --resume);\n"
    "the status is then 128 + the signal number. Every line written is complete.\n"
    "A closed output pipe (| head) ends quietly with status 0.\n"
    "Exit status: 0 ok, 64 usage, 65 bad data, missing undo or another network's\n"
    "files, 66 no blk files, no block in the range, no block connected to a\n"
    "genesis (see --orphans), no block index (--source index) or --start in a\n"
    "pruned range, 74 I/O (the message names the file and the height to resume\n"
    "from), 128+N stopped by signal N.\n";



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
            ok = bk_hex_decode_rev(hash, (const char *)buf + sizeof key - 1, 32, NULL) == BK_OK;
        } else if (r == (ssize_t)n && n >= 161 && buf[0] == '"') {
            uint8_t hdr[80];
            ok = bk_hex_decode(hdr, (const char *)buf + 1, 80, NULL) == BK_OK;
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


/* The options that shape scan's lines, recorded beside -o FILE
 * (FILE.scan.json) so that --resume never appends lines of another shape. */
static int shape_line(const bk_scan_opts *o, char *buf, size_t cap)
{
    return snprintf(buf, cap, "{\"verbosity\":%d,\"core_compat\":%d,\"chain\":\"%s\",\"orphans\":%s}\n",
                    o->verbosity, o->core_version, bk_network_get(o->net)->name, o->orphans ? "true" : "false");
}

static char *shape_path(const char *out_file)
{
    size_t n = strlen(out_file) + sizeof ".scan.json";
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.scan.json", out_file);
    return p;
}

/* --resume: the recorded shape must be this run's. */
static int shape_check(const char *cmd, const char *out_file, const bk_scan_opts *o)
{
    char want[256], have[256];
    shape_line(o, want, sizeof want);
    char *p = shape_path(out_file);
    if (!p) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    FILE *f = fopen(p, "rb");
    size_t n = 0;
    if (f) {
        n = fread(have, 1, sizeof have - 1, f);
        fclose(f);
    }
    have[n] = 0;
    int rc = 0;
    if (!f)
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume: %s has no record of the options %s was written with; "
                         "--force starts it again", p, out_file);
    else if (strcmp(have, want) != 0) {
        if (n && have[n - 1] == '\n') have[n - 1] = 0;
        want[strlen(want) - 1] = 0;
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume: %s was written with %s, this run asks for %s: give the same "
                         "--verbosity, --core-compat, --chain and --orphans (or --force to start again)", out_file,
                         have, want);
    }
    free(p);
    return rc;
}

static int shape_write(const char *cmd, const char *out_file, const bk_scan_opts *o)
{
    char line[256];
    int n = shape_line(o, line, sizeof line);
    char *p = shape_path(out_file);
    if (!p) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    FILE *f = fopen(p, "wb");
    int rc = 0;
    if (!f) rc = bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", p, strerror(errno));
    else {
        rc = bk_cli_output_write(cmd, f, p, line, (size_t)n);
        int crc = bk_cli_output_close(cmd, f, p, 0);
        if (!rc) rc = crc;
    }
    free(p);
    return rc;
}

static int scan_main(int argc, char **argv)
{
    const char *cmd = "scan";
    const char *out_file = NULL;
    int summary = 0, resume = 0, force = 0, progress = BK_PROGRESS_AUTO, max_mb = 1024;
    bk_scan_opts o;
    bk_scan_opts_init(&o);
    bk_cli_source src;
    bk_cli_source_init(&src);
    bk_cli_range range;
    bk_cli_range_init(&range);
    o.workers = bk_cli_default_workers();
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_SOURCE_INDEX(&src),
        BK_OPT_RANGE(&range),
        BK_OPT_ROW_INT("--verbosity", 0, &o.verbosity, 0, 3, "N",
                       "0 hex, 1 txids (default), 2 transactions and fees, 3 with prevouts"),
        BK_OPT_JOBS(&o.workers, "worker threads (default: online CPUs)"),
        BK_OPT_OUTPUT(&out_file, "output file (default standard output); an existing file\n"
                                 "that is not empty is refused unless --resume or --force"),
        BK_OPT_ROW_FLAG("--resume", 0, &resume,
                        "continue -o FILE after its last complete line (a partial\n"
                        "last line is dropped; the file's last block must be on the\n"
                        "best chain, and an explicit --start must follow it)"),
        BK_OPT_FORCE(&force),
        BK_OPT_PROGRESS(&progress),
        BK_OPT_ROW_FLAG("--verify-merkle", 0, &o.verify_merkle,
                        "recompute each block's merkle root and witness commitment;\n"
                        "a mismatch stops the scan (exit 65) naming the block"),
        BK_OPT_ROW_FLAG("--allow-missing-undo", 0, &o.allow_missing_undo,
                        "verbosity >= 2: render blocks whose rev record is not\n"
                        "written yet without fee and prevout (reported on stderr);\n"
                        "without it the scan stops before such a block (exit 65)"),
        BK_OPT_ROW_FLAG("--orphans", 0, &o.orphans,
                        "also print blocks whose ancestors are not in the files\n"
                        "(pruned or partial copies), after the best chain, ordered\n"
                        "by their BIP34 coinbase height, with the context\n"
                        "`blockkit block` gives a lone block (confirmations 1,\n"
                        "mediantime = its time, chainwork 0, no next block)"),
        BK_OPT_ROW_INT("--max-memory", 0, &max_mb, 1, 1 << 20, "MB",
                       "bound for in-flight blocks and their JSON (default 1024)"),
        BK_OPT_ROW_INT("--core-compat", 0, &o.core_version, BK_CORE_MIN, BK_CORE_NEWEST, "V",
                       "Core release shape: 28, 29, 30, 31 (default 31)"),
        BK_OPT_PRETTY(&o.indent),
        BK_OPT_ROW_FLAG("--summary", 0, &summary,
                        "one line on stderr at the end: blocks, txs, fees, MB/s, time"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, scan_intro, scan_outro, opts, 0};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    bk_opt_args_free(&args);
    o.start = range.start;
    o.start_given = bk_opt_given(&spec, "--start");
    o.end = range.end;
    o.end_below_tip = range.below_tip;
    o.max_memory = (size_t)max_mb << 20;
    o.progress = progress == BK_PROGRESS_ALWAYS  ? BK_SCAN_PROGRESS_ALWAYS
                 : progress == BK_PROGRESS_NEVER ? BK_SCAN_PROGRESS_NEVER
                                                 : BK_SCAN_PROGRESS_AUTO;
    if (o.end >= 0 && o.end < o.start)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--end %lld is below --start %lld", (long long)o.end,
                           (long long)o.start);
    int src_err = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_BLOCKS);
    if (src_err) {
        bk_cli_source_free(&src);
        return src_err;
    }
    o.net = src.net;
    o.blocksdir = src.blocksdir;
    src.orphans_ok = o.orphans;

    int to_file = out_file && strcmp(out_file, "-") != 0;
    uint8_t resume_hash[32];
    int fresh = 0;
    if (resume) {
        int have = 0, rrc = 0;
        if (!to_file) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume continues an output file: give -o FILE");
        else if (o.indent) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume needs NDJSON (not --pretty)");
        else if (o.orphans) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume follows the best chain (not --orphans)");
        else if (force) rrc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give --resume or --force, not both");
        else {
            struct stat rst;
            fresh = !(stat(out_file, &rst) == 0 && rst.st_size > 0); /* nothing to continue yet */
            if (fresh || !(rrc = shape_check(cmd, out_file, &o))) rrc = resume_prepare(cmd, out_file, resume_hash, &have);
        }
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
    if (to_file && (!resume || fresh)) {
        int wrc = shape_write(cmd, out_file, &o);
        if (wrc) {
            fclose(out);
            bk_cli_source_free(&src);
            return wrc;
        }
    }

    /* SIGINT, SIGTERM, SIGHUP: finish the current line, then stop
     * (blockkit/engine.h); during the chain build, stop it (bk_chain_opts.cancel). */
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    o.stop = &bk_cli_stop;
    o.fees = summary;

    bk_scan_stats st;
    int rc = bk_cli_scan_run(&o, &src, out, out_file, &st);
    bk_cli_stop_signals_restore(&saved);

    if (out != stdout) {
        int crc = bk_cli_output_close(cmd, out, out_file, 0);
        if (rc == 0) rc = crc;
    }
    /* No silent empty success: a range with no block is an error. */
    if (rc == 0 && st.blocks == 0 && !resume && !bk_cli_pipe_closed)
        rc = bk_cli_empty_range(cmd, &range);
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
