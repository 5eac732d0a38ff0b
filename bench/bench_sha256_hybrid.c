/* The hybrid-kernel probe with real kernel code (bench_sha256_probe.c
 * registers the rows and calls these only when the CPU runs AVX-512 and
 * SHA-NI; this file is compiled with -mavx512f -mavx512bw -msha -msse4.1,
 * see cmake/isa.cmake, and holds nothing else, so no such instruction runs
 * before that check).
 *
 *   SHA256/Probe/hybrid/avx512  64 rounds of two 16-lane groups (the
 *                               AVX-512 kernels' round, over a stored
 *                               schedule): 32 lane-compressions
 *   SHA256/Probe/hybrid/shani   four SHA-NI compressions of one stream
 *                               (message schedule included)
 *   SHA256/Probe/hybrid/both    the two in one loop, a SHA-NI quad (four
 *                               rounds) after each round of the two groups
 *   unit: step (one of each)
 *
 * `both` near the larger of the other two: SHA-NI streams could run
 * beside the AVX-512 lanes for free (a hybrid kernel would pay); near
 * their sum: they compete for the core, and a compression costs less on
 * the AVX-512 lanes alone. The bare sha256rnds2 overlaps zmm work on AMD
 * Zen5 (SHA256/Probe/rnds2x4+zmm-mix); the SHA-NI message schedule and
 * additions are what this probe adds. */
#if defined(__x86_64__)

#include "bench.h"

#include <immintrin.h>
#include <stdint.h>

typedef __m512i v16;

#define ADD(a, b) _mm512_add_epi32(a, b)
#define ROR(x, n) _mm512_ror_epi32(x, n)
#define XOR3(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0x96)
#define CH(e, f, g) _mm512_ternarylogic_epi32(e, f, g, 0xCA)
#define MAJ(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0xE8)
#define BS0(x) XOR3(ROR(x, 2), ROR(x, 13), ROR(x, 22))
#define BS1(x) XOR3(ROR(x, 6), ROR(x, 11), ROR(x, 25))
#define ROUND(a, b, c, d, e, f, g, h, wk) do {                 \
        v16 t1_ = ADD(ADD(ADD(h, wk), CH(e, f, g)), BS1(e));   \
        d = ADD(d, t1_);                                       \
        h = ADD(ADD(t1_, MAJ(a, b, c)), BS0(a));               \
    } while (0)
#define WK(g, i) ADD(w[g][i], _mm512_set1_epi32((int)k[i]))
/* Round i of both groups (state letters rotated by the caller), then q. */
#define R2(a, b, c, d, e, f, g, h, i, q) do {                              \
        ROUND(x##a, x##b, x##c, x##d, x##e, x##f, x##g, x##h, WK(0, i));   \
        ROUND(y##a, y##b, y##c, y##d, y##e, y##f, y##g, y##h, WK(1, i));   \
        q;                                                                 \
    } while (0)
#define R16(Q) do {                                                        \
        R2(a, b, c, d, e, f, g, h, i + 0, Q(0));                           \
        R2(h, a, b, c, d, e, f, g, i + 1, Q(1));                           \
        R2(g, h, a, b, c, d, e, f, i + 2, Q(2));                           \
        R2(f, g, h, a, b, c, d, e, i + 3, Q(3));                           \
        R2(e, f, g, h, a, b, c, d, i + 4, Q(4));                           \
        R2(d, e, f, g, h, a, b, c, i + 5, Q(5));                           \
        R2(c, d, e, f, g, h, a, b, i + 6, Q(6));                           \
        R2(b, c, d, e, f, g, h, a, i + 7, Q(7));                           \
        R2(a, b, c, d, e, f, g, h, i + 8, Q(8));                           \
        R2(h, a, b, c, d, e, f, g, i + 9, Q(9));                           \
        R2(g, h, a, b, c, d, e, f, i + 10, Q(10));                         \
        R2(f, g, h, a, b, c, d, e, i + 11, Q(11));                         \
        R2(e, f, g, h, a, b, c, d, i + 12, Q(12));                         \
        R2(d, e, f, g, h, a, b, c, i + 13, Q(13));                         \
        R2(c, d, e, f, g, h, a, b, i + 14, Q(14));                         \
        R2(b, c, d, e, f, g, h, a, i + 15, Q(15));                         \
    } while (0)

/* SHA-NI quad q (rounds 4q..4q+3) of the stream (abef, cdgh); from quad 4
 * on, its message words come from the schedule (m[q % 4] replaced). */
#define MSG(q) m[(q) & 3] = _mm_sha256msg2_epu32(                                             \
        _mm_add_epi32(_mm_sha256msg1_epu32(m[(q) & 3], m[((q) + 1) & 3]),                     \
                      _mm_alignr_epi8(m[((q) + 3) & 3], m[((q) + 2) & 3], 4)), m[((q) + 3) & 3])
#define QUAD(q) do {                                                                          \
        if ((q) >= 4) MSG(q);                                                                 \
        __m128i k_ = _mm_add_epi32(m[(q) & 3], _mm_loadu_si128((const __m128i *)&k[4 * (q)])); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k_);                                         \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k_, 0x0E));                \
    } while (0)
#define NOQ(q) (void)0

/* Round constants: any words serve (only the timing is measured); set by
 * run(). */
static uint32_t k[64];

typedef struct hyb {
    v16 w[2][64];       /* the two groups' schedules (any words: only timing matters) */
    v16 sx[8], sy[8];
    __m128i abef, cdgh;
    uint8_t blocks[4][64];
} hyb;

/* One step of what `avx`/`sha` ask for; a SHA-NI compression per 16
 * rounds of the groups. */
#define STEP(NAME, AVX, SHA)                                                                     \
    static __attribute__((noinline)) void NAME(hyb *st)                                          \
    {                                                                                            \
        const v16(*w)[64] = (const v16(*)[64])st->w;                                             \
        v16 xa = st->sx[0], xb = st->sx[1], xc = st->sx[2], xd = st->sx[3], xe = st->sx[4],     \
            xf = st->sx[5], xg = st->sx[6], xh = st->sx[7];                                      \
        v16 ya = st->sy[0], yb = st->sy[1], yc = st->sy[2], yd = st->sy[3], ye = st->sy[4],     \
            yf = st->sy[5], yg = st->sy[6], yh = st->sy[7];                                      \
        __m128i abef = st->abef, cdgh = st->cdgh;                                                \
        _Pragma("GCC unroll 1") for (int i = 0; i < 64; i += 16)                                 \
        {                                                                                        \
            __m128i sa = abef, sc = cdgh, m[4];                                                  \
            if (SHA)                                                                             \
                for (int j = 0; j < 4; j++)                                                      \
                    m[j] = _mm_loadu_si128((const __m128i *)(st->blocks[i / 16] + 16 * j));      \
            if (AVX && SHA) R16(QUAD);                                                           \
            else if (AVX) R16(NOQ);                                                              \
            else {                                                                               \
                QUAD(0); QUAD(1); QUAD(2); QUAD(3); QUAD(4); QUAD(5); QUAD(6); QUAD(7);          \
                QUAD(8); QUAD(9); QUAD(10); QUAD(11); QUAD(12); QUAD(13); QUAD(14); QUAD(15);    \
            }                                                                                    \
            if (SHA) {                                                                           \
                abef = _mm_add_epi32(abef, sa);                                                  \
                cdgh = _mm_add_epi32(cdgh, sc);                                                  \
            }                                                                                    \
        }                                                                                        \
        st->sx[0] = xa; st->sx[1] = xb; st->sx[2] = xc; st->sx[3] = xd;                          \
        st->sx[4] = xe; st->sx[5] = xf; st->sx[6] = xg; st->sx[7] = xh;                          \
        st->sy[0] = ya; st->sy[1] = yb; st->sy[2] = yc; st->sy[3] = yd;                          \
        st->sy[4] = ye; st->sy[5] = yf; st->sy[6] = yg; st->sy[7] = yh;                          \
        st->abef = abef;                                                                         \
        st->cdgh = cdgh;                                                                         \
    }

STEP(step_avx, 1, 0)
STEP(step_sha, 0, 1)
STEP(step_both, 1, 1)

static void run(void (*step)(hyb *), long n)
{
    static _Alignas(64) hyb st;   /* one thread runs a bench at a time */
    for (int i = 0; i < 64; i++) k[i] = (uint32_t)i * 0x9e3779b9u;
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < 64; i++) st.w[g][i] = _mm512_set1_epi32(i * 77 + g);
    for (int j = 0; j < 8; j++) {
        st.sx[j] = _mm512_set1_epi32(j);
        st.sy[j] = _mm512_set1_epi32(j + 9);
    }
    st.abef = _mm_set1_epi32(1);
    st.cdgh = _mm_set1_epi32(2);
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < 64; i++) st.blocks[b][i] = (uint8_t)(b * 64 + i);
    for (long i = 0; i < n; i++) step(&st);
    _mm256_zeroupper();
}

void bk_bench_hybrid_avx512(long n) { run(step_avx, n); }
void bk_bench_hybrid_shani(long n) { run(step_sha, n); }
void bk_bench_hybrid_both(long n) { run(step_both, n); }

#else
typedef int bk_bench_sha256_hybrid_not_built;
#endif
