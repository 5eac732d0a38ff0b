/* blockkit block/header/tx --datadir, chain --tips: bitcoin-cli's
 * getblock, getblockheader, getrawtransaction and getchaintips answered from
 * a node's datadir (its block index, blk/rev files, txindex) without the
 * node (library: blockkit/lookup.h). */
#include "cli.h"
#include "lookup.h"

#include <blockkit/lookup.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum { L_BLOCK, L_HEADER, L_TX, L_TIPS } lookup_kind;

static const char *const kind_cmd[] = {"block", "header", "tx", "chain"};

static const char block_help[] =
    "usage: blockkit block --datadir DIR HASH|HEIGHT... [--verbosity 0-3] [options]\n"
    "\n"
    "bitcoin-cli getblock from a node's files, without the node: the block index\n"
    "(DIR/<net>/blocks/index) gives the block's position, status and undo position,\n"
    "the chainstate the tip; the block comes from its blk file, fee and prevout\n"
    "(verbosity 2, 3) from its rev record. HEIGHT is a height on the active chain\n"
    "(getblockhash). One result per argument, one line each.\n"
    "\n"
    "  --verbosity N     0 hex, 1 txids (default), 2 transactions and fees, 3 with prevouts\n"
    "                    (also true = 1, false = 0, as getblock takes them)\n";

static const char header_help[] =
    "usage: blockkit header --datadir DIR HASH|HEIGHT... [--verbose true|false] [options]\n"
    "\n"
    "bitcoin-cli getblockheader from a node's block index, without the node. Every\n"
    "block the index knows answers, pruned ones and those known by header only\n"
    "included. One result per argument, one line each.\n"
    "\n"
    "  --verbose B       true (default): the header object; false: its 80 bytes in hex\n";

static const char tx_help[] =
    "usage: blockkit tx --datadir DIR TXID... [--verbosity 0-2] [options]\n"
    "\n"
    "bitcoin-cli getrawtransaction through the node's transaction index\n"
    "(DIR/<net>/indexes/txindex, kept by a node started with -txindex), without\n"
    "the node: 0 hex, 1 (default) the decoded transaction with blockhash,\n"
    "confirmations (0 for a block off the active chain), time and blocktime,\n"
    "2 also fee and prevout from the block's undo data. One result per argument.\n"
    "Without a txindex (or on a pruned node, which Core never runs with one)\n"
    "every lookup without --blockhash is refused with Core's message.\n"
    "\n"
    "  --verbosity N     0, 1 (default) or 2 (also true = 1, false = 0)\n"
    "  --blockhash HASH  look in that block instead (getrawtransaction's third\n"
    "                    parameter: no txindex needed; the result starts with\n"
    "                    \"in_active_chain\")\n";

static const char tips_help[] =
    "usage: blockkit chain --tips --datadir DIR [options]\n"
    "\n"
    "bitcoin-cli getchaintips from a node's block index, without the node: the\n"
    "active tip and every block off the active chain that no other such block\n"
    "builds on, highest first, with branchlen and status (active, valid-fork,\n"
    "valid-headers, headers-only, invalid) as Core computes them.\n";

static const char common_help[] =
    "\n"
    "  --datadir DIR     the node's -datadir (the network's files are in DIR/<net>/)\n"
    "  --chain NAME      main, test|testnet3, testnet4, signet, regtest (default: main\n"
    "                    when DIR/blocks/index exists, else the one network directory\n"
    "                    of DIR that has a block index)\n"
    "  --blocksdir DIR   the node's -blocksdir: blk/rev files in DIR/<net>/blocks\n"
    "                    (the block index stays in the datadir)\n"
    "  --tmpdir DIR      where the private LevelDB snapshots are made (default $TMPDIR\n"
    "                    or /tmp; on the datadir's filesystem they are hard links)\n"
    "  --core-compat V   Core release shape of block and header objects: 28, 29, 30,\n"
    "                    31 (default 31; see docs/json.md)\n"
    "  --pretty          bitcoin-cli form (indent 2; a string result bare)\n"
    "\n"
    "The node's directories are only read (LevelDB through private snapshots), so\n"
    "this works while bitcoind runs and on a read-only copy. Core's refusals are\n"
    "Core's messages: \"Block not found\", \"Block height out of range\", \"Block not\n"
    "available (pruned data)\", \"No such mempool or blockchain transaction. ...\".\n"
    "\n"
    "Exit status: 0 ok, 64 usage (or a malformed hash or height), 65 damaged\n"
    "files, 66 not found / not available (or no such datadir), 74 I/O error.\n";

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The network of a datadir when --chain is not given: main when
 * DIR/blocks/index exists, else the only network subdirectory with one. */
static int detect_network(const char *cmd, const char *datadir, bk_network *net)
{
    char path[4200];
    int found = -1, count = 0;
    for (int n = 0; n < BK_NET_COUNT_; n++) {
        snprintf(path, sizeof path, "%s/%sblocks/index", datadir, bk_network_datadir_subdir((bk_network)n));
        if (is_dir(path)) {
            if (n == BK_NET_MAIN) {
                *net = BK_NET_MAIN;
                return 0;
            }
            found = n;
            count++;
        }
    }
    if (count == 1) {
        *net = (bk_network)found;
        return 0;
    }
    if (!is_dir(datadir)) return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "%s: no such directory", datadir);
    if (count == 0)
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT,
                           "%s has no block index (blocks/index) for any network (lookups need the node's block "
                           "index; blk/rev files alone: blockkit scan)",
                           datadir);
    return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s has block indexes for several networks: give --chain", datadir);
}

/* Print a Core RPC refusal and return its exit code. */
static int rpc_fail(const char *cmd, int code, const char *msg)
{
    return bk_cli_fail(cmd, code == BK_RPC_INVALID_PARAMETER ? BK_EXIT_USAGE : BK_EXIT_NOINPUT, "%s (error code %d)",
                       msg, code);
}


/* Core ParseHashV(.., name) for getrawtransaction's txid ("parameter 1")
 * and block hash ("parameter 3"). */
static int parse_hash_param(const char *cmd, const char *s, const char *name, uint8_t out[32])
{
    size_t n = strlen(s);
    int hex = 1;
    for (size_t i = 0; i < n && hex; i++) hex = bk_cli_hexval(s[i]) >= 0;
    char msg[300];
    if (n != 64) {
        snprintf(msg, sizeof msg, "%s must be of length 64 (not %zu, for '%.100s')", name, n, s);
        rpc_fail(cmd, BK_RPC_INVALID_PARAMETER, msg);
        return 0;
    }
    if (!hex) {
        snprintf(msg, sizeof msg, "%s must be hexadecimal string (not '%.100s')", name, s);
        rpc_fail(cmd, BK_RPC_INVALID_PARAMETER, msg);
        return 0;
    }
    for (int i = 0; i < 32; i++) out[31 - i] = (uint8_t)(bk_cli_hexval(s[2 * i]) << 4 | bk_cli_hexval(s[2 * i + 1]));
    return 1;
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

static int lookup_main(lookup_kind kind, int argc, char **argv)
{
    const char *cmd = kind_cmd[kind];
    const char *datadir = NULL, *blocksdir = NULL, *chain_name = NULL, *tmpdir = NULL, *blockhash = NULL;
    long verbosity = 1, core = BK_CORE_NEWEST;
    int pretty = 0, n_args = 0;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    int rc = BK_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            free(args);
            rc = bk_cli_help(cmd, kind == L_BLOCK    ? block_help
                                  : kind == L_HEADER ? header_help
                                  : kind == L_TX     ? tx_help
                                                     : tips_help);
            return rc ? rc : bk_cli_help(cmd, common_help);
        }
        if (!strcmp(a, "--pretty")) {
            pretty = 1;
            continue;
        }
        if (kind == L_TIPS && !strcmp(a, "--tips")) continue;
        if (a[0] == '-' && a[1] == '-') {
            const char *given = v; /* NULL: known options say so below */
            if (!v) v = "";
            i++;
            int ok = 1;
            if (!strcmp(a, "--datadir")) datadir = v;
            else if (!strcmp(a, "--chain")) chain_name = v;
            else if (!strcmp(a, "--tmpdir")) tmpdir = v;
            else if (!strcmp(a, "--blocksdir")) blocksdir = v;
            else if (kind == L_TX && !strcmp(a, "--blockhash")) blockhash = v;
            else if (!strcmp(a, "--core-compat")) ok = parse_long(v, BK_CORE_MIN, BK_CORE_NEWEST, &core);
            else if (kind == L_BLOCK && (!strcmp(a, "--verbosity") || !strcmp(a, "--verbose"))) {
                /* Core's getblock also takes a boolean: true = 1, false = 0. */
                if (!strcmp(v, "true")) verbosity = 1;
                else if (!strcmp(v, "false")) verbosity = 0;
                else ok = parse_long(v, 0, 3, &verbosity);
            }
            else if (kind == L_TX && (!strcmp(a, "--verbosity") || !strcmp(a, "--verbose"))) {
                if (!strcmp(v, "true")) verbosity = 1;
                else if (!strcmp(v, "false")) verbosity = 0;
                else ok = parse_long(v, 0, 2, &verbosity);
            } else if (kind == L_HEADER && !strcmp(a, "--verbose")) {
                if (!strcmp(v, "true") || !strcmp(v, "1")) verbosity = 1;
                else if (!strcmp(v, "false") || !strcmp(v, "0")) verbosity = 0;
                else ok = 0;
            } else {
                rc = bk_cli_unknown_option(cmd, a);
                goto out;
            }
            if (!given) {
                rc = bk_cli_missing_value(cmd, a);
                goto out;
            }
            if (!ok) {
                rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for %s: '%s'", a, v);
                goto out;
            }
            continue;
        }
        /* A single dash starts an option too (-o, -j: none here), unless it
         * is a negative height, which Core answers "Block height out of
         * range": refused before anything is looked up or printed. */
        int64_t negative_height;
        if (a[0] == '-' && a[1] && !(kind != L_TX && bk_cli_parse_i64(a, &negative_height))) {
            rc = bk_cli_unknown_option(cmd, a);
            goto out;
        }
        args[n_args++] = argv[i];
    }
    if (!datadir) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--datadir DIR is required (see --help)");
        goto out;
    }
    if (kind == L_TIPS && n_args) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--tips takes no arguments ('%s')", args[0]);
        goto out;
    }
    if (kind != L_TIPS && !n_args) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "give a %s (see --help)", kind == L_TX ? "TXID" : "block hash or height");
        goto out;
    }
    bk_network net;
    if (chain_name) {
        if (bk_network_parse(chain_name, &net) != BK_OK) {
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown chain '%s'", chain_name);
            goto out;
        }
    } else if ((rc = detect_network(cmd, datadir, &net)) != 0) {
        goto out;
    }

    bk_chain_opts copts;
    memset(&copts, 0, sizeof copts);
    copts.tmpdir = tmpdir;
    bk_error err;
    bk_error_clear(&err);
    bk_lookup *l = NULL;
    if (bk_lookup_open(datadir, blocksdir, net, &copts, NULL, &l, &err) != BK_OK) {
        rc = err.status == BK_ERR_NOT_FOUND
                 ? bk_cli_fail(cmd, BK_EXIT_NOINPUT,
                               "%s (lookups need the node's block index; blk/rev files alone: blockkit scan)", err.msg)
                 : bk_cli_report(cmd, &err);
        goto out;
    }
    /* getrawtransaction's third parameter: look in that block (no txindex
     * needed). Core: "Block hash not found" for a block it does not know. */
    const bk_chain_entry *in_block = NULL;
    if (blockhash) {
        uint8_t bh[32];
        if (!parse_hash_param(cmd, blockhash, "parameter 3", bh)) {
            rc = BK_EXIT_USAGE;
            bk_lookup_close(l);
            goto out;
        }
        in_block = bk_chain_find(bk_lookup_chain(l), bh);
        if (!in_block) {
            rc = rpc_fail(cmd, BK_RPC_INVALID_ADDRESS_OR_KEY, "Block hash not found");
            bk_lookup_close(l);
            goto out;
        }
    }
    bk_writer w;
    bk_writer_init(&w, NULL);
    int n_items = kind == L_TIPS ? 1 : n_args;
    for (int k = 0; k < n_items && !bk_cli_pipe_closed; k++) {
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, pretty ? 2 : 0);
        bk_status st;
        bk_error_clear(&err);
        if (kind == L_TIPS) {
            st = bk_lookup_chain_tips(l, &j, &err);
        } else if (kind == L_TX) {
            uint8_t txid[32];
            if (!parse_hash_param(cmd, args[k], "parameter 1", txid)) {
                rc = BK_EXIT_USAGE;
                continue;
            }
            bk_tx_json_opts to;
            bk_tx_json_opts_init(&to);
            st = bk_lookup_transaction_in(l, txid, in_block, (int)verbosity, &to, &j, &err);
        } else {
            const bk_chain_entry *e;
            st = bk_lookup_resolve(l, args[k], kind == L_HEADER ? "hash" : "blockhash", &e, &err);
            if (st == BK_OK) {
                bk_block_json_opts o;
                bk_block_json_opts_init(&o);
                o.core_version = (int)core;
                o.verbosity = (int)verbosity;
                st = kind == L_HEADER ? bk_lookup_block_header(l, e, (int)verbosity, &o, &j, &err)
                                      : bk_lookup_block(l, e, &o, &j, &err);
            }
        }
        const char *note = bk_lookup_warning(l);
        if (note) fprintf(stderr, "blockkit: %s: note: %s\n", cmd, note);
        if (st != BK_OK) {
            int code = bk_lookup_rpc_code(l);
            int e = code ? rpc_fail(cmd, code, err.msg) : bk_cli_report(cmd, &err);
            if (rc == BK_EXIT_OK || e != BK_EXIT_NOINPUT) rc = e;
            continue;
        }
        if (bk_writer_status(&w) != BK_OK) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            break;
        }
        if (emit(&w, pretty) != 0) {
            rc = bk_cli_output_error(cmd, stdout, NULL, bk_cli_write_errno);
            break;
        }
        if (bk_cli_pipe_closed) break;
    }
    if (rc == BK_EXIT_OK) rc = bk_cli_output_flush(cmd, stdout, NULL);
    bk_writer_free(&w);
    bk_lookup_close(l);
out:
    free(args);
    return rc;
}

int bk_lookup_block_main(int argc, char **argv) { return lookup_main(L_BLOCK, argc, argv); }
int bk_lookup_tx_main(int argc, char **argv) { return lookup_main(L_TX, argc, argv); }
int bk_lookup_tips_main(int argc, char **argv) { return lookup_main(L_TIPS, argc, argv); }

static int header_main(int argc, char **argv) { return lookup_main(L_HEADER, argc, argv); }

BK_CLI_COMMAND(header_command, "header", "--datadir DIR HASH|HEIGHT... [--verbose true|false] [--pretty]",
               "print a block header from a node's block index as Bitcoin Core's getblockheader", header_main)
