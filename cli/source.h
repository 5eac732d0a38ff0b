/* Where `chain` and `scan` get the chain from (cli/source.c): Bitcoin
 * Core's block index when the data directory has one, the header scan of
 * the blk/rev files otherwise (docs/blockfiles.md, "Chain sources"). */
#ifndef BLOCKKIT_CLI_SOURCE_H
#define BLOCKKIT_CLI_SOURCE_H

#include <signal.h>
#include <blockkit/blockkit.h>

#include "opt.h"

enum {
    BK_CLI_SOURCE_AUTO = 0, /* the index when there is one, else the files */
    BK_CLI_SOURCE_INDEX,    /* --source index: Core's block index, or an error */
    BK_CLI_SOURCE_FILES     /* --source files: the header scan */
};

typedef struct bk_cli_source {
    const char *datadir;    /* --datadir: Core's -datadir (blocks in <net subdir>/blocks) */
    const char *blocksdir;  /* --blocksdir; after bk_cli_source_resolve: the directory of blk*.dat */
    const char *blockindex; /* --blockindex DIR: the LevelDB block index */
    const char *tmpdir;     /* --tmpdir DIR: where LevelDB snapshots are made */
    int source;             /* --source: BK_CLI_SOURCE_* */
    bk_network net;         /* --chain, else found from the files by bk_cli_source_resolve */
    int chain_given;        /* --chain was given */
    int orphans_ok;         /* a header scan that connects no block is fine (--orphans) */
    /* after bk_cli_source_resolve */
    const char *core_blocksdir; /* Core's -blocksdir (blk files in <it>/<net subdir>blocks), or NULL */
    char *owned_[3];        /* resolved paths (freed by bk_cli_source_free) */
} bk_cli_source;

void bk_cli_source_init(bk_cli_source *s);

/* --chain NAME for the source group (dest: the bk_cli_source). */
int bk_cli_source_parse_chain(void *dest, const char *value);

/* The source group's rows: every command that reads a node's files takes
 * them, spelled and explained once. BK_OPT_SOURCE_DIRS: --datadir,
 * --blocksdir, --chain, --tmpdir (BK_OPT_SOURCE_NET: the last two); BK_OPT_SOURCE_INDEX: --blockindex and
 * --source (the commands that can build the chain from the files too). */
#define BK_OPT_SOURCE_DIRS(s) BK_OPT_ROW_DATADIR(s), BK_OPT_ROW_BLOCKSDIR(s), BK_OPT_SOURCE_NET(s)
/* --datadir, --chain, --tmpdir: the commands that read only the datadir's
 * databases (utxo). */
#define BK_OPT_SOURCE_DATADIR(s) BK_OPT_ROW_DATADIR(s), BK_OPT_SOURCE_NET(s)
#define BK_OPT_SOURCE_NET(s) BK_OPT_ROW_CHAIN(s), BK_OPT_ROW_TMPDIR(s)
#define BK_OPT_SOURCE_INDEX(s) BK_OPT_ROW_BLOCKINDEX(s), BK_OPT_ROW_SOURCE(s)
/* The rows one by one (for BK_OPT_IN). */
#define BK_OPT_ROW_DATADIR(s)                                                                        \
    BK_OPT_ROW_STR("--datadir", 0, &(s)->datadir, "DIR",                                              \
                   "Core's -datadir (its network folder, DIR/regtest, is taken too)")
#define BK_OPT_ROW_BLOCKSDIR(s)                                                                      \
    BK_OPT_ROW_STR("--blocksdir", 0, &(s)->blocksdir, "DIR",                                          \
                   "the blk*.dat directory, or Core's -blocksdir (DIR/<net>/blocks)")
#define BK_OPT_ROW_CHAIN(s)                                                                          \
    BK_OPT_ROW_CALL("--chain", 0, (s), bk_cli_source_parse_chain, "NAME",                             \
                    "main, test|testnet3, testnet4, signet, regtest (default: the\n"                 \
                    "one network whose files are there)")
#define BK_OPT_ROW_TMPDIR(s)                                                                         \
    BK_OPT_ROW_STR("--tmpdir", 0, &(s)->tmpdir, "DIR",                                                \
                   "where private snapshots of LevelDB directories are made\n"                      \
                   "(default $TMPDIR or /tmp)")
#define BK_OPT_ROW_BLOCKINDEX(s)                                                                     \
    BK_OPT_ROW_STR("--blockindex", 0, &(s)->blockindex, "DIR",                                        \
                   "Core's block index (LevelDB; default <blocks>/index)")
#define BK_OPT_ROW_SOURCE(s)                                                                         \
    BK_OPT_ROW_CHOICE("--source", &(s)->source, "auto|index|files",                                   \
                      "index: Core's block index (an error if absent); files: the\n"                \
                      "header scan of the blk/rev files; auto (default): index when\n"              \
                      "present. The one used is named on stderr")

/* Which directories a command needs. */
enum {
    BK_CLI_NEED_BLOCKS = 0,  /* --datadir or --blocksdir */
    BK_CLI_NEED_DATADIR = 1, /* --datadir (the block index, chainstate, txindex) */
};

/* The one datadir and network resolver. After the options: find the
 * network (--chain when given, else the one network whose files are
 * there: the datadir's network folders, or a blocks directory's record
 * magic), accept a network folder given as --datadir (DD/regtest means
 * --datadir DD --chain regtest, as Core's layout implies) and a
 * --blocksdir given either as the blk*.dat directory or as Core's
 * -blocksdir, and set s->blocksdir to the directory of blk*.dat. Every
 * refusal names the exact options to type. 0, or an exit code after the
 * message (64 a choice to make or options missing, 66 no such directory
 * or no files of the network). */
int bk_cli_source_resolve(const char *cmd, bk_cli_source *s, int need);

/* The index is --blockindex, else <datadir>/<net>/blocks/index with
 * --datadir (also when --blocksdir moves the blk files, as Core's
 * -blocksdir does), else <blocksdir>/index; the chainstate is
 * <datadir>/<net>/chainstate, else beside the index's blocks directory.
 * Build the chain from the chosen source and print one line on stderr
 * naming it (unless quiet, and except for a plain header scan of a
 * --blocksdir with no index, which is the historic silent case). Returns
 * 0 or an exit code (66 when --source index finds no index; 128 + *cancel
 * when a signal stopped the build; a header scan that found no block of the
 * network, or none connected to a genesis without s->orphans_ok, is an
 * error saying what was found: bk_cli_check_chain). */
int bk_cli_source_build(const char *cmd, const bk_cli_source *s, bk_network net,
                        const volatile sig_atomic_t *cancel, int quiet, bk_chain *c);

void bk_cli_source_free(bk_cli_source *s);

#endif
