/* Sixteen Jacobi symbols (g | p) at once with AVX-512 (F + CD): the same
 * positive-divsteps loop as src/bitcoin/xonly.c (posdivsteps_62 and
 * jacobi_p, see the comment there for the algorithm and its bounds), one
 * field element per 64-bit lane. Lanes run their 62-step batches under
 * masks: a lane whose batch is complete (i == 0) or whose symbol is known
 * stops changing, and the batch ends when no lane has steps left. Per lane:
 *  - ctz(g | ~0 << i) as 63 - lzcnt(x & -x) (vplzcntq, AVX512CD);
 *  - shifts by per-lane counts (vpsllvq / vpsrlvq);
 *  - the f <-> g swap as mask blends;
 *  - -f^-1 mod 2^8 by Newton's iteration (x = 3f ^ 2 is f^-1 to 5 bits,
 *    one step x (2 - f x) doubles that), in 32-bit multiplies (vpmuludq:
 *    only the low 8 bits matter);
 *  - products by w < 2^8 as two 32x32 -> 64 multiplies.
 * The 2x2 matrix is then applied to the full numbers (5 limbs of 62 bits,
 * one vector per limb) with 32x32 -> 64 multiplies (update_fg_vec). Two
 * groups of 8 lanes run interleaved: the divstep chain is latency-bound.
 * Compiled with -mavx512f -mavx512cd (cmake/isa.cmake) and called only when
 * the CPU has both (the dispatch in xonly.c); empty elsewhere.
 *
 * Layering (see script_internal.h): a leaf under xonly.c; calls nothing. */
#include "script_internal.h"

#if defined(__x86_64__) && defined(__SIZEOF_INT128__) && defined(__AVX512F__) && defined(__AVX512CD__)

#include <immintrin.h>


/* a * w mod 2^64 for w < 2^32 in each lane. */
static inline __m512i mul_small(__m512i a, __m512i w)
{
    __m512i lo = _mm512_mul_epu32(a, w);
    __m512i hi = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), w);
    return _mm512_add_epi64(lo, _mm512_slli_epi64(hi, 32));
}

/* -a^-1 mod 2^32 (low 10 bits exact) for odd a: only the low 8 bits are used. */
static inline __m512i neg_inv8(__m512i a)
{
    const __m512i two = _mm512_set1_epi64(2);
    __m512i x = _mm512_xor_si512(_mm512_mul_epu32(a, _mm512_set1_epi64(3)), two);
    x = _mm512_mul_epu32(x, _mm512_sub_epi64(two, _mm512_mul_epu32(a, x)));
    return _mm512_sub_epi64(_mm512_setzero_si512(), x);
}

/* One group of 8 lanes inside a 62-step batch. */
typedef struct lanes {
    __m512i f, g, u, v, q, r, eta, i, jac, ninv;
} lanes;

/* One iteration of posdivsteps_62 (xonly.c) in every lane that still has
 * steps (i > 0); the others do not change. Returns the lanes that still
 * have steps afterwards. */
static inline __attribute__((always_inline)) __mmask8 step(lanes *s)
{
    const __m512i zero = _mm512_setzero_si512();
    /* zeros = ctz(g | ~0 << i); 0 where i == 0 (bit 0 of ~0 << 0). */
    __m512i x = _mm512_or_si512(s->g, _mm512_sllv_epi64(_mm512_set1_epi64(-1), s->i));
    __m512i low = _mm512_and_si512(x, _mm512_sub_epi64(zero, x));
    __m512i zeros = _mm512_sub_epi64(_mm512_set1_epi64(63), _mm512_lzcnt_epi64(low));
    __m512i f = s->f, g = _mm512_srlv_epi64(s->g, zeros);
    __m512i u = _mm512_sllv_epi64(s->u, zeros), v = _mm512_sllv_epi64(s->v, zeros), q = s->q, r = s->r;
    __m512i eta = _mm512_sub_epi64(s->eta, zeros);
    __m512i i = _mm512_sub_epi64(s->i, zeros);
    /* jac ^= zeros & (f >> 1 ^ f >> 2) (0x78: a ^ (b & c)). */
    __m512i fs1 = _mm512_srli_epi64(f, 1);
    __m512i jac = _mm512_ternarylogic_epi64(s->jac, zeros, _mm512_xor_si512(fs1, _mm512_srli_epi64(f, 2)), 0x78);
    __mmask8 act = _mm512_test_epi64_mask(i, i);
    /* Swap f and g where eta < 0 (reciprocity: flip when both are 3 mod 4). */
    __mmask8 sw = _mm512_mask_cmplt_epi64_mask(act, eta, zero);
    __m512i ninv = _mm512_mask_blend_epi64(sw, s->ninv, neg_inv8(g));
    eta = _mm512_mask_sub_epi64(eta, sw, zero, eta);
    jac = _mm512_mask_ternarylogic_epi64(jac, sw, fs1, _mm512_srli_epi64(g, 1), 0x78); /* ^= (f & g) >> 1 */
    __m512i t = u;
    u = _mm512_mask_blend_epi64(sw, u, q);
    q = _mm512_mask_blend_epi64(sw, q, t);
    t = v;
    v = _mm512_mask_blend_epi64(sw, v, r);
    r = _mm512_mask_blend_epi64(sw, r, t);
    t = f;
    f = _mm512_mask_blend_epi64(sw, f, g);
    g = _mm512_mask_blend_epi64(sw, g, t);
    /* w clears the low min(eta + 3, i, 8) bits of g. */
    __m512i limit = _mm512_min_epi64(_mm512_min_epi64(_mm512_add_epi64(eta, _mm512_set1_epi64(3)), i),
                                     _mm512_set1_epi64(8));
    __m512i w = _mm512_andnot_si512(_mm512_sllv_epi64(_mm512_set1_epi64(-1), limit), _mm512_mul_epu32(g, ninv));
    s->g = _mm512_mask_add_epi64(g, act, g, mul_small(f, w));
    s->q = _mm512_mask_add_epi64(q, act, q, mul_small(u, w));
    s->r = _mm512_mask_add_epi64(r, act, r, mul_small(v, w));
    s->f = f;
    s->u = u;
    s->v = v;
    s->eta = eta;
    s->i = i;
    s->jac = jac;
    s->ninv = ninv;
    return act;
}

/* (f, g) <- ((u f + v g) / 2^62, (q f + r g) / 2^62) in 8 lanes, f and g
 * as 5 limbs of 62 bits (F[k] holds bits 62k.. of every lane). Everything
 * is non-negative here (positive divsteps: f, g >= 0; 0 <= u, v, q, r <=
 * 2^62; limbs < 2^62), so the 62x62-bit products are built from 31-bit
 * halves with 32x32 -> 64 multiplies: a b = a1 b1 2^62 + (a1 b0 + a0 b1)
 * 2^31 + a0 b0, with a1 <= 2^31. Per limb L = u0 f0 + v0 g0 < 2^63, M (the
 * four middle products) < 2^64, H = u1 f1 + v1 g1 < 2^63, T = L + (M mod
 * 2^31) 2^31 < 2^64; the carry into the next limb, H + M / 2^31 + T / 2^62
 * + acc / 2^62, stays below 2^63 + 2^35, and acc = T mod 2^62 + carry below
 * 2^64: no sum overflows. The division is exact (limb 0 of the sum is 0),
 * so the limbs above it are the result, as in the scalar update_fg. Only
 * the low len limbs are touched: the caller shortens len once limb len - 1
 * is 0 in f and g of every live lane (f, g never grow: (g + w f) / 2^k <=
 * max(f, g) for w < 2^k), so the limbs above stay 0. */
static inline __attribute__((always_inline)) void update_fg_vec(int len, __m512i F[5], __m512i G[5], __m512i u,
                                                                __m512i v, __m512i q, __m512i r)
{
    const __m512i m31 = _mm512_set1_epi64((int64_t)(UINT64_MAX >> 33));
    const __m512i m62 = _mm512_set1_epi64((int64_t)(UINT64_MAX >> 2));
    __m512i u0 = _mm512_and_si512(u, m31), u1 = _mm512_srli_epi64(u, 31);
    __m512i v0 = _mm512_and_si512(v, m31), v1 = _mm512_srli_epi64(v, 31);
    __m512i q0 = _mm512_and_si512(q, m31), q1 = _mm512_srli_epi64(q, 31);
    __m512i r0 = _mm512_and_si512(r, m31), r1 = _mm512_srli_epi64(r, 31);
    __m512i cf = _mm512_setzero_si512(), cg = cf;
    __m512i nf[5], ng[5];
    for (int k = 0; k < len; k++) {
        __m512i f0 = _mm512_and_si512(F[k], m31), f1 = _mm512_srli_epi64(F[k], 31);
        __m512i g0 = _mm512_and_si512(G[k], m31), g1 = _mm512_srli_epi64(G[k], 31);
#define ROW(a0, a1, b0, b1, c, outv)                                                                           \
    do {                                                                                                        \
        __m512i L_ = _mm512_add_epi64(_mm512_mul_epu32(a0, f0), _mm512_mul_epu32(b0, g0));                      \
        __m512i M_ = _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a1, f0), _mm512_mul_epu32(a0, f1)),     \
                                      _mm512_add_epi64(_mm512_mul_epu32(b1, g0), _mm512_mul_epu32(b0, g1)));    \
        __m512i H_ = _mm512_add_epi64(_mm512_mul_epu32(a1, f1), _mm512_mul_epu32(b1, g1));                      \
        __m512i T_ = _mm512_add_epi64(L_, _mm512_slli_epi64(_mm512_and_si512(M_, m31), 31));                  \
        __m512i A_ = _mm512_add_epi64(_mm512_and_si512(T_, m62), c);                                            \
        outv = _mm512_and_si512(A_, m62);                                                                       \
        c = _mm512_add_epi64(_mm512_add_epi64(H_, _mm512_srli_epi64(M_, 31)),                                  \
                             _mm512_add_epi64(_mm512_srli_epi64(T_, 62), _mm512_srli_epi64(A_, 62)));           \
    } while (0)
        ROW(u0, u1, v0, v1, cf, nf[k]);
        ROW(q0, q1, r0, r1, cg, ng[k]);
#undef ROW
    }
    for (int k = 0; k + 1 < len; k++) {
        F[k] = nf[k + 1];
        G[k] = ng[k + 1];
    }
    F[len - 1] = cf;
    G[len - 1] = cg;
}

#define NL BK_XONLY_LANES

void bk_xonly_jacobi_avx512(const uint64_t g4[NL][4], int8_t out[NL])
{
    const uint64_t M62 = UINT64_MAX >> 2;
    static const uint64_t p4[4] = {0xFFFFFFFEFFFFFC2Full, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull,
                                   0xFFFFFFFFFFFFFFFFull};
    lanes s[NL / 8];
    __m512i F[NL / 8][5], G[NL / 8][5];
    __mmask8 live[NL / 8];
    int len[NL / 8];
    for (int k = 0; k < NL / 8; k++) {
        uint64_t gl[5][8];
        for (int l = 0; l < 8; l++) {
            const uint64_t *a = g4[8 * k + l];
            gl[0][l] = a[0] & M62;
            gl[1][l] = ((a[0] >> 62) | (a[1] << 2)) & M62;
            gl[2][l] = ((a[1] >> 60) | (a[2] << 4)) & M62;
            gl[3][l] = ((a[2] >> 58) | (a[3] << 6)) & M62;
            gl[4][l] = a[3] >> 56;
        }
        for (int j = 0; j < 5; j++) G[k][j] = _mm512_loadu_si512(gl[j]);
        F[k][0] = _mm512_set1_epi64((int64_t)(p4[0] & M62));
        F[k][1] = _mm512_set1_epi64((int64_t)(((p4[0] >> 62) | (p4[1] << 2)) & M62));
        F[k][2] = _mm512_set1_epi64((int64_t)(((p4[1] >> 60) | (p4[2] << 4)) & M62));
        F[k][3] = _mm512_set1_epi64((int64_t)(((p4[2] >> 58) | (p4[3] << 6)) & M62));
        F[k][4] = _mm512_set1_epi64((int64_t)(p4[3] >> 56));
        s[k].eta = _mm512_set1_epi64(-1);
        s[k].jac = _mm512_setzero_si512();
        live[k] = 0xff; /* lanes whose symbol is still unknown */
        len[k] = 5;
    }
    for (int l = 0; l < NL; l++) out[l] = 0;
    const __m512i one = _mm512_set1_epi64(1);
    for (int count = 0; count < 30; count++) {
        unsigned any_live = 0;
        for (int k = 0; k < NL / 8; k++) any_live |= live[k];
        if (!any_live) break;
        for (int k = 0; k < NL / 8; k++) {
            s[k].f = _mm512_or_si512(F[k][0], _mm512_slli_epi64(F[k][1], 62));
            s[k].g = _mm512_or_si512(G[k][0], _mm512_slli_epi64(G[k][1], 62));
            s[k].u = s[k].r = one;
            s[k].v = s[k].q = _mm512_setzero_si512();
            s[k].i = _mm512_maskz_mov_epi64(live[k], _mm512_set1_epi64(62));
            s[k].ninv = neg_inv8(s[k].f);
        }
        /* The groups are independent chains: interleaved, they hide each
         * other's latency. */
        for (;;) {
            unsigned any = 0;
            for (int k = 0; k < NL / 8; k++) any |= step(&s[k]);
            if (!any) break;
        }
        for (int k = 0; k < NL / 8; k++) {
            if (!live[k]) continue;
            switch (len[k]) { /* one unrolled copy per length */
            case 5: update_fg_vec(5, F[k], G[k], s[k].u, s[k].v, s[k].q, s[k].r); break;
            case 4: update_fg_vec(4, F[k], G[k], s[k].u, s[k].v, s[k].q, s[k].r); break;
            case 3: update_fg_vec(3, F[k], G[k], s[k].u, s[k].v, s[k].q, s[k].r); break;
            case 2: update_fg_vec(2, F[k], G[k], s[k].u, s[k].v, s[k].q, s[k].r); break;
            default: update_fg_vec(1, F[k], G[k], s[k].u, s[k].v, s[k].q, s[k].r); break;
            }
            /* f == 1: the symbol is (-1)^jac. */
            __m512i rest = _mm512_or_si512(_mm512_or_si512(F[k][1], F[k][2]), _mm512_or_si512(F[k][3], F[k][4]));
            __mmask8 done = _mm512_mask_cmpeq_epi64_mask(live[k], F[k][0], one);
            done = _mm512_mask_testn_epi64_mask(done, rest, rest);
            if (done) {
                uint64_t J[8];
                _mm512_storeu_si512(J, s[k].jac);
                for (int l = 0; l < 8; l++)
                    if (done >> l & 1) out[8 * k + l] = (int8_t)(1 - 2 * (int)(J[l] & 1));
                live[k] &= (__mmask8)~done;
            }
            __m512i top = _mm512_or_si512(F[k][len[k] - 1], G[k][len[k] - 1]);
            if (len[k] > 1 && !_mm512_mask_test_epi64_mask(live[k], top, top)) len[k]--;
        }
    }
}

#endif
