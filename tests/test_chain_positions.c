/* bk_chain_sort_positions (src/bitcoin/chain_internal.h), the sort of the
 * block index builder's blk/rev positions, against qsort with the same
 * order (file, pos, idx) on inputs that reach each of its paths: already
 * sorted, nearly sorted (a few out of place: taken out and merged back),
 * shuffled (radix sort), positions past UINT32_MAX (qsort), duplicates. */
#include "check.h"

#include <blockkit/alloc.h>

#include "bitcoin/chain_internal.h"

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static int cmp_ref(const void *a, const void *b)
{
    const bk_chain_pos *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sort v (idx ascending as the builder makes it) both ways and compare. */
static void check_sort(bk_chain_pos *v, size_t n)
{
    for (size_t i = 0; i < n; i++) v[i].idx = (uint32_t)i;
    bk_chain_pos *want = malloc((n ? n : 1) * sizeof *want);
    if (!want) exit(2);
    memcpy(want, v, n * sizeof *v);
    qsort(want, n, sizeof *want, cmp_ref);
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    bk_chain_sort_positions(&ca.base, v, n);
    CHECK(n == 0 || memcmp(v, want, n * sizeof *v) == 0);
    CHECK_EQ_INT(ca.live, 0); /* scratch freed */
    free(want);
}

/* Heights ascending through two files, every `every`-th block moved
 * `shift` places later (a stale sibling stored after its rival's
 * successors), or earlier when shift < 0. */
static void make_chain(bk_chain_pos *v, size_t n, size_t every, long shift)
{
    uint64_t pos = 8;
    for (size_t i = 0; i < n; i++) {
        v[i].file = i < n / 2 ? 0 : 1;
        if (i == n / 2) pos = 8;
        v[i].pos = pos;
        pos += 200 + rnd() % 300;
    }
    if (!every) return;
    for (size_t i = every; i + 40 < n && i > 40; i += every) {
        size_t j = (size_t)((long)i + shift);
        bk_chain_pos t = v[i];
        if (j > i) memmove(&v[i], &v[i + 1], (j - i) * sizeof *v);
        else memmove(&v[j + 1], &v[j], (i - j) * sizeof *v);
        v[j] = t;
    }
}

static void test_small(void)
{
    bk_chain_pos v[3];
    check_sort(v, 0);
    v[0].file = 3;
    v[0].pos = 9;
    check_sort(v, 1);
    v[0].file = 1, v[0].pos = 20, v[1].file = 1, v[1].pos = 10;
    check_sort(v, 2);
    v[0].file = 2, v[0].pos = 10, v[1].file = 1, v[1].pos = 10, v[2].file = 1, v[2].pos = 10;
    check_sort(v, 3);
}

static void test_sorted_and_nearly(void)
{
    size_t n = 50000;
    bk_chain_pos *v = malloc(n * sizeof *v);
    if (!v) exit(2);
    make_chain(v, n, 0, 0);
    check_sort(v, n);
    make_chain(v, n, 1000, 3); /* siblings stored later */
    check_sort(v, n);
    make_chain(v, n, 700, -5); /* and earlier */
    check_sort(v, n);
    make_chain(v, n, 40, 17); /* dense, past the n/16 limit of the merge: radix */
    check_sort(v, n);
    make_chain(v, n, 1000, 1);
    v[n - 1] = v[0]; /* a duplicate position at the end */
    check_sort(v, n);
    free(v);
}

static void test_shuffled(void)
{
    size_t n = 40000;
    bk_chain_pos *v = malloc(n * sizeof *v);
    if (!v) exit(2);
    for (size_t i = 0; i < n; i++) {
        v[i].file = (uint32_t)(rnd() % 5000);
        v[i].pos = rnd() % 200; /* many equal positions */
    }
    check_sort(v, n);
    for (size_t i = 0; i < n; i++) {
        v[i].file = (uint32_t)rnd();
        v[i].pos = rnd() & 0xffffffffu;
    }
    check_sort(v, n);
    v[n / 2].pos = (uint64_t)1 << 40; /* past uint32: the qsort path */
    check_sort(v, n);
    free(v);
}

int main(void)
{
    RUN(test_small);
    RUN(test_sorted_and_nearly);
    RUN(test_shuffled);
    return check_finish();
}
