/* blockkit block: a block (and optionally its undo data) as Bitcoin Core's
 * getblock prints it, byte for byte. */
#include "cli.h"
#include "lookup.h"

#include <time.h>

#include <blockkit/json.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char block_help[] =
    "usage: blockkit block FILE [options]\n"
    "\n"
    "Print FILE (raw block bytes, the same bytes as hex text, or - for standard\n"
    "input) as Bitcoin Core's getblock RPC result: compact JSON and one newline,\n"
    "or with --pretty exactly what bitcoin-cli prints.\n"
    "\n"
    "  --undo FILE          the block's undo data: a bare CBlockUndo or a rev*.dat\n"
    "                       record (magic, size, CBlockUndo, checksum; the checksum\n"
    "                       is verified against the block's parent hash). Adds\n"
    "                       \"fee\" (verbosity 2, 3) and \"prevout\" (verbosity 3)\n"
    "  --verbosity N        0 hex, 1 txids (default), 2 transactions, 3 with prevouts\n"
    "  --chain NAME         main (default), test/testnet3, testnet4, signet, regtest\n"
    "  --height H           default: the BIP34 height in the coinbase\n"
    "  --confirmations N    default 1 (the block is the tip); -1 for a stale block\n"
    "  --mediantime T       default: the block's own time\n"
    "  --chainwork HEX      cumulative work (up to 64 hex digits), default 0\n"
    "  --nextblockhash HASH the next block on the active chain, default none\n"
    "  --core-compat V      Core release shape: 28, 29, 30, 31 (default 31):\n"
    "                       28 no target; 29/30 target; 31 target and coinbase_tx\n"
    "  --tip-bits HEX       nBits of the chain tip (default: this block's)\n"
    "  --tip-target         29/30 only: print the tip's target (Core v29.0 bug #33440)\n"
    "  --signed-version     print tx versions as int32 (Core before v28)\n"
    "  --header             getblockheader instead: the header object (verbosity >= 1)\n"
    "                       or the 80-byte header's hex (verbosity 0)\n"
    "  --pretty             bitcoin-cli form (indent 2; verbosity 0: bare hex)\n"
    "  --indent N           pretty form with indent N\n"
    "  -o FILE              write to FILE instead of standard output\n"
    "  --summary            one line on standard error: hash, height, txs, fees\n"
    "                       (with --undo), JSON size, time to decode and render\n"
    "\n"
    "Exit status (the table in blockkit(1)): 0 ok, 64 usage, 65 bad block or undo\n"
    "data (the message gives the byte offset), 66 missing input, 74 I/O.\n"
    "\n"
    "blockkit block --datadir DIR HASH|HEIGHT: the block from a node's files with\n"
    "its real chain context and undo data (see blockkit block --datadir . --help).\n";



/* Up to 64 hex digits as a big-endian 256-bit number (left-padded). */
static int parse_u256(const char *s, uint8_t out[32])
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 64) return 0;
    memset(out, 0, 32);
    for (size_t i = 0; i < n; i++) {
        int v = bk_cli_hexval(s[n - 1 - i]);
        if (v < 0) return 0;
        out[31 - i / 2] |= (uint8_t)(i % 2 ? v << 4 : v);
    }
    return 1;
}

static void print_summary(const bk_block *b, const bk_block_undo *undo, const bk_chain_context *ctx,
                          size_t json_bytes, struct timespec t0, struct timespec t1)
{
    uint8_t h[32];
    char hex[65];
    bk_block_hash(b, h);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", h[31 - i]);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    fprintf(stderr, "blockkit: block %s height %lld: %u txs, ", hex, (long long)ctx->height, b->n_tx);
    if (undo) {
        int64_t fee = bk_block_fees(b, undo);
        fprintf(stderr, "fees %lld.%08lld BTC, ", (long long)(fee / 100000000), (long long)(fee % 100000000));
    } else {
        fprintf(stderr, "fees unknown (no undo data), ");
    }
    fprintf(stderr, "%zu bytes in, %zu bytes of JSON, read+decode+render %.2f ms\n", b->size, json_bytes, ms);
}

static int block_main(int argc, char **argv)
{
    const char *cmd = "block";
    /* With --datadir: getblock from a node's files (cli/lookup.c). */
    if (bk_cli_has_opt(argc, argv, "--datadir")) return bk_lookup_block_main(argc, argv);
    const char *file = NULL, *undo_file = NULL, *out_file = NULL;
    const char *chainwork = NULL, *next = NULL, *tip_bits = NULL;
    int64_t height = -1, confirmations = 1, mediantime = -1, verbosity = 1, core = BK_CORE_NEWEST, indent = 0;
    int have_height = 0, have_mediantime = 0, tip_target = 0, signed_version = 0, header_only = 0;
    int summary = 0;
    struct timespec t_start, t_end;
    clock_gettime(CLOCK_MONOTONIC, &t_start);
    bk_network net = BK_NET_MAIN;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return bk_cli_help(cmd, block_help);
        }
        if (!strcmp(a, "--summary")) {
            summary = 1;
            continue;
        }
        if (!strcmp(a, "--pretty")) {
            indent = 2;
            continue;
        }
        if (!strcmp(a, "--tip-target")) {
            tip_target = 1;
            continue;
        }
        if (!strcmp(a, "--header")) {
            header_only = 1;
            continue;
        }
        if (!strcmp(a, "--signed-version") || !strcmp(a, "--signed-tx-version")) {  /* the old name */
            signed_version = 1;
            continue;
        }
        if (a[0] == '-' && a[1] != 0) {
            const char *given = v; /* NULL: known options say so below */
            if (!v) v = "";
            i++;
            int ok = 1;
            if (!strcmp(a, "--undo")) undo_file = v;
            else if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_file = v;
            else if (!strcmp(a, "--verbosity")) ok = bk_cli_parse_i64(v, &verbosity) && verbosity >= 0 && verbosity <= 3;
            else if (!strcmp(a, "--chain")) ok = bk_network_parse(v, &net) == BK_OK;
            else if (!strcmp(a, "--height")) ok = (have_height = bk_cli_parse_i64(v, &height)) && height >= 0;
            else if (!strcmp(a, "--confirmations")) ok = bk_cli_parse_i64(v, &confirmations);
            else if (!strcmp(a, "--mediantime")) ok = have_mediantime = bk_cli_parse_i64(v, &mediantime);
            else if (!strcmp(a, "--chainwork")) chainwork = v;
            else if (!strcmp(a, "--nextblockhash")) next = v;
            else if (!strcmp(a, "--tip-bits")) tip_bits = v;
            else if (!strcmp(a, "--core-compat")) ok = bk_cli_parse_i64(v, &core) && core >= BK_CORE_MIN && core <= BK_CORE_NEWEST;
            else if (!strcmp(a, "--indent")) ok = bk_cli_parse_i64(v, &indent) && indent >= 0 && indent <= 64;
            else return bk_cli_unknown_option(cmd, a);
            if (!given) return bk_cli_missing_value(cmd, a);
            if (!ok) return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for %s: '%s'", a, v);
            continue;
        }
        if (file) return bk_cli_fail(cmd, BK_EXIT_USAGE, "more than one block file given");
        file = a;
    }
    if (!file) return bk_cli_fail(cmd, BK_EXIT_USAGE, "no block file (see --help)");

    bk_chain_context ctx;
    uint8_t chainwork_be[32], next_hash[32];
    uint32_t tip_bits_v = 0;
    if (chainwork && !parse_u256(chainwork, chainwork_be))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --chainwork '%s' (up to 64 hex digits)", chainwork);
    if (next && !bk_cli_parse_block_hash(next, next_hash))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --nextblockhash '%s' (64 hex digits)", next);
    if (tip_bits) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(tip_bits, &end, 16);
        if (errno || strlen(tip_bits) != 8 || *end || bk_cli_hexval(tip_bits[0]) < 0)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad --tip-bits '%s' (8 hex digits, e.g. 1d00ffff)", tip_bits);
        tip_bits_v = (uint32_t)v;
    }
    if (tip_target && (core < 29 || core > 30))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--tip-target applies to --core-compat 29 or 30 only");

    bk_error err;
    bk_error_clear(&err);
    uint8_t *ids = NULL;
    FILE *out = stdout;
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_cli_block_file bf;
    int rc = bk_cli_block_file_load(cmd, &bf, file, have_height, height);
    if (rc) goto done;
    const bk_block b = bf.b;
    height = bf.height;
    bk_chain_context_standalone(&ctx, &b, net, height);
    ctx.confirmations = confirmations;
    if (have_mediantime) ctx.mediantime = mediantime;
    if (chainwork) memcpy(ctx.chainwork, chainwork_be, 32);
    if (next) {
        ctx.has_next = 1;
        memcpy(ctx.next_hash, next_hash, 32);
    }
    if (tip_bits) ctx.tip_bits = tip_bits_v;

    bk_block_undo undo, *undop = NULL;
    if (undo_file) {
        if ((rc = bk_cli_block_file_undo(cmd, &bf, undo_file)) != 0) goto done;
        const uint8_t *ud = NULL;
        size_t ul = 0;
        if (bk_cli_locate_undo(bf.undo_in.data, bf.undo_in.len, &b, net, &ud, &ul, &err) != BK_OK ||
            bk_block_undo_parse(ud, ul, &undo, &err) != BK_OK || bk_block_undo_check(&undo, &b, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            goto done;
        }
        undop = &undo;
    }

    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    o.verbosity = (int)verbosity;
    o.core_version = (int)core;
    o.tip_target = tip_target;
    o.signed_tx_version = signed_version;
    if (verbosity >= 1) {
        /* Batch hashing (two or more messages in flight) beats per-tx. */
        ids = malloc((size_t)b.n_tx * 64);
        if (!ids) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            goto done;
        }
        bk_block_txids(&b, ids);
        o.txids = ids;
        if (verbosity >= 2) {
            bk_block_wtxids(&b, ids + 32 * (size_t)b.n_tx);
            o.wtxids = ids + 32 * (size_t)b.n_tx;
        }
    }

    /* The whole document is rendered in memory first so that an error
     * part way never leaves a partial document on the output. */
    if (header_only) {
        /* getblockheader: verbose=false gives the header's hex (a JSON
         * string; bare when pretty, as bitcoin-cli prints strings). */
        bk_json j;
        bk_json_init(&j, &w, (unsigned)indent);
        if (verbosity == 0 && indent) {
            uint8_t *sp = bk_writer_space(&w, 2 * BK_HEADER_SIZE);
            if (sp) {
                bk_hex_encode((char *)sp, b.data, BK_HEADER_SIZE);
                bk_writer_commit(&w, 2 * BK_HEADER_SIZE);
            }
        } else if (verbosity == 0) {
            bk_json_hex(&j, b.data, BK_HEADER_SIZE);
        } else if (bk_json_block_header(&j, &b, &ctx, &o, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            goto done;
        }
    } else if (verbosity == 0 && indent) {
        /* bitcoin-cli prints a string result bare (no quotes, no escaping). */
        uint8_t *sp = bk_writer_space(&w, 2 * b.size);
        if (sp) {
            bk_hex_encode((char *)sp, b.data, b.size);
            bk_writer_commit(&w, 2 * b.size);
        }
    } else {
        bk_json j;
        bk_json_init(&j, &w, (unsigned)indent);
        if (bk_json_block(&j, &b, undop, &ctx, &o, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            goto done;
        }
    }
    /* --summary sums the fees: amounts out of MoneyRange are bad data, as
     * in the JSON at verbosity 2 and 3 (finding 12). */
    if (summary && undop) {
        int64_t fee;
        if (bk_block_fees_checked(&b, undop, &fee, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            goto done;
        }
    }
    bk_writer_putc(&w, '\n');
    if (bk_writer_status(&w) != BK_OK) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto done;
    }
    clock_gettime(CLOCK_MONOTONIC, &t_end);
    /* -o FILE is created only once the document exists: an error leaves no
     * empty or partial file behind. */
    if (out_file) {
        out = fopen(out_file, "wb");
        if (!out) {
            out = stdout;
            rc = bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", out_file, strerror(errno));
            goto done;
        }
    }
    rc = bk_cli_output_write(cmd, out, out_file, w.data, w.len);
    if (!rc) rc = bk_cli_output_flush(cmd, out, out_file);
    if (summary && rc == 0) print_summary(&b, undop, &ctx, w.len, t_start, t_end);

done:
    if (out != stdout) {
        int crc = bk_cli_output_close(cmd, out, out_file, 0);
        if (rc == 0) rc = crc;
        /* No partial document under the final name (a regular file only:
         * never /dev/full or a FIFO given as -o). */
        struct stat ost;
        if (rc != 0 && lstat(out_file, &ost) == 0 && S_ISREG(ost.st_mode)) remove(out_file);
    } else if (rc == 0) {
        rc = bk_cli_output_flush(cmd, stdout, NULL);
    }
    free(ids);
    bk_writer_free(&w);
    bk_cli_block_file_free(&bf);
    return rc;
}

BK_CLI_COMMAND(block_command, "block", "FILE [--undo FILE] [--verbosity 0-3] [--pretty] [context options] | --datadir DIR HASH|HEIGHT",
               "print a block as Bitcoin Core's getblock (verbosity 0-3), byte for byte", block_main)
