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

#ifdef __cplusplus
}
#endif
#endif
