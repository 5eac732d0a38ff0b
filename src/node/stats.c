/* bk_stats_run (blockkit/stats.h): getblockstats for a chain's blocks in
 * height order, on the block engine's workers. */
#include <blockkit/hex.h>
#include <blockkit/stats.h>

#include <stdio.h>
#include <string.h>

bk_status bk_stats_line(bk_block_stats_scratch *sc, const bk_block *b, const bk_block_undo *undo,
                        const uint8_t *undo_raw, size_t undo_len, const bk_chain_context *ctx, const uint8_t *hash,
                        const bk_stats_format *f, bk_writer *w, bk_error *err)
{
    bk_block_stats_opts o;
    bk_block_stats_opts_init(&o);
    o.select = f->select;
    o.core_version = f->core_version;
    o.hash = hash;
    bk_block_stats st;
    bk_status s = undo_raw ? bk_block_stats_compute_undo(sc, b, undo_raw, undo_len, NULL, ctx, &o, &st, err)
                           : bk_block_stats_compute(sc, b, undo, ctx, &o, &st, err);
    if (s != BK_OK) return s;
    bk_json j;
    bk_json_init(&j, w, f->indent);
    s = bk_json_block_stats(&j, &st, f->select, err);
    if (s != BK_OK) return s;
    bk_writer_putc(w, '\n');
    if (bk_writer_status(w) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;
}

typedef struct stats_run {
    const bk_stats_run_opts *o;
    bk_block_stats_scratch *sc; /* one per worker */
    size_t emitted;
} stats_run;

/* A CBlockUndo the single pass refused: when bk_block_undo_parse refuses
 * it too (bk_block_stats_compute_undo's error is then the parser's), the
 * engine reports it as its own undo decode failure, exactly as when it
 * parsed the record itself; else BK_OK. */
static bk_status undo_parse_error(const bk_engine_block *eb, bk_error *err)
{
    bk_block_undo u;
    bk_status st = bk_block_undo_parse(eb->undo_data, eb->undo_size, &u, err);
    if (st != BK_OK && eb->undo_stage) *eb->undo_stage = BK_STAGE_UNDO_DECODE;
    return st;
}

/* One block's result as a line (the engine read the block and, for a
 * block with undo data, its undo record's bytes, checksum verified when
 * found through Core's block index; BK_READ_UNDO_RAW: not parsed, the
 * statistics read the CBlockUndo in one pass). */
static bk_status stats_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *w, bk_error *err)
{
    stats_run *R = vctx;
    const bk_chain *chain = R->o->chain;
    const bk_chain_entry *e = eb->entry;
    char hex[65];
    bk_hash_to_hex(hex, e->hash);
    if (!eb->block) {
        /* Core: CheckBlockDataAvailability - IsBlockPruned is "no data,
         * nTx known, the node has pruned" */
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %d: %s", hex, (int)e->height,
                            chain->pruned && e->n_tx > 0 ? "Block not available (pruned data)"
                                                         : "Block not available (not fully downloaded)");
    }
    if (e->height > 0 && !eb->undo_data) {
        /* Core: CheckBlockDataAvailability(check_for_undo) */
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block %s at height %d: Undo data not available", hex,
                            (int)e->height);
    }
    bk_error e2;
    bk_chain_context ctx;
    bk_status ps;
    if (bk_chain_context_fill(chain, e, &ctx, &e2) != BK_OK) {
        /* the engine used to parse the undo record before this */
        if (eb->undo_data && (ps = undo_parse_error(eb, err)) != BK_OK) return ps;
        return bk_error_set(err, e2.status, 0, "block %s: %s", hex, e2.msg);
    }
    if (bk_stats_line(&R->sc[worker], eb->block, NULL, eb->undo_data, eb->undo_size, &ctx, e->hash, &R->o->format, w,
                      &e2) != BK_OK) {
        if (eb->undo_data && (ps = undo_parse_error(eb, err)) != BK_OK) return ps;
        return bk_error_set(err, e2.status, e2.offset, "%s", e2.msg);
    }
    return BK_OK;
}

static bk_status stats_consume(void *vctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    stats_run *R = vctx;
    bk_status s = R->o->consume(R->o->consume_ctx, data, len, err);
    if (s == BK_OK) R->emitted = job + 1;
    return s;
}

char *bk_stats_error_format(const bk_engine_where *wh, const bk_error *err, char *m, size_t cap)
{
    if (!cap) return m;
    char hex[65];
    bk_hash_to_hex(hex, wh->hash);
    if (wh->stage == BK_STAGE_WORK)
        snprintf(m, cap, "%s", err ? err->msg : "");
    else if (wh->stage == BK_STAGE_UNDO_CHECKSUM)
        snprintf(m, cap, "block %s at height %d: Can't read undo data from disk (%s, rev%05u.dat offset %llu)", hex,
                 (int)wh->height, err ? err->msg : "", wh->file, (unsigned long long)wh->file_offset);
    else
        bk_engine_error_format(wh, err, m, cap);
    return m;
}

/* The blocks of the run into *list (*n of them): the hash's, or the range's. */
static bk_status stats_items(const bk_stats_run_opts *o, bk_stats_run_result *res, bk_engine_item **list, size_t *n,
                             size_t *cap, bk_error *err)
{
    const bk_chain *c = o->chain;
    if (o->hash) {
        const bk_chain_entry *e = bk_chain_find(c, o->hash);
        if (!e) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "Block not found");
        if (e->height < 0) {
            char hex[65];
            res->no_height = 1;
            return bk_error_set(err, BK_ERR_NOT_FOUND, 0,
                                "block %s is not connected to a genesis block (its parent is not in the files): "
                                "no height", bk_hash_to_hex(hex, o->hash));
        }
        if (!(*list = bk_alloc(NULL, sizeof **list))) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        (*list)[0].entry = (uint32_t)(e - c->entries);
        (*list)[0].height = e->height;
        (*list)[0].orphan = 0;
        *n = *cap = 1;
        return BK_OK;
    }
    const bk_chain_entry *tip = bk_chain_tip(c);
    int64_t tip_h = tip ? tip->height : -1;
    /* a pruned node: from the lowest height whose data is kept */
    int64_t start = o->start >= 0 ? o->start : c->prune_height > c->base_height ? c->prune_height : c->base_height;
    /* Core: ParseHashOrHeight's message */
    if (o->single && o->end > tip_h)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "Target block height %lld after current tip %lld",
                            (long long)o->end, (long long)tip_h);
    /* a range as scan and export take it: past the tip is the tip, and
     * no block in it is their one message */
    int64_t end = bk_engine_range_end(tip_h, o->end, o->below_tip);
    if (end < start) {
        res->empty = 1;
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "no block in heights %lld..%lld", (long long)start,
                            (long long)end);
    }
    if (start < c->base_height && tip_h >= 0)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "height %lld is not in the files (the chain starts at %d)",
                            (long long)start, (int)c->base_height);
    /* the engine's range builder, pruned heights kept (each answered with Core's error) */
    if (bk_engine_chain_items(c, start, end, 1, list, n, cap, NULL, NULL, NULL, err) != BK_OK)
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;
}

bk_status bk_stats_run(const bk_stats_run_opts *o, bk_stats_run_result *res, bk_error *err)
{
    memset(res, 0, sizeof *res);
    res->next_height = -1;
    if (!o || !o->chain || !o->dir || !o->consume) return bk_error_set(err, BK_ERR_ARG, 0, "stats run: bad options");
    bk_engine_item *list = NULL;
    size_t n = 0, cap = 0;
    bk_status s = stats_items(o, res, &list, &n, &cap, err);
    res->blocks = n;
    if (s != BK_OK || n == 0) {
        bk_free(NULL, list, cap * sizeof *list);
        return s;
    }
    int jobs = o->workers < 1 ? 1 : o->workers;
    if (jobs > (int)n) jobs = (int)n;
    stats_run R;
    memset(&R, 0, sizeof R);
    R.o = o;
    R.sc = bk_alloc(NULL, (size_t)jobs * sizeof *R.sc);
    if (!R.sc) {
        bk_free(NULL, list, cap * sizeof *list);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    for (int i = 0; i < jobs; i++) bk_block_stats_scratch_init(&R.sc[i], NULL);
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = o->chain;
    eo.dir = o->dir;
    eo.items = list;
    eo.n_items = n;
    eo.read_flags = BK_READ_UNDO | BK_READ_UNDO_RAW; /* bk_block_stats_compute_undo reads it */
    eo.run.workers = jobs;
    eo.run.window = 2 * (size_t)jobs + 1;
    eo.run.cancel = o->cancel;
    eo.block = stats_block;
    eo.consume = stats_consume;
    eo.ctx = &R;
    bk_engine_result er;
    s = bk_engine_run(&eo, &er, err);
    res->emitted = R.emitted;
    res->next_height = R.emitted < n ? list[R.emitted].height : list[n - 1].height + 1;
    res->consume_failed = s != BK_OK && s != BK_ERR_CANCELLED && er.run.failure == BK_ORDERED_CONSUME;
    res->where = er.where;
    for (int i = 0; i < jobs; i++) bk_block_stats_scratch_free(&R.sc[i]);
    bk_free(NULL, R.sc, (size_t)jobs * sizeof *R.sc);
    bk_free(NULL, list, cap * sizeof *list);
    return s;
}
