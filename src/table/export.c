/* bk_export_run (blockkit/export.h): chain, chunk plan, and the library's
 * ordered block engine (blockkit/engine.h) with one task per chunk: a
 * worker opens the chunk's files, turns each block the engine read for it
 * (pread into the worker's reader, de-obfuscated there, never mapped) into
 * rows, and commits the files; the calling thread takes the finished
 * chunks in height order. Memory is the workers' readers and table
 * writers only. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockstats.h>
#include <blockkit/engine.h>
#include <blockkit/export.h>
#include <blockkit/filters.h>
#include <blockkit/silentpay.h>

#include "catalog_internal.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct ex_chunk {
    size_t job0, njobs;
    int64_t first, last;
    unsigned wanted;             /* datasets to write */
    uint64_t bytes;              /* block bytes */
} ex_chunk;

typedef struct ex_worker {
    bk_table_scratch scratch;
    bk_block_stats_scratch stats;  /* block_stats: getblockstats' tables */
    bk_blockfilter filter;         /* block_filters: the builder */
    bk_sp_scratch sp;              /* sp_tweaks, sp_outputs: the key sums */
    uint8_t fhdr[32];              /* block_filters: the header of the last best-chain block of the chunk */
    bk_chunk_file files[BK_DS_COUNT_];
    bk_pq_kv kv[BK_DS_COUNT_][BK_EXPORT_FOOTER_KEYS]; /* Parquet: the footer's provenance */
    char kv_text[BK_DS_COUNT_][1024];
    bk_table_writer *tw[BK_DS_COUNT_];  /* the open tables of the chunk being written */
    int opened[BK_DS_COUNT_];
    /* the chunk in flight, for progress (atomics: the calling thread reads them) */
    size_t busy_task;            /* task + 1; 0: idle */
    uint64_t busy_since_ns, busy_bytes;
} ex_worker;

typedef struct ex_run {
    const bk_export_opts *o;
    bk_pq_opts pq;             /* o->pq with the row group bounded by the memory budget */
    bk_blocksdir dir;
    bk_chain chain;
    bk_engine_item *jobs;
    size_t njobs;
    ex_chunk *chunks;
    size_t nchunks;
    uint8_t (*chunk_hdr)[32];  /* block_filters: the filter header before each chunk's first height */
    size_t hdr_next;           /* the pre-pass: the next chunk whose header is due */
    ex_worker *workers;
    /* updated by the workers (atomics), read by the calling thread */
    uint64_t blocks_done, bytes_done, chunks_done, files_done, bytes_out, missing_undo;
    uint64_t rows[BK_DS_COUNT_];
    int64_t max_done;
    uint64_t blocks_total, bytes_total;
    uint64_t bytes_committed, committed_ns;  /* atomics */
    bk_export_chunk_progress *busy;          /* one per worker, filled by export_progress */
    int nworkers;
    double t1;
    /* provenance (catalog.c): the catalogue, with the chunks of this run
     * added as they are committed (under cat_lock) */
    bk_catalog cat;
    pthread_mutex_t cat_lock;
    bk_ds_manifest man[BK_DS_COUNT_];
    bk_table_schema schema[BK_DS_COUNT_]; /* the columns written of each dataset */
} ex_run;

void bk_export_opts_init(bk_export_opts *o)
{
    memset(o, 0, sizeof *o);
    o->net = BK_NET_MAIN;
    o->format = BK_TABLE_PARQUET;
    bk_pq_opts_init(&o->pq);
    o->pq.row_group_size = (size_t)32 << 20;
    o->end = -1;
    o->chunk_size = 10000;
    o->workers = 1;
}

bk_status bk_export_datasets_parse(const char *list, unsigned *bits_out)
{
    unsigned bits = 0;
    const char *p = list;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char name[32];
        if (n == 0 || n >= sizeof name) return BK_ERR_ARG;
        memcpy(name, p, n);
        name[n] = 0;
        bk_dataset ds;
        if (!strcmp(name, "all")) bits |= BK_DS_DEFAULT_MASK;
        else if (bk_dataset_parse(name, &ds) == BK_OK) bits |= 1u << ds;
        else return BK_ERR_ARG;
        p = e ? e + 1 : NULL;
    }
    if (!bits) return BK_ERR_ARG;
    *bits_out = bits;
    return BK_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Task begin: open the chunk's files (temporary names). */
static bk_status chunk_begin(void *vctx, int worker, size_t task, bk_error *err)
{
    ex_run *R = vctx;
    ex_worker *W = &R->workers[worker];
    const ex_chunk *ch = &R->chunks[task];
    const bk_export_opts *o = R->o;
    bk_status st = BK_OK;
    memset(W->tw, 0, sizeof W->tw);
    memset(W->opened, 0, sizeof W->opened);
    __atomic_store_n(&W->busy_task, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&W->busy_bytes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&W->busy_since_ns, now_ns(), __ATOMIC_RELAXED);
    __atomic_store_n(&W->busy_task, task + 1, __ATOMIC_RELEASE);
    if (R->chunk_hdr) memcpy(W->fhdr, R->chunk_hdr[task], 32);
    for (int d = 0; d < BK_DS_COUNT_ && st == BK_OK; d++) {
        if (!(ch->wanted & (1u << d))) continue;
        const bk_table_schema *sc = &R->schema[d];
        st = bk_chunk_file_open(&W->files[d], o->out_dir, bk_dataset_name((bk_dataset)d), ch->first, ch->last,
                                o->format, sc->cols, sc->ncols, &R->pq, o->alloc, err);
        if (st == BK_OK) {
            W->opened[d] = 1;
            W->tw[d] = &W->files[d].table;
            bk_table_set_columns(W->tw[d], sc->map, sc->nmap);
        }
    }
    return st;
}

/* One block's rows into the worker's open tables. */
static bk_status export_block_rows(void *vctx, int worker, const bk_engine_block *eb, bk_error *err)
{
    ex_run *R = vctx;
    ex_worker *W = &R->workers[worker];
    const bk_export_opts *o = R->o;
    bk_table_writer **tw = W->tw;
    const bk_engine_item *job = &R->jobs[eb->item];
    const bk_chain_entry *e = eb->entry;
    bk_status st = BK_OK;
    uint64_t rows0[BK_DS_COUNT_];
    if (!eb->block) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block at height %lld: no block data", (long long)job->height);
    const bk_block b = *eb->block;
    bk_error e2;
    bk_block_undo undo, *up = NULL;
    if (eb->undo && b.n_tx > 1) {
        undo = *eb->undo;
        up = &undo;
    } else if (b.n_tx > 1) {
        if (!o->allow_missing_undo)
            return bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                                "block at height %lld has no undo data in rev*.dat (not written yet?); "
                                "pass --allow-missing-undo to export it with null spent columns",
                                (long long)job->height);
        __atomic_fetch_add(&R->missing_undo, 1, __ATOMIC_RELAXED);
    }
    bk_table_block_info info;
    memset(&info, 0, sizeof info);
    info.net = o->net;
    info.height = job->height;
    info.hash = e->hash;
    info.mediantime = job->orphan ? -1 : e->mediantime;
    info.chainwork = job->orphan ? NULL : e->chainwork;
    for (int d = 0; d < BK_DS_COUNT_; d++) rows0[d] = tw[d] ? tw[d]->rows : 0;
    st = bk_table_block_rows(tw, &b, up, &info, &W->scratch, &e2);
    if (st != BK_OK) return bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
    if (tw[BK_DS_BLOCK_STATS]) {
        /* getblockstats: with the block's undo data (an empty one for a
         * coinbase-only block; Core has none for a block without undo:
         * nulls, --allow-missing-undo). */
        static const uint8_t empty_undo[1] = {0};
        bk_block_undo eu;
        const bk_block_undo *su = up;
        if (!su && b.n_tx == 1 && bk_block_undo_parse(empty_undo, 1, &eu, NULL) == BK_OK) su = &eu;
        bk_block_stats bs;
        int have = 0;
        if (su || job->height == 0) {
            bk_chain_context ctx;
            memset(&ctx, 0, sizeof ctx);
            ctx.network = o->net;
            ctx.height = job->height;
            ctx.mediantime = job->orphan ? (int64_t)b.header.time : e->mediantime;
            bk_block_stats_opts so;
            bk_block_stats_opts_init(&so);
            so.hash = e->hash;
            st = bk_block_stats_compute(&W->stats, &b, su, &ctx, &so, &bs, &e2);
            if (st != BK_OK)
                return bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
            have = 1;
        }
        st = bk_table_block_stats_row(tw[BK_DS_BLOCK_STATS], have ? &bs : NULL, job->height, e->hash, &e2);
        if (st != BK_OK) return bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
    }
    if (tw[BK_DS_BLOCK_FILTERS]) {
        /* BIP158 needs the coins the block spends: no undo, no filter */
        if (b.n_tx > 1 && !eb->undo)
            return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block at height %lld has no undo data: block_filters "
                                "needs it (the spent coins' scripts)", (long long)job->height);
        st = bk_blockfilter_build(&W->filter, &b, b.n_tx > 1 ? eb->undo : NULL, &e2);
        if (st != BK_OK) return bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
        /* the header chain runs along the best chain; an orphan has none */
        if (!job->orphan) bk_blockfilter_header(W->filter.filter, W->filter.filter_len, W->fhdr, W->fhdr);
        st = bk_table_block_filter_row(tw[BK_DS_BLOCK_FILTERS], job->height, e->hash, W->filter.filter,
                                       W->filter.filter_len, job->orphan ? NULL : W->fhdr, &e2);
        if (st != BK_OK) return bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
    }
    if (tw[BK_DS_SP_TWEAKS] || tw[BK_DS_SP_OUTPUTS]) {
        /* BIP352 needs the spent scripts: no undo, no tweaks */
        if (b.n_tx > 1 && !eb->undo)
            return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block at height %lld has no undo data: sp_tweaks and "
                                "sp_outputs need it (the spent coins' scripts)", (long long)job->height);
        st = bk_table_sp_rows(tw[BK_DS_SP_TWEAKS], tw[BK_DS_SP_OUTPUTS], &b, b.n_tx > 1 ? eb->undo : NULL,
                              job->height, e->hash, &W->sp, &e2);
        if (st != BK_OK) return bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
    }
    for (int d = 0; d < BK_DS_COUNT_; d++)
        if (tw[d]) __atomic_fetch_add(&R->rows[d], tw[d]->rows - rows0[d], __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->blocks_done, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&R->bytes_done, e->size, __ATOMIC_RELAXED);
    __atomic_fetch_add(&W->busy_bytes, e->size, __ATOMIC_RELAXED);
    return BK_OK;
}

/* export_block_rows, with a failed write named as the file and its errno
 * (a table writer only knows that its sink failed). */
static bk_status export_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *out, bk_error *err)
{
    (void)out;
    bk_status st = export_block_rows(vctx, worker, eb, err);
    if (st != BK_ERR_IO) return st;
    const ex_run *R = vctx;
    const ex_worker *W = &R->workers[worker];
    for (int d = 0; d < BK_DS_COUNT_; d++)
        if (W->opened[d] && W->files[d].failed)
            return bk_error_set(err, BK_ERR_IO, 0, "block at height %lld: %s: write error: %s",
                                (long long)R->jobs[eb->item].height, W->files[d].tmp_path,
                                strerror(W->files[d].err_no));
    return st;
}

/* Task end: commit the chunk's files (rename to the final names), or
 * remove them when the chunk failed or was cancelled. */
/* What the catalogue and the footer say of chunk ch's file of dataset d
 * (bytes, sha256 and mtime are the commit's). */
static void chunk_entry(const ex_run *R, const ex_chunk *ch, int d, uint64_t rows, bk_catalog_entry *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->file, sizeof e->file, "%s/%s_%08lld_%08lld.%s", bk_dataset_name((bk_dataset)d),
             bk_dataset_name((bk_dataset)d), (long long)ch->first, (long long)ch->last,
             bk_table_format_ext(R->o->format));
    e->dataset = (bk_dataset)d;
    e->format = R->o->format;
    e->net = R->o->net;
    e->first = ch->first;
    e->last = ch->last;
    bk_export_chunk_hashes(&R->chain, ch->first, ch->last, e->first_hash, e->last_hash, e->chain_sha256);
    e->rows = rows;
    e->schema = BK_EXPORT_SCHEMA_VERSION;
}

/* After a chunk file's rename: its catalogue line (appended and fsynced
 * at once, so a crash loses at most the line of a file a rerun then
 * rewrites) and the entry in R->cat. */
static bk_status chunk_listed(ex_run *R, bk_catalog_entry *e, const bk_chunk_file *f, bk_error *err)
{
    struct stat sb;
    if (stat(f->path, &sb) != 0) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", f->path, strerror(errno));
    e->bytes = f->size;
    memcpy(e->sha256, f->sha256, 32);
    e->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    __atomic_fetch_add(&R->bytes_out, (uint64_t)sb.st_size, __ATOMIC_RELAXED);
    bk_status st = bk_catalog_append(R->o->out_dir, e, err);
    if (st != BK_OK) return st;
    pthread_mutex_lock(&R->cat_lock);
    st = bk_catalog_put(&R->cat, e, err);
    pthread_mutex_unlock(&R->cat_lock);
    return st;
}

static bk_status chunk_end(void *vctx, int worker, size_t task, bk_status st, bk_writer *out, bk_error *err)
{
    (void)out;
    ex_run *R = vctx;
    ex_worker *W = &R->workers[worker];
    for (int d = 0; d < BK_DS_COUNT_; d++) {
        if (!W->opened[d]) continue;
        W->opened[d] = 0;
        if (st == BK_OK) {
            bk_catalog_entry ce;
            chunk_entry(R, &R->chunks[task], d, W->files[d].table.rows, &ce);
            bk_export_footer_keys(&ce, W->kv[d], W->kv_text[d], sizeof W->kv_text[d]);
            bk_table_set_metadata(&W->files[d].table, W->kv[d], BK_EXPORT_FOOTER_KEYS);
            st = bk_chunk_file_commit(&W->files[d], err);
            if (st == BK_OK) {
                __atomic_fetch_add(&R->files_done, 1, __ATOMIC_RELAXED);
                st = chunk_listed(R, &ce, &W->files[d], err);
            }
        } else {
            bk_chunk_file_abort(&W->files[d]);
        }
    }
    uint64_t since = __atomic_load_n(&W->busy_since_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&W->busy_task, 0, __ATOMIC_RELEASE);
    if (st == BK_OK) {
        __atomic_fetch_add(&R->committed_ns, now_ns() - since, __ATOMIC_RELAXED);
        __atomic_fetch_add(&R->bytes_committed, R->chunks[task].bytes, __ATOMIC_RELAXED);
        __atomic_fetch_add(&R->chunks_done, 1, __ATOMIC_RELAXED);
        int64_t last = R->chunks[task].last, cur = __atomic_load_n(&R->max_done, __ATOMIC_RELAXED);
        while (last > cur &&
               !__atomic_compare_exchange_n(&R->max_done, &cur, last, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    }
    return st;
}

static void export_progress(void *vctx)
{
    ex_run *R = vctx;
    const bk_export_opts *o = R->o;
    if (!o->progress) return;
    bk_export_progress p;
    p.height = __atomic_load_n(&R->max_done, __ATOMIC_RELAXED);
    p.blocks_done = __atomic_load_n(&R->blocks_done, __ATOMIC_RELAXED);
    p.bytes_done = __atomic_load_n(&R->bytes_done, __ATOMIC_RELAXED);
    p.blocks_total = R->blocks_total;
    p.bytes_total = R->bytes_total;
    p.chunks_done = __atomic_load_n(&R->chunks_done, __ATOMIC_RELAXED);
    p.chunks_total = R->nchunks;
    p.seconds = now_s() - R->t1;
    p.bytes_committed = __atomic_load_n(&R->bytes_committed, __ATOMIC_RELAXED);
    p.chunk_seconds = (double)__atomic_load_n(&R->committed_ns, __ATOMIC_RELAXED) / 1e9;
    p.workers = R->nworkers;
    p.busy = R->busy;
    p.n_busy = 0;
    uint64_t t = now_ns();
    for (int w = 0; R->busy && R->workers && w < R->nworkers; w++) {
        ex_worker *W = &R->workers[w];
        size_t task = __atomic_load_n(&W->busy_task, __ATOMIC_ACQUIRE);
        if (!task) continue;
        uint64_t since = __atomic_load_n(&W->busy_since_ns, __ATOMIC_RELAXED);
        uint64_t bytes = __atomic_load_n(&W->busy_bytes, __ATOMIC_RELAXED);
        if (__atomic_load_n(&W->busy_task, __ATOMIC_ACQUIRE) != task) continue; /* it moved on meanwhile */
        const ex_chunk *ch = &R->chunks[task - 1];
        bk_export_chunk_progress *b = &R->busy[p.n_busy++];
        b->first = ch->first;
        b->last = ch->last;
        b->bytes_total = ch->bytes;
        b->bytes_done = bytes < ch->bytes ? bytes : ch->bytes;
        b->seconds = t > since ? (double)(t - since) / 1e9 : 0;
    }
    o->progress(o->progress_ctx, &p);
}

/* The engine's failure as export's error (height and file position; the
 * hash is left out to keep the message within bk_error). */
static bk_status export_error(const bk_engine_where *w, const bk_error *e2, bk_status st, bk_error *err)
{
    unsigned long long off = (unsigned long long)w->file_offset;
    long long h = (long long)w->height;
    switch (w->stage) {
    case BK_STAGE_READ:
    case BK_STAGE_UNDO_READ:
        return bk_error_set(err, st, e2->offset, "block at height %lld: %s", h, e2->msg);
    case BK_STAGE_DECODE:
        return bk_error_set(err, st, e2->offset, "block at height %lld (blk%05u.dat offset %llu): %s at byte %llu", h,
                            w->file, off, e2->msg, (unsigned long long)e2->offset);
    case BK_STAGE_UNDO_CHECKSUM:
    case BK_STAGE_UNDO_DECODE:
        return bk_error_set(err, st, e2->offset, "undo of block at height %lld (rev%05u.dat offset %llu): %s", h,
                            w->file, off, e2->msg);
    default:
        if (err) *err = *e2;
        return st;
    }
}

static int cmp_job(const void *a, const void *b)
{
    const bk_engine_item *x = a, *y = b;
    if (x->height != y->height) return x->height < y->height ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Whether the chunk file at path can stay: listed in the catalogue and
 * passing every check --verify makes (bk_export_check_chunk) against the
 * chain now. Anything else under the name is rewritten; a non-file under
 * it is an error (the rename cannot replace it). */
static bk_status chunk_keep(ex_run *R, const char *path, int *keep, uint64_t *rewritten, bk_error *err)
{
    *keep = 0;
    struct stat sb;
    if (lstat(path, &sb) != 0) return errno == ENOENT ? BK_OK : bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return bk_error_set(err, BK_ERR_IO, 0, "%s is not a regular file, and a chunk is to be written under that "
                            "name: move it away", path);
    size_t ol = strlen(R->o->out_dir);
    const bk_catalog_entry *e = bk_catalog_find(&R->cat, path + ol + 1);
    char why[512];
    *keep = e && bk_export_check_chunk(R->o->out_dir, e, &R->chain, R->o->net, 0, why, sizeof why) == BK_CHUNK_OK;
    if (!*keep) (*rewritten)++;
    return BK_OK;
}

/* Listed chunks above the range whose blocks left the best chain: removed
 * (a rerun or --follow leaves what --verify would accept). */
static void sweep_reorged(ex_run *R, unsigned dsets, int64_t end, uint64_t *removed)
{
    for (size_t i = 0; i < R->cat.n; i++) {
        const bk_catalog_entry *e = &R->cat.e[i];
        if (!(dsets & (1u << e->dataset)) || e->last <= end || e->format != R->o->format) continue;
        char why[512];
        if (bk_export_check_chunk(R->o->out_dir, e, &R->chain, R->o->net, 0, why, sizeof why) != BK_CHUNK_REORGED)
            continue;
        char p[BK_CHUNK_PATH_MAX + BK_CATALOG_FILE_MAX];
        snprintf(p, sizeof p, "%s/%s", R->o->out_dir, e->file);
        if (unlink(p) == 0) (*removed)++;
    }
}

/* The datasets manifest against this run: one format, chunk size and
 * network per dataset of an output directory. */
static bk_status manifest_check(ex_run *R, unsigned dsets, int *found, bk_error *err)
{
    const bk_export_opts *o = R->o;
    bk_status st = bk_manifest_load(o->out_dir, R->man, found, err);
    if (st != BK_OK) return st;
    for (int d = 0; d < BK_DS_COUNT_; d++) {
        if (!(dsets & (1u << d))) continue;
        bk_ds_manifest *m = &R->man[d];
        /* the columns this run writes, as the manifest keeps them */
        bk_table_schema *sc = &R->schema[d];
        if ((st = bk_table_schema_build(sc, (bk_dataset)d, o->profile, o->columns, o->exclude_columns, err)) != BK_OK)
            return st;
        char cols[sizeof m->columns];
        size_t at = 0;
        for (size_t k = 0; k < sc->ncols && at < sizeof cols; k++)
            at += (size_t)snprintf(cols + at, sizeof cols - at, "%s%s", k ? "," : "", sc->cols[k].name);
        if (m->present && (m->profile != o->profile || strcmp(m->columns, cols) != 0))
            return bk_error_set(err, BK_ERR_ARG, 0,
                                "%s holds %s with profile %s and other columns (_blockkit/datasets.ndjson); this run "
                                "asks for profile %s and columns %.200s: use the same --profile and --columns, or "
                                "another --out",
                                o->out_dir, bk_dataset_name((bk_dataset)d), bk_table_profile_name(m->profile),
                                bk_table_profile_name(o->profile), cols);
        m->profile = o->profile;
        memcpy(m->columns, cols, sizeof cols);
        if (m->present && (m->format != o->format || m->chunk_size != o->chunk_size || m->net != o->net)) {
            const bk_network_params *a = bk_network_get(m->net), *b = bk_network_get(o->net);
            return bk_error_set(err, BK_ERR_ARG, 0,
                                "%s holds %s as %s chunks of %lld heights of %s (_blockkit/datasets.ndjson); this run "
                                "asks for %s chunks of %lld of %s: use the same --format, --chunk-size and network, or "
                                "another --out",
                                o->out_dir, bk_dataset_name((bk_dataset)d), bk_table_format_ext(m->format),
                                (long long)m->chunk_size, a ? a->name : "?", bk_table_format_ext(o->format),
                                (long long)o->chunk_size, b ? b->name : "?");
        }
        if (!m->present) {
            m->present = 1;
            m->format = o->format;
            m->net = o->net;
            m->chunk_size = o->chunk_size;
            m->start = o->start;
            m->end = -1;
        } else if (o->start < m->start) {
            m->start = o->start;
        }
    }
    return BK_OK;
}

/* The pre-pass of block_filters: the header before each chunk's first
 * height, from the filters of every best-chain block below it (a filter
 * header commits to all of them; blockkit/filters.h). */
static bk_status hdr_emit(void *vctx, size_t item, const bk_chain_entry *e, int64_t height, const uint8_t *filter,
                          size_t len, const uint8_t *header, bk_error *err)
{
    (void)item, (void)e, (void)filter, (void)len, (void)err;
    ex_run *R = vctx;
    while (R->hdr_next < R->nchunks && R->chunks[R->hdr_next].first - 1 <= height) {
        if (R->chunks[R->hdr_next].first - 1 == height) memcpy(R->chunk_hdr[R->hdr_next], header, 32);
        R->hdr_next++;
    }
    return BK_OK;
}

static bk_status filter_headers(ex_run *R, int workers, bk_error *err)
{
    const bk_export_opts *o = R->o;
    const bk_chain *c = &R->chain;
    int64_t top = -1;
    int any = 0;
    for (size_t k = 0; k < R->nchunks; k++) {
        memset(R->chunk_hdr[k], 0, 32);
        if (!(R->chunks[k].wanted & (1u << BK_DS_BLOCK_FILTERS))) continue;
        any = 1;
        if (R->chunks[k].first - 1 > top) top = R->chunks[k].first - 1;
    }
    if (!any) return BK_OK;
    if (c->base_height != 0 || c->prune_height > 0)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block_filters: filter headers need every block from the "
                            "genesis, and the blocks below height %d are not in the files",
                            (int)(c->prune_height > c->base_height ? c->prune_height : c->base_height));
    if (top < 0) return BK_OK; /* every chunk starts at the genesis */
    const bk_chain_entry *te = bk_chain_at_height(c, top);
    if (!te) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block_filters: no block at height %lld", (long long)top);
    size_t n = (size_t)top + 1;
    bk_engine_item *items = bk_alloc(o->alloc, n * sizeof *items);
    if (!items) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    bk_status st = bk_filter_path(c, te, 0, items, err);
    if (st == BK_OK) {
        bk_filter_run_opts fo;
        bk_filter_run_opts_init(&fo);
        fo.chain = c;
        fo.dir = &R->dir;
        fo.items = items;
        fo.n_items = n;
        fo.headers = 1;
        fo.run.workers = workers;
        fo.run.window = 4 * (size_t)workers + 2;
        fo.run.cancel = o->cancel;
        fo.run.alloc = o->alloc;
        fo.emit = hdr_emit;
        fo.ctx = R;
        R->hdr_next = 0;
        bk_engine_result res;
        bk_error e2;
        bk_error_clear(&e2);
        st = bk_filter_run(&fo, &res, &e2);
        if (st == BK_ERR_CANCELLED) bk_error_set(err, st, 0, "cancelled");
        else if (st != BK_OK) {
            char m[4608];
            bk_engine_error_format(&res.where, &e2, m, sizeof m);
            bk_error_set(err, st, 0, "block_filters: the headers below the first chunk: %s", m);
        }
    }
    bk_free(o->alloc, items, n * sizeof *items);
    return st;
}

/* ---- one writer per output directory ---- */

bk_status bk_out_lock_take(bk_out_lock *l, const char *out_dir, bk_error *err)
{
    l->fd = -1;
    l->path[0] = 0;
    if (!out_dir) return bk_error_set(err, BK_ERR_ARG, 0, "no output directory");
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", out_dir, strerror(errno));
    if (snprintf(l->path, sizeof l->path, "%s/.blockkit-lock", out_dir) >= (int)sizeof l->path)
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", out_dir);
    /* The holder unlinks the file when it is done: a process that opened
     * it before and then gets the lock finds its descriptor no longer
     * names the path, and tries again with the new file. */
    for (int tries = 0; tries < 100; tries++) {
        /* O_NOFOLLOW and a regular file only: a symlink or a device
         * planted under the lock's name would have its target truncated. */
        int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
        struct stat a, b;
        if (fd < 0 && errno != ELOOP) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", l->path, strerror(errno));
        if (fd < 0 || fstat(fd, &a) != 0 || !S_ISREG(a.st_mode)) {
            if (fd >= 0) close(fd);
            return bk_error_set(err, BK_ERR_IO, 0, "%s is not a regular file, and the output directory's lock "
                                "is taken under that name: move it away", l->path);
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            char pid[32] = "";
            ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
            close(fd);
            if (e != EWOULDBLOCK) return bk_error_set(err, BK_ERR_IO, 0, "%s: lock: %s", l->path, strerror(e));
            pid[n > 0 ? n : 0] = 0;
            pid[strcspn(pid, "\n")] = 0;
            return bk_error_set(err, BK_ERR_LOCKED, 0,
                                "another blockkit (pid %s) writes into %s: one writer per output directory",
                                pid[0] ? pid : "?", out_dir);
        }
        if (stat(l->path, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
            close(fd); /* unlinked by the holder before us: again */
            continue;
        }
        char pid[32];
        int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
            int e = errno;
            close(fd);
            return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", l->path, strerror(e));
        }
        l->fd = fd;
        return BK_OK;
    }
    return bk_error_set(err, BK_ERR_IO, 0, "%s: the lock file keeps being replaced", l->path);
}

void bk_out_lock_release(bk_out_lock *l)
{
    if (l->fd >= 0) {
        unlink(l->path); /* while holding the lock: see bk_out_lock_take */
        close(l->fd);    /* the kernel drops the flock with the last descriptor */
    }
    l->fd = -1;
}

/* One worker's scratch per o->workers, and their progress slots. */
static bk_status ex_workers_new(ex_run *R, bk_error *err)
{
    const bk_export_opts *o = R->o;
    int nw = o->workers;
    ex_worker *workers = bk_alloc(o->alloc, (size_t)nw * sizeof *workers);
    if (!workers) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(workers, 0, (size_t)nw * sizeof *workers);
    for (int i = 0; i < nw; i++) {
        bk_table_scratch_init(&workers[i].scratch, o->alloc);
        bk_block_stats_scratch_init(&workers[i].stats, o->alloc);
        bk_sp_scratch_init(&workers[i].sp, o->alloc);
        bk_blockfilter_init(&workers[i].filter, o->alloc);
    }
    R->workers = workers;
    R->busy = bk_alloc(o->alloc, (size_t)nw * sizeof *R->busy);
    if (!R->busy) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;
}

static void ex_workers_free(ex_run *R)
{
    const bk_export_opts *o = R->o;
    if (R->workers) {
        for (int i = 0; i < o->workers; i++) {
            ex_worker *W = &R->workers[i];
            bk_table_scratch_free(&W->scratch);
            bk_block_stats_scratch_free(&W->stats);
            bk_sp_scratch_free(&W->sp);
            bk_blockfilter_free(&W->filter);
            for (int d = 0; d < BK_DS_COUNT_; d++) bk_chunk_file_release(&W->files[d]);
        }
        bk_free(o->alloc, R->workers, (size_t)o->workers * sizeof *R->workers);
    }
    bk_free(o->alloc, R->busy, (size_t)o->workers * sizeof *R->busy);
}

/* Jobs: the best chain from start, then orphans; sorted by height, none
 * above the run's end (into st->end_height; the top into st->tip_height).
 * *cap: the jobs array's capacity. */
static bk_status ex_jobs(ex_run *R, size_t *cap, bk_export_stats *st, bk_error *err)
{
    const bk_export_opts *o = R->o;
    const bk_chain_entry *tip = bk_chain_tip(&R->chain);
    int64_t tip_h = tip ? tip->height : -1;
    bk_status rc;
    /* (heights below an implied genesis, or pruned, have no item) */
    if (tip && (rc = bk_engine_chain_items(&R->chain, o->start, tip_h, 0, &R->jobs, &R->njobs, cap, NULL, NULL,
                                           o->alloc, err)) != BK_OK)
        return rc;
    if (o->orphans && R->chain.n_orphans) {
        /* by their BIP34 height, read with the engine's block reader */
        if ((rc = bk_engine_add_orphans(&R->chain, &R->dir, o->start, -1, &R->jobs, &R->njobs, cap, NULL, o->alloc,
                                        err)) != BK_OK)
            return rc;
        qsort(R->jobs, R->njobs, sizeof *R->jobs, cmp_job);
    }
    int64_t top = R->njobs ? R->jobs[R->njobs - 1].height : -1;
    st->tip_height = top;
    st->end_height = bk_engine_range_end(top, o->end, o->below_tip);
    while (R->njobs && R->jobs[R->njobs - 1].height > st->end_height) R->njobs--;
    return BK_OK;
}

/* The chunk of jobs i..j-1 (heights first..last): which of its datasets'
 * files are due (c->wanted), the others kept as they are. */
static bk_status ex_chunk_wanted(ex_run *R, unsigned dsets, ex_chunk *c, bk_export_stats *st, bk_error *err)
{
    const bk_export_opts *o = R->o;
    for (int d = 0; d < BK_DS_COUNT_; d++) {
        if (!(dsets & (1u << d))) continue;
        char p[BK_CHUNK_PATH_MAX];
        if (bk_chunk_path(p, sizeof p, o->out_dir, bk_dataset_name((bk_dataset)d), c->first, c->last,
                          bk_table_format_ext(o->format)) != BK_OK)
            return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", o->out_dir);
        int keep = 0;
        bk_status rc = chunk_keep(R, p, &keep, &st->chunks_rewritten, err);
        if (rc != BK_OK) return rc;
        if (!keep) c->wanted |= 1u << d;
    }
    return BK_OK;
}

/* Chunks: the jobs grouped by chunk_size, those with a file due in
 * R->chunks (R->blocks_total, R->bytes_total: their blocks), the rest
 * counted skipped; st->next_height where a following run starts (--follow
 * stops at an incomplete chunk or one whose undo data lags). *cap: the
 * chunks array's capacity. */
static bk_status ex_plan_chunks(ex_run *R, unsigned dsets, size_t *cap, bk_export_stats *st, bk_error *err)
{
    const bk_export_opts *o = R->o;
    int64_t end = st->end_height;
    *cap = R->njobs ? R->njobs : 1;
    R->chunks = bk_alloc(o->alloc, *cap * sizeof *R->chunks);
    if (!R->chunks) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(R->chunks, 0, *cap * sizeof *R->chunks);
    for (size_t i = 0; i < R->njobs;) {
        int64_t k = R->jobs[i].height / o->chunk_size;
        size_t j = i;
        while (j < R->njobs && R->jobs[j].height / o->chunk_size == k) j++;
        int64_t first = k * o->chunk_size, full_last = first + o->chunk_size - 1;
        if (first < o->start) first = o->start;
        int complete = full_last <= end;
        if (!complete && o->complete_only) {
            st->next_height = first;
            break;
        }
        ex_chunk *c = &R->chunks[R->nchunks];
        c->job0 = i;
        c->njobs = j - i;
        c->first = first;
        c->last = complete ? full_last : end;
        bk_status rc = ex_chunk_wanted(R, dsets, c, st, err);
        if (rc != BK_OK) return rc;
        /* --follow: a chunk with a block whose undo data is not written yet
         * (Core stores blocks before it connects them) is not due yet */
        if (c->wanted && o->complete_only && !o->allow_missing_undo) {
            int64_t lag_h = -1;
            for (size_t q = i; q < j && lag_h < 0; q++) {
                const bk_chain_entry *qe = &R->chain.entries[R->jobs[q].entry];
                if (qe->n_tx > 1 && !qe->has_undo) lag_h = R->jobs[q].height;
            }
            if (lag_h >= 0) {
                st->waiting_undo = lag_h;
                st->next_height = first;
                c->wanted = 0;
                break;
            }
        }
        if (c->wanted) {
            R->nchunks++;
            for (size_t q = i; q < j; q++) c->bytes += R->chain.entries[R->jobs[q].entry].size;
            R->bytes_total += c->bytes;
            R->blocks_total += j - i;
        } else {
            st->chunks_skipped++;
        }
        if (complete) st->next_height = full_last + 1;
        i = j;
    }
    if (st->next_height < 0) st->next_height = o->start;
    return BK_OK;
}

/* The worker count for the chunks due (into R->nworkers, st->workers), and
 * the row group size within the memory budget: each worker holds four
 * open tables of up to one row group each, workers x 4 row groups within
 * about 384 MiB. */
static void ex_size_workers(ex_run *R, bk_export_stats *st)
{
    int nw = R->o->workers;
    if (nw > (int)R->nchunks) nw = R->nchunks ? (int)R->nchunks : 1;
    R->pq = R->o->pq;
    size_t rg_cap = ((size_t)384 << 20) / (4 * (size_t)nw);
    if (rg_cap < ((size_t)4 << 20)) rg_cap = (size_t)4 << 20;
    if (!R->pq.row_group_size || R->pq.row_group_size > rg_cap) R->pq.row_group_size = rg_cap;
    st->workers = nw;
    R->nworkers = nw;
}

/* The engine over the chunks due (one task each), its figures into st. */
static bk_status ex_engine(ex_run *R, const bk_engine_task *tasks, bk_export_stats *st, bk_error *err)
{
    const bk_export_opts *o = R->o;
    double t1 = now_s();
    R->t1 = t1;
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = &R->chain;
    eo.dir = &R->dir;
    eo.items = R->jobs;
    eo.n_items = R->njobs;
    eo.tasks = tasks;
    eo.n_tasks = R->nchunks;
    eo.read_flags = BK_READ_UNDO;
    eo.run.workers = R->nworkers;
    eo.run.cancel = o->cancel;
    eo.run.tick = export_progress;
    eo.run.tick_ms = 250;
    eo.run.alloc = o->alloc;
    eo.block = export_block;
    eo.begin = chunk_begin;
    eo.end = chunk_end;
    eo.ctx = R;
    bk_engine_result er;
    bk_error e2;
    bk_error_clear(&e2);
    bk_status es = bk_engine_run(&eo, &er, &e2);
    export_progress(R);
    st->seconds = now_s() - t1;
    st->chunks_written = R->chunks_done;
    st->files_written = R->files_done;
    st->blocks = R->blocks_done;
    st->bytes_in = R->bytes_done;
    st->bytes_out = R->bytes_out;
    st->missing_undo = R->missing_undo;
    memcpy(st->rows, R->rows, sizeof st->rows);
    if (es == BK_ERR_CANCELLED) {
        if (R->chunks_done < R->nchunks) return bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
    } else if (es != BK_OK) {
        return export_error(&er.where, &e2, es, err);
    }
    return BK_OK;
}

/* At the end of a run (rc its status so far): one catalogue line per file
 * that exists; then the manifest, whose end is where this run got to
 * (done_h) or the highest chunk still there (so a reorg that took the tip
 * down takes the range down with it). The run's status, or the first
 * error here. */
static bk_status ex_write_catalog(ex_run *R, unsigned dsets, int64_t done_h, bk_status rc, bk_error *err)
{
    const bk_export_opts *o = R->o;
    bk_error e3;
    bk_status cs = bk_catalog_write(&R->cat, o->out_dir, &e3);
    if (cs == BK_OK && rc == BK_OK) {
        for (int d = 0; d < BK_DS_COUNT_; d++) {
            if (!(dsets & (1u << d))) continue;
            int64_t top_listed = -1;
            for (size_t i = 0; i < R->cat.n; i++)
                if (R->cat.e[i].dataset == (bk_dataset)d && R->cat.e[i].format == o->format &&
                    R->cat.e[i].last > top_listed)
                    top_listed = R->cat.e[i].last;
            R->man[d].end = done_h > top_listed ? done_h : top_listed;
        }
    }
    if (cs == BK_OK) cs = bk_manifest_write(o->out_dir, R->man, &e3);
    if (cs != BK_OK && rc == BK_OK) {
        rc = cs;
        if (err) *err = e3;
    }
    return rc;
}

bk_status bk_export_run(const bk_export_opts *o, bk_export_stats *stats, bk_error *err)
{
    bk_export_stats st;
    memset(&st, 0, sizeof st);
    st.tip_height = st.end_height = st.next_height = st.waiting_undo = -1;
    if (stats) *stats = st;
    if (!o || !o->blocksdir || !o->out_dir || o->workers < 1 || o->chunk_size < 1 || o->start < 0 ||
        o->format >= BK_TABLE_FORMAT_COUNT_ || o->below_tip < 0)
        return bk_error_set(err, BK_ERR_ARG, 0, "export: bad options");
    unsigned dsets = o->datasets ? o->datasets : BK_DS_DEFAULT_MASK;
    ex_run R;
    memset(&R, 0, sizeof R);
    R.o = o;
    R.max_done = -1;
    pthread_mutex_init(&R.cat_lock, NULL);
    bk_engine_task *tasks = NULL;
    size_t cap = 0, chunks_cap = 0;
    bk_status rc = BK_OK;
    int cat_loaded = 0, meta_found = 0;
    int64_t done_h = -1;
    double t0 = now_s();

    bk_out_lock lock = {-1, {0}};
    if (!o->out_locked && (rc = bk_out_lock_take(&lock, o->out_dir, err)) != BK_OK) goto out_nodir;
    bk_export_meta_clean(o->out_dir); /* what a killed run left in _blockkit/ (we hold the lock) */
    if ((rc = manifest_check(&R, dsets, &meta_found, err)) != BK_OK) goto out_nodir;
    if ((rc = bk_catalog_load(&R.cat, o->out_dir, o->alloc, err)) != BK_OK) goto out_nodir;
    cat_loaded = 1;
    if ((rc = bk_blocksdir_open(&R.dir, o->blocksdir, o->net, o->alloc, err)) != BK_OK) goto out_nodir;
    if (o->chain) R.chain = *o->chain; /* borrowed: never freed here */
    else if ((rc = bk_chain_build(&R.chain, &R.dir, o->alloc, err)) != BK_OK) goto out_nochain;
    st.chain_seconds = now_s() - t0;

    if ((rc = ex_workers_new(&R, err)) != BK_OK) goto out;
    if ((rc = ex_jobs(&R, &cap, &st, err)) != BK_OK) goto out;
    if ((rc = ex_plan_chunks(&R, dsets, &chunks_cap, &st, err)) != BK_OK) goto out;
    sweep_reorged(&R, dsets, o->complete_only ? st.next_height - 1 : st.end_height, &st.chunks_removed);
    ex_size_workers(&R, &st);
    tasks = bk_alloc(o->alloc, (R.nchunks ? R.nchunks : 1) * sizeof *tasks);
    if (!tasks) {
        rc = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < R.nchunks; k++) {
        tasks[k].first = R.chunks[k].job0;
        tasks[k].count = R.chunks[k].njobs;
    }
    /* the datasets manifest before the first chunk (a killed run's chunks
     * are then never under another run's chunk size or format), with the
     * end this run is asked for: a run that stops early leaves an export
     * --verify finds heights missing in, not a complete shorter one. An
     * empty range writes nothing; kept chunks alone (a lost manifest)
     * write it again. */
    done_h = o->complete_only ? st.next_height - 1 : st.end_height;
    for (int d = 0; d < BK_DS_COUNT_; d++)
        if ((dsets & (1u << d)) && R.man[d].end < done_h) R.man[d].end = done_h;
    int wants_meta = R.nchunks || st.chunks_removed || st.chunks_skipped;
    if ((wants_meta || meta_found) && (rc = bk_manifest_write(o->out_dir, R.man, err)) != BK_OK) goto out;
    if (wants_meta) meta_found = 1;
    if (dsets & (1u << BK_DS_BLOCK_FILTERS)) {
        R.chunk_hdr = bk_alloc(o->alloc, (R.nchunks ? R.nchunks : 1) * 32);
        if (!R.chunk_hdr) {
            rc = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            goto out;
        }
        if ((rc = filter_headers(&R, o->workers, err)) != BK_OK) goto out;
    }
    rc = ex_engine(&R, tasks, &st, err);

out:
    if (cat_loaded && meta_found) rc = ex_write_catalog(&R, dsets, done_h, rc, err);
    ex_workers_free(&R);
    bk_free(o->alloc, R.jobs, cap * sizeof *R.jobs);
    bk_free(o->alloc, R.chunks, chunks_cap * sizeof *R.chunks);
    bk_free(o->alloc, tasks, (R.nchunks ? R.nchunks : 1) * sizeof *tasks);
    bk_free(o->alloc, R.chunk_hdr, (R.nchunks ? R.nchunks : 1) * 32);
    if (!o->chain) bk_chain_free(&R.chain);
out_nochain:
    bk_blocksdir_close(&R.dir);
out_nodir:
    bk_catalog_free(&R.cat);
    pthread_mutex_destroy(&R.cat_lock);
    bk_out_lock_release(&lock);
    if (stats) *stats = st;
    return rc;
}
