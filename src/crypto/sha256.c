/* Public SHA-256 API over the selected backend (sha256_dispatch.c). */
#include "sha256_impl.h"

#include <string.h>

void bk_sha256_init(bk_sha256_ctx *ctx)
{
    memcpy(ctx->s, bk_sha256_iv, sizeof ctx->s);
    ctx->bytes = 0;
}

void bk_sha256_update(bk_sha256_ctx *ctx, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t fill = (size_t)(ctx->bytes & 63);
    if (len == 0) return;
    void (*compress)(uint32_t *, const uint8_t *, size_t) = bk_sha256_active()->compress;
    ctx->bytes += len;
    if (fill) {
        size_t take = 64 - fill;
        if (take > len) take = len;
        memcpy(ctx->buf + fill, p, take);
        p += take;
        len -= take;
        if (fill + take < 64) return;
        compress(ctx->s, ctx->buf, 1);
    }
    if (len >= 64) {
        compress(ctx->s, p, len / 64);
        p += len & ~(size_t)63;
        len &= 63;
    }
    if (len) memcpy(ctx->buf, p, len);
}

void bk_sha256_final(bk_sha256_ctx *ctx, uint8_t out[32])
{
    void (*compress)(uint32_t *, const uint8_t *, size_t) = bk_sha256_active()->compress;
    uint64_t bits = ctx->bytes * 8;
    size_t fill = (size_t)(ctx->bytes & 63);
    /* FIPS 180-4 5.1.1: 0x80, zeros, 64-bit big-endian bit length. */
    ctx->buf[fill++] = 0x80;
    if (fill > 56) {
        memset(ctx->buf + fill, 0, 64 - fill);
        compress(ctx->s, ctx->buf, 1);
        fill = 0;
    }
    memset(ctx->buf + fill, 0, 56 - fill);
    for (int i = 0; i < 8; i++) ctx->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    compress(ctx->s, ctx->buf, 1);
    for (int i = 0; i < 8; i++) bk_sha256_store_be32(out + 4 * i, ctx->s[i]);
}

void bk_sha256(uint8_t out[32], const void *data, size_t len)
{
    bk_sha256_ctx c;
    bk_sha256_init(&c);
    bk_sha256_update(&c, data, len);
    bk_sha256_final(&c, out);
}

void bk_sha256d(uint8_t out[32], const void *data, size_t len)
{
    uint8_t t[32];
    bk_sha256(t, data, len);
    bk_sha256(out, t, 32);
}

void bk_sha256_64(uint8_t *out, const uint8_t *in, size_t n)
{
    if (n) bk_sha256_active()->hash_64(out, in, n);
}

void bk_sha256d_64(uint8_t *out, const uint8_t *in, size_t n)
{
    if (n) bk_sha256_active()->hashd_64(out, in, n);
}

void bk_sha256d_msgs(uint8_t *out, const bk_sha256_msg *msgs, size_t n)
{
    if (n) bk_sha256_active()->hashd_msgs(out, msgs, n);
}
