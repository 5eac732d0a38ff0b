/* Bitcoin blocks as zero-copy views: header, parse into a caller table or
 * a reusable decoder, hashes, BIP34 height. */
#include "bitcoin/tx_internal.h"

#include <string.h>

/* The smallest serializable transaction: version, empty vin (00), flags 0
 * standing for the empty vout, locktime (see bk_tx_parse_in). */
#define MIN_TX_SIZE 10u

bk_status bk_header_parse(const uint8_t *data, size_t len, bk_header *header_out, bk_error *err)
{
    if (!header_out || (!data && len)) return bk_error_set(err, BK_ERR_ARG, 0, "bk_header_parse: NULL argument");
    if (len < BK_HEADER_SIZE)
        return bk_error_set(err, BK_ERR_TRUNCATED, len, "end of data reading block header (%zu of 80 bytes)", len);
    /* Core: src/primitives/block.h CBlockHeader SERIALIZE_METHODS. */
    header_out->version = (int32_t)bk_load_le32(data);
    memcpy(header_out->prev_hash, data + 4, 32);
    memcpy(header_out->merkle_root, data + 36, 32);
    header_out->time = bk_load_le32(data + 68);
    header_out->bits = bk_load_le32(data + 72);
    header_out->nonce = bk_load_le32(data + 76);
    return BK_OK;
}

void bk_header_hash(const uint8_t header[BK_HEADER_SIZE], uint8_t hash_out[32])
{
    bk_sha256d(hash_out, header, BK_HEADER_SIZE);
}

size_t bk_block_max_txs(size_t len)
{
    /* header (80) + a count of at least one byte, then >= 10 bytes per tx */
    if (len <= BK_HEADER_SIZE + 1) return 0;
    size_t n = (len - BK_HEADER_SIZE - 1) / MIN_TX_SIZE;
    return n > BK_MAX_SIZE ? BK_MAX_SIZE : n;
}

/* Header and transaction count, with the count checks. */
static bk_status block_prefix(const uint8_t *data, size_t len, bk_header *header, uint64_t *n_out,
                              const uint8_t **p_out, bk_error *err)
{
    bk_status st = bk_header_parse(data, len, header, err);
    if (st) return st;
    const uint8_t *p = data + BK_HEADER_SIZE, *end = data + len;
    uint64_t n;
    /* Core: CBlock SERIALIZE_METHODS reads vtx as a vector (range-checked
     * CompactSize). */
    if ((st = bk_cs_read(data, &p, end, &n, "transaction count", err))) return st;
    if (n == 0) return bk_error_set(err, BK_ERR_NO_TX, BK_HEADER_SIZE, "block has no transactions");
    if (n > (uint64_t)(end - p) / MIN_TX_SIZE)
        return bk_error_set(err, BK_ERR_COUNT, BK_HEADER_SIZE,
                            "transaction count %llu cannot fit in the %zu bytes left",
                            (unsigned long long)n, (size_t)(end - p));
    *n_out = n;
    *p_out = p;
    return BK_OK;
}

bk_status bk_block_parse(const uint8_t *data, size_t len, bk_tx *txs, size_t txs_cap,
                         bk_block *block_out, bk_error *err)
{
    if (!block_out || (!data && len) || (!txs && txs_cap))
        return bk_error_set(err, BK_ERR_ARG, 0, "bk_block_parse: NULL argument");
    uint64_t n;
    const uint8_t *p;
    bk_status st = block_prefix(data, len, &block_out->header, &n, &p, err);
    if (st) return st;
    if (n > txs_cap)
        return bk_error_set(err, BK_ERR_BUFFER, BK_HEADER_SIZE,
                            "block has %llu transactions, the table holds %zu",
                            (unsigned long long)n, txs_cap);
    const uint8_t *end = data + len;
    size_t stripped = (size_t)(p - data);
    for (uint64_t i = 0; i < n; i++) {
        /* 32-bit sizes and weight: each tx at most BK_TX_MAX_SIZE */
        const uint8_t *lim = (uint64_t)(end - p) > BK_TX_MAX_SIZE ? p + BK_TX_MAX_SIZE : end;
        st = bk_tx_parse_in(data, p, lim, &txs[i], 1, err);
        if ((st == BK_ERR_TRUNCATED || st == BK_ERR_COUNT) && lim != end)
            return bk_error_set(err, BK_ERR_LENGTH, (uint64_t)(p - data), "transaction larger than 1 GiB");
        if (st) return st;
        p += txs[i].size;
        stripped += txs[i].stripped_size;
    }
    if (p != end)
        return bk_error_set(err, BK_ERR_TRAILING, (uint64_t)(p - data), "%zu bytes after the block",
                            (size_t)(end - p));
    block_out->data = data;
    block_out->size = len;
    block_out->stripped_size = stripped;
    block_out->n_tx = (uint32_t)n;
    block_out->txs = txs;
    return BK_OK;
}

void bk_block_decoder_init(bk_block_decoder *d, const bk_allocator *alloc)
{
    d->alloc = alloc;
    d->txs = NULL;
    d->cap = 0;
    d->msgs = NULL;
    d->segs = NULL;
    d->hash_cap = 0;
}

bk_status bk_block_decode(bk_block_decoder *d, const uint8_t *data, size_t len, bk_block *block_out,
                          bk_error *err)
{
    if (!d || !block_out || (!data && len))
        return bk_error_set(err, BK_ERR_ARG, 0, "bk_block_decode: NULL argument");
    uint64_t n;
    const uint8_t *p;
    bk_header h;
    bk_status st = block_prefix(data, len, &h, &n, &p, err);
    if (st) return st;
    if (n > d->cap) {
        /* n is bounded by len / 10 (block_prefix), so the table is bounded
         * by the input. Round up so slightly larger blocks reuse it. */
        size_t cap = ((size_t)n + 255) & ~(size_t)255;
        bk_tx *t = bk_alloc(d->alloc, cap * sizeof *t);
        if (!t) return bk_error_set(err, BK_ERR_NOMEM, 0, "cannot allocate a table of %zu transactions", cap);
        bk_free(d->alloc, d->txs, d->cap * sizeof *d->txs);
        d->txs = t;
        d->cap = cap;
    }
    return bk_block_parse(data, len, d->txs, d->cap, block_out, err);
}

void bk_block_decoder_free(bk_block_decoder *d)
{
    if (!d) return;
    bk_free(d->alloc, d->txs, d->cap * sizeof *d->txs);
    d->txs = NULL;
    d->cap = 0;
    bk_free(d->alloc, d->msgs, d->hash_cap * sizeof *d->msgs);
    bk_free(d->alloc, d->segs, 3 * d->hash_cap * sizeof *d->segs);
    d->msgs = NULL;
    d->segs = NULL;
    d->hash_cap = 0;
}

void bk_block_hash(const bk_block *b, uint8_t hash_out[32])
{
    bk_header_hash(b->data, hash_out);
}

/* Messages handed to the batch engine per call. The engine refills a lane
 * as soon as its message is done, so only the end of a call leaves lanes
 * idle -- and with a wide backend (AVX-512, 32 lanes) a long transaction
 * finishing alone at the end of a call keeps the whole kernel busy for one
 * lane, or runs on one SHA-NI stream at the rate of its dependency chain.
 * Fewer, larger calls matter: block 413567's txids took 1.05 ms at 128
 * messages per call, 0.87 ms at 384 and 0.67 ms in a single call with the
 * 16-lane backend (Emerald Rapids). So the calls take the long
 * transactions first, all together (HASH_LONG bytes or more: longer than
 * the ~128 steps a call of 512 short ones takes on 32 lanes), then the
 * rest in order: the long ones start in the first call beside short ones
 * and finish side by side in its tail, one call's tail instead of one per
 * call that holds a long one (block 413567, on AMD Zen5: its six 40-65 KB
 * transactions sit in two of its four calls). Digests go through a
 * per-call buffer to their slots. 512 messages with a shared segment pool
 * keep the descriptors and digests at 42 KB of stack; a legacy tx takes one
 * segment, a witness tx three (txids) or one (wtxids). */
#define HASH_BATCH 512
#define HASH_SEGS (2 * HASH_BATCH)
#define HASH_LONG 4096

typedef struct batcher {
    bk_sha256_seg segs[HASH_SEGS];
    bk_sha256_msg msgs[HASH_BATCH];
    uint8_t dig[32 * HASH_BATCH];
    uint32_t idx[HASH_BATCH];
    uint32_t m;
    size_t s;
    uint8_t *out;             /* digest of tx i at out + 32 * i */
} batcher;

static void batch_flush(batcher *B)
{
    if (!B->m) return;
    bk_sha256d_msgs(B->dig, B->msgs, B->m);
    for (uint32_t j = 0; j < B->m; j++) memcpy(B->out + 32 * (size_t)B->idx[j], B->dig + 32 * (size_t)j, 32);
    B->m = 0;
    B->s = 0;
}

enum { HASH_TXIDS, HASH_WTXIDS_WITNESS, HASH_WTXIDS };

/* Hash the txs of b that `what` selects, long ones first, into out + 32 *
 * i: every tx's stripped bytes (txids), the witness txs' whole bytes
 * (their wtxids), or every tx's whole bytes (wtxids). */
static void hash_txs(const bk_block *b, int what, uint8_t *out)
{
    batcher B;
    B.m = 0;
    B.s = 0;
    B.out = out;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < b->n_tx; i++) {
            const bk_tx *tx = &b->txs[i];
            if (what == HASH_WTXIDS_WITNESS && !tx->has_witness) continue;
            uint32_t len = what == HASH_TXIDS ? tx->stripped_size : tx->size;
            if ((len >= HASH_LONG) != (pass == 0)) continue;
            bk_sha256_seg *sg = B.segs + B.s;
            size_t n = 1;
            if (what == HASH_TXIDS) {
                n = bk_tx_stripped_segments(tx, sg);
            } else {
                sg->data = tx->data;
                sg->len = tx->size;
            }
            B.msgs[B.m].segs = sg;
            B.msgs[B.m].nsegs = n;
            B.idx[B.m++] = i;
            B.s += n;
            if (B.m == HASH_BATCH || HASH_SEGS - B.s < 3) batch_flush(&B);
        }
    }
    batch_flush(&B);
}

void bk_block_txids(const bk_block *b, uint8_t *out)
{
    hash_txs(b, HASH_TXIDS, out);
}

void bk_block_wtxids(const bk_block *b, uint8_t *out)
{
    hash_txs(b, HASH_WTXIDS, out);
}

void bk_block_txids_wtxids(const bk_block *b, uint8_t *txids, uint8_t *wtxids)
{
    hash_txs(b, HASH_TXIDS, txids);
    /* Only the witness transactions need a second hash; the others' wtxid
     * is their txid. */
    for (uint32_t i = 0; i < b->n_tx; i++)
        if (!b->txs[i].has_witness) memcpy(wtxids + 32 * (size_t)i, txids + 32 * (size_t)i, 32);
    hash_txs(b, HASH_WTXIDS_WITNESS, wtxids);
}

/* Spread wtxids packed at the front (the witness txs' in order) to their
 * places, from the back: each move goes to a slot no pending packed result
 * occupies; legacy txs get their txid. */
static void spread_wtxids(const bk_block *b, const uint8_t *txids, uint8_t *wtxids, uint32_t packed)
{
    for (uint32_t i = b->n_tx; i-- > 0;) {
        uint8_t *dst = wtxids + 32 * (size_t)i;
        if (b->txs[i].has_witness) {
            const uint8_t *src = wtxids + 32 * (size_t)--packed;
            if (src != dst) memcpy(dst, src, 32);
        } else {
            memcpy(dst, txids + 32 * (size_t)i, 32);
        }
    }
}

bk_status bk_block_decoder_hash(bk_block_decoder *d, const bk_block *b, uint8_t *txids,
                                uint8_t *wtxids)
{
    if (!d || !b || !txids) return BK_ERR_ARG;
    if (b->n_tx > d->hash_cap) {
        size_t cap = ((size_t)b->n_tx + 255) & ~(size_t)255;
        bk_sha256_msg *m = bk_alloc(d->alloc, cap * sizeof *m);
        bk_sha256_seg *sg = m ? bk_alloc(d->alloc, 3 * cap * sizeof *sg) : NULL;
        if (!sg) {
            bk_free(d->alloc, m, cap * sizeof *m);
            return BK_ERR_NOMEM;
        }
        bk_free(d->alloc, d->msgs, d->hash_cap * sizeof *d->msgs);
        bk_free(d->alloc, d->segs, 3 * d->hash_cap * sizeof *d->segs);
        d->msgs = m;
        d->segs = sg;
        d->hash_cap = cap;
    }
    size_t s = 0;
    for (uint32_t i = 0; i < b->n_tx; i++) {
        d->msgs[i].segs = d->segs + s;
        d->msgs[i].nsegs = bk_tx_stripped_segments(&b->txs[i], d->segs + s);
        s += d->msgs[i].nsegs;
    }
    bk_sha256d_msgs(txids, d->msgs, b->n_tx);
    if (!wtxids) return BK_OK;
    uint32_t m = 0;
    for (uint32_t i = 0; i < b->n_tx; i++) {
        const bk_tx *tx = &b->txs[i];
        if (!tx->has_witness) continue;
        d->segs[m].data = tx->data;
        d->segs[m].len = tx->size;
        d->msgs[m].segs = d->segs + m;
        d->msgs[m].nsegs = 1;
        m++;
    }
    bk_sha256d_msgs(wtxids, d->msgs, m);
    spread_wtxids(b, txids, wtxids, m);
    return BK_OK;
}

/* CScriptNum::serialize of a non-negative value: little-endian magnitude,
 * with an extra 0x00 when the top bit of the last byte is set. */
static size_t scriptnum_encode(uint8_t out[9], uint64_t v)
{
    size_t n = 0;
    while (v) {
        out[n++] = (uint8_t)v;
        v >>= 8;
    }
    if (n && (out[n - 1] & 0x80)) out[n++] = 0;
    return n;
}

/* Core: validation.cpp ContextualCheckBlock (BIP34): the coinbase scriptSig
 * must start with CScript() << nHeight. CScript::operator<<(int64) writes
 * OP_0 for 0, OP_1..OP_16 for 1..16, else a push of CScriptNum::serialize.
 * We read the first push as a number, then require that re-encoding it that
 * way gives exactly the bytes found (the minimal push Core expects). */
bk_status bk_block_bip34_height(const bk_block *b, uint32_t *height_out)
{
    if (!b || !height_out || b->n_tx == 0) return BK_ERR_ARG;
    if (b->header.version < 2) return BK_ERR_NOT_FOUND;
    bk_txin_iter it;
    bk_txin in;
    bk_txin_iter_init(&it, &b->txs[0]);
    if (!bk_txin_next(&it, &in) || in.script_sig_len == 0) return BK_ERR_NOT_FOUND;
    const uint8_t *s = in.script_sig;
    uint32_t sl = in.script_sig_len;
    uint8_t op = s[0];
    uint64_t v;
    if (op == 0x00) {
        v = 0; /* OP_0 */
    } else if (op >= 0x51 && op <= 0x60) {
        v = (uint64_t)(op - 0x50); /* OP_1 .. OP_16 */
    } else if (op >= 1 && op <= 5) {
        /* A direct push of up to 5 bytes: a uint32 height needs at most
         * 4 magnitude bytes plus a sign byte. */
        if (sl < 1u + op) return BK_ERR_NOT_FOUND;
        if (s[op] & 0x80) return BK_ERR_NOT_FOUND; /* negative */
        v = 0;
        for (unsigned i = 0; i < op; i++) v |= (uint64_t)s[1 + i] << (8 * i);
        if (v > UINT32_MAX) return BK_ERR_NOT_FOUND;
        uint8_t enc[9];
        size_t n = scriptnum_encode(enc, v);
        /* 0..16 are never pushed as data; the push must be minimal */
        if (v <= 16 || n != op || memcmp(enc, s + 1, n) != 0) return BK_ERR_NOT_FOUND;
    } else {
        return BK_ERR_NOT_FOUND;
    }
    *height_out = (uint32_t)v;
    return BK_OK;
}
