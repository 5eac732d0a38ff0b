/* SSZ values <-> the JSON form of the consensus spec tests: integers as
 * decimal strings, bools as true/false, byte vectors/lists and bitfields as
 * 0x hex of their serialized bytes, containers as objects, unions as
 * {"selector":n,"value":...}. */
#include "ssz_internal.h"

#include <stdio.h>
#include <string.h>

static const char hexd[] = "0123456789abcdef";

static void put_hex(bk_writer *w, const uint8_t *p, size_t n)
{
    bk_writer_put(w, "\"0x", 3);
    while (n) {
        size_t m = n < 512 ? n : 512;
        uint8_t *o = bk_writer_space(w, 2 * m);
        if (!o) return;
        for (size_t i = 0; i < m; i++) {
            o[2 * i] = (uint8_t)hexd[p[i] >> 4];
            o[2 * i + 1] = (uint8_t)hexd[p[i] & 15];
        }
        bk_writer_commit(w, 2 * m);
        p += m;
        n -= m;
    }
    bk_writer_putc(w, '"');
}

/* Little-endian unsigned integer of n bytes (n <= 32) as a decimal string. */
static void put_uint(bk_writer *w, const uint8_t *p, unsigned n)
{
    char dig[80];
    size_t nd = 0;
    if (n <= 8) {
        uint64_t v = 0;
        for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
        do {
            dig[nd++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
    } else {
        uint32_t limbs[8] = {0};   /* little-endian 32-bit limbs */
        for (unsigned i = 0; i < n; i++) limbs[i / 4] |= (uint32_t)p[i] << (8 * (i % 4));
        unsigned top = n / 4;
        for (;;) {
            while (top && limbs[top - 1] == 0) top--;
            if (!top) break;
            uint64_t rem = 0;
            for (unsigned i = top; i-- > 0;) {
                uint64_t cur = rem << 32 | limbs[i];
                limbs[i] = (uint32_t)(cur / 10);
                rem = cur % 10;
            }
            dig[nd++] = (char)('0' + rem);
        }
        if (!nd) dig[nd++] = '0';
    }
    bk_writer_putc(w, '"');
    char *o = (char *)bk_writer_space(w, nd);
    if (o) {
        for (size_t i = 0; i < nd; i++) o[i] = dig[nd - 1 - i];
        bk_writer_commit(w, nd);
    }
    bk_writer_putc(w, '"');
}

static void to_json(const bk_ssz_type *t, const uint8_t *d, size_t len, bk_writer *w)
{
    switch (t->kind) {
    case BK_SSZ_NONE: bk_writer_puts(w, "null"); return;
    case BK_SSZ_BOOL: bk_writer_puts(w, d[0] ? "true" : "false"); return;
    case BK_SSZ_UINT: put_uint(w, d, t->size); return;
    case BK_SSZ_BITVECTOR:
    case BK_SSZ_BITLIST: put_hex(w, d, len); return;
    case BK_SSZ_UNION: {
        char buf[32];
        snprintf(buf, sizeof buf, "{\"selector\":%u,\"value\":", d[0]);
        bk_writer_puts(w, buf);
        to_json(t->fields[d[0]].type, d + 1, len - 1, w);
        bk_writer_putc(w, '}');
        return;
    }
    case BK_SSZ_CONTAINER:
        bk_writer_putc(w, '{');
        for (size_t i = 0; i < t->nfields; i++) {
            if (i) bk_writer_putc(w, ',');
            bk_writer_putc(w, '"');
            bk_writer_puts(w, t->fields[i].name);
            bk_writer_put(w, "\":", 2);
            const uint8_t *p;
            size_t n;
            bk_ssz_elem_span(t, d, len, i, &p, &n);
            to_json(t->fields[i].type, p, n, w);
        }
        bk_writer_putc(w, '}');
        return;
    case BK_SSZ_VECTOR:
    case BK_SSZ_LIST: {
        if (t->is_bytes) {
            put_hex(w, d, len);
            return;
        }
        uint64_t count = bk_ssz_elem_count(t, d, len);
        bk_writer_putc(w, '[');
        for (uint64_t i = 0; i < count; i++) {
            if (i) bk_writer_putc(w, ',');
            const uint8_t *p;
            size_t n;
            bk_ssz_elem_span(t, d, len, i, &p, &n);
            to_json(t->elem, p, n, w);
        }
        bk_writer_putc(w, ']');
        return;
    }
    }
}

bk_status bk_ssz_to_json(const bk_ssz_type *t, const uint8_t *data, size_t len, bk_writer *w, bk_error *err)
{
    bk_status st = bk_ssz_validate(t, data, len, err);
    if (st != BK_OK) return st;
    static const uint8_t empty[1];
    to_json(t, data ? data : empty, len, w);
    st = bk_writer_status(w);
    if (st != BK_OK) return bk_error_set(err, st, 0, "writer failed");
    return BK_OK;
}

/* ---- JSON -> bytes ---- */

static int hexv(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode a "0x..." string node into w; *n_out = byte count. */
static bk_status put_unhex(const bk_sjson *v, bk_writer *w, size_t *n_out, bk_error *err)
{
    if (v->kind != BK_SJSON_STRING || v->len < 2 || v->str[0] != '0' || (v->str[1] != 'x' && v->str[1] != 'X'))
        return bk_error_set(err, BK_ERR_VALUE, v->off, "expected a \"0x\" hex string");
    size_t n = (v->len - 2) / 2;
    if ((v->len - 2) % 2) return bk_error_set(err, BK_ERR_VALUE, v->off, "odd number of hex digits");
    uint8_t *o = bk_writer_space(w, n ? n : 1);
    if (!o) return bk_error_set(err, BK_ERR_NOMEM, v->off, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int a = hexv(v->str[2 + 2 * i]), b = hexv(v->str[3 + 2 * i]);
        if (a < 0 || b < 0) return bk_error_set(err, BK_ERR_VALUE, v->off, "bad hex digit");
        o[i] = (uint8_t)(a << 4 | b);
    }
    bk_writer_commit(w, n);
    *n_out = n;
    return BK_OK;
}

static bk_status parse_uint(const bk_sjson *v, unsigned size, uint8_t out[32], bk_error *err)
{
    const char *s = v->str;
    size_t n = v->len;
    if ((v->kind != BK_SJSON_STRING && v->kind != BK_SJSON_NUMBER) || n == 0)
        return bk_error_set(err, BK_ERR_VALUE, v->off, "expected an unsigned integer (decimal string)");
    if (n > 1 && s[0] == '0') return bk_error_set(err, BK_ERR_VALUE, v->off, "leading zero in an integer");
    uint32_t limbs[9] = {0};
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return bk_error_set(err, BK_ERR_VALUE, v->off, "not a decimal integer");
        uint64_t carry = (uint64_t)(s[i] - '0');
        for (int k = 0; k < 9; k++) {
            uint64_t cur = (uint64_t)limbs[k] * 10 + carry;
            limbs[k] = (uint32_t)cur;
            carry = cur >> 32;
        }
        if (carry || limbs[8]) return bk_error_set(err, BK_ERR_VALUE, v->off, "integer over 256 bits");
    }
    memset(out, 0, 32);
    for (unsigned i = 0; i < 32; i++) out[i] = (uint8_t)(limbs[i / 4] >> (8 * (i % 4)));
    for (unsigned i = size; i < 32; i++)
        if (out[i]) return bk_error_set(err, BK_ERR_VALUE, v->off, "integer does not fit uint%u", 8 * size);
    return BK_OK;
}

static bk_status from_json(const bk_ssz_type *t, const bk_sjson *v, bk_writer *w, bk_error *err);

/* Encode count elements/fields: fixed parts inline, variable parts after
 * offsets (simple-serialize.md "serialize"). elem(i) gives the type and
 * node of item i. */
static bk_status encode_seq(const bk_ssz_type *t, const bk_sjson *first, uint64_t count, bk_writer *w,
                            bk_error *err)
{
    size_t start = w->len;
    const bk_sjson *v = first;
    for (uint64_t i = 0; i < count; i++, v = v->next) {
        const bk_ssz_type *e = t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem;
        if (e->is_variable) {
            bk_writer_put(w, "\0\0\0\0", 4);
            continue;
        }
        bk_status st = from_json(e, v, w, err);
        if (st != BK_OK) {
            if (t->kind == BK_SSZ_CONTAINER) bk_ssz_path_field(err, t->fields[i].name);
            else bk_ssz_path_index(err, i);
            return st;
        }
    }
    size_t fixed_pos = start;
    v = first;
    for (uint64_t i = 0; i < count; i++, v = v->next) {
        const bk_ssz_type *e = t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem;
        if (!e->is_variable) {
            fixed_pos += (size_t)e->fixed_size;
            continue;
        }
        size_t off = w->len - start;
        if (off > UINT32_MAX) return bk_error_set(err, BK_ERR_LENGTH, v->off, "encoding over 4 GiB");
        if (w->status == BK_OK) bk_store_le32(w->data + fixed_pos, (uint32_t)off);
        fixed_pos += 4;
        bk_status st = from_json(e, v, w, err);
        if (st != BK_OK) {
            if (t->kind == BK_SSZ_CONTAINER) bk_ssz_path_field(err, t->fields[i].name);
            else bk_ssz_path_index(err, i);
            return st;
        }
    }
    return BK_OK;
}

static bk_status from_json(const bk_ssz_type *t, const bk_sjson *v, bk_writer *w, bk_error *err)
{
    if (w->status != BK_OK) return bk_error_set(err, w->status, v->off, "writer failed");
    switch (t->kind) {
    case BK_SSZ_NONE:
        if (v->kind != BK_SJSON_NULL) return bk_error_set(err, BK_ERR_VALUE, v->off, "None takes null");
        return BK_OK;
    case BK_SSZ_BOOL:
        if (v->kind != BK_SJSON_TRUE && v->kind != BK_SJSON_FALSE)
            return bk_error_set(err, BK_ERR_VALUE, v->off, "expected true or false");
        bk_writer_putc(w, v->kind == BK_SJSON_TRUE ? 1 : 0);
        return BK_OK;
    case BK_SSZ_UINT: {
        uint8_t b[32];
        bk_status st = parse_uint(v, t->size, b, err);
        if (st != BK_OK) return st;
        bk_writer_put(w, b, t->size);
        return BK_OK;
    }
    case BK_SSZ_BITVECTOR:
    case BK_SSZ_BITLIST: {
        size_t at = w->len, n;
        bk_status st = put_unhex(v, w, &n, err);
        if (st != BK_OK) return st;
        if (w->status != BK_OK) return bk_error_set(err, w->status, v->off, "writer failed");
        st = bk_ssz_validate(t, w->data + at, n, err);
        if (st != BK_OK && err) err->offset = v->off;
        return st;
    }
    case BK_SSZ_UNION: {
        const bk_sjson *sel = bk_sjson_get(v, "selector"), *val = bk_sjson_get(v, "value");
        if (v->kind != BK_SJSON_OBJECT || !sel || !val || v->n != 2)
            return bk_error_set(err, BK_ERR_VALUE, v->off, "a union is {\"selector\":n,\"value\":...}");
        uint8_t b[32];
        bk_status st = parse_uint(sel, 1, b, err);
        if (st != BK_OK) return st;
        if (b[0] >= t->nfields)
            return bk_error_set(err, BK_ERR_VALUE, sel->off, "union selector %u out of range (%zu options)", b[0],
                                t->nfields);
        bk_writer_putc(w, (char)b[0]);
        return from_json(t->fields[b[0]].type, val, w, err);
    }
    case BK_SSZ_CONTAINER: {
        if (v->kind != BK_SJSON_OBJECT) return bk_error_set(err, BK_ERR_VALUE, v->off, "expected an object");
        /* Fields in schema order; every one present, no others. */
        for (const bk_sjson *c = v->child; c; c = c->next) {
            size_t i = 0;
            while (i < t->nfields && strcmp(t->fields[i].name, c->key) != 0) i++;
            if (i == t->nfields)
                return bk_error_set(err, BK_ERR_VALUE, c->off, "Container:%s has no field \"%s\"", t->name, c->key);
            for (const bk_sjson *o = v->child; o != c; o = o->next)
                if (strcmp(o->key, c->key) == 0)
                    return bk_error_set(err, BK_ERR_VALUE, c->off, "duplicate field \"%s\"", c->key);
        }
        /* Reorder into a chain in field order (nodes are in the arena, and
         * each field appears exactly once, so relinking is safe). */
        if (v->n != t->nfields) {
            for (size_t i = 0; i < t->nfields; i++)
                if (!bk_sjson_get(v, t->fields[i].name))
                    return bk_error_set(err, BK_ERR_VALUE, v->off, "Container:%s: missing field \"%s\"", t->name,
                                        t->fields[i].name);
        }
        bk_sjson *chain = NULL, **tail = &chain;
        for (size_t i = 0; i < t->nfields; i++) {
            bk_sjson *c = (bk_sjson *)bk_sjson_get(v, t->fields[i].name);
            *tail = c;
            tail = &c->next;
        }
        *tail = NULL;
        ((bk_sjson *)v)->child = chain;
        return encode_seq(t, chain, t->nfields, w, err);
    }
    case BK_SSZ_VECTOR:
    case BK_SSZ_LIST: {
        if (t->is_bytes) {
            size_t n;
            bk_status st = put_unhex(v, w, &n, err);
            if (st != BK_OK) return st;
            if (t->kind == BK_SSZ_VECTOR && n != t->length)
                return bk_error_set(err, BK_ERR_LENGTH, v->off, "ByteVector[%llu] needs %llu bytes, got %zu",
                                    (unsigned long long)t->length, (unsigned long long)t->length, n);
            if (n > t->length)
                return bk_error_set(err, BK_ERR_LENGTH, v->off, "ByteList[%llu] of %zu bytes over the limit",
                                    (unsigned long long)t->length, n);
            return BK_OK;
        }
        if (v->kind != BK_SJSON_ARRAY) return bk_error_set(err, BK_ERR_VALUE, v->off, "expected an array");
        if (t->kind == BK_SSZ_VECTOR && v->n != t->length)
            return bk_error_set(err, BK_ERR_LENGTH, v->off, "vector needs %llu elements, got %zu",
                                (unsigned long long)t->length, v->n);
        if (v->n > t->length)
            return bk_error_set(err, BK_ERR_LENGTH, v->off, "list of %zu elements over the limit %llu", v->n,
                                (unsigned long long)t->length);
        return encode_seq(t, v->child, v->n, w, err);
    }
    }
    return bk_error_set(err, BK_ERR_TYPE, v->off, "unknown type kind");
}

bk_status bk_ssz_from_json(const bk_ssz_type *t, const char *json, size_t len, bk_writer *w,
                           const bk_allocator *alloc, bk_error *err)
{
    if (w->sink) return bk_error_set(err, BK_ERR_ARG, 0, "bk_ssz_from_json needs a memory writer");
    bk_arena a;
    bk_arena_init(&a, alloc);
    bk_sjson *root;
    bk_status st = bk_sjson_parse(&a, json, len, &root, err);
    if (st == BK_OK) {
        size_t start = w->len;
        st = from_json(t, root, w, err);
        if (st == BK_OK && w->status != BK_OK) st = bk_error_set(err, w->status, 0, "writer failed");
        /* Belt and braces: what we produce must be canonical. */
        if (st == BK_OK) st = bk_ssz_validate(t, w->data ? w->data + start : NULL, w->len - start, err);
    }
    bk_arena_free(&a);
    return st;
}
