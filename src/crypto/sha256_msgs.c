/* Multi-message SHA-256d driver for backends whose kernels take states in
 * memory (portable, AVX2): `lanes` messages in flight (sha256_lane.h), one
 * block per lane per kernel call; when a message finishes, the next one
 * moves into its lane. The SHA-NI, AVX-512 and ARMv8 files have their own
 * drivers over the same lanes that keep the states in registers.
 * ISA-neutral: compiled without special flags, it only calls the kernels it
 * is given. */
#include "sha256_lane.h"

typedef struct driver {
    const bk_sha256_msg *msgs;
    size_t n, next;
    uint8_t *out;
} driver;

/* The lane's next block; on a finished hash moves to the second hash or
 * the next message (state s back to the IV). NULL: nothing left. */
static const uint8_t *advance(driver *d, bk_lane *l, uint32_t s[8])
{
    const uint8_t *p = bk_lane_block(l);
    if (p) return p;
    p = bk_lane_hash_done(l, s);
    if (!p) {
        if (d->next >= d->n) return NULL;
        bk_lane_start(l, &d->msgs[d->next], d->out + 32 * d->next);
        d->next++;
        p = bk_lane_block(l);
    }
    memcpy(s, bk_sha256_iv, 32);
    return p;
}

void bk_sha256d_msgs_lanes(uint8_t *out, const bk_sha256_msg *msgs, size_t n, unsigned lanes,
                           bk_sha256_lanes_fn compress_lanes,
                           void (*compress1)(uint32_t s[8], const uint8_t *blocks, size_t nblocks))
{
    driver d = {msgs, n, 0, out};
    bk_lane L[16];
    uint32_t S[16][8], scratch_s[8];
    static const uint8_t scratch_block[64];
    const uint8_t *blk[16], *kb[16];
    uint32_t *states[16];

    memset(scratch_s, 0, sizeof scratch_s);
    for (unsigned i = 0; i < lanes; i++) {
        blk[i] = NULL;
        if (d.next < n) {
            bk_lane_start(&L[i], &msgs[d.next], out + 32 * d.next);
            d.next++;
            memcpy(S[i], bk_sha256_iv, 32);
            blk[i] = bk_lane_block(&L[i]);
        }
    }
    for (;;) {
        unsigned active = 0, last = 0;
        for (unsigned i = 0; i < lanes; i++) {
            if (blk[i]) {
                states[i] = S[i];
                kb[i] = blk[i];
                active++;
                last = i;
            } else {
                states[i] = scratch_s;
                kb[i] = scratch_block;
            }
        }
        if (active == 0) return;
        if (active == 1 && compress1) {
            /* The last message: no lane work to waste. */
            for (const uint8_t *p = blk[last]; p; p = advance(&d, &L[last], S[last]))
                compress1(S[last], p, 1);
            return;
        }
        compress_lanes(states, kb, 1);
        for (unsigned i = 0; i < lanes; i++)
            if (blk[i]) blk[i] = advance(&d, &L[i], S[i]);
    }
}
