/* Fuzz the txindex record decoders (blockkit/txindex.h): CDiskTxPos and
 * CBlockLocator. A CDiskTxPos that decodes re-encodes to the same bytes
 * (Core's VARINT is a bijection, so any other outcome is a decoder bug);
 * an error's offset lies inside the input. The first byte selects the
 * decoder. */
#include <blockkit/stream.h>
#include <blockkit/txindex.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const uint8_t *v = data + 1;
    size_t n = size - 1;
    bk_error err;
    if (data[0] & 1) {
        uint8_t first[32];
        uint64_t count = 0;
        if (bk_block_locator_decode(v, n, first, &count, &err) != BK_OK) {
            if (err.offset > n) abort();
            return 0;
        }
        if (count == 0 || 4 + bk_compact_size_len(count) + 32 * count != n) abort();
        if (memcmp(first, v + 4 + bk_compact_size_len(count), 32) != 0) abort();
        return 0;
    }
    bk_tx_pos pos;
    if (bk_tx_pos_decode(v, n, &pos, &err) != BK_OK) {
        if (err.offset > n) abort();
        return 0;
    }
    if (pos.file > INT32_MAX) abort();
    uint8_t re[30];
    size_t k = bk_varint_encode(re, pos.file);
    k += bk_varint_encode(re + k, pos.block_pos);
    k += bk_varint_encode(re + k, pos.tx_offset);
    if (k != n || memcmp(re, v, n) != 0) abort();
    return 0;
}
