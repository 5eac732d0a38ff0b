/* SHA-256 16-way with AVX-512 (compiled with -mavx512f -mavx512bw; reached
 * only through sha256_dispatch.c after CPUID says AVX512F and AVX512BW and
 * XCR0 says the OS saves the opmask and ZMM state).
 *
 * Sixteen independent messages, one per 32-bit lane; native rotates
 * (vprord) and three-input logic (vpternlogd) make a round about half the
 * instructions of the AVX2 one. On Intel server cores sha256rnds2 issues
 * only about every 2.4 cycles whatever the number of streams, so for
 * batches this kernel outruns SHA-NI there; single-stream work (streaming,
 * one-shot, the last message of a batch) uses SHA-NI when the CPU has it,
 * else the portable kernel. */
#if defined(__x86_64__)

#include "sha256_impl.h"

#include <immintrin.h>
#include <string.h>

typedef __m512i v16;

#define ADD(a, b) _mm512_add_epi32(a, b)
#define ROR(x, n) _mm512_ror_epi32(x, n)
#define XOR3(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0x96)
#define CH(e, f, g) _mm512_ternarylogic_epi32(e, f, g, 0xCA)   /* e ? f : g */
#define MAJ(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0xE8)  /* majority */
#define BS0(x) XOR3(ROR(x, 2), ROR(x, 13), ROR(x, 22))
#define BS1(x) XOR3(ROR(x, 6), ROR(x, 11), ROR(x, 25))
#define SS0(x) XOR3(ROR(x, 7), ROR(x, 18), _mm512_srli_epi32(x, 3))
#define SS1(x) XOR3(ROR(x, 17), ROR(x, 19), _mm512_srli_epi32(x, 10))

#define ROUND(a, b, c, d, e, f, g, h, wk) do {                 \
        v16 t1_ = ADD(ADD(h, BS1(e)), ADD(CH(e, f, g), wk));   \
        v16 t2_ = ADD(BS0(a), MAJ(a, b, c));                   \
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

static inline __attribute__((always_inline)) v16 bswap32(v16 x)
{
    const v16 mask = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
    return _mm512_shuffle_epi8(x, mask);
}

/* Lane l reads 32-bit word j at base + l*stride + 4*j (stride in words). */
static inline __attribute__((always_inline)) v16 lane_index(int stride_words)
{
    return _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                              _mm512_set1_epi32(stride_words));
}

static void schedule(v16 w[64])
{
    for (int i = 16; i < 64; i++) w[i] = ADD(ADD(SS1(w[i - 2]), w[i - 7]), ADD(SS0(w[i - 15]), w[i - 16]));
}

static void rounds_w(v16 s[8], const v16 w[64])
{
    v16 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#define WK_(i) ADD(w[i], _mm512_set1_epi32((int)bk_sha256_k[i]))
    for (int i = 0; i < 64; i += 8) {
        ROUNDS8(WK_, i);
    }
#undef WK_
    s[0] = ADD(s[0], a); s[1] = ADD(s[1], b); s[2] = ADD(s[2], c); s[3] = ADD(s[3], d);
    s[4] = ADD(s[4], e); s[5] = ADD(s[5], f); s[6] = ADD(s[6], g); s[7] = ADD(s[7], h);
}

/* The padding block of a 64-byte message: precomputed W+K, no schedule. */
static void rounds_pad64(v16 s[8])
{
    v16 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#define PK_(i) _mm512_set1_epi32((int)bk_sha256_pad64_wk[i])
    for (int i = 0; i < 64; i += 8) {
        ROUNDS8(PK_, i);
    }
#undef PK_
    s[0] = ADD(s[0], a); s[1] = ADD(s[1], b); s[2] = ADD(s[2], c); s[3] = ADD(s[3], d);
    s[4] = ADD(s[4], e); s[5] = ADD(s[5], f); s[6] = ADD(s[6], g); s[7] = ADD(s[7], h);
}

/* k (1..16) messages of 64 bytes at in -> digests at out (SHA256, or
 * SHA256d when dbl). Lanes >= k are masked off: not read, not written.
 * Every gather precedes every scatter (in-place safe). */
static void hash16(uint8_t *out, const uint8_t *in, unsigned k, int dbl)
{
    v16 w[64], s[8];
    const __mmask16 m = (__mmask16)(k >= 16 ? 0xFFFF : (1u << k) - 1);
    const v16 idx_in = lane_index(16), idx_out = lane_index(8);
    for (int j = 0; j < 16; j++)
        w[j] = bswap32(_mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx_in, in + 4 * j, 4));
    schedule(w);
    for (int j = 0; j < 8; j++) s[j] = _mm512_set1_epi32((int)bk_sha256_iv[j]);
    rounds_w(s, w);
    rounds_pad64(s);
    if (dbl) {
        /* Second hash: digest words, then 0x80000000, 0 x 6, 256. */
        for (int j = 0; j < 8; j++) w[j] = s[j];
        w[8] = _mm512_set1_epi32((int)0x80000000u);
        for (int j = 9; j < 15; j++) w[j] = _mm512_setzero_si512();
        w[15] = _mm512_set1_epi32(256);
        schedule(w);
        for (int j = 0; j < 8; j++) s[j] = _mm512_set1_epi32((int)bk_sha256_iv[j]);
        rounds_w(s, w);
    }
    for (int j = 0; j < 8; j++) _mm512_mask_i32scatter_epi32(out + 4 * j, m, idx_out, bswap32(s[j]), 4);
}

static void hash_many(uint8_t *out, const uint8_t *in, size_t n, int dbl)
{
    while (n) {
        unsigned k = n < 16 ? (unsigned)n : 16;
        hash16(out, in, k, dbl);
        in += 64 * (size_t)k;
        out += 32 * (size_t)k;
        n -= k;
    }
}

static void hash_64(uint8_t *out, const uint8_t *in, size_t n) { hash_many(out, in, n, 0); }
static void hashd_64(uint8_t *out, const uint8_t *in, size_t n) { hash_many(out, in, n, 1); }

/* Sixteen states, one block each (the multi-message scheduler's kernel):
 * blocks and states are copied into contiguous rows, then gathered. */
static void compress_lanes16(uint32_t *const *states, const uint8_t *const *blocks)
{
    uint8_t blk[16 * 64];
    uint32_t st[16 * 8];
    v16 w[64], s[8];
    for (int l = 0; l < 16; l++) {
        memcpy(blk + 64 * l, blocks[l], 64);
        memcpy(st + 8 * l, states[l], 32);
    }
    const v16 idx_blk = lane_index(16), idx_st = lane_index(8);
    for (int j = 0; j < 16; j++) w[j] = bswap32(_mm512_i32gather_epi32(idx_blk, blk + 4 * j, 4));
    for (int j = 0; j < 8; j++) s[j] = _mm512_i32gather_epi32(idx_st, st + j, 4);
    schedule(w);
    rounds_w(s, w);
    for (int j = 0; j < 8; j++) _mm512_i32scatter_epi32(st + j, idx_st, s[j], 4);
    for (int l = 0; l < 16; l++) memcpy(states[l], st + 8 * l, 32);
}

static void hashd_msgs_portable(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    bk_sha256d_msgs_lanes(out, msgs, n, 16, compress_lanes16, bk_sha256_compress_portable);
}

static void hashd_msgs_shani(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    bk_sha256d_msgs_lanes(out, msgs, n, 16, compress_lanes16, bk_sha256_compress_shani);
}

const bk_sha256_impl bk_sha256_backend_avx512 = {
    "avx512", bk_sha256_compress_portable, hash_64, hashd_64, hashd_msgs_portable,
};

/* The same with SHA-NI for single-stream work; the dispatcher hands this
 * one out only when the CPU has both AVX-512 and SHA-NI. */
const bk_sha256_impl bk_sha256_backend_avx512_shani = {
    "avx512", bk_sha256_compress_shani, hash_64, hashd_64, hashd_msgs_shani,
};

#else
/* Not x86-64: nothing to build (ISO C wants a declaration per file). */
typedef int bk_sha256_avx512_not_built;
#endif /* __x86_64__ */
