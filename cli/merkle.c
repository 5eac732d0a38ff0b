/* blockkit merkle: a block's merkle commitments as one JSON object. */
#include "cli.h"
#include "opt.h"

#include <blockkit/hex.h>
#include <blockkit/merkle.h>
#include <stdlib.h>
#include <string.h>

static const char merkle_intro[] =
    "Compute a block's merkle root (with Core's CVE-2012-2459 mutation check),\n"
    "witness merkle root and BIP141 witness commitment, and compare the root\n"
    "with the header. Prints one JSON object:\n"
    "  {\"merkleroot\":H,\"witness_merkleroot\":H,\"mutated\":false,\"header_match\":true,\n"
    "   \"witness_commitment\":\"ok\"|\"absent\"|\"mismatch\"|\"bad-nonce\"}\n"
    "Hashes H are printed reversed, as Bitcoin Core prints them (GetHex).\n"
    "FILE is a raw block, hex text (auto-detected), or - for standard input.\n";

static const char merkle_outro[] =
    "Exit status (the table in blockkit(1)): 0 ok, 64 usage (including N out of\n"
    "range), 65 the header's merkle root does not match (the object is still\n"
    "printed) or the block is malformed (with the byte offset), 66 missing input,\n"
    "74 I/O.\n";

static char *put_hash(char *p, const uint8_t h[32])
{
    *p++ = '"';
    bk_hex_encode_rev(p, h, 32);
    p += 64;
    *p++ = '"';
    return p;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static int merkle_main(int argc, char **argv)
{
    int tx_index = 0, force_hex = 0;
    bk_opt opts[] = {
        BK_OPT_ROW_INT("--tx", 0, &tx_index, 0, INT32_MAX, "N",
                       "also print \"tx\":N, \"txid\" and \"branch\" (the merkle\n"
                       "proof of transaction N, lowest level first, each hash\n"
                       "reversed)"),
        BK_OPT_ROW_FLAG("--hex", 0, &force_hex, "the input must be hex text"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {"merkle", "FILE|-", merkle_intro, merkle_outro, opts, 1};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    const char *path = args.n ? args.v[0] : NULL;
    int want_tx = bk_opt_given(&spec, "--tx");
    bk_opt_args_free(&args); /* path points into argv, not into args */
    if (!path) return bk_cli_fail("merkle", BK_EXIT_USAGE, "missing FILE (see --help)");

    bk_cli_input in;
    int rc = bk_cli_read_input_max("merkle", path, BK_CLI_MAX_BLOCK, BK_CLI_WHAT_BLOCK, &in);
    if (rc) return rc;
    if (!bk_cli_maybe_unhex(&in) && force_hex) {
        bk_cli_input_free(&in);
        return bk_cli_fail("merkle", BK_EXIT_DATA, "--hex: the input is not hex text");
    }

    bk_block_decoder dec;
    bk_block block;
    bk_error err;
    bk_block_decoder_init(&dec, NULL);
    uint8_t *scratch = NULL, *branch = NULL;
    char *json = NULL;
    size_t depth = 0;
    bk_block_merkle_result res;
    uint8_t txid[32];

    if (bk_block_decode(&dec, in.data, in.len, &block, &err) != BK_OK) {
        rc = bk_cli_report("merkle", &err);
        goto done;
    }
    if (want_tx && (size_t)tx_index >= block.n_tx) {
        rc = bk_cli_fail("merkle", BK_EXIT_USAGE, "--tx %d: the block has %u transactions", tx_index,
                         (unsigned)block.n_tx);
        goto done;
    }
    size_t scratch_len = bk_block_merkle_scratch_size(block.n_tx);
    depth = bk_merkle_depth(block.n_tx);
    scratch = malloc(scratch_len);
    branch = malloc(depth ? 32 * depth : 1);
    json = malloc(512 + 70 * depth);
    if (!scratch || !branch || !json) {
        rc = bk_cli_fail("merkle", BK_EXIT_SOFTWARE, "out of memory");
        goto done;
    }
    if (bk_block_merkle(&block, scratch, scratch_len, &res, &err) != BK_OK) {
        rc = bk_cli_report("merkle", &err);
        goto done;
    }
    if (want_tx) {
        if (bk_block_merkle_branch(&block, (size_t)tx_index, scratch, scratch_len, branch, 32 * depth, &depth, &err) !=
            BK_OK) {
            rc = bk_cli_report("merkle", &err);
            goto done;
        }
        bk_tx_txid(&block.txs[tx_index], txid);
    }

    char *p = json;
    p = put_str(p, "{\"merkleroot\":");
    p = put_hash(p, res.merkle_root);
    p = put_str(p, ",\"witness_merkleroot\":");
    p = put_hash(p, res.witness_root);
    p = put_str(p, res.mutated ? ",\"mutated\":true" : ",\"mutated\":false");
    p = put_str(p, res.header_match ? ",\"header_match\":true" : ",\"header_match\":false");
    p = put_str(p, ",\"witness_commitment\":\"");
    p = put_str(p, bk_witness_commitment_str(res.witness_commitment));
    p = put_str(p, "\"");
    if (want_tx) {
        p += sprintf(p, ",\"tx\":%d,\"txid\":", tx_index);
        p = put_hash(p, txid);
        p = put_str(p, ",\"branch\":[");
        for (size_t k = 0; k < depth; k++) {
            if (k) *p++ = ',';
            p = put_hash(p, branch + 32 * k);
        }
        *p++ = ']';
    }
    p = put_str(p, "}\n");
    rc = bk_cli_output_write("merkle", stdout, NULL, json, (size_t)(p - json));
    if (!rc) rc = bk_cli_output_flush("merkle", stdout, NULL);
    if (!rc && !res.header_match) {
        bk_cli_fail("merkle", BK_EXIT_DATA, "merkle root does not match the header");
        rc = BK_EXIT_DATA;
    }

done:
    free(json);
    free(branch);
    free(scratch);
    bk_block_decoder_free(&dec);
    bk_cli_input_free(&in);
    return rc;
}

BK_CLI_COMMAND(cli_merkle, "merkle", "FILE|- [--tx N] [--hex]",
               "merkle root, witness root and commitment of a block (JSON)", merkle_main)
