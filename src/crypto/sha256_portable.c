/* Portable SHA-256 backend (FIPS 180-4), always built, no special flags:
 * the reference every other backend is tested against, and the one
 * valgrind can run (BLOCKKIT_SHA256=portable). */
#include "sha256_impl.h"

#include <string.h>

const uint32_t bk_sha256_iv[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

const uint32_t bk_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* Generated from FIPS 180-4 section 6.2.2 step 1 for the block
 * 0x80 00*55 00 00 00 00 00 00 02 00 (padding of a 64-byte message). */
const uint32_t bk_sha256_pad64_wk[64] = {
    0xc28a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf374,
    0x649b69c1, 0xf0fe4786, 0x0fe1edc6, 0x240cf254, 0x4fe9346f, 0x6cc984be, 0x61b9411e, 0x16f988fa,
    0xf2c65152, 0xa88e5a6d, 0xb019fc65, 0xb9d99ec7, 0x9a1231c3, 0xe70eeaa0, 0xfdb1232b, 0xc7353eb0,
    0x3069bad5, 0xcb976d5f, 0x5a0f118f, 0xdc1eeefd, 0x0a35b689, 0xde0b7a04, 0x58f4ca9d, 0xe15d5b16,
    0x007f3e86, 0x37088980, 0xa507ea32, 0x6fab9537, 0x17406110, 0x0d8cd6f1, 0xcdaa3b6d, 0xc0bbbe37,
    0x83613bda, 0xdb48a363, 0x0b02e931, 0x6fd15ca7, 0x521afaca, 0x31338431, 0x6ed41a95, 0x6d437890,
    0xc39c91f2, 0x9eccabbd, 0xb5c9a0e6, 0x532fb63c, 0xd2c741c6, 0x07237ea3, 0xa4954b68, 0x4c191d76,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
/* Ch and Maj of FIPS 180-4 4.1.2 in fewer operations (same truth tables). */
#define CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define S0(x) (ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define S1(x) (ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define s0(x) (ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define s1(x) (ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

/* One round with the eight working variables renamed instead of moved:
 * only d and h are written. */
#define ROUND(a, b, c, d, e, f, g, h, wk) do {           \
        uint32_t t1_ = (h) + S1(e) + CH(e, f, g) + (wk);  \
        (d) += t1_;                                       \
        (h) = t1_ + S0(a) + MAJ(a, b, c);                 \
    } while (0)

/* 64 rounds over a finished schedule: wk[i] = W[i] + K[i]. */
static void rounds_wk(uint32_t s[8], const uint32_t wk[64])
{
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    for (int i = 0; i < 64; i += 8) {
        ROUND(a, b, c, d, e, f, g, h, wk[i]);
        ROUND(h, a, b, c, d, e, f, g, wk[i + 1]);
        ROUND(g, h, a, b, c, d, e, f, wk[i + 2]);
        ROUND(f, g, h, a, b, c, d, e, wk[i + 3]);
        ROUND(e, f, g, h, a, b, c, d, wk[i + 4]);
        ROUND(d, e, f, g, h, a, b, c, wk[i + 5]);
        ROUND(c, d, e, f, g, h, a, b, wk[i + 6]);
        ROUND(b, c, d, e, f, g, h, a, wk[i + 7]);
    }
    s[0] += a; s[1] += b; s[2] += c; s[3] += d;
    s[4] += e; s[5] += f; s[6] += g; s[7] += h;
}

/* Expand the 16 message words w[0..15] and add K. */
static void schedule(uint32_t w[64])
{
    for (int i = 16; i < 64; i++) w[i] = s1(w[i - 2]) + w[i - 7] + s0(w[i - 15]) + w[i - 16];
    for (int i = 0; i < 64; i++) w[i] += bk_sha256_k[i];
}

void bk_sha256_compress_portable(uint32_t s[8], const uint8_t *blocks, size_t nblocks)
{
    while (nblocks--) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++) w[i] = bk_sha256_load_be32(blocks + 4 * i);
        schedule(w);
        rounds_wk(s, w);
        blocks += 64;
    }
}

/* SHA256 of one 64-byte message into state s (two compressions, the second
 * over the precomputed padding schedule). */
static void hash64_state(uint32_t s[8], const uint8_t *in)
{
    memcpy(s, bk_sha256_iv, 32);
    bk_sha256_compress_portable(s, in, 1);
    rounds_wk(s, bk_sha256_pad64_wk);
}

static void hash_64(uint8_t *out, const uint8_t *in, size_t n)
{
    /* In place, out[32*i] never passes in[64*i]: message i is consumed
     * before digest i is stored, and digest i lies below message i+1. */
    for (size_t i = 0; i < n; i++) {
        uint32_t s[8];
        hash64_state(s, in + 64 * i);
        for (int j = 0; j < 8; j++) bk_sha256_store_be32(out + 32 * i + 4 * j, s[j]);
    }
}

static void hashd_64(uint8_t *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t s[8], w[64];
        hash64_state(s, in + 64 * i);
        /* Second hash: the 32-byte digest, then constant padding
         * (0x80, zeros, bit length 256). */
        memcpy(w, s, 32);
        w[8] = 0x80000000u;
        for (int j = 9; j < 15; j++) w[j] = 0;
        w[15] = 256;
        schedule(w);
        memcpy(s, bk_sha256_iv, 32);
        rounds_wk(s, w);
        for (int j = 0; j < 8; j++) bk_sha256_store_be32(out + 32 * i + 4 * j, s[j]);
    }
}

static void compress_lane1(uint32_t *const *states, const uint8_t *const *blocks, size_t nblocks)
{
    bk_sha256_compress_portable(states[0], blocks[0], nblocks);
}

static void hashd_msgs(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    bk_sha256d_msgs_lanes(out, msgs, n, 1, compress_lane1, bk_sha256_compress_portable);
}

const bk_sha256_impl bk_sha256_backend_portable = {
    "portable", bk_sha256_compress_portable, hash_64, hashd_64, hashd_msgs,
};
