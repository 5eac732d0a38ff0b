/* Shared CLI helpers: input loading, hex detection, error reporting. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

int bk_cli_pipe_closed;
int bk_cli_write_errno;

int bk_cli_fail(const char *cmd, int code, const char *fmt, ...)
{
    va_list ap;
    /* cmd NULL: a message of blockkit itself (no command: --help, --version) */
    if (cmd) fprintf(stderr, "blockkit: %s: ", cmd);
    else fputs("blockkit: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int bk_cli_unknown_option(const char *cmd, const char *opt)
{
    return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown option %s (see --help)", opt);
}

int bk_cli_missing_value(const char *cmd, const char *opt)
{
    return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s needs a value", opt);
}

int bk_cli_exit_code(bk_status st)
{
    switch (st) {
    case BK_OK: return BK_EXIT_OK;
    case BK_ERR_ARG: return BK_EXIT_USAGE;
    case BK_ERR_IO: return BK_EXIT_IO;
    case BK_ERR_NOMEM: return BK_EXIT_SOFTWARE;
    case BK_ERR_UNSUPPORTED: return BK_EXIT_USAGE;
    case BK_ERR_LOCKED: return BK_EXIT_TEMPFAIL;
    case BK_ERR_NOT_FOUND: return BK_EXIT_NOINPUT;
    default: return BK_EXIT_DATA;
    }
}

int bk_cli_report(const char *cmd, const bk_error *err)
{
    /* An I/O or argument error names its file or argument in the message;
     * "at byte 0" adds nothing there, nor to an item not found. */
    if ((err->status == BK_ERR_IO || err->status == BK_ERR_ARG || err->status == BK_ERR_NOT_FOUND ||
         err->status == BK_ERR_LOCKED) &&
        err->offset == 0 && !err->path[0]) {
        fprintf(stderr, "blockkit: %s: %s: %s\n", cmd, bk_status_str(err->status), err->msg);
        return bk_cli_exit_code(err->status);
    }
    if (err->path[0])
        fprintf(stderr, "blockkit: %s: %s: %s at byte %llu (%s)\n", cmd, bk_status_str(err->status),
                err->msg, (unsigned long long)err->offset, err->path);
    else
        fprintf(stderr, "blockkit: %s: %s: %s at byte %llu\n", cmd, bk_status_str(err->status),
                err->msg, (unsigned long long)err->offset);
    return bk_cli_exit_code(err->status);
}

/* Read fd to its end into one buffer, at most max bytes: 0, -1 with errno
 * (ENOMEM, a read error), or 1 when there is more than max. hint: the size
 * fstat gave (0: unknown), read first in one piece; a file that grows or
 * shrinks meanwhile is read as it is. */
static int read_fd(int fd, size_t max, size_t hint, bk_cli_input *in)
{
    size_t cap = hint && hint < max ? hint + 1 : (max < ((size_t)1 << 16) ? max + 1 : (size_t)1 << 16), len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) return -1;
    for (;;) {
        if (len == cap) {
            if (cap > max) { /* max + 1 bytes read: too long */
                free(buf);
                return 1;
            }
            size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                errno = ENOMEM;
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            errno = e;
            return -1;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    in->data = buf;
    in->len = len;
    return 0;
}

int bk_cli_read_input_max(const char *cmd, const char *path, size_t max, const char *what, bk_cli_input *in)
{
    memset(in, 0, sizeof *in);
    int is_stdin = !path || !strcmp(path, "-");
    const char *name = is_stdin ? "standard input" : path;
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return bk_cli_fail(cmd, errno == ENOENT ? BK_EXIT_NOINPUT : BK_EXIT_IO, "%s: %s", path, strerror(errno));
    /* Read, not mapped: a mapping of a file that shrinks under it faults
     * (robustness finding 03), and a copy of at most max bytes costs
     * little beside decoding it. */
    struct stat st;
    size_t hint = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 0;
    if (hint > max) {
        if (!is_stdin) close(fd);
        return bk_cli_fail(cmd, BK_EXIT_DATA, "%s: %zu bytes, more than %zu: %s", name, hint, max, what);
    }
    int rc = read_fd(fd, max, hint, in);
    int e = errno;
    if (!is_stdin) close(fd);
    if (rc > 0) return bk_cli_fail(cmd, BK_EXIT_DATA, "%s: more than %zu bytes: %s", name, max, what);
    if (rc < 0)
        return e == ENOMEM ? bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "%s: out of memory", name)
                           : bk_cli_fail(cmd, BK_EXIT_IO, "%s: %s", name, strerror(e));
    return 0;
}

void bk_cli_input_free(bk_cli_input *in)
{
    free(in->data);
    memset(in, 0, sizeof *in);
}

int bk_cli_parse_block_hash(const char *s, uint8_t out[32])
{
    return strlen(s) == 64 && bk_hex_decode_rev(out, s, 32, NULL) == BK_OK;
}

bk_status bk_cli_locate_undo(const uint8_t *data, size_t len, const bk_block *b, bk_network net,
                             const uint8_t **undo_out, size_t *undo_len_out, bk_error *err)
{
    for (int n = 0; n < BK_NET_COUNT_; n++) {
        const bk_network_params *np = bk_network_get((bk_network)n);
        if (len < 40 || memcmp(data, np->magic, 4) != 0 || bk_load_le32(data + 4) != len - 40) continue;
        if (n != (int)net) /* framed for another network: say so, not a CBlockUndo parse error */
            return bk_error_set(err, BK_ERR_MAGIC, 0, "undo record has the %s network magic; use --chain %s",
                                np->name, np->name);
        size_t u = len - 40;
        if (bk_undo_checksum_verify(data + 8, u, b->header.prev_hash, data + 8 + u, NULL) != BK_OK)
            return bk_error_set(err, BK_ERR_CHECKSUM, 8 + u,
                                "undo record checksum does not match this block's parent hash");
        *undo_out = data + 8;
        *undo_len_out = u;
        return BK_OK;
    }
    *undo_out = data;
    *undo_len_out = len;
    return BK_OK;
}

int bk_cli_block_file_load(const char *cmd, bk_cli_block_file *f, const char *file, int have_height, int64_t height)
{
    memset(f, 0, sizeof *f);
    bk_block_decoder_init(&f->dec, NULL);
    int rc = bk_cli_read_input_max(cmd, file, BK_CLI_MAX_BLOCK, BK_CLI_WHAT_BLOCK, &f->in);
    if (rc) return rc;
    bk_cli_maybe_unhex(&f->in);
    bk_error err;
    bk_error_clear(&err);
    if (bk_block_decode(&f->dec, f->in.data, f->in.len, &f->b, &err) != BK_OK) return bk_cli_report(cmd, &err);
    f->height = height;
    if (!have_height) {
        uint32_t h;
        if (bk_block_bip34_height(&f->b, &h) != BK_OK)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "the block has no BIP34 height in its coinbase; give --height");
        f->height = h;
    }
    return 0;
}

int bk_cli_block_file_undo(const char *cmd, bk_cli_block_file *f, const char *undo_file)
{
    int rc = bk_cli_read_input_max(cmd, undo_file, BK_CLI_MAX_UNDO, "undo data is at most 256 MiB here", &f->undo_in);
    if (rc) return rc;
    bk_cli_maybe_unhex(&f->undo_in);
    return 0;
}

void bk_cli_block_file_free(bk_cli_block_file *f)
{
    bk_block_decoder_free(&f->dec);
    bk_cli_input_free(&f->undo_in);
    bk_cli_input_free(&f->in);
}

int bk_cli_maybe_unhex(bk_cli_input *in)
{
    size_t a = 0, b = in->len;
    while (a < b && (in->data[a] == ' ' || in->data[a] == '\n' || in->data[a] == '\r' || in->data[a] == '\t')) a++;
    while (b > a && (in->data[b - 1] == ' ' || in->data[b - 1] == '\n' || in->data[b - 1] == '\r' || in->data[b - 1] == '\t')) b--;
    if (b - a >= 2 && in->data[a] == '0' && (in->data[a + 1] == 'x' || in->data[a + 1] == 'X')) a += 2;
    if (a == b || (b - a) % 2) return 0;
    for (size_t i = a; i < b; i++)
        if (bk_hex_digit(in->data[i]) < 0) return 0;
    /* Decode in place (the buffer is ours): the output never overtakes the
     * input (byte i is written after digits a + 2i and a + 2i + 1 are read). */
    size_t n = (b - a) / 2;
    if (bk_hex_decode(in->data, (const char *)in->data + a, n, NULL) != BK_OK) return 0;
    in->len = n;
    return 1;
}

int bk_cli_write_all(FILE *f, const void *p, size_t n)
{
    if (bk_cli_pipe_closed) return 0;
    if (n && fwrite(p, 1, n, f) != n) {
        bk_cli_write_errno = errno ? errno : EIO;
        if (bk_cli_output_gone(f, errno)) {
            bk_cli_pipe_closed = 1;
            return 0;
        }
        return BK_EXIT_IO;
    }
    return 0;
}

int bk_cli_file_sink(void *ctx, const uint8_t *data, size_t len)
{
    FILE *f = ctx;
    if (bk_cli_pipe_closed) return 1;
    if (len && fwrite(data, 1, len, f) != len) {
        bk_cli_write_errno = errno ? errno : EIO;
        if (bk_cli_output_gone(f, errno)) bk_cli_pipe_closed = 1;
        return 1;
    }
    return 0;
}

const char *bk_cli_output_name(const char *path)
{
    return path && strcmp(path, "-") != 0 ? path : "standard output";
}

int bk_cli_output_gone(FILE *f, int err)
{
    if (err == EPIPE || bk_cli_pipe_closed) return 1;
    /* The error may have come from an earlier write whose errno is gone (a
     * printf into a full stdio buffer): ask the descriptor. The write end of
     * a pipe without readers polls POLLERR; a shut-down socket POLLHUP. */
    int fd = f ? fileno(f) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return 0;
    struct pollfd pfd = {.fd = fd, .events = POLLOUT, .revents = 0};
    return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)) != 0;
}

static FILE *failed_output;

int bk_cli_output_error(const char *cmd, FILE *f, const char *path, int err)
{
    if (!err) err = bk_cli_write_errno ? bk_cli_write_errno : EIO;
    if (bk_cli_output_gone(f, err)) {
        bk_cli_pipe_closed = 1;
        return 0;
    }
    /* One message per failed output: its later flush and close fail too. */
    if (f && f == failed_output) return BK_EXIT_IO;
    failed_output = f;
    return bk_cli_fail(cmd, BK_EXIT_IO, "%s: write error: %s", bk_cli_output_name(path), strerror(err));
}

int bk_cli_output_write(const char *cmd, FILE *f, const char *path, const void *p, size_t n)
{
    return bk_cli_write_all(f, p, n) ? bk_cli_output_error(cmd, f, path, bk_cli_write_errno) : 0;
}

int bk_cli_help(const char *cmd, const char *text)
{
    int rc = bk_cli_output_write(cmd, stdout, NULL, text, strlen(text));
    return rc ? rc : bk_cli_output_flush(cmd, stdout, NULL);
}

int bk_cli_output_flush(const char *cmd, FILE *f, const char *path)
{
    if (bk_cli_pipe_closed) {
        /* Drop what is buffered: nobody reads it. */
        clearerr(f);
        return 0;
    }
    errno = 0;
    int bad = fflush(f) != 0;
    int e = errno;
    if (!bad && !ferror(f)) return 0;
    return bk_cli_output_error(cmd, f, path, bad ? e : 0);
}

int bk_cli_output_close(const char *cmd, FILE *f, const char *path, int close_stdout)
{
    int rc = bk_cli_output_flush(cmd, f, path);
    if (f == stdout && !close_stdout) return rc;
    errno = 0;
    int was_failed = f == failed_output;
    int bad = fclose(f) != 0;
    int e = errno;
    if (was_failed) failed_output = NULL;
    if (bad && rc == 0 && !was_failed && !bk_cli_pipe_closed) rc = bk_cli_output_error(cmd, NULL, path, e);
    else if (was_failed && rc == 0) rc = BK_EXIT_IO;
    return rc;
}

/* ---- whole lines ---- */

void bk_cli_lines_init(bk_cli_lines *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->fd = -1;
    struct stat st;
    if (fflush(f) == 0) {
        w->fd = fileno(f);
        w->regular = w->fd >= 0 && fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode);
    }
}

int bk_cli_lines_flush(bk_cli_lines *w)
{
    if (w->err) return -1;
    if (bk_cli_pipe_closed) {
        w->len = 0;
        return 0;
    }
    if (w->fd < 0) {
        if (bk_cli_write_all(w->f, w->buf, w->len) != 0) w->err = bk_cli_write_errno;
        w->len = 0;
        return w->err ? -1 : 0;
    }
    size_t done = 0;
    while (done < w->len) {
        ssize_t r = write(w->fd, w->buf + done, w->len - done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            w->err = r < 0 ? errno : EIO;
            bk_cli_write_errno = w->err;
            if (bk_cli_output_gone(w->f, w->err)) {
                bk_cli_pipe_closed = 1;
                w->err = 0;
                w->len = 0;
                return 0;
            }
            /* Cut back to the end of the last complete line written. */
            size_t whole = done;
            while (whole > 0 && w->buf[whole - 1] != '\n') whole--;
            if (w->regular && done > whole) {
                off_t pos = lseek(w->fd, 0, SEEK_CUR);
                off_t cut = pos - (off_t)(done - whole);
                if (pos >= 0 && cut >= 0 && ftruncate(w->fd, cut) == 0) (void)lseek(w->fd, cut, SEEK_SET);
            }
            return -1;
        }
        done += (size_t)r;
    }
    w->len = 0;
    return 0;
}

int bk_cli_lines_put(bk_cli_lines *w, const char *line, size_t n)
{
    if (w->err) return -1;
    if (bk_cli_pipe_closed) return 0;
    if (w->len + n > w->cap) {
        if (w->len && bk_cli_lines_flush(w) != 0) return -1;
        if (n > w->cap) {
            size_t nc = n > 65536 ? n : 65536;
            char *nb = realloc(w->buf, nc);
            if (!nb) {
                w->err = ENOMEM;
                return -1;
            }
            w->buf = nb;
            w->cap = nc;
        }
    }
    memcpy(w->buf + w->len, line, n);
    w->len += n;
    return 0;
}

void bk_cli_lines_free(bk_cli_lines *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

/* ---- blocks directories ---- */

static int is_dir(const char *base, const char *sub)
{
    char p[4352];
    struct stat st;
    snprintf(p, sizeof p, "%.4096s/%s", base, sub);
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int bk_cli_check_chain(const char *cmd, const bk_blocksdir *d, const bk_chain *c, int orphans_ok)
{
    const bk_network_params *np = bk_network_get(d->net);
    if (d->n_blk == 0) {
        if (is_dir(d->path, "blocks")) {
            /* DIR may be a test chain's subdirectory of a datadir (the
             * network table's folders: all networks but main). */
            const char *base = strrchr(d->path, '/');
            base = base ? base + 1 : d->path;
            for (int n = 0; n < BK_NET_COUNT_; n++) {
                const char *sub = bk_network_datadir_subdir((bk_network)n), *name = bk_network_get((bk_network)n)->name;
                if (*sub && strlen(base) + 1 == strlen(sub) && !strncmp(base, sub, strlen(base)))
                    return bk_cli_fail(cmd, BK_EXIT_NOINPUT,
                                       "no blk*.dat files in %s; this looks like the %s directory of a datadir, "
                                       "use --datadir %.*s --chain %s (or --blocksdir %s/blocks --chain %s)",
                                       d->path, name, base > d->path + 1 ? (int)(base - d->path - 1) : 1,
                                       base > d->path + 1 ? d->path : ".", name, d->path, name);
            }
            return bk_cli_fail(cmd, BK_EXIT_NOINPUT,
                               "no blk*.dat files in %s; this looks like a datadir, use --datadir %s", d->path,
                               d->path);
        }
        /* or a datadir whose network is in its folder */
        for (int n = 0; n < BK_NET_COUNT_; n++) {
            const char *sub = bk_network_datadir_subdir((bk_network)n);
            char s2[32];
            snprintf(s2, sizeof s2, "%sblocks", sub);
            if (*sub && is_dir(d->path, s2))
                return bk_cli_fail(cmd, BK_EXIT_NOINPUT,
                                   "no blk*.dat files in %s; this looks like a datadir, use --datadir %s "
                                   "--chain %s", d->path, d->path, bk_network_get((bk_network)n)->name);
        }
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no blk*.dat files in %s (not a blocks directory?)", d->path);
    }
    if (c->n_entries == 0) {
        /* What does the first file that is not empty start with? */
        for (size_t i = 0; i < c->n_files; i++) {
            const bk_chain_file *f = &c->files[i];
            if (f->kind != BK_FILE_BLK || f->end != BK_END_BAD_MAGIC || f->end_offset != 0) continue;
            bk_blockfile bf;
            bk_error e;
            uint8_t m[4];
            if (bk_blocksdir_open_file(d, BK_FILE_BLK, f->number, &bf, &e) != BK_OK) break;
            bk_status st = bk_blockfile_copy(&bf, 0, m, 4, &e);
            bk_blockfile_close(&bf);
            if (st != BK_OK) break;
            for (int n = 0; n < BK_NET_COUNT_; n++) {
                const bk_network_params *other = bk_network_get((bk_network)n);
                if (other && n != (int)d->net && memcmp(other->magic, m, 4) == 0)
                    return bk_cli_fail(cmd, BK_EXIT_DATA,
                                       "blk%05u.dat starts with the record magic of %s (%02x%02x%02x%02x), not "
                                       "%s's: these are %s files, use --chain %s", f->number, other->name, m[0],
                                       m[1], m[2], m[3], np->name, other->name, other->name);
            }
            return bk_cli_fail(cmd, BK_EXIT_DATA,
                               "no block records in %zu blk file(s) of %s: blk%05u.dat starts with %02x%02x%02x%02x, "
                               "the record magic of no network (%s's is %02x%02x%02x%02x)%s; not a blocks "
                               "directory, or damaged files", d->n_blk, d->path, f->number, m[0], m[1], m[2], m[3],
                               np->name, np->magic[0], np->magic[1], np->magic[2], np->magic[3],
                               d->xored ? "" : " (or its xor.dat is missing)");
        }
        if (c->n_records)
            return bk_cli_fail(cmd, BK_EXIT_DATA, "%llu record(s) in the blk files of %s, none a block",
                               (unsigned long long)c->n_records, d->path);
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no block records in %zu blk file(s) of %s (empty or never "
                           "written: zero tail)", d->n_blk, d->path);
    }
    if (c->n_active == 0 && !orphans_ok)
        return bk_cli_fail(cmd, BK_EXIT_NOINPUT,
                           "no genesis: %zu block(s) in %s, none connected to a genesis block (a pruned or partial "
                           "directory); see --orphans to render them by their BIP34 height", c->n_entries, d->path);
    return 0;
}

int bk_cli_parse_i64(const char *s, int64_t *out)
{
    /* digits with an optional '-': no spaces, no '+', no hex */
    if (!s || (!(s[0] >= '0' && s[0] <= '9') && !(s[0] == '-' && s[1] >= '0' && s[1] <= '9'))) return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return 0;
    *out = v;
    return 1;
}

/* ---- stop signals ---- */

volatile sig_atomic_t bk_cli_stop;
static const int stop_signals[3] = {SIGINT, SIGTERM, SIGHUP};

static void on_stop(int sig) { bk_cli_stop = sig; }

volatile sig_atomic_t *bk_cli_stop_signals_catch(bk_cli_stop_saved *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sa.sa_flags = SA_RESTART; /* a write in progress completes */
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 3; k++) sigaddset(&sa.sa_mask, stop_signals[k]);
    bk_cli_stop = 0;
    for (int k = 0; k < 3; k++) sigaction(stop_signals[k], &sa, &saved->old[k]);
    return &bk_cli_stop;
}

void bk_cli_stop_signals_restore(const bk_cli_stop_saved *saved)
{
    for (int k = 0; k < 3; k++) sigaction(stop_signals[k], &saved->old[k], NULL);
}
