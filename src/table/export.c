/* bk_export_run (blockkit/export.h): chain, chunk plan, a pool of worker
 * threads writing one chunk each at a time. Block and undo bytes are read
 * with pread() into each worker's buffers (de-obfuscated there), never
 * mapped, so memory is the workers' buffers and table writers only. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockstats.h>
#include <blockkit/export.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct ex_job {
    uint32_t entry;
    int64_t height;
    int orphan;
} ex_job;

typedef struct ex_chunk {
    size_t job0, njobs;
    int64_t first, last;
    unsigned wanted;             /* datasets to write */
} ex_chunk;

typedef struct ex_worker {
    struct ex_run *R;
    int id;
    bk_block_decoder dec;
    bk_table_scratch scratch;
    uint8_t *blk, *undo;
    bk_block_stats_scratch stats;  /* block_stats: getblockstats' tables */
    size_t blk_cap, undo_cap;
    int blk_fd, rev_fd;
    uint32_t blk_num, rev_num;
    bk_chunk_file files[BK_DS_COUNT_];
    pthread_t th;
    int started;
} ex_worker;

typedef struct ex_run {
    const bk_export_opts *o;
    bk_pq_opts pq;             /* o->pq with the row group bounded by the memory budget */
    bk_blocksdir dir;
    bk_chain chain;
    ex_job *jobs;
    size_t njobs;
    ex_chunk *chunks;
    size_t nchunks;
    pthread_mutex_t mu;
    size_t next_chunk;
    int stop;                  /* an error: workers stop */
    bk_error first_err;
    bk_status first_st;
    uint64_t blocks_done, bytes_done, chunks_done, files_done, bytes_out, missing_undo;
    uint64_t rows[BK_DS_COUNT_];
    int64_t max_done;
    int finished_workers;
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

static int grow(const bk_allocator *a, uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = need + need / 4;
    uint8_t *p = bk_realloc(a, *buf, *cap, n);
    if (!p) return -1;
    *buf = p;
    *cap = n;
    return 0;
}

static bk_status read_range(ex_run *R, ex_worker *W, bk_file_kind kind, uint32_t num, uint64_t off, size_t len,
                            uint8_t **buf, size_t *cap, bk_error *err)
{
    int *fd = kind == BK_FILE_BLK ? &W->blk_fd : &W->rev_fd;
    uint32_t *cur = kind == BK_FILE_BLK ? &W->blk_num : &W->rev_num;
    char path[4200];
    /* Core: FlatFileSeq "%s%05u.dat" */
    snprintf(path, sizeof path, "%s/%s%05u.dat", R->dir.path, kind == BK_FILE_BLK ? "blk" : "rev", num);
    if (*fd < 0 || *cur != num) {
        if (*fd >= 0) close(*fd);
        *fd = open(path, O_RDONLY | O_CLOEXEC); /* read-only, no locks */
        if (*fd < 0) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(errno));
        *cur = num;
    }
    if (grow(R->o->alloc, buf, cap, len ? len : 1))
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (%zu bytes)", len);
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(*fd, *buf + got, len - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return bk_error_set(err, BK_ERR_IO, off + got, "%s: %s", path,
                                r < 0 ? strerror(errno) : "file shorter than when the chain was built");
        got += (size_t)r;
    }
    if (R->dir.xored) bk_xor_copy(*buf, *buf, len, off, R->dir.key);
    return BK_OK;
}

static int cancelled(const ex_run *R)
{
    return (R->o->cancel && *R->o->cancel) || __atomic_load_n(&R->stop, __ATOMIC_RELAXED);
}

static bk_status write_chunk(ex_run *R, ex_worker *W, const ex_chunk *ch, bk_error *err)
{
    const bk_export_opts *o = R->o;
    bk_table_writer *tw[BK_DS_COUNT_] = {0};
    bk_status st = BK_OK;
    int opened[BK_DS_COUNT_] = {0};
    for (int d = 0; d < BK_DS_COUNT_ && st == BK_OK; d++) {
        if (!(ch->wanted & (1u << d))) continue;
        size_t nc;
        const bk_pq_column *cols = bk_dataset_columns((bk_dataset)d, &nc);
        st = bk_chunk_file_open(&W->files[d], o->out_dir, bk_dataset_name((bk_dataset)d), ch->first, ch->last,
                                o->format, cols, nc, &R->pq, o->alloc, err);
        if (st == BK_OK) {
            opened[d] = 1;
            tw[d] = &W->files[d].table;
        }
    }
    uint64_t rows0[BK_DS_COUNT_];
    for (size_t j = 0; j < ch->njobs && st == BK_OK; j++) {
        if (cancelled(R)) {
            st = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
        const ex_job *job = &R->jobs[ch->job0 + j];
        const bk_chain_entry *e = &R->chain.entries[job->entry];
        st = read_range(R, W, BK_FILE_BLK, e->file, e->offset, e->size, &W->blk, &W->blk_cap, err);
        if (st != BK_OK) break;
        bk_block b;
        bk_error e2;
        if ((st = bk_block_decode(&W->dec, W->blk, e->size, &b, &e2)) != BK_OK) {
            bk_error_set(err, st, e2.offset, "block at height %lld (blk%05u.dat offset %llu): %s at byte %llu",
                         (long long)job->height, e->file, (unsigned long long)e->offset, e2.msg,
                         (unsigned long long)e2.offset);
            break;
        }
        bk_block_undo undo, *up = NULL;
        if (e->has_undo && b.n_tx > 1) {
            st = read_range(R, W, BK_FILE_REV, e->undo_file, e->undo_offset, e->undo_size, &W->undo, &W->undo_cap,
                            err);
            if (st != BK_OK) break;
            if ((st = bk_block_undo_parse(W->undo, e->undo_size, &undo, &e2)) != BK_OK) {
                bk_error_set(err, st, e2.offset, "undo of block at height %lld (rev%05u.dat offset %llu): %s",
                             (long long)job->height, e->undo_file, (unsigned long long)e->undo_offset, e2.msg);
                break;
            }
            up = &undo;
        } else if (b.n_tx > 1) {
            if (!o->allow_missing_undo) {
                st = bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                                  "block at height %lld has no undo data in rev*.dat (not written yet?); "
                                  "pass --allow-missing-undo to export it with null spent columns",
                                  (long long)job->height);
                break;
            }
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
        if (st != BK_OK) {
            bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
            break;
        }
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
                if (st != BK_OK) {
                    bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
                    break;
                }
                have = 1;
            }
            st = bk_table_block_stats_row(tw[BK_DS_BLOCK_STATS], have ? &bs : NULL, job->height, e->hash, &e2);
            if (st != BK_OK) {
                bk_error_set(err, st, e2.offset, "block at height %lld: %s", (long long)job->height, e2.msg);
                break;
            }
        }
        for (int d = 0; d < BK_DS_COUNT_; d++)
            if (tw[d]) __atomic_fetch_add(&R->rows[d], tw[d]->rows - rows0[d], __ATOMIC_RELAXED);
        __atomic_fetch_add(&R->blocks_done, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&R->bytes_done, e->size, __ATOMIC_RELAXED);
    }
    for (int d = 0; d < BK_DS_COUNT_; d++) {
        if (!opened[d]) continue;
        if (st == BK_OK) {
            st = bk_chunk_file_commit(&W->files[d], err);
            struct stat sb;
            if (st == BK_OK) {
                __atomic_fetch_add(&R->files_done, 1, __ATOMIC_RELAXED);
                if (stat(W->files[d].path, &sb) == 0)
                    __atomic_fetch_add(&R->bytes_out, (uint64_t)sb.st_size, __ATOMIC_RELAXED);
            }
        } else {
            bk_chunk_file_abort(&W->files[d]);
        }
    }
    return st;
}

static void *worker_main(void *arg)
{
    ex_worker *W = arg;
    ex_run *R = W->R;
    for (;;) {
        pthread_mutex_lock(&R->mu);
        size_t k = R->next_chunk < R->nchunks && !R->stop ? R->next_chunk++ : SIZE_MAX;
        pthread_mutex_unlock(&R->mu);
        if (k == SIZE_MAX || cancelled(R)) break;
        bk_error err;
        bk_error_clear(&err);
        bk_status st = write_chunk(R, W, &R->chunks[k], &err);
        pthread_mutex_lock(&R->mu);
        if (st != BK_OK) {
            if (R->first_st == BK_OK || (R->first_st == BK_ERR_CANCELLED && st != BK_ERR_CANCELLED)) {
                R->first_st = st;
                R->first_err = err;
            }
            R->stop = 1;
        } else {
            R->chunks_done++;
            if (R->chunks[k].last > R->max_done) R->max_done = R->chunks[k].last;
        }
        pthread_mutex_unlock(&R->mu);
        if (st != BK_OK) break;
    }
    pthread_mutex_lock(&R->mu);
    R->finished_workers++;
    pthread_mutex_unlock(&R->mu);
    return NULL;
}

static int cmp_job(const void *a, const void *b)
{
    const ex_job *x = a, *y = b;
    if (x->height != y->height) return x->height < y->height ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static bk_status add_orphans(ex_run *R, ex_worker *W, size_t *cap, bk_error *err)
{
    for (size_t i = 0; i < R->chain.n_entries; i++) {
        const bk_chain_entry *e = &R->chain.entries[i];
        if (e->height >= 0) continue;
        bk_status st = read_range(R, W, BK_FILE_BLK, e->file, e->offset, e->size, &W->blk, &W->blk_cap, err);
        if (st != BK_OK) return st;
        bk_block b;
        uint32_t h;
        if (bk_block_decode(&W->dec, W->blk, e->size, &b, NULL) != BK_OK || bk_block_bip34_height(&b, &h) != BK_OK)
            continue;
        if ((int64_t)h < R->o->start) continue;
        if (R->njobs == *cap) {
            size_t nc = *cap ? *cap * 2 : 64;
            ex_job *p = bk_realloc(R->o->alloc, R->jobs, *cap * sizeof *p, nc * sizeof *p);
            if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            R->jobs = p;
            *cap = nc;
        }
        R->jobs[R->njobs].entry = (uint32_t)i;
        R->jobs[R->njobs].height = h;
        R->jobs[R->njobs].orphan = 1;
        R->njobs++;
    }
    return BK_OK;
}

static int file_exists(const char *p) { return access(p, F_OK) == 0; }

bk_status bk_export_run(const bk_export_opts *o, bk_export_stats *stats, bk_error *err)
{
    bk_export_stats st;
    memset(&st, 0, sizeof st);
    st.tip_height = st.end_height = st.next_height = -1;
    if (stats) *stats = st;
    if (!o || !o->blocksdir || !o->out_dir || o->workers < 1 || o->chunk_size < 1 || o->start < 0 ||
        o->format >= BK_TABLE_FORMAT_COUNT_ || o->below_tip < 0)
        return bk_error_set(err, BK_ERR_ARG, 0, "export: bad options");
    unsigned dsets = o->datasets ? o->datasets : BK_DS_DEFAULT_MASK;
    ex_run R;
    memset(&R, 0, sizeof R);
    R.o = o;
    R.max_done = -1;
    pthread_mutex_init(&R.mu, NULL);
    ex_worker *workers = NULL;
    int nw = o->workers;
    size_t cap = 0, chunks_cap = 0;
    bk_status rc = BK_OK;
    double t0 = now_s();

    if ((rc = bk_blocksdir_open(&R.dir, o->blocksdir, o->net, o->alloc, err)) != BK_OK) goto out_nodir;
    if (o->chain) R.chain = *o->chain; /* borrowed: never freed here */
    else if ((rc = bk_chain_build(&R.chain, &R.dir, o->alloc, err)) != BK_OK) goto out_nochain;
    st.chain_seconds = now_s() - t0;

    workers = bk_alloc(o->alloc, (size_t)nw * sizeof *workers);
    if (workers) memset(workers, 0, (size_t)nw * sizeof *workers);
    if (!workers) {
        rc = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    for (int i = 0; i < nw; i++) {
        workers[i].R = &R;
        workers[i].id = i;
        bk_block_decoder_init(&workers[i].dec, o->alloc);
        bk_table_scratch_init(&workers[i].scratch, o->alloc);
        bk_block_stats_scratch_init(&workers[i].stats, o->alloc);
        workers[i].blk_fd = workers[i].rev_fd = -1;
    }

    /* Jobs: the best chain from start, then orphans; sorted by height. */
    const bk_chain_entry *tip = bk_chain_tip(&R.chain);
    int64_t tip_h = tip ? tip->height : -1;
    if (tip && o->start <= tip_h) {
        cap = (size_t)(tip_h - o->start + 1);
        R.jobs = bk_alloc(o->alloc, cap * sizeof *R.jobs);
        if (!R.jobs) {
            rc = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            goto out;
        }
        for (int64_t h = o->start; h <= tip_h; h++) {
            const bk_chain_entry *e = bk_chain_at_height(&R.chain, h);
            if (!e || e->no_data) continue; /* below an implied genesis; pruned */
            R.jobs[R.njobs].entry = (uint32_t)(e - R.chain.entries);
            R.jobs[R.njobs].height = h;
            R.jobs[R.njobs].orphan = 0;
            R.njobs++;
        }
    }
    if (o->orphans && R.chain.n_orphans) {
        if ((rc = add_orphans(&R, &workers[0], &cap, err)) != BK_OK) goto out;
        qsort(R.jobs, R.njobs, sizeof *R.jobs, cmp_job);
    }
    int64_t top = R.njobs ? R.jobs[R.njobs - 1].height : -1;
    st.tip_height = top;
    int64_t end = o->end >= 0 ? (o->end < top ? o->end : top) : top - o->below_tip;
    st.end_height = end;
    while (R.njobs && R.jobs[R.njobs - 1].height > end) R.njobs--;

    /* Chunks. */
    chunks_cap = R.njobs ? R.njobs : 1;
    R.chunks = bk_alloc(o->alloc, chunks_cap * sizeof *R.chunks);
    if (R.chunks) memset(R.chunks, 0, chunks_cap * sizeof *R.chunks);
    if (!R.chunks) {
        rc = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    uint64_t bytes_total = 0, blocks_total = 0;
    for (size_t i = 0; i < R.njobs;) {
        int64_t k = R.jobs[i].height / o->chunk_size;
        size_t j = i;
        while (j < R.njobs && R.jobs[j].height / o->chunk_size == k) j++;
        int64_t first = k * o->chunk_size, full_last = first + o->chunk_size - 1;
        if (first < o->start) first = o->start;
        int complete = full_last <= end;
        if (!complete && o->complete_only) {
            st.next_height = first;
            break;
        }
        ex_chunk *c = &R.chunks[R.nchunks];
        c->job0 = i;
        c->njobs = j - i;
        c->first = first;
        c->last = complete ? full_last : end;
        for (int d = 0; d < BK_DS_COUNT_; d++) {
            if (!(dsets & (1u << d))) continue;
            char p[BK_CHUNK_PATH_MAX];
            if (bk_chunk_path(p, sizeof p, o->out_dir, bk_dataset_name((bk_dataset)d), c->first, c->last,
                              bk_table_format_ext(o->format)) != BK_OK) {
                rc = bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", o->out_dir);
                goto out;
            }
            if (!file_exists(p)) c->wanted |= 1u << d;
        }
        if (c->wanted) {
            R.nchunks++;
            for (size_t q = i; q < j; q++) bytes_total += R.chain.entries[R.jobs[q].entry].size;
            blocks_total += j - i;
        } else {
            st.chunks_skipped++;
        }
        if (complete) st.next_height = full_last + 1;
        i = j;
    }
    if (st.next_height < 0) st.next_height = o->start;

    /* Workers. Memory: each holds four open tables of up to one row group
     * each: keep workers x 4 row groups within about 384 MiB. */
    if (nw > (int)R.nchunks) nw = R.nchunks ? (int)R.nchunks : 1;
    R.pq = o->pq;
    size_t rg_cap = ((size_t)384 << 20) / (4 * (size_t)nw);
    if (rg_cap < ((size_t)4 << 20)) rg_cap = (size_t)4 << 20;
    if (!R.pq.row_group_size || R.pq.row_group_size > rg_cap) R.pq.row_group_size = rg_cap;
    st.workers = nw;
    double t1 = now_s();
    for (int i = 0; i < nw && R.nchunks; i++) {
        if (pthread_create(&workers[i].th, NULL, worker_main, &workers[i]) != 0) {
            pthread_mutex_lock(&R.mu);
            R.stop = 1;
            if (R.first_st == BK_OK) {
                R.first_st = BK_ERR_NOMEM;
                bk_error_set(&R.first_err, BK_ERR_NOMEM, 0, "cannot start a worker thread");
            }
            pthread_mutex_unlock(&R.mu);
            break;
        }
        workers[i].started = 1;
    }
    int started = 0;
    for (int i = 0; i < nw; i++) started += workers[i].started;
    for (;;) {
        pthread_mutex_lock(&R.mu);
        int fin = R.finished_workers;
        pthread_mutex_unlock(&R.mu);
        if (o->progress) {
            bk_export_progress p;
            p.height = __atomic_load_n(&R.max_done, __ATOMIC_RELAXED);
            p.blocks_done = __atomic_load_n(&R.blocks_done, __ATOMIC_RELAXED);
            p.bytes_done = __atomic_load_n(&R.bytes_done, __ATOMIC_RELAXED);
            p.blocks_total = blocks_total;
            p.bytes_total = bytes_total;
            p.chunks_done = R.chunks_done;
            p.chunks_total = R.nchunks;
            p.seconds = now_s() - t1;
            o->progress(o->progress_ctx, &p);
        }
        if (fin >= started) break;
        struct timespec ts = {0, 50 * 1000 * 1000};
        for (int q = 0; q < 5; q++) {
            nanosleep(&ts, NULL);
            pthread_mutex_lock(&R.mu);
            fin = R.finished_workers;
            pthread_mutex_unlock(&R.mu);
            if (fin >= started) break;
        }
    }
    for (int i = 0; i < nw; i++)
        if (workers[i].started) pthread_join(workers[i].th, NULL);
    st.seconds = now_s() - t1;
    st.chunks_written = R.chunks_done;
    st.files_written = R.files_done;
    st.blocks = R.blocks_done;
    st.bytes_in = R.bytes_done;
    st.bytes_out = R.bytes_out;
    st.missing_undo = R.missing_undo;
    memcpy(st.rows, R.rows, sizeof st.rows);
    if (R.first_st != BK_OK) {
        rc = R.first_st;
        if (err) *err = R.first_err;
    } else if (o->cancel && *o->cancel && R.chunks_done < R.nchunks) {
        rc = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
    }

out:
    if (workers) {
        for (int i = 0; i < o->workers; i++) {
            ex_worker *W = &workers[i];
            bk_block_decoder_free(&W->dec);
            bk_table_scratch_free(&W->scratch);
            bk_free(o->alloc, W->blk, W->blk_cap);
            bk_free(o->alloc, W->undo, W->undo_cap);
            bk_block_stats_scratch_free(&W->stats);
            for (int d = 0; d < BK_DS_COUNT_; d++) bk_chunk_file_release(&W->files[d]);
            if (W->blk_fd >= 0) close(W->blk_fd);
            if (W->rev_fd >= 0) close(W->rev_fd);
        }
        bk_free(o->alloc, workers, (size_t)o->workers * sizeof *workers);
    }
    bk_free(o->alloc, R.jobs, cap * sizeof *R.jobs);
    bk_free(o->alloc, R.chunks, chunks_cap * sizeof *R.chunks);
    if (!o->chain) bk_chain_free(&R.chain);
out_nochain:
    bk_blocksdir_close(&R.dir);
out_nodir:
    pthread_mutex_destroy(&R.mu);
    if (stats) *stats = st;
    return rc;
}
