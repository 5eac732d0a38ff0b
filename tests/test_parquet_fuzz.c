/* Files made by the fuzz target's generator (fuzz/fuzz_parquet_gen.h) from
 * fixed pseudo-random inputs and from its seed corpus, read back by DuckDB,
 * hyparquet and parquet-wasm (tests/export/check_parquet.mjs), which must
 * give exactly the values the generator gave the writer. */
#include "check.h"

#include "../fuzz/fuzz_parquet_gen.h"

#include <dirent.h>
#include <unistd.h>

static char cmdline[200000];
static size_t cmdlen;

/* Write one file and its expected rows; queue them for the readers. */
static int one(const char *dir, const char *name, const uint8_t *data, size_t size)
{
    char pq[4200], ex[4200];
    snprintf(pq, sizeof pq, "%s/%s.parquet", dir, name);
    snprintf(ex, sizeof ex, "%s/%s.ndjson", dir, name);
    FILE *e = fopen(ex, "wb");
    if (!e) return 0;
    pqgen_mem m = {0};
    uint64_t rows = 0;
    bk_status st = pqgen_run(data, size, &m, e, &rows, NULL);
    CHECK(st == BK_OK);
    CHECK(fclose(e) == 0);
    FILE *f = fopen(pq, "wb");
    CHECK(f && fwrite(m.p, 1, m.n, f) == m.n && fclose(f) == 0);
    free(m.p);
    int n = snprintf(cmdline + cmdlen, sizeof cmdline - cmdlen, " %s %s", ex, pq);
    if (n < 0 || (size_t)n >= sizeof cmdline - cmdlen) return 0;
    cmdlen += (size_t)n;
    return 1;
}

int main(void)
{
    char tmpl[4096];
    const char *t = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/bk-pqfuzz-XXXXXX", t && *t ? t : "/tmp");
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    if (!dir) return check_finish();
    int ok = 1;
    cmdlen = (size_t)snprintf(cmdline, sizeof cmdline, "node %s/../export/check_parquet.mjs --pairs", BK_TEST_DATA);
    uint64_t x = 0x243f6a8885a308d3ull;
    static uint8_t buf[8192];
    for (int k = 0; k < 10; k++) {
        size_t n = 64 + (size_t)(x % 8000);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        char name[32];
        snprintf(name, sizeof name, "rand%d", k);
        ok &= one(dir, name, buf, n);
    }
    char cdir[2048];
    snprintf(cdir, sizeof cdir, "%s/../../fuzz/corpus/fuzz_parquet", BK_TEST_DATA);
    DIR *d = opendir(cdir);
    CHECK(d != NULL);
    struct dirent *de;
    int seeds = 0;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char p[3000];
        snprintf(p, sizeof p, "%.2047s/%.900s", cdir, de->d_name);
        size_t n;
        uint8_t *data = check_read_file(p, &n);
        ok &= one(dir, de->d_name, data, n);
        free(data);
        seeds++;
    }
    if (d) closedir(d);
    CHECK(seeds > 0);
    int rc = system(cmdline);
    if (rc) fprintf(stderr, "readers disagree (files in %s)\n", dir);
    ok &= rc == 0;
    CHECK(ok);
    if (ok) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
    }
    return check_finish();
}
