/* SHA-256 with the x86 SHA extensions (compiled with -msha -msse4.1 -mssse3;
 * reached only through sha256_dispatch.c after CPUID says SHA, SSE4.1 and
 * SSSE3 are present).
 *
 * sha256rnds2 has a long latency and a short reciprocal throughput: one
 * dependent stream runs at a fraction of the unit's speed (AMD Zen1: 51.7
 * ns per compression with one stream, 25.8 with two; Zen5: 29.2 / 18.7 /
 * 16.2 / 14.8 with one to four). So the batch kernels keep four independent
 * messages interleaved instruction by instruction (then two, then one for
 * the remainder), and the constant padding block of a 64-byte message is
 * compressed from its precomputed W+K (no message schedule). */
#if defined(__x86_64__)

#include "sha256_lane.h"

#include <immintrin.h>

#define BK_INLINE static inline __attribute__((always_inline))
#define BK_PRAGMA(x) _Pragma(#x)

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

/* One block in each of two, three or four streams, interleaved group by
 * group. */
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

BK_INLINE void rounds3(st *x, st *y, st *z)
{
#define S3_(g) step(x, g); step(y, g); step(z, g);
    begin(x);
    begin(y);
    begin(z);
    G16(S3_)
    end(x);
    end(y);
    end(z);
#undef S3_
}

BK_INLINE void rounds4(st *x, st *y, st *z, st *u)
{
#define S4_(g) step(x, g); step(y, g); step(z, g); step(u, g);
    begin(x);
    begin(y);
    begin(z);
    begin(u);
    G16(S4_)
    end(x);
    end(y);
    end(z);
    end(u);
#undef S4_
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

BK_INLINE void rounds3_pad(st *x, st *y, st *z)
{
#define P3_(g) step_pad(x, g); step_pad(y, g); step_pad(z, g);
    begin(x);
    begin(y);
    begin(z);
    G16(P3_)
    end(x);
    end(y);
    end(z);
#undef P3_
}

BK_INLINE void rounds4_pad(st *x, st *y, st *z, st *u)
{
#define P4_(g) step_pad(x, g); step_pad(y, g); step_pad(z, g); step_pad(u, g);
    begin(x);
    begin(y);
    begin(z);
    begin(u);
    G16(P4_)
    end(x);
    end(y);
    end(z);
    end(u);
#undef P4_
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

/* `streams` (2, 3 or 4) messages at a time, then two, then one.
 * sha256rnds2 reaches its throughput only with several independent chains
 * (AMD Zen5: 29.2 / 18.7 / 16.2 / 14.8 ns per compression with 1 / 2 / 3 / 4;
 * Intel Emerald Rapids: 45 / 33 / 33 / 33, where the four-stream kernel's
 * register spills make it slower than two): the dispatcher measures which.
 * In place (out == in) is safe: each step loads its messages before it
 * stores, and digest i (at 32*i) lies below every message not yet read. */
BK_INLINE void hash_64_n(uint8_t *out, const uint8_t *in, size_t n, int streams)
{
    st x, y, z, u;
    for (; streams == 4 && n >= 4; n -= 4, in += 256, out += 128) {
        state_iv(&x);
        state_iv(&y);
        state_iv(&z);
        state_iv(&u);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        msg_load(&z, in + 128);
        msg_load(&u, in + 192);
        rounds4(&x, &y, &z, &u);
        rounds4_pad(&x, &y, &z, &u);
        state_digest(&x, out);
        state_digest(&y, out + 32);
        state_digest(&z, out + 64);
        state_digest(&u, out + 96);
    }
    for (; streams == 3 && n >= 3; n -= 3, in += 192, out += 96) {
        state_iv(&x);
        state_iv(&y);
        state_iv(&z);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        msg_load(&z, in + 128);
        rounds3(&x, &y, &z);
        rounds3_pad(&x, &y, &z);
        state_digest(&x, out);
        state_digest(&y, out + 32);
        state_digest(&z, out + 64);
    }
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

BK_INLINE void hashd_64_n(uint8_t *out, const uint8_t *in, size_t n, int streams)
{
    st x, y, z, u;
    for (; streams == 4 && n >= 4; n -= 4, in += 256, out += 128) {
        st a, b, c, e;
        state_iv(&x);
        state_iv(&y);
        state_iv(&z);
        state_iv(&u);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        msg_load(&z, in + 128);
        msg_load(&u, in + 192);
        rounds4(&x, &y, &z, &u);
        rounds4_pad(&x, &y, &z, &u);
        state_iv(&a);
        state_iv(&b);
        state_iv(&c);
        state_iv(&e);
        msg_digest32(&a, &x);
        msg_digest32(&b, &y);
        msg_digest32(&c, &z);
        msg_digest32(&e, &u);
        rounds4(&a, &b, &c, &e);
        state_digest(&a, out);
        state_digest(&b, out + 32);
        state_digest(&c, out + 64);
        state_digest(&e, out + 96);
    }
    for (; streams == 3 && n >= 3; n -= 3, in += 192, out += 96) {
        st a, b, c;
        state_iv(&x);
        state_iv(&y);
        state_iv(&z);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        msg_load(&z, in + 128);
        rounds3(&x, &y, &z);
        rounds3_pad(&x, &y, &z);
        state_iv(&a);
        state_iv(&b);
        state_iv(&c);
        msg_digest32(&a, &x);
        msg_digest32(&b, &y);
        msg_digest32(&c, &z);
        rounds3(&a, &b, &c);
        state_digest(&a, out);
        state_digest(&b, out + 32);
        state_digest(&c, out + 64);
    }
    for (; n >= 2; n -= 2, in += 128, out += 64) {
        st a, b;
        state_iv(&x);
        state_iv(&y);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        rounds2(&x, &y);
        rounds2_pad(&x, &y);
        state_iv(&a);
        state_iv(&b);
        msg_digest32(&a, &x);
        msg_digest32(&b, &y);
        rounds2(&a, &b);
        state_digest(&a, out);
        state_digest(&b, out + 32);
    }
    if (n) {
        st a;
        state_iv(&x);
        msg_load(&x, in);
        rounds1(&x);
        rounds1_pad(&x);
        state_iv(&a);
        msg_digest32(&a, &x);
        rounds1(&a);
        state_digest(&a, out);
    }
}

_Atomic unsigned bk_sha256_shani_tail_streams = 4;

static void hash_64_x4(uint8_t *out, const uint8_t *in, size_t n) { hash_64_n(out, in, n, 4); }
static void hash_64_x3(uint8_t *out, const uint8_t *in, size_t n) { hash_64_n(out, in, n, 3); }
static void hash_64_x2(uint8_t *out, const uint8_t *in, size_t n) { hash_64_n(out, in, n, 2); }
static void hashd_64_x4(uint8_t *out, const uint8_t *in, size_t n) { hashd_64_n(out, in, n, 4); }
static void hashd_64_x3(uint8_t *out, const uint8_t *in, size_t n) { hashd_64_n(out, in, n, 3); }
static void hashd_64_x2(uint8_t *out, const uint8_t *in, size_t n) { hashd_64_n(out, in, n, 2); }

/* Short batches for the AVX-512 backend (bk_sha256_avx512_small), with the
 * stream count the calibration measured fastest. */
void bk_sha256_shani_small_64(uint8_t *out, const uint8_t *in, size_t n)
{
    unsigned k = atomic_load_explicit(&bk_sha256_shani_tail_streams, memory_order_relaxed);
    if (k == 2) hash_64_x2(out, in, n);
    else if (k == 3) hash_64_x3(out, in, n);
    else hash_64_x4(out, in, n);
}

void bk_sha256_shani_small_d64(uint8_t *out, const uint8_t *in, size_t n)
{
    unsigned k = atomic_load_explicit(&bk_sha256_shani_tail_streams, memory_order_relaxed);
    if (k == 2) hashd_64_x2(out, in, n);
    else if (k == 3) hashd_64_x3(out, in, n);
    else hashd_64_x4(out, in, n);
}

/* Up to four streams over segmented messages (sha256_lane.h). Slot i
 * (0 <= i < k) runs lane ln[i] with state x[i] and next block p[i]. A lane
 * whose message is done takes the next message (from msgs) or, once those
 * run out, the next pending lane (a batch handed over with its states,
 * from the AVX-512 driver); with nothing left the last slot moves into the
 * finished one. */
typedef struct slots {
    st x[4];
    bk_lane *ln[4];
    const uint8_t *p[4];
    unsigned k;
    const bk_sha256_msg *msgs;
    size_t n, next;
    uint8_t *out;
    bk_lane *const *pend;
    uint32_t (*pend_st)[8];
    const uint8_t *const *pend_blk;
    size_t npend, taken;
    unsigned max;             /* streams: 2, 3 or 4 */
} slots;

/* A slot's next block when its message words are already in its st (the
 * second hash of SHA256d, built from the state in registers). */
static const uint8_t in_registers[1];

/* Fill slot i with new work; 0 when there is none. */
BK_INLINE int slot_fill(slots *S, unsigned i, bk_lane *spare)
{
    if (S->next < S->n) {
        bk_lane_start(spare, &S->msgs[S->next], S->out + 32 * S->next);
        S->next++;
        S->ln[i] = spare;
        state_iv(&S->x[i]);
        S->p[i] = bk_lane_block(spare);
        return 1;
    }
    if (S->taken < S->npend) {
        size_t t = S->taken++;
        S->ln[i] = S->pend[t];
        state_load(&S->x[i], S->pend_st[t]);
        S->p[i] = S->pend_blk[t];
        return 1;
    }
    return 0;
}

/* K (constant) busy slots with their states copied into locals, so they
 * stay in registers, until one slot's message is done; then back to S. */
BK_INLINE void run_k(slots *S, unsigned K)
{
    st x[4];
    BK_PRAGMA(GCC unroll 4)
    for (unsigned i = 0; i < K; i++) x[i] = S->x[i];
    for (;;) {
        BK_PRAGMA(GCC unroll 4)
        for (unsigned i = 0; i < K; i++)
            if (S->p[i] != in_registers) msg_load(&x[i], S->p[i]);
        if (K == 4) rounds4(&x[0], &x[1], &x[2], &x[3]);
        else if (K == 3) rounds3(&x[0], &x[1], &x[2]);
        else if (K == 2) rounds2(&x[0], &x[1]);
        else rounds1(&x[0]);
        int ended = 0;
        BK_PRAGMA(GCC unroll 4)
        for (unsigned i = 0; i < K; i++) {
            const uint8_t *p = bk_lane_block(S->ln[i]);
            if (!p && S->ln[i]->stage != BK_LANE_SECOND) {
                /* First hash done: the second's block straight from the
                 * state registers (msg_digest32), not through memory. */
                st d = x[i];
                bk_lane_second_in_registers(S->ln[i]);
                state_iv(&x[i]);
                msg_digest32(&x[i], &d);
                p = in_registers;
            } else if (!p) {
                uint32_t st8[8];
                state_store(&x[i], st8);
                p = bk_lane_hash_done(S->ln[i], st8);
                state_iv(&x[i]);
                ended |= !p;
            }
            S->p[i] = p;
        }
        if (ended) break;
    }
    BK_PRAGMA(GCC unroll 4)
    for (unsigned i = 0; i < K; i++) S->x[i] = x[i];
}

static void slots_run(slots *S, bk_lane *own)
{
    S->k = 0;
    for (unsigned i = 0; i < S->max; i++)
        if (slot_fill(S, S->k, own ? &own[i] : NULL)) S->k++;
    while (S->k) {
        switch (S->k) {
        case 4: run_k(S, 4); break;
        case 3: run_k(S, 3); break;
        case 2: run_k(S, 2); break;
        default: run_k(S, 1); break;
        }
        /* Refill the slots whose message is done, else close them up (from
         * the top: a slot moved into i comes from above, already settled). */
        for (unsigned i = S->k; i-- > 0;) {
            if (S->p[i]) continue;
            if (slot_fill(S, i, S->ln[i])) continue;
            S->k--;
            if (i != S->k) {
                S->x[i] = S->x[S->k];
                S->ln[i] = S->ln[S->k];
                S->p[i] = S->p[S->k];
            }
        }
    }
}

static void hashd_msgs_n(uint8_t *out, const bk_sha256_msg *msgs, size_t n, unsigned streams)
{
    bk_lane L[4];
    slots S;
    S.msgs = msgs;
    S.n = n;
    S.next = 0;
    S.out = out;
    S.npend = S.taken = 0;
    S.pend = NULL;
    S.pend_st = NULL;
    S.pend_blk = NULL;
    S.max = streams;
    slots_run(&S, L);
}

static void hashd_msgs_x4(uint8_t *out, const bk_sha256_msg *msgs, size_t n) { hashd_msgs_n(out, msgs, n, 4); }
static void hashd_msgs_x3(uint8_t *out, const bk_sha256_msg *msgs, size_t n) { hashd_msgs_n(out, msgs, n, 3); }
static void hashd_msgs_x2(uint8_t *out, const bk_sha256_msg *msgs, size_t n) { hashd_msgs_n(out, msgs, n, 2); }

void bk_sha256_shani_small_msgs(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    unsigned k = atomic_load_explicit(&bk_sha256_shani_tail_streams, memory_order_relaxed);
    hashd_msgs_n(out, msgs, n, k >= 2 && k <= 4 ? k : 4);
}

void bk_sha256_shani_finish_lanes(bk_lane *const *lanes, uint32_t (*states)[8],
                                  const uint8_t *const *blocks, size_t k)
{
    slots S;
    S.msgs = NULL;
    S.n = S.next = 0;
    S.out = NULL;
    S.pend = lanes;
    S.pend_st = states;
    S.pend_blk = blocks;
    S.npend = k;
    S.taken = 0;
    S.max = atomic_load_explicit(&bk_sha256_shani_tail_streams, memory_order_relaxed);
    if (S.max < 1 || S.max > 4) S.max = 4;
    slots_run(&S, NULL);
}

/* Four streams; the dispatcher also measures the three- and two-stream
 * variants and uses the fastest per call shape. */
const bk_sha256_impl bk_sha256_backend_shani = {
    "shani", bk_sha256_compress_shani, hash_64_x4, hashd_64_x4, hashd_msgs_x4,
};
const bk_sha256_impl bk_sha256_backend_shani_x3 = {
    "shani/x3", bk_sha256_compress_shani, hash_64_x3, hashd_64_x3, hashd_msgs_x3,
};
const bk_sha256_impl bk_sha256_backend_shani_x2 = {
    "shani/x2", bk_sha256_compress_shani, hash_64_x2, hashd_64_x2, hashd_msgs_x2,
};

#else
/* Not x86-64: nothing to build (ISO C wants a declaration per file). */
typedef int bk_sha256_shani_not_built;
#endif /* __x86_64__ */
