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
 *  - desc_gen: PolyMod's generator multiples, indexed by the top 5 bits.
 *  - desc_gen4_hi: four PolyMod steps at once (PolyMod is linear over
 *    GF(2)): the 20 bits shifted out of the 40-bit state select the
 *    combined generator multiple, split into two independent 10-bit lookups
 *    so the dependency chain per four symbols is one load deep.
 *    desc_gen4_hi[x] = four zero-input steps from state x << 30. The low 10
 *    bits' contribution, four steps from x << 20, is desc_gen8[3][x] (eight
 *    steps from x shift it to x << 20 before any reduction), so that table
 *    serves both.
 *  - desc_gen8: eight steps at once: all 40 state bits are shifted out, so
 *    the result is four independent 10-bit lookups (desc_gen8[k][x] = eight
 *    zero-input steps from state x << (30 - 10 k)); two triples per step
 *    halve the checksum's dependency chain again. */
#include "descriptor_tables_generated.inc"

#define SYM_BAD 0xc0000000u

static const char checksum_charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static inline uint64_t polymod(uint64_t c, unsigned val)
{
    return ((c & 0x7ffffffffull) << 5) ^ val ^ desc_gen[c >> 35];
}

/* Eight steps with symbols v (8 x 5 bits, first symbol highest). */
static inline uint64_t polymod8(uint64_t c, uint64_t v)
{
    return v ^ desc_gen8[0][c >> 30] ^ desc_gen8[1][(c >> 20) & 1023] ^ desc_gen8[2][(c >> 10) & 1023] ^
           desc_gen8[3][c & 1023];
}

/* Four steps with symbols v (v1 << 15 | v2 << 10 | v3 << 5 | v4). */
static inline uint64_t polymod4(uint64_t c, uint64_t v)
{
    return ((c & 0xfffffull) << 20) ^ v ^ desc_gen4_hi[c >> 30] ^ desc_gen8[3][(c >> 20) & 1023];
}

/* Core groups characters by three: the three low-5-bit symbols, then one
 * symbol for their groups (cls = 9 g(a) + 3 g(b) + g(c)). */
static inline uint64_t polymod_triple(uint64_t c, unsigned a, unsigned b, unsigned d)
{
    uint64_t v = ((uint64_t)(a & 31) << 15) | ((b & 31) << 10) | ((d & 31) << 5) |
                 ((a >> 5) * 9 + (b >> 5) * 3 + (d >> 5));
    return polymod4(c, v);
}

typedef struct dchk {
    uint64_t c;
    unsigned pend;      /* characters waiting for their triple (0..2) */
    uint8_t pos[2];
} dchk;

static void chk_init(dchk *k)
{
    k->c = 1;
    k->pend = 0;
}

static inline int char_pos(char ch)
{
    unsigned char u = (unsigned char)ch;
    return u < 128 ? input_pos[u] : -1;
}

/* Feed characters; returns the index of the first character outside the
 * charset, or n when all are valid. */
static size_t chk_feed(dchk *k, const char *s, size_t n)
{
    size_t i = 0;
    uint64_t c = k->c;
    /* Complete a pending triple first. */
    while (k->pend && i < n) {
        int p = char_pos(s[i]);
        if (p < 0) goto bad;
        if (k->pend == 2) {
            c = polymod_triple(c, k->pos[0], k->pos[1], (unsigned)p);
            k->pend = 0;
        } else {
            k->pos[k->pend++] = (uint8_t)p;
        }
        i++;
    }
    /* Two triples (eight symbols) per step while all six are valid. */
    for (; i + 6 <= n; i += 6) {
        uint32_t v = sym_a[(unsigned char)s[i]] + sym_b[(unsigned char)s[i + 1]] + sym_d[(unsigned char)s[i + 2]];
        uint32_t u = sym_a[(unsigned char)s[i + 3]] + sym_b[(unsigned char)s[i + 4]] + sym_d[(unsigned char)s[i + 5]];
        if ((v | u) & SYM_BAD) break;
        c = polymod8(c, ((uint64_t)v << 20) | u);
    }
    for (; i + 3 <= n; i += 3) {
        uint32_t v = sym_a[(unsigned char)s[i]] + sym_b[(unsigned char)s[i + 1]] + sym_d[(unsigned char)s[i + 2]];
        if (!(v & SYM_BAD)) {
            c = polymod4(c, v);
            continue;
        }
        /* One of the three is outside the charset: keep the valid ones
         * before it pending and report its index. */
        int a = char_pos(s[i]), b = char_pos(s[i + 1]);
        if (a >= 0) {
            k->pos[k->pend++] = (uint8_t)a;
            i++;
            if (b >= 0) {
                k->pos[k->pend++] = (uint8_t)b;
                i++;
            }
        }
        goto bad;
    }
    for (; i < n; i++) {
        int p = char_pos(s[i]);
        if (p < 0) goto bad;
        k->pos[k->pend++] = (uint8_t)p;
    }
    k->c = c;
    return n;
bad:
    k->c = c;
    return i;
}

static void chk_final(const dchk *k, char out[8])
{
    uint64_t c = k->c;
    if (k->pend) {
        unsigned cls = 0;
        for (unsigned j = 0; j < k->pend; j++) {
            c = polymod(c, k->pos[j] & 31u);
            cls = cls * 3 + (k->pos[j] >> 5);
        }
        c = polymod(c, cls);
    }
    c = polymod8(c, 0); /* eight zero symbols */
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

bk_status bk_script_descriptor(bk_writer *w, const uint8_t *s, size_t n, bk_network net)
{
    bk_script_info info;
    bk_status st = bk_script_info_get(s, n, net, &info);
    if (st != BK_OK) return st;
    bk_script_info_descriptor(w, s, n, &info);
    return bk_writer_status(w);
}
