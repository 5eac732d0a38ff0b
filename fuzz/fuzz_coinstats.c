/* Fuzz the coin statistics of one block and the snapshot writer.
 * Input: u32 LE block length L, L bytes of block, then a CBlockUndo. When
 * both parse: the block's delta (bk_coinstats_block_delta, with MuHash)
 * must succeed exactly when the undo fits the block, and applying it at
 * height 1 must give counts that add up; the undo's coins (under made-up
 * increasing txids) written with bk_utxo_snapshot_writer must read back
 * unchanged through bk_utxo_snapshot_open_fd (script compression is
 * lossless). */
#include <blockkit/json.h>
#include <blockkit/utxo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip(const bk_block_undo *u)
{
    FILE *f = tmpfile();
    if (!f) return;
    int fd = fileno(f);
    uint8_t base[32] = {1};
    bk_utxo_snapshot_writer *w;
    bk_error err;
    if (bk_utxo_snapshot_writer_open(&w, fd, BK_NET_REGTEST, base, NULL, &err) != BK_OK) abort();
    bk_undo_iter it;
    bk_undo_iter_init(&it, u);
    uint32_t n;
    uint64_t written = 0, idx = 0;
    while (bk_undo_next_tx(&it, &n)) {
        bk_utxo x;
        while (bk_undo_next_coin(&it, &x.coin)) {
            memset(x.txid, 0, 32);
            bk_store_le64(x.txid + 24, 0); /* txid bytes compare: big-endian index */
            for (int k = 0; k < 8; k++) x.txid[31 - k] = (uint8_t)(idx >> (8 * k));
            x.vout = (uint32_t)(idx % 3);
            idx++;
            if (!bk_money_range(x.coin.value)) continue;
            if (bk_utxo_snapshot_writer_add(w, &x, &err) != BK_OK) abort();
            written++;
        }
    }
    uint64_t coins;
    if (bk_utxo_snapshot_writer_finish(w, &coins, &err) != BK_OK || coins != written) abort();
    bk_utxo_snapshot_writer_free(w);
    if (lseek(fd, 0, SEEK_SET) != 0) abort();
    bk_utxo_snapshot *s;
    if (bk_utxo_snapshot_open_fd(&s, fd, NULL, &err) != BK_OK) abort();
    bk_undo_iter_init(&it, u);
    bk_utxo got;
    while (bk_undo_next_tx(&it, &n)) {
        bk_coin c;
        while (bk_undo_next_coin(&it, &c)) {
            if (!bk_money_range(c.value)) continue;
            if (!bk_utxo_snapshot_next(s, &got)) abort();
            if (got.coin.height != c.height || got.coin.coinbase != c.coinbase || got.coin.value != c.value ||
                got.coin.script_len != c.script_len ||
                memcmp(bk_coin_script(&got.coin), bk_coin_script(&c), c.script_len) != 0)
                abort();
        }
    }
    if (bk_utxo_snapshot_next(s, &got) || bk_utxo_snapshot_status(s, &err) != BK_OK) abort();
    bk_utxo_snapshot_close(s);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    size_t blen = bk_load_le32(data);
    if (blen > size - 4) return 0;
    const uint8_t *bp = data + 4, *up = data + 4 + blen;
    size_t ulen = size - 4 - blen;
    bk_block_undo u;
    bk_error err;
    if (bk_block_undo_parse(up, ulen, &u, &err) != BK_OK) return 0;
    if (u.n_txundo < 2048) roundtrip(&u);
    size_t cap = bk_block_max_txs(blen);
    if (cap == 0 || cap > 100000) return 0;
    bk_tx *txs = calloc(cap, sizeof *txs);
    if (!txs) return 0;
    bk_block b;
    if (bk_block_parse(bp, blen, txs, cap, &b, &err) == BK_OK) {
        uint8_t *txids = malloc(32 * (size_t)b.n_tx);
        if (!txids) abort();
        bk_block_txids(&b, txids);
        uint8_t hash[32] = {0};
        bk_coinstats_delta d;
        int fits = bk_block_undo_check(&u, &b, NULL) == BK_OK;
        bk_status st = bk_coinstats_block_delta(BK_NET_REGTEST, 1, hash, &b, txids, &u, 1, &d, &err);
        if ((st == BK_OK) != fits) abort();
        if (st == BK_OK) {
            bk_coinstats cs;
            bk_muhash mu;
            bk_coinstats_init(&cs);
            bk_muhash_init(&mu);
            bk_coinstats_delta g;
            if (bk_coinstats_block_delta(BK_NET_REGTEST, 0, hash, &b, txids, NULL, 1, &g, &err) != BK_OK) abort();
            if (bk_coinstats_apply(&cs, &mu, &g, 1, &err) != BK_OK) abort();
            if (bk_coinstats_apply(&cs, &mu, &d, 1, &err) != BK_OK) abort();
            if (cs.txouts != d.coins_added - d.coins_spent) abort();
            bk_writer w;
            bk_writer_init(&w, NULL);
            bk_json j;
            bk_json_init(&j, &w, 0);
            bk_coinstats_json(&j, &cs, NULL, 1);
            bk_writer_free(&w);
        }
        free(txids);
    }
    free(txs);
    return 0;
}
