/* Internal: the SHA-256 backend interface. Not installed.
 *
 * One ISA per file, each compiled with its own flags (cmake/isa.cmake). A
 * backend is a table of kernels; the tables are hidden (-fvisibility=hidden)
 * and reached only through sha256_dispatch.c, which checks the CPU before
 * handing one out, so no per-ISA code can run on a CPU without the feature. */
#ifndef BLOCKKIT_SHA256_IMPL_H
#define BLOCKKIT_SHA256_IMPL_H

#include <blockkit/sha256.h>

#include <stdatomic.h>

extern const uint32_t bk_sha256_k[64];
extern const uint32_t bk_sha256_iv[8];
/* W[i] + K[i] for the padding block of a 64-byte message (0x80, zeros, bit
 * length 512): constant, so the second compression of SHA256(64 bytes)
 * skips its message schedule. */
extern const uint32_t bk_sha256_pad64_wk[64];

/* Kernels of one backend. */
typedef struct bk_sha256_impl {
    const char *name;
    /* Compress nblocks consecutive 64-byte blocks into state s (one stream). */
    void (*compress)(uint32_t s[8], const uint8_t *blocks, size_t nblocks);
    /* bk_sha256_64 / bk_sha256d_64 semantics (n may be 0, out may == in). */
    void (*hash_64)(uint8_t *out, const uint8_t *in, size_t n);
    void (*hashd_64)(uint8_t *out, const uint8_t *in, size_t n);
    /* bk_sha256d_msgs semantics. */
    void (*hashd_msgs)(uint8_t *out, const bk_sha256_msg *msgs, size_t n);
} bk_sha256_impl;

/* The backend tables (hidden symbols; only sha256_dispatch.c uses them,
 * after checking the CPU). */
extern const bk_sha256_impl bk_sha256_backend_portable;
#if defined(__x86_64__)
extern const bk_sha256_impl bk_sha256_backend_shani;      /* four streams */
extern const bk_sha256_impl bk_sha256_backend_shani_x3;   /* three */
extern const bk_sha256_impl bk_sha256_backend_shani_x2;   /* two */
extern const bk_sha256_impl bk_sha256_backend_avx2;
extern const bk_sha256_impl bk_sha256_backend_avx512;
extern const bk_sha256_impl bk_sha256_backend_avx512_shani;
/* The same two with the two-group kernels' message schedule as a pass
 * before the rounds ("avx512/pass"; sha256_avx512.c, SCHED_PASS). */
extern const bk_sha256_impl bk_sha256_backend_avx512_pass;
extern const bk_sha256_impl bk_sha256_backend_avx512_pass_shani;
/* SHA-NI single-stream compression (only on CPUs with SHA-NI). */
void bk_sha256_compress_shani(uint32_t s[8], const uint8_t *blocks, size_t nblocks);
/* SHA-NI: finish k lanes already in flight (sha256_lane.h; states[i] the
 * state of lanes[i], blocks[i] its next block), several at a time; no new
 * messages are started. For the AVX-512 driver's tail. */
struct bk_lane;
/* How many streams bk_sha256_shani_finish_lanes interleaves (2..4; the
 * calibration stores the count of the fastest SHA-NI variant; relaxed
 * atomic: any value is correct, only speed differs). */
extern _Atomic unsigned bk_sha256_shani_tail_streams;
/* The AVX-512 backend with SHA-NI: a batch or remainder of fewer than
 * bk_sha256_avx512_small[0] messages goes to SHA-NI streams instead of a
 * 16-lane group, and a remainder of 17..31 with fewer than
 * bk_sha256_avx512_small[1] past 16 to one group plus SHA-NI instead of a
 * two-group step. 1..16 each; 8 and 7 (measured on Emerald Rapids) until
 * the calibration measures this CPU's (relaxed atomics: any value is
 * correct, only speed differs). */
extern _Atomic unsigned bk_sha256_avx512_small[2];
/* SHA-NI bk_sha256_64 / bk_sha256d_64 with that many streams (the AVX-512
 * backend's short batches). */
void bk_sha256_shani_small_64(uint8_t *out, const uint8_t *in, size_t n);
void bk_sha256_shani_small_d64(uint8_t *out, const uint8_t *in, size_t n);
void bk_sha256_shani_small_msgs(uint8_t *out, const bk_sha256_msg *msgs, size_t n);
void bk_sha256_shani_finish_lanes(struct bk_lane *const *lanes, uint32_t (*states)[8],
                                  const uint8_t *const *blocks, size_t k);
#endif
#if defined(__aarch64__)
extern const bk_sha256_impl bk_sha256_backend_armv8;
#endif

/* The backend in use (selects one on first call; sha256_dispatch.c). */
const bk_sha256_impl *bk_sha256_active(void);

/* Portable compression (FIPS 180-4), always built. */
void bk_sha256_compress_portable(uint32_t s[8], const uint8_t *blocks, size_t nblocks);

/* Multi-message scheduler (sha256_msgs.c): hashes msgs with `lanes`
 * messages in flight. compress_lanes compresses nblocks consecutive blocks
 * (from blocks[i], blocks[i] + 64, ...) into each of `lanes` states;
 * compress1 (one state) is used when a single message remains, so no lane
 * work is wasted at the tail. lanes <= 16. */
typedef void (*bk_sha256_lanes_fn)(uint32_t *const *states, const uint8_t *const *blocks, size_t nblocks);
void bk_sha256d_msgs_lanes(uint8_t *out, const bk_sha256_msg *msgs, size_t n, unsigned lanes,
                           bk_sha256_lanes_fn compress_lanes,
                           void (*compress1)(uint32_t s[8], const uint8_t *blocks, size_t nblocks));

static inline void bk_sha256_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint32_t bk_sha256_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif
