/* SSZ rules, one case per rule that implementations often get wrong
 * (consensus-specs ssz/simple-serialize.md, ssz/merkle-proofs.md), plus
 * error paths/offsets, type legality, and the zero-allocation promise. */
#include "check.h"

#include <blockkit/blockkit.h>
#include <blockkit/ssz.h>

static bk_ssz_registry *reg;
static bk_ssz_hasher *hasher;

static const bk_ssz_type *T(const char *s)
{
    const bk_ssz_type *t = NULL;
    bk_error err;
    if (bk_ssz_type_parse(reg, s, &t, &err) != BK_OK) {
        fprintf(stderr, "type %s: %s\n", s, err.msg);
        return NULL;
    }
    return t;
}

/* Validate hex data as type; returns the status, fills err. */
static bk_status V(const char *type, const char *hex, bk_error *err)
{
    size_t n;
    uint8_t *b = check_unhex(hex, &n);
    const bk_ssz_type *t = T(type);
    bk_status st = t ? bk_ssz_validate(t, b, n, err) : BK_ERR_TYPE;
    free(b);
    return st;
}

static void root_hex(const char *type, const char *hex, char out[65])
{
    size_t n;
    uint8_t *b = check_unhex(hex, &n), r[32];
    bk_error err;
    out[0] = 0;
    if (bk_ssz_hash_tree_root(hasher, T(type), b, n, r, &err) == BK_OK) check_hex(out, r, 32);
    free(b);
}

static void first_offset_must_equal_fixed_size(void)
{
    bk_error err;
    /* VarTestStruct: A uint16, B offset, C uint8 -> fixed part 7 bytes. */
    CHECK_EQ_INT(V("Container:VarTestStruct", "0100070000000201000200", &err), BK_OK);
    CHECK_EQ_INT(V("Container:VarTestStruct", "0100080000000201000200", &err), BK_ERR_OFFSET);
    CHECK_EQ_INT(err.offset, 2);
    CHECK_EQ_STR(err.path, ".B");
    CHECK_EQ_INT(V("Container:VarTestStruct", "010006000000020100", &err), BK_ERR_OFFSET);
    /* A list of variable elements: first offset = 4 * count, a multiple of 4. */
    CHECK_EQ_INT(V("List[ByteList[8],6]", "0800000008000000", &err), BK_OK);
    CHECK_EQ_INT(V("List[ByteList[8],6]", "0600000008000000", &err), BK_ERR_OFFSET);
}

static void offsets_must_not_decrease(void)
{
    bk_error err;
    /* VarOnlyStruct: a ByteList[16], b List[uint32,4], c Bitlist[9]: fixed part 12. */
    CHECK_EQ_INT(V("Container:VarOnlyStruct", "0c0000000d0000001100000041020000000101", &err), BK_OK);
    CHECK_EQ_INT(V("Container:VarOnlyStruct", "0c000000110000000d00000041020000000101", &err), BK_ERR_OFFSET);
    CHECK_EQ_STR(err.path, ".c");
    CHECK_EQ_INT(err.offset, 8);
}

static void offsets_must_stay_within_the_data(void)
{
    bk_error err;
    CHECK_EQ_INT(V("Container:VarOnlyStruct", "0c0000000d0000001400000041020000000101", &err), BK_ERR_OFFSET);
    CHECK_EQ_INT(err.offset, 8);
    CHECK_EQ_INT(V("List[ByteList[8],6]", "0800000009000000", &err), BK_ERR_OFFSET);
}

static void variable_parts_leave_no_gaps(void)
{
    bk_error err;
    /* Offsets are both the start of one part and the end of the previous:
     * a byte between the fixed part and the first part is refused. */
    CHECK_EQ_INT(V("Container:SingleVarFieldStruct", "050000000001", &err), BK_ERR_OFFSET);
    CHECK_EQ_INT(V("Container:SingleVarFieldStruct", "040000000001", &err), BK_OK);
}

static void list_length_within_limit(void)
{
    bk_error err;
    CHECK_EQ_INT(V("List[uint16,2]", "01000200", &err), BK_OK);
    CHECK_EQ_INT(V("List[uint16,2]", "010002000300", &err), BK_ERR_LENGTH);
    CHECK_EQ_INT(V("List[uint8,0]", "", &err), BK_OK);   /* limit 0 is legal */
    CHECK_EQ_INT(V("List[uint8,0]", "00", &err), BK_ERR_LENGTH);
}

static void list_size_multiple_of_element_size(void)
{
    bk_error err;
    CHECK_EQ_INT(V("List[uint32,8]", "0100000002", &err), BK_ERR_LENGTH);
    CHECK_EQ_INT(err.offset, 4);
}

static void bitlist_needs_delimiter(void)
{
    bk_error err;
    CHECK_EQ_INT(V("Bitlist[8]", "", &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(V("Bitlist[8]", "00", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(V("Bitlist[16]", "ff00", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(err.offset, 1);
    CHECK_EQ_INT(V("Bitlist[8]", "01", &err), BK_OK);    /* empty bitlist */
}

static void bitlist_length_within_limit(void)
{
    bk_error err;
    CHECK_EQ_INT(V("Bitlist[8]", "ff01", &err), BK_OK);   /* 8 bits */
    CHECK_EQ_INT(V("Bitlist[8]", "ff02", &err), BK_ERR_LENGTH);
    CHECK_EQ_INT(V("Bitlist[7]", "ff", &err), BK_OK);
    CHECK_EQ_INT(V("Bitlist[6]", "ff", &err), BK_ERR_LENGTH);
}

static void bitvector_padding_bits_zero(void)
{
    bk_error err;
    CHECK_EQ_INT(V("Bitvector[3]", "07", &err), BK_OK);
    CHECK_EQ_INT(V("Bitvector[3]", "08", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(V("Bitvector[9]", "ff01", &err), BK_OK);
    CHECK_EQ_INT(V("Bitvector[9]", "ff03", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(V("Bitvector[8]", "ff00", &err), BK_ERR_TRAILING);
}

static void bool_is_zero_or_one(void)
{
    bk_error err;
    CHECK_EQ_INT(V("bool", "01", &err), BK_OK);
    CHECK_EQ_INT(V("bool", "02", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(V("Vector[bool,3]", "000180", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(err.offset, 2);
    CHECK_EQ_STR(err.path, "[2]");
}

static void union_selector_in_range(void)
{
    bk_error err;
    CHECK_EQ_INT(V("Union[None,uint16,List[uint8,8]]", "020102", &err), BK_OK);
    CHECK_EQ_INT(V("Union[None,uint16,List[uint8,8]]", "030102", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(V("Union[None,uint16,List[uint8,8]]", "80", &err), BK_ERR_VALUE);
    CHECK_EQ_INT(V("Union[None,uint16,List[uint8,8]]", "", &err), BK_ERR_TRUNCATED);
}

static void union_none_has_no_payload(void)
{
    bk_error err;
    CHECK_EQ_INT(V("Union[None,ByteVector[32]]", "00", &err), BK_OK);
    /* @chainsafe/ssz 1.9.0 accepts this; the spec does not. */
    CHECK_EQ_INT(V("Union[None,ByteVector[32]]", "0000", &err), BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 1);
}

static void no_trailing_bytes(void)
{
    bk_error err;
    CHECK_EQ_INT(V("uint32", "0100000000", &err), BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 4);
    CHECK_EQ_INT(V("Container:Checkpoint", "00000000000000000000000000000000000000000000000000000000000000000000000000000000ff",
                   &err), BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 40);
}

static void fixed_size_truncation(void)
{
    bk_error err;
    CHECK_EQ_INT(V("uint64", "", &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(V("uint64", "01020304", &err), BK_ERR_LENGTH);
}

static void illegal_types_refused(void)
{
    const char *bad[] = {"Vector[uint8,0]", "Bitvector[0]", "Union[None]", "Union[uint8,None]", "None",
                         "List[None,4]", "Vector[uint8,01]", "List[uint8]", "uint7", "Container:NoSuch",
                         "List[uint8,4]x", "Vector[uint8,72057594037927937]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const bk_ssz_type *t;
        bk_error err;
        CHECK_EQ_INT(bk_ssz_type_parse(reg, bad[i], &t, &err), BK_ERR_TYPE);
    }
    /* 128 options are legal, 129 are not. */
    char u[2048] = "Union[None";
    for (int i = 1; i < 128; i++) strcat(u, ",uint8");
    strcat(u, "]");
    const bk_ssz_type *t;
    CHECK_EQ_INT(bk_ssz_type_parse(reg, u, &t, NULL), BK_OK);
    u[strlen(u) - 1] = 0;
    strcat(u, ",uint8]");
    CHECK_EQ_INT(bk_ssz_type_parse(reg, u, &t, NULL), BK_ERR_TYPE);
    CHECK(T("List[uint8,0]") != NULL);
    CHECK(T("List[uint64,1099511627776]") != NULL);
    /* Schema: recursion and empty containers are illegal. */
    const char *rec = "{\"Loop\":[[\"a\",\"List[Container:Loop,2]\"]],\"Empty\":[]}";
    bk_error err;
    CHECK_EQ_INT(bk_ssz_registry_load_schema(reg, rec, strlen(rec), &err), BK_ERR_TYPE);
    const char *rec2 = "{\"Loop\":[[\"a\",\"List[Container:Loop,2]\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(reg, rec2, strlen(rec2), &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_type_parse(reg, "Container:Loop", &t, &err), BK_ERR_TYPE);
}

static void error_path_names_nested_field(void)
{
    bk_error err;
    /* ListOfVarContainers {x uint8, items List[VarTestStruct,8]}: item 1's
     * B list has an odd byte count (uint16 elements). */
    const char *good = "01" "05000000" "08000000" "11000000"   /* x, items@5; item offsets 8, 17 */
                       "0100" "07000000" "aa" "0100"            /* item 0: A, B@7, C, B=[1] */
                       "0200" "07000000" "bb" "02000300";       /* item 1: B=[2,3] */
    CHECK_EQ_INT(V("Container:ListOfVarContainers", good, &err), BK_OK);
    const char *bad = "01" "05000000" "08000000" "11000000" "0100" "07000000" "aa" "0100"
                      "0200" "07000000" "bb" "020003";          /* item 1: B of 3 bytes */
    CHECK_EQ_INT(V("Container:ListOfVarContainers", bad, &err), BK_ERR_LENGTH);
    CHECK_EQ_STR(err.path, ".items[1].B");
    CHECK_EQ_INT(err.offset, 31);
    /* Attestation with a zero last byte in aggregation_bits. */
    char att[1024];
    strcpy(att, "e4000000");
    for (int i = 0; i < 128 + 96; i++) strcat(att, "00");
    strcat(att, "ff00");
    CHECK_EQ_INT(V("Container:Attestation", att, &err), BK_ERR_VALUE);
    CHECK_EQ_STR(err.path, ".aggregation_bits");
    CHECK_EQ_INT(err.offset, 229);
}

static void list_root_pads_to_limit_not_count(void)
{
    char a[65], b[65], c[65];
    root_hex("List[uint64,4]", "0100000000000000", a);
    root_hex("List[uint64,1024]", "0100000000000000", b);
    root_hex("Vector[uint64,1]", "0100000000000000", c);
    CHECK(strcmp(a, b) != 0);
    /* List[uint64,4]: one chunk, depth 0, then mix_in_length(1). */
    uint8_t chunk[32] = {1}, r[32];
    bk_ssz_mix_in_length(r, chunk, 1);
    char want[65];
    check_hex(want, r, 32);
    CHECK_EQ_STR(a, want);
    CHECK_EQ_STR(c, "0100000000000000000000000000000000000000000000000000000000000000");
}

static void mix_in_length_is_uint256_le(void)
{
    uint8_t root[32] = {0}, m[64] = {0}, want[32], got[32];
    m[32] = 0x34;
    m[33] = 0x12;
    bk_sha256(want, m, 64);
    bk_ssz_mix_in_length(got, root, 0x1234);
    CHECK_MEM(got, want, 32);
}

static void union_root_mixes_in_selector(void)
{
    char a[65];
    root_hex("Union[None,uint16,List[uint8,8]]", "00", a);
    uint8_t zero[32] = {0}, r[32];
    bk_ssz_mix_in_length(r, zero, 0);
    char want[65];
    check_hex(want, r, 32);
    CHECK_EQ_STR(a, want);   /* None: hash(zero chunk, selector 0) */
    root_hex("Union[None,uint16,List[uint8,8]]", "010500", a);
    uint8_t c[32] = {5};
    bk_ssz_mix_in_length(r, c, 1);
    check_hex(want, r, 32);
    CHECK_EQ_STR(a, want);
}

static void odd_nodes_pair_with_zero_hash(void)
{
    /* 3 chunks: root = H(H(c0,c1), H(c2, zero_hash[0])). */
    uint8_t ch[96], l[32], r[32], root[32], got[32];
    for (int i = 0; i < 96; i++) ch[i] = (uint8_t)i;
    uint8_t m[64];
    bk_sha256(l, ch, 64);
    memcpy(m, ch + 64, 32);
    memcpy(m + 32, bk_ssz_zero_hash(0), 32);
    bk_sha256(r, m, 64);
    memcpy(m, l, 32);
    memcpy(m + 32, r, 32);
    bk_sha256(root, m, 64);
    CHECK_EQ_INT(bk_ssz_merkleize(hasher, ch, 3, UINT64_MAX, got, NULL), BK_OK);
    CHECK_MEM(got, root, 32);
    /* With limit 8 the root climbs one more level against zero_hash[2]. */
    memcpy(m, root, 32);
    memcpy(m + 32, bk_ssz_zero_hash(2), 32);
    bk_sha256(root, m, 64);
    CHECK_EQ_INT(bk_ssz_merkleize(hasher, ch, 3, 8, got, NULL), BK_OK);
    CHECK_MEM(got, root, 32);
    CHECK_EQ_INT(bk_ssz_merkleize(hasher, ch, 3, 2, got, NULL), BK_ERR_LENGTH);
}

static void merkleize_large_matches_reference(void)
{
    /* Batching (1024-chunk blocks, stack above) against a plain level-by-level
     * reference, for counts around the batch size and odd limits. */
    static const uint64_t counts[] = {1, 2, 5, 1023, 1024, 1025, 2047, 3000, 4096, 5000};
    size_t maxn = 5000;
    uint8_t *ch = malloc(32 * 8192), *lvl = malloc(32 * 8192);
    for (size_t i = 0; i < 32 * maxn; i++) ch[i] = (uint8_t)(i * 7 + 3);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        uint64_t n = counts[k];
        for (unsigned extra = 0; extra < 3; extra++) {
            unsigned depth = 0;
            while ((UINT64_C(1) << depth) < n) depth++;
            depth += extra * 5;
            memcpy(lvl, ch, 32 * n);
            uint64_t m = n;
            for (unsigned d = 0; d < depth; d++) {
                if (m & 1) memcpy(lvl + 32 * m++, bk_ssz_zero_hash(d), 32);
                bk_sha256_64(lvl, lvl, m / 2);
                m /= 2;
            }
            uint8_t got[32];
            CHECK_EQ_INT(bk_ssz_merkleize(hasher, ch, n, UINT64_C(1) << depth, got, NULL), BK_OK);
            CHECK_MEM(got, lvl, 32);
        }
    }
    free(ch);
    free(lvl);
}

static void bitlist_root_excludes_delimiter(void)
{
    char a[65], want[65];
    root_hex("Bitlist[8]", "0b", a);   /* bits 1,1,0 + delimiter */
    uint8_t c[32] = {0x03}, r[32];
    bk_ssz_mix_in_length(r, c, 3);
    check_hex(want, r, 32);
    CHECK_EQ_STR(a, want);
    root_hex("Bitlist[16]", "ff01", a); /* 8 bits, delimiter alone in byte 1 */
    uint8_t c2[32] = {0xff};
    bk_ssz_mix_in_length(r, c2, 8);
    check_hex(want, r, 32);
    CHECK_EQ_STR(a, want);
}

static void gindex_follows_spec(void)
{
    const bk_ssz_type *att = T("Container:Attestation");
    const char *p1[] = {"data", "target", "epoch"};
    uint64_t g;
    CHECK_EQ_INT(bk_ssz_gindex(att, p1, 3, &g, NULL), BK_OK);
    CHECK_EQ_INT(g, 88);
    const char *p2[] = {"aggregation_bits", "__len__"};
    CHECK_EQ_INT(bk_ssz_gindex(att, p2, 2, &g, NULL), BK_OK);
    CHECK_EQ_INT(g, 9);
    const char *p3[] = {"0"};
    CHECK_EQ_INT(bk_ssz_gindex(T("List[uint64,1099511627776]"), p3, 1, &g, NULL), BK_OK);
    CHECK_EQ_INT(g, UINT64_C(549755813888));
    const char *p4[] = {"1", "1"};
    CHECK_EQ_INT(bk_ssz_gindex(T("List[List[uint64,1099511627776],1099511627776]"), p4, 2, &g, NULL), BK_ERR_OVERFLOW);
    const char *p5[] = {"data", "nope"};
    CHECK_EQ_INT(bk_ssz_gindex(att, p5, 2, &g, NULL), BK_ERR_NOT_FOUND);
    const char *p6[] = {"signature", "__len__"};
    CHECK_EQ_INT(bk_ssz_gindex(att, p6, 2, &g, NULL), BK_ERR_ARG);
}

static void multiproof_helper_order(void)
{
    uint64_t idx[] = {9, 88, 6}, h[64];
    size_t n;
    CHECK_EQ_INT(bk_ssz_helper_indices(hasher, idx, 3, h, 64, &n, NULL), BK_OK);
    uint64_t want[] = {89, 45, 23, 10, 8, 7};
    CHECK_EQ_INT(n, 6);
    CHECK_MEM(h, want, sizeof want);
    CHECK_EQ_INT(bk_ssz_helper_indices(hasher, idx, 3, h, 2, &n, NULL), BK_ERR_BUFFER);
}

static void json_values_are_strict(void)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_error err;
    const bk_ssz_type *cp = T("Container:Checkpoint");
    const char *ok = "{\"epoch\":\"18446744073709551615\",\"root\":\"0x" "00000000000000000000000000000000"
                     "00000000000000000000000000000000\"}";
    CHECK_EQ_INT(bk_ssz_from_json(cp, ok, strlen(ok), &w, NULL, &err), BK_OK);
    CHECK_EQ_INT(w.len, 40);
    bk_writer_reset(&w);
    const char *big = "{\"epoch\":\"18446744073709551616\",\"root\":\"0x00\"}";
    CHECK_EQ_INT(bk_ssz_from_json(cp, big, strlen(big), &w, NULL, &err), BK_ERR_VALUE);
    CHECK_EQ_STR(err.path, ".epoch");
    CHECK_EQ_INT(err.offset, 9);
    bk_writer_reset(&w);
    const char *missing = "{\"epoch\":\"1\"}";
    CHECK_EQ_INT(bk_ssz_from_json(cp, missing, strlen(missing), &w, NULL, &err), BK_ERR_VALUE);
    bk_writer_reset(&w);
    const char *shortroot = "{\"epoch\":\"1\",\"root\":\"0x00\"}";
    CHECK_EQ_INT(bk_ssz_from_json(cp, shortroot, strlen(shortroot), &w, NULL, &err), BK_ERR_LENGTH);
    CHECK_EQ_STR(err.path, ".root");
    bk_writer_reset(&w);
    CHECK_EQ_INT(bk_ssz_from_json(T("Bitlist[4]"), "\"0x00\"", 6, &w, NULL, &err), BK_ERR_VALUE);
    bk_writer_reset(&w);
    CHECK_EQ_INT(bk_ssz_from_json(T("uint256"), "\"115792089237316195423570985008687907853269984665640564039457584007913129639935\"",
                                  80, &w, NULL, &err), BK_OK);
    CHECK_EQ_INT(w.len, 32);
    bk_writer_reset(&w);
    CHECK_EQ_INT(bk_ssz_to_json(T("uint128"), (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
                                16, &w, &err), BK_OK);
    bk_writer_putc(&w, 0);
    CHECK_EQ_STR((const char *)w.data, "\"340282366920938463463374607431768211455\"");
    bk_writer_free(&w);
}

static void plan_matches_streaming_tree(void)
{
    /* Fixed-size types hash through a precompiled plan; their subtrees
     * (bk_ssz_node below the root) take the streaming path. Both must give
     * one tree: root == H(node 2, node 3) for every fixed phase0 type. */
    const char *types[] = {"Container:DepositData", "Container:BeaconBlockHeader", "Container:Validator",
                           "Container:Deposit", "Container:AttestationData", "Container:ProposerSlashing",
                           "Vector[ByteVector[32],33]", "Bitvector[513]", "Vector[uint16,17]",
                           "Container:NestedFixedStruct"};
    uint8_t data[4096];
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        const bk_ssz_type *t = T(types[k]);
        for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 131 + 7);
        if (!strcmp(types[k], "Container:Validator")) data[88] = 1;           /* slashed: bool */
        if (!strcmp(types[k], "Container:NestedFixedStruct")) data[26] &= 7;  /* d: Bitvector[3] */
        CHECK(t && t->plan != NULL);
        size_t n = (size_t)t->fixed_size;
        if (t->kind == BK_SSZ_BITVECTOR) data[n - 1] &= 1;   /* padding bits */
        uint8_t root[32], l[32], r[32], m[64], want[32];
        bk_error err;
        if (bk_ssz_hash_tree_root(hasher, t, data, n, root, &err) != BK_OK) {
            fprintf(stderr, "%s: %s (%s)\n", types[k], err.msg, err.path);
            CHECK(0);
            continue;
        }
        CHECK_EQ_INT(bk_ssz_node(hasher, t, data, n, 2, l, NULL), BK_OK);
        CHECK_EQ_INT(bk_ssz_node(hasher, t, data, n, 3, r, NULL), BK_OK);
        memcpy(m, l, 32);
        memcpy(m + 32, r, 32);
        bk_sha256(want, m, 64);
        CHECK_MEM(root, want, 32);
    }
    /* A variable container: its variable fields are computed first and
     * enter the plan as leaves. */
    const bk_ssz_type *att = T("Container:Attestation");
    CHECK(att->plan != NULL);
    uint8_t a[228 + 9];
    for (size_t i = 0; i < sizeof a; i++) a[i] = (uint8_t)(i * 29 + 1);
    bk_store_le32(a, 228);
    a[sizeof a - 1] = 0x80;
    uint8_t root[32], l[32], r[32], m[64], want[32];
    CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, att, a, sizeof a, root, NULL), BK_OK);
    CHECK_EQ_INT(bk_ssz_node(hasher, att, a, sizeof a, 2, l, NULL), BK_OK);
    CHECK_EQ_INT(bk_ssz_node(hasher, att, a, sizeof a, 3, r, NULL), BK_OK);
    memcpy(m, l, 32);
    memcpy(m + 32, r, 32);
    bk_sha256(want, m, 64);
    CHECK_MEM(root, want, 32);
}

static void grouped_elements_match_one_by_one(void)
{
    /* Lists of fixed-size containers hash many elements per call; the root
     * must equal merkleizing the elements' own roots. */
    const bk_ssz_type *lt = T("List[Container:Validator,1099511627776]"), *vt = T("Container:Validator");
    size_t n = 201, es = 121;
    uint8_t *d = malloc(n * es), *roots = malloc(32 * n), want[32], got[32];
    for (size_t i = 0; i < n * es; i++) d[i] = (uint8_t)(i * 37 + 11);
    for (size_t i = 88; i < n * es; i += es) d[i] &= 1;
    for (size_t i = 0; i < n; i++) CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, vt, d + i * es, es, roots + 32 * i, NULL), BK_OK);
    CHECK_EQ_INT(bk_ssz_merkleize(hasher, roots, n, UINT64_C(1) << 40, want, NULL), BK_OK);
    bk_ssz_mix_in_length(want, want, n);
    CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, lt, d, n * es, got, NULL), BK_OK);
    CHECK_MEM(got, want, 32);
    free(d);
    free(roots);
}

static void json_parser_is_strict(void)
{
    /* RFC 8259: no trailing commas, no leading zeros, no comments, escaped
     * control characters, paired surrogates, nothing after the value. */
    const char *bad[] = {"[\"1\",]", "[01]", "[\"1\"] x", "[\"a\tb\"]", "[\"\\ud800\"]", "[\"\\x\"]",
                         "/*c*/[]", "[", "[\"1\" \"2\"]", "{\"a\" 1}", "[1.]", "[1e]", "[-]", "[tru]"};
    const bk_ssz_type *t = T("List[uint8,4]");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_error err;
        bk_status st = bk_ssz_from_json(t, bad[i], strlen(bad[i]), &w, NULL, &err);
        if (st == BK_OK) fprintf(stderr, "accepted: %s\n", bad[i]);
        CHECK(st != BK_OK);
        bk_writer_free(&w);
    }
    /* Escapes decode: a container field named by an escaped key. */
    bk_writer w;
    bk_writer_init(&w, NULL);
    const char *ok = " {\"\\u0065poch\":\"7\", \"root\":\"0x0000000000000000000000000000000000000000000000000000000000000000\"} ";
    CHECK_EQ_INT(bk_ssz_from_json(T("Container:Checkpoint"), ok, strlen(ok), &w, NULL, NULL), BK_OK);
    CHECK_EQ_INT(w.len, 40);
    CHECK_EQ_INT(w.data[0], 7);
    bk_writer_free(&w);
}

static void schema_errors_name_the_place(void)
{
    bk_ssz_registry *r;
    CHECK_EQ_INT(bk_ssz_registry_create(&r, NULL), BK_OK);
    bk_error err;
    const char *s1 = "{\"A\":[[\"x\",\"uint8\"],[\"x\",\"uint16\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s1, strlen(s1), &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "duplicate field") != NULL);
    /* Schema text is JSON: a \u escape (either case) names the same field. */
    const char *s1u = "{\"A\":[[\"\\u004A\",\"uint8\"],[\"J\",\"uint16\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s1u, strlen(s1u), &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "duplicate field") != NULL);
    const char *s1b = "{\"A\":[[\"\\u004G\",\"uint8\"]]}";
    CHECK(bk_ssz_registry_load_schema(r, s1b, strlen(s1b), &err) != BK_OK);
    CHECK(strstr(err.msg, "\\u escape") != NULL);
    const char *s2 = "{\"A\":[[\"x\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s2, strlen(s2), &err), BK_ERR_TYPE);
    CHECK_EQ_INT(err.offset, 6);
    const char *s3 = "{\"A\":[[\"x\",\"Vector[uint8,0]\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s3, strlen(s3), &err), BK_OK);  /* resolved on use */
    const bk_ssz_type *t;
    CHECK_EQ_INT(bk_ssz_type_parse(r, "Container:A", &t, &err), BK_ERR_TYPE);
    CHECK(strstr(err.msg, "A.x") != NULL);
    /* A later schema replaces a name for types built afterwards. */
    const char *s4 = "{\"A\":[[\"x\",\"uint8\"]],\"boolean\":[[\"b\",\"bool\"]]}";
    CHECK_EQ_INT(bk_ssz_registry_load_schema(r, s4, strlen(s4), &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_type_parse(r, "A", &t, &err), BK_OK);
    CHECK_EQ_INT(t->fixed_size, 1);
    CHECK_EQ_INT(bk_ssz_type_parse(r, "List[boolean,2]", &t, &err), BK_OK);   /* not "bool" + junk */
    char name[64];
    bk_ssz_type_name(t, name, sizeof name);
    CHECK_EQ_STR(name, "List[Container:boolean,2]");
    bk_ssz_registry_free(r);
}

static void hashing_allocates_nothing(void)
{
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    bk_ssz_hasher *h;
    CHECK_EQ_INT(bk_ssz_hasher_create(&h, 0, &ca.base), BK_OK);
    CHECK(ca.allocs > 0);
    bk_counting_allocator_reset(&ca);
    uint8_t buf[4096] = {0}, r[32];
    const char *types[] = {"Container:DepositData", "Container:BeaconBlockHeader", "Container:Deposit",
                           "List[uint64,1099511627776]", "Vector[ByteVector[32],64]"};
    size_t lens[] = {184, 112, 33 * 32 + 184, 4096, 2048};
    for (size_t i = 0; i < 5; i++)
        for (int k = 0; k < 10; k++) CHECK_EQ_INT(bk_ssz_hash_tree_root(h, T(types[i]), buf, lens[i], r, NULL), BK_OK);
    /* An Attestation: aggregation_bits = one delimiter byte. */
    uint8_t att[229] = {0xe4};
    att[228] = 1;
    CHECK_EQ_INT(bk_ssz_hash_tree_root(h, T("Container:Attestation"), att, sizeof att, r, NULL), BK_OK);
    uint8_t leaf[32], br[64][32];
    unsigned depth;
    CHECK_EQ_INT(bk_ssz_prove(h, T("Container:Attestation"), att, sizeof att, 88, leaf, br, &depth, NULL), BK_OK);
    CHECK_EQ_INT(bk_ssz_merkleize(h, buf, 100, 1 << 20, r, NULL), BK_OK);
    CHECK_EQ_INT(ca.allocs, 0);
    CHECK_EQ_INT(ca.bytes, 0);
    bk_ssz_hasher_free(h);
    CHECK_EQ_INT(ca.live, 0);
}

static void tiny_scratch_reports_buffer(void)
{
    bk_ssz_hasher *h;
    CHECK_EQ_INT(bk_ssz_hasher_create(&h, 4096, NULL), BK_OK);
    /* 4 KiB holds a few levels; a deep nest of lists does not fit. */
    char ty[4096] = "";
    for (int i = 0; i < 40; i++) strcat(ty, "List[");
    strcat(ty, "uint8,1099511627776");
    for (int i = 0; i < 40; i++) strcat(ty, i ? ",1099511627776]" : "]");
    const bk_ssz_type *t;
    bk_error err;
    CHECK_EQ_INT(bk_ssz_type_parse(reg, ty, &t, &err), BK_OK);
    uint8_t data[4 * 40];
    for (int i = 0; i < 39; i++) bk_store_le32(data + 4 * i, 4);
    uint8_t r[32];
    CHECK_EQ_INT(bk_ssz_hash_tree_root(h, t, data, 4 * 39, r, &err), BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_ssz_hash_tree_root(hasher, t, data, 4 * 39, r, &err), BK_OK);
    /* A small scratch shrinks the batches; the root stays the same. */
    uint8_t *ch = malloc(32 * 3000), a[32], b[32];
    for (size_t i = 0; i < 32 * 3000; i++) ch[i] = (uint8_t)(i * 13 + 5);
    CHECK_EQ_INT(bk_ssz_merkleize(h, ch, 3000, 1 << 20, a, NULL), BK_OK);
    CHECK_EQ_INT(bk_ssz_merkleize(hasher, ch, 3000, 1 << 20, b, NULL), BK_OK);
    CHECK_MEM(a, b, 32);
    free(ch);
    bk_ssz_hasher_free(h);
}

int main(void)
{
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&hasher, 0, NULL) != BK_OK) return 2;
    RUN(first_offset_must_equal_fixed_size);
    RUN(offsets_must_not_decrease);
    RUN(offsets_must_stay_within_the_data);
    RUN(variable_parts_leave_no_gaps);
    RUN(list_length_within_limit);
    RUN(list_size_multiple_of_element_size);
    RUN(bitlist_needs_delimiter);
    RUN(bitlist_length_within_limit);
    RUN(bitvector_padding_bits_zero);
    RUN(bool_is_zero_or_one);
    RUN(union_selector_in_range);
    RUN(union_none_has_no_payload);
    RUN(no_trailing_bytes);
    RUN(fixed_size_truncation);
    RUN(illegal_types_refused);
    RUN(error_path_names_nested_field);
    RUN(list_root_pads_to_limit_not_count);
    RUN(mix_in_length_is_uint256_le);
    RUN(union_root_mixes_in_selector);
    RUN(odd_nodes_pair_with_zero_hash);
    RUN(merkleize_large_matches_reference);
    RUN(bitlist_root_excludes_delimiter);
    RUN(gindex_follows_spec);
    RUN(multiproof_helper_order);
    RUN(json_values_are_strict);
    RUN(plan_matches_streaming_tree);
    RUN(grouped_elements_match_one_by_one);
    RUN(json_parser_is_strict);
    RUN(schema_errors_name_the_place);
    RUN(hashing_allocates_nothing);
    RUN(tiny_scratch_reports_buffer);
    bk_ssz_hasher_free(hasher);
    bk_ssz_registry_free(reg);
    return check_finish();
}
