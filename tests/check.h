/* Minimal test harness: CHECK-style assertions that count and report, a
 * closing line "N passed, N failed", and helpers to load test data. Each
 * test file defines main() via TEST_MAIN and runs its cases with RUN(). */
#ifndef BLOCKKIT_TEST_CHECK_H
#define BLOCKKIT_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

static int check_passed, check_failed;
static const char *check_case = "";

#define CHECK(cond) do { \
    if (cond) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__, check_case, #cond); } \
} while (0)

#define CHECK_EQ_INT(a, b) do { \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
    if (check_a_ == check_b_) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: [%s] %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, check_case, #a, #b, check_a_, check_b_); } \
} while (0)

#define CHECK_EQ_STR(a, b) do { \
    const char *check_a_ = (a), *check_b_ = (b); \
    if (check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: [%s] %s == %s failed:\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, check_case, #a, #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); } \
} while (0)

#define CHECK_MEM(a, b, n) do { \
    if (memcmp((a), (b), (n)) == 0) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: [%s] memory %s == %s failed\n", __FILE__, __LINE__, check_case, #a, #b); } \
} while (0)

#define RUN(fn) do { check_case = #fn; fn(); } while (0)

static inline int check_finish(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

/* Read a whole file from tests/data (or an absolute path). Exits the test
 * with a failure if it cannot be read: missing data is a test failure. */
static inline uint8_t *check_read_file(const char *name, size_t *len_out)
{
    char path[4096];
    if (name[0] == '/') snprintf(path, sizeof path, "%s", name);
    else snprintf(path, sizeof path, "%s/%s", BK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open test data %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    buf[n > 0 ? n : 0] = 0;
    fclose(f);
    *len_out = (size_t)n;
    return buf;
}

/* Decode lowercase/uppercase hex into a new buffer; NULL on bad hex. */
static inline uint8_t *check_unhex(const char *hex, size_t *len_out)
{
    *len_out = 0;
    size_t n = strlen(hex);
    while (n && (hex[n - 1] == '\n' || hex[n - 1] == '\r' || hex[n - 1] == ' ')) n--;
    if (n % 2) return NULL;
    uint8_t *out = malloc(n / 2 + 1);
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) { free(out); return NULL; }
        out[i] = (uint8_t)v;
    }
    *len_out = n / 2;
    return out;
}

static inline void check_hex(char *out, const uint8_t *p, size_t n)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) { out[2 * i] = d[p[i] >> 4]; out[2 * i + 1] = d[p[i] & 15]; }
    out[2 * n] = 0;
}

#endif
