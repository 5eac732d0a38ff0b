/* blockkit sp: silent payments (BIP352) from a node's blocks and undo data:
 * the tweaks a light client downloads (`sp tweaks`), and a wallet's full
 * rescan (`sp scan`). The rules and the range driver are the library's
 * (blockkit/silentpay.h); docs/silentpay.md. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "opt.h"
#include "source.h"

#include <blockkit/silentpay.h>
#include <blockkit/utxo.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char tweaks_intro[] =
    "Print the BIP352 tweak (input_hash·A, 33 bytes compressed) of every silent\n"
    "payment eligible transaction: one line per block,\n"
    "  {\"height\":H,\"hash\":\"..\",\"tweaks\":[\"02..\",...]}\n"
    "(what an index server answers a light client for a height), or with --txs one\n"
    "line per eligible transaction with its taproot outputs,\n"
    "  {\"height\",\"hash\",\"txid\",\"tweak\",\"outputs\":[{\"vout\",\"pubkey\",\"value\"}]}\n"
    "in height order, then block order.\n"
    "\n"
    "A node's files (--datadir or --blocksdir): the blocks named by HEIGHT|HASH\n"
    "arguments, in the order given, else heights --start..--end of the best\n"
    "chain (-j N workers; the output stays in height order). One raw block: FILE\n"
    "(bytes or hex, - for stdin) with --undo UNDO, its undo data (a bare\n"
    "CBlockUndo or a rev*.dat record), as `stats` takes them.\n"
    "\n"
    "Filters (BIP352 Appendix A): --dust-limit SATS drops a transaction whose\n"
    "taproot outputs are all below SATS; --cut-through drops one whose taproot\n"
    "outputs (at or above the dust limit) are all spent in the node's chainstate\n"
    "(--datadir: its tip's UTXO set, read through a private snapshot).\n";

static const char scan_intro[] =
    "A wallet's full rescan from the node's files: every output paid to the\n"
    "silent payment address of scan key b_scan and spend key B_spend (and its\n"
    "labels), one line per output found:\n"
    "  {\"height\",\"hash\",\"txid\",\"vout\",\"pubkey\",\"value\",\"tweak\",\"k\",\n"
    "   \"priv_key_tweak\",\"label\"}\n"
    "(priv_key_tweak: add it to the spend private key to spend the output; label:\n"
    "m, or null for the unlabelled address).\n"
    "\n"
    "The scan private key is read from --scan-key-file FILE, or from standard\n"
    "input with --scan-key-file -: 64 hex digits. It is never taken from the\n"
    "command line, where any user's process listing would show it.\n";

static const char sp_outro[] =
    "SIGINT, SIGTERM and SIGHUP stop after the current block, name the height to\n"
    "resume from, and end with status 128 + the signal number.\n"
    "Exit status: 0 ok, 64 usage (a bad --spend-pubkey), 65 bad block or undo\n"
    "data, a bad scan key file, 66 no such file, block or undo data, or an empty\n"
    "range, 74 I/O error, 128+N signal N.\n";

/* ---- cut-through: the chainstate, one lookup at a time ---- */

typedef struct cut_through {
    bk_chainstate *cs;
    pthread_mutex_t mu;
} cut_through;

static int cut_unspent(void *ctx, const uint8_t txid[32], uint32_t vout, bk_error *err)
{
    cut_through *c = ctx;
    bk_utxo u;
    pthread_mutex_lock(&c->mu);
    bk_status st = bk_chainstate_get(c->cs, txid, vout, &u, err);
    pthread_mutex_unlock(&c->mu);
    if (st == BK_OK) return 1;
    if (st == BK_ERR_NOT_FOUND) return 0;
    return -1;
}

/* ---- one raw block ---- */

static int file_main(const char *cmd, const bk_sp_lines_opts *lo, const char *file, const char *undo_file,
                     int have_height, int64_t height, bk_network net)
{
    bk_error err;
    bk_error_clear(&err);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_sp_scratch sc;
    bk_sp_scratch_init(&sc, NULL);
    bk_block_undo undo, *undop = NULL;
    bk_cli_block_file bf;
    int rc = bk_cli_block_file_load(cmd, &bf, file, have_height, height);
    if (rc) goto done;
    if (undo_file) {
        if ((rc = bk_cli_block_file_undo(cmd, &bf, undo_file)) != 0) goto done;
        const uint8_t *ud = NULL;
        size_t ul = 0;
        if (bk_cli_locate_undo(bf.undo_in.data, bf.undo_in.len, &bf.b, net, &ud, &ul, &err) != BK_OK ||
            bk_block_undo_parse(ud, ul, &undo, &err) != BK_OK) {
            rc = bk_cli_fail(cmd, bk_cli_exit_code(err.status), "undo data of the block at height %lld: %s at byte %llu",
                             (long long)bf.height, err.msg, (unsigned long long)err.offset);
            goto done;
        }
        undop = &undo;
    } else if (bf.height != 0) {
        rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "undo data not available (give --undo FILE: the spent scripts "
                         "are in it)");
        goto done;
    }
    if (bk_sp_block_lines(lo, &sc, &bf.b, undop, bf.height, NULL, &w, &err) != BK_OK) {
        rc = bk_cli_fail(cmd, bk_cli_exit_code(err.status), "%s", err.msg);
        goto done;
    }
    rc = bk_cli_output_write(cmd, stdout, NULL, w.data, w.len);
    if (!rc) rc = bk_cli_output_flush(cmd, stdout, NULL);
done:
    bk_writer_free(&w);
    bk_sp_scratch_free(&sc);
    bk_cli_block_file_free(&bf);
    return rc;
}

/* ---- a node's files ---- */

typedef struct dir_run {
    bk_chain chain;
    bk_blocksdir dir;
    size_t emitted;
} dir_run;

static bk_status dir_consume(void *vctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    dir_run *R = vctx;
    if (bk_cli_write_all(stdout, data, len) != 0) return bk_error_set(err, BK_ERR_IO, 0, "write error");
    R->emitted = job + 1;
    if (bk_cli_pipe_closed) return bk_error_set(err, BK_ERR_IO, 0, "closed pipe");
    return BK_OK;
}

/* The blocks named by arguments (heights or hashes), in the order given. */
static int items_from_args(const char *cmd, const bk_chain *c, const bk_opt_args *args, bk_engine_item **items,
                           size_t *n)
{
    *items = calloc(args->n ? args->n : 1, sizeof **items);
    if (!*items) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    const bk_chain_entry *tip = bk_chain_tip(c);
    for (size_t i = 0; i < args->n; i++) {
        const char *a = args->v[i];
        const bk_chain_entry *e = NULL;
        uint8_t h[32];
        int64_t height;
        if (strlen(a) == 64 && bk_cli_parse_block_hash(a, h)) {
            e = bk_chain_find(c, h);
            if (!e) return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "block %s not found", a);
            if (e->height < 0)
                return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "block %s is not connected to a genesis block: no height", a);
        } else if (bk_cli_parse_i64(a, &height) && height >= 0) {
            if (!tip || height > tip->height)
                return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "height %lld is past the tip (%lld)", (long long)height,
                                   tip ? (long long)tip->height : -1LL);
            e = bk_chain_at_height(c, height);
            if (!e) return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no block at height %lld in the files", (long long)height);
        } else {
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "'%s' is neither a height nor a block hash (64 hex digits)", a);
        }
        (*items)[i].entry = (uint32_t)(e - c->entries);
        (*items)[i].height = e->height;
        (*items)[i].orphan = 0;
    }
    *n = args->n;
    return 0;
}

static int dir_main(const char *cmd, const bk_sp_lines_opts *lo_in, bk_cli_source *src, const bk_cli_range *range,
                    int have_start, const bk_opt_args *args, int jobs, int cut)
{
    dir_run R;
    memset(&R, 0, sizeof R);
    bk_sp_lines_opts lo = *lo_in;
    bk_error err;
    bk_error_clear(&err);
    cut_through ct;
    memset(&ct, 0, sizeof ct);
    int rc = 0;
    bk_engine_item *items = NULL;
    size_t n = 0;
    if (bk_blocksdir_open(&R.dir, src->blocksdir, src->net, NULL, &err) != BK_OK) return bk_cli_report(cmd, &err);
    if (cut) {
        if (!src->datadir) {
            bk_blocksdir_close(&R.dir);
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "--cut-through reads the node's chainstate: give --datadir");
        }
        char path[4096];
        bk_network_datadir_path(path, sizeof path, src->datadir, src->net, "chainstate");
        if (bk_chainstate_open(path, src->tmpdir, NULL, &ct.cs, &err) != BK_OK) {
            bk_blocksdir_close(&R.dir);
            return bk_cli_fail(cmd, bk_cli_exit_code(err.status), "%s: %s", path, err.msg);
        }
        pthread_mutex_init(&ct.mu, NULL);
        lo.filter.unspent = cut_unspent;
        lo.filter.spent_ctx = &ct;
    }
    rc = bk_cli_source_build(cmd, src, src->net, &bk_cli_stop, 0, &R.chain);
    if (rc) goto out_dir;
    if (args->n) {
        if ((rc = items_from_args(cmd, &R.chain, args, &items, &n)) != 0) goto out;
    } else {
        const bk_chain_entry *tip = bk_chain_tip(&R.chain);
        int64_t top = tip ? tip->height : -1;
        int64_t start = have_start ? range->start : R.chain.base_height;
        int64_t end = bk_engine_range_end(top, range->end, range->below_tip);
        size_t cap = 0;
        if (end >= start &&
            bk_engine_chain_items(&R.chain, start, end, 1, &items, &n, &cap, NULL, NULL, NULL, &err) != BK_OK) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            goto out;
        }
        if (n == 0) {
            rc = bk_cli_empty_range(cmd, range);
            goto out;
        }
    }
    if (jobs > (int)n) jobs = (int)n;
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = &R.chain;
    eo.dir = &R.dir;
    eo.items = items;
    eo.n_items = n;
    eo.run.workers = jobs;
    eo.run.window = 2 * (size_t)jobs + 1;
    eo.run.cancel = &bk_cli_stop;
    eo.consume = dir_consume;
    eo.ctx = &R;
    bk_engine_result er;
    bk_sp_run_stats rs;
    bk_status st = bk_sp_run(&lo, &eo, &er, &rs, &err);
    if (st == BK_ERR_CANCELLED) {
        const bk_chain_entry *next = &R.chain.entries[items[R.emitted < n ? R.emitted : n - 1].entry];
        fprintf(stderr, "blockkit: %s: stopped by a signal before height %d; resume with --start %d\n", cmd,
                (int)next->height, (int)next->height);
        rc = bk_cli_output_flush(cmd, stdout, NULL);
        if (!rc) rc = 128 + (int)bk_cli_stop;
    } else if (st != BK_OK && er.run.failure == BK_ORDERED_CONSUME) {
        rc = bk_cli_pipe_closed ? 0 : bk_cli_output_error(cmd, stdout, NULL, bk_cli_write_errno);
    } else if (st != BK_OK) {
        char m[4608];
        if (er.where.stage == BK_STAGE_WORK) snprintf(m, sizeof m, "%s", err.msg);
        else bk_engine_error_format(&er.where, &err, m, sizeof m);
        rc = st == BK_ERR_NOT_FOUND ? BK_EXIT_NOINPUT : st == BK_ERR_IO ? BK_EXIT_IO
             : st == BK_ERR_NOMEM ? BK_EXIT_SOFTWARE : BK_EXIT_DATA;
        const bk_chain_entry *at = &R.chain.entries[items[R.emitted < n ? R.emitted : n - 1].entry];
        bk_cli_fail(cmd, rc, "%s; stopped there after %zu complete block(s) (resume with --start %d)", m, R.emitted,
                    (int)at->height);
    } else {
        rc = bk_cli_output_flush(cmd, stdout, NULL);
    }
out:
    free(items);
    bk_chain_free(&R.chain);
out_dir:
    if (ct.cs) {
        bk_chainstate_close(ct.cs);
        pthread_mutex_destroy(&ct.mu);
    }
    bk_blocksdir_close(&R.dir);
    return rc;
}

/* The options shared by both subcommands, parsed, and the run. */
typedef struct sp_common {
    bk_cli_source src;
    bk_cli_range range;
    int jobs;
} sp_common;

static void sp_common_init(sp_common *c)
{
    bk_cli_source_init(&c->src);
    bk_cli_range_init(&c->range);
    c->jobs = 1;
}

#define SP_COMMON_ROWS(c)                                                                            \
    BK_OPT_SOURCE_DIRS(&(c)->src), BK_OPT_SOURCE_INDEX(&(c)->src), BK_OPT_RANGE(&(c)->range),        \
    BK_OPT_JOBS(&(c)->jobs, "worker threads (default 1); output stays in height order")

static int run_dir(const char *cmd, const bk_opt_spec *spec, sp_common *c, const bk_sp_lines_opts *lo,
                   const bk_opt_args *args, int cut)
{
    int rc = bk_cli_source_resolve(cmd, &c->src, BK_CLI_NEED_BLOCKS);
    if (rc) return rc;
    if (args->n && (bk_opt_given(spec, "--start") || bk_opt_given(spec, "--end")))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "HEIGHT|HASH arguments exclude --start and --end");
    if (bk_opt_given(spec, "--start") && c->range.end >= 0 && c->range.end < c->range.start)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--end %lld is below --start %lld", (long long)c->range.end,
                           (long long)c->range.start);
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    rc = dir_main(cmd, lo, &c->src, &c->range, bk_opt_given(spec, "--start"), args, c->jobs, cut);
    bk_cli_stop_signals_restore(&saved);
    return rc;
}

static int sp_tweaks(int argc, char **argv)
{
    const char *cmd = "sp tweaks";
    const char *undo_file = NULL;
    int64_t height = -1, dust = 0;
    int txs = 0, cut = 0;
    sp_common c;
    sp_common_init(&c);
    bk_opt opts[] = {
        SP_COMMON_ROWS(&c),
        BK_OPT_ROW_FLAG("--txs", 0, &txs, "one line per eligible transaction, with its taproot outputs"),
        BK_OPT_ROW_I64("--dust-limit", 0, &dust, 0, INT64_MAX, "SATS",
                       "drop a transaction whose taproot outputs are all below SATS"),
        BK_OPT_ROW_FLAG("--cut-through", 0, &cut,
                        "drop a transaction whose taproot outputs are all spent in the\n"
                        "node's chainstate (needs --datadir)"),
        BK_OPT_ROW_STR("--undo", 0, &undo_file, "UNDO", "FILE's undo data (bare CBlockUndo or rev*.dat record)"),
        BK_OPT_ROW_I64("--height", 0, &height, 0, INT32_MAX, "H", "FILE's height (default: its BIP34 height)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "[HEIGHT|HASH...|FILE]", tweaks_intro, sp_outro, opts, SIZE_MAX};
    bk_opt_args args;
    int rc = bk_opt_parse(&spec, argc, argv, &args);
    if (rc != BK_OPT_CONTINUE) return rc;
    rc = 0;
    bk_sp_lines_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.form = txs ? BK_SP_FORM_TXS : BK_SP_FORM_BLOCKS;
    lo.filter.dust_limit = dust;
    int dir_mode = c.src.datadir || c.src.blocksdir;
    if (!dir_mode) {
        if (args.n != 1) {
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give one block FILE (with --undo UNDO), or --datadir/--blocksdir");
        } else if (cut) {
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--cut-through reads the node's chainstate: give --datadir");
        } else {
            static const char *const dir_only[] = {"--start", "--end", "--jobs", "--blockindex", "--source"};
            for (size_t k = 0; k < sizeof dir_only / sizeof dir_only[0] && !rc; k++)
                if (bk_opt_given(&spec, dir_only[k]))
                    rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "%s is for a node's files (--datadir or --blocksdir)",
                                     dir_only[k]);
            if (!rc)
                rc = file_main(cmd, &lo, args.v[0], undo_file, bk_opt_given(&spec, "--height"), height, c.src.net);
        }
    } else if (undo_file || bk_opt_given(&spec, "--height")) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--undo and --height are for a block FILE");
    } else {
        rc = run_dir(cmd, &spec, &c, &lo, &args, cut);
    }
    bk_opt_args_free(&args);
    bk_cli_source_free(&c.src);
    return rc;
}

/* The scan key: from a file or standard input, never argv. The buffer is
 * wiped once parsed. */
static int read_scan_key(const char *cmd, const char *path, uint8_t key[32])
{
    bk_cli_input in;
    int rc = bk_cli_read_input_max(cmd, path, 4096, "a scan key file holds 64 hex digits", &in);
    if (rc) return rc;
    bk_error err;
    bk_status st = bk_sp_scan_key_parse(in.data, in.len, key, &err);
    volatile uint8_t *p = in.data;
    for (size_t i = 0; i < in.len; i++) p[i] = 0;
    bk_cli_input_free(&in);
    if (st != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_DATA, "%s: %s", strcmp(path, "-") ? path : "standard input", err.msg);
    return 0;
}

static int sp_scan(int argc, char **argv)
{
    const char *cmd = "sp scan";
    const char *key_file = NULL, *spend_hex = NULL;
    int labels = 0;
    sp_common c;
    sp_common_init(&c);
    bk_opt opts[] = {
        SP_COMMON_ROWS(&c),
        BK_OPT_ROW_STR("--scan-key-file", 0, &key_file, "FILE|-",
                       "the scan private key b_scan (64 hex digits) from FILE, or\n"
                       "from standard input (-); never on the command line"),
        BK_OPT_ROW_STR("--spend-pubkey", 0, &spend_hex, "HEX", "the spend public key B_spend (66 hex digits)"),
        BK_OPT_ROW_INT("--labels", 0, &labels, 0, 1000000, "N",
                       "also look for labels 1..N (the change label 0 always)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "[HEIGHT|HASH...]", scan_intro, sp_outro, opts, SIZE_MAX};
    bk_opt_args args;
    int rc = bk_opt_parse(&spec, argc, argv, &args);
    if (rc != BK_OPT_CONTINUE) return rc;
    bk_sp_scanner *scanner = NULL;
    uint32_t *lab = NULL;
    uint8_t key[32], spend[33];
    bk_error err;
    if (!c.src.datadir && !c.src.blocksdir) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give the node's files: --datadir or --blocksdir");
        goto out;
    }
    if (!key_file || !spend_hex) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give --scan-key-file FILE|- and --spend-pubkey HEX");
        goto out;
    }
    if (bk_sp_pubkey_parse(spend_hex, strlen(spend_hex), spend, &err) != BK_OK) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --spend-pubkey: %s", err.msg);
        goto out;
    }
    if ((rc = read_scan_key(cmd, key_file, key)) != 0) goto out;
    lab = malloc(((size_t)labels + 1) * sizeof *lab);
    if (!lab) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto out;
    }
    for (int i = 0; i <= labels; i++) lab[i] = (uint32_t)i;
    bk_status st = bk_sp_scanner_new(key, spend, lab, (size_t)labels + 1, NULL, &scanner, &err);
    volatile uint8_t *kp = key;
    for (size_t i = 0; i < sizeof key; i++) kp[i] = 0;
    if (st != BK_OK) {
        rc = bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
        goto out;
    }
    bk_sp_lines_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.form = BK_SP_FORM_SCAN;
    lo.scanner = scanner;
    rc = run_dir(cmd, &spec, &c, &lo, &args, 0);
out:
    bk_sp_scanner_free(scanner);
    free(lab);
    bk_opt_args_free(&args);
    bk_cli_source_free(&c.src);
    return rc;
}

static const char sp_usage[] =
    "usage: blockkit sp tweaks|scan [options]\n"
    "  sp tweaks  the BIP352 tweak of every eligible transaction, per block or per\n"
    "             transaction (light clients, index servers)\n"
    "  sp scan    a wallet's rescan: the outputs paid to a silent payment address\n"
    "             (the scan key from a file or stdin, never the command line)\n"
    "See blockkit sp tweaks --help, blockkit sp scan --help, docs/silentpay.md.\n";

static int sp_main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        if (argc >= 2) return bk_cli_help("sp", sp_usage);
        fputs(sp_usage, stderr);
        return BK_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--usage")) {
        char *tw[] = {"tweaks", "--usage", NULL}, *sc[] = {"scan", "--usage", NULL};
        int rc = sp_tweaks(2, tw);
        return rc ? rc : sp_scan(2, sc);
    }
    if (!strcmp(argv[1], "tweaks")) return sp_tweaks(argc - 1, argv + 1);
    if (!strcmp(argv[1], "scan")) return sp_scan(argc - 1, argv + 1);
    return bk_cli_fail("sp", BK_EXIT_USAGE, "unknown subcommand '%s' (tweaks, scan; see --help)", argv[1]);
}

BK_CLI_COMMAND(sp_command, "sp", "tweaks|scan (--datadir DIR | FILE --undo UNDO) [--txs] [--start H] [--end H] [-j N]",
               "silent payments (BIP352): tweaks for light clients, a wallet's rescan", sp_main)
