/* Fuzz CBlockUndo parsing: parse, then walk every coin (the iterators must
 * not fail or read out of bounds after a successful parse), and check the
 * shape against a block built from the undo's own counts. */
#include <blockkit/undo.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_block_undo u;
    bk_error err;
    if (bk_block_undo_parse(data, size, &u, &err) != BK_OK) {
        if (err.offset > size) abort();
        return 0;
    }
    bk_undo_iter it;
    bk_coin c;
    uint32_t n;
    uint64_t coins = 0;
    bk_undo_iter_init(&it, &u);
    while (bk_undo_next_tx(&it, &n)) {
        uint32_t seen = 0;
        while (bk_undo_next_coin(&it, &c)) {
            const uint8_t *s = bk_coin_script(&c);
            if (c.script_len > 10000 || (c.script_len && !s)) abort();
            if (c.raw_script && (c.raw_script < data || c.raw_script + c.script_len > data + size)) abort();
            seen++;
        }
        if (seen != n) abort();
        coins += n;
    }
    if (it.pos != size) abort();
    /* Shape check: equal shape passes, one more input fails. */
    if (u.n_txundo < 4096) {
        bk_tx *txs = calloc((size_t)u.n_txundo + 1, sizeof *txs);
        if (!txs) return 0;
        bk_undo_iter_init(&it, &u);
        for (uint32_t i = 1; bk_undo_next_tx(&it, &n); i++) txs[i].n_in = n;
        bk_block b;
        memset(&b, 0, sizeof b);
        b.n_tx = u.n_txundo + 1;
        b.txs = txs;
        if (bk_block_undo_check(&u, &b, NULL) != BK_OK) abort();
        if (u.n_txundo) {
            txs[u.n_txundo].n_in++;
            if (bk_block_undo_check(&u, &b, NULL) != BK_ERR_MISMATCH) abort();
        }
        free(txs);
    }
    (void)coins;
    return 0;
}
