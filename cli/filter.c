/* blockkit filter: BIP158 basic block filters from a node's files, as
 * Bitcoin Core's getblockfilter answers them with -blockfilterindex, without
 * the index (library: blockkit/filters.h; rules: blockkit/blockfilter.h;
 * docs/filters.md). */
#include "cli.h"
#include "lookup.h"
#include "progress.h"

#include <blockkit/filters.h>
#include <blockkit/lookup.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char filter_intro[] =
    "Print Core's `getblockfilter HASH basic` result, {\"filter\":..,\"header\":..},\n"
    "byte for byte, one line per block: for each HASH|HEIGHT given (a height on the\n"
    "active chain, or a hash on it or off it), or for every height of --start..--end\n"
    "in height order. A filter is computed from the block and its undo data; a\n"
    "header needs the filters of every block below it, so the blocks from the\n"
    "genesis up are read (-j N workers), as Core reads them to build its index.\n"
    "\n"
    "A block off the active chain that Core connected (it has undo data) gets its\n"
    "filter and the header along its own branch, what a node that had the index on\n"
    "then answers; one Core never connected (an invalid block, or one known by its\n"
    "header only) gets Core's \"Filter not found. Block was not connected to active\n"
    "chain.\" (error code -5).\n";

static const char filter_outro[] =
    "blockkit filter match --help: which blocks' filters match scripts (a rescan).\n"
    "A pruned node has no filter headers (they need every block from the genesis):\n"
    "filter match still reads the heights it keeps.\n"
    "SIGINT, SIGTERM and SIGHUP stop after a complete line with 128 + the signal.\n" BK_CLI_LOOKUP_OUTRO;

static const char match_intro[] =
    "List the blocks whose basic filter matches any of the scripts given (hex\n"
    "scriptPubKeys): one line {\"height\":H,\"hash\":\"..\"} per block, in height\n"
    "order, over --start..--end of the active chain (default: every height whose\n"
    "block is kept). This is what a wallet rescan asks: a match means the block may\n"
    "pay or spend one of the scripts (false positives at about 1 in 784,931 per\n"
    "script and block); a block that does not match certainly does neither.\n"
    "Exit status 1 when no block matches.\n";

/* What a run prints and counts, on the calling thread. */
typedef struct f_out {
    const char *cmd;
    int indent;
    bk_writer w;
    int write_failed;
    /* match */
    const uint8_t *const *scripts;
    const size_t *lens;
    size_t n_scripts;
    uint64_t *scratch;
    uint64_t matched;
    /* progress */
    bk_cli_progress progress;
    double t0;
    uint64_t done, total;
    int64_t next_height;
} f_out;

static void show_progress(f_out *O, int64_t height, int final)
{
    if (!O->progress.on) return;
    bk_cli_progress_line pl = bk_cli_progress_blocks(height, O->done, O->total, 0, O->done, O->total, bk_cli_progress_now() - O->t0);
    pl.final = final;
    bk_cli_progress_show(&O->progress, &pl);
}

static bk_status put_line(f_out *O, bk_error *err)
{
    bk_writer_putc(&O->w, '\n');
    if (bk_writer_status(&O->w) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (bk_cli_write_all(stdout, O->w.data, O->w.len) != 0) {
        O->write_failed = 1;
        return bk_error_set(err, BK_ERR_IO, 0, "write error");
    }
    bk_writer_reset(&O->w);
    if (bk_cli_pipe_closed) return bk_error_set(err, BK_ERR_IO, 0, "closed pipe");
    return BK_OK;
}

static bk_status emit_filter(void *ctx, size_t item, const bk_chain_entry *e, int64_t height, const uint8_t *filter,
                             size_t len, const uint8_t *header, bk_error *err)
{
    (void)item;
    (void)e;
    f_out *O = ctx;
    O->done++;
    O->next_height = height + 1;
    bk_json j;
    bk_json_init(&j, &O->w, (unsigned)O->indent);
    bk_json_filter(&j, filter, len, header);
    bk_status st = put_line(O, err);
    show_progress(O, height, 0);
    return st;
}

static bk_status emit_match(void *ctx, size_t item, const bk_chain_entry *e, int64_t height, const uint8_t *filter,
                            size_t len, const uint8_t *header, bk_error *err)
{
    (void)item;
    (void)header;
    f_out *O = ctx;
    O->done++;
    O->next_height = height + 1;
    bk_blockfilter_view v;
    bk_status st = bk_blockfilter_parse(filter, len, e->hash, &v, err);
    if (st != BK_OK) return st; /* we built it: cannot happen, but never trust */
    if (bk_blockfilter_match_any(&v, O->scripts, O->lens, O->n_scripts, O->scratch)) {
        O->matched++;
        bk_json j;
        bk_json_init(&j, &O->w, 0);
        bk_json_begin_object(&j);
        BK_JSON_KEY(&j, "height");
        bk_json_int(&j, height);
        BK_JSON_KEY(&j, "hash");
        bk_json_hex_rev(&j, e->hash, 32);
        bk_json_end_object(&j);
        if ((st = put_line(O, err)) != BK_OK) return st;
    }
    show_progress(O, height, 0);
    return BK_OK;
}

/* The exit status of a failed run, after its message. */
static int run_failed(f_out *O, bk_status st, const bk_engine_result *res, const bk_error *err)
{
    bk_cli_progress_end(&O->progress);
    if (st == BK_ERR_CANCELLED) {
        fprintf(stderr, "blockkit: %s: interrupted before height %lld\n", O->cmd, (long long)O->next_height);
        int rc = bk_cli_output_flush(O->cmd, stdout, NULL);
        return rc ? rc : 128 + (int)bk_cli_stop;
    }
    if (res->run.failure == BK_ORDERED_CONSUME && (O->write_failed || bk_cli_pipe_closed))
        return bk_cli_pipe_closed ? 0 : bk_cli_output_error(O->cmd, stdout, NULL, bk_cli_write_errno);
    char m[4608];
    bk_engine_error_format(&res->where, err, m, sizeof m);
    return bk_cli_fail(O->cmd, bk_cli_exit_code(st), "%s", m);
}

/* The active chain's heights asked for, checked: 0 with the first and last height, or
 * the exit status after the message. */
static int active_range(const char *cmd, const bk_chain *c, const bk_cli_range *r, int64_t lowest, int64_t *start,
                        int64_t *end)
{
    const bk_chain_entry *tip = bk_chain_tip(c);
    int64_t tip_h = tip ? tip->height : -1;
    int64_t s = r->start > 0 ? r->start : lowest;
    int64_t e = bk_engine_range_end(tip_h, r->end, r->below_tip);
    if (s > e || e < 0) return bk_cli_empty_range(cmd, r);
    if (s < c->base_height)
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "height %lld is not in the files (the chain starts at %d)",
                           (long long)s, (int)c->base_height);
    *start = s;
    *end = e;
    return 0;
}

static void out_init(f_out *O, const char *cmd, int progress)
{
    memset(O, 0, sizeof *O);
    O->cmd = cmd;
    bk_writer_init(&O->w, NULL);
    bk_cli_progress_init(&O->progress, progress == BK_PROGRESS_AUTO ? -1 : progress == BK_PROGRESS_ALWAYS);
    O->t0 = bk_cli_progress_now();
}

/* Run the filters of items with the output O; 0 or the exit status. */
static int run_items(f_out *O, bk_lookup *l, const bk_engine_item *items, size_t n, int headers, size_t emit_from,
                     int jobs, bk_filter_emit_fn emit)
{
    bk_filter_run_opts o;
    bk_filter_run_opts_init(&o);
    o.chain = bk_lookup_chain(l);
    o.dir = bk_lookup_blocksdir(l);
    o.items = items;
    o.n_items = n;
    o.headers = headers;
    o.emit_from = emit_from;
    o.run.workers = jobs;
    o.run.window = 4 * (size_t)jobs + 2;
    o.run.cancel = &bk_cli_stop;
    o.emit = emit;
    o.ctx = O;
    O->total = n - emit_from;
    bk_error err;
    bk_error_clear(&err);
    bk_engine_result res;
    bk_status st = bk_filter_run(&o, &res, &err);
    if (st != BK_OK) return run_failed(O, st, &res, &err);
    show_progress(O, items[n - 1].height, 1);
    bk_cli_progress_end(&O->progress);
    return bk_cli_output_flush(O->cmd, stdout, NULL);
}

static int range_main(const char *cmd, bk_lookup *l, const bk_cli_range *r, int jobs, int indent, int progress)
{
    const bk_chain *c = bk_lookup_chain(l);
    int64_t start = 0, end = -1;
    int rc = active_range(cmd, c, r, 0, &start, &end);
    if (rc) return rc;
    if (c->base_height != 0 || c->prune_height > 0)
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "this node has pruned the blocks below height %d: filter headers "
                           "need every block from the genesis (filter match reads the heights it keeps)",
                           (int)(c->prune_height > c->base_height ? c->prune_height : c->base_height));
    size_t n = (size_t)end + 1;
    bk_engine_item *items = malloc(n * sizeof *items);
    if (!items) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    bk_error err;
    if (bk_filter_path(c, bk_chain_at_height(c, end), 0, items, &err) != BK_OK) {
        free(items);
        return bk_cli_report(cmd, &err);
    }
    f_out O;
    out_init(&O, cmd, progress);
    O.indent = indent;
    rc = run_items(&O, l, items, n, 1, (size_t)start, jobs, emit_filter);
    bk_writer_free(&O.w);
    free(items);
    return rc;
}

/* HASH|HEIGHT...: each resolved as Core's getblockfilter reads its
 * parameter, answered in one pass (bk_filter_answer_blocks), printed in
 * argument order. */
static int args_main(const char *cmd, bk_lookup *l, const bk_opt_args *args, int jobs, int indent)
{
    const bk_chain *c = bk_lookup_chain(l);
    size_t n = args->n;
    const bk_chain_entry **blocks = calloc(n, sizeof *blocks);
    bk_filter_answer *ans = calloc(n, sizeof *ans);
    int *code = calloc(n, sizeof *code);
    char (*msg)[BK_ERROR_MSG_MAX] = calloc(n, sizeof *msg);
    int rc = 0;
    if (!blocks || !ans || !code || !msg) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto done;
    }
    size_t m = 0; /* resolved */
    const bk_chain_entry **found = blocks;
    for (size_t k = 0; k < n; k++) {
        bk_error err;
        bk_error_clear(&err);
        const bk_chain_entry *e = NULL;
        if (bk_lookup_resolve(l, args->v[k], "blockhash", &e, &err) != BK_OK) {
            code[k] = bk_lookup_rpc_code(l);
            snprintf(msg[k], sizeof msg[k], "%s", err.msg);
            if (!code[k]) {
                rc = bk_cli_report(cmd, &err);
                goto done;
            }
            continue;
        }
        found[m++] = e;
    }
    bk_ordered_opts run;
    bk_ordered_opts_init(&run);
    run.workers = jobs;
    run.window = 4 * (size_t)jobs + 2;
    run.cancel = &bk_cli_stop;
    bk_error err;
    bk_error_clear(&err);
    bk_engine_result res;
    bk_status st = bk_filter_answer_blocks(c, bk_lookup_blocksdir(l), found, m, &run, ans, &res, &err);
    if (st != BK_OK) {
        f_out O;
        out_init(&O, cmd, BK_PROGRESS_NEVER);
        rc = run_failed(&O, st, &res, &err);
        bk_writer_free(&O.w);
        goto done;
    }
    bk_writer w;
    bk_writer_init(&w, NULL);
    size_t a = 0;
    for (size_t k = 0; k < n && !bk_cli_pipe_closed; k++) {
        int e = 0;
        if (code[k]) {
            e = bk_cli_rpc_fail(cmd, code[k], msg[k]);
        } else {
            const bk_filter_answer *x = &ans[a++];
            if (x->rpc_code) {
                e = bk_cli_rpc_fail(cmd, x->rpc_code, x->msg);
            } else {
                bk_writer_reset(&w);
                bk_json j;
                bk_json_init(&j, &w, (unsigned)indent);
                bk_json_filter(&j, x->filter, x->len, x->header);
                bk_writer_putc(&w, '\n');
                if (bk_writer_status(&w) != BK_OK) {
                    rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
                    break;
                }
                if ((e = bk_cli_output_write(cmd, stdout, NULL, w.data, w.len)) != 0) {
                    rc = e;
                    break;
                }
            }
        }
        if (e && (rc == 0 || e != BK_EXIT_NOINPUT)) rc = e;
    }
    bk_writer_free(&w);
    if (rc == 0) rc = bk_cli_output_flush(cmd, stdout, NULL);
    bk_filter_answers_free(ans, m);
done:
    free(blocks);
    free(ans);
    free(code);
    free(msg);
    return rc;
}

static int match_main(int argc, char **argv)
{
    const char *cmd = "filter match";
    bk_cli_source src;
    bk_cli_source_init(&src);
    bk_cli_range range;
    bk_cli_range_init(&range);
    bk_opt_list scripts = {NULL, 0};
    int jobs = bk_cli_default_workers(), progress = BK_PROGRESS_AUTO;
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_ROW_LIST("--script", 0, &scripts, "HEX", "a scriptPubKey to look for (repeat for more)"),
        BK_OPT_RANGE(&range),
        BK_OPT_JOBS(&jobs, "worker threads (default: the CPUs); output stays in height order"),
        BK_OPT_PROGRESS(&progress),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, match_intro, BK_CLI_LOOKUP_OUTRO, opts, 0};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) {
        bk_cli_source_free(&src);
        return prc;
    }
    int rc = 0;
    size_t n = scripts.n;
    uint8_t **bytes = calloc(n ? n : 1, sizeof *bytes);
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    uint64_t *scratch = calloc(n ? n : 1, sizeof *scratch);
    bk_engine_item *items = NULL;
    bk_lookup *l = NULL;
    if (!bytes || !lens || !scratch) {
        bk_cli_source_free(&src);
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto done;
    }
    if (!n) {
        bk_cli_source_free(&src);
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give a --script HEX (see --help)");
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        const char *s = scripts.v[k];
        size_t hl = strlen(s);
        bk_error err;
        if (hl % 2 || !(bytes[k] = malloc(hl / 2 + 1)) || bk_hex_decode(bytes[k], s, hl / 2, &err) != BK_OK) {
            bk_cli_source_free(&src);
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for --script: '%.100s' (hex, an even number of digits)", s);
            goto done;
        }
        lens[k] = hl / 2;
    }
    if ((rc = bk_cli_lookup_open(cmd, &src, &l)) != 0) goto done;
    const bk_chain *c = bk_lookup_chain(l);
    int64_t start = 0, end = -1;
    int64_t lowest = c->prune_height > c->base_height ? c->prune_height : c->base_height;
    if ((rc = active_range(cmd, c, &range, lowest, &start, &end)) != 0) goto done;
    size_t m = (size_t)(end - start + 1);
    if (!(items = malloc(m * sizeof *items))) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < m; i++) {
        items[i].entry = c->active[(size_t)(start - c->base_height) + i];
        items[i].height = start + (int64_t)i;
        items[i].orphan = 0;
    }
    f_out O;
    out_init(&O, cmd, progress);
    O.scripts = (const uint8_t *const *)bytes;
    O.lens = lens;
    O.n_scripts = n;
    O.scratch = scratch;
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    rc = run_items(&O, l, items, m, 0, 0, jobs, emit_match);
    bk_cli_stop_signals_restore(&saved);
    bk_writer_free(&O.w);
    if (rc == 0 && O.matched == 0) {
        fprintf(stderr, "blockkit: %s: no block of heights %lld..%lld matches\n", cmd, (long long)start,
                (long long)end);
        rc = BK_EXIT_FAIL;
    }
done:
    for (size_t k = 0; bytes && k < n; k++) free(bytes[k]);
    free(bytes);
    free(lens);
    free(scratch);
    free(items);
    if (l) bk_lookup_close(l);
    bk_opt_args_free(&args);
    return rc;
}

static int filter_blocks(int argc, char **argv)
{
    const char *cmd = "filter";
    bk_cli_source src;
    bk_cli_source_init(&src);
    bk_cli_range range;
    bk_cli_range_init(&range);
    int jobs = bk_cli_default_workers(), indent = 0, progress = BK_PROGRESS_AUTO;
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_RANGE(&range),
        BK_OPT_JOBS(&jobs, "worker threads (default: the CPUs); output stays in order"),
        BK_OPT_PROGRESS(&progress),
        BK_OPT_PRETTY(&indent),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "HASH|HEIGHT...", filter_intro, filter_outro, opts, SIZE_MAX};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) {
        bk_cli_source_free(&src);
        return prc;
    }
    int ranged = bk_opt_given(&spec, "--start") || bk_opt_given(&spec, "--end");
    int rc;
    if (ranged && args.n) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give blocks (HASH|HEIGHT...) or --start/--end, not both");
        bk_cli_source_free(&src);
    } else if (!ranged && !args.n) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give a block (HASH|HEIGHT...) or --start/--end (see --help)");
        bk_cli_source_free(&src);
    } else {
        bk_lookup *l = NULL;
        if ((rc = bk_cli_lookup_open(cmd, &src, &l)) == 0) {
            bk_cli_stop_saved saved;
            bk_cli_stop_signals_catch(&saved);
            rc = ranged ? range_main(cmd, l, &range, jobs, indent, progress) : args_main(cmd, l, &args, jobs, indent);
            bk_cli_stop_signals_restore(&saved);
            bk_lookup_close(l);
        }
    }
    bk_opt_args_free(&args);
    return rc;
}

static int filter_main(int argc, char **argv)
{
    static const bk_opt_sub subs[] = {{"match", match_main}, {NULL, NULL}};
    const bk_opt_subcommands sc = {"filter", subs, filter_blocks, NULL, NULL, NULL};
    return bk_opt_dispatch(&sc, argc, argv);
}

BK_CLI_COMMAND(filter_command, "filter", "--datadir DIR HASH|HEIGHT... | --start H --end H|-N [-j N] | match --script HEX...",
               "BIP158 block filters and headers as Core's getblockfilter, without the index", filter_main)
