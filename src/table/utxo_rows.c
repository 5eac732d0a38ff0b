/* bk_utxo_rows_run: the coins of a source rendered in batches, on worker
 * threads, handed to the caller in coin order (blockkit/utxo.h).
 *
 * Batches go round a ring of threads + 2 slots. The calling thread fills a
 * slot with coins and submits it; a worker takes the oldest submitted slot
 * and renders it; the calling thread emits a slot's rows before it refills
 * that slot. So rows keep the source's order and at most threads + 2
 * batches exist, whatever the size of the set. */
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include "base/threads.h"

#include <pthread.h>
#include <string.h>

typedef struct rows_slot {
    bk_utxo_batch *b;
    int done;
    bk_status st;
} rows_slot;

typedef struct rows_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rows_slot *slots;
    size_t depth;
    uint64_t submitted, next_render;
    int stop;
} rows_pool;

static void *rows_worker(void *arg)
{
    rows_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->next_render == p->submitted && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
        if (p->next_render == p->submitted) break;
        rows_slot *sl = &p->slots[p->next_render % p->depth];
        p->next_render++;
        pthread_mutex_unlock(&p->mu);
        bk_status st = bk_utxo_batch_render(sl->b);
        pthread_mutex_lock(&p->mu);
        sl->st = st;
        sl->done = 1;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void slot_wait(rows_pool *p, rows_slot *sl)
{
    pthread_mutex_lock(&p->mu);
    while (!sl->done) pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static bk_status render_error(bk_status st, bk_error *err)
{
    return bk_error_set(err, st, 0, st == BK_ERR_NOMEM ? "out of memory" : "utxo rows: cannot render a batch");
}

/* Emit a rendered batch and empty it. */
static bk_status emit_batch(bk_utxo_batch *b, bk_status render_st, bk_utxo_emit_fn emit, void *ctx, bk_error *err)
{
    bk_status st = render_st != BK_OK ? render_error(render_st, err) : emit(ctx, b, err);
    bk_utxo_batch_reset(b);
    return st;
}

/* Fill b from the source: 1 when the source has more after it (a coin b
 * had no room for is kept in *u, *pending set), 0 at its end. */
static int fill(bk_utxo_batch *b, bk_utxo_next_fn next, void *next_ctx, bk_utxo *u, int *pending)
{
    if (*pending) {
        (void)bk_utxo_batch_add(b, u); /* an empty batch takes any coin */
        *pending = 0;
    }
    while (next(next_ctx, u))
        if (!bk_utxo_batch_add(b, u)) {
            *pending = 1;
            return 1;
        }
    return 0;
}

/* BK_ERR_CANCELLED once *cancel is set (polled between batches). */
static bk_status poll_cancel(const volatile sig_atomic_t *cancel, bk_error *err)
{
    return cancel && *cancel ? bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled") : BK_OK;
}

static bk_status rows_inline(bk_network net, bk_table_profile prof, bk_utxo_next_fn next, void *next_ctx,
                             bk_utxo_emit_fn emit, void *ctx, const volatile sig_atomic_t *cancel,
                             const bk_allocator *alloc, bk_error *err)
{
    bk_utxo_batch *b;
    if (bk_utxo_batch_new(&b, net, alloc) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    bk_utxo_batch_set_profile(b, prof);
    bk_status st = BK_OK;
    bk_utxo u;
    int more = 1, pending = 0;
    while (st == BK_OK && more && (st = poll_cancel(cancel, err)) == BK_OK) {
        more = fill(b, next, next_ctx, &u, &pending);
        if (bk_utxo_batch_count(b)) st = emit_batch(b, bk_utxo_batch_render(b), emit, ctx, err);
    }
    bk_utxo_batch_free(b);
    return st;
}

bk_status bk_utxo_rows_run(bk_network net, bk_utxo_next_fn next, void *next_ctx, unsigned threads,
                           bk_utxo_emit_fn emit, void *emit_ctx, const volatile sig_atomic_t *cancel,
                           const bk_allocator *alloc, bk_error *err)
{
    return bk_utxo_rows_run_profile(net, BK_PROFILE_DEFAULT, next, next_ctx, threads, emit, emit_ctx, cancel, alloc,
                                    err);
}

bk_status bk_utxo_rows_run_profile(bk_network net, bk_table_profile prof, bk_utxo_next_fn next, void *next_ctx,
                                   unsigned threads, bk_utxo_emit_fn emit, void *emit_ctx,
                                   const volatile sig_atomic_t *cancel, const bk_allocator *alloc, bk_error *err)
{
    if (!next || !emit) return bk_error_set(err, BK_ERR_ARG, 0, "utxo rows: no source or no emitter");
    if (threads > BK_UTXO_ROWS_THREADS_MAX) threads = BK_UTXO_ROWS_THREADS_MAX;
    if (threads < 2) return rows_inline(net, prof, next, next_ctx, emit, emit_ctx, cancel, alloc, err);

    rows_pool p;
    memset(&p, 0, sizeof p);
    p.depth = (size_t)threads + 2;
    rows_slot slots[BK_UTXO_ROWS_THREADS_MAX + 2];
    memset(slots, 0, sizeof slots);
    p.slots = slots;
    bk_status st = BK_OK;
    for (size_t i = 0; i < p.depth && st == BK_OK; i++)
        if (bk_utxo_batch_new(&p.slots[i].b, net, alloc) != BK_OK)
            st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        else
            bk_utxo_batch_set_profile(p.slots[i].b, prof);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    pthread_t th[BK_UTXO_ROWS_THREADS_MAX];
    unsigned started = 0;
    if (st == BK_OK) started = bk_threads_start(th, threads, rows_worker, &p, 0); /* every worker takes the pool */
    if (st == BK_OK && !started) {
        st = rows_inline(net, prof, next, next_ctx, emit, emit_ctx, cancel, alloc, err);
    } else if (st == BK_OK) {
        uint64_t seq = 0, emitted = 0; /* batches submitted, batches emitted */
        bk_utxo u;
        int more = 1, pending = 0;
        while (st == BK_OK && more && (st = poll_cancel(cancel, err)) == BK_OK) {
            rows_slot *cur = &p.slots[seq % p.depth];
            if (seq >= p.depth) {
                slot_wait(&p, cur);
                emitted++;
                if ((st = emit_batch(cur->b, cur->st, emit, emit_ctx, err)) != BK_OK) break;
            }
            cur->done = 0;
            more = fill(cur->b, next, next_ctx, &u, &pending);
            if (!bk_utxo_batch_count(cur->b)) {
                cur->done = 1;
                break;
            }
            pthread_mutex_lock(&p.mu);
            p.submitted = ++seq;
            pthread_cond_broadcast(&p.cv);
            pthread_mutex_unlock(&p.mu);
        }
        /* The rendered rest, in order (after an error or a cancel: waited
         * for, not emitted). */
        for (uint64_t k = emitted; k < seq; k++) {
            rows_slot *sl = &p.slots[k % p.depth];
            slot_wait(&p, sl);
            if (st == BK_OK) st = emit_batch(sl->b, sl->st, emit, emit_ctx, err);
        }
        pthread_mutex_lock(&p.mu);
        p.stop = 1;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
    }
    bk_threads_join(th, started);
    for (size_t i = 0; i < p.depth; i++) bk_utxo_batch_free(p.slots[i].b);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    return st;
}
