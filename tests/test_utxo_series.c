/* Coin statistics at every height (bk_coinstats_series) over the real
 * regtest node (tests/data/regtest), against Core's coinstatsindex
 * answers (tests/data/indexes/gettxoutsetinfo_{muhash,none}_by_height:
 * `gettxoutsetinfo <type> <height> true` for heights 0..939, written by
 * Core v29.99):
 *  - every line of both files, byte for byte, from one forward pass
 *    (1 and 2 workers);
 *  - a sub-range gives the same lines;
 *  - on 1, 2 and 4 workers, from heights 0, 37 and 938, the same line at
 *    every height as a one-thread reference of the public per-block calls
 *    (no tasks, no batched elements or inverses);
 *  - the fast MuHash finalize equals the Fermat one;
 *  - a block with another block's undo data, and ranges past the tip, are
 *    errors. */
#include <blockkit/blockfile.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>
#include <blockkit/json.h>
#include <blockkit/utxo.h>

#include "check.h"
#include "json_test_util.h"

#define TIP 939

typedef struct regtest {
    bk_blocksdir dir;
    bk_chain chain;
    int ok;
} regtest;

static regtest R;

static int regtest_open(regtest *r)
{
    char path[4096];
    bk_error err;
    snprintf(path, sizeof path, "%s/full/regtest/blocks", BK_REGTEST_DIR);
    if (bk_blocksdir_open(&r->dir, path, BK_NET_REGTEST, NULL, &err) != BK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return 0;
    }
    snprintf(path, sizeof path, "%s/full", BK_REGTEST_DIR);
    if (bk_chain_build_index(&r->chain, path, BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) {
        fprintf(stderr, "chain: %s\n", err.msg);
        bk_blocksdir_close(&r->dir);
        return 0;
    }
    r->ok = 1;
    return 1;
}

/* Core's bytes of each line: between ,"core": and the line's last }. */
typedef struct expected {
    char **core; /* by height */
    size_t n;
} expected;

static void load_expected(expected *e, const char *name)
{
    size_t len;
    char *all = (char *)read_zst(name, &len);
    e->core = calloc(TIP + 1, sizeof *e->core);
    e->n = 0;
    char *p = all;
    while (p < all + len) {
        char *nl = memchr(p, '\n', (size_t)(all + len - p));
        if (!nl) nl = all + len;
        *nl = 0;
        int h = -1;
        if (sscanf(p, "{\"height\":%d,", &h) == 1 && h >= 0 && h <= TIP) {
            char *c = strstr(p, ",\"core\":");
            char *end = nl - 1;
            if (c && *end == '}') {
                c += 8;
                e->core[h] = strndup(c, (size_t)(end - c));
                e->n++;
            }
        }
        p = nl + 1;
    }
    free(all);
}

typedef struct collect {
    const expected *want;
    int with_muhash;
    int32_t next;
    int mismatches;
    int lines;
} collect;

static bk_status emit_check(void *vctx, const bk_coinstats *cur, const bk_coinstats *prev, bk_error *err)
{
    collect *c = vctx;
    (void)err;
    CHECK_EQ_INT(cur->height, c->next);
    c->next = cur->height + 1;
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_coinstats_json(&j, cur, prev, c->with_muhash);
    bk_writer_putc(&w, 0);
    const char *want = cur->height >= 0 && cur->height <= TIP ? c->want->core[cur->height] : NULL;
    if (!want || strcmp((const char *)w.data, want) != 0) {
        if (c->mismatches++ < 3)
            fprintf(stderr, "height %d:\n  got:  %s\n  want: %s\n", (int)cur->height, (const char *)w.data,
                    want ? want : "(none)");
    }
    c->lines++;
    bk_writer_free(&w);
    return BK_OK;
}

static expected E_mu, E_none;

static void run_series(const expected *e, int with_muhash, int32_t start, int32_t end, int workers)
{
    bk_coinstats_series_opts o;
    memset(&o, 0, sizeof o);
    o.start = start;
    o.end = end;
    o.with_muhash = with_muhash;
    o.workers = workers;
    collect c = {e, with_muhash, start, 0, 0};
    bk_error err;
    bk_engine_where wh;
    bk_status s = bk_coinstats_series(&R.chain, &R.dir, &o, emit_check, &c, &wh, &err);
    if (s != BK_OK) fprintf(stderr, "series: %s\n", err.msg);
    CHECK(s == BK_OK);
    CHECK_EQ_INT(c.lines, end - start + 1);
    CHECK_EQ_INT(c.mismatches, 0);
}

static void test_expected_loaded(void)
{
    CHECK_EQ_INT(E_mu.n, TIP + 1);
    CHECK_EQ_INT(E_none.n, TIP + 1);
}

static void test_muhash_every_height(void) { run_series(&E_mu, 1, 0, TIP, 2); }
static void test_none_every_height(void) { run_series(&E_none, 0, 0, TIP, 1); }
static void test_sub_ranges(void)
{
    run_series(&E_mu, 1, 500, 517, 1);
    run_series(&E_mu, 1, TIP, TIP, 3);
    run_series(&E_none, 0, 0, 0, 2);
    run_series(&E_none, 0, 150, 152, 2); /* the first halving on regtest */
}

static bk_status emit_stop(void *vctx, const bk_coinstats *cur, const bk_coinstats *prev, bk_error *err)
{
    (void)prev;
    int *n = vctx;
    if (++*n == 3) return bk_error_set(err, BK_ERR_ARG, 0, "stop at height %d", (int)cur->height);
    return BK_OK;
}

static void test_errors(void)
{
    bk_coinstats_series_opts o;
    memset(&o, 0, sizeof o);
    o.start = 0;
    o.end = TIP + 1;
    o.workers = 1;
    bk_error err;
    int n = 0;
    CHECK(bk_coinstats_series(&R.chain, &R.dir, &o, emit_stop, &n, NULL, &err) == BK_ERR_ARG);
    o.start = 5;
    o.end = 4;
    CHECK(bk_coinstats_series(&R.chain, &R.dir, &o, emit_stop, &n, NULL, &err) == BK_ERR_ARG);
    /* the emitter's error stops the run with its status */
    o.start = 10;
    o.end = 20;
    n = 0;
    CHECK(bk_coinstats_series(&R.chain, &R.dir, &o, emit_stop, &n, NULL, &err) == BK_ERR_ARG);
    CHECK_EQ_INT(n, 3);
    CHECK(strstr(err.msg, "stop at height 12") != NULL);

    /* block 300 with the undo data of block 301: the shapes differ */
    bk_block_reader br1, br2;
    bk_block_reader_init(&br1, &R.dir, NULL);
    bk_block_reader_init(&br2, &R.dir, NULL);
    int found = 0;
    for (int32_t h = 300; h < TIP && !found; h++) {
        const bk_chain_entry *a = bk_chain_at_height(&R.chain, h), *b = bk_chain_at_height(&R.chain, h + 1);
        bk_engine_block ea, eb;
        CHECK(bk_block_reader_read(&br1, a, BK_READ_UNDO, &ea, NULL, &err) == BK_OK);
        CHECK(bk_block_reader_read(&br2, b, BK_READ_UNDO, &eb, NULL, &err) == BK_OK);
        if (ea.block->n_tx == eb.block->n_tx) continue;
        found = 1;
        uint8_t *txids = malloc(32 * (size_t)ea.block->n_tx);
        bk_block_txids(ea.block, txids);
        bk_coinstats_delta d;
        CHECK(bk_coinstats_block_delta(BK_NET_REGTEST, h, a->hash, ea.block, txids, eb.undo, 1, &d, &err) ==
              BK_ERR_MISMATCH);
        CHECK(bk_coinstats_block_delta(BK_NET_REGTEST, h, a->hash, ea.block, txids, NULL, 1, &d, &err) ==
              BK_ERR_ARG);
        /* its own undo: fine, and applying it out of order is refused */
        CHECK(bk_coinstats_block_delta(BK_NET_REGTEST, h, a->hash, ea.block, txids, ea.undo, 1, &d, &err) ==
              BK_OK);
        bk_coinstats st;
        bk_coinstats_init(&st);
        bk_muhash mu;
        bk_muhash_init(&mu);
        CHECK(bk_coinstats_apply(&st, &mu, &d, 1, &err) == BK_ERR_INVALID);
        free(txids);
    }
    CHECK(found);
    bk_block_reader_free(&br1);
    bk_block_reader_free(&br2);
}

static void test_finalize_fast(void)
{
    bk_muhash m;
    bk_muhash_init(&m);
    uint8_t a[32], b[32];
    bk_muhash_finalize(&m, a);
    bk_muhash_finalize_fast(&m, b);
    CHECK_MEM(a, b, 32);
    for (int i = 0; i < 20; i++) {
        uint8_t x[8] = {(uint8_t)i, 1, 2, 3, 4, 5, 6, 7};
        if (i % 3 == 2) bk_muhash_remove(&m, x, sizeof x);
        else bk_muhash_insert(&m, x, sizeof x);
        bk_muhash_finalize(&m, a);
        bk_muhash_finalize_fast(&m, b);
        CHECK_MEM(a, b, 32);
    }
    /* insert then remove one element: the empty set's hash */
    bk_muhash e;
    bk_muhash_init(&e);
    bk_muhash_insert(&e, "abc", 3);
    bk_muhash_remove(&e, "abc", 3);
    bk_muhash_init(&m);
    bk_muhash_finalize(&m, a);
    bk_muhash_finalize_fast(&e, b);
    CHECK_MEM(a, b, 32);
}

/* ---- the threaded series against a one-thread reference, every height ----
 *
 * The reference takes the public calls one block at a time on this thread:
 * bk_coinstats_block_delta (each coin's element multiplied in as it comes,
 * no batching), bk_coinstats_apply with finalize (one mpz inverse per
 * height, no batching). The series (tasks of blocks on 1, 2 or 4 workers,
 * elements 8 at a time, finalized 64 heights per inverse) must give the
 * same line, MuHash included, at every height. */

static char *line_of(const bk_coinstats *cur, const bk_coinstats *prev)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_json j;
    bk_json_init(&j, &w, 0);
    bk_coinstats_json(&j, cur, prev, 1);
    bk_writer_putc(&w, 0);
    return (char *)w.data;
}

static char *REF[TIP + 1];

static void build_reference(void)
{
    bk_block_reader br;
    bk_block_reader_init(&br, &R.dir, NULL);
    bk_coinstats st, prev;
    bk_coinstats_init(&st);
    bk_muhash mu;
    bk_muhash_init(&mu);
    uint8_t *txids = NULL;
    bk_error err;
    for (int32_t h = 0; h <= TIP; h++) {
        const bk_chain_entry *e = bk_chain_at_height(&R.chain, h);
        bk_engine_block eb;
        CHECK(e && bk_block_reader_read(&br, e, BK_READ_UNDO, &eb, NULL, &err) == BK_OK);
        txids = realloc(txids, 32 * (size_t)eb.block->n_tx);
        bk_block_txids(eb.block, txids);
        bk_coinstats_delta d;
        CHECK(bk_coinstats_block_delta(BK_NET_REGTEST, h, e->hash, eb.block, txids, h ? eb.undo : NULL, 1, &d,
                                       &err) == BK_OK);
        prev = st;
        CHECK(bk_coinstats_apply(&st, &mu, &d, 1, &err) == BK_OK);
        CHECK(st.has_muhash);
        REF[h] = line_of(&st, h ? &prev : NULL);
    }
    free(txids);
    bk_block_reader_free(&br);
}

typedef struct against_ref {
    int32_t next;
    int mismatches, lines;
} against_ref;

static bk_status emit_against_ref(void *vctx, const bk_coinstats *cur, const bk_coinstats *prev, bk_error *err)
{
    against_ref *a = vctx;
    (void)err;
    CHECK_EQ_INT(cur->height, a->next);
    a->next = cur->height + 1;
    CHECK(cur->has_muhash);
    char *got = line_of(cur, prev);
    if (cur->height < 0 || cur->height > TIP || !REF[cur->height] || strcmp(got, REF[cur->height]) != 0) {
        if (a->mismatches++ < 3)
            fprintf(stderr, "height %d:\n  series:    %s\n  reference: %s\n", (int)cur->height, got,
                    cur->height >= 0 && cur->height <= TIP && REF[cur->height] ? REF[cur->height] : "(none)");
    }
    a->lines++;
    free(got);
    return BK_OK;
}

static void test_threads_equal_reference(void)
{
    build_reference();
    /* Core's own answer agrees with the reference (so the comparison below is to the right lines) */
    char *core_tip = E_mu.core[TIP];
    CHECK(core_tip && REF[TIP] && strcmp(core_tip, REF[TIP]) == 0);
    const int workers[] = {1, 2, 4};
    const int32_t starts[] = {0, 37, 938};
    for (size_t wi = 0; wi < sizeof workers / sizeof workers[0]; wi++)
        for (size_t si = 0; si < sizeof starts / sizeof starts[0]; si++) {
            bk_coinstats_series_opts o;
            memset(&o, 0, sizeof o);
            o.start = starts[si];
            o.end = TIP;
            o.with_muhash = 1;
            o.workers = workers[wi];
            against_ref a = {starts[si], 0, 0};
            bk_error err;
            CHECK(bk_coinstats_series(&R.chain, &R.dir, &o, emit_against_ref, &a, NULL, &err) == BK_OK);
            CHECK_EQ_INT(a.lines, TIP - starts[si] + 1);
            if (a.mismatches) fprintf(stderr, "-j%d from %d: %d heights differ\n", workers[wi], (int)starts[si],
                                      a.mismatches);
            CHECK_EQ_INT(a.mismatches, 0);
        }
    for (int h = 0; h <= TIP; h++) free(REF[h]);
}

int main(void)
{
    if (!regtest_open(&R)) {
        CHECK(0);
        return check_finish();
    }
    load_expected(&E_mu, "indexes/gettxoutsetinfo_muhash_by_height.ndjson.zst");
    load_expected(&E_none, "indexes/gettxoutsetinfo_none_by_height.ndjson.zst");
    RUN(test_expected_loaded);
    RUN(test_finalize_fast);
    RUN(test_muhash_every_height);
    RUN(test_none_every_height);
    RUN(test_sub_ranges);
    RUN(test_errors);
    RUN(test_threads_equal_reference);
    for (int i = 0; i <= TIP; i++) {
        free(E_mu.core[i]);
        free(E_none.core[i]);
    }
    free(E_mu.core);
    free(E_none.core);
    bk_chain_free(&R.chain);
    bk_blocksdir_close(&R.dir);
    return check_finish();
}
