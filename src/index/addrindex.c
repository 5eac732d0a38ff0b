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
#include <unistd.h>

#define MAGIC "blockkit-addrindex"
#define MAGIC_LEN 18
#define MAX_SCRIPT_SIZE 10000 /* Core: MAX_SCRIPT_SIZE, above it a coin is unspendable */
#define MAX_BLOCK_BYTES 4000000 /* Core: MAX_BLOCK_SERIALIZED_SIZE */

/* Keys: the one-letter rows "V" (version), "B" (blocks directory), "T"
 * (tip) and "W" (in-progress marker) sort below every per-block row, so
 * the tables a commit's sorted rows fill never overlap them and LevelDB
 * places those tables below level 0 without a compaction. */
enum { K_FUND = 'o', K_SPEND = 'p', K_TXPOS = 'i', K_TXOFF = 'x', K_HEADER = 'h' };
#define PREFIX_LEN 8          /* bytes of the scripthash or txid in a row key */
#define ROW_KEY_LEN (1 + PREFIX_LEN + 4 + 3)
#define MAX_POS 0xffffffu     /* a position is 24 bits; a block holds at most ~16,700 txs */
#define HDR_VAL_LEN (32 + 80 + 4 + 8 + 4 + 4)
/* Bulk groups (format 3): a bulk commit's rows of one kind, GROUP_ROWS to a
 * LevelDB value, under the kinds below; docs/index.md "Key layout" says why. */
enum { G_FUND = 'O', G_SPEND = 'P', G_TXPOS = 'I' };
#define GP 6                  /* bytes of the hash a grouped row keeps */
#define GKEY_LEN (1 + 4 + GP + 4 + 3)
#define GROUP_ROWS 128        /* rows a group is written with */
#define GROUP_MAX_ROWS 1024   /* a group decoding to more is damaged */
#define GROUP_MAX_BYTES (GP + 10 + 1 + 10 + (GROUP_MAX_ROWS - 1) * 20)
#define GROUP_BATCH 512       /* groups per LevelDB write while merging */
#define BULK_MIN_BLOCKS 144   /* a sync of this many blocks or more writes groups */
#define MAX_RUNS 64           /* sorted runs before a commit merges them */
#define MERGE_BUF_KEYS 16384  /* keys buffered per run while merging (256 KiB) */
#define INGEST_BATCH 65536    /* keys per LevelDB write while merging */
#define SIDE_BATCH_BYTES (8u << 20)
/* blk files a READ handle keeps open: BLK_SETS sets of BLK_WAYS, the set
 * by file number (an address's history reaches into as many files as it
 * has years; opening one costs more than reading a transaction) */
#define BLK_SETS 64
#define BLK_WAYS 4
#define BLK_SLOTS (BLK_SETS * BLK_WAYS)

typedef struct blk_slot {
    bk_blockfile f;
    uint32_t number;
    int open, stale, refs;
    uint64_t used;
} blk_slot;

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
    /* READ: the node's blocks, where every answer's transactions are read */
    const bk_blocksdir *blocks;
    bk_blocksdir own_blocks;
    int own_blocks_open;
    char blocks_msg[PATH_MAX + 128];
    pthread_mutex_t blk_mu;
    blk_slot slots[BLK_SLOTS];
    uint64_t blk_clock;
    /* READ: the views of recent scripthashes at the snapshot's tip */
    struct view_cache *cache;
    /* the bulk commits whose groups readers see (the "C" row): READ at the
     * snapshot's tip, WRITE as synced */
    uint32_t n_commits;
};

typedef struct view_cache view_cache;
static view_cache *cache_new(size_t bytes);
static void cache_clear(view_cache *c);
static void cache_free(view_cache *c);

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
    o->cache_bytes = BK_ADDRINDEX_CACHE_DEFAULT;
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

/* The "C" row (v NULL: none, no bulk commit yet). */
static bk_status commits_decode(const char *dir, const uint8_t *v, size_t n, uint32_t *out, bk_error *err)
{
    *out = 0;
    if (!v) return BK_OK;
    if (n != 4) return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a damaged bulk commit count row (%zu bytes)", dir, n);
    uint32_t c = bk_load_le32(v);
    /* a commit is a fill of --mem: a count past 2^31 is damage, and a
     * writer adding one more must not wrap it */
    if (c > INT32_MAX) return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a damaged bulk commit count row (%u)", dir, c);
    *out = c;
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
    char *v = leveldb_get(ix->db, ix->ropts, "V", 1, &n, &msg);
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
    leveldb_put(ix->db, ix->wopts, "V", 1, (const char *)vv, sizeof vv, &msg);
    if (msg) return ldb_fail(err, BK_ERR_IO, ix->dir, msg);
    return BK_OK;
}

/* A one-letter row of the snapshot: *v NULL (and BK_OK) when absent. */
static bk_status snap_row(bk_ldb *snap, const char *key, uint8_t **v, size_t *n, bk_error *err)
{
    *v = NULL;
    bk_status st = bk_ldb_get(snap, (const uint8_t *)key, 1, v, n, err);
    if (st != BK_ERR_NOT_FOUND) return st;
    *v = NULL;
    return BK_OK;
}

static bk_status snap_open(bk_addrindex *ix, bk_ldb **snap, int64_t *height, uint8_t hash[32], uint32_t *commits,
                           bk_error *err)
{
    /* Queries seek into any of the index's tables (1,120 MB of them for
     * 20 GB of blocks): all kept open, as LevelDB's own default, rather
     * than bk_ldb_open's 64 for one pass (a table opened again per seek:
     * transaction.get at 3,310 rps against 18,724, docs/electrum.md). */
    const bk_ldb_opts lo = {.max_open_files = 1000, .block_cache_bytes = 0};
    bk_status st = bk_ldb_open_opts(ix->dir, ix->opts.tmpdir, &lo, snap, err);
    if (st == BK_ERR_NOT_FOUND)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s: no address index there (blockkit index build makes one)",
                            ix->dir);
    if (st != BK_OK) return st;
    bk_ldb_fill_cache(*snap, 1);
    uint8_t *v = NULL;
    size_t n = 0;
    st = bk_ldb_get(*snap, (const uint8_t *)"V", 1, &v, &n, err);
    if (st == BK_ERR_NOT_FOUND)
        st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: a LevelDB that is not a blockkit address index", ix->dir);
    else if (st == BK_OK) st = version_check(ix->dir, v, n, &ix->opts.net, err);
    bk_ldb_free(v);
    v = NULL;
    if (st == BK_OK && (st = snap_row(*snap, "T", &v, &n, err)) == BK_OK) {
        st = tip_decode(ix->dir, v, n, height, hash, err);
        bk_ldb_free(v);
    }
    if (st == BK_OK && (st = snap_row(*snap, "C", &v, &n, err)) == BK_OK) {
        st = commits_decode(ix->dir, v, n, commits, err);
        bk_ldb_free(v);
    }
    if (st != BK_OK) {
        bk_ldb_close(*snap);
        *snap = NULL;
    }
    return st;
}

/* A READ handle's blocks: the caller's, else the directory the index was
 * built from (its "b" row). Without them the queries that read
 * transactions fail, saying why; the handle still serves tip and headers. */
static void blocks_attach(bk_addrindex *ix)
{
    if (ix->opts.blocks) {
        ix->blocks = ix->opts.blocks;
        return;
    }
    uint8_t *v = NULL;
    size_t n = 0;
    bk_error e;
    bk_status st = bk_ldb_get(ix->snap, (const uint8_t *)"B", 1, &v, &n, &e);
    if (st != BK_OK || n == 0 || n >= PATH_MAX) {
        snprintf(ix->blocks_msg, sizeof ix->blocks_msg,
                 "the index names no blocks directory: give the node's (--datadir or --blocksdir)");
        bk_ldb_free(v);
        return;
    }
    char path[PATH_MAX];
    memcpy(path, v, n);
    path[n] = 0;
    bk_ldb_free(v);
    if (bk_blocksdir_open(&ix->own_blocks, path, ix->opts.net, ix->alloc, &e) != BK_OK) {
        snprintf(ix->blocks_msg, sizeof ix->blocks_msg,
                 "the blocks directory the index was built from cannot be read (%.*s): give the node's "
                 "(--datadir or --blocksdir)", (int)PATH_MAX, e.msg);
        return;
    }
    ix->own_blocks_open = 1;
    ix->blocks = &ix->own_blocks;
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
    pthread_mutex_init(&ix->blk_mu, NULL);
    bk_status st = BK_OK;
    if (mode == BK_ADDRINDEX_READ && o.cache_bytes && !(ix->cache = cache_new(o.cache_bytes)))
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st != BK_OK) {
        /* out of memory, said */
    } else if (mode == BK_ADDRINDEX_WRITE && (unsigned)o.net >= (unsigned)BK_NET_COUNT_) {
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
            st = snap_open(ix, &ix->snap, &ix->tip_height, ix->tip_hash, &ix->n_commits, err);
        if (st == BK_OK) blocks_attach(ix);
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
    for (int i = 0; i < BLK_SLOTS; i++)
        if (ix->slots[i].open) bk_blockfile_close(&ix->slots[i].f);
    if (ix->own_blocks_open) bk_blocksdir_close(&ix->own_blocks);
    cache_free(ix->cache);
    pthread_mutex_destroy(&ix->blk_mu);
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
    uint32_t commits = 0;
    bk_status st = snap_open(ix, &snap, &h, hash, &commits, err);
    if (st != BK_OK) return st;
    pthread_rwlock_wrlock(&ix->lock);
    bk_ldb *old = ix->snap;
    int changed = h != ix->tip_height || memcmp(hash, ix->tip_hash, 32) != 0;
    ix->snap = snap;
    ix->n_commits = commits;
    ix->tip_height = h;
    memcpy(ix->tip_hash, hash, 32);
    /* the views were of the old tip (with the write lock held, no query is
     * computing one); a snapshot of the same tip holds the same rows, as
     * the writer moves the tip in the batch of each block's rows */
    if (changed) cache_clear(ix->cache);
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
    bk_status st = get(ix, (const uint8_t *)"T", 1, &v, &n, err);
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

static int read_ok(bk_addrindex *ix, bk_error *err);

bk_status bk_addrindex_first(bk_addrindex *ix, int64_t *height_out, bk_error *err)
{
    if (!ix || !height_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    *height_out = -1;
    pthread_rwlock_rdlock(&ix->lock);
    uint8_t pre[1] = {K_HEADER};
    bk_ldb_iter *it;
    bk_status st = ix->tip_height < 0 ? BK_OK : bk_ldb_iter_new(ix->snap, pre, 1, &it, err);
    if (st == BK_OK && ix->tip_height >= 0) {
        const uint8_t *k;
        size_t kl;
        if (bk_ldb_iter_next(it, &k, &kl, NULL, NULL)) {
            if (kl != 5) st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged header row (a key of %zu bytes)", ix->dir, kl);
            else if (get_be32(k + 1) > ix->tip_height)
                st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: no header row below the tip", ix->dir);
            else *height_out = get_be32(k + 1);
        } else {
            st = bk_ldb_iter_status(it, err);
            if (st == BK_OK) st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: no header row below the tip", ix->dir);
        }
        bk_ldb_iter_free(it);
    }
    pthread_rwlock_unlock(&ix->lock);
    return st;
}

/* ---- keys ------------------------------------------------------------------ */

static void put_be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

static uint32_t get_be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }

/* A row key: kind, the first PREFIX_LEN bytes of the scripthash (or txid),
 * height (BE32), position in the block (BE24). */
static void row_key(uint8_t k[ROW_KEY_LEN], int kind, const uint8_t *hash, uint32_t height, uint32_t pos)
{
    k[0] = (uint8_t)kind;
    memcpy(k + 1, hash, PREFIX_LEN);
    put_be32(k + 1 + PREFIX_LEN, height);
    put_be24(k + 5 + PREFIX_LEN, pos);
}

/* ---- bulk groups ------------------------------------------------------------
 * A bulk commit (a sync of BULK_MIN_BLOCKS blocks or more) writes its rows
 * not one key each but in groups: consecutive rows of one kind of the
 * commit's sorted stream, up to GROUP_ROWS to a value. A grouped row keeps
 * GP bytes of the hash (the "prefix", a big-endian integer), the height
 * and the position. The rule, in one place:
 *
 *   key    gkind (O, P, I), commit (BE32), the group's LAST row: prefix
 *          (GP bytes), height (BE32), pos (BE24)
 *   value  the first row's prefix (GP bytes), base height (uvarint: the
 *          lowest of the group), pbits (u8, at most 24: the bits a
 *          position takes), then each row as hp = (height - base) << pbits
 *          | pos: row 0 uvarint(hp); row i > 0 uvarint(prefix delta),
 *          then uvarint(hp) for a new prefix or uvarint(hp - previous hp)
 *          (> 0) for the same one
 *
 * Rows in a group are strictly increasing in (prefix, height, pos), and the
 * groups of one commit and kind are consecutive slices of one sorted stream,
 * so the only group of commit c that may hold row r is the first whose key
 * is at or after (gkind, c, r), and the groups holding prefix P start at
 * the first whose last row is at or after (P, 0, 0) and end with the first
 * whose last prefix is above P. A reader takes one such walk per commit
 * below the "C" count; groups of a commit at or above it (one a kill cut)
 * are never read, and the next sync removes them. Undo removes rows from
 * the groups (a group's key follows its last row; an empty one goes), so a
 * group only ever shrinks inside its slice. */
typedef struct grow {
    uint64_t prefix;           /* GP bytes, big-endian */
    uint32_t height, pos;
} grow;

static uint64_t prefix_get(const uint8_t *p)
{
    uint64_t x = 0;
    for (int i = 0; i < GP; i++) x = x << 8 | p[i];
    return x;
}

static void prefix_put(uint8_t *p, uint64_t x)
{
    for (int i = GP; i-- > 0; x >>= 8) p[i] = (uint8_t)x;
}

static int grow_cmp(const grow *a, const grow *b)
{
    if (a->prefix != b->prefix) return a->prefix < b->prefix ? -1 : 1;
    if (a->height != b->height) return a->height < b->height ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int gkind_of(int kind) { return kind == K_FUND ? G_FUND : kind == K_SPEND ? G_SPEND : G_TXPOS; }
static int kind_of_gkind(int g) { return g == G_FUND ? K_FUND : g == G_SPEND ? K_SPEND : g == G_TXPOS ? K_TXPOS : 0; }

/* The key of the group of commit c whose last row is r (or, to seek, the
 * first group of c at or after r). */
static void group_key(uint8_t k[GKEY_LEN], int gkind, uint32_t c, const grow *r)
{
    k[0] = (uint8_t)gkind;
    put_be32(k + 1, c);
    prefix_put(k + 5, r->prefix);
    put_be32(k + 5 + GP, r->height);
    put_be24(k + 9 + GP, r->pos);
}

static grow group_key_row(const uint8_t k[GKEY_LEN])
{
    grow r = {prefix_get(k + 5), get_be32(k + 5 + GP), get_be24(k + 9 + GP)};
    return r;
}

/* A 16-byte row key as a grouped row. */
static grow grow_of_key(const uint8_t k[ROW_KEY_LEN])
{
    grow r = {prefix_get(k + 1), get_be32(k + 1 + PREFIX_LEN), get_be24(k + 5 + PREFIX_LEN)};
    return r;
}

/* The sorted runs hold a row key with the hash's bytes past GP moved to
 * the end: kind, hash[0..GP), height, pos, hash[GP..PREFIX_LEN). Their
 * order is then the groups' (kind, GP-byte prefix, height, pos), so rows
 * two hashes share GP bytes of come in order and a repeat next to its
 * twin (in the stored layout a row of hash ..xx at height 9 would sort
 * before one of ..yy at height 5). */
static void run_of_key(uint8_t r[ROW_KEY_LEN], const uint8_t k[ROW_KEY_LEN])
{
    memcpy(r, k, 1 + GP);
    memcpy(r + 1 + GP, k + 1 + PREFIX_LEN, 7);
    memcpy(r + 8 + GP, k + 1 + GP, PREFIX_LEN - GP);
}

static void key_of_run(uint8_t k[ROW_KEY_LEN], const uint8_t r[ROW_KEY_LEN])
{
    memcpy(k, r, 1 + GP);
    memcpy(k + 1 + GP, r + 8 + GP, PREFIX_LEN - GP);
    memcpy(k + 1 + PREFIX_LEN, r + 1 + GP, 7);
}

static grow grow_of_run(const uint8_t r[ROW_KEY_LEN])
{
    grow g = {prefix_get(r + 1), get_be32(r + 1 + GP), get_be24(r + 5 + GP)};
    return g;
}

static size_t uv_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7) p[n++] = (uint8_t)(v | 0x80);
    p[n++] = (uint8_t)v;
    return n;
}

/* 0, or -1: cut, or over 64 bits. */
static inline int uv_get(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = 0;
    for (unsigned s = 0; s < 64 && p < end; s += 7) {
        uint8_t b = *p++;
        if (s == 63 && b > 1) return -1;
        x |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) {
            *pp = p;
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* rows[0..n) (strictly increasing, n >= 1) as a group value into out
 * (GROUP_MAX_BYTES); returns its length. */
static size_t group_encode(const grow *rows, size_t n, uint8_t *out)
{
    uint32_t base = rows[0].height, maxpos = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].height < base) base = rows[i].height;
        if (rows[i].pos > maxpos) maxpos = rows[i].pos;
    }
    unsigned pbits = 0;
    while (pbits < 24 && (maxpos >> pbits)) pbits++;
    size_t o = 0;
    prefix_put(out, rows[0].prefix);
    o += GP;
    o += uv_put(out + o, base);
    out[o++] = (uint8_t)pbits;
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t hp = (uint64_t)(rows[i].height - base) << pbits | rows[i].pos;
        if (i) {
            uint64_t d = rows[i].prefix - rows[i - 1].prefix;
            o += uv_put(out + o, d);
            o += uv_put(out + o, d ? hp : hp - prev);
        } else {
            o += uv_put(out + o, hp);
        }
        prev = hp;
    }
    return o;
}

/* The rows of the group (key k, value v) into rows (room for
 * GROUP_MAX_ROWS): -1 when the bytes are not a group this writer makes
 * (cut, overlong, out of order, rows past its key's last). */
static int group_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, grow *rows, size_t *n_out)
{
    if (kl != GKEY_LEN || vl < GP + 3) return -1;
    const uint8_t *p = v + GP, *end = v + vl;
    uint64_t base, x, d;
    if (uv_get(&p, end, &base) || base > UINT32_MAX || p == end) return -1;
    unsigned pbits = *p++;
    if (pbits > 24) return -1;
    const uint64_t pmax = GP == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * GP)) - 1;
    uint64_t pfx = prefix_get(v), hp = 0, hmax = ((uint64_t)(UINT32_MAX - base) << pbits) | (((uint64_t)1 << pbits) - 1);
    size_t n = 0;
    while (p < end) {
        if (n == GROUP_MAX_ROWS) return -1;
        if (n) {
            if (uv_get(&p, end, &d) || d > pmax - pfx || uv_get(&p, end, &x)) return -1;
            if (d) {
                pfx += d;
                hp = x;
            } else {
                if (!x || x > hmax - hp) return -1;
                hp += x;
            }
        } else if (uv_get(&p, end, &hp)) {
            return -1;
        }
        if (hp > hmax) return -1;
        grow r = {pfx, (uint32_t)(base + (hp >> pbits)), (uint32_t)(hp & (((uint64_t)1 << pbits) - 1))};
        if (n && grow_cmp(&rows[n - 1], &r) >= 0) return -1;
        rows[n++] = r;
    }
    grow last = group_key_row(k);
    if (!n || grow_cmp(&rows[n - 1], &last) != 0) return -1;
    *n_out = n;
    return 0;
}

static bk_status group_damaged(bk_error *err, const char *dir, const uint8_t *k, size_t kl)
{
    char hex[2 * GKEY_LEN + 1];
    size_t n = kl < GKEY_LEN ? kl : GKEY_LEN;
    bk_hex_encode(hex, k, n);
    hex[2 * n] = 0;
    return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a damaged row group (key %s%s)", dir, hex, kl > n ? "..." : "");
}

/* ---- the rows of a block -------------------------------------------------- */

/* A block's rows as records for the writer thread:
 *   'R' key (ROW_KEY_LEN)                 a row for the sorted runs (apply)
 *   'P' klen (u8) key vlen (u32 LE) value  a put (the header and offsets rows)
 *   'D' klen (u8) key                      a delete (undo) */
static void rec_row(bk_writer *w, char op, const uint8_t k[ROW_KEY_LEN])
{
    if (op == 'P') {
        bk_writer_put(w, "R", 1);
        bk_writer_put(w, k, ROW_KEY_LEN);
        return;
    }
    uint8_t h[2] = {'D', ROW_KEY_LEN};
    bk_writer_put(w, h, 2);
    bk_writer_put(w, k, ROW_KEY_LEN);
}

static void rec_kv(bk_writer *w, char op, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    uint8_t h[2] = {(uint8_t)op, (uint8_t)kl};
    bk_writer_put(w, h, 2);
    bk_writer_put(w, k, kl);
    if (op != 'P') return;
    uint8_t l[4];
    bk_store_le32(l, (uint32_t)vl);
    bk_writer_put(w, l, 4);
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
    uint8_t *scratch;          /* 32 * n_tx */
} block_rows_in;

static bk_status block_rows(const block_rows_in *in, bk_writer *w, bk_error *err)
{
    const bk_block *b = in->b;
    char op = in->op;
    uint32_t height = (uint32_t)in->height;
    if (b->n_tx > MAX_POS)
        return bk_error_set(err, BK_ERR_INVALID, 0, "block at height %u: %u transactions", height, b->n_tx);
    uint8_t hk[5] = {K_HEADER};
    put_be32(hk + 1, height);
    uint8_t hv[HDR_VAL_LEN];
    memcpy(hv, in->e->hash, 32);
    memcpy(hv + 32, b->data, 80);
    bk_store_le32(hv + 112, in->e->file);
    bk_store_le64(hv + 116, in->e->offset);
    bk_store_le32(hv + 124, in->e->size);
    bk_store_le32(hv + 128, b->n_tx);
    rec_kv(w, op, hk, 5, hv, sizeof hv);
    /* where each transaction starts in the block */
    for (uint32_t i = 0; i < b->n_tx; i++)
        bk_store_le32(in->scratch + 4 * (size_t)i, (uint32_t)(b->txs[i].data - b->data));
    hk[0] = K_TXOFF;
    rec_kv(w, op, hk, 5, in->scratch, 4 * (size_t)b->n_tx);
    bk_block_txids(b, in->scratch);
    bk_undo_iter ui;
    if (in->undo) bk_undo_iter_init(&ui, in->undo);
    uint8_t k[ROW_KEY_LEN], sh[32];
    for (uint32_t i = 0; i < b->n_tx; i++) {
        const bk_tx *tx = &b->txs[i];
        row_key(k, K_TXPOS, in->scratch + 32 * (size_t)i, height, i);
        rec_row(w, op, k);
        /* funding rows; a script paid twice by one tx is one row (the runs dedupe) */
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, tx);
        while (bk_txout_next(&oi, &o)) {
            bk_sha256(sh, o.script, o.script_len);
            row_key(k, K_FUND, sh, height, i);
            rec_row(w, op, k);
        }
        if (i == 0) continue;
        /* spending rows, keyed by the spent output's script (undo data) */
        uint32_t n_coins;
        if (!in->undo || !bk_undo_next_tx(&ui, &n_coins) || n_coins != tx->n_in)
            return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match the block at height %u", height);
        for (uint32_t c = 0; c < n_coins; c++) {
            bk_coin coin;
            if (!bk_undo_next_coin(&ui, &coin))
                return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match the block at height %u",
                                    height);
            bk_sha256(sh, bk_coin_script(&coin), coin.script_len);
            row_key(k, K_SPEND, sh, height, i);
            rec_row(w, op, k);
        }
    }
    return bk_writer_status(w) == BK_OK ? BK_OK : bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
}

/* Records into a LevelDB batch ('P' and 'D'; 'R' rows go to *rows when
 * given, else they are an internal error). */
typedef bk_status (*row_sink)(void *ctx, const uint8_t key[ROW_KEY_LEN], bk_error *err);

static bk_status records_apply(leveldb_writebatch_t *b, const uint8_t *d, size_t n, size_t *bytes, row_sink rows,
                               void *rows_ctx, bk_error *err)
{
    size_t p = 0;
    while (p < n) {
        char op = (char)d[p];
        if (op == 'R') {
            if (n - p < 1 + ROW_KEY_LEN || !rows)
                return bk_error_set(err, BK_ERR_INVALID, p, "internal: a cut row record");
            bk_status st = rows(rows_ctx, d + p + 1, err);
            if (st != BK_OK) return st;
            p += 1 + ROW_KEY_LEN;
            continue;
        }
        if (n - p < 2 || n - p < 2 + (size_t)d[p + 1])
            return bk_error_set(err, BK_ERR_INVALID, p, "internal: a cut row record");
        size_t kl = d[p + 1];
        const uint8_t *k = d + p + 2;
        p += 2 + kl;
        if (op == 'D') {
            leveldb_writebatch_delete(b, (const char *)k, kl);
            *bytes += kl + 8;
            continue;
        }
        if (op != 'P' || n - p < 4 || n - p - 4 < bk_load_le32(d + p))
            return bk_error_set(err, BK_ERR_INVALID, p, "internal: a cut row record");
        size_t vl = bk_load_le32(d + p);
        leveldb_writebatch_put(b, (const char *)k, kl, (const char *)d + p + 4, vl);
        *bytes += kl + vl + 8;
        p += 4 + vl;
    }
    return BK_OK;
}

/* ---- sorted runs ------------------------------------------------------------- */

/* Rows are gathered in memory (up to --mem), sorted, written to an
 * unlinked file in the tmpdir (a killed build leaves nothing there), and
 * at a commit merged in key order into LevelDB: its tables then hold
 * disjoint key ranges, and no row is rewritten by a compaction of the
 * blocks it came with. */
typedef struct run_file {
    int fd;
    uint64_t n;                /* keys */
} run_file;

typedef struct runs {
    uint8_t *mem;              /* ROW_KEY_LEN each */
    size_t n, cap;             /* keys */
    run_file files[MAX_RUNS];
    int n_files;
    const char *tmpdir;
    const bk_allocator *alloc;
    size_t mem_bytes;
} runs;

/* Row keys in byte order: two big-endian 64-bit words compared as numbers
 * (an inlined sort: qsort's memcmp through a pointer was a third of a
 * build's time). */
static inline uint64_t key_word(const uint8_t *k, int w)
{
    uint64_t x;
    memcpy(&x, k + 8 * w, 8);
    return __builtin_bswap64(x);
}

static inline int key_less(const uint8_t *a, const uint8_t *b)
{
    uint64_t x = key_word(a, 0), y = key_word(b, 0);
    return x != y ? x < y : key_word(a, 1) < key_word(b, 1);
}

static inline void key_swap(uint8_t *a, uint8_t *b)
{
    uint8_t t[ROW_KEY_LEN];
    memcpy(t, a, ROW_KEY_LEN);
    memcpy(a, b, ROW_KEY_LEN);
    memcpy(b, t, ROW_KEY_LEN);
}

/* Quicksort (median of three, the smaller side first so the stack stays
 * logarithmic), insertion sort below 24 keys; a run of equal keys splits
 * evenly, so repeats never make it quadratic. */
static void keys_qsort(uint8_t *k, size_t n)
{
    struct { uint8_t *k; size_t n; } stack[64];
    int sp = 0;
    for (;;) {
        while (n >= 24 && sp < 64) {
            uint8_t *lo = k, *mid = k + ROW_KEY_LEN * (n / 2), *hi = k + ROW_KEY_LEN * (n - 1);
            if (key_less(mid, lo)) key_swap(mid, lo);
            if (key_less(hi, mid)) {
                key_swap(hi, mid);
                if (key_less(mid, lo)) key_swap(mid, lo);
            }
            uint8_t pivot[ROW_KEY_LEN];
            memcpy(pivot, mid, ROW_KEY_LEN);
            size_t i = 0, j = n - 1;
            for (;;) {
                while (key_less(k + ROW_KEY_LEN * i, pivot)) i++;
                while (key_less(pivot, k + ROW_KEY_LEN * j)) j--;
                if (i >= j) break;
                key_swap(k + ROW_KEY_LEN * i, k + ROW_KEY_LEN * j);
                i++;
                j--;
            }
            /* [0, j] <= pivot <= [j + 1, n) */
            size_t left = j + 1, right = n - left;
            uint8_t *rk = k + ROW_KEY_LEN * left;
            if (left < right) {
                stack[sp].k = rk;
                stack[sp++].n = right;
                n = left;
            } else {
                stack[sp].k = k;
                stack[sp++].n = left;
                k = rk;
                n = right;
            }
        }
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && key_less(k + ROW_KEY_LEN * j, k + ROW_KEY_LEN * (j - 1)); j--)
                key_swap(k + ROW_KEY_LEN * j, k + ROW_KEY_LEN * (j - 1));
        if (!sp) return;
        sp--;
        k = stack[sp].k;
        n = stack[sp].n;
    }
}

/* Buckets of the first two key bytes (kind, first hash byte): rows are
 * hashes, so the buckets are even, and each one sorts in cache. */
#define N_BUCKETS (3 * 256)

static inline unsigned key_bucket(const uint8_t *k)
{
    return (unsigned)(k[0] == K_TXPOS ? 0 : k[0] == K_FUND ? 1 : 2) * 256 + k[1];
}

/* Group the keys by bucket in place (one pass of American flag sort):
 * bucket b is start[b] .. start[b + 1]. */
static void keys_partition(uint8_t *k, size_t n, size_t start[N_BUCKETS + 1])
{
    size_t next[N_BUCKETS];
    memset(start, 0, (N_BUCKETS + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++) start[key_bucket(k + ROW_KEY_LEN * i) + 1]++;
    for (unsigned b = 0; b < N_BUCKETS; b++) start[b + 1] += start[b];
    memcpy(next, start, sizeof next);
    for (unsigned b = 0; b < N_BUCKETS; b++)
        while (next[b] < start[b + 1]) {
            uint8_t *p = k + ROW_KEY_LEN * next[b];
            unsigned d = key_bucket(p);
            if (d == b) next[b]++;
            else key_swap(p, k + ROW_KEY_LEN * next[d]++);
        }
}

/* Sort one bucket (its keys share their first two bytes): grouped in place
 * by the third (the next hash byte: even, as the buckets are), then each
 * group of a few keys sorted (a reused script's rows, one group, go to the
 * quicksort whole). */
static void bucket_sort(uint8_t *k, size_t n)
{
    if (n < 64) {
        keys_qsort(k, n);
        return;
    }
    size_t start[257] = {0}, next[256];
    for (size_t i = 0; i < n; i++) start[k[ROW_KEY_LEN * i + 2] + 1]++;
    for (unsigned b = 0; b < 256; b++) start[b + 1] += start[b];
    memcpy(next, start, sizeof next);
    for (unsigned b = 0; b < 256; b++)
        while (next[b] < start[b + 1]) {
            uint8_t *p = k + ROW_KEY_LEN * next[b];
            unsigned d = p[2];
            if (d == b) next[b]++;
            else key_swap(p, k + ROW_KEY_LEN * next[d]++);
        }
    for (unsigned b = 0; b < 256; b++) keys_qsort(k + ROW_KEY_LEN * start[b], start[b + 1] - start[b]);
}

/* Drop repeats of sorted keys; returns the number left. */
static size_t keys_unique(uint8_t *k, size_t n)
{
    if (n < 2) return n;
    size_t u = 1;
    for (size_t i = 1; i < n; i++)
        if (memcmp(k + ROW_KEY_LEN * (u - 1), k + ROW_KEY_LEN * i, ROW_KEY_LEN) != 0) {
            if (u != i) memcpy(k + ROW_KEY_LEN * u, k + ROW_KEY_LEN * i, ROW_KEY_LEN);
            u++;
        }
    return u;
}

/* Sort and drop repeats; returns the number of keys left. */
static size_t keys_sort(uint8_t *k, size_t n)
{
    size_t start[N_BUCKETS + 1];
    keys_partition(k, n, start);
    for (unsigned b = 0; b < N_BUCKETS; b++)
        bucket_sort(k + ROW_KEY_LEN * start[b], start[b + 1] - start[b]);
    return keys_unique(k, n);
}

/* The keys in memory at a commit, in two halves, each partitioned and then
 * sorted bucket by bucket on a thread of its own (the block workers are
 * idle by then) while the merge takes the buckets already sorted: the
 * halves are two sources of the merge, as the runs are. */
#define MEM_SORTERS 2

typedef struct mem_sorter {
    uint8_t *k;
    size_t n;
    size_t start[N_BUCKETS + 1];
    unsigned done;             /* buckets sorted */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    int threaded;
} mem_sorter;

static void *sorter_main(void *arg)
{
    mem_sorter *m = arg;
    keys_partition(m->k, m->n, m->start);
    for (unsigned b = 0; b < N_BUCKETS; b++) {
        bucket_sort(m->k + ROW_KEY_LEN * m->start[b], m->start[b + 1] - m->start[b]);
        pthread_mutex_lock(&m->mu);
        m->done = b + 1;
        pthread_cond_signal(&m->cv);
        pthread_mutex_unlock(&m->mu);
    }
    return NULL;
}

#define SORTER_MIN_KEYS 4096  /* below it the keys are sorted first, on the merge's thread */

static void sorter_start(mem_sorter *m, uint8_t *k, size_t n)
{
    m->k = k;
    m->n = n;
    m->done = 0;
    m->threaded = 0;
    if (n >= SORTER_MIN_KEYS) {
        pthread_mutex_init(&m->mu, NULL);
        pthread_cond_init(&m->cv, NULL);
        if (pthread_create(&m->th, NULL, sorter_main, m) == 0) {
            m->threaded = 1;
            return;
        }
        pthread_cond_destroy(&m->cv);
        pthread_mutex_destroy(&m->mu);
    }
    keys_partition(k, n, m->start);
    for (unsigned b = 0; b < N_BUCKETS; b++)
        bucket_sort(k + ROW_KEY_LEN * m->start[b], m->start[b + 1] - m->start[b]);
    m->done = N_BUCKETS;
}

/* Wait until bucket b is sorted. */
static void sorter_wait(mem_sorter *m, unsigned b)
{
    if (!m->threaded) return;
    pthread_mutex_lock(&m->mu);
    while (m->done <= b) pthread_cond_wait(&m->cv, &m->mu);
    pthread_mutex_unlock(&m->mu);
}

static void sorter_join(mem_sorter *m)
{
    if (!m->threaded) return;
    pthread_join(m->th, NULL);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    m->threaded = 0;
}

static bk_status runs_spill(runs *R, bk_error *err)
{
    if (!R->n) return BK_OK;
    if (R->n_files == MAX_RUNS) return bk_error_set(err, BK_ERR_INVALID, 0, "internal: too many runs");
    R->n = keys_sort(R->mem, R->n);
    const char *t = R->tmpdir && *R->tmpdir ? R->tmpdir : getenv("TMPDIR");
    if (!t || !*t) t = "/tmp";
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/blockkit-index-run-XXXXXX", t) >= (int)sizeof path)
        return bk_error_set(err, BK_ERR_ARG, 0, "%s: tmpdir path too long", t);
    int fd = mkstemp(path);
    if (fd < 0) return bk_error_set(err, BK_ERR_IO, 0, "%s: cannot make a run file: %s", t, strerror(errno));
    unlink(path);
    size_t len = R->n * ROW_KEY_LEN, done = 0;
    while (done < len) {
        ssize_t w = write(fd, R->mem + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            close(fd);
            return bk_error_set(err, BK_ERR_IO, 0, "%s: writing a sorted run of %zu bytes: %s", t, len,
                                strerror(e));
        }
        done += (size_t)w;
    }
    R->files[R->n_files].fd = fd;
    R->files[R->n_files].n = R->n;
    R->n_files++;
    R->n = 0;
    return BK_OK;
}

static bk_status runs_add(void *ctx, const uint8_t key[ROW_KEY_LEN], bk_error *err)
{
    runs *R = ctx;
    if (R->n == R->cap) {
        size_t want = R->cap ? 2 * R->cap : 4096, max = R->mem_bytes / ROW_KEY_LEN;
        if (max < 64) max = 64;
        if (want > max) want = max;
        if (R->cap < want) {
            size_t cap = R->cap * ROW_KEY_LEN;
            if (bk_grow(R->alloc, &R->mem, &cap, want * ROW_KEY_LEN) != 0)
                return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            R->cap = cap / ROW_KEY_LEN;
        } else {
            bk_status st = runs_spill(R, err);
            if (st != BK_OK) return st;
        }
    }
    run_of_key(R->mem + ROW_KEY_LEN * R->n++, key);
    return BK_OK;
}

static void runs_clear(runs *R)
{
    for (int i = 0; i < R->n_files; i++) close(R->files[i].fd);
    R->n_files = 0;
    R->n = 0;
}

static void runs_free(runs *R)
{
    runs_clear(R);
    bk_free(R->alloc, R->mem, R->cap * ROW_KEY_LEN);
    R->mem = NULL;
    R->cap = 0;
}

/* One source of the merge: a run file read through a buffer, or the
 * sorted keys still in memory. */
typedef struct merge_src {
    int fd;                    /* -1: memory, read bucket by bucket */
    mem_sorter *mem;
    unsigned bucket;           /* memory: the next bucket */
    uint64_t off, left;        /* file: next byte offset, keys not yet buffered */
    const uint8_t *buf;
    uint8_t *own;
    size_t have, pos;          /* keys in buf, next one */
} merge_src;

static bk_status src_fill(merge_src *s, const char *tmpdir, bk_error *err)
{
    s->pos = 0;
    s->have = 0;
    if (s->fd < 0) {
        mem_sorter *m = s->mem;
        while (!s->have && s->bucket < N_BUCKETS) {
            unsigned b = s->bucket++;
            sorter_wait(m, b);
            s->buf = m->k + ROW_KEY_LEN * m->start[b];
            s->have = m->start[b + 1] - m->start[b];
        }
        return BK_OK;
    }
    if (!s->left) return BK_OK;
    size_t want = s->left < MERGE_BUF_KEYS ? (size_t)s->left : MERGE_BUF_KEYS, len = want * ROW_KEY_LEN, got = 0;
    while (got < len) {
        ssize_t r = pread(s->fd, s->own + got, len - got, (off_t)(s->off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return bk_error_set(err, BK_ERR_IO, 0, "%s: reading a sorted run back: %s", tmpdir ? tmpdir : "tmpdir",
                                r < 0 ? strerror(errno) : "it is shorter than written");
        got += (size_t)r;
    }
    s->off += len;
    s->left -= want;
    s->have = want;
    s->buf = s->own;
    return BK_OK;
}

static int src_less(const merge_src *a, const merge_src *b)
{
    return memcmp(a->buf + ROW_KEY_LEN * a->pos, b->buf + ROW_KEY_LEN * b->pos, ROW_KEY_LEN) < 0;
}

static void heap_down(merge_src **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && src_less(h[l], h[m])) m = l;
        if (l + 1 < n && src_less(h[l + 1], h[m])) m = l + 1;
        if (m == i) return;
        merge_src *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Where a commit's merged stream goes: one key a row, or (bulk) groups of
 * the commit's number. */
typedef struct ingest {
    bk_addrindex *ix;
    leveldb_writebatch_t *b;
    size_t in_batch;           /* rows or groups */
    int bulk;
    uint32_t commit;
    int gkind;                 /* of the open group */
    grow rows[GROUP_ROWS];
    size_t n;
    grow last;                 /* the last row taken (bulk) */
    int have_last;
    uint8_t buf[GROUP_MAX_BYTES];
} ingest;

static bk_status ingest_write(ingest *g, bk_error *err)
{
    char *msg = NULL;
    leveldb_write(g->ix->db, g->ix->wopts, g->b, &msg);
    leveldb_writebatch_clear(g->b);
    g->in_batch = 0;
    return msg ? ldb_fail(err, BK_ERR_IO, g->ix->dir, msg) : BK_OK;
}

static bk_status group_flush(ingest *g, bk_error *err)
{
    if (!g->n) return BK_OK;
    uint8_t k[GKEY_LEN];
    group_key(k, g->gkind, g->commit, &g->rows[g->n - 1]);
    size_t vl = group_encode(g->rows, g->n, g->buf);
    leveldb_writebatch_put(g->b, (const char *)k, GKEY_LEN, (const char *)g->buf, vl);
    g->n = 0;
    return ++g->in_batch >= GROUP_BATCH ? ingest_write(g, err) : BK_OK;
}

/* The next key of the sorted, deduplicated stream (run layout). */
static bk_status ingest_put(ingest *g, const uint8_t k[ROW_KEY_LEN], bk_error *err)
{
    if (!g->bulk) {
        uint8_t key[ROW_KEY_LEN];
        key_of_run(key, k);
        leveldb_writebatch_put(g->b, (const char *)key, ROW_KEY_LEN, "", 0);
        return ++g->in_batch >= INGEST_BATCH ? ingest_write(g, err) : BK_OK;
    }
    int gk = gkind_of(k[0]);
    grow r = grow_of_run(k);
    if (g->have_last && gk == g->gkind) {
        int c = grow_cmp(&r, &g->last);
        /* two rows the GP-byte prefix makes one (their hashes differ after it) */
        if (c == 0) return BK_OK;
        if (c < 0) return bk_error_set(err, BK_ERR_INVALID, 0, "internal: the merged rows are out of order");
    }
    bk_status st = BK_OK;
    if (g->n && (gk != g->gkind || g->n == GROUP_ROWS)) st = group_flush(g, err);
    g->gkind = gk;
    g->rows[g->n++] = r;
    g->last = r;
    g->have_last = 1;
    return st;
}

static bk_status ingest_end(ingest *g, bk_error *err)
{
    bk_status st = g->bulk ? group_flush(g, err) : BK_OK;
    if (st == BK_OK && g->in_batch) st = ingest_write(g, err);
    return st;
}

/* Merge the runs and the keys in memory into LevelDB in key order; repeats
 * (a row of two runs) once. bulk: as groups of commit number commit. */
static bk_status runs_ingest(bk_addrindex *ix, runs *R, int bulk, uint32_t commit, bk_error *err)
{
    mem_sorter sorter[MEM_SORTERS];
    for (size_t i = 0, at = 0; i < MEM_SORTERS; i++) {
        size_t n = (R->n - at) / (MEM_SORTERS - i);
        sorter_start(&sorter[i], R->mem + ROW_KEY_LEN * at, n);
        at += n;
    }
    int ns = R->n_files + MEM_SORTERS;
    merge_src *src = calloc((size_t)ns, sizeof *src);
    merge_src **heap = calloc((size_t)ns, sizeof *heap);
    ingest *g = calloc(1, sizeof *g);
    bk_status st = src && heap && g ? BK_OK : bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    size_t nh = 0;
    for (int i = 0; st == BK_OK && i < ns; i++) {
        merge_src *s = &src[i];
        if (i >= R->n_files) {
            s->fd = -1;
            s->mem = &sorter[i - R->n_files];
            st = src_fill(s, R->tmpdir, err);
        } else {
            s->fd = R->files[i].fd;
            s->left = R->files[i].n;
            if (!(s->own = malloc(MERGE_BUF_KEYS * ROW_KEY_LEN))) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                break;
            }
            st = src_fill(s, R->tmpdir, err);
        }
        if (st == BK_OK && s->have) heap[nh++] = s;
    }
    for (size_t i = nh; i-- > 0;) heap_down(heap, nh, i);
    if (g) {
        g->ix = ix;
        g->b = leveldb_writebatch_create();
        g->bulk = bulk;
        g->commit = commit;
    }
    uint8_t last[ROW_KEY_LEN];
    int have_last = 0;
    while (st == BK_OK && nh) {
        merge_src *s = heap[0];
        const uint8_t *k = s->buf + ROW_KEY_LEN * s->pos;
        if (!have_last || memcmp(last, k, ROW_KEY_LEN) != 0) {
            memcpy(last, k, ROW_KEY_LEN);
            have_last = 1;
            st = ingest_put(g, k, err);
        }
        if (++s->pos == s->have && st == BK_OK) st = src_fill(s, R->tmpdir, err);
        if (!s->have) heap[0] = heap[--nh];
        if (nh) heap_down(heap, nh, 0);
    }
    if (st == BK_OK) st = ingest_end(g, err);
    for (int i = 0; i < MEM_SORTERS; i++) sorter_join(&sorter[i]);
    if (g) leveldb_writebatch_destroy(g->b);
    free(g);
    for (int i = 0; src && i < ns; i++) free(src[i].own);
    free(src);
    free(heap);
    return st;
}

/* ---- sync ------------------------------------------------------------------ */

typedef struct sync_worker {
    uint8_t *scratch;
    size_t cap;
} sync_worker;

typedef struct sync_ctx {
    bk_addrindex *ix;
    const bk_chain *chain;
    sync_worker *w;
    runs rows;
    leveldb_writebatch_t *side; /* header and offsets rows */
    size_t side_bytes;
    int64_t first_height;      /* of job 0 */
    int64_t last_height;       /* the last block consumed */
    const uint8_t *last_hash;
    int64_t committed;         /* the tip written */
    int64_t applied, tip;
    int bulk;                  /* each commit writes groups (BULK_MIN_BLOCKS) */
} sync_ctx;

static bk_status worker_scratch(sync_worker *W, const bk_allocator *a, uint32_t n_tx, bk_error *err)
{
    if (bk_grow(a, &W->scratch, &W->cap, 32 * (size_t)n_tx) != 0)
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
    bk_status st = worker_scratch(W, S->ix->alloc, eb->block->n_tx, err);
    if (st != BK_OK) return st;
    block_rows_in in = {eb->block, eb->height > 0 ? eb->undo : NULL, eb->entry, eb->height, 'P', W->scratch};
    return block_rows(&in, out, err);
}

static bk_status write_batch(bk_addrindex *ix, leveldb_writebatch_t *b, bk_error *err)
{
    char *msg = NULL;
    leveldb_write(ix->db, ix->wopts, b, &msg);
    leveldb_writebatch_clear(b);
    return msg ? ldb_fail(err, BK_ERR_IO, ix->dir, msg) : BK_OK;
}

/* The in-progress row "W": the last block whose rows may be in the index
 * above its tip (a commit cut by a kill). The next sync removes the rows
 * of such blocks that left the best chain before it applies any. */
static void marker_put(leveldb_writebatch_t *b, int64_t height, const uint8_t hash[32])
{
    uint8_t v[36];
    bk_store_le32(v, (uint32_t)height);
    memcpy(v + 4, hash, 32);
    leveldb_writebatch_put(b, "W", 1, (const char *)v, sizeof v);
}

/* The "C" row: the number of bulk commits whose groups readers see. */
static void commits_put(leveldb_writebatch_t *b, uint32_t n)
{
    uint8_t v[4];
    bk_store_le32(v, n);
    leveldb_writebatch_put(b, "C", 1, (const char *)v, 4);
}

static void tip_put(leveldb_writebatch_t *b, int64_t height, const uint8_t hash[32])
{
    uint8_t t[36];
    bk_store_le32(t, (uint32_t)(int32_t)height);
    memcpy(t + 4, hash, 32);
    if (height < 0) leveldb_writebatch_delete(b, "T", 1);
    else leveldb_writebatch_put(b, "T", 1, (const char *)t, 36);
}

/* Everything consumed becomes the index: the side rows (with the marker),
 * the merged runs, then the tip (and the marker's removal) in one batch. */
static bk_status sync_commit(sync_ctx *S, bk_error *err)
{
    if (S->last_height <= S->committed || !S->last_hash) return BK_OK;
    bk_addrindex *ix = S->ix;
    leveldb_writebatch_t *m = leveldb_writebatch_create();
    marker_put(m, S->last_height, S->last_hash);
    bk_status st = write_batch(ix, m, err);
    leveldb_writebatch_destroy(m);
    if (st == BK_OK) st = runs_ingest(ix, &S->rows, S->bulk, ix->n_commits, err);
    runs_clear(&S->rows);
    if (st != BK_OK) return st;
    /* the side rows after the runs: the tables a commit's sorted rows
     * fill then hold disjoint ranges, and LevelDB places them below
     * level 0 without a compaction */
    tip_put(S->side, S->last_height, S->last_hash);
    if (S->bulk) commits_put(S->side, ix->n_commits + 1);
    leveldb_writebatch_delete(S->side, "W", 1);
    st = write_batch(ix, S->side, err);
    S->side_bytes = 0;
    if (st != BK_OK) return st;
    if (S->bulk) ix->n_commits++;
    S->committed = S->last_height;
    if (ix->opts.progress) ix->opts.progress(ix->opts.progress_ctx, S->last_height, S->tip);
    return BK_OK;
}

static bk_status sync_consume(void *ctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    sync_ctx *S = ctx;
    bk_status st = records_apply(S->side, data, len, &S->side_bytes, runs_add, &S->rows, err);
    if (st != BK_OK) return st;
    S->last_height = S->first_height + (int64_t)job;
    S->last_hash = S->chain->entries[S->chain->active[S->last_height - S->chain->base_height]].hash;
    S->applied++;
    if (S->side_bytes >= SIDE_BATCH_BYTES) {
        marker_put(S->side, S->last_height, S->last_hash);
        st = write_batch(S->ix, S->side, err);
        S->side_bytes = 0;
        if (st != BK_OK) return st;
    }
    if (S->rows.n_files >= MAX_RUNS - 1) return sync_commit(S, err);
    if (S->ix->opts.progress) S->ix->opts.progress(S->ix->opts.progress_ctx, S->last_height, S->tip);
    return BK_OK;
}

/* The chain's active entry at height, or NULL. */
static const bk_chain_entry *active_at(const bk_chain *c, int64_t h)
{
    if (c->tip == BK_CHAIN_NONE || h < c->base_height || (size_t)(h - c->base_height) >= c->n_active) return NULL;
    return &c->entries[c->active[h - c->base_height]];
}

/* Destroy a writer's iterator: st, or its error when st is BK_OK. */
static bk_status iter_done(bk_addrindex *ix, leveldb_iterator_t *it, bk_status st, bk_error *err)
{
    char *msg = NULL;
    leveldb_iter_get_error(it, &msg);
    leveldb_iter_destroy(it);
    if (!msg) return st;
    if (st == BK_OK) return ldb_fail(err, BK_ERR_IO, ix->dir, msg);
    leveldb_free(msg);
    return st;
}

/* Remove rows (sorted, deduplicated; their kinds' gkinds in gk) from the
 * groups of commit c that hold them, into batch: each group read once,
 * written again without them under the key of its new last row (deleted
 * when empty). */
static bk_status groups_unrow(bk_addrindex *ix, uint32_t c, const grow *rows, const uint8_t *gk, size_t n,
                              leveldb_writebatch_t *batch, grow *cur, uint8_t *buf, bk_error *err)
{
    leveldb_iterator_t *it = leveldb_create_iterator(ix->db, ix->ropts);
    uint8_t key[GKEY_LEN], ckey[GKEY_LEN];
    size_t nc = 0;
    int have = 0, dirty = 0;
    grow clast = {0};
    bk_status st = BK_OK;
    for (size_t i = 0; st == BK_OK && i <= n; i++) {
        if (have && (i == n || gk[i] != ckey[0] || grow_cmp(&rows[i], &clast) > 0)) {
            if (dirty) {
                leveldb_writebatch_delete(batch, (const char *)ckey, GKEY_LEN);
                if (nc) {
                    group_key(key, ckey[0], c, &cur[nc - 1]);
                    size_t vl = group_encode(cur, nc, buf);
                    leveldb_writebatch_put(batch, (const char *)key, GKEY_LEN, (const char *)buf, vl);
                }
            }
            have = dirty = 0;
        }
        if (i == n) break;
        if (!have) {
            group_key(key, gk[i], c, &rows[i]);
            leveldb_iter_seek(it, (const char *)key, GKEY_LEN);
            if (!leveldb_iter_valid(it)) continue;
            size_t kl, vl;
            const uint8_t *k = (const uint8_t *)leveldb_iter_key(it, &kl);
            const uint8_t *v = (const uint8_t *)leveldb_iter_value(it, &vl);
            if (kl < 5 || memcmp(k, key, 5) != 0) continue; /* no group of c at or after it */
            if (group_decode(k, kl, v, vl, cur, &nc) != 0) {
                st = group_damaged(err, ix->dir, k, kl);
                break;
            }
            memcpy(ckey, k, GKEY_LEN);
            clast = group_key_row(ckey);
            have = 1;
        }
        /* rows[i] <= the group's last: remove it when the group holds it */
        size_t lo = 0, hi = nc;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (grow_cmp(&cur[mid], &rows[i]) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < nc && grow_cmp(&cur[lo], &rows[i]) == 0) {
            memmove(cur + lo, cur + lo + 1, (nc - lo - 1) * sizeof *cur);
            nc--;
            dirty = 1;
        }
    }
    return iter_done(ix, it, st, err);
}

/* The first bulk commit at or above c that has a group of any kind, or
 * UINT32_MAX: the writer's walk over the commits seeks once per commit the
 * index holds, never once per commit its count names. */
static bk_status commit_from(bk_addrindex *ix, uint32_t c, uint32_t *out, bk_error *err)
{
    static const uint8_t kinds[3] = {G_TXPOS, G_FUND, G_SPEND};
    *out = UINT32_MAX;
    leveldb_iterator_t *it = leveldb_create_iterator(ix->db, ix->ropts);
    for (int i = 0; i < 3; i++) {
        uint8_t from[5] = {kinds[i]};
        put_be32(from + 1, c);
        leveldb_iter_seek(it, (const char *)from, 5);
        if (!leveldb_iter_valid(it)) continue;
        size_t kl;
        const uint8_t *k = (const uint8_t *)leveldb_iter_key(it, &kl);
        if (kl >= 5 && k[0] == kinds[i] && get_be32(k + 1) < *out) *out = get_be32(k + 1);
    }
    return iter_done(ix, it, BK_OK, err);
}

typedef struct krow {
    grow r;
    uint8_t gk;
} krow;

static int krow_cmp(const void *a, const void *b)
{
    const krow *x = a, *y = b;
    if (x->gk != y->gk) return x->gk < y->gk ? -1 : 1;
    return grow_cmp(&x->r, &y->r);
}

/* The rows of a block's delete records ('D' of a 16-byte row key) removed
 * from every bulk commit's groups, into batch. */
static bk_status block_ungroup(bk_addrindex *ix, const uint8_t *d, size_t len, leveldb_writebatch_t *batch,
                               bk_error *err)
{
    if (!ix->n_commits) return BK_OK;
    size_t n = 0, cap = 0;
    for (size_t p = 0; p + 2 <= len; p += 2 + d[p + 1] + (d[p] == 'P' ? 4 + bk_load_le32(d + p + 2 + d[p + 1]) : 0))
        if (d[p] == 'D' && d[p + 1] == ROW_KEY_LEN) cap++;
    krow *k = malloc((cap ? cap : 1) * sizeof *k);
    grow *rows = malloc((cap ? cap : 1) * sizeof *rows);
    uint8_t *gk = malloc(cap ? cap : 1);
    grow *cur = malloc(GROUP_MAX_ROWS * sizeof *cur);
    uint8_t *buf = malloc(GROUP_MAX_BYTES);
    bk_status st = k && rows && gk && cur && buf ? BK_OK : bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    for (size_t p = 0; st == BK_OK && p + 2 <= len;
         p += 2 + d[p + 1] + (d[p] == 'P' ? 4 + bk_load_le32(d + p + 2 + d[p + 1]) : 0)) {
        if (d[p] != 'D' || d[p + 1] != ROW_KEY_LEN) continue;
        k[n].r = grow_of_key(d + p + 2);
        k[n++].gk = (uint8_t)gkind_of(d[p + 2]);
    }
    if (st == BK_OK && n > 1) qsort(k, n, sizeof *k, krow_cmp);
    size_t u = 0;
    for (size_t i = 0; st == BK_OK && i < n; i++)
        if (!u || krow_cmp(&k[u - 1], &k[i]) != 0) k[u++] = k[i];
    for (size_t i = 0; st == BK_OK && i < u; i++) {
        rows[i] = k[i].r;
        gk[i] = k[i].gk;
    }
    uint32_t c = 0;
    if (st == BK_OK) st = commit_from(ix, 0, &c, err);
    while (st == BK_OK && c < ix->n_commits) {
        st = groups_unrow(ix, c, rows, gk, u, batch, cur, buf, err);
        if (st == BK_OK) st = commit_from(ix, c + 1, &c, err);
    }
    free(k);
    free(rows);
    free(gk);
    free(cur);
    free(buf);
    return st;
}

/* Delete, in batches, every group of a bulk commit numbered n_commits or
 * above (a commit a kill cut: its rows are above the tip). */
static bk_status groups_cut_clean(bk_addrindex *ix, bk_error *err)
{
    static const uint8_t kinds[3] = {G_TXPOS, G_FUND, G_SPEND};
    leveldb_writebatch_t *b = leveldb_writebatch_create();
    leveldb_iterator_t *it = leveldb_create_iterator(ix->db, ix->ropts);
    bk_status st = BK_OK;
    for (int i = 0; st == BK_OK && i < 3; i++) {
        uint8_t from[5] = {kinds[i]};
        put_be32(from + 1, ix->n_commits);
        size_t in_batch = 0;
        for (leveldb_iter_seek(it, (const char *)from, 5); st == BK_OK && leveldb_iter_valid(it);
             leveldb_iter_next(it)) {
            size_t kl;
            const char *k = leveldb_iter_key(it, &kl);
            if (!kl || (uint8_t)k[0] != kinds[i]) break;
            leveldb_writebatch_delete(b, k, kl);
            if (++in_batch == GROUP_BATCH * 16) {
                st = write_batch(ix, b, err);
                in_batch = 0;
            }
        }
        if (st == BK_OK && in_batch) st = write_batch(ix, b, err);
    }
    leveldb_writebatch_destroy(b);
    return iter_done(ix, it, st, err);
}

/* Delete the rows of block e (the node still has it and its undo data)
 * into batch, and (groups) from the bulk commits' groups; the caller
 * writes it. */
static bk_status block_unrows(bk_addrindex *ix, const bk_chain_entry *e, const bk_blocksdir *dir, int groups,
                              leveldb_writebatch_t *batch, bk_error *err)
{
    char hex[65];
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
    } else if (!eb.block || (e->height > 0 && !eb.undo)) {
        st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %lld: no %s to undo it from",
                          bk_hash_to_hex(hex, e->hash), (long long)e->height, eb.block ? "undo data" : "block data");
    }
    bk_writer w;
    bk_writer_init(&w, ix->alloc);
    uint8_t *scratch = NULL;
    size_t cap = 0;
    if (st == BK_OK && bk_grow(ix->alloc, &scratch, &cap, 32 * (size_t)eb.block->n_tx) != 0)
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK) {
        block_rows_in in = {eb.block, e->height > 0 ? eb.undo : NULL, e, e->height, 'D', scratch};
        st = block_rows(&in, &w, err);
    }
    size_t bytes = 0;
    if (st == BK_OK) st = records_apply(batch, w.data, w.len, &bytes, NULL, NULL, err);
    if (st == BK_OK && groups) st = block_ungroup(ix, w.data, w.len, batch, err);
    bk_free(ix->alloc, scratch, cap);
    bk_writer_free(&w);
    bk_block_reader_free(&br);
    return st;
}

/* Undo the index's tip block: its rows go and the tip moves to its
 * parent, in one batch. */
static bk_status undo_tip(bk_addrindex *ix, const bk_chain *c, const bk_blocksdir *dir, int64_t height,
                          const uint8_t hash[32], leveldb_writebatch_t *batch, bk_error *err)
{
    char hex[65];
    const bk_chain_entry *e = bk_chain_find(c, hash);
    if (!e)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                            "the index's block %s at height %lld is not in the node's files: cannot undo it",
                            bk_hash_to_hex(hex, hash), (long long)height);
    bk_status st = block_unrows(ix, e, dir, 1, batch, err);
    if (st == BK_OK) {
        const bk_chain_entry *prev = e->parent != BK_CHAIN_NONE ? &c->entries[e->parent] : NULL;
        uint8_t zero[32] = {0};
        tip_put(batch, height - 1, prev ? prev->hash : zero);
        st = write_batch(ix, batch, err);
    }
    leveldb_writebatch_clear(batch);
    return st;
}

/* A commit cut by a kill may have left rows of blocks above the tip: a
 * bulk commit's groups (numbered the "C" count) are deleted; rows of one
 * key each still on the best chain are written again, identically, by
 * this sync, those that left it are deleted here (no committed group
 * holds a row above the tip). Then the marker goes. */
static bk_status marker_clean(bk_addrindex *ix, const bk_chain *c, const bk_blocksdir *dir, int64_t tip,
                              leveldb_writebatch_t *batch, bk_error *err)
{
    uint8_t *v;
    size_t n = 0;
    bk_status st = get(ix, (const uint8_t *)"W", 1, &v, &n, err);
    if (st == BK_ERR_NOT_FOUND) return BK_OK;
    if (st != BK_OK) return st;
    if (n != 36) {
        free(v);
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a damaged in-progress row (%zu bytes)", ix->dir, n);
    }
    int64_t mh = (int32_t)bk_load_le32(v);
    uint8_t hash[32];
    memcpy(hash, v + 4, 32);
    free(v);
    char hex[65];
    const bk_chain_entry *e = mh > tip ? bk_chain_find(c, hash) : NULL;
    if (mh > tip && !e)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                            "%s: an interrupted update wrote rows up to block %s at height %lld, which is not in the "
                            "node's files: cannot clean them", ix->dir, bk_hash_to_hex(hex, hash), (long long)mh);
    st = groups_cut_clean(ix, err);
    for (; st == BK_OK && e && e->height > tip && active_at(c, e->height) != e;
         e = e->parent != BK_CHAIN_NONE ? &c->entries[e->parent] : NULL) {
        st = block_unrows(ix, e, dir, 0, batch, err);
        if (st == BK_OK) st = write_batch(ix, batch, err);
    }
    if (st == BK_OK) {
        leveldb_writebatch_delete(batch, "W", 1);
        st = write_batch(ix, batch, err);
    }
    leveldb_writebatch_clear(batch);
    return st;
}

/* The blocks directory the index is built from, for readers. */
static bk_status blocks_row_put(bk_addrindex *ix, const bk_blocksdir *dir, bk_error *err)
{
    char real[PATH_MAX];
    if (!realpath(dir->path, real)) return bk_error_set(err, BK_ERR_IO, 0, "%s: %s", dir->path, strerror(errno));
    char *msg = NULL;
    leveldb_put(ix->db, ix->wopts, "B", 1, real, strlen(real), &msg);
    return msg ? ldb_fail(err, BK_ERR_IO, ix->dir, msg) : BK_OK;
}

static bk_status sync_apply(bk_addrindex *ix, const bk_chain *chain, const bk_blocksdir *dir, int64_t start,
                            int64_t end, int64_t *applied, bk_error *err)
{
    bk_engine_item *items = NULL;
    size_t n = 0, cap = 0;
    bk_status st = bk_engine_chain_items(chain, start, end, 1, &items, &n, &cap, NULL, NULL, ix->alloc, err);
    int workers = ix->opts.workers > 1 ? ix->opts.workers : 1;
    sync_ctx S;
    memset(&S, 0, sizeof S);
    S.ix = ix;
    S.chain = chain;
    S.side = leveldb_writebatch_create();
    S.rows.tmpdir = ix->opts.tmpdir;
    S.rows.alloc = ix->alloc;
    S.rows.mem_bytes = ix->opts.mem_bytes ? ix->opts.mem_bytes : (256u << 20);
    S.first_height = start;
    S.committed = start - 1;
    S.last_height = start - 1;
    S.tip = end;
    S.bulk = end - start + 1 >= BULK_MIN_BLOCKS;
    S.w = calloc((size_t)workers, sizeof *S.w);
    if (st == BK_OK && !S.w) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK && (n != (size_t)(end - start + 1)))
        st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "the best chain has no block at some height in %lld..%lld",
                          (long long)start, (long long)end);
    if (st == BK_OK && ix->opts.progress) ix->opts.progress(ix->opts.progress_ctx, start - 1, end);
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
        /* what was consumed is whole blocks: keep it */
        bk_error e3;
        bk_status s2 = sync_commit(&S, &e3);
        if (st == BK_OK && s2 != BK_OK) {
            st = s2;
            *err = e3;
        }
    }
    /* The last memtable written to a table now: a closed build leaves its
     * rows in tables, not also in LevelDB's logs (a range past every key,
     * so no table is rewritten) */
    if (st == BK_OK && S.applied) leveldb_compact_range(ix->db, "\xff", 1, "\xff", 1);
    *applied = S.applied;
    if (S.w)
        for (int i = 0; i < workers; i++) bk_free(ix->alloc, S.w[i].scratch, S.w[i].cap);
    free(S.w);
    runs_free(&S.rows);
    leveldb_writebatch_destroy(S.side);
    bk_free(ix->alloc, items, cap * sizeof *items);
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
    uint8_t *cv = NULL;
    size_t cn = 0;
    st = get(ix, (const uint8_t *)"C", 1, &cv, &cn, err);
    if (st == BK_OK || st == BK_ERR_NOT_FOUND) st = commits_decode(ix->dir, cv, cn, &ix->n_commits, err);
    free(cv);
    if (st != BK_OK) return st;
    leveldb_writebatch_t *batch = leveldb_writebatch_create();
    st = marker_clean(ix, chain, dir, tip, batch, err);
    if (st == BK_OK) st = blocks_row_put(ix, dir, err);
    /* the fork point: undo the index's blocks that left the best chain */
    int64_t undone = 0;
    const bk_chain_entry *ce;
    while (st == BK_OK && tip >= 0 && (!(ce = active_at(chain, tip)) || memcmp(ce->hash, th, 32) != 0)) {
        if (ix->opts.cancel && *ix->opts.cancel) {
            st = bk_error_set(err, BK_ERR_CANCELLED, 0, "stopped at height %lld", (long long)tip);
            break;
        }
        st = undo_tip(ix, chain, dir, tip, th, batch, err);
        if (st != BK_OK) break;
        undone++;
        st = tip_read(ix, &tip, th, err);
    }
    leveldb_writebatch_destroy(batch);
    if (undone_out) *undone_out = undone;
    int64_t start = tip + 1, end = chain->entries[chain->tip].height;
    /* a blocks directory whose chain starts above an implied genesis (the
     * bench directories: no block 0 in the files) is indexed from its
     * first block: the heights below it have no block to give rows */
    if (start < chain->base_height) start = chain->base_height;
    if (st != BK_OK || start > end) return st;
    int64_t applied = 0;
    st = sync_apply(ix, chain, dir, start, end, &applied, err);
    if (applied_out) *applied_out = applied;
    return st;
}

/* ---- reading the node's blocks ---------------------------------------------- */

/* The blk files a READ handle reads transactions from stay open in a few
 * slots (queries from many threads share them; pread needs no lock). */
static bk_status blk_read(bk_addrindex *ix, uint32_t file, uint64_t off, uint8_t *out, size_t len, bk_error *err)
{
    if (!ix->blocks)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s: %s", ix->dir,
                            ix->blocks_msg[0] ? ix->blocks_msg : "no blocks directory to read transactions from");
    pthread_mutex_lock(&ix->blk_mu);
    blk_slot *s = NULL, *spare = NULL, *set = &ix->slots[(file % BLK_SETS) * BLK_WAYS];
    for (int i = 0; i < BLK_WAYS && !s; i++) {
        blk_slot *c = &set[i];
        if (c->open && c->number == file && !c->stale) s = c;
        else if (!c->refs && (!spare || !c->open || (spare->open && c->used < spare->used))) spare = c;
    }
    bk_status st = BK_OK;
    if (!s && spare) {
        if (spare->open) bk_blockfile_close(&spare->f);
        spare->open = 0;
        st = bk_blocksdir_open_file(ix->blocks, BK_FILE_BLK, file, &spare->f, err);
        if (st == BK_OK) {
            s = spare;
            s->open = 1;
            s->stale = 0;
            s->number = file;
        }
    }
    if (s) {
        s->refs++;
        s->used = ++ix->blk_clock;
    }
    pthread_mutex_unlock(&ix->blk_mu);
    if (st != BK_OK) return st;
    if (s) {
        st = bk_blockfile_copy(&s->f, off, out, len, err);
        pthread_mutex_lock(&ix->blk_mu);
        s->refs--;
        if (st == BK_ERR_TRUNCATED) s->stale = 1; /* the file grew since it was opened */
        pthread_mutex_unlock(&ix->blk_mu);
        if (st != BK_ERR_TRUNCATED) return st;
    }
    /* every slot busy, or a file that grew: a file of this read's own */
    bk_blockfile f;
    st = bk_blocksdir_open_file(ix->blocks, BK_FILE_BLK, file, &f, err);
    if (st != BK_OK) return st;
    st = bk_blockfile_copy(&f, off, out, len, err);
    bk_blockfile_close(&f);
    return st;
}

typedef struct tx_buf {
    uint8_t *p;
    size_t cap;
} tx_buf;

/* The transaction at (height, pos) of the index's chain, read from the
 * node's blk file into tb (the read lock held). */
static bk_status tx_at(bk_addrindex *ix, uint32_t height, uint32_t pos, tx_buf *tb, bk_tx *tx, bk_error *err)
{
    uint8_t *row = NULL;
    bk_status st = header_row(ix, height, &row, err);
    if (st != BK_OK) return st;
    uint32_t file = bk_load_le32(row + 112), size = bk_load_le32(row + 124), n_tx = bk_load_le32(row + 128);
    uint64_t off = bk_load_le64(row + 116);
    free(row);
    /* the header row's size bounds the read: never above a block's */
    if (size > MAX_BLOCK_BYTES)
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged header row at height %u", ix->dir, height);
    if (pos >= n_tx)
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: a row names tx %u of the block at height %u (%u txs)",
                            ix->dir, pos, height, n_tx);
    uint8_t k[5] = {K_TXOFF};
    put_be32(k + 1, height);
    uint8_t *v;
    size_t n = 0;
    st = get(ix, k, 5, &v, &n, err);
    if (st == BK_ERR_NOT_FOUND || (st == BK_OK && n != 4 * (size_t)n_tx)) {
        if (st == BK_OK) free(v);
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged offsets row at height %u", ix->dir, height);
    }
    if (st != BK_OK) return st;
    uint32_t start = bk_load_le32(v + 4 * (size_t)pos);
    uint32_t end = pos + 1 < n_tx ? bk_load_le32(v + 4 * (size_t)pos + 4) : size;
    free(v);
    if (start <= 80 || end <= start || end > size)
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged offsets row at height %u", ix->dir, height);
    size_t len = end - start;
    if (bk_grow(ix->alloc, &tb->p, &tb->cap, len) != 0) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    st = blk_read(ix, file, off + start, tb->p, len, err);
    if (st != BK_OK) return st;
    bk_error e2;
    if (bk_tx_parse(tb->p, len, tx, NULL, &e2) != BK_OK)
        return bk_error_set(err, BK_ERR_MISMATCH, 0, "the block at height %u no longer holds the transaction at "
                            "position %u (the node's files changed: update the index)", height, pos);
    return BK_OK;
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
    return (x > y) - (x < y);
}

/* The rows of the hash's GP-byte prefix in the groups of bulk commit c
 * (the walk of the groups' rule, above), at or below the tip. *next is the
 * commit to walk after it: c + 1, or the first commit above c that has a
 * group of the kind when c has none at or after the prefix, or UINT32_MAX
 * when no group follows. The walk over the commits therefore costs a seek
 * per commit the index holds, never one per commit its count names (a
 * damaged count of 2^32 - 1 is as quick as the rows behind it). */
static bk_status group_rows_of(bk_addrindex *ix, int kind, const uint8_t *hash, uint32_t c, uint32_t *next, pos_list *l,
                               grow *rows, bk_error *err)
{
    uint8_t pre[1], start[5 + GP];
    pre[0] = (uint8_t)gkind_of(kind);
    start[0] = pre[0];
    put_be32(start + 1, c);
    memcpy(start + 5, hash, GP);
    uint64_t want = prefix_get(hash);
    *next = UINT32_MAX;
    bk_ldb_iter *it;
    bk_status st = bk_ldb_iter_new_range(ix->snap, pre, 1, start, sizeof start, NULL, 0, &it, err);
    if (st != BK_OK) return st;
    const uint8_t *k, *v;
    size_t kl, vl, n;
    while (st == BK_OK && bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        if (kl != GKEY_LEN || vl < GP) {
            st = group_damaged(err, ix->dir, k, kl);
            break;
        }
        uint32_t kc = get_be32(k + 1);
        if (kc != c) { /* c has no group at or after the prefix: go on at kc */
            *next = kc;
            break;
        }
        if (prefix_get(v) > want) { /* its first row is past the prefix, so is every later group's */
            *next = c + 1;
            break;
        }
        if (group_decode(k, kl, v, vl, rows, &n) != 0) {
            st = group_damaged(err, ix->dir, k, kl);
            break;
        }
        for (size_t i = 0; i < n && rows[i].prefix <= want; i++)
            if (rows[i].prefix == want && (int64_t)rows[i].height <= ix->tip_height &&
                pos_push(l, (uint64_t)rows[i].height << 32 | rows[i].pos) != 0) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                break;
            }
        if (prefix_get(k + 5) > want) {
            *next = c + 1;
            break;
        }
    }
    if (*next == 0) *next = UINT32_MAX; /* c + 1 wrapped */
    if (st == BK_OK) st = bk_ldb_iter_status(it, err);
    bk_ldb_iter_free(it);
    return st;
}

/* The (height, pos) of every row under kind and the hash's prefix, at or
 * below the tip, once each, in blockchain order: its keys of one row each
 * (PREFIX_LEN bytes of the hash) and its rows in every bulk commit's
 * groups (GP bytes). */
static bk_status rows_of(bk_addrindex *ix, int kind, const uint8_t *hash, pos_list *l, bk_error *err)
{
    uint8_t p[1 + PREFIX_LEN];
    p[0] = (uint8_t)kind;
    memcpy(p + 1, hash, PREFIX_LEN);
    bk_ldb_iter *it;
    bk_status st = bk_ldb_iter_new(ix->snap, p, sizeof p, &it, err);
    if (st != BK_OK) return st;
    const uint8_t *k, *v;
    size_t kl, vl;
    while (bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        if (kl != ROW_KEY_LEN) continue;
        uint32_t h = get_be32(k + 1 + PREFIX_LEN);
        if ((int64_t)h > ix->tip_height) continue;
        if (pos_push(l, (uint64_t)h << 32 | get_be24(k + 5 + PREFIX_LEN)) != 0) {
            bk_ldb_iter_free(it);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
    }
    st = bk_ldb_iter_status(it, err);
    bk_ldb_iter_free(it);
    if (st != BK_OK || !ix->n_commits) return st;
    size_t n_single = l->n;
    grow *rows = malloc(GROUP_MAX_ROWS * sizeof *rows);
    if (!rows) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    for (uint32_t c = 0, next; st == BK_OK && c < ix->n_commits; c = next)
        st = group_rows_of(ix, kind, hash, c, &next, l, rows, err);
    free(rows);
    if (st != BK_OK || l->n == n_single || (n_single == 0 && ix->n_commits == 1)) return st;
    qsort(l->v, l->n, sizeof *l->v, cmp_u64);
    size_t u = 1;
    for (size_t i = 1; i < l->n; i++)
        if (l->v[i] != l->v[u - 1]) l->v[u++] = l->v[i];
    l->n = u;
    return st;
}

/* What a script's rows come to once each transaction is read: the outputs
 * paying it (a row whose transaction pays another script with the same
 * prefix is a collision and gives nothing), the transactions spending
 * them, and the history of both. */
typedef struct fund_coin {
    uint8_t txid[32];
    uint32_t vout, pos;
    int64_t height;
    uint64_t value;
    uint8_t unspendable, spent;
} fund_coin;

typedef struct script_view {
    fund_coin *coins;
    size_t n_coins, cap_coins;
    bk_addr_tx *txs;
    size_t n_txs, cap_txs;
} script_view;

static void view_free(script_view *v)
{
    free(v->coins);
    free(v->txs);
}

static int cmp_outpoint(const void *a, const void *b)
{
    const fund_coin *x = a, *y = b;
    int c = memcmp(x->txid, y->txid, 32);
    return c ? c : (x->vout > y->vout) - (x->vout < y->vout);
}

static int cmp_coin_order(const void *a, const void *b)
{
    const fund_coin *x = a, *y = b;
    if (x->height != y->height) return x->height < y->height ? -1 : 1;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return (x->vout > y->vout) - (x->vout < y->vout);
}

static int cmp_tx_order(const void *a, const void *b)
{
    const bk_addr_tx *x = a, *y = b;
    if (x->height != y->height) return x->height < y->height ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int tx_push(script_view *v, const uint8_t txid[32], int64_t height, uint32_t pos)
{
    if (v->n_txs == v->cap_txs) {
        size_t c = v->cap_txs ? 2 * v->cap_txs : 16;
        bk_addr_tx *p = realloc(v->txs, c * sizeof *p);
        if (!p) return -1;
        v->txs = p;
        v->cap_txs = c;
    }
    bk_addr_tx *t = &v->txs[v->n_txs++];
    memcpy(t->txid, txid, 32);
    t->height = height;
    t->pos = pos;
    return 0;
}

static bk_status view_fund(bk_addrindex *ix, const uint8_t sh[32], size_t limit, script_view *v, tx_buf *tb,
                           bk_error *err)
{
    pos_list l = {0};
    bk_status st = rows_of(ix, K_FUND, sh, &l, err);
    /* once one output is known to hash to sh, its bytes are the script:
     * later outputs are compared, not hashed */
    uint8_t *known = NULL;
    size_t known_len = 0;
    for (size_t i = 0; st == BK_OK && i < l.n; i++) {
        uint32_t h = (uint32_t)(l.v[i] >> 32), pos = (uint32_t)l.v[i];
        bk_tx tx;
        st = tx_at(ix, h, pos, tb, &tx, err);
        if (st != BK_OK) break;
        uint8_t txid[32], d[32];
        bk_tx_txid(&tx, txid);
        int paid = 0;
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, &tx);
        while (st == BK_OK && bk_txout_next(&oi, &o)) {
            if (known) {
                if (o.script_len != known_len || memcmp(o.script, known, known_len) != 0) continue;
            } else {
                bk_sha256(d, o.script, o.script_len);
                if (memcmp(d, sh, 32) != 0) continue;
                if (!(known = malloc(o.script_len ? o.script_len : 1))) {
                    st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                    break;
                }
                memcpy(known, o.script, o.script_len);
                known_len = o.script_len;
            }
            paid = 1;
            if (v->n_coins == v->cap_coins) {
                size_t c = v->cap_coins ? 2 * v->cap_coins : 16;
                fund_coin *p = realloc(v->coins, c * sizeof *p);
                if (!p) {
                    st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                    break;
                }
                v->coins = p;
                v->cap_coins = c;
            }
            fund_coin *fc = &v->coins[v->n_coins++];
            memcpy(fc->txid, txid, 32);
            fc->vout = oi.index - 1;
            fc->pos = pos;
            fc->height = h;
            fc->value = (uint64_t)o.value;
            fc->unspendable = (uint8_t)unspendable(o.script, o.script_len, h);
            fc->spent = 0;
        }
        if (st == BK_OK && paid && tx_push(v, txid, h, pos) != 0) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        if (st == BK_OK && limit && v->n_txs > limit)
            st = bk_error_set(err, BK_ERR_LENGTH, 0, "history of more than %zu transactions is over the limit of %zu",
                              limit, limit);
    }
    free(known);
    free(l.v);
    return st;
}

static bk_status view_spend(bk_addrindex *ix, const uint8_t sh[32], script_view *v, tx_buf *tb, bk_error *err)
{
    pos_list l = {0};
    bk_status st = rows_of(ix, K_SPEND, sh, &l, err);
    if (st == BK_OK && v->n_coins > 1) qsort(v->coins, v->n_coins, sizeof *v->coins, cmp_outpoint);
    for (size_t i = 0; st == BK_OK && v->n_coins && i < l.n; i++) {
        uint32_t h = (uint32_t)(l.v[i] >> 32), pos = (uint32_t)l.v[i];
        bk_tx tx;
        st = tx_at(ix, h, pos, tb, &tx, err);
        if (st != BK_OK) break;
        int spends = 0;
        bk_txin_iter ii;
        bk_txin in;
        bk_txin_iter_init(&ii, &tx);
        while (bk_txin_next(&ii, &in)) {
            fund_coin key;
            memcpy(key.txid, in.prev_txid, 32);
            key.vout = in.prev_index;
            fund_coin *c = bsearch(&key, v->coins, v->n_coins, sizeof *v->coins, cmp_outpoint);
            if (c) {
                c->spent = 1;
                spends = 1;
            }
        }
        if (spends) {
            uint8_t txid[32];
            bk_tx_txid(&tx, txid);
            if (tx_push(v, txid, h, pos) != 0) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
    }
    free(l.v);
    return st;
}

/* The script's view: funding and spending rows read, checked against
 * their transactions (the read lock held). */

/* ---- the view cache ---------------------------------------------------------
 * A READ handle keeps the views of the scripthashes asked for last (a
 * wallet's status, history, balance and coins of one script are all one
 * view), up to opts.cache_bytes, least recently used out first. They are
 * of the snapshot's tip: refresh empties the cache when it swaps the
 * snapshot. Entries are copied in and out under the cache's own mutex. */
typedef struct cache_entry {
    uint8_t sh[32];
    script_view v;               /* exactly sized copies */
    size_t bytes;
    struct cache_entry *next_in_bucket, *newer, *older;
} cache_entry;

#define CACHE_BUCKETS 4096u

struct view_cache {
    pthread_mutex_t mu;
    size_t cap, bytes;
    cache_entry *bucket[CACHE_BUCKETS];
    cache_entry *newest, *oldest;
};

static view_cache *cache_new(size_t bytes)
{
    view_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    pthread_mutex_init(&c->mu, NULL);
    c->cap = bytes;
    return c;
}

static unsigned cache_bucket(const uint8_t sh[32]) { return bk_load_le32(sh) % CACHE_BUCKETS; }

static void lru_unlink(view_cache *c, cache_entry *e)
{
    if (e->newer) e->newer->older = e->older;
    else c->newest = e->older;
    if (e->older) e->older->newer = e->newer;
    else c->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void lru_push(view_cache *c, cache_entry *e)
{
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest) c->newest->newer = e;
    c->newest = e;
    if (!c->oldest) c->oldest = e;
}

static void entry_drop(view_cache *c, cache_entry *e)
{
    cache_entry **pp = &c->bucket[cache_bucket(e->sh)];
    while (*pp != e) pp = &(*pp)->next_in_bucket;
    *pp = e->next_in_bucket;
    lru_unlink(c, e);
    c->bytes -= e->bytes;
    view_free(&e->v);
    free(e);
}

static void cache_clear(view_cache *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    while (c->oldest) entry_drop(c, c->oldest);
    pthread_mutex_unlock(&c->mu);
}

static void cache_free(view_cache *c)
{
    if (!c) return;
    cache_clear(c);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* A copy of src's arrays into dst: 0, or -1 out of memory (dst empty). */
static int view_copy(script_view *dst, const script_view *src)
{
    memset(dst, 0, sizeof *dst);
    if (src->n_coins && !(dst->coins = malloc(src->n_coins * sizeof *dst->coins))) return -1;
    if (src->n_txs && !(dst->txs = malloc(src->n_txs * sizeof *dst->txs))) {
        free(dst->coins);
        dst->coins = NULL;
        return -1;
    }
    if (src->n_coins) memcpy(dst->coins, src->coins, src->n_coins * sizeof *dst->coins);
    if (src->n_txs) memcpy(dst->txs, src->txs, src->n_txs * sizeof *dst->txs);
    dst->n_coins = dst->cap_coins = src->n_coins;
    dst->n_txs = dst->cap_txs = src->n_txs;
    return 0;
}

/* 1 and a copy of sh's view in *v, or 0 (not kept, or out of memory). */
static int cache_get(view_cache *c, const uint8_t sh[32], script_view *v)
{
    if (!c) return 0;
    int hit = 0;
    pthread_mutex_lock(&c->mu);
    for (cache_entry *e = c->bucket[cache_bucket(sh)]; e; e = e->next_in_bucket) {
        if (memcmp(e->sh, sh, 32) != 0) continue;
        hit = view_copy(v, &e->v) == 0;
        lru_unlink(c, e);
        lru_push(c, e);
        break;
    }
    pthread_mutex_unlock(&c->mu);
    return hit;
}

int bk_addrindex_cached(bk_addrindex *ix, const uint8_t sh[32], size_t limit)
{
    view_cache *c = ix && sh ? ix->cache : NULL;
    if (!c) return 0;
    int hit = 0;
    pthread_mutex_lock(&c->mu);
    for (cache_entry *e = c->bucket[cache_bucket(sh)]; e && !hit; e = e->next_in_bucket)
        hit = !memcmp(e->sh, sh, 32) && (!limit || (e->v.n_txs <= limit && e->v.n_coins <= limit));
    pthread_mutex_unlock(&c->mu);
    return hit;
}

/* Keep a copy of sh's view (nothing when it alone is over the cap, or out
 * of memory: the cache is an optimisation, never an error). */
static void cache_put(view_cache *c, const uint8_t sh[32], const script_view *v)
{
    if (!c) return;
    size_t bytes = sizeof(cache_entry) + v->n_coins * sizeof *v->coins + v->n_txs * sizeof *v->txs;
    if (bytes > c->cap) return;
    cache_entry *e = calloc(1, sizeof *e);
    if (!e) return;
    if (view_copy(&e->v, v) != 0) {
        free(e);
        return;
    }
    memcpy(e->sh, sh, 32);
    e->bytes = bytes;
    pthread_mutex_lock(&c->mu);
    unsigned b = cache_bucket(sh);
    for (cache_entry *o = c->bucket[b]; o; o = o->next_in_bucket)
        if (memcmp(o->sh, sh, 32) == 0) { /* computed twice at once: keep one */
            entry_drop(c, o);
            break;
        }
    while (c->oldest && c->bytes + bytes > c->cap) entry_drop(c, c->oldest);
    e->next_in_bucket = c->bucket[b];
    c->bucket[b] = e;
    lru_push(c, e);
    c->bytes += bytes;
    pthread_mutex_unlock(&c->mu);
}

static bk_status view_of(bk_addrindex *ix, const uint8_t sh[32], size_t limit, script_view *v, bk_error *err)
{
    if (cache_get(ix->cache, sh, v)) {
        if (!limit || v->n_txs <= limit) return BK_OK;
        view_free(v); /* over the limit: refused below as without the cache, in the same words */
    }
    memset(v, 0, sizeof *v);
    tx_buf tb = {0};
    bk_status st = view_fund(ix, sh, limit, v, &tb, err);
    if (st == BK_OK) st = view_spend(ix, sh, v, &tb, err);
    bk_free(ix->alloc, tb.p, tb.cap);
    if (st == BK_OK && v->n_txs > 1) {
        qsort(v->txs, v->n_txs, sizeof *v->txs, cmp_tx_order);
        size_t u = 1;
        for (size_t i = 1; i < v->n_txs; i++)
            if (cmp_tx_order(&v->txs[u - 1], &v->txs[i]) != 0) v->txs[u++] = v->txs[i];
        v->n_txs = u;
    }
    if (st == BK_OK) cache_put(ix->cache, sh, v);
    if (st == BK_OK && limit && v->n_txs > limit)
        st = bk_error_set(err, BK_ERR_LENGTH, 0, "history of %zu transactions is over the limit of %zu", v->n_txs,
                          limit);
    if (st != BK_OK) view_free(v);
    return st;
}

bk_status bk_addrindex_history(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_tx **txs_out,
                               size_t *n_out, bk_error *err)
{
    if (!ix || !sh || !txs_out || !n_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *txs_out = NULL;
    *n_out = 0;
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    script_view v;
    pthread_rwlock_rdlock(&ix->lock);
    bk_status st = view_of(ix, sh, limit, &v, err);
    pthread_rwlock_unlock(&ix->lock);
    if (st != BK_OK) return st;
    free(v.coins);
    *txs_out = v.txs;
    *n_out = v.n_txs;
    return BK_OK;
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

bk_status bk_addrindex_utxos(bk_addrindex *ix, const uint8_t sh[32], size_t limit, bk_addr_coin **coins_out,
                             size_t *n_out, bk_error *err)
{
    if (!ix || !sh || !coins_out || !n_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *coins_out = NULL;
    *n_out = 0;
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    script_view v;
    pthread_rwlock_rdlock(&ix->lock);
    bk_status st = view_of(ix, sh, 0, &v, err);
    pthread_rwlock_unlock(&ix->lock);
    if (st != BK_OK) return st;
    free(v.txs);
    size_t n = 0;
    for (size_t i = 0; i < v.n_coins; i++)
        if (!v.coins[i].spent && !v.coins[i].unspendable) v.coins[n++] = v.coins[i];
    if (limit && n > limit) {
        free(v.coins);
        return bk_error_set(err, BK_ERR_LENGTH, 0, "%zu coins: over the limit of %zu", n, limit);
    }
    if (n > 1) qsort(v.coins, n, sizeof *v.coins, cmp_coin_order);
    bk_addr_coin *out = n ? malloc(n * sizeof *out) : NULL;
    if (n && !out) {
        free(v.coins);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(out[i].txid, v.coins[i].txid, 32);
        out[i].vout = v.coins[i].vout;
        out[i].height = v.coins[i].height;
        out[i].pos = v.coins[i].pos;
        out[i].value = v.coins[i].value;
    }
    free(v.coins);
    *coins_out = out;
    *n_out = n;
    return BK_OK;
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

/* The transaction txid on the index's chain: its 'i' rows (the txid's
 * prefix) checked against the transactions they name; a txid twice on the
 * chain (BIP30's duplicate coinbases) is the later one. tb receives the
 * bytes (the read lock held). */
static bk_status locate(bk_addrindex *ix, const uint8_t txid[32], int64_t *height, uint32_t *pos, tx_buf *tb,
                        size_t *len, bk_error *err)
{
    pos_list l = {0};
    bk_status st = rows_of(ix, K_TXPOS, txid, &l, err);
    int found = 0;
    for (size_t i = l.n; st == BK_OK && !found && i-- > 0;) {
        uint32_t h = (uint32_t)(l.v[i] >> 32), p = (uint32_t)l.v[i];
        bk_tx tx;
        st = tx_at(ix, h, p, tb, &tx, err);
        if (st != BK_OK) break;
        uint8_t id[32];
        bk_tx_txid(&tx, id);
        if (memcmp(id, txid, 32) == 0) {
            found = 1;
            *height = h;
            *pos = p;
            *len = tx.size;
        }
    }
    free(l.v);
    char hex[65];
    if (st == BK_OK && !found)
        st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "transaction %s is not on the index's chain",
                          bk_hash_to_hex(hex, txid));
    return st;
}

bk_status bk_addrindex_tx_locate(bk_addrindex *ix, const uint8_t txid[32], int64_t *height_out, uint32_t *pos_out,
                                 bk_error *err)
{
    if (!ix || !txid || !height_out || !pos_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    tx_buf tb = {0};
    size_t len;
    pthread_rwlock_rdlock(&ix->lock);
    bk_status st = locate(ix, txid, height_out, pos_out, &tb, &len, err);
    pthread_rwlock_unlock(&ix->lock);
    bk_free(ix->alloc, tb.p, tb.cap);
    return st;
}

bk_status bk_addrindex_tx_raw(bk_addrindex *ix, const bk_blocksdir *dir, const uint8_t txid[32], uint8_t **raw_out,
                              size_t *len_out, int64_t *height_out, bk_error *err)
{
    if (!ix || !raw_out || !len_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    (void)dir; /* the handle reads the blocks it was opened with */
    *raw_out = NULL;
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    tx_buf tb = {0};
    int64_t h;
    uint32_t pos;
    size_t len = 0;
    pthread_rwlock_rdlock(&ix->lock);
    bk_status st = locate(ix, txid, &h, &pos, &tb, &len, err);
    pthread_rwlock_unlock(&ix->lock);
    uint8_t *raw = NULL;
    if (st == BK_OK && !(raw = malloc(len ? len : 1))) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK) {
        memcpy(raw, tb.p, len);
        *raw_out = raw;
        *len_out = len;
        if (height_out) *height_out = h;
    }
    bk_free(ix->alloc, tb.p, tb.cap);
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
    uint32_t n_tx = 0, file = 0, size = 0;
    uint64_t off = 0;
    if (st == BK_OK) {
        file = bk_load_le32(row + 112);
        off = bk_load_le64(row + 116);
        size = bk_load_le32(row + 124);
        n_tx = bk_load_le32(row + 128);
    }
    free(row);
    if (st == BK_OK && pos >= n_tx)
        st = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no tx at position %u in the block at height %lld (%u txs)", pos,
                          (long long)height, n_tx);
    /* the block is read and its txids hashed: the header row's size bounds
     * the read, the decoder the table (never n_tx alone: fuzz_addrindex) */
    uint8_t *buf = NULL;
    if (st == BK_OK && size > MAX_BLOCK_BYTES)
        st = bk_error_set(err, BK_ERR_INVALID, 0, "%s: damaged header row at height %lld", ix->dir, (long long)height);
    if (st == BK_OK && !(buf = malloc(size ? size : 1))) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK) st = blk_read(ix, file, off, buf, size, err);
    pthread_rwlock_unlock(&ix->lock);
    bk_block b;
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, ix->alloc);
    uint8_t *leaves = NULL;
    if (st == BK_OK && bk_block_decode(&dec, buf, size, &b, err) != BK_OK)
        st = bk_error_set(err, BK_ERR_MISMATCH, 0, "the block at height %lld in the node's files is not the index's "
                          "(the node's files changed: update the index)", (long long)height);
    if (st == BK_OK && b.n_tx != n_tx)
        st = bk_error_set(err, BK_ERR_MISMATCH, 0, "the block at height %lld has %u txs, the index says %u",
                          (long long)height, b.n_tx, n_tx);
    if (st == BK_OK && !(leaves = malloc(32 * ((size_t)n_tx + 1))))
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (st == BK_OK) {
        bk_block_txids(&b, leaves);
        memcpy(txid_out, leaves + 32 * (size_t)pos, 32);
        size_t depth = 0;
        st = bk_merkle_branch(leaves, n_tx, (size_t)n_tx + 1, pos, &branch_out[0][0], 32 * 32, &depth, NULL, NULL);
        if (st != BK_OK) st = bk_error_set(err, st, 0, "merkle branch: %s", bk_status_str(st));
        else *n_out = depth;
    }
    free(leaves);
    bk_block_decoder_free(&dec);
    free(buf);
    return st;
}

/* ---- every row, logically ---------------------------------------------------- */

typedef struct dump_row {
    uint8_t *k, *v;
    size_t kl, vl;
} dump_row;

typedef struct dump_rows {
    dump_row *r;
    size_t n, cap;             /* rows, bytes */
    const bk_allocator *alloc;
} dump_rows;

static int dump_push(dump_rows *d, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    uint8_t *buf = (uint8_t *)d->r;
    if (bk_grow(d->alloc, &buf, &d->cap, (d->n + 1) * sizeof *d->r) != 0) return -1;
    d->r = (dump_row *)buf;
    dump_row *r = &d->r[d->n];
    if (!(r->k = malloc(kl + vl + 1))) return -1;
    memcpy(r->k, k, kl);
    if (vl) memcpy(r->k + kl, v, vl);
    r->v = r->k + kl;
    r->kl = kl;
    r->vl = vl;
    d->n++;
    return 0;
}

static int dump_cmp(const void *a, const void *b)
{
    const dump_row *x = a, *y = b;
    size_t n = x->kl < y->kl ? x->kl : y->kl;
    int c = memcmp(x->k, y->k, n);
    return c ? c : (x->kl > y->kl) - (x->kl < y->kl);
}

/* A row's logical key: kind, GP bytes of the hash, height, pos. */
#define LOGICAL_KEY_LEN (1 + GP + 4 + 3)

static int dump_logical(dump_rows *d, int kind, const grow *r)
{
    uint8_t k[LOGICAL_KEY_LEN];
    k[0] = (uint8_t)kind;
    prefix_put(k + 1, r->prefix);
    put_be32(k + 1 + GP, r->height);
    put_be24(k + 5 + GP, r->pos);
    return dump_push(d, k, sizeof k, NULL, 0);
}

bk_status bk_addrindex_rows(bk_addrindex *ix, bk_addrindex_row_fn fn, void *ctx, bk_error *err)
{
    if (!ix || !fn) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (!read_ok(ix, err)) return BK_ERR_ARG;
    pthread_rwlock_rdlock(&ix->lock);
    dump_rows d = {.alloc = ix->alloc};
    grow *rows = malloc(GROUP_MAX_ROWS * sizeof *rows);
    bk_ldb_iter *it = NULL;
    bk_status st = rows ? bk_ldb_iter_new(ix->snap, NULL, 0, &it, err)
                        : bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    const uint8_t *k, *v;
    size_t kl, vl;
    while (st == BK_OK && bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        int rc = 0, lk = kind_of_gkind(k[0]);
        if (kl == 1 && k[0] == 'C') continue; /* how the rows are stored, not what they are */
        if ((k[0] == K_FUND || k[0] == K_SPEND || k[0] == K_TXPOS) && kl == ROW_KEY_LEN && !vl) {
            grow r = grow_of_key(k);
            rc = dump_logical(&d, k[0], &r);
        } else if (lk && kl == GKEY_LEN && get_be32(k + 1) < ix->n_commits) {
            size_t n;
            if (group_decode(k, kl, v, vl, rows, &n) != 0) {
                st = group_damaged(err, ix->dir, k, kl);
                break;
            }
            for (size_t i = 0; i < n && !rc; i++) rc = dump_logical(&d, lk, &rows[i]);
        } else {
            rc = dump_push(&d, k, kl, v, vl); /* a cut commit's group stays as it is stored */
        }
        if (rc) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    if (st == BK_OK) st = bk_ldb_iter_status(it, err);
    bk_ldb_iter_free(it);
    pthread_rwlock_unlock(&ix->lock);
    free(rows);
    if (st == BK_OK && d.n > 1) qsort(d.r, d.n, sizeof *d.r, dump_cmp);
    for (size_t i = 0; st == BK_OK && i < d.n; i++) {
        if (i && !dump_cmp(&d.r[i - 1], &d.r[i])) continue;
        if (fn(ctx, d.r[i].k, d.r[i].kl, d.r[i].v, d.r[i].vl))
            st = bk_error_set(err, BK_ERR_CANCELLED, 0, "stopped by the caller");
    }
    for (size_t i = 0; i < d.n; i++) free(d.r[i].k);
    bk_free(ix->alloc, d.r, d.cap);
    return st;
}
