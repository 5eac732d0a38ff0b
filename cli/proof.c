/* blockkit proof: bitcoin-cli's gettxoutproof and verifytxoutproof from a
 * node's datadir (library: blockkit/lookup.h, bk_lookup_txoutproof and
 * bk_lookup_verifytxoutproof; the partial merkle tree: blockkit/merkle.h). */
#include "cli.h"
#include "lookup.h"

#include <blockkit/lookup.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char proof_intro[] =
    "bitcoin-cli gettxoutproof '[\"TXID\",...]' [HASH]: the proof that the transactions\n"
    "are in a block (a serialized CMerkleBlock: the header, the transaction count,\n"
    "the partial merkle tree's hashes and flag bits in Core's order), printed as\n"
    "bare hex on one line. All TXIDs must be in one block. Without --block the\n"
    "block is found as Core finds it: the height of an unspent output of one of\n"
    "the transactions in the chainstate (as last flushed to disk), else the\n"
    "txindex (indexes/txindex). The genesis coinbase needs --block.\n";

static const char verify_intro[] =
    "bitcoin-cli verifytxoutproof PROOF: the txids the proof commits to, in block\n"
    "order, as a JSON array (one line per PROOF). PROOF is hex, or - to read it\n"
    "from standard input. A proof whose tree does not reduce to its header's merkle\n"
    "root, or whose transaction count is not the block's, gives [] as Core does\n"
    "(a note on stderr says why); a proof of a block not on the active chain is\n"
    "Core's \"Block not found in chain\"; bytes that are not a CMerkleBlock are an\n"
    "error naming the byte where they stop being one.\n";

/* verify: one PROOF (hex text, or - for standard input). */
static int verify_one(const char *cmd, bk_lookup *l, const char *arg, int pretty, bk_writer *w)
{
    bk_cli_input in;
    memset(&in, 0, sizeof in);
    const char *hex = arg;
    if (!strcmp(arg, "-")) {
        int rc = bk_cli_read_input_max(cmd, "-", BK_CLI_MAX_BLOCK, "a proof of the largest block (16,666 transactions) is about 1.07 MB as hex", &in);
        if (rc) return rc;
        /* text: surrounding white space dropped */
        size_t a = 0, b = in.len;
        while (a < b && isspace(in.data[a])) a++;
        while (b > a && isspace(in.data[b - 1])) b--;
        char *s = malloc(b - a + 1);
        if (!s) {
            bk_cli_input_free(&in);
            return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        }
        memcpy(s, in.data + a, b - a);
        s[b - a] = 0;
        bk_cli_input_free(&in);
        in.data = (uint8_t *)s;
        hex = s;
    }
    bk_writer_reset(w);
    bk_json j;
    bk_json_init(&j, w, pretty ? 2 : 0);
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_lookup_verifytxoutproof(l, hex, &j, &err);
    free(in.data);
    const char *note = bk_lookup_warning(l);
    if (note) fprintf(stderr, "blockkit: %s: note: %s\n", cmd, note);
    if (st != BK_OK) {
        int code = bk_lookup_rpc_code(l);
        return code ? bk_cli_rpc_fail(cmd, code, err.msg) : bk_cli_report(cmd, &err);
    }
    bk_writer_putc(w, '\n');
    if (bk_writer_status(w) != BK_OK) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    return bk_cli_output_write(cmd, stdout, NULL, w->data, w->len);
}

/* The arguments are required: without them a usage error; with them the
 * lookup opened (the source consumed either way). On failure the
 * arguments are freed and the exit status returned. */
static int open_with_args(const char *cmd, bk_cli_source *src, bk_opt_args *args, const char *missing,
                          bk_lookup **l)
{
    int rc;
    if (!args->n) {
        bk_cli_source_free(src);
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "%s", missing);
    } else {
        rc = bk_cli_lookup_open(cmd, src, l);
    }
    if (rc) bk_opt_args_free(args);
    return rc;
}

static int proof_verify(int argc, char **argv)
{
    const char *cmd = "proof verify";
    bk_cli_source src;
    bk_cli_source_init(&src);
    int pretty = 0;
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_PRETTY(&pretty),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "PROOF|-...", verify_intro, BK_CLI_LOOKUP_OUTRO, opts, SIZE_MAX};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    bk_lookup *l = NULL;
    int rc = open_with_args(cmd, &src, &args, "give a PROOF (hex, or - for standard input; see --help)", &l);
    if (rc) return rc;
    bk_writer w;
    bk_writer_init(&w, NULL);
    for (size_t k = 0; k < args.n && !bk_cli_pipe_closed; k++) {
        int e = verify_one(cmd, l, args.v[k], pretty, &w);
        if (e == BK_EXIT_IO || e == BK_EXIT_SOFTWARE) {
            rc = e;
            break;
        }
        if (e && (rc == 0 || e != BK_EXIT_NOINPUT)) rc = e;
    }
    if (rc == 0) rc = bk_cli_output_flush(cmd, stdout, NULL);
    bk_writer_free(&w);
    bk_lookup_close(l);
    bk_opt_args_free(&args);
    return rc;
}

static int proof_main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "verify")) return proof_verify(argc - 1, argv + 1);
    const char *cmd = "proof";
    bk_cli_source src;
    bk_cli_source_init(&src);
    const char *block = NULL;
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_ROW_STR("--block", 0, &block, "HASH",
                       "the block to look for the transactions in (gettxoutproof's\n"
                       "blockhash); needed where neither an unspent output nor the\n"
                       "txindex finds it"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "TXID...", proof_intro,
                        "blockkit proof verify --help: checking a proof (verifytxoutproof).\n" BK_CLI_LOOKUP_OUTRO,
                        opts, SIZE_MAX};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) {
        if (prc == 0 && argc >= 2 && !strcmp(argv[1], "--usage")) {
            char *v[] = {"verify", "--usage", NULL};
            prc = proof_verify(2, v);
        }
        return prc;
    }
    bk_lookup *l = NULL;
    int rc = open_with_args(cmd, &src, &args, "give a TXID (see --help)", &l);
    if (rc) return rc;
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_lookup_txoutproof(l, args.v, args.n, block, &w, &err);
    const char *note = bk_lookup_warning(l);
    if (note) fprintf(stderr, "blockkit: %s: note: %s\n", cmd, note);
    if (st != BK_OK) {
        int code = bk_lookup_rpc_code(l);
        rc = code ? bk_cli_rpc_fail(cmd, code, err.msg) : bk_cli_report(cmd, &err);
    } else {
        /* the RPC's string result, as bitcoin-cli prints it: bare hex */
        size_t n = w.len;
        char *hex = malloc(2 * n + 1);
        if (!hex) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        } else {
            bk_hex_encode(hex, w.data, n);
            hex[2 * n] = '\n';
            rc = bk_cli_output_write(cmd, stdout, NULL, hex, 2 * n + 1);
            if (!rc) rc = bk_cli_output_flush(cmd, stdout, NULL);
            free(hex);
        }
    }
    bk_writer_free(&w);
    bk_lookup_close(l);
    bk_opt_args_free(&args);
    return rc;
}

BK_CLI_COMMAND(proof_command, "proof", "--datadir DIR [--block HASH] TXID... | verify --datadir DIR PROOF|-...",
               "transaction proofs as Bitcoin Core's gettxoutproof / verifytxoutproof", proof_main)
