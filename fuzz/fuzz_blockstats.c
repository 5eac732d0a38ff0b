/* Fuzz getblockstats: input = flags (1 byte), block length (3 bytes LE),
 * block bytes, then the CBlockUndo bytes (or, with flag bit 7, a stats list
 * for bk_block_stats_select_list). A block and undo that parse must give
 * stats or a clean error, the JSON must render for every selection, and
 * the invariants Core's arithmetic implies must hold. */
#include <blockkit/blockstats.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bk_block_decoder dec;
static bk_block_stats_scratch sc;
static int ready;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready) {
        bk_block_decoder_init(&dec, NULL);
        bk_block_stats_scratch_init(&sc, NULL);
        ready = 1;
    }
    if (size < 4) return 0;
    uint8_t flags = data[0];
    size_t blen = (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16;
    data += 4;
    size -= 4;
    if (blen > size) blen = size;
    const uint8_t *rest = data + blen;
    size_t rest_len = size - blen;
    bk_error err;
    if (flags & 0x80) {
        uint32_t mask = 0;
        bk_status s = bk_block_stats_select_list((const char *)rest, rest_len, &mask, &err);
        if (s != BK_OK && s != BK_ERR_NOT_FOUND) abort();
        if (s == BK_OK && (mask >> BK_STAT_COUNT)) abort();
        return 0;
    }
    bk_block b;
    if (bk_block_decode(&dec, data, blen, &b, &err) != BK_OK) return 0;
    bk_block_undo undo;
    int have_undo = bk_block_undo_parse(rest, rest_len, &undo, &err) == BK_OK;
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &b, (flags & 2) ? BK_NET_REGTEST : BK_NET_MAIN, (flags & 1) ? 0 : 91842);
    bk_block_stats_opts o;
    bk_block_stats_opts_init(&o);
    o.select = (flags & 4) ? (1u << BK_STAT_TXS) : BK_STATS_ALL;
    bk_block_stats st;
    bk_status s = bk_block_stats_compute(&sc, &b, have_undo ? &undo : NULL, &ctx, &o, &st, &err);
    if (s != BK_OK) {
        if (err.msg[0] == 0) abort();
        return 0;
    }
    if (st.txs != b.n_tx || st.utxo_increase != st.outs - st.ins) abort();
    if (o.select == BK_STATS_ALL) {
        if (st.minfee > st.maxfee && st.txs > 1) abort();
        for (int i = 1; i < BK_STATS_PERCENTILES; i++)
            if (st.feerate_percentiles[i] < st.feerate_percentiles[i - 1]) abort();
        if (st.totalfee < 0) abort();
    }
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, flags & 8 ? 2 : 0);
    uint32_t sel = (flags & 16) ? (uint32_t)(((uint64_t)1 << BK_STAT_COUNT) - 1) : o.select;
    if (bk_json_block_stats(&j, &st, sel, &err) != BK_OK) abort();
    if (bk_json_status(&j) != BK_OK) abort();
    bk_writer_free(&w);
    return 0;
}
