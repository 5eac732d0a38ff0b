/* Fuzz transaction JSON: random bytes -> Core's DecodeTx heuristics; when
 * they decode, render TxToUniv at every level (no undo, undo at verbosity
 * 2 and 3 with fake coins built from the fuzz input), compact and pretty,
 * and check: the library returns BK_OK or a clean error (a fee outside
 * Core's MoneyRange), every output is one valid JSON value, the pretty
 * form minus white space equals the compact form, and the render into a
 * reused writer allocates nothing the second time.
 *
 * Input layout: byte 0 = options (bit 0-1 indent choice, bit 2 testnet,
 * bit 3 signed version), bytes 1-2 = tx length L (little endian), then L
 * tx bytes, then the bytes the fake coins are drawn from. */
#include <blockkit/json.h>

#include <stdlib.h>
#include <string.h>

#include "../tests/json_test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rng {
    const uint8_t *p;
    size_t n, i;
} rng;

static uint8_t next8(rng *r)
{
    return r->n ? r->p[r->i++ % r->n] : 0;
}

static void put_varint(uint8_t *buf, size_t *len, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = bk_varint_encode(tmp, v);
    memcpy(buf + *len, tmp, n);
    *len += n;
}

/* A CBlockUndo holding one CTxUndo with n_in coins of random content
 * (never the curve-checked compressed uncompressed-P2PK forms). */
static size_t fake_undo(uint8_t *buf, uint32_t n_in, rng *r)
{
    size_t len = 0;
    uint8_t cs[9];
    len += bk_compact_size_encode(buf + len, 1);
    size_t k = bk_compact_size_encode(cs, n_in);
    memcpy(buf + len, cs, k);
    len += k;
    for (uint32_t i = 0; i < n_in; i++) {
        uint32_t height = next8(r) | (uint32_t)next8(r) << 8;
        put_varint(buf, &len, (uint64_t)height * 2 + (next8(r) & 1));
        if (height > 0) buf[len++] = 0;
        uint64_t amount = next8(r);
        if (next8(r) & 1) amount |= (uint64_t)next8(r) << 24 | (uint64_t)next8(r) << 40;
        put_varint(buf, &len, bk_amount_compress(amount));
        uint8_t kind = next8(r) % 4;
        if (kind == 0 || kind == 1) { /* P2PKH / P2SH */
            buf[len++] = kind;
            for (int b = 0; b < 20; b++) buf[len++] = next8(r);
        } else if (kind == 2) { /* compressed P2PK */
            buf[len++] = (uint8_t)(2 + (next8(r) & 1));
            for (int b = 0; b < 32; b++) buf[len++] = next8(r);
        } else { /* raw script up to 42 bytes */
            uint8_t sl = next8(r) % 43;
            buf[len++] = (uint8_t)(sl + 6);
            for (int b = 0; b < sl; b++) buf[len++] = next8(r);
        }
    }
    return len;
}

static int render(bk_writer *w, const bk_tx *tx, bk_tx_json_opts *o, const bk_block_undo *u, unsigned indent)
{
    bk_undo_iter it, *itp = NULL;
    uint32_t n;
    if (u) {
        bk_undo_iter_init(&it, u);
        if (!bk_undo_next_tx(&it, &n)) abort();
        itp = &it;
    }
    bk_writer_reset(w);
    bk_json j;
    bk_json_init(&j, w, indent);
    bk_error err;
    bk_status st = bk_json_tx(&j, tx, o, itp, &err);
    if (st == BK_OK) {
        if (bk_json_status(&j) != BK_OK) abort();
        if (!json_valid((const char *)w->data, w->len)) abort();
        return 1;
    }
    /* the only data error TxToUniv has: fee outside MoneyRange */
    if (!(u && st == BK_ERR_INVALID)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    uint8_t flags = data[0];
    size_t txlen = (size_t)data[1] | (size_t)data[2] << 8;
    data += 3;
    size -= 3;
    if (txlen > size) txlen = size;
    bk_tx tx;
    bk_error err;
    if (bk_tx_decode_core(data, txlen, &tx, &err) != BK_OK) {
        if (err.offset > txlen) abort();
        return 0;
    }
    static const unsigned indents[4] = {0, 2, 4, 1};
    bk_tx_json_opts o;
    bk_tx_json_opts_init(&o);
    o.network = (flags & 4) ? BK_NET_TESTNET3 : BK_NET_MAIN;
    o.signed_version = (flags >> 3) & 1;
    bk_writer w, w2;
    bk_writer_init(&w, NULL);
    bk_writer_init(&w2, NULL);

    uint8_t *ubuf = NULL;
    bk_block_undo u;
    int have_undo = 0;
    if (!bk_tx_is_coinbase(&tx) && tx.n_in <= 2000) {
        rng r = {data + txlen, size - txlen, 0};
        ubuf = malloc(16 + (size_t)tx.n_in * 64);
        if (!ubuf) abort();
        size_t ul = fake_undo(ubuf, tx.n_in, &r);
        if (bk_block_undo_parse(ubuf, ul, &u, &err) != BK_OK) abort(); /* we built it valid */
        have_undo = 1;
    }
    for (int level = 0; level < 3; level++) {
        const bk_block_undo *up = level == 0 ? NULL : have_undo ? &u : NULL;
        if (level > 0 && !up) break;
        o.verbosity = level == 2 ? BK_TXV_DETAILS_AND_PREVOUT : BK_TXV_DETAILS;
        o.include_hex = level != 0 || (flags & 16);
        if (!render(&w, &tx, &o, up, 0)) continue;
        /* pretty minus the white space outside strings = compact */
        unsigned ind = indents[flags & 3];
        if (ind) {
            render(&w2, &tx, &o, up, ind);
            tbuf c = ref_compact((const char *)w2.data, w2.len);
            if (c.len != w.len || memcmp(c.p, w.data, w.len) != 0) abort();
            free(c.p);
        }
        /* a second render into the same writer allocates nothing */
        bk_counting_allocator ca;
        bk_counting_allocator_init(&ca, NULL);
        bk_writer cw;
        bk_writer_init(&cw, &ca.base);
        render(&cw, &tx, &o, up, ind);
        uint64_t before = ca.allocs;
        render(&cw, &tx, &o, up, ind);
        if (ca.allocs != before) abort();
        bk_writer_free(&cw);
    }
    free(ubuf);
    bk_writer_free(&w);
    bk_writer_free(&w2);
    return 0;
}
