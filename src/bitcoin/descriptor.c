/* Descriptor inference as Core's block JSON prints it:
 * InferDescriptor(script, DUMMY_SIGNING_PROVIDER)->ToString()
 * (src/script/descriptor.cpp InferScript, context TOP, no keys or scripts
 * known), plus DescriptorChecksum. */
#include "script_internal.h"

#include <string.h>

/* ---- DescriptorChecksum ---- */

/* Position of each ASCII character in Core's INPUT_CHARSET (three groups
 * of 32: digits, brackets and hex-ish letters first; see descriptor.cpp
 * DescriptorChecksum), -1 if absent. */
static const int8_t input_pos[128] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    94, 59, 92, 91, 28, 29, 50, 15, 10, 11, 17, 51, 14, 52, 53, 16,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 27, 54, 55, 56, 57, 58,
    26, 82, 83, 84, 85, 86, 87, 88, 89, 32, 33, 34, 35, 36, 37, 38,
    39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 12, 93, 13, 60, 61,
    90, 18, 19, 20, 21, 22, 23, 24, 25, 64, 65, 66, 67, 68, 69, 70,
    71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 30, 62, 31, 63, -1,
};

static const char checksum_charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

/* Core PolyMod's generator multiples, indexed by the top 5 bits (c >> 35). */
static const uint64_t desc_gen[32] = {
    0x0000000000u, 0xf5dee51989u, 0xa9fdca3312u, 0x5c232f2a9bu,
    0x1bab10e32du, 0xee75f5faa4u, 0xb256dad03fu, 0x47883fc9b6u,
    0x3706b1677au, 0xc2d8547ef3u, 0x9efb7b5468u, 0x6b259e4de1u,
    0x2cada18457u, 0xd973449ddeu, 0x85506bb745u, 0x708e8eaeccu,
    0x644d626ffdu, 0x9193877674u, 0xcdb0a85cefu, 0x386e4d4566u,
    0x7fe6728cd0u, 0x8a38979559u, 0xd61bb8bfc2u, 0x23c55da64bu,
    0x534bd30887u, 0xa69536110eu, 0xfab6193b95u, 0x0f68fc221cu,
    0x48e0c3ebaau, 0xbd3e26f223u, 0xe11d09d8b8u, 0x14c3ecc131u,
};

static inline uint64_t polymod(uint64_t c, unsigned val)
{
    return ((c & 0x7ffffffffull) << 5) ^ val ^ desc_gen[c >> 35];
}

typedef struct dchk {
    uint64_t c;
    unsigned cls;
    unsigned clscount;
} dchk;

static void chk_init(dchk *k)
{
    k->c = 1;
    k->cls = 0;
    k->clscount = 0;
}

/* Feed characters; returns the index of the first character outside the
 * charset, or n when all are valid. */
static size_t chk_feed(dchk *k, const char *s, size_t n)
{
    uint64_t c = k->c;
    unsigned cls = k->cls, cnt = k->clscount;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        int pos = ch < 128 ? input_pos[ch] : -1;
        if (pos < 0) {
            k->c = c;
            k->cls = cls;
            k->clscount = cnt;
            return i;
        }
        c = polymod(c, (unsigned)pos & 31);
        cls = cls * 3 + ((unsigned)pos >> 5);
        if (++cnt == 3) {
            c = polymod(c, cls);
            cls = 0;
            cnt = 0;
        }
    }
    k->c = c;
    k->cls = cls;
    k->clscount = cnt;
    return n;
}

static void chk_final(const dchk *k, char out[8])
{
    uint64_t c = k->c;
    if (k->clscount > 0) c = polymod(c, k->cls);
    for (int j = 0; j < 8; j++) c = polymod(c, 0);
    c ^= 1;
    for (int j = 0; j < 8; j++) out[j] = checksum_charset[(c >> (5 * (7 - j))) & 31];
}

bk_status bk_descriptor_checksum(const char *desc, size_t len, char out[9], bk_error *err)
{
    if ((!desc && len) || !out) return bk_error_set(err, BK_ERR_ARG, 0, "invalid argument");
    dchk k;
    chk_init(&k);
    size_t bad = chk_feed(&k, desc, len);
    if (bad != len) {
        out[0] = 0;
        return bk_error_set(err, BK_ERR_INVALID, bad, "character 0x%02x is not in the descriptor charset",
                            (unsigned char)desc[bad]);
    }
    chk_final(&k, out);
    out[8] = 0;
    return BK_OK;
}

/* ---- InferDescriptor ---- */

static void emit(bk_writer *w, dchk *k, const char *s, size_t n)
{
    chk_feed(k, s, n);
    bk_writer_put(w, s, n);
}

static void emit_hex(bk_writer *w, dchk *k, const uint8_t *d, size_t n)
{
    if (n == 0) return;
    uint8_t *o = bk_script_space(w, 2 * n);
    if (!o) return;
    bk_script_hex((char *)o, d, n);
    chk_feed(k, (const char *)o, 2 * n);
    bk_writer_commit(w, 2 * n);
}

static void emit_checksum(bk_writer *w, const dchk *k)
{
    char buf[9];
    buf[0] = '#';
    chk_final(k, buf + 1);
    bk_writer_put(w, buf, 9);
}

/* Core: CPubKey::IsValidNonHybrid (size already checked by Solver). */
static int non_hybrid(const uint8_t *key)
{
    return key[0] == 2 || key[0] == 3 || key[0] == 4;
}

void bk_script_info_descriptor(bk_writer *w, const uint8_t *s, size_t n, const bk_script_info *info)
{
    const bk_script_solution *sol = &info->sol;
    dchk k;
    chk_init(&k);
    switch (sol->type) {
    case BK_SCRIPT_PUBKEY:
        /* Core: PUBKEY -> InferPubkey; hybrid keys fail and fall to raw(). */
        if (non_hybrid(sol->data)) {
            emit(w, &k, "pk(", 3);
            emit_hex(w, &k, sol->data, sol->data_len);
            emit(w, &k, ")", 1);
            emit_checksum(w, &k);
            return;
        }
        break;
    case BK_SCRIPT_MULTISIG: {
        /* Core: MULTISIG -> multi(m, keys...) when every key infers. */
        int ok = 1;
        for (unsigned i = 0; i < sol->n; i++)
            if (!non_hybrid(sol->keys[i])) ok = 0;
        if (!ok) break;
        char num[8];
        size_t nl = 0;
        if (sol->m >= 10) num[nl++] = (char)('0' + sol->m / 10);
        num[nl++] = (char)('0' + sol->m % 10);
        emit(w, &k, "multi(", 6);
        emit(w, &k, num, nl);
        for (unsigned i = 0; i < sol->n; i++) {
            emit(w, &k, ",", 1);
            emit_hex(w, &k, sol->keys[i], sol->key_len[i]);
        }
        emit(w, &k, ")", 1);
        emit_checksum(w, &k);
        return;
    }
    case BK_SCRIPT_WITNESS_V1_TAPROOT:
        /* Core: rawtr(x) when the x-only key is fully valid, else addr(). */
        if (info->taproot_valid) {
            emit(w, &k, "rawtr(", 6);
            emit_hex(w, &k, sol->data, 32);
            emit(w, &k, ")", 1);
            emit_checksum(w, &k);
            return;
        }
        break;
    default:
        break;
    }
    /* Core: ExtractDestination + round trip -> addr(); else raw(). The
     * round trip always holds for the types that have an address. */
    if (info->address_len) {
        emit(w, &k, "addr(", 5);
        emit(w, &k, info->address, info->address_len);
    } else {
        emit(w, &k, "raw(", 4);
        emit_hex(w, &k, s, n);
    }
    emit(w, &k, ")", 1);
    emit_checksum(w, &k);
}

bk_status bk_script_info_get(const uint8_t *s, size_t n, bk_network net, bk_script_info *info)
{
    const bk_network_params *p = bk_network_get(net);
    if (!p || !info) return BK_ERR_ARG;
    bk_script_solve(s, n, &info->sol);
    info->address_len = bk_script_address_encode(&info->sol, p, info->address);
    info->taproot_valid =
        info->sol.type == BK_SCRIPT_WITNESS_V1_TAPROOT && bk_script_xonly_valid(info->sol.data);
    return BK_OK;
}

bk_status bk_script_descriptor(bk_writer *w, const uint8_t *s, size_t n, bk_network net)
{
    bk_script_info info;
    bk_status st = bk_script_info_get(s, n, net, &info);
    if (st != BK_OK) return st;
    bk_script_info_descriptor(w, s, n, &info);
    return bk_writer_status(w);
}
