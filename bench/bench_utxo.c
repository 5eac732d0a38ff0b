/* The UTXO set readers and gettxoutsetinfo's hashes.
 *
 * Utxo/chainstate/10M, Utxo/snapshot/10M: decode every coin of the
 * synthetic set written by scripts/gen-utxo.c (build/gen-utxo DIR; point
 * BLOCKKIT_BENCH_UTXO_DIR at DIR; the rows are skipped without it). One op
 * = one full pass: the chainstate through a private LevelDB snapshot opened
 * in setup (iterator, de-obfuscation, Coin decoding, script expansion), the
 * snapshot file through read(2) from its open. unit = coin. peak bytes
 * count what goes through the bench allocator (the snapshot reader's 1 MiB
 * buffer); LevelDB's own memory (block reads, mmapped tables) is not in
 * it: see docs/utxo.md for RSS figures.
 *
 * UtxoStats/hash_serialized_3, UtxoStats/muhash, UtxoStats/none: the
 * statistics over the 10,845 coins of the real regtest snapshot
 * (tests/data/regtest/utxo_snapshot.dat.zst, decompressed in memory in
 * setup), decoding included. unit = coin. */
#include "bench.h"

#include <blockkit/utxo.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

typedef struct big_bench {
    char dir[4096];
    bk_chainstate *cs;
    uint64_t coins;
} big_bench;

static uint64_t gen_count(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/gen-utxo.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long n = 0;
    if (fscanf(f, "coins %llu", &n) != 1) n = 0;
    fclose(f);
    return n;
}

static int big_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    const char *dir = getenv("BLOCKKIT_BENCH_UTXO_DIR");
    if (!dir || !*dir) return 1;
    uint64_t n = gen_count(dir);
    if (n != 10000000ULL) return 1; /* the row's name promises 10M */
    big_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    b->coins = n;
    if (arg && !strcmp(arg, "chainstate")) {
        char path[4200];
        snprintf(path, sizeof path, "%s/chainstate", dir);
        if (bk_chainstate_open(path, NULL, alloc, &b->cs, NULL) != BK_OK) {
            bk_free(alloc, b, sizeof *b);
            return 1;
        }
    }
    *ctx = b;
    return 0;
}

static void big_teardown(void *ctx, const bk_allocator *alloc)
{
    big_bench *b = ctx;
    bk_chainstate_close(b->cs);
    bk_free(alloc, b, sizeof *b);
}

static void chainstate_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    big_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_chainstate_iter *it;
        if (bk_chainstate_iter_new(b->cs, &it, NULL) != BK_OK) return;
        bk_utxo u;
        uint64_t n = 0;
        int64_t sum = 0;
        while (bk_chainstate_iter_next(it, &u)) {
            sum += u.coin.value + u.coin.script_len;
            n++;
        }
        bk_chainstate_iter_free(it);
        if (n != b->coins) abort();
        bk_bench_keep(&sum);
    }
}

static void snapshot_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    big_bench *b = ctx;
    char path[4200];
    snprintf(path, sizeof path, "%s/utxo_snapshot.dat", b->dir);
    for (uint64_t i = 0; i < iters; i++) {
        int fd = open(path, O_RDONLY);
        if (fd < 0) abort();
        bk_utxo_snapshot *s;
        if (bk_utxo_snapshot_open_fd(&s, fd, alloc, NULL) != BK_OK) abort();
        bk_utxo u;
        uint64_t n = 0;
        int64_t sum = 0;
        while (bk_utxo_snapshot_next(s, &u)) {
            sum += u.coin.value + u.coin.script_len;
            n++;
        }
        if (bk_utxo_snapshot_status(s, NULL) != BK_OK || n != b->coins) abort();
        bk_utxo_snapshot_close(s);
        close(fd);
        bk_bench_keep(&sum);
    }
}

BK_BENCH(bench_utxo_chainstate, .name = "Utxo/chainstate/10M", .unit = "coin", .units_per_op = 1e7,
         .arg = "chainstate", .setup = big_setup, .run = chainstate_run, .teardown = big_teardown)
BK_BENCH(bench_utxo_snapshot, .name = "Utxo/snapshot/10M", .unit = "coin", .units_per_op = 1e7,
         .arg = "snapshot", .setup = big_setup, .run = snapshot_run, .teardown = big_teardown)

/* ---- stats over the regtest snapshot ---- */

#define REGTEST_COINS 10845

typedef struct stats_bench {
    uint8_t *data;
    size_t len, cap;
    bk_utxo_hash_type type;
} stats_bench;

typedef struct mem_src {
    const uint8_t *p;
    size_t len, pos;
} mem_src;

static int mem_read(void *ctx, uint8_t *buf, size_t cap, size_t *got)
{
    mem_src *m = ctx;
    size_t n = m->len - m->pos;
    if (n > cap) n = cap;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    *got = n;
    return 0;
}

/* Decompress a .zst file (whatever its frame header says about the size). */
static uint8_t *unzstd(const char *path, size_t *len_out, const bk_allocator *alloc, size_t *cap_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4u << 20, len = 0;
    uint8_t *out = bk_alloc(alloc, cap);
    ZSTD_DStream *ds = ZSTD_createDStream();
    uint8_t in[1 << 16];
    size_t n;
    int ok = out && ds;
    while (ok && (n = fread(in, 1, sizeof in, f)) > 0) {
        ZSTD_inBuffer ib = {in, n, 0};
        while (ok && ib.pos < ib.size) {
            if (len == cap) {
                uint8_t *g = bk_realloc(alloc, out, cap, cap * 2);
                if (!g) ok = 0;
                else {
                    out = g;
                    cap *= 2;
                }
            }
            ZSTD_outBuffer ob = {out + len, cap - len, 0};
            if (ok && ZSTD_isError(ZSTD_decompressStream(ds, &ob, &ib))) ok = 0;
            len += ob.pos;
        }
    }
    fclose(f);
    ZSTD_freeDStream(ds);
    if (!ok || len == 0) {
        if (out) bk_free(alloc, out, cap);
        return NULL;
    }
    *len_out = len;
    *cap_out = cap;
    return out;
}

static int stats_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    bk_utxo_hash_type type;
    char path[4096];
    if (bk_utxo_hash_type_parse(arg, &type) != BK_OK) return 1;
    if (bk_bench_data_path(path, sizeof path, "regtest/utxo_snapshot.dat.zst") != 0) return 1;
    stats_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    b->data = unzstd(path, &b->len, alloc, &b->cap);
    if (!b->data) {
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    b->type = type;
    *ctx = b;
    return 0;
}

static void stats_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    stats_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        mem_src m = {b->data, b->len, 0};
        bk_utxo_snapshot *s;
        if (bk_utxo_snapshot_open(&s, mem_read, &m, alloc, NULL) != BK_OK) abort();
        bk_utxo_stats st;
        if (bk_utxo_stats_begin(&st, b->type, alloc, NULL) != BK_OK) abort();
        bk_utxo u;
        while (bk_utxo_snapshot_next(s, &u))
            if (bk_utxo_stats_add(&st, &u, NULL) != BK_OK) abort();
        if (bk_utxo_snapshot_status(s, NULL) != BK_OK || bk_utxo_stats_end(&st, NULL) != BK_OK ||
            st.txouts != REGTEST_COINS)
            abort();
        bk_bench_keep(st.hash);
        bk_utxo_stats_free(&st);
        bk_utxo_snapshot_close(s);
    }
}

static void stats_teardown(void *ctx, const bk_allocator *alloc)
{
    stats_bench *b = ctx;
    bk_free(alloc, b->data, b->cap);
    bk_free(alloc, b, sizeof *b);
}

BK_BENCH(bench_utxo_stats_hs3, .name = "UtxoStats/hash_serialized_3", .unit = "coin", .units_per_op = REGTEST_COINS,
         .arg = "hash_serialized_3", .setup = stats_setup, .run = stats_run, .teardown = stats_teardown)
BK_BENCH(bench_utxo_stats_muhash, .name = "UtxoStats/muhash", .unit = "coin", .units_per_op = REGTEST_COINS,
         .arg = "muhash", .setup = stats_setup, .run = stats_run, .teardown = stats_teardown)
BK_BENCH(bench_utxo_stats_none, .name = "UtxoStats/none", .unit = "coin", .units_per_op = REGTEST_COINS,
         .arg = "none", .setup = stats_setup, .run = stats_run, .teardown = stats_teardown)
