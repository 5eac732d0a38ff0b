/* SHA-256 16-way with AVX-512 (compiled with -mavx512f -mavx512bw; reached
 * only through sha256_dispatch.c after CPUID says AVX512F and AVX512BW and
 * XCR0 says the OS saves the opmask and ZMM state).
 *
 * Sixteen independent messages per group, one per 32-bit lane; native
 * rotates (vprord) and three-input logic (vpternlogd) make a round 16
 * instructions. One group's round is a dependency chain of about five
 * operations while a zmm unit retires two (Intel) to four (AMD Zen5) per
 * cycle, so the batch kernels keep two independent groups (32 messages) in
 * flight, their rounds interleaved instruction by instruction. The padding
 * block of a 64-byte message is compressed from its precomputed W+K; the
 * second hash of SHA256d skips the schedule terms its constant words make
 * zero or constant. Messages are loaded with one 64-byte load each and a
 * 16x16 transpose; digests leave with a 16-operation unpack and eight
 * two-source permutes (lane 4k+m holds message 4m+k, so each permute yields
 * the 64 contiguous bytes of two consecutive digests). Single-stream work
 * (streaming, one-shot) and short 64-byte batches and remainders (below the
 * crossovers bk_sha256_avx512_small, measured by the calibration) use SHA-NI
 * when the CPU has it (else the portable kernel, and masked lanes). */
#if defined(__x86_64__)

#include "sha256_lane.h"

#include <immintrin.h>
#include <string.h>

typedef __m512i v16;

#define BK_INLINE static inline __attribute__((always_inline))

#define ADD(a, b) _mm512_add_epi32(a, b)
#define ROR(x, n) _mm512_ror_epi32(x, n)
#define XOR3(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0x96)
#define CH(e, f, g) _mm512_ternarylogic_epi32(e, f, g, 0xCA)   /* e ? f : g */
#define MAJ(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0xE8)  /* majority */
#define BS0(x) XOR3(ROR(x, 2), ROR(x, 13), ROR(x, 22))
#define BS1(x) XOR3(ROR(x, 6), ROR(x, 11), ROR(x, 25))
#define SS0(x) XOR3(ROR(x, 7), ROR(x, 18), _mm512_srli_epi32(x, 3))
#define SS1(x) XOR3(ROR(x, 17), ROR(x, 19), _mm512_srli_epi32(x, 10))
#define SET1(c) _mm512_set1_epi32((int)(c))

/* Loop shape of the 64 rounds: eight iterations of eight rounds (the
 * default: the code stays in the micro-op cache), or BK_SHA256_UNROLL for
 * straight-line code. */
#define BK_PRAGMA_(x) _Pragma(#x)
#if defined(BK_SHA256_UNROLL)
#define BK_ROUND_LOOP BK_PRAGMA_(GCC unroll 8)
#else
#define BK_ROUND_LOOP BK_PRAGMA_(GCC unroll 1)
#endif

/* Scalar versions for constants folded at compile time. */
#define CROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define CSS0(x) (CROR(x, 7) ^ CROR(x, 18) ^ ((x) >> 3))
#define CSS1(x) (CROR(x, 17) ^ CROR(x, 19) ^ ((x) >> 10))

/* One round; only d and h are written (the caller renames the rest).
 * The sums are ordered for latency: h + W + K is ready rounds ahead, Ch(e)
 * (one operation) is added before Sigma1(e) (four, two of them dependent),
 * and Maj(a) before Sigma0(a), so the chain from e to the next e is
 * Sigma1 and two adds and the one from a to the next a Sigma0 and one add.
 * Same operation count as the older order (h + W + K + Sigma1 + Ch, then
 * + d; t1 + (Sigma0 + Maj)); on AMD Zen5, where a zmm operation takes two
 * cycles, SHA256d-64 ran 3-4% faster with it in a harness interleaving the
 * two builds of this file (9.08-9.15 vs 9.42-9.53 ns per compression), the
 * other kernels the same; the bench rows, which move 2-3% between runs,
 * show no difference either way. */
#define ROUND(a, b, c, d, e, f, g, h, wk) do {                 \
        v16 t1_ = ADD(ADD(ADD(h, wk), CH(e, f, g)), BS1(e));   \
        d = ADD(d, t1_);                                       \
        h = ADD(ADD(t1_, MAJ(a, b, c)), BS0(a));               \
    } while (0)

/* The same round in two groups (x, y), interleaved. */
#define ROUND2(i, WX, WY) do {                                                 \
        ROUND(xa, xb, xc, xd, xe, xf, xg, xh, WX(i));                          \
        ROUND(ya, yb, yc, yd, ye, yf, yg, yh, WY(i));                          \
    } while (0)
#define ROT2_(a, b, c, d, e, f, g, h, wkx, wky) do {                           \
        ROUND(x##a, x##b, x##c, x##d, x##e, x##f, x##g, x##h, wkx);            \
        ROUND(y##a, y##b, y##c, y##d, y##e, y##f, y##g, y##h, wky);            \
    } while (0)
#define ROUNDS8_2(WX, WY, i)                                   \
    ROT2_(a, b, c, d, e, f, g, h, WX(i), WY(i));               \
    ROT2_(h, a, b, c, d, e, f, g, WX(i + 1), WY(i + 1));       \
    ROT2_(g, h, a, b, c, d, e, f, WX(i + 2), WY(i + 2));       \
    ROT2_(f, g, h, a, b, c, d, e, WX(i + 3), WY(i + 3));       \
    ROT2_(e, f, g, h, a, b, c, d, WX(i + 4), WY(i + 4));       \
    ROT2_(d, e, f, g, h, a, b, c, WX(i + 5), WY(i + 5));       \
    ROT2_(c, d, e, f, g, h, a, b, WX(i + 6), WY(i + 6));       \
    ROT2_(b, c, d, e, f, g, h, a, WX(i + 7), WY(i + 7))

/* Rounds i+1 .. i+7 of an eight-round block (round i done by the caller). */
#define ROUNDS7_2(WX, WY, i)                                   \
    ROT2_(h, a, b, c, d, e, f, g, WX(i + 1), WY(i + 1));       \
    ROT2_(g, h, a, b, c, d, e, f, WX(i + 2), WY(i + 2));       \
    ROT2_(f, g, h, a, b, c, d, e, WX(i + 3), WY(i + 3));       \
    ROT2_(e, f, g, h, a, b, c, d, WX(i + 4), WY(i + 4));       \
    ROT2_(d, e, f, g, h, a, b, c, WX(i + 5), WY(i + 5));       \
    ROT2_(c, d, e, f, g, h, a, b, WX(i + 6), WY(i + 6));       \
    ROT2_(b, c, d, e, f, g, h, a, WX(i + 7), WY(i + 7))

/* Round 0 from the IV is constant but for W[0]: d and h become W[0] plus
 * a constant (15 of its 17 instructions folded away). */
#define CBS0(x) (CROR(x, 2) ^ CROR(x, 13) ^ CROR(x, 22))
#define CBS1(x) (CROR(x, 6) ^ CROR(x, 11) ^ CROR(x, 25))
#define CCH(e, f, g) (((e) & (f)) ^ (~(e) & (g)))
#define CMAJ(a, b, c) (((a) & (b)) ^ ((a) & (c)) ^ ((b) & (c)))
#define IV_T1 ((uint32_t)(0x5be0cd19u + CBS1(0x510e527fu) + CCH(0x510e527fu, 0x9b05688cu, 0x1f83d9abu) + 0x428a2f98u))
#define IV_T2 ((uint32_t)(CBS0(0x6a09e667u) + CMAJ(0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u)))
#define IV_D1 ((uint32_t)(0xa54ff53au + IV_T1))
#define IV_H1 ((uint32_t)(IV_T1 + IV_T2))
#define ROUND0_IV2(wx0, wy0) do {                                              \
        xd = ADD(wx0, SET1(IV_D1)); xh = ADD(wx0, SET1(IV_H1));                \
        yd = ADD(wy0, SET1(IV_D1)); yh = ADD(wy0, SET1(IV_H1));                \
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

BK_INLINE v16 bswap32(v16 x)
{
    const v16 mask = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
    return _mm512_shuffle_epi8(x, mask);
}

/* 16x16 transpose of 32-bit words: r[l] word j -> r[j] lane l. */
BK_INLINE void transpose16(v16 r[16])
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
BK_INLINE void load16(v16 w[16], const uint8_t *const *p)
{
    for (int l = 0; l < 16; l++) w[l] = p[l] ? bswap32(_mm512_loadu_si512(p[l])) : _mm512_setzero_si512();
    transpose16(w);
}

/* Lane 4k+m of a contiguous group holds message 4m+k (see store16). */
#define PERM(l) (4 * ((l) & 3) + ((l) >> 2))

/* The k (1..16) contiguous 64-byte messages at in, permuted into lanes;
 * lanes of absent messages read a zero block. */
BK_INLINE void load16_contig(v16 w[16], const uint8_t *in, unsigned k)
{
    static const uint8_t zero[64];
    const uint8_t *p[16];
    for (unsigned l = 0; l < 16; l++) p[l] = PERM(l) < k ? in + 64 * PERM(l) : zero;
    load16(w, p);
}

/* The digests of state s (lanes permuted as load16_contig) to
 * out[32*i..] for the first k messages. */
BK_INLINE void store16(uint8_t *out, const v16 s[8], unsigned k)
{
    v16 b[8], t[8], u[4], v[4];
    for (int j = 0; j < 8; j++) b[j] = bswap32(s[j]);
    for (int j = 0; j < 8; j += 2) {
        t[j] = _mm512_unpacklo_epi32(b[j], b[j + 1]);
        t[j + 1] = _mm512_unpackhi_epi32(b[j], b[j + 1]);
    }
    /* u[m] / v[m], 128-bit block k: words 0..3 / 4..7 of lane 4k+m, i.e.
     * of message 4m+k. */
    u[0] = _mm512_unpacklo_epi64(t[0], t[2]);
    u[1] = _mm512_unpackhi_epi64(t[0], t[2]);
    u[2] = _mm512_unpacklo_epi64(t[1], t[3]);
    u[3] = _mm512_unpackhi_epi64(t[1], t[3]);
    v[0] = _mm512_unpacklo_epi64(t[4], t[6]);
    v[1] = _mm512_unpackhi_epi64(t[4], t[6]);
    v[2] = _mm512_unpacklo_epi64(t[5], t[7]);
    v[3] = _mm512_unpackhi_epi64(t[5], t[7]);
    const v16 lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    const v16 hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    for (unsigned m = 0; m < 4; m++) {
        v16 d0 = _mm512_permutex2var_epi64(u[m], lo, v[m]);  /* messages 4m, 4m+1 */
        v16 d1 = _mm512_permutex2var_epi64(u[m], hi, v[m]);  /* messages 4m+2, 4m+3 */
        if (k >= 16) {
            _mm512_storeu_si512(out + 128 * m, d0);
            _mm512_storeu_si512(out + 128 * m + 64, d1);
        } else {
            unsigned q = 4 * m;
            __mmask16 m0 = (__mmask16)((q < k ? 0xFFu : 0) | (q + 1 < k ? 0xFF00u : 0));
            __mmask16 m1 = (__mmask16)((q + 2 < k ? 0xFFu : 0) | (q + 3 < k ? 0xFF00u : 0));
            _mm512_mask_storeu_epi32(out + 128 * m, m0, d0);
            _mm512_mask_storeu_epi32(out + 128 * m + 64, m1, d1);
        }
    }
}

/* Unrolling of the schedule loops: 24 words per iteration keeps the
 * sliding window of W in registers (a rolled loop reloads it from the
 * stack every word); measured on Emerald Rapids, 1024 nodes per call:
 * SHA256d-64 50.2 -> 48.0 ns per node with gcc 12, 49.5 -> 47.0 with
 * clang 14; 48 (full) is 0-2% slower than 24, 16 and 12 1-2%. */
#define BK_SCHED_LOOP BK_PRAGMA_(GCC unroll 24)

/* FIPS 180-4 6.2.2 step 1: W[16..63]. */
BK_INLINE void schedule(v16 w[64])
{
    BK_SCHED_LOOP
    for (int i = 16; i < 64; i++) w[i] = ADD(ADD(SS1(w[i - 2]), w[i - 7]), ADD(SS0(w[i - 15]), w[i - 16]));
}

/* W[j..j+7] (j >= 16) from the words before them: the two-group kernels
 * compute their schedule in pieces of eight inside the round loops, eight
 * to sixteen rounds ahead of use, so its independent work fills the gaps
 * of the rounds' dependency chains where a zmm operation takes two cycles
 * (AMD Zen5, bench rows of bc9e596 against its parent, alternated:
 * SHA256D64/auto 26.8-27.5 vs 30.8-32.0 ns a node, MerkleRoot 28.6-29.0 vs
 * 31.8-34.1 ns a leaf; the 64-byte and message rows within their spread).
 * An earlier session measured it the same as a pass before the rounds on
 * Emerald Rapids; on Intel model 167 the pass is faster (SCHED_PASS). */
BK_INLINE void sched8(v16 w[64], int j)
{
    for (int i = j; i < j + 8; i++) w[i] = ADD(ADD(SS1(w[i - 2]), w[i - 7]), ADD(SS0(w[i - 15]), w[i - 16]));
}

/* The message driver's schedule (one compression per step, 1024
 * txid-shaped messages): unrolled with clang (340 vs 348 ns per message
 * rolled), rolled with gcc (351 vs 363 unrolled). */
BK_INLINE void schedule_msg(v16 w[64])
{
#if defined(__clang__)
    BK_SCHED_LOOP
#else
    BK_PRAGMA_(GCC unroll 1)
#endif
    for (int i = 16; i < 64; i++) w[i] = ADD(ADD(SS1(w[i - 2]), w[i - 7]), ADD(SS0(w[i - 15]), w[i - 16]));
}

/* The schedule of SHA256d's second block, words 16..31 (32..63 are
 * regular and come inside the rounds, rounds2_d): w[0..7] the digest,
 * then the constants 0x80000000, 0 x 6, 256; terms with a zero word are
 * dropped and sigmas of constant words folded. w[8..15] are not read or
 * written. */
#define P8 0x80000000u
#define P15 256u
BK_INLINE void schedule_d(v16 w[64])
{
    w[16] = ADD(SS0(w[1]), w[0]);
    w[17] = ADD(ADD(SS0(w[2]), w[1]), SET1(CSS1(P15)));
    w[18] = ADD(ADD(SS1(w[16]), w[2]), SS0(w[3]));
    w[19] = ADD(ADD(SS1(w[17]), w[3]), SS0(w[4]));
    w[20] = ADD(ADD(SS1(w[18]), w[4]), SS0(w[5]));
    w[21] = ADD(ADD(SS1(w[19]), w[5]), SS0(w[6]));
    w[22] = ADD(ADD(SS1(w[20]), w[6]), ADD(SS0(w[7]), SET1(P15)));
    w[23] = ADD(ADD(SS1(w[21]), w[7]), ADD(w[16], SET1(CSS0(P8))));
    w[24] = ADD(ADD(SS1(w[22]), w[17]), SET1(P8));
    BK_SCHED_LOOP
    for (int i = 25; i < 30; i++) w[i] = ADD(SS1(w[i - 2]), w[i - 7]);
    w[30] = ADD(ADD(SS1(w[28]), w[23]), SET1(CSS0(P15)));
    w[31] = ADD(ADD(SS1(w[29]), w[24]), ADD(SS0(w[16]), SET1(P15)));
}

/* Two groups' states, as named locals so they stay in registers. */
#define DECL2(sx, sy)                                                                  \
    v16 xa = sx[0], xb = sx[1], xc = sx[2], xd = sx[3], xe = sx[4], xf = sx[5], xg = sx[6], \
        xh = sx[7];                                                                    \
    v16 ya = sy[0], yb = sy[1], yc = sy[2], yd = sy[3], ye = sy[4], yf = sy[5], yg = sy[6], \
        yh = sy[7]
#define FEED2(sx, sy) do {                                                             \
        sx[0] = ADD(sx[0], xa); sx[1] = ADD(sx[1], xb); sx[2] = ADD(sx[2], xc);        \
        sx[3] = ADD(sx[3], xd); sx[4] = ADD(sx[4], xe); sx[5] = ADD(sx[5], xf);        \
        sx[6] = ADD(sx[6], xg); sx[7] = ADD(sx[7], xh);                                \
        sy[0] = ADD(sy[0], ya); sy[1] = ADD(sy[1], yb); sy[2] = ADD(sy[2], yc);        \
        sy[3] = ADD(sy[3], yd); sy[4] = ADD(sy[4], ye); sy[5] = ADD(sy[5], yf);        \
        sy[6] = ADD(sy[6], yg); sy[7] = ADD(sy[7], yh);                                \
    } while (0)

/* Where the two-group kernels compute their message schedule, a choice
 * per CPU that the calibration makes by measuring both (backends "avx512"
 * and "avx512/pass"):
 *   SCHED_IN    in pieces of eight inside the round loops (sched8), eight
 *               to sixteen rounds ahead of use; the message driver's rounds
 *               in eight-round loops. Faster where a zmm operation takes
 *               two cycles (AMD Zen5: see sched8).
 *   SCHED_PASS  a pass before the rounds; the message driver's rounds as
 *               straight-line code. Faster on Intel (model 167, 2.6 GHz,
 *               bench rows of 5745945 against e67df40, alternated:
 *               SHA256D64/auto 33.6-33.7 vs 35.0-35.8 ns a node, MerkleRoot
 *               34.7-35.6 vs 35.9-36.5 ns a leaf, SHA256DMsgs/auto
 *               215-221 vs 226-231 ns a message).
 * The one-group kernels (remainders, the driver's odd steps) always take
 * the schedule as a pass. */
enum { SCHED_IN = 0, SCHED_PASS = 1 };

/* 64 rounds in two groups over their message words w[0..15] (the message
 * driver's step), W + K added here. */
BK_INLINE void rounds2_w(v16 sx[8], v16 wx[64], v16 sy[8], v16 wy[64], int pass)
{
    DECL2(sx, sy);
#define WX_(i) ADD(wx[i], SET1(bk_sha256_k[i]))
#define WY_(i) ADD(wy[i], SET1(bk_sha256_k[i]))
    if (pass) {
        schedule_msg(wx);
        schedule_msg(wy);
        BK_PRAGMA_(GCC unroll 8)
        for (int i = 0; i < 64; i += 8) {
            ROUNDS8_2(WX_, WY_, i);
        }
    } else {
        /* Straight-line code was 3% faster on Emerald Rapids; on AMD Zen5,
         * whose steps here alternate with the lanes' scalar bookkeeping,
         * the loop is faster: SHA256DMsgs/avx512 184 ns a message against
         * 224-236 in the runs before it (that row forces avx512; the
         * calibration, changed in the same commit 72f01d8, sets only the
         * stream count of its SHA-NI tail). */
        sched8(wx, 16);
        sched8(wy, 16);
        BK_ROUND_LOOP
        for (int i = 0; i < 64; i += 8) {
            if (i + 24 < 64) {
                sched8(wx, i + 24);
                sched8(wy, i + 24);
            }
            ROUNDS8_2(WX_, WY_, i);
        }
    }
#undef WX_
#undef WY_
    FEED2(sx, sy);
}

/* 64 rounds in two groups from the IV (sx, sy hold it) over their message
 * words: round 0 folded, then eight-round loops. */
BK_INLINE void rounds2_w_iv(v16 sx[8], v16 wx[64], v16 sy[8], v16 wy[64], int pass)
{
    DECL2(sx, sy);
#define WX_(i) ADD(wx[i], SET1(bk_sha256_k[i]))
#define WY_(i) ADD(wy[i], SET1(bk_sha256_k[i]))
    if (pass) {
        schedule(wx);
        schedule(wy);
    } else {
        sched8(wx, 16);
        sched8(wy, 16);
    }
    ROUND0_IV2(wx[0], wy[0]);
    ROUNDS7_2(WX_, WY_, 0);
    BK_ROUND_LOOP
    for (int i = 8; i < 64; i += 8) {
        if (!pass && i + 16 < 64) {
            sched8(wx, i + 16);
            sched8(wy, i + 16);
        }
        ROUNDS8_2(WX_, WY_, i);
    }
#undef WX_
#undef WY_
    FEED2(sx, sy);
}

/* 64 rounds in two groups over one constant W + K table (the padding block
 * of a 64-byte message). */
BK_INLINE void rounds2_c(v16 sx[8], v16 sy[8], const uint32_t *wk)
{
    DECL2(sx, sy);
#define C_(i) SET1(wk[i])
    BK_ROUND_LOOP
    for (int i = 0; i < 64; i += 8) {
        ROUNDS8_2(C_, C_, i);
    }
#undef C_
    FEED2(sx, sy);
}

/* SHA256d's second block: rounds 8..15 have constant words. */
static const uint32_t dpad_wk[8] = {
    0x80000000u + 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u,
    0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 256u + 0xc19bf174u,
};

/* From the IV (sx, sy hold it); w[16..31] from schedule_d, w[32..63]
 * before the rounds or inside them (pass). */
BK_INLINE void rounds2_d(v16 sx[8], v16 wx[64], v16 sy[8], v16 wy[64], int pass)
{
    DECL2(sx, sy);
#define WX_(i) ADD(wx[i], SET1(bk_sha256_k[i]))
#define WY_(i) ADD(wy[i], SET1(bk_sha256_k[i]))
#define D_(i) SET1(dpad_wk[(i) - 8])
    if (pass) {
        for (int j = 32; j < 64; j += 8) {
            sched8(wx, j);
            sched8(wy, j);
        }
    }
    ROUND0_IV2(wx[0], wy[0]);
    ROUNDS7_2(WX_, WY_, 0);
    ROUNDS8_2(D_, D_, 8);
    BK_ROUND_LOOP
    for (int i = 16; i < 64; i += 8) {
        if (!pass && i + 16 < 64) {
            sched8(wx, i + 16);
            sched8(wy, i + 16);
        }
        ROUNDS8_2(WX_, WY_, i);
    }
#undef WX_
#undef WY_
#undef D_
    FEED2(sx, sy);
}

/* One group (the tail of a batch and the message driver's odd steps). */
BK_INLINE void rounds1_w(v16 s[8], const v16 w[64])
{
    v16 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#define WK_(i) ADD(w[i], SET1(bk_sha256_k[i]))
    BK_ROUND_LOOP
    for (int i = 0; i < 64; i += 8) {
        ROUNDS8(WK_, i);
    }
#undef WK_
    s[0] = ADD(s[0], a); s[1] = ADD(s[1], b); s[2] = ADD(s[2], c); s[3] = ADD(s[3], d);
    s[4] = ADD(s[4], e); s[5] = ADD(s[5], f); s[6] = ADD(s[6], g); s[7] = ADD(s[7], h);
}

BK_INLINE void state_iv(v16 s[8])
{
    for (int j = 0; j < 8; j++) s[j] = SET1(bk_sha256_iv[j]);
}

/* One group's versions of the 64-byte kernels' rounds (a remainder of 16
 * or fewer messages: the second group would only hash zero blocks). */
#define FEED1(s) do {                                                                    \
        s[0] = ADD(s[0], a); s[1] = ADD(s[1], b); s[2] = ADD(s[2], c); s[3] = ADD(s[3], d); \
        s[4] = ADD(s[4], e); s[5] = ADD(s[5], f); s[6] = ADD(s[6], g); s[7] = ADD(s[7], h); \
    } while (0)
#define ROUNDS7(W, i)                              \
    ROUND(h, a, b, c, d, e, f, g, W(i + 1));       \
    ROUND(g, h, a, b, c, d, e, f, W(i + 2));       \
    ROUND(f, g, h, a, b, c, d, e, W(i + 3));       \
    ROUND(e, f, g, h, a, b, c, d, W(i + 4));       \
    ROUND(d, e, f, g, h, a, b, c, W(i + 5));       \
    ROUND(c, d, e, f, g, h, a, b, W(i + 6));       \
    ROUND(b, c, d, e, f, g, h, a, W(i + 7))

/* From the IV (s holds it), round 0 folded; dpad: rounds 8..15 over the
 * constant words of SHA256d's second block. */
BK_INLINE void rounds1_iv(v16 s[8], const v16 w[64], int dpad)
{
    v16 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#define WK_(i) ADD(w[i], SET1(bk_sha256_k[i]))
#define D_(i) SET1(dpad_wk[(i) - 8])
    d = ADD(w[0], SET1(IV_D1));
    h = ADD(w[0], SET1(IV_H1));
    ROUNDS7(WK_, 0);
    if (dpad) {
        ROUNDS8(D_, 8);
    } else {
        ROUNDS8(WK_, 8);
    }
    BK_ROUND_LOOP
    for (int i = 16; i < 64; i += 8) {
        ROUNDS8(WK_, i);
    }
#undef WK_
#undef D_
    FEED1(s);
}

BK_INLINE void rounds1_c(v16 s[8], const uint32_t *wk)
{
    v16 a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#define C_(i) SET1(wk[i])
    BK_ROUND_LOOP
    for (int i = 0; i < 64; i += 8) {
        ROUNDS8(C_, i);
    }
#undef C_
    FEED1(s);
}

/* The second block of SHA256d from the first hash's state s. */
BK_INLINE void digest_block(v16 w[64], const v16 s[8])
{
    for (int j = 0; j < 8; j++) w[j] = s[j];
}

/* kx (1..16) and ky (1..16) contiguous 64-byte messages: group x at in,
 * group y at in + 64*16; digests likewise. Every load precedes every store
 * (in-place safe: digest i lies at or below message i). One function per
 * schedule placement (pass: SCHED_IN or SCHED_PASS). */
BK_INLINE void hash32_t(uint8_t *out, const uint8_t *in, unsigned kx, unsigned ky, int dbl, int pass)
{
    v16 wx[64], wy[64], sx[8], sy[8];
    load16_contig(wx, in, kx);
    load16_contig(wy, in + 64 * 16, ky);
    state_iv(sx);
    state_iv(sy);
    rounds2_w_iv(sx, wx, sy, wy, pass);
    rounds2_c(sx, sy, bk_sha256_pad64_wk);
    if (dbl) {
        digest_block(wx, sx);
        digest_block(wy, sy);
        schedule_d(wx);
        schedule_d(wy);
        state_iv(sx);
        state_iv(sy);
        rounds2_d(sx, wx, sy, wy, pass);
    }
    store16(out, sx, kx);
    store16(out + 32 * 16, sy, ky);
}

static __attribute__((noinline)) void hash32_in(uint8_t *out, const uint8_t *in, unsigned kx, unsigned ky,
                                                int dbl)
{
    hash32_t(out, in, kx, ky, dbl, SCHED_IN);
}

static __attribute__((noinline)) void hash32_pass(uint8_t *out, const uint8_t *in, unsigned kx,
                                                  unsigned ky, int dbl)
{
    hash32_t(out, in, kx, ky, dbl, SCHED_PASS);
}

/* k (1..16) contiguous 64-byte messages on one group (loads before
 * stores, as hash32). */
static void hash16(uint8_t *out, const uint8_t *in, unsigned k, int dbl)
{
    v16 w[64], s[8];
    load16_contig(w, in, k);
    schedule(w);
    state_iv(s);
    rounds1_iv(s, w, 0);
    rounds1_c(s, bk_sha256_pad64_wk);
    if (dbl) {
        digest_block(w, s);
        schedule_d(w);
        /* One group's rounds take the whole schedule before them. */
        for (int j = 32; j < 64; j += 8) sched8(w, j);
        state_iv(s);
        rounds1_iv(s, w, 1);
    }
    store16(out, s, k);
}

/* Full steps of 32 on two groups; a remainder of 17..31 on a two-group
 * step, of 16 or fewer on one group. When `small` (SHA-NI streams) is
 * given, a remainder under bk_sha256_avx512_small[0] goes to it, and one
 * of 17..31 with fewer than bk_sha256_avx512_small[1] past 16 to one group
 * plus SHA-NI: that beats a mostly idle 16-lane step or a half idle
 * two-group step (the calibration measures where; on Emerald Rapids 8 and
 * 7: SHA256d-64, ns per node with/without the split at 17 nodes 59 vs 90,
 * at 20 64 vs 76, at 22 68 vs 69, at 23 71 vs 67). */
_Atomic unsigned bk_sha256_avx512_small[2] = {8, 7};

BK_INLINE void hash_many(uint8_t *out, const uint8_t *in, size_t n, int dbl,
                         void (*small)(uint8_t *, const uint8_t *, size_t), int pass)
{
    void (*h32)(uint8_t *, const uint8_t *, unsigned, unsigned, int) = pass ? hash32_pass : hash32_in;
    for (; n >= 32; n -= 32, in += 64 * 32, out += 32 * 32) h32(out, in, 16, 16, dbl);
    if (!n) return;
    unsigned below = small ? atomic_load_explicit(&bk_sha256_avx512_small[0], memory_order_relaxed) : 0;
    unsigned split = small ? atomic_load_explicit(&bk_sha256_avx512_small[1], memory_order_relaxed) : 0;
    if (n < below) {
        small(out, in, n);
    } else if (n > 16 && n - 16 < split) {
        /* One group and a few SHA-NI streams beat a half idle two-group
         * step. Digests 16.. go below their inputs (disjoint buffers). */
        hash16(out, in, 16, dbl);
        small(out + 32 * 16, in + 64 * 16, n - 16);
    } else if (n > 16) {
        h32(out, in, 16, (unsigned)n - 16, dbl);
    } else {
        hash16(out, in, (unsigned)n, dbl);
    }
}

/* The entry points: {SHA256, SHA256d} x {without, with SHA-NI for short
 * batches} x {SCHED_IN, SCHED_PASS}. */
#define BK_HASH_ENTRIES(sfx, pass)                                                    \
    static void hash_64##sfx(uint8_t *out, const uint8_t *in, size_t n)                \
    {                                                                                  \
        hash_many(out, in, n, 0, NULL, pass);                                          \
    }                                                                                  \
    static void hashd_64##sfx(uint8_t *out, const uint8_t *in, size_t n)               \
    {                                                                                  \
        hash_many(out, in, n, 1, NULL, pass);                                          \
    }                                                                                  \
    static void hash_64_shani##sfx(uint8_t *out, const uint8_t *in, size_t n)          \
    {                                                                                  \
        hash_many(out, in, n, 0, bk_sha256_shani_small_64, pass);                      \
    }                                                                                  \
    static void hashd_64_shani##sfx(uint8_t *out, const uint8_t *in, size_t n)         \
    {                                                                                  \
        hash_many(out, in, n, 1, bk_sha256_shani_small_d64, pass);                     \
    }
BK_HASH_ENTRIES(, SCHED_IN)
BK_HASH_ENTRIES(_pass, SCHED_PASS)

/* ---- segmented messages: 32 lanes in two groups ---- */

typedef struct mdrv {
    const bk_sha256_msg *msgs;
    size_t n, left;           /* messages, and how many are not started */
    size_t pos[2];            /* scan positions of the two passes (next_msg) */
    uint64_t thresh;          /* "long": more bytes than this */
    uint8_t *out;
    bk_lane L[32];
    const uint8_t *blk[32];   /* the lane's next block, NULL = idle */
    unsigned active[2];       /* busy lanes per group */
    /* Lanes whose next block is their second hash, built in registers from
     * the first hash's state words dig (no round trip through memory). */
    __mmask16 pend2[2];
    v16 dig[2][8];
} mdrv;

static uint64_t msg_len(const bk_sha256_msg *m)
{
    uint64_t len = 0;
    for (size_t i = 0; i < m->nsegs; i++) len += m->segs[i].len;
    return len;
}

/* The next message to start: first the long ones (more than twice the
 * mean length), then the rest, each pass in order. A long message started
 * last would keep one lane busy while the other 31 idle; started first it
 * runs alongside the short ones. Digests go to their own slots, so the
 * order is free. */
static void msgs_begin(mdrv *d)
{
    uint64_t total = 0;
    for (size_t i = 0; i < d->n; i++) total += msg_len(&d->msgs[i]);
    d->thresh = d->n ? 2 * (total / d->n) : 0;
    d->pos[0] = d->pos[1] = 0;
    d->left = d->n;
}

static int next_msg(mdrv *d, bk_lane *l)
{
    size_t i = d->n;
    while (d->pos[0] < d->n) {
        size_t j = d->pos[0]++;
        if (msg_len(&d->msgs[j]) > d->thresh) {
            i = j;
            break;
        }
    }
    while (i == d->n && d->pos[1] < d->n) {
        size_t j = d->pos[1]++;
        if (msg_len(&d->msgs[j]) <= d->thresh) i = j;
    }
    if (i == d->n) return 0;
    bk_lane_start(l, &d->msgs[i], d->out + 32 * i);
    d->left--;
    return 1;
}

/* Lane l's state words out of the group state s. */
BK_INLINE void lane_state(const v16 s[8], unsigned l, uint32_t st[8])
{
    uint32_t tmp[8][16];
    for (int j = 0; j < 8; j++) _mm512_storeu_si512(tmp[j], s[j]);
    for (int j = 0; j < 8; j++) st[j] = tmp[j][l];
}

/* After a step of group g (lanes 16g..16g+15, state s): hand out each busy
 * lane's next block; a finished hash moves to the second hash or the next
 * message with the state reset to the IV (masked move). */
static void advance_group(mdrv *d, unsigned g, v16 s[8])
{
    static const uint8_t zero[64];
    __mmask16 reset = 0, second = 0;
    uint32_t tmp[8][16];
    int stored = 0;
    d->pend2[g] = 0;
    for (unsigned l = 0; l < 16; l++) {
        unsigned i = 16 * g + l;
        if (!d->blk[i]) continue;
        const uint8_t *p = bk_lane_block(&d->L[i]);
        if (!p) {
            reset |= (__mmask16)(1u << l);
            if (d->L[i].stage != BK_LANE_SECOND) {
                /* First hash done: the second's block comes from s. */
                bk_lane_second_in_registers(&d->L[i]);
                second |= (__mmask16)(1u << l);
                d->blk[i] = zero;
                continue;
            }
            uint32_t st[8];
            if (!stored) {
                for (int j = 0; j < 8; j++) _mm512_storeu_si512(tmp[j], s[j]);
                stored = 1;
            }
            for (int j = 0; j < 8; j++) st[j] = tmp[j][l];
            p = bk_lane_hash_done(&d->L[i], st);
            if (!p && next_msg(d, &d->L[i])) p = bk_lane_block(&d->L[i]);
            if (!p) d->active[g]--;
        }
        d->blk[i] = p;
    }
    if (second) {
        for (int j = 0; j < 8; j++) d->dig[g][j] = s[j];
        d->pend2[g] = second;
    }
    if (reset)
        for (int j = 0; j < 8; j++) s[j] = _mm512_mask_mov_epi32(s[j], reset, SET1(bk_sha256_iv[j]));
}

/* The message words of lanes starting their second hash (mask m, digest
 * words dig): the digest, 0x80000000, zeros (their block is the zero
 * block), 256. */
BK_INLINE void second_words(v16 w[16], __mmask16 m, const v16 dig[8])
{
    if (!m) return;
    for (int j = 0; j < 8; j++) w[j] = _mm512_mask_mov_epi32(w[j], m, dig[j]);
    w[8] = _mm512_mask_mov_epi32(w[8], m, SET1(0x80000000u));
    w[15] = _mm512_mask_mov_epi32(w[15], m, SET1(256));
}

/* Write the in-register second blocks of group g into their lanes'
 * buffers (before the lanes leave the registers: compaction, draining). */
static void second_to_memory(mdrv *d, unsigned g)
{
    if (!d->pend2[g]) return;
    uint32_t t[8][16];
    for (int j = 0; j < 8; j++) _mm512_storeu_si512(t[j], d->dig[g][j]);
    for (unsigned l = 0; l < 16; l++) {
        if (!(d->pend2[g] >> l & 1)) continue;
        uint32_t st[8];
        for (int j = 0; j < 8; j++) st[j] = t[j][l];
        d->blk[16 * g + l] = bk_lane_second_block(&d->L[16 * g + l], st);
    }
    d->pend2[g] = 0;
}

/* Move the busy lanes of group 1 into the idle lanes of group 0 (only when
 * they fit): a lane's struct, its next block (rebased when it points into
 * the lane's own buffer) and its state words. */
static void compact(mdrv *d, v16 s0[8], v16 s1[8])
{
    uint32_t t0[8][16], t1[8][16];
    second_to_memory(d, 0);
    second_to_memory(d, 1);
    for (int j = 0; j < 8; j++) {
        _mm512_storeu_si512(t0[j], s0[j]);
        _mm512_storeu_si512(t1[j], s1[j]);
    }
    unsigned dst = 0;
    for (unsigned l = 0; l < 16; l++) {
        unsigned i = 16 + l;
        if (!d->blk[i]) continue;
        while (d->blk[dst]) dst++;
        const uint8_t *p = d->blk[i];
        d->L[dst] = d->L[i];
        if (p >= d->L[i].buf && p < d->L[i].buf + sizeof d->L[i].buf) p = d->L[dst].buf + (p - d->L[i].buf);
        d->blk[dst] = p;
        d->blk[i] = NULL;
        for (int j = 0; j < 8; j++) t0[j][dst] = t1[j][l];
        d->active[0]++;
        d->active[1]--;
    }
    for (int j = 0; j < 8; j++) s0[j] = _mm512_loadu_si512(t0[j]);
}

/* One block in each lane of one group / of two groups (separate functions:
 * the other group's state is not live in the rounds, so nothing spills). */
static __attribute__((noinline)) void step1(v16 s[8], const mdrv *d, unsigned g)
{
    v16 w[64];
    load16(w, d->blk + 16 * g);
    second_words(w, d->pend2[g], d->dig[g]);
    schedule_msg(w);
    rounds1_w(s, w);
}

BK_INLINE void step2_t(v16 sx[8], v16 sy[8], const mdrv *d, int pass)
{
    v16 wx[64], wy[64];
    load16(wx, d->blk);
    load16(wy, d->blk + 16);
    second_words(wx, d->pend2[0], d->dig[0]);
    second_words(wy, d->pend2[1], d->dig[1]);
    rounds2_w(sx, wx, sy, wy, pass);
}

static __attribute__((noinline)) void step2_in(v16 sx[8], v16 sy[8], const mdrv *d)
{
    step2_t(sx, sy, d, SCHED_IN);
}

static __attribute__((noinline)) void step2_pass(v16 sx[8], v16 sy[8], const mdrv *d)
{
    step2_t(sx, sy, d, SCHED_PASS);
}

/* Messages in flight on 32 lanes, states in registers. Once no messages
 * remain, group 1 is folded into group 0 when its lanes fit, and once no
 * more than drain_at lanes are busy (typically one long transaction among
 * short ones) the rest is finished with SHA-NI streams (as many at a time
 * as the calibration measured fastest), or one stream each with compress1.
 * The tail matters: block 413567's txids (a few 16-65 KB transactions in
 * batches of 512) take 12% longer draining at 4 lanes than at 8 or 12. */
BK_INLINE void hashd_msgs32(uint8_t *out, const bk_sha256_msg *msgs, size_t n,
                            void (*compress1)(uint32_t s[8], const uint8_t *blocks, size_t nblocks),
                            int shani, unsigned drain_at, int pass)
{
    mdrv d;
    v16 sx[8], sy[8];
    d.msgs = msgs;
    d.n = n;
    d.out = out;
    d.active[0] = d.active[1] = 0;
    d.pend2[0] = d.pend2[1] = 0;
    msgs_begin(&d);
    for (unsigned i = 0; i < 32; i++) {
        d.blk[i] = NULL;
        if (next_msg(&d, &d.L[i])) {
            d.blk[i] = bk_lane_block(&d.L[i]);
            d.active[i / 16]++;
        }
    }
    state_iv(sx);
    state_iv(sy);
    for (;;) {
        if (d.left == 0) {
            if (d.active[1] && d.active[0] + d.active[1] <= 16) compact(&d, sx, sy);
            if (d.active[0] + d.active[1] <= drain_at) break;
        }
        if (d.active[0] && d.active[1]) {
            if (pass)
                step2_pass(sx, sy, &d);
            else
                step2_in(sx, sy, &d);
            advance_group(&d, 0, sx);
            advance_group(&d, 1, sy);
        } else if (d.active[0]) {
            step1(sx, &d, 0);
            advance_group(&d, 0, sx);
        } else if (d.active[1]) {
            step1(sy, &d, 1);
            advance_group(&d, 1, sy);
        } else {
            return;
        }
    }
    if (d.active[0] + d.active[1] == 0) return;
    /* The lanes left (no messages remain). */
    second_to_memory(&d, 0);
    second_to_memory(&d, 1);
    bk_lane *left[32];
    uint32_t st[32][8];
    const uint8_t *lb[32];
    uint64_t wl[32];          /* what each lane has left, for the order */
    size_t k = 0;
    for (unsigned i = 0; i < 32; i++) {
        if (!d.blk[i]) continue;
        /* Longest first (insertion by what is left): the streams then
         * finish together instead of one long lane, started last, running
         * alone at the end (block 413567: its six 40-65 KB transactions). */
        uint64_t w = bk_lane_left(&d.L[i]);
        size_t j = k++;
        for (; j > 0 && wl[j - 1] < w; j--) {
            left[j] = left[j - 1];
            memcpy(st[j], st[j - 1], sizeof st[j]);
            lb[j] = lb[j - 1];
            wl[j] = wl[j - 1];
        }
        wl[j] = w;
        left[j] = &d.L[i];
        lane_state(i < 16 ? sx : sy, i % 16, st[j]);
        lb[j] = d.blk[i];
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
    hashd_msgs32(out, msgs, n, bk_sha256_compress_portable, 0, 1, SCHED_IN);
}

static void hashd_msgs_portable_pass(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    hashd_msgs32(out, msgs, n, bk_sha256_compress_portable, 0, 1, SCHED_PASS);
}

static void hashd_msgs_shani_t(uint8_t *out, const bk_sha256_msg *msgs, size_t n, int pass)
{
    /* Few messages: SHA-NI streams beat 16 mostly idle lanes. */
    if (n < 8) {
        bk_sha256_shani_small_msgs(out, msgs, n);
        return;
    }
    hashd_msgs32(out, msgs, n, bk_sha256_compress_shani, 1, 12, pass);
}

static void hashd_msgs_shani(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    hashd_msgs_shani_t(out, msgs, n, SCHED_IN);
}

static void hashd_msgs_shani_pass(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    hashd_msgs_shani_t(out, msgs, n, SCHED_PASS);
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

/* The two with the schedule as a pass before the rounds (SCHED_PASS). */
const bk_sha256_impl bk_sha256_backend_avx512_pass = {
    "avx512/pass", bk_sha256_compress_portable, hash_64_pass, hashd_64_pass, hashd_msgs_portable_pass,
};

const bk_sha256_impl bk_sha256_backend_avx512_pass_shani = {
    "avx512/pass", bk_sha256_compress_shani, hash_64_shani_pass, hashd_64_shani_pass, hashd_msgs_shani_pass,
};

#else
/* Not x86-64: nothing to build (ISO C wants a declaration per file). */
typedef int bk_sha256_avx512_not_built;
#endif /* __x86_64__ */
