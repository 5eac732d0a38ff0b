/* Helpers shared by the JSON tests: zstd-compressed vectors, a minimal
 * JSON validator/tokenizer, an independent reference pretty-printer in
 * Core's UniValue::write(indent) form (spec §1.3), and running the CLI. */
#ifndef BLOCKKIT_TEST_JSON_UTIL_H
#define BLOCKKIT_TEST_JSON_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct tbuf {
    char *p;
    size_t len, cap;
} tbuf;

static inline void tbuf_put(tbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) { fprintf(stderr, "out of memory\n"); exit(2); }
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

/* Output of a shell command (stdout), with its exit status. */
static inline char *run_cmd(const char *cmd, size_t *len_out, int *status_out)
{
    FILE *f = popen(cmd, "r");
    if (!f) { fprintf(stderr, "popen failed: %s\n", cmd); exit(2); }
    tbuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tbuf_put(&b, chunk, n);
    int st = pclose(f);
    if (status_out) *status_out = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (!b.p) tbuf_put(&b, "", 0);
    *len_out = b.len;
    return b.p;
}

#ifdef BK_TEST_DATA
/* A .zst file under tests/data, decompressed. Missing data fails the test. */
static inline uint8_t *read_zst(const char *name, size_t *len_out)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "zstd -dcq '%s/%s'", BK_TEST_DATA, name);
    int st;
    char *p = run_cmd(cmd, len_out, &st);
    if (st != 0 || *len_out == 0) { fprintf(stderr, "cannot decompress %s (is zstd installed?)\n", name); exit(2); }
    return (uint8_t *)p;
}
#endif

/* ---- a tiny JSON scanner (RFC 8259 syntax; strings byte-wise) ---- */

typedef struct jscan {
    const char *s;
    size_t n, i;
    int depth;
} jscan;

static inline void js_ws(jscan *j)
{
    while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\n' || j->s[j->i] == '\r' || j->s[j->i] == '\t')) j->i++;
}

static inline int js_value(jscan *j);

static inline int js_string(jscan *j)
{
    if (j->i >= j->n || j->s[j->i] != '"') return 0;
    j->i++;
    while (j->i < j->n) {
        unsigned char c = (unsigned char)j->s[j->i++];
        if (c == '"') return 1;
        if (c < 0x20) return 0;
        if (c == '\\') {
            if (j->i >= j->n) return 0;
            char e = j->s[j->i++];
            if (e == 'u') {
                for (int k = 0; k < 4; k++, j->i++) {
                    if (j->i >= j->n) return 0;
                    char h = j->s[j->i];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return 0;
                }
            } else if (!strchr("\"\\/bfnrt", e)) {
                return 0;
            }
        }
    }
    return 0;
}

static inline int js_number(jscan *j)
{
    size_t st = j->i;
    if (j->i < j->n && j->s[j->i] == '-') j->i++;
    if (j->i >= j->n) return 0;
    if (j->s[j->i] == '0') j->i++;
    else if (j->s[j->i] >= '1' && j->s[j->i] <= '9') while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    else return 0;
    if (j->i < j->n && j->s[j->i] == '.') {
        j->i++;
        size_t d = j->i;
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
        if (j->i == d) return 0;
    }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
        size_t d = j->i;
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
        if (j->i == d) return 0;
    }
    return j->i > st;
}

static inline int js_lit(jscan *j, const char *lit)
{
    size_t l = strlen(lit);
    if (j->n - j->i < l || memcmp(j->s + j->i, lit, l)) return 0;
    j->i += l;
    return 1;
}

static inline int js_value(jscan *j)
{
    js_ws(j);
    if (j->i >= j->n) return 0;
    char c = j->s[j->i];
    if (c == '{' || c == '[') {
        if (++j->depth > 64) return 0;
        char close = c == '{' ? '}' : ']';
        j->i++;
        js_ws(j);
        if (j->i < j->n && j->s[j->i] == close) {
            j->i++;
            j->depth--;
            return 1;
        }
        for (;;) {
            if (c == '{') {
                js_ws(j);
                if (!js_string(j)) return 0;
                js_ws(j);
                if (j->i >= j->n || j->s[j->i++] != ':') return 0;
            }
            if (!js_value(j)) return 0;
            js_ws(j);
            if (j->i >= j->n) return 0;
            if (j->s[j->i] == ',') { j->i++; continue; }
            if (j->s[j->i] == close) { j->i++; j->depth--; return 1; }
            return 0;
        }
    }
    if (c == '"') return js_string(j);
    if (c == 't') return js_lit(j, "true");
    if (c == 'f') return js_lit(j, "false");
    if (c == 'n') return js_lit(j, "null");
    return js_number(j);
}

/* 1 when s[0..n) is exactly one JSON value (surrounding white space allowed). */
static inline int json_valid(const char *s, size_t n)
{
    jscan j = {s, n, 0, 0};
    if (!js_value(&j)) return 0;
    js_ws(&j);
    return j.i == n;
}

/* ---- reference pretty-printer: compact Core JSON -> write(indent) ----
 * Written from the UniValue algorithm (spec §1.3), independently of the
 * library's streaming writer: a container at level L puts each member on
 * its own line at indent*L, "key": value, and its close at indent*(L-1);
 * empty containers are not collapsed. Input must be compact. */
static inline void ref_spaces(tbuf *o, size_t n)
{
    for (size_t k = 0; k < n; k++) tbuf_put(o, " ", 1);
}

static inline size_t ref_scalar_end(const char *s, size_t i)
{
    if (s[i] == '"') {
        i++;
        while (s[i] != '"') i += s[i] == '\\' ? 2 : 1;
        return i + 1;
    }
    while (s[i] && s[i] != ',' && s[i] != ']' && s[i] != '}') i++;
    return i;
}

static inline size_t ref_pretty_value(const char *s, size_t i, unsigned indent, unsigned level, tbuf *o)
{
    char c = s[i];
    if (c != '{' && c != '[') {
        size_t e = ref_scalar_end(s, i);
        tbuf_put(o, s + i, e - i);
        return e;
    }
    char close = c == '{' ? '}' : ']';
    tbuf_put(o, &c, 1);
    tbuf_put(o, "\n", 1);
    i++;
    while (s[i] != close) {
        ref_spaces(o, (size_t)indent * level);
        if (c == '{') {
            size_t e = ref_scalar_end(s, i);
            tbuf_put(o, s + i, e - i);
            tbuf_put(o, ": ", 2);
            i = e + 1; /* skip ':' */
        }
        i = ref_pretty_value(s, i, indent, level + 1, o);
        if (s[i] == ',') {
            tbuf_put(o, ",", 1);
            i++;
        }
        tbuf_put(o, "\n", 1);
    }
    ref_spaces(o, (size_t)indent * (level - 1));
    tbuf_put(o, &close, 1);
    return i + 1;
}

/* NUL-terminated compact JSON -> pretty text (caller frees .p). */
static inline tbuf ref_pretty(const char *compact, unsigned indent)
{
    tbuf o = {0};
    ref_pretty_value(compact, 0, indent, 1, &o);
    return o;
}

/* Pretty (any indent) -> compact: drop white space outside strings. */
static inline tbuf ref_compact(const char *s, size_t n)
{
    tbuf o = {0};
    int in_str = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_str) {
            tbuf_put(o.p ? &o : &o, &c, 1);
            if (c == '\\') { tbuf_put(&o, &s[++i], 1); continue; }
            if (c == '"') in_str = 0;
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '"') in_str = 1;
        tbuf_put(&o, &c, 1);
    }
    if (!o.p) tbuf_put(&o, "", 0);
    return o;
}

#endif
