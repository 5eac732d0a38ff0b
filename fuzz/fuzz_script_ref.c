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
#include "../tests/script_ref.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char b32[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

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
