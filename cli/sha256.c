/* blockkit sha256: SHA-256 (or SHA256d) of files or standard input,
 * printed exactly like coreutils sha256sum: "<hex>  <name>", name "-" for
 * standard input. */
#include "cli.h"

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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: blockkit sha256 [--double] [--backend NAME] [FILE|-]...\n"
            "       blockkit sha256 [--backend NAME] --backends\n"
            "\n"
            "Prints the SHA-256 of each FILE (standard input when none or \"-\") as\n"
            "sha256sum does: 64 hex digits, two spaces, the name.\n"
            "\n"
            "  --double        SHA256d = SHA256(SHA256(data)), Bitcoin's hash (the digest\n"
            "                  bytes in hashing order, not reversed)\n"
            "  --backend NAME  force a backend for every call shape: auto (the measured\n"
            "                  per-shape choice, the default), portable, shani, shani/x3,\n"
            "                  shani/x2, avx512, avx512/pass, avx2, armv8\n"
            "                  (BLOCKKIT_SHA256=NAME does the same from the environment)\n"
            "  --backends      print each backend's measured time per call shape (the\n"
            "                  calibration behind auto), the per-shape choice, and what\n"
            "                  is in use; hashes nothing\n"
            "\n"
            "Exit status (the table in blockkit(1)): 0 ok, 64 usage, 66 missing input,\n"
            "74 I/O.\n");
}

/* coreutils: a name with a backslash or newline is escaped and the line
 * starts with a backslash. */
static int print_line(const uint8_t d[32], const char *name)
{
    static const char hex[] = "0123456789abcdef";
    char line[64 + 3];
    int esc = strpbrk(name, "\\\n") != NULL;
    for (int i = 0; i < 32; i++) {
        line[2 * i] = hex[d[i] >> 4];
        line[2 * i + 1] = hex[d[i] & 15];
    }
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

static int sha256_run(int argc, char **argv, const char **files)
{
    int dbl = 0, rc = BK_EXIT_OK, nfiles = 0, opts_done = 0, list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!opts_done && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
            usage(stdout);
            return BK_EXIT_OK;
        } else if (!opts_done && !strcmp(a, "--double")) {
            dbl = 1;
        } else if (!opts_done && !strcmp(a, "--backends")) {
            list = 1;
        } else if (!opts_done && !strcmp(a, "--backend")) {
            if (i + 1 >= argc) return bk_cli_fail(CMD, BK_EXIT_USAGE, "--backend needs a name");
            const char *name = argv[++i];
            bk_status st = bk_sha256_use(name);
            if (st == BK_ERR_ARG)
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "unknown backend '%s' (auto, portable, shani, shani/x3, shani/x2, avx512, avx512/pass, avx2, armv8)", name);
            if (st == BK_ERR_UNSUPPORTED)
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "backend '%s' cannot run on this CPU or build", name);
            if (st != BK_OK)
                return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "backend '%s' failed its self-test", name);
        } else if (!opts_done && !strcmp(a, "--")) {
            opts_done = 1;
        } else if (!opts_done && a[0] == '-' && a[1]) {
            return bk_cli_unknown_option(CMD, a);
        } else {
            files[nfiles++] = a;
        }
    }
    if (list) {
        if (nfiles) return bk_cli_fail(CMD, BK_EXIT_USAGE, "--backends takes no files");
        /* printf's errors stay in stdout's error flag: the flush reports
         * them once, naming standard output. */
        (void)print_backends();
        return bk_cli_output_flush(CMD, stdout, NULL);
    }
    if (nfiles == 0) files[nfiles++] = "-";
    uint8_t *buf = malloc(SHA256_READ);
    if (!buf) return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
    for (int i = 0; i < nfiles; i++) {
        uint8_t d[32];
        int r = hash_file(files[i], dbl, buf, d);
        if (r != 0) {
            if (rc == BK_EXIT_OK) rc = r;
            continue;
        }
        r = print_line(d, files[i]);
        if (r != BK_EXIT_OK) {
            free(buf);
            return bk_cli_output_error(CMD, stdout, NULL, errno);
        }
    }
    free(buf);
    int orc = bk_cli_output_flush(CMD, stdout, NULL);
    return orc ? orc : rc;
}

static int sha256_main(int argc, char **argv)
{
    const char **files = malloc(sizeof *files * (size_t)(argc + 1));
    if (!files) return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
    int rc = sha256_run(argc, argv, files);
    free(files);
    return rc;
}

BK_CLI_COMMAND(cli_sha256, "sha256", "[--double] [--backend NAME] [--backends] [FILE|-]...",
               "SHA-256 / SHA256d of files, printed like sha256sum", sha256_main)
