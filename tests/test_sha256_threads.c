/* First use from many threads at once: every thread triggers backend
 * selection and the calibration behind it concurrently (compare-and-swap
 * on the calibration state and on the backend pointer in
 * sha256_dispatch.c), all get correct digests and the same backend. Run under TSan
 * (-fsanitize=thread) to check for data races. */
#include "check.h"

#include <pthread.h>
#include <blockkit/sha256.h>

enum { THREADS = 8 };

static pthread_barrier_t start;
static int ok[THREADS];
static const char *seen[THREADS];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    static const uint8_t abc_digest[32] = {
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
        0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
    };
    uint8_t d[32], in[64 * 5] = {0}, out[32 * 5];
    pthread_barrier_wait(&start);
    int good = 1;
    for (int i = 0; i < 200; i++) {
        bk_sha256(d, "abc", 3);
        good &= memcmp(d, abc_digest, 32) == 0;
        bk_sha256_64(out, in, 5);
        /* SHA256 of 64 zero bytes (SSZ zero hash depth 1). */
        good &= out[0] == 0xf5 && out[1] == 0xa5 && out[31] == 0x4b && out[32 * 4] == 0xf5;
    }
    ok[id] = good;
    seen[id] = bk_sha256_backend();
    return NULL;
}

static void concurrent_first_use(void)
{
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        CHECK(ok[i]);
        CHECK_EQ_STR(seen[i], seen[0]);
    }
    /* Without an override the measured choice ("auto") is in use. */
    if (!getenv("BLOCKKIT_SHA256")) CHECK_EQ_STR(seen[0], "auto");
}

int main(void)
{
    RUN(concurrent_first_use);
    return check_finish();
}
