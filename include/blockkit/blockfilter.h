/* blockkit: BIP158 basic block filters, as Bitcoin Core's
 * blockfilterindex builds them and `getblockfilter <hash> basic` serves
 * them (Core: src/blockfilter.cpp, src/util/golombrice.h, BIP158).
 *
 * The element set of a block: the scriptPubKey of every output of every
 * transaction except empty scripts and scripts starting with OP_RETURN
 * (0x6a), plus the scriptPubKey of every coin the block spends (from its
 * undo data; only empty ones are left out: a spent OP_RETURN-led script
 * is kept, as Core keeps it), each distinct byte string once.
 *
 * Each element is hashed with SipHash-2-4 keyed by the block hash
 * (internal order: k0 = its bytes 0..7, k1 = bytes 8..15, little-endian)
 * and mapped to [0, N * M) by the high 64 bits of the 128-bit product
 * (Core's FastRange64), N the number of elements, M = 784931. The sorted
 * values are written as CompactSize N followed by their differences in
 * Golomb-Rice coding with P = 19 (a quotient in unary: q one-bits and a
 * zero bit, then the 19 low bits), bits most significant first, the last
 * byte padded with zero bits. The filter header is
 * SHA256d(SHA256d(filter) || previous header), the genesis block's
 * previous header being 32 zero bytes.
 *
 * Exactness: elements are deduplicated by their bytes (equal SipHash
 * values are compared byte for byte before they are merged), values that
 * collide after the range mapping are kept (a difference of 0), as in
 * Core.
 *
 * Memory: a bk_blockfilter builder owns growable buffers (24 bytes per
 * element plus the expanded coin scripts and the encoded filter) from its
 * allocator; after it has seen the largest block nothing is allocated.
 * Nothing here prints; every function is thread-safe on distinct
 * builders. */
#ifndef BLOCKKIT_BLOCKFILTER_H
#define BLOCKKIT_BLOCKFILTER_H

#include <blockkit/alloc.h>
#include <blockkit/bitcoin.h>
#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_BASIC_FILTER_P 19
#define BK_BASIC_FILTER_M 784931u

/* SipHash-2-4 of data with the 128-bit key (k0, k1), 64-bit result (Core's
 * CSipHasher(k0, k1).Write(data).Finalize()). */
BK_API uint64_t bk_siphash24(uint64_t k0, uint64_t k1, const uint8_t *data, size_t len);

/* The filter key of a block: k[0], k[1] from the first 16 bytes of its
 * hash (internal order), little-endian. */
BK_API void bk_blockfilter_key(const uint8_t block_hash[32], uint64_t key_out[2]);

/* Core's FastRange64: the high 64 bits of h * range. */
BK_API uint64_t bk_fastrange64(uint64_t h, uint64_t range);

typedef struct bk_blockfilter_elem {
    uint64_t hash;          /* SipHash of the bytes */
    const uint8_t *bytes;   /* borrowed (block or undo bytes), or NULL: in the arena at offset */
    uint32_t offset;
    uint32_t len;
} bk_blockfilter_elem;

typedef struct bk_blockfilter {
    const bk_allocator *alloc;
    uint64_t key[2];
    bk_blockfilter_elem *elems, *tmp;   /* tmp: the radix sort's second buffer */
    size_t n, cap;
    uint8_t *arena;                     /* coin scripts expanded from their compressed form */
    size_t arena_len, arena_cap;
    bk_status status;                   /* sticky: BK_ERR_NOMEM after a failed growth */
    /* after bk_blockfilter_finish: */
    uint8_t *filter;                    /* the serialized filter (CompactSize N, then the coded set) */
    size_t filter_len, filter_cap;
    uint32_t n_elements;                /* N: distinct elements */
} bk_blockfilter;

/* alloc NULL = the default allocator. Allocates nothing yet. */
BK_API void bk_blockfilter_init(bk_blockfilter *f, const bk_allocator *alloc);
BK_API void bk_blockfilter_free(bk_blockfilter *f);

/* Start a filter for the block whose hash (internal order) is given. */
BK_API void bk_blockfilter_reset(bk_blockfilter *f, const uint8_t block_hash[32]);

/* Add one element (copied into the builder). Empty elements are added as
 * given: the block helpers below do the BIP158 filtering. An allocation
 * failure is sticky and reported by bk_blockfilter_finish. */
BK_API void bk_blockfilter_add(bk_blockfilter *f, const uint8_t *elem, size_t len);

/* Add the block's output scripts (not empty, not OP_RETURN-led) and, when
 * undo is not NULL, every non-empty script of the coins it spends. The
 * bytes of b and undo are borrowed until bk_blockfilter_finish. undo must
 * be the block's own undo data (bk_block_undo_check; NULL for a block
 * with only a coinbase, e.g. the genesis block). */
BK_API void bk_blockfilter_add_block(bk_blockfilter *f, const bk_block *b, const bk_block_undo *undo);

/* Deduplicate, hash to the range, sort and encode into f->filter
 * (f->filter_len bytes; f->n_elements). BK_ERR_NOMEM; BK_ERR_LENGTH for
 * 2^32 or more distinct elements (Core's limit). */
BK_API bk_status bk_blockfilter_finish(bk_blockfilter *f, bk_error *err) BK_WARN_UNUSED;

/* The basic filter of a block in one call: reset, add_block, finish. */
BK_API bk_status bk_blockfilter_build(bk_blockfilter *f, const bk_block *b, const bk_block_undo *undo,
                                      bk_error *err) BK_WARN_UNUSED;

/* header_out = SHA256d(SHA256d(filter) || prev_header) (internal order;
 * Core prints it reversed). header_out may alias prev_header. */
BK_API void bk_blockfilter_header(const uint8_t *filter, size_t len, const uint8_t prev_header[32],
                                  uint8_t header_out[32]);

/* ---- reading a filter ---- */

/* A serialized filter checked as Core's GCSFilter constructor checks it
 * (a CompactSize N within MAX_SIZE, in its shortest form; N Golomb-Rice
 * codes that all end inside the bytes; no byte left after the last code's
 * byte: "excess data"). Borrows the bytes. */
typedef struct bk_blockfilter_view {
    const uint8_t *data;
    size_t len;
    size_t body;            /* offset of the first code (after the CompactSize) */
    uint32_t n;             /* N */
    uint64_t range;         /* F = N * M */
    uint64_t key[2];
} bk_blockfilter_view;

/* Errors (each with the byte offset): BK_ERR_TRUNCATED (no N, or code i
 * runs past the end: the message names i), BK_ERR_NONCANONICAL, BK_ERR_SIZE
 * (N over MAX_SIZE), BK_ERR_TRAILING (bytes after the last code). Never
 * allocates; time is linear in len. */
BK_API bk_status bk_blockfilter_parse(const uint8_t *data, size_t len, const uint8_t block_hash[32],
                                      bk_blockfilter_view *out, bk_error *err) BK_WARN_UNUSED;

/* The N decoded values in order into values[0..n) (cap >= v->n), for
 * tests and tools. BK_ERR_BUFFER when cap is too small. */
BK_API bk_status bk_blockfilter_values(const bk_blockfilter_view *v, uint64_t *values, size_t cap,
                                       bk_error *err) BK_WARN_UNUSED;

/* Core's GCSFilter::MatchAny: 1 when some query element hashes to a value
 * of the filter (false positives at about 1 / M per query), else 0. The
 * queries are hashed with the view's key into scratch (n uint64 values,
 * the caller's) and sorted there. Never allocates. */
BK_API int bk_blockfilter_match_any(const bk_blockfilter_view *v, const uint8_t *const *elems, const size_t *lens,
                                    size_t n, uint64_t *scratch);
/* The same for one element. */
BK_API int bk_blockfilter_match(const bk_blockfilter_view *v, const uint8_t *elem, size_t len);

#ifdef __cplusplus
}
#endif
#endif
