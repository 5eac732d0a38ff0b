/* Fuzz the container schema parser behind `ssz --schema` and the value
 * encoder's field lookup (the name-sorted index built with each container):
 * input = schema JSON, a 0 byte, value JSON. When the schema loads,
 * Container:A and Container:B are built if defined; the all-zero value of a
 * small fixed-size one must round-trip through JSON (to_json, from_json:
 * the same bytes), and a value given in the input that encodes must decode
 * to JSON that encodes to the same bytes. No crash, no leak. */
#include <stdlib.h>
#include <string.h>

#include <blockkit/blockkit.h>
#include <blockkit/ssz.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const bk_ssz_type *t, const uint8_t *bytes, size_t len)
{
    bk_writer j, b;
    bk_writer_init(&j, NULL);
    bk_writer_init(&b, NULL);
    if (bk_ssz_to_json(t, bytes, len, &j, NULL) == BK_OK) {
        if (bk_ssz_from_json(t, (const char *)j.data, j.len, &b, NULL, NULL) != BK_OK) abort();
        if (b.len != len || (len && memcmp(b.data, bytes, len))) abort();
    }
    bk_writer_free(&j);
    bk_writer_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, 0, size);
    size_t slen = sep ? (size_t)(sep - data) : size;
    const char *value = sep ? (const char *)sep + 1 : NULL;
    size_t vlen = sep ? size - slen - 1 : 0;

    bk_ssz_registry *reg;
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK) abort();
    bk_error err;
    if (bk_ssz_registry_load_schema(reg, (const char *)data, slen, &err) == BK_OK) {
        static const char *const names[] = {"Container:A", "Container:B"};
        for (size_t k = 0; k < 2; k++) {
            const bk_ssz_type *t;
            if (bk_ssz_type_parse(reg, names[k], &t, NULL) != BK_OK) continue;
            uint64_t len = bk_ssz_min_size(t);
            if (len <= 65536) {
                uint8_t *zero = calloc(1, len ? len : 1);
                if (!zero) abort();
                if (bk_ssz_validate(t, zero, len, NULL) == BK_OK) round_trip(t, zero, len);
                free(zero);
            }
            if (value) {
                bk_writer w;
                bk_writer_init(&w, NULL);
                if (bk_ssz_from_json(t, value, vlen, &w, NULL, NULL) == BK_OK) round_trip(t, w.data, w.len);
                bk_writer_free(&w);
            }
        }
    } else if (err.offset > slen) {
        abort();
    }
    bk_ssz_registry_free(reg);
    return 0;
}
