/* blockkit scan end to end (BK_CLI_PATH): synthetic blocks directories made
 * from real blocks and their undo data, re-linked into a chain (each
 * header's hashPrevBlock rewritten: the merkle root stays valid, and the
 * chain code does not check proof of work, docs/blockfiles.md), with each
 * rev record's checksum recomputed for the new parent. Every line must be
 * what `blockkit block` prints for that block with the same context. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "blkdir_util.h"

#include <blockkit/blockkit.h>

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#define N_MAIN 8
#define MAX_BLOCKS 16

/* Mainnet genesis (Core: chainparams.cpp CreateGenesisBlock): hash in
 * display order, nTime, nBits. The chain gives its child height 1 when the
 * genesis record is absent. */
static const char GENESIS_HEX[] = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";
#define GENESIS_TIME 1231006505u
#define GENESIS_BITS 0x1d00ffffu

static const uint8_t XOR_KEY[8] = {0x5a, 0x01, 0xc3, 0x7e, 0x00, 0x99, 0xee, 0x42};

typedef struct gblock {
    uint8_t *raw;
    size_t len;
    uint8_t *undo; /* bare CBlockUndo */
    size_t undo_len;
    uint8_t hash[32];
    int64_t height;
} gblock;

static gblock chain[MAX_BLOCKS];
static gblock stale;
static char root[256];
static char cli[1024];

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void load(gblock *g, unsigned h, const uint8_t prev[32], uint32_t nonce_xor)
{
    char name[128];
    snprintf(name, sizeof name, "blocks/block%u.raw", h);
    g->raw = check_read_file(name, &g->len);
    snprintf(name, sizeof name, "undo/block%u_undo.raw", h);
    g->undo = check_read_file(name, &g->undo_len);
    memcpy(g->raw + 4, prev, 32);
    g->raw[76] ^= (uint8_t)nonce_xor;
    bk_sha256d(g->hash, g->raw, 80);
}

/* magic || size || undo || SHA256d(parent || undo) (Core: WriteBlockUndo). */
static void rev_record(tbuf *b, const gblock *g)
{
    uint8_t hdr[8], h[32];
    memcpy(hdr, MAINNET_MAGIC, 4);
    uint32_t n = (uint32_t)g->undo_len;
    hdr[4] = (uint8_t)n; hdr[5] = (uint8_t)(n >> 8); hdr[6] = (uint8_t)(n >> 16); hdr[7] = (uint8_t)(n >> 24);
    tbuf_put(b, hdr, 8);
    tbuf_put(b, g->undo, g->undo_len);
    bk_sha256_ctx c;
    bk_sha256_init(&c);
    bk_sha256_update(&c, g->raw + 4, 32);
    bk_sha256_update(&c, g->undo, g->undo_len);
    bk_sha256_final(&c, h);
    bk_sha256(h, h, 32);
    tbuf_put(b, h, 32);
}

static void put_file(const char *dir, const char *name, tbuf *b, int xored)
{
    if (xored)
        for (size_t i = 0; i < b->n; i++) b->p[i] ^= XOR_KEY[i % 8];
    write_file(dir, name, b->p, b->n);
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* The chain: heights 1..8 from blocks 277647, 367891, 866342 (all with
 * real undo data), a stale child of height 6, over three XORed blk files
 * written out of order, a duplicate, a zero tail and a half-written record.
 * skip_rev_of: the height whose rev record is left out (0 = none). */
static void build_dir(const char *dir, int skip_rev_of, int corrupt_height)
{
    static const unsigned src[N_MAIN + 1] = {0, 277647, 367891, 866342, 277647, 367891, 277647, 367891, 277647};
    uint8_t prev[32];
    for (int i = 0; i < 32; i++) {
        unsigned v;
        sscanf(GENESIS_HEX + 2 * (31 - i), "%2x", &v);
        prev[i] = (uint8_t)v;
    }
    for (int h = 1; h <= N_MAIN; h++) {
        free(chain[h].raw);
        free(chain[h].undo);
        load(&chain[h], src[h], prev, 0);
        chain[h].height = h;
        memcpy(prev, chain[h].hash, 32);
    }
    free(stale.raw);
    free(stale.undo);
    load(&stale, 277647, chain[6].hash, 0x55); /* child of 6, loses to 7-8 */
    if (corrupt_height) {
        /* One byte of the last output's value of the last tx: the block
         * still parses, its merkle root no longer matches. */
        gblock *g = &chain[corrupt_height];
        g->raw[g->len - 4 - 30] ^= 0x01;
    }

    tbuf blk[3] = {{0}}, rev[3] = {{0}};
    /* blk00000: 3, 1; blk00001: 2, 5, 4 + zero tail; blk00002: 6, stale,
     * 8, 7, duplicate of 2, half-written record. */
    static const int order[3][4] = {{3, 1, 0, 0}, {2, 5, 4, 0}, {6, -1, 8, 7}};
    for (int f = 0; f < 3; f++) {
        for (int k = 0; k < 4; k++) {
            int h = order[f][k];
            if (h == 0) continue;
            const gblock *g = h < 0 ? &stale : &chain[h];
            tbuf_record(&blk[f], MAINNET_MAGIC, g->raw, g->len);
        }
        /* Core writes undo in connection order: 2, 1 reversed on purpose. */
        for (int k = 3; k >= 0; k--) {
            int h = order[f][k];
            if (h == 0 || h == skip_rev_of) continue;
            rev_record(&rev[f], h < 0 ? &stale : &chain[h]);
        }
    }
    uint8_t zeros[4096] = {0};
    tbuf_put(&blk[1], zeros, sizeof zeros);
    tbuf_record(&blk[2], MAINNET_MAGIC, chain[2].raw, chain[2].len);
    /* half-written: the header says the full size, half the bytes follow */
    uint8_t hdr[8];
    memcpy(hdr, MAINNET_MAGIC, 4);
    uint32_t n = (uint32_t)chain[1].len;
    hdr[4] = (uint8_t)n; hdr[5] = (uint8_t)(n >> 8); hdr[6] = (uint8_t)(n >> 16); hdr[7] = (uint8_t)(n >> 24);
    tbuf_put(&blk[2], hdr, 8);
    tbuf_put(&blk[2], chain[1].raw, chain[1].len / 2);

    mkdir(dir, 0755);
    char name[32];
    for (int f = 0; f < 3; f++) {
        snprintf(name, sizeof name, "blk%05d.dat", f);
        put_file(dir, name, &blk[f], 1);
        snprintf(name, sizeof name, "rev%05d.dat", f);
        put_file(dir, name, &rev[f], 1);
    }
    write_file(dir, "xor.dat", XOR_KEY, 8);
}

static int sh(const char *cmd)
{
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *len = 0;
        return NULL;
    }
    tbuf b = {0};
    uint8_t tmp[65536];
    size_t r;
    while ((r = fread(tmp, 1, sizeof tmp, f)) > 0) tbuf_put(&b, tmp, r);
    fclose(f);
    *len = b.n;
    tbuf_put(&b, "", 1); /* NUL-terminated for strstr */
    return b.p;
}

static void hexrev(char out[65], const uint8_t h[32])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", h[31 - i]);
}

/* 256-bit big-endian a += b. */
static void add256(uint8_t a[32], const uint8_t b[32])
{
    unsigned carry = 0;
    for (int i = 31; i >= 0; i--) {
        unsigned s = a[i] + b[i] + carry;
        a[i] = (uint8_t)s;
        carry = s >> 8;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The expected file: `blockkit block` for heights from..to with the
 * context computed here (Core: GetMedianTimePast over 11 blocks, chainwork
 * as the sum of GetBlockProof, confirmations tip - h + 1, next hash). */
static void expected(const char *out, int from, int to, int tip, int verbosity, int undo_upto)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "rm -f %s", out);
    sh(cmd);
    uint8_t work[32];
    bk_block_proof(GENESIS_BITS, work);
    uint32_t times[N_MAIN + 2];
    times[0] = GENESIS_TIME;
    for (int h = 1; h <= to; h++) {
        gblock *g = &chain[h];
        uint8_t p[32];
        bk_block_proof(le32(g->raw + 72), p);
        add256(work, p);
        times[h] = le32(g->raw + 68);
        if (h < from) continue;
        uint32_t t[11];
        int n = 0;
        for (int k = h; k >= 0 && n < 11; k--) t[n++] = times[k];
        qsort(t, (size_t)n, sizeof t[0], cmp_u32);
        char raw[400], rv[400], next[65], cw[65];
        snprintf(raw, sizeof raw, "%s/h%d.raw", root, h);
        write_file(root, raw + strlen(root) + 1, g->raw, g->len);
        tbuf r = {0};
        rev_record(&r, g);
        snprintf(rv, sizeof rv, "%s/h%d.rev", root, h);
        write_file(root, rv + strlen(root) + 1, r.p, r.n);
        free(r.p);
        for (int i = 0; i < 32; i++) snprintf(cw + 2 * i, 3, "%02x", work[i]);
        int len = snprintf(cmd, sizeof cmd, "%s block %s --verbosity %d --height %d --confirmations %d "
                           "--mediantime %u --chainwork %s", cli, raw, verbosity, h, tip - h + 1, t[n / 2], cw);
        if (h < tip) {
            hexrev(next, chain[h + 1].hash);
            len += snprintf(cmd + len, sizeof cmd - (size_t)len, " --nextblockhash %s", next);
        }
        if (h <= undo_upto) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " --undo %s", rv);
        snprintf(cmd + len, sizeof cmd - (size_t)len, " >> %s", out);
        CHECK_EQ_INT(sh(cmd), 0);
    }
}

static int same_files(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *pa = slurp(a, &na), *pb = slurp(b, &nb);
    int same = pa && pb && na == nb && memcmp(pa, pb, na) == 0;
    if (!same) fprintf(stderr, "  %s (%zu bytes) differs from %s (%zu bytes)\n", a, na, b, nb);
    free(pa);
    free(pb);
    return same;
}

static int file_contains(const char *path, const char *needle)
{
    size_t n;
    uint8_t *p = slurp(path, &n);
    if (!p) return 0;
    int found = 0;
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n && !found; i++) found = memcmp(p + i, needle, k) == 0;
    free(p);
    return found;
}

static size_t count_lines(const char *path)
{
    size_t n, c = 0;
    uint8_t *p = slurp(path, &n);
    for (size_t i = 0; i < n; i++) c += p[i] == '\n';
    free(p);
    return c;
}

static char dir_ok[320], dir_norev[320], dir_bad[320];

static int scan(const char *dir, const char *args, const char *out)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "%s scan --blocksdir %s --progress never --force %s -o %s/%s 2>%s/%s.err", cli, dir, args,
             root, out, root, out);
    return sh(cmd);
}

static void test_full_chain(void)
{
    char exp[400], got[400];
    static const int verb[] = {1, 2, 3, 0};
    for (int v = 0; v < 4; v++) {
        snprintf(exp, sizeof exp, "%s/exp_v%d", root, verb[v]);
        expected(exp, 1, N_MAIN, N_MAIN, verb[v], N_MAIN);
        char args[64];
        for (int j = 1; j <= 2; j++) {
            snprintf(args, sizeof args, "--verbosity %d -j %d", verb[v], j);
            char name[32];
            snprintf(name, sizeof name, "got_v%d_j%d", verb[v], j);
            CHECK_EQ_INT(scan(dir_ok, args, name), 0);
            snprintf(got, sizeof got, "%s/%s", root, name);
            CHECK(same_files(got, exp));
        }
    }
    /* --verify-merkle passes on real blocks; 3 blocks in flight per worker. */
    CHECK_EQ_INT(scan(dir_ok, "--verbosity 3 -j 2 --verify-merkle --max-memory 64", "got_vm"), 0);
    /* --progress always: "\r"-overwritten lines on stderr, output unchanged */
    char err[400];
    snprintf(err, sizeof err, "%s/got_pr.err", root);
    CHECK_EQ_INT(scan(dir_ok, "--verbosity 3 -j2 --progress always", "got_pr"), 0);
    CHECK(file_contains(err, "\rheight 8  8/8 blocks"));
    CHECK(file_contains(err, "MB/s  ETA 00:00:00"));
    snprintf(got, sizeof got, "%s/got_pr", root);
    snprintf(exp, sizeof exp, "%s/exp_v3", root);
    CHECK(same_files(got, exp));
    snprintf(got, sizeof got, "%s/got_vm", root);
    snprintf(exp, sizeof exp, "%s/exp_v3", root);
    CHECK(same_files(got, exp));
    /* --datadir DIR means DIR/blocks on main */
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/dd && ln -sfn %s %s/dd/blocks && %s scan --datadir %s/dd --progress never "
             "--verbosity 3 -j2 > %s/got_dd", root, dir_ok, root, cli, root, root);
    CHECK_EQ_INT(sh(cmd), 0);
    snprintf(got, sizeof got, "%s/got_dd", root);
    CHECK(same_files(got, exp));
}

static void test_ranges(void)
{
    char exp[400], got[400];
    snprintf(exp, sizeof exp, "%s/exp_r", root);
    expected(exp, 3, 5, N_MAIN, 3, N_MAIN);
    CHECK_EQ_INT(scan(dir_ok, "--verbosity 3 -j2 --start 3 --end 5", "got_r"), 0);
    snprintf(got, sizeof got, "%s/got_r", root);
    CHECK(same_files(got, exp));
    /* --end past the tip stops at the tip; a start past it is an empty
     * range: exit 66, nothing printed */
    expected(exp, 7, 8, N_MAIN, 2, N_MAIN);
    CHECK_EQ_INT(scan(dir_ok, "--verbosity 2 -j2 --start 7 --end 100", "got_r"), 0);
    CHECK(same_files(got, exp));
    CHECK_EQ_INT(scan(dir_ok, "--verbosity 2 --start 9", "got_r"), 66);
    CHECK_EQ_INT((int)count_lines(got), 0);
    /* usage errors */
    CHECK_EQ_INT(scan(dir_ok, "--start 5 --end 4", "got_u"), 64);
    CHECK_EQ_INT(scan(dir_ok, "--verbosity 4", "got_u"), 64);
    CHECK_EQ_INT(scan(dir_ok, "-j 0", "got_u"), 64);
    CHECK_EQ_INT(scan(dir_ok, "--max-memory 1 --verbosity 3", "got_u"), 64);
    /* a bound that fits one worker (3 x 1.58 MB + 2 x 11 x 1.58 MB of JSON
     * for block 866342) but not two lowers -j */
    char err[400];
    snprintf(err, sizeof err, "%s/got_mm.err", root);
    CHECK_EQ_INT(scan(dir_ok, "--max-memory 45 --verbosity 3 -j2", "got_mm"), 0);
    CHECK(file_contains(err, "-j lowered to 1"));
    snprintf(got, sizeof got, "%s/got_mm", root);
    snprintf(exp, sizeof exp, "%s/exp_v3", root);
    CHECK(same_files(got, exp));
}

static void test_missing_undo(void)
{
    char exp[400], got[400], err[400];
    snprintf(exp, sizeof exp, "%s/exp_mu", root);
    snprintf(got, sizeof got, "%s/got_mu", root);
    snprintf(err, sizeof err, "%s/got_mu.err", root);
    /* without the flag: heights 1..4, then exit 65 naming height 5 */
    expected(exp, 1, 4, N_MAIN, 3, N_MAIN);
    CHECK_EQ_INT(scan(dir_norev, "--verbosity 3 -j2", "got_mu"), 65);
    CHECK(same_files(got, exp));
    CHECK(file_contains(err, "height 5"));
    CHECK(file_contains(err, "--start 5"));
    /* with it: height 5 without fee and prevout */
    expected(exp, 1, 4, N_MAIN, 3, N_MAIN);
    char part[400];
    snprintf(part, sizeof part, "%s/exp_mu5", root);
    expected(part, 5, 5, N_MAIN, 3, 0);
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cat %s >> %s", part, exp);
    sh(cmd);
    snprintf(part, sizeof part, "%s/exp_mu6", root);
    expected(part, 6, N_MAIN, N_MAIN, 3, N_MAIN);
    snprintf(cmd, sizeof cmd, "cat %s >> %s", part, exp);
    sh(cmd);
    CHECK_EQ_INT(scan(dir_norev, "--verbosity 3 -j2 --allow-missing-undo", "got_mu"), 0);
    CHECK(same_files(got, exp));
    CHECK(file_contains(err, "height 5"));
    /* verbosity 1 needs no undo */
    CHECK_EQ_INT(scan(dir_norev, "--verbosity 1 -j2", "got_mu"), 0);
    CHECK_EQ_INT((int)count_lines(got), N_MAIN);
}

static void test_verify_merkle(void)
{
    char got[400], err[400], exp[400];
    snprintf(got, sizeof got, "%s/got_bad", root);
    snprintf(err, sizeof err, "%s/got_bad.err", root);
    snprintf(exp, sizeof exp, "%s/exp_bad", root);
    /* The corrupted block renders (its bytes parse) without the check ... */
    CHECK_EQ_INT(scan(dir_bad, "--verbosity 1 -j2", "got_bad"), 0);
    CHECK_EQ_INT((int)count_lines(got), N_MAIN);
    /* ... and stops the scan at height 4 with it; lines 1..3 are intact. */
    CHECK_EQ_INT(scan(dir_bad, "--verbosity 1 -j2 --verify-merkle", "got_bad"), 65);
    CHECK(file_contains(err, "height 4"));
    CHECK(file_contains(err, "merkle root does not match"));
    char h4[65];
    hexrev(h4, chain[4].hash);
    CHECK(file_contains(err, h4));
    expected(exp, 1, 3, N_MAIN, 1, N_MAIN);
    CHECK(same_files(got, exp));
}

static void test_pipe_and_io(void)
{
    char cmd[16384], st[400];
    /* | head -c 100: a closed pipe ends quietly with status 0 */
    snprintf(st, sizeof st, "%s/pipe_status", root);
    snprintf(cmd, sizeof cmd, "( %s scan --blocksdir %s --verbosity 3 -j2 --progress never 2>%s/pipe.err; "
             "echo $? > %s ) | head -c 100 > /dev/null", cli, dir_ok, root, st);
    CHECK_EQ_INT(sh(cmd), 0);
    size_t n;
    uint8_t *p = slurp(st, &n);
    CHECK(p && n >= 2 && p[0] == '0' && p[1] == '\n');
    free(p);
    snprintf(st, sizeof st, "%s/pipe.err", root);
    p = slurp(st, &n);
    CHECK(p && n == 0); /* nothing on stderr */
    free(p);

    /* An unreadable file (a directory named blk00001.dat: chmod 000 does
     * not stop root) is exit 74 naming its path. */
    char dir[400];
    snprintf(dir, sizeof dir, "%s/unreadable", root);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && cp %s/blk00000.dat %s/rev00000.dat %s/xor.dat %s/ && mkdir -p %s/blk00001.dat",
             dir, dir_ok, dir_ok, dir_ok, dir, dir);
    CHECK_EQ_INT(sh(cmd), 0);
    CHECK_EQ_INT(scan(dir, "--verbosity 3", "got_io"), 74);
    snprintf(st, sizeof st, "%s/got_io.err", root);
    CHECK(file_contains(st, "blk00001.dat"));
    /* A missing directory is missing input (the README's table). */
    snprintf(dir, sizeof dir, "%s/nonexistent", root);
    CHECK_EQ_INT(scan(dir, "", "got_io"), 66);
    CHECK(file_contains(st, "nonexistent"));
    /* An output file that cannot be created. */
    snprintf(cmd, sizeof cmd, "%s scan --blocksdir %s -o %s/no/such/dir/out 2>/dev/null", cli, dir_ok, root);
    CHECK_EQ_INT(sh(cmd), 74);
}

/* The bundled sample (three unrelated blocks, XORed): nothing connects to a
 * genesis, so the best chain is empty; --orphans renders them by BIP34
 * height exactly as `blockkit block` does with their rev records. */
static void test_sample_orphans(void)
{
    char cmd[16384], got[400], exp[400];
    snprintf(got, sizeof got, "%s/got_sample", root);
    snprintf(exp, sizeof exp, "%s/exp_sample", root);
    /* Without --orphans nothing connects to a genesis: an error saying so
     * (13-wrong-network-or-garbage-dir-silent-success), not an empty success. */
    snprintf(cmd, sizeof cmd, "%s scan --blocksdir %s/../../data/sample_blocksdir --verbosity 3 --progress never > %s 2>%s.err",
             cli, BK_TEST_DATA, got, got);
    CHECK_EQ_INT(sh(cmd), 66);
    CHECK_EQ_INT((int)count_lines(got), 0);
    snprintf(exp, sizeof exp, "%s/got_sample.err", root);
    CHECK(file_contains(exp, "no genesis"));
    CHECK(file_contains(exp, "--orphans"));
    snprintf(cmd, sizeof cmd, "%s scan --blocksdir %s/../../data/sample_blocksdir --verbosity 3 --orphans -j2 --progress never > %s",
             cli, BK_TEST_DATA, got);
    CHECK_EQ_INT(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -f %s; for h in 277647 367891 866342; do %s block blocks/block$h.raw "
             "--undo undo/rev_record_block$h.dat --verbosity 3 >> %s; done", exp, cli, exp);
    CHECK_EQ_INT(sh(cmd), 0);
    CHECK(same_files(got, exp));
    snprintf(cmd, sizeof cmd, "%s scan --blocksdir %s/../../data/sample_blocksdir --verbosity 2 --orphans --start 300000 --end 400000 --progress never > %s",
             cli, BK_TEST_DATA, got);
    CHECK_EQ_INT(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s block blocks/block367891.raw --undo undo/rev_record_block367891.dat --verbosity 2 > %s",
             cli, exp);
    CHECK_EQ_INT(sh(cmd), 0);
    CHECK(same_files(got, exp));
    /* --core-compat and --pretty (verbosity 0: bare hex, as bitcoin-cli) */
    snprintf(cmd, sizeof cmd, "%s scan --blocksdir %s/../../data/sample_blocksdir --verbosity 2 --orphans --start 277647 --end 277647 "
             "--core-compat 28 --pretty > %s && %s block blocks/block277647.raw --undo undo/rev_record_block277647.dat "
             "--verbosity 2 --core-compat 28 --pretty > %s", cli, BK_TEST_DATA, got, cli, exp);
    CHECK_EQ_INT(sh(cmd), 0);
    CHECK(same_files(got, exp));
    snprintf(cmd, sizeof cmd, "%s scan --blocksdir %s/../../data/sample_blocksdir --verbosity 0 --orphans --start 277647 --end 277647 "
             "--pretty > %s && %s block blocks/block277647.raw --verbosity 0 --pretty > %s", cli, BK_TEST_DATA, got, cli, exp);
    CHECK_EQ_INT(sh(cmd), 0);
    CHECK(same_files(got, exp));
}

/* SIGINT while the first line is being written (the reader of the FIFO
 * holds it back): the line completes, the scan stops with status 128 + 2
 * and names the height to resume from; the output is whole lines. */
static void test_sigint(void)
{
    char fifo[400], errp[400], exp[400], got[400];
    snprintf(fifo, sizeof fifo, "%s/fifo", root);
    snprintf(errp, sizeof errp, "%s/sigint.err", root);
    snprintf(exp, sizeof exp, "%s/exp_int", root);
    snprintf(got, sizeof got, "%s/got_int", root);
    CHECK(mkfifo(fifo, 0600) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(errp, "w", stderr)) _exit(126);
        execl(cli, cli, "scan", "--blocksdir", dir_ok, "--verbosity", "3", "-j", "2", "--progress", "never", "-o",
              fifo, (char *)NULL);
        _exit(127);
    }
    CHECK(pid > 0);
    FILE *f = fopen(fifo, "rb");
    CHECK(f != NULL);
    if (!f) return;
    tbuf out = {0};
    uint8_t buf[65536];
    size_t r = fread(buf, 1, 1000, f);
    tbuf_put(&out, buf, r);
    kill(pid, SIGINT);
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) tbuf_put(&out, buf, r);
    fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT);
    write_file(root, "got_int", out.p, out.n);
    free(out.p);
    size_t n;
    uint8_t *e = slurp(errp, &n);
    const char *m = e ? strstr((const char *)e, "resume with --start ") : NULL;
    int resume = m ? atoi(m + 20) : -1;
    free(e);
    CHECK(resume >= 2 && resume <= N_MAIN);
    if (resume < 2) return;
    expected(exp, 1, resume - 1, N_MAIN, 3, N_MAIN);
    CHECK(same_files(got, exp));
}

int main(void)
{
    make_tmpdir(root, sizeof root);
    snprintf(cli, sizeof cli, "%s", BK_CLI_PATH);
    snprintf(dir_ok, sizeof dir_ok, "%s/ok", root);
    snprintf(dir_norev, sizeof dir_norev, "%s/norev", root);
    snprintf(dir_bad, sizeof dir_bad, "%s/bad", root);
    build_dir(dir_norev, 5, 0);
    build_dir(dir_bad, 0, 4);
    build_dir(dir_ok, 0, 0); /* last: chain[] holds the good blocks */
    RUN(test_full_chain);
    RUN(test_ranges);
    RUN(test_missing_undo);
    RUN(test_pipe_and_io);
    RUN(test_sample_orphans);
    RUN(test_sigint);
    /* the corrupted directory's blocks, for the expected lines 1..3 (same) */
    RUN(test_verify_merkle);
    if (!getenv("BK_KEEP_TMP")) remove_tree(root);
    return check_finish();
}
