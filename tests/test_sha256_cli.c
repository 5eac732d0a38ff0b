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
    snprintf(want, sizeof want, "(sha256 backend: %s)", "auto");
    CHECK_EQ_INT(run("BLOCKKIT_SHA256=nonsense '" BK_CLI_PATH "' --version", got, sizeof got), 0);
    CHECK(strstr(got, want) != NULL);
#if defined(__x86_64__)
    CHECK_EQ_INT(run("BLOCKKIT_SHA256=armv8 '" BK_CLI_PATH "' --version", got, sizeof got), 0);
    CHECK(strstr(got, want) != NULL);
#endif
}

/* The value of "key=" on the line starting with `line` of a --backends
 * listing, into val (empty when absent). */
static void listing_value(const char *out, const char *line, const char *key, char *val, size_t cap)
{
    val[0] = 0;
    const char *l = strstr(out, line);
    if (!l) return;
    const char *eol = strchr(l, '\n');
    char k[32];
    snprintf(k, sizeof k, " %s=", key);
    const char *v = strstr(l, k);
    if (!v || (eol && v > eol)) return;
    v += strlen(k);
    size_t n = strcspn(v, " \n");
    if (n >= cap) n = cap - 1;
    memcpy(val, v, n);
    val[n] = 0;
}

/* BLOCKKIT_SHA256_MASK hides CPU features: the calibration then measures
 * and picks only backends that do not need them, and the digests stay
 * right. Every combination of the x86 features this CPU has. */
static void masked_features_never_chosen(void)
{
    static const char *const feats[3] = {"shani", "avx512", "avx2"};
    static const char *const shapes[4] = {"64B", "D64", "msgs", "stream"};
    for (int m = 0; m < 8; m++) {
        char mask[64] = "", cmd[640], out[4096], val[64];
        for (int f = 0; f < 3; f++)
            if (m & (1 << f)) {
                if (mask[0]) strcat(mask, ",");
                strcat(mask, feats[f]);
            }
        snprintf(cmd, sizeof cmd, "BLOCKKIT_SHA256_MASK=%s '%s' sha256 --backends", mask, BK_CLI_PATH);
        CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
        /* The AVX-512 driver's crossovers are printed exactly when it has
         * SHA-NI streams for its short batches (both rows measured). */
        int both = strstr(out, "\nshani ") != NULL && strstr(out, "\navx512 ") != NULL;
        CHECK_EQ_INT(strstr(out, "\navx512 tails: fewer than ") != NULL, both);
        for (int s = 0; s < 4; s++) {
            listing_value(out, "chosen", shapes[s], val, sizeof val);
            CHECK(val[0] != 0);
            for (int f = 0; f < 3; f++)
                if (m & (1 << f)) {
                    if (strncmp(val, feats[f], strlen(feats[f])) == 0)
                        fprintf(stderr, "  mask %s: %s chose %s\n", mask, shapes[s], val);
                    CHECK(strncmp(val, feats[f], strlen(feats[f])) != 0);
                    /* not even measured */
                    char row[32];
                    snprintf(row, sizeof row, "\n%s", feats[f]);
                    CHECK(strstr(out, row) == NULL);
                }
            /* the choice is a measured row */
            char row[80];
            snprintf(row, sizeof row, "\n%s ", val);
            CHECK(strstr(out, row) != NULL);
        }
        snprintf(cmd, sizeof cmd, "BLOCKKIT_SHA256_MASK=%s '%s' sha256 --double < '%s'", mask, BK_CLI_PATH, BLOCK);
        CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
        CHECK_EQ_STR(out, "ad31399fdcecbcdf6ee23dc1c1052919270696a213e99cbbc094a809a71f60b7  -\n");
        /* A masked backend cannot be forced either. */
        for (int f = 0; f < 3; f++)
            if (m & (1 << f)) {
                snprintf(cmd, sizeof cmd, "BLOCKKIT_SHA256_MASK=%s '%s' sha256 --backend %s /dev/null 2>/dev/null",
                         mask, BK_CLI_PATH, feats[f]);
                CHECK_EQ_INT(run(cmd, out, sizeof out), 64);
            }
    }
}

/* Under an override every shape uses the forced backend, whatever the
 * calibration measured; without one, "auto". */
static void override_is_deterministic(void)
{
    static const char *const shapes[4] = {"64B", "D64", "msgs", "stream"};
    const char *names[8];
    size_t n = bk_sha256_backends(names, 8);
    for (size_t i = 0; i <= n; i++) {
        const char *name = i < n ? names[i] : "auto";
        char cmd[512], out[4096], val[64];
        for (int how = 0; how < 2; how++) {
            if (how == 0)
                snprintf(cmd, sizeof cmd, "BLOCKKIT_SHA256=%s '%s' sha256 --backends", name, BK_CLI_PATH);
            else
                snprintf(cmd, sizeof cmd, "'%s' sha256 --backend %s --backends", BK_CLI_PATH, name);
            CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
            char want[64];
            snprintf(want, sizeof want, "\nin use     %s:", name);
            CHECK(strstr(out, want) != NULL);
            for (int s = 0; s < 4; s++) {
                char chosen[64];
                listing_value(out, "in use", shapes[s], val, sizeof val);
                listing_value(out, "chosen", shapes[s], chosen, sizeof chosen);
                CHECK_EQ_STR(val, i < n ? name : chosen);
            }
        }
    }
    char out[256];
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' sha256 --backends /dev/null 2>/dev/null", out, sizeof out), 64);
}

int main(void)
{
    RUN(file_matches_sha256sum);
    RUN(stdin_named_dash);
    RUN(escaped_names_like_sha256sum);
    RUN(every_backend_agrees);
    RUN(errors_and_exit_codes);
    RUN(env_forces_backend);
    RUN(masked_features_never_chosen);
    RUN(override_is_deterministic);
    return check_finish();
}
