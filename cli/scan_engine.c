/* The CLI side of `blockkit scan` (scan_engine.h): the engine is the
 * library's (src/engine/scan.c); here are the chain source, the output
 * sink, the notes and progress on stderr and the exit codes. */
#define _POSIX_C_SOURCE 200809L
#include "scan_engine.h"

#include "cli.h"
#include "progress.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_PIPE_CLOSED 1  /* write_line: a closed output pipe */
#define SCAN_WRITE_FAILED 2 /* write_line: a write error (werr) */
#define ERRMSG_MAX 4608

typedef struct scan_out {
    FILE *out;
    int fd;         /* the output's descriptor (lines go out with write(2)), or -1: stdio */
    int regular;    /* a regular file: a line cut short by an error is truncated away */
    int werr;       /* errno of a failed write */
    int rc;         /* SCAN_PIPE_CLOSED / SCAN_WRITE_FAILED */
    bk_cli_progress progress;
} scan_out;

/* One whole line to the output. Lines go straight to the descriptor, so
 * every line the engine counts is in the file (no stdio buffer to lose on
 * a full disk); a write that fails part way through a line to a regular
 * file is cut back to the end of the previous line. */
static int write_line(scan_out *S, const uint8_t *data, size_t len)
{
    if (S->fd < 0) {
        if (bk_cli_write_all(S->out, data, len) != 0 || fflush(S->out) != 0) {
            S->werr = bk_cli_write_errno ? bk_cli_write_errno : errno ? errno : EIO;
            if (bk_cli_output_gone(S->out, errno)) bk_cli_pipe_closed = 1;
            return bk_cli_pipe_closed ? SCAN_PIPE_CLOSED : SCAN_WRITE_FAILED;
        }
        return bk_cli_pipe_closed ? SCAN_PIPE_CLOSED : 0;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t r = write(S->fd, data + done, len - done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            if (bk_cli_output_gone(S->out, e)) {
                bk_cli_pipe_closed = 1;
                return SCAN_PIPE_CLOSED;
            }
            S->werr = e;
            if (done && S->regular) {
                off_t pos = lseek(S->fd, 0, SEEK_CUR);
                if (pos >= (off_t)done && ftruncate(S->fd, pos - (off_t)done) == 0)
                    (void)lseek(S->fd, pos - (off_t)done, SEEK_SET);
            }
            return SCAN_WRITE_FAILED;
        }
        done += (size_t)r;
    }
    return 0;
}

static bk_status scan_sink(void *ctx, const bk_scan_line *line, bk_error *err)
{
    scan_out *S = ctx;
    int rc = write_line(S, line->data, line->len);
    if (rc) {
        S->rc = rc;
        return bk_error_set(err, BK_ERR_IO, 0, rc == SCAN_PIPE_CLOSED ? "output pipe closed" : "write error");
    }
    return BK_OK;
}

static void scan_note(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "blockkit: scan: %s\n", msg);
}

static void scan_progress(void *ctx, const bk_scan_report *r)
{
    scan_out *S = ctx;
    bk_cli_progress_line l = bk_cli_progress_blocks(r->height, r->blocks_done, r->blocks_total, r->bytes_done,
                                                    r->bytes_done, r->bytes_total, r->seconds);
    l.final = r->final;
    bk_cli_progress_show(&S->progress, &l);
}

/* The exit status after a stop request: 128 + the signal's number. */
static int stop_code(const bk_scan_opts *o)
{
    int sig = o->stop ? (int)*o->stop : 0;
    return 128 + (sig > 0 && sig < 64 ? sig : 2);
}

/* Exit code of a failure (cli.h). */
static int fail_code(bk_status st)
{
    return st == BK_ERR_IO ? BK_EXIT_IO : st == BK_ERR_NOMEM ? BK_EXIT_SOFTWARE : BK_EXIT_DATA;
}

int bk_cli_scan_run(bk_scan_opts *o, const bk_cli_source *src, FILE *out, const char *out_path,
                    bk_scan_stats *stats_out)
{
    const char *cmd = "scan";
    bk_scan_stats st;
    memset(&st, 0, sizeof st);
    st.first_height = st.last_height = st.resume_height = -1;
    int rc = 0;
    bk_chain chain;
    int have_chain = 0;
    if (src) {
        /* Core's block index or the header scan (cli/source.c; it checks a
         * header scan for another network's files or nothing connected). */
        rc = bk_cli_source_build(cmd, src, o->net, o->stop, o->quiet, &chain);
        if (rc && o->stop && *o->stop) {
            st.resume_height = o->start;
            fprintf(stderr, "blockkit: scan: interrupted while building the chain, before the first block; "
                            "resume with --start %lld\n", (long long)o->start);
            rc = stop_code(o);
        }
        if (rc) goto out;
        have_chain = 1;
        o->chain = &chain;
    }

    scan_out S;
    memset(&S, 0, sizeof S);
    S.out = out;
    S.fd = -1;
    /* Anything the caller wrote through stdio goes first; then lines go to
     * the descriptor directly. */
    if (fflush(out) == 0) {
        S.fd = fileno(out);
        struct stat ost;
        S.regular = S.fd >= 0 && fstat(S.fd, &ost) == 0 && S_ISREG(ost.st_mode);
    }
    bk_cli_progress_init(&S.progress, o->progress == BK_SCAN_PROGRESS_AUTO ? -1 : o->progress == BK_SCAN_PROGRESS_ALWAYS);
    o->sink = scan_sink;
    o->sink_ctx = &S;
    o->note = scan_note;
    o->on_progress = S.progress.on ? scan_progress : NULL;
    o->progress_ctx = &S;

    bk_error err;
    bk_error_clear(&err);
    bk_status rs = bk_scan_run(o, &st, &err);
    bk_cli_progress_end(&S.progress);
    const char *out_name = bk_cli_output_name(out_path);
    char hex[65];
    switch (rs == BK_OK ? BK_SCAN_FAIL_NONE : st.failure) {
    case BK_SCAN_FAIL_NONE:
        break;
    case BK_SCAN_FAIL_ARG:
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "%s", err.msg);
        break;
    case BK_SCAN_FAIL_DIR:
    case BK_SCAN_FAIL_CHAIN:
        rc = bk_cli_report(cmd, &err);
        break;
    case BK_SCAN_FAIL_RESUME_BLOCK:
        bk_hex_encode_rev(hex, o->resume_after, 32);
        hex[64] = 0;
        rc = bk_cli_fail(cmd, BK_EXIT_DATA,
                         "--resume: %s ends with block %s, which is %s; cannot continue it (a reorg? start "
                         "a new file, or --force to overwrite)", out_name, hex,
                         st.resume_found ? "not on the best chain" : "not in these blk files");
        break;
    case BK_SCAN_FAIL_RESUME_START:
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "--resume: %s ends at height %lld, so it continues at %lld, not --start %lld",
                         out_name, (long long)st.resume_height - 1, (long long)st.resume_height, (long long)o->start);
        break;
    case BK_SCAN_FAIL_PRUNED_START:
        rc = bk_cli_fail(cmd, BK_EXIT_NOINPUT, "%s", err.msg);
        break;
    case BK_SCAN_FAIL_MEMORY:
        rc = bk_cli_fail(cmd, BK_EXIT_USAGE,
                         "--max-memory %zu MB is too small: one worker needs about %zu MB for the largest "
                         "block (%zu bytes)", o->max_memory >> 20, (st.need_bytes + (1 << 20) - 1) >> 20,
                         st.max_block);
        break;
    case BK_SCAN_FAIL_ORPHANS:
        rc = bk_cli_fail(cmd, fail_code(err.status), "%s", err.msg);
        break;
    case BK_SCAN_FAIL_SINK:
        if (S.rc == SCAN_PIPE_CLOSED || bk_cli_pipe_closed) break; /* quiet, status 0 */
        /* 01-scan-final-flush-heap-overread: a write error is reported once,
         * with the height to resume from (every line before it is whole). */
        rc = bk_cli_fail(cmd, BK_EXIT_IO, "%s: write error: %s; resume with --start %lld", out_name,
                         strerror(S.werr), (long long)st.resume_height);
        break;
    case BK_SCAN_FAIL_RENDER: {
        if (bk_cli_pipe_closed) break;
        /* The failing job is the first one not written (a render error
         * stops before its own line); the engine names its height, hash
         * and file position. 09-scan-io-error-no-resume-height. */
        char m[ERRMSG_MAX];
        bk_engine_error_format(&st.where, &err, m, sizeof m);
        rc = fail_code(rs);
        bk_cli_fail(cmd, rc, "%s; resume with --start %lld", m[0] ? m : "rendering failed",
                    (long long)st.resume_height);
        break;
    }
    case BK_SCAN_FAIL_CANCELLED:
        if (bk_cli_pipe_closed) break;
        rc = stop_code(o);
        if (st.chain_cancelled)
            fprintf(stderr, "blockkit: scan: interrupted while building the chain, before the first block; "
                            "resume with --start %lld\n", (long long)st.resume_height);
        else if (st.blocks)
            fprintf(stderr, "blockkit: scan: interrupted after height %lld; resume with --start %lld\n",
                    (long long)st.last_height, (long long)st.resume_height);
        else
            fprintf(stderr, "blockkit: scan: interrupted before the first block; resume with --start %lld\n",
                    (long long)st.resume_height);
        break;
    case BK_SCAN_FAIL_MISSING_UNDO:
        if (bk_cli_pipe_closed) break;
        bk_hex_encode_rev(hex, st.missing_hash, 32);
        hex[64] = 0;
        rc = bk_cli_fail(cmd, BK_EXIT_DATA,
                         "block at height %lld (%s) has no undo data in rev*.dat (not written yet, or the node "
                         "has not connected it); stopped before it. Resume later with --start %lld, or pass "
                         "--allow-missing-undo to render such blocks without fee and prevout",
                         (long long)st.missing_height, hex, (long long)st.missing_height);
        break;
    case BK_SCAN_FAIL_NOMEM:
        rc = bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
        break;
    }
    o->chain = NULL;
out:
    if (have_chain) bk_chain_free(&chain);
    if (stats_out) *stats_out = st;
    return rc;
}
