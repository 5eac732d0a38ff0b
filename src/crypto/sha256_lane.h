/* Internal: one lane of the multi-message SHA-256d scheduler, as inline
 * ISA-neutral C so each backend's driver (sha256_msgs.c, and the SHA-NI,
 * AVX-512 and ARMv8 files) compiles it together with its kernel and keeps
 * the lane states in registers.
 *
 * A lane walks one segmented message: bk_lane_block() hands out the next
 * 64-byte block of the hash in progress, straight from the caller's segment
 * when 64 contiguous bytes are there, otherwise assembled across segment
 * boundaries (and with the FIPS 180-4 5.1.1 padding) in the lane's buffer.
 * When it returns NULL, the driver passes the state words of the finished
 * hash to bk_lane_hash_done(): after the first hash that returns the second
 * hash's one block (the 32-byte digest + constant padding), to be
 * compressed from the IV; after the second it stores the digest and
 * returns NULL (the message is done). */
#ifndef BLOCKKIT_SHA256_LANE_H
#define BLOCKKIT_SHA256_LANE_H

#include "sha256_impl.h"

#include <string.h>

enum { BK_LANE_DATA, BK_LANE_TAIL, BK_LANE_SECOND };

typedef struct bk_lane {
    const uint8_t *run;      /* the next of nrun whole blocks left in a segment */
    size_t nrun;
    const bk_sha256_seg *segs;
    size_t nsegs, seg, off;  /* read position: segment index, offset in it */
    uint64_t len;            /* message length in bytes */
    uint8_t *out;            /* where the digest goes */
    int stage;
    unsigned tail_left;      /* padding blocks not yet handed out */
    uint8_t buf[128];        /* assembled block(s) */
} bk_lane;

static inline void bk_lane_start(bk_lane *l, const bk_sha256_msg *m, uint8_t *out)
{
    l->segs = m->segs;
    l->nsegs = m->nsegs;
    l->seg = 0;
    l->off = 0;
    l->len = 0;
    for (size_t i = 0; i < m->nsegs; i++) l->len += m->segs[i].len;
    l->out = out;
    l->stage = BK_LANE_DATA;
    l->nrun = 0;
}

/* Slow path: assemble a block across segments, or the padding. */
static inline const uint8_t *bk_lane_assemble(bk_lane *l)
{
    size_t fill = 0;
    while (fill < 64 && l->seg < l->nsegs) {
        size_t avail = l->segs[l->seg].len - l->off;
        size_t take = 64 - fill < avail ? 64 - fill : avail;
        if (take) memcpy(l->buf + fill, l->segs[l->seg].data + l->off, take);
        fill += take;
        l->off += take;
        if (l->off == l->segs[l->seg].len) {
            l->seg++;
            l->off = 0;
        }
    }
    if (fill == 64) return l->buf;
    /* Data exhausted: 0x80, zeros, 64-bit big-endian bit length. */
    uint64_t bits = l->len * 8;
    size_t end = fill < 56 ? 64 : 128;
    l->buf[fill] = 0x80;
    memset(l->buf + fill + 1, 0, end - 8 - (fill + 1));
    for (int i = 0; i < 8; i++) l->buf[end - 8 + i] = (uint8_t)(bits >> (56 - 8 * i));
    l->stage = BK_LANE_TAIL;
    l->tail_left = (unsigned)(end / 64) - 1;
    return l->buf;
}

/* The next block once the run is used up: the next run of whole blocks in
 * a segment (its first block returned, the rest left in run/nrun), an
 * assembled block, a padding block, or NULL when the hash has no more. */
static inline const uint8_t *bk_lane_block_slow(bk_lane *l)
{
    if (l->stage == BK_LANE_DATA) {
        while (l->seg < l->nsegs && l->off == l->segs[l->seg].len) {
            l->seg++;
            l->off = 0;
        }
        if (l->seg < l->nsegs && l->segs[l->seg].len - l->off >= 64) {
            const uint8_t *p = l->segs[l->seg].data + l->off;
            size_t k = (l->segs[l->seg].len - l->off) / 64;
            l->off += 64 * k;
            l->run = p + 64;
            l->nrun = k - 1;
            return p;
        }
        return bk_lane_assemble(l);
    }
    if (l->stage == BK_LANE_TAIL && l->tail_left) {
        l->tail_left--;
        return l->buf + 64;
    }
    return NULL;
}

/* The lane's next block: most calls take the next block of the current
 * run (a pointer step; the drivers call this for every busy lane after
 * every compression). */
static inline __attribute__((always_inline)) const uint8_t *bk_lane_block(bk_lane *l)
{
    if (__builtin_expect(l->nrun != 0, 1)) {
        const uint8_t *p = l->run;
        l->run += 64;
        l->nrun--;
        return p;
    }
    return bk_lane_block_slow(l);
}

/* About how many compressions the lane's message still needs (its hash in
 * progress and, after the first, the second): for ordering only. */
static inline uint64_t bk_lane_left(const bk_lane *l)
{
    if (l->stage == BK_LANE_SECOND) return 1;
    if (l->stage == BK_LANE_TAIL) return 1 + l->tail_left + 1;
    uint64_t done = l->off;
    for (size_t i = 0; i < l->seg && i < l->nsegs; i++) done += l->segs[i].len;
    done -= 64 * (uint64_t)l->nrun;
    if (done > l->len) done = l->len;
    return (l->len - done + 8) / 64 + 1 + 1;
}

/* The second hash's one block (the digest s of the first, 0x80, zeros,
 * bit length 256) into the lane's buffer. */
static inline const uint8_t *bk_lane_second_block(bk_lane *l, const uint32_t s[8])
{
    for (int i = 0; i < 8; i++) bk_sha256_store_be32(l->buf + 4 * i, s[i]);
    l->buf[32] = 0x80;
    memset(l->buf + 33, 0, 62 - 33);
    l->buf[62] = 0x01;
    l->buf[63] = 0x00;
    return l->buf;
}

static inline const uint8_t *bk_lane_hash_done(bk_lane *l, const uint32_t s[8])
{
    if (l->stage == BK_LANE_SECOND) {
        for (int i = 0; i < 8; i++) bk_sha256_store_be32(l->out + 4 * i, s[i]);
        return NULL;
    }
    l->stage = BK_LANE_SECOND;
    return bk_lane_second_block(l, s);
}

/* The first hash is done and the driver builds the second hash's block
 * itself (from the state words it holds): only the stage moves. */
static inline void bk_lane_second_in_registers(bk_lane *l)
{
    l->stage = BK_LANE_SECOND;
}

#endif
