/* `blockkit stats` against Core's getblockstats answers for the regtest
 * datadir, the mainnet vectors' known fee totals, and its errors. */
#include "check.h"
#include "json_test_util.h"

static char *cli(const char *args, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/tmp/bk_stats_cli_err.$$; cat /tmp/bk_stats_cli_err.$$ >&2; "
             "rm -f /tmp/bk_stats_cli_err.$$", BK_CLI_PATH, args);
    size_t n;
    return run_cmd(cmd, &n, status);
}

/* stdout and stderr together, with the exit status */
static char *cli_all(const char *args, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", BK_CLI_PATH, args);
    size_t n;
    return run_cmd(cmd, &n, status);
}

/* Core's bytes of each line (after ,"core": up to the final }), one per line. */
static tbuf core_lines(const char *name, int64_t max_height)
{
    size_t len;
    char *all = (char *)read_zst(name, &len);
    tbuf out = {0};
    for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) {
        long long h = -1;
        sscanf(line, "{\"height\":%lld", &h);
        if (max_height >= 0 && h > max_height) continue;
        char *p = strstr(line, ",\"core\":");
        if (!p) continue;
        p += 8;
        size_t n = strlen(p);
        tbuf_put(&out, p, n - 1);
        tbuf_put(&out, "\n", 1);
    }
    free(all);
    return out;
}

static void test_mainnet_files(void)
{
    static const struct {
        const char *name;
        const char *fee;
    } v[] = {
        {"277647", "{\"totalfee\":4737355}\n"},
        {"367891", "{\"totalfee\":14001930}\n"},
        {"866342", "{\"totalfee\":5026183}\n"},
    };
    for (size_t i = 0; i < 3; i++) {
        char args[512];
        int st;
        /* the rev*.dat record form (checksum verified) and the bare CBlockUndo */
        snprintf(args, sizeof args, "stats blocks/block%s.raw --undo undo/rev_record_block%s.dat --stats totalfee",
                 v[i].name, v[i].name);
        char *out = cli(args, &st);
        CHECK_EQ_INT(st, 0);
        CHECK_EQ_STR(out, v[i].fee);
        free(out);
        snprintf(args, sizeof args, "stats blocks/block%s.raw --undo undo/block%s_undo.raw --stats totalfee,txs",
                 v[i].name, v[i].name);
        out = cli(args, &st);
        CHECK_EQ_INT(st, 0);
        CHECK(strncmp(out, v[i].fee, strlen(v[i].fee) - 2) == 0);
        free(out);
    }
    /* another block's undo: an error naming the block, exit 65 */
    int st;
    char *out = cli_all("stats blocks/block277647.raw --undo undo/block866342_undo.raw", &st);
    CHECK_EQ_INT(st, 65);
    CHECK(strstr(out, "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8") != NULL);
    CHECK(strstr(out, "undo data does not match block") != NULL);
    free(out);
    /* a mainnet rev record read as testnet3's: named as such (stats had
     * its own undo locator, without this check, and tried to parse the
     * record's framing as a CBlockUndo) */
    out = cli_all("stats blocks/block866342.raw --undo undo/rev_record_block866342.dat --height 866342 --chain testnet3",
                  &st);
    CHECK_EQ_INT(st, 65);
    CHECK(strstr(out, "undo record has the main network magic; use --chain main") != NULL);
    free(out);
    /* a rev record of another block: its checksum does not verify */
    out = cli_all("stats blocks/block277647.raw --undo undo/rev_record_block866342.dat", &st);
    CHECK_EQ_INT(st, 65);
    CHECK(strstr(out, "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8") != NULL);
    free(out);
    /* no undo: Core's error */
    out = cli_all("stats blocks/block277647.raw", &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Undo data not available") != NULL);
    free(out);
    /* an unknown statistic: Core's message, usage error */
    out = cli_all("stats blocks/block277647.raw --undo undo/block277647_undo.raw --stats txs,nosuchstat", &st);
    CHECK_EQ_INT(st, 64);
    CHECK(strstr(out, "Invalid selected statistic 'nosuchstat'") != NULL);
    free(out);
    out = cli("stats --help", &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(out, "getblockstats") != NULL);
    free(out);
}

static void test_regtest_range(void)
{
    /* Every height 0..939 through Core's block index (the default source
     * of a datadir with one), with one and with two workers. */
    char args[4096];
    int st;
    snprintf(args, sizeof args, "stats --datadir %s/full --chain regtest 2>/dev/null", BK_REGTEST_DIR);
    char *out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    tbuf want = core_lines("regtest/getblockstats.ndjson.zst", -1);
    CHECK(want.p && strcmp(out, want.p) == 0);
    free(out);
    snprintf(args, sizeof args, "stats --datadir %s/full --chain regtest -j 2 2>/dev/null", BK_REGTEST_DIR);
    out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(want.p && strcmp(out, want.p) == 0);
    free(out);
    free(want.p);
    /* Core master (v32 line, bitcoin/bitcoin#31449: 40 bytes of per-UTXO
     * overhead) on the same datadir: --core-compat 32; and 31 must differ. */
    snprintf(args, sizeof args, "stats --datadir %s/full --chain regtest --core-compat 32 2>/dev/null",
             BK_REGTEST_DIR);
    out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    want = core_lines("regtest/core-master/getblockstats.ndjson.zst", -1);
    CHECK(want.p && strcmp(out, want.p) == 0);
    free(out);
    tbuf v31 = core_lines("regtest/getblockstats.ndjson.zst", -1);
    CHECK(want.p && v31.p && strcmp(want.p, v31.p) != 0);
    free(v31.p);
    free(want.p);
    snprintf(args, sizeof args, "stats --datadir %s/full --chain regtest --core-compat 33", BK_REGTEST_DIR);
    out = cli_all(args, &st);
    CHECK_EQ_INT(st, 64);
    CHECK(strstr(out, "--core-compat") != NULL);
    free(out);
    /* The header scan (--source files): the same up to 583 (from 584 on
     * it cannot tell the same-shape siblings' undo records apart). */
    snprintf(args, sizeof args, "stats --datadir %s/full --chain regtest --source files --end 583 2>/dev/null",
             BK_REGTEST_DIR);
    out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    want = core_lines("regtest/getblockstats.ndjson.zst", 583);
    CHECK(want.p && strcmp(out, want.p) == 0);
    free(out);
    free(want.p);

    /* The pruned copy: from its prune height (448) to the tip, as Core
     * answered on the full node; a pruned height is Core's error. */
    snprintf(args, sizeof args, "stats --datadir %s/pruned --chain regtest -j 2 2>/dev/null", BK_REGTEST_DIR);
    out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    want = core_lines("regtest/getblockstats.ndjson.zst", -1);
    char *from448 = want.p;
    for (int h = 0; h < 448 && from448; h++) from448 = strchr(from448, '\n') + 1;
    CHECK(from448 && strcmp(out, from448) == 0);
    free(out);
    free(want.p);
    snprintf(args, sizeof args, "stats --datadir %s/pruned --chain regtest --height 10", BK_REGTEST_DIR);
    out = cli_all(args, &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Block not available (pruned data)") != NULL);
    free(out);

    /* one height, pretty: bitcoin-cli's form of Core's answer */
    snprintf(args, sizeof args, "stats --blocksdir %s/full/regtest/blocks --chain regtest --height 499 --pretty",
             BK_REGTEST_DIR);
    out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    tbuf all = core_lines("regtest/getblockstats.ndjson.zst", -1);
    char *line = all.p;
    for (int h = 0; h < 499 && line; h++) line = strchr(line, '\n') + 1;
    char *nl = strchr(line, '\n');
    *nl = 0;
    tbuf pretty = ref_pretty(line, 2);
    tbuf_put(&pretty, "\n", 1);
    CHECK_EQ_STR(out, pretty.p);
    free(pretty.p);
    free(all.p);
    free(out);

    /* a filtered stats list: Core's sorted key order */
    snprintf(args, sizeof args,
             "stats --datadir %s/full --chain regtest --height 0 --stats txs,totalfee,feerate_percentiles,avgfeerate,"
             "utxo_size_inc_actual,height",
             BK_REGTEST_DIR);
    out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    CHECK_EQ_STR(out, "{\"avgfeerate\":0,\"feerate_percentiles\":[0,0,0,0,0],\"height\":0,\"totalfee\":0,\"txs\":1,"
                      "\"utxo_size_inc_actual\":0}\n");
    free(out);

    /* by hash: a stale valid-fork block (Core's answer in _offchain) */
    snprintf(args, sizeof args,
             "stats --datadir %s/full --chain regtest --hash 062f465fa03783162c7f9e65ad9000da52a6e63a4a0c6be59b0a04512b94d99d",
             BK_REGTEST_DIR);
    out = cli(args, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(out, "\"height\":912,\"ins\":5,") != NULL);
    CHECK(strstr(out, "\"totalfee\":8256,\"txs\":6,\"utxo_increase\":7,\"utxo_size_inc\":548,") != NULL);
    free(out);
    /* a valid-headers block (never connected, no undo): Core's error */
    snprintf(args, sizeof args,
             "stats --datadir %s/full --chain regtest --hash 642e9aa7494662f1e3a30c1542c1923c6295661c1511312102338fb721d89cbe",
             BK_REGTEST_DIR);
    out = cli_all(args, &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Undo data not available") != NULL);
    free(out);
    /* past the tip: Core's message */
    snprintf(args, sizeof args, "stats --datadir %s/full --chain regtest --height 940", BK_REGTEST_DIR);
    out = cli_all(args, &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Target block height 940 after current tip 939") != NULL);
    free(out);
    /* closed pipe: exit 0 */
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "{ '%s' stats --datadir %s/full --chain regtest --end 500; echo $? > /tmp/bk_stats_pipe.$$; } | head -c 10 "
             ">/dev/null; cat /tmp/bk_stats_pipe.$$; rm -f /tmp/bk_stats_pipe.$$",
             BK_CLI_PATH, BK_REGTEST_DIR);
    size_t n;
    out = run_cmd(cmd, &n, &st);
    CHECK_EQ_STR(out, "0\n");
    free(out);
}

/* Every off-chain block by hash, against Core's _offchain answers. */
static void test_regtest_offchain(void)
{
    size_t len;
    char *all = (char *)read_zst("regtest/getblockstats_offchain.ndjson.zst", &len);
    int lines = 0, same = 0;
    for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) {
        char hex[65] = {0};
        sscanf(line, "{\"hash\":\"%64[0-9a-f]\"", hex);
        char args[4096];
        int st;
        snprintf(args, sizeof args, "stats --datadir %s/full --chain regtest --hash %s", BK_REGTEST_DIR, hex);
        char *out = cli_all(args, &st);
        lines++;
        char *core = strstr(line, ",\"core\":");
        char *errp = strstr(line, ",\"error\":");
        if (core) {
            core += 8;
            core[strlen(core) - 1] = 0;
            /* stderr names the chain source on its own line first */
            char *nl = strstr(out, "\n{");
            const char *obj = out[0] == '{' ? out : nl ? nl + 1 : "";
            size_t n = strlen(core);
            if (st == 0 && strncmp(obj, core, n) == 0 && obj[n] == '\n') same++;
            else fprintf(stderr, "%s: got %s\n", hex, out);
        } else if (errp) {
            char *m = strstr(errp, "\"message\":\"");
            char msg[256] = {0};
            if (m) sscanf(m, "\"message\":\"%255[^\"]\"", msg);
            if (st == 66 && msg[0] && strstr(out, msg)) same++;
            else fprintf(stderr, "%s: got %s (exit %d), want %s\n", hex, out, st, msg);
        }
        free(out);
    }
    CHECK_EQ_INT(lines, 39);
    CHECK_EQ_INT(same, lines);
    free(all);
}

int main(void)
{
    RUN(test_mainnet_files);
    RUN(test_regtest_range);
    RUN(test_regtest_offchain);
    return check_finish();
}
