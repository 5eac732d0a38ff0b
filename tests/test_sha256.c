/* SHA-256 engine: FIPS 180-4 vectors on every runnable backend, every
 * backend against portable on random inputs (all lengths 0..300, streaming
 * with random splits, every batch count 0..67 of the batch calls, in place),
 * the SSZ oracle's sha256_64 vectors, and backend selection errors. */
#include "check.h"

#include <blockkit/sha256.h>

#include "crypto/sha256_headers.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
}

/* The runnable backends, then the SHA-NI stream-count variants and "auto"
 * (the measured per-shape mix): every kernel set a call can reach. */
static const char *backends[16];
static size_t nbackends;

static void use(const char *name)
{
    bk_status st = bk_sha256_use(name);
    CHECK_EQ_INT(st, BK_OK);
    CHECK_EQ_STR(bk_sha256_backend(), name);
}

static void check_hex_digest(const uint8_t d[32], const char *want, const char *what)
{
    char hex[65];
    check_hex(hex, d, 32);
    if (strcmp(hex, want) != 0)
        fprintf(stderr, "  %s on backend %s\n", what, bk_sha256_backend());
    CHECK_EQ_STR(hex, want);
}

/* FIPS 180-4 / NIST CSRC example vectors (SHA256.pdf, SHA2_Additional). */
static void fips_vectors_every_backend(void)
{
    static const char m448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    static const char m896[] =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    uint8_t *ma = malloc(1000000);
    memset(ma, 'a', 1000000);
    for (size_t b = 0; b < nbackends; b++) {
        uint8_t d[32];
        use(backends[b]);
        bk_sha256(d, "", 0);
        check_hex_digest(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty");
        bk_sha256(d, "abc", 3);
        check_hex_digest(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "abc");
        bk_sha256(d, m448, 56);
        check_hex_digest(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "448-bit");
        bk_sha256(d, m896, 112);
        check_hex_digest(d, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1", "896-bit");
        bk_sha256(d, ma, 1000000);
        check_hex_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "million a");
        /* The same million, streamed in 1000-byte pieces. */
        bk_sha256_ctx c;
        bk_sha256_init(&c);
        for (int i = 0; i < 1000; i++) bk_sha256_update(&c, ma + 1000 * i, 1000);
        bk_sha256_final(&c, d);
        check_hex_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "million a streamed");
        /* SHA256d("abc") = SHA256 of the "abc" digest (bytes). */
        bk_sha256d(d, "abc", 3);
        check_hex_digest(d, "4f8b42c22dd3729b519ba6f68d2da7cc5b2d606d05daed5ad5128cc03e6c6358", "sha256d abc");
    }
    free(ma);
}

/* Every length 0..300: one-shot and streaming with random split points,
 * each backend against portable. */
static void lengths_0_to_300_match_portable(void)
{
    uint8_t msg[300], want[301][32], wantd[301][32];
    fill_random(msg, sizeof msg);
    use("portable");
    for (size_t len = 0; len <= 300; len++) {
        bk_sha256(want[len], msg, len);
        bk_sha256d(wantd[len], msg, len);
    }
    for (size_t b = 0; b < nbackends; b++) {
        use(backends[b]);
        int bad = 0;
        for (size_t len = 0; len <= 300; len++) {
            uint8_t d[32];
            bk_sha256(d, msg, len);
            bad += memcmp(d, want[len], 32) != 0;
            bk_sha256d(d, msg, len);
            bad += memcmp(d, wantd[len], 32) != 0;
            for (int trial = 0; trial < 4; trial++) {
                bk_sha256_ctx c;
                size_t pos = 0;
                bk_sha256_init(&c);
                while (pos < len) {
                    size_t k = (size_t)(rnd() % (len - pos + 1));
                    if (trial == 3) k = k % 3;  /* many tiny pieces, some empty */
                    bk_sha256_update(&c, msg + pos, k);
                    pos += k;
                }
                bk_sha256_update(&c, msg, 0);
                bk_sha256_final(&c, d);
                bad += memcmp(d, want[len], 32) != 0;
            }
        }
        if (bad) fprintf(stderr, "  backend %s: %d mismatches\n", backends[b], bad);
        CHECK_EQ_INT(bad, 0);
    }
}

/* bk_sha256_64 / bk_sha256d_64 for every count 0..67 (every lane count
 * of one and two 16-lane groups and of the 2/3/4-stream kernels, every
 * group boundary 15/16/17, 31/32/33, 63/64/65), out of place and in
 * place, against portable. */
static void batch_64_every_count_match_portable(void)
{
    enum { MAXN = 67 };
    uint8_t in[64 * MAXN], want[32 * MAXN], wantd[32 * MAXN], out[64 * MAXN + 32], buf[64 * MAXN];
    fill_random(in, sizeof in);
    use("portable");
    /* The portable batch calls agree with the one-shot. */
    for (int i = 0; i < MAXN; i++) {
        bk_sha256(want + 32 * i, in + 64 * i, 64);
        bk_sha256d(wantd + 32 * i, in + 64 * i, 64);
    }
    for (size_t b = 0; b < nbackends; b++) {
        use(backends[b]);
        for (size_t n = 0; n <= MAXN; n++) {
            memset(out, 0xAA, sizeof out);
            bk_sha256_64(out, in, n);
            CHECK(memcmp(out, want, 32 * n) == 0);
            CHECK(out[32 * n] == 0xAA);  /* nothing written past n digests */
            memset(out, 0xAA, sizeof out);
            bk_sha256d_64(out, in, n);
            CHECK(memcmp(out, wantd, 32 * n) == 0);
            CHECK(out[32 * n] == 0xAA);
            memcpy(buf, in, sizeof buf);
            bk_sha256_64(buf, buf, n);
            CHECK(memcmp(buf, want, 32 * n) == 0);
            memcpy(buf, in, sizeof buf);
            bk_sha256d_64(buf, buf, n);
            CHECK(memcmp(buf, wantd, 32 * n) == 0);
            /* Digests packed at the front; the rest of the buffer untouched. */
            CHECK(memcmp(buf + 64 * n, in + 64 * n, sizeof buf - 64 * n) == 0);
        }
    }
}

/* bk_sha256d_msgs: random lengths (0..300, a few long), random segment
 * splits (including empty segments), every count 0..67. */
static void msgs_every_count_random_segments(void)
{
    enum { MAXN = 67, MAXSEG = 6 };
    static uint8_t data[MAXN][2000];
    size_t lens[MAXN];
    bk_sha256_seg segs[MAXN][MAXSEG];
    bk_sha256_msg msgs[MAXN];
    uint8_t want[32 * MAXN], out[32 * MAXN + 32];
    use("portable");
    for (int i = 0; i < MAXN; i++) {
        lens[i] = (i % 9 == 4) ? 1000 + rnd() % 1000 : rnd() % 301;
        fill_random(data[i], lens[i]);
        size_t nseg = 1 + rnd() % MAXSEG, pos = 0;
        for (size_t s = 0; s < nseg; s++) {
            size_t k = s + 1 == nseg ? lens[i] - pos : (size_t)(rnd() % (lens[i] - pos + 1));
            segs[i][s].data = data[i] + pos;
            segs[i][s].len = k;
            pos += k;
        }
        msgs[i].segs = segs[i];
        msgs[i].nsegs = nseg;
        bk_sha256d(want + 32 * i, data[i], lens[i]);
    }
    for (size_t b = 0; b < nbackends; b++) {
        use(backends[b]);
        for (size_t n = 0; n <= MAXN; n++) {
            memset(out, 0xAA, sizeof out);
            bk_sha256d_msgs(out, msgs, n);
            CHECK(memcmp(out, want, 32 * n) == 0);
            CHECK(out[32 * n] == 0xAA);
            /* Starting at an offset shifts which lane each message lands in. */
            if (n > 0) {
                bk_sha256d_msgs(out, msgs + 1, n - 1);
                CHECK(memcmp(out, want + 32, 32 * (n - 1)) == 0);
            }
        }
    }
}

/* SSZ oracle (consensus-specs hash over 64-byte pairs): lines
 * {"kind":"sha256_64","input":"0x<128 hex>","digest":"0x<64 hex>"}. */
static void ssz_oracle_sha256_64(void)
{
    size_t len;
    char *text = (char *)check_read_file("sha256/merkle_sha256_64.jsonl", &len);
    uint8_t in[64 * 64], want[32 * 64], out[32 * 64];
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line && n < 64; line = strtok(NULL, "\n")) {
        char *pi = strstr(line, "\"input\":\"0x"), *pd = strstr(line, "\"digest\":\"0x");
        CHECK(pi && pd);
        if (!pi || !pd) continue;
        pi += 11;
        pd += 12;
        CHECK(strchr(pi, '"') - pi == 128);
        CHECK(strchr(pd, '"') - pd == 64);
        for (int i = 0; i < 64; i++) { unsigned v; sscanf(pi + 2 * i, "%2x", &v); in[64 * n + i] = (uint8_t)v; }
        for (int i = 0; i < 32; i++) { unsigned v; sscanf(pd + 2 * i, "%2x", &v); want[32 * n + i] = (uint8_t)v; }
        n++;
    }
    CHECK_EQ_INT(n, 64);
    for (size_t b = 0; b < nbackends; b++) {
        use(backends[b]);
        bk_sha256_64(out, in, n);
        CHECK(memcmp(out, want, 32 * n) == 0);
        for (size_t i = 0; i < n; i++) {
            uint8_t d[32];
            bk_sha256(d, in + 64 * i, 64);
            CHECK(memcmp(d, want + 32 * i, 32) == 0);
        }
    }
    free(text);
}

/* Unaligned buffers (odd offsets) and a count past three 32-message
 * steps, out of place and in place. */
static void batch_64_unaligned_and_long(void)
{
    enum { N = 100 };
    static uint8_t in[64 * N + 3], want[32 * N], wantd[32 * N], out[32 * N + 5], buf[64 * N + 7];
    fill_random(in, sizeof in);
    use("portable");
    bk_sha256_64(want, in + 3, N);
    bk_sha256d_64(wantd, in + 3, N);
    for (size_t b = 0; b < nbackends; b++) {
        use(backends[b]);
        bk_sha256_64(out + 5, in + 3, N);
        CHECK(memcmp(out + 5, want, sizeof want) == 0);
        bk_sha256d_64(out + 5, in + 3, N);
        CHECK(memcmp(out + 5, wantd, sizeof wantd) == 0);
        memcpy(buf + 7, in + 3, 64 * N);
        bk_sha256d_64(buf + 7, buf + 7, N);
        CHECK(memcmp(buf + 7, wantd, sizeof wantd) == 0);
    }
}

/* The calibration: every candidate it measured can be forced, each shape's
 * choice is one of them and the fastest measured, and "auto" runs exactly
 * those choices. */
static void calibration_choices(void)
{
    bk_sha256_calib c;
    bk_sha256_calibration(&c);
    CHECK(c.n >= 1 && c.n <= BK_SHA256_MAX_CANDIDATES);
    CHECK(c.rounds >= 1);
    CHECK_EQ_STR(c.name[c.n - 1], "portable");
    for (size_t i = 0; i < c.n; i++) {
        CHECK_EQ_INT(bk_sha256_use(c.name[i]), BK_OK);
        for (int s = 0; s < BK_SHA256_NSHAPES; s++) {
            CHECK(c.ns[i][s] > 0 && c.ns[i][s] < 1e9);
            CHECK_EQ_STR(bk_sha256_shape_backend((bk_sha256_shape)s), c.name[i]);
        }
    }
    use("auto");
    for (int s = 0; s < BK_SHA256_NSHAPES; s++) {
        size_t k = c.n;
        for (size_t i = 0; i < c.n; i++)
            if (strcmp(c.chosen[s], c.name[i]) == 0) k = i;
        CHECK(k < c.n);
        if (k >= c.n) continue;
        for (size_t i = 0; i < c.n; i++) CHECK(c.ns[k][s] <= c.ns[i][s]);
        CHECK_EQ_STR(bk_sha256_shape_backend((bk_sha256_shape)s), c.chosen[s]);
    }
    CHECK(bk_sha256_shape_backend(BK_SHA256_NSHAPES) == NULL);
    /* The short-batch crossovers are measured only when the AVX-512
     * backend has SHA-NI streams to hand short batches to. */
    int has_avx512 = 0, has_shani = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (strcmp(c.name[i], "avx512") == 0) has_avx512 = 1;
        if (strcmp(c.name[i], "shani") == 0) has_shani = 1;
    }
    if (has_avx512 && has_shani) {
        CHECK(c.small_below >= 1 && c.small_below <= 16);
        CHECK(c.small_split >= 1 && c.small_split <= 16);
    } else {
        CHECK_EQ_INT(c.small_below, 0);
        CHECK_EQ_INT(c.small_split, 0);
    }
    /* Calibrated once per process: the same figures again. */
    bk_sha256_calib again;
    bk_sha256_calibration(&again);
    CHECK(memcmp(&again, &c, sizeof c) == 0);
}

static void backend_list_and_use_errors(void)
{
    const char *names[8];
    size_t n = bk_sha256_backends(names, 8);
    CHECK(n >= 1);
    CHECK_EQ_STR(names[n - 1], "portable");  /* the fallback is listed last */
    CHECK_EQ_INT(bk_sha256_backends(NULL, 0), n);
    const char *one[1];
    CHECK_EQ_INT(bk_sha256_backends(one, 1), n);
    CHECK_EQ_STR(one[0], names[0]);

    CHECK_EQ_INT(bk_sha256_use("md5"), BK_ERR_ARG);
    CHECK_EQ_INT(bk_sha256_use(""), BK_ERR_ARG);
    CHECK_EQ_INT(bk_sha256_use(NULL), BK_ERR_ARG);
#if defined(__x86_64__)
    CHECK_EQ_INT(bk_sha256_use("armv8"), BK_ERR_UNSUPPORTED);
#elif defined(__aarch64__)
    CHECK_EQ_INT(bk_sha256_use("shani"), BK_ERR_UNSUPPORTED);
    CHECK_EQ_INT(bk_sha256_use("shani/x3"), BK_ERR_UNSUPPORTED);
    CHECK_EQ_INT(bk_sha256_use("avx2"), BK_ERR_UNSUPPORTED);
    CHECK_EQ_INT(bk_sha256_use("avx512/pass"), BK_ERR_UNSUPPORTED);
#endif
    /* Every listed backend is a calibration candidate; the candidates are
     * the listed backends and the variants, which are not listed. */
    bk_sha256_calib c;
    bk_sha256_calibration(&c);
    size_t listed = 0;
    for (size_t i = 0; i < c.n; i++) {
        int in_list = 0;
        for (size_t j = 0; j < n; j++) in_list |= strcmp(c.name[i], names[j]) == 0;
        int variant = strchr(c.name[i], '/') != NULL;
        CHECK(in_list != variant);
        listed += (size_t)in_list;
    }
    CHECK_EQ_INT(listed, n);
    /* A refused request leaves the current backend in place. */
    use("portable");
    CHECK(bk_sha256_use("nonsense") != BK_OK);
    CHECK_EQ_STR(bk_sha256_backend(), "portable");
    for (size_t i = 0; i < n; i++) use(names[i]);
}

/* bk_header_hash_many (the block-index build's 80-byte SHA256d, AVX-512
 * lanes where the dispatcher picks AVX-512 for messages): every count
 * around the 16-lane groups, equal to bk_sha256d, under the automatic
 * choice and every backend this CPU runs (forced, so the kernel is off). */
static void header_hash_many_every_count(void)
{
    enum { MAXN = 67 };
    static uint8_t hdrs[MAXN * 80], got[MAXN * 32];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof hdrs; i++) {
        x = x * 1103515245u + 12345u;
        hdrs[i] = (uint8_t)(x >> 23);
    }
    for (size_t b = 0; b < nbackends; b++) {
        use(backends[b]);
        for (size_t n = 0; n <= MAXN; n++) {
            memset(got, 0xee, sizeof got);
            bk_header_hash_many(got, hdrs, n);
            int ok = 1;
            for (size_t i = 0; i < n; i++) {
                uint8_t want[32];
                bk_sha256d(want, hdrs + 80 * i, 80);
                if (memcmp(want, got + 32 * i, 32) != 0) ok = 0;
            }
            if (n < MAXN && got[32 * n] != 0xee) ok = 0; /* nothing past n */
            CHECK(ok);
        }
    }
    CHECK_EQ_INT(bk_sha256_use("auto"), BK_OK);
}

int main(void)
{
    /* Every candidate the calibration measures: the listed backends and
     * their variants (stream counts, schedule placements). */
    bk_sha256_calib cal;
    bk_sha256_calibration(&cal);
    for (size_t i = 0; i < cal.n && nbackends < 15; i++) backends[nbackends++] = cal.name[i];
    printf("backends:");
    for (size_t i = 0; i < nbackends; i++) printf(" %s", backends[i]);
    printf(" (default %s)\n", bk_sha256_backend());
    backends[nbackends++] = "auto";
    RUN(fips_vectors_every_backend);
    RUN(lengths_0_to_300_match_portable);
    RUN(batch_64_every_count_match_portable);
    RUN(batch_64_unaligned_and_long);
    RUN(msgs_every_count_random_segments);
    RUN(ssz_oracle_sha256_64);
    RUN(calibration_choices);
    RUN(backend_list_and_use_errors);
    RUN(header_hash_many_every_count);
    return check_finish();
}
