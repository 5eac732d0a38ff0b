/* Partial merkle trees and transaction proofs (blockkit/merkle.h,
 * blockkit/lookup.h) against Core v29.99's answers for the regtest datadir
 * (tests/data/indexes, README.md there):
 *   - all 6,177 gettxoutproof answers (every transaction alone, and two
 *     multi-transaction proofs per block of 3 or more) byte for byte: from
 *     the block's bytes (bk_block_merkle_proof), through the lookup with the
 *     block hash, and through the lookup without it (Core's coin lookup in
 *     the chainstate, else the txindex);
 *   - all 6,177 verifytxoutproof results byte for byte, and the same
 *     matches with their positions from bk_merkle_proof_extract;
 *   - Core's refusals: duplicated, malformed and unknown txids, txids of
 *     two blocks, an unknown block, a proof of a block off the active
 *     chain, a changed transaction count, a mutated (CVE-2012-2459) tree;
 *   - every truncation of a proof refused with the byte it ends at; every
 *     one-byte change refused or answered, never a crash. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockindex.h>
#include <blockkit/engine.h>
#include <blockkit/hex.h>
#include <blockkit/lookup.h>
#include <blockkit/merkle.h>

#include "check.h"
#include "json_test_util.h"

#define DATADIR BK_REGTEST_DIR "/full"

/* The text of a JSON string member "key":"..." in line (no escapes in this
 * data), copied NUL-terminated into a malloc'd string. */
static char *member(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    const char *q = strchr(p, '"');
    if (!q) return NULL;
    char *s = malloc((size_t)(q - p) + 1);
    memcpy(s, p, (size_t)(q - p));
    s[q - p] = 0;
    return s;
}

/* The txids array: up to 16 pointers into a copy (*buf_out, free it). */
static size_t txid_list(const char *line, const char *txids[16], char **buf_out)
{
    const char *p = strstr(line, "\"txids\":[");
    *buf_out = NULL;
    if (!p) return 0;
    p += 9;
    const char *q = strchr(p, ']');
    char *buf = malloc((size_t)(q - p) + 1);
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = 0;
    size_t n = 0;
    for (char *s = buf; (s = strchr(s, '"')) && n < 16;) {
        char *e = strchr(s + 1, '"');
        *e = 0;
        txids[n++] = s + 1;
        s = e + 1;
    }
    *buf_out = buf;
    return n;
}

static char *hex_of(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    bk_hex_encode(s, p, n);
    s[2 * n] = 0;
    return s;
}

static bk_lookup *open_lookup(void)
{
    bk_lookup *l = NULL;
    bk_error err;
    if (bk_lookup_open(DATADIR, NULL, BK_NET_REGTEST, NULL, NULL, &l, &err) != BK_OK) {
        fprintf(stderr, "regtest datadir: %s\n", err.msg);
        return NULL;
    }
    return l;
}

static void test_gettxoutproof(void)
{
    size_t zlen;
    char *text = (char *)read_zst("indexes/gettxoutproof.ndjson.zst", &zlen);
    bk_lookup *l = open_lookup();
    CHECK(l != NULL);
    if (!l) {
        free(text);
        return;
    }
    bk_blocksdir d;
    bk_error err;
    CHECK(bk_blocksdir_open(&d, DATADIR "/regtest/blocks", BK_NET_REGTEST, NULL, &err) == BK_OK);
    bk_block_reader rd;
    bk_block_reader_init(&rd, &d, NULL);
    const bk_chain *c = bk_lookup_chain(l);
    bk_writer w;
    bk_writer_init(&w, NULL);
    size_t lines = 0, from_block = 0, with_hash = 0, without_hash = 0, multi = 0, genesis_refused = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *bh = member(line, "blockhash"), *core = member(line, "core"), *buf;
        const char *txids[16];
        size_t n = txid_list(line, txids, &buf);
        CHECK(bh && core && n > 0);
        if (!bh || !core || !n) break;
        lines++;
        multi += n > 1;
        /* from the block's bytes */
        uint8_t hash[32], want[16 * 32];
        CHECK(bk_hex_decode_rev(hash, bh, 32, NULL) == BK_OK);
        for (size_t i = 0; i < n; i++) CHECK(bk_hex_decode_rev(want + 32 * i, txids[i], 32, NULL) == BK_OK);
        const bk_chain_entry *e = bk_chain_find(c, hash);
        CHECK(e != NULL);
        if (e) {
            bk_engine_block eb;
            CHECK(bk_block_reader_read(&rd, e, 0, &eb, NULL, &err) == BK_OK);
            bk_writer_reset(&w);
            size_t found = 0;
            CHECK(bk_block_merkle_proof(eb.block, want, n, NULL, &w, &found, &err) == BK_OK);
            CHECK_EQ_INT(found, n);
            char *got = hex_of(w.data, w.len);
            if (!strcmp(got, core)) from_block++;
            else if (from_block + 3 > lines) fprintf(stderr, "height %s:\n  got  %s\n  want %s\n", bh, got, core);
            free(got);
        }
        /* the lookup with the block hash, and without it */
        for (int k = 0; k < 2; k++) {
            bk_writer_reset(&w);
            bk_status st = bk_lookup_txoutproof(l, txids, n, k ? NULL : bh, &w, &err);
            if (st != BK_OK) {
                /* The genesis coinbase is in neither the UTXO set nor the
                 * txindex: Core answers it only with the block hash. */
                if (k && e && e->height == 0 && bk_lookup_rpc_code(l) == BK_RPC_INVALID_ADDRESS_OR_KEY &&
                    !strcmp(err.msg, "Transaction not yet in block"))
                    genesis_refused++;
                else
                    fprintf(stderr, "lookup %s: %s\n", bh, err.msg);
                continue;
            }
            char *got = hex_of(w.data, w.len);
            if (!strcmp(got, core)) *(k ? &without_hash : &with_hash) += 1;
            free(got);
        }
        free(buf);
        free(bh);
        free(core);
    }
    CHECK_EQ_INT(lines, 6177);
    CHECK_EQ_INT(multi, 968);
    CHECK_EQ_INT(from_block, 6177);
    CHECK_EQ_INT(with_hash, 6177);
    CHECK_EQ_INT(without_hash, 6176);
    CHECK_EQ_INT(genesis_refused, 1);
    bk_writer_free(&w);
    bk_block_reader_free(&rd);
    bk_blocksdir_close(&d);
    bk_lookup_close(l);
    free(text);
}

static void test_verifytxoutproof(void)
{
    size_t zlen;
    char *text = (char *)read_zst("indexes/verifytxoutproof.ndjson.zst", &zlen);
    bk_lookup *l = open_lookup();
    CHECK(l != NULL);
    if (!l) {
        free(text);
        return;
    }
    bk_writer w;
    bk_writer_init(&w, NULL);
    size_t lines = 0, same = 0, extracted = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *proof = member(line, "proof");
        const char *core = strstr(line, "\"core\":");
        CHECK(proof && core);
        if (!proof || !core) break;
        core += 7;
        lines++;
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, 0);
        bk_error err;
        CHECK(bk_lookup_verifytxoutproof(l, proof, &j, &err) == BK_OK);
        bk_writer_putc(&w, '}');
        if (w.len == strlen(core) && !memcmp(w.data, core, w.len)) same++;
        else if (same + 3 > lines) fprintf(stderr, "got  %.*s\nwant %s\n", (int)w.len, (const char *)w.data, core);
        /* the library's own walk: the matches in block order, positions rising */
        size_t len = strlen(proof) / 2;
        uint8_t *bytes = malloc(len);
        CHECK(bk_hex_decode(bytes, proof, len, NULL) == BK_OK);
        bk_merkle_proof p;
        CHECK(bk_merkle_proof_parse(bytes, len, &p, &err) == BK_OK);
        CHECK_EQ_INT(p.size, len);
        uint8_t *m = malloc(32 * p.n_hashes), root[32];
        uint32_t *idx = malloc(sizeof *idx * p.n_hashes);
        size_t nm = 0;
        const char *why = "";
        int ok = bk_merkle_proof_extract(&p, m, idx, &nm, root, &why);
        int good = ok && why == NULL && !memcmp(root, p.header + 36, 32) && nm > 0;
        for (size_t i = 1; i < nm; i++) good &= idx[i] > idx[i - 1];
        for (size_t i = 0; i < nm && good; i++) {
            char hx[65];
            bk_hex_encode_rev(hx, m + 32 * i, 32);
            hx[64] = 0;
            good = strstr(core, hx) != NULL;
        }
        extracted += good;
        free(idx);
        free(m);
        free(bytes);
        free(proof);
    }
    CHECK_EQ_INT(lines, 6177);
    CHECK_EQ_INT(same, 6177);
    CHECK_EQ_INT(extracted, 6177);
    bk_writer_free(&w);
    bk_lookup_close(l);
    free(text);
}

/* One call of verifytxoutproof: its JSON (or NULL on an error, *code the
 * RPC code). */
static char *verify(bk_lookup *l, const char *hex, int *code, bk_error *err)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    *code = 0;
    if (bk_lookup_verifytxoutproof(l, hex, &j, err) != BK_OK) {
        *code = bk_lookup_rpc_code(l);
        bk_writer_free(&w);
        return NULL;
    }
    char *s = malloc(w.len + 1);
    memcpy(s, w.data, w.len);
    s[w.len] = 0;
    bk_writer_free(&w);
    return s;
}

/* The regtest proof of the transactions at positions pos[0..n) of the
 * block at height h, as hex. */
static char *proof_at(bk_lookup *l, int64_t h, const size_t *pos, size_t n, uint8_t txids_out[][32])
{
    const bk_chain_entry *e = bk_chain_at_height(bk_lookup_chain(l), h);
    bk_blocksdir d;
    bk_error err;
    if (!e || bk_blocksdir_open(&d, DATADIR "/regtest/blocks", BK_NET_REGTEST, NULL, &err) != BK_OK) return NULL;
    bk_block_reader rd;
    bk_block_reader_init(&rd, &d, NULL);
    bk_engine_block eb;
    char *hex = NULL;
    if (bk_block_reader_read(&rd, e, 0, &eb, NULL, &err) == BK_OK) {
        uint8_t *want = malloc(32 * n + 32);
        for (size_t i = 0; i < n; i++) bk_tx_txid(&eb.block->txs[pos[i]], want + 32 * i);
        if (txids_out) memcpy(txids_out, want, 32 * n);
        bk_writer w;
        bk_writer_init(&w, NULL);
        size_t found;
        if (bk_block_merkle_proof(eb.block, want, n, NULL, &w, &found, &err) == BK_OK) hex = hex_of(w.data, w.len);
        bk_writer_free(&w);
        free(want);
    }
    bk_block_reader_free(&rd);
    bk_blocksdir_close(&d);
    return hex;
}

static void test_refusals(void)
{
    bk_lookup *l = open_lookup();
    CHECK(l != NULL);
    if (!l) return;
    const bk_chain *c = bk_lookup_chain(l);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_error err;
    /* A block of at least 3 transactions. */
    int64_t h = 1;
    for (; h <= 939; h++)
        if (bk_chain_at_height(c, h)->n_tx >= 3) break;
    CHECK(h <= 939);
    size_t pos[2] = {1, 2};
    uint8_t ids[2][32];
    char *hex = proof_at(l, h, pos, 2, ids);
    CHECK(hex != NULL);
    char t1[65], t2[65], other[65], bh[65];
    bk_hex_encode_rev(t1, ids[0], 32);
    bk_hex_encode_rev(t2, ids[1], 32);
    t1[64] = t2[64] = 0;
    /* the coinbase of another block */
    size_t zero = 0;
    uint8_t oid[1][32];
    char *ohex = proof_at(l, h + 1, &zero, 1, oid);
    bk_hex_encode_rev(other, oid[0], 32);
    other[64] = 0;
    bk_hex_encode_rev(bh, bk_chain_at_height(c, h)->hash, 32);
    bh[64] = 0;

    struct {
        const char *txids[3];
        size_t n;
        const char *block;
        int code;
        const char *msg;
    } cases[] = {
        {{NULL}, 0, NULL, BK_RPC_INVALID_PARAMETER, "Parameter 'txids' cannot be empty"},
        {{t1, t2, t1}, 3, NULL, BK_RPC_INVALID_PARAMETER, "Invalid parameter, duplicated txid: "},
        {{"abc"}, 1, NULL, BK_RPC_INVALID_PARAMETER, "txid must be of length 64 (not 3, for 'abc')"},
        {{"zz00000000000000000000000000000000000000000000000000000000000000"}, 1, NULL, BK_RPC_INVALID_PARAMETER,
         "txid must be hexadecimal string (not 'zz00"},
        {{"00000000000000000000000000000000000000000000000000000000000000aa"}, 1, NULL,
         BK_RPC_INVALID_ADDRESS_OR_KEY, "Transaction not yet in block"},
        {{t1, other}, 2, NULL, BK_RPC_INVALID_ADDRESS_OR_KEY, "Not all transactions found in specified or retrieved block"},
        {{other}, 1, bh, BK_RPC_INVALID_ADDRESS_OR_KEY, "Not all transactions found in specified or retrieved block"},
        {{t1}, 1, "00000000000000000000000000000000000000000000000000000000000000aa", BK_RPC_INVALID_ADDRESS_OR_KEY,
         "Block not found"},
        {{t1}, 1, "12", BK_RPC_INVALID_PARAMETER, "blockhash must be of length 64 (not 2, for '12')"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bk_writer_reset(&w);
        CHECK(bk_lookup_txoutproof(l, cases[k].txids, cases[k].n, cases[k].block, &w, &err) != BK_OK);
        CHECK_EQ_INT(bk_lookup_rpc_code(l), cases[k].code);
        CHECK(!strncmp(err.msg, cases[k].msg, strlen(cases[k].msg)));
        if (strncmp(err.msg, cases[k].msg, strlen(cases[k].msg))) fprintf(stderr, "  case %zu: %s\n", k, err.msg);
        CHECK_EQ_INT(w.len, 0);
    }
    /* the order of the txids does not matter */
    const char *rev[2] = {t2, t1};
    bk_writer_reset(&w);
    CHECK(bk_lookup_txoutproof(l, rev, 2, NULL, &w, &err) == BK_OK);
    char *got = hex_of(w.data, w.len);
    CHECK_EQ_STR(got, hex);
    free(got);

    int code;
    char *res;
    /* Core's answers for a valid proof, then for damaged ones */
    res = verify(l, hex, &code, &err);
    char want[200];
    snprintf(want, sizeof want, "[\"%s\",\"%s\"]", t1, t2);
    CHECK_EQ_STR(res, want);
    free(res);
    CHECK(verify(l, "0g", &code, &err) == NULL);
    CHECK_EQ_INT(code, BK_RPC_INVALID_PARAMETER);
    CHECK(!strcmp(err.msg, "proof must be hexadecimal string (not '0g')"));
    CHECK(verify(l, "abc", &code, &err) == NULL);
    CHECK_EQ_INT(code, BK_RPC_INVALID_PARAMETER);
    CHECK(verify(l, "", &code, &err) == NULL);
    CHECK_EQ_INT(code, BK_RPC_INVALID_PARAMETER);
    size_t len = strlen(hex);
    char *m = malloc(len + 3);
    /* every truncation: an error naming where the bytes end */
    size_t trunc_ok = 0, steps = 0;
    for (size_t cut = 2; cut < len; cut += 2) {
        memcpy(m, hex, cut);
        m[cut] = 0;
        steps++;
        if (verify(l, m, &code, &err) == NULL && code == 0 && err.status == BK_ERR_TRUNCATED && err.offset == cut / 2)
            trunc_ok++;
    }
    CHECK_EQ_INT(trunc_ok, steps);
    /* a changed transaction count: Core answers [] */
    memcpy(m, hex, len + 1);
    m[160] = m[160] == '0' ? '1' : '0';
    res = verify(l, m, &code, &err);
    CHECK_EQ_STR(res, "[]");
    free(res);
    /* a changed hash: the root no longer matches: [] */
    memcpy(m, hex, len + 1);
    m[180] = m[180] == '0' ? '1' : '0';
    res = verify(l, m, &code, &err);
    CHECK_EQ_STR(res, "[]");
    CHECK(bk_lookup_warning(l) != NULL);
    free(res);
    /* trailing bytes are ignored, as Core does */
    memcpy(m, hex, len);
    memcpy(m + len, "ab", 3);
    res = verify(l, m, &code, &err);
    CHECK_EQ_STR(res, want);
    free(res);
    /* every one-byte change: refused, or answered with transactions of
     * the block (a flag bit of a leaf turned on makes that leaf a match:
     * its hash is still the txid at that position) */
    size_t all_n = bk_chain_at_height(c, h)->n_tx;
    size_t *all_pos = calloc(all_n + 1, sizeof *all_pos);
    for (size_t i = 0; i < all_n; i++) all_pos[i] = i;
    uint8_t (*all_ids)[32] = calloc(all_n + 1, 32);
    char *all_hex = proof_at(l, h, all_pos, all_n, all_ids);
    char *all = malloc(65 * all_n + 1), *ap = all;
    for (size_t i = 0; i < all_n; i++, ap += 65) {
        bk_hex_encode_rev(ap, all_ids[i], 32);
        ap[64] = ',';
    }
    *ap = 0;
    size_t answered = 0, foreign = 0;
    for (size_t at = 0; at < len; at += 2) {
        memcpy(m, hex, len + 1);
        m[at] = m[at] == 'f' ? '0' : 'f';
        res = verify(l, m, &code, &err);
        if (res) {
            answered++;
            for (char *q = res; (q = strchr(q, '"'));) {
                q[65] = 0;
                foreign += strstr(all, q + 1) == NULL;
                q += 66;
            }
        }
        free(res);
    }
    CHECK_EQ_INT(foreign, 0);
    free(all);
    free(all_hex);
    free(all_ids);
    free(all_pos);
    CHECK(answered > 0);
    free(m);
    free(ohex);
    free(hex);
    bk_writer_free(&w);
    bk_lookup_close(l);
}

/* A mutated tree (CVE-2012-2459): a block of 3 transactions whose last is
 * repeated has the root of the 4-leaf tree [a b c c]; a proof over 4
 * leaves with equal siblings is refused. And a block off the active chain:
 * "Block not found in chain". */
static void test_mutation_and_stale(void)
{
    uint8_t leaves[4][32], hdr[80], root[32], tmp[4 * 32];
    for (int i = 0; i < 3; i++) memset(leaves[i], 0x11 * (i + 1), 32);
    memcpy(leaves[3], leaves[2], 32);
    memcpy(tmp, leaves, sizeof tmp);
    CHECK(bk_merkle_root(tmp, 4, 4, root, NULL) == BK_OK);
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr + 36, root, 32);
    uint8_t match[4] = {0, 0, 0, 1};
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_error err;
    CHECK(bk_merkle_proof_build(hdr, &leaves[0][0], 4, match, NULL, &w, &err) == BK_OK);
    bk_merkle_proof p;
    CHECK(bk_merkle_proof_parse(w.data, w.len, &p, &err) == BK_OK);
    uint8_t m[4 * 32], r[32];
    size_t nm;
    const char *why = NULL;
    CHECK(bk_merkle_proof_extract(&p, m, NULL, &nm, r, &why) == 0);
    CHECK(why != NULL);
    /* the honest 3-leaf tree proves the third leaf */
    uint8_t root3[32];
    memcpy(tmp, leaves, 3 * 32);
    CHECK(bk_merkle_root(tmp, 3, 4, root3, NULL) == BK_OK);
    CHECK_MEM(root3, root, 32);
    memcpy(hdr + 36, root3, 32);
    bk_writer_reset(&w);
    CHECK(bk_merkle_proof_build(hdr, &leaves[0][0], 3, match + 1, NULL, &w, &err) == BK_OK);
    CHECK(bk_merkle_proof_parse(w.data, w.len, &p, &err) == BK_OK);
    uint32_t idx[4];
    CHECK(bk_merkle_proof_extract(&p, m, idx, &nm, r, &why) == 1);
    CHECK_EQ_INT(nm, 1);
    CHECK_EQ_INT(idx[0], 2);
    CHECK_MEM(r, root3, 32);
    /* a single leaf: the tree is the txid, one bit */
    bk_writer_reset(&w);
    uint8_t one = 1;
    CHECK(bk_merkle_proof_build(hdr, &leaves[0][0], 1, &one, NULL, &w, &err) == BK_OK);
    CHECK_EQ_INT(w.len, 80 + 4 + 1 + 32 + 1 + 1);
    CHECK(bk_merkle_proof_build(hdr, &leaves[0][0], 0, &one, NULL, &w, &err) == BK_ERR_ARG);

    /* a block off the active chain, with data */
    bk_lookup *l = open_lookup();
    CHECK(l != NULL);
    if (l) {
        const bk_chain *c = bk_lookup_chain(l);
        const bk_chain_entry *stale = NULL;
        for (size_t i = 0; i < c->n_entries && !stale; i++)
            if (!c->entries[i].active && !c->entries[i].no_data && c->entries[i].height > 0) stale = &c->entries[i];
        CHECK(stale != NULL);
        if (stale) {
            char bh[65];
            bk_hex_encode_rev(bh, stale->hash, 32);
            bh[64] = 0;
            bk_blocksdir d;
            CHECK(bk_blocksdir_open(&d, DATADIR "/regtest/blocks", BK_NET_REGTEST, NULL, &err) == BK_OK);
            bk_block_reader rd;
            bk_block_reader_init(&rd, &d, NULL);
            bk_engine_block eb;
            CHECK(bk_block_reader_read(&rd, stale, 0, &eb, NULL, &err) == BK_OK);
            char cb[65];
            uint8_t id[32];
            bk_tx_txid(&eb.block->txs[0], id);
            bk_hex_encode_rev(cb, id, 32);
            cb[64] = 0;
            const char *ids[1] = {cb};
            bk_writer_reset(&w);
            /* gettxoutproof answers with the block hash given */
            CHECK(bk_lookup_txoutproof(l, ids, 1, bh, &w, &err) == BK_OK);
            char *hex = hex_of(w.data, w.len);
            int code;
            CHECK(verify(l, hex, &code, &err) == NULL);
            CHECK_EQ_INT(code, BK_RPC_INVALID_ADDRESS_OR_KEY);
            CHECK_EQ_STR(err.msg, "Block not found in chain");
            free(hex);
            bk_block_reader_free(&rd);
            bk_blocksdir_close(&d);
        }
        bk_lookup_close(l);
    }
    bk_writer_free(&w);
}

int main(void)
{
    RUN(test_mutation_and_stale);
    RUN(test_refusals);
    RUN(test_gettxoutproof);
    RUN(test_verifytxoutproof);
    return check_finish();
}
