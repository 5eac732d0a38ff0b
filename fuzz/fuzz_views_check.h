/* Shared invariant checks for fuzz_tx and fuzz_block: a parsed transaction
 * must re-serialize from its iterators to its exact bytes, its stripped
 * serialization must have stripped_size bytes and hash to its txid, the
 * iterators must visit n_in/n_out items and end exactly at the witness and
 * locktime positions. Any violation aborts (the fuzzer reports it). */
#ifndef BLOCKKIT_FUZZ_VIEWS_CHECK_H
#define BLOCKKIT_FUZZ_VIEWS_CHECK_H

#include <stdlib.h>
#include <string.h>

#include <blockkit/bitcoin.h>

#define FZ_REQUIRE(c) do { if (!(c)) abort(); } while (0)

static void fz_put_cs(bk_writer *w, uint64_t v)
{
    uint8_t b[9];
    bk_writer_put(w, b, bk_compact_size_encode(b, v));
}

static void fz_put_le32(bk_writer *w, uint32_t v)
{
    uint8_t b[4];
    bk_store_le32(b, v);
    bk_writer_put(w, b, 4);
}

static void fz_check_tx(const bk_tx *tx)
{
    FZ_REQUIRE(tx->stripped_size <= tx->size);
    FZ_REQUIRE(bk_tx_weight(tx) == 3 * tx->stripped_size + tx->size);
    FZ_REQUIRE(tx->vin_pos <= tx->vout_pos && tx->vout_pos <= tx->wit_pos);
    FZ_REQUIRE(tx->wit_pos <= tx->size - 4);
    FZ_REQUIRE(tx->has_witness || tx->wit_pos == tx->size - 4);

    bk_writer w;
    bk_writer_init(&w, NULL);
    fz_put_le32(&w, tx->version);
    if (tx->has_witness) {
        bk_writer_putc(&w, 0);
        bk_writer_putc(&w, 1);
    }
    fz_put_cs(&w, tx->n_in);
    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, tx);
    uint32_t k = 0;
    int any_witness = 0;
    while (bk_txin_next(&ii, &in)) {
        bk_writer_put(&w, in.prev_txid, 32);
        fz_put_le32(&w, in.prev_index);
        fz_put_cs(&w, in.script_sig_len);
        bk_writer_put(&w, in.script_sig, in.script_sig_len);
        fz_put_le32(&w, in.sequence);
        FZ_REQUIRE((in.witness != NULL) == (tx->has_witness != 0));
        any_witness |= in.witness_items != 0;
        k++;
    }
    FZ_REQUIRE(k == tx->n_in);
    FZ_REQUIRE(ii.pos + bk_compact_size_len(tx->n_out) == tx->vout_pos);
    FZ_REQUIRE(ii.wpos == tx->size - 4);
    FZ_REQUIRE(any_witness == (tx->has_witness != 0));
    fz_put_cs(&w, tx->n_out);
    bk_txout_iter oi;
    bk_txout out;
    bk_txout_iter_init(&oi, tx);
    k = 0;
    while (bk_txout_next(&oi, &out)) {
        uint8_t v[8];
        bk_store_le64(v, (uint64_t)out.value);
        bk_writer_put(&w, v, 8);
        fz_put_cs(&w, out.script_len);
        bk_writer_put(&w, out.script, out.script_len);
        k++;
    }
    FZ_REQUIRE(k == tx->n_out);
    FZ_REQUIRE(oi.pos == tx->wit_pos);
    size_t stripped_body = w.len;
    if (tx->has_witness) {
        /* witness re-walk: stack by stack, item by item */
        bk_txin_iter_init(&ii, tx);
        while (bk_txin_next(&ii, &in)) {
            fz_put_cs(&w, in.witness_items);
            bk_witness_iter wi;
            bk_witness_iter_init(&wi, &in);
            const uint8_t *item;
            uint32_t il, m = 0;
            while (bk_witness_next(&wi, &item, &il)) {
                FZ_REQUIRE(item >= tx->data && item + il <= tx->data + tx->size - 4);
                fz_put_cs(&w, il);
                bk_writer_put(&w, item, il);
                m++;
            }
            FZ_REQUIRE(m == in.witness_items);
        }
    }
    fz_put_le32(&w, tx->locktime);
    FZ_REQUIRE(bk_writer_status(&w) == BK_OK);
    FZ_REQUIRE(w.len == tx->size && memcmp(w.data, tx->data, w.len) == 0);
    (void)stripped_body;

    /* stripped: write it, compare with the segments, hash */
    bk_writer_reset(&w);
    bk_tx_write_stripped(tx, &w);
    FZ_REQUIRE(w.len == tx->stripped_size);
    bk_sha256_seg segs[3];
    size_t ns = bk_tx_stripped_segments(tx, segs), off = 0;
    FZ_REQUIRE(ns == (tx->has_witness ? 3u : 1u));
    for (size_t i = 0; i < ns; i++) {
        FZ_REQUIRE(memcmp(w.data + off, segs[i].data, segs[i].len) == 0);
        off += segs[i].len;
    }
    FZ_REQUIRE(off == tx->stripped_size);
    if (!tx->has_witness) FZ_REQUIRE(memcmp(w.data, tx->data, tx->size) == 0);
    uint8_t a[32], b[32];
    bk_sha256d(a, w.data, w.len);
    bk_tx_txid(tx, b);
    FZ_REQUIRE(memcmp(a, b, 32) == 0);
    bk_tx_wtxid(tx, b);
    bk_sha256d(a, tx->data, tx->size);
    FZ_REQUIRE(memcmp(a, b, 32) == 0);
    bk_writer_free(&w);

    /* the stripped form is itself a valid transaction (unless it is the
     * legal empty-vin, flags-0 form, which it then equals) */
    bk_tx again;
    bk_writer_init(&w, NULL);
    bk_tx_write_stripped(tx, &w);
    if (tx->has_witness && tx->n_in > 0) {
        FZ_REQUIRE(bk_tx_parse(w.data, w.len, &again, NULL, NULL) == BK_OK);
        FZ_REQUIRE(again.size == tx->stripped_size && !again.has_witness);
        FZ_REQUIRE(again.n_in == tx->n_in && again.n_out == tx->n_out);
    }
    bk_writer_free(&w);
}

#endif
