/* The same node without obfuscation: every node created before Core v28
 * keeps its blk/rev files as they are (xor.dat absent or all zero), and
 * most mainnet nodes are such nodes. The regtest datadir is copied, its
 * files de-obfuscated (tests/deobfuscate.h), and every command that reads
 * block or undo bytes must print exactly what it prints for the original:
 * chain (index and header scan), scan -v3 (undo), stats, block, header,
 * tx through the txindex, export (all five block datasets, CSV). The
 * outputs must also be non-trivial, so an empty pair cannot pass. */
#include <blockkit/blockkit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "deobfuscate.h"
#include "json_test_util.h"

#define FULL BK_REGTEST_DIR "/full"

static char g_tmp[256], g_plain[512];

static void sh(const char *cmd)
{
    if (system(cmd) != 0) {
        fprintf(stderr, "command failed: %s\n", cmd);
        exit(2);
    }
}

/* stdout of cmd (stderr discarded), and its exit status. */
static char *run(const char *cmd, size_t *len, int *status)
{
    char full[4096];
    snprintf(full, sizeof full, "%s 2>/dev/null", cmd);
    return run_cmd(full, len, status);
}

/* args run against both datadirs (the token DATADIR replaced): the same
 * bytes, exit 0, at least min bytes. */
static void same(const char *args, size_t min)
{
    char cmd[2][3072];
    const char *dirs[2] = {FULL, g_plain};
    char *out[2];
    size_t len[2];
    int status[2];
    for (int k = 0; k < 2; k++) {
        const char *at = strstr(args, "DATADIR");
        snprintf(cmd[k], sizeof cmd[k], "'%s' %.*s'%s'%s", BK_CLI_PATH, (int)(at - args), args, dirs[k],
                 at + strlen("DATADIR"));
        out[k] = run(cmd[k], &len[k], &status[k]);
    }
    CHECK(out[0] && out[1]);
    CHECK_EQ_INT(status[0], 0);
    CHECK_EQ_INT(status[1], 0);
    CHECK(len[0] >= min);
    int eq = out[0] && out[1] && len[0] == len[1] && memcmp(out[0], out[1], len[0]) == 0;
    if (!eq) fprintf(stderr, "outputs differ (%zu vs %zu bytes): %s\n", len[0], len[1], cmd[1]);
    CHECK(eq);
    free(out[0]);
    free(out[1]);
}

static void test_commands(void)
{
    same("chain --datadir DATADIR --chain regtest", 900 * 100);
    same("chain --datadir DATADIR --chain regtest --source files", 900 * 100);
    same("scan --datadir DATADIR --chain regtest --verbosity 3 -j 2", 5u << 20);
    same("scan --datadir DATADIR --chain regtest --source files --verbosity 3 --start 600 --end 700", 1u << 20);
    same("stats --datadir DATADIR --chain regtest", 900 * 500);
    same("block --datadir DATADIR --chain regtest 700 --verbosity 3", 10000);
    same("header --datadir DATADIR --chain regtest 700", 300);
}

/* A txid from block 500, looked up through the txindex in both. */
static void test_tx_lookup(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' block --datadir '%s' --chain regtest 500 --verbosity 1", BK_CLI_PATH, FULL);
    size_t len;
    int status;
    char *blk = run(cmd, &len, &status);
    CHECK_EQ_INT(status, 0);
    const char *t = blk ? strstr(blk, "\"tx\":[\"") : NULL;
    CHECK(t != NULL);
    if (!t) {
        free(blk);
        return;
    }
    char args[512];
    snprintf(args, sizeof args, "tx --datadir DATADIR --chain regtest %.64s", t + 7);
    free(blk);
    same(args, 200);
}

/* export: the files of both runs, byte for byte. */
static void test_export(void)
{
    char cmd[4096];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "'%s' export --datadir '%s' --chain regtest --out '%s/out%d' --format csv --chunk-size 300 "
                 "--datasets all,block_stats -j 2 --progress never 2>/dev/null",
                 BK_CLI_PATH, k ? g_plain : FULL, g_tmp, k);
        CHECK_EQ_INT(system(cmd), 0);
    }
    /* the chunks; _blockkit/chunks.ndjson holds each file's mtime */
    snprintf(cmd, sizeof cmd, "diff -r -x _blockkit '%s/out0' '%s/out1' >/dev/null", g_tmp, g_tmp);
    CHECK_EQ_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "test $(cat '%s'/out0/inputs/*.csv | wc -l) -gt 1000", g_tmp);
    CHECK_EQ_INT(system(cmd), 0);
}

int main(void)
{
    snprintf(g_tmp, sizeof g_tmp, "%s/bk_plain_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_tmp)) return 2;
    snprintf(g_plain, sizeof g_plain, "%s/plain", g_tmp);
    char cmd[2048], blocks[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -R '%s'/. '%s' && chmod -R u+w '%s'", g_plain, FULL, g_plain,
             g_plain);
    sh(cmd);
    snprintf(blocks, sizeof blocks, "%s/regtest/blocks", g_plain);
    CHECK(deobfuscate_dir(blocks));
    /* The copy really is plain now: its first block file starts with the
     * regtest magic on disk. */
    snprintf(cmd, sizeof cmd, "%s/blk00000.dat", blocks);
    FILE *f = fopen(cmd, "rb");
    uint8_t m[4] = {0};
    CHECK(f && fread(m, 1, 4, f) == 4);
    if (f) fclose(f);
    static const uint8_t regtest_magic[4] = {0xfa, 0xbf, 0xb5, 0xda};
    CHECK(memcmp(m, regtest_magic, 4) == 0);
    RUN(test_commands);
    RUN(test_tx_lookup);
    RUN(test_export);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    sh(cmd);
    return check_finish();
}
