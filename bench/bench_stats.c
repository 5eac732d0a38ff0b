/* BlockStats: Core's getblockstats for one block, the whole per-call cost
 * as Core pays it: open and read the block file and the undo record file
 * (pread into reused buffers, as Core's ReadBlock/ReadBlockUndo read into
 * a buffer; blockkit's engine reads the same way, and must copy anyway to
 * undo xor.dat's obfuscation), decode the block, verify the undo record's
 * checksum (SHA256d(parent hash || CBlockUndo), Core's ReadBlockUndo),
 * read the CBlockUndo, compute the 31 statistics and render the JSON
 * result. Buffers, decoder, scratch and writer are reused: 0 allocs/op.
 *
 * BlockStats/H: the library's single pass, bk_block_stats_compute_undo
 * (checksum, then the CBlockUndo read once, with the parser's checks, by
 * the statistics' walk). BlockStats/H/staged: the stages one after the
 * other (bk_undo_checksum_verify, bk_block_undo_parse, then
 * bk_block_stats_compute), as `blockkit stats --datadir` runs them today
 * (the engine parses the undo record before the callback sees it).
 * BlockStats/H/floor: only the two steps no getblockstats can skip, the
 * same file reads and the undo checksum (Core's ReadBlockUndo verifies it
 * too): the floor docs/stats.md sets against issue 16's 50x Core.
 *
 * 866342: the real block and its rev*.dat record (tests/data). 413567:
 * Core's bench block has no undo vector, so setup writes a synthetic rev
 * record to a temporary file: one P2PKH coin per input (compressed form,
 * 22 bytes each), the first input of each transaction carrying its outputs'
 * total plus a fee that varies from tx to tx (200..100000 sat), the others
 * 546 sat more each; the statistics then have real work to do (1556 fees,
 * sizes and feerates for the medians and percentiles). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <blockkit/blockfile.h>
#include <blockkit/blockstats.h>
#include <blockkit/json.h>

#define BLOCK_866342_SIZE 1581623
#define REV_866342_SIZE (270516 + 40)
#define BLOCK_413567_SIZE 999887
#define REV_413567_SIZE 136507 /* the synthetic record: 8 + CBlockUndo + 32 */

enum { MODE_SINGLE, MODE_STAGED, MODE_FLOOR };

typedef struct stats_bench {
    char block_path[4096];
    char rev_path[4096];
    int rev_is_temp;
    int64_t height;
    int mode; /* MODE_* */
    uint8_t *blk, *rev;
    size_t blk_len, rev_len;
    bk_block_decoder dec;
    bk_block_stats_scratch sc;
    bk_writer w;
} stats_bench;

static int read_file(const char *path, uint8_t *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, buf + got, len - got, (off_t)got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    return got == len ? 0 : -1;
}

/* One getblockstats call. Returns 0 on success. */
static int one_call(stats_bench *b)
{
    if (read_file(b->block_path, b->blk, b->blk_len) || read_file(b->rev_path, b->rev, b->rev_len)) return -1;
    if (b->mode == MODE_FLOOR) {
        /* the parent hash straight from the header bytes: no decode */
        size_t u = b->rev_len - 40;
        return bk_undo_checksum_verify(b->rev + 8, u, b->blk + 4, b->rev + 8 + u, NULL) == BK_OK ? 0 : -1;
    }
    bk_block blk;
    if (bk_block_decode(&b->dec, b->blk, b->blk_len, &blk, NULL) != BK_OK) return -1;
    size_t n = b->rev_len - 40;
    const uint8_t *undo = b->rev + 8, *checksum = b->rev + 8 + n;
    bk_chain_context ctx;
    bk_chain_context_standalone(&ctx, &blk, BK_NET_MAIN, b->height);
    bk_block_stats st;
    uint8_t hash[32];
    bk_block_hash(&blk, hash);
    bk_block_stats_opts o;
    bk_block_stats_opts_init(&o);
    o.hash = hash;
    if (b->mode == MODE_STAGED) {
        if (bk_undo_checksum_verify(undo, n, blk.header.prev_hash, checksum, NULL) != BK_OK) return -1;
        bk_block_undo u;
        if (bk_block_undo_parse(undo, n, &u, NULL) != BK_OK) return -1;
        if (bk_block_stats_compute(&b->sc, &blk, &u, &ctx, &o, &st, NULL) != BK_OK) return -1;
    } else {
        if (bk_block_stats_compute_undo(&b->sc, &blk, undo, n, checksum, &ctx, &o, &st, NULL) != BK_OK) return -1;
    }
    bk_writer_reset(&b->w);
    bk_json j;
    bk_json_init(&j, &b->w, 0);
    if (bk_json_block_stats(&j, &st, BK_STATS_ALL, NULL) != BK_OK) return -1;
    bk_writer_putc(&b->w, '\n');
    return bk_writer_status(&b->w) == BK_OK ? 0 : -1;
}

static void put(uint8_t **p, const void *src, size_t n)
{
    memcpy(*p, src, n);
    *p += n;
}

/* The synthetic rev record of block 413567 (see the top), into path. */
static int write_synthetic_rev(const uint8_t *blk_bytes, size_t len, const char *path, const bk_allocator *alloc)
{
    bk_block_decoder d;
    bk_block_decoder_init(&d, alloc);
    bk_block b;
    if (bk_block_decode(&d, blk_bytes, len, &b, NULL) != BK_OK) {
        bk_block_decoder_free(&d);
        return -1;
    }
    size_t ins = 0;
    for (uint32_t i = 1; i < b.n_tx; i++) ins += b.txs[i].n_in;
    size_t cap = 8 + 9 + (size_t)b.n_tx * 9 + ins * 48 + 32;
    uint8_t *buf = bk_alloc(alloc, cap), *p = buf + 8, tmp[10];
    if (!buf) {
        bk_block_decoder_free(&d);
        return -1;
    }
    put(&p, tmp, bk_compact_size_encode(tmp, b.n_tx - 1));
    for (uint32_t i = 1; i < b.n_tx; i++) {
        const bk_tx *tx = &b.txs[i];
        int64_t out = 0;
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, tx);
        while (bk_txout_next(&oi, &o)) out += o.value;
        int64_t fee = 200 * (1 + (int64_t)((i * 7919u) % 500));
        put(&p, tmp, bk_compact_size_encode(tmp, tx->n_in));
        for (uint32_t k = 0; k < tx->n_in; k++) {
            uint64_t v = k == 0 ? (uint64_t)(out + fee) : 546;
            put(&p, tmp, bk_varint_encode(tmp, 400000 * 2)); /* height 400000, not coinbase */
            put(&p, tmp, bk_varint_encode(tmp, 0));          /* nVersion dummy */
            put(&p, tmp, bk_varint_encode(tmp, bk_amount_compress(v)));
            put(&p, tmp, bk_varint_encode(tmp, 0)); /* P2PKH */
            memset(p, 0x11 + (int)(k & 0x3f), 20);
            p += 20;
        }
    }
    size_t n = (size_t)(p - buf - 8);
    memcpy(buf, bk_network_get(BK_NET_MAIN)->magic, 4);
    bk_store_le32(buf + 4, (uint32_t)n);
    bk_sha256_ctx c;
    uint8_t h[32];
    bk_sha256_init(&c);
    bk_sha256_update(&c, b.header.prev_hash, 32);
    bk_sha256_update(&c, buf + 8, n);
    bk_sha256_final(&c, h);
    bk_sha256(h, h, 32);
    memcpy(p, h, 32);
    p += 32;
    size_t total = (size_t)(p - buf);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int ok = fd >= 0 && write(fd, buf, total) == (ssize_t)total;
    if (fd >= 0 && close(fd) != 0) ok = 0;
    bk_free(alloc, buf, cap);
    bk_block_decoder_free(&d);
    return ok && total == REV_413567_SIZE ? 0 : -1;
}

typedef struct stats_arg {
    const char *block;
    const char *rev; /* NULL: synthetic */
    int64_t height;
    size_t blk_len, rev_len;
    int mode;
} stats_arg;

static const stats_arg arg_866342 = {"block866342.raw", "undo/rev_record_block866342.dat", 866342, BLOCK_866342_SIZE,
                                     REV_866342_SIZE, MODE_SINGLE};
static const stats_arg arg_413567 = {"block413567.raw", NULL, 413567, BLOCK_413567_SIZE, REV_413567_SIZE,
                                     MODE_SINGLE};
static const stats_arg arg_866342_staged = {"block866342.raw", "undo/rev_record_block866342.dat", 866342,
                                            BLOCK_866342_SIZE, REV_866342_SIZE, MODE_STAGED};
static const stats_arg arg_413567_staged = {"block413567.raw", NULL, 413567, BLOCK_413567_SIZE, REV_413567_SIZE,
                                            MODE_STAGED};
static const stats_arg arg_866342_floor = {"block866342.raw", "undo/rev_record_block866342.dat", 866342,
                                           BLOCK_866342_SIZE, REV_866342_SIZE, MODE_FLOOR};

static void stats_teardown(void *ctx, const bk_allocator *alloc);

static int stats_setup(void **ctx, const void *argp, const bk_allocator *alloc)
{
    const stats_arg *a = argp;
    stats_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b) return 1;
    memset(b, 0, sizeof *b);
    bk_block_decoder_init(&b->dec, alloc);
    bk_block_stats_scratch_init(&b->sc, alloc);
    bk_writer_init(&b->w, alloc);
    b->height = a->height;
    b->mode = a->mode;
    b->blk_len = a->blk_len;
    b->rev_len = a->rev_len;
    b->blk = bk_alloc(alloc, b->blk_len);
    b->rev = bk_alloc(alloc, b->rev_len);
    if (!b->blk || !b->rev || bk_bench_data_path(b->block_path, sizeof b->block_path, a->block) != 0 ||
        read_file(b->block_path, b->blk, b->blk_len) != 0) {
        stats_teardown(b, alloc);
        return 1;
    }
    if (a->rev) {
        if (bk_bench_data_path(b->rev_path, sizeof b->rev_path, a->rev) != 0) {
            stats_teardown(b, alloc);
            return 1;
        }
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(b->rev_path, sizeof b->rev_path, "%s/blockkit_bench_rev413567_%ld.dat", tmp && *tmp ? tmp : "/tmp",
                 (long)getpid());
        b->rev_is_temp = 1;
        if (write_synthetic_rev(b->blk, b->blk_len, b->rev_path, alloc) != 0) {
            stats_teardown(b, alloc);
            return 1;
        }
    }
    /* warm: the decoder's table, the scratch and the writer grow here */
    if (one_call(b) != 0) {
        stats_teardown(b, alloc);
        return 1;
    }
    *ctx = b;
    return 0;
}

static void stats_run(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    stats_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        if (one_call(b) != 0) return;
        bk_bench_keep(b->w.data);
    }
}

static void stats_teardown(void *ctx, const bk_allocator *alloc)
{
    stats_bench *b = ctx;
    if (b->rev_is_temp) unlink(b->rev_path);
    bk_writer_free(&b->w);
    bk_block_stats_scratch_free(&b->sc);
    bk_block_decoder_free(&b->dec);
    bk_free(alloc, b->blk, b->blk_len);
    bk_free(alloc, b->rev, b->rev_len);
    bk_free(alloc, b, sizeof *b);
}

BK_BENCH(bench_stats_866342, .name = "BlockStats/866342", .unit = "block", .units_per_op = 1,
         .bytes_per_op = BLOCK_866342_SIZE + REV_866342_SIZE, .arg = &arg_866342, .setup = stats_setup,
         .run = stats_run, .teardown = stats_teardown)
BK_BENCH(bench_stats_413567, .name = "BlockStats/413567", .unit = "block", .units_per_op = 1,
         .bytes_per_op = BLOCK_413567_SIZE + REV_413567_SIZE, .arg = &arg_413567, .setup = stats_setup,
         .run = stats_run, .teardown = stats_teardown)
BK_BENCH(bench_stats_866342_staged, .name = "BlockStats/866342/staged", .unit = "block", .units_per_op = 1,
         .bytes_per_op = BLOCK_866342_SIZE + REV_866342_SIZE, .arg = &arg_866342_staged, .setup = stats_setup,
         .run = stats_run, .teardown = stats_teardown)
BK_BENCH(bench_stats_413567_staged, .name = "BlockStats/413567/staged", .unit = "block", .units_per_op = 1,
         .bytes_per_op = BLOCK_413567_SIZE + REV_413567_SIZE, .arg = &arg_413567_staged, .setup = stats_setup,
         .run = stats_run, .teardown = stats_teardown)
BK_BENCH(bench_stats_866342_floor, .name = "BlockStats/866342/floor", .unit = "block", .units_per_op = 1,
         .bytes_per_op = BLOCK_866342_SIZE + REV_866342_SIZE, .arg = &arg_866342_floor, .setup = stats_setup,
         .run = stats_run, .teardown = stats_teardown)
