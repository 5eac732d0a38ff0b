/* blockkit: fast lowercase hex (Core: HexStr, uint256::GetHex).
 * SSE2/AVX2 on x86-64, a pair table elsewhere. Used by scripts (asm pushes)
 * and JSON, so it lives at the base, below both. */
#ifndef BLOCKKIT_HEX_H
#define BLOCKKIT_HEX_H

#include <blockkit/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lowercase hex of n bytes into out[2n] (no terminator). Core: HexStr. */
BK_API void bk_hex_encode(char *out, const uint8_t *in, size_t n);
/* Lowercase hex of n bytes taken last to first (uint256::GetHex for hashes). */
BK_API void bk_hex_encode_rev(char *out, const uint8_t *in, size_t n);
/* Append the hex of n bytes (reversed for _rev) to w, chunked so a sink
 * writer never needs a buffer larger than its chunk. */
BK_API void bk_writer_put_hex(bk_writer *w, const uint8_t *p, size_t n);
BK_API void bk_writer_put_hex_rev(bk_writer *w, const uint8_t *p, size_t n);

/* A 32-byte hash as Core prints it (uint256::GetHex: the bytes last to
 * first), 64 digits and a NUL. Returns out. */
BK_API char *bk_hash_to_hex(char out[65], const uint8_t hash[32]);

/* The value of one hex digit (either case), -1 for any other character. */
BK_API int bk_hex_digit(int c);
/* n bytes from the 2n hex digits at in (either case): BK_OK, or
 * BK_ERR_VALUE naming the first character that is not a digit (err->offset:
 * its index); out is then partly written. */
BK_API bk_status bk_hex_decode(uint8_t *out, const char *in, size_t n, bk_error *err) BK_WARN_UNUSED;
/* The same with the bytes stored last to first: a hash as Core prints it
 * (64 digits, n = 32) into internal byte order. */
BK_API bk_status bk_hex_decode_rev(uint8_t *out, const char *in, size_t n, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
