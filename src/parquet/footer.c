/* The Parquet footer read back (blockkit/parquet.h, bk_pq_footer_*): the
 * Thrift compact protocol decoded field by field, skipping what it does
 * not need, nesting bounded, every length checked against the bytes. */
#include <blockkit/parquet.h>

#include <string.h>

/* compact protocol types (thrift/doc/specs/thrift-compact-protocol.md) */
enum { CT_STOP = 0, CT_TRUE = 1, CT_FALSE = 2, CT_BYTE = 3, CT_I16 = 4, CT_I32 = 5, CT_I64 = 6, CT_DOUBLE = 7,
       CT_BINARY = 8, CT_LIST = 9, CT_SET = 10, CT_MAP = 11, CT_STRUCT = 12 };

#define FOOTER_DEPTH_MAX 32

typedef struct rd {
    const uint8_t *p;
    size_t len, at;
    bk_status st;
    const char *what;
    size_t where;
} rd;

static int bad(rd *r, bk_status st, const char *what)
{
    if (r->st == BK_OK) {
        r->st = st;
        r->what = what;
        r->where = r->at;
    }
    return 0;
}

static int get_varint(rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (r->at >= r->len) return bad(r, BK_ERR_TRUNCATED, "varint past the end");
        uint8_t b = r->p[r->at++];
        if (shift == 63 && b > 1) return bad(r, BK_ERR_INVALID, "varint over 64 bits");
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return bad(r, BK_ERR_INVALID, "varint over 10 bytes");
}

static int get_zigzag(rd *r, int64_t *v)
{
    uint64_t u;
    if (!get_varint(r, &u)) return 0;
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return 1;
}

static int get_binary(rd *r, const uint8_t **p, size_t *n)
{
    uint64_t l;
    if (!get_varint(r, &l)) return 0;
    if (l > r->len - r->at) return bad(r, BK_ERR_TRUNCATED, "string past the end");
    *p = r->p + r->at;
    *n = (size_t)l;
    r->at += (size_t)l;
    return 1;
}

/* A list or set header: element type and count. */
static int get_list(rd *r, int *etype, uint64_t *n)
{
    if (r->at >= r->len) return bad(r, BK_ERR_TRUNCATED, "list header past the end");
    uint8_t h = r->p[r->at++];
    *etype = h & 0x0f;
    *n = h >> 4;
    if (*n == 15 && !get_varint(r, n)) return 0;
    /* every element takes at least one byte (booleans in a list too) */
    if (*n > r->len - r->at) return bad(r, BK_ERR_TRUNCATED, "list longer than the footer");
    return 1;
}

static int skip_value(rd *r, int type, int depth);

static int skip_struct(rd *r, int depth)
{
    if (depth > FOOTER_DEPTH_MAX) return bad(r, BK_ERR_INVALID, "structures nested too deep");
    for (;;) {
        if (r->at >= r->len) return bad(r, BK_ERR_TRUNCATED, "struct past the end");
        uint8_t h = r->p[r->at++];
        if (h == CT_STOP) return 1;
        if (!(h >> 4)) {
            int64_t id;
            if (!get_zigzag(r, &id)) return 0;
        }
        if (!skip_value(r, h & 0x0f, depth)) return 0;
    }
}

static int skip_value(rd *r, int type, int depth)
{
    uint64_t u;
    switch (type) {
    case CT_TRUE:
    case CT_FALSE:
        return 1; /* in a field header; in a list, a byte (handled by the caller) */
    case CT_BYTE:
        if (r->at >= r->len) return bad(r, BK_ERR_TRUNCATED, "byte past the end");
        r->at++;
        return 1;
    case CT_I16:
    case CT_I32:
    case CT_I64:
        return get_varint(r, &u);
    case CT_DOUBLE:
        if (r->len - r->at < 8) return bad(r, BK_ERR_TRUNCATED, "double past the end");
        r->at += 8;
        return 1;
    case CT_BINARY: {
        const uint8_t *p;
        size_t n;
        return get_binary(r, &p, &n);
    }
    case CT_LIST:
    case CT_SET: {
        int et;
        uint64_t n;
        if (!get_list(r, &et, &n)) return 0;
        if (depth > FOOTER_DEPTH_MAX) return bad(r, BK_ERR_INVALID, "structures nested too deep");
        for (uint64_t i = 0; i < n; i++) {
            if (et == CT_TRUE || et == CT_FALSE) {
                if (!skip_value(r, CT_BYTE, depth + 1)) return 0;
            } else if (!skip_value(r, et, depth + 1)) {
                return 0;
            }
        }
        return 1;
    }
    case CT_MAP: {
        uint64_t n;
        if (!get_varint(r, &n)) return 0;
        if (!n) return 1;
        if (r->at >= r->len) return bad(r, BK_ERR_TRUNCATED, "map header past the end");
        uint8_t kv = r->p[r->at++];
        if (n > r->len - r->at) return bad(r, BK_ERR_TRUNCATED, "map longer than the footer");
        if (depth > FOOTER_DEPTH_MAX) return bad(r, BK_ERR_INVALID, "structures nested too deep");
        for (uint64_t i = 0; i < n; i++) {
            int kt = kv >> 4, vt = kv & 0x0f;
            if (!skip_value(r, kt == CT_TRUE || kt == CT_FALSE ? CT_BYTE : kt, depth + 1)) return 0;
            if (!skip_value(r, vt == CT_TRUE || vt == CT_FALSE ? CT_BYTE : vt, depth + 1)) return 0;
        }
        return 1;
    }
    case CT_STRUCT:
        return skip_struct(r, depth + 1);
    default:
        return bad(r, BK_ERR_INVALID, "unknown Thrift type");
    }
}

/* The next field header of a struct: 0 at its end (STOP), else 1 with id
 * and type. */
static int next_field(rd *r, int *last, int *id, int *type)
{
    if (r->at >= r->len) return bad(r, BK_ERR_TRUNCATED, "struct past the end");
    uint8_t h = r->p[r->at++];
    if (h == CT_STOP) return 0;
    if (h >> 4) {
        *id = *last + (h >> 4);
    } else {
        int64_t v;
        if (!get_zigzag(r, &v)) return 0;
        if (v < -32768 || v > 32767) return bad(r, BK_ERR_INVALID, "field id out of range");
        *id = (int)v;
    }
    *last = *id;
    *type = h & 0x0f;
    return 1;
}

static int read_i64(rd *r, int type, int64_t *v)
{
    if (type != CT_I64 && type != CT_I32) return bad(r, BK_ERR_INVALID, "an integer field of another type");
    return get_zigzag(r, v);
}

static int read_row_group(rd *r, bk_pq_footer *f)
{
    int last = 0, id, type, rows = 0;
    while (next_field(r, &last, &id, &type)) {
        if (id == 3) {
            int64_t n;
            if (!read_i64(r, type, &n)) return 0;
            if (n < 0) return bad(r, BK_ERR_INVALID, "a row group with a negative row count");
            f->rowgroup_rows += n;
            rows = 1;
        } else if (!skip_value(r, type, 2)) {
            return 0;
        }
    }
    if (r->st != BK_OK) return 0;
    if (!rows) return bad(r, BK_ERR_INVALID, "a row group without num_rows");
    return 1;
}

static int read_kv(rd *r, bk_pq_footer *f)
{
    int last = 0, id, type;
    const uint8_t *k = NULL, *v = NULL;
    size_t kn = 0, vn = 0;
    while (next_field(r, &last, &id, &type)) {
        if ((id == 1 || id == 2) && type == CT_BINARY) {
            if (!get_binary(r, id == 1 ? &k : &v, id == 1 ? &kn : &vn)) return 0;
        } else if (!skip_value(r, type, 2)) {
            return 0;
        }
    }
    if (r->st != BK_OK) return 0;
    if (!k) return bad(r, BK_ERR_INVALID, "a key_value_metadata entry without a key");
    f->n_kv_total++;
    if (f->nkv < BK_PQ_FOOTER_KV_MAX) {
        bk_pq_kv_view *e = &f->kv[f->nkv++];
        e->key = (const char *)k;
        e->key_len = kn;
        e->value = (const char *)v;
        e->value_len = vn;
    }
    return 1;
}

bk_status bk_pq_footer_parse(const uint8_t *meta, size_t len, bk_pq_footer *f, bk_error *err)
{
    memset(f, 0, sizeof *f);
    rd r = {meta, len, 0, BK_OK, NULL, 0};
    int last = 0, id, type, have_rows = 0, have_groups = 0;
    while (next_field(&r, &last, &id, &type)) {
        if (id == 3) {
            if (!read_i64(&r, type, &f->num_rows)) break;
            have_rows = 1;
        } else if ((id == 4 || id == 5) && type == CT_LIST) {
            int et;
            uint64_t n;
            if (!get_list(&r, &et, &n)) break;
            if (et != CT_STRUCT) {
                bad(&r, BK_ERR_INVALID, id == 4 ? "row_groups not a list of structs" : "key_value_metadata not a list of structs");
                break;
            }
            for (uint64_t i = 0; i < n && r.st == BK_OK; i++) {
                if (id == 4) {
                    if (read_row_group(&r, f)) f->n_rowgroups++;
                } else {
                    read_kv(&r, f);
                }
            }
            if (id == 4) have_groups = 1;
        } else if (!skip_value(&r, type, 1)) {
            break;
        }
    }
    if (r.st != BK_OK)
        return bk_error_set(err, r.st, r.where, "parquet footer: %s", r.what);
    if (r.at != len) return bk_error_set(err, BK_ERR_INVALID, r.at, "parquet footer: bytes after FileMetaData");
    if (!have_rows || !have_groups)
        return bk_error_set(err, BK_ERR_INVALID, 0, "parquet footer: no %s", have_rows ? "row_groups" : "num_rows");
    if (f->num_rows < 0) return bk_error_set(err, BK_ERR_INVALID, 0, "parquet footer: negative num_rows");
    return BK_OK;
}

bk_status bk_pq_footer_locate(const uint8_t tail[8], uint64_t file_size, uint64_t *meta_offset, uint32_t *meta_len,
                              bk_error *err)
{
    if (file_size < 12) return bk_error_set(err, BK_ERR_TRUNCATED, 0, "not a Parquet file: %llu bytes",
                                            (unsigned long long)file_size);
    if (memcmp(tail + 4, "PAR1", 4) != 0)
        return bk_error_set(err, BK_ERR_INVALID, file_size - 4, "not a Parquet file: no PAR1 at the end");
    uint32_t n = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
    if ((uint64_t)n > file_size - 12)
        return bk_error_set(err, BK_ERR_INVALID, file_size - 8, "parquet footer length %u over the file's %llu bytes",
                            n, (unsigned long long)file_size);
    *meta_len = n;
    *meta_offset = file_size - 8 - n;
    return BK_OK;
}

const bk_pq_kv_view *bk_pq_footer_get(const bk_pq_footer *f, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].key_len == kl && !memcmp(f->kv[i].key, key, kl)) return &f->kv[i];
    return NULL;
}
