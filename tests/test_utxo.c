/* The UTXO set of the real regtest node (tests/data/regtest): its chainstate
 * and its dumptxoutset snapshot against Core's own answers.
 *  - every one of the 10,845 coins, looked up in the chainstate, renders
 *    exactly Core's gettxout result; the 500 spent and 50 past-the-end
 *    outpoints are absent;
 *  - the chainstate's coins equal the snapshot's, in the same order;
 *  - gettxoutsetinfo for hash_serialized_3, muhash and none, from both
 *    sources (library and CLI), equals Core's bytes;
 *  - truncated snapshots, wrong magic/version/network, malformed coins,
 *    wrong chainstate keys and the head-blocks marker are errors with their
 *    offset or key, never crashes. */
#include <blockkit/hex.h>
#include <blockkit/json.h>
#include <blockkit/script.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include <leveldb/c.h>
#include <unistd.h>

#include "check.h"
#include "json_test_util.h"

#define REGTEST BK_REGTEST_DIR "/full/regtest"
#define TIP_HEIGHT 939
#define N_COINS 10845

/* ---- snapshot bytes from memory, in odd-sized reads ---- */
typedef struct mem_src {
    const uint8_t *p;
    size_t len, pos, chunk;
} mem_src;

static int mem_read(void *ctx, uint8_t *buf, size_t cap, size_t *got)
{
    mem_src *m = ctx;
    size_t n = m->len - m->pos;
    if (n > cap) n = cap;
    if (n > m->chunk) n = m->chunk;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    *got = n;
    return 0;
}

static uint8_t *g_snap;
static size_t g_snap_len;

static bk_status snap_open(bk_utxo_snapshot **s, mem_src *m, const uint8_t *p, size_t len, size_t chunk,
                           bk_error *err)
{
    m->p = p;
    m->len = len;
    m->pos = 0;
    m->chunk = chunk;
    return bk_utxo_snapshot_open(s, mem_read, m, NULL, err);
}

/* Read a whole snapshot; returns the final status (err filled). */
static bk_status snap_drain(const uint8_t *p, size_t len, size_t chunk, uint64_t *coins, bk_error *err)
{
    mem_src m;
    bk_utxo_snapshot *s;
    *coins = 0;
    bk_status st = snap_open(&s, &m, p, len, chunk, err);
    if (st != BK_OK) return st;
    bk_utxo u;
    while (bk_utxo_snapshot_next(s, &u)) (*coins)++;
    st = bk_utxo_snapshot_status(s, err);
    bk_utxo_snapshot_close(s);
    return st;
}

static void hexrev(char *out, const uint8_t *h)
{
    bk_hex_encode_rev(out, h, 32);
    out[64] = 0;
}

static void test_snapshot_meta(void)
{
    mem_src m;
    bk_utxo_snapshot *s;
    bk_error err;
    CHECK(snap_open(&s, &m, g_snap, g_snap_len, 1 << 20, &err) == BK_OK);
    const bk_utxo_snapshot_meta *meta = bk_utxo_snapshot_meta_get(s);
    CHECK_EQ_INT(meta->version, 2);
    CHECK(meta->net == BK_NET_REGTEST);
    CHECK_MEM(meta->magic, "\xfa\xbf\xb5\xda", 4);
    char h[65];
    hexrev(h, meta->base_hash);
    /* dumptxoutset.json: base_hash, coins_written */
    CHECK_EQ_STR(h, "50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6");
    CHECK_EQ_INT(meta->coin_count, N_COINS);
    bk_utxo u;
    uint64_t n = 0;
    uint8_t prev[32] = {0};
    uint64_t groups = 0;
    CHECK_EQ_INT(bk_utxo_snapshot_coins_read(s), 0);
    while (bk_utxo_snapshot_next(s, &u)) {
        if (n == 0 || memcmp(prev, u.txid, 32) != 0) groups++;
        memcpy(prev, u.txid, 32);
        n++;
        if (n == 1 || n == N_COINS / 2) CHECK_EQ_INT(bk_utxo_snapshot_coins_read(s), n);
    }
    CHECK(bk_utxo_snapshot_status(s, &err) == BK_OK);
    CHECK_EQ_INT(n, N_COINS);
    CHECK_EQ_INT(bk_utxo_snapshot_coins_read(s), N_COINS);
    CHECK_EQ_INT(groups, 3899);
    CHECK_EQ_INT(bk_utxo_snapshot_offset(s), g_snap_len);
    bk_utxo_snapshot_close(s);
    /* Any read size gives the same result. */
    static const size_t chunks[] = {1, 7, 4093, 65536};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        uint64_t c;
        CHECK(snap_drain(g_snap, g_snap_len, chunks[i], &c, &err) == BK_OK);
        CHECK_EQ_INT(c, N_COINS);
    }
}

/* Core's gettxout for a coin at the tip. */
static void render_gettxout(tbuf *out, const bk_utxo *u, const uint8_t best[32])
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_json_begin_object(&j);
    BK_JSON_KEY(&j, "bestblock");
    bk_json_hex_rev(&j, best, 32);
    BK_JSON_KEY(&j, "confirmations");
    bk_json_int(&j, TIP_HEIGHT - (int64_t)u->coin.height + 1);
    BK_JSON_KEY(&j, "value");
    bk_json_amount(&j, u->coin.value);
    BK_JSON_KEY(&j, "scriptPubKey");
    bk_json_script_pubkey(&j, bk_coin_script(&u->coin), u->coin.script_len, BK_NET_REGTEST);
    BK_JSON_KEY(&j, "coinbase");
    bk_json_bool(&j, u->coin.coinbase);
    bk_json_end_object(&j);
    out->len = 0;
    tbuf_put(out, (const char *)w.data, w.len);
    bk_writer_free(&w);
}

static void test_gettxout(void)
{
    bk_chainstate *cs = NULL;
    bk_error err;
    CHECK(bk_chainstate_open(REGTEST "/chainstate", NULL, NULL, &cs, &err) == BK_OK);
    if (!cs) {
        fprintf(stderr, "chainstate: %s\n", err.msg);
        return;
    }
    const uint8_t *obf;
    CHECK_EQ_INT(bk_chainstate_obfuscate_key(cs, &obf), 8);
    uint8_t best[32];
    bk_chainstate_best_block(cs, best);
    char h[65];
    hexrev(h, best);
    CHECK_EQ_STR(h, "50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6");

    size_t len;
    char *text = (char *)read_zst("regtest/gettxout.ndjson.zst", &len);
    size_t coins = 0, absent = 0, mismatches = 0;
    tbuf mine = {0};
    for (char *line = text; line < text + len;) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        if (!nl) nl = text + len;
        *nl = 0;
        char txhex[65];
        unsigned n;
        const char *core = strstr(line, ",\"core\":");
        if (sscanf(line, "{\"txid\":\"%64[0-9a-f]\",\"n\":%u", txhex, &n) != 2 || !core) {
            CHECK(!"gettxout line does not parse");
            break;
        }
        core += 8;
        size_t core_len = (size_t)(nl - core) - 1; /* the line's final '}' */
        uint8_t txid[32];
        for (int i = 0; i < 32; i++) {
            unsigned b;
            sscanf(txhex + 2 * (31 - i), "%2x", &b);
            txid[i] = (uint8_t)b;
        }
        bk_utxo u;
        bk_status st = bk_chainstate_get(cs, txid, n, &u, &err);
        if (core_len == 4 && !memcmp(core, "null", 4)) {
            CHECK(strstr(line, "\"case\":") != NULL);
            CHECK(st == BK_ERR_NOT_FOUND);
            absent += st == BK_ERR_NOT_FOUND;
        } else {
            CHECK(st == BK_OK);
            if (st == BK_OK) {
                render_gettxout(&mine, &u, best);
                if (mine.len != core_len || memcmp(mine.p, core, core_len) != 0) {
                    if (mismatches++ < 3)
                        fprintf(stderr, "gettxout %s:%u\n  got:  %s\n  want: %.*s\n", txhex, n, mine.p,
                                (int)core_len, core);
                }
                coins++;
            }
        }
        line = nl + 1;
    }
    CHECK_EQ_INT(coins, N_COINS);
    CHECK_EQ_INT(absent, 550);
    CHECK_EQ_INT(mismatches, 0);
    free(mine.p);
    free(text);
    bk_chainstate_close(cs);
}

static void test_chainstate_equals_snapshot(void)
{
    bk_chainstate *cs = NULL;
    bk_chainstate_iter *it = NULL;
    bk_error err;
    CHECK(bk_chainstate_open(REGTEST "/chainstate", NULL, NULL, &cs, &err) == BK_OK);
    if (!cs) return;
    CHECK(bk_chainstate_iter_new(cs, &it, &err) == BK_OK);
    mem_src m;
    bk_utxo_snapshot *s;
    CHECK(snap_open(&s, &m, g_snap, g_snap_len, 1 << 20, &err) == BK_OK);
    bk_utxo a, b;
    uint64_t n = 0, diff = 0;
    for (;;) {
        int ha = bk_chainstate_iter_next(it, &a);
        int hb = bk_utxo_snapshot_next(s, &b);
        CHECK_EQ_INT(ha, hb);
        if (!ha || !hb) break;
        n++;
        if (memcmp(a.txid, b.txid, 32) || a.vout != b.vout || a.coin.height != b.coin.height ||
            a.coin.coinbase != b.coin.coinbase || a.coin.value != b.coin.value ||
            a.coin.script_len != b.coin.script_len ||
            memcmp(bk_coin_script(&a.coin), bk_coin_script(&b.coin), a.coin.script_len))
            diff++;
    }
    CHECK(bk_chainstate_iter_status(it, &err) == BK_OK);
    CHECK(bk_utxo_snapshot_status(s, &err) == BK_OK);
    CHECK_EQ_INT(n, N_COINS);
    CHECK_EQ_INT(diff, 0);
    bk_utxo_snapshot_close(s);
    bk_chainstate_iter_free(it);
    bk_chainstate_close(cs);
}

/* gettxoutsetinfo.ndjson: hash type -> Core's result text. */
static char *core_txoutsetinfo(const char *type)
{
    size_t len;
    char *all = (char *)check_read_file("regtest/gettxoutsetinfo.ndjson", &len);
    char key[64];
    snprintf(key, sizeof key, "{\"hash_type\":\"%s\",\"core\":", type);
    char *p = strstr(all, key);
    char *res = NULL;
    if (p) {
        p += strlen(key);
        char *nl = strchr(p, '\n');
        size_t n = (size_t)(nl - p) - 1;
        res = malloc(n + 1);
        memcpy(res, p, n);
        res[n] = 0;
    }
    free(all);
    return res;
}

static char *stats_json(const bk_utxo_stats *st, const uint8_t best[32], uint64_t disk)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_utxo_stats_json(&j, st, TIP_HEIGHT, best, disk);
    bk_writer_putc(&w, 0);
    char *r = strdup((const char *)w.data);
    bk_writer_free(&w);
    return r;
}

static void test_stats(void)
{
    static const char *const types[] = {"hash_serialized_3", "muhash", "none"};
    for (int t = 0; t < 3; t++) {
        char *core = core_txoutsetinfo(types[t]);
        CHECK(core != NULL);
        if (!core) continue;
        bk_utxo_hash_type ht;
        CHECK(bk_utxo_hash_type_parse(types[t], &ht) == BK_OK);
        bk_error err;
        /* chainstate */
        bk_chainstate *cs = NULL;
        bk_chainstate_iter *it = NULL;
        CHECK(bk_chainstate_open(REGTEST "/chainstate", NULL, NULL, &cs, &err) == BK_OK);
        if (!cs) continue;
        CHECK(bk_chainstate_iter_new(cs, &it, &err) == BK_OK);
        bk_utxo_stats st;
        CHECK(bk_utxo_stats_begin(&st, ht, NULL, &err) == BK_OK);
        bk_utxo u;
        while (bk_chainstate_iter_next(it, &u)) CHECK(bk_utxo_stats_add(&st, &u, &err) == BK_OK);
        CHECK(bk_chainstate_iter_status(it, &err) == BK_OK);
        CHECK(bk_utxo_stats_end(&st, &err) == BK_OK);
        uint8_t best[32];
        bk_chainstate_best_block(cs, best);
        char *mine = stats_json(&st, best, bk_chainstate_disk_size(cs));
        CHECK_EQ_STR(mine, core);
        free(mine);
        bk_utxo_stats_free(&st);
        bk_chainstate_iter_free(it);
        bk_chainstate_close(cs);
        /* snapshot (disk_size is the chainstate's: compare the rest) */
        mem_src m;
        bk_utxo_snapshot *s;
        CHECK(snap_open(&s, &m, g_snap, g_snap_len, 65536, &err) == BK_OK);
        CHECK(bk_utxo_stats_begin(&st, ht, NULL, &err) == BK_OK);
        CHECK(bk_utxo_stats_set_threads(&st, 3) == BK_OK); /* muhash: 3 workers, same product */
        while (bk_utxo_snapshot_next(s, &u)) CHECK(bk_utxo_stats_add(&st, &u, &err) == BK_OK);
        CHECK(bk_utxo_snapshot_status(s, &err) == BK_OK);
        CHECK(bk_utxo_stats_end(&st, &err) == BK_OK);
        mine = stats_json(&st, bk_utxo_snapshot_meta_get(s)->base_hash, 1400537);
        CHECK_EQ_STR(mine, core);
        free(mine);
        bk_utxo_stats_free(&st);
        bk_utxo_snapshot_close(s);
        free(core);
    }
}

static void test_cli_stats(void)
{
    static const char *const types[] = {"hash_serialized_3", "muhash", "none"};
    char snap_path[] = "/tmp/bk_utxo_snapXXXXXX";
    int fd = mkstemp(snap_path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    CHECK(write(fd, g_snap, g_snap_len) == (ssize_t)g_snap_len);
    close(fd);
    for (int t = 0; t < 3; t++) {
        char *core = core_txoutsetinfo(types[t]);
        if (!core) continue;
        char cmd[1024];
        size_t len;
        int rc;
        snprintf(cmd, sizeof cmd, "%s utxo stats --datadir %s/full --chain regtest --hash-type %s", BK_CLI_PATH,
                 BK_REGTEST_DIR, types[t]);
        char *out = run_cmd(cmd, &len, &rc);
        CHECK_EQ_INT(rc, 0);
        tbuf want = {0};
        tbuf_put(&want, core, strlen(core));
        tbuf_put(&want, "\n", 1);
        CHECK_EQ_STR(out, want.p);
        free(out);
        /* The snapshot: height from the block index; disk_size = its size. */
        snprintf(cmd, sizeof cmd, "%s utxo stats --utxo-snapshot %s --datadir %s/full --hash-type %s",
                 BK_CLI_PATH, snap_path, BK_REGTEST_DIR, types[t]);
        out = run_cmd(cmd, &len, &rc);
        CHECK_EQ_INT(rc, 0);
        char *ds = strstr(want.p, "\"disk_size\":1400537}");
        CHECK(ds != NULL);
        if (ds) {
            want.len = (size_t)(ds - want.p);
            char tail[64];
            snprintf(tail, sizeof tail, "\"disk_size\":%zu}\n", g_snap_len);
            tbuf_put(&want, tail, strlen(tail));
            CHECK_EQ_STR(out, want.p);
        }
        free(out);
        free(want.p);
        free(core);
    }
    /* Usage and data errors. */
    char cmd[1024];
    size_t len;
    int rc;
    snprintf(cmd, sizeof cmd, "%s utxo stats --utxo-snapshot %s 2>/dev/null", BK_CLI_PATH, snap_path);
    free(run_cmd(cmd, &len, &rc));
    CHECK_EQ_INT(rc, 64); /* no height */
    snprintf(cmd, sizeof cmd, "%s utxo stats --utxo-snapshot %s --height 939 --chain main 2>/dev/null",
             BK_CLI_PATH, snap_path);
    free(run_cmd(cmd, &len, &rc));
    CHECK_EQ_INT(rc, 65); /* another network */
    snprintf(cmd, sizeof cmd, "%s utxo stats --utxo-snapshot %s --height 938 2>&1", BK_CLI_PATH, snap_path);
    char *out = run_cmd(cmd, &len, &rc);
    CHECK_EQ_INT(rc, 65); /* coins above the base height */
    CHECK(strstr(out, "above the base block's height") != NULL);
    {   /* the message names the snapshot */
        char want[600];
        snprintf(want, sizeof want, ": %s: coin height", snap_path);
        CHECK(strstr(out, want) != NULL);
    }
    free(out);
    /* a read that fails (a directory) names the file and the errno, not a
     * bare "read error" */
    snprintf(cmd, sizeof cmd, "%s utxo stats --utxo-snapshot %s --height 1 2>&1", BK_CLI_PATH, BK_REGTEST_DIR);
    out = run_cmd(cmd, &len, &rc);
    CHECK_EQ_INT(rc, 74);
    {
        char want[600];
        snprintf(want, sizeof want, "i/o error: %s: read error: Is a directory", BK_REGTEST_DIR);
        CHECK(strstr(out, want) != NULL);
    }
    free(out);
    snprintf(cmd, sizeof cmd, "%s utxo stats --utxo-snapshot /nonexistent/snap --height 1 2>/dev/null",
             BK_CLI_PATH);
    free(run_cmd(cmd, &len, &rc));
    CHECK_EQ_INT(rc, 66);
    snprintf(cmd, sizeof cmd, "%s utxo stats --datadir %s/full --chain regtest --hash-type sha 2>/dev/null",
             BK_CLI_PATH, BK_REGTEST_DIR);
    free(run_cmd(cmd, &len, &rc));
    CHECK_EQ_INT(rc, 64);
    /* the network found from the datadir's files: no --chain needed */
    snprintf(cmd, sizeof cmd, "%s utxo stats --datadir %s/full --hash-type none 2>&1", BK_CLI_PATH, BK_REGTEST_DIR);
    out = run_cmd(cmd, &len, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(strstr(out, "\"bestblock\"") != NULL);
    free(out);
    snprintf(cmd, sizeof cmd, "%s utxo stats --utxo-snapshot %s --datadir /nonexistent 2>&1", BK_CLI_PATH,
             snap_path);
    out = run_cmd(cmd, &len, &rc);
    CHECK_EQ_INT(rc, 66);
    CHECK(strstr(out, "no such directory") != NULL);
    free(out);
    /* dump: rows in key order, from both sources, identical */
    snprintf(cmd, sizeof cmd, "%s utxo dump --utxo-snapshot %s --format ndjson | cksum", BK_CLI_PATH, snap_path);
    char *a = run_cmd(cmd, &len, &rc);
    snprintf(cmd, sizeof cmd, "%s utxo dump --datadir %s/full --chain regtest --format ndjson | cksum",
             BK_CLI_PATH, BK_REGTEST_DIR);
    char *b = run_cmd(cmd, &len, &rc);
    CHECK_EQ_STR(a, b);
    free(a);
    free(b);
    snprintf(cmd, sizeof cmd, "%s utxo dump --utxo-snapshot %s | wc -l", BK_CLI_PATH, snap_path);
    a = run_cmd(cmd, &len, &rc);
    CHECK_EQ_INT(atoi(a), N_COINS + 1);
    free(a);
    /* a closed pipe is not an error */
    snprintf(cmd, sizeof cmd, "%s utxo dump --utxo-snapshot %s | head -1", BK_CLI_PATH, snap_path);
    a = run_cmd(cmd, &len, &rc);
    CHECK_EQ_STR(a, "txid,vout,value,height,is_coinbase,script_hex,type,address,desc\r\n"); /* RFC 4180 */
    free(a);
    unlink(snap_path);
}

static void test_snapshot_truncated(void)
{
    /* Every cut inside the metadata, then ~200 cuts across the coins. */
    size_t cuts[300], nc = 0;
    for (size_t i = 0; i <= 60; i++) cuts[nc++] = i;
    for (size_t i = 1; i < 200; i++) cuts[nc++] = 51 + (g_snap_len - 52) * i / 200;
    cuts[nc++] = g_snap_len - 1;
    size_t bad = 0;
    for (size_t i = 0; i < nc; i++) {
        bk_error err;
        uint64_t coins;
        bk_status st = snap_drain(g_snap, cuts[i], 4096, &coins, &err);
        if (st != BK_ERR_TRUNCATED || err.offset != cuts[i]) {
            if (bad++ < 5)
                fprintf(stderr, "cut %zu: %s at %llu: %s\n", cuts[i], bk_status_str(st),
                        (unsigned long long)err.offset, err.msg);
        }
    }
    CHECK_EQ_INT(bad, 0);
}

static uint8_t *snap_copy(void)
{
    uint8_t *p = malloc(g_snap_len + 1);
    memcpy(p, g_snap, g_snap_len);
    return p;
}

static void test_snapshot_header_errors(void)
{
    bk_error err;
    uint64_t coins;
    uint8_t *p = snap_copy();
    p[0] = 'U';
    CHECK(snap_drain(p, g_snap_len, 4096, &coins, &err) == BK_ERR_INVALID);
    CHECK_EQ_INT(err.offset, 0);
    memcpy(p, g_snap, 11);
    p[5] = 1; /* version 1: bad data (exit 65), not an unsupported request */
    CHECK(snap_drain(p, g_snap_len, 4096, &coins, &err) == BK_ERR_INVALID);
    CHECK_EQ_INT(err.offset, 5);
    memcpy(p, g_snap, 11);
    p[8] ^= 0x40; /* no network's magic */
    CHECK(snap_drain(p, g_snap_len, 4096, &coins, &err) == BK_ERR_MAGIC);
    CHECK_EQ_INT(err.offset, 7);
    memcpy(p + 7, "\xf9\xbe\xb4\xd9", 4); /* mainnet's: readable, network main */
    mem_src m;
    bk_utxo_snapshot *s;
    CHECK(snap_open(&s, &m, p, g_snap_len, 4096, &err) == BK_OK);
    CHECK(bk_utxo_snapshot_meta_get(s)->net == BK_NET_MAIN);
    bk_utxo_snapshot_close(s);
    memcpy(p, g_snap, g_snap_len);
    /* coin count + 1: the file ends early; - 1: left-over coins */
    bk_store_le64(p + 43, N_COINS + 1);
    CHECK(snap_drain(p, g_snap_len, 4096, &coins, &err) == BK_ERR_TRUNCATED);
    CHECK_EQ_INT(coins, N_COINS);
    bk_store_le64(p + 43, N_COINS - 1);
    bk_status st = snap_drain(p, g_snap_len, 4096, &coins, &err);
    CHECK(st == BK_ERR_COUNT || st == BK_ERR_TRAILING);
    bk_store_le64(p + 43, N_COINS);
    /* one byte more: "coins left over" */
    p[g_snap_len] = 0;
    CHECK(snap_drain(p, g_snap_len + 1, 4096, &coins, &err) == BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, g_snap_len);
    CHECK_EQ_INT(coins, N_COINS);
    free(p);
}

/* A one-group snapshot around hand-made coin bytes. */
static bk_status one_coin(const char *coin_hex, uint64_t count, bk_utxo *u, bk_error *err)
{
    uint8_t buf[20000];
    size_t n = 0;
    memcpy(buf, "utxo\xff\x02\x00\xfa\xbf\xb5\xda", 11);
    memset(buf + 11, 0x11, 32);
    bk_store_le64(buf + 43, count);
    n = 51;
    memset(buf + n, 0x22, 32); /* txid */
    n += 32;
    size_t hl;
    uint8_t *c = check_unhex(coin_hex, &hl);
    memcpy(buf + n, c, hl);
    free(c);
    n += hl;
    mem_src m;
    bk_utxo_snapshot *s;
    bk_status st = snap_open(&s, &m, buf, n, 3, err);
    if (st != BK_OK) return st;
    while (bk_utxo_snapshot_next(s, u)) {
    }
    st = bk_utxo_snapshot_status(s, err);
    bk_utxo_snapshot_close(s);
    return st;
}

static void test_snapshot_malformed_coins(void)
{
    bk_utxo u;
    bk_error err;
    /* count 1, vout 5, code 2*7+1, amount 50 BTC compressed (0x32 = 50),
     * P2PKH (nSize 0) + 20 bytes */
    CHECK(one_coin("01" "05" "0f" "32" "00" "0102030405060708090a0b0c0d0e0f1011121314", 1, &u, &err) == BK_OK);
    CHECK_EQ_INT(u.vout, 5);
    CHECK_EQ_INT(u.coin.height, 7);
    CHECK_EQ_INT(u.coin.coinbase, 1);
    CHECK_EQ_INT(u.coin.value, 5000000000LL);
    CHECK_EQ_INT(u.coin.script_len, 25);
    /* truncated P2PKH hash */
    CHECK(one_coin("01" "05" "0f" "32" "00" "01020304", 1, &u, &err) == BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, 51 + 32 + 9);
    /* uncompressed P2PK (nSize 4) with an x off the field: not on the curve */
    CHECK(one_coin("01" "00" "02" "01" "04" "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", 1, &u,
                   &err) == BK_ERR_SCRIPT);
    CHECK_EQ_INT(err.offset, 51 + 32 + 5);
    /* height code over 32 bits */
    CHECK(one_coin("01" "00" "8f8f8f8f7f" "00" "06", 1, &u, &err) == BK_ERR_OVERFLOW);
    /* amount outside MoneyRange: CompressAmount(21e6 BTC + 1 sat) */
    {
        char hex[128];
        uint8_t v[10];
        size_t vl = bk_varint_encode(v, bk_amount_compress(2100000000000001ULL));
        char vh[21];
        check_hex(vh, v, vl);
        snprintf(hex, sizeof hex, "01" "00" "02" "%s" "06", vh);
        CHECK(one_coin(hex, 1, &u, &err) == BK_ERR_VALUE);
        CHECK_EQ_INT(err.offset, 51 + 32 + 1);
    }
    /* a group count over the coins left */
    CHECK(one_coin("02" "00" "02" "00" "06", 1, &u, &err) == BK_ERR_COUNT);
    CHECK_EQ_INT(err.offset, 51 + 32);
    /* non-canonical CompactSize vout */
    CHECK(one_coin("01" "fd0500" "02" "00" "06", 1, &u, &err) == BK_ERR_NONCANONICAL);
    /* an empty group, then a coin of a second txid: Core reads on */
    CHECK(one_coin("00" "3333333333333333333333333333333333333333333333333333333333333333" "01" "09" "02" "00" "07"
                   "51",
                   1, &u, &err) == BK_OK);
    CHECK_EQ_INT(u.vout, 9);
    CHECK_EQ_INT(u.coin.script_len, 1);
    CHECK_EQ_INT(u.txid[0], 0x33);
    /* an oversized raw script (10001 bytes) becomes OP_RETURN, as in Core;
     * cut short, it is a truncation */
    {
        size_t body = 10001;
        char *hex = malloc(2 * body + 64);
        uint8_t ns[10];
        size_t nl = bk_varint_encode(ns, body + 6);
        char nh[21];
        check_hex(nh, ns, nl);
        int k = sprintf(hex, "01" "00" "02" "00" "%s", nh);
        for (size_t i = 0; i < body; i++) memcpy(hex + k + 2 * i, "ab", 2);
        hex[k + 2 * body] = 0;
        CHECK(one_coin(hex, 1, &u, &err) == BK_OK);
        CHECK_EQ_INT(u.coin.script_len, 1);
        CHECK_EQ_INT(bk_coin_script(&u.coin)[0], 0x6a);
        hex[k + 2 * (body - 10)] = 0;
        CHECK(one_coin(hex, 1, &u, &err) == BK_ERR_TRUNCATED);
        free(hex);
    }
}

static void test_chainstate_decode_errors(void)
{
    uint8_t key[48], scratch[64];
    bk_utxo u;
    bk_error err;
    const uint8_t val[] = {0x0f, 0x32, 0x07, 0x51}; /* height 7 coinbase, 50 BTC, raw script 51 */
    key[0] = 'C';
    memset(key + 1, 0x44, 32);
    key[33] = 0x05;
    CHECK(bk_chainstate_decode(key, 34, val, sizeof val, NULL, 0, scratch, sizeof scratch, &u, &err) == BK_OK);
    CHECK_EQ_INT(u.vout, 5);
    CHECK_EQ_INT(u.coin.value, 5000000000LL);
    /* obfuscated with a key */
    const uint8_t obf[8] = {0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18};
    uint8_t xv[4];
    for (int i = 0; i < 4; i++) xv[i] = val[i] ^ obf[i];
    CHECK(bk_chainstate_decode(key, 34, xv, 4, obf, 8, scratch, sizeof scratch, &u, &err) == BK_OK);
    CHECK_EQ_INT(u.coin.height, 7);
    /* short key */
    CHECK(bk_chainstate_decode(key, 20, val, sizeof val, NULL, 0, scratch, sizeof scratch, &u, &err) ==
          BK_ERR_INVALID);
    CHECK(strstr(err.msg, "434444") != NULL);
    /* the vout VARINT runs off the key */
    key[33] = 0x80;
    CHECK(bk_chainstate_decode(key, 34, val, sizeof val, NULL, 0, scratch, sizeof scratch, &u, &err) ==
          BK_ERR_INVALID);
    CHECK_EQ_INT(err.offset, 34); /* where the key ends */
    /* bytes after it */
    key[33] = 0x05;
    key[34] = 0x00;
    CHECK(bk_chainstate_decode(key, 35, val, sizeof val, NULL, 0, scratch, sizeof scratch, &u, &err) ==
          BK_ERR_INVALID);
    CHECK_EQ_INT(err.offset, 34);
    /* vout 2^32 */
    size_t vl = bk_varint_encode(key + 33, 1ULL << 32);
    CHECK(bk_chainstate_decode(key, 33 + vl, val, sizeof val, NULL, 0, scratch, sizeof scratch, &u, &err) ==
          BK_ERR_INVALID);
    /* a truncated value, a value with trailing bytes */
    key[33] = 0x05;
    CHECK(bk_chainstate_decode(key, 34, val, 3, NULL, 0, scratch, sizeof scratch, &u, &err) ==
          BK_ERR_TRUNCATED);
    CHECK(strstr(err.msg, "coin 4344") != NULL);
    const uint8_t val2[] = {0x0f, 0x32, 0x07, 0x51, 0x00};
    CHECK(bk_chainstate_decode(key, 34, val2, 5, NULL, 0, scratch, sizeof scratch, &u, &err) ==
          BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 4);
}

/* A synthetic chainstate written with libleveldb into a temp directory. */
static int make_db(const char *dir, int with_h, int with_b, int bad_key);
static int make_db_legacy(const char *dir)
{
    if (make_db(dir, 0, 1, 0) != 0) return -1;
    leveldb_options_t *o = leveldb_options_create();
    char *e = NULL;
    leveldb_t *db = leveldb_open(o, dir, &e);
    if (e) {
        leveldb_free(e);
        leveldb_options_destroy(o);
        return -1;
    }
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    uint8_t key[33] = {'c'};
    leveldb_put(db, wo, (const char *)key, 33, "\x01", 1, &e);
    leveldb_writeoptions_destroy(wo);
    leveldb_close(db);
    leveldb_options_destroy(o);
    return 0;
}

static int make_db(const char *dir, int with_h, int with_b, int bad_key)
{
    leveldb_options_t *o = leveldb_options_create();
    leveldb_options_set_create_if_missing(o, 1);
    char *e = NULL;
    leveldb_t *db = leveldb_open(o, dir, &e);
    if (e) {
        fprintf(stderr, "leveldb: %s\n", e);
        leveldb_free(e);
        leveldb_options_destroy(o);
        return -1;
    }
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    const uint8_t obf_val[9] = {8, 1, 2, 3, 4, 5, 6, 7, 8};
    leveldb_put(db, wo, "\x0e\x00obfuscate_key", 15, (const char *)obf_val, 9, &e);
    uint8_t best[32];
    for (int i = 0; i < 32; i++) best[i] = (uint8_t)(i ^ obf_val[1 + (i & 7)]);
    if (with_b) leveldb_put(db, wo, "B", 1, (const char *)best, 32, &e);
    if (with_h) leveldb_put(db, wo, "H", 1, (const char *)best, 32, &e);
    uint8_t key[40] = {'C'};
    memset(key + 1, 0x55, 32);
    key[33] = 0;
    const uint8_t val[4] = {0x0f ^ 1, 0x32 ^ 2, 0x07 ^ 3, 0x51 ^ 4};
    leveldb_put(db, wo, (const char *)key, 34, (const char *)val, 4, &e);
    if (bad_key) leveldb_put(db, wo, (const char *)key, 36, (const char *)val, 4, &e);
    leveldb_writeoptions_destroy(wo);
    leveldb_close(db);
    leveldb_options_destroy(o);
    return 0;
}

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static void test_chainstate_markers(void)
{
    char dir[] = "/tmp/bk_utxo_dbXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char db[600];
    snprintf(db, sizeof db, "%s/cs1", dir);
    bk_chainstate *cs = NULL;
    bk_error err;
    /* clean: obfuscated best block and coin */
    CHECK(make_db(db, 0, 1, 0) == 0);
    CHECK(bk_chainstate_open(db, dir, NULL, &cs, &err) == BK_OK);
    if (cs) {
        uint8_t best[32];
        bk_chainstate_best_block(cs, best);
        CHECK_EQ_INT(best[31], 31);
        bk_chainstate_iter *it;
        CHECK(bk_chainstate_iter_new(cs, &it, &err) == BK_OK);
        bk_utxo u;
        CHECK_EQ_INT(bk_chainstate_iter_next(it, &u), 1);
        CHECK_EQ_INT(u.coin.height, 7);
        CHECK_EQ_INT(u.coin.value, 5000000000LL);
        CHECK_EQ_INT(bk_chainstate_iter_next(it, &u), 0);
        CHECK(bk_chainstate_iter_status(it, &err) == BK_OK);
        bk_chainstate_iter_free(it);
        bk_chainstate_close(cs);
    }
    /* the head-blocks marker of an interrupted flush */
    snprintf(db, sizeof db, "%s/cs2", dir);
    CHECK(make_db(db, 1, 1, 0) == 0);
    CHECK(bk_chainstate_open(db, dir, NULL, &cs, &err) == BK_ERR_INVALID);
    CHECK(strstr(err.msg, "finish the flush") != NULL);
    /* no best block */
    snprintf(db, sizeof db, "%s/cs3", dir);
    CHECK(make_db(db, 0, 0, 0) == 0);
    CHECK(bk_chainstate_open(db, dir, NULL, &cs, &err) == BK_ERR_INVALID);
    /* Core < 0.15's per-transaction records */
    snprintf(db, sizeof db, "%s/cs5", dir);
    CHECK(make_db_legacy(db) == 0);
    CHECK(bk_chainstate_open(db, dir, NULL, &cs, &err) == BK_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "0.15") != NULL);
    /* a wrong key in the coin range: an error naming it, after the good coin */
    snprintf(db, sizeof db, "%s/cs4", dir);
    CHECK(make_db(db, 0, 1, 1) == 0);
    CHECK(bk_chainstate_open(db, dir, NULL, &cs, &err) == BK_OK);
    if (cs) {
        bk_chainstate_iter *it;
        CHECK(bk_chainstate_iter_new(cs, &it, &err) == BK_OK);
        bk_utxo u;
        CHECK_EQ_INT(bk_chainstate_iter_next(it, &u), 1);
        CHECK_EQ_INT(bk_chainstate_iter_next(it, &u), 0);
        CHECK(bk_chainstate_iter_status(it, &err) == BK_ERR_INVALID);
        CHECK(strstr(err.msg, "4355555555") != NULL);
        bk_chainstate_iter_free(it);
        bk_chainstate_close(cs);
    }
    rm_rf(dir);
}

static void test_stats_vout_order(void)
{
    /* Core's std::map: a txid's coins hash in numeric vout order whatever
     * order they arrive in (key order differs from it past vout 16511). */
    bk_utxo a[3];
    memset(a, 0, sizeof a);
    uint32_t vouts[3] = {16512, 16511, 7};
    for (int i = 0; i < 3; i++) {
        memset(a[i].txid, 0x66, 32);
        a[i].vout = vouts[i];
        a[i].coin.height = 100 + (uint32_t)i;
        a[i].coin.value = 1000 * (i + 1);
        a[i].coin.script_len = 1;
        a[i].coin.script_buf[0] = 0x51;
    }
    uint8_t h1[32], h2[32];
    bk_error err;
    bk_utxo_stats st;
    CHECK(bk_utxo_stats_begin(&st, BK_UTXO_HASH_SERIALIZED_3, NULL, &err) == BK_OK);
    for (int i = 0; i < 3; i++) CHECK(bk_utxo_stats_add(&st, &a[i], &err) == BK_OK);
    CHECK(bk_utxo_stats_end(&st, &err) == BK_OK);
    memcpy(h1, st.hash, 32);
    bk_utxo_stats_free(&st);
    /* the reference: SHA256d of the TxOutSer in numeric order */
    uint8_t buf[3 * 64];
    size_t n = 0;
    n += bk_utxo_txout_ser(&a[2], buf + n);
    n += bk_utxo_txout_ser(&a[1], buf + n);
    n += bk_utxo_txout_ser(&a[0], buf + n);
    bk_sha256d(h2, buf, n);
    CHECK_MEM(h1, h2, 32);
    CHECK_EQ_INT(n, 3 * (32 + 4 + 4 + 8 + 1 + 1));
    /* one txid's coin data is bounded (no block creates 64 MiB of outputs) */
    {
        static uint8_t big[10000];
        bk_utxo g;
        memset(&g, 0, sizeof g);
        memset(g.txid, 0x77, 32);
        g.coin.raw_script = big;
        g.coin.script_len = sizeof big;
        CHECK(bk_utxo_stats_begin(&st, BK_UTXO_HASH_SERIALIZED_3, NULL, &err) == BK_OK);
        bk_status last = BK_OK;
        uint32_t v = 0;
        for (; v < 10000 && last == BK_OK; v++) {
            g.vout = v;
            last = bk_utxo_stats_add(&st, &g, &err);
        }
        CHECK(last == BK_ERR_LENGTH);
        CHECK(v > 6000 && v < 7000);
        bk_utxo_stats_free(&st);
    }
    /* a txid below its predecessor is refused */
    CHECK(bk_utxo_stats_begin(&st, BK_UTXO_HASH_NONE, NULL, &err) == BK_OK);
    CHECK(bk_utxo_stats_add(&st, &a[0], &err) == BK_OK);
    a[1].txid[0] = 0x65;
    CHECK(bk_utxo_stats_add(&st, &a[1], &err) == BK_ERR_INVALID);
    bk_utxo_stats_free(&st);
}

/* ---- the utxos table: batched rendering equals the one-shot functions ----
 * bk_utxo_batch_render decides a batch's taproot keys together and computes
 * its Base58Check checksums together; its rows must equal those made with
 * bk_script_info_get + bk_script_info_descriptor (compared with Core's own
 * answers in test_gettxout and tests/test_descriptor.c) for every template,
 * valid and invalid taproot keys, odd scripts, on every network, and across
 * batch boundaries (more coins than a batch, scripts filling the arena). */
static uint64_t brng = 0x243f6a8885a308d3ull;
static uint64_t brnd(void)
{
    brng ^= brng << 13;
    brng ^= brng >> 7;
    brng ^= brng << 17;
    return brng;
}

static size_t batch_script(uint8_t *q)
{
    size_t n;
    for (size_t i = 0; i < 80; i++) q[i] = (uint8_t)brnd();
    switch (brnd() % 12) {
    case 0: q[0] = 0x76; q[1] = 0xa9; q[2] = 0x14; q[23] = 0x88; q[24] = 0xac; n = 25; break;
    case 1: q[0] = 0xa9; q[1] = 0x14; q[22] = 0x87; n = 23; break;
    case 2: q[0] = 0x00; q[1] = 0x14; n = 22; break;
    case 3: q[0] = 0x00; q[1] = 0x20; n = 34; break;
    case 4: case 5: q[0] = 0x51; q[1] = 0x20; n = 34; break; /* random x: about half are valid keys */
    case 6: q[0] = 0x21; q[1] = (uint8_t)(2 + (brnd() & 1)); q[34] = 0xac; n = 35; break;
    case 7: q[0] = 0x51; q[1] = 0x21; q[2] = 0x02; q[35] = 0x51; q[36] = 0xae; n = 37; break;
    case 8: q[0] = 0x6a; n = 1 + brnd() % 40; break;
    case 9: q[0] = 0x51; q[1] = 0x02; q[2] = 0x4e; q[3] = 0x73; n = 4; break; /* anchor */
    case 10: n = brnd() % 3 ? (size_t)(brnd() % 80) : 0; break;
    default: q[0] = 0x76; q[1] = 0xa9; q[2] = 0x14; q[23] = 0x88; q[24] = (uint8_t)brnd(); n = 25; break;
    }
    return n;
}

static int mem_sink(void *ctx, const uint8_t *p, size_t n)
{
    bk_writer_put((bk_writer *)ctx, p, n);
    return 0;
}

static void test_batch_render(void)
{
    static const bk_network nets[] = {BK_NET_MAIN, BK_NET_TESTNET3, BK_NET_SIGNET, BK_NET_REGTEST};
    size_t ncols;
    const bk_pq_column *cols = bk_utxo_columns(&ncols);
    CHECK_EQ_INT((int)ncols, 9);
    enum { N = 2600 };
    static uint8_t scripts[N][80];
    static size_t lens[N];
    for (size_t ni = 0; ni < sizeof nets / sizeof nets[0]; ni++) {
        bk_writer got, want;
        bk_writer_init(&got, NULL);
        bk_writer_init(&want, NULL);
        bk_table_writer tg, tw;
        CHECK(bk_table_open(&tg, BK_TABLE_NDJSON, cols, ncols, NULL, mem_sink, &got, NULL, NULL) == BK_OK);
        CHECK(bk_table_open(&tw, BK_TABLE_NDJSON, cols, ncols, NULL, mem_sink, &want, NULL, NULL) == BK_OK);
        bk_utxo_batch *b;
        CHECK(bk_utxo_batch_new(&b, nets[ni], NULL) == BK_OK);
        bk_writer desc;
        bk_writer_init(&desc, NULL);
        size_t batches = 0;
        for (size_t i = 0; i <= N; i++) {
            bk_utxo u;
            memset(&u, 0, sizeof u);
            if (i < N) {
                for (int j = 0; j < 32; j++) u.txid[j] = (uint8_t)brnd();
                u.vout = (uint32_t)(brnd() % 5000);
                u.coin.value = (int64_t)(brnd() % 2100000000000000ull);
                u.coin.height = (uint32_t)(brnd() % 900000);
                u.coin.coinbase = (uint8_t)(brnd() & 1);
                lens[i] = batch_script(scripts[i]);
                u.coin.raw_script = scripts[i];
                u.coin.script_len = (uint32_t)lens[i];
                /* reference row */
                bk_script_info info;
                CHECK(bk_script_info_get(scripts[i], lens[i], nets[ni], &info) == BK_OK);
                bk_writer_reset(&desc);
                bk_script_info_descriptor(&desc, scripts[i], lens[i], &info);
                bk_table_hex(&tw, 0, u.txid, 32, 1);
                bk_table_int(&tw, 1, u.vout);
                bk_table_int(&tw, 2, u.coin.value);
                bk_table_int(&tw, 3, u.coin.height);
                bk_table_bool(&tw, 4, u.coin.coinbase);
                bk_table_hex(&tw, 5, scripts[i], lens[i], 0);
                const char *type = bk_script_type_name(info.sol.type);
                bk_table_str(&tw, 6, type, strlen(type));
                if (info.address_len) bk_table_str(&tw, 7, info.address, info.address_len);
                else bk_table_null(&tw, 7);
                bk_table_str(&tw, 8, (const char *)desc.data, desc.len);
                CHECK(bk_table_end_row(&tw, NULL) == BK_OK);
            }
            if (i == N || !bk_utxo_batch_add(b, &u)) {
                size_t k = bk_utxo_batch_count(b);
                CHECK(bk_utxo_batch_render(b) == BK_OK);
                /* two calls: rows split between chunk files */
                CHECK(bk_utxo_batch_write(b, 0, k / 3, &tg, NULL) == BK_OK);
                CHECK(bk_utxo_batch_write(b, k / 3, k, &tg, NULL) == BK_OK);
                CHECK(bk_utxo_batch_coin(b, 0)->coin.script_len == (uint32_t)lens[i - k]);
                bk_utxo_batch_reset(b);
                batches++;
                if (i < N) CHECK(bk_utxo_batch_add(b, &u) == 1);
            }
        }
        CHECK(batches >= 3);
        CHECK(bk_utxo_batch_write(b, 0, 1, &tg, NULL) == BK_ERR_ARG); /* empty: nothing to write */
        CHECK(bk_table_finish(&tg, NULL) == BK_OK);
        CHECK(bk_table_finish(&tw, NULL) == BK_OK);
        CHECK(got.len == want.len && got.len > (size_t)N * 100);
        CHECK_EQ_INT(bk_table_bytes(&tg), got.len); /* every byte the sink got */
        CHECK(got.len == want.len && memcmp(got.data, want.data, got.len) == 0);
        bk_table_close(&tg);
        bk_table_close(&tw);
        bk_utxo_batch_free(b);
        bk_writer_free(&desc);
        bk_writer_free(&got);
        bk_writer_free(&want);
    }
}

/* ---- bk_utxo_rows_run: the same rows in the same order on any number of
 * threads; the emitter's error and a cancel end it ---- */

typedef struct rows_emit {
    bk_table_writer t;
    bk_writer out;
    size_t batches, coins, fail_at, cancel_at;
    volatile sig_atomic_t *cancel;
} rows_emit;

static bk_status rows_emit_fn(void *ctx, const bk_utxo_batch *b, bk_error *err)
{
    rows_emit *e = ctx;
    e->batches++;
    e->coins += bk_utxo_batch_count(b);
    if (e->cancel_at && e->batches == e->cancel_at) *e->cancel = 1;
    if (e->fail_at && e->batches == e->fail_at) return bk_error_set(err, BK_ERR_IO, 7, "emitter: disk full");
    return bk_utxo_batch_write(b, 0, bk_utxo_batch_count(b), &e->t, err);
}

static int rows_next_fn(void *ctx, bk_utxo *u)
{
    return bk_utxo_snapshot_next(ctx, u);
}

static bk_status rows_run(unsigned threads, rows_emit *e, size_t fail_at, size_t cancel_at, bk_error *err)
{
    static volatile sig_atomic_t cancel;
    cancel = 0;
    size_t ncols;
    const bk_pq_column *cols = bk_utxo_columns(&ncols);
    memset(e, 0, sizeof *e);
    e->fail_at = fail_at;
    e->cancel_at = cancel_at;
    e->cancel = &cancel;
    bk_writer_init(&e->out, NULL);
    CHECK(bk_table_open(&e->t, BK_TABLE_CSV, cols, ncols, NULL, mem_sink, &e->out, NULL, NULL) == BK_OK);
    mem_src m;
    bk_utxo_snapshot *s;
    CHECK(snap_open(&s, &m, g_snap, g_snap_len, 1 << 16, NULL) == BK_OK);
    bk_status st = bk_utxo_rows_run(BK_NET_REGTEST, rows_next_fn, s, threads, rows_emit_fn, e, &cancel, NULL, err);
    if (st == BK_OK) CHECK(bk_utxo_snapshot_status(s, NULL) == BK_OK);
    bk_utxo_snapshot_close(s);
    CHECK(bk_table_finish(&e->t, NULL) == BK_OK);
    CHECK_EQ_INT(bk_table_bytes(&e->t), e->out.len);
    bk_table_close(&e->t);
    return st;
}

static void test_rows_run(void)
{
    rows_emit one;
    bk_error err;
    CHECK_EQ_INT(rows_run(1, &one, 0, 0, &err), BK_OK);
    CHECK_EQ_INT((int)one.coins, N_COINS);
    CHECK(one.batches >= 11); /* 10,845 coins, at most 1,024 a batch */
    CHECK(one.out.len > (size_t)N_COINS * 100);
    static const unsigned threads[] = {2, 3, 8, 1000};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        rows_emit e;
        CHECK_EQ_INT(rows_run(threads[i], &e, 0, 0, &err), BK_OK);
        CHECK_EQ_INT((int)e.coins, N_COINS);
        CHECK_EQ_INT((int)e.batches, (int)one.batches);
        CHECK(e.out.len == one.out.len && memcmp(e.out.data, one.out.data, one.out.len) == 0);
        bk_writer_free(&e.out);
    }
    bk_writer_free(&one.out);
    for (unsigned t = 1; t <= 4; t += 3) {
        rows_emit e;
        /* the emitter's error, with its message, and nothing emitted after it */
        bk_error_clear(&err);
        CHECK_EQ_INT(rows_run(t, &e, 3, 0, &err), BK_ERR_IO);
        CHECK_EQ_INT((int)e.batches, 3);
        CHECK(strstr(err.msg, "disk full") != NULL);
        bk_writer_free(&e.out);
        /* a cancel between batches */
        CHECK_EQ_INT(rows_run(t, &e, 0, 2, &err), BK_ERR_CANCELLED);
        CHECK_EQ_INT((int)e.batches, 2);
        bk_writer_free(&e.out);
    }
    CHECK_EQ_INT(bk_utxo_rows_run(BK_NET_REGTEST, NULL, NULL, 1, rows_emit_fn, NULL, NULL, NULL, &err), BK_ERR_ARG);
}

int main(void)
{
    g_snap = read_zst("regtest/utxo_snapshot.dat.zst", &g_snap_len);
    g_snap = realloc(g_snap, g_snap_len + 1);
    RUN(test_snapshot_meta);
    RUN(test_gettxout);
    RUN(test_chainstate_equals_snapshot);
    RUN(test_stats);
    RUN(test_cli_stats);
    RUN(test_snapshot_truncated);
    RUN(test_snapshot_header_errors);
    RUN(test_snapshot_malformed_coins);
    RUN(test_chainstate_decode_errors);
    RUN(test_chainstate_markers);
    RUN(test_stats_vout_order);
    RUN(test_batch_render);
    RUN(test_rows_run);
    free(g_snap);
    return check_finish();
}
