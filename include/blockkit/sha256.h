/* blockkit: SHA-256 engine.
 *
 * One hot primitive, shaped like the work: many independent 64-byte messages
 * (SSZ pairs, Bitcoin merkle nodes) and many independent multi-part messages
 * (txids), hashed two or more at a time so SHA-NI's pipeline stays full.
 *
 * Backends: "portable" (always), "shani" (x86 SHA extensions, four messages
 * interleaved; "shani/x3" and "shani/x2" interleave three and two),
 * "avx512" (32 messages in two groups of 16 AVX-512F/BW lanes; streaming,
 * one-shot and short batches use SHA-NI when present, below crossovers the
 * calibration measures; "avx512/pass" computes the message schedule before
 * the rounds instead of inside them, faster on some CPUs), "avx2" (8-way),
 * "armv8" (ARMv8 crypto extensions, built on arm64 only).
 *
 * The automatic choice ("auto") is made per call shape (batched 64-byte
 * messages, batched SHA256d of 64 bytes, segmented messages, one stream) by
 * measuring every backend this CPU runs, once, at first use: a few
 * interleaved samples of each, best sample kept, bounded to a few
 * milliseconds (bk_sha256_calibration reports the figures). It never
 * depends on the CPU vendor and never considers a backend the CPU lacks
 * the instructions for. BLOCKKIT_SHA256=<name> in the environment (read at
 * that first use; an unusable name is ignored) or bk_sha256_use() forces
 * one backend for every shape (no measuring). BLOCKKIT_SHA256_MASK=<list>
 * (comma-separated: shani, avx512, avx2, armv8) makes the library treat
 * those CPU features as absent, for testing. A backend self-tests against
 * known answers before it is used and is refused if it fails. All
 * functions here are thread-safe; none allocates.
 * Valgrind hides SHA-NI and AVX-512 from the CPUID it emulates, so under it
 * the choice falls to avx2 or portable (BLOCKKIT_SHA256=portable forces the
 * plain C path for callgrind). */
#ifndef BLOCKKIT_SHA256_H
#define BLOCKKIT_SHA256_H

#include <blockkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_SHA256_LEN 32

/* Streaming context (plain data, may be copied, needs no cleanup). */
typedef struct bk_sha256_ctx {
    uint32_t s[8];
    uint64_t bytes;        /* total bytes hashed so far */
    uint8_t buf[64];       /* pending partial block */
} bk_sha256_ctx;

BK_API void bk_sha256_init(bk_sha256_ctx *ctx);
BK_API void bk_sha256_update(bk_sha256_ctx *ctx, const void *data, size_t len);
BK_API void bk_sha256_final(bk_sha256_ctx *ctx, uint8_t out[32]);

/* One-shot SHA-256 and double SHA-256 (SHA256(SHA256(x)), Bitcoin's hash). */
BK_API void bk_sha256(uint8_t out[32], const void *data, size_t len);
BK_API void bk_sha256d(uint8_t out[32], const void *data, size_t len);

/* n independent SHA-256 of 64-byte messages: out[32*i..] = SHA256(in[64*i..64*i+63]).
 * out may equal in (in-place, digests packed at the front); otherwise the
 * buffers must not overlap. n may be 0. */
BK_API void bk_sha256_64(uint8_t *out, const uint8_t *in, size_t n);

/* n independent double SHA-256 of 64-byte messages (Bitcoin merkle nodes),
 * same buffer rules as bk_sha256_64. */
BK_API void bk_sha256d_64(uint8_t *out, const uint8_t *in, size_t n);

/* A message made of segments (e.g. a segwit tx without its witness:
 * version | inputs+outputs | locktime). */
typedef struct bk_sha256_seg {
    const uint8_t *data;
    size_t len;
} bk_sha256_seg;

typedef struct bk_sha256_msg {
    const bk_sha256_seg *segs;
    size_t nsegs;
} bk_sha256_msg;

/* n independent double SHA-256 of segmented messages, two or more in flight:
 * out[32*i..] = SHA256d(concatenation of msgs[i]'s segments). */
BK_API void bk_sha256d_msgs(uint8_t *out, const bk_sha256_msg *msgs, size_t n);

/* Force a backend by name ("portable", "shani", "shani/x3", "shani/x2",
 * "avx512", "avx512/pass", "avx2", "armv8"), or "auto" for the measured per-shape choice,
 * for every thread of the process, from now on. Returns BK_OK;
 * BK_ERR_UNSUPPORTED when this build or CPU cannot run it (e.g. "armv8" on
 * x86), BK_ERR_INVALID if its known-answer self-test fails, BK_ERR_ARG for
 * NULL or an unknown name. On error the backend in use does not change.
 * Switching while other threads hash is safe (each call uses one backend
 * throughout; a streaming context may continue on another backend). */
BK_API bk_status bk_sha256_use(const char *name) BK_WARN_UNUSED;

/* Name of the backend in use ("auto" for the measured choice; selects one
 * if none is yet). */
BK_API const char *bk_sha256_backend(void);

/* Names of the backends this build and CPU can run, in a fixed order
 * (shani, avx512, avx2, armv8, portable; "portable" always last); writes at
 * most max names to names (which may be NULL when max is 0) and returns how
 * many there are. The strings are static. */
BK_API size_t bk_sha256_backends(const char **names, size_t max);

/* Call shapes the automatic choice is made for. */
typedef enum bk_sha256_shape {
    BK_SHA256_SHAPE_64 = 0,     /* bk_sha256_64: ns per message */
    BK_SHA256_SHAPE_D64 = 1,    /* bk_sha256d_64: ns per node */
    BK_SHA256_SHAPE_MSGS = 2,   /* bk_sha256d_msgs: ns per compression */
    BK_SHA256_SHAPE_STREAM = 3, /* one stream (bk_sha256, streaming): ns per compression */
    BK_SHA256_NSHAPES = 4
} bk_sha256_shape;

#define BK_SHA256_MAX_CANDIDATES 8

/* The calibration behind "auto": every candidate kernel set this CPU runs
 * ("shani", "shani/x3", "shani/x2", "avx512", "avx512/pass", "avx2", "armv8",
 * "portable"),
 * its best measured time per shape, and the winner per shape. */
typedef struct bk_sha256_calib {
    size_t n;                                   /* candidates measured */
    const char *name[BK_SHA256_MAX_CANDIDATES];
    double ns[BK_SHA256_MAX_CANDIDATES][BK_SHA256_NSHAPES];
    const char *chosen[BK_SHA256_NSHAPES];
    unsigned rounds;                            /* samples taken of each */
    double elapsed_ms;                          /* wall time of the whole calibration */
    double cpu_ms;                              /* CPU time of the calibrating thread */
    /* With AVX-512 and SHA-NI both present: a batch (or a remainder after
     * full 32-message steps) of fewer than small_below messages goes to
     * SHA-NI streams instead of a 16-lane group, and a remainder of 17..31
     * with fewer than small_split past 16 to one group plus SHA-NI, both
     * from the measured time of one group, of two groups and of a SHA-NI
     * node (1..16 each; 0 when the CPU lacks either). */
    unsigned small_below, small_split;
} bk_sha256_calib;

/* Copies the calibration into *out, running it first if it has not run in
 * this process (also when a backend is forced). */
BK_API void bk_sha256_calibration(bk_sha256_calib *out);

/* Name of the kernel set the backend in use runs for a shape (the
 * per-shape winner under "auto", else the forced backend's name); NULL for
 * a shape out of range. */
BK_API const char *bk_sha256_shape_backend(bk_sha256_shape shape);

#ifdef __cplusplus
}
#endif
#endif
