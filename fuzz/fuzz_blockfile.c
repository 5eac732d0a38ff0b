/* Fuzz block file images: byte 0 picks blk/rev, obfuscation and network,
 * bytes 1-8 are the xor key, the rest is the file image. Iterate the
 * records, fetch their bytes, check rev checksums, and build a chain from
 * the image as a blk file (headers, links, work, mediantime). The same
 * image as an opened file (a memfd, read with pread) through a read window
 * of a size from the key bytes gives the same records, bytes and ending as
 * without one. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <blockkit/blockfile.h>
#include <blockkit/chain.h>
#include <blockkit/sha256.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every record's framing, bytes and (rev) checksum of an opened file
 * through a window of cap bytes (0: none), hashed; the ending too. */
static void file_pass(const char *path, bk_file_kind kind, bk_network net, const uint8_t *key, size_t cap,
                      uint8_t out[32])
{
    bk_blockfile f;
    memset(out, 0, 32);
    if (bk_blockfile_open(&f, path, kind, 0, net, key, NULL, NULL) != BK_OK) return;
    uint8_t *win = cap ? malloc(cap) : NULL;
    bk_record_iter it;
    bk_record rec;
    bk_record_iter_init(&it, &f);
    if (win) bk_record_iter_window(&it, win, cap);
    bk_sha256_ctx h;
    bk_sha256_init(&h);
    while (bk_record_next(&it, &rec)) {
        bk_sha256_update(&h, (const uint8_t *)&rec, sizeof rec);
        uint8_t *buf = malloc(rec.size ? rec.size : 1);
        const uint8_t *bytes;
        if (!buf) abort();
        uint8_t ck[32];
        if (kind == BK_FILE_REV && bk_record_iter_copy(&it, rec.offset + rec.size, ck, 32, NULL) == BK_OK)
            bk_sha256_update(&h, ck, 32);
        if (bk_record_iter_bytes(&it, rec.offset, rec.size, buf, rec.size, &bytes, NULL) != BK_OK) abort();
        bk_sha256_update(&h, bytes, rec.size);
        free(buf);
    }
    bk_sha256_update(&h, (const uint8_t *)&it.end, sizeof it.end);
    bk_sha256_update(&h, (const uint8_t *)&it.end_offset, sizeof it.end_offset);
    bk_sha256_final(&h, out);
    free(win);
    bk_blockfile_close(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9) return 0;
    uint8_t sel = data[0];
    const uint8_t *key = (sel & 2) ? data + 1 : NULL;
    bk_file_kind kind = (sel & 1) ? BK_FILE_REV : BK_FILE_BLK;
    bk_network net = (bk_network)((sel >> 2) % BK_NET_COUNT_);
    const uint8_t *img = data + 9;
    size_t len = size - 9;
    bk_blockfile f;
    bk_blockfile_init_mem(&f, img, len, kind, net, key);
    bk_record_iter it;
    bk_record rec;
    bk_record_iter_init(&it, &f);
    uint64_t last_end = 0;
    while (bk_record_next(&it, &rec)) {
        if (rec.offset < last_end || rec.offset + rec.size > len) abort();
        uint8_t *buf = malloc(rec.size ? rec.size : 1);
        if (!buf) return 0;
        const uint8_t *bytes;
        if (bk_blockfile_bytes(&f, rec.offset, rec.size, buf, rec.size, &bytes, NULL) != BK_OK) abort();
        if (kind == BK_FILE_REV) {
            uint8_t ck[32];
            static const uint8_t parent[32];
            if (bk_blockfile_copy(&f, rec.offset + rec.size, ck, 32, NULL) != BK_OK) abort();
            bk_status vs = bk_undo_checksum_verify(bytes, rec.size, parent, ck, NULL); /* either answer */
            (void)vs;
        }
        free(buf);
        last_end = rec.offset + rec.size;
    }
    if (it.end == BK_END_NONE || it.end_offset > len) abort();
    if (it.end == BK_END_CLEAN && it.end_offset != len) abort();

    if (sel & 0x80) {
        int fd = memfd_create("fuzz_blockfile", 0);
        if (fd >= 0) {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            if (write(fd, img, len) == (ssize_t)len) {
                size_t cap = 4096 + (size_t)data[1] * 37 + data[2];
                uint8_t a[32], b[32];
                file_pass(path, kind, net, key, 0, a);
                file_pass(path, kind, net, key, cap, b);
                if (memcmp(a, b, 32) != 0) abort();
            }
            close(fd);
        }
    }

    /* The same image as a blk file in a chain, and as its own rev file. */
    bk_blockfile blk, rev;
    bk_blockfile_init_mem(&blk, img, len, BK_FILE_BLK, net, key);
    bk_blockfile_init_mem(&rev, img, len, BK_FILE_REV, net, key);
    bk_chain c;
    if (bk_chain_build_files(&c, net, &blk, 1, &rev, 1, NULL, NULL) != BK_OK) return 0;
    for (size_t i = 0; i < c.n_entries; i++) {
        bk_chain_context ctx;
        const bk_chain_entry *e = &c.entries[i];
        if (bk_chain_find(&c, e->hash) != e) abort();
        if (bk_chain_context_fill(&c, e, &ctx, NULL) == BK_OK) {
            if (e->active && bk_chain_at_height(&c, e->height) != e) abort();
        } else if (e->height >= 0) {
            abort();
        }
    }
    bk_chain_free(&c);
    return 0;
}
