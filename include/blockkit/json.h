/* blockkit: Bitcoin Core-exact JSON.
 *
 * A streaming JSON writer that produces exactly the bytes Bitcoin Core's
 * UniValue writer produces (src/univalue/lib/univalue_write.cpp): the compact
 * form the RPC server returns (indent 0) and the pretty form bitcoin-cli
 * prints (UniValue::write(indent), indent 2) or bitcoin-tx -json prints
 * (indent 4). On top of it: transactions as TxToUniv renders them
 * (src/core_io.cpp), block headers and blocks as getblockheader / getblock
 * render them (src/rpc/blockchain.cpp blockheaderToJSON, blockToJSON).
 *
 * Writer model. A bk_json borrows a bk_writer (memory or sink) and tracks
 * nesting in a fixed stack of BK_JSON_MAX_DEPTH levels: it never allocates
 * (the bk_writer grows through its own allocator; into a reused writer,
 * rendering allocates nothing). Misuse (a value where a key is due, a key
 * in an array, closing the wrong container, nesting deeper than the stack)
 * sets a sticky BK_ERR_ARG status and later calls write nothing; check
 * bk_json_status() (which also reports the writer's own NOMEM/IO status)
 * once at the end.
 *
 * Rendering functions (bk_json_tx, bk_json_block, ...) write one complete
 * value. On error they return the status and fill *err, and the bytes
 * already written are unspecified (the caller discards them): Core would
 * fail the whole RPC in the same cases. */
#ifndef BLOCKKIT_JSON_H
#define BLOCKKIT_JSON_H

#include <blockkit/bitcoin.h>
#include <blockkit/blockstats.h>
#include <blockkit/hex.h>
#include <blockkit/stream.h>
#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Hex encoding (bk_hex_encode, bk_hex_encode_rev): <blockkit/hex.h>. */

/* ---- numbers ---- */

/* Core ValueFromAmount text: sign, quotient, '.', 8-digit remainder.
 * out must hold BK_AMOUNT_STR_MAX bytes; returns the length (no NUL). */
#define BK_AMOUNT_STR_MAX 32
BK_API size_t bk_amount_format(char out[BK_AMOUNT_STR_MAX], int64_t sats);

/* Core GetDifficulty (src/rpc/blockchain.cpp): 65535 / mantissa scaled by
 * 256 per exponent step toward 29, in IEEE double, in Core's order. */
BK_API double bk_difficulty(uint32_t bits);

/* Core arith_uint256::SetCompact: the 256-bit target of nBits, big-endian.
 * Returns 0 when the compact value is negative, overflows, or is zero
 * (Core's DeriveTarget refuses those), else 1. out is filled either way
 * (zero when the value is rejected for overflow). */
BK_API int bk_target_from_bits(uint32_t bits, uint8_t target_out[32]);

/* ---- writer ---- */

#define BK_JSON_MAX_DEPTH 32

typedef struct bk_json {
    bk_writer *w;
    uint32_t indent;            /* 0 = compact */
    uint32_t depth;             /* open containers */
    bk_status status;           /* sticky misuse status */
    uint8_t after_key;          /* a key was written, its value is due */
    uint8_t is_object[BK_JSON_MAX_DEPTH];
    uint8_t has_items[BK_JSON_MAX_DEPTH];
} bk_json;

/* Start a JSON value stream into w. indent 0 = Core's compact write();
 * indent N = write(N) (bitcoin-cli uses 2, bitcoin-tx 4). Writes nothing. */
BK_API void bk_json_init(bk_json *j, bk_writer *w, unsigned indent);

/* BK_OK, or the first misuse (BK_ERR_ARG), or the writer's NOMEM/IO. Also
 * BK_ERR_ARG while containers are still open. */
BK_API bk_status bk_json_status(const bk_json *j) BK_WARN_UNUSED;

BK_API void bk_json_begin_object(bk_json *j);
BK_API void bk_json_end_object(bk_json *j);
BK_API void bk_json_begin_array(bk_json *j);
BK_API void bk_json_end_array(bk_json *j);

/* An object key (escaped as a string). BK_JSON_KEY takes a literal. */
BK_API void bk_json_key_n(bk_json *j, const char *key, size_t len);
#define BK_JSON_KEY(j, lit) bk_json_key_n((j), (lit), sizeof(lit) - 1)
static inline void bk_json_key(bk_json *j, const char *key) { bk_json_key_n(j, key, strlen(key)); }

/* A string value with Core's escaping (json_escape): \b \t \n \f \r \" \\,
 * other bytes < 0x20 and 0x7f as \u00xx (lowercase), everything else
 * (including '/' and bytes >= 0x80) unchanged. */
BK_API void bk_json_string_n(bk_json *j, const char *s, size_t len);
static inline void bk_json_string(bk_json *j, const char *s) { bk_json_string_n(j, s, strlen(s)); }
/* A string value holding the hex of n bytes (HexStr) / reversed (GetHex). */
BK_API void bk_json_hex(bk_json *j, const uint8_t *p, size_t n);
BK_API void bk_json_hex_rev(bk_json *j, const uint8_t *p, size_t n);

/* Streamed string: open the quote, append raw text straight into the
 * writer (bk_json_writer()), close the quote. The appended text is NOT
 * escaped: use only for text known to need none (script asm, addresses). */
BK_API void bk_json_string_begin(bk_json *j);
BK_API void bk_json_string_end(bk_json *j);
static inline bk_writer *bk_json_writer(bk_json *j) { return j->w; }

BK_API void bk_json_int(bk_json *j, int64_t v);
BK_API void bk_json_uint(bk_json *j, uint64_t v);
/* ValueFromAmount: a JSON number with exactly 8 decimals. */
BK_API void bk_json_amount(bk_json *j, int64_t sats);
/* UniValue::setFloat: %.16g in the C locale (NaN/inf are written as null,
 * which UniValue would refuse; they cannot arise from GetDifficulty). */
BK_API void bk_json_double(bk_json *j, double v);
BK_API void bk_json_bool(bk_json *j, int v);
BK_API void bk_json_null(bk_json *j);
/* A preformatted scalar written verbatim (the caller vouches it is JSON). */
BK_API void bk_json_raw(bk_json *j, const char *text, size_t len);

/* ---- transactions (Core: src/core_io.cpp TxToUniv) ---- */

/* Core TxVerbosity plus getblock's "txids only" level. */
typedef enum bk_tx_verbosity {
    BK_TXV_TXID = 1,                  /* SHOW_TXID */
    BK_TXV_DETAILS = 2,               /* SHOW_DETAILS */
    BK_TXV_DETAILS_AND_PREVOUT = 3,   /* SHOW_DETAILS_AND_PREVOUT */
} bk_tx_verbosity;

/* BK_CORE_MIN, BK_CORE_NEWEST: blockkit/bitcoin.h. */

typedef struct bk_tx_json_opts {
    bk_network network;        /* address encoding */
    int verbosity;             /* BK_TXV_DETAILS or BK_TXV_DETAILS_AND_PREVOUT */
    int include_hex;           /* "hex" at the end (getblock / getrawtransaction: 1; decoderawtransaction: 0) */
    int signed_version;        /* print nVersion as int32 (Core before PR #29325); 0 = unsigned (v28+) */
    const uint8_t *txid;       /* precomputed txid (internal order) or NULL to hash */
    const uint8_t *wtxid;      /* precomputed wtxid or NULL */
} bk_tx_json_opts;

/* Default options: mainnet, BK_TXV_DETAILS, include_hex 1, unsigned. */
BK_API void bk_tx_json_opts_init(bk_tx_json_opts *o);

/* Write TxToUniv(tx) as one object. undo is NULL (no undo: no "fee", no
 * "prevout"), or an undo iterator positioned right after
 * bk_undo_next_tx() for this transaction (coins_left must equal the input
 * count, else BK_ERR_MISMATCH "undo data does not match block"); the
 * coins are consumed. With undo: "fee" (and "prevout" per input at
 * BK_TXV_DETAILS_AND_PREVOUT). Core refuses a fee outside [0, 21e6 BTC]
 * (CHECK_NONFATAL(MoneyRange(fee))): BK_ERR_INVALID. A coinbase never gets
 * fee or prevout (pass NULL). Allocates nothing (beyond the writer). */
BK_API bk_status bk_json_tx(bk_json *j, const bk_tx *tx, const bk_tx_json_opts *o, bk_undo_iter *undo,
                            bk_error *err) BK_WARN_UNUSED;

/* Core DecodeTx (src/core_io.cpp), as decoderawtransaction decodes its hex:
 * try the extended (witness) and the legacy serialization, keep those that
 * consume all len bytes; when both do, prefer the one whose scripts pass
 * CheckTxScriptsSanity (every op parses, opcodes <= OP_NOP10, pushes <= 520
 * bytes, scripts <= 10000 bytes; coinbase scriptSigs exempt), and the
 * extended one when both or neither pass. The two differ only for bytes
 * whose input count is zero: legacy reads the would-be segwit flag as the
 * output count. tx_out borrows data. Errors: the extended decoder's. */
BK_API bk_status bk_tx_decode_core(const uint8_t *data, size_t len, bk_tx *tx_out, bk_error *err) BK_WARN_UNUSED;

/* One scriptPubKey object as ScriptToUniv(include_hex, include_address)
 * renders it for outputs and prevouts: asm, desc, hex, [address], type. */
BK_API void bk_json_script_pubkey(bk_json *j, const uint8_t *script, size_t len, bk_network net);

/* ---- blocks (Core: src/rpc/blockchain.cpp) ---- */

typedef struct bk_block_json_opts {
    int verbosity;             /* 0 = hex string, 1 = txids, 2 = tx objects, 3 = plus prevout */
    int core_version;          /* 28..31 (BK_CORE_NEWEST when 0): see docs/json.md */
    int tip_target;            /* 29/30 only: reproduce the v29.0 bug (target of ctx->tip_bits) */
    int signed_tx_version;     /* see bk_tx_json_opts */
    const uint8_t *txids;      /* optional: 32 * n_tx precomputed txids (internal order) */
    const uint8_t *wtxids;     /* optional: 32 * n_tx precomputed wtxids */
    const uint8_t *hash;       /* optional: precomputed block hash */
} bk_block_json_opts;

/* Default options: verbosity 1, newest Core, no precomputed hashes. */
BK_API void bk_block_json_opts_init(bk_block_json_opts *o);

/* Write blockheaderToJSON for block b in chain context ctx (getblockheader
 * verbose). nTx comes from the block. Errors: BK_ERR_ARG for a
 * core_version outside 28..31, a verbosity outside 0..3, an unknown
 * network or NULL arguments; BK_ERR_INVALID (core >= 29) when nBits gives
 * no valid target (negative, zero, overflow, above the network's powLimit:
 * Core's DeriveTarget CHECK_NONFATAL). */
BK_API bk_status bk_json_block_header(bk_json *j, const bk_block *b, const bk_chain_context *ctx,
                                      const bk_block_json_opts *o, bk_error *err) BK_WARN_UNUSED;

/* The same from a header alone, as getblockheader answers for any block
 * in Core's block index (pruned, or known by its header only): the 80
 * header bytes and the index's nTx (0 for a headers-only block). Errors
 * as bk_json_block_header, without the zero-transaction one. */
BK_API bk_status bk_json_block_header_raw(bk_json *j, const uint8_t header[BK_HEADER_SIZE], uint32_t n_tx,
                                          const bk_chain_context *ctx, const bk_block_json_opts *o,
                                          bk_error *err) BK_WARN_UNUSED;

/* Write getblock's result for block b: verbosity 0 = a JSON string with the
 * block's hex (the RPC result; bitcoin-cli would print it bare); 1..3 =
 * blockToJSON. undo is the block's CBlockUndo or NULL (no fee, no prevout,
 * as for a pruned block); it is checked against the block first
 * (BK_ERR_MISMATCH "undo data does not match block", never silently
 * ignored). Errors as bk_json_block_header and bk_json_tx, and
 * BK_ERR_INVALID (core 31) for a coinbase witness of more than one item
 * (Core CHECK-fails in coinbaseTxToJSON). Allocates nothing (beyond the
 * writer). */
BK_API bk_status bk_json_block(bk_json *j, const bk_block *b, const bk_block_undo *undo,
                               const bk_chain_context *ctx, const bk_block_json_opts *o,
                               bk_error *err) BK_WARN_UNUSED;

/* Chain context for a block seen alone (what Core's core_json vectors were
 * made with): network, the given height, confirmations 1, mediantime = the
 * block's time, chainwork 0, no next block, tip_bits = the block's bits. */
BK_API void bk_chain_context_standalone(bk_chain_context *ctx, const bk_block *b, bk_network net,
                                        int64_t height);

/* ---- scripts (Core: src/rpc/rawtransaction.cpp decodescript) ---- */

/* Core's decodescript result for script s[0..n) on network net, as one
 * object: "asm", "desc", "address" (when Core prints one), "type", then
 * "p2sh" (only for scripts Core's can_wrap allows: multisig, nonstandard,
 * pubkey, pubkeyhash and v0 witness programs whose ops all parse, with no
 * op above OP_NOP10, no push over 520 bytes, no OP_RETURN start, at most
 * 10,000 bytes, no OP_CHECKSIGADD or OP_SUCCESSx) and "segwit" (only for
 * can_wrap_P2WSH: compressed pubkey/multisig, pubkeyhash -> P2WPKH,
 * nonstandard -> P2WSH) with "asm", "desc", "hex", "address", "type",
 * "p2sh-segwit". The segwit "desc" of a multisig is wsh(multi(...)) (Core
 * infers it with the script in its provider); of anything else addr().
 * Limitation: a nonstandard script that is sane miniscript gets
 * wsh(<miniscript>) from Core; blockkit prints addr(). BK_ERR_ARG for an
 * unknown network (nothing written). */
BK_API bk_status bk_json_decodescript(bk_json *j, const uint8_t *s, size_t n, bk_network net) BK_WARN_UNUSED;

/* HASH160: RIPEMD-160 of SHA-256 (Core: Hash160). */
BK_API void bk_hash160(uint8_t out[20], const uint8_t *p, size_t n);

/* Write the getblockstats result object for st with selection select
 * (BK_STATS_ALL: all, Core's order; else the selected keys, sorted).
 * Allocates nothing beyond the writer. BK_ERR_ARG when j is in error. */
BK_API bk_status bk_json_block_stats(bk_json *j, const bk_block_stats *st, uint32_t select,
                                     bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
