/* bk_gen_bench_blocks (scripts/gen_bench_blocks.h): a blocks directory of
 * distinct transactions from a few real blocks. */
#define _POSIX_C_SOURCE 200809L
#include "gen_bench_blocks.h"

#include <blockkit/blockkit.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_FILE_MAX (128u << 20) /* Core: MAX_BLOCKFILE_SIZE */
#define GEN_TX_MAX 8192u          /* transactions per template (the nLockTime numbering) */

static const uint8_t GEN_MAGIC[4] = {0xf9, 0xbe, 0xb4, 0xd9};
/* Mainnet genesis hash, internal byte order. */
static const uint8_t GEN_GENESIS[32] = {0x6f, 0xe2, 0x8c, 0x0a, 0xb6, 0xf1, 0xb3, 0x72, 0xc1, 0xa6, 0xa2,
                                        0x46, 0xae, 0x63, 0xf7, 0x4f, 0x93, 0x1e, 0x83, 0x65, 0xe1, 0x5a,
                                        0x08, 0x9c, 0x68, 0xd6, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct gen_tpl {
    uint8_t *raw;              /* the working copy, patched per output block */
    const uint8_t *orig;       /* the template's bytes */
    size_t len;
    const uint8_t *undo;       /* the template's CBlockUndo */
    uint8_t *undo_raw;         /* the working copy, patched per output block */
    size_t undo_len;
    bk_block b;                /* decoded over raw */
    bk_block_decoder dec;
    uint8_t *old_ids;          /* the template's txids, sorted, each with its index (36 bytes) */
    uint8_t *leaves;           /* merkle scratch */
    uint8_t *new_ids;          /* this copy's txids, by index */
    size_t n;
} gen_tpl;

typedef struct gen_out {
    const char *dir;
    FILE *blk, *rev;
    uint64_t bpos, rpos;
    unsigned fileno;
    uint8_t key[8];
    uint8_t *tmp;
} gen_out;

static int put_xored(FILE *f, uint64_t *pos, const uint8_t *p, size_t n, const uint8_t key[8], uint8_t *tmp)
{
    while (n) {
        size_t m = n < (1u << 20) ? n : (1u << 20);
        for (size_t i = 0; i < m; i++) tmp[i] = p[i] ^ key[(*pos + i) & 7];
        if (fwrite(tmp, 1, m, f) != m) return -1;
        *pos += m;
        p += m;
        n -= m;
    }
    return 0;
}

static int next_files(gen_out *o)
{
    char path[4200];
    if (o->blk && fclose(o->blk) != 0) return -1;
    if (o->rev && fclose(o->rev) != 0) return -1;
    o->blk = o->rev = NULL;
    snprintf(path, sizeof path, "%s/blk%05u.dat", o->dir, o->fileno);
    if (!(o->blk = fopen(path, "wb"))) return -1;
    snprintf(path, sizeof path, "%s/rev%05u.dat", o->dir, o->fileno);
    if (!(o->rev = fopen(path, "wb"))) return -1;
    o->fileno++;
    o->bpos = o->rpos = 0;
    return 0;
}

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static int cmp_id(const void *a, const void *b) { return memcmp(a, b, 32); }

/* ---- per-copy scripts ----
 * Each copy gets its own addresses: the hash in every P2PKH, P2SH, P2WPKH
 * and P2WSH script (outputs, and the spent coins of the undo data) is
 * XORed with a 32-byte key of the copy. The same bytes change the same
 * way in a block and in its undo data, so an in-block spend's coin stays
 * the output it spends, and a script repeated within a block stays
 * repeated (address reuse). P2PK and P2TR keys stay: a changed key would
 * not be a curve point, and readers treat such keys apart (descriptors). */

/* The offset of the hash in script s, and its length in *len; 0 when s is
 * none of the four templates. */
static size_t script_hash_at(const uint8_t *s, size_t n, size_t *len)
{
    *len = 0;
    if (n == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 0x14 && s[23] == 0x88 && s[24] == 0xac) return *len = 20, 3;
    if (n == 23 && s[0] == 0xa9 && s[1] == 0x14 && s[22] == 0x87) return *len = 20, 2;
    if (n == 22 && s[0] == 0x00 && s[1] == 0x14) return *len = 20, 2;
    if (n == 34 && s[0] == 0x00 && s[1] == 0x20) return *len = 32, 2;
    return 0;
}

static void vary_script(uint8_t *s, size_t n, const uint8_t key[32])
{
    size_t len, at = script_hash_at(s, n, &len);
    for (size_t i = 0; i < len; i++) s[at + i] ^= key[i];
}

/* The undo data's coins (CBlockUndo: per transaction but the coinbase,
 * its spent coins in TxInUndoFormatter form): the hashes of P2PKH and
 * P2SH coins (compressed script types 0 and 1) and of raw P2WPKH/P2WSH
 * scripts varied as vary_script does the outputs. 0, or -1 when the bytes
 * do not parse. */
static int vary_undo(uint8_t *u, size_t n, const uint8_t key[32])
{
    bk_reader r;
    bk_reader_init(&r, u, n);
    uint64_t ntx = bk_read_compact_size(&r, 1);
    for (uint64_t t = 0; t < ntx && bk_reader_ok(&r); t++) {
        uint64_t ncoins = bk_read_compact_size(&r, 1);
        for (uint64_t c = 0; c < ncoins && bk_reader_ok(&r); c++) {
            if ((bk_read_varint(&r) >> 1) > 0) (void)bk_read_varint(&r); /* the old version byte */
            (void)bk_read_varint(&r);                                     /* amount */
            uint64_t size = bk_read_varint(&r);                           /* nSize */
            size_t at = r.pos, len = size < 2 ? 20 : size < 6 ? 32 : (size_t)(size - 6);
            if (size >= 6 && size - 6 > n) return -1;
            if (!bk_read_span(&r, len)) return -1;
            if (size < 2)
                for (size_t i = 0; i < 20; i++) u[at + i] ^= key[i];
            else if (size >= 6)
                vary_script(u + at, len, key);
        }
    }
    return bk_reader_ok(&r) && r.pos == n ? 0 : -1;
}

/* The template's txids, sorted (32 bytes + 4-byte index each, packed). */
static int tpl_init(gen_tpl *g, const bk_gen_template *t)
{
    memset(g, 0, sizeof *g);
    g->orig = t->block;
    g->len = t->block_len;
    g->undo = t->undo;
    g->undo_len = t->undo_len;
    g->raw = malloc(g->len ? g->len : 1);
    g->undo_raw = malloc(g->undo_len ? g->undo_len : 1);
    if (!g->raw || !g->undo_raw) return -1;
    memcpy(g->raw, g->orig, g->len);
    bk_block_decoder_init(&g->dec, NULL);
    if (bk_block_decode(&g->dec, g->raw, g->len, &g->b, NULL) != BK_OK || g->b.n_tx > GEN_TX_MAX) {
        errno = EINVAL;
        return -1;
    }
    g->n = g->b.n_tx;
    uint8_t *ids = malloc(32 * g->n);
    g->old_ids = malloc(36 * g->n);
    g->new_ids = malloc(32 * g->n);
    g->leaves = malloc(32 * bk_merkle_capacity(g->n));
    if (!ids || !g->old_ids || !g->new_ids || !g->leaves) {
        free(ids);
        return -1;
    }
    bk_block_txids(&g->b, ids);
    for (size_t i = 0; i < g->n; i++) {
        memcpy(g->old_ids + 36 * i, ids + 32 * i, 32);
        uint32_t x = (uint32_t)i;
        memcpy(g->old_ids + 36 * i + 32, &x, 4);
    }
    free(ids);
    qsort(g->old_ids, g->n, 36, cmp_id);
    return 0;
}

static void tpl_free(gen_tpl *g)
{
    free(g->raw);
    free(g->undo_raw);
    free(g->old_ids);
    free(g->leaves);
    free(g->new_ids);
    bk_block_decoder_free(&g->dec);
}

/* Make copy k of the template in g->raw and g->undo_raw: the scripts
 * varied by key, every nLockTime from base, the in-block spends
 * re-pointed, the merkle root and hashPrevBlock set. */
static int tpl_copy(gen_tpl *g, uint64_t k, uint32_t base, const uint8_t key[32], const uint8_t prev[32])
{
    memcpy(g->raw, g->orig, g->len);
    memcpy(g->undo_raw, g->undo, g->undo_len);
    if (vary_undo(g->undo_raw, g->undo_len, key) != 0) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < g->n; i++) {
        const bk_tx *tx = &g->b.txs[i];
        uint8_t *data = (uint8_t *)(uintptr_t)tx->data;
        bk_txout_iter ot;
        bk_txout out;
        bk_txout_iter_init(&ot, tx);
        while (bk_txout_next(&ot, &out)) vary_script((uint8_t *)(uintptr_t)out.script, out.script_len, key);
        /* inputs spending earlier transactions of this block */
        bk_txin_iter it;
        bk_txin in;
        bk_txin_iter_init(&it, tx);
        while (i && bk_txin_next(&it, &in)) {
            const uint8_t *hit = bsearch(in.prev_txid, g->old_ids, g->n, 36, cmp_id);
            if (!hit) continue;
            uint32_t j;
            memcpy(&j, hit + 32, 4);
            if (j >= i) {
                errno = EINVAL; /* a spend of a later transaction: not a block */
                return -1;
            }
            memcpy((uint8_t *)(uintptr_t)in.prev_txid, g->new_ids + 32 * j, 32);
        }
        le32(data + tx->size - 4, base + (uint32_t)(k * GEN_TX_MAX + i));
        bk_tx_txid(tx, g->new_ids + 32 * i);
    }
    uint8_t root[32];
    memcpy(g->leaves, g->new_ids, 32 * g->n);
    if (bk_merkle_root(g->leaves, g->n, bk_merkle_capacity(g->n), root, NULL) != BK_OK) {
        errno = EINVAL;
        return -1;
    }
    memcpy(g->raw + 4, prev, 32);
    memcpy(g->raw + 36, root, 32);
    return 0;
}

int bk_gen_bench_blocks(const char *dir, const bk_gen_template *t, size_t n_templates, uint64_t min_bytes,
                        uint64_t seed, bk_gen_stats *stats)
{
    gen_tpl *g = calloc(n_templates ? n_templates : 1, sizeof *g);
    gen_out o;
    memset(&o, 0, sizeof o);
    o.dir = dir;
    o.tmp = malloc(1u << 20);
    bk_gen_stats s;
    memset(&s, 0, sizeof s);
    int rc = -1;
    size_t ready = 0;
    if (!g || !o.tmp || !n_templates) {
        if (!n_templates) errno = EINVAL;
        goto done;
    }
    for (; ready < n_templates; ready++)
        if (tpl_init(&g[ready], &t[ready]) != 0) goto done;
    uint64_t st = seed;
    uint64_t kv = splitmix(&st);
    memcpy(o.key, &kv, 8);
    uint32_t base = (uint32_t)splitmix(&st);
    char path[4200];
    snprintf(path, sizeof path, "%s/xor.dat", dir);
    FILE *x = fopen(path, "wb");
    if (!x) goto done;
    if (fwrite(o.key, 1, 8, x) != 8) {
        fclose(x);
        goto done;
    }
    if (fclose(x) != 0) goto done;
    uint8_t prev[32];
    memcpy(prev, GEN_GENESIS, 32);
    o.bpos = GEN_FILE_MAX;
    uint64_t k = 0;
    while (s.block_bytes < min_bytes) {
        for (size_t ti = 0; ti < n_templates && s.block_bytes < min_bytes; ti++) {
            for (unsigned w = 0; w < t[ti].weight && s.block_bytes < min_bytes; w++, k++) {
                gen_tpl *gt = &g[ti];
                uint8_t key[32];
                for (int q = 0; q < 4; q++) {
                    uint64_t w64 = splitmix(&st);
                    memcpy(key + 8 * q, &w64, 8);
                }
                if (tpl_copy(gt, k, base, key, prev) != 0) goto done;
                if (o.bpos + gt->len + 8 > GEN_FILE_MAX && next_files(&o) != 0) goto done;
                uint8_t hdr[8], sum[32];
                memcpy(hdr, GEN_MAGIC, 4);
                le32(hdr + 4, (uint32_t)gt->len);
                if (put_xored(o.blk, &o.bpos, hdr, 8, o.key, o.tmp) ||
                    put_xored(o.blk, &o.bpos, gt->raw, gt->len, o.key, o.tmp))
                    goto done;
                /* rev record: CBlockUndo, then SHA256d(parent hash || CBlockUndo) (Core: WriteBlockUndo) */
                le32(hdr + 4, (uint32_t)gt->undo_len);
                bk_sha256_ctx c;
                bk_sha256_init(&c);
                bk_sha256_update(&c, prev, 32);
                bk_sha256_update(&c, gt->undo_raw, gt->undo_len);
                bk_sha256_final(&c, sum);
                bk_sha256(sum, sum, 32);
                if (put_xored(o.rev, &o.rpos, hdr, 8, o.key, o.tmp) ||
                    put_xored(o.rev, &o.rpos, gt->undo_raw, gt->undo_len, o.key, o.tmp) ||
                    put_xored(o.rev, &o.rpos, sum, 32, o.key, o.tmp))
                    goto done;
                bk_sha256d(prev, gt->raw, 80);
                s.blocks++;
                s.txs += gt->n;
                s.block_bytes += gt->len;
                s.undo_bytes += gt->undo_len;
            }
        }
    }
    s.files = o.fileno;
    if (o.blk && fclose(o.blk) != 0) {
        o.blk = NULL;
        goto done;
    }
    o.blk = NULL;
    if (o.rev && fclose(o.rev) != 0) {
        o.rev = NULL;
        goto done;
    }
    o.rev = NULL;
    rc = 0;
done:
    if (o.blk) fclose(o.blk);
    if (o.rev) fclose(o.rev);
    for (size_t i = 0; i < ready; i++) tpl_free(&g[i]);
    if (g && ready < n_templates && g[ready].raw) tpl_free(&g[ready]);
    free(g);
    free(o.tmp);
    if (stats) *stats = s;
    return rc;
}
