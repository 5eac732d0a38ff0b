/* Fuzz bk_reader: the input is both program and data. Each step reads an
 * opcode byte from the reader itself, then performs that read (CompactSize
 * with and without Core's MAX_SIZE check, VARINT, a span, u8/u16/u32/u64)
 * and checks the invariants:
 *   - a successful CompactSize re-encodes to exactly the bytes it consumed
 *     (Core rejects non-canonical encodings), and is <= MAX_SIZE when
 *     range-checked;
 *   - a successful VARINT re-encodes (bk_varint_encode) to exactly the bytes
 *     it consumed (the encoding is a bijection);
 *   - spans and integers come from the bytes at the old position;
 *   - once an error is set, it stays (sticky), reads return 0/NULL and move
 *     nothing, pos <= len and the reported offset <= len. */
#include <stdlib.h>
#include <string.h>
#include <blockkit/stream.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ASSERT(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_reader r;
    bk_reader_init(&r, data, size);
    int steps = 0;
    while (bk_reader_ok(&r) && steps++ < 4096) {
        uint8_t op = bk_read_u8(&r);
        if (!bk_reader_ok(&r)) break;
        size_t pos0 = r.pos;
        const uint8_t *at = data + pos0;
        uint8_t enc[10];
        switch (op % 8) {
        case 0:
        case 1: {
            int check = op % 8 == 1;
            uint64_t v = bk_read_compact_size(&r, check);
            if (bk_reader_ok(&r)) {
                size_t n = bk_compact_size_encode(enc, v);
                ASSERT(n == r.pos - pos0 && n == bk_compact_size_len(v));
                ASSERT(memcmp(enc, at, n) == 0);
                if (check) ASSERT(v <= BK_MAX_SIZE);
            } else {
                ASSERT(v == 0);
            }
            break;
        }
        case 2: {
            uint64_t v = bk_read_varint(&r);
            if (bk_reader_ok(&r)) {
                size_t n = bk_varint_encode(enc, v);
                ASSERT(n == r.pos - pos0);
                ASSERT(memcmp(enc, at, n) == 0);
            } else {
                ASSERT(v == 0);
            }
            break;
        }
        case 3: {
            size_t n = (size_t)(op >> 3) * 3;  /* 0..93, sometimes past the end */
            const uint8_t *p = bk_read_span(&r, n);
            if (p) ASSERT(p == at && r.pos == pos0 + n);
            else ASSERT(!bk_reader_ok(&r) && n > size - pos0);
            break;
        }
        case 4: { uint8_t v = bk_read_u8(&r); if (bk_reader_ok(&r)) ASSERT(v == at[0]); else ASSERT(v == 0); break; }
        case 5: { uint16_t v = bk_read_u16(&r); if (bk_reader_ok(&r)) ASSERT(v == bk_load_le16(at)); else ASSERT(v == 0); break; }
        case 6: { uint32_t v = bk_read_u32(&r); if (bk_reader_ok(&r)) ASSERT(v == bk_load_le32(at)); else ASSERT(v == 0); break; }
        default: { uint64_t v = bk_read_u64(&r); if (bk_reader_ok(&r)) ASSERT(v == bk_load_le64(at)); else ASSERT(v == 0); break; }
        }
        ASSERT(r.pos <= r.len);
    }
    if (!bk_reader_ok(&r)) {
        /* Sticky: further reads change nothing. */
        size_t pos = r.pos, err_pos = r.err_pos;
        bk_status st = r.status;
        ASSERT(bk_read_compact_size(&r, 1) == 0 && bk_read_varint(&r) == 0);
        ASSERT(bk_read_span(&r, 0) == NULL && bk_read_u64(&r) == 0);
        ASSERT(r.pos == pos && r.err_pos == err_pos && r.status == st);
        bk_error err;
        ASSERT(bk_reader_error(&r, &err) == st && st != BK_OK);
        ASSERT(err.offset <= size && err.msg[0] != 0);
    }
    ASSERT(r.pos <= size);
    return 0;
}
