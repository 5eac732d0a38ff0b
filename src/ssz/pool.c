/* Parallel hashing of large SSZ subtrees (bk_ssz_pool).
 *
 * A pool owns N-1 worker threads, each with its own hasher, created once.
 * A hasher that uses a pool splits the data range of a large list or vector
 * subtree into pieces of equal, power-of-two chunk counts; the caller's
 * thread and the workers take pieces in turn (an atomic counter), each
 * computing the piece's root with its own scratch; the caller then combines
 * the piece roots up to the subtree's height. Pieces are never split again
 * (a worker's hasher has no pool), so the parallelism is one level deep and
 * the result is bit-identical to the sequential path. Nothing is allocated
 * per call: the piece roots live in the caller's hasher scratch. */
#include "ssz_internal.h"
#include "base/threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* Below this many chunks a subtree is hashed on one thread. */
#define PAR_MIN_CHUNKS 4096
/* Pieces per thread: enough for the load to even out. */
#define PIECES_PER_THREAD 8

typedef struct worker_arg {
    struct bk_ssz_pool *pool;
    unsigned index;
} worker_arg;

typedef struct job {
    const bk_ssz_type *t;
    const uint8_t *d;
    size_t len;
    uint64_t lo;           /* first chunk of the range */
    unsigned piece_depth;  /* each piece covers 2^piece_depth chunks */
    uint64_t npieces;
    uint8_t *roots;        /* npieces * 32 */
    atomic_uint_fast64_t next;
    atomic_int status;     /* first error */
    atomic_uint_fast64_t compressions; /* the workers' share */
} job;

struct bk_ssz_pool {
    const bk_allocator *alloc;
    unsigned nworkers;
    pthread_t *threads;
    bk_ssz_hasher **hashers;
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    struct worker_arg *args;
    job *cur;
    uint64_t generation;   /* bumped for each job */
    unsigned busy;         /* workers still on the current job */
    int quit;
};

static void run_pieces(job *j, bk_ssz_hasher *h, int worker)
{
    uint64_t c0 = bk_ssz_tls_compressions;
    for (;;) {
        uint64_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->npieces) {
            if (worker) atomic_fetch_add(&j->compressions, bk_ssz_tls_compressions - c0);
            return;
        }
        uint64_t lo = j->lo + (i << j->piece_depth);
        bk_error err;
        size_t mark = h->used;
        bk_status st = bk_ssz_subtree(h, j->t, j->d, j->len, lo, j->piece_depth, j->roots + 32 * i, &err);
        h->used = mark;
        if (st != BK_OK) {
            int expected = BK_OK;
            atomic_compare_exchange_strong(&j->status, &expected, (int)st);
        }
    }
}


static void *worker_main(void *arg)
{
    bk_ssz_pool *p = ((worker_arg *)arg)->pool;
    bk_ssz_hasher *h = p->hashers[((worker_arg *)arg)->index];
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen) pthread_cond_wait(&p->start, &p->mu);
        if (p->quit) break;
        seen = p->generation;
        job *j = p->cur;
        pthread_mutex_unlock(&p->mu);
        run_pieces(j, h, 1);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

bk_status bk_ssz_pool_create(bk_ssz_pool **pool_out, unsigned nthreads, size_t scratch_bytes,
                             const bk_allocator *alloc, bk_error *err)
{
    *pool_out = NULL;
    if (nthreads < 1) nthreads = 1;
    if (nthreads > 256) return bk_error_set(err, BK_ERR_ARG, 0, "at most 256 threads");
    bk_ssz_pool *p = bk_alloc(alloc, sizeof *p);
    if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(p, 0, sizeof *p);
    p->alloc = alloc;
    p->nworkers = nthreads - 1;
    size_t n = p->nworkers ? p->nworkers : 1;
    p->threads = bk_alloc(alloc, n * sizeof *p->threads);
    p->hashers = bk_alloc(alloc, n * sizeof *p->hashers);
    worker_arg *args = bk_alloc(alloc, n * sizeof *args);
    if (!p->threads || !p->hashers || !args) {
        bk_free(alloc, p->threads, n * sizeof *p->threads);
        bk_free(alloc, p->hashers, n * sizeof *p->hashers);
        bk_free(alloc, args, n * sizeof *args);
        bk_free(alloc, p, sizeof *p);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    memset(p->hashers, 0, n * sizeof *p->hashers);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    unsigned started = 0;
    bk_status st = BK_OK;
    for (unsigned i = 0; i < p->nworkers && st == BK_OK; i++)
        if (bk_ssz_hasher_create(&p->hashers[i], scratch_bytes, alloc) != BK_OK) st = BK_ERR_NOMEM;
    if (st == BK_OK) {
        for (unsigned i = 0; i < p->nworkers; i++) {
            args[i].pool = p;
            args[i].index = i;
        }
        started = bk_threads_start(p->threads, p->nworkers, worker_main, args, sizeof *args);
        if (started < p->nworkers) st = BK_ERR_IO;
    }
    /* Each worker's argument lives in p->args, as long as the worker. */
    if (st != BK_OK) {
        pthread_mutex_lock(&p->mu);
        p->quit = 1;
        pthread_cond_broadcast(&p->start);
        pthread_mutex_unlock(&p->mu);
        bk_threads_join(p->threads, started);
        for (unsigned i = 0; i < p->nworkers; i++) bk_ssz_hasher_free(p->hashers[i]);
        bk_free(alloc, args, n * sizeof *args);
        bk_free(alloc, p->threads, n * sizeof *p->threads);
        bk_free(alloc, p->hashers, n * sizeof *p->hashers);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->start);
        pthread_cond_destroy(&p->done);
        bk_free(alloc, p, sizeof *p);
        return bk_error_set(err, st, 0, st == BK_ERR_NOMEM ? "out of memory" : "cannot start a thread");
    }
    p->args = args;
    *pool_out = p;
    return BK_OK;
}

void bk_ssz_pool_free(bk_ssz_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    bk_threads_join(p->threads, p->nworkers);
    for (unsigned i = 0; i < p->nworkers; i++) bk_ssz_hasher_free(p->hashers[i]);
    size_t n = p->nworkers ? p->nworkers : 1;
    bk_free(p->alloc, p->args, n * sizeof *p->args);
    bk_free(p->alloc, p->threads, n * sizeof *p->threads);
    bk_free(p->alloc, p->hashers, n * sizeof *p->hashers);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    bk_free(p->alloc, p, sizeof *p);
}

unsigned bk_ssz_pool_threads(const bk_ssz_pool *p) { return p ? p->nworkers + 1 : 1; }

void bk_ssz_hasher_set_pool(bk_ssz_hasher *h, bk_ssz_pool *pool) { h->pool = pool; }

/* Root of the subtree of height sub_depth over chunks [lo, hi) of t (the rest
 * zero), computed in pieces on the pool. 0 when the range is too small or
 * the scratch cannot hold the piece roots (the caller goes sequential). */
int bk_ssz_par_subtree(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t lo,
                       uint64_t hi, unsigned sub_depth, uint8_t out[32], bk_status *st, bk_error *err)
{
    bk_ssz_pool *p = h->pool;
    if (!p || !p->nworkers || h->in_parallel || hi - lo < PAR_MIN_CHUNKS) return 0;
    uint64_t want = (uint64_t)(p->nworkers + 1) * PIECES_PER_THREAD;
    unsigned pd = 0;
    while (pd + 1 < sub_depth && ((hi - lo) >> (pd + 1)) >= want) pd++;
    if (pd == 0) return 0;
    uint64_t npieces = ((hi - lo) + (UINT64_C(1) << pd) - 1) >> pd;
    size_t mark = h->used;
    /* Room for the roots, rounded to even for the combine. */
    uint8_t *roots = bk_ssz_scratch_take(h, 32 * (size_t)(npieces + 1));
    if (!roots) return 0;
    job j;
    j.t = t;
    j.d = d;
    j.len = len;
    j.lo = lo;
    j.piece_depth = pd;
    j.npieces = npieces;
    j.roots = roots;
    atomic_init(&j.next, 0);
    atomic_init(&j.status, BK_OK);
    atomic_init(&j.compressions, 0);
    pthread_mutex_lock(&p->mu);
    p->cur = &j;
    p->busy = p->nworkers;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    h->in_parallel = 1;
    run_pieces(&j, h, 0);
    h->in_parallel = 0;
    pthread_mutex_lock(&p->mu);
    while (p->busy) pthread_cond_wait(&p->done, &p->mu);
    p->cur = NULL;
    pthread_mutex_unlock(&p->mu);
    bk_ssz_tls_compressions += atomic_load(&j.compressions);
    *st = (bk_status)atomic_load(&j.status);
    if (*st != BK_OK) {
        h->used = mark;
        *st = bk_error_set(err, *st, 0, "hashing a piece failed");
        return 1;
    }
    /* Combine: level by level from the piece height, zero subtrees past the
     * data, up to sub_depth. */
    uint64_t n = npieces;
    for (unsigned level = pd; level < sub_depth; level++) {
        if (n & 1) memcpy(roots + 32 * n, bk_ssz_zero_hash(level), 32);
        uint64_t m = (n + 1) / 2;
        bk_ssz_sha64(roots, roots, m);
        n = m;
    }
    memcpy(out, roots, 32);
    h->used = mark;
    return 1;
}
