/* EIP-8016 CompatibleUnion: what the @chainsafe/ssz vectors
 * (tests/data/ssz/compatible_union, ssz_vectors_compatible_union) cannot
 * say: the type-string syntax and its errors, compatibility corners the
 * oracle has no type for (capped progressive lists, Unions), the resource
 * bounds, JSON input forms, path errors, the cached tree through a union
 * field, the one compression of the selector mix-in; and robustness finding
 * 25: schema errors about a ProgressiveContainer name their place in the
 * schema text. */
#include <blockkit/blockkit.h>
#include <blockkit/ssz.h>
#include <blockkit/sha256.h>

#include "check.h"

static bk_ssz_registry *reg;
static bk_ssz_hasher *hasher;

static const char shapes[] =
    "{\"Square\":[[\"__active_fields__\",\"ProgressiveContainer[1,0,1]\"],[\"side\",\"uint16\"],[\"color\",\"uint8\"]],"
    "\"Circle\":[[\"__active_fields__\",\"ProgressiveContainer[0,1,1]\"],[\"radius\",\"uint16\"],[\"color\",\"uint8\"]],"
    "\"Holder\":[[\"id\",\"uint32\"],[\"shape\",\"CompatibleUnion[1:Square,2:Circle]\"],[\"tail\",\"uint8\"]]}";

static const bk_ssz_type *T(const char *s, bk_error *err)
{
    const bk_ssz_type *t = NULL;
    if (bk_ssz_type_parse(reg, s, &t, err) != BK_OK) return NULL;
    return t;
}

static void type_strings(void)
{
    bk_error err;
    const bk_ssz_type *t = T("CompatibleUnion[2:uint8,1:byte]", &err);
    CHECK(t != NULL);
    if (!t) return;
    char name[128];
    bk_ssz_type_name(t, name, sizeof name);
    CHECK_EQ_STR(name, "CompatibleUnion[1:byte,2:uint8]"); /* selectors in order */
    CHECK(t->is_variable);
    CHECK_EQ_INT(bk_ssz_min_size(t), 2);
    CHECK_EQ_INT(bk_ssz_max_size(t), 2);
    t = T("CompatibleUnion[1:List[uint16,8],9:List[uint16,8]]", &err);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(bk_ssz_min_size(t), 1);
        CHECK_EQ_INT(bk_ssz_max_size(t), 17);
        CHECK_EQ_INT(t->nfields, 10);
        bk_ssz_type_name(t, name, sizeof name);
        CHECK_EQ_STR(name, "CompatibleUnion[1:List[uint16,8],9:List[uint16,8]]");
    }
    struct { const char *s; const char *msg; uint64_t off; } bad[] = {
        {"CompatibleUnion[]", "without options", 16},
        {"CompatibleUnion[0:uint8]", "selector is 1..127", 16},
        {"CompatibleUnion[128:uint8]", "selector is 1..127", 16},
        {"CompatibleUnion[1:uint8,1:uint8]", "given twice", 24},
        {"CompatibleUnion[1uint8]", "expected ':'", 17},
        {"CompatibleUnion[01:uint8]", "leading zero", 16},
        {"CompatibleUnion[1:None]", "None is legal only", 22},
        {"CompatibleUnion[1:uint8,2:uint16]", "options 1 and 2", 33},
        {"CompatibleUnion[1:uint8", "expected ',' or ']'", 23},
        {"CompatibleUnion[1:uint8]x", "text after the type", 24},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(T(bad[i].s, &err) == NULL);
        CHECK_EQ_INT(err.status, BK_ERR_TYPE);
        if (!strstr(err.msg, bad[i].msg)) fprintf(stderr, "%s: %s\n", bad[i].s, err.msg);
        CHECK(strstr(err.msg, bad[i].msg) != NULL);
        CHECK_EQ_INT(err.offset, bad[i].off);
    }
}

/* Corners beyond the oracle's types: the Merkleization decides. */
static void compatibility_corners(void)
{
    bk_error err;
    /* A validation cap does not change a progressive list's tree. */
    CHECK(T("CompatibleUnion[1:ProgressiveList[uint8,5],2:ProgressiveList[uint8]]", &err) != NULL);
    CHECK(T("CompatibleUnion[1:ProgressiveBitlist[9],2:ProgressiveBitlist]", &err) != NULL);
    /* Unions: the same options, pairwise compatible. */
    CHECK(T("CompatibleUnion[1:Union[None,uint8],2:Union[None,byte]]", &err) != NULL);
    CHECK(T("CompatibleUnion[1:Union[None,uint8],2:Union[None,uint16]]", &err) == NULL);
    CHECK(T("CompatibleUnion[1:Union[None,uint8],2:Union[None,uint8,uint8]]", &err) == NULL);
    CHECK(T("CompatibleUnion[1:Union[None,uint8],2:uint8]", &err) == NULL);
    /* Nested CompatibleUnions: every option of one with every option of the other. */
    CHECK(T("CompatibleUnion[1:CompatibleUnion[1:uint8,2:uint8],2:CompatibleUnion[5:byte]]", &err) != NULL);
    CHECK(T("CompatibleUnion[1:CompatibleUnion[1:uint8],2:CompatibleUnion[1:uint8,2:bool]]", &err) == NULL);
    /* 127 options. */
    char s[2048];
    size_t n = (size_t)snprintf(s, sizeof s, "CompatibleUnion[");
    for (int i = 1; i <= 127; i++) n += (size_t)snprintf(s + n, sizeof s - n, "%s%d:uint32", i > 1 ? "," : "", i);
    snprintf(s + n, sizeof s - n, "]");
    const bk_ssz_type *t = T(s, &err);
    CHECK(t != NULL);
    if (t) CHECK_EQ_INT(t->nfields, 128);
}

/* Chains of distinct but equal containers each holding a union of the
 * previous two: comparing them doubles per level. The comparison budget
 * refuses the type instead of taking exponential time. */
static void compatibility_budget(void)
{
    char *s = malloc(1 << 16);
    size_t n = (size_t)snprintf(s, 1 << 16, "{\"X0\":[[\"f\",\"uint8\"]],\"Y0\":[[\"f\",\"uint8\"]]");
    for (int k = 1; k <= 30; k++)
        n += (size_t)snprintf(s + n, (1 << 16) - n,
                              ",\"X%d\":[[\"f\",\"CompatibleUnion[1:X%d,2:Y%d]\"]],\"Y%d\":[[\"f\",\"CompatibleUnion[1:X%d,2:Y%d]\"]]",
                              k, k - 1, k - 1, k, k - 1, k - 1);
    n += (size_t)snprintf(s + n, (1 << 16) - n, "}");
    bk_ssz_registry *r;
    CHECK_EQ_INT(bk_ssz_registry_create(&r, NULL), BK_OK);
    bk_error err;
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s, n, &err), BK_OK);
    const bk_ssz_type *t;
    CHECK_EQ_INT(bk_ssz_type_parse(r, "X5", &t, &err), BK_OK);   /* small chains are fine */
    bk_status st = bk_ssz_type_parse(r, "X30", &t, &err);
    CHECK_EQ_INT(st, BK_ERR_TYPE);
    CHECK(strstr(err.msg, "too many to compare") != NULL);
    bk_ssz_registry_free(r);
    free(s);
}

static void validation(void)
{
    bk_error err;
    const bk_ssz_type *t = T("CompatibleUnion[1:uint16,3:uint16]", &err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_EQ_INT(bk_ssz_validate(t, (const uint8_t *)"", 0, &err), BK_ERR_TRUNCATED);
    const uint8_t ok[3] = {3, 0x34, 0x12};
    CHECK_EQ_INT(bk_ssz_validate(t, ok, 3, &err), BK_OK);
    const uint8_t sel2[3] = {2, 0x34, 0x12}, sel0[3] = {0, 0x34, 0x12};
    CHECK_EQ_INT(bk_ssz_validate(t, sel2, 3, &err), BK_ERR_VALUE);
    CHECK(strstr(err.msg, "selector 2 names no option") != NULL);
    CHECK_EQ_INT(bk_ssz_validate(t, sel0, 3, &err), BK_ERR_VALUE);
    const uint8_t longer[4] = {1, 1, 2, 3};
    CHECK_EQ_INT(bk_ssz_validate(t, longer, 4, &err), BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 3);
    CHECK_EQ_STR(err.path, "<1>");
    CHECK_EQ_INT(bk_ssz_validate(t, ok, 1, &err), BK_ERR_TRUNCATED);  /* selector only */
    CHECK_EQ_INT(err.offset, 1);
}

/* The root mixes the selector into the value's root: SHA256(root ||
 * uint256_le(selector)), one compression over the value's root. */
static void root_is_one_compression_over_the_value(void)
{
    bk_error err;
    const bk_ssz_type *u = T("CompatibleUnion[1:Square,2:Circle]", &err), *sq = T("Square", &err);
    CHECK(u && sq);
    if (!u || !sq) return;
    const uint8_t v[4] = {1, 0x05, 0x00, 0x07};
    uint8_t r_union[32], r_val[32], block[64] = {0}, want[32];
    uint64_t c0 = bk_ssz_compressions();
    CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, sq, v + 1, 3, r_val, &err), BK_OK);
    uint64_t c1 = bk_ssz_compressions();
    CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, u, v, 4, r_union, &err), BK_OK);
    uint64_t c2 = bk_ssz_compressions();
    CHECK_EQ_INT(c2 - c1, (c1 - c0) + 1);
    memcpy(block, r_val, 32);
    block[32] = 1;
    bk_sha256(want, block, 64);
    CHECK_MEM(r_union, want, 32);
}

static int enc(const bk_ssz_type *t, const char *json, uint8_t *out, size_t *n, bk_error *err)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_status st = bk_ssz_from_json(t, json, strlen(json), &w, NULL, err);
    if (st == BK_OK) {
        *n = w.len;
        memcpy(out, w.data, w.len < 64 ? w.len : 64);
    }
    bk_writer_free(&w);
    return st;
}

static void json_forms(void)
{
    bk_error err;
    const bk_ssz_type *t = T("CompatibleUnion[1:List[uint16,2],3:List[uint16,2]]", &err);
    CHECK(t != NULL);
    if (!t) return;
    uint8_t b[64];
    size_t n;
    /* @chainsafe/ssz's fromJson takes the selector as a number or a decimal string. */
    CHECK_EQ_INT(enc(t, "{\"selector\":\"1\",\"data\":[\"4660\"]}", b, &n, &err), BK_OK);
    CHECK(n == 3 && b[0] == 1 && b[1] == 0x34 && b[2] == 0x12);
    CHECK_EQ_INT(enc(t, "{\"data\":[\"1\"],\"selector\":3}", b, &n, &err), BK_OK);
    CHECK(n == 3 && b[0] == 3 && b[1] == 1 && b[2] == 0);
    const char *bad[] = {
        "{\"selector\":\"2\",\"data\":[]}", "{\"selector\":\"01\",\"data\":[]}", "{\"selector\":\"-1\",\"data\":[]}",
        "{\"selector\":\"1\"}", "{\"selector\":\"1\",\"value\":[]}", "{\"selector\":\"1\",\"data\":[],\"x\":0}",
        "{\"selector\":\"256\",\"data\":[]}", "{\"selector\":\"1\",\"data\":\"1\"}", "[1,\"1\"]", "null", "{\"selector\":\"3\",\"data\":[\"1\",\"2\",\"3\"]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(enc(t, bad[i], b, &n, &err) != BK_OK);
    }
    /* Output: the selector a decimal string, then "data". */
    const uint8_t v[5] = {3, 2, 0, 9, 0};
    bk_writer w;
    bk_writer_init(&w, NULL);
    CHECK_EQ_INT(bk_ssz_to_json(t, v, 5, &w, &err), BK_OK);
    bk_writer_putc(&w, 0);
    CHECK_EQ_STR((const char *)w.data, "{\"selector\":\"3\",\"data\":[\"2\",\"9\"]}");
    bk_writer_free(&w);
}

static void paths(void)
{
    bk_error err;
    const bk_ssz_type *u = T("CompatibleUnion[1:Square,2:Circle]", &err);
    CHECK(u != NULL);
    if (!u) return;
    uint64_t g;
    CHECK_EQ_INT(bk_ssz_path_gindex(u, "data", 4, &g, &err), BK_OK);
    CHECK_EQ_INT(g, 2);
    CHECK_EQ_INT(bk_ssz_path_gindex(u, "selector", 8, &g, &err), BK_OK);
    CHECK_EQ_INT(g, 3);
    CHECK_EQ_INT(bk_ssz_path_gindex(u, "selector.x", 10, &g, &err), BK_ERR_ARG);
    CHECK(strstr(err.msg, "after a CompatibleUnion selector") != NULL);
    CHECK_EQ_INT(err.offset, 9);
    CHECK_EQ_INT(bk_ssz_path_gindex(u, "value", 5, &g, &err), BK_ERR_NOT_FOUND);
    /* A field no option has: the first option's answer. */
    CHECK_EQ_INT(bk_ssz_path_gindex(u, "data.area", 9, &g, &err), BK_ERR_NOT_FOUND);
    CHECK(strstr(err.msg, "Square") != NULL);
    CHECK_EQ_INT(err.offset, 5);
    /* The same gindex for a field whichever option has it (color: position 2 in both). */
    uint64_t g1, g2;
    const char *p1[] = {"data", "color"}, *p2[] = {"data", "radius"};
    CHECK_EQ_INT(bk_ssz_gindex(u, p1, 2, &g1, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_gindex(u, p2, 2, &g2, &err), BK_OK);
    CHECK(g1 != g2 && g1 > 3 && g2 > 3);
    /* Old unions still have no paths. */
    const bk_ssz_type *old = T("Union[None,uint8]", &err);
    CHECK_EQ_INT(bk_ssz_path_gindex(old, "data", 4, &g, &err), BK_ERR_ARG);
}

/* X_k holds CompatibleUnion[1:X_(k-1),2:X_(k-1)]: a path no option has
 * would be tried 2^k ways; the search budget ends it. */
static void path_search_budget(void)
{
    char s[8192];
    size_t n = (size_t)snprintf(s, sizeof s, "{\"X0\":[[\"f\",\"uint8\"]]");
    for (int k = 1; k <= 28; k++)
        n += (size_t)snprintf(s + n, sizeof s - n, ",\"X%d\":[[\"f\",\"CompatibleUnion[1:X%d,2:X%d]\"]]", k, k - 1, k - 1);
    n += (size_t)snprintf(s + n, sizeof s - n, "}");
    bk_ssz_registry *r;
    CHECK_EQ_INT(bk_ssz_registry_create(&r, NULL), BK_OK);
    bk_error err;
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s, n, &err), BK_OK);
    const bk_ssz_type *t;
    CHECK_EQ_INT(bk_ssz_type_parse(r, "X28", &t, &err), BK_OK);
    char path[1024];
    size_t pn = 0;
    for (int k = 0; k < 28; k++) pn += (size_t)snprintf(path + pn, sizeof path - pn, "f.data.");
    uint64_t g;
    pn += (size_t)snprintf(path + pn, sizeof path - pn, "f");
    CHECK_EQ_INT(bk_ssz_path_gindex(t, path, pn, &g, &err), BK_OK);
    pn += (size_t)snprintf(path + pn, sizeof path - pn, ".nothing");
    CHECK_EQ_INT(bk_ssz_path_gindex(t, path, pn, &g, &err), BK_ERR_ARG); /* below uint8 */
    pn -= strlen(".nothing") + 1;
    pn += (size_t)snprintf(path + pn, sizeof path - pn, "g");
    CHECK_EQ_INT(bk_ssz_path_gindex(t, path, pn, &g, &err), BK_ERR_NOT_FOUND);
    bk_ssz_registry_free(r);
}

static void cached_tree_through_a_union(void)
{
    bk_error err;
    const bk_ssz_type *t = T("Holder", &err);
    CHECK(t != NULL);
    if (!t) return;
    /* id=7, offset 9, tail=0x55, shape = Square{side=0x0102, color=3} */
    uint8_t v[13] = {7, 0, 0, 0, 9, 0, 0, 0, 0x55, 1, 0x02, 0x01, 3};
    bk_ssz_tree *tr;
    CHECK_EQ_INT(bk_ssz_tree_create(&tr, t, v, sizeof v, NULL, &err), BK_OK);
    uint8_t r1[32], r2[32];
    CHECK_EQ_INT(bk_ssz_tree_root(tr, hasher, r1, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, t, v, sizeof v, r2, &err), BK_OK);
    CHECK_MEM(r1, r2, 32);
    const char *side[] = {"shape", "data", "side"}, *radius[] = {"shape", "data", "radius"}, *sel[] = {"shape", "selector"};
    const uint8_t nv[2] = {0xaa, 0xbb};
    CHECK_EQ_INT(bk_ssz_tree_set(tr, side, 3, nv, 2, &err), BK_OK);
    v[10] = 0xaa;
    v[11] = 0xbb;
    CHECK_EQ_INT(bk_ssz_tree_root(tr, hasher, r1, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, t, v, sizeof v, r2, &err), BK_OK);
    CHECK_MEM(r1, r2, 32);
    CHECK_EQ_INT(bk_ssz_tree_set(tr, radius, 3, nv, 2, &err), BK_ERR_NOT_FOUND); /* a Square has no radius */
    CHECK_EQ_INT(bk_ssz_tree_set(tr, sel, 2, nv, 1, &err), BK_ERR_ARG);
    CHECK_EQ_INT(bk_ssz_tree_set(tr, side, 3, nv, 1, &err), BK_ERR_LENGTH);
    /* A proof through the union from the tree equals the one from the bytes. */
    uint64_t g;
    CHECK_EQ_INT(bk_ssz_gindex(t, side, 3, &g, &err), BK_OK);
    uint8_t leaf1[32], leaf2[32], b1[64][32], b2[64][32];
    unsigned d1 = 0, d2 = 0;
    CHECK_EQ_INT(bk_ssz_tree_prove(tr, hasher, g, leaf1, b1, &d1, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_prove(hasher, t, v, sizeof v, g, leaf2, b2, &d2, &err), BK_OK);
    CHECK_EQ_INT(d1, d2);
    CHECK_MEM(leaf1, leaf2, 32);
    CHECK(d1 > 0 && memcmp(b1, b2, 32 * d1) == 0);
    CHECK(leaf1[0] == 0xaa && leaf1[1] == 0xbb);
    CHECK(bk_ssz_verify_branch(leaf1, (const uint8_t(*)[32])b1, d1, g, r1));
    bk_ssz_tree_free(tr);
    /* Synthesized values of union types validate. */
    bk_writer w;
    bk_writer_init(&w, NULL);
    CHECK_EQ_INT(bk_ssz_synthesize(t, 3, 0, 1, &w, &err), BK_OK);
    CHECK(w.len > 9 && w.data[9] == 1);  /* the lowest selector */
    bk_writer_free(&w);
}

/* Finding 25: errors about __active_fields__ at their byte in the schema. */
static void schema_errors_at_their_byte(void)
{
    bk_ssz_registry *r;
    CHECK_EQ_INT(bk_ssz_registry_create(&r, NULL), BK_OK);
    bk_error err;
    char s[2048];
    size_t n = (size_t)snprintf(s, sizeof s, "{\"A\": [[\"__active_fields__\", \"ProgressiveContainer[");
    size_t bits_at = n;
    for (int i = 0; i < 257; i++) n += (size_t)snprintf(s + n, sizeof s - n, "%s%d", i ? "," : "", i == 256);
    n += (size_t)snprintf(s + n, sizeof s - n, "]\"], [\"a\", \"uint8\"]]}");
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s, n, &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "schema: A: more than 256 active-field bits") != NULL);
    CHECK_EQ_INT(err.offset, bits_at + 2 * 256);   /* the 257th bit */
    CHECK_EQ_INT(s[err.offset], '1');
    const char *s2 = "{\"A\": [[\"a\",\"uint8\"],[\"__active_fields__\",\"ProgressiveContainer[1]\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s2, strlen(s2), &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "__active_fields__ must be the first member") != NULL);
    CHECK_EQ_INT(err.offset, (uint64_t)(strstr(s2, "[\"__active") - s2));
    const char *s3 = "{\"A\": [[\"__active_fields__\",\"ProgressiveContainer[1,1]\"],[\"a\",\"uint8\"],[\"b\",\"uint8\"],[\"c\",\"uint8\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s3, strlen(s3), &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "2 active-field bits set for 3 fields") != NULL);
    CHECK_EQ_INT(err.offset, (uint64_t)(strstr(s3, "\"Progressive") - s3));
    const char *s4 = "{\"A\": [[\"__active_fields__\",\"ProgressiveContainer[1,0]\"],[\"a\",\"uint8\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s4, strlen(s4), &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "last active-field bit must be 1") != NULL);
    CHECK_EQ_INT(s4[err.offset], '0');
    const char *s5 = "{\"A\": [[\"__active_fields__\",\"Progressive[1]\"],[\"a\",\"uint8\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s5, strlen(s5), &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "must be ProgressiveContainer[bits]") != NULL);
    CHECK_EQ_INT(err.offset, (uint64_t)(strstr(s5, "\"Progressive") - s5));
    /* An error in a field's type string: "schema: ..." at its byte in the text,
     * also when the container is reached through another one. */
    const char *s6 = "{\"B\": [[\"x\",\"uint8\"],[\"y\",\"List[Nope,4]\"]], \"C\": [[\"b\",\"B\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s6, strlen(s6), &err), BK_OK);
    const bk_ssz_type *t;
    CHECK_EQ_INT(bk_ssz_type_parse(r, "List[Container:C,2]", &t, &err), BK_ERR_TYPE);
    CHECK(strncmp(err.msg, "schema: B.y: type: unknown container", 36) == 0);
    CHECK_EQ_INT(err.offset, (uint64_t)(strstr(s6, "Nope") - s6));
    const char *s7 = "{\"D\": [[\"u\",\"CompatibleUnion[1:uint8,2:bool]\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s7, strlen(s7), &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_type_parse(r, "D", &t, &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "schema: D.u: type: illegal type: CompatibleUnion options of incompatible") != NULL);
    CHECK_EQ_INT(s7[err.offset], '"');  /* the end of the type string, where the options are known */
    /* A type-string error stays at its character in the type string. */
    CHECK_EQ_INT(bk_ssz_type_parse(r, "List[uint8,0x]", &t, &err), BK_ERR_TYPE);
    CHECK(strncmp(err.msg, "schema: ", 8) != 0);
    bk_ssz_registry_free(r);
}

int main(void)
{
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&hasher, 0, NULL) != BK_OK) return 2;
    bk_error err;
    if (bk_ssz_registry_load_schema(reg, shapes, strlen(shapes), &err) != BK_OK) {
        fprintf(stderr, "schema: %s\n", err.msg);
        return 2;
    }
    RUN(type_strings);
    RUN(compatibility_corners);
    RUN(compatibility_budget);
    RUN(validation);
    RUN(root_is_one_compression_over_the_value);
    RUN(json_forms);
    RUN(paths);
    RUN(path_search_budget);
    RUN(cached_tree_through_a_union);
    RUN(schema_errors_at_their_byte);
    bk_ssz_hasher_free(hasher);
    bk_ssz_registry_free(reg);
    return check_finish();
}
