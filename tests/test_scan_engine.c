/* The library's scan engine (blockkit/scan.h) over the regtest node's
 * files (Core's own blocks, undo records and block index): the lines it
 * hands to the sink are Core's getblock answers byte for byte (verbosity 1
 * and 3, any worker count), in height order, with progress reports that
 * end at the whole; the range and resume checks, a sink that refuses a
 * line, a stop request from the sink, the pruned copy (a skipped range as
 * a note, an explicit start in it refused) and bad options, each as a
 * status and stats->failure with nothing printed. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "json_test_util.h"

#include <blockkit/blockkit.h>
#include <blockkit/blockindex.h>
#include <blockkit/scan.h>

#include <signal.h>

#define REGTEST_FULL BK_REGTEST_DIR "/full"
#define REGTEST_BLOCKS BK_REGTEST_DIR "/full/regtest/blocks"
#define REGTEST_PRUNED BK_REGTEST_DIR "/pruned"
#define REGTEST_PRUNED_BLOCKS BK_REGTEST_DIR "/pruned/regtest/blocks"

typedef struct collect {
    tbuf out;
    int64_t next_height;    /* the height the next line must have (-1: any) */
    int out_of_order;
    uint64_t lines;
    uint64_t fail_at;       /* refuse line number fail_at (0-based; UINT64_MAX: never) */
    uint64_t stop_at;       /* set *stop after this many lines (UINT64_MAX: never) */
    volatile sig_atomic_t *stop;
    /* progress */
    uint64_t reports, finals, last_blocks, last_bytes, bytes_total;
    int progress_backwards;
    /* notes */
    char notes[2048];
} collect;

static void collect_init(collect *c)
{
    memset(c, 0, sizeof *c);
    c->next_height = -1;
    c->fail_at = UINT64_MAX;
    c->stop_at = UINT64_MAX;
}

static bk_status sink(void *ctx, const bk_scan_line *l, bk_error *err)
{
    collect *c = ctx;
    if (c->lines == c->fail_at) return bk_error_set(err, BK_ERR_IO, 0, "made-up write error");
    if (c->next_height >= 0 && l->height != c->next_height) c->out_of_order = 1;
    c->next_height = l->height + 1;
    if (!l->len || l->data[l->len - 1] != '\n') c->out_of_order = 1;
    tbuf_put(&c->out, (const char *)l->data, l->len);
    c->lines++;
    if (c->lines == c->stop_at && c->stop) *c->stop = SIGTERM;
    return BK_OK;
}

static void progress(void *ctx, const bk_scan_report *r)
{
    collect *c = ctx;
    c->reports++;
    c->finals += r->final != 0;
    if (r->blocks_done < c->last_blocks || r->bytes_done < c->last_bytes || r->bytes_done > r->bytes_total)
        c->progress_backwards = 1;
    c->last_blocks = r->blocks_done;
    c->last_bytes = r->bytes_done;
    c->bytes_total = r->bytes_total;
}

static void note(void *ctx, const char *msg)
{
    collect *c = ctx;
    size_t n = strlen(c->notes);
    snprintf(c->notes + n, sizeof c->notes - n, "%s\n", msg);
}

static int load_index(bk_chain *chain, const char *datadir)
{
    bk_error err;
    if (bk_chain_build_index(chain, datadir, BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) {
        fprintf(stderr, "regtest index %s: %s\n", datadir, err.msg);
        return 0;
    }
    return 1;
}

static void opts_for(bk_scan_opts *o, const bk_chain *chain, const char *blocksdir, collect *c)
{
    bk_scan_opts_init(o);
    o->blocksdir = blocksdir;
    o->chain = chain;
    o->net = BK_NET_REGTEST;
    o->core_version = 28; /* the node is v28.99 (tests/data/regtest/README.md) */
    o->sink = sink;
    o->sink_ctx = c;
    o->on_progress = progress;
    o->progress_ctx = c;
    o->note = note;
    o->note_ctx = c;
}

/* Every active block at verbosity 1 and 3: Core's bytes. */
static void test_core_bytes(void)
{
    bk_chain chain;
    if (!load_index(&chain, REGTEST_FULL)) {
        CHECK(0);
        return;
    }
    static const char *const names[2] = {"regtest/core_getblock_v1.ndjson.zst", "regtest/core_getblock_v3.ndjson.zst"};
    for (int v = 0; v < 2; v++) {
        size_t want_len = 0;
        uint8_t *want = read_zst(names[v], &want_len);
        for (int workers = 1; workers <= 3; workers += 2) {
            collect c;
            collect_init(&c);
            bk_scan_opts o;
            opts_for(&o, &chain, REGTEST_BLOCKS, &c);
            o.verbosity = v ? 3 : 1;
            o.workers = workers;
            o.fees = 1;
            bk_scan_stats st;
            bk_error err;
            bk_error_clear(&err);
            bk_status s = bk_scan_run(&o, &st, &err);
            if (s != BK_OK) fprintf(stderr, "scan: %s\n", err.msg);
            CHECK_EQ_INT(s, BK_OK);
            CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_NONE);
            CHECK_EQ_INT(st.blocks, 940);
            CHECK_EQ_INT(st.first_height, 0);
            CHECK_EQ_INT(st.last_height, 939);
            CHECK_EQ_INT(st.resume_height, -1);
            CHECK_EQ_INT(st.txs, 5209);
            CHECK_EQ_INT(st.bytes_out, want_len);
            CHECK(!c.out_of_order);
            CHECK(c.out.len == want_len && memcmp(c.out.p, want, want_len) == 0);
            if (v) CHECK_EQ_INT(st.blocks_with_undo, 939); /* all but the genesis block */
            /* progress after every line, then the final one at the whole */
            CHECK_EQ_INT(c.reports, 941);
            CHECK_EQ_INT(c.finals, 1);
            CHECK(!c.progress_backwards);
            CHECK_EQ_INT(c.last_blocks, 940);
            CHECK_EQ_INT(c.last_bytes, c.bytes_total);
            CHECK_EQ_INT(c.last_bytes, st.bytes_in);
            CHECK_EQ_STR(c.notes, "");
            free(c.out.p);
        }
        free(want);
    }
    bk_chain_free(&chain);
}

/* start / end / end_below_tip / resume_after, and their failures. */
static void test_range_and_resume(void)
{
    bk_chain chain;
    if (!load_index(&chain, REGTEST_FULL)) {
        CHECK(0);
        return;
    }
    collect c;
    collect_init(&c);
    bk_scan_opts o;
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.start = 100;
    o.end_below_tip = 30; /* 100..909 */
    o.workers = 2;
    bk_scan_stats st;
    bk_error err;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_OK);
    CHECK_EQ_INT(st.blocks, 810);
    CHECK_EQ_INT(st.first_height, 100);
    CHECK_EQ_INT(st.last_height, 909);
    free(c.out.p);

    /* resume after height 99: continues at 100; an explicit start must agree */
    const bk_chain_entry *e99 = bk_chain_at_height(&chain, 99);
    collect_init(&c);
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.resume_after = e99->hash;
    o.end = 120;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_OK);
    CHECK_EQ_INT(st.first_height, 100);
    CHECK_EQ_INT(st.blocks, 21);
    free(c.out.p);

    collect_init(&c);
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.resume_after = e99->hash;
    o.start = 50;
    o.start_given = 1;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_ARG);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_RESUME_START);
    CHECK_EQ_INT(st.resume_height, 100);
    CHECK_EQ_INT(c.lines, 0);
    CHECK(strstr(err.msg, "ends at height 99, so it continues at 100") != NULL);

    /* a block not in the files */
    uint8_t unknown[32];
    memset(unknown, 0x5a, sizeof unknown);
    collect_init(&c);
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.resume_after = unknown;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_MISMATCH);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_RESUME_BLOCK);
    CHECK_EQ_INT(st.resume_found, 0);
    CHECK_EQ_INT(c.lines, 0);

    /* an off-chain block that is in the files */
    const bk_chain_entry *side = NULL;
    for (size_t i = 0; i < chain.n_entries && !side; i++)
        if (!chain.entries[i].active && !chain.entries[i].no_data) side = &chain.entries[i];
    CHECK(side != NULL);
    if (side) {
        collect_init(&c);
        opts_for(&o, &chain, REGTEST_BLOCKS, &c);
        o.resume_after = side->hash;
        CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_MISMATCH);
        CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_RESUME_BLOCK);
        CHECK_EQ_INT(st.resume_found, 1);
        CHECK(strstr(err.msg, "not on the best chain") != NULL);
    }

    /* bad options: no sink; verbosity 4; end below start */
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.sink = NULL;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_ARG);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_ARG);
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.verbosity = 4;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_ARG);
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.start = 10;
    o.end = 5;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_ARG);
    /* a memory bound below one worker's need */
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.max_memory = 1 << 20;
    o.verbosity = 3;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_ARG);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_MEMORY);
    CHECK_EQ_INT(st.max_block, 455883); /* the largest block (README) */
    CHECK(st.need_bytes > (size_t)1 << 20);
    bk_chain_free(&chain);
}

/* The sink refuses a line; a stop request from the sink. */
static void test_sink_and_stop(void)
{
    bk_chain chain;
    if (!load_index(&chain, REGTEST_FULL)) {
        CHECK(0);
        return;
    }
    collect c;
    collect_init(&c);
    c.fail_at = 10;
    bk_scan_opts o;
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.start = 200;
    o.workers = 3;
    bk_scan_stats st;
    bk_error err;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_IO);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_SINK);
    CHECK_EQ_STR(err.msg, "made-up write error");
    CHECK_EQ_INT(st.blocks, 10);
    CHECK_EQ_INT(st.last_height, 209);
    CHECK_EQ_INT(st.resume_height, 210);
    CHECK(!c.out_of_order);
    free(c.out.p);

    static volatile sig_atomic_t stop;
    stop = 0;
    collect_init(&c);
    c.stop_at = 5;
    c.stop = &stop;
    opts_for(&o, &chain, REGTEST_BLOCKS, &c);
    o.workers = 2;
    o.stop = &stop;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_CANCELLED);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_CANCELLED);
    CHECK_EQ_INT(st.chain_cancelled, 0);
    CHECK(st.blocks >= 5 && st.blocks < 940);
    CHECK_EQ_INT(st.resume_height, st.last_height + 1);
    CHECK_EQ_INT(st.blocks, c.lines);
    CHECK(!c.out_of_order);
    free(c.out.p);

    /* the header scan (no chain given), stopped before it starts */
    stop = SIGINT;
    collect_init(&c);
    opts_for(&o, NULL, REGTEST_BLOCKS, &c);
    o.stop = &stop;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_CANCELLED);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_CANCELLED);
    CHECK_EQ_INT(st.chain_cancelled, 1);
    CHECK_EQ_INT(c.lines, 0);
    /* and a blocks directory that is not there */
    opts_for(&o, NULL, BK_REGTEST_DIR "/no-such-dir", &c);
    CHECK(bk_scan_run(&o, &st, &err) != BK_OK);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_DIR);
    bk_chain_free(&chain);
}

/* The pruned copy: the range without data is one note; an explicit start
 * in it is refused; the lines from 448 are Core's. */
static void test_pruned(void)
{
    bk_chain chain;
    if (!load_index(&chain, REGTEST_PRUNED)) {
        CHECK(0);
        return;
    }
    collect c;
    collect_init(&c);
    bk_scan_opts o;
    opts_for(&o, &chain, REGTEST_PRUNED_BLOCKS, &c);
    o.workers = 2;
    bk_scan_stats st;
    bk_error err;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_OK);
    CHECK_EQ_STR(c.notes, "heights 0-447 skipped: no block data on this node (pruned)\n");
    CHECK_EQ_INT(st.first_height, 448);
    CHECK_EQ_INT(st.blocks, 940 - 448);
    size_t want_len = 0;
    uint8_t *want = read_zst("regtest/core_getblock_v1.ndjson.zst", &want_len);
    /* line 448 onwards */
    size_t off = 0;
    for (int h = 0; h < 448 && off < want_len; h++) {
        const uint8_t *nl = memchr(want + off, '\n', want_len - off);
        off = nl ? (size_t)(nl - want) + 1 : want_len;
    }
    CHECK(c.out.len == want_len - off && memcmp(c.out.p, want + off, c.out.len) == 0);
    free(want);
    free(c.out.p);

    /* quiet: no notes */
    collect_init(&c);
    opts_for(&o, &chain, REGTEST_PRUNED_BLOCKS, &c);
    o.quiet = 1;
    o.end = 450;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_OK);
    CHECK_EQ_STR(c.notes, "");
    CHECK_EQ_INT(st.blocks, 3);
    free(c.out.p);

    collect_init(&c);
    opts_for(&o, &chain, REGTEST_PRUNED_BLOCKS, &c);
    o.start = 100;
    o.start_given = 1;
    CHECK_EQ_INT(bk_scan_run(&o, &st, &err), BK_ERR_NOT_FOUND);
    CHECK_EQ_INT(st.failure, BK_SCAN_FAIL_PRUNED_START);
    CHECK_EQ_STR(err.msg, "height 100 has no block data on this node (pruned); the lowest available height is 448");
    CHECK_EQ_INT(c.lines, 0);
    bk_chain_free(&chain);
}

int main(void)
{
    RUN(test_core_bytes);
    RUN(test_range_and_resume);
    RUN(test_sink_and_stop);
    RUN(test_pruned);
    return check_finish();
}
