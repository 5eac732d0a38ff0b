/* The engine of `blockkit scan` (see scan_engine.h and docs/scan.md).
 *
 * 1. The chain: bk_chain_build_opts over the blocks directory (every blk
 *    header, rev records paired with their blocks; files read with pread
 *    one at a time, never mapped, locked or written; cancelled by *stop).
 * 2. The jobs: best-chain entries from --start to --end (then, with
 *    --orphans, disconnected blocks ordered by their BIP34 height). At
 *    verbosity >= 2 the list stops before the first block that needs undo
 *    data and has none (unless --allow-missing-undo).
 * 3. The render: the library's ordered block engine (blockkit/engine.h).
 *    Each worker owns a block reader (pread of the block and its undo into
 *    its own buffers, de-obfuscated there with xor.dat's key, decoded) and
 *    txid / merkle buffers: nothing is shared but the read-only chain, and
 *    after the largest block nothing is allocated, so memory does not grow
 *    with the files read.
 * 4. The consume: one write(2) per block, in job order, on the calling
 *    thread (write_line: a line cut short by an error is truncated away). */
#define _POSIX_C_SOURCE 200809L
#include "scan_engine.h"

#include "cli.h"
#include <blockkit/engine.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SCAN_PIPE_CLOSED 1  /* write_line: a closed output pipe */
#define SCAN_WRITE_FAILED 2 /* write_line: a write error (E.werr) */
#define ERRMSG_MAX 4608

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
    bk_chain chain;
    bk_engine_item *jobs;
    scan_done *done;
    size_t njobs;
    uint64_t *bytes_before; /* block bytes of jobs [0, i) for the ETA */
    scan_worker *workers;
    int nworkers;
    bk_scan_stats *st;
    int progress;
    struct timespec t0, last_progress;
    size_t emitted;   /* jobs whose lines are complete in the output */
    int out_fd;       /* the output's descriptor (lines go out with write(2)), or -1: stdio */
    int out_regular;  /* a regular file: a line cut short by an error is truncated away */
    int werr;         /* errno of a failed write */
    int write_rc;     /* SCAN_PIPE_CLOSED / SCAN_WRITE_FAILED from the consumer */
} scan_engine;

static double now_diff(struct timespec a, struct timespec b)
{
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

static void hash_hex(char out[65], const uint8_t h[32])
{
    bk_hex_encode_rev(out, h, 32);
    out[64] = 0;
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
    o->out = stdout;
}

/* Exit code of a failure (cli.h). */
static int fail_code(bk_status st)
{
    return st == BK_ERR_IO ? BK_EXIT_IO : st == BK_ERR_NOMEM ? BK_EXIT_SOFTWARE : BK_EXIT_DATA;
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
    } else if (bk_chain_context_fill(&E->chain, e, &ctx, &e2) != BK_OK) {
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

static void print_progress(scan_engine *E, int final)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (!final && now_diff(E->last_progress, t) < 0.25) return;
    E->last_progress = t;
    double s = now_diff(E->t0, t);
    const bk_scan_stats *st = E->st;
    double bps = s > 0 ? (double)st->blocks / s : 0, mbps = s > 0 ? (double)st->bytes_in / s / 1e6 : 0;
    uint64_t left = E->bytes_before[E->njobs] - E->bytes_before[E->emitted];
    double eta = mbps > 0 ? (double)left / 1e6 / mbps : 0;
    fprintf(stderr, "\rheight %lld  %llu/%zu blocks  %.1f blocks/s  %.1f MB/s  ETA %02d:%02d:%02d ",
            (long long)st->last_height, (unsigned long long)st->blocks, E->njobs, bps, mbps, (int)(eta / 3600),
            (int)(eta / 60) % 60, (int)eta % 60);
    if (final) fputc('\n', stderr);
    fflush(stderr);
}

/* One whole line to the output. Lines go straight to the descriptor, so
 * every line counted in E->emitted is in the file (no stdio buffer to lose
 * on a full disk); a write that fails part way through a line to a regular
 * file is cut back to the end of the previous line. */
static int write_line(scan_engine *E, const uint8_t *data, size_t len)
{
    if (E->out_fd < 0) {
        if (bk_cli_write_all(E->o->out, data, len) != 0 || fflush(E->o->out) != 0) {
            E->werr = bk_cli_write_errno ? bk_cli_write_errno : errno ? errno : EIO;
            if (bk_cli_output_gone(E->o->out, errno)) bk_cli_pipe_closed = 1;
            return bk_cli_pipe_closed ? SCAN_PIPE_CLOSED : SCAN_WRITE_FAILED;
        }
        return bk_cli_pipe_closed ? SCAN_PIPE_CLOSED : 0;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t r = write(E->out_fd, data + done, len - done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            if (bk_cli_output_gone(E->o->out, e)) {
                bk_cli_pipe_closed = 1;
                return SCAN_PIPE_CLOSED;
            }
            E->werr = e;
            if (done && E->out_regular) {
                off_t pos = lseek(E->out_fd, 0, SEEK_CUR);
                if (pos >= (off_t)done && ftruncate(E->out_fd, pos - (off_t)done) == 0)
                    (void)lseek(E->out_fd, pos - (off_t)done, SEEK_SET);
            }
            return SCAN_WRITE_FAILED;
        }
        done += (size_t)r;
    }
    return 0;
}

static bk_status scan_consume(void *vctx, size_t jobn, const uint8_t *data, size_t len, bk_error *err)
{
    scan_engine *E = vctx;
    const bk_engine_item *job = &E->jobs[jobn];
    const scan_done *done = &E->done[jobn];
    int rc = write_line(E, data, len);
    if (rc) {
        E->write_rc = rc;
        return bk_error_set(err, BK_ERR_IO, 0, "write error");
    }
    bk_scan_stats *st = E->st;
    if (st->blocks == 0) st->first_height = job->height;
    st->blocks++;
    st->last_height = job->height;
    st->txs += done->n_tx;
    st->bytes_in += E->chain.entries[job->entry].size;
    st->bytes_out += len;
    if (done->has_undo) {
        st->fees += done->fee;
        st->blocks_with_undo++;
    }
    E->emitted = jobn + 1;
    if (E->progress) print_progress(E, 0);
    return BK_OK;
}

/* The exit status after a stop request: 128 + the signal's number. */
static int stop_code(const bk_scan_opts *o)
{
    int sig = o->stop ? (int)*o->stop : 0;
    return 128 + (sig > 0 && sig < 64 ? sig : 2);
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

int bk_scan_run(const bk_scan_opts *o, bk_scan_stats *stats_out)
{
    const char *cmd = "scan";
    scan_engine E;
    bk_scan_stats st;
    memset(&E, 0, sizeof E);
    memset(&st, 0, sizeof st);
    st.first_height = st.last_height = -1;
    st.resume_height = -1;
    E.o = o;
    E.st = &st;
    int rc = 0;
    size_t cap = 0; /* of E.jobs */
    bk_error err;
    bk_error_clear(&err);
    struct timespec tc0, tc1;
    clock_gettime(CLOCK_MONOTONIC, &tc0);

    if (o->verbosity < 0 || o->verbosity > 3 || o->workers < 1 || o->start < 0 ||
        (o->end >= 0 && o->end < o->start)) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "bad options (verbosity 0-3, -j >= 1, 0 <= --start <= --end)");
        goto out_nodir;
    }
    if (bk_blocksdir_open(&E.dir, o->blocksdir, o->net, NULL, &err) != BK_OK) {
        rc = bk_cli_report(cmd, &err);
        goto out_nodir;
    }
    if (o->src) {
        /* Core's block index or the header scan (cli/source.c; it checks a
         * header scan for another network's files or nothing connected). */
        rc = bk_cli_source_build(cmd, o->src, o->net, o->stop, o->quiet, &E.chain);
        if (rc && o->stop && *o->stop) {
            st.resume_height = o->start;
            fprintf(stderr, "blockkit: scan: interrupted while building the chain, before the first block; "
                            "resume with --start %lld\n", (long long)o->start);
            rc = stop_code(o);
        }
        if (rc) goto out_nochain;
    } else {
        bk_chain_opts copts;
        memset(&copts, 0, sizeof copts);
        copts.cancel = o->stop;
        if (bk_chain_build_opts(&E.chain, &E.dir, &copts, NULL, &err) != BK_OK) {
            if (err.status == BK_ERR_CANCELLED) {
                st.resume_height = o->start;
                fprintf(stderr, "blockkit: scan: interrupted while building the chain, before the first block; "
                                "resume with --start %lld\n", (long long)o->start);
                rc = stop_code(o);
            } else {
                rc = bk_cli_report(cmd, &err);
            }
            goto out_nochain;
        }
        rc = bk_cli_check_chain(cmd, &E.dir, &E.chain, o->orphans);
        if (rc) goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &tc1);
    st.chain_seconds = now_diff(tc0, tc1);

    E.nworkers = o->workers;
    E.workers = calloc((size_t)E.nworkers, sizeof *E.workers);
    if (!E.workers) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto out;
    }

    /* Jobs: the best chain from start to end. */
    const bk_chain_entry *tip = bk_chain_tip(&E.chain);
    int64_t tip_h = tip ? tip->height : -1;
    int64_t start = o->start;
    if (o->resume_after) {
        const bk_chain_entry *last = bk_chain_find(&E.chain, o->resume_after);
        char hex[65];
        hash_hex(hex, o->resume_after);
        if (!last || !last->active) {
            rc = bk_cli_fail(cmd, BK_EXIT_DATA,
                             "--resume: %s ends with block %s, which is %s; cannot continue it (a reorg? start "
                             "a new file, or --force to overwrite)", bk_cli_output_name(o->out_path), hex,
                             last ? "not on the best chain" : "not in these blk files");
            goto out;
        }
        if (o->start_given && o->start != (int64_t)last->height + 1) {
            rc = bk_cli_fail(cmd, BK_EXIT_USAGE,
                             "--resume: %s ends at height %lld, so it continues at %lld, not --start %lld",
                             bk_cli_output_name(o->out_path), (long long)last->height,
                             (long long)last->height + 1, (long long)o->start);
            goto out;
        }
        start = (int64_t)last->height + 1;
    }
    int64_t end = o->end < 0 || o->end > tip_h ? tip_h : o->end;
    if (o->end_below_tip >= 0) end = tip_h - o->end_below_tip; /* --end -N */
    if (tip && start <= end) {
        cap = (size_t)(end - start + 1);
        E.jobs = bk_alloc(NULL, cap * sizeof *E.jobs);
        if (!E.jobs) {
            rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
            goto out;
        }
        const bk_chain_entry *first = bk_chain_at_height(&E.chain, start);
        if (o->start_given && first && first->no_data) {
            rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT,
                             "height %lld has no block data on this node (pruned); the lowest available height is %d",
                             (long long)start, (int)E.chain.prune_height);
            goto out;
        }
        /* Blocks the index knows without data (pruned): skipped, one line
         * per range. */
        int64_t skip_from = -1;
        for (int64_t h = start; h <= end + 1; h++) {
            const bk_chain_entry *e = h <= end ? bk_chain_at_height(&E.chain, h) : NULL;
            if (e && e->no_data) {
                if (skip_from < 0) skip_from = h;
                continue;
            }
            if (skip_from >= 0 && !o->quiet)
                fprintf(stderr, "blockkit: scan: heights %lld-%lld skipped: no block data on this node (%s)\n",
                        (long long)skip_from, (long long)h - 1,
                        E.chain.n_missing ? "pruned, or its blk file is missing" : "pruned");
            skip_from = -1;
            if (!e) continue; /* below base_height (an implied genesis), or past the end */
            E.jobs[E.njobs].entry = (uint32_t)(e - E.chain.entries);
            E.jobs[E.njobs].height = h;
            E.jobs[E.njobs].orphan = 0;
            E.njobs++;
        }
    }
    uint64_t no_height = 0;
    if (o->orphans && E.chain.n_orphans) {
        /* Read with the engine's block reader: by their BIP34 height, after the best chain. */
        if (bk_engine_add_orphans(&E.chain, &E.dir, start, o->end_below_tip >= 0 ? (tip ? end : -1) : o->end, &E.jobs,
                                  &E.njobs, &cap, &no_height, NULL, &err) != BK_OK) {
            rc = bk_cli_fail(cmd, fail_code(err.status), "%s", err.msg);
            goto out;
        }
        if (no_height && !o->quiet)
            fprintf(stderr, "blockkit: scan: %llu orphan block(s) without a BIP34 height skipped\n",
                    (unsigned long long)no_height);
    }
    if (!o->quiet && !o->orphans && E.chain.n_orphans)
        fprintf(stderr,
                "blockkit: scan: note: %llu block(s) do not connect to a genesis block (pruned or partial "
                "directory?); --orphans renders them by their BIP34 height\n",
                (unsigned long long)E.chain.n_orphans);

    /* Undo: a block with inputs needs its rev record at verbosity >= 2. */
    size_t missing_at = E.njobs;
    if (o->verbosity >= 2) {
        uint64_t reported = 0;
        for (size_t i = 0; i < E.njobs; i++) {
            const bk_chain_entry *e = &E.chain.entries[E.jobs[i].entry];
            if (e->has_undo || e->n_tx <= 1) continue;
            if (!o->allow_missing_undo) {
                missing_at = i;
                break;
            }
            st.missing_undo++;
            if (reported++ < 10) {
                char hex[65];
                hash_hex(hex, e->hash);
                fprintf(stderr, "blockkit: scan: height %lld (%s): no undo data in rev*.dat; rendered without "
                                "fee and prevout\n", (long long)E.jobs[i].height, hex);
            }
        }
        if (reported > 10)
            fprintf(stderr, "blockkit: scan: %llu blocks in all rendered without undo data\n",
                    (unsigned long long)reported);
    }
    size_t njobs_all = E.njobs;
    E.njobs = missing_at;

    /* Window: per worker about 3x the largest block (block, undo, txids,
     * decoder table); per slot the JSON estimate of the largest block. */
    size_t max_block = 0;
    for (size_t i = 0; i < E.njobs; i++) {
        size_t s = E.chain.entries[E.jobs[i].entry].size;
        if (s > max_block) max_block = s;
    }
    E.bytes_before = calloc(E.njobs + 1, sizeof *E.bytes_before);
    if (!E.bytes_before) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < E.njobs; i++)
        E.bytes_before[i + 1] = E.bytes_before[i] + E.chain.entries[E.jobs[i].entry].size;
    /* A slot's writer grows by doubling: up to twice the JSON it holds. */
    size_t per_worker = 3 * max_block + 65536, per_slot = 2 * json_estimate(o->verbosity, max_block, o->indent);
    int nw = E.nworkers;
    while (nw > 1 && (size_t)nw * (per_worker + per_slot) > o->max_memory) nw--;
    if ((size_t)nw * (per_worker + per_slot) > o->max_memory) {
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE,
                         "--max-memory %zu MB is too small: one worker needs about %zu MB for the largest "
                         "block (%zu bytes)", o->max_memory >> 20, (per_worker + per_slot + (1 << 20) - 1) >> 20,
                         max_block);
        goto out;
    }
    if (nw < E.nworkers && !o->quiet)
        fprintf(stderr, "blockkit: scan: -j lowered to %d to stay within --max-memory\n", nw);
    size_t window = (o->max_memory - (size_t)nw * per_worker) / per_slot;
    if (window > 2 * (size_t)nw + 1) window = 2 * (size_t)nw + 1;
    if (window < (size_t)nw) window = (size_t)nw;
    st.workers = nw;
    st.window = window;
    E.done = calloc(E.njobs ? E.njobs : 1, sizeof *E.done);
    if (!E.done) {
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        goto out;
    }

    E.progress = o->progress == BK_SCAN_PROGRESS_ALWAYS ||
                 (o->progress == BK_SCAN_PROGRESS_AUTO && isatty(STDERR_FILENO));
    clock_gettime(CLOCK_MONOTONIC, &E.t0);
    E.last_progress = E.t0;
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = &E.chain;
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
    /* Anything the caller wrote through stdio goes first; then lines go to
     * the descriptor directly. */
    E.out_fd = -1;
    if (fflush(o->out) == 0) {
        E.out_fd = fileno(o->out);
        struct stat ost;
        E.out_regular = E.out_fd >= 0 && fstat(E.out_fd, &ost) == 0 && S_ISREG(ost.st_mode);
    }
    bk_engine_result er;
    bk_error rerr;
    bk_error_clear(&rerr);
    bk_status rs = bk_engine_run(&eo, &er, &rerr);
    st.peak_slot_bytes = er.run.peak_slot_bytes;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st.seconds = now_diff(E.t0, t1);
    if (E.progress && st.blocks) print_progress(&E, 1);
    if (E.emitted < E.njobs) st.resume_height = E.jobs[E.emitted].height;
    const char *out_name = bk_cli_output_name(o->out_path);

    if (er.run.failure == BK_ORDERED_CONSUME && E.write_rc == SCAN_PIPE_CLOSED) {
        rc = 0;
    } else if (er.run.failure == BK_ORDERED_CONSUME) {
        /* 01-scan-final-flush-heap-overread: a write error is reported once,
         * with the height to resume from (every line before it is whole). */
        rc = bk_cli_fail(cmd, BK_EXIT_IO, "%s: write error: %s; resume with --start %lld", out_name,
                         strerror(E.werr), (long long)st.resume_height);
    } else if (rs != BK_OK && rs != BK_ERR_CANCELLED) {
        /* The failing job is the first one not consumed (E.emitted < E.njobs:
         * a render error stops before its own line); the engine names its
         * height, hash and file position. 09-scan-io-error-no-resume-height. */
        char m[ERRMSG_MAX];
        bk_engine_error_format(&er.where, &rerr, m, sizeof m);
        rc = fail_code(rs);
        bk_cli_fail(cmd, rc, "%s; resume with --start %lld", m[0] ? m : "rendering failed",
                    (long long)st.resume_height);
    } else if (bk_cli_pipe_closed) {
        /* quiet */
    } else if (rs == BK_ERR_CANCELLED) {
        /* stopped by a signal */
        rc = stop_code(o);
        if (st.blocks)
            fprintf(stderr, "blockkit: scan: interrupted after height %lld; resume with --start %lld\n",
                    (long long)st.last_height, (long long)st.resume_height);
        else
            fprintf(stderr, "blockkit: scan: interrupted before the first block; resume with --start %lld\n",
                    (long long)st.resume_height);
    } else if (missing_at < njobs_all) {
        const bk_engine_item *j = &E.jobs[missing_at];
        char hex[65];
        hash_hex(hex, E.chain.entries[j->entry].hash);
        st.resume_height = j->height;
        rc = bk_cli_fail(cmd, BK_EXIT_DATA,
                         "block at height %lld (%s) has no undo data in rev*.dat (not written yet, or the node "
                         "has not connected it); stopped before it. Resume later with --start %lld, or pass "
                         "--allow-missing-undo to render such blocks without fee and prevout",
                         (long long)j->height, hex, (long long)j->height);
    }

out:
    if (E.workers) {
        for (int i = 0; i < E.nworkers; i++) {
            scan_worker *W = &E.workers[i];
            bk_free(o->alloc, W->ids, W->ids_cap);
            bk_free(o->alloc, W->scratch, W->scratch_cap);
        }
        free(E.workers);
    }
    bk_free(NULL, E.jobs, cap * sizeof *E.jobs);
    free(E.done);
    free(E.bytes_before);
    bk_chain_free(&E.chain);
out_nochain:
    bk_blocksdir_close(&E.dir);
out_nodir:
    if (stats_out) *stats_out = st;
    return rc;
}
