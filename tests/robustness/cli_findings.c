/* Regression tests for the CLI/SSZ robustness findings (../shared/robustness/
 * 07, 08, 10, 11, 12, 14, 15): each case is named after the finding's folder
 * and runs the blockkit binary the way the reproducer did, checking the exit
 * status, the message and, where the finding is about time or memory, the
 * child's CPU time and peak RSS (wait4). Run with a folder name to run one
 * case (ctest registers one test per folder), without arguments for all. */
#include "check.h"

#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run_result {
    int status;          /* exit status, or 128 + signal */
    double cpu_s;        /* user + system CPU seconds of the child */
    long maxrss_kb;      /* peak resident set of the child */
    char out[262144];    /* stdout (truncated) */
    char err[8192];      /* stderr (truncated) */
} run_result;

static void slurp_fd(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (n == cap - 1) break;
    }
    buf[n] = 0;
}

/* Run argv (argv[0] a path) with stdin from in_path (NULL: /dev/null) and
 * stdout to out_path (NULL: a temporary file read back into r->out). */
static void run_argv(char *const *argv, const char *in_path, const char *out_path, run_result *r)
{
    char otmp[] = "/tmp/bk_rcli_outXXXXXX", etmp[] = "/tmp/bk_rcli_errXXXXXX";
    int ofd = out_path ? open(out_path, O_WRONLY) : mkstemp(otmp);
    int efd = mkstemp(etmp);
    if (ofd < 0 || efd < 0) {
        perror("temporary file");
        exit(2);
    }
    struct timeval t0;
    gettimeofday(&t0, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int ifd = open(in_path ? in_path : "/dev/null", O_RDONLY);
        if (ifd < 0) _exit(127);
        dup2(ifd, 0);
        dup2(ofd, 1);
        dup2(efd, 2);
        signal(SIGPIPE, SIG_DFL);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &st, 0, &ru);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
    r->maxrss_kb = ru.ru_maxrss;
    if (!out_path) slurp_fd(ofd, r->out, sizeof r->out);
    else r->out[0] = 0;
    slurp_fd(efd, r->err, sizeof r->err);
    close(ofd);
    close(efd);
    if (!out_path) unlink(otmp);
    unlink(etmp);
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d) exit(2);
    return d;
}

static char zeros40[] = "0x00000000000000000000000000000000000000000000000000000000000000000000000000000000";

/* 15: 64 x --gindex plus --path wrote past uint64_t gidx[64] (SIGSEGV). */
static void f15_ssz_proof_gindex_array_stack_overflow(void)
{
    for (int npaths = 1; npaths <= 64; npaths *= 4) {
        char *argv[4 + 2 * 64 + 2 * 64 + 3];
        int k = 0;
        argv[k++] = xstrdup(BK_CLI_PATH);
        argv[k++] = "ssz";
        argv[k++] = "proof";
        argv[k++] = "Container:Checkpoint";
        for (int i = 0; i < 64; i++) {
            argv[k++] = "--gindex";
            argv[k++] = "2";
        }
        for (int i = 0; i < npaths; i++) {
            argv[k++] = "--path";
            argv[k++] = "epoch";
        }
        argv[k++] = "--hex";
        argv[k++] = zeros40;
        argv[k] = NULL;
        run_result *r = calloc(1, sizeof *r);
        run_argv(argv, NULL, NULL, r);
        CHECK_EQ_INT(r->status, 64);
        CHECK(strstr(r->err, "at most 64") != NULL);
        free(r);
        free(argv[0]);
    }
    /* 64 in total still works: 63 gindices and one path. */
    char *argv[4 + 2 * 64 + 3];
    int k = 0;
    argv[k++] = xstrdup(BK_CLI_PATH);
    argv[k++] = "ssz";
    argv[k++] = "proof";
    argv[k++] = "Container:Checkpoint";
    for (int i = 0; i < 63; i++) {
        argv[k++] = "--gindex";
        argv[k++] = "2";
    }
    argv[k++] = "--path";
    argv[k++] = "root";
    argv[k++] = "--hex";
    argv[k++] = zeros40;
    argv[k] = NULL;
    run_result *r = calloc(1, sizeof *r);
    run_argv(argv, NULL, NULL, r);
    CHECK_EQ_INT(r->status, 0);
    CHECK(strstr(r->out, "\"gindices\"") != NULL);
    free(r);
    free(argv[0]);
}

/* Run blockkit with up to 12 arguments (NULL-terminated list). */
static void run_bk(run_result *r, const char *in_path, const char *out_path, ...)
{
    char *argv[64];
    int k = 0;
    argv[k++] = xstrdup(BK_CLI_PATH);
    va_list ap;
    va_start(ap, out_path);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL && k < 63;) argv[k++] = (char *)a;
    va_end(ap);
    argv[k] = NULL;
    run_argv(argv, in_path, out_path, r);
    free(argv[0]);
}

/* 07: the schema error was formatted from err->msg into err->msg (garbled,
 * overlapping vsnprintf). The JSON parser's own message must come through. */
static void f07_ssz_schema_error_message_overlap(void)
{
    static const struct {
        const char *file, *msg;
    } want[] = {
        {"robustness/07-ssz-schema-error-message-overlap/bad_schema_1.json", "schema: JSON: expected member name at byte 1"},
        {"robustness/07-ssz-schema-error-message-overlap/bad_schema_2.json", "schema: JSON: unexpected end of text at byte 8"},
        {"robustness/07-ssz-schema-error-message-overlap/deep_schema.json", "schema: JSON: nesting too deep at byte 261"},
    };
    run_result *r = calloc(1, sizeof *r);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        run_bk(r, NULL, NULL, "ssz", "root", "Container:A", "--schema", want[i].file, "--hex", "0x", (char *)NULL);
        CHECK_EQ_INT(r->status, 64);
        CHECK(strstr(r->err, want[i].msg) != NULL);
        CHECK(strstr(r->err, "schema: schema:") == NULL);
        if (!strstr(r->err, want[i].msg)) fprintf(stderr, "  stderr: %s", r->err);
    }
    free(r);
}

/* 10: --gindex went through strtoull: overflow saturated, '-' negated,
 * white space and '+' skipped. Only 1..2^64-1 in plain decimal is taken. */
static void f10_ssz_gindex_argument_wraps(void)
{
    static const char *bad[] = {"18446744073709551616", "99999999999999999999999", "-1", "-18446744073709551615",
                                " 3", "+3", "3 ", "0", "", "0x3", "3.0"};
    run_result *r = calloc(1, sizeof *r);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_bk(r, NULL, NULL, "ssz", "proof", "Container:Checkpoint", "--gindex", bad[i], "--hex", zeros40, (char *)NULL);
        CHECK_EQ_INT(r->status, 64);
        CHECK(strstr(r->err, "bad value for --gindex") != NULL);
        CHECK(r->out[0] == 0);
    }
    /* The largest index is taken (and is below a packed chunk: 65). */
    run_bk(r, NULL, NULL, "ssz", "proof", "Container:Checkpoint", "--gindex", "18446744073709551615", "--hex", zeros40,
           (char *)NULL);
    CHECK_EQ_INT(r->status, 65);
    run_bk(r, NULL, NULL, "ssz", "proof", "Container:Checkpoint", "--gindex", "3", "--hex", zeros40, (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK(strncmp(r->out, "{\"gindex\":\"3\"", 13) == 0);
    free(r);
}

#if defined(__SANITIZE_ADDRESS__)
#define BK_RCLI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BK_RCLI_ASAN 1
#endif
#endif
#ifndef BK_RCLI_ASAN
#define BK_RCLI_ASAN 0
#endif

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

/* A schema with one container A of n uint8 fields f0..f(n-1) (gen.py). */
static size_t wide_schema(char *buf, size_t n)
{
    size_t k = (size_t)sprintf(buf, "{\"A\":[");
    for (size_t i = 0; i < n; i++) k += (size_t)sprintf(buf + k, "%s[\"f%zu\",\"uint8\"]", i ? "," : "", i);
    k += (size_t)sprintf(buf + k, "]}");
    return k;
}

/* 08: the duplicate-field check of a schema (and the field lookup of the
 * value encoder) compared every pair: 40k fields took 3.2 s of CPU. */
static void f08_ssz_schema_fields_quadratic(void)
{
    const size_t n = 40000;
    char *buf = malloc(n * 32 + 64), sp[] = "/tmp/bk_rcli_schemaXXXXXX", vp[] = "/tmp/bk_rcli_valueXXXXXX";
    int fd1 = mkstemp(sp), fd2 = mkstemp(vp);
    if (fd1 < 0 || fd2 < 0 || !buf) exit(2);
    close(fd1);
    close(fd2);
    write_file(sp, buf, wide_schema(buf, n));
    /* The value, fields in reverse order. */
    size_t k = 0;
    buf[k++] = '{';
    for (size_t i = n; i-- > 0;) k += (size_t)sprintf(buf + k, "\"f%zu\":\"%zu\"%s", i, i % 256, i ? "," : "");
    buf[k++] = '}';
    write_file(vp, buf, k);
    char *hex = malloc(2 * n + 3);
    hex[0] = '0';
    hex[1] = 'x';
    for (size_t i = 0; i < 2 * n; i++) hex[2 + i] = '0';
    hex[2 + 2 * n] = 0;
    double bound = BK_RCLI_ASAN ? 6.0 : 1.0;
    run_result *r = calloc(1, sizeof *r);
    run_bk(r, NULL, NULL, "ssz", "root", "Container:A", "--schema", sp, "--hex", hex, (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK(r->cpu_s < bound);
    fprintf(stderr, "  root of a 40000-field container: %.3f s CPU (bound %.1f s)\n", r->cpu_s, bound);
    run_bk(r, vp, NULL, "ssz", "encode", "Container:A", "--schema", sp, (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK(r->cpu_s < bound);
    /* The encoding puts field i's value i % 256 at byte i. */
    CHECK(strlen(r->out) == 2 * n + 3 && !strncmp(r->out, "0x000102", 8) && !strncmp(r->out + 2 + 2 * 255, "ff00", 4));
    fprintf(stderr, "  encode of a 40000-field value: %.3f s CPU\n", r->cpu_s);
    /* A duplicate at the end is still found (and named). */
    k = wide_schema(buf, n);
    k -= 2;
    k += (size_t)sprintf(buf + k, ",[\"f7\",\"uint8\"]]}");
    write_file(sp, buf, k);
    run_bk(r, NULL, NULL, "ssz", "root", "Container:A", "--schema", sp, "--hex", hex, (char *)NULL);
    CHECK_EQ_INT(r->status, 64);
    CHECK(strstr(r->err, "duplicate field f7") != NULL);
    CHECK(r->cpu_s < bound);
    unlink(sp);
    unlink(vp);
    free(hex);
    free(buf);
    free(r);
}

/* 11: value JSON became a parse tree of 80-byte nodes (a 20 MB list of
 * zeros peaked at 820 MB, also when rejected at its last byte). Peak RSS
 * over a small baseline must stay within a few times the input. */
static void f11_ssz_json_memory_40x_input(void)
{
    const size_t n = 2000000;   /* "[0,0,...]": 4 MB */
    char *buf = malloc(2 * n + 64), vp[] = "/tmp/bk_rcli_zerosXXXXXX", sp[] = "/tmp/bk_rcli_smallXXXXXX";
    int fd1 = mkstemp(vp), fd2 = mkstemp(sp);
    if (fd1 < 0 || fd2 < 0 || !buf) exit(2);
    close(fd1);
    close(fd2);
    write_file(sp, "[0]", 3);
    size_t k = 0;
    buf[k++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (i) buf[k++] = ',';
        buf[k++] = '0';
    }
    buf[k++] = ']';
    write_file(vp, buf, k);
    const char *type = "List[uint8,72057594037927936]";
    run_result *r = calloc(1, sizeof *r);
    run_bk(r, sp, "/dev/null", "ssz", "encode", type, (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    long base = r->maxrss_kb;
    run_bk(r, vp, "/dev/null", "ssz", "encode", type, (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    long grew = r->maxrss_kb - base, input_kb = (long)(k / 1024);
    /* Input (read into memory from stdin: up to 2x while growing), 1 byte
     * of SSZ and 2 of hex per element: about 5x. The tree took 40x. */
    long bound = (BK_RCLI_ASAN ? 16 : 8) * input_kb;
    fprintf(stderr, "  encode of %zu zeros (%ld KB): peak RSS %ld KB over the baseline (bound %ld KB)\n", n,
            input_kb, grew, bound);
    CHECK(grew < bound);
    /* Rejected at the last byte: nothing but the input. */
    buf[k - 1] = ',';
    buf[k++] = 'x';
    buf[k++] = ']';
    write_file(vp, buf, k);
    run_bk(r, vp, "/dev/null", "ssz", "encode", type, (char *)NULL);
    CHECK_EQ_INT(r->status, 65);
    CHECK(strstr(r->err, "JSON: unexpected character") != NULL);
    grew = r->maxrss_kb - base;
    fprintf(stderr, "  rejected at the last byte: peak RSS %ld KB over the baseline\n", grew);
    CHECK(grew < bound / 2);
    /* ssz verify: a proof document of small values is refused before any
     * tree is built (a real proof has about one value per 68 bytes). */
    k = (size_t)sprintf(buf, "{\"gindices\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) buf[k++] = ',';
        buf[k++] = '1';
    }
    k += (size_t)sprintf(buf + k, "]}");
    write_file(vp, buf, k);
    run_bk(r, vp, "/dev/null", "ssz", "verify", "Container:Checkpoint", (char *)NULL);
    CHECK_EQ_INT(r->status, 65);
    CHECK(strstr(r->err, "more than one per 16 bytes") != NULL);
    grew = r->maxrss_kb - base;
    fprintf(stderr, "  verify of a 4 MB proof document of small values: peak RSS %ld KB over the baseline\n", grew);
    CHECK(grew < bound / 2);
    unlink(vp);
    unlink(sp);
    free(buf);
    free(r);
}

/* 12: bk_block_fees added int64 amounts without range checks (signed
 * overflow, UB; Release printed "fees 50.00000002 BTC", exit 0). */
static void f12_block_fees_signed_overflow(void)
{
    const char *D = BK_TEST_DATA "/robustness/12-block-fees-signed-overflow";
    char blk[512], undo[512];
    snprintf(blk, sizeof blk, "%s/fee_overflow_block.raw", D);
    snprintf(undo, sizeof undo, "%s/fee_overflow_undo.raw", D);
    run_result *r = calloc(1, sizeof *r);
    run_bk(r, NULL, NULL, "block", blk, "--undo", undo, "--summary", (char *)NULL);
    CHECK_EQ_INT(r->status, 65);
    CHECK(strstr(r->err, "fee out of range") != NULL);
    CHECK(strstr(r->err, "fees 50.00000002") == NULL);
    CHECK(r->out[0] == 0);
    run_bk(r, NULL, NULL, "block", blk, "--undo", undo, "--verbosity", "2", (char *)NULL);
    CHECK_EQ_INT(r->status, 65);
    CHECK(strstr(r->err, "fee out of range") != NULL);
    /* The same block in a blocks directory (blocksdir/, made by
     * gen_scan_dir.py): scan --summary --verbosity 2. */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/blocksdir", D);
    run_bk(r, NULL, NULL, "scan", "--blocksdir", dir, "--verbosity", "2", "--summary", (char *)NULL);
    CHECK_EQ_INT(r->status, 65);
    CHECK(strstr(r->err, "fee out of range") != NULL);
    free(r);
}

/* 14: path elements after the 64th were dropped silently. */
static void f14_ssz_path_over_64_elements_truncated(void)
{
    char type[64 * 10 + 64], p64[256], p65[256 + 8];
    type[0] = p64[0] = 0;
    for (int i = 0; i < 63; i++) strcat(type, "Vector[");
    strcat(type, "Container:Checkpoint");
    for (int i = 0; i < 63; i++) strcat(type, ",1]");
    for (int i = 0; i < 63; i++) strcat(p64, "0.");
    strcat(p64, "root");
    snprintf(p65, sizeof p65, "%s.bogus", p64);
    run_result *r = calloc(1, sizeof *r);
    run_bk(r, NULL, NULL, "ssz", "proof", type, "--path", p64, "--hex", zeros40, (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK(strncmp(r->out, "{\"gindex\":\"3\"", 13) == 0);
    run_bk(r, NULL, NULL, "ssz", "proof", type, "--path", p65, "--hex", zeros40, (char *)NULL);
    CHECK_EQ_INT(r->status, 64);
    CHECK(strstr(r->err, "\"bogus\" is not an index") != NULL);
    CHECK(r->out[0] == 0);
    /* 200 elements reach the library in full: the error names the 200th. */
    char *type2 = malloc(200 * 12 + 64), *p200 = malloc(200 * 3 + 16);
    type2[0] = p200[0] = 0;
    for (int i = 0; i < 60; i++) strcat(type2, "Vector[");
    strcat(type2, "uint8");
    for (int i = 0; i < 60; i++) strcat(type2, ",1]");
    for (int i = 0; i < 200; i++) strcat(p200, i ? ".0" : "0");
    run_bk(r, NULL, NULL, "ssz", "proof", type2, "--path", p200, "--hex", "0x00", (char *)NULL);
    CHECK_EQ_INT(r->status, 64);
    CHECK(strstr(r->err, "goes below a basic type") != NULL);
    free(type2);
    free(p200);
    free(r);
}

/* ssz output on a full disk (/dev/full: exit 74) and into a closed pipe
 * (exit 0): the ssz part of findings 05 and 06 (every write, flush and close
 * checked; a reader that went away is not an error). */
static void ssz_output_write_errors(void)
{
    static const char *const sub[][4] = {
        {"root", "Container:Checkpoint", "--hex", NULL},
        {"decode", "Container:Checkpoint", "--hex", NULL},
        {"proof", "Container:Checkpoint", "--path", "epoch"},
        {"--help", NULL, NULL, NULL},
    };
    run_result *r = calloc(1, sizeof *r);
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        const char *a[8] = {"ssz", sub[i][0], sub[i][1], sub[i][2], sub[i][3], NULL, NULL, NULL};
        size_t k = 1;
        while (a[k]) k++;
        if (sub[i][1]) {
            if (!strcmp(a[k - 1], "epoch")) a[k++] = "--hex";
            a[k++] = zeros40;
        }
        run_bk(r, NULL, "/dev/full", a[0], a[1], a[2], a[3], a[4], a[5], a[6], (char *)NULL);
        CHECK_EQ_INT(r->status, 74);
        CHECK(strstr(r->err, "standard output") != NULL);
        /* A pipe whose reader is gone. */
        int fds[2];
        if (pipe(fds) != 0) exit(2);
        close(fds[0]);
        char path[64];
        snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
        run_bk(r, NULL, path, a[0], a[1], a[2], a[3], a[4], a[5], a[6], (char *)NULL);
        close(fds[1]);
        CHECK_EQ_INT(r->status, 0);
        CHECK(r->err[0] == 0);
    }
    /* encode and verify: value JSON and a proof in, answer out. */
    char vp[] = "/tmp/bk_rcli_cpXXXXXX";
    int fd = mkstemp(vp);
    if (fd < 0) exit(2);
    close(fd);
    const char *cp = "{\"epoch\":\"1\",\"root\":\"0x0000000000000000000000000000000000000000000000000000000000000000\"}";
    write_file(vp, cp, strlen(cp));
    run_bk(r, vp, "/dev/full", "ssz", "encode", "Container:Checkpoint", (char *)NULL);
    CHECK_EQ_INT(r->status, 74);
    run_bk(r, vp, NULL, "ssz", "encode", "Container:Checkpoint", (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    run_bk(r, NULL, NULL, "ssz", "proof", "Container:Checkpoint", "--path", "root", "--hex", zeros40, (char *)NULL);
    CHECK_EQ_INT(r->status, 0);
    write_file(vp, r->out, strlen(r->out));
    run_bk(r, vp, "/dev/full", "ssz", "verify", "Container:Checkpoint", (char *)NULL);
    CHECK_EQ_INT(r->status, 74);
    unlink(vp);
    free(r);
}

typedef void (*case_fn)(void);
static const struct {
    const char *name;
    case_fn fn;
} cases[] = {
    {"07-ssz-schema-error-message-overlap", f07_ssz_schema_error_message_overlap},
    {"08-ssz-schema-fields-quadratic", f08_ssz_schema_fields_quadratic},
    {"10-ssz-gindex-argument-wraps", f10_ssz_gindex_argument_wraps},
    {"11-ssz-json-memory-40x-input", f11_ssz_json_memory_40x_input},
    {"12-block-fees-signed-overflow", f12_block_fees_signed_overflow},
    {"14-ssz-path-over-64-elements-truncated", f14_ssz_path_over_64_elements_truncated},
    {"15-ssz-proof-gindex-array-stack-overflow", f15_ssz_proof_gindex_array_stack_overflow},
    {"ssz-output-write-errors", ssz_output_write_errors},
};

int main(int argc, char **argv)
{
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
        check_case = cases[i].name;
        cases[i].fn();
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "no case named %s\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    return check_finish();
}
