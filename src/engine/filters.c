/* The block filter index computed from a node's files
 * (include/blockkit/filters.h): bk_engine_run reads each block with its
 * undo data on a worker, which builds the filter (blockfilter.c); the
 * filters arrive here in list order, where the header chain is extended
 * and the caller's emitter called. */
#include <blockkit/filters.h>

#include <blockkit/blockindex.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct f_run {
    const bk_filter_run_opts *o;
    bk_blockfilter *builders; /* one per worker */
    uint8_t header[32];       /* the header of the last block consumed */
} f_run;

void bk_filter_run_opts_init(bk_filter_run_opts *o)
{
    memset(o, 0, sizeof *o);
    bk_ordered_opts_init(&o->run);
}

static bk_status f_block(void *vctx, int worker, const bk_engine_block *b, bk_writer *out, bk_error *err)
{
    f_run *R = vctx;
    const bk_chain_entry *e = b->entry;
    if (!b->block)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "%s",
                            R->o->chain->pruned && e->n_tx > 0 ? "Block not available (pruned data)"
                                                               : "Block not available (not fully downloaded)");
    /* Core's index reads the undo data of every block but the genesis
     * (BlockFilterIndex::CustomAppend) */
    if (b->height != 0 && !b->undo) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "Undo data not available");
    bk_blockfilter *f = &R->builders[worker];
    bk_status st = bk_blockfilter_build(f, b->block, b->height != 0 ? b->undo : NULL, err);
    if (st != BK_OK) return st;
    bk_writer_put(out, f->filter, f->filter_len);
    if (bk_writer_status(out) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;
}

static bk_status f_consume(void *vctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    f_run *R = vctx;
    const bk_filter_run_opts *o = R->o;
    const bk_engine_item *it = &o->items[job];
    if (o->headers) bk_blockfilter_header(data, len, R->header, R->header);
    if (job < o->emit_from) return BK_OK;
    return o->emit(o->ctx, job, &o->chain->entries[it->entry], it->height, data, len, o->headers ? R->header : NULL,
                   err);
}

bk_status bk_filter_run(const bk_filter_run_opts *o, bk_engine_result *res, bk_error *err)
{
    if (res) {
        memset(res, 0, sizeof *res);
        res->where.item = SIZE_MAX;
        res->where.height = -1;
    }
    if (!o || !o->chain || !o->dir || !o->emit || (o->n_items && !o->items))
        return bk_error_set(err, BK_ERR_ARG, 0, "bk_filter_run: bad options");
    for (size_t i = 0; i < o->n_items; i++) {
        if (o->items[i].entry >= o->chain->n_entries)
            return bk_error_set(err, BK_ERR_ARG, 0, "bk_filter_run: item %zu names no chain entry", i);
        if (o->headers && i > 0 && o->chain->entries[o->items[i].entry].parent != o->items[i - 1].entry)
            return bk_error_set(err, BK_ERR_ARG, 0,
                                "bk_filter_run: item %zu is not the child of item %zu: headers need a path", i, i - 1);
    }
    f_run R;
    memset(&R, 0, sizeof R);
    R.o = o;
    memcpy(R.header, o->prev_header, 32);
    size_t nw = o->run.workers > 1 ? (size_t)o->run.workers : 1;
    R.builders = calloc(nw, sizeof *R.builders);
    if (!R.builders) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    for (size_t w = 0; w < nw; w++) bk_blockfilter_init(&R.builders[w], o->run.alloc);
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = o->chain;
    eo.dir = o->dir;
    eo.items = o->items;
    eo.n_items = o->n_items;
    eo.read_flags = BK_READ_UNDO;
    eo.run = o->run;
    eo.block = f_block;
    eo.consume = f_consume;
    eo.ctx = &R;
    bk_status st = bk_engine_run(&eo, res, err);
    for (size_t w = 0; w < nw; w++) bk_blockfilter_free(&R.builders[w]);
    free(R.builders);
    return st;
}

bk_status bk_filter_path(const bk_chain *c, const bk_chain_entry *to, int64_t from_height, bk_engine_item *items,
                         bk_error *err)
{
    if (!c || !to || !items || to->height < 0 || from_height < 0 || from_height > to->height)
        return bk_error_set(err, BK_ERR_ARG, 0, "bk_filter_path: bad arguments");
    const bk_chain_entry *e = to;
    for (int64_t h = to->height;; h--) {
        if (e->height != h)
            return bk_error_set(err, BK_ERR_INVALID, 0, "block at height %lld has a parent at height %d",
                                (long long)h + 1, (int)e->height);
        items[h - from_height].entry = (uint32_t)(e - c->entries);
        items[h - from_height].height = h;
        items[h - from_height].orphan = 0;
        if (h == from_height) break;
        if (e->parent == BK_CHAIN_NONE || e->parent >= c->n_entries)
            return bk_error_set(err, BK_ERR_INVALID, 0, "block at height %lld has no parent entry", (long long)h);
        e = &c->entries[e->parent];
    }
    return BK_OK;
}

int bk_filter_block_connected(const bk_chain_entry *e)
{
    return e && (e->status & BK_BLOCK_FAILED_MASK) == 0 && (e->status & BK_BLOCK_VALID_MASK) >= BK_BLOCK_VALID_SCRIPTS;
}

const bk_chain_entry *bk_chain_fork_point(const bk_chain *c, const bk_chain_entry *to)
{
    const bk_chain_entry *e = to;
    while (e && !e->active) e = e->parent == BK_CHAIN_NONE || e->parent >= c->n_entries ? NULL : &c->entries[e->parent];
    return e;
}

/* ---- getblockfilter for a list of blocks ---- */

void bk_json_filter(bk_json *j, const uint8_t *filter, size_t len, const uint8_t header[32])
{
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "filter");
    bk_json_hex(j, filter, len);
    BK_JSON_KEY(j, "header");
    bk_json_hex_rev(j, header, 32);
    bk_json_end_object(j);
}

typedef struct a_run {
    bk_filter_answer *answers;
    const size_t *order;      /* answer indices waiting on this run, by height */
    size_t n_order, next;
    uint8_t *headers;         /* active run: the header of every height (for the forks) */
} a_run;

static bk_status a_emit(void *vctx, size_t item, const bk_chain_entry *e, int64_t height, const uint8_t *filter,
                        size_t len, const uint8_t *header, bk_error *err)
{
    (void)item;
    (void)e;
    a_run *A = vctx;
    if (A->headers) memcpy(A->headers + 32 * (size_t)height, header, 32);
    while (A->next < A->n_order && A->answers[A->order[A->next]].block->height == height) {
        bk_filter_answer *a = &A->answers[A->order[A->next++]];
        a->filter = malloc(len ? len : 1);
        if (!a->filter) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        memcpy(a->filter, filter, len);
        a->len = len;
        memcpy(a->header, header, 32);
    }
    return BK_OK;
}

/* answer indices in height order (a stable insertion of few items is
 * not assumed: the list may be long) */
typedef struct h_idx {
    int64_t height;
    size_t index;
} h_idx;
static int by_height(const void *x, const void *y)
{
    const h_idx *a = x, *b = y;
    if (a->height != b->height) return (a->height > b->height) - (a->height < b->height);
    return (a->index > b->index) - (a->index < b->index);
}

void bk_filter_answers_free(bk_filter_answer *answers, size_t n)
{
    for (size_t i = 0; answers && i < n; i++) {
        free(answers[i].filter);
        answers[i].filter = NULL;
    }
}

/* Run the items (a path) with prev_header, collecting the answers in A. */
static bk_status a_path(const bk_chain *c, const bk_blocksdir *dir, const bk_engine_item *items, size_t n,
                        const uint8_t prev[32], const bk_ordered_opts *run, a_run *A, bk_engine_result *res,
                        bk_error *err)
{
    bk_filter_run_opts o;
    bk_filter_run_opts_init(&o);
    o.chain = c;
    o.dir = dir;
    o.items = items;
    o.n_items = n;
    o.headers = 1;
    memcpy(o.prev_header, prev, 32);
    if (run) o.run = *run;
    o.emit = a_emit;
    o.ctx = A;
    return bk_filter_run(&o, res, err);
}

bk_status bk_filter_answer_blocks(const bk_chain *c, const bk_blocksdir *dir, const bk_chain_entry *const *blocks,
                                  size_t n, const bk_ordered_opts *run, bk_filter_answer *answers,
                                  bk_engine_result *res, bk_error *err)
{
    if (res) {
        memset(res, 0, sizeof *res);
        res->where.item = SIZE_MAX;
        res->where.height = -1;
    }
    if (!c || !dir || (n && (!blocks || !answers))) return bk_error_set(err, BK_ERR_ARG, 0, "bad arguments");
    memset(answers, 0, n * sizeof *answers);
    int64_t top = -1;                   /* the highest active height needed */
    size_t n_active = 0, n_off = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        const bk_chain_entry *e = blocks[i];
        answers[i].block = e;
        if (!e) return bk_error_set(err, BK_ERR_ARG, 0, "block %zu is NULL", i);
        if (!e->active && (!bk_filter_block_connected(e) || e->height < 0)) {
            answers[i].rpc_code = -5;
            snprintf(answers[i].msg, sizeof answers[i].msg, "%s", BK_FILTER_NOT_CONNECTED_MSG);
            continue;
        }
        const bk_chain_entry *f = e->active ? e : bk_chain_fork_point(c, e);
        if (!f) {
            answers[i].rpc_code = -5;
            snprintf(answers[i].msg, sizeof answers[i].msg, "%s", BK_FILTER_NOT_CONNECTED_MSG);
            continue;
        }
        if (f->height > top) top = f->height;
        if (e->active) n_active++;
        else n_off++;
        if ((size_t)(e->height - f->height) > longest) longest = (size_t)(e->height - f->height);
    }
    if (top < 0) return BK_OK;
    bk_status st = BK_OK;
    size_t *order = malloc((n_active ? n_active : 1) * sizeof *order);
    h_idx *pairs = malloc((n_active ? n_active : 1) * sizeof *pairs);
    uint8_t *headers = n_off ? malloc(32 * (size_t)(top + 1)) : NULL;
    size_t n_items = (size_t)top + 1 > longest ? (size_t)top + 1 : longest;
    bk_engine_item *items = malloc(n_items * sizeof *items);
    if (!order || !pairs || !items || (n_off && !headers)) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!answers[i].rpc_code && answers[i].block->active) {
            pairs[k].height = answers[i].block->height;
            pairs[k++].index = i;
        }
    qsort(pairs, k, sizeof *pairs, by_height);
    for (size_t i = 0; i < k; i++) order[i] = pairs[i].index;
    const bk_chain_entry *top_e = bk_chain_at_height(c, top);
    if (!top_e || (st = bk_filter_path(c, top_e, 0, items, err)) != BK_OK) {
        if (!top_e) st = bk_error_set(err, BK_ERR_INVALID, 0, "no active block at height %lld", (long long)top);
        goto done;
    }
    static const uint8_t zero[32];
    a_run A = {answers, order, k, 0, headers};
    if ((st = a_path(c, dir, items, (size_t)top + 1, zero, run, &A, res, err)) != BK_OK) goto done;
    /* each off-chain block along its own branch from its fork point */
    for (size_t i = 0; i < n && st == BK_OK; i++) {
        const bk_chain_entry *e = answers[i].block;
        if (answers[i].rpc_code || e->active) continue;
        const bk_chain_entry *f = bk_chain_fork_point(c, e);
        size_t m = (size_t)(e->height - f->height);
        if ((st = bk_filter_path(c, e, f->height + 1, items, err)) != BK_OK) break;
        size_t one = i;
        a_run B = {answers, &one, 1, 0, NULL};
        st = a_path(c, dir, items, m, headers + 32 * (size_t)f->height, run, &B, res, err);
    }
done:
    free(pairs);
    free(order);
    free(headers);
    free(items);
    if (st != BK_OK) bk_filter_answers_free(answers, n);
    return st;
}
