/* blockkit stats: Bitcoin Core's getblockstats, byte for byte, for one
 * block file with its undo data, or for every block of a node's blocks
 * directory in height order (docs/stats.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "opt.h"
#include "source.h"

#include <blockkit/blockstats.h>
#include <blockkit/json.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>

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

typedef struct stats_cfg {
    uint32_t select;
    int core;
    unsigned indent;
    bk_network net;
} stats_cfg;

/* Render one block's result (plus newline) into w: from the parsed undo,
 * or (undo_raw non-NULL) from the CBlockUndo bytes in one pass. */
static bk_status render_stats(bk_block_stats_scratch *sc, const bk_block *b, const bk_block_undo *undo,
                              const uint8_t *undo_raw, size_t undo_len, const bk_chain_context *ctx,
                              const uint8_t *hash, const stats_cfg *cfg, bk_writer *w, bk_error *err)
{
    bk_block_stats_opts o;
    bk_block_stats_opts_init(&o);
    o.select = cfg->select;
    o.core_version = cfg->core;
    o.hash = hash;
    bk_block_stats st;
    bk_status s = undo_raw ? bk_block_stats_compute_undo(sc, b, undo_raw, undo_len, NULL, ctx, &o, &st, err)
                           : bk_block_stats_compute(sc, b, undo, ctx, &o, &st, err);
    if (s != BK_OK) return s;
    bk_json j;
    bk_json_init(&j, w, cfg->indent);
    s = bk_json_block_stats(&j, &st, cfg->select, err);
    if (s != BK_OK) return s;
    bk_writer_putc(w, '\n');
    if (bk_writer_status(w) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;
}

static int write_out(const char *cmd, const bk_writer *w)
{
    int rc = bk_cli_output_write(cmd, stdout, NULL, w->data, w->len);
    return rc ? rc : bk_cli_output_flush(cmd, stdout, NULL);
}

static int single_main(const char *cmd, const char *file, const char *undo_file, int have_height, int64_t height,
                       int have_mediantime, int64_t mediantime, const stats_cfg *cfg)
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
    bk_chain_context_standalone(&ctx, &b, cfg->net, height);
    if (have_mediantime) ctx.mediantime = mediantime;
    if (undo_file) {
        if ((rc = bk_cli_block_file_undo(cmd, &bf, undo_file)) != 0) goto done;
        const uint8_t *ud = NULL;
        size_t ul = 0;
        if (bk_cli_locate_undo(bf.undo_in.data, bf.undo_in.len, &b, cfg->net, &ud, &ul, &err) != BK_OK ||
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
    if (render_stats(&sc, &b, undop, NULL, 0, &ctx, NULL, cfg, &w, &err) != BK_OK) {
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

/* ---- a blocks directory ---- */


typedef struct stats_worker {
    bk_block_stats_scratch sc;
} stats_worker;

typedef struct stats_run {
    const stats_cfg *cfg;
    bk_blocksdir dir;
    bk_chain chain;
    stats_worker *workers;
    size_t emitted;
} stats_run;

/* A CBlockUndo the single pass refused: when bk_block_undo_parse refuses
 * it too (bk_block_stats_compute_undo's error is then the parser's), the
 * engine reports it as its own undo decode failure, exactly as when it
 * parsed the record itself; else BK_OK. */
static bk_status undo_parse_error(const bk_engine_block *eb, bk_error *err)
{
    bk_block_undo u;
    bk_status st = bk_block_undo_parse(eb->undo_data, eb->undo_size, &u, err);
    if (st != BK_OK && eb->undo_stage) *eb->undo_stage = BK_STAGE_UNDO_DECODE;
    return st;
}

/* One block's result as a line (the engine read the block and, for a
 * block with undo data, its undo record's bytes, checksum verified when
 * found through Core's block index; BK_READ_UNDO_RAW: not parsed, the
 * statistics read the CBlockUndo in one pass). */
static bk_status stats_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *w, bk_error *err)
{
    stats_run *R = vctx;
    stats_worker *W = &R->workers[worker];
    const bk_chain_entry *e = eb->entry;
    char hex[65];
    bk_hash_to_hex(hex, e->hash);
    if (!eb->block) {
        /* Core: CheckBlockDataAvailability - IsBlockPruned is "no data,
         * nTx known, the node has pruned" */
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %d: %s", hex, (int)e->height,
                            R->chain.pruned && e->n_tx > 0 ? "Block not available (pruned data)"
                                                           : "Block not available (not fully downloaded)");
    }
    if (e->height > 0 && !eb->undo_data) {
        /* Core: CheckBlockDataAvailability(check_for_undo) */
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %d: Undo data not available", hex,
                            (int)e->height);
    }
    bk_error e2;
    bk_chain_context ctx;
    bk_status ps;
    if (bk_chain_context_fill(&R->chain, e, &ctx, &e2) != BK_OK) {
        /* the engine used to parse the undo record before this */
        if (eb->undo_data && (ps = undo_parse_error(eb, err)) != BK_OK) return ps;
        return bk_error_set(err, e2.status, 0, "block %s: %s", hex, e2.msg);
    }
    if (render_stats(&W->sc, eb->block, NULL, eb->undo_data, eb->undo_size, &ctx, e->hash, R->cfg, w, &e2) !=
        BK_OK) {
        if (eb->undo_data && (ps = undo_parse_error(eb, err)) != BK_OK) return ps;
        return bk_error_set(err, e2.status, e2.offset, "%s", e2.msg);
    }
    return BK_OK;
}

static bk_status stats_consume(void *vctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    stats_run *R = vctx;
    if (bk_cli_write_all(stdout, data, len) != 0) return bk_error_set(err, BK_ERR_IO, 0, "write error");
    R->emitted = job + 1;
    if (bk_cli_pipe_closed) return bk_error_set(err, BK_ERR_IO, 0, "closed pipe");
    return BK_OK;
}

/* The message of a failed block: Core's own from the callback; the
 * engine's (height, hash, file position) for a read or parse error. */
static void stats_error(const bk_engine_where *wh, const bk_error *err, char *m, size_t cap)
{
    char hex[65];
    bk_hash_to_hex(hex, wh->hash);
    if (wh->stage == BK_STAGE_WORK)
        snprintf(m, cap, "%s", err->msg);
    else if (wh->stage == BK_STAGE_UNDO_CHECKSUM)
        snprintf(m, cap, "block %s at height %d: Can't read undo data from disk (%s, rev%05u.dat offset %llu)", hex,
                 (int)wh->height, err->msg, wh->file, (unsigned long long)wh->file_offset);
    else
        bk_engine_error_format(wh, err, m, cap);
}

/* range: the range as given (bk_cli_empty_range names it). */
static int dir_main(const char *cmd, bk_cli_source *src, const bk_cli_range *range, int64_t start, int64_t end,
                    int64_t below_tip, int have_start, int have_end, const char *hash_arg, int jobs,
                    const stats_cfg *cfg)
{
    stats_run R;
    memset(&R, 0, sizeof R);
    R.cfg = cfg;
    bk_error err;
    bk_error_clear(&err);
    int rc = 0;
    if (bk_blocksdir_open(&R.dir, src->blocksdir, cfg->net, NULL, &err) != BK_OK) return bk_cli_report(cmd, &err);
    bk_engine_item *list = NULL;
    size_t njobs = 0;
    /* Core's block index when there is one, else the header scan */
    rc = bk_cli_source_build(cmd, src, cfg->net, &bk_cli_stop, 0, &R.chain);
    if (rc) goto out_dir;
    const bk_chain_entry *tip = bk_chain_tip(&R.chain);
    int64_t tip_h = tip ? tip->height : -1;
    if (hash_arg) {
        uint8_t h[32];
        if (!bk_cli_parse_block_hash(hash_arg, h)) {
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --hash '%s' (64 hex digits)", hash_arg);
            goto out;
        }
        const bk_chain_entry *e = bk_chain_find(&R.chain, h);
        if (!e) {
            rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "Block not found");
            goto out;
        }
        if (e->height < 0) {
            rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "block %s is not connected to a genesis block (its parent is "
                             "not in the files): no height", hash_arg);
            goto out;
        }
        list = malloc(sizeof *list);
        if (!list) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            goto out;
        }
        list[0].entry = (uint32_t)(e - R.chain.entries);
        list[0].height = e->height;
        list[0].orphan = 0;
        njobs = 1;
    } else {
        /* one block (--height H, or --start H --end H) is getblockstats' answer */
        int single = have_start && have_end && start == end;
        /* a pruned node: from the lowest height whose data is kept */
        if (!have_start) start = R.chain.prune_height > R.chain.base_height ? R.chain.prune_height : R.chain.base_height;
        if (below_tip >= 0) end = tip_h - below_tip;
        else if (!have_end) end = tip_h;
        if (single && end > tip_h) {
            /* Core: ParseHashOrHeight's message */
            rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "Target block height %lld after current tip %lld", (long long)end,
                             (long long)tip_h);
            goto out;
        }
        /* a range as scan and export take it: past the tip is the tip, and
         * no block in it is their one message (66) */
        if (end > tip_h) end = tip_h;
        if (end < start) {
            rc = bk_cli_empty_range(cmd, range);
            goto out;
        }
        if (start < R.chain.base_height && tip_h >= 0) {
            rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "height %lld is not in the files (the chain starts at %d)",
                             (long long)start, (int)R.chain.base_height);
            goto out;
        }
        /* the engine's range builder, pruned heights kept (each answered with Core's error) */
        size_t cap = 0;
        if (bk_engine_chain_items(&R.chain, start, end, 1, &list, &njobs, &cap, NULL, NULL, NULL, &err) != BK_OK) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            goto out;
        }
    }
    if (njobs == 0) goto out;
    if (jobs > (int)njobs) jobs = (int)njobs;
    R.workers = calloc((size_t)jobs, sizeof *R.workers);
    if (!R.workers) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto out;
    }
    for (int i = 0; i < jobs; i++) bk_block_stats_scratch_init(&R.workers[i].sc, NULL);
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = &R.chain;
    eo.dir = &R.dir;
    eo.items = list;
    eo.n_items = njobs;
    eo.read_flags = BK_READ_UNDO | BK_READ_UNDO_RAW; /* bk_block_stats_compute_undo reads it */
    eo.run.workers = jobs;
    eo.run.window = 2 * (size_t)jobs + 1;
    eo.run.cancel = &bk_cli_stop;
    eo.block = stats_block;
    eo.consume = stats_consume;
    eo.ctx = &R;
    bk_engine_result er;
    bk_status rs = bk_engine_run(&eo, &er, &err);
    if (rs == BK_ERR_CANCELLED) {
        /* SIGINT: the lines so far are complete */
        const bk_chain_entry *next = &R.chain.entries[list[R.emitted].entry];
        fprintf(stderr, "blockkit: stats: stopped by a signal before height %d; resume with --start %d\n",
                (int)next->height, (int)next->height);
        rc = bk_cli_output_flush(cmd, stdout, NULL);
        if (!rc) rc = 128 + (int)bk_cli_stop;
    } else if (rs != BK_OK && er.run.failure == BK_ORDERED_CONSUME) {
        rc = bk_cli_pipe_closed ? 0 : bk_cli_output_error(cmd, stdout, NULL, bk_cli_write_errno);
    } else if (rs != BK_OK) {
        char m[4608];
        stats_error(&er.where, &err, m, sizeof m);
        rc = rs == BK_ERR_NOT_FOUND ? BK_EXIT_NOINPUT : rs == BK_ERR_IO ? BK_EXIT_IO
             : rs == BK_ERR_NOMEM ? BK_EXIT_SOFTWARE : BK_EXIT_DATA;
        const bk_chain_entry *at = &R.chain.entries[list[R.emitted].entry];
        if (njobs > 1)
            bk_cli_fail(cmd, rc, "%s; stopped there after %zu complete line(s) (resume with --start %d)", m, R.emitted,
                        (int)at->height);
        else bk_cli_fail(cmd, rc, "%s", m);
    } else {
        rc = bk_cli_output_flush(cmd, stdout, NULL);
    }
out:
    if (R.workers) {
        for (int i = 0; i < jobs; i++) {
            bk_block_stats_scratch_free(&R.workers[i].sc);
        }
        free(R.workers);
    }
    free(list);
    bk_chain_free(&R.chain);
out_dir:
    bk_blocksdir_close(&R.dir);
    return rc;
}

static int stats_main(int argc, char **argv)
{
    const char *cmd = "stats";
    const char *undo_file = NULL, *hash_arg = NULL, *stats_list = NULL;
    int64_t height = -1, mediantime = 0;
    int core = BK_CORE_NEWEST, indent = 0, jobs = 1;
    stats_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
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
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_SOURCE_INDEX(&src),
        BK_OPT_RANGE(&range),
        BK_OPT_ROW_STR("--hash", 0, &hash_arg, "HASH", "that block, on the best chain or not"),
        BK_OPT_JOBS(&jobs, "worker threads (default 1); output stays in height order"),
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
    cfg.core = core;
    cfg.indent = (unsigned)indent;
    if (stats_list) {
        bk_error err;
        if (bk_block_stats_select_list(stats_list, strlen(stats_list), &cfg.select, &err) != BK_OK)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s", err.msg);
    }
    int dir_mode = src.datadir || src.blocksdir;
    if (dir_mode && file) return bk_cli_fail(cmd, BK_EXIT_USAGE, "a block FILE and a blocks directory exclude each other");
    if (!dir_mode && !file) return bk_cli_fail(cmd, BK_EXIT_USAGE, "no block file or blocks directory (see --help)");
    if (!dir_mode) {
        static const char *const dir_only[] = {"--start", "--end", "--hash", "--jobs", "--blockindex", "--source",
                                               "--tmpdir"};
        for (size_t k = 0; k < sizeof dir_only / sizeof dir_only[0]; k++)
            if (bk_opt_given(&spec, dir_only[k]))
                return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s is for a blocks directory (--datadir or --blocksdir), "
                                   "not a block FILE", dir_only[k]);
        cfg.net = src.net;
        return single_main(cmd, file, undo_file, have_height, height, have_mediantime, mediantime, &cfg);
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
    cfg.net = src.net;
    /* SIGINT, SIGTERM, SIGHUP: finish the current line, then stop
     * (blockkit/engine.h) with 128 + N, as scan does */
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    rc = dir_main(cmd, &src, &range, start, end, have_height ? -1 : range.below_tip, have_start, have_end, hash_arg,
                  jobs, &cfg);
    bk_cli_stop_signals_restore(&saved);
    bk_cli_source_free(&src);
    return rc;
}

BK_CLI_COMMAND(stats_command, "stats",
               "FILE --undo UNDO [--height H] | --datadir DIR|--blocksdir DIR [--start H] [--end H] [-j N] [--stats a,b]",
               "Bitcoin Core's getblockstats, byte for byte, for a block or every block of a node", stats_main)
