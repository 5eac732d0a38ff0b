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

/* An option given in a mode of its command it is not for: one refusal per
 * command with modes, from the option table's mode masks (cli/opt.h
 * BK_OPT_IN, bk_opt_mode_check), named as the table spells it. And the
 * subcommand words (bk_opt_dispatch): none, or one the command lacks. */
static void test_modes(void)
{
#define EXP RT " --out /tmp/bk-cliopt-never-made"
    static const struct {
        const char *args, *err;
    } c[] = {
        {"block " BLK " --tmpdir /tmp", "block: --tmpdir is for --datadir lookups, not a block FILE"},
        {"block " RT " 1 --undo x", "block: --undo is for a block FILE, not --datadir lookups"},
        {"block " RT " 1 -o x", "block: -o/--output is for a block FILE, not --datadir lookups"},
        {"tx --file x --blockhash 00", "tx: --blockhash is for --datadir lookups, not a transaction given as HEX, FILE or -"},
        {"tx " RT " 00 --undo-coins x", "tx: --undo-coins is for a transaction given as HEX, FILE or -, not --datadir lookups"},
        {"chain " RT " --tips --verbose", "chain: --verbose is for the chain listing, not --tips"},
        {"chain " RT " --pretty", "chain: --pretty is for --tips, not the chain listing"},
        {"stats " BLK " -j 2", "stats: -j/--jobs is for a blocks directory (--datadir or --blocksdir), not a block FILE"},
        {"stats " BLK " --start 1", "stats: --start is for a blocks directory (--datadir or --blocksdir), not a block FILE"},
        {"export " EXP " --verify -j 2", "export: -j/--jobs is not for --verify (it reads what DIR's catalogue says)"},
        {"export " EXP " --verify --start 3", "export: --start is not for --verify (it reads what DIR's catalogue says)"},
        {"export " EXP " --datasets utxos --start 3", "export: --start is not for --datasets utxos"},
        {"export " EXP " --datasets utxos --blocksdir x", "export: --blocksdir is not for --datasets utxos"},
        {"export " EXP " --datasets utxo_stats --profile lean", "export: --profile is not for --datasets utxo_stats"},
        {"export " EXP " --datasets utxo_stats --columns a", "export: --columns is not for --datasets utxo_stats"},
        {"export " EXP " --chunk-rows 5", "export: --chunk-rows is for --datasets utxos"},
        {"export " EXP " --deep", "export: --deep is for --verify"},
        {"utxo bogus", "utxo: unknown subcommand 'bogus' (stats, dump, snapshot; see --help)"},
        {"ssz", "ssz: missing subcommand: root, decode, encode, proof, verify or synth (see --help)"},
        {"ssz bogus", "ssz: unknown subcommand \"bogus\" (root, decode, encode, proof, verify, synth)"},
        {"filter match --bogus", "filter match: unknown option --bogus (see --help)"},
        {"proof verify --bogus", "proof verify: unknown option --bogus (see --help)"},
    };
#undef EXP
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char want[512];
        snprintf(want, sizeof want, "blockkit: %s\n", c[i].err);
        expect(c[i].args, want);
    }
}

int main(void)
{
    RUN(test_unknown);
    RUN(test_missing_value);
    RUN(test_modes);
    return check_finish();
}
