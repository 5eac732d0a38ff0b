/* SHA-256 16-way with AVX-512 (compiled with -mavx512f -mavx512bw; reached
 * only through sha256_dispatch.c after CPUID says AVX512F and AVX512BW and
 * XCR0 says the OS saves the opmask and ZMM state).
 *
 * Sixteen independent messages, one per 32-bit lane; native rotates
 * (vprord) and three-input logic (vpternlogd) make a round about half the
 * instructions of the AVX2 one. On Intel server cores sha256rnds2 issues
 * only about every 2.4 cycles whatever the number of streams, so for
 * batches this kernel outruns SHA-NI there; single-stream work (streaming,
 * one-shot, the last messages of a batch) and batches of fewer than 8 use
 * SHA-NI when the CPU has it (else the portable kernel, and masked lanes). */
#if defined(__x86_64__)

#include "sha256_lane.h"

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

/* 16x16 transpose of 32-bit words: r[l] word j -> r[j] lane l. */
static inline __attribute__((always_inline)) void transpose16(v16 r[16])
{
    v16 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    /* u[4i + c], 128-bit lane k = word 4k + c of rows 4i .. 4i + 3. */
    for (int i = 0; i < 16; i += 4) {
        u[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        u[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        u[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        u[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int c = 0; c < 4; c++) {
        v16 a0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x44), a1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xEE);
        v16 b0 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x44), b1 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xEE);
        r[c] = _mm512_shuffle_i32x4(a0, b0, 0x88);
        r[4 + c] = _mm512_shuffle_i32x4(a0, b0, 0xDD);
        r[8 + c] = _mm512_shuffle_i32x4(a1, b1, 0x88);
        r[12 + c] = _mm512_shuffle_i32x4(a1, b1, 0xDD);
    }
}

/* Message words W[0..15] of the blocks p[0..15] (NULL = a zero block),
 * lane l = block l: one 64-byte load per block, then a transpose. */
static inline __attribute__((always_inline)) void load16(v16 w[16], const uint8_t *const *p)
{
    for (int l = 0; l < 16; l++) w[l] = p[l] ? _mm512_loadu_si512(p[l]) : _mm512_setzero_si512();
    transpose16(w);
    for (int j = 0; j < 16; j++) w[j] = bswap32(w[j]);
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
 * SHA256d when dbl). Lanes >= k are neither read nor written. Every load
 * precedes every store (in-place safe). */
static void hash16(uint8_t *out, const uint8_t *in, unsigned k, int dbl)
{
    v16 w[64], s[8];
    const __mmask16 m = (__mmask16)(k >= 16 ? 0xFFFF : (1u << k) - 1);
    const v16 idx_out = lane_index(8);
    const uint8_t *p[16];
    for (unsigned l = 0; l < 16; l++) p[l] = l < k ? in + 64 * l : NULL;
    load16(w, p);
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

/* Full groups of 16 on the lanes; a short remainder (or a short batch,
 * like the single-pair calls of tree code) goes to `small` when given
 * (SHA-NI two at a time: below 8 messages that beats a mostly idle 16-lane
 * step), else to one masked 16-lane step. */
static void hash_many(uint8_t *out, const uint8_t *in, size_t n, int dbl,
                      void (*small)(uint8_t *, const uint8_t *, size_t))
{
    for (; n >= 16; n -= 16, in += 64 * 16, out += 32 * 16) hash16(out, in, 16, dbl);
    if (!n) return;
    if (small && n < 8) small(out, in, n);
    else hash16(out, in, (unsigned)n, dbl);
}

static void hash_64(uint8_t *out, const uint8_t *in, size_t n) { hash_many(out, in, n, 0, NULL); }
static void hashd_64(uint8_t *out, const uint8_t *in, size_t n) { hash_many(out, in, n, 1, NULL); }
static void hash_64_shani(uint8_t *out, const uint8_t *in, size_t n)
{
    hash_many(out, in, n, 0, bk_sha256_backend_shani.hash_64);
}
static void hashd_64_shani(uint8_t *out, const uint8_t *in, size_t n)
{
    hash_many(out, in, n, 1, bk_sha256_backend_shani.hashd_64);
}

/* Sixteen messages in flight, states in registers. A lane whose hash
 * finishes is refilled (second hash, or the next message) and its state
 * reset to the IV with a masked move. Once the messages run out and no more
 * than drain_at lanes are busy (a long message among short ones keeps one
 * lane busy while the others idle), the rest is finished with SHA-NI two at
 * a time (a 16-lane step costs about as much as 12 SHA-NI compressions
 * here), or one stream each with compress1. */
static void hashd_msgs16(uint8_t *out, const bk_sha256_msg *msgs, size_t n,
                         void (*compress1)(uint32_t s[8], const uint8_t *blocks, size_t nblocks),
                         int shani, unsigned drain_at)
{
    bk_lane L[16];
    const uint8_t *blk[16];
    uint32_t tmp[8][16];
    v16 w[64], s[8];
    size_t next = 0;
    unsigned active = 0;
    for (int l = 0; l < 16; l++) {
        blk[l] = NULL;
        if (next < n) {
            bk_lane_start(&L[l], &msgs[next], out + 32 * next);
            next++;
            blk[l] = bk_lane_block(&L[l]);
            active++;
        }
    }
    for (int j = 0; j < 8; j++) s[j] = _mm512_set1_epi32((int)bk_sha256_iv[j]);
    while (active > drain_at) {
        load16(w, blk);
        schedule(w);
        rounds_w(s, w);
        __mmask16 reset = 0;
        int stored = 0;
        for (int l = 0; l < 16; l++) {
            if (!blk[l]) continue;
            const uint8_t *p = bk_lane_block(&L[l]);
            if (!p) {
                uint32_t st[8];
                if (!stored) {
                    for (int j = 0; j < 8; j++) _mm512_storeu_si512(tmp[j], s[j]);
                    stored = 1;
                }
                for (int j = 0; j < 8; j++) st[j] = tmp[j][l];
                p = bk_lane_hash_done(&L[l], st);
                if (!p && next < n) {
                    bk_lane_start(&L[l], &msgs[next], out + 32 * next);
                    next++;
                    p = bk_lane_block(&L[l]);
                }
                reset |= (__mmask16)(1u << l);
                if (!p) active--;
            }
            blk[l] = p;
        }
        if (reset)
            for (int j = 0; j < 8; j++)
                s[j] = _mm512_mask_mov_epi32(s[j], reset, _mm512_set1_epi32((int)bk_sha256_iv[j]));
    }
    if (active == 0) return;
    /* The lanes left (no messages remain): SHA-NI two at a time, else one
     * stream each with compress1. */
    bk_lane *left[16];
    uint32_t st[16][8];
    const uint8_t *lb[16];
    size_t k = 0;
    for (int j = 0; j < 8; j++) _mm512_storeu_si512(tmp[j], s[j]);
    for (int l = 0; l < 16; l++) {
        if (!blk[l]) continue;
        left[k] = &L[l];
        for (int j = 0; j < 8; j++) st[k][j] = tmp[j][l];
        lb[k++] = blk[l];
    }
    if (shani) {
        bk_sha256_shani_finish_lanes(left, st, lb, k);
        return;
    }
    for (size_t i = 0; i < k; i++) {
        const uint8_t *p = lb[i];
        while (p) {
            compress1(st[i], p, 1);
            p = bk_lane_block(left[i]);
            if (!p) {
                p = bk_lane_hash_done(left[i], st[i]);
                memcpy(st[i], bk_sha256_iv, 32);
            }
        }
    }
}

static void hashd_msgs_portable(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    hashd_msgs16(out, msgs, n, bk_sha256_compress_portable, 0, 1);
}

static void hashd_msgs_shani(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    /* Few messages: SHA-NI two at a time beats 16 mostly idle lanes. */
    if (n < 8) {
        bk_sha256_backend_shani.hashd_msgs(out, msgs, n);
        return;
    }
    hashd_msgs16(out, msgs, n, bk_sha256_compress_shani, 1, 12);
}

const bk_sha256_impl bk_sha256_backend_avx512 = {
    "avx512", bk_sha256_compress_portable, hash_64, hashd_64, hashd_msgs_portable,
};

/* The same with SHA-NI for single-stream work and short batches; the
 * dispatcher hands this one out only when the CPU has both AVX-512 and
 * SHA-NI. */
const bk_sha256_impl bk_sha256_backend_avx512_shani = {
    "avx512", bk_sha256_compress_shani, hash_64_shani, hashd_64_shani, hashd_msgs_shani,
};

#else
/* Not x86-64: nothing to build (ISO C wants a declaration per file). */
typedef int bk_sha256_avx512_not_built;
#endif /* __x86_64__ */
