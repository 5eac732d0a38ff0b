/* bk_writer benches, after Bitcoin Core's DataStreamInitAndFree bench:
 * initialise a writer, write 1 MB in small pieces (1..64 bytes), free it.
 * Unit MB (10^6 bytes written per op).
 *
 *   StreamInitAndFree                 allocs/op = the writer's growth steps
 *                                     (256 B doubling to 1 MiB: 13)
 *   StreamInitAndFree/ZeroAfterFree   the same through an allocator that
 *                                     wipes every block it releases (on free
 *                                     and on each growth), as Core's
 *                                     zero_after_free_allocator did until
 *                                     Core dropped it from DataStream: the
 *                                     cost this row shows. */
#include "bench.h"

#include <string.h>
#include <blockkit/stream.h>

enum { TOTAL = 1000000, NPIECES = 4096 };

typedef struct stream_ctx {
    uint8_t src[64];
    /* Piece sizes 1..64, cycled. Not uint8_t: with sizes known to be
     * < 256 GCC inlines the writer's memcpy as `rep movsq`, 3-4x slower
     * for these lengths than the library call real callers get. */
    uint32_t piece[NPIECES];
    int zero;
    bk_allocator zeroing;        /* wipes before releasing, over the counting allocator */
    const bk_allocator *inner;
} stream_ctx;

static void *z_alloc(void *ctx, size_t size)
{
    stream_ctx *c = ctx;
    return bk_alloc(c->inner, size);
}

static void *z_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    stream_ctx *c = ctx;
    uint8_t *p = bk_alloc(c->inner, new_size);
    if (!p) return NULL;
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        explicit_bzero(ptr, old_size);
        bk_free(c->inner, ptr, old_size);
    }
    return p;
}

static void z_free(void *ctx, void *ptr, size_t size)
{
    stream_ctx *c = ctx;
    if (ptr) explicit_bzero(ptr, size);
    bk_free(c->inner, ptr, size);
}

static int stream_setup(void **out, const void *arg, const bk_allocator *alloc)
{
    stream_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    c->zero = arg != NULL;
    c->inner = alloc;
    c->zeroing = (bk_allocator){z_alloc, z_realloc, z_free, c};
    uint64_t s = 7;
    for (int i = 0; i < 64; i++) c->src[i] = (uint8_t)(i * 37);
    for (int i = 0; i < NPIECES; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        c->piece[i] = (uint32_t)(1 + (s >> 33) % 64);
    }
    *out = c;
    return 0;
}

static void stream_run(void *p, uint64_t iters, const bk_allocator *alloc)
{
    stream_ctx *c = p;
    const bk_allocator *a = c->zero ? &c->zeroing : alloc;
    for (uint64_t it = 0; it < iters; it++) {
        bk_writer w;
        size_t done = 0;
        unsigned k = 0;
        bk_writer_init(&w, a);
        while (done < TOTAL) {
            size_t n = c->piece[k++ % NPIECES];
            if (n > TOTAL - done) n = TOTAL - done;
            bk_writer_put(&w, c->src, n);
            done += n;
        }
        bk_bench_keep(w.data);
        bk_writer_free(&w);
    }
}

static void stream_teardown(void *p, const bk_allocator *alloc)
{
    bk_free(alloc, p, sizeof(stream_ctx));
}

BK_BENCH(bench_stream_init_free, "StreamInitAndFree", "MB", 1, TOTAL, NULL,
         stream_setup, stream_run, stream_teardown)
BK_BENCH(bench_stream_init_free_zero, "StreamInitAndFree/ZeroAfterFree", "MB", 1, TOTAL, "zero",
         stream_setup, stream_run, stream_teardown)
