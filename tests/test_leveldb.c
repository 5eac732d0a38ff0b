/* Private LevelDB snapshots (blockkit/leveldb.h) on the real regtest node's
 * databases: what they read, that the source never changes, that a FIFO or
 * a non-LevelDB directory is an error, and that a snapshot taken while
 * another process holds the database open and writes to it never fails
 * with a lock error and sees a consistent state. */
#include <blockkit/leveldb.h>
#include <blockkit/sha256.h>

#include <dirent.h>
#include <errno.h>
#include <leveldb/c.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define REGTEST BK_REGTEST_DIR "/full/regtest"

/* SHA-256 over the sorted listing of a flat directory: names, sizes,
 * contents. */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static void dir_digest(const char *dir, uint8_t out[32])
{
    char *names[256];
    size_t n = 0;
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    bk_sha256_ctx ctx;
    bk_sha256_init(&ctx);
    for (size_t i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        bk_sha256_update(&ctx, (const uint8_t *)names[i], strlen(names[i]) + 1);
        size_t len = 0;
        uint8_t *data = check_read_file(path, &len);
        uint64_t l = len;
        bk_sha256_update(&ctx, (const uint8_t *)&l, sizeof l);
        bk_sha256_update(&ctx, data, len);
        free(data);
        free(names[i]);
    }
    bk_sha256_final(&ctx, out);
}

static size_t count_prefix(bk_ldb *db, const char *prefix, size_t plen)
{
    bk_ldb_iter *it = NULL;
    bk_error err;
    if (bk_ldb_iter_new(db, (const uint8_t *)prefix, plen, &it, &err) != BK_OK) return (size_t)-1;
    size_t n = 0;
    const uint8_t *k;
    size_t kl;
    while (bk_ldb_iter_next(it, &k, &kl, NULL, NULL)) {
        CHECK(kl >= plen && memcmp(k, prefix, plen) == 0);
        n++;
    }
    CHECK_EQ_INT(bk_ldb_iter_status(it, &err), BK_OK);
    bk_ldb_iter_free(it);
    return n;
}

/* Lines of a zstd-compressed NDJSON file of Core's answers. */
static size_t zst_lines(const char *name)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "zstd -dc '%s/regtest/%s' | wc -l", BK_TEST_DATA, name);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    if (!p || fscanf(p, "%zu", &n) != 1) n = 0;
    if (p) pclose(p);
    return n;
}

static void test_block_index_snapshot(void)
{
    uint8_t before[32], after[32];
    dir_digest(REGTEST "/blocks/index", before);
    bk_ldb *db = NULL;
    bk_error err;
    CHECK_EQ_INT(bk_ldb_open(REGTEST "/blocks/index", NULL, &db, &err), BK_OK);
    if (!db) { fprintf(stderr, "%s\n", err.msg); return; }
    char snap[1024];
    snprintf(snap, sizeof snap, "%s", bk_ldb_snapshot_dir(db));
    struct stat st;
    CHECK(stat(snap, &st) == 0 && S_ISDIR(st.st_mode));
    /* Every block Core answers getblockheader for has a 'b' record (active
     * and off-chain blocks; the index also keeps headers it never stored). */
    size_t want = zst_lines("getblockheader.ndjson.zst");
    CHECK(want >= 979);
    size_t got = count_prefix(db, "b", 1);
    CHECK(got >= want);
    /* The last-file record 'l' is a 4-byte int. */
    uint8_t *v = NULL;
    size_t vl = 0;
    CHECK_EQ_INT(bk_ldb_get(db, (const uint8_t *)"l", 1, &v, &vl, &err), BK_OK);
    CHECK_EQ_INT(vl, 4);
    if (v) CHECK_EQ_INT(v[0] | v[1] << 8 | v[2] << 16 | (uint32_t)v[3] << 24, 86);
    bk_ldb_free(v);
    CHECK_EQ_INT(bk_ldb_get(db, (const uint8_t *)"nosuchkey", 9, &v, &vl, &err), BK_ERR_NOT_FOUND);
    CHECK(v == NULL);
    /* Ranges of one prefix (the chain build's two threads): the two halves
     * of the 'b' keys are disjoint, each in order and inside its bounds,
     * and together every 'b' key once; a start below the prefix starts at
     * it, a limit at the prefix's end ends it. */
    {
        static const uint8_t b = 'b', mid[2] = {'b', 0x80}, lo[1] = {'a'}, end[1] = {'c'};
        size_t halves = 0;
        const struct {
            const uint8_t *s, *l;
            size_t sl, ll;
        } r[4] = {{NULL, mid, 0, 2}, {mid, NULL, 2, 0}, {lo, end, 1, 1}, {mid, mid, 2, 2}};
        size_t cnt[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4; i++) {
            bk_ldb_iter *it = NULL;
            CHECK_EQ_INT(bk_ldb_iter_new_range(db, &b, 1, r[i].s, r[i].sl, r[i].l, r[i].ll, &it, &err), BK_OK);
            const uint8_t *k;
            size_t kl;
            uint8_t prev[64];
            size_t pl = 0;
            while (it && bk_ldb_iter_next(it, &k, &kl, NULL, NULL)) {
                CHECK(kl == 33 && k[0] == 'b');
                if (i == 0) CHECK(k[1] < 0x80);
                if (i == 1) CHECK(k[1] >= 0x80);
                if (pl) CHECK(memcmp(prev, k, 33) < 0);
                memcpy(prev, k, 33);
                pl = 33;
                cnt[i]++;
            }
            if (it) CHECK_EQ_INT(bk_ldb_iter_status(it, &err), BK_OK);
            bk_ldb_iter_free(it);
        }
        halves = cnt[0] + cnt[1];
        CHECK_EQ_INT(halves, got);
        CHECK(cnt[0] > 0 && cnt[1] > 0);
        CHECK_EQ_INT(cnt[2], got);
        CHECK_EQ_INT(cnt[3], 0);
    }
    bk_ldb_close(db);
    CHECK(stat(snap, &st) != 0 && errno == ENOENT);
    dir_digest(REGTEST "/blocks/index", after);
    CHECK_MEM(before, after, 32);
}

static void test_chainstate_log_replayed(void)
{
    /* The best-block record 'B' lives only in the .log Core left at
     * shutdown (README: chainstate/000018.log): found only if replayed. */
    bk_ldb *db = NULL;
    bk_error err;
    CHECK_EQ_INT(bk_ldb_open(REGTEST "/chainstate", NULL, &db, &err), BK_OK);
    if (!db) return;
    uint8_t *v = NULL;
    size_t vl = 0;
    CHECK_EQ_INT(bk_ldb_get(db, (const uint8_t *)"B", 1, &v, &vl, &err), BK_OK);
    CHECK_EQ_INT(vl, 32);
    bk_ldb_free(v);
    static const uint8_t okey[] = "\x0e\x00obfuscate_key";
    CHECK_EQ_INT(bk_ldb_get(db, okey, sizeof okey - 1, &v, &vl, &err), BK_OK);
    CHECK_EQ_INT(vl, 9); /* CompactSize 8 + the 8-byte key */
    bk_ldb_free(v);
    CHECK_EQ_INT(count_prefix(db, "C", 1), 10845); /* the UTXO set at the tip */
    CHECK(bk_ldb_approximate_size(db, (const uint8_t *)"C", 1, (const uint8_t *)"D", 1) > 0);
    bk_ldb_close(db);
}

static void make_tmp(char *dir, size_t n)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, n, "%s/bk-test-ldb-XXXXXX", t && *t ? t : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
}

static void rm_rf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static void test_not_leveldb_and_fifo(void)
{
    char dir[512], path[1024];
    make_tmp(dir, sizeof dir);
    bk_ldb *db = NULL;
    bk_error err;
    CHECK_EQ_INT(bk_ldb_open(dir, NULL, &db, &err), BK_ERR_NOT_FOUND);
    CHECK(strstr(err.msg, "not a LevelDB directory") != NULL);
    snprintf(path, sizeof path, "%s/missing", dir);
    CHECK_EQ_INT(bk_ldb_open(path, NULL, &db, &err), BK_ERR_NOT_FOUND);
    /* A copy of the index with a FIFO in place of a live table: an error
     * naming it, never a hang (a blocking open of a FIFO waits for a
     * writer). A FIFO that is no live table is never opened at all. */
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "cp '%s'/* '%s'/ && chmod u+w '%s'/*", REGTEST "/blocks/index", dir, dir);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/000777.ldb", dir);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK_EQ_INT(bk_ldb_open(dir, NULL, &db, &err), BK_OK);
    bk_ldb_close(db);
    db = NULL;
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/000005.ldb", dir); /* live in this index */
    CHECK(unlink(path) == 0);
    CHECK(mkfifo(path, 0600) == 0);
    time_t t0 = time(NULL);
    CHECK_EQ_INT(bk_ldb_open(dir, NULL, &db, &err), BK_ERR_INVALID);
    CHECK(strstr(err.msg, "000005.ldb") != NULL && strstr(err.msg, "not a regular file") != NULL);
    CHECK(time(NULL) - t0 < 5);
    CHECK(db == NULL);
    rm_rf(dir);
}

/* A child holds a copy of the index open (LevelDB's LOCK taken, as bitcoind
 * holds it) and keeps writing numbered keys, forcing log rotation and
 * compactions. Every snapshot must open, and see a prefix of its writes. */
static void writer_child(const char *dir)
{
    leveldb_options_t *o = leveldb_options_create();
    leveldb_options_set_write_buffer_size(o, 64 << 10); /* flush often: new tables, new logs */
    char *lerr = NULL;
    leveldb_t *db = leveldb_open(o, dir, &lerr);
    if (!db) _exit(3);
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    char val[512];
    memset(val, 'v', sizeof val);
    for (uint32_t i = 0;; i++) {
        char key[16];
        key[0] = 'z';
        for (int j = 0; j < 8; j++) key[1 + j] = (char)(i >> (28 - 4 * j) & 15) + 'a';
        leveldb_put(db, wo, key, 9, val, sizeof val, &lerr);
        if (lerr) {
            fprintf(stderr, "writer: %s\n", lerr);
            _exit(4);
        }
        /* Core writes in batches at each flush, then is quiet for a while. */
        if (i % 500 == 499) usleep(20000);
        if (i % 4000 == 3999) leveldb_compact_range(db, NULL, 0, NULL, 0);
    }
}

static void test_snapshot_while_writing(void)
{
    char dir[512];
    make_tmp(dir, sizeof dir);
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "cp '%s'/* '%s'/ && chmod u+w '%s'/* && rm -f '%s/LOCK'", REGTEST "/blocks/index", dir,
             dir, dir);
    CHECK(system(cmd) == 0);
    pid_t pid = fork();
    if (pid == 0) writer_child(dir);
    CHECK(pid > 0);
    usleep(200000);
    size_t last = 0;
    int ok = 0;
    for (int i = 0; i < 12; i++) {
        bk_ldb *db = NULL;
        bk_error err;
        bk_status st = bk_ldb_open(dir, NULL, &db, &err);
        if (st != BK_OK) fprintf(stderr, "snapshot %d: %s\n", i, err.msg);
        CHECK_EQ_INT(st, BK_OK);
        if (!db) continue;
        size_t z = count_prefix(db, "z", 1);
        size_t b = count_prefix(db, "b", 1);
        CHECK(z >= last);       /* writes are only added */
        CHECK(b >= 979);        /* the index's own records always there */
        last = z;
        ok++;
        bk_ldb_close(db);
        usleep(50000);
    }
    int status = 0;
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w != 0) fprintf(stderr, "writer ended early: status %d\n", status);
    CHECK(w == 0); /* the writer is still going: it was never disturbed */
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    CHECK_EQ_INT(ok, 12);
    CHECK(last > 0);
    rm_rf(dir);
}

int main(void)
{
    RUN(test_block_index_snapshot);
    RUN(test_chainstate_log_replayed);
    RUN(test_not_leveldb_and_fifo);
    RUN(test_snapshot_while_writing);
    return check_finish();
}
