/* Internal: the SHA-256 backend interface. Not installed. */
#ifndef BLOCKKIT_SHA256_IMPL_H
#define BLOCKKIT_SHA256_IMPL_H

#include <blockkit/sha256.h>

extern const uint32_t bk_sha256_k[64];
extern const uint32_t bk_sha256_iv[8];

/* Compress nblocks consecutive 64-byte blocks into state s (portable C). */
void bk_sha256_compress_portable(uint32_t s[8], const uint8_t *blocks, size_t nblocks);

static inline void bk_sha256_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint32_t bk_sha256_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif
