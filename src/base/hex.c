/* Fast lowercase hex (Core: HexStr, uint256::GetHex). On x86-64 the SSE2
 * path (the baseline, always there) turns 16 bytes into 32 characters with
 * shifts, masks, an unpack and a compare-and-add per nibble; inputs of 32
 * bytes or more use an AVX2 path (pshufb table lookup, 32 bytes a step)
 * when the CPU has it (checked with __builtin_cpu_supports, which reads
 * flags the runtime filled in once at start-up: no state of our own).
 * Elsewhere a 256-entry table of two-character pairs. */
#include <blockkit/hex.h>

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

#if defined(__SSE2__)
/* 16 bytes in a register -> 32 hex characters at out. */
static inline void encode16(char *out, __m128i v)
{
    const __m128i mask = _mm_set1_epi8(0x0f);
    __m128i lo = _mm_and_si128(v, mask);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), mask);
    _mm_storeu_si128((__m128i *)(void *)out, nibble_ascii(_mm_unpacklo_epi8(hi, lo)));
    _mm_storeu_si128((__m128i *)(void *)(out + 16), nibble_ascii(_mm_unpackhi_epi8(hi, lo)));
}

/* The 16 bytes of v in reverse order (SSE2 only: dwords, words, bytes). */
static inline __m128i reverse16(__m128i v)
{
    v = _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 1, 2, 3));
    v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
    v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
    return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BK_HEX_AVX2 1

/* n >= 32. */
__attribute__((target("avx2"))) static void hex_avx2(char *out, const uint8_t *in, size_t n)
{
    const __m256i mask = _mm256_set1_epi8(0x0f);
    const __m256i lut = _mm256_setr_epi8('0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e',
                                         'f', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd',
                                         'e', 'f');
    size_t i = 0;
    for (;;) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(in + i));
        __m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, mask));
        __m256i hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), mask));
        /* unpacks work per 128-bit lane: a = bytes 0-7 | 16-23, b = 8-15 | 24-31 */
        __m256i a = _mm256_unpacklo_epi8(hi, lo);
        __m256i b = _mm256_unpackhi_epi8(hi, lo);
        _mm256_storeu_si256((__m256i *)(void *)(out + 2 * i), _mm256_permute2x128_si256(a, b, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(out + 2 * i + 32), _mm256_permute2x128_si256(a, b, 0x31));
        i += 32;
        if (i == n) return;
        if (n - i < 32) i = n - 32; /* redo the last 32 bytes (same output) */
    }
}
#endif

void bk_hex_encode(char *out, const uint8_t *in, size_t n)
{
    size_t i = 0;
#if defined(BK_HEX_AVX2)
    if (n >= 32 && __builtin_cpu_supports("avx2")) {
        hex_avx2(out, in, n);
        return;
    }
#endif
#if defined(__SSE2__)
    if (n >= 16) {
        for (;;) {
            encode16(out + 2 * i, _mm_loadu_si128((const __m128i *)(const void *)(in + i)));
            i += 16;
            if (i == n) return;
            /* A short tail: redo the last 16 bytes (same output). */
            if (n - i < 16) i = n - 16;
        }
    }
#endif
    for (; i < n; i++) memcpy(out + 2 * i, pairs[in[i]], 2);
}

void bk_hex_encode_rev(char *out, const uint8_t *in, size_t n)
{
#if defined(__SSE2__)
    /* The last 16 bytes first, each block reversed in a register. */
    while (n >= 16) {
        n -= 16;
        encode16(out, reverse16(_mm_loadu_si128((const __m128i *)(const void *)(in + n))));
        out += 32;
    }
#endif
    for (size_t i = 0; i < n; i++) memcpy(out + 2 * i, pairs[in[n - 1 - i]], 2);
}

#define HEX_CHUNK 16384

void bk_writer_put_hex(bk_writer *w, const uint8_t *p, size_t n)
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

void bk_writer_put_hex_rev(bk_writer *w, const uint8_t *p, size_t n)
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

char *bk_hash_to_hex(char out[65], const uint8_t hash[32])
{
    bk_hex_encode_rev(out, hash, 32);
    out[64] = 0;
    return out;
}

int bk_hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bk_status decode(uint8_t *out, const char *in, size_t n, int rev, bk_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int hi = bk_hex_digit((unsigned char)in[2 * i]), lo = bk_hex_digit((unsigned char)in[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            size_t at = hi < 0 ? 2 * i : 2 * i + 1;
            return bk_error_set(err, BK_ERR_VALUE, at, "not a hex digit at character %zu", at);
        }
        out[rev ? n - 1 - i : i] = (uint8_t)(hi << 4 | lo);
    }
    return BK_OK;
}

bk_status bk_hex_decode(uint8_t *out, const char *in, size_t n, bk_error *err)
{
    return decode(out, in, n, 0, err);
}

bk_status bk_hex_decode_rev(uint8_t *out, const char *in, size_t n, bk_error *err)
{
    return decode(out, in, n, 1, err);
}
