/* Fuzz the block index record decoders (blockkit/blockindex.h). The first
 * input byte picks the record: 'b' (key = 'b' + the next 32 bytes, value =
 * the rest), 'f' (key = 'f' + 4 bytes), 'l', 'F' (key = 'F' + the bytes up
 * to the first 0xff, value = the rest), anything else the chainstate's
 * obfuscation key value. A decoded record must re-encode to exactly the
 * input bytes (Core's VARINT is a bijection) and satisfy the status rules;
 * an error's offset must lie inside the value. */
#include <blockkit/blockindex.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t put(uint8_t *out, uint64_t v)
{
    return bk_varint_encode(out, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t sel = data[0];
    data++;
    size--;
    bk_error err;
    if (sel == 'b') {
        if (size < 32) return 0;
        uint8_t key[33];
        key[0] = 'b';
        memcpy(key + 1, data, 32);
        const uint8_t *v = data + 32;
        size_t vl = size - 32;
        bk_disk_block_index d;
        bk_status st0 = bk_disk_block_index_decode(key, 33, v, vl, 0, &d, &err);
        if (st0 != BK_OK) {
            if (err.offset > vl || !err.msg[0]) abort();
            return 0;
        }
        if ((d.status & ~BK_BLOCK_STATUS_KNOWN) || (d.status & BK_BLOCK_VALID_MASK) > BK_BLOCK_VALID_SCRIPTS) abort();
        if (d.height < 0 || d.client_version < 0 || d.file < 0) abort();
        if ((d.status & BK_BLOCK_HAVE_MASK) && d.n_tx == 0) abort();
        if (memcmp(d.hash, key + 1, 32) != 0) abort();
        uint8_t re[128];
        size_t n = 0;
        n += put(re + n, (uint64_t)d.client_version);
        n += put(re + n, (uint64_t)d.height);
        n += put(re + n, d.status);
        n += put(re + n, d.n_tx);
        if (d.status & BK_BLOCK_HAVE_MASK) n += put(re + n, (uint64_t)d.file);
        if (d.status & BK_BLOCK_HAVE_DATA) n += put(re + n, d.data_pos);
        if (d.status & BK_BLOCK_HAVE_UNDO) n += put(re + n, d.undo_pos);
        if (n + 80 != vl || memcmp(re, v, n) != 0) abort();
        /* The header: decoded fields agree with its bytes. */
        const uint8_t *h = v + n;
        if ((uint32_t)d.header.version != bk_load_le32(h) || memcmp(d.header.prev_hash, h + 4, 32) ||
            memcmp(d.header.merkle_root, h + 36, 32) || d.header.time != bk_load_le32(h + 68) ||
            d.header.bits != bk_load_le32(h + 72) || d.header.nonce != bk_load_le32(h + 76))
            abort();
        /* With the hash check: accepted iff the header hashes to the key. */
        uint8_t hh[32];
        bk_header_hash(h, hh);
        bk_status st1 = bk_disk_block_index_decode(key, 33, v, vl, 1, &d, &err);
        if ((st1 == BK_OK) != (memcmp(hh, key + 1, 32) == 0)) abort();
    } else if (sel == 'f') {
        if (size < 4) return 0;
        uint8_t key[5];
        key[0] = 'f';
        memcpy(key + 1, data, 4);
        bk_block_file_info fi;
        if (bk_block_file_info_decode(key, 5, data + 4, size - 4, &fi, &err) != BK_OK) {
            if (err.offset > size - 4) abort();
            return 0;
        }
        uint8_t re[80];
        size_t n = 0;
        n += put(re + n, fi.n_blocks);
        n += put(re + n, fi.size);
        n += put(re + n, fi.undo_size);
        n += put(re + n, fi.height_first);
        n += put(re + n, fi.height_last);
        n += put(re + n, fi.time_first);
        n += put(re + n, fi.time_last);
        if (n != size - 4 || memcmp(re, data + 4, n) != 0) abort();
    } else if (sel == 'l') {
        int32_t f;
        if (bk_index_last_file_decode(data, size, &f, &err) == BK_OK && (size != 4 || f < 0)) abort();
    } else if (sel == 'F') {
        const uint8_t *sep = memchr(data, 0xff, size);
        size_t kl = sep ? (size_t)(sep - data) : size;
        uint8_t *key = malloc(kl + 1);
        if (!key) return 0;
        key[0] = 'F';
        memcpy(key + 1, data, kl);
        const uint8_t *name;
        size_t nl;
        int val;
        const uint8_t *v = sep ? sep + 1 : data + size;
        if (bk_index_flag_decode(key, kl + 1, v, (size_t)(data + size - v), &name, &nl, &val, &err) == BK_OK) {
            if (name < key + 1 || name + nl != key + kl + 1 || (val != 0 && val != 1)) abort();
        }
        free(key);
    } else {
        uint8_t k[BK_OBFUSCATE_KEY_MAX];
        size_t kl;
        if (bk_obfuscate_key_decode(data, size, k, &kl, &err) == BK_OK) {
            if (kl > BK_OBFUSCATE_KEY_MAX) abort();
            uint8_t buf[64];
            size_t n = size < sizeof buf ? size : sizeof buf;
            memcpy(buf, data, n);
            bk_deobfuscate(buf, n, k, kl);
            bk_deobfuscate(buf, n, k, kl);
            if (memcmp(buf, data, n) != 0) abort();
        }
    }
    return 0;
}
