/* Ordered parallel rendering (see ordered.h).
 *
 * Slot s holds job j with j % window == s. A worker takes the next job
 * number from a shared counter, waits until its slot has been emitted
 * (j < next_emit + window), renders without holding the lock, and marks the
 * slot done. The caller's thread emits done slots in order. Memory is thus
 * bounded by window x (largest rendering). */
#include "ordered.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    bk_writer w;
    size_t job;
    int state; /* 0 free, 1 rendering, 2 done */
    int rc;
} slot;

typedef struct run_state {
    pthread_mutex_t mu;
    pthread_cond_t cv_slot;  /* a slot became free (emitted) */
    pthread_cond_t cv_done;  /* a slot finished rendering */
    slot *slots;
    size_t window;
    size_t njobs;
    size_t next_job;
    size_t next_emit;
    int abort_rc;            /* non-zero: stop everything */
    int stopping;
    const bk_ordered_opts *opts;
    bk_ordered_render_fn render;
    void *ctx;
} run_state;

typedef struct worker_arg {
    run_state *st;
    int id;
} worker_arg;

/* Workers never read *opts->stop: a volatile sig_atomic_t is only safe
 * between a signal handler and the thread it interrupts. Signals are
 * blocked in the workers, so the handler runs on the calling thread, which
 * alone reads the flag and turns it into `stopping` under the lock. */
static int should_stop(run_state *st)
{
    return st->abort_rc != 0 || st->stopping;
}

static void *worker_main(void *p)
{
    worker_arg *wa = p;
    run_state *st = wa->st;
    pthread_mutex_lock(&st->mu);
    for (;;) {
        if (should_stop(st) || st->next_job >= st->njobs) break;
        size_t job = st->next_job++;
        slot *s = &st->slots[job % st->window];
        while (!should_stop(st) && job >= st->next_emit + st->window)
            pthread_cond_wait(&st->cv_slot, &st->mu);
        if (should_stop(st)) break;
        s->state = 1;
        s->job = job;
        pthread_mutex_unlock(&st->mu);

        bk_writer_reset(&s->w);
        /* Grow once to the expected size rather than by doubling. */
        if (st->opts->slot_reserve && s->w.cap < st->opts->slot_reserve)
            (void)bk_writer_reserve(&s->w, st->opts->slot_reserve);
        int rc = st->render(st->ctx, job, wa->id, &s->w);
        if (rc == 0 && bk_writer_status(&s->w) != BK_OK) rc = 70;

        pthread_mutex_lock(&st->mu);
        s->rc = rc;
        s->state = 2;
        pthread_cond_broadcast(&st->cv_done);
    }
    pthread_cond_broadcast(&st->cv_done);
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

int bk_ordered_run(size_t njobs, const bk_ordered_opts *opts, bk_ordered_render_fn render,
                   bk_ordered_emit_fn emit, void *ctx, size_t *peak_slot_bytes_out)
{
    int nw = opts->workers > 0 ? opts->workers : 1;
    size_t window = opts->window >= (size_t)nw ? opts->window : (size_t)nw;
    run_state st;
    memset(&st, 0, sizeof st);
    st.slots = calloc(window, sizeof *st.slots);
    pthread_t *threads = calloc((size_t)nw, sizeof *threads);
    worker_arg *args = calloc((size_t)nw, sizeof *args);
    if (!st.slots || !threads || !args) {
        free(st.slots);
        free(threads);
        free(args);
        return 70;
    }
    for (size_t i = 0; i < window; i++) bk_writer_init(&st.slots[i].w, opts->alloc);
    pthread_mutex_init(&st.mu, NULL);
    pthread_cond_init(&st.cv_slot, NULL);
    pthread_cond_init(&st.cv_done, NULL);
    st.window = window;
    st.njobs = njobs;
    st.opts = opts;
    st.render = render;
    st.ctx = ctx;

    int started = 0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* inherited by the workers */
    for (int i = 0; i < nw; i++) {
        args[i].st = &st;
        args[i].id = i;
        if (pthread_create(&threads[i], NULL, worker_main, &args[i]) != 0) break;
        started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    size_t peak = 0;
    int rc = started ? 0 : 70;
    pthread_mutex_lock(&st.mu);
    while (rc == 0 && st.next_emit < njobs) {
        slot *s = &st.slots[st.next_emit % window];
        while (!(s->state == 2 && s->job == st.next_emit) && st.abort_rc == 0) {
            if (opts->stop && *opts->stop) break;
            pthread_cond_wait(&st.cv_done, &st.mu);
        }
        if (st.abort_rc) {
            rc = st.abort_rc;
            break;
        }
        if (!(s->state == 2 && s->job == st.next_emit)) break; /* stopped */
        if (s->rc) {
            rc = s->rc;
            st.abort_rc = rc;
            break;
        }
        pthread_mutex_unlock(&st.mu);
        int erc = emit(ctx, s->job, s->w.data, s->w.len);
        if (s->w.cap > peak) peak = s->w.cap;
        if (opts->shrink_above && s->w.cap > opts->shrink_above) {
            bk_writer_free(&s->w);
            bk_writer_init(&s->w, opts->alloc);
        }
        pthread_mutex_lock(&st.mu);
        s->state = 0;
        st.next_emit++;
        pthread_cond_broadcast(&st.cv_slot);
        if (erc) {
            rc = erc;
            st.abort_rc = erc;
            break;
        }
        if (opts->stop && *opts->stop) break;
    }
    st.stopping = 1;
    pthread_cond_broadcast(&st.cv_slot);
    pthread_mutex_unlock(&st.mu);
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    for (size_t i = 0; i < window; i++) bk_writer_free(&st.slots[i].w);
    pthread_mutex_destroy(&st.mu);
    pthread_cond_destroy(&st.cv_slot);
    pthread_cond_destroy(&st.cv_done);
    free(st.slots);
    free(threads);
    free(args);
    if (peak_slot_bytes_out) *peak_slot_bytes_out = peak;
    return rc;
}
