/* Thrift compact protocol, the few writers Parquet's metadata needs
 * (apache/thrift doc/specs/thrift-compact-protocol.md): field headers with
 * id deltas, zigzag varints, binaries, lists, structs, booleans in the
 * field header. Each struct level keeps its own "last field id". */
#ifndef BLOCKKIT_PARQUET_THRIFT_H
#define BLOCKKIT_PARQUET_THRIFT_H

#include <blockkit/stream.h>

enum {
    TC_TRUE = 1,
    TC_FALSE = 2,
    TC_BYTE = 3,
    TC_I16 = 4,
    TC_I32 = 5,
    TC_I64 = 6,
    TC_DOUBLE = 7,
    TC_BINARY = 8,
    TC_LIST = 9,
    TC_STRUCT = 12
};

static inline void tc_varint(bk_writer *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    bk_writer_put(w, b, n);
}

static inline void tc_zigzag(bk_writer *w, int64_t v)
{
    tc_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void tc_field(bk_writer *w, int *last, int id, int type)
{
    int d = id - *last;
    if (d > 0 && d <= 15) {
        bk_writer_putc(w, (char)((d << 4) | type));
    } else {
        bk_writer_putc(w, (char)type);
        tc_zigzag(w, id);
    }
    *last = id;
}

static inline void tc_i32(bk_writer *w, int *last, int id, int32_t v)
{
    tc_field(w, last, id, TC_I32);
    tc_zigzag(w, v);
}

static inline void tc_i64(bk_writer *w, int *last, int id, int64_t v)
{
    tc_field(w, last, id, TC_I64);
    tc_zigzag(w, v);
}

static inline void tc_bool(bk_writer *w, int *last, int id, int v)
{
    tc_field(w, last, id, v ? TC_TRUE : TC_FALSE);
}

static inline void tc_raw_binary(bk_writer *w, const void *p, size_t n)
{
    tc_varint(w, n);
    if (n) bk_writer_put(w, p, n);
}

static inline void tc_binary(bk_writer *w, int *last, int id, const void *p, size_t n)
{
    tc_field(w, last, id, TC_BINARY);
    tc_raw_binary(w, p, n);
}

/* A list field header: n elements of type etype follow. */
static inline void tc_list(bk_writer *w, int *last, int id, int etype, size_t n)
{
    tc_field(w, last, id, TC_LIST);
    if (n < 15) {
        bk_writer_putc(w, (char)((n << 4) | (size_t)etype));
    } else {
        bk_writer_putc(w, (char)(0xf0 | etype));
        tc_varint(w, n);
    }
}

/* A struct field: its fields follow (with a fresh last id), then tc_stop. */
static inline void tc_struct(bk_writer *w, int *last, int id) { tc_field(w, last, id, TC_STRUCT); }
static inline void tc_stop(bk_writer *w) { bk_writer_putc(w, 0); }

#endif
