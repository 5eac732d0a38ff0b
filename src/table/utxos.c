/* The utxos dataset (blockkit/utxo.h): one row per coin, rendered a batch
 * at a time so the x-only key checks of a batch's taproot outputs run
 * together (bk_script_xonly_valid_many: sixteen lanes with AVX-512), and so
 * batches can be rendered on worker threads while one thread writes. */
#include <blockkit/hex.h>
#include <blockkit/script.h>
#include <blockkit/sha256.h>
#include <blockkit/table.h>
#include <blockkit/utxo.h>
#include <blockkit/utxo_table.h>

#include "../bitcoin/script_internal.h"
#include "../parquet/writer_internal.h"
#include "profile_internal.h"

#include <pthread.h>

#include <string.h>

static const bk_pq_column utxo_columns[] = {
    {"txid", BK_PQ_STRING, BK_PQ_NO_MINMAX},
    {"vout", BK_PQ_INT64, 0},
    {"value", BK_PQ_INT64, 0},
    {"height", BK_PQ_INT32, 0},
    {"is_coinbase", BK_PQ_BOOLEAN, 0},
    {"script_hex", BK_PQ_STRING, BK_PQ_NO_MINMAX},
    {"type", BK_PQ_STRING, BK_PQ_DICT},
    {"address", BK_PQ_STRING, BK_PQ_OPTIONAL | BK_PQ_NO_MINMAX},
    {"desc", BK_PQ_STRING, BK_PQ_NO_MINMAX},
};

const bk_pq_column *bk_utxo_columns(size_t *n_out)
{
    if (n_out) *n_out = sizeof utxo_columns / sizeof utxo_columns[0];
    return utxo_columns;
}

/* --profile lean: the columns above under the lean rule (profile_internal.h):
 * txid FIXED_LEN_BYTE_ARRAY(32) in Core's display order, script_hex the
 * script's bytes, no desc. */
static bk_pq_column utxo_lean_columns[sizeof utxo_columns / sizeof utxo_columns[0]];
static size_t utxo_lean_n;

static void utxo_lean_build(void)
{
    for (size_t i = 0; i < sizeof utxo_columns / sizeof utxo_columns[0]; i++) {
        int kind = bk_table_lean_kind_("utxos", utxo_columns[i].name);
        if (kind != BK_LEAN_DROP) utxo_lean_columns[utxo_lean_n++] = bk_table_lean_column_(utxo_columns[i], kind);
    }
}

const bk_pq_column *bk_utxo_columns_profile(bk_table_profile p, size_t *n_out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (p != BK_PROFILE_LEAN) return bk_utxo_columns(n_out);
    pthread_once(&once, utxo_lean_build);
    if (n_out) *n_out = utxo_lean_n;
    return utxo_lean_columns;
}

/* One coin's rendered text: offsets into the batch's text arena. */
typedef struct row_text {
    uint32_t txid_off;   /* 64 characters */
    uint32_t script_off; /* 2 x script_len */
    uint32_t addr_off, addr_len;
    uint32_t desc_off, desc_len;
    uint8_t type;
} row_text;

struct bk_utxo_batch {
    const bk_allocator *alloc;
    bk_network net;
    size_t n, arena_len;
    int rendered;
    bk_table_profile profile;  /* lean: no hex, no desc (so no x-only key checks) */
    bk_writer text;
    bk_utxo u[BK_UTXO_BATCH];
    row_text r[BK_UTXO_BATCH];
    uint8_t tr_keys[BK_UTXO_BATCH * 32];
    uint8_t tr_valid[BK_UTXO_BATCH];
    /* P2PKH / P2SH: prefix + hash, and their Base58Check checksums */
    uint8_t b58_msg[BK_UTXO_BATCH][21];
    uint8_t b58_sum[BK_UTXO_BATCH * 32];
    bk_sha256_seg b58_seg[BK_UTXO_BATCH];
    bk_sha256_msg b58_msgs[BK_UTXO_BATCH];
    uint8_t arena[BK_UTXO_BATCH_SCRIPT_BYTES];
};

bk_status bk_utxo_batch_new(bk_utxo_batch **out, bk_network net, const bk_allocator *alloc)
{
    if (!out || !bk_network_get(net)) return BK_ERR_ARG;
    bk_utxo_batch *b = bk_alloc(alloc, sizeof *b);
    if (!b) return BK_ERR_NOMEM;
    b->alloc = alloc;
    b->net = net;
    b->n = b->arena_len = 0;
    b->rendered = 0;
    b->profile = BK_PROFILE_DEFAULT;
    bk_writer_init(&b->text, alloc);
    *out = b;
    return BK_OK;
}

void bk_utxo_batch_free(bk_utxo_batch *b)
{
    if (!b) return;
    bk_writer_free(&b->text);
    bk_free(b->alloc, b, sizeof *b);
}

void bk_utxo_batch_reset(bk_utxo_batch *b)
{
    b->n = b->arena_len = 0;
    b->rendered = 0;
    bk_writer_reset(&b->text);
}

size_t bk_utxo_batch_count(const bk_utxo_batch *b) { return b->n; }

void bk_utxo_batch_set_profile(bk_utxo_batch *b, bk_table_profile p)
{
    b->profile = p;
    b->rendered = 0;
}

const bk_utxo *bk_utxo_batch_coin(const bk_utxo_batch *b, size_t i) { return &b->u[i]; }

int bk_utxo_batch_add(bk_utxo_batch *b, const bk_utxo *u)
{
    size_t need = u->coin.raw_script ? u->coin.script_len : 0;
    if (b->n == BK_UTXO_BATCH) return 0;
    /* A script larger than the arena (none is: Core keeps at most 10,000
     * bytes) would never fit: it goes alone into an empty batch. */
    if (need > BK_UTXO_BATCH_SCRIPT_BYTES) return 0;
    if (b->arena_len + need > BK_UTXO_BATCH_SCRIPT_BYTES) return 0;
    bk_utxo *d = &b->u[b->n++];
    *d = *u;
    if (need) {
        memcpy(b->arena + b->arena_len, u->coin.raw_script, need);
        d->coin.raw_script = b->arena + b->arena_len;
        b->arena_len += need;
    }
    b->rendered = 0;
    return 1;
}

static int is_taproot(const uint8_t *s, size_t n) { return n == 34 && s[0] == 0x51 && s[1] == 0x20; }

/* Core's Solver templates: P2SH is tested first (OP_HASH160 <20> OP_EQUAL),
 * P2PKH is OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG. */
static int is_p2sh(const uint8_t *s, size_t n) { return n == 23 && s[0] == 0xa9 && s[1] == 0x14 && s[22] == 0x87; }
static int is_p2pkh(const uint8_t *s, size_t n)
{
    return n == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 0x14 && s[23] == 0x88 && s[24] == 0xac;
}

bk_status bk_utxo_batch_render(bk_utxo_batch *b)
{
    bk_writer *w = &b->text;
    bk_writer_reset(w);
    /* The taproot keys of the batch, decided together. */
    /* ... and the Base58Check checksums, several hashes in flight. */
    const bk_network_params *np = bk_network_get(b->net);
    const int lean = b->profile == BK_PROFILE_LEAN; /* the x-only key checks serve the descriptors alone */
    size_t nk = 0, nb = 0;
    for (size_t i = 0; i < b->n; i++) {
        const uint8_t *s = bk_coin_script(&b->u[i].coin);
        size_t n = b->u[i].coin.script_len;
        if (is_taproot(s, n)) {
            if (!lean) memcpy(b->tr_keys + 32 * nk, s + 2, 32);
            nk++;
        } else if (is_p2sh(s, n) || is_p2pkh(s, n)) {
            int sh = n == 23;
            b->b58_msg[nb][0] = sh ? np->p2sh_prefix : np->p2pkh_prefix;
            memcpy(b->b58_msg[nb] + 1, s + (sh ? 2 : 3), 20);
            b->b58_seg[nb].data = b->b58_msg[nb];
            b->b58_seg[nb].len = 21;
            b->b58_msgs[nb].segs = &b->b58_seg[nb];
            b->b58_msgs[nb].nsegs = 1;
            nb++;
        }
    }
    if (nk && !lean) bk_script_xonly_valid_many(b->tr_keys, nk, b->tr_valid);
    else if (nk) memset(b->tr_valid, 0, nk);
    if (nb) bk_sha256d_msgs(b->b58_sum, b->b58_msgs, nb);
    size_t k = 0, kb = 0;
    bk_script_info info;
    for (size_t i = 0; i < b->n; i++) {
        const bk_utxo *u = &b->u[i];
        row_text *r = &b->r[i];
        const uint8_t *s = bk_coin_script(&u->coin);
        size_t n = u->coin.script_len;
        /* bk_script_info_get with the batch's taproot and checksum answers */
        bk_script_solve(s, n, &info.sol);
        info.taproot_valid = 0;
        if (is_taproot(s, n)) {
            info.taproot_valid = b->tr_valid[k++];
            info.address_len = bk_script_address_encode(&info.sol, np, info.address);
        } else if (is_p2sh(s, n) || is_p2pkh(s, n)) {
            info.address_len = bk_base58check21_sum(info.address, b->b58_msg[kb][0], b->b58_msg[kb] + 1,
                                                    b->b58_sum + 32 * kb);
            kb++;
        } else {
            info.address_len = bk_script_address_encode(&info.sol, np, info.address);
        }
        r->type = (uint8_t)info.sol.type;
        if (lean) {
            /* the address alone: txid and script are written as bytes */
            uint8_t *o = bk_script_space(w, info.address_len + 1);
            if (!o) return BK_ERR_NOMEM;
            r->addr_off = (uint32_t)w->len;
            r->addr_len = (uint32_t)info.address_len;
            memcpy(o, info.address, info.address_len);
            bk_writer_commit(w, info.address_len);
            continue;
        }
        uint8_t *o = bk_script_space(w, 64 + 2 * n + info.address_len);
        if (!o) return BK_ERR_NOMEM;
        r->txid_off = (uint32_t)w->len;
        bk_hex_encode_rev((char *)o, u->txid, 32);
        r->script_off = (uint32_t)(w->len + 64);
        bk_script_hex((char *)o + 64, s, n);
        r->addr_off = (uint32_t)(w->len + 64 + 2 * n);
        r->addr_len = (uint32_t)info.address_len;
        memcpy(o + 64 + 2 * n, info.address, info.address_len);
        bk_writer_commit(w, 64 + 2 * n + info.address_len);
        r->desc_off = (uint32_t)w->len;
        bk_script_info_descriptor(w, s, n, &info);
        if (bk_writer_status(w) != BK_OK) return BK_ERR_NOMEM;
        r->desc_len = (uint32_t)(w->len - r->desc_off);
    }
    b->rendered = 1;
    return BK_OK;
}

/* The lean rows (bk_utxo_columns_profile(BK_PROFILE_LEAN)): Parquet gets
 * the txid's and script's bytes, the text formats their hex. */
/* The type names and their lengths, once per batch instead of a strlen a
 * row. */
typedef struct {
    const char *name[BK_SCRIPT_TYPE_COUNT_];
    size_t len[BK_SCRIPT_TYPE_COUNT_];
} type_names;

static void type_names_init(type_names *tn)
{
    for (int k = 0; k < BK_SCRIPT_TYPE_COUNT_; k++) {
        tn->name[k] = bk_script_type_name((bk_script_type)k);
        tn->len[k] = strlen(tn->name[k]);
    }
}

static bk_status write_lean(const bk_utxo_batch *b, size_t from, size_t to, bk_table_writer *t, const char *txt,
                            bk_error *err)
{
    bk_pq_writer *pq = t->pq;
    type_names names;
    type_names_init(&names);
    for (size_t i = from; i < to; i++) {
        const bk_utxo *u = &b->u[i];
        const row_text *r = &b->r[i];
        const uint8_t *s = bk_coin_script(&u->coin);
        if (pq) {
            /* the writer's short paths inline (writer_internal.h) */
            uint8_t id[32];
            for (int k = 0; k < 32; k++) id[k] = u->txid[31 - k];
            if (!bk_pq_fixed32_short_(pq, 0, id)) bk_pq_bin(pq, 0, id, 32, 0);
            if (!bk_pq_i64_short_(pq, 1, u->vout)) bk_pq_i64(pq, 1, u->vout);
            if (!bk_pq_i64_short_(pq, 2, u->coin.value)) bk_pq_i64(pq, 2, u->coin.value);
            bk_pq_i32(pq, 3, u->coin.height);
            if (!bk_pq_bool_short_(pq, 4, u->coin.coinbase)) bk_pq_bool(pq, 4, u->coin.coinbase);
            if (!bk_pq_str_short_(pq, 5, (const char *)s, u->coin.script_len)) bk_pq_bin(pq, 5, s, u->coin.script_len, 0);
            const char *type = names.name[r->type];
            size_t tn = names.len[r->type];
            if (!bk_pq_str_short_(pq, 6, type, tn)) bk_pq_str(pq, 6, type, tn);
            if (r->addr_len) {
                if (!bk_pq_str_short_(pq, 7, txt + r->addr_off, r->addr_len))
                    bk_pq_str(pq, 7, txt + r->addr_off, r->addr_len);
            } else if (!bk_pq_null_short_(pq, 7)) {
                bk_pq_null(pq, 7);
            }
            bk_status st = bk_table_end_row(t, err);
            if (st != BK_OK) return st;
            continue;
        }
        bk_table_hex(t, 0, u->txid, 32, 1);
        bk_table_int(t, 1, u->vout);
        bk_table_int(t, 2, u->coin.value);
        bk_table_int(t, 3, u->coin.height);
        bk_table_bool(t, 4, u->coin.coinbase);
        bk_table_hex(t, 5, s, u->coin.script_len, 0);
        bk_table_str(t, 6, names.name[r->type], names.len[r->type]);
        if (r->addr_len) bk_table_str(t, 7, txt + r->addr_off, r->addr_len);
        else bk_table_null(t, 7);
        bk_status st = bk_table_end_row(t, err);
        if (st != BK_OK) return st;
    }
    return BK_OK;
}

bk_status bk_utxo_batch_write(const bk_utxo_batch *b, size_t from, size_t to, bk_table_writer *t, bk_error *err)
{
    if (!b->rendered || from > to || to > b->n)
        return bk_error_set(err, BK_ERR_ARG, 0, "utxos: rows %zu..%zu of a batch of %zu%s", from, to, b->n,
                            b->rendered ? "" : " not rendered");
    const char *txt = (const char *)b->text.data;
    bk_pq_writer *pq = t->pq;
    if (b->profile == BK_PROFILE_LEAN) return write_lean(b, from, to, t, txt, err);
    type_names names;
    type_names_init(&names);
    if (pq) {
        /* Parquet: the writer's short paths inline (writer_internal.h) */
        for (size_t i = from; i < to; i++) {
            const bk_utxo *u = &b->u[i];
            const row_text *r = &b->r[i];
            if (!bk_pq_str_short_(pq, 0, txt + r->txid_off, 64)) bk_pq_str(pq, 0, txt + r->txid_off, 64);
            if (!bk_pq_i64_short_(pq, 1, u->vout)) bk_pq_i64(pq, 1, u->vout);
            if (!bk_pq_i64_short_(pq, 2, u->coin.value)) bk_pq_i64(pq, 2, u->coin.value);
            bk_pq_i32(pq, 3, u->coin.height);
            if (!bk_pq_bool_short_(pq, 4, u->coin.coinbase)) bk_pq_bool(pq, 4, u->coin.coinbase);
            const char *sh = u->coin.script_len ? txt + r->script_off : "";
            size_t shn = 2 * (size_t)u->coin.script_len;
            if (!bk_pq_str_short_(pq, 5, sh, shn)) bk_pq_str(pq, 5, sh, shn);
            const char *type = names.name[r->type];
            size_t tn = names.len[r->type];
            if (!bk_pq_str_short_(pq, 6, type, tn)) bk_pq_str(pq, 6, type, tn);
            if (r->addr_len) {
                if (!bk_pq_str_short_(pq, 7, txt + r->addr_off, r->addr_len))
                    bk_pq_str(pq, 7, txt + r->addr_off, r->addr_len);
            } else if (!bk_pq_null_short_(pq, 7)) {
                bk_pq_null(pq, 7);
            }
            if (!bk_pq_str_short_(pq, 8, txt + r->desc_off, r->desc_len)) bk_pq_str(pq, 8, txt + r->desc_off, r->desc_len);
            bk_status st = bk_table_end_row(t, err);
            if (st != BK_OK) return st;
        }
        return BK_OK;
    }
    for (size_t i = from; i < to; i++) {
        const bk_utxo *u = &b->u[i];
        const row_text *r = &b->r[i];
        bk_table_str(t, 0, txt + r->txid_off, 64);
        bk_table_int(t, 1, u->vout);
        bk_table_int(t, 2, u->coin.value);
        bk_table_int(t, 3, u->coin.height);
        bk_table_bool(t, 4, u->coin.coinbase);
        bk_table_str(t, 5, u->coin.script_len ? txt + r->script_off : "", 2 * (size_t)u->coin.script_len);
        bk_table_str(t, 6, names.name[r->type], names.len[r->type]);
        if (r->addr_len) bk_table_str(t, 7, txt + r->addr_off, r->addr_len);
        else bk_table_null(t, 7);
        bk_table_str(t, 8, txt + r->desc_off, r->desc_len);
        bk_status st = bk_table_end_row(t, err);
        if (st != BK_OK) return st;
    }
    return BK_OK;
}
