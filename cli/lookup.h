/* blockkit CLI: lookups in a node's datadir shaped like bitcoin-cli
 * (cli/lookup.c): `block --datadir`, `header`, `tx --datadir`,
 * `chain --tips`. The single-file commands hand over to these when their
 * argument list has --datadir (or --tips). */
#ifndef BLOCKKIT_CLI_LOOKUP_H
#define BLOCKKIT_CLI_LOOKUP_H

#include <string.h>

int bk_lookup_block_main(int argc, char **argv);
int bk_lookup_tx_main(int argc, char **argv);
int bk_lookup_tips_main(int argc, char **argv);

/* Whether argv[1..] holds the option `name` (not as another option's value
 * is not checked: the lookups' own parser rejects what does not fit). */
static inline int bk_cli_has_opt(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], name)) return 1;
    return 0;
}

#endif
