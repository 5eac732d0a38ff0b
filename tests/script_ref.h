/* Plain restatements of Core's script-text algorithms, one step at a time,
 * as the references the table-driven code in src/bitcoin is compared
 * against (tests/test_descriptor.c, tests/test_address.c and
 * fuzz/fuzz_script_ref.c share them). */
#ifndef BLOCKKIT_TESTS_SCRIPT_REF_H
#define BLOCKKIT_TESTS_SCRIPT_REF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Core's DescriptorChecksum (src/script/descriptor.cpp): INPUT_CHARSET and
 * PolyMod with its five generator constants. */
static const char ref_input_charset[] = "0123456789()[],'/*abcdefgh@:$%{}"
                                        "IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
                                        "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";

static inline uint64_t ref_desc_polymod(uint64_t c, unsigned val)
{
    unsigned c0 = (unsigned)(c >> 35);
    c = ((c & 0x7ffffffffull) << 5) ^ val;
    if (c0 & 1) c ^= 0xf5dee51989ull;
    if (c0 & 2) c ^= 0xa9fdca3312ull;
    if (c0 & 4) c ^= 0x1bab10e32dull;
    if (c0 & 8) c ^= 0x3706b1677aull;
    if (c0 & 16) c ^= 0x644d626ffdull;
    return c;
}

/* The checksum of s[0..len) into out (8 characters + NUL); returns the
 * index of the first character outside the charset (out untouched), or
 * len. */
static inline size_t ref_desc_checksum(const uint8_t *s, size_t len, char out[9])
{
    uint64_t c = 1;
    unsigned cls = 0, clscount = 0;
    for (size_t i = 0; i < len; i++) {
        const char *p = s[i] ? memchr(ref_input_charset, s[i], sizeof ref_input_charset - 1) : NULL;
        if (!p) return i;
        unsigned pos = (unsigned)(p - ref_input_charset);
        c = ref_desc_polymod(c, pos & 31);
        cls = cls * 3 + (pos >> 5);
        if (++clscount == 3) {
            c = ref_desc_polymod(c, cls);
            cls = 0;
            clscount = 0;
        }
    }
    if (clscount > 0) c = ref_desc_polymod(c, cls);
    for (int j = 0; j < 8; j++) c = ref_desc_polymod(c, 0);
    c ^= 1;
    for (int j = 0; j < 8; j++) out[j] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"[(c >> (5 * (7 - j))) & 31];
    out[8] = 0;
    return len;
}

/* Core's EncodeBase58 (src/base58.cpp) as written there: the digits as a
 * base-58 big number, each input byte multiplied in with a carry (n <= 46).
 * NUL-terminated; returns the length. */
static inline size_t ref_base58(char *out, const uint8_t *in, size_t n)
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

#endif
