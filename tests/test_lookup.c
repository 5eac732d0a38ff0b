/* Lookups without a node (blockkit/lookup.h, `blockkit block|header|tx
 * --datadir`, `chain --tips`) against the real bitcoind regtest datadir and
 * its pruned copy (tests/data/regtest, unpacked read-only into
 * BK_REGTEST_DIR by the `regtest` fixture), compared byte for byte with
 * Core's own answers stored beside them:
 *   getchaintips.json; getblockheader for all 979 blocks (active and
 *   off-chain) at verbose true, and the 80-byte hex at verbose false;
 *   getrawtransaction verbosity 1 for all 5209 active-chain txids and the 86
 *   found only in off-chain blocks (stale ones: confirmations 0; never
 *   connected ones and the genesis coinbase: Core's error); verbosity 0 (the
 *   "hex" of Core's answer) and verbosity 2 (Core's getblock verbosity 3
 *   object of the tx, which has fee and prevout, followed by the same block
 *   fields); getblock for a sample of heights at verbosity 1 and 3, every
 *   off-chain block at 3, and on the pruned copy every vector at 0..3 plus
 *   its getblockheader answers; the kept blocks' v0/v2 answers of the
 *   pruned copy also on the full node. The CLI: a few lookups, Core's
 *   refusal texts and exit codes. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/lookup.h>
#include <blockkit/hex.h>
#include <blockkit/txindex.h>

#include "check.h"
#include "json_test_util.h"

#define FULL BK_REGTEST_DIR "/full"
#define PRUNED BK_REGTEST_DIR "/pruned"

typedef struct lines {
    char *buf;
    char **l;
    size_t n;
} lines;

static void load_lines(const char *name, lines *out)
{
    size_t len;
    out->buf = (char *)read_zst(name, &len);
    size_t cap = 1024;
    out->l = malloc(cap * sizeof *out->l);
    out->n = 0;
    for (char *p = out->buf; *p;) {
        char *e = strchr(p, '\n');
        if (e) *e = 0;
        if (out->n == cap) out->l = realloc(out->l, (cap *= 2) * sizeof *out->l);
        if (*p) out->l[out->n++] = p;
        if (!e) break;
        p = e + 1;
    }
}

static void lines_free(lines *ls)
{
    free(ls->buf);
    free(ls->l);
}

/* Core's bytes in one of our wrapper lines: after `,"core":` (or
 * `,"error":`) to the final `}`; *is_error says which. NULL if neither. */
static char *core_part(const char *line, int *is_error, char *buf, size_t cap)
{
    const char *p = strstr(line, ",\"core\":");
    size_t skip = 8;
    *is_error = 0;
    if (!p) {
        p = strstr(line, ",\"error\":");
        skip = 9;
        *is_error = 1;
    }
    if (!p) return NULL;
    p += skip;
    size_t n = strlen(p);
    if (!n || p[n - 1] != '}' || n > cap) return NULL;
    memcpy(buf, p, n - 1);
    buf[n - 1] = 0;
    return buf;
}

/* A string member "key":"value" of a line. */
static int member(const char *line, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(line, pat);
    if (!p) return 0;
    p += strlen(pat);
    const char *e = strchr(p, '"');
    if (!e || (size_t)(e - p) >= cap) return 0;
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = 0;
    return 1;
}

static int unhex_rev(const char *s, uint8_t out[32])
{
    if (strlen(s) != 64) return 0;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return 0;
        out[31 - i] = (uint8_t)v;
    }
    return 1;
}

/* Core's error object {"code":C,"message":"M"}: C and M. */
static int parse_error(const char *e, int *code, char *msg, size_t cap)
{
    if (sscanf(e, "{\"code\":%d,", code) != 1) return 0;
    return member(e, "message", msg, cap);
}

static bk_lookup *open_lookup(const char *dir)
{
    bk_lookup *l = NULL;
    bk_error err;
    bk_status st = bk_lookup_open(dir, NULL, BK_NET_REGTEST, NULL, NULL, &l, &err);
    if (st != BK_OK) {
        fprintf(stderr, "bk_lookup_open %s: %s\n", dir, err.msg);
        exit(2);
    }
    return l;
}

static char big[8 << 20]; /* Core's answer being compared */

/* Compare what fn rendered into w with Core's answer (or error). */
static int same(const bk_writer *w, const char *want)
{
    return w->len == strlen(want) && memcmp(w->data, want, w->len) == 0;
}

static void report(const char *what, const char *id, const bk_writer *w, const char *want)
{
    size_t i = 0;
    while (i < w->len && want[i] && w->data[i] == (uint8_t)want[i]) i++;
    fprintf(stderr, "%s %s differs at byte %zu:\n  got:  %.160s\n  want: %.160s\n", what, id, i,
            (const char *)w->data + (i > 40 ? i - 40 : 0), want + (i > 40 ? i - 40 : 0));
}

/* ---- getchaintips ---- */

static void test_chaintips(void)
{
    bk_lookup *l = open_lookup(FULL);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_error err;
    CHECK(bk_lookup_chain_tips(l, &j, &err) == BK_OK);
    bk_writer_putc(&w, '\n');
    size_t len;
    uint8_t *want = check_read_file("regtest/getchaintips.json", &len);
    CHECK(w.len == len && memcmp(w.data, want, len) == 0);
    /* The tips' statuses: every kind in this chain is there. */
    const bk_chain *c = bk_lookup_chain(l);
    bk_chaintip *tips;
    size_t n;
    CHECK(bk_chain_tips(c, NULL, &tips, &n, &err) == BK_OK);
    CHECK_EQ_INT(n, 19);
    int kinds[6] = {0};
    for (size_t i = 0; i < n; i++) kinds[tips[i].status]++;
    CHECK_EQ_INT(kinds[BK_TIP_ACTIVE], 1);
    CHECK_EQ_INT(kinds[BK_TIP_VALID_FORK], 13);
    CHECK_EQ_INT(kinds[BK_TIP_VALID_HEADERS], 3);
    CHECK_EQ_INT(kinds[BK_TIP_INVALID], 2);
    bk_free(bk_default_allocator(), tips, n * sizeof *tips);
    free(want);
    bk_writer_free(&w);
    bk_lookup_close(l);
}

/* ---- getblockheader ---- */

static void check_headers(bk_lookup *l, const char *file, size_t want_n)
{
    lines ls;
    load_lines(file, &ls);
    CHECK_EQ_INT(ls.n, want_n);
    bk_writer w;
    bk_writer_init(&w, NULL);
    size_t bad = 0;
    for (size_t i = 0; i < ls.n; i++) {
        char hash[80];
        int is_err;
        CHECK(member(ls.l[i], "hash", hash, sizeof hash));
        const char *want = core_part(ls.l[i], &is_err, big, sizeof big);
        CHECK(want && !is_err);
        if (!want) continue;
        const bk_chain_entry *e;
        bk_error err;
        CHECK(bk_lookup_resolve(l, hash, "hash", &e, &err) == BK_OK);
        bk_block_json_opts o;
        bk_block_json_opts_init(&o);
        o.core_version = 28;
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, 0);
        CHECK(bk_lookup_block_header(l, e, 1, &o, &j, &err) == BK_OK);
        if (!same(&w, want)) {
            if (bad++ < 3) report("getblockheader", hash, &w, want);
        }
        /* verbose=false: the header's 80 bytes, which hash to the block. */
        bk_writer_reset(&w);
        bk_json_init(&j, &w, 0);
        CHECK(bk_lookup_block_header(l, e, 0, &o, &j, &err) == BK_OK);
        uint8_t hdr[80], h[32], want_h[32];
        CHECK(w.len == 162 && w.data[0] == '"');
        for (int k = 0; k < 80 && w.len == 162; k++) {
            unsigned v;
            sscanf((const char *)w.data + 1 + 2 * k, "%2x", &v);
            hdr[k] = (uint8_t)v;
        }
        bk_header_hash(hdr, h);
        CHECK(unhex_rev(hash, want_h) && memcmp(h, want_h, 32) == 0);
    }
    CHECK_EQ_INT(bad, 0);
    bk_writer_free(&w);
    lines_free(&ls);
}

static void test_headers(void)
{
    bk_lookup *l = open_lookup(FULL);
    check_headers(l, "regtest/getblockheader.ndjson.zst", 979);
    check_headers(l, "regtest/stale_headers.ndjson.zst", 39);
    bk_lookup_close(l);
    /* The pruned copy answers for every block, pruned or not. */
    l = open_lookup(PRUNED);
    check_headers(l, "regtest/pruned/getblockheader.ndjson.zst", 192);
    bk_lookup_close(l);
}

/* ---- getrawtransaction ---- */

/* Core's getblock verbosity 3 tx objects by txid (for verbosity 2). */
typedef struct txobj {
    char txid[65];
    const char *obj; /* into the v3 lines' buffer */
    size_t len;
} txobj;

static int cmp_txobj(const void *a, const void *b)
{
    return strcmp(((const txobj *)a)->txid, ((const txobj *)b)->txid);
}

/* Split Core's getblock verbosity 3 line into its tx objects. */
static void collect_txs(const char *line, txobj **v, size_t *n, size_t *cap)
{
    const char *p = strstr(line, ",\"tx\":[");
    if (!p) return;
    p += 7;
    while (*p == '{') {
        /* The object ends where its braces balance (strings hold no braces
         * unescaped: hex, asm and addresses only). */
        int depth = 0;
        const char *q = p;
        int in_str = 0;
        for (; *q; q++) {
            if (in_str) {
                if (*q == '\\') q++;
                else if (*q == '"') in_str = 0;
                continue;
            }
            if (*q == '"') in_str = 1;
            else if (*q == '{') depth++;
            else if (*q == '}' && --depth == 0) break;
        }
        if (!*q) return;
        if (*n == *cap) *v = realloc(*v, (*cap = *cap ? 2 * *cap : 8192) * sizeof **v);
        txobj *t = &(*v)[(*n)++];
        memcpy(t->txid, p + 9, 64); /* {"txid":"<64>" */
        t->txid[64] = 0;
        t->obj = p;
        t->len = (size_t)(q - p + 1);
        p = q + 1;
        if (*p == ',') p++;
    }
}

/* getrawtransaction <txid> 1 <blockhash>: Core's answer without the block
 * hash argument with "in_active_chain" first (true on the active chain,
 * where confirmations > 0). l may be a pruned node (no txindex): blocks it
 * pruned are "Block not available". Returns 1 when checked. */
static int check_tx_in_block(bk_lookup *l, const uint8_t txid[32], const char *want, size_t *bad)
{
    static char want_in[8 << 20];
    char bh[80];
    uint8_t h[32];
    const char *tail = strstr(want, ",\"blockhash\":\"");
    if (!tail || !member(tail + 1, "blockhash", bh, sizeof bh) || !unhex_rev(bh, h)) return 0;
    const bk_chain_entry *e = bk_chain_find(bk_lookup_chain(l), h);
    CHECK(e != NULL);
    if (!e) return 0;
    int active = strstr(tail, "\"confirmations\":0}") == NULL;
    snprintf(want_in, sizeof want_in, "{\"in_active_chain\":%s,%s", active ? "true" : "false", want + 1);
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_error err;
    bk_status st = bk_lookup_transaction_in(l, txid, e, 1, NULL, &j, &err);
    if (e->no_data) {
        CHECK(st != BK_OK);
        CHECK_EQ_INT(bk_lookup_rpc_code(l), -1);
        CHECK_EQ_STR(err.msg, "Block not available");
    } else {
        CHECK(st == BK_OK);
        if (st == BK_OK && !same(&w, want_in) && (*bad)++ < 3) report("getrawtransaction with blockhash", bh, &w, want_in);
    }
    bk_writer_free(&w);
    return 1;
}

static void check_txs(bk_lookup *l, const char *file, size_t want_n, const txobj *v3, size_t n_v3, int *n_conf0)
{
    lines ls;
    load_lines(file, &ls);
    CHECK_EQ_INT(ls.n, want_n);
    bk_writer w;
    bk_writer_init(&w, NULL);
    size_t bad = 0, n_err = 0, n_v2 = 0;
    static char want2[8 << 20];
    for (size_t i = 0; i < ls.n; i++) {
        char txid_hex[80];
        int is_err;
        CHECK(member(ls.l[i], "txid", txid_hex, sizeof txid_hex));
        const char *want = core_part(ls.l[i], &is_err, big, sizeof big);
        CHECK(want != NULL);
        if (!want) continue;
        uint8_t txid[32];
        CHECK(unhex_rev(txid_hex, txid));
        bk_error err;
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, 0);
        bk_status st = bk_lookup_transaction(l, txid, 1, NULL, &j, &err);
        if (is_err) {
            int code;
            char msg[300];
            n_err++;
            CHECK(parse_error(want, &code, msg, sizeof msg));
            CHECK(st != BK_OK);
            CHECK_EQ_INT(bk_lookup_rpc_code(l), code);
            CHECK_EQ_STR(err.msg, msg);
            continue;
        }
        CHECK(st == BK_OK);
        if (!same(&w, want)) {
            if (bad++ < 3) report("getrawtransaction", txid_hex, &w, want);
            continue;
        }
        if (strstr(want, "\"confirmations\":0}")) (*n_conf0)++;
        if (i % 5 == 0) CHECK(check_tx_in_block(l, txid, want, &bad));
        /* Verbosity 0: Core's "hex" as a JSON string. */
        const char *tail = strstr(want, "\",\"blockhash\":");
        const char *hx = NULL;
        for (const char *q = want; tail && (q = strstr(q, ",\"hex\":\"")) && q < tail; q++) hx = q;
        CHECK(hx != NULL);
        if (hx) {
            const char *he = tail;
            bk_writer_reset(&w);
            bk_json_init(&j, &w, 0);
            CHECK(bk_lookup_transaction(l, txid, 0, NULL, &j, &err) == BK_OK);
            CHECK(w.len == (size_t)(he - hx - 6) && memcmp(w.data, hx + 7, w.len) == 0);
        }
        /* Verbosity 2: the tx object of Core's getblock verbosity 3 (fee,
         * prevout) followed by Core's blockhash/confirmations/time fields. */
        txobj key, *t;
        memcpy(key.txid, txid_hex, 64);
        key.txid[64] = 0;
        t = bsearch(&key, v3, n_v3, sizeof *v3, cmp_txobj);
        tail = strstr(want, ",\"blockhash\":");
        if (t && tail && t->len + strlen(tail) < sizeof want2) {
            memcpy(want2, t->obj, t->len - 1);
            strcpy(want2 + t->len - 1, tail);
            bk_writer_reset(&w);
            bk_json_init(&j, &w, 0);
            CHECK(bk_lookup_transaction(l, txid, 2, NULL, &j, &err) == BK_OK);
            if (!same(&w, want2)) {
                if (bad++ < 3) report("getrawtransaction verbosity 2", txid_hex, &w, want2);
            }
            n_v2++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    if (want_n > 1000) {
        CHECK_EQ_INT(n_err, 1);          /* the genesis coinbase */
        CHECK(n_v2 + 1 == ls.n);         /* every other tx checked at verbosity 2 too */
        if (n_v2 + 1 != ls.n) fprintf(stderr, "verbosity 2 checked for %zu of %zu\n", n_v2, ls.n);
    } else {
        CHECK_EQ_INT(n_err, 9);          /* txs of never-connected blocks */
    }
    bk_writer_free(&w);
    lines_free(&ls);
}

static void test_transactions(void)
{
    lines v3, stale;
    load_lines("regtest/core_getblock_v3.ndjson.zst", &v3);
    load_lines("regtest/stale_v3.ndjson.zst", &stale);
    txobj *objs = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < v3.n; i++) collect_txs(v3.l[i], &objs, &n, &cap);
    size_t n_active = n;
    CHECK_EQ_INT(n_active, 5209);
    for (size_t i = 0; i < stale.n; i++) collect_txs(stale.l[i], &objs, &n, &cap);
    /* Stale blocks' txs that are also on the active chain keep the active
     * block's object (the txindex points there: the later connection). */
    qsort(objs, n_active, sizeof *objs, cmp_txobj);
    size_t m = n_active;
    for (size_t i = n_active; i < n; i++)
        if (!bsearch(&objs[i], objs, n_active, sizeof *objs, cmp_txobj)) objs[m++] = objs[i];
    qsort(objs, m, sizeof *objs, cmp_txobj);

    bk_lookup *l = open_lookup(FULL);
    int conf0 = 0;
    check_txs(l, "regtest/getrawtransaction_v1.ndjson.zst", 5209, objs, m, &conf0);
    CHECK_EQ_INT(conf0, 0);
    check_txs(l, "regtest/getrawtransaction_v1_offchain.ndjson.zst", 86, objs, m, &conf0);
    CHECK_EQ_INT(conf0, 77); /* stale-block txs: confirmations 0 */
    bk_lookup_close(l);
    free(objs);
    lines_free(&v3);
    lines_free(&stale);

    /* A pruned node has no usable txindex (Core refuses -txindex with
     * -prune): Core's answer without a txindex. */
    l = open_lookup(PRUNED);
    uint8_t txid[32];
    CHECK(unhex_rev("c7c839569487ff6365b6451c772ce6c2ef8df8f691630f9924193b8e076ee444", txid));
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_error err;
    CHECK(bk_lookup_transaction(l, txid, 1, NULL, &j, &err) != BK_OK);
    CHECK_EQ_INT(bk_lookup_rpc_code(l), -5);
    CHECK_EQ_STR(err.msg, "No such mempool transaction. Use -txindex or provide a block hash to enable blockchain "
                          "transaction queries. Use gettransaction for wallet transactions.");
    /* With the block hash the pruned node answers for the blocks it kept
     * (as Core: no txindex needed) and refuses the pruned ones. */
    {
        lines ls;
        load_lines("regtest/getrawtransaction_v1.ndjson.zst", &ls);
        size_t bad = 0, n_in = 0;
        for (size_t i = 0; i < ls.n; i += 7) {
            char txid_hex[80];
            int is_err;
            uint8_t id[32];
            const char *want = core_part(ls.l[i], &is_err, big, sizeof big);
            if (!want || is_err || !member(ls.l[i], "txid", txid_hex, sizeof txid_hex) || !unhex_rev(txid_hex, id))
                continue;
            n_in += (size_t)check_tx_in_block(l, id, want, &bad);
        }
        CHECK(n_in > 700);
        CHECK_EQ_INT(bad, 0);
        lines_free(&ls);
        /* A tx looked for in another block. */
        const bk_chain_entry *tip = bk_chain_tip(bk_lookup_chain(l));
        bk_writer_reset(&w);
        bk_json_init(&j, &w, 0);
        CHECK(bk_lookup_transaction_in(l, txid, tip, 1, NULL, &j, &err) != BK_OK);
        CHECK_EQ_STR(err.msg, "No such transaction found in the provided block. Use gettransaction for wallet transactions.");
    }
    bk_writer_free(&w);
    bk_lookup_close(l);
}

/* ---- getblock ---- */

static void check_block(bk_lookup *l, const char *arg, int verbosity, const char *want, int want_code, size_t *bad)
{
    const bk_chain_entry *e;
    bk_error err;
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_status st = bk_lookup_resolve(l, arg, "blockhash", &e, &err);
    CHECK(st == BK_OK);
    if (st == BK_OK) {
        bk_block_json_opts o;
        bk_block_json_opts_init(&o);
        o.core_version = 28;
        o.verbosity = verbosity;
        bk_json j;
        bk_json_init(&j, &w, 0);
        st = bk_lookup_block(l, e, &o, &j, &err);
        if (want_code) {
            int code;
            char msg[300];
            CHECK(parse_error(want, &code, msg, sizeof msg));
            CHECK(st != BK_OK && bk_lookup_rpc_code(l) == code);
            CHECK_EQ_STR(err.msg, msg);
        } else {
            CHECK(st == BK_OK);
            if (st != BK_OK) fprintf(stderr, "getblock %s %d: %s\n", arg, verbosity, err.msg);
            else if (!same(&w, want) && (*bad)++ < 3) report("getblock", arg, &w, want);
        }
    }
    bk_writer_free(&w);
}

static void test_blocks(void)
{
    bk_lookup *l = open_lookup(FULL);
    size_t bad = 0;
    for (int v = 1; v <= 3; v += 2) {
        lines ls;
        load_lines(v == 1 ? "regtest/core_getblock_v1.ndjson.zst" : "regtest/core_getblock_v3.ndjson.zst", &ls);
        CHECK_EQ_INT(ls.n, 940);
        /* Every 10th height by height, every 10th + 5 by hash, and the
         * tricky ones: the same-shape siblings' successors 584/585, the
         * largest blocks' neighbourhood, the tip. */
        for (size_t h = 0; h < ls.n; h++) {
            int pick = h % 10 == 0 || h == 584 || h == 585 || h == 937 || h == 938 || h == 939;
            int by_hash = h % 10 == 5;
            if (!pick && !by_hash) continue;
            char arg[80];
            if (pick) snprintf(arg, sizeof arg, "%zu", h);
            else CHECK(member(ls.l[h], "hash", arg, sizeof arg));
            check_block(l, arg, v, ls.l[h], 0, &bad);
        }
        lines_free(&ls);
    }
    /* Every off-chain block at verbosity 3: valid-fork blocks with their
     * undo (the same-shape sibling at 584 included), never-connected and
     * invalid ones without fee and prevout. */
    lines st;
    load_lines("regtest/stale_v3.ndjson.zst", &st);
    CHECK_EQ_INT(st.n, 39);
    for (size_t i = 0; i < st.n; i++) {
        char hash[80];
        int is_err;
        CHECK(member(st.l[i], "hash", hash, sizeof hash));
        const char *want = core_part(st.l[i], &is_err, big, sizeof big);
        CHECK(want && !is_err);
        if (want) check_block(l, hash, 3, want, 0, &bad);
    }
    lines_free(&st);

    /* The pruned copy's answers at verbosity 0..3 on the pruned copy, and
     * its kept blocks' answers on the full node (Core: byte-identical). */
    bk_lookup *p = open_lookup(PRUNED);
    size_t n_pruned = 0, n_kept = 0;
    for (int v = 0; v <= 3; v++) {
        char name[80];
        snprintf(name, sizeof name, "regtest/pruned/getblock_v%d.ndjson.zst", v);
        lines ls;
        load_lines(name, &ls);
        CHECK_EQ_INT(ls.n, 192);
        for (size_t i = 0; i < ls.n; i++) {
            char hash[80];
            int is_err;
            CHECK(member(ls.l[i], "hash", hash, sizeof hash));
            const char *want = core_part(ls.l[i], &is_err, big, sizeof big);
            CHECK(want != NULL);
            if (!want) continue;
            check_block(p, hash, v, want, is_err ? 1 : 0, &bad);
            if (is_err) {
                n_pruned++;
            } else {
                n_kept++;
                if (v == 0 || v == 2) check_block(l, hash, v, want, 0, &bad);
            }
        }
        lines_free(&ls);
    }
    CHECK(n_pruned > 0 && n_kept > 0);
    CHECK_EQ_INT(bad, 0);

    /* Core's refusals for names that do not resolve. */
    const bk_chain_entry *e;
    bk_error err;
    CHECK(bk_lookup_resolve(l, "940", "blockhash", &e, &err) != BK_OK);
    CHECK_EQ_INT(bk_lookup_rpc_code(l), -8);
    CHECK_EQ_STR(err.msg, "Block height out of range");
    CHECK(bk_lookup_resolve(l, "-1", "blockhash", &e, &err) != BK_OK);
    CHECK_EQ_STR(err.msg, "Block height out of range");
    CHECK(bk_lookup_resolve(l, "00000000000000000000000000000000000000000000000000000000000000aa", "blockhash", &e,
                            &err) != BK_OK);
    CHECK_EQ_INT(bk_lookup_rpc_code(l), -5);
    CHECK_EQ_STR(err.msg, "Block not found");
    CHECK(bk_lookup_resolve(l, "abcd", "blockhash", &e, &err) != BK_OK);
    CHECK_EQ_STR(err.msg, "blockhash must be of length 64 (not 4, for 'abcd')");
    /* Core's ParseHashV checks the length first. */
    CHECK(bk_lookup_resolve(l, "xyz", "hash", &e, &err) != BK_OK);
    CHECK_EQ_STR(err.msg, "hash must be of length 64 (not 3, for 'xyz')");
    CHECK(bk_lookup_resolve(l, "x000000000000000000000000000000000000000000000000000000000000000", "hash", &e, &err) !=
          BK_OK);
    CHECK_EQ_STR(err.msg, "hash must be hexadecimal string (not 'x000000000000000000000000000000000000000000000000000000000000000')");
    bk_lookup_close(p);
    bk_lookup_close(l);
}

/* ---- the CLI ---- */

static char *cli(const char *args, int *status)
{
    char cmd[8192];
    size_t len;
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", BK_CLI_PATH, args);
    return run_cmd(cmd, &len, status);
}

static void test_cli(void)
{
    int st;
    char *out = cli("chain --tips --datadir '" FULL "'", &st);
    size_t len;
    uint8_t *want = check_read_file("regtest/getchaintips.json", &len);
    CHECK_EQ_INT(st, 0);
    CHECK(strlen(out) == len && memcmp(out, want, len) == 0);
    free(out);
    free(want);
    /* The network is found from the datadir's layout (regtest/). */
    out = cli("header --datadir '" FULL "' --core-compat 28 584", &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(out, "{\"hash\":\"1d252c79d4beea0a50271b5035fb45c27954f95ebe5238ed325157c71d6e23fc\","
                      "\"confirmations\":356,\"height\":584,") == out);
    free(out);
    out = cli("header --datadir '" FULL "' --chain regtest --verbose false 0", &st);
    CHECK_EQ_INT(st, 0);
    CHECK_EQ_STR(out, "\"0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c"
                      "3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4adae5494dffff7f2002000000\"\n");
    free(out);
    out = cli("block --datadir '" FULL "' --verbosity 0 --pretty 0", &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strncmp(out, "0100000000000000", 16) == 0 && out[strlen(out) - 2] != '"');
    free(out);
    out = cli("block --datadir '" PRUNED "' 10", &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Block not available (pruned data)") != NULL);
    free(out);
    out = cli("block --datadir '" FULL "' 940", &st);
    CHECK_EQ_INT(st, 64);
    CHECK(strstr(out, "Block height out of range") != NULL);
    free(out);
    /* a negative height is Core's error; a single-dash option is refused
     * before anything is printed (it was taken for a block hash after the
     * blocks before it had been printed) */
    out = cli("block --datadir '" FULL "' -- -5", &st);
    CHECK_EQ_INT(st, 64);
    CHECK(strstr(out, "Block height out of range") != NULL);
    free(out);
    out = cli("block --datadir '" FULL "' 5 -o /tmp", &st);
    CHECK_EQ_INT(st, 64);
    CHECK_EQ_STR(out, "blockkit: block: -o/--output is for a block FILE, not --datadir lookups\n");
    free(out);
    out = cli("tx --datadir '" FULL "' 4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b", &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved") !=
          NULL);
    free(out);
    out = cli("tx --datadir '" PRUNED "' c7c839569487ff6365b6451c772ce6c2ef8df8f691630f9924193b8e076ee444", &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Use -txindex") != NULL);
    free(out);
    /* With --blockhash a pruned node answers for a kept block (the tx at
     * 3000 of Core's list is in block 79fc51dc..., height >= 448). */
    out = cli("tx --datadir '" PRUNED "' 79fc51dc18923ae6c2ffc5a5950ab9ef2b5f6908e8a52c0ff85a12ea50aa5293 --blockhash "
              "0000000000000000000000000000000000000000000000000000000000000000",
              &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Block hash not found") != NULL);
    free(out);
    out = cli("tx --datadir '" PRUNED "' c7c839569487ff6365b6451c772ce6c2ef8df8f691630f9924193b8e076ee444 --blockhash "
              "4a0e997b1b6e0cf80043064c09b82ad935e5230b2e7c99bf50a56f060bd9e77e",
              &st);
    CHECK_EQ_INT(st, 66);
    CHECK(strstr(out, "Block not available (error code -1)") != NULL);
    free(out);
    /* Two txids, one answer per line. */
    out = cli("tx --datadir '" FULL "' --verbosity 0 c7c839569487ff6365b6451c772ce6c2ef8df8f691630f9924193b8e076ee444 "
              "c7c839569487ff6365b6451c772ce6c2ef8df8f691630f9924193b8e076ee444",
              &st);
    CHECK_EQ_INT(st, 0);
    char *nl = strchr(out, '\n');
    CHECK(nl && out[0] == '"' && strlen(nl + 1) == (size_t)(nl - out + 1) && memcmp(nl + 1, out, (size_t)(nl - out + 1)) == 0);
    free(out);
    out = cli("header --datadir /nonexistent/dir 0", &st);
    CHECK_EQ_INT(st, 66);
    free(out);
    out = cli("header 0", &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    static const char *const helps[] = {"header --help", "block --datadir . --help", "tx --datadir . --help",
                                        "chain --tips --help"};
    for (size_t i = 0; i < 4; i++) {
        out = cli(helps[i], &st);
        CHECK_EQ_INT(st, 0);
        CHECK(strstr(out, "--datadir DIR") != NULL);
        free(out);
    }
}

/* The txindex alone: the block it is synced to is Core's best block (the
 * node stopped at its tip); a txid it never saw is not found. */
static void test_txindex(void)
{
    size_t len;
    char *info = (char *)check_read_file("regtest/getblockchaininfo.json", &len);
    const char *b = info ? strstr(info, "\"bestblockhash\":\"") : NULL;
    CHECK(b != NULL);
    bk_txindex *ti;
    bk_error err;
    bk_status st = bk_txindex_open(FULL "/regtest/indexes/txindex", NULL, &ti, &err);
    if (st != BK_OK) fprintf(stderr, "txindex: %s\n", err.msg);
    CHECK_EQ_INT(st, BK_OK);
    if (st == BK_OK && b) {
        uint8_t best[32];
        char hex[65];
        CHECK_EQ_INT(bk_txindex_best_block(ti, best, &err), BK_OK);
        CHECK(memcmp(bk_hash_to_hex(hex, best), b + 17, 64) == 0);
        uint8_t txid[32] = {0};
        bk_tx_pos pos;
        CHECK_EQ_INT(bk_txindex_find(ti, txid, &pos, &err), BK_ERR_NOT_FOUND);
        CHECK_EQ_INT(bk_txindex_best_block(NULL, best, &err), BK_ERR_ARG);
        bk_txindex_close(ti);
    }
    free(info);
}

int main(void)
{
    RUN(test_chaintips);
    RUN(test_headers);
    RUN(test_transactions);
    RUN(test_txindex);
    RUN(test_blocks);
    RUN(test_cli);
    return check_finish();
}
