/* blockkit script: a script (hex) as Bitcoin Core's decodescript RPC prints
 * it: asm, desc, address, type, and the p2sh / segwit wrappers Core offers. */
#include "cli.h"
#include "opt.h"

#include <blockkit/json.h>
#include <blockkit/script.h>

#include <stdlib.h>
#include <string.h>

static const char *CMD = "script";

static const char script_intro[] =
    "Core's decodescript result for the script HEX (\"\" is the empty script; - reads\n"
    "the hex from standard input): \"asm\", \"desc\", \"address\", \"type\", and, where\n"
    "Core's can_wrap rules allow, \"p2sh\" and the \"segwit\" object (asm, desc, hex,\n"
    "address, type, p2sh-segwit).\n";

static const char script_outro[] = "Exit status (the table in blockkit(1)): 0 ok, 64 usage, 65 not hex, 74 I/O.\n";

/* Write and flush stdout: 0, exit 74 on an error (one message naming
 * standard output, cli.h), 0 for a closed pipe. */
static int emit(const void *p, size_t n)
{
    int rc = bk_cli_output_write(CMD, stdout, NULL, p, n);
    return rc ? rc : bk_cli_output_flush(CMD, stdout, NULL);
}


/* Core's ParseHexV: an even number of hex digits, nothing else. */
static int unhex(const char *s, size_t len, uint8_t *out)
{
    return len % 2 == 0 && bk_hex_decode(out, s, len / 2, NULL) == BK_OK;
}

static int script_main(int argc, char **argv)
{
    int indent = 0;
    bk_network net = BK_NET_MAIN;
    bk_opt opts[] = {
        BK_OPT_ROW_CALL("--chain", 0, &net, bk_opt_parse_network, "NAME",
                        "main (default), test|testnet3, testnet4, signet, regtest"),
        BK_OPT_PRETTY(&indent),
        BK_OPT_ROW_INT("--indent", 0, &indent, 0, 64, "N", "pretty form with indent N (the last of --pretty\n"
                                                           "and --indent wins)"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {CMD, "HEX|-", script_intro, script_outro, opts, 1};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    const char *hex = args.n ? args.v[0] : NULL; /* an argv string: outlives args */
    bk_opt_args_free(&args);
    if (!hex) return bk_cli_fail(CMD, BK_EXIT_USAGE, "missing HEX (see --help)");

    bk_cli_input in = {0};
    size_t len;
    int rc;
    if (!strcmp(hex, "-")) {
        if ((rc = bk_cli_read_input_max(CMD, "-", BK_CLI_MAX_SCRIPT, "a script is at most 16 MiB of hex here", &in)) != 0) return rc;
        size_t a = 0, b = in.len;
        while (a < b && (in.data[a] == ' ' || in.data[a] == '\t' || in.data[a] == '\n' || in.data[a] == '\r')) a++;
        while (b > a && (in.data[b - 1] == ' ' || in.data[b - 1] == '\t' || in.data[b - 1] == '\n' ||
                         in.data[b - 1] == '\r'))
            b--;
        hex = (const char *)in.data + a;
        len = b - a;
    } else {
        len = strlen(hex);
    }
    uint8_t *s = malloc(len / 2 + 1);
    if (!s) {
        bk_cli_input_free(&in);
        return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
    }
    if (!unhex(hex, len, s)) {
        free(s);
        bk_cli_input_free(&in);
        return bk_cli_fail(CMD, BK_EXIT_DATA, "the script must be hex: an even number of 0-9a-f digits");
    }
    bk_cli_input_free(&in);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, (unsigned)indent);
    bk_status st = bk_json_decodescript(&j, s, len / 2, net);
    bk_writer_putc(&w, '\n');
    if (st == BK_OK) st = bk_writer_status(&w);
    if (st != BK_OK) rc = bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "%s", bk_status_str(st));
    else rc = emit(w.data, w.len);
    /* The one known difference from Core (docs/script.md): a nonstandard
     * script with signature checks may be sane miniscript, for which Core
     * prints wsh(<miniscript>) as the segwit desc; blockkit prints addr(). */
    if (rc == BK_EXIT_OK && bk_script_solve(s, len / 2, NULL) == BK_SCRIPT_NONSTANDARD &&
        memmem(w.data, w.len, "\"segwit\"", 8) &&
        (memmem(w.data, w.len, "OP_CHECKSIG", 11) || memmem(w.data, w.len, "OP_CHECKMULTISIG", 16)))
        fprintf(stderr, "blockkit: script: note: if this script is sane miniscript, Core's segwit \"desc\" is "
                        "wsh(<miniscript>), not the addr() printed here\n");
    bk_writer_free(&w);
    free(s);
    return rc;
}

BK_CLI_COMMAND(script_command, "script", "HEX|- [--chain NAME] [--pretty | --indent N]",
               "print a script as Bitcoin Core's decodescript", script_main)
