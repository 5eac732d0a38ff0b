/* Export/floor/parquet/j1, Export/floor/parquet-lean/j1, Export/floor/csv/j1:
 * the part of an export's work that no writer of the same files can skip,
 * measured on the Export rows' directory (bench/sample_dir.c: 150 blocks,
 * 217 MB, every transaction distinct) on one CPU, so that the Export rows'
 * targets can be set against it (docs/export.md, "Export rows against their floors").
 *
 * One op:
 *  1. the block engine with one worker (bk_engine_run): every block and its
 *     undo record read (pread), de-obfuscated, the undo checksum verified,
 *     block and undo decoded, as in the Scan and Export rows;
 *  2. per block, what every row set of the profile holds and only a
 *     computation gives: the txids and wtxids (bk_block_txids_wtxids) and
 *     the type and address of every output and spent output through the
 *     export's own batched path (the cursors of json_internal.h: base58
 *     checksums by batch; the x-only key checks only where the profile
 *     writes descriptors, as the export does);
 *  3. the output: the bytes of the profile's files as the export writes
 *     them, taken once in setup from a real export of the directory (Parquet
 *     with the codec off, CSV as it is), are compressed as the writer
 *     compresses pages (zstd at the writer's default level, its settings,
 *     in pieces of the writer's page size; Parquet only), then hashed
 *     (SHA-256, the catalogue's digest of every file) and written with one
 *     fsync per file into a temporary directory, as the export commits a
 *     chunk.
 * Left out: every byte of row rendering and encoding (hex, text, levels,
 * dictionaries, statistics, Thrift), the catalogue and footers, so the row
 * is an upper bound on the MB/s any export of these files can reach here.
 * Unit = MB of blk input, as in the Export and Scan rows. */
#define _POSIX_C_SOURCE 200809L
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_literalCompressionMode, as the writer sets it */
#include "bench.h"
#include "../src/json/json_internal.h"

#include <blockkit/engine.h>
#include <blockkit/export.h>
#include <blockkit/sha256.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

typedef struct floor_file {
    uint8_t *data;
    size_t len;
} floor_file;

typedef struct floor_bench {
    char dir[4096];
    char out[4096];
    int keep;
    bk_table_format format;
    bk_table_profile profile;
    floor_file *files;
    size_t nfiles, cap;
    uint64_t raw_bytes;  /* the profile's files before compression */
    uint64_t bytes_out;  /* after (the last op) */
    uint8_t *ids;        /* txids and wtxids of a block */
    size_t ids_cap;
    uint8_t *zbuf;
    size_t zcap;
    ZSTD_CCtx *z;
    uint64_t addresses;
} floor_bench;

typedef struct floor_arg {
    bk_table_format format;
    bk_table_profile profile;
} floor_arg;

static int load_file(floor_bench *b, const char *path, const bk_allocator *alloc)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size <= 0) {
        fclose(f);
        return 1;
    }
    size_t n = (size_t)sb.st_size;
    uint8_t *p = bk_alloc(alloc, n);
    int rc = !p || fread(p, 1, n, f) != n;
    fclose(f);
    if (rc) {
        bk_free(alloc, p, n);
        return 1;
    }
    if (b->nfiles == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 64;
        floor_file *q = bk_realloc(alloc, b->files, b->cap * sizeof *q, nc * sizeof *q);
        if (!q) {
            bk_free(alloc, p, n);
            return 1;
        }
        b->files = q;
        b->cap = nc;
    }
    b->files[b->nfiles].data = p;
    b->files[b->nfiles].len = n;
    b->nfiles++;
    b->raw_bytes += n;
    return 0;
}

/* Every regular file under dir/<dataset>/ (not _blockkit/), loaded. */
static int load_tree(floor_bench *b, const char *dir, const bk_allocator *alloc)
{
    static const char *const ds[] = {"blocks", "transactions", "inputs", "outputs"};
    for (size_t k = 0; k < 4; k++) {
        char sub[4200];
        if (snprintf(sub, sizeof sub, "%s/%s", dir, ds[k]) >= (int)sizeof sub) return 1;
        DIR *d = opendir(sub);
        if (!d) return 1;
        struct dirent *e;
        int rc = 0;
        while (!rc && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char path[8400];
            if (snprintf(path, sizeof path, "%s/%s", sub, e->d_name) >= (int)sizeof path) {
                rc = 1;
                break;
            }
            rc = load_file(b, path, alloc);
        }
        closedir(d);
        if (rc) return 1;
    }
    return b->nfiles ? 0 : 1;
}

static void floor_teardown(void *ctx, const bk_allocator *alloc)
{
    floor_bench *b = ctx;
    if (b->bytes_out)
        fprintf(stderr, "Export/floor/%s%s: %zu files, %.1f MB before compression, %.1f MB written\n",
                bk_table_format_ext(b->format), b->profile == BK_PROFILE_LEAN ? "-lean" : "", b->nfiles,
                (double)b->raw_bytes / 1e6, (double)b->bytes_out / 1e6);
    for (size_t i = 0; i < b->nfiles; i++) bk_free(alloc, b->files[i].data, b->files[i].len);
    bk_free(alloc, b->files, b->cap * sizeof *b->files);
    free(b->ids); /* grown on the engine's worker with realloc */
    bk_free(alloc, b->zbuf, b->zcap);
    ZSTD_freeCCtx(b->z);
    bk_bench_rm_tree(b->out);
    if (!b->keep) bk_bench_rm_tree(b->dir);
    bk_free(alloc, b, sizeof *b);
}

static int floor_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    const floor_arg *a = arg;
    floor_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    b->format = a->format;
    b->profile = a->profile;
    if (bk_bench_sample_dir(b->dir, sizeof b->dir, &b->keep, alloc) != 0) {
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    if (bk_bench_tmpdir(b->out, sizeof b->out, "floor")) { /* out is "": nothing to remove */
        floor_teardown(b, alloc);
        return 1;
    }
    /* the files of the profile, as the Export rows write them (their chunk
     * size), Parquet uncompressed: what the writer hands to zstd */
    char ex[4200];
    snprintf(ex, sizeof ex, "%s/export", b->out);
    bk_export_opts o;
    bk_export_opts_init(&o);
    o.blocksdir = b->dir;
    o.out_dir = ex;
    o.format = b->format;
    o.profile = b->profile;
    o.chunk_size = 15;
    o.workers = 1;
    o.pq.codec = BK_PQ_UNCOMPRESSED;
    bk_export_stats st;
    bk_error err;
    bk_pq_opts dflt;
    bk_pq_opts_init(&dflt);
    b->z = ZSTD_createCCtx();
    if (!b->z || bk_export_run(&o, &st, &err) != BK_OK || st.blocks != BK_BENCH_SAMPLE_BLOCKS ||
        load_tree(b, ex, alloc) != 0) {
        floor_teardown(b, alloc);
        return 1;
    }
    bk_bench_rm_tree(ex);
    /* the writer's zstd settings (src/parquet/writer.c) */
    ZSTD_CCtx_setParameter(b->z, ZSTD_c_compressionLevel, dflt.zstd_level);
    ZSTD_CCtx_setParameter(b->z, ZSTD_c_literalCompressionMode, 1 /* ZSTD_ps_enable */);
    if (dflt.zstd_level < 0) ZSTD_CCtx_setParameter(b->z, ZSTD_c_minMatch, 7);
    b->zcap = ZSTD_compressBound(dflt.page_size);
    b->zbuf = bk_alloc(alloc, b->zcap);
    if (!b->zbuf) {
        floor_teardown(b, alloc);
        return 1;
    }
    *ctx = b;
    return 0;
}

/* Step 2 for one block. */
static bk_status floor_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *out, bk_error *err)
{
    (void)worker, (void)out;
    floor_bench *b = vctx;
    const bk_block *blk = eb->block;
    if (!blk || !eb->undo) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "a block without undo data");
    size_t need = 64 * blk->n_tx;
    if (need > b->ids_cap) {
        uint8_t *p = realloc(b->ids, need);
        if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        b->ids = p;
        b->ids_cap = need;
    }
    bk_block_txids_wtxids(blk, b->ids, b->ids + 32 * blk->n_tx);
    bk_script_cursors_ cur;
    bk_script_cursors_init_(&cur, blk, eb->undo, BK_NET_MAIN);
    cur.skip_taproot = b->profile == BK_PROFILE_LEAN; /* descriptors need the key checks */
    bk_undo_iter ui;
    bk_undo_iter_init(&ui, eb->undo);
    for (size_t i = 0; i < blk->n_tx; i++) {
        const bk_tx *tx = &blk->txs[i];
        bk_script_info info;
        uint32_t nc;
        if (i && bk_undo_next_tx(&ui, &nc)) {
            bk_coin c;
            while (nc-- && bk_undo_next_coin(&ui, &c)) {
                if (bk_script_info_cursors_(bk_coin_script(&c), c.script_len, BK_NET_MAIN, &cur, &info) != BK_OK)
                    return bk_error_set(err, BK_ERR_ARG, 0, "script info");
                b->addresses += info.address_len;
            }
        }
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, tx);
        while (bk_txout_next(&oi, &o)) {
            if (bk_script_info_cursors_(o.script, o.script_len, BK_NET_MAIN, &cur, &info) != BK_OK)
                return bk_error_set(err, BK_ERR_ARG, 0, "script info");
            b->addresses += info.address_len;
        }
    }
    return BK_OK;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Step 3: compress (Parquet), hash and write every file. */
static int floor_output(floor_bench *b)
{
    bk_pq_opts dflt;
    bk_pq_opts_init(&dflt);
    uint64_t total = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/f", b->out);
    for (size_t i = 0; i < b->nfiles; i++) {
        const floor_file *f = &b->files[i];
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0) return 1;
        bk_sha256_ctx h;
        bk_sha256_init(&h);
        int rc = 0;
        for (size_t at = 0; at < f->len && !rc;) {
            size_t n = f->len - at;
            const uint8_t *p = f->data + at;
            if (b->format == BK_TABLE_PARQUET) {
                if (n > dflt.page_size) n = dflt.page_size;
                size_t z = ZSTD_compress2(b->z, b->zbuf, b->zcap, p, n);
                if (ZSTD_isError(z)) {
                    rc = 1;
                    break;
                }
                at += n;
                p = b->zbuf;
                n = z;
            } else {
                if (n > ((size_t)1 << 20)) n = (size_t)1 << 20; /* the chunk file's write buffer */
                at += n;
            }
            bk_sha256_update(&h, p, n);
            rc = write_all(fd, p, n);
            total += n;
        }
        uint8_t d[32];
        bk_sha256_final(&h, d);
        bk_bench_keep(d);
        if (fsync(fd) != 0) rc = 1;
        close(fd);
        if (rc) return 1;
    }
    unlink(path);
    b->bytes_out = total;
    return 0;
}

static void floor_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    floor_bench *b = ctx;
    (void)alloc; /* the engine's allocations through the default allocator, as in Export/j1's chain */
    for (uint64_t it = 0; it < iters; it++) {
        bk_error err;
        bk_blocksdir d;
        bk_chain c;
        if (bk_blocksdir_open(&d, b->dir, BK_NET_MAIN, NULL, &err) != BK_OK) {
            fprintf(stderr, "bench Export/floor: %s\n", err.msg);
            return;
        }
        if (bk_chain_build(&c, &d, NULL, &err) != BK_OK) {
            fprintf(stderr, "bench Export/floor: %s\n", err.msg);
            bk_blocksdir_close(&d);
            return;
        }
        bk_engine_item *items = NULL;
        size_t n = 0, cap = 0;
        const bk_chain_entry *tip = bk_chain_tip(&c);
        bk_status st = bk_engine_chain_items(&c, 0, tip ? tip->height : -1, 0, &items, &n, &cap, NULL, NULL, NULL,
                                             &err);
        if (st == BK_OK && n != BK_BENCH_SAMPLE_BLOCKS)
            st = bk_error_set(&err, BK_ERR_INVALID, 0, "%zu blocks, not the bench's %d", n, BK_BENCH_SAMPLE_BLOCKS);
        if (st == BK_OK) {
            bk_engine_opts o;
            bk_engine_opts_init(&o);
            o.chain = &c;
            o.dir = &d;
            o.items = items;
            o.n_items = n;
            o.read_flags = BK_READ_UNDO; /* as the export reads */
            o.run.workers = 1;
            o.block = floor_block;
            o.ctx = b;
            bk_engine_result res;
            st = bk_engine_run(&o, &res, &err);
        }
        free(items);
        bk_chain_free(&c);
        bk_blocksdir_close(&d);
        if (st != BK_OK) {
            fprintf(stderr, "bench Export/floor: %s\n", err.msg);
            return;
        }
        if (floor_output(b) != 0) {
            fprintf(stderr, "bench Export/floor: writing the output failed\n");
            return;
        }
    }
}

static const floor_arg FLOOR_PQ = {BK_TABLE_PARQUET, BK_PROFILE_DEFAULT},
                       FLOOR_LEAN = {BK_TABLE_PARQUET, BK_PROFILE_LEAN}, FLOOR_CSV = {BK_TABLE_CSV, BK_PROFILE_DEFAULT};

BK_BENCH(bench_export_floor_pq, "Export/floor/parquet/j1", "MB", BK_BENCH_SAMPLE_BYTES / 1e6, BK_BENCH_SAMPLE_BYTES,
         &FLOOR_PQ, floor_setup, floor_run, floor_teardown)
BK_BENCH(bench_export_floor_lean, "Export/floor/parquet-lean/j1", "MB", BK_BENCH_SAMPLE_BYTES / 1e6,
         BK_BENCH_SAMPLE_BYTES, &FLOOR_LEAN, floor_setup, floor_run, floor_teardown)
BK_BENCH(bench_export_floor_csv, "Export/floor/csv/j1", "MB", BK_BENCH_SAMPLE_BYTES / 1e6, BK_BENCH_SAMPLE_BYTES,
         &FLOOR_CSV, floor_setup, floor_run, floor_teardown)
