/* BIP158 basic block filters (blockkit/blockfilter.h):
 *   - SipHash-2-4 against the reference vectors of the SipHash paper
 *     (key 00..0f; the empty message and 00..0e);
 *   - BIP158's published test vectors (tests/data/indexes/blockfilters.json,
 *     the data of Bitcoin Core's src/test/data/blockfilters.json): each
 *     block with its listed spent scripts gives the filter and, from the
 *     previous header, the header byte for byte; Core's filter parses and
 *     matches every element;
 *   - Core v29.99's getblockfilter answers for all 940 heights of the
 *     regtest datadir (tests/data/indexes/getblockfilter.ndjson.zst):
 *     block and undo data read through the node's block index, the filter
 *     and the header chain from genesis rebuilt and printed as Core prints
 *     them, byte for byte;
 *   - the mainnet vector blocks with undo data (866342, 367891, 277647):
 *     the filter parses back, its N equals the element set counted here
 *     independently (sorted byte strings), every element matches, foreign
 *     scripts almost never do;
 *   - the engine (blockkit/filters.h): bk_filter_answer_blocks over every
 *     active block in a scrambled order equals Core's answers; the 39
 *     off-chain blocks: Core's -5 for the 7 it never connected, and for
 *     the 32 it did, the filter and the header along the branch rebuilt
 *     here block by block from the fork point's Core header; a list that
 *     is not a path is refused when headers are asked;
 *   - malformed filters: each refusal names its byte. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockfilter.h>
#include <blockkit/blockindex.h>
#include <blockkit/engine.h>
#include <blockkit/filters.h>
#include <blockkit/hex.h>

#include "check.h"
#include "json_test_util.h"

static void test_siphash(void)
{
    uint64_t k0 = 0x0706050403020100ull, k1 = 0x0f0e0d0c0b0a0908ull;
    uint8_t msg[64];
    for (int i = 0; i < 64; i++) msg[i] = (uint8_t)i;
    CHECK(bk_siphash24(k0, k1, msg, 0) == 0x726fdb47dd0e0e31ull);
    CHECK(bk_siphash24(k0, k1, msg, 15) == 0xa129ca6149be45e5ull);
    /* FastRange64 */
    CHECK(bk_fastrange64(UINT64_MAX, 10) == 9);
    CHECK(bk_fastrange64((uint64_t)1 << 63, 10) == 5);
    CHECK(bk_fastrange64(12345, 0) == 0);
}

/* ---- the BIP158 vectors: one JSON row a line ---- */

typedef struct row {
    long height;
    char *s[7];        /* hash, block, prev header, filter, header, notes: s[0..1], s[3..6] */
    char *prev[64];    /* spent scripts */
    size_t n_prev;
} row;

/* A JSON string at *p (no escapes in this data): NUL-terminates it in place. */
static char *take_string(char **p)
{
    while (**p && **p != '"') (*p)++;
    if (!**p) return NULL;
    char *s = ++*p;
    while (**p && **p != '"') (*p)++;
    if (!**p) return NULL;
    **p = 0;
    (*p)++;
    return s;
}

static int parse_row(char *line, row *r)
{
    memset(r, 0, sizeof *r);
    char *p = line;
    if (*p != '[') return 0;
    p++;
    if (*p < '0' || *p > '9') return 0;
    r->height = strtol(p, &p, 10);
    r->s[0] = take_string(&p); /* hash */
    r->s[1] = take_string(&p); /* block */
    if (!r->s[1]) return 0;
    while (*p && *p != '[') p++;
    if (!*p) return 0;
    p++;
    for (;;) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ']') break;
        if (*p != '"' || r->n_prev == 64) return 0;
        r->prev[r->n_prev++] = take_string(&p);
    }
    p++;
    for (int k = 3; k < 7; k++)
        if (!(r->s[k] = take_string(&p))) return 0;
    return 1;
}

static void hex_rev(char out[65], const uint8_t h[32])
{
    bk_hex_encode_rev(out, h, 32);
    out[64] = 0;
}

static char *hex_of(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    bk_hex_encode(s, p, n);
    s[2 * n] = 0;
    return s;
}

static void test_bip158_vectors(void)
{
    size_t len;
    char *text = (char *)check_read_file("indexes/blockfilters.json", &len);
    size_t rows = 0;
    bk_blockfilter f;
    bk_blockfilter_init(&f, NULL);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] != '[' || line[1] < '0' || line[1] > '9') continue;
        row r;
        CHECK(parse_row(line, &r));
        if (!r.s[6]) continue;
        rows++;
        size_t blen;
        uint8_t *bytes = check_unhex(r.s[1], &blen);
        CHECK(bytes != NULL);
        bk_block b;
        bk_error err;
        CHECK(bk_block_decode(&dec, bytes, blen, &b, &err) == BK_OK);
        uint8_t h[32];
        char hx[65];
        bk_block_hash(&b, h);
        hex_rev(hx, h);
        CHECK_EQ_STR(hx, r.s[0]);
        bk_blockfilter_reset(&f, h);
        bk_blockfilter_add_block(&f, &b, NULL);
        for (size_t i = 0; i < r.n_prev; i++) {
            size_t sl;
            uint8_t *s = check_unhex(r.prev[i], &sl);
            if (sl) bk_blockfilter_add(&f, s, sl);
            free(s);
        }
        CHECK(bk_blockfilter_finish(&f, &err) == BK_OK);
        char *got = hex_of(f.filter, f.filter_len);
        CHECK_EQ_STR(got, r.s[4]);
        free(got);
        uint8_t prev[32], hdr[32];
        CHECK(bk_hex_decode_rev(prev, r.s[3], 32, NULL) == BK_OK);
        bk_blockfilter_header(f.filter, f.filter_len, prev, hdr);
        hex_rev(hx, hdr);
        CHECK_EQ_STR(hx, r.s[5]);
        /* Core's bytes parse; every element (the spent scripts that are
         * not empty, the block's own outputs) matches. */
        size_t fl;
        uint8_t *core = check_unhex(r.s[4], &fl);
        bk_blockfilter_view v;
        CHECK(bk_blockfilter_parse(core, fl, h, &v, &err) == BK_OK);
        CHECK_EQ_INT(v.n, f.n_elements);
        for (size_t i = 0; i < r.n_prev; i++) {
            size_t sl;
            uint8_t *s = check_unhex(r.prev[i], &sl);
            if (sl) CHECK(bk_blockfilter_match(&v, s, sl));
            free(s);
        }
        for (uint32_t t = 0; t < b.n_tx; t++) {
            bk_txout_iter it;
            bk_txout o;
            bk_txout_iter_init(&it, &b.txs[t]);
            while (bk_txout_next(&it, &o))
                if (o.script_len && o.script[0] != 0x6a) CHECK(bk_blockfilter_match(&v, o.script, o.script_len));
        }
        free(core);
        free(bytes);
    }
    CHECK_EQ_INT(rows, 10);
    bk_block_decoder_free(&dec);
    bk_blockfilter_free(&f);
    free(text);
}

/* ---- the regtest datadir against Core's getblockfilter ---- */

static const char *core_part(const char *line)
{
    const char *p = strstr(line, ",\"core\":");
    return p ? p + 8 : NULL;
}

static void test_regtest(void)
{
    size_t zlen;
    char *text = (char *)read_zst("indexes/getblockfilter.ndjson.zst", &zlen);
    bk_chain c;
    bk_error err;
    bk_status st = bk_chain_build_index(&c, BK_REGTEST_DIR "/full", BK_NET_REGTEST, NULL, NULL, &err);
    CHECK(st == BK_OK);
    if (st != BK_OK) {
        fprintf(stderr, "regtest datadir: %s\n", err.msg);
        free(text);
        return;
    }
    bk_blocksdir d;
    CHECK(bk_blocksdir_open(&d, BK_REGTEST_DIR "/full/regtest/blocks", BK_NET_REGTEST, NULL, &err) == BK_OK);
    bk_block_reader rd;
    bk_block_reader_init(&rd, &d, NULL);
    bk_blockfilter f;
    bk_blockfilter_init(&f, NULL);
    uint8_t prev[32] = {0};
    size_t lines = 0, same = 0, matched = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        long height = -1;
        if (sscanf(line, "{\"height\":%ld,", &height) != 1) continue;
        const bk_chain_entry *e = bk_chain_at_height(&c, height);
        CHECK(e != NULL);
        if (!e) break;
        lines++;
        bk_engine_block eb;
        CHECK(bk_block_reader_read(&rd, e, BK_READ_UNDO | BK_READ_UNDO_CHECKSUM, &eb, NULL, &err) == BK_OK);
        CHECK(eb.block != NULL);
        CHECK(height == 0 || eb.undo != NULL);
        CHECK(bk_blockfilter_build(&f, eb.block, eb.undo, &err) == BK_OK);
        uint8_t hdr[32];
        bk_blockfilter_header(f.filter, f.filter_len, prev, hdr);
        memcpy(prev, hdr, 32);
        char *fx = hex_of(f.filter, f.filter_len), hx[65];
        hex_rev(hx, hdr);
        size_t n = strlen(fx) + 64 + 40;
        char *want = malloc(n);
        snprintf(want, n, "{\"filter\":\"%s\",\"header\":\"%s\"}}", fx, hx);
        const char *core = core_part(line);
        CHECK(core != NULL);
        if (core && !strcmp(core, want)) same++;
        else if (core) fprintf(stderr, "height %ld:\n  got  %s\n  want %s\n", height, want, core);
        /* every element of the block matches its filter */
        bk_blockfilter_view v;
        CHECK(bk_blockfilter_parse(f.filter, f.filter_len, e->hash, &v, &err) == BK_OK);
        int all = 1;
        for (uint32_t t = 0; t < eb.block->n_tx; t++) {
            bk_txout_iter it;
            bk_txout o;
            bk_txout_iter_init(&it, &eb.block->txs[t]);
            while (bk_txout_next(&it, &o))
                if (o.script_len && o.script[0] != 0x6a) all &= bk_blockfilter_match(&v, o.script, o.script_len);
        }
        matched += all;
        free(want);
        free(fx);
    }
    CHECK_EQ_INT(lines, 940);
    CHECK_EQ_INT(same, 940);
    CHECK_EQ_INT(matched, 940);
    bk_blockfilter_free(&f);
    bk_block_reader_free(&rd);
    bk_blocksdir_close(&d);
    bk_chain_free(&c);
    free(text);
}

/* Mainnet block 866342 with its undo data (tests/data/undo). */
/* The element set counted here, independently of the builder: every
 * output script (not empty, not OP_RETURN-led) and every spent coin's
 * non-empty script, sorted by their bytes, equal ones once. */
typedef struct elem_ref {
    const uint8_t *p;
    size_t n;
} elem_ref;
static int elem_cmp(const void *a, const void *b)
{
    const elem_ref *x = a, *y = b;
    size_t m = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, m);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

static size_t distinct_elements(const bk_block *b, const bk_block_undo *u, uint8_t *arena)
{
    size_t cap = 1 << 16, n = 0, used = 0;
    elem_ref *e = malloc(cap * sizeof *e);
    for (uint32_t t = 0; t < b->n_tx; t++) {
        bk_txout_iter it;
        bk_txout o;
        bk_txout_iter_init(&it, &b->txs[t]);
        while (bk_txout_next(&it, &o))
            if (o.script_len && o.script[0] != 0x6a && n < cap) e[n++] = (elem_ref){o.script, o.script_len};
    }
    bk_undo_iter ui;
    uint32_t nc;
    bk_coin coin;
    bk_undo_iter_init(&ui, u);
    while (bk_undo_next_tx(&ui, &nc))
        while (bk_undo_next_coin(&ui, &coin))
            if (coin.script_len && n < cap) {
                /* the coin's script is expanded into the iterator's buffer: keep a copy */
                memcpy(arena + used, bk_coin_script(&coin), coin.script_len);
                e[n++] = (elem_ref){arena + used, coin.script_len};
                used += coin.script_len;
            }
    qsort(e, n, sizeof *e, elem_cmp);
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += i == 0 || elem_cmp(&e[i - 1], &e[i]) != 0;
    free(e);
    return d;
}

/* A mainnet vector block with its undo data (tests/data/undo). */
static void check_mainnet_block(const char *num, size_t min_spent)
{
    size_t blen, ulen;
    char bn[64], un[64];
    snprintf(bn, sizeof bn, "blocks/block%s.raw", num);
    snprintf(un, sizeof un, "undo/block%s_undo.raw", num);
    uint8_t *bytes = check_read_file(bn, &blen);
    uint8_t *ub = check_read_file(un, &ulen);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block b;
    bk_block_undo u;
    bk_error err;
    CHECK(bk_block_decode(&dec, bytes, blen, &b, &err) == BK_OK);
    CHECK(bk_block_undo_parse(ub, ulen, &u, &err) == BK_OK);
    CHECK(bk_block_undo_check(&u, &b, &err) == BK_OK);
    bk_blockfilter f;
    bk_blockfilter_init(&f, NULL);
    CHECK(bk_blockfilter_build(&f, &b, &u, &err) == BK_OK);
    uint8_t h[32];
    bk_block_hash(&b, h);
    bk_blockfilter_view v;
    CHECK(bk_blockfilter_parse(f.filter, f.filter_len, h, &v, &err) == BK_OK);
    CHECK(v.n == f.n_elements && v.n > 100);
    uint8_t *arena = malloc(ulen * 4 + 1024);
    CHECK_EQ_INT(v.n, distinct_elements(&b, &u, arena));
    free(arena);
    /* the values are sorted and below N * M */
    uint64_t *vals = malloc(v.n * sizeof *vals);
    CHECK(bk_blockfilter_values(&v, vals, v.n, &err) == BK_OK);
    int sorted = 1;
    for (uint32_t i = 1; i < v.n; i++) sorted &= vals[i - 1] <= vals[i];
    CHECK(sorted && vals[v.n - 1] < v.range);
    free(vals);
    /* every spent script and output matches; a fresh script set almost
     * never does (1 / M each) */
    bk_undo_iter ui;
    uint32_t nc;
    bk_coin coin;
    size_t spent = 0, spent_match = 0;
    bk_undo_iter_init(&ui, &u);
    while (bk_undo_next_tx(&ui, &nc))
        while (bk_undo_next_coin(&ui, &coin)) {
            if (!coin.script_len) continue;
            spent++;
            spent_match += bk_blockfilter_match(&v, bk_coin_script(&coin), coin.script_len);
        }
    CHECK(spent >= min_spent);
    CHECK_EQ_INT(spent_match, spent);
    size_t fp = 0;
    for (uint32_t i = 0; i < 2000; i++) {
        uint8_t s[25] = {0x76, 0xa9, 0x14};
        bk_store_le32(s + 3, i ^ 0x5a5a5a5au);
        s[23] = 0x88;
        s[24] = 0xac;
        fp += bk_blockfilter_match(&v, s, sizeof s);
    }
    CHECK(fp < 5);
    /* match_any: the queries' order does not matter */
    uint8_t s1[3] = {1, 2, 3};
    const uint8_t *qs[3] = {s1, bk_coin_script(&coin), s1};
    size_t ql[3] = {3, coin.script_len, 3};
    uint64_t scratch[3];
    CHECK(coin.script_len == 0 || bk_blockfilter_match_any(&v, qs, ql, 3, scratch));
    bk_blockfilter_free(&f);
    bk_block_decoder_free(&dec);
    free(bytes);
    free(ub);
}

static void test_mainnet_block(void)
{
    check_mainnet_block("866342", 1000);
    check_mainnet_block("367891", 100);
    check_mainnet_block("277647", 100);
}

static void test_malformed(void)
{
    uint8_t h[32] = {0};
    bk_blockfilter_view v;
    bk_error err;
    /* the empty filter */
    static const uint8_t empty[] = {0x00};
    CHECK(bk_blockfilter_parse(empty, 1, h, &v, &err) == BK_OK);
    CHECK(v.n == 0 && !bk_blockfilter_match(&v, empty, 1));
    CHECK(bk_blockfilter_parse(empty, 0, h, &v, &err) == BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, 0);
    static const uint8_t excess[] = {0x00, 0x00};
    CHECK(bk_blockfilter_parse(excess, 2, h, &v, &err) == BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 1);
    /* N = 1 with 2 bytes: 20 bits do not fit in 16 */
    static const uint8_t short1[] = {0x01, 0x12, 0x34};
    CHECK(bk_blockfilter_parse(short1, 3, h, &v, &err) == BK_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, 3);
    CHECK(strstr(err.msg, "element 0 of 1") != NULL);
    /* N = 1: 0 then 19 bits fits in 3 bytes; a fourth byte is excess */
    static const uint8_t one[] = {0x01, 0x12, 0x34, 0x50, 0x00};
    CHECK(bk_blockfilter_parse(one, 4, h, &v, &err) == BK_OK);
    CHECK(bk_blockfilter_parse(one, 5, h, &v, &err) == BK_ERR_TRAILING);
    CHECK_EQ_INT(err.offset, 4);
    /* a unary run of ones to the end */
    static const uint8_t ones[] = {0x01, 0xff, 0xff, 0xff};
    CHECK(bk_blockfilter_parse(ones, 4, h, &v, &err) == BK_ERR_TRUNCATED);
    /* non-canonical and oversized counts */
    static const uint8_t nc[] = {0xfd, 0x01, 0x00};
    CHECK(bk_blockfilter_parse(nc, 3, h, &v, &err) == BK_ERR_NONCANONICAL);
    static const uint8_t big[] = {0xfe, 0x00, 0x00, 0x00, 0x03};
    CHECK(bk_blockfilter_parse(big, 5, h, &v, &err) == BK_ERR_SIZE);
    /* a count the bytes cannot hold is refused, quickly */
    static const uint8_t many[] = {0xfe, 0x00, 0x00, 0x00, 0x02, 0x00};
    CHECK(bk_blockfilter_parse(many, 6, h, &v, &err) == BK_ERR_TRUNCATED);
    /* an empty builder gives the empty filter; duplicates count once */
    bk_blockfilter f;
    bk_blockfilter_init(&f, NULL);
    bk_blockfilter_reset(&f, h);
    CHECK(bk_blockfilter_finish(&f, &err) == BK_OK);
    CHECK(f.filter_len == 1 && f.filter[0] == 0);
    bk_blockfilter_reset(&f, h);
    for (int i = 0; i < 300; i++) {
        uint8_t e[2] = {(uint8_t)(i % 7), 0xaa};
        bk_blockfilter_add(&f, e, 2);
    }
    CHECK(bk_blockfilter_finish(&f, &err) == BK_OK);
    CHECK_EQ_INT(f.n_elements, 7);
    CHECK(bk_blockfilter_parse(f.filter, f.filter_len, h, &v, &err) == BK_OK);
    uint8_t e3[2] = {3, 0xaa}, e9[2] = {9, 0xaa};
    CHECK(bk_blockfilter_match(&v, e3, 2));
    CHECK(!bk_blockfilter_match(&v, e9, 2));
    bk_blockfilter_free(&f);
}

/* ---- the engine: getblockfilter for a list of blocks ---- */

static void test_answers(void)
{
    size_t zlen, olen;
    char *text = (char *)read_zst("indexes/getblockfilter.ndjson.zst", &zlen);
    char *off = (char *)read_zst("indexes/getblockfilter_offchain.ndjson.zst", &olen);
    bk_chain c;
    bk_error err;
    if (bk_chain_build_index(&c, BK_REGTEST_DIR "/full", BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) {
        CHECK(0);
        free(text);
        free(off);
        return;
    }
    bk_blocksdir d;
    CHECK(bk_blocksdir_open(&d, BK_REGTEST_DIR "/full/regtest/blocks", BK_NET_REGTEST, NULL, &err) == BK_OK);
    /* Core's answers by height */
    char *core[940] = {0};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        long h = -1;
        if (sscanf(line, "{\"height\":%ld,", &h) == 1 && h >= 0 && h < 940) core[h] = (char *)core_part(line);
    }
    /* every active block, in a scrambled order (7 is prime to 940), then the off-chain ones */
    const bk_chain_entry *blocks[940 + 64];
    size_t n = 0;
    for (size_t i = 0; i < 940; i++) blocks[n++] = bk_chain_at_height(&c, (int64_t)((i * 7) % 940));
    size_t first_off = n;
    for (char *line = strtok(off, "\n"); line && n < 940 + 64; line = strtok(NULL, "\n")) {
        const char *hp = strstr(line, "\"hash\":\"");
        uint8_t h[32];
        CHECK(hp && bk_hex_decode_rev(h, hp + 8, 32, NULL) == BK_OK);
        const bk_chain_entry *e = hp ? bk_chain_find(&c, h) : NULL;
        CHECK(e != NULL);
        if (e) blocks[n++] = e;
    }
    CHECK_EQ_INT(n - first_off, 39);
    bk_filter_answer *ans = calloc(n, sizeof *ans);
    bk_ordered_opts run;
    bk_ordered_opts_init(&run);
    run.workers = 2;
    bk_engine_result res;
    CHECK(bk_filter_answer_blocks(&c, &d, blocks, n, &run, ans, &res, &err) == BK_OK);
    size_t same = 0, refused = 0, branch_ok = 0;
    bk_writer w;
    bk_writer_init(&w, NULL);
    for (size_t i = 0; i < first_off; i++) {
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, 0);
        CHECK_EQ_INT(ans[i].rpc_code, 0);
        bk_json_filter(&j, ans[i].filter, ans[i].len, ans[i].header);
        bk_writer_putc(&w, '}');
        bk_writer_putc(&w, 0);
        int h = blocks[i]->height;
        if (core[h] && !strcmp((const char *)w.data, core[h])) same++;
    }
    CHECK_EQ_INT(same, 940);
    /* the off-chain ones, rebuilt here */
    bk_block_reader rd;
    bk_block_reader_init(&rd, &d, NULL);
    bk_blockfilter f;
    bk_blockfilter_init(&f, NULL);
    for (size_t i = first_off; i < n; i++) {
        const bk_chain_entry *e = blocks[i];
        if (!bk_filter_block_connected(e)) {
            refused += ans[i].rpc_code == -5 && !strcmp(ans[i].msg, BK_FILTER_NOT_CONNECTED_MSG) && !ans[i].filter;
            continue;
        }
        const bk_chain_entry *fork = bk_chain_fork_point(&c, e);
        CHECK(fork != NULL && fork->height < e->height);
        if (!fork) continue;
        /* Core's header of the fork point, then the branch up to e */
        const char *hp = strstr(core[fork->height], "\"header\":\"");
        uint8_t hdr[32];
        CHECK(hp && bk_hex_decode_rev(hdr, hp + 10, 32, NULL) == BK_OK);
        const bk_chain_entry *path[64];
        size_t m = 0;
        for (const bk_chain_entry *x = e; x != fork && m < 64; x = &c.entries[x->parent]) path[m++] = x;
        int ok = 1;
        while (m--) {
            bk_engine_block eb;
            ok &= bk_block_reader_read(&rd, path[m], BK_READ_UNDO, &eb, NULL, &err) == BK_OK && eb.undo != NULL;
            ok &= ok && bk_blockfilter_build(&f, eb.block, eb.undo, &err) == BK_OK;
            if (ok) bk_blockfilter_header(f.filter, f.filter_len, hdr, hdr);
        }
        ok &= ans[i].rpc_code == 0 && ans[i].len == f.filter_len && !memcmp(ans[i].filter, f.filter, f.filter_len) &&
              !memcmp(ans[i].header, hdr, 32);
        branch_ok += ok;
    }
    CHECK_EQ_INT(refused, 7);
    CHECK_EQ_INT(branch_ok, 32);
    bk_filter_answers_free(ans, n);
    bk_blockfilter_free(&f);
    bk_block_reader_free(&rd);
    bk_writer_free(&w);
    free(ans);
    bk_blocksdir_close(&d);
    bk_chain_free(&c);
    free(text);
    free(off);
}

static bk_status count_emit(void *ctx, size_t item, const bk_chain_entry *e, int64_t height, const uint8_t *filter,
                            size_t len, const uint8_t *header, bk_error *err)
{
    (void)item, (void)e, (void)height, (void)filter, (void)len, (void)header, (void)err;
    ++*(size_t *)ctx;
    return BK_OK;
}

static void test_not_a_path(void)
{
    bk_chain c;
    bk_error err;
    if (bk_chain_build_index(&c, BK_REGTEST_DIR "/full", BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) {
        CHECK(0);
        return;
    }
    bk_blocksdir d;
    CHECK(bk_blocksdir_open(&d, BK_REGTEST_DIR "/full/regtest/blocks", BK_NET_REGTEST, NULL, &err) == BK_OK);
    bk_engine_item items[2] = {{c.active[5], 5, 0}, {c.active[7], 7, 0}};
    size_t emitted = 0;
    bk_filter_run_opts o;
    bk_filter_run_opts_init(&o);
    o.chain = &c;
    o.dir = &d;
    o.items = items;
    o.n_items = 2;
    o.headers = 1;
    o.emit = count_emit;
    o.ctx = &emitted;
    CHECK(bk_filter_run(&o, NULL, &err) == BK_ERR_ARG);
    CHECK(strstr(err.msg, "item 1 is not the child of item 0") != NULL);
    CHECK_EQ_INT(emitted, 0);
    o.headers = 0; /* filters alone need no path */
    CHECK(bk_filter_run(&o, NULL, &err) == BK_OK);
    CHECK_EQ_INT(emitted, 2);
    bk_blocksdir_close(&d);
    bk_chain_free(&c);
}

int main(void)
{
    RUN(test_siphash);
    RUN(test_malformed);
    RUN(test_bip158_vectors);
    RUN(test_mainnet_block);
    RUN(test_regtest);
    RUN(test_answers);
    RUN(test_not_a_path);
    return check_finish();
}
