/* Addresses: Base58Check (src/base58.cpp) and bech32/bech32m
 * (src/bech32.cpp, BIP173/BIP350), chosen as Core's ExtractDestination +
 * EncodeDestination (src/addresstype.cpp, src/key_io.cpp) choose them. */
#include "script_internal.h"

#include <blockkit/sha256.h>

#include <string.h>

static const char b58_digits[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
static const char b32_charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

/* ---- Base58Check ---- */

/* Base58 of a 25-byte payload (prefix + hash + checksum) into out; returns
 * the length (at most 35). The number is held in 32-bit limbs and divided by
 * 58^5 per step, so each step yields five digits. */
size_t bk_base58_encode25(char *out, const uint8_t in[25])
{
    enum { LIMBS = 7 };
    const uint32_t D = 656356768u; /* 58^5 */
    uint32_t limb[LIMBS];
    size_t zeros = 0;
    while (zeros < 25 && in[zeros] == 0) zeros++;
    /* 200 bits big-endian: the first limb holds 8 bits, the rest 32 each. */
    limb[0] = in[0];
    for (int i = 1; i < LIMBS; i++) {
        const uint8_t *p = in + 1 + 4 * (i - 1);
        limb[i] = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
    }
    char digits[40];
    size_t nd = 0;
    int first = 0;
    while (first < LIMBS && limb[first] == 0) first++;
    while (first < LIMBS) {
        uint64_t rem = 0;
        for (int i = first; i < LIMBS; i++) {
            uint64_t cur = (rem << 32) | limb[i];
            limb[i] = (uint32_t)(cur / D);
            rem = cur % D;
        }
        while (first < LIMBS && limb[first] == 0) first++;
        uint32_t r = (uint32_t)rem;
        for (int k = 0; k < 5; k++) {
            digits[nd++] = b58_digits[r % 58];
            r /= 58;
        }
    }
    /* digits is least significant first; drop the high zero digits ('1'). */
    while (nd > 0 && digits[nd - 1] == '1') nd--;
    size_t o = 0;
    for (size_t i = 0; i < zeros; i++) out[o++] = '1';
    while (nd) out[o++] = digits[--nd];
    return o;
}

static size_t base58check_encode21(char *out, uint8_t prefix, const uint8_t hash[20])
{
    uint8_t buf[25], sum[32];
    buf[0] = prefix;
    memcpy(buf + 1, hash, 20);
    bk_sha256d(sum, buf, 21);
    memcpy(buf + 21, sum, 4);
    size_t n = bk_base58_encode25(out, buf);
    out[n] = 0;
    return n;
}

/* Decode base58 text into out (big-endian, leading '1' = zero byte).
 * Returns the byte count or (size_t)-1 with *bad the offending position. */
static size_t base58_decode(const char *s, uint8_t *out, size_t cap, size_t *bad)
{
    size_t zeros = 0, len = 0; /* len: bytes of the big number, stored at the end of out */
    size_t i = 0;
    while (s[i] == '1') {
        zeros++;
        i++;
    }
    uint8_t num[64];
    size_t nlen = 0; /* little-endian bytes */
    for (; s[i]; i++) {
        const char *p = memchr(b58_digits, s[i], 58);
        if (!p || s[i] == 0) {
            *bad = i;
            return (size_t)-1;
        }
        uint32_t carry = (uint32_t)(p - b58_digits);
        for (size_t k = 0; k < nlen; k++) {
            carry += (uint32_t)num[k] * 58;
            num[k] = (uint8_t)carry;
            carry >>= 8;
        }
        while (carry) {
            if (nlen == sizeof num) {
                *bad = i;
                return (size_t)-1;
            }
            num[nlen++] = (uint8_t)carry;
            carry >>= 8;
        }
    }
    len = zeros + nlen;
    if (len > cap) {
        *bad = i;
        return (size_t)-1;
    }
    memset(out, 0, zeros);
    for (size_t k = 0; k < nlen; k++) out[zeros + k] = num[nlen - 1 - k];
    return len;
}

/* ---- bech32 / bech32m ---- */

#define BECH32_CONST 1u
#define BECH32M_CONST 0x2bc830a3u

/* Generator multiples for the top 5 bits of the 30-bit state. */
static const uint32_t b32_gen[32] = {
    0x00000000u, 0x3b6a57b2u, 0x26508e6du, 0x1d3ad9dfu,
    0x1ea119fau, 0x25cb4e48u, 0x38f19797u, 0x039bc025u,
    0x3d4233ddu, 0x0628646fu, 0x1b12bdb0u, 0x2078ea02u,
    0x23e32a27u, 0x18897d95u, 0x05b3a44au, 0x3ed9f3f8u,
    0x2a1462b3u, 0x117e3501u, 0x0c44ecdeu, 0x372ebb6cu,
    0x34b57b49u, 0x0fdf2cfbu, 0x12e5f524u, 0x298fa296u,
    0x1756516eu, 0x2c3c06dcu, 0x3106df03u, 0x0a6c88b1u,
    0x09f74894u, 0x329d1f26u, 0x2fa7c6f9u, 0x14cd914bu,
};

static inline uint32_t b32_step(uint32_t c, uint32_t v)
{
    return ((c & 0x1ffffffu) << 5) ^ v ^ b32_gen[c >> 25];
}

/* Polymod state after hrp_expand(hrp) (BIP173). */
static uint32_t b32_hrp_state(const char *hrp, size_t n)
{
    uint32_t c = 1;
    for (size_t i = 0; i < n; i++) c = b32_step(c, (uint8_t)hrp[i] >> 5);
    c = b32_step(c, 0);
    for (size_t i = 0; i < n; i++) c = b32_step(c, (uint8_t)hrp[i] & 31);
    return c;
}

/* Segwit address: hrp "1" [version] program(8->5 bits, padded) checksum. */
static size_t bech32_encode_segwit(char *out, const char *hrp, int version, const uint8_t *prog,
                                   size_t plen)
{
    size_t hl = strlen(hrp);
    uint32_t c = b32_hrp_state(hrp, hl);
    memcpy(out, hrp, hl);
    size_t o = hl;
    out[o++] = '1';
    out[o++] = b32_charset[version];
    c = b32_step(c, (uint32_t)version);
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < plen; i++) {
        acc = (acc << 8) | prog[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            uint32_t v = (acc >> bits) & 31;
            c = b32_step(c, v);
            out[o++] = b32_charset[v];
        }
    }
    if (bits) {
        uint32_t v = (acc << (5 - bits)) & 31;
        c = b32_step(c, v);
        out[o++] = b32_charset[v];
    }
    for (int i = 0; i < 6; i++) c = b32_step(c, 0);
    c ^= version == 0 ? BECH32_CONST : BECH32M_CONST;
    for (int i = 0; i < 6; i++) out[o++] = b32_charset[(c >> (5 * (5 - i))) & 31];
    out[o] = 0;
    return o;
}

/* ---- scripts -> addresses ---- */

size_t bk_script_address_encode(const bk_script_solution *sol, const bk_network_params *p,
                                char out[BK_SCRIPT_ADDRESS_MAX])
{
    switch (sol->type) {
    case BK_SCRIPT_PUBKEYHASH:
        return base58check_encode21(out, p->p2pkh_prefix, sol->data);
    case BK_SCRIPT_SCRIPTHASH:
        return base58check_encode21(out, p->p2sh_prefix, sol->data);
    case BK_SCRIPT_WITNESS_V0_KEYHASH:
    case BK_SCRIPT_WITNESS_V0_SCRIPTHASH:
    case BK_SCRIPT_WITNESS_V1_TAPROOT:
    case BK_SCRIPT_WITNESS_UNKNOWN:
    case BK_SCRIPT_ANCHOR: /* Core: PayToAnchor = WitnessUnknown{1, 4e73} */
        return bech32_encode_segwit(out, p->hrp, sol->witness_version, sol->data, sol->data_len);
    default:
        /* Core: ExtractDestination returns false for pubkey (v27+),
         * multisig, nulldata and nonstandard. */
        out[0] = 0;
        return 0;
    }
}

bk_status bk_script_address(const uint8_t *s, size_t n, bk_network net, char *out, size_t cap,
                            size_t *len_out)
{
    const bk_network_params *p = bk_network_get(net);
    if (!len_out) return BK_ERR_ARG;
    *len_out = 0;
    if (!p || (!out && cap)) return BK_ERR_ARG;
    bk_script_solution sol;
    bk_script_solve(s, n, &sol);
    char tmp[BK_SCRIPT_ADDRESS_MAX];
    size_t len = bk_script_address_encode(&sol, p, tmp);
    if (len == 0) {
        if (cap) out[0] = 0;
        return BK_OK;
    }
    if (cap < len + 1) return BK_ERR_BUFFER;
    memcpy(out, tmp, len + 1);
    *len_out = len;
    return BK_OK;
}

/* ---- addresses -> scripts ---- */

int bk_bech32_decode(const char *addr, size_t alen, char hrp[91], uint8_t data[90], size_t *dlen_out,
                     bk_error *err)
{
    /* Core: bech32::Decode / BIP173: printable ASCII, no mixed case, <= 90. */
    if (alen > 90) {
        bk_error_set(err, BK_ERR_INVALID, 90, "bech32 string too long (%zu > 90)", alen);
        return 0;
    }
    int lower = 0, upper = 0;
    for (size_t i = 0; i < alen; i++) {
        unsigned char ch = (unsigned char)addr[i];
        if (ch < 33 || ch > 126) {
            bk_error_set(err, BK_ERR_INVALID, i, "invalid character in bech32 string");
            return 0;
        }
        if (ch >= 'a' && ch <= 'z') lower = 1;
        if (ch >= 'A' && ch <= 'Z') upper = 1;
    }
    if (lower && upper) {
        bk_error_set(err, BK_ERR_INVALID, 0, "mixed case in bech32 string");
        return 0;
    }
    size_t hl = alen;
    for (size_t i = 0; i < alen; i++)
        if (addr[i] == '1') hl = i;
    if (hl == alen) {
        bk_error_set(err, BK_ERR_INVALID, 0, "missing bech32 separator '1'");
        return 0;
    }
    size_t dl = alen - hl - 1;
    if (hl == 0) {
        bk_error_set(err, BK_ERR_INVALID, 0, "empty bech32 human-readable part");
        return 0;
    }
    if (dl < 6) {
        bk_error_set(err, BK_ERR_INVALID, hl, "bech32 data part shorter than the checksum");
        return 0;
    }
    for (size_t i = 0; i < hl; i++) {
        char ch = addr[i];
        hrp[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch + 32) : ch;
    }
    hrp[hl] = 0;
    for (size_t i = 0; i < dl; i++) {
        char ch = addr[hl + 1 + i];
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch + 32);
        const char *q = memchr(b32_charset, ch, 32);
        if (!q) {
            bk_error_set(err, BK_ERR_INVALID, hl + 1 + i, "invalid bech32 data character");
            return 0;
        }
        data[i] = (uint8_t)(q - b32_charset);
    }
    uint32_t c = b32_hrp_state(hrp, hl);
    for (size_t i = 0; i < dl; i++) c = b32_step(c, data[i]);
    if (c != BECH32_CONST && c != BECH32M_CONST) {
        bk_error_set(err, BK_ERR_INVALID, alen - 6, "bech32 checksum mismatch");
        return 0;
    }
    *dlen_out = dl - 6;
    return c == BECH32_CONST ? 1 : 2;
}

static bk_status decode_bech32(const char *addr, size_t alen, const bk_network_params *p,
                               uint8_t *script, size_t cap, size_t *len_out, bk_error *err)
{
    char hrp[91];
    uint8_t data[90];
    size_t nd;
    int enc = bk_bech32_decode(addr, alen, hrp, data, &nd, err);
    if (!enc) return BK_ERR_INVALID;
    int is_m = enc == 2;
    size_t hl = strlen(hrp);
    if (strcmp(hrp, p->hrp) != 0)
        return bk_error_set(err, BK_ERR_INVALID, 0, "human-readable part '%s' is not the network's '%s'", hrp, p->hrp);
    if (nd < 1) return bk_error_set(err, BK_ERR_INVALID, hl + 1, "empty witness data");
    unsigned version = data[0];
    if (version > 16) return bk_error_set(err, BK_ERR_INVALID, hl + 1, "witness version %u over 16", version);
    /* BIP350: v0 uses bech32, v1+ bech32m. */
    if (version == 0 && is_m) return bk_error_set(err, BK_ERR_INVALID, alen - 6, "witness v0 address with a bech32m checksum");
    if (version != 0 && !is_m) return bk_error_set(err, BK_ERR_INVALID, alen - 6, "witness v%u address with a bech32 checksum", version);
    /* 5 -> 8 bits without padding (Core: ConvertBits<5, 8, false>). */
    uint8_t prog[64];
    size_t plen = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 1; i < nd; i++) {
        acc = (acc << 5) | data[i];
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            if (plen == sizeof prog) return bk_error_set(err, BK_ERR_INVALID, hl + 1 + i, "witness program too long");
            prog[plen++] = (uint8_t)(acc >> bits);
        }
    }
    if (bits >= 5) return bk_error_set(err, BK_ERR_INVALID, hl + nd, "more than 4 bits of bech32 padding");
    if ((acc << (8 - bits)) & 0xff) return bk_error_set(err, BK_ERR_INVALID, hl + nd, "non-zero bech32 padding");
    if (plen < 2 || plen > 40)
        return bk_error_set(err, BK_ERR_INVALID, hl + 1, "witness program of %zu bytes (2..40)", plen);
    if (version == 0 && plen != 20 && plen != 32)
        return bk_error_set(err, BK_ERR_INVALID, hl + 1, "witness v0 program of %zu bytes (20 or 32)", plen);
    if (cap < plen + 2) return bk_error_set(err, BK_ERR_BUFFER, 0, "script buffer too small (%zu < %zu)", cap, plen + 2);
    script[0] = version ? (uint8_t)(0x50 + version) : 0;
    script[1] = (uint8_t)plen;
    memcpy(script + 2, prog, plen);
    *len_out = plen + 2;
    return BK_OK;
}

/* addr[0..n) equals hrp ignoring ASCII case. */
static int hrp_equal(const char *addr, const char *hrp, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = addr[i];
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch + 32);
        if (ch != hrp[i]) return 0;
    }
    return 1;
}

bk_status bk_address_decode(const char *addr, bk_network net, uint8_t *script, size_t cap,
                            size_t *len_out, bk_error *err)
{
    const bk_network_params *p = bk_network_get(net);
    if (!addr || !len_out || !p || (!script && cap))
        return bk_error_set(err, BK_ERR_ARG, 0, "invalid argument");
    *len_out = 0;
    size_t alen = strlen(addr);
    /* Core: DecodeDestination tries Base58Check first, then bech32. */
    uint8_t raw[64];
    size_t bad = 0;
    size_t rl = alen <= 64 ? base58_decode(addr, raw, sizeof raw, &bad) : (size_t)-1;
    if (rl == 25) {
        uint8_t sum[32];
        bk_sha256d(sum, raw, 21);
        if (memcmp(sum, raw + 21, 4) == 0) {
            if (raw[0] == p->p2pkh_prefix) {
                if (cap < 25) return bk_error_set(err, BK_ERR_BUFFER, 0, "script buffer too small (%zu < 25)", cap);
                script[0] = 0x76;
                script[1] = 0xa9;
                script[2] = 20;
                memcpy(script + 3, raw + 1, 20);
                script[23] = 0x88;
                script[24] = 0xac;
                *len_out = 25;
                return BK_OK;
            }
            if (raw[0] == p->p2sh_prefix) {
                if (cap < 23) return bk_error_set(err, BK_ERR_BUFFER, 0, "script buffer too small (%zu < 23)", cap);
                script[0] = 0xa9;
                script[1] = 20;
                memcpy(script + 2, raw + 1, 20);
                script[22] = 0x87;
                *len_out = 23;
                return BK_OK;
            }
            return bk_error_set(err, BK_ERR_INVALID, 0, "Base58 version byte 0x%02x is not the network's", raw[0]);
        }
    }
    /* Not valid Base58Check. Report bech32 faults when the string is a
     * valid bech32 string or carries the network's hrp, Base58 faults
     * otherwise. */
    char hrp[91];
    uint8_t data[90];
    size_t nd;
    const char *sep = strrchr(addr, '1');
    int bech32_shaped = bk_bech32_decode(addr, alen, hrp, data, &nd, NULL) != 0 ||
                        (sep && sep != addr && strlen(p->hrp) == (size_t)(sep - addr) &&
                         hrp_equal(addr, p->hrp, (size_t)(sep - addr)));
    if (!bech32_shaped) {
        if (rl == (size_t)-1) return bk_error_set(err, BK_ERR_INVALID, bad, "invalid Base58 character or length");
        if (rl != 25) return bk_error_set(err, BK_ERR_INVALID, 0, "Base58 payload of %zu bytes (want 25)", rl);
        return bk_error_set(err, BK_ERR_INVALID, alen - 1, "Base58Check checksum mismatch");
    }
    return decode_bech32(addr, alen, p, script, cap, len_out, err);
}
