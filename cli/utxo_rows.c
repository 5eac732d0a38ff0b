/* Coin sources and rendered rows of the UTXO set (cli/utxo_rows.h). */
#include "utxo_rows.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>


/* The library's coin source (bk_utxo_source, blockkit/utxo.h) from the
 * command line; its errors as exit codes: what is missing 66, what does
 * not match 65, a usage the source cannot take 64 (each its message as
 * it is), the readers' own errors as reported. */
int utxo_source_opts_lib(const char *cmd, const utxo_source_opts *o, bk_utxo_source_opts *out)
{
    bk_utxo_source_opts lo;
    bk_utxo_source_opts_init(&lo);
    lo.datadir = o->datadir;
    lo.snapshot = o->snapshot;
    lo.tmpdir = o->tmpdir;
    lo.height_optional = o->height_optional;
    if (o->chain) {
        if (bk_network_parse(o->chain, &lo.net) != BK_OK)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown chain '%s'", o->chain);
        lo.net_given = 1;
    }
    if (o->snapshot) {
        lo.height = o->height;
    } else if (o->datadir) {
        lo.blocksdir = o->blocksdir;
        if (o->at_height >= 0) lo.at_height = o->at_height;
        else lo.height = o->height;
    }
    *out = lo;
    return 0;
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

int utxo_source_open(const char *cmd, const utxo_source_opts *o, coin_source *s)
{
    memset(s, 0, sizeof *s);
    bk_utxo_source_opts lo;
    int rc = utxo_source_opts_lib(cmd, o, &lo);
    if (rc) return rc;
    bk_error err;
    bk_error_clear(&err);
    if (bk_utxo_source_open(s, &lo, &err) == BK_OK) return 0;
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
    return utxo_source_next(ctx, u);
}

int utxo_rows_run(const char *cmd, coin_source *src, bk_table_profile profile, unsigned threads, utxo_emit_fn emit,
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
    if (utxo_source_status(src, &err) != BK_OK) return bk_cli_report(cmd, &err);
    return 0;
}
