/* Bitcoin transactions as zero-copy views: parse (Core's
 * UnserializeTransaction rules), iterators, stripped re-serialisation and
 * hashes. */
#include "bitcoin/tx_internal.h"

#include <string.h>

/* Smallest serialized input: prevout (32 + 4), an empty scriptSig (1 byte
 * count) and nSequence (4). Smallest output: nValue (8) and an empty script
 * (1). A witness item takes at least its 1-byte length. */
#define MIN_INPUT_SIZE 41u
#define MIN_OUTPUT_SIZE 9u

static bk_status truncated(const uint8_t *base, const uint8_t *at, bk_error *err, const char *what)
{
    return bk_error_set(err, BK_ERR_TRUNCATED, (uint64_t)(at - base), "end of data reading %s", what);
}

/* Core: serialize.h ReadCompactSize, called with range_check = true by the
 * vector and prevector (CScript) deserializers. */
bk_status bk_cs_read_slow(const uint8_t *base, const uint8_t **pp, const uint8_t *end,
                          uint64_t *v, const char *what, bk_error *err)
{
    const uint8_t *p = *pp;
    if (p >= end) return truncated(base, p, err, what);
    uint8_t b = p[0];
    if (b < 0xfd) {
        *v = b;
        *pp = p + 1;
        return BK_OK;
    }
    size_t n = b == 0xfd ? 2 : b == 0xfe ? 4 : 8;
    if ((size_t)(end - p - 1) < n) return truncated(base, p, err, what);
    uint64_t x, min;
    if (b == 0xfd) {
        x = bk_load_le16(p + 1);
        min = 0xfd;
    } else if (b == 0xfe) {
        x = bk_load_le32(p + 1);
        min = 0x10000u;
    } else {
        x = bk_load_le64(p + 1);
        min = 0x100000000ull;
    }
    if (x < min)
        return bk_error_set(err, BK_ERR_NONCANONICAL, (uint64_t)(p - base),
                            "non-canonical ReadCompactSize() in %s", what);
    if (x > BK_MAX_SIZE)
        return bk_error_set(err, BK_ERR_SIZE, (uint64_t)(p - base),
                            "ReadCompactSize(): size too large (%llu) in %s", (unsigned long long)x,
                            what);
    *v = x;
    *pp = p + 1 + n;
    return BK_OK;
}

/* A count of items each at least min_size bytes long must fit in what is
 * left: refused before anything is sized from it. */
static bk_status check_count(const uint8_t *base, const uint8_t *count_at, const uint8_t *p,
                             const uint8_t *end, uint64_t n, unsigned min_size, const char *what,
                             bk_error *err)
{
    if (n > (uint64_t)(end - p) / min_size)
        return bk_error_set(err, BK_ERR_COUNT, (uint64_t)(count_at - base),
                            "%s count %llu cannot fit in the %zu bytes left", what,
                            (unsigned long long)n, (size_t)(end - p));
    return BK_OK;
}

static bk_status parse_inputs(const uint8_t *base, const uint8_t **pp, const uint8_t *end,
                              uint64_t n, bk_error *err)
{
    const uint8_t *p = *pp;
    for (uint64_t i = 0; i < n; i++) {
        /* prevout (36) and at least the first byte of the scriptSig length */
        if (BK_UNLIKELY((size_t)(end - p) < 37)) return truncated(base, p, err, "input prevout");
        const uint8_t *q = p + 36;
        uint64_t sl;
        if (BK_LIKELY(*q < 0xfd)) {
            sl = *q++;
        } else {
            bk_status st = bk_cs_read_slow(base, &q, end, &sl, "scriptSig length", err);
            if (st) return st;
        }
        if (BK_UNLIKELY(sl > (size_t)(end - q)))
            return truncated(base, q, err, "scriptSig");
        q += sl;
        if (BK_UNLIKELY((size_t)(end - q) < 4)) return truncated(base, q, err, "input nSequence");
        p = q + 4;
    }
    *pp = p;
    return BK_OK;
}

static bk_status parse_outputs(const uint8_t *base, const uint8_t **pp, const uint8_t *end,
                               uint64_t n, bk_error *err)
{
    const uint8_t *p = *pp;
    for (uint64_t i = 0; i < n; i++) {
        if (BK_UNLIKELY((size_t)(end - p) < 9)) return truncated(base, p, err, "output value");
        const uint8_t *q = p + 8;
        uint64_t sl;
        if (BK_LIKELY(*q < 0xfd)) {
            sl = *q++;
        } else {
            bk_status st = bk_cs_read_slow(base, &q, end, &sl, "scriptPubKey length", err);
            if (st) return st;
        }
        if (BK_UNLIKELY(sl > (size_t)(end - q)))
            return truncated(base, q, err, "scriptPubKey");
        p = q + sl;
    }
    *pp = p;
    return BK_OK;
}

/* Core: src/primitives/transaction.h UnserializeTransaction (with witness
 * allowed). The order of the checks follows Core's so that a given
 * malformed input is refused for the same reason Core refuses it; the count
 * checks (BK_ERR_COUNT) come first where a count cannot possibly fit. */
bk_status bk_tx_parse_in(const uint8_t *base, const uint8_t *start, const uint8_t *end, bk_tx *tx,
                         int allow_witness, bk_error *err)
{
    const uint8_t *p = start;
    bk_status st;
    if (BK_UNLIKELY((size_t)(end - p) < 4)) return truncated(base, p, err, "transaction version");
    tx->data = start;
    tx->version = bk_load_le32(p);
    p += 4;

    uint64_t n_in, n_out = 0;
    unsigned flags = 0;
    const uint8_t *flag_at = NULL;
    const uint8_t *count_at = p;
    int read_io = 1;
    if ((st = bk_cs_read(base, &p, end, &n_in, "input count", err))) return st;
    if (n_in == 0 && allow_witness) {
        /* Core: "We read a dummy or an empty vin": the next byte is the
         * flags. With flags 0 the transaction has no inputs and Core reads
         * no output vector either (vout stays empty), so such a transaction
         * is exactly: version, 00, 00, locktime. */
        if (BK_UNLIKELY(p >= end)) return truncated(base, p, err, "witness flag");
        flag_at = p;
        flags = *p++;
        if (flags != 0) {
            count_at = p;
            if ((st = bk_cs_read(base, &p, end, &n_in, "input count", err))) return st;
        } else {
            read_io = 0;
        }
    }
    if (read_io) {
        if ((st = check_count(base, count_at, p, end, n_in, MIN_INPUT_SIZE, "input", err))) return st;
        tx->vin_pos = (uint32_t)(p - start);
        if ((st = parse_inputs(base, &p, end, n_in, err))) return st;
        count_at = p;
        if ((st = bk_cs_read(base, &p, end, &n_out, "output count", err))) return st;
        if ((st = check_count(base, count_at, p, end, n_out, MIN_OUTPUT_SIZE, "output", err)))
            return st;
        tx->vout_pos = (uint32_t)(p - start);
        if ((st = parse_outputs(base, &p, end, n_out, err))) return st;
    } else {
        tx->vin_pos = (uint32_t)(flag_at - start);
        tx->vout_pos = (uint32_t)(p - start);
    }

    const uint8_t *wit_at = p;
    tx->has_witness = 0;
    if (flags & 1) {
        /* Core: the witness flag is present: one stack per input. */
        flags ^= 1;
        int any = 0;
        for (uint64_t i = 0; i < n_in; i++) {
            uint64_t items;
            count_at = p;
            if ((st = bk_cs_read(base, &p, end, &items, "witness item count", err))) return st;
            if ((st = check_count(base, count_at, p, end, items, 1, "witness item", err))) return st;
            any |= items != 0;
            for (uint64_t j = 0; j < items; j++) {
                uint64_t il;
                if ((st = bk_cs_read(base, &p, end, &il, "witness item length", err))) return st;
                if (BK_UNLIKELY(il > (size_t)(end - p))) return truncated(base, p, err, "witness item");
                p += il;
            }
        }
        /* Core: "It's illegal to encode witnesses when all witness stacks
         * are empty." */
        if (!any)
            return bk_error_set(err, BK_ERR_SUPERFLUOUS_WITNESS, (uint64_t)(flag_at - base),
                                "Superfluous witness record");
        tx->has_witness = 1;
    }
    if (flags)
        return bk_error_set(err, BK_ERR_WITNESS_FLAG, (uint64_t)(flag_at - base),
                            "Unknown transaction optional data (flag 0x%02x)",
                            flags | (tx->has_witness ? 1u : 0u));
    if (BK_UNLIKELY((size_t)(end - p) < 4)) return truncated(base, p, err, "nLockTime");
    tx->locktime = bk_load_le32(p);
    p += 4;

    tx->size = (uint32_t)(p - start);
    tx->n_in = (uint32_t)n_in;
    tx->n_out = (uint32_t)n_out;
    if (tx->has_witness) {
        tx->wit_pos = (uint32_t)(wit_at - start);
        /* without marker, flag and witness stacks */
        tx->stripped_size = 4 + (tx->wit_pos - 6) + 4;
    } else {
        tx->wit_pos = tx->size - 4;
        tx->stripped_size = tx->size;
    }
    return BK_OK;
}

static bk_status tx_parse(const uint8_t *data, size_t len, bk_tx *tx_out, size_t *consumed_out,
                          int allow_witness, bk_error *err)
{
    if ((!data && len) || !tx_out) return bk_error_set(err, BK_ERR_ARG, 0, "bk_tx_parse: NULL argument");
    if (!data) data = (const uint8_t *)"";
    /* 32-bit sizes and weight in the view: at most BK_TX_MAX_SIZE bytes */
    size_t lim = (uint64_t)len > BK_TX_MAX_SIZE ? (size_t)BK_TX_MAX_SIZE : len;
    bk_status st = bk_tx_parse_in(data, data, data + lim, tx_out, allow_witness, err);
    if ((st == BK_ERR_TRUNCATED || st == BK_ERR_COUNT) && lim < len)
        return bk_error_set(err, BK_ERR_LENGTH, 0, "transaction larger than 1 GiB");
    if (st) return st;
    if (consumed_out) {
        *consumed_out = tx_out->size;
    } else if (tx_out->size != len) {
        return bk_error_set(err, BK_ERR_TRAILING, tx_out->size, "%zu bytes after the transaction",
                            len - tx_out->size);
    }
    return BK_OK;
}

bk_status bk_tx_parse(const uint8_t *data, size_t len, bk_tx *tx_out, size_t *consumed_out,
                      bk_error *err)
{
    return tx_parse(data, len, tx_out, consumed_out, 1, err);
}

/* Core: UnserializeTransaction with TX_NO_WITNESS (fAllowWitness false):
 * vin, vout, nLockTime, whatever the input count. */
bk_status bk_tx_parse_legacy(const uint8_t *data, size_t len, bk_tx *tx_out, size_t *consumed_out,
                             bk_error *err)
{
    return tx_parse(data, len, tx_out, consumed_out, 0, err);
}

size_t bk_tx_stripped_segments(const bk_tx *tx, bk_sha256_seg segs_out[3])
{
    if (!tx->has_witness) {
        segs_out[0].data = tx->data;
        segs_out[0].len = tx->size;
        return 1;
    }
    segs_out[0].data = tx->data;
    segs_out[0].len = 4;
    segs_out[1].data = tx->data + 6;
    segs_out[1].len = tx->wit_pos - 6;
    segs_out[2].data = tx->data + tx->size - 4;
    segs_out[2].len = 4;
    return 3;
}

void bk_tx_write_stripped(const bk_tx *tx, bk_writer *w)
{
    bk_sha256_seg segs[3];
    size_t n = bk_tx_stripped_segments(tx, segs);
    for (size_t i = 0; i < n; i++) bk_writer_put(w, segs[i].data, segs[i].len);
}

void bk_tx_txid(const bk_tx *tx, uint8_t txid_out[32])
{
    bk_sha256_seg segs[3];
    bk_sha256_msg m;
    m.segs = segs;
    m.nsegs = bk_tx_stripped_segments(tx, segs);
    bk_sha256d_msgs(txid_out, &m, 1);
}

void bk_tx_wtxid(const bk_tx *tx, uint8_t wtxid_out[32])
{
    bk_sha256d(wtxid_out, tx->data, tx->size);
}

/* Core: CTransaction::IsCoinBase: vin.size() == 1 && vin[0].prevout.IsNull()
 * (hash zero and n == 0xffffffff). */
int bk_tx_is_coinbase(const bk_tx *tx)
{
    return bk_tx_is_coinbase_fast(tx);
}

/* ---- iterators (over validated bytes: no checks needed) ---- */

void bk_txin_iter_init(bk_txin_iter *it, const bk_tx *tx)
{
    it->tx = tx;
    it->index = 0;
    it->pos = tx->vin_pos;
    it->wpos = tx->wit_pos;
}

int bk_txin_next(bk_txin_iter *it, bk_txin *in_out)
{
    const bk_tx *tx = it->tx;
    if (it->index >= tx->n_in) return 0;
    const uint8_t *p = tx->data + it->pos;
    in_out->prev_txid = p;
    in_out->prev_index = bk_load_le32(p + 32);
    p += 36;
    uint32_t sl = (uint32_t)bk_cs_get(&p);
    in_out->script_sig = p;
    in_out->script_sig_len = sl;
    p += sl;
    in_out->sequence = bk_load_le32(p);
    p += 4;
    it->pos = (uint32_t)(p - tx->data);
    if (tx->has_witness) {
        const uint8_t *w = tx->data + it->wpos;
        uint32_t items = (uint32_t)bk_cs_get(&w);
        in_out->witness = w;
        in_out->witness_items = items;
        for (uint32_t j = 0; j < items; j++) {
            uint64_t il = bk_cs_get(&w);
            w += il;
        }
        it->wpos = (uint32_t)(w - tx->data);
    } else {
        in_out->witness = NULL;
        in_out->witness_items = 0;
    }
    it->index++;
    return 1;
}

void bk_txout_iter_init(bk_txout_iter *it, const bk_tx *tx)
{
    it->tx = tx;
    it->index = 0;
    it->pos = tx->vout_pos;
}

int bk_txout_next(bk_txout_iter *it, bk_txout *out_out)
{
    const bk_tx *tx = it->tx;
    if (it->index >= tx->n_out) return 0;
    const uint8_t *p = tx->data + it->pos;
    out_out->value = (int64_t)bk_load_le64(p);
    p += 8;
    uint32_t sl = (uint32_t)bk_cs_get(&p);
    out_out->script = p;
    out_out->script_len = sl;
    p += sl;
    it->pos = (uint32_t)(p - tx->data);
    it->index++;
    return 1;
}

int bk_witness_next(bk_witness_iter *it, const uint8_t **item_out, uint32_t *len_out)
{
    if (!it->left) return 0;
    const uint8_t *p = it->pos;
    uint32_t il = (uint32_t)bk_cs_get(&p);
    *item_out = p;
    *len_out = il;
    it->pos = p + il;
    it->left--;
    return 1;
}
