/* The file-based chain build under hostile input: undo pairing stays
 * near-linear (02-chain-undo-pairing-quadratic: N chained same-shape blocks
 * and N rev records that pair with none of them cost N x N SHA256d before:
 * 60 s for N = 16000), and the build honours bk_chain_opts.cancel
 * (BK_ERR_CANCELLED, within a second when set from another thread). */
#include "check.h"
#include "blkdir_util.h"

#include <blockkit/blockkit.h>
#include <blockkit/chain.h>

#include <pthread.h>
#include <time.h>

static const uint8_t MAGIC[4] = {0xf9, 0xbe, 0xb4, 0xd9};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void put_le32(tbuf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    tbuf_put(b, x, 4);
}

/* A coinbase (BIP34 height push) and Core's legal 10-byte empty tx. */
static void two_txs(tbuf *b, uint32_t h)
{
    tbuf_put(b, "\x02", 1);
    put_le32(b, 1);
    tbuf_put(b, "\x01", 1);
    uint8_t z[32] = {0};
    tbuf_put(b, z, 32);
    put_le32(b, 0xffffffff);
    uint8_t ss[8] = {7, 4, (uint8_t)h, (uint8_t)(h >> 8), (uint8_t)(h >> 16), (uint8_t)(h >> 24), 'b', 'k'};
    tbuf_put(b, ss, 8);
    put_le32(b, 0xffffffff);
    tbuf_put(b, "\x01", 1);
    uint8_t val[8] = {0, 0xf2, 0x05, 0x2a, 1, 0, 0, 0};
    tbuf_put(b, val, 8);
    tbuf_put(b, "\x01\x51", 2); /* OP_TRUE */
    put_le32(b, 0);
    /* empty tx: version, 0 inputs, 0 outputs, locktime */
    put_le32(b, 1);
    tbuf_put(b, "\x00\x00", 2);
    put_le32(b, 0);
}

/* n blocks in one blk image; parent of block i: the previous block
 * (chained) or a fixed unknown hash (same_parent: all siblings, orphans).
 * hashes_out gets each block's prev hash (n x 32). */
static void make_blk(tbuf *blk, size_t n, int same_parent, uint8_t *prevs_out)
{
    uint8_t prev[32] = {0};
    if (same_parent) memset(prev, 0x42, 32);
    for (size_t i = 0; i < n; i++) {
        tbuf b = {0};
        put_le32(&b, 4);
        tbuf_put(&b, prev, 32);
        uint8_t mr[32];
        memset(mr, (int)(i & 255), 32);
        tbuf_put(&b, mr, 32);
        put_le32(&b, 1600000000u + (uint32_t)i);
        put_le32(&b, 0x207fffff);
        put_le32(&b, (uint32_t)i);
        two_txs(&b, (uint32_t)i + 1);
        tbuf_record(blk, MAGIC, b.p, b.n);
        memcpy(prevs_out + 32 * i, prev, 32);
        if (!same_parent) bk_sha256d(prev, b.p, 80);
        free(b.p);
    }
}

/* n rev records "01 00" (one CTxUndo, no coins); with good checksums for
 * the given parents, or wrong ones. */
static void make_rev(tbuf *rev, size_t n, const uint8_t *parents, int good)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t undo[2] = {1, 0};
        uint8_t ck[32];
        if (good) {
            uint8_t m[34];
            memcpy(m, parents + 32 * i, 32);
            memcpy(m + 32, undo, 2);
            bk_sha256d(ck, m, 34);
        } else {
            memset(ck, (int)(i & 255), 32);
        }
        tbuf_record(rev, MAGIC, undo, 2);
        tbuf_put(rev, ck, 32);
    }
}

static bk_status build(bk_chain *c, tbuf *blk, tbuf *rev, const bk_chain_opts *o)
{
    bk_blockfile bf, rf;
    bk_blockfile_init_mem(&bf, blk->p, blk->n, BK_FILE_BLK, BK_NET_REGTEST, NULL);
    bk_blockfile_init_mem(&rf, rev->p, rev->n, BK_FILE_REV, BK_NET_REGTEST, NULL);
    memcpy(bf.magic, MAGIC, 4);
    memcpy(rf.magic, MAGIC, 4);
    bk_error err;
    return bk_chain_build_files_opts(c, BK_NET_REGTEST, &bf, 1, &rf, 1, o, NULL, &err);
}

#define N 4000

static volatile int sink;

/* One checksum per record: the unit of pairing work, timed in this process
 * (so the ratio below holds on a slow machine or in a sanitizer build). */
static double one_checksum_per_record(const tbuf *rev)
{
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (int k = 0; k < 4; k++)
            for (size_t pos = 0; pos + 42 <= rev->n; pos += 42) {
                static const uint8_t parent[32];
                sink += bk_undo_checksum_verify(rev->p + pos + 8, 2, parent, rev->p + pos + 10, NULL) == BK_OK;
            }
        double dt = (now() - t0) / 4;
        if (dt < best) best = dt;
    }
    return best;
}

/* 02-chain-undo-pairing-quadratic: the repro's input (N chained blocks,
 * N records with wrong checksums). Before: every record was checked against
 * every same-shape block, N x N checksums (16000 blocks: 60 s). Now at most
 * 64 per record: the build costs under 1200 checksums per record (about
 * 250 on a loaded machine; the quadratic code: N = 4000), measured against
 * hashing each record once. */
static void test_pairing_wrong_checksums_linear(void)
{
    tbuf blk = {0}, rev = {0};
    uint8_t *prevs = malloc(32 * (size_t)N);
    make_blk(&blk, N, 0, prevs);
    make_rev(&rev, N, prevs, 0);
    bk_chain c;
    double unit = one_checksum_per_record(&rev);
    double t0 = now();
    CHECK_EQ_INT(build(&c, &blk, &rev, NULL), BK_OK);
    double dt = now() - t0;
    bk_chain_free(&c);
    t0 = now(); /* the faster of two runs: less noise from a loaded machine */
    CHECK_EQ_INT(build(&c, &blk, &rev, NULL), BK_OK);
    if (now() - t0 < dt) dt = now() - t0;
    fprintf(stderr, "  N=%d chained blocks, %d unpairable records: %.3f s = %.0f x one checksum per record\n", N,
            N, dt, dt / unit);
    CHECK(dt / unit < 1200);
    CHECK(dt < 20.0);
    CHECK_EQ_INT(c.n_active, N);
    CHECK_EQ_INT(c.n_undo_records, N);
    CHECK_EQ_INT(c.n_undo_paired, 0);
    CHECK_EQ_INT(c.n_undo_unpaired, N);
    bk_chain_free(&c);
    /* The same blocks with their correct records pair exactly, each to its
     * block (the predicted successor). */
    tbuf good = {0};
    make_rev(&good, N, prevs, 1);
    /* the genesis-like first block (prev all zero) has no undo: drop record 0 */
    tbuf rev1 = {0};
    tbuf_put(&rev1, good.p + 42, good.n - 42);
    t0 = now();
    CHECK_EQ_INT(build(&c, &blk, &rev1, NULL), BK_OK);
    dt = now() - t0;
    fprintf(stderr, "  N=%d good records: %.3f s\n", N, dt);
    CHECK(dt < 20.0);
    CHECK_EQ_INT(c.n_undo_paired, N - 1);
    int all = 1;
    for (size_t h = 1; h < c.n_active; h++) {
        const bk_chain_entry *e = bk_chain_at_height(&c, (int64_t)h);
        if (!e || !e->has_undo || e->undo_offset != 42 * (h - 1) + 8) all = 0;
    }
    CHECK(all);
    bk_chain_free(&c);
    free(blk.p);
    free(rev.p);
    free(good.p);
    free(rev1.p);
    free(prevs);
}

/* N siblings of one unknown parent, each record's checksum valid for all
 * of them: bounded sibling checks, still near-linear. */
static void test_pairing_siblings_bounded(void)
{
    tbuf blk = {0}, rev = {0};
    uint8_t *prevs = malloc(32 * (size_t)N);
    make_blk(&blk, N, 1, prevs);
    make_rev(&rev, N, prevs, 1);
    bk_chain c;
    double t0 = now();
    CHECK_EQ_INT(build(&c, &blk, &rev, NULL), BK_OK);
    double dt = now() - t0;
    fprintf(stderr, "  N=%d same-parent siblings with valid records: %.3f s\n", N, dt);
    CHECK(dt < 20.0);
    CHECK_EQ_INT(c.n_orphans, N);
    CHECK_EQ_INT(c.n_undo_records, N);
    CHECK_EQ_INT(c.n_undo_paired + c.n_undo_unpaired, N);
    bk_chain_free(&c);
    free(blk.p);
    free(rev.p);
    free(prevs);
}

static volatile sig_atomic_t cancel_flag;
static double cancel_set_at;

static void *set_cancel_later(void *arg)
{
    (void)arg;
    struct timespec d = {0, 50 * 1000 * 1000};
    nanosleep(&d, NULL);
    cancel_set_at = now();
    cancel_flag = 1;
    return NULL;
}

/* bk_chain_opts.cancel: set before the build, or while it runs. */
static void test_cancel(void)
{
    tbuf blk = {0}, rev = {0};
    uint8_t *prevs = malloc(32 * (size_t)N);
    make_blk(&blk, N, 0, prevs);
    make_rev(&rev, N, prevs, 0);
    bk_chain c;
    bk_chain_opts o;
    memset(&o, 0, sizeof o);
    o.cancel = &cancel_flag;
    cancel_flag = 1;
    CHECK_EQ_INT(build(&c, &blk, &rev, &o), BK_ERR_CANCELLED);
    CHECK_EQ_INT(c.n_entries, 0); /* nothing kept */
    cancel_flag = 0;
    CHECK_EQ_INT(build(&c, &blk, &rev, &o), BK_OK);
    bk_chain_free(&c);
    /* A build made slow by many files: the flag set 50 ms in stops it within a second. */
    enum { FILES = 200 };
    bk_blockfile *bf = calloc(FILES, sizeof *bf), *rf = calloc(FILES, sizeof *rf);
    for (int i = 0; i < FILES; i++) {
        bk_blockfile_init_mem(&bf[i], blk.p, blk.n, BK_FILE_BLK, BK_NET_REGTEST, NULL);
        bk_blockfile_init_mem(&rf[i], rev.p, rev.n, BK_FILE_REV, BK_NET_REGTEST, NULL);
        memcpy(bf[i].magic, MAGIC, 4);
        memcpy(rf[i].magic, MAGIC, 4);
        bf[i].number = rf[i].number = (uint32_t)i;
    }
    cancel_flag = 0;
    pthread_t th;
    pthread_create(&th, NULL, set_cancel_later, NULL);
    bk_error err;
    bk_status st = bk_chain_build_files_opts(&c, BK_NET_REGTEST, bf, FILES, rf, FILES, &o, NULL, &err);
    double t_end = now();
    pthread_join(th, NULL);
    double dt = t_end - cancel_set_at;
    fprintf(stderr, "  cancelled %.3f s after the flag was set\n", dt);
    CHECK_EQ_INT(st, BK_ERR_CANCELLED);
    CHECK(dt < 1.0);
    CHECK(strstr(err.msg, "cancelled") != NULL);
    free(bf);
    free(rf);
    free(blk.p);
    free(rev.p);
    free(prevs);
}

int main(void)
{
    RUN(test_pairing_wrong_checksums_linear);
    RUN(test_pairing_siblings_bounded);
    RUN(test_cancel);
    return check_finish();
}
