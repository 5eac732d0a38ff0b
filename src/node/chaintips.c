/* getchaintips over a bk_chain (blockkit/lookup.h). */
#include <blockkit/blockindex.h>
#include <blockkit/lookup.h>

#include <stdlib.h>
#include <string.h>

const char *bk_tip_status_str(bk_tip_status s)
{
    switch (s) {
    case BK_TIP_ACTIVE: return "active";
    case BK_TIP_INVALID: return "invalid";
    case BK_TIP_HEADERS_ONLY: return "headers-only";
    case BK_TIP_VALID_FORK: return "valid-fork";
    case BK_TIP_VALID_HEADERS: return "valid-headers";
    case BK_TIP_UNKNOWN: break;
    }
    return "unknown";
}

/* Per-entry flags derived along the parents, memoised. */
enum {
    F_DONE = 1,
    F_FAILED = 2,     /* it or an ancestor has BLOCK_FAILED_* */
    F_NO_CHAIN_TX = 4 /* it or an ancestor has nTx 0 (Core: !HaveNumChainTxs) */
};

/* Fill flags[k] for k and its ancestors without recursion: walk up to the
 * first entry already done (or a root), then come back down through the
 * parent links recorded in `path`. */
static void derive(const bk_chain *c, uint8_t *flags, uint32_t *path, uint32_t k)
{
    size_t n = 0;
    uint32_t p = k;
    while (p != BK_CHAIN_NONE && !(flags[p] & F_DONE)) {
        path[n++] = p;
        p = c->entries[p].parent;
    }
    uint8_t up = p == BK_CHAIN_NONE ? 0 : (uint8_t)(flags[p] & (F_FAILED | F_NO_CHAIN_TX));
    while (n) {
        uint32_t q = path[--n];
        const bk_chain_entry *e = &c->entries[q];
        uint8_t f = up;
        if (e->status & BK_BLOCK_FAILED_MASK) f |= F_FAILED;
        if (e->n_tx == 0) f |= F_NO_CHAIN_TX;
        flags[q] = (uint8_t)(f | F_DONE);
        up = (uint8_t)(f & (F_FAILED | F_NO_CHAIN_TX));
    }
}

static int cmp_tip(const void *a, const void *b)
{
    const bk_chaintip *x = a, *y = b;
    if (x->height != y->height) return x->height > y->height ? -1 : 1;
    return (x->entry > y->entry) - (x->entry < y->entry);
}

bk_status bk_chain_tips(const bk_chain *c, const bk_allocator *alloc, bk_chaintip **tips_out, size_t *n_out,
                        bk_error *err)
{
    if (!c || !tips_out || !n_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *tips_out = NULL;
    *n_out = 0;
    if (!alloc) alloc = bk_default_allocator();
    if (c->tip == BK_CHAIN_NONE) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "the chain has no tip");
    size_t n = c->n_entries;
    /* has_child[k]: some block off the active chain has k as its parent. */
    uint8_t *flags = bk_alloc(alloc, n ? n : 1);
    uint8_t *has_child = bk_alloc(alloc, n ? n : 1);
    uint32_t *path = bk_alloc(alloc, (n ? n : 1) * sizeof *path);
    bk_chaintip *tips = NULL;
    size_t n_tips = 0, cap = 0;
    bk_status st = BK_OK;
    if (!flags || !has_child || !path) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    memset(flags, 0, n);
    memset(has_child, 0, n);
    for (size_t k = 0; k < n; k++) {
        const bk_chain_entry *e = &c->entries[k];
        if (e->height >= 0 && !e->active && e->parent != BK_CHAIN_NONE) has_child[e->parent] = 1;
    }
    for (size_t pass = 0; pass < 2; pass++) {
        /* Pass 0 counts, pass 1 fills. */
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            const bk_chain_entry *e = &c->entries[k];
            int is_tip = e->height >= 0 && ((!e->active && !has_child[k]) || (uint32_t)k == c->tip);
            if (!is_tip) continue;
            if (pass == 1) {
                bk_chaintip *t = &tips[m];
                t->entry = (uint32_t)k;
                t->height = e->height;
                /* Core: active_chain.FindFork(block) - the last active ancestor. */
                uint32_t a = (uint32_t)k;
                while (a != BK_CHAIN_NONE && !c->entries[a].active) a = c->entries[a].parent;
                t->branchlen = e->height - (a == BK_CHAIN_NONE ? -1 : c->entries[a].height);
                derive(c, flags, path, (uint32_t)k);
                if (e->active) t->status = BK_TIP_ACTIVE;
                else if (flags[k] & F_FAILED) t->status = BK_TIP_INVALID;
                else if (flags[k] & F_NO_CHAIN_TX) t->status = BK_TIP_HEADERS_ONLY;
                else if (bk_block_status_valid(e->status, BK_BLOCK_VALID_SCRIPTS)) t->status = BK_TIP_VALID_FORK;
                else if (bk_block_status_valid(e->status, BK_BLOCK_VALID_TREE)) t->status = BK_TIP_VALID_HEADERS;
                else t->status = BK_TIP_UNKNOWN;
            }
            m++;
        }
        if (pass == 0) {
            cap = m;
            tips = bk_alloc(alloc, (m ? m : 1) * sizeof *tips);
            if (!tips) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                goto done;
            }
        }
        n_tips = m;
    }
    qsort(tips, n_tips, sizeof *tips, cmp_tip);
    *tips_out = tips;
    *n_out = n_tips;
    tips = NULL;
done:
    if (tips) bk_free(alloc, tips, (cap ? cap : 1) * sizeof *tips);
    if (flags) bk_free(alloc, flags, n ? n : 1);
    if (has_child) bk_free(alloc, has_child, n ? n : 1);
    if (path) bk_free(alloc, path, (n ? n : 1) * sizeof *path);
    return st;
}

bk_status bk_json_chain_tips(bk_json *j, const bk_chain *c, const bk_chaintip *tips, size_t n, bk_error *err)
{
    if (!j || !c || (n && !tips)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        if (tips[i].entry >= c->n_entries) return bk_error_set(err, BK_ERR_ARG, 0, "tip %zu is not an entry", i);
        bk_json_begin_object(j);
        BK_JSON_KEY(j, "height");
        bk_json_int(j, tips[i].height);
        BK_JSON_KEY(j, "hash");
        bk_json_hex_rev(j, c->entries[tips[i].entry].hash, 32);
        BK_JSON_KEY(j, "branchlen");
        bk_json_int(j, tips[i].branchlen);
        BK_JSON_KEY(j, "status");
        bk_json_string(j, bk_tip_status_str(tips[i].status));
        bk_json_end_object(j);
    }
    bk_json_end_array(j);
    bk_status st = bk_json_status(j);
    if (st != BK_OK) return bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
    return BK_OK;
}
