/* blockkit sha256: SHA-256 (or SHA256d) of files or standard input,
 * printed exactly like coreutils sha256sum: "<hex>  <name>", name "-" for
 * standard input. */
#include "cli.h"
#include "opt.h"

#include <blockkit/hex.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const CMD = "sha256";

#define SHA256_READ ((size_t)1 << 20) /* read and hashed 1 MiB at a time */

/* The digest of a file or standard input ("-"), streamed as sha256sum
 * does: memory stays at one buffer whatever the input's length, and a file
 * that grows or shrinks is hashed as it is read. 0, or an exit code after
 * the message. */
static int hash_file(const char *path, int dbl, uint8_t *buf, uint8_t d[32])
{
    int is_stdin = !strcmp(path, "-");
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return bk_cli_fail(CMD, errno == ENOENT ? BK_EXIT_NOINPUT : BK_EXIT_IO, "%s: %s", path, strerror(errno));
    bk_sha256_ctx c;
    bk_sha256_init(&c);
    for (;;) {
        ssize_t r = read(fd, buf, SHA256_READ);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            if (!is_stdin) close(fd);
            return bk_cli_fail(CMD, BK_EXIT_IO, "%s: %s", is_stdin ? "standard input" : path, strerror(e));
        }
        if (r == 0) break;
        bk_sha256_update(&c, buf, (size_t)r);
    }
    if (!is_stdin) close(fd);
    if (dbl) {
        uint8_t inner[32];
        bk_sha256_final(&c, inner);
        bk_sha256(d, inner, 32);
    } else {
        bk_sha256_final(&c, d);
    }
    return 0;
}

static const char sha256_intro[] =
    "Prints the SHA-256 of each FILE (standard input when none or \"-\") as\n"
    "sha256sum does: 64 hex digits, two spaces, the name. With --backends: each\n"
    "backend's measured time per call shape instead (no FILE).\n";

static const char sha256_outro[] =
    "BLOCKKIT_SHA256=NAME forces a backend from the environment as --backend does.\n"
    "\n"
    "Exit status (the table in blockkit(1)): 0 ok, 64 usage, 66 missing input,\n"
    "74 I/O.\n";

/* coreutils: a name with a backslash or newline is escaped and the line
 * starts with a backslash. */
static int print_line(const uint8_t d[32], const char *name)
{
    char line[64];
    int esc = strpbrk(name, "\\\n") != NULL;
    bk_hex_encode(line, d, 32);
    if (esc && putchar('\\') == EOF) return BK_EXIT_IO;
    if (fwrite(line, 1, 64, stdout) != 64 || fputs("  ", stdout) == EOF) return BK_EXIT_IO;
    for (const char *p = name; *p; p++) {
        int rc = esc && *p == '\\' ? fputs("\\\\", stdout)
               : esc && *p == '\n' ? fputs("\\n", stdout)
               : putchar(*p);
        if (rc == EOF) return BK_EXIT_IO;
    }
    return putchar('\n') == EOF ? BK_EXIT_IO : BK_EXIT_OK;
}

/* --backends: the calibration table, the choice, what is in use. */
static int print_backends(void)
{
    static const char *const shape_name[BK_SHA256_NSHAPES] = {"64B", "D64", "msgs", "stream"};
    bk_sha256_calib c;
    bk_sha256_calibration(&c);
    if (printf("# SHA-256 calibration: best of %u samples per kernel (one past 4x the best), %.2f ms CPU "
               "(%.2f ms wall); ns per unit\n", c.rounds, c.cpu_ms, c.elapsed_ms) < 0 ||
        printf("%-11s %12s %12s %16s %16s\n", "backend", "64B/message", "D64/node", "msgs/compression",
               "stream/compr.") < 0)
        return BK_EXIT_IO;
    for (size_t i = 0; i < c.n; i++)
        if (printf("%-11s %12.2f %12.2f %16.2f %16.2f\n", c.name[i], c.ns[i][0], c.ns[i][1], c.ns[i][2],
                   c.ns[i][3]) < 0)
            return BK_EXIT_IO;
    if (fputs("chosen    ", stdout) == EOF) return BK_EXIT_IO;
    for (int s = 0; s < BK_SHA256_NSHAPES; s++)
        if (printf(" %s=%s", shape_name[s], c.chosen[s]) < 0) return BK_EXIT_IO;
    if (printf("\nin use     %s:", bk_sha256_backend()) < 0) return BK_EXIT_IO;
    for (int s = 0; s < BK_SHA256_NSHAPES; s++)
        if (printf(" %s=%s", shape_name[s], bk_sha256_shape_backend((bk_sha256_shape)s)) < 0) return BK_EXIT_IO;
    if (putchar('\n') == EOF) return BK_EXIT_IO;
    if (c.small_below &&
        printf("avx512 tails: fewer than %u messages to SHA-NI streams; 17..%u to one group plus SHA-NI\n",
               c.small_below, 15 + c.small_split) < 0)
        return BK_EXIT_IO;
    return BK_EXIT_OK;
}

static const char BACKENDS[] = "auto, portable, shani, shani/x3, shani/x2, avx512, avx512/pass, avx2, armv8";

static int sha256_main(int argc, char **argv)
{
    int dbl = 0, rc = BK_EXIT_OK, list = 0;
    const char *backend = NULL;
    bk_opt opts[] = {
        BK_OPT_ROW_FLAG("--double", 0, &dbl,
                        "SHA256d = SHA256(SHA256(data)), Bitcoin's hash (the\n"
                        "digest bytes in hashing order, not reversed)"),
        BK_OPT_ROW_STR("--backend", 0, &backend, "NAME",
                       "force a backend for every call shape: auto (the\n"
                       "measured per-shape choice, the default), portable,\n"
                       "shani, shani/x3, shani/x2, avx512, avx512/pass, avx2,\n"
                       "armv8"),
        BK_OPT_ROW_FLAG("--backends", 0, &list,
                        "print each backend's measured time per call shape (the\n"
                        "calibration behind auto), the per-shape choice, and what\n"
                        "is in use; hashes nothing"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {CMD, "[FILE|-]...", sha256_intro, sha256_outro, opts, SIZE_MAX};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    if (backend) {
        bk_status st = bk_sha256_use(backend);
        if (st != BK_OK) {
            bk_opt_args_free(&args);
            if (st == BK_ERR_ARG)
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "bad value for --backend: '%s' (%s)", backend, BACKENDS);
            if (st == BK_ERR_UNSUPPORTED)
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "backend '%s' cannot run on this CPU or build", backend);
            return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "backend '%s' failed its self-test", backend);
        }
    }
    size_t nfiles = args.n;
    const char *const *files = args.v;
    static const char *const std_in[1] = {"-"};
    if (list) {
        bk_opt_args_free(&args);
        if (nfiles) return bk_cli_fail(CMD, BK_EXIT_USAGE, "--backends takes no files");
        /* printf's errors stay in stdout's error flag: the flush reports
         * them once, naming standard output. */
        (void)print_backends();
        return bk_cli_output_flush(CMD, stdout, NULL);
    }
    if (nfiles == 0) {
        files = std_in;
        nfiles = 1;
    }
    uint8_t *buf = malloc(SHA256_READ);
    if (!buf) {
        bk_opt_args_free(&args);
        return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
    }
    for (size_t i = 0; i < nfiles; i++) {
        uint8_t d[32];
        int r = hash_file(files[i], dbl, buf, d);
        if (r != 0) {
            if (rc == BK_EXIT_OK) rc = r;
            continue;
        }
        r = print_line(d, files[i]);
        if (r != BK_EXIT_OK) {
            int e = errno;
            free(buf);
            bk_opt_args_free(&args);
            return bk_cli_output_error(CMD, stdout, NULL, e);
        }
    }
    free(buf);
    bk_opt_args_free(&args);
    int orc = bk_cli_output_flush(CMD, stdout, NULL);
    return orc ? orc : rc;
}

BK_CLI_COMMAND(cli_sha256, "sha256", "[--double] [--backend NAME] [--backends] [FILE|-]...",
               "SHA-256 / SHA256d of files, printed like sha256sum", sha256_main)
