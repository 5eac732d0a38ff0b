/* Fuzz what `export --verify` and a rerun read back from an export
 * directory (blockkit/export.h, blockkit/parquet.h): a chunk's Parquet
 * footer and the catalogue's lines.
 *
 * Byte 0 chooses the mode.
 *   even: the rest is a Thrift FileMetaData. A parse that fails names a
 *         byte inside the input; one that succeeds has non-negative row
 *         counts, at most BK_PQ_FOOTER_KV_MAX entries kept, and every kept
 *         key and value lies within the input.
 *   odd:  the rest is one catalogue line. A parsed entry writes back to a
 *         line that parses to the same entry (the format is one-to-one on
 *         what it holds). */
#include <blockkit/export.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int inside(const void *p, size_t n, const uint8_t *data, size_t size)
{
    const uint8_t *q = p;
    return q >= data && n <= size && q - data <= (ptrdiff_t)(size - n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    bk_error err;
    if (!(data[0] & 1)) {
        bk_pq_footer f;
        if (bk_pq_footer_parse(p, n, &f, &err) != BK_OK) {
            if (err.offset > n) abort();
            return 0;
        }
        if (f.num_rows < 0 || f.rowgroup_rows < 0 || f.nkv > BK_PQ_FOOTER_KV_MAX || f.nkv > f.n_kv_total) abort();
        for (size_t i = 0; i < f.nkv; i++) {
            if (!inside(f.kv[i].key, f.kv[i].key_len, p, n)) abort();
            if (f.kv[i].value && !inside(f.kv[i].value, f.kv[i].value_len, p, n)) abort();
        }
        if (n >= 8) {
            uint64_t off;
            uint32_t len;
            if (bk_pq_footer_locate(p + n - 8, n, &off, &len, &err) == BK_OK && off + len + 8 != n) abort();
        }
        return 0;
    }
    bk_catalog_entry e, e2;
    if (bk_catalog_parse_line((const char *)p, n, &e, &err) != BK_OK) {
        if (err.offset > n) abort();
        return 0;
    }
    char line[1200];
    size_t m = bk_catalog_line(&e, line, sizeof line);
    if (!m) abort();
    if (bk_catalog_parse_line(line, m, &e2, &err) != BK_OK) abort();
    if (memcmp(&e, &e2, sizeof e) != 0) abort();
    return 0;
}
