/* Internal: merkle tuning constants, visible to the tests so they can aim
 * at the boundaries. Not installed. */
#ifndef BLOCKKIT_MERKLE_INTERNAL_H
#define BLOCKKIT_MERKLE_INTERNAL_H

/* Subtrees of 2^BK_MERKLE_CHUNK_LOG2 leaves (128 KiB at 12: inside every
 * L2) are reduced one at a time so a large tree is hashed from cache, not
 * from memory. Tests and the fuzz target also build merkle.c with a tiny
 * value to exercise the chunked order on small trees. */
#ifndef BK_MERKLE_CHUNK_LOG2
#define BK_MERKLE_CHUNK_LOG2 12
#endif

#endif
