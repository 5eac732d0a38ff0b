/* Fuzz the BIP158 filter reader and matcher (include/blockkit/blockfilter.h).
 *
 * Input: bytes 0-31 the block hash (the SipHash key), byte 32 how many
 * query elements follow before the filter (each: one length byte, then the
 * bytes); the rest is the serialized filter. Checks: a parse that fails
 * names an offset inside the input; a parsed filter decodes to exactly N
 * sorted values; match agrees with match_any for every element and
 * with a linear search of the decoded values; a filter rebuilt from the
 * queries matches each of them. */
#include <blockkit/blockfilter.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 33) return 0;
    const uint8_t *hash = data;
    size_t nq = data[32] % 16, p = 33;
    const uint8_t *q[16];
    size_t ql[16], got = 0;
    while (got < nq && p < size) {
        size_t l = data[p++];
        if (l > size - p) l = size - p;
        q[got] = data + p;
        ql[got++] = l;
        p += l;
    }
    const uint8_t *filter = data + p;
    size_t flen = size - p;
    bk_blockfilter_view v;
    bk_error err;
    if (bk_blockfilter_parse(filter, flen, hash, &v, &err) != BK_OK) {
        if (err.offset > flen) abort();
    } else {
        if (v.n > flen * 8 + 1) abort(); /* every code takes at least one bit */
        uint64_t *vals = malloc(((size_t)v.n + 1) * sizeof *vals);
        if (!vals) return 0;
        if (bk_blockfilter_values(&v, vals, v.n, &err) != BK_OK) abort();
        /* deltas are never negative; a damaged filter may hold values past F
         * (Core's GCSFilter does not check them either: they never match) */
        for (uint32_t i = 1; i < v.n; i++)
            if (vals[i] < vals[i - 1]) abort();
        uint64_t scratch[16];
        for (size_t i = 0; i < got; i++) {
            int m = bk_blockfilter_match(&v, q[i], ql[i]);
            if (m != bk_blockfilter_match_any(&v, &q[i], &ql[i], 1, scratch)) abort();
            uint64_t k[2];
            bk_blockfilter_key(hash, k);
            uint64_t h = bk_fastrange64(bk_siphash24(k[0], k[1], q[i], ql[i]), v.range);
            int lin = 0;
            for (uint32_t j = 0; j < v.n && !lin; j++) lin = vals[j] == h;
            if (lin != m) abort();
        }
        free(vals);
    }
    /* a filter built from the queries matches each of them */
    bk_blockfilter f;
    bk_blockfilter_init(&f, NULL);
    bk_blockfilter_reset(&f, hash);
    for (size_t i = 0; i < got; i++) bk_blockfilter_add(&f, q[i], ql[i]);
    if (bk_blockfilter_finish(&f, &err) == BK_OK) {
        bk_blockfilter_view w;
        if (bk_blockfilter_parse(f.filter, f.filter_len, hash, &w, &err) != BK_OK) abort();
        for (size_t i = 0; i < got; i++)
            if (ql[i] && !bk_blockfilter_match(&w, q[i], ql[i])) abort();
    }
    bk_blockfilter_free(&f);
    return 0;
}
