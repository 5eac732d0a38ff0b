/* The UTXO set's coin sources and its rows, shared by `blockkit utxo` and
 * `blockkit export --datasets utxos` (one implementation of both). */
#ifndef BLOCKKIT_CLI_UTXO_ROWS_H
#define BLOCKKIT_CLI_UTXO_ROWS_H

#include <blockkit/blockfile.h>
#include <blockkit/chain.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include <signal.h>

#include "cli.h"
#include "source.h"
#include <stdio.h>

/* The library's source options (blockkit/utxo_source.h) from the command
 * line: src's --datadir (resolved: its network given), --chain, --tmpdir,
 * and snapshot (--utxo-snapshot, NULL: none); height (-1: not given) is a
 * snapshot's base block height, or with --datadir alone the height the
 * chainstate's best block is said to be at, or (at_height, the dump and
 * the export) the set at that height, rolled back with src's blocks. */
void utxo_source_opts_from(bk_utxo_source_opts *so, const bk_cli_source *src, const char *snapshot, int64_t height,
                           int at_height);
/* A source error as its exit code, printed: missing 66, not matching 65,
 * usage 64 (each its message as it is), else as bk_cli_report. */
int utxo_source_fail(const char *cmd, const bk_error *err);
/* bk_utxo_source_open: 0 or an exit code (message printed). */
int utxo_source_open(const char *cmd, const bk_utxo_source_opts *o, bk_utxo_source *s);

/* bk_utxo_rows_run (blockkit/utxo.h: the library's engine) over src, with
 * exit codes: emit writes a batch and returns 0, or an exit code after
 * printing its message. threads >= 2 renders on that many worker threads
 * (at most threads + 2 batches exist); 1 renders inline. Stops early at
 * *stop (returning 0). Returns 0 or an exit code (source errors reported
 * here). */
typedef int (*utxo_emit_fn)(void *ctx, const bk_utxo_batch *b);
int utxo_rows_run(const char *cmd, bk_utxo_source *src, bk_table_profile profile, unsigned threads, utxo_emit_fn emit,
                  void *ctx, const volatile sig_atomic_t *stop);

/* `blockkit export` with --datasets utxos (cli/export_utxos.c), its
 * options parsed by cli/export.c's table; returns the exit code. */
typedef struct bk_cli_export_utxos_args {
    bk_utxo_source_opts source;
    const char *out_dir;
    int format;        /* bk_table_format */
    int codec;         /* bk_pq_codec */
    int zstd_level;
    int profile;       /* bk_table_profile */
    uint64_t chunk_rows;
    unsigned threads;
    int summary;
    int progress;      /* 1 on, 0 off */
} bk_cli_export_utxos_args;
int bk_cli_export_utxos(const bk_cli_export_utxos_args *args);

#endif
