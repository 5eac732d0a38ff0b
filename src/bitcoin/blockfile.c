/* Bitcoin Core block files: mapping, de-obfuscation, record iteration,
 * blocks directory listing. Core: src/node/blockstorage.cpp (WriteBlock,
 * WriteBlockUndo, ReadBlockUndo, InitBlocksdirXorKey), src/util/obfuscation.h. */
#include <blockkit/blockfile.h>
#include <blockkit/sha256.h>
#include <blockkit/stream.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_key(bk_blockfile *f, const uint8_t key[BK_XOR_KEY_SIZE])
{
    f->xored = 0;
    memset(f->key, 0, sizeof f->key);
    if (!key) return;
    memcpy(f->key, key, BK_XOR_KEY_SIZE);
    for (size_t i = 0; i < BK_XOR_KEY_SIZE; i++) f->xored |= key[i] != 0;
}

void bk_blockfile_init_mem(bk_blockfile *f, const uint8_t *data, size_t len, bk_file_kind kind,
                           bk_network net, const uint8_t key[BK_XOR_KEY_SIZE])
{
    const bk_network_params *p = bk_network_get(net);
    memset(f, 0, sizeof *f);
    f->data = data;
    f->len = len;
    f->kind = kind;
    if (p) memcpy(f->magic, p->magic, 4);
    set_key(f, key);
}

/* Open a path under a blocks directory read-only without ever blocking:
 * O_NONBLOCK so that a FIFO (or a device) named like a block file does not
 * wait for a writer, then anything but a regular file is refused before a
 * byte is read; O_NONBLOCK is cleared again (it means nothing for regular
 * files, but keeps reads plain). Returns the descriptor, or -1 with *why set
 * (errno, or 0 for "not a regular file"). */
static int open_regular(const char *path, int *why, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *why = errno;
        return -1;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        *why = S_ISREG(st->st_mode) ? errno : 0;
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

bk_status bk_blockfile_open(bk_blockfile *f, const char *path, bk_file_kind kind, uint32_t number,
                            bk_network net, const uint8_t key[BK_XOR_KEY_SIZE], const bk_allocator *alloc,
                            bk_error *err)
{
    if (!bk_network_get(net)) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    bk_blockfile_init_mem(f, NULL, 0, kind, net, key);
    f->number = number;
    f->alloc_ = alloc;
    struct stat st;
    int why = 0;
    int fd = open_regular(path, &why, &st);
    if (fd < 0)
        return bk_error_set(err, BK_ERR_IO, 0, "cannot %s %s: %s", why ? "open" : "read", path,
                            why ? strerror(why) : "not a regular file");
    /* No mmap: bitcoind truncates the pre-allocated tail of the file it
     * finalizes (FlatFileSeq::Flush -> TruncateFile), and touching a mapped
     * page past the new end would raise SIGBUS. Reads go through pread,
     * which returns short instead (03-mmap-sigbus-when-core-truncates). */
    f->fd_ = fd;
    f->has_fd_ = 1;
    f->len = (size_t)st.st_size;
    return BK_OK;
}

void bk_blockfile_advise(const bk_blockfile *f, bk_access access)
{
    if (!f->has_fd_) return;
#ifdef POSIX_FADV_RANDOM
    int advice = access == BK_ACCESS_SEQUENTIAL ? POSIX_FADV_SEQUENTIAL
                 : access == BK_ACCESS_RANDOM   ? POSIX_FADV_RANDOM
                                                : POSIX_FADV_NORMAL;
    (void)posix_fadvise(f->fd_, 0, 0, advice);
#else
    (void)access;
#endif
}

void bk_blockfile_close(bk_blockfile *f)
{
    if (f->has_fd_) close(f->fd_);
    f->has_fd_ = 0;
    f->fd_ = -1;
    f->data = NULL;
    f->len = 0;
}

/* The stored (still obfuscated) bytes [off, off + len): from memory, or
 * pread from the file. BK_ERR_TRUNCATED when the file has shrunk since it
 * was opened, BK_ERR_IO for a read error. */
static bk_status fetch(const bk_blockfile *f, uint64_t off, uint8_t *out, size_t len, bk_error *err)
{
    if (!f->has_fd_) {
        if (len) memcpy(out, f->data + off, len);
        return BK_OK;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(f->fd_, out + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            return bk_error_set(err, BK_ERR_IO, off + got, "%s%05u.dat: read error at offset %llu: %s",
                                f->kind == BK_FILE_BLK ? "blk" : "rev", f->number,
                                (unsigned long long)(off + got), strerror(errno));
        if (n == 0)
            return bk_error_set(err, BK_ERR_TRUNCATED, off + got,
                                "%s%05u.dat: the file shrank to %llu bytes while it was read",
                                f->kind == BK_FILE_BLK ? "blk" : "rev", f->number, (unsigned long long)(off + got));
        got += (size_t)n;
    }
    return BK_OK;
}

void bk_xor_copy(uint8_t *out, const uint8_t *in, size_t len, uint64_t off, const uint8_t key[BK_XOR_KEY_SIZE])
{
    size_t i = 0;
    /* Align to the key phase, then 8 bytes at a time. */
    while (i < len && ((off + i) & 7)) {
        out[i] = in[i] ^ key[(off + i) & 7];
        i++;
    }
    uint64_t k;
    memcpy(&k, key, 8);
    for (; i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, in + i, 8);
        v ^= k;
        memcpy(out + i, &v, 8);
    }
    for (; i < len; i++) out[i] = in[i] ^ key[(off + i) & 7];
}

static int in_file(const bk_blockfile *f, uint64_t off, size_t len)
{
    return off <= f->len && len <= f->len - off;
}

bk_status bk_blockfile_copy(const bk_blockfile *f, uint64_t off, void *out, size_t len, bk_error *err)
{
    if (!in_file(f, off, len))
        return bk_error_set(err, BK_ERR_TRUNCATED, off, "%zu bytes at offset %llu run past the end of the file (%zu bytes)",
                            len, (unsigned long long)off, f->len);
    if (f->has_fd_) {
        bk_status st = fetch(f, off, out, len, err);
        if (st != BK_OK) return st;
        if (f->xored) bk_xor_copy(out, out, len, off, f->key);
        return BK_OK;
    }
    if (f->xored) bk_xor_copy(out, f->data + off, len, off, f->key);
    else if (len) memcpy(out, f->data + off, len);
    return BK_OK;
}

bk_status bk_blockfile_bytes(const bk_blockfile *f, uint64_t off, size_t len, uint8_t *buf, size_t cap,
                             const uint8_t **bytes_out, bk_error *err)
{
    if (!in_file(f, off, len))
        return bk_error_set(err, BK_ERR_TRUNCATED, off, "%zu bytes at offset %llu run past the end of the file (%zu bytes)",
                            len, (unsigned long long)off, f->len);
    if (!f->xored && !f->has_fd_) {
        *bytes_out = f->data + off;
        return BK_OK;
    }
    if (!buf || cap < len)
        return bk_error_set(err, BK_ERR_BUFFER, off, "buffer of %zu bytes for a %zu-byte record", cap, len);
    if (f->has_fd_) {
        bk_status st = fetch(f, off, buf, len, err);
        if (st != BK_OK) return st;
        if (f->xored) bk_xor_copy(buf, buf, len, off, f->key);
    } else {
        bk_xor_copy(buf, f->data + off, len, off, f->key);
    }
    *bytes_out = buf;
    return BK_OK;
}

/* ---- records ---- */

void bk_record_iter_init(bk_record_iter *it, const bk_blockfile *f)
{
    it->f = f;
    it->pos = 0;
    it->end = BK_END_NONE;
    it->end_offset = 0;
    it->count = 0;
    it->cancel = NULL;
    it->win_ = NULL;
    it->win_cap_ = 0;
    it->win_lo_ = it->win_hi_ = 0;
}

void bk_record_iter_window(bk_record_iter *it, uint8_t *buf, size_t cap)
{
    it->win_ = buf && cap >= 4096 ? buf : NULL;
    it->win_cap_ = it->win_ ? cap : 0;
    it->win_lo_ = it->win_hi_ = 0;
}

/* Whether [off, off + len) can come from the window, refilling it from off
 * when needed (a file read with pread; mapped files need no window). A
 * short read (the file shrank) leaves what was read: a range past it is
 * then read without the window, which reports the shrink as before. */
static int window_has(bk_record_iter *it, uint64_t off, size_t len)
{
    const bk_blockfile *f = it->f;
    if (!it->win_ || !f->has_fd_ || len > it->win_cap_ / 2 || !in_file(f, off, len)) return 0;
    if (off >= it->win_lo_ && len <= it->win_hi_ - off && off < it->win_hi_) return 1;
    size_t want = f->len - off < it->win_cap_ ? (size_t)(f->len - off) : it->win_cap_, got = 0;
    it->win_lo_ = it->win_hi_ = 0;
    while (got < want) {
        ssize_t n = pread(f->fd_, it->win_ + got, want - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (f->xored) bk_xor_copy(it->win_, it->win_, got, off, f->key);
    it->win_lo_ = off;
    it->win_hi_ = off + got;
    return len <= got;
}

bk_status bk_record_iter_copy(bk_record_iter *it, uint64_t off, void *out, size_t len, bk_error *err)
{
    if (!window_has(it, off, len)) return bk_blockfile_copy(it->f, off, out, len, err);
    if (len) memcpy(out, it->win_ + (off - it->win_lo_), len);
    return BK_OK;
}

bk_status bk_record_iter_bytes(bk_record_iter *it, uint64_t off, size_t len, uint8_t *buf, size_t cap,
                               const uint8_t **bytes_out, bk_error *err)
{
    if (!window_has(it, off, len)) return bk_blockfile_bytes(it->f, off, len, buf, cap, bytes_out, err);
    *bytes_out = it->win_ + (off - it->win_lo_);
    return BK_OK;
}

/* Whether bytes [pos, pos + n) hold only zero bytes on disk (*raw) or only
 * zero bytes after de-obfuscation (*plain). */
static void zero_scan(const bk_blockfile *f, uint64_t pos, const uint8_t *p, size_t n, int *raw, int *plain)
{
    size_t i = 0;
    for (; i < n && ((pos + i) & 7) && (*raw || *plain); i++) {
        *raw &= p[i] == 0;
        *plain &= p[i] == f->key[(pos + i) & 7];
    }
    /* Eight bytes at a time, at the key's phase 0. */
    uint64_t k;
    memcpy(&k, f->key, 8);
    for (; i + 64 <= n && (*raw || *plain); i += 64) {
        uint64_t r = 0, x = 0;
        for (size_t j = 0; j < 64; j += 8) {
            uint64_t v;
            memcpy(&v, p + i + j, 8);
            r |= v;
            x |= v ^ k;
        }
        *raw &= r == 0;
        *plain &= x == 0;
    }
    for (; i < n && (*raw || *plain); i++) {
        *raw &= p[i] == 0;
        *plain &= p[i] == f->key[(pos + i) & 7];
    }
}

/* The rest of the file from pos is pre-allocated space: zero on disk, or
 * zero after de-obfuscation (Core writes the padding raw: spec §10). A file
 * that shrinks while it is read (bitcoind cutting that very tail) ends the
 * check where it now ends. */
static int zero_tail(const bk_blockfile *f, uint64_t pos, const volatile sig_atomic_t *cancel)
{
    int raw_zero = 1, plain_zero = f->xored;
    if (!f->has_fd_) {
        zero_scan(f, pos, f->data + pos, f->len - pos, &raw_zero, &plain_zero);
        return raw_zero || plain_zero;
    }
    uint8_t small[512];
    size_t cap = 1 << 16;
    uint8_t *buf = bk_alloc(f->alloc_, cap);
    if (!buf) {
        buf = small;
        cap = sizeof small;
    }
    while (pos < f->len && (raw_zero || plain_zero) && !(cancel && *cancel)) {
        size_t n = f->len - pos < cap ? (size_t)(f->len - pos) : cap;
        ssize_t r = pread(f->fd_, buf, n, (off_t)pos);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break; /* shrunk (0), or unreadable: judged on what was read */
        zero_scan(f, pos, buf, (size_t)r, &raw_zero, &plain_zero);
        pos += (uint64_t)r;
    }
    if (buf != small) bk_free(f->alloc_, buf, cap);
    return raw_zero || plain_zero;
}

static int stop(bk_record_iter *it, bk_file_end end)
{
    it->end = end;
    it->end_offset = it->pos;
    return 0;
}

int bk_record_next(bk_record_iter *it, bk_record *rec)
{
    const bk_blockfile *f = it->f;
    if (it->end != BK_END_NONE) return 0;
    if (it->pos == f->len) return stop(it, BK_END_CLEAN);
    uint64_t rem = f->len - it->pos;
    uint8_t hdr[8];
    size_t n = rem < 8 ? (size_t)rem : 8;
    if (bk_record_iter_copy(it, it->pos, hdr, n, NULL) != BK_OK) return stop(it, BK_END_TRUNCATED); /* shrank */
    if (memcmp(hdr, f->magic, n < 4 ? n : 4) != 0)
        return stop(it, zero_tail(f, it->pos, it->cancel) ? BK_END_ZERO_TAIL : BK_END_BAD_MAGIC);
    if (n < 8) return stop(it, zero_tail(f, it->pos, it->cancel) ? BK_END_ZERO_TAIL : BK_END_TRUNCATED);
    uint32_t size = bk_load_le32(hdr + 4);
    uint64_t need = 8 + (uint64_t)size + (f->kind == BK_FILE_REV ? BK_UNDO_CHECKSUM_SIZE : 0);
    if (need > rem) return stop(it, BK_END_TRUNCATED);
    rec->file = f->number;
    rec->record_offset = it->pos;
    rec->offset = it->pos + 8;
    rec->size = size;
    it->pos += need;
    it->count++;
    return 1;
}

const char *bk_file_end_str(bk_file_end e)
{
    switch (e) {
    case BK_END_CLEAN: return "clean end";
    case BK_END_ZERO_TAIL: return "zero tail";
    case BK_END_BAD_MAGIC: return "bad magic";
    case BK_END_TRUNCATED: return "truncated record";
    default: return "not finished";
    }
}

bk_status bk_undo_checksum_verify(const uint8_t *undo, size_t len, const uint8_t parent_hash[32],
                                  const uint8_t checksum[32], bk_error *err)
{
    /* Core: blockstorage.cpp WriteBlockUndo/ReadBlockUndo - HashWriter over
     * pprev->GetBlockHash() then the CBlockUndo. */
    bk_sha256_ctx ctx;
    uint8_t h[32];
    bk_sha256_init(&ctx);
    bk_sha256_update(&ctx, parent_hash, 32);
    bk_sha256_update(&ctx, undo, len);
    bk_sha256_final(&ctx, h);
    bk_sha256(h, h, 32);
    if (memcmp(h, checksum, 32) != 0)
        return bk_error_set(err, BK_ERR_CHECKSUM, len, "undo record checksum mismatch");
    return BK_OK;
}

/* ---- blocks directory ---- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* "blk" or "rev", the number as Core prints it ("%05u": five digits, more
 * without leading zeros once past 99999), ".dat". */
static int parse_name(const char *name, bk_file_kind *kind, uint32_t *num)
{
    size_t len = strlen(name);
    if (len < 12 || len > 17 || strcmp(name + len - 4, ".dat") != 0) return 0;
    if (memcmp(name, "blk", 3) == 0) *kind = BK_FILE_BLK;
    else if (memcmp(name, "rev", 3) == 0) *kind = BK_FILE_REV;
    else return 0;
    size_t digits = len - 7;
    if (digits > 5 && name[3] == '0') return 0;
    uint64_t v = 0;
    for (size_t i = 3; i < 3 + digits; i++) {
        if (name[i] < '0' || name[i] > '9') return 0;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    if (v > UINT32_MAX || (digits > 5 && v < 100000)) return 0;
    *num = (uint32_t)v;
    return 1;
}

static bk_status push_num(const bk_allocator *a, uint32_t **arr, size_t *n, size_t *cap, uint32_t v)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        uint32_t *na = bk_realloc(a, *arr, *cap * sizeof **arr, nc * sizeof **arr);
        if (!na) return BK_ERR_NOMEM;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = v;
    return BK_OK;
}

static bk_status read_xor_key(bk_blocksdir *d, bk_error *err)
{
    size_t plen = strlen(d->path);
    char *p = bk_alloc(d->alloc, plen + 9);
    if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memcpy(p, d->path, plen);
    memcpy(p + plen, "/xor.dat", 9);
    bk_status st = BK_OK;
    struct stat xst;
    int why = 0;
    int fd = open_regular(p, &why, &xst);
    if (fd < 0) {
        /* No xor.dat (Core before v28): identity. */
        if (why != ENOENT)
            st = bk_error_set(err, BK_ERR_IO, 0, "cannot %s %s: %s", why ? "open" : "read", p,
                              why ? strerror(why) : "not a regular file");
        bk_free(d->alloc, p, plen + 9);
        return st;
    }
    uint8_t buf[BK_XOR_KEY_SIZE + 1];
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, buf + got, sizeof buf - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            st = bk_error_set(err, BK_ERR_IO, got, "cannot read %s: %s", p, strerror(errno));
            break;
        }
        if (n == 0) break;
        got += (size_t)n;
        if (got == sizeof buf) break;
    }
    close(fd);
    if (st == BK_OK && got != BK_XOR_KEY_SIZE)
        st = bk_error_set(err, BK_ERR_INVALID, got, "%s must hold exactly 8 bytes", p);
    if (st == BK_OK) {
        memcpy(d->key, buf, BK_XOR_KEY_SIZE);
        for (size_t i = 0; i < BK_XOR_KEY_SIZE; i++) d->xored |= buf[i] != 0;
    }
    bk_free(d->alloc, p, plen + 9);
    return st;
}

bk_status bk_blocksdir_open(bk_blocksdir *d, const char *path, bk_network net, const bk_allocator *alloc,
                            bk_error *err)
{
    memset(d, 0, sizeof *d);
    d->alloc = alloc;
    d->net = net;
    if (!bk_network_get(net)) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    size_t plen = strlen(path);
    while (plen > 1 && path[plen - 1] == '/') plen--;
    d->path = bk_alloc(alloc, plen + 1);
    if (!d->path) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memcpy(d->path, path, plen);
    d->path[plen] = 0;
    DIR *dir = opendir(d->path);
    if (!dir) {
        bk_status st = bk_error_set(err, BK_ERR_IO, 0, "cannot open directory %s: %s", d->path, strerror(errno));
        bk_blocksdir_close(d);
        return st;
    }
    size_t cap_blk = 0, cap_rev = 0;
    bk_status st = BK_OK;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        bk_file_kind kind;
        uint32_t num;
        if (!parse_name(e->d_name, &kind, &num)) continue;
        st = kind == BK_FILE_BLK ? push_num(alloc, &d->blk, &d->n_blk, &cap_blk, num)
                                 : push_num(alloc, &d->rev, &d->n_rev, &cap_rev, num);
        if (st != BK_OK) break;
    }
    closedir(dir);
    if (st != BK_OK) {
        bk_blocksdir_close(d);
        return bk_error_set(err, st, 0, "out of memory");
    }
    /* Keep the allocation sizes exact for bk_free. */
    if (d->n_blk < cap_blk) {
        uint32_t *na = d->n_blk ? bk_realloc(alloc, d->blk, cap_blk * 4, d->n_blk * 4) : NULL;
        if (d->n_blk && !na) { bk_blocksdir_close(d); return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory"); }
        if (!d->n_blk) bk_free(alloc, d->blk, cap_blk * 4);
        d->blk = na;
    }
    if (d->n_rev < cap_rev) {
        uint32_t *na = d->n_rev ? bk_realloc(alloc, d->rev, cap_rev * 4, d->n_rev * 4) : NULL;
        if (d->n_rev && !na) { bk_blocksdir_close(d); return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory"); }
        if (!d->n_rev) bk_free(alloc, d->rev, cap_rev * 4);
        d->rev = na;
    }
    if (d->n_blk) qsort(d->blk, d->n_blk, sizeof *d->blk, cmp_u32);
    if (d->n_rev) qsort(d->rev, d->n_rev, sizeof *d->rev, cmp_u32);
    st = read_xor_key(d, err);
    if (st != BK_OK) bk_blocksdir_close(d);
    return st;
}

bk_status bk_blocksdir_open_file(const bk_blocksdir *d, bk_file_kind kind, uint32_t number, bk_blockfile *f,
                                 bk_error *err)
{
    size_t plen = strlen(d->path);
    size_t cap = plen + 24; /* "/" + "blk" + up to 10 digits + ".dat" + NUL */
    char *p = bk_alloc(d->alloc, cap);
    if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    snprintf(p, cap, "%s/%s%05u.dat", d->path, kind == BK_FILE_BLK ? "blk" : "rev", (unsigned)number);
    bk_status st = bk_blockfile_open(f, p, kind, number, d->net, d->xored ? d->key : NULL, d->alloc, err);
    bk_free(d->alloc, p, cap);
    return st;
}

bk_status bk_blocksdir_open_fd(const bk_blocksdir *d, bk_file_kind kind, uint32_t number, int *fd_out,
                               bk_error *err)
{
    *fd_out = -1;
    size_t plen = strlen(d->path);
    size_t cap = plen + 24;
    char *p = bk_alloc(d->alloc, cap);
    if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    snprintf(p, cap, "%s/%s%05u.dat", d->path, kind == BK_FILE_BLK ? "blk" : "rev", (unsigned)number);
    struct stat st;
    int why = 0;
    int fd = open_regular(p, &why, &st);
    bk_status s = BK_OK;
    if (fd < 0)
        s = bk_error_set(err, BK_ERR_IO, 0, "cannot %s %s: %s", why ? "open" : "read", p,
                         why ? strerror(why) : "not a regular file");
    *fd_out = fd;
    bk_free(d->alloc, p, cap);
    return s;
}

int bk_blocksdir_has(const bk_blocksdir *d, bk_file_kind kind, uint32_t number)
{
    const uint32_t *a = kind == BK_FILE_BLK ? d->blk : d->rev;
    size_t n = kind == BK_FILE_BLK ? d->n_blk : d->n_rev;
    return n && bsearch(&number, a, n, sizeof *a, cmp_u32) != NULL;
}

void bk_blocksdir_close(bk_blocksdir *d)
{
    if (d->path) bk_free(d->alloc, d->path, strlen(d->path) + 1);
    if (d->blk) bk_free(d->alloc, d->blk, d->n_blk * sizeof *d->blk);
    if (d->rev) bk_free(d->alloc, d->rev, d->n_rev * sizeof *d->rev);
    d->path = NULL;
    d->blk = d->rev = NULL;
    d->n_blk = d->n_rev = 0;
}
