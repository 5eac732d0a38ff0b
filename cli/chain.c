/* blockkit chain: the best chain of a Bitcoin Core blocks directory as
 * NDJSON, one line per block (then stale blocks, then orphans). */
#include "cli.h"
#include "lookup.h"
#include "source.h"

#include <blockkit/blockfile.h>
#include <blockkit/chain.h>
#include <blockkit/hex.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char chain_intro[] =
    "Print the best chain of a Bitcoin Core node: from its block index\n"
    "(blocks/index, with the tip from the chainstate) when there is one, else\n"
    "by scanning blkNNNNN.dat/revNNNNN.dat (with xor.dat) for the chain with the\n"
    "most work; one JSON object per line in height order:\n"
    "  {\"height\":..,\"hash\":..,\"prev\":..,\"time\":..,\"mediantime\":..,\"chainwork\":..,\n"
    "   \"nTx\":..,\"file\":N,\"offset\":..,\"has_undo\":true|false}\n"
    "then blocks on other branches with \"stale\":true, then blocks whose parent\n"
    "is missing with \"orphan\":true (no height/mediantime/chainwork).\n"
    "From Core's block index, a block without data (pruned) has \"data\":false\n"
    "(file and offset 0) and has_undo is Core's record of the undo data.\n"
    "Proof of work is not checked; work counts nBits only.\n"
    "\n"
    "blockkit chain --tips --datadir DIR: bitcoin-cli getchaintips from the node's\n"
    "block index, without the node: the active tip and every block off the active\n"
    "chain that no other such block builds on, highest first, with branchlen and\n"
    "status (active, valid-fork, valid-headers, headers-only, invalid) as Core\n"
    "computes them.\n";

static const char chain_outro[] =
    "SIGINT, SIGTERM and SIGHUP stop the build (or the listing after the current\n"
    "line) with status 128 + the signal number.\n"
    "Exit codes: 0 ok, 64 usage, 65 bad data (another network's files: the message\n"
    "names its --chain), 66 no blk files (a datadir given as --blocksdir), no\n"
    "block index (--source index, --tips) or no such directory, 74 I/O.\n";

/* The line's pieces, appended at p (no printf: 900k lines on mainnet). */
#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *put_u64(char *p, uint64_t v)
{
    char t[20];
    int n = 0;
    do t[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n) *p++ = t[--n];
    return p;
}

static char *put_i64(char *p, int64_t v)
{
    if (v >= 0) return put_u64(p, (uint64_t)v);
    *p++ = '-';
    return put_u64(p, 0 - (uint64_t)v);
}

/* A 32-byte hash as a quoted hex string: display (reversed) order, or
 * as stored (the big-endian chain work). */
static char *put_hash(char *p, const uint8_t h[32], int reversed)
{
    *p++ = '"';
    if (reversed) bk_hex_encode_rev(p, h, 32);
    else bk_hex_encode(p, h, 32);
    p += 64;
    *p++ = '"';
    return p;
}

static int print_entry(bk_cli_lines *out, const bk_chain_entry *e, const char *tag)
{
    char line[640], *p = line;
    if (e->height >= 0) {
        p = PUT_LIT(p, "{\"height\":");
        p = put_i64(p, e->height);
        p = PUT_LIT(p, ",\"hash\":");
    } else {
        p = PUT_LIT(p, "{\"hash\":");
    }
    p = put_hash(p, e->hash, 1);
    p = PUT_LIT(p, ",\"prev\":");
    p = put_hash(p, e->prev_hash, 1);
    p = PUT_LIT(p, ",\"time\":");
    p = put_u64(p, e->time);
    if (e->height >= 0) {
        p = PUT_LIT(p, ",\"mediantime\":");
        p = put_i64(p, e->mediantime);
        p = PUT_LIT(p, ",\"chainwork\":");
        p = put_hash(p, e->chainwork, 0);
    }
    p = PUT_LIT(p, ",\"nTx\":");
    p = put_u64(p, e->n_tx);
    p = PUT_LIT(p, ",\"file\":");
    p = put_u64(p, e->file);
    p = PUT_LIT(p, ",\"offset\":");
    p = put_u64(p, e->offset);
    p = e->has_undo ? PUT_LIT(p, ",\"has_undo\":true") : PUT_LIT(p, ",\"has_undo\":false");
    if (e->no_data) p = PUT_LIT(p, ",\"data\":false");
    size_t tl = strlen(tag); /* a literal of the caller's, a few bytes */
    memcpy(p, tag, tl);
    p += tl;
    p = PUT_LIT(p, "}\n");
    return bk_cli_lines_put(out, line, (size_t)(p - line)) ? BK_EXIT_IO : 0;
}

/* The two modes: the chain listing, and --tips (a row BK_OPT_IN one). */
enum { MODE_LISTING, MODE_TIPS };
#define IN_LISTING (1u << MODE_LISTING)
#define IN_TIPS (1u << MODE_TIPS)
static const bk_opt_mode chain_modes[] = {{"the chain listing, not --tips", NULL},
                                          {"--tips, not the chain listing", NULL}};

static int chain_main(int argc, char **argv)
{
    const char *cmd = "chain";
    int verbose = 0, tips = 0, pretty = 0;
    bk_cli_source src;
    bk_cli_source_init(&src);
    /* One table for both modes: the chain listing, and --tips. */
    bk_opt opts[] = {
        BK_OPT_SOURCE_DIRS(&src),
        BK_OPT_IN(IN_LISTING, BK_OPT_ROW_BLOCKINDEX(&src)),
        BK_OPT_IN(IN_LISTING, BK_OPT_ROW_SOURCE(&src)),
        BK_OPT_IN(IN_LISTING,
                  BK_OPT_ROW_FLAG("--verbose", 0, &verbose, "report how each file ended and counts on stderr")),
        BK_OPT_ROW_FLAG("--tips", 0, &tips, "getchaintips from the block index instead (needs --datadir)"),
        BK_OPT_IN(IN_TIPS, BK_OPT_ROW_FLAGV("--pretty", &pretty, 2, "--tips: bitcoin-cli's indented form")),
        BK_OPT_END,
    };
    bk_opt_spec spec = {cmd, NULL, chain_intro, chain_outro, opts, 0};
    bk_opt_args args;
    int rc = bk_opt_parse(&spec, argc, argv, &args);
    if (rc != BK_OPT_CONTINUE) return rc;
    bk_opt_args_free(&args);
    if ((rc = bk_opt_mode_check(&spec, tips ? MODE_TIPS : MODE_LISTING, chain_modes)) != 0) return rc;
    if (tips) {
        bk_cli_lookup q = {BK_CLI_LOOKUP_TIPS, NULL, 0, 0, BK_CORE_NEWEST, pretty, NULL};
        return bk_cli_lookup_run(cmd, &src, &q);
    }
    if ((rc = bk_cli_source_resolve(cmd, &src, BK_CLI_NEED_BLOCKS)) != 0) {
        bk_cli_source_free(&src);
        return rc;
    }
    bk_chain c;
    /* SIGINT, SIGTERM, SIGHUP stop the build (bk_chain_opts.cancel) or the
     * listing after the current line: exit 128 + the signal. */
    bk_cli_stop_saved saved;
    bk_cli_stop_signals_catch(&saved);
    src.orphans_ok = 1;
    rc = bk_cli_source_build(cmd, &src, src.net, &bk_cli_stop, 0, &c);
    bk_cli_source_free(&src);
    if (rc) {
        bk_cli_stop_signals_restore(&saved);
        return rc;
    }
    /* Whole lines only, whatever happens to the output. */
    bk_cli_lines out;
    bk_cli_lines_init(&out, stdout);
    for (size_t h = 0; h < c.n_active && rc == BK_EXIT_OK && !bk_cli_stop; h++)
        rc = print_entry(&out, &c.entries[c.active[h]], "");
    for (size_t k = 0; k < c.n_entries && rc == BK_EXIT_OK && !bk_cli_stop; k++)
        if (c.entries[k].height >= 0 && !c.entries[k].active) rc = print_entry(&out, &c.entries[k], ",\"stale\":true");
    for (size_t k = 0; k < c.n_entries && rc == BK_EXIT_OK && !bk_cli_stop; k++)
        if (c.entries[k].height < 0) rc = print_entry(&out, &c.entries[k], ",\"orphan\":true");
    if (rc == BK_EXIT_OK && bk_cli_lines_flush(&out) != 0) rc = BK_EXIT_IO;
    if (rc != BK_EXIT_OK)
        rc = out.err == ENOMEM ? bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory")
                               : bk_cli_output_error(cmd, stdout, NULL, out.err);
    else rc = bk_cli_output_flush(cmd, stdout, NULL);
    bk_cli_lines_free(&out);
    if (rc == BK_EXIT_OK && bk_cli_stop && !bk_cli_pipe_closed)
        rc = bk_cli_fail(cmd, 128 + (int)bk_cli_stop, "interrupted; the lines written are complete");
    bk_cli_stop_signals_restore(&saved);
    if (verbose) {
        for (size_t i = 0; i < c.n_files; i++) {
            const bk_chain_file *f = &c.files[i];
            fprintf(stderr, "%s%05u.dat: %llu records, %s at offset %llu\n", f->kind == BK_FILE_BLK ? "blk" : "rev",
                    f->number, (unsigned long long)f->records, bk_file_end_str(f->end),
                    (unsigned long long)f->end_offset);
        }
        if (c.from_index)
            fprintf(stderr, "block index: %llu blocks without data, prune height %d, last file %d, %s, "
                            "%llu appended past its last flush\n",
                    (unsigned long long)c.n_no_data, (int)c.prune_height, (int)c.last_file,
                    c.tip_from_chainstate ? "tip from the chainstate" : "tip by most work", (unsigned long long)c.n_appended);
        fprintf(stderr,
                "blocks: %zu (best chain %zu, stale %llu, orphans %llu, duplicates %llu, bad records %llu); "
                "undo records: %llu (paired %llu, unpaired %llu)\n",
                c.n_entries, c.n_active, (unsigned long long)c.n_stale, (unsigned long long)c.n_orphans,
                (unsigned long long)c.n_duplicates, (unsigned long long)c.n_bad_records,
                (unsigned long long)c.n_undo_records, (unsigned long long)c.n_undo_paired,
                (unsigned long long)c.n_undo_unpaired);
    }
    bk_chain_free(&c);
    return rc;
}

BK_CLI_COMMAND(chain_command, "chain", "--blocksdir DIR | --datadir DIR [--chain NAME] [--source index|files] | --tips --datadir DIR",
               "best chain of a blocks directory as NDJSON (heights, chainwork, undo)", chain_main)
