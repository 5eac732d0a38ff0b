/* blockkit: silent payments (BIP352) from blocks and their undo data.
 *
 * The BIP's rules, each in one place (src/index/silentpay.c, with the
 * BIP's section names in its comments):
 *   - "Inputs For Shared Secret Derivation": which inputs carry a public
 *     key and where it is (bk_sp_input_key);
 *   - "Scanning silent payment eligible transactions": at least one
 *     taproot output, at least one input with a key, no input spending a
 *     witness version above 1 (bk_sp_tx_tweak);
 *   - "Receiving": A = the sum of the input keys (a sum at infinity skips
 *     the transaction), input_hash = hash_BIP0352/Inputs(outpoint_L || A)
 *     with outpoint_L the smallest outpoint of the transaction, the tweak
 *     input_hash·A that a light client downloads (bk_sp_inputs_tweak);
 *   - "Scanning" with "Labels" and K_max: the receiver's k loop
 *     (bk_sp_scan).
 * Every EC operation is libsecp256k1's (ec_pubkey_parse/combine/
 * tweak_mul/tweak_add, ecdh, extrakeys, tagged_sha256); blockkit has no
 * EC code of its own. Nothing here prints or exits. */
#ifndef BLOCKKIT_SILENTPAY_H
#define BLOCKKIT_SILENTPAY_H

#include <blockkit/bitcoin.h>
#include <blockkit/engine.h>
#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* BIP352 "Scanning": a receiver stops after K_max outputs of one
 * transaction (the sender's per-group limit). */
#define BK_SP_K_MAX 2323u

/* ---- inputs ---------------------------------------------------------- */

/* One input with the output it spends (from the undo data). witness is in
 * bk_txin's form: the stack's items after its count (NULL / 0 when none),
 * well formed (as a parsed transaction gives it). */
typedef struct bk_sp_input {
    const uint8_t *prev_txid;     /* 32 bytes, internal order */
    uint32_t prev_index;
    const uint8_t *script_sig;
    size_t script_sig_len;
    const uint8_t *witness;
    uint32_t witness_items;
    const uint8_t *prevout_script; /* the spent scriptPubKey */
    size_t prevout_script_len;
} bk_sp_input;

typedef enum bk_sp_key_kind {
    BK_SP_KEY_NONE = 0,       /* no key: a type not in the list, or a key the rules skip */
    BK_SP_KEY_P2TR,           /* the output key of the spent P2TR output (key or script path) */
    BK_SP_KEY_P2WPKH,         /* the last witness item */
    BK_SP_KEY_P2SH_P2WPKH,    /* the last witness item, scriptSig a push of a P2WPKH program */
    BK_SP_KEY_P2PKH,          /* a compressed key in the scriptSig hashing to the spent HASH160 */
    BK_SP_KEY_WITNESS_V2      /* spends a witness program of version 2..16: the tx is not eligible */
} bk_sp_key_kind;

/* "Inputs For Shared Secret Derivation": the input's public key, 33
 * bytes compressed (a P2TR key as 02 || x), when it has one. Compressed
 * keys only (an uncompressed or hybrid key gives NONE); a P2TR script-path
 * spend whose control block's internal key is BIP341's NUMS point H gives
 * NONE; the annex (last item starting 0x50, with two or more items) is
 * removed first. Any bytes are accepted: this never fails. */
BK_API bk_sp_key_kind bk_sp_input_key(const bk_sp_input *in, uint8_t key_out[33]);

/* A scriptPubKey that is a BIP341 taproot output (OP_1 <32 bytes>). */
BK_API int bk_sp_is_taproot(const uint8_t *script, size_t len);

/* ---- the transaction's tweak ----------------------------------------- */

typedef enum bk_sp_verdict {
    BK_SP_ELIGIBLE = 0,       /* tweak computed */
    BK_SP_NO_TAPROOT_OUTPUT,
    BK_SP_NO_INPUT_KEY,       /* no input from the list with a key */
    BK_SP_WITNESS_V2,         /* an input spends a witness version above 1 */
    BK_SP_INFINITY,           /* the keys sum to the point at infinity */
    BK_SP_BAD_HASH            /* input_hash is not a valid scalar (probability ~2^-128) */
} bk_sp_verdict;

/* A short name for a verdict ("eligible", "no-taproot-output", ...). */
BK_API const char *bk_sp_verdict_name(bk_sp_verdict v);

typedef struct bk_sp_tweak {
    uint8_t input_pubkey_sum[33]; /* A, compressed */
    uint8_t input_hash[32];
    uint8_t tweak[33];            /* input_hash·A, compressed */
    uint32_t n_keys;              /* inputs whose key was summed */
} bk_sp_tweak;

/* Scratch memory for the key sum (and the scan): grown with alloc (NULL:
 * default) to the largest transaction seen, then no allocation. One per
 * thread. */
typedef struct bk_sp_scratch {
    const bk_allocator *alloc;
    uint8_t *buf;
    size_t cap;
} bk_sp_scratch;

BK_API void bk_sp_scratch_init(bk_sp_scratch *s, const bk_allocator *alloc);
BK_API void bk_sp_scratch_free(bk_sp_scratch *s);

/* From the inputs alone (the taproot-output rule is the caller's): the
 * verdict, and for BK_SP_ELIGIBLE *out. outpoint_L is the smallest of all
 * n inputs' outpoints (txid || vout little-endian, bytewise), keyless ones
 * included. BK_ERR_NOMEM (scratch) is the only error; *verdict_out is set
 * on BK_OK. */
BK_API bk_status bk_sp_inputs_tweak(bk_sp_scratch *s, const bk_sp_input *ins, size_t n, bk_sp_verdict *verdict_out,
                                    bk_sp_tweak *out, bk_error *err) BK_WARN_UNUSED;

/* A transaction of a block with its spent coins: *undo positioned at the
 * transaction's CTxUndo (bk_undo_next_tx already returned its count,
 * n_coins == tx->n_in; a coinbase has none: pass undo NULL, and it is
 * never eligible). Reads the transaction's coins from *undo whatever the
 * verdict, so the iterator stays in step. BK_ERR_MISMATCH when the coin
 * count is not the input count; BK_ERR_NOMEM. */
BK_API bk_status bk_sp_tx_tweak(bk_sp_scratch *s, const bk_tx *tx, bk_undo_iter *undo, uint32_t n_coins,
                                bk_sp_verdict *verdict_out, bk_sp_tweak *out, bk_error *err) BK_WARN_UNUSED;

/* ---- the receiver's scan ---------------------------------------------- */

typedef struct bk_sp_scanner bk_sp_scanner;

/* A receiver: scan private key b_scan (32 bytes, a valid secp256k1 key),
 * spend public key B_spend (33 bytes compressed) and the label numbers m
 * to look for ("Labels": m = 0 is the change label; none: labels NULL, n
 * 0). The scanner keeps a copy of b_scan and wipes it when freed.
 * BK_ERR_VALUE (b_scan not a valid key, B_spend not a point), BK_ERR_NOMEM. */
BK_API bk_status bk_sp_scanner_new(const uint8_t scan_key[32], const uint8_t spend_pubkey[33],
                                   const uint32_t *labels, size_t n_labels, const bk_allocator *alloc,
                                   bk_sp_scanner **out, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_sp_scanner_free(bk_sp_scanner *s);

/* The label tweak hash_BIP0352/Label(ser256(b_scan) || ser32(m)) and the
 * labelled spend key B_m = B_spend + label·G (33 bytes) of label m. */
BK_API bk_status bk_sp_scanner_label(const bk_sp_scanner *s, uint32_t m, uint8_t tweak_out[32],
                                     uint8_t spend_out[33], bk_error *err) BK_WARN_UNUSED;

typedef struct bk_sp_found {
    uint32_t output;              /* index in the outputs given */
    uint32_t k;
    uint8_t pubkey[32];           /* the output's x-only key */
    uint8_t priv_key_tweak[32];   /* t_k, plus the label's tweak for a labelled output */
    int has_label;
    uint32_t label;               /* m, when has_label */
} bk_sp_found;

/* "Scanning": ecdh_shared_secret = b_scan·tweak (constant time:
 * secp256k1_ecdh), then for k = 0, 1, ... while k < BK_SP_K_MAX:
 * t_k = hash_BIP0352/SharedSecret(serP(ecdh) || ser32(k)), P_k =
 * B_spend + t_k·G; an output whose x-only key is P_k's, or (labels) P_k +
 * B_m's for a label m, is found with k; none found ends the loop. outputs
 * are the transaction's taproot output keys, 32 bytes each, n of them;
 * found_out has room for n; *n_found_out how many were found, in k order.
 * A tweak that is not a point finds nothing. BK_ERR_NOMEM (scratch). */
BK_API bk_status bk_sp_scan(const bk_sp_scanner *s, bk_sp_scratch *sc, const uint8_t tweak[33],
                            const uint8_t *outputs, size_t n, bk_sp_found *found_out, size_t *n_found_out,
                            bk_error *err) BK_WARN_UNUSED;

/* ---- keys given by a user --------------------------------------------- */

/* A scan private key file's content: 64 hex digits, white space around
 * them allowed (a trailing newline), nothing else. BK_ERR_LENGTH (empty,
 * or not 64 digits: the message says how many), BK_ERR_VALUE (a character
 * that is not a hex digit, with its offset; or a value that is not a valid
 * secp256k1 private key: zero or not below the group order). */
BK_API bk_status bk_sp_scan_key_parse(const uint8_t *text, size_t len, uint8_t key_out[32],
                                      bk_error *err) BK_WARN_UNUSED;
/* A public key as 66 hex digits (compressed, 02/03): BK_ERR_LENGTH,
 * BK_ERR_VALUE (not hex, or not a point on the curve). */
BK_API bk_status bk_sp_pubkey_parse(const char *hex, size_t len, uint8_t key_out[33], bk_error *err) BK_WARN_UNUSED;

/* ---- blocks: the range driver ------------------------------------------ */

typedef enum bk_sp_form {
    BK_SP_FORM_BLOCKS = 0,    /* {"height":H,"hash":"..","tweaks":["02..",...]} per block */
    BK_SP_FORM_TXS,           /* {"height","hash","txid","tweak","outputs":[{"vout","pubkey","value"}]} per tx */
    BK_SP_FORM_SCAN           /* {"height","hash","txid","vout","pubkey","value","priv_key_tweak","label"} per output found */
} bk_sp_form;

/* What keeps a transaction (BIP352 Appendix A's light-client filters). */
typedef struct bk_sp_filter {
    int64_t dust_limit;           /* > 0: drop a tx whose taproot outputs are all below it (satoshis) */
    /* non-NULL: drop a tx whose taproot outputs (at or above dust_limit)
     * are all spent at spent_ctx's point of view ("cut-through"). Returns
     * 1 unspent, 0 spent, or -1 with err set. Called from worker threads:
     * the callee serializes if it must. */
    int (*unspent)(void *spent_ctx, const uint8_t txid[32], uint32_t vout, bk_error *err);
    void *spent_ctx;
} bk_sp_filter;

/* One eligible transaction that passed the filter. tx_index: its index in
 * the block; txid internal order. */
typedef struct bk_sp_tx {
    uint32_t tx_index;
    const bk_tx *tx;
    uint8_t txid[32];
    bk_sp_tweak tweak;
} bk_sp_tx;

typedef bk_status (*bk_sp_tx_fn)(void *ctx, const bk_block *b, const bk_sp_tx *t, bk_error *err);

/* Every eligible transaction of a block (its parsed undo data beside it;
 * bk_block_undo_check's shape is checked here too) that passes filter
 * (NULL: none), to fn in block order. Counts (may be NULL): transactions
 * eligible before the filter. Errors: the undo mismatch, fn's, NOMEM. */
BK_API bk_status bk_sp_block_each(bk_sp_scratch *s, const bk_block *b, const bk_block_undo *undo,
                                  const bk_sp_filter *filter, bk_sp_tx_fn fn, void *ctx, uint64_t *eligible_out,
                                  bk_error *err) BK_WARN_UNUSED;

/* One block's lines in form (BK_SP_FORM_SCAN needs scanner) appended to w.
 * hash: the block's hash (internal order; NULL: computed). */
typedef struct bk_sp_lines_opts {
    bk_sp_form form;
    bk_sp_filter filter;
    const bk_sp_scanner *scanner;
} bk_sp_lines_opts;

BK_API bk_status bk_sp_block_lines(const bk_sp_lines_opts *o, bk_sp_scratch *s, const bk_block *b,
                                   const bk_block_undo *undo, int64_t height, const uint8_t *hash, bk_writer *w,
                                   bk_error *err) BK_WARN_UNUSED;

/* A range of a chain through the ordered engine: eo's chain, dir, items,
 * tasks and run (workers, window, cancel, tick) as the caller set them,
 * and eo->consume / eo->ctx receive each task's lines in order; block,
 * begin, end and read_flags are this driver's (undo read and parsed). A
 * block without undo data (height > 0) is BK_ERR_NOT_FOUND ("undo data not
 * available"), one with no block data likewise. Counters (may be NULL). */
typedef struct bk_sp_run_stats {
    uint64_t blocks, eligible, kept, found;
} bk_sp_run_stats;

BK_API bk_status bk_sp_run(const bk_sp_lines_opts *o, const bk_engine_opts *eo, bk_engine_result *res,
                           bk_sp_run_stats *stats_out, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
