/* SHA-256 with the x86 SHA extensions (compiled with -msha -msse4.1 -mssse3;
 * reached only through sha256_dispatch.c after CPUID says SHA, SSE4.1 and
 * SSSE3 are present).
 *
 * sha256rnds2 has a long latency and a short reciprocal throughput: one
 * dependent stream runs at half the unit's speed (51.7 ns per compression
 * here vs 25.8 with two in flight). So the batch kernels keep two
 * independent messages interleaved instruction by instruction, and the
 * constant padding block of a 64-byte message is compressed from its
 * precomputed W+K (no message schedule). */
#if defined(__x86_64__)

#include "sha256_lane.h"

#include <immintrin.h>

#define BK_INLINE static inline __attribute__((always_inline))

/* One stream: state as the SHA-NI register pair (ABEF, CDGH) and the four
 * message-schedule registers of the block in flight. */
typedef struct st {
    __m128i s0, s1;   /* ABEF, CDGH */
    __m128i m[4];     /* W[4g..4g+3] for the last four groups */
    __m128i save0, save1;
} st;

BK_INLINE __m128i bswap_mask(void)
{
    return _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
}

BK_INLINE void state_load(st *x, const uint32_t s[8])
{
    __m128i t = _mm_loadu_si128((const __m128i *)s);         /* DCBA */
    __m128i u = _mm_loadu_si128((const __m128i *)(s + 4));   /* HGFE */
    t = _mm_shuffle_epi32(t, 0xB1);                          /* CDAB */
    u = _mm_shuffle_epi32(u, 0x1B);                          /* EFGH */
    x->s0 = _mm_alignr_epi8(t, u, 8);                        /* ABEF */
    x->s1 = _mm_blend_epi16(u, t, 0xF0);                     /* CDGH */
}

BK_INLINE void state_iv(st *x)
{
    state_load(x, bk_sha256_iv);
}

/* The state words in order: *lo = (a,b,c,d), *hi = (e,f,g,h), lane 0 first. */
BK_INLINE void state_words(const st *x, __m128i *lo, __m128i *hi)
{
    __m128i t = _mm_shuffle_epi32(x->s0, 0x1B);              /* FEBA */
    __m128i u = _mm_shuffle_epi32(x->s1, 0xB1);              /* DCHG */
    *lo = _mm_blend_epi16(t, u, 0xF0);                       /* DCBA */
    *hi = _mm_alignr_epi8(u, t, 8);                          /* HGFE */
}

BK_INLINE void state_store(const st *x, uint32_t s[8])
{
    __m128i lo, hi;
    state_words(x, &lo, &hi);
    _mm_storeu_si128((__m128i *)s, lo);
    _mm_storeu_si128((__m128i *)(s + 4), hi);
}

/* The big-endian digest of the state. */
BK_INLINE void state_digest(const st *x, uint8_t *out)
{
    __m128i lo, hi;
    state_words(x, &lo, &hi);
    _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(lo, bswap_mask()));
    _mm_storeu_si128((__m128i *)(out + 16), _mm_shuffle_epi8(hi, bswap_mask()));
}

BK_INLINE void msg_load(st *x, const uint8_t *p)
{
    for (int i = 0; i < 4; i++)
        x->m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap_mask());
}

/* Second hash of SHA256d: the 32-byte digest of y as message words, then
 * the constant padding 0x80000000, 0 x 6, 256 (FIPS 180-4 5.1.1). */
BK_INLINE void msg_digest32(st *x, const st *y)
{
    state_words(y, &x->m[0], &x->m[1]);
    x->m[2] = _mm_set_epi32(0, 0, 0, (int)0x80000000u);
    x->m[3] = _mm_set_epi32(256, 0, 0, 0);
}

BK_INLINE void begin(st *x)
{
    x->save0 = x->s0;
    x->save1 = x->s1;
}

BK_INLINE void end(st *x)
{
    x->s0 = _mm_add_epi32(x->s0, x->save0);
    x->s1 = _mm_add_epi32(x->s1, x->save1);
}

/* Four rounds with wk = W + K for them. */
BK_INLINE void quad(st *x, __m128i wk)
{
    x->s1 = _mm_sha256rnds2_epu32(x->s1, x->s0, wk);
    x->s0 = _mm_sha256rnds2_epu32(x->s0, x->s1, _mm_shuffle_epi32(wk, 0x0E));
}

/* Rounds 4g..4g+3 with the message schedule (FIPS 180-4 6.2.2 step 1:
 * sha256msg1 adds sigma0, sha256msg2 adds sigma1). */
BK_INLINE void step(st *x, int g)
{
    if (g >= 4) {
        __m128i *a = &x->m[g & 3];
        __m128i b = x->m[(g + 1) & 3], c = x->m[(g + 2) & 3], d = x->m[(g + 3) & 3];
        *a = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(*a, b), _mm_alignr_epi8(d, c, 4)), d);
    }
    quad(x, _mm_add_epi32(x->m[g & 3], _mm_loadu_si128((const __m128i *)(bk_sha256_k + 4 * g))));
}

/* Rounds 4g..4g+3 of the 64-byte message's padding block. */
BK_INLINE void step_pad(st *x, int g)
{
    quad(x, _mm_loadu_si128((const __m128i *)(bk_sha256_pad64_wk + 4 * g)));
}

#define G16(F) F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)

/* One block, one stream (message already in x->m). */
BK_INLINE void rounds1(st *x)
{
#define S1_(g) step(x, g);
    begin(x);
    G16(S1_)
    end(x);
#undef S1_
}

BK_INLINE void rounds1_pad(st *x)
{
#define P1_(g) step_pad(x, g);
    begin(x);
    G16(P1_)
    end(x);
#undef P1_
}

/* One block in each of two streams, interleaved group by group. */
BK_INLINE void rounds2(st *x, st *y)
{
#define S2_(g) step(x, g); step(y, g);
    begin(x);
    begin(y);
    G16(S2_)
    end(x);
    end(y);
#undef S2_
}

BK_INLINE void rounds2_pad(st *x, st *y)
{
#define P2_(g) step_pad(x, g); step_pad(y, g);
    begin(x);
    begin(y);
    G16(P2_)
    end(x);
    end(y);
#undef P2_
}

void bk_sha256_compress_shani(uint32_t s[8], const uint8_t *blocks, size_t nblocks)
{
    st x;
    state_load(&x, s);
    while (nblocks--) {
        msg_load(&x, blocks);
        rounds1(&x);
        blocks += 64;
    }
    state_store(&x, s);
}


/* In place (out == in) is safe: each call loads its messages before it
 * stores, and digest i (at 32*i) lies below every message not yet read. */
static void hash_64(uint8_t *out, const uint8_t *in, size_t n)
{
    st x, y;
    for (; n >= 2; n -= 2, in += 128, out += 64) {
        state_iv(&x);
        state_iv(&y);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        rounds2(&x, &y);
        rounds2_pad(&x, &y);
        state_digest(&x, out);
        state_digest(&y, out + 32);
    }
    if (n) {
        state_iv(&x);
        msg_load(&x, in);
        rounds1(&x);
        rounds1_pad(&x);
        state_digest(&x, out);
    }
}

static void hashd_64(uint8_t *out, const uint8_t *in, size_t n)
{
    st x, y, u, v;
    for (; n >= 2; n -= 2, in += 128, out += 64) {
        state_iv(&x);
        state_iv(&y);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        rounds2(&x, &y);
        rounds2_pad(&x, &y);
        state_iv(&u);
        state_iv(&v);
        msg_digest32(&u, &x);
        msg_digest32(&v, &y);
        rounds2(&u, &v);
        state_digest(&u, out);
        state_digest(&v, out + 32);
    }
    if (n) {
        state_iv(&x);
        msg_load(&x, in);
        rounds1(&x);
        rounds1_pad(&x);
        state_iv(&u);
        msg_digest32(&u, &x);
        rounds1(&u);
        state_digest(&u, out);
    }
}

/* The lane's next block; a finished hash moves the lane to its second
 * hash or to the next message, with the state back to the IV. NULL when
 * nothing is left for this lane. */
BK_INLINE const uint8_t *lane_next(bk_lane *l, st *x, const bk_sha256_msg *msgs, size_t n, size_t *next,
                                   uint8_t *out)
{
    const uint8_t *p = bk_lane_block(l);
    if (p) return p;
    uint32_t s[8];
    state_store(x, s);
    p = bk_lane_hash_done(l, s);
    if (!p) {
        if (*next >= n) return NULL;
        bk_lane_start(l, &msgs[*next], out + 32 * *next);
        (*next)++;
        p = bk_lane_block(l);
    }
    state_iv(x);
    return p;
}

/* Two messages in flight, states in registers; the last one alone. */
static void hashd_msgs(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    bk_lane a, b;
    st x, y;
    size_t next = 0;
    const uint8_t *p = NULL, *q = NULL;
    if (n == 0) return;
    bk_lane_start(&a, &msgs[next], out);
    next++;
    state_load(&x, bk_sha256_iv);
    p = bk_lane_block(&a);
    if (n > 1) {
        bk_lane_start(&b, &msgs[next], out + 32);
        next++;
        state_load(&y, bk_sha256_iv);
        q = bk_lane_block(&b);
    }
    while (p && q) {
        msg_load(&x, p);
        msg_load(&y, q);
        rounds2(&x, &y);
        p = lane_next(&a, &x, msgs, n, &next, out);
        q = lane_next(&b, &y, msgs, n, &next, out);
    }
    for (; p; p = lane_next(&a, &x, msgs, n, &next, out)) {
        msg_load(&x, p);
        rounds1(&x);
    }
    for (; q; q = lane_next(&b, &y, msgs, n, &next, out)) {
        msg_load(&y, q);
        rounds1(&y);
    }
}

void bk_sha256_shani_finish_lanes(bk_lane *const *lanes, uint32_t (*states)[8],
                                  const uint8_t *const *blocks, size_t k)
{
    st x, y;
    size_t next = 0, taken = 0, ia = 0, ib = 0;
    const uint8_t *p = NULL, *q = NULL;
    state_iv(&x);
    state_iv(&y);
    /* Slot a / slot b hold lanes ia / ib; a finished slot takes the next lane. */
    if (taken < k) {
        ia = taken++;
        state_load(&x, states[ia]);
        p = blocks[ia];
    }
    if (taken < k) {
        ib = taken++;
        state_load(&y, states[ib]);
        q = blocks[ib];
    }
    for (;;) {
        while (p && q) {
            msg_load(&x, p);
            msg_load(&y, q);
            rounds2(&x, &y);
            p = lane_next(lanes[ia], &x, NULL, 0, &next, NULL);
            q = lane_next(lanes[ib], &y, NULL, 0, &next, NULL);
        }
        if (!p && taken < k) {
            ia = taken++;
            state_load(&x, states[ia]);
            p = blocks[ia];
            continue;
        }
        if (!q && taken < k) {
            ib = taken++;
            state_load(&y, states[ib]);
            q = blocks[ib];
            continue;
        }
        break;
    }
    for (; p; p = lane_next(lanes[ia], &x, NULL, 0, &next, NULL)) {
        msg_load(&x, p);
        rounds1(&x);
    }
    for (; q; q = lane_next(lanes[ib], &y, NULL, 0, &next, NULL)) {
        msg_load(&y, q);
        rounds1(&y);
    }
}

const bk_sha256_impl bk_sha256_backend_shani = {
    "shani", bk_sha256_compress_shani, hash_64, hashd_64, hashd_msgs,
};

#else
/* Not x86-64: nothing to build (ISO C wants a declaration per file). */
typedef int bk_sha256_shani_not_built;
#endif /* __x86_64__ */
