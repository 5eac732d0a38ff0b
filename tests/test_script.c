/* Solver + type names + ScriptToAsmStr, one case per rule of Core's
 * src/script/solver.cpp and src/core_io.cpp, then Core's own renderings. */
#include "script_vectors.h"

static bk_writer W;

/* The script stays alive until the next call: sol points into it. */
static uint8_t *last_script;

static bk_script_type solve_hex(const char *hex, bk_script_solution *sol)
{
    size_t n;
    free(last_script);
    last_script = check_unhex(hex, &n);
    return bk_script_solve(last_script, n, sol);
}

static const char *type_of(const char *hex)
{
    return bk_script_type_name(solve_hex(hex, NULL));
}

static const char *asm_of(const char *hex, int sighash)
{
    size_t n;
    uint8_t *s = check_unhex(hex, &n);
    bk_writer_reset(&W);
    bk_script_asm(&W, s, n, sighash);
    free(s);
    return sv_cstr(&W);
}

/* A hex string of n copies of byte b. */
static char *rep(const char *b, size_t n)
{
    static char buf[8][4096];
    static int k;
    char *o = buf[k++ & 7];
    o[0] = 0;
    for (size_t i = 0; i < n; i++) strcat(o, b);
    return o;
}

static char *cat(const char *a, const char *b, const char *c, const char *d)
{
    static char buf[8][8192];
    static int k;
    char *o = buf[k++ & 7];
    snprintf(o, sizeof buf[0], "%s%s%s%s", a, b, c ? c : "", d ? d : "");
    return o;
}

#define GX "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
#define GY "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
#define KEY33 "21" "02" GX
#define KEY65 "41" "04" GX GY

/* ---- Solver ---- */

static void solver_scripthash_is_checked_first(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex("a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87", &sol), BK_SCRIPT_SCRIPTHASH);
    CHECK_EQ_INT(sol.data_len, 20);
    CHECK_EQ_INT(sol.data[0], 0xb4);
    CHECK_EQ_INT(sol.witness_version, -1);
    CHECK_EQ_STR(type_of("a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb88"), "nonstandard");
    CHECK_EQ_STR(type_of("a915b472a266d0bd89c13706a4132ccfb16f7c3b9fcb0087"), "nonstandard");
}

static void solver_witness_v0_keyhash_and_scripthash(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex("0014751e76e8199196d454941c45d1b3a323f1433bd6", &sol), BK_SCRIPT_WITNESS_V0_KEYHASH);
    CHECK_EQ_INT(sol.witness_version, 0);
    CHECK_EQ_INT(sol.data_len, 20);
    CHECK_EQ_INT(solve_hex(cat("0020", rep("11", 32), NULL, NULL), &sol), BK_SCRIPT_WITNESS_V0_SCRIPTHASH);
    CHECK_EQ_INT(sol.data_len, 32);
}

static void solver_witness_v0_other_length_is_nonstandard(void)
{
    CHECK_EQ_STR(type_of(cat("0019", rep("ab", 25), NULL, NULL)), "nonstandard");
    CHECK_EQ_STR(type_of(cat("0010", rep("00", 16), NULL, NULL)), "nonstandard");
    CHECK_EQ_STR(type_of("00020102"), "nonstandard");
}

static void solver_witness_v1_taproot(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex("5120" GX, &sol), BK_SCRIPT_WITNESS_V1_TAPROOT);
    CHECK_EQ_INT(sol.witness_version, 1);
    CHECK_EQ_INT(sol.data_len, 32);
}

static void solver_anchor_exact_bytes(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex("51024e73", &sol), BK_SCRIPT_ANCHOR);
    CHECK_EQ_INT(sol.witness_version, 1);
    CHECK_EQ_STR(type_of("51024e73"), "anchor");
    CHECK_EQ_STR(type_of("51024e74"), "witness_unknown");
    CHECK_EQ_STR(type_of("52024e73"), "witness_unknown");
}

static void solver_witness_unknown_versions_and_sizes(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex(cat("5210", rep("00", 16), NULL, NULL), &sol), BK_SCRIPT_WITNESS_UNKNOWN);
    CHECK_EQ_INT(sol.witness_version, 2);
    CHECK_EQ_STR(type_of(cat("6028", rep("00", 40), NULL, NULL)), "witness_unknown"); /* v16, 40 bytes */
    CHECK_EQ_STR(type_of(cat("5114", rep("00", 20), NULL, NULL)), "witness_unknown"); /* v1, 20 bytes */
    CHECK_EQ_STR(type_of("5102eeee"), "witness_unknown");
    /* Outside 4..42 bytes it is no witness program at all. */
    CHECK_EQ_STR(type_of(cat("5129", rep("00", 41), NULL, NULL)), "nonstandard");
    CHECK_EQ_STR(type_of("5101ee"), "nonstandard");
    /* The length byte must cover the rest exactly. */
    CHECK_EQ_STR(type_of(cat("5121", rep("00", 32), NULL, NULL)), "nonstandard");
}

static void solver_nulldata_push_only_after_op_return(void)
{
    CHECK_EQ_STR(type_of("6a"), "nulldata");
    CHECK_EQ_STR(type_of("6a0401020304"), "nulldata");
    CHECK_EQ_STR(type_of("6a4f50515f60"), "nulldata"); /* 1NEGATE, RESERVED, OP_1..OP_16 count as pushes */
    CHECK_EQ_STR(type_of(cat("6a4c64", rep("ab", 100), NULL, NULL)), "nulldata"); /* no size limit */
    CHECK_EQ_STR(type_of("6a61"), "nonstandard");   /* OP_NOP is not a push */
    CHECK_EQ_STR(type_of("6aee"), "nonstandard");
    CHECK_EQ_STR(type_of("6a02ee"), "nonstandard"); /* truncated push */
}

static void solver_pubkey_sizes_and_prefixes(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex(KEY33 "ac", &sol), BK_SCRIPT_PUBKEY);
    CHECK_EQ_INT(sol.data_len, 33);
    CHECK_EQ_INT(solve_hex(KEY65 "ac", &sol), BK_SCRIPT_PUBKEY);
    CHECK_EQ_INT(sol.data_len, 65);
    CHECK_EQ_STR(type_of("4106" GX GY "ac"), "pubkey"); /* hybrid keys pass ValidSize */
    CHECK_EQ_STR(type_of("4107" GX GY "ac"), "pubkey");
    CHECK_EQ_STR(type_of("4105" GX GY "ac"), "nonstandard");
    CHECK_EQ_STR(type_of("2104" GX "ac"), "nonstandard");
    CHECK_EQ_STR(type_of("4102" GX GY "ac"), "nonstandard");
    CHECK_EQ_STR(type_of(KEY33 "ad"), "nonstandard");
}

static void solver_pubkeyhash(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex("76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac", &sol), BK_SCRIPT_PUBKEYHASH);
    CHECK_EQ_INT(sol.data_len, 20);
    CHECK_EQ_INT(sol.data[0], 0x62);
    CHECK_EQ_STR(type_of("76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1887ac"), "nonstandard");
}

static void solver_multisig_basic(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex("51" KEY33 KEY65 "52ae", &sol), BK_SCRIPT_MULTISIG);
    CHECK_EQ_INT(sol.m, 1);
    CHECK_EQ_INT(sol.n, 2);
    CHECK_EQ_INT(sol.key_len[0], 33);
    CHECK_EQ_INT(sol.key_len[1], 65);
    CHECK_EQ_INT(sol.keys[1][0], 4);
    /* Hybrid keys are valid sizes: still multisig (the descriptor is raw). */
    CHECK_EQ_STR(type_of("51" "4106" GX GY "51ae"), "multisig");
}

static void solver_multisig_number_rules(void)
{
    /* m as a minimal push of 17 (0x11) with 17 keys and n pushed the same way. */
    CHECK_EQ_STR(type_of(cat("0111", rep(KEY33, 17), "0111ae", NULL)), "multisig");
    /* A non-minimal number push (01 01 instead of OP_1) is not a number. */
    CHECK_EQ_STR(type_of("0101" KEY33 "51ae"), "nonstandard");
    CHECK_EQ_STR(type_of("51" KEY33 "0101ae"), "nonstandard");
    /* Non-minimal CScriptNum (0x1100) is rejected. */
    CHECK_EQ_STR(type_of(cat("021100", rep(KEY33, 17), "0111ae", NULL)), "nonstandard");
    /* m = 0 and n < m. */
    CHECK_EQ_STR(type_of("00" KEY33 "51ae"), "nonstandard");
    CHECK_EQ_STR(type_of("52" KEY33 "51ae"), "nonstandard");
    /* Key count must equal n. */
    CHECK_EQ_STR(type_of("51" KEY33 KEY33 "53ae"), "nonstandard");
    /* n must be followed directly by the final OP_CHECKMULTISIG. */
    CHECK_EQ_STR(type_of("51" KEY33 "5161ae"), "nonstandard");
    /* A truncated push ends the scan: no number, nonstandard. */
    CHECK_EQ_STR(type_of("51" KEY33 "21ae"), "nonstandard");
}

static void solver_multisig_20_key_limit(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex(cat("51", rep(KEY33, 20), "0114ae", NULL), &sol), BK_SCRIPT_MULTISIG);
    CHECK_EQ_INT(sol.n, 20);
    CHECK_EQ_INT(sol.keys[19][0], 2);
    CHECK_EQ_STR(type_of(cat("51", rep(KEY33, 21), "0115ae", NULL)), "nonstandard");
    CHECK_EQ_STR(type_of(cat("0115", rep(KEY33, 21), "0115ae", NULL)), "nonstandard");
}

static void solver_empty_and_garbage_are_nonstandard(void)
{
    CHECK_EQ_INT(bk_script_solve(NULL, 0, NULL), BK_SCRIPT_NONSTANDARD);
    CHECK_EQ_STR(type_of("4c"), "nonstandard");
    CHECK_EQ_STR(type_of("ae"), "nonstandard");
}

static void type_names_match_core(void)
{
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_NONSTANDARD), "nonstandard");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_PUBKEY), "pubkey");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_PUBKEYHASH), "pubkeyhash");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_SCRIPTHASH), "scripthash");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_MULTISIG), "multisig");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_NULLDATA), "nulldata");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_ANCHOR), "anchor");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_WITNESS_V0_KEYHASH), "witness_v0_keyhash");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_WITNESS_V0_SCRIPTHASH), "witness_v0_scripthash");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_WITNESS_V1_TAPROOT), "witness_v1_taproot");
    CHECK_EQ_STR(bk_script_type_name(BK_SCRIPT_WITNESS_UNKNOWN), "witness_unknown");
    CHECK_EQ_STR(bk_script_type_name((bk_script_type)99), "nonstandard");
}

/* ---- ScriptToAsmStr ---- */

static void asm_truncated_push_prints_error_and_stops(void)
{
    CHECK_EQ_STR(asm_of("4c", 0), "[error]");
    CHECK_EQ_STR(asm_of("764c", 0), "OP_DUP [error]");
    CHECK_EQ_STR(asm_of("0201", 0), "[error]");
    CHECK_EQ_STR(asm_of("4d01", 0), "[error]");
    CHECK_EQ_STR(asm_of("4d05000102", 0), "[error]");
    CHECK_EQ_STR(asm_of("4e050000", 0), "[error]");
    CHECK_EQ_STR(asm_of("76a94c", 0), "OP_DUP OP_HASH160 [error]");
}

static void asm_small_pushes_are_scriptnum_decimals(void)
{
    CHECK_EQ_STR(asm_of("", 0), "");
    CHECK_EQ_STR(asm_of("00", 0), "0");
    CHECK_EQ_STR(asm_of("51024e73", 0), "1 29518");
    CHECK_EQ_STR(asm_of("0181", 0), "-1");
    CHECK_EQ_STR(asm_of("0180", 0), "0");
    CHECK_EQ_STR(asm_of("04ffffffff", 0), "-2147483647");
    CHECK_EQ_STR(asm_of("04ffffff7f", 0), "2147483647");
    CHECK_EQ_STR(asm_of("0400000080", 0), "0");
    CHECK_EQ_STR(asm_of("0401020304", 0), "67305985");
    CHECK_EQ_STR(asm_of("020001", 0), "256");  /* non-minimal allowed */
    CHECK_EQ_STR(asm_of("02eeee", 0), "-28398");
    CHECK_EQ_STR(asm_of("0500000000ff", 0), "00000000ff"); /* 5 bytes: hex */
}

static void asm_pushdata_forms(void)
{
    CHECK_EQ_STR(asm_of("4c0100", 0), "0");
    CHECK_EQ_STR(asm_of("4c00", 0), "0");
    CHECK_EQ_STR(asm_of("4d0100ff", 0), "-127");
    CHECK_EQ_STR(asm_of("4e0100000005", 0), "5");
    CHECK_EQ_STR(asm_of("4c050102030405", 0), "0102030405");
    CHECK_EQ_STR(asm_of("4d05000102030405", 0), "0102030405");
    CHECK_EQ_STR(asm_of("4e050000000102030405", 0), "0102030405");
}

static void asm_opcode_names(void)
{
    CHECK_EQ_STR(asm_of("4f50515a60", 0), "-1 OP_RESERVED 1 10 16");
    CHECK_EQ_STR(asm_of("616a7e8a8b", 0), "OP_NOP OP_RETURN OP_CAT OP_RESERVED2 OP_1ADD");
    CHECK_EQ_STR(asm_of("a5a6afb0b1b2b3b9", 0),
                 "OP_WITHIN OP_RIPEMD160 OP_CHECKMULTISIGVERIFY OP_NOP1 OP_CHECKLOCKTIMEVERIFY "
                 "OP_CHECKSEQUENCEVERIFY OP_NOP4 OP_NOP10");
    CHECK_EQ_STR(asm_of("babbfeff", 0), "OP_CHECKSIGADD OP_UNKNOWN OP_UNKNOWN OP_INVALIDOPCODE");
    CHECK_EQ_STR(asm_of("76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac", 0),
                 "OP_DUP OP_HASH160 62e907b15cbf27d5425399ebf6f0fb50ebb88f18 OP_EQUALVERIFY OP_CHECKSIG");
}

/* A strict-DER signature (r = 0x01.., s = 0x02..) with hash type ht. */
#define DER_BODY "3006020101020102"
static const char *sig_push(const char *ht)
{
    return cat("09", DER_BODY, ht, NULL);
}

static void asm_sighash_suffix_each_hashtype(void)
{
    CHECK_EQ_STR(asm_of(sig_push("01"), 1), DER_BODY "[ALL]");
    CHECK_EQ_STR(asm_of(sig_push("02"), 1), DER_BODY "[NONE]");
    CHECK_EQ_STR(asm_of(sig_push("03"), 1), DER_BODY "[SINGLE]");
    CHECK_EQ_STR(asm_of(sig_push("81"), 1), DER_BODY "[ALL|ANYONECANPAY]");
    CHECK_EQ_STR(asm_of(sig_push("82"), 1), DER_BODY "[NONE|ANYONECANPAY]");
    CHECK_EQ_STR(asm_of(sig_push("83"), 1), DER_BODY "[SINGLE|ANYONECANPAY]");
}

static void asm_sighash_only_for_defined_hashtypes(void)
{
    CHECK_EQ_STR(asm_of(sig_push("00"), 1), DER_BODY "00");
    CHECK_EQ_STR(asm_of(sig_push("04"), 1), DER_BODY "04");
    CHECK_EQ_STR(asm_of(sig_push("80"), 1), DER_BODY "80");
    CHECK_EQ_STR(asm_of(sig_push("84"), 1), DER_BODY "84");
}

static void asm_sighash_only_when_asked(void)
{
    CHECK_EQ_STR(asm_of(sig_push("01"), 0), DER_BODY "01");
}

static void asm_sighash_requires_strict_der(void)
{
    CHECK_EQ_STR(asm_of("09" "3106020101020102" "01", 1), "310602010102010201");  /* not a SEQUENCE */
    CHECK_EQ_STR(asm_of("09" "3007020101020102" "01", 1), "300702010102010201");  /* wrong total length */
    CHECK_EQ_STR(asm_of("09" "3006020181020102" "01", 1), "300602018102010201");  /* negative R */
    CHECK_EQ_STR(asm_of("0a" "300702020001020102" "01", 1), "30070202000102010201"); /* padded R */
    CHECK_EQ_STR(asm_of("09" "3006020101020182" "01", 1), "300602010102018201");  /* negative S */
    CHECK_EQ_STR(asm_of("09" "3006030101020102" "01", 1), "300603010102010201");  /* R not an INTEGER */
    CHECK_EQ_STR(asm_of("08" "30050201010200" "01", 1), "3005020101020001");      /* 8 bytes: too short */
    /* A negative-looking R with its 00 pad is fine. */
    CHECK_EQ_STR(asm_of("0a" "300702020081020102" "01", 1), "300702020081020102[ALL]");
}

static void asm_sighash_never_after_op_return(void)
{
    CHECK_EQ_STR(asm_of(cat("6a", sig_push("01"), NULL, NULL), 1), "OP_RETURN " DER_BODY "01");
    CHECK_EQ_STR(asm_of(cat("00", sig_push("01"), NULL, NULL), 1), "0 " DER_BODY "[ALL]");
}

static void asm_sighash_never_in_oversized_script(void)
{
    /* IsUnspendable: more than 10000 bytes. */
    size_t n = 10001;
    uint8_t *s = calloc(n, 1);
    memcpy(s, "\x09\x30\x06\x02\x01\x01\x02\x01\x02\x01", 10);
    bk_writer_reset(&W);
    bk_script_asm(&W, s, n, 1);
    const char *out = sv_cstr(&W);
    CHECK(strncmp(out, DER_BODY "01 0 0", strlen(DER_BODY "01 0 0")) == 0);
    bk_writer_reset(&W);
    bk_script_asm(&W, s, 10000, 1);
    out = sv_cstr(&W);
    CHECK(strncmp(out, DER_BODY "[ALL] 0 0", strlen(DER_BODY "[ALL] 0 0")) == 0);
    free(s);
}

/* Prevouts of Core's feature_taproot.py --dumptests samples (regtest):
 * taproot outputs, and the witness v9 program its "unkver" case spends. */
static void solver_feature_taproot_dump_prevouts(void)
{
    bk_script_solution sol;
    CHECK_EQ_INT(solve_hex("5120f373dde0676ff47291d474e81d14eb5c9fb29c4b2e6b88044fedc1a428fb8df9", &sol),
                 BK_SCRIPT_WITNESS_V1_TAPROOT);
    CHECK_EQ_INT(solve_hex("5120d955b47f7e98a0438f74ff32d92fe01d0d07e2ce67af737b74d0d0bcd7e48100", &sol),
                 BK_SCRIPT_WITNESS_V1_TAPROOT);
    CHECK_EQ_INT(solve_hex("51202b8992fcf62103d03bd5203f22a885940a17a2cd118fcd84d90f782f34eb2069", &sol),
                 BK_SCRIPT_WITNESS_V1_TAPROOT);
    CHECK_EQ_INT(solve_hex("5920ba7c7be40632d575646a853cbbf784f4fd62a33c2ac425392a2eca6ba08cea13", &sol),
                 BK_SCRIPT_WITNESS_UNKNOWN);
    CHECK_EQ_INT(sol.witness_version, 9);
    CHECK_EQ_INT(sol.data_len, 32);
    CHECK_EQ_STR(asm_of("5920ba7c7be40632d575646a853cbbf784f4fd62a33c2ac425392a2eca6ba08cea13", 0),
                 "9 ba7c7be40632d575646a853cbbf784f4fd62a33c2ac425392a2eca6ba08cea13");
}

/* ---- Core's own renderings ---- */

static void check_spk_line(const sv_line *l, const char *file)
{
    if (l->nf < 6) {
        check_failed++;
        fprintf(stderr, "%s:%d: malformed line\n", file, l->lineno);
        return;
    }
    size_t n;
    uint8_t *s = check_unhex(l->f[1], &n);
    bk_writer_reset(&W);
    bk_script_asm(&W, s, n, 0);
    sv_check_str(sv_cstr(&W), l->f[2], "asm", file, l->lineno);
    sv_check_str(bk_script_type_name(bk_script_solve(s, n, NULL)), l->f[5], "type", file, l->lineno);
    free(s);
}

static void check_sig_line(const sv_line *l, const char *file)
{
    size_t n;
    uint8_t *s = check_unhex(l->f[1], &n);
    bk_writer_reset(&W);
    bk_script_asm(&W, s, n, 1);
    sv_check_str(sv_cstr(&W), l->nf > 2 ? l->f[2] : "", "scriptSig asm", file, l->lineno);
    free(s);
}

static void core_block_scriptpubkeys_asm_and_type(void)
{
    CHECK(sv_each("script/core_block_scripts.txt", check_spk_line) > 1000);
}

static void core_block_scriptsigs_asm_with_sighash(void)
{
    CHECK(sv_each("script/core_block_scriptsigs.txt", check_sig_line) > 900);
}

static void core_decodescript_asm_and_type(void)
{
    CHECK_EQ_INT(sv_each("script/core_decodescript.txt", check_spk_line), 11);
}

static void spec_vectors_asm_and_type(void)
{
    CHECK_EQ_INT(sv_each("script/spec_scripts.txt", check_spk_line), 15);
}

int main(void)
{
    bk_writer_init(&W, NULL);
    RUN(solver_scripthash_is_checked_first);
    RUN(solver_witness_v0_keyhash_and_scripthash);
    RUN(solver_witness_v0_other_length_is_nonstandard);
    RUN(solver_witness_v1_taproot);
    RUN(solver_anchor_exact_bytes);
    RUN(solver_witness_unknown_versions_and_sizes);
    RUN(solver_nulldata_push_only_after_op_return);
    RUN(solver_pubkey_sizes_and_prefixes);
    RUN(solver_pubkeyhash);
    RUN(solver_multisig_basic);
    RUN(solver_multisig_number_rules);
    RUN(solver_multisig_20_key_limit);
    RUN(solver_empty_and_garbage_are_nonstandard);
    RUN(solver_feature_taproot_dump_prevouts);
    RUN(type_names_match_core);
    RUN(asm_truncated_push_prints_error_and_stops);
    RUN(asm_small_pushes_are_scriptnum_decimals);
    RUN(asm_pushdata_forms);
    RUN(asm_opcode_names);
    RUN(asm_sighash_suffix_each_hashtype);
    RUN(asm_sighash_only_for_defined_hashtypes);
    RUN(asm_sighash_only_when_asked);
    RUN(asm_sighash_requires_strict_der);
    RUN(asm_sighash_never_after_op_return);
    RUN(asm_sighash_never_in_oversized_script);
    RUN(core_block_scriptpubkeys_asm_and_type);
    RUN(core_block_scriptsigs_asm_with_sighash);
    RUN(core_decodescript_asm_and_type);
    RUN(spec_vectors_asm_and_type);
    bk_writer_free(&W);
    free(last_script);
    return check_finish();
}
