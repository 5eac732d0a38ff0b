/* Core's chainstate (the UTXO set in LevelDB) through a private snapshot.
 *
 * Core: txdb.cpp (DB_COIN 'C', DB_BEST_BLOCK 'B', DB_HEAD_BLOCKS 'H',
 * CoinEntry = 'C' + txid + VARINT(n)), dbwrapper.cpp (OBFUSCATION_KEY_KEY
 * "\x0e\x00obfuscate_key" holding a serialized std::vector of 8 bytes,
 * stored in the clear; every other value XORed with the key repeated),
 * coins.h Coin::Serialize. */
#include <blockkit/leveldb.h>
#include <blockkit/utxo_chainstate.h>
#include <blockkit/hex.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define OBF_MAX 64

static const uint8_t OBF_KEY[15] = {0x0e, 0x00, 'o', 'b', 'f', 'u', 's', 'c', 'a', 't', 'e', '_', 'k', 'e', 'y'};

struct bk_chainstate {
    const bk_allocator *alloc;
    bk_ldb *db;
    uint8_t obf[OBF_MAX];
    size_t obf_len;
    uint8_t best[32];
    uint8_t *scratch; /* de-obfuscated value of the last get */
    size_t scratch_cap;
};

struct bk_chainstate_iter {
    bk_chainstate *cs;
    bk_ldb_iter *it;
    uint8_t *scratch;
    size_t scratch_cap;
    bk_error err;
    uint64_t bytes_since_drop;
    int drop;                 /* drop_table_pages(snap_dir) every DROP_EVERY bytes */
    char snap_dir[PATH_MAX];  /* the snapshot directory, resolved */
};

/* LevelDB reads its table files through read-only mmaps (up to 1000 of
 * them on 64-bit, not configurable through its C API, and kept while the
 * table stays in its table cache of max_open_files - 10 entries). A full
 * scan touches every page, so the process's resident set would grow to
 * the size of the whole chainstate (page cache, but counted in RSS:
 * 540 MB for 10M coins, gigabytes for mainnet). So every DROP_EVERY bytes
 * of entries read, the iterator drops the pages of those mappings from the
 * process (madvise MADV_DONTNEED on the read-only mappings of the
 * snapshot's .ldb / .sst files, found in /proc/self/maps): for a file
 * mapping this only unmaps the pages; a later access reads them again
 * from the page cache, so LevelDB's view is unchanged. Linux only. */
#define DROP_EVERY ((uint64_t)32 << 20)

static void drop_table_pages(const char *dir)
{
#if defined(__linux__) && defined(MADV_DONTNEED)
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    size_t dl = strlen(dir);
    char line[PATH_MAX + 256];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        int pos = -1;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &pos) < 3 || pos < 0) continue;
        if (perms[0] != 'r' || perms[1] != '-' || perms[2] != '-') continue; /* read-only, not executable */
        char *path = line + pos;
        size_t pl = strcspn(path, "\n");
        path[pl] = 0;
        if (pl <= dl + 4 || strncmp(path, dir, dl) != 0 || path[dl] != '/' || strchr(path + dl + 1, '/')) continue;
        if (strcmp(path + pl - 4, ".ldb") != 0 && strcmp(path + pl - 4, ".sst") != 0) continue;
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
    fclose(f);
#else
    (void)dir;
#endif
}

static void xor_into(uint8_t *out, const uint8_t *in, size_t n, const uint8_t *obf, size_t obf_len)
{
    if (!obf_len) {
        memcpy(out, in, n);
        return;
    }
    if (obf_len == 8) {
        uint64_t k;
        memcpy(&k, obf, 8);
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t v;
            memcpy(&v, in + i, 8);
            v ^= k;
            memcpy(out + i, &v, 8);
        }
        for (; i < n; i++) out[i] = in[i] ^ obf[i & 7];
        return;
    }
    for (size_t i = 0; i < n; i++) out[i] = in[i] ^ obf[i % obf_len];
}

/* "key 43<hex>..." for messages: at most the first 40 bytes. */
static void key_hex(char *out, const uint8_t *key, size_t klen)
{
    size_t n = klen > 40 ? 40 : klen;
    bk_hex_encode(out, key, n);
    out[2 * n] = 0;
    if (n < klen) strcat(out, "...");
}

bk_status bk_chainstate_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                               const uint8_t *obf, size_t obf_len, uint8_t *scratch, size_t scratch_cap,
                               bk_utxo *u, bk_error *err)
{
    char kh[96];
    if (klen < 34 || key[0] != 'C') {
        key_hex(kh, key, klen);
        return bk_error_set(err, BK_ERR_INVALID, klen < 34 ? klen : 0,
                            "key %s is not a coin key ('C' + 32-byte txid + VARINT vout)", kh);
    }
    bk_reader r;
    bk_reader_init(&r, key + 33, klen - 33);
    uint64_t vout = bk_read_varint(&r);
    if (!bk_reader_ok(&r) || vout > UINT32_MAX || bk_reader_remaining(&r)) {
        key_hex(kh, key, klen);
        uint64_t off = !bk_reader_ok(&r) ? 33 + r.err_pos : 33 + r.pos;
        return bk_error_set(err, BK_ERR_INVALID, off,
                            !bk_reader_ok(&r) ? "key %s: the vout VARINT does not decode"
                            : vout > UINT32_MAX ? "key %s: vout over 32 bits"
                                                : "key %s: bytes after the vout VARINT",
                            kh);
    }
    if (vlen > scratch_cap) {
        key_hex(kh, key, klen);
        return bk_error_set(err, BK_ERR_BUFFER, 0, "key %s: value of %zu bytes over the buffer", kh, vlen);
    }
    xor_into(scratch, val, vlen, obf, obf_len);
    memcpy(u->txid, key + 1, 32);
    u->vout = (uint32_t)vout;
    bk_error e;
    if (bk_utxo_coin_decode(scratch, vlen, &u->coin, &e) != BK_OK) {
        key_hex(kh, key, klen);
        return bk_error_set(err, e.status, e.offset, "coin %s: %s (at byte %llu of its value)", kh, e.msg,
                            (unsigned long long)e.offset);
    }
    return BK_OK;
}

static int ensure_scratch(const bk_allocator *a, uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 1;
    size_t nc = *cap ? *cap : 256;
    while (nc < need) nc *= 2;
    uint8_t *p = bk_realloc(a, *buf, *cap, nc);
    if (!p) return 0;
    *buf = p;
    *cap = nc;
    return 1;
}

bk_status bk_chainstate_open(const char *dir, const char *tmpdir, const bk_allocator *alloc, bk_chainstate **out,
                             bk_error *err)
{
    if (!dir || !out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *out = NULL;
    bk_chainstate *cs = bk_alloc(alloc, sizeof *cs);
    if (!cs) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(cs, 0, sizeof *cs);
    cs->alloc = alloc;
    bk_status st = bk_ldb_open(dir, tmpdir, &cs->db, err);
    if (st != BK_OK) {
        bk_free(alloc, cs, sizeof *cs);
        return st;
    }
    uint8_t *v = NULL;
    size_t vlen = 0;
    st = bk_ldb_get(cs->db, OBF_KEY, sizeof OBF_KEY, &v, &vlen, err);
    if (st == BK_OK) {
        /* A serialized std::vector<unsigned char>: CompactSize n, n bytes. */
        bk_reader r;
        bk_reader_init(&r, v, vlen);
        uint64_t n = bk_read_compact_size(&r, 1);
        const uint8_t *k = bk_reader_ok(&r) && n <= OBF_MAX ? bk_read_span(&r, (size_t)n) : NULL;
        if (!k || bk_reader_remaining(&r)) {
            bk_ldb_free(v);
            bk_chainstate_close(cs);
            return bk_error_set(err, BK_ERR_INVALID, 0,
                                "%s: the obfuscation key (key 0e006f6266757363617465...) is malformed", dir);
        }
        memcpy(cs->obf, k, (size_t)n);
        cs->obf_len = (size_t)n;
        bk_ldb_free(v);
    } else if (st != BK_ERR_NOT_FOUND) {
        bk_chainstate_close(cs);
        return st;
    }
    /* Before Core 0.15 the set was stored per transaction under 'c'; Core
     * upgrades that database at its first start (txdb.cpp Upgrade). */
    {
        static const uint8_t c = 'c';
        bk_ldb_iter *li = NULL;
        st = bk_ldb_iter_new(cs->db, &c, 1, &li, err);
        if (st != BK_OK) {
            bk_chainstate_close(cs);
            return st;
        }
        const uint8_t *lk, *lv;
        size_t lkl, lvl;
        int legacy = bk_ldb_iter_next(li, &lk, &lkl, &lv, &lvl);
        bk_ldb_iter_free(li);
        if (legacy) {
            bk_chainstate_close(cs);
            return bk_error_set(err, BK_ERR_UNSUPPORTED, 0,
                                "%s: a chainstate in the per-transaction format of Bitcoin Core before 0.15 "
                                "('c' records): start a newer bitcoind once to upgrade it",
                                dir);
        }
    }
    /* An interrupted flush leaves 'H' (the old and new tips); Core replays
     * blocks at its next start to finish it. The coins are a mix then. */
    static const uint8_t H = 'H', B = 'B';
    st = bk_ldb_get(cs->db, &H, 1, &v, &vlen, err);
    if (st == BK_OK) {
        bk_ldb_free(v);
        bk_chainstate_close(cs);
        return bk_error_set(err, BK_ERR_INVALID, 0,
                            "%s: the head-blocks marker ('H') is set: the node was interrupted while "
                            "flushing its UTXO set; start bitcoind again and let it finish the flush",
                            dir);
    }
    if (st != BK_ERR_NOT_FOUND) {
        bk_chainstate_close(cs);
        return st;
    }
    st = bk_ldb_get(cs->db, &B, 1, &v, &vlen, err);
    if (st == BK_ERR_NOT_FOUND) {
        bk_chainstate_close(cs);
        return bk_error_set(err, BK_ERR_INVALID, 0, "%s: no best block ('B') recorded: not a chainstate, or "
                                                    "one the node has never flushed", dir);
    }
    if (st != BK_OK) {
        bk_chainstate_close(cs);
        return st;
    }
    if (vlen != 32) {
        bk_ldb_free(v);
        bk_chainstate_close(cs);
        return bk_error_set(err, BK_ERR_INVALID, vlen, "%s: the best block ('B') is %zu bytes, not 32", dir,
                            vlen);
    }
    xor_into(cs->best, v, 32, cs->obf, cs->obf_len);
    bk_ldb_free(v);
    *out = cs;
    return BK_OK;
}

void bk_chainstate_close(bk_chainstate *cs)
{
    if (!cs) return;
    const bk_allocator *a = cs->alloc;
    bk_ldb_close(cs->db);
    bk_free(a, cs->scratch, cs->scratch_cap);
    bk_free(a, cs, sizeof *cs);
}

void bk_chainstate_best_block(const bk_chainstate *cs, uint8_t out[32]) { memcpy(out, cs->best, 32); }

size_t bk_chainstate_obfuscate_key(const bk_chainstate *cs, const uint8_t **key_out)
{
    if (key_out) *key_out = cs->obf;
    return cs->obf_len;
}

uint64_t bk_chainstate_disk_size(bk_chainstate *cs)
{
    static const uint8_t lo = 'C', hi = 'D';
    return bk_ldb_approximate_size(cs->db, &lo, 1, &hi, 1);
}

bk_status bk_chainstate_get(bk_chainstate *cs, const uint8_t txid[32], uint32_t vout, bk_utxo *u, bk_error *err)
{
    uint8_t key[1 + 32 + 10];
    key[0] = 'C';
    memcpy(key + 1, txid, 32);
    size_t klen = 33 + bk_varint_encode(key + 33, vout);
    uint8_t *v = NULL;
    size_t vlen = 0;
    bk_status st = bk_ldb_get(cs->db, key, klen, &v, &vlen, err);
    if (st != BK_OK) return st;
    if (!ensure_scratch(cs->alloc, &cs->scratch, &cs->scratch_cap, vlen ? vlen : 1)) {
        bk_ldb_free(v);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    st = bk_chainstate_decode(key, klen, v, vlen, cs->obf, cs->obf_len, cs->scratch, cs->scratch_cap, u, err);
    bk_ldb_free(v);
    return st;
}

bk_status bk_chainstate_find_txid(bk_chainstate *cs, const uint8_t txid[32], bk_utxo *u, bk_error *err)
{
    uint8_t prefix[33];
    prefix[0] = 'C';
    memcpy(prefix + 1, txid, 32);
    bk_ldb_iter *it = NULL;
    bk_status st = bk_ldb_iter_new(cs->db, prefix, sizeof prefix, &it, err);
    if (st != BK_OK) return st;
    const uint8_t *k, *v;
    size_t kl, vl;
    if (!bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        st = bk_ldb_iter_status(it, err);
        bk_ldb_iter_free(it);
        return st != BK_OK ? st : bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no unspent output of the transaction");
    }
    if (!ensure_scratch(cs->alloc, &cs->scratch, &cs->scratch_cap, vl ? vl : 1)) {
        bk_ldb_iter_free(it);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    st = bk_chainstate_decode(k, kl, v, vl, cs->obf, cs->obf_len, cs->scratch, cs->scratch_cap, u, err);
    bk_ldb_iter_free(it);
    return st;
}

bk_status bk_chainstate_iter_new(bk_chainstate *cs, bk_chainstate_iter **out, bk_error *err)
{
    *out = NULL;
    bk_chainstate_iter *it = bk_alloc(cs->alloc, sizeof *it);
    if (!it) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(it, 0, sizeof *it);
    static const uint8_t C = 'C';
    bk_status st = bk_ldb_iter_new(cs->db, &C, 1, &it->it, err);
    if (st != BK_OK) {
        bk_free(cs->alloc, it, sizeof *it);
        return st;
    }
    it->cs = cs;
#if defined(__linux__)
    it->drop = realpath(bk_ldb_snapshot_dir(cs->db), it->snap_dir) != NULL;
#endif
    *out = it;
    return BK_OK;
}

int bk_chainstate_iter_next(bk_chainstate_iter *it, bk_utxo *u)
{
    if (it->err.status != BK_OK) return 0;
    const uint8_t *k, *v;
    size_t kl, vl;
    if (!bk_ldb_iter_next(it->it, &k, &kl, &v, &vl)) {
        (void)bk_ldb_iter_status(it->it, &it->err);
        return 0;
    }
    it->bytes_since_drop += kl + vl;
    if (it->bytes_since_drop >= DROP_EVERY && it->drop) {
        it->bytes_since_drop = 0;
        drop_table_pages(it->snap_dir);
    }
    if (!ensure_scratch(it->cs->alloc, &it->scratch, &it->scratch_cap, vl ? vl : 1)) {
        bk_error_set(&it->err, BK_ERR_NOMEM, 0, "out of memory");
        return 0;
    }
    if (bk_chainstate_decode(k, kl, v, vl, it->cs->obf, it->cs->obf_len, it->scratch, it->scratch_cap, u,
                             &it->err) != BK_OK)
        return 0;
    return 1;
}

bk_status bk_chainstate_iter_status(const bk_chainstate_iter *it, bk_error *err)
{
    if (err) *err = it->err;
    return it->err.status;
}

void bk_chainstate_iter_free(bk_chainstate_iter *it)
{
    if (!it) return;
    const bk_allocator *a = it->cs->alloc;
    bk_ldb_iter_free(it->it);
    bk_free(a, it->scratch, it->scratch_cap);
    bk_free(a, it, sizeof *it);
}

bk_status bk_block_index_height(const char *index_dir, const char *tmpdir, const uint8_t hash[32],
                                int32_t *height_out, bk_error *err)
{
    bk_ldb *db;
    bk_status st = bk_ldb_open(index_dir, tmpdir, &db, err);
    if (st != BK_OK) return st;
    uint8_t key[33];
    key[0] = 'b';
    memcpy(key + 1, hash, 32);
    uint8_t *v = NULL;
    size_t vlen = 0;
    st = bk_ldb_get(db, key, sizeof key, &v, &vlen, err);
    if (st == BK_OK) {
        /* CDiskBlockIndex: VARINT client version, VARINT nHeight, ... */
        bk_reader r;
        bk_reader_init(&r, v, vlen);
        (void)bk_read_varint(&r);
        uint64_t h = bk_read_varint(&r);
        if (!bk_reader_ok(&r) || h > INT32_MAX) {
            char kh[70];
            bk_hex_encode(kh, key, 33);
            kh[66] = 0;
            st = bk_error_set(err, BK_ERR_INVALID, r.err_pos, "%s: block index entry %s is malformed", index_dir,
                              kh);
        } else {
            *height_out = (int32_t)h;
        }
        bk_ldb_free(v);
    } else if (st == BK_ERR_NOT_FOUND) {
        bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s: no such block in the index", index_dir);
    }
    bk_ldb_close(db);
    return st;
}
