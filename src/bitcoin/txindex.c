/* Bitcoin Core's txindex (indexes/txindex): CDiskTxPos records and the
 * transaction they point to (blockkit/txindex.h). */
#include <blockkit/bitcoin.h>
#include <blockkit/blockindex.h>
#include <blockkit/hex.h>
#include <blockkit/leveldb.h>
#include <blockkit/stream.h>
#include <blockkit/txindex.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the database ---- */

struct bk_txindex {
    bk_ldb *db;
    uint8_t key[BK_OBFUSCATE_KEY_MAX]; /* obfuscation key (CDBWrapper), key_len 0 = none */
    size_t key_len;
};

static void deobfuscate(const bk_txindex *ti, uint8_t *v, size_t n)
{
    bk_deobfuscate(v, n, ti->key, ti->key_len);
}

bk_status bk_txindex_open(const char *dir, const char *tmpdir, bk_txindex **tx_out, bk_error *err)
{
    if (!dir || !tx_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *tx_out = NULL;
    bk_txindex *ti = calloc(1, sizeof *ti);
    if (!ti) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    bk_status st = bk_ldb_open(dir, tmpdir, &ti->db, err);
    if (st != BK_OK) {
        free(ti);
        return st;
    }
    uint8_t *v = NULL;
    size_t vl = 0;
    st = bk_ldb_get(ti->db, (const uint8_t *)BK_OBFUSCATE_KEY_KEY, BK_OBFUSCATE_KEY_KEY_LEN, &v, &vl, err);
    if (st == BK_OK) {
        bk_error e;
        st = bk_obfuscate_key_decode(v, vl, ti->key, &ti->key_len, &e);
        bk_ldb_free(v);
        if (st != BK_OK) {
            bk_txindex_close(ti);
            return bk_error_set(err, st, e.offset, "%s: obfuscation key record: %s", dir, e.msg);
        }
    } else if (st != BK_ERR_NOT_FOUND) {
        bk_txindex_close(ti);
        return st;
    }
    bk_error_clear(err);
    *tx_out = ti;
    return BK_OK;
}

void bk_txindex_close(bk_txindex *ti)
{
    if (!ti) return;
    bk_ldb_close(ti->db);
    free(ti);
}

bk_status bk_txindex_find(bk_txindex *ti, const uint8_t txid[32], bk_tx_pos *pos_out, bk_error *err)
{
    if (!ti || !txid || !pos_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    uint8_t key[33];
    key[0] = 't';
    memcpy(key + 1, txid, 32);
    uint8_t *v = NULL;
    size_t vl = 0;
    char hex[65];
    bk_status st = bk_ldb_get(ti->db, key, sizeof key, &v, &vl, err);
    if (st == BK_ERR_NOT_FOUND) {
        bk_hash_to_hex(hex, txid);
        return bk_error_set(err, st, 0, "txindex has no transaction %s", hex);
    }
    if (st != BK_OK) return st;
    deobfuscate(ti, v, vl);
    bk_error e;
    st = bk_tx_pos_decode(v, vl, pos_out, &e);
    bk_ldb_free(v);
    if (st != BK_OK) {
        bk_hash_to_hex(hex, txid);
        return bk_error_set(err, st, e.offset, "txindex key t%s: %s at byte %llu of the value", hex, e.msg,
                            (unsigned long long)e.offset);
    }
    return BK_OK;
}

bk_status bk_txindex_best_block(bk_txindex *ti, uint8_t hash_out[32], bk_error *err)
{
    if (!ti || !hash_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    uint8_t *v = NULL;
    size_t vl = 0;
    bk_status st = bk_ldb_get(ti->db, (const uint8_t *)"B", 1, &v, &vl, err);
    if (st == BK_ERR_NOT_FOUND) return bk_error_set(err, st, 0, "txindex has no best block record");
    if (st != BK_OK) return st;
    deobfuscate(ti, v, vl);
    uint64_t n;
    bk_error e;
    st = bk_block_locator_decode(v, vl, hash_out, &n, &e);
    bk_ldb_free(v);
    if (st != BK_OK)
        return bk_error_set(err, st, e.offset, "txindex key B: %s at byte %llu of the value", e.msg,
                            (unsigned long long)e.offset);
    return BK_OK;
}

/* ---- the transaction in the blk file ---- */

bk_status bk_txindex_read_tx(const bk_blocksdir *d, const bk_tx_pos *pos, const uint8_t txid[32],
                             const bk_allocator *alloc, uint8_t **tx_out, size_t *len_out, uint8_t block_hash_out[32],
                             bk_error *err)
{
    if (!d || !pos || !tx_out || !len_out || !block_hash_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (!alloc) alloc = bk_default_allocator();
    *tx_out = NULL;
    *len_out = 0;
    if (!bk_blocksdir_has(d, BK_FILE_BLK, pos->file))
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "blk%05u.dat is not in %s", pos->file, d->path);
    bk_blockfile f;
    bk_status st = bk_blocksdir_open_file(d, BK_FILE_BLK, pos->file, &f, err);
    if (st != BK_OK) return st;
    uint8_t rec[8], hdr[BK_HEADER_SIZE];
    uint8_t *buf = NULL;
    size_t cap = 0;
    if (pos->block_pos < 8) {
        st = bk_error_set(err, BK_ERR_INVALID, pos->block_pos, "blk%05u.dat: block position %u is inside the file's first record header",
                          pos->file, pos->block_pos);
        goto done;
    }
    st = bk_blockfile_copy(&f, pos->block_pos - 8, rec, 8, err);
    if (st == BK_OK) st = bk_blockfile_copy(&f, pos->block_pos, hdr, BK_HEADER_SIZE, err);
    if (st != BK_OK) {
        bk_error_set(err, st, pos->block_pos, "blk%05u.dat: block position %u is past the end of the file (%zu bytes)",
                     pos->file, pos->block_pos, f.len);
        goto done;
    }
    uint32_t size = bk_load_le32(rec + 4);
    if (memcmp(rec, f.magic, 4) != 0) {
        st = bk_error_set(err, BK_ERR_MAGIC, pos->block_pos - 8, "blk%05u.dat: no block record at offset %u", pos->file,
                          pos->block_pos - 8);
        goto done;
    }
    uint64_t start = (uint64_t)pos->block_pos + BK_HEADER_SIZE + pos->tx_offset;
    uint64_t end = (uint64_t)pos->block_pos + size;
    if (size < BK_HEADER_SIZE || start >= end || end > f.len) {
        st = bk_error_set(err, BK_ERR_INVALID, start,
                          "blk%05u.dat: transaction offset %u is outside the block record at %u (%u bytes)", pos->file,
                          pos->tx_offset, pos->block_pos, size);
        goto done;
    }
    cap = (size_t)(end - start);
    buf = bk_alloc(alloc, cap);
    if (!buf) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    st = bk_blockfile_copy(&f, start, buf, cap, err);
    if (st != BK_OK) goto done;
    bk_tx tx;
    size_t used = 0;
    bk_error e;
    st = bk_tx_parse(buf, cap, &tx, &used, &e);
    if (st != BK_OK) {
        bk_error_set(err, st, start + e.offset, "blk%05u.dat: transaction at offset %llu: %s", pos->file,
                     (unsigned long long)start, e.msg);
        goto done;
    }
    if (txid) {
        uint8_t id[32];
        bk_tx_txid(&tx, id);
        if (memcmp(id, txid, 32) != 0) {
            st = bk_error_set(err, BK_ERR_MISMATCH, start, "blk%05u.dat: the transaction at offset %llu has another txid (txid mismatch)",
                              pos->file, (unsigned long long)start);
            goto done;
        }
    }
    bk_header_hash(hdr, block_hash_out);
    if (used < cap) {
        uint8_t *exact = bk_alloc(alloc, used);
        if (!exact) {
            st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            goto done;
        }
        memcpy(exact, buf, used);
        bk_free(alloc, buf, cap);
        buf = exact;
        cap = used;
    }
    *tx_out = buf;
    *len_out = cap;
    buf = NULL;
    st = BK_OK;
done:
    if (buf) bk_free(alloc, buf, cap);
    bk_blockfile_close(&f);
    return st;
}
