/* gettxoutsetinfo's statistics over a stream of coins in key order.
 *
 * Core: kernel/coinstats.cpp. ComputeUTXOStats walks the coins cursor,
 * collects each txid's coins in a std::map<uint32_t, Coin> (numeric vout
 * order), and per txid applies the stats (transactions + 1, per coin
 * txouts + 1, total_amount by CheckedAdd, bogosize) and the hash: for
 * HashWriter (hash_serialized_3) and MuHash3072 (muhash) each coin's
 * TxOutSer = outpoint (txid, uint32 n), uint32 (height << 1 | coinbase),
 * CTxOut (int64 value, CompactSize script length, script). hash_serialized_3
 * is the HashWriter's GetHash(), a double SHA-256, with no prefix. */
#include <blockkit/utxo_stats.h>

#include "base/threads.h"
#include <blockkit/sha256.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* MuHash with worker threads: coins' TxOutSer go into batches that workers
 * multiply into their own accumulators (the product does not depend on
 * the order); the partial products are combined at the end. At most
 * 2 x threads + 1 batches exist, so memory stays bounded. */
#define MU_BATCH_COINS 1024
#define MU_BATCH_BYTES (256u << 10)
#define MU_MAX_THREADS 64

typedef struct mu_batch {
    uint8_t *bytes;
    uint32_t lens[MU_BATCH_COINS];
    size_t n, nbytes;
    struct mu_batch *next;
} mu_batch;

typedef struct mu_pool mu_pool;
struct mu_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, room;
    mu_batch *full_head, *full_tail, *free_list;
    mu_batch *cur;
    int shutdown;
    unsigned nthreads, started;
    pthread_t th[MU_MAX_THREADS];
    bk_muhash part[MU_MAX_THREADS];
    mu_batch *all;
    size_t nbatches;
    struct mu_worker_arg {
        struct mu_pool *pool;
        unsigned idx;
    } args[MU_MAX_THREADS];
};

#define BK_UTXO_GROUP_MAX (64u << 20)

typedef struct stats_coin {
    uint32_t vout;
    uint32_t off;   /* of its TxOutSer in the group buffer */
    uint32_t len;
} stats_coin;

typedef struct stats_priv {
    const bk_allocator *alloc;
    bk_sha256_ctx sha;
    bk_muhash mu;
    int have_group;
    uint8_t txid[32];
    stats_coin *coins;
    size_t n_coins, cap_coins;
    uint8_t *bytes;
    size_t n_bytes, cap_bytes;
    unsigned threads;
    mu_pool *pool;
} stats_priv;

typedef struct mu_worker_arg mu_worker_arg;

static void *mu_worker(void *arg)
{
    mu_pool *pl = ((mu_worker_arg *)arg)->pool;
    unsigned idx = ((mu_worker_arg *)arg)->idx;
    bk_muhash *acc = &pl->part[idx];
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        while (!pl->full_head && !pl->shutdown) pthread_cond_wait(&pl->work, &pl->mu);
        mu_batch *b = pl->full_head;
        if (!b) {
            pthread_mutex_unlock(&pl->mu);
            return NULL;
        }
        pl->full_head = b->next;
        if (!pl->full_head) pl->full_tail = NULL;
        pthread_mutex_unlock(&pl->mu);
        size_t off = 0;
        for (size_t i = 0; i < b->n; i++) {
            bk_muhash_insert(acc, b->bytes + off, b->lens[i]);
            off += b->lens[i];
        }
        b->n = 0;
        b->nbytes = 0;
        pthread_mutex_lock(&pl->mu);
        b->next = pl->free_list;
        pl->free_list = b;
        pthread_cond_signal(&pl->room);
        pthread_mutex_unlock(&pl->mu);
    }
}

static void pool_stop(stats_priv *p)
{
    mu_pool *pl = p->pool;
    if (!pl) return;
    pthread_mutex_lock(&pl->mu);
    pl->shutdown = 1;
    pthread_cond_broadcast(&pl->work);
    pthread_mutex_unlock(&pl->mu);
    bk_threads_join(pl->th, pl->started);
    pl->started = 0;
}

static void pool_free(stats_priv *p)
{
    mu_pool *pl = p->pool;
    if (!pl) return;
    pool_stop(p);
    for (size_t i = 0; i < pl->nbatches; i++) bk_free(p->alloc, pl->all[i].bytes, MU_BATCH_BYTES);
    bk_free(p->alloc, pl->all, pl->nbatches * sizeof *pl->all);
    pthread_mutex_destroy(&pl->mu);
    pthread_cond_destroy(&pl->work);
    pthread_cond_destroy(&pl->room);
    bk_free(p->alloc, pl, sizeof *pl);
    p->pool = NULL;
}

static bk_status pool_start(stats_priv *p, bk_error *err)
{
    mu_pool *pl = bk_alloc(p->alloc, sizeof *pl);
    if (!pl) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(pl, 0, sizeof *pl);
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->work, NULL);
    pthread_cond_init(&pl->room, NULL);
    p->pool = pl;
    pl->nthreads = p->threads;
    pl->nbatches = 2 * (size_t)p->threads + 1;
    pl->all = bk_alloc(p->alloc, pl->nbatches * sizeof *pl->all);
    if (!pl->all) {
        pl->nbatches = 0;
        pool_free(p);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    memset(pl->all, 0, pl->nbatches * sizeof *pl->all);
    for (size_t i = 0; i < pl->nbatches; i++) {
        pl->all[i].bytes = bk_alloc(p->alloc, MU_BATCH_BYTES);
        if (!pl->all[i].bytes) {
            pool_free(p);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
        pl->all[i].next = pl->free_list;
        pl->free_list = &pl->all[i];
    }
    for (unsigned i = 0; i < pl->nthreads; i++) {
        bk_muhash_init(&pl->part[i]);
        pl->args[i].pool = pl;
        pl->args[i].idx = i;
    }
    pl->started = bk_threads_start(pl->th, pl->nthreads, mu_worker, pl->args, sizeof *pl->args);
    if (pl->started == 0) {
        pool_free(p);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "cannot start MuHash worker threads");
    }
    return BK_OK;
}

/* Hand the current batch to the workers. */
static void pool_submit(mu_pool *pl)
{
    mu_batch *b = pl->cur;
    pl->cur = NULL;
    if (!b) return;
    if (b->n == 0) {
        pthread_mutex_lock(&pl->mu);
        b->next = pl->free_list;
        pl->free_list = b;
        pthread_mutex_unlock(&pl->mu);
        return;
    }
    pthread_mutex_lock(&pl->mu);
    b->next = NULL;
    if (pl->full_tail) pl->full_tail->next = b;
    else pl->full_head = b;
    pl->full_tail = b;
    pthread_cond_signal(&pl->work);
    pthread_mutex_unlock(&pl->mu);
}

static void pool_add(mu_pool *pl, const bk_utxo *u)
{
    if (pl->cur && (pl->cur->n == MU_BATCH_COINS || pl->cur->nbytes + BK_UTXO_SER_MAX > MU_BATCH_BYTES))
        pool_submit(pl);
    if (!pl->cur) {
        pthread_mutex_lock(&pl->mu);
        while (!pl->free_list) pthread_cond_wait(&pl->room, &pl->mu);
        pl->cur = pl->free_list;
        pl->free_list = pl->cur->next;
        pthread_mutex_unlock(&pl->mu);
    }
    mu_batch *b = pl->cur;
    size_t n = bk_utxo_txout_ser(u, b->bytes + b->nbytes);
    b->lens[b->n++] = (uint32_t)n;
    b->nbytes += n;
}

bk_status bk_utxo_stats_set_threads(bk_utxo_stats *st, unsigned threads)
{
    stats_priv *p = st->priv_;
    if (!p || p->pool || st->txouts) return BK_ERR_ARG;
    p->threads = threads > MU_MAX_THREADS ? MU_MAX_THREADS : threads;
    return BK_OK;
}

bk_status bk_utxo_hash_type_parse(const char *s, bk_utxo_hash_type *out)
{
    if (!s || !out) return BK_ERR_ARG;
    if (strcmp(s, "hash_serialized_3") == 0) *out = BK_UTXO_HASH_SERIALIZED_3;
    else if (strcmp(s, "muhash") == 0) *out = BK_UTXO_HASH_MUHASH;
    else if (strcmp(s, "none") == 0) *out = BK_UTXO_HASH_NONE;
    else return BK_ERR_ARG;
    return BK_OK;
}

const char *bk_utxo_hash_type_name(bk_utxo_hash_type t)
{
    switch (t) {
    case BK_UTXO_HASH_SERIALIZED_3: return "hash_serialized_3";
    case BK_UTXO_HASH_MUHASH: return "muhash";
    case BK_UTXO_HASH_NONE: return "none";
    }
    return "none";
}

bk_status bk_utxo_coin_decode(const uint8_t *data, size_t len, bk_coin *coin, bk_error *err)
{
    bk_reader r;
    bk_reader_init(&r, data, len);
    if (bk_coin_read_txout(&r, coin) != BK_OK) return bk_reader_error(&r, err);
    if (bk_reader_remaining(&r))
        return bk_error_set(err, BK_ERR_TRAILING, r.pos, "%zu bytes after the coin", bk_reader_remaining(&r));
    return BK_OK;
}

size_t bk_utxo_txout_ser(const bk_utxo *u, uint8_t *out)
{
    uint8_t *p = out;
    memcpy(p, u->txid, 32);
    p += 32;
    bk_store_le32(p, u->vout);
    p += 4;
    bk_store_le32(p, (u->coin.height << 1) | (uint32_t)(u->coin.coinbase & 1));
    p += 4;
    bk_store_le64(p, (uint64_t)u->coin.value);
    p += 8;
    p += bk_compact_size_encode(p, u->coin.script_len);
    memcpy(p, bk_coin_script(&u->coin), u->coin.script_len);
    p += u->coin.script_len;
    return (size_t)(p - out);
}

bk_status bk_utxo_stats_begin(bk_utxo_stats *st, bk_utxo_hash_type type, const bk_allocator *alloc,
                              bk_error *err)
{
    memset(st, 0, sizeof *st);
    if (type != BK_UTXO_HASH_SERIALIZED_3 && type != BK_UTXO_HASH_MUHASH && type != BK_UTXO_HASH_NONE)
        return bk_error_set(err, BK_ERR_ARG, 0, "unknown hash type");
    stats_priv *p = bk_alloc(alloc, sizeof *p);
    if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(p, 0, sizeof *p);
    p->alloc = alloc;
    bk_sha256_init(&p->sha);
    bk_muhash_init(&p->mu);
    st->hash_type = type;
    st->total_amount_ok = 1;
    st->priv_ = p;
    return BK_OK;
}

static int cmp_vout(const void *a, const void *b)
{
    uint32_t x = ((const stats_coin *)a)->vout, y = ((const stats_coin *)b)->vout;
    return x < y ? -1 : x > y;
}

/* Apply the finished txid group (Core: ApplyStats + ApplyHash). */
static bk_status flush_group(bk_utxo_stats *st, stats_priv *p, bk_error *err)
{
    if (!p->have_group || p->n_coins == 0) return BK_OK;
    st->transactions++;
    if (st->hash_type == BK_UTXO_HASH_SERIALIZED_3) {
        int sorted = 1;
        for (size_t i = 1; i < p->n_coins; i++)
            if (p->coins[i].vout <= p->coins[i - 1].vout) {
                sorted = 0;
                break;
            }
        if (sorted) {
            bk_sha256_update(&p->sha, p->bytes, p->n_bytes);
        } else {
            qsort(p->coins, p->n_coins, sizeof *p->coins, cmp_vout);
            for (size_t i = 0; i < p->n_coins; i++) {
                if (i && p->coins[i].vout == p->coins[i - 1].vout)
                    return bk_error_set(err, BK_ERR_INVALID, 0, "vout %u of one txid seen twice",
                                        p->coins[i].vout);
                bk_sha256_update(&p->sha, p->bytes + p->coins[i].off, p->coins[i].len);
            }
        }
    }
    p->n_coins = 0;
    p->n_bytes = 0;
    return BK_OK;
}

static int grow(const bk_allocator *a, void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 1;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *np = bk_realloc(a, *ptr, *cap * elem, nc * elem);
    if (!np) return 0;
    *ptr = np;
    *cap = nc;
    return 1;
}

bk_status bk_utxo_stats_add(bk_utxo_stats *st, const bk_utxo *u, bk_error *err)
{
    stats_priv *p = st->priv_;
    if (!p) return bk_error_set(err, BK_ERR_ARG, 0, "stats not begun");
    if (!p->have_group || memcmp(u->txid, p->txid, 32) != 0) {
        if (p->have_group && memcmp(u->txid, p->txid, 32) < 0)
            return bk_error_set(err, BK_ERR_INVALID, 0,
                                "coins not in key order (a txid below its predecessor): Core's hash needs "
                                "the chainstate's order");
        bk_status s = flush_group(st, p, err);
        if (s != BK_OK) return s;
        memcpy(p->txid, u->txid, 32);
        p->have_group = 1;
    } else if (st->hash_type != BK_UTXO_HASH_SERIALIZED_3 && p->n_coins) {
        /* Without a group buffer, a repeated vout shows as the previous one. */
        if (p->coins[0].vout == u->vout)
            return bk_error_set(err, BK_ERR_INVALID, 0, "vout %u of one txid seen twice", u->vout);
    }
    st->txouts++;
    st->bogosize += 32 + 4 + 4 + 8 + 2 + (uint64_t)u->coin.script_len;
    if (st->total_amount_ok) {
        int64_t v = u->coin.value, t = st->total_amount;
        if ((v > 0 && t > INT64_MAX - v) || (v < 0 && t < INT64_MIN - v)) st->total_amount_ok = 0;
        else st->total_amount = t + v;
    }
    if (st->hash_type == BK_UTXO_HASH_SERIALIZED_3) {
        /* One transaction's outputs fit one block (at most 1 MB of
         * non-witness bytes, about 111,000 outputs): their TxOutSer stays far
         * below this. More is not a chainstate's data, and would only grow
         * memory. */
        if (p->n_bytes + BK_UTXO_SER_MAX > BK_UTXO_GROUP_MAX)
            return bk_error_set(err, BK_ERR_LENGTH, 0,
                                "one txid with more coins than a block can create (over %u MiB of coin data)",
                                (unsigned)(BK_UTXO_GROUP_MAX >> 20));
        if (!grow(p->alloc, (void **)&p->coins, &p->cap_coins, p->n_coins + 1, sizeof *p->coins) ||
            !grow(p->alloc, (void **)&p->bytes, &p->cap_bytes, p->n_bytes + BK_UTXO_SER_MAX, 1))
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        size_t n = bk_utxo_txout_ser(u, p->bytes + p->n_bytes);
        p->coins[p->n_coins].vout = u->vout;
        p->coins[p->n_coins].off = (uint32_t)p->n_bytes;
        p->coins[p->n_coins].len = (uint32_t)n;
        p->n_coins++;
        p->n_bytes += n;
    } else {
        if (!grow(p->alloc, (void **)&p->coins, &p->cap_coins, 1, sizeof *p->coins))
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        p->coins[0].vout = u->vout;
        p->n_coins = 1;
        if (st->hash_type == BK_UTXO_HASH_MUHASH) {
            if (p->threads > 1 && !p->pool) {
                bk_status s = pool_start(p, err);
                if (s != BK_OK) return s;
            }
            if (p->pool) {
                pool_add(p->pool, u);
            } else {
                uint8_t ser[BK_UTXO_SER_MAX];
                size_t n = bk_utxo_txout_ser(u, ser);
                bk_muhash_insert(&p->mu, ser, n);
            }
        }
    }
    return BK_OK;
}

bk_status bk_utxo_stats_end(bk_utxo_stats *st, bk_error *err)
{
    stats_priv *p = st->priv_;
    if (!p) return bk_error_set(err, BK_ERR_ARG, 0, "stats not begun");
    bk_status s = flush_group(st, p, err);
    if (s != BK_OK) return s;
    p->have_group = 0;
    if (st->hash_type == BK_UTXO_HASH_SERIALIZED_3) {
        uint8_t h[32];
        bk_sha256_final(&p->sha, h);
        bk_sha256(st->hash, h, 32);
    } else if (st->hash_type == BK_UTXO_HASH_MUHASH) {
        if (p->pool) {
            pool_submit(p->pool);
            pool_stop(p);
            for (unsigned i = 0; i < p->pool->nthreads; i++) bk_muhash_combine(&p->mu, &p->pool->part[i]);
            pool_free(p);
        }
        bk_muhash_finalize(&p->mu, st->hash);
    }
    return BK_OK;
}

void bk_utxo_stats_free(bk_utxo_stats *st)
{
    stats_priv *p = st->priv_;
    if (!p) return;
    pool_free(p);
    const bk_allocator *a = p->alloc;
    bk_free(a, p->coins, p->cap_coins * sizeof *p->coins);
    bk_free(a, p->bytes, p->cap_bytes);
    bk_free(a, p, sizeof *p);
    st->priv_ = NULL;
}

/* gettxoutsetinfo's object; disk_size when with_disk. */
static void stats_json(bk_json *j, const bk_utxo_stats *st, int32_t height, const uint8_t bestblock[32], int with_disk,
                       uint64_t disk_size)
{
    bk_json_begin_object(j);
    bk_json_key(j, "height");
    bk_json_int(j, height);
    bk_json_key(j, "bestblock");
    bk_json_hex_rev(j, bestblock, 32);
    bk_json_key(j, "txouts");
    bk_json_uint(j, st->txouts);
    bk_json_key(j, "bogosize");
    bk_json_uint(j, st->bogosize);
    if (st->hash_type != BK_UTXO_HASH_NONE) {
        bk_json_key(j, bk_utxo_hash_type_name(st->hash_type));
        bk_json_hex_rev(j, st->hash, 32);
    }
    if (st->total_amount_ok) {
        bk_json_key(j, "total_amount");
        bk_json_amount(j, st->total_amount);
    }
    bk_json_key(j, "transactions");
    bk_json_uint(j, st->transactions);
    if (with_disk) {
        bk_json_key(j, "disk_size");
        bk_json_uint(j, disk_size);
    }
    bk_json_end_object(j);
}

void bk_utxo_stats_json(bk_json *j, const bk_utxo_stats *st, int32_t height, const uint8_t bestblock[32],
                        uint64_t disk_size)
{
    stats_json(j, st, height, bestblock, 1, disk_size);
}

void bk_utxo_stats_json_no_disk(bk_json *j, const bk_utxo_stats *st, int32_t height, const uint8_t bestblock[32])
{
    stats_json(j, st, height, bestblock, 0, 0);
}
