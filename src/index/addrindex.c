/* The address index (include/blockkit/addrindex.h): open, the rows of a
 * block, sync (build, update, reorg), and the queries. The key layout is
 * the header's; every rule of it is here. */
#include <blockkit/addrindex.h>
#include <blockkit/bitcoin.h>
#include <blockkit/engine.h>
#include <blockkit/hex.h>
#include <blockkit/leveldb.h>
#include <blockkit/merkle.h>
#include <blockkit/sha256.h>
#include <blockkit/stream.h>
#include <blockkit/undo.h>

#include <leveldb/c.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#define MAGIC "blockkit-addrindex"
#define MAGIC_LEN 18
#define MAX_SCRIPT_SIZE 10000 /* Core: MAX_SCRIPT_SIZE, above it a coin is unspendable */
#define FLAG_UNSPENDABLE 1u

enum { K_FUND = 'o', K_SPEND = 'p', K_TXPOS = 'i', K_TXIDS = 'x', K_HEADER = 'h' };
#define FUND_KEY_LEN (1 + 32 + 12)
#define HDR_VAL_LEN (32 + 80 + 4 + 8 + 4 + 4)

struct bk_addrindex {
    bk_addrindex_mode mode;
    bk_addrindex_opts opts;
    const bk_allocator *alloc;
    char *dir;
    /* WRITE */
    leveldb_t *db;
    leveldb_options_t *lopts;
    leveldb_readoptions_t *ropts;
    leveldb_writeoptions_t *wopts;
    /* READ: the snapshot, swapped by refresh under the lock */
    pthread_rwlock_t lock;
    bk_ldb *snap;
    int64_t tip_height;
    uint8_t tip_hash[32];
};

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void bk_addrindex_opts_init(bk_addrindex_opts *o)
{
    memset(o, 0, sizeof *o);
    o->net = BK_NET_MAIN;
}

void bk_addrindex_scripthash(const uint8_t *script, size_t len, uint8_t sh_out[32])
{
    bk_sha256(sh_out, script, len);
}

bk_network bk_addrindex_network(const bk_addrindex *ix) { return ix->opts.net; }

void bk_addrindex_free(bk_addrindex *ix, void *p)
{
    (void)ix;
    free(p);
}

/* ---- the version row ---------------------------------------------------- */

static const char *net_name(bk_network net)
{
    const bk_network_params *p = bk_network_get(net);
    return p ? p->name : "an unknown network";
}

static void version_value(uint8_t v[MAGIC_LEN + 8], bk_network net)
{
    memcpy(v, MAGIC, MAGIC_LEN);
    bk_store_le32(v + MAGIC_LEN, BK_ADDRINDEX_VERSION);
    bk_store_le32(v + MAGIC_LEN + 4, (uint32_t)net);
}

/* net BK_NET_COUNT_ (a reader that takes the index's own): set to it. */
static bk_status version_check(const char *dir, const uint8_t *v, size_t n, bk_network *netp, bk_error *err)
{
    bk_network net = *netp;
    if (n != MAGIC_LEN + 8 || memcmp(v, MAGIC, MAGIC_LEN) != 0)
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a LevelDB that is not a blockkit address index", dir);
    uint32_t ver = bk_load_le32(v + MAGIC_LEN), inet = bk_load_le32(v + MAGIC_LEN + 4);
    if (ver != BK_ADDRINDEX_VERSION)
        return bk_error_set(err, BK_ERR_MISMATCH, 0,
                            "%s: an address index of format version %u (this blockkit reads %u): build it again",
                            dir, ver, BK_ADDRINDEX_VERSION);
    if (net == BK_NET_COUNT_ && inet < (uint32_t)BK_NET_COUNT_) {
        *netp = (bk_network)inet;
        return BK_OK;
    }
    if (inet != (uint32_t)net)
        return bk_error_set(err, BK_ERR_MISMATCH, 0, "%s: an address index of %s, not %s", dir,
                            net_name((bk_network)inet), net_name(net));
    return BK_OK;
}

/* The tip row (v NULL: none, an empty index); a row of another size or a
 * negative height is damaged (fuzz_addrindex: a tip of -5 was returned). */
static bk_status tip_decode(const char *dir, const uint8_t *v, size_t n, int64_t *height, uint8_t hash[32],
                            bk_error *err)
{
    *height = -1;
    memset(hash, 0, 32);
    if (!v) return BK_OK;
    int32_t h = n == 36 ? (int32_t)bk_load_le32(v) : -1;
    if (h < 0) return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a damaged tip row (%zu bytes)", dir, n);
    *height = h;
    memcpy(hash, v + 4, 32);
    return BK_OK;
}

/* ---- open --------------------------------------------------------------- */

/* dir (or, when it does not exist yet, its parent) inside datadir. */
static int inside(const char *dir, const char *datadir)
{
    char d[PATH_MAX], r[PATH_MAX];
    if (!realpath(datadir, d)) return 0;
    if (!realpath(dir, r)) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", dir);
        char *slash = strrchr(tmp, '/');
        if (slash == tmp) slash[1] = 0;
        else if (slash) *slash = 0;
        else snprintf(tmp, sizeof tmp, ".");
        if (!realpath(tmp, r)) return 0;
    }
    size_t n = strlen(d);
    return strncmp(r, d, n) == 0 && (r[n] == 0 || r[n] == '/' || (n == 1 && d[0] == '/'));
}

static bk_status ldb_fail(bk_error *err, bk_status st, const char *dir, char *msg)
{
    bk_status s = bk_error_set(err, st, 0, "%s: LevelDB: %s", dir, msg);
    leveldb_free(msg);
    return s;
}

/* A name LevelDB creates before the CURRENT file exists: LOCK, LOG,
 * LOG.old, MANIFEST-<n> and <n>.dbtmp (CURRENT being written). */
static int ldb_precurrent_name(const char *n)
{
    if (!strcmp(n, "LOCK") || !strcmp(n, "LOG") || !strcmp(n, "LOG.old")) return 1;
    const char *p = n;
    if (!strncmp(p, "MANIFEST-", 9)) p += 9;
    const char *digits = p;
    while (*p >= '0' && *p <= '9') p++;
    if (p == digits) return 0;
    return digits != n ? *p == 0 : !strcmp(p, ".dbtmp");
}

static bk_status open_write(bk_addrindex *ix, bk_error *err)
{
    struct stat sb;
    if (stat(ix->dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) return bk_error_set(err, BK_ERR_ARG, 0, "%s: not a directory", ix->dir);
        char cur[PATH_MAX + 16];
        snprintf(cur, sizeof cur, "%s/CURRENT", ix->dir);
        struct stat cs;
        if (stat(cur, &cs) != 0) {
            /* An existing directory with files but no LevelDB is not ours to
             * fill. The files LevelDB writes before CURRENT (a creation
             * killed mid-way) hold no data: LevelDB starts the database
             * over them. */
            DIR *d = opendir(ix->dir);
            if (!d) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", ix->dir, strerror(errno));
            int foreign = 0;
            struct dirent *de;
            while (!foreign && (de = readdir(d)))
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && !ldb_precurrent_name(de->d_name))
                    foreign = 1;
            closedir(d);
            if (foreign)
                return bk_error_set(err, BK_ERR_INVALID, 0,
                                    "%s: a directory with files that is not a LevelDB: name an empty or new one",
                                    ix->dir);
        }
    } else if (errno != ENOENT) {
        return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", ix->dir, strerror(errno));
    } else if (mkdir(ix->dir, 0777) != 0) {
        return bk_error_set(err, BK_ERR_IO, 0, "%s: cannot create it: %s", ix->dir, strerror(errno));
    }
    ix->lopts = leveldb_options_create();
    leveldb_options_set_create_if_missing(ix->lopts, 1);
    leveldb_options_set_compression(ix->lopts, leveldb_snappy_compression);
    leveldb_options_set_write_buffer_size(ix->lopts, 64u << 20);
    leveldb_options_set_max_open_files(ix->lopts, 256);
    ix->ropts = leveldb_readoptions_create();
    ix->wopts = leveldb_writeoptions_create();
    char *msg = NULL;
    ix->db = leveldb_open(ix->lopts, ix->dir, &msg);
    if (!ix->db) {
        bk_status st = strstr(msg, "lock") || strstr(msg, "LOCK") ? BK_ERR_LOCKED : BK_ERR_IO;
        if (st == BK_ERR_LOCKED) {
            leveldb_free(msg);
            return bk_error_set(err, BK_ERR_LOCKED, 0, "%s: another blockkit index writer has it open", ix->dir);
        }
        return ldb_fail(err, st, ix->dir, msg);
    }
    size_t n = 0;
    char *v = leveldb_get(ix->db, ix->ropts, "v", 1, &n, &msg);
    if (msg) return ldb_fail(err, BK_ERR_IO, ix->dir, msg);
    if (v) {
        bk_status st = version_check(ix->dir, (const uint8_t *)v, n, &ix->opts.net, err);
        leveldb_free(v);
        return st;
    }
    /* a LevelDB without our version row: refuse unless it holds nothing */
    leveldb_iterator_t *it = leveldb_create_iterator(ix->db, ix->ropts);
    leveldb_iter_seek_to_first(it);
    int any = leveldb_iter_valid(it);
    leveldb_iter_destroy(it);
    if (any) return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a LevelDB that is not a blockkit address index", ix->dir);
    uint8_t vv[MAGIC_LEN + 8];
    version_value(vv, ix->opts.net);
    leveldb_put(ix->db, ix->wopts, "v", 1, (const char *)vv, sizeof vv, &msg);
    if (msg) return ldb_fail(err, BK_ERR_IO, ix->dir, msg);
    return BK_OK;
}

static bk_status snap_open(bk_addrindex *ix, bk_ldb **snap, int64_t *height, uint8_t hash[32], bk_error *err)
{
    bk_status st = bk_ldb_open(ix->dir, ix->opts.tmpdir, snap, err);
    if (st == BK_ERR_NOT_FOUND)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s: no address index there (blockkit index build makes one)",
                            ix->dir);
    if (st != BK_OK) return st;
    uint8_t *v = NULL;
    size_t n = 0;
    st = bk_ldb_get(*snap, (const uint8_t *)"v", 1, &v, &n, err);
    if (st == BK_ERR_NOT_FOUND)
        st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: a LevelDB that is not a blockkit address index", ix->dir);
    else if (st == BK_OK) st = version_check(ix->dir, v, n, &ix->opts.net, err);
    bk_ldb_free(v);
    v = NULL;
    if (st == BK_OK) {
        st = bk_ldb_get(*snap, (const uint8_t *)"t", 1, &v, &n, err);
        if (st == BK_ERR_NOT_FOUND) {
            st = BK_OK;
            v = NULL;
        }
        if (st == BK_OK) st = tip_decode(ix->dir, v, n, height, hash, err);
        bk_ldb_free(v);
    }
    if (st != BK_OK) {
        bk_ldb_close(*snap);
        *snap = NULL;
    }
    return st;
}

bk_status bk_addrindex_open(bk_addrindex **ix_out, const char *dir, bk_addrindex_mode mode,
                            const bk_addrindex_opts *opts, bk_error *err)
{
    if (!ix_out || !dir || !*dir) return bk_error_set(err, BK_ERR_ARG, 0, "no index directory");
    *ix_out = NULL;
    bk_addrindex_opts o;
    if (opts) o = *opts;
    else bk_addrindex_opts_init(&o);
    if (o.node_datadir && inside(dir, o.node_datadir))
        return bk_error_set(err, BK_ERR_ARG, 0,
                            "%s is inside the node's datadir %s: blockkit never writes there; name a directory "
                            "outside it", dir, o.node_datadir);
    bk_addrindex *ix = calloc(1, sizeof *ix);
    if (!ix || !(ix->dir = strdup(dir))) {
        free(ix);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    ix->mode = mode;
    ix->opts = o;
    ix->alloc = o.alloc ? o.alloc : bk_default_allocator();
    pthread_rwlock_init(&ix->lock, NULL);
    bk_status st;
    if (mode == BK_ADDRINDEX_WRITE && (unsigned)o.net >= (unsigned)BK_NET_COUNT_) {
        st = bk_error_set(err, BK_ERR_ARG, 0, "a writer names the index's network");
    } else if (mode == BK_ADDRINDEX_WRITE) {
        st = open_write(ix, err);
    } else {
        struct stat sb;
        if (stat(dir, &sb) != 0)
            st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s: %s", dir, strerror(errno));
        else if (!S_ISDIR(sb.st_mode))
            st = bk_error_set(err, BK_ERR_ARG, 0, "%s: not a directory", dir);
        else
            st = snap_open(ix, &ix->snap, &ix->tip_height, ix->tip_hash, err);
    }
    if (st != BK_OK) {
        bk_addrindex_close(ix);
        return st;
    }
    *ix_out = ix;
    return BK_OK;
}

void bk_addrindex_close(bk_addrindex *ix)
{
    if (!ix) return;
    if (ix->db) leveldb_close(ix->db);
    if (ix->lopts) leveldb_options_destroy(ix->lopts);
    if (ix->ropts) leveldb_readoptions_destroy(ix->ropts);
    if (ix->wopts) leveldb_writeoptions_destroy(ix->wopts);
    bk_ldb_close(ix->snap);
    pthread_rwlock_destroy(&ix->lock);
    free(ix->dir);
    free(ix);
}

bk_status bk_addrindex_refresh(bk_addrindex *ix, int *changed_out, bk_error *err)
{
    if (!ix || ix->mode != BK_ADDRINDEX_READ) return bk_error_set(err, BK_ERR_ARG, 0, "refresh: not a READ handle");
    bk_ldb *snap = NULL;
    int64_t h;
    uint8_t hash[32];
    bk_status st = snap_open(ix, &snap, &h, hash, err);
    if (st != BK_OK) return st;
    pthread_rwlock_wrlock(&ix->lock);
    bk_ldb *old = ix->snap;
    int changed = h != ix->tip_height || memcmp(hash, ix->tip_hash, 32) != 0;
    ix->snap = snap;
    ix->tip_height = h;
    memcpy(ix->tip_hash, hash, 32);
    pthread_rwlock_unlock(&ix->lock);
    bk_ldb_close(old);
    if (changed_out) *changed_out = changed;
    return BK_OK;
}

/* ---- reads common to both modes ------------------------------------------ */

/* The value of key: *v malloc'd (free()), BK_ERR_NOT_FOUND when absent.
 * READ handles hold the read lock around it. */
static bk_status get(bk_addrindex *ix, const uint8_t *key, size_t klen, uint8_t **v, size_t *n, bk_error *err)
{
    *v = NULL;
    if (ix->mode == BK_ADDRINDEX_READ) return bk_ldb_get(ix->snap, key, klen, v, n, err);
    char *msg = NULL;
    char *r = leveldb_get(ix->db, ix->ropts, (const char *)key, klen, n, &msg);
    if (msg) return ldb_fail(err, BK_ERR_IO, ix->dir, msg);
    if (!r) return BK_ERR_NOT_FOUND;
    *v = (uint8_t *)r;
    return BK_OK;
}

static bk_status tip_read(bk_addrindex *ix, int64_t *height, uint8_t hash[32], bk_error *err)
{
    if (ix->mode == BK_ADDRINDEX_READ) {
        *height = ix->tip_height;
        memcpy(hash, ix->tip_hash, 32);
        return BK_OK;
    }
    uint8_t *v;
    size_t n = 0;
    bk_status st = get(ix, (const uint8_t *)"t", 1, &v, &n, err);
    if (st != BK_OK && st != BK_ERR_NOT_FOUND) return st;
    st = tip_decode(ix->dir, v, n, height, hash, err);
    free(v);
    return st;
}

bk_status bk_addrindex_tip(bk_addrindex *ix, int64_t *height_out, uint8_t hash_out[32], bk_error *err)
{
    if (!ix || !height_out || !hash_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (ix->mode == BK_ADDRINDEX_READ) pthread_rwlock_rdlock(&ix->lock);
    bk_status st = tip_read(ix, height_out, hash_out, err);
    if (ix->mode == BK_ADDRINDEX_READ) pthread_rwlock_unlock(&ix->lock);
    return st;
}

/* The 'h' row of height: hash, header, file, offset, size, n_tx. */
static bk_status header_row(bk_addrindex *ix, int64_t height, uint8_t **v, bk_error *err)
{
    int64_t tip;
    uint8_t th[32];
    bk_status st = tip_read(ix, &tip, th, err);
    if (st != BK_OK) return st;
    if (height < 0 || height > tip)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "height %lld is above the index's tip (%lld)", (long long)height,
                            (long long)tip);
    uint8_t key[5] = {K_HEADER};
    put_be32(key + 1, (uint32_t)height);
    size_t n = 0;
    st = get(ix, key, 5, v, &n, err);
    if (st == BK_OK && n != HDR_VAL_LEN) {
        free(*v);
        *v = NULL;
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged header row at height %lld", ix->dir, (long long)height);
    }
    if (st == BK_ERR_NOT_FOUND)
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: no header row at height %lld below the tip", ix->dir,
                            (long long)height);
    return st;
}

bk_status bk_addrindex_header(bk_addrindex *ix, int64_t height, uint8_t header_out[80], bk_error *err)
{
    if (!ix || !header_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (ix->mode == BK_ADDRINDEX_READ) pthread_rwlock_rdlock(&ix->lock);
    uint8_t *v = NULL;
    bk_status st = header_row(ix, height, &v, err);
    if (st == BK_OK) memcpy(header_out, v + 32, 80);
    free(v);
    if (ix->mode == BK_ADDRINDEX_READ) pthread_rwlock_unlock(&ix->lock);
    return st;
}

/* ---- the rows of a block -------------------------------------------------- */

/* A block's rows as records for the writer thread: op ('P' put, 'D'
 * delete), key length (u8), key, value length (u16 LE), value. */
static void rec(bk_writer *w, char op, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    uint8_t h[2] = {(uint8_t)op, (uint8_t)kl};
    bk_writer_put(w, h, 2);
    bk_writer_put(w, k, kl);
    uint8_t l[2] = {(uint8_t)vl, (uint8_t)(vl >> 8)};
    bk_writer_put(w, l, 2);
    if (vl) bk_writer_put(w, v, vl);
}

/* An output never in Core's UTXO set (CScript::IsUnspendable, and the
 * genesis outputs Core never adds). */
static int unspendable(const uint8_t *s, size_t n, int64_t height)
{
    return height == 0 || (n > 0 && s[0] == 0x6a) || n > MAX_SCRIPT_SIZE;
}

typedef struct block_rows_in {
    const bk_block *b;
    const bk_block_undo *undo; /* NULL: the genesis */
    const bk_chain_entry *e;
    int64_t height;
    char op;                   /* 'P' apply, 'D' undo */
    uint8_t *txids;            /* scratch: 32 * n_tx */
} block_rows_in;

static bk_status block_rows(const block_rows_in *in, bk_writer *w, bk_error *err)
{
    const bk_block *b = in->b;
    char op = in->op;
    uint32_t height = (uint32_t)in->height;
    bk_block_txids(b, in->txids);
    uint8_t key[FUND_KEY_LEN], val[40];
    /* the header row and the block's txids */
    key[0] = K_HEADER;
    put_be32(key + 1, height);
    memcpy(val, in->e->hash, 32);
    {
        uint8_t hv[HDR_VAL_LEN];
        memcpy(hv, in->e->hash, 32);
        memcpy(hv + 32, b->data, 80);
        bk_store_le32(hv + 112, in->e->file);
        bk_store_le64(hv + 116, in->e->offset);
        bk_store_le32(hv + 124, in->e->size);
        bk_store_le32(hv + 128, b->n_tx);
        rec(w, op, key, 5, hv, sizeof hv);
    }
    key[0] = K_TXIDS;
    /* the txids row can exceed a u16 value: split per 2,000 txids */
    for (uint32_t first = 0; first < b->n_tx; first += 2000) {
        uint32_t cnt = b->n_tx - first < 2000 ? b->n_tx - first : 2000;
        uint8_t xk[9];
        xk[0] = K_TXIDS;
        put_be32(xk + 1, height);
        put_be32(xk + 5, first);
        rec(w, op, xk, 9, in->txids + 32 * (size_t)first, 32 * (size_t)cnt);
    }
    bk_undo_iter ui;
    if (in->undo) bk_undo_iter_init(&ui, in->undo);
    for (uint32_t i = 0; i < b->n_tx; i++) {
        const bk_tx *tx = &b->txs[i];
        const uint8_t *txid = in->txids + 32 * (size_t)i;
        key[0] = K_TXPOS;
        memcpy(key + 1, txid, 32);
        put_be32(val, height);
        put_be32(val + 4, i);
        rec(w, op, key, 33, val, 8);
        /* funding rows */
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, tx);
        while (bk_txout_next(&oi, &o)) {
            key[0] = K_FUND;
            bk_sha256(key + 1, o.script, o.script_len);
            put_be32(key + 33, height);
            put_be32(key + 37, i);
            put_be32(key + 41, oi.index - 1);
            bk_store_le64(val, (uint64_t)o.value);
            val[8] = unspendable(o.script, o.script_len, in->height) ? FLAG_UNSPENDABLE : 0;
            rec(w, op, key, FUND_KEY_LEN, val, 9);
        }
        if (i == 0) continue;
        /* spending rows, keyed by the spent output's script (undo data) */
        uint32_t n_coins;
        if (!in->undo || !bk_undo_next_tx(&ui, &n_coins) || n_coins != tx->n_in)
            return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match the block at height %u", height);
        bk_txin_iter ii;
        bk_txin tin;
        bk_txin_iter_init(&ii, tx);
        for (uint32_t k = 0; k < n_coins; k++) {
            bk_coin c;
            if (!bk_undo_next_coin(&ui, &c) || !bk_txin_next(&ii, &tin))
                return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match the block at height %u",
                                    height);
            key[0] = K_SPEND;
            bk_sha256(key + 1, bk_coin_script(&c), c.script_len);
            put_be32(key + 33, height);
            put_be32(key + 37, i);
            put_be32(key + 41, k);
            memcpy(val, tin.prev_txid, 32);
            bk_store_le32(val + 32, tin.prev_index);
            rec(w, op, key, FUND_KEY_LEN, val, 36);
        }
    }
    return bk_writer_status(w) == BK_OK ? BK_OK : bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
}

/* ---- sync ------------------------------------------------------------------ */

typedef struct sync_worker {
    uint8_t *txids;
    size_t cap;
} sync_worker;

typedef struct sync_ctx {
    bk_addrindex *ix;
    const bk_chain *chain;
    sync_worker *w;
    leveldb_writebatch_t *batch;
    size_t batch_bytes, limit;
    int64_t first_height;      /* of job 0 */
    int64_t last_height;       /* in the batch */
    const uint8_t *last_hash;
    int64_t applied, tip;
} sync_ctx;

static bk_status worker_txids(sync_worker *W, const bk_allocator *a, uint32_t n_tx, bk_error *err)
{
    if (bk_grow(a, &W->txids, &W->cap, 32 * (size_t)n_tx) != 0)
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;
}

static bk_status sync_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *out, bk_error *err)
{
    sync_ctx *S = vctx;
    sync_worker *W = &S->w[worker];
    char hex[65];
    if (!eb->block)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %lld: block data not available (pruned?)",
                            bk_hash_to_hex(hex, eb->entry->hash), (long long)eb->height);
    if (eb->height > 0 && !eb->undo)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %lld: undo data not available",
                            bk_hash_to_hex(hex, eb->entry->hash), (long long)eb->height);
    bk_status st = worker_txids(W, S->ix->alloc, eb->block->n_tx, err);
    if (st != BK_OK) return st;
    block_rows_in in = {eb->block, eb->height > 0 ? eb->undo : NULL, eb->entry, eb->height, 'P', W->txids};
    return block_rows(&in, out, err);
}

/* Records into the batch. */
static bk_status batch_add(leveldb_writebatch_t *b, const uint8_t *d, size_t n, size_t *bytes, bk_error *err)
{
    size_t p = 0;
    while (p < n) {
        if (n - p < 4) return bk_error_set(err, BK_ERR_INVALID, p, "internal: a cut row record");
        char op = (char)d[p];
        size_t kl = d[p + 1];
        if (n - p < 2 + kl + 2) return bk_error_set(err, BK_ERR_INVALID, p, "internal: a cut row record");
        const uint8_t *k = d + p + 2;
        size_t vl = (size_t)d[p + 2 + kl] | (size_t)d[p + 3 + kl] << 8;
        if (n - p < 4 + kl + vl) return bk_error_set(err, BK_ERR_INVALID, p, "internal: a cut row record");
        const uint8_t *v = d + p + 4 + kl;
        if (op == 'P') leveldb_writebatch_put(b, (const char *)k, kl, (const char *)v, vl);
        else leveldb_writebatch_delete(b, (const char *)k, kl);
        *bytes += kl + vl + 8;
        p += 4 + kl + vl;
    }
    return BK_OK;
}

static bk_status batch_write(bk_addrindex *ix, leveldb_writebatch_t *b, int64_t height, const uint8_t hash[32],
                             bk_error *err)
{
    uint8_t t[36];
    bk_store_le32(t, (uint32_t)(int32_t)height);
    memcpy(t + 4, hash, 32);
    if (height < 0) leveldb_writebatch_delete(b, "t", 1);
    else leveldb_writebatch_put(b, "t", 1, (const char *)t, 36);
    char *msg = NULL;
    leveldb_write(ix->db, ix->wopts, b, &msg);
    leveldb_writebatch_clear(b);
    if (msg) return ldb_fail(err, BK_ERR_IO, ix->dir, msg);
    return BK_OK;
}

static bk_status sync_consume(void *ctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    sync_ctx *S = ctx;
    bk_status st = batch_add(S->batch, data, len, &S->batch_bytes, err);
    if (st != BK_OK) return st;
    S->last_height = S->first_height + (int64_t)job;
    S->last_hash = S->chain->entries[S->chain->active[S->last_height - S->chain->base_height]].hash;
    S->applied++;
    if (S->batch_bytes >= S->limit || S->last_height == S->tip) {
        st = batch_write(S->ix, S->batch, S->last_height, S->last_hash, err);
        S->batch_bytes = 0;
        if (st != BK_OK) return st;
        if (S->ix->opts.progress) S->ix->opts.progress(S->ix->opts.progress_ctx, S->last_height, S->tip);
    }
    return BK_OK;
}

/* The chain's active entry at height, or NULL. */
static const bk_chain_entry *active_at(const bk_chain *c, int64_t h)
{
    if (c->tip == BK_CHAIN_NONE || h < c->base_height || (size_t)(h - c->base_height) >= c->n_active) return NULL;
    return &c->entries[c->active[h - c->base_height]];
}

/* Undo the index's tip block (the node still has it and its undo data). */
static bk_status undo_tip(bk_addrindex *ix, const bk_chain *c, const bk_blocksdir *dir, int64_t height,
                          const uint8_t hash[32], leveldb_writebatch_t *batch, bk_error *err)
{
    char hex[65];
    const bk_chain_entry *e = bk_chain_find(c, hash);
    if (!e)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                            "the index's block %s at height %lld is not in the node's files: cannot undo it",
                            bk_hash_to_hex(hex, hash), (long long)height);
    bk_block_reader br;
    bk_block_reader_init(&br, dir, ix->alloc);
    bk_engine_block eb;
    bk_engine_where wh;
    bk_error e2;
    bk_status st = bk_block_reader_read(&br, e, BK_READ_UNDO, &eb, &wh, &e2);
    if (st != BK_OK) {
        char m[BK_ERROR_MSG_MAX + 256];
        bk_engine_error_format(&wh, &e2, m, sizeof m);
        st = bk_error_set(err, st, e2.offset, "%s", m);
    } else if (!eb.block || (height > 0 && !eb.undo)) {
        st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %lld: no %s to undo it from",
                          bk_hash_to_hex(hex, hash), (long long)height, eb.block ? "undo data" : "block data");
    }
    bk_writer w;
    bk_writer_init(&w, ix->alloc);
    uint8_t *txids = NULL;
    size_t cap = 0;
    if (st == BK_OK && bk_grow(ix->alloc, &txids, &cap, 32 * (size_t)eb.block->n_tx) != 0)
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK) {
        block_rows_in in = {eb.block, height > 0 ? eb.undo : NULL, e, height, 'D', txids};
        st = block_rows(&in, &w, err);
    }
    size_t bytes = 0;
    if (st == BK_OK) st = batch_add(batch, w.data, w.len, &bytes, err);
    if (st == BK_OK) {
        const bk_chain_entry *prev = e->parent != BK_CHAIN_NONE ? &c->entries[e->parent] : NULL;
        uint8_t zero[32] = {0};
        st = batch_write(ix, batch, height - 1, prev ? prev->hash : zero, err);
    }
    leveldb_writebatch_clear(batch);
    bk_free(ix->alloc, txids, cap);
    bk_writer_free(&w);
    bk_block_reader_free(&br);
    return st;
}

bk_status bk_addrindex_sync(bk_addrindex *ix, const bk_chain *chain, const bk_blocksdir *dir, int64_t *applied_out,
                            int64_t *undone_out, bk_error *err)
{
    if (applied_out) *applied_out = 0;
    if (undone_out) *undone_out = 0;
    if (!ix || !chain || !dir) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (ix->mode != BK_ADDRINDEX_WRITE) return bk_error_set(err, BK_ERR_ARG, 0, "sync: not a WRITE handle");
    if (chain->net != ix->opts.net)
        return bk_error_set(err, BK_ERR_MISMATCH, 0, "the node's blocks are of %s, the index of %s",
                            net_name(chain->net), net_name(ix->opts.net));
    if (chain->tip == BK_CHAIN_NONE) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "the node has no best chain");
    int64_t tip;
    uint8_t th[32];
    bk_status st = tip_read(ix, &tip, th, err);
    if (st != BK_OK) return st;
    leveldb_writebatch_t *batch = leveldb_writebatch_create();
    /* the fork point: undo the index's blocks that left the best chain */
    int64_t undone = 0;
    const bk_chain_entry *ce;
    while (tip >= 0 && (!(ce = active_at(chain, tip)) || memcmp(ce->hash, th, 32) != 0)) {
        if (ix->opts.cancel && *ix->opts.cancel) {
            st = bk_error_set(err, BK_ERR_CANCELLED, 0, "stopped at height %lld", (long long)tip);
            break;
        }
        st = undo_tip(ix, chain, dir, tip, th, batch, err);
        if (st != BK_OK) break;
        undone++;
        st = tip_read(ix, &tip, th, err);
        if (st != BK_OK) break;
    }
    if (undone_out) *undone_out = undone;
    const bk_chain_entry *top = &chain->entries[chain->tip];
    int64_t start = tip + 1, end = top->height;
    /* a blocks directory whose chain starts above an implied genesis (the
     * bench directories: no block 0 in the files) is indexed from its
     * first block: the heights below it have no block to give rows */
    if (start < chain->base_height) start = chain->base_height;
    if (st != BK_OK || start > end) {
        leveldb_writebatch_destroy(batch);
        return st;
    }
    bk_engine_item *items = NULL;
    size_t n = 0, cap = 0;
    st = bk_engine_chain_items(chain, start, end, 1, &items, &n, &cap, NULL, NULL, ix->alloc, err);
    int workers = ix->opts.workers > 1 ? ix->opts.workers : 1;
    sync_ctx S;
    memset(&S, 0, sizeof S);
    S.ix = ix;
    S.chain = chain;
    S.batch = batch;
    S.limit = ix->opts.mem_bytes ? ix->opts.mem_bytes : (256u << 20);
    S.first_height = start;
    S.tip = end;
    S.w = calloc((size_t)workers, sizeof *S.w);
    if (st == BK_OK && !S.w) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK && (n != (size_t)(end - start + 1)))
        st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "the best chain has no block at some height in %lld..%lld",
                          (long long)start, (long long)end);
    if (st == BK_OK) {
        bk_engine_opts eo;
        bk_engine_opts_init(&eo);
        eo.chain = chain;
        eo.dir = dir;
        eo.items = items;
        eo.n_items = n;
        eo.read_flags = BK_READ_UNDO;
        eo.run.workers = workers;
        eo.run.cancel = ix->opts.cancel;
        eo.run.alloc = ix->alloc;
        eo.block = sync_block;
        eo.consume = sync_consume;
        eo.ctx = &S;
        bk_engine_result res;
        st = bk_engine_run(&eo, &res, err);
        if (st != BK_OK && st != BK_ERR_CANCELLED && res.where.stage != BK_STAGE_NONE) {
            char m[BK_ERROR_MSG_MAX + 256];
            bk_error e2 = *err;
            bk_engine_error_format(&res.where, &e2, m, sizeof m);
            bk_error_set(err, st, e2.offset, "%s", m);
        }
        /* what was consumed but not yet written is whole blocks: keep it */
        if (S.batch_bytes && S.last_hash) {
            bk_error e3;
            bk_status s2 = batch_write(ix, batch, S.last_height, S.last_hash, &e3);
            if (st == BK_OK && s2 != BK_OK) {
                st = s2;
                *err = e3;
            }
        }
    }
    if (applied_out) *applied_out = S.applied;
    if (S.w)
        for (int i = 0; i < workers; i++) bk_free(ix->alloc, S.w[i].txids, S.w[i].cap);
    free(S.w);
    bk_free(ix->alloc, items, cap * sizeof *items);
    leveldb_writebatch_destroy(batch);
    return st;
}

/* ---- queries --------------------------------------------------------------- */

static int read_ok(bk_addrindex *ix, bk_error *err)
{
    if (ix->mode == BK_ADDRINDEX_READ) return 1;
    bk_error_set(err, BK_ERR_ARG, 0, "queries read a READ handle");
    return 0;
}

typedef struct pos_list {
    uint64_t *v; /* height << 32 | pos */
    size_t n, cap;
} pos_list;

static int pos_push(pos_list *l, uint64_t x)
{
    if (l->n == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 64;
        uint64_t *p = realloc(l->v, c * sizeof *p);
        if (!p) return -1;
        l->v = p;
        l->cap = c;
    }
    l->v[l->n++] = x;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The txid at (height, pos) from the 'x' rows. */
static bk_status txid_at(bk_addrindex *ix, uint32_t height, uint32_t pos, uint8_t out[32], bk_error *err)
{
    uint8_t k[9] = {K_TXIDS};
    put_be32(k + 1, height);
    put_be32(k + 5, pos - pos % 2000);
    uint8_t *v;
    size_t n = 0;
    bk_status st = get(ix, k, 9, &v, &n, err);
    if (st == BK_ERR_NOT_FOUND)
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: no txid row for height %u", ix->dir, height);
    if (st != BK_OK) return st;
    size_t i = pos % 2000;
    if (32 * (i + 1) > n) st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: no tx %u at height %u", ix->dir, pos, height);
    else memcpy(out, v + 32 * i, 32);
    bk_ldb_free(v);
    return st;
}

/* The (height, pos) of every row of sh under prefix kind, appended. */
static bk_status rows_of(bk_addrindex *ix, char kind, const uint8_t sh[32], pos_list *l, bk_error *err)
{
    uint8_t p[33];
    p[0] = (uint8_t)kind;
    memcpy(p + 1, sh, 32);
    bk_ldb_iter *it;
    bk_status st = bk_ldb_iter_new(ix->snap, p, 33, &it, err);
    if (st != BK_OK) return st;
    const uint8_t *k, *v;
    size_t kl, vl;
    while (bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        if (kl != FUND_KEY_LEN) continue;
        if (pos_push(l, (uint64_t)get_be32(k + 33) << 32 | get_be32(k + 37)) != 0) {
            bk_ldb_iter_free(it);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
    }
    st = bk_ldb_iter_status(it, err);
    bk_ldb_iter_free(it);
    return st;
}

static bk_status history_locked(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_tx **txs_out,
                                size_t *n_out, bk_error *err)
{
    pos_list l = {0};
    bk_status st = rows_of(ix, K_FUND, sh, &l, err);
    if (st == BK_OK) st = rows_of(ix, K_SPEND, sh, &l, err);
    if (st == BK_OK) {
        if (l.n) qsort(l.v, l.n, sizeof *l.v, cmp_u64); /* qsort(NULL, 0): UBSan, fuzz_addrindex */
        size_t u = 0;
        for (size_t i = 0; i < l.n; i++)
            if (u == 0 || l.v[u - 1] != l.v[i]) l.v[u++] = l.v[i];
        l.n = u;
        if (limit && l.n > limit)
            st = bk_error_set(err, BK_ERR_LENGTH, 0, "history of %zu transactions is over the limit of %zu", l.n,
                              limit);
    }
    bk_addr_tx *txs = NULL;
    if (st == BK_OK && l.n && !(txs = malloc(l.n * sizeof *txs)))
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    for (size_t i = 0; st == BK_OK && i < l.n; i++) {
        txs[i].height = (int64_t)(l.v[i] >> 32);
        txs[i].pos = (uint32_t)l.v[i];
        st = txid_at(ix, (uint32_t)txs[i].height, txs[i].pos, txs[i].txid, err);
    }
    free(l.v);
    if (st != BK_OK) {
        free(txs);
        return st;
    }
    *txs_out = txs;
    *n_out = l.n;
    return BK_OK;
}

bk_status bk_addrindex_history(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_tx **txs_out,
                               size_t *n_out, bk_error *err)
{
    if (!ix || !sh || !txs_out || !n_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *txs_out = NULL;
    *n_out = 0;
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    pthread_rwlock_rdlock(&ix->lock);
    bk_status st = history_locked(ix, sh, limit, txs_out, n_out, err);
    pthread_rwlock_unlock(&ix->lock);
    return st;
}

void bk_addrindex_status_of(const bk_addr_tx *txs, size_t n, uint8_t status_out[32], int *has_out)
{
    *has_out = n > 0;
    if (!n) return;
    bk_sha256_ctx c;
    bk_sha256_init(&c);
    for (size_t i = 0; i < n; i++) {
        char line[64 + 24];
        bk_hex_encode_rev(line, txs[i].txid, 32);
        int m = snprintf(line + 64, 24, ":%lld:", (long long)txs[i].height);
        bk_sha256_update(&c, line, 64 + (size_t)m);
    }
    bk_sha256_final(&c, status_out);
}

bk_status bk_addrindex_status(bk_addrindex *ix, const uint8_t sh[32], size_t limit, uint8_t status_out[32],
                              int *has_out, bk_error *err)
{
    if (!status_out || !has_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_addr_tx *txs;
    size_t n;
    bk_status st = bk_addrindex_history(ix, sh, limit, &txs, &n, err);
    if (st != BK_OK) return st;
    bk_addrindex_status_of(txs, n, status_out, has_out);
    free(txs);
    return BK_OK;
}

typedef struct spent_set {
    uint8_t *v; /* txid || vout LE, 36 bytes each, sorted */
    size_t n, cap;
} spent_set;

static int cmp36(const void *a, const void *b) { return memcmp(a, b, 36); }

static bk_status utxos_locked(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_coin **coins_out,
                              size_t *n_out, bk_error *err)
{
    spent_set sp = {0};
    uint8_t p[33];
    p[0] = K_SPEND;
    memcpy(p + 1, sh, 32);
    bk_ldb_iter *it;
    bk_status st = bk_ldb_iter_new(ix->snap, p, 33, &it, err);
    if (st != BK_OK) return st;
    const uint8_t *k, *v;
    size_t kl, vl;
    while (bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        if (vl != 36) continue;
        if (sp.n == sp.cap) {
            size_t c = sp.cap ? 2 * sp.cap : 16;
            uint8_t *q = realloc(sp.v, 36 * c);
            if (!q) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                break;
            }
            sp.v = q;
            sp.cap = c;
        }
        memcpy(sp.v + 36 * sp.n++, v, 36);
    }
    if (st == BK_OK) st = bk_ldb_iter_status(it, err);
    bk_ldb_iter_free(it);
    if (sp.n) qsort(sp.v, sp.n, 36, cmp36);
    bk_addr_coin *coins = NULL;
    size_t n = 0, cap = 0;
    p[0] = K_FUND;
    if (st == BK_OK) st = bk_ldb_iter_new(ix->snap, p, 33, &it, err);
    else it = NULL;
    while (st == BK_OK && bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        if (kl != FUND_KEY_LEN || vl != 9 || (v[8] & FLAG_UNSPENDABLE)) continue;
        bk_addr_coin c;
        c.height = get_be32(k + 33);
        c.pos = get_be32(k + 37);
        c.vout = get_be32(k + 41);
        c.value = bk_load_le64(v);
        st = txid_at(ix, (uint32_t)c.height, c.pos, c.txid, err);
        if (st != BK_OK) break;
        uint8_t op[36];
        memcpy(op, c.txid, 32);
        bk_store_le32(op + 32, c.vout);
        if (sp.n && bsearch(op, sp.v, sp.n, 36, cmp36)) continue;
        if (limit && n >= limit) {
            st = bk_error_set(err, BK_ERR_LENGTH, 0, "more than %zu coins: over the limit", limit);
            break;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            bk_addr_coin *q = realloc(coins, nc * sizeof *q);
            if (!q) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                break;
            }
            coins = q;
            cap = nc;
        }
        coins[n++] = c;
    }
    if (it) {
        if (st == BK_OK) st = bk_ldb_iter_status(it, err);
        bk_ldb_iter_free(it);
    }
    free(sp.v);
    if (st != BK_OK) {
        free(coins);
        return st;
    }
    *coins_out = coins;
    *n_out = n;
    return BK_OK;
}

bk_status bk_addrindex_utxos(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_coin **coins_out,
                             size_t *n_out, bk_error *err)
{
    if (!ix || !sh || !coins_out || !n_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *coins_out = NULL;
    *n_out = 0;
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    pthread_rwlock_rdlock(&ix->lock);
    bk_status st = utxos_locked(ix, sh, limit, coins_out, n_out, err);
    pthread_rwlock_unlock(&ix->lock);
    return st;
}

bk_status bk_addrindex_balance(bk_addrindex *ix, const uint8_t sh[32], size_t limit, uint64_t *confirmed_out,
                               bk_error *err)
{
    if (!confirmed_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_addr_coin *c;
    size_t n;
    bk_status st = bk_addrindex_utxos(ix, sh, limit, &c, &n, err);
    if (st != BK_OK) return st;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += c[i].value;
    free(c);
    *confirmed_out = sum;
    return BK_OK;
}

bk_status bk_addrindex_tx_locate(bk_addrindex *ix, const uint8_t txid[32], int64_t *height_out, uint32_t *pos_out,
                                 bk_error *err)
{
    if (!ix || !txid || !height_out || !pos_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    uint8_t k[33] = {K_TXPOS};
    memcpy(k + 1, txid, 32);
    uint8_t *v;
    size_t n = 0;
    pthread_rwlock_rdlock(&ix->lock);
    bk_status st = get(ix, k, 33, &v, &n, err);
    pthread_rwlock_unlock(&ix->lock);
    char hex[65];
    if (st == BK_ERR_NOT_FOUND)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "transaction %s is not on the index's chain",
                            bk_hash_to_hex(hex, txid));
    if (st != BK_OK) return st;
    if (n != 8) st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged tx row", ix->dir);
    else {
        *height_out = get_be32(v);
        *pos_out = get_be32(v + 4);
    }
    bk_ldb_free(v);
    return st;
}

bk_status bk_addrindex_tx_raw(bk_addrindex *ix, const bk_blocksdir *dir, const uint8_t txid[32], uint8_t **raw_out,
                              size_t *len_out, int64_t *height_out, bk_error *err)
{
    if (!ix || !dir || !raw_out || !len_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *raw_out = NULL;
    int64_t h;
    uint32_t pos;
    bk_status st = bk_addrindex_tx_locate(ix, txid, &h, &pos, err);
    if (st != BK_OK) return st;
    uint8_t *row = NULL;
    pthread_rwlock_rdlock(&ix->lock);
    st = header_row(ix, h, &row, err);
    pthread_rwlock_unlock(&ix->lock);
    if (st != BK_OK) return st;
    uint32_t file = bk_load_le32(row + 112), size = bk_load_le32(row + 124);
    uint64_t off = bk_load_le64(row + 116);
    bk_ldb_free(row);
    bk_blockfile f;
    st = bk_blocksdir_open_file(dir, BK_FILE_BLK, file, &f, err);
    if (st != BK_OK) return st;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK) st = bk_blockfile_copy(&f, off, buf, size, err);
    bk_blockfile_close(&f);
    bk_block b;
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, ix->alloc);
    if (st == BK_OK) st = bk_block_decode(&dec, buf, size, &b, err);
    if (st == BK_OK) {
        uint8_t id[32];
        if (pos >= b.n_tx) st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: tx position %u past the block", ix->dir, pos);
        else {
            bk_tx_txid(&b.txs[pos], id);
            if (memcmp(id, txid, 32) != 0)
                st = bk_error_set(err, BK_ERR_MISMATCH, 0, "the block at height %lld no longer holds the transaction "
                                  "at position %u (the node's files changed: update the index)", (long long)h, pos);
        }
    }
    if (st == BK_OK) {
        const bk_tx *tx = &b.txs[pos];
        uint8_t *raw = malloc(tx->size);
        if (!raw) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        else {
            memcpy(raw, tx->data, tx->size);
            *raw_out = raw;
            *len_out = tx->size;
            if (height_out) *height_out = h;
        }
    }
    bk_block_decoder_free(&dec);
    free(buf);
    return st;
}

bk_status bk_addrindex_merkle(bk_addrindex *ix, int64_t height, uint32_t pos, uint8_t txid_out[32],
                              uint8_t branch_out[32][32], size_t *n_out, bk_error *err)
{
    if (!ix || !txid_out || !branch_out || !n_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    pthread_rwlock_rdlock(&ix->lock);
    uint8_t *row = NULL;
    bk_status st = header_row(ix, height, &row, err);
    uint32_t n_tx = st == BK_OK ? bk_load_le32(row + 128) : 0;
    bk_ldb_free(row);
    if (st == BK_OK && pos >= n_tx)
        st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no tx at position %u in the block at height %lld (%u txs)", pos,
                          (long long)height, n_tx);
    /* the leaves grow a txid row at a time: a header row's n_tx alone
     * never sizes an allocation (fuzz_addrindex: n_tx 2^32-1 asked for
     * 128 GiB before the first txid row was read) */
    size_t cap = 0;
    uint8_t *leaves = NULL;
    for (uint32_t first = 0; st == BK_OK && first < n_tx; first += 2000) {
        uint8_t k[9] = {K_TXIDS};
        put_be32(k + 1, (uint32_t)height);
        put_be32(k + 5, first);
        uint8_t *v;
        size_t vl = 0;
        st = get(ix, k, 9, &v, &vl, err);
        uint32_t cnt = n_tx - first < 2000 ? n_tx - first : 2000;
        if (st == BK_ERR_NOT_FOUND || (st == BK_OK && vl != 32 * (size_t)cnt))
            st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged txid rows at height %lld", ix->dir, (long long)height);
        if (st == BK_OK) {
            size_t want = (size_t)first + cnt + 1; /* + 1: room for the odd level's copy */
            uint8_t *q = realloc(leaves, 32 * want);
            if (!q) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            else {
                leaves = q;
                cap = want;
                memcpy(leaves + 32 * (size_t)first, v, vl);
            }
        }
        bk_ldb_free(v);
    }
    pthread_rwlock_unlock(&ix->lock);
    if (st == BK_OK) {
        memcpy(txid_out, leaves + 32 * (size_t)pos, 32);
        size_t depth = 0;
        st = bk_merkle_branch(leaves, n_tx, cap, pos, &branch_out[0][0], 32 * 32, &depth, NULL, NULL);
        if (st != BK_OK) st = bk_error_set(err, st, 0, "merkle branch: %s", bk_status_str(st));
        else *n_out = depth;
    }
    free(leaves);
    return st;
}
