/* The synthetic datadir (scripts/gen-synth-datadir.c, 3000 blocks in 64 KiB
 * files with a txindex, made by the ctest fixture synth_small into
 * $BK_SYNTH_DIR): the two chain sources agree (block index vs header scan
 * of the same files: every active height's hash, chain work and median
 * time, the tip), and the lookups over what the regtest fixture lacks: a
 * headers-only branch (getblockheader with nTx 0 from the index record,
 * getblock refused "Block not found on disk", getchaintips
 * "headers-only"), and getrawtransaction of a spend (fee and prevout from
 * the undo record at the index's position) and of a stale sibling's
 * coinbase (confirmations 0). Block shapes follow the generator's
 * documented layout: a stale sibling every 500 heights, one invalid and
 * one valid-headers side block, two headers-only blocks on top of tip-4. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockfile.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>
#include <blockkit/lookup.h>
#include <blockkit/sha256.h>

#include "check.h"
#include "json_test_util.h"

static const char *dir;

static void test_sources_agree(void)
{
    bk_chain a, b;
    bk_error err;
    CHECK(bk_chain_build_index(&a, dir, BK_NET_REGTEST, NULL, NULL, &err) == BK_OK);
    char blocks[4200];
    snprintf(blocks, sizeof blocks, "%s/regtest/blocks", dir);
    bk_blocksdir d;
    CHECK(bk_blocksdir_open(&d, blocks, BK_NET_REGTEST, NULL, &err) == BK_OK);
    CHECK(bk_chain_build(&b, &d, NULL, &err) == BK_OK);
    bk_blocksdir_close(&d);
    CHECK_EQ_INT(a.n_active, 3000);
    CHECK_EQ_INT(b.n_active, 3000);
    /* Index: 3000 active + 6 stale siblings + invalid + valid-headers + 2
     * headers-only; files: the same without the two headers. */
    CHECK_EQ_INT(a.n_entries, 3010);
    CHECK_EQ_INT(b.n_entries, 3008);
    size_t diff = 0;
    for (int64_t h = 0; h < 3000; h++) {
        const bk_chain_entry *x = bk_chain_at_height(&a, h), *y = bk_chain_at_height(&b, h);
        if (!x || !y || memcmp(x->hash, y->hash, 32) || memcmp(x->chainwork, y->chainwork, 32) ||
            x->mediantime != y->mediantime || x->offset != y->offset || x->file != y->file ||
            (h > 0 && (x->undo_offset != y->undo_offset || x->undo_size != y->undo_size || !x->has_undo)))
            diff++;
    }
    CHECK_EQ_INT(diff, 0);
    bk_chain_free(&a);
    bk_chain_free(&b);
}

static int render(bk_lookup *l, int kind, const char *arg, int verbosity, char **out)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_error err;
    bk_status st;
    if (kind == 2) {
        uint8_t txid[32];
        for (int i = 0; i < 32; i++) {
            unsigned v;
            sscanf(arg + 2 * i, "%2x", &v);
            txid[31 - i] = (uint8_t)v;
        }
        st = bk_lookup_transaction(l, txid, verbosity, NULL, &j, &err);
    } else {
        const bk_chain_entry *e;
        st = bk_lookup_resolve(l, arg, "blockhash", &e, &err);
        bk_block_json_opts o;
        bk_block_json_opts_init(&o);
        o.core_version = 28;
        o.verbosity = verbosity;
        if (st == BK_OK) st = kind == 0 ? bk_lookup_block_header(l, e, 1, &o, &j, &err) : bk_lookup_block(l, e, &o, &j, &err);
    }
    bk_writer_putc(&w, 0);
    *out = st == BK_OK ? strdup((const char *)w.data) : strdup(err.msg);
    bk_writer_free(&w);
    return st == BK_OK ? 0 : bk_lookup_rpc_code(l) ? bk_lookup_rpc_code(l) : 1;
}

static void hex(const uint8_t h[32], char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", h[31 - i]);
}

static void test_lookups(void)
{
    bk_lookup *l;
    bk_error err;
    CHECK(bk_lookup_open(dir, NULL, BK_NET_REGTEST, NULL, NULL, &l, &err) == BK_OK);
    const bk_chain *c = bk_lookup_chain(l);
    bk_chaintip *tips;
    size_t n;
    CHECK(bk_chain_tips(c, NULL, &tips, &n, &err) == BK_OK);
    CHECK_EQ_INT(n, 10);
    int kinds[6] = {0};
    const bk_chaintip *honly = NULL;
    for (size_t i = 0; i < n; i++) {
        kinds[tips[i].status]++;
        if (tips[i].status == BK_TIP_HEADERS_ONLY) honly = &tips[i];
        if (i) CHECK(tips[i - 1].height >= tips[i].height);
    }
    CHECK_EQ_INT(kinds[BK_TIP_ACTIVE], 1);
    CHECK_EQ_INT(kinds[BK_TIP_VALID_FORK], 6);
    CHECK_EQ_INT(kinds[BK_TIP_INVALID], 1);
    CHECK_EQ_INT(kinds[BK_TIP_VALID_HEADERS], 1);
    CHECK_EQ_INT(kinds[BK_TIP_HEADERS_ONLY], 1);
    CHECK(honly != NULL);
    if (honly) {
        CHECK_EQ_INT(honly->height, 2997);
        CHECK_EQ_INT(honly->branchlen, 2);
        char h[65], *out;
        hex(c->entries[honly->entry].hash, h);
        CHECK_EQ_INT(render(l, 0, h, 1, &out), 0);
        CHECK(strstr(out, "\"confirmations\":-1,\"height\":2997,") != NULL);
        CHECK(strstr(out, ",\"nTx\":0,\"previousblockhash\":") != NULL);
        free(out);
        CHECK_EQ_INT(render(l, 1, h, 1, &out), -1);
        CHECK_EQ_STR(out, "Block not found on disk");
        free(out);
    }
    bk_free(bk_default_allocator(), tips, n * sizeof *tips);

    /* Height 202 spends the coinbase of 102 (50 BTC + the 1000 sat fee of
     * 102's own spend): fee 0.00001000, prevout height 102. */
    char *out, txid[65];
    CHECK_EQ_INT(render(l, 1, "202", 1, &out), 0);
    const char *t = strstr(out, "\"tx\":[\"");
    CHECK(t != NULL);
    if (t) {
        t = strchr(t + 7, '"');
        memcpy(txid, t + 3, 64);
        txid[64] = 0;
    }
    free(out);
    CHECK_EQ_INT(render(l, 2, txid, 2, &out), 0);
    CHECK(strstr(out, "\"prevout\":{\"generated\":true,\"height\":102,\"value\":50.00001000,") != NULL);
    CHECK(strstr(out, "\"fee\":0.00001000,") != NULL);
    CHECK(strstr(out, ",\"confirmations\":2798,\"time\":") != NULL);
    free(out);
    /* The stale sibling at 250: its coinbase resolves with confirmations 0. */
    const bk_chain_entry *side = NULL;
    for (size_t k = 0; k < c->n_entries; k++)
        if (c->entries[k].height == 250 && !c->entries[k].active) side = &c->entries[k];
    CHECK(side != NULL);
    if (side) {
        char h[65];
        hex(side->hash, h);
        CHECK_EQ_INT(render(l, 1, h, 1, &out), 0);
        t = strstr(out, "\"tx\":[\"");
        CHECK(t != NULL);
        if (t) {
            memcpy(txid, t + 7, 64);
            txid[64] = 0;
        }
        free(out);
        CHECK_EQ_INT(render(l, 2, txid, 1, &out), 0);
        char want[128];
        snprintf(want, sizeof want, ",\"blockhash\":\"%s\",\"confirmations\":0}", h);
        CHECK(strstr(out, want) != NULL);
        free(out);
    }
    bk_lookup_close(l);
}

/* A node started with -blocksdir: blk/rev files under another root, the
 * index, chainstate and txindex in the datadir. */
static void test_blocksdir(void)
{
    char cmd[16384];
    const char *tmp = getenv("TMPDIR");
    char root[1024];
    snprintf(root, sizeof root, "%s/bk-blocksdir-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(root) != NULL);
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/data/regtest/blocks' '%s/bd/regtest' && ln -s '%s/regtest/blocks/index' '%s/data/regtest/blocks/index' && "
             "ln -s '%s/regtest/chainstate' '%s/data/regtest/chainstate' && ln -s '%s/regtest/indexes' '%s/data/regtest/indexes' && "
             "ln -s '%s/regtest/blocks' '%s/bd/regtest/blocks'",
             root, root, dir, root, dir, root, dir, root, dir, root);
    CHECK(system(cmd) == 0);
    size_t len;
    int st;
    snprintf(cmd, sizeof cmd, "'%s' block --datadir '%s/data' --blocksdir '%s/bd' --verbosity 2 202 2>&1", BK_CLI_PATH, root, root);
    char *with = run_cmd(cmd, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(with, "\"fee\":0.00001000") != NULL);
    snprintf(cmd, sizeof cmd, "'%s' block --datadir '%s/data' --verbosity 2 202 2>&1", BK_CLI_PATH, root);
    char *without = run_cmd(cmd, &len, &st);
    CHECK(st != 0);
    free(with);
    free(without);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

/* A block written to the last blk file after the index's last flush (a
 * running node): the chain finds it past the index's positions, and the
 * lookups read it like any other (header and getblock by hash and by
 * height). */
static void test_appended_block(void)
{
    char root[1024], cmd[8192];
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/bk-appended-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(root) != NULL);
    snprintf(cmd, sizeof cmd, "cp -R '%s/regtest' '%s/' && chmod -R u+w '%s'", dir, root, root);
    CHECK(system(cmd) == 0);
    bk_lookup *l;
    bk_error err;
    CHECK(bk_lookup_open(root, NULL, BK_NET_REGTEST, NULL, NULL, &l, &err) == BK_OK);
    const bk_chain_entry *tip = bk_chain_tip(bk_lookup_chain(l));
    uint8_t tip_hash[32];
    memcpy(tip_hash, tip->hash, 32);
    uint32_t tip_time = tip->time, last_file = tip->file;
    bk_lookup_close(l);

    /* Coinbase: BIP34 height 3000 (02 b80b), one OP_TRUE output. */
    static const uint8_t cb[] = {0x02, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 4, 0x02, 0xb8, 0x0b, 0x00,
                                 0xff, 0xff, 0xff, 0xff, 1, 0x00, 0xf2, 0x05, 0x2a, 1, 0, 0, 0, 1, 0x51, 0, 0, 0, 0};
    uint8_t block[80 + 1 + sizeof cb], hash[32];
    memset(block, 0, 80);
    block[3] = 0x20;
    memcpy(block + 4, tip_hash, 32);
    bk_sha256d(block + 36, cb, sizeof cb);
    uint32_t t = tip_time + 600;
    memcpy(block + 68, &t, 4);
    memcpy(block + 72, "\xff\xff\x7f\x20", 4);
    block[80] = 1;
    memcpy(block + 81, cb, sizeof cb);
    for (uint32_t nonce = 0;; nonce++) {
        memcpy(block + 76, &nonce, 4);
        bk_sha256d(hash, block, 80);
        if (hash[31] < 0x7f) break;
    }
    /* Append the record, XORed with xor.dat's key at its file offsets. */
    char path[1200];
    snprintf(path, sizeof path, "%s/regtest/blocks/xor.dat", root);
    uint8_t key[8];
    FILE *f = fopen(path, "rb");
    CHECK(f && fread(key, 1, 8, f) == 8);
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/regtest/blocks/blk%05u.dat", root, last_file);
    f = fopen(path, "ab");
    CHECK(f != NULL);
    if (f) {
        long off = ftell(f);
        uint8_t rec[8 + sizeof block];
        memcpy(rec, "\xfa\xbf\xb5\xda", 4);
        uint32_t n = sizeof block;
        memcpy(rec + 4, &n, 4);
        memcpy(rec + 8, block, sizeof block);
        for (size_t i = 0; i < sizeof rec; i++) rec[i] ^= key[((size_t)off + i) & 7];
        CHECK(fwrite(rec, 1, sizeof rec, f) == sizeof rec);
        CHECK(fclose(f) == 0);
    }
    CHECK(bk_lookup_open(root, NULL, BK_NET_REGTEST, NULL, NULL, &l, &err) == BK_OK);
    CHECK_EQ_INT(bk_lookup_chain(l)->n_appended, 1);
    char h[65], *out;
    hex(hash, h);
    CHECK_EQ_INT(render(l, 0, h, 1, &out), 0);
    CHECK(strstr(out, "\"confirmations\":1,\"height\":3000,") != NULL);
    free(out);
    CHECK_EQ_INT(render(l, 1, "3000", 1, &out), 0);
    char want[100];
    snprintf(want, sizeof want, "{\"hash\":\"%s\",", h);
    CHECK(strncmp(out, want, strlen(want)) == 0);
    free(out);
    bk_lookup_close(l);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    dir = getenv("BK_SYNTH_DIR");
    if (!dir) {
        fprintf(stderr, "BK_SYNTH_DIR not set (the synth_small fixture sets it)\n");
        return 2;
    }
    RUN(test_sources_agree);
    RUN(test_lookups);
    RUN(test_blocksdir);
    RUN(test_appended_block);
    return check_finish();
}
