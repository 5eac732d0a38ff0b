/* Silent payments over blocks: a block's eligible transactions with their
 * tweaks (and the light-client filters of BIP352's Appendix A), their
 * NDJSON lines, and the range driver on the ordered engine. */
#include "silentpay_internal.h"

#include <blockkit/hex.h>
#include <blockkit/json.h>

#include <stdlib.h>
#include <string.h>

/* Appendix A: a transaction a light client would download for nothing is
 * dropped: one whose taproot outputs are all dust, or (cut-through) all
 * already spent. 1 keep, 0 drop, -1 error. */
static int filter_keep(const bk_sp_filter *f, const bk_tx *tx, const uint8_t txid[32], bk_error *err)
{
    if (!f || (f->dust_limit <= 0 && !f->unspent)) return 1;
    bk_txout_iter oi;
    bk_txout o;
    bk_txout_iter_init(&oi, tx);
    while (bk_txout_next(&oi, &o)) {
        if (!bk_sp_is_taproot(o.script, o.script_len)) continue;
        if (f->dust_limit > 0 && o.value < f->dust_limit) continue;
        if (!f->unspent) return 1;
        int u = f->unspent(f->spent_ctx, txid, oi.index - 1, err);
        if (u < 0) return -1;
        if (u) return 1;
    }
    return 0;
}

bk_status bk_sp_block_each(bk_sp_scratch *s, const bk_block *b, const bk_block_undo *undo,
                           const bk_sp_filter *filter, bk_sp_tx_fn fn, void *ctx, uint64_t *eligible_out,
                           bk_error *err)
{
    if (!s || !b || !undo || !fn) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_status st = bk_block_undo_check(undo, b, err);
    if (st != BK_OK) return st;
    bk_undo_iter it;
    bk_undo_iter_init(&it, undo);
    uint64_t eligible = 0;
    for (uint32_t i = 1; i < b->n_tx; i++) {
        uint32_t n_coins;
        if (!bk_undo_next_tx(&it, &n_coins))
            return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match block");
        bk_sp_tx t;
        bk_sp_verdict v;
        st = bk_sp_tx_tweak(s, &b->txs[i], &it, n_coins, &v, &t.tweak, err);
        if (st != BK_OK) return st;
        if (v != BK_SP_ELIGIBLE) continue;
        eligible++;
        t.tx_index = i;
        t.tx = &b->txs[i];
        bk_tx_txid(t.tx, t.txid);
        int keep = filter_keep(filter, t.tx, t.txid, err);
        if (keep < 0) return err ? err->status : BK_ERR_IO;
        if (!keep) continue;
        st = fn(ctx, b, &t, err);
        if (st != BK_OK) return st;
    }
    if (eligible_out) *eligible_out += eligible;
    return BK_OK;
}

/* ---- lines ---------------------------------------------------------------- */

typedef struct lines_ctx {
    const bk_sp_lines_opts *o;
    bk_sp_scratch *s;
    bk_json j;
    bk_writer *w;
    int64_t height;
    const uint8_t *hash;
    uint64_t kept, found;
    /* the scan's buffers (lines_free) */
    uint8_t *keys;
    size_t keys_cap;
    bk_sp_found *hits;
    size_t hits_cap;
    const bk_allocator *alloc;
} lines_ctx;

static void put_head(lines_ctx *L, const bk_sp_tx *t)
{
    bk_json *j = &L->j;
    BK_JSON_KEY(j, "height");
    bk_json_int(j, L->height);
    BK_JSON_KEY(j, "hash");
    bk_json_hex_rev(j, L->hash, 32);
    BK_JSON_KEY(j, "txid");
    bk_json_hex_rev(j, t->txid, 32);
}

static bk_status tx_line(void *vctx, const bk_block *b, const bk_sp_tx *t, bk_error *err)
{
    (void)b;
    lines_ctx *L = vctx;
    bk_json *j = &L->j;
    L->kept++;
    if (L->o->form == BK_SP_FORM_BLOCKS) {
        bk_json_hex(j, t->tweak.tweak, 33);
        return BK_OK;
    }
    bk_txout_iter oi;
    bk_txout o;
    if (L->o->form == BK_SP_FORM_TXS) {
        bk_json_init(j, L->w, 0);
        bk_json_begin_object(j);
        put_head(L, t);
        BK_JSON_KEY(j, "tweak");
        bk_json_hex(j, t->tweak.tweak, 33);
        BK_JSON_KEY(j, "outputs");
        bk_json_begin_array(j);
        bk_txout_iter_init(&oi, t->tx);
        while (bk_txout_next(&oi, &o)) {
            if (!bk_sp_is_taproot(o.script, o.script_len)) continue;
            bk_json_begin_object(j);
            BK_JSON_KEY(j, "vout");
            bk_json_uint(j, oi.index - 1);
            BK_JSON_KEY(j, "pubkey");
            bk_json_hex(j, o.script + 2, 32);
            BK_JSON_KEY(j, "value");
            bk_json_int(j, o.value);
            bk_json_end_object(j);
        }
        bk_json_end_array(j);
        bk_json_end_object(j);
        bk_writer_putc(L->w, '\n');
        return bk_json_status(j) == BK_OK ? BK_OK : bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    /* BK_SP_FORM_SCAN: the taproot outputs' keys, then the receiver's k loop */
    size_t n = 0;
    bk_txout_iter_init(&oi, t->tx);
    while (bk_txout_next(&oi, &o)) n += bk_sp_is_taproot(o.script, o.script_len);
    if (bk_grow(L->alloc, &L->keys, &L->keys_cap, n * 36) != 0)
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (n > L->hits_cap) {
        bk_sp_found *h = bk_realloc(L->alloc, L->hits, L->hits_cap * sizeof *h, n * sizeof *h);
        if (!h) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        L->hits = h;
        L->hits_cap = n;
    }
    uint32_t *vouts = (uint32_t *)(void *)(L->keys + 32 * n);
    size_t k = 0;
    bk_txout_iter_init(&oi, t->tx);
    while (bk_txout_next(&oi, &o)) {
        if (!bk_sp_is_taproot(o.script, o.script_len)) continue;
        memcpy(L->keys + 32 * k, o.script + 2, 32);
        vouts[k++] = oi.index - 1;
    }
    size_t nf = 0;
    bk_status st = bk_sp_scan(L->o->scanner, L->s, t->tweak.tweak, L->keys, n, L->hits, &nf, err);
    if (st != BK_OK) return st;
    for (size_t i = 0; i < nf; i++) {
        const bk_sp_found *f = &L->hits[i];
        bk_txout_iter_init(&oi, t->tx);
        uint32_t vout = vouts[f->output];
        int64_t value = 0;
        while (bk_txout_next(&oi, &o))
            if (oi.index - 1 == vout) {
                value = o.value;
                break;
            }
        bk_json_init(j, L->w, 0);
        bk_json_begin_object(j);
        put_head(L, t);
        BK_JSON_KEY(j, "vout");
        bk_json_uint(j, vout);
        BK_JSON_KEY(j, "pubkey");
        bk_json_hex(j, f->pubkey, 32);
        BK_JSON_KEY(j, "value");
        bk_json_int(j, value);
        BK_JSON_KEY(j, "tweak");
        bk_json_hex(j, t->tweak.tweak, 33);
        BK_JSON_KEY(j, "k");
        bk_json_uint(j, f->k);
        BK_JSON_KEY(j, "priv_key_tweak");
        bk_json_hex(j, f->priv_key_tweak, 32);
        BK_JSON_KEY(j, "label");
        if (f->has_label) bk_json_uint(j, f->label);
        else bk_json_null(j);
        bk_json_end_object(j);
        bk_writer_putc(L->w, '\n');
        if (bk_json_status(j) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        L->found++;
    }
    return BK_OK;
}

static void lines_free(lines_ctx *L)
{
    if (L->keys) bk_free(L->alloc, L->keys, L->keys_cap);
    if (L->hits) bk_free(L->alloc, L->hits, L->hits_cap * sizeof *L->hits);
    L->keys = NULL;
    L->hits = NULL;
    L->keys_cap = L->hits_cap = 0;
}

static bk_status block_lines(lines_ctx *L, const bk_block *b, const bk_block_undo *undo, uint64_t *eligible,
                             bk_error *err)
{
    const bk_sp_lines_opts *o = L->o;
    if (o->form == BK_SP_FORM_SCAN && !o->scanner) return bk_error_set(err, BK_ERR_ARG, 0, "no scanner");
    bk_status st;
    if (o->form == BK_SP_FORM_BLOCKS) {
        bk_json *j = &L->j;
        bk_json_init(j, L->w, 0);
        bk_json_begin_object(j);
        BK_JSON_KEY(j, "height");
        bk_json_int(j, L->height);
        BK_JSON_KEY(j, "hash");
        bk_json_hex_rev(j, L->hash, 32);
        BK_JSON_KEY(j, "tweaks");
        bk_json_begin_array(j);
        st = undo ? bk_sp_block_each(L->s, b, undo, &o->filter, tx_line, L, eligible, err) : BK_OK;
        if (st != BK_OK) return st;
        bk_json_end_array(j);
        bk_json_end_object(j);
        bk_writer_putc(L->w, '\n');
        if (bk_json_status(j) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        return BK_OK;
    }
    return undo ? bk_sp_block_each(L->s, b, undo, &o->filter, tx_line, L, eligible, err) : BK_OK;
}

bk_status bk_sp_block_lines(const bk_sp_lines_opts *o, bk_sp_scratch *s, const bk_block *b,
                            const bk_block_undo *undo, int64_t height, const uint8_t *hash, bk_writer *w,
                            bk_error *err)
{
    if (!o || !s || !b || !w) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    lines_ctx L;
    memset(&L, 0, sizeof L);
    L.o = o;
    L.s = s;
    L.w = w;
    L.height = height;
    uint8_t h[32];
    if (!hash) {
        bk_block_hash(b, h);
        hash = h;
    }
    L.hash = hash;
    L.alloc = s->alloc ? s->alloc : bk_default_allocator();
    bk_status st = block_lines(&L, b, undo, NULL, err);
    lines_free(&L);
    return st;
}

/* ---- the range driver ----------------------------------------------------- */

typedef struct run_worker {
    bk_sp_scratch s;
    lines_ctx L;
    uint64_t blocks, eligible, kept, found;
} run_worker;

typedef struct run_ctx {
    const bk_sp_lines_opts *o;
    const bk_engine_opts *user;
    run_worker *w;
} run_ctx;

static bk_status run_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *out, bk_error *err)
{
    run_ctx *R = vctx;
    run_worker *W = &R->w[worker];
    char hex[65];
    bk_hash_to_hex(hex, eb->entry->hash);
    if (!eb->block)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %lld: block data not available (pruned?)",
                            hex, (long long)eb->height);
    if (eb->height > 0 && !eb->undo)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %lld: undo data not available", hex,
                            (long long)eb->height);
    lines_ctx *L = &W->L;
    L->w = out;
    L->height = eb->height;
    L->hash = eb->entry->hash;
    bk_status st = block_lines(L, eb->block, eb->undo, &W->eligible, err);
    if (st != BK_OK) return st;
    W->blocks++;
    return BK_OK;
}

/* The engine passes one context to the block callback and the consumer:
 * the caller's consumer gets its own back. */
static bk_status run_consume(void *ctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    run_ctx *R = ctx;
    return R->user->consume(R->user->ctx, job, data, len, err);
}

bk_status bk_sp_run(const bk_sp_lines_opts *o, const bk_engine_opts *eo, bk_engine_result *res,
                    bk_sp_run_stats *stats_out, bk_error *err)
{
    if (!o || !eo) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (o->form == BK_SP_FORM_SCAN && !o->scanner) return bk_error_set(err, BK_ERR_ARG, 0, "no scanner");
    int workers = eo->run.workers > 0 ? eo->run.workers : 1;
    const bk_allocator *alloc = eo->run.alloc ? eo->run.alloc : bk_default_allocator();
    run_ctx R;
    R.o = o;
    R.user = eo;
    R.w = bk_alloc(alloc, (size_t)workers * sizeof *R.w);
    if (!R.w) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(R.w, 0, (size_t)workers * sizeof *R.w);
    for (int i = 0; i < workers; i++) {
        bk_sp_scratch_init(&R.w[i].s, alloc);
        R.w[i].L.o = o;
        R.w[i].L.s = &R.w[i].s;
        R.w[i].L.alloc = alloc;
    }
    bk_engine_opts e = *eo;
    e.read_flags = BK_READ_UNDO;
    e.block = run_block;
    e.begin = NULL;
    e.end = NULL;
    e.ctx = &R;
    e.consume = eo->consume ? run_consume : NULL;
    bk_status st = bk_engine_run(&e, res, err);
    bk_sp_run_stats total;
    memset(&total, 0, sizeof total);
    for (int i = 0; i < workers; i++) {
        total.blocks += R.w[i].blocks;
        total.eligible += R.w[i].eligible;
        total.kept += R.w[i].L.kept;
        total.found += R.w[i].L.found;
        lines_free(&R.w[i].L);
        bk_sp_scratch_free(&R.w[i].s);
    }
    if (stats_out) *stats_out = total;
    bk_free(alloc, R.w, (size_t)workers * sizeof *R.w);
    return st;
}
