/* Private read-only snapshots of LevelDB directories (blockkit/leveldb.h).
 *
 * The source directory is only ever read: openat(O_RDONLY|O_NONBLOCK|
 * O_NOFOLLOW) of regular files, linkat() of the live tables of a database
 * over LDB_COPY_TABLES_MAX into the snapshot (which changes the inode's link
 * count and ctime, not the source directory), and readdir. LevelDB itself
 * only sees the snapshot directory. */
#include <blockkit/leveldb.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <leveldb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A compaction between our reading CURRENT and linking the tables it
 * names makes us start over; after this many tries the node is compacting
 * faster than we can snapshot, which is worth an error. */
#define LDB_SNAPSHOT_TRIES 16
#define LDB_COPY_CHUNK (1u << 20)
/* LevelDB's log block (MANIFEST and *.log files). */
#define LDB_LOG_BLOCK 32768u
/* The most of a MANIFEST read (its records, and the zero bytes scanned
 * after them). Core's MANIFESTs are kilobytes to a few megabytes (one
 * VersionEdit per flush or compaction since the database was opened, and
 * each open starts a new one); this bounds the time, memory and TMPDIR
 * space a damaged one (a wrong size, a sparse file) can cost. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define LDB_MANIFEST_MAX ((uint64_t)4 << 20) /* the fuzz build: the same code, at a bound reached in milliseconds */
#else
#define LDB_MANIFEST_MAX ((uint64_t)256 << 20)
#endif
/* Live tables are copied into the snapshot, not hard-linked, while they
 * total at most this: a link and its removal change the table inode's
 * ctime (and its link count while the snapshot lives), which backup and
 * integrity tools read as a change to the node's files. Copying costs
 * time and TMPDIR space in proportion (regtest's three databases: 1.8 MB,
 * about 1 ms per command); mainnet's chainstate (gigabytes) is linked.
 * Once two tries saw the source change (a node flushing hard: a copy takes
 * longer than a link, so the window is wider), later tries link. */
#define LDB_COPY_TABLES_MAX ((uint64_t)64 << 20)

struct bk_ldb {
    leveldb_t *db;
    leveldb_options_t *opts;
    leveldb_readoptions_t *ropts;
    leveldb_cache_t *cache; /* bk_ldb_opts.block_cache_bytes, or NULL */
    int lockfd; /* the snapshot directory, flock()ed while this handle lives */
    char dir[4096]; /* the snapshot directory */
    char src[4096]; /* the source directory, as given: named in every message */
};

struct bk_ldb_iter {
    const bk_ldb *db;
    leveldb_iterator_t *it;
    uint8_t *prefix; /* prefix, then start, then limit */
    size_t plen;
    const uint8_t *start, *limit;
    size_t slen, llen;
    int started;
    int done;
};

enum { SNAP_OK = 0, SNAP_RETRY = 1, SNAP_FAIL = 2 };

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Remove every entry of a flat directory, then the directory. */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        int dfd = dirfd(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            (void)unlinkat(dfd, e->d_name, 0);
        }
        closedir(d);
    }
    (void)rmdir(dir);
}

/* A snapshot directory is made as blockkit-ldb-new-PID-<random> (mkdtemp),
 * flock()ed (the directory itself), then renamed to
 * blockkit-ldb-PID-<random>, so a directory of that name is locked for as
 * long as its handle lives. A process killed with SIGKILL cannot remove its
 * own, under either name (a kill between mkdtemp and the rename leaves the
 * new- one); the next snapshot under the same tmpdir removes every one
 * whose PID is gone and whose lock is free. A PID alone could name a live
 * process in another PID namespace sharing the tmpdir: its lock keeps a
 * renamed directory, and a new- one swept in the instant before its lock is
 * taken makes its creator start over (below). */
#define SNAP_PREFIX "blockkit-ldb-"

static void sweep_stale(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    if (!d) return;
    int tfd = dirfd(d);
    struct dirent *e;
    const size_t plen = sizeof SNAP_PREFIX - 1;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, SNAP_PREFIX, plen) != 0) continue;
        const char *p = e->d_name + plen;
        if (!strncmp(p, "new-", 4)) p += 4;
        char *endp;
        errno = 0;
        long pid = strtol(p, &endp, 10);
        if (errno || endp == p || *endp != '-' || pid <= 0 || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        struct stat st;
        if (fstatat(tfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        int fd = openat(tfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            char path[4096];
            int n = snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
            if (n > 0 && (size_t)n < sizeof path) remove_tree(path);
        }
        close(fd);
    }
    closedir(d);
}

/* Empty the snapshot directory for another try (it stays in place). */
static void clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        (void)unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

/* Open a regular file of the source read-only without blocking on a FIFO
 * or following a link. -1 with errno on failure; EINVAL for a non-regular
 * file. */
static int open_source(int srcfd, const char *name, struct stat *st)
{
    int fd = openat(srcfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* Copy at most `limit` bytes (UINT64_MAX: to the end) of an open source
 * file into dstfd/name. The source may grow meanwhile; what we copy is a
 * prefix, which LevelDB's log reader and our size check both handle. Holes
 * of a sparse source (SEEK_DATA) stay holes in the copy: a sparse MANIFEST
 * or table costs no TMPDIR space for its zeros. */
static int copy_fd(int in, int dstfd, const char *name, uint64_t limit, char *buf, bk_error *err,
                   const char *srcdir)
{
    int out = openat(dstfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0)
        return bk_error_set(err, BK_ERR_IO, 0, "cannot create snapshot file %s: %s", name,
                            strerror(errno)),
               SNAP_FAIL;
    uint64_t done = 0;
    int seek_data = 1;
    for (;;) {
        if (limit != UINT64_MAX && done >= limit) break;
        if (seek_data) {
            off_t d = lseek(in, (off_t)done, SEEK_DATA);
            if (d < 0 && errno == ENXIO) { /* a hole to the end of the file */
                struct stat st;
                if (fstat(in, &st) == 0 && (uint64_t)st.st_size > done)
                    done = limit < (uint64_t)st.st_size ? limit : (uint64_t)st.st_size;
                break;
            }
            if (d < 0) seek_data = 0; /* not supported here: read it all */
            else if ((uint64_t)d > done) {
                done = limit < (uint64_t)d ? limit : (uint64_t)d;
                continue;
            }
        }
        size_t want = LDB_COPY_CHUNK;
        if (limit != UINT64_MAX && limit - done < want) want = (size_t)(limit - done);
        ssize_t r = pread(in, buf, want, (off_t)done);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(out);
            bk_error_set(err, BK_ERR_IO, done, "cannot read %s/%s: %s", srcdir, name, strerror(e));
            return SNAP_FAIL;
        }
        if (r == 0) break;
        for (ssize_t off = 0; off < r;) {
            ssize_t w = pwrite(out, buf + off, (size_t)(r - off), (off_t)(done + (uint64_t)off));
            if (w < 0) {
                if (errno == EINTR) continue;
                int e = errno;
                close(out);
                bk_error_set(err, BK_ERR_IO, 0, "cannot write snapshot file %s: %s", name, strerror(e));
                return SNAP_FAIL;
            }
            off += w;
        }
        done += (uint64_t)r;
    }
    if (ftruncate(out, (off_t)done) != 0 || close(out) != 0)
        return bk_error_set(err, BK_ERR_IO, 0, "cannot write snapshot file %s: %s", name,
                            strerror(errno)),
               SNAP_FAIL;
    return SNAP_OK;
}

/* Where the records of a MANIFEST (a LevelDB log) end: the end of its last
 * 32 KiB block that holds a non-zero byte, at most its size. LevelDB's log
 * reader skips a zero block (preallocation, a sparse or zero-extended
 * file), so the rest is never read and need not be copied. Holes are
 * skipped with SEEK_DATA; at most LDB_MANIFEST_MAX bytes of data are
 * scanned. SNAP_OK and *end, or SNAP_FAIL with err set. */
static int manifest_end(int fd, uint64_t size, char *buf, const char *srcdir, const char *name, uint64_t *end,
                        bk_error *err)
{
    uint64_t pos = 0, last = 0, scanned = 0;
    int seek_data = 1;
    while (pos < size) {
        if (seek_data) {
            off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
            if (d < 0 && errno == ENXIO) break; /* only a hole after pos */
            if (d < 0) seek_data = 0;
            else if ((uint64_t)d > pos) {
                pos = (uint64_t)d;
                continue;
            }
        }
        if (scanned >= LDB_MANIFEST_MAX)
            return bk_error_set(err, BK_ERR_INVALID, pos,
                                "%s/%s: %llu bytes, more than the %llu MiB of data blockkit reads in a MANIFEST "
                                "(Core's are kilobytes to a few megabytes): damaged",
                                srcdir, name, (unsigned long long)size,
                                (unsigned long long)(LDB_MANIFEST_MAX >> 20)),
                   SNAP_FAIL;
        size_t want = LDB_COPY_CHUNK;
        if (size - pos < want) want = (size_t)(size - pos);
        ssize_t r = pread(fd, buf, want, (off_t)pos);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return bk_error_set(err, BK_ERR_IO, pos, "cannot read %s/%s: %s", srcdir, name, strerror(errno)),
                   SNAP_FAIL;
        if (r == 0) break; /* shrank meanwhile: the size check below retries */
        for (ssize_t i = r; i > 0; i--)
            if (buf[i - 1]) {
                uint64_t at = pos + (uint64_t)(i - 1);
                last = (at / LDB_LOG_BLOCK + 1) * LDB_LOG_BLOCK;
                break;
            }
        pos += (uint64_t)r;
        scanned += (uint64_t)r;
    }
    if (last > size) last = size;
    if (last > LDB_MANIFEST_MAX)
        return bk_error_set(err, BK_ERR_INVALID, last,
                            "%s/%s: records to byte %llu, more than the %llu MiB blockkit reads in a MANIFEST "
                            "(Core's are kilobytes to a few megabytes): damaged",
                            srcdir, name, (unsigned long long)last, (unsigned long long)(LDB_MANIFEST_MAX >> 20)),
               SNAP_FAIL;
    *end = last;
    return SNAP_OK;
}

/* What one attempt saw of the source, to tell a database that is being
 * changed (try again) from one that is damaged the same way on every look
 * (say what is wrong). */
typedef struct ldb_look {
    char cur[256];       /* CURRENT's content */
    size_t curlen;
    int mstate;          /* the MANIFEST CURRENT names: 0 not looked at, 1 absent, 2 present */
    dev_t mdev;
    ino_t mino;
    uint64_t msize;
    uint64_t bad_table;  /* a live table missing or of the wrong size, 0: none */
    int changed;         /* this attempt itself saw the source change */
} ldb_look;

static int same_look(const ldb_look *a, const ldb_look *b)
{
    return a->curlen == b->curlen && memcmp(a->cur, b->cur, a->curlen) == 0 && a->mstate == b->mstate &&
           (a->mstate != 2 || (a->mdev == b->mdev && a->mino == b->mino && a->msize == b->msize)) &&
           a->bad_table == b->bad_table;
}

/* CURRENT's text for a message: printable ASCII, the rest as '?', at most
 * 40 characters. */
static void printable(char *out, size_t cap, const char *in, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 4 < cap && i < 40; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '\n') out[o++] = '\\', out[o++] = 'n';
        else out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (len > 40 && o + 4 < cap) memcpy(out + o, "...", 3), o += 3;
    out[o] = 0;
}

/* Read CURRENT (at most 255 bytes, "MANIFEST-NNNNNN\n") into cur. A
 * content that is not one MANIFEST name and a newline is SNAP_RETRY (Core
 * writes CURRENT by rename, so a torn read would be a change under way)
 * with err saying what is wrong if it stays so. */
static int read_current(int srcfd, const char *srcdir, char cur[256], size_t *len, bk_error *err)
{
    struct stat st;
    int fd = open_source(srcfd, "CURRENT", &st);
    if (fd < 0) {
        if (errno == ENOENT)
            return bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                                "%s is not a LevelDB directory (no CURRENT file)", srcdir),
                   SNAP_FAIL;
        if (errno == EINVAL)
            return bk_error_set(err, BK_ERR_INVALID, 0, "%s/CURRENT is not a regular file", srcdir),
                   SNAP_FAIL;
        return bk_error_set(err, BK_ERR_IO, 0, "cannot open %s/CURRENT: %s", srcdir, strerror(errno)),
               SNAP_FAIL;
    }
    ssize_t r;
    do r = pread(fd, cur, 255, 0);
    while (r < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (r < 0)
        return bk_error_set(err, BK_ERR_IO, 0, "cannot read %s/CURRENT: %s", srcdir, strerror(e)),
               SNAP_FAIL;
    cur[r] = 0;
    *len = (size_t)r;
    int ok = r >= 11 && cur[r - 1] == '\n' && strncmp(cur, "MANIFEST-", 9) == 0;
    for (ssize_t i = 9; ok && i < r - 1; i++)
        if (cur[i] < '0' || cur[i] > '9') ok = 0;
    if (ok) return SNAP_OK;
    if (r == 0) {
        bk_error_set(err, BK_ERR_INVALID, 0, "%s: CURRENT is empty (damaged or incomplete copy)", srcdir);
    } else {
        char text[64];
        printable(text, sizeof text, cur, (size_t)r);
        bk_error_set(err, BK_ERR_INVALID, 0,
                     "%s: CURRENT holds \"%s\", not a MANIFEST name and a newline (damaged or incomplete copy)",
                     srcdir, text);
    }
    return SNAP_RETRY;
}


/* ---- MANIFEST: which tables are live, and the next file number ----
 *
 * Hard links are safe only for tables LevelDB will never write again: the
 * live ones of the MANIFEST we copied. A table the node is still writing
 * (a compaction under way) has a number >= the MANIFEST's next file number,
 * and LevelDB opening our snapshot may create a file with exactly that
 * name (O_TRUNC): through a hard link that would truncate the node's file.
 * So only the live set is linked; nothing else is brought in.
 *
 * The MANIFEST is a LevelDB log (32 KiB blocks of records: crc32c, length,
 * type FULL/FIRST/MIDDLE/LAST) of VersionEdits (doc/impl.md, doc/log_format.md
 * in LevelDB's sources). libleveldb checks the checksums when it opens the
 * snapshot; here a malformed manifest makes us copy instead of link. */
typedef struct ldb_table {
    uint64_t num, size; /* table number, its size in bytes as LevelDB wrote it */
} ldb_table;

typedef struct ldb_manifest {
    uint64_t next_file;
    uint64_t log_number;
    uint64_t prev_log;
    ldb_table *live;
    size_t n_live, cap_live;
} ldb_manifest;

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        r |= (uint64_t)(b & 127) << shift;
        if (!(b & 128)) {
            *v = r;
            return 1;
        }
    }
    return 0;
}

static int skip_slice(const uint8_t **p, const uint8_t *end)
{
    uint64_t n;
    if (!get_varint(p, end, &n) || n > (uint64_t)(end - *p)) return 0;
    *p += n;
    return 1;
}

static int live_add(ldb_manifest *m, uint64_t num, uint64_t size)
{
    for (size_t i = 0; i < m->n_live; i++)
        if (m->live[i].num == num) {
            m->live[i].size = size;
            return 1;
        }
    if (m->n_live == m->cap_live) {
        size_t cap = m->cap_live ? m->cap_live * 2 : 64;
        ldb_table *l = realloc(m->live, cap * sizeof *l);
        if (!l) return 0;
        m->live = l;
        m->cap_live = cap;
    }
    m->live[m->n_live].num = num;
    m->live[m->n_live++].size = size;
    return 1;
}

static void live_del(ldb_manifest *m, uint64_t num)
{
    for (size_t i = 0; i < m->n_live; i++)
        if (m->live[i].num == num) {
            m->live[i] = m->live[--m->n_live];
            return;
        }
}

/* One VersionEdit. 0 on a malformed edit. */
static int apply_edit(ldb_manifest *m, const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        uint64_t tag, v, level;
        if (!get_varint(&p, end, &tag)) return 0;
        switch (tag) {
        case 1: if (!skip_slice(&p, end)) return 0; break;                     /* comparator */
        case 2: if (!get_varint(&p, end, &m->log_number)) return 0; break;      /* log number */
        case 3: if (!get_varint(&p, end, &v)) return 0;                         /* next file */
                if (v > m->next_file) m->next_file = v;
                break;
        case 4: if (!get_varint(&p, end, &v)) return 0; break;                  /* last sequence */
        case 5: if (!get_varint(&p, end, &level) || !skip_slice(&p, end)) return 0; break; /* compact pointer */
        case 6: if (!get_varint(&p, end, &level) || !get_varint(&p, end, &v)) return 0;     /* deleted file */
                live_del(m, v);
                break;
        case 7: {                                                               /* new file */
            uint64_t num, size;
            if (!get_varint(&p, end, &level) || !get_varint(&p, end, &num) || !get_varint(&p, end, &size) ||
                !skip_slice(&p, end) || !skip_slice(&p, end))
                return 0;
            if (!live_add(m, num, size)) return 0;
            break;
        }
        case 9: if (!get_varint(&p, end, &m->prev_log)) return 0; break;        /* prev log number */
        default: return 0;
        }
    }
    return 1;
}

/* Read n bytes at off; 0 on an error or a short file. */
static int pread_full(int fd, uint8_t *p, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, p + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        got += (size_t)r;
    }
    return 1;
}

/* Parse the snapshot's MANIFEST (len bytes, the copy's size) one 32 KiB
 * log block at a time, in blk (LDB_LOG_BLOCK bytes), as LevelDB's log
 * reader does: a zero header (preallocation, a sparse or zero-extended
 * file) ends its block, a torn last header or record ends the log. Holes
 * (SEEK_DATA) are whole zero blocks and are skipped unread, so a sparse
 * MANIFEST costs neither memory nor reading; only a record in fragments is
 * assembled, in memory that grows with the bytes it really holds. 0 when
 * it does not parse or cannot be read (then nothing is linked). */
static int parse_manifest(int fd, uint64_t len, ldb_manifest *m, uint8_t *blk)
{
    enum { HDR = 7 };
    uint8_t *rec = NULL;
    size_t rlen = 0, rcap = 0;
    int in_frag = 0, ok = 1, end = 0, seek_data = 1;
    for (uint64_t off = 0; ok && !end && off < len; off += LDB_LOG_BLOCK) {
        if (seek_data) {
            off_t d = lseek(fd, (off_t)off, SEEK_DATA);
            if (d < 0 && errno == ENXIO) break; /* only zero blocks from here */
            if (d < 0) seek_data = 0;           /* not supported here: read them */
            else if ((uint64_t)d >= off + LDB_LOG_BLOCK) {
                off = (uint64_t)d / LDB_LOG_BLOCK * LDB_LOG_BLOCK - LDB_LOG_BLOCK; /* its block, next */
                continue;
            }
        }
        size_t have = len - off < LDB_LOG_BLOCK ? (size_t)(len - off) : LDB_LOG_BLOCK;
        if (!pread_full(fd, blk, have, off)) { ok = 0; break; }
        size_t pos = 0;
        while (ok && pos < have) {
            if (LDB_LOG_BLOCK - pos < HDR) break; /* trailer padding */
            if (have - pos < HDR) { end = 1; break; } /* a torn last header: ignore, as LevelDB does */
            const uint8_t *h = blk + pos;
            size_t n = (size_t)h[4] | (size_t)h[5] << 8;
            uint8_t type = h[6];
            if (type == 0 && n == 0) break; /* zero fill: the rest of the block */
            if (HDR + n > have - pos) { end = 1; break; } /* torn last record */
            const uint8_t *payload = h + HDR;
            pos += HDR + n;
            if (type == 1) { /* FULL */
                ok = apply_edit(m, payload, payload + n);
                in_frag = 0;
            } else if (type == 2 || type == 3 || type == 4) {
                if (type == 2) rlen = 0, in_frag = 1;
                else if (!in_frag) { ok = 0; break; }
                if (rlen + n > rcap || !rec) { /* (a buffer even for empty fragments: no NULL + 0) */
                    size_t cap = (rlen + n) * 2 + 64;
                    uint8_t *r = realloc(rec, cap);
                    if (!r) { ok = 0; break; }
                    rec = r;
                    rcap = cap;
                }
                memcpy(rec + rlen, payload, n);
                rlen += n;
                if (type == 4) {
                    ok = apply_edit(m, rec, rec + rlen);
                    in_frag = 0;
                }
            } else {
                ok = 0;
            }
        }
    }
    free(rec);
    return ok && m->next_file > 0;
}

/* Table number of "NNNNNN.ldb" / ".sst", or 0 when the name is not one. */
static uint64_t table_number(const char *n)
{
    uint64_t v = 0;
    const char *p = n;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') {
        if (v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(*p++ - '0');
    }
    return (!strcmp(p, ".ldb") || !strcmp(p, ".sst")) ? v : 0;
}

/* The live table numbered num, or NULL. */
static const ldb_table *live_table(const ldb_manifest *m, uint64_t num)
{
    for (size_t i = 0; i < m->n_live; i++)
        if (m->live[i].num == num) return &m->live[i];
    return NULL;
}

/* One attempt at a consistent snapshot of srcdir into dstdir. SNAP_RETRY
 * with look->changed when the source moved on during the attempt; without
 * it, err says what was missing or wrong (if a second look sees the same,
 * that is the error). */
static int snapshot_once(int srcfd, const char *srcdir, int dstfd, char *buf, int may_copy, ldb_look *look,
                         bk_error *err)
{
    char cur2[256];
    size_t curlen2 = 0;
    char *cur = look->cur;
    int rc = read_current(srcfd, srcdir, cur, &look->curlen, err);
    if (rc != SNAP_OK) return rc;
    size_t curlen = look->curlen;
    char manifest[256];
    memcpy(manifest, cur, curlen - 1);
    manifest[curlen - 1] = 0;

    /* The manifest first: its size now is what the tables below must cover. */
    struct stat mst;
    int mfd = open_source(srcfd, manifest, &mst);
    if (mfd < 0) {
        if (errno == ENOENT) {
            look->mstate = 1;
            bk_error_set(err, BK_ERR_INVALID, 0, "%s: CURRENT names %s, which does not exist (damaged or incomplete copy)",
                         srcdir, manifest);
            return SNAP_RETRY;
        }
        if (errno == EINVAL)
            return bk_error_set(err, BK_ERR_INVALID, 0, "%s/%s is not a regular file", srcdir, manifest),
                   SNAP_FAIL;
        return bk_error_set(err, BK_ERR_IO, 0, "cannot open %s/%s: %s", srcdir, manifest, strerror(errno)),
               SNAP_FAIL;
    }
    look->mstate = 2;
    look->mdev = mst.st_dev;
    look->mino = mst.st_ino;
    look->msize = (uint64_t)mst.st_size;
    uint64_t msize = (uint64_t)mst.st_size, mend = 0;
    rc = manifest_end(mfd, msize, buf, srcdir, manifest, &mend, err);
    if (rc == SNAP_OK) rc = copy_fd(mfd, dstfd, manifest, mend, buf, err, srcdir);
    close(mfd);
    if (rc != SNAP_OK) return rc;
    ldb_manifest m = {0};
    int parsed = 0;
    int copyfd = openat(dstfd, manifest, O_RDONLY | O_CLOEXEC);
    if (copyfd >= 0) {
        struct stat cst;
        parsed = fstat(copyfd, &cst) == 0 && parse_manifest(copyfd, (uint64_t)cst.st_size, &m, (uint8_t *)buf);
        close(copyfd);
    }
    uint64_t live_bytes = 0;
    for (size_t i = 0; parsed && i < m.n_live; i++) live_bytes += m.live[i].size;
    int link_tables = !may_copy || live_bytes > LDB_COPY_TABLES_MAX;

    /* Tables (linked, or copied), then logs (copied, last: they grow). */
    for (int pass = 0; pass < 2; pass++) {
        int dupfd = dup(srcfd);
        if (dupfd < 0) {
            free(m.live);
            return bk_error_set(err, BK_ERR_IO, 0, "cannot read %s: %s", srcdir, strerror(errno)), SNAP_FAIL;
        }
        DIR *d = fdopendir(dupfd);
        if (!d) {
            close(dupfd);
            free(m.live);
            return bk_error_set(err, BK_ERR_IO, 0, "cannot read %s: %s", srcdir, strerror(errno)), SNAP_FAIL;
        }
        rewinddir(d);
        struct dirent *e;
        rc = SNAP_OK;
        while (rc == SNAP_OK && (e = readdir(d)) != NULL) {
            const char *n = e->d_name;
            uint64_t num = table_number(n);
            int table = num != 0;
            int log = ends_with(n, ".log");
            if (pass == 0 ? !table : !log) continue;
            /* Only the live tables of our MANIFEST: anything else is obsolete
             * or still being written (see above). Unparsed: copy them all. */
            const ldb_table *lt = parsed && num < m.next_file ? live_table(&m, num) : NULL;
            int linkable = lt != NULL;
            if (table && parsed && !linkable) continue;
            struct stat st;
            int fd = open_source(srcfd, n, &st);
            if (fd < 0) {
                if (errno == ENOENT) rc = SNAP_RETRY, look->changed = 1; /* removed by a compaction */
                else if (errno == EINVAL)
                    rc = SNAP_FAIL, bk_error_set(err, BK_ERR_INVALID, 0, "%s/%s is not a regular file", srcdir, n);
                else
                    rc = SNAP_FAIL, bk_error_set(err, BK_ERR_IO, 0, "cannot open %s/%s: %s", srcdir, n, strerror(errno));
                break;
            }
            /* A live table is complete and never changes: another size is
             * a truncated or damaged copy (LevelDB would fail on it later,
             * naming only the snapshot's file). */
            if (lt && (uint64_t)st.st_size != lt->size) {
                close(fd);
                if (!look->bad_table) {
                    look->bad_table = num;
                    bk_error_set(err, BK_ERR_INVALID, 0, "%s/%s is %llu bytes, %s lists it as %llu (truncated or damaged)",
                                 srcdir, n, (unsigned long long)st.st_size, manifest, (unsigned long long)lt->size);
                }
                continue;
            }
            /* A small database's tables are copied (no ctime change in the
             * source); a copy that fails (a full TMPDIR) is linked instead. */
            bk_error ce;
            int copy_failed = 0;
            if (linkable && !link_tables) {
                if (copy_fd(fd, dstfd, n, UINT64_MAX, buf, &ce, srcdir) == SNAP_OK) {
                    close(fd);
                    continue;
                }
                (void)unlinkat(dstfd, n, 0);
                copy_failed = 1;
            }
            if (linkable && linkat(fd, "", dstfd, n, AT_EMPTY_PATH) == 0) {
                close(fd);
                continue;
            }
            if (linkable && linkat(srcfd, n, dstfd, n, 0) == 0) {
                /* The name may now point at another file than fd (removed and
                 * recreated): LevelDB never reuses table numbers, so it is the
                 * same table or an ENOENT above. */
                close(fd);
                continue;
            }
            if (copy_failed) {
                if (err) *err = ce;
                rc = SNAP_FAIL;
            } else {
                rc = copy_fd(fd, dstfd, n, UINT64_MAX, buf, err, srcdir);
            }
            close(fd);
        }
        closedir(d);
        if (rc != SNAP_OK) {
            free(m.live);
            return rc;
        }
    }
    /* Every live table must be here, else a compaction removed one after
     * the MANIFEST was read, or the copy is damaged (told apart below). */
    for (size_t i = 0; parsed && !look->bad_table && i < m.n_live; i++) {
        char tn[32];
        struct stat st;
        snprintf(tn, sizeof tn, "%06llu.ldb", (unsigned long long)m.live[i].num);
        if (fstatat(dstfd, tn, &st, AT_SYMLINK_NOFOLLOW) == 0) continue;
        snprintf(tn, sizeof tn, "%06llu.sst", (unsigned long long)m.live[i].num);
        if (fstatat(dstfd, tn, &st, AT_SYMLINK_NOFOLLOW) == 0) continue;
        look->bad_table = m.live[i].num;
        bk_error_set(err, BK_ERR_INVALID, 0, "%s: %s lists table %06llu.ldb, which does not exist (damaged or incomplete copy)",
                     srcdir, manifest, (unsigned long long)m.live[i].num);
    }
    free(m.live);

    /* Consistent only if CURRENT and the manifest did not move on. */
    bk_error e2;
    rc = read_current(srcfd, srcdir, cur2, &curlen2, &e2);
    if (rc == SNAP_FAIL) {
        if (err) *err = e2;
        return rc;
    }
    if (rc == SNAP_RETRY || curlen2 != curlen || memcmp(cur, cur2, curlen) != 0) return look->changed = 1, SNAP_RETRY;
    struct stat mst2;
    if (fstatat(srcfd, manifest, &mst2, AT_SYMLINK_NOFOLLOW) != 0 || (uint64_t)mst2.st_size != msize ||
        mst2.st_ino != mst.st_ino || mst2.st_dev != mst.st_dev)
        return look->changed = 1, SNAP_RETRY;
    if (look->bad_table) return SNAP_RETRY;

    int cfd = openat(dstfd, "CURRENT", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (cfd < 0) return bk_error_set(err, BK_ERR_IO, 0, "cannot create snapshot CURRENT: %s", strerror(errno)), SNAP_FAIL;
    ssize_t w = write(cfd, cur, curlen);
    if (close(cfd) != 0 || w != (ssize_t)curlen)
        return bk_error_set(err, BK_ERR_IO, 0, "cannot write snapshot CURRENT"), SNAP_FAIL;
    return SNAP_OK;
}

/* A LevelDB status text ("Corruption: ...", "IO error: PATH: reason", ...)
 * as a bk_status and a message that names the source database, the
 * snapshot directory replaced by the source's in any path LevelDB names
 * (the snapshot is gone before the message is read; its tables are the
 * source's, linked or copied). Bad data (BK_ERR_INVALID): Corruption, an
 * invalid argument (LevelDB's word for a database it cannot take), a
 * missing file, and an "IO error: FILE: Invalid argument", which is how
 * LevelDB's mmap reader says that a read goes past the end of a table (a
 * table shorter than its index says). Any other IO error is BK_ERR_IO. */
static bk_status ldb_fail(const char *src, const char *snap, const char *lerr, bk_error *err)
{
    if (!lerr) lerr = "unknown error";
    char text[2 * BK_ERROR_MSG_MAX];
    size_t o = 0, sl = strlen(snap), srl = strlen(src);
    for (const char *p = lerr; *p && o + 1 < sizeof text;) {
        if (sl && !strncmp(p, snap, sl)) {
            size_t n = srl < sizeof text - 1 - o ? srl : sizeof text - 1 - o;
            memcpy(text + o, src, n);
            o += n;
            p += sl;
        } else {
            text[o++] = *p++;
        }
    }
    text[o] = 0;
    bk_status st = BK_ERR_IO;
    const char *why = "";
    if (!strncmp(lerr, "Corruption: ", 12) || !strncmp(lerr, "Invalid argument: ", 18) ||
        !strncmp(lerr, "NotFound: ", 10)) {
        st = BK_ERR_INVALID;
    } else if (!strncmp(lerr, "IO error: ", 10) && ends_with(lerr, ": Invalid argument")) {
        st = BK_ERR_INVALID;
        why = " (a read past the end of the table: truncated or damaged)";
    }
    return bk_error_set(err, st, 0, "%s: LevelDB: %s%s", src, text, why);
}

bk_status bk_ldb_open(const char *dbdir, const char *tmpdir, bk_ldb **db_out, bk_error *err)
{
    return bk_ldb_open_opts(dbdir, tmpdir, NULL, db_out, err);
}

bk_status bk_ldb_open_opts(const char *dbdir, const char *tmpdir, const bk_ldb_opts *o, bk_ldb **db_out,
                           bk_error *err)
{
    if (!db_out || !dbdir) return bk_error_set(err, BK_ERR_ARG, 0, "bk_ldb_open: NULL argument");
    *db_out = NULL;
    bk_error local;
    if (!err) err = &local; /* the status of a failure is err->status */
    struct stat st;
    if (stat(dbdir, &st) != 0)
        return bk_error_set(err, errno == ENOENT ? BK_ERR_NOT_FOUND : BK_ERR_IO, 0, "cannot open %s: %s", dbdir,
                            strerror(errno));
    if (!S_ISDIR(st.st_mode)) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s is not a directory", dbdir);
    int srcfd = open(dbdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (srcfd < 0) return bk_error_set(err, BK_ERR_IO, 0, "cannot open %s: %s", dbdir, strerror(errno));

    bk_ldb *db = calloc(1, sizeof *db);
    char *buf = malloc(LDB_COPY_CHUNK);
    if (!db || !buf) {
        free(db);
        free(buf);
        close(srcfd);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    if (!tmpdir || !*tmpdir) tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    db->lockfd = -1;
    snprintf(db->src, sizeof db->src, "%s", dbdir);
    sweep_stale(tmpdir);
    for (int made = 0; made < 3; made++) {
        int n = snprintf(db->dir, sizeof db->dir, "%s/" SNAP_PREFIX "new-%ld-XXXXXX", tmpdir, (long)getpid());
        if (n < 0 || (size_t)n >= sizeof db->dir || !mkdtemp(db->dir)) {
            int e = errno;
            free(db);
            free(buf);
            close(srcfd);
            return bk_error_set(err, BK_ERR_IO, 0, "cannot make a snapshot directory under %s: %s", tmpdir,
                                n >= 0 && (size_t)n < sizeof db->dir ? strerror(e) : "path too long");
        }
        db->lockfd = open(db->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (db->lockfd >= 0 && flock(db->lockfd, LOCK_EX | LOCK_NB) != 0) {
            close(db->lockfd);
            db->lockfd = -1;
        }
        if (db->lockfd < 0) break; /* no lock to be had here: the directory as made */
        char named[sizeof db->dir];
        size_t dl = strlen(db->dir);
        int m = snprintf(named, sizeof named, "%s/" SNAP_PREFIX "%ld-%s", tmpdir, (long)getpid(), db->dir + dl - 6);
        if (m > 0 && (size_t)m < sizeof named && rename(db->dir, named) == 0) {
            memcpy(db->dir, named, (size_t)m + 1);
            break;
        }
        if (errno != ENOENT) break; /* kept under its new- name, still locked */
        /* Swept away before the lock was taken: make another. */
        close(db->lockfd);
        db->lockfd = -1;
    }
    int dstfd = open(db->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = dstfd < 0 ? SNAP_FAIL : SNAP_RETRY;
    if (dstfd < 0) bk_error_set(err, BK_ERR_IO, 0, "cannot open %s: %s", db->dir, strerror(errno));
    /* Try again only while the source changes between two looks; the same
     * file missing or wrong twice over is a damaged database, said as such
     * (bad data, not a node at work). */
    ldb_look prev, look;
    int have_prev = 0, changes = 0;
    for (int attempt = 0; attempt < LDB_SNAPSHOT_TRIES && rc == SNAP_RETRY; attempt++) {
        if (attempt) {
            /* Let a flush or compaction under way finish: 1, 2, 4 .. 64 ms. */
            struct timespec ts = {0, (long)(1000000L << (attempt < 7 ? attempt - 1 : 6))};
            nanosleep(&ts, NULL);
            clear_dir(db->dir);
        }
        memset(&look, 0, sizeof look);
        /* Copying is slower than linking: a database that changed under
         * two copies (a node flushing hard) is linked from then on. */
        rc = snapshot_once(srcfd, dbdir, dstfd, buf, changes < 2, &look, err);
        changes += rc == SNAP_RETRY && look.changed;
        if (rc == SNAP_RETRY && !look.changed && have_prev && !prev.changed && same_look(&prev, &look))
            rc = SNAP_FAIL; /* err says what */
        prev = look;
        have_prev = 1;
    }
    if (rc == SNAP_RETRY)
        bk_error_set(err, BK_ERR_IO, 0, "%s kept changing: no consistent snapshot after %d tries", dbdir,
                     LDB_SNAPSHOT_TRIES);
    if (dstfd >= 0) close(dstfd);
    close(srcfd);
    free(buf);
    if (rc != SNAP_OK) {
        remove_tree(db->dir);
        if (db->lockfd >= 0) close(db->lockfd);
        free(db);
        return err->status;
    }

    db->opts = leveldb_options_create();
    leveldb_options_set_create_if_missing(db->opts, 0);
    leveldb_options_set_max_open_files(db->opts, o && o->max_open_files > 64 ? o->max_open_files : 64);
    if (o && o->block_cache_bytes) {
        db->cache = leveldb_cache_create_lru(o->block_cache_bytes);
        if (!db->cache) {
            bk_ldb_close(db);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
        leveldb_options_set_cache(db->opts, db->cache);
    }
    db->ropts = leveldb_readoptions_create();
    leveldb_readoptions_set_verify_checksums(db->ropts, 1);
    leveldb_readoptions_set_fill_cache(db->ropts, 0);
    char *lerr = NULL;
    db->db = leveldb_open(db->opts, db->dir, &lerr);
    if (!db->db) {
        bk_status fst = ldb_fail(db->src, db->dir, lerr, err);
        leveldb_free(lerr);
        bk_ldb_close(db);
        return fst;
    }
    *db_out = db;
    return BK_OK;
}

void bk_ldb_close(bk_ldb *db)
{
    if (!db) return;
    if (db->db) leveldb_close(db->db);
    if (db->ropts) leveldb_readoptions_destroy(db->ropts);
    if (db->opts) leveldb_options_destroy(db->opts);
    if (db->cache) leveldb_cache_destroy(db->cache);
    if (db->dir[0]) remove_tree(db->dir);
    if (db->lockfd >= 0) close(db->lockfd);
    free(db);
}

void bk_ldb_fill_cache(bk_ldb *db, int on)
{
    if (db && db->ropts) leveldb_readoptions_set_fill_cache(db->ropts, (unsigned char)(on != 0));
}

const char *bk_ldb_snapshot_dir(const bk_ldb *db) { return db ? db->dir : ""; }

bk_status bk_ldb_get(bk_ldb *db, const uint8_t *key, size_t klen, uint8_t **val_out, size_t *vlen_out,
                     bk_error *err)
{
    if (!db || !val_out || !vlen_out || (!key && klen))
        return bk_error_set(err, BK_ERR_ARG, 0, "bk_ldb_get: NULL argument");
    *val_out = NULL;
    *vlen_out = 0;
    char *lerr = NULL;
    size_t vlen = 0;
    char *v = leveldb_get(db->db, db->ropts, (const char *)key, klen, &vlen, &lerr);
    if (lerr) {
        bk_status st = ldb_fail(db->src, db->dir, lerr, err);
        leveldb_free(lerr);
        leveldb_free(v);
        return st;
    }
    if (!v) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "key not found");
    /* leveldb_get's buffer comes from malloc (LevelDB's C API contract:
     * leveldb_free is free), so it is handed out as is. */
    *val_out = (uint8_t *)v;
    *vlen_out = vlen;
    return BK_OK;
}

void bk_ldb_free(void *p) { leveldb_free(p); }

bk_status bk_ldb_iter_new_range(bk_ldb *db, const uint8_t *prefix, size_t plen, const uint8_t *start, size_t slen,
                                const uint8_t *limit, size_t llen, bk_ldb_iter **it_out, bk_error *err)
{
    if (!db || !it_out || (!prefix && plen) || (!start && slen) || (!limit && llen))
        return bk_error_set(err, BK_ERR_ARG, 0, "bk_ldb_iter_new: NULL argument");
    *it_out = NULL;
    bk_ldb_iter *it = calloc(1, sizeof *it);
    if (!it) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (plen + slen + llen) {
        it->prefix = malloc(plen + slen + llen);
        if (!it->prefix) {
            free(it);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
        if (plen) memcpy(it->prefix, prefix, plen);
        if (slen) memcpy(it->prefix + plen, start, slen);
        if (llen) memcpy(it->prefix + plen + slen, limit, llen);
    }
    it->db = db;
    it->plen = plen;
    it->start = it->prefix ? it->prefix + plen : NULL;
    it->slen = slen;
    it->limit = it->prefix ? it->prefix + plen + slen : NULL;
    it->llen = llen;
    it->it = leveldb_create_iterator(db->db, db->ropts);
    if (!it->it) {
        free(it->prefix);
        free(it);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    *it_out = it;
    return BK_OK;
}

bk_status bk_ldb_iter_new(bk_ldb *db, const uint8_t *prefix, size_t plen, bk_ldb_iter **it_out, bk_error *err)
{
    return bk_ldb_iter_new_range(db, prefix, plen, NULL, 0, NULL, 0, it_out, err);
}

/* LevelDB's bytewise order: a < b. */
static int key_less(const char *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c < 0 || (c == 0 && al < bl);
}

int bk_ldb_iter_next(bk_ldb_iter *it, const uint8_t **key, size_t *klen, const uint8_t **val, size_t *vlen)
{
    if (!it || it->done) return 0;
    if (!it->started) {
        it->started = 1;
        /* From the later of the prefix and start. */
        const uint8_t *from = it->prefix;
        size_t fl = it->plen;
        if (it->slen && key_less((const char *)from, fl, it->start, it->slen)) {
            from = it->start;
            fl = it->slen;
        }
        if (fl) leveldb_iter_seek(it->it, (const char *)from, fl);
        else leveldb_iter_seek_to_first(it->it);
    } else {
        leveldb_iter_next(it->it);
    }
    if (!leveldb_iter_valid(it->it)) {
        it->done = 1;
        return 0;
    }
    size_t kl = 0, vl = 0;
    const char *k = leveldb_iter_key(it->it, &kl);
    if (kl < it->plen || (it->plen && memcmp(k, it->prefix, it->plen) != 0) ||
        (it->llen && !key_less(k, kl, it->limit, it->llen))) {
        it->done = 1;
        return 0;
    }
    const char *v = leveldb_iter_value(it->it, &vl);
    if (key) *key = (const uint8_t *)k;
    if (klen) *klen = kl;
    if (val) *val = (const uint8_t *)v;
    if (vlen) *vlen = vl;
    return 1;
}

bk_status bk_ldb_iter_status(const bk_ldb_iter *it, bk_error *err)
{
    if (!it) return bk_error_set(err, BK_ERR_ARG, 0, "bk_ldb_iter_status: NULL argument");
    char *lerr = NULL;
    leveldb_iter_get_error(it->it, &lerr);
    if (lerr) {
        bk_status st = ldb_fail(it->db->src, it->db->dir, lerr, err);
        leveldb_free(lerr);
        return st;
    }
    return BK_OK;
}

void bk_ldb_iter_free(bk_ldb_iter *it)
{
    if (!it) return;
    if (it->it) leveldb_iter_destroy(it->it);
    free(it->prefix);
    free(it);
}

uint64_t bk_ldb_approximate_size(bk_ldb *db, const uint8_t *start, size_t slen, const uint8_t *limit, size_t llen)
{
    if (!db) return 0;
    const char *s = (const char *)start, *l = (const char *)limit;
    uint64_t size = 0;
    leveldb_approximate_sizes(db->db, 1, &s, &slen, &l, &llen, &size);
    return size;
}
