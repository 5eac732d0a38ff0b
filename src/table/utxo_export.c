/* bk_utxo_export_run (blockkit/export.h): the UTXO set as chunked tables,
 * one row per coin in key order, DIR/utxos/utxos_<first>_<last>.<ext>
 * (row numbers, zero-padded to 8 digits), chunk_rows rows each, written
 * under a temporary name and renamed when complete (docs/utxo.md).
 *
 * One writer: the coins through bk_utxo_rows_run (batches rendered on
 * worker threads, written in order). Two writers (threads >= 2 and a
 * source that can be read again from its start): writer t of N writes
 * chunks t, t + N, ...: each reads the whole set through its own
 * iterator (one LevelDB snapshot shared by all: the same coins) or its
 * own reader of the snapshot file, decoding the coins of the other
 * writers' chunks only to count them (about 0.1-0.2 us a coin), and
 * renders and writes its own rows. The files are the same bytes either
 * way. At most BK_UTXO_EXPORT_WRITERS: each holds a row group and its
 * iterator's mapped pages (about 100 MB). */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/export.h>
#include <blockkit/hex.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include "catalog_internal.h"
#include "base/threads.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define UX_WRITERS 2

static double ux_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One writer's chunk file and counters. */
typedef struct ux_ctx {
    const bk_utxo_export_opts *o;
    bk_pq_opts pq;
    uint64_t rows, first;      /* rows written (or counted); the open chunk's first row */
    uint64_t files, bytes;
    bk_chunk_file f;
    int open;
    double t0, last;           /* progress (the single writer) */
    int report;                /* this writer calls o->progress */
    bk_network net;
    uint8_t best[32];
    bk_pq_kv kv[8];
    char kv_text[8][72];
} ux_ctx;

/* The footer's key_value_metadata of a utxos chunk (docs/export.md
 * "Provenance"): rows first..last of the set after best_block. No height:
 * a snapshot file does not record it, and the same set from either source
 * is the same bytes. */
static void ux_footer(ux_ctx *x)
{
    static const char *const keys[8] = {"blockkit.schema_version", "blockkit.version", "blockkit.dataset",
                                        "blockkit.network", "blockkit.first_row", "blockkit.last_row",
                                        "blockkit.rows", "blockkit.best_block"};
    const bk_network_params *np = bk_network_get(x->net);
    snprintf(x->kv_text[0], sizeof x->kv_text[0], "%d", BK_EXPORT_SCHEMA_VERSION);
    snprintf(x->kv_text[1], sizeof x->kv_text[1], "%s", BK_VERSION_STRING);
    snprintf(x->kv_text[2], sizeof x->kv_text[2], "utxos");
    snprintf(x->kv_text[3], sizeof x->kv_text[3], "%s", np ? np->name : "?");
    snprintf(x->kv_text[4], sizeof x->kv_text[4], "%llu", (unsigned long long)x->first);
    snprintf(x->kv_text[5], sizeof x->kv_text[5], "%llu", (unsigned long long)(x->rows - 1));
    snprintf(x->kv_text[6], sizeof x->kv_text[6], "%llu", (unsigned long long)(x->rows - x->first));
    bk_hex_encode_rev(x->kv_text[7], x->best, 32);
    x->kv_text[7][64] = 0;
    for (size_t i = 0; i < 8; i++) {
        x->kv[i].key = keys[i];
        x->kv[i].value = x->kv_text[i];
    }
    bk_table_set_metadata(&x->f.table, x->kv, 8);
}

/* Commit the open chunk, named after the rows it holds. */
static bk_status ux_commit(ux_ctx *x, bk_error *err)
{
    const bk_utxo_export_opts *o = x->o;
    /* the last chunk ends at the last row written */
    if (bk_chunk_path(x->f.path, sizeof x->f.path, o->out_dir, "utxos", (int64_t)x->first, (int64_t)x->rows - 1,
                      bk_table_format_ext(o->format)) != BK_OK) {
        bk_chunk_file_abort(&x->f);
        x->open = 0;
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long under %s", o->out_dir);
    }
    x->open = 0;
    ux_footer(x);
    bk_status st = bk_chunk_file_commit(&x->f, err);
    if (st != BK_OK) return st;
    x->files++;
    struct stat sb;
    if (stat(x->f.path, &sb) == 0) x->bytes += (uint64_t)sb.st_size;
    return BK_OK;
}

/* A rendered batch's rows into the chunk files (opening and committing them). */
static bk_status ux_write(ux_ctx *x, const bk_utxo_batch *b, bk_error *err)
{
    const bk_utxo_export_opts *o = x->o;
    size_t n = bk_utxo_batch_count(b), i = 0;
    bk_status st;
    while (i < n) {
        if (!x->open) {
            size_t ncols;
            const bk_pq_column *cols = bk_utxo_columns_profile(o->profile, &ncols);
            x->first = x->rows;
            if ((st = bk_chunk_file_open(&x->f, o->out_dir, "utxos", (int64_t)x->first,
                                         (int64_t)(x->first + o->chunk_rows - 1), o->format, cols, ncols, &x->pq,
                                         o->alloc, err)) != BK_OK)
                return st;
            x->open = 1;
        }
        uint64_t room = x->first + o->chunk_rows - x->rows;
        size_t take = n - i < room ? n - i : (size_t)room;
        if ((st = bk_utxo_batch_write(b, i, i + take, &x->f.table, err)) != BK_OK) {
            if (x->f.failed)
                bk_error_set(err, BK_ERR_IO, 0, "%s: write error: %s", x->f.tmp_path, strerror(x->f.err_no));
            bk_chunk_file_abort(&x->f);
            x->open = 0;
            return err ? err->status : st;
        }
        i += take;
        x->rows += take;
        if (x->rows - x->first == o->chunk_rows && (st = ux_commit(x, err)) != BK_OK) return st;
    }
    if (x->report && o->progress) {
        double t = ux_now();
        if (t - x->last >= 0.25) {
            x->last = t;
            o->progress(o->progress_ctx, x->rows, x->files, t - x->t0);
        }
    }
    return BK_OK;
}

static bk_status ux_emit(void *ctx, const bk_utxo_batch *b, bk_error *err) { return ux_write(ctx, b, err); }

static int ux_next(void *ctx, bk_utxo *u) { return bk_utxo_source_next(ctx, u); }

/* After a complete run: remove the DIR/utxos files of this format that
 * this run did not write (an earlier, larger set, or other chunk_rows),
 * so the directory holds exactly this set. */
static void ux_remove_stale(const bk_utxo_export_opts *o, uint64_t rows)
{
    char dir[BK_CHUNK_PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/utxos", o->out_dir) >= (int)sizeof dir) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char name[8];
        int64_t a, b;
        bk_table_format fm;
        if (!bk_chunk_name_split(e->d_name, name, sizeof name, &a, &b, &fm) || strcmp(name, "utxos") != 0 ||
            fm != o->format)
            continue;
        uint64_t first = (uint64_t)a, last = (uint64_t)b;
        uint64_t want_last = first + o->chunk_rows - 1 < rows - 1 ? first + o->chunk_rows - 1 : rows - 1;
        if (rows && first % o->chunk_rows == 0 && first < rows && last == want_last) continue;
        char p[BK_CHUNK_PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

/* ---- two writers ---- */

typedef struct ux_shared {
    const bk_utxo_export_opts *o;
    bk_utxo_source_opts wso;   /* the writers' own snapshot readers */
    bk_utxo_source *main_src;  /* the chainstate is shared: iterators per writer */
    unsigned nw;
    pthread_mutex_t mu;
    bk_status st;              /* the first error */
    bk_error err;
    uint64_t total;            /* rows seen by a writer that read to the end */
    int saw_end;
} ux_shared;

typedef struct ux_writer {
    ux_shared *sh;
    ux_ctx x;
    unsigned t;
} ux_writer;

static int ux_failed(ux_shared *sh)
{
    pthread_mutex_lock(&sh->mu);
    int f = sh->st != BK_OK;
    pthread_mutex_unlock(&sh->mu);
    return f || (sh->o->cancel && *sh->o->cancel);
}

static void ux_fail(ux_shared *sh, bk_status st, const bk_error *err)
{
    pthread_mutex_lock(&sh->mu);
    if (sh->st == BK_OK) {
        sh->st = st;
        if (err) sh->err = *err;
        else bk_error_set(&sh->err, st, 0, "%s", bk_status_str(st));
    }
    pthread_mutex_unlock(&sh->mu);
}

static void *ux_writer_main(void *arg)
{
    ux_writer *w = arg;
    ux_shared *sh = w->sh;
    ux_ctx *x = &w->x;
    const bk_utxo_export_opts *o = sh->o;
    bk_utxo_source own;
    memset(&own, 0, sizeof own);
    bk_error err;
    bk_error_clear(&err);
    bk_status st = BK_OK;
    if (sh->main_src->cs) {
        own.net = sh->main_src->net;
        st = bk_chainstate_iter_new(sh->main_src->cs, &own.it, &err);
    } else {
        st = bk_utxo_source_open(&own, &sh->wso, &err);
    }
    bk_utxo_batch *b = NULL;
    if (st == BK_OK && bk_utxo_batch_new(&b, own.net, o->alloc) != BK_OK)
        st = bk_error_set(&err, BK_ERR_NOMEM, 0, "out of memory");
    if (b) bk_utxo_batch_set_profile(b, o->profile);
    uint64_t row = 0;
    int more = 1, pending = 0;
    bk_utxo u;
    for (uint64_t chunk = w->t; st == BK_OK && more; chunk += sh->nw) {
        uint64_t first = chunk * o->chunk_rows;
        /* the other writers' rows: counted only */
        while (row < first && (more = bk_utxo_source_next(&own, &u)) != 0) {
            row++;
            if ((row & 0xffff) == 0 && ux_failed(sh)) break;
        }
        if (ux_failed(sh) || !more) break;
        /* this writer's chunk: batches of rows first .. first + chunk_rows - 1 */
        x->rows = row;
        uint64_t end = first + o->chunk_rows;
        while (st == BK_OK && row < end && more) {
            if (pending) {
                (void)bk_utxo_batch_add(b, &u);
                row++;
                pending = 0;
            }
            while (row < end && (more = bk_utxo_source_next(&own, &u)) != 0) {
                if (!bk_utxo_batch_add(b, &u)) {
                    pending = 1;
                    break;
                }
                row++;
            }
            if (!bk_utxo_batch_count(b)) break;
            st = bk_utxo_batch_render(b);
            if (st != BK_OK) bk_error_set(&err, st, 0, "cannot render a row");
            else st = ux_write(x, b, &err);
            bk_utxo_batch_reset(b);
            if (st == BK_OK && ux_failed(sh)) break;
        }
        if (st == BK_OK && ux_failed(sh)) break;
        if (st == BK_OK && x->open) st = ux_commit(x, &err);
    }
    if (st == BK_OK && !more && !ux_failed(sh)) {
        bk_status s2 = bk_utxo_source_status(&own, &err);
        if (s2 != BK_OK) {
            st = s2; /* every writer meets a bad coin: the first one's error */
        } else {
            pthread_mutex_lock(&sh->mu);
            sh->total = row;
            sh->saw_end = 1;
            pthread_mutex_unlock(&sh->mu);
        }
    }
    if (x->open) bk_chunk_file_abort(&x->f);
    x->open = 0;
    bk_chunk_file_release(&x->f); /* the writer a commit kept for the next chunk */
    if (st != BK_OK) ux_fail(sh, st, &err);
    bk_utxo_batch_free(b);
    if (sh->main_src->cs) bk_chainstate_iter_free(own.it);
    else bk_utxo_source_close(&own);
    return NULL;
}

static bk_status ux_parallel(const bk_utxo_export_opts *o, bk_utxo_source *src, const ux_ctx *proto, unsigned nw,
                             bk_utxo_export_stats *stats, bk_error *err)
{
    ux_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.o = o;
    /* the writers' own snapshot readers: the height already known */
    sh.wso = *o->source;
    sh.wso.datadir = NULL;
    sh.wso.height = src->height;
    sh.wso.height_optional = 1;
    sh.main_src = src;
    sh.nw = nw;
    pthread_mutex_init(&sh.mu, NULL);
    ux_writer w[UX_WRITERS];
    unsigned started = 0;
    for (unsigned t = 0; t < nw; t++) {
        w[t].sh = &sh;
        w[t].x = *proto;
        w[t].x.report = 0;
        w[t].t = t;
    }
    pthread_t th[UX_WRITERS];
    started = bk_threads_start(th, nw, ux_writer_main, w, sizeof *w);
    if (started < nw) ux_fail(&sh, BK_ERR_NOMEM, NULL);
    bk_threads_join(th, started);
    for (unsigned t = 0; t < started; t++) {
        stats->files += w[t].x.files;
        stats->bytes += w[t].x.bytes;
    }
    bk_status st = sh.st;
    if (st != BK_OK && err) *err = sh.err;
    int cancelled = o->cancel && *o->cancel;
    if (st == BK_OK && !cancelled && !sh.saw_end) st = bk_error_set(err, BK_ERR_INVALID, 0, "no writer reached the end of the set");
    stats->rows = sh.total;
    pthread_mutex_destroy(&sh.mu);
    return st;
}

bk_status bk_utxo_export_run(const bk_utxo_export_opts *o, bk_utxo_export_stats *stats, bk_error *err)
{
    bk_utxo_export_stats s;
    memset(&s, 0, sizeof s);
    s.height = -1;
    if (stats) *stats = s;
    if (!o || !o->source || !o->out_dir || !o->chunk_rows || o->format >= BK_TABLE_FORMAT_COUNT_)
        return bk_error_set(err, BK_ERR_ARG, 0, "utxos export: bad options");
    double t0 = ux_now();
    bk_out_lock lock = {-1, {0}};
    bk_status st = BK_OK;
    if (!o->out_locked && (st = bk_out_lock_take(&lock, o->out_dir, err)) != BK_OK) return st;
    bk_utxo_source src;
    if ((st = bk_utxo_source_open(&src, o->source, err)) != BK_OK) {
        bk_out_lock_release(&lock);
        return st;
    }
    memcpy(s.best, src.best, 32);
    s.height = src.height;
    s.net = src.net;
    ux_ctx x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.pq = o->pq;
    x.net = src.net;
    memcpy(x.best, src.best, 32);
    x.t0 = x.last = t0;
    x.report = 1;
    unsigned threads = o->threads ? o->threads : 1;
    unsigned writers = threads < UX_WRITERS ? threads : UX_WRITERS;
    /* two writers when the source can be read again from its start (not
     * standard input; a rolled-back set is one merge of its runs with the
     * chainstate: one reader) */
    if (writers >= 2 && !src.rb && !(o->source->snapshot && !strcmp(o->source->snapshot, "-"))) {
        st = ux_parallel(o, &src, &x, writers, &s, err);
    } else {
        st = bk_utxo_rows_run_profile(src.net, o->profile, ux_next, &src, threads, ux_emit, &x, o->cancel, o->alloc,
                                      err);
        int cancelled = o->cancel && *o->cancel;
        if (st == BK_OK && !cancelled) st = bk_utxo_source_status(&src, err);
        if (st == BK_OK && !cancelled && x.open) st = ux_commit(&x, err);
        s.rows = x.rows;
        s.files = x.files;
        s.bytes = x.bytes;
    }
    if (x.open) bk_chunk_file_abort(&x.f);
    bk_chunk_file_release(&x.f);
    int cancelled = o->cancel && *o->cancel;
    if (st == BK_OK && cancelled) st = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
    if (st == BK_OK) ux_remove_stale(o, s.rows);
    s.disk_size = src.disk_size;
    s.seconds = ux_now() - t0;
    bk_utxo_source_close(&src);
    bk_out_lock_release(&lock);
    if (stats) *stats = s;
    return st;
}
