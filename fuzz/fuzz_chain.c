/* Fuzz the file-based chain build over several files with many records
 * (02-chain-undo-pairing-quadratic: pairing must stay bounded whatever the
 * files hold). Input: byte 0 picks the network (bits 0-2) and obfuscation
 * (bit 3); bytes 1-8 are the xor key; then files, each a 1-byte tag (bit 7:
 * rev, bits 0-2: file number), a u32 LE length (clamped to what is left)
 * and its bytes; at most 16 files. Checks: counts add up, every entry is
 * found by hash, heights on the best chain are consecutive and linked,
 * every paired undo record lies inside a rev file of that number with a
 * checksum that verifies against the block's parent. Run with a large
 * -max_len (fuzz/fuzz_chain.options). */
#include <blockkit/blockfile.h>
#include <blockkit/chain.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9) return 0;
    bk_network net = (bk_network)((data[0] & 7) % BK_NET_COUNT_);
    const uint8_t *key = (data[0] & 8) ? data + 1 : NULL;
    bk_blockfile blk[MAX_FILES], rev[MAX_FILES];
    size_t n_blk = 0, n_rev = 0, pos = 9;
    while (pos + 5 <= size && n_blk + n_rev < MAX_FILES) {
        uint8_t tag = data[pos];
        uint32_t len = (uint32_t)data[pos + 1] | (uint32_t)data[pos + 2] << 8 | (uint32_t)data[pos + 3] << 16 |
                       (uint32_t)data[pos + 4] << 24;
        pos += 5;
        if (len > size - pos) len = (uint32_t)(size - pos);
        int is_rev = tag >> 7;
        bk_blockfile *f = is_rev ? &rev[n_rev++] : &blk[n_blk++];
        bk_blockfile_init_mem(f, data + pos, len, is_rev ? BK_FILE_REV : BK_FILE_BLK, net, key);
        f->number = tag & 7;
        pos += len;
    }
    bk_chain c;
    bk_chain_opts o;
    memset(&o, 0, sizeof o);
    if (bk_chain_build_files_opts(&c, net, blk, n_blk, rev, n_rev, &o, NULL, NULL) != BK_OK) return 0;
    if (c.n_undo_paired + c.n_undo_unpaired != c.n_undo_records) abort();
    if (c.n_entries + c.n_duplicates + c.n_bad_records != c.n_records) abort();
    uint64_t paired = 0, orphans = 0;
    for (size_t i = 0; i < c.n_entries; i++) {
        const bk_chain_entry *e = &c.entries[i];
        if (bk_chain_find(&c, e->hash) != e) abort();
        if (e->height < 0) orphans++;
        if (e->active && bk_chain_at_height(&c, e->height) != e) abort();
        if (e->active && e->next != BK_CHAIN_NONE && c.entries[e->next].height != e->height + 1) abort();
        if (!e->has_undo) continue;
        paired++;
        /* The record lies in a rev image of that number and verifies. */
        const bk_blockfile *rf = NULL;
        int ok = 0;
        for (size_t k = 0; k < n_rev && !ok; k++) {
            if (rev[k].number != e->undo_file) continue;
            rf = &rev[k];
            uint8_t *buf = malloc(e->undo_size ? e->undo_size : 1);
            const uint8_t *bytes;
            uint8_t ck[32];
            if (buf && bk_blockfile_bytes(rf, e->undo_offset, e->undo_size, buf, e->undo_size, &bytes, NULL) == BK_OK &&
                bk_blockfile_copy(rf, e->undo_offset + e->undo_size, ck, 32, NULL) == BK_OK &&
                bk_undo_checksum_verify(bytes, e->undo_size, e->prev_hash, ck, NULL) == BK_OK)
                ok = 1;
            free(buf);
        }
        if (!rf || !ok) abort();
    }
    if (paired != c.n_undo_paired || orphans != c.n_orphans) abort();
    if (c.tip != BK_CHAIN_NONE && c.n_active != (size_t)(c.entries[c.tip].height - c.base_height) + 1) abort();
    bk_chain_free(&c);
    return 0;
}
