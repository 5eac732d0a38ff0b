/* ChaCha20 (RFC 8439 section 2.3/2.4): the block function and its key
 * stream, as MuHash3072 uses it to expand a SHA-256 digest into a 3072-bit
 * number (Core: crypto/chacha20.cpp ChaCha20Aligned with a zero nonce).
 * Internal to the library; tests call it against the RFC's vectors. */
#ifndef BLOCKKIT_CRYPTO_CHACHA20_H
#define BLOCKKIT_CRYPTO_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

/* One 64-byte block for (key, 32-bit block counter, 96-bit nonce). */
void bk_chacha20_block(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12], uint8_t out[64]);

/* len bytes of key stream starting at block `counter` (the counter wraps
 * modulo 2^32 as RFC 8439 leaves it to the caller). */
void bk_chacha20_stream(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12], uint8_t *out,
                        size_t len);

/* XOR len bytes of in with the key stream into out (in may equal out). */
void bk_chacha20_xor(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12], const uint8_t *in,
                     uint8_t *out, size_t len);

#endif
