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

/* n MuHash3072 elements at once: out + 384 k = the first 384 bytes of the
 * key stream of keys[k] (nonce 0, counter 0), i.e. bk_chacha20_stream(keys
 * + 32 k, 0, zero nonce, out + 384 k, 384) for each k, the 6 n blocks
 * computed 16 (AVX-512) or 8 (AVX2) at a time across the keys. */
void bk_chacha20_elements(const uint8_t *keys, size_t n, uint8_t *out);
/* The same on at most `lanes` lanes (16, 8 or 1; fewer when the CPU lacks
 * AVX-512 or AVX2); returns the lanes used. For the tests. */
int bk_chacha20_elements_lanes(const uint8_t *keys, size_t n, uint8_t *out, int lanes);

#endif
