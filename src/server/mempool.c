/* The node's mempool for the Electrum server (mempool.h). */
#include "server/mempool.h"

#include "server/electrum_internal.h"

#include "json/json_parse.h"

#include <blockkit/bitcoin.h>
#include <blockkit/hex.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mp_in {
    uint8_t prev_txid[32];
    uint32_t prev_vout;
    uint8_t sh[32];             /* of the output spent */
    int64_t value;
} mp_in;

typedef struct mp_out {
    uint8_t sh[32];
    int64_t value;
} mp_out;

/* A mempool transaction as fetched; its inputs resolved once their spent
 * outputs are known. */
typedef struct mp_tx {
    uint8_t txid[32];
    mp_in *ins;
    mp_out *outs;
    uint32_t n_in, n_out;
    uint32_t vsize;
    int resolved;
} mp_tx;

struct bk_mempool_poller {
    const char *url, *auth;
    bk_mempool_call_fn call;
    void *call_ctx;
    bk_mempool_lookup_fn lookup;
    void *lookup_ctx;
    bk_addrindex *ix;
    const bk_blocksdir *blocks;
    mp_tx **txs;                /* sorted by txid */
    size_t n_txs;
    bk_mempool_tx *last;        /* the last snapshot's transactions, to tell a change */
    size_t n_last;
};

/* A row: an output of sh (op = the tx's own outpoint) or an input
 * spending one (op = the outpoint spent); tx indexes the snapshot's txs. */
typedef struct mp_row {
    uint8_t sh[32];
    uint8_t op_txid[32];
    uint32_t op_vout;
    uint32_t tx;
    int64_t value;
} mp_row;

struct bk_mempool {
    bk_mempool_tx *txs;         /* in the one order */
    size_t n_txs;
    mp_row *fund, *spend;       /* sorted by sh, then tx, then op_vout */
    size_t n_fund, n_spend;
    uint64_t (*hist)[2];        /* the fee histogram's pairs */
    size_t n_hist;
};

static void tx_free(mp_tx *t)
{
    if (!t) return;
    free(t->ins);
    free(t->outs);
    free(t);
}

/* The output (txid, vout) of a confirmed transaction, through the index:
 * 1 found, 0 not (yet), -1 an error (in err). */
static int confirmed_out(void *ctx, const uint8_t txid[32], uint32_t vout, uint8_t sh[32], int64_t *value,
                         bk_error *err)
{
    const bk_mempool_poller *p = ctx;
    uint8_t *raw = NULL;
    size_t len = 0;
    int64_t height;
    bk_error e;
    if (!p->ix) return 0;
    bk_status st = bk_addrindex_tx_raw(p->ix, p->blocks, txid, &raw, &len, &height, &e);
    if (st == BK_ERR_NOT_FOUND) return 0;
    if (st != BK_OK) {
        *err = e;
        return -1;
    }
    bk_tx tx;
    size_t used;
    int found = 0;
    if (bk_tx_parse(raw, len, &tx, &used, &e) == BK_OK && vout < tx.n_out) {
        bk_txout_iter oi;
        bk_txout out;
        bk_txout_iter_init(&oi, &tx);
        for (uint32_t k = 0; bk_txout_next(&oi, &out); k++)
            if (k == vout) {
                bk_addrindex_scripthash(out.script, out.script_len, sh);
                *value = out.value;
                found = 1;
                break;
            }
    }
    bk_addrindex_free(p->ix, raw);
    return found;
}

static bk_status node_call(void *ctx, const char *method, const char *params, char **result_out, size_t *len_out,
                           bk_error *err)
{
    const bk_mempool_poller *p = ctx;
    return bk_node_rpc_call(p->url, p->auth, method, params, result_out, len_out, err);
}

void bk_mempool_poller_set_lookup(bk_mempool_poller *p, bk_mempool_lookup_fn fn, void *ctx)
{
    p->lookup = fn;
    p->lookup_ctx = ctx;
}

void bk_mempool_poller_set_call(bk_mempool_poller *p, bk_mempool_call_fn fn, void *ctx)
{
    p->call = fn;
    p->call_ctx = ctx;
}

bk_status bk_mempool_poller_new(bk_mempool_poller **p_out, const char *rpc_url, const char *rpc_auth,
                                bk_addrindex *ix, const bk_blocksdir *blocks, bk_error *err)
{
    bk_mempool_poller *p = calloc(1, sizeof *p);
    if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: poller");
    p->url = rpc_url;
    p->auth = rpc_auth;
    p->call = node_call;
    p->call_ctx = p;
    p->lookup = confirmed_out;
    p->lookup_ctx = p;
    p->ix = ix;
    p->blocks = blocks;
    *p_out = p;
    return BK_OK;
}

void bk_mempool_poller_free(bk_mempool_poller *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n_txs; i++) tx_free(p->txs[i]);
    free(p->txs);
    free(p->last);
    free(p);
}

static int cmp_txid32(const void *a, const void *b) { return memcmp(a, b, 32); }

static mp_tx *find_tx(const bk_mempool_poller *p, const uint8_t txid[32])
{
    size_t lo = 0, hi = p->n_txs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = memcmp(p->txs[mid]->txid, txid, 32);
        if (!c) return p->txs[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* A node call's result parsed (d->src owns the reply text). */
static bk_status node_json(bk_mempool_poller *p, const char *method, const char *params, bk_jsondoc *d, bk_error *err)
{
    char *res = NULL;
    size_t len = 0;
    bk_status st = p->call(p->call_ctx, method, params, &res, &len, err);
    if (st != BK_OK) return st;
    if ((st = bk_jsondoc_parse(d, res, len, NULL, err)) != BK_OK) {
        free(res);
        return st;
    }
    d->src = res;
    return BK_OK;
}

static void node_json_free(bk_jsondoc *d)
{
    free((void *)d->src);
    bk_jsondoc_free(d);
}

/* The node's txids (internal order), sorted. */
static bk_status mempool_txids(bk_mempool_poller *p, uint8_t (**ids_out)[32], size_t *n_out, bk_error *err)
{
    bk_jsondoc d;
    bk_status st = node_json(p, "getrawmempool", "[]", &d, err);
    if (st != BK_OK) return st;
    const bk_jsonv *a = &d.v[0];
    uint8_t(*ids)[32] = NULL;
    size_t n = 0;
    if (a->type != BK_JSONV_ARRAY) {
        st = bk_error_set(err, BK_ERR_INVALID, 0, "node: getrawmempool did not answer an array");
        goto out;
    }
    ids = malloc((a->n ? a->n : 1) * sizeof *ids);
    if (!ids) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: %u txids", a->n);
        goto out;
    }
    for (uint32_t k = a->first; k; k = d.v[k].next) {
        const bk_jsonv *v = &d.v[k];
        if (v->type != BK_JSONV_STRING || v->n != 64 || bk_hex_decode_rev(ids[n], bk_jsonv_str(&d, v), 32, err) != BK_OK) {
            st = bk_error_set(err, BK_ERR_INVALID, 0, "node: getrawmempool entry %zu is not a txid", n);
            goto out;
        }
        n++;
    }
    qsort(ids, n, sizeof *ids, cmp_txid32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || memcmp(ids[u - 1], ids[i], 32)) memmove(ids[u++], ids[i], 32);
    n = u;
out:
    node_json_free(&d);
    if (st != BK_OK) {
        free(ids);
        return st;
    }
    *ids_out = ids;
    *n_out = n;
    return BK_OK;
}

/* Fetch and decode one transaction: NULL when the node no longer has it. */
static bk_status fetch_tx(bk_mempool_poller *p, const uint8_t txid[32], mp_tx **t_out, bk_error *err)
{
    *t_out = NULL;
    char hex[65], params[96];
    bk_hex_encode_rev(hex, txid, 32);
    hex[64] = 0;
    snprintf(params, sizeof params, "[\"%s\",false]", hex);
    bk_jsondoc d;
    bk_error e;
    if (node_json(p, "getrawtransaction", params, &d, &e) != BK_OK) {
        if (e.status == BK_ERR_INVALID) return BK_OK;   /* the node refused: it left the mempool */
        *err = e;
        return e.status;
    }
    bk_status st = BK_OK;
    const bk_jsonv *v = &d.v[0];
    uint8_t *raw = NULL;
    mp_tx *t = NULL;
    size_t n = v->type == BK_JSONV_STRING ? v->n / 2 : 0;
    if (!n || v->n % 2) {
        st = bk_error_set(err, BK_ERR_INVALID, 0, "node: getrawtransaction %s did not answer hex", hex);
        goto out;
    }
    raw = malloc(n);
    t = calloc(1, sizeof *t);
    if (!raw || !t) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: transaction %s", hex);
        goto out;
    }
    bk_tx tx;
    size_t used;
    if ((st = bk_hex_decode(raw, bk_jsonv_str(&d, v), n, err)) != BK_OK ||
        (st = bk_tx_parse(raw, n, &tx, &used, err)) != BK_OK)
        goto out;
    uint8_t got[32];
    bk_tx_txid(&tx, got);
    if (used != n || memcmp(got, txid, 32)) {
        st = bk_error_set(err, BK_ERR_INVALID, 0, "node: getrawtransaction %s answered another transaction", hex);
        goto out;
    }
    memcpy(t->txid, txid, 32);
    t->vsize = bk_tx_vsize(&tx);
    t->ins = calloc(tx.n_in ? tx.n_in : 1, sizeof *t->ins);
    t->outs = calloc(tx.n_out ? tx.n_out : 1, sizeof *t->outs);
    if (!t->ins || !t->outs) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: transaction %s", hex);
        goto out;
    }
    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, &tx);
    while (bk_txin_next(&ii, &in)) {
        memcpy(t->ins[t->n_in].prev_txid, in.prev_txid, 32);
        t->ins[t->n_in++].prev_vout = in.prev_index;
    }
    bk_txout_iter oi;
    bk_txout out;
    bk_txout_iter_init(&oi, &tx);
    while (bk_txout_next(&oi, &out)) {
        bk_addrindex_scripthash(out.script, out.script_len, t->outs[t->n_out].sh);
        t->outs[t->n_out++].value = out.value;
    }
out:
    free(raw);
    node_json_free(&d);
    if (st != BK_OK) {
        tx_free(t);
        return st;
    }
    *t_out = t;
    return BK_OK;
}

/* Resolve what can be: a parent in the mempool must be resolved first (its
 * outputs are known once fetched, but a child of an unresolved parent
 * waits so that no row names an unknown spend). Repeats while it gains. */
static bk_status resolve(bk_mempool_poller *p, bk_error *err)
{
    for (int gained = 1; gained;) {
        gained = 0;
        for (size_t i = 0; i < p->n_txs; i++) {
            mp_tx *t = p->txs[i];
            if (t->resolved) continue;
            int ok = 1;
            for (uint32_t k = 0; k < t->n_in && ok; k++) {
                mp_in *in = &t->ins[k];
                mp_tx *par = find_tx(p, in->prev_txid);
                if (par) {
                    if (!par->resolved || in->prev_vout >= par->n_out) ok = 0;
                    else {
                        memcpy(in->sh, par->outs[in->prev_vout].sh, 32);
                        in->value = par->outs[in->prev_vout].value;
                    }
                    continue;
                }
                int r = p->lookup(p->lookup_ctx, in->prev_txid, in->prev_vout, in->sh, &in->value, err);
                if (r < 0) return err->status;
                ok = r;
            }
            if (ok) t->resolved = gained = 1;
        }
    }
    return BK_OK;
}

static int cmp_mtx(const void *a, const void *b)
{
    const bk_mempool_tx *x = a, *y = b;
    if (x->height != y->height) return x->height > y->height ? -1 : 1;   /* 0 before -1 */
    return memcmp(x->txid, y->txid, 32);
}

static int cmp_row(const void *a, const void *b)
{
    const mp_row *x = a, *y = b;
    int c = memcmp(x->sh, y->sh, 32);
    if (c) return c;
    if (x->tx != y->tx) return x->tx < y->tx ? -1 : 1;
    return x->op_vout < y->op_vout ? -1 : x->op_vout > y->op_vout;
}

void bk_mempool_free(bk_mempool *m)
{
    if (!m) return;
    free(m->txs);
    free(m->fund);
    free(m->spend);
    free(m->hist);
    free(m);
}

/* A transaction's fee rate, sat/vB (a negative fee, from a node's wrong
 * answer, as 0). */
static double fee_rate(const bk_mempool_tx *t) { return t->fee > 0 && t->vsize ? (double)t->fee / t->vsize : 0.0; }

static int cmp_rate_desc(const void *a, const void *b)
{
    double x = fee_rate(*(const bk_mempool_tx *const *)a), y = fee_rate(*(const bk_mempool_tx *const *)b);
    return (x < y) - (x > y);
}

/* The histogram of mempool.h's rule, into m->hist. 0, or -1 out of memory. */
static int fee_histogram(bk_mempool *m)
{
    if (!m->n_txs) return 0;
    const bk_mempool_tx **by = malloc(m->n_txs * sizeof *by);
    /* every tranche but the last holds more than 100,000 vB: at most one
     * pair per transaction */
    m->hist = malloc(m->n_txs * sizeof *m->hist);
    if (!by || !m->hist) {
        free(by);
        return -1;
    }
    for (size_t i = 0; i < m->n_txs; i++) by[i] = &m->txs[i];
    qsort(by, m->n_txs, sizeof *by, cmp_rate_desc);
    uint64_t bound = 100000, cum = 0;
    for (size_t i = 0; i < m->n_txs; i++) {
        cum += by[i]->vsize;
        if (cum > bound || i + 1 == m->n_txs) {
            m->hist[m->n_hist][0] = (uint64_t)fee_rate(by[i]);
            m->hist[m->n_hist++][1] = cum;
            cum = 0;
            bound += bound / 10;
        }
    }
    free(by);
    return 0;
}

size_t bk_mempool_fee_histogram(const bk_mempool *m, const uint64_t (**pairs_out)[2])
{
    *pairs_out = m ? (const uint64_t(*)[2])m->hist : NULL;
    return m ? m->n_hist : 0;
}

/* The snapshot of the resolved transactions. */
static bk_status snapshot(bk_mempool_poller *p, bk_mempool **m_out, bk_error *err)
{
    bk_mempool *m = calloc(1, sizeof *m);
    size_t n = 0, nf = 0, ns = 0;
    for (size_t i = 0; i < p->n_txs; i++)
        if (p->txs[i]->resolved) {
            n++;
            nf += p->txs[i]->n_out;
            ns += p->txs[i]->n_in;
        }
    if (m) {
        m->txs = malloc((n ? n : 1) * sizeof *m->txs);
        m->fund = malloc((nf ? nf : 1) * sizeof *m->fund);
        m->spend = malloc((ns ? ns : 1) * sizeof *m->spend);
    }
    if (!m || !m->txs || !m->fund || !m->spend) {
        bk_mempool_free(m);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: a snapshot of %zu transactions", n);
    }
    for (size_t i = 0; i < p->n_txs; i++) {
        const mp_tx *t = p->txs[i];
        if (!t->resolved) continue;
        bk_mempool_tx *e = &m->txs[m->n_txs++];
        memcpy(e->txid, t->txid, 32);
        e->height = 0;
        e->vsize = t->vsize;
        int64_t fee = 0;
        for (uint32_t k = 0; k < t->n_in; k++) {
            fee += t->ins[k].value;
            if (find_tx(p, t->ins[k].prev_txid)) e->height = -1;
        }
        for (uint32_t k = 0; k < t->n_out; k++) fee -= t->outs[k].value;
        e->fee = fee;
    }
    qsort(m->txs, m->n_txs, sizeof *m->txs, cmp_mtx);
    for (size_t j = 0; j < m->n_txs; j++) {
        const mp_tx *t = find_tx(p, m->txs[j].txid);
        for (uint32_t k = 0; k < t->n_out; k++) {
            mp_row *r = &m->fund[m->n_fund++];
            memcpy(r->sh, t->outs[k].sh, 32);
            memcpy(r->op_txid, t->txid, 32);
            r->op_vout = k;
            r->tx = (uint32_t)j;
            r->value = t->outs[k].value;
        }
        for (uint32_t k = 0; k < t->n_in; k++) {
            mp_row *r = &m->spend[m->n_spend++];
            memcpy(r->sh, t->ins[k].sh, 32);
            memcpy(r->op_txid, t->ins[k].prev_txid, 32);
            r->op_vout = t->ins[k].prev_vout;
            r->tx = (uint32_t)j;
            r->value = t->ins[k].value;
        }
    }
    qsort(m->fund, m->n_fund, sizeof *m->fund, cmp_row);
    qsort(m->spend, m->n_spend, sizeof *m->spend, cmp_row);
    if (fee_histogram(m) != 0) {
        bk_mempool_free(m);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: the fee histogram of %zu transactions", n);
    }
    *m_out = m;
    return BK_OK;
}

bk_status bk_mempool_poll(bk_mempool_poller *p, bk_mempool **snap_out, bk_error *err)
{
    *snap_out = NULL;
    uint8_t(*ids)[32] = NULL;
    size_t n = 0;
    bk_status st = mempool_txids(p, &ids, &n, err);
    if (st != BK_OK) return st;
    /* The new set: the transactions kept, the new ones fetched. */
    mp_tx **next = malloc((n ? n : 1) * sizeof *next);
    if (!next) {
        free(ids);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: %zu transactions", n);
    }
    size_t m = 0, j = 0;
    for (size_t i = 0; i < n && st == BK_OK; i++) {
        while (j < p->n_txs && memcmp(p->txs[j]->txid, ids[i], 32) < 0) j++;
        if (j < p->n_txs && !memcmp(p->txs[j]->txid, ids[i], 32)) {
            next[m++] = p->txs[j++];
            continue;
        }
        mp_tx *t = NULL;
        if ((st = fetch_tx(p, ids[i], &t, err)) == BK_OK && t) next[m++] = t;
    }
    free(ids);
    if (st != BK_OK) {
        /* The old set stays; what this poll fetched goes (the next poll
         * fetches it again). */
        for (size_t k = 0; k < m; k++)
            if (!find_tx(p, next[k]->txid)) tx_free(next[k]);
        free(next);
        return st;
    }
    /* The old transactions the node no longer has go. */
    bk_mempool_poller kept = *p;
    kept.txs = next;
    kept.n_txs = m;
    for (size_t k = 0; k < p->n_txs; k++)
        if (!find_tx(&kept, p->txs[k]->txid)) tx_free(p->txs[k]);
    free(p->txs);
    p->txs = next;
    p->n_txs = m;
    /* Heights name in-mempool parents: a parent confirmed since changes
     * its children's. */
    if ((st = resolve(p, err)) != BK_OK) return st;
    bk_mempool *snap = NULL;
    if ((st = snapshot(p, &snap, err)) != BK_OK) return st;
    int same = snap->n_txs == p->n_last;
    for (size_t k = 0; same && k < snap->n_txs; k++)
        same = !memcmp(snap->txs[k].txid, p->last[k].txid, 32) && snap->txs[k].fee == p->last[k].fee &&
               snap->txs[k].height == p->last[k].height;
    if (same) {
        bk_mempool_free(snap);
        return BK_OK;
    }
    bk_mempool_tx *copy = malloc((snap->n_txs ? snap->n_txs : 1) * sizeof *copy);
    if (!copy) {
        bk_mempool_free(snap);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "mempool: snapshot");
    }
    memcpy(copy, snap->txs, snap->n_txs * sizeof *copy);
    free(p->last);
    p->last = copy;
    p->n_last = snap->n_txs;
    *snap_out = snap;
    return BK_OK;
}

/* The rows of sh: [*first, *first + n). */
static size_t rows_of(const mp_row *rows, size_t n, const uint8_t sh[32], size_t *first)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (memcmp(rows[mid].sh, sh, 32) < 0) lo = mid + 1;
        else hi = mid;
    }
    size_t end = lo;
    while (end < n && !memcmp(rows[end].sh, sh, 32)) end++;
    *first = lo;
    return end - lo;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int bk_mempool_history(const bk_mempool *m, const uint8_t sh[32], bk_mempool_tx **txs_out, size_t *n_out)
{
    *txs_out = NULL;
    *n_out = 0;
    if (!m) return 0;
    size_t f0, s0, nf = rows_of(m->fund, m->n_fund, sh, &f0), ns = rows_of(m->spend, m->n_spend, sh, &s0);
    if (!nf && !ns) return 0;
    uint32_t *ix = malloc((nf + ns) * sizeof *ix);
    bk_mempool_tx *out = malloc((nf + ns) * sizeof *out);
    if (!ix || !out) {
        free(ix);
        free(out);
        return -1;
    }
    for (size_t i = 0; i < nf; i++) ix[i] = m->fund[f0 + i].tx;
    for (size_t i = 0; i < ns; i++) ix[nf + i] = m->spend[s0 + i].tx;
    qsort(ix, nf + ns, sizeof *ix, cmp_u32);    /* tx indexes are the one order */
    size_t n = 0;
    for (size_t i = 0; i < nf + ns; i++)
        if (!i || ix[i] != ix[i - 1]) out[n++] = m->txs[ix[i]];
    free(ix);
    *txs_out = out;
    *n_out = n;
    return 0;
}

int64_t bk_mempool_delta(const bk_mempool *m, const uint8_t sh[32])
{
    if (!m) return 0;
    int64_t d = 0;
    size_t f0, s0, nf = rows_of(m->fund, m->n_fund, sh, &f0), ns = rows_of(m->spend, m->n_spend, sh, &s0);
    for (size_t i = 0; i < nf; i++) d += m->fund[f0 + i].value;
    for (size_t i = 0; i < ns; i++) d -= m->spend[s0 + i].value;
    return d;
}

int bk_mempool_spends(const bk_mempool *m, const uint8_t sh[32], const uint8_t txid[32], uint32_t vout)
{
    if (!m) return 0;
    size_t s0, ns = rows_of(m->spend, m->n_spend, sh, &s0);
    for (size_t i = 0; i < ns; i++)
        if (m->spend[s0 + i].op_vout == vout && !memcmp(m->spend[s0 + i].op_txid, txid, 32)) return 1;
    return 0;
}

int bk_mempool_coins(const bk_mempool *m, const uint8_t sh[32], bk_addr_coin **coins_out, size_t *n_out)
{
    *coins_out = NULL;
    *n_out = 0;
    if (!m) return 0;
    size_t f0, nf = rows_of(m->fund, m->n_fund, sh, &f0);
    if (!nf) return 0;
    bk_addr_coin *c = malloc(nf * sizeof *c);
    if (!c) return -1;
    size_t n = 0;
    for (size_t i = 0; i < nf; i++) {
        const mp_row *r = &m->fund[f0 + i];
        if (bk_mempool_spends(m, sh, r->op_txid, r->op_vout)) continue;
        memcpy(c[n].txid, r->op_txid, 32);
        c[n].vout = r->op_vout;
        c[n].height = 0;
        c[n].pos = 0;
        c[n].value = (uint64_t)r->value;
        n++;
    }
    *coins_out = c;
    *n_out = n;
    return 0;
}

size_t bk_mempool_size(const bk_mempool *m) { return m ? m->n_txs : 0; }

int bk_mempool_output_sh(const bk_mempool *m, size_t i, uint8_t sh_out[32])
{
    if (!m || i >= m->n_fund) return 0;
    memcpy(sh_out, m->fund[i].sh, 32);
    return 1;
}
