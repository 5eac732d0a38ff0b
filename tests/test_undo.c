/* Undo data: VARINT/amount/script compression, Core's Coin vectors, the three
 * rebuilt mainnet CBlockUndo files against their spent-output lists, rev
 * record checksums, and robustness against truncation and bit flips. */
#include <blockkit/undo.h>

#include "check.h"

static const char *hex(const uint8_t *p, size_t n, char *buf)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = digits[p[i] >> 4];
        buf[2 * i + 1] = digits[p[i] & 15];
    }
    buf[2 * n] = 0;
    return buf;
}

/* spec §9.4 vectors: value, compressed value, its VARINT bytes. */
static void test_amount_compression_vectors(void)
{
    static const struct { uint64_t n, c; const char *varint; } v[] = {
        {100000000, 9, "09"},
        {5000000000, 50, "32"},
        {546, 4911, "a52f"},
        {2100000000000000ULL, 21000000, "8980dd40"},
        {123456789, 1111111101, "8390e7ea3d"},
        {0, 0, "00"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        CHECK_EQ_INT(bk_amount_compress(v[i].n), v[i].c);
        CHECK_EQ_INT(bk_amount_decompress(v[i].c), v[i].n);
        uint8_t buf[10];
        char h[32];
        size_t len = bk_varint_encode(buf, v[i].c);
        CHECK_EQ_STR(hex(buf, len, h), v[i].varint);
    }
    /* Round trip over every decimal shape up to 21M BTC. */
    for (uint64_t m = 1; m < 2100000000000000ULL; m = m * 7 + 3) {
        for (uint64_t z = 1, k = 0; k < 10 && m * z <= 2100000000000000ULL; k++, z *= 10) {
            uint64_t n = m * z;
            CHECK(bk_amount_decompress(bk_amount_compress(n)) == n);
        }
    }
    for (uint64_t x = 0; x < 100000; x++) CHECK(bk_amount_compress(bk_amount_decompress(x)) == x);
}

/* Parse one coin in TxInUndoFormatter form from hex. */
static bk_status coin_from_hex(const char *h, bk_coin *coin, size_t *end, bk_error *err)
{
    size_t n;
    uint8_t *b = check_unhex(h, &n);
    bk_reader r;
    bk_reader_init(&r, b, n);
    bk_status st = bk_coin_read(&r, coin);
    bk_reader_error(&r, err);
    if (end) *end = r.pos;
    /* Raw scripts borrow the input: copy into script_buf for the caller. */
    if (st == BK_OK && coin->raw_script) {
        if (coin->script_len <= sizeof coin->script_buf) memcpy(coin->script_buf, coin->raw_script, coin->script_len);
        coin->raw_script = NULL;
    }
    free(b);
    return st;
}

/* Core: coins_tests.cpp ccoins_serialization. Those vectors are Coin's own
 * serialization (VARINT code, compressed txout); the undo form adds the
 * dummy VARINT 00 after the code when the height is above 0, inserted here. */
static void test_core_coin_vectors(void)
{
    bk_coin c;
    bk_error err;
    char h[200];
    /* "97f23c 835800816115944e077fe7c803cfa57f29b36bf87c1d35" */
    CHECK_EQ_INT(coin_from_hex("97f23c" "00" "835800816115944e077fe7c803cfa57f29b36bf87c1d35", &c, NULL, &err), BK_OK);
    CHECK_EQ_INT(c.height, 203998);
    CHECK_EQ_INT(c.coinbase, 0);
    CHECK_EQ_INT(c.value, 60000000000LL);
    CHECK_EQ_STR(hex(bk_coin_script(&c), c.script_len, h), "76a914816115944e077fe7c803cfa57f29b36bf87c1d3588ac");
    /* "8ddf77 bbd123 008c988f1a4a4de2161e0f50aac7f17e7f9555caa4" */
    CHECK_EQ_INT(coin_from_hex("8ddf77" "00" "bbd123008c988f1a4a4de2161e0f50aac7f17e7f9555caa4", &c, NULL, &err), BK_OK);
    CHECK_EQ_INT(c.height, 120891);
    CHECK_EQ_INT(c.coinbase, 1);
    CHECK_EQ_INT(c.value, 110397);
    CHECK_EQ_STR(hex(bk_coin_script(&c), c.script_len, h), "76a9148c988f1a4a4de2161e0f50aac7f17e7f9555caa488ac");
    /* Smallest possible: "000006" (height 0: no dummy in either form). */
    size_t end;
    CHECK_EQ_INT(coin_from_hex("000006", &c, &end, &err), BK_OK);
    CHECK_EQ_INT(c.height, 0);
    CHECK_EQ_INT(c.coinbase, 0);
    CHECK_EQ_INT(c.value, 0);
    CHECK_EQ_INT(c.script_len, 0);
    CHECK_EQ_INT(end, 3);
    /* scriptPubKey that ends beyond the end of the stream: "000007". */
    CHECK_EQ_INT(coin_from_hex("000007", &c, NULL, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, 3);
    /* Very large scriptPubKey (over MAX_SCRIPT_SIZE) past the end: "00008a95c0bb00". */
    CHECK_EQ_INT(coin_from_hex("00008a95c0bb00", &c, NULL, &err), BK_ERR_TRUNCATED);
}

/* Core: compressor.cpp DecompressScript, one case per special type. */
static void test_script_compression_types(void)
{
    bk_coin c;
    bk_error err;
    char h[300];
    /* nSize 1: P2SH */
    CHECK_EQ_INT(coin_from_hex("000001" "0102030405060708090a0b0c0d0e0f1011121314", &c, NULL, &err), BK_OK);
    CHECK_EQ_STR(hex(bk_coin_script(&c), c.script_len, h), "a9140102030405060708090a0b0c0d0e0f101112131487");
    /* nSize 2/3: compressed P2PK keeps its prefix byte. */
    CHECK_EQ_INT(coin_from_hex("000003" "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", &c, NULL, &err), BK_OK);
    CHECK_EQ_STR(hex(bk_coin_script(&c), c.script_len, h),
                 "210379be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798ac");
    /* nSize 5: the genesis output key 04678afd...1d5f has odd y. */
    CHECK_EQ_INT(coin_from_hex("0000" "05" "678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb6", &c, NULL, &err), BK_OK);
    CHECK_EQ_STR(hex(bk_coin_script(&c), c.script_len, h),
                 "4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac");
    CHECK_EQ_INT(c.script_len, 67);
    /* nSize 4: generator G (even y). */
    CHECK_EQ_INT(coin_from_hex("0000" "04" "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", &c, NULL, &err), BK_OK);
    CHECK_EQ_STR(hex(bk_coin_script(&c), c.script_len, h),
                 "410479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8ac");
    /* Off-curve x (x = 5: 5^3 + 7 = 132 is not a square mod p): Core leaves the
     * script empty; blockkit refuses with the offset of the 32 key bytes. */
    CHECK_EQ_INT(coin_from_hex("0000" "04" "0000000000000000000000000000000000000000000000000000000000000005", &c, NULL, &err), BK_ERR_SCRIPT);
    CHECK_EQ_INT(err.offset, 3);
    /* x >= p is not a valid key either. */
    CHECK_EQ_INT(coin_from_hex("0000" "05" "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", &c, NULL, &err), BK_ERR_SCRIPT);
    /* Raw script: nSize = len + 6. */
    CHECK_EQ_INT(coin_from_hex("0000" "0a" "6a026869", &c, NULL, &err), BK_OK);
    CHECK_EQ_STR(hex(bk_coin_script(&c), c.script_len, h), "6a026869");
    /* Special body truncated. */
    CHECK_EQ_INT(coin_from_hex("000000" "0102", &c, NULL, &err), BK_ERR_TRUNCATED);
    /* nSize VARINT over 32 bits: Core reads it into unsigned int. */
    CHECK_EQ_INT(coin_from_hex("0000" "8efefeff00", &c, NULL, &err), BK_ERR_OVERFLOW);
}

/* nSize - 6 > 10000: the bytes are skipped and the script is OP_RETURN. */
static void test_script_oversize_becomes_op_return(void)
{
    for (uint32_t len = 9999; len <= 10002; len++) {
        uint8_t buf[10020];
        size_t n = 0;
        buf[n++] = 0x00; /* height 0, not coinbase */
        buf[n++] = 0x00; /* amount 0 */
        n += bk_varint_encode(buf + n, (uint64_t)len + 6);
        memset(buf + n, 0x51, len);
        n += len;
        bk_reader r;
        bk_reader_init(&r, buf, n);
        bk_coin c;
        CHECK_EQ_INT(bk_coin_read(&r, &c), BK_OK);
        CHECK_EQ_INT(r.pos, n);
        if (len <= 10000) {
            CHECK_EQ_INT(c.script_len, len);
            CHECK(c.raw_script == buf + n - len);
        } else {
            CHECK_EQ_INT(c.script_len, 1);
            CHECK_EQ_INT(bk_coin_script(&c)[0], 0x6a);
        }
    }
}

/* The coins of a CBlockUndo against a "height coinbase value script" list
 * made from the upstream spent_utxos.json (tests/data/undo/README.md). */
static void check_undo_file(uint32_t height, uint64_t want_coins, uint32_t want_txundo)
{
    char name[128];
    size_t len, tlen;
    snprintf(name, sizeof name, "undo/block%u_undo.raw", height);
    uint8_t *data = check_read_file(name, &len);
    snprintf(name, sizeof name, "undo/block%u.coins.txt", height);
    char *text = (char *)check_read_file(name, &tlen);

    bk_block_undo u;
    bk_error err;
    CHECK_EQ_INT(bk_block_undo_parse(data, len, &u, &err), BK_OK);
    CHECK_EQ_INT(u.n_txundo, want_txundo);
    bk_undo_iter it;
    bk_undo_iter_init(&it, &u);
    uint32_t n_coins;
    uint64_t total = 0, mismatches = 0;
    char *line = text;
    char h[2 * 10100 + 1];
    while (bk_undo_next_tx(&it, &n_coins)) {
        bk_coin c;
        while (bk_undo_next_coin(&it, &c)) {
            unsigned long long wh, wcb, wv;
            char *script = NULL;
            int k = 0;
            if (sscanf(line, "%llu %llu %llu%n", &wh, &wcb, &wv, &k) != 3) { mismatches++; break; }
            script = line + k + (line[k] == ' '); /* the script may be empty */
            char *nl = strchr(script, '\n');
            if (!nl) { mismatches++; break; }
            *nl = 0;
            line = nl + 1;
            if (c.height != wh || c.coinbase != wcb || (uint64_t)c.value != wv ||
                c.script_len > 10100 || strcmp(hex(bk_coin_script(&c), c.script_len, h), script) != 0) {
                if (mismatches++ < 3)
                    fprintf(stderr, "block %u coin %llu: got %u %u %lld %s\n", height,
                            (unsigned long long)total, c.height, c.coinbase, (long long)c.value, h);
            }
            total++;
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    CHECK_EQ_INT(total, want_coins);
    CHECK_EQ_INT(*line, 0); /* every listed coin was seen */
    free(data);
    free(text);
}

static void test_real_undo_files_match_spent_outputs(void)
{
    /* Input counts per SOURCES.md / MANIFEST.json (732 for 277647). */
    check_undo_file(277647, 732, 212);
    check_undo_file(367891, 20817, 419);
    check_undo_file(866342, 7972, 4863);
}

/* rev record: magic, size, CBlockUndo, SHA256d(prev hash || CBlockUndo). */
static void test_rev_record_checksums(void)
{
    static const uint32_t heights[] = {277647, 367891, 866342};
    for (size_t i = 0; i < 3; i++) {
        char name[128];
        size_t rlen, blen;
        snprintf(name, sizeof name, "undo/rev_record_block%u.dat", heights[i]);
        uint8_t *rec = check_read_file(name, &rlen);
        snprintf(name, sizeof name, "blocks/block%u.raw", heights[i]);
        uint8_t *blk = check_read_file(name, &blen);
        static const uint8_t magic[4] = {0xf9, 0xbe, 0xb4, 0xd9};
        CHECK_MEM(rec, magic, 4);
        uint32_t size = bk_load_le32(rec + 4);
        CHECK_EQ_INT(size + 40, rlen);
        bk_sha256_ctx ctx;
        uint8_t ck[32];
        bk_sha256_init(&ctx);
        bk_sha256_update(&ctx, blk + 4, 32); /* hashPrevBlock, internal order */
        bk_sha256_update(&ctx, rec + 8, size);
        bk_sha256_final(&ctx, ck);
        bk_sha256(ck, ck, 32);
        CHECK_MEM(ck, rec + 8 + size, 32);
        bk_block_undo u;
        CHECK_EQ_INT(bk_block_undo_parse(rec + 8, size, &u, NULL), BK_OK);
        free(rec);
        free(blk);
    }
}

/* Shape check against a block: built here from the undo's own counts, then
 * perturbed (the real-block check is in test_blockfile). */
static void test_undo_check_shape(void)
{
    size_t len;
    uint8_t *data = check_read_file("undo/block277647_undo.raw", &len);
    bk_block_undo u;
    CHECK_EQ_INT(bk_block_undo_parse(data, len, &u, NULL), BK_OK);
    bk_tx txs[213];
    memset(txs, 0, sizeof txs);
    txs[0].n_in = 1;
    bk_undo_iter it;
    bk_undo_iter_init(&it, &u);
    uint32_t n, i = 1;
    while (bk_undo_next_tx(&it, &n)) txs[i++].n_in = n;
    bk_block b;
    memset(&b, 0, sizeof b);
    b.n_tx = 213;
    b.txs = txs;
    bk_error err;
    CHECK_EQ_INT(bk_block_undo_check(&u, &b, &err), BK_OK);
    txs[5].n_in++;
    CHECK_EQ_INT(bk_block_undo_check(&u, &b, &err), BK_ERR_MISMATCH);
    CHECK(err.offset > 0 && err.offset < len);
    txs[5].n_in--;
    b.n_tx = 212;
    CHECK_EQ_INT(bk_block_undo_check(&u, &b, &err), BK_ERR_MISMATCH);
    free(data);
}

/* Every strict prefix fails; random bit flips either fail or parse and then
 * iterate without fault. */
static void test_prefixes_and_bit_flips(void)
{
    size_t len;
    uint8_t *data = check_read_file("undo/block277647_undo.raw", &len);
    bk_block_undo u;
    size_t prefix_ok = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exact size so ASan sees overreads */
        memcpy(copy, data, n);
        if (bk_block_undo_parse(copy, n, &u, NULL) == BK_OK) prefix_ok++;
        free(copy);
    }
    CHECK_EQ_INT(prefix_ok, 0);
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    size_t ok = 0, bad = 0;
    uint8_t *copy = malloc(len);
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, data, len);
        int flips = 1 + round % 4;
        for (int f = 0; f < flips; f++) {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
            copy[(seed >> 8) % len] ^= (uint8_t)(1u << (seed & 7));
        }
        bk_error err;
        if (bk_block_undo_parse(copy, len, &u, &err) == BK_OK) {
            ok++;
            bk_undo_iter it;
            bk_undo_iter_init(&it, &u);
            uint32_t n;
            bk_coin c;
            while (bk_undo_next_tx(&it, &n))
                while (bk_undo_next_coin(&it, &c)) CHECK(c.script_len <= 10000);
            CHECK_EQ_INT(it.pos, len);
            /* What parse accepted, bk_coin_read accepts coin by coin. */
            bk_reader r;
            bk_reader_init(&r, copy, len);
            uint64_t nt = bk_read_compact_size(&r, 1);
            for (uint64_t t = 0; t < nt; t++) {
                uint64_t nc = bk_read_compact_size(&r, 1);
                for (uint64_t k = 0; k < nc; k++) CHECK_EQ_INT(bk_coin_read(&r, &c), BK_OK);
            }
            CHECK(bk_reader_ok(&r) && r.pos == len);
        } else {
            bad++;
            CHECK(err.offset <= len);
        }
    }
    CHECK(ok + bad == 3000);
    free(copy);
    free(data);
}

/* Counts larger than the remaining bytes are refused before use. */
static void test_counts_checked_against_remaining(void)
{
    uint8_t b1[] = {0xfd, 0xff, 0x00, 0x00};
    bk_block_undo u;
    bk_error err;
    CHECK_EQ_INT(bk_block_undo_parse(b1, sizeof b1, &u, &err), BK_ERR_COUNT);
    uint8_t b2[] = {0x01, 0x02, 0x00, 0x00, 0x06};
    CHECK_EQ_INT(bk_block_undo_parse(b2, sizeof b2, &u, &err), BK_ERR_COUNT);
    CHECK_EQ_INT(err.offset, 1);
    uint8_t b3[] = {0xfe, 0xff, 0xff, 0xff, 0xff};
    CHECK_EQ_INT(bk_block_undo_parse(b3, sizeof b3, &u, &err), BK_ERR_SIZE);
    uint8_t b4[] = {0x01, 0x01, 0x00, 0x00, 0x06, 0x00};
    CHECK_EQ_INT(bk_block_undo_parse(b4, sizeof b4, &u, &err), BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 5);
    /* An off-curve uncompressed-P2PK key inside a CBlockUndo: refused at
     * the key bytes (Core would leave the script empty). */
    uint8_t b6[] = {0x01, 0x02, 0x00, 0x00, 0x06, 0x00, 0x00, 0x04,
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    CHECK_EQ_INT(bk_block_undo_parse(b6, sizeof b6, &u, &err), BK_ERR_SCRIPT);
    CHECK_EQ_INT(err.offset, 8);
    b6[sizeof b6 - 1] = 0x07; /* whether x = 7 is on the curve, parse and bk_coin_read agree */
    bk_status st6 = bk_block_undo_parse(b6, sizeof b6, &u, &err);
    bk_reader r6;
    bk_reader_init(&r6, b6 + 5, sizeof b6 - 5);
    bk_coin c6;
    CHECK_EQ_INT(bk_coin_read(&r6, &c6), st6);
    uint8_t b5[] = {0x00};
    CHECK_EQ_INT(bk_block_undo_parse(b5, sizeof b5, &u, &err), BK_OK);
    CHECK_EQ_INT(u.n_txundo, 0);
    CHECK_EQ_INT(bk_block_undo_parse(b5, 0, &u, &err), BK_ERR_TRUNCATED);
}

/* Against the real blocks: shape check, and the fee identity
 * sum(prevouts) - sum(non-coinbase outputs) = coinbase outputs - subsidy,
 * with subsidy = 50 BTC >> (height / 210000) (Core: GetBlockSubsidy). */
static void test_fee_identity_real_blocks(void)
{
    static const struct { uint32_t height; int64_t fee; } v[] = {
        {277647, 4737355}, {367891, 14001930}, {866342, 5026183},
    };
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    for (size_t i = 0; i < 3; i++) {
        char name[128];
        size_t blen, ulen;
        snprintf(name, sizeof name, "blocks/block%u.raw", v[i].height);
        uint8_t *bb = check_read_file(name, &blen);
        snprintf(name, sizeof name, "undo/block%u_undo.raw", v[i].height);
        uint8_t *ub = check_read_file(name, &ulen);
        bk_block b;
        bk_block_undo u;
        bk_error err;
        CHECK_EQ_INT(bk_block_decode(&dec, bb, blen, &b, &err), BK_OK);
        CHECK_EQ_INT(bk_block_undo_parse(ub, ulen, &u, &err), BK_OK);
        CHECK_EQ_INT(bk_block_undo_check(&u, &b, &err), BK_OK);
        int64_t in_sum = 0, out_sum = 0, cb_sum = 0;
        bk_undo_iter it;
        bk_coin c;
        uint32_t n;
        bk_undo_iter_init(&it, &u);
        while (bk_undo_next_tx(&it, &n))
            while (bk_undo_next_coin(&it, &c)) in_sum += c.value;
        for (uint32_t t = 0; t < b.n_tx; t++) {
            bk_txout_iter oi;
            bk_txout o;
            bk_txout_iter_init(&oi, &b.txs[t]);
            while (bk_txout_next(&oi, &o)) *(t ? &out_sum : &cb_sum) += o.value;
        }
        int64_t subsidy = 5000000000LL >> (v[i].height / 210000);
        CHECK_EQ_INT(in_sum - out_sum, v[i].fee);
        CHECK_EQ_INT(cb_sum - subsidy, v[i].fee);
        CHECK_EQ_INT(bk_block_fees(&b, &u), v[i].fee);   /* the library's own sum */
        /* Another block's undo does not fit this block. */
        snprintf(name, sizeof name, "undo/block%u_undo.raw", v[(i + 1) % 3].height);
        size_t olen;
        uint8_t *ob = check_read_file(name, &olen);
        bk_block_undo o;
        CHECK_EQ_INT(bk_block_undo_parse(ob, olen, &o, &err), BK_OK);
        CHECK_EQ_INT(bk_block_undo_check(&o, &b, &err), BK_ERR_MISMATCH);
        free(ob);
        free(bb);
        free(ub);
    }
    bk_block_decoder_free(&dec);
}

int main(void)
{
    RUN(test_amount_compression_vectors);
    RUN(test_core_coin_vectors);
    RUN(test_script_compression_types);
    RUN(test_script_oversize_becomes_op_return);
    RUN(test_real_undo_files_match_spent_outputs);
    RUN(test_rev_record_checksums);
    RUN(test_undo_check_shape);
    RUN(test_fee_identity_real_blocks);
    RUN(test_prefixes_and_bit_flips);
    RUN(test_counts_checked_against_remaining);
    return check_finish();
}
