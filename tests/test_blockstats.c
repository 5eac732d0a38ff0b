/* getblockstats against Bitcoin Core's own answers:
 *  - Core's functional-test data rpc_getblockstats.json (104 regtest blocks
 *    in hex and the expected stats of 101..103): the undo data is rebuilt
 *    here from the chain's own outputs, every stat checked alone and all
 *    together;
 *  - the real regtest datadir (tests/data/regtest), its chain from Core's
 *    block index: getblockstats for every height, with stats lists, by hash
 *    for the off-chain blocks, and on the pruned copy, byte for byte;
 *  - the mainnet vector blocks with undo: totalfee equals the known totals;
 *  - bad undo is an error naming the block; no allocation once warm. */
#include <blockkit/blockstats.h>
#include <blockkit/hex.h>
#include <blockkit/json.h>
#include <secp256k1.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>

#include "check.h"
#include "json_test_util.h"

/* ---- small helpers ---- */

static char *render(const bk_block_stats *st, uint32_t sel)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_error err;
    CHECK_EQ_INT(bk_json_block_stats(&j, st, sel, &err), BK_OK);
    bk_writer_putc(&w, 0);
    char *s = strdup((char *)w.data);
    bk_writer_free(&w);
    return s;
}

static uint32_t all_mask(void)
{
    return (uint32_t)((1ull << BK_STAT_COUNT) - 1);
}

/* The text of a top-level member's value in a compact object, or NULL. */
static char *member_text(const char *obj, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    size_t pl = strlen(pat);
    int depth = 0, in_str = 0;
    for (const char *p = obj; *p; p++) {
        if (in_str) {
            if (*p == '\\') p++;
            else if (*p == '"') in_str = 0;
            continue;
        }
        if (*p == '{' || *p == '[') depth++;
        else if (*p == '}' || *p == ']') depth--;
        else if (*p == '"') {
            if (depth == 1 && strncmp(p, pat, pl) == 0 && (p[-1] == '{' || p[-1] == ',')) {
                const char *v = p + pl, *e = v;
                int d = 0;
                for (; *e; e++) {
                    if (*e == '[' || *e == '{') d++;
                    else if (*e == ']' || *e == '}') {
                        if (d == 0) break;
                        d--;
                    } else if (*e == ',' && d == 0) break;
                }
                char *out = malloc((size_t)(e - v) + 1);
                memcpy(out, v, (size_t)(e - v));
                out[e - v] = 0;
                return out;
            }
            in_str = 1;
        }
    }
    return NULL;
}

/* ---- Core's functional-test data ---- */

typedef struct utxo {
    uint8_t txid[32];
    uint32_t n;
    int64_t value;
    const uint8_t *script;
    uint32_t script_len;
    uint32_t height;
    int coinbase;
    int spent;
} utxo;

static void put_varint(tbuf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = bk_varint_encode(tmp, v);
    tbuf_put(b, (const char *)tmp, n);
}

static void put_compact(tbuf *b, uint64_t v)
{
    uint8_t tmp[9];
    size_t n = bk_compact_size_encode(tmp, v);
    tbuf_put(b, (const char *)tmp, n);
}

static void test_core_functional_data(void)
{
    size_t len;
    char *doc = (char *)check_read_file("core_json/rpc_getblockstats.json", &len);
    /* blocks: the strings of the "blocks" array, in height order */
    char *p = strstr(doc, "\"blocks\"");
    CHECK(p != NULL);
    if (!p) return;
    p = strchr(p, '[');
    enum { MAXB = 128 };
    uint8_t *raw[MAXB];
    size_t raw_len[MAXB];
    int nb = 0;
    while (p && *p && *p != ']' && nb < MAXB) {
        char *q = strchr(p, '"');
        char *end = strchr(p, ']');
        if (!q || (end && end < q)) break;
        char *e = strchr(q + 1, '"');
        *e = 0;
        raw[nb] = check_unhex(q + 1, &raw_len[nb]);
        CHECK(raw[nb] != NULL);
        nb++;
        *e = '"';
        p = e + 1;
    }
    CHECK_EQ_INT(nb, 104);

    /* expected stats objects, compacted */
    char *sp = strstr(doc, "\"stats\"");
    CHECK(sp != NULL);
    if (!sp) return;
    sp = strchr(sp, '[') + 1;
    char *expect[8];
    int64_t expect_h[8];
    int ne = 0;
    for (;;) {
        char *o = strchr(sp, '{');
        if (!o || ne == 8) break;
        char *c = strchr(o, '}');
        tbuf t = ref_compact(o, (size_t)(c - o + 1));
        expect[ne] = t.p;
        char *h = member_text(t.p, "height");
        expect_h[ne] = h ? atoll(h) : -1;
        free(h);
        ne++;
        sp = c + 1;
    }
    CHECK_EQ_INT(ne, 3);

    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    utxo *set = calloc(4096, sizeof *set);
    size_t n_set = 0;
    uint32_t times[MAXB];
    int checked = 0;
    for (int h = 0; h < nb; h++) {
        bk_block b;
        bk_error err;
        CHECK_EQ_INT(bk_block_decode(&dec, raw[h], raw_len[h], &b, &err), BK_OK);
        times[h] = b.header.time;
        /* CBlockUndo from the spent outputs: one CTxUndo per non-coinbase
         * tx, each coin as TxInUndoFormatter writes it (raw script form). */
        tbuf u = {0};
        put_compact(&u, b.n_tx - 1);
        for (uint32_t i = 0; i < b.n_tx; i++) {
            if (i > 0) {
                put_compact(&u, b.txs[i].n_in);
                bk_txin_iter it;
                bk_txin in;
                bk_txin_iter_init(&it, &b.txs[i]);
                while (bk_txin_next(&it, &in)) {
                    utxo *c = NULL;
                    for (size_t k = 0; k < n_set; k++)
                        if (!set[k].spent && set[k].n == in.prev_index && !memcmp(set[k].txid, in.prev_txid, 32))
                            c = &set[k];
                    CHECK(c != NULL);
                    if (!c) continue;
                    c->spent = 1;
                    put_varint(&u, (uint64_t)c->height * 2 + (uint64_t)c->coinbase);
                    if (c->height > 0) put_varint(&u, 0);
                    put_varint(&u, bk_amount_compress((uint64_t)c->value));
                    put_varint(&u, c->script_len + 6);
                    tbuf_put(&u, (const char *)c->script, c->script_len);
                }
            }
            /* outputs join the set after the tx's inputs: a later tx of
             * the same block may spend them (its coin has this height) */
            uint8_t txid[32];
            bk_tx_txid(&b.txs[i], txid);
            bk_txout_iter oi;
            bk_txout o;
            bk_txout_iter_init(&oi, &b.txs[i]);
            uint32_t n = 0;
            while (bk_txout_next(&oi, &o) && n_set < 4096) {
                utxo *c = &set[n_set++];
                memcpy(c->txid, txid, 32);
                c->n = n++;
                c->value = o.value;
                c->script = o.script;
                c->script_len = o.script_len;
                c->height = (uint32_t)h;
                c->coinbase = i == 0;
            }
        }
        int want = -1;
        for (int k = 0; k < ne; k++)
            if (expect_h[k] == h) want = k;
        if (want < 0) {
            free(u.p);
            continue;
        }
        /* Core GetMedianTimePast: the median of this and up to 10 earlier times. */
        uint32_t w[11];
        int nw = 0;
        for (int k = h; k >= 0 && nw < 11; k--) w[nw++] = times[k];
        for (int a = 1; a < nw; a++)
            for (int c = a; c > 0 && w[c] < w[c - 1]; c--) {
                uint32_t t = w[c];
                w[c] = w[c - 1];
                w[c - 1] = t;
            }
        bk_chain_context ctx;
        bk_chain_context_standalone(&ctx, &b, BK_NET_REGTEST, h);
        ctx.mediantime = w[nw / 2];

        bk_block_undo undo;
        CHECK_EQ_INT(bk_block_undo_parse((const uint8_t *)u.p, u.len, &undo, &err), BK_OK);
        bk_block_stats st;
        CHECK_EQ_INT(bk_block_stats_compute(&sc, &b, &undo, &ctx, NULL, &st, &err), BK_OK);
        /* all at once: the file lists the keys sorted, as a full selection gives them */
        char *got = render(&st, all_mask());
        CHECK_EQ_STR(got, expect[want]);
        free(got);
        /* each stat alone, as the functional test asks for them */
        for (int k = 0; k < BK_STAT_COUNT; k++) {
            const char *name = bk_stat_name((bk_stat)k);
            size_t nl = strlen(name);
            uint32_t mask;
            CHECK_EQ_INT(bk_block_stats_select(&name, &nl, 1, &mask, &err), BK_OK);
            bk_block_stats_opts o;
            bk_block_stats_opts_init(&o);
            o.select = mask;
            bk_block_stats one;
            CHECK_EQ_INT(bk_block_stats_compute(&sc, &b, &undo, &ctx, &o, &one, &err), BK_OK);
            char *g = render(&one, mask);
            char *v = member_text(expect[want], name);
            char want_s[256];
            snprintf(want_s, sizeof want_s, "{\"%s\":%s}", name, v ? v : "?");
            CHECK_EQ_STR(g, want_s);
            free(g);
            free(v);
        }
        checked++;
        free(u.p);
    }
    CHECK_EQ_INT(checked, 3);
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
    free(set);
    for (int i = 0; i < nb; i++) free(raw[i]);
    for (int i = 0; i < ne; i++) free(expect[i]);
    free(doc);
}

/* ---- the regtest datadir ---- */

typedef struct regtest {
    bk_blocksdir dir;
    bk_chain chain;
    int ok;
} regtest;

static int regtest_open(regtest *r, const char *which)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/regtest/blocks", BK_REGTEST_DIR, which);
    bk_error err;
    r->ok = 0;
    if (bk_blocksdir_open(&r->dir, path, BK_NET_REGTEST, NULL, &err) != BK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(0);
        return 0;
    }
    /* Core's block index: every block's undo position as Core recorded it
     * (the header scan cannot pair same-shape siblings' records: 584) */
    char dd[4096];
    snprintf(dd, sizeof dd, "%s/%s", BK_REGTEST_DIR, which);
    if (bk_chain_build_index(&r->chain, dd, BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) {
        fprintf(stderr, "chain: %s\n", err.msg);
        CHECK(0);
        bk_blocksdir_close(&r->dir);
        return 0;
    }
    r->ok = 1;
    return 1;
}

static void regtest_close(regtest *r)
{
    if (!r->ok) return;
    bk_chain_free(&r->chain);
    bk_blocksdir_close(&r->dir);
}

/* The entry's block (and undo, when it has one) bytes, de-obfuscated, in
 * caller-freed buffers. */
static int read_entry(const regtest *r, const bk_chain_entry *e, uint8_t **blk, uint8_t **und)
{
    bk_blockfile f;
    bk_error err;
    const uint8_t *p;
    *und = NULL;
    *blk = malloc(e->size);
    if (bk_blocksdir_open_file(&r->dir, BK_FILE_BLK, e->file, &f, &err) != BK_OK) return 0;
    int ok = bk_blockfile_bytes(&f, e->offset, e->size, *blk, e->size, &p, &err) == BK_OK;
    if (ok && p != *blk) memcpy(*blk, p, e->size);
    bk_blockfile_close(&f);
    if (ok && e->has_undo) {
        *und = malloc(e->undo_size ? e->undo_size : 1);
        if (bk_blocksdir_open_file(&r->dir, BK_FILE_REV, e->undo_file, &f, &err) != BK_OK) return 0;
        size_t n = e->undo_size + BK_UNDO_CHECKSUM_SIZE;
        uint8_t *rec = malloc(n);
        ok = bk_blockfile_bytes(&f, e->undo_offset, n, rec, n, &p, &err) == BK_OK;
        /* found by position: its checksum, as Core's ReadBlockUndo checks it */
        if (ok) ok = bk_undo_checksum_verify(p, e->undo_size, e->prev_hash, p + e->undo_size, &err) == BK_OK;
        if (ok) memcpy(*und, p, e->undo_size);
        free(rec);
        bk_blockfile_close(&f);
    }
    return ok;
}

/* Stats of an entry as the RPC would answer: the result object, or the
 * error message (Core's -1 texts) in *err_msg. Returns the rendered text. */
static char *stats_of(const regtest *r, const bk_chain_entry *e, uint32_t sel, bk_block_stats_scratch *sc,
                      bk_block_decoder *dec, char *err_msg, size_t cap)
{
    err_msg[0] = 0;
    if (e->no_data) {
        snprintf(err_msg, cap, "Block not available (pruned data)");
        return NULL;
    }
    uint8_t *blk, *und;
    if (!read_entry(r, e, &blk, &und)) {
        snprintf(err_msg, cap, "cannot read block");
        free(blk);
        free(und);
        return NULL;
    }
    char *out = NULL;
    bk_block b;
    bk_error err;
    bk_chain_context ctx;
    bk_block_undo undo;
    if (bk_block_decode(dec, blk, e->size, &b, &err) != BK_OK) {
        snprintf(err_msg, cap, "decode: %s", err.msg);
    } else if (!e->has_undo && e->height != 0) {
        snprintf(err_msg, cap, "Undo data not available");
    } else if (bk_chain_context_fill(&r->chain, e, &ctx, &err) != BK_OK) {
        snprintf(err_msg, cap, "context: %s", err.msg);
    } else if (e->has_undo && bk_block_undo_parse(und, e->undo_size, &undo, &err) != BK_OK) {
        snprintf(err_msg, cap, "undo: %s", err.msg);
    } else {
        bk_block_stats_opts o;
        bk_block_stats_opts_init(&o);
        o.select = sel;
        o.hash = e->hash;
        bk_block_stats st, st1;
        bk_error err1;
        bk_error_clear(&err1);
        /* the staged path and the single pass give the same answer */
        bk_status s0 = bk_block_stats_compute(sc, &b, e->has_undo ? &undo : NULL, &ctx, &o, &st, &err);
        bk_status s1 = bk_block_stats_compute_undo(sc, &b, e->has_undo ? und : NULL, e->has_undo ? e->undo_size : 0,
                                                   NULL, &ctx, &o, &st1, &err1);
        CHECK_EQ_INT(s1, s0);
        if (s0 != BK_OK) {
            CHECK_EQ_STR(err1.msg, err.msg);
            snprintf(err_msg, cap, "%s", err.msg);
        } else {
            CHECK(memcmp(&st, &st1, sizeof st) == 0);
            out = render(&st1, sel);
        }
    }
    free(blk);
    free(und);
    return out;
}

/* Core's bytes in a line: after ,"core": (or ,"error":) up to the final }. */
static char *core_part(char *line, const char *tag)
{
    char pat[32];
    snprintf(pat, sizeof pat, ",\"%s\":", tag);
    char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    size_t n = strlen(p);
    if (n == 0 || p[n - 1] != '}') return NULL;
    p[n - 1] = 0;
    return p;
}

static int parse_hash_hex(const char *s, uint8_t out[32])
{
    size_t n;
    uint8_t *b = check_unhex(s, &n);
    if (!b || n != 32) {
        free(b);
        return 0;
    }
    for (int i = 0; i < 32; i++) out[i] = b[31 - i];
    free(b);
    return 1;
}

static void test_regtest_every_height(void)
{
    regtest r;
    if (!regtest_open(&r, "full")) return;
    size_t len;
    char *all = (char *)read_zst("regtest/getblockstats.ndjson.zst", &len);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    int lines = 0, same = 0, shown = 0;
    for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) {
        long long h = -1;
        sscanf(line, "{\"height\":%lld", &h);
        char *want = core_part(line, "core");
        CHECK(want != NULL);
        const bk_chain_entry *e = bk_chain_at_height(&r.chain, h);
        CHECK(e != NULL);
        if (!want || !e) continue;
        lines++;
        char em[BK_ERROR_MSG_MAX + 64];
        char *got = stats_of(&r, e, BK_STATS_ALL, &sc, &dec, em, sizeof em);
        if (got && !strcmp(got, want)) same++;
        else if (shown++ < 3)
            fprintf(stderr, "height %lld:\n  got:  %s\n  want: %s\n", h, got ? got : em, want);
        free(got);
    }
    CHECK_EQ_INT(lines, 940);
    CHECK_EQ_INT(same, lines);
    free(all);
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
    regtest_close(&r);
}

static void test_regtest_filtered(void)
{
    regtest r;
    if (!regtest_open(&r, "full")) return;
    size_t len;
    char *all = (char *)read_zst("regtest/getblockstats_filtered.ndjson.zst", &len);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    int lines = 0, same = 0, errors = 0;
    for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) {
        long long h = -1;
        sscanf(line, "{\"height\":%lld", &h);
        /* the stats list: quoted names between [ and ] */
        const char *names[40];
        size_t lens[40];
        size_t n = 0;
        char *lb = strchr(line, '['), *rb = lb ? strchr(lb, ']') : NULL;
        for (char *q = lb; q && q < rb && n < 40;) {
            char *s = strchr(q, '"');
            if (!s || s > rb) break;
            char *e2 = strchr(s + 1, '"');
            names[n] = s + 1;
            lens[n] = (size_t)(e2 - s - 1);
            n++;
            q = e2 + 1;
        }
        uint32_t mask = 0;
        bk_error err;
        bk_status sst = bk_block_stats_select(names, lens, n, &mask, &err);
        const bk_chain_entry *e = bk_chain_at_height(&r.chain, h);
        CHECK(e != NULL);
        if (!e) continue;
        lines++;
        char *want_err = core_part(line, "error");
        if (want_err) {
            char *msg = member_text(want_err, "message");
            char buf[300];
            snprintf(buf, sizeof buf, "\"%s\"", err.msg);
            CHECK_EQ_INT(sst, BK_ERR_NOT_FOUND);
            if (sst != BK_OK && msg && !strcmp(buf, msg)) errors++;
            free(msg);
            continue;
        }
        CHECK_EQ_INT(sst, BK_OK);
        char *want = core_part(line, "core");
        char em[BK_ERROR_MSG_MAX + 64];
        char *got = stats_of(&r, e, mask, &sc, &dec, em, sizeof em);
        if (got && want && !strcmp(got, want)) same++;
        else fprintf(stderr, "height %lld:\n  got:  %s\n  want: %s\n", h, got ? got : em, want ? want : "?");
        free(got);
    }
    CHECK_EQ_INT(lines, 135);
    CHECK_EQ_INT(errors, 27);
    CHECK_EQ_INT(same + errors, lines);
    free(all);
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
    regtest_close(&r);
}

static void test_regtest_offchain(void)
{
    regtest r;
    if (!regtest_open(&r, "full")) return;
    size_t len;
    char *all = (char *)read_zst("regtest/getblockstats_offchain.ndjson.zst", &len);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    int lines = 0, same = 0;
    for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) {
        char hex[65] = {0};
        sscanf(line, "{\"hash\":\"%64[0-9a-f]\"", hex);
        uint8_t hash[32];
        CHECK(parse_hash_hex(hex, hash));
        const bk_chain_entry *e = bk_chain_find(&r.chain, hash);
        CHECK(e != NULL);
        if (!e) continue;
        lines++;
        char *want_err = core_part(line, "error");
        char *want = want_err ? NULL : core_part(line, "core");
        char em[BK_ERROR_MSG_MAX + 64];
        char *got = stats_of(&r, e, BK_STATS_ALL, &sc, &dec, em, sizeof em);
        if (want_err) {
            char *msg = member_text(want_err, "message");
            char buf[BK_ERROR_MSG_MAX + 80];
            snprintf(buf, sizeof buf, "\"%s\"", em);
            if (!got && msg && !strcmp(msg, buf)) same++;
            else fprintf(stderr, "%s: got %s, want error %s\n", hex, got ? got : em, msg ? msg : "?");
            free(msg);
        } else if (got && want && !strcmp(got, want)) {
            same++;
        } else {
            fprintf(stderr, "%s:\n  got:  %s\n  want: %s\n", hex, got ? got : em, want ? want : "?");
        }
        free(got);
    }
    CHECK_EQ_INT(lines, 39);
    CHECK_EQ_INT(same, lines);
    free(all);
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
    regtest_close(&r);
}

/* The pruned copy through its own block index: kept blocks answer as on
 * the full node, pruned ones with Core's "Block not available (pruned
 * data)". */
static void test_regtest_pruned(void)
{
    regtest pr;
    if (!regtest_open(&pr, "pruned")) return;
    CHECK_EQ_INT(pr.chain.prune_height, 448);
    size_t len;
    char *all = (char *)read_zst("regtest/pruned/getblockstats.ndjson.zst", &len);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    int lines = 0, same = 0, pruned = 0;
    for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) {
        char hex[65] = {0};
        char *hp = strstr(line, "\"hash\":\"");
        if (hp) sscanf(hp, "\"hash\":\"%64[0-9a-f]\"", hex);
        uint8_t hash[32];
        CHECK(parse_hash_hex(hex, hash));
        const bk_chain_entry *e = bk_chain_find(&pr.chain, hash);
        CHECK(e != NULL);
        if (!e) continue;
        lines++;
        char *want_err = core_part(line, "error");
        char *want = want_err ? NULL : core_part(line, "core");
        char em[BK_ERROR_MSG_MAX + 64] = {0};
        char *got = stats_of(&pr, e, BK_STATS_ALL, &sc, &dec, em, sizeof em);
        if (want_err) {
            char *msg = member_text(want_err, "message");
            char buf[sizeof em + 3];
            snprintf(buf, sizeof buf, "\"%s\"", em);
            if (!got && msg && !strcmp(msg, buf)) {
                same++;
                if (e->no_data) pruned++;
            } else {
                fprintf(stderr, "%s: got %s, want error %s\n", hex, got ? got : em, msg ? msg : "?");
            }
            free(msg);
        } else if (got && want && !strcmp(got, want)) {
            same++;
        } else {
            fprintf(stderr, "%s:\n  got:  %s\n  want: %s\n", hex, got ? got : em, want ? want : "?");
        }
        free(got);
    }
    CHECK_EQ_INT(lines, 153 + 39);
    CHECK_EQ_INT(same, lines);
    CHECK(pruned > 40);
    free(all);
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
    regtest_close(&pr);
}

/* Core checks MoneyRange(txfee) only in the loop a selection needs: the
 * same-shape siblings at regtest height 584 (A stale, B active) with A's
 * undo record under B give B a negative fee. All stats (or any fee stat):
 * an error naming B; stats that need no fees: Core's answer for them. */
static void test_fee_check_follows_selection(void)
{
    regtest r;
    if (!regtest_open(&r, "full")) return;
    uint8_t ha[32], hb[32];
    CHECK(parse_hash_hex("0de8e776809390e04d8e21405300089c0491c5c32c06200c5b06c4a7b9a5c174", ha));
    CHECK(parse_hash_hex("1d252c79d4beea0a50271b5035fb45c27954f95ebe5238ed325157c71d6e23fc", hb));
    const bk_chain_entry *a = bk_chain_find(&r.chain, ha), *b = bk_chain_find(&r.chain, hb);
    CHECK(a && b && a->has_undo && b->has_undo && b->active && !a->active);
    if (!a || !b) {
        regtest_close(&r);
        return;
    }
    bk_chain_entry x = *b;
    x.undo_file = a->undo_file;
    x.undo_offset = a->undo_offset;
    x.undo_size = a->undo_size;
    CHECK_MEM(a->prev_hash, b->prev_hash, 32); /* same parent: A's record verifies for B too */
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    char em[BK_ERROR_MSG_MAX + 64];
    char *got = stats_of(&r, &x, BK_STATS_ALL, &sc, &dec, em, sizeof em);
    CHECK(got == NULL);
    CHECK(strstr(em, "1d252c79d4beea0a50271b5035fb45c27954f95ebe5238ed325157c71d6e23fc") != NULL);
    CHECK(strstr(em, "out of range") != NULL);
    free(got);
    uint32_t mask;
    bk_error err;
    CHECK_EQ_INT(bk_block_stats_select_list("totalfee", 8, &mask, &err), BK_OK);
    got = stats_of(&r, &x, mask, &sc, &dec, em, sizeof em);
    CHECK(got == NULL);
    free(got);
    /* no fee statistic selected: no check, and these values do not depend
     * on the spent coins (Core's getblockstats 584 line has them) */
    const char *l = "txs,height,outs,ins,total_out,total_size,swtxs,time,blockhash";
    CHECK_EQ_INT(bk_block_stats_select_list(l, strlen(l), &mask, &err), BK_OK);
    got = stats_of(&r, &x, mask, &sc, &dec, em, sizeof em);
    CHECK(got != NULL);
    if (got)
        CHECK_EQ_STR(got, "{\"blockhash\":\"1d252c79d4beea0a50271b5035fb45c27954f95ebe5238ed325157c71d6e23fc\","
                          "\"height\":584,\"ins\":1,\"outs\":2,\"swtxs\":0,\"time\":1796112252,\"total_out\":277790074,"
                          "\"total_size\":61,\"txs\":2}");
    free(got);
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
    regtest_close(&r);
}

/* ---- mainnet vectors ---- */

static void test_mainnet_fees(void)
{
    static const struct {
        const char *block, *undo;
        int64_t height, fee;
    } v[] = {
        {"blocks/block277647.raw", "undo/block277647_undo.raw", 277647, 4737355},
        {"blocks/block367891.raw", "undo/block367891_undo.raw", 367891, 14001930},
        {"blocks/block866342.raw", "undo/block866342_undo.raw", 866342, 5026183},
    };
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, &ca.base);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) bk_counting_allocator_reset(&ca);
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            size_t bl, ul;
            uint8_t *bb = check_read_file(v[i].block, &bl);
            uint8_t *ub = check_read_file(v[i].undo, &ul);
            bk_block b;
            bk_block_undo undo;
            bk_error err;
            CHECK_EQ_INT(bk_block_decode(&dec, bb, bl, &b, &err), BK_OK);
            CHECK_EQ_INT(bk_block_undo_parse(ub, ul, &undo, &err), BK_OK);
            bk_chain_context ctx;
            bk_chain_context_standalone(&ctx, &b, BK_NET_MAIN, v[i].height);
            bk_block_stats st;
            CHECK_EQ_INT(bk_block_stats_compute(&sc, &b, &undo, &ctx, NULL, &st, &err), BK_OK);
            CHECK_EQ_INT(st.totalfee, v[i].fee);
            CHECK_EQ_INT(st.totalfee, bk_block_fees(&b, &undo));
            CHECK_EQ_INT(st.txs, b.n_tx);
            CHECK_EQ_INT(st.subsidy, v[i].height < 420000 ? 2500000000 : 312500000);
            CHECK(st.feerate_percentiles[0] <= st.feerate_percentiles[4]);

            /* bad undo: the undo of another block names this block */
            size_t ol;
            uint8_t *ob = check_read_file(v[(i + 1) % 3].undo, &ol);
            bk_block_undo other;
            CHECK_EQ_INT(bk_block_undo_parse(ob, ol, &other, &err), BK_OK);
            bk_error_clear(&err);
            CHECK_EQ_INT(bk_block_stats_compute(&sc, &b, &other, &ctx, NULL, &st, &err), BK_ERR_MISMATCH);
            char hex[65];
            uint8_t h[32];
            bk_block_hash(&b, h);
            bk_hex_encode_rev(hex, h, 32);
            hex[64] = 0;
            CHECK(strstr(err.msg, hex) != NULL);
            CHECK(strstr(err.msg, "undo data does not match block") != NULL);
            free(ob);
            free(bb);
            free(ub);
        }
    }
    /* warm: the second pass allocated nothing */
    CHECK_EQ_INT(ca.allocs, 0);
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
    CHECK_EQ_INT(ca.live, 0);
}

/* bk_block_stats_compute_undo against the stages it stands for (each
 * tested against Core above): the same status, message, offset and result
 * for the mainnet undo data as it is, with a byte changed at many places
 * (to several values), cut short, one byte longer, another block's; and the
 * record checksum verified first, as Core's ReadBlockUndo does. */
static bk_status staged(bk_block_stats_scratch *sc, const bk_block *b, const uint8_t *u, size_t ul,
                        const uint8_t *ck, const bk_chain_context *ctx, bk_block_stats *st, bk_error *err)
{
    bk_status s;
    if (ck && (s = bk_undo_checksum_verify(u, ul, b->header.prev_hash, ck, err)) != BK_OK) return s;
    bk_block_undo undo;
    if ((s = bk_block_undo_parse(u, ul, &undo, err)) != BK_OK) return s;
    return bk_block_stats_compute(sc, b, &undo, ctx, NULL, st, err);
}

/* The rev*.dat checksum of undo bytes u for a block with parent prev:
 * SHA256d(prev || u), as Core's WriteBlockUndo computes it. */
static void undo_checksum(const uint8_t prev[32], const uint8_t *u, size_t ul, uint8_t out[32])
{
    bk_sha256_ctx c;
    bk_sha256_init(&c);
    bk_sha256_update(&c, prev, 32);
    bk_sha256_update(&c, u, ul);
    bk_sha256_final(&c, out);
    bk_sha256(out, out, 32);
}

static void same_as_staged(bk_block_stats_scratch *sc, const bk_block *b, const uint8_t *u, size_t ul,
                           const uint8_t *ck, const bk_chain_context *ctx, int want);

/* same_as_staged without a checksum, with the bytes' own checksum (the
 * single pass hashes as it walks: its walk's verdict must not change), and
 * with that checksum off by one bit (the checksum error first, wherever the
 * walk stops). */
static void same_as_staged_ck(bk_block_stats_scratch *sc, const bk_block *b, const uint8_t *u, size_t ul,
                              const bk_chain_context *ctx, int want)
{
    uint8_t ck[32];
    same_as_staged(sc, b, u, ul, NULL, ctx, want);
    undo_checksum(b->header.prev_hash, u, ul, ck);
    same_as_staged(sc, b, u, ul, ck, ctx, want);
    ck[7] ^= 0x10;
    same_as_staged(sc, b, u, ul, ck, ctx, BK_ERR_CHECKSUM);
}

/* want: the status the stages must give, or -1 for any. */
static void same_as_staged(bk_block_stats_scratch *sc, const bk_block *b, const uint8_t *u, size_t ul,
                           const uint8_t *ck, const bk_chain_context *ctx, int want)
{
    bk_block_stats s0, s1;
    bk_error e0, e1;
    bk_error_clear(&e0);
    bk_error_clear(&e1);
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    bk_status r0 = staged(sc, b, u, ul, ck, ctx, &s0, &e0);
    bk_status r1 = bk_block_stats_compute_undo(sc, b, u, ul, ck, ctx, NULL, &s1, &e1);
    CHECK_EQ_INT(r1, r0);
    if (want >= 0) CHECK_EQ_INT(r0, want);
    if (r0 == BK_OK) {
        CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
    } else {
        CHECK_EQ_STR(e1.msg, e0.msg);
        CHECK_EQ_INT(e1.offset, e0.offset);
    }
}

static void test_single_pass(void)
{
    static const struct {
        const char *block, *undo;
        int64_t height;
    } v[] = {
        {"blocks/block277647.raw", "undo/block277647_undo.raw", 277647},
        {"blocks/block367891.raw", "undo/block367891_undo.raw", 367891},
        {"blocks/block866342.raw", "undo/block866342_undo.raw", 866342},
    };
    bk_block_stats_scratch sc;
    bk_block_stats_scratch_init(&sc, NULL);
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, NULL);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t bl, ul, ol;
        uint8_t *bb = check_read_file(v[i].block, &bl);
        uint8_t *ub = check_read_file(v[i].undo, &ul);
        uint8_t *ob = check_read_file(v[(i + 1) % 3].undo, &ol);
        bk_block b;
        bk_error err;
        CHECK_EQ_INT(bk_block_decode(&dec, bb, bl, &b, &err), BK_OK);
        bk_chain_context ctx;
        bk_chain_context_standalone(&ctx, &b, BK_NET_MAIN, v[i].height);
        same_as_staged_ck(&sc, &b, ub, ul, &ctx, BK_OK);
        same_as_staged_ck(&sc, &b, ob, ol, &ctx, BK_ERR_MISMATCH);
        for (size_t cut = 1; cut < 64; cut += 7) same_as_staged_ck(&sc, &b, ub, ul - cut, &ctx, -1);
        uint8_t *big = malloc(ul + 1);
        memcpy(big, ub, ul);
        big[ul] = 0;
        same_as_staged_ck(&sc, &b, big, ul + 1, &ctx, BK_ERR_TRAILING);
        free(big);
        /* a byte changed at about 90 places, to five values each */
        static const uint8_t vals[4] = {0x00, 0x80, 0xfd, 0xff};
        size_t step = ul / 90 + 1;
        for (size_t at = 0; at < ul; at += step) {
            uint8_t keep = ub[at];
            for (int k = 0; k < 4; k++) {
                ub[at] = vals[k];
                same_as_staged_ck(&sc, &b, ub, ul, &ctx, -1);
            }
            ub[at] = (uint8_t)(keep + 1);
            same_as_staged_ck(&sc, &b, ub, ul, &ctx, -1);
            ub[at] = keep;
        }
        free(bb);
        free(ub);
        free(ob);
    }
    /* the rev*.dat record of 866342: its checksum first */
    {
        size_t bl, rl;
        uint8_t *bb = check_read_file("blocks/block866342.raw", &bl);
        uint8_t *rb = check_read_file("undo/rev_record_block866342.dat", &rl);
        bk_block b;
        bk_error err;
        CHECK_EQ_INT(bk_block_decode(&dec, bb, bl, &b, &err), BK_OK);
        bk_chain_context ctx;
        bk_chain_context_standalone(&ctx, &b, BK_NET_MAIN, 866342);
        size_t n = rl - 40;
        same_as_staged(&sc, &b, rb + 8, n, rb + 8 + n, &ctx, BK_OK);
        rb[8 + n + 5] ^= 1; /* in the checksum */
        same_as_staged(&sc, &b, rb + 8, n, rb + 8 + n, &ctx, BK_ERR_CHECKSUM);
        rb[8 + n + 5] ^= 1;
        rb[8 + n / 2] ^= 0x40; /* in the CBlockUndo: the checksum says so first */
        same_as_staged(&sc, &b, rb + 8, n, rb + 8 + n, &ctx, BK_ERR_CHECKSUM);
        free(bb);
        free(rb);
    }
    bk_block_stats_scratch_free(&sc);
    bk_block_decoder_free(&dec);
}

/* A CBlockUndo of one CTxUndo holding one compressed uncompressed-P2PK coin
 * (script size 4 or 5) with key x: bk_block_undo_parse (and the single
 * pass, against the stages) accepts it exactly when libsecp256k1 parses
 * 02 || x as a public key: random x (half of them on the curve), x around
 * and above the field size p, 0 and 1. */
static void test_undo_p2pk_key_check(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int accepted = 0, n = 0;
    for (int i = 0; i < 400; i++) {
        uint8_t x[32];
        for (int k = 0; k < 32; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            x[k] = (uint8_t)(seed >> 56);
        }
        if (i < 64) { /* p - 32 .. p + 31 */
            static const uint8_t p[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xfc, 0x2f};
            memcpy(x, p, 32);
            x[31] = (uint8_t)(0x2f - 32 + i);
        } else if (i == 64 || i == 65) {
            memset(x, 0, 32);
            x[31] = (uint8_t)(i - 64);
        } else if (i == 66) {
            memset(x, 0xff, 32);
        }
        uint8_t c[33];
        c[0] = 2;
        memcpy(c + 1, x, 32);
        secp256k1_pubkey pk;
        int want = secp256k1_ec_pubkey_parse(secp256k1_context_static, &pk, c, 33);
        for (int size = 4; size <= 5; size++) {
            /* 01 01, code 0xc8 (height 100, not coinbase) as VARINT 80 48,
             * nVersion dummy 00, amount 32, script size, the key */
            uint8_t u[7 + 32] = {0x01, 0x01, 0x80, 0x48, 0x00, 0x32, (uint8_t)size};
            memcpy(u + 7, x, 32);
            bk_block_undo undo;
            bk_error err;
            bk_status st = bk_block_undo_parse(u, sizeof u, &undo, &err);
            CHECK_EQ_INT(st == BK_OK, want);
            if (st != BK_OK) {
                CHECK_EQ_INT(st, BK_ERR_SCRIPT);
                CHECK_EQ_INT(err.offset, 7); /* the key's first byte */
            }
            accepted += st == BK_OK;
            n++;
        }
    }
    CHECK(accepted > n / 4 && accepted < 3 * n / 4);
}

/* ---- selection ---- */

static void test_select(void)
{
    uint32_t m = 123;
    bk_error err;
    CHECK_EQ_INT(bk_block_stats_select_list("", 0, &m, &err), BK_OK);
    CHECK_EQ_INT(m, BK_STATS_ALL);
    CHECK_EQ_INT(bk_block_stats_select_list("txs,height,txs", 14, &m, &err), BK_OK);
    CHECK_EQ_INT(m, (1u << BK_STAT_TXS) | (1u << BK_STAT_HEIGHT));
    /* Core walks its sorted set: the smallest unknown name is reported */
    const char *l = "zz,txs,nosuchstat,aa_unknown";
    CHECK_EQ_INT(bk_block_stats_select_list(l, strlen(l), &m, &err), BK_ERR_NOT_FOUND);
    CHECK_EQ_STR(err.msg, "Invalid selected statistic 'aa_unknown'");
    CHECK_EQ_INT(bk_block_stats_select_list("txs,", 4, &m, &err), BK_ERR_NOT_FOUND);
    CHECK_EQ_STR(err.msg, "Invalid selected statistic ''");
    /* "Txs" is not "txs" */
    CHECK_EQ_INT(bk_block_stats_select_list("Txs", 3, &m, &err), BK_ERR_NOT_FOUND);
    for (int k = 0; k < BK_STAT_COUNT; k++) CHECK(bk_stat_name((bk_stat)k) != NULL);
    /* the field table: same names and order; each int64 field read through
     * its offset renders as the JSON does */
    const bk_stat_field *f = bk_stat_fields();
    bk_block_stats st;
    memset(&st, 0, sizeof st);
    for (int k = 0; k < BK_STAT_COUNT; k++) {
        CHECK_EQ_STR(f[k].name, bk_stat_name((bk_stat)k));
        if (f[k].kind == BK_STAT_KIND_INT64) {
            int64_t v = 1000 + k;
            memcpy((char *)&st + f[k].offset, &v, sizeof v);
        }
    }
    CHECK_EQ_INT(f[BK_STAT_BLOCKHASH].kind, BK_STAT_KIND_HASH);
    CHECK_EQ_INT(f[BK_STAT_FEERATE_PERCENTILES].kind, BK_STAT_KIND_PERCENTILES);
    for (int k = 0; k < BK_STAT_COUNT; k++) {
        if (f[k].kind != BK_STAT_KIND_INT64) continue;
        uint32_t one = 1u << k;
        char *js = render(&st, one);
        char want[96];
        snprintf(want, sizeof want, "{\"%s\":%d}", f[k].name, 1000 + k);
        CHECK_EQ_STR(js, want);
        free(js);
    }
    CHECK(bk_stat_name(BK_STAT_COUNT) == NULL);
    CHECK_EQ_INT(bk_block_subsidy(BK_NET_MAIN, 0), 5000000000);
    CHECK_EQ_INT(bk_block_subsidy(BK_NET_MAIN, 210000), 2500000000);
    CHECK_EQ_INT(bk_block_subsidy(BK_NET_REGTEST, 150), 2500000000);
    CHECK_EQ_INT(bk_block_subsidy(BK_NET_MAIN, 210000LL * 64), 0);
    CHECK_EQ_INT(bk_block_subsidy(BK_NET_MAIN, 210000LL * 33), 0);
}

int main(void)
{
    RUN(test_select);
    RUN(test_core_functional_data);
    RUN(test_mainnet_fees);
    RUN(test_single_pass);
    RUN(test_undo_p2pk_key_check);
    RUN(test_regtest_every_height);
    RUN(test_regtest_filtered);
    RUN(test_regtest_offchain);
    RUN(test_regtest_pruned);
    RUN(test_fee_check_follows_selection);
    return check_finish();
}
