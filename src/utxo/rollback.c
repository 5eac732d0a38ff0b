/* The UTXO set at a past height, from the chainstate and the undo data of
 * the blocks above it, and dumptxoutset files written from any ordered
 * coin stream.
 *
 * Core's dumptxoutset rollback (rpc/blockchain.cpp) invalidates block
 * H+1, which disconnects the blocks from the tip down (validation.cpp
 * DisconnectBlock: each block's outputs are removed from the set, each
 * input's undo coin is put back), writes the set, and reconsiders the
 * block. The set that remains is the chainstate's coins created at or
 * below H plus the coins spent above H that were created at or below H
 * (a coin created and spent above H is removed again by the block that
 * created it). Both parts come from data at hand: the chainstate's own
 * heights, and the undo coins' heights with the spending inputs'
 * outpoints. No coin is ever deleted here, so nothing needs a lookup:
 * the restored coins are sorted (in memory, spilled as sorted runs past
 * mem_limit) and merged with the chainstate cursor, whose order is the
 * key order dumptxoutset writes (txid bytes, then VARINT(vout) bytes).
 *
 * The snapshot writer follows Core's WriteUTXOSnapshot: SnapshotMetadata
 * (magic "utxo\xff", uint16 version 2, the network's message start, base
 * block hash, uint64 coin count), then per txid: txid, CompactSize count,
 * per coin CompactSize(vout) and Coin (coins.h: VARINT(code),
 * TxOutCompression: VARINT(CompressAmount), ScriptCompression). */
#include <blockkit/utxo_rollback.h>
#include <blockkit/utxo_snapshot.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>

#include <errno.h>
#include <stdio.h>
#include <secp256k1.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------ script compression */

static int valid_uncompressed_key(const uint8_t *key65)
{
    secp256k1_pubkey pk;
    return secp256k1_ec_pubkey_parse(secp256k1_context_static, &pk, key65, 65) == 1;
}

size_t bk_script_compress(const uint8_t *s, size_t len, uint8_t *out)
{
    if (len == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 20 && s[23] == 0x88 && s[24] == 0xac) {
        out[0] = 0x00;
        memcpy(out + 1, s + 3, 20);
        return 21;
    }
    if (len == 23 && s[0] == 0xa9 && s[1] == 20 && s[22] == 0x87) {
        out[0] = 0x01;
        memcpy(out + 1, s + 2, 20);
        return 21;
    }
    if (len == 35 && s[0] == 33 && s[34] == 0xac && (s[1] == 0x02 || s[1] == 0x03)) {
        out[0] = s[1];
        memcpy(out + 1, s + 2, 32);
        return 33;
    }
    if (len == 67 && s[0] == 65 && s[66] == 0xac && s[1] == 0x04 && valid_uncompressed_key(s + 1)) {
        out[0] = (uint8_t)(0x04 | (s[65] & 1));
        memcpy(out + 1, s + 2, 32);
        return 33;
    }
    size_t n = bk_varint_encode(out, (uint64_t)len + 6);
    memcpy(out + n, s, len);
    return n + len;
}

/* Coin::Serialize of u's coin into out (at most 10 + 10 + 10 + script). */
static size_t coin_serialize(const bk_coin *c, uint8_t *out)
{
    size_t n = bk_varint_encode(out, ((uint64_t)c->height << 1) | (c->coinbase & 1u));
    n += bk_varint_encode(out + n, bk_amount_compress((uint64_t)c->value));
    n += bk_script_compress(bk_coin_script(c), c->script_len, out + n);
    return n;
}

/* The VARINT(vout) bytes as a big-endian number, zero-padded: comparing
 * two of them compares the key bytes (VARINT is prefix-free). */
static uint64_t vout_key(uint32_t vout)
{
    uint8_t b[10];
    size_t n = bk_varint_encode(b, vout);
    uint64_t k = 0;
    for (size_t i = 0; i < 8; i++) k = (k << 8) | (i < n ? b[i] : 0);
    return k;
}

/* --------------------------------------------------------- snapshot writer */

#define SW_BUF (1u << 20)
#define SW_GROUP_MAX (64u << 20)

struct bk_utxo_snapshot_writer {
    const bk_allocator *alloc;
    int fd;
    uint64_t off;
    uint8_t *buf;
    size_t len;
    uint8_t txid[32];
    uint64_t last_vkey;
    int have_group;
    uint8_t *group;
    size_t glen, gcap;
    uint64_t gcoins;
    uint64_t coins;
    int failed;
};

static bk_status sw_write(bk_utxo_snapshot_writer *w, const uint8_t *p, size_t n, bk_error *err)
{
    while (n) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            w->failed = 1;
            return bk_error_set(err, BK_ERR_IO, w->off, "snapshot write failed: %s", strerror(errno));
        }
        w->off += (uint64_t)k;
        p += k;
        n -= (size_t)k;
    }
    return BK_OK;
}

static bk_status sw_put(bk_utxo_snapshot_writer *w, const uint8_t *p, size_t n, bk_error *err)
{
    if (w->len + n > SW_BUF) {
        bk_status s = sw_write(w, w->buf, w->len, err);
        w->len = 0;
        if (s != BK_OK) return s;
        if (n > SW_BUF) return sw_write(w, p, n, err);
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
    return BK_OK;
}

bk_status bk_utxo_snapshot_writer_open(bk_utxo_snapshot_writer **out, int fd, bk_network net,
                                       const uint8_t base_hash[32], const bk_allocator *alloc, bk_error *err)
{
    *out = NULL;
    const bk_network_params *np = bk_network_get(net);
    if (!np) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    bk_utxo_snapshot_writer *w = bk_alloc(alloc, sizeof *w);
    if (!w) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(w, 0, sizeof *w);
    w->alloc = alloc;
    w->fd = fd;
    w->buf = bk_alloc(alloc, SW_BUF);
    if (!w->buf) {
        bk_free(alloc, w, sizeof *w);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    uint8_t h[BK_UTXO_SNAPSHOT_HEADER_SIZE];
    memcpy(h, "utxo\xff", 5);
    h[5] = BK_UTXO_SNAPSHOT_VERSION & 0xff;
    h[6] = BK_UTXO_SNAPSHOT_VERSION >> 8;
    memcpy(h + 7, np->magic, 4);
    memcpy(h + 11, base_hash, 32);
    memset(h + 43, 0, 8); /* the count, written by finish */
    bk_status s = sw_put(w, h, sizeof h, err);
    if (s != BK_OK) {
        bk_utxo_snapshot_writer_free(w);
        return s;
    }
    *out = w;
    return BK_OK;
}

static bk_status sw_flush_group(bk_utxo_snapshot_writer *w, bk_error *err)
{
    if (!w->have_group || w->gcoins == 0) return BK_OK;
    uint8_t hdr[32 + 9];
    memcpy(hdr, w->txid, 32);
    size_t n = 32 + bk_compact_size_encode(hdr + 32, w->gcoins);
    bk_status s = sw_put(w, hdr, n, err);
    if (s == BK_OK) s = sw_put(w, w->group, w->glen, err);
    w->coins += w->gcoins;
    w->gcoins = 0;
    w->glen = 0;
    return s;
}

bk_status bk_utxo_snapshot_writer_add(bk_utxo_snapshot_writer *w, const bk_utxo *u, bk_error *err)
{
    if (w->failed) return bk_error_set(err, BK_ERR_IO, w->off, "snapshot writer failed before");
    uint64_t vk = vout_key(u->vout);
    if (!w->have_group || memcmp(u->txid, w->txid, 32) != 0) {
        if (w->have_group && memcmp(u->txid, w->txid, 32) < 0) {
            w->failed = 1;
            return bk_error_set(err, BK_ERR_INVALID, 0, "coins not in key order (a txid below its predecessor)");
        }
        bk_status s = sw_flush_group(w, err);
        if (s != BK_OK) return s;
        memcpy(w->txid, u->txid, 32);
        w->have_group = 1;
    } else if (vk <= w->last_vkey) {
        w->failed = 1;
        return bk_error_set(err, BK_ERR_INVALID, 0, "coins of one txid not in key order (vout %u)", u->vout);
    }
    w->last_vkey = vk;
    size_t need = w->glen + 9 + 30 + 5 + u->coin.script_len;
    if (need > SW_GROUP_MAX) {
        w->failed = 1;
        return bk_error_set(err, BK_ERR_LENGTH, 0, "one txid with more coins than a block can create");
    }
    if (need > w->gcap && bk_grow(w->alloc, &w->group, &w->gcap, need) != 0) {
        w->failed = 1;
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    size_t n = bk_compact_size_encode(w->group + w->glen, u->vout);
    n += coin_serialize(&u->coin, w->group + w->glen + n);
    w->glen += n;
    w->gcoins++;
    return BK_OK;
}

bk_status bk_utxo_snapshot_writer_finish(bk_utxo_snapshot_writer *w, uint64_t *coins_out, bk_error *err)
{
    if (w->failed) return bk_error_set(err, BK_ERR_IO, w->off, "snapshot writer failed before");
    bk_status s = sw_flush_group(w, err);
    if (s == BK_OK) {
        s = sw_write(w, w->buf, w->len, err);
        w->len = 0;
    }
    if (s != BK_OK) return s;
    uint8_t c[8];
    bk_store_le64(c, w->coins);
    for (size_t done = 0; done < 8;) {
        ssize_t k = pwrite(w->fd, c + done, 8 - done, (off_t)(43 + done));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            w->failed = 1;
            return bk_error_set(err, BK_ERR_IO, 43, "cannot write the coin count: %s",
                                k < 0 ? strerror(errno) : "short write");
        }
        done += (size_t)k;
    }
    if (coins_out) *coins_out = w->coins;
    return BK_OK;
}

void bk_utxo_snapshot_writer_free(bk_utxo_snapshot_writer *w)
{
    if (!w) return;
    bk_free(w->alloc, w->buf, SW_BUF);
    bk_free(w->alloc, w->group, w->gcap);
    bk_free(w->alloc, w, sizeof *w);
}

/* ---------------------------------------------------------------- rollback */

typedef struct rb_rec {
    uint8_t txid[32];
    uint64_t vkey;
    uint32_t vout;
    uint32_t height;
    uint8_t coinbase;
    int64_t value;
    uint32_t script_len;
    size_t script_off; /* in the arena */
} rb_rec;

#define RB_REC_FILE (32 + 4 + 4 + 8 + 4) /* txid, vout, code, value, script length; then the script */
#define RB_SCRIPT_MAX 10000u
#define RB_RUN_BUF (256u << 10)

typedef struct rb_run {
    FILE *f;
    char *vbuf;
    uint64_t left;          /* records not yet read */
    /* the current record */
    bk_utxo cur;
    uint64_t vkey;
    uint8_t script[RB_SCRIPT_MAX];
} rb_run;

/* merge sources: 0 = the chainstate, 1 = the in-memory run, 2.. = file runs */
struct bk_utxo_rollback {
    const bk_allocator *alloc;
    bk_utxo_rollback_info info;
    bk_chainstate_iter *it;
    /* in memory */
    rb_rec *recs;
    size_t n_recs, cap_recs;
    uint8_t *arena;
    size_t n_arena, cap_arena;
    size_t mem_pos;
    size_t mem_limit;
    const char *tmpdir;
    /* file runs */
    rb_run **runs;
    size_t n_runs, cap_runs;
    /* heap of source ids with a current coin */
    size_t *heap;
    size_t n_heap;
    size_t n_src;
    bk_utxo *src_cur;       /* per source, its current coin (chainstate, memory) */
    uint64_t *src_key;
    int need_advance;       /* the source returned last must move on first */
    size_t last_src;
    int32_t height;
    bk_utxo out;
    bk_status status;
    bk_error err;
    int started;
};

static int rec_cmp(const void *a, const void *b)
{
    const rb_rec *x = a, *y = b;
    int c = memcmp(x->txid, y->txid, 32);
    if (c) return c;
    return x->vkey < y->vkey ? -1 : x->vkey > y->vkey;
}

static bk_status rb_fail(bk_utxo_rollback *r, bk_status st, const char *msg)
{
    if (r->status == BK_OK) {
        r->status = st;
        bk_error_set(&r->err, st, 0, "%s", msg);
    }
    return st;
}

static bk_status spill(bk_utxo_rollback *r, bk_error *err)
{
    qsort(r->recs, r->n_recs, sizeof *r->recs, rec_cmp);
    const char *dir = r->tmpdir;
    if (!dir) dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char path[4096];
    int pn = snprintf(path, sizeof path, "%s/blockkit-rollback-XXXXXX", dir);
    if (pn < 0 || (size_t)pn >= sizeof path) return bk_error_set(err, BK_ERR_ARG, 0, "tmpdir path too long");
    int fd = mkstemp(path);
    if (fd < 0) return bk_error_set(err, BK_ERR_IO, 0, "cannot create a run file in %s: %s", dir, strerror(errno));
    unlink(path); /* gone when closed, whatever happens */
    FILE *f = fdopen(fd, "w+b");
    if (!f) {
        close(fd);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    if (r->n_runs == r->cap_runs) {
        size_t nc = r->cap_runs ? 2 * r->cap_runs : 8;
        rb_run **nr = bk_realloc(r->alloc, r->runs, r->cap_runs * sizeof *nr, nc * sizeof *nr);
        if (!nr) {
            fclose(f);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
        r->runs = nr;
        r->cap_runs = nc;
    }
    rb_run *run = bk_alloc(r->alloc, sizeof *run);
    char *vbuf = bk_alloc(r->alloc, RB_RUN_BUF);
    if (!run || !vbuf) {
        bk_free(r->alloc, run, sizeof *run);
        bk_free(r->alloc, vbuf, RB_RUN_BUF);
        fclose(f);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    memset(run, 0, sizeof *run);
    run->f = f;
    run->vbuf = vbuf;
    setvbuf(f, vbuf, _IOFBF, RB_RUN_BUF);
    r->runs[r->n_runs++] = run;
    for (size_t i = 0; i < r->n_recs; i++) {
        const rb_rec *x = &r->recs[i];
        uint8_t h[RB_REC_FILE];
        memcpy(h, x->txid, 32);
        bk_store_le32(h + 32, x->vout);
        bk_store_le32(h + 36, (x->height << 1) | x->coinbase);
        bk_store_le64(h + 40, (uint64_t)x->value);
        bk_store_le32(h + 48, x->script_len);
        if (fwrite(h, 1, sizeof h, f) != sizeof h ||
            (x->script_len && fwrite(r->arena + x->script_off, 1, x->script_len, f) != x->script_len))
            return bk_error_set(err, BK_ERR_IO, 0, "cannot write a run file in %s: %s", dir, strerror(errno));
    }
    if (fflush(f) != 0 || fseeko(f, 0, SEEK_SET) != 0)
        return bk_error_set(err, BK_ERR_IO, 0, "cannot write a run file in %s: %s", dir, strerror(errno));
    run->left = r->n_recs;
    r->info.runs++;
    r->n_recs = 0;
    r->n_arena = 0;
    return BK_OK;
}

static bk_status add_restored(bk_utxo_rollback *r, const uint8_t txid[32], uint32_t vout, const bk_coin *c,
                              bk_error *err)
{
    size_t need_mem = (r->n_recs + 1) * sizeof *r->recs + r->n_arena + c->script_len;
    if (need_mem > r->mem_limit && r->n_recs) {
        bk_status s = spill(r, err);
        if (s != BK_OK) return s;
    }
    if (r->n_recs == r->cap_recs) {
        size_t nc = r->cap_recs ? 2 * r->cap_recs : 1024;
        rb_rec *nr = bk_realloc(r->alloc, r->recs, r->cap_recs * sizeof *nr, nc * sizeof *nr);
        if (!nr) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        r->recs = nr;
        r->cap_recs = nc;
    }
    if (c->script_len && bk_grow(r->alloc, &r->arena, &r->cap_arena, r->n_arena + c->script_len) != 0)
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    rb_rec *x = &r->recs[r->n_recs++];
    memcpy(x->txid, txid, 32);
    x->vout = vout;
    x->vkey = vout_key(vout);
    x->height = c->height;
    x->coinbase = c->coinbase & 1;
    x->value = c->value;
    x->script_len = c->script_len;
    x->script_off = r->n_arena;
    if (c->script_len) memcpy(r->arena + r->n_arena, bk_coin_script(c), c->script_len);
    r->n_arena += c->script_len;
    r->info.coins_restored++;
    return BK_OK;
}

/* Read the next record of a run into run->cur: 1, 0 at its end, -1 on an
 * error (r's status set). */
static int run_next(bk_utxo_rollback *r, rb_run *run)
{
    if (run->left == 0) return 0;
    uint8_t h[RB_REC_FILE];
    if (fread(h, 1, sizeof h, run->f) != sizeof h) goto bad;
    memcpy(run->cur.txid, h, 32);
    run->cur.vout = bk_load_le32(h + 32);
    uint32_t code = bk_load_le32(h + 36);
    run->cur.coin.height = code >> 1;
    run->cur.coin.coinbase = code & 1;
    run->cur.coin.value = (int64_t)bk_load_le64(h + 40);
    uint32_t sl = bk_load_le32(h + 48);
    if (sl > RB_SCRIPT_MAX) goto bad;
    if (sl && fread(run->script, 1, sl, run->f) != sl) goto bad;
    run->cur.coin.script_len = sl;
    run->cur.coin.raw_script = run->script;
    run->vkey = vout_key(run->cur.vout);
    run->left--;
    return 1;
bad:
    rb_fail(r, BK_ERR_IO, "cannot read back a rollback run file (truncated or unreadable)");
    return -1;
}

static int key_less(const bk_utxo_rollback *r, size_t a, size_t b)
{
    int c = memcmp(r->src_cur[a].txid, r->src_cur[b].txid, 32);
    if (c) return c < 0;
    if (r->src_key[a] != r->src_key[b]) return r->src_key[a] < r->src_key[b];
    return a < b;
}

static void heap_push(bk_utxo_rollback *r, size_t s)
{
    size_t i = r->n_heap++;
    r->heap[i] = s;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!key_less(r, r->heap[i], r->heap[p])) break;
        size_t t = r->heap[i];
        r->heap[i] = r->heap[p];
        r->heap[p] = t;
        i = p;
    }
}

static size_t heap_pop(bk_utxo_rollback *r)
{
    size_t top = r->heap[0];
    r->heap[0] = r->heap[--r->n_heap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < r->n_heap && key_less(r, r->heap[l], r->heap[m])) m = l;
        if (l + 1 < r->n_heap && key_less(r, r->heap[l + 1], r->heap[m])) m = l + 1;
        if (m == i) break;
        size_t t = r->heap[i];
        r->heap[i] = r->heap[m];
        r->heap[m] = t;
        i = m;
    }
    return top;
}

/* Move source s to its next coin and push it: 1, 0 at its end, -1 on an
 * error. */
static int src_advance(bk_utxo_rollback *r, size_t s)
{
    if (s == 0) {
        bk_utxo u;
        for (;;) {
            if (!bk_chainstate_iter_next(r->it, &u)) {
                bk_error e;
                if (bk_chainstate_iter_status(r->it, &e) != BK_OK) {
                    if (r->status == BK_OK) {
                        r->status = e.status;
                        r->err = e;
                    }
                    return -1;
                }
                return 0;
            }
            if ((int64_t)u.coin.height <= r->height) break;
            r->info.coins_dropped++; /* created above the height: disconnected */
        }
        r->src_cur[0] = u; /* its script stays valid until the iterator's next call */
    } else if (s == 1) {
        if (r->mem_pos >= r->n_recs) return 0;
        const rb_rec *x = &r->recs[r->mem_pos++];
        bk_utxo *u = &r->src_cur[1];
        memcpy(u->txid, x->txid, 32);
        u->vout = x->vout;
        u->coin.height = x->height;
        u->coin.coinbase = x->coinbase;
        u->coin.value = x->value;
        u->coin.script_len = x->script_len;
        u->coin.raw_script = r->arena + x->script_off;
    } else {
        rb_run *run = r->runs[s - 2];
        int k = run_next(r, run);
        if (k <= 0) return k;
        r->src_cur[s] = run->cur;
    }
    r->src_key[s] = vout_key(r->src_cur[s].vout);
    heap_push(r, s);
    return 1;
}

bk_status bk_utxo_rollback_open(bk_utxo_rollback **out, bk_chainstate *cs, const bk_chain *c,
                                const bk_blocksdir *dir, int32_t height, const bk_utxo_rollback_opts *o,
                                bk_error *err)
{
    *out = NULL;
    bk_utxo_rollback_opts dflt;
    if (!o) {
        memset(&dflt, 0, sizeof dflt);
        o = &dflt;
    }
    if (!cs || !c || !dir) return bk_error_set(err, BK_ERR_ARG, 0, "missing argument");
    uint8_t best[32];
    bk_chainstate_best_block(cs, best);
    const bk_chain_entry *tip = bk_chain_find(c, best);
    if (!tip || !tip->active || tip->height < 0)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                            "the chainstate's best block is not on the active chain of the block index");
    if (height < 0)
        return bk_error_set(err, BK_ERR_ARG, 0, "height %d is not within 0..%d (the chainstate's best block)",
                            (int)height, (int)tip->height);
    if (height > tip->height) /* Core's dumptxoutset rollback and gettxoutsetinfo: the same words */
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "Target block height %d after current tip %d", (int)height,
                            (int)tip->height);
    if (c->base_height != 0)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "the chain does not start at the genesis block");
    const bk_allocator *alloc = o->alloc;
    bk_utxo_rollback *r = bk_alloc(alloc, sizeof *r);
    if (!r) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(r, 0, sizeof *r);
    r->alloc = alloc;
    r->height = height;
    r->tmpdir = o->tmpdir;
    r->mem_limit = o->mem_limit ? o->mem_limit : (64u << 20);
    r->info.base_height = height;
    r->info.tip_height = tip->height;
    const bk_chain_entry *base = bk_chain_at_height(c, height);
    if (!base) {
        bk_utxo_rollback_close(r);
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no block at height %d", (int)height);
    }
    memcpy(r->info.base_hash, base->hash, 32);
    for (int32_t h = 0; h <= height; h++) r->info.nchaintx += c->entries[c->active[h]].n_tx;
    bk_status s = BK_OK;
    bk_block_reader br;
    bk_block_reader_init(&br, dir, alloc);
    unsigned flags = BK_READ_UNDO | (c->from_index ? BK_READ_UNDO_CHECKSUM : 0);
    for (int32_t h = height + 1; h <= tip->height && s == BK_OK; h++) {
        if (o->cancel && *o->cancel) {
            s = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
        const bk_chain_entry *e = &c->entries[c->active[h]];
        bk_engine_block eb;
        bk_engine_where wh;
        memset(&wh, 0, sizeof wh);
        wh.item = SIZE_MAX;
        wh.height = h; /* the reader fills the hash and file position, not the height */
        bk_error e2;
        s = bk_block_reader_read(&br, e, flags, &eb, &wh, &e2);
        if (s != BK_OK) {
            char m[BK_ERROR_MSG_MAX + 256];
            bk_engine_error_format(&wh, &e2, m, sizeof m);
            s = bk_error_set(err, s, e2.offset, "%s", m);
            break;
        }
        if (eb.block && !eb.undo && (e->status & BK_BLOCK_HAVE_UNDO) && !bk_blocksdir_has(dir, BK_FILE_REV, e->undo_file)) {
            /* The index says the undo is there, its rev file is not: a
             * damaged copy, not pruning (pruning removes blk and rev). */
            s = bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                             "block at height %d: its undo data's rev%05u.dat is not in %s: cannot roll back", (int)h,
                             e->undo_file, dir->path);
            break;
        }
        if (!eb.block || !eb.undo) {
            s = bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block at height %d has no %s (pruned): cannot roll back",
                             (int)h, eb.block ? "undo data" : "data");
            break;
        }
        s = bk_block_undo_check(eb.undo, eb.block, err);
        if (s != BK_OK) break;
        bk_undo_iter ui;
        bk_undo_iter_init(&ui, eb.undo);
        for (uint32_t i = 1; i < eb.block->n_tx && s == BK_OK; i++) {
            uint32_t n_coins;
            if (!bk_undo_next_tx(&ui, &n_coins)) {
                s = bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match block");
                break;
            }
            bk_txin_iter ii;
            bk_txin in;
            bk_txin_iter_init(&ii, &eb.block->txs[i]);
            for (uint32_t k = 0; k < n_coins; k++) {
                bk_coin coin;
                if (!bk_txin_next(&ii, &in) || !bk_undo_next_coin(&ui, &coin)) {
                    s = bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match block");
                    break;
                }
                r->info.coins_undone++;
                if ((int64_t)coin.height > height) continue; /* created above: its block removes it */
                s = add_restored(r, in.prev_txid, in.prev_index, &coin, err);
                if (s != BK_OK) break;
            }
        }
        r->info.blocks_undone++;
    }
    bk_block_reader_free(&br);
    if (s == BK_OK && r->n_recs) qsort(r->recs, r->n_recs, sizeof *r->recs, rec_cmp);
    if (s == BK_OK) s = bk_chainstate_iter_new(cs, &r->it, err);
    if (s == BK_OK) {
        r->n_src = 2 + r->n_runs;
        r->heap = bk_alloc(alloc, r->n_src * sizeof *r->heap);
        r->src_cur = bk_alloc(alloc, r->n_src * sizeof *r->src_cur);
        r->src_key = bk_alloc(alloc, r->n_src * sizeof *r->src_key);
        if (!r->heap || !r->src_cur || !r->src_key) s = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    if (s != BK_OK) {
        bk_utxo_rollback_close(r);
        return s;
    }
    *out = r;
    return BK_OK;
}

int bk_utxo_rollback_next(bk_utxo_rollback *r, bk_utxo *u)
{
    if (r->status != BK_OK) return 0;
    if (!r->started) {
        r->started = 1;
        for (size_t s = 0; s < r->n_src; s++)
            if (src_advance(r, s) < 0) return 0;
    } else if (r->need_advance) {
        r->need_advance = 0;
        if (src_advance(r, r->last_src) < 0) return 0;
    }
    if (r->n_heap == 0) return 0;
    size_t s = heap_pop(r);
    /* an outpoint both restored and in the chainstate cannot happen in a
     * chain Core accepted (a coin is spent once) */
    if (r->n_heap) {
        size_t t = r->heap[0];
        if (memcmp(r->src_cur[t].txid, r->src_cur[s].txid, 32) == 0 && r->src_cur[t].vout == r->src_cur[s].vout) {
            rb_fail(r, BK_ERR_INVALID, "an outpoint restored from undo data is also in the chainstate");
            return 0;
        }
    }
    r->out = r->src_cur[s];
    *u = r->out;
    r->last_src = s;
    r->need_advance = 1;
    return 1;
}

bk_status bk_utxo_rollback_status(const bk_utxo_rollback *r, bk_error *err)
{
    if (r->status != BK_OK && err) *err = r->err;
    return r->status;
}

const bk_utxo_rollback_info *bk_utxo_rollback_info_get(const bk_utxo_rollback *r) { return &r->info; }

void bk_utxo_rollback_close(bk_utxo_rollback *r)
{
    if (!r) return;
    const bk_allocator *a = r->alloc;
    if (r->it) bk_chainstate_iter_free(r->it);
    for (size_t i = 0; i < r->n_runs; i++) {
        fclose(r->runs[i]->f);
        bk_free(a, r->runs[i]->vbuf, RB_RUN_BUF);
        bk_free(a, r->runs[i], sizeof *r->runs[i]);
    }
    bk_free(a, r->runs, r->cap_runs * sizeof *r->runs);
    bk_free(a, r->recs, r->cap_recs * sizeof *r->recs);
    bk_free(a, r->arena, r->cap_arena);
    bk_free(a, r->heap, r->n_src * sizeof *r->heap);
    bk_free(a, r->src_cur, r->n_src * sizeof *r->src_cur);
    bk_free(a, r->src_key, r->n_src * sizeof *r->src_key);
    bk_free(a, r, sizeof *r);
}

bk_status bk_utxo_rollback_stats(bk_chainstate *cs, const bk_chain *c, const bk_blocksdir *dir, int32_t height,
                                 const bk_utxo_rollback_opts *o, bk_utxo_hash_type type, bk_utxo_stats *st,
                                 bk_utxo_rollback_info *info_out, bk_error *err)
{
    memset(st, 0, sizeof *st);
    bk_utxo_rollback *r;
    bk_status s = bk_utxo_rollback_open(&r, cs, c, dir, height, o, err);
    if (s != BK_OK) return s;
    if ((s = bk_utxo_stats_begin(st, type, o ? o->alloc : NULL, err)) != BK_OK) {
        bk_utxo_rollback_close(r);
        return s;
    }
    bk_utxo u;
    while (s == BK_OK && bk_utxo_rollback_next(r, &u)) s = bk_utxo_stats_add(st, &u, err);
    if (s == BK_OK) s = bk_utxo_rollback_status(r, err);
    if (s == BK_OK) s = bk_utxo_stats_end(st, err);
    if (info_out) *info_out = *bk_utxo_rollback_info_get(r);
    bk_utxo_rollback_close(r);
    return s;
}
