/* The utxo_stats dataset's rows (blockkit/utxo_table.h): one row per
 * height of the coin statistics series (blockkit/utxo.h,
 * bk_coinstats_series), gettxoutsetinfo's numbers as typed columns. */
#include <blockkit/utxo_table.h>

static const bk_pq_column coinstats_columns[] = {
    {"height", BK_PQ_INT32, 0},
    {"bestblock", BK_PQ_STRING, BK_PQ_NO_MINMAX},
    {"txouts", BK_PQ_INT64, 0},
    {"bogosize", BK_PQ_INT64, 0},
    {"muhash", BK_PQ_STRING, BK_PQ_OPTIONAL | BK_PQ_NO_MINMAX},
    {"total_amount", BK_PQ_INT64, 0},
    {"total_unspendable_amount", BK_PQ_INT64, 0},
    {"prevout_spent", BK_PQ_INT64, 0},
    {"coinbase", BK_PQ_INT64, 0},
    {"new_outputs_ex_coinbase", BK_PQ_INT64, 0},
    {"unspendable", BK_PQ_INT64, 0},
    {"unspendable_genesis_block", BK_PQ_INT64, 0},
    {"unspendable_bip30", BK_PQ_INT64, 0},
    {"unspendable_scripts", BK_PQ_INT64, 0},
    {"unspendable_unclaimed_rewards", BK_PQ_INT64, 0},
};

const bk_pq_column *bk_coinstats_columns(size_t *n_out)
{
    if (n_out) *n_out = sizeof coinstats_columns / sizeof coinstats_columns[0];
    return coinstats_columns;
}

bk_status bk_coinstats_row(bk_table_writer *t, const bk_coinstats *cur, const bk_coinstats *prev, bk_error *err)
{
    bk_coinstats_block_info bi;
    bk_coinstats_block_info_get(cur, prev, &bi);
    bk_table_int(t, 0, cur->height);
    bk_table_hex(t, 1, cur->bestblock, 32, 1);
    bk_table_int(t, 2, (int64_t)cur->txouts);
    bk_table_int(t, 3, (int64_t)cur->bogosize);
    if (cur->has_muhash) bk_table_hex(t, 4, cur->muhash, 32, 1);
    else bk_table_null(t, 4);
    bk_table_int(t, 5, cur->total_amount);
    bk_table_int(t, 6, cur->total_unspendable_amount);
    bk_table_int(t, 7, bi.prevout_spent);
    bk_table_int(t, 8, bi.coinbase);
    bk_table_int(t, 9, bi.new_outputs_ex_coinbase);
    bk_table_int(t, 10, bi.unspendable);
    bk_table_int(t, 11, bi.genesis_block);
    bk_table_int(t, 12, bi.bip30);
    bk_table_int(t, 13, bi.scripts);
    bk_table_int(t, 14, bi.unclaimed_rewards);
    return bk_table_end_row(t, err);
}
