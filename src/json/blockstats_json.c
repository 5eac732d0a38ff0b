/* getblockstats' RPC result (Core: src/rpc/blockchain.cpp getblockstats).
 *
 * Without a selection Core returns ret_all, whose keys are in push order
 * (bk_stat order). With one it walks its std::set<std::string> of the
 * requested names and copies each value: bytewise-sorted keys, which
 * differ from push order for the four utxo_* statistics. */
#include <blockkit/blockstats.h>

#include "json/json_internal.h"

static void put_value(bk_json *j, const bk_block_stats *st, bk_stat k)
{
    switch (k) {
    case BK_STAT_AVGFEE: bk_json_int(j, st->avgfee); break;
    case BK_STAT_AVGFEERATE: bk_json_int(j, st->avgfeerate); break;
    case BK_STAT_AVGTXSIZE: bk_json_int(j, st->avgtxsize); break;
    case BK_STAT_BLOCKHASH: bk_json_hex_rev(j, st->blockhash, 32); break;
    case BK_STAT_FEERATE_PERCENTILES:
        bk_json_begin_array(j);
        for (int i = 0; i < BK_STATS_PERCENTILES; i++) bk_json_int(j, st->feerate_percentiles[i]);
        bk_json_end_array(j);
        break;
    case BK_STAT_HEIGHT: bk_json_int(j, st->height); break;
    case BK_STAT_INS: bk_json_int(j, st->ins); break;
    case BK_STAT_MAXFEE: bk_json_int(j, st->maxfee); break;
    case BK_STAT_MAXFEERATE: bk_json_int(j, st->maxfeerate); break;
    case BK_STAT_MAXTXSIZE: bk_json_int(j, st->maxtxsize); break;
    case BK_STAT_MEDIANFEE: bk_json_int(j, st->medianfee); break;
    case BK_STAT_MEDIANTIME: bk_json_int(j, st->mediantime); break;
    case BK_STAT_MEDIANTXSIZE: bk_json_int(j, st->mediantxsize); break;
    case BK_STAT_MINFEE: bk_json_int(j, st->minfee); break;
    case BK_STAT_MINFEERATE: bk_json_int(j, st->minfeerate); break;
    case BK_STAT_MINTXSIZE: bk_json_int(j, st->mintxsize); break;
    case BK_STAT_OUTS: bk_json_int(j, st->outs); break;
    case BK_STAT_SUBSIDY: bk_json_int(j, st->subsidy); break;
    case BK_STAT_SWTOTAL_SIZE: bk_json_int(j, st->swtotal_size); break;
    case BK_STAT_SWTOTAL_WEIGHT: bk_json_int(j, st->swtotal_weight); break;
    case BK_STAT_SWTXS: bk_json_int(j, st->swtxs); break;
    case BK_STAT_TIME: bk_json_int(j, st->time); break;
    case BK_STAT_TOTAL_OUT: bk_json_int(j, st->total_out); break;
    case BK_STAT_TOTAL_SIZE: bk_json_int(j, st->total_size); break;
    case BK_STAT_TOTAL_WEIGHT: bk_json_int(j, st->total_weight); break;
    case BK_STAT_TOTALFEE: bk_json_int(j, st->totalfee); break;
    case BK_STAT_TXS: bk_json_int(j, st->txs); break;
    case BK_STAT_UTXO_INCREASE: bk_json_int(j, st->utxo_increase); break;
    case BK_STAT_UTXO_SIZE_INC: bk_json_int(j, st->utxo_size_inc); break;
    case BK_STAT_UTXO_INCREASE_ACTUAL: bk_json_int(j, st->utxo_increase_actual); break;
    case BK_STAT_UTXO_SIZE_INC_ACTUAL: bk_json_int(j, st->utxo_size_inc_actual); break;
    case BK_STAT_COUNT: break;
    }
}

/* Push order with the utxo_* members in bytewise order: Core's std::set
 * walk over the selected names. */
static const bk_stat sorted_order[BK_STAT_COUNT] = {
    BK_STAT_AVGFEE,        BK_STAT_AVGFEERATE,     BK_STAT_AVGTXSIZE,      BK_STAT_BLOCKHASH,
    BK_STAT_FEERATE_PERCENTILES, BK_STAT_HEIGHT,   BK_STAT_INS,            BK_STAT_MAXFEE,
    BK_STAT_MAXFEERATE,    BK_STAT_MAXTXSIZE,      BK_STAT_MEDIANFEE,      BK_STAT_MEDIANTIME,
    BK_STAT_MEDIANTXSIZE,  BK_STAT_MINFEE,         BK_STAT_MINFEERATE,     BK_STAT_MINTXSIZE,
    BK_STAT_OUTS,          BK_STAT_SUBSIDY,        BK_STAT_SWTOTAL_SIZE,   BK_STAT_SWTOTAL_WEIGHT,
    BK_STAT_SWTXS,         BK_STAT_TIME,           BK_STAT_TOTAL_OUT,      BK_STAT_TOTAL_SIZE,
    BK_STAT_TOTAL_WEIGHT,  BK_STAT_TOTALFEE,       BK_STAT_TXS,            BK_STAT_UTXO_INCREASE,
    BK_STAT_UTXO_INCREASE_ACTUAL, BK_STAT_UTXO_SIZE_INC, BK_STAT_UTXO_SIZE_INC_ACTUAL,
};

bk_status bk_json_block_stats(bk_json *j, const bk_block_stats *st, uint32_t select, bk_error *err)
{
    if (!j || !st) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_json_begin_object(j);
    for (int i = 0; i < BK_STAT_COUNT; i++) {
        bk_stat k = select == BK_STATS_ALL ? (bk_stat)i : sorted_order[i];
        if (select != BK_STATS_ALL && !(select & (1u << k))) continue;
        bk_json_key(j, bk_stat_name(k));
        put_value(j, st, k);
    }
    bk_json_end_object(j);
    bk_status s = j->status != BK_OK ? j->status : bk_writer_status(j->w);
    if (s != BK_OK) return bk_error_set(err, s, 0, "JSON writer in error");
    return BK_OK;
}
