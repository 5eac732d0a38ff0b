/* blockkit export --datasets utxos: the UTXO set as chunked tables, one
 * row per coin in key order (docs/utxo.md), from a node's chainstate or a
 * dumptxoutset file. Files DIR/utxos/utxos_<first>_<last>.<ext>, first and
 * last being row numbers (0-based, zero-padded to 8 digits like the block
 * datasets' heights), --chunk-rows rows each, written under a temporary
 * name and renamed when complete. The rows are those of `utxo dump`
 * (cli/utxo_rows.c, src/table/utxos.c); export.c hands the command line
 * here when --datasets names utxos. With -j N >= 2, two chunks
 * are written at once (xu_parallel), the same bytes as one at a time. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "utxo_rows.h"

#include <blockkit/export.h>
#include <blockkit/hex.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* set by SIGINT / SIGTERM (export_signals_catch, cli/export.c) */
static volatile sig_atomic_t *xu_stop;

static double xu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct xu_ctx {
    const char *cmd, *out_dir;
    bk_table_format format;
    bk_table_profile profile;
    bk_pq_opts pq;
    uint64_t chunk_rows;
    uint64_t rows, first; /* rows written; the open chunk's first row */
    uint64_t files, bytes;
    bk_chunk_file f;
    int open, progress, printed;
    double t0, last;
    /* provenance in each Parquet chunk's footer: the set's block */
    bk_network net;
    uint8_t best[32];
    bk_pq_kv kv[8];
    char kv_text[8][72];
} xu_ctx;

/* The footer's key_value_metadata of a utxos chunk (as the block datasets'
 * blockkit.* keys, docs/export.md "Provenance"): rows first..last of the set
 * after best_block. */
static void xu_footer(xu_ctx *x)
{
    /* (no height: a snapshot file does not record it, and the same set from
     * either source gives the same bytes) */
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
    size_t n = 8;
    for (size_t i = 0; i < n; i++) {
        x->kv[i].key = keys[i];
        x->kv[i].value = x->kv_text[i];
    }
    bk_table_set_metadata(&x->f.table, x->kv, n);
}

static int xu_commit(xu_ctx *x)
{
    bk_error err;
    bk_error_clear(&err);
    /* the last chunk ends at the last row written */
    if (bk_chunk_path(x->f.path, sizeof x->f.path, x->out_dir, "utxos", (int64_t)x->first, (int64_t)x->rows - 1,
                      bk_table_format_ext(x->format)) != BK_OK) {
        bk_chunk_file_abort(&x->f);
        x->open = 0;
        return bk_cli_fail(x->cmd, BK_EXIT_USAGE, "output path too long under %s", x->out_dir);
    }
    x->open = 0;
    xu_footer(x);
    if (bk_chunk_file_commit(&x->f, &err) != BK_OK) return bk_cli_report(x->cmd, &err);
    x->files++;
    struct stat sb;
    if (stat(x->f.path, &sb) == 0) x->bytes += (uint64_t)sb.st_size;
    return 0;
}

static int xu_emit(void *vctx, const bk_utxo_batch *b)
{
    xu_ctx *x = vctx;
    bk_error err;
    bk_error_clear(&err);
    size_t n = bk_utxo_batch_count(b), i = 0;
    while (i < n) {
        if (!x->open) {
            size_t ncols;
            const bk_pq_column *cols = bk_utxo_columns_profile(x->profile, &ncols);
            x->first = x->rows;
            if (bk_chunk_file_open(&x->f, x->out_dir, "utxos", (int64_t)x->first,
                                   (int64_t)(x->first + x->chunk_rows - 1), x->format, cols, ncols, &x->pq, NULL,
                                   &err) != BK_OK)
                return bk_cli_report(x->cmd, &err);
            x->open = 1;
        }
        uint64_t room = x->first + x->chunk_rows - x->rows;
        size_t take = n - i < room ? n - i : (size_t)room;
        if (bk_utxo_batch_write(b, i, i + take, &x->f.table, &err) != BK_OK) {
            bk_chunk_file_abort(&x->f);
            x->open = 0;
            return bk_cli_report(x->cmd, &err);
        }
        i += take;
        x->rows += take;
        if (x->rows - x->first == x->chunk_rows) {
            int rc = xu_commit(x);
            if (rc) return rc;
        }
    }
    if (x->progress) {
        double t = xu_now();
        if (t - x->last >= 0.25) {
            x->last = t;
            fprintf(stderr, "\rutxos: %llu rows, %llu files, %.2f M rows/s ", (unsigned long long)x->rows,
                    (unsigned long long)x->files, (double)x->rows / 1e6 / (t - x->t0 > 0 ? t - x->t0 : 1));
            x->printed = 1;
        }
    }
    return 0;
}

/* Parse "utxos_<first>_<last>.<ext>"; 1 when it has that form. */
static int xu_name(const char *name, const char *ext, uint64_t *first, uint64_t *last)
{
    if (strncmp(name, "utxos_", 6) != 0) return 0;
    const char *p = name + 6;
    char *end;
    if (*p < '0' || *p > '9') return 0;
    *first = strtoull(p, &end, 10);
    if (*end != '_' || end[1] < '0' || end[1] > '9') return 0;
    *last = strtoull(end + 1, &end, 10);
    return *end == '.' && !strcmp(end + 1, ext);
}

/* After a complete run: remove the DIR/utxos files of this format that
 * this run did not write (an earlier, larger set, or other --chunk-rows),
 * so the directory holds exactly this set. */
static void xu_remove_stale(const xu_ctx *x)
{
    char dir[BK_CHUNK_PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/utxos", x->out_dir) >= (int)sizeof dir) return;
    DIR *d = opendir(dir);
    if (!d) return;
    const char *ext = bk_table_format_ext(x->format);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t first, last;
        if (!xu_name(e->d_name, ext, &first, &last)) continue;
        uint64_t want_last = first + x->chunk_rows - 1 < x->rows - 1 ? first + x->chunk_rows - 1 : x->rows - 1;
        if (x->rows && first % x->chunk_rows == 0 && first < x->rows && last == want_last) continue;
        char p[BK_CHUNK_PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

/* ---- -j N >= 2 on a seekable source: two chunk writers ----
 * The writer (and its zstd) runs on one thread per table, so with one
 * table the rows could only be rendered in parallel. Instead, writer t of
 * N writes chunks t, t + N, t + 2N, ...: each reads the whole set through
 * its own iterator (one LevelDB snapshot shared by all: the same coins) or
 * its own descriptor on the snapshot file, decoding the coins of the other
 * writers' chunks only to count them (about 0.1-0.2 us a coin), and
 * renders and writes its own rows. The files are the same bytes as with
 * one writer. At most XU_WRITERS writers: each holds a row group and its
 * iterator's mapped pages (about 100 MB), within the 256 MB budget. */
#define XU_WRITERS 2

typedef struct xu_shared {
    const char *cmd;
    const utxo_source_opts *so;
    coin_source *main_src;   /* the chainstate is shared: iterators per writer */
    unsigned nw;
    pthread_mutex_t mu;
    int rc;                  /* the first error's exit code */
    uint64_t total;          /* rows seen by a writer that read to the end */
    int saw_end;
} xu_shared;

typedef struct xu_writer {
    xu_shared *sh;
    xu_ctx x;                /* its own chunk file and counters */
    unsigned t;
    pthread_t th;
} xu_writer;

static int xu_failed(xu_shared *sh)
{
    pthread_mutex_lock(&sh->mu);
    int f = sh->rc != 0;
    pthread_mutex_unlock(&sh->mu);
    return f || *xu_stop;
}

static void xu_fail(xu_shared *sh, int rc)
{
    pthread_mutex_lock(&sh->mu);
    if (!sh->rc) sh->rc = rc;
    pthread_mutex_unlock(&sh->mu);
}

static void *xu_writer_main(void *arg)
{
    xu_writer *w = arg;
    xu_shared *sh = w->sh;
    xu_ctx *x = &w->x;
    coin_source own;
    coin_source *src = &own;
    memset(&own, 0, sizeof own);
    int rc = 0;
    bk_error err;
    bk_error_clear(&err);
    if (sh->main_src->cs) {
        own.net = sh->main_src->net;
        if (bk_chainstate_iter_new(sh->main_src->cs, &own.it, &err) != BK_OK) rc = bk_cli_report(sh->cmd, &err);
    } else {
        rc = utxo_source_open(sh->cmd, sh->so, &own);
    }
    bk_utxo_batch *b = NULL;
    if (!rc && bk_utxo_batch_new(&b, src->net, NULL) != BK_OK) rc = bk_cli_fail(sh->cmd, BK_EXIT_SOFTWARE, "out of memory");
    if (b) bk_utxo_batch_set_profile(b, x->profile);
    uint64_t row = 0;
    int more = 1, pending = 0;
    bk_utxo u;
    for (uint64_t chunk = w->t; !rc && more; chunk += sh->nw) {
        uint64_t first = chunk * x->chunk_rows;
        /* the other writers' rows: counted only */
        while (row < first && (more = utxo_source_next(src, &u)) != 0) {
            row++;
            if ((row & 0xffff) == 0 && xu_failed(sh)) break;
        }
        if (xu_failed(sh)) break;
        if (!more) break;
        /* this writer's chunk: batches of rows first .. first + chunk_rows - 1 */
        x->rows = row;
        uint64_t end = first + x->chunk_rows;
        while (!rc && row < end && more) {
            if (pending) {
                (void)bk_utxo_batch_add(b, &u);
                row++;
                pending = 0;
            }
            while (row < end && (more = utxo_source_next(src, &u)) != 0) {
                if (!bk_utxo_batch_add(b, &u)) {
                    pending = 1;
                    break;
                }
                row++;
            }
            if (!bk_utxo_batch_count(b)) break;
            bk_status st = bk_utxo_batch_render(b);
            rc = st != BK_OK ? bk_cli_fail(sh->cmd, BK_EXIT_SOFTWARE, "cannot render a row") : xu_emit(x, b);
            bk_utxo_batch_reset(b);
            if (!rc && xu_failed(sh)) break;
        }
        if (!rc && xu_failed(sh)) break;
        if (!rc && x->open) rc = xu_commit(x);
    }
    if (!rc && !more && !xu_failed(sh)) {
        if (utxo_source_status(src, &err) != BK_OK) {
            /* every writer meets a bad coin: one message */
            pthread_mutex_lock(&sh->mu);
            if (!sh->rc) sh->rc = bk_cli_report(sh->cmd, &err);
            pthread_mutex_unlock(&sh->mu);
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
    if (rc) xu_fail(sh, rc);
    bk_utxo_batch_free(b);
    if (sh->main_src->cs) {
        bk_chainstate_iter_free(own.it);
    } else {
        utxo_source_close(&own);
    }
    return NULL;
}

/* Returns 0 or an exit code; *total the rows of the set. */
static int xu_parallel(const char *cmd, const utxo_source_opts *so, coin_source *src, const xu_ctx *proto,
                       unsigned nw, uint64_t *total, uint64_t *files, uint64_t *bytes)
{
    xu_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.cmd = cmd;
    /* the writers' own snapshot readers: the height already known */
    utxo_source_opts wso = *so;
    char height[16];
    wso.datadir = NULL;
    wso.height = NULL;
    wso.height_optional = 1;
    if (src->height >= 0) {
        snprintf(height, sizeof height, "%ld", (long)src->height);
        wso.height = height;
    }
    sh.so = &wso;
    sh.main_src = src;
    sh.nw = nw;
    pthread_mutex_init(&sh.mu, NULL);
    xu_writer w[XU_WRITERS];
    unsigned started = 0;
    for (unsigned t = 0; t < nw; t++) {
        w[t].sh = &sh;
        w[t].x = *proto;
        w[t].x.progress = 0;
        w[t].t = t;
    }
    for (; started < nw; started++)
        if (pthread_create(&w[started].th, NULL, xu_writer_main, &w[started]) != 0) break;
    if (started < nw) xu_fail(&sh, bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "cannot start the writer threads"));
    for (unsigned t = 0; t < started; t++) pthread_join(w[t].th, NULL);
    for (unsigned t = 0; t < started; t++) {
        *files += w[t].x.files;
        *bytes += w[t].x.bytes;
    }
    int rc = sh.rc;
    if (!rc && !*xu_stop && !sh.saw_end) rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "no writer reached the end");
    *total = sh.total;
    pthread_mutex_destroy(&sh.mu);
    return rc;
}

int bk_cli_export_utxos(const bk_cli_export_utxos_args *args)
{
    const char *cmd = "export";
    utxo_source_opts so = args->source;
    xu_ctx x;
    memset(&x, 0, sizeof x);
    x.cmd = cmd;
    x.format = args->format;
    x.profile = (bk_table_profile)args->profile;
    x.chunk_rows = args->chunk_rows;
    x.out_dir = args->out_dir;
    bk_pq_opts_init(&x.pq);
    x.pq.codec = args->codec;
    x.pq.zstd_level = args->zstd_level;
    x.pq.row_group_size = (size_t)32 << 20; /* as the block export's; one per writer in memory */
    int summary = args->summary, progress = args->progress;
    unsigned threads = args->threads;
    int rc;
    bk_out_lock lock;
    bk_error lerr;
    bk_error_clear(&lerr);
    if (bk_out_lock_take(&lock, x.out_dir, &lerr) != BK_OK) return bk_cli_report(cmd, &lerr);
    coin_source src;
    rc = utxo_source_open(cmd, &so, &src);
    if (rc) {
        bk_out_lock_release(&lock);
        return rc;
    }
    x.net = src.net;
    memcpy(x.best, src.best, 32);

    export_signals sigs;
    xu_stop = export_signals_catch(&sigs);
    x.progress = progress < 0 ? isatty(STDERR_FILENO) : progress;
    x.t0 = x.last = xu_now();
    /* one writer per chunk in flight when the source can be read again
     * from its start (not standard input) */
    unsigned writers = threads < XU_WRITERS ? threads : XU_WRITERS;
    /* (a rolled-back set is one merge of its runs with the chainstate: one reader) */
    if (writers >= 2 && !src.rb && !(so.snapshot && !strcmp(so.snapshot, "-"))) {
        rc = xu_parallel(cmd, &so, &src, &x, writers, &x.rows, &x.files, &x.bytes);
    } else {
        rc = utxo_rows_run(cmd, &src, x.profile, threads, xu_emit, &x, xu_stop);
        if (!rc && !*xu_stop && x.open) rc = xu_commit(&x);
    }
    if (x.open) bk_chunk_file_abort(&x.f);
    bk_chunk_file_release(&x.f);
    if (x.printed) fputc('\n', stderr);
    if (*xu_stop) {
        fprintf(stderr, "blockkit: export: stopped by a signal; the utxos files are incomplete, rerun to write "
                        "the whole set\n");
        if (!rc) rc = 128 + (int)*xu_stop;
    } else if (!rc) {
        xu_remove_stale(&x);
    }
    export_signals_restore(&sigs);
    double secs = xu_now() - x.t0;
    if (summary && !rc) {
        char best[65], height[32] = "";
        bk_hex_encode_rev(best, src.best, 32);
        best[64] = 0;
        if (src.height >= 0) snprintf(height, sizeof height, " (height %ld)", (long)src.height);
        fprintf(stderr,
                "blockkit: export: utxos: %llu rows in %llu files, %.1f MB out, %.3f s = %.2f M rows/s, -j%u; "
                "bestblock %s%s\n",
                (unsigned long long)x.rows, (unsigned long long)x.files, (double)x.bytes / 1e6, secs,
                secs > 0 ? (double)x.rows / 1e6 / secs : 0, threads, best, height);
    }
    utxo_source_close(&src);
    bk_out_lock_release(&lock);
    return rc;
}
