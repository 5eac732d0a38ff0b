/* The Electrum server's rendered answers (answer_cache.h). */
#include "server/answer_cache.h"

#include <stdlib.h>
#include <string.h>

struct bk_answer {
    bk_answer *hnext;           /* its bucket's chain */
    bk_answer *newer;           /* insertion order */
    int kind;
    uint8_t sh[32];
    size_t len;
    uint8_t data[];
};

void bk_answer_cache_init(bk_answer_cache *c, size_t cap)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    c->cap = cap;
}

static void drop_all(bk_answer_cache *c)
{
    for (bk_answer *a = c->oldest, *n; a; a = n) {
        n = a->newer;
        free(a);
    }
    memset(c->bucket, 0, sizeof c->bucket);
    c->oldest = c->newest = NULL;
    c->bytes = 0;
}

void bk_answer_cache_free(bk_answer_cache *c)
{
    drop_all(c);
    pthread_mutex_destroy(&c->mu);
}

static unsigned slot(int kind, const uint8_t sh[32])
{
    uint32_t h;
    memcpy(&h, sh, 4);          /* a hash already */
    return (h ^ (uint32_t)kind * 0x9e3779b9u) % BK_ANSWER_BUCKETS;
}

static bk_answer *find(bk_answer_cache *c, int kind, const uint8_t sh[32])
{
    for (bk_answer *a = c->bucket[slot(kind, sh)]; a; a = a->hnext)
        if (a->kind == kind && !memcmp(a->sh, sh, 32)) return a;
    return NULL;
}

uint64_t bk_answer_cache_gen(bk_answer_cache *c)
{
    pthread_mutex_lock(&c->mu);
    uint64_t g = c->gen;
    pthread_mutex_unlock(&c->mu);
    return g;
}

int bk_answer_cache_get(bk_answer_cache *c, int kind, const uint8_t sh[32], bk_writer *out)
{
    pthread_mutex_lock(&c->mu);
    bk_answer *a = find(c, kind, sh);
    if (a) bk_writer_put(out, a->data, a->len);
    pthread_mutex_unlock(&c->mu);
    return a != NULL;
}

size_t bk_answer_cache_len(bk_answer_cache *c, int kind, const uint8_t sh[32])
{
    pthread_mutex_lock(&c->mu);
    bk_answer *a = find(c, kind, sh);
    size_t len = a ? a->len : 0;
    pthread_mutex_unlock(&c->mu);
    return len;
}

/* The oldest answer out: unlinked from its chain and the order. */
static void evict_oldest(bk_answer_cache *c)
{
    bk_answer *a = c->oldest;
    bk_answer **p = &c->bucket[slot(a->kind, a->sh)];
    while (*p != a) p = &(*p)->hnext;
    *p = a->hnext;
    c->oldest = a->newer;
    if (!c->oldest) c->newest = NULL;
    c->bytes -= sizeof *a + a->len;
    free(a);
}

void bk_answer_cache_put(bk_answer_cache *c, uint64_t gen, int kind, const uint8_t sh[32], const void *data,
                         size_t len)
{
    size_t need = sizeof(bk_answer) + len;
    if (need > c->cap / 8) return;   /* one answer never fills the cache */
    bk_answer *a = malloc(need);
    if (!a) return;
    a->hnext = a->newer = NULL;
    a->kind = kind;
    memcpy(a->sh, sh, 32);
    a->len = len;
    memcpy(a->data, data, len);
    pthread_mutex_lock(&c->mu);
    if (gen != c->gen || find(c, kind, sh)) {   /* a retired tip's, or another thread's already */
        pthread_mutex_unlock(&c->mu);
        free(a);
        return;
    }
    while (c->oldest && c->bytes + need > c->cap) evict_oldest(c);
    unsigned b = slot(kind, sh);
    a->hnext = c->bucket[b];
    c->bucket[b] = a;
    if (c->newest) c->newest->newer = a;
    else c->oldest = a;
    c->newest = a;
    c->bytes += need;
    pthread_mutex_unlock(&c->mu);
}

void bk_answer_cache_clear(bk_answer_cache *c)
{
    pthread_mutex_lock(&c->mu);
    drop_all(c);
    c->gen++;
    pthread_mutex_unlock(&c->mu);
}
