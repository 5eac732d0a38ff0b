/* The sweep of snapshot directories left by killed processes
 * (src/db/leveldb.c): bk_ldb_open removes every blockkit-ldb-PID-* and
 * blockkit-ldb-new-PID-* directory under its tmpdir whose PID is gone and
 * whose lock is free (a SIGKILL between mkdtemp and the rename leaves the
 * new- one: export_resume once found such a leftover), and keeps those
 * whose process lives or whose lock is held; its own snapshot ends under
 * its PID's name and is removed by bk_ldb_close. */
#define _DEFAULT_SOURCE
#include <blockkit/leveldb.h>

#include <fcntl.h>
#include <leveldb/c.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static void make_tmp(char *dir, size_t n, const char *what)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, n, "%s/bk-test-sweep-%s-XXXXXX", t && *t ? t : "/tmp", what);
    CHECK(mkdtemp(dir) != NULL);
}

static void rm_rf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static int exists(const char *dir, const char *name)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

/* A directory dir/name with a file in it (a partial snapshot). */
static void make_left(const char *dir, const char *name)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/%s/000005.ldb", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("partial", f);
        fclose(f);
    }
}

static void test_sweep(void)
{
    char src[4096], tmp[4096];
    make_tmp(src, sizeof src, "src");
    make_tmp(tmp, sizeof tmp, "tmp");
    /* A small LevelDB to snapshot. */
    leveldb_options_t *o = leveldb_options_create();
    leveldb_options_set_create_if_missing(o, 1);
    char *lerr = NULL;
    leveldb_t *db = leveldb_open(o, src, &lerr);
    CHECK(db != NULL);
    if (db) {
        leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
        leveldb_put(db, wo, "k", 1, "v", 1, &lerr);
        CHECK(lerr == NULL);
        leveldb_writeoptions_destroy(wo);
        leveldb_close(db);
    }
    leveldb_options_destroy(o);

    /* A PID that is gone: a child that exited and was reaped. */
    pid_t child = fork();
    if (child == 0) _exit(0);
    CHECK(child > 0);
    waitpid(child, NULL, 0);
    long dead = (long)child, live = (long)getppid();
    char stale_new[64], stale_named[64], live_new[64], live_named[64], locked[64], other[64];
    snprintf(stale_new, sizeof stale_new, "blockkit-ldb-new-%ld-aB3dE5", dead);
    snprintf(stale_named, sizeof stale_named, "blockkit-ldb-%ld-Zz9yX8", dead);
    snprintf(live_new, sizeof live_new, "blockkit-ldb-new-%ld-q1w2e3", live);
    snprintf(live_named, sizeof live_named, "blockkit-ldb-%ld-r4t5y6", live);
    snprintf(locked, sizeof locked, "blockkit-ldb-%ld-u7i8o9", dead);
    snprintf(other, sizeof other, "blockkit-ldbx-%ld-p0o9i8", dead);
    make_left(tmp, stale_new);
    make_left(tmp, stale_named);
    make_left(tmp, live_new);
    make_left(tmp, live_named);
    make_left(tmp, locked);
    make_left(tmp, other);
    /* The lock of a live snapshot (held here, through its own open file
     * description: the sweep's flock on another one fails). */
    char lp[4200];
    snprintf(lp, sizeof lp, "%s/%s", tmp, locked);
    int lfd = open(lp, O_RDONLY | O_DIRECTORY);
    CHECK(lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) == 0);

    bk_ldb *s = NULL;
    bk_error err;
    CHECK_EQ_INT(bk_ldb_open(src, tmp, &s, &err), BK_OK);
    CHECK(!exists(tmp, stale_new));
    CHECK(!exists(tmp, stale_named));
    CHECK(exists(tmp, live_new));
    CHECK(exists(tmp, live_named));
    CHECK(exists(tmp, locked));
    CHECK(exists(tmp, other));
    if (s) {
        char want[64];
        snprintf(want, sizeof want, "/blockkit-ldb-%ld-", (long)getpid());
        const char *d = bk_ldb_snapshot_dir(s);
        CHECK(strstr(d, want) != NULL && strstr(d, "-new-") == NULL);
        uint8_t *v = NULL;
        size_t vl = 0;
        CHECK_EQ_INT(bk_ldb_get(s, (const uint8_t *)"k", 1, &v, &vl, &err), BK_OK);
        CHECK(vl == 1 && v && v[0] == 'v');
        bk_ldb_free(v);
        char mine[4200];
        snprintf(mine, sizeof mine, "%s", d);
        bk_ldb_close(s);
        struct stat st;
        CHECK(stat(mine, &st) != 0);
    }
    /* Once its lock is released, the dead process's directory goes too. */
    close(lfd);
    CHECK_EQ_INT(bk_ldb_open(src, tmp, &s, &err), BK_OK);
    CHECK(!exists(tmp, locked));
    CHECK(exists(tmp, live_new));
    bk_ldb_close(s);
    rm_rf(src);
    rm_rf(tmp);
}

int main(void)
{
    RUN(test_sweep);
    return check_finish();
}
