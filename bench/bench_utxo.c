/* The UTXO set readers, the utxos table and gettxoutsetinfo's hashes.
 *
 * Utxo/chainstate/10M, Utxo/snapshot/10M: every coin of the synthetic set
 * written by scripts/gen-utxo.c (build/gen-utxo DIR; point
 * BLOCKKIT_BENCH_UTXO_DIR at DIR; the rows are skipped without it) decoded,
 * rendered (txid and script hex, type, address, descriptor: the rows of
 * `export --datasets utxos`, src/table/utxos.c) and written as Parquet with
 * export --datasets utxos's defaults (zstd level -5, 32 MiB row groups) into a sink that
 * discards the bytes (no file writes: the export's O_DIRECT files cost little
 * system time besides), all on the calling thread. One op = one full pass:
 * the chainstate through a private LevelDB snapshot opened in setup, the
 * snapshot file through read(2) from its open. unit = coin.
 * Utxo/snapshot/10M/lean: the same rows of --profile lean (txid and script
 * as bytes, no descriptor; so no hex, no descriptor text, no x-only checks).
 * UtxoDecode/chainstate/10M, UtxoDecode/snapshot/10M: the decoding alone.
 * Utxo/snapshot/10M/floor, Utxo/snapshot/10M/lean/floor: what any writer of
 * those rows' Parquet bytes must do (below, before the rows).
 * peak bytes count what goes through the bench allocator (the snapshot
 * reader's 1 MiB buffer, the batch, the Parquet writer's row group);
 * LevelDB's own memory (block reads, mmapped tables) is not in it: see
 * docs/utxo.md for RSS figures.
 *
 * UtxoStats/hash_serialized_3, UtxoStats/muhash, UtxoStats/none: the
 * statistics over the 10,845 coins of the real regtest snapshot
 * (tests/data/regtest/utxo_snapshot.dat.zst, decompressed in memory in
 * setup), decoding included. unit = coin. */
#include "bench.h"

#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include "../src/bitcoin/script_internal.h" /* bk_script_xonly_valid_many, for the floor rows */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_literalCompressionMode, as the writer sets it */
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
    if (arg && strstr(arg, "chainstate")) {
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

/* One pass over either source: decode only, or decode + render + Parquet. */
typedef struct pass {
    bk_chainstate_iter *it;
    bk_utxo_snapshot *snap;
} pass;

static int pass_next(pass *p, bk_utxo *u)
{
    return p->it ? bk_chainstate_iter_next(p->it, u) : bk_utxo_snapshot_next(p->snap, u);
}

static int discard_sink(void *ctx, const uint8_t *data, size_t len)
{
    (void)data;
    *(uint64_t *)ctx += len;
    return 0;
}

/* codec: the row's BK_PQ_ZSTD, or BK_PQ_UNCOMPRESSED for the floor rows'
 * setup (the file's bytes before compression, into a capturing sink). */
static uint64_t to_parquet(pass *p, bk_table_profile prof, bk_pq_codec codec, bk_sink_fn sink, void *sink_ctx,
                           const bk_allocator *alloc)
{
    bk_utxo_batch *batch;
    if (bk_utxo_batch_new(&batch, BK_NET_MAIN, alloc) != BK_OK) abort();
    bk_utxo_batch_set_profile(batch, prof);
    bk_table_writer t;
    size_t ncols;
    const bk_pq_column *cols = bk_utxo_columns_profile(prof, &ncols);
    uint64_t n = 0;
    bk_pq_opts po;
    bk_pq_opts_init(&po);
    po.row_group_size = (size_t)32 << 20; /* as export --datasets utxos */
    po.codec = codec;
    if (bk_table_open(&t, BK_TABLE_PARQUET, cols, ncols, &po, sink, sink_ctx, alloc, NULL) != BK_OK) abort();
    bk_utxo u;
    int more = 1, pending = 0;
    while (more) {
        if (pending) (void)bk_utxo_batch_add(batch, &u);
        pending = 0;
        while ((more = pass_next(p, &u)) != 0)
            if (!bk_utxo_batch_add(batch, &u)) {
                pending = 1;
                break;
            }
        size_t k = bk_utxo_batch_count(batch);
        if (!k) break;
        if (bk_utxo_batch_render(batch) != BK_OK || bk_utxo_batch_write(batch, 0, k, &t, NULL) != BK_OK) abort();
        n += k;
        bk_utxo_batch_reset(batch);
    }
    if (bk_table_finish(&t, NULL) != BK_OK) abort();
    bk_table_close(&t);
    bk_utxo_batch_free(batch);
    bk_bench_keep(sink_ctx);
    return n;
}

static uint64_t decode_only(pass *p)
{
    bk_utxo u;
    uint64_t n = 0;
    int64_t sum = 0;
    while (pass_next(p, &u)) {
        sum += u.coin.value + u.coin.script_len;
        n++;
    }
    bk_bench_keep(&sum);
    return n;
}

static void big_run(void *ctx, const char *arg, uint64_t iters, const bk_allocator *alloc)
{
    big_bench *b = ctx;
    int chainstate = strstr(arg, "chainstate") != NULL, parquet = strstr(arg, "parquet") != NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/utxo_snapshot.dat", b->dir);
    for (uint64_t i = 0; i < iters; i++) {
        pass p = {NULL, NULL};
        int fd = -1;
        if (chainstate) {
            if (bk_chainstate_iter_new(b->cs, &p.it, NULL) != BK_OK) abort();
        } else {
            fd = open(path, O_RDONLY);
            if (fd < 0 || bk_utxo_snapshot_open_fd(&p.snap, fd, alloc, NULL) != BK_OK) abort();
        }
        bk_table_profile prof = strstr(arg, "lean") ? BK_PROFILE_LEAN : BK_PROFILE_DEFAULT;
        uint64_t bytes = 0;
        uint64_t n = parquet ? to_parquet(&p, prof, BK_PQ_ZSTD, discard_sink, &bytes, alloc) : decode_only(&p);
        if (n != b->coins) abort();
        if (chainstate) {
            if (bk_chainstate_iter_status(p.it, NULL) != BK_OK) abort();
            bk_chainstate_iter_free(p.it);
        } else {
            if (bk_utxo_snapshot_status(p.snap, NULL) != BK_OK) abort();
            bk_utxo_snapshot_close(p.snap);
            close(fd);
        }
    }
}

static void run_cs_parquet(void *ctx, uint64_t iters, const bk_allocator *alloc) { big_run(ctx, "chainstate parquet", iters, alloc); }
static void run_snap_parquet(void *ctx, uint64_t iters, const bk_allocator *alloc) { big_run(ctx, "snapshot parquet", iters, alloc); }
static void run_snap_parquet_lean(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    big_run(ctx, "snapshot parquet lean", iters, alloc);
}
static void run_cs_decode(void *ctx, uint64_t iters, const bk_allocator *alloc) { big_run(ctx, "chainstate", iters, alloc); }
static void run_snap_decode(void *ctx, uint64_t iters, const bk_allocator *alloc) { big_run(ctx, "snapshot", iters, alloc); }

BK_BENCH(bench_utxo_chainstate, .name = "Utxo/chainstate/10M", .unit = "coin", .units_per_op = 1e7,
         .arg = "chainstate", .setup = big_setup, .run = run_cs_parquet, .teardown = big_teardown)
BK_BENCH(bench_utxo_snapshot, .name = "Utxo/snapshot/10M", .unit = "coin", .units_per_op = 1e7,
         .arg = "snapshot", .setup = big_setup, .run = run_snap_parquet, .teardown = big_teardown)
BK_BENCH(bench_utxo_snapshot_lean, .name = "Utxo/snapshot/10M/lean", .unit = "coin", .units_per_op = 1e7,
         .arg = "snapshot", .setup = big_setup, .run = run_snap_parquet_lean, .teardown = big_teardown)
BK_BENCH(bench_utxo_decode_chainstate, .name = "UtxoDecode/chainstate/10M", .unit = "coin", .units_per_op = 1e7,
         .arg = "chainstate", .setup = big_setup, .run = run_cs_decode, .teardown = big_teardown)
BK_BENCH(bench_utxo_decode_snapshot, .name = "UtxoDecode/snapshot/10M", .unit = "coin", .units_per_op = 1e7,
         .arg = "snapshot", .setup = big_setup, .run = run_snap_decode, .teardown = big_teardown)

/* ---- Utxo/snapshot/10M/floor, Utxo/snapshot/10M/lean/floor ----
 *
 * The part of Utxo/snapshot/10M's (and /lean's) work that no writer of the
 * same Parquet bytes can skip, in the row's unit, so that the row's ratio to
 * it is its overhead. Spelled as the Export floor rows
 * (bench/bench_export_floor.c). One op:
 *  1. the snapshot file read and every coin decoded, as the row reads it
 *     (bk_utxo_snapshot_open_fd + bk_utxo_snapshot_next: UtxoDecode/snapshot);
 *  2. per coin, what the file holds and only a computation gives: its type
 *     and address through the export's own batched path (bk_utxo_batch_render
 *     of the lean profile: the Solver templates, Base58Check checksums a batch
 *     at a time, bech32/bech32m), plus for the default profile the batch's
 *     x-only key checks (bk_script_xonly_valid_many; its descriptors need
 *     them, the lean profile has none);
 *  3. the output: the bytes of the row's Parquet stream, taken once in setup
 *     from the row's own writer with the codec off (same columns, 32 MiB row
 *     groups), compressed as the writer compresses pages (zstd at the
 *     writer's default level with its settings, in pieces of its page size)
 *     and handed to the same discarding sink as the row's (the row writes no
 *     file, so the floor neither hashes nor writes one).
 * Left out: every byte of row rendering and encoding (txid and script hex,
 * descriptor text and its checksum, PLAIN/RLE/dictionary encoding, levels,
 * statistics, page headers, Thrift, footer), so these rows are a lower bound on
 * the ns a coin of any writer of these files here.
 * Memory: the captured stream (about 2.5 GB default, 1.2 GB lean) is
 * malloc'ed, outside the bench allocator's peak bytes. */
typedef struct utxo_floor {
    big_bench *big;
    bk_table_profile profile;
    uint8_t *file; /* the Parquet stream, uncompressed */
    size_t len, cap;
    ZSTD_CCtx *z;
    uint8_t *zbuf;
    size_t zcap, page;
    uint8_t tr_keys[BK_UTXO_BATCH * 32];
    uint8_t tr_valid[BK_UTXO_BATCH];
} utxo_floor;

static int capture_sink(void *ctx, const uint8_t *data, size_t len)
{
    utxo_floor *f = ctx;
    if (f->len + len > f->cap) {
        size_t cap = f->cap ? f->cap : (size_t)64 << 20;
        while (cap < f->len + len) cap *= 2;
        uint8_t *p = realloc(f->file, cap);
        if (!p) return -1;
        f->file = p;
        f->cap = cap;
    }
    memcpy(f->file + f->len, data, len);
    f->len += len;
    return 0;
}

static void ufloor_teardown(void *ctx, const bk_allocator *alloc)
{
    utxo_floor *f = ctx;
    if (f->big) big_teardown(f->big, alloc);
    free(f->file);
    free(f->zbuf);
    ZSTD_freeCCtx(f->z);
    free(f);
}

static int ufloor_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    utxo_floor *f = calloc(1, sizeof *f);
    if (!f) return 1;
    void *bctx = NULL;
    if (big_setup(&bctx, "snapshot", alloc) != 0) {
        free(f);
        return 1;
    }
    f->big = bctx;
    f->profile = strstr(arg, "lean") ? BK_PROFILE_LEAN : BK_PROFILE_DEFAULT;
    char path[4200];
    snprintf(path, sizeof path, "%s/utxo_snapshot.dat", f->big->dir);
    bk_utxo_snapshot *snap = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || bk_utxo_snapshot_open_fd(&snap, fd, alloc, NULL) != BK_OK) {
        if (fd >= 0) close(fd);
        ufloor_teardown(f, alloc);
        return 1;
    }
    pass p = {NULL, snap};
    uint64_t n = to_parquet(&p, f->profile, BK_PQ_UNCOMPRESSED, capture_sink, f, alloc);
    int ok = n == f->big->coins && bk_utxo_snapshot_status(snap, NULL) == BK_OK;
    bk_utxo_snapshot_close(snap);
    close(fd);
    /* the writer's zstd settings (src/parquet/writer.c), as the Export floor rows */
    bk_pq_opts dflt;
    bk_pq_opts_init(&dflt);
    f->page = dflt.page_size;
    f->z = ZSTD_createCCtx();
    f->zcap = ZSTD_compressBound(f->page);
    f->zbuf = malloc(f->zcap);
    if (!ok || !f->z || !f->zbuf) {
        ufloor_teardown(f, alloc);
        return 1;
    }
    ZSTD_CCtx_setParameter(f->z, ZSTD_c_compressionLevel, dflt.zstd_level);
    ZSTD_CCtx_setParameter(f->z, ZSTD_c_literalCompressionMode, 1 /* ZSTD_ps_enable */);
    if (dflt.zstd_level < 0) ZSTD_CCtx_setParameter(f->z, ZSTD_c_minMatch, 7);
    fprintf(stderr, "Utxo/snapshot/10M%s/floor: %.1f MB of Parquet before compression\n",
            f->profile == BK_PROFILE_LEAN ? "/lean" : "", (double)f->len / 1e6);
    *ctx = f;
    return 0;
}

/* Step 2 for one batch: the type and address of every coin (the lean
 * rendering holds exactly those), and the x-only checks for descriptors. */
static void ufloor_batch(utxo_floor *f, bk_utxo_batch *b)
{
    if (bk_utxo_batch_render(b) != BK_OK) abort();
    if (f->profile == BK_PROFILE_LEAN) return;
    size_t nk = 0, n = bk_utxo_batch_count(b);
    for (size_t i = 0; i < n; i++) {
        const bk_utxo *u = bk_utxo_batch_coin(b, i);
        const uint8_t *s = bk_coin_script(&u->coin);
        if (u->coin.script_len == 34 && s[0] == 0x51 && s[1] == 0x20) memcpy(f->tr_keys + 32 * nk++, s + 2, 32);
    }
    if (nk) bk_script_xonly_valid_many(f->tr_keys, nk, f->tr_valid);
    bk_bench_keep(f->tr_valid);
}

static void ufloor_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    utxo_floor *f = ctx;
    char path[4200];
    snprintf(path, sizeof path, "%s/utxo_snapshot.dat", f->big->dir);
    for (uint64_t it = 0; it < iters; it++) {
        /* 1 and 2 */
        int fd = open(path, O_RDONLY);
        bk_utxo_snapshot *snap;
        if (fd < 0 || bk_utxo_snapshot_open_fd(&snap, fd, alloc, NULL) != BK_OK) abort();
        bk_utxo_batch *batch;
        if (bk_utxo_batch_new(&batch, BK_NET_MAIN, alloc) != BK_OK) abort();
        bk_utxo_batch_set_profile(batch, BK_PROFILE_LEAN);
        bk_utxo u;
        uint64_t n = 0;
        int more = 1, pending = 0;
        while (more) {
            if (pending) (void)bk_utxo_batch_add(batch, &u);
            pending = 0;
            while ((more = bk_utxo_snapshot_next(snap, &u)) != 0)
                if (!bk_utxo_batch_add(batch, &u)) {
                    pending = 1;
                    break;
                }
            size_t k = bk_utxo_batch_count(batch);
            if (!k) break;
            ufloor_batch(f, batch);
            n += k;
            bk_utxo_batch_reset(batch);
        }
        bk_utxo_batch_free(batch);
        if (n != f->big->coins || bk_utxo_snapshot_status(snap, NULL) != BK_OK) abort();
        bk_utxo_snapshot_close(snap);
        close(fd);
        /* 3 */
        uint64_t bytes = 0;
        for (size_t at = 0; at < f->len;) {
            size_t m = f->len - at < f->page ? f->len - at : f->page;
            size_t z = ZSTD_compress2(f->z, f->zbuf, f->zcap, f->file + at, m);
            if (ZSTD_isError(z) || discard_sink(&bytes, f->zbuf, z) != 0) abort();
            at += m;
        }
        bk_bench_keep(&bytes);
    }
}

BK_BENCH(bench_utxo_snapshot_floor, .name = "Utxo/snapshot/10M/floor", .unit = "coin", .units_per_op = 1e7,
         .arg = "default", .setup = ufloor_setup, .run = ufloor_run, .teardown = ufloor_teardown)
BK_BENCH(bench_utxo_snapshot_lean_floor, .name = "Utxo/snapshot/10M/lean/floor", .unit = "coin",
         .units_per_op = 1e7, .arg = "lean", .setup = ufloor_setup, .run = ufloor_run, .teardown = ufloor_teardown)

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

/* ---- issue 28: coin statistics by height, the set at a past height ----
 *
 * UtxoStats/series (muhash) and UtxoStats/series/none: bk_coinstats_series
 * over the real regtest node (tests/data/regtest/datadir.tar.zst, unpacked
 * into a temporary directory in setup; BLOCKKIT_BENCH_REGTEST_DIR=D uses an
 * unpacked copy at D, e.g. build/regtest/full), heights 0..939 on one
 * worker, every height's line computed (MuHash finalized at each height)
 * and discarded. One op = the whole series, chain index built in setup.
 * unit = block; MB/s counts the blk and rev bytes read (SERIES_BYTES,
 * checked in setup), comparable with Scan/sample/v3/j1's MB/s.
 * UtxoStats/floor: the work per coin the series cannot avoid, over the same
 * blocks and in the same unit: every coin the 940 blocks add or spend (their
 * TxOutSer, collected in setup by the series' own walk,
 * bk_coinstats_block_walk) made into its MuHash element (SHA-256, then
 * ChaCha20 eight elements at a time as the series does) and multiplied into
 * a numerator or denominator: one element and one 3072-bit multiplication
 * per coin, nothing else (no reading, decoding, finalizing). MB/s counts
 * the same SERIES_BYTES, so series / floor is the series' overhead.
 * UtxoRollback and UtxoRollback/929: bk_utxo_rollback_open from the tip
 * (939) down to 469 (470 blocks) and 929 (10 blocks): reading the blocks
 * and undo data above the height, collecting and sorting the coins to
 * restore: the cost that grows with the blocks undone. unit = undone coin
 * (an input of a block undone: 5,211 and 206).
 * UtxoRollback/469/set: the same rollback and then every coin of the set
 * at 469 drained (the merge with the chainstate cursor, which reads all
 * 10,845 chainstate coins); unit = coin of the resulting set (7,038). */
#include <blockkit/blockfile.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>
#include <blockkit/sha256.h>

#include "../src/utxo/coinstats_internal.h"
#include "../src/utxo/muhash_internal.h"

#define SERIES_BLOCKS 940
#define SERIES_BYTES 5835486.0 /* blk + rev bytes of heights 0..939 (checked in setup) */
#define ROLLBACK_469_COINS 5211 /* inputs of blocks 470..939 (checked in setup) */
#define ROLLBACK_929_COINS 206  /* inputs of blocks 930..939 */
#define ROLLBACK_469_SET 7038   /* coins at 469 (Core's coins_written) */

typedef struct past_bench {
    char dir[4096];
    int own_dir;
    bk_blocksdir d;
    bk_chain c;
    bk_chainstate *cs;
    int with_muhash;
    int drain;
    int workers;
    int32_t height;
} past_bench;

static int past_setup_common(past_bench *b)
{
    const char *env = getenv("BLOCKKIT_BENCH_REGTEST_DIR");
    if (env && *env) {
        snprintf(b->dir, sizeof b->dir, "%s", env);
    } else {
        char tarball[4096];
        if (bk_bench_data_path(tarball, sizeof tarball, "regtest/datadir.tar.zst") != 0) return 1;
        if (bk_bench_tmpdir(b->dir, sizeof b->dir, "regtest")) return 1;
        b->own_dir = 1;
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "zstd -dcq '%s' | tar -x -C '%s'", tarball, b->dir);
        if (system(cmd) != 0) return 1;
    }
    char p[4200];
    bk_error err;
    snprintf(p, sizeof p, "%s/regtest/blocks", b->dir);
    if (bk_blocksdir_open(&b->d, p, BK_NET_REGTEST, NULL, &err) != BK_OK) return 1;
    if (bk_chain_build_index(&b->c, b->dir, BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) return 1;
    snprintf(p, sizeof p, "%s/regtest/chainstate", b->dir);
    if (bk_chainstate_open(p, NULL, NULL, &b->cs, &err) != BK_OK) return 1;
    return 0;
}

static void past_teardown(void *ctx, const bk_allocator *alloc)
{
    past_bench *b = ctx;
    if (b->cs) bk_chainstate_close(b->cs);
    bk_chain_free(&b->c);
    bk_blocksdir_close(&b->d);
    if (b->own_dir) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->dir);
        if (system(cmd) != 0) fprintf(stderr, "# cannot remove %s\n", b->dir);
    }
    bk_free(alloc, b, sizeof *b);
}

static int past_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    past_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    const char *a = arg;
    b->with_muhash = !strncmp(a, "muhash", 6);
    b->workers = strstr(a, "/j2") ? 2 : 1;
    b->height = (a[0] >= '0' && a[0] <= '9') ? (int32_t)atoi(a) : -1;
    b->drain = strstr(a, "/set") != NULL;
    if (past_setup_common(b) != 0) {
        fprintf(stderr, "# regtest datadir not available: skipped\n");
        past_teardown(b, alloc);
        return 1;
    }
    /* the constants the rows divide by */
    uint64_t bytes = 0;
    for (int32_t h = 0; h < SERIES_BLOCKS; h++) {
        const bk_chain_entry *e = bk_chain_at_height(&b->c, h);
        if (!e) break;
        bytes += e->size + (e->has_undo ? e->undo_size : 0);
    }
    uint64_t want_coins = b->height == 469 ? ROLLBACK_469_COINS : ROLLBACK_929_COINS;
    bk_utxo_rollback *r = NULL;
    bk_error err;
    int ok = (double)bytes == SERIES_BYTES;
    if (ok && b->height >= 0)
        ok = bk_utxo_rollback_open(&r, b->cs, &b->c, &b->d, b->height, NULL, &err) == BK_OK &&
             bk_utxo_rollback_info_get(r)->coins_undone == want_coins;
    bk_utxo_rollback_close(r);
    if (!ok) {
        fprintf(stderr, "# regtest datadir differs from the one measured (%llu bytes): skipped\n",
                (unsigned long long)bytes);
        past_teardown(b, alloc);
        return 1;
    }
    *ctx = b;
    return 0;
}

static bk_status series_discard(void *ctx, const bk_coinstats *cur, const bk_coinstats *prev, bk_error *err)
{
    (void)prev;
    (void)err;
    (*(uint64_t *)ctx) += cur->txouts;
    bk_bench_keep(cur->muhash);
    return BK_OK;
}

static void series_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    past_bench *b = ctx;
    bk_bench_affinity aff; /* the /j2 row's workers use every CPU */
    bk_bench_widen(&aff, b->workers);
    for (uint64_t i = 0; i < iters; i++) {
        bk_coinstats_series_opts o;
        memset(&o, 0, sizeof o);
        o.start = 0;
        o.end = SERIES_BLOCKS - 1;
        o.with_muhash = b->with_muhash;
        o.workers = b->workers;
        o.alloc = b->workers == 1 ? alloc : NULL; /* the counting allocator is single-threaded */
        uint64_t sum = 0;
        bk_error err;
        if (bk_coinstats_series(&b->c, &b->d, &o, series_discard, &sum, NULL, &err) != BK_OK) abort();
        bk_bench_keep(&sum);
    }
    bk_bench_unwiden(&aff);
}

static void rollback_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    past_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_utxo_rollback_opts o;
        memset(&o, 0, sizeof o);
        o.alloc = alloc;
        bk_utxo_rollback *r;
        bk_error err;
        if (bk_utxo_rollback_open(&r, b->cs, &b->c, &b->d, b->height, &o, &err) != BK_OK) abort();
        bk_utxo u;
        uint64_t n = 0, coins = 0;
        if (b->drain) {
            while (bk_utxo_rollback_next(r, &u)) {
                n += u.coin.script_len;
                coins++;
            }
            if (bk_utxo_rollback_status(r, &err) != BK_OK || coins != ROLLBACK_469_SET) abort();
        }
        bk_bench_keep(&n);
        bk_utxo_rollback_close(r);
    }
}

/* UtxoStats/floor: the coins of blocks 0..939 as one buffer of TxOutSer
 * (each length-prefixed, its spent flag first), collected in setup. */
typedef struct floor_bench {
    past_bench *past;
    uint8_t *ser;
    size_t len, cap;
    size_t n[2];          /* coins added, spent */
    uint8_t *keys[2];     /* n[k] x 32 bytes, written by each run */
} floor_bench;

static bk_status floor_coin(void *ctx, const uint8_t *ser, size_t len, int spent, bk_error *err)
{
    floor_bench *f = ctx;
    size_t need = f->len + 1 + sizeof(uint32_t) + len;
    if (need > f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 1 << 20;
        while (cap < need) cap *= 2;
        uint8_t *p = realloc(f->ser, cap);
        if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        f->ser = p;
        f->cap = cap;
    }
    uint32_t l = (uint32_t)len;
    f->ser[f->len] = (uint8_t)spent;
    memcpy(f->ser + f->len + 1, &l, sizeof l);
    memcpy(f->ser + f->len + 1 + sizeof l, ser, len);
    f->len = need;
    f->n[spent]++;
    return BK_OK;
}

static void floor_teardown(void *ctx, const bk_allocator *alloc)
{
    floor_bench *f = ctx;
    if (f->past) past_teardown(f->past, alloc);
    free(f->ser);
    free(f->keys[0]);
    free(f->keys[1]);
    free(f);
}

static int floor_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    floor_bench *f = calloc(1, sizeof *f);
    if (!f) return 1;
    void *pctx = NULL;
    if (past_setup(&pctx, "floor", alloc) != 0) {
        free(f);
        return 1;
    }
    f->past = pctx;
    bk_block_reader br;
    bk_block_reader_init(&br, &f->past->d, NULL);
    uint8_t *txids = NULL;
    size_t txcap = 0;
    int ok = 1;
    for (int32_t h = 0; h < SERIES_BLOCKS && ok; h++) {
        const bk_chain_entry *e = bk_chain_at_height(&f->past->c, h);
        bk_engine_block eb;
        bk_error err;
        ok = e && bk_block_reader_read(&br, e, BK_READ_UNDO, &eb, NULL, &err) == BK_OK;
        if (!ok) break;
        if (32 * (size_t)eb.block->n_tx > txcap) {
            txcap = 32 * (size_t)eb.block->n_tx;
            uint8_t *p = realloc(txids, txcap);
            if (!p) {
                ok = 0;
                break;
            }
            txids = p;
        }
        bk_block_txids(eb.block, txids);
        bk_coinstats_delta d;
        ok = bk_coinstats_block_walk(BK_NET_REGTEST, h, e->hash, eb.block, txids, h > 0 ? eb.undo : NULL,
                                     floor_coin, f, &d, &err) == BK_OK;
    }
    free(txids);
    bk_block_reader_free(&br);
    for (int k = 0; k < 2 && ok; k++) ok = (f->keys[k] = malloc(32 * (f->n[k] ? f->n[k] : 1))) != NULL;
    if (!ok) {
        fprintf(stderr, "# cannot collect the regtest blocks' coins: skipped\n");
        floor_teardown(f, alloc);
        return 1;
    }
    *ctx = f;
    return 0;
}

static void floor_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    floor_bench *f = ctx;
    (void)alloc;
    for (uint64_t i = 0; i < iters; i++) {
        size_t n[2] = {0, 0};
        for (size_t off = 0; off < f->len;) {
            int spent = f->ser[off];
            uint32_t l;
            memcpy(&l, f->ser + off + 1, sizeof l);
            bk_sha256(f->keys[spent] + 32 * n[spent]++, f->ser + off + 1 + sizeof l, l);
            off += 1 + sizeof l + l;
        }
        bk_muhash mu;
        bk_muhash_init(&mu);
        bk_muhash_mul_keys(mu.num, f->keys[0], n[0]);
        bk_muhash_mul_keys(mu.den, f->keys[1], n[1]);
        bk_bench_keep(&mu);
    }
}

BK_BENCH(bench_utxo_series_muhash, .name = "UtxoStats/series", .unit = "block", .units_per_op = SERIES_BLOCKS,
         .bytes_per_op = SERIES_BYTES, .arg = "muhash", .setup = past_setup, .run = series_run,
         .teardown = past_teardown)
BK_BENCH(bench_utxo_series_muhash_j2, .name = "UtxoStats/series/j2", .unit = "block", .units_per_op = SERIES_BLOCKS,
         .bytes_per_op = SERIES_BYTES, .arg = "muhash/j2", .setup = past_setup, .run = series_run,
         .teardown = past_teardown)
BK_BENCH(bench_utxo_series_floor, .name = "UtxoStats/floor", .unit = "block", .units_per_op = SERIES_BLOCKS,
         .bytes_per_op = SERIES_BYTES, .arg = "floor", .setup = floor_setup, .run = floor_run,
         .teardown = floor_teardown)
BK_BENCH(bench_utxo_series_none, .name = "UtxoStats/series/none", .unit = "block", .units_per_op = SERIES_BLOCKS,
         .bytes_per_op = SERIES_BYTES, .arg = "none", .setup = past_setup, .run = series_run,
         .teardown = past_teardown)
BK_BENCH(bench_utxo_rollback_469, .name = "UtxoRollback", .unit = "coin", .units_per_op = ROLLBACK_469_COINS,
         .arg = "469", .setup = past_setup, .run = rollback_run, .teardown = past_teardown)
BK_BENCH(bench_utxo_rollback_469_set, .name = "UtxoRollback/469/set", .unit = "coin",
         .units_per_op = ROLLBACK_469_SET, .arg = "469/set", .setup = past_setup, .run = rollback_run,
         .teardown = past_teardown)
BK_BENCH(bench_utxo_rollback_929, .name = "UtxoRollback/929", .unit = "coin", .units_per_op = ROLLBACK_929_COINS,
         .arg = "929", .setup = past_setup, .run = rollback_run, .teardown = past_teardown)
