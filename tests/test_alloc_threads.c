/* One bk_counting_allocator shared by several threads (what the scan
 * benchmarks do at -j2, whose peak once read 2^64 - 284,914 bytes from lost
 * updates): every count must come out exact. 4 threads x 200,000
 * alloc/realloc/free rounds of varying sizes. */
#include "check.h"

#include <blockkit/alloc.h>
#include <pthread.h>

#define THREADS 4
#define ROUNDS 200000

typedef struct worker {
    const bk_allocator *a;
    unsigned seed;
    uint64_t bytes;   /* sizes this thread asked for (alloc + realloc) */
    uint64_t max_held;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    unsigned x = w->seed;
    for (int i = 0; i < ROUNDS; i++) {
        x = x * 1103515245u + 12345u;
        size_t n = 1 + (x >> 16) % 512, m = 1 + (x >> 8) % 1024;
        void *p = bk_alloc(w->a, n);
        if (!p) return NULL;
        void *q = bk_realloc(w->a, p, n, m);
        if (!q) return NULL;
        w->bytes += n + m;
        uint64_t held = n > m ? n : m;
        if (n + m > held) held = n + m;  /* a moving realloc holds both */
        if (held > w->max_held) w->max_held = held;
        bk_free(w->a, q, m);
    }
    return w;
}

static void shared_counting_allocator_is_exact(void)
{
    bk_counting_allocator c;
    bk_counting_allocator_init(&c, NULL);
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){&c.base, 17u + (unsigned)i * 7919u, 0, 0};
        CHECK_EQ_INT(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    uint64_t bytes = 0, bound = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        CHECK(r == &w[i]);
        bytes += w[i].bytes;
        bound += w[i].max_held;
    }
    CHECK_EQ_INT(c.allocs, 2ull * THREADS * ROUNDS);
    CHECK_EQ_INT(c.frees, (uint64_t)THREADS * ROUNDS);
    CHECK_EQ_INT(c.bytes, bytes);
    CHECK_EQ_INT(c.live, 0);
    /* The peak: at least one thread's largest holding, at most all at once. */
    CHECK(c.peak >= 2 && c.peak <= bound);
    bk_counting_allocator_reset(&c);
    CHECK_EQ_INT(c.allocs, 0);
    CHECK_EQ_INT(c.peak, 0);
}

int main(void)
{
    RUN(shared_counting_allocator_is_exact);
    return check_finish();
}
