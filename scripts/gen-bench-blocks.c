/* gen-bench-blocks: the honest bench directory (scripts/gen_bench_blocks.h)
 * as a command, for the scale run (scripts/scale-export.sh) and to keep a
 * directory for timing the CLI.
 *
 *   gen-bench-blocks [--bytes N[M|G]] [--seed S] DATADIR OUTDIR
 *
 * DATADIR holds blocks/block<H>.raw and undo/block<H>_undo.raw of the
 * templates (tests/data); OUTDIR is created and must hold no blk file.
 * The templates and their weights are the bench's: 13 x 866342, then
 * 367891 and 277647 once each, round after round, until --bytes (default
 * 217.1 MB: the 150 blocks of `blockkit bench`'s Scan rows). Exit 0, 64
 * usage, 66 a template missing, 74 I/O. */
#define _POSIX_C_SOURCE 200809L
#include "gen_bench_blocks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *p = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)n)) != NULL &&
            fread(p, 1, (size_t)n, f) != (size_t)n) {
            free(p);
            p = NULL;
        }
        *len = n > 0 ? (size_t)n : 0;
    }
    fclose(f);
    return p;
}

static int usage(void)
{
    fprintf(stderr, "usage: gen-bench-blocks [--bytes N[M|G]] [--seed S] DATADIR OUTDIR\n");
    return 64;
}

int main(int argc, char **argv)
{
    uint64_t bytes = 217145510ull, seed = 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        char *e = NULL;
        if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
            double v = strtod(argv[++i], &e);
            if (e && (*e == 'M' || *e == 'm')) v *= 1e6, e++;
            else if (e && (*e == 'G' || *e == 'g')) v *= 1e9, e++;
            if (!e || *e || v < 1) return usage();
            bytes = (uint64_t)v;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], &e, 10);
            if (!e || *e) return usage();
        } else {
            return usage();
        }
    }
    if (argc - i != 2) return usage();
    const char *data = argv[i], *out = argv[i + 1];
    static const char *const names[3] = {"866342", "367891", "277647"};
    static const unsigned weights[3] = {13, 1, 1};
    bk_gen_template t[3];
    uint8_t *bufs[6] = {0};
    for (int k = 0; k < 3; k++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/blocks/block%s.raw", data, names[k]);
        bufs[2 * k] = read_all(p, &t[k].block_len);
        snprintf(p, sizeof p, "%s/undo/block%s_undo.raw", data, names[k]);
        bufs[2 * k + 1] = read_all(p, &t[k].undo_len);
        if (!bufs[2 * k] || !bufs[2 * k + 1]) {
            fprintf(stderr, "gen-bench-blocks: cannot read the template %s (block and undo) under %s\n", names[k], data);
            for (int q = 0; q < 6; q++) free(bufs[q]);
            return 66;
        }
        t[k].block = bufs[2 * k];
        t[k].undo = bufs[2 * k + 1];
        t[k].weight = weights[k];
    }
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/blk00000.dat", out);
    struct stat sb;
    int rc = 0;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen-bench-blocks: %s: %s\n", out, strerror(errno));
        rc = 74;
    } else if (stat(probe, &sb) == 0) {
        fprintf(stderr, "gen-bench-blocks: %s already holds blk files\n", out);
        rc = 64;
    }
    bk_gen_stats st;
    if (!rc) rc = bk_gen_bench_blocks(out, t, 3, bytes, seed, &st) != 0 ? -1 : 0;
    for (int k = 0; k < 6; k++) free(bufs[k]);
    if (rc > 0) return rc;
    if (rc != 0) {
        fprintf(stderr, "gen-bench-blocks: %s: %s\n", out, strerror(errno));
        return errno == EINVAL ? 65 : 74;
    }
    printf("%llu blocks, %llu transactions, %.1f MB of blocks, %.1f MB of undo data, %llu blk files\n",
           (unsigned long long)st.blocks, (unsigned long long)st.txs, (double)st.block_bytes / 1e6,
           (double)st.undo_bytes / 1e6, (unsigned long long)st.files);
    return fflush(stdout) == 0 ? 0 : 74;
}
