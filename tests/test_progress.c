/* The CLI's progress printer (cli/progress.c, compiled in here): its ETA
 * against simulated runs whose true end is known, and its lines.
 *
 * - An export-like run: chunks of unequal size on two workers, each read
 *   block by block and then finished (encoded, compressed, renamed) for a
 *   while before it counts as written, durations jittered by a few per
 *   cent. Over the last 10 s the workers' ETA is within 1 s of the true
 *   time left (the old estimate, block bytes read at the rate read, is
 *   shown to miss by more: it says about 1 s while the last chunk still
 *   takes several).
 * - A scan-like run: many small blocks, each counted when written: the
 *   rate ETA is within 1 s of the end over its last 10 s, and 00:00:00
 *   only when all is done.
 * - No line at all for a run with nothing to do (export --follow on a
 *   chain shorter than a chunk printed "height -1  0/0 blocks ..."), and
 *   the --follow waiting line.
 * - The line of scan, export and filter filled by its one helper
 *   (bk_cli_progress_blocks): the same text. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include "../cli/progress.c"

#include <math.h>
#include <stdlib.h>

/* Deterministic jitter in [-1, 1]. */
static double jitter(uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (double)(x % 2001) / 1000.0 - 1.0;
}

enum { NCHUNK = 15, NWORKER = 2 };

typedef struct sim_chunk {
    uint64_t bytes;
    double start, read_end, commit; /* seconds */
} sim_chunk;

static void test_export_eta(void)
{
    sim_chunk ch[NCHUNK];
    double free_at[NWORKER] = {0, 0};
    uint64_t total = 0;
    for (int i = 0; i < NCHUNK; i++) {
        ch[i].bytes = (uint64_t)(10e6 * (1.0 + 0.2 * jitter((uint64_t)i)));
        total += ch[i].bytes;
        int w = free_at[1] < free_at[0];
        double read = (double)ch[i].bytes / 1e6 * (1.0 + 0.03 * jitter(100 + (uint64_t)i)); /* 1 s per MB */
        double fin = (double)ch[i].bytes / 1e6 * 0.6 * (1.0 + 0.03 * jitter(200 + (uint64_t)i));
        ch[i].start = free_at[w];
        ch[i].read_end = ch[i].start + read;
        ch[i].commit = ch[i].read_end + fin;
        free_at[w] = ch[i].commit;
    }
    double end = free_at[0] > free_at[1] ? free_at[0] : free_at[1];
    int checked = 0, bad = 0, old_bad = 0;
    for (double t = 0.25; t < end; t += 0.25) {
        bk_cli_progress_task busy[NWORKER];
        bk_cli_progress_line l;
        memset(&l, 0, sizeof l);
        l.work_total = total;
        l.workers = NWORKER;
        l.busy = busy;
        l.seconds = t;
        uint64_t read_bytes = 0;
        for (int i = 0; i < NCHUNK; i++) {
            const sim_chunk *c = &ch[i];
            double frac = t <= c->start ? 0 : t >= c->read_end ? 1 : (t - c->start) / (c->read_end - c->start);
            read_bytes += (uint64_t)(frac * (double)c->bytes);
            if (c->commit <= t) {
                l.work_done += c->bytes;
                l.work_seconds += c->commit - c->start;
            } else if (c->start <= t) {
                busy[l.n_busy].work_total = c->bytes;
                busy[l.n_busy].work_done = (uint64_t)(frac * (double)c->bytes);
                busy[l.n_busy].seconds = t - c->start;
                l.n_busy++;
            } else {
                l.tasks_left++;
            }
        }
        double truth = end - t;
        int64_t eta = bk_cli_progress_eta_workers(&l);
        /* the old estimate: block bytes read, at the rate they were read */
        double old = read_bytes ? (double)(total - read_bytes) / ((double)read_bytes / t) : 0;
        if (truth <= 10) {
            checked++;
            if (eta < 0 || fabs((double)eta - truth) > 1.0) {
                if (bad++ < 3) fprintf(stderr, "t %.2f: ETA %lld, %.2f s left\n", t, (long long)eta, truth);
            }
            if (fabs(old - truth) > 2.0) old_bad++;
        }
    }
    CHECK(checked >= 39);
    CHECK_EQ_INT(bad, 0);
    CHECK(old_bad > 0); /* the test tells the two apart */
    /* all done: 0 */
    bk_cli_progress_line l;
    memset(&l, 0, sizeof l);
    l.work_total = l.work_done = total;
    l.workers = NWORKER;
    CHECK_EQ_INT(bk_cli_progress_eta_workers(&l), 0);
    /* nothing complete and nothing read: not known */
    l.work_done = 0;
    CHECK_EQ_INT(bk_cli_progress_eta_workers(&l), -1);
}

static void test_scan_eta(void)
{
    enum { N = 3000 };
    double at[N];
    uint64_t size[N], total = 0;
    double t = 0;
    for (int i = 0; i < N; i++) {
        size[i] = 100000 + (uint64_t)(90000 * jitter(300 + (uint64_t)i));
        total += size[i];
        t += (double)size[i] / 5e6 * (1.0 + 0.1 * jitter(400 + (uint64_t)i)); /* about 5 MB/s */
        at[i] = t;
    }
    double end = t;
    bk_cli_progress p;
    bk_cli_progress_init(&p, 0);
    uint64_t done = 0;
    int bad = 0, checked = 0, zero_early = 0;
    for (int i = 0; i < N; i++) {
        done += size[i];
        bk_cli_progress_line l;
        memset(&l, 0, sizeof l);
        l.work_done = done;
        l.work_total = total;
        l.seconds = at[i];
        bk_cli_progress_show(&p, &l); /* off: only tracks when the work became done */
        /* printed a little later than the line was written */
        double now = at[i] + 0.01;
        int64_t eta = bk_cli_progress_eta(p.last_done, total, p.done_at, now);
        double truth = end - now;
        if (eta == 0 && i + 1 < N) zero_early++;
        if (truth <= 10 && truth > 0) {
            checked++;
            if (fabs((double)eta - truth) > 1.0) bad++;
        }
    }
    CHECK(checked > 100);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(zero_early, 0);
    CHECK_EQ_INT(bk_cli_progress_eta(total, total, end, end), 0);
}

static size_t file_text(FILE *f, char *buf, size_t cap)
{
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    return n;
}

static void test_lines(void)
{
    char buf[1024];
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    bk_cli_progress p;
    bk_cli_progress_init(&p, 1);
    p.f = f;
    /* nothing to do: no line, and no newline at the end */
    bk_cli_progress_line l;
    memset(&l, 0, sizeof l);
    l.height = -1;
    l.items = "blocks";
    l.chunks_total = 0;
    l.final = 1;
    bk_cli_progress_show(&p, &l);
    bk_cli_progress_end(&p);
    CHECK_EQ_INT(file_text(f, buf, sizeof buf), 0);

    /* a line, throttled to 4 per second, then the final one with its newline
     * (filled by the one helper of scan, export and filter) */
    l = bk_cli_progress_blocks(9, 10, 20, 1000000, 1000000, 2000000, 2.0);
    CHECK_EQ_STR(l.items, "blocks");
    CHECK(l.chunks_total == 0 && l.workers == 0 && l.final == 0 && l.busy == NULL);
    bk_cli_progress_show(&p, &l);
    l.seconds = 2.1; /* within 0.25 s: not printed */
    l.items_done = 11;
    bk_cli_progress_show(&p, &l);
    file_text(f, buf, sizeof buf);
    CHECK_EQ_STR(buf, "\rheight 9  10/20 blocks  5.0 blocks/s  0.5 MB/s  ETA 00:00:02 ");
    l.items_done = 20;
    l.work_done = 2000000;
    l.seconds = 4.0;
    l.height = 19;
    l.final = 1;
    bk_cli_progress_show(&p, &l);
    file_text(f, buf, sizeof buf);
    CHECK_EQ_STR(buf, "\rheight 9  10/20 blocks  5.0 blocks/s  0.5 MB/s  ETA 00:00:02 "
                      "\rheight 19  20/20 blocks  5.0 blocks/s  0.2 MB/s  ETA 00:00:00 \n");
    fclose(f);

    CHECK_EQ_STR(bk_cli_progress_hms(buf, sizeof buf, 3725), "01:02:05");
    CHECK_EQ_STR(bk_cli_progress_hms(buf, sizeof buf, -1), "--:--:--");

    /* --follow: chain 0..939, chunks of 10000, --lag 6 */
    bk_cli_follow_waiting(buf, sizeof buf, "export", 939, 0, 9999, 10005, 30);
    CHECK_EQ_STR(buf, "blockkit: export: waiting: tip at height 939; the next chunk (heights 0-9999) is due when "
                      "the tip reaches height 10005 (9066 more blocks); next look in 30 s");
    bk_cli_follow_waiting(buf, sizeof buf, "export", 1004, 0, 999, 1005, 5);
    CHECK(strstr(buf, "(1 more block); next look in 5 s") != NULL);
}

int main(void)
{
    RUN(test_export_eta);
    RUN(test_scan_eta);
    RUN(test_lines);
    return check_finish();
}
