/* XOnlyPubKey::IsFullyValid (src/bitcoin/xonly.c) against libsecp256k1's
 * secp256k1_xonly_pubkey_parse (Core: src/pubkey.cpp): edge values, values
 * around p and 2^256, every taproot output of the test blocks and every
 * taproot prevout of the undo vectors, and 200,000 seeded random inputs.
 * The Jacobi loop's non-convergence (its libsecp256k1 fallback) is counted
 * on the random inputs. */
#include "check.h"

#include "bitcoin/script_internal.h"

#include "json/json_internal.h"

#include <blockkit/bitcoin.h>
#include <blockkit/json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* p = 2^256 - 2^32 - 977, big-endian. */
static const uint8_t P_BE[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xfc, 0x2f};

static int n_checked, n_valid, n_undecided;

/* Every key check_key saw, with libsecp256k1's answer, for the batch API. */
static uint8_t *all_keys, *all_ref;
static size_t all_n, all_cap;

static void remember(const uint8_t x[32], int ref)
{
    if (all_n == all_cap) {
        size_t cap = all_cap ? 2 * all_cap : 4096;
        uint8_t *k = realloc(all_keys, 32 * cap), *r = realloc(all_ref, cap);
        if (k) all_keys = k;
        if (r) all_ref = r;
        if (!k || !r) return;
        all_cap = cap;
    }
    memcpy(all_keys + 32 * all_n, x, 32);
    all_ref[all_n++] = (uint8_t)ref;
}

/* Compare the fast path, its undecided count and the reference on x. */
static void check_key(const uint8_t x[32])
{
    int ref = bk_script_xonly_valid_reference(x);
    int fast = bk_script_xonly_check(x);
    if (fast < 0) n_undecided++;
    else CHECK_EQ_INT(fast, ref);
    CHECK_EQ_INT(bk_script_xonly_valid(x), ref);
    n_checked++;
    n_valid += ref;
    remember(x, ref);
}

/* x = base + delta (big-endian, mod 2^256). */
static void add_small(uint8_t out[32], const uint8_t base[32], int64_t delta)
{
    int carry = 0;
    uint64_t d = (uint64_t)delta; /* two's complement: sign extends through all bytes */
    for (int i = 31; i >= 0; i--) {
        unsigned byte = (31 - i) < 8 ? (unsigned)((d >> (8 * (31 - i))) & 0xff) : (delta < 0 ? 0xffu : 0u);
        unsigned sum = base[i] + byte + (unsigned)carry;
        out[i] = (uint8_t)sum;
        carry = sum >> 8;
    }
}

static void edge_values(void)
{
    uint8_t x[32];
    int before = n_checked;
    /* Small x, including 0 (7 is not a square mod p), 1, 5. */
    for (int v = 0; v < 300; v++) {
        memset(x, 0, 32);
        x[30] = (uint8_t)(v >> 8);
        x[31] = (uint8_t)v;
        check_key(x);
    }
    /* p - 300 .. p + 300: x >= p is never valid. */
    for (int d = -300; d <= 300; d++) {
        add_small(x, P_BE, d);
        check_key(x);
        if (d >= 0) CHECK_EQ_INT(bk_script_xonly_valid(x), 0);
    }
    /* 2^256 - 1 - d */
    for (int d = 0; d < 300; d++) {
        memset(x, 0xff, 32);
        add_small(x, x, -d);
        check_key(x);
        CHECK_EQ_INT(bk_script_xonly_valid(x), 0);
    }
    /* Single bits, and all-ones below a bit (numbers with long runs). */
    for (int b = 0; b < 256; b++) {
        memset(x, 0, 32);
        x[31 - b / 8] = (uint8_t)(1u << (b % 8));
        check_key(x);
        memset(x, 0, 32);
        for (int k = 0; k < b; k++) x[31 - k / 8] |= (uint8_t)(1u << (k % 8));
        check_key(x);
    }
    /* Known answers: x = 1 is valid (8 = 2^3, and 2 is a square mod p since
     * p = 7 mod 8); x = 0 is not (7 is not a square mod p); the generator's
     * x is valid. */
    memset(x, 0, 32);
    CHECK_EQ_INT(bk_script_xonly_valid(x), 0);
    x[31] = 1;
    CHECK_EQ_INT(bk_script_xonly_valid(x), 1);
    size_t n;
    uint8_t *gx = check_unhex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", &n);
    CHECK_EQ_INT(bk_script_xonly_valid(gx), 1);
    free(gx);
    CHECK(n_checked - before > 1500);
}

static int is_taproot(const uint8_t *s, size_t n)
{
    return n == 34 && s[0] == 0x51 && s[1] == 0x20;
}

/* Every taproot output of every test block. */
static void block_outputs(void)
{
    static const char *blocks[] = {"block252860.raw", "block277647.raw", "block367891.raw", "block400000.raw",
                                   "block413567.raw", "block540107.raw", "block574200.raw", "block702861.raw",
                                   "block866342.raw", "testnet3_block924634.raw"};
    int taproot_866342 = 0, total = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        char path[512];
        snprintf(path, sizeof path, "blocks/%s", blocks[b]);
        size_t len;
        uint8_t *data = check_read_file(path, &len); /* exits when missing */
        size_t cap = bk_block_max_txs(len);
        bk_tx *txs = malloc(cap * sizeof *txs);
        bk_block blk;
        int parsed = txs && bk_block_parse(data, len, txs, cap, &blk, NULL) == BK_OK;
        CHECK(parsed);
        if (parsed) {
            for (uint32_t t = 0; t < blk.n_tx; t++) {
                bk_txout_iter it;
                bk_txout o;
                bk_txout_iter_init(&it, &blk.txs[t]);
                while (bk_txout_next(&it, &o)) {
                    if (!is_taproot(o.script, o.script_len)) continue;
                    check_key(o.script + 2);
                    total++;
                    if (strcmp(blocks[b], "block866342.raw") == 0) taproot_866342++;
                }
            }
        }
        free(txs);
        free(data);
    }
    /* Block 866342's outputs hold 2,5xx taproot scripts; the testnet block
     * and 702861 add more. */
    printf("taproot outputs: %d in the test blocks, %d in block 866342\n", total, taproot_866342);
    CHECK(taproot_866342 > 2000);
    CHECK(total >= taproot_866342);
}

/* Every taproot prevout in the undo vectors (height coinbase value spk). */
static void undo_prevouts(void)
{
    static const char *files[] = {"block277647.coins.txt", "block367891.coins.txt", "block866342.coins.txt"};
    int taproot = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/undo/%s", BK_TEST_DATA, files[f]);
        FILE *fp = fopen(path, "r");
        CHECK(fp != NULL);
        if (!fp) continue;
        char line[40000];
        while (fgets(line, sizeof line, fp)) {
            char *spk = strrchr(line, ' ');
            if (!spk) continue;
            spk++;
            spk[strcspn(spk, "\r\n")] = 0;
            if (strlen(spk) != 68 || strncmp(spk, "5120", 4) != 0) continue;
            size_t n;
            uint8_t *s = check_unhex(spk, &n);
            CHECK(s && n == 34);
            if (s && n == 34) check_key(s + 2);
            free(s);
            taproot++;
        }
        fclose(fp);
    }
    printf("taproot prevouts in the undo vectors: %d\n", taproot);
    CHECK(taproot > 1000);
}

/* 200,000 seeded random x (a quarter forced to start ff ff ff ff so values
 * near and above p come up); counts the loop's non-convergence. */
static void random_inputs(void)
{
    uint64_t state = 0x2545f4914f6cdd1dull;
    uint8_t x[32];
    int before = n_checked, valid_before = n_valid, undecided_before = n_undecided;
    const int total = 200000;
    for (int i = 0; i < total; i++) {
        for (int k = 0; k < 32; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            x[k] = (uint8_t)(state >> 56);
        }
        if (i % 4 == 0) memset(x, 0xff, 4);
        check_key(x);
    }
    int valid = n_valid - valid_before, undecided = n_undecided - undecided_before;
    CHECK_EQ_INT(n_checked - before, total);
    /* About half of field elements are valid x coordinates. */
    CHECK(valid > total * 45 / 100 && valid < total * 55 / 100);
    /* The Jacobi loop converged on every one (the fallback is a safety net). */
    CHECK_EQ_INT(undecided, 0);
}

/* bk_script_xonly_valid_many (AVX-512 when the CPU has it) and its scalar
 * loop against libsecp256k1 on every key above: each n from 0 to 40 at
 * many offsets (every tail length, padded groups), then all keys at once. */
static void batch_api(void)
{
    CHECK(all_n == (size_t)n_checked);
    printf("batch kernel: %s\n", bk_script_xonly_many_simd() ? "AVX-512" : "scalar");
    uint8_t out[64];
    size_t mismatches = 0, calls = 0;
    for (size_t n = 0; n <= 40; n++) {
        for (size_t off = 0; off + n <= all_n; off += 997 + n) {
            memset(out, 0xee, sizeof out);
            bk_script_xonly_valid_many(all_keys + 32 * off, n, out);
            for (size_t i = 0; i < n; i++) mismatches += out[i] != all_ref[off + i];
            for (size_t i = n; i < sizeof out; i++) mismatches += out[i] != 0xee; /* no write past n */
            calls++;
        }
    }
    CHECK(calls > 8000);
    CHECK_EQ_INT((int)mismatches, 0);
    uint8_t *big = malloc(all_n + 1);
    CHECK(big != NULL);
    if (!big) return;
    bk_script_xonly_valid_many(all_keys, all_n, big);
    mismatches = 0;
    for (size_t i = 0; i < all_n; i++) mismatches += big[i] != all_ref[i];
    CHECK_EQ_INT((int)mismatches, 0);
    memset(big, 0xee, all_n);
    bk_script_xonly_valid_many_scalar(all_keys, all_n, big);
    mismatches = 0;
    for (size_t i = 0; i < all_n; i++) mismatches += big[i] != all_ref[i];
    CHECK_EQ_INT((int)mismatches, 0);
    /* Odd sizes at the end of the array (unaligned tails). */
    for (size_t n = 1; n <= 40; n++) {
        bk_script_xonly_valid_many(all_keys + 32 * (all_n - n), n, big);
        for (size_t i = 0; i < n; i++) CHECK_EQ_INT(big[i], all_ref[all_n - n + i]);
    }
    free(big);
}

/* The block renderer's cursor (src/json/script_json.c) on block 866342
 * with its undo data: walked in render order it hands out a decision for
 * every taproot prevout and output (2373 + 2757), each equal to
 * libsecp256k1's; without undo only the outputs. The rendered getblock
 * verbosity 3 then prints rawtr() exactly for the valid keys. A key out of
 * step switches the cursor off. */
static void block_cursor(void)
{
    size_t len, ulen;
    uint8_t *data = check_read_file(BK_TEST_DATA "/../../data/block866342.raw", &len);
    uint8_t *udata = check_read_file(BK_TEST_DATA "/../../data/block866342_undo.raw", &ulen);
    size_t cap = bk_block_max_txs(len);
    bk_tx *txs = malloc(cap * sizeof *txs);
    bk_block blk;
    bk_block_undo undo;
    int ok = txs && bk_block_parse(data, len, txs, cap, &blk, NULL) == BK_OK &&
             bk_block_undo_parse(udata, ulen, &undo, NULL) == BK_OK && bk_block_undo_check(&undo, &blk, NULL) == BK_OK;
    CHECK(ok);
    if (!ok) goto done;
    int n_valid_all = 0;
    for (int with_undo = 1; with_undo >= 0; with_undo--) {
        bk_script_cursors_ cur;
        bk_script_cursors_init_(&cur, &blk, with_undo ? &undo : NULL, BK_NET_MAIN);
        bk_undo_iter ui;
        bk_undo_iter_init(&ui, &undo);
        int taken = 0, wrong = 0, valid = 0, addrs = 0;
        for (uint32_t t = 0; t < blk.n_tx; t++) {
            bk_txout_iter it;
            bk_txout o;
            uint32_t n_coins = 0;
            bk_coin coin;
            int in_prevouts = with_undo && t > 0;
            if (in_prevouts) CHECK(bk_undo_next_tx(&ui, &n_coins));
            bk_txout_iter_init(&it, &blk.txs[t]);
            /* As a renderer: the prevouts, then the outputs; for each
             * script the address first, then the taproot decision. */
            for (;;) {
                const uint8_t *sc;
                size_t sl;
                if (in_prevouts && bk_undo_next_coin(&ui, &coin)) {
                    sc = bk_coin_script(&coin);
                    sl = coin.script_len;
                } else if (bk_txout_next(&it, &o)) {
                    in_prevouts = 0;
                    sc = o.script;
                    sl = o.script_len;
                } else {
                    break;
                }
                char addr[BK_SCRIPT_ADDRESS_MAX + 1];
                size_t al = bk_script_cursors_b58_(&cur, sc, sl, addr);
                bk_script_info ref;
                CHECK(bk_script_info_get(sc, sl, BK_NET_MAIN, &ref) == BK_OK);
                int pk = ref.sol.type == BK_SCRIPT_PUBKEYHASH || ref.sol.type == BK_SCRIPT_SCRIPTHASH;
                if (pk) {
                    addrs++;
                    wrong += al != ref.address_len || memcmp(addr, ref.address, al) != 0 || addr[al] != 0;
                } else {
                    wrong += al != 0;
                }
                int h = bk_script_cursors_taproot_(&cur, sc, sl);
                if (!is_taproot(sc, sl)) {
                    wrong += h != -1;
                    continue;
                }
                taken++;
                valid += h == 1;
                wrong += h != bk_script_xonly_valid_reference(sc + 2);
            }
        }
        CHECK_EQ_INT(taken, with_undo ? 2373 + 2757 : 2757);
        CHECK(addrs > 0);
        CHECK_EQ_INT(wrong, 0);
        CHECK_EQ_INT(cur.off, 0);
        if (with_undo) n_valid_all = valid;
        /* Past the end: nothing left, the cursors switch off. */
        static const uint8_t tr[34] = {0x51, 0x20, 1};
        CHECK_EQ_INT(bk_script_cursors_taproot_(&cur, tr, 34), -1);
        CHECK_EQ_INT(cur.off, 1);
    }
    /* Out of step: the first output key of the block replaced by another;
     * then an address taken out of order. */
    {
        bk_script_cursors_ cur;
        bk_script_cursors_init_(&cur, &blk, NULL, BK_NET_MAIN);
        uint8_t tr[34] = {0x51, 0x20};
        memset(tr + 2, 0x11, 32);
        CHECK_EQ_INT(bk_script_cursors_taproot_(&cur, tr, 34), -1);
        CHECK_EQ_INT(cur.off, 1);
        CHECK_EQ_INT(bk_script_cursors_taproot_(NULL, tr, 34), -1);
        static const uint8_t p2sh[23] = {0xa9, 0x14, [22] = 0x87};
        char addr[BK_SCRIPT_ADDRESS_MAX + 1];
        bk_script_cursors_init_(&cur, &blk, NULL, BK_NET_MAIN);
        CHECK_EQ_INT((int)bk_script_cursors_b58_(&cur, p2sh, 23, addr), 0);
        CHECK_EQ_INT(cur.off, 1);
        CHECK_EQ_INT((int)bk_script_cursors_b58_(NULL, p2sh, 23, addr), 0);
    }
    /* End to end: getblock verbosity 3 prints rawtr() for the valid keys
     * only (Core: InferDescriptor, XOnlyPubKey::IsFullyValid). */
    {
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_json j;
        bk_json_init(&j, &w, 0);
        bk_chain_context ctx;
        bk_chain_context_standalone(&ctx, &blk, BK_NET_MAIN, 866342);
        bk_block_json_opts o;
        bk_block_json_opts_init(&o);
        o.verbosity = 3;
        CHECK_EQ_INT(bk_json_block(&j, &blk, &undo, &ctx, &o, NULL), BK_OK);
        int rawtr = 0;
        for (size_t i = 0; i + 14 <= w.len; i++)
            if (memcmp(w.data + i, "\"desc\":\"rawtr(", 14) == 0) rawtr++;
        printf("block 866342 verbosity 3: %d rawtr() of 5130 taproot scripts\n", rawtr);
        CHECK_EQ_INT(rawtr, n_valid_all);
        CHECK(rawtr > 5000);
        bk_writer_free(&w);
    }
done:
    free(txs);
    free(data);
    free(udata);
}

int main(void)
{
    RUN(edge_values);
    RUN(block_outputs);
    RUN(undo_prevouts);
    RUN(random_inputs);
    RUN(batch_api);
    RUN(block_cursor);
    printf("xonly: %d keys checked against libsecp256k1, %d valid, %d undecided by the Jacobi loop\n", n_checked,
           n_valid, n_undecided);
    free(all_keys);
    free(all_ref);
    return check_finish();
}
