/* The UTXO set at a past height (bk_utxo_rollback) and the dumptxoutset
 * writer over the real regtest node (tests/data/regtest), against the
 * files Core wrote with `dumptxoutset FILE rollback {"rollback":H}` for
 * H = 110, 469, 929 (tests/data/indexes/utxo_snapshot_at_H.dat.zst, Core's
 * results in dumptxoutset_rollback.ndjson):
 *  - the written file equals Core's byte for byte; coins_written,
 *    base_hash, base_height, txoutset_hash (hash_serialized_3 of the set)
 *    and nchaintx equal Core's result;
 *  - the same with a memory limit so small that the restored coins go
 *    through dozens of spilled runs;
 *  - height = the tip: the chainstate itself, equal to Core's own
 *    dumptxoutset of the tip (tests/data/regtest/utxo_snapshot.dat.zst);
 *  - the writer refuses coins out of key order; heights past the tip are
 *    refused. */
#include <blockkit/blockfile.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>
#include <blockkit/hex.h>
#include <blockkit/utxo.h>

#include <fcntl.h>
#include <unistd.h>

#include "check.h"
#include "json_test_util.h"

#define TIP 939

static bk_blocksdir D;
static bk_chain C;
static bk_chainstate *CS;

static int open_all(void)
{
    char path[4096];
    bk_error err;
    snprintf(path, sizeof path, "%s/full/regtest/blocks", BK_REGTEST_DIR);
    if (bk_blocksdir_open(&D, path, BK_NET_REGTEST, NULL, &err) != BK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return 0;
    }
    snprintf(path, sizeof path, "%s/full", BK_REGTEST_DIR);
    if (bk_chain_build_index(&C, path, BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) {
        fprintf(stderr, "chain: %s\n", err.msg);
        return 0;
    }
    snprintf(path, sizeof path, "%s/full/regtest/chainstate", BK_REGTEST_DIR);
    if (bk_chainstate_open(path, NULL, NULL, &CS, &err) != BK_OK) {
        fprintf(stderr, "chainstate: %s\n", err.msg);
        return 0;
    }
    return 1;
}

/* A member's text in Core's result line (numbers and strings, no nesting). */
static void member(const char *line, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *core = strstr(line, "\"core\":");
    const char *p = core ? strstr(core, pat) : NULL;
    out[0] = 0;
    if (!p) return;
    p += strlen(pat);
    if (*p == '"') p++;
    size_t n = 0;
    while (p[n] && p[n] != '"' && p[n] != ',' && p[n] != '}' && n + 1 < cap) n++;
    memcpy(out, p, n);
    out[n] = 0;
}

typedef struct result {
    uint64_t coins;
    char base_hash[65], txoutset_hash[65];
    uint64_t nchaintx;
    int32_t base_height;
    uint64_t runs;
} result;

/* Roll back to height, write the snapshot to a temporary file, hash the
 * set; returns the file's bytes (caller frees). */
static uint8_t *rollback_to(int32_t height, size_t mem_limit, result *res, size_t *len_out)
{
    *len_out = 0;
    bk_utxo_rollback_opts o;
    memset(&o, 0, sizeof o);
    o.mem_limit = mem_limit;
    bk_utxo_rollback *r;
    bk_error err;
    bk_status s = bk_utxo_rollback_open(&r, CS, &C, &D, height, &o, &err);
    if (s != BK_OK) fprintf(stderr, "rollback %d: %s\n", (int)height, err.msg);
    CHECK(s == BK_OK);
    if (s != BK_OK) return NULL;
    const bk_utxo_rollback_info *info = bk_utxo_rollback_info_get(r);
    char path[] = "/tmp/bk_rollbackXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    bk_utxo_snapshot_writer *w;
    CHECK(bk_utxo_snapshot_writer_open(&w, fd, BK_NET_REGTEST, info->base_hash, NULL, &err) == BK_OK);
    bk_utxo_stats st;
    CHECK(bk_utxo_stats_begin(&st, BK_UTXO_HASH_SERIALIZED_3, NULL, &err) == BK_OK);
    bk_utxo u;
    while (bk_utxo_rollback_next(r, &u)) {
        CHECK(u.coin.height <= (uint32_t)height);
        if (bk_utxo_snapshot_writer_add(w, &u, &err) != BK_OK || bk_utxo_stats_add(&st, &u, &err) != BK_OK) {
            fprintf(stderr, "add: %s\n", err.msg);
            CHECK(0);
            break;
        }
    }
    CHECK(bk_utxo_rollback_status(r, &err) == BK_OK);
    CHECK(bk_utxo_snapshot_writer_finish(w, &res->coins, &err) == BK_OK);
    CHECK(bk_utxo_stats_end(&st, &err) == BK_OK);
    CHECK_EQ_INT(st.txouts, res->coins);
    bk_hex_encode_rev(res->txoutset_hash, st.hash, 32);
    res->txoutset_hash[64] = 0;
    bk_hex_encode_rev(res->base_hash, info->base_hash, 32);
    res->base_hash[64] = 0;
    res->nchaintx = info->nchaintx;
    res->base_height = info->base_height;
    res->runs = info->runs;
    CHECK_EQ_INT(info->blocks_undone, TIP - height);
    bk_utxo_stats_free(&st);
    bk_utxo_snapshot_writer_free(w);
    bk_utxo_rollback_close(r);
    close(fd);
    uint8_t *bytes = check_read_file(path, len_out);
    unlink(path);
    return bytes;
}

static char *lines[3];

static void check_height(int idx, int32_t height, size_t mem_limit)
{
    char name[128];
    snprintf(name, sizeof name, "indexes/utxo_snapshot_at_%d.dat.zst", (int)height);
    size_t want_len;
    uint8_t *want = read_zst(name, &want_len);
    result res;
    size_t got_len;
    uint8_t *got = rollback_to(height, mem_limit, &res, &got_len);
    CHECK_EQ_INT(got_len, want_len);
    CHECK(got && got_len == want_len && memcmp(got, want, want_len) == 0);
    if (got && got_len == want_len && memcmp(got, want, want_len) != 0) {
        size_t i = 0;
        while (got[i] == want[i]) i++;
        fprintf(stderr, "height %d: first difference at byte %zu\n", (int)height, i);
    }
    char v[80];
    const char *line = lines[idx];
    member(line, "coins_written", v, sizeof v);
    CHECK_EQ_INT(strtoull(v, NULL, 10), res.coins);
    member(line, "base_hash", v, sizeof v);
    CHECK_EQ_STR(res.base_hash, v);
    member(line, "base_height", v, sizeof v);
    CHECK_EQ_INT(strtoll(v, NULL, 10), res.base_height);
    member(line, "txoutset_hash", v, sizeof v);
    CHECK_EQ_STR(res.txoutset_hash, v);
    member(line, "nchaintx", v, sizeof v);
    CHECK_EQ_INT(strtoull(v, NULL, 10), res.nchaintx);
    if (mem_limit && mem_limit < 16384 && height < 900) CHECK(res.runs > 10);
    free(got);
    free(want);
}

static void load_lines(void)
{
    size_t len;
    char *all = (char *)check_read_file("indexes/dumptxoutset_rollback.ndjson", &len);
    char *save = NULL;
    int i = 0;
    for (char *l = strtok_r(all, "\n", &save); l && i < 3; l = strtok_r(NULL, "\n", &save)) lines[i++] = strdup(l);
    CHECK_EQ_INT(i, 3);
    free(all);
}

static void test_rollback_110(void) { check_height(0, 110, 0); }
static void test_rollback_469(void) { check_height(1, 469, 0); }
static void test_rollback_929(void) { check_height(2, 929, 0); }
static void test_rollback_spilled_runs(void)
{
    check_height(1, 469, 4096);
    check_height(0, 110, 1); /* a run per coin */
}

static void test_rollback_tip(void)
{
    size_t want_len, got_len;
    uint8_t *want = read_zst("regtest/utxo_snapshot.dat.zst", &want_len);
    result res;
    uint8_t *got = rollback_to(TIP, 0, &res, &got_len);
    CHECK(got && got_len == want_len && memcmp(got, want, want_len) == 0);
    CHECK_EQ_INT(res.coins, 10845);
    free(got);
    free(want);
}

static void test_errors(void)
{
    bk_utxo_rollback *r;
    bk_error err;
    CHECK(bk_utxo_rollback_open(&r, CS, &C, &D, TIP + 1, NULL, &err) == BK_ERR_NOT_FOUND); /* Core's "Target block height ... after current tip" (robustness 33) */
    CHECK(bk_utxo_rollback_open(&r, CS, &C, &D, -1, NULL, &err) == BK_ERR_ARG);
    /* a tmpdir that does not exist: the first spill fails with its name */
    bk_utxo_rollback_opts o;
    memset(&o, 0, sizeof o);
    o.tmpdir = "/nonexistent-blockkit-dir";
    o.mem_limit = 1;
    CHECK(bk_utxo_rollback_open(&r, CS, &C, &D, 400, &o, &err) == BK_ERR_IO);
    CHECK(strstr(err.msg, "/nonexistent-blockkit-dir") != NULL);

    /* the writer wants key order */
    char path[] = "/tmp/bk_rollbackXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    bk_utxo_snapshot_writer *w;
    uint8_t base[32] = {0};
    CHECK(bk_utxo_snapshot_writer_open(&w, fd, BK_NET_REGTEST, base, NULL, &err) == BK_OK);
    bk_utxo u;
    memset(&u, 0, sizeof u);
    u.txid[0] = 2;
    u.coin.value = 1;
    u.coin.script_len = 1;
    u.coin.script_buf[0] = 0x51;
    CHECK(bk_utxo_snapshot_writer_add(w, &u, &err) == BK_OK);
    u.vout = 0; /* the same outpoint again */
    CHECK(bk_utxo_snapshot_writer_add(w, &u, &err) == BK_ERR_INVALID);
    bk_utxo_snapshot_writer_free(w);
    CHECK(bk_utxo_snapshot_writer_open(&w, fd, BK_NET_REGTEST, base, NULL, &err) == BK_OK);
    CHECK(bk_utxo_snapshot_writer_add(w, &u, &err) == BK_OK);
    u.txid[0] = 1;
    CHECK(bk_utxo_snapshot_writer_add(w, &u, &err) == BK_ERR_INVALID);
    bk_utxo_snapshot_writer_free(w);
    close(fd);
    unlink(path);
}

/* Core's ScriptCompression forms (compressor.cpp), and the raw fallback
 * for a P2PK key that is not on the curve. */
static void test_script_compress(void)
{
    uint8_t s[67], out[80];
    memset(s, 0x11, sizeof s);
    s[0] = 0x76, s[1] = 0xa9, s[2] = 20, s[23] = 0x88, s[24] = 0xac;
    CHECK_EQ_INT(bk_script_compress(s, 25, out), 21);
    CHECK_EQ_INT(out[0], 0);
    s[0] = 0xa9, s[1] = 20, s[22] = 0x87;
    CHECK_EQ_INT(bk_script_compress(s, 23, out), 21);
    CHECK_EQ_INT(out[0], 1);
    s[0] = 33, s[1] = 3, s[34] = 0xac;
    CHECK_EQ_INT(bk_script_compress(s, 35, out), 33);
    CHECK_EQ_INT(out[0], 3);
    memset(s, 0, sizeof s);
    s[0] = 65, s[1] = 4, s[66] = 0xac; /* x = y = 0: not a point */
    CHECK_EQ_INT(bk_script_compress(s, 67, out), 68);
    CHECK_EQ_INT(out[0], 67 + 6);
    CHECK_EQ_INT(bk_script_compress(s, 0, out), 1);
    CHECK_EQ_INT(out[0], 6);
}

int main(void)
{
    if (!open_all()) {
        CHECK(0);
        return check_finish();
    }
    load_lines();
    RUN(test_script_compress);
    RUN(test_rollback_110);
    RUN(test_rollback_469);
    RUN(test_rollback_929);
    RUN(test_rollback_spilled_runs);
    RUN(test_rollback_tip);
    RUN(test_errors);
    for (int i = 0; i < 3; i++) free(lines[i]);
    bk_chainstate_close(CS);
    bk_chain_free(&C);
    bk_blocksdir_close(&D);
    return check_finish();
}
