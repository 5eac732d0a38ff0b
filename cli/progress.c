/* The CLI's progress printer (progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

void bk_cli_progress_init(bk_cli_progress *p, int when)
{
    memset(p, 0, sizeof *p);
    p->f = stderr;
    p->on = when < 0 ? isatty(STDERR_FILENO) : when != 0;
    p->last_print = -1;
}

double bk_cli_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

bk_cli_progress_line bk_cli_progress_blocks(int64_t height, uint64_t blocks_done, uint64_t blocks_total,
                                            uint64_t bytes_done, uint64_t work_done, uint64_t work_total,
                                            double seconds)
{
    bk_cli_progress_line l = {.height = height, .items = "blocks", .items_done = blocks_done,
                              .items_total = blocks_total, .bytes_done = bytes_done, .work_done = work_done,
                              .work_total = work_total, .seconds = seconds};
    return l;
}

static int64_t round_up(double left)
{
    if (left <= 0) return 1; /* overdue but not done: not 0 */
    if (left > 359999) return 359999;
    int64_t r = (int64_t)left;
    return r + ((double)r < left);
}

int64_t bk_cli_progress_eta(uint64_t work_done, uint64_t work_total, double done_at, double seconds)
{
    if (work_total == 0 || work_done == 0 || done_at <= 0) return work_done >= work_total && work_total ? 0 : -1;
    if (work_done >= work_total) return 0;
    /* rate = work_done / done_at; the end is projected from there */
    double end = done_at * ((double)work_total / (double)work_done);
    return round_up(end - seconds);
}

int64_t bk_cli_progress_eta_workers(const bk_cli_progress_line *l)
{
    if (l->work_total == 0) return -1;
    if (l->work_done >= l->work_total) return 0;
    uint64_t left = l->work_total - l->work_done;
    /* worker seconds per unit: from the complete work; before any is
     * complete, from what the tasks in flight have read (no finishing
     * time in it: a low first guess) */
    double cost = -1;
    if (l->work_done && l->work_seconds > 0) {
        cost = l->work_seconds / (double)l->work_done;
    } else {
        double s = 0, d = 0;
        for (size_t i = 0; i < l->n_busy; i++) {
            s += l->busy[i].seconds;
            d += (double)l->busy[i].work_done;
        }
        if (d > 0 && s > 0) cost = s / d;
    }
    if (cost <= 0) return -1;
    enum { MAXW = 256 };
    double free_at[MAXW];
    int w = l->workers < 1 ? 1 : l->workers > MAXW ? MAXW : l->workers;
    for (int i = 0; i < w; i++) free_at[i] = 0;
    uint64_t in_flight = 0;
    for (size_t i = 0; i < l->n_busy && i < (size_t)w; i++) {
        const bk_cli_progress_task *t = &l->busy[i];
        double rem = (double)t->work_total * cost - t->seconds;
        if (rem < 0) rem = 0; /* slower than the others: its end is near, not known */
        free_at[i] = rem;
        in_flight += t->work_total;
    }
    uint64_t unstarted = left > in_flight ? left - in_flight : 0;
    uint64_t k = l->tasks_left;
    if (unstarted && !k) k = 1;
    if (k) {
        double each = (double)unstarted / (double)k * cost;
        if (k <= 4096) {
            for (uint64_t j = 0; j < k; j++) {
                int m = 0;
                for (int i = 1; i < w; i++)
                    if (free_at[i] < free_at[m]) m = i;
                free_at[m] += each;
            }
        } else {
            /* many small tasks: they level the workers */
            double sum = 0;
            for (int i = 0; i < w; i++) sum += free_at[i];
            double level = (sum + (double)k * each) / w;
            for (int i = 0; i < w; i++)
                if (free_at[i] < level) free_at[i] = level;
        }
    }
    double end = 0;
    for (int i = 0; i < w; i++)
        if (free_at[i] > end) end = free_at[i];
    return round_up(end);
}

char *bk_cli_progress_hms(char *buf, size_t cap, int64_t eta)
{
    if (eta < 0) snprintf(buf, cap, "--:--:--");
    else snprintf(buf, cap, "%02d:%02d:%02d", (int)(eta / 3600), (int)(eta / 60 % 60), (int)(eta % 60));
    return buf;
}

void bk_cli_progress_show(bk_cli_progress *p, const bk_cli_progress_line *l)
{
    if (l->work_done != p->last_done || p->done_at <= 0) {
        if (l->work_done != p->last_done) {
            p->last_done = l->work_done;
            p->done_at = l->seconds;
        }
    }
    if (!p->on) return;
    if (!l->items_total && !l->work_total && !l->items_done) return; /* nothing to do: no empty line */
    if (!l->final && p->last_print >= 0 && l->seconds - p->last_print < 0.25) return;
    p->last_print = l->seconds;
    char line[256];
    size_t n = 0;
#define ADD(...)                                                                                            \
    do {                                                                                                    \
        int k_ = snprintf(line + n, sizeof line - n, __VA_ARGS__);                                          \
        if (k_ > 0) n += (size_t)k_ < sizeof line - n ? (size_t)k_ : sizeof line - n - 1;                   \
    } while (0)
    if (l->height >= 0) ADD("height %lld  ", (long long)l->height);
    ADD("%llu", (unsigned long long)l->items_done);
    if (l->items_total) ADD("/%llu", (unsigned long long)l->items_total);
    ADD(" %s", l->items ? l->items : "items");
    if (l->chunks_total) ADD("  %llu/%llu chunks", (unsigned long long)l->chunks_done,
                             (unsigned long long)l->chunks_total);
    double s = l->seconds;
    ADD("  %.1f %s/s", s > 0 ? (double)l->items_done / s : 0.0, l->items ? l->items : "items");
    if (l->bytes_done) ADD("  %.1f MB/s", s > 0 ? (double)l->bytes_done / 1e6 / s : 0.0);
    if (l->work_total) {
        char hms[16];
        int64_t eta = l->workers > 0 ? bk_cli_progress_eta_workers(l)
                                     : bk_cli_progress_eta(p->last_done, l->work_total, p->done_at, s);
        ADD("  ETA %s", bk_cli_progress_hms(hms, sizeof hms, eta));
    }
#undef ADD
    fprintf(p->f, "\r%s ", line);
    p->printed = 1;
    if (l->final) bk_cli_progress_end(p);
    fflush(p->f);
}

void bk_cli_progress_end(bk_cli_progress *p)
{
    if (p->printed) {
        fputc('\n', p->f);
        fflush(p->f);
    }
    p->printed = 0;
    p->last_print = -1;
    p->last_done = 0;
    p->done_at = 0;
}

char *bk_cli_follow_waiting(char *buf, size_t cap, const char *cmd, int64_t tip, int64_t first, int64_t last,
                            int64_t due, int64_t poll_s)
{
    char tipbuf[48];
    if (tip < 0) snprintf(tipbuf, sizeof tipbuf, "no block yet");
    else snprintf(tipbuf, sizeof tipbuf, "tip at height %lld", (long long)tip);
    snprintf(buf, cap,
             "blockkit: %s: waiting: %s; the next chunk (heights %lld-%lld) is due when the tip reaches height "
             "%lld (%lld more block%s); next look in %lld s",
             cmd, tipbuf, (long long)first, (long long)last, (long long)due, (long long)(due - tip),
             due - tip == 1 ? "" : "s", (long long)poll_s);
    return buf;
}
