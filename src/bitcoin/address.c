/* Addresses: Base58Check (src/base58.cpp) and bech32/bech32m
 * (src/bech32.cpp, BIP173/BIP350), chosen as Core's ExtractDestination +
 * EncodeDestination (src/addresstype.cpp, src/key_io.cpp) choose them.
 *
 * Layering (see script_internal.h): addresses sit on the solver. This file
 * calls down into script.c (bk_script_solve) only; it never calls script
 * info (script_info.c), descriptors (descriptor.c) or JSON. */
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

size_t bk_base58check21_sum(char *out, uint8_t prefix, const uint8_t hash[20], const uint8_t sum[4])
{
    uint8_t buf[25];
    buf[0] = prefix;
    memcpy(buf + 1, hash, 20);
    memcpy(buf + 21, sum, 4);
    size_t n = bk_base58_encode25(out, buf);
    out[n] = 0;
    return n;
}

static size_t base58check_encode21(char *out, uint8_t prefix, const uint8_t hash[20])
{
    uint8_t buf[21], sum[32];
    buf[0] = prefix;
    memcpy(buf + 1, hash, 20);
    bk_sha256d(sum, buf, 21);
    return bk_base58check21_sum(out, prefix, hash, sum);
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

/* Two steps at once (the polymod is linear over GF(2)): the state's top 10
 * bits select the combined generator multiple. */
static const uint32_t b32_gen10[1024] = {
    0x00000000u, 0x3b6a57b2u, 0x26508e6du, 0x1d3ad9dfu, 0x1ea119fau, 0x25cb4e48u, 0x38f19797u, 0x039bc025u,
    0x3d4233ddu, 0x0628646fu, 0x1b12bdb0u, 0x2078ea02u, 0x23e32a27u, 0x18897d95u, 0x05b3a44au, 0x3ed9f3f8u,
    0x2a1462b3u, 0x117e3501u, 0x0c44ecdeu, 0x372ebb6cu, 0x34b57b49u, 0x0fdf2cfbu, 0x12e5f524u, 0x298fa296u,
    0x1756516eu, 0x2c3c06dcu, 0x3106df03u, 0x0a6c88b1u, 0x09f74894u, 0x329d1f26u, 0x2fa7c6f9u, 0x14cd914bu,
    0x1fd7e966u, 0x24bdbed4u, 0x3987670bu, 0x02ed30b9u, 0x0176f09cu, 0x3a1ca72eu, 0x27267ef1u, 0x1c4c2943u,
    0x2295dabbu, 0x19ff8d09u, 0x04c554d6u, 0x3faf0364u, 0x3c34c341u, 0x075e94f3u, 0x1a644d2cu, 0x210e1a9eu,
    0x35c38bd5u, 0x0ea9dc67u, 0x139305b8u, 0x28f9520au, 0x2b62922fu, 0x1008c59du, 0x0d321c42u, 0x36584bf0u,
    0x0881b808u, 0x33ebefbau, 0x2ed13665u, 0x15bb61d7u, 0x1620a1f2u, 0x2d4af640u, 0x30702f9fu, 0x0b1a782du,
    0x3d3f76ccu, 0x0655217eu, 0x1b6ff8a1u, 0x2005af13u, 0x239e6f36u, 0x18f43884u, 0x05cee15bu, 0x3ea4b6e9u,
    0x007d4511u, 0x3b1712a3u, 0x262dcb7cu, 0x1d479cceu, 0x1edc5cebu, 0x25b60b59u, 0x388cd286u, 0x03e68534u,
    0x172b147fu, 0x2c4143cdu, 0x317b9a12u, 0x0a11cda0u, 0x098a0d85u, 0x32e05a37u, 0x2fda83e8u, 0x14b0d45au,
    0x2a6927a2u, 0x11037010u, 0x0c39a9cfu, 0x3753fe7du, 0x34c83e58u, 0x0fa269eau, 0x1298b035u, 0x29f2e787u,
    0x22e89faau, 0x1982c818u, 0x04b811c7u, 0x3fd24675u, 0x3c498650u, 0x0723d1e2u, 0x1a19083du, 0x21735f8fu,
    0x1faaac77u, 0x24c0fbc5u, 0x39fa221au, 0x029075a8u, 0x010bb58du, 0x3a61e23fu, 0x275b3be0u, 0x1c316c52u,
    0x08fcfd19u, 0x3396aaabu, 0x2eac7374u, 0x15c624c6u, 0x165de4e3u, 0x2d37b351u, 0x300d6a8eu, 0x0b673d3cu,
    0x35becec4u, 0x0ed49976u, 0x13ee40a9u, 0x2884171bu, 0x2b1fd73eu, 0x1075808cu, 0x0d4f5953u, 0x36250ee1u,
    0x2afaccb8u, 0x11909b0au, 0x0caa42d5u, 0x37c01567u, 0x345bd542u, 0x0f3182f0u, 0x120b5b2fu, 0x29610c9du,
    0x17b8ff65u, 0x2cd2a8d7u, 0x31e87108u, 0x0a8226bau, 0x0919e69fu, 0x3273b12du, 0x2f4968f2u, 0x14233f40u,
    0x00eeae0bu, 0x3b84f9b9u, 0x26be2066u, 0x1dd477d4u, 0x1e4fb7f1u, 0x2525e043u, 0x381f399cu, 0x03756e2eu,
    0x3dac9dd6u, 0x06c6ca64u, 0x1bfc13bbu, 0x20964409u, 0x230d842cu, 0x1867d39eu, 0x055d0a41u, 0x3e375df3u,
    0x352d25deu, 0x0e47726cu, 0x137dabb3u, 0x2817fc01u, 0x2b8c3c24u, 0x10e66b96u, 0x0ddcb249u, 0x36b6e5fbu,
    0x086f1603u, 0x330541b1u, 0x2e3f986eu, 0x1555cfdcu, 0x16ce0ff9u, 0x2da4584bu, 0x309e8194u, 0x0bf4d626u,
    0x1f39476du, 0x245310dfu, 0x3969c900u, 0x02039eb2u, 0x01985e97u, 0x3af20925u, 0x27c8d0fau, 0x1ca28748u,
    0x227b74b0u, 0x19112302u, 0x042bfaddu, 0x3f41ad6fu, 0x3cda6d4au, 0x07b03af8u, 0x1a8ae327u, 0x21e0b495u,
    0x17c5ba74u, 0x2cafedc6u, 0x31953419u, 0x0aff63abu, 0x0964a38eu, 0x320ef43cu, 0x2f342de3u, 0x145e7a51u,
    0x2a8789a9u, 0x11edde1bu, 0x0cd707c4u, 0x37bd5076u, 0x34269053u, 0x0f4cc7e1u, 0x12761e3eu, 0x291c498cu,
    0x3dd1d8c7u, 0x06bb8f75u, 0x1b8156aau, 0x20eb0118u, 0x2370c13du, 0x181a968fu, 0x05204f50u, 0x3e4a18e2u,
    0x0093eb1au, 0x3bf9bca8u, 0x26c36577u, 0x1da932c5u, 0x1e32f2e0u, 0x2558a552u, 0x38627c8du, 0x03082b3fu,
    0x08125312u, 0x337804a0u, 0x2e42dd7fu, 0x15288acdu, 0x16b34ae8u, 0x2dd91d5au, 0x30e3c485u, 0x0b899337u,
    0x355060cfu, 0x0e3a377du, 0x1300eea2u, 0x286ab910u, 0x2bf17935u, 0x109b2e87u, 0x0da1f758u, 0x36cba0eau,
    0x220631a1u, 0x196c6613u, 0x0456bfccu, 0x3f3ce87eu, 0x3ca7285bu, 0x07cd7fe9u, 0x1af7a636u, 0x219df184u,
    0x1f44027cu, 0x242e55ceu, 0x39148c11u, 0x027edba3u, 0x01e51b86u, 0x3a8f4c34u, 0x27b595ebu, 0x1cdfc259u,
    0x07e1bd59u, 0x3c8beaebu, 0x21b13334u, 0x1adb6486u, 0x1940a4a3u, 0x222af311u, 0x3f102aceu, 0x047a7d7cu,
    0x3aa38e84u, 0x01c9d936u, 0x1cf300e9u, 0x2799575bu, 0x2402977eu, 0x1f68c0ccu, 0x02521913u, 0x39384ea1u,
    0x2df5dfeau, 0x169f8858u, 0x0ba55187u, 0x30cf0635u, 0x3354c610u, 0x083e91a2u, 0x1504487du, 0x2e6e1fcfu,
    0x10b7ec37u, 0x2bddbb85u, 0x36e7625au, 0x0d8d35e8u, 0x0e16f5cdu, 0x357ca27fu, 0x28467ba0u, 0x132c2c12u,
    0x1836543fu, 0x235c038du, 0x3e66da52u, 0x050c8de0u, 0x06974dc5u, 0x3dfd1a77u, 0x20c7c3a8u, 0x1bad941au,
    0x257467e2u, 0x1e1e3050u, 0x0324e98fu, 0x384ebe3du, 0x3bd57e18u, 0x00bf29aau, 0x1d85f075u, 0x26efa7c7u,
    0x3222368cu, 0x0948613eu, 0x1472b8e1u, 0x2f18ef53u, 0x2c832f76u, 0x17e978c4u, 0x0ad3a11bu, 0x31b9f6a9u,
    0x0f600551u, 0x340a52e3u, 0x29308b3cu, 0x125adc8eu, 0x11c11cabu, 0x2aab4b19u, 0x379192c6u, 0x0cfbc574u,
    0x3adecb95u, 0x01b49c27u, 0x1c8e45f8u, 0x27e4124au, 0x247fd26fu, 0x1f1585ddu, 0x022f5c02u, 0x39450bb0u,
    0x079cf848u, 0x3cf6affau, 0x21cc7625u, 0x1aa62197u, 0x193de1b2u, 0x2257b600u, 0x3f6d6fdfu, 0x0407386du,
    0x10caa926u, 0x2ba0fe94u, 0x369a274bu, 0x0df070f9u, 0x0e6bb0dcu, 0x3501e76eu, 0x283b3eb1u, 0x13516903u,
    0x2d889afbu, 0x16e2cd49u, 0x0bd81496u, 0x30b24324u, 0x33298301u, 0x0843d4b3u, 0x15790d6cu, 0x2e135adeu,
    0x250922f3u, 0x1e637541u, 0x0359ac9eu, 0x3833fb2cu, 0x3ba83b09u, 0x00c26cbbu, 0x1df8b564u, 0x2692e2d6u,
    0x184b112eu, 0x2321469cu, 0x3e1b9f43u, 0x0571c8f1u, 0x06ea08d4u, 0x3d805f66u, 0x20ba86b9u, 0x1bd0d10bu,
    0x0f1d4040u, 0x347717f2u, 0x294dce2du, 0x1227999fu, 0x11bc59bau, 0x2ad60e08u, 0x37ecd7d7u, 0x0c868065u,
    0x325f739du, 0x0935242fu, 0x140ffdf0u, 0x2f65aa42u, 0x2cfe6a67u, 0x17943dd5u, 0x0aaee40au, 0x31c4b3b8u,
    0x2d1b71e1u, 0x16712653u, 0x0b4bff8cu, 0x3021a83eu, 0x33ba681bu, 0x08d03fa9u, 0x15eae676u, 0x2e80b1c4u,
    0x1059423cu, 0x2b33158eu, 0x3609cc51u, 0x0d639be3u, 0x0ef85bc6u, 0x35920c74u, 0x28a8d5abu, 0x13c28219u,
    0x070f1352u, 0x3c6544e0u, 0x215f9d3fu, 0x1a35ca8du, 0x19ae0aa8u, 0x22c45d1au, 0x3ffe84c5u, 0x0494d377u,
    0x3a4d208fu, 0x0127773du, 0x1c1daee2u, 0x2777f950u, 0x24ec3975u, 0x1f866ec7u, 0x02bcb718u, 0x39d6e0aau,
    0x32cc9887u, 0x09a6cf35u, 0x149c16eau, 0x2ff64158u, 0x2c6d817du, 0x1707d6cfu, 0x0a3d0f10u, 0x315758a2u,
    0x0f8eab5au, 0x34e4fce8u, 0x29de2537u, 0x12b47285u, 0x112fb2a0u, 0x2a45e512u, 0x377f3ccdu, 0x0c156b7fu,
    0x18d8fa34u, 0x23b2ad86u, 0x3e887459u, 0x05e223ebu, 0x0679e3ceu, 0x3d13b47cu, 0x20296da3u, 0x1b433a11u,
    0x259ac9e9u, 0x1ef09e5bu, 0x03ca4784u, 0x38a01036u, 0x3b3bd013u, 0x005187a1u, 0x1d6b5e7eu, 0x260109ccu,
    0x1024072du, 0x2b4e509fu, 0x36748940u, 0x0d1edef2u, 0x0e851ed7u, 0x35ef4965u, 0x28d590bau, 0x13bfc708u,
    0x2d6634f0u, 0x160c6342u, 0x0b36ba9du, 0x305ced2fu, 0x33c72d0au, 0x08ad7ab8u, 0x1597a367u, 0x2efdf4d5u,
    0x3a30659eu, 0x015a322cu, 0x1c60ebf3u, 0x270abc41u, 0x24917c64u, 0x1ffb2bd6u, 0x02c1f209u, 0x39aba5bbu,
    0x07725643u, 0x3c1801f1u, 0x2122d82eu, 0x1a488f9cu, 0x19d34fb9u, 0x22b9180bu, 0x3f83c1d4u, 0x04e99666u,
    0x0ff3ee4bu, 0x3499b9f9u, 0x29a36026u, 0x12c93794u, 0x1152f7b1u, 0x2a38a003u, 0x370279dcu, 0x0c682e6eu,
    0x32b1dd96u, 0x09db8a24u, 0x14e153fbu, 0x2f8b0449u, 0x2c10c46cu, 0x177a93deu, 0x0a404a01u, 0x312a1db3u,
    0x25e78cf8u, 0x1e8ddb4au, 0x03b70295u, 0x38dd5527u, 0x3b469502u, 0x002cc2b0u, 0x1d161b6fu, 0x267c4cddu,
    0x18a5bf25u, 0x23cfe897u, 0x3ef53148u, 0x059f66fau, 0x0604a6dfu, 0x3d6ef16du, 0x205428b2u, 0x1b3e7f00u,
    0x0d537a9bu, 0x36392d29u, 0x2b03f4f6u, 0x1069a344u, 0x13f26361u, 0x289834d3u, 0x35a2ed0cu, 0x0ec8babeu,
    0x30114946u, 0x0b7b1ef4u, 0x1641c72bu, 0x2d2b9099u, 0x2eb050bcu, 0x15da070eu, 0x08e0ded1u, 0x338a8963u,
    0x27471828u, 0x1c2d4f9au, 0x01179645u, 0x3a7dc1f7u, 0x39e601d2u, 0x028c5660u, 0x1fb68fbfu, 0x24dcd80du,
    0x1a052bf5u, 0x216f7c47u, 0x3c55a598u, 0x073ff22au, 0x04a4320fu, 0x3fce65bdu, 0x22f4bc62u, 0x199eebd0u,
    0x128493fdu, 0x29eec44fu, 0x34d41d90u, 0x0fbe4a22u, 0x0c258a07u, 0x374fddb5u, 0x2a75046au, 0x111f53d8u,
    0x2fc6a020u, 0x14acf792u, 0x09962e4du, 0x32fc79ffu, 0x3167b9dau, 0x0a0dee68u, 0x173737b7u, 0x2c5d6005u,
    0x3890f14eu, 0x03faa6fcu, 0x1ec07f23u, 0x25aa2891u, 0x2631e8b4u, 0x1d5bbf06u, 0x006166d9u, 0x3b0b316bu,
    0x05d2c293u, 0x3eb89521u, 0x23824cfeu, 0x18e81b4cu, 0x1b73db69u, 0x20198cdbu, 0x3d235504u, 0x064902b6u,
    0x306c0c57u, 0x0b065be5u, 0x163c823au, 0x2d56d588u, 0x2ecd15adu, 0x15a7421fu, 0x089d9bc0u, 0x33f7cc72u,
    0x0d2e3f8au, 0x36446838u, 0x2b7eb1e7u, 0x1014e655u, 0x138f2670u, 0x28e571c2u, 0x35dfa81du, 0x0eb5ffafu,
    0x1a786ee4u, 0x21123956u, 0x3c28e089u, 0x0742b73bu, 0x04d9771eu, 0x3fb320acu, 0x2289f973u, 0x19e3aec1u,
    0x273a5d39u, 0x1c500a8bu, 0x016ad354u, 0x3a0084e6u, 0x399b44c3u, 0x02f11371u, 0x1fcbcaaeu, 0x24a19d1cu,
    0x2fbbe531u, 0x14d1b283u, 0x09eb6b5cu, 0x32813ceeu, 0x311afccbu, 0x0a70ab79u, 0x174a72a6u, 0x2c202514u,
    0x12f9d6ecu, 0x2993815eu, 0x34a95881u, 0x0fc30f33u, 0x0c58cf16u, 0x373298a4u, 0x2a08417bu, 0x116216c9u,
    0x05af8782u, 0x3ec5d030u, 0x23ff09efu, 0x18955e5du, 0x1b0e9e78u, 0x2064c9cau, 0x3d5e1015u, 0x063447a7u,
    0x38edb45fu, 0x0387e3edu, 0x1ebd3a32u, 0x25d76d80u, 0x264cada5u, 0x1d26fa17u, 0x001c23c8u, 0x3b76747au,
    0x27a9b623u, 0x1cc3e191u, 0x01f9384eu, 0x3a936ffcu, 0x3908afd9u, 0x0262f86bu, 0x1f5821b4u, 0x24327606u,
    0x1aeb85feu, 0x2181d24cu, 0x3cbb0b93u, 0x07d15c21u, 0x044a9c04u, 0x3f20cbb6u, 0x221a1269u, 0x197045dbu,
    0x0dbdd490u, 0x36d78322u, 0x2bed5afdu, 0x10870d4fu, 0x131ccd6au, 0x28769ad8u, 0x354c4307u, 0x0e2614b5u,
    0x30ffe74du, 0x0b95b0ffu, 0x16af6920u, 0x2dc53e92u, 0x2e5efeb7u, 0x1534a905u, 0x080e70dau, 0x33642768u,
    0x387e5f45u, 0x031408f7u, 0x1e2ed128u, 0x2544869au, 0x26df46bfu, 0x1db5110du, 0x008fc8d2u, 0x3be59f60u,
    0x053c6c98u, 0x3e563b2au, 0x236ce2f5u, 0x1806b547u, 0x1b9d7562u, 0x20f722d0u, 0x3dcdfb0fu, 0x06a7acbdu,
    0x126a3df6u, 0x29006a44u, 0x343ab39bu, 0x0f50e429u, 0x0ccb240cu, 0x37a173beu, 0x2a9baa61u, 0x11f1fdd3u,
    0x2f280e2bu, 0x14425999u, 0x09788046u, 0x3212d7f4u, 0x318917d1u, 0x0ae34063u, 0x17d999bcu, 0x2cb3ce0eu,
    0x1a96c0efu, 0x21fc975du, 0x3cc64e82u, 0x07ac1930u, 0x0437d915u, 0x3f5d8ea7u, 0x22675778u, 0x190d00cau,
    0x27d4f332u, 0x1cbea480u, 0x01847d5fu, 0x3aee2aedu, 0x3975eac8u, 0x021fbd7au, 0x1f2564a5u, 0x244f3317u,
    0x3082a25cu, 0x0be8f5eeu, 0x16d22c31u, 0x2db87b83u, 0x2e23bba6u, 0x1549ec14u, 0x087335cbu, 0x33196279u,
    0x0dc09181u, 0x36aac633u, 0x2b901fecu, 0x10fa485eu, 0x1361887bu, 0x280bdfc9u, 0x35310616u, 0x0e5b51a4u,
    0x05412989u, 0x3e2b7e3bu, 0x2311a7e4u, 0x187bf056u, 0x1be03073u, 0x208a67c1u, 0x3db0be1eu, 0x06dae9acu,
    0x38031a54u, 0x03694de6u, 0x1e539439u, 0x2539c38bu, 0x26a203aeu, 0x1dc8541cu, 0x00f28dc3u, 0x3b98da71u,
    0x2f554b3au, 0x143f1c88u, 0x0905c557u, 0x326f92e5u, 0x31f452c0u, 0x0a9e0572u, 0x17a4dcadu, 0x2cce8b1fu,
    0x121778e7u, 0x297d2f55u, 0x3447f68au, 0x0f2da138u, 0x0cb6611du, 0x37dc36afu, 0x2ae6ef70u, 0x118cb8c2u,
    0x0ab2c7c2u, 0x31d89070u, 0x2ce249afu, 0x17881e1du, 0x1413de38u, 0x2f79898au, 0x32435055u, 0x092907e7u,
    0x37f0f41fu, 0x0c9aa3adu, 0x11a07a72u, 0x2aca2dc0u, 0x2951ede5u, 0x123bba57u, 0x0f016388u, 0x346b343au,
    0x20a6a571u, 0x1bccf2c3u, 0x06f62b1cu, 0x3d9c7caeu, 0x3e07bc8bu, 0x056deb39u, 0x185732e6u, 0x233d6554u,
    0x1de496acu, 0x268ec11eu, 0x3bb418c1u, 0x00de4f73u, 0x03458f56u, 0x382fd8e4u, 0x2515013bu, 0x1e7f5689u,
    0x15652ea4u, 0x2e0f7916u, 0x3335a0c9u, 0x085ff77bu, 0x0bc4375eu, 0x30ae60ecu, 0x2d94b933u, 0x16feee81u,
    0x28271d79u, 0x134d4acbu, 0x0e779314u, 0x351dc4a6u, 0x36860483u, 0x0dec5331u, 0x10d68aeeu, 0x2bbcdd5cu,
    0x3f714c17u, 0x041b1ba5u, 0x1921c27au, 0x224b95c8u, 0x21d055edu, 0x1aba025fu, 0x0780db80u, 0x3cea8c32u,
    0x02337fcau, 0x39592878u, 0x2463f1a7u, 0x1f09a615u, 0x1c926630u, 0x27f83182u, 0x3ac2e85du, 0x01a8bfefu,
    0x378db10eu, 0x0ce7e6bcu, 0x11dd3f63u, 0x2ab768d1u, 0x292ca8f4u, 0x1246ff46u, 0x0f7c2699u, 0x3416712bu,
    0x0acf82d3u, 0x31a5d561u, 0x2c9f0cbeu, 0x17f55b0cu, 0x146e9b29u, 0x2f04cc9bu, 0x323e1544u, 0x095442f6u,
    0x1d99d3bdu, 0x26f3840fu, 0x3bc95dd0u, 0x00a30a62u, 0x0338ca47u, 0x38529df5u, 0x2568442au, 0x1e021398u,
    0x20dbe060u, 0x1bb1b7d2u, 0x068b6e0du, 0x3de139bfu, 0x3e7af99au, 0x0510ae28u, 0x182a77f7u, 0x23402045u,
    0x285a5868u, 0x13300fdau, 0x0e0ad605u, 0x356081b7u, 0x36fb4192u, 0x0d911620u, 0x10abcfffu, 0x2bc1984du,
    0x15186bb5u, 0x2e723c07u, 0x3348e5d8u, 0x0822b26au, 0x0bb9724fu, 0x30d325fdu, 0x2de9fc22u, 0x1683ab90u,
    0x024e3adbu, 0x39246d69u, 0x241eb4b6u, 0x1f74e304u, 0x1cef2321u, 0x27857493u, 0x3abfad4cu, 0x01d5fafeu,
    0x3f0c0906u, 0x04665eb4u, 0x195c876bu, 0x2236d0d9u, 0x21ad10fcu, 0x1ac7474eu, 0x07fd9e91u, 0x3c97c923u,
    0x20480b7au, 0x1b225cc8u, 0x06188517u, 0x3d72d2a5u, 0x3ee91280u, 0x05834532u, 0x18b99cedu, 0x23d3cb5fu,
    0x1d0a38a7u, 0x26606f15u, 0x3b5ab6cau, 0x0030e178u, 0x03ab215du, 0x38c176efu, 0x25fbaf30u, 0x1e91f882u,
    0x0a5c69c9u, 0x31363e7bu, 0x2c0ce7a4u, 0x1766b016u, 0x14fd7033u, 0x2f972781u, 0x32adfe5eu, 0x09c7a9ecu,
    0x371e5a14u, 0x0c740da6u, 0x114ed479u, 0x2a2483cbu, 0x29bf43eeu, 0x12d5145cu, 0x0fefcd83u, 0x34859a31u,
    0x3f9fe21cu, 0x04f5b5aeu, 0x19cf6c71u, 0x22a53bc3u, 0x213efbe6u, 0x1a54ac54u, 0x076e758bu, 0x3c042239u,
    0x02ddd1c1u, 0x39b78673u, 0x248d5facu, 0x1fe7081eu, 0x1c7cc83bu, 0x27169f89u, 0x3a2c4656u, 0x014611e4u,
    0x158b80afu, 0x2ee1d71du, 0x33db0ec2u, 0x08b15970u, 0x0b2a9955u, 0x3040cee7u, 0x2d7a1738u, 0x1610408au,
    0x28c9b372u, 0x13a3e4c0u, 0x0e993d1fu, 0x35f36aadu, 0x3668aa88u, 0x0d02fd3au, 0x103824e5u, 0x2b527357u,
    0x1d777db6u, 0x261d2a04u, 0x3b27f3dbu, 0x004da469u, 0x03d6644cu, 0x38bc33feu, 0x2586ea21u, 0x1eecbd93u,
    0x20354e6bu, 0x1b5f19d9u, 0x0665c006u, 0x3d0f97b4u, 0x3e945791u, 0x05fe0023u, 0x18c4d9fcu, 0x23ae8e4eu,
    0x37631f05u, 0x0c0948b7u, 0x11339168u, 0x2a59c6dau, 0x29c206ffu, 0x12a8514du, 0x0f928892u, 0x34f8df20u,
    0x0a212cd8u, 0x314b7b6au, 0x2c71a2b5u, 0x171bf507u, 0x14803522u, 0x2fea6290u, 0x32d0bb4fu, 0x09baecfdu,
    0x02a094d0u, 0x39cac362u, 0x24f01abdu, 0x1f9a4d0fu, 0x1c018d2au, 0x276bda98u, 0x3a510347u, 0x013b54f5u,
    0x3fe2a70du, 0x0488f0bfu, 0x19b22960u, 0x22d87ed2u, 0x2143bef7u, 0x1a29e945u, 0x0713309au, 0x3c796728u,
    0x28b4f663u, 0x13dea1d1u, 0x0ee4780eu, 0x358e2fbcu, 0x3615ef99u, 0x0d7fb82bu, 0x104561f4u, 0x2b2f3646u,
    0x15f6c5beu, 0x2e9c920cu, 0x33a64bd3u, 0x08cc1c61u, 0x0b57dc44u, 0x303d8bf6u, 0x2d075229u, 0x166d059bu,
};

static inline uint32_t b32_step2(uint32_t c, uint32_t v1, uint32_t v2)
{
    return ((c & 0xfffffu) << 10) ^ (v1 << 5) ^ v2 ^ b32_gen10[c >> 20];
}

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

/* Segwit address: hrp "1" [version] program(8->5 bits, padded) checksum.
 * Symbols enter the checksum two at a time. */
static size_t bech32_encode_segwit(char *out, const char *hrp, int version, const uint8_t *prog,
                                   size_t plen)
{
    size_t hl = strlen(hrp);
    uint32_t c = b32_hrp_state(hrp, hl);
    memcpy(out, hrp, hl);
    size_t o = hl;
    out[o++] = '1';
    out[o++] = b32_charset[version];
    uint32_t pend = (uint32_t)version; /* one symbol waiting for its pair */
    int have = 1;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < plen; i++) {
        acc = (acc << 8) | prog[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            uint32_t v = (acc >> bits) & 31;
            out[o++] = b32_charset[v];
            if (have) c = b32_step2(c, pend, v);
            else pend = v;
            have ^= 1;
        }
    }
    if (bits) {
        uint32_t v = (acc << (5 - bits)) & 31;
        out[o++] = b32_charset[v];
        if (have) c = b32_step2(c, pend, v);
        else pend = v;
        have ^= 1;
    }
    /* Six zero symbols. */
    if (have) {
        c = b32_step2(c, pend, 0);
        c = b32_step2(c, 0, 0);
        c = b32_step2(c, 0, 0);
        c = b32_step(c, 0);
    } else {
        c = b32_step2(c, 0, 0);
        c = b32_step2(c, 0, 0);
        c = b32_step2(c, 0, 0);
    }
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
