/* blockkit: caller-supplied allocation.
 *
 * Every allocation the library makes goes through a bk_allocator the caller
 * passes (NULL means the C library's malloc/realloc/free). The operations are
 * sized: free and realloc receive the size the block was allocated with, so a
 * counting allocator needs no hidden headers. The library never zeroes memory
 * before freeing it: blockkit handles no secret material. */
#ifndef BLOCKKIT_ALLOC_H
#define BLOCKKIT_ALLOC_H

#include <blockkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bk_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
} bk_allocator;

/* The malloc/realloc/free allocator. */
BK_API const bk_allocator *bk_default_allocator(void);

/* Allocate/resize/free through a (NULL = default). Zero-size requests return
 * NULL from bk_alloc; bk_free(a, NULL, 0) is a no-op. */
BK_API void *bk_alloc(const bk_allocator *a, size_t size);
BK_API void *bk_realloc(const bk_allocator *a, void *ptr, size_t old_size, size_t new_size);
BK_API void bk_free(const bk_allocator *a, void *ptr, size_t size);

/* Grow the buffer *buf of *cap bytes to hold at least need bytes (with a
 * quarter of headroom, so a run of growing needs reallocates O(log n)
 * times). Nothing happens when need <= *cap. 0 on success; -1 when out of
 * memory (then *buf and *cap are unchanged and still owned by the caller). */
BK_API int bk_grow(const bk_allocator *a, uint8_t **buf, size_t *cap, size_t need);

/* A counting allocator: wraps another allocator and counts every call.
 * allocs counts alloc and realloc calls (a growth is an allocation, as
 * nanobench counts it); bytes sums the sizes requested; live and peak track
 * the bytes currently held and their maximum. Thread-safe: the counters are
 * updated atomically (relaxed), so the threads of one job may share one;
 * read them once the threads are done. init and reset must not race with
 * allocations. */
typedef struct bk_counting_allocator {
    bk_allocator base;      /* pass &c.base to the library */
    const bk_allocator *inner;
    uint64_t allocs;
    uint64_t frees;
    uint64_t bytes;
    uint64_t live;
    uint64_t peak;
} bk_counting_allocator;

/* inner NULL = default allocator. Counters start at zero. */
BK_API void bk_counting_allocator_init(bk_counting_allocator *c, const bk_allocator *inner);
/* Zero the counters (allocs, frees, bytes) and set peak to the current live. */
BK_API void bk_counting_allocator_reset(bk_counting_allocator *c);

#ifdef __cplusplus
}
#endif
#endif
