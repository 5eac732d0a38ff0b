/* One row sink, three formats (blockkit/table.h), and chunk files written
 * under a temporary name and renamed when complete. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <blockkit/hex.h>
#include <blockkit/sha256.h>
#include <blockkit/table.h>

#include "parquet/writer_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* bk_writer_put that accepts nothing to write (NULL, 0). */
static inline void put_n(bk_writer *w, const void *p, size_t n)
{
    if (n) bk_writer_put(w, p, n);
}

bk_status bk_table_format_parse(const char *name, bk_table_format *out)
{
    if (!name || !out) return BK_ERR_ARG;
    if (!strcmp(name, "parquet")) *out = BK_TABLE_PARQUET;
    else if (!strcmp(name, "csv")) *out = BK_TABLE_CSV;
    else if (!strcmp(name, "ndjson") || !strcmp(name, "json")) *out = BK_TABLE_NDJSON;
    else return BK_ERR_ARG;
    return BK_OK;
}

const char *bk_table_format_ext(bk_table_format f)
{
    return f == BK_TABLE_CSV ? "csv" : f == BK_TABLE_NDJSON ? "ndjson" : "parquet";
}

static void tfail(bk_table_writer *t, bk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void tfail(bk_table_writer *t, bk_status st, const char *fmt, ...)
{
    if (t->status != BK_OK) return;
    t->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
}

static bk_status treport(bk_table_writer *t, bk_error *err)
{
    if (t->status == BK_OK) {
        bk_status ws = bk_writer_status(&t->out);
        if (ws == BK_OK) ws = bk_writer_status(&t->tmp);
        if (ws == BK_OK) ws = bk_writer_status(&t->lst);
        if (ws != BK_OK) tfail(t, ws, ws == BK_ERR_IO ? "writing the output failed" : "out of memory");
    }
    if (t->status == BK_OK) return BK_OK;
    return bk_error_set(err, t->status, t->rows, "%s", t->msg);
}

/* Text formats: count what reaches the caller's sink. */
static int count_sink(void *ctx, const uint8_t *p, size_t n)
{
    bk_table_writer *t = ctx;
    if (t->sink(t->sink_ctx, p, n) != 0) return -1;
    t->text_bytes += n;
    return 0;
}

bk_status bk_table_open(bk_table_writer *t, bk_table_format format, const bk_pq_column *cols, size_t ncols,
                        const bk_pq_opts *pq, bk_sink_fn sink, void *ctx, const bk_allocator *alloc,
                        bk_error *err)
{
    if (!t || !cols || !ncols || !sink || format >= BK_TABLE_FORMAT_COUNT_)
        return bk_error_set(err, BK_ERR_ARG, 0, "table: bad arguments");
    memset(t, 0, sizeof *t);
    t->format = format;
    t->cols = cols;
    t->ncols = ncols;
    t->in_list = SIZE_MAX;
    bk_writer_init(&t->tmp, alloc);
    bk_writer_init(&t->lst, alloc);
    if (format == BK_TABLE_PARQUET) {
        bk_writer_init(&t->out, alloc);
        return bk_pq_writer_new(&t->pq, cols, ncols, pq, sink, ctx, alloc, err);
    }
    t->sink = sink;
    t->sink_ctx = ctx;
    bk_writer_init_sink(&t->out, alloc, count_sink, t, (size_t)1 << 20);
    if (format == BK_TABLE_CSV) {
        for (size_t i = 0; i < ncols; i++) {
            if (i) bk_writer_putc(&t->out, ',');
            bk_writer_puts(&t->out, cols[i].name);
        }
        put_n(&t->out, "\r\n", 2);
    }
    return treport(t, err);
}

bk_status bk_table_reopen(bk_table_writer *t, bk_sink_fn sink, void *ctx, bk_error *err)
{
    if (!t || !sink) return bk_error_set(err, BK_ERR_ARG, 0, "table: bad arguments");
    t->next = 0;
    t->in_list = SIZE_MAX;
    t->list_items = 0;
    t->rows = 0;
    t->text_bytes = 0;
    t->status = BK_OK;
    t->msg[0] = 0;
    t->ts_valid = 0;
    bk_writer_reset(&t->tmp);
    bk_writer_reset(&t->lst);
    if (t->pq) return bk_pq_writer_reset(t->pq, sink, ctx, err);
    t->sink = sink;
    t->sink_ctx = ctx;
    bk_writer_reset(&t->out); /* (a finished writer holds nothing unflushed) */
    if (t->format == BK_TABLE_CSV) {
        for (size_t i = 0; i < t->ncols; i++) {
            if (i) bk_writer_putc(&t->out, ',');
            bk_writer_puts(&t->out, t->cols[i].name);
        }
        put_n(&t->out, "\r\n", 2);
    }
    return treport(t, err);
}

void bk_table_close(bk_table_writer *t)
{
    if (!t) return;
    bk_pq_writer_free(t->pq);
    t->pq = NULL;
    bk_writer_free(&t->out);
    bk_writer_free(&t->tmp);
    bk_writer_free(&t->lst);
}

uint64_t bk_table_bytes(const bk_table_writer *t)
{
    return t->pq ? bk_pq_bytes(t->pq) : t->text_bytes;
}

/* ---- text rendering ---- */

/* JSON string escaping (RFC 8259): quote, backslash, control characters. */
static void json_escaped(bk_writer *w, const char *s, size_t n)
{
    static const char hexd[] = "0123456789abcdef";
    bk_writer_putc(w, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put_n(w, s + run, i - run);
        run = i + 1;
        char e[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15]};
        if (c == '"' || c == '\\') {
            e[1] = (char)c;
            put_n(w, e, 2);
        } else if (c == '\n') {
            put_n(w, "\\n", 2);
        } else if (c == '\t') {
            put_n(w, "\\t", 2);
        } else if (c == '\r') {
            put_n(w, "\\r", 2);
        } else {
            put_n(w, e, 6);
        }
    }
    put_n(w, s + run, n - run);
    bk_writer_putc(w, '"');
}

static void csv_field(bk_writer *w, const char *s, size_t n)
{
    /* memchr is vectorized: four passes beat one byte loop */
    int quote = n == 0 || memchr(s, ',', n) || memchr(s, '"', n) || memchr(s, '\n', n) || memchr(s, '\r', n);
    if (!quote) {
        put_n(w, s, n);
        return;
    }
    bk_writer_putc(w, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '"') continue;
        put_n(w, s + run, i + 1 - run);
        bk_writer_putc(w, '"');
        run = i + 1;
    }
    put_n(w, s + run, n - run);
    bk_writer_putc(w, '"');
}

/* Howard Hinnant's civil_from_days, for "YYYY-MM-DD HH:MM:SS[.f]" UTC. */
static size_t format_ts(char *out, int64_t v, int micros)
{
    int64_t unit = micros ? 1000000 : 1000;
    int64_t secs = v / unit, frac = v % unit;
    if (frac < 0) {
        frac += unit;
        secs--;
    }
    int64_t days = secs / 86400, sod = secs % 86400;
    if (sod < 0) {
        sod += 86400;
        days--;
    }
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y++;
    int n = snprintf(out, 64, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", (long long)y, (long long)m, (long long)d,
                     (long long)(sod / 3600), (long long)(sod / 60 % 60), (long long)(sod % 60));
    if (frac) n += snprintf(out + n, 64 - (size_t)n, micros ? ".%06lld" : ".%03lld", (long long)frac);
    return (size_t)n;
}

/* Start a text value of column col: checks order, writes the separator
 * and (NDJSON) the key. Returns the writer to put the value into: the
 * output, or the open list's text. NULL on misuse. */
static bk_writer *text_begin(bk_table_writer *t, size_t col)
{
    if (t->in_list != SIZE_MAX) {
        if (col != t->in_list) {
            tfail(t, BK_ERR_ARG, "table: column %zu inside the list of column %s", col, t->cols[t->in_list].name);
            return NULL;
        }
        if (t->list_items++) bk_writer_putc(&t->lst, ',');
        return &t->lst;
    }
    if (col != t->next) {
        tfail(t, BK_ERR_ARG, "table: column %zu given out of order (%zu expected)", col, t->next);
        return NULL;
    }
    if (t->format == BK_TABLE_CSV) {
        if (col) bk_writer_putc(&t->out, ',');
    } else {
        bk_writer_putc(&t->out, col ? ',' : '{');
        json_escaped(&t->out, t->cols[col].name, strlen(t->cols[col].name));
        bk_writer_putc(&t->out, ':');
    }
    t->next++;
    return &t->out;
}

static int check_col(bk_table_writer *t, size_t col)
{
    if (t->status != BK_OK) return 0;
    if (col >= t->ncols) {
        tfail(t, BK_ERR_ARG, "table: no column %zu", col);
        return 0;
    }
    return 1;
}

void bk_table_column_types(const bk_pq_column *c, char *parquet, size_t pcap, char *sql, size_t scap)
{
    const char *pt, *st;
    switch (c->type) {
    case BK_PQ_BOOLEAN: pt = "BOOLEAN", st = "BOOLEAN"; break;
    case BK_PQ_INT32: pt = "INT32", st = "INTEGER"; break;
    case BK_PQ_INT64: pt = "INT64", st = "BIGINT"; break;
    case BK_PQ_STRING: pt = "BYTE_ARRAY (STRING)", st = "VARCHAR"; break;
    case BK_PQ_TIMESTAMP_MILLIS: pt = "INT64 (TIMESTAMP(MILLIS,UTC))", st = "TIMESTAMP WITH TIME ZONE"; break;
    case BK_PQ_TIMESTAMP_MICROS: pt = "INT64 (TIMESTAMP(MICROS,UTC))", st = "TIMESTAMP WITH TIME ZONE"; break;
    case BK_PQ_BYTES: pt = "BYTE_ARRAY", st = "BLOB"; break;
    case BK_PQ_FIXED32: pt = "FIXED_LEN_BYTE_ARRAY(32)", st = "BLOB"; break;
    default: pt = st = "?"; break;
    }
    if (c->flags & BK_PQ_LIST) {
        snprintf(parquet, pcap, "LIST<%s>", pt);
        snprintf(sql, scap, "%s[]", st);
    } else {
        snprintf(parquet, pcap, "%s", pt);
        snprintf(sql, scap, "%s", st);
    }
}

void bk_table_set_columns(bk_table_writer *t, const int16_t *map, size_t nmap)
{
    t->map = map;
    t->nmap = map ? nmap : 0;
}

/* The caller's column (its dataset's full schema) as this writer's, or
 * SIZE_MAX when the selection dropped it (the value is then ignored). */
static inline size_t tcol(const bk_table_writer *t, size_t col) { return bk_table_col_(t, col); }
#define TCOL(t, col)                         \
    do {                                     \
        if ((t)->map) {                      \
            (col) = tcol((t), (col));        \
            if ((col) == SIZE_MAX) return;   \
        }                                    \
    } while (0)

int bk_table_wants(const bk_table_writer *t, size_t col) { return tcol(t, col) != SIZE_MAX; }

/* Parquet: straight to the writer, which checks order and types itself. */
void bk_table_null(bk_table_writer *t, size_t col)
{
    TCOL(t, col);
    if (t->pq) {
        bk_pq_null(t->pq, col);
        return;
    }
    if (!check_col(t, col)) return;
    if (!(t->cols[col].flags & BK_PQ_OPTIONAL) || t->in_list != SIZE_MAX) {
        tfail(t, BK_ERR_ARG, "table: null for required column %s", t->cols[col].name);
        return;
    }
    bk_writer *w = text_begin(t, col);
    if (w && t->format == BK_TABLE_NDJSON) put_n(w, "null", 4);
}

void bk_table_bool(bk_table_writer *t, size_t col, int v)
{
    TCOL(t, col);
    if (t->pq) {
        bk_pq_bool(t->pq, col, v);
        return;
    }
    if (!check_col(t, col)) return;
    bk_writer *w = text_begin(t, col);
    if (w) bk_writer_puts(w, v ? "true" : "false");
}

void bk_table_int(bk_table_writer *t, size_t col, int64_t v)
{
    TCOL(t, col);
    if (t->pq) {
        if (col < t->ncols && t->cols[col].type == BK_PQ_INT32) bk_pq_i32(t->pq, col, (int32_t)v);
        else bk_pq_i64(t->pq, col, v);
        return;
    }
    if (!check_col(t, col)) return;
    bk_pq_type ty = t->cols[col].type;
    bk_writer *w = text_begin(t, col);
    if (!w) return;
    char buf[64];
    size_t n;
    if (ty == BK_PQ_TIMESTAMP_MICROS || ty == BK_PQ_TIMESTAMP_MILLIS) {
        /* one block's rows repeat its time: keep the last text */
        if (t->ts_valid && t->ts_value == v && t->ts_type == (int)ty) {
            n = t->ts_len;
            memcpy(buf + 1, t->ts_text, n);
        } else {
            n = format_ts(buf + 1, v, ty == BK_PQ_TIMESTAMP_MICROS);
            memcpy(t->ts_text, buf + 1, n);
            t->ts_len = n;
            t->ts_value = v;
            t->ts_type = (int)ty;
            t->ts_valid = 1;
        }
        if (t->format == BK_TABLE_NDJSON || w == &t->lst) {
            buf[0] = '"';
            buf[n + 1] = '"';
            put_n(w, buf, n + 2);
        } else {
            put_n(w, buf + 1, n);
        }
        return;
    }
    /* decimal, without snprintf (the text formats' hot path) */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *e = buf + sizeof buf, *q = e;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--q = '-';
    put_n(w, q, (size_t)(e - q));
}

void bk_table_str(bk_table_writer *t, size_t col, const char *s, size_t len)
{
    TCOL(t, col);
    if (t->pq) {
        bk_pq_str(t->pq, col, s, len);
        return;
    }
    if (!check_col(t, col)) return;
    bk_writer *w = text_begin(t, col);
    if (!w) return;
    if (t->format == BK_TABLE_NDJSON || w == &t->lst) json_escaped(w, s, len);
    else csv_field(w, s, len);
}

void bk_table_hex(bk_table_writer *t, size_t col, const uint8_t *p, size_t n, int rev)
{
    TCOL(t, col);
    if (t->pq) {
        /* the bytes themselves in a binary column (--profile lean), else
         * their hex into the page buffer (or the dictionary's scratch) */
        bk_pq_type ty = col < t->ncols ? t->cols[col].type : BK_PQ_STRING;
        if (ty == BK_PQ_BYTES && !rev) {
            if (!bk_pq_str_short_(t->pq, col, (const char *)p, n)) bk_pq_bin(t->pq, col, p, n, 0);
        } else if (ty == BK_PQ_BYTES || ty == BK_PQ_FIXED32) {
            bk_pq_bin(t->pq, col, p, n, rev);
        } else {
            bk_pq_hex(t->pq, col, p, n, rev);
        }
        return;
    }
    if (!check_col(t, col)) return;
    if (n == 0) {
        /* the empty string, which CSV quotes */
        bk_table_str(t, col, "", 0);
        return;
    }
    bk_writer *w = text_begin(t, col);
    if (!w) return;
    int q = t->format == BK_TABLE_NDJSON || w == &t->lst;
    if (q) bk_writer_putc(w, '"');
    if (rev) bk_writer_put_hex_rev(w, p, n);
    else bk_writer_put_hex(w, p, n);
    if (q) bk_writer_putc(w, '"');
}

void bk_table_tmp_str(bk_table_writer *t, size_t col)
{
    TCOL(t, col);
    if (bk_writer_status(&t->tmp) != BK_OK) {
        tfail(t, BK_ERR_NOMEM, "table: out of memory");
        return;
    }
    bk_table_str(t, col, t->tmp.len ? (const char *)t->tmp.data : "", t->tmp.len);
}

bk_writer *bk_table_str_open(bk_table_writer *t, size_t col)
{
    if (t->map && tcol(t, col) == SIZE_MAX) return bk_table_tmp(t); /* dropped: written and ignored */
    if (t->pq) return bk_pq_str_open(t->pq, tcol(t, col));
    return bk_table_tmp(t);
}

void bk_table_str_close(bk_table_writer *t, size_t col)
{
    if (t->pq) {
        TCOL(t, col);
        bk_pq_str_close(t->pq, col);
    } else {
        bk_table_tmp_str(t, col);
    }
}

void bk_table_list_begin(bk_table_writer *t, size_t col)
{
    TCOL(t, col);
    if (t->pq) {
        bk_pq_list_begin(t->pq, col);
        return;
    }
    if (!check_col(t, col)) return;
    if (!(t->cols[col].flags & BK_PQ_LIST) || t->in_list != SIZE_MAX || col != t->next) {
        tfail(t, BK_ERR_ARG, "table: list for column %zu: not a list, not next, or inside a list", col);
        return;
    }
    t->in_list = col;
    t->list_items = 0;
    bk_writer_reset(&t->lst);
    bk_writer_putc(&t->lst, '[');
}

void bk_table_list_end(bk_table_writer *t, size_t col)
{
    TCOL(t, col);
    if (t->pq) {
        bk_pq_list_end(t->pq, col);
        return;
    }
    if (!check_col(t, col)) return;
    if (t->in_list != col) {
        tfail(t, BK_ERR_ARG, "table: end of a list for column %zu that is not open", col);
        return;
    }
    bk_writer_putc(&t->lst, ']');
    t->in_list = SIZE_MAX;
    bk_writer *w = text_begin(t, col);
    if (!w) return;
    if (t->format == BK_TABLE_NDJSON) put_n(w, t->lst.data, t->lst.len);
    else csv_field(w, (const char *)t->lst.data, t->lst.len);
}

bk_status bk_table_end_row(bk_table_writer *t, bk_error *err)
{
    if (t->status != BK_OK) return treport(t, err);
    if (t->pq) {
        bk_status st = bk_pq_end_row(t->pq, err);
        if (st == BK_OK) t->rows++;
        return st;
    }
    if (t->next != t->ncols || t->in_list != SIZE_MAX)
        tfail(t, BK_ERR_ARG, "table: row ended at column %zu of %zu", t->next, t->ncols);
    if (t->format == BK_TABLE_CSV) put_n(&t->out, "\r\n", 2);
    else put_n(&t->out, "}\n", 2);
    t->next = 0;
    t->rows++;
    /* (the sink writer flushes itself as it passes its chunk size) */
    return treport(t, err);
}

void bk_table_set_metadata(bk_table_writer *t, const bk_pq_kv *kv, size_t n)
{
    if (t->pq) bk_pq_set_metadata(t->pq, kv, n);
}

bk_status bk_table_finish(bk_table_writer *t, bk_error *err)
{
    if (t->status != BK_OK) return treport(t, err);
    if (t->pq) return bk_pq_finish(t->pq, err);
    if (t->next) tfail(t, BK_ERR_ARG, "table: finish inside a row");
    if (bk_writer_flush(&t->out) != BK_OK) tfail(t, BK_ERR_IO, "writing the output failed");
    return treport(t, err);
}

/* ---- chunk files ---- */

bk_status bk_chunk_path(char *out, size_t cap, const char *dir, const char *dataset, int64_t first, int64_t last,
                        const char *ext)
{
    int n = snprintf(out, cap, "%s/%s/%s_%08lld_%08lld.%s", dir, dataset, dataset, (long long)first,
                     (long long)last, ext);
    return n < 0 || (size_t)n >= cap ? BK_ERR_BUFFER : BK_OK;
}

static int fd_sink(void *ctx, const uint8_t *p, size_t n)
{
    bk_chunk_file *f = ctx;
    bk_sha256_update(&f->digest, p, n);
    f->size += n;
    while (n) {
        ssize_t r = write(f->fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            f->failed = 1;
            f->err_no = r < 0 ? errno : EIO;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

#define DIRECT_ALIGN ((size_t)4096)

/* The rest of the file written the usual way (the last, partial piece; or
 * a filesystem that refuses a direct write). */
static void fd_drop_direct(int fd)
{
#ifdef O_DIRECT
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1) (void)fcntl(fd, F_SETFL, fl & ~O_DIRECT);
#else
    (void)fd;
#endif
}

/* Write p[0..n) to fd, O_DIRECT while *direct: a piece that is not whole
 * 4 KiB blocks, a short write or an alignment the filesystem refuses drop
 * it for the rest of the file. 0, or the errno of a failure. */
static int write_piece(int fd, int *direct, const uint8_t *p, size_t n)
{
    if (*direct && n % DIRECT_ALIGN) {
        fd_drop_direct(fd);
        *direct = 0;
    }
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == EINVAL && *direct) {
            fd_drop_direct(fd);
            *direct = 0;
            continue;
        }
        if (r <= 0) return r < 0 ? errno : EIO;
        if ((size_t)r < n && *direct) {
            /* short: the rest the usual way */
            fd_drop_direct(fd);
            *direct = 0;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The writer thread of an O_DIRECT chunk file: a direct write returns when
 * the device has the bytes, so the file's full buffers are written here
 * while the row code fills the other one (the device's time overlaps the
 * CPU's; the SHA-256 stays with the caller, in order). One buffer at a
 * time: the caller waits for the previous write before it hands over the
 * next, and touches fd only when no write is under way. */
typedef struct bk_chunk_io {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    int direct;      /* the thread's view of O_DIRECT on fd */
    const uint8_t *p;
    size_t n;
    int busy, quit;
    int err_no;      /* of the first failed write */
    const bk_allocator *alloc;
} bk_chunk_io;

static void *io_main(void *arg)
{
    bk_chunk_io *io = arg;
    pthread_mutex_lock(&io->mu);
    for (;;) {
        while (!io->busy && !io->quit) pthread_cond_wait(&io->cv, &io->mu);
        if (!io->busy) break;
        const uint8_t *p = io->p;
        size_t n = io->n;
        int direct = io->direct, failed = io->err_no;
        pthread_mutex_unlock(&io->mu);
        int e = failed ? 0 : write_piece(io->fd, &direct, p, n);
        pthread_mutex_lock(&io->mu);
        io->direct = direct;
        if (e && !io->err_no) io->err_no = e;
        io->busy = 0;
        pthread_cond_broadcast(&io->cv);
    }
    pthread_mutex_unlock(&io->mu);
    return NULL;
}

/* Start the writer thread of f (O_DIRECT, both buffers ready); without one
 * (no memory, no thread) the file is written from the caller's thread. */
static void io_start(bk_chunk_file *f, const bk_allocator *alloc)
{
    bk_chunk_io *io = bk_alloc(alloc, sizeof *io);
    if (!io) return;
    memset(io, 0, sizeof *io);
    io->fd = f->fd;
    io->direct = 1;
    io->alloc = alloc;
    if (pthread_mutex_init(&io->mu, NULL) != 0) {
        bk_free(alloc, io, sizeof *io);
        return;
    }
    if (pthread_cond_init(&io->cv, NULL) != 0) {
        pthread_mutex_destroy(&io->mu);
        bk_free(alloc, io, sizeof *io);
        return;
    }
    if (pthread_create(&io->th, NULL, io_main, io) != 0) {
        pthread_cond_destroy(&io->cv);
        pthread_mutex_destroy(&io->mu);
        bk_free(alloc, io, sizeof *io);
        return;
    }
    f->io = io;
}

/* Wait for the write under way; its failure and a dropped O_DIRECT become f's. */
static int io_wait(bk_chunk_file *f)
{
    bk_chunk_io *io = f->io;
    pthread_mutex_lock(&io->mu);
    while (io->busy) pthread_cond_wait(&io->cv, &io->mu);
    if (!io->direct) f->direct = 0;
    if (io->err_no && !f->failed) {
        f->failed = 1;
        f->err_no = io->err_no;
    }
    pthread_mutex_unlock(&io->mu);
    return f->failed ? -1 : 0;
}

/* Wait for the last write and end the thread; fd is the caller's again. */
static int io_stop(bk_chunk_file *f)
{
    if (!f->io) return f->failed ? -1 : 0;
    int r = io_wait(f);
    bk_chunk_io *io = f->io;
    pthread_mutex_lock(&io->mu);
    io->quit = 1;
    pthread_cond_broadcast(&io->cv);
    pthread_mutex_unlock(&io->mu);
    pthread_join(io->th, NULL);
    pthread_cond_destroy(&io->cv);
    pthread_mutex_destroy(&io->mu);
    bk_free(io->alloc, io, sizeof *io);
    f->io = NULL;
    return r;
}

/* Write the buffer out (a whole wcap while direct, or at the end): handed
 * to the writer thread, which writes it while wb2 becomes the buffer to
 * fill; or written here. */
static int flush_buf(bk_chunk_file *f)
{
    size_t n = f->wlen;
    f->wlen = 0;
    bk_sha256_update(&f->digest, f->wb, n);
    f->size += n;
    if (f->io) {
        if (io_wait(f)) return -1;
        bk_chunk_io *io = f->io;
        pthread_mutex_lock(&io->mu);
        io->p = f->wb;
        io->n = n;
        io->busy = 1;
        pthread_cond_broadcast(&io->cv);
        pthread_mutex_unlock(&io->mu);
        uint8_t *t = f->wb;
        f->wb = f->wb2;
        f->wb2 = t;
        return 0;
    }
    int e = write_piece(f->fd, &f->direct, f->wb, n);
    if (e) {
        f->failed = 1;
        f->err_no = e;
        return -1;
    }
    return 0;
}

/* Table writers hand bytes to this sink; a 1 MiB buffer in front of fd
 * (large pieces go straight to a file that is not O_DIRECT). */
static int buf_sink(void *ctx, const uint8_t *p, size_t n)
{
    bk_chunk_file *f = ctx;
    if (!f->direct && f->wlen + n > f->wcap && f->wlen && flush_buf(f)) return -1;
    if (!f->direct && n >= f->wcap) return (f->io && io_wait(f)) ? -1 : fd_sink(f, p, n);
    while (n) {
        size_t m = f->wcap - f->wlen;
        if (m > n) m = n;
        memcpy(f->wb + f->wlen, p, m);
        f->wlen += m;
        p += m;
        n -= m;
        if (f->wlen == f->wcap && flush_buf(f)) return -1;
    }
    return 0;
}

static int same_pq_opts(const bk_pq_opts *a, const bk_pq_opts *b)
{
    bk_pq_opts d;
    if (!a || !b) {
        bk_pq_opts_init(&d);
        if (!a) a = &d;
        if (!b) b = &d;
    }
    return a->codec == b->codec && a->zstd_level == b->zstd_level && a->page_size == b->page_size &&
           a->row_group_size == b->row_group_size && a->dict_max_bytes == b->dict_max_bytes &&
           a->created_by == b->created_by;
}

size_t bk_tmp_sweep_stale(const char *path)
{
    char dir[BK_CHUNK_PATH_MAX];
    if (!path || strlen(path) >= sizeof dir) return 0;
    memcpy(dir, path, strlen(path) + 1);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : dir;
    if (slash == dir) dir[1] = 0, name = path + 1;
    else if (slash) *slash = 0;
    size_t nlen = strlen(name);
    if (!nlen) return 0;
    DIR *d = opendir(slash ? dir : ".");
    if (!d) return 0;
    size_t removed = 0;
    long self = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, name, nlen) != 0 || strncmp(n + nlen, ".tmp-", 5) != 0) continue;
        const char *q = n + nlen + 5;
        long pid = 0;
        int digits = 0;
        for (; *q >= '0' && *q <= '9' && pid < 100000000; q++, digits++) pid = pid * 10 + (*q - '0');
        if (*q || !digits || pid <= 0 || pid == self) continue;
        /* a live process (or one of another user: EPERM) keeps its file */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char p[BK_CHUNK_PATH_MAX + 300];
        snprintf(p, sizeof p, "%s/%s", slash ? dir : ".", n);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && unlink(p) == 0) removed++;
    }
    closedir(d);
    return removed;
}

/* The open of both entry points: final name path, and (for a chunk of an
 * export) the directories to create first, dir and then sub. An error
 * before the file is opened leaves f as it was (a kept writer stays for
 * bk_chunk_file_release). */
static bk_status chunk_file_open_at(bk_chunk_file *f, const char *path, const char *dir, const char *sub,
                                    bk_table_format format, const bk_pq_column *cols, size_t ncols,
                                    const bk_pq_opts *pq, const bk_allocator *alloc, bk_error *err)
{
    char tmp[BK_CHUNK_PATH_MAX];
    if (strlen(path) >= BK_CHUNK_PATH_MAX ||
        snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long: %s", path);
    if (!dir) (void)bk_tmp_sweep_stale(path); /* one file of the caller's naming: what killed runs left */
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST)
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", dir, strerror(errno));
    if (sub && mkdir(sub, 0777) != 0 && errno != EEXIST)
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", sub, strerror(errno));
    /* What a committed chunk of the same shape left: its table writer and
     * write buffer, reused (bk_table_reopen) with their grown buffers. */
    int reuse = f->kept && f->table.format == format && f->table.cols == cols && f->table.ncols == ncols &&
                f->kept_alloc == alloc && same_pq_opts(&f->kept_pq, pq);
    if (f->kept && !reuse) bk_chunk_file_release(f);
    bk_table_writer keep_table;
    bk_writer keep_buf, keep_buf2;
    if (reuse) {
        keep_table = f->table;
        keep_buf = f->buf;
        keep_buf2 = f->buf2;
    }
    memset(f, 0, sizeof *f);
    f->fd = -1;
    bk_sha256_init(&f->digest);
    f->chunk_named = dir != NULL;
    memcpy(f->path, path, strlen(path) + 1);
    memcpy(f->tmp_path, tmp, strlen(tmp) + 1);
    if (reuse) {
        /* the same address: the text formats' sink context is the table itself */
        f->table = keep_table;
        f->buf = keep_buf;
        f->buf2 = keep_buf2;
        bk_writer_reset(&f->buf);
        bk_writer_reset(&f->buf2);
    } else {
        bk_writer_init(&f->buf, alloc);
        bk_writer_init(&f->buf2, alloc);
    }
    f->kept_alloc = alloc;
    if (pq) f->kept_pq = *pq;
    else bk_pq_opts_init(&f->kept_pq);
#ifdef O_DIRECT
    f->fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0666);
    f->direct = f->fd >= 0;
    if (f->fd < 0 && errno == EINVAL) /* a filesystem without O_DIRECT (tmpfs) */
#endif
        f->fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (f->fd < 0) {
        if (reuse) bk_table_close(&f->table);
        bk_writer_free(&f->buf);
        bk_writer_free(&f->buf2);
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", f->tmp_path, strerror(errno));
    }
    if (bk_writer_reserve(&f->buf, BK_CHUNK_BUF) != BK_OK) {
        if (!reuse) memset(&f->table, 0, sizeof f->table);
        bk_chunk_file_abort(f);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    /* the aligned whole 4 KiB blocks of the storage (1 MiB, or 4 KiB less) */
    size_t skip = (DIRECT_ALIGN - (uintptr_t)f->buf.data % DIRECT_ALIGN) % DIRECT_ALIGN;
    f->wb = f->buf.data + skip;
    f->wcap = (f->buf.cap - skip) / DIRECT_ALIGN * DIRECT_ALIGN;
    if (f->wcap > BK_CHUNK_BUF) f->wcap = BK_CHUNK_BUF;
    f->wlen = 0;
    /* O_DIRECT: a second buffer and the thread that writes the full ones */
    if (f->direct && bk_writer_reserve(&f->buf2, BK_CHUNK_BUF) == BK_OK) {
        size_t skip2 = (DIRECT_ALIGN - (uintptr_t)f->buf2.data % DIRECT_ALIGN) % DIRECT_ALIGN;
        size_t cap2 = (f->buf2.cap - skip2) / DIRECT_ALIGN * DIRECT_ALIGN;
        if (cap2 >= DIRECT_ALIGN) {
            f->wb2 = f->buf2.data + skip2;
            if (cap2 < f->wcap) f->wcap = cap2;
            io_start(f, alloc);
        }
    }
    bk_status st = reuse ? bk_table_reopen(&f->table, buf_sink, f, err)
                         : bk_table_open(&f->table, format, cols, ncols, pq, buf_sink, f, alloc, err);
    if (st != BK_OK) {
        if (f->failed) bk_error_set(err, BK_ERR_IO, 0, "%s: write error: %s", f->tmp_path, strerror(f->err_no));
        bk_chunk_file_abort(f);
        return err ? err->status : st;
    }
    return BK_OK;
}

bk_status bk_chunk_file_open(bk_chunk_file *f, const char *dir, const char *dataset, int64_t first, int64_t last,
                             bk_table_format format, const bk_pq_column *cols, size_t ncols, const bk_pq_opts *pq,
                             const bk_allocator *alloc, bk_error *err)
{
    char path[BK_CHUNK_PATH_MAX], sub[BK_CHUNK_PATH_MAX];
    if (bk_chunk_path(path, sizeof path, dir, dataset, first, last, bk_table_format_ext(format)) != BK_OK ||
        snprintf(sub, sizeof sub, "%s/%s", dir, dataset) >= (int)sizeof sub)
        return bk_error_set(err, BK_ERR_ARG, 0, "output path too long under %s", dir);
    return chunk_file_open_at(f, path, dir, sub, format, cols, ncols, pq, alloc, err);
}

bk_status bk_chunk_file_open_path(bk_chunk_file *f, const char *path, bk_table_format format,
                                  const bk_pq_column *cols, size_t ncols, const bk_pq_opts *pq,
                                  const bk_allocator *alloc, bk_error *err)
{
    return chunk_file_open_at(f, path, NULL, NULL, format, cols, ncols, pq, alloc, err);
}

void bk_chunk_file_abort(bk_chunk_file *f)
{
    (void)io_stop(f); /* (the write under way ends before fd closes) */
    bk_table_close(&f->table);
    bk_writer_free(&f->buf);
    bk_writer_free(&f->buf2);
    f->kept = 0;
    if (f->fd >= 0) {
        close(f->fd);
        f->fd = -1;
        unlink(f->tmp_path);
    }
}

void bk_chunk_file_release(bk_chunk_file *f)
{
    if (!f || !f->kept) return;
    bk_table_close(&f->table);
    bk_writer_free(&f->buf);
    bk_writer_free(&f->buf2);
    f->kept = 0;
}

/* Remove <dataset>_<first>_<other>.<ext> beside the final file: a partial
 * tail chunk an earlier run wrote when its end was lower. */
static void remove_older_partials(const bk_chunk_file *f)
{
    char dir[BK_CHUNK_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", f->path);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *slash = 0;
    const char *name = slash + 1;
    /* prefix "<dataset>_<first>_" is the name up to its last '_' */
    const char *us = strrchr(name, '_');
    const char *dot = strrchr(name, '.');
    if (!us || !dot || dot < us) return;
    size_t plen = (size_t)(us - name) + 1;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, name, plen) != 0 || !strcmp(n, name)) continue;
        size_t flen = strlen(name);
        if (!strncmp(n, name, flen) && !strncmp(n + flen, ".tmp-", 5)) {
            /* a killed run's temporary file of this chunk */
            char p[BK_CHUNK_PATH_MAX * 2];
            snprintf(p, sizeof p, "%s/%s", dir, n);
            unlink(p);
            continue;
        }
        const char *ndot = strrchr(n, '.');
        if (!ndot || strcmp(ndot, dot) != 0 || (size_t)(ndot - n) != (size_t)(dot - name)) continue;
        char p[BK_CHUNK_PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/%s", dir, n);
        unlink(p);
    }
    closedir(d);
}

bk_status bk_chunk_file_commit(bk_chunk_file *f, bk_error *err)
{
    bk_status st = bk_table_finish(&f->table, err);
    if (st == BK_OK && f->wlen && flush_buf(f)) st = BK_ERR_IO;
    f->wlen = 0;
    if (io_stop(f) && st == BK_OK) st = BK_ERR_IO;
    if (f->failed) st = bk_error_set(err, BK_ERR_IO, 0, "%s: write error: %s", f->tmp_path, strerror(f->err_no));
    int sync_failed = st == BK_OK && fsync(f->fd) != 0;
    int e_sync = errno;
    if (st == BK_OK && (sync_failed | (close(f->fd) != 0))) {
        st = bk_error_set(err, BK_ERR_IO, 0, "%s: %s", f->tmp_path, strerror(sync_failed ? e_sync : errno));
        f->fd = -1;
        unlink(f->tmp_path);
    } else if (st == BK_OK) {
        f->fd = -1;
        bk_sha256_final(&f->digest, f->sha256);
        if (rename(f->tmp_path, f->path) != 0) {
            st = bk_error_set(err, BK_ERR_IO, 0, "rename %s: %s", f->path, strerror(errno));
            unlink(f->tmp_path);
        } else if (f->chunk_named) {
            remove_older_partials(f);
        }
    }
    if (st == BK_OK) {
        /* keep the table writer and the buffer for the next chunk */
        f->kept = 1;
        return st;
    }
    bk_chunk_file_abort(f);
    return st;
}
