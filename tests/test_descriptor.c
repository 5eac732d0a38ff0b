/* Descriptor inference (InferDescriptor with Core's dummy provider) and
 * DescriptorChecksum, one case per rule of src/script/descriptor.cpp, then
 * Core's own renderings. */
#include "script_vectors.h"
#include "script_ref.h"
#include "bitcoin/script_internal.h"

static bk_writer W;

static const char *desc_of(const char *hex, bk_network net)
{
    size_t n;
    uint8_t *s = check_unhex(hex, &n);
    bk_writer_reset(&W);
    CHECK_EQ_INT(bk_script_descriptor(&W, s, n, net), BK_OK);
    free(s);
    return sv_cstr(&W);
}

static const char *checksum_of(const char *d)
{
    static char out[9];
    CHECK_EQ_INT(bk_descriptor_checksum(d, strlen(d), out, NULL), BK_OK);
    return out;
}

/* The descriptor must end in the checksum of everything before '#'. */
static void check_checksum_suffix(const char *desc, const char *file, int lineno)
{
    const char *hash = strrchr(desc, '#');
    char out[9] = "";
    if (!hash || bk_descriptor_checksum(desc, (size_t)(hash - desc), out, NULL) != BK_OK) {
        check_failed++;
        fprintf(stderr, "%s:%d: no valid checksum in %s\n", file, lineno, desc);
        return;
    }
    sv_check_str(out, hash + 1, "checksum", file, lineno);
}

#define GX "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
#define GY "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"

static void checksum_core_vectors(void)
{
    CHECK_EQ_STR(checksum_of("addr(193P6LtvS4nCnkDvM9uXn1gsSRqh4aDAz7)"), "nw04wh58");
    CHECK_EQ_STR(checksum_of("raw()"), "58lrscpx");
    /* Core: src/test/descriptor_tests.cpp (checksum of a sh(multi) with xpubs). */
    CHECK_EQ_STR(checksum_of("sh(multi(2,[00000000/111'/222]xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc,xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJFjaPdGZ2y9WACViL4L/0))"),
                 "ggrsrxfy");
    CHECK_EQ_STR(checksum_of("sh(multi(2,[00000000/111'/222]xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL,xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y/0))"),
                 "tjg09x5t");
}

static void checksum_rejects_characters_outside_the_charset(void)
{
    char out[9];
    bk_error err;
    CHECK_EQ_INT(bk_descriptor_checksum("raw(\x01)", 6, out, &err), BK_ERR_INVALID);
    CHECK_EQ_INT(err.offset, 4);
    CHECK_EQ_INT(bk_descriptor_checksum("raw(\xc3\xa9)", 7, out, &err), BK_ERR_INVALID);
    CHECK_EQ_INT(bk_descriptor_checksum("\n", 1, out, &err), BK_ERR_INVALID);
    /* Every character of the three 32-character groups is accepted. */
    CHECK_EQ_INT(bk_descriptor_checksum("0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
                                        "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ", 95, out, &err), BK_OK);
}

/* Every length 0..200 (all phases of the six- and three-character steps)
 * matches the reference, and one bad character at any position is
 * reported at that offset. */
static void checksum_matches_symbol_at_a_time_reference(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    char buf[201], got[9], want[9];
    for (size_t n = 0; n <= 200; n++) {
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = ref_input_charset[x % 95];
        }
        ref_desc_checksum((const uint8_t *)buf, n, want);
        CHECK_EQ_INT(bk_descriptor_checksum(buf, n, got, NULL), BK_OK);
        CHECK_EQ_STR(got, want);
        if (n == 0) continue;
        size_t bad = (size_t)(x >> 20) % n;
        char keep = buf[bad];
        buf[bad] = (n & 1) ? '\x01' : '\xff';
        bk_error err;
        CHECK_EQ_INT(bk_descriptor_checksum(buf, n, got, &err), BK_ERR_INVALID);
        CHECK_EQ_INT(err.offset, bad);
        buf[bad] = keep;
    }
}

static void pk_for_compressed_and_uncompressed_keys(void)
{
    CHECK_EQ_STR(desc_of("2102" GX "ac", BK_NET_MAIN), "pk(02" GX ")#gn28ywm7");
    const char *d = desc_of("4104" GX GY "ac", BK_NET_MAIN);
    CHECK(strncmp(d, "pk(04" GX GY ")#", 3 + 130 + 2) == 0);
    check_checksum_suffix(d, __FILE__, __LINE__);
}

static void pk_has_no_curve_check(void)
{
    /* 02 || 00..00 is not on the curve; Core still prints pk(). */
    const char *d = desc_of("2102" "0000000000000000000000000000000000000000000000000000000000000000" "ac", BK_NET_MAIN);
    CHECK(strncmp(d, "pk(020000", 9) == 0);
}

static void hybrid_pubkey_falls_back_to_raw(void)
{
    CHECK_EQ_STR(desc_of("4106" GX GY "ac", BK_NET_MAIN), "raw(4106" GX GY "ac)#qhj9gd8d");
    const char *d = desc_of("4107" GX GY "ac", BK_NET_MAIN);
    CHECK(strncmp(d, "raw(4107", 8) == 0);
}

static void multi_lists_threshold_and_keys_in_order(void)
{
    CHECK_EQ_STR(desc_of("5121" "02" GX "21" "03" GX "52ae", BK_NET_MAIN), "multi(1,02" GX ",03" GX ")#58qsylcr");
    const char *d = desc_of("5141" "04" GX GY "21" "02" GX "52ae", BK_NET_MAIN);
    CHECK(strncmp(d, "multi(1,04" GX GY ",02" GX ")#", 8 + 130 + 1 + 66 + 2) == 0);
    check_checksum_suffix(d, __FILE__, __LINE__);
}

static void multi_with_a_hybrid_key_is_raw(void)
{
    const char *d = desc_of("5121" "02" GX "41" "06" GX GY "52ae", BK_NET_MAIN);
    CHECK(strncmp(d, "raw(512102", 10) == 0);
}

static void multi_has_no_key_limit_when_inferred(void)
{
    /* 20 keys, threshold 17 as a minimal push (0x11): multi(17, 20 keys). */
    char hex[2000] = "0111";
    for (int i = 0; i < 20; i++) strcat(hex, "2102" GX);
    strcat(hex, "0114ae");
    const char *d = desc_of(hex, BK_NET_MAIN);
    CHECK(strncmp(d, "multi(17,02" GX ",", 11 + 64 + 1) == 0);
    const char *last = strstr(d, ")#");
    CHECK(last != NULL);
    size_t commas = 0;
    for (const char *p = d; *p; p++) commas += *p == ',';
    CHECK_EQ_INT(commas, 20);
    check_checksum_suffix(d, __FILE__, __LINE__);
}

static void rawtr_for_valid_xonly_key(void)
{
    CHECK_EQ_STR(desc_of("5120" GX, BK_NET_MAIN), "rawtr(" GX ")#xsjqcczm");
}

static void taproot_off_curve_x_is_addr(void)
{
    CHECK_EQ_STR(desc_of("5120" "0000000000000000000000000000000000000000000000000000000000000005", BK_NET_MAIN),
                 "addr(bc1pqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqzs2jkusy)#kf0n0f5y");
    /* x >= p is not a field element: addr() too. */
    const char *d = desc_of("5120" "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", BK_NET_MAIN);
    CHECK(strncmp(d, "addr(bc1p", 9) == 0);
    check_checksum_suffix(d, __FILE__, __LINE__);
}

static void addr_for_hash_and_witness_types(void)
{
    CHECK_EQ_STR(desc_of("a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87", BK_NET_MAIN),
                 "addr(3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy)#rsjl0crt");
    CHECK_EQ_STR(desc_of("0014751e76e8199196d454941c45d1b3a323f1433bd6", BK_NET_REGTEST),
                 "addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)#8pk5s7ya");
    CHECK_EQ_STR(desc_of("51024e73", BK_NET_MAIN), "addr(bc1pfeessrawgf)#d6x2lh3c");
    CHECK_EQ_STR(desc_of("5210" "00000000000000000000000000000000", BK_NET_MAIN),
                 "addr(bc1zqqqqqqqqqqqqqqqqqqqqqqqqqqr3t3q4)#jlkye8ap");
}

static void raw_for_nulldata_nonstandard_and_empty(void)
{
    CHECK_EQ_STR(desc_of("", BK_NET_MAIN), "raw()#58lrscpx");
    CHECK_EQ_STR(desc_of("4c", BK_NET_MAIN), "raw(4c)#w8vxm298");
    CHECK_EQ_STR(desc_of("6a0401020304", BK_NET_MAIN), "raw(6a0401020304)#g0fz96j4");
    CHECK_EQ_STR(desc_of("0010" "00000000000000000000000000000000", BK_NET_MAIN),
                 "raw(001000000000000000000000000000000000)#e7hrkrj4");
}

static void descriptor_rejects_unknown_network(void)
{
    bk_writer_reset(&W);
    CHECK_EQ_INT(bk_script_descriptor(&W, (const uint8_t *)"\x6a", 1, (bk_network)9), BK_ERR_ARG);
    CHECK_EQ_INT(W.len, 0);
}

static void info_gives_the_same_descriptor_as_one_call(void)
{
    size_t n;
    uint8_t *s = check_unhex("5120" GX, &n);
    bk_script_info info;
    CHECK_EQ_INT(bk_script_info_get(s, n, BK_NET_REGTEST, &info), BK_OK);
    CHECK_EQ_INT(info.sol.type, BK_SCRIPT_WITNESS_V1_TAPROOT);
    CHECK_EQ_INT(info.taproot_valid, 1);
    CHECK_EQ_STR(info.address, "bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6");
    bk_writer_reset(&W);
    bk_script_info_descriptor(&W, s, n, &info);
    CHECK_EQ_STR(sv_cstr(&W), "rawtr(" GX ")#xsjqcczm");
    free(s);
}

/* The Jacobi-symbol test must agree with libsecp256k1's parse. */
static void xonly_fast_check_agrees_with_libsecp256k1(void)
{
    static const char *edge[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000001",
        "0000000000000000000000000000000000000000000000000000000000000005",
        GX,
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2e", /* p - 1 */
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", /* p */
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc30", /* p + 1 */
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        size_t n;
        uint8_t *x = check_unhex(edge[i], &n);
        CHECK_EQ_INT(bk_script_xonly_valid(x), bk_script_xonly_valid_reference(x));
        free(x);
    }
    uint8_t x[32];
    uint64_t state = 0x9e3779b97f4a7c15ull;
    int valid = 0, agree = 0, total = 20000;
    for (int i = 0; i < total; i++) {
        for (int k = 0; k < 32; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            x[k] = (uint8_t)(state >> 56);
        }
        if (i % 4 == 0) memset(x, 0xff, 4); /* near and above p */
        int fast = bk_script_xonly_valid(x);
        agree += fast == bk_script_xonly_valid_reference(x);
        valid += fast;
    }
    CHECK_EQ_INT(agree, total);
    CHECK(valid > total / 3 && valid < 2 * total / 3);
}

/* ---- Core's renderings ---- */

static void check_spk_line(const sv_line *l, const char *file)
{
    size_t n;
    uint8_t *s = check_unhex(l->f[1], &n);
    bk_writer_reset(&W);
    CHECK_EQ_INT(bk_script_descriptor(&W, s, n, sv_net(l->f[0])), BK_OK);
    const char *d = sv_cstr(&W);
    sv_check_str(d, l->f[3], "desc", file, l->lineno);
    check_checksum_suffix(l->f[3], file, l->lineno);
    free(s);
}

/* Real mainnet scripts (no Core rendering stored): the shapes their sample
 * names promise, checksums that verify, addresses that decode back. */
static int sample_pk, sample_multi, sample_rawtr, sample_nulldata;

static void check_sample_line(const sv_line *l, const char *file)
{
    size_t n;
    uint8_t *s = check_unhex(l->f[2], &n);
    bk_script_info info;
    CHECK_EQ_INT(bk_script_info_get(s, n, BK_NET_MAIN, &info), BK_OK);
    bk_writer_reset(&W);
    bk_script_info_descriptor(&W, s, n, &info);
    const char *d = sv_cstr(&W);
    check_checksum_suffix(d, file, l->lineno);
    switch (info.sol.type) {
    case BK_SCRIPT_PUBKEY:
        CHECK(strncmp(d, "pk(", 3) == 0 && info.address_len == 0);
        if (strcmp(l->f[0], "spend_p2pk_uncompressed") == 0) CHECK(strncmp(d, "pk(04", 5) == 0);
        if (strcmp(l->f[0], "output_p2pk_compressed") == 0) CHECK(strncmp(d, "pk(02", 5) == 0 || strncmp(d, "pk(03", 5) == 0);
        sample_pk++;
        break;
    case BK_SCRIPT_MULTISIG:
        CHECK(strncmp(d, "multi(1,", 8) == 0 && info.address_len == 0);
        sample_multi++;
        break;
    case BK_SCRIPT_WITNESS_V1_TAPROOT:
        CHECK(strncmp(d, "rawtr(", 6) == 0);
        sample_rawtr++;
        break;
    case BK_SCRIPT_NULLDATA:
        CHECK(strncmp(d, "raw(6a", 6) == 0 && info.address_len == 0);
        sample_nulldata++;
        break;
    default:
        CHECK(strncmp(d, "addr(", 5) == 0 && info.address_len > 0);
        break;
    }
    if (info.address_len) {
        uint8_t back[64];
        size_t blen = 0;
        CHECK_EQ_INT(bk_address_decode(info.address, BK_NET_MAIN, back, sizeof back, &blen, NULL), BK_OK);
        CHECK(blen == n && memcmp(back, s, n) == 0);
    }
    free(s);
}

static void mainnet_samples_have_their_shapes(void)
{
    CHECK_EQ_INT(sv_each("script/mainnet_sample_scripts.txt", check_sample_line), 48);
    CHECK_EQ_INT(sample_pk, 8);     /* 5 compressed (574200), 3 uncompressed (block 170) */
    CHECK_EQ_INT(sample_multi, 1);  /* block 400000 */
    CHECK(sample_rawtr >= 4);
    CHECK(sample_nulldata >= 4);    /* incl. OP_RETURN OP_13 runestones: OP_13 counts as a push */
}

static void core_block_scriptpubkeys_descriptors(void)
{
    CHECK(sv_each("script/core_block_scripts.txt", check_spk_line) > 1000);
}

static void core_decodescript_descriptors(void)
{
    CHECK_EQ_INT(sv_each("script/core_decodescript.txt", check_spk_line), 11);
}

static void spec_vectors_descriptors(void)
{
    CHECK_EQ_INT(sv_each("script/spec_scripts.txt", check_spk_line), 15);
}

int main(void)
{
    bk_writer_init(&W, NULL);
    RUN(checksum_core_vectors);
    RUN(checksum_rejects_characters_outside_the_charset);
    RUN(checksum_matches_symbol_at_a_time_reference);
    RUN(pk_for_compressed_and_uncompressed_keys);
    RUN(pk_has_no_curve_check);
    RUN(hybrid_pubkey_falls_back_to_raw);
    RUN(multi_lists_threshold_and_keys_in_order);
    RUN(multi_with_a_hybrid_key_is_raw);
    RUN(multi_has_no_key_limit_when_inferred);
    RUN(rawtr_for_valid_xonly_key);
    RUN(taproot_off_curve_x_is_addr);
    RUN(addr_for_hash_and_witness_types);
    RUN(raw_for_nulldata_nonstandard_and_empty);
    RUN(descriptor_rejects_unknown_network);
    RUN(info_gives_the_same_descriptor_as_one_call);
    RUN(xonly_fast_check_agrees_with_libsecp256k1);
    RUN(mainnet_samples_have_their_shapes);
    RUN(core_block_scriptpubkeys_descriptors);
    RUN(core_decodescript_descriptors);
    RUN(spec_vectors_descriptors);
    bk_writer_free(&W);
    return check_finish();
}
