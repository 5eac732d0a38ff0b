/* Strict SSZ validation of serialized bytes, and element/field spans of
 * validated data. Rules: ethereum/consensus-specs ssz/simple-serialize.md,
 * "Deserialization" (offsets: the first equals the fixed-part size, they
 * never decrease and never pass the end; bitlists need their delimiter bit;
 * bitvector padding bits are zero; bools are 0 or 1; Union selectors are in
 * range and None carries no payload; no trailing bytes). */
#include "ssz_internal.h"

#include <stdio.h>
#include <string.h>

static void path_prepend(bk_error *err, const char *comp)
{
    if (!err) return;
    size_t c = strlen(comp), p = strlen(err->path);
    if (c + p + 1 > sizeof err->path) {
        /* Keep the innermost part; mark the cut with "...". */
        if (c + 4 > sizeof err->path) return;
        p = sizeof err->path - 1 - c;
    }
    memmove(err->path + c, err->path, p);
    memcpy(err->path, comp, c);
    err->path[c + p] = 0;
}

void bk_ssz_path_field(bk_error *err, const char *name)
{
    char buf[BK_ERROR_PATH_MAX];
    snprintf(buf, sizeof buf, ".%s", name);
    path_prepend(err, buf);
}

void bk_ssz_path_index(bk_error *err, uint64_t i)
{
    char buf[32];
    snprintf(buf, sizeof buf, "[%llu]", (unsigned long long)i);
    path_prepend(err, buf);
}

static bk_status validate(const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t base, bk_error *err);

static bk_status check_len(const bk_ssz_type *t, size_t len, uint64_t want, uint64_t base, bk_error *err)
{
    if (len == want) return BK_OK;
    char name[96];
    bk_ssz_type_name(t, name, sizeof name);
    if (len < want)
        return bk_error_set(err, len == 0 ? BK_ERR_TRUNCATED : BK_ERR_LENGTH, base + len,
                            "%s needs %llu bytes, got %zu", name, (unsigned long long)want, len);
    return bk_error_set(err, BK_ERR_TRAILING, base + want, "%s needs %llu bytes, got %zu (trailing bytes)", name,
                        (unsigned long long)want, len);
}

/* Offsets of count variable parts stored as 4-byte little-endian words at
 * d + pos_of(i). The first must equal first_want; each at least the previous
 * one and at most len. */
static bk_status check_offsets_seq(const uint8_t *d, size_t len, uint64_t count, uint64_t first_want,
                                   uint64_t base, const bk_ssz_type *t, bk_error *err)
{
    uint64_t prev = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t pos = 4 * i;
        uint32_t off = bk_load_le32(d + pos);
        if (i == 0 && off != first_want)
            return bk_error_set(err, BK_ERR_OFFSET, base + pos,
                                "first offset %u must equal the fixed-part size %llu", off,
                                (unsigned long long)first_want);
        if (off < prev)
            return bk_error_set(err, BK_ERR_OFFSET, base + pos, "offset %u is below the previous offset %llu", off,
                                (unsigned long long)prev);
        if (off > len)
            return bk_error_set(err, BK_ERR_OFFSET, base + pos, "offset %u is past the end (%zu bytes)", off, len);
        prev = off;
    }
    (void)t;
    return BK_OK;
}

/* A fixed-size container whose only constrained fields are bools (a
 * Validator's `slashed`): the bool bytes of every element checked by a
 * strided scan instead of a call per field per element. 0 when the
 * container has other constrained fields (the generic loop then runs). */
static int bools_only(const bk_ssz_type *e)
{
    if (e->kind != BK_SSZ_CONTAINER || e->is_variable) return 0;
    for (size_t f = 0; f < e->nfields; f++) {
        const bk_ssz_type *ft = e->fields[f].type;
        if (!ft->fixed_any && ft->kind != BK_SSZ_BOOL) return 0;
    }
    return 1;
}

static bk_status validate_elems_fixed(const bk_ssz_type *e, const uint8_t *d, uint64_t count, uint64_t base,
                                      bk_error *err)
{
    if (e->fixed_any) return BK_OK;
    uint64_t es = e->fixed_size;
    if (bools_only(e)) {
        uint64_t bad = count;
        for (size_t f = 0; f < e->nfields && bad == count; f++) {
            if (e->fields[f].type->kind != BK_SSZ_BOOL) continue;
            const uint8_t *b = d + e->fields[f].offset;
            for (uint64_t i = 0; i < count; i++)
                if (b[i * es] > 1) {
                    bad = i;
                    break;
                }
        }
        if (bad == count) return BK_OK;
        /* The exact error (field path, offset) from the generic check. */
        bk_status st = validate(e, d + bad * es, (size_t)es, base + bad * es, err);
        if (st != BK_OK) bk_ssz_path_index(err, bad);
        return st;
    }
    for (uint64_t i = 0; i < count; i++) {
        bk_status st;
        if (e->kind == BK_SSZ_BOOL) {
            if (d[i] > 1) {
                st = bk_error_set(err, BK_ERR_VALUE, base + i, "bool byte 0x%02x is not 0 or 1", d[i]);
            } else continue;
        } else {
            st = validate(e, d + i * es, (size_t)es, base + i * es, err);
        }
        if (st != BK_OK) {
            bk_ssz_path_index(err, i);
            return st;
        }
    }
    return BK_OK;
}

static bk_status validate_elems_var(const bk_ssz_type *e, const uint8_t *d, size_t len, uint64_t count,
                                    uint64_t base, bk_error *err)
{
    for (uint64_t i = 0; i < count; i++) {
        uint32_t a = bk_load_le32(d + 4 * i);
        uint32_t b = i + 1 < count ? bk_load_le32(d + 4 * (i + 1)) : (uint32_t)len;
        bk_status st = validate(e, d + a, b - a, base + a, err);
        if (st != BK_OK) {
            bk_ssz_path_index(err, i);
            return st;
        }
    }
    return BK_OK;
}

static bk_status validate(const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t base, bk_error *err)
{
    if (t->fixed_any) return check_len(t, len, t->fixed_size, base, err);
    /* Offsets are 4 bytes (BYTES_PER_LENGTH_OFFSET): a value with offsets
     * cannot be 4 GiB or larger. */
    if (len > UINT32_MAX && t->is_variable && t->kind != BK_SSZ_BITLIST && t->kind != BK_SSZ_UNION &&
        !(t->kind == BK_SSZ_LIST && !t->elem->is_variable))
        return bk_error_set(err, BK_ERR_LENGTH, base, "a value with offsets must be under 4 GiB");
    switch (t->kind) {
    case BK_SSZ_NONE: return check_len(t, len, 0, base, err);
    case BK_SSZ_UINT: return check_len(t, len, t->size, base, err);
    case BK_SSZ_BOOL: {
        bk_status st = check_len(t, len, 1, base, err);
        if (st != BK_OK) return st;
        if (d[0] > 1) return bk_error_set(err, BK_ERR_VALUE, base, "bool byte 0x%02x is not 0 or 1", d[0]);
        return BK_OK;
    }
    case BK_SSZ_BITVECTOR: {
        bk_status st = check_len(t, len, t->fixed_size, base, err);
        if (st != BK_OK) return st;
        unsigned used = (unsigned)(t->length % 8);
        if (used && (d[len - 1] >> used) != 0)
            return bk_error_set(err, BK_ERR_VALUE, base + len - 1, "Bitvector[%llu] padding bits set",
                                (unsigned long long)t->length);
        return BK_OK;
    }
    case BK_SSZ_BITLIST: {
        if (len == 0) return bk_error_set(err, BK_ERR_TRUNCATED, base, "empty bitlist (no delimiter bit)");
        uint8_t last = d[len - 1];
        if (last == 0)
            return bk_error_set(err, BK_ERR_VALUE, base + len - 1, "bitlist without delimiter bit (last byte zero)");
        unsigned hi = 7;
        while (!(last >> hi)) hi--;
        uint64_t bits = 8 * (uint64_t)(len - 1) + hi;
        if (bits > t->length)
            return bk_error_set(err, BK_ERR_LENGTH, base + len - 1, "bitlist length %llu over the limit %llu",
                                (unsigned long long)bits, (unsigned long long)t->length);
        return BK_OK;
    }
    case BK_SSZ_VECTOR: {
        const bk_ssz_type *e = t->elem;
        if (!e->is_variable) {
            bk_status st = check_len(t, len, t->fixed_size, base, err);
            if (st != BK_OK) return st;
            return validate_elems_fixed(e, d, t->length, base, err);
        }
        if (len < t->fixed_size)
            return bk_error_set(err, len ? BK_ERR_LENGTH : BK_ERR_TRUNCATED, base + len,
                                "vector offsets need %llu bytes, got %zu", (unsigned long long)t->fixed_size, len);
        bk_status st = check_offsets_seq(d, len, t->length, t->fixed_size, base, t, err);
        if (st != BK_OK) return st;
        return validate_elems_var(e, d, len, t->length, base, err);
    }
    case BK_SSZ_LIST: {
        const bk_ssz_type *e = t->elem;
        if (!e->is_variable) {
            uint64_t es = e->fixed_size;
            if (len % es)
                return bk_error_set(err, BK_ERR_LENGTH, base + len - len % es,
                                    "list size %zu is not a multiple of the element size %llu", len,
                                    (unsigned long long)es);
            uint64_t count = len / es;
            if (count > t->length)
                return bk_error_set(err, BK_ERR_LENGTH, base + t->length * es,
                                    "list of %llu elements over the limit %llu", (unsigned long long)count,
                                    (unsigned long long)t->length);
            return validate_elems_fixed(e, d, count, base, err);
        }
        if (len == 0) return BK_OK;
        if (len < 4) return bk_error_set(err, BK_ERR_TRUNCATED, base, "list offset needs 4 bytes, got %zu", len);
        uint32_t first = bk_load_le32(d);
        if (first % 4 || first == 0 || first > len)
            return bk_error_set(err, BK_ERR_OFFSET, base,
                                "first offset %u is not a multiple of 4 within the %zu bytes", first, len);
        uint64_t count = first / 4;
        if (count > t->length)
            return bk_error_set(err, BK_ERR_LENGTH, base, "list of %llu elements over the limit %llu",
                                (unsigned long long)count, (unsigned long long)t->length);
        bk_status st = check_offsets_seq(d, len, count, first, base, t, err);
        if (st != BK_OK) return st;
        return validate_elems_var(e, d, len, count, base, err);
    }
    case BK_SSZ_CONTAINER: {
        if (len < t->fixed_size)
            return bk_error_set(err, len ? BK_ERR_LENGTH : BK_ERR_TRUNCATED, base + len,
                                "Container:%s needs at least %llu bytes, got %zu", t->name,
                                (unsigned long long)t->fixed_size, len);
        if (!t->is_variable && len > t->fixed_size)
            return bk_error_set(err, BK_ERR_TRAILING, base + t->fixed_size,
                                "Container:%s needs %llu bytes, got %zu (trailing bytes)", t->name,
                                (unsigned long long)t->fixed_size, len);
        /* Offsets first (simple-serialize.md checks them before descending). */
        uint64_t prev = 0;
        int first = 1;
        for (size_t i = 0; i < t->nfields; i++) {
            const bk_ssz_field *f = &t->fields[i];
            if (!f->type->is_variable) continue;
            uint32_t off = bk_load_le32(d + f->offset);
            bk_status st = BK_OK;
            if (first && off != t->fixed_size)
                st = bk_error_set(err, BK_ERR_OFFSET, base + f->offset,
                                  "first offset %u must equal the fixed-part size %llu", off,
                                  (unsigned long long)t->fixed_size);
            else if (off < prev)
                st = bk_error_set(err, BK_ERR_OFFSET, base + f->offset, "offset %u is below the previous offset %llu",
                                  off, (unsigned long long)prev);
            else if (off > len)
                st = bk_error_set(err, BK_ERR_OFFSET, base + f->offset, "offset %u is past the end (%zu bytes)", off,
                                  len);
            if (st != BK_OK) {
                bk_ssz_path_field(err, f->name);
                return st;
            }
            first = 0;
            prev = off;
        }
        for (size_t i = 0; i < t->nfields; i++) {
            const bk_ssz_field *f = &t->fields[i];
            const uint8_t *p;
            size_t n;
            bk_ssz_elem_span(t, d, len, i, &p, &n);
            bk_status st = validate(f->type, p, n, base + (uint64_t)(p - d), err);
            if (st != BK_OK) {
                bk_ssz_path_field(err, f->name);
                return st;
            }
        }
        return BK_OK;
    }
    case BK_SSZ_UNION: {
        if (len == 0) return bk_error_set(err, BK_ERR_TRUNCATED, base, "union without a selector byte");
        uint8_t sel = d[0];
        if (t->compatible && (sel >= t->nfields || !t->fields[sel].type))
            return bk_error_set(err, BK_ERR_VALUE, base, "CompatibleUnion selector %u names no option", sel);
        if (sel >= t->nfields)
            return bk_error_set(err, BK_ERR_VALUE, base, "union selector %u out of range (%zu options)", sel,
                                t->nfields);
        const bk_ssz_type *o = t->fields[sel].type;
        if (o->kind == BK_SSZ_NONE && len != 1)
            return bk_error_set(err, BK_ERR_TRAILING, base + 1, "union None (selector 0) with %zu payload bytes",
                                len - 1);
        bk_status st = validate(o, d + 1, len - 1, base + 1, err);
        if (st != BK_OK) {
            char comp[16];
            snprintf(comp, sizeof comp, "<%u>", sel);
            path_prepend(err, comp);
        }
        return st;
    }
    }
    return bk_error_set(err, BK_ERR_TYPE, base, "unknown type kind");
}

bk_status bk_ssz_validate(const bk_ssz_type *t, const uint8_t *data, size_t len, bk_error *err)
{
    if (!t || (!data && len)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    static const uint8_t empty[1];
    if (!data) data = empty;
    return validate(t, data, len, 0, err);
}

void bk_ssz_elem_span(const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t i, const uint8_t **p_out,
                      size_t *n_out)
{
    if (t->kind == BK_SSZ_CONTAINER) {
        const bk_ssz_field *f = &t->fields[i];
        if (!f->type->is_variable) {
            *p_out = d + f->offset;
            *n_out = (size_t)f->type->fixed_size;
            return;
        }
        uint32_t a = bk_load_le32(d + f->offset);
        uint32_t b = f->next_var < t->nfields ? bk_load_le32(d + t->fields[f->next_var].offset) : (uint32_t)len;
        *p_out = d + a;
        *n_out = b - a;
        return;
    }
    const bk_ssz_type *e = t->elem;
    if (!e->is_variable) {
        *p_out = d + i * e->fixed_size;
        *n_out = (size_t)e->fixed_size;
        return;
    }
    uint64_t count = bk_ssz_elem_count(t, d, len);
    uint32_t a = bk_load_le32(d + 4 * i);
    uint32_t b = i + 1 < count ? bk_load_le32(d + 4 * (i + 1)) : (uint32_t)len;
    *p_out = d + a;
    *n_out = b - a;
}

uint64_t bk_ssz_elem_count(const bk_ssz_type *t, const uint8_t *d, size_t len)
{
    switch (t->kind) {
    case BK_SSZ_VECTOR:
    case BK_SSZ_BITVECTOR: return t->length;
    case BK_SSZ_CONTAINER: return t->nfields;
    case BK_SSZ_BITLIST: {
        if (len == 0) return 0;
        uint8_t last = d[len - 1];
        unsigned hi = 7;
        while (hi && !(last >> hi)) hi--;
        return 8 * (uint64_t)(len - 1) + hi;
    }
    case BK_SSZ_LIST:
        if (!t->elem->is_variable) return len / t->elem->fixed_size;
        return len ? bk_load_le32(d) / 4 : 0;
    default: return 0;
    }
}
