/* blockkit chain: the best chain of a Bitcoin Core blocks directory as
 * NDJSON, one line per block (then stale blocks, then orphans). */
#include "cli.h"
#include "lookup.h"
#include "source.h"

#include <blockkit/blockfile.h>
#include <blockkit/chain.h>

#include <stdlib.h>
#include <string.h>

static const char *const chain_usage =
    "usage: blockkit chain (--blocksdir DIR | --datadir DIR) [--chain NAME] [--source index|files]\n"
    "                      [--blockindex DIR] [--tmpdir DIR] [--verbose]\n"
    "\n"
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
    "\n"
    "  --blocksdir DIR  the blocks directory itself\n"
    "  --datadir DIR    DIR/blocks (main) or DIR/<testnet3|testnet4|signet|regtest>/blocks\n"
    "  --chain NAME     main (default), test|testnet3, testnet4, signet, regtest\n"
    BK_CLI_SOURCE_HELP
    "  --verbose        report how each file ended and counts on stderr\n"
    "Proof of work is not checked; work counts nBits only.\n"
    "Exit codes: 0 ok, 64 usage, 65 bad data, 66 no block index (--source index), 74 I/O.\n"
    "\n"
    "blockkit chain --tips --datadir DIR: getchaintips from the node's block index\n"
    "(see blockkit chain --tips --help).\n";

static void hex_rev(char *out, const uint8_t h[32])
{
    static const char d[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = d[h[31 - i] >> 4];
        out[2 * i + 1] = d[h[31 - i] & 15];
    }
    out[64] = 0;
}

static void hex_be(char *out, const uint8_t h[32])
{
    static const char d[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = d[h[i] >> 4];
        out[2 * i + 1] = d[h[i] & 15];
    }
    out[64] = 0;
}

static int print_entry(FILE *out, const bk_chain_entry *e, const char *tag0)
{
    char tagbuf[64];
    snprintf(tagbuf, sizeof tagbuf, "%s%s", e->no_data ? ",\"data\":false" : "", tag0);
    const char *tag = tagbuf;
    char hash[65], prev[65], work[65];
    hex_rev(hash, e->hash);
    hex_rev(prev, e->prev_hash);
    char line[640];
    int n;
    if (e->height >= 0) {
        hex_be(work, e->chainwork);
        n = snprintf(line, sizeof line,
                     "{\"height\":%d,\"hash\":\"%s\",\"prev\":\"%s\",\"time\":%u,\"mediantime\":%lld,"
                     "\"chainwork\":\"%s\",\"nTx\":%u,\"file\":%u,\"offset\":%llu,\"has_undo\":%s%s}\n",
                     (int)e->height, hash, prev, e->time, (long long)e->mediantime, work, e->n_tx, e->file,
                     (unsigned long long)e->offset, e->has_undo ? "true" : "false", tag);
    } else {
        n = snprintf(line, sizeof line,
                     "{\"hash\":\"%s\",\"prev\":\"%s\",\"time\":%u,\"nTx\":%u,\"file\":%u,\"offset\":%llu,"
                     "\"has_undo\":%s%s}\n",
                     hash, prev, e->time, e->n_tx, e->file, (unsigned long long)e->offset,
                     e->has_undo ? "true" : "false", tag);
    }
    return bk_cli_write_all(out, line, (size_t)n);
}

static int chain_main(int argc, char **argv)
{
    const char *cmd = "chain";
    /* --tips: getchaintips from the node's block index (cli/lookup.c). */
    if (bk_cli_has_opt(argc, argv, "--tips")) return bk_lookup_tips_main(argc, argv);
    const char *blocksdir = NULL, *datadir = NULL, *chain_name = "main";
    int verbose = 0;
    bk_cli_source src;
    memset(&src, 0, sizeof src);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(chain_usage, stdout);
            return BK_EXIT_OK;
        }
        if (!strcmp(a, "--verbose")) {
            verbose = 1;
            continue;
        }
        int src_rc = bk_cli_source_option(cmd, &src, argc, argv, &i);
        if (src_rc > 0) return src_rc;
        if (src_rc == 0) continue;
        const char **slot = !strcmp(a, "--blocksdir") ? &blocksdir
                            : !strcmp(a, "--datadir") ? &datadir
                            : !strcmp(a, "--chain")   ? &chain_name
                                                      : NULL;
        if (!slot) return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown argument '%s' (see --help)", a);
        if (i + 1 >= argc) return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s needs a value", a);
        *slot = argv[++i];
    }
    bk_network net;
    if (bk_network_parse(chain_name, &net) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown chain '%s'", chain_name);
    if (!blocksdir && !datadir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--blocksdir or --datadir is required");
    src.datadir = datadir;
    src.blocksdir = blocksdir;
    int rc = bk_cli_source_blocksdir(cmd, &src, net);
    if (rc) return rc;
    bk_chain c;
    rc = bk_cli_source_build(cmd, &src, net, NULL, 0, &c);
    bk_cli_source_free(&src);
    if (rc) return rc;
    for (size_t h = 0; h < c.n_active && rc == BK_EXIT_OK; h++) rc = print_entry(stdout, &c.entries[c.active[h]], "");
    for (size_t k = 0; k < c.n_entries && rc == BK_EXIT_OK; k++)
        if (c.entries[k].height >= 0 && !c.entries[k].active) rc = print_entry(stdout, &c.entries[k], ",\"stale\":true");
    for (size_t k = 0; k < c.n_entries && rc == BK_EXIT_OK; k++)
        if (c.entries[k].height < 0) rc = print_entry(stdout, &c.entries[k], ",\"orphan\":true");
    if (rc == BK_EXIT_OK && fflush(stdout) != 0 && !bk_cli_pipe_closed)
        rc = bk_cli_fail(cmd, BK_EXIT_IO, "cannot write output");
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

BK_CLI_COMMAND(chain_command, "chain", "--blocksdir DIR | --datadir DIR [--chain NAME] [--source index|files]",
               "best chain of a blocks directory as NDJSON (heights, chainwork, undo)", chain_main)
