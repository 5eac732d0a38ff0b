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
#include <stdio.h>

/* Where the coins come from (command-line options, NULL = not given). */
typedef struct utxo_source_opts {
    const char *datadir, *snapshot, *chain;
    int32_t height;     /* --height (its option row's bounds), -1 = not given */
    const char *tmpdir;
    /* the best block's height is not needed: a snapshot without --height or
     * --datadir, or a datadir without a block index, leaves it -1 */
    int height_optional;
    /* --datadir only: the set at this height, the chainstate rolled back
     * with the undo data of the blocks above it (bk_utxo_rollback); its
     * blk/rev files in blocksdir (the resolved blk directory); -1 = not given */
    int32_t at_height;
    const char *blocksdir;
} utxo_source_opts;

/* A stream of coins from either source, in key order: the library's
 * (blockkit/utxo.h). */
typedef bk_utxo_source coin_source;

/* The library's source options from the command line's (0, or 64 with
 * the message printed: a bad --chain). */
int utxo_source_opts_lib(const char *cmd, const utxo_source_opts *o, bk_utxo_source_opts *out);
/* A source error as its exit code, printed: missing 66, not matching 65,
 * usage 64 (each its message as it is), else as bk_cli_report. */
int utxo_source_fail(const char *cmd, const bk_error *err);
/* Returns 0 or an exit code (message printed). */
int utxo_source_open(const char *cmd, const utxo_source_opts *o, coin_source *s);
static inline int utxo_source_next(coin_source *s, bk_utxo *u) { return bk_utxo_source_next(s, u); }
static inline bk_status utxo_source_status(coin_source *s, bk_error *err) { return bk_utxo_source_status(s, err); }
static inline void utxo_source_close(coin_source *s) { bk_utxo_source_close(s); }

/* bk_utxo_rows_run (blockkit/utxo.h: the library's engine) over src, with
 * exit codes: emit writes a batch and returns 0, or an exit code after
 * printing its message. threads >= 2 renders on that many worker threads
 * (at most threads + 2 batches exist); 1 renders inline. Stops early at
 * *stop (returning 0). Returns 0 or an exit code (source errors reported
 * here). */
typedef int (*utxo_emit_fn)(void *ctx, const bk_utxo_batch *b);
int utxo_rows_run(const char *cmd, coin_source *src, bk_table_profile profile, unsigned threads, utxo_emit_fn emit,
                  void *ctx, const volatile sig_atomic_t *stop);

/* `blockkit export` with --datasets utxos (cli/export_utxos.c), its
 * options parsed by cli/export.c's table; returns the exit code. */
typedef struct bk_cli_export_utxos_args {
    utxo_source_opts source;
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

/* SIGINT, SIGTERM and SIGHUP for both exports and utxo dump -o
 * (cli/export.c, on the one helper of cli.h): catch sets the returned flag
 * (cleared first) to the signal's number until restore puts the previous
 * handlers back. */
typedef struct export_signals {
    bk_cli_stop_saved saved;
} export_signals;
volatile sig_atomic_t *export_signals_catch(export_signals *s);
void export_signals_restore(const export_signals *s);

#endif
