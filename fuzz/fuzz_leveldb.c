/* Fuzz the private LevelDB snapshot (bk_ldb_open, blockkit/leveldb.h) over
 * a LevelDB directory made from the input: CURRENT, a MANIFEST (optionally
 * extended by a hole, with or without a byte after it) and a log. This
 * exercises the CURRENT check, the MANIFEST's extent scan (what is copied),
 * its parse (which tables are live), the copy, LevelDB's recovery in the
 * snapshot and the mapping of its errors.
 *
 * Input: byte 0 flags: bit 0 a log (000003.log) from the bytes after the
 * MANIFEST, bit 1 CURRENT from the input (else "MANIFEST-000002\n"), bit 2
 * a 0x01 byte after the hole; byte 1 CURRENT's length (when bit 1), then
 * those bytes; u16 LE hole size in HOLE_UNIT bytes (a sparse MANIFEST up
 * to twice the bound blockkit reads: 4 MiB in the fuzz build, where
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION shrinks it from 256 MiB, so a
 * unit at the bound takes milliseconds, not seconds); u16 LE the
 * MANIFEST's length, then its bytes; the rest is the log.
 *
 * Checks: an open snapshot is read to its end (every key once, bounded);
 * an error has a status among the documented ones and a message that never
 * names the snapshot directory (removed by then); nothing is ever left in
 * the tmpdir, and the source's files keep their sizes. */
#include <blockkit/leveldb.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define HOLE_UNIT 128u  /* up to 8 MiB: past the fuzz build's 4 MiB bound */
#else
#define HOLE_UNIT 8192u /* the corpus replayed by the plain build: up to 512 MiB, past 256 MiB */
#endif

static char g_root[512], g_src[600], g_tmp[600];

static size_t clear(const char *dir);

static void remove_root(void)
{
    clear(g_src);
    clear(g_tmp);
    (void)rmdir(g_src);
    (void)rmdir(g_tmp);
    (void)rmdir(g_root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *t = getenv("TMPDIR");
    snprintf(g_root, sizeof g_root, "%s/bk-fuzz-ldb-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(g_root)) {
        perror("fuzz_leveldb: mkdtemp");
        exit(1);
    }
    snprintf(g_src, sizeof g_src, "%s/db", g_root);
    snprintf(g_tmp, sizeof g_tmp, "%s/tmp", g_root);
    if (mkdir(g_src, 0700) != 0 || mkdir(g_tmp, 0700) != 0) {
        perror("fuzz_leveldb: mkdir");
        exit(1);
    }
    atexit(remove_root);
    return 0;
}

static void put(const char *name, const uint8_t *p, size_t n)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", g_src, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) abort();
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) abort();
        p += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0) abort();
}

/* Remove every file of a flat directory; the count removed. */
static size_t clear(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        (void)unlink(path);
        n++;
    }
    closedir(d);
    return n;
}

/* echo: the input holds our directory's name (CURRENT's text is quoted
 * in a message), so the message may too. */
static void check_msg(const bk_error *err, bk_status st, int echo)
{
    if (st != BK_ERR_INVALID && st != BK_ERR_IO && st != BK_ERR_NOT_FOUND && st != BK_ERR_NOMEM) abort();
    if (err->status != st || !err->msg[0]) abort();
    if (!echo && strstr(err->msg, g_tmp)) abort(); /* the snapshot (in g_tmp) is gone: never named */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_root[0]) LLVMFuzzerInitialize(NULL, NULL);
    if (size < 1) return 0;
    uint8_t flags = data[0];
    size_t pos = 1;
    const uint8_t *cur = (const uint8_t *)"MANIFEST-000002\n";
    size_t curlen = 16;
    if (flags & 2) {
        if (pos >= size) return 0;
        curlen = data[pos++];
        if (curlen > size - pos) curlen = size - pos;
        cur = data + pos;
        pos += curlen;
    }
    if (size - pos < 4) return 0;
    uint64_t hole = (uint64_t)(data[pos] | data[pos + 1] << 8) * HOLE_UNIT;
    size_t mlen = (size_t)(data[pos + 2] | data[pos + 3] << 8);
    pos += 4;
    if (mlen > size - pos) mlen = size - pos;
    const uint8_t *man = data + pos;
    pos += mlen;

    put("CURRENT", cur, curlen);
    put("MANIFEST-000002", man, mlen);
    char mpath[700];
    snprintf(mpath, sizeof mpath, "%s/MANIFEST-000002", g_src);
    uint64_t msize = mlen;
    if (hole) {
        msize += hole;
        if (truncate(mpath, (off_t)msize) != 0) abort();
        if (flags & 4) {
            int fd = open(mpath, O_WRONLY);
            if (fd < 0 || pwrite(fd, "\x01", 1, (off_t)msize) != 1 || close(fd) != 0) abort();
            msize++;
        }
    }
    if (flags & 1) put("000003.log", data + pos, size - pos);

    int echo = memmem(data, size, "bk-fuzz-ldb-", 12) != NULL;
    bk_ldb *db = NULL;
    bk_error err;
    bk_status st = bk_ldb_open(g_src, g_tmp, &db, &err);
    if (st == BK_OK) {
        if (!db) abort();
        bk_ldb_iter *it = NULL;
        st = bk_ldb_iter_new(db, NULL, 0, &it, &err);
        if (st != BK_OK) abort();
        size_t n = 0;
        while (n < 100000 && bk_ldb_iter_next(it, NULL, NULL, NULL, NULL)) n++;
        st = bk_ldb_iter_status(it, &err);
        if (st != BK_OK) check_msg(&err, st, echo);
        bk_ldb_iter_free(it);
        bk_ldb_close(db);
    } else {
        if (db) abort();
        check_msg(&err, st, echo);
    }
    if (clear(g_tmp) != 0) abort(); /* nothing left behind */
    struct stat sb;
    if (stat(mpath, &sb) != 0 || (uint64_t)sb.st_size != msize) abort(); /* the source never written */
    clear(g_src);
    return 0;
}
