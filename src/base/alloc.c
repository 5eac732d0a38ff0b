#include <blockkit/alloc.h>

#include <stdlib.h>

static void *std_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *std_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    (void)ctx;
    (void)old_size;
    return realloc(ptr, new_size);
}

static void std_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static const bk_allocator std_allocator = {std_alloc, std_realloc, std_free, NULL};

const bk_allocator *bk_default_allocator(void) { return &std_allocator; }

void *bk_alloc(const bk_allocator *a, size_t size)
{
    if (size == 0) return NULL;
    if (!a) a = &std_allocator;
    return a->alloc(a->ctx, size);
}

void *bk_realloc(const bk_allocator *a, void *ptr, size_t old_size, size_t new_size)
{
    if (!a) a = &std_allocator;
    if (!ptr) return bk_alloc(a, new_size);
    return a->realloc(a->ctx, ptr, old_size, new_size);
}

void bk_free(const bk_allocator *a, void *ptr, size_t size)
{
    if (!ptr) return;
    if (!a) a = &std_allocator;
    a->free(a->ctx, ptr, size);
}

/* ---- counting allocator ---- */

/* Counters are updated atomically, so one counting allocator may be shared
 * by the threads of a parallel job (the scan benchmarks at -j2 once
 * reported a peak of 2^64 - 284,914 bytes from lost updates of live). */
static void count_live(bk_counting_allocator *c, uint64_t add, uint64_t sub)
{
    uint64_t live;
    if (add) live = __atomic_add_fetch(&c->live, add, __ATOMIC_RELAXED);
    else live = __atomic_sub_fetch(&c->live, sub, __ATOMIC_RELAXED);
    uint64_t peak = __atomic_load_n(&c->peak, __ATOMIC_RELAXED);
    while (live > peak &&
           !__atomic_compare_exchange_n(&c->peak, &peak, live, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static void count_call(uint64_t *counter, uint64_t n)
{
    __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

static void *counting_alloc(void *ctx, size_t size)
{
    bk_counting_allocator *c = ctx;
    void *p = c->inner->alloc(c->inner->ctx, size);
    if (p) {
        count_call(&c->allocs, 1);
        count_call(&c->bytes, size);
        count_live(c, size, 0);
    }
    return p;
}

static void *counting_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    bk_counting_allocator *c = ctx;
    void *p = c->inner->realloc(c->inner->ctx, ptr, old_size, new_size);
    if (p) {
        count_call(&c->allocs, 1);
        count_call(&c->bytes, new_size);
        /* A moving realloc briefly holds both blocks: count the peak so. */
        if (p != ptr) {
            count_live(c, new_size, 0);
            count_live(c, 0, old_size);
        } else if (new_size >= old_size) {
            count_live(c, new_size - old_size, 0);
        } else {
            count_live(c, 0, old_size - new_size);
        }
    }
    return p;
}

static void counting_free(void *ctx, void *ptr, size_t size)
{
    bk_counting_allocator *c = ctx;
    c->inner->free(c->inner->ctx, ptr, size);
    count_call(&c->frees, 1);
    count_live(c, 0, size);
}

void bk_counting_allocator_init(bk_counting_allocator *c, const bk_allocator *inner)
{
    c->inner = inner ? inner : &std_allocator;
    c->base.alloc = counting_alloc;
    c->base.realloc = counting_realloc;
    c->base.free = counting_free;
    c->base.ctx = c;
    c->allocs = c->frees = c->bytes = c->live = c->peak = 0;
}

void bk_counting_allocator_reset(bk_counting_allocator *c)
{
    __atomic_store_n(&c->allocs, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->frees, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->bytes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->peak, __atomic_load_n(&c->live, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

int bk_grow(const bk_allocator *a, uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = need > SIZE_MAX - need / 4 ? need : need + need / 4;
    uint8_t *p = bk_realloc(a, *buf, *cap, n);
    if (!p) return -1;
    *buf = p;
    *cap = n;
    return 0;
}
