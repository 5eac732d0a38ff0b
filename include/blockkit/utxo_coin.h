/* blockkit: one coin of the UTXO set (an outpoint and its bk_coin) and the
 * serializations the set is read and hashed with: Core's Coin value
 * (coins.h), its compressed script, TxOutSer (kernel/coinstats.cpp) and
 * MuHash3072 (crypto/muhash.h). Part of blockkit/utxo.h.
 *
 * Coins are bk_coin values (blockkit/undo.h) decoded from Core's own Coin
 * serialization (coins.h: VARINT(height*2+coinbase), compressed amount,
 * compressed script; bk_coin_read_txout) with their outpoint. */
#ifndef BLOCKKIT_UTXO_COIN_H
#define BLOCKKIT_UTXO_COIN_H

#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One unspent output: its outpoint and coin. coin.raw_script (when not
 * NULL) borrows the reader's buffer until its next call. */
typedef struct bk_utxo {
    uint8_t txid[32]; /* internal byte order */
    uint32_t vout;
    bk_coin coin;
} bk_utxo;

/* Decode a whole Coin value (a chainstate value after de-obfuscation):
 * bk_coin_read_txout plus BK_ERR_TRAILING for bytes after it. Raw scripts
 * point into data. */
BK_API bk_status bk_utxo_coin_decode(const uint8_t *data, size_t len, bk_coin *coin_out,
                                     bk_error *err) BK_WARN_UNUSED;

/* Core's MoneyRange: 0 <= value <= 21,000,000 BTC. */
static inline int bk_money_range(int64_t v) { return v >= 0 && v <= 2100000000000000LL; }

/* Core's ScriptCompression of a scriptPubKey into out (at most 5 + len
 * bytes); returns the length. Uncompressed P2PK keys are compressed only
 * when they are valid points (CPubKey::IsFullyValid). */
BK_API size_t bk_script_compress(const uint8_t *script, size_t len, uint8_t *out);

/* TxOutSer of one coin into out (at most 53 + 10000 bytes, BK_UTXO_SER_MAX);
 * returns its length. */
#define BK_UTXO_SER_MAX (32 + 4 + 4 + 8 + 5 + 10000)
BK_API size_t bk_utxo_txout_ser(const bk_utxo *u, uint8_t *out);

/* ---------------------------------------------------------------- MuHash */

/* MuHash3072 (Core: crypto/muhash.h): numerator and denominator, each a
 * 3072-bit number below 2^3072 (not necessarily reduced below p). Plain
 * data: may be copied; needs no cleanup. */
typedef struct bk_muhash {
    uint64_t num[48];
    uint64_t den[48];
} bk_muhash;

/* The empty set (numerator = denominator = 1). */
BK_API void bk_muhash_init(bk_muhash *m);
/* Multiply in / divide out one element (any bytes). */
BK_API void bk_muhash_insert(bk_muhash *m, const void *data, size_t len);
BK_API void bk_muhash_remove(bk_muhash *m, const void *data, size_t len);
/* m = m * other (the union of two disjoint sets; order never matters). */
BK_API void bk_muhash_combine(bk_muhash *m, const bk_muhash *other);
/* Core's MuHash3072::Finalize: SHA-256 of (num / den mod p) as 384
 * little-endian bytes. out is in Core's uint256 byte order: print it
 * reversed (GetHex), as gettxoutsetinfo does. m is unchanged. */
BK_API void bk_muhash_finalize(const bk_muhash *m, uint8_t out[32]);
/* The 3072-bit number of one element, as 384 little-endian bytes:
 * ChaCha20(key = SHA256(data), nonce 0, counter 0) key stream. */
BK_API void bk_muhash_element(const void *data, size_t len, uint8_t out[384]);
/* MuHash3072's Finalize as bk_muhash_finalize, with the inverse by the
 * extended Euclidean algorithm (libgmp mpz_invert) instead of Fermat's
 * little theorem: the same bytes, about 100 times faster. */
BK_API void bk_muhash_finalize_fast(const bk_muhash *m, uint8_t out[32]);

#ifdef __cplusplus
}
#endif
#endif
