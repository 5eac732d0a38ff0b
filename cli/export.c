/* blockkit export: the chain as analyst tables (Parquet, CSV, NDJSON) in
 * height-range chunks (bk_export_run, docs/export.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "export_utxo_stats.h"
#include "opt.h"
#include "progress.h"
#include "source.h"
#include "utxo_rows.h"

#include <blockkit/export.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char export_intro[] =
    "Write the best chain of a Bitcoin Core blocks directory (read-only, safe\n"
    "while bitcoind runs) as analyst tables: one row per block, transaction,\n"
    "input and output, columns named as in BigQuery's crypto_bitcoin dataset,\n"
    "amounts in satoshis, times as UTC timestamps, hashes as Core prints them,\n"
    "input values, types and addresses from the undo data (docs/export.md).\n"
    "\n"
    "Files: DIR/<dataset>/<dataset>_<first>_<last>.<ext>, heights zero-padded to\n"
    "8 digits, one file per chunk of --chunk-size heights (aligned to multiples\n"
    "of it), each written under a temporary name and renamed when complete,\n"
    "then listed in DIR/_blockkit/chunks.ndjson (heights, block hashes, rows,\n"
    "SHA-256; Parquet footers carry the same). A rerun keeps the listed chunks\n"
    "that pass the checks of --verify and writes the others again; the last\n"
    "chunk, when the range ends inside it, is written up to the range's end and\n"
    "replaced by a later run that covers more of it.\n"
    "\n"
    "--datasets: comma-separated blocks,transactions,inputs,outputs (default:\n"
    "these four, also \"all\"), block_stats (Core's getblockstats as typed\n"
    "columns, one row per block) and block_filters (Core's getblockfilter: height,\n"
    "hash, filter, header; the headers below the first chunk written are computed\n"
    "first, from every block from the genesis), sp_tweaks (BIP352: height,\n"
    "block_hash, tx_index, txid, tweak per eligible transaction) and sp_outputs\n"
    "(their taproot outputs: height, txid, vout, pubkey, value; docs/silentpay.md);\n"
    "or utxos on its own: the UTXO set, one row per\n"
    "coin of --datadir's chainstate (a private LevelDB snapshot; safe while\n"
    "bitcoind runs) or of a dumptxoutset file (--utxo-snapshot), in key order:\n"
    "txid, vout, value, height, is_coinbase, script_hex, type, address, desc (as\n"
    "Core's gettxout prints them), files DIR/utxos/utxos_<first>_<last>.<ext>\n"
    "numbered by row, --chunk-rows rows each; a utxos run rewrites the whole set\n"
    "and removes the utxos files it did not write (docs/utxo.md).\n";

static const char export_outro[] =
    "SIGINT, SIGTERM and SIGHUP stop cleanly: complete chunks stay, the\n"
    "unfinished ones are removed, a rerun continues; the status is then 128 +\n"
    "the signal number.\n"
    "Exit status: 0 ok, 64 usage, 65 bad data, 66 missing input (no such\n"
    "directory, no block in the range, a block without undo data), 74 I/O,\n"
    "128+N stopped by signal N.\n";


/* The library's progress to the CLI's printer (cli/progress.h): the ETA
 * from the chunks committed and the chunks in flight. */
static void on_progress(void *vctx, const bk_export_progress *p)
{
    bk_cli_progress *pr = vctx;
    bk_cli_progress_task busy[64];
    bk_cli_progress_line l = bk_cli_progress_blocks(p->height, p->blocks_done, p->blocks_total, p->bytes_done,
                                                    p->bytes_committed, p->bytes_total, p->seconds);
    l.chunks_done = p->chunks_done;
    l.chunks_total = p->chunks_total;
    l.workers = p->workers > 0 ? p->workers : 1;
    l.work_seconds = p->chunk_seconds;
    for (size_t i = 0; i < p->n_busy && i < 64; i++) {
        busy[i].work_done = p->busy[i].bytes_done;
        busy[i].work_total = p->busy[i].bytes_total;
        busy[i].seconds = p->busy[i].seconds;
        l.n_busy++;
    }
    l.busy = busy;
    uint64_t begun = p->chunks_done + l.n_busy;
    l.tasks_left = p->chunks_total > begun ? p->chunks_total - begun : 0;
    bk_cli_progress_show(pr, &l);
}

/* --datasets: kept as given; utxos or the block datasets (parsed below). */
static int parse_datasets(void *dest, const char *v)
{
    *(const char **)dest = v;
    return 1;
}

/* Whether the comma-separated list names utxos. */
static int names_utxos(const char *list)
{
    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n == 5 && !memcmp(p, "utxos", 5)) return 1;
        if (!c) break;
        p = c + 1;
    }
    return 0;
}

/* --verify: one line per problem on stdout, naming the file. */
typedef struct verify_out {
    const char *out_dir;
    int write_failed;
} verify_out;

static void on_problem(void *vctx, const char *file, bk_chunk_problem p, const char *why)
{
    verify_out *v = vctx;
    if (printf("%s/%s: %s: %s\n", v->out_dir, file, bk_chunk_problem_name(p), why) < 0) v->write_failed = 1;
}

/* export --verify [--deep]: the directory against the node's best chain
 * and its catalogue (bk_export_verify). */
static int export_verify(const char *cmd, bk_cli_source *src, const char *out_dir, int deep, int summary)
{
    bk_chain chain;
    int rc = bk_cli_source_build(cmd, src, src->net, &bk_cli_stop, 0, &chain);
    if (rc) return bk_cli_stop ? 128 + (int)bk_cli_stop : rc;
    verify_out vo = {out_dir, 0};
    bk_export_verify_opts vo2;
    memset(&vo2, 0, sizeof vo2);
    vo2.out_dir = out_dir;
    vo2.chain = &chain;
    vo2.net = src->net;
    vo2.deep = deep;
    vo2.report = on_problem;
    vo2.ctx = &vo;
    vo2.cancel = &bk_cli_stop;
    bk_export_verify_stats vs;
    bk_error err;
    bk_error_clear(&err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bk_status st = bk_export_verify(&vo2, &vs, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    bk_chain_free(&chain);
    if (fflush(stdout) != 0 || vo.write_failed) return bk_cli_fail(cmd, BK_EXIT_IO, "writing the report failed");
    if (st == BK_ERR_CANCELLED || bk_cli_stop) {
        fprintf(stderr, "blockkit: %s: --verify stopped by a signal\n", cmd);
        return 128 + (int)bk_cli_stop;
    }
    if (st != BK_OK) {
        return bk_cli_report(cmd, &err); /* not found: no export there, 66 */
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (summary || vs.problems)
        fprintf(stderr,
                "blockkit: %s: --verify%s: %llu dataset(s), heights %lld-%lld, %llu chunk files, %llu ok, %llu "
                "problem(s); chain tip %lld; %.1f MB hashed in %.3f s\n",
                cmd, deep ? " --deep" : "", (unsigned long long)vs.datasets, (long long)vs.start, (long long)vs.end,
                (unsigned long long)vs.chunks, (unsigned long long)vs.files_ok, (unsigned long long)vs.problems,
                (long long)vs.tip_height, (double)vs.bytes_hashed / 1e6, secs);
    if (vs.problems) return BK_EXIT_FAIL;
    if (!summary)
        fprintf(stderr, "blockkit: %s: %s is complete for heights %lld-%lld and on the best chain (%llu files)\n", cmd,
                out_dir, (long long)vs.start, (long long)vs.end, (unsigned long long)vs.chunks);
    return 0;
}

/* export --schema: every column of the datasets asked for, as this run
 * would write them, with their Parquet and SQL types; nothing is read. */
static int export_schema(const char *cmd, unsigned dsets, bk_table_profile prof, const char *columns,
                         const char *exclude)
{
    int bad = 0;
    for (int d = 0; d < BK_DS_COUNT_; d++) {
        if (!(dsets & (1u << d))) continue;
        bk_table_schema sc;
        bk_error err;
        if (bk_table_schema_build(&sc, (bk_dataset)d, prof, columns, exclude, &err) != BK_OK)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s", err.msg);
        for (size_t k = 0; k < sc.ncols; k++) {
            char pt[64], st[64];
            bk_table_column_types(&sc.cols[k], pt, sizeof pt, st, sizeof st);
            if (printf("%s.%s\t%s\t%s\t%s\n", bk_dataset_name((bk_dataset)d), sc.cols[k].name, pt, st,
                       (sc.cols[k].flags & BK_PQ_OPTIONAL) ? "NULL" : "NOT NULL") < 0)
                bad = 1;
        }
    }
    if (fflush(stdout) != 0 || bad) return bk_cli_fail(cmd, BK_EXIT_IO, "writing the schema failed");
    return 0;
}

static int parse_profile(void *dest, const char *v) { return bk_table_profile_parse(v, dest) == BK_OK; }

/* The modes: the block datasets, --verify, --datasets utxos and --datasets
 * utxo_stats (a row BK_OPT_IN some). */
enum { MODE_BLOCKS, MODE_VERIFY, MODE_UTXOS, MODE_UTXO_STATS };
#define IN_BLOCKS (1u << MODE_BLOCKS)
#define IN_VERIFY (1u << MODE_VERIFY)
#define IN_UTXOS (1u << MODE_UTXOS)
#define IN_UTXO_STATS (1u << MODE_UTXO_STATS)
#define IN_WRITES (IN_BLOCKS | IN_UTXOS | IN_UTXO_STATS)
static const bk_opt_mode export_modes[] = {
    {"the block datasets", NULL},
    {"--verify", "--verify (it reads what DIR's catalogue says)"},
    {"--datasets utxos", "--datasets utxos"},
    {"--datasets utxo_stats", "--datasets utxo_stats"},
};

/* --schema --datasets utxos: the UTXO set's columns (no selection:
 * --columns is for the block datasets). */
static int export_utxo_schema(const char *cmd, const bk_export_opts *o)
{
    if (o->columns || o->exclude_columns)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--columns and --exclude-columns are for the block datasets");
    size_t n;
    const bk_pq_column *cols = bk_utxo_columns_profile(o->profile, &n);
    int bad = 0;
    for (size_t k = 0; k < n; k++) {
        char pt[64], st[64];
        bk_table_column_types(&cols[k], pt, sizeof pt, st, sizeof st);
        if (printf("utxos.%s\t%s\t%s\t%s\n", cols[k].name, pt, st,
                   (cols[k].flags & BK_PQ_OPTIONAL) ? "NULL" : "NOT NULL") < 0)
            bad = 1;
    }
    if (fflush(stdout) != 0 || bad) return bk_cli_fail(cmd, BK_EXIT_IO, "writing the schema failed");
    return 0;
}

/* --datasets utxos: the UTXO set is its own export (cli/export_utxos.c). */
static int export_utxos_mode(const char *cmd, const bk_opt_spec *spec, bk_cli_source *src,
                             const bk_export_opts *o, const char *datasets, const char *snapshot,
                             int64_t utxo_height, int64_t chunk_rows, int summary, int progress)
{
    if (strcmp(datasets, "utxos") != 0)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "utxos is exported on its own: --datasets utxos, not '%s' (run the "
                           "block datasets separately)", datasets);
    int mrc = bk_opt_mode_check(spec, MODE_UTXOS, export_modes);
    if (mrc) return mrc;
    if (!src->datadir && !snapshot)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--datasets utxos needs --datadir DIR or --utxo-snapshot FILE");
    bk_cli_export_utxos_args ua;
    memset(&ua, 0, sizeof ua);
    if (src->datadir) {
        int rrc = bk_cli_source_resolve(cmd, src, BK_CLI_NEED_DATADIR);
        if (rrc) {
            bk_cli_source_free(src);
            return rrc;
        }
    }
    /* with --datadir, --height H is the set at H (rolled back, as utxo
     * snapshot --height and utxo stats --height); with a snapshot file,
     * the height of its base block */
    utxo_source_opts_from(&ua.source, src, snapshot, utxo_height, 1);
    ua.source.height_optional = 1;
    ua.out_dir = o->out_dir;
    ua.format = o->format;
    ua.codec = o->pq.codec;
    ua.zstd_level = o->pq.zstd_level;
    ua.profile = (int)o->profile;
    ua.chunk_rows = (uint64_t)chunk_rows;
    ua.threads = (unsigned)(o->workers > 64 ? 64 : o->workers);
    ua.summary = summary;
    ua.progress = bk_cli_progress_on(progress);
    int urc = bk_cli_export_utxos(&ua);
    bk_cli_source_free(src);
    return urc;
}

/* One run's figures into --follow's totals. */
static void export_stats_add(bk_export_stats *total, const bk_export_stats *st)
{
    total->chunks_written += st->chunks_written;
    total->chunks_skipped = st->chunks_skipped;
    total->chunks_rewritten += st->chunks_rewritten;
    total->chunks_removed += st->chunks_removed;
    total->files_written += st->files_written;
    total->blocks += st->blocks;
    total->bytes_in += st->bytes_in;
    total->bytes_out += st->bytes_out;
    total->seconds += st->seconds;
    total->chain_seconds += st->chain_seconds;
    total->tip_height = st->tip_height;
    total->end_height = st->end_height;
    total->workers = st->workers;
    for (int d = 0; d < BK_DS_COUNT_; d++) total->rows[d] += st->rows[d];
}

static void export_summary_print(const bk_export_stats *total)
{
    double mbs = total->seconds > 0 ? (double)total->bytes_in / 1e6 / total->seconds : 0;
    fprintf(stderr,
            "blockkit: export: %llu chunks written (%llu files), %llu skipped, %llu files rewritten (failed the "
            "--verify checks), %llu removed (off the best chain), %llu blocks, rows: %llu blocks, "
            "%llu transactions, %llu inputs, %llu outputs; %.1f MB in, %.1f MB out (%.3fx), %.3f s (+ %.3f s "
            "chain) = %.1f MB/s, -j%d\n",
            (unsigned long long)total->chunks_written, (unsigned long long)total->files_written,
            (unsigned long long)total->chunks_skipped, (unsigned long long)total->chunks_rewritten,
            (unsigned long long)total->chunks_removed, (unsigned long long)total->blocks,
            (unsigned long long)total->rows[0], (unsigned long long)total->rows[1],
            (unsigned long long)total->rows[2], (unsigned long long)total->rows[3], (double)total->bytes_in / 1e6,
            (double)total->bytes_out / 1e6, total->bytes_in ? (double)total->bytes_out / (double)total->bytes_in : 0,
            total->seconds, total->chain_seconds, mbs, total->workers);
}

/* The block datasets: the lock on --out, then one run, or --follow's
 * runs until a signal; the --summary line at the end. */
static int export_blocks(const char *cmd, bk_cli_source *src, bk_export_opts *o, const bk_cli_range *range,
                         int follow, int64_t poll_s, int summary, int progress)
{
    /* The stop signals are caught before anything is made under --out: a
     * signal that arrives once the directory exists stops cleanly (128+N
     * with its message), never by the default action. */
    bk_cli_stop_saved sigs;
    o->cancel = bk_cli_stop_signals_catch(&sigs);
    /* one writer per --out, held across --follow's runs (export.h) */
    bk_out_lock lock;
    bk_error lerr;
    bk_error_clear(&lerr);
    if (bk_out_lock_take(&lock, o->out_dir, &lerr) != BK_OK) {
        bk_cli_stop_signals_restore(&sigs);
        bk_cli_source_free(src);
        if (bk_cli_stop) {
            fprintf(stderr, "blockkit: export: stopped by a signal\n");
            return 128 + (int)bk_cli_stop;
        }
        return bk_cli_report(cmd, &lerr);
    }
    o->out_locked = 1;
    bk_cli_progress pc;
    bk_cli_progress_init(&pc, bk_cli_progress_on(progress));
    o->progress = on_progress;
    o->progress_ctx = &pc;
    int64_t waited_tip = -2, waited_next = -2, waited_undo = -2; /* the last waiting line printed */

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
        int crc = bk_cli_source_build(cmd, src, o->net, &bk_cli_stop, follow && total.chunks_written + total.chunks_skipped,
                                      &chain);
        if (crc) {
            if (bk_cli_stop) fprintf(stderr, "blockkit: export: stopped by a signal; complete chunks kept, rerun to continue\n");
            rc = bk_cli_stop ? 128 + (int)bk_cli_stop : crc;
            break;
        }
        o->chain = &chain;
        bk_status s = bk_export_run(o, &st, &err);
        o->chain = NULL;
        bk_chain_free(&chain);
        bk_cli_progress_end(&pc);
        export_stats_add(&total, &st);
        if (st.missing_undo)
            fprintf(stderr, "blockkit: export: %llu block(s) exported without undo data (spent columns null)\n",
                    (unsigned long long)st.missing_undo);
        if (s == BK_ERR_CANCELLED || bk_cli_stop) {
            fprintf(stderr, "blockkit: export: stopped by a signal; complete chunks kept, rerun to continue\n");
            rc = 128 + (int)bk_cli_stop;
            break;
        }
        if (s != BK_OK) {
            rc = bk_cli_report(cmd, &err); /* not found (a block's undo data): 66 */
            break;
        }
        /* No silent empty success: a range with no block is an error. */
        if (!follow && st.blocks == 0 && st.chunks_skipped == 0) {
            rc = bk_cli_empty_range(cmd, range);
            break;
        }
        if (!follow) break;
        /* Say what the next look waits for (once for each tip and chunk). */
        if (st.waiting_undo >= 0 && (st.waiting_undo != waited_undo || st.next_height != waited_next)) {
            /* Core stores a block when it gets it and its undo data when it
             * connects it: a syncing node's blk files run ahead of its rev files */
            int64_t first = st.next_height, last = first / o->chunk_size * o->chunk_size + o->chunk_size - 1;
            fprintf(stderr,
                    "blockkit: %s: waiting: tip at height %lld, but the undo data of height %lld is not in rev*.dat "
                    "yet (the node has not connected that block); the next chunk (heights %lld-%lld) is written once "
                    "it is; next look in %lld s\n",
                    cmd, (long long)st.tip_height, (long long)st.waiting_undo, (long long)first, (long long)last,
                    (long long)poll_s);
            waited_undo = st.waiting_undo;
            waited_tip = st.tip_height;
            waited_next = st.next_height;
        } else if (st.waiting_undo < 0 && (st.tip_height != waited_tip || st.next_height != waited_next)) {
            int64_t first = st.next_height, last = first / o->chunk_size * o->chunk_size + o->chunk_size - 1;
            char line[320];
            fprintf(stderr, "%s\n", bk_cli_follow_waiting(line, sizeof line, cmd, st.tip_height, first, last,
                                                         last + o->below_tip, poll_s));
            waited_tip = st.tip_height;
            waited_next = st.next_height;
        }
        /* sleep until the next look, waking for a signal */
        for (int64_t q = 0; q < poll_s * 10 && !bk_cli_stop; q++) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (bk_cli_stop) {
            fprintf(stderr, "blockkit: export: stopped by a signal; complete chunks kept, rerun to continue\n");
            rc = 128 + (int)bk_cli_stop;
            break;
        }
    }
    bk_cli_stop_signals_restore(&sigs);
    bk_out_lock_release(&lock);
    if (summary) export_summary_print(&total);
    bk_cli_source_free(src);
    return rc;
}

static int export_main(int argc, char **argv)
{
    const char *cmd = "export";
    int summary = 0, follow = 0, progress = BK_PROGRESS_AUTO, verify = 0, deep = 0, schema = 0;
    int64_t lag = 6, poll_s = 30, chunk_rows = 1000000, utxo_height = -1;
    const char *datasets = NULL, *snapshot = NULL;
    bk_export_opts o;
    bk_export_opts_init(&o);
    bk_cli_source src;
    bk_cli_source_init(&src);
    bk_cli_range range;
    bk_cli_range_init(&range);
    o.workers = bk_cli_default_workers();
    bk_opt opts[] = {
        BK_OPT_ROW_DATADIR(&src),
        BK_OPT_IN(IN_BLOCKS | IN_VERIFY | IN_UTXO_STATS, BK_OPT_ROW_BLOCKSDIR(&src)),
        BK_OPT_SOURCE_NET(&src),
        BK_OPT_IN(IN_BLOCKS | IN_VERIFY, BK_OPT_ROW_BLOCKINDEX(&src)),
        BK_OPT_IN(IN_BLOCKS | IN_VERIFY, BK_OPT_ROW_SOURCE(&src)),
        BK_OPT_ROW_STR("--out", 'o', &o.out_dir, "DIR", "output directory (created)"),
        BK_OPT_IN(IN_WRITES, BK_OPT_ROW_CALL("--datasets", 0, &datasets, parse_datasets, "LIST",
                                             "blocks,transactions,inputs,outputs (default), block_stats,\n"
                                             "block_filters, sp_tweaks, sp_outputs, all; or utxos on its own")),
        BK_OPT_IN(IN_WRITES, BK_OPT_ROW_FORMAT(&o.format)),
        BK_OPT_IN(IN_WRITES, BK_OPT_ROW_COMPRESSION(&o.pq.codec)),
        BK_OPT_IN(IN_WRITES, BK_OPT_ROW_ZSTD_LEVEL(&o.pq.zstd_level)),
        BK_OPT_IN(IN_BLOCKS | IN_UTXOS, BK_OPT_ROW_CALL("--profile", 0, &o.profile, parse_profile, "default|lean",
                                                        "lean: hashes as 32-byte binary, scripts and witness items as\n"
                                                        "binary, no script_asm or desc (default: BigQuery's layout)")),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_STR("--columns", 0, &o.columns, "LIST",
                                            "dataset.column,... to write (a dataset not named keeps all)")),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_STR("--exclude-columns", 0, &o.exclude_columns, "LIST",
                                            "dataset.column,... to leave out")),
        BK_OPT_ROW_FLAG("--schema", 0, &schema,
                        "write nothing: print each column of the datasets with its\n"
                        "Parquet and SQL types, as this run would write them"),
        BK_OPT_IN(IN_BLOCKS | IN_UTXO_STATS, BK_OPT_ROW_START(&range)),
        BK_OPT_IN(IN_BLOCKS | IN_UTXO_STATS, BK_OPT_ROW_END(&range)),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_I64("--chunk-size", 0, &o.chunk_size, 1, 100000000, "N",
                                            "heights per chunk file (default 10000)")),
        BK_OPT_IN(IN_WRITES, BK_OPT_JOBS(&o.workers, "chunks written in parallel (default: online CPUs)")),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_FLAG("--orphans", 0, &o.orphans,
                                             "also blocks whose ancestors are not in the files, placed\n"
                                             "by their BIP34 height (median_time and chainwork null)")),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_FLAG("--allow-missing-undo", 0, &o.allow_missing_undo,
                                             "export blocks without rev data with null spent columns\n"
                                             "(default: stop before such a block, exit 66)")),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_FLAG("--follow", 0, &follow,
                                             "keep running: write each next chunk once the tip is\n"
                                             "--lag blocks past its end; partial chunks are never written")),
        BK_OPT_ROW_FLAG("--verify", 0, &verify,
                        "write nothing: check DIR against the node's best chain and\n"
                        "its catalogue (exit 0 complete, 1 with a line per problem)"),
        BK_OPT_IN(IN_VERIFY, BK_OPT_ROW_FLAG("--deep", 0, &deep, "--verify: also every file's SHA-256 and rows")),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_I64("--lag", 0, &lag, 0, 1000000, "N",
                                            "--follow: confirmations past a chunk's end (default 6)")),
        BK_OPT_IN(IN_BLOCKS, BK_OPT_ROW_I64("--poll", 0, &poll_s, 1, 86400, "S",
                                            "--follow: seconds between looks at the files (default 30)")),
        BK_OPT_PROGRESS(&progress),
        BK_OPT_ROW_FLAG("--summary", 0, &summary, "one line on stderr at the end"),
        BK_OPT_IN(IN_UTXOS, BK_OPT_ROW_STR("--utxo-snapshot", 0, &snapshot, "FILE|-",
                                           "utxos: a dumptxoutset file (format 2; - = standard input)")),
        BK_OPT_IN(IN_UTXOS, BK_OPT_ROW_I64("--height", 0, &utxo_height, 0, INT32_MAX, "N",
                                           "utxos: with --datadir, the set at height N (the chainstate\n"
                                           "rolled back with the undo data above it, never touching the\n"
                                           "node); with --utxo-snapshot, its base block's height")),
        BK_OPT_IN(IN_UTXOS, BK_OPT_ROW_I64("--chunk-rows", 0, &chunk_rows, 1, 1000000000000LL, "N",
                                           "utxos: rows per file (default 1000000)")),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, export_intro, export_outro, opts, 0};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    bk_opt_args_free(&args);
    if (schema && datasets && !strcmp(datasets, "utxos")) return export_utxo_schema(cmd, &o);
    if (schema) {
        unsigned ds = BK_DS_DEFAULT_MASK | (1u << BK_DS_BLOCK_STATS) | (1u << BK_DS_BLOCK_FILTERS) |
                      (1u << BK_DS_SP_TWEAKS) | (1u << BK_DS_SP_OUTPUTS);
        if (datasets && bk_export_datasets_parse(datasets, &ds) != BK_OK)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "--schema: bad value for --datasets: '%s' (the block datasets, "
                               "or utxos alone)", datasets);
        return export_schema(cmd, ds, o.profile, o.columns, o.exclude_columns);
    }
    if (!o.out_dir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--out DIR is required");
    if (deep && !verify) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--deep is for --verify");
    if (verify) {
        int vrc = bk_opt_mode_check(&spec, MODE_VERIFY, export_modes);
        if (vrc) return vrc;
        vrc = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_BLOCKS);
        if (!vrc) {
            bk_cli_stop_saved sigs;
            bk_cli_stop_signals_catch(&sigs);
            vrc = export_verify(cmd, &src, o.out_dir, deep, summary);
            bk_cli_stop_signals_restore(&sigs);
        }
        bk_cli_source_free(&src);
        return vrc;
    }
    if (datasets && !strcmp(datasets, "utxo_stats")) {
        /* gettxoutsetinfo by height as a table (cli/export_utxo_stats.c) */
        int mrc = bk_opt_mode_check(&spec, MODE_UTXO_STATS, export_modes);
        if (mrc) return mrc;
        if (!src.datadir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--datasets utxo_stats needs --datadir DIR");
        int rrc = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_DATADIR);
        if (rrc) {
            bk_cli_source_free(&src);
            return rrc;
        }
        bk_utxo_stats_export_opts xo = {src.datadir, src.blocksdir, src.tmpdir, src.net, o.out_dir, o.format, o.pq,
                                        range.start, range.end, range.below_tip, o.workers, NULL, 0};
        rrc = bk_cli_export_utxo_stats(&xo);
        bk_cli_source_free(&src);
        return rrc;
    }
    if (datasets && names_utxos(datasets))
        return export_utxos_mode(cmd, &spec, &src, &o, datasets, snapshot, utxo_height, chunk_rows, summary, progress);
    int mrc = bk_opt_mode_check(&spec, MODE_BLOCKS, export_modes);
    if (mrc) return mrc;
    if (datasets && bk_export_datasets_parse(datasets, &o.datasets) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for --datasets: '%s' (blocks, transactions, inputs, "
                           "outputs, block_stats, block_filters, sp_tweaks, sp_outputs, all; or utxos alone)", datasets);
    o.start = range.start;
    o.end = range.end;
    o.below_tip = range.below_tip >= 0 ? range.below_tip : 0;
    if (o.end >= 0 && o.end < o.start)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--end %lld is below --start %lld", (long long)o.end,
                           (long long)o.start);
    if (follow && (o.end >= 0 || range.below_tip >= 0))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--follow runs to the tip less --lag: no --end");
    int src_err = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_BLOCKS);
    if (src_err) {
        bk_cli_source_free(&src);
        return src_err;
    }
    o.net = src.net;
    src.orphans_ok = o.orphans;
    o.blocksdir = src.blocksdir;
    if (follow) {
        o.complete_only = 1;
        o.below_tip = lag;
    }

    return export_blocks(cmd, &src, &o, &range, follow, poll_s, summary, progress);
}

BK_CLI_COMMAND(export_command, "export",
               "--blocksdir DIR | --datadir DIR --out DIR [--format parquet|csv|ndjson] [--datasets LIST] [-j N]",
               "the chain as Parquet/CSV/NDJSON tables in height chunks (resumable, --follow)", export_main)
