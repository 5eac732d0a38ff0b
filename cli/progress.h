/* The one progress printer of the CLI (`scan`, `export`, `export
 * --datasets utxos`): a line on stderr rewritten in place ("\r"), at most
 * four times a second, ended with a newline by bk_cli_progress_end.
 *
 * The ETA is the remaining work at the measured rate: the rate is the
 * complete work over the time it took (measured at the moment that work
 * became complete, not at the moment of printing), so work counted in
 * steps (export's chunks, committed when their files are renamed) gives
 * the time to the projected end, not the time since the last step. It is
 * rounded up to whole seconds: 00:00:00 only when nothing is left.
 *
 * --follow's waiting line (bk_cli_follow_waiting) says what the command
 * waits for: the tip height seen, the next chunk and the height it is due
 * at. */
#ifndef BLOCKKIT_CLI_PROGRESS_H
#define BLOCKKIT_CLI_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct bk_cli_progress {
    int on;
    FILE *f;                    /* stderr */
    double last_print;          /* seconds of the last line (-1: none) */
    uint64_t last_done;         /* work complete at the last update */
    double done_at;             /* seconds at which last_done became complete */
    int printed;                /* a line is on the terminal without its newline */
} bk_cli_progress;

/* A task in flight (export: a chunk being written). */
typedef struct bk_cli_progress_task {
    uint64_t work_done, work_total;     /* read into it so far / of it */
    double seconds;                     /* since its worker began it */
} bk_cli_progress_task;

/* One update. Fields that do not apply are 0 / -1 as said. */
typedef struct bk_cli_progress_line {
    int64_t height;             /* highest height done (-1: none, not shown) */
    const char *items;          /* "blocks", "rows" */
    uint64_t items_done, items_total;   /* items_total 0: unknown (no "/N") */
    uint64_t chunks_done, chunks_total; /* chunks_total 0: no chunk field */
    uint64_t bytes_done;        /* for the MB/s rate (0 with bytes_total 0: no rate) */
    /* The ETA's work: complete units of work_total (0: no ETA). */
    uint64_t work_done, work_total;
    double seconds;             /* since the work started */
    int final;                  /* print now and end the line */
    /* The workers' view (export), used when workers > 0: the ETA is when
     * the workers finish what is left, at the worker time per unit the
     * complete work took (work_seconds / work_done): each task in flight
     * takes its share less its age, the tasks not begun go to the first
     * free worker. Without it (scan: many small tasks) the ETA is the
     * remaining work at the rate work_done / (the time it became done). */
    int workers;
    const bk_cli_progress_task *busy;
    size_t n_busy;
    uint64_t tasks_left;        /* tasks not begun */
    double work_seconds;        /* worker seconds the complete work took */
} bk_cli_progress_line;

/* The line of a run over heights (scan, export, filter), filled once: the
 * highest height done, blocks done of blocks_total, the bytes read (the
 * MB/s rate), and the ETA's work_done of work_total at seconds since the
 * start. Every other field 0: the caller adds its chunks, workers, final. */
bk_cli_progress_line bk_cli_progress_blocks(int64_t height, uint64_t blocks_done, uint64_t blocks_total,
                                            uint64_t bytes_done, uint64_t work_done, uint64_t work_total,
                                            double seconds);

/* Seconds on the monotonic clock (a progress line's `seconds` is a
 * difference of two). */
double bk_cli_progress_now(void);

/* when: 1 always, 0 never, -1 auto (stderr is a terminal). */
void bk_cli_progress_init(bk_cli_progress *p, int when);
/* Print (throttled to 4/s unless final); nothing when there is no work at
 * all (items_total and work_total 0 and nothing done). */
void bk_cli_progress_show(bk_cli_progress *p, const bk_cli_progress_line *l);
/* End a printed line with its newline. */
void bk_cli_progress_end(bk_cli_progress *p);

/* The ETA in seconds (rounded up), or -1 when it cannot be known yet:
 * work_done units complete at done_at seconds, now at seconds. */
int64_t bk_cli_progress_eta(uint64_t work_done, uint64_t work_total, double done_at, double seconds);

/* The workers' ETA of l (see above) in seconds, rounded up, -1 when it
 * cannot be known yet, 0 when all is done. */
int64_t bk_cli_progress_eta_workers(const bk_cli_progress_line *l);

/* "HH:MM:SS" (or "--:--:--" for eta < 0) into buf (at least 16 bytes). */
char *bk_cli_progress_hms(char *buf, size_t cap, int64_t eta);

/* --follow between looks: "<cmd>: waiting: tip at height T; the next chunk
 * (heights A-B) is due when the tip reaches height D (N more blocks);
 * next look in S s" into buf. tip -1: no block yet. */
char *bk_cli_follow_waiting(char *buf, size_t cap, const char *cmd, int64_t tip, int64_t first, int64_t last,
                            int64_t due, int64_t poll_s);

#endif
