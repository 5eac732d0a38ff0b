/* SHA256d of many 80-byte block headers at once, for the block-index
 * build (chain_index.c checks every stored header against its key).
 *
 * bk_sha256d_msgs takes messages of any shape and schedules them over its
 * lanes one block at a time; for headers, all of one shape, that
 * bookkeeping costs more than the hashing. Here sixteen headers go through
 * AVX-512 lanes together: two compressions for SHA256(header) (the second
 * block is the last 16 bytes and constant padding) and one for the second
 * hash (the 32-byte digest and constant padding), the message words
 * gathered straight from the headers. Without AVX-512F/BW (checked at run
 * time through the compiler's CPU detection, which also checks that the OS
 * saves the registers), with BLOCKKIT_SHA256 naming another backend or
 * BLOCKKIT_SHA256_MASK listing avx512 (as for the crypto module), or when
 * the kernel fails its known-answer test against bk_sha256d, and for the
 * last n % 16 headers, bk_sha256d_msgs does it. The compiler's target
 * attribute confines AVX-512 to the kernel, which only runs after the
 * check. */
#include "header_hash.h"

#include <blockkit/sha256.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static void hash_msgs(uint8_t *out, const uint8_t *hdrs, size_t n)
{
    enum { CHUNK = 64 };
    bk_sha256_seg seg[CHUNK];
    bk_sha256_msg msg[CHUNK];
    while (n) {
        size_t m = n < CHUNK ? n : CHUNK;
        for (size_t i = 0; i < m; i++) {
            seg[i].data = hdrs + 80 * i;
            seg[i].len = 80;
            msg[i].segs = &seg[i];
            msg[i].nsegs = 1;
        }
        bk_sha256d_msgs(out, msg, m);
        out += 32 * m;
        hdrs += 80 * m;
        n -= m;
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw")))

typedef __m512i v16;

AVX512 static inline v16 ror(v16 x, int n)
{
    switch (n) {
    case 2: return _mm512_ror_epi32(x, 2);
    case 6: return _mm512_ror_epi32(x, 6);
    case 7: return _mm512_ror_epi32(x, 7);
    case 11: return _mm512_ror_epi32(x, 11);
    case 13: return _mm512_ror_epi32(x, 13);
    case 17: return _mm512_ror_epi32(x, 17);
    case 18: return _mm512_ror_epi32(x, 18);
    case 19: return _mm512_ror_epi32(x, 19);
    case 22: return _mm512_ror_epi32(x, 22);
    default: return _mm512_ror_epi32(x, 25);
    }
}

#define XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)
#define CH(e, f, g) _mm512_ternarylogic_epi32((e), (f), (g), 0xca)
#define MAJ(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0xe8)
#define ADD(a, b) _mm512_add_epi32((a), (b))

/* s = compress(s, w) on 16 lanes; w is the block's 16 words (consumed). */
AVX512 static void compress16(v16 s[8], v16 w[16])
{
    v16 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    /* Unrolled: the state moves and the schedule indices vanish. */
#if defined(__clang__)
#pragma unroll
#else
#pragma GCC unroll 64
#endif
    for (int t = 0; t < 64; t++) {
        v16 wt;
        if (t < 16) {
            wt = w[t];
        } else {
            v16 w2 = w[(t - 2) & 15], w15 = w[(t - 15) & 15];
            v16 s1 = XOR3(ror(w2, 17), ror(w2, 19), _mm512_srli_epi32(w2, 10));
            v16 s0 = XOR3(ror(w15, 7), ror(w15, 18), _mm512_srli_epi32(w15, 3));
            wt = ADD(ADD(w[t & 15], s0), ADD(s1, w[(t - 7) & 15]));
            w[t & 15] = wt;
        }
        v16 t1 = ADD(ADD(h, XOR3(ror(e, 6), ror(e, 11), ror(e, 25))),
                     ADD(CH(e, f, g), ADD(wt, _mm512_set1_epi32((int)K[t]))));
        v16 t2 = ADD(XOR3(ror(a, 2), ror(a, 13), ror(a, 22)), MAJ(a, b, c));
        h = g;
        g = f;
        f = e;
        e = ADD(d, t1);
        d = c;
        c = b;
        b = a;
        a = ADD(t1, t2);
    }
    s[0] = ADD(s[0], a);
    s[1] = ADD(s[1], b);
    s[2] = ADD(s[2], c);
    s[3] = ADD(s[3], d);
    s[4] = ADD(s[4], e);
    s[5] = ADD(s[5], f);
    s[6] = ADD(s[6], g);
    s[7] = ADD(s[7], h);
}

/* Big-endian words: reverse the bytes of each 32-bit lane. */
AVX512 static inline v16 bswap(v16 x)
{
    const v16 m = _mm512_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10,
                                  11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                                  12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    return _mm512_shuffle_epi8(x, m);
}

/* 16 headers at hdrs (80 bytes apart) to out (32 bytes apart). */
AVX512 static void hash16(uint8_t *out, const uint8_t *hdrs)
{
    const v16 idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                       _mm512_set1_epi32(80));
    v16 s[8], w[16];
    for (int j = 0; j < 8; j++) s[j] = _mm512_set1_epi32((int)IV[j]);
    for (int t = 0; t < 16; t++) w[t] = bswap(_mm512_i32gather_epi32(idx, (const void *)(hdrs + 4 * t), 1));
    compress16(s, w);
    for (int t = 0; t < 4; t++) w[t] = bswap(_mm512_i32gather_epi32(idx, (const void *)(hdrs + 64 + 4 * t), 1));
    w[4] = _mm512_set1_epi32((int)0x80000000u);
    for (int t = 5; t < 15; t++) w[t] = _mm512_setzero_si512();
    w[15] = _mm512_set1_epi32(640);
    compress16(s, w);
    /* The second hash: the digest, padded. */
    for (int t = 0; t < 8; t++) w[t] = s[t];
    w[8] = _mm512_set1_epi32((int)0x80000000u);
    for (int t = 9; t < 15; t++) w[t] = _mm512_setzero_si512();
    w[15] = _mm512_set1_epi32(256);
    for (int j = 0; j < 8; j++) s[j] = _mm512_set1_epi32((int)IV[j]);
    compress16(s, w);
    const v16 oidx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                        _mm512_set1_epi32(32));
    for (int j = 0; j < 8; j++) _mm512_i32scatter_epi32((void *)(out + 4 * j), oidx, bswap(s[j]), 1);
}

AVX512 static void hash_avx512(uint8_t *out, const uint8_t *hdrs, size_t n)
{
    for (; n >= 16; n -= 16, hdrs += 16 * 80, out += 16 * 32) hash16(out, hdrs);
    if (n) hash_msgs(out, hdrs, n);
}

static int env_allows_avx512(void)
{
    const char *b = getenv("BLOCKKIT_SHA256");
    if (b && *b && strcmp(b, "auto") != 0 && strcmp(b, "avx512") != 0) return 0;
    const char *m = getenv("BLOCKKIT_SHA256_MASK");
    while (m && *m) {
        const char *end = strchr(m, ',');
        size_t len = end ? (size_t)(end - m) : strlen(m);
        if (len == 6 && memcmp(m, "avx512", 6) == 0) return 0;
        m = end ? end + 1 : NULL;
    }
    return 1;
}

/* 0 not yet known, 1 the kernel, 2 bk_sha256d_msgs. */
static _Atomic int choice;

static int use_avx512(void)
{
    int c = atomic_load_explicit(&choice, memory_order_relaxed);
    if (c) return c == 1;
    c = 2;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && env_allows_avx512()) {
        /* Known answers: 16 different headers against bk_sha256d. */
        uint8_t hdrs[16 * 80], got[16 * 32], want[32];
        for (size_t i = 0; i < sizeof hdrs; i++) hdrs[i] = (uint8_t)(i * 167 + (i >> 3) * 29 + 11);
        hash16(got, hdrs);
        c = 1;
        for (int i = 0; i < 16 && c == 1; i++) {
            bk_sha256d(want, hdrs + 80 * i, 80);
            if (memcmp(want, got + 32 * i, 32) != 0) c = 2;
        }
    }
    atomic_store_explicit(&choice, c, memory_order_relaxed);
    return c == 1;
}

void bk_header_hash_many(uint8_t *out, const uint8_t *hdrs, size_t n)
{
    if (use_avx512()) hash_avx512(out, hdrs, n);
    else hash_msgs(out, hdrs, n);
}

#else

void bk_header_hash_many(uint8_t *out, const uint8_t *hdrs, size_t n)
{
    hash_msgs(out, hdrs, n);
}

#endif
