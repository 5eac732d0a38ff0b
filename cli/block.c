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

static const char block_intro[] =
    "Print a block as Bitcoin Core's getblock RPC result: compact JSON and one\n"
    "newline, or with --pretty exactly what bitcoin-cli prints.\n"
    "\n"
    "blockkit block FILE: FILE holds raw block bytes, the same bytes as hex text,\n"
    "or is - for standard input. The chain context (height, confirmations, ...)\n"
    "comes from the options below (--chain: the network, default main).\n"
    "\n"
    "blockkit block --datadir DIR HASH|HEIGHT...: getblock from a node's files,\n"
    "without the node: the block index (DIR/<net>/blocks/index) gives the block's\n"
    "position, status and undo position, the chainstate the tip; the block comes\n"
    "from its blk file, fee and prevout (verbosity 2, 3) from its rev record.\n"
    "HEIGHT is a height on the active chain (getblockhash). One result per\n"
    "argument, one line each.\n"
    "\n"
    "Options marked FILE are for a block FILE only; --blocksdir and --tmpdir are\n"
    "for --datadir lookups only.\n";

static const char block_outro[] =
    "Exit status of a block FILE (the table in blockkit(1)): 0 ok, 64 usage, 65\n"
    "bad block or undo data (the message gives the byte offset), 66 missing\n"
    "input, 74 I/O.\n"
    "\n" BK_CLI_LOOKUP_OUTRO;

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
        int v = bk_hex_digit((unsigned char)s[n - 1 - i]);
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
    bk_hash_to_hex(hex, h);
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

/* --chainwork, --nextblockhash, --tip-bits: BK_OPT_CALL parsers. */
static int parse_chainwork(void *dest, const char *v)
{
    return parse_u256(v, dest);
}

static int parse_next_hash(void *dest, const char *v)
{
    return bk_cli_parse_block_hash(v, dest);
}

static int parse_tip_bits(void *dest, const char *v)
{
    if (strlen(v) != 8) return 0;
    uint32_t x = 0;
    for (int i = 0; i < 8; i++) {
        int d = bk_hex_digit((unsigned char)v[i]);
        if (d < 0) return 0;
        x = x << 4 | (uint32_t)d;
    }
    *(uint32_t *)dest = x;
    return 1;
}

/* The document, in w: getblockheader's (header_only) or getblock's, at
 * o's verbosity; 0, or the exit code after the message. */
static int render_document(const char *cmd, bk_writer *w, const bk_block *b, const bk_block_undo *undop,
                           const bk_chain_context *ctx, const bk_block_json_opts *o, int header_only, int indent)
{
    int verbosity = o->verbosity;
    bk_error err;
    bk_error_clear(&err);
    if (header_only) {
        /* getblockheader: verbose=false gives the header's hex (a JSON
         * string; bare when pretty, as bitcoin-cli prints strings). */
        bk_json j;
        bk_json_init(&j, w, (unsigned)indent);
        if (verbosity == 0 && indent) {
            uint8_t *sp = bk_writer_space(w, 2 * BK_HEADER_SIZE);
            if (sp) {
                bk_hex_encode((char *)sp, b->data, BK_HEADER_SIZE);
                bk_writer_commit(w, 2 * BK_HEADER_SIZE);
            }
        } else if (verbosity == 0) {
            bk_json_hex(&j, b->data, BK_HEADER_SIZE);
        } else if (bk_json_block_header(&j, b, ctx, o, &err) != BK_OK) {
            return bk_cli_report(cmd, &err);
        }
    } else if (verbosity == 0 && indent) {
        /* bitcoin-cli prints a string result bare (no quotes, no escaping). */
        uint8_t *sp = bk_writer_space(w, 2 * b->size);
        if (sp) {
            bk_hex_encode((char *)sp, b->data, b->size);
            bk_writer_commit(w, 2 * b->size);
        }
    } else {
        bk_json j;
        bk_json_init(&j, w, (unsigned)indent);
        if (bk_json_block(&j, b, undop, ctx, o, &err) != BK_OK) {
            return bk_cli_report(cmd, &err);
        }
    }
    return 0;
}

/* --undo FILE: the block's undo data (a bare CBlockUndo or a rev*.dat
 * record, checked against the block); 0, or the exit code after the
 * message. */
static int load_undo(const char *cmd, bk_cli_block_file *bf, const char *undo_file, bk_network net,
                     bk_block_undo *undo)
{
    int rc = bk_cli_block_file_undo(cmd, bf, undo_file);
    if (rc) return rc;
    const uint8_t *ud = NULL;
    size_t ul = 0;
    bk_error err;
    bk_error_clear(&err);
    if (bk_cli_locate_undo(bf->undo_in.data, bf->undo_in.len, &bf->b, net, &ud, &ul, &err) != BK_OK ||
        bk_block_undo_parse(ud, ul, undo, &err) != BK_OK || bk_block_undo_check(undo, &bf->b, &err) != BK_OK)
        return bk_cli_report(cmd, &err);
    return 0;
}

/* verbosity >= 1: the txids (and at 2 and up the wtxids) in one buffer,
 * batch-hashed (two or more messages in flight beat per-tx); NULL when
 * out of memory. */
static uint8_t *block_ids(const bk_block *b, bk_block_json_opts *o)
{
    uint8_t *ids = malloc((size_t)b->n_tx * 64);
    if (!ids) return NULL;
    bk_block_txids(b, ids);
    o->txids = ids;
    if (o->verbosity >= 2) {
        bk_block_wtxids(b, ids + 32 * (size_t)b->n_tx);
        o->wtxids = ids + 32 * (size_t)b->n_tx;
    }
    return ids;
}

/* The two modes: a block FILE, and --datadir lookups (a row BK_OPT_IN one). */
enum { MODE_FILE, MODE_DIR };
#define IN_FILE (1u << MODE_FILE)
#define IN_DIR (1u << MODE_DIR)
static const bk_opt_mode block_modes[] = {{"a block FILE, not --datadir lookups", NULL},
                                          {"--datadir lookups, not a block FILE", NULL}};

static int block_main(int argc, char **argv)
{
    const char *cmd = "block";
    const char *undo_file = NULL, *out_file = NULL;
    int64_t height = -1, confirmations = 1, mediantime = -1;
    int verbosity = 1, core = BK_CORE_NEWEST, indent = 0;
    int tip_target = 0, signed_version = 0, header_only = 0, summary = 0;
    uint8_t chainwork_be[32], next_hash[32];
    uint32_t tip_bits_v = 0;
    struct timespec t_start, t_end;
    clock_gettime(CLOCK_MONOTONIC, &t_start);
    bk_cli_source src;
    bk_cli_source_init(&src);
    /* One table for both modes: a block FILE, and --datadir lookups. */
    bk_opt opts[] = {
        BK_OPT_ROW_DATADIR(&src),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_BLOCKSDIR(&src)),
        BK_OPT_ROW_CHAIN(&src),
        BK_OPT_IN(IN_DIR, BK_OPT_ROW_TMPDIR(&src)),
        BK_OPT_ROW_CALL("--verbosity", 0, &verbosity, bk_cli_parse_verbosity3, "0-3|true|false",
                        "0 hex, 1 txids (default), 2 transactions and fees, 3 with\n"
                        "prevouts (true = 1, false = 0, as getblock takes them)"),
        BK_OPT_ROW_CALL("--verbose", 0, &verbosity, bk_cli_parse_verbosity3, "0-3|true|false",
                        "getblock's other name for --verbosity"),
        BK_OPT_ROW_INT("--core-compat", 0, &core, BK_CORE_MIN, BK_CORE_NEWEST, "V",
                       "Core release shape: 28, 29, 30, 31 (default 31): 28 no\n"
                       "target; 29/30 target; 31 target and coinbase_tx"),
        BK_OPT_PRETTY(&indent),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_STR("--undo", 0, &undo_file, "FILE",
                                 "FILE: the block's undo data: a bare CBlockUndo or a rev*.dat\n"
                                 "record (magic, size, CBlockUndo, checksum; the checksum is\n"
                                 "verified against the block's parent hash). Adds \"fee\"\n"
                                 "(verbosity 2, 3) and \"prevout\" (verbosity 3)")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_I64("--height", 0, &height, 0, INT32_MAX, "H",
                                 "FILE: default the BIP34 height in the coinbase")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_I64("--confirmations", 0, &confirmations, INT64_MIN, INT64_MAX, "N",
                                 "FILE: default 1 (the block is the tip); -1 for a stale block")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_I64("--mediantime", 0, &mediantime, INT64_MIN, INT64_MAX, "T",
                                 "FILE: default the block's own time")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_CALL("--chainwork", 0, chainwork_be, parse_chainwork, "HEX",
                                  "FILE: cumulative work (up to 64 hex digits), default 0")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_CALL("--nextblockhash", 0, next_hash, parse_next_hash, "HASH",
                                  "FILE: the next block on the active chain, default none")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_CALL("--tip-bits", 0, &tip_bits_v, parse_tip_bits, "HEX",
                                  "FILE: nBits of the chain tip, 8 hex digits (default: this\n"
                                  "block's)")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_FLAG("--tip-target", 0, &tip_target,
                                  "FILE, --core-compat 29/30: print the tip's target (Core\n"
                                  "v29.0 bug #33440)")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_FLAG("--signed-version", 0, &signed_version,
                                  "FILE: tx versions as int32 (Core before v28)")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_FLAG("--signed-tx-version", 0, &signed_version, "FILE: the old name of --signed-version")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_FLAG("--header", 0, &header_only,
                                  "FILE: getblockheader instead: the header object (verbosity\n"
                                  ">= 1) or the 80-byte header's hex (verbosity 0); for a\n"
                                  "datadir: blockkit header")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_INT("--indent", 0, &indent, 0, 64, "N", "FILE: pretty form with indent N")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_OUTPUT(&out_file, "FILE: write to FILE instead of standard output (made only\n"
                                           "once the whole document is there)")),
        BK_OPT_IN(IN_FILE,
                  BK_OPT_ROW_FLAG("--summary", 0, &summary,
                                  "FILE: one line on standard error: hash, height, txs, fees\n"
                                  "(with --undo), JSON size, time to decode and render")),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, "FILE | --datadir DIR HASH|HEIGHT...", block_intro, block_outro, opts, SIZE_MAX};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    /* The mode is what was given: a datadir (or blocks directory) means
     * lookups, else the argument is a block FILE. */
    int rc;
    if (src.datadir || src.blocksdir) {
        rc = bk_opt_mode_check(&spec, MODE_DIR, block_modes);
        if (!rc) {
            bk_cli_lookup q = {BK_CLI_LOOKUP_BLOCK, args.v, args.n, verbosity, core, indent != 0, NULL};
            rc = bk_cli_lookup_run(cmd, &src, &q);
        }
        bk_opt_args_free(&args);
        return rc;
    }
    const char *file = args.n ? args.v[0] : NULL;
    size_t n_files = args.n;
    bk_opt_args_free(&args);
    if ((rc = bk_opt_mode_check(&spec, MODE_FILE, block_modes)) != 0) return rc;
    if (!n_files) return bk_cli_fail(cmd, BK_EXIT_USAGE, "no block file (see --help)");
    if (n_files > 1) return bk_cli_fail(cmd, BK_EXIT_USAGE, "more than one block file given (HASH|HEIGHT... need --datadir)");
    if (tip_target && (core < 29 || core > 30))
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--tip-target applies to --core-compat 29 or 30 only");
    bk_network net = src.net;
    int have_height = bk_opt_given(&spec, "--height"), have_mediantime = bk_opt_given(&spec, "--mediantime");
    int chainwork = bk_opt_given(&spec, "--chainwork"), next = bk_opt_given(&spec, "--nextblockhash");
    int tip_bits = bk_opt_given(&spec, "--tip-bits");
    bk_chain_context ctx;

    bk_error err;
    bk_error_clear(&err);
    uint8_t *ids = NULL;
    FILE *out = stdout;
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_cli_block_file bf;
    rc = bk_cli_block_file_load(cmd, &bf, file, have_height, height);
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
        if ((rc = load_undo(cmd, &bf, undo_file, net, &undo)) != 0) goto done;
        undop = &undo;
    }

    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    o.verbosity = (int)verbosity;
    o.core_version = (int)core;
    o.tip_target = tip_target;
    o.signed_tx_version = signed_version;
    if (verbosity >= 1 && !(ids = block_ids(&b, &o))) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto done;
    }

    /* The whole document is rendered in memory first so that an error
     * part way never leaves a partial document on the output. */
    if ((rc = render_document(cmd, &w, &b, undop, &ctx, &o, header_only, indent)) != 0) goto done;
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

BK_CLI_COMMAND(block_command, "block", "FILE [--undo FILE] [--verbosity 0-3] [--pretty] [context options] | --datadir DIR HASH|HEIGHT...",
               "print a block as Bitcoin Core's getblock (verbosity 0-3), byte for byte", block_main)
