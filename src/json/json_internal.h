/* Internal helpers shared by the JSON sources (not public API). */
#ifndef BLOCKKIT_JSON_INTERNAL_H
#define BLOCKKIT_JSON_INTERNAL_H

#include <blockkit/json.h>

/* Append the hex of n bytes (reversed for _rev) to w, chunked so a sink
 * writer never needs a buffer larger than its chunk. */
void bk_put_hex(bk_writer *w, const uint8_t *p, size_t n);
void bk_put_hex_rev(bk_writer *w, const uint8_t *p, size_t n);

/* Decimal text of v into out (at most 20 / 21 bytes); returns the length. */
size_t bk_u64_format(char *out, uint64_t v);
size_t bk_i64_format(char *out, int64_t v);

/* Write the separator a value needs at this point; 0 when the writer is in
 * error or the value is not allowed here (then nothing is written). */
int bk_json_before_value_(bk_json *j);

#endif
