/* The ordered parallel block engine (blockkit/engine.h): jobs consumed
 * strictly in order under random per-job delays, the window bounding how
 * far a worker runs ahead of the consumer, a worker's or the consumer's
 * error stopping the run at that job (everything before it consumed,
 * nothing after), cancellation from a signal handler while the workers
 * are busy; and over the regtest node's files (Core's own blocks, undo
 * records and block index): every best-chain block read, decoded and
 * handed over in height order with its undo data, a damaged position
 * reported with the block's height, hash and file offset. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <blockkit/blockindex.h>
#include <blockkit/engine.h>
#include <blockkit/hex.h>

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* A deterministic pseudo-random delay per job (0..max_us). */
static long delay_of(size_t job, long max_us)
{
    uint64_t x = (uint64_t)job * 0x9E3779B97F4A7C15ull + 12345;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (long)(x % (uint64_t)(max_us + 1));
}

typedef struct ord_ctx {
    size_t window;
    long max_delay_us;
    size_t fail_work_at;    /* SIZE_MAX: never */
    size_t fail_consume_at; /* SIZE_MAX: never */
    size_t cancel_at;       /* the consumer sets *cancel_flag after this job (SIZE_MAX: never) */
    volatile sig_atomic_t *cancel_flag;
    size_t consumed;        /* written by the consumer, read by the workers */
    size_t next_expected;
    int out_of_order, ahead_of_window;
    int running, max_running;
    pthread_mutex_t mu;
    unsigned ticks;
} ord_ctx;

static bk_status ord_work(void *vctx, size_t job, int worker, bk_writer *out, bk_error *err)
{
    ord_ctx *c = vctx;
    (void)worker;
    size_t done = __atomic_load_n(&c->consumed, __ATOMIC_ACQUIRE);
    if (job >= done + c->window) __atomic_store_n(&c->ahead_of_window, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&c->mu);
    if (++c->running > c->max_running) c->max_running = c->running;
    pthread_mutex_unlock(&c->mu);
    if (c->max_delay_us) sleep_us(delay_of(job, c->max_delay_us));
    pthread_mutex_lock(&c->mu);
    c->running--;
    pthread_mutex_unlock(&c->mu);
    if (job == c->fail_work_at) return bk_error_set(err, BK_ERR_INVALID, 7, "job %zu refused", job);
    char line[32];
    int n = snprintf(line, sizeof line, "%zu\n", job);
    bk_writer_put(out, line, (size_t)n);
    return BK_OK;
}

static bk_status ord_consume(void *vctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    ord_ctx *c = vctx;
    char want[32];
    int n = snprintf(want, sizeof want, "%zu\n", job);
    if (job != c->next_expected || len != (size_t)n || memcmp(data, want, len) != 0) c->out_of_order = 1;
    c->next_expected = job + 1;
    if (job == c->fail_consume_at) return bk_error_set(err, BK_ERR_IO, 0, "disk full at job %zu", job);
    __atomic_store_n(&c->consumed, job + 1, __ATOMIC_RELEASE);
    if (job == c->cancel_at) *c->cancel_flag = 1;
    return BK_OK;
}

static void ord_tick(void *vctx)
{
    ord_ctx *c = vctx;
    c->ticks++;
}

static void ord_init(ord_ctx *c, size_t window, long max_delay_us)
{
    memset(c, 0, sizeof *c);
    c->window = window;
    c->max_delay_us = max_delay_us;
    c->fail_work_at = c->fail_consume_at = c->cancel_at = SIZE_MAX;
    pthread_mutex_init(&c->mu, NULL);
}

static void test_order_and_window(void)
{
    int workers_list[] = {1, 2, 4, 7};
    for (size_t k = 0; k < sizeof workers_list / sizeof workers_list[0]; k++) {
        int nw = workers_list[k];
        size_t window = (size_t)nw + 2;
        ord_ctx c;
        ord_init(&c, window, 1500);
        bk_ordered_opts o;
        bk_ordered_opts_init(&o);
        o.workers = nw;
        o.window = window;
        bk_ordered_result r;
        bk_error err;
        bk_status st = bk_ordered_run(300, &o, ord_work, ord_consume, &c, &r, &err);
        CHECK_EQ_INT(st, BK_OK);
        CHECK_EQ_INT(r.consumed, 300);
        CHECK_EQ_INT(r.failure, BK_ORDERED_OK);
        CHECK_EQ_INT(r.workers, nw);
        CHECK_EQ_INT(r.window, window);
        CHECK_EQ_INT(c.next_expected, 300);
        CHECK(!c.out_of_order);
        CHECK(!c.ahead_of_window); /* back-pressure: never more than window jobs past the consumer */
        CHECK(c.max_running <= nw);
        if (nw > 1) CHECK(c.max_running > 1); /* the delays overlap: jobs did run in parallel */
        pthread_mutex_destroy(&c.mu);
    }
    /* no jobs */
    ord_ctx c;
    ord_init(&c, 3, 0);
    bk_ordered_opts o;
    bk_ordered_opts_init(&o);
    bk_ordered_result r;
    bk_error err;
    CHECK_EQ_INT(bk_ordered_run(0, &o, ord_work, ord_consume, &c, &r, &err), BK_OK);
    CHECK_EQ_INT(r.consumed, 0);
    pthread_mutex_destroy(&c.mu);
}

static void test_errors(void)
{
    /* a worker fails at job 37: 0..36 consumed, in order, nothing after */
    ord_ctx c;
    ord_init(&c, 7, 800);
    c.fail_work_at = 37;
    bk_ordered_opts o;
    bk_ordered_opts_init(&o);
    o.workers = 3;
    o.window = 7;
    bk_ordered_result r;
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_ordered_run(200, &o, ord_work, ord_consume, &c, &r, &err);
    CHECK_EQ_INT(st, BK_ERR_INVALID);
    CHECK_EQ_INT(r.failure, BK_ORDERED_WORK);
    CHECK_EQ_INT(r.consumed, 37);
    CHECK_EQ_INT(c.next_expected, 37);
    CHECK_EQ_STR(err.msg, "job 37 refused");
    CHECK_EQ_INT(err.offset, 7);
    CHECK(!c.out_of_order);
    pthread_mutex_destroy(&c.mu);

    /* the consumer fails at job 10 */
    ord_init(&c, 5, 300);
    c.fail_consume_at = 10;
    o.workers = 2;
    o.window = 5;
    bk_error_clear(&err);
    st = bk_ordered_run(100, &o, ord_work, ord_consume, &c, &r, &err);
    CHECK_EQ_INT(st, BK_ERR_IO);
    CHECK_EQ_INT(r.failure, BK_ORDERED_CONSUME);
    CHECK_EQ_INT(r.consumed, 10);
    CHECK_EQ_INT(c.next_expected, 11); /* job 10 was handed over, then refused */
    CHECK_EQ_STR(err.msg, "disk full at job 10");
    pthread_mutex_destroy(&c.mu);
}

static volatile sig_atomic_t cancel_flag;

static void on_alarm(int sig)
{
    (void)sig;
    cancel_flag = 1;
}

static bk_status ord_work_slow(void *vctx, size_t job, int worker, bk_writer *out, bk_error *err)
{
    sleep_us(300000);
    return ord_work(vctx, job, worker, out, err);
}

static void test_cancel(void)
{
    /* set between two jobs */
    ord_ctx c;
    ord_init(&c, 5, 200);
    cancel_flag = 0;
    c.cancel_flag = &cancel_flag;
    c.cancel_at = 20;
    bk_ordered_opts o;
    bk_ordered_opts_init(&o);
    o.workers = 2;
    o.window = 5;
    o.cancel = &cancel_flag;
    bk_ordered_result r;
    bk_error err;
    bk_status st = bk_ordered_run(100, &o, ord_work, ord_consume, &c, &r, &err);
    CHECK_EQ_INT(st, BK_ERR_CANCELLED);
    CHECK_EQ_INT(r.failure, BK_ORDERED_CANCELLED);
    CHECK_EQ_INT(r.consumed, 21);
    CHECK(!c.out_of_order);
    pthread_mutex_destroy(&c.mu);

    /* by a signal while every worker is inside a slow job (each 300 ms):
     * the calling thread notices within a tick, well before the 200 jobs
     * (60 s) would end; the handler runs on the calling thread (the
     * workers block signals), and the tick callback runs meanwhile. */
    ord_init(&c, 3, 0);
    cancel_flag = 0;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_usec = 450000;
    setitimer(ITIMER_REAL, &it, NULL);
    o.workers = 2;
    o.window = 3;
    o.tick = ord_tick;
    o.tick_ms = 20;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = bk_ordered_run(200, &o, ord_work_slow, ord_consume, &c, &r, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    sigaction(SIGALRM, &old, NULL);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK_EQ_INT(st, BK_ERR_CANCELLED);
    CHECK(r.consumed >= 1 && r.consumed < 10);
    CHECK(s < 3.0);
    CHECK(c.ticks > 0);
    CHECK(!c.out_of_order);
    pthread_mutex_destroy(&c.mu);
}

/* ---- over the regtest node's files ---- */

#define REGTEST_FULL BK_REGTEST_DIR "/full"
#define REGTEST_BLOCKS BK_REGTEST_DIR "/full/regtest/blocks"

typedef struct blk_ctx {
    const bk_chain *chain;
    const bk_engine_item *items;
    const bk_engine_task *tasks;
    size_t next_expected;
    int bad_order, bad_hash, bad_undo, bad_task;
    uint64_t undo_blocks, blocks;
    int task_worker[512];
    int begun[512], ended[512];
    long max_delay_us;
} blk_ctx;

static bk_status blk_begin(void *vctx, int worker, size_t task, bk_error *err)
{
    blk_ctx *c = vctx;
    (void)err;
    c->task_worker[task] = worker;
    c->begun[task]++;
    return BK_OK;
}

static bk_status blk_end(void *vctx, int worker, size_t task, bk_status st, bk_writer *out, bk_error *err)
{
    blk_ctx *c = vctx;
    (void)out;
    (void)err;
    if (c->task_worker[task] != worker) c->bad_task = 1;
    c->ended[task]++;
    return st;
}

static bk_status blk_block(void *vctx, int worker, const bk_engine_block *b, bk_writer *out, bk_error *err)
{
    blk_ctx *c = vctx;
    (void)err;
    if (c->tasks && c->task_worker[b->task] != worker) c->bad_task = 1;
    if (c->max_delay_us) sleep_us(delay_of(b->item, c->max_delay_us));
    uint8_t h[32];
    bk_block_hash(b->block, h);
    if (memcmp(h, b->entry->hash, 32) != 0 || b->size != b->entry->size) __atomic_store_n(&c->bad_hash, 1, __ATOMIC_RELAXED);
    /* every block above the genesis has its undo record in Core's files;
     * its shape matches the block (one coin per input) */
    if (b->height > 0 && (!b->undo || bk_block_undo_check(b->undo, b->block, NULL) != BK_OK))
        __atomic_store_n(&c->bad_undo, 1, __ATOMIC_RELAXED);
    if (b->height == 0 && b->undo) __atomic_store_n(&c->bad_undo, 1, __ATOMIC_RELAXED);
    uint8_t rec[40];
    uint64_t height = (uint64_t)b->height;
    memcpy(rec, &height, 8);
    memcpy(rec + 8, b->entry->hash, 32);
    bk_writer_put(out, rec, sizeof rec);
    return BK_OK;
}

static bk_status blk_consume(void *vctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    blk_ctx *c = vctx;
    (void)err;
    size_t first = c->tasks ? c->tasks[job].first : job, count = c->tasks ? c->tasks[job].count : 1;
    if (len != 40 * count) c->bad_order = 1;
    for (size_t i = 0; i < count && 40 * (i + 1) <= len; i++) {
        uint64_t h;
        memcpy(&h, data + 40 * i, 8);
        const bk_engine_item *it = &c->items[first + i];
        if (first + i != c->next_expected || (int64_t)h != it->height ||
            memcmp(data + 40 * i + 8, c->chain->entries[it->entry].hash, 32) != 0)
            c->bad_order = 1;
        c->next_expected = first + i + 1;
        c->blocks++;
    }
    return BK_OK;
}

static int load_chain(bk_chain *chain, bk_blocksdir *dir)
{
    bk_error err;
    if (bk_blocksdir_open(dir, REGTEST_BLOCKS, BK_NET_REGTEST, NULL, &err) != BK_OK) {
        fprintf(stderr, "regtest blocks: %s\n", err.msg);
        return 0;
    }
    if (bk_chain_build_index(chain, REGTEST_FULL, BK_NET_REGTEST, NULL, NULL, &err) != BK_OK) {
        fprintf(stderr, "regtest index: %s\n", err.msg);
        bk_blocksdir_close(dir);
        return 0;
    }
    return 1;
}

static bk_engine_item *best_chain(const bk_chain *chain, size_t *n)
{
    const bk_chain_entry *tip = bk_chain_tip(chain);
    *n = tip ? (size_t)tip->height + 1 : 0;
    bk_engine_item *items = calloc(*n ? *n : 1, sizeof *items);
    for (size_t h = 0; items && h < *n; h++) {
        const bk_chain_entry *e = bk_chain_at_height(chain, (int64_t)h);
        items[h].entry = (uint32_t)(e - chain->entries);
        items[h].height = (int64_t)h;
    }
    return items;
}

/* The regtest chain from its index, its blocks directory and the best
 * chain as engine items (NULL, a failed CHECK, when it cannot be loaded). */
static bk_engine_item *regtest_open(bk_chain *chain, bk_blocksdir *dir, size_t *n)
{
    memset(chain, 0, sizeof *chain);
    if (!load_chain(chain, dir)) {
        CHECK(0);
        return NULL;
    }
    bk_engine_item *items = best_chain(chain, n);
    if (!items) {
        CHECK(0);
        bk_chain_free(chain);
        bk_blocksdir_close(dir);
    }
    return items;
}

static void regtest_close(bk_engine_item *items, bk_chain *chain, bk_blocksdir *dir)
{
    free(items);
    bk_chain_free(chain);
    bk_blocksdir_close(dir);
}

static void test_regtest_blocks(void)
{
    bk_chain chain;
    bk_blocksdir dir;
    size_t n;
    bk_engine_item *items = regtest_open(&chain, &dir, &n);
    if (!items) return;
    CHECK(chain.from_index); /* undo checksums verified by position */
    CHECK(n == 940);
    /* one task per block, then tasks of 7 blocks (the last one short) */
    bk_engine_task tasks[512];
    size_t ntasks = 0;
    for (size_t i = 0; i < n; i += 7) {
        tasks[ntasks].first = i;
        tasks[ntasks].count = n - i < 7 ? n - i : 7;
        ntasks++;
    }
    for (int mode = 0; mode < 4; mode++) {
        blk_ctx c;
        memset(&c, 0, sizeof c);
        c.chain = &chain;
        c.items = items;
        c.max_delay_us = mode & 1 ? 300 : 0;
        bk_engine_opts o;
        bk_engine_opts_init(&o);
        o.chain = &chain;
        o.dir = &dir;
        o.items = items;
        o.n_items = n;
        o.read_flags = BK_READ_UNDO;
        o.run.workers = mode < 2 ? 3 : 2;
        o.block = blk_block;
        o.consume = blk_consume;
        o.ctx = &c;
        if (mode >= 2) {
            c.tasks = tasks;
            o.tasks = tasks;
            o.n_tasks = ntasks;
            o.begin = blk_begin;
            o.end = blk_end;
        }
        bk_engine_result r;
        bk_error err;
        bk_status st = bk_engine_run(&o, &r, &err);
        CHECK_EQ_INT(st, BK_OK);
        CHECK_EQ_INT(r.run.consumed, mode >= 2 ? ntasks : n);
        CHECK_EQ_INT(c.blocks, n);
        CHECK(!c.bad_order);
        CHECK(!c.bad_hash);
        CHECK(!c.bad_undo);
        CHECK(!c.bad_task);
        if (mode >= 2)
            for (size_t t = 0; t < ntasks; t++) CHECK(c.begun[t] == 1 && c.ended[t] == 1);
    }
    regtest_close(items, &chain, &dir);
}

/* A damaged position in the chain: the engine stops at that height, every
 * block below it consumed, and names height, hash, file and offset. */
static void test_regtest_errors(void)
{
    bk_chain chain;
    bk_blocksdir dir;
    size_t n;
    bk_engine_item *items = regtest_open(&chain, &dir, &n);
    if (!items) return;
    for (int kind = 0; kind < 3; kind++) {
        int64_t bad_h = kind == 0 ? 100 : kind == 1 ? 333 : 500;
        bk_chain_entry *e = &chain.entries[items[bad_h].entry];
        bk_chain_entry saved = *e;
        if (kind == 0) e->offset += 1;            /* a block that does not parse */
        else if (kind == 1) e->file = 99999;      /* a file that is not there */
        else e->undo_offset += 1;                 /* an undo record whose checksum fails */
        blk_ctx c;
        memset(&c, 0, sizeof c);
        c.chain = &chain;
        c.items = items;
        c.max_delay_us = 200;
        bk_engine_opts o;
        bk_engine_opts_init(&o);
        o.chain = &chain;
        o.dir = &dir;
        o.items = items;
        o.n_items = n;
        o.read_flags = BK_READ_UNDO;
        o.run.workers = 3;
        o.block = blk_block;
        o.consume = blk_consume;
        o.ctx = &c;
        bk_engine_result r;
        bk_error err;
        bk_error_clear(&err);
        bk_status st = bk_engine_run(&o, &r, &err);
        CHECK(st != BK_OK);
        CHECK_EQ_INT(r.run.failure, BK_ORDERED_WORK);
        CHECK_EQ_INT(r.run.consumed, bad_h);
        CHECK_EQ_INT(c.blocks, bad_h);
        CHECK(!c.bad_order);
        CHECK_EQ_INT(r.where.height, bad_h);
        CHECK_EQ_INT(r.where.item, bad_h);
        CHECK_MEM(r.where.hash, saved.hash, 32);
        char hex[65], want[200], msg[1024];
        bk_hex_encode_rev(hex, saved.hash, 32);
        hex[64] = 0;
        bk_engine_error_format(&r.where, &err, msg, sizeof msg);
        printf("kind %d: %s\n", kind, msg);
        if (kind == 0) {
            CHECK_EQ_INT(r.where.stage, BK_STAGE_DECODE);
            CHECK_EQ_INT(r.where.kind, BK_FILE_BLK);
            CHECK_EQ_INT(r.where.file, saved.file);
            CHECK_EQ_INT(r.where.file_offset, saved.offset + 1);
            snprintf(want, sizeof want, "block at height 100 (%s): ", hex);
            CHECK(strncmp(msg, want, strlen(want)) == 0);
            snprintf(want, sizeof want, "(blk%05u.dat offset %llu)", saved.file, (unsigned long long)saved.offset + 1);
            CHECK(strstr(msg, want) != NULL);
        } else if (kind == 1) {
            CHECK_EQ_INT(st, BK_ERR_IO);
            CHECK_EQ_INT(r.where.stage, BK_STAGE_READ);
            CHECK_EQ_INT(r.where.file, 99999);
            snprintf(want, sizeof want, "block at height 333 (%s): ", hex);
            CHECK(strncmp(msg, want, strlen(want)) == 0);
            CHECK(strstr(msg, "blk99999.dat") != NULL);
        } else {
            CHECK_EQ_INT(st, BK_ERR_CHECKSUM);
            CHECK_EQ_INT(r.where.stage, BK_STAGE_UNDO_CHECKSUM);
            CHECK_EQ_INT(r.where.kind, BK_FILE_REV);
            CHECK_EQ_INT(r.where.file, saved.undo_file);
            CHECK_EQ_INT(r.where.file_offset, saved.undo_offset + 1);
            snprintf(want, sizeof want, "undo of block at height 500 (%s): ", hex);
            CHECK(strncmp(msg, want, strlen(want)) == 0);
        }
        *e = saved;
    }
    /* an item that is not a chain entry, a task past the list */
    bk_engine_opts o;
    bk_engine_opts_init(&o);
    bk_engine_item bad = {(uint32_t)chain.n_entries, 0, 0};
    o.chain = &chain;
    o.dir = &dir;
    o.items = &bad;
    o.n_items = 1;
    o.block = blk_block;
    bk_error err;
    CHECK_EQ_INT(bk_engine_run(&o, NULL, &err), BK_ERR_ARG);
    bk_engine_task t = {0, 2};
    blk_ctx c;
    memset(&c, 0, sizeof c);
    c.chain = &chain;
    c.items = items;
    o.ctx = &c;
    o.items = items;
    o.n_items = n;
    o.tasks = &t;
    o.n_tasks = 1;
    CHECK_EQ_INT(bk_engine_run(&o, NULL, &err), BK_OK);
    t.first = n - 1;
    CHECK_EQ_INT(bk_engine_run(&o, NULL, &err), BK_ERR_ARG);
    regtest_close(items, &chain, &dir);
}

/* BK_READ_UNDO_RAW: the callback gets the undo record's bytes and its
 * checksum, verified, unparsed (undo NULL); what they parse to matches the
 * block, and a callback that marks its failure as the undo's is reported
 * at the rev file position, as a parse failure of the engine's own. */
typedef struct raw_ctx {
    int bad;
    size_t blocks;
    int64_t fail_h;     /* fail at this height (-1: never) */
    int mark;           /* and set *undo_stage */
} raw_ctx;

static bk_status raw_block(void *vctx, int worker, const bk_engine_block *b, bk_writer *out, bk_error *err)
{
    raw_ctx *c = vctx;
    (void)worker;
    (void)out;
    if (b->undo || !b->undo_stage) c->bad = 1;
    if (b->height == 0 && (b->undo_data || b->undo_checksum)) c->bad = 1;
    if (b->height > 0) {
        bk_block_undo u;
        if (!b->undo_data || !b->undo_checksum || b->undo_size != b->entry->undo_size ||
            bk_undo_checksum_verify(b->undo_data, b->undo_size, b->block->header.prev_hash, b->undo_checksum, NULL) !=
                BK_OK ||
            bk_block_undo_parse(b->undo_data, b->undo_size, &u, NULL) != BK_OK ||
            bk_block_undo_check(&u, b->block, NULL) != BK_OK)
            c->bad = 1;
    }
    if (b->height == c->fail_h) {
        if (c->mark) *b->undo_stage = BK_STAGE_UNDO_DECODE;
        return bk_error_set(err, BK_ERR_TRAILING, 7, "made-up undo failure");
    }
    __atomic_fetch_add(&c->blocks, 1, __ATOMIC_RELAXED);
    return BK_OK;
}

static void test_regtest_raw_undo(void)
{
    bk_chain chain;
    bk_blocksdir dir;
    size_t n;
    bk_engine_item *items = regtest_open(&chain, &dir, &n);
    if (!items) return;
    for (int mode = 0; mode < 3; mode++) {
        raw_ctx c;
        memset(&c, 0, sizeof c);
        c.fail_h = mode == 0 ? -1 : 500;
        c.mark = mode == 1;
        bk_engine_opts o;
        bk_engine_opts_init(&o);
        o.chain = &chain;
        o.dir = &dir;
        o.items = items;
        o.n_items = n;
        o.read_flags = BK_READ_UNDO | BK_READ_UNDO_RAW;
        o.run.workers = 2;
        o.block = raw_block;
        o.ctx = &c;
        bk_engine_result r;
        bk_error err;
        bk_error_clear(&err);
        bk_status st = bk_engine_run(&o, &r, &err);
        CHECK(!c.bad);
        if (mode == 0) {
            CHECK_EQ_INT(st, BK_OK);
            CHECK_EQ_INT(c.blocks, n);
            continue;
        }
        const bk_chain_entry *e = &chain.entries[items[500].entry];
        CHECK_EQ_INT(st, BK_ERR_TRAILING);
        CHECK_EQ_INT(r.run.consumed, 500);
        CHECK_EQ_INT(r.where.height, 500);
        CHECK_EQ_INT(err.offset, 7);
        char msg[1024], want[300], hex[65];
        bk_hex_encode_rev(hex, e->hash, 32);
        hex[64] = 0;
        bk_engine_error_format(&r.where, &err, msg, sizeof msg);
        if (mode == 1) {
            CHECK_EQ_INT(r.where.stage, BK_STAGE_UNDO_DECODE);
            CHECK_EQ_INT(r.where.kind, BK_FILE_REV);
            CHECK_EQ_INT(r.where.file, e->undo_file);
            CHECK_EQ_INT(r.where.file_offset, e->undo_offset);
            snprintf(want, sizeof want, "undo of block at height 500 (%s): made-up undo failure at byte 7 (rev%05u.dat offset %llu)",
                     hex, e->undo_file, (unsigned long long)e->undo_offset);
        } else {
            CHECK_EQ_INT(r.where.stage, BK_STAGE_WORK);
            CHECK_EQ_INT(r.where.kind, BK_FILE_BLK);
            snprintf(want, sizeof want, "block at height 500 (%s): made-up undo failure", hex);
        }
        CHECK_EQ_STR(msg, want);
    }
    regtest_close(items, &chain, &dir);
}

int main(void)
{
    RUN(test_order_and_window);
    RUN(test_errors);
    RUN(test_cancel);
    RUN(test_regtest_blocks);
    RUN(test_regtest_errors);
    RUN(test_regtest_raw_undo);
    return check_finish();
}
