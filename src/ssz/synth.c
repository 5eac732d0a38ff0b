/* Synthetic valid serializations (bk_ssz_synthesize): for benchmarks and
 * tests at sizes no vector file holds (a mainnet BeaconState). */
#include "ssz_internal.h"

#include <string.h>

typedef struct synth {
    bk_writer *w;
    uint64_t n;          /* elements of the big lists */
    uint64_t min_limit;  /* a list is big when its limit is at least this */
    uint64_t state;      /* splitmix64 */
    bk_status st;
} synth;

static uint64_t next(synth *s)
{
    uint64_t z = (s->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void put(synth *s, const void *p, size_t n)
{
    if (s->st != BK_OK) return;
    bk_writer_put(s->w, p, n);
    if (bk_writer_status(s->w) != BK_OK) s->st = BK_ERR_NOMEM;
}

static void random_bytes(synth *s, size_t n)
{
    uint8_t buf[256];
    while (n && s->st == BK_OK) {
        size_t k = n < sizeof buf ? n : sizeof buf;
        for (size_t i = 0; i < k; i += 8) {
            uint64_t v = next(s);
            memcpy(buf + i, &v, k - i < 8 ? k - i : 8);
        }
        put(s, buf, k);
        n -= k;
    }
}

static uint64_t list_len(const synth *s, const bk_ssz_type *t)
{
    return t->length >= s->min_limit ? (s->n < t->length ? s->n : t->length) : 0;
}

static void gen(synth *s, const bk_ssz_type *t);

/* Elements of a vector or list: fixed-size ones back to back; variable-size
 * ones behind a table of offsets patched in place. */
static void gen_elems(synth *s, const bk_ssz_type *e, uint64_t n)
{
    if (!e->is_variable) {
        for (uint64_t i = 0; i < n && s->st == BK_OK; i++) gen(s, e);
        return;
    }
    size_t base = s->w->len;
    uint8_t zero[4] = {0};
    for (uint64_t i = 0; i < n; i++) put(s, zero, 4);
    for (uint64_t i = 0; i < n && s->st == BK_OK; i++) {
        uint32_t off = (uint32_t)(s->w->len - base);
        bk_store_le32(s->w->data + base + 4 * i, off);
        gen(s, e);
    }
}

static void gen(synth *s, const bk_ssz_type *t)
{
    if (s->st != BK_OK) return;
    switch (t->kind) {
    case BK_SSZ_UINT:
        if (t->size == 8) {
            /* 52 bits: clients that keep uint64 fields as doubles (JavaScript)
             * represent every value exactly (real slots, balances, indices
             * are far below 2^52 too). */
            uint8_t b[8];
            bk_store_le64(b, next(s) >> 12);
            put(s, b, 8);
        } else {
            random_bytes(s, t->size);
        }
        return;
    case BK_SSZ_BOOL: put(s, (const uint8_t[]){(uint8_t)(next(s) & 1)}, 1); return;
    case BK_SSZ_NONE: return;
    case BK_SSZ_BITVECTOR: {
        size_t n = (size_t)t->fixed_size;
        random_bytes(s, n);
        if (s->st == BK_OK && t->length % 8) s->w->data[s->w->len - 1] &= (uint8_t)((1u << (t->length % 8)) - 1);
        return;
    }
    case BK_SSZ_BITLIST: {
        uint64_t bits = list_len(s, t);
        random_bytes(s, (size_t)(bits / 8));
        uint8_t last = (uint8_t)(next(s) & ((1u << (bits % 8)) - 1));
        last |= (uint8_t)(1u << (bits % 8)); /* the delimiter */
        put(s, &last, 1);
        return;
    }
    case BK_SSZ_VECTOR:
        if (bk_ssz_is_basic(t->elem) && t->elem->kind == BK_SSZ_UINT && t->elem->size != 8)
            random_bytes(s, (size_t)t->fixed_size);
        else gen_elems(s, t->elem, t->length);
        return;
    case BK_SSZ_LIST: {
        uint64_t n = list_len(s, t);
        if (bk_ssz_is_basic(t->elem) && t->elem->kind == BK_SSZ_UINT && t->elem->size != 8)
            random_bytes(s, (size_t)(n * t->elem->size));
        else gen_elems(s, t->elem, n);
        return;
    }
    case BK_SSZ_UNION: {
        uint8_t sel = 0;
        if (t->compatible) /* the lowest selector */
            while (!t->fields[sel].type) sel++;
        else if (t->fields[0].type->kind == BK_SSZ_NONE && t->nfields > 1) sel = 1;
        put(s, &sel, 1);
        gen(s, t->fields[sel].type);
        return;
    }
    case BK_SSZ_CONTAINER: {
        size_t base = s->w->len;
        uint8_t zero[4] = {0};
        for (size_t i = 0; i < t->nfields; i++) {
            if (t->fields[i].type->is_variable) put(s, zero, 4);
            else gen(s, t->fields[i].type);
        }
        for (size_t i = 0; i < t->nfields && s->st == BK_OK; i++) {
            if (!t->fields[i].type->is_variable) continue;
            bk_store_le32(s->w->data + base + t->fields[i].offset, (uint32_t)(s->w->len - base));
            gen(s, t->fields[i].type);
        }
        return;
    }
    }
}

bk_status bk_ssz_synthesize(const bk_ssz_type *t, uint64_t n, uint64_t min_limit, uint64_t seed, bk_writer *w,
                            bk_error *err)
{
    synth s = {w, n, min_limit, seed, BK_OK};
    size_t start = w->len;
    gen(&s, t);
    if (s.st != BK_OK) return bk_error_set(err, s.st, 0, "out of memory");
    if (w->len - start > UINT32_MAX && t->is_variable)
        return bk_error_set(err, BK_ERR_LENGTH, 0, "synthesized value over 4 GiB: offsets cannot address it");
    /* An empty value (a list of limit 0) may leave the writer without a
     * buffer: no pointer arithmetic on NULL. */
    static const uint8_t empty[1];
    return bk_ssz_validate(t, w->data ? w->data + start : empty, w->len - start, err);
}
