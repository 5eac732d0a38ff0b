/* Block files: record iteration over Core's framing, xor.dat obfuscation by
 * absolute offset, how files end, rev checksums, blocks directories. */
#include <blockkit/blockfile.h>
#include <blockkit/sha256.h>
#include <blockkit/stream.h>

#include <unistd.h>

#include "check.h"
#include "blkdir_util.h"

static void tohex_rev(const uint8_t h[32], char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", h[31 - i]);
}

static void tohex(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static const char *SAMPLE_HASHES[3] = {
    "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8",
    "000000000000000012ea0ca9579299ec120e3f57e7c309216884872592b29970",
    "000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1",
};

/* The reassembled sample files are byte-identical to the shared vectors
 * (SHA-256 values of SOURCES.md §7). */
static void test_sample_files_match_shared_vectors(void)
{
    tbuf blk = {0}, rev = {0};
    sample_blocksdir_files(&blk, &rev);
    uint8_t h[32];
    char hx[65];
    bk_sha256(h, blk.p, blk.n);
    tohex(h, 32, hx);
    CHECK_EQ_STR(hx, "355a7a6e05ec984d06f96b6c75598d93a13db3fc95bb4c7b636ed0ad639e3878");
    bk_sha256(h, rev.p, rev.n);
    tohex(h, 32, hx);
    CHECK_EQ_STR(hx, "4bb9b1442cfc831ac41d5236d922db0d9e98dcb060409bb0a0bd043aefe90fb5");
    size_t klen;
    uint8_t *key = check_read_file("blkfiles/sample_xor.dat", &klen);
    CHECK_EQ_INT(klen, 8);
    xor_apply(blk.p, blk.n, key);
    xor_apply(rev.p, rev.n, key);
    bk_sha256(h, blk.p, blk.n);
    tohex(h, 32, hx);
    CHECK_EQ_STR(hx, "2a2b87dc76ccd537907f119ce4f569a4995e6839109d9191a8e650c8771b8851");
    bk_sha256(h, rev.p, rev.n);
    tohex(h, 32, hx);
    CHECK_EQ_STR(hx, "9990fd77c6ab50dd72f1da5f84ff5f490cde6f92051dc517fcf30394d624380e");
    free(key);
    free(blk.p);
    free(rev.p);
}

/* Both sample directories (plain with an all-zero xor.dat, and obfuscated)
 * give the same three blocks and verified undo records. */
static void check_sample_dir(const char *dir, int want_xored)
{
    bk_blocksdir d;
    bk_error err;
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
    CHECK_EQ_INT(d.xored, want_xored);
    CHECK_EQ_INT(d.n_blk, 1);
    CHECK_EQ_INT(d.n_rev, 1);
    bk_blockfile bf, rf;
    CHECK_EQ_INT(bk_blocksdir_open_file(&d, BK_FILE_BLK, 0, &bf, &err), BK_OK);
    CHECK_EQ_INT(bk_blocksdir_open_file(&d, BK_FILE_REV, 0, &rf, &err), BK_OK);
    bk_blockfile_advise(&bf, BK_ACCESS_RANDOM);      /* hints only: */
    bk_blockfile_advise(&rf, BK_ACCESS_SEQUENTIAL);  /* contents unchanged */
    bk_record_iter it;
    bk_record rec;
    uint8_t prev[3][32];
    int n = 0;
    static uint8_t buf[1600000];
    bk_record_iter_init(&it, &bf);
    while (bk_record_next(&it, &rec)) {
        const uint8_t *bytes;
        CHECK_EQ_INT(bk_blockfile_bytes(&bf, rec.offset, rec.size, buf, sizeof buf, &bytes, &err), BK_OK);
        /* Opened files are read (pread) into the caller's buffer, never
         * mapped (03-mmap-sigbus-when-core-truncates). */
        CHECK(bytes == buf);
        uint8_t h[32];
        char hx[65];
        bk_sha256d(h, bytes, 80);
        tohex_rev(h, hx);
        if (n < 3) {
            CHECK_EQ_STR(hx, SAMPLE_HASHES[n]);
            memcpy(prev[n], bytes + 4, 32);
        }
        n++;
    }
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(it.end, BK_END_CLEAN);
    CHECK_EQ_INT(it.end_offset, bf.len);
    n = 0;
    bk_record_iter_init(&it, &rf);
    while (bk_record_next(&it, &rec)) {
        const uint8_t *bytes;
        uint8_t ck[32];
        CHECK_EQ_INT(bk_blockfile_bytes(&rf, rec.offset, rec.size, buf, sizeof buf, &bytes, &err), BK_OK);
        CHECK_EQ_INT(bk_blockfile_copy(&rf, rec.offset + rec.size, ck, 32, &err), BK_OK);
        if (n < 3) {
            CHECK_EQ_INT(bk_undo_checksum_verify(bytes, rec.size, prev[n], ck, &err), BK_OK);
            /* The checksum commits to the parent: another block's parent fails. */
            CHECK_EQ_INT(bk_undo_checksum_verify(bytes, rec.size, prev[(n + 1) % 3], ck, &err), BK_ERR_CHECKSUM);
        }
        n++;
    }
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(it.end, BK_END_CLEAN);
    /* Obfuscated images refuse a buffer that is too small. */
    const uint8_t *bytes;
    CHECK_EQ_INT(bk_blockfile_bytes(&bf, 8, 100, buf, 99, &bytes, &err), BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_blockfile_bytes(&bf, bf.len - 10, 11, buf, sizeof buf, &bytes, &err), BK_ERR_TRUNCATED);
    bk_blockfile_close(&bf);
    bk_blockfile_close(&rf);
    bk_blocksdir_close(&d);
}

static void test_sample_blocksdirs_plain_and_xor(void)
{
    char dir[512], sub[600];
    make_tmpdir(dir, sizeof dir);
    tbuf blk = {0}, rev = {0};
    sample_blocksdir_files(&blk, &rev);
    static const uint8_t zero[8] = {0};
    snprintf(sub, sizeof sub, "%s/plain", dir);
    mkdir(sub, 0700);
    write_file(sub, "blk00000.dat", blk.p, blk.n);
    write_file(sub, "rev00000.dat", rev.p, rev.n);
    write_file(sub, "xor.dat", zero, 8);
    write_file(sub, "blk00000.dat.bak", blk.p, 10); /* not a block file name */
    check_sample_dir(sub, 0);
    size_t klen;
    uint8_t *key = check_read_file("blkfiles/sample_xor.dat", &klen);
    xor_apply(blk.p, blk.n, key);
    xor_apply(rev.p, rev.n, key);
    snprintf(sub, sizeof sub, "%s/xor", dir);
    mkdir(sub, 0700);
    write_file(sub, "blk00000.dat", blk.p, blk.n);
    write_file(sub, "rev00000.dat", rev.p, rev.n);
    write_file(sub, "xor.dat", key, 8);
    check_sample_dir(sub, 1);
    free(key);
    free(blk.p);
    free(rev.p);
    remove_tree(dir);
}

static void test_mainnet_blocks_1_255_records(void)
{
    size_t len;
    uint8_t *data = check_read_file("blkfiles/mainnet_blocks_1-255.blk", &len);
    bk_blockfile f;
    bk_blockfile_init_mem(&f, data, len, BK_FILE_BLK, BK_NET_MAIN, NULL);
    bk_record_iter it;
    bk_record rec;
    bk_record_iter_init(&it, &f);
    int n = 0;
    uint8_t prev_hash[32] = {0};
    int linked = 1;
    while (bk_record_next(&it, &rec)) {
        uint8_t h[32];
        bk_sha256d(h, data + rec.offset, 80);
        if (n > 0 && memcmp(data + rec.offset + 4, prev_hash, 32) != 0) linked = 0;
        if (n == 0) {
            char hx[65];
            tohex_rev(h, hx);
            CHECK_EQ_STR(hx, "00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048");
        }
        memcpy(prev_hash, h, 32);
        n++;
    }
    CHECK_EQ_INT(n, 255);
    CHECK(linked);
    CHECK_EQ_INT(it.end, BK_END_CLEAN);
    /* The wrong network's magic: nothing, bad magic at 0. */
    bk_blockfile_init_mem(&f, data, len, BK_FILE_BLK, BK_NET_TESTNET3, NULL);
    bk_record_iter_init(&it, &f);
    CHECK_EQ_INT(bk_record_next(&it, &rec), 0);
    CHECK_EQ_INT(it.end, BK_END_BAD_MAGIC);
    CHECK_EQ_INT(it.end_offset, 0);
    free(data);
}

/* Build an image of records followed by a tail, iterate, report the end. */
static void check_end(const uint8_t *img, size_t n, const uint8_t *key, int want_records, bk_file_end want_end,
                      uint64_t want_offset)
{
    bk_blockfile f;
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, img, n);
    if (key) xor_apply(copy, n, key);
    bk_blockfile_init_mem(&f, copy, n, BK_FILE_BLK, BK_NET_MAIN, key);
    bk_record_iter it;
    bk_record rec;
    bk_record_iter_init(&it, &f);
    int got = 0;
    while (bk_record_next(&it, &rec)) got++;
    CHECK_EQ_INT(got, want_records);
    CHECK_EQ_INT(it.end, want_end);
    CHECK_EQ_INT(it.end_offset, want_offset);
    CHECK_EQ_INT(bk_record_next(&it, &rec), 0); /* stays finished */
    free(copy);
}

static void test_file_endings(void)
{
    static const uint8_t key[8] = {0xf2, 0xb6, 0xa0, 0xc5, 0xd4, 0xe3, 0x98, 0x71};
    uint8_t payload[100];
    for (int i = 0; i < 100; i++) payload[i] = (uint8_t)(i * 7 + 1);
    for (int k = 0; k < 2; k++) {
        const uint8_t *kk = k ? key : NULL;
        tbuf b = {0};
        tbuf_record(&b, MAINNET_MAGIC, payload, 100);
        tbuf_record(&b, MAINNET_MAGIC, payload, 50);
        size_t clean = b.n; /* 166 */
        check_end(b.p, clean, kk, 2, BK_END_CLEAN, clean);
        check_end(b.p, 0, kk, 0, BK_END_CLEAN, 0);
        /* Half-written last record: header says 100, 40 bytes follow. */
        tbuf_record(&b, MAINNET_MAGIC, payload, 100);
        check_end(b.p, clean + 48, kk, 2, BK_END_TRUNCATED, clean);
        /* Only part of the 8-byte header. */
        check_end(b.p, clean + 6, kk, 2, BK_END_TRUNCATED, clean);
        check_end(b.p, clean + 3, kk, 2, BK_END_TRUNCATED, clean);
        /* Bad magic with data after it. */
        b.p[clean] ^= 0x01;
        check_end(b.p, b.n, kk, 2, BK_END_BAD_MAGIC, clean);
        free(b.p);
    }
    /* Zero tail: pre-allocated space is zero on disk, whatever the key. */
    tbuf b = {0};
    tbuf_record(&b, MAINNET_MAGIC, payload, 100);
    size_t clean = b.n;
    uint8_t zeros[4096] = {0};
    tbuf_put(&b, zeros, sizeof zeros);
    uint8_t *img = malloc(b.n);
    memcpy(img, b.p, b.n);
    bk_blockfile f;
    bk_record_iter it;
    bk_record rec;
    for (int k = 0; k < 2; k++) {
        memcpy(img, b.p, b.n);
        if (k) xor_apply(img, clean, key); /* records obfuscated, tail raw zeros */
        bk_blockfile_init_mem(&f, img, b.n, BK_FILE_BLK, BK_NET_MAIN, k ? key : NULL);
        bk_record_iter_init(&it, &f);
        CHECK_EQ_INT(bk_record_next(&it, &rec), 1);
        CHECK_EQ_INT(bk_record_next(&it, &rec), 0);
        CHECK_EQ_INT(it.end, BK_END_ZERO_TAIL);
        CHECK_EQ_INT(it.end_offset, clean);
    }
    /* A zero tail written through the key (zero after de-obfuscation). */
    memcpy(img, b.p, b.n);
    xor_apply(img, b.n, key);
    bk_blockfile_init_mem(&f, img, b.n, BK_FILE_BLK, BK_NET_MAIN, key);
    bk_record_iter_init(&it, &f);
    while (bk_record_next(&it, &rec)) {}
    CHECK_EQ_INT(it.end, BK_END_ZERO_TAIL);
    /* One stray non-zero byte in the tail makes it a bad magic. */
    memcpy(img, b.p, b.n);
    img[b.n - 1] = 1;
    bk_blockfile_init_mem(&f, img, b.n, BK_FILE_BLK, BK_NET_MAIN, NULL);
    bk_record_iter_init(&it, &f);
    while (bk_record_next(&it, &rec)) {}
    CHECK_EQ_INT(it.end, BK_END_BAD_MAGIC);
    CHECK_EQ_INT(it.end_offset, clean);
    CHECK_EQ_STR(bk_file_end_str(BK_END_ZERO_TAIL), "zero tail");
    free(img);
    free(b.p);
}

/* The key applies by absolute file offset, including headers, whatever the
 * alignment of the fetched range. */
static void test_xor_by_absolute_offset(void)
{
    static const uint8_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t plain[300], stored[300], out[300];
    for (int i = 0; i < 300; i++) plain[i] = (uint8_t)(i * 13);
    memcpy(stored, plain, 300);
    xor_apply(stored, 300, key);
    bk_blockfile f;
    bk_blockfile_init_mem(&f, stored, 300, BK_FILE_BLK, BK_NET_MAIN, key);
    CHECK(f.xored);
    for (uint64_t off = 0; off < 20; off++)
        for (size_t len = 0; len < 40; len += 3) {
            CHECK_EQ_INT(bk_blockfile_copy(&f, off, out, len, NULL), BK_OK);
            CHECK(memcmp(out, plain + off, len) == 0);
        }
    static const uint8_t zero[8] = {0};
    bk_blockfile_init_mem(&f, plain, 300, BK_FILE_BLK, BK_NET_MAIN, zero);
    CHECK(!f.xored); /* an all-zero key is the identity */
    const uint8_t *p;
    CHECK_EQ_INT(bk_blockfile_bytes(&f, 7, 100, NULL, 0, &p, NULL), BK_OK);
    CHECK(p == plain + 7);
}

/* Rev files: the 32-byte checksum belongs to the record. */
static void test_rev_record_framing(void)
{
    size_t n;
    uint8_t *rec = check_read_file("undo/rev_record_block277647.dat", &n);
    bk_blockfile f;
    bk_record_iter it;
    bk_record r;
    bk_blockfile_init_mem(&f, rec, n, BK_FILE_REV, BK_NET_MAIN, NULL);
    bk_record_iter_init(&it, &f);
    CHECK_EQ_INT(bk_record_next(&it, &r), 1);
    CHECK_EQ_INT(r.offset, 8);
    CHECK_EQ_INT(r.size, n - 40);
    CHECK_EQ_INT(bk_record_next(&it, &r), 0);
    CHECK_EQ_INT(it.end, BK_END_CLEAN);
    /* Without its checksum the record is truncated. */
    bk_blockfile_init_mem(&f, rec, n - 1, BK_FILE_REV, BK_NET_MAIN, NULL);
    bk_record_iter_init(&it, &f);
    CHECK_EQ_INT(bk_record_next(&it, &r), 0);
    CHECK_EQ_INT(it.end, BK_END_TRUNCATED);
    free(rec);
}

static void test_blocksdir_errors(void)
{
    bk_blocksdir d;
    bk_error err;
    CHECK_EQ_INT(bk_blocksdir_open(&d, "/nonexistent/blockkit/blocks", BK_NET_MAIN, NULL, &err), BK_ERR_IO);
    CHECK(strstr(err.msg, "/nonexistent/blockkit/blocks") != NULL);
    char dir[512];
    make_tmpdir(dir, sizeof dir);
    uint8_t seven[7] = {1, 2, 3, 4, 5, 6, 7};
    write_file(dir, "xor.dat", seven, 7);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_ERR_INVALID);
    uint8_t nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    write_file(dir, "xor.dat", nine, 9);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_ERR_INVALID);
    write_file(dir, "xor.dat", nine, 8);
    write_file(dir, "blk00002.dat", nine, 0);
    write_file(dir, "blk00010.dat", nine, 0);
    write_file(dir, "blk1.dat", nine, 0);
    write_file(dir, "blk123456.dat", nine, 0);  /* Core's %05u past 99999 */
    write_file(dir, "blk012345.dat", nine, 0);  /* not a name Core writes */
    write_file(dir, "blk0000a.dat", nine, 0);
    write_file(dir, "rev00002.dat", nine, 0);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
    CHECK_EQ_INT(d.n_blk, 3);
    CHECK_EQ_INT(d.blk[0], 2);
    CHECK_EQ_INT(d.blk[1], 10);
    CHECK_EQ_INT(d.blk[2], 123456);
    CHECK_EQ_INT(d.n_rev, 1);
    CHECK(d.xored);
    CHECK(bk_blocksdir_has(&d, BK_FILE_BLK, 10));
    CHECK(!bk_blocksdir_has(&d, BK_FILE_REV, 10));
    bk_blockfile f;
    CHECK_EQ_INT(bk_blocksdir_open_file(&d, BK_FILE_BLK, 2, &f, &err), BK_OK); /* empty file */
    CHECK_EQ_INT(f.len, 0);
    bk_blockfile_close(&f);
    CHECK_EQ_INT(bk_blocksdir_open_file(&d, BK_FILE_BLK, 123456, &f, &err), BK_OK);
    bk_blockfile_close(&f);
    CHECK_EQ_INT(bk_blocksdir_open_file(&d, BK_FILE_BLK, 3, &f, &err), BK_ERR_IO);
    CHECK(strstr(err.msg, "blk00003.dat") != NULL);
    bk_blocksdir_close(&d);
    remove_tree(dir);
}

/* One pass over a file's records through an iterator with a window of
 * cap bytes (0: none): a digest of every record's framing, its first 89
 * bytes by bk_record_iter_copy, all of its bytes (and a rev record's
 * checksum) by bk_record_iter_bytes, and how the file ended. shrink_to,
 * when non-zero, truncates the file to that length after the first record
 * (a node pruning or rewriting it). */
static void window_pass(const char *path, const uint8_t key[8], size_t cap, uint64_t shrink_to, uint8_t digest[32],
                        bk_file_end *end, uint64_t *end_offset, uint64_t *n_records)
{
    bk_blockfile f;
    bk_error err;
    int rev = strstr(path, "/rev") != NULL;
    CHECK_EQ_INT(bk_blockfile_open(&f, path, rev ? BK_FILE_REV : BK_FILE_BLK, 0, BK_NET_MAIN, key, NULL, &err), BK_OK);
    static uint8_t win[1 << 20], buf[1600000];
    bk_record_iter it;
    bk_record_iter_init(&it, &f);
    if (cap) bk_record_iter_window(&it, win, cap);
    bk_sha256_ctx h;
    bk_sha256_init(&h);
    bk_record rec;
    *n_records = 0;
    while (bk_record_next(&it, &rec)) {
        bk_sha256_update(&h, (const uint8_t *)&rec, sizeof rec);
        uint8_t head[89];
        size_t n = rec.size < sizeof head ? rec.size : sizeof head;
        bk_status st = bk_record_iter_copy(&it, rec.offset, head, n, &err);
        bk_sha256_update(&h, (const uint8_t *)&st, sizeof st);
        if (st == BK_OK) bk_sha256_update(&h, head, n);
        if (rev) {
            uint8_t ck[32];
            st = bk_record_iter_copy(&it, rec.offset + rec.size, ck, 32, &err);
            bk_sha256_update(&h, (const uint8_t *)&st, sizeof st);
            if (st == BK_OK) bk_sha256_update(&h, ck, 32);
        }
        const uint8_t *bytes = NULL;
        st = bk_record_iter_bytes(&it, rec.offset, rec.size, buf, sizeof buf, &bytes, &err);
        bk_sha256_update(&h, (const uint8_t *)&st, sizeof st);
        if (st == BK_OK) {
            bk_sha256_update(&h, bytes, rec.size);
            /* From the window when it fits in half of it, else the caller's buffer. */
            int in_win = bytes >= win && bytes < win + sizeof win;
            CHECK_EQ_INT(in_win, cap && rec.size <= cap / 2 && bytes != buf);
        }
        if ((*n_records)++ == 0 && shrink_to) CHECK_EQ_INT(truncate(path, (off_t)shrink_to), 0);
    }
    bk_sha256_final(&h, digest);
    *end = it.end;
    *end_offset = it.end_offset;
    bk_blockfile_close(&f);
}

/* The read window changes nothing but the number of reads: the same
 * records, bytes, checksums and ending with windows of 4 KiB (smaller than
 * most records: every read bypasses or refills it), odd sizes and 1 MiB,
 * plain and obfuscated, and when the file shrinks under the iteration
 * beyond what the first window held (the later reads see the shrink). */
static void test_record_window(void)
{
    char dir[512], path[600];
    make_tmpdir(dir, sizeof dir);
    tbuf blk = {0}, rev = {0};
    sample_blocksdir_files(&blk, &rev);
    size_t klen;
    uint8_t *key = check_read_file("blkfiles/sample_xor.dat", &klen);
    static const uint8_t zero[8] = {0};
    static const size_t caps[] = {4096, 5003, 65536, 300000, 1 << 20};
    uint8_t whole[2][2][32];
    for (int obf = 0; obf < 2; obf++) {
        if (obf) {
            xor_apply(blk.p, blk.n, key);
            xor_apply(rev.p, rev.n, key);
        }
        for (int r = 0; r < 2; r++) {
            const tbuf *img = r ? &rev : &blk;
            for (int shrink = 0; shrink < 2; shrink++) {
                /* Shrunk into the third record. */
                uint64_t to = shrink ? img->n - 1000 : 0;
                uint8_t want[32], got[32];
                bk_file_end e0, e1;
                uint64_t o0, o1, n0, n1;
                snprintf(path, sizeof path, "%s/%s00000.dat", dir, r ? "rev" : "blk");
                write_file(dir, r ? "rev00000.dat" : "blk00000.dat", img->p, img->n);
                window_pass(path, obf ? key : zero, 0, to, want, &e0, &o0, &n0);
                /* The framing was read at open: three records, a clean end;
                 * the shrink shows as the third record's bytes failing. */
                CHECK_EQ_INT(n0, 3);
                CHECK_EQ_INT(e0, BK_END_CLEAN);
                if (shrink) CHECK(memcmp(want, whole[obf][r], 32) != 0);
                else memcpy(whole[obf][r], want, 32);
                for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
                    /* Bytes already in the window are served from it, as a
                     * read at that moment would have: a shrink is seen alike
                     * only past what the first window held. */
                    if (shrink && 8 + caps[k] > to) continue;
                    write_file(dir, r ? "rev00000.dat" : "blk00000.dat", img->p, img->n);
                    window_pass(path, obf ? key : zero, caps[k], to, got, &e1, &o1, &n1);
                    CHECK(memcmp(want, got, 32) == 0);
                    CHECK_EQ_INT(e1, e0);
                    CHECK_EQ_INT(o1, o0);
                    CHECK_EQ_INT(n1, n0);
                }
            }
        }
    }
    free(key);
    free(blk.p);
    free(rev.p);
    remove_tree(dir);
}

int main(void)
{
    RUN(test_sample_files_match_shared_vectors);
    RUN(test_sample_blocksdirs_plain_and_xor);
    RUN(test_mainnet_blocks_1_255_records);
    RUN(test_file_endings);
    RUN(test_xor_by_absolute_offset);
    RUN(test_rev_record_framing);
    RUN(test_blocksdir_errors);
    RUN(test_record_window);
    return check_finish();
}
