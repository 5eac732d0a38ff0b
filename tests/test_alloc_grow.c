/* bk_grow: the shared buffer growth of the block readers (engine, scan).
 * It keeps the bytes already held, grows with a quarter of headroom (so a
 * run of needs growing one byte at a time reallocates a logarithmic number
 * of times), does nothing when the buffer is big enough, and on a refused
 * allocation leaves the buffer as it was. */
#include "check.h"

#include <blockkit/alloc.h>

/* An allocator that refuses every request above limit bytes. */
typedef struct limited {
    bk_allocator base;
    size_t limit;
} limited;

static void *lim_alloc(void *ctx, size_t size)
{
    limited *l = ctx;
    return size > l->limit ? NULL : malloc(size);
}
static void *lim_realloc(void *ctx, void *p, size_t old_size, size_t new_size)
{
    (void)old_size;
    limited *l = ctx;
    return new_size > l->limit ? NULL : realloc(p, new_size);
}
static void lim_free(void *ctx, void *p, size_t size)
{
    (void)ctx;
    (void)size;
    free(p);
}

static void grows_keeps_and_counts(void)
{
    bk_counting_allocator c;
    bk_counting_allocator_init(&c, NULL);
    uint8_t *buf = NULL;
    size_t cap = 0;
    CHECK_EQ_INT(bk_grow(&c.base, &buf, &cap, 10), 0);
    CHECK(buf != NULL);
    CHECK_EQ_INT(cap, 12); /* 10 + 10/4 */
    memcpy(buf, "0123456789", 10);
    CHECK_EQ_INT(bk_grow(&c.base, &buf, &cap, 12), 0); /* fits: nothing done */
    CHECK_EQ_INT(c.allocs, 1);
    for (size_t need = 13; need <= 100000; need++) CHECK_EQ_INT(bk_grow(&c.base, &buf, &cap, need), 0);
    CHECK(cap >= 100000 && cap <= 125000);
    CHECK_MEM(buf, "0123456789", 10);
    CHECK(c.allocs < 60); /* ~log(100000/10)/log(1.25) = 41 growths */
    bk_free(&c.base, buf, cap);
    CHECK_EQ_INT(c.live, 0);
}

static void refused_growth_leaves_the_buffer(void)
{
    limited l = {{lim_alloc, lim_realloc, lim_free, NULL}, 1000};
    l.base.ctx = &l;
    uint8_t *buf = NULL;
    size_t cap = 0;
    CHECK_EQ_INT(bk_grow(&l.base, &buf, &cap, 100), 0);
    CHECK_EQ_INT(cap, 125);
    memset(buf, 0xab, 100);
    uint8_t *before = buf;
    CHECK_EQ_INT(bk_grow(&l.base, &buf, &cap, 5000), -1);
    CHECK(buf == before);
    CHECK_EQ_INT(cap, 125);
    CHECK_EQ_INT(buf[99], 0xab);
    /* A need whose headroom would overflow size_t is asked for as it is
     * (and refused here), never wrapped to a small size. */
    CHECK_EQ_INT(bk_grow(&l.base, &buf, &cap, SIZE_MAX - 1), -1);
    CHECK_EQ_INT(cap, 125);
    bk_free(&l.base, buf, cap);
}

int main(void)
{
    RUN(grows_keeps_and_counts);
    RUN(refused_growth_leaves_the_buffer);
    return check_finish();
}
