/* Eight Jacobi symbols (g | p) at once with AVX-512 (F + CD): the same
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
 * The 2x2 matrix is then applied to the full numbers (5 limbs of 62 bits)
 * per lane with 64x64 -> 128 multiplies, exactly as the scalar code does.
 * Compiled with -mavx512f -mavx512cd (cmake/isa.cmake) and called only when
 * the CPU has both (the dispatch in xonly.c); empty elsewhere. */
#include "script_internal.h"

#if defined(__x86_64__) && defined(__SIZEOF_INT128__) && defined(__AVX512F__) && defined(__AVX512CD__)

#include <immintrin.h>

__extension__ typedef __int128 i128;

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

static inline __attribute__((always_inline)) void update_fg(int len, int64_t *f, int64_t *g, int64_t u, int64_t v, int64_t q, int64_t r)
{
    const uint64_t M62 = UINT64_MAX >> 2;
    i128 cf = (i128)u * f[0] + (i128)v * g[0];
    i128 cg = (i128)q * f[0] + (i128)r * g[0];
    cf >>= 62;
    cg >>= 62;
    for (int i = 1; i < len; i++) {
        cf += (i128)u * f[i] + (i128)v * g[i];
        cg += (i128)q * f[i] + (i128)r * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & M62);
        cf >>= 62;
        g[i - 1] = (int64_t)((uint64_t)cg & M62);
        cg >>= 62;
    }
    f[len - 1] = (int64_t)cf;
    g[len - 1] = (int64_t)cg;
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
    const __m512i one = _mm512_set1_epi64(1);
    /* zeros = ctz(g | ~0 << i); 0 where i == 0 (bit 0 of ~0 << 0). */
    __m512i x = _mm512_or_si512(s->g, _mm512_sllv_epi64(_mm512_set1_epi64(-1), s->i));
    __m512i low = _mm512_and_si512(x, _mm512_sub_epi64(zero, x));
    __m512i zeros = _mm512_sub_epi64(_mm512_set1_epi64(63), _mm512_lzcnt_epi64(low));
    __m512i f = s->f, g = _mm512_srlv_epi64(s->g, zeros);
    __m512i u = _mm512_sllv_epi64(s->u, zeros), v = _mm512_sllv_epi64(s->v, zeros), q = s->q, r = s->r;
    __m512i eta = _mm512_sub_epi64(s->eta, zeros);
    __m512i i = _mm512_sub_epi64(s->i, zeros);
    __m512i jac = _mm512_xor_si512(
        s->jac, _mm512_and_si512(zeros, _mm512_xor_si512(_mm512_srli_epi64(f, 1), _mm512_srli_epi64(f, 2))));
    __mmask8 act = _mm512_test_epi64_mask(i, i);
    /* Swap f and g where eta < 0 (reciprocity: flip when both are 3 mod 4). */
    __mmask8 sw = _mm512_mask_cmplt_epi64_mask(act, eta, zero);
    __m512i ninv = _mm512_mask_blend_epi64(sw, s->ninv, neg_inv8(g));
    eta = _mm512_mask_sub_epi64(eta, sw, zero, eta);
    jac = _mm512_mask_xor_epi64(jac, sw, jac, _mm512_srli_epi64(_mm512_and_si512(f, g), 1));
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
    __m512i lmask = _mm512_sub_epi64(_mm512_sllv_epi64(one, limit), one);
    __m512i w = _mm512_and_si512(_mm512_mul_epu32(g, ninv), lmask);
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

#define NL BK_XONLY_LANES

void bk_xonly_jacobi_avx512(const uint64_t g4[NL][4], int8_t out[NL])
{
    const uint64_t M62 = UINT64_MAX >> 2;
    /* Full numbers per lane, 5 limbs of 62 bits; f starts as p. */
    int64_t F[NL][5], G[NL][5];
    int len[NL];
    int64_t eta_l[NL];
    uint64_t jac_l[NL];
    static const uint64_t p4[4] = {0xFFFFFFFEFFFFFC2Full, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull,
                                   0xFFFFFFFFFFFFFFFFull};
    for (int l = 0; l < NL; l++) {
        const uint64_t *a = g4[l];
        F[l][0] = (int64_t)(p4[0] & M62);
        F[l][1] = (int64_t)(((p4[0] >> 62) | (p4[1] << 2)) & M62);
        F[l][2] = (int64_t)(((p4[1] >> 60) | (p4[2] << 4)) & M62);
        F[l][3] = (int64_t)(((p4[2] >> 58) | (p4[3] << 6)) & M62);
        F[l][4] = (int64_t)(p4[3] >> 56);
        G[l][0] = (int64_t)(a[0] & M62);
        G[l][1] = (int64_t)(((a[0] >> 62) | (a[1] << 2)) & M62);
        G[l][2] = (int64_t)(((a[1] >> 60) | (a[2] << 4)) & M62);
        G[l][3] = (int64_t)(((a[2] >> 58) | (a[3] << 6)) & M62);
        G[l][4] = (int64_t)(a[3] >> 56);
        len[l] = 5;
        eta_l[l] = -1;
        jac_l[l] = 0;
        out[l] = 0;
    }
    uint64_t live = (NL == 64 ? 0 : (1ull << NL)) - 1; /* lanes whose symbol is still unknown */
    for (int count = 0; count < 30 && live; count++) {
        lanes s[NL / 8];
        for (int k = 0; k < NL / 8; k++) {
            uint64_t fl[8], gl[8];
            for (int l = 0; l < 8; l++) {
                fl[l] = (uint64_t)F[8 * k + l][0] | ((uint64_t)F[8 * k + l][1] << 62);
                gl[l] = (uint64_t)G[8 * k + l][0] | ((uint64_t)G[8 * k + l][1] << 62);
            }
            s[k].f = _mm512_loadu_si512(fl);
            s[k].g = _mm512_loadu_si512(gl);
            s[k].u = s[k].r = _mm512_set1_epi64(1);
            s[k].v = s[k].q = _mm512_setzero_si512();
            s[k].eta = _mm512_loadu_si512(eta_l + 8 * k);
            s[k].jac = _mm512_loadu_si512(jac_l + 8 * k);
            s[k].i = _mm512_maskz_mov_epi64((__mmask8)(live >> (8 * k)), _mm512_set1_epi64(62));
            s[k].ninv = neg_inv8(s[k].f);
        }
        /* The groups are independent chains: interleaved, they hide each
         * other's latency. */
        for (;;) {
            unsigned any = 0;
            for (int k = 0; k < NL / 8; k++) any |= step(&s[k]);
            if (!any) break;
        }
        int64_t U[NL], V[NL], Q[NL], R[NL];
        for (int k = 0; k < NL / 8; k++) {
            _mm512_storeu_si512(U + 8 * k, s[k].u);
            _mm512_storeu_si512(V + 8 * k, s[k].v);
            _mm512_storeu_si512(Q + 8 * k, s[k].q);
            _mm512_storeu_si512(R + 8 * k, s[k].r);
            _mm512_storeu_si512(eta_l + 8 * k, s[k].eta);
            _mm512_storeu_si512(jac_l + 8 * k, s[k].jac);
        }
        for (int l = 0; l < NL; l++) {
            if (!(live >> l & 1)) continue;
            int n = len[l];
            int64_t *fv = F[l], *gv = G[l];
            /* One unrolled copy per length. */
            switch (n) {
            case 5: update_fg(5, fv, gv, U[l], V[l], Q[l], R[l]); break;
            case 4: update_fg(4, fv, gv, U[l], V[l], Q[l], R[l]); break;
            case 3: update_fg(3, fv, gv, U[l], V[l], Q[l], R[l]); break;
            case 2: update_fg(2, fv, gv, U[l], V[l], Q[l], R[l]); break;
            default: update_fg(1, fv, gv, U[l], V[l], Q[l], R[l]); break;
            }
            if (fv[0] == 1) {
                int64_t rest = 0;
                for (int k = 1; k < n; k++) rest |= fv[k];
                if (rest == 0) {
                    out[l] = (int8_t)(1 - 2 * (int)(jac_l[l] & 1));
                    live &= ~(1ull << l);
                    continue;
                }
            }
            if (n > 1 && fv[n - 1] == 0 && gv[n - 1] == 0) len[l] = n - 1;
        }
    }
}

#endif
