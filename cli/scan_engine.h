/* The CLI side of `blockkit scan` over the library's scan engine
 * (blockkit/scan.h, src/engine/scan.c): the chain from the command's source
 * (cli/source.h), each line written whole to the output with write(2), the
 * engine's notes, progress (cli/progress.h) and failures printed as
 * "blockkit: scan: ..." with the command's exit codes. */
#ifndef BLOCKKIT_CLI_SCAN_ENGINE_H
#define BLOCKKIT_CLI_SCAN_ENGINE_H

#include <stdio.h>
#include <blockkit/blockkit.h>
#include <blockkit/scan.h>

#include "source.h"

/* Run the scan of o (its sink, notes and progress are set here) over the
 * chain src builds, writing to out (named out_path in messages; NULL:
 * standard output). Returns an exit code (cli.h) after printing any error:
 * 0 (also for a closed output pipe), 128 + *o->stop when stopped by a
 * signal (the message names the height to resume from), 64 bad options,
 * 65/66 when the directory holds no block of the network or none connected
 * to a genesis, 65 bad data (a block that does not parse, a merkle mismatch
 * with --verify-merkle, a block without its undo data at verbosity >= 2
 * without --allow-missing-undo), 74 I/O. The lines written before an error
 * are complete. stats (may be NULL) is filled either way. */
int bk_cli_scan_run(bk_scan_opts *o, const bk_cli_source *src, FILE *out, const char *out_path,
                    bk_scan_stats *stats);

#endif
