/* Benchmark registry: benches register themselves at start-up (bench.h). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BK_BENCH_MAX 256
const bk_bench *bk_bench_table[BK_BENCH_MAX];
size_t bk_bench_count;

void bk_bench_register(const bk_bench *b)
{
    if (bk_bench_count < BK_BENCH_MAX) bk_bench_table[bk_bench_count++] = b;
}

#ifndef BK_SOURCE_DIR
#define BK_SOURCE_DIR "."
#endif

int bk_bench_data_path(char *buf, size_t cap, const char *name)
{
    const char *env = getenv("BLOCKKIT_DATA");
    const char *dirs[3] = {env, BK_SOURCE_DIR "/data", BK_SOURCE_DIR "/tests/data"};
    for (int i = 0; i < 3; i++) {
        if (!dirs[i]) continue;
        snprintf(buf, cap, "%s/%s", dirs[i], name);
        if (access(buf, R_OK) == 0) return 0;
    }
    return -1;
}

uint8_t *bk_bench_load(const char *name, size_t want, const bk_allocator *alloc)
{
    char path[4096];
    if (bk_bench_data_path(path, sizeof path, name) != 0) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *p = bk_alloc(alloc, want + 1);
    size_t n = p ? fread(p, 1, want + 1, f) : 0;
    fclose(f);
    if (n != want) {
        bk_free(alloc, p, want + 1);
        return NULL;
    }
    return p;
}
