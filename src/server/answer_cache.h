/* The Electrum server's rendered answers (internal): a scripthash
 * method's "result" JSON kept until the index's tip moves, so a wallet's
 * repeated get_history / get_balance / listunspent costs a copy, not a
 * render. Thread-safe. Bounded in bytes; the oldest entry leaves first. */
#ifndef BK_SERVER_ANSWER_CACHE_H
#define BK_SERVER_ANSWER_CACHE_H

#include <blockkit/stream.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define BK_ANSWER_BUCKETS 4096

typedef struct bk_answer bk_answer;

typedef struct bk_answer_cache {
    pthread_mutex_t mu;
    bk_answer *bucket[BK_ANSWER_BUCKETS];
    bk_answer *oldest, *newest;
    size_t bytes, cap;
    uint64_t gen;               /* bumped by every clear */
} bk_answer_cache;

/* cap bytes of answers (0: none kept). */
void bk_answer_cache_init(bk_answer_cache *c, size_t cap);
void bk_answer_cache_free(bk_answer_cache *c);
/* The generation to hand to put: read it before the query whose answer
 * is put, so an answer of a tip that a clear has since retired is
 * dropped. */
uint64_t bk_answer_cache_gen(bk_answer_cache *c);
/* Append the cached answer of (kind, sh) to out: 1, or 0 when none. */
int bk_answer_cache_get(bk_answer_cache *c, int kind, const uint8_t sh[32], bk_writer *out);
/* The length of the cached answer of (kind, sh), 0 when none. */
size_t bk_answer_cache_len(bk_answer_cache *c, int kind, const uint8_t sh[32]);
void bk_answer_cache_put(bk_answer_cache *c, uint64_t gen, int kind, const uint8_t sh[32], const void *data,
                         size_t len);
/* Every answer out (the tip moved). */
void bk_answer_cache_clear(bk_answer_cache *c);

#endif
