/* SHA256d of many 80-byte block headers at once (the block-index build,
 * src/bitcoin/chain_index.c, checks every stored header against its key).
 * Internal to the library (sha256_headers.h), beside the other kernels;
 * the round constants and IV are the module's (sha256_impl.h).
 *
 * bk_sha256d_msgs takes messages of any shape and schedules them over its
 * lanes one block at a time; for headers, all of one shape, that
 * bookkeeping costs more than the hashing. Here sixteen headers go through
 * AVX-512 lanes together: two compressions for SHA256(header) (the second
 * block is the last 16 bytes and constant padding) and one for the second
 * hash (the 32-byte digest and constant padding), the message words
 * gathered straight from the headers. The kernel runs only when the CPU has
 * AVX-512F/BW (the compiler's CPU detection, which also checks that the OS
 * saves the registers), the dispatcher's choice for segmented messages is
 * AVX-512 (so BLOCKKIT_SHA256, bk_sha256_use and BLOCKKIT_SHA256_MASK govern
 * it as every other kernel) and it passes its known-answer test against
 * bk_sha256d; otherwise, and for the last n % 16 headers, bk_sha256d_msgs
 * does the work. The compiler's target attribute confines AVX-512 to the
 * kernel, which only runs after those checks. */
#include "sha256_headers.h"
#include "sha256_impl.h"

#include <blockkit/sha256.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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
                     ADD(CH(e, f, g), ADD(wt, _mm512_set1_epi32((int)bk_sha256_k[t]))));
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
    for (int j = 0; j < 8; j++) s[j] = _mm512_set1_epi32((int)bk_sha256_iv[j]);
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
    for (int j = 0; j < 8; j++) s[j] = _mm512_set1_epi32((int)bk_sha256_iv[j]);
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

/* The dispatcher's choice for segmented messages (bk_sha256d_msgs) is
 * AVX-512: so BLOCKKIT_SHA256, bk_sha256_use and BLOCKKIT_SHA256_MASK
 * govern this kernel as they govern every other, and a CPU where the
 * calibration found SHA-NI faster keeps SHA-NI. */
static int dispatcher_picks_avx512(void)
{
    const char *b = bk_sha256_shape_backend(BK_SHA256_SHAPE_MSGS);
    return b && strncmp(b, "avx512", 6) == 0;
}

/* Whether the kernel can run here: 0 not yet known, 1 the CPU has
 * AVX-512F/BW and the kernel passed its known answers, 2 not. */
static _Atomic int runnable;

static int use_avx512(void)
{
    /* The dispatcher's choice, asked each call (bk_sha256_use may change
     * it); a masked or forced-off AVX-512 never reaches the kernel. */
    if (!dispatcher_picks_avx512()) return 0;
    int c = atomic_load_explicit(&runnable, memory_order_relaxed);
    if (!c) {
        c = 2;
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
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
        atomic_store_explicit(&runnable, c, memory_order_relaxed);
    }
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
