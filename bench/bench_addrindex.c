/* The address index's rows (docs/index.md):
 *
 * AddressIndex/build/sample/j1, j2: `blockkit index build` in process
 * (bk_addrindex_open WRITE + bk_addrindex_sync, default --mem) over the
 * bench blocks directory (bench/sample_dir.c: 150 blocks, 217 MB, real
 * undo data, every transaction distinct) into a new directory under
 * $TMPDIR, removed after each op. One op = one whole build, chain built
 * from the files included; unit = MB of blk input, as the Scan rows (set
 * beside Scan/sample/v3/j1).
 *
 * AddressIndex/floor/sample/j1: what no index builder can skip, on one
 * CPU: the block engine with one worker (every block and undo record read,
 * de-obfuscated, checked, decoded), the txids of every block, and the
 * SHA-256 of every output's script and of every spent coin's script (the
 * scripthash each funding and spending row is keyed by). Nothing written.
 *
 * AddressQuery/history/1, 100, 10000: bk_addrindex_history (warm, one
 * READ handle) of a scripthash with that many transactions, in an index
 * written in setup with the key layout of blockkit/addrindex.h: 10,000
 * blocks of two txids, the three scripthashes' funding rows and 200,000
 * rows of other scripthashes around them. Setup checks the answer's length
 * first (a layout the reader no longer decodes is a failed setup, said on
 * stderr, never a fast empty answer). Unit = query. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <blockkit/addrindex.h>
#include <blockkit/engine.h>
#include <blockkit/sha256.h>
#include <blockkit/undo.h>

#include <leveldb/c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- build ------------------------------------------------------------- */

typedef struct build_bench {
    char dir[4096];
    int keep;
    int workers;
} build_bench;

static int build_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    build_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    b->workers = (int)(intptr_t)arg;
    if (bk_bench_sample_dir(b->dir, sizeof b->dir, &b->keep, alloc) != 0) {
        if (!b->keep) bk_bench_rm_tree(b->dir);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    *ctx = b;
    return 0;
}

/* The chain of the bench directory (the files' headers: it has no block index). */
static int open_chain(const char *dir, bk_blocksdir *d, bk_chain *c, const char *row)
{
    bk_error err;
    if (bk_blocksdir_open(d, dir, BK_NET_MAIN, NULL, &err) != BK_OK) {
        fprintf(stderr, "bench %s: %s\n", row, err.msg);
        return 1;
    }
    if (bk_chain_build(c, d, NULL, &err) != BK_OK) {
        fprintf(stderr, "bench %s: %s\n", row, err.msg);
        bk_blocksdir_close(d);
        return 1;
    }
    return 0;
}

static void build_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    build_bench *b = ctx;
    bk_bench_affinity aff; /* the workers of a -j2 row use every CPU */
    bk_bench_widen(&aff, b->workers);
    for (uint64_t i = 0; i < iters; i++) {
        bk_blocksdir d;
        bk_chain c;
        if (open_chain(b->dir, &d, &c, "AddressIndex/build")) break;
        char ixdir[4096];
        int ok = 0;
        if (bk_bench_tmpdir(ixdir, sizeof ixdir, "addrindex") == 0) {
            bk_addrindex_opts o;
            bk_addrindex_opts_init(&o);
            o.net = BK_NET_MAIN;
            o.workers = b->workers;
            o.alloc = alloc;
            bk_addrindex *ix = NULL;
            bk_error err;
            int64_t applied = 0, undone = 0;
            bk_status st = bk_addrindex_open(&ix, ixdir, BK_ADDRINDEX_WRITE, &o, &err);
            if (st == BK_OK) st = bk_addrindex_sync(ix, &c, &d, &applied, &undone, &err);
            bk_addrindex_close(ix);
            if (st != BK_OK) fprintf(stderr, "bench AddressIndex/build: %s\n", err.msg);
            else ok = applied == BK_BENCH_SAMPLE_BLOCKS;
            bk_bench_rm_tree(ixdir);
        }
        bk_chain_free(&c);
        bk_blocksdir_close(&d);
        if (!ok) {
            fprintf(stderr, "bench AddressIndex/build: the build did not index the %d blocks\n",
                    BK_BENCH_SAMPLE_BLOCKS);
            break;
        }
    }
    bk_bench_unwiden(&aff);
}

static void build_teardown(void *ctx, const bk_allocator *alloc)
{
    build_bench *b = ctx;
    if (!b->keep) bk_bench_rm_tree(b->dir);
    bk_free(alloc, b, sizeof *b);
}

BK_BENCH(bench_addrindex_build_j1, "AddressIndex/build/sample/j1", "MB", BK_BENCH_SAMPLE_BYTES / 1e6,
         BK_BENCH_SAMPLE_BYTES, (const void *)(intptr_t)1, build_setup, build_run, build_teardown)
BK_BENCH(bench_addrindex_build_j2, "AddressIndex/build/sample/j2", "MB", BK_BENCH_SAMPLE_BYTES / 1e6,
         BK_BENCH_SAMPLE_BYTES, (const void *)(intptr_t)2, build_setup, build_run, build_teardown)

/* ---- floor ------------------------------------------------------------- */

typedef struct floor_ctx {
    uint8_t *ids;
    size_t cap;
    uint8_t acc[32]; /* every digest folded in, kept alive */
    uint64_t scripts;
} floor_ctx;

static bk_status floor_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *out, bk_error *err)
{
    (void)worker, (void)out;
    floor_ctx *f = vctx;
    const bk_block *blk = eb->block;
    if (!blk || !eb->undo) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "a block without undo data");
    size_t need = 32 * (size_t)blk->n_tx;
    if (need > f->cap) {
        uint8_t *p = realloc(f->ids, need);
        if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        f->ids = p;
        f->cap = need;
    }
    bk_block_txids(blk, f->ids);
    f->acc[0] ^= f->ids[0];
    uint8_t sh[32];
    bk_undo_iter ui;
    bk_undo_iter_init(&ui, eb->undo);
    for (size_t i = 0; i < blk->n_tx; i++) {
        uint32_t nc;
        if (i && bk_undo_next_tx(&ui, &nc)) {
            bk_coin c;
            while (nc-- && bk_undo_next_coin(&ui, &c)) {
                bk_sha256(sh, bk_coin_script(&c), c.script_len);
                f->acc[1] ^= sh[0];
                f->scripts++;
            }
        }
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, &blk->txs[i]);
        while (bk_txout_next(&oi, &o)) {
            bk_sha256(sh, o.script, o.script_len);
            f->acc[2] ^= sh[0];
            f->scripts++;
        }
    }
    return BK_OK;
}

static void floor_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    build_bench *b = ctx;
    (void)alloc;
    for (uint64_t it = 0; it < iters; it++) {
        bk_blocksdir d;
        bk_chain c;
        if (open_chain(b->dir, &d, &c, "AddressIndex/floor")) return;
        bk_error err;
        bk_engine_item *items = NULL;
        size_t n = 0, cap = 0;
        const bk_chain_entry *tip = bk_chain_tip(&c);
        bk_status st = bk_engine_chain_items(&c, 0, tip ? tip->height : -1, 0, &items, &n, &cap, NULL, NULL, NULL,
                                             &err);
        if (st == BK_OK && n != BK_BENCH_SAMPLE_BLOCKS)
            st = bk_error_set(&err, BK_ERR_INVALID, 0, "%zu blocks, not the bench's %d", n, BK_BENCH_SAMPLE_BLOCKS);
        floor_ctx f;
        memset(&f, 0, sizeof f);
        if (st == BK_OK) {
            bk_engine_opts o;
            bk_engine_opts_init(&o);
            o.chain = &c;
            o.dir = &d;
            o.items = items;
            o.n_items = n;
            o.read_flags = BK_READ_UNDO;
            o.run.workers = 1;
            o.block = floor_block;
            o.ctx = &f;
            bk_engine_result res;
            st = bk_engine_run(&o, &res, &err);
        }
        if (st != BK_OK) fprintf(stderr, "bench AddressIndex/floor: %s\n", err.msg);
        bk_bench_keep(f.acc);
        free(f.ids);
        free(items);
        bk_chain_free(&c);
        bk_blocksdir_close(&d);
        if (st != BK_OK) return;
    }
}

BK_BENCH(bench_addrindex_floor_j1, "AddressIndex/floor/sample/j1", "MB", BK_BENCH_SAMPLE_BYTES / 1e6,
         BK_BENCH_SAMPLE_BYTES, (const void *)(intptr_t)1, build_setup, floor_run, build_teardown)

/* ---- queries ----------------------------------------------------------- */

#define Q_BLOCKS 10000u
#define Q_FILLER 200000u

typedef struct query_bench {
    char dir[4096];
    bk_addrindex *ix;
    uint8_t sh[32];
    size_t want;
} query_bench;

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* A funding row: 'o' sh height pos vout -> value (u64 LE), flags. */
static void put_fund(leveldb_writebatch_t *b, const uint8_t sh[32], uint32_t height, uint32_t pos, uint64_t value)
{
    uint8_t k[45], v[9];
    k[0] = 'o';
    memcpy(k + 1, sh, 32);
    be32(k + 33, height);
    be32(k + 37, pos);
    be32(k + 41, 0);
    for (int i = 0; i < 8; i++) v[i] = (uint8_t)(value >> (8 * i));
    v[8] = 0;
    leveldb_writebatch_put(b, (const char *)k, sizeof k, (const char *)v, sizeof v);
}

static void sh_of(uint8_t sh[32], const char *what, uint32_t i)
{
    char s[64];
    int n = snprintf(s, sizeof s, "%s-%u", what, i);
    bk_sha256(sh, s, (size_t)n);
}

static int query_write(const char *dir)
{
    bk_addrindex_opts o;
    bk_addrindex_opts_init(&o);
    o.net = BK_NET_REGTEST;
    bk_addrindex *w = NULL;
    bk_error err;
    if (bk_addrindex_open(&w, dir, BK_ADDRINDEX_WRITE, &o, &err) != BK_OK) return 1; /* the version row */
    bk_addrindex_close(w);
    leveldb_options_t *lo = leveldb_options_create();
    leveldb_options_set_compression(lo, leveldb_snappy_compression);
    char *msg = NULL;
    leveldb_t *db = leveldb_open(lo, dir, &msg);
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    leveldb_writebatch_t *b = leveldb_writebatch_create();
    int rc = db ? 0 : 1;
    for (uint32_t h = 0; !rc && h < Q_BLOCKS; h++) {
        uint8_t k[9] = {'x'}, v[64];
        be32(k + 1, h);
        be32(k + 5, 0);
        sh_of(v, "txid0", h);
        sh_of(v + 32, "txid1", h);
        leveldb_writebatch_put(b, (const char *)k, sizeof k, (const char *)v, sizeof v);
        uint8_t sh[32];
        static const size_t counts[3] = {1, 100, 10000};
        for (int q = 0; q < 3; q++)
            if (h < counts[q]) {
                sh_of(sh, "query", (uint32_t)counts[q]);
                put_fund(b, sh, h, 1, 1000 + h);
            }
        for (uint32_t j = 0; j < Q_FILLER / Q_BLOCKS; j++) {
            sh_of(sh, "filler", h * (Q_FILLER / Q_BLOCKS) + j);
            put_fund(b, sh, h, 1, 546);
        }
        if (h % 1000 == 999) {
            leveldb_write(db, wo, b, &msg);
            leveldb_writebatch_clear(b);
            if (msg) rc = 1;
        }
    }
    if (!rc) {
        uint8_t t[36] = {0};
        uint32_t tip = Q_BLOCKS - 1;
        for (int i = 0; i < 4; i++) t[i] = (uint8_t)(tip >> (8 * i));
        leveldb_put(db, wo, "t", 1, (const char *)t, sizeof t, &msg);
        if (msg) rc = 1;
    }
    if (!rc) leveldb_compact_range(db, NULL, 0, NULL, 0); /* tables, as a built index settles to */
    leveldb_free(msg);
    leveldb_writebatch_destroy(b);
    leveldb_writeoptions_destroy(wo);
    if (db) leveldb_close(db);
    leveldb_options_destroy(lo);
    return rc;
}

static int query_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    query_bench *q = bk_alloc(alloc, sizeof *q);
    if (!q) return 1;
    memset(q, 0, sizeof *q);
    q->want = (size_t)(uintptr_t)arg;
    sh_of(q->sh, "query", (uint32_t)q->want);
    bk_error err;
    err.msg[0] = 0;
    bk_addr_tx *txs = NULL;
    size_t n = 0;
    int rc = bk_bench_tmpdir(q->dir, sizeof q->dir, "addrquery") || query_write(q->dir);
    if (!rc) {
        bk_addrindex_opts o;
        bk_addrindex_opts_init(&o);
        o.net = BK_NET_REGTEST;
        rc = bk_addrindex_open(&q->ix, q->dir, BK_ADDRINDEX_READ, &o, &err) != BK_OK ||
             bk_addrindex_history(q->ix, q->sh, 0, &txs, &n, &err) != BK_OK || n != q->want;
        if (rc) fprintf(stderr, "bench AddressQuery/history: %zu of %zu transactions %s\n", n, q->want, err.msg);
        bk_addrindex_free(q->ix, txs);
    }
    if (rc) {
        bk_addrindex_close(q->ix);
        if (q->dir[0]) bk_bench_rm_tree(q->dir);
        bk_free(alloc, q, sizeof *q);
        return 1;
    }
    *ctx = q;
    return 0;
}

static void query_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    query_bench *q = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_addr_tx *txs = NULL;
        size_t n = 0;
        bk_error err;
        if (bk_addrindex_history(q->ix, q->sh, 0, &txs, &n, &err) != BK_OK || n != q->want) {
            fprintf(stderr, "bench AddressQuery/history: %s\n", err.msg);
            break;
        }
        bk_bench_keep(txs);
        bk_addrindex_free(q->ix, txs);
    }
}

static void query_teardown(void *ctx, const bk_allocator *alloc)
{
    query_bench *q = ctx;
    bk_addrindex_close(q->ix);
    bk_bench_rm_tree(q->dir);
    bk_free(alloc, q, sizeof *q);
}

BK_BENCH(bench_addrquery_1, "AddressQuery/history/1", "query", 1, 0, (const void *)(uintptr_t)1, query_setup,
         query_run, query_teardown)
BK_BENCH(bench_addrquery_100, "AddressQuery/history/100", "query", 1, 0, (const void *)(uintptr_t)100, query_setup,
         query_run, query_teardown)
BK_BENCH(bench_addrquery_10000, "AddressQuery/history/10000", "query", 1, 0, (const void *)(uintptr_t)10000,
         query_setup, query_run, query_teardown)
