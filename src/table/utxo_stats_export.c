/* bk_utxo_stats_export_run (blockkit/export.h): gettxoutsetinfo muhash
 * <height> true for a range of heights (bk_coinstats_series: one forward
 * pass over blocks and undo data) as one table,
 * DIR/utxo_stats/utxo_stats_<first>_<last>.<ext>, typed columns
 * (bk_coinstats_columns: amounts in satoshis, INT64), written under a
 * temporary name and renamed when complete. */
#include <blockkit/blockfile.h>
#include <blockkit/blockindex.h>
#include <blockkit/export.h>
#include <blockkit/utxo_coinstats.h>
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

/* The series into the file x->f, committed when whole. */
static bk_status xs_write(const bk_utxo_stats_export_opts *o, const bk_chain *c, const bk_blocksdir *d, xs_ctx *x,
                          bk_utxo_stats_export_result *r, bk_error *err)
{
    size_t ncols;
    const bk_pq_column *cols = bk_coinstats_columns(&ncols);
    r->opening = 1;
    bk_status s = bk_chunk_file_open(&x->f, o->out_dir, "utxo_stats", r->start, r->end, o->format, cols, ncols,
                                     &o->pq, NULL, err);
    if (s != BK_OK) return s;
    r->opening = 0;
    bk_coinstats_series_opts so;
    memset(&so, 0, sizeof so);
    so.start = (int32_t)r->start;
    so.end = (int32_t)r->end;
    so.with_muhash = 1;
    so.workers = o->workers;
    so.cancel = o->cancel;
    s = bk_coinstats_series(c, d, &so, xs_emit, x, &r->where, err);
    if (s == BK_OK) s = bk_chunk_file_commit(&x->f, err);
    else bk_chunk_file_abort(&x->f);
    bk_chunk_file_release(&x->f);
    r->rows = x->rows;
    return s;
}

bk_status bk_utxo_stats_export_run(const bk_utxo_stats_export_opts *o, bk_utxo_stats_export_result *res,
                                   bk_error *err)
{
    bk_utxo_stats_export_result r;
    memset(&r, 0, sizeof r);
    r.tip_height = -1;
    r.opening = 1;
    if (res) *res = r;
    if (!o || !o->datadir || !o->out_dir || o->format >= BK_TABLE_FORMAT_COUNT_ || o->start < 0)
        return bk_error_set(err, BK_ERR_ARG, 0, "utxo_stats export: bad options");
    bk_chain c;
    memset(&c, 0, sizeof c);
    bk_chain_opts co;
    memset(&co, 0, sizeof co);
    co.tmpdir = o->tmpdir;
    bk_status s = bk_chain_build_index(&c, o->datadir, o->net, &co, NULL, err);
    if (s != BK_OK) {
        if (res) *res = r;
        return s;
    }
    bk_blocksdir d;
    if ((s = bk_blocksdir_open(&d, o->blocksdir, o->net, NULL, err)) != BK_OK) {
        bk_chain_free(&c);
        if (res) *res = r;
        return s;
    }
    const bk_chain_entry *tip = bk_chain_tip(&c);
    r.tip_height = tip ? tip->height : -1;
    r.start = o->start;
    r.end = bk_engine_range_end(r.tip_height, o->end, o->below_tip);
    bk_out_lock lock = {-1, {0}}; /* one writer per out_dir */
    if (r.end < r.start || r.start > r.tip_height) {
        r.opening = 0;
        s = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no block in heights %lld..%lld (the tip is at height %lld)",
                         (long long)r.start, (long long)r.end, (long long)r.tip_height);
    } else if (o->out_locked || (s = bk_out_lock_take(&lock, o->out_dir, err)) == BK_OK) {
        /* bk_chunk_file holds two paths: not on the stack */
        xs_ctx *x = bk_alloc(NULL, sizeof *x);
        if (!x) {
            s = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        } else {
            memset(x, 0, sizeof *x);
            s = xs_write(o, &c, &d, x, &r, err);
            bk_free(NULL, x, sizeof *x);
        }
    }
    bk_out_lock_release(&lock);
    bk_blocksdir_close(&d);
    bk_chain_free(&c);
    if (res) *res = r;
    return s;
}
