/* blockkit export --datasets utxo_stats (cli/export_utxo_stats.c). */
#ifndef BLOCKKIT_CLI_EXPORT_UTXO_STATS_H
#define BLOCKKIT_CLI_EXPORT_UTXO_STATS_H

#include <blockkit/blockkit.h>
#include <blockkit/parquet.h>

typedef struct bk_cli_export_utxo_stats_args {
    const char *datadir;   /* resolved (bk_cli_source_resolve) */
    const char *blocksdir; /* the blk*.dat directory */
    const char *tmpdir;
    bk_network net;
    const char *out_dir;
    int format;            /* bk_table_format */
    bk_pq_opts pq;
    int64_t start, end, below_tip; /* end, below_tip: -1 when not given */
    int workers;
} bk_cli_export_utxo_stats_args;

/* Returns the exit code (messages printed). */
int bk_cli_export_utxo_stats(const bk_cli_export_utxo_stats_args *a);

#endif
