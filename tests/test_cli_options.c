/* Every command says the same two things about its options, before it
 * reads or prints anything: an option it does not have is "unknown option
 * X (see --help)" and a known option given last without its value is "X
 * needs a value", both exit 64 with nothing on standard output. (They
 * differed by command: "unknown argument 'X'", "bad argument", the usage
 * text before the message, "-x needs a value" for an unknown -x, "not hex"
 * for `script -x`; `block --datadir D 5 -o F` printed block 5 and then
 * took -o for a block hash.) Runs in tests/data. */
#include "check.h"
#include "json_test_util.h"

#define RT "--datadir " BK_REGTEST_DIR "/full --chain regtest"
#define BLK "blocks/block413567.raw"

/* run "blockkit ARGS", stdout and stderr apart */
static void expect(const char *args, const char *want_err)
{
    char cmd[2048], errf[] = "/tmp/bk-cliopt-XXXXXX";
    int fd = mkstemp(errf);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", BK_CLI_PATH, args, errf);
    size_t len;
    int rc;
    char *out = run_cmd(cmd, &len, &rc);
    size_t elen;
    char *err = (char *)check_read_file(errf, &elen);
    unlink(errf);
    check_case = args;
    CHECK_EQ_INT(rc, 64);
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_STR(err, want_err);
    free(out);
    free(err);
}

static void test_unknown(void)
{
    static const struct {
        const char *name, *args; /* args before the bad option */
    } c[] = {
        {"block", BLK},
        {"block", RT " 5"},
        {"header", RT " 5"},
        {"tx", RT},
        {"tx", ""},
        {"chain", RT},
        {"chain", "--tips " RT},
        {"scan", RT},
        {"stats", RT},
        {"stats", BLK},
        {"export", RT " --out /tmp/bk-cliopt-never"},
        {"utxo stats", RT},
        {"utxo dump", RT},
        {"merkle", BLK},
        {"script", ""},
        {"sha256", ""},
        {"ssz root", "uint64"},
        {"ssz verify", "uint64"},
        {"ssz synth", "uint64"},
        {"bench", ""},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *shown = !strcmp(c[i].name, "header")                                     ? "header"
                            : !strcmp(c[i].name, "chain") && strstr(c[i].args, "--tips")     ? "chain"
                                                                                             : c[i].name;
        char args[1024], want[256];
        for (int dash = 1; dash <= 2; dash++) {
            const char *opt = dash == 1 ? "-Z" : "--no-such-option";
            snprintf(args, sizeof args, "%s %s %s", c[i].name, c[i].args, opt);
            snprintf(want, sizeof want, "blockkit: %s: unknown option %s (see --help)\n", shown, opt);
            expect(args, want);
        }
    }
}

static void test_missing_value(void)
{
    static const struct {
        const char *name, *args, *opt, *shown;
    } c[] = {
        {"block", BLK, "--height", "block"},
        {"block", RT " 5", "--verbosity", "block"},
        {"header", RT " 5", "--core-compat", "header"},
        {"tx", "00", "--chain", "tx"},
        {"chain", RT, "--chain", "chain"},
        {"scan", RT, "--start", "scan"},
        {"scan", RT, "--source", "scan"},
        {"stats", RT, "--stats", "stats"},
        {"export", RT, "--out", "export"},
        {"export", RT " --out /tmp/bk-cliopt-never --datasets utxos", "--chunk-rows", "export"},
        {"utxo stats", RT, "--hash-type", "utxo stats"},
        {"script", "00", "--indent", "script"},
        {"ssz root", "uint64", "--hex", "ssz root"},
        {"ssz proof", "uint64", "--gindex", "ssz proof"},
        {"ssz synth", "uint64", "--count", "ssz synth"},
        {"merkle", BLK, "--tx", "merkle"},
        {"sha256", "", "--backend", "sha256"},
        {"bench", "", "--filter", "bench"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char args[1024], want[256];
        snprintf(args, sizeof args, "%s %s %s", c[i].name, c[i].args, c[i].opt);
        snprintf(want, sizeof want, "blockkit: %s: %s needs a value\n", c[i].shown, c[i].opt);
        expect(args, want);
    }
}

int main(void)
{
    RUN(test_unknown);
    RUN(test_missing_value);
    return check_finish();
}
