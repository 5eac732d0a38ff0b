/* Internal: MuHash3072 products from element keys (not public API). */
#ifndef BLOCKKIT_UTXO_MUHASH_INTERNAL_H
#define BLOCKKIT_UTXO_MUHASH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* acc = acc * e_0 * ... * e_{n-1} mod p (acc below 2^3072, as bk_muhash's
 * num and den), where e_k is the element whose SHA-256 digest is keys +
 * 32 k (bk_muhash_element = ChaCha20 of SHA256(data)). The ChaCha20 blocks
 * are computed 8 elements at a time (bk_chacha20_elements); then one
 * multiplication per element. Nothing is allocated. */
void bk_muhash_mul_keys(uint64_t acc[48], const uint8_t *keys, size_t n);

#endif
