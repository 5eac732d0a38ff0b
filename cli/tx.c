/* blockkit tx: a raw transaction as Bitcoin Core's decoderawtransaction
 * prints it, or with its spent coins as getrawtransaction verbosity 2. */
#include "cli.h"
#include "lookup.h"

#include <blockkit/json.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char tx_help[] =
    "usage: blockkit tx [HEX | --file FILE | -] [options]\n"
    "\n"
    "Without spent coins: Core's decoderawtransaction result (no \"hex\", no \"fee\";\n"
    "witness/legacy decoding chosen by Core's DecodeTx heuristics). With\n"
    "--undo-coins: Core's getrawtransaction verbosity 2 shape (TxToUniv with\n"
    "\"prevout\" per input, \"fee\" and \"hex\"; no block fields).\n"
    "\n"
    "  HEX                the transaction as hex on the command line\n"
    "  --file FILE        read it from FILE (raw bytes or hex text); - = stdin\n"
    "  --undo-coins FILE  the coins the inputs spend, as one CTxUndo of Core's undo\n"
    "                     data (CompactSize count, then one Coin per input; raw or hex)\n"
    "  --chain NAME       main (default), test/testnet3, testnet4, signet, regtest\n"
    "  --pretty           bitcoin-cli form (indent 2)\n"
    "  --indent N         pretty form with indent N (bitcoin-tx -json uses 4)\n"
    "  --include-hex      add \"hex\" also without coins (TxToUniv include_hex)\n"
    "  --signed-version   print nVersion as int32 (Core before v28)\n"
    "\n"
    "Exit status (the table in blockkit(1)): 0 ok, 64 usage, 65 bad transaction or\n"
    "coins, 66 missing input, 74 I/O.\n"
    "\n"
    "blockkit tx --datadir DIR TXID [--verbosity 0-2] [--blockhash HASH]:\n"
    "getrawtransaction through a node's txindex (see blockkit tx --datadir . --help).\n";

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static int tx_main(int argc, char **argv)
{
    const char *cmd = "tx";
    /* With --datadir: getrawtransaction through the node's txindex (cli/lookup.c). */
    if (bk_cli_has_opt(argc, argv, "--datadir")) return bk_lookup_tx_main(argc, argv);
    const char *hex = NULL, *file = NULL, *coins_file = NULL;
    long indent = 0;
    int include_hex = 0, signed_version = 0;
    bk_network net = BK_NET_MAIN;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return bk_cli_help(cmd, tx_help);
        }
        if (!strcmp(a, "--pretty")) indent = 2;
        else if (!strcmp(a, "--include-hex")) include_hex = 1;
        else if (!strcmp(a, "--signed-version")) signed_version = 1;
        else if (!strcmp(a, "-")) file = "-";
        else if (!strcmp(a, "--file") || !strcmp(a, "--undo-coins") || !strcmp(a, "--chain") ||
                 !strcmp(a, "--indent")) {
            if (!v) return bk_cli_missing_value(cmd, a);
            i++;
            if (!strcmp(a, "--file")) file = v;
            else if (!strcmp(a, "--undo-coins")) coins_file = v;
            else if (!strcmp(a, "--chain")) {
                if (bk_network_parse(v, &net) != BK_OK)
                    return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown chain '%s'", v);
            } else if (!parse_int(v, 0, 64, &indent)) {
                return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --indent '%s'", v);
            }
        } else if (a[0] == '-' && a[1]) { /* hex never starts with '-' */
            return bk_cli_unknown_option(cmd, a);
        } else {
            if (hex) return bk_cli_fail(cmd, BK_EXIT_USAGE, "more than one transaction given");
            hex = a;
        }
    }
    if ((hex != NULL) + (file != NULL) != 1)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "give exactly one of HEX, --file FILE or - (see --help)");

    bk_cli_input in, cin;
    memset(&in, 0, sizeof in);
    memset(&cin, 0, sizeof cin);
    int rc;
    if (hex) {
        size_t n = strlen(hex);
        in.data = malloc(n ? n : 1);
        if (!in.data) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        memcpy(in.data, hex, n);
        in.len = n;
        if (!bk_cli_maybe_unhex(&in)) {
            bk_cli_input_free(&in);
            return bk_cli_fail(cmd, BK_EXIT_DATA, "the argument is not hex (use --file for a binary file)");
        }
    } else {
        rc = bk_cli_read_input_max(cmd, file, BK_CLI_MAX_BLOCK, "a transaction is at most 4,000,000 bytes (8,000,000 hex digits)", &in);
        if (rc) return rc;
        bk_cli_maybe_unhex(&in);
    }

    bk_error err;
    bk_error_clear(&err);
    bk_writer w;
    bk_writer_init(&w, NULL);
    uint8_t *undo_buf = NULL;
    rc = BK_EXIT_OK;
    bk_tx tx;
    if (bk_tx_decode_core(in.data, in.len, &tx, &err) != BK_OK) {
        rc = bk_cli_report(cmd, &err);
        goto done;
    }

    bk_tx_json_opts o;
    bk_tx_json_opts_init(&o);
    o.network = net;
    o.include_hex = include_hex;
    o.signed_version = signed_version;
    bk_block_undo undo;
    bk_undo_iter ui, *uip = NULL;
    if (coins_file) {
        rc = bk_cli_read_input_max(cmd, coins_file, BK_CLI_MAX_UNDO, "undo data is at most 256 MiB here", &cin);
        if (rc) goto done;
        bk_cli_maybe_unhex(&cin);
        if (bk_tx_is_coinbase(&tx)) {
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "a coinbase spends no coins; drop --undo-coins");
            goto done;
        }
        /* Wrap the CTxUndo as a one-entry CBlockUndo to parse and walk it. */
        undo_buf = malloc(cin.len + 1);
        if (!undo_buf) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            goto done;
        }
        undo_buf[0] = 1;
        memcpy(undo_buf + 1, cin.data, cin.len);
        uint32_t n_coins = 0;
        if (bk_block_undo_parse(undo_buf, cin.len + 1, &undo, &err) != BK_OK) {
            if (err.offset) err.offset--;
            rc = bk_cli_report(cmd, &err);
            goto done;
        }
        bk_undo_iter_init(&ui, &undo);
        if (!bk_undo_next_tx(&ui, &n_coins) || n_coins != tx.n_in) {
            rc = bk_cli_fail(cmd, BK_EXIT_DATA, "%u coins given for %u inputs", (unsigned)n_coins,
                             (unsigned)tx.n_in);
            goto done;
        }
        uip = &ui;
        o.include_hex = 1;
        o.verbosity = BK_TXV_DETAILS_AND_PREVOUT;
    }

    bk_json j;
    bk_json_init(&j, &w, (unsigned)indent);
    if (bk_json_tx(&j, &tx, &o, uip, &err) != BK_OK) {
        rc = bk_cli_report(cmd, &err);
        goto done;
    }
    bk_writer_putc(&w, '\n');
    if (bk_writer_status(&w) != BK_OK) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto done;
    }
    rc = bk_cli_output_write(cmd, stdout, NULL, w.data, w.len);
    if (!rc) rc = bk_cli_output_flush(cmd, stdout, NULL);

done:
    free(undo_buf);
    bk_writer_free(&w);
    if (cin.data) bk_cli_input_free(&cin);
    bk_cli_input_free(&in);
    return rc;
}

BK_CLI_COMMAND(tx_command, "tx", "[HEX | --file FILE | -] [--undo-coins FILE] [--chain NAME] [--pretty] | --datadir DIR TXID",
               "print a transaction as Bitcoin Core's decoderawtransaction / getrawtransaction", tx_main)
