/* Block-level merkle commitments over the real vector blocks
 * (tests/data/blocks, expected values from MANIFEST.json), Core's
 * duplicated-transaction mutation on a real block, BIP141 witness
 * commitments (Core: validation.cpp GetWitnessCommitmentIndex,
 * CheckWitnessMalleation) on real and synthetic blocks, branches, scratch
 * and allocation rules, and the `blockkit merkle` command end to end. */
#include "check.h"

#include <sys/wait.h>
#include <blockkit/blockkit.h>
#include <blockkit/merkle.h>

static const char *const block_files[] = {
    "block_0000000000013b8a.hex", "block252860.raw", "block277647.raw", "block367891.raw",
    "block400000.raw",            "block413567.raw", "block540107.raw", "block574200.raw",
    "block702861.raw",            "block866342.raw", "testnet3_block924634.raw",
};
#define N_BLOCKS (sizeof block_files / sizeof block_files[0])

static char *manifest;

static uint8_t *load_block(const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "blocks/%s", name);
    uint8_t *b = check_read_file(path, len);
    if (strstr(name, ".hex")) {
        uint8_t *raw = check_unhex((const char *)b, len);
        free(b);
        b = raw;
    }
    return b;
}

/* The value of "key" in the MANIFEST entry for blocks/<name> (up to the
 * next ',' or '}'), quotes removed. */
static void manifest_value(const char *name, const char *key, char *out, size_t cap)
{
    char pat[256];
    out[0] = 0;
    snprintf(pat, sizeof pat, "\"blocks/%s\"", name);
    const char *e = strstr(manifest, pat);
    if (!e) return;
    const char *end = strchr(e, '}');
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *k = strstr(e, pat);
    if (!k || k > end) return;
    k += strlen(pat);
    while (*k == ' ' || *k == '"') k++;
    size_t n = 0;
    while (k[n] && k[n] != '"' && k[n] != ',' && k[n] != '\n' && n + 1 < cap) n++;
    memcpy(out, k, n);
    out[n] = 0;
}

static void hex_rev(char *out, const uint8_t h[32])
{
    uint8_t r[32];
    for (int i = 0; i < 32; i++) r[i] = h[31 - i];
    check_hex(out, r, 32);
}

/* Simple reference: one-shot hashes per tx and a new array per level. */
static void ref_root(uint8_t *level, size_t n, uint8_t root[32])
{
    if (n == 0) {
        memset(root, 0, 32);
        return;
    }
    while (n > 1) {
        if (n & 1) memcpy(level + 32 * n, level + 32 * (n - 1), 32), n++;
        for (size_t i = 0; i < n / 2; i++) bk_sha256d(level + 32 * i, level + 64 * i, 64);
        n /= 2;
    }
    memcpy(root, level, 32);
}

static void vector_blocks_roots_and_commitments(void)
{
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    for (size_t f = 0; f < N_BLOCKS; f++) {
        size_t len;
        uint8_t *data = load_block(block_files[f], &len);
        bk_block b;
        bk_error err;
        check_case = block_files[f];
        if (bk_block_decode(&dec, data, len, &b, &err) != BK_OK) {
            CHECK(!"block parses");
            free(data);
            continue;
        }
        size_t slen = bk_block_merkle_scratch_size(b.n_tx);
        uint8_t *scratch = malloc(slen);
        bk_block_merkle_result r;
        CHECK_EQ_INT(bk_block_merkle(&b, scratch, slen, &r, &err), BK_OK);

        char got[65], want[65];
        hex_rev(got, r.merkle_root);
        manifest_value(block_files[f], "merkleroot", want, sizeof want);
        CHECK_EQ_STR(got, want);
        CHECK_EQ_INT(r.header_match, 1);
        CHECK_EQ_INT(r.mutated, 0);

        /* Both roots against the reference built from per-tx hashes. */
        uint8_t *level = malloc(32 * (b.n_tx + 1)), ref[32];
        for (size_t i = 0; i < b.n_tx; i++) bk_tx_txid(&b.txs[i], level + 32 * i);
        ref_root(level, b.n_tx, ref);
        CHECK_MEM(ref, r.merkle_root, 32);
        for (size_t i = 0; i < b.n_tx; i++) bk_tx_wtxid(&b.txs[i], level + 32 * i);
        memset(level, 0, 32);
        ref_root(level, b.n_tx, ref);
        CHECK_MEM(ref, r.witness_root, 32);
        free(level);

        char wc[16];
        manifest_value(block_files[f], "witness_commitment_ok", wc, sizeof wc);
        if (!strcmp(wc, "true")) {
            CHECK_EQ_STR(bk_witness_commitment_str(r.witness_commitment), "ok");
            CHECK(r.commitment_output >= 0);
            CHECK_EQ_INT(r.has_witness, 1);
        } else {
            CHECK_EQ_STR(wc, "null");
            CHECK_EQ_STR(bk_witness_commitment_str(r.witness_commitment), "absent");
            CHECK_EQ_INT(r.commitment_output, -1);
            CHECK_EQ_INT(r.has_witness, 0);
            /* Without witnesses every wtxid is the txid. */
        }

        /* Branches: every tx of small blocks, a spread of the large ones. */
        size_t depth = bk_merkle_depth(b.n_tx), step = b.n_tx <= 64 ? 1 : b.n_tx / 37;
        uint8_t *branch = malloc(32 * depth + 1);
        int bad = 0;
        for (size_t i = 0; i < b.n_tx; i += step) {
            size_t d = 99;
            uint8_t txid[32];
            bk_tx_txid(&b.txs[i], txid);
            if (bk_block_merkle_branch(&b, i, scratch, slen, branch, 32 * depth, &d, &err) != BK_OK || d != depth ||
                !bk_merkle_verify_branch(txid, branch, d, i, b.header.merkle_root))
                bad++;
        }
        CHECK_EQ_INT(bad, 0);
        free(branch);
        free(scratch);
        free(data);
    }
    check_case = "";
    bk_block_decoder_free(&dec);
}

/* Core (CVE-2012-2459): repeating the last transaction of a block with an
 * odd count keeps the merkle root and the block hash; `mutated` flags it. */
static void duplicated_last_tx_keeps_root_and_is_mutated(void)
{
    size_t len;
    uint8_t *data = load_block("block_0000000000013b8a.hex", &len);
    bk_tx txs[16];
    bk_block b;
    bk_error err;
    CHECK_EQ_INT(bk_block_parse(data, len, txs, 16, &b, &err), BK_OK);
    CHECK_EQ_INT(b.n_tx, 9);
    const bk_tx *last = &b.txs[8];
    size_t mlen = len + last->size;
    uint8_t *m = malloc(mlen);
    memcpy(m, data, len);
    memcpy(m + len, last->data, last->size);
    m[80] = 10; /* tx count 9 -> 10 (one-byte CompactSize) */
    bk_block mb;
    bk_tx mtxs[16];
    CHECK_EQ_INT(bk_block_parse(m, mlen, mtxs, 16, &mb, &err), BK_OK);
    uint8_t scratch[2 * 32 * 10];
    bk_block_merkle_result r0, r1;
    CHECK_EQ_INT(bk_block_merkle(&b, scratch, sizeof scratch, &r0, &err), BK_OK);
    CHECK_EQ_INT(bk_block_merkle(&mb, scratch, sizeof scratch, &r1, &err), BK_OK);
    CHECK_MEM(r0.merkle_root, r1.merkle_root, 32);
    CHECK_EQ_INT(r0.mutated, 0);
    CHECK_EQ_INT(r1.mutated, 1);
    CHECK_EQ_INT(r1.header_match, 1);
    free(m);
    free(data);
}

static void tampered_header_or_tx_does_not_match(void)
{
    size_t len;
    uint8_t *data = load_block("block413567.raw", &len);
    bk_block_decoder dec;
    bk_block b;
    bk_error err;
    bk_block_merkle_result r;
    bk_block_decoder_init(&dec, NULL);
    data[36] ^= 1; /* header hashMerkleRoot */
    CHECK_EQ_INT(bk_block_decode(&dec, data, len, &b, &err), BK_OK);
    CHECK_EQ_INT(bk_block_merkle_alloc(&b, NULL, &r, &err), BK_OK);
    CHECK_EQ_INT(r.header_match, 0);
    data[36] ^= 1;
    data[len - 1] ^= 0x40; /* last tx's nLockTime */
    CHECK_EQ_INT(bk_block_decode(&dec, data, len, &b, &err), BK_OK);
    CHECK_EQ_INT(bk_block_merkle_alloc(&b, NULL, &r, &err), BK_OK);
    CHECK_EQ_INT(r.header_match, 0);
    CHECK_EQ_INT(r.mutated, 0);
    bk_block_decoder_free(&dec);
    free(data);
}

/* Flip one byte of the committed hash, then one byte of the coinbase's
 * witness reserved value: both break the commitment, not the txid root. */
static void tampered_witness_commitment_mismatches(void)
{
    size_t len;
    uint8_t *data = load_block("block866342.raw", &len);
    bk_block_decoder dec;
    bk_block b;
    bk_error err;
    bk_block_merkle_result r;
    bk_block_decoder_init(&dec, NULL);
    CHECK_EQ_INT(bk_block_decode(&dec, data, len, &b, &err), BK_OK);
    CHECK_EQ_INT(bk_block_merkle_alloc(&b, NULL, &r, &err), BK_OK);
    CHECK_EQ_INT(r.witness_commitment, BK_WITNESS_COMMITMENT_OK);

    bk_txout_iter oi;
    bk_txout o;
    bk_txout_iter_init(&oi, &b.txs[0]);
    for (int64_t i = 0; bk_txout_next(&oi, &o); i++)
        if (i == r.commitment_output) break;
    size_t at = (size_t)(o.script + 6 + 5 - data);
    data[at] ^= 0x80;
    CHECK_EQ_INT(bk_block_decode(&dec, data, len, &b, &err), BK_OK);
    CHECK_EQ_INT(bk_block_merkle_alloc(&b, NULL, &r, &err), BK_OK);
    CHECK_EQ_INT(r.witness_commitment, BK_WITNESS_COMMITMENT_MISMATCH);
    /* The coinbase's txid changed too, so the header no longer matches. */
    CHECK_EQ_INT(r.header_match, 0);
    data[at] ^= 0x80;

    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, &b.txs[0]);
    CHECK(bk_txin_next(&ii, &in));
    CHECK_EQ_INT(in.witness_items, 1);
    at = (size_t)(in.witness + 1 + 7 - data); /* item length byte, then the value */
    data[at] ^= 1;
    CHECK_EQ_INT(bk_block_decode(&dec, data, len, &b, &err), BK_OK);
    CHECK_EQ_INT(bk_block_merkle_alloc(&b, NULL, &r, &err), BK_OK);
    CHECK_EQ_INT(r.witness_commitment, BK_WITNESS_COMMITMENT_MISMATCH);
    CHECK_EQ_INT(r.header_match, 1); /* the witness is not in the txid */
    bk_block_decoder_free(&dec);
    free(data);
}

/* A one-transaction block: header (zero merkle root), count 1, coinbase
 * with optional witness of one item, outputs as given (each 38-byte script
 * = 6a24aa21a9ed + 32-byte hash). */
static size_t synth_block(uint8_t *p, int with_witness, size_t item_len, const uint8_t (*commits)[32],
                          size_t n_commits)
{
    size_t k = 0;
    memset(p, 0, 80);
    p[0] = 4;
    k = 80;
    p[k++] = 1;
    p[k++] = 2, p[k++] = 0, p[k++] = 0, p[k++] = 0; /* version 2 */
    if (with_witness) p[k++] = 0, p[k++] = 1;
    p[k++] = 1; /* one input: the null prevout */
    memset(p + k, 0, 32), k += 32;
    memset(p + k, 0xff, 4), k += 4;
    p[k++] = 2, p[k++] = 0x51, p[k++] = 0x51; /* scriptSig */
    memset(p + k, 0xff, 4), k += 4;
    p[k++] = (uint8_t)n_commits;
    for (size_t i = 0; i < n_commits; i++) {
        memset(p + k, 0, 8), k += 8;
        p[k++] = 38;
        static const uint8_t head[6] = {0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed};
        memcpy(p + k, head, 6), k += 6;
        memcpy(p + k, commits[i], 32), k += 32;
    }
    if (with_witness) {
        p[k++] = 1;
        p[k++] = (uint8_t)item_len;
        for (size_t i = 0; i < item_len; i++) p[k++] = (uint8_t)(0x30 + i);
    }
    memset(p + k, 0, 4), k += 4;
    return k;
}

static bk_witness_commitment synth_commitment(int with_witness, size_t item_len, const uint8_t (*commits)[32],
                                              size_t n, int64_t *index)
{
    uint8_t buf[1024], scratch[2 * 2 * 32];
    size_t len = synth_block(buf, with_witness, item_len, commits, n);
    bk_tx txs[1];
    bk_block b;
    bk_error err;
    bk_block_merkle_result r;
    if (bk_block_parse(buf, len, txs, 1, &b, &err) != BK_OK) return (bk_witness_commitment)-1;
    if (bk_block_merkle(&b, scratch, sizeof scratch, &r, &err) != BK_OK) return (bk_witness_commitment)-1;
    *index = r.commitment_output;
    return r.witness_commitment;
}

static void commitment_rules_on_synthetic_coinbases(void)
{
    /* One tx: the witness root is the zero hash (the coinbase's wtxid is
     * replaced by zero), so the commitment is SHA256d(zero32 || value). */
    uint8_t pre[64] = {0}, good[32], commits[3][32];
    for (int i = 0; i < 32; i++) pre[32 + i] = (uint8_t)(0x30 + i);
    bk_sha256d(good, pre, 64);
    memset(commits[0], 0x11, 32);
    memcpy(commits[1], good, 32);
    memset(commits[2], 0x22, 32);
    int64_t idx = -2;
    CHECK_EQ_INT(synth_commitment(1, 32, (const uint8_t(*)[32])commits + 1, 1, &idx), BK_WITNESS_COMMITMENT_OK);
    CHECK_EQ_INT(idx, 0);
    /* The LAST commitment output counts. */
    CHECK_EQ_INT(synth_commitment(1, 32, (const uint8_t(*)[32])commits, 2, &idx), BK_WITNESS_COMMITMENT_OK);
    CHECK_EQ_INT(idx, 1);
    CHECK_EQ_INT(synth_commitment(1, 32, (const uint8_t(*)[32])commits + 1, 2, &idx),
                 BK_WITNESS_COMMITMENT_MISMATCH);
    CHECK_EQ_INT(idx, 1);
    /* The reserved value must be one item of exactly 32 bytes. */
    CHECK_EQ_INT(synth_commitment(1, 31, (const uint8_t(*)[32])commits + 1, 1, &idx),
                 BK_WITNESS_COMMITMENT_BAD_NONCE);
    CHECK_EQ_INT(synth_commitment(0, 0, (const uint8_t(*)[32])commits + 1, 1, &idx),
                 BK_WITNESS_COMMITMENT_BAD_NONCE);
    CHECK_EQ_INT(synth_commitment(1, 32, NULL, 0, &idx), BK_WITNESS_COMMITMENT_ABSENT);
    CHECK_EQ_INT(idx, -1);
    CHECK_EQ_STR(bk_witness_commitment_str(BK_WITNESS_COMMITMENT_BAD_NONCE), "bad-nonce");
}

static void scratch_and_allocation_rules(void)
{
    size_t len;
    uint8_t *data = load_block("testnet3_block924634.raw", &len);
    bk_tx txs[64];
    bk_block b;
    bk_error err;
    bk_block_merkle_result r, r2;
    CHECK_EQ_INT(bk_block_parse(data, len, txs, 64, &b, &err), BK_OK);
    CHECK_EQ_INT(b.n_tx, 15);
    CHECK_EQ_INT(bk_block_merkle_scratch_size(15), 2 * 16 * 32);
    uint8_t scratch[2 * 16 * 32], branch[4 * 32];
    CHECK_EQ_INT(bk_block_merkle(&b, scratch, sizeof scratch - 1, &r, &err), BK_ERR_BUFFER);
    CHECK_EQ_INT(err.status, BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_block_merkle(&b, scratch, sizeof scratch, &r, &err), BK_OK);
    CHECK_EQ_INT(bk_block_merkle_branch(&b, 15, scratch, sizeof scratch, branch, sizeof branch, NULL, &err),
                 BK_ERR_ARG);
    CHECK_EQ_INT(bk_block_merkle_branch(&b, 3, scratch, sizeof scratch, branch, 3 * 32, NULL, &err), BK_ERR_BUFFER);

    /* The allocating form makes exactly one allocation and frees it. */
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    CHECK_EQ_INT(bk_block_merkle_alloc(&b, &ca.base, &r2, &err), BK_OK);
    CHECK_EQ_INT(ca.allocs, 1);
    CHECK_EQ_INT(ca.frees, 1);
    CHECK_EQ_INT(ca.bytes, 2 * 16 * 32);
    CHECK_EQ_INT(ca.live, 0);
    CHECK_MEM(&r, &r2, sizeof r);

    /* Steady state: a reused decoder and a reused scratch allocate nothing. */
    bk_block_decoder dec;
    bk_block db;
    bk_block_decoder_init(&dec, &ca.base);
    CHECK_EQ_INT(bk_block_decode(&dec, data, len, &db, &err), BK_OK);
    bk_counting_allocator_reset(&ca);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(bk_block_decode(&dec, data, len, &db, &err), BK_OK);
        CHECK_EQ_INT(bk_block_merkle(&db, scratch, sizeof scratch, &r2, &err), BK_OK);
        CHECK_EQ_INT(bk_block_merkle_branch(&db, 7, scratch, sizeof scratch, branch, sizeof branch, NULL, &err),
                     BK_OK);
    }
    CHECK_EQ_INT(ca.allocs, 0);
    CHECK_MEM(&r, &r2, sizeof r);
    bk_block_decoder_free(&dec);
    free(data);
}

/* ---- the CLI ---- */

static int run_cli(const char *args, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s merkle %s 2>/dev/null", BK_CLI_PATH, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cli_prints_roots_and_branch(void)
{
    char out[8192], want[512];
    CHECK_EQ_INT(run_cli(BK_TEST_DATA "/blocks/testnet3_block924634.raw", out, sizeof out), 0);
    snprintf(want, sizeof want, "{\"merkleroot\":\"7ef6e8a89489bf99fc1b53552c00a6408bc2d03d15a620d42a672f0ae726bc10\"");
    CHECK(!strncmp(out, want, strlen(want)));
    CHECK(strstr(out, "\"mutated\":false,\"header_match\":true,\"witness_commitment\":\"ok\"}\n") != NULL);

    /* Hex input (auto-detected and with --hex), --tx with its branch. */
    CHECK_EQ_INT(run_cli(BK_TEST_DATA "/blocks/block_0000000000013b8a.hex --hex --tx 8", out, sizeof out), 0);
    snprintf(want, sizeof want, "{\"merkleroot\":\"2fda58e5959b0ee53c5253da9b9f3c0c739422ae04946966991cf55895287552\",");
    CHECK(!strncmp(out, want, strlen(want)));
    CHECK(strstr(out, "\"witness_commitment\":\"absent\",\"tx\":8,\"txid\":\"") != NULL);
    const char *br = strstr(out, "\"branch\":[");
    CHECK(br != NULL);
    if (br) {
        /* 9 txs: depth 4; tx 8 is alone at the end of every level, so each
         * branch entry is the node itself: the first is its own txid. */
        int commas = 0;
        for (const char *q = br; *q && *q != ']'; q++) commas += *q == ',';
        CHECK_EQ_INT(commas, 3);
        const char *txid = strstr(out, "\"txid\":\"") + 8;
        CHECK(!strncmp(br + 11, txid, 64));
    }
    CHECK_EQ_INT(run_cli(BK_TEST_DATA "/blocks/testnet3_block924634.raw --tx 15", out, sizeof out), 64);
    CHECK_EQ_INT(run_cli(BK_TEST_DATA "/blocks/testnet3_block924634.raw --hex", out, sizeof out), 65);
    CHECK_EQ_INT(run_cli("--help", out, sizeof out), 0);
}

static void cli_exit_65_on_mismatch_and_bad_data(void)
{
    size_t len;
    uint8_t *data = load_block("testnet3_block924634.raw", &len);
    char path[] = "/tmp/bk_merkle_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    data[40] ^= 1; /* header merkle root */
    fwrite(data, 1, len, f);
    fclose(f);
    char out[4096], args[256];
    snprintf(args, sizeof args, "%s", path);
    CHECK_EQ_INT(run_cli(args, out, sizeof out), 65);
    CHECK(strstr(out, "\"header_match\":false") != NULL);

    f = fopen(path, "wb");
    fwrite(data, 1, len - 7, f); /* truncated */
    fclose(f);
    CHECK_EQ_INT(run_cli(args, out, sizeof out), 65);
    CHECK_EQ_STR(out, "");
    snprintf(args, sizeof args, "%s 2>&1 >/dev/null", path);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s merkle %s", BK_CLI_PATH, args);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    pclose(p);
    CHECK(strstr(out, "at byte ") != NULL);
    remove(path);
    free(data);
}

int main(void)
{
    size_t mlen;
    manifest = (char *)check_read_file("blocks/MANIFEST.json", &mlen);
    RUN(vector_blocks_roots_and_commitments);
    RUN(duplicated_last_tx_keeps_root_and_is_mutated);
    RUN(tampered_header_or_tx_does_not_match);
    RUN(tampered_witness_commitment_mismatches);
    RUN(commitment_rules_on_synthetic_coinbases);
    RUN(scratch_and_allocation_rules);
    RUN(cli_prints_roots_and_branch);
    RUN(cli_exit_65_on_mismatch_and_bad_data);
    free(manifest);
    return check_finish();
}
