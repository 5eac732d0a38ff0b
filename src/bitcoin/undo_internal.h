/* Internal helpers of src/bitcoin/undo.c shared with blockstats.c: the one
 * definition of the undo format's constants, Core's DecompressAmount and the
 * pointer-walk reads over undo bytes (undo.c's fast validation path and
 * blockstats' single pass over the raw record). */
#ifndef BLOCKKIT_SRC_BITCOIN_UNDO_INTERNAL_H
#define BLOCKKIT_SRC_BITCOIN_UNDO_INTERNAL_H

#include <blockkit/bitcoin.h>

#include <stddef.h>
#include <stdint.h>

/* Core: compressor.h MAX_SCRIPT_SIZE (script/script.h) - larger raw scripts
 * decompress to the single byte OP_RETURN. */
#define BK_MAX_SCRIPT_SIZE 10000u
/* Core: compressor.h nSpecialScripts. */
#define BK_SPECIAL_SCRIPTS 6u

/* 1 when x (32 bytes, big-endian) is the x of a point on secp256k1: the
 * check bk_block_undo_parse makes on a compressed uncompressed-P2PK coin
 * (script size 4 or 5). */
int bk_undo_x_on_curve(const uint8_t x[32]);

/* Core: compressor.cpp DecompressAmount (unsigned, wraps like Core's uint64_t
 * arithmetic on absurd inputs); bk_amount_decompress is this, exported. */
static inline uint64_t bk_undo_amount_decompress(uint64_t x)
{
    static const uint64_t pow10[10] = {1ULL,       10ULL,       100ULL,       1000ULL,       10000ULL,
                                       100000ULL,  1000000ULL,  10000000ULL,  100000000ULL,  1000000000ULL};
    if (x == 0) return 0;
    x--;
    unsigned e = (unsigned)(x % 10);
    x /= 10;
    uint64_t n;
    if (e < 9) {
        n = (x / 9) * 10 + (x % 9) + 1;
    } else {
        n = x + 1;
    }
    return n * pow10[e]; /* wraps like Core's repeated n *= 10 */
}

/* The VARINT in the first lim bytes at *pp: 1 and *pp advanced, or 0. */
static inline int bk_undo_varint_within(const uint8_t **pp, size_t lim, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t n = 0;
    for (size_t i = 0; i < lim; i++) {
        uint8_t b = p[i];
        n = (n << 7) | (b & 0x7f);
        if (!(b & 0x80)) {
            *pp = p + i + 1;
            *v = n;
            return 1;
        }
        n++;
    }
    return 0;
}

/* A VARINT of at most 8 bytes from [*pp, end) (no overflow possible): 1 and
 * *pp advanced, or 0 (a longer or unterminated one) with *pp unchanged. */
static inline int bk_undo_fast_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    size_t avail = (size_t)(end - *pp);
    /* the usual case: a fixed bound the compiler can unroll */
    if (avail >= 8) return bk_undo_varint_within(pp, 8, v);
    return bk_undo_varint_within(pp, avail, v);
}

/* Core's ReadCompactSize with the range check (canonical, at most
 * BK_MAX_SIZE) from [*pp, end): 1 and *pp advanced, or 0. */
static inline int bk_undo_fast_compact(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    size_t avail = (size_t)(end - p);
    if (avail == 0) return 0;
    uint8_t b = p[0];
    if (b < 0xfd) {
        *pp = p + 1;
        *v = b;
        return 1;
    }
    if (b == 0xfd && avail >= 3) {
        uint64_t x = bk_load_le16(p + 1);
        if (x < 0xfd) return 0;
        *pp = p + 3;
        *v = x;
        return 1;
    }
    if (b == 0xfe && avail >= 5) {
        uint64_t x = bk_load_le32(p + 1);
        if (x < 0x10000u || x > BK_MAX_SIZE) return 0;
        *pp = p + 5;
        *v = x;
        return 1;
    }
    return 0;
}

/* One coin as bk_coin_read reads it (32-bit code, nVersion dummy and script
 * size; the script's bytes present; a compressed uncompressed-P2PK key, script
 * size 4 or 5, on the curve): 1 and *pp past it, with its value and the
 * length of its decompressed scriptPubKey when value / script_len are not
 * NULL; 0 at the first thing bk_coin_read might refuse. */
static inline int bk_undo_fast_coin(const uint8_t **pp, const uint8_t *end, int64_t *value, uint64_t *script_len)
{
    uint64_t code, dummy, amount, n_size;
    if (!bk_undo_fast_varint(pp, end, &code) || code > UINT32_MAX) return 0;
    if ((code >> 1) && (!bk_undo_fast_varint(pp, end, &dummy) || dummy > UINT32_MAX)) return 0;
    if (!bk_undo_fast_varint(pp, end, &amount) || !bk_undo_fast_varint(pp, end, &n_size) || n_size > UINT32_MAX)
        return 0;
    if (value) *value = (int64_t)bk_undo_amount_decompress(amount);
    size_t avail = (size_t)(end - *pp);
    if (n_size < BK_SPECIAL_SCRIPTS) {
        static const uint8_t lens[BK_SPECIAL_SCRIPTS] = {25, 23, 35, 35, 67, 67};
        size_t body = n_size < 2 ? 20 : 32;
        if (avail < body) return 0;
        if (n_size >= 4 && !bk_undo_x_on_curve(*pp)) return 0;
        if (script_len) *script_len = lens[n_size];
        *pp += body;
        return 1;
    }
    uint64_t raw = n_size - BK_SPECIAL_SCRIPTS;
    if (raw > avail) return 0;
    if (script_len) *script_len = raw > BK_MAX_SCRIPT_SIZE ? 1 : raw;
    *pp += raw;
    return 1;
}

#endif
