/* blockkit block/header/tx --datadir, chain --tips: bitcoin-cli's
 * getblock, getblockheader, getrawtransaction and getchaintips answered from
 * a node's datadir (its block index, blk/rev files, txindex) without the
 * node (library: blockkit/lookup.h). */
#include "cli.h"
#include "lookup.h"

#include <blockkit/lookup.h>

#include <stdlib.h>
#include <string.h>

static const char header_intro[] =
    "bitcoin-cli getblockheader from a node's block index, without the node. Every\n"
    "block the index knows answers, pruned ones and those known by header only\n"
    "included. HEIGHT is a height on the active chain (getblockhash). One result\n"
    "per argument, one line each.\n";

/* Core's boolean spelling of a verbosity (getblock, getrawtransaction):
 * true = 1, false = 0, else a number 0..max. */
static int parse_verbosity(void *dest, const char *v, int64_t max)
{
    int64_t n;
    if (!strcmp(v, "true")) n = 1;
    else if (!strcmp(v, "false")) n = 0;
    else if (!bk_cli_parse_i64(v, &n) || n < 0 || n > max) return 0;
    *(int *)dest = (int)n;
    return 1;
}

int bk_cli_parse_verbosity3(void *dest, const char *value) { return parse_verbosity(dest, value, 3); }
int bk_cli_parse_verbosity2(void *dest, const char *value) { return parse_verbosity(dest, value, 2); }

int bk_cli_parse_verbose(void *dest, const char *v)
{
    if (!strcmp(v, "true") || !strcmp(v, "1")) *(int *)dest = 1;
    else if (!strcmp(v, "false") || !strcmp(v, "0")) *(int *)dest = 0;
    else return 0;
    return 1;
}

/* Core ParseHashV(.., name) for getrawtransaction's txid ("parameter 1")
 * and block hash ("parameter 3"). */
static int parse_hash_param(const char *cmd, const char *s, const char *name, uint8_t out[32])
{
    size_t n = strlen(s);
    int hex = 1;
    for (size_t i = 0; i < n && hex; i++) hex = bk_hex_digit((unsigned char)s[i]) >= 0;
    char msg[300];
    if (n != 64) {
        snprintf(msg, sizeof msg, "%s must be of length 64 (not %zu, for '%.100s')", name, n, s);
        bk_cli_rpc_fail(cmd, BK_RPC_INVALID_PARAMETER, msg);
        return 0;
    }
    if (!hex) {
        snprintf(msg, sizeof msg, "%s must be hexadecimal string (not '%.100s')", name, s);
        bk_cli_rpc_fail(cmd, BK_RPC_INVALID_PARAMETER, msg);
        return 0;
    }
    return bk_hex_decode_rev(out, s, 32, NULL) == BK_OK;
}

/* Write one result: compact JSON, or pretty (a string result bare). */
static int emit(bk_writer *w, int pretty)
{
    const uint8_t *p = w->data;
    size_t n = w->len;
    if (pretty && n >= 2 && p[0] == '"' && p[n - 1] == '"') {
        p++;
        n -= 2;
    }
    if (bk_cli_write_all(stdout, p, n) != 0 || bk_cli_write_all(stdout, "\n", 1) != 0) return BK_EXIT_IO;
    return 0;
}

int bk_cli_rpc_fail(const char *cmd, int code, const char *msg)
{
    int rc = code == BK_RPC_INVALID_PARAMETER ? BK_EXIT_USAGE
             : code == BK_RPC_INTERNAL_ERROR  ? BK_EXIT_DATA
                                              : BK_EXIT_NOINPUT;
    return bk_cli_fail(cmd, rc, "%s (error code %d)", msg, code);
}

int bk_cli_lookup_open(const char *cmd, bk_cli_source *src, bk_lookup **l_out)
{
    int rc;
    *l_out = NULL;
    int blocksdir_given = src->blocksdir != NULL;
    if ((rc = bk_cli_source_resolve(cmd, src, BK_CLI_NEED_DATADIR)) != 0) {
        bk_cli_source_free(src);
        return rc;
    }
    /* The lookups take the blk/rev files where Core's -blocksdir puts them
     * (<it>/<net>/blocks): a blk directory elsewhere would be ignored. */
    if (blocksdir_given && !src->core_blocksdir) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--blocksdir %s: lookups take Core's -blocksdir (the directory holding "
                         "%sblocks/) or that blocks folder itself", src->blocksdir,
                         bk_network_datadir_subdir(src->net));
        bk_cli_source_free(src);
        return rc;
    }
    bk_chain_opts copts;
    memset(&copts, 0, sizeof copts);
    copts.tmpdir = src->tmpdir;
    bk_error err;
    bk_error_clear(&err);
    bk_status ost = bk_lookup_open(src->datadir, src->core_blocksdir, src->net, &copts, NULL, l_out, &err);
    bk_cli_source_free(src);
    if (ost != BK_OK)
        return err.status == BK_ERR_NOT_FOUND
                   ? bk_cli_fail(cmd, bk_cli_exit_code(err.status),
                                 "%s (lookups need the node's block index; blk/rev files alone: blockkit scan)", err.msg)
                   : bk_cli_report(cmd, &err);
    return 0;
}

int bk_cli_lookup_run(const char *cmd, bk_cli_source *src, const bk_cli_lookup *q)
{
    int rc = BK_EXIT_OK;
    if (q->kind != BK_CLI_LOOKUP_TIPS && !q->n_args) {
        bk_cli_source_free(src);
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "give a %s (see --help)",
                           q->kind == BK_CLI_LOOKUP_TX ? "TXID" : "block hash or height");
    }
    /* getrawtransaction's third parameter, checked before anything is read */
    uint8_t bh[32];
    if (q->blockhash && !parse_hash_param(cmd, q->blockhash, "parameter 3", bh)) {
        bk_cli_source_free(src);
        return BK_EXIT_USAGE;
    }
    bk_lookup *l = NULL;
    if ((rc = bk_cli_lookup_open(cmd, src, &l)) != 0) return rc;
    bk_error err;
    /* Core: "Block hash not found" for a block it does not know. */
    const bk_chain_entry *in_block = NULL;
    if (q->blockhash) {
        in_block = bk_chain_find(bk_lookup_chain(l), bh);
        if (!in_block) {
            bk_lookup_close(l);
            return bk_cli_rpc_fail(cmd, BK_RPC_INVALID_ADDRESS_OR_KEY, "Block hash not found");
        }
    }
    bk_writer w;
    bk_writer_init(&w, NULL);
    size_t n_items = q->kind == BK_CLI_LOOKUP_TIPS ? 1 : q->n_args;
    for (size_t k = 0; k < n_items && !bk_cli_pipe_closed; k++) {
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, q->pretty ? 2 : 0);
        bk_status st;
        bk_error_clear(&err);
        if (q->kind == BK_CLI_LOOKUP_TIPS) {
            st = bk_lookup_chain_tips(l, &j, &err);
        } else if (q->kind == BK_CLI_LOOKUP_TX) {
            uint8_t txid[32];
            if (!parse_hash_param(cmd, q->args[k], "parameter 1", txid)) {
                rc = BK_EXIT_USAGE;
                continue;
            }
            bk_tx_json_opts to;
            bk_tx_json_opts_init(&to);
            st = bk_lookup_transaction_in(l, txid, in_block, q->verbosity, &to, &j, &err);
        } else {
            const bk_chain_entry *e;
            int header = q->kind == BK_CLI_LOOKUP_HEADER;
            st = bk_lookup_resolve(l, q->args[k], header ? "hash" : "blockhash", &e, &err);
            if (st == BK_OK) {
                bk_block_json_opts o;
                bk_block_json_opts_init(&o);
                o.core_version = q->core_version;
                o.verbosity = q->verbosity;
                st = header ? bk_lookup_block_header(l, e, q->verbosity, &o, &j, &err)
                            : bk_lookup_block(l, e, &o, &j, &err);
            }
        }
        const char *note = bk_lookup_warning(l);
        if (note) fprintf(stderr, "blockkit: %s: note: %s\n", cmd, note);
        if (st != BK_OK) {
            int code = bk_lookup_rpc_code(l);
            int e = code ? bk_cli_rpc_fail(cmd, code, err.msg) : bk_cli_report(cmd, &err);
            if (rc == BK_EXIT_OK || e != BK_EXIT_NOINPUT) rc = e;
            continue;
        }
        if (bk_writer_status(&w) != BK_OK) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            break;
        }
        if (emit(&w, q->pretty) != 0) {
            rc = bk_cli_output_error(cmd, stdout, NULL, bk_cli_write_errno);
            break;
        }
        if (bk_cli_pipe_closed) break;
    }
    if (rc == BK_EXIT_OK) rc = bk_cli_output_flush(cmd, stdout, NULL);
    bk_writer_free(&w);
    bk_lookup_close(l);
    return rc;
}

/* header: getblockheader only (no file mode). */
static int header_main(int argc, char **argv)
{
    const char *cmd = "header";
    bk_cli_source src;
    bk_cli_source_init(&src);
    bk_cli_lookup q = {BK_CLI_LOOKUP_HEADER, NULL, 0, 1, BK_CORE_NEWEST, 0, NULL};
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_ROW_CALL("--verbose", 0, &q.verbosity, bk_cli_parse_verbose, "true|false",
                        "true (default): the header object; false: its 80 bytes in hex\n"
                        "(also 1, 0)"),
        BK_OPT_ROW_INT("--core-compat", 0, &q.core_version, BK_CORE_MIN, BK_CORE_NEWEST, "V",
                       "Core release shape of the object: 28, 29, 30, 31 (default 31)"),
        BK_OPT_PRETTY(&q.pretty),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "HASH|HEIGHT...", header_intro, BK_CLI_LOOKUP_OUTRO, opts, SIZE_MAX};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    q.args = args.v;
    q.n_args = args.n;
    int rc = bk_cli_lookup_run(cmd, &src, &q);
    bk_opt_args_free(&args);
    return rc;
}

BK_CLI_COMMAND(header_command, "header", "--datadir DIR HASH|HEIGHT... [--verbose true|false] [--pretty]",
               "print a block header from a node's block index as Bitcoin Core's getblockheader", header_main)
