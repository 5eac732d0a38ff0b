/* SHA-256 backend selection: CPU detection, self-test, calibration, atomic
 * choice.
 *
 * The backend in use is one atomic pointer (C11 <stdatomic.h>). The first
 * caller selects: BLOCKKIT_SHA256 from the environment if it names a
 * runnable backend that passes its self-test, else "auto": a table whose
 * four kernels (batched 64-byte, batched SHA256d-64, segmented messages,
 * single stream) each come from the candidate measured fastest for that
 * shape on this CPU. The calibration runs once per process (a state flag
 * taken by compare-and-swap; other first callers wait for it, a few
 * milliseconds at most), and the pointer is published with
 * compare-and-swap: racing first callers all use the same table. No lock,
 * no data race.
 * Compiled without ISA flags: it only executes cpuid/xgetbv and calls the
 * kernels of a backend the CPU has been checked to run. */
#include "sha256_impl.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

static _Atomic(const bk_sha256_impl *) chosen;

/* ---- CPU features ---- */

/* BLOCKKIT_SHA256_MASK: features to treat as absent (testing). */
static int masked(const char *feature)
{
    const char *m = getenv("BLOCKKIT_SHA256_MASK");
    size_t n = strlen(feature);
    while (m && *m) {
        const char *end = strchr(m, ',');
        size_t len = end ? (size_t)(end - m) : strlen(m);
        if (len == n && memcmp(m, feature, n) == 0) return 1;
        m = end ? end + 1 : NULL;
    }
    return 0;
}

#if defined(__x86_64__)
/* XCR0 through xgetbv (raw encoding: no -mxsave needed for this file). */
static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static int cpu_has_shani(void)
{
    unsigned a, b, c, d;
    if (masked("shani")) return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int sse41 = (c >> 19) & 1, ssse3 = (c >> 9) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return sse41 && ssse3 && ((b >> 29) & 1);  /* CPUID.7.0:EBX.SHA[bit 29] */
}

static int cpu_has_avx2(void)
{
    unsigned a, b, c, d;
    if (masked("avx2")) return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx) return 0;
    /* The OS must save XMM and YMM state (XCR0 bits 1 and 2). */
    if ((xgetbv0() & 6) != 6) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 5) & 1;  /* CPUID.7.0:EBX.AVX2[bit 5] */
}

static int cpu_has_avx512(void)
{
    unsigned a, b, c, d;
    if (masked("avx512")) return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!((c >> 27) & 1)) return 0;  /* OSXSAVE */
    /* The OS must save XMM, YMM, opmask and both ZMM halves (XCR0 1,2,5,6,7). */
    if ((xgetbv0() & 0xE6) != 0xE6) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return ((b >> 16) & 1) && ((b >> 30) & 1);  /* AVX512F[bit 16], AVX512BW[bit 30] */
}
#endif

#if defined(__aarch64__)
static int cpu_has_armv8_sha2(void)
{
    if (masked("armv8")) return 0;
#if defined(__APPLE__)
    return 1;  /* every Apple arm64 CPU has the SHA-2 instructions */
#elif defined(__linux__)
    return (getauxval(AT_HWCAP) & (1UL << 6)) != 0;  /* HWCAP_SHA2 */
#else
    return 0;
#endif
}
#endif

/* ---- the table, best first ---- */

typedef struct entry {
    const char *name;
    /* The kernels when this build and CPU can run them, else NULL. */
    const bk_sha256_impl *(*get)(void);
    /* A variant of the backend before it (another stream count, another
     * schedule placement): a calibration candidate and forceable by name,
     * but not listed by bk_sha256_backends. */
    int variant;
} entry;

static const bk_sha256_impl *get_none(void) { return NULL; }
static const bk_sha256_impl *get_portable(void) { return &bk_sha256_backend_portable; }
#if defined(__x86_64__)
static const bk_sha256_impl *get_shani(void)
{
    return cpu_has_shani() ? &bk_sha256_backend_shani : NULL;
}
static const bk_sha256_impl *get_shani_x3(void)
{
    return cpu_has_shani() ? &bk_sha256_backend_shani_x3 : NULL;
}
static const bk_sha256_impl *get_shani_x2(void)
{
    return cpu_has_shani() ? &bk_sha256_backend_shani_x2 : NULL;
}
static const bk_sha256_impl *get_avx512(void)
{
    if (!cpu_has_avx512()) return NULL;
    return cpu_has_shani() ? &bk_sha256_backend_avx512_shani : &bk_sha256_backend_avx512;
}
static const bk_sha256_impl *get_avx512_pass(void)
{
    if (!cpu_has_avx512()) return NULL;
    return cpu_has_shani() ? &bk_sha256_backend_avx512_pass_shani : &bk_sha256_backend_avx512_pass;
}
static const bk_sha256_impl *get_avx2(void)
{
    return cpu_has_avx2() ? &bk_sha256_backend_avx2 : NULL;
}
#else
#define get_shani get_none
#define get_shani_x3 get_none
#define get_shani_x2 get_none
#define get_avx512 get_none
#define get_avx512_pass get_none
#define get_avx2 get_none
#endif
#if defined(__aarch64__)
static const bk_sha256_impl *get_armv8(void)
{
    return cpu_has_armv8_sha2() ? &bk_sha256_backend_armv8 : NULL;
}
#else
#define get_armv8 get_none
#endif

static const entry table[] = {
    {"shani", get_shani, 0},
    {"shani/x3", get_shani_x3, 1},
    {"shani/x2", get_shani_x2, 1},
    {"avx512", get_avx512, 0},
    {"avx512/pass", get_avx512_pass, 1},
    {"avx2", get_avx2, 0},
    {"armv8", get_armv8, 0},
    {"portable", get_portable, 0},
};
#define NTABLE (sizeof table / sizeof table[0])
/* Room for every candidate in the calibration's table. */
_Static_assert(NTABLE <= BK_SHA256_MAX_CANDIDATES, "bk_sha256_calib holds every candidate");

/* ---- known-answer self-test ---- */

/* SHA-256 of the n digests with the portable kernel only (the self-test
 * must not go through the dispatcher it is helping to set up). */
static void fold(uint8_t out[32], const uint8_t *digests, size_t n)
{
    uint32_t s[8];
    uint8_t last[64];
    size_t len = 32 * n, full = len / 64, rest = len % 64;
    memcpy(s, bk_sha256_iv, sizeof s);
    bk_sha256_compress_portable(s, digests, full);
    memset(last, 0, sizeof last);
    memcpy(last, digests + 64 * full, rest);
    last[rest] = 0x80;
    if (rest >= 56) {
        bk_sha256_compress_portable(s, last, 1);
        memset(last, 0, sizeof last);
    }
    for (int i = 0; i < 8; i++) last[56 + i] = (uint8_t)((uint64_t)len * 8 >> (56 - 8 * i));
    bk_sha256_compress_portable(s, last, 1);
    for (int i = 0; i < 8; i++) bk_sha256_store_be32(out + 4 * i, s[i]);
}

/* The KATs were computed with an independent implementation (Python
 * hashlib). They hash 9, 11 or 40 inputs so every lane, both 16-lane
 * groups and the odd tails of the multi-stream kernels are exercised; digests are folded with portable
 * SHA-256 into one 32-byte answer. */
static int self_test(const bk_sha256_impl *b)
{
    static const uint8_t abc[32] = {
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
        0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
    };
    static const uint8_t kat64[32] = {
        0x79, 0x74, 0x45, 0x5d, 0xb8, 0x66, 0x8e, 0xf6, 0x55, 0x9b, 0xdb, 0x91, 0xe9, 0x60, 0x65, 0x28,
        0x12, 0xdf, 0x34, 0x89, 0x4e, 0x20, 0xfe, 0xd9, 0x50, 0x09, 0x96, 0x42, 0xc0, 0x85, 0x53, 0x46,
    };
    static const uint8_t katd64[32] = {
        0x2e, 0x15, 0x50, 0xc0, 0xb5, 0x8a, 0x3b, 0xee, 0xd2, 0xe8, 0x23, 0xbb, 0xfb, 0x57, 0x40, 0x77,
        0xa3, 0x5e, 0x86, 0x6d, 0x69, 0xa8, 0x7f, 0xb8, 0x85, 0x3f, 0xfe, 0xf2, 0x60, 0xf6, 0xad, 0x49,
    };
    static const uint8_t katmsgs[32] = {
        0x92, 0xae, 0x82, 0xa0, 0xaa, 0xd2, 0x8e, 0xb7, 0xa9, 0xb7, 0x01, 0x4e, 0x70, 0xe6, 0xf2, 0x72,
        0xcf, 0x55, 0x42, 0x68, 0xf9, 0x11, 0x0b, 0xa4, 0x9a, 0xa9, 0xe6, 0x19, 0x80, 0x09, 0xf8, 0xd4,
    };
    static const uint8_t kat64_40[32] = {
        0x92, 0xd5, 0xd8, 0x5b, 0x8a, 0x29, 0x48, 0x1e, 0xce, 0xc4, 0x87, 0xc7, 0x29, 0xdd, 0x2c, 0xb0,
        0xd3, 0x9f, 0x4c, 0x0f, 0x10, 0xcd, 0xc0, 0x47, 0x2c, 0xaa, 0x95, 0x9c, 0x2d, 0x2e, 0x48, 0xdb,
    };
    static const uint8_t katd64_40[32] = {
        0xe6, 0xab, 0x48, 0x0c, 0x0d, 0xb0, 0x5f, 0x8e, 0xea, 0xb0, 0x77, 0x3f, 0x4c, 0xbd, 0x37, 0xfd,
        0x50, 0xe4, 0x6c, 0x54, 0x13, 0xc3, 0x35, 0x5a, 0x8f, 0xde, 0xf7, 0x85, 0xb9, 0x70, 0x74, 0x23,
    };
    uint8_t in[40 * 64], out[40 * 32], got[32];

    /* "abc" (FIPS 180-4 example) through the single-stream kernel. */
    uint8_t blk[64] = {'a', 'b', 'c', 0x80};
    blk[63] = 24;
    uint32_t s[8];
    memcpy(s, bk_sha256_iv, sizeof s);
    b->compress(s, blk, 1);
    for (int i = 0; i < 8; i++) bk_sha256_store_be32(got + 4 * i, s[i]);
    if (memcmp(got, abc, 32) != 0) return 0;

    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 64; j++) in[64 * i + j] = (uint8_t)(i * 7 + j * 13);
    b->hash_64(out, in, 9);
    fold(got, out, 9);
    if (memcmp(got, kat64, 32) != 0) return 0;
    b->hashd_64(out, in, 9);
    fold(got, out, 9);
    if (memcmp(got, katd64, 32) != 0) return 0;
    /* 40: two full 16-lane groups and a partial one. */
    b->hash_64(out, in, 40);
    fold(got, out, 40);
    if (memcmp(got, kat64_40, 32) != 0) return 0;
    b->hashd_64(out, in, 40);
    fold(got, out, 40);
    if (memcmp(got, katd64_40, 32) != 0) return 0;

    /* Prefixes of one 256-byte pattern, split into two segments. */
    static const size_t lens[11] = {0, 1, 55, 56, 63, 64, 65, 119, 120, 200, 3};
    uint8_t base[256];
    bk_sha256_seg segs[11][2];
    bk_sha256_msg msgs[11];
    for (int j = 0; j < 256; j++) base[j] = (uint8_t)(j * 31 + 5);
    for (int i = 0; i < 11; i++) {
        size_t cut = lens[i] / 3;
        segs[i][0].data = base;
        segs[i][0].len = cut;
        segs[i][1].data = base + cut;
        segs[i][1].len = lens[i] - cut;
        msgs[i].segs = segs[i];
        msgs[i].nsegs = 2;
    }
    b->hashd_msgs(out, msgs, 11);
    fold(got, out, 11);
    return memcmp(got, katmsgs, 32) == 0;
}

/* ---- candidates ---- */

/* Every kernel set this build and CPU can run, variants included, in the
 * table's order; returns how many. */
static size_t candidates(const bk_sha256_impl **c)
{
    size_t n = 0;
    for (size_t i = 0; i < NTABLE; i++) {
        const bk_sha256_impl *impl = table[i].get();
        if (impl) c[n++] = impl;
    }
    return n;
}

/* ---- calibration ---- */

/* Work per sample: 40 messages or nodes (a full 32-message AVX-512 step
 * and a remainder, like a merkle level), 128 txid-shaped segmented
 * messages of 60..500 bytes (~820 compressions: a batch as a block's txids
 * give one, whose tail does not decide the sample; 48 messages of 60..300
 * bytes, mostly tail, had SHA-NI x3 beat AVX-512 on AMD Zen5, where the
 * bench's SHA256DMsgs/avx512 row ran 224 ns a message against 268 for
 * SHA256DMsgs/auto in the same run), 16 blocks of one stream. */
enum { CAL_N64 = 40, CAL_NMSG = 128, CAL_NSTREAM = 16, CAL_MSGBYTES = 500, CAL_ROUNDS = 5 };
/* Rounds after the first stop once this much of the thread's CPU time is
 * spent (a preempted sample costs wall time, not CPU time, and loses the
 * best-of comparison anyway), or after the second once this much wall time
 * has passed (a machine so busy that measuring is hopeless). */
#define CAL_BUDGET_CPU_NS 3.0e6
/* A kernel whose first sample is over this many times the fastest first
 * sample of the shape is measured once (portable and, beside SHA-NI, AVX2:
 * 6-10x and 3-4x slower; a backend's lead within a CPU class is 1.0-1.6x). */
#define CAL_PRUNE 4.0
#define CAL_BUDGET_WALL_NS 50.0e6

typedef struct cal_work {
    uint8_t in[64 * CAL_N64], out[32 * CAL_N64 > 32 * CAL_NMSG ? 32 * CAL_N64 : 32 * CAL_NMSG];
    uint8_t data[CAL_NMSG * CAL_MSGBYTES];
    bk_sha256_seg segs[3 * CAL_NMSG];
    bk_sha256_msg msgs[CAL_NMSG];
    double msg_compressions;
} cal_work;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double cpu_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return now_ns();
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void cal_prepare(cal_work *w)
{
    uint32_t x = 0x12345678u;
    for (size_t i = 0; i < sizeof w->in; i++) w->in[i] = (uint8_t)(x = x * 1103515245u + 12345u) ;
    for (size_t i = 0; i < sizeof w->data; i++) w->data[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
    w->msg_compressions = 0;
    for (size_t i = 0; i < CAL_NMSG; i++) {
        x = x * 1103515245u + 12345u;
        size_t len = 60 + (x >> 8) % (CAL_MSGBYTES - 60 + 1);
        const uint8_t *p = w->data + CAL_MSGBYTES * i;
        /* version | inputs and outputs | locktime, like a txid's parts */
        w->segs[3 * i] = (bk_sha256_seg){p, 4};
        w->segs[3 * i + 1] = (bk_sha256_seg){p + 4, len - 8};
        w->segs[3 * i + 2] = (bk_sha256_seg){p + len - 4, 4};
        w->msgs[i] = (bk_sha256_msg){&w->segs[3 * i], 3};
        w->msg_compressions += (double)((len + 8) / 64 + 1) + 1;
    }
}

/* One timed sample of kernel `shape` of b: ns per unit. */
static double cal_sample(cal_work *w, const bk_sha256_impl *b, int shape)
{
    double t0 = now_ns(), units = 1;
    switch (shape) {
    case BK_SHA256_SHAPE_64: b->hash_64(w->out, w->in, CAL_N64); units = CAL_N64; break;
    case BK_SHA256_SHAPE_D64: b->hashd_64(w->out, w->in, CAL_N64); units = CAL_N64; break;
    case BK_SHA256_SHAPE_MSGS: b->hashd_msgs(w->out, w->msgs, CAL_NMSG); units = w->msg_compressions; break;
    default: {
        uint32_t s[8];
        memcpy(s, bk_sha256_iv, sizeof s);
        b->compress(s, w->in, CAL_NSTREAM);
        memcpy(w->out, s, sizeof s);
        units = CAL_NSTREAM;
        break;
    }
    }
    double t = now_ns() - t0;
    __asm__ volatile("" : : "r"(w->out) : "memory");
    return t / units;
}

/* The kernel of shape s in table b. */
static const void *kernel_of(const bk_sha256_impl *b, int s)
{
    switch (s) {
    case BK_SHA256_SHAPE_64: return (const void *)b->hash_64;
    case BK_SHA256_SHAPE_D64: return (const void *)b->hashd_64;
    case BK_SHA256_SHAPE_MSGS: return (const void *)b->hashd_msgs;
    default: return (const void *)b->compress;
    }
}

static bk_sha256_calib cal;               /* written once, before cal_state = 2 */
static _Atomic int cal_state;             /* 0 none, 1 running, 2 done */
static bk_sha256_impl auto_impl;          /* the per-shape winners, name "auto" */
static const char *auto_names[BK_SHA256_NSHAPES];

/* Interleaved rounds over the shapes in `mask` (bits 1 << shape) of every
 * candidate, best sample kept in cal.ns; a kernel shared by several
 * candidates (owner[i][s] != i) is measured once and copied. The first
 * round always completes; later ones stop at the budgets above, counted
 * from t0 (wall) and c0 (thread CPU). Returns the rounds taken. */
static unsigned measure_rounds(cal_work *w, const bk_sha256_impl *const *ok, size_t n,
                               size_t owner[][BK_SHA256_NSHAPES], unsigned mask, double t0, double c0)
{
    unsigned r = 0;
    double cut[BK_SHA256_NSHAPES];
    for (; r < CAL_ROUNDS; r++) {
        if (r > 0 && cpu_ns() - c0 > CAL_BUDGET_CPU_NS) break;
        if (r > 1 && now_ns() - t0 > CAL_BUDGET_WALL_NS) break;
        for (int s = 0; s < BK_SHA256_NSHAPES; s++) {
            if (!(mask >> s & 1)) continue;
            for (size_t i = 0; i < n; i++) {
                if (owner[i][s] != i) continue;
                /* Past the first round, a kernel over CAL_PRUNE times the
                 * best first sample of its shape is not sampled again: no
                 * later sample of it can win (noise only slows a sample),
                 * and it spares the slow kernels' samples (portable's
                 * messages are most of a round). */
                if (r > 0 && cal.ns[i][s] > cut[s]) continue;
                double t = cal_sample(w, ok[i], s);
                if (t < cal.ns[i][s]) cal.ns[i][s] = t;
            }
            if (r == 0) {
                cut[s] = 1e300;
                for (size_t i = 0; i < n; i++)
                    if (owner[i][s] == i && CAL_PRUNE * cal.ns[i][s] < cut[s]) cut[s] = CAL_PRUNE * cal.ns[i][s];
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < BK_SHA256_NSHAPES; s++)
            if (mask >> s & 1) cal.ns[i][s] = cal.ns[owner[i][s]][s];
    return r;
}

/* Measure every candidate that passes its self-test, each shape, in
 * interleaved rounds (a neighbour's burst lands on one sample of each, not
 * on every sample of one), best sample kept; kernels shared by several
 * candidates (e.g. the SHA-NI single stream) are measured once. Two passes
 * (measure_rounds) share one budget; each takes at least one round. */
static void calibrate(void)
{
    static cal_work w;
    const bk_sha256_impl *c[BK_SHA256_MAX_CANDIDATES], *ok[BK_SHA256_MAX_CANDIDATES];
    size_t nc = candidates(c), n = 0;
    double t0 = now_ns(), c0 = cpu_ns();
    for (size_t i = 0; i < nc; i++)
        if (self_test(c[i])) ok[n++] = c[i];
    cal_prepare(&w);
    memset(&cal, 0, sizeof cal);
    cal.n = n;
    for (size_t i = 0; i < n; i++) {
        cal.name[i] = ok[i]->name;
        for (int s = 0; s < BK_SHA256_NSHAPES; s++) cal.ns[i][s] = 1e300;
    }
    /* owner[i][s]: the first candidate with the same kernel. */
    size_t owner[BK_SHA256_MAX_CANDIDATES][BK_SHA256_NSHAPES];
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < BK_SHA256_NSHAPES; s++) {
            owner[i][s] = i;
            for (size_t j = 0; j < i; j++)
                if (kernel_of(ok[j], s) == kernel_of(ok[i], s)) {
                    owner[i][s] = j;
                    break;
                }
        }
    /* The segmented-message and single-stream shapes first: the AVX-512
     * driver's SHA-NI tail takes its stream count from them. Then that
     * driver's crossovers, then the batched shapes, so that a batch's
     * remainder (8 of the 40) goes where it will go in use: measured with
     * the default crossovers, a remainder of 8 on a half idle 16-lane group
     * made the AVX-512 batches look 25% slower than they are on AMD Zen4. */
    unsigned r = measure_rounds(&w, ok, n, owner, 1u << BK_SHA256_SHAPE_MSGS | 1u << BK_SHA256_SHAPE_STREAM, t0, c0);
#if defined(__x86_64__)
    /* The AVX-512 driver's SHA-NI tail: the stream count that measured
     * fastest on segmented messages. */
    {
        const bk_sha256_impl *v[3] = {&bk_sha256_backend_shani, &bk_sha256_backend_shani_x3,
                                      &bk_sha256_backend_shani_x2};
        static const unsigned streams[3] = {4, 3, 2};
        double best_ns = 0;
        for (size_t i = 0; i < n; i++)
            for (int j = 0; j < 3; j++)
                if (ok[i] == v[j] && (best_ns == 0 || cal.ns[i][BK_SHA256_SHAPE_MSGS] < best_ns)) {
                    best_ns = cal.ns[i][BK_SHA256_SHAPE_MSGS];
                    atomic_store_explicit(&bk_sha256_shani_tail_streams, streams[j], memory_order_relaxed);
                }
    }
    /* Where SHA-NI streams beat a mostly idle 16-lane group on short
     * batches (merkle levels near the root, remainders): one group (16
     * nodes), two groups (32; each schedule placement, the faster counts:
     * it is the one the batched shapes will choose) and SHA-NI per node (8
     * nodes on the stream count just chosen), best of a few interleaved
     * samples. */
    {
        const bk_sha256_impl *av[2] = {NULL, NULL};
        for (size_t i = 0; i < n; i++) {
            if (ok[i] == &bk_sha256_backend_avx512_shani) av[0] = ok[i];
            if (ok[i] == &bk_sha256_backend_avx512_pass_shani) av[1] = ok[i];
        }
        const bk_sha256_impl *one = av[0] ? av[0] : av[1];  /* one group: the same in both */
        if (one) {
            double t16 = 1e300, t32 = 1e300, ts = 1e300;
            for (unsigned k = 0; k < CAL_ROUNDS; k++) {
                double ta = now_ns();
                one->hashd_64(w.out, w.in, 16);
                double tb = now_ns();
                if (tb - ta < t16) t16 = tb - ta;
                for (int v = 0; v < 2; v++) {
                    if (!av[v]) continue;
                    double tc = now_ns();
                    av[v]->hashd_64(w.out, w.in, 32);
                    double td = now_ns();
                    if (td - tc < t32) t32 = td - tc;
                }
                double te = now_ns();
                bk_sha256_shani_small_d64(w.out, w.in, 8);
                double tf = now_ns();
                if ((tf - te) / 8 < ts) ts = (tf - te) / 8;
            }
            __asm__ volatile("" : : "r"(w.out) : "memory");
            unsigned below = 1, split = 1;
            while (below < 16 && below * ts < t16) below++;
            while (split < 16 && t16 + split * ts < t32) split++;
            cal.small_below = below;
            cal.small_split = split;
            atomic_store_explicit(&bk_sha256_avx512_small[0], below, memory_order_relaxed);
            atomic_store_explicit(&bk_sha256_avx512_small[1], split, memory_order_relaxed);
        }
    }
#endif
    unsigned r2 = measure_rounds(&w, ok, n, owner, 1u << BK_SHA256_SHAPE_64 | 1u << BK_SHA256_SHAPE_D64, t0, c0);
    if (r2 < r) r = r2;
    cal.rounds = r;
    /* The winners; the first candidate wins a tie. portable always passes
     * its self-test (it is the reference), so n >= 1. */
    size_t best[BK_SHA256_NSHAPES] = {0, 0, 0, 0};
    for (int s = 0; s < BK_SHA256_NSHAPES; s++)
        for (size_t i = 1; i < n; i++)
            if (cal.ns[i][s] < cal.ns[best[s]][s]) best[s] = i;
    const bk_sha256_impl *fallback = &bk_sha256_backend_portable;
    auto_impl.name = "auto";
    auto_impl.hash_64 = n ? ok[best[0]]->hash_64 : fallback->hash_64;
    auto_impl.hashd_64 = n ? ok[best[1]]->hashd_64 : fallback->hashd_64;
    auto_impl.hashd_msgs = n ? ok[best[2]]->hashd_msgs : fallback->hashd_msgs;
    auto_impl.compress = n ? ok[best[3]]->compress : fallback->compress;
    for (int s = 0; s < BK_SHA256_NSHAPES; s++) auto_names[s] = n ? ok[best[s]]->name : fallback->name;
    if (!self_test(&auto_impl)) {
        /* Cannot happen (each part passed on its own): stay correct anyway. */
        auto_impl = *fallback;
        auto_impl.name = "auto";
        for (int s = 0; s < BK_SHA256_NSHAPES; s++) auto_names[s] = fallback->name;
    }
    for (int s = 0; s < BK_SHA256_NSHAPES; s++) cal.chosen[s] = auto_names[s];
    cal.elapsed_ms = (now_ns() - t0) / 1e6;
    cal.cpu_ms = (cpu_ns() - c0) / 1e6;
}

/* Run the calibration once per process; concurrent callers wait for it. */
static void calibrated(void)
{
    int st = atomic_load_explicit(&cal_state, memory_order_acquire);
    if (st == 2) return;
    int expected = 0;
    if (st == 0 && atomic_compare_exchange_strong_explicit(&cal_state, &expected, 1, memory_order_acq_rel,
                                                           memory_order_acquire)) {
        calibrate();
        atomic_store_explicit(&cal_state, 2, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&cal_state, memory_order_acquire) != 2) sched_yield();
}

void bk_sha256_calibration(bk_sha256_calib *out)
{
    calibrated();
    *out = cal;
}

/* ---- selection ---- */

static const entry *find(const char *name)
{
    for (size_t i = 0; i < NTABLE; i++)
        if (strcmp(table[i].name, name) == 0) return &table[i];
    return NULL;
}

/* The table for a forced name: NULL with *st set when it cannot be used. */
static const bk_sha256_impl *forced(const char *name, bk_status *st)
{
    *st = BK_OK;
    if (strcmp(name, "auto") == 0) {
        calibrated();
        return &auto_impl;
    }
    const entry *e = find(name);
    if (!e) {
        *st = BK_ERR_ARG;
        return NULL;
    }
    const bk_sha256_impl *impl = e->get();
    if (!impl) {
        *st = BK_ERR_UNSUPPORTED;
        return NULL;
    }
    if (!self_test(impl)) {
        *st = BK_ERR_INVALID;
        return NULL;
    }
    return impl;
}

static const bk_sha256_impl *select_default(void)
{
    const char *env = getenv("BLOCKKIT_SHA256");
    if (env && *env) {
        bk_status st;
        const bk_sha256_impl *impl = forced(env, &st);
        if (impl) return impl;
        /* An unusable request falls back to the automatic choice. */
    }
    calibrated();
    return &auto_impl;
}

const bk_sha256_impl *bk_sha256_active(void)
{
    const bk_sha256_impl *b = atomic_load_explicit(&chosen, memory_order_acquire);
    if (b) return b;
    const bk_sha256_impl *want = select_default();
    const bk_sha256_impl *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&chosen, &expected, want, memory_order_acq_rel,
                                                memory_order_acquire))
        return want;
    return expected;  /* another thread chose first */
}

bk_status bk_sha256_use(const char *name)
{
    if (!name) return BK_ERR_ARG;
    bk_status st;
    const bk_sha256_impl *impl = forced(name, &st);
    if (!impl) return st;
    atomic_store_explicit(&chosen, impl, memory_order_release);
    return BK_OK;
}

const char *bk_sha256_backend(void)
{
    return bk_sha256_active()->name;
}

const char *bk_sha256_shape_backend(bk_sha256_shape shape)
{
    if ((int)shape < 0 || shape >= BK_SHA256_NSHAPES) return NULL;
    const bk_sha256_impl *b = bk_sha256_active();
    return b == &auto_impl ? auto_names[shape] : b->name;
}

size_t bk_sha256_backends(const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < NTABLE; i++) {
        const entry *e = &table[i];
        if (e->variant || !e->get()) continue;
        if (n < max && names) names[n] = e->name;
        n++;
    }
    return n;
}
