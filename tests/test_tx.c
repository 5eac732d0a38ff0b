/* Transactions as views: txid/wtxid/size/weight/vsize against the vectors in
 * tests/data/txs, exact re-serialization, iterators and witness stacks, and
 * every rejection rule of Core's UnserializeTransaction as one named case. */
#include "check.h"

#include <blockkit/blockkit.h>

#include <sys/mman.h>

/* ---- helpers ---- */

static void rhex(char *out, const uint8_t h[32])
{
    uint8_t r[32];
    for (int i = 0; i < 32; i++) r[i] = h[31 - i];
    check_hex(out, r, 32);
}

/* The string or number value of "key" in [s, end) copied to a new buffer. */
static char *json_value(const char *s, const char *end, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    size_t kl = strlen(k);
    for (; s + kl <= end; s++)
        if (memcmp(s, k, kl) == 0) break;
    if (s + kl > end) return NULL;
    s += kl;
    if (*s == '"') s++;
    const char *e = s;
    while (e < end && *e != '"' && *e != ',' && *e != '\n') e++;
    char *out = malloc((size_t)(e - s) + 1);
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = 0;
    return out;
}

static long json_int(const char *s, const char *end, const char *key)
{
    char *v = json_value(s, end, key);
    long r = v ? strtol(v, NULL, 10) : -1;
    free(v);
    return r;
}

/* Checks shared by every valid transaction: sizes, stripped bytes and
 * txid/wtxid against one-shot hashes, iterators end where they must. */
static void check_valid_tx(const uint8_t *p, size_t n, bk_tx *tx)
{
    bk_error err;
    bk_status st = bk_tx_parse(p, n, tx, NULL, &err);
    CHECK_EQ_INT(st, BK_OK);
    if (st) {
        fprintf(stderr, "  %s at %llu\n", err.msg, (unsigned long long)err.offset);
        return;
    }
    CHECK_EQ_INT(tx->size, n);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_tx_write_stripped(tx, &w);
    CHECK_EQ_INT(w.len, tx->stripped_size);
    if (!tx->has_witness) {
        CHECK(w.len == n && memcmp(w.data, p, n) == 0);
    } else {
        CHECK(p[4] == 0 && p[5] == 1);
        CHECK(w.len < n);
    }
    uint8_t a[32], b[32];
    bk_sha256d(a, w.data, w.len);
    bk_tx_txid(tx, b);
    CHECK_MEM(a, b, 32);
    bk_sha256d(a, p, n);
    bk_tx_wtxid(tx, b);
    CHECK_MEM(a, b, 32);
    bk_writer_free(&w);

    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, tx);
    uint32_t k = 0;
    while (bk_txin_next(&ii, &in)) {
        k++;
        CHECK_EQ_INT(in.witness == NULL, !tx->has_witness);
        bk_witness_iter wi;
        bk_witness_iter_init(&wi, &in);
        const uint8_t *item;
        uint32_t il, m = 0;
        while (bk_witness_next(&wi, &item, &il)) m++;
        CHECK_EQ_INT(m, in.witness_items);
    }
    CHECK_EQ_INT(k, tx->n_in);
    CHECK_EQ_INT(ii.pos + bk_compact_size_len(tx->n_out), tx->vout_pos);
    CHECK_EQ_INT(ii.wpos, tx->size - 4);
    bk_txout_iter oi;
    bk_txout out;
    bk_txout_iter_init(&oi, tx);
    k = 0;
    while (bk_txout_next(&oi, &out)) k++;
    CHECK_EQ_INT(k, tx->n_out);
    CHECK_EQ_INT(oi.pos, tx->wit_pos);
    CHECK_EQ_INT(bk_load_le32(p + n - 4), tx->locktime);
    CHECK_EQ_INT(bk_load_le32(p), tx->version);
}

/* ---- vectors ---- */

static void mainnet_tx_samples(void)
{
    size_t n;
    char *json = (char *)check_read_file("txs/mainnet_tx_samples.json", &n);
    const char *end = json + n;
    int count = 0, witness = 0;
    for (const char *s = strstr(json, "\"name\": "); s; ) {
        const char *next = strstr(s + 1, "\"name\": ");
        const char *e = next ? next : end;
        char *name = json_value(s, e, "name"), *hex = json_value(s, e, "hex");
        char *txid = json_value(s, e, "txid"), *wtxid = json_value(s, e, "wtxid");
        size_t len;
        uint8_t *raw = check_unhex(hex, &len);
        bk_tx tx;
        check_case = name;
        check_valid_tx(raw, len, &tx);
        char got[65];
        uint8_t h[32];
        bk_tx_txid(&tx, h);
        rhex(got, h);
        CHECK_EQ_STR(got, txid);
        bk_tx_wtxid(&tx, h);
        rhex(got, h);
        CHECK_EQ_STR(got, wtxid);
        CHECK_EQ_INT(tx.size, json_int(s, e, "size"));
        CHECK_EQ_INT(bk_tx_weight(&tx), json_int(s, e, "weight"));
        CHECK_EQ_INT(bk_tx_vsize(&tx), json_int(s, e, "vsize"));
        CHECK_EQ_INT(bk_tx_is_coinbase(&tx), strstr(name, "coinbase_") == name);
        witness += tx.has_witness;
        count++;
        free(name); free(hex); free(txid); free(wtxid); free(raw);
        s = next;
    }
    CHECK_EQ_INT(count, 14);
    CHECK(witness >= 6);
    free(json);
}

static void raw_tx_file(const char *file, const char *want_txid, int want_witness)
{
    size_t n;
    uint8_t *p = check_read_file(file, &n);
    bk_tx tx;
    check_valid_tx(p, n, &tx);
    uint8_t h[32];
    char got[65];
    bk_tx_txid(&tx, h);
    rhex(got, h);
    CHECK_EQ_STR(got, want_txid);
    CHECK_EQ_INT(tx.has_witness, want_witness);
    free(p);
}

static void large_raw_txs(void)
{
    /* P2TR script path with 1001 witness items */
    raw_tx_file("txs/tx_7393096d97bfee8660f4100ffd61874d62f9a65de9fb6acf740c4c386990ef73.raw",
                "7393096d97bfee8660f4100ffd61874d62f9a65de9fb6acf740c4c386990ef73", 1);
    size_t n;
    uint8_t *p = check_read_file("txs/tx_7393096d97bfee8660f4100ffd61874d62f9a65de9fb6acf740c4c386990ef73.raw", &n);
    bk_tx tx;
    CHECK_EQ_INT(bk_tx_parse(p, n, &tx, NULL, NULL), BK_OK);
    bk_txin_iter it;
    bk_txin in;
    uint32_t max_items = 0;
    bk_txin_iter_init(&it, &tx);
    while (bk_txin_next(&it, &in))
        if (in.witness_items > max_items) max_items = in.witness_items;
    CHECK_EQ_INT(max_items, 1001);
    free(p);
    /* legacy, 5569 inputs, 999,657 bytes */
    raw_tx_file("txs/tx_bb41a757f405890fb0f5856228e23b715702d714d59bf2b1feb70d8b2b4e3e08.raw",
                "bb41a757f405890fb0f5856228e23b715702d714d59bf2b1feb70d8b2b4e3e08", 0);
    p = check_read_file("txs/tx_bb41a757f405890fb0f5856228e23b715702d714d59bf2b1feb70d8b2b4e3e08.raw", &n);
    CHECK_EQ_INT(bk_tx_parse(p, n, &tx, NULL, NULL), BK_OK);
    CHECK_EQ_INT(tx.n_in, 5569);
    CHECK_EQ_INT(tx.size, 999657);
    free(p);
}

/* Core's feature_taproot dump: the tx is stored without witness; add the
 * success witness to input `index` (others empty) and check the stack
 * comes back item by item, the annex (last item 0x50) included, and that the
 * txid does not change. */
static void taproot_dump_with_witness(void)
{
    size_t n;
    char *json = (char *)check_read_file("txs/core_feature_taproot_dump_samples.json", &n);
    const char *end = json + n;
    int count = 0;
    for (const char *s = strstr(json, "\"tx\": "); s; ) {
        const char *next = strstr(s + 1, "\"tx\": ");
        const char *e = next ? next : end;
        char *hex = json_value(s, e, "tx");
        long index = json_int(s, e, "index");
        size_t len;
        uint8_t *raw = check_unhex(hex, &len);
        bk_tx base;
        check_valid_tx(raw, len, &base);
        /* witness items of "success" */
        const char *succ = strstr(s, "\"success\"");
        const char *wit = strstr(succ, "\"witness\": [");
        const char *wend = strchr(wit, ']');
        uint8_t *items[8];
        size_t ilen[8];
        int ni = 0;
        for (const char *q = strchr(wit + 12, '"'); q && q < wend && ni < 8; q = strchr(q + 1, '"')) {
            const char *qe = strchr(q + 1, '"');
            char *h = malloc((size_t)(qe - q));
            memcpy(h, q + 1, (size_t)(qe - q - 1));
            h[qe - q - 1] = 0;
            items[ni] = check_unhex(h, &ilen[ni]);
            ni++;
            free(h);
            q = qe;
        }
        CHECK(ni >= 1);
        if (strstr(s, "\"annex\"") && strstr(s, "\"annex\"") < e) CHECK(ilen[ni - 1] == 1 && items[ni - 1][0] == 0x50);
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_writer_put(&w, raw, 4);
        bk_writer_putc(&w, 0);
        bk_writer_putc(&w, 1);
        bk_writer_put(&w, raw + 4, base.wit_pos - 4);
        for (uint32_t i = 0; i < base.n_in; i++) {
            if ((long)i != index) {
                bk_writer_putc(&w, 0);
                continue;
            }
            uint8_t c[9];
            bk_writer_put(&w, c, bk_compact_size_encode(c, (uint64_t)ni));
            for (int k = 0; k < ni; k++) {
                bk_writer_put(&w, c, bk_compact_size_encode(c, ilen[k]));
                bk_writer_put(&w, items[k], ilen[k]);
            }
        }
        bk_writer_put(&w, raw + len - 4, 4);
        bk_tx tx;
        check_valid_tx(w.data, w.len, &tx);
        CHECK(tx.has_witness);
        uint8_t t1[32], t2[32];
        bk_tx_txid(&base, t1);
        bk_tx_txid(&tx, t2);
        CHECK_MEM(t1, t2, 32);
        bk_txin_iter it;
        bk_txin in;
        bk_txin_iter_init(&it, &tx);
        for (long i = 0; bk_txin_next(&it, &in); i++) {
            if (i != index) {
                CHECK_EQ_INT(in.witness_items, 0);
                continue;
            }
            CHECK_EQ_INT(in.witness_items, ni);
            bk_witness_iter wi;
            bk_witness_iter_init(&wi, &in);
            const uint8_t *item;
            uint32_t il;
            for (int k = 0; bk_witness_next(&wi, &item, &il); k++)
                CHECK(il == ilen[k] && memcmp(item, items[k], il) == 0);
        }
        for (int k = 0; k < ni; k++) free(items[k]);
        bk_writer_free(&w);
        free(raw);
        free(hex);
        count++;
        s = next;
    }
    CHECK_EQ_INT(count, 2);
    free(json);
}

/* ---- rejection rules ---- */


/* spend_p2wpkh-like witness tx: 1 input, 1 output, 2 witness items. */
static const char *WTX =
    "02000000" "0001"
    "01" "1111111111111111111111111111111111111111111111111111111111111111" "05000000"
    "00" "fdffffff"
    "01" "e803000000000000" "160014" "2222222222222222222222222222222222222222"
    "02" "03" "aabbcc" "01" "dd"
    "00000000";
/* the same without witness */
static const char *LTX =
    "02000000"
    "01" "1111111111111111111111111111111111111111111111111111111111111111" "05000000"
    "02" "5151" "fdffffff"
    "01" "e803000000000000" "01" "51"
    "00000000";


/* Bitcoin Core's bitcoin-tx test vectors (test/util/data): each .hex with
 * its .json (Core's TxToUniv output). Core's DecodeTx tries the witness and
 * the legacy deserialization; one that consumes all bytes must reproduce
 * Core's txid, hash, version, size, vsize, weight, locktime and counts. */
static int count_str(const char *s, const char *needle)
{
    int n = 0;
    for (const char *q = strstr(s, needle); q; q = strstr(q + 1, needle)) n++;
    return n;
}

static void core_util_vectors(void)
{
    static const char *names[] = {
        "blanktxv1", "blanktxv2", "tt-delin1-out", "tt-delout1-out", "tt-locktime317000-out",
        "txcreate1", "txcreate2", "txcreatedata2", "txcreatedata_seq0",
        "txcreatedata_seq1", "txcreatemultisig1", "txcreatemultisig2", "txcreatemultisig3",
        "txcreatemultisig4", "txcreateoutpubkey1", "txcreateoutpubkey2", "txcreateoutpubkey3",
        "txcreatescript1", "txcreatescript2", "txcreatescript3", "txcreatescript4",
        "txcreatesignv1",
        /* not txcreatedata1: its .hex (nversion 2) and .json (nversion=1)
         * come from different bitcoin-tx runs */
    };
    int matched = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[256];
        size_t n, jn;
        snprintf(path, sizeof path, "txs/core_util/%s.hex", names[i]);
        char *hex = (char *)check_read_file(path, &n);
        snprintf(path, sizeof path, "txs/core_util/%s.json", names[i]);
        char *json = (char *)check_read_file(path, &jn);
        const char *je = json + jn;
        check_case = names[i];
        size_t len;
        uint8_t *raw = check_unhex(hex, &len);
        CHECK(raw != NULL);
        char *txid = json_value(json, je, "txid"), *hash = json_value(json, je, "hash");
        /* the top-level txid comes first in Core's output */
        bk_tx forms[2];
        bk_status st[2];
        st[0] = bk_tx_parse(raw, len, &forms[0], NULL, NULL);
        st[1] = bk_tx_parse_legacy(raw, len, &forms[1], NULL, NULL);
        int found = 0;
        for (int k = 0; k < 2 && !found; k++) {
            if (st[k] != BK_OK) continue;
            const bk_tx *tx = &forms[k];
            uint8_t h[32];
            char got[65];
            bk_tx_txid(tx, h);
            rhex(got, h);
            if (strcmp(got, txid) != 0) continue;
            found = 1;
            bk_tx_wtxid(tx, h);
            rhex(got, h);
            CHECK_EQ_STR(got, hash);
            CHECK_EQ_INT(tx->version, json_int(json, je, "version"));
            CHECK_EQ_INT(tx->size, json_int(json, je, "size"));
            CHECK_EQ_INT(bk_tx_vsize(tx), json_int(json, je, "vsize"));
            CHECK_EQ_INT(bk_tx_weight(tx), json_int(json, je, "weight"));
            CHECK_EQ_INT(tx->locktime, json_int(json, je, "locktime"));
            CHECK_EQ_INT(tx->n_in, count_str(json, "\"sequence\":"));
            CHECK_EQ_INT(tx->n_out, count_str(json, "\"n\":"));
        }
        CHECK(found);
        matched += found;
        free(txid); free(hash); free(raw); free(hex); free(json);
    }
    CHECK_EQ_INT(matched, (int)(sizeof names / sizeof names[0]));

    /* txcreate2 (no inputs, one output): the witness form reads 00 01 as
     * marker and flag and refuses it; the legacy form is what Core keeps */
    size_t len;
    uint8_t *raw = check_unhex("02000000000100000000000000000000000000", &len);
    bk_tx tx;
    bk_error err;
    CHECK_EQ_INT(bk_tx_parse(raw, len, &tx, NULL, &err), BK_ERR_SUPERFLUOUS_WITNESS);
    CHECK_EQ_INT(bk_tx_parse_legacy(raw, len, &tx, NULL, &err), BK_OK);
    CHECK_EQ_INT(tx.n_in, 0);
    CHECK_EQ_INT(tx.n_out, 1);
    CHECK_EQ_INT(tx.vin_pos, 5);
    CHECK_EQ_INT(tx.vout_pos, 6);
    bk_txout_iter oi;
    bk_txout out;
    bk_txout_iter_init(&oi, &tx);
    CHECK(bk_txout_next(&oi, &out) && out.value == 0 && out.script_len == 0);
    CHECK(!bk_txout_next(&oi, &out));
    CHECK_EQ_INT(oi.pos, tx.wit_pos);
    free(raw);
    /* the legacy form never sees a witness: a segwit tx is refused or misread */
    raw = check_unhex(WTX, &len);
    CHECK(bk_tx_parse_legacy(raw, len, &tx, NULL, &err) != BK_OK);
    free(raw);
}

static bk_status parse_hex(const char *hex, bk_error *err)
{
    size_t n;
    uint8_t *p = check_unhex(hex, &n);
    bk_tx tx;
    bk_status st = bk_tx_parse(p, n, &tx, NULL, err);
    free(p);
    return st;
}

/* Replace the 1-byte CompactSize at byte offset `off` of hex by `form`
 * (a non-canonical encoding of the same value, given as hex with %02x for
 * the value byte). */
static char *splice(const char *hex, size_t off, const char *form)
{
    size_t n = strlen(hex);
    unsigned v;
    sscanf(hex + 2 * off, "%2x", &v);
    char enc[32];
    snprintf(enc, sizeof enc, form, v);
    char *out = malloc(n + strlen(enc) + 1);
    memcpy(out, hex, 2 * off);
    strcpy(out + 2 * off, enc);
    strcat(out, hex + 2 * off + 2);
    return out;
}

static void valid_forms_parse(void)
{
    bk_error err;
    CHECK_EQ_INT(parse_hex(WTX, &err), BK_OK);
    CHECK_EQ_INT(parse_hex(LTX, &err), BK_OK);
}

static void noncanonical_compact_size_each_field(void)
{
    /* byte offsets of the 1-byte CompactSizes in WTX */
    static const struct { size_t off; const char *what; } fields[] = {
        {6, "input count"}, {43, "scriptSig length"}, {48, "output count"},
        {57, "scriptPubKey length"}, {80, "witness item count"}, {81, "witness item length"},
        {85, "witness item length"},
    };
    static const char *forms[] = {"fd%02x00", "fe%02x000000", "ff%02x00000000000000"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        for (size_t f = 0; f < 3; f++) {
            char *h = splice(WTX, fields[i].off, forms[f]);
            bk_error err;
            bk_error_clear(&err);
            CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_NONCANONICAL);
            CHECK_EQ_INT(err.offset, fields[i].off);
            CHECK(strstr(err.msg, fields[i].what) != NULL);
            free(h);
        }
    }
    /* the canonical 3-byte form where it is due: a 253-byte scriptSig */
    bk_writer w;
    bk_writer_init(&w, NULL);
    size_t n;
    uint8_t *p = check_unhex(LTX, &n);
    bk_writer_put(&w, p, 41);
    static const uint8_t fd[3] = {0xfd, 0xfd, 0x00};
    bk_writer_put(&w, fd, 3);
    for (int i = 0; i < 253; i++) bk_writer_putc(&w, 0x51);
    bk_writer_put(&w, p + 44, n - 44);
    bk_tx tx;
    check_valid_tx(w.data, w.len, &tx);
    bk_txin_iter it;
    bk_txin in;
    bk_txin_iter_init(&it, &tx);
    CHECK(bk_txin_next(&it, &in));
    CHECK_EQ_INT(in.script_sig_len, 253);
    CHECK(in.script_sig == w.data + 44);
    bk_writer_free(&w);
    free(p);
}

static void size_over_max_size(void)
{
    bk_error err;
    /* scriptSig length 0x02000001 */
    char *h = splice(LTX, 41, "fe0100000%1x");
    /* %1x of 0x02 prints "2": fe 01 00 00 02 */
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_SIZE);
    CHECK_EQ_INT(err.offset, 41);
    free(h);
    /* exactly MAX_SIZE is range-checked fine, then truncated */
    h = splice(LTX, 41, "fe0000000%1x");
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, 46);
    free(h);
    /* a 9-byte output count far over MAX_SIZE */
    h = splice(LTX, 48, "ff000000000000000%1x");
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_SIZE);
    CHECK_EQ_INT(err.offset, 48);
    free(h);
}

static void huge_counts(void)
{
    bk_error err;
    /* input count 0x01000000: within MAX_SIZE, cannot fit */
    char *h = splice(LTX, 4, "fe0000000%1x");
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_COUNT);
    CHECK_EQ_INT(err.offset, 4);
    free(h);
    /* 2 inputs need 82 bytes: 1 real input cannot hold a second */
    h = splice(LTX, 4, "%02x");
    h[9] = '2';
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_COUNT);
    free(h);
    /* output count 200 */
    h = splice(LTX, 48, "c%1x");
    h[2 * 48 + 1] = '8';
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_COUNT);
    CHECK_EQ_INT(err.offset, 48);
    free(h);
    /* witness item count 100 with 10 bytes left */
    h = splice(WTX, 80, "6%1x");
    h[2 * 80 + 1] = '4';
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_COUNT);
    CHECK_EQ_INT(err.offset, 80);
    free(h);
}

static void witness_flags(void)
{
    bk_error err;
    char *h = splice(WTX, 5, "02");
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_WITNESS_FLAG);
    CHECK_EQ_INT(err.offset, 5);
    CHECK(strstr(err.msg, "Unknown transaction optional data") != NULL);
    free(h);
    h = splice(WTX, 5, "03");
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_WITNESS_FLAG);
    CHECK_EQ_INT(err.offset, 5);
    free(h);
    h = splice(WTX, 5, "80");
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_WITNESS_FLAG);
    free(h);
    /* flag 2: Core rejects after vin/vout, before nLockTime: even when the
     * rest is missing the reason is the flag */
    h = splice(LTX, 4, "0002%02x");
    bk_tx tx;
    size_t n;
    uint8_t *p = check_unhex(h, &n);
    CHECK_EQ_INT(bk_tx_parse(p, n, &tx, NULL, &err), BK_ERR_WITNESS_FLAG);
    CHECK_EQ_INT(bk_tx_parse(p, n - 4, &tx, NULL, &err), BK_ERR_WITNESS_FLAG);
    CHECK_EQ_INT(bk_tx_parse(p, n - 5, &tx, NULL, &err), BK_ERR_TRUNCATED);
    free(p);
    free(h);
}

static void superfluous_witness(void)
{
    bk_error err;
    /* LTX with marker/flag and one empty stack */
    size_t n = strlen(LTX);
    char *h = malloc(n + 8);
    memcpy(h, LTX, 8);
    strcpy(h + 8, "0001");
    memcpy(h + 12, LTX + 8, n - 16);
    strcpy(h + 12 + n - 16, "00");
    strcat(h, LTX + n - 8);
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_SUPERFLUOUS_WITNESS);
    CHECK_EQ_INT(err.offset, 5);
    CHECK(strstr(err.msg, "Superfluous witness record") != NULL);
    /* flag 3 with empty stacks: superfluous is checked first (Core order) */
    h[11] = '3';
    CHECK_EQ_INT(parse_hex(h, &err), BK_ERR_SUPERFLUOUS_WITNESS);
    free(h);
    /* marker, flag 1, then an empty vin and empty vout */
    CHECK_EQ_INT(parse_hex("01000000" "0001" "00" "00" "00000000", &err), BK_ERR_SUPERFLUOUS_WITNESS);
}

static void empty_vin_flags_zero_is_legal(void)
{
    /* Core deserializes version, 00 (empty vin), 00 (flags 0: vout not
     * read), locktime; re-serialization gives the same 10 bytes. */
    size_t n;
    uint8_t *p = check_unhex("01000000" "00" "00" "11223344", &n);
    bk_tx tx;
    check_valid_tx(p, n, &tx);
    CHECK_EQ_INT(tx.n_in, 0);
    CHECK_EQ_INT(tx.n_out, 0);
    CHECK_EQ_INT(tx.size, 10);
    CHECK_EQ_INT(tx.stripped_size, 10);
    CHECK_EQ_INT(tx.has_witness, 0);
    CHECK_EQ_INT(tx.locktime, 0x44332211);
    CHECK(!bk_tx_is_coinbase(&tx));
    free(p);
    /* without its locktime */
    bk_error err;
    CHECK_EQ_INT(parse_hex("01000000" "00" "00", &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, 6);
}

static void truncated_every_prefix(void)
{
    const char *hexes[2] = {WTX, LTX};
    for (int k = 0; k < 2; k++) {
        size_t n;
        uint8_t *full = check_unhex(hexes[k], &n);
        for (size_t i = 0; i < n; i++) {
            uint8_t *p = malloc(i ? i : 1);
            memcpy(p, full, i);
            bk_tx tx;
            bk_error err;
            bk_status st = bk_tx_parse(p, i, &tx, NULL, &err);
            CHECK(st == BK_ERR_TRUNCATED || st == BK_ERR_COUNT);
            CHECK(err.offset <= i);
            size_t used;
            CHECK(bk_tx_parse(p, i, &tx, &used, &err) != BK_OK);
            free(p);
        }
        free(full);
    }
}

static void trailing_and_consumed(void)
{
    size_t n;
    char buf[512];
    snprintf(buf, sizeof buf, "%s00ff", LTX);
    uint8_t *p = check_unhex(buf, &n);
    bk_tx tx;
    bk_error err;
    CHECK_EQ_INT(bk_tx_parse(p, n, &tx, NULL, &err), BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, n - 2);
    size_t used = 0;
    CHECK_EQ_INT(bk_tx_parse(p, n, &tx, &used, &err), BK_OK);
    CHECK_EQ_INT(used, n - 2);
    CHECK_EQ_INT(bk_tx_parse(NULL, 0, &tx, NULL, &err), BK_ERR_TRUNCATED);
    CHECK_EQ_INT(bk_tx_parse(p, n, NULL, NULL, &err), BK_ERR_ARG);
    free(p);
}

static void views_fields(void)
{
    size_t n;
    uint8_t *p = check_unhex(WTX, &n);
    bk_tx tx;
    CHECK_EQ_INT(bk_tx_parse(p, n, &tx, NULL, NULL), BK_OK);
    CHECK_EQ_INT(tx.version, 2);
    CHECK_EQ_INT(tx.n_in, 1);
    CHECK_EQ_INT(tx.n_out, 1);
    CHECK_EQ_INT(tx.vin_pos, 7);
    CHECK_EQ_INT(tx.vout_pos, 49);
    CHECK_EQ_INT(tx.wit_pos, 80);
    CHECK_EQ_INT(tx.size, 91);
    CHECK_EQ_INT(tx.stripped_size, 91 - 2 - 7);
    CHECK_EQ_INT(bk_tx_weight(&tx), 3 * 82 + 91);
    CHECK_EQ_INT(bk_tx_vsize(&tx), (3 * 82 + 91 + 3) / 4);
    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, &tx);
    CHECK(bk_txin_next(&ii, &in));
    CHECK(in.prev_txid == p + 7);
    CHECK_EQ_INT(in.prev_index, 5);
    CHECK_EQ_INT(in.script_sig_len, 0);
    CHECK_EQ_INT(in.sequence, 0xfffffffd);
    CHECK_EQ_INT(in.witness_items, 2);
    bk_witness_iter wi;
    bk_witness_iter_init(&wi, &in);
    const uint8_t *item;
    uint32_t il;
    CHECK(bk_witness_next(&wi, &item, &il));
    CHECK(il == 3 && item == p + 82 && item[0] == 0xaa);
    CHECK(bk_witness_next(&wi, &item, &il));
    CHECK(il == 1 && item[0] == 0xdd);
    CHECK(!bk_witness_next(&wi, &item, &il));
    CHECK(!bk_txin_next(&ii, &in));
    bk_txout_iter oi;
    bk_txout out;
    bk_txout_iter_init(&oi, &tx);
    CHECK(bk_txout_next(&oi, &out));
    CHECK_EQ_INT(out.value, 1000);
    CHECK_EQ_INT(out.script_len, 22);
    CHECK(out.script == p + 58);
    CHECK(!bk_txout_next(&oi, &out));
    bk_sha256_seg segs[3];
    CHECK_EQ_INT(bk_tx_stripped_segments(&tx, segs), 3);
    CHECK(segs[0].data == p && segs[0].len == 4);
    CHECK(segs[1].data == p + 6 && segs[1].len == 74);
    CHECK(segs[2].data == p + 87 && segs[2].len == 4);
    free(p);
}


/* A transaction over 1 GiB is refused with BK_ERR_LENGTH (sizes and weight
 * are 32-bit): 34 inputs with 32 MiB scriptSigs in a sparse anonymous
 * mapping (only the touched pages are committed). */
static void over_one_gib(void)
{
    const size_t script = 0x02000000u, n_in = 34;
    size_t len = 4 + 1 + n_in * (36 + 5 + script + 4) + 1 + 9 + 4;
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        printf("over_one_gib: cannot map %zu bytes, case not run\n", len);
        return;
    }
    size_t o = 0;
    p[o] = 1; o += 4;
    p[o++] = (uint8_t)n_in;
    for (size_t i = 0; i < n_in; i++) {
        o += 36;
        p[o] = 0xfe; p[o + 4] = 0x02; o += 5;  /* 0x02000000 = MAX_SIZE */
        o += script + 4;
    }
    p[o++] = 1;                                /* one empty output */
    o += 9 + 4;
    CHECK_EQ_INT(o, len);
    bk_tx tx;
    bk_error err;
    CHECK_EQ_INT(bk_tx_parse(p, len, &tx, NULL, &err), BK_ERR_LENGTH);
    CHECK(strstr(err.msg, "1 GiB") != NULL);
    /* the same bytes cut to under 1 GiB are simply truncated */
    CHECK_EQ_INT(bk_tx_parse(p, 0x30000000u, &tx, NULL, &err), BK_ERR_TRUNCATED);
    munmap(p, len);
}

int main(void)
{
    RUN(mainnet_tx_samples);
    RUN(large_raw_txs);
    RUN(taproot_dump_with_witness);
    RUN(valid_forms_parse);
    RUN(core_util_vectors);
    RUN(views_fields);
    RUN(noncanonical_compact_size_each_field);
    RUN(size_over_max_size);
    RUN(huge_counts);
    RUN(witness_flags);
    RUN(superfluous_witness);
    RUN(empty_vin_flags_zero_is_legal);
    RUN(truncated_every_prefix);
    RUN(trailing_and_consumed);
    RUN(over_one_gib);
    return check_finish();
}
