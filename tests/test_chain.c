/* Best chain: chain work (GetBlockProof), heights, median time past, stale
 * branches, duplicates, orphans, out-of-order and obfuscated files, undo
 * pairing, chain context, and the `blockkit chain` command. */
#include <blockkit/chain.h>
#include <blockkit/undo.h>

#include <sys/wait.h>

#include "check.h"
#include "blkdir_util.h"

static void hex_be(const uint8_t *p, char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static void hex_rev(const uint8_t *p, char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", p[31 - i]);
}

/* Expected values: floor(2^256 / (target + 1)) computed independently. */
static void test_block_proof(void)
{
    static const struct { uint32_t bits; const char *work; } v[] = {
        {0x1d00ffff, "0000000000000000000000000000000000000000000000000000000100010001"},
        {0x207fffff, "0000000000000000000000000000000000000000000000000000000000000002"},
        {0x1b0404cb, "00000000000000000000000000000000000000000000000000003fb3ab764c00"},
        {0x17034219, "000000000000000000000000000000000000000000004e9235f043634662e0cb"},
        {0x1e0377ae, "000000000000000000000000000000000000000000000000000000000049d414"},
        {0x03123456, "00000e0fff97690309e2f96677e115e465ed2d49ebff2a34c636177dcdb14856"},
        /* SetCompact: negative, overflow and zero targets give zero work. */
        {0x04923456, "0000000000000000000000000000000000000000000000000000000000000000"},
        {0xff123456, "0000000000000000000000000000000000000000000000000000000000000000"},
        {0x22010000, "0000000000000000000000000000000000000000000000000000000000000000"},
        {0x1d000000, "0000000000000000000000000000000000000000000000000000000000000000"},
        {0x01003456, "0000000000000000000000000000000000000000000000000000000000000000"},
        /* The largest target that does not overflow: 0xff << 248. */
        {0x220000ff, "0000000000000000000000000000000000000000000000000000000000000001"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t w[32];
        char h[65];
        bk_block_proof(v[i].bits, w);
        hex_be(w, h);
        CHECK_EQ_STR(h, v[i].work);
    }
}

/* ---- mainnet blocks 1..255 ---- */

typedef struct blocks {
    uint8_t *file;
    size_t len;
    const uint8_t *b[256]; /* b[h] = block h bytes, h = 1..255 */
    uint32_t n[256];
    uint8_t hash[256][32];
} blocks;

static void load_blocks(blocks *bs)
{
    bs->file = check_read_file("blkfiles/mainnet_blocks_1-255.blk", &bs->len);
    size_t pos = 0;
    for (int h = 1; h <= 255; h++) {
        uint32_t n = bk_load_le32(bs->file + pos + 4);
        bs->b[h] = bs->file + pos + 8;
        bs->n[h] = n;
        bk_sha256d(bs->hash[h], bs->b[h], 80);
        pos += 8 + n;
    }
}

static void put_block(tbuf *t, const uint8_t *b, size_t n) { tbuf_record(t, MAINNET_MAGIC, b, n); }

/* A copy of block bytes with another nonce (a different hash, same work:
 * proof of work is not checked) and optionally another parent. */
static uint8_t *variant(const blocks *bs, int h, uint32_t nonce_xor, const uint8_t *parent, uint8_t hash_out[32])
{
    uint8_t *v = malloc(bs->n[h]);
    memcpy(v, bs->b[h], bs->n[h]);
    v[76] ^= (uint8_t)nonce_xor;
    v[77] ^= (uint8_t)(nonce_xor >> 8);
    if (parent) memcpy(v + 4, parent, 32);
    bk_sha256d(hash_out, v, 80);
    return v;
}

/* Core: GetMedianTimePast, written here from the block times directly. */
static int64_t ref_mtp(const blocks *bs, int h)
{
    int64_t t[11];
    int n = 0;
    for (int i = h; i >= 1 && n < 11; i--) t[n++] = bk_load_le32(bs->b[i] + 68);
    if (n < 11) t[n++] = 1231006505; /* mainnet genesis nTime */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) { int64_t x = t[j]; t[j] = t[j - 1]; t[j - 1] = x; }
    return t[n / 2];
}

static void check_main_chain(const bk_chain *c, const blocks *bs, int tip_height)
{
    CHECK_EQ_INT(c->base_height, 1);
    CHECK_EQ_INT(c->n_active, tip_height);
    int bad = 0;
    for (int h = 1; h <= 255 && h <= tip_height; h++) {
        const bk_chain_entry *e = bk_chain_at_height(c, h);
        if (!e || memcmp(e->hash, bs->hash[h], 32) != 0 || e->height != h || e->mediantime != ref_mtp(bs, h)) {
            bad++;
            continue;
        }
        /* Every block has nBits 1d00ffff: chainwork = (h + 1) * 0x100010001. */
        uint8_t want[32] = {0};
        uint64_t w = (uint64_t)(h + 1) * 0x100010001ULL;
        for (int i = 0; i < 8; i++) want[31 - i] = (uint8_t)(w >> (8 * i));
        if (memcmp(e->chainwork, want, 32) != 0) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(bk_chain_at_height(c, 0) == NULL);
}

static bk_status build_from_image(bk_chain *c, const uint8_t *img, size_t n, bk_network net)
{
    bk_blockfile f;
    bk_blockfile_init_mem(&f, img, n, BK_FILE_BLK, net, NULL);
    return bk_chain_build_files(c, net, &f, 1, NULL, 0, NULL, NULL);
}

/* btcd's file has no genesis record: block 1's parent is the mainnet
 * genesis, which is implied (height 1, genesis work and time counted). */
static void test_mainnet_blocks_without_genesis(void)
{
    blocks bs;
    load_blocks(&bs);
    bk_chain c;
    CHECK_EQ_INT(build_from_image(&c, bs.file, bs.len, BK_NET_MAIN), BK_OK);
    CHECK_EQ_INT(c.n_entries, 255);
    check_main_chain(&c, &bs, 255);
    char h[65];
    hex_be(bk_chain_at_height(&c, 1)->chainwork, h);
    CHECK_EQ_STR(h, "0000000000000000000000000000000000000000000000000000000200020002");
    CHECK_EQ_INT(bk_chain_at_height(&c, 1)->mediantime, 1231469665); /* median of genesis and block 1 */
    bk_chain_context ctx;
    CHECK_EQ_INT(bk_chain_context_fill(&c, bk_chain_at_height(&c, 170), &ctx, NULL), BK_OK);
    CHECK_EQ_INT(ctx.height, 170);
    CHECK_EQ_INT(ctx.confirmations, 86);
    CHECK(ctx.has_next);
    CHECK_MEM(ctx.next_hash, bs.hash[171], 32);
    CHECK_EQ_INT(ctx.tip_bits, 0x1d00ffff);
    CHECK_EQ_INT(ctx.network, BK_NET_MAIN);
    CHECK_EQ_INT(bk_chain_context_fill(&c, bk_chain_tip(&c), &ctx, NULL), BK_OK);
    CHECK_EQ_INT(ctx.confirmations, 1);
    CHECK(!ctx.has_next);
    bk_chain_free(&c);
    /* On another network the parent is unknown: all orphans, no chain. */
    uint8_t *copy = malloc(bs.len);
    memcpy(copy, bs.file, bs.len);
    for (size_t pos = 0; pos < bs.len; pos += 8 + bk_load_le32(copy + pos + 4)) memcpy(copy + pos, "\x0b\x11\x09\x07", 4);
    CHECK_EQ_INT(build_from_image(&c, copy, bs.len, BK_NET_TESTNET3), BK_OK);
    CHECK_EQ_INT(c.n_entries, 255);
    CHECK_EQ_INT(c.n_orphans, 255);
    CHECK(bk_chain_tip(&c) == NULL);
    CHECK_EQ_INT(bk_chain_context_fill(&c, &c.entries[0], &ctx, NULL), BK_ERR_NOT_FOUND);
    bk_chain_free(&c);
    free(copy);
    free(bs.file);
}

/* A genesis is a block whose prev hash is all zeros (btcd test chain:
 * the real genesis and 4 non-mainnet blocks). */
static void test_genesis_by_zero_prev(void)
{
    size_t n;
    uint8_t *img = check_read_file("blkfiles/btcd_testchain_blk_0_to_4.blk", &n);
    bk_chain c;
    CHECK_EQ_INT(build_from_image(&c, img, n, BK_NET_MAIN), BK_OK);
    CHECK_EQ_INT(c.n_active, 5);
    CHECK_EQ_INT(c.base_height, 0);
    char h[65];
    hex_rev(bk_chain_at_height(&c, 0)->hash, h);
    CHECK_EQ_STR(h, "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f");
    hex_be(bk_chain_at_height(&c, 0)->chainwork, h);
    CHECK_EQ_STR(h, "0000000000000000000000000000000000000000000000000000000100010001");
    CHECK_EQ_INT(bk_chain_at_height(&c, 0)->mediantime, 1231006505);
    hex_rev(bk_chain_at_height(&c, 1)->hash, h);
    CHECK(strncmp(h, "00000000ebe5ec3e", 16) == 0);
    CHECK_EQ_INT(bk_chain_tip(&c)->height, 4);
    bk_chain_free(&c);
    free(img);
}

/* Blocks 1..255 in three files in shuffled order, XOR-obfuscated, with a
 * duplicate, a two-block stale branch, an orphan, a zero tail and a
 * half-written last record. */
static void test_synthetic_blocks_directory(void)
{
    blocks bs;
    load_blocks(&bs);
    static const uint8_t key[8] = {0x5a, 0x01, 0xf0, 0x33, 0x00, 0x9c, 0x42, 0xe7};
    tbuf f0 = {0}, f1 = {0}, f2 = {0};
    for (int h = 171; h <= 255; h++) put_block(&f0, bs.b[h], bs.n[h]);
    size_t f0_records_end = f0.n;
    uint8_t zeros[3000] = {0};
    for (int h = 170; h >= 86; h--) put_block(&f1, bs.b[h], bs.n[h]); /* reversed */
    put_block(&f1, bs.b[50], bs.n[50]);                                 /* duplicate */
    uint8_t s1[32], s2[32], orphan[32], junk[32];
    uint8_t *v1 = variant(&bs, 100, 0x0101, NULL, s1);                 /* sibling of block 100 */
    uint8_t *v2 = variant(&bs, 101, 0x0202, s1, s2);                   /* its child */
    memset(junk, 0x77, 32);
    uint8_t *v3 = variant(&bs, 120, 0x0303, junk, orphan);             /* unknown parent */
    put_block(&f1, v2, bs.n[101]);                                       /* child before parent */
    put_block(&f1, v1, bs.n[100]);
    put_block(&f1, v3, bs.n[120]);
    size_t f1_records_end = f1.n;
    uint8_t hdr[8];
    memcpy(hdr, MAINNET_MAGIC, 4);
    bk_store_le32(hdr + 4, 500);
    tbuf_put(&f1, hdr, 8);
    tbuf_put(&f1, bs.b[1], 100); /* half-written */
    for (int h = 1; h <= 85; h++) put_block(&f2, bs.b[h], bs.n[h]);
    xor_apply(f0.p, f0.n, key);
    tbuf_put(&f0, zeros, sizeof zeros); /* pre-allocated, raw zeros */
    xor_apply(f1.p, f1.n, key);
    xor_apply(f2.p, f2.n, key);

    char dir[512];
    make_tmpdir(dir, sizeof dir);
    write_file(dir, "blk00000.dat", f0.p, f0.n);
    write_file(dir, "blk00001.dat", f1.p, f1.n);
    write_file(dir, "blk00002.dat", f2.p, f2.n);
    write_file(dir, "xor.dat", key, 8);

    bk_blocksdir d;
    bk_chain c;
    bk_error err;
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, &ca.base, &err), BK_OK);
    CHECK_EQ_INT(bk_chain_build(&c, &d, &ca.base, &err), BK_OK);
    check_main_chain(&c, &bs, 255);
    CHECK_EQ_INT(c.n_records, 255 + 4);
    CHECK_EQ_INT(c.n_entries, 258);
    CHECK_EQ_INT(c.n_duplicates, 1);
    CHECK_EQ_INT(c.n_stale, 2);
    CHECK_EQ_INT(c.n_orphans, 1);
    CHECK_EQ_INT(c.n_files, 3);
    CHECK_EQ_INT(c.files[0].end, BK_END_ZERO_TAIL);
    CHECK_EQ_INT(c.files[0].end_offset, f0_records_end);
    CHECK_EQ_INT(c.files[1].end, BK_END_TRUNCATED);
    CHECK_EQ_INT(c.files[1].end_offset, f1_records_end);
    CHECK_EQ_INT(c.files[2].end, BK_END_CLEAN);
    /* Positions: block 1 is the first record of blk00002.dat. */
    const bk_chain_entry *e1 = bk_chain_at_height(&c, 1);
    CHECK_EQ_INT(e1->file, 2);
    CHECK_EQ_INT(e1->offset, 8);
    CHECK_EQ_INT(e1->n_tx, 1);
    CHECK_EQ_INT(bk_chain_at_height(&c, 170)->n_tx, 2);
    /* The stale branch. */
    const bk_chain_entry *st1 = bk_chain_find(&c, s1), *st2 = bk_chain_find(&c, s2);
    CHECK(st1 && st2);
    bk_chain_context ctx;
    CHECK_EQ_INT(bk_chain_context_fill(&c, st2, &ctx, &err), BK_OK);
    CHECK_EQ_INT(ctx.height, 101);
    CHECK_EQ_INT(ctx.confirmations, -1);
    CHECK(!ctx.has_next);
    CHECK_MEM(ctx.chainwork, bk_chain_at_height(&c, 101)->chainwork, 32);
    CHECK_EQ_INT(bk_chain_find(&c, orphan)->height, -1);
    CHECK_EQ_INT(bk_chain_context_fill(&c, bk_chain_find(&c, orphan), &ctx, &err), BK_ERR_NOT_FOUND);
    /* Memory: a handful of allocations, not one per block. */
    CHECK(ca.allocs < 64);
    bk_chain_free(&c);
    bk_blocksdir_close(&d);
    CHECK_EQ_INT(ca.live, 0);

    /* A branch with more work wins: three blocks on top of 253. */
    tbuf f3 = {0};
    uint8_t g1[32], g2[32], g3[32];
    uint8_t *w1 = variant(&bs, 254, 0x0404, NULL, g1);
    uint8_t *w2 = variant(&bs, 255, 0x0505, g1, g2);
    uint8_t *w3 = variant(&bs, 255, 0x0606, g2, g3);
    put_block(&f3, w3, bs.n[255]);
    put_block(&f3, w1, bs.n[254]);
    put_block(&f3, w2, bs.n[255]);
    xor_apply(f3.p, f3.n, key);
    write_file(dir, "blk00003.dat", f3.p, f3.n);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
    CHECK_EQ_INT(bk_chain_build(&c, &d, NULL, &err), BK_OK);
    CHECK_EQ_INT(bk_chain_tip(&c)->height, 256);
    CHECK_MEM(bk_chain_tip(&c)->hash, g3, 32);
    CHECK_MEM(bk_chain_at_height(&c, 254)->hash, g1, 32);
    CHECK_MEM(bk_chain_at_height(&c, 253)->hash, bs.hash[253], 32);
    CHECK_MEM(bk_chain_at_height(&c, 253)->next == BK_CHAIN_NONE ? bs.hash[1] : c.entries[bk_chain_at_height(&c, 253)->next].hash, g1, 32);
    CHECK_EQ_INT(c.n_stale, 4); /* 254, 255 of the old chain and the two-block branch */
    CHECK_EQ_INT(bk_chain_context_fill(&c, bk_chain_find(&c, bs.hash[255]), &ctx, &err), BK_OK);
    CHECK_EQ_INT(ctx.confirmations, -1);
    CHECK_EQ_INT(bk_chain_context_fill(&c, bk_chain_at_height(&c, 100), &ctx, &err), BK_OK);
    CHECK_EQ_INT(ctx.confirmations, 157);
    bk_chain_free(&c);
    bk_blocksdir_close(&d);

    /* Equal work: the block seen first stays (only two fork blocks). */
    f3.n = 0;
    put_block(&f3, w1, bs.n[254]);
    put_block(&f3, w2, bs.n[255]);
    xor_apply(f3.p, f3.n, key);
    write_file(dir, "blk00003.dat", f3.p, f3.n);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
    CHECK_EQ_INT(bk_chain_build(&c, &d, NULL, &err), BK_OK);
    CHECK_MEM(bk_chain_tip(&c)->hash, bs.hash[255], 32);
    bk_chain_free(&c);
    bk_blocksdir_close(&d);

    /* An unreadable block file fails the build, naming it. */
    char sub[600];
    snprintf(sub, sizeof sub, "%s/blk00004.dat", dir);
    mkdir(sub, 0700);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
    CHECK_EQ_INT(bk_chain_build(&c, &d, NULL, &err), BK_ERR_IO);
    CHECK(strstr(err.msg, "blk00004.dat") != NULL);
    bk_blocksdir_close(&d);
    rmdir(sub);

    free(v1); free(v2); free(v3); free(w1); free(w2); free(w3);
    free(f0.p); free(f1.p); free(f2.p); free(f3.p);
    remove_tree(dir);
    free(bs.file);
}


/* ---- undo records built from the blocks' own prevouts ---- */

/* Core: compressor.cpp CompressScript (the forms Core writes). */
static void put_compressed_script(tbuf *t, const uint8_t *s, uint32_t n)
{
    uint8_t b[11];
    if (n == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 20 && s[23] == 0x88 && s[24] == 0xac) {
        b[0] = 0;
        tbuf_put(t, b, 1);
        tbuf_put(t, s + 3, 20);
    } else if (n == 23 && s[0] == 0xa9 && s[1] == 20 && s[22] == 0x87) {
        b[0] = 1;
        tbuf_put(t, b, 1);
        tbuf_put(t, s + 2, 20);
    } else if (n == 35 && s[0] == 33 && (s[1] == 2 || s[1] == 3) && s[34] == 0xac) {
        tbuf_put(t, s + 1, 33);
    } else if (n == 67 && s[0] == 65 && s[1] == 4 && s[66] == 0xac) {
        b[0] = (uint8_t)(4 | (s[65] & 1));
        tbuf_put(t, b, 1);
        tbuf_put(t, s + 2, 32);
    } else {
        size_t k = bk_varint_encode(b, (uint64_t)n + 6);
        tbuf_put(t, b, k);
        tbuf_put(t, s, n);
    }
}

typedef struct undo_set {
    bk_block_decoder dec[256];
    bk_block blk[256];
    uint8_t txids[256][8][32]; /* blocks 1..255 have at most a few txs */
    tbuf undo[256];            /* CBlockUndo of block h */
    int64_t fees[256];
} undo_set;

/* Build the CBlockUndo of every block from earlier outputs in the range. */
static void build_undo(undo_set *u, const blocks *bs)
{
    for (int h = 1; h <= 255; h++) {
        bk_block_decoder_init(&u->dec[h], NULL);
        CHECK_EQ_INT(bk_block_decode(&u->dec[h], bs->b[h], bs->n[h], &u->blk[h], NULL), BK_OK);
        CHECK(u->blk[h].n_tx <= 8);
        for (uint32_t i = 0; i < u->blk[h].n_tx && i < 8; i++) bk_tx_txid(&u->blk[h].txs[i], u->txids[h][i]);
    }
    for (int h = 1; h <= 255; h++) {
        tbuf *t = &u->undo[h];
        uint8_t b[10];
        size_t k = bk_compact_size_encode(b, u->blk[h].n_tx - 1);
        tbuf_put(t, b, k);
        int64_t in_sum = 0, out_sum = 0, cb_sum = 0;
        for (uint32_t i = 0; i < u->blk[h].n_tx; i++) {
            const bk_tx *tx = &u->blk[h].txs[i];
            bk_txout_iter oi;
            bk_txout o;
            bk_txout_iter_init(&oi, tx);
            while (bk_txout_next(&oi, &o)) *(i ? &out_sum : &cb_sum) += o.value;
            if (i == 0) continue;
            k = bk_compact_size_encode(b, tx->n_in);
            tbuf_put(t, b, k);
            bk_txin_iter ii;
            bk_txin in;
            bk_txin_iter_init(&ii, tx);
            while (bk_txin_next(&ii, &in)) {
                int found = 0;
                for (int ph = 1; ph <= h && !found; ph++)
                    for (uint32_t pi = 0; pi < u->blk[ph].n_tx && pi < 8 && !found; pi++) {
                        if (memcmp(u->txids[ph][pi], in.prev_txid, 32) != 0) continue;
                        bk_txout_iter pi_it;
                        bk_txout po;
                        bk_txout_iter_init(&pi_it, &u->blk[ph].txs[pi]);
                        for (uint32_t n = 0; bk_txout_next(&pi_it, &po); n++) {
                            if (n != in.prev_index) continue;
                            k = bk_varint_encode(b, (uint64_t)ph * 2 + (pi == 0));
                            tbuf_put(t, b, k);
                            tbuf_put(t, "", 1); /* dummy: height > 0 */
                            k = bk_varint_encode(b, bk_amount_compress((uint64_t)po.value));
                            tbuf_put(t, b, k);
                            put_compressed_script(t, po.script, po.script_len);
                            in_sum += po.value;
                            found = 1;
                        }
                    }
                CHECK(found);
            }
        }
        /* Fee identity: inputs - non-coinbase outputs = coinbase - subsidy. */
        u->fees[h] = in_sum - out_sum;
        CHECK_EQ_INT(in_sum - out_sum, cb_sum - 5000000000LL);
    }
}

static void put_rev_record(tbuf *t, const uint8_t *prev, const tbuf *undo)
{
    uint8_t ck[32];
    bk_sha256_ctx ctx;
    tbuf_record(t, MAINNET_MAGIC, undo->p, undo->n);
    bk_sha256_init(&ctx);
    bk_sha256_update(&ctx, prev, 32);
    bk_sha256_update(&ctx, undo->p, undo->n);
    bk_sha256_final(&ctx, ck);
    bk_sha256(ck, ck, 32);
    tbuf_put(t, ck, 32);
}

/* Every block gets its undo record (rev file = blk file number, records
 * in connection order), including a stale sibling whose record is
 * byte-identical to its twin's; the spend in block 170 decodes to block
 * 9's coinbase P2PK output. */
static void test_undo_pairing(void)
{
    blocks bs;
    load_blocks(&bs);
    undo_set *u = calloc(1, sizeof *u);
    build_undo(u, &bs);
    static const uint8_t key[8] = {9, 8, 7, 6, 5, 4, 3, 2};
    tbuf b0 = {0}, b1 = {0}, r0 = {0}, r1 = {0};
    for (int h = 1; h <= 150; h++) put_block(&b0, bs.b[h], bs.n[h]);
    for (int h = 151; h <= 255; h++) put_block(&b1, bs.b[h], bs.n[h]);
    uint8_t s1[32];
    uint8_t *v1 = variant(&bs, 100, 0x0101, NULL, s1); /* sibling of 100, same shape */
    put_block(&b0, v1, bs.n[100]);
    for (int h = 1; h <= 150; h++) {
        put_rev_record(&r0, bs.b[h] + 4, &u->undo[h]);
        if (h == 100) put_rev_record(&r0, bs.b[100] + 4, &u->undo[100]); /* for the sibling */
    }
    /* A sibling of block 170 whose second tx spends the same coin twice:
     * same parent, same tx count, another shape. Its undo record comes
     * first and verifies against 170's parent too: only the shape tells. */
    const bk_tx *t1 = &u->blk[170].txs[1];
    CHECK_EQ_INT(t1->n_in, 1);
    CHECK(!t1->has_witness);
    size_t in_end = t1->vout_pos - bk_compact_size_len(t1->n_out);
    tbuf x = {0};
    tbuf_put(&x, bs.b[170], 80);
    x.p[76] ^= 0x55; /* another nonce: another hash */
    tbuf_put(&x, "\x02", 1);
    tbuf_put(&x, u->blk[170].txs[0].data, u->blk[170].txs[0].size);
    tbuf_put(&x, t1->data, t1->vin_pos - 1);
    tbuf_put(&x, "\x02", 1);
    tbuf_put(&x, t1->data + t1->vin_pos, in_end - t1->vin_pos);
    tbuf_put(&x, t1->data + t1->vin_pos, in_end - t1->vin_pos);
    tbuf_put(&x, t1->data + in_end, t1->size - in_end);
    uint8_t xh[32];
    bk_sha256d(xh, x.p, 80);
    put_block(&b1, x.p, x.n);
    tbuf xu = {0};
    CHECK_EQ_INT(u->undo[170].n > 2 && u->undo[170].p[0] == 1 && u->undo[170].p[1] == 1, 1);
    tbuf_put(&xu, "\x01\x02", 2);
    tbuf_put(&xu, u->undo[170].p + 2, u->undo[170].n - 2);
    tbuf_put(&xu, u->undo[170].p + 2, u->undo[170].n - 2);
    for (int h = 151; h <= 255; h++) {
        if (h == 170) put_rev_record(&r1, bs.b[170] + 4, &xu);
        put_rev_record(&r1, bs.b[h] + 4, &u->undo[h]);
    }
    tbuf_put(&r1, (const uint8_t[7]){0}, 7); /* rev pre-allocation */
    xor_apply(b0.p, b0.n, key);
    xor_apply(b1.p, b1.n, key);
    xor_apply(r0.p, r0.n, key);
    xor_apply(r1.p, r1.n, key);
    char dir[512];
    make_tmpdir(dir, sizeof dir);
    write_file(dir, "blk00000.dat", b0.p, b0.n);
    write_file(dir, "blk00001.dat", b1.p, b1.n);
    write_file(dir, "rev00000.dat", r0.p, r0.n);
    write_file(dir, "rev00001.dat", r1.p, r1.n);
    write_file(dir, "xor.dat", key, 8);
    bk_blocksdir d;
    bk_chain c;
    bk_error err;
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
    CHECK_EQ_INT(bk_chain_build(&c, &d, NULL, &err), BK_OK);
    CHECK_EQ_INT(c.n_undo_records, 257);
    CHECK_EQ_INT(c.n_undo_paired, 257);
    CHECK_EQ_INT(c.n_undo_unpaired, 0);
    CHECK_EQ_INT(c.files[3].end, BK_END_ZERO_TAIL);
    int missing = 0;
    for (int h = 1; h <= 255; h++) {
        const bk_chain_entry *e = bk_chain_at_height(&c, h);
        if (!e->has_undo || e->undo_file != e->file || e->undo_size != u->undo[h].n) missing++;
    }
    CHECK_EQ_INT(missing, 0);
    CHECK(bk_chain_find(&c, s1)->has_undo);
    const bk_chain_entry *xe = bk_chain_find(&c, xh);
    CHECK(xe && xe->has_undo && xe->undo_size == xu.n && !xe->active);
    CHECK(bk_chain_at_height(&c, 170)->undo_size == u->undo[170].n);
    CHECK(xe && xe->undo_offset < bk_chain_at_height(&c, 170)->undo_offset);
    /* Fetch block 170's undo through the file API and read its coin. */
    const bk_chain_entry *e = bk_chain_at_height(&c, 170);
    bk_blockfile rf;
    CHECK_EQ_INT(bk_blocksdir_open_file(&d, BK_FILE_REV, e->undo_file, &rf, &err), BK_OK);
    uint8_t buf[512];
    const uint8_t *ub;
    CHECK_EQ_INT(bk_blockfile_bytes(&rf, e->undo_offset, e->undo_size, buf, sizeof buf, &ub, &err), BK_OK);
    bk_block_undo bu;
    CHECK_EQ_INT(bk_block_undo_parse(ub, e->undo_size, &bu, &err), BK_OK);
    CHECK_EQ_INT(bk_block_undo_check(&bu, &u->blk[170], &err), BK_OK);
    bk_undo_iter it;
    bk_coin coin;
    uint32_t nc;
    bk_undo_iter_init(&it, &bu);
    CHECK(bk_undo_next_tx(&it, &nc));
    CHECK_EQ_INT(nc, 1);
    CHECK(bk_undo_next_coin(&it, &coin));
    CHECK_EQ_INT(coin.height, 9);
    CHECK_EQ_INT(coin.coinbase, 1);
    CHECK_EQ_INT(coin.value, 5000000000LL);
    bk_txout_iter oi;
    bk_txout o;
    bk_txout_iter_init(&oi, &u->blk[9].txs[0]);
    CHECK(bk_txout_next(&oi, &o));
    CHECK_EQ_INT(coin.script_len, o.script_len);
    CHECK_MEM(bk_coin_script(&coin), o.script, 67);
    bk_blockfile_close(&rf);
    bk_chain_free(&c);
    bk_blocksdir_close(&d);
    /* A corrupted undo byte: checksum fails, the block has no undo. */
    r1.p[41 * 3 + 8] ^= 0x01; /* the CBlockUndo byte of the 4th record of rev00001 (block 154) */
    write_file(dir, "rev00001.dat", r1.p, r1.n);
    CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
    CHECK_EQ_INT(bk_chain_build(&c, &d, NULL, &err), BK_OK);
    CHECK_EQ_INT(c.n_undo_unpaired, 1);
    CHECK(!bk_chain_at_height(&c, 154)->has_undo);
    CHECK(bk_chain_at_height(&c, 155)->has_undo);
    bk_chain_free(&c);
    bk_blocksdir_close(&d);
    remove_tree(dir);
    for (int h = 1; h <= 255; h++) {
        bk_block_decoder_free(&u->dec[h]);
        free(u->undo[h].p);
    }
    free(u);
    free(v1);
    free(x.p); free(xu.p);
    free(b0.p); free(b1.p); free(r0.p); free(r1.p);
    free(bs.file);
}

/* The shared sample directories: three unrelated blocks (orphans here),
 * each paired with its verified undo record, plain and obfuscated. */
static void test_sample_blocksdir_undo(void)
{
    tbuf blk = {0}, rev = {0};
    sample_blocksdir_files(&blk, &rev);
    size_t klen;
    uint8_t *key = check_read_file("blkfiles/sample_xor.dat", &klen);
    for (int x = 0; x < 2; x++) {
        if (x) {
            xor_apply(blk.p, blk.n, key);
            xor_apply(rev.p, rev.n, key);
        }
        char dir[512];
        make_tmpdir(dir, sizeof dir);
        write_file(dir, "blk00000.dat", blk.p, blk.n);
        write_file(dir, "rev00000.dat", rev.p, rev.n);
        if (x) write_file(dir, "xor.dat", key, 8);
        bk_blocksdir d;
        bk_chain c;
        bk_error err;
        CHECK_EQ_INT(bk_blocksdir_open(&d, dir, BK_NET_MAIN, NULL, &err), BK_OK);
        CHECK_EQ_INT(bk_chain_build(&c, &d, NULL, &err), BK_OK);
        CHECK_EQ_INT(c.n_entries, 3);
        CHECK_EQ_INT(c.n_orphans, 3);
        CHECK_EQ_INT(c.n_undo_paired, 3);
        static const uint32_t undo_sizes[3] = {20517, 143285, 270516};
        for (int i = 0; i < 3; i++) {
            CHECK(c.entries[i].has_undo);
            CHECK_EQ_INT(c.entries[i].undo_size, undo_sizes[i]);
        }
        CHECK_EQ_INT(c.entries[1].undo_offset, 20557 + 8);
        bk_chain_free(&c);
        bk_blocksdir_close(&d);
        remove_tree(dir);
    }
    free(key);
    free(blk.p);
    free(rev.p);
}

/* Run the CLI; returns its exit status and its stdout in *out. */
static int run_cli(const char *args, tbuf *out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", BK_CLI_PATH, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char buf[4096];
    size_t n;
    out->n = 0;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) tbuf_put(out, buf, n);
    tbuf_put(out, "", 1);
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *nth_line(const char *s, int n)
{
    while (n-- > 0 && s) {
        s = strchr(s, '\n');
        if (s) s++;
    }
    return s;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Core's regtest chain from rpc_getblockstats.json under --datadir: Core's
 * getblockstats gives hash and mediantime of heights 101-103. */
static void test_cli_regtest_datadir(void)
{
    size_t n;
    uint8_t *img = check_read_file("blkfiles/regtest_getblockstats_0-103.blk", &n);
    char dir[512], sub[700], args[1024];
    make_tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/regtest", dir);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/regtest/blocks", dir);
    mkdir(sub, 0700);
    write_file(sub, "blk00000.dat", img, n);
    tbuf out = {0};
    snprintf(args, sizeof args, "chain --datadir %s --chain regtest", dir);
    CHECK_EQ_INT(run_cli(args, &out), 0);
    const char *s = (const char *)out.p;
    CHECK_EQ_INT(count_lines(s), 104);
    CHECK(strncmp(nth_line(s, 0), "{\"height\":0,\"hash\":\"0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206\","
                                 "\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"time\":1296688602,"
                                 "\"mediantime\":1296688602,\"chainwork\":\"0000000000000000000000000000000000000000000000000000000000000002\","
                                 "\"nTx\":1,\"file\":0,\"offset\":8,\"has_undo\":false}\n", 100) == 0);
    static const struct { int h; const char *hash; long mtp; } core[] = {
        {101, "29a36876ddc6899a2541afc78ce2b3ca7659cfc01875e8208d9110d59bce3a9b", 1525107242},
        {102, "06e5883dc39af4810bcd505b95149db664206c13ec7f5d4b33e25e30f37b5961", 1525107242},
        {103, "7474991c2ae3c94c4813d75b4c752028304b773dd4dce8d460dfa2d1e7b542a3", 1525107243},
    };
    for (int i = 0; i < 3; i++) {
        char want[256];
        const char *line = nth_line(s, core[i].h);
        snprintf(want, sizeof want, "{\"height\":%d,\"hash\":\"%s\"", core[i].h, core[i].hash);
        CHECK(line && strncmp(line, want, strlen(want)) == 0);
        snprintf(want, sizeof want, "\"mediantime\":%ld,\"chainwork\":\"%064x\"", core[i].mtp, (core[i].h + 1) * 2);
        CHECK(line && strstr(line, want) != NULL && strstr(line, want) < strchr(line, '\n'));
    }
    /* Without --chain the network is found from the files (issue 27): the
     * same 104 blocks; --chain main on the same directory finds none. */
    snprintf(args, sizeof args, "chain --datadir %s", dir);
    CHECK_EQ_INT(run_cli(args, &out), 0);
    CHECK_EQ_INT(count_lines((const char *)out.p), 104);
    snprintf(args, sizeof args, "chain --datadir %s --chain main", dir);
    CHECK_EQ_INT(run_cli(args, &out), 66); /* DIR/blocks does not exist; DIR holds regtest/blocks */
    /* --blocksdir with the wrong chain: nothing matches the magic, which is
     * an error naming the network the files belong to
     * (13-wrong-network-or-garbage-dir-silent-success). */
    snprintf(args, sizeof args, "chain --blocksdir %s --chain main", sub);
    CHECK_EQ_INT(run_cli(args, &out), 65);
    CHECK_EQ_INT(count_lines((const char *)out.p), 0);
    /* Bad data: an xor.dat that is not 8 bytes. */
    write_file(sub, "xor.dat", img, 7);
    snprintf(args, sizeof args, "chain --blocksdir %s --chain regtest", sub);
    CHECK_EQ_INT(run_cli(args, &out), 65);
    snprintf(args, sizeof args, "%s/xor.dat", sub);
    unlink(args);
    /* Usage errors. */
    CHECK_EQ_INT(run_cli("chain", &out), 64);
    CHECK_EQ_INT(run_cli("chain --blocksdir", &out), 64);
    CHECK_EQ_INT(run_cli("chain --blocksdir /tmp --chain nosuchnet", &out), 64);
    CHECK_EQ_INT(run_cli("chain --bogus", &out), 64);
    CHECK_EQ_INT(run_cli("chain --help", &out), 0);
    /* An unreadable block file: exit 74, its path on stderr. */
    snprintf(args, sizeof args, "%s/blk00001.dat", sub);
    mkdir(args, 0700);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s chain --blocksdir %s --chain regtest 2>&1 >/dev/null", BK_CLI_PATH, sub);
    FILE *p = popen(cmd, "r");
    char err[1024] = {0};
    size_t got = fread(err, 1, sizeof err - 1, p);
    int st = pclose(p);
    err[got] = 0;
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 74);
    CHECK(strstr(err, "blk00001.dat") != NULL);
    free(out.p);
    free(img);
    remove_tree(dir);
}

/* Stale blocks are listed after the best chain with "stale":true. */
static void test_cli_stale_listing(void)
{
    blocks bs;
    load_blocks(&bs);
    tbuf f = {0};
    for (int h = 1; h <= 255; h++) put_block(&f, bs.b[h], bs.n[h]);
    uint8_t s1[32];
    uint8_t *v1 = variant(&bs, 200, 0x0101, NULL, s1);
    put_block(&f, v1, bs.n[200]);
    char dir[512], args[1024], hx[65];
    make_tmpdir(dir, sizeof dir);
    write_file(dir, "blk00000.dat", f.p, f.n);
    tbuf out = {0};
    snprintf(args, sizeof args, "chain --blocksdir %s", dir);
    CHECK_EQ_INT(run_cli(args, &out), 0);
    const char *s = (const char *)out.p;
    CHECK_EQ_INT(count_lines(s), 256);
    CHECK(strncmp(s, "{\"height\":1,\"hash\":\"00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048\","
                     "\"prev\":\"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f\",\"time\":1231469665,"
                     "\"mediantime\":1231469665,\"chainwork\":\"0000000000000000000000000000000000000000000000000000000200020002\","
                     "\"nTx\":1,\"file\":0,\"offset\":8,\"has_undo\":false}\n", 300) == 0);
    const char *last = nth_line(s, 255);
    hex_rev(s1, hx);
    CHECK(last && strstr(last, hx) != NULL && strstr(last, "\"height\":200,") != NULL &&
          strstr(last, ",\"stale\":true}") != NULL);
    free(out.p);
    free(f.p);
    free(v1);
    free(bs.file);
    remove_tree(dir);
}

/* A crash mid-write: the last record is framed, its header written, the
 * rest of the chunk still zero. That block is not indexed. */
static void test_interrupted_last_write(void)
{
    blocks bs;
    load_blocks(&bs);
    tbuf f = {0};
    for (int h = 1; h <= 10; h++) put_block(&f, bs.b[h], bs.n[h]);
    uint8_t *cut = calloc(1, bs.n[11]);
    memcpy(cut, bs.b[11], 81); /* header and tx count only */
    put_block(&f, cut, bs.n[11]);
    size_t records_end = f.n;
    uint8_t zeros[1000] = {0};
    tbuf_put(&f, zeros, sizeof zeros);
    bk_chain c;
    CHECK_EQ_INT(build_from_image(&c, f.p, f.n, BK_NET_MAIN), BK_OK);
    CHECK_EQ_INT(c.n_records, 11);
    CHECK_EQ_INT(c.n_bad_records, 1);
    CHECK_EQ_INT(c.n_entries, 10);
    CHECK_EQ_INT(bk_chain_tip(&c)->height, 10);
    CHECK(bk_chain_find(&c, bs.hash[11]) == NULL);
    CHECK_EQ_INT(c.files[0].end, BK_END_ZERO_TAIL);
    CHECK_EQ_INT(c.files[0].end_offset, records_end);
    bk_chain_free(&c);
    /* The same file with block 11 complete keeps it. */
    memcpy(f.p + records_end - bs.n[11], bs.b[11], bs.n[11]);
    CHECK_EQ_INT(build_from_image(&c, f.p, f.n, BK_NET_MAIN), BK_OK);
    CHECK_EQ_INT(c.n_bad_records, 0);
    CHECK_EQ_INT(bk_chain_tip(&c)->height, 11);
    bk_chain_free(&c);
    free(cut);
    free(f.p);
    free(bs.file);
}

/* Each network's genesis (Core: kernel/chainparams.cpp CreateGenesisBlock
 * arguments) rebuilt here: a block whose parent it is gets height 1 on that
 * network, with the genesis' work and time. */
static void test_implied_genesis_every_network(void)
{
    static const struct {
        bk_network net;
        const char *merkle; /* display order */
        uint32_t time, bits, nonce;
        const char *hash;
    } g[] = {
        {BK_NET_MAIN, "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b", 1231006505, 0x1d00ffff, 2083236893,
         "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"},
        {BK_NET_TESTNET3, "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b", 1296688602, 0x1d00ffff, 414098458,
         "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943"},
        {BK_NET_TESTNET4, "7aa0a7ae1e223414cb807e40cd57e667b718e42aaf9306db9102fe28912b7b4e", 1714777860, 0x1d00ffff, 393743547,
         "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043"},
        {BK_NET_SIGNET, "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b", 1598918400, 0x1e0377ae, 52613770,
         "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6"},
        {BK_NET_REGTEST, "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b", 1296688602, 0x207fffff, 2,
         "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"},
    };
    blocks bs;
    load_blocks(&bs);
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        uint8_t hdr[80] = {1, 0, 0, 0}, gh[32];
        for (int k = 0; k < 32; k++) {
            unsigned v;
            sscanf(g[i].merkle + 2 * (31 - k), "%2x", &v);
            hdr[36 + k] = (uint8_t)v;
        }
        bk_store_le32(hdr + 68, g[i].time);
        bk_store_le32(hdr + 72, g[i].bits);
        bk_store_le32(hdr + 76, g[i].nonce);
        bk_sha256d(gh, hdr, 80);
        char hx[65];
        hex_rev(gh, hx);
        CHECK_EQ_STR(hx, g[i].hash);
        /* Block 1's bytes on top of it, framed with this network's magic. */
        uint8_t *b = malloc(bs.n[1]);
        memcpy(b, bs.b[1], bs.n[1]);
        memcpy(b + 4, gh, 32);
        tbuf f = {0};
        tbuf_record(&f, bk_network_get(g[i].net)->magic, b, bs.n[1]);
        bk_chain c;
        CHECK_EQ_INT(build_from_image(&c, f.p, f.n, g[i].net), BK_OK);
        const bk_chain_entry *e = bk_chain_tip(&c);
        CHECK(e != NULL);
        if (e) {
            CHECK_EQ_INT(e->height, 1);
            uint8_t w0[32], w1[32];
            bk_block_proof(g[i].bits, w0);
            bk_block_proof(0x1d00ffff, w1);
            uint64_t sum = bk_load_le64((uint8_t[8]){w0[31], w0[30], w0[29], w0[28], w0[27], w0[26], w0[25], w0[24]}) +
                           bk_load_le64((uint8_t[8]){w1[31], w1[30], w1[29], w1[28], w1[27], w1[26], w1[25], w1[24]});
            uint8_t want[32] = {0};
            for (int k = 0; k < 8; k++) want[31 - k] = (uint8_t)(sum >> (8 * k));
            CHECK_MEM(e->chainwork, want, 32);
            uint32_t bt = bk_load_le32(b + 68);
            CHECK_EQ_INT(e->mediantime, bt > g[i].time ? bt : g[i].time);
        }
        bk_chain_free(&c);
        free(f.p);
        free(b);
    }
    free(bs.file);
}

int main(void)
{
    RUN(test_block_proof);
    RUN(test_mainnet_blocks_without_genesis);
    RUN(test_genesis_by_zero_prev);
    RUN(test_implied_genesis_every_network);
    RUN(test_synthetic_blocks_directory);
    RUN(test_interrupted_last_write);
    RUN(test_undo_pairing);
    RUN(test_sample_blocksdir_undo);
    RUN(test_cli_regtest_datadir);
    RUN(test_cli_stale_listing);
    return check_finish();
}
