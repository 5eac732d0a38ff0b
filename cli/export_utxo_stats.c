/* blockkit export --datasets utxo_stats: the library's
 * bk_utxo_stats_export_run (blockkit/export.h) with the CLI's signals,
 * messages and exit codes. */
#include "cli.h"
#include "export_utxo_stats.h"

#include <stdio.h>

int bk_cli_export_utxo_stats(bk_utxo_stats_export_opts *o)
{
    const char *cmd = "export";
    bk_error err;
    bk_error_clear(&err);
    /* signals caught before anything is made under --out (as export's) */
    bk_cli_stop_saved sigs;
    volatile sig_atomic_t *stop = bk_cli_stop_signals_catch(&sigs);
    o->cancel = stop;
    bk_utxo_stats_export_result r;
    bk_status s = bk_utxo_stats_export_run(o, &r, &err);
    int rc = 0;
    if (s == BK_ERR_CANCELLED) {
        rc = bk_cli_fail(cmd, 128 + (int)(*stop ? *stop : 2), "interrupted; no utxo_stats file written");
    } else if (s != BK_OK && r.opening) {
        rc = *stop ? bk_cli_fail(cmd, 128 + (int)*stop, "stopped by a signal") : bk_cli_report(cmd, &err);
    } else if (s != BK_OK) {
        char m[4608];
        rc = bk_cli_fail(cmd, bk_cli_exit_code(s), "%s", bk_engine_error_format(&r.where, &err, m, sizeof m));
    }
    bk_cli_stop_signals_restore(&sigs);
    return rc;
}
