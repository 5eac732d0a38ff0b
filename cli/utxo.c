/* blockkit utxo: the UTXO set of a Bitcoin Core node without the node -
 * its chainstate (--datadir) or a dumptxoutset snapshot (--utxo-snapshot).
 *   utxo stats: gettxoutsetinfo's result, byte for byte;
 *   utxo dump:  one row per coin (CSV, NDJSON or Parquet) in key order, the
 *               rows of `export --datasets utxos` (cli/utxo_rows.c) in one file;
 *   utxo snapshot: Core's dumptxoutset rollback. */
#include "cli.h"
#include "opt.h"
#include "source.h"
#include "utxo_rows.h"

#include <blockkit/engine.h>
#include <blockkit/export.h>
#include <blockkit/hex.h>
#include <blockkit/script.h>
#include <blockkit/table.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char utxo_usage[] =
    "usage: blockkit utxo stats (--datadir DIR | --utxo-snapshot FILE) [options]\n"
    "       blockkit utxo dump  (--datadir DIR | --utxo-snapshot FILE) [options]\n"
    "       blockkit utxo snapshot --datadir DIR [options]  (dumptxoutset rollback)\n"
    "(blockkit utxo stats --help, utxo dump --help, utxo snapshot --help: the options)\n";

static const char stats_intro[] =
    "Print Bitcoin Core's gettxoutsetinfo result (compact JSON, one line):\n"
    "height, bestblock, txouts, bogosize, hash_serialized_3 | muhash, total_amount,\n"
    "transactions, disk_size; of the chainstate of --datadir (a private LevelDB\n"
    "snapshot: the node's files are never written or locked, works while bitcoind\n"
    "runs; the height from its block index) or of a dumptxoutset file.\n";

static const char dump_intro[] =
    "One row per unspent output in key order (txid bytes, then vout): txid, vout,\n"
    "value (satoshis), height, is_coinbase, script_hex, type, address, desc (type,\n"
    "address and desc as Core prints them in scriptPubKey); the rows of blockkit\n"
    "export's utxos dataset in one file. -o FILE is written as FILE.tmp-PID and\n"
    "renamed when complete: a failure or a signal leaves no FILE (and a\n"
    "FILE.tmp-PID that a killed run left is removed).\n";

static const char utxo_outro[] =
    "A snapshot holds no height: give --datadir (the block index of a node that\n"
    "knows the base block) or --height N. disk_size: with --datadir, LevelDB's\n"
    "approximate size of the coin key range, as Core computes it (it changes as\n"
    "the node compacts); with --utxo-snapshot, the bytes of the snapshot file.\n"
    "SIGINT and SIGTERM end with status 128 + the signal number (dump -o FILE:\n"
    "no FILE is left).\n"
    "Exit status: 0 ok, 64 usage, 65 bad data, 66 missing input, 74 I/O,\n"
    "128+N stopped by signal N.\n";

typedef struct utxo_opts {
    bk_cli_source src;
    const char *snapshot, *out_file;
    int64_t height;      /* --height, -1 when not given */
    int hash_type;       /* bk_utxo_hash_type */
    int jobs;
    int force;
    bk_table_format format;
    bk_pq_opts po;
} utxo_opts;

static int parse_hash_type(void *dest, const char *v)
{
    bk_utxo_hash_type t;
    if (bk_utxo_hash_type_parse(v, &t) != BK_OK) return 0;
    *(int *)dest = (int)t;
    return 1;
}

#define UTXO_COMMON_ROWS(o)                                                                          \
    BK_OPT_SOURCE_DATADIR(&(o)->src),                                                                 \
    BK_OPT_ROW_STR("--utxo-snapshot", 0, &(o)->snapshot, "FILE|-",                                    \
                   "a dumptxoutset file (format version 2); - = standard input"),                    \
    BK_OPT_ROW_I64("--height", 0, &(o)->height, 0, INT32_MAX, "N",                                    \
                   "with --datadir: the set at height N (the chainstate rolled back\n"             \
                   "with the undo data above it); with --utxo-snapshot: the height\n"               \
                   "of its base block")

/* Parse argv with the command's rows; then the datadir resolved (its
 * network found from the files). Returns BK_OPT_CONTINUE or an exit code. */
static int utxo_parse(bk_opt_spec *spec, int argc, char **argv, utxo_opts *o)
{
    bk_opt_args args;
    int rc = bk_opt_parse(spec, argc, argv, &args);
    if (rc != BK_OPT_CONTINUE) return rc;
    bk_opt_args_free(&args);
    if (o->src.datadir && (rc = bk_cli_source_resolve(spec->cmd, &o->src, BK_CLI_NEED_DATADIR)) != 0) return rc;
    return BK_OPT_CONTINUE;
}

static void utxo_opts_init(utxo_opts *o)
{
    memset(o, 0, sizeof *o);
    bk_cli_source_init(&o->src);
    o->height = -1;
    o->hash_type = BK_UTXO_HASH_SERIALIZED_3;
    o->jobs = bk_cli_default_workers();
    if (o->jobs > 64) o->jobs = 64;
    o->format = BK_TABLE_CSV;
    bk_pq_opts_init(&o->po);
}

/* --height H / --start/--end of a datadir (below) */
static int past_stats(const char *cmd, const utxo_opts *o, const bk_opt_spec *spec, const bk_cli_range *range);

static int utxo_stats(int argc, char **argv)
{
    const char *cmd = "utxo stats";
    utxo_opts o;
    utxo_opts_init(&o);
    bk_cli_range range;
    bk_cli_range_init(&range);
    bk_opt opts[] = {
        UTXO_COMMON_ROWS(&o),
        BK_OPT_ROW_CALL("--hash-type", 0, &o.hash_type, parse_hash_type, "hash_serialized_3|muhash|none",
                        "the set's hash (default hash_serialized_3)"),
        BK_OPT_JOBS(&o.jobs, "muhash: multiply on N threads (default: the online CPUs)"),
        BK_OPT_RANGE(&range), /* with --datadir, one line per height */
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, stats_intro, utxo_outro, opts, 0};
    int rc = utxo_parse(&spec, argc, argv, &o);
    if (rc != BK_OPT_CONTINUE) {
        bk_cli_source_free(&o.src);
        return rc;
    }
    /* a past height or a range of heights of a datadir */
    if (o.src.datadir && (o.height >= 0 || bk_opt_given(&spec, "--start") || bk_opt_given(&spec, "--end"))) {
        rc = past_stats(cmd, &o, &spec, &range);
        if (rc >= 0) {
            bk_cli_source_free(&o.src);
            return rc;
        }
        rc = 0;
    } else if (bk_opt_given(&spec, "--start") || bk_opt_given(&spec, "--end")) {
        bk_cli_source_free(&o.src);
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--start/--end need --datadir (the blocks and undo data)");
    }
    rc = 0;
    bk_utxo_hash_type ht = (bk_utxo_hash_type)o.hash_type;
    unsigned threads = (unsigned)(o.jobs > 64 ? 64 : o.jobs);
    bk_utxo_source src;
    bk_utxo_source_opts so;
    utxo_source_opts_from(&so, &o.src, o.snapshot, o.height, 0);
    rc = utxo_source_open(cmd, &so, &src);
    if (rc) {
        bk_cli_source_free(&o.src);
        return rc;
    }
    bk_error err;
    bk_error_clear(&err);
    bk_utxo_stats st;
    if (bk_utxo_stats_begin(&st, ht, NULL, &err) != BK_OK) {
        bk_utxo_source_close(&src);
        return bk_cli_report(cmd, &err);
    }
    if (threads > 1 && bk_utxo_stats_set_threads(&st, threads) != BK_OK) {
        bk_utxo_stats_free(&st);
        bk_utxo_source_close(&src);
        return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "cannot set threads");
    }
    bk_utxo u;
    while (bk_utxo_source_next(&src, &u)) {
        if (bk_utxo_stats_add(&st, &u, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            break;
        }
    }
    if (!rc && bk_utxo_source_status(&src, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (!rc && bk_utxo_stats_end(&st, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (!rc) {
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_json j;
        bk_json_init(&j, &w, 0);
        bk_utxo_stats_json(&j, &st, src.height, src.best, src.disk_size);
        bk_writer_putc(&w, '\n');
        if (bk_writer_status(&w) != BK_OK) rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        else rc = bk_cli_output_write(cmd, stdout, NULL, w.data, w.len);
        if (!rc) rc = bk_cli_output_flush(cmd, stdout, NULL);
        bk_writer_free(&w);
    }
    bk_utxo_stats_free(&st);
    bk_utxo_source_close(&src);
    bk_cli_source_free(&o.src);
    return rc;
}

/* utxo dump: every row into one table writer: on a stream (standard
 * output, or an -o FILE that is not a regular file: a FIFO, /dev/full), or
 * the table of a bk_chunk_file for an -o FILE written under a temporary
 * name and renamed when complete. */
typedef struct dump_ctx {
    bk_table_writer *t;
    bk_table_writer own;
    bk_chunk_file cf;
    int to_file; /* t is cf's table */
    const char *cmd;
    FILE *out;
    const char *path; /* -o FILE, NULL for standard output */
} dump_ctx;

/* A table error: BK_ERR_IO from a table writer is always its sink failing,
 * reported once as a write error naming the output (cli.h), the temporary
 * file when it is one; anything else with its own message. */
static int dump_fail(const dump_ctx *d, const bk_error *err)
{
    if (err->status == BK_ERR_IO && d->to_file && d->cf.failed)
        return bk_cli_fail(d->cmd, BK_EXIT_IO, "%s: write error: %s", d->cf.tmp_path, strerror(d->cf.err_no));
    if (err->status == BK_ERR_IO && !d->to_file)
        return bk_cli_output_error(d->cmd, d->out, d->path, bk_cli_write_errno);
    return bk_cli_report(d->cmd, err);
}

static int dump_emit(void *vctx, const bk_utxo_batch *b)
{
    dump_ctx *d = vctx;
    bk_error err;
    bk_error_clear(&err);
    if (bk_utxo_batch_write(b, 0, bk_utxo_batch_count(b), d->t, &err) != BK_OK)
        return bk_cli_pipe_closed ? -1 : dump_fail(d, &err);
    return 0;
}

static int utxo_dump(int argc, char **argv)
{
    const char *cmd = "utxo dump";
    utxo_opts o;
    utxo_opts_init(&o);
    bk_opt opts[] = {
        UTXO_COMMON_ROWS(&o),
        BK_OPT_TABLE_FORMAT(&o.format, &o.po.codec, &o.po.zstd_level),
        BK_OPT_JOBS(&o.jobs, "render rows on N threads, written in key order (default:\nthe online CPUs)"),
        BK_OPT_OUTPUT(&o.out_file, "write FILE instead of standard output; an existing\n"
                                   "file is refused unless --force"),
        BK_OPT_FORCE(&o.force),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, dump_intro, utxo_outro, opts, 0};
    /* csv unless --format says otherwise (export's default is parquet) */
    int rc = utxo_parse(&spec, argc, argv, &o);
    if (rc != BK_OPT_CONTINUE) {
        bk_cli_source_free(&o.src);
        return rc;
    }
    rc = 0;
    bk_table_format format = o.format;
    bk_pq_opts po = o.po;
    if (format != BK_TABLE_PARQUET && (bk_opt_given(&spec, "--compression") || bk_opt_given(&spec, "--zstd-level"))) {
        bk_cli_source_free(&o.src);
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--compression and --zstd-level are for --format parquet");
    }
    unsigned threads = (unsigned)(o.jobs > 64 ? 64 : o.jobs);
    if (o.out_file && strcmp(o.out_file, "-") && !o.force) {
        /* never clobber a finished dump by accident (as scan -o) */
        struct stat ost;
        if (stat(o.out_file, &ost) == 0 && S_ISREG(ost.st_mode) && ost.st_size > 0) {
            bk_cli_source_free(&o.src);
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s exists and is not empty: --force overwrites it", o.out_file);
        }
    }
    bk_utxo_source src;
    /* A snapshot's height only bounds its coins here: not needed. With
     * --datadir, --height H is the set at H (the chainstate rolled back,
     * as export --datasets utxos --height H: one implementation). */
    bk_utxo_source_opts so;
    utxo_source_opts_from(&so, &o.src, o.snapshot, o.height, 1);
    so.height_optional = 1;
    rc = utxo_source_open(cmd, &so, &src);
    if (rc) {
        bk_cli_source_free(&o.src);
        return rc;
    }
    static dump_ctx d; /* bk_chunk_file holds two paths: not on the stack */
    memset(&d, 0, sizeof d);
    d.cmd = cmd;
    d.out = stdout;
    if (o.out_file && strcmp(o.out_file, "-")) {
        struct stat sb, lsb;
        d.path = o.out_file;
        int exists = stat(o.out_file, &sb) == 0;
        if (exists && S_ISDIR(sb.st_mode)) {
            bk_utxo_source_close(&src);
            bk_cli_source_free(&o.src);
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "-o %s is a directory: give a file name", o.out_file);
        }
        /* a regular file or a new name: the temporary file and the rename;
         * a symbolic link (even a dangling one) is written through, as
         * before: a rename would replace the link */
        int link = lstat(o.out_file, &lsb) == 0 && S_ISLNK(lsb.st_mode);
        d.to_file = !link && (!exists || S_ISREG(sb.st_mode));
        if (!d.to_file && !(d.out = fopen(o.out_file, "wb"))) {
            int e = errno; /* before the close */
            bk_utxo_source_close(&src);
            bk_cli_source_free(&o.src);
            return bk_cli_fail(cmd, BK_EXIT_IO, "cannot create %s: %s", o.out_file, strerror(e));
        }
    }
    bk_error err;
    bk_error_clear(&err);
    size_t ncols;
    const bk_pq_column *cols = bk_utxo_columns(&ncols);
    bk_status ost;
    /* SIGINT / SIGTERM while writing FILE: the temporary file is removed,
     * nothing stays under the name, exit 128 + the signal. Caught before
     * the temporary file exists, so no signal finds it without the handler
     * that removes it (a SIGTERM right after its creation left it behind). */
    bk_cli_stop_saved sigs;
    volatile sig_atomic_t *stop = d.to_file ? bk_cli_stop_signals_catch(&sigs) : NULL;
    if (d.to_file) {
        ost = bk_chunk_file_open_path(&d.cf, o.out_file, format, cols, ncols, &po, NULL, &err);
        d.t = &d.cf.table;
    } else {
        ost = bk_table_open(&d.own, format, cols, ncols, &po, bk_cli_file_sink, d.out, NULL, &err);
        d.t = &d.own;
    }
    if (ost != BK_OK) {
        rc = bk_cli_pipe_closed ? 0 : d.to_file ? bk_cli_report(cmd, &err) : dump_fail(&d, &err);
    } else if (d.to_file) {
        rc = utxo_rows_run(cmd, &src, BK_PROFILE_DEFAULT, threads, dump_emit, &d, stop);
        if (!rc && *stop) rc = bk_cli_fail(cmd, 128 + (int)*stop, "interrupted; %s not written", o.out_file);
        if (!rc && bk_chunk_file_commit(&d.cf, &err) != BK_OK)
            rc = err.status == BK_ERR_IO ? bk_cli_fail(cmd, BK_EXIT_IO, "%s", err.msg) /* names the file */
                                         : bk_cli_report(cmd, &err);
        else if (rc) bk_chunk_file_abort(&d.cf);
        bk_chunk_file_release(&d.cf);
    } else {
        rc = utxo_rows_run(cmd, &src, BK_PROFILE_DEFAULT, threads, dump_emit, &d, NULL);
        if (rc < 0) rc = 0; /* a closed pipe */
        if (!rc && !bk_cli_pipe_closed && bk_table_finish(d.t, &err) != BK_OK) rc = dump_fail(&d, &err);
        if (!rc) rc = bk_cli_output_flush(cmd, d.out, d.path);
        bk_table_close(d.t);
    }
    if (stop) bk_cli_stop_signals_restore(&sigs);
    if (d.out != stdout) {
        int crc = bk_cli_output_close(cmd, d.out, d.path, 0);
        if (!rc) rc = crc;
    }
    bk_utxo_source_close(&src);
    bk_cli_source_free(&o.src);
    return rc;
}

/* ---- coin statistics at past heights, the set at a past height ----
 * utxo stats --datadir D --hash-type muhash|none --height H | --start S --end E|-N:
 *   Core's gettxoutsetinfo <type> <height> true (coinstatsindex format), one
 *   line per height, from one forward pass over blocks and undo data
 *   (bk_coinstats_series);
 * utxo stats --datadir D --hash-type hash_serialized_3 --height H (below the
 *   tip): the set rolled back to H (bk_utxo_rollback), hashed;
 * utxo snapshot --datadir D --height H -o FILE: Core's dumptxoutset FILE
 *   rollback {"rollback":H}, file and result (bk_utxo_dump_run). */

/* The datadir's block index chain, blocks and (want_cs) chainstate: the
 * library's bk_utxo_node. 0; -1 when the datadir has no block index
 * (allow_none: then nothing is printed); or an exit code. */
static int past_open(const char *cmd, const utxo_opts *o, int want_cs, int allow_none, bk_utxo_node *p)
{
    bk_error err;
    bk_error_clear(&err);
    bk_utxo_source_opts so;
    utxo_source_opts_from(&so, &o->src, NULL, -1, 0);
    so.blocksdir = o->src.blocksdir;
    unsigned flags = (want_cs ? BK_UTXO_NODE_CHAINSTATE : 0) | (allow_none ? BK_UTXO_NODE_INDEX_OPTIONAL : 0);
    if (bk_utxo_node_open(p, &so, flags, &err) == BK_OK) return 0;
    return p->no_index ? -1 : bk_cli_report(cmd, &err);
}

static int past_fail(const char *cmd, bk_status s, const bk_error *err)
{
    return bk_cli_fail(cmd, bk_cli_exit_code(s), "%s", err->msg);
}

typedef struct series_out {
    const char *cmd;
    int with_muhash;
    int rc;
    int64_t next;  /* the height of the next line */
} series_out;

static bk_status series_emit(void *vctx, const bk_coinstats *cur, const bk_coinstats *prev, bk_error *err)
{
    series_out *so = vctx;
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_coinstats_json(&j, cur, prev, so->with_muhash);
    bk_writer_putc(&w, '\n');
    if (bk_writer_status(&w) != BK_OK) {
        bk_writer_free(&w);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    so->rc = bk_cli_output_write(so->cmd, stdout, NULL, w.data, w.len);
    bk_writer_free(&w);
    if (!so->rc) so->next = (int64_t)cur->height + 1;
    return so->rc ? bk_error_set(err, BK_ERR_IO, 0, "standard output") : BK_OK;
}

/* The series: heights [start, end] of the index's active chain. */
static int past_series(const char *cmd, bk_utxo_node *p, bk_utxo_hash_type ht, int64_t start, int64_t end,
                       int jobs)
{
    const bk_chain_entry *tip = bk_chain_tip(&p->chain);
    if (!tip) return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "the block index has no active chain");
    if (start > tip->height)
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "Target block height %lld after current tip %d", (long long)start,
                           (int)tip->height);
    if (end > tip->height) end = tip->height;
    if (end < start)
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no block in heights %lld..%lld (the tip is at height %d)",
                           (long long)start, (long long)end, (int)tip->height);
    bk_coinstats_series_opts so;
    memset(&so, 0, sizeof so);
    so.start = (int32_t)start;
    so.end = (int32_t)end;
    so.with_muhash = ht == BK_UTXO_HASH_MUHASH;
    so.workers = jobs;
    series_out out = {cmd, so.with_muhash, 0, start};
    bk_error err;
    bk_error_clear(&err);
    bk_engine_where wh;
    /* SIGINT, SIGTERM, SIGHUP: finish the current line, then stop with
     * 128 + N, as stats and scan do */
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    so.cancel = &bk_cli_stop;
    bk_status s = bk_coinstats_series(&p->chain, &p->dir, &so, series_emit, &out, &wh, &err);
    bk_cli_stop_signals_restore(&saved);
    if (s == BK_ERR_CANCELLED || (s != BK_OK && bk_cli_stop && !out.rc)) {
        int frc = bk_cli_output_flush(cmd, stdout, NULL);
        fprintf(stderr, "blockkit: %s: stopped by a signal before height %lld; resume with --start %lld\n", cmd,
                (long long)out.next, (long long)out.next);
        return frc ? frc : 128 + (int)(bk_cli_stop ? bk_cli_stop : SIGINT);
    }
    if (s != BK_OK) {
        if (out.rc) return bk_cli_pipe_closed ? 0 : out.rc;
        if (wh.stage != BK_STAGE_NONE && wh.stage != BK_STAGE_CONSUME) {
            char m[4608];
            bk_engine_error_format(&wh, &err, m, sizeof m);
            return bk_cli_fail(cmd, bk_cli_exit_code(s), "%s", m);
        }
        return past_fail(cmd, s, &err);
    }
    return bk_cli_output_flush(cmd, stdout, NULL);
}

/* hash_serialized_3 of the set rolled back to height: gettxoutsetinfo's
 * result as the node at that height would print it, without disk_size (a
 * rolled-back set has no database to measure). */
static int past_hash_serialized(const char *cmd, bk_utxo_node *p, int32_t height, const char *tmpdir)
{
    bk_error err;
    bk_error_clear(&err);
    bk_utxo_rollback_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.tmpdir = tmpdir;
    bk_utxo_stats st;
    bk_utxo_rollback_info info;
    bk_status s = bk_utxo_rollback_stats(p->cs, &p->chain, &p->dir, height, &ro, BK_UTXO_HASH_SERIALIZED_3, &st,
                                         &info, &err);
    int rc = 0;
    if (s != BK_OK) {
        rc = past_fail(cmd, s, &err);
    } else {
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_json j;
        bk_json_init(&j, &w, 0);
        bk_utxo_stats_json_no_disk(&j, &st, height, info.base_hash);
        bk_writer_putc(&w, '\n');
        rc = bk_writer_status(&w) != BK_OK ? bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory")
                                           : bk_cli_output_write(cmd, stdout, NULL, w.data, w.len);
        if (!rc) rc = bk_cli_output_flush(cmd, stdout, NULL);
        bk_writer_free(&w);
    }
    bk_utxo_stats_free(&st);
    return rc;
}

/* utxo stats with --datadir and --height or a range: -1 when the old path
 * (the chainstate as it is) answers; else the exit code. */
static int past_stats(const char *cmd, const utxo_opts *o, const bk_opt_spec *spec, const bk_cli_range *range)
{
    bk_utxo_hash_type ht = (bk_utxo_hash_type)o->hash_type;
    int ranged = bk_opt_given(spec, "--start") || bk_opt_given(spec, "--end");
    if (ranged && o->height >= 0)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--height and --start/--end: give one of them");
    if (ranged && ht == BK_UTXO_HASH_SERIALIZED_3)
        return bk_cli_fail(cmd, BK_EXIT_USAGE,
                           "--start/--end need --hash-type muhash or none (as Core's coinstatsindex: "
                           "hash_serialized_3 cannot be queried for a specific block)");
    bk_utxo_node p;
    int rc = past_open(cmd, o, ht == BK_UTXO_HASH_SERIALIZED_3, !ranged, &p);
    if (rc) return rc; /* -1: no block index: --height states the chainstate's height */
    const bk_chain_entry *tip = bk_chain_tip(&p.chain);
    int64_t tip_h = tip ? tip->height : -1;
    if (ranged) {
        rc = past_series(cmd, &p, ht, range->start, bk_engine_range_end(tip_h, range->end, range->below_tip),
                         o->jobs);
    } else {
        int64_t h = o->height;
        if (h > tip_h) {
            rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "Target block height %lld after current tip %lld", (long long)h,
                             (long long)tip_h);
        } else if (ht != BK_UTXO_HASH_SERIALIZED_3) {
            rc = past_series(cmd, &p, ht, h, h, o->jobs);
        } else {
            uint8_t best[32];
            bk_chainstate_best_block(p.cs, best);
            const bk_chain_entry *at = bk_chain_at_height(&p.chain, h);
            if (at && memcmp(at->hash, best, 32) == 0) rc = -1; /* the chainstate itself */
            else rc = past_hash_serialized(cmd, &p, (int32_t)h, o->src.tmpdir);
        }
    }
    bk_utxo_node_close(&p);
    return rc;
}

static const char snapshot_intro[] =
    "Write the file Bitcoin Core's `dumptxoutset FILE rollback {\"rollback\":H}`\n"
    "writes, byte for byte, and print its result (coins_written, base_hash,\n"
    "base_height, path, txoutset_hash = hash_serialized_3, nchaintx): the\n"
    "chainstate rolled back to height H with the undo data of the blocks above\n"
    "it, without the node (its files are only read). Memory stays bounded: the\n"
    "restored coins are sorted in runs of --mem MiB spilled to --tmpdir.\n"
    "FILE is written as FILE.tmp-PID and renamed when complete (a FILE.tmp-PID\n"
    "that a killed run left is removed); an existing FILE is refused (as Core\n"
    "refuses it).\n";

static int utxo_snapshot(int argc, char **argv)
{
    const char *cmd = "utxo snapshot";
    utxo_opts o;
    utxo_opts_init(&o);
    int mem_mib = 64;
    bk_opt opts[] = {
        BK_OPT_SOURCE_DATADIR(&o.src),
        BK_OPT_ROW_I64("--height", 0, &o.height, 0, INT32_MAX, "H",
                       "the height to roll back to (default: the chainstate's best block)"),
        BK_OPT_ROW_STR("--output", 'o', &o.out_file, "FILE", "the snapshot file to write (required; not standard output:\n"
                       "the result is printed there)"),
        BK_OPT_ROW_INT("--mem", 0, &mem_mib, 1, 65536, "MiB",
                       "memory for restored coins before a sorted run is spilled (default 64)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, snapshot_intro, utxo_outro, opts, 0};
    int rc = utxo_parse(&spec, argc, argv, &o);
    if (rc != BK_OPT_CONTINUE) {
        bk_cli_source_free(&o.src);
        return rc;
    }
    if (!o.src.datadir || !o.out_file || !strcmp(o.out_file, "-")) {
        bk_cli_source_free(&o.src);
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "needs --datadir DIR and -o FILE (a file name)");
    }
    struct stat sb;
    if (lstat(o.out_file, &sb) == 0) {
        bk_cli_source_free(&o.src);
        return bk_cli_fail(cmd, BK_EXIT_USAGE,
                           "%s already exists. If you are sure this is what you want, move it out of the way first",
                           o.out_file);
    }
    bk_utxo_node p;
    rc = past_open(cmd, &o, 1, 0, &p);
    if (rc) {
        bk_cli_source_free(&o.src);
        return rc;
    }
    int32_t height;
    if (o.height >= 0) {
        height = (int32_t)o.height;
    } else {
        uint8_t best[32];
        bk_chainstate_best_block(p.cs, best);
        const bk_chain_entry *e = bk_chain_find(&p.chain, best);
        height = e ? e->height : -1;
    }
    bk_cli_stop_saved sigs;
    volatile sig_atomic_t *stop = bk_cli_stop_signals_catch(&sigs);
    bk_error err;
    bk_error_clear(&err);
    bk_utxo_rollback_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.tmpdir = o.src.tmpdir;
    ro.mem_limit = (size_t)mem_mib << 20;
    ro.cancel = stop;
    bk_utxo_dump_result dr;
    bk_status s = bk_utxo_dump_run(p.cs, &p.chain, &p.dir, height, o.out_file, &ro, &dr, &err);
    if (s != BK_OK) {
        rc = s == BK_ERR_CANCELLED ? bk_cli_fail(cmd, 128 + (int)(*stop ? *stop : 2), "interrupted; %s not written",
                                                 o.out_file)
                                   : past_fail(cmd, s, &err);
    } else {
        bk_writer wr;
        bk_writer_init(&wr, NULL);
        bk_json j;
        bk_json_init(&j, &wr, 0);
        bk_utxo_dump_json(&j, &dr, o.out_file);
        bk_writer_putc(&wr, '\n');
        rc = bk_writer_status(&wr) != BK_OK ? bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory")
                                            : bk_cli_output_write(cmd, stdout, NULL, wr.data, wr.len);
        if (!rc) rc = bk_cli_output_flush(cmd, stdout, NULL);
        bk_writer_free(&wr);
    }
    bk_cli_stop_signals_restore(&sigs);
    bk_utxo_node_close(&p);
    bk_cli_source_free(&o.src);
    return rc;
}

static int utxo_help(int to_stdout)
{
    if (to_stdout) return bk_cli_help("utxo", utxo_usage);
    fputs(utxo_usage, stderr);
    return BK_EXIT_USAGE;
}

static int utxo_main(int argc, char **argv)
{
    static const bk_opt_sub subs[] = {
        {"stats", utxo_stats}, {"dump", utxo_dump}, {"snapshot", utxo_snapshot}, {NULL, NULL}};
    const bk_opt_subcommands sc = {"utxo", subs, NULL, utxo_help, NULL,
                                   "unknown subcommand '%s' (stats, dump, snapshot; see --help)"};
    return bk_opt_dispatch(&sc, argc, argv);
}

BK_CLI_COMMAND(utxo_command, "utxo", "stats|dump|snapshot (--datadir DIR | --utxo-snapshot FILE)",
               "the UTXO set: gettxoutsetinfo's result, or one row per coin (CSV/NDJSON)", utxo_main)
