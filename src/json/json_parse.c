/* A small JSON reader (json_parse.h): recursive descent with an explicit
 * depth bound, nodes in one growing array, strings unescaped into a copy
 * no longer than the input. */
#include "json/json_parse.h"

#include <blockkit/hex.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct jp {
    bk_jsondoc *d;
    const char *s;
    size_t len, pos, text_len;
    bk_error *err;
} jp;

static bk_status jp_fail(jp *p, const char *what)
{
    return bk_error_set(p->err, BK_ERR_INVALID, p->pos, "JSON: %s at byte %zu", what, p->pos);
}

static void jp_ws(jp *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static bk_status jp_node(jp *p, bk_jsonv_type t, uint32_t *idx_out)
{
    bk_jsondoc *d = p->d;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        if (cap > UINT32_MAX) return bk_error_set(p->err, BK_ERR_LENGTH, p->pos, "JSON: too many values");
        bk_jsonv *nv = bk_realloc(d->alloc, d->v, d->cap * sizeof *nv, cap * sizeof *nv);
        if (!nv) return bk_error_set(p->err, BK_ERR_NOMEM, p->pos, "JSON: out of memory");
        d->v = nv;
        d->cap = cap;
    }
    memset(&d->v[d->n], 0, sizeof d->v[0]);
    d->v[d->n].type = t;
    *idx_out = (uint32_t)d->n++;
    return BK_OK;
}

/* The 4 hex digits of a \u escape (either case); 0 when one is not a digit. */
static int jp_hex4(const char *s, uint32_t *out)
{
    uint8_t b[2];
    if (bk_hex_decode(b, s, 2, NULL) != BK_OK) return 0;
    *out = (uint32_t)b[0] << 8 | b[1];
    return 1;
}

/* A string at p->pos (the opening quote): unescaped into d->text. */
static bk_status jp_string(jp *p, size_t *off_out, uint32_t *len_out)
{
    char *t = p->d->text;
    size_t start = p->text_len, o = start;
    p->pos++;
    for (;;) {
        if (p->pos >= p->len) return jp_fail(p, "unterminated string");
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') { p->pos++; break; }
        if (c < 0x20) return jp_fail(p, "control character in string");
        if (c != '\\') { t[o++] = (char)c; p->pos++; continue; }
        if (p->pos + 1 >= p->len) return jp_fail(p, "unterminated escape");
        char e = p->s[p->pos + 1];
        p->pos += 2;
        switch (e) {
        case '"': t[o++] = '"'; break;
        case '\\': t[o++] = '\\'; break;
        case '/': t[o++] = '/'; break;
        case 'b': t[o++] = '\b'; break;
        case 'f': t[o++] = '\f'; break;
        case 'n': t[o++] = '\n'; break;
        case 'r': t[o++] = '\r'; break;
        case 't': t[o++] = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (p->pos + 4 > p->len || !jp_hex4(p->s + p->pos, &cp)) return jp_fail(p, "bad \\u escape");
            p->pos += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                uint32_t lo;
                if (p->pos + 6 > p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
                    !jp_hex4(p->s + p->pos + 2, &lo) || lo < 0xDC00 || lo >= 0xE000)
                    return jp_fail(p, "unpaired surrogate");
                p->pos += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return jp_fail(p, "unpaired surrogate");
            }
            /* UTF-8 of cp is never longer than the escape it came from (6 or 12 bytes). */
            if (cp < 0x80) t[o++] = (char)cp;
            else if (cp < 0x800) { t[o++] = (char)(0xC0 | (cp >> 6)); t[o++] = (char)(0x80 | (cp & 0x3F)); }
            else if (cp < 0x10000) {
                t[o++] = (char)(0xE0 | (cp >> 12)); t[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                t[o++] = (char)(0x80 | (cp & 0x3F));
            } else {
                t[o++] = (char)(0xF0 | (cp >> 18)); t[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                t[o++] = (char)(0x80 | ((cp >> 6) & 0x3F)); t[o++] = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: return jp_fail(p, "bad escape");
        }
    }
    if (o - start > UINT32_MAX) return jp_fail(p, "string too long");
    t[o++] = 0;
    p->text_len = o;
    *off_out = start;
    *len_out = (uint32_t)(o - start - 1);
    return BK_OK;
}

static bk_status jp_number(jp *p, uint32_t idx)
{
    size_t st = p->pos;
    const char *s = p->s;
    if (p->pos < p->len && s[p->pos] == '-') p->pos++;
    if (p->pos >= p->len) return jp_fail(p, "bad number");
    if (s[p->pos] == '0') p->pos++;
    else if (s[p->pos] >= '1' && s[p->pos] <= '9') while (p->pos < p->len && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    else return jp_fail(p, "bad number");
    if (p->pos < p->len && s[p->pos] == '.') {
        p->pos++;
        if (p->pos >= p->len || s[p->pos] < '0' || s[p->pos] > '9') return jp_fail(p, "bad number");
        while (p->pos < p->len && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    }
    if (p->pos < p->len && (s[p->pos] == 'e' || s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (s[p->pos] == '+' || s[p->pos] == '-')) p->pos++;
        if (p->pos >= p->len || s[p->pos] < '0' || s[p->pos] > '9') return jp_fail(p, "bad number");
        while (p->pos < p->len && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    }
    if (p->pos - st > 64) return jp_fail(p, "number too long");
    p->d->v[idx].str = st;
    p->d->v[idx].n = (uint32_t)(p->pos - st);
    return BK_OK;
}

static bk_status jp_value(jp *p, unsigned depth, uint32_t *idx_out);

static bk_status jp_container(jp *p, unsigned depth, uint32_t idx, int is_obj)
{
    char close = is_obj ? '}' : ']';
    uint32_t prev = 0, count = 0;
    bk_status st;
    p->pos++;
    jp_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) { p->pos++; return BK_OK; }
    for (;;) {
        size_t key = 0;
        uint32_t key_len = 0, child;
        if (is_obj) {
            jp_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != '"') return jp_fail(p, "expected a key");
            if ((st = jp_string(p, &key, &key_len)) != BK_OK) return st;
            jp_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') return jp_fail(p, "expected ':'");
            p->pos++;
        }
        if ((st = jp_value(p, depth + 1, &child)) != BK_OK) return st;
        bk_jsonv *c = &p->d->v[child];
        c->key = key;
        c->key_len = key_len;
        if (prev) p->d->v[prev].next = child;
        else p->d->v[idx].first = child;
        prev = child;
        count++;
        jp_ws(p);
        if (p->pos >= p->len) return jp_fail(p, "unterminated container");
        if (p->s[p->pos] == ',') { p->pos++; continue; }
        if (p->s[p->pos] == close) { p->pos++; break; }
        return jp_fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    p->d->v[idx].n = count;
    return BK_OK;
}

static bk_status jp_value(jp *p, unsigned depth, uint32_t *idx_out)
{
    bk_status st;
    uint32_t idx;
    if (depth > BK_JSONV_MAX_DEPTH)
        return bk_error_set(p->err, BK_ERR_LENGTH, p->pos, "JSON: nesting deeper than %d at byte %zu",
                            BK_JSONV_MAX_DEPTH, p->pos);
    jp_ws(p);
    if (p->pos >= p->len) return jp_fail(p, "expected a value");
    size_t begin = p->pos;
    char c = p->s[p->pos];
    switch (c) {
    case '{':
    case '[':
        if ((st = jp_node(p, c == '{' ? BK_JSONV_OBJECT : BK_JSONV_ARRAY, &idx)) != BK_OK) return st;
        if ((st = jp_container(p, depth, idx, c == '{')) != BK_OK) return st;
        break;
    case '"': {
        size_t off;
        uint32_t n;
        if ((st = jp_node(p, BK_JSONV_STRING, &idx)) != BK_OK) return st;
        if ((st = jp_string(p, &off, &n)) != BK_OK) return st;
        p->d->v[idx].str = off;
        p->d->v[idx].n = n;
        break;
    }
    case 't': case 'f': case 'n': {
        const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
        size_t wl = strlen(w);
        if (p->len - p->pos < wl || memcmp(p->s + p->pos, w, wl)) return jp_fail(p, "bad literal");
        if ((st = jp_node(p, c == 'n' ? BK_JSONV_NULL : BK_JSONV_BOOL, &idx)) != BK_OK) return st;
        p->d->v[idx].str = c == 't';
        p->pos += wl;
        break;
    }
    default:
        if ((st = jp_node(p, BK_JSONV_NUMBER, &idx)) != BK_OK) return st;
        if ((st = jp_number(p, idx)) != BK_OK) return st;
    }
    p->d->v[idx].begin = begin;
    p->d->v[idx].end = p->pos;
    *idx_out = idx;
    return BK_OK;
}

bk_status bk_jsondoc_parse(bk_jsondoc *d, const char *s, size_t len, const bk_allocator *alloc, bk_error *err)
{
    memset(d, 0, sizeof *d);
    d->alloc = alloc ? alloc : bk_default_allocator();
    d->src = s;
    d->text_cap = len + 1;
    d->text = bk_alloc(d->alloc, d->text_cap);
    if (!d->text) return bk_error_set(err, BK_ERR_NOMEM, 0, "JSON: out of memory");
    jp p = {d, s, len, 0, 0, err};
    uint32_t root;
    bk_status st = jp_value(&p, 0, &root);
    if (st == BK_OK) {
        jp_ws(&p);
        if (p.pos != len) st = jp_fail(&p, "trailing characters");
    }
    if (st != BK_OK) bk_jsondoc_free(d);
    return st;
}

void bk_jsondoc_free(bk_jsondoc *d)
{
    if (d->alloc) {
        bk_free(d->alloc, d->v, d->cap * sizeof *d->v);
        bk_free(d->alloc, d->text, d->text_cap);
    }
    memset(d, 0, sizeof *d);
}

const bk_jsonv *bk_jsonv_get(const bk_jsondoc *d, const bk_jsonv *obj, const char *key)
{
    if (!obj || obj->type != BK_JSONV_OBJECT) return NULL;
    size_t kl = strlen(key);
    for (uint32_t i = obj->first; i; i = d->v[i].next)
        if (d->v[i].key_len == kl && !memcmp(d->text + d->v[i].key, key, kl)) return &d->v[i];
    return NULL;
}

const bk_jsonv *bk_jsonv_at(const bk_jsondoc *d, const bk_jsonv *arr, uint32_t i)
{
    if (!arr || arr->type != BK_JSONV_ARRAY || i >= arr->n) return NULL;
    uint32_t k = arr->first;
    while (i--) k = d->v[k].next;
    return &d->v[k];
}

int bk_jsonv_int(const bk_jsondoc *d, const bk_jsonv *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!v || v->type != BK_JSONV_NUMBER) return 0;
    char buf[72];
    memcpy(buf, d->src + v->str, v->n);
    buf[v->n] = 0;
    if (strpbrk(buf, ".eE")) {
        /* 5.0 and 1e3 are integers too (JSON has one number type). */
        double x;
        if (!bk_jsonv_double(d, v, &x) || x != floor(x) || x < (double)lo || x > (double)hi) return 0;
        *out = (int64_t)x;
        return 1;
    }
    errno = 0;
    char *end;
    long long x = strtoll(buf, &end, 10);
    if (errno || *end || x < lo || x > hi) return 0;
    *out = x;
    return 1;
}

int bk_jsonv_double(const bk_jsondoc *d, const bk_jsonv *v, double *out)
{
    if (!v || v->type != BK_JSONV_NUMBER) return 0;
    char buf[72];
    memcpy(buf, d->src + v->str, v->n);
    buf[v->n] = 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end || !isfinite(x)) return 0;
    *out = x;
    return 1;
}
