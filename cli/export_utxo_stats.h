/* blockkit export --datasets utxo_stats (cli/export_utxo_stats.c). */
#ifndef BLOCKKIT_CLI_EXPORT_UTXO_STATS_H
#define BLOCKKIT_CLI_EXPORT_UTXO_STATS_H

#include <blockkit/export.h>

/* bk_utxo_stats_export_run with the CLI's signals (o->cancel is set
 * here), messages and exit codes; returns the exit code. */
int bk_cli_export_utxo_stats(bk_utxo_stats_export_opts *o);

#endif
