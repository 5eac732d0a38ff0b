/* SHA-256 8-way with AVX2 (compiled with -mavx2; reached only through
 * sha256_dispatch.c after CPUID and XGETBV say AVX2 and its register state
 * are usable). Eight independent messages, one per 32-bit lane. Used on x86
 * CPUs without the SHA extensions; single-stream work (streaming, one-shot)
 * uses the portable kernel, which is as fast as one lane can be. */
#if defined(__x86_64__)

#include "sha256_impl.h"

#include <immintrin.h>
#include <string.h>

#define BK_INLINE static inline __attribute__((always_inline))

typedef __m256i v8;

#define ADD(a, b) _mm256_add_epi32(a, b)
#define XOR(a, b) _mm256_xor_si256(a, b)
#define ROR(x, n) _mm256_or_si256(_mm256_srli_epi32(x, n), _mm256_slli_epi32(x, 32 - (n)))
#define SHR(x, n) _mm256_srli_epi32(x, n)
#define BS0(x) XOR(XOR(ROR(x, 2), ROR(x, 13)), ROR(x, 22))
#define BS1(x) XOR(XOR(ROR(x, 6), ROR(x, 11)), ROR(x, 25))
#define SS0(x) XOR(XOR(ROR(x, 7), ROR(x, 18)), SHR(x, 3))
#define SS1(x) XOR(XOR(ROR(x, 17), ROR(x, 19)), SHR(x, 10))
#define CH(e, f, g) XOR(_mm256_and_si256(e, f), _mm256_andnot_si256(e, g))
#define MAJ(a, b, c) _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, _mm256_or_si256(a, b)))

#define ROUND(a, b, c, d, e, f, g, h, wk) do {                 \
        v8 t1_ = ADD(ADD(ADD(h, BS1(e)), CH(e, f, g)), wk);    \
        v8 t2_ = ADD(BS0(a), MAJ(a, b, c));                    \
        d = ADD(d, t1_);                                       \
        h = ADD(t1_, t2_);                                     \
    } while (0)

#define ROUNDS8(W, i)                              \
    ROUND(a, b, c, d, e, f, g, h, W(i));           \
    ROUND(h, a, b, c, d, e, f, g, W(i + 1));       \
    ROUND(g, h, a, b, c, d, e, f, W(i + 2));       \
    ROUND(f, g, h, a, b, c, d, e, W(i + 3));       \
    ROUND(e, f, g, h, a, b, c, d, W(i + 4));       \
    ROUND(d, e, f, g, h, a, b, c, W(i + 5));       \
    ROUND(c, d, e, f, g, h, a, b, W(i + 6));       \
    ROUND(b, c, d, e, f, g, h, a, W(i + 7))

BK_INLINE v8 bswap32(v8 x)
{
    const v8 mask = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                                    12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    return _mm256_shuffle_epi8(x, mask);
}

/* 8x8 transpose of 32-bit words: r[l] word j -> r[j] lane l. */
BK_INLINE void transpose8(v8 r[8])
{
    v8 t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    v8 t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    v8 t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    v8 t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    v8 u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    v8 u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    v8 u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    v8 u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    r[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    r[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    r[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    r[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* Message words W[0..15] of the eight blocks p[0..7], lane l = block l. */
BK_INLINE void load_blocks(v8 w[16], const uint8_t *const *p)
{
    for (int half = 0; half < 2; half++) {
        v8 r[8];
        for (int l = 0; l < 8; l++) r[l] = _mm256_loadu_si256((const __m256i *)(p[l] + 32 * half));
        transpose8(r);
        for (int j = 0; j < 8; j++) w[8 * half + j] = bswap32(r[j]);
    }
}

/* FIPS 180-4 6.2.2 step 1: W[16..63]. */
BK_INLINE void schedule(v8 w[64])
{
    for (int i = 16; i < 64; i++) w[i] = ADD(ADD(SS1(w[i - 2]), w[i - 7]), ADD(SS0(w[i - 15]), w[i - 16]));
}

/* 64 rounds over the schedule w, feed-forward into s. */
static void rounds_w(v8 s[8], const v8 w[64])
{
    v8 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#define WK_(i) ADD(w[i], _mm256_set1_epi32((int)bk_sha256_k[i]))
    for (int i = 0; i < 64; i += 8) {
        ROUNDS8(WK_, i);
    }
#undef WK_
    s[0] = ADD(s[0], a); s[1] = ADD(s[1], b); s[2] = ADD(s[2], c); s[3] = ADD(s[3], d);
    s[4] = ADD(s[4], e); s[5] = ADD(s[5], f); s[6] = ADD(s[6], g); s[7] = ADD(s[7], h);
}

/* 64 rounds of the 64-byte message's padding block (precomputed W+K). */
static void rounds_pad64(v8 s[8])
{
    v8 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#define PK_(i) _mm256_set1_epi32((int)bk_sha256_pad64_wk[i])
    for (int i = 0; i < 64; i += 8) {
        ROUNDS8(PK_, i);
    }
#undef PK_
    s[0] = ADD(s[0], a); s[1] = ADD(s[1], b); s[2] = ADD(s[2], c); s[3] = ADD(s[3], d);
    s[4] = ADD(s[4], e); s[5] = ADD(s[5], f); s[6] = ADD(s[6], g); s[7] = ADD(s[7], h);
}

BK_INLINE void state_iv(v8 s[8])
{
    for (int j = 0; j < 8; j++) s[j] = _mm256_set1_epi32((int)bk_sha256_iv[j]);
}

/* Eight 64-byte messages in[l] -> SHA256 (or SHA256d) digests out[l];
 * out[l] NULL = unused lane. All loads precede all stores (in-place safe). */
static void hash8(uint8_t *const *out, const uint8_t *const *in, int dbl)
{
    v8 w[64], s[8];
    load_blocks(w, in);
    schedule(w);
    state_iv(s);
    rounds_w(s, w);
    rounds_pad64(s);
    if (dbl) {
        /* Second hash: digest words, then 0x80000000, 0 x 6, 256. */
        for (int j = 0; j < 8; j++) w[j] = s[j];
        w[8] = _mm256_set1_epi32((int)0x80000000u);
        for (int j = 9; j < 15; j++) w[j] = _mm256_setzero_si256();
        w[15] = _mm256_set1_epi32(256);
        schedule(w);
        state_iv(s);
        rounds_w(s, w);
    }
    transpose8(s);
    for (int l = 0; l < 8; l++)
        if (out[l]) _mm256_storeu_si256((__m256i *)out[l], bswap32(s[l]));
}

static void hash_many(uint8_t *out, const uint8_t *in, size_t n, int dbl)
{
    static const uint8_t zero[64];
    uint8_t *op[8];
    const uint8_t *ip[8];
    while (n) {
        size_t k = n < 8 ? n : 8;
        for (size_t l = 0; l < 8; l++) {
            ip[l] = l < k ? in + 64 * l : zero;
            op[l] = l < k ? out + 32 * l : NULL;
        }
        hash8(op, ip, dbl);
        in += 64 * k;
        out += 32 * k;
        n -= k;
    }
}

static void hash_64(uint8_t *out, const uint8_t *in, size_t n) { hash_many(out, in, n, 0); }
static void hashd_64(uint8_t *out, const uint8_t *in, size_t n) { hash_many(out, in, n, 1); }

/* Eight states, one block each (the multi-message scheduler's kernel). */
static void compress_lanes8(uint32_t *const *states, const uint8_t *const *blocks, size_t nblocks)
{
    v8 w[64], s[8];
    const uint8_t *p[8];
    for (int l = 0; l < 8; l++) {
        s[l] = _mm256_loadu_si256((const __m256i *)states[l]);
        p[l] = blocks[l];
    }
    transpose8(s);
    for (size_t b = 0; b < nblocks; b++) {
        load_blocks(w, p);
        schedule(w);
        rounds_w(s, w);
        for (int l = 0; l < 8; l++) p[l] += 64;
    }
    transpose8(s);
    for (int l = 0; l < 8; l++) _mm256_storeu_si256((__m256i *)states[l], s[l]);
}

static void hashd_msgs(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    bk_sha256d_msgs_lanes(out, msgs, n, 8, compress_lanes8, bk_sha256_compress_portable);
}

const bk_sha256_impl bk_sha256_backend_avx2 = {
    "avx2", bk_sha256_compress_portable, hash_64, hashd_64, hashd_msgs,
};

#else
/* Not x86-64: nothing to build (ISO C wants a declaration per file). */
typedef int bk_sha256_avx2_not_built;
#endif /* __x86_64__ */
