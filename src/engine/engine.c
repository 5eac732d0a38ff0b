/* The ordered parallel block engine (blockkit/engine.h).
 *
 * Ordered jobs: slot s holds job j with j % window == s. A worker takes the
 * next job number from a shared counter, waits until its slot has been
 * consumed (j < next_consume + window), runs the job without the lock into
 * the slot's writer and marks the slot done. The calling thread consumes
 * done slots in job order, so memory is window x (largest job output) and
 * a worker more than a window ahead of the consumer waits.
 *
 * Cancellation: a volatile sig_atomic_t is only safe between a signal
 * handler and the thread it interrupts, so the workers never read *cancel:
 * signals are blocked in them, the calling thread reads the flag (at least
 * every tick_ms, the condition waits being timed) and turns it into
 * `stopping`, which the workers read (atomically) between jobs and, in the
 * block engine, between the blocks of a task.
 *
 * Blocks: each worker owns a bk_block_reader; a task is read block by
 * block (pread into the reader's buffers, de-obfuscated there with
 * xor.dat's key, decoded with the reader's decoder) and handed to the
 * caller's callback. A failure records where (bk_engine_where) in the
 * task's slot; the consumer side reports the first failure in order. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/engine.h>

#include "base/threads.h"
#include <blockkit/hex.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- ordered jobs ---- */

typedef struct o_slot {
    bk_writer w;
    size_t job;
    int state; /* 0 free, 1 running, 2 done */
    bk_status st;
    bk_error err;
} o_slot;

typedef struct o_state {
    pthread_mutex_t mu;
    pthread_cond_t cv_slot; /* a slot was consumed */
    pthread_cond_t cv_done; /* a job finished */
    o_slot *slots;
    size_t window, njobs, next_job, next_consume;
    int *stopping; /* written under mu with __atomic_store, read anywhere with __atomic_load */
    const bk_ordered_opts *o;
    bk_ordered_work_fn work;
    void *ctx;
} o_state;

typedef struct o_worker {
    o_state *st;
    int id;
} o_worker;

static int o_stopping(const o_state *s) { return __atomic_load_n(s->stopping, __ATOMIC_ACQUIRE); }

static void *o_worker_main(void *p)
{
    o_worker *wa = p;
    o_state *S = wa->st;
    pthread_mutex_lock(&S->mu);
    for (;;) {
        if (o_stopping(S) || S->next_job >= S->njobs) break;
        size_t job = S->next_job++;
        o_slot *s = &S->slots[job % S->window];
        while (!o_stopping(S) && job >= S->next_consume + S->window) pthread_cond_wait(&S->cv_slot, &S->mu);
        if (o_stopping(S)) break;
        s->state = 1;
        s->job = job;
        pthread_mutex_unlock(&S->mu);

        bk_writer_reset(&s->w);
        bk_error_clear(&s->err);
        bk_status st = BK_OK;
        /* Grow once to the expected size rather than by doubling. */
        if (S->o->slot_reserve && s->w.cap < S->o->slot_reserve &&
            bk_writer_reserve(&s->w, S->o->slot_reserve) != BK_OK)
            st = bk_error_set(&s->err, BK_ERR_NOMEM, 0, "out of memory reserving %zu bytes for job %zu",
                              S->o->slot_reserve, job);
        if (st == BK_OK) st = S->work(S->ctx, job, wa->id, &s->w, &s->err);
        if (st == BK_OK && bk_writer_status(&s->w) != BK_OK)
            st = bk_error_set(&s->err, BK_ERR_NOMEM, 0, "out of memory");

        pthread_mutex_lock(&S->mu);
        s->st = st;
        s->state = 2;
        pthread_cond_broadcast(&S->cv_done);
    }
    pthread_cond_broadcast(&S->cv_done);
    pthread_mutex_unlock(&S->mu);
    return NULL;
}

void bk_ordered_opts_init(bk_ordered_opts *o)
{
    memset(o, 0, sizeof *o);
    o->workers = 1;
    o->tick_ms = 100;
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static int cancel_set(const bk_ordered_opts *o) { return o->cancel && *o->cancel; }

/* The ordered run with the stopping flag in the caller's memory (the block
 * engine reads it between the blocks of a task). */
static bk_status ordered_run(size_t njobs, const bk_ordered_opts *o, bk_ordered_work_fn work, void *work_ctx,
                             bk_ordered_consume_fn consume, void *ctx, int *stopping, bk_ordered_result *res,
                             bk_error *err)
{
    bk_ordered_result r;
    memset(&r, 0, sizeof r);
    int nw = o->workers > 0 ? o->workers : 1;
    size_t window = o->window ? o->window : 2 * (size_t)nw + 1;
    if (window < (size_t)nw) window = (size_t)nw;
    r.window = window;
    __atomic_store_n(stopping, 0, __ATOMIC_RELEASE);
    if (njobs == 0) {
        if (res) *res = r;
        return BK_OK;
    }
    if ((size_t)nw > njobs) nw = (int)njobs;

    o_state S;
    memset(&S, 0, sizeof S);
    S.slots = calloc(window, sizeof *S.slots);
    pthread_t *threads = calloc((size_t)nw, sizeof *threads);
    o_worker *args = calloc((size_t)nw, sizeof *args);
    if (!S.slots || !threads || !args) {
        free(S.slots);
        free(threads);
        free(args);
        r.failure = BK_ORDERED_SETUP;
        if (res) *res = r;
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    for (size_t i = 0; i < window; i++) bk_writer_init(&S.slots[i].w, o->alloc);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&S.mu, NULL);
    pthread_cond_init(&S.cv_slot, NULL);
    pthread_cond_init(&S.cv_done, &ca);
    pthread_condattr_destroy(&ca);
    S.window = window;
    S.njobs = njobs;
    S.stopping = stopping;
    S.o = o;
    S.work = work;
    S.ctx = work_ctx;

    for (int i = 0; i < nw; i++) {
        args[i].st = &S;
        args[i].id = i;
    }
    r.workers = (int)bk_threads_start(threads, (unsigned)nw, o_worker_main, args, sizeof *args);

    bk_status rc = BK_OK;
    if (!r.workers) {
        r.failure = BK_ORDERED_SETUP;
        rc = bk_error_set(err, BK_ERR_NOMEM, 0, "cannot start a worker thread");
    }
    unsigned tick_ms = o->tick_ms ? o->tick_ms : 100;
    uint64_t last_tick = now_ms();
    pthread_mutex_lock(&S.mu);
    while (rc == BK_OK && S.next_consume < njobs) {
        o_slot *s = &S.slots[S.next_consume % window];
        int cancelled = 0;
        while (!(s->state == 2 && s->job == S.next_consume)) {
            if (cancel_set(o)) {
                cancelled = 1;
                break;
            }
            uint64_t now = now_ms();
            if (o->tick && now - last_tick >= tick_ms) {
                last_tick = now;
                pthread_mutex_unlock(&S.mu);
                o->tick(ctx);
                pthread_mutex_lock(&S.mu);
                continue;
            }
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += (long)(tick_ms % 1000) * 1000000L;
            ts.tv_sec += tick_ms / 1000 + ts.tv_nsec / 1000000000L;
            ts.tv_nsec %= 1000000000L;
            pthread_cond_timedwait(&S.cv_done, &S.mu, &ts);
        }
        if (cancelled) {
            r.failure = BK_ORDERED_CANCELLED;
            rc = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
        if (s->st != BK_OK) {
            r.failure = BK_ORDERED_WORK;
            rc = s->st;
            if (err) *err = s->err;
            break;
        }
        pthread_mutex_unlock(&S.mu);
        bk_error cerr;
        bk_error_clear(&cerr);
        bk_status cst = consume ? consume(ctx, s->job, s->w.data, s->w.len, &cerr) : BK_OK;
        if (s->w.cap > r.peak_slot_bytes) r.peak_slot_bytes = s->w.cap;
        if (o->shrink_above && s->w.cap > o->shrink_above) {
            bk_writer_free(&s->w);
            bk_writer_init(&s->w, o->alloc);
        }
        pthread_mutex_lock(&S.mu);
        if (cst != BK_OK) {
            r.failure = BK_ORDERED_CONSUME;
            rc = cst;
            if (err) *err = cerr;
            break;
        }
        s->state = 0;
        S.next_consume++;
        pthread_cond_broadcast(&S.cv_slot);
        if (S.next_consume < njobs && cancel_set(o)) {
            r.failure = BK_ORDERED_CANCELLED;
            rc = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
    }
    r.consumed = S.next_consume;
    __atomic_store_n(stopping, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&S.cv_slot);
    pthread_mutex_unlock(&S.mu);
    bk_threads_join(threads, (unsigned)r.workers);
    for (size_t i = 0; i < window; i++) bk_writer_free(&S.slots[i].w);
    pthread_mutex_destroy(&S.mu);
    pthread_cond_destroy(&S.cv_slot);
    pthread_cond_destroy(&S.cv_done);
    free(S.slots);
    free(threads);
    free(args);
    if (res) *res = r;
    return rc;
}

bk_status bk_ordered_run(size_t njobs, const bk_ordered_opts *o, bk_ordered_work_fn work,
                         bk_ordered_consume_fn consume, void *ctx, bk_ordered_result *res, bk_error *err)
{
    if (res) memset(res, 0, sizeof *res);
    if (!o || !work) return bk_error_set(err, BK_ERR_ARG, 0, "bk_ordered_run: no options or work callback");
    int stopping = 0;
    return ordered_run(njobs, o, work, ctx, consume, ctx, &stopping, res, err);
}

/* ---- blocks of a chain ---- */

typedef struct e_run {
    const bk_engine_opts *o;
    bk_block_reader *readers;
    bk_engine_where *where; /* per slot */
    size_t window;
    unsigned flags;
    int stopping;
} e_run;

void bk_engine_opts_init(bk_engine_opts *o)
{
    memset(o, 0, sizeof *o);
    bk_ordered_opts_init(&o->run);
}

static bk_status e_work(void *vctx, size_t job, int worker, bk_writer *out, bk_error *err)
{
    e_run *R = vctx;
    const bk_engine_opts *o = R->o;
    bk_engine_where *wh = &R->where[job % R->window];
    memset(wh, 0, sizeof *wh);
    wh->task = job;
    wh->item = SIZE_MAX;
    wh->height = -1;
    size_t first = o->tasks ? o->tasks[job].first : job, count = o->tasks ? o->tasks[job].count : 1;
    bk_status st = BK_OK;
    if (o->begin && (st = o->begin(o->ctx, worker, job, err)) != BK_OK) wh->stage = BK_STAGE_TASK;
    for (size_t i = first; i < first + count && st == BK_OK; i++) {
        if (i > first && __atomic_load_n(&R->stopping, __ATOMIC_ACQUIRE)) {
            st = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
        const bk_engine_item *it = &o->items[i];
        const bk_chain_entry *e = &o->chain->entries[it->entry];
        wh->item = i;
        wh->height = it->height;
        bk_engine_block b;
        st = bk_block_reader_read(&R->readers[worker], e, R->flags, &b, wh, err);
        if (st != BK_OK) break;
        b.item = i;
        b.task = job;
        b.height = it->height;
        b.orphan = it->orphan;
        bk_engine_stage undo_stage = BK_STAGE_WORK;
        if (R->flags & BK_READ_UNDO_RAW) b.undo_stage = &undo_stage;
        st = o->block(o->ctx, worker, &b, out, err);
        if (st != BK_OK) {
            /* a raw undo record the callback found bad is reported as if
             * the engine had read it */
            if (b.undo_data && (undo_stage == BK_STAGE_UNDO_DECODE || undo_stage == BK_STAGE_UNDO_CHECKSUM))
                bk_engine_where_at(wh, undo_stage, BK_FILE_REV, e->undo_file, e->undo_offset);
            else
                bk_engine_where_at(wh, BK_STAGE_WORK, BK_FILE_BLK, e->file, e->offset);
            break;
        }
    }
    if (st == BK_OK) {
        wh->stage = BK_STAGE_NONE;
        wh->item = SIZE_MAX;
        wh->height = -1;
        memset(wh->hash, 0, sizeof wh->hash);
    }
    if (o->end) {
        bk_error e2;
        bk_error_clear(&e2);
        bk_status st2 = o->end(o->ctx, worker, job, st, out, &e2);
        if (st == BK_OK && st2 != BK_OK) {
            st = st2;
            if (err) *err = e2;
            wh->stage = BK_STAGE_TASK;
        }
    }
    return st;
}

bk_status bk_engine_run(const bk_engine_opts *o, bk_engine_result *res, bk_error *err)
{
    bk_engine_result r;
    memset(&r, 0, sizeof r);
    r.where.item = SIZE_MAX;
    r.where.height = -1;
    if (res) *res = r;
    if (!o || !o->chain || !o->dir || !o->block || (o->n_items && !o->items))
        return bk_error_set(err, BK_ERR_ARG, 0, "bk_engine_run: bad options");
    size_t njobs = o->tasks ? o->n_tasks : o->n_items;
    if (o->tasks)
        for (size_t t = 0; t < o->n_tasks; t++)
            if (o->tasks[t].first > o->n_items || o->tasks[t].count > o->n_items - o->tasks[t].first)
                return bk_error_set(err, BK_ERR_ARG, 0, "bk_engine_run: task %zu is outside the item list", t);
    for (size_t i = 0; i < o->n_items; i++)
        if (o->items[i].entry >= o->chain->n_entries)
            return bk_error_set(err, BK_ERR_ARG, 0, "bk_engine_run: item %zu is not a chain entry", i);
    int nw = o->run.workers > 0 ? o->run.workers : 1;
    if (njobs && (size_t)nw > njobs) nw = (int)njobs;
    size_t window = o->run.window ? o->run.window : 2 * (size_t)nw + 1;
    if (window < (size_t)nw) window = (size_t)nw;
    bk_ordered_opts ro = o->run;
    ro.workers = nw;
    ro.window = window;

    e_run R;
    memset(&R, 0, sizeof R);
    R.o = o;
    R.window = window;
    R.flags = o->read_flags & (BK_READ_UNDO | BK_READ_UNDO_RAW);
    if (o->chain->from_index) R.flags |= BK_READ_UNDO_CHECKSUM;
    R.readers = calloc((size_t)nw, sizeof *R.readers);
    R.where = calloc(window, sizeof *R.where);
    bk_status st;
    if (!R.readers || !R.where) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        r.run.failure = BK_ORDERED_SETUP;
        r.where.stage = BK_STAGE_SETUP;
    } else {
        for (int i = 0; i < nw; i++) bk_block_reader_init(&R.readers[i], o->dir, o->run.alloc);
        st = ordered_run(njobs, &ro, e_work, &R, o->consume, o->ctx, &R.stopping, &r.run, err);
        if (r.run.failure == BK_ORDERED_WORK) {
            r.where = R.where[r.run.consumed % window];
        } else if (r.run.failure == BK_ORDERED_CONSUME) {
            r.where.stage = BK_STAGE_CONSUME;
            r.where.task = r.run.consumed;
        } else if (r.run.failure == BK_ORDERED_SETUP) {
            r.where.stage = BK_STAGE_SETUP;
        }
        for (int i = 0; i < nw; i++) bk_block_reader_free(&R.readers[i]);
    }
    free(R.readers);
    free(R.where);
    if (res) *res = r;
    return st;
}

char *bk_engine_error_format(const bk_engine_where *w, const bk_error *err, char *buf, size_t cap)
{
    if (!cap) return buf;
    char hex[65];
    bk_hex_encode_rev(hex, w->hash, 32);
    hex[64] = 0;
    const char *msg = err ? err->msg : "";
    unsigned long long at = err ? (unsigned long long)err->offset : 0;
    const char *kind = w->kind == BK_FILE_REV ? "rev" : "blk";
    long long h = (long long)w->height;
    switch (w->stage) {
    case BK_STAGE_READ:
    case BK_STAGE_UNDO_READ:
    case BK_STAGE_WORK:
        snprintf(buf, cap, "block at height %lld (%s): %s", h, hex, msg);
        break;
    case BK_STAGE_DECODE:
        snprintf(buf, cap, "block at height %lld (%s): %s at byte %llu (%s%05u.dat offset %llu)", h, hex, msg, at,
                 kind, w->file, (unsigned long long)w->file_offset);
        break;
    case BK_STAGE_UNDO_CHECKSUM:
        snprintf(buf, cap, "undo of block at height %lld (%s): %s (%s%05u.dat offset %llu)", h, hex, msg, kind,
                 w->file, (unsigned long long)w->file_offset);
        break;
    case BK_STAGE_UNDO_DECODE:
        snprintf(buf, cap, "undo of block at height %lld (%s): %s at byte %llu (%s%05u.dat offset %llu)", h, hex, msg,
                 at, kind, w->file, (unsigned long long)w->file_offset);
        break;
    default:
        snprintf(buf, cap, "%s", msg);
        break;
    }
    return buf;
}

static int cmp_item(const void *a, const void *b)
{
    const bk_engine_item *x = a, *y = b;
    if (x->height != y->height) return x->height < y->height ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

bk_status bk_engine_chain_items(const bk_chain *chain, int64_t start, int64_t end, int with_no_data,
                                bk_engine_item **items, size_t *n, size_t *cap,
                                void (*skipped)(void *ctx, int64_t first, int64_t last), void *ctx,
                                const bk_allocator *alloc, bk_error *err)
{
    if (start < 0) start = 0;
    if (start > end) return BK_OK;
    size_t need = *n + (size_t)(end - start + 1);
    if (need > *cap) {
        bk_engine_item *p = bk_realloc(alloc, *items, *cap * sizeof *p, need * sizeof *p);
        if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        *items = p;
        *cap = need;
    }
    int64_t skip_from = -1;
    for (int64_t h = start; h <= end + 1; h++) {
        const bk_chain_entry *e = h <= end ? bk_chain_at_height(chain, h) : NULL;
        if (e && e->no_data && !with_no_data) {
            if (skip_from < 0) skip_from = h;
            continue;
        }
        if (skip_from >= 0 && skipped) skipped(ctx, skip_from, h - 1);
        skip_from = -1;
        if (!e) continue; /* below an implied genesis, or past the end */
        (*items)[*n].entry = (uint32_t)(e - chain->entries);
        (*items)[*n].height = h;
        (*items)[*n].orphan = 0;
        (*n)++;
    }
    return BK_OK;
}

bk_status bk_engine_add_orphans(const bk_chain *chain, const bk_blocksdir *dir, int64_t start, int64_t end,
                                bk_engine_item **items, size_t *n, size_t *cap, uint64_t *no_height,
                                const bk_allocator *alloc, bk_error *err)
{
    bk_block_reader rd;
    bk_block_reader_init(&rd, dir, alloc);
    size_t first = *n;
    bk_status st = BK_OK;
    for (size_t i = 0; i < chain->n_entries; i++) {
        const bk_chain_entry *e = &chain->entries[i];
        if (e->height >= 0 || e->no_data) continue;
        bk_engine_block b;
        bk_engine_where w;
        bk_error e2;
        st = bk_block_reader_read(&rd, e, 0, &b, &w, &e2);
        uint32_t h;
        if (st != BK_OK && w.stage != BK_STAGE_DECODE) {
            if (err) *err = e2;
            break;
        }
        st = BK_OK;
        if (!b.block || bk_block_bip34_height(b.block, &h) != BK_OK) {
            if (no_height) (*no_height)++;
            continue;
        }
        if ((int64_t)h < start || (end >= 0 && (int64_t)h > end)) continue;
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 64;
            bk_engine_item *p = bk_realloc(alloc, *items, *cap * sizeof *p, nc * sizeof *p);
            if (!p) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                break;
            }
            *items = p;
            *cap = nc;
        }
        (*items)[*n].entry = (uint32_t)i;
        (*items)[*n].height = h;
        (*items)[*n].orphan = 1;
        (*n)++;
    }
    bk_block_reader_free(&rd);
    if (st == BK_OK && *n > first) qsort(*items + first, *n - first, sizeof **items, cmp_item);
    return st;
}
