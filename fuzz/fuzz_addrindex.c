/* Fuzz the address index's row, key and group decoding (blockkit/addrindex.h)
 * through its public reader: a LevelDB directory is written (with Debian's
 * libleveldb, as the index's writer does) from rows taken from the input,
 * then opened BK_ADDRINDEX_READ over a blocks directory of one real block
 * (g_block, in blk00000.dat at offset 8) and queried: tip, headers, the
 * history, status, coins and balance of every scripthash the rows name,
 * the location of every txid they name and the merkle branches of the
 * blocks they name. Every row the reader decodes (version, tip, header,
 * tx offsets, the compact txid, funding and spending keys, the count of
 * bulk commits and their row groups) comes from the input, and every answer is checked against the transactions those rows
 * point at in the blk file, so a damaged or foreign index must give a
 * status and a message, never a crash, a read out of bounds or an
 * allocation the rows do not justify.
 *
 * Input: byte 0 flags: bit 0 the version row of a real index ("V", from
 * bk_addrindex_open BK_ADDRINDEX_WRITE on regtest) before the rows, so the
 * reader gets past its version check (without it the directory is a
 * foreign LevelDB); bit 1 queries with a limit (byte 1, when bit 1: the
 * limit). Then records: key length (u8), value length (u16 LE), key,
 * value; at most MAX_ROWS, a cut record ends them. The index's rows have
 * no values: an 'o', 'p' or 'i' row's value here only completes the
 * scripthash or txid queried (its 8-byte key prefix, then the value's
 * first 24 bytes, zeros after them). A group row ('O', 'P', 'I': commit,
 * last row) names the hash of its last row's 6-byte prefix (zeros after
 * it); a record 's' or 't' with 32 bytes of key after it (not a row the
 * index has) names a whole scripthash or txid to query.
 *
 * Checks, when a query succeeds: a second query (from the handle's view
 * cache) gives the same history, and a limit under it is refused; the
 * history is in strict blockchain order
 * (height, then position), non-negative, within the limit; the status is
 * the status of that history (bk_addrindex_status_of) and absent exactly
 * when the history is empty; coins are in (height, pos, vout) order, each
 * in the history, within the limit; the balance is their sum (mod 2^64, as
 * the reader adds); a branch has at most 32 levels; bk_addrindex_rows
 * gives its rows in strictly increasing key order, every row a script or
 * txid is found by as its 14-byte logical key (never its stored 16 bytes),
 * and no count of bulk commits. A failure sets the
 * bk_error to its status with a message (never CANCELLED or LOCKED: a
 * reader neither stops nor locks). The scratch directories are removed at
 * exit, and the reader's snapshot leaves nothing in its tmpdir. */
#include <blockkit/addrindex.h>

#include <leveldb/c.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_ROWS 256
#define MAX_QUERIES 32

static char g_root[512], g_db[600], g_tmp[600], g_blk[600], g_blkfile[640];
static bk_blocksdir g_blocks;
static int g_blocks_open;

/* The blocks directory's one block (scripts/gen-fuzz-addrindex-seeds.py
 * makes it and the seeds that index it): a coinbase paying script A, a tx
 * spending it and paying script B and A again. */
static const uint8_t g_block[278] = {
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x50, 0x71, 0x76, 0x2e, 0x6a, 0x24, 0x4e, 0xf8, 0xb2, 0xbc, 0x77, 0x81,
    0x19, 0x2f, 0xf1, 0x32, 0x9e, 0x6b, 0xd3, 0x85, 0xba, 0x3a, 0x7d, 0x4e, 0x53, 0x4d, 0x14, 0xb2,
    0x1c, 0x9f, 0xf3, 0x10, 0x00, 0xf1, 0x53, 0x65, 0xff, 0xff, 0x7f, 0x20, 0x00, 0x00, 0x00, 0x00,
    0x02, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x02, 0x51, 0x51, 0xff, 0xff, 0xff,
    0xff, 0x01, 0x00, 0xf2, 0x05, 0x2a, 0x01, 0x00, 0x00, 0x00, 0x16, 0x00, 0x14, 0x11, 0x11, 0x11,
    0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
    0x11, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x02, 0x75, 0xd6, 0x5e, 0x2e, 0x48,
    0x3c, 0x3a, 0x62, 0xb0, 0x15, 0x7a, 0x23, 0x46, 0x0e, 0xe2, 0x46, 0x88, 0x33, 0xec, 0x52, 0xa4,
    0x31, 0x04, 0x1f, 0x68, 0x56, 0x6c, 0x23, 0x3c, 0x89, 0x4d, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,
    0xff, 0xff, 0xff, 0x02, 0xa0, 0x86, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x16, 0x00, 0x14, 0x22,
    0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
    0x22, 0x22, 0x22, 0x40, 0x0d, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x16, 0x00, 0x14, 0x11, 0x11,
    0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
    0x11, 0x11, 0x00, 0x00, 0x00, 0x00,
};

/* The LevelDB goes through LevelDB's own removal (its directory is flat). */
static void destroy_db(void)
{
    leveldb_options_t *lo = leveldb_options_create();
    char *msg = NULL;
    leveldb_destroy_db(lo, g_db, &msg);
    leveldb_free(msg);
    leveldb_options_destroy(lo);
    (void)rmdir(g_db);
}

static void remove_root(void)
{
    destroy_db();
    if (g_blocks_open) bk_blocksdir_close(&g_blocks);
    (void)unlink(g_blkfile);
    (void)rmdir(g_blk);
    (void)rmdir(g_tmp);
    (void)rmdir(g_root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *t = getenv("TMPDIR");
    snprintf(g_root, sizeof g_root, "%s/bk-fuzz-addrindex-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(g_root)) {
        perror("fuzz_addrindex: mkdtemp");
        exit(1);
    }
    snprintf(g_db, sizeof g_db, "%s/ix", g_root);
    snprintf(g_tmp, sizeof g_tmp, "%s/tmp", g_root);
    if (mkdir(g_tmp, 0700) != 0) {
        perror("fuzz_addrindex: mkdir");
        exit(1);
    }
    atexit(remove_root);
    snprintf(g_blk, sizeof g_blk, "%s/blocks", g_root);
    snprintf(g_blkfile, sizeof g_blkfile, "%s/blk00000.dat", g_blk);
    uint8_t rec[8] = {0, 0, 0, 0, (uint8_t)sizeof g_block, (uint8_t)(sizeof g_block >> 8), 0, 0};
    memcpy(rec, bk_network_get(BK_NET_REGTEST)->magic, 4);
    FILE *f = mkdir(g_blk, 0700) == 0 ? fopen(g_blkfile, "wb") : NULL;
    if (!f || fwrite(rec, 1, 8, f) != 8 || fwrite(g_block, 1, sizeof g_block, f) != sizeof g_block || fclose(f) != 0) {
        perror("fuzz_addrindex: the blocks directory");
        exit(1);
    }
    bk_error err;
    if (bk_blocksdir_open(&g_blocks, g_blk, BK_NET_REGTEST, NULL, &err) != BK_OK) {
        fprintf(stderr, "fuzz_addrindex: %s\n", err.msg);
        exit(1);
    }
    g_blocks_open = 1;
    return 0;
}

static int dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 1;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

static void check_fail(bk_status st, const bk_error *err)
{
    if (st == BK_OK || st == BK_ERR_CANCELLED || st == BK_ERR_LOCKED) abort();
    if (err->status != st || !err->msg[0]) abort();
}

typedef struct row {
    const uint8_t *k, *v;
    size_t kl, vl;
} row;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int tx_before(const bk_addr_tx *a, const bk_addr_tx *b)
{
    return a->height < b->height || (a->height == b->height && a->pos < b->pos);
}

static void query_scripthash(bk_addrindex *ix, const uint8_t sh[32], size_t limit)
{
    bk_error err;
    bk_addr_tx *txs = NULL;
    size_t n = 0;
    bk_status st = bk_addrindex_history(ix, sh, limit, &txs, &n, &err);
    if (st != BK_OK) {
        check_fail(st, &err);
        if (limit == 0 && st == BK_ERR_LENGTH) abort();
    } else {
        if (limit && n > limit) abort();
        if (n && !txs) abort();
        for (size_t i = 0; i < n; i++) {
            if (txs[i].height < 0) abort();
            if (i && !tx_before(&txs[i - 1], &txs[i])) abort();
        }
        uint8_t want[32], got[32];
        int has_want = 0, has_got = 0;
        bk_addrindex_status_of(txs, n, want, &has_want);
        if (has_want != (n > 0)) abort();
        st = bk_addrindex_status(ix, sh, limit, got, &has_got, &err);
        if (st != BK_OK) check_fail(st, &err);
        else if (has_got != has_want || (has_got && memcmp(got, want, 32) != 0)) abort();
        /* again, from the handle's view cache: the same answer, and a
         * limit under it refused as it is without the cache */
        bk_addr_tx *again = NULL;
        size_t n2 = 0;
        st = bk_addrindex_history(ix, sh, limit, &again, &n2, &err);
        if (st != BK_OK) check_fail(st, &err);
        else if (n2 != n || (n && memcmp(again, txs, n * sizeof *txs) != 0)) abort();
        bk_addrindex_free(ix, again);
        /* the cache hint: held after the query (the fuzz views are far
         * under the cache's size), never promised past a limit under it */
        if (!bk_addrindex_cached(ix, sh, 0)) abort();
        if (n > 1 && bk_addrindex_cached(ix, sh, n - 1)) abort();
        if (n > 1) {
            again = NULL;
            st = bk_addrindex_history(ix, sh, n - 1, &again, &n2, &err);
            if (st != BK_ERR_LENGTH) abort();
            check_fail(st, &err);
        }
    }
    bk_addr_coin *coins = NULL;
    size_t nc = 0;
    bk_status cs = bk_addrindex_utxos(ix, sh, limit, &coins, &nc, &err);
    if (cs != BK_OK) {
        check_fail(cs, &err);
    } else {
        if (limit && nc > limit) abort();
        uint64_t sum = 0;
        for (size_t i = 0; i < nc; i++) {
            const bk_addr_coin *c = &coins[i];
            sum += c->value;
            if (i) {
                const bk_addr_coin *p = &coins[i - 1];
                if (c->height < p->height || (c->height == p->height && c->pos < p->pos) ||
                    (c->height == p->height && c->pos == p->pos && c->vout <= p->vout))
                    abort();
            }
            if (st == BK_OK) { /* the coin's transaction is in the history */
                size_t j = 0;
                while (j < n && (txs[j].height != c->height || txs[j].pos != c->pos)) j++;
                if (j == n) abort();
            }
        }
        uint64_t bal = 0;
        bk_status bs = bk_addrindex_balance(ix, sh, limit, &bal, &err);
        if (bs != BK_OK) check_fail(bs, &err);
        else if (bal != sum) abort();
    }
    bk_addrindex_free(ix, coins);
    bk_addrindex_free(ix, txs);
}

static void query_block(bk_addrindex *ix, int64_t height, uint32_t pos)
{
    bk_error err;
    uint8_t hdr[80], txid[32], branch[32][32];
    bk_status st = bk_addrindex_header(ix, height, hdr, &err);
    if (st != BK_OK) check_fail(st, &err);
    size_t depth = 99;
    st = bk_addrindex_merkle(ix, height, pos, txid, branch, &depth, &err);
    if (st != BK_OK) check_fail(st, &err);
    else if (depth > 32) abort();
}

static void query_txid(bk_addrindex *ix, const uint8_t txid[32])
{
    bk_error err;
    int64_t h = -7;
    uint32_t pos = 0;
    bk_status st = bk_addrindex_tx_locate(ix, txid, &h, &pos, &err);
    if (st != BK_OK) {
        check_fail(st, &err);
        return;
    }
    if (h < 0) abort();
    query_block(ix, h, pos);
}

/* Write the rows (and, with version, a real index's "V" first). */
static int write_db(const row *rows, size_t n, int version)
{
    if (version) {
        bk_addrindex_opts o;
        bk_addrindex_opts_init(&o);
        o.net = BK_NET_REGTEST;
        bk_addrindex *w = NULL;
        bk_error err;
        if (bk_addrindex_open(&w, g_db, BK_ADDRINDEX_WRITE, &o, &err) != BK_OK) abort();
        bk_addrindex_close(w);
    }
    leveldb_options_t *lo = leveldb_options_create();
    leveldb_options_set_create_if_missing(lo, 1);
    char *msg = NULL;
    leveldb_t *db = leveldb_open(lo, g_db, &msg);
    if (!db) {
        leveldb_free(msg);
        leveldb_options_destroy(lo);
        return -1;
    }
    leveldb_writebatch_t *b = leveldb_writebatch_create();
    for (size_t i = 0; i < n; i++)
        leveldb_writebatch_put(b, (const char *)rows[i].k, rows[i].kl, (const char *)rows[i].v, rows[i].vl);
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    leveldb_write(db, wo, b, &msg);
    if (msg) abort();
    leveldb_writeoptions_destroy(wo);
    leveldb_writebatch_destroy(b);
    leveldb_close(db);
    leveldb_options_destroy(lo);
    return 0;
}

typedef struct rows_check {
    uint8_t last[256];
    size_t last_len;
    int any;
} rows_check;

static int check_row(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    rows_check *c = ctx;
    (void)v;
    if (!kl) abort();
    if (c->any) { /* strictly after the last */
        size_t n = kl < c->last_len ? kl : c->last_len;
        int d = memcmp(c->last, k, n);
        if (d > 0 || (d == 0 && c->last_len >= kl)) abort();
    }
    if (kl == 1 && k[0] == 'C') abort();
    if ((k[0] == 'o' || k[0] == 'p' || k[0] == 'i') && kl == 16 && !vl) abort(); /* a row, not as logical */
    c->last_len = kl < sizeof c->last ? kl : sizeof c->last;
    memcpy(c->last, k, c->last_len);
    c->any = 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_root[0]) LLVMFuzzerInitialize(NULL, NULL);
    if (size < 1) return 0;
    uint8_t flags = data[0];
    size_t p = 1, limit = 0;
    if (flags & 2) {
        if (p >= size) return 0;
        limit = data[p++];
    }
    static row rows[MAX_ROWS];
    size_t n = 0;
    while (n < MAX_ROWS && size - p >= 3) {
        size_t kl = data[p], vl = (size_t)data[p + 1] | (size_t)data[p + 2] << 8;
        if (kl == 0 || size - p - 3 < kl + vl) break;
        rows[n].k = data + p + 3;
        rows[n].kl = kl;
        rows[n].v = data + p + 3 + kl;
        rows[n].vl = vl;
        n++;
        p += 3 + kl + vl;
    }
    destroy_db();
    if (write_db(rows, n, flags & 1) != 0) return 0;

    bk_addrindex_opts o;
    bk_addrindex_opts_init(&o);
    o.net = BK_NET_COUNT_; /* the index's own network */
    o.tmpdir = g_tmp;
    o.blocks = &g_blocks;
    bk_addrindex *ix = NULL;
    bk_error err;
    bk_status st = bk_addrindex_open(&ix, g_db, BK_ADDRINDEX_READ, &o, &err);
    if (st != BK_OK) {
        check_fail(st, &err);
        if (!dir_empty(g_tmp)) abort();
        return 0;
    }
    int64_t tip = -2;
    uint8_t tip_hash[32];
    st = bk_addrindex_tip(ix, &tip, tip_hash, &err);
    if (st != BK_OK) check_fail(st, &err);
    else if (tip < -1) abort();
    query_block(ix, 0, 0);
    if (st == BK_OK) {
        query_block(ix, tip, 0);
        query_block(ix, tip + 1, 0);
    }
    rows_check rc = {.any = 0};
    st = bk_addrindex_rows(ix, check_row, &rc, &err);
    if (st != BK_OK) check_fail(st, &err);
    static const uint8_t zero[32];
    query_scripthash(ix, zero, limit);
    size_t q = 0;
    for (size_t i = 0; i < n && q < MAX_QUERIES; i++) {
        const row *r = &rows[i];
        uint8_t kind = r->k[0], h[32] = {0};
        if ((kind == 'o' || kind == 'p' || kind == 'i') && r->kl >= 9) {
            memcpy(h, r->k + 1, 8);
            memcpy(h + 8, r->v, r->vl < 24 ? r->vl : 24);
        }
        if ((kind == 'O' || kind == 'P' || kind == 'I') && r->kl >= 11) memcpy(h, r->k + 5, 6);
        if ((kind == 's' || kind == 't') && r->kl == 33) memcpy(h, r->k + 1, 32);
        if (((kind == 'o' || kind == 'p') && r->kl >= 9) || ((kind == 'O' || kind == 'P') && r->kl >= 11) ||
            (kind == 's' && r->kl == 33)) {
            query_scripthash(ix, h, limit);
            q++;
        } else if ((kind == 'i' && r->kl >= 9) || (kind == 'I' && r->kl >= 11) || (kind == 't' && r->kl == 33)) {
            query_txid(ix, h);
            q++;
        } else if ((kind == 'h' || kind == 'x') && r->kl >= 5) {
            query_block(ix, be32(r->k + 1), r->vl >= 4 ? be32(r->v) : 0);
            q++;
        }
    }
    bk_addrindex_close(ix);
    if (!dir_empty(g_tmp)) abort(); /* the snapshot is gone with the handle */
    return 0;
}
