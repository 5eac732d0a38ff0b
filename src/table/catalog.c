/* Provenance of an export (blockkit/export.h): the catalogue of chunk
 * files, the datasets manifest, the check of one chunk and
 * bk_export_verify. The rules a chunk must meet are all in
 * bk_export_check_chunk, used by the rerun (export.c: which chunks to keep)
 * and by --verify alike. */
#define _POSIX_C_SOURCE 200809L
#include "catalog_internal.h"

#include <blockkit/chain.h>
#include <blockkit/export.h>
#include <blockkit/network.h>
#include <blockkit/parquet.h>
#include <blockkit/table.h>
#include <blockkit/hex.h>
#include <blockkit/sha256.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CATALOG_DIR "_blockkit"
#define CATALOG_NAME "chunks.ndjson"
#define MANIFEST_NAME "datasets.ndjson"
#define CATALOG_MAX_BYTES ((uint64_t)1 << 30) /* a catalogue line per chunk: 1 GiB is millions of chunks */
#define READ_PIECE ((size_t)1 << 20)

/* ---- one flat JSON object per line: string and integer members ---- */

#define FLAT_MAX 24
typedef struct flat {
    struct {
        const char *k, *v;
        size_t kn, vn;
        int str;
    } m[FLAT_MAX];
    size_t n;
} flat;

static bk_status flat_parse(const char *s, size_t len, flat *f, bk_error *err)
{
    size_t i = 0;
    f->n = 0;
#define WS() while (i < len && (s[i] == ' ' || s[i] == '\t')) i++
    WS();
    if (i >= len || s[i] != '{') return bk_error_set(err, BK_ERR_INVALID, i, "not a JSON object");
    i++;
    WS();
    if (i < len && s[i] == '}') {
        i++;
    } else {
        for (;;) {
            WS();
            if (i >= len || s[i] != '"') return bk_error_set(err, BK_ERR_INVALID, i, "a member name expected");
            size_t k0 = ++i;
            while (i < len && s[i] != '"' && s[i] != '\\' && (unsigned char)s[i] >= 0x20) i++;
            if (i >= len || s[i] != '"') return bk_error_set(err, BK_ERR_INVALID, i, "a bad member name");
            size_t kn = i - k0;
            i++;
            WS();
            if (i >= len || s[i] != ':') return bk_error_set(err, BK_ERR_INVALID, i, "':' expected");
            i++;
            WS();
            if (f->n == FLAT_MAX) return bk_error_set(err, BK_ERR_INVALID, i, "more than %d members", FLAT_MAX);
            f->m[f->n].k = s + k0;
            f->m[f->n].kn = kn;
            if (i < len && s[i] == '"') {
                size_t v0 = ++i;
                /* our values are names, hex and digits: no escapes */
                while (i < len && s[i] != '"' && s[i] != '\\' && (unsigned char)s[i] >= 0x20) i++;
                if (i >= len || s[i] != '"') return bk_error_set(err, BK_ERR_INVALID, i, "a bad string value");
                f->m[f->n].v = s + v0;
                f->m[f->n].vn = i - v0;
                f->m[f->n].str = 1;
                i++;
            } else {
                size_t v0 = i;
                if (i < len && s[i] == '-') i++;
                while (i < len && s[i] >= '0' && s[i] <= '9') i++;
                if (i == v0 || (i == v0 + 1 && s[v0] == '-'))
                    return bk_error_set(err, BK_ERR_INVALID, v0, "a string or an integer expected");
                f->m[f->n].v = s + v0;
                f->m[f->n].vn = i - v0;
                f->m[f->n].str = 0;
            }
            f->n++;
            WS();
            if (i < len && s[i] == ',') {
                i++;
                continue;
            }
            if (i < len && s[i] == '}') {
                i++;
                break;
            }
            return bk_error_set(err, BK_ERR_INVALID, i, "',' or '}' expected");
        }
    }
    WS();
    if (i != len) return bk_error_set(err, BK_ERR_INVALID, i, "bytes after the object");
#undef WS
    return BK_OK;
}

static int flat_find(const flat *f, const char *key, int str)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i < f->n; i++)
        if (f->m[i].kn == kl && !memcmp(f->m[i].k, key, kl)) return f->m[i].str == str ? (int)i : -2;
    return -1;
}

static bk_status flat_str(const flat *f, const char *key, char *out, size_t cap, bk_error *err)
{
    int i = flat_find(f, key, 1);
    if (i < 0) return bk_error_set(err, BK_ERR_INVALID, 0, "no string member \"%s\"", key);
    if (f->m[i].vn >= cap) return bk_error_set(err, BK_ERR_INVALID, 0, "\"%s\" too long", key);
    memcpy(out, f->m[i].v, f->m[i].vn);
    out[f->m[i].vn] = 0;
    return BK_OK;
}

static bk_status flat_int(const flat *f, const char *key, int64_t lo, int64_t *out, bk_error *err)
{
    int i = flat_find(f, key, 0);
    if (i < 0) return bk_error_set(err, BK_ERR_INVALID, 0, "no integer member \"%s\"", key);
    const char *p = f->m[i].v;
    size_t n = f->m[i].vn, j = 0;
    int neg = p[0] == '-';
    if (neg) j = 1;
    if (n - j > 19) return bk_error_set(err, BK_ERR_INVALID, 0, "\"%s\" out of range", key);
    uint64_t u = 0;
    for (; j < n; j++) u = u * 10 + (uint64_t)(p[j] - '0');
    if (u > (uint64_t)INT64_MAX) return bk_error_set(err, BK_ERR_INVALID, 0, "\"%s\" out of range", key);
    int64_t v = neg ? -(int64_t)u : (int64_t)u;
    if (v < lo) return bk_error_set(err, BK_ERR_INVALID, 0, "\"%s\" out of range", key);
    *out = v;
    return BK_OK;
}

static bk_status flat_hash(const flat *f, const char *key, int rev, uint8_t out[32], bk_error *err)
{
    char h[65];
    bk_status st = flat_str(f, key, h, sizeof h, err);
    if (st != BK_OK) return st;
    if (strlen(h) != 64 ||
        (rev ? bk_hex_decode_rev(out, h, 32, NULL) : bk_hex_decode(out, h, 32, NULL)) != BK_OK)
        return bk_error_set(err, BK_ERR_INVALID, 0, "\"%s\" is not 64 hex digits", key);
    return BK_OK;
}

static bk_status flat_enum(const flat *f, const char *key, bk_dataset *ds, bk_table_format *fmt, bk_network *net,
                           bk_error *err)
{
    char v[32];
    bk_status st = flat_str(f, key, v, sizeof v, err);
    if (st != BK_OK) return st;
    if (ds && bk_dataset_parse(v, ds) == BK_OK) return BK_OK;
    if (fmt && bk_table_format_parse(v, fmt) == BK_OK) return BK_OK;
    if (net && bk_network_parse(v, net) == BK_OK) return BK_OK;
    return bk_error_set(err, BK_ERR_INVALID, 0, "unknown \"%s\": %s", key, v);
}

/* ---- chunk names ---- */

int bk_chunk_name_split(const char *name, char *dataset, size_t cap, int64_t *first, int64_t *last,
                        bk_table_format *fmt)
{
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    bk_table_format f;
    if (bk_table_format_parse(dot + 1, &f) != BK_OK || strcmp(dot + 1, bk_table_format_ext(f)) != 0) return 0;
    /* ..._<8+ digits>_<8+ digits>.ext */
    const char *p = dot;
    int64_t v[2];
    for (int k = 1; k >= 0; k--) {
        const char *e = p;
        while (p > name && p[-1] >= '0' && p[-1] <= '9') p--;
        if (e - p < 8 || e - p > 12 || p == name || p[-1] != '_') return 0;
        int64_t x = 0;
        for (const char *q = p; q < e; q++) x = x * 10 + (*q - '0');
        v[k] = x;
        p--;
    }
    size_t n = (size_t)(p - name);
    if (n == 0 || n >= cap) return 0;
    if (v[1] < v[0]) return 0;
    memcpy(dataset, name, n);
    dataset[n] = 0;
    *first = v[0];
    *last = v[1];
    *fmt = f;
    return 1;
}

int bk_chunk_name_parse(const char *name, bk_dataset *ds, int64_t *first, int64_t *last, bk_table_format *fmt)
{
    char dn[32];
    int64_t a, b;
    bk_table_format f;
    if (!bk_chunk_name_split(name, dn, sizeof dn, &a, &b, &f)) return 0;
    bk_dataset d;
    if (bk_dataset_parse(dn, &d) != BK_OK || strcmp(bk_dataset_name(d), dn) != 0) return 0;
    *ds = d;
    *first = a;
    *last = b;
    *fmt = f;
    return 1;
}

/* ---- catalogue lines ---- */

size_t bk_catalog_line(const bk_catalog_entry *e, char *out, size_t cap)
{
    char fh[65], lh[65], cs[65], fs[65];
    bk_hex_encode_rev(fh, e->first_hash, 32);
    bk_hex_encode_rev(lh, e->last_hash, 32);
    bk_hex_encode(cs, e->chain_sha256, 32);
    bk_hex_encode(fs, e->sha256, 32);
    fh[64] = lh[64] = cs[64] = fs[64] = 0;
    const bk_network_params *np = bk_network_get(e->net);
    int n = snprintf(out, cap,
                     "{\"file\":\"%s\",\"dataset\":\"%s\",\"format\":\"%s\",\"network\":\"%s\",\"first_height\":%lld,"
                     "\"last_height\":%lld,\"first_hash\":\"%s\",\"last_hash\":\"%s\",\"chain_sha256\":\"%s\","
                     "\"rows\":%llu,\"bytes\":%llu,\"sha256\":\"%s\",\"mtime_ns\":%lld,\"schema_version\":%u,"
                     "\"blockkit\":\"%s\"}",
                     e->file, bk_dataset_name(e->dataset), bk_table_format_ext(e->format), np ? np->name : "?",
                     (long long)e->first, (long long)e->last, fh, lh, cs, (unsigned long long)e->rows,
                     (unsigned long long)e->bytes, fs, (long long)e->mtime_ns, e->schema, BK_VERSION_STRING);
    return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

bk_status bk_catalog_parse_line(const char *line, size_t len, bk_catalog_entry *e, bk_error *err)
{
    flat f;
    memset(e, 0, sizeof *e);
    bk_status st = flat_parse(line, len, &f, err);
    int64_t v;
    if (st == BK_OK) st = flat_str(&f, "file", e->file, sizeof e->file, err);
    if (st == BK_OK) st = flat_enum(&f, "dataset", &e->dataset, NULL, NULL, err);
    if (st == BK_OK) st = flat_enum(&f, "format", NULL, &e->format, NULL, err);
    if (st == BK_OK) st = flat_enum(&f, "network", NULL, NULL, &e->net, err);
    if (st == BK_OK) st = flat_int(&f, "first_height", 0, &e->first, err);
    if (st == BK_OK) st = flat_int(&f, "last_height", 0, &e->last, err);
    if (st == BK_OK) st = flat_hash(&f, "first_hash", 1, e->first_hash, err);
    if (st == BK_OK) st = flat_hash(&f, "last_hash", 1, e->last_hash, err);
    if (st == BK_OK) st = flat_hash(&f, "chain_sha256", 0, e->chain_sha256, err);
    if (st == BK_OK && (st = flat_int(&f, "rows", 0, &v, err)) == BK_OK) e->rows = (uint64_t)v;
    if (st == BK_OK && (st = flat_int(&f, "bytes", 0, &v, err)) == BK_OK) e->bytes = (uint64_t)v;
    if (st == BK_OK) st = flat_hash(&f, "sha256", 0, e->sha256, err);
    if (st == BK_OK) st = flat_int(&f, "mtime_ns", INT64_MIN + 1, &e->mtime_ns, err);
    if (st == BK_OK && (st = flat_int(&f, "schema_version", 1, &v, err)) == BK_OK) e->schema = (uint32_t)v;
    if (st != BK_OK) return st;
    if (e->last < e->first) return bk_error_set(err, BK_ERR_INVALID, 0, "last_height below first_height");
    /* the file must be the chunk the other members describe */
    bk_dataset d;
    int64_t a, b;
    bk_table_format fm;
    const char *slash = strchr(e->file, '/');
    if (!slash || strchr(slash + 1, '/') || strncmp(e->file, bk_dataset_name(e->dataset), (size_t)(slash - e->file)) ||
        !bk_chunk_name_parse(slash + 1, &d, &a, &b, &fm) || d != e->dataset || a != e->first || b != e->last ||
        fm != e->format)
        return bk_error_set(err, BK_ERR_INVALID, 0, "\"file\" %s is not the chunk the line describes", e->file);
    return BK_OK;
}

/* ---- the catalogue ---- */

void bk_catalog_free(bk_catalog *c)
{
    if (c->e) bk_free(c->alloc, c->e, c->cap * sizeof *c->e);
    c->e = NULL;
    c->n = c->cap = c->n_sorted = 0;
}

static int cmp_file_seq(const void *a, const void *b)
{
    const bk_catalog_entry *x = a, *y = b;
    int r = strcmp(x->file, y->file);
    if (r) return r;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorted by file, the latest entry of each file kept: n_sorted = n. */
static void catalog_normalize(bk_catalog *c)
{
    if (c->n) qsort(c->e, c->n, sizeof *c->e, cmp_file_seq);
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (i + 1 < c->n && !strcmp(c->e[i].file, c->e[i + 1].file)) continue; /* a later one follows */
        c->e[k++] = c->e[i];
    }
    c->n = c->n_sorted = k;
}

static bk_catalog_entry *sorted_find(const bk_catalog *c, const char *file)
{
    size_t lo = 0, hi = c->n_sorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = strcmp(c->e[mid].file, file);
        if (!r) return &c->e[mid];
        if (r < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

const bk_catalog_entry *bk_catalog_find(const bk_catalog *c, const char *file)
{
    for (size_t i = c->n; i-- > c->n_sorted;) /* the added ones, the latest first */
        if (!strcmp(c->e[i].file, file)) return &c->e[i];
    return sorted_find(c, file);
}

bk_status bk_catalog_put(bk_catalog *c, const bk_catalog_entry *e, bk_error *err)
{
    bk_catalog_entry *old = sorted_find(c, e->file);
    if (old) {
        uint64_t seq = old->seq;
        *old = *e;
        old->seq = seq;
        return BK_OK;
    }
    /* (a file added twice since the last sort: both kept, the later wins
     * in find and in bk_catalog_write) */
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 64;
        bk_catalog_entry *ne = bk_realloc(c->alloc, c->e, c->cap * sizeof *ne, nc * sizeof *ne);
        if (!ne) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (catalogue)");
        c->e = ne;
        c->cap = nc;
    }
    c->e[c->n] = *e;
    c->e[c->n++].seq = c->seq_next++;
    return BK_OK;
}

static int path_in(char *out, size_t cap, const char *out_dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s%s%s", out_dir, CATALOG_DIR, name ? "/" : "", name ? name : "");
    return n >= 0 && (size_t)n < cap;
}

/* Read a whole small file of ours (at most max bytes). 0 absent. */
static bk_status read_small(const char *path, const bk_allocator *alloc, uint64_t max, char **buf, size_t *len,
                            size_t *cap_out, int *found, bk_error *err)
{
    *buf = NULL;
    *len = 0;
    *found = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT) return BK_OK;
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return bk_error_set(err, BK_ERR_IO, 0, "%s: not a regular file", path);
    }
    if ((uint64_t)sb.st_size > max) {
        close(fd);
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: %lld bytes, more than a catalogue can be", path,
                            (long long)sb.st_size);
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *b = bk_alloc(alloc, cap);
    if (!b) {
        close(fd);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (%s)", path);
    }
    /* the file may grow or shrink meanwhile: read what is there, up to cap */
    while (n < cap - 1) {
        ssize_t r = read(fd, b + n, cap - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            bk_free(alloc, b, cap);
            return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(e));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = 0;
    *buf = b;
    *len = n;
    *cap_out = cap;
    *found = 1;
    return BK_OK;
}

/* Read a file of ours under OUT/_blockkit/ (at most max bytes; absent:
 * *found 0) and call fn for each non-empty line, numbered from 1, until
 * it returns an error. */
typedef bk_status (*line_fn)(void *ctx, const char *line, size_t len, uint64_t lineno, bk_error *err);
static bk_status each_line(const char *path, const bk_allocator *alloc, uint64_t max, int *found, line_fn fn,
                           void *ctx, bk_error *err)
{
    char *buf;
    size_t len, cap = 0;
    bk_status st = read_small(path, alloc, max, &buf, &len, &cap, found, err);
    if (st != BK_OK || !*found) return st;
    uint64_t lineno = 0;
    for (size_t i = 0; i < len && st == BK_OK;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - buf) : len;
        lineno++;
        if (end > i) st = fn(ctx, buf + i, end - i, lineno, err);
        i = end + 1;
    }
    bk_free(alloc, buf, cap);
    return st;
}

/* A catalogue line: its entry, or counted as unreadable (a torn line). */
static bk_status catalog_line(void *ctx, const char *line, size_t len, uint64_t lineno, bk_error *err)
{
    bk_catalog *c = ctx;
    bk_catalog_entry e;
    bk_error e2;
    if (bk_catalog_parse_line(line, len, &e, &e2) == BK_OK) return bk_catalog_put(c, &e, err);
    if (!c->bad_lines++) {
        c->first_bad_line = lineno;
        snprintf(c->first_bad, sizeof c->first_bad, "%s", e2.msg);
    }
    return BK_OK;
}

bk_status bk_catalog_load(bk_catalog *c, const char *out_dir, const bk_allocator *alloc, bk_error *err)
{
    memset(c, 0, sizeof *c);
    c->alloc = alloc;
    char path[4096];
    if (!path_in(path, sizeof path, out_dir, CATALOG_NAME))
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", out_dir);
    int found;
    bk_status st = each_line(path, alloc, CATALOG_MAX_BYTES, &found, catalog_line, c, err);
    if (st != BK_OK) bk_catalog_free(c);
    else catalog_normalize(c);
    return st;
}

static bk_status mkdir_meta(const char *out_dir, bk_error *err)
{
    char p[4096];
    if (!path_in(p, sizeof p, out_dir, NULL)) return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", out_dir);
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", out_dir, strerror(errno));
    if (mkdir(p, 0777) != 0 && errno != EEXIST) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", p, strerror(errno));
    return BK_OK;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

void bk_export_meta_clean(const char *out_dir)
{
    char dir[4096];
    if (!path_in(dir, sizeof dir, out_dir, NULL)) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, ".tmp-")) continue;
        char p[4096 + 256];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    closedir(d);
}

bk_status bk_catalog_append(const char *out_dir, const bk_catalog_entry *e, bk_error *err)
{
    bk_status st = mkdir_meta(out_dir, err);
    if (st != BK_OK) return st;
    char path[4096], line[1200];
    if (!path_in(path, sizeof path, out_dir, CATALOG_NAME))
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", out_dir);
    size_t n = bk_catalog_line(e, line, sizeof line - 1);
    if (!n) return bk_error_set(err, BK_ERR_ARG, 0, "catalogue line too long for %s", e->file);
    line[n++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(errno));
    /* one write: the line is whole or (after a crash) torn at the end */
    if (write_all(fd, line, n) != 0 || fsync(fd) != 0) {
        int x = errno;
        close(fd);
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(x));
    }
    if (close(fd) != 0) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(errno));
    return BK_OK;
}

/* Whether path holds exactly text[0..len). */
static int holds(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    struct stat sb;
    int same = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == len;
    char b[65536];
    for (size_t at = 0; same && at < len;) {
        size_t n = len - at < sizeof b ? len - at : sizeof b;
        ssize_t r = pread(fd, b, n, (off_t)at);
        if (r <= 0 || memcmp(b, text + at, (size_t)r) != 0) same = 0;
        else at += (size_t)r;
    }
    close(fd);
    return same;
}

/* Write name under OUT/_blockkit/ whole: temporary file, fsync, rename
 * (nothing when it holds these bytes already: a rerun that writes no
 * chunk changes no file). */
static bk_status replace_file(const char *out_dir, const char *name, const char *text, size_t len, bk_error *err)
{
    bk_status st = mkdir_meta(out_dir, err);
    if (st != BK_OK) return st;
    char path[4096], tmp[4200];
    if (!path_in(path, sizeof path, out_dir, name) ||
        snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", out_dir);
    if (holds(path, text, len)) return BK_OK;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", tmp, strerror(errno));
    if (write_all(fd, text, len) != 0 || fsync(fd) != 0) {
        int x = errno;
        close(fd);
        unlink(tmp);
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", tmp, strerror(x));
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int x = errno;
        unlink(tmp);
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", path, strerror(x));
    }
    return BK_OK;
}


bk_status bk_catalog_write(bk_catalog *c, const char *out_dir, bk_error *err)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        char p[4096 + BK_CATALOG_FILE_MAX];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", out_dir, c->e[i].file);
        if (lstat(p, &sb) == 0) c->e[k++] = c->e[i];
    }
    c->n = k;
    catalog_normalize(c);
    size_t cap = c->n * 1100 + 1;
    char *text = bk_alloc(c->alloc, cap);
    if (!text) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (catalogue)");
    size_t len = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t n = bk_catalog_line(&c->e[i], text + len, cap - len - 1);
        if (!n) {
            bk_free(c->alloc, text, cap);
            return bk_error_set(err, BK_ERR_ARG, 0, "catalogue line too long for %s", c->e[i].file);
        }
        len += n;
        text[len++] = '\n';
    }
    bk_status st = replace_file(out_dir, CATALOG_NAME, text, len, err);
    bk_free(c->alloc, text, cap);
    return st;
}

/* ---- the datasets manifest ---- */

typedef struct manifest_ctx {
    const char *path;
    bk_ds_manifest *m;
} manifest_ctx;

/* A datasets.ndjson line: one dataset's manifest, or an error naming the line. */
static bk_status manifest_line(void *ctx, const char *line, size_t len, uint64_t lineno, bk_error *err)
{
    manifest_ctx *mc = ctx;
    flat f;
    bk_error e2;
    bk_dataset ds = BK_DS_BLOCKS;
    bk_ds_manifest d;
    memset(&d, 0, sizeof d);
    char prof[16];
    bk_status s2 = flat_parse(line, len, &f, &e2);
    if (s2 == BK_OK) s2 = flat_enum(&f, "dataset", &ds, NULL, NULL, &e2);
    if (s2 == BK_OK) s2 = flat_enum(&f, "format", NULL, &d.format, NULL, &e2);
    if (s2 == BK_OK) s2 = flat_enum(&f, "network", NULL, NULL, &d.net, &e2);
    if (s2 == BK_OK) s2 = flat_int(&f, "chunk_size", 1, &d.chunk_size, &e2);
    if (s2 == BK_OK) s2 = flat_int(&f, "start_height", 0, &d.start, &e2);
    if (s2 == BK_OK) s2 = flat_int(&f, "end_height", -1, &d.end, &e2);
    if (s2 == BK_OK) s2 = flat_str(&f, "profile", prof, sizeof prof, &e2);
    if (s2 == BK_OK && bk_table_profile_parse(prof, &d.profile) != BK_OK)
        s2 = bk_error_set(&e2, BK_ERR_INVALID, 0, "unknown profile %s", prof);
    if (s2 == BK_OK) s2 = flat_str(&f, "columns", d.columns, sizeof d.columns, &e2);
    if (s2 != BK_OK)
        return bk_error_set(err, BK_ERR_INVALID, e2.offset, "%s line %llu: %s", mc->path, (unsigned long long)lineno,
                            e2.msg);
    d.present = 1;
    mc->m[ds] = d;
    return BK_OK;
}

bk_status bk_manifest_load(const char *out_dir, bk_ds_manifest m[BK_DS_COUNT_], int *found, bk_error *err)
{
    memset(m, 0, BK_DS_COUNT_ * sizeof *m);
    char path[4096];
    if (!path_in(path, sizeof path, out_dir, MANIFEST_NAME))
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", out_dir);
    manifest_ctx mc = {path, m};
    return each_line(path, NULL, (uint64_t)1 << 20, found, manifest_line, &mc, err);
}

bk_status bk_manifest_write(const char *out_dir, const bk_ds_manifest m[BK_DS_COUNT_], bk_error *err)
{
    char text[BK_DS_COUNT_ * 1400];
    size_t len = 0;
    for (int d = 0; d < BK_DS_COUNT_; d++) {
        if (!m[d].present) continue;
        const bk_network_params *np = bk_network_get(m[d].net);
        int n = snprintf(text + len, sizeof text - len,
                         "{\"dataset\":\"%s\",\"format\":\"%s\",\"network\":\"%s\",\"chunk_size\":%lld,"
                         "\"start_height\":%lld,\"end_height\":%lld,\"profile\":\"%s\",\"columns\":\"%s\","
                         "\"schema_version\":%d}\n",
                         bk_dataset_name((bk_dataset)d), bk_table_format_ext(m[d].format), np ? np->name : "?",
                         (long long)m[d].chunk_size, (long long)m[d].start, (long long)m[d].end,
                         bk_table_profile_name(m[d].profile), m[d].columns, BK_EXPORT_SCHEMA_VERSION);
        if (n < 0 || (size_t)n >= sizeof text - len) return bk_error_set(err, BK_ERR_ARG, 0, "manifest too long");
        len += (size_t)n;
    }
    return replace_file(out_dir, MANIFEST_NAME, text, len, err);
}

/* ---- provenance of one chunk ---- */

void bk_export_chain_digest(const bk_chain *c, int64_t first, int64_t last, uint8_t out[32])
{
    static const uint8_t zero[32];
    bk_sha256_ctx s;
    bk_sha256_init(&s);
    for (int64_t h = first; h <= last; h++) {
        const bk_chain_entry *e = bk_chain_at_height(c, h);
        bk_sha256_update(&s, e ? e->hash : zero, 32);
    }
    bk_sha256_final(&s, out);
}

/* The best-chain blocks at the lowest and highest heights of first..last
 * the chain has (an implied genesis, a pruned start: not every height). */
static const bk_chain_entry *range_block(const bk_chain *c, int64_t first, int64_t last, int highest)
{
    for (int64_t h = highest ? last : first; highest ? h >= first : h <= last; h += highest ? -1 : 1) {
        const bk_chain_entry *e = bk_chain_at_height(c, h);
        if (e) return e;
    }
    return NULL;
}

void bk_export_chunk_hashes(const bk_chain *c, int64_t first, int64_t last, uint8_t first_hash[32],
                            uint8_t last_hash[32], uint8_t digest[32])
{
    const bk_chain_entry *a = range_block(c, first, last, 0), *b = range_block(c, first, last, 1);
    memset(first_hash, 0, 32);
    memset(last_hash, 0, 32);
    if (a) memcpy(first_hash, a->hash, 32);
    if (b) memcpy(last_hash, b->hash, 32);
    bk_export_chain_digest(c, first, last, digest);
}

void bk_export_footer_keys(const bk_catalog_entry *e, bk_pq_kv kv[BK_EXPORT_FOOTER_KEYS], char *text, size_t cap)
{
    static const char *const keys[BK_EXPORT_FOOTER_KEYS] = {
        "blockkit.schema_version", "blockkit.version",   "blockkit.dataset",   "blockkit.network",
        "blockkit.first_height",   "blockkit.last_height", "blockkit.first_hash", "blockkit.last_hash",
        "blockkit.chain_sha256",   "blockkit.rows"};
    char v[BK_EXPORT_FOOTER_KEYS][72];
    const bk_network_params *np = bk_network_get(e->net);
    snprintf(v[0], sizeof v[0], "%u", e->schema);
    snprintf(v[1], sizeof v[1], "%s", BK_VERSION_STRING);
    snprintf(v[2], sizeof v[2], "%s", bk_dataset_name(e->dataset));
    snprintf(v[3], sizeof v[3], "%s", np ? np->name : "?");
    snprintf(v[4], sizeof v[4], "%lld", (long long)e->first);
    snprintf(v[5], sizeof v[5], "%lld", (long long)e->last);
    bk_hex_encode_rev(v[6], e->first_hash, 32);
    bk_hex_encode_rev(v[7], e->last_hash, 32);
    bk_hex_encode(v[8], e->chain_sha256, 32);
    v[6][64] = v[7][64] = v[8][64] = 0;
    snprintf(v[9], sizeof v[9], "%llu", (unsigned long long)e->rows);
    size_t at = 0;
    for (int i = 0; i < BK_EXPORT_FOOTER_KEYS; i++) {
        size_t n = strlen(v[i]) + 1;
        kv[i].key = keys[i];
        kv[i].value = NULL;
        if (at + n > cap) continue;
        memcpy(text + at, v[i], n);
        kv[i].value = text + at;
        at += n;
    }
}

const char *bk_chunk_problem_name(bk_chunk_problem p)
{
    static const char *const names[BK_CHUNK_PROBLEM_COUNT_] = {
        "ok",      "missing",    "not a regular file", "not in the catalogue", "truncated", "damaged", "foreign",
        "reorged", "beyond the tip", "partial", "outside the export's chunks", "catalogue"};
    return (unsigned)p < BK_CHUNK_PROBLEM_COUNT_ ? names[p] : "?";
}

/* pread all of n bytes at off. */
static int pread_all(int fd, uint8_t *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

/* why = the text; returns p */
static bk_chunk_problem say(char *why, size_t cap, bk_chunk_problem p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bk_chunk_problem say(char *why, size_t cap, bk_chunk_problem p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return p;
}

/* The Parquet footer's provenance against e. */
static bk_chunk_problem check_footer(int fd, uint64_t size, const bk_catalog_entry *e, int deep, char *why,
                                     size_t why_cap)
{
    uint8_t tail[8], head[4];
    bk_error e2;
    uint64_t off;
    uint32_t mlen;
    if (pread_all(fd, head, 4, 0) != 0 || pread_all(fd, tail, 8, size - 8) != 0)
        return say(why, why_cap, BK_CHUNK_DAMAGED, "cannot read: %s", strerror(errno));
    if (memcmp(head, "PAR1", 4) != 0) return say(why, why_cap, BK_CHUNK_DAMAGED, "not a Parquet file: no PAR1 at the start");
    if (bk_pq_footer_locate(tail, size, &off, &mlen, &e2) != BK_OK) return say(why, why_cap, BK_CHUNK_DAMAGED, "%s", e2.msg);
    if (mlen > ((uint32_t)64 << 20)) return say(why, why_cap, BK_CHUNK_DAMAGED, "a footer of %u bytes", mlen);
    uint8_t *m = malloc(mlen ? mlen : 1);
    if (!m) return say(why, why_cap, BK_CHUNK_DAMAGED, "out of memory reading the footer");
    bk_chunk_problem p = BK_CHUNK_OK;
    bk_pq_footer f;
    if (pread_all(fd, m, mlen, off) != 0) {
        p = say(why, why_cap, BK_CHUNK_DAMAGED, "cannot read the footer: %s", strerror(errno));
    } else if (bk_pq_footer_parse(m, mlen, &f, &e2) != BK_OK) {
        p = say(why, why_cap, BK_CHUNK_DAMAGED, "%s at footer byte %llu", e2.msg, (unsigned long long)e2.offset);
    } else {
        bk_pq_kv want[BK_EXPORT_FOOTER_KEYS];
        char text[1024];
        bk_export_footer_keys(e, want, text, sizeof text);
        for (int i = 0; i < BK_EXPORT_FOOTER_KEYS && p == BK_CHUNK_OK; i++) {
            if (i == 1) continue; /* the version that wrote it: any */
            const bk_pq_kv_view *v = bk_pq_footer_get(&f, want[i].key);
            if (!v || !v->value) {
                p = say(why, why_cap, BK_CHUNK_DAMAGED, "no %s in its footer", want[i].key);
            } else if (v->value_len != strlen(want[i].value) || memcmp(v->value, want[i].value, v->value_len)) {
                /* a footer describing other blocks: another export's file */
                p = say(why, why_cap, i >= 2 && i <= 8 ? BK_CHUNK_FOREIGN : BK_CHUNK_DAMAGED,
                        "its footer's %s is %.*s, the catalogue's %s", want[i].key,
                        (int)(v->value_len > 64 ? 64 : v->value_len), v->value, want[i].value);
            }
        }
        if (p == BK_CHUNK_OK && (f.num_rows < 0 || (uint64_t)f.num_rows != e->rows))
            p = say(why, why_cap, BK_CHUNK_DAMAGED, "%lld rows in its footer, %llu written", (long long)f.num_rows,
                                      (unsigned long long)e->rows);
        if (p == BK_CHUNK_OK && deep && f.rowgroup_rows != f.num_rows)
            p = say(why, why_cap, BK_CHUNK_DAMAGED, "its row groups hold %lld rows, its footer says %lld", (long long)f.rowgroup_rows,
                                      (long long)f.num_rows);
    }
    free(m);
    return p;
}

/* SHA-256 of the file and (text formats) its rows. */
static int hash_file(int fd, bk_table_format fmt, uint8_t out[32], uint64_t *rows, uint64_t *bytes)
{
    uint8_t *b = malloc(READ_PIECE);
    if (!b) return -1;
    bk_sha256_ctx s;
    bk_sha256_init(&s);
    uint64_t off = 0, lines = 0;
    int quoted = 0, prev_cr = 0;
    for (;;) {
        ssize_t r = pread(fd, b, READ_PIECE, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            free(b);
            return -1;
        }
        if (r == 0) break;
        bk_sha256_update(&s, b, (size_t)r);
        if (fmt == BK_TABLE_NDJSON) {
            for (const uint8_t *p = b, *e = b + r; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) lines++;
        } else if (fmt == BK_TABLE_CSV) {
            /* RFC 4180 records: CRLF outside quotes */
            for (ssize_t i = 0; i < r; i++) {
                uint8_t c = b[i];
                if (c == '"') quoted = !quoted;
                else if (c == '\n' && prev_cr && !quoted) lines++;
                prev_cr = c == '\r';
            }
        }
        off += (uint64_t)r;
    }
    free(b);
    bk_sha256_final(&s, out);
    *rows = fmt == BK_TABLE_CSV ? (lines ? lines - 1 : 0) : lines; /* CSV: less its header line */
    *bytes = off;
    return 0;
}

bk_chunk_problem bk_export_check_chunk(const char *out_dir, const bk_catalog_entry *e, const bk_chain *chain,
                                       bk_network net, int deep, char *why, size_t why_cap)
{
    char path[4096 + BK_CATALOG_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", out_dir, e->file);
    why[0] = 0;
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT) return say(why, why_cap, BK_CHUNK_MISSING, "listed in the catalogue, no such file");
        return say(why, why_cap, BK_CHUNK_DAMAGED, "%s", strerror(errno));
    }
    if (!S_ISREG(sb.st_mode))
        return say(why, why_cap, BK_CHUNK_NOT_REGULAR, "%s under a chunk's name", S_ISDIR(sb.st_mode) ? "a directory" : "not a file");
    if (e->net != net) {
        const bk_network_params *np = bk_network_get(e->net);
        return say(why, why_cap, BK_CHUNK_FOREIGN, "written from %s blocks", np ? np->name : "another network's");
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return say(why, why_cap, BK_CHUNK_DAMAGED, "cannot open: %s", strerror(errno));
    /* a Parquet footer naming other blocks says where the file came from,
     * whatever its size; otherwise a size other than written comes first */
    bk_chunk_problem p = BK_CHUNK_OK;
    if (e->format == BK_TABLE_PARQUET && sb.st_size >= 12)
        p = check_footer(fd, (uint64_t)sb.st_size, e, deep, why, why_cap);
    if (p != BK_CHUNK_FOREIGN && (uint64_t)sb.st_size != e->bytes)
        p = say(why, why_cap, (uint64_t)sb.st_size < e->bytes ? BK_CHUNK_TRUNCATED : BK_CHUNK_DAMAGED,
                "%lld bytes, %llu written", (long long)sb.st_size, (unsigned long long)e->bytes);
    int64_t mt = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    if (p == BK_CHUNK_OK && (deep || mt != e->mtime_ns)) {
        uint8_t d[32];
        uint64_t rows = 0, bytes = 0;
        if (hash_file(fd, e->format, d, &rows, &bytes) != 0) p = say(why, why_cap, BK_CHUNK_DAMAGED, "cannot read: %s", strerror(errno));
        else if (bytes != e->bytes)
            p = say(why, why_cap, BK_CHUNK_DAMAGED, "%llu bytes read, %llu written", (unsigned long long)bytes, (unsigned long long)e->bytes);
        else if (memcmp(d, e->sha256, 32) != 0)
            p = say(why, why_cap, BK_CHUNK_DAMAGED, "its bytes are not the ones written (SHA-256 differs from the catalogue's)");
        else if (deep && e->format != BK_TABLE_PARQUET && rows != e->rows)
            p = say(why, why_cap, BK_CHUNK_DAMAGED, "%llu rows, %llu written", (unsigned long long)rows, (unsigned long long)e->rows);
    }
    close(fd);
    if (p != BK_CHUNK_OK || !chain) return p;
    const bk_chain_entry *tip = bk_chain_tip(chain);
    int64_t tip_h = tip ? tip->height : -1;
    const bk_chain_entry *fe = range_block(chain, e->first, e->last, 0);
    if (!fe || memcmp(fe->hash, e->first_hash, 32) != 0) {
        char h[65];
        const bk_chain_entry *known = fe ? NULL : bk_chain_find(chain, e->first_hash);
        if (known && !known->active)
            return say(why, why_cap, BK_CHUNK_REORGED, "its blocks left the best chain (whose tip is now at height %lld)",
                       (long long)tip_h);
        if (!fe) return say(why, why_cap, BK_CHUNK_BEYOND_TIP, "heights %lld-%lld, the chain's tip is %lld", (long long)e->first, (long long)e->last,
                            (long long)tip_h);
        return say(why, why_cap, BK_CHUNK_REORGED, "its first block %s is no longer on the best chain", bk_hash_to_hex(h, e->first_hash));
    }
    if (tip_h < e->last) {
        /* its blocks up to the tip still on the chain? */
        const bk_chain_entry *le = bk_chain_find(chain, e->last_hash);
        if (le && !le->active) return say(why, why_cap, BK_CHUNK_REORGED, "its last block is no longer on the best chain");
        return say(why, why_cap, BK_CHUNK_BEYOND_TIP, "heights %lld-%lld, the chain's tip is %lld", (long long)e->first, (long long)e->last,
                   (long long)tip_h);
    }
    uint8_t d[32];
    bk_export_chain_digest(chain, e->first, e->last, d);
    if (memcmp(d, e->chain_sha256, 32) != 0) {
        const bk_chain_entry *le = range_block(chain, e->first, e->last, 1);
        if (!le || memcmp(le->hash, e->last_hash, 32) != 0)
            return say(why, why_cap, BK_CHUNK_REORGED, "its blocks from a height in %lld-%lld on are no longer on the best chain", (long long)e->first,
                       (long long)e->last);
        return say(why, why_cap, BK_CHUNK_REORGED, "a block of heights %lld-%lld is no longer on the best chain", (long long)e->first,
                   (long long)e->last);
    }
    return BK_CHUNK_OK;
}

/* ---- --verify ---- */

typedef struct vctx {
    const bk_export_verify_opts *o;
    bk_export_verify_stats *s;
} vctx;

static void problem(vctx *v, const char *file, bk_chunk_problem p, const char *why)
{
    v->s->problems++;
    v->s->problem_count[p]++;
    if (v->o->report) v->o->report(v->o->ctx, file, p, why);
}

typedef struct found_file {
    char name[BK_CATALOG_FILE_MAX];
    int64_t first, last;
    int listed;
} found_file;

typedef struct found_list {
    found_file *f;
    size_t n, cap;
} found_list;

static int found_add(found_list *l, const char *name, int64_t first, int64_t last, int listed)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        found_file *n2 = realloc(l->f, nc * sizeof *n2);
        if (!n2) return 0;
        l->f = n2;
        l->cap = nc;
    }
    found_file *x = &l->f[l->n++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->first = first;
    x->last = last;
    x->listed = listed;
    return 1;
}

static int cmp_found_name(const void *a, const void *b)
{
    return strcmp(((const found_file *)a)->name, ((const found_file *)b)->name);
}

static int cmp_found(const void *a, const void *b)
{
    const found_file *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->last < y->last ? -1 : x->last > y->last;
}

static bk_status verify_dataset(vctx *v, bk_dataset ds, const bk_ds_manifest *m, const bk_catalog *cat, bk_error *err)
{
    const bk_export_verify_opts *o = v->o;
    const char *dn = bk_dataset_name(ds);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", o->out_dir, dn);
    /* what is under chunk names in the folder, and what the catalogue lists */
    found_list fl = {NULL, 0, 0};
    bk_status st = BK_OK;
    DIR *d = opendir(dir);
    if (!d && errno != ENOENT) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", dir, strerror(errno));
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        bk_dataset fds;
        int64_t a, b;
        bk_table_format fm;
        char name[BK_CATALOG_FILE_MAX];
        if (!bk_chunk_name_parse(de->d_name, &fds, &a, &b, &fm) || fds != ds || fm != m->format) continue;
        if (snprintf(name, sizeof name, "%s/%s", dn, de->d_name) >= (int)sizeof name) continue;
        if (!found_add(&fl, name, a, b, 0)) {
            st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            break;
        }
    }
    if (d) closedir(d);
    /* the listed chunks of this dataset (a file gone from the folder counts too) */
    size_t in_dir = fl.n;
    if (in_dir) qsort(fl.f, in_dir, sizeof *fl.f, cmp_found_name);
    for (size_t i = 0; i < cat->n && st == BK_OK; i++) {
        const bk_catalog_entry *e = &cat->e[i];
        if (e->dataset != ds) continue;
        found_file key;
        memcpy(key.name, e->file, sizeof key.name);
        found_file *hit = in_dir ? bsearch(&key, fl.f, in_dir, sizeof *fl.f, cmp_found_name) : NULL;
        if (hit) hit->listed = 1;
        else if (!found_add(&fl, e->file, e->first, e->last, 1)) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    found_file *ff = fl.f;
    size_t nf = fl.n;
    if (st != BK_OK) {
        free(ff);
        return st;
    }
    if (nf) qsort(ff, nf, sizeof *ff, cmp_found);
    int64_t end = m->end;
    for (size_t j = 0; j < nf; j++)
        if (ff[j].listed && ff[j].last > end) end = ff[j].last;
    if (m->start < v->s->start || v->s->start < 0) v->s->start = m->start;
    if (end > v->s->end) v->s->end = end;
    /* each file */
    for (size_t j = 0; j < nf; j++) {
        if (o->cancel && *o->cancel) {
            free(ff);
            return bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
        }
        v->s->chunks++;
        char why[512];
        if (!ff[j].listed) {
            char p[4096 + BK_CATALOG_FILE_MAX];
            struct stat sb;
            snprintf(p, sizeof p, "%s/%s", o->out_dir, ff[j].name);
            if (lstat(p, &sb) == 0 && !S_ISREG(sb.st_mode))
                problem(v, ff[j].name, BK_CHUNK_NOT_REGULAR,
                        S_ISDIR(sb.st_mode) ? "a directory under a chunk's name" : "not a file, under a chunk's name");
            else problem(v, ff[j].name, BK_CHUNK_UNLISTED, "a file under a chunk's name that this export did not write");
            continue;
        }
        const bk_catalog_entry *e = bk_catalog_find(cat, ff[j].name);
        bk_chunk_problem p = bk_export_check_chunk(o->out_dir, e, o->chain, o->net, o->deep, why, sizeof why);
        if (o->deep || p != BK_CHUNK_OK) v->s->bytes_hashed += e->bytes;
        if (p != BK_CHUNK_OK) {
            problem(v, ff[j].name, p, why);
            continue;
        }
        /* the grid: chunk k is [max(start, kS), min(kS + S - 1, end)] */
        int64_t S = m->chunk_size;
        int64_t gfirst = e->first / S * S, glast = gfirst + S - 1;
        if (gfirst < m->start) gfirst = m->start;
        if (e->first != gfirst || e->last > glast) {
            snprintf(why, sizeof why, "heights %lld-%lld are not a chunk of %lld heights from %lld", (long long)e->first,
                     (long long)e->last, (long long)S, (long long)m->start);
            problem(v, ff[j].name, BK_CHUNK_OUTSIDE, why);
            continue;
        }
        if (e->last < glast && e->last < end) {
            snprintf(why, sizeof why, "holds heights %lld-%lld of %lld-%lld while the export goes on to %lld",
                     (long long)e->first, (long long)e->last, (long long)gfirst, (long long)glast, (long long)end);
            problem(v, ff[j].name, BK_CHUNK_PARTIAL, why);
            continue;
        }
        v->s->files_ok++;
    }
    if (end < m->start) {
        char why[160];
        snprintf(why, sizeof why, "no chunk of this dataset was written (an export begun at height %lld)", (long long)m->start);
        problem(v, dn, BK_CHUNK_MISSING, why);
    }
    /* heights no chunk of the grid holds */
    int64_t S = m->chunk_size;
    for (int64_t first = m->start; end >= 0 && first <= end;) {
        int64_t glast = first / S * S + S - 1, last = glast < end ? glast : end;
        int have = 0;
        for (size_t j = 0; j < nf && !have; j++)
            if (ff[j].first == first) have = 1;
        if (!have) {
            char name[BK_CATALOG_FILE_MAX], why[160];
            snprintf(name, sizeof name, "%s/%s_%08lld_%08lld.%s", dn, dn, (long long)first, (long long)last,
                     bk_table_format_ext(m->format));
            snprintf(why, sizeof why, "no chunk holds heights %lld-%lld", (long long)first, (long long)last);
            problem(v, name, BK_CHUNK_MISSING, why);
        }
        first = glast + 1;
    }
    free(ff);
    return BK_OK;
}

bk_status bk_export_verify(const bk_export_verify_opts *o, bk_export_verify_stats *stats, bk_error *err)
{
    bk_export_verify_stats s;
    memset(&s, 0, sizeof s);
    s.start = -1;
    s.end = -1;
    s.tip_height = -1;
    if (stats) *stats = s;
    if (!o || !o->out_dir || !o->chain) return bk_error_set(err, BK_ERR_ARG, 0, "verify: bad options");
    const bk_chain_entry *tip = bk_chain_tip(o->chain);
    s.tip_height = tip ? tip->height : -1;
    bk_ds_manifest m[BK_DS_COUNT_];
    int found = 0;
    bk_status st = bk_manifest_load(o->out_dir, m, &found, err);
    if (st != BK_OK) return st;
    if (!found)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s is not a blockkit export (no %s/%s)", o->out_dir, CATALOG_DIR,
                            MANIFEST_NAME);
    bk_catalog cat;
    if ((st = bk_catalog_load(&cat, o->out_dir, o->alloc, err)) != BK_OK) return st;
    vctx v = {o, &s};
    if (cat.bad_lines) {
        char why[BK_ERROR_MSG_MAX + 128];
        snprintf(why, sizeof why, "%llu line(s) that cannot be read, the first (line %llu): %s",
                 (unsigned long long)cat.bad_lines, (unsigned long long)cat.first_bad_line, cat.first_bad);
        problem(&v, CATALOG_DIR "/" CATALOG_NAME, BK_CHUNK_CATALOGUE, why);
    }
    for (int d = 0; d < BK_DS_COUNT_ && st == BK_OK; d++) {
        if (!m[d].present) continue;
        s.datasets++;
        if (m[d].net != o->net) {
            const bk_network_params *np = bk_network_get(m[d].net), *nq = bk_network_get(o->net);
            char why[160];
            snprintf(why, sizeof why, "the export holds %s blocks, the chain is %s", np ? np->name : "?",
                     nq ? nq->name : "?");
            problem(&v, bk_dataset_name((bk_dataset)d), BK_CHUNK_FOREIGN, why);
            continue;
        }
        st = verify_dataset(&v, (bk_dataset)d, &m[d], &cat, err);
    }
    bk_catalog_free(&cat);
    if (stats) *stats = s;
    return st;
}
