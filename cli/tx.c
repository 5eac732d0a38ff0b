/* blockkit tx: a raw transaction as Bitcoin Core's decoderawtransaction
 * prints it, or with its spent coins as getrawtransaction verbosity 2. */
#include "cli.h"
#include "lookup.h"

#include <blockkit/json.h>

#include <stdlib.h>
#include <string.h>

static const char tx_intro[] =
    "blockkit tx HEX | --file FILE | -: without spent coins, Core's\n"
    "decoderawtransaction result (no \"hex\", no \"fee\"; witness/legacy decoding\n"
    "chosen by Core's DecodeTx heuristics). With --undo-coins: Core's\n"
    "getrawtransaction verbosity 2 shape (TxToUniv with \"prevout\" per input,\n"
    "\"fee\" and \"hex\"; no block fields). HEX is the transaction on the command\n"
    "line, --file FILE reads it (raw bytes or hex text), - reads standard input.\n"
    "--chain names the network of the addresses (default main).\n"
    "\n"
    "blockkit tx --datadir DIR TXID...: bitcoin-cli getrawtransaction through the\n"
    "node's transaction index (DIR/<net>/indexes/txindex, kept by a node started\n"
    "with -txindex), without the node: verbosity 0 hex, 1 (default) the decoded\n"
    "transaction with blockhash, confirmations (0 for a block off the active\n"
    "chain), time and blocktime, 2 also fee and prevout from the block's undo\n"
    "data. One result per argument. Without a txindex (or on a pruned node, which\n"
    "Core never runs with one) every lookup without --blockhash is refused with\n"
    "Core's message.\n"
    "\n"
    "Options marked HEX are for a transaction given as HEX, FILE or -; those\n"
    "marked DIR, --blocksdir and --tmpdir are for --datadir lookups.\n";

static const char tx_outro[] =
    "Exit status of a HEX, FILE or - (the table in blockkit(1)): 0 ok, 64 usage,\n"
    "65 bad transaction or coins, 66 missing input, 74 I/O.\n"
    "\n" BK_CLI_LOOKUP_OUTRO;

/* The two modes: a transaction given as HEX, FILE or -, and --datadir
 * lookups (a row BK_OPT_IN one). */
enum { MODE_HEX, MODE_DIR };
#define IN_HEX (1u << MODE_HEX)
#define IN_DIR (1u << MODE_DIR)
static const bk_opt_mode tx_modes[] = {{"a transaction given as HEX, FILE or -, not --datadir lookups", NULL},
                                       {"--datadir lookups, not a transaction given as HEX, FILE or -", NULL}};

static int tx_main(int argc, char **argv)
{
    const char *cmd = "tx";
    const char *file = NULL, *coins_file = NULL, *blockhash = NULL;
    int indent = 0, include_hex = 0, signed_version = 0, verbosity = 1;
    bk_cli_source src;
    bk_cli_source_init(&src);
    /* One table for both modes: a transaction given as HEX/FILE, and
     * --datadir lookups through the txindex. */
    bk_opt opts[] = {
        BK_OPT_ROW_DATADIR(&src),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_BLOCKSDIR(&src)),
        BK_OPT_ROW_CHAIN(&src),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_TMPDIR(&src)),
        BK_OPT_PRETTY(&indent),
        BK_OPT_IN(IN_HEX, BK_OPT_ROW_STR("--file", 0, &file, "FILE",
                                         "HEX: read the transaction from FILE (raw or hex); - = stdin")),
        BK_OPT_IN(IN_HEX, BK_OPT_ROW_STR("--undo-coins", 0, &coins_file, "FILE",
                                         "HEX: the coins the inputs spend, as one CTxUndo of Core's\n"
                                         "undo data (CompactSize count, then one Coin per input; raw\n"
                                         "or hex)")),
        BK_OPT_IN(IN_HEX, BK_OPT_ROW_INT("--indent", 0, &indent, 0, 64, "N",
                                         "HEX: pretty form with indent N (bitcoin-tx -json uses 4)")),
        BK_OPT_IN(IN_HEX, BK_OPT_ROW_FLAG("--include-hex", 0, &include_hex,
                                          "HEX: add \"hex\" also without coins (TxToUniv include_hex)")),
        BK_OPT_IN(IN_HEX, BK_OPT_ROW_FLAG("--signed-version", 0, &signed_version,
                                          "HEX: print nVersion as int32 (Core before v28)")),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_CALL("--verbosity", 0, &verbosity, bk_cli_parse_verbosity2, "0-2|true|false",
                                          "DIR: 0, 1 (default) or 2 (true = 1, false = 0)")),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_CALL("--verbose", 0, &verbosity, bk_cli_parse_verbosity2, "0-2|true|false",
                                          "DIR: getrawtransaction's other name for --verbosity")),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_STR("--blockhash", 0, &blockhash, "HASH",
                                         "DIR: look in that block instead (getrawtransaction's third\n"
                                         "parameter: no txindex needed; the result starts with\n"
                                         "\"in_active_chain\")")),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "HEX | --file FILE | - | --datadir DIR TXID...", tx_intro, tx_outro, opts, SIZE_MAX};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    int rc;
    if (src.datadir || src.blocksdir) {
        rc = bk_opt_mode_check(&spec, MODE_DIR, tx_modes);
        if (!rc) {
            bk_cli_lookup q = {BK_CLI_LOOKUP_TX, args.v, args.n, verbosity, BK_CORE_NEWEST, indent != 0, blockhash};
            rc = bk_cli_lookup_run(cmd, &src, &q);
        }
        bk_opt_args_free(&args);
        return rc;
    }
    const char *hex = NULL;
    size_t n_args = args.n;
    if (n_args == 1 && !strcmp(args.v[0], "-")) {
        if (!file) file = "-";
        else n_args = 2; /* --file and - */
    } else if (n_args == 1) {
        hex = args.v[0];
    }
    bk_opt_args_free(&args);
    if ((rc = bk_opt_mode_check(&spec, MODE_HEX, tx_modes)) != 0) return rc;
    if (n_args > 1) return bk_cli_fail(cmd, BK_EXIT_USAGE, "more than one transaction given (TXID... need --datadir)");
    if ((hex != NULL) + (file != NULL) != 1)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "give exactly one of HEX, --file FILE or - (see --help)");
    bk_network net = src.net;

    bk_cli_input in, cin;
    memset(&in, 0, sizeof in);
    memset(&cin, 0, sizeof cin);
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

BK_CLI_COMMAND(tx_command, "tx", "[HEX | --file FILE | -] [--undo-coins FILE] [--chain NAME] [--pretty] | --datadir DIR TXID...",
               "print a transaction as Bitcoin Core's decoderawtransaction / getrawtransaction", tx_main)
