/* Internal helpers shared by script.c, address.c and descriptor.c. */
#ifndef BLOCKKIT_SCRIPT_INTERNAL_H
#define BLOCKKIT_SCRIPT_INTERNAL_H

#include <blockkit/script.h>

/* Lowercase hex of src[0..n) into dst[0..2n) (no NUL). */
void bk_script_hex(char *dst, const uint8_t *src, size_t n);

/* Room for n bytes at the end of w (fast path inline). NULL on failure. */
static inline uint8_t *bk_script_space(bk_writer *w, size_t n)
{
    if (n <= w->cap - w->len) return w->data + w->len;
    return bk_writer_space(w, n);
}

/* Address of a solved script (Core: ExtractDestination + EncodeDestination)
 * into out (BK_SCRIPT_ADDRESS_MAX bytes), NUL-terminated; returns its
 * length, 0 when Core prints no address. */
size_t bk_script_address_encode(const bk_script_solution *sol, const bk_network_params *p,
                                char out[BK_SCRIPT_ADDRESS_MAX]);

/* XOnlyPubKey::IsFullyValid: x < p and x^3 + 7 is a square mod p. */
int bk_script_xonly_valid(const uint8_t x[32]);

#endif
