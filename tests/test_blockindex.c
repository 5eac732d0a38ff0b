/* Core's block index as the chain source, against the real bitcoind regtest
 * datadir (tests/data/regtest, unpacked by the `regtest` fixture into
 * BK_REGTEST_DIR): record decoders on every record of its index, corrupt
 * records, the chain from the index (heights, tip, positions, pruning) and
 * every active and stale block rendered with that context equal to Core's
 * getblock / getblockheader answers, the pruned copy, a corrupt index, and
 * snapshots of a LevelDB directory that a second process is writing. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockindex.h>
#include <blockkit/json.h>
#include <blockkit/leveldb.h>

#include <leveldb/c.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "deobfuscate.h"
#include "json_test_util.h"

#define FULL BK_REGTEST_DIR "/full"
#define PRUNED BK_REGTEST_DIR "/pruned"

static char g_tmp[4096]; /* scratch directory beside the fixture (same filesystem) */

static void sh(const char *fmt, const char *a, const char *b)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    if (system(cmd) != 0) {
        fprintf(stderr, "command failed: %s\n", cmd);
        exit(2);
    }
}

/* A writable copy of a fixture directory. */
static void copy_dir(const char *src, const char *dst)
{
    char cmd[32768];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp -R '%s'/. '%s' && chmod -R u+w '%s'", dst, dst, src,
             dst, dst);
    if (system(cmd) != 0) {
        fprintf(stderr, "command failed: %s\n", cmd);
        exit(2);
    }
}

static void hex_rev(char out[65], const uint8_t h[32])
{
    bk_hex_encode_rev(out, h, 32);
    out[64] = 0;
}

static int unhex_rev(const char *s, uint8_t out[32])
{
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return 0;
        out[31 - i] = (uint8_t)v;
    }
    return 1;
}

/* ---- raw LevelDB (a copy, never the fixture) ---- */

typedef struct rec {
    uint8_t *k, *v;
    size_t kl, vl;
} rec;

typedef struct recs {
    rec *r;
    size_t n;
} recs;

static void read_all_raw(const char *dir, recs *out)
{
    char *e = NULL;
    leveldb_options_t *o = leveldb_options_create();
    leveldb_t *db = leveldb_open(o, dir, &e);
    if (e) {
        fprintf(stderr, "leveldb_open %s: %s\n", dir, e);
        exit(2);
    }
    leveldb_readoptions_t *ro = leveldb_readoptions_create();
    leveldb_iterator_t *it = leveldb_create_iterator(db, ro);
    size_t cap = 0;
    out->r = NULL;
    out->n = 0;
    for (leveldb_iter_seek_to_first(it); leveldb_iter_valid(it); leveldb_iter_next(it)) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 1024;
            out->r = realloc(out->r, cap * sizeof *out->r);
        }
        rec *r = &out->r[out->n++];
        const char *k = leveldb_iter_key(it, &r->kl), *v = leveldb_iter_value(it, &r->vl);
        r->k = malloc(r->kl + 1);
        r->v = malloc(r->vl + 1);
        memcpy(r->k, k, r->kl);
        memcpy(r->v, v, r->vl);
    }
    leveldb_iter_destroy(it);
    leveldb_readoptions_destroy(ro);
    leveldb_close(db);
    leveldb_options_destroy(o);
}

static void recs_free(recs *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->r[i].k);
        free(rs->r[i].v);
    }
    free(rs->r);
}

static void raw_put(const char *dir, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    char *e = NULL;
    leveldb_options_t *o = leveldb_options_create();
    leveldb_t *db = leveldb_open(o, dir, &e);
    if (e) {
        fprintf(stderr, "leveldb_open %s: %s\n", dir, e);
        exit(2);
    }
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    leveldb_writeoptions_set_sync(wo, 1);
    if (v) leveldb_put(db, wo, (const char *)k, kl, (const char *)v, vl, &e);
    else leveldb_delete(db, wo, (const char *)k, kl, &e);
    if (e) {
        fprintf(stderr, "leveldb write: %s\n", e);
        exit(2);
    }
    leveldb_writeoptions_destroy(wo);
    leveldb_close(db);
    leveldb_options_destroy(o);
}

/* ---- record decoders on the real index ---- */

static recs g_index; /* every record of the full datadir's blocks/index */

static const rec *find_block_rec(const char *hash_hex)
{
    uint8_t h[32];
    unhex_rev(hash_hex, h);
    for (size_t i = 0; i < g_index.n; i++)
        if (g_index.r[i].kl == 33 && g_index.r[i].k[0] == 'b' && !memcmp(g_index.r[i].k + 1, h, 32))
            return &g_index.r[i];
    return NULL;
}

static void test_decode_regtest_records(void)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/rawidx", g_tmp);
    copy_dir(FULL "/regtest/blocks/index", dir);
    read_all_raw(dir, &g_index);
    size_t nb = 0, nf = 0, nl = 0, other = 0, bad = 0;
    for (size_t i = 0; i < g_index.n; i++) {
        const rec *r = &g_index.r[i];
        bk_error err;
        switch (bk_index_key_kind_of(r->k, r->kl)) {
        case BK_INDEX_KEY_BLOCK: {
            bk_disk_block_index d;
            if (bk_disk_block_index_decode(r->k, r->kl, r->v, r->vl, 1, &d, &err) != BK_OK) {
                fprintf(stderr, "%s\n", err.msg);
                bad++;
            }
            nb++;
            break;
        }
        case BK_INDEX_KEY_FILE: {
            bk_block_file_info fi;
            if (bk_block_file_info_decode(r->k, r->kl, r->v, r->vl, &fi, &err) != BK_OK) bad++;
            else CHECK(fi.n_blocks > 0 && fi.size > 0 && fi.height_first <= fi.height_last);
            nf++;
            break;
        }
        case BK_INDEX_KEY_LAST_FILE: {
            int32_t lf = -1;
            if (bk_index_last_file_decode(r->v, r->vl, &lf, &err) != BK_OK) bad++;
            CHECK_EQ_INT(lf, 86); /* blk00000..blk00086 */
            nl++;
            break;
        }
        default:
            other++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(nb, 979); /* 940 active + 39 off-chain (README) */
    CHECK_EQ_INT(nf, 87);
    CHECK_EQ_INT(nl, 1);
    CHECK_EQ_INT(other, 0);

    /* The genesis record: data, never raised past BLOCK_VALID_TRANSACTIONS,
     * no undo; two records failed (595 and 938). */
    bk_disk_block_index d;
    bk_error err;
    const rec *g = find_block_rec("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206");
    CHECK(g != NULL);
    if (g) {
        CHECK(bk_disk_block_index_decode(g->k, g->kl, g->v, g->vl, 1, &d, &err) == BK_OK);
        CHECK_EQ_INT(d.height, 0);
        CHECK_EQ_INT(d.status, BK_BLOCK_OPT_WITNESS | BK_BLOCK_HAVE_DATA | BK_BLOCK_VALID_TRANSACTIONS);
        CHECK_EQ_INT(d.n_tx, 1);
        CHECK_EQ_INT(d.file, 0);
        CHECK_EQ_INT(d.data_pos, 8); /* the first record of blk00000.dat */
        CHECK_EQ_INT(d.undo_pos, 0);
    }
    int failed = 0;
    for (size_t i = 0; i < g_index.n; i++)
        if (g_index.r[i].k[0] == 'b' &&
            bk_disk_block_index_decode(g_index.r[i].k, g_index.r[i].kl, g_index.r[i].v, g_index.r[i].vl, 1, &d, &err) == BK_OK)
            failed += (d.status & BK_BLOCK_FAILED_MASK) != 0;
    CHECK_EQ_INT(failed, 2);
}

/* Every way a 'b' record can be broken names the key and the byte. */
static void test_decode_corrupt_records(void)
{
    /* A real record with data and undo: the first 'b' record whose status has both. */
    const rec *src = NULL;
    bk_disk_block_index d;
    bk_error err;
    for (size_t i = 0; i < g_index.n && !src; i++) {
        const rec *x = &g_index.r[i];
        if (x->kl == 33 && x->k[0] == 'b' && bk_disk_block_index_decode(x->k, x->kl, x->v, x->vl, 1, &d, &err) == BK_OK &&
            (d.status & BK_BLOCK_HAVE_MASK) == BK_BLOCK_HAVE_MASK && d.undo_pos >= 128)
            src = x;
    }
    CHECK(src != NULL);
    if (!src) return;
    char keyhex[67];
    bk_hex_encode(keyhex, src->k, 33);
    keyhex[66] = 0;
    /* Every truncation fails, naming the key. */
    for (size_t n = 0; n < src->vl; n++) {
        bk_status st = bk_disk_block_index_decode(src->k, src->kl, src->v, n, 1, &d, &err);
        CHECK(st == BK_ERR_TRUNCATED);
        CHECK(strstr(err.msg, keyhex) != NULL);
        CHECK(err.offset <= n);
    }
    /* A trailing byte. */
    uint8_t buf[256];
    memcpy(buf, src->v, src->vl);
    buf[src->vl] = 0;
    CHECK(bk_disk_block_index_decode(src->k, src->kl, buf, src->vl + 1, 1, &d, &err) == BK_ERR_TRAILING);
    CHECK(strstr(err.msg, keyhex) != NULL);
    /* Re-encode with chosen fields. */
    bk_disk_block_index good;
    CHECK(bk_disk_block_index_decode(src->k, src->kl, src->v, src->vl, 1, &good, &err) == BK_OK);
    struct {
        uint32_t status;
        int ok;
        bk_status st;
    } sv[] = {
        {good.status, 1, BK_OK},
        {good.status | 0x200, 0, BK_ERR_VALUE},                          /* unknown bit */
        {(good.status & ~BK_BLOCK_VALID_MASK) | 6, 0, BK_ERR_VALUE},     /* validity 6 */
        {(good.status & ~BK_BLOCK_VALID_MASK) | 7, 0, BK_ERR_VALUE},     /* validity 7 */
        {good.status | 0x80000000u, 0, BK_ERR_VALUE},
    };
    for (size_t i = 0; i < sizeof sv / sizeof sv[0]; i++) {
        size_t n = 0;
        n += bk_varint_encode(buf + n, (uint64_t)good.client_version);
        n += bk_varint_encode(buf + n, (uint64_t)good.height);
        size_t status_at = n;
        n += bk_varint_encode(buf + n, sv[i].status);
        n += bk_varint_encode(buf + n, good.n_tx);
        n += bk_varint_encode(buf + n, (uint64_t)good.file);
        n += bk_varint_encode(buf + n, good.data_pos);
        n += bk_varint_encode(buf + n, good.undo_pos);
        memcpy(buf + n, src->v + src->vl - 80, 80);
        n += 80;
        bk_status st = bk_disk_block_index_decode(src->k, src->kl, buf, n, 1, &d, &err);
        CHECK_EQ_INT(st, sv[i].st);
        if (st != BK_OK) {
            CHECK(strstr(err.msg, keyhex) != NULL);
            CHECK_EQ_INT(err.offset, status_at);
        } else {
            CHECK_EQ_INT(n, src->vl); /* our encoder agrees with Core's bytes */
            CHECK_MEM(buf, src->v, n);
        }
    }
    /* VARINT overflow: height over INT32_MAX, status over UINT32_MAX. */
    {
        size_t n = 0;
        n += bk_varint_encode(buf + n, (uint64_t)good.client_version);
        size_t h_at = n;
        n += bk_varint_encode(buf + n, (uint64_t)INT32_MAX + 1);
        CHECK(bk_disk_block_index_decode(src->k, src->kl, buf, n, 1, &d, &err) == BK_ERR_OVERFLOW);
        CHECK(strstr(err.msg, "height") != NULL && strstr(err.msg, keyhex) != NULL);
        CHECK(err.offset > h_at && err.offset < n);
        n = h_at;
        n += bk_varint_encode(buf + n, 5);
        n += bk_varint_encode(buf + n, (uint64_t)UINT32_MAX + 1);
        CHECK(bk_disk_block_index_decode(src->k, src->kl, buf, n, 1, &d, &err) == BK_ERR_OVERFLOW);
        CHECK(strstr(err.msg, "status") != NULL);
        /* The largest values fit. */
        n = 0;
        n += bk_varint_encode(buf + n, INT32_MAX);
        n += bk_varint_encode(buf + n, INT32_MAX);
        n += bk_varint_encode(buf + n, 0);
        n += bk_varint_encode(buf + n, UINT32_MAX);
        memcpy(buf + n, src->v + src->vl - 80, 80);
        n += 80;
        CHECK(bk_disk_block_index_decode(src->k, src->kl, buf, n, 0, &d, &err) == BK_OK);
        CHECK_EQ_INT(d.height, INT32_MAX);
        CHECK_EQ_INT(d.n_tx, UINT32_MAX);
        /* Data without a tx count. */
        n = 0;
        n += bk_varint_encode(buf + n, 1);
        n += bk_varint_encode(buf + n, 1);
        size_t s_at = n;
        n += bk_varint_encode(buf + n, BK_BLOCK_HAVE_DATA | 3);
        n += bk_varint_encode(buf + n, 0);
        CHECK(bk_disk_block_index_decode(src->k, src->kl, buf, n, 0, &d, &err) == BK_ERR_VALUE);
        CHECK(err.offset > s_at);
    }
    /* A header byte changed: the hash no longer matches the key. */
    memcpy(buf, src->v, src->vl);
    buf[src->vl - 1] ^= 1;
    CHECK(bk_disk_block_index_decode(src->k, src->kl, buf, src->vl, 1, &d, &err) == BK_ERR_MISMATCH);
    CHECK(strstr(err.msg, keyhex) != NULL);
    CHECK(bk_disk_block_index_decode(src->k, src->kl, buf, src->vl, 0, &d, &err) == BK_OK);
    /* Wrong keys. */
    CHECK(bk_disk_block_index_decode(src->k, 32, src->v, src->vl, 1, &d, &err) == BK_ERR_ARG);

    /* 'f', 'l', 'F'. */
    uint8_t fk[5] = {'f', 3, 0, 0, 0};
    bk_block_file_info fi;
    size_t n = 0;
    for (int i = 0; i < 7; i++) n += bk_varint_encode(buf + n, (uint64_t)(i + 1) * 1000);
    CHECK(bk_block_file_info_decode(fk, 5, buf, n, &fi, &err) == BK_OK);
    CHECK_EQ_INT(fi.file, 3);
    CHECK_EQ_INT(fi.size, 2000);
    CHECK_EQ_INT(fi.time_last, 7000);
    CHECK(bk_block_file_info_decode(fk, 5, buf, n - 1, &fi, &err) == BK_ERR_TRUNCATED);
    CHECK(strstr(err.msg, "6603000000") != NULL);
    CHECK(bk_block_file_info_decode(fk, 5, buf, n + 1, &fi, &err) == BK_ERR_TRAILING);
    int32_t lf;
    CHECK(bk_index_last_file_decode(buf, 3, &lf, &err) == BK_ERR_TRUNCATED);
    CHECK(bk_index_last_file_decode((const uint8_t *)"\x05\0\0\0", 4, &lf, &err) == BK_OK && lf == 5);
    CHECK(bk_index_last_file_decode((const uint8_t *)"\0\0\0\x80", 4, &lf, &err) == BK_ERR_VALUE);
    const uint8_t *name;
    size_t nlen;
    int fv;
    const uint8_t flag_key[] = "F\x10prunedblockfiles";
    CHECK(bk_index_flag_decode(flag_key, 18, (const uint8_t *)"1", 1, &name, &nlen, &fv, &err) == BK_OK);
    CHECK(nlen == 16 && !memcmp(name, "prunedblockfiles", 16) && fv == 1);
    CHECK(bk_index_flag_decode(flag_key, 17, (const uint8_t *)"1", 1, &name, &nlen, &fv, &err) == BK_ERR_INVALID);
    CHECK(bk_index_flag_decode(flag_key, 18, (const uint8_t *)"2", 1, &name, &nlen, &fv, &err) == BK_ERR_VALUE);

    /* Obfuscation key record. */
    uint8_t ok[BK_OBFUSCATE_KEY_MAX];
    size_t okl;
    CHECK(bk_obfuscate_key_decode((const uint8_t *)"\x08\x42\x21\x2d\xa8\xf6\x59\xff\xa6", 9, ok, &okl, &err) == BK_OK);
    CHECK(okl == 8 && ok[0] == 0x42 && ok[7] == 0xa6);
    CHECK(bk_obfuscate_key_decode((const uint8_t *)"\x08\x42", 2, ok, &okl, &err) == BK_ERR_TRUNCATED);
    CHECK(bk_obfuscate_key_decode((const uint8_t *)"\x00", 1, ok, &okl, &err) == BK_OK && okl == 0);
}

/* ---- Core's answers ---- */

typedef struct lines {
    char *buf;
    char **l;
    size_t n;
} lines;

static void load_lines(const char *name, lines *out)
{
    size_t len;
    out->buf = (char *)read_zst(name, &len);
    size_t cap = 1024;
    out->l = malloc(cap * sizeof *out->l);
    out->n = 0;
    for (char *p = out->buf; *p;) {
        char *e = strchr(p, '\n');
        if (e) *e = 0;
        if (out->n == cap) out->l = realloc(out->l, (cap *= 2) * sizeof *out->l);
        out->l[out->n++] = p;
        if (!e) break;
        p = e + 1;
    }
}

static void lines_free(lines *ls)
{
    free(ls->buf);
    free(ls->l);
}

/* The hash member of one of our wrapper lines. */
static int line_hash(const char *line, uint8_t out[32])
{
    const char *h = strstr(line, "\"hash\":\"");
    return h && unhex_rev(h + 8, out);
}

/* Core's bytes: after `,"core":` to the line's final `}`. */
static char *core_part(char *line)
{
    char *p = strstr(line, ",\"core\":");
    if (!p) return NULL;
    p += 8;
    size_t n = strlen(p);
    if (n && p[n - 1] == '}') p[n - 1] = 0;
    return p;
}

/* ---- rendering with the chain's context ---- */

typedef struct renderer {
    bk_blocksdir dir;
    bk_block_decoder dec;
    bk_writer w;
} renderer;

static void renderer_init(renderer *r, const char *blocksdir)
{
    bk_error err;
    if (bk_blocksdir_open(&r->dir, blocksdir, BK_NET_REGTEST, NULL, &err) != BK_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
    bk_block_decoder_init(&r->dec, NULL);
    bk_writer_init(&r->w, NULL);
}

static void renderer_free(renderer *r)
{
    bk_writer_free(&r->w);
    bk_block_decoder_free(&r->dec);
    bk_blocksdir_close(&r->dir);
}

/* getblock (verbosity 0..3) or getblockheader (verbosity -1) for e. */
static const char *render(renderer *r, const bk_chain *c, const bk_chain_entry *e, int verbosity)
{
    bk_error err;
    bk_blockfile bf, rf;
    const uint8_t *bytes, *ubytes;
    bk_block b;
    bk_block_undo u;
    if (e->no_data) return "(no data)";
    if (bk_blocksdir_open_file(&r->dir, BK_FILE_BLK, e->file, &bf, &err) != BK_OK) return "(no blk file)";
    uint8_t *buf = malloc(e->size);
    if (bk_blockfile_bytes(&bf, e->offset, e->size, buf, e->size, &bytes, &err) != BK_OK ||
        bk_block_decode(&r->dec, bytes, e->size, &b, &err) != BK_OK) {
        free(buf);
        bk_blockfile_close(&bf);
        return "(block does not decode)";
    }
    uint8_t h[32];
    bk_block_hash(&b, h);
    if (memcmp(h, e->hash, 32)) {
        free(buf);
        bk_blockfile_close(&bf);
        return "(data position holds another block)";
    }
    uint8_t *ubuf = NULL;
    int have_undo = 0;
    if (verbosity >= 2 && e->has_undo) {
        if (bk_blocksdir_open_file(&r->dir, BK_FILE_REV, e->undo_file, &rf, &err) != BK_OK) return "(no rev file)";
        ubuf = malloc(e->undo_size + 32);
        uint8_t ck[32];
        if (bk_blockfile_bytes(&rf, e->undo_offset, e->undo_size, ubuf, e->undo_size, &ubytes, &err) != BK_OK ||
            bk_blockfile_copy(&rf, e->undo_offset + e->undo_size, ck, 32, &err) != BK_OK ||
            bk_undo_checksum_verify(ubytes, e->undo_size, e->prev_hash, ck, &err) != BK_OK ||
            bk_block_undo_parse(ubytes, e->undo_size, &u, &err) != BK_OK) {
            bk_blockfile_close(&rf);
            return "(undo does not verify)";
        }
        have_undo = 1;
    }
    bk_chain_context ctx;
    bk_writer_reset(&r->w);
    bk_json j;
    bk_json_init(&j, &r->w, 0);
    bk_block_json_opts o;
    bk_block_json_opts_init(&o);
    o.core_version = 28;
    o.verbosity = verbosity < 0 ? 1 : verbosity;
    bk_status st = bk_chain_context_fill(c, e, &ctx, &err);
    if (st == BK_OK)
        st = verbosity < 0 ? bk_json_block_header(&j, &b, &ctx, &o, &err)
                           : bk_json_block(&j, &b, have_undo ? &u : NULL, &ctx, &o, &err);
    if (have_undo) bk_blockfile_close(&rf);
    bk_blockfile_close(&bf);
    free(buf);
    free(ubuf);
    if (st != BK_OK) {
        fprintf(stderr, "render: %s\n", err.msg);
        return "(render failed)";
    }
    bk_writer_putc(&r->w, 0);
    return (const char *)r->w.data;
}

static int build(bk_chain *c, const char *datadir, bk_error *err)
{
    bk_chain_opts o;
    memset(&o, 0, sizeof o);
    o.tmpdir = g_tmp;
    return bk_chain_build_index(c, datadir, BK_NET_REGTEST, &o, NULL, err);
}

/* ---- the full datadir ---- */

static void test_chain_full(void)
{
    bk_chain c;
    bk_error err;
    bk_status st = build(&c, FULL, &err);
    CHECK_EQ_INT(st, BK_OK);
    if (st != BK_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    CHECK(c.from_index && c.tip_from_chainstate);
    CHECK_EQ_INT(c.n_entries, 979);
    CHECK_EQ_INT(c.n_active, 940);
    CHECK_EQ_INT(c.n_stale, 39);
    CHECK_EQ_INT(c.n_appended, 0);
    CHECK_EQ_INT(c.n_no_data, 0);
    CHECK_EQ_INT(c.prune_height, 0);
    CHECK_EQ_INT(c.last_file, 86);
    CHECK(!c.pruned);
    /* bk_chain_find sees every entry (the table agrees with chain.c's). */
    size_t found = 0;
    for (size_t k = 0; k < c.n_entries; k++) found += bk_chain_find(&c, c.entries[k].hash) == &c.entries[k];
    CHECK_EQ_INT(found, c.n_entries);
    /* The best chain equals getblockhash at every height. */
    size_t len;
    char *tsv = (char *)check_read_file("regtest/bestchain.tsv", &len);
    int bad = 0, heights = 0;
    for (char *p = tsv; *p;) {
        int h;
        char hex[65];
        if (sscanf(p, "%d\t%64s", &h, hex) != 2) break;
        const bk_chain_entry *e = bk_chain_at_height(&c, h);
        char got[65];
        if (e) hex_rev(got, e->hash);
        if (!e || strcmp(got, hex) != 0) bad++;
        heights++;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    free(tsv);
    CHECK_EQ_INT(heights, 940);
    CHECK_EQ_INT(bad, 0);

    renderer r;
    renderer_init(&r, FULL "/regtest/blocks");
    /* getblock verbosity 1 and 3 at every active height. */
    static const char *const names[2] = {"regtest/core_getblock_v1.ndjson.zst", "regtest/core_getblock_v3.ndjson.zst"};
    for (int v = 0; v < 2; v++) {
        lines ls;
        load_lines(names[v], &ls);
        CHECK_EQ_INT(ls.n, 940);
        int mism = 0;
        for (size_t h = 0; h < ls.n; h++) {
            const bk_chain_entry *e = bk_chain_at_height(&c, (int64_t)h);
            const char *got = e ? render(&r, &c, e, v ? 3 : 1) : "(none)";
            if (strcmp(got, ls.l[h]) != 0) {
                if (mism++ < 3)
                    fprintf(stderr, "getblock v%d height %zu differs:\n got  %.300s\n want %.300s\n", v ? 3 : 1, h,
                            got, ls.l[h]);
            }
        }
        CHECK_EQ_INT(mism, 0);
        lines_free(&ls);
    }
    /* Off-chain blocks: getblock 3 (stale_v3), including the invalid ones
     * (595, 938), the valid-headers side blocks and the 584 sibling. */
    lines ls;
    load_lines("regtest/stale_v3.ndjson.zst", &ls);
    CHECK_EQ_INT(ls.n, 39);
    int mism = 0, failed = 0, no_undo = 0;
    for (size_t i = 0; i < ls.n; i++) {
        uint8_t h[32];
        const bk_chain_entry *e = line_hash(ls.l[i], h) ? bk_chain_find(&c, h) : NULL;
        char *want = core_part(ls.l[i]);
        const char *got = e ? render(&r, &c, e, 3) : "(not in the chain)";
        if (e && e->active) got = "(active)";
        if (e) {
            failed += e->failed;
            no_undo += !e->has_undo;
        }
        if (!want || strcmp(got, want) != 0) {
            if (mism++ < 3) fprintf(stderr, "stale block %zu differs:\n got  %.300s\n want %.300s\n", i, got, want);
        }
    }
    CHECK_EQ_INT(mism, 0);
    CHECK_EQ_INT(failed, 2);  /* 595 and 938 */
    CHECK_EQ_INT(no_undo, 7); /* those two, 300, 450-452, 582 */
    lines_free(&ls);
    /* getblockheader of all 979 blocks. */
    load_lines("regtest/getblockheader.ndjson.zst", &ls);
    CHECK_EQ_INT(ls.n, 979);
    mism = 0;
    for (size_t i = 0; i < ls.n; i++) {
        uint8_t h[32];
        const bk_chain_entry *e = line_hash(ls.l[i], h) ? bk_chain_find(&c, h) : NULL;
        int active = strstr(ls.l[i], "\"active\":true") != NULL;
        char *want = core_part(ls.l[i]);
        const char *got = e ? render(&r, &c, e, -1) : "(not in the chain)";
        if (!want || strcmp(got, want) != 0 || !e || e->active != active) {
            if (mism++ < 3) fprintf(stderr, "header %zu differs:\n got  %.300s\n want %.300s\n", i, got, want);
        }
    }
    CHECK_EQ_INT(mism, 0);
    lines_free(&ls);

    /* 584: the active B and the stale A, same parent, each its own undo. */
    const bk_chain_entry *b584 = bk_chain_at_height(&c, 584);
    CHECK(b584 && b584->has_undo);
    for (size_t k = 0; b584 && k < c.n_entries; k++) {
        const bk_chain_entry *e = &c.entries[k];
        if (e->height == 584 && e != b584) {
            CHECK(!memcmp(e->prev_hash, b584->prev_hash, 32));
            CHECK(e->has_undo && e->undo_file == b584->undo_file && e->undo_offset < b584->undo_offset);
        }
    }
    renderer_free(&r);
    bk_chain_free(&c);
}

/* trust_positions: the same sizes, positions and chain without reading
 * each record header, on the full and the pruned datadir. */
static void test_trust_positions(void)
{
    static const char *const dd[2] = {FULL, PRUNED};
    for (int i = 0; i < 2; i++) {
        char blocks[512], cs[512];
        snprintf(blocks, sizeof blocks, "%s/regtest/blocks", dd[i]);
        snprintf(cs, sizeof cs, "%s/regtest/chainstate", dd[i]);
        bk_chain a, b;
        bk_error err;
        bk_chain_opts o;
        memset(&o, 0, sizeof o);
        o.tmpdir = g_tmp;
        bk_index_dirs d1 = {.blocksdir = blocks, .chainstatedir = cs};
        bk_index_dirs d2 = d1;
        d2.trust_positions = 1;
        CHECK_EQ_INT(bk_chain_build_index_dirs(&a, &d1, BK_NET_REGTEST, &o, NULL, &err), BK_OK);
        CHECK_EQ_INT(bk_chain_build_index_dirs(&b, &d2, BK_NET_REGTEST, &o, NULL, &err), BK_OK);
        CHECK_EQ_INT(a.n_entries, b.n_entries);
        size_t diff = 0;
        for (size_t k = 0; k < a.n_entries && k < b.n_entries; k++) {
            const bk_chain_entry *x = &a.entries[k], *y = &b.entries[k];
            diff += memcmp(x->hash, y->hash, 32) || x->size != y->size || x->offset != y->offset ||
                    x->undo_size != y->undo_size || x->undo_offset != y->undo_offset || x->active != y->active ||
                    memcmp(x->chainwork, y->chainwork, 32) || x->mediantime != y->mediantime;
        }
        CHECK_EQ_INT(diff, 0);
        CHECK(a.tip == b.tip && a.n_active == b.n_active);
        bk_chain_free(&a);
        bk_chain_free(&b);
    }
    /* Two records at one position overlap: an error naming the key even
     * without reading the files. */
    char dd2[4200], idx[4300], blocks[4300];
    snprintf(dd2, sizeof dd2, "%s/trust", g_tmp);
    snprintf(idx, sizeof idx, "%s/regtest/blocks/index", dd2);
    snprintf(blocks, sizeof blocks, "%s/regtest/blocks", dd2);
    copy_dir(FULL, dd2);
    const rec *tip = find_block_rec("50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6");
    bk_disk_block_index d;
    bk_error err;
    CHECK(tip && bk_disk_block_index_decode(tip->k, tip->kl, tip->v, tip->vl, 1, &d, &err) == BK_OK);
    if (!tip) return;
    uint8_t buf[256];
    size_t n = 0;
    n += bk_varint_encode(buf + n, (uint64_t)d.client_version);
    n += bk_varint_encode(buf + n, (uint64_t)d.height);
    n += bk_varint_encode(buf + n, d.status);
    n += bk_varint_encode(buf + n, d.n_tx);
    n += bk_varint_encode(buf + n, (uint64_t)d.file);
    n += bk_varint_encode(buf + n, 8); /* the file's first record */
    n += bk_varint_encode(buf + n, d.undo_pos);
    memcpy(buf + n, tip->v + tip->vl - 80, 80);
    n += 80;
    raw_put(idx, tip->k, tip->kl, buf, n);
    bk_index_dirs d3 = {.blocksdir = blocks, .trust_positions = 1};
    bk_chain c;
    bk_chain_opts o;
    memset(&o, 0, sizeof o);
    o.tmpdir = g_tmp;
    CHECK(bk_chain_build_index_dirs(&c, &d3, BK_NET_REGTEST, &o, NULL, &err) == BK_ERR_INVALID);
    char kh[67];
    bk_hex_encode(kh, tip->k, 33);
    kh[66] = 0;
    CHECK(strstr(err.msg, "next record") != NULL);
    CHECK(strstr(err.msg, "blocks/index key 62") != NULL);
    (void)kh;
    sh("rm -rf '%s'%s", dd2, "");
}

/* The 'b' records are read on two threads (key halves) that race for the
 * height slots; the result must not depend on who wins. Run serially both
 * ways (the high half first makes every height the halves share end in a
 * swap) and on two threads: every entry, the best chain and the counts
 * equal; and equal to test_chain_full's Core answers through the normal
 * build. */
extern int bk_chain_index_test_order;

static int entries_equal(const bk_chain *a, const bk_chain *b)
{
    if (a->n_entries != b->n_entries || a->n_active != b->n_active || a->tip != b->tip ||
        a->n_no_data != b->n_no_data || a->n_stale != b->n_stale || a->prune_height != b->prune_height)
        return 0;
    for (size_t k = 0; k < a->n_entries; k++) {
        const bk_chain_entry *x = &a->entries[k], *y = &b->entries[k];
        if (memcmp(x->hash, y->hash, 32) || memcmp(x->chainwork, y->chainwork, 32) || x->height != y->height ||
            x->parent != y->parent || x->next != y->next || x->size != y->size || x->offset != y->offset ||
            x->undo_size != y->undo_size || x->undo_offset != y->undo_offset || x->active != y->active ||
            x->mediantime != y->mediantime || x->status != y->status || x->no_data != y->no_data)
            return 0;
    }
    for (size_t h = 0; h < a->n_active; h++)
        if (a->active[h] != b->active[h]) return 0;
    return 1;
}

static void test_thread_orders(void)
{
    static const char *const dd[2] = {FULL, PRUNED};
    for (int i = 0; i < 2; i++) {
        bk_chain c[3];
        bk_error err;
        for (int order = 0; order < 3; order++) {
            bk_chain_index_test_order = order;
            CHECK_EQ_INT(build(&c[order], dd[i], &err), BK_OK);
        }
        bk_chain_index_test_order = 0;
        CHECK(entries_equal(&c[0], &c[1]));
        CHECK(entries_equal(&c[0], &c[2]));
        /* Height order, key order within a height. */
        size_t bad = 0;
        for (size_t k = 1; k < c[2].n_entries; k++) {
            const bk_chain_entry *x = &c[2].entries[k - 1], *y = &c[2].entries[k];
            bad += x->height > y->height || (x->height == y->height && memcmp(x->hash, y->hash, 32) >= 0);
        }
        CHECK_EQ_INT(bad, 0);
        for (int order = 0; order < 3; order++) bk_chain_free(&c[order]);
    }
}

/* ---- the pruned copy ---- */

static void test_chain_pruned(void)
{
    bk_chain c;
    bk_error err;
    bk_status st = build(&c, PRUNED, &err);
    CHECK_EQ_INT(st, BK_OK);
    if (st != BK_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    CHECK(c.pruned);
    CHECK_EQ_INT(c.prune_height, 448); /* pruned/getblockchaininfo.json pruneheight */
    CHECK_EQ_INT(c.n_entries, 979);
    CHECK_EQ_INT(c.n_active, 940);
    CHECK_EQ_INT(c.n_no_data, 448); /* heights 0..447 */
    renderer r;
    renderer_init(&r, PRUNED "/regtest/blocks");
    for (int v = 0; v <= 3; v++) {
        char name[64];
        snprintf(name, sizeof name, "regtest/pruned/getblock_v%d.ndjson.zst", v);
        lines ls;
        load_lines(name, &ls);
        CHECK_EQ_INT(ls.n, 153 + 39);
        int mism = 0, pruned = 0;
        for (size_t i = 0; i < ls.n; i++) {
            uint8_t h[32];
            const bk_chain_entry *e = line_hash(ls.l[i], h) ? bk_chain_find(&c, h) : NULL;
            int is_error = strstr(ls.l[i], ",\"error\":{\"code\":-1,\"message\":\"Block not available (pruned data)\"}") != NULL;
            if (is_error) {
                pruned++;
                if (!e || !e->no_data) mism++;
                continue;
            }
            char *want = core_part(ls.l[i]);
            const char *got = e ? render(&r, &c, e, v) : "(not in the chain)";
            if (!want || strcmp(got, want) != 0) {
                if (mism++ < 3)
                    fprintf(stderr, "pruned getblock v%d line %zu differs:\n got  %.200s\n want %.200s\n", v, i, got,
                            want);
            }
        }
        CHECK(pruned > 0);
        CHECK_EQ_INT(mism, 0);
        lines_free(&ls);
    }
    /* getblockheader answers for every block, pruned or not. */
    lines ls;
    load_lines("regtest/pruned/getblockheader.ndjson.zst", &ls);
    int mism = 0;
    for (size_t i = 0; i < ls.n; i++) {
        uint8_t h[32];
        const bk_chain_entry *e = line_hash(ls.l[i], h) ? bk_chain_find(&c, h) : NULL;
        char *want = core_part(ls.l[i]);
        if (!e || !want) {
            mism++;
            continue;
        }
        /* Pruned headers: context from the chain alone (no block bytes). */
        if (e->no_data) {
            bk_chain_context ctx;
            char hex[65];
            if (bk_chain_context_fill(&c, e, &ctx, &err) != BK_OK) mism++;
            char frag[160];
            snprintf(frag, sizeof frag, "\"confirmations\":%lld,\"height\":%lld,", (long long)ctx.confirmations,
                     (long long)ctx.height);
            if (!strstr(want, frag)) mism++;
            snprintf(frag, sizeof frag, "\"mediantime\":%lld,", (long long)ctx.mediantime);
            if (!strstr(want, frag)) mism++;
            if (ctx.has_next) {
                hex_rev(hex, ctx.next_hash);
                if (!strstr(want, hex)) mism++;
            }
            continue;
        }
        const char *got = render(&r, &c, e, -1);
        if (strcmp(got, want) != 0) {
            if (mism++ < 3) fprintf(stderr, "pruned header %zu differs:\n got  %.200s\n want %.200s\n", i, got, want);
        }
    }
    CHECK_EQ_INT(mism, 0);
    lines_free(&ls);
    renderer_free(&r);
    bk_chain_free(&c);
}

/* ---- a corrupt index ---- */

static void expect_build_error(const char *datadir, const char *needle, const char *needle2)
{
    bk_chain c;
    bk_error err;
    bk_status st = build(&c, datadir, &err);
    CHECK(st != BK_OK);
    if (st == BK_OK) {
        bk_chain_free(&c);
        return;
    }
    CHECK(strstr(err.msg, needle) != NULL);
    if (needle2) CHECK(strstr(err.msg, needle2) != NULL);
    if (!strstr(err.msg, needle) || (needle2 && !strstr(err.msg, needle2)))
        fprintf(stderr, "message: %s (want %s / %s)\n", err.msg, needle, needle2 ? needle2 : "");
    CHECK(c.n_entries == 0 && c.entries == NULL);
}

static void test_corrupt_index(void)
{
    char dd[4200], idx[4300];
    snprintf(dd, sizeof dd, "%s/corrupt", g_tmp);
    snprintf(idx, sizeof idx, "%s/regtest/blocks/index", dd);
    const rec *tip = find_block_rec("50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6");
    CHECK(tip != NULL);
    if (!tip) return;
    char keyhex[67];
    bk_hex_encode(keyhex, tip->k, 33);
    keyhex[66] = 0;
    bk_disk_block_index d;
    bk_error err;
    CHECK(bk_disk_block_index_decode(tip->k, tip->kl, tip->v, tip->vl, 1, &d, &err) == BK_OK);
    uint8_t buf[256];
    size_t n;
    /* Cases: a truncated VARINT, impossible status bits, positions past the
     * end of the blk and rev files, a header of another block. */
    for (int which = 0; which < 6; which++) {
        copy_dir(FULL, dd);
        n = 0;
        n += bk_varint_encode(buf + n, (uint64_t)d.client_version);
        n += bk_varint_encode(buf + n, (uint64_t)d.height);
        const char *needle = keyhex, *needle2 = NULL;
        if (which == 0) {
            buf[n++] = 0x80; /* a continuation byte, then the end */
            needle2 = "truncated";
        } else {
            n += bk_varint_encode(buf + n, which == 1 ? (d.status | 0x400) : d.status);
            n += bk_varint_encode(buf + n, d.n_tx);
            n += bk_varint_encode(buf + n, (uint64_t)d.file);
            /* 5: the position of another block's record in the same file */
            n += bk_varint_encode(buf + n, which == 2 ? 70000 : which == 5 ? 8 : d.data_pos);
            n += bk_varint_encode(buf + n, which == 3 ? 1u << 30 : d.undo_pos);
            memcpy(buf + n, tip->v + tip->vl - 80, 80);
            if (which == 4) buf[n + 79] ^= 0x55; /* nonce */
            n += 80;
            needle2 = which == 1   ? "status"
                      : which == 2 ? "blk00086.dat"
                      : which == 3 ? "rev00086.dat"
                      : which == 4 ? "hashes"
                                   : "another block's header";
        }
        raw_put(idx, tip->k, tip->kl, buf, n);
        expect_build_error(dd, needle, needle2);
    }
    /* The data position points at another block's record: a block is read
     * by position, so the renderer checks the hash; the chain keeps Core's
     * position (it is what Core would read). A missing blk file is an
     * error naming it. */
    copy_dir(FULL, dd);
    sh("rm -f '%s'/regtest/blocks/blk00085.dat '%s'/regtest/blocks/rev00084.dat", dd, dd);
    {
        /* Missing files: their blocks have no data (undo) here. */
        bk_chain c;
        CHECK_EQ_INT(build(&c, dd, &err), BK_OK);
        size_t in85 = 0, undo84 = 0;
        bk_chain c2;
        CHECK_EQ_INT(build(&c2, FULL, &err), BK_OK);
        for (size_t k = 0; k < c2.n_entries; k++) {
            in85 += c2.entries[k].file == 85 && !c2.entries[k].no_data;
            undo84 += c2.entries[k].has_undo && c2.entries[k].undo_file == 84;
        }
        CHECK(in85 > 0 && undo84 > 0);
        CHECK_EQ_INT(c.n_missing, in85 + undo84);
        CHECK_EQ_INT(c.n_no_data, in85);
        CHECK_EQ_INT(c.n_active, 940); /* heights, work and the tip are the index's */
        size_t bad = 0;
        for (size_t k = 0; k < c.n_entries; k++) {
            const bk_chain_entry *e = &c.entries[k], *f = bk_chain_find(&c2, e->hash);
            if (!f || (f->file == 85 && !f->no_data) != (e->no_data != 0)) bad++;
            if (f && (e->has_undo != 0) != (f->has_undo && f->undo_file != 84)) bad++;
        }
        CHECK_EQ_INT(bad, 0);
        bk_chain_free(&c);
        bk_chain_free(&c2);
    }
    /* No index at all. */
    copy_dir(FULL, dd);
    sh("rm -rf '%s'/regtest/blocks/index%s", dd, "");
    {
        bk_chain c;
        CHECK_EQ_INT(build(&c, dd, &err), BK_ERR_NOT_FOUND);
    }
    sh("rm -rf '%s'%s", dd, "");
}

/* Random damage to 'b' records (bit flips, cuts, extra bytes) in a copy:
 * every build either succeeds or fails with a message naming a key or a
 * block, never crashes (run under ASan/UBSan by make test-sanitize). */
static void test_random_record_damage(void)
{
    char dd[4200], idx[4300];
    snprintf(dd, sizeof dd, "%s/damage", g_tmp);
    snprintf(idx, sizeof idx, "%s/regtest/blocks/index", dd);
    copy_dir(FULL, dd);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    size_t nb = 0;
    for (size_t i = 0; i < g_index.n; i++) nb += g_index.r[i].k[0] == 'b';
    int ok = 0, named = 0, rounds = 16;
    for (int round = 0; round < rounds; round++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t pick = (size_t)(x % nb), seen = 0;
        const rec *r = NULL;
        for (size_t i = 0; i < g_index.n && !r; i++)
            if (g_index.r[i].k[0] == 'b' && seen++ == pick) r = &g_index.r[i];
        uint8_t v[256];
        size_t vl = r->vl;
        memcpy(v, r->v, vl);
        switch (round % 3) {
        case 0: v[(x >> 8) % vl] ^= (uint8_t)(1u << ((x >> 20) % 8)); break;
        case 1: vl = (size_t)((x >> 8) % vl); break;
        default: v[vl++] = (uint8_t)(x >> 8); break;
        }
        raw_put(idx, r->k, r->kl, v, vl);
        bk_chain c;
        bk_error err;
        bk_status st = build(&c, dd, &err);
        if (st == BK_OK) {
            ok++;
            bk_chain_free(&c);
        } else {
            char kh[67];
            bk_hex_encode(kh, r->k, 33);
            kh[66] = 0;
            char hh[65];
            hex_rev(hh, r->k + 1);
            if (strstr(err.msg, kh) || strstr(err.msg, "blocks/index")) named++;
            else fprintf(stderr, "damage round %d: %s\n", round, err.msg);
            (void)hh;
        }
        raw_put(idx, r->k, r->kl, r->v, r->vl); /* repair */
    }
    CHECK_EQ_INT(ok + named, rounds);
    CHECK(named > 0);
    sh("rm -rf '%s'%s", dd, "");
}

/* Without a chainstate the tip is the most-work valid block with data:
 * here the same 939 (the invalid 938 is not taken). With the index's last
 * blocks removed (as if it were flushed before them), they are found in
 * the blk files and extend the chain; their undo is paired by checksum. */
static void test_no_chainstate_and_appended(void)
{
    char dd[4200], idx[4300];
    snprintf(dd, sizeof dd, "%s/appended", g_tmp);
    snprintf(idx, sizeof idx, "%s/regtest/blocks/index", dd);
    copy_dir(FULL, dd);
    sh("rm -rf '%s'/regtest/chainstate%s", dd, "");
    bk_chain c;
    bk_error err;
    bk_status st = build(&c, dd, &err);
    CHECK_EQ_INT(st, BK_OK);
    const bk_chain_entry *t = bk_chain_tip(&c);
    char hex[65] = "";
    if (t) hex_rev(hex, t->hash);
    CHECK_EQ_STR(hex, "50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6");
    CHECK(!c.tip_from_chainstate);
    bk_chain_free(&c);

    /* Remove the records of heights 938 and 939 (the invalid 938's parent
     * 937 stays: Core flushes parents with or before their children). */
    CHECK_EQ_INT(build(&c, FULL, &err), BK_OK);
    enum { NGONE = 2, FIRST = 938 };
    uint8_t gone[NGONE][33];
    for (int i = 0; i < NGONE; i++) {
        gone[i][0] = 'b';
        memcpy(gone[i] + 1, bk_chain_at_height(&c, FIRST + i)->hash, 32);
    }
    renderer r;
    renderer_init(&r, FULL "/regtest/blocks");
    char *want[NGONE];
    for (int i = 0; i < NGONE; i++) want[i] = strdup(render(&r, &c, bk_chain_at_height(&c, FIRST + i), 3));
    bk_chain_free(&c);
    for (int i = 0; i < NGONE; i++) raw_put(idx, gone[i], 33, NULL, 0);
    st = build(&c, dd, &err);
    CHECK_EQ_INT(st, BK_OK);
    if (st != BK_OK) fprintf(stderr, "%s\n", err.msg);
    /* The same directory obfuscated (as Core writes since v28) and plain
     * (as before): the files are read differently (pread into a buffer
     * either way, de-obfuscated or not), the chains must not differ. */
    for (int plain = 0; plain < 2; plain++) {
        if (plain) {
            char blocks[4300];
            snprintf(blocks, sizeof blocks, "%s/regtest/blocks", dd);
            CHECK(deobfuscate_dir(blocks));
            st = build(&c, dd, &err);
            CHECK_EQ_INT(st, BK_OK);
            if (st != BK_OK) fprintf(stderr, "%s\n", err.msg);
        }
        CHECK_EQ_INT(c.n_appended, NGONE);
        CHECK_EQ_INT(c.n_active, 940);
        CHECK_EQ_INT(c.n_entries, 979);
        CHECK_EQ_INT(c.n_bad_records, 0);
        hex[0] = 0;
        t = bk_chain_tip(&c);
        if (t) hex_rev(hex, t->hash);
        CHECK_EQ_STR(hex, "50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6");
        for (int i = 0; i < NGONE; i++) {
            const bk_chain_entry *e = bk_chain_at_height(&c, FIRST + i);
            CHECK(e && e->has_undo);
            const char *got = e ? render(&r, &c, e, 3) : "";
            CHECK(strcmp(got, want[i]) == 0);
        }
        bk_chain_free(&c);
    }
    for (int i = 0; i < NGONE; i++) free(want[i]);
    renderer_free(&r);
    sh("rm -rf '%s'%s", dd, "");
}

/* A header-only block (status VALID_TREE, no data, nTx 0) extending the
 * tip, the reindex and a flag record: the header-only block is an entry
 * without data off the best chain; cancelling stops the build. */
static void test_header_only_and_flags(void)
{
    char dd[4200], idx[4300];
    snprintf(dd, sizeof dd, "%s/headeronly", g_tmp);
    snprintf(idx, sizeof idx, "%s/regtest/blocks/index", dd);
    copy_dir(FULL, dd);
    const rec *tip = find_block_rec("50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6");
    CHECK(tip != NULL);
    if (!tip) return;
    uint8_t hdr[80], key[33], val[128];
    memcpy(hdr, tip->v + tip->vl - 80, 80);
    memcpy(hdr + 4, tip->k + 1, 32); /* parent: the tip */
    bk_store_le32(hdr + 68, bk_load_le32(hdr + 68) + 600);
    key[0] = 'b';
    bk_header_hash(hdr, key + 1);
    size_t n = 0;
    n += bk_varint_encode(val + n, 289900);
    n += bk_varint_encode(val + n, 940);
    n += bk_varint_encode(val + n, BK_BLOCK_VALID_TREE);
    n += bk_varint_encode(val + n, 0);
    memcpy(val + n, hdr, 80);
    n += 80;
    raw_put(idx, key, 33, val, n);
    raw_put(idx, (const uint8_t *)"R", 1, (const uint8_t *)"1", 1);
    raw_put(idx, (const uint8_t *)"F\x10prunedblockfiles", 18, (const uint8_t *)"0", 1);
    bk_chain c;
    bk_error err;
    CHECK_EQ_INT(build(&c, dd, &err), BK_OK);
    CHECK_EQ_INT(c.n_entries, 980);
    CHECK_EQ_INT(c.n_no_data, 1);
    CHECK(c.reindexing && !c.pruned);
    CHECK(bk_chain_tip(&c) && bk_chain_tip(&c)->height == 939);
    const bk_chain_entry *h = bk_chain_find(&c, key + 1);
    CHECK(h && h->no_data && !h->active && h->height == 940 && h->status == BK_BLOCK_VALID_TREE && h->size == 0);
    /* Its context: off the best chain, height 940. */
    bk_chain_context ctx;
    CHECK(h && bk_chain_context_fill(&c, h, &ctx, &err) == BK_OK && ctx.confirmations == -1 && ctx.height == 940);
    bk_chain_free(&c);
    /* Cancelled before it starts: nothing kept. */
    volatile sig_atomic_t stop = 1;
    bk_chain_opts o;
    memset(&o, 0, sizeof o);
    o.tmpdir = g_tmp;
    o.cancel = &stop;
    CHECK_EQ_INT(bk_chain_build_index(&c, dd, BK_NET_REGTEST, &o, NULL, &err), BK_ERR_CANCELLED);
    CHECK(c.n_entries == 0 && c.entries == NULL);
    sh("rm -rf '%s'%s", dd, "");
}

/* The chainstate's best block: 'B' de-obfuscated; after an interrupted
 * flush ('B' erased, 'H' = {new head, old head}) the new head. */
static void test_chainstate_heads(void)
{
    char cs[4200];
    snprintf(cs, sizeof cs, "%s/cs", g_tmp);
    copy_dir(FULL "/regtest/chainstate", cs);
    uint8_t best[32], want[32];
    bk_error err;
    unhex_rev("50829bd798e2b4f7250a3bab265872810fed4fe420af414c67b9e37ab4f614c6", want);
    CHECK_EQ_INT(bk_chainstate_tip(cs, g_tmp, best, &err), BK_OK);
    CHECK_MEM(best, want, 32);
    /* The obfuscation key of this chainstate (README: values XORed). */
    recs rs;
    read_all_raw(cs, &rs);
    uint8_t key[BK_OBFUSCATE_KEY_MAX];
    size_t kl = 0;
    for (size_t i = 0; i < rs.n; i++)
        if (rs.r[i].kl == BK_OBFUSCATE_KEY_KEY_LEN && !memcmp(rs.r[i].k, BK_OBFUSCATE_KEY_KEY, BK_OBFUSCATE_KEY_KEY_LEN))
            CHECK(bk_obfuscate_key_decode(rs.r[i].v, rs.r[i].vl, key, &kl, &err) == BK_OK);
    recs_free(&rs);
    CHECK_EQ_INT(kl, 8);
    uint8_t heads[65];
    heads[0] = 2;
    unhex_rev("1d980ab51c48df3915df754f138fed4301331e85892cefa6a51c188c9b14a19a", heads + 1);
    memcpy(heads + 33, want, 32);
    bk_deobfuscate(heads, sizeof heads, key, kl);
    raw_put(cs, (const uint8_t *)"B", 1, NULL, 0);
    raw_put(cs, (const uint8_t *)"H", 1, heads, sizeof heads);
    CHECK_EQ_INT(bk_chainstate_tip(cs, g_tmp, best, &err), BK_OK);
    unhex_rev("1d980ab51c48df3915df754f138fed4301331e85892cefa6a51c188c9b14a19a", want);
    CHECK_MEM(best, want, 32);
    raw_put(cs, (const uint8_t *)"H", 1, NULL, 0);
    CHECK_EQ_INT(bk_chainstate_tip(cs, g_tmp, best, &err), BK_ERR_NOT_FOUND);
    /* A best block the index does not hold: an error naming it (the tip
     * is found on the build's second thread). */
    uint8_t unknown[32];
    unhex_rev("00000000000000000000000000000000000000000000000000000000deadbeef", unknown);
    uint8_t ob[32];
    memcpy(ob, unknown, 32);
    bk_deobfuscate(ob, sizeof ob, key, kl);
    raw_put(cs, (const uint8_t *)"B", 1, ob, sizeof ob);
    bk_index_dirs dirs = {.blocksdir = FULL "/regtest/blocks", .chainstatedir = cs};
    bk_chain c;
    bk_chain_opts o;
    memset(&o, 0, sizeof o);
    o.tmpdir = g_tmp;
    CHECK_EQ_INT(bk_chain_build_index_dirs(&c, &dirs, BK_NET_REGTEST, &o, NULL, &err), BK_ERR_INVALID);
    CHECK(strstr(err.msg, "00000000000000000000000000000000000000000000000000000000deadbeef is not in the block index") !=
          NULL);
    sh("rm -rf '%s'%s", cs, "");
}

/* A chainstate too large to copy into a snapshot on another filesystem is
 * not read (a sparse table stands in for a mainnet UTXO set). */
static void test_chainstate_on_other_filesystem(void)
{
    struct stat a, b;
    if (stat("/dev/shm", &a) != 0 || stat(g_tmp, &b) != 0 || a.st_dev == b.st_dev || access("/dev/shm", W_OK) != 0) {
        fprintf(stderr, "(no second filesystem at /dev/shm: skipped)\n");
        return;
    }
    char dd[4200], big[4400];
    snprintf(dd, sizeof dd, "%s/bigcs", g_tmp);
    copy_dir(FULL, dd);
    snprintf(big, sizeof big, "%s/regtest/chainstate/999999.ldb", dd);
    sh("truncate -s 300M '%s'%s", big, "");
    bk_chain c;
    bk_error err;
    bk_chain_opts o;
    memset(&o, 0, sizeof o);
    o.tmpdir = "/dev/shm";
    CHECK_EQ_INT(bk_chain_build_index(&c, dd, BK_NET_REGTEST, &o, NULL, &err), BK_OK);
    CHECK(c.chainstate_skipped && !c.tip_from_chainstate);
    CHECK(bk_chain_tip(&c) && bk_chain_tip(&c)->height == 939);
    bk_chain_free(&c);
    /* On the node's filesystem it is read (hard links). */
    o.tmpdir = g_tmp;
    CHECK_EQ_INT(bk_chain_build_index(&c, dd, BK_NET_REGTEST, &o, NULL, &err), BK_OK);
    CHECK(!c.chainstate_skipped && c.tip_from_chainstate);
    bk_chain_free(&c);
    sh("rm -rf '%s'%s", dd, "");
}

/* ---- snapshots ---- */

/* Names, sizes, mtimes and contents of every file of a directory. */
static unsigned long long dir_sum(const char *dir)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -type f -exec stat -c '%%n %%s %%Y' {} + | sort && find . -type f -exec cat {} + | cksum", dir);
    size_t len;
    int st;
    char *out = run_cmd(cmd, &len, &st);
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)out[i]) * 1099511628211ULL;
    free(out);
    return h;
}

static void test_snapshot_never_writes(void)
{
    /* The fixture itself (read-only) and a writable copy: building the
     * chain changes nothing in either. */
    char dd[4200];
    snprintf(dd, sizeof dd, "%s/untouched", g_tmp);
    copy_dir(FULL, dd);
    unsigned long long a = dir_sum(FULL), b = dir_sum(dd);
    bk_chain c;
    bk_error err;
    CHECK_EQ_INT(build(&c, FULL, &err), BK_OK);
    bk_chain_free(&c);
    CHECK_EQ_INT(build(&c, dd, &err), BK_OK);
    bk_chain_free(&c);
    CHECK(a == dir_sum(FULL));
    CHECK(b == dir_sum(dd));
    sh("rm -rf '%s'%s", dd, "");
    /* No snapshot directory is left behind. */
    DIR *d = opendir(g_tmp);
    int left = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) left += de->d_name[0] != '.' && strcmp(de->d_name, "rawidx") != 0;
    if (d) closedir(d);
    CHECK_EQ_INT(left, 0);
}

/* A child process holds the LevelDB lock and writes (with compactions)
 * while snapshots are taken: each one opens, holds all 979 block records
 * and never reports a lock error. */
static void test_snapshot_while_writing(void)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/busy", g_tmp);
    copy_dir(FULL "/regtest/blocks/index", dir);
    int ready[2];
    if (pipe(ready) != 0) exit(2);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        char *e = NULL;
        leveldb_options_t *o = leveldb_options_create();
        leveldb_options_set_write_buffer_size(o, 64 << 10); /* small: frequent flushes and compactions */
        leveldb_t *db = leveldb_open(o, dir, &e);
        if (e) _exit(3);
        if (write(ready[1], "x", 1) != 1) _exit(4);
        leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
        char k[16], v[512];
        memset(v, 'v', sizeof v);
        for (unsigned i = 0;; i++) {
            snprintf(k, sizeof k, "z%08u", i % 50000);
            leveldb_put(db, wo, k, strlen(k), v, sizeof v, &e);
            if (e) _exit(5);
            if (i % 5000 == 4999) leveldb_compact_range(db, NULL, 0, NULL, 0);
        }
    }
    close(ready[1]);
    char x;
    CHECK(read(ready[0], &x, 1) == 1);
    close(ready[0]);
    int fails = 0, short_reads = 0;
    for (int round = 0; round < 12; round++) {
        bk_ldb *db = NULL;
        bk_error err;
        bk_status st = bk_ldb_open(dir, g_tmp, &db, &err);
        if (st != BK_OK) {
            fprintf(stderr, "snapshot %d: %s\n", round, err.msg);
            fails++;
            continue;
        }
        bk_ldb_iter *it;
        size_t nb = 0;
        if (bk_ldb_iter_new(db, (const uint8_t *)"b", 1, &it, &err) == BK_OK) {
            const uint8_t *k, *v;
            size_t kl, vl;
            while (bk_ldb_iter_next(it, &k, &kl, &v, &vl)) nb++;
            if (bk_ldb_iter_status(it, &err) != BK_OK) fails++;
            bk_ldb_iter_free(it);
        }
        short_reads += nb != 979;
        bk_ldb_close(db);
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* The whole build from that index while it is written. */
    int builds_ok = 0;
    for (int round = 0; round < 4; round++) {
        bk_index_dirs dirs = {.blocksdir = FULL "/regtest/blocks", .indexdir = dir,
                              .chainstatedir = FULL "/regtest/chainstate"};
        bk_chain_opts o;
        memset(&o, 0, sizeof o);
        o.tmpdir = g_tmp;
        bk_chain c;
        bk_error err;
        if (bk_chain_build_index_dirs(&c, &dirs, BK_NET_REGTEST, &o, NULL, &err) == BK_OK) {
            builds_ok += c.n_entries == 979 && c.n_active == 940 && c.tip_from_chainstate;
            bk_chain_free(&c);
        } else {
            fprintf(stderr, "build beside a writer: %s\n", err.msg);
        }
    }
    CHECK_EQ_INT(builds_ok, 4);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status)); /* the writer was still running: it never failed */
    CHECK_EQ_INT(fails, 0);
    CHECK_EQ_INT(short_reads, 0);
    sh("rm -rf '%s'%s", dir, "");
}

int main(void)
{
    snprintf(g_tmp, sizeof g_tmp, "%s/../blockindex_test_XXXXXX", BK_REGTEST_DIR);
    if (!mkdtemp(g_tmp)) {
        perror("mkdtemp");
        return 2;
    }
    RUN(test_decode_regtest_records);
    RUN(test_decode_corrupt_records);
    RUN(test_chain_full);
    RUN(test_chain_pruned);
    RUN(test_trust_positions);
    RUN(test_thread_orders);
    RUN(test_corrupt_index);
    RUN(test_random_record_damage);
    RUN(test_no_chainstate_and_appended);
    RUN(test_chainstate_on_other_filesystem);
    RUN(test_header_only_and_flags);
    RUN(test_chainstate_heads);
    RUN(test_snapshot_never_writes);
    RUN(test_snapshot_while_writing);
    recs_free(&g_index);
    sh("rm -rf '%s'%s", g_tmp, "");
    return check_finish();
}
