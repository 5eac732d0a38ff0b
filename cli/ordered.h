/* Parallel rendering with ordered output: N worker threads render jobs
 * 0..njobs-1 into per-slot writers, a window of W slots bounds memory, and
 * the calling thread emits finished slots strictly in job order. */
#ifndef BLOCKKIT_CLI_ORDERED_H
#define BLOCKKIT_CLI_ORDERED_H

#include <signal.h>
#include <stddef.h>
#include <blockkit/stream.h>

/* Render job into w (w is reset before the call). worker is 0..N-1, so
 * the callback can keep per-worker state. Return 0, or an exit code to stop
 * the run (the error message is the callback's to print). */
typedef int (*bk_ordered_render_fn)(void *ctx, size_t job, int worker, bk_writer *w);
/* Emit a finished job's bytes; return 0, or an exit code to stop. */
typedef int (*bk_ordered_emit_fn)(void *ctx, size_t job, const uint8_t *data, size_t len);

typedef struct bk_ordered_opts {
    int workers;                 /* >= 1 */
    size_t window;               /* slots in flight (>= workers) */
    size_t shrink_above;         /* free a slot's buffer after emit when its capacity exceeds this (0 = never) */
    volatile sig_atomic_t *stop; /* set asynchronously (SIGINT): finish the current line and stop */
    const bk_allocator *alloc;   /* slot writers (NULL = default) */
    size_t slot_reserve;         /* reserve this much in a slot's writer before its first render (0 = none) */
} bk_ordered_opts;

/* Returns 0 when all jobs were emitted (or *stop was set), else the first
 * non-zero code from render/emit. peak_slot_bytes_out (may be NULL) gets the
 * largest writer capacity seen. */
int bk_ordered_run(size_t njobs, const bk_ordered_opts *opts, bk_ordered_render_fn render,
                   bk_ordered_emit_fn emit, void *ctx, size_t *peak_slot_bytes_out);

#endif
