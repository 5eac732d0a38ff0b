/* SHA-256 benches, one row for the automatic per-shape choice ("auto") and
 * one per runnable backend (the backend is forced with bk_sha256_use in
 * setup and the previous one restored in teardown), plus OpenSSL's EVP
 * SHA-256 as the peer row when built with OpenSSL. The floor rows of this
 * CPU are in bench_sha256_probe.c.
 *
 *   SHA256/64B/<b>      bk_sha256_64, 1024 messages per op, unit message
 *   SHA256D64/<b>       bk_sha256d_64, 1024 merkle nodes per op, unit node
 *   SHA256DMsgs/<b>     bk_sha256d_msgs, 1024 txid-like messages (3 segments,
 *                       60..1000 bytes), unit message
 *   (<b> also avx512/pass, the other AVX-512 schedule placement, where
 *   avx512 runs; not for 1MiB, whose single stream is the same)
 *   SHA256/1MiB/<b>     bk_sha256 of 1 MiB, unit compression (16385)
 *   SHA256/1MiB/openssl EVP_Digest(EVP_sha256()) of 1 MiB, same unit */
#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <blockkit/sha256.h>

#ifdef BK_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

enum { BATCH = 1024, MIB = 1 << 20, MSGS = 1024 };

typedef enum { K_64, K_D64, K_MSGS, K_1MIB } kind;

typedef struct sha_arg {
    kind k;
    char backend[16];
    char name[48];
} sha_arg;

typedef struct sha_ctx {
    const sha_arg *arg;
    const char *prev;       /* backend to restore (a static string) */
    uint8_t *in, *out;
    size_t in_len, out_len;
    bk_sha256_seg *segs;
    bk_sha256_msg *msgs;
} sha_ctx;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void sha_teardown(void *p, const bk_allocator *alloc)
{
    sha_ctx *c = p;
    if (!c) return;
    if (c->prev && bk_sha256_use(c->prev) != BK_OK) { /* cannot fail: it ran before */ }
    bk_free(alloc, c->in, c->in_len);
    bk_free(alloc, c->out, c->out_len);
    bk_free(alloc, c->segs, sizeof *c->segs * 3 * MSGS);
    bk_free(alloc, c->msgs, sizeof *c->msgs * MSGS);
    bk_free(alloc, c, sizeof *c);
}

static int sha_setup(void **out, const void *argp, const bk_allocator *alloc)
{
    const sha_arg *a = argp;
    sha_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    memset(c, 0, sizeof *c);
    c->arg = a;
    c->prev = bk_sha256_backend();
    if (bk_sha256_use(a->backend) != BK_OK) {
        c->prev = NULL;
        sha_teardown(c, alloc);
        return 1;
    }
    c->in_len = a->k == K_1MIB ? MIB : a->k == K_MSGS ? (size_t)MSGS * 1000 : 64 * BATCH;
    c->out_len = 32 * BATCH;
    c->in = bk_alloc(alloc, c->in_len);
    c->out = bk_alloc(alloc, c->out_len);
    if (!c->in || !c->out) {
        sha_teardown(c, alloc);
        return 1;
    }
    uint64_t s = 1;
    for (size_t i = 0; i < c->in_len; i++) c->in[i] = (uint8_t)lcg(&s);
    if (a->k == K_MSGS) {
        c->segs = bk_alloc(alloc, sizeof *c->segs * 3 * MSGS);
        c->msgs = bk_alloc(alloc, sizeof *c->msgs * MSGS);
        if (!c->segs || !c->msgs) {
            sha_teardown(c, alloc);
            return 1;
        }
        /* Shaped like a segwit tx without witness: 4-byte version, the
         * inputs and outputs, 4-byte locktime. */
        for (size_t i = 0; i < MSGS; i++) {
            const uint8_t *p = c->in + 1000 * i;
            size_t body = 52 + lcg(&s) % 940;
            c->segs[3 * i] = (bk_sha256_seg){p, 4};
            c->segs[3 * i + 1] = (bk_sha256_seg){p + 4, body};
            c->segs[3 * i + 2] = (bk_sha256_seg){p + 4 + body, 4};
            c->msgs[i] = (bk_sha256_msg){&c->segs[3 * i], 3};
        }
    }
    *out = c;
    return 0;
}

static void sha_run(void *p, uint64_t iters, const bk_allocator *alloc)
{
    sha_ctx *c = p;
    (void)alloc;
    for (uint64_t i = 0; i < iters; i++) {
        switch (c->arg->k) {
        case K_64: bk_sha256_64(c->out, c->in, BATCH); break;
        case K_D64: bk_sha256d_64(c->out, c->in, BATCH); break;
        case K_MSGS: bk_sha256d_msgs(c->out, c->msgs, MSGS); break;
        case K_1MIB: bk_sha256(c->out, c->in, MIB); break;
        }
        bk_bench_keep(c->out);
    }
}

/* Rows generated at start-up, one per runnable backend. */
#define MAX_BACKENDS 7
static sha_arg args[4 * MAX_BACKENDS];
static bk_bench rows[4 * MAX_BACKENDS];

__attribute__((constructor)) static void sha_register(void)
{
    static const struct { kind k; const char *fmt, *unit; double units, bytes; } kinds[4] = {
        {K_64, "SHA256/64B/%s", "message", BATCH, 64.0 * BATCH},
        {K_D64, "SHA256D64/%s", "node", BATCH, 64.0 * BATCH},
        {K_MSGS, "SHA256DMsgs/%s", "message", MSGS, 0},
        {K_1MIB, "SHA256/1MiB/%s", "compression", MIB / 64 + 1, MIB},
    };
    const char *names[MAX_BACKENDS];
    names[0] = "auto";
    size_t n = 1 + bk_sha256_backends(names + 1, MAX_BACKENDS - 2);
    if (n > MAX_BACKENDS - 1) n = MAX_BACKENDS - 1;
    /* The AVX-512 schedule placement the calibration may choose instead
     * (its single stream is avx512's: no 1MiB row). */
    for (size_t i = 1, m = n; i < m; i++)
        if (!strcmp(names[i], "avx512")) names[n++] = "avx512/pass";
    size_t r = 0;
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < n; i++) {
            if (kinds[k].k == K_1MIB && !strcmp(names[i], "avx512/pass")) continue;
            sha_arg *a = &args[r];
            a->k = kinds[k].k;
            snprintf(a->backend, sizeof a->backend, "%s", names[i]);
            snprintf(a->name, sizeof a->name, kinds[k].fmt, names[i]);
            rows[r] = (bk_bench){a->name, kinds[k].unit, kinds[k].units, kinds[k].bytes, a,
                                 sha_setup, sha_run, sha_teardown};
            bk_bench_register(&rows[r]);
            r++;
        }
    }
}

#ifdef BK_HAVE_OPENSSL
typedef struct ossl_ctx {
    uint8_t *in;
    uint8_t out[32];
} ossl_ctx;

static int ossl_setup(void **out, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    ossl_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    c->in = bk_alloc(alloc, MIB);
    if (!c->in) {
        bk_free(alloc, c, sizeof *c);
        return 1;
    }
    uint64_t s = 1;
    for (size_t i = 0; i < MIB; i++) c->in[i] = (uint8_t)lcg(&s);
    *out = c;
    return 0;
}

static void ossl_run(void *p, uint64_t iters, const bk_allocator *alloc)
{
    ossl_ctx *c = p;
    (void)alloc;
    for (uint64_t i = 0; i < iters; i++) {
        unsigned int len = 0;
        EVP_Digest(c->in, MIB, c->out, &len, EVP_sha256(), NULL);
        bk_bench_keep(c->out);
    }
}

static void ossl_teardown(void *p, const bk_allocator *alloc)
{
    ossl_ctx *c = p;
    bk_free(alloc, c->in, MIB);
    bk_free(alloc, c, sizeof *c);
}

BK_BENCH(bench_sha256_1mib_openssl, "SHA256/1MiB/openssl", "compression", MIB / 64 + 1, MIB, NULL,
         ossl_setup, ossl_run, ossl_teardown)
#endif
