/* blockkit: Bitcoin blocks and transactions as zero-copy views.
 *
 * A view points into the caller's bytes and copies nothing: the bytes must
 * outlive every view made from them. Parsing validates the whole structure
 * exactly as Bitcoin Core's deserializer does (src/primitives/transaction.h
 * UnserializeTransaction, src/primitives/block.h) so that the iterators
 * below cannot fail afterwards, and re-serialisation gives back the original
 * bytes. Each rejection rule is a distinct bk_status with a message and the
 * byte offset of the fault (relative to the start of the parsed buffer).
 *
 * Hash byte order: every 32-byte hash here is in internal byte order (as
 * serialized); Core's GetHex() prints it reversed. */
#ifndef BLOCKKIT_BITCOIN_H
#define BLOCKKIT_BITCOIN_H

#include <blockkit/alloc.h>
#include <blockkit/network.h>
#include <blockkit/sha256.h>
#include <blockkit/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Core release whose output shape to reproduce (spec §12; the JSON
 * renderers and getblockstats). */
#define BK_CORE_MIN 28
#define BK_CORE_NEWEST 31

#define BK_HEADER_SIZE 80

/* ---- header ---- */

typedef struct bk_header {
    int32_t version;
    uint8_t prev_hash[32];
    uint8_t merkle_root[32];
    uint32_t time;
    uint32_t bits;
    uint32_t nonce;
} bk_header;

/* Decode the 80-byte header at data. Bytes after the first 80 are ignored.
 * Errors: BK_ERR_ARG (NULL pointers), BK_ERR_TRUNCATED (len < 80). */
BK_API bk_status bk_header_parse(const uint8_t *data, size_t len, bk_header *header_out,
                                 bk_error *err) BK_WARN_UNUSED;
/* SHA256d of the 80 header bytes (the block hash, internal order). */
BK_API void bk_header_hash(const uint8_t header[BK_HEADER_SIZE], uint8_t hash_out[32]);

/* ---- transaction view ---- */

typedef struct bk_tx {
    const uint8_t *data;      /* first byte of the serialization (nVersion) */
    uint32_t size;            /* serialized size with witness */
    uint32_t stripped_size;   /* serialized size without witness */
    uint32_t version;         /* nVersion as stored (Core >= v28 prints it unsigned) */
    uint32_t locktime;
    uint32_t n_in;
    uint32_t n_out;
    uint32_t vin_pos;         /* offset (from data) of the first input, after its count
                                 (5 in the empty-vin/flags-0 form, see bk_tx_parse) */
    uint32_t vout_pos;        /* offset of the first output, after its count */
    uint32_t wit_pos;         /* offset of the first witness stack; size - 4 when none */
    uint8_t has_witness;      /* serialized with marker 00 and flag 01 */
} bk_tx;

static inline uint32_t bk_tx_weight(const bk_tx *tx) { return 3 * tx->stripped_size + tx->size; }
/* Core TxToUniv "vsize": (weight + 3) / 4, not sigop-adjusted. */
static inline uint32_t bk_tx_vsize(const bk_tx *tx) { return (bk_tx_weight(tx) + 3) / 4; }

/* Parse one transaction at the start of data (witness serialization
 * allowed), following Core's UnserializeTransaction step by step: nVersion;
 * the input vector; if it is empty, a flags byte; if the flags are non-zero,
 * the input and output vectors, else (non-empty inputs) the output vector;
 * with flag bit 0 one witness stack per input; nLockTime.
 *
 * When consumed_out is NULL the transaction must span all len bytes
 * (BK_ERR_TRAILING otherwise); else *consumed_out receives its size. On
 * failure *tx_out is unspecified.
 *
 * Errors, each with the byte offset of the fault:
 *   BK_ERR_ARG             tx_out NULL, or data NULL with len > 0
 *   BK_ERR_TRUNCATED       the data ends inside the transaction
 *   BK_ERR_NONCANONICAL    a CompactSize not in its shortest form
 *   BK_ERR_SIZE            a CompactSize over MAX_SIZE (0x02000000)
 *   BK_ERR_COUNT           an input/output/witness-item count that cannot fit
 *                          in the bytes left (41/9/1 bytes each at least),
 *                          refused before anything is read or sized from it
 *   BK_ERR_SUPERFLUOUS_WITNESS  flag bit 0 set but every stack is empty
 *                          (offset of the flag byte)
 *   BK_ERR_WITNESS_FLAG    flag bits other than bit 0 ("Unknown transaction
 *                          optional data"; checked after the witnesses, as
 *                          Core does, so superfluous wins for flag 3)
 *   BK_ERR_TRAILING        bytes after it (consumed_out NULL)
 *   BK_ERR_LENGTH          a transaction over 1 GiB - 1 (sizes and the weight
 *                          are 32-bit; Core's limits keep real ones far below)
 *
 * Note (Core's exact behaviour): 00 after nVersion followed by a flags byte of
 * 00 is a legal transaction with no inputs and no outputs -- Core does not
 * read an output vector in that case -- so the 10 bytes
 * version | 00 | 00 | locktime parse (and re-serialize to themselves). */
BK_API bk_status bk_tx_parse(const uint8_t *data, size_t len, bk_tx *tx_out, size_t *consumed_out,
                             bk_error *err) BK_WARN_UNUSED;

/* Core's deserialization without witness (TX_NO_WITNESS), which
 * decoderawtransaction tries besides bk_tx_parse (src/core_io.cpp DecodeTx):
 * input vector, output vector, nLockTime -- no marker or flags, so an empty
 * input vector is followed by the output vector (e.g. Core's util vector
 * txcreate2: 02000000 00 01 <output> 00000000, which the witness form
 * refuses as a superfluous witness). The view has has_witness 0. Same
 * arguments and errors as bk_tx_parse, minus the witness ones. */
BK_API bk_status bk_tx_parse_legacy(const uint8_t *data, size_t len, bk_tx *tx_out,
                                    size_t *consumed_out, bk_error *err) BK_WARN_UNUSED;

/* The serialization without witness as 1 (no witness: the tx bytes as
 * they are) or 3 segments (version | counts, inputs and outputs | locktime),
 * borrowing the tx bytes. Returns the number of segments. */
BK_API size_t bk_tx_stripped_segments(const bk_tx *tx, bk_sha256_seg segs_out[3]);
/* Append the serialization without witness (tx->stripped_size bytes) to w;
 * an allocation failure is reported by bk_writer_status(w). */
BK_API void bk_tx_write_stripped(const bk_tx *tx, bk_writer *w);
/* txid = SHA256d(serialization without witness); wtxid = SHA256d(all bytes). */
BK_API void bk_tx_txid(const bk_tx *tx, uint8_t txid_out[32]);
BK_API void bk_tx_wtxid(const bk_tx *tx, uint8_t wtxid_out[32]);
/* Coinbase: exactly one input whose prevout is null (zero hash, index 0xffffffff). */
BK_API int bk_tx_is_coinbase(const bk_tx *tx);

typedef struct bk_txin {
    const uint8_t *prev_txid;  /* 32 bytes, internal order */
    uint32_t prev_index;
    const uint8_t *script_sig;
    uint32_t script_sig_len;
    uint32_t sequence;
    const uint8_t *witness;    /* the stack's serialization after its item count; NULL when the tx has no witness */
    uint32_t witness_items;    /* number of stack items (0 when none) */
} bk_txin;

typedef struct bk_txout {
    int64_t value;             /* satoshis, as stored (may be negative in invalid txs) */
    const uint8_t *script;
    uint32_t script_len;
} bk_txout;

/* Iterate inputs (with their witness stacks) and outputs of a parsed tx.
 * next() returns 1 and fills the item while items remain, then 0. */
typedef struct bk_txin_iter {
    const bk_tx *tx;
    uint32_t index;
    uint32_t pos;
    uint32_t wpos;
} bk_txin_iter;

typedef struct bk_txout_iter {
    const bk_tx *tx;
    uint32_t index;
    uint32_t pos;
} bk_txout_iter;

BK_API void bk_txin_iter_init(bk_txin_iter *it, const bk_tx *tx);
BK_API int bk_txin_next(bk_txin_iter *it, bk_txin *in_out);
BK_API void bk_txout_iter_init(bk_txout_iter *it, const bk_tx *tx);
BK_API int bk_txout_next(bk_txout_iter *it, bk_txout *out_out);

/* Iterate the items of one witness stack (from bk_txin.witness/witness_items). */
typedef struct bk_witness_iter {
    const uint8_t *pos;
    uint32_t left;
} bk_witness_iter;

static inline void bk_witness_iter_init(bk_witness_iter *it, const bk_txin *in)
{
    it->pos = in->witness;
    it->left = in->witness_items;
}
/* Returns 1 with the item's bytes while items remain. */
BK_API int bk_witness_next(bk_witness_iter *it, const uint8_t **item_out, uint32_t *len_out);

/* ---- block view ---- */

typedef struct bk_block {
    const uint8_t *data;      /* the block's first byte (header) */
    size_t size;              /* serialized size with witness */
    size_t stripped_size;     /* serialized size without witnesses */
    bk_header header;
    uint32_t n_tx;
    bk_tx *txs;               /* n_tx views, in the caller's table or a decoder's */
} bk_block;

static inline uint64_t bk_block_weight(const bk_block *b) { return 3 * (uint64_t)b->stripped_size + b->size; }

/* An upper bound on the number of transactions len bytes of block can hold
 * (the smallest serializable tx is 10 bytes): size a tx table with it. */
BK_API size_t bk_block_max_txs(size_t len);

/* Parse a block (80-byte header, CompactSize tx count, transactions) into
 * the caller's table txs[0..txs_cap). Allocates nothing. The whole of len
 * must be the block. Check order: header (BK_ERR_TRUNCATED), tx count
 * (BK_ERR_NONCANONICAL, BK_ERR_SIZE), zero transactions (BK_ERR_NO_TX), a
 * count that cannot fit in the remaining bytes at 10 bytes per tx
 * (BK_ERR_COUNT), a count above txs_cap (BK_ERR_BUFFER; before any
 * transaction is parsed), then each transaction as bk_tx_parse (offsets
 * relative to data), then BK_ERR_TRAILING for bytes after the last one. On
 * failure *block_out and the table are unspecified. */
BK_API bk_status bk_block_parse(const uint8_t *data, size_t len, bk_tx *txs, size_t txs_cap,
                                bk_block *block_out, bk_error *err) BK_WARN_UNUSED;

/* A reusable decoder owning a growable tx table: after it has seen the
 * largest block, decoding allocates nothing. */
typedef struct bk_block_decoder {
    const bk_allocator *alloc;
    bk_tx *txs;
    size_t cap;
    /* hashing scratch for bk_block_decoder_hash (grown on first use) */
    bk_sha256_msg *msgs;
    bk_sha256_seg *segs;  /* 3 per message */
    size_t hash_cap;      /* messages msgs holds */
} bk_block_decoder;

/* alloc NULL = default allocator. Allocates nothing yet. */
BK_API void bk_block_decoder_init(bk_block_decoder *d, const bk_allocator *alloc);
/* As bk_block_parse, with the decoder's table grown first (once, to the tx
 * count rounded up to 256; BK_ERR_NOMEM if that fails). The views in
 * *block_out live until the next decode or free. */
BK_API bk_status bk_block_decode(bk_block_decoder *d, const uint8_t *data, size_t len,
                                 bk_block *block_out, bk_error *err) BK_WARN_UNUSED;
/* All txids and wtxids of b (any parsed block, not only one from this
 * decoder) into txids[32 * n_tx] and wtxids[32 * n_tx] (distinct buffers;
 * wtxids may be NULL for txids only), each in a single call of the batch
 * engine over the whole block, with descriptors in the decoder's scratch
 * (64 bytes per transaction, grown once, then no allocation). Same results
 * as bk_block_txids_wtxids; faster with wide backends, whose lanes a
 * chunked call leaves idle behind long transactions. BK_ERR_NOMEM if the
 * scratch cannot grow (nothing written then). Not for concurrent use of one
 * decoder. */
BK_API bk_status bk_block_decoder_hash(bk_block_decoder *d, const bk_block *b, uint8_t *txids,
                                       uint8_t *wtxids) BK_WARN_UNUSED;
/* Release the table and scratch; the decoder may be used again (it regrows). */
BK_API void bk_block_decoder_free(bk_block_decoder *d);

BK_API void bk_block_hash(const bk_block *b, uint8_t hash_out[32]);
/* All txids (or wtxids) of the block into out[32 * n_tx], hashed two or
 * more at a time through the batch engine (bk_sha256d_msgs). wtxids are the
 * real ones for every transaction, the coinbase included (the witness merkle
 * tree replaces the coinbase's with zero; that is the caller's step). */
BK_API void bk_block_txids(const bk_block *b, uint8_t *out);
BK_API void bk_block_wtxids(const bk_block *b, uint8_t *out);
/* Both at once into txids[32 * n_tx] and wtxids[32 * n_tx] (distinct
 * buffers): a transaction without witness is hashed once (its wtxid is its
 * txid), so this costs one pass over legacy blocks instead of two. */
BK_API void bk_block_txids_wtxids(const bk_block *b, uint8_t *txids, uint8_t *wtxids);

/* BIP34 height: the first push of the coinbase scriptSig read as a
 * CScriptNum. Core (ContextualCheckBlock) requires the scriptSig to start
 * with CScript() << nHeight: OP_0 for 0, OP_1..OP_16 for 1..16, else the
 * minimal push of the minimal CScriptNum encoding; only those prefixes are
 * accepted here. BK_ERR_NOT_FOUND when the block version is < 2, the first
 * transaction has no input, or the scriptSig does not start that way (or
 * the number is negative or over UINT32_MAX); BK_ERR_ARG for NULL. */
BK_API bk_status bk_block_bip34_height(const bk_block *b, uint32_t *height_out) BK_WARN_UNUSED;

/* ---- chain context: what JSON needs beyond the block bytes (spec §11) ---- */

typedef struct bk_chain_context {
    bk_network network;
    int64_t height;
    int64_t confirmations;     /* -1 for a block not on the active chain */
    int64_t mediantime;
    uint8_t chainwork[32];     /* big-endian 256-bit */
    int has_next;
    uint8_t next_hash[32];     /* internal byte order */
    uint32_t tip_bits;         /* nBits of the tip (Core v29.x target quirk) */
} bk_chain_context;

#ifdef __cplusplus
}
#endif
#endif
