/* Fuzz getblockstats: input = flags (1 byte), block length (3 bytes LE),
 * block bytes, then the CBlockUndo bytes (or, with flag bit 7, a stats list
 * for bk_block_stats_select_list). A block and undo that parse must give
 * stats or a clean error, the JSON must render for every selection, and
 * the invariants Core's arithmetic implies must hold.
 *
 * The single pass, bk_block_stats_compute_undo, runs on the same bytes and
 * must give what the stages give one after the other (checksum verify,
 * bk_block_undo_parse, bk_block_stats_compute): the same status, error
 * message and offset, the same statistics. Its checksum: none (flag bit 6
 * clear), else the undo's last 32 bytes taken as the record's checksum
 * (bit 5 set: as found, nearly always a mismatch) or replaced by the right
 * one (bit 5 clear: the record verifies). */
#include <blockkit/blockfile.h>
#include <blockkit/blockstats.h>
#include <blockkit/json.h>
#include <blockkit/sha256.h>

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
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &b, (flags & 2) ? BK_NET_REGTEST : BK_NET_MAIN, (flags & 1) ? 0 : 91842);
    bk_block_stats_opts o;
    bk_block_stats_opts_init(&o);
    o.select = (flags & 4) ? (1u << BK_STAT_TXS) : BK_STATS_ALL;
    if (flags & 16) o.core_version = 32; /* 40 bytes of per-UTXO overhead */

    /* the record's checksum, when there is one: the last 32 bytes */
    const uint8_t *ck = NULL;
    uint8_t good[32];
    if ((flags & 64) && rest_len >= 32) {
        rest_len -= 32;
        ck = rest + rest_len;
        if (!(flags & 32)) {
            bk_sha256_ctx h;
            bk_sha256_init(&h);
            bk_sha256_update(&h, b.header.prev_hash, 32);
            bk_sha256_update(&h, rest, rest_len);
            bk_sha256_final(&h, good);
            bk_sha256(good, good, 32);
            ck = good;
        }
    }

    /* the stages as the harness always ran them (an undo that does not
     * parse goes to compute as none: Core's "Undo data not available") */
    bk_block_undo undo;
    int have_undo = bk_block_undo_parse(rest, rest_len, &undo, &err) == BK_OK;
    bk_block_stats st;
    bk_status s = bk_block_stats_compute(&sc, &b, have_undo ? &undo : NULL, &ctx, &o, &st, &err);

    /* the single pass, on the bytes as they are (undo present) */
    bk_block_stats st1;
    bk_error err1;
    memset(&st1, 0x5a, sizeof st1);
    bk_status s1 = bk_block_stats_compute_undo(&sc, &b, rest, rest_len, ck, &ctx, &o, &st1, &err1);
    /* what the stages give for those bytes: a parse error is theirs */
    {
        bk_error ref_err;
        bk_block_stats ref;
        memset(&ref, 0x5a, sizeof ref);
        bk_status ref_s = BK_OK;
        if (ck) ref_s = bk_undo_checksum_verify(rest, rest_len, b.header.prev_hash, ck, &ref_err);
        if (ck && !(flags & 32) && ref_s != BK_OK) abort(); /* the right checksum verifies */
        bk_block_undo u;
        if (ref_s == BK_OK) ref_s = bk_block_undo_parse(rest, rest_len, &u, &ref_err);
        if (ref_s == BK_OK) ref_s = bk_block_stats_compute(&sc, &b, &u, &ctx, &o, &ref, &ref_err);
        if (s1 != ref_s) abort();
        if (s1 != BK_OK) {
            if (strcmp(err1.msg, ref_err.msg) != 0 || err1.offset != ref_err.offset || err1.status != ref_err.status)
                abort();
        } else if (memcmp(&st1, &ref, sizeof ref) != 0) {
            abort();
        }
    }
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
