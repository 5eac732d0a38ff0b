/* `blockkit sha256` end to end against coreutils sha256sum, and backend
 * forcing through BLOCKKIT_SHA256 (read once, at the first hash). */
#include "check.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <blockkit/sha256.h>

#define BLOCK BK_TEST_DATA "/../../data/block413567.raw"

/* Run a shell command, capture up to cap-1 bytes of its stdout; returns the
 * exit status (or -1). */
static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void file_matches_sha256sum(void)
{
    char want[256], got[256];
    CHECK_EQ_INT(run("cd " BK_TEST_DATA "/../../data && sha256sum block413567.raw", want, sizeof want), 0);
    CHECK_EQ_INT(run("cd " BK_TEST_DATA "/../../data && '" BK_CLI_PATH "' sha256 block413567.raw", got, sizeof got), 0);
    CHECK_EQ_STR(got, want);
    CHECK_EQ_STR(got, "71964cee18c58675784846d498944b35daa41e36b6f65a7e8feb291def924cce  block413567.raw\n");
}

static void stdin_named_dash(void)
{
    char want[256], got[256];
    CHECK_EQ_INT(run("sha256sum < '" BLOCK "'", want, sizeof want), 0);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' sha256 < '" BLOCK "'", got, sizeof got), 0);
    CHECK_EQ_STR(got, want);
    CHECK_EQ_INT(run("printf abc | '" BK_CLI_PATH "' sha256 -", got, sizeof got), 0);
    CHECK_EQ_STR(got, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n");
}

/* coreutils escapes a name holding a backslash or newline and starts the
 * line with a backslash. */
static void escaped_names_like_sha256sum(void)
{
    char dir[] = "/tmp/bk_sha256_cli_XXXXXX", cmd[512], want[512], got[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cd %s && printf abc > 'a\\b' && printf 'x' > \"$(printf 'n\\nl')\"", dir);
    CHECK_EQ_INT(run(cmd, got, sizeof got), 0);
    snprintf(cmd, sizeof cmd, "cd %s && sha256sum * | sort", dir);
    CHECK_EQ_INT(run(cmd, want, sizeof want), 0);
    snprintf(cmd, sizeof cmd, "cd %s && '%s' sha256 * | sort", dir, BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, got, sizeof got), 0);
    CHECK_EQ_STR(got, want);
    CHECK(strchr(got, '\\') == got);  /* sorted: both lines start with a backslash */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(run(cmd, got, sizeof got), 0);
}

static void every_backend_agrees(void)
{
    const char *names[8];
    size_t n = bk_sha256_backends(names, 8);
    for (size_t i = 0; i < n; i++) {
        char cmd[512], got[256];
        snprintf(cmd, sizeof cmd, "'%s' sha256 --backend %s '%s'", BK_CLI_PATH, names[i], BLOCK);
        CHECK_EQ_INT(run(cmd, got, sizeof got), 0);
        CHECK(strncmp(got, "71964cee18c58675784846d498944b35daa41e36b6f65a7e8feb291def924cce  ", 66) == 0);
        /* SHA256d of the block file (Python hashlib). */
        snprintf(cmd, sizeof cmd, "'%s' sha256 --double --backend %s < '%s'", BK_CLI_PATH, names[i], BLOCK);
        CHECK_EQ_INT(run(cmd, got, sizeof got), 0);
        CHECK_EQ_STR(got, "ad31399fdcecbcdf6ee23dc1c1052919270696a213e99cbbc094a809a71f60b7  -\n");
    }
}

static void errors_and_exit_codes(void)
{
    char got[256];
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' sha256 --backend md5 /dev/null 2>/dev/null", got, sizeof got), 64);
#if defined(__x86_64__)
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' sha256 --backend armv8 /dev/null 2>/dev/null", got, sizeof got), 64);
#endif
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' sha256 /nonexistent/file 2>/dev/null", got, sizeof got), 66);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' sha256 --bogus 2>/dev/null", got, sizeof got), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' sha256 --help", got, sizeof got), 0);
    CHECK(strstr(got, "usage: blockkit sha256") != NULL);
}

/* BLOCKKIT_SHA256 picks the backend at first use; an unusable name falls
 * back to the automatic choice (the best runnable backend). */
static void env_forces_backend(void)
{
    const char *names[8];
    size_t n = bk_sha256_backends(names, 8);
    for (size_t i = 0; i < n; i++) {
        char cmd[512], got[256], want[64];
        snprintf(cmd, sizeof cmd, "BLOCKKIT_SHA256=%s '%s' --version", names[i], BK_CLI_PATH);
        CHECK_EQ_INT(run(cmd, got, sizeof got), 0);
        snprintf(want, sizeof want, "(sha256 backend: %s)", names[i]);
        CHECK(strstr(got, want) != NULL);
    }
    char got[256], want[64];
    snprintf(want, sizeof want, "(sha256 backend: %s)", names[0]);
    CHECK_EQ_INT(run("BLOCKKIT_SHA256=nonsense '" BK_CLI_PATH "' --version", got, sizeof got), 0);
    CHECK(strstr(got, want) != NULL);
#if defined(__x86_64__)
    CHECK_EQ_INT(run("BLOCKKIT_SHA256=armv8 '" BK_CLI_PATH "' --version", got, sizeof got), 0);
    CHECK(strstr(got, want) != NULL);
#endif
}

int main(void)
{
    RUN(file_matches_sha256sum);
    RUN(stdin_named_dash);
    RUN(escaped_names_like_sha256sum);
    RUN(every_backend_agrees);
    RUN(errors_and_exit_codes);
    RUN(env_forces_backend);
    return check_finish();
}
