/* Coin statistics at every height: what Bitcoin Core's coinstatsindex
 * stores per block and gettxoutsetinfo <type> <height> true prints.
 *
 * Core (index/coinstatsindex.cpp CustomAppend): per block, the subsidy is
 * added to the running total; at height 0 it is unspendable (genesis);
 * above, every output of every transaction is added to the set (MuHash
 * insert of TxOutSer, txouts, total_amount, bogosize, and coinbase or
 * new_outputs_ex_coinbase) unless its script is unspendable (then
 * unspendables.scripts), the coinbases of the two BIP30 blocks are skipped
 * whole (unspendables.bip30 += subsidy), and every input's undo coin is
 * removed (MuHash remove, prevout_spent). Then the unclaimed rewards:
 * (prevout_spent + subsidy) - (new outputs + coinbase + unspendable), all
 * cumulative, added to the unspendables. The RPC prints the cumulative
 * state of the set and, in block_info, the differences to the block
 * before.
 *
 * The series runs the block engine in tasks of up to 16 heights: workers
 * decode blocks and undo data and compute each block's delta (MuHash of its
 * added coins as numerator, of its spent coins as denominator: the
 * expensive part; the coins' SHA-256 keys first, then their ChaCha20
 * elements 8 at a time, then one multiplication each); the calling thread
 * multiplies the deltas into the running MuHash in height order (two
 * products a height) and finalizes each height asked for, 64 heights per
 * inverse (two more products a height). */
#include <blockkit/utxo_coinstats.h>
#include <blockkit/blockstats.h>
#include <blockkit/chain.h>
#include <blockkit/engine.h>
#include <blockkit/sha256.h>

#include <gmp.h>
#include <string.h>

#include "utxo/coinstats_internal.h"
#include "utxo/muhash_internal.h"

#define MU_LIMBS 48
#define MU_BYTES 384

/* Core's IsBIP30Unspendable: the mainnet blocks whose coinbase was later
 * overwritten by a duplicate txid (hashes in internal byte order). */
static int bip30_unspendable(bk_network net, int32_t height, const uint8_t hash[32])
{
    static const char h91722[] = "00000000000271a2dc26e7667f8419f2e15416dc6955e5a6c6cdf3f2574dd08e";
    static const char h91812[] = "00000000000af0aed4792b1acee3d966af36cf5def14935db8de83d6f9306f2f";
    if (net != BK_NET_MAIN) return 0;
    const char *want = height == 91722 ? h91722 : height == 91812 ? h91812 : NULL;
    if (!want) return 0;
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = want[2 * (31 - i) + k];
            v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
        }
        if (hash[i] != v) return 0;
    }
    return 1;
}

/* CScript::IsUnspendable */
static int script_unspendable(const uint8_t *s, size_t len)
{
    return (len > 0 && s[0] == 0x6a) || len > 10000;
}

#define BOGO(len) (32u + 4u + 4u + 8u + 2u + (uint64_t)(len))

void bk_coinstats_init(bk_coinstats *st)
{
    memset(st, 0, sizeof *st);
    st->height = -1;
}

bk_status bk_coinstats_block_walk(bk_network net, int32_t height, const uint8_t hash[32], const bk_block *b,
                                  const uint8_t *txids, const bk_block_undo *undo, bk_coinstats_coin_fn coin,
                                  void *coin_ctx, bk_coinstats_delta *d, bk_error *err)
{
    memset(d, 0, offsetof(bk_coinstats_delta, mu));
    d->height = height;
    memcpy(d->hash, hash, 32);
    d->has_muhash = coin != NULL;
    bk_muhash_init(&d->mu);
    if (height < 0) return bk_error_set(err, BK_ERR_ARG, 0, "negative height");
    d->subsidy = (uint64_t)bk_block_subsidy(net, height);
    if (height == 0) {
        d->genesis = d->subsidy;
        return BK_OK;
    }
    if (!undo) return bk_error_set(err, BK_ERR_ARG, 0, "block at height %d needs its undo data", (int)height);
    bk_status s = bk_block_undo_check(undo, b, err);
    if (s != BK_OK) return s;
    int bip30 = bip30_unspendable(net, height, hash);
    bk_undo_iter ui;
    bk_undo_iter_init(&ui, undo);
    bk_utxo u;
    uint8_t ser[BK_UTXO_SER_MAX];
    for (uint32_t i = 0; i < b->n_tx; i++) {
        const bk_tx *tx = &b->txs[i];
        int cb = i == 0; /* bk_block_undo_check: tx 0 is the one without undo */
        if (cb && bip30) {
            d->bip30 += d->subsidy;
        } else {
            bk_txout_iter oi;
            bk_txout o;
            bk_txout_iter_init(&oi, tx);
            uint32_t n = 0;
            while (bk_txout_next(&oi, &o)) {
                uint32_t vout = n++;
                if (script_unspendable(o.script, o.script_len)) {
                    d->scripts += (uint64_t)o.value;
                    continue;
                }
                if (cb) d->coinbase += (uint64_t)o.value;
                else d->new_outputs_ex_coinbase += (uint64_t)o.value;
                d->coins_added++;
                d->bogosize_added += BOGO(o.script_len);
                if (coin) {
                    /* TxOutSer without a bk_coin copy of the script */
                    uint8_t *p = ser;
                    memcpy(p, txids + 32 * (size_t)i, 32);
                    bk_store_le32(p + 32, vout);
                    bk_store_le32(p + 36, ((uint32_t)height << 1) | (uint32_t)cb);
                    bk_store_le64(p + 40, (uint64_t)o.value);
                    p += 48;
                    p += bk_compact_size_encode(p, o.script_len);
                    /* a script over 10000 bytes is unspendable: skipped above */
                    memcpy(p, o.script, o.script_len);
                    p += o.script_len;
                    s = coin(coin_ctx, ser, (size_t)(p - ser), 0, err);
                    if (s != BK_OK) return s;
                }
            }
        }
        if (cb) continue;
        uint32_t n_coins;
        if (!bk_undo_next_tx(&ui, &n_coins))
            return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match block");
        bk_txin_iter ii;
        bk_txin in;
        bk_txin_iter_init(&ii, tx);
        for (uint32_t k = 0; k < n_coins; k++) {
            if (!bk_txin_next(&ii, &in) || !bk_undo_next_coin(&ui, &u.coin))
                return bk_error_set(err, BK_ERR_MISMATCH, 0, "undo data does not match block");
            d->prevout_spent += (uint64_t)u.coin.value;
            d->coins_spent++;
            d->bogosize_spent += BOGO(u.coin.script_len);
            if (coin) {
                memcpy(u.txid, in.prev_txid, 32);
                u.vout = in.prev_index;
                size_t len = bk_utxo_txout_ser(&u, ser);
                s = coin(coin_ctx, ser, len, 1, err);
                if (s != BK_OK) return s;
            }
        }
    }
    return BK_OK;
}

static bk_status delta_coin(void *ctx, const uint8_t *ser, size_t len, int spent, bk_error *err)
{
    bk_muhash *mu = ctx;
    (void)err;
    if (spent) bk_muhash_remove(mu, ser, len);
    else bk_muhash_insert(mu, ser, len);
    return BK_OK;
}

bk_status bk_coinstats_block_delta(bk_network net, int32_t height, const uint8_t hash[32], const bk_block *b,
                                   const uint8_t *txids, const bk_block_undo *undo, int with_muhash,
                                   bk_coinstats_delta *d, bk_error *err)
{
    return bk_coinstats_block_walk(net, height, hash, b, txids, undo, with_muhash ? delta_coin : NULL, &d->mu, d,
                                   err);
}

void bk_muhash_finalize_fast(const bk_muhash *m, uint8_t out[32])
{
    /* p = 2^3072 - 1103717 */
    mpz_t p, num, den, inv;
    mpz_init(p);
    mpz_ui_pow_ui(p, 2, 3072);
    mpz_sub_ui(p, p, 1103717u);
    mpz_init(num);
    mpz_init(den);
    mpz_init(inv);
    mpz_import(num, MU_LIMBS, -1, sizeof m->num[0], 0, 0, m->num);
    mpz_import(den, MU_LIMBS, -1, sizeof m->den[0], 0, 0, m->den);
    mpz_mod(num, num, p);
    mpz_mod(den, den, p);
    /* den = 0 mod p has no inverse: the result is 0, as Core's. */
    if (mpz_invert(inv, den, p)) {
        mpz_mul(num, num, inv);
        mpz_mod(num, num, p);
    } else {
        mpz_set_ui(num, 0);
    }
    uint8_t b[MU_BYTES];
    memset(b, 0, sizeof b);
    size_t cnt = 0;
    mpz_export(b, &cnt, -1, 1, 0, 0, num);
    bk_sha256(out, b, sizeof b);
    mpz_clear(p);
    mpz_clear(num);
    mpz_clear(den);
    mpz_clear(inv);
}

/* ---- batched finalization (Montgomery's trick): one inverse for up to
 * SERIES_BATCH heights, three products per height instead ---- */

#define MU_DIFF 1103717u

static void mulmod(mp_limb_t *x, const mp_limb_t *y)
{
    mp_limb_t t[2 * MU_LIMBS];
    mpn_mul_n(t, x, y, MU_LIMBS);
    mp_limb_t carry = mpn_addmul_1(t, t + MU_LIMBS, MU_LIMBS, MU_DIFF);
    mp_limb_t c2 = mpn_add_1(t, t, MU_LIMBS, carry * (mp_limb_t)MU_DIFF);
    if (c2) (void)mpn_add_1(t, t, MU_LIMBS, MU_DIFF);
    memcpy(x, t, MU_LIMBS * sizeof(mp_limb_t));
}

/* inv = x^-1 mod p (0 when x = 0 mod p); x below 2^3072. */
static int invmod(mp_limb_t *inv, const mp_limb_t *x)
{
    mpz_t p, a, r;
    mpz_init(p);
    mpz_ui_pow_ui(p, 2, 3072);
    mpz_sub_ui(p, p, MU_DIFF);
    mpz_init(a);
    mpz_init(r);
    mpz_import(a, MU_LIMBS, -1, sizeof(mp_limb_t), 0, 0, x);
    int ok = mpz_invert(r, a, p);
    memset(inv, 0, MU_LIMBS * sizeof(mp_limb_t));
    if (ok) {
        size_t cnt = 0;
        mpz_export(inv, &cnt, -1, sizeof(mp_limb_t), 0, 0, r);
    }
    mpz_clear(p);
    mpz_clear(a);
    mpz_clear(r);
    return ok;
}

/* SHA-256 of x mod p as 384 little-endian bytes. */
static void hash_reduced(const mp_limb_t *x, uint8_t out[32])
{
    mp_limb_t y[MU_LIMBS];
    memcpy(y, x, sizeof y);
    int ge = 1;
    for (size_t i = 1; i < MU_LIMBS && ge; i++) ge = y[i] == GMP_NUMB_MAX;
    if (ge && y[0] >= GMP_NUMB_MAX - (MU_DIFF - 1)) (void)mpn_add_1(y, y, MU_LIMBS, MU_DIFF);
    uint8_t b[MU_BYTES];
    for (size_t i = 0; i < MU_LIMBS; i++)
        for (size_t k = 0; k < sizeof(mp_limb_t); k++) b[i * sizeof(mp_limb_t) + k] = (uint8_t)(y[i] >> (8 * k));
    bk_sha256(out, b, sizeof b);
}

/* The MuHash of n consecutive heights with one inverse. m[i].num is N_i,
 * the running numerator after height i; m[i].den is den_i, height i's own
 * denominator (its spent coins); the running denominator after height i is
 * D_i = d_start * den_0 * ... * den_i, and d_last = D_{n-1}. Core's hash at
 * height i is of N_i / D_i: from D_{n-1}^-1 (the one inverse) backwards,
 * D_{i-1}^-1 = D_i^-1 * den_i, so two products per height. out[i] = that
 * hash. */
static void finalize_batch(const bk_muhash *m, size_t n, const uint64_t *d_start, const uint64_t *d_last,
                           uint8_t (*out)[32])
{
    if (n == 0) return;
    mp_limb_t inv[MU_LIMBS];
    if (!invmod(inv, (const mp_limb_t *)(const void *)d_last)) {
        /* some denominator is 0 mod p: each height by itself */
        bk_muhash one;
        memcpy(one.den, d_start, sizeof one.den);
        for (size_t i = 0; i < n; i++) {
            memcpy(one.num, m[i].num, sizeof one.num);
            mulmod((mp_limb_t *)(void *)one.den, (const mp_limb_t *)(const void *)m[i].den);
            bk_muhash_finalize_fast(&one, out[i]);
        }
        return;
    }
    for (size_t i = n; i-- > 0;) {
        /* inv = D_i^-1 */
        mp_limb_t x[MU_LIMBS];
        memcpy(x, m[i].num, sizeof x);
        mulmod(x, inv);
        hash_reduced(x, out[i]);
        if (i > 0) mulmod(inv, (const mp_limb_t *)(const void *)m[i].den);
    }
}

bk_status bk_coinstats_apply(bk_coinstats *st, bk_muhash *mu, const bk_coinstats_delta *d, int finalize,
                             bk_error *err)
{
    if (d->height != st->height + 1)
        return bk_error_set(err, BK_ERR_INVALID, 0, "block at height %d applied after height %d", (int)d->height,
                            (int)st->height);
    st->height = d->height;
    memcpy(st->bestblock, d->hash, 32);
    st->txouts += d->coins_added - d->coins_spent;
    st->bogosize += d->bogosize_added - d->bogosize_spent;
    /* the set's total in wrapping arithmetic (no overflow is undefined) */
    st->total_amount = (int64_t)((uint64_t)st->total_amount + d->coinbase + d->new_outputs_ex_coinbase -
                                 d->prevout_spent);
    st->total_subsidy += d->subsidy;
    st->total_prevout_spent_amount += d->prevout_spent;
    st->total_new_outputs_ex_coinbase_amount += d->new_outputs_ex_coinbase;
    st->total_coinbase_amount += d->coinbase;
    uint64_t unsp = (uint64_t)st->total_unspendable_amount + d->genesis + d->bip30 + d->scripts;
    st->total_unspendables_genesis_block = (int64_t)((uint64_t)st->total_unspendables_genesis_block + d->genesis);
    st->total_unspendables_bip30 = (int64_t)((uint64_t)st->total_unspendables_bip30 + d->bip30);
    st->total_unspendables_scripts = (int64_t)((uint64_t)st->total_unspendables_scripts + d->scripts);
    uint64_t unclaimed = (st->total_prevout_spent_amount + st->total_subsidy) -
                         (st->total_new_outputs_ex_coinbase_amount + st->total_coinbase_amount + unsp);
    st->total_unspendable_amount = (int64_t)(unsp + unclaimed);
    st->total_unspendables_unclaimed_rewards =
        (int64_t)((uint64_t)st->total_unspendables_unclaimed_rewards + unclaimed);
    if (d->has_muhash && mu) {
        bk_muhash_combine(mu, &d->mu);
        if (finalize) {
            bk_muhash_finalize_fast(mu, st->muhash);
            st->has_muhash = 1;
        } else {
            st->has_muhash = 0;
        }
    } else {
        st->has_muhash = 0;
    }
    return BK_OK;
}

static int64_t diff_u(uint64_t a, uint64_t b) { return (int64_t)(a - b); }
static int64_t diff_s(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }

void bk_coinstats_block_info_get(const bk_coinstats *cur, const bk_coinstats *prev, bk_coinstats_block_info *o)
{
    bk_coinstats zero;
    memset(&zero, 0, sizeof zero);
    if (!prev) prev = &zero;
    o->prevout_spent = diff_u(cur->total_prevout_spent_amount, prev->total_prevout_spent_amount);
    o->coinbase = diff_u(cur->total_coinbase_amount, prev->total_coinbase_amount);
    o->new_outputs_ex_coinbase =
        diff_u(cur->total_new_outputs_ex_coinbase_amount, prev->total_new_outputs_ex_coinbase_amount);
    o->unspendable = diff_s(cur->total_unspendable_amount, prev->total_unspendable_amount);
    o->genesis_block = diff_s(cur->total_unspendables_genesis_block, prev->total_unspendables_genesis_block);
    o->bip30 = diff_s(cur->total_unspendables_bip30, prev->total_unspendables_bip30);
    o->scripts = diff_s(cur->total_unspendables_scripts, prev->total_unspendables_scripts);
    o->unclaimed_rewards =
        diff_s(cur->total_unspendables_unclaimed_rewards, prev->total_unspendables_unclaimed_rewards);
}

void bk_coinstats_json(bk_json *j, const bk_coinstats *cur, const bk_coinstats *prev, int with_muhash)
{
    bk_coinstats_block_info bi;
    bk_coinstats_block_info_get(cur, prev, &bi);
    bk_json_begin_object(j);
    bk_json_key(j, "height");
    bk_json_int(j, cur->height);
    bk_json_key(j, "bestblock");
    bk_json_hex_rev(j, cur->bestblock, 32);
    bk_json_key(j, "txouts");
    bk_json_uint(j, cur->txouts);
    bk_json_key(j, "bogosize");
    bk_json_uint(j, cur->bogosize);
    if (with_muhash) {
        bk_json_key(j, "muhash");
        bk_json_hex_rev(j, cur->muhash, 32);
    }
    bk_json_key(j, "total_amount");
    bk_json_amount(j, cur->total_amount);
    bk_json_key(j, "total_unspendable_amount");
    bk_json_amount(j, cur->total_unspendable_amount);
    bk_json_key(j, "block_info");
    bk_json_begin_object(j);
    bk_json_key(j, "prevout_spent");
    bk_json_amount(j, bi.prevout_spent);
    bk_json_key(j, "coinbase");
    bk_json_amount(j, bi.coinbase);
    bk_json_key(j, "new_outputs_ex_coinbase");
    bk_json_amount(j, bi.new_outputs_ex_coinbase);
    bk_json_key(j, "unspendable");
    bk_json_amount(j, bi.unspendable);
    bk_json_key(j, "unspendables");
    bk_json_begin_object(j);
    bk_json_key(j, "genesis_block");
    bk_json_amount(j, bi.genesis_block);
    bk_json_key(j, "bip30");
    bk_json_amount(j, bi.bip30);
    bk_json_key(j, "scripts");
    bk_json_amount(j, bi.scripts);
    bk_json_key(j, "unclaimed_rewards");
    bk_json_amount(j, bi.unclaimed_rewards);
    bk_json_end_object(j);
    bk_json_end_object(j);
    bk_json_end_object(j);
}

/* ---- the series over a chain ---- */

/* A worker's buffers, reused from block to block: the block's txids, and
 * the SHA-256 keys of the coins it adds and spends (keys[0], keys[1]),
 * turned into elements and multiplied together once the block is walked. */
typedef struct series_worker {
    uint8_t *txids;
    size_t cap;
    uint8_t *keys[2];
    size_t n_keys[2], cap_keys[2];
    const bk_allocator *alloc;
} series_worker;

static bk_status series_coin(void *ctx, const uint8_t *ser, size_t len, int spent, bk_error *err)
{
    series_worker *w = ctx;
    if (w->n_keys[spent] == w->cap_keys[spent]) {
        size_t cap = w->cap_keys[spent] ? 2 * w->cap_keys[spent] : 256;
        uint8_t *p = bk_realloc(w->alloc, w->keys[spent], 32 * w->cap_keys[spent], 32 * cap);
        if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (%zu coin keys)", cap);
        w->keys[spent] = p;
        w->cap_keys[spent] = cap;
    }
    bk_sha256(w->keys[spent] + 32 * w->n_keys[spent]++, ser, len);
    return BK_OK;
}

typedef struct series_ctx {
    const bk_chain *chain;
    const bk_coinstats_series_opts *o;
    const bk_allocator *alloc;
    series_worker *w;
    bk_coinstats cur;
    bk_muhash mu;
    bk_coinstats_emit_fn emit;
    void *emit_ctx;
    /* heights applied but not yet finalized and emitted */
    bk_coinstats *pend;
    bk_muhash *pend_mu;  /* num: the running numerator; den: the height's own denominator */
    uint64_t den_start[MU_LIMBS]; /* the running denominator before pend[0] */
    uint8_t (*hashes)[32];
    size_t n_pend;
    bk_coinstats last;   /* the stats of the height before pend[0] */
    int have_last;
} series_ctx;

#define SERIES_BATCH 64
#define SERIES_TASK 16

static bk_status series_flush(series_ctx *c, bk_error *err)
{
    if (c->n_pend == 0) return BK_OK;
    if (c->o->with_muhash) finalize_batch(c->pend_mu, c->n_pend, c->den_start, c->mu.den, c->hashes);
    bk_status s = BK_OK;
    for (size_t i = 0; i < c->n_pend && s == BK_OK; i++) {
        bk_coinstats *cur = &c->pend[i];
        if (c->o->with_muhash) {
            memcpy(cur->muhash, c->hashes[i], 32);
            cur->has_muhash = 1;
        }
        const bk_coinstats *prev = i ? &c->pend[i - 1] : c->have_last ? &c->last : NULL;
        if (cur->height == 0) prev = NULL;
        s = c->emit(c->emit_ctx, cur, prev, err);
    }
    c->last = c->pend[c->n_pend - 1];
    c->have_last = 1;
    c->n_pend = 0;
    return s;
}

static bk_status series_block(void *vctx, int worker, const bk_engine_block *eb, bk_writer *out, bk_error *err)
{
    series_ctx *c = vctx;
    series_worker *w = &c->w[worker];
    const bk_block *b = eb->block;
    int32_t h = (int32_t)eb->height;
    if (!b) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block at height %d has no data (pruned)", (int)h);
    if (h > 0 && !eb->undo)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block at height %d has no undo data (pruned)", (int)h);
    if (c->o->with_muhash) {
        size_t need = 32 * (size_t)b->n_tx;
        if (need > w->cap) {
            uint8_t *p = bk_realloc(c->alloc, w->txids, w->cap, need);
            if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (%zu bytes of txids)", need);
            w->txids = p;
            w->cap = need;
        }
        bk_block_txids(b, w->txids);
    }
    bk_coinstats_delta d;
    w->n_keys[0] = w->n_keys[1] = 0;
    bk_status s = bk_coinstats_block_walk(c->chain->net, h, eb->entry->hash, b, w->txids, h > 0 ? eb->undo : NULL,
                                          c->o->with_muhash ? series_coin : NULL, w, &d, err);
    if (s != BK_OK) return s;
    if (c->o->with_muhash) {
        /* the block's MuHash product: numerator and denominator, here on the worker */
        bk_muhash_mul_keys(d.mu.num, w->keys[0], w->n_keys[0]);
        bk_muhash_mul_keys(d.mu.den, w->keys[1], w->n_keys[1]);
    }
    /* without MuHash, only the numbers travel */
    size_t len = c->o->with_muhash ? sizeof d : offsetof(bk_coinstats_delta, mu);
    bk_writer_put(out, &d, len);
    return bk_writer_status(out);
}

static bk_status series_apply(series_ctx *c, const uint8_t *data, size_t len, bk_error *err)
{
    bk_coinstats_delta d;
    if (len > sizeof d) return bk_error_set(err, BK_ERR_INVALID, 0, "bad delta");
    memcpy(&d, data, len);
    if (!c->o->with_muhash) d.has_muhash = 0;
    int emit = d.height >= c->o->start;
    if (emit && c->n_pend == 0) memcpy(c->den_start, c->mu.den, sizeof c->den_start);
    bk_status s = bk_coinstats_apply(&c->cur, &c->mu, &d, 0, err);
    if (s != BK_OK) return s;
    if (!emit) {
        c->last = c->cur;
        c->have_last = 1;
        return BK_OK;
    }
    c->pend[c->n_pend] = c->cur;
    if (c->o->with_muhash) {
        memcpy(c->pend_mu[c->n_pend].num, c->mu.num, sizeof c->mu.num);
        memcpy(c->pend_mu[c->n_pend].den, d.mu.den, sizeof d.mu.den);
    }
    if (++c->n_pend == SERIES_BATCH) return series_flush(c, err);
    return BK_OK;
}

/* A task's output: its blocks' deltas, one after the other. */
static bk_status series_consume(void *vctx, size_t job, const uint8_t *data, size_t len, bk_error *err)
{
    series_ctx *c = vctx;
    (void)job;
    size_t one = c->o->with_muhash ? sizeof(bk_coinstats_delta) : offsetof(bk_coinstats_delta, mu);
    if (len % one != 0) return bk_error_set(err, BK_ERR_INVALID, 0, "bad delta");
    bk_status s = BK_OK;
    for (size_t off = 0; off < len && s == BK_OK; off += one) s = series_apply(c, data + off, one, err);
    return s;
}

bk_status bk_coinstats_series(const bk_chain *chain, const bk_blocksdir *dir, const bk_coinstats_series_opts *o,
                              bk_coinstats_emit_fn emit, void *ctx, bk_engine_where *where, bk_error *err)
{
    if (where) memset(where, 0, sizeof *where);
    if (!chain || !dir || !o || !emit) return bk_error_set(err, BK_ERR_ARG, 0, "missing argument");
    const bk_chain_entry *tip = bk_chain_tip(chain);
    if (!tip) return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "the chain has no blocks");
    if (chain->base_height != 0)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "the chain does not start at the genesis block");
    if (o->start < 0 || o->end < o->start || o->end > tip->height)
        return bk_error_set(err, BK_ERR_ARG, 0, "heights %d..%d not within 0..%d (the tip)", (int)o->start,
                            (int)o->end, (int)tip->height);
    const bk_allocator *alloc = o->alloc;
    size_t n = (size_t)o->end + 1;
    int workers = o->workers < 1 ? 1 : o->workers;
    if ((size_t)workers > n) workers = (int)n;
    /* Blocks go to the workers in tasks of up to SERIES_TASK consecutive
     * heights (one hand-over per task, not per block), small enough that
     * each worker still gets about 8 tasks. */
    size_t per = n / (8 * (size_t)workers);
    if (per > SERIES_TASK) per = SERIES_TASK;
    if (per < 1) per = 1;
    size_t n_tasks = (n + per - 1) / per;
    bk_engine_item *items = bk_alloc(alloc, n * sizeof *items);
    bk_engine_task *tasks = bk_alloc(alloc, n_tasks * sizeof *tasks);
    series_worker *w = bk_alloc(alloc, (size_t)workers * sizeof *w);
    if (!items || !tasks || !w) {
        bk_free(alloc, items, n * sizeof *items);
        bk_free(alloc, tasks, n_tasks * sizeof *tasks);
        bk_free(alloc, w, (size_t)workers * sizeof *w);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    for (size_t t = 0; t < n_tasks; t++) {
        tasks[t].first = t * per;
        tasks[t].count = n - t * per < per ? n - t * per : per;
    }
    memset(w, 0, (size_t)workers * sizeof *w);
    for (int i = 0; i < workers; i++) w[i].alloc = alloc;
    series_ctx c;
    memset(&c, 0, sizeof c);
    c.pend = bk_alloc(alloc, SERIES_BATCH * sizeof *c.pend);
    c.pend_mu = bk_alloc(alloc, SERIES_BATCH * sizeof *c.pend_mu);
    c.hashes = bk_alloc(alloc, SERIES_BATCH * sizeof *c.hashes);
    bk_status s = BK_OK;
    if (!c.pend || !c.pend_mu || !c.hashes) {
        s = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        items[i].entry = chain->active[i];
        items[i].height = (int64_t)i;
        items[i].orphan = 0;
    }
    c.chain = chain;
    c.o = o;
    c.alloc = alloc;
    c.w = w;
    c.emit = emit;
    c.emit_ctx = ctx;
    bk_coinstats_init(&c.cur);
    bk_muhash_init(&c.mu);
    bk_engine_opts eo;
    bk_engine_opts_init(&eo);
    eo.chain = chain;
    eo.dir = dir;
    eo.items = items;
    eo.n_items = n;
    eo.tasks = tasks;
    eo.n_tasks = n_tasks;
    eo.read_flags = BK_READ_UNDO;
    eo.run.workers = workers;
    eo.run.window = 4 * (size_t)workers + 2;
    eo.run.cancel = o->cancel;
    eo.run.alloc = alloc;
    eo.block = series_block;
    eo.consume = series_consume;
    eo.ctx = &c;
    bk_engine_result er;
    s = bk_engine_run(&eo, &er, err);
    if (where) *where = er.where;
    if (s == BK_OK) s = series_flush(&c, err);
out:
    bk_free(alloc, c.pend, SERIES_BATCH * sizeof *c.pend);
    bk_free(alloc, c.pend_mu, SERIES_BATCH * sizeof *c.pend_mu);
    bk_free(alloc, c.hashes, SERIES_BATCH * sizeof *c.hashes);
    for (int i = 0; i < workers; i++) {
        bk_free(alloc, w[i].txids, w[i].cap);
        for (int k = 0; k < 2; k++) bk_free(alloc, w[i].keys[k], 32 * w[i].cap_keys[k]);
    }
    bk_free(alloc, w, (size_t)workers * sizeof *w);
    bk_free(alloc, tasks, n_tasks * sizeof *tasks);
    bk_free(alloc, items, n * sizeof *items);
    return s;
}
