/* Fuzz bk_block_parse / bk_block_decode: random bytes parse or are refused
 * with a matching error report; a parsed block's sizes add up, every
 * transaction satisfies the view invariants (fuzz_views_check.h), the
 * batched txids/wtxids equal the one-at-a-time ones. Seeds: small real
 * blocks and a truncated big one. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_views_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cap = bk_block_max_txs(size);
    bk_tx *txs = cap ? malloc(cap * sizeof *txs) : NULL;
    bk_block b;
    bk_error err;
    bk_status st = bk_block_parse(data, size, txs, cap, &b, &err);

    /* the decoder agrees with the caller's table */
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block b2;
    bk_error err2;
    bk_status st2 = bk_block_decode(&dec, data, size, &b2, &err2);
    FZ_REQUIRE(st2 == st);

    if (st == BK_OK) {
        FZ_REQUIRE(b.n_tx >= 1 && b.n_tx <= cap && b.size == size);
        FZ_REQUIRE(b2.n_tx == b.n_tx && b2.stripped_size == b.stripped_size);
        size_t sum = BK_HEADER_SIZE + bk_compact_size_len(b.n_tx), sum_s = sum;
        for (uint32_t i = 0; i < b.n_tx; i++) {
            FZ_REQUIRE(b.txs[i].data == data + sum);
            sum += b.txs[i].size;
            sum_s += b.txs[i].stripped_size;
            fz_check_tx(&b.txs[i]);
        }
        FZ_REQUIRE(sum == size && sum_s == b.stripped_size);
        FZ_REQUIRE(bk_block_weight(&b) == 3 * (uint64_t)b.stripped_size + b.size);
        uint8_t *ids = malloc(32 * (size_t)b.n_tx), *wids = malloc(32 * (size_t)b.n_tx);
        bk_block_txids(&b, ids);
        bk_block_wtxids(&b, wids);
        for (uint32_t i = 0; i < b.n_tx; i++) {
            uint8_t h[32];
            bk_tx_txid(&b.txs[i], h);
            FZ_REQUIRE(memcmp(h, ids + 32 * (size_t)i, 32) == 0);
            bk_tx_wtxid(&b.txs[i], h);
            FZ_REQUIRE(memcmp(h, wids + 32 * (size_t)i, 32) == 0);
        }
        uint8_t *ids2 = malloc(32 * (size_t)b.n_tx), *wids2 = malloc(32 * (size_t)b.n_tx);
        bk_block_txids_wtxids(&b, ids2, wids2);
        FZ_REQUIRE(memcmp(ids, ids2, 32 * (size_t)b.n_tx) == 0);
        FZ_REQUIRE(memcmp(wids, wids2, 32 * (size_t)b.n_tx) == 0);
        memset(ids2, 0, 32 * (size_t)b.n_tx);
        memset(wids2, 0, 32 * (size_t)b.n_tx);
        FZ_REQUIRE(bk_block_decoder_hash(&dec, &b2, ids2, wids2) == BK_OK);
        FZ_REQUIRE(memcmp(ids, ids2, 32 * (size_t)b.n_tx) == 0);
        FZ_REQUIRE(memcmp(wids, wids2, 32 * (size_t)b.n_tx) == 0);
        free(ids2);
        free(wids2);
        free(ids);
        free(wids);
        uint8_t hash[32];
        bk_block_hash(&b, hash);
        uint32_t height;
        bk_status hs = bk_block_bip34_height(&b, &height);
        FZ_REQUIRE(hs == BK_OK || hs == BK_ERR_NOT_FOUND);
        if (hs == BK_OK) FZ_REQUIRE(b.header.version >= 2);
    } else {
        FZ_REQUIRE(err.status == st && err.offset <= size && err.msg[0]);
        FZ_REQUIRE(err2.offset == err.offset);
        FZ_REQUIRE(st != BK_ERR_BUFFER); /* max_txs is a true bound */
    }
    bk_block_decoder_free(&dec);
    free(txs);
    return 0;
}
