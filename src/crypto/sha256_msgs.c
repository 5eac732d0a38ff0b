/* Multi-message SHA-256d scheduler: keeps `lanes` independent segmented
 * messages in flight, feeding each lane's kernel one 64-byte block per step.
 * Blocks are taken straight from the caller's segments when 64 contiguous
 * bytes are there, otherwise assembled across segment boundaries (and with
 * the padding) in the lane's own buffer. When a lane's message is done (the
 * second, 32-byte hash included), the next message moves into that lane.
 * ISA-neutral: compiled without special flags, it only calls the kernels it
 * is given. */
#include "sha256_impl.h"

#include <string.h>

enum { LANE_DATA, LANE_TAIL, LANE_SECOND, LANE_IDLE };

typedef struct lane {
    const bk_sha256_seg *segs;
    size_t nsegs, seg, off;  /* read position: segment index, offset in it */
    uint64_t len;            /* message length in bytes */
    size_t out_idx;
    int stage;
    unsigned tail_blocks, tail_next;
    uint32_t s[8];
    uint8_t buf[128];        /* assembled block(s): data tail + padding, or the second hash */
} lane;

static void lane_start(lane *l, const bk_sha256_msg *m, size_t idx)
{
    l->segs = m->segs;
    l->nsegs = m->nsegs;
    l->seg = 0;
    l->off = 0;
    l->len = 0;
    for (size_t i = 0; i < m->nsegs; i++) l->len += m->segs[i].len;
    l->out_idx = idx;
    l->stage = LANE_DATA;
    memcpy(l->s, bk_sha256_iv, sizeof l->s);
}

/* Next block of the first hash's data (possibly its first padding block). */
static const uint8_t *lane_data_block(lane *l)
{
    while (l->seg < l->nsegs && l->off == l->segs[l->seg].len) {
        l->seg++;
        l->off = 0;
    }
    if (l->seg < l->nsegs && l->segs[l->seg].len - l->off >= 64) {
        const uint8_t *p = l->segs[l->seg].data + l->off;
        l->off += 64;
        return p;
    }
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
    /* Data exhausted: FIPS 180-4 5.1.1 padding, one or two blocks. */
    uint64_t bits = l->len * 8;
    l->buf[fill] = 0x80;
    l->tail_blocks = fill < 56 ? 1 : 2;
    size_t end = 64 * (size_t)l->tail_blocks;
    memset(l->buf + fill + 1, 0, end - 8 - (fill + 1));
    for (int i = 0; i < 8; i++) l->buf[end - 8 + i] = (uint8_t)(bits >> (56 - 8 * i));
    l->tail_next = 1;
    l->stage = LANE_TAIL;
    return l->buf;
}

/* The block this lane needs next, or NULL once the lane's message is done
 * (after its last block has been compressed). */
static const uint8_t *lane_next(lane *l)
{
    switch (l->stage) {
    case LANE_DATA:
        return lane_data_block(l);
    case LANE_TAIL:
        if (l->tail_next < l->tail_blocks) return l->buf + 64 * l->tail_next++;
        /* First hash done: hash its 32-byte digest with constant padding. */
        for (int i = 0; i < 8; i++) bk_sha256_store_be32(l->buf + 4 * i, l->s[i]);
        l->buf[32] = 0x80;
        memset(l->buf + 33, 0, 62 - 33);
        l->buf[62] = 0x01; /* bit length 256 */
        l->buf[63] = 0x00;
        memcpy(l->s, bk_sha256_iv, sizeof l->s);
        l->stage = LANE_SECOND;
        return l->buf;
    default:
        return NULL;
    }
}

void bk_sha256d_msgs_lanes(uint8_t *out, const bk_sha256_msg *msgs, size_t n, unsigned lanes,
                           bk_sha256_lanes_fn compress_lanes,
                           void (*compress1)(uint32_t s[8], const uint8_t *blocks, size_t nblocks))
{
    lane L[16];
    uint32_t scratch_s[8];
    static const uint8_t scratch_block[64];
    uint32_t *states[16];
    const uint8_t *blocks[16];
    size_t next = 0;

    memset(scratch_s, 0, sizeof scratch_s);
    for (unsigned i = 0; i < lanes; i++) {
        if (next < n) lane_start(&L[i], &msgs[next], next), next++;
        else L[i].stage = LANE_IDLE;
    }
    for (;;) {
        unsigned active = 0, last = 0;
        for (unsigned i = 0; i < lanes; i++) {
            const uint8_t *b;
            while ((b = lane_next(&L[i])) == NULL) {
                if (L[i].stage == LANE_SECOND) {
                    for (int j = 0; j < 8; j++) bk_sha256_store_be32(out + 32 * L[i].out_idx + 4 * j, L[i].s[j]);
                    L[i].stage = LANE_IDLE;
                }
                if (next >= n) break;
                lane_start(&L[i], &msgs[next], next);
                next++;
            }
            if (b) {
                states[i] = L[i].s;
                blocks[i] = b;
                active++;
                last = i;
            } else {
                states[i] = scratch_s;
                blocks[i] = scratch_block;
            }
        }
        if (active == 0) return;
        if (active == 1 && compress1) compress1(states[last], blocks[last], 1);
        else compress_lanes(states, blocks);
    }
}
