/* Internal: SHA256d of many 80-byte block headers (sha256_headers.c). */
#ifndef BLOCKKIT_SHA256_HEADERS_H
#define BLOCKKIT_SHA256_HEADERS_H

#include <stddef.h>
#include <stdint.h>

/* out[32*i..] = SHA256d(hdrs[80*i .. 80*i+79]) for i < n (hdrs contiguous). */
void bk_header_hash_many(uint8_t *out, const uint8_t *hdrs, size_t n);

#endif
