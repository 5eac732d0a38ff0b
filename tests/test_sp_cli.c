/* blockkit sp tweaks over the regtest node (tests/data/regtest): --txs
 * reproduces tests/data/regtest/sp/tweaks.ndjson.zst (computed from
 * Core's getblock verbosity 3 by an independent implementation) byte for
 * byte with -j1 and -j2; the per-block form, HEIGHT and HASH arguments,
 * --dust-limit and --cut-through agree with it (cut-through against the
 * chainstate's coins read by the library's iterator, not the lookup the
 * command uses); a raw block FILE with its undo data; the usage errors.
 * Runs in tests/data. */
#include "check.h"
#include "json_test_util.h"

#include <blockkit/hex.h>
#include <blockkit/utxo.h>

#include <stdint.h>

#define DATADIR BK_REGTEST_DIR "/full"

static char *cli(const char *args, int *status, size_t *len)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", BK_CLI_PATH, args);
    size_t n;
    char *out = run_cmd(cmd, len ? len : &n, status);
    return out;
}

static char *cli_err(const char *args, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1 >/dev/null", BK_CLI_PATH, args);
    size_t n;
    return run_cmd(cmd, &n, status);
}

/* The vector's lines. */
typedef struct vline {
    const char *text;
    size_t len;
    long long height;
    char hash[65], txid[65], tweak[67];
    size_t n_out;
    uint32_t vout[64];
    long long value[64];
} vline;

static vline *lines;
static size_t n_lines;
static char *vector;
static size_t vector_len;

static void field(const char *line, const char *key, char *out, size_t n)
{
    const char *p = strstr(line, key);
    out[0] = 0;
    if (!p) return;
    p += strlen(key);
    memcpy(out, p, n);
    out[n] = 0;
}

static void load_vector(void)
{
    vector = (char *)read_zst("regtest/sp/tweaks.ndjson.zst", &vector_len);
    char *copy = malloc(vector_len + 1);
    memcpy(copy, vector, vector_len + 1);
    size_t cap = 2048;
    lines = calloc(cap, sizeof *lines);
    char *start = vector;
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        if (n_lines == cap) {
            cap *= 2;
            lines = realloc(lines, cap * sizeof *lines);
        }
        vline *v = &lines[n_lines++];
        memset(v, 0, sizeof *v);
        v->text = start;
        v->len = strlen(line);
        start += v->len + 1;
        sscanf(line, "{\"height\":%lld", &v->height);
        field(line, "\"hash\":\"", v->hash, 64);
        field(line, "\"txid\":\"", v->txid, 64);
        field(line, "\"tweak\":\"", v->tweak, 66);
        for (const char *p = strstr(line, "{\"vout\":"); p && v->n_out < 64; p = strstr(p + 1, "{\"vout\":")) {
            unsigned vo;
            long long val;
            const char *q = strstr(p, "\"value\":");
            if (sscanf(p, "{\"vout\":%u", &vo) == 1 && q && sscanf(q, "\"value\":%lld", &val) == 1) {
                v->vout[v->n_out] = vo;
                v->value[v->n_out++] = val;
            }
        }
        CHECK(v->n_out > 0);
    }
    free(copy);
}

static void txs_byte_for_byte_j1_j2(void)
{
    CHECK_EQ_INT(n_lines, 1197);
    for (int j = 1; j <= 2; j++) {
        char args[512];
        snprintf(args, sizeof args, "sp tweaks --datadir '%s' --txs -j%d", DATADIR, j);
        int st;
        size_t len;
        char *out = cli(args, &st, &len);
        CHECK_EQ_INT(st, 0);
        CHECK_EQ_INT(len, vector_len);
        CHECK(len == vector_len && memcmp(out, vector, len) == 0);
        free(out);
    }
}

/* The per-block form: every height 0..939 once, in order, with the
 * vector's tweaks of that height in block order (none: []). */
static void blocks_form_agrees(void)
{
    char args[512];
    snprintf(args, sizeof args, "sp tweaks --datadir '%s' -j2", DATADIR);
    int st;
    size_t len;
    char *out = cli(args, &st, &len);
    CHECK_EQ_INT(st, 0);
    tbuf want = {0};
    size_t k = 0;
    long long blocks = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), blocks++) {
        long long h = -1;
        sscanf(line, "{\"height\":%lld", &h);
        CHECK_EQ_INT(h, blocks);
        char hash[65];
        field(line, "\"hash\":\"", hash, 64);
        want.len = 0;
        char head[160];
        snprintf(head, sizeof head, "{\"height\":%lld,\"hash\":\"%s\",\"tweaks\":[", h, hash);
        tbuf_put(&want, head, strlen(head));
        int first = 1;
        while (k < n_lines && lines[k].height == h) {
            if (!first) tbuf_put(&want, ",", 1);
            tbuf_put(&want, "\"", 1);
            tbuf_put(&want, lines[k].tweak, 66);
            tbuf_put(&want, "\"", 1);
            CHECK_EQ_STR(lines[k].hash, hash);
            first = 0;
            k++;
        }
        tbuf_put(&want, "]}", 2);
        CHECK_EQ_STR(line, want.p);
    }
    CHECK_EQ_INT(blocks, 940);
    CHECK_EQ_INT(k, n_lines);
    free(want.p);
    free(out);
}

static void height_and_hash_arguments(void)
{
    const vline *v = &lines[0];
    char args[512];
    snprintf(args, sizeof args, "sp tweaks --datadir '%s' --txs %lld %s", DATADIR, v->height, v->hash);
    int st;
    size_t len;
    char *out = cli(args, &st, &len);
    CHECK_EQ_INT(st, 0);
    /* the block's lines twice: once per argument, in the order given */
    tbuf want = {0};
    for (int rep = 0; rep < 2; rep++)
        for (size_t k = 0; k < n_lines; k++)
            if (lines[k].height == v->height) {
                tbuf_put(&want, lines[k].text, lines[k].len);
                tbuf_put(&want, "\n", 1);
            }
    CHECK(want.p && len == want.len && memcmp(out, want.p, len) == 0);
    free(want.p);
    free(out);
    snprintf(args, sizeof args, "sp tweaks --datadir '%s' 999999", DATADIR);
    free(cli(args, &st, NULL));
    CHECK_EQ_INT(st, 66);
    snprintf(args, sizeof args, "sp tweaks --datadir '%s' nonsense", DATADIR);
    free(cli(args, &st, NULL));
    CHECK_EQ_INT(st, 64);
}

/* The expected lines of a filter: keep(v) over the vector. */
static void expect_filtered(const char *extra, int (*keep)(const vline *, void *), void *ctx, size_t *kept)
{
    char args[512];
    snprintf(args, sizeof args, "sp tweaks --datadir '%s' --txs -j2 %s", DATADIR, extra);
    int st;
    size_t len;
    char *out = cli(args, &st, &len);
    CHECK_EQ_INT(st, 0);
    tbuf want = {0};
    *kept = 0;
    for (size_t k = 0; k < n_lines; k++)
        if (keep(&lines[k], ctx)) {
            tbuf_put(&want, lines[k].text, lines[k].len);
            tbuf_put(&want, "\n", 1);
            (*kept)++;
        }
    if (!want.p) tbuf_put(&want, "", 0);
    CHECK_EQ_INT(len, want.len);
    CHECK(len == want.len && memcmp(out, want.p, len) == 0);
    free(want.p);
    free(out);
}

static int keep_dust(const vline *v, void *ctx)
{
    long long limit = *(long long *)ctx;
    for (size_t i = 0; i < v->n_out; i++)
        if (v->value[i] >= limit) return 1;
    return 0;
}

static void dust_limit_drops_all_dust_txs(void)
{
    long long limits[] = {1000, 100000, 5000000000LL};
    for (size_t i = 0; i < 3; i++) {
        char extra[64];
        snprintf(extra, sizeof extra, "--dust-limit %lld", limits[i]);
        size_t kept;
        expect_filtered(extra, keep_dust, &limits[i], &kept);
        CHECK(kept < n_lines);
        if (i == 0) CHECK(kept > 0);
    }
}

/* The unspent outpoints of the chainstate, by the library's iterator. */
typedef struct outpoints {
    uint8_t (*op)[36];
    size_t n;
    long long dust;
} outpoints;

static int op_cmp(const void *a, const void *b) { return memcmp(a, b, 36); }

static int keep_unspent(const vline *v, void *ctx)
{
    outpoints *o = ctx;
    uint8_t key[36];
    if (bk_hex_decode_rev(key, v->txid, 32, NULL) != BK_OK) return 0;
    for (size_t i = 0; i < v->n_out; i++) {
        if (v->value[i] < o->dust) continue;
        bk_store_le32(key + 32, v->vout[i]);
        if (bsearch(key, o->op, o->n, 36, op_cmp)) return 1;
    }
    return 0;
}

static void cut_through_drops_spent_txs(void)
{
    bk_chainstate *cs;
    bk_error err;
    CHECK_EQ_INT(bk_chainstate_open(DATADIR "/regtest/chainstate", NULL, NULL, &cs, &err), BK_OK);
    bk_chainstate_iter *it;
    CHECK_EQ_INT(bk_chainstate_iter_new(cs, &it, &err), BK_OK);
    outpoints o = {NULL, 0, 0};
    size_t cap = 0;
    bk_utxo u;
    while (bk_chainstate_iter_next(it, &u)) {
        if (o.n == cap) {
            cap = cap ? 2 * cap : 4096;
            o.op = realloc(o.op, cap * 36);
        }
        memcpy(o.op[o.n], u.txid, 32);
        bk_store_le32(o.op[o.n] + 32, u.vout);
        o.n++;
    }
    CHECK_EQ_INT(bk_chainstate_iter_status(it, &err), BK_OK);
    bk_chainstate_iter_free(it);
    bk_chainstate_close(cs);
    qsort(o.op, o.n, 36, op_cmp);
    size_t kept, kept_dust;
    expect_filtered("--cut-through", keep_unspent, &o, &kept);
    CHECK(kept > 0 && kept < n_lines);
    o.dust = 100000;
    expect_filtered("--cut-through --dust-limit 100000", keep_unspent, &o, &kept_dust);
    CHECK(kept_dust <= kept);
    printf("cut-through keeps %zu of %zu transactions (%zu with a 100000 sat dust limit)\n", kept, n_lines, kept_dust);
    free(o.op);
}

static void raw_block_file_with_undo(void)
{
    int st;
    size_t l1, l2, l3;
    char *a = cli("sp tweaks blocks/block866342.raw --undo undo/rev_record_block866342.dat", &st, &l1);
    CHECK_EQ_INT(st, 0);
    char *b = cli("sp tweaks blocks/block866342.raw --undo undo/block866342_undo.raw", &st, &l2);
    CHECK_EQ_INT(st, 0);
    CHECK(l1 == l2 && memcmp(a, b, l1) == 0);
    static const char head[] =
        "{\"height\":866342,\"hash\":\"000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1\",\"tweaks\":[";
    CHECK(strncmp(a, head, strlen(head)) == 0);
    /* --txs: the same tweaks, one transaction a line */
    char *t = cli("sp tweaks blocks/block866342.raw --undo undo/block866342_undo.raw --txs", &st, &l3);
    CHECK_EQ_INT(st, 0);
    size_t n = 0;
    tbuf want = {0};
    tbuf_put(&want, head, strlen(head));
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n"), n++) {
        char tw[67];
        field(line, "\"tweak\":\"", tw, 66);
        if (n) tbuf_put(&want, ",", 1);
        tbuf_put(&want, "\"", 1);
        tbuf_put(&want, tw, 66);
        tbuf_put(&want, "\"", 1);
    }
    tbuf_put(&want, "]}\n", 3);
    CHECK(n > 1000);
    CHECK(want.len == l1 && memcmp(want.p, a, l1) == 0);
    printf("block 866342: %zu eligible transactions\n", n);
    free(want.p);
    free(a);
    free(b);
    free(t);
    /* no undo data: 66; another block's: 65 */
    free(cli("sp tweaks blocks/block866342.raw", &st, NULL));
    CHECK_EQ_INT(st, 66);
    char *e = cli_err("sp tweaks blocks/block277647.raw --undo undo/block866342_undo.raw", &st);
    CHECK_EQ_INT(st, 65);
    CHECK(strstr(e, "undo data does not match block") != NULL);
    free(e);
}

static void usage_errors(void)
{
    int st;
    char args[512];
    free(cli("sp tweaks blocks/block866342.raw --undo undo/block866342_undo.raw --cut-through", &st, NULL));
    CHECK_EQ_INT(st, 64);
    snprintf(args, sizeof args, "sp tweaks --datadir '%s' --start 10 --end 5", DATADIR);
    free(cli(args, &st, NULL));
    CHECK_EQ_INT(st, 64);
    snprintf(args, sizeof args, "sp tweaks --datadir '%s' --start 5000", DATADIR);
    free(cli(args, &st, NULL));
    CHECK_EQ_INT(st, 66);
    free(cli("sp frobnicate", &st, NULL));
    CHECK_EQ_INT(st, 64);
    /* --help says where the scan key comes from */
    size_t len;
    char *h = cli("sp scan --help", &st, &len);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(h, "never taken from the") != NULL);
    free(h);
}

int main(void)
{
    load_vector();
    RUN(txs_byte_for_byte_j1_j2);
    RUN(blocks_form_agrees);
    RUN(height_and_hash_arguments);
    RUN(dust_limit_drops_all_dust_txs);
    RUN(cut_through_drops_spent_txs);
    RUN(raw_block_file_with_undo);
    RUN(usage_errors);
    free(lines);
    free(vector);
    return check_finish();
}
