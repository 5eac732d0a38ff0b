/* Fuzz the SHA-256 batch engine against its one-shot path, on every
 * backend this CPU runs and every variant the calibration measures
 * (shani/x3, shani/x2, avx512/pass): the lane driver (runs of whole blocks,
 * blocks assembled across segments, padding, second hashes, long messages
 * first, the SHA-NI tail longest first) and the 64-byte kernels' step
 * counts.
 *
 * Input: byte 0 = message count (mod 80); per message 2 bytes of length
 * (mod 4200, 32 KiB in all: runs, assembled blocks and long tails all
 * occur), 1 byte of segment count (1..4) and 2 bytes per cut; the byte
 * after them = the count for the 64-byte batch calls (mod 70). The message
 * bytes are the rest of the input, cycled. Checks: bk_sha256d_msgs of every
 * backend (portable's on inputs of 8 KiB or less) equals the portable
 * backend's bk_sha256d of each message's concatenated bytes;
 * bk_sha256_64 / bk_sha256d_64 of the first n 64-byte chunks equal the
 * one-shot digests, out of place and in place. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <blockkit/sha256.h>

enum { MAX_MSGS = 80, MAX_LEN = 4200, MAX_SEGS = 4, MAX_64 = 70, MAX_TOTAL = 32768 };

static uint8_t pool[MAX_MSGS * MAX_LEN];
static bk_sha256_seg segs[MAX_MSGS * MAX_SEGS];
static bk_sha256_msg msgs[MAX_MSGS];
static size_t lens[MAX_MSGS];
static uint8_t ref[32 * MAX_MSGS], out[32 * MAX_MSGS];
static uint8_t ref64[32 * MAX_64], refd64[32 * MAX_64], buf64[64 * MAX_64];

static void check(int ok)
{
    if (!ok) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    size_t pos = 0;
    size_t n = data[pos++] % MAX_MSGS;
    /* Message bytes: the input, cycled (each message's area and the
     * 64-byte calls' chunks at the front). */
    size_t fill = n * MAX_LEN > 64 * MAX_64 ? n * MAX_LEN : 64 * MAX_64;
    for (size_t i = 0, j = 0; i < fill; i++, j = j + 1 == size ? 0 : j + 1) pool[i] = (uint8_t)(data[j] ^ (i >> 8));
    size_t total = 0;
    for (size_t m = 0; m < n; m++) {
        uint8_t b[3] = {0, 0, 1};
        for (int k = 0; k < 3; k++) b[k] = pos < size ? data[pos++] : b[k];
        size_t len = (size_t)(b[0] | b[1] << 8) % MAX_LEN;
        /* At most MAX_TOTAL bytes in all: runs stay fast under the
         * sanitizers (every backend hashes every message). */
        if (len > MAX_TOTAL - total) len = MAX_TOTAL - total;
        total += len;
        size_t nseg = 1 + b[2] % MAX_SEGS;
        uint8_t *p = pool + m * MAX_LEN;
        size_t at = 0;
        bk_sha256_seg *sg = segs + m * MAX_SEGS;
        for (size_t k = 0; k + 1 < nseg; k++) {
            size_t cut = 0;
            if (pos + 1 < size) cut = (size_t)(data[pos] | data[pos + 1] << 8);
            pos += 2;
            cut = len - at ? cut % (len - at + 1) : 0;
            sg[k] = (bk_sha256_seg){p + at, cut};
            at += cut;
        }
        sg[nseg - 1] = (bk_sha256_seg){p + at, len - at};
        msgs[m] = (bk_sha256_msg){sg, nseg};
        lens[m] = len;
    }
    size_t n64 = (pos < size ? data[pos++] : 0) % MAX_64;

    /* The reference: one-shot SHA256d on the portable backend. */
    check(bk_sha256_use("portable") == BK_OK);
    for (size_t m = 0; m < n; m++) bk_sha256d(ref + 32 * m, pool + m * MAX_LEN, lens[m]);
    for (size_t i = 0; i < n64; i++) {
        bk_sha256(ref64 + 32 * i, pool + 64 * i, 64);
        bk_sha256d(refd64 + 32 * i, pool + 64 * i, 64);
    }

    /* Every candidate the calibration measures: the listed backends and
     * their variants. */
    static bk_sha256_calib cal;
    static int have_cal;
    if (!have_cal) {
        bk_sha256_calibration(&cal);
        have_cal = 1;
    }
    const char *names[BK_SHA256_MAX_CANDIDATES + 1];
    size_t nb = 0;
    for (size_t b = 0; b < cal.n; b++) names[nb++] = cal.name[b];
    names[nb++] = "auto";
    for (size_t b = 0; b < nb; b++) {
        /* portable's batch drivers are code of their own, but its kernel
         * is the slowest by far: on the smaller inputs only. */
        if (!strcmp(names[b], "portable") && total > 8192) continue;
        check(bk_sha256_use(names[b]) == BK_OK);
        memset(out, 0, sizeof out);
        bk_sha256d_msgs(out, msgs, n);
        check(memcmp(out, ref, 32 * n) == 0);
        bk_sha256_64(out, pool, n64);
        check(memcmp(out, ref64, 32 * n64) == 0);
        bk_sha256d_64(out, pool, n64);
        check(memcmp(out, refd64, 32 * n64) == 0);
        memcpy(buf64, pool, 64 * n64);
        bk_sha256d_64(buf64, buf64, n64);
        check(memcmp(buf64, refd64, 32 * n64) == 0);
    }
    return 0;
}
