/* DecodeUndo: block 866342's CBlockUndo (4863 CTxUndo, 7972 coins,
 * 270,516 bytes): bk_block_undo_parse (validates every coin, rebuilding
 * compressed scripts) and then a walk over every coin, as a consumer
 * reading prevouts does. Views only: 0 allocs/op. */
#include "bench.h"

#include <stdio.h>

#include <blockkit/undo.h>

#define UNDO_866342_SIZE 270516

typedef struct undo_bench {
    uint8_t *data;
    size_t len;
} undo_bench;

static int undo_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    char path[4096];
    if (bk_bench_data_path(path, sizeof path, "undo/block866342_undo.raw") != 0) return 1;
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    undo_bench *b = bk_alloc(alloc, sizeof *b);
    uint8_t *data = bk_alloc(alloc, UNDO_866342_SIZE + 1);
    size_t n = (b && data) ? fread(data, 1, UNDO_866342_SIZE + 1, f) : 0;
    fclose(f);
    bk_block_undo u;
    /* The file must be the expected one (bytes_per_op is fixed). */
    if (!b || !data || n != UNDO_866342_SIZE || bk_block_undo_parse(data, n, &u, NULL) != BK_OK) {
        bk_free(alloc, data, UNDO_866342_SIZE + 1);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    b->data = data;
    b->len = n;
    *ctx = b;
    return 0;
}

static void undo_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    undo_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bk_block_undo u;
        if (bk_block_undo_parse(b->data, b->len, &u, NULL) != BK_OK) return;
        bk_undo_iter it;
        bk_coin c;
        uint32_t n;
        int64_t sum = 0;
        bk_undo_iter_init(&it, &u);
        while (bk_undo_next_tx(&it, &n))
            while (bk_undo_next_coin(&it, &c)) sum += c.value + c.script_len;
        bk_bench_keep(&sum);
    }
}

static void undo_teardown(void *ctx, const bk_allocator *alloc)
{
    undo_bench *b = ctx;
    bk_free(alloc, b->data, UNDO_866342_SIZE + 1);
    bk_free(alloc, b, sizeof *b);
}

BK_BENCH(bench_decode_undo, .name = "DecodeUndo", .unit = "block", .units_per_op = 1,
         .bytes_per_op = UNDO_866342_SIZE, .setup = undo_setup, .run = undo_run, .teardown = undo_teardown)
