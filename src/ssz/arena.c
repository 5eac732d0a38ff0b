/* Bump arena for SSZ types, schemas and parsed JSON. */
#include "ssz_internal.h"

#include <string.h>

struct bk_arena_block {
    bk_arena_block *next;
    size_t size;
    size_t used;
    /* data follows, 16-aligned */
};

#define BLOCK_HDR ((sizeof(bk_arena_block) + 15) & ~(size_t)15)

void bk_arena_init(bk_arena *a, const bk_allocator *alloc)
{
    a->alloc = alloc;
    a->head = NULL;
}

void *bk_arena_alloc(bk_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    bk_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > 8192 ? n : 8192;
        if (size > SIZE_MAX - BLOCK_HDR) return NULL;
        b = bk_alloc(a->alloc, BLOCK_HDR + size);
        if (!b) return NULL;
        b->size = size;
        b->used = 0;
        if (a->head && n > 4096) {
            /* A big block: keep the current block as the head so its free
             * room stays in use. */
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    uint8_t *p = (uint8_t *)b + BLOCK_HDR + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *bk_arena_strndup(bk_arena *a, const char *s, size_t n)
{
    char *p = bk_arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void bk_arena_free(bk_arena *a)
{
    bk_arena_block *b = a->head;
    while (b) {
        bk_arena_block *next = b->next;
        bk_free(a->alloc, b, BLOCK_HDR + b->size);
        b = next;
    }
    a->head = NULL;
}
