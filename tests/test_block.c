/* Blocks as views: every real block in tests/data/blocks against its
 * MANIFEST.json entry (hash, header fields, sizes, weight, nTx, BIP34
 * height), merkle root recomputed by a deliberately simple reference, the
 * BIP141 witness commitment recomputed from the wtxids, every transaction
 * re-serialized from its iterators to its exact bytes; rejection rules;
 * every prefix and random bit flips of small blocks; zero allocation on
 * decoder reuse. */
#include "check.h"

#include <blockkit/blockkit.h>

/* ---- tiny MANIFEST.json field lookup (flat objects, one key per line) ---- */

static const char *manifest;

/* The object for key "blocks/<name>": returns the text from its key up to
 * its closing brace (as a pointer and length). */
static const char *manifest_entry(const char *name, size_t *len)
{
    char key[256];
    snprintf(key, sizeof key, "\"blocks/%s\"", name);
    const char *s = strstr(manifest, key);
    if (!s) return NULL;
    const char *e = strchr(s, '}');
    *len = (size_t)(e - s);
    return s;
}

/* The raw JSON value text of field in an entry, copied into buf. */
static int manifest_field(const char *entry, size_t elen, const char *field, char *buf, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", field);
    const char *s = entry, *end = entry + elen;
    size_t kl = strlen(key);
    for (; s + kl <= end; s++)
        if (memcmp(s, key, kl) == 0) break;
    if (s + kl > end) return 0;
    s += kl;
    if (*s == '"') s++;
    size_t n = 0;
    while (s < end && *s != '"' && *s != ',' && *s != '\n' && n + 1 < cap) buf[n++] = *s++;
    buf[n] = 0;
    return 1;
}

static long long manifest_int(const char *entry, size_t elen, const char *field)
{
    char buf[64];
    if (!manifest_field(entry, elen, field, buf, sizeof buf)) return -1;
    if (strcmp(buf, "null") == 0) return -2;
    return strtoll(buf, NULL, 10);
}

/* Core's uint256::GetHex: bytes reversed. */
static void rhex(char *out, const uint8_t h[32])
{
    uint8_t r[32];
    for (int i = 0; i < 32; i++) r[i] = h[31 - i];
    check_hex(out, r, 32);
}

static uint8_t *load_block(const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "blocks/%s", name);
    size_t n;
    uint8_t *b = check_read_file(path, &n);
    size_t nl = strlen(name);
    if (nl > 4 && strcmp(name + nl - 4, ".hex") == 0) {
        uint8_t *raw = check_unhex((const char *)b, len);
        free(b);
        return raw;
    }
    *len = n;
    return b;
}

/* ---- deliberately simple references ---- */

/* Merkle root: pairwise SHA256d, duplicating the last node of an odd level
 * (Core: consensus/merkle.cpp ComputeMerkleRoot), one node at a time. */
static void ref_merkle_root(uint8_t *hashes, size_t n, uint8_t root[32])
{
    while (n > 1) {
        size_t m = 0;
        for (size_t i = 0; i < n; i += 2) {
            uint8_t pair[64];
            memcpy(pair, hashes + 32 * i, 32);
            memcpy(pair + 32, hashes + 32 * (i + 1 < n ? i + 1 : i), 32);
            bk_sha256d(hashes + 32 * m, pair, 64);
            m++;
        }
        n = m;
    }
    memcpy(root, hashes, 32);
}

static void put_cs(bk_writer *w, uint64_t v)
{
    uint8_t b[9];
    bk_writer_put(w, b, bk_compact_size_encode(b, v));
}

static void put_le32(bk_writer *w, uint32_t v)
{
    uint8_t b[4];
    bk_store_le32(b, v);
    bk_writer_put(w, b, 4);
}

/* Re-serialize a transaction from what the view and its iterators report
 * (Core: SerializeTransaction), checking the iterator positions on the way.
 * with_witness 0 gives the stripped serialization. */
static void reserialize(const bk_tx *tx, bk_writer *w, int with_witness)
{
    bk_txin_iter ii;
    bk_txout_iter oi;
    bk_txin in;
    bk_txout out;
    put_le32(w, tx->version);
    if (with_witness && tx->has_witness) {
        bk_writer_putc(w, 0);
        bk_writer_putc(w, 1);
    }
    put_cs(w, tx->n_in);
    bk_txin_iter_init(&ii, tx);
    uint32_t count = 0;
    while (bk_txin_next(&ii, &in)) {
        bk_writer_put(w, in.prev_txid, 32);
        put_le32(w, in.prev_index);
        put_cs(w, in.script_sig_len);
        bk_writer_put(w, in.script_sig, in.script_sig_len);
        put_le32(w, in.sequence);
        count++;
    }
    CHECK_EQ_INT(count, tx->n_in);
    CHECK_EQ_INT(ii.pos + bk_compact_size_len(tx->n_out), tx->vout_pos);
    put_cs(w, tx->n_out);
    bk_txout_iter_init(&oi, tx);
    count = 0;
    while (bk_txout_next(&oi, &out)) {
        uint8_t v[8];
        bk_store_le64(v, (uint64_t)out.value);
        bk_writer_put(w, v, 8);
        put_cs(w, out.script_len);
        bk_writer_put(w, out.script, out.script_len);
        count++;
    }
    CHECK_EQ_INT(count, tx->n_out);
    CHECK_EQ_INT(oi.pos, tx->has_witness ? tx->wit_pos : tx->size - 4);
    if (with_witness && tx->has_witness) {
        bk_txin_iter_init(&ii, tx);
        while (bk_txin_next(&ii, &in)) {
            put_cs(w, in.witness_items);
            bk_witness_iter wi;
            bk_witness_iter_init(&wi, &in);
            const uint8_t *item;
            uint32_t il;
            uint32_t k = 0;
            while (bk_witness_next(&wi, &item, &il)) {
                put_cs(w, il);
                bk_writer_put(w, item, il);
                k++;
            }
            CHECK_EQ_INT(k, in.witness_items);
        }
        CHECK_EQ_INT(ii.wpos, tx->size - 4);
    }
    put_le32(w, tx->locktime);
}

/* BIP141 witness commitment: the last coinbase output whose script starts
 * 6a24aa21a9ed; 0 when there is none, 1 when it matches, -1 otherwise. */
static int witness_commitment(const bk_block *b, const uint8_t *wtxids)
{
    const bk_tx *cb = &b->txs[0];
    bk_txout_iter oi;
    bk_txout out;
    const uint8_t *commit = NULL;
    static const uint8_t tag[6] = {0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed};
    bk_txout_iter_init(&oi, cb);
    while (bk_txout_next(&oi, &out))
        if (out.script_len >= 38 && memcmp(out.script, tag, 6) == 0) commit = out.script + 6;
    if (!commit) return 0;
    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, cb);
    if (!bk_txin_next(&ii, &in) || in.witness_items != 1) return -1;
    bk_witness_iter wi;
    bk_witness_iter_init(&wi, &in);
    const uint8_t *reserved;
    uint32_t rl;
    if (!bk_witness_next(&wi, &reserved, &rl) || rl != 32) return -1;
    uint8_t *leaves = malloc(32 * (size_t)b->n_tx);
    memcpy(leaves, wtxids, 32 * (size_t)b->n_tx);
    memset(leaves, 0, 32); /* Core: BlockWitnessMerkleRoot, coinbase wtxid is zero */
    uint8_t root[64], c[32];
    ref_merkle_root(leaves, b->n_tx, root);
    free(leaves);
    memcpy(root + 32, reserved, 32);
    bk_sha256d(c, root, 64);
    return memcmp(c, commit, 32) == 0 ? 1 : -1;
}

static int tx_equal(const bk_tx *a, const bk_tx *b)
{
    return a->data == b->data && a->size == b->size && a->stripped_size == b->stripped_size &&
           a->version == b->version && a->locktime == b->locktime && a->n_in == b->n_in &&
           a->n_out == b->n_out && a->vin_pos == b->vin_pos && a->vout_pos == b->vout_pos &&
           a->wit_pos == b->wit_pos && a->has_witness == b->has_witness;
}

static void check_block(const char *name)
{
    size_t elen;
    const char *e = manifest_entry(name, &elen);
    CHECK(e != NULL);
    if (!e) return;
    size_t len;
    uint8_t *data = load_block(name, &len);
    size_t cap = bk_block_max_txs(len);
    bk_tx *txs = malloc(cap * sizeof *txs);
    bk_block b;
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_block_parse(data, len, txs, cap, &b, &err);
    CHECK_EQ_INT(st, BK_OK);
    if (st) {
        fprintf(stderr, "%s: %s at %llu\n", name, err.msg, (unsigned long long)err.offset);
        free(txs);
        free(data);
        return;
    }
    char hex[65], want[80];
    uint8_t h[32];
    bk_block_hash(&b, h);
    rhex(hex, h);
    manifest_field(e, elen, "hash", want, sizeof want);
    CHECK_EQ_STR(hex, want);
    rhex(hex, b.header.prev_hash);
    manifest_field(e, elen, "prev", want, sizeof want);
    CHECK_EQ_STR(hex, want);
    rhex(hex, b.header.merkle_root);
    manifest_field(e, elen, "merkleroot", want, sizeof want);
    CHECK_EQ_STR(hex, want);
    CHECK_EQ_INT(b.header.version, manifest_int(e, elen, "version"));
    CHECK_EQ_INT(b.header.time, manifest_int(e, elen, "time"));
    CHECK_EQ_INT(b.header.nonce, manifest_int(e, elen, "nonce"));
    snprintf(hex, sizeof hex, "%08x", b.header.bits);
    manifest_field(e, elen, "bits", want, sizeof want);
    CHECK_EQ_STR(hex, want);
    CHECK_EQ_INT(b.n_tx, manifest_int(e, elen, "nTx"));
    CHECK_EQ_INT(b.size, manifest_int(e, elen, "size"));
    CHECK_EQ_INT(b.stripped_size, manifest_int(e, elen, "strippedsize"));
    CHECK_EQ_INT(bk_block_weight(&b), manifest_int(e, elen, "weight"));
    CHECK(b.data == data && b.txs == txs);

    long long height = manifest_int(e, elen, "height_bip34");
    uint32_t got_height = 0;
    st = bk_block_bip34_height(&b, &got_height);
    if (height == -2) {
        CHECK_EQ_INT(st, BK_ERR_NOT_FOUND);
    } else {
        CHECK_EQ_INT(st, BK_OK);
        CHECK_EQ_INT(got_height, height);
    }

    /* txids: batched vs one at a time from the written stripped bytes */
    uint8_t *txids = malloc(32 * (size_t)b.n_tx), *wtxids = malloc(32 * (size_t)b.n_tx);
    bk_block_txids(&b, txids);
    bk_block_wtxids(&b, wtxids);
    {
        uint8_t *t2 = malloc(32 * (size_t)b.n_tx), *w2 = malloc(32 * (size_t)b.n_tx);
        bk_block_txids_wtxids(&b, t2, w2);
        CHECK_MEM(t2, txids, 32 * (size_t)b.n_tx);
        CHECK_MEM(w2, wtxids, 32 * (size_t)b.n_tx);
        /* one engine call over the whole block through a decoder's scratch */
        bk_block_decoder hd;
        bk_block_decoder_init(&hd, NULL);
        memset(t2, 0, 32 * (size_t)b.n_tx);
        memset(w2, 0, 32 * (size_t)b.n_tx);
        CHECK_EQ_INT(bk_block_decoder_hash(&hd, &b, t2, w2), BK_OK);
        CHECK_MEM(t2, txids, 32 * (size_t)b.n_tx);
        CHECK_MEM(w2, wtxids, 32 * (size_t)b.n_tx);
        memset(t2, 0, 32 * (size_t)b.n_tx);
        CHECK_EQ_INT(bk_block_decoder_hash(&hd, &b, t2, NULL), BK_OK);
        CHECK_MEM(t2, txids, 32 * (size_t)b.n_tx);
        bk_block_decoder_free(&hd);
        free(t2);
        free(w2);
    }
    bk_writer w, full;
    bk_writer_init(&w, NULL);
    bk_writer_init(&full, NULL);
    size_t sum = 0, sum_stripped = 0;
    int txid_ok = 1, wtxid_ok = 1, bytes_ok = 1, single_ok = 1;
    for (uint32_t i = 0; i < b.n_tx; i++) {
        const bk_tx *tx = &b.txs[i];
        CHECK(tx->data == data + 80 + bk_compact_size_len(b.n_tx) + sum);
        sum += tx->size;
        sum_stripped += tx->stripped_size;
        bk_writer_reset(&w);
        bk_tx_write_stripped(tx, &w);
        CHECK_EQ_INT(w.len, tx->stripped_size);
        uint8_t ref[32], one[32];
        bk_sha256d(ref, w.data, w.len);
        if (memcmp(ref, txids + 32 * i, 32) != 0) txid_ok = 0;
        bk_tx_txid(tx, one);
        if (memcmp(ref, one, 32) != 0) txid_ok = 0;
        bk_sha256d(ref, tx->data, tx->size);
        if (memcmp(ref, wtxids + 32 * i, 32) != 0) wtxid_ok = 0;
        bk_tx_wtxid(tx, one);
        if (memcmp(ref, one, 32) != 0) wtxid_ok = 0;
        if (!tx->has_witness && (w.len != tx->size || memcmp(w.data, tx->data, w.len) != 0)) bytes_ok = 0;
        if (!tx->has_witness && memcmp(txids + 32 * i, wtxids + 32 * i, 32) != 0) wtxid_ok = 0;
        /* from the iterators: the exact bytes with and without witness */
        bk_writer_reset(&full);
        reserialize(tx, &full, 1);
        if (full.len != tx->size || memcmp(full.data, tx->data, tx->size) != 0) bytes_ok = 0;
        bk_writer_reset(&full);
        reserialize(tx, &full, 0);
        if (full.len != w.len || memcmp(full.data, w.data, w.len) != 0) bytes_ok = 0;
        /* the same transaction parsed alone */
        bk_tx alone;
        if (bk_tx_parse(tx->data, tx->size, &alone, NULL, NULL) != BK_OK ||
            !tx_equal(&alone, tx))
            single_ok = 0;
        CHECK_EQ_INT(bk_tx_is_coinbase(tx), i == 0);
    }
    CHECK(txid_ok);
    CHECK(wtxid_ok);
    CHECK(bytes_ok);
    CHECK(single_ok);
    CHECK_EQ_INT(80 + bk_compact_size_len(b.n_tx) + sum, b.size);
    CHECK_EQ_INT(80 + bk_compact_size_len(b.n_tx) + sum_stripped, b.stripped_size);
    bk_writer_free(&w);
    bk_writer_free(&full);

    uint8_t root[32];
    ref_merkle_root(txids, b.n_tx, root);
    CHECK_MEM(root, b.header.merkle_root, 32);
    manifest_field(e, elen, "witness_commitment_ok", want, sizeof want);
    int wc = witness_commitment(&b, wtxids);
    CHECK_EQ_INT(wc, strcmp(want, "true") == 0 ? 1 : 0);
    printf("%-28s nTx %5u size %8zu stripped %8zu weight %8llu OK\n", name, b.n_tx, b.size,
           b.stripped_size, (unsigned long long)bk_block_weight(&b));
    free(txids);
    free(wtxids);
    free(txs);
    free(data);
}

static void every_block_in_manifest(void)
{
    size_t n;
    manifest = (const char *)check_read_file("blocks/MANIFEST.json", &n);
    int count = 0;
    for (const char *s = strstr(manifest, "\"blocks/"); s; s = strstr(s + 1, "\"blocks/")) {
        char name[128];
        const char *q = strchr(s + 8, '"');
        snprintf(name, sizeof name, "%.*s", (int)(q - (s + 8)), s + 8);
        check_block(name);
        count++;
    }
    CHECK_EQ_INT(count, 11);
}

static void header_parse_and_known_hash(void)
{
    size_t len;
    uint8_t *data = load_block("block413567.raw", &len);
    bk_header h;
    bk_error err;
    CHECK_EQ_INT(bk_header_parse(data, 79, &h, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.status, BK_ERR_TRUNCATED);
    CHECK_EQ_INT(bk_header_parse(data, 80, &h, &err), BK_OK);
    CHECK_EQ_INT(h.version, 4);
    CHECK_EQ_INT(h.time, 1464307123);
    uint8_t hash[32];
    char hex[65];
    bk_header_hash(data, hash);
    rhex(hex, hash);
    CHECK_EQ_STR(hex, "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069");
    free(data);
}

/* ---- rejection rules, one named case each ---- */

static uint8_t small_block[91];

/* header of block 413567 + 1 tx: version 1, empty vin, flags 0, locktime 0 */
static size_t make_small_block(uint8_t *out)
{
    size_t len;
    uint8_t *data = load_block("block413567.raw", &len);
    memcpy(out, data, 80);
    free(data);
    static const uint8_t tx[10] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    out[80] = 1;
    memcpy(out + 81, tx, 10);
    return 91;
}

static bk_status parse_bytes(const uint8_t *p, size_t n, bk_error *err)
{
    bk_tx txs[4];
    bk_block b;
    return bk_block_parse(p, n, txs, 4, &b, err);
}

static void smallest_block_parses(void)
{
    size_t n = make_small_block(small_block);
    CHECK_EQ_INT(bk_block_max_txs(n), 1);
    bk_tx txs[1];
    bk_block b;
    CHECK_EQ_INT(bk_block_parse(small_block, n, txs, 1, &b, NULL), BK_OK);
    CHECK_EQ_INT(b.n_tx, 1);
    CHECK_EQ_INT(b.txs[0].size, 10);
    CHECK_EQ_INT(b.txs[0].n_in, 0);
    CHECK_EQ_INT(b.txs[0].n_out, 0);
    CHECK_EQ_INT(b.stripped_size, 91);
    uint32_t height;
    CHECK_EQ_INT(bk_block_bip34_height(&b, &height), BK_ERR_NOT_FOUND); /* no input */
}

static void reject_zero_tx_block(void)
{
    uint8_t buf[81];
    memcpy(buf, small_block, 80);
    buf[80] = 0;
    bk_error err;
    CHECK_EQ_INT(parse_bytes(buf, 81, &err), BK_ERR_NO_TX);
    CHECK_EQ_INT(err.offset, 80);
}

static void reject_trailing_bytes(void)
{
    uint8_t buf[92];
    memcpy(buf, small_block, 91);
    buf[91] = 0;
    bk_error err;
    CHECK_EQ_INT(parse_bytes(buf, 92, &err), BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 91);
}

static void reject_truncated(void)
{
    bk_error err;
    CHECK_EQ_INT(parse_bytes(small_block, 79, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(parse_bytes(small_block, 80, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, 80);
    /* count 1 but 9 bytes of tx: the count cannot fit */
    CHECK_EQ_INT(parse_bytes(small_block, 90, &err), BK_ERR_COUNT);
}

static void reject_huge_count(void)
{
    uint8_t buf[96];
    memcpy(buf, small_block, 80);
    /* 0x02000000 = MAX_SIZE itself: range-checked fine, cannot fit */
    static const uint8_t c1[5] = {0xfe, 0x00, 0x00, 0x00, 0x02};
    memcpy(buf + 80, c1, 5);
    memcpy(buf + 85, small_block + 81, 10);
    bk_error err;
    CHECK_EQ_INT(parse_bytes(buf, 95, &err), BK_ERR_COUNT);
    CHECK_EQ_INT(err.offset, 80);
    /* 0x02000001: over MAX_SIZE */
    buf[81] = 1;
    CHECK_EQ_INT(parse_bytes(buf, 95, &err), BK_ERR_SIZE);
    /* non-canonical count: fd 01 00 */
    static const uint8_t c2[3] = {0xfd, 0x01, 0x00};
    memcpy(buf + 80, c2, 3);
    memcpy(buf + 83, small_block + 81, 10);
    CHECK_EQ_INT(parse_bytes(buf, 93, &err), BK_ERR_NONCANONICAL);
    CHECK_EQ_INT(err.offset, 80);
}

static void reject_small_table(void)
{
    size_t len;
    uint8_t *data = load_block("block_0000000000013b8a.hex", &len);
    bk_tx txs[9];
    bk_block b;
    bk_error err;
    CHECK_EQ_INT(bk_block_parse(data, len, txs, 8, &b, &err), BK_ERR_BUFFER);
    CHECK_EQ_INT(err.status, BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_block_parse(data, len, NULL, 0, &b, &err), BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_block_parse(data, len, txs, 9, &b, &err), BK_OK);
    free(data);
}


/* Offsets in errors are relative to the block's first byte. */
static void error_offsets_are_block_relative(void)
{
    size_t len;
    uint8_t *data = load_block("block_0000000000013b8a.hex", &len);
    bk_tx txs[9];
    bk_block b;
    CHECK_EQ_INT(bk_block_parse(data, len, txs, 9, &b, NULL), BK_OK);
    size_t start = (size_t)(b.txs[3].data - data);
    bk_error err;
    size_t tx3_size = b.txs[3].size;
    CHECK_EQ_INT(bk_block_parse(data, start + tx3_size - 1, txs, 9, &b, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, start + tx3_size - 4); /* its nLockTime */
    CHECK(strstr(err.msg, "nLockTime") != NULL);
    CHECK_EQ_INT(bk_block_parse(data, len, txs, 9, &b, NULL), BK_OK);
    /* a non-canonical scriptSig length in tx 3: fd 0x08 0x00 in place of its
     * first 3 bytes (the reader sees it before anything else is wrong) */
    uint8_t *copy = malloc(len);
    memcpy(copy, data, len);
    size_t at = start + b.txs[3].vin_pos + 36;
    copy[at] = 0xfd;
    copy[at + 1] = 0x08;
    copy[at + 2] = 0x00;
    CHECK_EQ_INT(bk_block_parse(copy, len, txs, 9, &b, &err), BK_ERR_NONCANONICAL);
    CHECK_EQ_INT(err.offset, at);
    /* bk_block_max_txs bounds any parse */
    CHECK_EQ_INT(bk_block_max_txs(0), 0);
    CHECK_EQ_INT(bk_block_max_txs(90), 0);
    CHECK_EQ_INT(bk_block_max_txs(91), 1);
    CHECK_EQ_INT(bk_block_max_txs(len), (len - 81) / 10);
    CHECK_EQ_INT(bk_block_max_txs((size_t)1 << 40), 0x02000000);
    CHECK_EQ_INT(bk_block_parse(NULL, 5, txs, 9, &b, &err), BK_ERR_ARG);
    CHECK_EQ_INT(bk_block_parse(data, len, NULL, 9, &b, &err), BK_ERR_ARG);
    free(copy);
    free(data);
}

/* ---- robustness: every prefix, random bit flips ---- */

static void check_invariants(const bk_block *b, size_t len)
{
    size_t sum = 80 + bk_compact_size_len(b->n_tx), sum_s = sum;
    for (uint32_t i = 0; i < b->n_tx; i++) {
        sum += b->txs[i].size;
        sum_s += b->txs[i].stripped_size;
        bk_writer w;
        bk_writer_init(&w, NULL);
        reserialize(&b->txs[i], &w, 1);
        CHECK(w.len == b->txs[i].size && memcmp(w.data, b->txs[i].data, w.len) == 0);
        bk_writer_free(&w);
    }
    CHECK_EQ_INT(sum, len);
    CHECK_EQ_INT(sum_s, b->stripped_size);
}

static void every_prefix(const char *name)
{
    size_t len;
    uint8_t *data = load_block(name, &len);
    size_t cap = bk_block_max_txs(len);
    bk_tx *txs = malloc(cap * sizeof *txs);
    int ok = 1;
    for (size_t n = 0; n < len; n++) {
        /* an exact-size copy so the sanitizer sees any overread */
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, data, n);
        bk_block b;
        bk_error err;
        bk_status st = bk_block_parse(p, n, txs, cap, &b, &err);
        if (st == BK_OK || err.status != st || err.offset > n) ok = 0;
        if (st != BK_ERR_TRUNCATED && st != BK_ERR_COUNT) ok = 0;
        free(p);
    }
    CHECK(ok);
    free(txs);
    free(data);
}

static void every_prefix_of_small_blocks(void)
{
    every_prefix("block_0000000000013b8a.hex");
    every_prefix("testnet3_block924634.raw");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void random_bit_flips(const char *name, int rounds)
{
    size_t len;
    uint8_t *data = load_block(name, &len);
    size_t cap = bk_block_max_txs(len);
    bk_tx *txs = malloc(cap * sizeof *txs);
    uint8_t *p = malloc(len);
    int oks = 0, errs = 0;
    for (int r = 0; r < rounds; r++) {
        memcpy(p, data, len);
        int flips = 1 + (int)(rng() % 4);
        for (int f = 0; f < flips; f++) {
            size_t bit = (size_t)(rng() % (len * 8));
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        bk_block b;
        bk_error err;
        bk_status st = bk_block_parse(p, len, txs, cap, &b, &err);
        if (st == BK_OK) {
            oks++;
            check_invariants(&b, len);
            uint8_t *ids = malloc(32 * (size_t)b.n_tx);
            bk_block_txids(&b, ids);
            bk_block_wtxids(&b, ids);
            uint32_t h;
            bk_status hst = bk_block_bip34_height(&b, &h);
            CHECK(hst == BK_OK || hst == BK_ERR_NOT_FOUND);
            free(ids);
        } else {
            errs++;
            CHECK(err.status == st && err.offset <= len && err.msg[0]);
        }
    }
    printf("%s: %d flips parse, %d refused\n", name, oks, errs);
    CHECK(oks > 0 && errs > 0);
    free(p);
    free(txs);
    free(data);
}

static void bit_flips(void)
{
    random_bit_flips("testnet3_block924634.raw", 3000);
    random_bit_flips("block_0000000000013b8a.hex", 2000);
}


/* ---- BIP34 height on synthetic coinbases ---- */

static bk_status bip34_of(int32_t version, const char *script_hex, uint32_t *height)
{
    size_t sl;
    uint8_t *script = check_unhex(script_hex, &sl);
    uint8_t buf[512];
    size_t n = 0;
    memset(buf, 0, 80);
    bk_store_le32(buf, (uint32_t)version);
    n = 80;
    buf[n++] = 1;                              /* 1 tx */
    bk_store_le32(buf + n, 1); n += 4;         /* tx version */
    buf[n++] = 1;                              /* 1 input */
    memset(buf + n, 0, 32); n += 32;
    bk_store_le32(buf + n, 0xffffffffu); n += 4;
    n += bk_compact_size_encode(buf + n, sl);
    memcpy(buf + n, script, sl); n += sl;
    bk_store_le32(buf + n, 0xffffffffu); n += 4;
    buf[n++] = 1;                              /* 1 output */
    memset(buf + n, 0, 8); n += 8;
    buf[n++] = 0;
    memset(buf + n, 0, 4); n += 4;             /* locktime */
    free(script);
    bk_tx txs[1];
    bk_block b;
    bk_status st = bk_block_parse(buf, n, txs, 1, &b, NULL);
    CHECK_EQ_INT(st, BK_OK);
    if (st) return st;
    CHECK(bk_tx_is_coinbase(&b.txs[0]));
    *height = 0xdeadbeef;
    return bk_block_bip34_height(&b, height);
}

static void bip34_height_rules(void)
{
    static const struct { const char *script; bk_status st; uint32_t height; } cases[] = {
        {"00", BK_OK, 0},                       /* OP_0 */
        {"51", BK_OK, 1},                       /* OP_1 */
        {"60ff", BK_OK, 16},                    /* OP_16, then anything */
        {"0111", BK_OK, 17},
        {"0110", BK_ERR_NOT_FOUND, 0},          /* 16 pushed as data: Core writes OP_16 */
        {"0100", BK_ERR_NOT_FOUND, 0},          /* 0 pushed as data */
        {"020100", BK_ERR_NOT_FOUND, 0},        /* non-minimal number */
        {"0180", BK_ERR_NOT_FOUND, 0},          /* negative zero */
        {"0181", BK_ERR_NOT_FOUND, 0},          /* -1 */
        {"028000", BK_OK, 128},
        {"027f00", BK_ERR_NOT_FOUND, 0},        /* 127 with a needless sign byte */
        {"03ffff7f", BK_OK, 8388607},
        {"03c0f60d", BK_OK, 915136},
        {"04ffffff7f", BK_OK, 2147483647},
        {"05ffffffff00", BK_OK, 4294967295u},
        {"050000000001", BK_ERR_NOT_FOUND, 0},  /* 2^32: over uint32 */
        {"0600000000000001", BK_ERR_NOT_FOUND, 0},
        {"4f", BK_ERR_NOT_FOUND, 0},            /* OP_1NEGATE */
        {"4c0111", BK_ERR_NOT_FOUND, 0},        /* OP_PUSHDATA1: not what CScript() << n writes */
        {"03ab", BK_ERR_NOT_FOUND, 0},          /* push runs past the script */
        {"", BK_ERR_NOT_FOUND, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t h;
        bk_status st = bip34_of(2, cases[i].script, &h);
        if (st != cases[i].st) fprintf(stderr, "  case %s\n", cases[i].script);
        CHECK_EQ_INT(st, cases[i].st);
        if (cases[i].st == BK_OK) CHECK_EQ_INT(h, cases[i].height);
    }
    uint32_t h;
    CHECK_EQ_INT(bip34_of(1, "03c0f60d", &h), BK_ERR_NOT_FOUND); /* version 1: no BIP34 */
    CHECK_EQ_INT(bip34_of(0x20000000, "03c0f60d", &h), BK_OK);
    CHECK_EQ_INT(bip34_of((int32_t)0x80000002u, "03c0f60d", &h), BK_ERR_NOT_FOUND); /* negative version */
}

/* ---- decoder ---- */

static void decoder_reuse_allocates_nothing(void)
{
    size_t len1, len2;
    uint8_t *big = load_block("block413567.raw", &len1);
    uint8_t *small = load_block("testnet3_block924634.raw", &len2);
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    bk_block_decoder d;
    bk_block_decoder_init(&d, &ca.base);
    bk_block b;
    CHECK_EQ_INT(bk_block_decode(&d, big, len1, &b, NULL), BK_OK);
    CHECK_EQ_INT(b.n_tx, 1557);
    CHECK_EQ_INT(ca.allocs, 1);
    bk_counting_allocator_reset(&ca);
    CHECK_EQ_INT(bk_block_decode(&d, big, len1, &b, NULL), BK_OK);
    CHECK_EQ_INT(bk_block_decode(&d, small, len2, &b, NULL), BK_OK);
    CHECK_EQ_INT(b.n_tx, 15);
    CHECK_EQ_INT(ca.allocs, 0);
    /* hashing scratch: grown once (2 allocations), then none */
    uint8_t *ids = malloc(32 * 1557), *wids = malloc(32 * 1557);
    CHECK_EQ_INT(bk_block_decode(&d, big, len1, &b, NULL), BK_OK);
    CHECK_EQ_INT(bk_block_decoder_hash(&d, &b, ids, wids), BK_OK);
    CHECK_EQ_INT(ca.allocs, 2);
    bk_counting_allocator_reset(&ca);
    CHECK_EQ_INT(bk_block_decoder_hash(&d, &b, ids, wids), BK_OK);
    CHECK_EQ_INT(bk_block_decode(&d, small, len2, &b, NULL), BK_OK);
    CHECK_EQ_INT(bk_block_decoder_hash(&d, &b, ids, wids), BK_OK);
    CHECK_EQ_INT(ca.allocs, 0);
    free(ids);
    free(wids);
    /* errors leave the decoder usable */
    bk_error err;
    CHECK_EQ_INT(bk_block_decode(&d, big, len1 - 1, &b, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(bk_block_decode(&d, big, len1, &b, NULL), BK_OK);
    CHECK_EQ_INT(ca.allocs, 0);
    bk_block_decoder_free(&d);
    CHECK_EQ_INT(ca.live, 0);
    CHECK_EQ_INT(ca.frees, 3);
    free(big);
    free(small);
}

int main(void)
{
    RUN(header_parse_and_known_hash);
    RUN(every_block_in_manifest);
    RUN(smallest_block_parses);
    RUN(reject_zero_tx_block);
    RUN(reject_trailing_bytes);
    RUN(reject_truncated);
    RUN(reject_huge_count);
    RUN(reject_small_table);
    RUN(bip34_height_rules);
    RUN(error_offsets_are_block_relative);
    RUN(every_prefix_of_small_blocks);
    RUN(bit_flips);
    RUN(decoder_reuse_allocates_nothing);
    free((void *)manifest);
    return check_finish();
}
