/* The engine of `blockkit scan`: a Bitcoin Core blocks directory rendered as
 * getblock JSON, one object per line in height order, by N worker threads
 * (the library's block engine, blockkit/engine.h). Shared by cli/scan.c and
 * bench/bench_scan.c. */
#ifndef BLOCKKIT_CLI_SCAN_ENGINE_H
#define BLOCKKIT_CLI_SCAN_ENGINE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <blockkit/blockkit.h>

#include "source.h"

typedef enum bk_scan_progress {
    BK_SCAN_PROGRESS_NEVER = 0,
    BK_SCAN_PROGRESS_ALWAYS,
    BK_SCAN_PROGRESS_AUTO       /* when stderr is a terminal */
} bk_scan_progress;

typedef struct bk_scan_opts {
    const char *blocksdir;      /* the blocks directory itself */
    const bk_cli_source *src;   /* where the chain comes from (cli/source.h); NULL = header scan of blocksdir */
    bk_network net;
    int64_t start;              /* first height (default 0) */
    /* --resume: the output already ends with this block (internal byte
     * order): the scan continues at its height + 1, after checking that it
     * is on the best chain and that an explicit start (start_given) agrees. */
    const uint8_t *resume_after;
    int start_given;            /* --start was given (with --resume it must agree; below a
                                   pruned range it is an error) */
    int64_t end;                /* last height, -1 = the tip */
    int64_t end_below_tip;      /* >= 0: the last height is the tip's minus this (--end -N); overrides end */
    int verbosity;              /* 0..3 */
    int core_version;           /* BK_CORE_MIN..BK_CORE_NEWEST */
    int indent;                 /* 0 = NDJSON; 2 = bitcoin-cli's pretty form */
    int workers;                /* >= 1 */
    size_t max_memory;          /* bytes; bounds window x per-slot estimate */
    int verify_merkle;
    int allow_missing_undo;
    int orphans;                /* also blocks whose ancestors are missing (by BIP34 height) */
    int fees;                   /* sum fees into the stats (a second walk over the undo data) */
    int quiet;                  /* no notes on stderr (errors are still printed) */
    bk_scan_progress progress;
    FILE *out;
    const char *out_path;       /* the output's name in messages (NULL: standard output) */
    /* Set asynchronously to the number of the signal that asks to stop:
     * the chain build is cancelled (bk_chain_opts.cancel), the render
     * finishes the current line; then the exit status is 128 + *stop. */
    volatile sig_atomic_t *stop;
    const bk_allocator *alloc;  /* worker buffers (NULL = default) */
} bk_scan_opts;

typedef struct bk_scan_stats {
    uint64_t blocks;            /* lines written */
    uint64_t txs;
    uint64_t bytes_in;          /* block bytes rendered */
    uint64_t bytes_out;         /* JSON bytes written */
    int64_t fees;               /* sum over blocks rendered with undo */
    uint64_t blocks_with_undo;
    uint64_t missing_undo;      /* rendered without undo (--allow-missing-undo) */
    int64_t first_height, last_height;
    int64_t resume_height;      /* where to continue with --start (-1: finished) */
    double seconds;             /* render + write (after the chain was built) */
    double chain_seconds;       /* building the chain */
    int workers;
    size_t window;
    size_t peak_slot_bytes;
} bk_scan_stats;

/* Defaults: main, heights 0..tip, verbosity 1, newest Core, 1 worker,
 * 1024 MB, progress never, standard output. */
void bk_scan_opts_init(bk_scan_opts *o);

/* Run the scan. Returns an exit code (cli.h) after printing
 * "blockkit: scan: ..." on stderr for any error: 0 (also for a closed
 * output pipe), 128 + *stop when stopped by a signal (the message names the
 * height to resume from), 64 bad options, 65/66 when the directory holds no
 * block of the network or none connected to a genesis (the message says
 * what was found), 65 bad data (a block that does not
 * parse, a merkle mismatch with --verify-merkle, a block without its undo
 * data at verbosity >= 2 without --allow-missing-undo), 74 I/O. The lines
 * written before an error are complete. stats (may be NULL) is filled
 * either way. */
int bk_scan_run(const bk_scan_opts *o, bk_scan_stats *stats);

#endif
