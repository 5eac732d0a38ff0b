/* A small strict JSON parser (RFC 8259) building a tree in an arena. Used
 * for container schemas, SSZ values and the test vector runner. */
#include "ssz_internal.h"

#include <blockkit/hex.h>

#include <string.h>

#define MAX_DEPTH 256

typedef struct parser {
    bk_arena *a;
    const char *s;
    size_t len;
    size_t pos;
    bk_error *err;
    bk_status st;
    size_t nvalues;     /* values parsed so far */
} parser;

static bk_status fail(parser *p, size_t pos, const char *msg)
{
    if (p->st == BK_OK) {
        p->st = BK_ERR_INVALID;
        bk_error_set(p->err, BK_ERR_INVALID, pos, "JSON: %s", msg);
    }
    return p->st;
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

/* The 4 hex digits of a \u escape (either case); 0 when one is not a digit. */
static int hex4(const char *s, unsigned *out)
{
    uint8_t b[2];
    if (bk_hex_decode(b, s, 2, NULL) != BK_OK) return 0;
    *out = (unsigned)b[0] << 8 | b[1];
    return 1;
}

/* Parse a string at p->pos (on the opening quote); unescaped copy in the
 * arena. The output is never longer than the input. */
static bk_status parse_string(parser *p, const char **out, size_t *out_len)
{
    size_t start = ++p->pos, end = start;
    int plain = 1;
    while (end < p->len && p->s[end] != '"') {
        unsigned char c = (unsigned char)p->s[end];
        if (c < 0x20) return fail(p, end, "control character in string");
        if (c == '\\') {
            plain = 0;
            end++;
            if (end >= p->len) break;
        }
        end++;
    }
    if (end >= p->len) return fail(p, start - 1, "unterminated string");
    /* Without an arena (syntax check only) nothing is copied: d stays NULL
     * and PUT only counts. */
    char *d = p->a ? bk_arena_alloc(p->a, end - start + 1) : NULL;
    if (p->a && !d) {
        p->st = BK_ERR_NOMEM;
        return bk_error_set(p->err, BK_ERR_NOMEM, start, "out of memory");
    }
    size_t n = 0;
#define PUT(c) do { if (d) d[n] = (c); n++; } while (0)
    if (plain) {
        if (d) memcpy(d, p->s + start, end - start);
        n = end - start;
    } else {
        for (size_t i = start; i < end;) {
            char c = p->s[i];
            if (c != '\\') {
                PUT(c);
                i++;
                continue;
            }
            char e = p->s[i + 1];
            i += 2;
            switch (e) {
            case '"': PUT('"'); break;
            case '\\': PUT('\\'); break;
            case '/': PUT('/'); break;
            case 'b': PUT('\b'); break;
            case 'f': PUT('\f'); break;
            case 'n': PUT('\n'); break;
            case 'r': PUT('\r'); break;
            case 't': PUT('\t'); break;
            case 'u': {
                unsigned cp, lo;
                if (end - i < 4 || !hex4(p->s + i, &cp)) return fail(p, i - 2, "bad \\u escape");
                i += 4;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    if (end - i < 6 || p->s[i] != '\\' || p->s[i + 1] != 'u' || !hex4(p->s + i + 2, &lo) ||
                        lo < 0xdc00 || lo > 0xdfff)
                        return fail(p, i - 6, "unpaired surrogate");
                    i += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    return fail(p, i - 6, "unpaired surrogate");
                }
                /* UTF-8 of a code point is never longer than its escape. */
                if (cp < 0x80) PUT((char)cp);
                else if (cp < 0x800) {
                    PUT((char)(0xc0 | (cp >> 6)));
                    PUT((char)(0x80 | (cp & 0x3f)));
                } else if (cp < 0x10000) {
                    PUT((char)(0xe0 | (cp >> 12)));
                    PUT((char)(0x80 | ((cp >> 6) & 0x3f)));
                    PUT((char)(0x80 | (cp & 0x3f)));
                } else {
                    PUT((char)(0xf0 | (cp >> 18)));
                    PUT((char)(0x80 | ((cp >> 12) & 0x3f)));
                    PUT((char)(0x80 | ((cp >> 6) & 0x3f)));
                    PUT((char)(0x80 | (cp & 0x3f)));
                }
                break;
            }
            default: return fail(p, i - 2, "bad escape");
            }
        }
    }
#undef PUT
    if (d) d[n] = 0;
    p->pos = end + 1;
    *out = d ? d : p->s + start;
    *out_len = n;
    return BK_OK;
}

static bk_status parse_value(parser *p, bk_sjson **out, int depth);

static bk_status parse_number(parser *p, bk_sjson *v)
{
    size_t i = p->pos;
    if (i < p->len && p->s[i] == '-') i++;
    if (i >= p->len) return fail(p, p->pos, "bad number");
    if (p->s[i] == '0') i++;
    else if (p->s[i] >= '1' && p->s[i] <= '9')
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    else return fail(p, p->pos, "bad number");
    if (i < p->len && p->s[i] == '.') {
        i++;
        size_t d = i;
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
        if (i == d) return fail(p, i, "bad number fraction");
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        size_t d = i;
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
        if (i == d) return fail(p, i, "bad number exponent");
    }
    v->kind = BK_SJSON_NUMBER;
    v->str = p->s + p->pos;
    v->len = i - p->pos;
    p->pos = i;
    return BK_OK;
}

static bk_status parse_value(parser *p, bk_sjson **out, int depth)
{
    p->nvalues++;
    skip_ws(p);
    if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of text");
    if (depth > MAX_DEPTH) return fail(p, p->pos, "nesting too deep");
    bk_sjson scratch;
    bk_sjson *v = p->a ? bk_arena_alloc(p->a, sizeof *v) : &scratch;
    if (!p->a) memset(v, 0, sizeof *v);
    if (!v) {
        p->st = BK_ERR_NOMEM;
        return bk_error_set(p->err, BK_ERR_NOMEM, p->pos, "out of memory");
    }
    v->off = p->pos;
    *out = v;
    char c = p->s[p->pos];
    if (c == '{' || c == '[') {
        int obj = c == '{';
        v->kind = obj ? BK_SJSON_OBJECT : BK_SJSON_ARRAY;
        p->pos++;
        skip_ws(p);
        bk_sjson **tail = &v->child;
        if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
            p->pos++;
            return BK_OK;
        }
        for (;;) {
            const char *key = NULL;
            size_t keylen = 0;
            skip_ws(p);
            if (obj) {
                if (p->pos >= p->len || p->s[p->pos] != '"') return fail(p, p->pos, "expected member name");
                if (parse_string(p, &key, &keylen) != BK_OK) return p->st;
                skip_ws(p);
                if (p->pos >= p->len || p->s[p->pos] != ':') return fail(p, p->pos, "expected ':'");
                p->pos++;
            }
            bk_sjson *child;
            if (parse_value(p, &child, depth + 1) != BK_OK) return p->st;
            if (p->a) {
                child->key = key;
                child->keylen = keylen;
                *tail = child;
                tail = &child->next;
            }
            v->n++;
            skip_ws(p);
            if (p->pos >= p->len) return fail(p, p->pos, "unexpected end of text");
            if (p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->s[p->pos] == (obj ? '}' : ']')) {
                p->pos++;
                return BK_OK;
            }
            return fail(p, p->pos, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    if (c == '"') {
        v->kind = BK_SJSON_STRING;
        return parse_string(p, &v->str, &v->len);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(p, v);
    static const struct { const char *w; bk_sjson_kind k; } lits[] = {
        {"null", BK_SJSON_NULL}, {"true", BK_SJSON_TRUE}, {"false", BK_SJSON_FALSE}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(lits[i].w);
        if (p->len - p->pos >= n && memcmp(p->s + p->pos, lits[i].w, n) == 0) {
            v->kind = lits[i].k;
            p->pos += n;
            return BK_OK;
        }
    }
    return fail(p, p->pos, "unexpected character");
}

bk_status bk_sjson_parse(bk_arena *a, const char *text, size_t len, bk_sjson **root_out, bk_error *err)
{
    parser p = {a, text, len, 0, err, BK_OK, 0};
    bk_sjson *root = NULL;
    if (parse_value(&p, &root, 0) != BK_OK) return p.st;
    skip_ws(&p);
    if (p.pos != len) return fail(&p, p.pos, "text after the value");
    *root_out = root;
    return BK_OK;
}

bk_status bk_sjson_check(const char *text, size_t len, size_t *nvalues_out, bk_error *err)
{
    parser p = {NULL, text, len, 0, err, BK_OK, 0};
    bk_sjson *root = NULL;
    if (nvalues_out) *nvalues_out = 0;
    if (parse_value(&p, &root, 0) != BK_OK) return p.st;
    skip_ws(&p);
    if (p.pos != len) return fail(&p, p.pos, "text after the value");
    if (nvalues_out) *nvalues_out = p.nvalues;
    return BK_OK;
}

const bk_sjson *bk_sjson_get(const bk_sjson *obj, const char *key)
{
    if (!obj || obj->kind != BK_SJSON_OBJECT) return NULL;
    size_t n = strlen(key);
    for (const bk_sjson *c = obj->child; c; c = c->next)
        if (c->keylen == n && memcmp(c->key, key, n) == 0) return c;
    return NULL;
}
