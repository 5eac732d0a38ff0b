/* The bench blocks directory shared by the rows that read a whole node
 * directory (the Export and Filters rows): the one bench_scan.c generates (150
 * blocks, 217 MB, XOR-obfuscated, real undo data), made through the
 * Scan/sample/v3/j1 row's own setup so there is one generator. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void bk_bench_rm_tree(const char *p)
{
    struct stat sb;
    if (lstat(p, &sb) != 0) return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(p);
        if (d) {
            struct dirent *e;
            char q[8300];
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                snprintf(q, sizeof q, "%s/%s", p, e->d_name);
                bk_bench_rm_tree(q);
            }
            closedir(d);
        }
        rmdir(p);
    } else {
        unlink(p);
    }
}

static const bk_bench *scan_bench(void)
{
    for (size_t i = 0; i < bk_bench_count; i++)
        if (!strcmp(bk_bench_table[i]->name, "Scan/sample/v3/j1")) return bk_bench_table[i];
    return NULL;
}

int bk_bench_tmpdir(char *dir, size_t cap, const char *name)
{
    const char *t = getenv("TMPDIR");
    /* the six X are mkdtemp(3)'s template, replaced by the call */
    int n = snprintf(dir, cap, "%s/blockkit-bench-%s-XXXXXX", t && *t ? t : "/tmp", name);
    if (n < 0 || (size_t)n >= cap || !mkdtemp(dir)) {
        if (cap) dir[0] = 0;
        return 1;
    }
    return 0;
}

int bk_bench_sample_dir(char *dir, size_t cap, int *keep, const bk_allocator *alloc)
{
    const bk_bench *sb = scan_bench();
    if (!sb) return 1;
    const char *k = getenv("BLOCKKIT_BENCH_SCAN_DIR");
    *keep = 0;
    if (k && *k) {
        *keep = 1;
        snprintf(dir, cap, "%s", k);
    } else {
        if (bk_bench_tmpdir(dir, cap, "sample")) return 1;
        rmdir(dir); /* the Scan setup creates and fills it */
        setenv("BLOCKKIT_BENCH_SCAN_DIR", dir, 1);
    }
    void *sctx = NULL;
    int rc = sb->setup(&sctx, sb->arg, alloc);
    if (rc == 0) sb->teardown(sctx, alloc); /* keeps the directory */
    if (!*keep) unsetenv("BLOCKKIT_BENCH_SCAN_DIR");
    return rc;
}

void bk_bench_widen(bk_bench_affinity *a, int workers)
{
    _Static_assert(sizeof(cpu_set_t) <= sizeof a->saved, "cpu_set_t fits");
    a->widened = 0;
    cpu_set_t pinned, all;
    if (workers <= 1 || sched_getaffinity(0, sizeof pinned, &pinned) != 0) return;
    memcpy(a->saved, &pinned, sizeof pinned);
    CPU_ZERO(&all);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++) CPU_SET((int)c, &all);
    a->widened = sched_setaffinity(0, sizeof all, &all) == 0;
}

void bk_bench_unwiden(const bk_bench_affinity *a)
{
    if (!a->widened) return;
    cpu_set_t pinned;
    memcpy(&pinned, a->saved, sizeof pinned);
    sched_setaffinity(0, sizeof pinned, &pinned);
}
