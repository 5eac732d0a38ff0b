/* Fuzz the Electrum server's mempool poller (src/server/mempool.c) on
 * replies it cannot trust: the input is the node's replies, one a line,
 * handed out in order (the first to getrawmempool, then one to each call;
 * a line starting with '!' is the node's refusal, the end of the input an
 * I/O error). No index: a spent output outside the mempool is "found"
 * when its vout is even (scripthash = its txid, value = vout * 1000) and
 * not yet when odd. Two polls over
 * the same poller (the second reuses what the first fetched). Checks: a
 * snapshot's rows of every scripthash its transactions name agree (the
 * history of a scripthash holds each transaction once, in the one order;
 * its coins are funding rows no mempool transaction spends); nothing
 * leaks (ASan). */
#include "../src/server/mempool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct feed {
    const char *p, *end;
} feed;

static bk_status fake_call(void *ctx, const char *method, const char *params, char **result_out, size_t *len_out,
                           bk_error *err)
{
    feed *f = ctx;
    (void)method;
    (void)params;
    if (f->p >= f->end) return bk_error_set(err, BK_ERR_IO, 0, "no more replies");
    const char *nl = memchr(f->p, '\n', (size_t)(f->end - f->p));
    size_t len = nl ? (size_t)(nl - f->p) : (size_t)(f->end - f->p);
    const char *line = f->p;
    f->p += len + (nl != NULL);
    if (len && line[0] == '!') return bk_error_set(err, BK_ERR_INVALID, 0, "refused");
    char *r = malloc(len + 1);
    if (!r) return bk_error_set(err, BK_ERR_NOMEM, 0, "reply");
    memcpy(r, line, len);
    r[len] = 0;
    *result_out = r;
    *len_out = len;
    return BK_OK;
}

static int fake_lookup(void *ctx, const uint8_t txid[32], uint32_t vout, uint8_t sh[32], int64_t *value, bk_error *err)
{
    (void)ctx;
    (void)err;
    if (vout & 1) return 0;
    memcpy(sh, txid, 32);
    *value = (int64_t)vout * 1000;
    return 1;
}

static void check_snapshot(const bk_mempool *m)
{
    uint8_t sh[32];
    for (size_t i = 0; bk_mempool_output_sh(m, i, sh); i++) {
        bk_mempool_tx *txs;
        size_t n;
        if (bk_mempool_history(m, sh, &txs, &n)) abort();
        if (!n || n > bk_mempool_size(m)) abort();   /* it pays sh: at least that transaction */
        for (size_t k = 1; k < n; k++)
            if (txs[k - 1].height < txs[k].height ||
                (txs[k - 1].height == txs[k].height && memcmp(txs[k - 1].txid, txs[k].txid, 32) >= 0))
                abort();
        free(txs);
        bk_addr_coin *c;
        if (bk_mempool_coins(m, sh, &c, &n)) abort();
        for (size_t k = 0; k < n; k++)
            if (bk_mempool_spends(m, sh, c[k].txid, c[k].vout)) abort();
        free(c);
        (void)bk_mempool_delta(m, sh);
    }
    /* the fee histogram (mempool.h): a pair per tranche, rates highest
     * first, every tranche but the last over its bound, nothing for an
     * empty snapshot */
    const uint64_t(*h)[2];
    size_t nh = bk_mempool_fee_histogram(m, &h);
    if (nh > bk_mempool_size(m) || (nh == 0) != (bk_mempool_size(m) == 0)) abort();
    uint64_t bound = 100000;
    for (size_t k = 0; k < nh; k++) {
        if ((k && h[k][0] > h[k - 1][0]) || !h[k][1] || (k + 1 < nh && h[k][1] <= bound)) abort();
        bound += bound / 10;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    feed f = {(const char *)data, (const char *)data + size};
    bk_mempool_poller *p;
    bk_error e;
    if (bk_mempool_poller_new(&p, "http://127.0.0.1:1", "u:p", NULL, NULL, &e) != BK_OK) abort();
    bk_mempool_poller_set_call(p, fake_call, &f);
    bk_mempool_poller_set_lookup(p, fake_lookup, NULL);
    for (int round = 0; round < 2; round++) {
        bk_mempool *m = NULL;
        if (bk_mempool_poll(p, &m, &e) == BK_OK && m) {
            check_snapshot(m);
            bk_mempool_free(m);
        } else if (m) {
            abort();   /* a failed poll hands out no snapshot */
        }
    }
    bk_mempool_poller_free(p);
    return 0;
}
