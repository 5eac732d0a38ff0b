/* Internal helpers of src/bitcoin/undo.c shared with blockstats.c. */
#ifndef BLOCKKIT_SRC_BITCOIN_UNDO_INTERNAL_H
#define BLOCKKIT_SRC_BITCOIN_UNDO_INTERNAL_H

#include <stdint.h>

/* 1 when x (32 bytes, big-endian) is the x of a point on secp256k1: the
 * check bk_block_undo_parse makes on a compressed uncompressed-P2PK coin
 * (script size 4 or 5). */
int bk_undo_x_on_curve(const uint8_t x[32]);

#endif
