/* SSZ values <-> the JSON form of the consensus spec tests: integers as
 * decimal strings, bools as true/false, byte vectors/lists and bitfields as
 * 0x hex of their serialized bytes, containers as objects, unions as
 * {"selector":n,"value":...}. */
#include "ssz_internal.h"

#include <blockkit/hex.h>

#include <stdio.h>
#include <string.h>

/* A field name as a JSON string: names come from schemas and may hold any
 * character a JSON string can (quotes, backslashes, control characters
 * escaped), so the value JSON always parses back. */
static void put_name(bk_writer *w, const char *name)
{
    bk_writer_putc(w, '"');
    for (const char *p = name; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            bk_writer_putc(w, '\\');
            bk_writer_putc(w, (char)c);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0'};
            bk_hex_encode(e + 4, &c, 1);
            bk_writer_put(w, e, 6);
        } else {
            bk_writer_putc(w, (char)c);
        }
    }
    bk_writer_putc(w, '"');
}

static void put_hex(bk_writer *w, const uint8_t *p, size_t n)
{
    bk_writer_put(w, "\"0x", 3);
    bk_writer_put_hex(w, p, n);
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
        /* CompatibleUnion: @chainsafe/ssz's toJson shape, the selector a decimal string. */
        snprintf(buf, sizeof buf, t->compatible ? "{\"selector\":\"%u\",\"data\":" : "{\"selector\":%u,\"value\":",
                 d[0]);
        bk_writer_puts(w, buf);
        to_json(t->fields[d[0]].type, d + 1, len - 1, w);
        bk_writer_putc(w, '}');
        return;
    }
    case BK_SSZ_CONTAINER:
        bk_writer_putc(w, '{');
        for (size_t i = 0; i < t->nfields; i++) {
            if (i) bk_writer_putc(w, ',');
            put_name(w, t->fields[i].name);
            bk_writer_putc(w, ':');
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

/* ---- JSON -> bytes ----
 * Type-directed, straight from the text: the document is first checked
 * against the JSON grammar without building anything (bk_sjson_check), then
 * walked once per type level, so memory is the output plus, per open
 * container, one slot per field and, per string with escapes, its unescaped
 * copy: no parse tree (finding 11: the tree cost 80 bytes per value, 40x a
 * list of small integers). Error offsets are those of the value in the text,
 * and errors come in the order the tree-based encoder gave them. */

typedef struct jtext {
    const char *s;
    size_t len;
    const bk_allocator *alloc;
} jtext;

/* A string or number: its (unescaped) content, and a buffer to free. */
typedef struct jspan {
    const char *p;
    size_t n;
    char *owned;
    size_t owned_cap;
} jspan;

static size_t jws(const jtext *j, size_t pos)
{
    while (pos < j->len && (j->s[pos] == ' ' || j->s[pos] == '\t' || j->s[pos] == '\n' || j->s[pos] == '\r')) pos++;
    return pos;
}

/* End of the (well-formed) value at pos. */
static size_t jskip(const jtext *j, size_t pos)
{
    const char *s = j->s;
    if (pos >= j->len) return pos;
    char c = s[pos];
    if (c == '"') {
        pos++;
        while (pos < j->len && s[pos] != '"') pos += s[pos] == '\\' ? 2 : 1;
        return pos + 1;
    }
    if (c == '{' || c == '[') {
        size_t depth = 0;
        while (pos < j->len) {
            c = s[pos];
            if (c == '"') {
                pos = jskip(j, pos);
                continue;
            }
            if (c == '{' || c == '[') depth++;
            else if ((c == '}' || c == ']') && --depth == 0) return pos + 1;
            pos++;
        }
        return pos;
    }
    while (pos < j->len && s[pos] != ',' && s[pos] != '}' && s[pos] != ']' && s[pos] != ' ' && s[pos] != '\t' &&
           s[pos] != '\n' && s[pos] != '\r')
        pos++;
    return pos;
}

static void jspan_free(const jtext *j, jspan *sp)
{
    if (sp->owned) bk_free(j->alloc, sp->owned, sp->owned_cap);
    sp->owned = NULL;
}

/* Content of the string at pos (on its quote), unescaped when needed (a
 * copy no longer than the text). BK_ERR_NOMEM only. */
static bk_status jstring(const jtext *j, size_t pos, jspan *sp, bk_error *err)
{
    size_t a = pos + 1, b = a;
    int plain = 1;
    while (b < j->len && j->s[b] != '"') {
        if (j->s[b] == '\\') {
            plain = 0;
            b++;
        }
        b++;
    }
    sp->owned = NULL;
    if (plain) {
        sp->p = j->s + a;
        sp->n = b - a;
        return BK_OK;
    }
    char *d = bk_alloc(j->alloc, b - a + 1);
    if (!d) return bk_error_set(err, BK_ERR_NOMEM, pos, "out of memory");
    sp->owned = d;
    sp->owned_cap = b - a + 1;
    size_t n = 0;
    for (size_t i = a; i < b;) {
        char c = j->s[i];
        if (c != '\\') {
            d[n++] = c;
            i++;
            continue;
        }
        char e = j->s[i + 1];
        i += 2;
        switch (e) {
        case 'b': d[n++] = '\b'; break;
        case 'f': d[n++] = '\f'; break;
        case 'n': d[n++] = '\n'; break;
        case 'r': d[n++] = '\r'; break;
        case 't': d[n++] = '\t'; break;
        case 'u': {
            unsigned cp = 0, lo = 0;
            for (int k = 0; k < 4; k++) cp = cp << 4 | (unsigned)bk_hex_digit((unsigned char)j->s[i + k]);
            i += 4;
            if (cp >= 0xd800 && cp < 0xdc00) {
                for (int k = 0; k < 4; k++) lo = lo << 4 | (unsigned)bk_hex_digit((unsigned char)j->s[i + 2 + k]);
                i += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp < 0x80) d[n++] = (char)cp;
            else if (cp < 0x800) {
                d[n++] = (char)(0xc0 | (cp >> 6));
                d[n++] = (char)(0x80 | (cp & 0x3f));
            } else if (cp < 0x10000) {
                d[n++] = (char)(0xe0 | (cp >> 12));
                d[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                d[n++] = (char)(0x80 | (cp & 0x3f));
            } else {
                d[n++] = (char)(0xf0 | (cp >> 18));
                d[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
                d[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                d[n++] = (char)(0x80 | (cp & 0x3f));
            }
            break;
        }
        default: d[n++] = e; break;   /* '"', '\\', '/' */
        }
    }
    d[n] = 0;
    sp->p = d;
    sp->n = n;
    return BK_OK;
}

/* Iterate the items of the array or object at pos: *item gets the next
 * value's position (and *key the member name's quote for objects); returns
 * 0 at the end. *cur starts at pos. */
static int jnext(const jtext *j, size_t *cur, int obj, size_t *key, size_t *item)
{
    size_t p = *cur;
    char c = p < j->len ? j->s[p] : 0;
    if (c == '{' || c == '[') p = jws(j, p + 1);   /* the first item */
    else p = jws(j, p);                            /* after an item */
    if (p < j->len && j->s[p] == ',') p = jws(j, p + 1);
    if (p >= j->len || j->s[p] == '}' || j->s[p] == ']') return 0;
    if (obj) {
        *key = p;
        p = jws(j, jskip(j, p));
        p = jws(j, p + 1);   /* ':' */
    }
    *item = p;
    *cur = jskip(j, p);
    return 1;
}

static size_t jcount(const jtext *j, size_t pos, int obj)
{
    size_t cur = pos, k, v, n = 0;
    while (jnext(j, &cur, obj, &k, &v)) n++;
    return n;
}

/* Decode a "0x..." string into w; *n_out = byte count. */
static bk_status put_unhex(const jtext *j, size_t pos, bk_writer *w, size_t *n_out, bk_error *err)
{
    if (j->s[pos] != '"') return bk_error_set(err, BK_ERR_VALUE, pos, "expected a \"0x\" hex string");
    jspan sp;
    bk_status st = jstring(j, pos, &sp, err);
    if (st != BK_OK) return st;
    if (sp.n < 2 || sp.p[0] != '0' || (sp.p[1] != 'x' && sp.p[1] != 'X')) {
        st = bk_error_set(err, BK_ERR_VALUE, pos, "expected a \"0x\" hex string");
        goto out;
    }
    if ((sp.n - 2) % 2) {
        st = bk_error_set(err, BK_ERR_VALUE, pos, "odd number of hex digits");
        goto out;
    }
    size_t n = (sp.n - 2) / 2;
    uint8_t *o = bk_writer_space(w, n ? n : 1);
    if (!o) {
        st = bk_error_set(err, BK_ERR_NOMEM, pos, "out of memory");
        goto out;
    }
    if (bk_hex_decode(o, sp.p + 2, n, NULL) != BK_OK) {
        st = bk_error_set(err, BK_ERR_VALUE, pos, "bad hex digit");
        goto out;
    }
    bk_writer_commit(w, n);
    *n_out = n;
out:
    jspan_free(j, &sp);
    return st;
}

static bk_status parse_uint(const jtext *j, size_t pos, unsigned size, uint8_t out[32], bk_error *err)
{
    char c = j->s[pos];
    int is_str = c == '"', is_num = c == '-' || (c >= '0' && c <= '9');
    if (!is_str && !is_num) return bk_error_set(err, BK_ERR_VALUE, pos, "expected an unsigned integer (decimal string)");
    jspan sp = {0};
    if (is_str) {
        bk_status st = jstring(j, pos, &sp, err);
        if (st != BK_OK) return st;
    } else {
        sp.p = j->s + pos;
        sp.n = jskip(j, pos) - pos;
    }
    const char *s = sp.p;
    size_t n = sp.n;
    bk_status st = BK_OK;
    uint32_t limbs[9] = {0};
    if (n == 0) st = bk_error_set(err, BK_ERR_VALUE, pos, "expected an unsigned integer (decimal string)");
    else if (n > 1 && s[0] == '0') st = bk_error_set(err, BK_ERR_VALUE, pos, "leading zero in an integer");
    for (size_t i = 0; st == BK_OK && i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            st = bk_error_set(err, BK_ERR_VALUE, pos, "not a decimal integer");
            break;
        }
        uint64_t carry = (uint64_t)(s[i] - '0');
        for (int k = 0; k < 9; k++) {
            uint64_t cur = (uint64_t)limbs[k] * 10 + carry;
            limbs[k] = (uint32_t)cur;
            carry = cur >> 32;
        }
        if (carry || limbs[8]) st = bk_error_set(err, BK_ERR_VALUE, pos, "integer over 256 bits");
    }
    jspan_free(j, &sp);
    if (st != BK_OK) return st;
    memset(out, 0, 32);
    for (unsigned i = 0; i < 32; i++) out[i] = (uint8_t)(limbs[i / 4] >> (8 * (i % 4)));
    for (unsigned i = size; i < 32; i++)
        if (out[i]) return bk_error_set(err, BK_ERR_VALUE, pos, "integer does not fit uint%u", 8 * size);
    return BK_OK;
}

static bk_status from_json(const jtext *j, const bk_ssz_type *t, size_t pos, bk_writer *w, bk_error *err);

/* Encode count items: fixed parts inline, variable parts after offsets
 * (simple-serialize.md "serialize"). Container fields come from slots[]
 * (value positions in field order), list/vector elements from the array
 * at pos. */
static bk_status encode_seq(const jtext *j, const bk_ssz_type *t, size_t pos, const size_t *slots, uint64_t count,
                            bk_writer *w, bk_error *err)
{
    size_t start = w->len, cur = pos, k, v = 0;
    int has_var = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (slots) v = slots[i];
        else if (!jnext(j, &cur, 0, &k, &v)) break;
        const bk_ssz_type *e = t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem;
        if (e->is_variable) {
            bk_writer_put(w, "\0\0\0\0", 4);
            has_var = 1;
            continue;
        }
        bk_status st = from_json(j, e, v, w, err);
        if (st != BK_OK) {
            if (t->kind == BK_SSZ_CONTAINER) bk_ssz_path_field(err, t->fields[i].name);
            else bk_ssz_path_index(err, i);
            return st;
        }
    }
    if (!has_var) return BK_OK;
    size_t fixed_pos = start;
    cur = pos;
    for (uint64_t i = 0; i < count; i++) {
        if (slots) v = slots[i];
        else if (!jnext(j, &cur, 0, &k, &v)) break;
        const bk_ssz_type *e = t->kind == BK_SSZ_CONTAINER ? t->fields[i].type : t->elem;
        if (!e->is_variable) {
            fixed_pos += (size_t)e->fixed_size;
            continue;
        }
        size_t off = w->len - start;
        if (off > UINT32_MAX) return bk_error_set(err, BK_ERR_LENGTH, v, "encoding over 4 GiB");
        if (w->status == BK_OK) bk_store_le32(w->data + fixed_pos, (uint32_t)off);
        fixed_pos += 4;
        bk_status st = from_json(j, e, v, w, err);
        if (st != BK_OK) {
            if (t->kind == BK_SSZ_CONTAINER) bk_ssz_path_field(err, t->fields[i].name);
            else bk_ssz_path_index(err, i);
            return st;
        }
    }
    return BK_OK;
}

/* Field of container t named sp, or t->nfields (binary search over the
 * name-sorted index built with the type; linear for types without it). */
static size_t field_lookup(const bk_ssz_type *t, const char *p, size_t n)
{
    const uint32_t *ix = bk_ssz_field_index(t);
    if (!ix) {
        for (size_t i = 0; i < t->nfields; i++)
            if (strlen(t->fields[i].name) == n && memcmp(t->fields[i].name, p, n) == 0) return i;
        return t->nfields;
    }
    size_t lo = 0, hi = t->nfields;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *name = t->fields[ix[mid]].name;
        size_t nl = strlen(name);
        int c = memcmp(name, p, nl < n ? nl : n);
        if (c == 0) c = nl < n ? -1 : nl > n;
        if (c == 0) return ix[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return t->nfields;
}

#define SLOT_NONE SIZE_MAX

static bk_status encode_container(const jtext *j, const bk_ssz_type *t, size_t pos, bk_writer *w, bk_error *err)
{
    if (j->s[pos] != '{') return bk_error_set(err, BK_ERR_VALUE, pos, "expected an object");
    size_t stack_slots[16], *slots = stack_slots, cap = 0;
    if (t->nfields > 16) {
        cap = t->nfields * sizeof *slots;
        slots = bk_alloc(j->alloc, cap);
        if (!slots) return bk_error_set(err, BK_ERR_NOMEM, pos, "out of memory");
    }
    for (size_t i = 0; i < t->nfields; i++) slots[i] = SLOT_NONE;
    bk_status st = BK_OK;
    size_t cur = pos, k, v;
    /* Fields in schema order; every one present, no others. */
    while (st == BK_OK && jnext(j, &cur, 1, &k, &v)) {
        jspan key;
        if ((st = jstring(j, k, &key, err)) != BK_OK) break;
        size_t i = field_lookup(t, key.p, key.n);
        if (i == t->nfields)
            st = bk_error_set(err, BK_ERR_VALUE, v, "Container:%s has no field \"%.*s\"", t->name, (int)key.n, key.p);
        else if (slots[i] != SLOT_NONE)
            st = bk_error_set(err, BK_ERR_VALUE, v, "duplicate field \"%.*s\"", (int)key.n, key.p);
        else slots[i] = v;
        jspan_free(j, &key);
    }
    for (size_t i = 0; st == BK_OK && i < t->nfields; i++)
        if (slots[i] == SLOT_NONE)
            st = bk_error_set(err, BK_ERR_VALUE, pos, "Container:%s: missing field \"%s\"", t->name, t->fields[i].name);
    if (st == BK_OK) st = encode_seq(j, t, pos, slots, t->nfields, w, err);
    if (cap) bk_free(j->alloc, slots, cap);
    return st;
}

static bk_status from_json(const jtext *j, const bk_ssz_type *t, size_t pos, bk_writer *w, bk_error *err)
{
    if (w->status != BK_OK) return bk_error_set(err, w->status, pos, "writer failed");
    char c = j->s[pos];
    switch (t->kind) {
    case BK_SSZ_NONE:
        if (c != 'n') return bk_error_set(err, BK_ERR_VALUE, pos, "None takes null");
        return BK_OK;
    case BK_SSZ_BOOL:
        if (c != 't' && c != 'f') return bk_error_set(err, BK_ERR_VALUE, pos, "expected true or false");
        bk_writer_putc(w, c == 't' ? 1 : 0);
        return BK_OK;
    case BK_SSZ_UINT: {
        uint8_t b[32];
        bk_status st = parse_uint(j, pos, t->size, b, err);
        if (st != BK_OK) return st;
        bk_writer_put(w, b, t->size);
        return BK_OK;
    }
    case BK_SSZ_BITVECTOR:
    case BK_SSZ_BITLIST: {
        size_t at = w->len, n;
        bk_status st = put_unhex(j, pos, w, &n, err);
        if (st != BK_OK) return st;
        if (w->status != BK_OK) return bk_error_set(err, w->status, pos, "writer failed");
        st = bk_ssz_validate(t, w->data ? w->data + at : (const uint8_t *)"", n, err);
        if (st != BK_OK && err) err->offset = pos;
        return st;
    }
    case BK_SSZ_UNION: {
        size_t sel = SLOT_NONE, val = SLOT_NONE, members = 0;
        if (c == '{') {
            size_t cur = pos, k, v;
            while (jnext(j, &cur, 1, &k, &v)) {
                jspan key;
                bk_status st = jstring(j, k, &key, err);
                if (st != BK_OK) return st;
                /* The first member of a name counts (as bk_sjson_get). */
                if (key.n == 8 && !memcmp(key.p, "selector", 8) && sel == SLOT_NONE) sel = v;
                if (t->compatible ? key.n == 4 && !memcmp(key.p, "data", 4) : key.n == 5 && !memcmp(key.p, "value", 5))
                    if (val == SLOT_NONE) val = v;
                jspan_free(j, &key);
                members++;
            }
        }
        if (c != '{' || sel == SLOT_NONE || val == SLOT_NONE || members != 2)
            return bk_error_set(err, BK_ERR_VALUE, pos,
                                t->compatible ? "a CompatibleUnion is {\"selector\":\"n\",\"data\":...}"
                                              : "a union is {\"selector\":n,\"value\":...}");
        uint8_t b[32];
        bk_status st = parse_uint(j, sel, 1, b, err);
        if (st != BK_OK) return st;
        if (t->compatible && (b[0] >= t->nfields || !t->fields[b[0]].type))
            return bk_error_set(err, BK_ERR_VALUE, sel, "CompatibleUnion selector %u names no option", b[0]);
        if (b[0] >= t->nfields)
            return bk_error_set(err, BK_ERR_VALUE, sel, "union selector %u out of range (%zu options)", b[0],
                                t->nfields);
        bk_writer_putc(w, (char)b[0]);
        return from_json(j, t->fields[b[0]].type, val, w, err);
    }
    case BK_SSZ_CONTAINER:
        return encode_container(j, t, pos, w, err);
    case BK_SSZ_VECTOR:
    case BK_SSZ_LIST: {
        if (t->is_bytes) {
            size_t n;
            bk_status st = put_unhex(j, pos, w, &n, err);
            if (st != BK_OK) return st;
            if (t->kind == BK_SSZ_VECTOR && n != t->length)
                return bk_error_set(err, BK_ERR_LENGTH, pos, "ByteVector[%llu] needs %llu bytes, got %zu",
                                    (unsigned long long)t->length, (unsigned long long)t->length, n);
            if (n > t->length)
                return bk_error_set(err, BK_ERR_LENGTH, pos, "ByteList[%llu] of %zu bytes over the limit",
                                    (unsigned long long)t->length, n);
            return BK_OK;
        }
        if (c != '[') return bk_error_set(err, BK_ERR_VALUE, pos, "expected an array");
        size_t n = jcount(j, pos, 0);
        if (t->kind == BK_SSZ_VECTOR && n != t->length)
            return bk_error_set(err, BK_ERR_LENGTH, pos, "vector needs %llu elements, got %zu",
                                (unsigned long long)t->length, n);
        if (n > t->length)
            return bk_error_set(err, BK_ERR_LENGTH, pos, "list of %zu elements over the limit %llu", n,
                                (unsigned long long)t->length);
        return encode_seq(j, t, pos, NULL, n, w, err);
    }
    }
    return bk_error_set(err, BK_ERR_TYPE, pos, "unknown type kind");
}

bk_status bk_ssz_from_json(const bk_ssz_type *t, const char *json, size_t len, bk_writer *w,
                           const bk_allocator *alloc, bk_error *err)
{
    if (w->sink) return bk_error_set(err, BK_ERR_ARG, 0, "bk_ssz_from_json needs a memory writer");
    bk_status st = bk_sjson_check(json, len, NULL, err);
    if (st != BK_OK) return st;
    jtext j = {json, len, alloc};
    size_t start = w->len;
    st = from_json(&j, t, jws(&j, 0), w, err);
    if (st == BK_OK && w->status != BK_OK) st = bk_error_set(err, w->status, 0, "writer failed");
    /* Belt and braces: what we produce must be canonical. */
    if (st == BK_OK) st = bk_ssz_validate(t, w->data ? w->data + start : (const uint8_t *)"", w->len - start, err);
    return st;
}
