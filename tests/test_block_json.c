/* getblock / getblockheader JSON against Bitcoin Core's own outputs
 * (tests/data/core_json/blocks, Core master d812cf11 = v28 shape), the
 * spec's worked examples (§13.2), the --core-compat shapes (§12), pretty
 * printing (bitcoin-cli write(2)) and the CLI end to end. */
#include <blockkit/json.h>

#include <unistd.h>

#include "check.h"
#include "json_test_util.h"

static bk_writer w;

typedef struct loaded {
    uint8_t *raw;
    size_t len;
    bk_block_decoder dec;
    bk_block b;
} loaded;

static void load_block(loaded *l, const char *zst)
{
    l->raw = read_zst(zst, &l->len);
    bk_block_decoder_init(&l->dec, NULL);
    bk_error err;
    if (bk_block_decode(&l->dec, l->raw, l->len, &l->b, &err) != BK_OK) {
        fprintf(stderr, "%s: %s at %llu\n", zst, err.msg, (unsigned long long)err.offset);
        exit(2);
    }
}

static void free_block(loaded *l)
{
    bk_block_decoder_free(&l->dec);
    free(l->raw);
}

/* Render with the defaults the core_json vectors were made with. */
static bk_status render(const loaded *l, const bk_block_undo *undo, int verbosity, int core, unsigned indent,
                        bk_network net, bk_error *err)
{
    bk_chain_context ctx;
    uint32_t h = 0;
    if (bk_block_bip34_height(&l->b, &h) != BK_OK) return BK_ERR_NOT_FOUND;
    bk_chain_context_standalone(&ctx, &l->b, net, h);
    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    o.verbosity = verbosity;
    o.core_version = core;
    bk_writer_reset(&w);
    bk_json j;
    bk_json_init(&j, &w, indent);
    bk_status st = bk_json_block(&j, &l->b, undo, &ctx, &o, err);
    bk_writer_putc(&w, '\n');
    return st;
}

static int same_bytes(const uint8_t *want, size_t want_len)
{
    if (w.len == want_len && memcmp(w.data, want, want_len) == 0) return 1;
    size_t i = 0;
    while (i < w.len && i < want_len && w.data[i] == want[i]) i++;
    fprintf(stderr, "  first difference at byte %zu (got %zu bytes, want %zu)\n  got:  %.120s\n  want: %.120s\n", i,
            w.len, want_len, (const char *)w.data + (i > 40 ? i - 40 : 0),
            (const char *)want + (i > 40 ? i - 40 : 0));
    return 0;
}

/* Equal strings; on a difference print a short window around it. */
static int str_same(const char *got, const char *want)
{
    if (got && want && strcmp(got, want) == 0) return 1;
    if (!got || !want) return 0;
    size_t i = 0;
    while (got[i] && got[i] == want[i]) i++;
    fprintf(stderr, "  strings differ at byte %zu\n  got:  %.100s\n  want: %.100s\n", i, got + (i > 30 ? i - 30 : 0),
            want + (i > 30 ? i - 30 : 0));
    return 0;
}

static const struct {
    const char *block;
    const char *expect;
    int verbosity;
    int undo;
    bk_network net;
} core_vectors[] = {
    {"block277647", "block277647.v1.json.zst", 1, 0, BK_NET_MAIN},
    {"block277647", "block277647.v2.json.zst", 2, 0, BK_NET_MAIN},
    {"block277647", "block277647.v2.undo.json.zst", 2, 1, BK_NET_MAIN},
    {"block277647", "block277647.v3.undo.json.zst", 3, 1, BK_NET_MAIN},
    {"block413567", "block413567.v1.json.zst", 1, 0, BK_NET_MAIN},
    {"block413567", "block413567.v2.json.zst", 2, 0, BK_NET_MAIN},
    {"block702861", "block702861.v1.json.zst", 1, 0, BK_NET_MAIN},
    {"block702861", "block702861.v2.json.zst", 2, 0, BK_NET_MAIN},
    {"testnet3_block924634", "testnet3_block924634.v1.json.zst", 1, 0, BK_NET_TESTNET3},
    {"testnet3_block924634", "testnet3_block924634.v2.json.zst", 2, 0, BK_NET_TESTNET3},
};

static void load_undo_277647(bk_block_undo *u, uint8_t **buf)
{
    size_t n;
    *buf = check_read_file("core_json/blocks/block277647_undo.raw", &n);
    bk_error err;
    if (bk_block_undo_parse(*buf, n, u, &err) != BK_OK) {
        fprintf(stderr, "undo: %s\n", err.msg);
        exit(2);
    }
}

/* Every Core getblock output in core_json/blocks, byte for byte, and
 * verbosity 3 without undo equal to verbosity 2 (Core's README says so). */
static void core_getblock_outputs_byte_for_byte(void)
{
    for (size_t i = 0; i < sizeof core_vectors / sizeof core_vectors[0]; i++) {
        char name[256];
        snprintf(name, sizeof name, "core_json/blocks/%s.raw.zst", core_vectors[i].block);
        loaded l;
        load_block(&l, name);
        bk_block_undo u;
        uint8_t *ubuf = NULL;
        if (core_vectors[i].undo) load_undo_277647(&u, &ubuf);
        snprintf(name, sizeof name, "core_json/blocks/%s", core_vectors[i].expect);
        size_t want_len;
        uint8_t *want = read_zst(name, &want_len);
        bk_error err;
        check_case = core_vectors[i].expect;
        CHECK_EQ_INT(render(&l, ubuf ? &u : NULL, core_vectors[i].verbosity, 28, 0, core_vectors[i].net, &err), BK_OK);
        CHECK(same_bytes(want, want_len));
        CHECK(json_valid((const char *)w.data, w.len));
        if (core_vectors[i].verbosity == 2 && !core_vectors[i].undo) {
            CHECK_EQ_INT(render(&l, NULL, 3, 28, 0, core_vectors[i].net, &err), BK_OK);
            CHECK(same_bytes(want, want_len));
        }
        free(want);
        free(ubuf);
        free_block(&l);
    }
}

/* The pretty form is exactly Core's write(2) of the same tree: compare
 * with an independent re-rendering of Core's compact output. Block 702861
 * has empty scriptSigs ({"asm": "", "hex": ""}) and empty witness items;
 * 277647 v3 has prevouts. */
static void pretty_equals_core_write2(void)
{
    static const size_t picks[] = {3, 7};
    for (size_t k = 0; k < 2; k++) {
        size_t i = picks[k];
        char name[256];
        snprintf(name, sizeof name, "core_json/blocks/%s.raw.zst", core_vectors[i].block);
        loaded l;
        load_block(&l, name);
        bk_block_undo u;
        uint8_t *ubuf = NULL;
        if (core_vectors[i].undo) load_undo_277647(&u, &ubuf);
        snprintf(name, sizeof name, "core_json/blocks/%s", core_vectors[i].expect);
        size_t want_len;
        char *want = (char *)read_zst(name, &want_len);
        want[want_len - 1] = 0; /* drop the newline */
        tbuf ref = ref_pretty(want, 2);
        tbuf_put(&ref, "\n", 1);
        bk_error err;
        check_case = core_vectors[i].expect;
        CHECK_EQ_INT(render(&l, ubuf ? &u : NULL, core_vectors[i].verbosity, 28, 2, core_vectors[i].net, &err), BK_OK);
        CHECK(same_bytes((const uint8_t *)ref.p, ref.len));
        if (i == 7) {
            CHECK(strstr(ref.p, "\"scriptSig\": {\n            \"asm\": \"\",\n            \"hex\": \"\"\n") != NULL);
            CHECK(strstr(ref.p, "\"txinwitness\": [\n            \"\",\n") != NULL);
        }
        free(ref.p);
        free(want);
        free(ubuf);
        free_block(&l);
    }
}

static char *render_text(const loaded *l, int verbosity, int core, const bk_chain_context *ctx, int tip_target)
{
    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    o.verbosity = verbosity;
    o.core_version = core;
    o.tip_target = tip_target;
    bk_writer_reset(&w);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_error err;
    if (bk_json_block(&j, &l->b, NULL, ctx, &o, &err) != BK_OK) return NULL;
    bk_writer_putc(&w, 0);
    return strdup((const char *)w.data);
}

/* Remove the first occurrence of piece from s (in place); 1 if found. */
static int cut(char *s, const char *piece)
{
    char *p = strstr(s, piece);
    if (!p) return 0;
    memmove(p, p + strlen(piece), strlen(p + strlen(piece)) + 1);
    return 1;
}

/* §12: 29 adds "target" after "bits"; 30 = 29; 31 adds "coinbase_tx"
 * after "weight"; nothing else changes, at every verbosity. */
static void core_compat_changes_exactly_section12(void)
{
    loaded l;
    load_block(&l, "core_json/blocks/block277647.raw.zst");
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &l.b, BK_NET_MAIN, 277647);
    for (int v = 1; v <= 2; v++) {
        char *c28 = render_text(&l, v, 28, &ctx, 0);
        char *c29 = render_text(&l, v, 29, &ctx, 0);
        char *c30 = render_text(&l, v, 30, &ctx, 0);
        char *c31 = render_text(&l, v, 31, &ctx, 0);
        char *c0 = render_text(&l, v, 0, &ctx, 0);
        CHECK(c28 && c29 && c30 && c31 && c0);
        if (!(c28 && c29 && c30 && c31 && c0)) return;
        CHECK(str_same(c0, c31)); /* default = newest */
        CHECK(str_same(c29, c30));
        const char *target = ",\"target\":\"0000000000000003a30c00000000000000000000000000000000000000000000\"";
        CHECK(strstr(c29, "\"bits\":\"1903a30c\",\"target\":\"0000000000000003a30c0000") != NULL);
        CHECK(cut(c29, target));
        CHECK(str_same(c29, c28));
        /* coinbase_tx of 277647: v1, locktime 0, sequence 0, its scriptSig, no witness */
        const char *cb = ",\"coinbase_tx\":{\"version\":1,\"locktime\":0,\"sequence\":4294967295,\"coinbase\":\"038f3c0404";
        char *p = strstr(c31, cb);
        CHECK(p != NULL);
        CHECK(strstr(c31, "\"weight\":596656,\"coinbase_tx\":{") != NULL);
        if (p) {
            char *e = strstr(p, "},\"tx\":[");
            CHECK(e != NULL);
            CHECK(memchr(p, '[', (size_t)(e - p)) == NULL); /* no witness key/array inside */
            if (e) memmove(p, e + 1, strlen(e + 1) + 1);
        }
        CHECK(cut(c31, target));
        CHECK(str_same(c31, c28));
        free(c28);
        free(c29);
        free(c30);
        free(c31);
        free(c0);
    }
    /* Core v29.0 bug (#33440): the tip's target for every block. */
    ctx.tip_bits = 0x17053894;
    char *bug = render_text(&l, 1, 29, &ctx, 1);
    CHECK(bug && strstr(bug, "\"target\":\"0000000000000000000538940000000000000000000000000000000000000000\"") != NULL);
    CHECK(bug && strstr(bug, "\"difficulty\":1180923195.258026,") != NULL); /* difficulty stays the block's */
    free(bug);
    free_block(&l);
}

static void put_le32(uint8_t *p, uint32_t v) { bk_store_le32(p, v); }

/* Mainnet genesis block, assembled from the spec's fields (§13.2). */
static uint8_t *genesis(size_t *len)
{
    static const char tx_hex[] =
        "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d010445546865"
        "2054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e6420626169"
        "6c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e039"
        "09a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000";
    size_t txlen;
    uint8_t *tx = check_unhex(tx_hex, &txlen);
    uint8_t *b = calloc(1, 81 + txlen);
    put_le32(b, 1);
    static const char merkle_be[] = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";
    size_t ml;
    uint8_t *m = check_unhex(merkle_be, &ml);
    for (int i = 0; i < 32; i++) b[36 + i] = m[31 - i];
    put_le32(b + 68, 1231006505);
    put_le32(b + 72, 0x1d00ffff);
    put_le32(b + 76, 2083236893);
    b[80] = 1;
    memcpy(b + 81, tx, txlen);
    *len = 81 + txlen;
    free(tx);
    free(m);
    return b;
}

static const char genesis_v1_master[] =
    "{\"hash\":\"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f\",\"confirmations\":900001,\"height\":0,"
    "\"version\":1,\"versionHex\":\"00000001\",\"merkleroot\":\"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b\","
    "\"time\":1231006505,\"mediantime\":1231006505,\"nonce\":2083236893,\"bits\":\"1d00ffff\","
    "\"target\":\"00000000ffff0000000000000000000000000000000000000000000000000000\",\"difficulty\":1,"
    "\"chainwork\":\"0000000000000000000000000000000000000000000000000000000100010001\",\"nTx\":1,"
    "\"nextblockhash\":\"00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048\",\"strippedsize\":285,"
    "\"size\":285,\"weight\":1140,\"coinbase_tx\":{\"version\":1,\"locktime\":0,\"sequence\":4294967295,\"coinbase\":"
    "\"04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365"
    "636f6e64206261696c6f757420666f722062616e6b73\"},\"tx\":[\"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b\"]}";

/* §13.2: genesis at verbosity 1 with chain context; no previousblockhash. */
static void spec_13_2_genesis(void)
{
    size_t len;
    uint8_t *raw = genesis(&len);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    loaded l;
    bk_error err;
    CHECK_EQ_INT(bk_block_decode(&dec, raw, len, &l.b, &err), BK_OK);
    uint32_t h;
    CHECK_EQ_INT(bk_block_bip34_height(&l.b, &h), BK_ERR_NOT_FOUND); /* version 1: no BIP34 */
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &l.b, BK_NET_MAIN, 0);
    ctx.confirmations = 900001;
    ctx.chainwork[27] = 1;
    ctx.chainwork[29] = 1;
    ctx.chainwork[31] = 1;
    ctx.has_next = 1;
    size_t nl;
    uint8_t *next = check_unhex("00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048", &nl);
    for (int i = 0; i < 32; i++) ctx.next_hash[i] = next[31 - i];
    char *got = render_text(&l, 1, 31, &ctx, 0);
    CHECK(str_same(got, genesis_v1_master));
    free(got);
    /* v29/v30: drop coinbase_tx; v28: also drop target. */
    char want[4096];
    snprintf(want, sizeof want, "%s", genesis_v1_master);
    char *p = strstr(want, ",\"coinbase_tx\":");
    char *e = strstr(want, "},\"tx\":[");
    memmove(p, e + 1, strlen(e + 1) + 1);
    got = render_text(&l, 1, 30, &ctx, 0);
    CHECK(str_same(got, want));
    free(got);
    CHECK(cut(want, ",\"target\":\"00000000ffff0000000000000000000000000000000000000000000000000000\""));
    got = render_text(&l, 1, 28, &ctx, 0);
    CHECK(str_same(got, want));
    free(got);
    /* getblockheader: the header fields only */
    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    bk_writer_reset(&w);
    bk_json j;
    bk_json_init(&j, &w, 0);
    CHECK_EQ_INT(bk_json_block_header(&j, &l.b, &ctx, &o, &err), BK_OK);
    bk_writer_putc(&w, 0);
    snprintf(want, sizeof want, "%s", genesis_v1_master);
    p = strstr(want, ",\"strippedsize\"");
    strcpy(p, "}");
    CHECK(str_same((const char *)w.data, want));
    /* verbosity 0: the block's hex as a JSON string */
    o.verbosity = 0;
    bk_writer_reset(&w);
    bk_json_init(&j, &w, 0);
    CHECK_EQ_INT(bk_json_block(&j, &l.b, NULL, &ctx, &o, &err), BK_OK);
    CHECK_EQ_INT(w.len, 2 + 2 * len);
    CHECK(w.data[0] == '"' && memcmp(w.data + 1, "01000000000000000000", 20) == 0 && w.data[w.len - 1] == '"');
    free(next);
    bk_block_decoder_free(&dec);
    free(raw);
}

/* A one-transaction block around coinbase tx_hex with the given nBits. */
static uint8_t *make_block(const char *tx_hex, uint32_t bits, size_t *len)
{
    size_t tl;
    uint8_t *tx = check_unhex(tx_hex, &tl);
    uint8_t *b = calloc(1, 81 + tl);
    put_le32(b, 0x20000000);
    b[4] = 1; /* a non-zero parent */
    put_le32(b + 72, bits);
    b[80] = 1;
    memcpy(b + 81, tx, tl);
    *len = 81 + tl;
    free(tx);
    return b;
}

/* Core's CHECK_NONFATALs become errors: coinbase_tx with a witness of two
 * items (v31); a target that DeriveTarget refuses (v29+). */
static void core_check_failures_are_errors(void)
{
    /* coinbase, BIP34 height 100000, witness stack of two items */
    static const char two_items[] = "020000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff"
                                    "0403a08601ffffffff0100000000000000000151020101010200000000";
    static const char one_item[] = "020000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff"
                                   "0403a08601ffffffff010000000000000000015101020abc00000000";
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_error err;
    loaded l;
    bk_chain_context ctx;
    size_t len;
    uint8_t *raw = make_block(two_items, 0x1d00ffff, &len);
    CHECK_EQ_INT(bk_block_decode(&dec, raw, len, &l.b, &err), BK_OK);
    bk_chain_context_standalone(&ctx, &l.b, BK_NET_MAIN, 100000);
    char *t = render_text(&l, 1, 31, &ctx, 0);
    CHECK(t == NULL);
    free(t);
    t = render_text(&l, 1, 30, &ctx, 0);
    CHECK(t != NULL);
    free(t);
    free(raw);
    raw = make_block(one_item, 0x1d00ffff, &len);
    CHECK_EQ_INT(bk_block_decode(&dec, raw, len, &l.b, &err), BK_OK);
    t = render_text(&l, 1, 31, &ctx, 0);
    CHECK(t && strstr(t, "\"coinbase_tx\":{\"version\":2,\"locktime\":0,\"sequence\":4294967295,\"coinbase\":\"03a08601\",\"witness\":\"0abc\"},") != NULL);
    free(t);
    free(raw);
    /* negative compact target: v28 prints it, v29+ refuse it */
    raw = make_block(one_item, 0x1d80ffff, &len);
    CHECK_EQ_INT(bk_block_decode(&dec, raw, len, &l.b, &err), BK_OK);
    t = render_text(&l, 1, 28, &ctx, 0);
    CHECK(t != NULL);
    free(t);
    t = render_text(&l, 1, 29, &ctx, 0);
    CHECK(t == NULL);
    free(t);
    free(raw);
    /* regtest bits are above mainnet's powLimit */
    raw = make_block(one_item, 0x207fffff, &len);
    CHECK_EQ_INT(bk_block_decode(&dec, raw, len, &l.b, &err), BK_OK);
    t = render_text(&l, 1, 29, &ctx, 0);
    CHECK(t == NULL);
    free(t);
    ctx.network = BK_NET_REGTEST;
    t = render_text(&l, 1, 29, &ctx, 0);
    CHECK(t && strstr(t, "\"target\":\"7fffff0000000000000000000000000000000000000000000000000000000000\",\"difficulty\":4.656542373906925e-10,") != NULL);
    free(t);
    free(raw);
    bk_block_decoder_free(&dec);
}

/* Undo that does not fit the block is an error, never silently dropped. */
static void undo_mismatch_is_an_error(void)
{
    loaded l;
    load_block(&l, "core_json/blocks/block413567.raw.zst");
    bk_block_undo u;
    uint8_t *ubuf;
    load_undo_277647(&u, &ubuf);
    bk_error err;
    CHECK_EQ_INT(render(&l, &u, 2, 28, 0, BK_NET_MAIN, &err), BK_ERR_MISMATCH);
    CHECK(strstr(err.msg, "undo data does not match block") != NULL);
    /* bad arguments */
    CHECK_EQ_INT(render(&l, NULL, 4, 28, 0, BK_NET_MAIN, &err), BK_ERR_ARG);
    CHECK_EQ_INT(render(&l, NULL, 1, 27, 0, BK_NET_MAIN, &err), BK_ERR_ARG);
    CHECK_EQ_INT(render(&l, NULL, 1, 32, 0, BK_NET_MAIN, &err), BK_ERR_ARG);
    free(ubuf);
    free_block(&l);
}

/* A reused writer: rendering a block again allocates nothing. */
static void reused_writer_allocates_nothing(void)
{
    loaded l;
    load_block(&l, "core_json/blocks/block277647.raw.zst");
    bk_block_undo u;
    uint8_t *ubuf;
    load_undo_277647(&u, &ubuf);
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    bk_writer cw;
    bk_writer_init(&cw, &ca.base);
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &l.b, BK_NET_MAIN, 277647);
    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    o.verbosity = 3;
    bk_error err;
    for (int k = 0; k < 3; k++) {
        if (k == 2) bk_counting_allocator_reset(&ca);
        bk_writer_reset(&cw);
        bk_json j;
        bk_json_init(&j, &cw, 0);
        CHECK_EQ_INT(bk_json_block(&j, &l.b, &u, &ctx, &o, &err), BK_OK);
    }
    CHECK_EQ_INT(ca.allocs, 0);
    bk_writer_free(&cw);
    free(ubuf);
    free_block(&l);
}

static int collect(void *ctx, const uint8_t *data, size_t len)
{
    bk_writer_put((bk_writer *)ctx, data, len);
    return 0;
}

/* Streaming into a sink writer (e.g. a FILE) with a small chunk gives the
 * same bytes as rendering into memory, compact and pretty. */
static void sink_writer_same_bytes(void)
{
    loaded l;
    load_block(&l, "core_json/blocks/block277647.raw.zst");
    bk_block_undo u;
    uint8_t *ubuf;
    load_undo_277647(&u, &ubuf);
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &l.b, BK_NET_MAIN, 277647);
    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    o.verbosity = 3;
    for (unsigned indent = 0; indent <= 2; indent += 2) {
        bk_error err;
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, indent);
        CHECK_EQ_INT(bk_json_block(&j, &l.b, &u, &ctx, &o, &err), BK_OK);
        bk_writer got, sw;
        bk_writer_init(&got, NULL);
        bk_writer_init_sink(&sw, NULL, collect, &got, 1000);
        bk_json_init(&j, &sw, indent);
        CHECK_EQ_INT(bk_json_block(&j, &l.b, &u, &ctx, &o, &err), BK_OK);
        CHECK_EQ_INT(bk_writer_flush(&sw), BK_OK);
        CHECK(got.len == w.len && memcmp(got.data, w.data, w.len) == 0);
        CHECK(sw.cap <= 65536); /* bounded by the hex chunk, not the document */
        bk_writer_free(&sw);
        bk_writer_free(&got);
    }
    free(ubuf);
    free_block(&l);
}

/* ---- CLI end to end ---- */

static char *cli(const char *args, size_t *len, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>/tmp/bk_json_test_stderr.%d", BK_TEST_DATA, BK_CLI_PATH, args,
             (int)getpid());
    return run_cmd(cmd, len, status);
}

static char tmp_block[256], tmp_undo[256];

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
    fclose(f);
}

static void cli_block_reproduces_core_files(void)
{
    size_t blen;
    uint8_t *raw = read_zst("core_json/blocks/block277647.raw.zst", &blen);
    snprintf(tmp_block, sizeof tmp_block, "/tmp/bk_json_test_block.%d", (int)getpid());
    write_file(tmp_block, raw, blen);
    char args[1024];
    size_t want_len, len;
    int st;
    uint8_t *want = read_zst("core_json/blocks/block277647.v3.undo.json.zst", &want_len);
    snprintf(args, sizeof args, "block %s --undo core_json/blocks/block277647_undo.raw --verbosity 3 --core-compat 28",
             tmp_block);
    char *out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(len == want_len && memcmp(out, want, len) == 0);
    free(out);
    /* the rev*.dat record form (magic, size, undo, checksum) gives the same */
    snprintf(args, sizeof args,
             "block %s --undo core_json/blocks/rev_record_block277647.dat --verbosity 3 --core-compat 28", tmp_block);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(len == want_len && memcmp(out, want, len) == 0);
    free(out);
    free(want);
    /* hex text input, stdin, -o */
    char *hex = malloc(2 * blen + 2);
    check_hex(hex, raw, blen);
    strcat(hex, "\n");
    char hexpath[300];
    snprintf(hexpath, sizeof hexpath, "%s.hex", tmp_block);
    write_file(hexpath, hex, strlen(hex));
    want = read_zst("core_json/blocks/block277647.v1.json.zst", &want_len);
    snprintf(args, sizeof args, "block %s --core-compat 28", hexpath);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(len == want_len && memcmp(out, want, len) == 0);
    free(out);
    snprintf(args, sizeof args, "block - --core-compat 28 < %s", tmp_block);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(len == want_len && memcmp(out, want, len) == 0);
    free(out);
    char opath[300];
    snprintf(opath, sizeof opath, "%s.out", tmp_block);
    snprintf(args, sizeof args, "block %s --core-compat 28 -o %s", tmp_block, opath);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK_EQ_INT(len, 0);
    free(out);
    uint8_t *written = check_read_file(opath, &len);
    CHECK(len == want_len && memcmp(written, want, len) == 0);
    free(written);
    unlink(opath);
    free(want);
    /* verbosity 0: a JSON string (RPC form); --pretty: bare hex (bitcoin-cli) */
    snprintf(args, sizeof args, "block %s --verbosity 0", tmp_block);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(len == 2 * blen + 3 && out[0] == '"' && memcmp(out + 1, hex, 2 * blen) == 0 && out[len - 2] == '"');
    free(out);
    snprintf(args, sizeof args, "block %s --verbosity 0 --pretty", tmp_block);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(len == 2 * blen + 1 && memcmp(out, hex, 2 * blen + 1) == 0);
    free(out);
    /* --pretty = the reference write(2) of the compact form */
    snprintf(args, sizeof args, "block %s --pretty --height 277647 --confirmations 5 --mediantime 1388366000", tmp_block);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(out, "{\n  \"hash\": \"0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8\",\n"
                      "  \"confirmations\": 5,\n  \"height\": 277647,\n") != NULL);
    CHECK(strstr(out, "\"mediantime\": 1388366000,\n") != NULL);
    CHECK(json_valid(out, len));
    free(out);
    unlink(hexpath);
    free(hex);
    free(raw);
}

static void cli_block_errors(void)
{
    char args[1024];
    size_t len;
    int st;
    char *out;
    /* undo for another block: 65 */
    size_t blen;
    uint8_t *raw = read_zst("core_json/blocks/block413567.raw.zst", &blen);
    snprintf(tmp_undo, sizeof tmp_undo, "/tmp/bk_json_test_block413567.%d", (int)getpid());
    write_file(tmp_undo, raw, blen);
    snprintf(args, sizeof args, "block %s --undo core_json/blocks/block277647_undo.raw --verbosity 2", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 65);
    CHECK_EQ_INT(len, 0);
    free(out);
    /* the rev record's checksum names another parent: 65 */
    snprintf(args, sizeof args, "block %s --undo core_json/blocks/rev_record_block277647.dat --verbosity 2", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 65);
    free(out);
    /* a mainnet rev record given with --chain regtest: 65, naming the network */
    snprintf(args, sizeof args, "block %s --undo core_json/blocks/rev_record_block277647.dat --chain regtest --height 1",
             tmp_block);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 65);
    free(out);
    /* truncated block: 65 with the offset in the message */
    write_file(tmp_undo, raw, 1000);
    snprintf(args, sizeof args, "block %s", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 65);
    CHECK_EQ_INT(len, 0);
    free(out);
    char errpath[128];
    snprintf(errpath, sizeof errpath, "/tmp/bk_json_test_stderr.%d", (int)getpid());
    uint8_t *msg = check_read_file(errpath, &len);
    CHECK(strstr((char *)msg, " at byte ") != NULL);
    free(msg);
    /* a block without a BIP34 height needs --height */
    size_t glen;
    uint8_t *g = genesis(&glen);
    write_file(tmp_undo, g, glen);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    msg = check_read_file(errpath, &len);
    CHECK(strstr((char *)msg, "--height") != NULL);
    free(msg);
    snprintf(args, sizeof args, "block %s --height 0 --chainwork 100010001 --confirmations 900001 "
                                "--nextblockhash 00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048",
             tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(len == strlen(genesis_v1_master) + 1 && memcmp(out, genesis_v1_master, len - 1) == 0);
    free(out);
    /* getblockheader: the header fields only; verbose=false: header hex */
    snprintf(args, sizeof args, "block %s --header --height 0 --chainwork 100010001 --confirmations 900001 "
                                "--nextblockhash 00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048",
             tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    const char *cut_at = strstr(genesis_v1_master, ",\"strippedsize\"");
    size_t hl = (size_t)(cut_at - genesis_v1_master);
    CHECK(len == hl + 2 && memcmp(out, genesis_v1_master, hl) == 0 && memcmp(out + hl, "}\n", 2) == 0);
    free(out);
    snprintf(args, sizeof args, "block %s --header --height 0 --verbosity 0 --pretty", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    char hh[161];
    check_hex(hh, g, 80);
    CHECK(len == 161 && memcmp(out, hh, 160) == 0 && out[160] == '\n');
    free(out);
    /* Core v29.0's tip-target bug, on request, from the tip's bits */
    snprintf(args, sizeof args, "block %s --height 0 --core-compat 29 --tip-target --tip-bits 17053894", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(out, "\"bits\":\"1d00ffff\",\"target\":\"0000000000000000000538940000000000000000000000000000000000000000\",\"difficulty\":1,") != NULL);
    free(out);
    snprintf(args, sizeof args, "block %s --height 0 --core-compat 31 --tip-target", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    free(g);
    /* usage errors: 64; missing file: 66 */
    out = cli("block", &len, &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    snprintf(args, sizeof args, "block %s --verbosity 4", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    snprintf(args, sizeof args, "block %s --core-compat 27", tmp_undo);
    out = cli(args, &len, &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    out = cli("block /nonexistent/block.raw", &len, &st);
    CHECK_EQ_INT(st, 66);
    free(out);
    out = cli("block --help", &len, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(out, "--core-compat") != NULL);
    free(out);
    unlink(tmp_undo);
    unlink(tmp_block);
    unlink(errpath);
    free(raw);
}

int main(void)
{
    bk_writer_init(&w, NULL);
    RUN(core_getblock_outputs_byte_for_byte);
    RUN(pretty_equals_core_write2);
    RUN(core_compat_changes_exactly_section12);
    RUN(spec_13_2_genesis);
    RUN(undo_mismatch_is_an_error);
    RUN(core_check_failures_are_errors);
    RUN(reused_writer_allocates_nothing);
    RUN(sink_writer_same_bytes);
    RUN(cli_block_reproduces_core_files);
    RUN(cli_block_errors);
    bk_writer_free(&w);
    return check_finish();
}
