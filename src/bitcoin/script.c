/* Script classification (Core's Solver), disassembly (ScriptToAsmStr) and
 * the hex helper.
 *
 * Layering (see script_internal.h): this file is the bottom of the script
 * modules. It calls nothing above it (no addresses, script info,
 * descriptors or JSON): solver (script.c) <- addresses (address.c) <- script
 * info (script_info.c) <- descriptors (descriptor.c) <- JSON (src/json). */
#include "script_internal.h"

#include <blockkit/hex.h> /* bk_hex_encode: Core's HexStr, SIMD */

#include <string.h>

enum {
    OP_0 = 0x00, OP_PUSHDATA1 = 0x4c, OP_PUSHDATA2 = 0x4d, OP_PUSHDATA4 = 0x4e,
    OP_1NEGATE = 0x4f, OP_1 = 0x51, OP_16 = 0x60, OP_RETURN = 0x6a, OP_DUP = 0x76,
    OP_EQUAL = 0x87, OP_EQUALVERIFY = 0x88, OP_HASH160 = 0xa9, OP_CHECKSIG = 0xac,
    OP_CHECKMULTISIG = 0xae,
};

/* Core: MAX_SCRIPT_SIZE (src/script/script.h), used by IsUnspendable. */
#define MAX_SCRIPT_SIZE 10000

static const char hex_pairs[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void bk_script_hex(char *dst, const uint8_t *src, size_t n)
{
    if (n >= 16) {
        bk_hex_encode(dst, src, n);
        return;
    }
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        memcpy(dst + 2 * i, hex_pairs + 2 * src[i], 2);
        memcpy(dst + 2 * i + 2, hex_pairs + 2 * src[i + 1], 2);
        memcpy(dst + 2 * i + 4, hex_pairs + 2 * src[i + 2], 2);
        memcpy(dst + 2 * i + 6, hex_pairs + 2 * src[i + 3], 2);
    }
    for (; i < n; i++) memcpy(dst + 2 * i, hex_pairs + 2 * src[i], 2);
}

/* ---- GetScriptOp (src/script/script.cpp) ---- */

/* Parse the op at s[*pos]. Returns 0 on a truncated push (Core: GetOp
 * fails), else 1 with the opcode and, for pushes, the data span. */
static int get_op(const uint8_t *s, size_t n, size_t *pos, unsigned *op_out,
                  const uint8_t **data_out, size_t *len_out)
{
    size_t p = *pos;
    if (p >= n) return 0;
    unsigned op = s[p++];
    size_t len = 0;
    if (op <= OP_PUSHDATA4) {
        if (op < OP_PUSHDATA1) {
            len = op;
        } else if (op == OP_PUSHDATA1) {
            if (n - p < 1) return 0;
            len = s[p];
            p += 1;
        } else if (op == OP_PUSHDATA2) {
            if (n - p < 2) return 0;
            len = bk_load_le16(s + p);
            p += 2;
        } else {
            if (n - p < 4) return 0;
            len = bk_load_le32(s + p);
            p += 4;
        }
        if (n - p < len) return 0;
    }
    *op_out = op;
    *data_out = s + p;
    *len_out = len;
    *pos = p + len;
    return 1;
}

/* ---- Solver (src/script/solver.cpp) ---- */

/* Core: CPubKey::ValidSize / GetLen: 02/03 -> 33 bytes, 04/06/07 -> 65. */
static int pubkey_valid_size(const uint8_t *k, size_t len)
{
    if (len == 33) return k[0] == 2 || k[0] == 3;
    if (len == 65) return k[0] == 4 || k[0] == 6 || k[0] == 7;
    return 0;
}

/* Core: solver.cpp GetScriptNumber: OP_1..OP_16, or a minimal push
 * (CheckMinimalPush) of a minimal CScriptNum of at most 4 bytes, in
 * [min, max]. Returns the number or -1. */
static int script_number(unsigned op, const uint8_t *d, size_t len, int min, int max)
{
    long v;
    if (op >= OP_1 && op <= OP_16) {
        v = (long)op - (OP_1 - 1);
    } else if (op > OP_0 && op <= OP_PUSHDATA4) {
        /* CheckMinimalPush (src/script/script.cpp) */
        if (len == 0) return -1;                              /* only OP_0 is minimal */
        if (len == 1 && d[0] >= 1 && d[0] <= 16) return -1;    /* must be OP_1..OP_16 */
        if (len == 1 && d[0] == 0x81) return -1;               /* must be OP_1NEGATE */
        if (len <= 75 ? op != len : op != OP_PUSHDATA1) return -1; /* len <= 4 here */
        /* CScriptNum(data, fRequireMinimal=true), nMaxNumSize 4 */
        if (len > 4) return -1;
        if ((d[len - 1] & 0x7f) == 0 && (len <= 1 || (d[len - 2] & 0x80) == 0)) return -1;
        uint32_t u = 0;
        for (size_t i = 0; i < len; i++) u |= (uint32_t)d[i] << (8 * i);
        uint32_t sign = (uint32_t)0x80 << (8 * (len - 1));
        v = (u & sign) ? -(long)(u & ~sign) : (long)u;
    } else {
        return -1;
    }
    if (v < min || v > max) return -1;
    return (int)v;
}

/* Core: MatchMultisig. */
static int match_multisig(const uint8_t *s, size_t n, bk_script_solution *sol)
{
    if (n < 1 || s[n - 1] != OP_CHECKMULTISIG) return 0;
    size_t pos = 0;
    unsigned op;
    const uint8_t *d;
    size_t len;
    if (!get_op(s, n, &pos, &op, &d, &len)) return 0;
    int m = script_number(op, d, len, 1, BK_SCRIPT_MAX_MULTISIG_KEYS);
    if (m < 0) return 0;
    size_t nkeys = 0;
    int ok;
    while ((ok = get_op(s, n, &pos, &op, &d, &len)) && pubkey_valid_size(d, len)) {
        if (nkeys < BK_SCRIPT_MAX_MULTISIG_KEYS && sol) {
            sol->keys[nkeys] = d;
            sol->key_len[nkeys] = (uint8_t)len;
        }
        nkeys++;
    }
    if (!ok) return 0; /* GetOp failed: opcode is OP_INVALIDOPCODE, not a number */
    int nreq = script_number(op, d, len, m, BK_SCRIPT_MAX_MULTISIG_KEYS);
    if (nreq < 0 || nkeys != (size_t)nreq) return 0;
    if (pos + 1 != n) return 0;
    if (sol) {
        sol->m = (uint8_t)m;
        sol->n = (uint8_t)nreq;
    }
    return 1;
}

bk_script_type bk_script_solve(const uint8_t *s, size_t n, bk_script_solution *sol)
{
    bk_script_solution dummy;
    if (!sol) sol = &dummy;
    sol->witness_version = -1;
    sol->data = NULL;
    sol->data_len = 0;
    sol->m = sol->n = 0;

    /* Core: CScript::IsPayToScriptHash */
    if (n == 23 && s[0] == OP_HASH160 && s[1] == 20 && s[22] == OP_EQUAL) {
        sol->data = s + 2;
        sol->data_len = 20;
        return sol->type = BK_SCRIPT_SCRIPTHASH;
    }
    /* Core: CScript::IsWitnessProgram */
    if (n >= 4 && n <= 42 && (s[0] == OP_0 || (s[0] >= OP_1 && s[0] <= OP_16)) &&
        (size_t)s[1] + 2 == n) {
        int version = s[0] == OP_0 ? 0 : s[0] - (OP_1 - 1);
        size_t plen = n - 2;
        sol->witness_version = version;
        sol->data = s + 2;
        sol->data_len = plen;
        if (version == 0 && plen == 20) return sol->type = BK_SCRIPT_WITNESS_V0_KEYHASH;
        if (version == 0 && plen == 32) return sol->type = BK_SCRIPT_WITNESS_V0_SCRIPTHASH;
        if (version == 1 && plen == 32) return sol->type = BK_SCRIPT_WITNESS_V1_TAPROOT;
        /* Core: CScript::IsPayToAnchor */
        if (n == 4 && s[0] == OP_1 && s[1] == 2 && s[2] == 0x4e && s[3] == 0x73)
            return sol->type = BK_SCRIPT_ANCHOR;
        if (version != 0) return sol->type = BK_SCRIPT_WITNESS_UNKNOWN;
        sol->witness_version = -1;
        sol->data = NULL;
        sol->data_len = 0;
        return sol->type = BK_SCRIPT_NONSTANDARD;
    }
    /* Core: OP_RETURN followed by IsPushOnly (opcodes <= OP_16, all parse) */
    if (n >= 1 && s[0] == OP_RETURN) {
        size_t pos = 1;
        unsigned op;
        const uint8_t *d;
        size_t len;
        int push_only = 1;
        while (pos < n) {
            if (!get_op(s, n, &pos, &op, &d, &len) || op > OP_16) {
                push_only = 0;
                break;
            }
        }
        if (push_only) return sol->type = BK_SCRIPT_NULLDATA;
    }
    /* Core: MatchPayToPubkey */
    if ((n == 67 && s[0] == 65 && s[66] == OP_CHECKSIG && pubkey_valid_size(s + 1, 65)) ||
        (n == 35 && s[0] == 33 && s[34] == OP_CHECKSIG && pubkey_valid_size(s + 1, 33))) {
        sol->data = s + 1;
        sol->data_len = n - 2;
        return sol->type = BK_SCRIPT_PUBKEY;
    }
    /* Core: MatchPayToPubkeyHash */
    if (n == 25 && s[0] == OP_DUP && s[1] == OP_HASH160 && s[2] == 20 && s[23] == OP_EQUALVERIFY &&
        s[24] == OP_CHECKSIG) {
        sol->data = s + 3;
        sol->data_len = 20;
        return sol->type = BK_SCRIPT_PUBKEYHASH;
    }
    if (match_multisig(s, n, sol)) return sol->type = BK_SCRIPT_MULTISIG;
    sol->m = sol->n = 0;
    return sol->type = BK_SCRIPT_NONSTANDARD;
}

const char *bk_script_type_name(bk_script_type type)
{
    /* Core: GetTxnOutputType (src/script/solver.cpp) */
    static const char *const names[BK_SCRIPT_TYPE_COUNT_] = {
        [BK_SCRIPT_NONSTANDARD] = "nonstandard",
        [BK_SCRIPT_PUBKEY] = "pubkey",
        [BK_SCRIPT_PUBKEYHASH] = "pubkeyhash",
        [BK_SCRIPT_SCRIPTHASH] = "scripthash",
        [BK_SCRIPT_MULTISIG] = "multisig",
        [BK_SCRIPT_NULLDATA] = "nulldata",
        [BK_SCRIPT_ANCHOR] = "anchor",
        [BK_SCRIPT_WITNESS_V0_KEYHASH] = "witness_v0_keyhash",
        [BK_SCRIPT_WITNESS_V0_SCRIPTHASH] = "witness_v0_scripthash",
        [BK_SCRIPT_WITNESS_V1_TAPROOT] = "witness_v1_taproot",
        [BK_SCRIPT_WITNESS_UNKNOWN] = "witness_unknown",
    };
    if ((unsigned)type >= BK_SCRIPT_TYPE_COUNT_) return names[BK_SCRIPT_NONSTANDARD];
    return names[type];
}

/* ---- ScriptToAsmStr (src/core_io.cpp) ---- */

/* Core: GetOpName (src/script/script.cpp) for the non-push opcodes. */
static const char *const op_names[256] = {
    [0x4f] = "-1", [0x50] = "OP_RESERVED",
    [0x51] = "1", [0x52] = "2", [0x53] = "3", [0x54] = "4", [0x55] = "5", [0x56] = "6",
    [0x57] = "7", [0x58] = "8", [0x59] = "9", [0x5a] = "10", [0x5b] = "11", [0x5c] = "12",
    [0x5d] = "13", [0x5e] = "14", [0x5f] = "15", [0x60] = "16",
    [0x61] = "OP_NOP", [0x62] = "OP_VER", [0x63] = "OP_IF", [0x64] = "OP_NOTIF",
    [0x65] = "OP_VERIF", [0x66] = "OP_VERNOTIF", [0x67] = "OP_ELSE", [0x68] = "OP_ENDIF",
    [0x69] = "OP_VERIFY", [0x6a] = "OP_RETURN",
    [0x6b] = "OP_TOALTSTACK", [0x6c] = "OP_FROMALTSTACK", [0x6d] = "OP_2DROP", [0x6e] = "OP_2DUP",
    [0x6f] = "OP_3DUP", [0x70] = "OP_2OVER", [0x71] = "OP_2ROT", [0x72] = "OP_2SWAP",
    [0x73] = "OP_IFDUP", [0x74] = "OP_DEPTH", [0x75] = "OP_DROP", [0x76] = "OP_DUP",
    [0x77] = "OP_NIP", [0x78] = "OP_OVER", [0x79] = "OP_PICK", [0x7a] = "OP_ROLL",
    [0x7b] = "OP_ROT", [0x7c] = "OP_SWAP", [0x7d] = "OP_TUCK",
    [0x7e] = "OP_CAT", [0x7f] = "OP_SUBSTR", [0x80] = "OP_LEFT", [0x81] = "OP_RIGHT",
    [0x82] = "OP_SIZE",
    [0x83] = "OP_INVERT", [0x84] = "OP_AND", [0x85] = "OP_OR", [0x86] = "OP_XOR",
    [0x87] = "OP_EQUAL", [0x88] = "OP_EQUALVERIFY", [0x89] = "OP_RESERVED1",
    [0x8a] = "OP_RESERVED2",
    [0x8b] = "OP_1ADD", [0x8c] = "OP_1SUB", [0x8d] = "OP_2MUL", [0x8e] = "OP_2DIV",
    [0x8f] = "OP_NEGATE", [0x90] = "OP_ABS", [0x91] = "OP_NOT", [0x92] = "OP_0NOTEQUAL",
    [0x93] = "OP_ADD", [0x94] = "OP_SUB", [0x95] = "OP_MUL", [0x96] = "OP_DIV",
    [0x97] = "OP_MOD", [0x98] = "OP_LSHIFT", [0x99] = "OP_RSHIFT", [0x9a] = "OP_BOOLAND",
    [0x9b] = "OP_BOOLOR", [0x9c] = "OP_NUMEQUAL", [0x9d] = "OP_NUMEQUALVERIFY",
    [0x9e] = "OP_NUMNOTEQUAL", [0x9f] = "OP_LESSTHAN", [0xa0] = "OP_GREATERTHAN",
    [0xa1] = "OP_LESSTHANOREQUAL", [0xa2] = "OP_GREATERTHANOREQUAL", [0xa3] = "OP_MIN",
    [0xa4] = "OP_MAX", [0xa5] = "OP_WITHIN",
    [0xa6] = "OP_RIPEMD160", [0xa7] = "OP_SHA1", [0xa8] = "OP_SHA256", [0xa9] = "OP_HASH160",
    [0xaa] = "OP_HASH256", [0xab] = "OP_CODESEPARATOR", [0xac] = "OP_CHECKSIG",
    [0xad] = "OP_CHECKSIGVERIFY", [0xae] = "OP_CHECKMULTISIG", [0xaf] = "OP_CHECKMULTISIGVERIFY",
    [0xb0] = "OP_NOP1", [0xb1] = "OP_CHECKLOCKTIMEVERIFY", [0xb2] = "OP_CHECKSEQUENCEVERIFY",
    [0xb3] = "OP_NOP4", [0xb4] = "OP_NOP5", [0xb5] = "OP_NOP6", [0xb6] = "OP_NOP7",
    [0xb7] = "OP_NOP8", [0xb8] = "OP_NOP9", [0xb9] = "OP_NOP10",
    [0xba] = "OP_CHECKSIGADD",
    [0xff] = "OP_INVALIDOPCODE",
};

/* Core: IsValidSignatureEncoding (src/script/interpreter.cpp), strict BIP66
 * DER with the hash type byte at the end. */
static int valid_signature_encoding(const uint8_t *sig, size_t len)
{
    if (len < 9 || len > 73) return 0;
    if (sig[0] != 0x30) return 0;
    if (sig[1] != len - 3) return 0;
    size_t len_r = sig[3];
    if (5 + len_r >= len) return 0;
    size_t len_s = sig[5 + len_r];
    if (len_r + len_s + 7 != len) return 0;
    if (sig[2] != 0x02) return 0;
    if (len_r == 0) return 0;
    if (sig[4] & 0x80) return 0;
    if (len_r > 1 && sig[4] == 0x00 && !(sig[5] & 0x80)) return 0;
    if (sig[len_r + 4] != 0x02) return 0;
    if (len_s == 0) return 0;
    if (sig[len_r + 6] & 0x80) return 0;
    if (len_s > 1 && sig[len_r + 6] == 0x00 && !(sig[len_r + 7] & 0x80)) return 0;
    return 1;
}

/* Core: mapSigHashTypes (src/core_io.cpp); only defined hash types
 * (IsDefinedHashtypeSignature) reach the lookup. */
static const char *sighash_name(uint8_t t)
{
    switch (t) {
    case 0x01: return "[ALL]";
    case 0x02: return "[NONE]";
    case 0x03: return "[SINGLE]";
    case 0x81: return "[ALL|ANYONECANPAY]";
    case 0x82: return "[NONE|ANYONECANPAY]";
    case 0x83: return "[SINGLE|ANYONECANPAY]";
    default: return NULL;
    }
}

/* Decimal of a CScriptNum of at most 4 bytes (non-minimal allowed) into
 * buf; returns the length (at most 11). */
static size_t scriptnum_dec(char *buf, const uint8_t *d, size_t len)
{
    uint32_t u = 0;
    int neg = 0;
    if (len) {
        for (size_t i = 0; i < len; i++) u |= (uint32_t)d[i] << (8 * i);
        uint32_t sign = (uint32_t)0x80 << (8 * (len - 1));
        if (u & sign) {
            neg = 1;
            u &= ~sign;
        }
    }
    if (u == 0) neg = 0; /* negative zero prints as 0 */
    char tmp[12];
    size_t k = 0;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t o = 0;
    if (neg) buf[o++] = '-';
    while (k) buf[o++] = tmp[--k];
    return o;
}

void bk_script_asm(bk_writer *w, const uint8_t *s, size_t n, int sighash_decode)
{
    /* Core: CScript::IsUnspendable */
    int decode = sighash_decode && !((n > 0 && s[0] == OP_RETURN) || n > MAX_SCRIPT_SIZE);
    size_t pos = 0;
    while (pos < n) {
        unsigned op;
        const uint8_t *d;
        size_t len;
        size_t sep = pos > 0;
        if (!get_op(s, n, &pos, &op, &d, &len)) {
            uint8_t *o = bk_script_space(w, 8);
            if (!o) return;
            if (sep) *o++ = ' ';
            memcpy(o, "[error]", 7);
            bk_writer_commit(w, sep + 7);
            return;
        }
        if (op <= OP_PUSHDATA4) {
            if (len <= 4) {
                uint8_t *o = bk_script_space(w, 12);
                if (!o) return;
                if (sep) *o = ' ';
                bk_writer_commit(w, sep + scriptnum_dec((char *)o + sep, d, len));
                continue;
            }
            const char *suffix = NULL;
            size_t hexlen = len;
            if (decode && valid_signature_encoding(d, len)) {
                suffix = sighash_name(d[len - 1]);
                if (suffix) hexlen = len - 1;
            }
            size_t slen = suffix ? strlen(suffix) : 0;
            uint8_t *o = bk_script_space(w, sep + 2 * hexlen + slen);
            if (!o) return;
            if (sep) *o = ' ';
            bk_script_hex((char *)o + sep, d, hexlen);
            if (slen) memcpy(o + sep + 2 * hexlen, suffix, slen);
            bk_writer_commit(w, sep + 2 * hexlen + slen);
        } else {
            const char *name = op_names[op] ? op_names[op] : "OP_UNKNOWN";
            size_t nl = strlen(name);
            uint8_t *o = bk_script_space(w, sep + nl);
            if (!o) return;
            if (sep) *o = ' ';
            memcpy(o + sep, name, nl);
            bk_writer_commit(w, sep + nl);
        }
    }
}
