/* bk_scan_run (blockkit/scan.h; docs/scan.md, docs/engine.md).
 *
 * 1. The chain: the caller's, or bk_chain_build_opts over the blocks
 *    directory (every blk header, rev records paired with their blocks;
 *    files read with pread one at a time, never mapped, locked or written;
 *    cancelled by *stop).
 * 2. The jobs: best-chain entries from start to end, pruned ranges skipped
 *    (then, with orphans, disconnected blocks ordered by their BIP34
 *    height). At verbosity >= 2 the list stops before the first block that
 *    needs undo data and has none (unless allow_missing_undo).
 * 3. The render: the ordered block engine (blockkit/engine.h). Each worker
 *    owns a block reader and txid / merkle buffers: nothing is shared but
 *    the read-only chain, and after the largest block nothing is
 *    allocated, so memory does not grow with the files read.
 * 4. The consume: each line to the caller's sink, in job order, on the
 *    calling thread; progress after it. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/engine.h>
#include <blockkit/hex.h>
#include <blockkit/json.h>
#include <blockkit/merkle.h>
#include <blockkit/scan.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Filled by the worker, read by the consumer after the slot is done. */
typedef struct scan_done {
    uint32_t n_tx;
    int has_undo;
    int64_t fee;
} scan_done;

typedef struct scan_worker {
    uint8_t *ids;
    size_t ids_cap;
    uint8_t *scratch;
    size_t scratch_cap;
} scan_worker;

typedef struct scan_engine {
    const bk_scan_opts *o;
    bk_blocksdir dir;
    bk_chain own_chain;       /* built here when o->chain is NULL */
    const bk_chain *chain;
    bk_engine_item *jobs;
    size_t njobs, cap;
    scan_done *done;
    uint64_t bytes_total;     /* block bytes of all jobs */
    scan_worker *workers;
    int nworkers;
    bk_scan_stats *st;
    struct timespec t0;
    size_t emitted;           /* jobs the sink took */
    bk_error sink_err;
    int sink_failed;
} scan_engine;

static double now_diff(struct timespec a, struct timespec b)
{
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

static void note(const scan_engine *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const scan_engine *E, const char *fmt, ...)
{
    if (!E->o->note || E->o->quiet) return;
    char m[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    E->o->note(E->o->note_ctx, m);
}

/* bk_engine_chain_items' pruned runs, as notes. */
static void skipped_note(void *ctx, int64_t first, int64_t last)
{
    scan_engine *E = ctx;
    note(E, "heights %lld-%lld skipped: no block data on this node (%s)", (long long)first, (long long)last,
         E->chain->n_missing ? "pruned, or its blk file is missing" : "pruned");
}

static void *zalloc(const bk_allocator *a, size_t n)
{
    void *p = bk_alloc(a, n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

void bk_scan_opts_init(bk_scan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->net = BK_NET_MAIN;
    o->end = -1;
    o->end_below_tip = -1;
    o->verbosity = 1;
    o->core_version = BK_CORE_NEWEST;
    o->workers = 1;
    o->max_memory = (size_t)1024 << 20;
    o->progress = BK_SCAN_PROGRESS_NEVER;
}

/* One block as a line of JSON into w; errors name the block's height and
 * hash by the engine (bk_engine_error_format). */
static bk_status scan_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *w, bk_error *err)
{
    scan_engine *E = vctx;
    const bk_scan_opts *o = E->o;
    scan_worker *W = &E->workers[worker];
    scan_done *done = &E->done[eb->item];
    const bk_chain_entry *e = eb->entry;
    char where[128];
    snprintf(where, sizeof where, "blk%05u.dat offset %llu", e->file, (unsigned long long)e->offset);
    const bk_block *bp = eb->block;
    if (!bp) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no block data (%s)", where);
    const bk_block b = *bp;
    done->n_tx = b.n_tx;
    bk_error e2;
    bk_error_clear(&e2);

    if (o->verify_merkle) {
        if (bk_grow(o->alloc, &W->scratch, &W->scratch_cap, bk_block_merkle_scratch_size(b.n_tx)))
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        bk_block_merkle_result mr;
        if (bk_block_merkle(&b, W->scratch, W->scratch_cap, &mr, &e2) != BK_OK)
            return bk_error_set(err, BK_ERR_MISMATCH, e2.offset, "%s", e2.msg);
        /* Core: CheckMerkleRoot ("bad-txnmrklroot", "bad-txns-duplicate")
         * and CheckWitnessMalleation (validation.cpp). */
        const char *why = NULL;
        if (!mr.header_match) why = "merkle root does not match the header (bad-txnmrklroot)";
        else if (mr.mutated) why = "merkle tree is mutated by a duplicate (bad-txns-duplicate)";
        else if (mr.witness_commitment == BK_WITNESS_COMMITMENT_MISMATCH)
            why = "witness commitment does not match (bad-witness-merkle-match)";
        else if (mr.witness_commitment == BK_WITNESS_COMMITMENT_BAD_NONCE)
            why = "coinbase witness is not one 32-byte item (bad-witness-nonce-size)";
        else if (mr.witness_commitment == BK_WITNESS_COMMITMENT_ABSENT && mr.has_witness)
            why = "witness data without a commitment (unexpected-witness)";
        if (why) return bk_error_set(err, BK_ERR_MISMATCH, 0, "%s (%s)", why, where);
    }

    bk_chain_context ctx;
    if (eb->orphan) {
        /* What `blockkit block` gives a lone block (docs/scan.md). */
        bk_chain_context_standalone(&ctx, &b, o->net, eb->height);
    } else if (bk_chain_context_fill(E->chain, e, &ctx, &e2) != BK_OK) {
        return bk_error_set(err, e2.status, 0, "%s", e2.msg);
    }

    /* The engine read the undo record (verbosity >= 2) and verified its
     * checksum when the chain came from Core's block index (bk_json_block
     * checks its shape against the block). */
    const bk_block_undo *undop = eb->undo;
    done->has_undo = undop != NULL;
    if (undop && o->fees) done->fee = bk_block_fees(&b, undop);

    bk_block_json_opts jo;
    bk_block_json_opts_init(&jo);
    jo.verbosity = o->verbosity;
    jo.core_version = o->core_version;
    jo.hash = e->hash;
    if (o->verbosity >= 1) {
        if (bk_grow(o->alloc, &W->ids, &W->ids_cap, (size_t)b.n_tx * 64))
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        if (o->verbosity >= 2) {
            bk_block_txids_wtxids(&b, W->ids, W->ids + 32 * (size_t)b.n_tx);
            jo.wtxids = W->ids + 32 * (size_t)b.n_tx;
        } else {
            bk_block_txids(&b, W->ids);
        }
        jo.txids = W->ids;
    }
    bk_json j;
    bk_json_init(&j, w, (unsigned)o->indent);
    if (o->verbosity == 0 && o->indent) {
        /* bitcoin-cli prints a string result bare, as `blockkit block --pretty`. */
        uint8_t *sp = bk_writer_space(w, 2 * b.size);
        if (sp) {
            bk_hex_encode((char *)sp, b.data, b.size);
            bk_writer_commit(w, 2 * b.size);
        }
    } else if (bk_json_block(&j, &b, undop, &ctx, &jo, &e2) != BK_OK) {
        return bk_error_set(err, e2.status, e2.offset, "%s at byte %llu (%s)", e2.msg, (unsigned long long)e2.offset,
                            where);
    }
    bk_writer_putc(w, '\n');
    if (bk_writer_status(w) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;
}

static void report(scan_engine *E, int final)
{
    const bk_scan_opts *o = E->o;
    if (!o->on_progress) return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    bk_scan_report r;
    r.height = E->st->last_height;
    r.blocks_done = E->st->blocks;
    r.blocks_total = E->njobs;
    r.bytes_done = E->st->bytes_in;
    r.bytes_total = E->bytes_total;
    r.seconds = now_diff(E->t0, t);
    r.final = final;
    o->on_progress(o->progress_ctx, &r);
}

static bk_status scan_consume(void *vctx, size_t jobn, const uint8_t *data, size_t len, bk_error *err)
{
    scan_engine *E = vctx;
    const bk_engine_item *job = &E->jobs[jobn];
    const scan_done *done = &E->done[jobn];
    const bk_chain_entry *e = &E->chain->entries[job->entry];
    bk_scan_line line = {data, len, job->height, e->hash, done->n_tx, job->orphan};
    bk_error_clear(&E->sink_err);
    bk_status s = E->o->sink(E->o->sink_ctx, &line, &E->sink_err);
    if (s != BK_OK) {
        E->sink_failed = 1;
        if (E->sink_err.status == BK_OK) bk_error_set(&E->sink_err, s, 0, "the sink refused the line");
        return bk_error_set(err, s, 0, "%s", E->sink_err.msg);
    }
    bk_scan_stats *st = E->st;
    if (st->blocks == 0) st->first_height = job->height;
    st->blocks++;
    st->last_height = job->height;
    st->txs += done->n_tx;
    st->bytes_in += e->size;
    st->bytes_out += len;
    if (done->has_undo) {
        st->fees += done->fee;
        st->blocks_with_undo++;
    }
    E->emitted = jobn + 1;
    report(E, 0);
    return BK_OK;
}

/* JSON bytes per block byte, measured on real blocks (docs/scan.md):
 * verbosity 0 is hex (2x), 1 the txids (0.1-0.2x), 2 5.7-7.2x, 3 8.5-8.9x
 * (blocks 277647, 367891, 866342); rounded up. */
static size_t json_estimate(int verbosity, size_t block_bytes, int indent)
{
    static const double factor[4] = {2.05, 0.5, 8.0, 11.0};
    double f = factor[verbosity < 0 ? 0 : verbosity > 3 ? 3 : verbosity];
    if (indent) f *= 1.6;
    return (size_t)(f * (double)block_bytes) + 4096;
}

static bk_status fail(bk_scan_stats *st, bk_scan_failure why, bk_error *err, bk_status s, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static bk_status fail(bk_scan_stats *st, bk_scan_failure why, bk_error *err, bk_status s, const char *fmt, ...)
{
    st->failure = why;
    char m[BK_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return bk_error_set(err, s, 0, "%s", m);
}

/* The jobs: the best chain from start to end (pruned ranges skipped, one
 * note per range), then the orphans. */
static bk_status plan(scan_engine *E, bk_error *err)
{
    const bk_scan_opts *o = E->o;
    bk_scan_stats *st = E->st;
    const bk_chain *c = E->chain;
    const bk_chain_entry *tip = bk_chain_tip(c);
    int64_t tip_h = tip ? tip->height : -1;
    int64_t start = o->start;
    if (o->resume_after) {
        const bk_chain_entry *last = bk_chain_find(c, o->resume_after);
        char hex[65];
        bk_hash_to_hex(hex, o->resume_after);
        if (!last || !last->active) {
            st->resume_found = last != NULL;
            return fail(st, BK_SCAN_FAIL_RESUME_BLOCK, err, BK_ERR_MISMATCH, "the output ends with block %s, which is %s",
                        hex, last ? "not on the best chain" : "not in these blk files");
        }
        if (o->start_given && o->start != (int64_t)last->height + 1) {
            st->resume_height = (int64_t)last->height + 1;
            return fail(st, BK_SCAN_FAIL_RESUME_START, err, BK_ERR_ARG,
                        "the output ends at height %lld, so it continues at %lld, not at start %lld",
                        (long long)last->height, (long long)last->height + 1, (long long)o->start);
        }
        start = (int64_t)last->height + 1;
    }
    st->resume_height = start;
    int64_t end = bk_engine_range_end(tip_h, o->end_below_tip >= 0 ? -1 : o->end, o->end_below_tip);
    if (tip && start <= end) {
        const bk_chain_entry *first = bk_chain_at_height(c, start);
        if (o->start_given && first && first->no_data)
            return fail(st, BK_SCAN_FAIL_PRUNED_START, err, BK_ERR_NOT_FOUND,
                        "height %lld has no block data on this node (pruned); the lowest available height is %d",
                        (long long)start, (int)c->prune_height);
        bk_error e2;
        if (bk_engine_chain_items(c, start, end, 0, &E->jobs, &E->njobs, &E->cap, skipped_note, E, o->alloc, &e2) != BK_OK)
            return fail(st, BK_SCAN_FAIL_NOMEM, err, BK_ERR_NOMEM, "out of memory");
    }
    if (o->orphans && c->n_orphans) {
        uint64_t no_height = 0;
        bk_error e2;
        bk_error_clear(&e2);
        if (bk_engine_add_orphans(c, &E->dir, start, o->end_below_tip >= 0 ? (tip ? end : -1) : o->end, &E->jobs,
                                  &E->njobs, &E->cap, &no_height, o->alloc, &e2) != BK_OK)
            return fail(st, BK_SCAN_FAIL_ORPHANS, err, e2.status, "%s", e2.msg);
        if (no_height)
            note(E, "%llu orphan block(s) without a BIP34 height skipped", (unsigned long long)no_height);
    }
    if (!o->orphans && c->n_orphans)
        note(E, "note: %llu block(s) do not connect to a genesis block (pruned or partial directory?); --orphans "
                "renders them by their BIP34 height", (unsigned long long)c->n_orphans);
    return BK_OK;
}

bk_status bk_scan_run(const bk_scan_opts *o, bk_scan_stats *stats_out, bk_error *err)
{
    scan_engine E;
    bk_scan_stats st;
    memset(&E, 0, sizeof E);
    memset(&st, 0, sizeof st);
    st.first_height = st.last_height = -1;
    st.resume_height = -1;
    st.missing_height = -1;
    E.o = o;
    E.st = &st;
    bk_status rs = BK_OK;
    int dir_open = 0;
    struct timespec tc0, tc1;
    clock_gettime(CLOCK_MONOTONIC, &tc0);

    if (!o->sink || !o->blocksdir || o->verbosity < 0 || o->verbosity > 3 || o->workers < 1 || o->start < 0 ||
        (o->end >= 0 && o->end < o->start) || (o->indent != 0 && o->indent != 2)) {
        rs = fail(&st, BK_SCAN_FAIL_ARG, err, BK_ERR_ARG,
                  "bad options (a sink and a blocks directory; verbosity 0-3, workers >= 1, 0 <= start <= end)");
        goto out;
    }
    bk_error e2;
    bk_error_clear(&e2);
    if (bk_blocksdir_open(&E.dir, o->blocksdir, o->net, NULL, &e2) != BK_OK) {
        st.failure = BK_SCAN_FAIL_DIR;
        if (err) *err = e2;
        rs = e2.status;
        goto out;
    }
    dir_open = 1;
    if (o->chain) {
        E.chain = o->chain;
    } else {
        bk_chain_opts copts;
        memset(&copts, 0, sizeof copts);
        copts.cancel = o->stop;
        if (bk_chain_build_opts(&E.own_chain, &E.dir, &copts, NULL, &e2) != BK_OK) {
            st.resume_height = o->start;
            if (e2.status == BK_ERR_CANCELLED) {
                st.failure = BK_SCAN_FAIL_CANCELLED;
                st.chain_cancelled = 1;
            } else {
                st.failure = BK_SCAN_FAIL_CHAIN;
            }
            if (err) *err = e2;
            rs = e2.status;
            goto out;
        }
        E.chain = &E.own_chain;
        if (!bk_chain_tip(E.chain) && !(o->orphans && E.chain->n_orphans)) {
            rs = fail(&st, BK_SCAN_FAIL_CHAIN, err, BK_ERR_NOT_FOUND,
                      "%s: no block of this network connected to a genesis block (%llu blocks read)", o->blocksdir,
                      (unsigned long long)E.chain->n_entries);
            goto out;
        }
        clock_gettime(CLOCK_MONOTONIC, &tc1);
        st.chain_seconds = now_diff(tc0, tc1);
    }

    E.nworkers = o->workers;
    E.workers = zalloc(o->alloc, (size_t)E.nworkers * sizeof *E.workers);
    if (!E.workers) {
        rs = fail(&st, BK_SCAN_FAIL_NOMEM, err, BK_ERR_NOMEM, "out of memory");
        goto out;
    }
    rs = plan(&E, err);
    if (rs != BK_OK) goto out;

    /* Undo: a block with inputs needs its rev record at verbosity >= 2. */
    size_t missing_at = E.njobs;
    if (o->verbosity >= 2) {
        uint64_t reported = 0;
        for (size_t i = 0; i < E.njobs; i++) {
            const bk_chain_entry *e = &E.chain->entries[E.jobs[i].entry];
            if (e->has_undo || e->n_tx <= 1) continue;
            if (!o->allow_missing_undo) {
                missing_at = i;
                break;
            }
            st.missing_undo++;
            if (reported++ < 10) {
                char hex[65];
                bk_hash_to_hex(hex, e->hash);
                note(&E, "height %lld (%s): no undo data in rev*.dat; rendered without fee and prevout",
                     (long long)E.jobs[i].height, hex);
            }
        }
        if (reported > 10) note(&E, "%llu blocks in all rendered without undo data", (unsigned long long)reported);
    }
    size_t njobs_all = E.njobs;
    E.njobs = missing_at;

    /* Window: per worker about 3x the largest block (block, undo, txids,
     * decoder table); per slot the JSON estimate of the largest block. */
    size_t max_block = 0;
    for (size_t i = 0; i < E.njobs; i++) {
        size_t s = E.chain->entries[E.jobs[i].entry].size;
        if (s > max_block) max_block = s;
        E.bytes_total += s;
    }
    /* A slot's writer grows by doubling: up to twice the JSON it holds. */
    size_t per_worker = 3 * max_block + 65536, per_slot = 2 * json_estimate(o->verbosity, max_block, o->indent);
    int nw = E.nworkers;
    while (nw > 1 && (size_t)nw * (per_worker + per_slot) > o->max_memory) nw--;
    if ((size_t)nw * (per_worker + per_slot) > o->max_memory) {
        st.need_bytes = per_worker + per_slot;
        st.max_block = max_block;
        rs = fail(&st, BK_SCAN_FAIL_MEMORY, err, BK_ERR_ARG,
                  "a memory bound of %zu MB is too small: one worker needs about %zu MB for the largest block "
                  "(%zu bytes)", o->max_memory >> 20, (per_worker + per_slot + (1 << 20) - 1) >> 20, max_block);
        goto out;
    }
    if (nw < E.nworkers) note(&E, "-j lowered to %d to stay within --max-memory", nw);
    size_t window = (o->max_memory - (size_t)nw * per_worker) / per_slot;
    if (window > 2 * (size_t)nw + 1) window = 2 * (size_t)nw + 1;
    if (window < (size_t)nw) window = (size_t)nw;
    st.workers = nw;
    st.window = window;
    E.done = zalloc(o->alloc, E.njobs * sizeof *E.done);
    if (!E.done) {
        rs = fail(&st, BK_SCAN_FAIL_NOMEM, err, BK_ERR_NOMEM, "out of memory");
        goto out;
    }

    clock_gettime(CLOCK_MONOTONIC, &E.t0);
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = E.chain;
    eo.dir = &E.dir;
    eo.items = E.jobs;
    eo.n_items = E.njobs;
    eo.read_flags = o->verbosity >= 2 ? BK_READ_UNDO : 0;
    eo.run.workers = nw;
    eo.run.window = window;
    eo.run.shrink_above = per_slot;
    eo.run.cancel = o->stop;
    eo.run.alloc = o->alloc;
    eo.run.slot_reserve = per_slot / 2;
    eo.block = scan_block;
    eo.consume = scan_consume;
    eo.ctx = &E;
    bk_engine_result er;
    bk_error rerr;
    bk_error_clear(&rerr);
    bk_status es = bk_engine_run(&eo, &er, &rerr);
    st.peak_slot_bytes = er.run.peak_slot_bytes;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st.seconds = now_diff(E.t0, t1);
    if (st.blocks) report(&E, 1);
    st.resume_height = E.emitted < E.njobs ? E.jobs[E.emitted].height : -1;

    if (er.run.failure == BK_ORDERED_CONSUME && E.sink_failed) {
        st.failure = BK_SCAN_FAIL_SINK;
        if (err) *err = E.sink_err;
        rs = E.sink_err.status;
    } else if (es == BK_ERR_CANCELLED) {
        st.failure = BK_SCAN_FAIL_CANCELLED;
        rs = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
    } else if (es != BK_OK) {
        /* The failing job is the first one not handed over; the engine
         * names its height, hash and file position. */
        st.failure = BK_SCAN_FAIL_RENDER;
        st.where = er.where;
        if (err) *err = rerr;
        rs = es;
    } else if (missing_at < njobs_all) {
        const bk_engine_item *j = &E.jobs[missing_at];
        char hex[65];
        bk_hash_to_hex(hex, E.chain->entries[j->entry].hash);
        st.resume_height = j->height;
        st.missing_height = j->height;
        memcpy(st.missing_hash, E.chain->entries[j->entry].hash, 32);
        rs = fail(&st, BK_SCAN_FAIL_MISSING_UNDO, err, BK_ERR_NOT_FOUND,
                  "block at height %lld (%s) has no undo data in rev*.dat", (long long)j->height, hex);
    }

out:
    if (E.workers) {
        for (int i = 0; i < E.nworkers; i++) {
            scan_worker *W = &E.workers[i];
            bk_free(o->alloc, W->ids, W->ids_cap);
            bk_free(o->alloc, W->scratch, W->scratch_cap);
        }
        bk_free(o->alloc, E.workers, (size_t)E.nworkers * sizeof *E.workers);
    }
    bk_free(o->alloc, E.jobs, E.cap * sizeof *E.jobs);
    bk_free(o->alloc, E.done, E.njobs ? E.njobs * sizeof *E.done : 1);
    if (E.chain == &E.own_chain) bk_chain_free(&E.own_chain);
    if (dir_open) bk_blocksdir_close(&E.dir);
    if (stats_out) *stats_out = st;
    return rs;
}
