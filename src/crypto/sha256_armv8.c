/* SHA-256 with the ARMv8 cryptography extensions (compiled with
 * -march=armv8-a+crypto on arm64 only; reached only through
 * sha256_dispatch.c after HWCAP_SHA2 says the instructions exist).
 * Same shape as the SHA-NI backend: two independent messages interleaved
 * in the batch kernels, the 64-byte message's padding block compressed from
 * its precomputed W+K. */
#if defined(__aarch64__)

#include "sha256_lane.h"

#include <arm_neon.h>

#define BK_INLINE static inline __attribute__((always_inline))

typedef struct st {
    uint32x4_t abcd, efgh;
    uint32x4_t m[4];
    uint32x4_t save0, save1;
} st;

BK_INLINE void state_load(st *x, const uint32_t s[8])
{
    x->abcd = vld1q_u32(s);
    x->efgh = vld1q_u32(s + 4);
}

BK_INLINE void state_store(const st *x, uint32_t s[8])
{
    vst1q_u32(s, x->abcd);
    vst1q_u32(s + 4, x->efgh);
}

BK_INLINE void state_digest(const st *x, uint8_t *out)
{
    vst1q_u8(out, vrev32q_u8(vreinterpretq_u8_u32(x->abcd)));
    vst1q_u8(out + 16, vrev32q_u8(vreinterpretq_u8_u32(x->efgh)));
}

BK_INLINE void msg_load(st *x, const uint8_t *p)
{
    for (int i = 0; i < 4; i++) x->m[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p + 16 * i)));
}

/* Second hash of SHA256d: the digest words, then 0x80000000, 0 x 6, 256. */
BK_INLINE void msg_digest32(st *x, const st *y)
{
    static const uint32_t pad[8] = {0x80000000u, 0, 0, 0, 0, 0, 0, 256};
    x->m[0] = y->abcd;
    x->m[1] = y->efgh;
    x->m[2] = vld1q_u32(pad);
    x->m[3] = vld1q_u32(pad + 4);
}

BK_INLINE void begin(st *x)
{
    x->save0 = x->abcd;
    x->save1 = x->efgh;
}

BK_INLINE void end(st *x)
{
    x->abcd = vaddq_u32(x->abcd, x->save0);
    x->efgh = vaddq_u32(x->efgh, x->save1);
}

BK_INLINE void quad(st *x, uint32x4_t wk)
{
    uint32x4_t abcd = x->abcd;
    x->abcd = vsha256hq_u32(abcd, x->efgh, wk);
    x->efgh = vsha256h2q_u32(x->efgh, abcd, wk);
}

/* Rounds 4g..4g+3 with the message schedule (sha256su0/su1 compute
 * W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], FIPS 180-4 6.2.2). */
BK_INLINE void step(st *x, int g)
{
    if (g >= 4) {
        uint32x4_t *a = &x->m[g & 3];
        *a = vsha256su1q_u32(vsha256su0q_u32(*a, x->m[(g + 1) & 3]), x->m[(g + 2) & 3], x->m[(g + 3) & 3]);
    }
    quad(x, vaddq_u32(x->m[g & 3], vld1q_u32(bk_sha256_k + 4 * g)));
}

BK_INLINE void step_pad(st *x, int g)
{
    quad(x, vld1q_u32(bk_sha256_pad64_wk + 4 * g));
}

#define G16(F) F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)

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

static void compress(uint32_t s[8], const uint8_t *blocks, size_t nblocks)
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


/* In place is safe: messages are loaded before their digests are stored,
 * and digest i lies below every message not yet read. */
static void hash_64(uint8_t *out, const uint8_t *in, size_t n)
{
    st x, y;
    for (; n >= 2; n -= 2, in += 128, out += 64) {
        state_load(&x, bk_sha256_iv);
        state_load(&y, bk_sha256_iv);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        rounds2(&x, &y);
        rounds2_pad(&x, &y);
        state_digest(&x, out);
        state_digest(&y, out + 32);
    }
    if (n) {
        state_load(&x, bk_sha256_iv);
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
        state_load(&x, bk_sha256_iv);
        state_load(&y, bk_sha256_iv);
        msg_load(&x, in);
        msg_load(&y, in + 64);
        rounds2(&x, &y);
        rounds2_pad(&x, &y);
        state_load(&u, bk_sha256_iv);
        state_load(&v, bk_sha256_iv);
        msg_digest32(&u, &x);
        msg_digest32(&v, &y);
        rounds2(&u, &v);
        state_digest(&u, out);
        state_digest(&v, out + 32);
    }
    if (n) {
        state_load(&x, bk_sha256_iv);
        msg_load(&x, in);
        rounds1(&x);
        rounds1_pad(&x);
        state_load(&u, bk_sha256_iv);
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
    state_load(x, bk_sha256_iv);
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

const bk_sha256_impl bk_sha256_backend_armv8 = {
    "armv8", compress, hash_64, hashd_64, hashd_msgs,
};

#else
/* Not arm64: nothing to build (ISO C wants a declaration per file). */
typedef int bk_sha256_armv8_not_built;
#endif /* __aarch64__ */
