/* blockkit scan / chain under signals, and scan --resume (issue 11 items 2
 * and 3), end to end through BK_CLI_PATH on Core's regtest blocks
 * (BK_REGTEST_DIR) and a generated directory whose chain build is slow:
 *  - SIGINT, SIGTERM, SIGHUP during the render: the current line completes,
 *    the output is whole lines (a prefix of an uninterrupted run), the
 *    message names the height to resume from, the status is 128 + signal;
 *  - the same signals during the chain build: stopped within a second;
 *  - --resume after SIGKILL gives a file byte for byte equal to an
 *    uninterrupted run; a partial last line is dropped; a --start that does
 *    not follow the file is refused; -o refuses a non-empty file without
 *    --force. */
#include "check.h"
#include "blkdir_util.h"

#include <blockkit/blockkit.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static char root[256], rt[512], slow[512];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
    struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
}

/* Start blockkit with argv (NULL-terminated, without the program), stdout
 * to out_path (NULL: /dev/null), stderr to err_path. */
static pid_t spawn(const char *const *args, const char *out_path, const char *err_path)
{
    const char *argv[32];
    int n = 0;
    argv[n++] = BK_CLI_PATH;
    for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0) _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        execv(BK_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Wait at most limit seconds; -1 when it did not end (then it is killed). */
static int wait_status(pid_t pid, double limit)
{
    double t0 = now();
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st); /* killed: 1000 + signal */
        if (now() - t0 > limit) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        sleep_ms(5);
    }
}

static int run_wait(const char *const *args, const char *out_path, const char *err_path)
{
    return wait_status(spawn(args, out_path, err_path), 60);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    tbuf b = {0};
    uint8_t buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) tbuf_put(&b, buf, r);
    fclose(f);
    tbuf_put(&b, "", 1);
    *len = b.n - 1;
    return b.p;
}

static int contains(const char *path, const char *needle)
{
    size_t n;
    uint8_t *p = slurp(path, &n);
    int r = p && strstr((const char *)p, needle) != NULL;
    free(p);
    return r;
}

static long resume_height(const char *err_path)
{
    size_t n;
    uint8_t *p = slurp(err_path, &n);
    const char *m = p ? strstr((const char *)p, "resume with --start ") : NULL;
    long h = m ? atol(m + 20) : -1;
    free(p);
    return h;
}

static size_t count_lines(const uint8_t *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += p[i] == '\n';
    return k;
}

static uint8_t *ref;
static size_t ref_len;
static char ref_path[600];

/* A signal while scan writes to a FIFO that the test holds back. */
static void render_signal(int sig)
{
    char fifo[600], errp[600];
    snprintf(fifo, sizeof fifo, "%s/fifo%d", root, sig);
    snprintf(errp, sizeof errp, "%s/render%d.err", root, sig);
    CHECK(mkfifo(fifo, 0600) == 0);
    const char *args[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--verbosity", "1", "-j2",
                          "--progress", "never", "-o", fifo, NULL};
    pid_t pid = spawn(args, NULL, errp);
    FILE *f = fopen(fifo, "rb");
    CHECK(f != NULL);
    if (!f) return;
    tbuf out = {0};
    uint8_t buf[65536];
    size_t r = fread(buf, 1, 3000, f);
    tbuf_put(&out, buf, r);
    kill(pid, sig);
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) tbuf_put(&out, buf, r);
    fclose(f);
    int st = wait_status(pid, 20);
    fprintf(stderr, "  signal %d during the render: status %d, %zu bytes\n", sig, st, out.n);
    CHECK_EQ_INT(st, 128 + sig);
    long h = resume_height(errp);
    CHECK(contains(errp, "interrupted after height"));
    /* whole lines, heights 0 .. h-1: a prefix of the uninterrupted run */
    CHECK(h > 0 && h < 940);
    CHECK_EQ_INT(count_lines(out.p, out.n), h);
    CHECK(out.n > 0 && out.p[out.n - 1] == '\n');
    CHECK(out.n <= ref_len && memcmp(out.p, ref, out.n) == 0);
    free(out.p);
}

static void test_render_sigint(void) { render_signal(SIGINT); }
static void test_render_sigterm(void) { render_signal(SIGTERM); }
static void test_render_sighup(void) { render_signal(SIGHUP); }

/* A blocks directory whose chain build takes seconds: 160 chained blocks and
 * 160 rev records of 256 KiB that pair with none of them (64 checksums of
 * the record each: about 2.6 GB hashed). */
static void make_slow_dir(void)
{
    static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda}; /* regtest */
    snprintf(slow, sizeof slow, "%s/slow", root);
    mkdir(slow, 0755);
    tbuf blk = {0}, rev = {0};
    uint8_t prev[32] = {0};
    for (uint32_t i = 0; i < 160; i++) {
        uint8_t b[80 + 1 + 100];
        size_t n = 0;
        memset(b, 0, sizeof b);
        b[0] = 4;
        memcpy(b + 4, prev, 32);
        memset(b + 36, (int)i, 32);
        b[72] = 0xff; b[73] = 0xff; b[74] = 0x7f; b[75] = 0x20; /* nBits 0x207fffff */
        b[76] = (uint8_t)i; b[77] = (uint8_t)(i >> 8);
        n = 80;
        b[n++] = 2;
        /* coinbase: version 1, 1 input (null prevout, 8-byte script), 1 output, locktime */
        static const uint8_t cb_head[] = {1, 0, 0, 0, 1};
        memcpy(b + n, cb_head, 5); n += 5;
        memset(b + n, 0, 32); n += 32;
        memset(b + n, 0xff, 4); n += 4;
        b[n++] = 7; b[n++] = 4; b[n++] = (uint8_t)i; b[n++] = (uint8_t)(i >> 8); b[n++] = 0; b[n++] = 0;
        b[n++] = 'b'; b[n++] = 'k';
        memset(b + n, 0xff, 4); n += 4;
        b[n++] = 1;
        memset(b + n, 0, 8); b[n + 1] = 0xf2; b[n + 2] = 0x05; b[n + 3] = 0x2a; b[n + 4] = 1; n += 8;
        b[n++] = 1; b[n++] = 0x51;
        memset(b + n, 0, 4); n += 4;
        /* empty tx */
        b[n++] = 1; b[n++] = 0; b[n++] = 0; b[n++] = 0; b[n++] = 0; b[n++] = 0;
        memset(b + n, 0, 4); n += 4;
        tbuf_record(&blk, magic, b, n);
        bk_sha256d(prev, b, 80);
    }
    uint8_t *u = calloc(1, 256 * 1024 + 32);
    u[0] = 1;
    for (int i = 0; i < 160; i++) {
        memset(u + 256 * 1024, i, 32); /* a checksum that matches nothing */
        tbuf_record(&rev, magic, u, 256 * 1024);
        tbuf_put(&rev, u + 256 * 1024, 32);
    }
    free(u);
    write_file(slow, "blk00000.dat", blk.p, blk.n);
    write_file(slow, "rev00000.dat", rev.p, rev.n);
    free(blk.p);
    free(rev.p);
}

/* Start args, signal it after delay ms; when the signal came before
 * blockkit installed its handlers (a loaded machine: it was killed by the
 * signal, status 1000 + sig), try again later. */
static int signal_after(const char *const *args, const char *errp, int sig, int *running, double *dt)
{
    int st = -1;
    for (int delay = 300; delay <= 1200; delay *= 2) {
        pid_t pid = spawn(args, NULL, errp);
        sleep_ms(delay);
        *running = waitpid(pid, NULL, WNOHANG) == 0;
        double t0 = now();
        kill(pid, sig);
        st = wait_status(pid, 30);
        *dt = now() - t0;
        if (st != 1000 + sig) break;
        fprintf(stderr, "  (signal %d came before the handlers were installed, %d ms: again)\n", sig, delay);
    }
    return st;
}

static void build_signal(const char *cmd, int sig)
{
    char errp[600];
    snprintf(errp, sizeof errp, "%s/build%d.err", root, sig);
    const char *args[] = {cmd, "--blocksdir", slow, "--chain", "regtest", "--progress", "never", NULL};
    if (!strcmp(cmd, "chain")) args[5] = NULL;
    int running = 0;
    double dt = 0;
    int st = signal_after(args, errp, sig, &running, &dt);
    fprintf(stderr, "  signal %d during the chain build (%s): status %d after %.3f s\n", sig, cmd, st, dt);
    CHECK(running); /* the build takes seconds: the signal came during it */
    CHECK_EQ_INT(st, 128 + sig);
    CHECK(dt < 1.0);
    CHECK(contains(errp, "interrupted while building the chain"));
}

/* A blk file with an 8 GiB pre-allocated (sparse) zero tail: reading the
 * tail takes seconds, and a signal stops that too. */
static void test_build_sigint_zero_tail(void)
{
    char dir[600], cmd[4096], errp[600];
    snprintf(dir, sizeof dir, "%s/tail", root);
    snprintf(errp, sizeof errp, "%s/tail.err", root);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && cp %s/blk00000.dat %s/xor.dat %s/ && truncate -s 8G %s/blk00000.dat", dir,
             rt, rt, dir, dir);
    CHECK_EQ_INT(system(cmd), 0);
    const char *args[] = {"chain", "--blocksdir", dir, "--chain", "regtest", NULL};
    int running = 0;
    double dt = 0;
    int st = signal_after(args, errp, SIGINT, &running, &dt);
    fprintf(stderr, "  SIGINT while reading an 8 GiB zero tail: status %d after %.3f s\n", st, dt);
    CHECK(running);
    CHECK_EQ_INT(st, 128 + SIGINT);
    CHECK(dt < 1.0);
    snprintf(cmd, sizeof cmd, "%s/blk00000.dat", dir);
    unlink(cmd);
}

static void test_build_sigint(void) { build_signal("scan", SIGINT); }
static void test_build_sigterm(void) { build_signal("scan", SIGTERM); }
static void test_build_sighup(void) { build_signal("scan", SIGHUP); }
static void test_build_chain_sigterm(void) { build_signal("chain", SIGTERM); }

static int same_as_ref(const char *path)
{
    size_t n;
    uint8_t *p = slurp(path, &n);
    int same = p && n == ref_len && memcmp(p, ref, n) == 0;
    free(p);
    return same;
}

/* --resume after SIGKILL at several moments equals the uninterrupted run. */
static void test_resume_after_sigkill(void)
{
    char out[600], errp[600];
    snprintf(out, sizeof out, "%s/killed.ndjson", root);
    snprintf(errp, sizeof errp, "%s/killed.err", root);
    static const int delays[] = {5, 20, 40, 80, 160};
    for (size_t k = 0; k < sizeof delays / sizeof delays[0]; k++) {
        unlink(out);
        const char *args[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--verbosity", "1", "-j2",
                              "--progress", "never", "-o", out, NULL};
        pid_t pid = spawn(args, NULL, errp);
        sleep_ms(delays[k]);
        kill(pid, SIGKILL);
        wait_status(pid, 20);
        size_t n0 = 0;
        uint8_t *p = slurp(out, &n0);
        free(p);
        const char *rargs[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--verbosity", "1", "-j2",
                               "--progress", "never", "-o", out, "--resume", NULL};
        CHECK_EQ_INT(run_wait(rargs, NULL, errp), 0);
        fprintf(stderr, "  SIGKILL after %d ms: %zu bytes kept, resumed\n", delays[k], n0);
        CHECK(same_as_ref(out));
    }
}

static void test_resume_partial_and_refusals(void)
{
    char out[600], errp[600];
    snprintf(out, sizeof out, "%s/partial.ndjson", root);
    snprintf(errp, sizeof errp, "%s/partial.err", root);
    /* 100 whole lines and a third of line 101 */
    size_t cut = 0, lines = 0;
    while (cut < ref_len && lines < 100) lines += ref[cut++] == '\n';
    size_t partial = cut;
    while (partial < ref_len && ref[partial] != '\n') partial++;
    partial = cut + (partial - cut) / 3;
    write_file(root, "partial.ndjson", ref, partial);
    /* a file without the record of the options it was written with
     * (FILE.scan.json, made by scan -o) is not continued */
    const char *norec[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--progress", "never", "-o", out,
                           "--resume", NULL};
    CHECK_EQ_INT(run_wait(norec, NULL, errp), 64);
    CHECK(contains(errp, "has no record of the options"));
    static const char shape[] = "{\"verbosity\":1,\"core_compat\":31,\"chain\":\"regtest\",\"orphans\":false}\n";
    write_file(root, "partial.ndjson.scan.json", (const uint8_t *)shape, sizeof shape - 1);
    /* an explicit --start that does not follow the file is refused */
    const char *bad[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--progress", "never", "-o", out,
                         "--resume", "--start", "50", NULL};
    CHECK_EQ_INT(run_wait(bad, NULL, errp), 64);
    CHECK(contains(errp, "ends at height 99, so it continues at 100, not --start 50"));
    CHECK(contains(errp, "dropped a partial last line"));
    const char *good[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--progress", "never", "-o", out,
                          "--resume", "--start", "100", NULL};
    CHECK_EQ_INT(run_wait(good, NULL, errp), 0);
    CHECK(same_as_ref(out));
    /* plain -o refuses a non-empty file, and leaves it as it was */
    const char *plain[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--progress", "never", "-o", out,
                           "--end", "3", NULL};
    CHECK_EQ_INT(run_wait(plain, NULL, errp), 64);
    CHECK(contains(errp, "exists and is not empty: --resume continues it, --force overwrites it"));
    CHECK(same_as_ref(out));
    /* --force overwrites; --end -N stops N below the tip (939) */
    const char *force[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--progress", "never", "-o", out,
                           "--force", "--end", "-839", NULL};
    CHECK_EQ_INT(run_wait(force, NULL, errp), 0);
    size_t n;
    uint8_t *p = slurp(out, &n);
    CHECK(p && count_lines(p, n) == 101 && n <= ref_len && memcmp(p, ref, n) == 0);
    free(p);
    /* a file that is not scan output is never appended to */
    write_file(root, "partial.ndjson", (const uint8_t *)"hello\n", 6);
    CHECK_EQ_INT(run_wait(good, NULL, errp), 65);
    CHECK(contains(errp, "not a line of blockkit scan"));
    /* a finished file resumes to itself: nothing to add */
    write_file(root, "partial.ndjson", ref, ref_len);
    const char *again[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--progress", "never", "-o", out,
                           "--resume", NULL};
    CHECK_EQ_INT(run_wait(again, NULL, errp), 0);
    CHECK(same_as_ref(out));
}

int main(void)
{
    make_tmpdir(root, sizeof root);
    snprintf(rt, sizeof rt, "%s/full/regtest/blocks", BK_REGTEST_DIR);
    snprintf(ref_path, sizeof ref_path, "%s/ref.ndjson", root);
    char errp[600];
    snprintf(errp, sizeof errp, "%s/ref.err", root);
    const char *args[] = {"scan", "--blocksdir", rt, "--chain", "regtest", "--verbosity", "1", "-j2", "--progress",
                          "never", "-o", ref_path, NULL};
    CHECK_EQ_INT(run_wait(args, NULL, errp), 0);
    ref = slurp(ref_path, &ref_len);
    CHECK(ref && count_lines(ref, ref_len) == 940);
    if (!ref) return check_finish();
    RUN(test_render_sigint);
    RUN(test_render_sigterm);
    RUN(test_render_sighup);
    make_slow_dir();
    RUN(test_build_sigint);
    RUN(test_build_sigterm);
    RUN(test_build_sighup);
    RUN(test_build_chain_sigterm);
    RUN(test_build_sigint_zero_tail);
    RUN(test_resume_after_sigkill);
    RUN(test_resume_partial_and_refusals);
    free(ref);
    if (!getenv("BK_KEEP_TMP")) remove_tree(root);
    return check_finish();
}
