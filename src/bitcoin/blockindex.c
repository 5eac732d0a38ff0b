/* Bitcoin Core's block index records and chainstate helpers, decoded from
 * bytes (blockkit/blockindex.h). Core: src/chain.h CDiskBlockIndex and
 * BlockStatus, src/node/blockstorage.h CBlockFileInfo, src/node/
 * blockstorage.cpp BlockTreeDB (DB_BLOCK_INDEX 'b', DB_BLOCK_FILES 'f',
 * DB_LAST_BLOCK 'l', DB_REINDEX_FLAG 'R', DB_FLAG 'F'), src/serialize.h
 * ReadVarInt, src/dbwrapper.cpp (obfuscation). */
#include <blockkit/blockindex.h>
#include <blockkit/hex.h>

#include <stdio.h>
#include <string.h>

/* "blocks/index key <hex>" into out (the key cut at 40 bytes). */
static void key_name(char *out, size_t cap, const uint8_t *key, size_t klen)
{
    char hex[2 * 40 + 1];
    size_t n = klen > 40 ? 40 : klen;
    bk_hex_encode(hex, key, n);
    hex[2 * n] = 0;
    snprintf(out, cap, "key %s%s", hex, klen > n ? "..." : "");
}

static bk_status rec_fail(bk_error *err, bk_status st, size_t off, const uint8_t *key, size_t klen, const char *what)
{
    char name[100];
    key_name(name, sizeof name, key, klen);
    return bk_error_set(err, st, off, "blocks/index %s: %s at byte %zu", name, what, off);
}

/* Core ReadVarInt<I> (VarIntMode DEFAULT / NONNEGATIVE_SIGNED) into a type
 * whose largest value is max. 0 on success; else the status, with *pos at
 * the faulty byte. */
static bk_status varint(const uint8_t *v, size_t len, size_t *pos, uint64_t max, uint64_t *out)
{
    uint64_t n = 0;
    for (;;) {
        if (*pos >= len) return BK_ERR_TRUNCATED;
        uint8_t ch = v[*pos];
        if (n > (max >> 7)) return BK_ERR_OVERFLOW;
        n = (n << 7) | (ch & 0x7f);
        if (ch & 0x80) {
            if (n == max) return BK_ERR_OVERFLOW;
            n++;
            (*pos)++;
        } else {
            (*pos)++;
            *out = n;
            return BK_OK;
        }
    }
}

typedef struct field_reader {
    const uint8_t *key, *val;
    size_t klen, vlen, pos;
    bk_error *err;
    bk_status st;
} field_reader;

/* The error path of field: the same VARINT read again, for the message. */
static uint64_t field_fail(field_reader *f, uint64_t max, const char *name)
{
    uint64_t v = 0;
    if (f->st != BK_OK) return 0;
    size_t start = f->pos;
    bk_status st = varint(f->val, f->vlen, &f->pos, max, &v);
    if (st != BK_OK) {
        char what[80];
        snprintf(what, sizeof what, "%s VARINT %s (starting at byte %zu)", name,
                 st == BK_ERR_TRUNCATED ? "truncated" : "too large", start);
        f->st = rec_fail(f->err, st, f->pos, f->key, f->klen, what);
        return 0;
    }
    return v;
}

/* The next VARINT field (at most max), or 0 with f->st set naming it. The
 * usual case inline: the bytes are there and the value fits. */
static inline uint64_t field(field_reader *f, uint64_t max, const char *name)
{
    if (f->st == BK_OK) {
        const uint8_t *v = f->val;
        uint64_t n = 0;
        for (size_t pos = f->pos; pos < f->vlen && n <= (max >> 7); pos++) {
            uint8_t ch = v[pos];
            n = (n << 7) | (ch & 0x7f);
            if (!(ch & 0x80)) {
                f->pos = pos + 1;
                return n;
            }
            if (n == max) break;
            n++;
        }
    }
    return field_fail(f, max, name);
}

bk_index_key_kind bk_index_key_kind_of(const uint8_t *key, size_t klen)
{
    if (!key || !klen) return BK_INDEX_KEY_OTHER;
    switch (key[0]) {
    case 'b': return BK_INDEX_KEY_BLOCK;
    case 'f': return BK_INDEX_KEY_FILE;
    case 'l': return BK_INDEX_KEY_LAST_FILE;
    case 'R': return BK_INDEX_KEY_REINDEX;
    case 'F': return BK_INDEX_KEY_FLAG;
    default: return BK_INDEX_KEY_OTHER;
    }
}

bk_status bk_disk_block_index_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen, int check_hash,
                                     bk_disk_block_index *out, bk_error *err)
{
    if (!key || !out || (!val && vlen)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (klen != 33 || key[0] != 'b')
        return rec_fail(err, BK_ERR_ARG, 0, key, klen, "not a block record key ('b' + 32 bytes)");
    memset(out, 0, sizeof *out);
    memcpy(out->hash, key + 1, 32);
    field_reader f = {key, val, klen, vlen, 0, err, BK_OK};
    out->client_version = (int32_t)field(&f, INT32_MAX, "client version");
    out->height = (int32_t)field(&f, INT32_MAX, "height");
    size_t status_at = f.pos;
    out->status = (uint32_t)field(&f, UINT32_MAX, "status");
    size_t ntx_at = f.pos;
    out->n_tx = (uint32_t)field(&f, UINT32_MAX, "tx count");
    if (f.st != BK_OK) return f.st;
    uint32_t s = out->status;
    char what[96];
    if (s & ~BK_BLOCK_STATUS_KNOWN) {
        snprintf(what, sizeof what, "status 0x%x has bits Core never sets (0x%x)", s, s & ~BK_BLOCK_STATUS_KNOWN);
        return rec_fail(err, BK_ERR_VALUE, status_at, key, klen, what);
    }
    if ((s & BK_BLOCK_VALID_MASK) > BK_BLOCK_VALID_SCRIPTS) {
        snprintf(what, sizeof what, "status 0x%x has validity level %u (at most %u)", s, s & BK_BLOCK_VALID_MASK,
                 BK_BLOCK_VALID_SCRIPTS);
        return rec_fail(err, BK_ERR_VALUE, status_at, key, klen, what);
    }
    if ((s & BK_BLOCK_HAVE_MASK) && out->n_tx == 0) {
        snprintf(what, sizeof what, "status 0x%x says the block is stored but its tx count is 0", s);
        return rec_fail(err, BK_ERR_VALUE, ntx_at, key, klen, what);
    }
    if (s & BK_BLOCK_HAVE_MASK) out->file = (int32_t)field(&f, INT32_MAX, "file number");
    if (s & BK_BLOCK_HAVE_DATA) out->data_pos = (uint32_t)field(&f, UINT32_MAX, "data position");
    if (s & BK_BLOCK_HAVE_UNDO) out->undo_pos = (uint32_t)field(&f, UINT32_MAX, "undo position");
    if (f.st != BK_OK) return f.st;
    if (vlen - f.pos < BK_HEADER_SIZE) {
        snprintf(what, sizeof what, "block header truncated (%zu of 80 bytes)", vlen - f.pos);
        return rec_fail(err, BK_ERR_TRUNCATED, vlen, key, klen, what);
    }
    if (vlen - f.pos > BK_HEADER_SIZE) {
        snprintf(what, sizeof what, "%zu bytes after the block header", vlen - f.pos - BK_HEADER_SIZE);
        return rec_fail(err, BK_ERR_TRAILING, f.pos + BK_HEADER_SIZE, key, klen, what);
    }
    const uint8_t *h = val + f.pos;
    if (bk_header_parse(h, BK_HEADER_SIZE, &out->header, NULL) != BK_OK)
        return rec_fail(err, BK_ERR_TRUNCATED, f.pos, key, klen, "block header");
    if (check_hash) {
        uint8_t hh[32];
        bk_header_hash(h, hh);
        if (memcmp(hh, out->hash, 32) != 0)
            return rec_fail(err, BK_ERR_MISMATCH, f.pos, key, klen, "the stored header's hash is not the key");
    }
    return BK_OK;
}

bk_status bk_block_file_info_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                                    bk_block_file_info *out, bk_error *err)
{
    if (!key || !out || (!val && vlen)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (klen != 5 || key[0] != 'f')
        return rec_fail(err, BK_ERR_ARG, 0, key, klen, "not a file record key ('f' + int32)");
    memset(out, 0, sizeof *out);
    out->file = (int32_t)bk_load_le32(key + 1);
    if (out->file < 0) return rec_fail(err, BK_ERR_VALUE, 0, key, klen, "negative file number in the key");
    field_reader f = {key, val, klen, vlen, 0, err, BK_OK};
    out->n_blocks = (uint32_t)field(&f, UINT32_MAX, "block count");
    out->size = (uint32_t)field(&f, UINT32_MAX, "size");
    out->undo_size = (uint32_t)field(&f, UINT32_MAX, "undo size");
    out->height_first = (uint32_t)field(&f, UINT32_MAX, "first height");
    out->height_last = (uint32_t)field(&f, UINT32_MAX, "last height");
    out->time_first = field(&f, UINT64_MAX, "first time");
    out->time_last = field(&f, UINT64_MAX, "last time");
    if (f.st != BK_OK) return f.st;
    if (f.pos != vlen) return rec_fail(err, BK_ERR_TRAILING, f.pos, key, klen, "bytes after the file info");
    return BK_OK;
}

bk_status bk_index_last_file_decode(const uint8_t *val, size_t vlen, int32_t *file_out, bk_error *err)
{
    static const uint8_t k = 'l';
    if (!file_out || (!val && vlen)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (vlen < 4) return rec_fail(err, BK_ERR_TRUNCATED, vlen, &k, 1, "last file number truncated");
    if (vlen > 4) return rec_fail(err, BK_ERR_TRAILING, 4, &k, 1, "bytes after the last file number");
    int32_t v = (int32_t)bk_load_le32(val);
    if (v < 0) return rec_fail(err, BK_ERR_VALUE, 0, &k, 1, "negative last file number");
    *file_out = v;
    return BK_OK;
}

bk_status bk_index_flag_decode(const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen,
                               const uint8_t **name_out, size_t *name_len_out, int *value_out, bk_error *err)
{
    if (!key || !name_out || !name_len_out || !value_out || (!val && vlen))
        return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (klen < 1 || key[0] != 'F') return rec_fail(err, BK_ERR_ARG, 0, key, klen, "not a flag record key");
    bk_reader r;
    bk_reader_init(&r, key + 1, klen - 1);
    uint64_t n = bk_read_compact_size(&r, 1);
    if (!bk_reader_ok(&r) || n != bk_reader_remaining(&r))
        return rec_fail(err, BK_ERR_INVALID, 1 + r.pos, key, klen, "flag name length does not match the key");
    *name_out = key + 1 + r.pos;
    *name_len_out = (size_t)n;
    if (vlen != 1 || (val[0] != '0' && val[0] != '1'))
        return rec_fail(err, BK_ERR_VALUE, 0, key, klen, "flag value is not '0' or '1'");
    *value_out = val[0] == '1';
    return BK_OK;
}

bk_status bk_obfuscate_key_decode(const uint8_t *val, size_t vlen, uint8_t key_out[BK_OBFUSCATE_KEY_MAX],
                                  size_t *key_len_out, bk_error *err)
{
    if (!key_out || !key_len_out || (!val && vlen)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_reader r;
    bk_reader_init(&r, val, vlen);
    uint64_t n = bk_read_compact_size(&r, 1);
    if (!bk_reader_ok(&r)) return bk_reader_error(&r, err);
    if (n > BK_OBFUSCATE_KEY_MAX)
        return bk_error_set(err, BK_ERR_LENGTH, 0, "chainstate obfuscation key of %llu bytes (at most %d)",
                            (unsigned long long)n, BK_OBFUSCATE_KEY_MAX);
    if (n != bk_reader_remaining(&r))
        return bk_error_set(err, n > bk_reader_remaining(&r) ? BK_ERR_TRUNCATED : BK_ERR_TRAILING, r.pos,
                            "chainstate obfuscation key: %llu bytes announced, %zu present", (unsigned long long)n,
                            bk_reader_remaining(&r));
    memcpy(key_out, val + r.pos, (size_t)n);
    *key_len_out = (size_t)n;
    return BK_OK;
}

void bk_deobfuscate(uint8_t *buf, size_t len, const uint8_t *key, size_t key_len)
{
    if (!key_len) return;
    for (size_t i = 0, k = 0; i < len; i++) {
        buf[i] ^= key[k];
        if (++k == key_len) k = 0;
    }
}
