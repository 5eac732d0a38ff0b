/* Coin sources and rendered rows of the UTXO set (cli/utxo_rows.h). */
#include "utxo_rows.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>


void utxo_source_opts_from(bk_utxo_source_opts *so, const bk_cli_source *src, const char *snapshot, int64_t height,
                           int at_height)
{
    bk_utxo_source_opts_init(so);
    so->datadir = src->datadir;
    so->snapshot = snapshot;
    so->tmpdir = src->tmpdir;
    if (src->datadir || src->chain_given) {
        so->net = src->net;
        so->net_given = 1;
    }
    if (!snapshot && src->datadir && at_height && height >= 0) {
        so->at_height = (int32_t)height;
        so->blocksdir = src->blocksdir;
    } else {
        so->height = (int32_t)height;
    }
}

int utxo_source_fail(const char *cmd, const bk_error *e)
{
    bk_error err = *e;
    bk_status st = err.status;
    if (st == BK_ERR_NOT_FOUND) return bk_cli_fail(cmd, bk_cli_exit_code(st), "%s", err.msg);
    if (st == BK_ERR_MISMATCH && err.offset == 0) return bk_cli_fail(cmd, BK_EXIT_DATA, "%s", err.msg);
    if (st == BK_ERR_ARG) return bk_cli_fail(cmd, BK_EXIT_USAGE, "%s", err.msg);
    return bk_cli_report(cmd, &err);
}

int utxo_source_open(const char *cmd, const bk_utxo_source_opts *o, bk_utxo_source *s)
{
    bk_error err;
    bk_error_clear(&err);
    if (bk_utxo_source_open(s, o, &err) == BK_OK) return 0;
    return utxo_source_fail(cmd, &err);
}

/* ---- rows: the library's engine (bk_utxo_rows_run), exit codes here ---- */

typedef struct cli_emit {
    utxo_emit_fn fn;
    void *ctx;
    int rc; /* the emitter's exit code (its message printed) */
} cli_emit;

static bk_status cli_emit_batch(void *ctx, const bk_utxo_batch *b, bk_error *err)
{
    (void)err;
    cli_emit *e = ctx;
    e->rc = e->fn(e->ctx, b);
    return e->rc ? BK_ERR_IO : BK_OK; /* any status: the run stops, e->rc says how */
}

static int cli_next(void *ctx, bk_utxo *u)
{
    return bk_utxo_source_next(ctx, u);
}

int utxo_rows_run(const char *cmd, bk_utxo_source *src, bk_table_profile profile, unsigned threads, utxo_emit_fn emit,
                  void *ctx, const volatile sig_atomic_t *stop)
{
    cli_emit e = {emit, ctx, 0};
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_utxo_rows_run_profile(src->net, profile, cli_next, src, threads, cli_emit_batch, &e, stop, NULL,
                                            &err);
    if (e.rc) return e.rc;
    if (st == BK_ERR_CANCELLED) return 0; /* the caller looks at *stop */
    if (st == BK_ERR_NOMEM) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    if (st != BK_OK) return bk_cli_report(cmd, &err);
    if (stop && *stop) return 0;
    if (bk_utxo_source_status(src, &err) != BK_OK) return bk_cli_report(cmd, &err);
    return 0;
}
