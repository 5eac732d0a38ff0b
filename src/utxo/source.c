/* bk_utxo_source (blockkit/utxo_source.h): the set from a chainstate, a
 * dumptxoutset file, or the chainstate rolled back to a height. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockindex.h>
#include <blockkit/hex.h>
#include <blockkit/utxo_source.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void bk_utxo_source_opts_init(bk_utxo_source_opts *o)
{
    memset(o, 0, sizeof *o);
    o->net = BK_NET_MAIN;
    o->height = -1;
    o->at_height = -1;
}

/* <datadir>/<net subdir><leaf> into out: 0 when it does not fit. */
static int join(char *out, size_t cap, const char *datadir, bk_network net, const char *leaf)
{
    int n = bk_network_datadir_path(out, cap, datadir, net, leaf);
    return n >= 0 && (size_t)n < cap;
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The height of block hash from datadir's block index. */
static bk_status height_from_index(const bk_utxo_source_opts *o, bk_network net, const uint8_t hash[32], int32_t *h,
                                   bk_error *err)
{
    char idx[4096];
    if (!join(idx, sizeof idx, o->datadir, net, "blocks/index"))
        return bk_error_set(err, BK_ERR_ARG, 0, "path too long: %s", o->datadir);
    if (!is_dir(idx))
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no block index at %s to find the height: give --height N", idx);
    bk_error e2;
    bk_error_clear(&e2);
    bk_status st = bk_block_index_height(idx, o->tmpdir, hash, h, &e2);
    if (st == BK_ERR_NOT_FOUND) {
        char hex[65];
        return bk_error_set(err, BK_ERR_MISMATCH, 0, "block %s is not in the block index %s", bk_hash_to_hex(hex, hash),
                            idx);
    }
    if (st != BK_OK && err) *err = e2;
    return st;
}

void bk_utxo_source_close(bk_utxo_source *s)
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
static void name_snapshot(const bk_utxo_source *s, bk_error *err)
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

/* datadir's block index: its active chain (a private snapshot in tmpdir). */
static bk_status index_chain(const char *datadir, bk_network net, const char *tmpdir, bk_chain *c, bk_error *err)
{
    bk_chain_opts co;
    memset(&co, 0, sizeof co);
    co.tmpdir = tmpdir;
    return bk_chain_build_index(c, datadir, net, &co, NULL, err);
}

void bk_utxo_node_close(bk_utxo_node *n)
{
    bk_chainstate_close(n->cs);
    if (n->have_chain) bk_chain_free(&n->chain);
    if (n->have_dir) bk_blocksdir_close(&n->dir);
    int no_index = n->no_index;
    memset(n, 0, sizeof *n);
    n->no_index = no_index;
}

bk_status bk_utxo_node_open(bk_utxo_node *n, const bk_utxo_source_opts *o, unsigned flags, bk_error *err)
{
    memset(n, 0, sizeof *n);
    if (!o || !o->datadir) return bk_error_set(err, BK_ERR_ARG, 0, "utxo node: no datadir");
    char path[4096];
    if (!join(path, sizeof path, o->datadir, o->net, "blocks/index"))
        return bk_error_set(err, BK_ERR_ARG, 0, "path too long: %s", o->datadir);
    int optional = (flags & BK_UTXO_NODE_INDEX_OPTIONAL) != 0;
    if (optional && !is_dir(path)) {
        n->no_index = 1;
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no block index at %s", path);
    }
    bk_status st = index_chain(o->datadir, o->net, o->tmpdir, &n->chain, err);
    if (st != BK_OK) {
        n->no_index = optional && st == BK_ERR_NOT_FOUND;
        return st;
    }
    n->have_chain = 1;
    if ((st = bk_blocksdir_open(&n->dir, o->blocksdir, o->net, NULL, err)) != BK_OK) {
        bk_utxo_node_close(n);
        return st;
    }
    n->have_dir = 1;
    if (flags & BK_UTXO_NODE_CHAINSTATE) {
        if (!join(path, sizeof path, o->datadir, o->net, "chainstate")) {
            bk_utxo_node_close(n);
            return bk_error_set(err, BK_ERR_ARG, 0, "path too long: %s", o->datadir);
        }
        if ((st = bk_chainstate_open(path, o->tmpdir, NULL, &n->cs, err)) != BK_OK) {
            bk_utxo_node_close(n);
            return st;
        }
    }
    return BK_OK;
}

/* The set after o->at_height: the chainstate as it is when that is its
 * best block's height, else rolled back (bk_utxo_rollback: the undo data
 * of every block above it, sorted runs in tmpdir, memory bounded). A
 * datadir without a block index cannot be rolled back: the height is then
 * taken as the chainstate's best block's, as the caller states it. */
static bk_status at_height_open(const bk_utxo_source_opts *o, bk_utxo_source *s, bk_error *err)
{
    int32_t h = o->at_height;
    char idx[4096];
    if (!join(idx, sizeof idx, o->datadir, s->net, "blocks/index"))
        return bk_error_set(err, BK_ERR_ARG, 0, "path too long: %s", o->datadir);
    if (!is_dir(idx)) {
        bk_status st = bk_chainstate_iter_new(s->cs, &s->it, err);
        if (st == BK_OK) s->height = h;
        return st;
    }
    bk_status st = index_chain(o->datadir, s->net, o->tmpdir, &s->chain, err);
    if (st != BK_OK) return st;
    s->have_chain = 1;
    const bk_chain_entry *best = bk_chain_find(&s->chain, s->best);
    if (!best || !best->active || best->height < 0)
        return bk_error_set(err, BK_ERR_MISMATCH, 0, "the chainstate's best block is not on the block index's active chain");
    if (h > best->height)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "Target block height %ld after current tip %d", (long)h,
                            (int)best->height);
    if (h < best->height) {
        if ((st = bk_blocksdir_open(&s->dir, o->blocksdir, s->net, NULL, err)) != BK_OK) return st;
        s->have_dir = 1;
        bk_utxo_rollback_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.tmpdir = o->tmpdir;
        if ((st = bk_utxo_rollback_open(&s->rb, s->cs, &s->chain, &s->dir, h, &ro, err)) != BK_OK) return st;
        memcpy(s->best, bk_utxo_rollback_info_get(s->rb)->base_hash, 32);
    } else if ((st = bk_chainstate_iter_new(s->cs, &s->it, err)) != BK_OK) {
        return st;
    }
    s->height = h;
    return BK_OK;
}

static bk_status snapshot_open(bk_utxo_source *s, const bk_utxo_source_opts *o, bk_error *err)
{
    if (!strcmp(o->snapshot, "-")) {
        s->snap_file = stdin;
    } else if (!(s->snap_file = fopen(o->snapshot, "rb"))) {
        int e = errno;
        return bk_error_set(err, e == ENOENT ? BK_ERR_NOT_FOUND : BK_ERR_IO, 0, "cannot open %s: %s", o->snapshot,
                            strerror(e));
    }
    s->snap_name = strcmp(o->snapshot, "-") ? o->snapshot : "standard input";
    bk_status st = bk_utxo_snapshot_open_file(&s->snap, s->snap_file, NULL, err);
    if (st != BK_OK) {
        name_snapshot(s, err);
        return st;
    }
    const bk_utxo_snapshot_meta *m = bk_utxo_snapshot_meta_get(s->snap);
    if (o->net_given && o->net != m->net) {
        const bk_network_params *a = bk_network_get(m->net), *b = bk_network_get(o->net);
        return bk_error_set(err, BK_ERR_MISMATCH, 0, "%s: the snapshot is for network %s (magic at byte 7), not %s",
                            o->snapshot, a->name, b->name);
    }
    s->net = m->net;
    memcpy(s->best, m->base_hash, 32);
    if (o->height >= 0) s->height = o->height;
    else if (o->datadir) st = height_from_index(o, s->net, s->best, &s->height, err);
    else if (!o->height_optional)
        st = bk_error_set(err, BK_ERR_ARG, 0, "a snapshot does not record its height: give --height N or --datadir DIR");
    if (st == BK_OK && s->height >= 0) bk_utxo_snapshot_set_base_height(s->snap, (uint32_t)s->height);
    return st;
}

static bk_status chainstate_open(bk_utxo_source *s, const bk_utxo_source_opts *o, bk_error *err)
{
    s->net = o->net;
    if (!bk_network_datadir_subdir(o->net)) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    char dir[4096];
    if (!join(dir, sizeof dir, o->datadir, o->net, "chainstate"))
        return bk_error_set(err, BK_ERR_ARG, 0, "path too long: %s", o->datadir);
    bk_error e2;
    bk_error_clear(&e2);
    bk_status st = bk_chainstate_open(dir, o->tmpdir, NULL, &s->cs, &e2);
    if (st == BK_ERR_NOT_FOUND)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no chainstate at %s (%s)%s", dir, e2.msg,
                            o->net_given ? "" : "; a test network's datadir needs --chain");
    if (st != BK_OK) {
        if (err) *err = e2;
        return st;
    }
    bk_chainstate_best_block(s->cs, s->best);
    if (o->at_height >= 0) return at_height_open(o, s, err);
    if (o->height >= 0) {
        s->height = o->height;
    } else {
        char idx[4096];
        /* rows carry each coin's own height: the best block's is optional */
        int have_idx = join(idx, sizeof idx, o->datadir, o->net, "blocks/index") && is_dir(idx);
        if ((!o->height_optional || have_idx) &&
            (st = height_from_index(o, o->net, s->best, &s->height, err)) != BK_OK)
            return st;
    }
    s->disk_size = bk_chainstate_disk_size(s->cs);
    return bk_chainstate_iter_new(s->cs, &s->it, err);
}

bk_status bk_utxo_source_open(bk_utxo_source *s, const bk_utxo_source_opts *o, bk_error *err)
{
    memset(s, 0, sizeof *s);
    s->height = -1;
    if (!o) return bk_error_set(err, BK_ERR_ARG, 0, "utxo source: no options");
    bk_status st;
    if (o->snapshot) st = snapshot_open(s, o, err);
    else if (o->datadir) st = chainstate_open(s, o, err);
    else st = bk_error_set(err, BK_ERR_ARG, 0, "--datadir or --utxo-snapshot is required");
    if (st != BK_OK) bk_utxo_source_close(s);
    return st;
}

int bk_utxo_source_next(bk_utxo_source *s, bk_utxo *u)
{
    if (s->rb) return bk_utxo_rollback_next(s->rb, u);
    return s->snap ? bk_utxo_snapshot_next(s->snap, u) : bk_chainstate_iter_next(s->it, u);
}

bk_status bk_utxo_source_status(bk_utxo_source *s, bk_error *err)
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
