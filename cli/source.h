/* Where `chain` and `scan` get the chain from (cli/source.c): Bitcoin
 * Core's block index when the data directory has one, the header scan of
 * the blk/rev files otherwise (docs/blockfiles.md, "Chain sources"). */
#ifndef BLOCKKIT_CLI_SOURCE_H
#define BLOCKKIT_CLI_SOURCE_H

#include <signal.h>
#include <blockkit/blockkit.h>

enum {
    BK_CLI_SOURCE_AUTO = 0, /* the index when there is one, else the files */
    BK_CLI_SOURCE_INDEX,    /* --source index: Core's block index, or an error */
    BK_CLI_SOURCE_FILES     /* --source files: the header scan */
};

typedef struct bk_cli_source {
    const char *datadir;    /* --datadir: Core's -datadir (blocks in <net subdir>/blocks) */
    const char *blocksdir;  /* --blocksdir, or derived from datadir by bk_cli_source_blocksdir */
    const char *blockindex; /* --blockindex DIR: the LevelDB block index */
    const char *tmpdir;     /* --tmpdir DIR: where LevelDB snapshots are made */
    int source;             /* BK_CLI_SOURCE_* */
    char *owned_;           /* the derived blocksdir (freed by bk_cli_source_free) */
} bk_cli_source;

/* The option help lines shared by the commands. */
#define BK_CLI_SOURCE_HELP                                                                     \
    "  --blockindex DIR      Core's block index (LevelDB) to use (default:\n"                  \
    "                        <blocks>/index when it exists)\n"                                 \
    "  --source WHICH        index: Core's block index (error if absent); files: the\n"       \
    "                        header scan of the blk/rev files; auto (default): index\n"        \
    "                        when present. The one used is named on stderr\n"                  \
    "  --tmpdir DIR          where private snapshots of LevelDB directories are made\n"        \
    "                        (default $TMPDIR or /tmp; on the node's filesystem\n"             \
    "                        they are hard links, elsewhere copies)\n"

/* If argv[*i] is --blockindex, --source or --tmpdir, take it (and its
 * value, advancing *i) and return 0; -1 when it is not one of them; else
 * an exit code after printing the usage error. */
int bk_cli_source_option(const char *cmd, bk_cli_source *s, int argc, char **argv, int *i);

/* Set s->blocksdir from s->datadir (<datadir>/<net subdir>/blocks) unless
 * --blocksdir gave it. Returns 0 or an exit code. */
int bk_cli_source_blocksdir(const char *cmd, bk_cli_source *s, bk_network net);

/* The index is --blockindex, else <datadir>/<net>/blocks/index with
 * --datadir (also when --blocksdir moves the blk files, as Core's
 * -blocksdir does), else <blocksdir>/index; the chainstate is
 * <datadir>/<net>/chainstate, else beside the index's blocks directory.
 * Build the chain from the chosen source and print one line on stderr
 * naming it (unless quiet, and except for a plain header scan of a
 * --blocksdir with no index, which is the historic silent case). Returns
 * 0 or an exit code (66 when --source index finds no index). */
int bk_cli_source_build(const char *cmd, const bk_cli_source *s, bk_network net,
                        const volatile sig_atomic_t *cancel, int quiet, bk_chain *c);

void bk_cli_source_free(bk_cli_source *s);

#endif
