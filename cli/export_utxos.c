/* blockkit export --datasets utxos: the UTXO set as chunked tables, one
 * row per coin in key order (docs/utxo.md), from a node's chainstate or a
 * dumptxoutset file: the library's bk_utxo_export_run (blockkit/export.h)
 * with the command line's options, a progress line, the summary and the
 * exit codes. export.c hands the command line here when --datasets names
 * utxos. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "progress.h"
#include "utxo_rows.h"

#include <blockkit/export.h>
#include <blockkit/hex.h>

#include <stdio.h>
#include <string.h>

/* The library's progress to the CLI's one printer (cli/progress.h). */
static void on_progress(void *ctx, uint64_t rows, uint64_t files, double seconds)
{
    bk_cli_progress_line l;
    memset(&l, 0, sizeof l);
    l.height = -1;
    l.items = "rows";
    l.items_done = rows;
    l.chunks_done = files;
    l.seconds = seconds;
    bk_cli_progress_show(ctx, &l);
}

int bk_cli_export_utxos(const bk_cli_export_utxos_args *args)
{
    const char *cmd = "export";
    int rc = 0;
    bk_utxo_export_opts o;
    memset(&o, 0, sizeof o);
    o.source = &args->source;
    o.out_dir = args->out_dir;
    o.format = (bk_table_format)args->format;
    bk_pq_opts_init(&o.pq);
    o.pq.codec = (bk_pq_codec)args->codec;
    o.pq.zstd_level = args->zstd_level;
    o.pq.row_group_size = (size_t)32 << 20; /* as the block export's; one per writer in memory */
    o.profile = (bk_table_profile)args->profile;
    o.chunk_rows = args->chunk_rows;
    o.threads = args->threads;
    bk_cli_progress pr;
    bk_cli_progress_init(&pr, args->progress);
    o.progress = on_progress;
    o.progress_ctx = &pr;

    /* signals caught before anything is made under --out (as export's) */
    bk_cli_stop_saved sigs;
    o.cancel = bk_cli_stop_signals_catch(&sigs);
    bk_out_lock lock;
    bk_error err;
    bk_error_clear(&err);
    if (bk_out_lock_take(&lock, o.out_dir, &err) != BK_OK) {
        bk_cli_stop_signals_restore(&sigs);
        if (*o.cancel) {
            fprintf(stderr, "blockkit: export: stopped by a signal\n");
            return 128 + (int)*o.cancel;
        }
        return bk_cli_report(cmd, &err);
    }
    o.out_locked = 1;
    bk_utxo_export_stats st;
    bk_status s = bk_utxo_export_run(&o, &st, &err);
    bk_cli_progress_end(&pr);
    if (s == BK_ERR_CANCELLED || *o.cancel) {
        fprintf(stderr, "blockkit: export: stopped by a signal; the utxos files are incomplete, rerun to write "
                        "the whole set\n");
        rc = 128 + (int)*o.cancel;
    } else if (s != BK_OK) {
        rc = utxo_source_fail(cmd, &err);
    }
    bk_cli_stop_signals_restore(&sigs);
    if (args->summary && !rc) {
        char best[65], height[32] = "";
        bk_hex_encode_rev(best, st.best, 32);
        best[64] = 0;
        if (st.height >= 0) snprintf(height, sizeof height, " (height %ld)", (long)st.height);
        fprintf(stderr,
                "blockkit: export: utxos: %llu rows in %llu files, %.1f MB out, %.3f s = %.2f M rows/s, -j%u; "
                "bestblock %s%s\n",
                (unsigned long long)st.rows, (unsigned long long)st.files, (double)st.bytes / 1e6, st.seconds,
                st.seconds > 0 ? (double)st.rows / 1e6 / st.seconds : 0, args->threads, best, height);
    }
    bk_out_lock_release(&lock);
    return rc;
}
