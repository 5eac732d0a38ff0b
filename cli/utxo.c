/* blockkit utxo: the UTXO set of a Bitcoin Core node without the node -
 * its chainstate (--datadir) or a dumptxoutset snapshot (--utxo-snapshot).
 *   utxo stats: gettxoutsetinfo's result, byte for byte;
 *   utxo dump:  one row per coin (CSV, NDJSON or Parquet) in key order, the
 *               rows of `export --datasets utxos` (cli/utxo_rows.c) in one file. */
#include "cli.h"
#include "utxo_rows.h"

#include <blockkit/hex.h>
#include <blockkit/script.h>
#include <blockkit/table.h>
#include <blockkit/utxo.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const utxo_usage =
    "usage: blockkit utxo stats (--datadir DIR | --utxo-snapshot FILE) [options]\n"
    "       blockkit utxo dump  (--datadir DIR | --utxo-snapshot FILE) [--format csv|ndjson|parquet] [-o FILE]\n"
    "\n"
    "stats: print Bitcoin Core's gettxoutsetinfo result (compact JSON, one line):\n"
    "  height, bestblock, txouts, bogosize, hash_serialized_3 | muhash, total_amount,\n"
    "  transactions, disk_size.\n"
    "dump: one row per unspent output in key order (txid bytes, then vout):\n"
    "  txid, vout, value (satoshis), height, is_coinbase, script_hex, type, address, desc\n"
    "  (type, address and desc as Core prints them in scriptPubKey); the rows of\n"
    "  blockkit export's utxos dataset in one file.\n"
    "\n"
    "  --datadir DIR         the node's data directory: reads DIR[/<chain>]/chainstate through a\n"
    "                        private LevelDB snapshot (never writes or locks the node's files;\n"
    "                        works while bitcoind runs); the height comes from its block index\n"
    "  --chain NAME          main (default), test|testnet3, testnet4, signet, regtest\n"
    "                        (with --utxo-snapshot: the snapshot's own network)\n"
    "  --utxo-snapshot FILE  a dumptxoutset file (format version 2); '-' = standard input.\n"
    "                        The snapshot holds no height: give --datadir (the block index of a\n"
    "                        node that knows the base block) or --height N\n"
    "  --height N            the height of the snapshot's base block (or of the chainstate's\n"
    "                        best block: then the block index is not read)\n"
    "  --hash-type T         stats: hash_serialized_3 (default), muhash, none\n"
    "  --threads N           stats muhash: multiply on N threads; dump: render rows on N threads\n"
    "                        (written in key order); default: the online CPUs\n"
    "  --format F            dump: csv (default: RFC 4180, a header line, CRLF), ndjson, or parquet\n"
    "                        (one file, row groups of about 64 MiB; --codec zstd|snappy|none)\n"
    "  -o FILE               dump: write to FILE instead of standard output (as FILE.tmp-PID,\n"
    "                        renamed when complete: a failure or a signal leaves no FILE)\n"
    "  --tmpdir DIR          where the private LevelDB snapshots are made (default $TMPDIR, /tmp)\n"
    "\n"
    "disk_size: with --datadir, LevelDB's approximate size of the coin key range, as Core\n"
    "computes it (it changes as the node compacts); with --utxo-snapshot, the number of bytes\n"
    "of the snapshot file.\n"
    "Exit codes: 0 ok, 64 usage, 65 bad data, 66 missing input, 74 I/O.\n";

typedef struct utxo_opts {
    const char *datadir, *snapshot, *chain, *hash_type, *format, *out_file, *tmpdir, *height, *threads, *codec;
} utxo_opts;

static utxo_source_opts source_opts(const utxo_opts *o)
{
    utxo_source_opts so = {o->datadir, o->snapshot, o->chain, o->height, o->tmpdir, 0};
    return so;
}

static int parse_args(const char *cmd, int argc, char **argv, utxo_opts *o, int *help)
{
    memset(o, 0, sizeof *o);
    *help = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = 1;
            return 0;
        }
        const char **slot = !strcmp(a, "--datadir")         ? &o->datadir
                            : !strcmp(a, "--utxo-snapshot") ? &o->snapshot
                            : !strcmp(a, "--chain")         ? &o->chain
                            : !strcmp(a, "--hash-type")     ? &o->hash_type
                            : !strcmp(a, "--format")        ? &o->format
                            : !strcmp(a, "-o") || !strcmp(a, "--output") ? &o->out_file
                            : !strcmp(a, "--tmpdir")        ? &o->tmpdir
                            : !strcmp(a, "--height")        ? &o->height
                            : !strcmp(a, "--threads")       ? &o->threads
                            : !strcmp(a, "--codec")         ? &o->codec
                                                            : NULL;
        if (!slot) return bk_cli_unknown_option(cmd, a);
        if (i + 1 >= argc) return bk_cli_missing_value(cmd, a);
        *slot = argv[++i];
    }
    return 0;
}

static int utxo_stats(int argc, char **argv)
{
    const char *cmd = "utxo stats";
    utxo_opts o;
    int help;
    int rc = parse_args(cmd, argc, argv, &o, &help);
    if (rc) return rc;
    if (help) {
        return bk_cli_help(cmd, utxo_usage);
    }
    if (o.format || o.out_file || o.codec)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--format, --codec and -o are for utxo dump");
    bk_utxo_hash_type ht = BK_UTXO_HASH_SERIALIZED_3;
    if (o.hash_type && bk_utxo_hash_type_parse(o.hash_type, &ht) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE,
                           "unknown hash type '%s' (hash_serialized_3, muhash, none)", o.hash_type);
    unsigned threads;
    rc = utxo_parse_threads(cmd, o.threads, &threads);
    if (rc) return rc;
    coin_source src;
    utxo_source_opts so = source_opts(&o);
    rc = utxo_source_open(cmd, &so, &src);
    if (rc) return rc;
    bk_error err;
    bk_error_clear(&err);
    bk_utxo_stats st;
    if (bk_utxo_stats_begin(&st, ht, NULL, &err) != BK_OK) {
        utxo_source_close(&src);
        return bk_cli_report(cmd, &err);
    }
    if (threads > 1 && bk_utxo_stats_set_threads(&st, threads) != BK_OK) {
        bk_utxo_stats_free(&st);
        utxo_source_close(&src);
        return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "cannot set threads");
    }
    bk_utxo u;
    while (utxo_source_next(&src, &u)) {
        if (bk_utxo_stats_add(&st, &u, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            break;
        }
    }
    if (!rc && utxo_source_status(&src, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
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
    utxo_source_close(&src);
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
    int help;
    int rc = parse_args(cmd, argc, argv, &o, &help);
    if (rc) return rc;
    if (help) {
        return bk_cli_help(cmd, utxo_usage);
    }
    if (o.hash_type) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--hash-type is for utxo stats");
    bk_table_format format = BK_TABLE_CSV;
    if (o.format && (bk_table_format_parse(o.format, &format) != BK_OK || !strcmp(o.format, "json")))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown format '%s' (csv, ndjson, parquet)", o.format);
    bk_pq_opts po;
    bk_pq_opts_init(&po);
    if (o.codec && format != BK_TABLE_PARQUET) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--codec is for --format parquet");
    if (o.codec && bk_pq_codec_parse(o.codec, &po.codec) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown codec '%s' (zstd, snappy, none)", o.codec);
    unsigned threads;
    rc = utxo_parse_threads(cmd, o.threads, &threads);
    if (rc) return rc;
    coin_source src;
    /* A snapshot's height only bounds its coins here: not needed. */
    utxo_source_opts so = source_opts(&o);
    so.height_optional = 1;
    rc = utxo_source_open(cmd, &so, &src);
    if (rc) return rc;
    static dump_ctx d; /* bk_chunk_file holds two paths: not on the stack */
    memset(&d, 0, sizeof d);
    d.cmd = cmd;
    d.out = stdout;
    if (o.out_file && strcmp(o.out_file, "-")) {
        struct stat sb, lsb;
        d.path = o.out_file;
        int exists = stat(o.out_file, &sb) == 0;
        if (exists && S_ISDIR(sb.st_mode)) {
            utxo_source_close(&src);
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "-o %s is a directory: give a file name", o.out_file);
        }
        /* a regular file or a new name: the temporary file and the rename;
         * a symbolic link (even a dangling one) is written through, as
         * before: a rename would replace the link */
        int link = lstat(o.out_file, &lsb) == 0 && S_ISLNK(lsb.st_mode);
        d.to_file = !link && (!exists || S_ISREG(sb.st_mode));
        if (!d.to_file && !(d.out = fopen(o.out_file, "wb"))) {
            int e = errno; /* before the close */
            utxo_source_close(&src);
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
    export_signals sigs;
    volatile sig_atomic_t *stop = d.to_file ? export_signals_catch(&sigs) : NULL;
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
        rc = utxo_rows_run(cmd, &src, threads, dump_emit, &d, stop);
        if (!rc && *stop) rc = bk_cli_fail(cmd, 128 + (int)*stop, "interrupted; %s not written", o.out_file);
        if (!rc && bk_chunk_file_commit(&d.cf, &err) != BK_OK)
            rc = err.status == BK_ERR_IO ? bk_cli_fail(cmd, BK_EXIT_IO, "%s", err.msg) /* names the file */
                                         : bk_cli_report(cmd, &err);
        else if (rc) bk_chunk_file_abort(&d.cf);
        bk_chunk_file_release(&d.cf);
    } else {
        rc = utxo_rows_run(cmd, &src, threads, dump_emit, &d, NULL);
        if (rc < 0) rc = 0; /* a closed pipe */
        if (!rc && !bk_cli_pipe_closed && bk_table_finish(d.t, &err) != BK_OK) rc = dump_fail(&d, &err);
        if (!rc) rc = bk_cli_output_flush(cmd, d.out, d.path);
        bk_table_close(d.t);
    }
    if (stop) export_signals_restore(&sigs);
    if (d.out != stdout) {
        int crc = bk_cli_output_close(cmd, d.out, d.path, 0);
        if (!rc) rc = crc;
    }
    utxo_source_close(&src);
    return rc;
}

static int utxo_main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        if (argc >= 2) return bk_cli_help("utxo", utxo_usage);
        fputs(utxo_usage, stderr);
        return BK_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "stats")) return utxo_stats(argc - 1, argv + 1);
    if (!strcmp(argv[1], "dump")) return utxo_dump(argc - 1, argv + 1);
    return bk_cli_fail("utxo", BK_EXIT_USAGE, "unknown subcommand '%s' (stats, dump; see --help)", argv[1]);
}

BK_CLI_COMMAND(utxo_command, "utxo", "stats|dump (--datadir DIR | --utxo-snapshot FILE)",
               "the UTXO set: gettxoutsetinfo's result, or one row per coin (CSV/NDJSON)", utxo_main)
