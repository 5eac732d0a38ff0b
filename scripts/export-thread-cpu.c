/* The j2/j1 figure of docs/engine.md on a machine whose cores are shared:
 * whole exports of the Export bench directory (chunks of 10 blocks, all
 * four tables, Parquet with zstd) with -j1 and -j2 in turn, each reporting
 * its wall time, its process CPU time, and every thread's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID at the thread's end, through a wrapped
 * pthread_create). On two free cores -j2 takes about the calling thread's
 * time plus its busiest worker's, so j1 CPU / (main + busiest worker) is
 * the j2/j1 the work allows, whatever else runs on the machine.
 *
 *   BLOCKKIT_BENCH_SCAN_DIR=/tmp/bench-dir build/blockkit bench --filter 'Scan/sample/v3/j1$' --epochs 1
 *   cc -O2 -Iinclude scripts/export-thread-cpu.c build/libblockkit.a -o /tmp/etc \
 *      -Wl,--wrap=pthread_create -lsecp256k1 -lleveldb -lzstd -lsnappy -lgmp -lpthread -lm
 *   /tmp/etc /tmp/bench-dir 3 [parquet|csv]
 */
#define _GNU_SOURCE
#include <blockkit/export.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* ---- per-thread CPU through --wrap=pthread_create ---- */

int __real_pthread_create(pthread_t *th, const pthread_attr_t *at, void *(*f)(void *), void *a);
int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *at, void *(*f)(void *), void *a);

static double thread_cpu[256];
static int n_threads;
static pthread_mutex_t tmu = PTHREAD_MUTEX_INITIALIZER;

typedef struct tramp {
    void *(*f)(void *);
    void *a;
} tramp;

static void *run_thread(void *p)
{
    tramp t = *(tramp *)p;
    free(p);
    void *r = t.f(t.a);
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    pthread_mutex_lock(&tmu);
    if (n_threads < 256) thread_cpu[n_threads++] = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    pthread_mutex_unlock(&tmu);
    return r;
}

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *at, void *(*f)(void *), void *a)
{
    tramp *t = malloc(sizeof *t);
    if (!t) return -1;
    t->f = f;
    t->a = a;
    return __real_pthread_create(th, at, run_thread, t);
}

static double secs(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double process_cpu(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s BENCH-BLOCKS-DIR REPS [parquet|csv]\n", argv[0]);
        return 64;
    }
    const char *dir = argv[1];
    int reps = atoi(argv[2]);
    int csv = argc > 3 && !strcmp(argv[3], "csv");
    char out[4096];
    const char *t = getenv("TMPDIR");
    for (int r = 0; r < reps; r++) {
        for (int j = 1; j <= 2; j++) {
            snprintf(out, sizeof out, "%s/export-thread-cpu-%d-%d-%d", t && *t ? t : "/tmp", (int)getpid(), r, j);
            bk_export_opts o;
            bk_export_opts_init(&o);
            o.blocksdir = dir;
            o.out_dir = out;
            o.chunk_size = 10;
            o.workers = j;
            o.format = csv ? BK_TABLE_CSV : BK_TABLE_PARQUET;
            bk_export_stats st;
            bk_error err;
            n_threads = 0;
            double m0 = secs(CLOCK_THREAD_CPUTIME_ID), w0 = secs(CLOCK_MONOTONIC), c0 = process_cpu();
            if (bk_export_run(&o, &st, &err) != BK_OK) {
                fprintf(stderr, "export failed: %s\n", err.msg);
                return 1;
            }
            double wall = secs(CLOCK_MONOTONIC) - w0, cpu = process_cpu() - c0, main_cpu = secs(CLOCK_THREAD_CPUTIME_ID) - m0;
            double mx = 0, sum = 0;
            for (int i = 0; i < n_threads; i++) {
                sum += thread_cpu[i];
                if (thread_cpu[i] > mx) mx = thread_cpu[i];
            }
            printf("rep %d -j%d: wall %.3f s, process CPU %.3f s, calling thread %.3f s, %d worker(s) %.3f s, "
                   "busiest %.3f s, %.1f MB/s wall, %llu blocks\n",
                   r, j, wall, cpu, main_cpu, n_threads, sum, mx, (double)st.bytes_in / 1e6 / wall,
                   (unsigned long long)st.blocks);
            fflush(stdout);
            char cmd[4200];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
            if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", out);
        }
    }
    return 0;
}
