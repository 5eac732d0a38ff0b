/* Fuzz the cached tree (bk_ssz_tree): input = 8 bytes of seed, a byte of
 * list length, then edit operations (op byte, index bytes, value bytes).
 * After every edit the tree's root must equal a full recomputation over
 * its current bytes; refused edits must leave the root unchanged. Edits go
 * through paths (bk_ssz_tree_set), appends and field indices
 * (bk_ssz_tree_set_elem). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blockkit/blockkit.h>
#include <blockkit/ssz.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bk_ssz_registry *reg;
static bk_ssz_hasher *hasher;
static const bk_ssz_type *state;

/* Cached fields (256+ chunks at their limits), small ones, a progressive list. */
static const char schema[] =
    "{\"FuzzState\":[[\"slot\",\"uint64\"],[\"vals\",\"List[Container:Checkpoint,1024]\"],"
    "[\"bals\",\"List[uint64,4096]\"],[\"roots\",\"Vector[ByteVector[32],300]\"],[\"bits\",\"Bitlist[64]\"],"
    "[\"prog\",\"ProgressiveList[uint32]\"],[\"tail\",\"uint16\"]]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!reg) {
        if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&hasher, 0, NULL) != BK_OK ||
            bk_ssz_registry_load_schema(reg, schema, sizeof schema - 1, NULL) != BK_OK ||
            bk_ssz_type_parse(reg, "Container:FuzzState", &state, NULL) != BK_OK)
            abort();
    }
    if (size < 9) return 0;
    uint64_t seed;
    memcpy(&seed, data, 8);
    bk_writer w;
    bk_writer_init(&w, NULL);
    if (bk_ssz_synthesize(state, data[8], 0, seed, &w, NULL) != BK_OK) abort();
    bk_ssz_tree *tr;
    if (bk_ssz_tree_create(&tr, state, w.data, w.len, NULL, NULL) != BK_OK) abort();
    bk_writer_free(&w);
    uint8_t a[32], b[32];
    if (bk_ssz_tree_root(tr, hasher, a, NULL) != BK_OK) abort();
    size_t pos = 9;
    while (pos + 4 <= size) {
        uint8_t op = data[pos] % 6;
        unsigned idx = data[pos + 1] | (unsigned)data[pos + 2] << 8;
        uint8_t v[64]; /* the largest value written: a 40-byte Checkpoint */
        memset(v, 0, sizeof v);
        size_t vn = size - pos - 3 < 32 ? size - pos - 3 : 32;
        memcpy(v, data + pos + 3, vn);
        pos += 3 + (vn < 8 ? vn : 8);
        char is[16];
        snprintf(is, sizeof is, "%u", idx % 600);
        bk_status st;
        uint8_t before[32];
        memcpy(before, a, 32);
        if (op == 0) {
            const char *p[] = {"bals", is};
            st = bk_ssz_tree_set(tr, p, 2, v, 8, NULL);
        } else if (op == 1) {
            const char *p[] = {"vals", is, data[pos - 1] & 1 ? "epoch" : "root"};
            st = bk_ssz_tree_set(tr, p, 3, v, data[pos - 1] & 1 ? 8 : 32, NULL);
        } else if (op == 2) {
            const char *p[] = {"roots", is};
            st = bk_ssz_tree_set(tr, p, 2, v, 32, NULL);
        } else if (op == 3) {
            st = bk_ssz_tree_append(tr, data[pos - 1] & 1 ? "vals" : "bals", v, data[pos - 1] & 1 ? 40 : 8, NULL);
        } else if (op == 5) {
            /* By field index: bals (8 bytes), vals (40), roots (32), prog
             * (uncached progressive list, 4), or bits (no list of
             * fixed-size values: refused). */
            static const char *const names[5] = {"bals", "vals", "roots", "prog", "bits"};
            static const size_t sizes[5] = {8, 40, 32, 4, 1};
            unsigned which = data[pos - 1] % 5;
            size_t fi;
            if (bk_ssz_tree_field(tr, names[which], &fi, NULL) != BK_OK) abort();
            st = bk_ssz_tree_set_elem(tr, fi, idx % 600, v, sizes[which], NULL);
        } else {
            const char *p[] = {data[pos - 1] & 1 ? "slot" : "tail"};
            st = bk_ssz_tree_set(tr, p, 1, v, data[pos - 1] & 1 ? 8 : 2, NULL);
        }
        if (bk_ssz_tree_root(tr, hasher, a, NULL) != BK_OK) abort();
        if (st != BK_OK && memcmp(a, before, 32)) abort();
        size_t len;
        const uint8_t *cur = bk_ssz_tree_bytes(tr, &len);
        if (bk_ssz_hash_tree_root(hasher, state, cur, len, b, NULL) != BK_OK) abort();
        if (memcmp(a, b, 32)) abort();
    }
    bk_ssz_tree_free(tr);
    return 0;
}
