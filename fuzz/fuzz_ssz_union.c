/* Fuzz EIP-8016 CompatibleUnion type strings and values: input = a type
 * string, a 0 byte, serialized bytes. The type is built in a registry that
 * knows a few progressive and plain containers (the shapes of the
 * compatible_union vectors). A refused type has an error offset inside the
 * type string (or, for "schema: " errors, inside the schema); a built type's
 * canonical name builds the same type again. Bytes that validate must hash,
 * convert to JSON and back to the same bytes, answer the root as node 1,
 * and, for a CompatibleUnion, have root = hash(node 2, node 3) with node 3
 * the selector chunk and node 2 the option's own root; bytes that do not
 * validate are refused by hashing and JSON too. Paths "data" / "selector"
 * and a synthesized value of the type must not crash. No leak. */
#include <stdlib.h>
#include <string.h>

#include <blockkit/blockkit.h>
#include <blockkit/sha256.h>
#include <blockkit/ssz.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char schema[] =
    "{\"Square\":[[\"__active_fields__\",\"ProgressiveContainer[1,0,1]\"],[\"side\",\"uint16\"],[\"color\",\"uint8\"]],"
    "\"Circle\":[[\"__active_fields__\",\"ProgressiveContainer[0,1,1]\"],[\"radius\",\"uint16\"],[\"color\",\"uint8\"]],"
    "\"Moved\":[[\"__active_fields__\",\"ProgressiveContainer[1,1]\"],[\"side\",\"uint16\"],[\"color\",\"uint8\"]],"
    "\"Plain\":[[\"side\",\"uint16\"],[\"color\",\"uint8\"]],"
    "\"Point\":[[\"x\",\"uint64\"],[\"y\",\"List[uint8,4]\"]],"
    "\"PointB\":[[\"x\",\"uint64\"],[\"y\",\"ByteList[4]\"]],"
    "\"Holder\":[[\"id\",\"uint32\"],[\"shape\",\"CompatibleUnion[1:Square,2:Circle]\"],[\"tail\",\"uint8\"]]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, 0, size);
    if (!sep || (size_t)(sep - data) > 4096) return 0;
    size_t tlen = (size_t)(sep - data);
    char *tstr = malloc(tlen + 1);
    memcpy(tstr, data, tlen);
    tstr[tlen] = 0;
    size_t n = size - tlen - 1;
    uint8_t *buf = malloc(n ? n : 1);
    memcpy(buf, sep + 1, n);

    bk_ssz_registry *reg;
    bk_ssz_hasher *h;
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&h, 0, NULL) != BK_OK) abort();
    bk_error err;
    if (bk_ssz_registry_load_schema(reg, schema, sizeof schema - 1, &err) != BK_OK) abort();
    const bk_ssz_type *t;
    if (bk_ssz_type_parse(reg, tstr, &t, &err) != BK_OK) {
        int in_schema = strncmp(err.msg, "schema: ", 8) == 0;
        if (err.status != BK_ERR_TYPE && err.status != BK_ERR_NOMEM) abort();
        if (err.offset > (in_schema ? sizeof schema : tlen)) abort();
        goto out;
    }
    /* The canonical name builds the same type. */
    char name[8192];
    size_t nl = bk_ssz_type_name(t, name, sizeof name);
    if (nl < sizeof name) {
        const bk_ssz_type *t2;
        if (bk_ssz_type_parse(reg, name, &t2, &err) != BK_OK) abort();
        char name2[8192];
        bk_ssz_type_name(t2, name2, sizeof name2);
        if (strcmp(name, name2) != 0) abort();
    }
    uint8_t root[32];
    bk_status st = bk_ssz_validate(t, buf, n, &err);
    if ((bk_ssz_hash_tree_root(h, t, buf, n, root, NULL) == BK_OK) != (st == BK_OK)) abort();
    bk_writer w, w2;
    bk_writer_init(&w, NULL);
    bk_writer_init(&w2, NULL);
    if ((bk_ssz_to_json(t, buf, n, &w, NULL) == BK_OK) != (st == BK_OK)) abort();
    if (st == BK_OK) {
        if (bk_ssz_from_json(t, (const char *)w.data, w.len, &w2, NULL, &err) != BK_OK) abort();
        if (w2.len != n || (n && memcmp(w2.data, buf, n))) abort();
        uint8_t node[32];
        if (bk_ssz_node(h, t, buf, n, 1, node, NULL) != BK_OK || memcmp(node, root, 32)) abort();
        if (t->kind == BK_SSZ_UNION && t->compatible) {
            uint8_t pair[64], r[32], opt[32];
            if (bk_ssz_node(h, t, buf, n, 2, pair, NULL) != BK_OK) abort();
            if (bk_ssz_node(h, t, buf, n, 3, pair + 32, NULL) != BK_OK) abort();
            if (pair[32] != buf[0]) abort();
            for (int i = 33; i < 64; i++)
                if (pair[i]) abort();
            bk_sha256(r, pair, 64);
            if (memcmp(r, root, 32)) abort();
            if (bk_ssz_hash_tree_root(h, t->fields[buf[0]].type, buf + 1, n - 1, opt, NULL) != BK_OK) abort();
            if (memcmp(opt, pair, 32)) abort();
        }
        uint64_t g = 2 + (n ? buf[n - 1] : 0) * 5u;
        uint8_t leaf[32], branch[64][32];
        unsigned depth;
        if (bk_ssz_prove(h, t, buf, n, g, leaf, branch, &depth, NULL) == BK_OK &&
            !bk_ssz_verify_branch(leaf, (const uint8_t(*)[32])branch, depth, g, root))
            abort();
    }
    bk_writer_free(&w);
    bk_writer_free(&w2);
    static const char *const paths[] = {"data", "selector", "data.color", "data.radius", "data.data.side",
                                        "shape.data.side", "0.data", "data.0.x", "selector.x"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        uint64_t g;
        bk_status ps = bk_ssz_path_gindex(t, paths[i], strlen(paths[i]), &g, &err);
        if (ps == BK_OK && g == 0) abort();
    }
    if (bk_ssz_max_size(t) <= 65536) {
        bk_writer_init(&w, NULL);
        if (bk_ssz_synthesize(t, 3, 0, 1, &w, &err) == BK_OK && bk_ssz_validate(t, w.data, w.len, NULL) != BK_OK)
            abort();
        bk_writer_free(&w);
    }
out:
    bk_ssz_hasher_free(h);
    bk_ssz_registry_free(reg);
    free(tstr);
    free(buf);
    return 0;
}
