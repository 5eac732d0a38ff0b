/* SHA-256 probe rows: this CPU's physical floor for the SHA-256 kernels,
 * measured in the same run as blockkit's rows (scripts/bench-table.py
 * turns them into floors and prints every SHA-256 row as a ratio to it).
 *
 *   SHA256/Probe/rnds2x1   sha256rnds2, one dependent chain (latency bound)
 *   SHA256/Probe/rnds2x2   two independent chains
 *   SHA256/Probe/rnds2x4   four independent chains (throughput bound)
 *                          unit: compression = 32 sha256rnds2
 *   SHA256/Probe/zmm-add   vpaddd zmm, eight independent chains
 *   SHA256/Probe/zmm-ror   vprord zmm, eight independent chains
 *   SHA256/Probe/zmm-mix   the 16-lane kernels' instruction mix: 6 vprord,
 *                          4 vpternlogd, 6 vpaddd per 16, independent
 *                          unit: instruction
 *   SHA256/Probe/rnds2x4+zmm-mix  one rnds2x4 iteration (32 sha256rnds2, a
 *                          compression) and 16 zmm-mix instructions (on
 *                          zmm16-25) in one loop: the hybrid-kernel probe.
 *                          Near max(rnds2x4, 16 x zmm-mix) the two run side
 *                          by side; near their sum they share the core
 *                          (AMD Zen4); far above, mixing legacy-SSE
 *                          sha256rnds2 with dirty upper zmm state stalls
 *                          (Intel). unit: iteration
 *   SHA256/Probe/hybrid/{avx512,shani,both}  the same question with the
 *                          kernels' own code (bench_sha256_hybrid.c): two
 *                          16-lane groups' 64 rounds, four SHA-NI
 *                          compressions of one stream with their message
 *                          schedule, and both in one loop. unit: step
 *
 * A 16-lane group costs 2,656 such instructions per 16 SSZ pairs (SHA256 of
 * 64 bytes: 1,624 for the message block, 1,032 for the padding block whose
 * W+K is constant) and 4,272 per 16 merkle nodes; so the AVX-512 floor is
 * 166 x zmm-mix per pair and 267 x zmm-mix per node, the SHA-NI floor 2 and
 * 3 x rnds2x4 (the best of x2 / x4). Rows are registered only when the CPU
 * runs the instructions (the backend list, which honours
 * BLOCKKIT_SHA256_MASK). Each loop ends with vzeroupper, so no dirty upper
 * state slows the SSE-encoded SHA-NI code run after it. */
#include "bench.h"

#include <string.h>
#include <blockkit/sha256.h>

#if defined(__x86_64__)

enum { LOOPS = 1024 };

#define R8(x) x x x x x x x x

static void rnds2_x1(long n)
{
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n"
                     "1:\n\t" R8("sha256rnds2 %%xmm2, %%xmm1\n\t") "dec %0\n\tjnz 1b"
                     : "+r"(n) : : "xmm0", "xmm1", "xmm2", "cc");
}

static void rnds2_x2(long n)
{
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
                     "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n"
                     "1:\n\t" R8("sha256rnds2 %%xmm2, %%xmm1\n\tsha256rnds2 %%xmm4, %%xmm3\n\t")
                     "dec %0\n\tjnz 1b"
                     : "+r"(n) : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "cc");
}

static void rnds2_x4(long n)
{
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
                     "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                     "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\tpxor %%xmm8, %%xmm8\n"
                     "1:\n\t" R8("sha256rnds2 %%xmm2, %%xmm1\n\tsha256rnds2 %%xmm4, %%xmm3\n\t"
                                 "sha256rnds2 %%xmm6, %%xmm5\n\tsha256rnds2 %%xmm8, %%xmm7\n\t")
                     "dec %0\n\tjnz 1b"
                     : "+r"(n) : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "cc");
}

#define ZCLOB "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "cc"
#define ZINIT "vpxord %%zmm0, %%zmm0, %%zmm0\n\tvpxord %%zmm1, %%zmm1, %%zmm1\n\t" \
              "vpxord %%zmm2, %%zmm2, %%zmm2\n\tvpxord %%zmm3, %%zmm3, %%zmm3\n\t" \
              "vpxord %%zmm4, %%zmm4, %%zmm4\n\tvpxord %%zmm5, %%zmm5, %%zmm5\n\t" \
              "vpxord %%zmm6, %%zmm6, %%zmm6\n\tvpxord %%zmm7, %%zmm7, %%zmm7\n\t" \
              "vpxord %%zmm8, %%zmm8, %%zmm8\n\tvpxord %%zmm9, %%zmm9, %%zmm9\n"
#define Z8(op) op " %%zmm8, %%zmm0, %%zmm0\n\t" op " %%zmm8, %%zmm1, %%zmm1\n\t"   \
               op " %%zmm8, %%zmm2, %%zmm2\n\t" op " %%zmm8, %%zmm3, %%zmm3\n\t"   \
               op " %%zmm8, %%zmm4, %%zmm4\n\t" op " %%zmm8, %%zmm5, %%zmm5\n\t"   \
               op " %%zmm8, %%zmm6, %%zmm6\n\t" op " %%zmm8, %%zmm7, %%zmm7\n\t"
#define ZR8 "vprord $7, %%zmm0, %%zmm0\n\tvprord $7, %%zmm1, %%zmm1\n\t"   \
            "vprord $7, %%zmm2, %%zmm2\n\tvprord $7, %%zmm3, %%zmm3\n\t"   \
            "vprord $7, %%zmm4, %%zmm4\n\tvprord $7, %%zmm5, %%zmm5\n\t"   \
            "vprord $7, %%zmm6, %%zmm6\n\tvprord $7, %%zmm7, %%zmm7\n\t"
#define ZM8 "vprord $7, %%zmm0, %%zmm0\n\tvpaddd %%zmm8, %%zmm1, %%zmm1\n\t"             \
            "vprord $7, %%zmm2, %%zmm2\n\tvpternlogd $0x96, %%zmm8, %%zmm9, %%zmm3\n\t"  \
            "vpaddd %%zmm8, %%zmm4, %%zmm4\n\tvprord $7, %%zmm5, %%zmm5\n\t"             \
            "vpternlogd $0x96, %%zmm8, %%zmm9, %%zmm6\n\tvpaddd %%zmm8, %%zmm7, %%zmm7\n\t"

static void zmm_add(long n)
{
    __asm__ volatile(ZINIT "1:\n\t" Z8("vpaddd") Z8("vpaddd") "dec %0\n\tjnz 1b\n\tvzeroupper"
                     : "+r"(n) : : ZCLOB);
}

static void zmm_ror(long n)
{
    __asm__ volatile(ZINIT "1:\n\t" ZR8 ZR8 "dec %0\n\tjnz 1b\n\tvzeroupper" : "+r"(n) : : ZCLOB);
}

static void zmm_mix(long n)
{
    __asm__ volatile(ZINIT "1:\n\t" ZM8 ZM8 "dec %0\n\tjnz 1b\n\tvzeroupper" : "+r"(n) : : ZCLOB);
}

/* The zmm-mix instructions on zmm16-25, so they leave the SHA-NI
 * registers (xmm0-8) alone. */
#define ZM8H "vprord $7, %%zmm16, %%zmm16\n\tvpaddd %%zmm24, %%zmm17, %%zmm17\n\t"             \
             "vprord $7, %%zmm18, %%zmm18\n\tvpternlogd $0x96, %%zmm24, %%zmm25, %%zmm19\n\t"  \
             "vpaddd %%zmm24, %%zmm20, %%zmm20\n\tvprord $7, %%zmm21, %%zmm21\n\t"             \
             "vpternlogd $0x96, %%zmm24, %%zmm25, %%zmm22\n\tvpaddd %%zmm24, %%zmm23, %%zmm23\n\t"
#define RN4 "sha256rnds2 %%xmm2, %%xmm1\n\tsha256rnds2 %%xmm4, %%xmm3\n\t" \
            "sha256rnds2 %%xmm6, %%xmm5\n\tsha256rnds2 %%xmm8, %%xmm7\n\t"

static void rnds2_zmm(long n)
{
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
                     "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                     "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\tpxor %%xmm8, %%xmm8\n\t"
                     "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
                     "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
                     "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
                     "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
                     "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n"
                     "1:\n\t" RN4 ZM8H RN4 RN4 ZM8H RN4 RN4 RN4 RN4 RN4 "dec %0\n\tjnz 1b\n\tvzeroupper"
                     : "+r"(n)
                     :
                     /* zmm16-25 are not named: this file is built without
                      * AVX-512, so the compiler keeps nothing there (and
                      * cannot name them), and the ABI saves none of them. */
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "cc");
}

typedef struct probe {
    void (*loop)(long);
    const char *needs, *needs2; /* backend names whose presence says the CPU runs it */
} probe;

static const probe p_x1 = {rnds2_x1, "shani", NULL}, p_x2 = {rnds2_x2, "shani", NULL},
                   p_x4 = {rnds2_x4, "shani", NULL};
static const probe p_add = {zmm_add, "avx512", NULL}, p_ror = {zmm_ror, "avx512", NULL},
                   p_mix = {zmm_mix, "avx512", NULL};
static const probe p_hyb = {rnds2_zmm, "shani", "avx512"};
static const probe p_hy_avx = {bk_bench_hybrid_avx512, "shani", "avx512"},
                   p_hy_sha = {bk_bench_hybrid_shani, "shani", "avx512"},
                   p_hy_both = {bk_bench_hybrid_both, "shani", "avx512"};

static int has_backend(const char *name)
{
    const char *names[8];
    size_t n = bk_sha256_backends(names, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

static int probe_setup(void **ctx, const void *arg, const bk_allocator *alloc)
{
    const probe *p = arg;
    (void)alloc;
    if (!has_backend(p->needs) || (p->needs2 && !has_backend(p->needs2)))
        return 1; /* this CPU lacks the instructions: no row */
    *ctx = (void *)(uintptr_t)p;
    return 0;
}

static void probe_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    const probe *p = ctx;
    (void)alloc;
    for (uint64_t i = 0; i < iters; i++) p->loop(LOOPS);
}

static void probe_run16(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    const probe *p = ctx;
    (void)alloc;
    for (uint64_t i = 0; i < iters; i++) p->loop(LOOPS / 16);
}

static void probe_teardown(void *ctx, const bk_allocator *alloc)
{
    (void)ctx;
    (void)alloc;
}

/* units per op: LOOPS iterations of 8 / 16 / 32 sha256rnds2 (32 per
 * compression), or of 16 zmm instructions. */
BK_BENCH(bench_probe_x1, "SHA256/Probe/rnds2x1", "compression", LOOPS * 8 / 32.0, 0, &p_x1, probe_setup,
         probe_run, probe_teardown)
BK_BENCH(bench_probe_x2, "SHA256/Probe/rnds2x2", "compression", LOOPS * 16 / 32.0, 0, &p_x2, probe_setup,
         probe_run, probe_teardown)
BK_BENCH(bench_probe_x4, "SHA256/Probe/rnds2x4", "compression", LOOPS * 32 / 32.0, 0, &p_x4, probe_setup,
         probe_run, probe_teardown)
BK_BENCH(bench_probe_add, "SHA256/Probe/zmm-add", "instruction", LOOPS * 16.0, 0, &p_add, probe_setup,
         probe_run, probe_teardown)
BK_BENCH(bench_probe_ror, "SHA256/Probe/zmm-ror", "instruction", LOOPS * 16.0, 0, &p_ror, probe_setup,
         probe_run, probe_teardown)
BK_BENCH(bench_probe_mix, "SHA256/Probe/zmm-mix", "instruction", LOOPS * 16.0, 0, &p_mix, probe_setup,
         probe_run, probe_teardown)
BK_BENCH(bench_probe_hybrid, "SHA256/Probe/rnds2x4+zmm-mix", "iteration", LOOPS, 0, &p_hyb, probe_setup,
         probe_run, probe_teardown)
/* LOOPS / 16 steps of about 0.2-0.4 us each. */
BK_BENCH(bench_probe_hy_avx, "SHA256/Probe/hybrid/avx512", "step", LOOPS / 16, 0, &p_hy_avx, probe_setup,
         probe_run16, probe_teardown)
BK_BENCH(bench_probe_hy_sha, "SHA256/Probe/hybrid/shani", "step", LOOPS / 16, 0, &p_hy_sha, probe_setup,
         probe_run16, probe_teardown)
BK_BENCH(bench_probe_hy_both, "SHA256/Probe/hybrid/both", "step", LOOPS / 16, 0, &p_hy_both, probe_setup,
         probe_run16, probe_teardown)

#else
/* Not x86-64: no probe rows (ISO C wants a declaration per file). */
typedef int bk_bench_sha256_probe_not_built;
#endif
