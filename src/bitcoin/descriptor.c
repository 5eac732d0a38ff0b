/* Descriptor inference as Core's block JSON prints it:
 * InferDescriptor(script, DUMMY_SIGNING_PROVIDER)->ToString()
 * (src/script/descriptor.cpp InferScript, context TOP, no keys or scripts
 * known), plus DescriptorChecksum.
 *
 * Layering (see script_internal.h): descriptors sit above script info. The
 * descriptor text is rendered from a bk_script_info (solution, address,
 * taproot validity) that script_info.c computed; this file calls down into
 * script_info.c (bk_script_info_get) and script.c (bk_script_hex) only,
 * never into JSON. */
#include "script_internal.h"

#include <string.h>

/* ---- DescriptorChecksum ---- */

/* The constant tables (generated: scripts/gen-descriptor-tables.py, checked
 * by ctest descriptor_tables; never edit the .inc by hand):
 *  - input_pos[c]: the position of ASCII c in Core's INPUT_CHARSET (three
 *    groups of 32: digits, brackets and hex-ish letters first), -1 if absent.
 *  - sym_a/sym_b/sym_d: a triple's four checksum symbols as one sum of
 *    per-position entries: sym_a[x] = pos(x) & 31 << 15 | 9 g(x),
 *    sym_b[x] = pos & 31 << 10 | 3 g, sym_d[x] = pos & 31 << 5 | g
 *    (g = pos >> 5; the class sum stays below 32, so the fields never carry
 *    into each other). Characters outside the charset map to 1 << 30, which
 *    survives any sum of three in bits 30-31 (SYM_BAD).
 *  - desc_g4_hi / desc_g4_lo, desc_g8, desc_g16: PolyMod is linear over
 *    GF(2), so k steps with symbols v (k x 5 bits, first symbol highest)
 *    are G_k(c) ^ v, where G_k is k zero-input steps: for k = 8 and 16 every
 *    bit of the 40-bit state is shifted out and G_k(c) is the XOR of five
 *    independent lookups, one per byte of c (desc_g8[j][x] = G_8(x << (32 -
 *    8 j))); for k = 4 the 20 bits shifted out select three (the low 20
 *    bits move up unchanged); desc_g2_* and desc_g3_* do two and three
 *    steps (a trailing one or two characters: their symbols and class).
 *  - chk_after_*: the state after the first whole triples of each
 *    descriptor prefix ("add" of "addr(", "rawtr(", ...), so rendering
 *    starts there.
 *
 * The chain: a triple of characters is four symbols (sym_a + sym_b + sym_d:
 * three low-5-bit symbols, then one for the three classes), two triples
 * eight. Twelve characters (two groups of eight symbols va, vb) per step:
 * c' = G_16(c) ^ G_8(va) ^ vb, where G_8(va) does not depend on c, so the
 * serial chain is one round of five parallel loads per twelve characters. */
#include "descriptor_tables_generated.inc"

#define SYM_BAD 0xc0000000u
#define SYM_BITS 0xfffffu

static const char checksum_charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static inline uint64_t g8(uint64_t c)
{
    return desc_g8[0][(c >> 32) & 255] ^ desc_g8[1][(c >> 24) & 255] ^ desc_g8[2][(c >> 16) & 255] ^
           desc_g8[3][(c >> 8) & 255] ^ desc_g8[4][c & 255];
}

static inline uint64_t g16(uint64_t c)
{
    return desc_g16[0][(c >> 32) & 255] ^ desc_g16[1][(c >> 24) & 255] ^ desc_g16[2][(c >> 16) & 255] ^
           desc_g16[3][(c >> 8) & 255] ^ desc_g16[4][c & 255];
}

/* Four steps with symbols v (v1 << 15 | v2 << 10 | v3 << 5 | v4). */
static inline uint64_t polymod4(uint64_t c, uint64_t v)
{
    return ((c & 0xfffffull) << 20) ^ v ^ desc_g4_hi[0][(c >> 32) & 255] ^ desc_g4_hi[1][(c >> 24) & 255] ^
           desc_g4_lo[(c >> 20) & 15];
}

/* The four symbols of the triple at s (SYM_BAD bits set when one of the
 * three is outside the charset). */
static inline uint32_t triple(const unsigned char *s)
{
    return sym_a[s[0]] + sym_b[s[1]] + sym_d[s[2]];
}

/* The checksum state after s[0..n) from state c at a triple boundary; ORs
 * SYM_BAD into *bad when a character is outside the charset (the state is
 * then meaningless but every index stays in range). */
static uint64_t chk_run(uint64_t c, const unsigned char *s, size_t n, uint32_t *bad)
{
    uint32_t acc = 0;
    for (; n >= 12; s += 12, n -= 12) {
        uint32_t a0 = triple(s), a1 = triple(s + 3), b0 = triple(s + 6), b1 = triple(s + 9);
        acc |= a0 | a1 | b0 | b1;
        uint64_t va = ((uint64_t)(a0 & SYM_BITS) << 20) | (a1 & SYM_BITS);
        uint64_t vb = ((uint64_t)(b0 & SYM_BITS) << 20) | (b1 & SYM_BITS);
        c = g16(c) ^ g8(va) ^ vb;
    }
    if (n >= 6) {
        uint32_t a0 = triple(s), a1 = triple(s + 3);
        acc |= a0 | a1;
        c = g8(c) ^ (((uint64_t)(a0 & SYM_BITS) << 20) | (a1 & SYM_BITS));
        s += 6;
        n -= 6;
    }
    if (n >= 3) {
        uint32_t a0 = triple(s);
        acc |= a0;
        c = polymod4(c, a0 & SYM_BITS);
        s += 3;
        n -= 3;
    }
    if (n) {
        /* One or two characters left: their symbols, then their classes, as
         * one step of two or three symbols. */
        int p0 = s[0] < 128 ? input_pos[s[0]] : -1;
        int p1 = n == 2 ? (s[1] < 128 ? input_pos[s[1]] : -1) : 0;
        if (p0 < 0 || p1 < 0) {
            acc |= SYM_BAD;
            p0 = p1 = 0;
        }
        unsigned a = (unsigned)p0, b = (unsigned)p1;
        if (n == 1)
            c = ((c & 0x3fffffffull) << 10) ^ ((a & 31) << 5) ^ (a >> 5) ^ desc_g2_hi[(c >> 32) & 255] ^
                desc_g2_lo[(c >> 30) & 3];
        else
            c = ((c & 0x1ffffffull) << 15) ^ ((a & 31) << 10) ^ ((b & 31) << 5) ^ ((a >> 5) * 3 + (b >> 5)) ^
                desc_g3_hi[(c >> 32) & 255] ^ desc_g3_lo[(c >> 25) & 127];
    }
    *bad |= acc & SYM_BAD;
    return c;
}

/* The 8 checksum characters from the state after the text. */
static inline void chk_final(uint64_t c, char out[8])
{
    c = g8(c) ^ 1; /* eight zero symbols */
    for (int j = 0; j < 8; j++) out[j] = checksum_charset[(c >> (5 * (7 - j))) & 31];
}

bk_status bk_descriptor_checksum(const char *desc, size_t len, char out[9], bk_error *err)
{
    if ((!desc && len) || !out) return bk_error_set(err, BK_ERR_ARG, 0, "invalid argument");
    uint32_t bad = 0;
    uint64_t c = len ? chk_run(1, (const unsigned char *)desc, len, &bad) : 1;
    if (bad) {
        size_t i = 0;
        while (i < len && (unsigned char)desc[i] < 128 && input_pos[(unsigned char)desc[i]] >= 0) i++;
        out[0] = 0;
        return bk_error_set(err, BK_ERR_INVALID, i, "character 0x%02x is not in the descriptor charset",
                            (unsigned char)desc[i]);
    }
    chk_final(c, out);
    out[8] = 0;
    return BK_OK;
}

/* ---- InferDescriptor ---- */

/* Core: CPubKey::IsValidNonHybrid (size already checked by Solver). */
static int non_hybrid(const uint8_t *key)
{
    return key[0] == 2 || key[0] == 3 || key[0] == 4;
}

/* The descriptor text is written into the writer's space at o (len
 * characters, the first skip of them whole triples whose state is c0), then
 * its "#checksum" after it, then committed. Every character written is in
 * the charset (hex, address characters, "(),", digits). */
static void finish(bk_writer *w, uint8_t *o, size_t len, uint64_t c0, size_t skip)
{
    uint32_t bad = 0;
    uint64_t c = chk_run(c0, o + skip, len - skip, &bad);
    o[len] = '#';
    chk_final(c, (char *)o + len + 1);
    bk_writer_commit(w, len + 9);
}

void bk_script_info_descriptor(bk_writer *w, const uint8_t *s, size_t n, const bk_script_info *info)
{
    const bk_script_solution *sol = &info->sol;
    uint8_t *o;
    switch (sol->type) {
    case BK_SCRIPT_PUBKEY:
        /* Core: PUBKEY -> InferPubkey; hybrid keys fail and fall to raw(). */
        if (non_hybrid(sol->data)) {
            size_t len = 3 + 2 * sol->data_len + 1;
            if (!(o = bk_script_space(w, len + 9))) return;
            memcpy(o, "pk(", 3);
            bk_script_hex((char *)o + 3, sol->data, sol->data_len);
            o[len - 1] = ')';
            finish(w, o, len, chk_after_pk, 3);
            return;
        }
        break;
    case BK_SCRIPT_MULTISIG: {
        /* Core: MULTISIG -> multi(m, keys...) when every key infers. */
        int ok = 1;
        size_t len = 6 + 2 + 1; /* "multi(" m ")" */
        for (unsigned i = 0; i < sol->n; i++) {
            if (!non_hybrid(sol->keys[i])) ok = 0;
            len += 1 + 2 * (size_t)sol->key_len[i];
        }
        if (!ok) break;
        if (!(o = bk_script_space(w, len + 9))) return;
        memcpy(o, "multi(", 6);
        size_t l = 6;
        if (sol->m >= 10) o[l++] = (uint8_t)('0' + sol->m / 10);
        o[l++] = (uint8_t)('0' + sol->m % 10);
        for (unsigned i = 0; i < sol->n; i++) {
            o[l++] = ',';
            bk_script_hex((char *)o + l, sol->keys[i], sol->key_len[i]);
            l += 2 * (size_t)sol->key_len[i];
        }
        o[l++] = ')';
        finish(w, o, l, chk_after_multi, 6);
        return;
    }
    case BK_SCRIPT_WITNESS_V1_TAPROOT:
        /* Core: rawtr(x) when the x-only key is fully valid, else addr(). */
        if (info->taproot_valid) {
            if (!(o = bk_script_space(w, 71 + 9))) return;
            memcpy(o, "rawtr(", 6);
            bk_script_hex((char *)o + 6, sol->data, 32);
            o[70] = ')';
            finish(w, o, 71, chk_after_rawtr, 6);
            return;
        }
        break;
    default:
        break;
    }
    /* Core: ExtractDestination + round trip -> addr(); else raw(). The
     * round trip always holds for the types that have an address. */
    if (info->address_len) {
        size_t len = 5 + info->address_len + 1;
        if (!(o = bk_script_space(w, len + 9))) return;
        memcpy(o, "addr(", 5);
        memcpy(o + 5, info->address, info->address_len);
        o[len - 1] = ')';
        finish(w, o, len, chk_after_add, 3);
    } else {
        size_t len = 4 + 2 * n + 1;
        if (!(o = bk_script_space(w, len + 9))) return;
        memcpy(o, "raw(", 4);
        bk_script_hex((char *)o + 4, s, n);
        o[len - 1] = ')';
        finish(w, o, len, chk_after_raw, 3);
    }
}

bk_status bk_script_descriptor(bk_writer *w, const uint8_t *s, size_t n, bk_network net)
{
    bk_script_info info;
    bk_status st = bk_script_info_get(s, n, net, &info);
    if (st != BK_OK) return st;
    bk_script_info_descriptor(w, s, n, &info);
    return bk_writer_status(w);
}
