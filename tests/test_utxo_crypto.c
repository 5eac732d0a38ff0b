/* ChaCha20 against RFC 8439's vectors (2.3.2 block, 2.4.2 encryption,
 * A.1 #1 and #2 key streams) and MuHash3072 against Bitcoin Core's own
 * vectors (src/test/crypto_tests.cpp muhash_tests). */
#include <blockkit/utxo.h>

#include "check.h"
#include "crypto/chacha20.h"
#include "utxo/muhash_internal.h"

static void unhex_into(uint8_t *out, const char *hex)
{
    size_t n = 0;
    uint8_t *p = check_unhex(hex, &n);
    memcpy(out, p, n);
    free(p);
}

static void hex_of(char *out, const uint8_t *p, size_t n) { check_hex(out, p, n); }

static void test_chacha20_block(void)
{
    uint8_t key[32], nonce[12], out[64];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    unhex_into(nonce, "000000090000004a00000000");
    bk_chacha20_block(key, 1, nonce, out);
    char hex[129];
    hex_of(hex, out, 64);
    CHECK_EQ_STR(hex, "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                      "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
}

static void test_chacha20_zero(void)
{
    /* A.1 #1: zero key, nonce, counter 0; #2: counter 1. */
    uint8_t key[32] = {0}, nonce[12] = {0}, out[128];
    bk_chacha20_stream(key, 0, nonce, out, 128);
    char hex[257];
    hex_of(hex, out, 64);
    CHECK_EQ_STR(hex, "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
                      "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
    hex_of(hex, out + 64, 64);
    CHECK_EQ_STR(hex, "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
                      "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f");
    uint8_t one[64];
    bk_chacha20_block(key, 1, nonce, one);
    CHECK_MEM(one, out + 64, 64);
    /* Long streams (the 4- and 8-block paths) equal block-by-block output. */
    static uint8_t big[1600], ref[1600];
    uint8_t k2[32], n2[12];
    for (int i = 0; i < 32; i++) k2[i] = (uint8_t)(7 * i + 1);
    for (int i = 0; i < 12; i++) n2[i] = (uint8_t)(3 * i);
    static const size_t lens[] = {1, 63, 64, 65, 128, 200, 256, 257, 384, 511, 512, 513, 1000, 1600};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t n = lens[li];
        bk_chacha20_stream(k2, 0xfffffff0u, n2, big, n);
        for (size_t b = 0; b * 64 < n; b++) {
            uint8_t blk[64];
            bk_chacha20_block(k2, 0xfffffff0u + (uint32_t)b, n2, blk);
            memcpy(ref + 64 * b, blk, n - 64 * b < 64 ? n - 64 * b : 64);
        }
        CHECK_MEM(big, ref, n);
    }
    /* An odd length takes a prefix of the same stream. */
    uint8_t part[70];
    bk_chacha20_stream(key, 0, nonce, part, 70);
    CHECK_MEM(part, out, 70);
}

static void test_chacha20_encrypt(void)
{
    static const char pt[] = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
                             "the future, sunscreen would be it.";
    uint8_t key[32], nonce[12], ct[114];
    CHECK_EQ_INT(sizeof pt - 1, 114);
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    unhex_into(nonce, "000000000000004a00000000");
    bk_chacha20_xor(key, 1, nonce, (const uint8_t *)pt, ct, 114);
    char hex[229];
    hex_of(hex, ct, 114);
    CHECK_EQ_STR(hex, "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
                      "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
                      "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
                      "5af90bbf74a35be6b40b8eedf2785e42874d");
    uint8_t back[114];
    bk_chacha20_xor(key, 1, nonce, ct, back, 114);
    CHECK_MEM(back, pt, 114);
}

/* Core prints uint256 reversed (GetHex); uint256S("...") parses that form. */
static void hex_rev(char *out, const uint8_t h[32])
{
    uint8_t r[32];
    for (int i = 0; i < 32; i++) r[i] = h[31 - i];
    check_hex(out, r, 32);
}

static void test_muhash_core_vectors(void)
{
    uint8_t t0[32] = {0}, t1[32] = {1}, t2[32] = {2}, out[32];
    char hex[65];
    /* acc = FromInt(0); acc *= FromInt(1); acc /= FromInt(2) */
    bk_muhash acc;
    bk_muhash_init(&acc);
    bk_muhash_insert(&acc, t0, 32);
    bk_muhash_insert(&acc, t1, 32);
    bk_muhash_remove(&acc, t2, 32);
    bk_muhash_finalize(&acc, out);
    hex_rev(hex, out);
    CHECK_EQ_STR(hex, "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863");

    /* The same through combine: x * y / (x*y) is the empty set. */
    bk_muhash x, y, z, empty;
    bk_muhash_init(&x);
    bk_muhash_insert(&x, t1, 32);
    bk_muhash_init(&y);
    bk_muhash_insert(&y, t2, 32);
    bk_muhash_init(&z);
    bk_muhash_combine(&z, &x);
    bk_muhash_combine(&z, &y);
    bk_muhash_remove(&z, t1, 32);
    bk_muhash_remove(&z, t2, 32);
    bk_muhash_finalize(&z, out);
    uint8_t out2[32];
    bk_muhash_init(&empty);
    bk_muhash_finalize(&empty, out2);
    CHECK_MEM(out, out2, 32);

    /* Overflow: a numerator above the modulus (all ones) reduces first. */
    bk_muhash ov;
    bk_muhash_init(&ov);
    memset(ov.num, 0xff, sizeof ov.num);
    bk_muhash_finalize(&ov, out);
    check_hex(hex, out, 32); /* Core: HexStr(out4), raw byte order */
    CHECK_EQ_STR(hex, "3a31e6903aff0de9f62f9a9f7f8b861de76ce2cda09822b90014319ae5dc2271");
}

static void test_muhash_order(void)
{
    /* Insertion order never matters; removal undoes insertion. */
    uint8_t e[8][40];
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 40; k++) e[i][k] = (uint8_t)(i * 37 + k);
    bk_muhash a, b;
    bk_muhash_init(&a);
    bk_muhash_init(&b);
    for (int i = 0; i < 8; i++) bk_muhash_insert(&a, e[i], 40);
    for (int i = 7; i >= 0; i--) bk_muhash_insert(&b, e[i], 40);
    uint8_t ha[32], hb[32];
    bk_muhash_finalize(&a, ha);
    bk_muhash_finalize(&b, hb);
    CHECK_MEM(ha, hb, 32);
    bk_muhash_insert(&b, e[0], 39);
    bk_muhash_finalize(&b, hb);
    CHECK(memcmp(ha, hb, 32) != 0);
    bk_muhash_remove(&b, e[0], 39);
    bk_muhash_finalize(&b, hb);
    CHECK_MEM(ha, hb, 32);
}

/* The batched elements equal bk_muhash_element one by one on every lane
 * width the CPU has (16, 8, 1), for batch sizes around the run lengths. */
static void test_chacha20_elements(void)
{
    enum { N = 19 };
    uint8_t keys[32 * N], want[384 * N], got[384 * N + 1];
    static const uint8_t nonce[12] = {0};
    for (size_t i = 0; i < sizeof keys; i++) keys[i] = (uint8_t)(i * 131 + 7);
    for (size_t k = 0; k < N; k++) bk_chacha20_stream(keys + 32 * k, 0, nonce, want + 384 * k, 384);
    int widths[3] = {16, 8, 1};
    for (int wi = 0; wi < 3; wi++)
        for (size_t n = 0; n <= N; n++) {
            memset(got, 0xa5, sizeof got);
            int used = bk_chacha20_elements_lanes(keys, n, got, widths[wi]);
            CHECK(used <= widths[wi]);
            CHECK_MEM(got, want, 384 * n);
            CHECK_EQ_INT(got[384 * n], 0xa5); /* nothing written past the n elements */
        }
}

/* bk_muhash_mul_keys equals one bk_muhash_insert per element. */
static void test_muhash_mul_keys(void)
{
    enum { N = 21 };
    uint8_t data[N][50], keys[32 * N];
    bk_muhash a, b;
    bk_muhash_init(&a);
    bk_muhash_init(&b);
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 50; k++) data[i][k] = (uint8_t)(i * 53 + k * 3);
        bk_muhash_insert(&a, data[i], 50);
        bk_sha256(keys + 32 * i, data[i], 50);
    }
    bk_muhash_mul_keys(b.num, keys, N);
    CHECK_MEM(a.num, b.num, sizeof a.num);
    bk_muhash_mul_keys(b.den, keys, 0); /* the empty product leaves it */
    CHECK_MEM(a.den, b.den, sizeof a.den);
}

int main(void)
{
    RUN(test_chacha20_block);
    RUN(test_chacha20_zero);
    RUN(test_chacha20_encrypt);
    RUN(test_muhash_core_vectors);
    RUN(test_muhash_order);
    RUN(test_chacha20_elements);
    RUN(test_muhash_mul_keys);
    return check_finish();
}
