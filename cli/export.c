/* blockkit export: the chain as analyst tables (Parquet, CSV, NDJSON) in
 * height-range chunks (bk_export_run, docs/export.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "source.h"
#include "utxo_rows.h"

#include <blockkit/export.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char export_help[] =
    "usage: blockkit export (--blocksdir DIR | --datadir DIR) --out DIR [options]\n"
    "\n"
    "Write the best chain of a Bitcoin Core blocks directory (read-only, safe\n"
    "while bitcoind runs) as analyst tables: one row per block, transaction,\n"
    "input and output, columns named as in BigQuery's crypto_bitcoin dataset,\n"
    "amounts in satoshis, times as UTC timestamps, hashes as Core prints them,\n"
    "input values, types and addresses from the undo data (docs/export.md).\n"
    "\n"
    "Files: DIR/<dataset>/<dataset>_<first>_<last>.<ext>, heights zero-padded to\n"
    "8 digits, one file per chunk of --chunk-size heights (aligned to multiples\n"
    "of it), each written under a temporary name and renamed when complete. A\n"
    "rerun skips chunks already written; the last chunk, when the range ends\n"
    "inside it, is written up to the range's end and replaced by a later run\n"
    "that covers more of it.\n"
    "\n"
    "  --blocksdir DIR       the blocks directory itself\n"
    "  --datadir DIR         DIR/blocks (main) or DIR/<testnet3|testnet4|signet|regtest>/blocks\n"
    "  --chain NAME          main (default), test|testnet3, testnet4, signet, regtest\n"
    BK_CLI_SOURCE_HELP
    "  --out DIR             output directory (created)\n"
    "  --datasets LIST       comma-separated: blocks,transactions,inputs,outputs (default:\n"
    "                        these four, also \"all\") and block_stats (Core's getblockstats\n"
    "                        as typed columns, one row per block); utxos on its own (below)\n"
    "  --format F            parquet (default), csv (RFC 4180, header line), ndjson\n"
    "  --compression C       parquet: zstd (default), snappy, none\n"
    "  --zstd-level N        -7 (fastest) .. 19 (default -5; docs/export.md)\n"
    "  --start H             first height (default 0)\n"
    "  --end H|-N            last height (default the tip); -N: N blocks below the tip\n"
    "  --chunk-size N        heights per chunk file (default 10000)\n"
    "  -j N                  chunks written in parallel (default: online CPUs)\n"
    "  --orphans             also blocks whose ancestors are not in the files, placed\n"
    "                        by their BIP34 height (median_time and chainwork null)\n"
    "  --allow-missing-undo  export blocks without rev data with null spent columns\n"
    "                        (default: stop before such a block, exit 65)\n"
    "  --follow              keep running: write each next chunk once the tip is\n"
    "                        --lag blocks past its end; partial chunks are never written\n"
    "  --lag N               --follow: confirmations past a chunk's end (default 6)\n"
    "  --poll S              --follow: seconds between looks at the files (default 30)\n"
    "  --progress WHEN       auto (default: when stderr is a terminal), always, never\n"
    "  --summary             one line on stderr at the end\n"
    "\n"
    "The UTXO set (--datasets utxos; docs/utxo.md): one row per coin of --datadir's\n"
    "chainstate (a private LevelDB snapshot; safe while bitcoind runs) or of a\n"
    "dumptxoutset file, in key order: txid, vout, value, height, is_coinbase,\n"
    "script_hex, type, address, desc (as Core's gettxout prints them). Files\n"
    "DIR/utxos/utxos_<first>_<last>.<ext> numbered by row, --chunk-rows rows each;\n"
    "a run rewrites the whole set and removes the utxos files it did not write.\n"
    "  --utxo-snapshot FILE  a dumptxoutset file (format 2; '-' = standard input)\n"
    "  --height N            the best block's height (summary; default: the block index)\n"
    "  --chunk-rows N        rows per file (default 1000000)\n"
    "  -j N                  with utxos: N >= 2 writes two chunks at once (default: CPUs)\n"
    "  (--format, --compression, --zstd-level, --chain, --tmpdir, --progress, --summary\n"
    "  as above; the block options do not apply)\n"
    "\n"
    "SIGINT/SIGTERM stop cleanly: complete chunks stay, the unfinished ones are\n"
    "removed, and a rerun continues. Exit status: 0 ok (also after a signal),\n"
    "64 usage, 65 bad data or missing undo, 66 missing input, 74 I/O.\n";

static volatile sig_atomic_t export_stop;

static void on_signal(int sig)
{
    export_stop = sig;
}

volatile sig_atomic_t *export_signals_catch(export_signals *s)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    export_stop = 0;
    sigaction(SIGINT, &sa, &s->old_int);
    sigaction(SIGTERM, &sa, &s->old_term);
    return &export_stop;
}

void export_signals_restore(const export_signals *s)
{
    sigaction(SIGINT, &s->old_int, NULL);
    sigaction(SIGTERM, &s->old_term, NULL);
}


typedef struct progress_ctx {
    int on;
    double last;
    int printed;
} progress_ctx;

static void on_progress(void *vctx, const bk_export_progress *p)
{
    progress_ctx *c = vctx;
    if (!c->on) return;
    double mbs = p->seconds > 0 ? (double)p->bytes_done / 1e6 / p->seconds : 0;
    double left = (double)(p->bytes_total - p->bytes_done) / 1e6;
    double eta = mbs > 0 ? left / mbs : 0;
    fprintf(stderr, "\rheight %lld  %llu/%llu blocks  %llu/%llu chunks  %.1f MB/s  ETA %02d:%02d:%02d ",
            (long long)p->height, (unsigned long long)p->blocks_done, (unsigned long long)p->blocks_total,
            (unsigned long long)p->chunks_done, (unsigned long long)p->chunks_total, mbs, (int)(eta / 3600),
            (int)(eta / 60) % 60, (int)eta % 60);
    fflush(stderr);
    c->printed = 1;
}

static int export_main(int argc, char **argv)
{
    const char *cmd = "export";
    const char *blocksdir = NULL, *datadir = NULL;
    int summary = 0, follow = 0, progress = -1;
    int64_t lag = 6, poll_s = 30;
    bk_export_opts o;
    bk_export_opts_init(&o);
    bk_cli_source src;
    memset(&src, 0, sizeof src);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.workers = ncpu > 0 ? (int)(ncpu > 256 ? 256 : ncpu) : 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return bk_cli_help(cmd, export_help);
        }
        /* the UTXO set is its own export (cli/export_utxos.c) */
        if (!strcmp(a, "--datasets") && i + 1 < argc && strstr(argv[i + 1], "utxos")) {
            for (int k = i + 2; k < argc; k++)
                if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
                    return bk_cli_help(cmd, export_help);
                }
            return bk_cli_export_utxos(argc, argv);
        }
        if (!strcmp(a, "--orphans")) o.orphans = 1;
        else if (!strcmp(a, "--allow-missing-undo")) o.allow_missing_undo = 1;
        else if (!strcmp(a, "--follow")) follow = 1;
        else if (!strcmp(a, "--summary")) summary = 1;
        else if (!strncmp(a, "-j", 2) && a[2]) {
            int64_t n = 0;
            if (!bk_cli_parse_i64(a + 2, &n) || n < 1 || n > 256)
                return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for -j: '%s'", a + 2);
            o.workers = (int)n;
        } else if (a[0] == '-' && a[1] && !strcmp(a, "--source") + !strcmp(a, "--blockindex") + !strcmp(a, "--tmpdir")) {
            int src_rc = bk_cli_source_option(cmd, &src, argc, argv, &i);
            if (src_rc) return src_rc;
        } else if (a[0] == '-' && a[1]) {
            const char *given = i + 1 < argc ? argv[++i] : NULL; /* NULL: known options say so below */
            const char *v = given ? given : "";
            int64_t n = 0;
            int ok = 1;
            if (!strcmp(a, "--blocksdir")) blocksdir = v;
            else if (!strcmp(a, "--datadir")) datadir = v;
            else if (!strcmp(a, "--chain")) ok = bk_network_parse(v, &o.net) == BK_OK;
            else if (!strcmp(a, "--out") || !strcmp(a, "-o")) o.out_dir = v;
            else if (!strcmp(a, "--datasets")) ok = bk_export_datasets_parse(v, &o.datasets) == BK_OK;
            else if (!strcmp(a, "--format")) ok = bk_table_format_parse(v, &o.format) == BK_OK;
            else if (!strcmp(a, "--compression")) ok = bk_pq_codec_parse(v, &o.pq.codec) == BK_OK;
            else if (!strcmp(a, "--zstd-level")) {
                ok = bk_cli_parse_i64(v, &n) && n >= -7 && n <= 19;
                o.pq.zstd_level = (int)n;
            }
            else if (!strcmp(a, "--start")) ok = bk_cli_parse_i64(v, &o.start) && o.start >= 0;
            else if (!strcmp(a, "--end")) {
                ok = bk_cli_parse_i64(v, &n);
                if (ok && n < 0) {
                    o.below_tip = -n;
                    o.end = -1;
                } else {
                    o.end = n;
                }
            } else if (!strcmp(a, "--chunk-size")) {
                ok = bk_cli_parse_i64(v, &o.chunk_size) && o.chunk_size >= 1 && o.chunk_size <= 100000000;
            } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
                ok = bk_cli_parse_i64(v, &n) && n >= 1 && n <= 256;
                o.workers = (int)n;
            } else if (!strcmp(a, "--lag")) ok = bk_cli_parse_i64(v, &lag) && lag >= 0;
            else if (!strcmp(a, "--poll")) ok = bk_cli_parse_i64(v, &poll_s) && poll_s >= 1 && poll_s <= 86400;
            else if (!strcmp(a, "--progress")) {
                if (!strcmp(v, "auto")) progress = -1;
                else if (!strcmp(v, "always")) progress = 1;
                else if (!strcmp(v, "never")) progress = 0;
                else ok = 0;
            } else return bk_cli_unknown_option(cmd, a);
            if (!given) return bk_cli_missing_value(cmd, a);
            if (!ok) return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for %s: '%s'", a, v);
        } else {
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "unexpected argument '%s' (see --help)", a);
        }
    }
    if (!blocksdir == !datadir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "give one of --blocksdir or --datadir");
    if (!o.out_dir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--out DIR is required");
    if (o.end >= 0 && o.end < o.start)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--end %lld is below --start %lld", (long long)o.end,
                           (long long)o.start);
    if (follow && o.end >= 0) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--follow runs to the tip: no --end H");
    src.datadir = datadir;
    src.blocksdir = blocksdir;
    src.orphans_ok = o.orphans;
    int src_err = bk_cli_source_blocksdir(cmd, &src, o.net);
    if (src_err) return src_err;
    blocksdir = src.blocksdir;
    o.blocksdir = blocksdir;
    if (follow) {
        o.complete_only = 1;
        o.below_tip = lag;
    }

    export_signals sigs;
    o.cancel = export_signals_catch(&sigs);
    progress_ctx pc = {progress < 0 ? isatty(STDERR_FILENO) : progress, 0, 0};
    o.progress = on_progress;
    o.progress_ctx = &pc;

    int rc = 0;
    bk_export_stats total;
    memset(&total, 0, sizeof total);
    for (;;) {
        bk_export_stats st;
        bk_error err;
        bk_error_clear(&err);
        /* The chain from Core's block index when the datadir has one (exact
         * undo positions, pruned ranges), else the header scan; rebuilt for
         * every --follow look. */
        bk_chain chain;
        int crc = bk_cli_source_build(cmd, &src, o.net, &export_stop, follow && total.chunks_written + total.chunks_skipped,
                                      &chain);
        if (crc) {
            if (export_stop) fprintf(stderr, "blockkit: export: stopped by a signal; complete chunks kept, rerun to continue\n");
            rc = export_stop ? BK_EXIT_OK : crc;
            break;
        }
        o.chain = &chain;
        bk_status s = bk_export_run(&o, &st, &err);
        o.chain = NULL;
        bk_chain_free(&chain);
        if (pc.printed) {
            fputc('\n', stderr);
            pc.printed = 0;
        }
        total.chunks_written += st.chunks_written;
        total.chunks_skipped = st.chunks_skipped;
        total.files_written += st.files_written;
        total.blocks += st.blocks;
        total.bytes_in += st.bytes_in;
        total.bytes_out += st.bytes_out;
        total.seconds += st.seconds;
        total.chain_seconds += st.chain_seconds;
        total.tip_height = st.tip_height;
        total.end_height = st.end_height;
        total.workers = st.workers;
        for (int d = 0; d < BK_DS_COUNT_; d++) total.rows[d] += st.rows[d];
        if (st.missing_undo)
            fprintf(stderr, "blockkit: export: %llu block(s) exported without undo data (spent columns null)\n",
                    (unsigned long long)st.missing_undo);
        if (s == BK_ERR_CANCELLED || export_stop) {
            fprintf(stderr, "blockkit: export: stopped by a signal; complete chunks kept, rerun to continue\n");
            break;
        }
        if (s != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            if (s == BK_ERR_NOT_FOUND) rc = BK_EXIT_DATA;
            break;
        }
        if (!follow) break;
        /* sleep until the next look, waking for a signal */
        for (int64_t q = 0; q < poll_s * 10 && !export_stop; q++) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (export_stop) break;
    }
    export_signals_restore(&sigs);
    if (summary) {
        double mbs = total.seconds > 0 ? (double)total.bytes_in / 1e6 / total.seconds : 0;
        fprintf(stderr,
                "blockkit: export: %llu chunks written (%llu files), %llu skipped, %llu blocks, rows: %llu blocks, "
                "%llu transactions, %llu inputs, %llu outputs; %.1f MB in, %.1f MB out (%.3fx), %.3f s (+ %.3f s "
                "chain) = %.1f MB/s, -j%d\n",
                (unsigned long long)total.chunks_written, (unsigned long long)total.files_written,
                (unsigned long long)total.chunks_skipped, (unsigned long long)total.blocks,
                (unsigned long long)total.rows[0], (unsigned long long)total.rows[1],
                (unsigned long long)total.rows[2], (unsigned long long)total.rows[3], (double)total.bytes_in / 1e6,
                (double)total.bytes_out / 1e6, total.bytes_in ? (double)total.bytes_out / (double)total.bytes_in : 0,
                total.seconds, total.chain_seconds, mbs, total.workers);
    }
    bk_cli_source_free(&src);
    return rc;
}

BK_CLI_COMMAND(export_command, "export",
               "--blocksdir DIR | --datadir DIR --out DIR [--format parquet|csv|ndjson] [--datasets LIST] [-j N]",
               "the chain as Parquet/CSV/NDJSON tables in height chunks (resumable, --follow)", export_main)
