/* The chain source of `chain` and `scan` (cli/source.h). */
#include "source.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void bk_cli_source_init(bk_cli_source *s)
{
    memset(s, 0, sizeof *s);
    s->net = BK_NET_MAIN;
}

int bk_cli_source_parse_chain(void *dest, const char *value)
{
    bk_cli_source *s = dest;
    if (bk_network_parse(value, &s->net) != BK_OK) return 0;
    s->chain_given = 1;
    return 1;
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

/* "dir/<net subdir>leaf" (malloc'd; NULL when out of memory): where
 * Core's layout puts a network's leaf ("blocks", "chainstate") under a
 * datadir or a -blocksdir (the network table's folder). */
static char *net_path(const char *dir, bk_network n, const char *leaf)
{
    int len = bk_network_datadir_path(NULL, 0, dir, n, leaf);
    char *p = len < 0 ? NULL : malloc((size_t)len + 1);
    if (p) bk_network_datadir_path(p, (size_t)len + 1, dir, n, leaf);
    return p;
}

static int net_is_dir(const char *dir, bk_network n, const char *leaf)
{
    char *p = net_path(dir, n, leaf);
    int r = p && is_dir(p);
    free(p);
    return r;
}

/* dir/<net subdir>blocks, the blocks directory Core's layout gives a
 * network under a datadir (or a -blocksdir). */
static int net_blocks_dir(const char *dir, bk_network n) { return net_is_dir(dir, n, "blocks"); }

/* Whether dir holds blk files (or xor.dat): a blocks directory itself. */
static int holds_blk_files(const char *dir)
{
    char p[4200];
    int w = snprintf(p, sizeof p, "%s/blk00000.dat", dir);
    if (w > 0 && (size_t)w < sizeof p && is_file(p)) return 1;
    w = snprintf(p, sizeof p, "%s/xor.dat", dir);
    return w > 0 && (size_t)w < sizeof p && is_file(p);
}

/* The network whose record magic starts the first blk file of dir that
 * has one: 1 with *net, 0 when none can be told. */
static int magic_network(const char *dir, bk_network *net)
{
    bk_blocksdir d;
    bk_error err;
    if (bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err) != BK_OK) return 0;
    int found = 0;
    for (size_t i = 0; i < d.n_blk && !found && i < 4; i++) {
        bk_blockfile f;
        uint8_t m[4];
        if (bk_blocksdir_open_file(&d, BK_FILE_BLK, d.blk[i], &f, &err) != BK_OK) continue;
        if (f.len >= 8 && bk_blockfile_copy(&f, 0, m, 4, &err) == BK_OK)
            for (int n = 0; n < BK_NET_COUNT_ && !found; n++)
                if (!memcmp(bk_network_get((bk_network)n)->magic, m, 4)) {
                    *net = (bk_network)n;
                    found = 1;
                }
        bk_blockfile_close(&f);
    }
    bk_blocksdir_close(&d);
    return found;
}

/* The networks whose blocks directory dir holds in Core's layout, as
 * "main, regtest" and a bit set. */
static unsigned present_networks(const char *dir, char *names, size_t cap)
{
    unsigned set = 0;
    size_t len = 0;
    names[0] = 0;
    for (int n = 0; n < BK_NET_COUNT_; n++)
        /* (a chainstate alone: a datadir whose blocks are elsewhere, or a
         * chainstate-only copy, for the utxo commands) */
        if (net_blocks_dir(dir, (bk_network)n) || net_is_dir(dir, (bk_network)n, "chainstate")) {
            set |= 1u << n;
            int w = snprintf(names + len, cap - len, "%s%s", len ? " and " : "", bk_network_get((bk_network)n)->name);
            if (w > 0 && (size_t)w < cap - len) len += (size_t)w;
        }
    return set;
}

static int only_one(unsigned set, bk_network *net)
{
    if (!set || (set & (set - 1))) return 0;
    for (int n = 0; n < BK_NET_COUNT_; n++)
        if (set == 1u << n) *net = (bk_network)n;
    return 1;
}

/* "--datadir DD --chain regtest" for messages. */
static const char *chain_opt(bk_network n)
{
    return bk_network_get(n)->name;
}

int bk_cli_source_resolve(const char *cmd, bk_cli_source *s, int need)
{
    if (!s->datadir && !s->blocksdir)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, need == BK_CLI_NEED_DATADIR ? "give --datadir DIR (a node's -datadir)"
                                                                           : "give --datadir DIR or --blocksdir DIR");
    if (need == BK_CLI_NEED_DATADIR && !s->datadir)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--blocksdir %s alone is not enough: give --datadir DIR too (the "
                                               "block index, chainstate and txindex are in the datadir)",
                           s->blocksdir);
    char names[128];
    if (s->datadir) {
        if (!is_dir(s->datadir))
            return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "--datadir %s: no such directory", s->datadir);
        /* A network folder given as the datadir: DD/regtest holds
         * blocks/ and is named after its network (Core's layout). */
        size_t dlen = strlen(s->datadir);
        while (dlen > 1 && s->datadir[dlen - 1] == '/') dlen--;
        size_t nstart = dlen;
        while (nstart > 0 && s->datadir[nstart - 1] != '/') nstart--;
        const char *name = s->datadir + nstart;
        size_t nlen = dlen - nstart;
        /* the parent: "DD" of "DD/regtest", "/" of "/regtest", "." of "regtest" */
        int plen = nstart > 1 ? (int)nstart - 1 : nstart == 1 ? 1 : 0;
        const char *parent_s = plen ? s->datadir : ".";
        if (!plen) plen = 1;
        for (int n = 1; n < BK_NET_COUNT_; n++) {
            const char *sub = bk_network_datadir_subdir((bk_network)n); /* "regtest/" */
            if (strlen(sub) != nlen + 1 || memcmp(sub, name, nlen) != 0) continue;
            char p[4200];
            int w = snprintf(p, sizeof p, "%.*s/blocks", (int)dlen, s->datadir);
            if (w < 0 || (size_t)w >= sizeof p || !is_dir(p) || net_blocks_dir(s->datadir, (bk_network)n)) break;
            /* the hint must work when followed: the parent without the
             * other network's blocks leaves only this folder's network */
            char *pp = s->chain_given && s->net != (bk_network)n ? malloc((size_t)plen + 1) : NULL;
            if (pp) snprintf(pp, (size_t)plen + 1, "%.*s", plen, parent_s);
            int parent_has = !pp || s->blocksdir || net_blocks_dir(pp, s->net);
            free(pp);
            if (!parent_has)
                return bk_cli_fail(cmd, BK_EXIT_USAGE,
                                   "--datadir %s is the %s folder of the datadir %.*s, which has no blocks for "
                                   "--chain %s: use --datadir %.*s --chain %s", s->datadir, chain_opt((bk_network)n),
                                   plen, parent_s, chain_opt(s->net), plen, parent_s, chain_opt((bk_network)n));
            if (s->chain_given && s->net != (bk_network)n)
                return bk_cli_fail(cmd, BK_EXIT_USAGE,
                                   "--datadir %s is the %s folder of the datadir %.*s; for %s use --datadir %.*s "
                                   "--chain %s", s->datadir, chain_opt((bk_network)n), plen, parent_s,
                                   chain_opt(s->net), plen, parent_s, chain_opt(s->net));
            char *parent = malloc((size_t)plen + 1);
            if (!parent) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            snprintf(parent, (size_t)plen + 1, "%.*s", plen, parent_s);
            s->owned_[0] = parent;
            s->datadir = parent;
            s->net = (bk_network)n;
            s->chain_given = 1;
            break;
        }
        unsigned set = present_networks(s->datadir, names, sizeof names);
        if (s->chain_given) {
            if (!(set & 1u << s->net) && !s->blocksdir) {
                if (!set)
                    return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "%s has no %sblocks directory (nor one of another "
                                       "network): is it a Bitcoin Core datadir?", s->datadir,
                                       bk_network_datadir_subdir(s->net));
                bk_network one;
                if (only_one(set, &one))
                    return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "%s holds the blocks of %s, not of %s: use --datadir %s "
                                       "--chain %s", s->datadir, names, chain_opt(s->net), s->datadir,
                                       chain_opt(one));
                return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "%s holds the blocks of %s, not of %s: use --chain with "
                                   "one of them", s->datadir, names, chain_opt(s->net));
            }
        } else if (!only_one(set, &s->net)) {
            if (set)
                return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s holds the blocks of %s: choose with --chain %s", s->datadir,
                                   names, strstr(names, " and ") ? "NAME" : names);
            if (!s->blocksdir)
                return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "%s has no blocks directory of any network (blocks/, "
                                   "regtest/blocks/, ...): is it a Bitcoin Core datadir?", s->datadir);
        }
    }
    /* the directory whose <net subdir>blocks holds the blk files, when
     * Core's layout gives it */
    const char *base = s->datadir;
    if (s->blocksdir) {
        base = NULL;
        if (!is_dir(s->blocksdir))
            return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "--blocksdir %s: no such directory", s->blocksdir);
        if (holds_blk_files(s->blocksdir) || !present_networks(s->blocksdir, names, sizeof names)) {
            /* the blk*.dat directory itself: its network from the files */
            bk_network m;
            if (!s->chain_given && !s->datadir && magic_network(s->blocksdir, &m)) s->net = m;
            /* Core's -blocksdir for the lookups, when the layout gives it */
            const char *sub = bk_network_datadir_subdir(s->net);
            size_t bl = strlen(s->blocksdir), tail = strlen(sub) + strlen("blocks");
            char want[64];
            snprintf(want, sizeof want, "/%sblocks", sub);
            if (bl > tail && !strcmp(s->blocksdir + bl - strlen(want), want)) {
                char *core = malloc(bl + 1);
                if (!core) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
                snprintf(core, bl + 1, "%.*s", (int)(bl - strlen(want)), s->blocksdir);
                s->owned_[1] = core;
                s->core_blocksdir = core;
            }
        } else {
            /* Core's -blocksdir: the network's blk files in DIR/<net>/blocks */
            unsigned set = present_networks(s->blocksdir, names, sizeof names);
            if (!s->chain_given && !s->datadir && !only_one(set, &s->net))
                return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s holds the blocks of %s: choose with --chain NAME",
                                   s->blocksdir, names);
            if (!(set & 1u << s->net))
                return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "--blocksdir %s holds the blocks of %s, not of %s",
                                   s->blocksdir, names, chain_opt(s->net));
            s->core_blocksdir = base = s->blocksdir;
        }
    }
    if (base) {
        char *p = net_path(base, s->net, "blocks");
        if (!p) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        s->owned_[2] = p;
        s->blocksdir = p;
    }
    return 0;
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
    if (s->blockindex) snprintf(index, cap, "%s", s->blockindex);
    else if (s->datadir) bk_network_datadir_path(index, cap, s->datadir, net, "blocks/index");
    else snprintf(index, cap, "%s/index", s->blocksdir);
    snprintf(current, cap + 16, "%s/CURRENT", index);
    if (s->datadir) bk_network_datadir_path(chainstate, cap, s->datadir, net, "chainstate");
    else if (s->blockindex) snprintf(chainstate, cap, "%s/../../chainstate", s->blockindex);
    else snprintf(chainstate, cap, "%s/../chainstate", s->blocksdir);
    int have_index = is_file(current);
    int rc = 0;
    /* An index that is there but cannot be read is an error, never a
     * silent switch to the header scan (--source files asks for that). */
    struct stat ist;
    if (!have_index && s->source == BK_CLI_SOURCE_AUTO && lstat(index, &ist) == 0) {
        int e = 0;
        struct stat cst;
        if (!S_ISDIR(ist.st_mode))
            rc = bk_cli_fail(cmd, BK_EXIT_DATA, "the block index %s is not a directory (Core keeps a LevelDB "
                             "directory there); --source files reads the blk/rev file headers instead", index);
        else if (stat(current, &cst) != 0 && (e = errno) != ENOENT)
            rc = bk_cli_fail(cmd, BK_EXIT_IO, "cannot read the block index %s: %s; --source files reads the blk/rev "
                             "file headers instead", index, strerror(e));
        else
            rc = bk_cli_fail(cmd, BK_EXIT_DATA, "the block index %s has no CURRENT file (not a LevelDB directory: "
                             "damaged or incomplete copy); --source files reads the blk/rev file headers instead",
                             index);
        goto out;
    }
    int use_index = s->source == BK_CLI_SOURCE_INDEX || (s->source == BK_CLI_SOURCE_AUTO && have_index);
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
    for (int i = 0; i < 3; i++) {
        free(s->owned_[i]);
        s->owned_[i] = NULL;
    }
}
