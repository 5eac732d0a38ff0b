/* Coin sources and rendered rows of the UTXO set (cli/utxo_rows.h). */
#include "utxo_rows.h"

#include "cli.h"

#include <blockkit/blockindex.h>
#include <blockkit/hex.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static char *join(const char *datadir, bk_network net, const char *leaf)
{
    size_t cap = strlen(datadir) + strlen(leaf) + 32;
    char *p = malloc(cap);
    if (p) snprintf(p, cap, "%s/%s%s", datadir, bk_network_datadir_subdir(net), leaf);
    return p;
}

static int height_from_index(const char *cmd, const utxo_source_opts *o, bk_network net, const uint8_t hash[32],
                             int32_t *h)
{
    char *idx = join(o->datadir, net, "blocks/index");
    if (!idx) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    struct stat sb;
    if (stat(idx, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        int rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no block index at %s to find the height: give --height N", idx);
        free(idx);
        return rc;
    }
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_block_index_height(idx, o->tmpdir, hash, h, &err);
    if (st == BK_ERR_NOT_FOUND) {
        char hex[65];
        bk_hex_encode_rev(hex, hash, 32);
        hex[64] = 0;
        int rc = bk_cli_fail(cmd, BK_EXIT_DATA, "block %s is not in the block index %s", hex, idx);
        free(idx);
        return rc;
    }
    free(idx);
    if (st != BK_OK) return bk_cli_report(cmd, &err);
    return 0;
}

static int parse_height(const char *cmd, const char *text, int32_t *h)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*text == 0 || *end || errno || v < 0 || v > INT32_MAX)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "--height needs a block height, not '%s'", text);
    *h = (int32_t)v;
    return 0;
}

int utxo_parse_threads(const char *cmd, const char *text, unsigned *out)
{
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (text) {
        char *end;
        threads = strtol(text, &end, 10);
        if (!*text || *end || threads < 1 || threads > 64)
            return bk_cli_fail(cmd, BK_EXIT_USAGE, "--threads needs 1..64, not '%s'", text);
    }
    if (threads < 1) threads = 1;
    *out = (unsigned)(threads > 64 ? 64 : threads);
    return 0;
}

void utxo_source_close(coin_source *s)
{
    bk_utxo_rollback_close(s->rb);
    if (s->have_chain) bk_chain_free(&s->chain);
    if (s->have_dir) bk_blocksdir_close(&s->dir);
    bk_chainstate_iter_free(s->it);
    bk_chainstate_close(s->cs);
    bk_utxo_snapshot_close(s->snap);
    if (s->snap_file && s->snap_file != stdin) fclose(s->snap_file);
    memset(s, 0, sizeof *s);
}

/* A snapshot's error names the file: "<path>: <message>". */
static void name_snapshot(const coin_source *s, bk_error *err)
{
    if (!err || !s->snap_name) return;
    char m[sizeof err->msg];
    int n = snprintf(m, sizeof m, "%s: ", s->snap_name);
    if (n < 0 || (size_t)n >= sizeof m) return;
    size_t rest = strlen(err->msg);
    if (rest > sizeof m - 1 - (size_t)n) rest = sizeof m - 1 - (size_t)n; /* cut at the end */
    memcpy(m + n, err->msg, rest);
    m[(size_t)n + rest] = 0;
    memcpy(err->msg, m, sizeof m);
}

/* The set at o->at_height: the chainstate as it is when that is its best
 * block's height, else rolled back (bk_utxo_rollback: the undo data of
 * every block above it, sorted runs in --tmpdir, memory bounded). A
 * datadir without a block index cannot be rolled back: the height is then
 * the chainstate's best block's, as the caller states it. */
static int at_height_open(const char *cmd, const utxo_source_opts *o, coin_source *s)
{
    int32_t h = 0;
    int rc = parse_height(cmd, o->at_height, &h);
    /* a chainstate without a block index (a generated one): nothing to roll
     * back with, H is taken as its best block's height, as before */
    char *idx = rc ? NULL : join(o->datadir, s->net, "blocks/index");
    struct stat sb;
    int no_index = idx && (stat(idx, &sb) != 0 || !S_ISDIR(sb.st_mode));
    free(idx);
    if (!rc && no_index) {
        bk_error e1;
        if (bk_chainstate_iter_new(s->cs, &s->it, &e1) != BK_OK) {
            rc = bk_cli_report(cmd, &e1);
            utxo_source_close(s);
            return rc;
        }
        s->height = h;
        return 0;
    }
    bk_error err;
    bk_error_clear(&err);
    bk_chain_opts co;
    memset(&co, 0, sizeof co);
    co.tmpdir = o->tmpdir;
    if (!rc && bk_chain_build_index(&s->chain, o->datadir, s->net, &co, NULL, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (!rc) s->have_chain = 1;
    const bk_chain_entry *best = rc ? NULL : bk_chain_find(&s->chain, s->best);
    if (!rc && (!best || !best->active || best->height < 0))
        rc = bk_cli_fail(cmd, BK_EXIT_DATA, "the chainstate's best block is not on the block index's active chain");
    if (!rc && h > best->height)
        rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "Target block height %ld after current tip %d", (long)h,
                         (int)best->height);
    if (!rc && h < best->height) {
        if (bk_blocksdir_open(&s->dir, o->blocksdir, s->net, NULL, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
        else s->have_dir = 1;
        bk_utxo_rollback_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.tmpdir = o->tmpdir;
        if (!rc && bk_utxo_rollback_open(&s->rb, s->cs, &s->chain, &s->dir, h, &ro, &err) != BK_OK)
            rc = bk_cli_fail(cmd, err.status == BK_ERR_NOT_FOUND ? BK_EXIT_NOINPUT : bk_cli_exit_code(err.status), "%s",
                             err.msg);
        if (!rc) memcpy(s->best, bk_utxo_rollback_info_get(s->rb)->base_hash, 32);
    }
    if (!rc && !s->rb && bk_chainstate_iter_new(s->cs, &s->it, &err) != BK_OK) rc = bk_cli_report(cmd, &err);
    if (rc) {
        utxo_source_close(s);
        return rc;
    }
    s->height = h;
    return 0;
}

int utxo_source_open(const char *cmd, const utxo_source_opts *o, coin_source *s)
{
    memset(s, 0, sizeof *s);
    s->height = -1;
    bk_error err;
    bk_error_clear(&err);
    bk_network net = BK_NET_MAIN;
    if (o->chain && bk_network_parse(o->chain, &net) != BK_OK)
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "unknown chain '%s'", o->chain);
    if (o->snapshot) {
        if (!strcmp(o->snapshot, "-")) {
            s->snap_file = stdin;
        } else {
            s->snap_file = fopen(o->snapshot, "rb");
            if (!s->snap_file)
                return bk_cli_fail(cmd, errno == ENOENT ? BK_EXIT_NOINPUT : BK_EXIT_IO, "cannot open %s: %s",
                                   o->snapshot, strerror(errno));
        }
        s->snap_name = strcmp(o->snapshot, "-") ? o->snapshot : "standard input";
        if (bk_utxo_snapshot_open_file(&s->snap, s->snap_file, NULL, &err) != BK_OK) {
            name_snapshot(s, &err);
            utxo_source_close(s);
            return bk_cli_report(cmd, &err);
        }
        const bk_utxo_snapshot_meta *m = bk_utxo_snapshot_meta_get(s->snap);
        if (o->chain && net != m->net) {
            const bk_network_params *a = bk_network_get(m->net), *b = bk_network_get(net);
            utxo_source_close(s);
            return bk_cli_fail(cmd, BK_EXIT_DATA,
                               "%s: the snapshot is for network %s (magic at byte 7), not %s", o->snapshot,
                               a->name, b->name);
        }
        s->net = m->net;
        memcpy(s->best, m->base_hash, 32);
        int rc = 0;
        if (o->height) rc = parse_height(cmd, o->height, &s->height);
        else if (o->datadir) rc = height_from_index(cmd, o, s->net, s->best, &s->height);
        else if (!o->height_optional)
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE,
                             "a snapshot does not record its height: give --height N or --datadir DIR");
        if (rc) {
            utxo_source_close(s);
            return rc;
        }
        if (s->height >= 0) bk_utxo_snapshot_set_base_height(s->snap, (uint32_t)s->height);
        return 0;
    }
    if (!o->datadir) return bk_cli_fail(cmd, BK_EXIT_USAGE, "--datadir or --utxo-snapshot is required");
    s->net = net;
    char *dir = join(o->datadir, net, "chainstate");
    if (!dir) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    bk_status st = bk_chainstate_open(dir, o->tmpdir, NULL, &s->cs, &err);
    if (st == BK_ERR_NOT_FOUND) {
        int rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no chainstate at %s (%s)%s", dir, err.msg,
                             o->chain ? "" : "; a test network's datadir needs --chain");
        free(dir);
        return rc;
    }
    free(dir);
    if (st != BK_OK) return bk_cli_report(cmd, &err);
    bk_chainstate_best_block(s->cs, s->best);
    int rc = 0;
    if (o->at_height) return at_height_open(cmd, o, s);
    if (o->height) {
        rc = parse_height(cmd, o->height, &s->height);
    } else {
        char *idx = o->height_optional ? join(o->datadir, net, "blocks/index") : NULL;
        struct stat sb;
        /* rows carry each coin's own height: the best block's is optional */
        if (!idx || stat(idx, &sb) == 0) rc = height_from_index(cmd, o, net, s->best, &s->height);
        free(idx);
    }
    if (rc) {
        utxo_source_close(s);
        return rc;
    }
    s->disk_size = bk_chainstate_disk_size(s->cs);
    if (bk_chainstate_iter_new(s->cs, &s->it, &err) != BK_OK) {
        utxo_source_close(s);
        return bk_cli_report(cmd, &err);
    }
    return 0;
}

int utxo_source_next(coin_source *s, bk_utxo *u)
{
    if (s->rb) return bk_utxo_rollback_next(s->rb, u);
    return s->snap ? bk_utxo_snapshot_next(s->snap, u) : bk_chainstate_iter_next(s->it, u);
}

bk_status utxo_source_status(coin_source *s, bk_error *err)
{
    if (s->snap) {
        bk_status st = bk_utxo_snapshot_status(s->snap, err);
        if (st == BK_OK) s->disk_size = bk_utxo_snapshot_offset(s->snap);
        else name_snapshot(s, err);
        return st;
    }
    if (s->rb) return bk_utxo_rollback_status(s->rb, err);
    return bk_chainstate_iter_status(s->it, err);
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
