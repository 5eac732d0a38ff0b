/* Fuzz the table-driven script encoders against plain re-statements of
 * Core's algorithms (symbol at a time, byte at a time):
 *  - bk_descriptor_checksum of any text: Core's DescriptorChecksum
 *    (src/script/descriptor.cpp: PolyMod per symbol, classes per triple),
 *    including the offset reported for the first character outside the
 *    charset;
 *  - bk_base58_encode25 of any 25 bytes: Core's EncodeBase58 (src/base58.cpp);
 *  - the bech32/bech32m address of any witness program (version 1..16,
 *    2..40 bytes; v0 for 20 and 32): BIP173's polymod and 8-to-5 conversion.
 * The first input byte picks the check. */
#include <blockkit/script.h>

#include "../src/bitcoin/script_internal.h" /* bk_base58_encode25 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char input_charset[] = "0123456789()[],'/*abcdefgh@:$%{}"
                                    "IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
                                    "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
static const char b32[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint64_t desc_polymod(uint64_t c, unsigned val)
{
    uint8_t c0 = (uint8_t)(c >> 35);
    c = ((c & 0x7ffffffffull) << 5) ^ val;
    if (c0 & 1) c ^= 0xf5dee51989ull;
    if (c0 & 2) c ^= 0xa9fdca3312ull;
    if (c0 & 4) c ^= 0x1bab10e32dull;
    if (c0 & 8) c ^= 0x3706b1677aull;
    if (c0 & 16) c ^= 0x644d626ffdull;
    return c;
}

/* Core's DescriptorChecksum; returns the index of the first character
 * outside the charset, or len with out filled. */
static size_t ref_desc_checksum(const uint8_t *s, size_t len, char out[9])
{
    uint64_t c = 1;
    unsigned cls = 0, clscount = 0;
    for (size_t i = 0; i < len; i++) {
        const char *p = s[i] ? memchr(input_charset, s[i], sizeof input_charset - 1) : NULL;
        if (!p) return i;
        unsigned pos = (unsigned)(p - input_charset);
        c = desc_polymod(c, pos & 31);
        cls = cls * 3 + (pos >> 5);
        if (++clscount == 3) {
            c = desc_polymod(c, cls);
            cls = 0;
            clscount = 0;
        }
    }
    if (clscount > 0) c = desc_polymod(c, cls);
    for (int j = 0; j < 8; j++) c = desc_polymod(c, 0);
    c ^= 1;
    for (int j = 0; j < 8; j++) out[j] = b32[(c >> (5 * (7 - j))) & 31];
    out[8] = 0;
    return len;
}

static size_t ref_base58(char *out, const uint8_t *in, size_t n)
{
    static const char alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    size_t zeros = 0;
    while (zeros < n && in[zeros] == 0) zeros++;
    uint8_t b58[64] = {0};
    size_t length = 0;
    for (size_t i = zeros; i < n; i++) {
        int carry = in[i];
        size_t k = 0;
        for (size_t j = sizeof b58; (carry || k < length) && j-- > 0; k++) {
            carry += 256 * b58[j];
            b58[j] = (uint8_t)(carry % 58);
            carry /= 58;
        }
        length = k;
    }
    size_t it = sizeof b58 - length, o = 0;
    while (it < sizeof b58 && b58[it] == 0) it++;
    for (size_t i = 0; i < zeros; i++) out[o++] = '1';
    for (; it < sizeof b58; it++) out[o++] = alphabet[b58[it]];
    out[o] = 0;
    return o;
}

static uint32_t b32_polymod(uint32_t c, unsigned v)
{
    static const uint32_t gen[5] = {0x3b6a57b2u, 0x26508e6du, 0x1ea119fau, 0x3d4233ddu, 0x2a1462b3u};
    uint32_t top = c >> 25;
    c = ((c & 0x1ffffffu) << 5) ^ v;
    for (int i = 0; i < 5; i++)
        if (top >> i & 1) c ^= gen[i];
    return c;
}

static void ref_segwit(char *out, const char *hrp, unsigned version, const uint8_t *prog, size_t plen)
{
    uint8_t d[80];
    size_t nd = 0;
    d[nd++] = (uint8_t)version;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < plen; i++) {
        acc = (acc << 8) | prog[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            d[nd++] = (uint8_t)((acc >> bits) & 31);
        }
    }
    if (bits) d[nd++] = (uint8_t)((acc << (5 - bits)) & 31);
    size_t hl = strlen(hrp);
    uint32_t c = 1;
    for (size_t i = 0; i < hl; i++) c = b32_polymod(c, (uint8_t)hrp[i] >> 5);
    c = b32_polymod(c, 0);
    for (size_t i = 0; i < hl; i++) c = b32_polymod(c, (uint8_t)hrp[i] & 31);
    for (size_t i = 0; i < nd; i++) c = b32_polymod(c, d[i]);
    for (int i = 0; i < 6; i++) c = b32_polymod(c, 0);
    c ^= version == 0 ? 1u : 0x2bc830a3u;
    size_t o = 0;
    memcpy(out, hrp, hl);
    o = hl;
    out[o++] = '1';
    for (size_t i = 0; i < nd; i++) out[o++] = b32[d[i]];
    for (int i = 0; i < 6; i++) out[o++] = b32[(c >> (5 * (5 - i))) & 31];
    out[o] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const uint8_t *s = data + 1;
    size_t n = size - 1;
    switch (data[0] % 3) {
    case 0: {
        char got[9], want[9];
        bk_error err;
        size_t bad = ref_desc_checksum(s, n, want);
        bk_status st = bk_descriptor_checksum((const char *)s, n, got, &err);
        if (bad == n) {
            if (st != BK_OK || memcmp(got, want, 9) != 0) abort();
        } else if (st != BK_ERR_INVALID || err.offset != bad) {
            abort();
        }
        break;
    }
    case 1: {
        if (n < 25) return 0;
        char got[40], want[64];
        size_t gl = bk_base58_encode25(got, s);
        size_t wl = ref_base58(want, s, 25);
        if (gl != wl || memcmp(got, want, wl) != 0) abort();
        break;
    }
    default: {
        /* version, network, then the program (2..40 bytes; v0: 20 or 32). */
        if (n < 4) return 0;
        unsigned version = s[0] % 17;
        bk_network net = (bk_network)(s[1] % BK_NET_COUNT_);
        const uint8_t *prog = s + 2;
        size_t plen = n - 2 > 40 ? 40 : n - 2;
        if (version == 0) plen = plen >= 32 ? 32 : plen >= 20 ? 20 : 0;
        if (plen < 2) return 0;
        uint8_t script[42];
        script[0] = version ? (uint8_t)(0x50 + version) : 0;
        script[1] = (uint8_t)plen;
        memcpy(script + 2, prog, plen);
        char got[BK_SCRIPT_ADDRESS_MAX], want[128];
        size_t len = 0;
        if (bk_script_address(script, plen + 2, net, got, sizeof got, &len) != BK_OK || len == 0) abort();
        ref_segwit(want, bk_network_get(net)->hrp, version, prog, plen);
        if (strcmp(got, want) != 0) abort();
        break;
    }
    }
    return 0;
}
