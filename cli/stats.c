/* blockkit stats: Bitcoin Core's getblockstats, byte for byte, for one
 * block file with its undo data, or for every block of a node's blocks
 * directory in height order (docs/stats.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "opt.h"
#include "source.h"

#include <blockkit/stats.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char stats_intro[] =
    "Print Bitcoin Core's getblockstats RPC result: compact JSON, one object per\n"
    "line (with --pretty, what bitcoin-cli prints, for a single block).\n"
    "\n"
    "One block: FILE (raw block bytes, the same as hex text, or - for stdin) with\n"
    "--undo FILE, its undo data: a bare CBlockUndo or a rev*.dat record (magic,\n"
    "size, CBlockUndo, checksum; the checksum is verified against the block's\n"
    "parent hash), required except at height 0 (Core: Undo data not available);\n"
    "--height H (default: the BIP34 height in the coinbase) and --mediantime T\n"
    "(default: the block's own time).\n"
    "\n"
    "A node's blocks directory (--datadir or --blocksdir; the chain from Core's\n"
    "block index, else from every blk/rev header): heights --start..--end of the\n"
    "best chain (default: 0, or the lowest height with data on a pruned node, to\n"
    "the tip), or --height H, or --hash HASH (on the best chain or not: Core's\n"
    "hash_or_height); -j N worker threads, output in height order.\n";

static const char stats_outro[] =
    "A block without undo data (never connected) stops the run with Core's error\n"
    "\"Undo data not available\"; a pruned one with \"Block not available (pruned data)\".\n"
    "The undo record of a block found through Core's block index has its checksum\n"
    "verified (Core's ReadBlockUndo; \"Can't read undo data from disk\" otherwise).\n"
    "--height H (or --start H --end H) past the tip is Core's \"Target block height\n"
    "H after current tip T\"; a range with no block is scan's and export's \"no\n"
    "block in heights S..E\" (66).\n"
    "SIGINT, SIGTERM and SIGHUP stop after the current line, name the height to\n"
    "resume from, and end with status 128 + the signal number.\n"
    "Exit status: 0 ok, 64 usage, 65 bad block or undo data, 66 block or undo\n"
    "data not available, a height past the tip or an empty range, 74 I/O error,\n"
    "128+N signal N.\n";

static int write_out(const char *cmd, const bk_writer *w)
{
    int rc = bk_cli_output_write(cmd, stdout, NULL, w->data, w->len);
    return rc ? rc : bk_cli_output_flush(cmd, stdout, NULL);
}

static int single_main(const char *cmd, const char *file, const char *undo_file, int have_height, int64_t height,
                       int have_mediantime, int64_t mediantime, bk_network net, const bk_stats_format *f)
{
    bk_error err;
    bk_error_clear(&err);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_block_undo undo, *undop = NULL;
    bk_chain_context ctx;
    bk_cli_block_file bf;
    int rc = bk_cli_block_file_load(cmd, &bf, file, have_height, height);
    if (rc) goto done;
    const bk_block b = bf.b;
    height = bf.height;
    bk_chain_context_standalone(&ctx, &b, net, height);
    if (have_mediantime) ctx.mediantime = mediantime;
    if (undo_file) {
        if ((rc = bk_cli_block_file_undo(cmd, &bf, undo_file)) != 0) goto done;
        const uint8_t *ud = NULL;
        size_t ul = 0;
        if (bk_cli_locate_undo(bf.undo_in.data, bf.undo_in.len, &b, net, &ud, &ul, &err) != BK_OK ||
            bk_block_undo_parse(ud, ul, &undo, &err) != BK_OK) {
            char hex[65];
            uint8_t h[32];
            bk_block_hash(&b, h);
            bk_hash_to_hex(hex, h);
            rc = bk_cli_fail(cmd, bk_cli_exit_code(err.status), "undo data of block %s at height %lld: %s at byte %llu",
                             hex, (long long)height, err.msg, (unsigned long long)err.offset);
            goto done;
        }
        undop = &undo;
    } else if (height != 0) {
        rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "Undo data not available (give --undo FILE)");
        goto done;
    }
    if (bk_stats_line(&sc, &b, undop, NULL, 0, &ctx, NULL, f, &w, &err) != BK_OK) {
        rc = bk_cli_fail(cmd, bk_cli_exit_code(err.status), "%s", err.msg);
        goto done;
    }
    rc = write_out(cmd, &w);
done:
    bk_writer_free(&w);
    bk_block_stats_scratch_free(&sc);
    bk_cli_block_file_free(&bf);
    return rc;
}

/* ---- a blocks directory: the library's bk_stats_run ---- */

static bk_status stats_consume(void *ctx, const uint8_t *data, size_t len, bk_error *err)
{
    (void)ctx;
    if (bk_cli_write_all(stdout, data, len) != 0) return bk_error_set(err, BK_ERR_IO, 0, "write error");
    if (bk_cli_pipe_closed) return bk_error_set(err, BK_ERR_IO, 0, "closed pipe");
    return BK_OK;
}

/* range: the range as given (bk_cli_empty_range names it); hash_arg as given. */
static int dir_main(const char *cmd, bk_cli_source *src, const bk_cli_range *range, bk_stats_run_opts *o,
                    const char *hash_arg)
{
    bk_error err;
    bk_error_clear(&err);
    bk_blocksdir dir;
    bk_chain chain;
    if (bk_blocksdir_open(&dir, src->blocksdir, src->net, NULL, &err) != BK_OK) return bk_cli_report(cmd, &err);
    /* Core's block index when there is one, else the header scan */
    int rc = bk_cli_source_build(cmd, src, src->net, &bk_cli_stop, 0, &chain);
    if (rc) {
        bk_blocksdir_close(&dir);
        return rc;
    }
    uint8_t h[32];
    if (hash_arg && !bk_cli_parse_block_hash(hash_arg, h)) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --hash '%s' (64 hex digits)", hash_arg);
        goto out;
    }
    o->chain = &chain;
    o->dir = &dir;
    o->hash = hash_arg ? h : NULL;
    o->cancel = &bk_cli_stop;
    o->consume = stats_consume;
    bk_stats_run_result r;
    bk_status rs = bk_stats_run(o, &r, &err);
    if (rs == BK_ERR_CANCELLED) {
        /* SIGINT: the lines so far are complete */
        fprintf(stderr, "blockkit: stats: stopped by a signal before height %d; resume with --start %d\n",
                (int)r.next_height, (int)r.next_height);
        rc = bk_cli_output_flush(cmd, stdout, NULL);
        if (!rc) rc = 128 + (int)bk_cli_stop;
    } else if (rs != BK_OK && r.consume_failed) {
        rc = bk_cli_pipe_closed ? 0 : bk_cli_output_error(cmd, stdout, NULL, bk_cli_write_errno);
    } else if (r.empty) {
        rc = bk_cli_empty_range(cmd, range);
    } else if (r.no_height) {
        rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "block %s is not connected to a genesis block (its parent is "
                         "not in the files): no height", hash_arg);
    } else if (rs != BK_OK) {
        char m[4608];
        bk_stats_error_format(&r.where, &err, m, sizeof m);
        rc = bk_cli_exit_code(rs);
        if (r.blocks > 1)
            bk_cli_fail(cmd, rc, "%s; stopped there after %zu complete line(s) (resume with --start %d)", m, r.emitted,
                        (int)r.next_height);
        else bk_cli_fail(cmd, rc, "%s", m);
    } else {
        rc = r.blocks ? bk_cli_output_flush(cmd, stdout, NULL) : 0;
    }
out:
    bk_chain_free(&chain);
    bk_blocksdir_close(&dir);
    return rc;
}

/* The two modes: a block FILE, and a blocks directory (a row BK_OPT_IN one). */
enum { MODE_FILE, MODE_DIR };
#define IN_DIR (1u << MODE_DIR)
static const bk_opt_mode stats_modes[] = {
    {"a block FILE", NULL}, {"a blocks directory (--datadir or --blocksdir), not a block FILE", NULL}};

static int stats_main(int argc, char **argv)
{
    const char *cmd = "stats";
    const char *undo_file = NULL, *hash_arg = NULL, *stats_list = NULL;
    int64_t height = -1, mediantime = 0;
    int core = BK_CORE_NEWEST, indent = 0, jobs = 1;
    bk_stats_run_opts ro;
    memset(&ro, 0, sizeof ro);
    bk_cli_source src;
    bk_cli_source_init(&src);
    bk_cli_range range;
    bk_cli_range_init(&range);
    bk_opt opts[] = {
        BK_OPT_ROW_STR("--undo", 0, &undo_file, "FILE", "FILE's undo data (bare CBlockUndo or rev*.dat record)"),
        BK_OPT_ROW_I64("--height", 0, &height, 0, INT32_MAX, "H",
                       "FILE: its height (default: BIP34); a directory: that height only"),
        BK_OPT_ROW_I64("--mediantime", 0, &mediantime, INT64_MIN, INT64_MAX, "T",
                       "FILE: median time past (default: the block's own time)"),
        BK_OPT_ROW_DATADIR(&src),
        BK_OPT_ROW_BLOCKSDIR(&src),
        BK_OPT_ROW_CHAIN(&src),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_TMPDIR(&src)),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_BLOCKINDEX(&src)),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_SOURCE(&src)),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_START(&range)),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_END(&range)),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_STR("--hash", 0, &hash_arg, "HASH", "that block, on the best chain or not")),
        BK_OPT_IN(IN_DIR, BK_OPT_JOBS(&jobs, "worker threads (default 1); output stays in height order")),
        BK_OPT_ROW_STR("--stats", 0, &stats_list, "a,b,c",
                       "only these statistics, in Core's sorted key order; an\n"
                       "unknown name is Core's \"Invalid selected statistic 'x'\""),
        BK_OPT_ROW_INT("--core-compat", 0, &core, BK_CORE_MIN, BK_STATS_CORE_NEWEST, "V",
                       "Core release: 28, 29, 30, 31 (default), 32 (32: 40 bytes of\n"
                       "per-UTXO overhead in utxo_size_inc*, as Core since #31449)"),
        BK_OPT_PRETTY(&indent),
        BK_OPT_ROW_INT("--indent", 0, &indent, 0, 64, "N", "indent N (--pretty: 2)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "[FILE|-]", stats_intro, stats_outro, opts, 1};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    const char *file = args.n ? args.v[0] : NULL;
    bk_opt_args_free(&args);
    int have_height = bk_opt_given(&spec, "--height"), have_mediantime = bk_opt_given(&spec, "--mediantime");
    int have_start = bk_opt_given(&spec, "--start"), have_end = bk_opt_given(&spec, "--end");
    int64_t start = range.start, end = range.end;
    ro.format.core_version = core;
    ro.format.indent = (unsigned)indent;
    if (stats_list) {
        bk_error err;
        if (bk_block_stats_select_list(stats_list, strlen(stats_list), &ro.format.select, &err) != BK_OK)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s", err.msg);
    }
    int dir_mode = src.datadir || src.blocksdir;
    if (dir_mode && file) return bk_cli_fail(cmd, BK_EXIT_USAGE, "a block FILE and a blocks directory exclude each other");
    if (!dir_mode && !file) return bk_cli_fail(cmd, BK_EXIT_USAGE, "no block file or blocks directory (see --help)");
    if (!dir_mode) {
        int mrc = bk_opt_mode_check(&spec, MODE_FILE, stats_modes);
        if (mrc) return mrc;
        return single_main(cmd, file, undo_file, have_height, height, have_mediantime, mediantime, src.net,
                           &ro.format);
    }
    if (undo_file || have_mediantime)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--undo and --mediantime are for a block FILE");
    if (have_height && (have_start || have_end || hash_arg))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--height excludes --start, --end and --hash");
    if (hash_arg && (have_start || have_end))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--hash excludes --start and --end");
    if (have_height) {
        start = end = height;
        have_start = have_end = 1;
    }
    if (have_start && have_end && end >= 0 && end < start)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--end %lld is below --start %lld", (long long)end, (long long)start);
    if (range.below_tip >= 0) have_end = 0; /* computed from the tip */
    int multi = hash_arg == NULL && !(have_start && have_end && start == end);
    if (indent && multi)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--pretty/--indent print one block: give --height or --hash");
    int rc = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_BLOCKS);
    if (rc) {
        bk_cli_source_free(&src);
        return rc;
    }
    ro.start = have_start ? start : -1;
    ro.end = have_end ? end : -1;
    ro.below_tip = have_height ? -1 : range.below_tip;
    ro.single = have_start && have_end && start == end;
    ro.workers = jobs;
    /* SIGINT, SIGTERM, SIGHUP: finish the current line, then stop
     * (blockkit/engine.h) with 128 + N, as scan does */
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    rc = dir_main(cmd, &src, &range, &ro, hash_arg);
    bk_cli_stop_signals_restore(&saved);
    bk_cli_source_free(&src);
    return rc;
}

BK_CLI_COMMAND(stats_command, "stats",
               "FILE --undo UNDO [--height H] | --datadir DIR|--blocksdir DIR [--start H] [--end H] [-j N] [--stats a,b]",
               "Bitcoin Core's getblockstats, byte for byte, for a block or every block of a node", stats_main)
