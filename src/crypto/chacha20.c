/* ChaCha20 from RFC 8439: state = 4 constant words, 8 key words, the block
 * counter, 3 nonce words; 20 rounds (10 column + diagonal double rounds);
 * the input added back; serialized little-endian. */
#include "chacha20.h"

#include <string.h>

static inline uint32_t rotl32(uint32_t v, int c) { return (v << c) | (v >> (32 - c)); }

static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

#define QR(a, b, c, d)                 \
    do {                               \
        a += b; d ^= a; d = rotl32(d, 16); \
        c += d; b ^= c; b = rotl32(b, 12); \
        a += b; d ^= a; d = rotl32(d, 8);  \
        c += d; b ^= c; b = rotl32(b, 7);  \
    } while (0)

static void chacha_setup(uint32_t st[16], const uint8_t key[32], uint32_t counter, const uint8_t nonce[12])
{
    /* "expand 32-byte k" */
    st[0] = 0x61707865u;
    st[1] = 0x3320646eu;
    st[2] = 0x79622d32u;
    st[3] = 0x6b206574u;
    for (int i = 0; i < 8; i++) st[4 + i] = le32(key + 4 * i);
    st[12] = counter;
    st[13] = le32(nonce);
    st[14] = le32(nonce + 4);
    st[15] = le32(nonce + 8);
}

static void chacha_core(const uint32_t in[16], uint8_t out[64])
{
    uint32_t x0 = in[0], x1 = in[1], x2 = in[2], x3 = in[3], x4 = in[4], x5 = in[5], x6 = in[6],
             x7 = in[7], x8 = in[8], x9 = in[9], x10 = in[10], x11 = in[11], x12 = in[12],
             x13 = in[13], x14 = in[14], x15 = in[15];
    for (int i = 0; i < 10; i++) {
        QR(x0, x4, x8, x12);
        QR(x1, x5, x9, x13);
        QR(x2, x6, x10, x14);
        QR(x3, x7, x11, x15);
        QR(x0, x5, x10, x15);
        QR(x1, x6, x11, x12);
        QR(x2, x7, x8, x13);
        QR(x3, x4, x9, x14);
    }
    uint32_t x[16] = {x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15};
    for (int i = 0; i < 16; i++) {
        uint32_t v = x[i] + in[i];
        out[4 * i] = (uint8_t)v;
        out[4 * i + 1] = (uint8_t)(v >> 8);
        out[4 * i + 2] = (uint8_t)(v >> 16);
        out[4 * i + 3] = (uint8_t)(v >> 24);
    }
}

void bk_chacha20_block(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12], uint8_t out[64])
{
    uint32_t st[16];
    chacha_setup(st, key, counter, nonce);
    chacha_core(st, out);
}

#if defined(__GNUC__)
/* Four blocks at once, one per vector lane (counters c..c+3): GCC/clang
 * vector extensions, SSE2/NEON/AVX-512 as the target allows. Same
 * arithmetic as chacha_core, lane by lane. */
typedef uint32_t v4u __attribute__((vector_size(16)));

static inline v4u vrotl(v4u v, int c) { return (v << c) | (v >> (32 - c)); }

#define VQR(a, b, c, d)                     \
    do {                                    \
        a += b; d ^= a; d = vrotl(d, 16);   \
        c += d; b ^= c; b = vrotl(b, 12);   \
        a += b; d ^= a; d = vrotl(d, 8);    \
        c += d; b ^= c; b = vrotl(b, 7);    \
    } while (0)

static void chacha_core4(const uint32_t in[16], uint8_t out[256])
{
    v4u x[16], s[16];
    for (int i = 0; i < 16; i++) {
        v4u v = {in[i], in[i], in[i], in[i]};
        s[i] = v;
    }
    v4u inc = {0, 1, 2, 3};
    s[12] += inc;
    for (int i = 0; i < 16; i++) x[i] = s[i];
    for (int r = 0; r < 10; r++) {
        VQR(x[0], x[4], x[8], x[12]);
        VQR(x[1], x[5], x[9], x[13]);
        VQR(x[2], x[6], x[10], x[14]);
        VQR(x[3], x[7], x[11], x[15]);
        VQR(x[0], x[5], x[10], x[15]);
        VQR(x[1], x[6], x[11], x[12]);
        VQR(x[2], x[7], x[8], x[13]);
        VQR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) x[i] += s[i];
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < 16; i++) {
            uint32_t v = x[i][b];
            uint8_t *o = out + 64 * b + 4 * i;
            o[0] = (uint8_t)v;
            o[1] = (uint8_t)(v >> 8);
            o[2] = (uint8_t)(v >> 16);
            o[3] = (uint8_t)(v >> 24);
        }
}
#endif

#if defined(__GNUC__) && defined(__x86_64__)
/* Eight blocks at once in AVX2 lanes (chosen at run time). */
typedef uint32_t v8u __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static inline v8u vrotl8(v8u v, int c) { return (v << c) | (v >> (32 - c)); }

/* The quarter round on vectors, with the rotation rot of their width. */
#define VQR_ROT(rot, a, b, c, d)         \
    do {                                 \
        a += b; d ^= a; d = rot(d, 16);  \
        c += d; b ^= c; b = rot(b, 12);  \
        a += b; d ^= a; d = rot(d, 8);   \
        c += d; b ^= c; b = rot(b, 7);   \
    } while (0)
#define VQR8(a, b, c, d) VQR_ROT(vrotl8, a, b, c, d)

__attribute__((target("avx2"))) static void chacha_core8(const uint32_t in[16], uint8_t out[512])
{
    v8u x[16], s[16];
    for (int i = 0; i < 16; i++) {
        v8u v = {in[i], in[i], in[i], in[i], in[i], in[i], in[i], in[i]};
        s[i] = v;
    }
    v8u inc = {0, 1, 2, 3, 4, 5, 6, 7};
    s[12] += inc;
    for (int i = 0; i < 16; i++) x[i] = s[i];
    for (int r = 0; r < 10; r++) {
        VQR8(x[0], x[4], x[8], x[12]);
        VQR8(x[1], x[5], x[9], x[13]);
        VQR8(x[2], x[6], x[10], x[14]);
        VQR8(x[3], x[7], x[11], x[15]);
        VQR8(x[0], x[5], x[10], x[15]);
        VQR8(x[1], x[6], x[11], x[12]);
        VQR8(x[2], x[7], x[8], x[13]);
        VQR8(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) x[i] += s[i];
    /* x86 is little-endian: the words go out as they are, lane b to block b
     * (a store of all lanes, then a gather-free transpose through memory). */
    uint32_t w[16][8];
    memcpy(w, x, sizeof w);
    for (int b = 0; b < 8; b++) {
        uint32_t blk[16];
        for (int i = 0; i < 16; i++) blk[i] = w[i][b];
        memcpy(out + 64 * b, blk, 64);
    }
}

static int have_avx2(void)
{
    static int cached = -1; /* a benign race: every thread computes the same value */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

/* ---- MuHash elements: 6 blocks per key, lanes across keys ----
 *
 * Block i of the batch is block i % 6 of key i / 6, and its 64 bytes go to
 * out + 64 i, so element k is out + 384 k. The lanes of one run take
 * blocks i0 .. i0 + L - 1: each lane its own key words and counter. */
#define EL_BLOCKS 6

static void el_lane_state(const uint8_t *keys, size_t i, uint32_t st[16])
{
    static const uint8_t zero_nonce[12] = {0};
    chacha_setup(st, keys + 32 * (i / EL_BLOCKS), (uint32_t)(i % EL_BLOCKS), zero_nonce);
}

#if defined(__GNUC__) && defined(__x86_64__)
typedef uint32_t v16u __attribute__((vector_size(64)));

__attribute__((target("avx512f"))) static inline v16u vrotl16(v16u v, int c) { return (v << c) | (v >> (32 - c)); }

#define VQR16(a, b, c, d) VQR_ROT(vrotl16, a, b, c, d)

/* el_run<L>: blocks i0 .. i0 + L - 1 (those below total) into out + 64 i,
 * one per lane of vector type V (QR its quarter round). */
#define EL_RUN(name, target_isa, V, L, QR)                                                        \
    __attribute__((target(target_isa))) static void name(const uint8_t *keys, size_t i0, size_t total, \
                                                         uint8_t *out)                             \
    {                                                                                             \
        uint32_t in[16][L]; /* in[word][lane] */                                                  \
        for (int l = 0; l < (L); l++) {                                                           \
            uint32_t st[16];                                                                      \
            el_lane_state(keys, i0 + (size_t)l < total ? i0 + (size_t)l : i0, st);                \
            for (int i = 0; i < 16; i++) in[i][l] = st[i];                                        \
        }                                                                                         \
        V x[16], s[16];                                                                           \
        memcpy(s, in, sizeof s);                                                                  \
        for (int i = 0; i < 16; i++) x[i] = s[i];                                                 \
        for (int r = 0; r < 10; r++) {                                                            \
            QR(x[0], x[4], x[8], x[12]);                                                          \
            QR(x[1], x[5], x[9], x[13]);                                                          \
            QR(x[2], x[6], x[10], x[14]);                                                         \
            QR(x[3], x[7], x[11], x[15]);                                                         \
            QR(x[0], x[5], x[10], x[15]);                                                         \
            QR(x[1], x[6], x[11], x[12]);                                                         \
            QR(x[2], x[7], x[8], x[13]);                                                          \
            QR(x[3], x[4], x[9], x[14]);                                                          \
        }                                                                                         \
        for (int i = 0; i < 16; i++) x[i] += s[i];                                                \
        uint32_t w[16][L];                                                                        \
        memcpy(w, x, sizeof w);                                                                   \
        for (int l = 0; l < (L) && i0 + (size_t)l < total; l++) {                                 \
            uint32_t blk[16];                                                                     \
            for (int i = 0; i < 16; i++) blk[i] = w[i][l];                                        \
            memcpy(out + 64 * (i0 + (size_t)l), blk, 64); /* little-endian words */               \
        }                                                                                         \
    }

EL_RUN(el_run16, "avx512f", v16u, 16, VQR16)
EL_RUN(el_run8, "avx2", v8u, 8, VQR8)

static int have_avx512(void)
{
    static int cached = -1; /* a benign race, as have_avx2's */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx512f") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

int bk_chacha20_elements_lanes(const uint8_t *keys, size_t n, uint8_t *out, int lanes)
{
    size_t total = EL_BLOCKS * n;
    (void)lanes; /* only the x86-64 kernels read it */
#if defined(__GNUC__) && defined(__x86_64__)
    if (lanes >= 16 && have_avx512()) {
        for (size_t i = 0; i < total; i += 16) el_run16(keys, i, total, out);
        return 16;
    }
    if (lanes >= 8 && have_avx2()) {
        for (size_t i = 0; i < total; i += 8) el_run8(keys, i, total, out);
        return 8;
    }
#endif
    for (size_t i = 0; i < total; i++) {
        uint32_t st[16];
        el_lane_state(keys, i, st);
        chacha_core(st, out + 64 * i);
    }
    return 1;
}

void bk_chacha20_elements(const uint8_t *keys, size_t n, uint8_t *out) { (void)bk_chacha20_elements_lanes(keys, n, out, 16); }

void bk_chacha20_stream(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12], uint8_t *out,
                        size_t len)
{
    uint32_t st[16];
    chacha_setup(st, key, counter, nonce);
#if defined(__GNUC__) && defined(__x86_64__)
    if (len > 256 && have_avx2()) {
        while (len >= 512) {
            chacha_core8(st, out);
            st[12] += 8;
            out += 512;
            len -= 512;
        }
        if (len > 256) {
            uint8_t tmp[512];
            chacha_core8(st, tmp);
            memcpy(out, tmp, len);
            return;
        }
    }
#endif
#if defined(__GNUC__)
    while (len >= 256) {
        chacha_core4(st, out);
        st[12] += 4;
        out += 256;
        len -= 256;
    }
    if (len > 128) {
        uint8_t tmp[256];
        chacha_core4(st, tmp);
        memcpy(out, tmp, len);
        return;
    }
#endif
    while (len >= 64) {
        chacha_core(st, out);
        st[12]++;
        out += 64;
        len -= 64;
    }
    if (len) {
        uint8_t tmp[64];
        chacha_core(st, tmp);
        memcpy(out, tmp, len);
    }
}

void bk_chacha20_xor(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12], const uint8_t *in,
                     uint8_t *out, size_t len)
{
    uint32_t st[16];
    chacha_setup(st, key, counter, nonce);
    uint8_t ks[64];
    while (len) {
        chacha_core(st, ks);
        st[12]++;
        size_t n = len < 64 ? len : 64;
        for (size_t i = 0; i < n; i++) out[i] = in[i] ^ ks[i];
        in += n;
        out += n;
        len -= n;
    }
}
