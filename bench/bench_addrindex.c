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
 * READ handle without the view cache; /100/cached: with it, the answer
 * kept after the first query) of a scripthash with that many transactions, in an index
 * built in setup (bk_addrindex_sync) over a chain written in setup: 10,000
 * coinbase-only blocks, each paying the scripts whose histories are
 * asked for and 20 others (200,000 in all). Every answer reads its
 * transactions from the blk file, as a query does. Setup checks the answer's length
 * first (a layout the reader no longer decodes is a failed setup, said on
 * stderr, never a fast empty answer). Unit = query. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <blockkit/addrindex.h>
#include <blockkit/engine.h>
#include <blockkit/sha256.h>
#include <blockkit/undo.h>

#include <sys/stat.h>

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
#define Q_FILLER 20u /* other scripts paid by each block: 200,000 in all */

#define QUERY_CACHED ((uintptr_t)1 << 30)

typedef struct query_bench {
    char dir[4096], blocks[4200];
    bk_addrindex *ix;
    uint8_t sh[32];
    size_t want;
} query_bench;

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A P2WSH script of a label: OP_0 <sha256(label)>. */
static void script_of(uint8_t s[34], const char *what, uint32_t i)
{
    char t[64];
    int n = snprintf(t, sizeof t, "%s-%u", what, i);
    s[0] = 0x00;
    s[1] = 0x20;
    bk_sha256(s + 2, t, (size_t)n);
}

/* One Core record: magic, size, payload. */
static int put_record(FILE *f, const uint8_t *p, size_t n)
{
    static const uint8_t magic[4] = {0xf9, 0xbe, 0xb4, 0xd9};
    uint8_t sz[4];
    le32(sz, (uint32_t)n);
    return fwrite(magic, 1, 4, f) != 4 || fwrite(sz, 1, 4, f) != 4 || fwrite(p, 1, n, f) != n;
}

/* A mainnet-framed chain of Q_BLOCKS coinbase-only blocks above the
 * genesis (blk00000.dat, rev00000.dat with their empty undo records):
 * block h pays the scripts "query-1" (h < 1), "query-100" (h < 100),
 * "query-10000" (h < 10000) and Q_FILLER others. Proof of work is not
 * made: no reader checks it. */
static int query_blocks(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/blk00000.dat", dir);
    FILE *bf = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/rev00000.dat", dir);
    FILE *rf = fopen(path, "wb");
    int rc = !bf || !rf;
    uint8_t prev[32];
    /* the mainnet genesis hash, internal order */
    static const char genesis[] = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";
    for (int i = 0; i < 32; i++) {
        unsigned x;
        sscanf(genesis + 2 * (31 - i), "%2x", &x);
        prev[i] = (uint8_t)x;
    }
    static const size_t counts[3] = {1, 100, 10000};
    uint8_t blk[81 + 64 + 43 * (3 + Q_FILLER)];
    for (uint32_t h = 1; !rc && h <= Q_BLOCKS; h++) {
        uint8_t tx[64 + 43 * (3 + Q_FILLER)]; /* 43: value, length, 34-byte script */
        size_t n = 0;
        le32(tx, 1);
        n = 4;
        tx[n++] = 1;                       /* one input: the coinbase */
        memset(tx + n, 0, 32);
        n += 32;
        memset(tx + n, 0xff, 4);
        n += 4;
        tx[n++] = 5;                       /* scriptSig: push of the height (BIP34) + a byte */
        tx[n++] = 4;
        le32(tx + n, h);
        n += 4;
        memset(tx + n, 0xff, 4);           /* nSequence */
        n += 4;
        uint8_t *n_out = tx + n++;
        *n_out = 0;
        for (int q = 0; q < 3; q++)
            if (h - 1 < counts[q]) {
                memset(tx + n, 0, 8);
                tx[n] = 0x10;
                n += 8;
                tx[n++] = 34;
                script_of(tx + n, "query", (uint32_t)counts[q]);
                n += 34;
                (*n_out)++;
            }
        for (uint32_t j = 0; j < Q_FILLER; j++) {
            memset(tx + n, 0, 8);
            tx[n] = 0x22;
            tx[n + 1] = 0x02;
            n += 8;
            tx[n++] = 34;
            script_of(tx + n, "filler", h * Q_FILLER + j);
            n += 34;
            (*n_out)++;
        }
        memset(tx + n, 0, 4);              /* nLockTime */
        n += 4;
        uint8_t txid[32];
        bk_sha256d(txid, tx, n);
        le32(blk, 0x20000000);
        memcpy(blk + 4, prev, 32);
        memcpy(blk + 36, txid, 32);        /* one tx: the root is its txid */
        le32(blk + 68, 1231006505u + 600 * h);
        le32(blk + 72, 0x1d00ffff);
        le32(blk + 76, h);
        blk[80] = 1;
        memcpy(blk + 81, tx, n);
        size_t bl = 81 + n;
        /* CBlockUndo of a coinbase-only block: no CTxUndo; the checksum
         * is SHA256d(parent hash || undo) */
        uint8_t undo[1 + 32] = {0}, ck_in[33];
        memcpy(ck_in, prev, 32);
        ck_in[32] = 0;
        bk_sha256d(undo + 1, ck_in, sizeof ck_in);
        rc = put_record(bf, blk, bl);
        if (!rc) {
            static const uint8_t magic[4] = {0xf9, 0xbe, 0xb4, 0xd9};
            uint8_t sz[4];
            le32(sz, 1);
            rc = fwrite(magic, 1, 4, rf) != 4 || fwrite(sz, 1, 4, rf) != 4 || fwrite(undo, 1, 33, rf) != 33;
        }
        bk_sha256d(prev, blk, 80);
    }
    if (bf && fclose(bf) != 0) rc = 1;
    if (rf && fclose(rf) != 0) rc = 1;
    return rc;
}

/* The index of that chain, built as `index build` builds one. */
static int query_write(query_bench *q)
{
    bk_blocksdir d;
    bk_chain c;
    bk_error err;
    err.msg[0] = 0;
    snprintf(q->blocks, sizeof q->blocks, "%s/blocks", q->dir);
    char ix[4300];
    snprintf(ix, sizeof ix, "%s/index", q->dir);
    if (mkdir(q->blocks, 0777) != 0 || query_blocks(q->blocks) != 0) return 1;
    if (bk_blocksdir_open(&d, q->blocks, BK_NET_MAIN, NULL, &err) != BK_OK) return 1;
    int rc = bk_chain_build(&c, &d, NULL, &err) != BK_OK;
    if (!rc) {
        bk_addrindex_opts o;
        bk_addrindex_opts_init(&o);
        o.net = BK_NET_MAIN;
        bk_addrindex *w = NULL;
        int64_t applied = 0, undone = 0;
        rc = bk_addrindex_open(&w, ix, BK_ADDRINDEX_WRITE, &o, &err) != BK_OK ||
             bk_addrindex_sync(w, &c, &d, &applied, &undone, &err) != BK_OK || applied != Q_BLOCKS;
        bk_addrindex_close(w);
        bk_chain_free(&c);
    }
    if (rc) fprintf(stderr, "bench AddressQuery: building the index: %s\n", err.msg);
    bk_blocksdir_close(&d);
    return rc;
}

static int query_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    query_bench *q = bk_alloc(alloc, sizeof *q);
    if (!q) return 1;
    memset(q, 0, sizeof *q);
    /* arg: the history's length, plus QUERY_CACHED for the row with the
     * handle's view cache (the others read every transaction each time) */
    q->want = (size_t)(uintptr_t)arg & ~QUERY_CACHED;
    int cached = ((uintptr_t)arg & QUERY_CACHED) != 0;
    uint8_t script[34];
    script_of(script, "query", (uint32_t)q->want);
    bk_addrindex_scripthash(script, sizeof script, q->sh);
    bk_error err;
    err.msg[0] = 0;
    bk_addr_tx *txs = NULL;
    size_t n = 0;
    int rc = bk_bench_tmpdir(q->dir, sizeof q->dir, "addrquery") || query_write(q);
    if (!rc) {
        bk_addrindex_opts o;
        bk_addrindex_opts_init(&o);
        o.net = BK_NET_MAIN;
        if (!cached) o.cache_bytes = 0;
        char ix[4300];
        snprintf(ix, sizeof ix, "%s/index", q->dir);
        rc = bk_addrindex_open(&q->ix, ix, BK_ADDRINDEX_READ, &o, &err) != BK_OK ||
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
BK_BENCH(bench_addrquery_100_cached, "AddressQuery/history/100/cached", "query", 1, 0,
         (const void *)(uintptr_t)(100 | QUERY_CACHED), query_setup, query_run, query_teardown)
BK_BENCH(bench_addrquery_10000, "AddressQuery/history/10000", "query", 1, 0, (const void *)(uintptr_t)10000,
         query_setup, query_run, query_teardown)
