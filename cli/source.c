/* The chain source of `chain` and `scan` (cli/source.h). */
#include "source.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int bk_cli_source_option(const char *cmd, bk_cli_source *s, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char **slot = !strcmp(a, "--blockindex") ? &s->blockindex
                        : !strcmp(a, "--tmpdir")   ? &s->tmpdir
                                                   : NULL;
    if (!slot && strcmp(a, "--source") != 0) return -1;
    if (*i + 1 >= argc) return bk_cli_missing_value(cmd, a);
    const char *v = argv[++*i];
    if (slot) {
        *slot = v;
        return 0;
    }
    if (!strcmp(v, "index")) s->source = BK_CLI_SOURCE_INDEX;
    else if (!strcmp(v, "files")) s->source = BK_CLI_SOURCE_FILES;
    else if (!strcmp(v, "auto")) s->source = BK_CLI_SOURCE_AUTO;
    else return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for --source: '%s' (index, files or auto)", v);
    return 0;
}

int bk_cli_source_blocksdir(const char *cmd, bk_cli_source *s, bk_network net)
{
    if (s->blocksdir || !s->datadir) return 0;
    /* Core: chainparamsbase.cpp - a test chain's data lives in a
     * subdirectory named after it, blocks in <that>/blocks. */
    const char *sub = bk_network_datadir_subdir(net);
    size_t cap = strlen(s->datadir) + strlen(sub) + 16;
    s->owned_ = malloc(cap);
    if (!s->owned_) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    snprintf(s->owned_, cap, "%s/%sblocks", s->datadir, sub);
    s->blocksdir = s->owned_;
    /* A missing chain directory names the chains the datadir does hold. */
    int rc = bk_cli_check_datadir(cmd, s->datadir, s->owned_, net);
    if (rc) {
        free(s->owned_);
        s->owned_ = NULL;
        s->blocksdir = NULL;
    }
    return rc;
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

int bk_cli_source_build(const char *cmd, const bk_cli_source *s, bk_network net,
                        const volatile sig_atomic_t *cancel, int quiet, bk_chain *c)
{
    memset(c, 0, sizeof *c);
    c->tip = BK_CHAIN_NONE;
    if (!s->blocksdir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--blocksdir or --datadir is required");
    size_t cap = strlen(s->blocksdir) + 64 + (s->datadir ? strlen(s->datadir) : 0) +
                 (s->blockindex ? strlen(s->blockindex) : 0);
    char *index = malloc(cap), *chainstate = malloc(cap), *current = malloc(cap + 16);
    if (!index || !chainstate || !current) {
        free(index);
        free(chainstate);
        free(current);
        return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    }
    /* Core keeps the index and the chainstate in <datadir>/<net>/ even when
     * -blocksdir puts the blk/rev files elsewhere. */
    const char *sub = bk_network_datadir_subdir(net);
    if (s->blockindex) snprintf(index, cap, "%s", s->blockindex);
    else if (s->datadir) snprintf(index, cap, "%s/%sblocks/index", s->datadir, sub);
    else snprintf(index, cap, "%s/index", s->blocksdir);
    snprintf(current, cap + 16, "%s/CURRENT", index);
    if (s->datadir) snprintf(chainstate, cap, "%s/%schainstate", s->datadir, sub);
    else if (s->blockindex) snprintf(chainstate, cap, "%s/../../chainstate", s->blockindex);
    else snprintf(chainstate, cap, "%s/../chainstate", s->blocksdir);
    int have_index = is_file(current);
    int use_index = s->source == BK_CLI_SOURCE_INDEX || (s->source == BK_CLI_SOURCE_AUTO && have_index);
    int rc = 0;
    bk_error err;
    bk_error_clear(&err);
    if (use_index) {
        if (!have_index) {
            rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "--source index: no block index at %s (no CURRENT file)", index);
            goto out;
        }
        bk_chain_opts o;
        memset(&o, 0, sizeof o);
        o.cancel = cancel;
        o.tmpdir = s->tmpdir;
        bk_index_dirs dirs = {.blocksdir = s->blocksdir, .indexdir = index,
                              .chainstatedir = is_dir(chainstate) ? chainstate : NULL};
        bk_status st = bk_chain_build_index_dirs(c, &dirs, net, &o, NULL, &err);
        if (st != BK_OK) {
            rc = st == BK_ERR_CANCELLED
                     ? bk_cli_fail(cmd, 128 + (int)*cancel, "interrupted while reading the block index; nothing written")
                     : bk_cli_report(cmd, &err);
            goto out;
        }
        if (!quiet) {
            const bk_chain_entry *tip = bk_chain_tip(c);
            fprintf(stderr, "blockkit: %s: chain from Core's block index %s: %zu blocks, tip at height %lld (%s)", cmd,
                    index, c->n_entries, tip ? (long long)tip->height : -1LL,
                    c->tip_from_chainstate ? "the chainstate's best block"
                    : c->chainstate_skipped ? "most work: the chainstate is on another filesystem than the snapshot "
                                              "directory and too large to copy; --tmpdir on its filesystem reads it"
                                            : "most work: no chainstate");
            if (c->n_appended)
                fprintf(stderr, ", %llu block(s) past its last flush", (unsigned long long)c->n_appended);
            if (c->prune_height > 0) fprintf(stderr, ", pruned below height %d", (int)c->prune_height);
            if (c->n_missing)
                fprintf(stderr, ", %llu block(s) or undo record(s) in blk/rev files that are not there",
                        (unsigned long long)c->n_missing);
            fputc('\n', stderr);
        }
    } else {
        bk_blocksdir d;
        if (bk_blocksdir_open(&d, s->blocksdir, net, NULL, &err) != BK_OK) {
            rc = bk_cli_report(cmd, &err);
            goto out;
        }
        bk_chain_opts o;
        memset(&o, 0, sizeof o);
        o.cancel = cancel;
        o.tmpdir = s->tmpdir;
        bk_status st = bk_chain_build_opts(c, &d, &o, NULL, &err);
        if (st == BK_OK) {
            /* No silent empty success: another network's files, a datadir
             * given as --blocksdir, nothing connected to a genesis. */
            rc = bk_cli_check_chain(cmd, &d, c, s->orphans_ok);
            if (rc) bk_chain_free(c);
        }
        bk_blocksdir_close(&d);
        if (st != BK_OK) {
            rc = st == BK_ERR_CANCELLED
                     ? bk_cli_fail(cmd, 128 + (int)*cancel, "interrupted while building the chain; nothing written")
                     : bk_cli_report(cmd, &err);
            goto out;
        }
        if (rc) goto out;
        if (!quiet && (s->source == BK_CLI_SOURCE_FILES || s->datadir || s->blockindex))
            fprintf(stderr, "blockkit: %s: chain from the blk/rev file headers in %s (%s); undo paired by checksum "
                            "and shape, which cannot tell same-shape siblings apart\n",
                    cmd, s->blocksdir, s->source == BK_CLI_SOURCE_FILES ? "--source files" : "no block index");
    }
out:
    free(index);
    free(chainstate);
    free(current);
    return rc;
}

void bk_cli_source_free(bk_cli_source *s)
{
    free(s->owned_);
    s->owned_ = NULL;
}
