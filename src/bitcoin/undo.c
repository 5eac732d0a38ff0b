/* Bitcoin Core undo data (CBlockUndo / CTxUndo / Coin) as views.
 *
 * Core: src/undo.h (TxInUndoFormatter, CTxUndo, CBlockUndo), src/coins.h,
 * src/compressor.h/.cpp (ScriptCompression, AmountCompression,
 * DecompressScript, DecompressAmount), src/serialize.h (VARINT). */
#include <blockkit/undo.h>

#include "bitcoin/undo_internal.h"

#include <gmp.h>
#include <secp256k1.h>

/* The smallest Coin: code 00, amount 00, script size 06 (empty raw script). */
#define BK_MIN_COIN_SIZE 3u

uint64_t bk_amount_compress(uint64_t n)
{
    /* Core: compressor.cpp CompressAmount. */
    if (n == 0) return 0;
    int e = 0;
    while (((n % 10) == 0) && e < 9) {
        n /= 10;
        e++;
    }
    if (e < 9) {
        uint64_t d = n % 10;
        n /= 10;
        return 1 + (n * 9 + d - 1) * 10 + (uint64_t)e;
    }
    return 1 + (n - 1) * 10 + 9;
}

/* VARINT fast path: decodes in place while the bytes are there and the
 * value cannot overflow (at most 8 bytes = 56 bits); anything else goes to
 * bk_read_varint, which reports the fault exactly as Core would. */
static inline uint64_t read_varint(bk_reader *r)
{
    if (r->status == BK_OK) {
        const uint8_t *p = r->data + r->pos;
        size_t avail = r->len - r->pos;
        uint64_t n = 0;
        for (size_t i = 0; i < avail && i < 8; i++) {
            uint8_t b = p[i];
            n = (n << 7) | (b & 0x7f);
            if (!(b & 0x80)) {
                r->pos += i + 1;
                return n;
            }
            n++;
        }
    }
    return bk_read_varint(r);
}

uint64_t bk_amount_decompress(uint64_t x)
{
    return bk_undo_amount_decompress(x);
}

/* Core reads these VARINTs into 32-bit types (uint32_t nCode, unsigned int
 * nVersionDummy, unsigned int nSize): ReadVarInt<I> throws "size too large"
 * exactly when the value does not fit I, which is what this checks. */
static inline uint32_t read_varint32(bk_reader *r)
{
    size_t start = r->pos;
    uint64_t v = read_varint(r);
    if (r->status == BK_OK && v > UINT32_MAX) {
        bk_reader_fail(r, BK_ERR_OVERFLOW, start, "ReadVarInt(): size too large");
        return 0;
    }
    return (uint32_t)v;
}

/* Core: compressor.cpp DecompressScript for nSize 4/5: the key was stored
 * as x with the parity of y in nSize; rebuild 04 || x || y. Unlike Core,
 * which leaves the script empty when x is not on the curve, this fails. */
static int decompress_p2pk_uncompressed(uint8_t prefix, const uint8_t x[32], uint8_t script[67])
{
    uint8_t comp[33];
    comp[0] = prefix;
    memcpy(comp + 1, x, 32);
    secp256k1_pubkey pk;
    if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, &pk, comp, sizeof comp)) return 0;
    size_t outlen = 65;
    script[0] = 65;
    if (!secp256k1_ec_pubkey_serialize(secp256k1_context_static, script + 1, &outlen, &pk,
                                       SECP256K1_EC_UNCOMPRESSED) ||
        outlen != 65)
        return 0;
    script[66] = 0xac; /* OP_CHECKSIG */
    return 1;
}

/* Whether x (32 bytes, big-endian) is the x of a point on secp256k1:
 * x < p and x^3 + 7 a square mod p (its Jacobi symbol not -1; it is never
 * 0, the group having no point of order 2). The same answer as
 * secp256k1_ec_pubkey_parse of 02 || x (x below the field size, then a
 * square root of x^3 + 7), which decompress_p2pk_uncompressed relies on,
 * in about half its time (no square root): the parse's check of a
 * compressed uncompressed-P2PK coin, which needs no script. GMP's mpn
 * layer on stack limbs, read-only mpz views: nothing allocated. */
int bk_undo_x_on_curve(const uint8_t x32[32])
{
    static const mp_limb_t p[4] = {0xFFFFFFFEFFFFFC2FULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFFFFFULL,
                                   0xFFFFFFFFFFFFFFFFULL};
    _Static_assert(sizeof(mp_limb_t) == 8 && GMP_NAIL_BITS == 0, "64-bit GMP limbs");
    mp_limb_t x[4], t[8], q[5], r[4], y[4];
    for (int i = 0; i < 4; i++) {
        mp_limb_t v = 0;
        for (int k = 0; k < 8; k++) v = (v << 8) | x32[(3 - i) * 8 + k];
        x[i] = v;
    }
    if (mpn_cmp(x, p, 4) >= 0) return 0;
    mpn_sqr(t, x, 4);
    mpn_tdiv_qr(q, r, 0, t, 8, p, 4);
    mpn_mul_n(t, r, x, 4);
    mpn_tdiv_qr(q, y, 0, t, 8, p, 4);
    if (mpn_add_1(y, y, 4, 7) || mpn_cmp(y, p, 4) >= 0) mpn_sub_n(y, y, p, 4);
    mpz_t a, m;
    return mpz_jacobi(mpz_roinit_n(a, y, 4), mpz_roinit_n(m, p, 4)) >= 0;
}

static bk_status coin_read_script(bk_reader *r, bk_coin *coin);

bk_status bk_coin_read(bk_reader *r, bk_coin *coin)
{
    /* Core: undo.h TxInUndoFormatter::Unser. */
    uint32_t code = read_varint32(r);
    coin->height = code >> 1;
    coin->coinbase = (uint8_t)(code & 1);
    if (coin->height > 0) (void)read_varint32(r); /* legacy nVersion dummy */
    coin->value = (int64_t)bk_amount_decompress(read_varint(r));
    return coin_read_script(r, coin);
}

bk_status bk_coin_read_txout(bk_reader *r, bk_coin *coin)
{
    /* Core: coins.h Coin::Unserialize (VARINT code, then TxOutCompression). */
    uint32_t code = read_varint32(r);
    coin->height = code >> 1;
    coin->coinbase = (uint8_t)(code & 1);
    coin->value = (int64_t)bk_amount_decompress(read_varint(r));
    return coin_read_script(r, coin);
}

static bk_status coin_read_script(bk_reader *r, bk_coin *coin)
{
    coin->raw_script = NULL;
    coin->script_len = 0;

    /* Core: compressor.h ScriptCompression::Unser. */
    uint32_t n_size = read_varint32(r);
    if (r->status != BK_OK) return r->status;
    if (n_size < BK_SPECIAL_SCRIPTS) {
        size_t body_pos = r->pos;
        const uint8_t *p = bk_read_span(r, (n_size < 2) ? 20 : 32);
        if (!p) return r->status;
        uint8_t *s = coin->script_buf;
        switch (n_size) {
        case 0: /* P2PKH */
            s[0] = 0x76; s[1] = 0xa9; s[2] = 20;
            memcpy(s + 3, p, 20);
            s[23] = 0x88; s[24] = 0xac;
            coin->script_len = 25;
            break;
        case 1: /* P2SH */
            s[0] = 0xa9; s[1] = 20;
            memcpy(s + 2, p, 20);
            s[22] = 0x87;
            coin->script_len = 23;
            break;
        case 2:
        case 3: /* compressed P2PK */
            s[0] = 33; s[1] = (uint8_t)n_size;
            memcpy(s + 2, p, 32);
            s[34] = 0xac;
            coin->script_len = 35;
            break;
        default: /* 4, 5: uncompressed P2PK */
            if (!decompress_p2pk_uncompressed((uint8_t)(n_size - 2), p, s))
                return bk_reader_fail(r, BK_ERR_SCRIPT, body_pos,
                                      "compressed uncompressed-P2PK key is not on the curve");
            coin->script_len = 67;
            break;
        }
        return BK_OK;
    }
    uint32_t len = n_size - BK_SPECIAL_SCRIPTS;
    if (len > BK_MAX_SCRIPT_SIZE) {
        /* Core: an oversized script becomes OP_RETURN, bytes skipped. */
        if (!bk_read_span(r, len)) return r->status;
        coin->script_buf[0] = 0x6a;
        coin->script_len = 1;
        return BK_OK;
    }
    const uint8_t *p = bk_read_span(r, len);
    if (!p) return r->status;
    coin->raw_script = p;
    coin->script_len = len;
    return BK_OK;
}

/* Check one coin as bk_coin_read would, without rebuilding its script
 * (only the uncompressed-P2PK key needs work: it must be on the curve). */
static bk_status coin_validate(bk_reader *r)
{
    uint32_t code = read_varint32(r);
    if (code >> 1) (void)read_varint32(r);
    (void)read_varint(r);
    uint32_t n_size = read_varint32(r);
    if (r->status != BK_OK) return r->status;
    if (n_size < BK_SPECIAL_SCRIPTS) {
        size_t body_pos = r->pos;
        const uint8_t *p = bk_read_span(r, n_size < 2 ? 20 : 32);
        if (!p) return r->status;
        if (n_size >= 4 && !bk_undo_x_on_curve(p))
            return bk_reader_fail(r, BK_ERR_SCRIPT, body_pos, "compressed uncompressed-P2PK key is not on the curve");
        return BK_OK;
    }
    (void)bk_read_span(r, n_size - BK_SPECIAL_SCRIPTS);
    return r->status;
}

/* Step over one already validated coin without rebuilding its script. */
static void coin_skip(bk_reader *r)
{
    uint64_t code = read_varint(r);
    if (code >> 1) (void)read_varint(r);
    (void)read_varint(r);
    uint64_t n_size = read_varint(r);
    if (n_size < BK_SPECIAL_SCRIPTS) (void)bk_read_span(r, n_size < 2 ? 20 : 32);
    else (void)bk_read_span(r, (size_t)(n_size - BK_SPECIAL_SCRIPTS));
}

/* ---- the fast path: a pointer walk with the same checks, or stricter.
 * It says yes only to what the reader-based parse below accepts; at the
 * first thing that parse might refuse (or anything unusual) it gives up
 * and that parse runs from the start, with its exact errors. ---- */


/* The whole CBlockUndo: 1 and its CTxUndo count when the reader-based
 * parse accepts it. */
static int fast_undo_parse(const uint8_t *data, size_t len, uint64_t *n_tx_out)
{
    const uint8_t *p = data, *end = data + len;
    uint64_t n_tx;
    if (!bk_undo_fast_compact(&p, end, &n_tx) || n_tx > (uint64_t)(end - p)) return 0;
    for (uint64_t t = 0; t < n_tx; t++) {
        uint64_t n_coins;
        if (!bk_undo_fast_compact(&p, end, &n_coins) || n_coins > (uint64_t)(end - p) / BK_MIN_COIN_SIZE) return 0;
        for (uint64_t c = 0; c < n_coins; c++)
            if (!bk_undo_fast_coin(&p, end, NULL, NULL)) return 0;
    }
    if (p != end) return 0;
    *n_tx_out = n_tx;
    return 1;
}

bk_status bk_block_undo_parse(const uint8_t *data, size_t len, bk_block_undo *undo, bk_error *err)
{
    uint64_t fast_n;
    if (data && fast_undo_parse(data, len, &fast_n)) {
        undo->data = data;
        undo->size = len;
        undo->n_txundo = (uint32_t)fast_n;
        return BK_OK;
    }
    bk_reader r;
    bk_reader_init(&r, data, len);
    /* Core: CBlockUndo is a std::vector<CTxUndo>; CTxUndo a vector of
     * TxInUndoFormatter coins (ReadCompactSize with the MAX_SIZE check). */
    size_t count_pos = r.pos;
    uint64_t n_tx = bk_read_compact_size(&r, 1);
    if (!bk_reader_ok(&r)) return bk_reader_error(&r, err);
    /* Each CTxUndo takes at least one byte: refuse counts the data cannot hold. */
    if (n_tx > bk_reader_remaining(&r))
        return bk_error_set(err, BK_ERR_COUNT, count_pos,
                            "CTxUndo count %llu exceeds the %zu remaining bytes",
                            (unsigned long long)n_tx, bk_reader_remaining(&r));
    for (uint64_t t = 0; t < n_tx; t++) {
        size_t pos = r.pos;
        uint64_t n_coins = bk_read_compact_size(&r, 1);
        if (!bk_reader_ok(&r)) return bk_reader_error(&r, err);
        if (n_coins > bk_reader_remaining(&r) / BK_MIN_COIN_SIZE)
            return bk_error_set(err, BK_ERR_COUNT, pos,
                                "coin count %llu of CTxUndo %llu exceeds what the %zu remaining bytes hold",
                                (unsigned long long)n_coins, (unsigned long long)t,
                                bk_reader_remaining(&r));
        for (uint64_t c = 0; c < n_coins; c++)
            if (coin_validate(&r) != BK_OK) return bk_reader_error(&r, err);
    }
    if (bk_reader_remaining(&r))
        return bk_error_set(err, BK_ERR_TRAILING, r.pos, "%zu bytes after the CBlockUndo",
                            bk_reader_remaining(&r));
    undo->data = data;
    undo->size = len;
    undo->n_txundo = (uint32_t)n_tx;
    return BK_OK;
}

void bk_undo_iter_init(bk_undo_iter *it, const bk_block_undo *undo)
{
    bk_reader r;
    bk_reader_init(&r, undo->data, undo->size);
    it->undo = undo;
    it->tx_left = (uint32_t)bk_read_compact_size(&r, 1);
    it->pos = r.pos;
    it->coins_left = 0;
}

int bk_undo_next_tx(bk_undo_iter *it, uint32_t *n_coins_out)
{
    if (it->tx_left == 0) return 0;
    bk_reader r;
    bk_reader_init(&r, it->undo->data, it->undo->size);
    /* Skip the coins of the current CTxUndo the caller did not read. */
    r.pos = it->pos;
    while (it->coins_left) {
        coin_skip(&r);
        it->coins_left--;
    }
    uint32_t n = (uint32_t)bk_read_compact_size(&r, 1);
    it->pos = r.pos;
    it->tx_left--;
    it->coins_left = n;
    if (n_coins_out) *n_coins_out = n;
    return 1;
}

int bk_undo_next_coin(bk_undo_iter *it, bk_coin *coin_out)
{
    if (it->coins_left == 0) return 0;
    bk_reader r;
    bk_reader_init(&r, it->undo->data, it->undo->size);
    r.pos = it->pos;
    if (bk_coin_read(&r, coin_out) != BK_OK) {
        /* Not reached for an undo bk_block_undo_parse accepted; a walk over
         * other bytes ends at the first coin that does not decode. */
        it->coins_left = 0;
        it->tx_left = 0;
        return 0;
    }
    it->pos = r.pos;
    it->coins_left--;
    return 1;
}

bk_status bk_block_undo_check(const bk_block_undo *undo, const bk_block *block, bk_error *err)
{
    /* Core: vtxundo has one CTxUndo per non-coinbase tx, one coin per input
     * (validation.cpp ConnectBlock / DisconnectBlock "block and undo data
     * inconsistent"). */
    if (block->n_tx == 0 || undo->n_txundo != block->n_tx - 1)
        return bk_error_set(err, BK_ERR_MISMATCH, 0,
                            "undo data does not match block: %u CTxUndo for %u transactions",
                            undo->n_txundo, block->n_tx);
    bk_undo_iter it;
    bk_undo_iter_init(&it, undo);
    uint32_t n_coins;
    for (uint32_t i = 1; i < block->n_tx; i++) {
        if (!bk_undo_next_tx(&it, &n_coins))
            return bk_error_set(err, BK_ERR_MISMATCH, it.pos, "undo data does not match block");
        size_t pos = it.pos - bk_compact_size_len(n_coins); /* start of this CTxUndo */
        if (n_coins != block->txs[i].n_in)
            return bk_error_set(err, BK_ERR_MISMATCH, pos,
                                "undo data does not match block: tx %u has %u inputs, CTxUndo has %u coins",
                                i, block->txs[i].n_in, n_coins);
    }
    return BK_OK;
}

/* Core: MAX_MONEY and MoneyRange (src/consensus/amount.h). */
#define FEE_MAX_MONEY (21000000LL * 100000000LL)

bk_status bk_block_fees_checked(const bk_block *block, const bk_block_undo *undo, int64_t *fee_out, bk_error *err)
{
    /* Each value is checked against MoneyRange before it is added, and the
     * sums are checked too: nothing can overflow (finding 12). */
    int64_t in = 0, out = 0, bad = 0;
    int ok = 1;
    *fee_out = 0;
    bk_undo_iter it;
    bk_undo_iter_init(&it, undo);
    uint32_t ncoins;
    while (ok && bk_undo_next_tx(&it, &ncoins)) {
        bk_coin c;
        while (ok && bk_undo_next_coin(&it, &c))
            if (!(ok = c.value >= 0 && c.value <= FEE_MAX_MONEY && !__builtin_add_overflow(in, c.value, &in)))
                bad = c.value;
    }
    for (uint32_t i = 1; ok && i < block->n_tx; i++) {
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, &block->txs[i]);
        while (ok && bk_txout_next(&oi, &o))
            if (!(ok = o.value >= 0 && o.value <= FEE_MAX_MONEY && !__builtin_add_overflow(out, o.value, &out)))
                bad = o.value;
    }
    if (!ok)
        return bk_error_set(err, BK_ERR_INVALID, 0, "fee out of range (an amount of %lld satoshis is outside MoneyRange)",
                            (long long)bad);
    if (in - out < 0 || in - out > FEE_MAX_MONEY)
        return bk_error_set(err, BK_ERR_INVALID, 0, "fee out of range (inputs %lld, outputs %lld)", (long long)in,
                            (long long)out);
    *fee_out = in - out;
    return BK_OK;
}

int64_t bk_block_fees(const bk_block *block, const bk_block_undo *undo)
{
    int64_t fee;
    return bk_block_fees_checked(block, undo, &fee, NULL) == BK_OK ? fee : BK_FEES_INVALID;
}
