/* The option contract (cli/opt.h) of the tool commands merkle, script,
 * sha256, ssz <sub> and bench, which share the one table-driven parser:
 * the same messages (unknown option, missing value, bad value with its
 * bounds or choices, a value given to a flag, an extra argument), all exit
 * 64 with nothing on standard output; --opt=value is --opt value; "--"
 * ends the options; options before, between and after the arguments mean
 * the same; -jN; --help and --usage from the same rows. Outputs are
 * compared between the spellings (and, where one exists, with an
 * independent oracle: sha256sum, the SSZ oracle root). Runs in tests/data. */
#include "check.h"
#include "json_test_util.h"

#define BLK "blocks/block413567.raw"
#define ATT "ssz/attestation_value.hex"

typedef struct res {
    char *out, *err;
    size_t out_len;
    int rc;
} res;

/* "blockkit ARGS" with stdout and stderr apart. */
static res bk(const char *args)
{
    res r = {0};
    char cmd[4096], errf[] = "/tmp/bk-clitools-XXXXXX";
    int fd = mkstemp(errf);
    CHECK(fd >= 0);
    if (fd < 0) exit(2);
    close(fd);
    snprintf(cmd, sizeof cmd, "'%s' </dev/null %s 2>'%s'", BK_CLI_PATH, args, errf);
    r.out = run_cmd(cmd, &r.out_len, &r.rc);
    size_t elen;
    r.err = (char *)check_read_file(errf, &elen);
    unlink(errf);
    return r;
}

static void res_free(res *r)
{
    free(r->out);
    free(r->err);
}

/* A usage error: exit 64, nothing on stdout, exactly this message. */
static void usage_err(const char *args, const char *want)
{
    res r = bk(args);
    check_case = args;
    CHECK_EQ_INT(r.rc, 64);
    CHECK_EQ_INT(r.out_len, 0);
    CHECK_EQ_STR(r.err, want);
    res_free(&r);
}

/* A usage error whose message starts with want. */
static void usage_err_prefix(const char *args, const char *want)
{
    res r = bk(args);
    check_case = args;
    CHECK_EQ_INT(r.rc, 64);
    CHECK_EQ_INT(r.out_len, 0);
    CHECK(strncmp(r.err, want, strlen(want)) == 0);
    if (strncmp(r.err, want, strlen(want)) != 0) fprintf(stderr, "  got: %s  want: %s...\n", r.err, want);
    res_free(&r);
}

/* Every spelling in forms[] gives exit rc and the output of forms[0];
 * returns that output (the caller frees it). */
static char *same(const char *const *forms, size_t n, int rc)
{
    res first = bk(forms[0]);
    check_case = forms[0];
    CHECK_EQ_INT(first.rc, rc);
    CHECK(first.out_len > 0);
    for (size_t i = 1; i < n; i++) {
        res r = bk(forms[i]);
        check_case = forms[i];
        CHECK_EQ_INT(r.rc, rc);
        CHECK_EQ_STR(r.out, first.out);
        CHECK_EQ_STR(r.err, first.err);
        res_free(&r);
    }
    free(first.err);
    return first.out;
}

/* --help: exit 0, the usage line of cmd first, every named option listed,
 * nothing on stderr; --usage: the synopsis line alone. */
static void help_lists(const char *cmd, const char *const *opts, size_t n)
{
    char args[256], want[256];
    snprintf(args, sizeof args, "%s --help", cmd);
    res r = bk(args);
    check_case = args;
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_STR(r.err, "");
    snprintf(want, sizeof want, "usage: blockkit %s ", cmd);
    CHECK(strncmp(r.out, want, strlen(want)) == 0);
    for (size_t i = 0; i < n; i++) {
        snprintf(want, sizeof want, "  %s", opts[i]);
        if (!strstr(r.out, want)) fprintf(stderr, "  %s --help lacks %s\n", cmd, opts[i]);
        CHECK(strstr(r.out, want) != NULL);
    }
    res_free(&r);
    snprintf(args, sizeof args, "%s --usage", cmd);
    r = bk(args);
    check_case = args;
    CHECK_EQ_INT(r.rc, 0);
    snprintf(want, sizeof want, "blockkit %s [", cmd);
    CHECK(strncmp(r.out, want, strlen(want)) == 0);
    CHECK(strchr(r.out, '\n') == r.out + r.out_len - 1);
    res_free(&r);
}

static void merkle_contract(void)
{
    usage_err("merkle " BLK " --bogus", "blockkit: merkle: unknown option --bogus (see --help)\n");
    usage_err("merkle -Z " BLK, "blockkit: merkle: unknown option -Z (see --help)\n");
    usage_err("merkle " BLK " --tx", "blockkit: merkle: --tx needs a value\n");
    usage_err("merkle --tx x " BLK, "blockkit: merkle: bad value for --tx: 'x' (a whole number, 0 to 2147483647)\n");
    usage_err("merkle --tx=-1 " BLK, "blockkit: merkle: bad value for --tx: '-1' (a whole number, 0 to 2147483647)\n");
    usage_err("merkle --tx= " BLK, "blockkit: merkle: bad value for --tx: '' (a whole number, 0 to 2147483647)\n");
    usage_err("merkle " BLK " --hex=1", "blockkit: merkle: --hex takes no value\n");
    usage_err("merkle " BLK " " BLK, "blockkit: merkle: unexpected argument '" BLK "' (see --help)\n");
    usage_err("merkle --tx 7", "blockkit: merkle: missing FILE (see --help)\n");
    usage_err_prefix("merkle " BLK " --tx 100000", "blockkit: merkle: --tx 100000: the block has ");
    static const char *const tx7[] = {
        "merkle " BLK " --tx 7",
        "merkle --tx=7 " BLK,
        "merkle --tx 7 -- " BLK,
        "merkle --tx 3 " BLK " --tx 7", /* the last one given wins */
    };
    char *out = same(tx7, sizeof tx7 / sizeof tx7[0], 0);
    CHECK(strstr(out, ",\"tx\":7,\"txid\":\"") != NULL);
    free(out);
    static const char *const plain[] = {"merkle " BLK, "merkle -- " BLK, "merkle - < " BLK};
    out = same(plain, sizeof plain / sizeof plain[0], 0);
    CHECK(strstr(out, "\"tx\"") == NULL);
    free(out);
    static const char *const opts[] = {"--tx N", "--hex", "-h, --help"};
    help_lists("merkle", opts, 3);
}

static void script_contract(void)
{
    usage_err("script 6a00 --bogus", "blockkit: script: unknown option --bogus (see --help)\n");
    usage_err("script -x 6a00", "blockkit: script: unknown option -x (see --help)\n");
    usage_err("script 6a00 --chain", "blockkit: script: --chain needs a value\n");
    usage_err("script 6a00 --indent", "blockkit: script: --indent needs a value\n");
    usage_err("script --chain nosuch 6a00", "blockkit: script: bad value for --chain: 'nosuch'\n");
    usage_err("script 6a00 --indent 65", "blockkit: script: bad value for --indent: '65' (a whole number, 0 to 64)\n");
    usage_err("script 6a00 --indent=+2", "blockkit: script: bad value for --indent: '+2' (a whole number, 0 to 64)\n");
    usage_err("script --pretty=1 6a00", "blockkit: script: --pretty takes no value\n");
    usage_err("script 6a00 6a00", "blockkit: script: unexpected argument '6a00' (see --help)\n");
    usage_err("script --chain regtest", "blockkit: script: missing HEX (see --help)\n");
    /* a P2PKH script: its address depends on --chain */
    char hexf[] = "/tmp/bk-clitools-hex-XXXXXX", stdin_form[128];
    int fd = mkstemp(hexf);
    CHECK(fd >= 0);
    if (fd < 0) exit(2);
    static const char p2pkh[] = "76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac\n";
    CHECK_EQ_INT(write(fd, p2pkh, sizeof p2pkh - 1), (long long)(sizeof p2pkh - 1));
    close(fd);
    snprintf(stdin_form, sizeof stdin_form, "script --indent 3 - --chain regtest < %s", hexf);
    const char *const pk[] = {
        "script 76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac --chain regtest --indent 3",
        "script --indent=3 --chain=regtest 76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac",
        "script --chain regtest --indent 3 -- 76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac",
        "script --chain regtest 76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac --pretty --indent 3",
        stdin_form,
    };
    char *out = same(pk, sizeof pk / sizeof pk[0], 0);
    CHECK(strstr(out, "\n   \"asm\": \"OP_DUP OP_HASH160 ") != NULL); /* indent 3 */
    CHECK(strstr(out, "\"address\": \"m") != NULL || strstr(out, "\"address\": \"n") != NULL); /* regtest */
    free(out);
    unlink(hexf);
    /* --indent 0 after --pretty: compact again */
    static const char *const compact[] = {"script 6a00", "script 6a00 --pretty --indent 0", "script -- 6a00"};
    out = same(compact, 3, 0);
    CHECK(strncmp(out, "{\"asm\":\"OP_RETURN 0\"", 20) == 0);
    free(out);
    static const char *const opts[] = {"--chain NAME", "--pretty", "--indent N"};
    help_lists("script", opts, 3);
}

static void sha256_contract(void)
{
    usage_err("sha256 --bogus", "blockkit: sha256: unknown option --bogus (see --help)\n");
    usage_err("sha256 " BLK " --backend", "blockkit: sha256: --backend needs a value\n");
    usage_err("sha256 --backend md5 " BLK,
              "blockkit: sha256: bad value for --backend: 'md5' (auto, portable, shani, shani/x3, shani/x2, avx512, "
              "avx512/pass, avx2, armv8)\n");
    usage_err("sha256 --double=yes " BLK, "blockkit: sha256: --double takes no value\n");
    usage_err("sha256 --backends " BLK, "blockkit: sha256: --backends takes no files\n");
    /* coreutils sha256sum is the oracle, "--" and a name starting with '-'
     * included */
    char dir[] = "/tmp/bk-clitools-sha-XXXXXX", cmd[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cp " BLK " '%s/-dash' && cp " BLK " '%s/b.raw'", dir, dir);
    size_t n;
    int st;
    free(run_cmd(cmd, &n, &st));
    CHECK_EQ_INT(st, 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && sha256sum -- -dash b.raw", dir);
    char *want = run_cmd(cmd, &n, &st);
    CHECK_EQ_INT(st, 0);
    char f[5][512];
    snprintf(f[0], sizeof f[0], "sha256 -- -dash b.raw");
    snprintf(f[1], sizeof f[1], "sha256 --backend portable -- -dash b.raw");
    snprintf(f[2], sizeof f[2], "sha256 --backend=portable -- -dash b.raw");
    snprintf(f[3], sizeof f[3], "sha256 ./-dash --backend auto b.raw");
    snprintf(f[4], sizeof f[4], "sha256 -- -dash b.raw");
    for (int i = 0; i < 5; i++) {
        char c2[1024];
        snprintf(c2, sizeof c2, "cd '%s' && '%s' %s", dir, BK_CLI_PATH, f[i]);
        char *got = run_cmd(c2, &n, &st);
        check_case = f[i];
        CHECK_EQ_INT(st, 0);
        if (i == 3) { /* the same digests, the name as given */
            CHECK(strncmp(got, want, 64) == 0);
            CHECK(strstr(got, "  ./-dash\n") != NULL);
        } else {
            CHECK_EQ_STR(got, want);
        }
        free(got);
    }
    free(want);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' sha256 -dash 2>&1 >/dev/null; echo $?", dir, BK_CLI_PATH);
    char *got = run_cmd(cmd, &n, &st);
    CHECK_EQ_STR(got, "blockkit: sha256: unknown option -d (see --help)\n64\n");
    free(got);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    free(run_cmd(cmd, &n, &st));
    static const char *const dbl[] = {"sha256 --double " BLK, "sha256 " BLK " --double", "sha256 --double -- " BLK};
    char *out = same(dbl, 3, 0);
    free(out);
    static const char *const opts[] = {"--double", "--backend NAME", "--backends"};
    help_lists("sha256", opts, 3);
}

static void ssz_contract(void)
{
    static const char *const subs[] = {"root", "decode", "encode", "proof", "verify", "synth"};
    for (size_t i = 0; i < 6; i++) {
        char args[256], want[256];
        snprintf(args, sizeof args, "ssz %s uint64 --bogus", subs[i]);
        snprintf(want, sizeof want, "blockkit: ssz %s: unknown option --bogus (see --help)\n", subs[i]);
        usage_err(args, want);
        snprintf(args, sizeof args, "ssz %s -Z uint64", subs[i]);
        snprintf(want, sizeof want, "blockkit: ssz %s: unknown option -Z (see --help)\n", subs[i]);
        usage_err(args, want);
        snprintf(args, sizeof args, "ssz %s uint64 --schema", subs[i]);
        snprintf(want, sizeof want, "blockkit: ssz %s: --schema needs a value\n", subs[i]);
        usage_err(args, want);
        snprintf(args, sizeof args, "ssz %s uint64 --preset=big", subs[i]);
        snprintf(want, sizeof want, "blockkit: ssz %s: bad value for --preset: 'big' (mainnet|minimal)\n", subs[i]);
        usage_err(args, want);
        snprintf(args, sizeof args, "ssz %s --fork phase0", subs[i]);
        snprintf(want, sizeof want, "blockkit: ssz %s: missing TYPE (see --help)\n", subs[i]);
        usage_err(args, want);
        /* --fork list needs no TYPE */
        snprintf(args, sizeof args, "ssz %s --fork list", subs[i]);
        res r = bk(args);
        check_case = args;
        CHECK_EQ_INT(r.rc, 0);
        CHECK(strncmp(r.out, "phase0\n", 7) == 0);
        res_free(&r);
    }
    /* an option of another subcommand is not one of this one */
    usage_err("ssz encode uint64 --hex 0x00", "blockkit: ssz encode: unknown option --hex (see --help)\n");
    usage_err("ssz decode uint64 -j 2", "blockkit: ssz decode: unknown option -j (see --help)\n");
    usage_err("ssz root uint64 --count 2", "blockkit: ssz root: unknown option --count (see --help)\n");
    usage_err("ssz verify uint64 --raw", "blockkit: ssz verify: unknown option --raw (see --help)\n");
    usage_err("ssz root uint64 -j 0 --hex 0x0100000000000000",
              "blockkit: ssz root: bad value for -j: '0' (a whole number, 1 to 256)\n");
    usage_err("ssz root uint64 -j257 --hex 0x0100000000000000",
              "blockkit: ssz root: bad value for -j: '257' (a whole number, 1 to 256)\n");
    usage_err("ssz proof uint64 --jobs=x --gindex 1 --hex 0x0100000000000000",
              "blockkit: ssz proof: bad value for --jobs: 'x' (a whole number, 1 to 256)\n");
    usage_err("ssz root uint64 --hex 0x0100000000000000 -j", "blockkit: ssz root: -j needs a value\n");
    usage_err("ssz synth uint64 --count -1",
              "blockkit: ssz synth: bad value for --count: '-1' (a whole number, 0 to 9223372036854775807)\n");
    usage_err("ssz synth uint64 --seed 1x",
              "blockkit: ssz synth: bad value for --seed: '1x' (a whole number, 0 to 9223372036854775807)\n");
    usage_err_prefix("ssz proof uint64 --gindex 0 --hex 0x0100000000000000",
                     "blockkit: ssz proof: bad value for --gindex: '0' (");
    usage_err("ssz root --raw=1 uint64", "blockkit: ssz root: --raw takes no value\n");
    usage_err("ssz root uint64 " ATT " extra", "blockkit: ssz root: unexpected argument 'extra' (see --help)\n");
    usage_err("ssz synth uint64 extra", "blockkit: ssz synth: unexpected argument 'extra' (see --help)\n");
    usage_err("ssz root uint64 " ATT " --hex 0x00", "blockkit: ssz root: give FILE or --hex, not both\n");
    usage_err("ssz", "blockkit: ssz: missing subcommand: root, decode, encode, proof, verify or synth (see --help)\n");
    usage_err("ssz frob uint64",
              "blockkit: ssz: unknown subcommand \"frob\" (root, decode, encode, proof, verify, synth)\n");
    /* the oracle's root of the Attestation, however the line is spelled */
    static const char *const root[] = {
        "ssz root phase0:Attestation " ATT,
        "ssz root --jobs=2 phase0:Attestation --preset=mainnet " ATT,
        "ssz root -j2 --fork phase0 -- Attestation " ATT,
        "ssz root Attestation -j 2 " ATT " --fork=phase0",
        "ssz root phase0:Attestation - < " ATT,
    };
    char *out = same(root, sizeof root / sizeof root[0], 0);
    size_t n;
    char *want = (char *)check_read_file("ssz/attestation_value.root", &n);
    CHECK_EQ_STR(out, want);
    free(want);
    free(out);
    /* --set: LIST rows keep their order; the first line is the plain root */
    static const char *const set[] = {
        "ssz root Container:Checkpoint --hex 0x" "0100000000000000" "0000000000000000000000000000000000000000000000000000000000000000"
        " --set epoch=0x0200000000000000 --set epoch=0x0300000000000000",
        "ssz root --set=epoch=0x0200000000000000 Container:Checkpoint --set epoch=0x0300000000000000 --hex=0x"
        "0100000000000000" "0000000000000000000000000000000000000000000000000000000000000000",
    };
    out = same(set, 2, 0);
    CHECK_EQ_INT(strlen(out), 2 * 67);
    free(out);
    static const char *const proof[] = {
        "ssz proof phase0:Attestation --path data.target.epoch ssz/attestation.hex",
        "ssz proof --path=data.target.epoch phase0:Attestation ssz/attestation.hex",
        "ssz proof phase0:Attestation ssz/attestation.hex --path data.target.epoch -j2",
        "ssz proof --path data.target.epoch -- phase0:Attestation ssz/attestation.hex",
    };
    out = same(proof, sizeof proof / sizeof proof[0], 0);
    want = (char *)check_read_file("ssz/attestation_epoch_proof.json", &n);
    CHECK_EQ_STR(out, want);
    free(want);
    free(out);
    static const char *const verify[] = {
        "ssz verify --fork phase0 Attestation --path data.target.epoch ssz/attestation_epoch_proof.json",
        "ssz verify --fork=phase0 --path=data.target.epoch Attestation ssz/attestation_epoch_proof.json",
        "ssz verify Attestation ssz/attestation_epoch_proof.json --fork phase0 --gindex 88",
    };
    out = same(verify, 3, 0);
    CHECK_EQ_STR(out, "ok\n");
    free(out);
    usage_err("ssz verify --fork phase0 Attestation --path data.target.epoch --gindex 88 "
              "ssz/attestation_epoch_proof.json",
              "blockkit: ssz verify: verify takes at most one --path or --gindex\n");
    static const char *const synth[] = {
        "ssz synth 'List[uint64,16]' --count 3 --min-limit 16 --seed 7",
        "ssz synth --seed=7 'List[uint64,16]' --count=3 --min-limit=16",
        "ssz synth --count 3 --min-limit 16 --seed 7 -- 'List[uint64,16]'",
    };
    out = same(synth, 3, 0);
    free(out);
    /* the overview: every subcommand's synopsis line from its table */
    res r = bk("ssz --help");
    check_case = "ssz --help";
    CHECK_EQ_INT(r.rc, 0);
    for (size_t i = 0; i < 6; i++) {
        char line[64];
        snprintf(line, sizeof line, "\nblockkit ssz %s [--fork F] [--preset mainnet|minimal]", subs[i]);
        CHECK(strstr(r.out, line) != NULL);
    }
    CHECK(strstr(r.out, "[-j|--jobs N]") != NULL);
    CHECK(strstr(r.out, "[--set PATH=0xHEX]...") != NULL);
    res_free(&r);
    r = bk("ssz --usage");
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strncmp(r.out, "blockkit ssz root [", 19) == 0);
    res_free(&r);
    static const char *const ropts[] = {"--fork F", "--preset mainnet|minimal", "--schema FILE", "--hex 0x..",
                                        "--raw", "-j, --jobs N", "--set PATH=0xHEX"};
    help_lists("ssz root", ropts, sizeof ropts / sizeof ropts[0]);
    static const char *const sopts[] = {"--count N", "--min-limit L", "--seed S"};
    help_lists("ssz synth", sopts, 3);
    static const char *const vopts[] = {"--path a.b.c", "--gindex N", "--root 0x.."};
    help_lists("ssz verify", vopts, 3);
}

static void bench_contract(void)
{
    usage_err("bench --bogus", "blockkit: bench: unknown option --bogus (see --help)\n");
    usage_err("bench -Z", "blockkit: bench: unknown option -Z (see --help)\n");
    usage_err("bench --list --filter", "blockkit: bench: --filter needs a value\n");
    usage_err("bench --epochs 0", "blockkit: bench: bad value for --epochs: '0' (a whole number, 1 to 101)\n");
    usage_err("bench --epochs=102", "blockkit: bench: bad value for --epochs: '102' (a whole number, 1 to 101)\n");
    usage_err("bench --epochs 3.0", "blockkit: bench: bad value for --epochs: '3.0' (a whole number, 1 to 101)\n");
    usage_err("bench --format xml", "blockkit: bench: bad value for --format: 'xml' (table|json|csv)\n");
    usage_err("bench --min-time -3", "blockkit: bench: bad value for --min-time: '-3'\n");
    usage_err("bench --min-time 0x10", "blockkit: bench: bad value for --min-time: '0x10'\n");
    usage_err("bench --min-time ' 5'", "blockkit: bench: bad value for --min-time: ' 5'\n");
    usage_err_prefix("bench --cpu x", "blockkit: bench: bad value for --cpu: 'x' (a whole number, 0 to ");
    usage_err_prefix("bench --filter '('", "blockkit: bench: bad value for --filter: '(' (");
    usage_err("bench --list=1", "blockkit: bench: --list takes no value\n");
    usage_err("bench extra", "blockkit: bench: unexpected argument 'extra' (bench takes no arguments; see --help)\n");
    usage_err("bench -- --list",
              "blockkit: bench: unexpected argument '--list' (bench takes no arguments; see --help)\n");
    static const char *const list[] = {
        "bench --list --filter '^SHA256D64/'",
        "bench --filter='^SHA256D64/' --list",
        "bench --list --filter '^SHA256D64/' --epochs 3 --min-time 0.5 --format csv --cpu 0 --no-hw --",
    };
    char *out = same(list, 3, 0);
    CHECK(strncmp(out, "SHA256D64/", 10) == 0);
    CHECK(strstr(out, "SHA256/64B") == NULL);
    free(out);
    /* a fractional --min-time and a CHOICE row, measured */
    res r = bk("bench --filter '^SHA256D64/portable$' --min-time=2.5 --epochs=3 --format=json --no-hw");
    check_case = "bench --min-time=2.5";
    CHECK_EQ_INT(r.rc, 0);
    CHECK(strstr(r.out, "\"epochs\": 3") != NULL);
    CHECK(strstr(r.out, "\"ins_per_unit\"") == NULL); /* --no-hw */
    CHECK(strstr(r.err, "min-time 2.5 ms; 3 epochs") != NULL);
    res_free(&r);
    static const char *const opts[] = {"--filter REGEX", "--min-time MS", "--epochs N", "--format table|json|csv",
                                       "--no-hw", "--cpu N", "--list"};
    help_lists("bench", opts, sizeof opts / sizeof opts[0]);
}

int main(void)
{
    RUN(merkle_contract);
    RUN(script_contract);
    RUN(sha256_contract);
    RUN(ssz_contract);
    RUN(bench_contract);
    return check_finish();
}
