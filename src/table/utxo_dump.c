/* bk_utxo_dump_run (blockkit/export.h): Core's dumptxoutset FILE rollback
 * - the chainstate rolled back to a height, written as a snapshot file
 * with its hash_serialized_3, the file under a temporary name until it is
 * whole. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/export.h>
#include <blockkit/utxo_snapshot.h>
#include <blockkit/utxo_stats.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The coins of r into the writer over fd and the hash; the file flushed. */
static bk_status dump_coins(bk_utxo_rollback *r, int fd, const bk_network net, const char *tmp,
                            const volatile sig_atomic_t *cancel, bk_utxo_dump_result *res, bk_error *err)
{
    const bk_utxo_rollback_info *info = bk_utxo_rollback_info_get(r);
    bk_utxo_snapshot_writer *w = NULL;
    bk_utxo_stats st;
    memset(&st, 0, sizeof st);
    bk_status s = bk_utxo_snapshot_writer_open(&w, fd, net, info->base_hash, NULL, err);
    if (s == BK_OK) s = bk_utxo_stats_begin(&st, BK_UTXO_HASH_SERIALIZED_3, NULL, err);
    bk_utxo u;
    uint64_t n = 0;
    while (s == BK_OK && bk_utxo_rollback_next(r, &u)) {
        s = bk_utxo_snapshot_writer_add(w, &u, err);
        if (s == BK_OK) s = bk_utxo_stats_add(&st, &u, err);
        if (s == BK_OK && (++n & 0xffff) == 0 && cancel && *cancel)
            s = bk_error_set(err, BK_ERR_CANCELLED, 0, "interrupted");
    }
    if (s == BK_OK) s = bk_utxo_rollback_status(r, err);
    if (s == BK_OK) s = bk_utxo_snapshot_writer_finish(w, &res->coins_written, err);
    if (s == BK_OK) s = bk_utxo_stats_end(&st, err);
    if (s == BK_OK && fsync(fd) != 0) s = bk_error_set(err, BK_ERR_IO, 0, "%s: fsync: %s", tmp, strerror(errno));
    if (s == BK_OK) memcpy(res->txoutset_hash, st.hash, 32);
    memcpy(res->base_hash, info->base_hash, 32);
    res->base_height = info->base_height;
    res->nchaintx = info->nchaintx;
    bk_utxo_stats_free(&st);
    bk_utxo_snapshot_writer_free(w);
    return s;
}

bk_status bk_utxo_dump_run(bk_chainstate *cs, const bk_chain *c, const bk_blocksdir *dir, int32_t height,
                           const char *path, const bk_utxo_rollback_opts *ro, bk_utxo_dump_result *res, bk_error *err)
{
    bk_utxo_dump_result r;
    memset(&r, 0, sizeof r);
    if (res) *res = r;
    if (!cs || !c || !dir || !path) return bk_error_set(err, BK_ERR_ARG, 0, "utxo dump: bad arguments");
    bk_utxo_rollback_opts o;
    memset(&o, 0, sizeof o);
    if (ro) o = *ro;
    char tmp[4200];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= sizeof tmp)
        return bk_error_set(err, BK_ERR_ARG, 0, "path too long: %s", path);
    bk_utxo_rollback *rb = NULL;
    int fd = -1;
    bk_status s = bk_utxo_rollback_open(&rb, cs, c, dir, height, &o, err);
    if (s == BK_OK) {
        (void)bk_tmp_sweep_stale(path); /* what a killed run left (path.tmp-PID of no process) */
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) s = bk_error_set(err, BK_ERR_IO, 0, "cannot create %s: %s", tmp, strerror(errno));
    }
    if (s == BK_OK) s = dump_coins(rb, fd, c->net, tmp, o.cancel, &r, err);
    if (fd >= 0 && close(fd) != 0 && s == BK_OK)
        s = bk_error_set(err, BK_ERR_IO, 0, "%s: close: %s", tmp, strerror(errno));
    if (s == BK_OK && o.cancel && *o.cancel) s = bk_error_set(err, BK_ERR_CANCELLED, 0, "interrupted");
    if (s == BK_OK && rename(tmp, path) != 0)
        s = bk_error_set(err, BK_ERR_IO, 0, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (s != BK_OK) unlink(tmp);
    bk_utxo_rollback_close(rb);
    if (res) *res = r;
    return s;
}

void bk_utxo_dump_json(bk_json *j, const bk_utxo_dump_result *r, const char *path)
{
    bk_json_begin_object(j);
    bk_json_key(j, "coins_written");
    bk_json_uint(j, r->coins_written);
    bk_json_key(j, "base_hash");
    bk_json_hex_rev(j, r->base_hash, 32);
    bk_json_key(j, "base_height");
    bk_json_int(j, r->base_height);
    bk_json_key(j, "path");
    bk_json_string_n(j, path, strlen(path));
    bk_json_key(j, "txoutset_hash");
    bk_json_hex_rev(j, r->txoutset_hash, 32);
    bk_json_key(j, "nchaintx");
    bk_json_uint(j, r->nchaintx);
    bk_json_end_object(j);
}
