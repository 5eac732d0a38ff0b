/* Internal helpers shared by src/bitcoin/tx.c and block.c. */
#ifndef BLOCKKIT_SRC_BITCOIN_TX_INTERNAL_H
#define BLOCKKIT_SRC_BITCOIN_TX_INTERNAL_H

#include <blockkit/bitcoin.h>

#include <string.h>

#if defined(__GNUC__)
#define BK_LIKELY(x) __builtin_expect(!!(x), 1)
#define BK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define BK_LIKELY(x) (x)
#define BK_UNLIKELY(x) (x)
#endif

/* The largest transaction a view holds: 1 GiB - 1, so that sizes and the
 * weight (3 * stripped + size) fit in 32 bits. Real transactions are far
 * smaller (a block's weight is at most 4,000,000). */
#define BK_TX_MAX_SIZE 0x3fffffffu

/* Parse one transaction starting at p, which lies in [base, end). Error
 * offsets are relative to base. On success tx->size bytes were consumed.
 * allow_witness 0 is Core's TX_NO_WITNESS deserialization. */
bk_status bk_tx_parse_in(const uint8_t *base, const uint8_t *p, const uint8_t *end, bk_tx *tx,
                         int allow_witness, bk_error *err);

/* Core's ReadCompactSize(range_check = true) over [*pp, end): advances *pp.
 * what names the field in error messages; offsets are relative to base. */
bk_status bk_cs_read_slow(const uint8_t *base, const uint8_t **pp, const uint8_t *end,
                          uint64_t *v, const char *what, bk_error *err);

static inline bk_status bk_cs_read(const uint8_t *base, const uint8_t **pp, const uint8_t *end,
                                   uint64_t *v, const char *what, bk_error *err)
{
    const uint8_t *p = *pp;
    if (BK_LIKELY(p < end && *p < 0xfd)) {
        *v = *p;
        *pp = p + 1;
        return BK_OK;
    }
    return bk_cs_read_slow(base, pp, end, v, what, err);
}

/* Core: CTransaction::IsCoinBase, inline for the per-transaction loops
 * (bk_tx_is_coinbase is this, exported; the prevout index is tested before
 * the 32 zero bytes). */
static inline int bk_tx_is_coinbase_fast(const bk_tx *tx)
{
    if (tx->n_in != 1) return 0;
    const uint8_t *p = tx->data + tx->vin_pos;
    if (bk_load_le32(p + 32) != 0xffffffffu) return 0;
    static const uint8_t zero[32];
    return memcmp(p, zero, 32) == 0;
}

/* CompactSize of already validated bytes (no checks). */
static inline uint64_t bk_cs_get(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    uint8_t b = p[0];
    if (BK_LIKELY(b < 0xfd)) {
        *pp = p + 1;
        return b;
    }
    if (b == 0xfd) {
        *pp = p + 3;
        return bk_load_le16(p + 1);
    }
    if (b == 0xfe) {
        *pp = p + 5;
        return bk_load_le32(p + 1);
    }
    *pp = p + 9;
    return bk_load_le64(p + 1);
}

#endif
