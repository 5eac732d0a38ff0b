/* blockkit CLI: lookups in a node's datadir shaped like bitcoin-cli
 * (cli/lookup.c): `block --datadir`, `header`, `tx --datadir`,
 * `chain --tips`. block, tx and chain parse their one option table
 * (cli/opt.h) and, when the options given choose the lookup mode, hand the
 * parsed request to bk_cli_lookup_run. */
#ifndef BLOCKKIT_CLI_LOOKUP_H
#define BLOCKKIT_CLI_LOOKUP_H

#include <stddef.h>

#include "opt.h"
#include "source.h"

typedef enum bk_cli_lookup_kind {
    BK_CLI_LOOKUP_BLOCK,  /* getblock */
    BK_CLI_LOOKUP_HEADER, /* getblockheader */
    BK_CLI_LOOKUP_TX,     /* getrawtransaction */
    BK_CLI_LOOKUP_TIPS,   /* getchaintips */
} bk_cli_lookup_kind;

/* One parsed lookup request. */
typedef struct bk_cli_lookup {
    bk_cli_lookup_kind kind;
    const char *const *args; /* HASH|HEIGHT (block, header) or TXID (tx); none for tips */
    size_t n_args;
    int verbosity;           /* block 0-3, tx 0-2, header 0|1 (verbose) */
    int core_version;        /* block and header objects: BK_CORE_MIN..BK_CORE_NEWEST */
    int pretty;              /* bitcoin-cli's form (indent 2, a string result bare) */
    const char *blockhash;   /* tx: --blockhash, getrawtransaction's third parameter */
} bk_cli_lookup;

/* Check the arguments, resolve the datadir (bk_cli_source_resolve,
 * BK_CLI_NEED_DATADIR), open the node's block index and answer every
 * argument, one line each. Returns the exit status (frees src). */
int bk_cli_lookup_run(const char *cmd, bk_cli_source *src, const bk_cli_lookup *q);

/* Resolve the datadir (bk_cli_source_resolve, BK_CLI_NEED_DATADIR) and
 * open it for lookups (blockkit/lookup.h). 0 with *l_out, or the exit
 * status after the message. Frees src either way. */
struct bk_lookup;
int bk_cli_lookup_open(const char *cmd, bk_cli_source *src, struct bk_lookup **l_out);

/* Print a Core RPC refusal, "MSG (error code N)", and return its exit
 * status: 64 for -8 (a bad parameter), 65 for -32603 (Core's internal
 * error: a damaged index or block file), 66 otherwise. */
int bk_cli_rpc_fail(const char *cmd, int code, const char *msg);

/* The text every lookup's --help ends with (how the datadir is read,
 * Core's refusals, exit status). */
#define BK_CLI_LOOKUP_OUTRO                                                                          \
    "A lookup only reads the node's directories (LevelDB through private\n"                          \
    "snapshots), so it works while bitcoind runs and on a read-only copy. The\n"                     \
    "network is the one whose files DIR holds (--chain chooses when there are\n"                     \
    "several); DIR may also be its network folder (DIR/regtest), as Core's layout\n"                 \
    "implies. Core's refusals are Core's messages: \"Block not found\", \"Block\n"                   \
    "height out of range\", \"Block not available (pruned data)\", \"No such\n"                       \
    "mempool or blockchain transaction. ...\". A negative height goes after --\n"                    \
    "(-- -5).\n"                                                                                     \
    "Exit status of a lookup: 0 ok, 64 usage (or a malformed hash or height), 65\n"                  \
    "damaged files, 66 not found / not available (or no such datadir), 74 I/O.\n"

/* BK_OPT_CALL parsers for Core's value spellings (dest: int *):
 * getblock's verbosity 0-3 or true (1) / false (0); getrawtransaction's
 * 0-2 or true / false; getblockheader's verbose true|false (also 1|0). */
int bk_cli_parse_verbosity3(void *dest, const char *value);
int bk_cli_parse_verbosity2(void *dest, const char *value);
int bk_cli_parse_verbose(void *dest, const char *value);

#endif
