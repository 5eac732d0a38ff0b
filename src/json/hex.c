/* Fast lowercase hex (Core: HexStr, uint256::GetHex). The SSE2 path (the
 * x86-64 baseline, so no dispatch) turns 16 bytes into 32 characters with
 * shifts, masks, an unpack and a compare-and-add per nibble; elsewhere a
 * 256-entry table of two-character pairs. */
#include <blockkit/json.h>

#include "json/json_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define P(x) x "0", x "1", x "2", x "3", x "4", x "5", x "6", x "7", x "8", x "9", x "a", x "b", x "c", x "d", x "e", x "f"
static const char pairs[256][3] = {
    P("0"), P("1"), P("2"), P("3"), P("4"), P("5"), P("6"), P("7"),
    P("8"), P("9"), P("a"), P("b"), P("c"), P("d"), P("e"), P("f"),
};
#undef P

#if defined(__SSE2__)
static inline __m128i nibble_ascii(__m128i x)
{
    /* '0' + x, plus ('a' - '0' - 10) where x > 9 */
    __m128i gt9 = _mm_cmpgt_epi8(x, _mm_set1_epi8(9));
    return _mm_add_epi8(_mm_add_epi8(x, _mm_set1_epi8('0')), _mm_and_si128(gt9, _mm_set1_epi8('a' - '0' - 10)));
}
#endif

void bk_hex_encode(char *out, const uint8_t *in, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i mask = _mm_set1_epi8(0x0f);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
        __m128i lo = _mm_and_si128(v, mask);
        __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), mask);
        __m128i a = nibble_ascii(_mm_unpacklo_epi8(hi, lo));
        __m128i b = nibble_ascii(_mm_unpackhi_epi8(hi, lo));
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i), a);
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i + 16), b);
    }
#endif
    for (; i < n; i++) memcpy(out + 2 * i, pairs[in[i]], 2);
}

void bk_hex_encode_rev(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) memcpy(out + 2 * i, pairs[in[n - 1 - i]], 2);
}

#define HEX_CHUNK 16384

void bk_put_hex(bk_writer *w, const uint8_t *p, size_t n)
{
    while (n) {
        size_t m = n < HEX_CHUNK ? n : HEX_CHUNK;
        uint8_t *dst = bk_writer_space(w, 2 * m);
        if (!dst) return;
        bk_hex_encode((char *)dst, p, m);
        bk_writer_commit(w, 2 * m);
        p += m;
        n -= m;
    }
}

void bk_put_hex_rev(bk_writer *w, const uint8_t *p, size_t n)
{
    while (n) {
        size_t m = n < HEX_CHUNK ? n : HEX_CHUNK;
        uint8_t *dst = bk_writer_space(w, 2 * m);
        if (!dst) return;
        /* the last m bytes first */
        bk_hex_encode_rev((char *)dst, p + n - m, m);
        bk_writer_commit(w, 2 * m);
        n -= m;
    }
}
