/* SHA-256 backend selection: CPU detection, self-test, atomic choice.
 *
 * The chosen backend is one atomic pointer (C11 <stdatomic.h>): the first
 * caller selects (BLOCKKIT_SHA256 from the environment if it names a
 * runnable backend that passes its self-test, else the best runnable one)
 * and publishes with compare-and-swap; racing first callers compute the same
 * answer, one wins, all use the winner. No lock, no data race.
 * Compiled without ISA flags: it only executes cpuid/xgetbv and calls the
 * kernels of a backend the CPU has been checked to run. */
#include "sha256_impl.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

static _Atomic(const bk_sha256_impl *) chosen;

/* ---- CPU features ---- */

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
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int sse41 = (c >> 19) & 1, ssse3 = (c >> 9) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return sse41 && ssse3 && ((b >> 29) & 1);  /* CPUID.7.0:EBX.SHA[bit 29] */
}

static int cpu_has_avx2(void)
{
    unsigned a, b, c, d;
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
} entry;

static const bk_sha256_impl *get_none(void) { return NULL; }
static const bk_sha256_impl *get_portable(void) { return &bk_sha256_backend_portable; }
#if defined(__x86_64__)
static const bk_sha256_impl *get_shani(void)
{
    return cpu_has_shani() ? &bk_sha256_backend_shani : NULL;
}
static const bk_sha256_impl *get_avx512(void)
{
    if (!cpu_has_avx512()) return NULL;
    return cpu_has_shani() ? &bk_sha256_backend_avx512_shani : &bk_sha256_backend_avx512;
}
static const bk_sha256_impl *get_avx2(void)
{
    return cpu_has_avx2() ? &bk_sha256_backend_avx2 : NULL;
}
#else
#define get_shani get_none
#define get_avx512 get_none
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
    {"shani", get_shani},
    {"avx512", get_avx512},
    {"avx2", get_avx2},
    {"armv8", get_armv8},
    {"portable", get_portable},
};
#define NTABLE (sizeof table / sizeof table[0])

/* Best first. On Intel server cores sha256rnds2 issues only every ~2.4
 * cycles even with independent streams (measured here: 1.03 ns per
 * instruction with 2 or 4 chains vs 1.39 ns latency), so the 16-lane
 * AVX-512 kernels hash batches about twice as fast as SHA-NI x2; on AMD
 * (Zen) two SHA-NI streams run at twice the one-stream rate and win. So
 * AVX-512 goes first on Intel CPUs that have it; single-stream work uses
 * SHA-NI either way (bk_sha256_backend_avx512_shani). */
static int prefer_avx512(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    int intel = b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;  /* "GenuineIntel" */
    return intel && cpu_has_avx512();
#else
    return 0;
#endif
}

static void order(size_t idx[NTABLE])
{
    for (size_t i = 0; i < NTABLE; i++) idx[i] = i;
    if (prefer_avx512()) {  /* table[1] is avx512 */
        idx[0] = 1;
        idx[1] = 0;
    }
}

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
 * hashlib). Each hashes 9 or 11 inputs so every lane and the odd tail of
 * the multi-stream kernels is exercised; digests are folded with portable
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
    uint8_t in[9 * 64], out[11 * 32], got[32];

    /* "abc" (FIPS 180-4 example) through the single-stream kernel. */
    uint8_t blk[64] = {'a', 'b', 'c', 0x80};
    blk[63] = 24;
    uint32_t s[8];
    memcpy(s, bk_sha256_iv, sizeof s);
    b->compress(s, blk, 1);
    for (int i = 0; i < 8; i++) bk_sha256_store_be32(got + 4 * i, s[i]);
    if (memcmp(got, abc, 32) != 0) return 0;

    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 64; j++) in[64 * i + j] = (uint8_t)(i * 7 + j * 13);
    b->hash_64(out, in, 9);
    fold(got, out, 9);
    if (memcmp(got, kat64, 32) != 0) return 0;
    b->hashd_64(out, in, 9);
    fold(got, out, 9);
    if (memcmp(got, katd64, 32) != 0) return 0;

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

/* ---- selection ---- */

static const entry *find(const char *name)
{
    for (size_t i = 0; i < NTABLE; i++)
        if (strcmp(table[i].name, name) == 0) return &table[i];
    return NULL;
}

static const bk_sha256_impl *select_default(void)
{
    const char *env = getenv("BLOCKKIT_SHA256");
    if (env && *env) {
        const entry *e = find(env);
        const bk_sha256_impl *impl = e ? e->get() : NULL;
        if (impl && self_test(impl)) return impl;
        /* An unusable request falls back to the automatic choice. */
    }
    size_t idx[NTABLE];
    order(idx);
    for (size_t i = 0; i < NTABLE; i++) {
        const bk_sha256_impl *impl = table[idx[i]].get();
        if (impl && self_test(impl)) return impl;
    }
    return &bk_sha256_backend_portable;
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
    const entry *e = find(name);
    if (!e) return BK_ERR_ARG;
    const bk_sha256_impl *impl = e->get();
    if (!impl) return BK_ERR_UNSUPPORTED;
    if (!self_test(impl)) return BK_ERR_INVALID;
    atomic_store_explicit(&chosen, impl, memory_order_release);
    return BK_OK;
}

const char *bk_sha256_backend(void)
{
    return bk_sha256_active()->name;
}

size_t bk_sha256_backends(const char **names, size_t max)
{
    size_t n = 0, idx[NTABLE];
    order(idx);
    for (size_t i = 0; i < NTABLE; i++) {
        const entry *e = &table[idx[i]];
        if (!e->get()) continue;
        if (n < max && names) names[n] = e->name;
        n++;
    }
    return n;
}
