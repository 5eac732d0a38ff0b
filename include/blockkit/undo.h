/* blockkit: Bitcoin Core undo data (rev*.dat) as views.
 *
 * CBlockUndo = CompactSize n, n x CTxUndo (one per non-coinbase tx, in block
 * order); CTxUndo = CompactSize m, m x Coin (one per input, in input order);
 * Coin = VARINT(height*2 + coinbase), a dummy VARINT when height > 0,
 * VARINT(CompressAmount(value)), compressed script (Core: src/undo.h,
 * src/coins.h, src/compressor.cpp; spec §9). Parsing validates everything
 * (including that compressed uncompressed-P2PK keys lie on the curve), so the
 * iterators cannot fail afterwards. */
#ifndef BLOCKKIT_UNDO_H
#define BLOCKKIT_UNDO_H

#include <blockkit/bitcoin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest script a compressed form expands to (uncompressed P2PK). */
#define BK_COIN_SCRIPT_BUF 67

typedef struct bk_coin {
    uint32_t height;
    uint8_t coinbase;
    int64_t value;              /* satoshis, decompressed */
    uint32_t script_len;
    const uint8_t *raw_script;  /* into the undo bytes for raw scripts; NULL when expanded into script_buf */
    uint8_t script_buf[BK_COIN_SCRIPT_BUF];
} bk_coin;

/* The coin's scriptPubKey bytes (script_len of them). */
static inline const uint8_t *bk_coin_script(const bk_coin *c)
{
    return c->raw_script ? c->raw_script : c->script_buf;
}

/* Read one Coin in TxInUndoFormatter form from r; returns r's status
 * (errors stick in r, with their offset). BK_ERR_TRUNCATED when the bytes
 * end early (a raw script over 10000 bytes must still be present: it is
 * skipped and the script becomes the single byte 6a, as in Core);
 * BK_ERR_OVERFLOW for a height code, dummy or script size VARINT over 32
 * bits (Core reads them into 32-bit integers); BK_ERR_SCRIPT at the key
 * bytes when a compressed uncompressed-P2PK x (nSize 4/5) is not on the
 * curve (Core would leave the script empty; blockkit refuses rather than
 * report an empty scriptPubKey). Raw scripts point into r's bytes. */
BK_API bk_status bk_coin_read(bk_reader *r, bk_coin *coin_out) BK_WARN_UNUSED;

/* Read one Coin in Core's own serialization (coins.h Coin::Serialize: the
 * chainstate's values and the coins of a dumptxoutset snapshot):
 * VARINT(height*2 + coinbase), VARINT(CompressAmount(value)), compressed
 * script, with no version dummy. Errors as bk_coin_read. */
BK_API bk_status bk_coin_read_txout(bk_reader *r, bk_coin *coin_out) BK_WARN_UNUSED;

/* Core: compressor.cpp DecompressAmount / CompressAmount. */
BK_API uint64_t bk_amount_decompress(uint64_t x);
BK_API uint64_t bk_amount_compress(uint64_t n);

typedef struct bk_block_undo {
    const uint8_t *data;
    size_t size;
    uint32_t n_txundo;
} bk_block_undo;

/* Parse and validate a whole CBlockUndo (no trailing bytes). Allocates
 * nothing; undo_out borrows data. Errors (with the offset in data): those
 * of bk_coin_read, BK_ERR_NONCANONICAL / BK_ERR_SIZE for a CompactSize
 * count, BK_ERR_COUNT for a count the remaining bytes cannot hold (checked
 * before use), BK_ERR_TRAILING. */
BK_API bk_status bk_block_undo_parse(const uint8_t *data, size_t len, bk_block_undo *undo_out,
                                     bk_error *err) BK_WARN_UNUSED;

/* Check the undo's shape against its block: n_tx - 1 CTxUndo and, for each
 * non-coinbase tx, one coin per input. BK_ERR_MISMATCH ("undo data does not
 * match block") with the offset of the first disagreeing CTxUndo. */
BK_API bk_status bk_block_undo_check(const bk_block_undo *undo, const bk_block *block,
                                     bk_error *err) BK_WARN_UNUSED;

/* Walk a parsed CBlockUndo: next_tx() returns 1 with the coin count of the
 * next CTxUndo; next_coin() returns 1 with the next coin of that CTxUndo. */
typedef struct bk_undo_iter {
    const bk_block_undo *undo;
    size_t pos;
    uint32_t tx_left;
    uint32_t coins_left;
} bk_undo_iter;

/* The block's total fee: the sum of all spent coins minus the sum of the
 * outputs of its non-coinbase transactions (satoshis). Call after
 * bk_block_undo_check() has accepted the pair; the result is the coinbase's
 * reward minus its subsidy for a valid block. Every spent coin and every
 * output value must be in Core's MoneyRange (0..21e14 satoshis) and so must
 * the fee; otherwise bk_block_fees_checked returns BK_ERR_INVALID ("fee out
 * of range (inputs I, outputs O)", offset 0) and *fee_out is 0. Amounts come
 * straight from untrusted bytes: no overflow is possible. */
BK_API bk_status bk_block_fees_checked(const bk_block *block, const bk_block_undo *undo, int64_t *fee_out,
                                       bk_error *err) BK_WARN_UNUSED;
/* The same, returning the fee, or BK_FEES_INVALID (INT64_MIN) when
 * bk_block_fees_checked would fail. */
#define BK_FEES_INVALID INT64_MIN
BK_API int64_t bk_block_fees(const bk_block *block, const bk_block_undo *undo);

BK_API void bk_undo_iter_init(bk_undo_iter *it, const bk_block_undo *undo);
BK_API int bk_undo_next_tx(bk_undo_iter *it, uint32_t *n_coins_out);
BK_API int bk_undo_next_coin(bk_undo_iter *it, bk_coin *coin_out);

#ifdef __cplusplus
}
#endif
#endif
