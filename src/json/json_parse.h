/* A small JSON reader (RFC 8259) for requests the library receives (the
 * Electrum server's JSON-RPC lines, node RPC replies): the whole text into
 * one block of nodes, bounded by the input (one node per value, a depth
 * limit), strings unescaped into a copy of the text. Internal. */
#ifndef BK_JSON_PARSE_H
#define BK_JSON_PARSE_H

#include <blockkit/alloc.h>
#include <blockkit/status.h>

#include <stddef.h>
#include <stdint.h>

#define BK_JSONV_MAX_DEPTH 64

typedef enum bk_jsonv_type {
    BK_JSONV_NULL, BK_JSONV_BOOL, BK_JSONV_NUMBER, BK_JSONV_STRING, BK_JSONV_ARRAY, BK_JSONV_OBJECT
} bk_jsonv_type;

typedef struct bk_jsonv {
    bk_jsonv_type type;
    uint32_t n;                 /* array/object: children; string/number: text length */
    uint32_t next;              /* index of the next sibling (0: none) */
    uint32_t first;             /* array/object: first child (0: none) */
    uint32_t key_len;           /* object member: its key's length */
    size_t str;                 /* string: offset of its unescaped text (NUL-terminated) in d->text;
                                 * number: offset of its text in the input; bool: 0/1 */
    size_t key;                 /* object member: offset of its key in d->text */
    size_t begin, end;          /* the value's text in the input: [begin, end) */
} bk_jsonv;

typedef struct bk_jsondoc {
    bk_jsonv *v;                /* v[0] is the root */
    size_t n, cap;
    char *text;                 /* unescaped strings */
    size_t text_cap;
    const char *src;            /* the input (numbers point into it) */
    const bk_allocator *alloc;
} bk_jsondoc;

static inline const char *bk_jsonv_str(const bk_jsondoc *d, const bk_jsonv *v) { return d->text + v->str; }

/* Parse len bytes (no NUL needed). Syntax errors: BK_ERR_INVALID with the
 * offset; nesting past BK_JSONV_MAX_DEPTH: BK_ERR_LENGTH. */
bk_status bk_jsondoc_parse(bk_jsondoc *d, const char *s, size_t len, const bk_allocator *alloc, bk_error *err);
void bk_jsondoc_free(bk_jsondoc *d);

/* Lookups (NULL when absent or of another shape). */
const bk_jsonv *bk_jsonv_get(const bk_jsondoc *d, const bk_jsonv *obj, const char *key);
const bk_jsonv *bk_jsonv_at(const bk_jsondoc *d, const bk_jsonv *arr, uint32_t i);
/* A number that is an integer in [lo, hi]: 1 and *out, else 0. */
int bk_jsonv_int(const bk_jsondoc *d, const bk_jsonv *v, int64_t lo, int64_t hi, int64_t *out);
/* A number as a double: 1, else 0. */
int bk_jsonv_double(const bk_jsondoc *d, const bk_jsonv *v, double *out);

#endif
