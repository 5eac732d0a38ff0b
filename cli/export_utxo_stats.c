/* blockkit export --datasets utxo_stats: gettxoutsetinfo <muhash> <height>
 * true for a range of heights (bk_coinstats_series: one forward pass over
 * blocks and undo data) as one table, DIR/utxo_stats/utxo_stats_<first>_<last>.<ext>,
 * typed columns (bk_coinstats_columns: amounts in satoshis, INT64),
 * written under a temporary name and renamed when complete. */
#include "cli.h"
#include "export_utxo_stats.h"
#include "utxo_rows.h"

#include <blockkit/blockfile.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>
#include <blockkit/export.h>
#include <blockkit/table.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include <string.h>

typedef struct xs_ctx {
    bk_chunk_file f;
    uint64_t rows;
} xs_ctx;

static bk_status xs_emit(void *vctx, const bk_coinstats *cur, const bk_coinstats *prev, bk_error *err)
{
    xs_ctx *x = vctx;
    x->rows++;
    return bk_coinstats_row(&x->f.table, cur, prev, err);
}

int bk_cli_export_utxo_stats(const bk_cli_export_utxo_stats_args *a)
{
    const char *cmd = "export";
    bk_error err;
    bk_error_clear(&err);
    bk_chain c;
    memset(&c, 0, sizeof c);
    bk_chain_opts co;
    memset(&co, 0, sizeof co);
    co.tmpdir = a->tmpdir;
    if (bk_chain_build_index(&c, a->datadir, a->net, &co, NULL, &err) != BK_OK) return bk_cli_report(cmd, &err);
    bk_blocksdir d;
    if (bk_blocksdir_open(&d, a->blocksdir, a->net, NULL, &err) != BK_OK) {
        bk_chain_free(&c);
        return bk_cli_report(cmd, &err);
    }
    const bk_chain_entry *tip = bk_chain_tip(&c);
    int64_t tip_h = tip ? tip->height : -1;
    int64_t start = a->start, end = a->end;
    if (a->below_tip >= 0) end = tip_h - a->below_tip;
    else if (end < 0 || end > tip_h) end = tip_h;
    int rc = 0;
    bk_out_lock lock = {-1, {0}}; /* one writer per --out (blockkit/export.h) */
    export_signals sigs;
    volatile sig_atomic_t *stop = NULL;
    int caught = 0;
    if (end < start || start > tip_h) {
        rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no block in heights %lld..%lld (the tip is at height %lld)",
                         (long long)start, (long long)end, (long long)tip_h);
        goto out;
    }
    /* signals caught before anything is made under --out (as export's) */
    stop = export_signals_catch(&sigs);
    caught = 1;
    if (bk_out_lock_take(&lock, a->out_dir, &err) != BK_OK) {
        rc = *stop ? bk_cli_fail(cmd, 128 + (int)*stop, "stopped by a signal") : bk_cli_report(cmd, &err);
        goto out;
    }
    static xs_ctx x; /* bk_chunk_file holds two paths: not on the stack */
    memset(&x, 0, sizeof x);
    size_t ncols;
    const bk_pq_column *cols = bk_coinstats_columns(&ncols);
    if (bk_chunk_file_open(&x.f, a->out_dir, "utxo_stats", start, end, (bk_table_format)a->format, cols, ncols,
                           &a->pq, NULL, &err) != BK_OK) {
        rc = bk_cli_report(cmd, &err);
        goto out;
    }
    bk_coinstats_series_opts so;
    memset(&so, 0, sizeof so);
    so.start = (int32_t)start;
    so.end = (int32_t)end;
    so.with_muhash = 1;
    so.workers = a->workers;
    so.cancel = stop;
    bk_engine_where wh;
    bk_status s = bk_coinstats_series(&c, &d, &so, xs_emit, &x, &wh, &err);
    if (s == BK_OK) s = bk_chunk_file_commit(&x.f, &err);
    else bk_chunk_file_abort(&x.f);
    bk_chunk_file_release(&x.f);
    if (s == BK_ERR_CANCELLED) {
        rc = bk_cli_fail(cmd, 128 + (int)(*stop ? *stop : 2), "interrupted; no utxo_stats file written");
    } else if (s != BK_OK) {
        char m[4608];
        if (wh.stage != BK_STAGE_NONE && wh.stage != BK_STAGE_CONSUME) bk_engine_error_format(&wh, &err, m, sizeof m);
        else snprintf(m, sizeof m, "%s", err.msg);
        rc = bk_cli_fail(cmd, s == BK_ERR_NOT_FOUND ? BK_EXIT_NOINPUT : s == BK_ERR_IO ? BK_EXIT_IO : BK_EXIT_DATA,
                         "%s", m);
    }
out:
    if (caught) export_signals_restore(&sigs);
    bk_out_lock_release(&lock);
    bk_blocksdir_close(&d);
    bk_chain_free(&c);
    return rc;
}
