/* Records of Bitcoin Core's txindex: CDiskTxPos and CBlockLocator
 * (blockkit/txindex.h). Pure functions over bytes. */
#include <blockkit/stream.h>
#include <blockkit/txindex.h>

#include <stdint.h>
#include <string.h>

/* A VARINT that must not exceed max (Core's ReadVarInt<I> for a type whose
 * largest value is max: "size too large"). */
static uint64_t read_varint_max(bk_reader *r, uint64_t max)
{
    size_t start = r->pos;
    uint64_t v = bk_read_varint(r);
    if (bk_reader_ok(r) && v > max) bk_reader_fail(r, BK_ERR_OVERFLOW, start, "ReadVarInt(): size too large");
    return v;
}

bk_status bk_tx_pos_decode(const uint8_t *val, size_t len, bk_tx_pos *pos_out, bk_error *err)
{
    if ((!val && len) || !pos_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_reader r;
    bk_reader_init(&r, val, len);
    uint64_t file = read_varint_max(&r, INT32_MAX);
    uint64_t pos = read_varint_max(&r, UINT32_MAX);
    uint64_t off = read_varint_max(&r, UINT32_MAX);
    if (bk_reader_ok(&r) && bk_reader_remaining(&r))
        bk_reader_fail(&r, BK_ERR_TRAILING, r.pos, "bytes after CDiskTxPos");
    if (!bk_reader_ok(&r)) return bk_reader_error(&r, err);
    pos_out->file = (uint32_t)file;
    pos_out->block_pos = (uint32_t)pos;
    pos_out->tx_offset = (uint32_t)off;
    return BK_OK;
}

bk_status bk_block_locator_decode(const uint8_t *val, size_t len, uint8_t first_out[32], uint64_t *n_out,
                                  bk_error *err)
{
    if ((!val && len) || !n_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_reader r;
    bk_reader_init(&r, val, len);
    (void)bk_read_u32(&r); /* the serialization version (unused) */
    size_t count_at = r.pos;
    uint64_t n = bk_read_compact_size(&r, 1);
    if (bk_reader_ok(&r) && n > bk_reader_remaining(&r) / 32)
        bk_reader_fail(&r, BK_ERR_COUNT, count_at, "locator hash count exceeds the bytes left");
    if (bk_reader_ok(&r) && n == 0) bk_reader_fail(&r, BK_ERR_INVALID, count_at, "empty block locator");
    const uint8_t *first = bk_reader_ok(&r) ? r.data + r.pos : NULL;
    if (bk_reader_ok(&r)) r.pos += (size_t)n * 32;
    if (bk_reader_ok(&r) && bk_reader_remaining(&r))
        bk_reader_fail(&r, BK_ERR_TRAILING, r.pos, "bytes after the block locator");
    if (!bk_reader_ok(&r)) return bk_reader_error(&r, err);
    if (first_out) memcpy(first_out, first, 32);
    *n_out = n;
    return BK_OK;
}
