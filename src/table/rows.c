/* The four Bitcoin tables (blockkit/table.h, docs/export.md): columns and
 * one block's rows. Script text comes from the same functions Core-exact
 * JSON uses (asm, type, address, descriptor), amounts are satoshis. */
#include <blockkit/json.h>
#include <blockkit/script.h>
#include <blockkit/blockstats.h>
#include <blockkit/silentpay.h>
#include <blockkit/table.h>

#include "bitcoin/script_internal.h"
#include "json/json_internal.h"
#include "parquet/writer_internal.h"
#include "profile_internal.h"

#include <pthread.h>
#include <stdio.h>

#define STR BK_PQ_STRING
#define I64 BK_PQ_INT64
#define TS BK_PQ_TIMESTAMP_MICROS
#define BOOL BK_PQ_BOOLEAN
#define OPT BK_PQ_OPTIONAL
#define DICT BK_PQ_DICT
#define NOMM BK_PQ_NO_MINMAX

enum {
    B_HASH, B_SIZE, B_STRIPPED_SIZE, B_WEIGHT, B_NUMBER, B_VERSION, B_MERKLE_ROOT, B_TIMESTAMP, B_NONCE, B_BITS,
    B_COINBASE_PARAM, B_TRANSACTION_COUNT, B_PREVIOUS_BLOCK_HASH, B_MEDIAN_TIME, B_CHAINWORK, B_INPUT_COUNT,
    B_OUTPUT_COUNT, B_INPUT_VALUE, B_OUTPUT_VALUE, B_FEE, B_NCOLS
};
static const bk_pq_column BLOCK_COLS[B_NCOLS] = {
    {"hash", STR, 0},
    {"size", I64, 0},
    {"stripped_size", I64, 0},
    {"weight", I64, 0},
    {"number", I64, 0},
    {"version", I64, 0},
    {"merkle_root", STR, 0},
    {"timestamp", TS, 0},
    {"nonce", I64, 0},
    {"bits", STR, 0},
    {"coinbase_param", STR, NOMM},
    {"transaction_count", I64, 0},
    {"previous_block_hash", STR, OPT},
    {"median_time", TS, OPT},
    {"chainwork", STR, OPT},
    {"input_count", I64, 0},
    {"output_count", I64, 0},
    {"input_value", I64, OPT},
    {"output_value", I64, 0},
    {"fee", I64, OPT},
};

enum {
    T_HASH, T_WTXID, T_SIZE, T_VIRTUAL_SIZE, T_WEIGHT, T_VERSION, T_LOCK_TIME, T_BLOCK_HASH, T_BLOCK_NUMBER,
    T_BLOCK_TIMESTAMP, T_INDEX, T_INPUT_COUNT, T_OUTPUT_COUNT, T_INPUT_VALUE, T_OUTPUT_VALUE, T_IS_COINBASE, T_FEE,
    T_NCOLS
};
static const bk_pq_column TX_COLS[T_NCOLS] = {
    {"hash", STR, 0},
    {"wtxid", STR, 0},
    {"size", I64, 0},
    {"virtual_size", I64, 0},
    {"weight", I64, 0},
    {"version", I64, 0},
    {"lock_time", I64, 0},
    {"block_hash", STR, DICT},
    {"block_number", I64, DICT},
    {"block_timestamp", TS, DICT},
    {"index", I64, 0},
    {"input_count", I64, 0},
    {"output_count", I64, 0},
    {"input_value", I64, OPT},
    {"output_value", I64, 0},
    {"is_coinbase", BOOL, 0},
    {"fee", I64, OPT},
};

enum {
    I_TRANSACTION_HASH, I_TRANSACTION_INDEX, I_BLOCK_HASH, I_BLOCK_NUMBER, I_BLOCK_TIMESTAMP, I_INDEX,
    I_SPENT_TRANSACTION_HASH, I_SPENT_OUTPUT_INDEX, I_SCRIPT_ASM, I_SCRIPT_HEX, I_SEQUENCE, I_WITNESS,
    I_IS_COINBASE, I_VALUE, I_TYPE, I_ADDRESS, I_DESC, I_SPENT_BLOCK_NUMBER, I_SPENT_IS_COINBASE, I_NCOLS
};
static const bk_pq_column IN_COLS[I_NCOLS] = {
    {"transaction_hash", STR, DICT},
    {"transaction_index", I64, 0},
    {"block_hash", STR, DICT},
    {"block_number", I64, DICT},
    {"block_timestamp", TS, DICT},
    {"index", I64, 0},
    {"spent_transaction_hash", STR, OPT},
    {"spent_output_index", I64, OPT},
    {"script_asm", STR, OPT | NOMM},
    {"script_hex", STR, NOMM},
    {"sequence", I64, 0},
    {"witness", STR, BK_PQ_LIST},
    {"is_coinbase", BOOL, 0},
    {"value", I64, OPT},
    {"type", STR, OPT | DICT},
    {"address", STR, OPT},
    {"desc", STR, OPT | NOMM},
    {"spent_block_number", I64, OPT},
    {"spent_is_coinbase", BOOL, OPT},
};

enum {
    O_TRANSACTION_HASH, O_TRANSACTION_INDEX, O_BLOCK_HASH, O_BLOCK_NUMBER, O_BLOCK_TIMESTAMP, O_INDEX, O_SCRIPT_ASM,
    O_SCRIPT_HEX, O_TYPE, O_ADDRESS, O_DESC, O_VALUE, O_NCOLS
};
static const bk_pq_column OUT_COLS[O_NCOLS] = {
    {"transaction_hash", STR, DICT},
    {"transaction_index", I64, 0},
    {"block_hash", STR, DICT},
    {"block_number", I64, DICT},
    {"block_timestamp", TS, DICT},
    {"index", I64, 0},
    {"script_asm", STR, NOMM},
    {"script_hex", STR, NOMM},
    {"type", STR, DICT},
    {"address", STR, OPT},
    {"desc", STR, NOMM},
    {"value", I64, 0},
};

static const char *const DS_NAMES[BK_DS_COUNT_] = {"blocks",      "transactions", "inputs",
                                                    "outputs",     "block_stats",  "block_filters",
                                                    "sp_tweaks",   "sp_outputs"};

/* sp_tweaks / sp_outputs: BIP352 (docs/silentpay.md). */
enum { SPT_HEIGHT, SPT_BLOCK_HASH, SPT_TX_INDEX, SPT_TXID, SPT_TWEAK, SPT_NCOLS };
static const bk_pq_column SP_TWEAK_COLS[SPT_NCOLS] = {
    {"height", I64, DICT},
    {"block_hash", STR, DICT},
    {"tx_index", I64, 0},
    {"txid", STR, 0},
    {"tweak", STR, 0},
};
enum { SPO_HEIGHT, SPO_TXID, SPO_VOUT, SPO_PUBKEY, SPO_VALUE, SPO_NCOLS };
static const bk_pq_column SP_OUTPUT_COLS[SPO_NCOLS] = {
    {"height", I64, DICT},
    {"txid", STR, 0},
    {"vout", I64, 0},
    {"pubkey", STR, 0},
    {"value", I64, 0},
};

typedef struct sp_rows_ctx {
    bk_table_writer *tweaks, *outputs;
    int64_t height;
    const uint8_t *hash;
} sp_rows_ctx;

static bk_status sp_row(void *vctx, const bk_block *b, const bk_sp_tx *t, bk_error *err)
{
    (void)b;
    sp_rows_ctx *c = vctx;
    bk_status st;
    if (c->tweaks) {
        bk_table_int(c->tweaks, SPT_HEIGHT, c->height);
        bk_table_hex(c->tweaks, SPT_BLOCK_HASH, c->hash, 32, 1);
        bk_table_int(c->tweaks, SPT_TX_INDEX, t->tx_index);
        bk_table_hex(c->tweaks, SPT_TXID, t->txid, 32, 1);
        bk_table_hex(c->tweaks, SPT_TWEAK, t->tweak.tweak, 33, 0);
        if ((st = bk_table_end_row(c->tweaks, err)) != BK_OK) return st;
    }
    if (c->outputs) {
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, t->tx);
        while (bk_txout_next(&oi, &o)) {
            if (!bk_sp_is_taproot(o.script, o.script_len)) continue;
            bk_table_int(c->outputs, SPO_HEIGHT, c->height);
            bk_table_hex(c->outputs, SPO_TXID, t->txid, 32, 1);
            bk_table_int(c->outputs, SPO_VOUT, oi.index - 1);
            bk_table_hex(c->outputs, SPO_PUBKEY, o.script + 2, 32, 0);
            bk_table_int(c->outputs, SPO_VALUE, o.value);
            if ((st = bk_table_end_row(c->outputs, err)) != BK_OK) return st;
        }
    }
    return BK_OK;
}

bk_status bk_table_sp_rows(bk_table_writer *tweaks, bk_table_writer *outputs, const bk_block *b,
                           const bk_block_undo *undo, int64_t height, const uint8_t hash[32], bk_sp_scratch *s,
                           bk_error *err)
{
    if (!undo || (!tweaks && !outputs)) return BK_OK; /* a coinbase-only block: nothing eligible */
    sp_rows_ctx c = {tweaks, outputs, height, hash};
    return bk_sp_block_each(s, b, undo, NULL, sp_row, &c, NULL, err);
}

/* block_filters: Core's getblockfilter result per block (docs/filters.md). */
enum { F_HEIGHT, F_HASH, F_FILTER, F_HEADER, F_NCOLS };
static const bk_pq_column FILTER_COLS[F_NCOLS] = {
    {"height", I64, 0},
    {"hash", STR, 0},
    {"filter", STR, NOMM},
    {"header", STR, OPT},
};

bk_status bk_table_block_filter_row(bk_table_writer *t, int64_t height, const uint8_t hash[32], const uint8_t *filter,
                                    size_t len, const uint8_t *header, bk_error *err)
{
    bk_table_int(t, F_HEIGHT, height);
    bk_table_hex(t, F_HASH, hash, 32, 1);
    bk_table_hex(t, F_FILTER, filter, len, 0);
    if (header) bk_table_hex(t, F_HEADER, header, 32, 1);
    else bk_table_null(t, F_HEADER);
    return bk_table_end_row(t, err);
}

/* block_stats: getblockstats' 31 statistics as columns, in Core's key order,
 * named as Core names them; feerate_percentiles as five columns
 * (feerate_percentile_10 .. _90); blockhash in display order. Every column
 * but height and blockhash is null for a block exported without undo data
 * (--allow-missing-undo), as Core has no stats for it. Built once from
 * bk_stat_fields (blockstats.h), the one description of the struct. */
static bk_pq_column STATS_COLS[BK_STAT_COUNT + BK_STATS_PERCENTILES];
static char STATS_NAMES[BK_STATS_PERCENTILES][32];
static size_t STATS_NCOLS;

static void stats_cols_build(void)
{
    static const int pct[BK_STATS_PERCENTILES] = {10, 25, 50, 75, 90};
    const bk_stat_field *f = bk_stat_fields();
    size_t n = 0;
    for (int i = 0; i < BK_STAT_COUNT; i++) {
        if (f[i].kind == BK_STAT_KIND_PERCENTILES) {
            for (int k = 0; k < BK_STATS_PERCENTILES; k++) {
                snprintf(STATS_NAMES[k], sizeof STATS_NAMES[k], "feerate_percentile_%d", pct[k]);
                STATS_COLS[n++] = (bk_pq_column){STATS_NAMES[k], BK_PQ_INT64, BK_PQ_OPTIONAL};
            }
        } else if (f[i].kind == BK_STAT_KIND_HASH) {
            STATS_COLS[n++] = (bk_pq_column){f[i].name, BK_PQ_STRING, 0};
        } else {
            int key = !strcmp(f[i].name, "height");
            STATS_COLS[n++] = (bk_pq_column){f[i].name, BK_PQ_INT64, key ? 0u : BK_PQ_OPTIONAL};
        }
    }
    STATS_NCOLS = n;
}

static pthread_once_t stats_cols_once = PTHREAD_ONCE_INIT;
static void stats_cols_init(void) { pthread_once(&stats_cols_once, stats_cols_build); }

bk_status bk_table_block_stats_row(bk_table_writer *t, const bk_block_stats *st, int64_t height,
                                   const uint8_t hash[32], bk_error *err)
{
    const bk_stat_field *f = bk_stat_fields();
    size_t col = 0;
    for (int i = 0; i < BK_STAT_COUNT; i++) {
        const uint8_t *base = (const uint8_t *)st;
        if (f[i].kind == BK_STAT_KIND_PERCENTILES) {
            for (int k = 0; k < BK_STATS_PERCENTILES; k++, col++) {
                if (!st) bk_table_null(t, col);
                else bk_table_int(t, col, ((const int64_t *)(base + f[i].offset))[k]);
            }
        } else if (f[i].kind == BK_STAT_KIND_HASH) {
            bk_table_hex(t, col++, hash, 32, 1);
        } else if (!strcmp(f[i].name, "height")) {
            bk_table_int(t, col++, height);
        } else {
            if (!st) bk_table_null(t, col++);
            else bk_table_int(t, col++, *(const int64_t *)(base + f[i].offset));
        }
    }
    return bk_table_end_row(t, err);
}

const char *bk_dataset_name(bk_dataset ds) { return ds < BK_DS_COUNT_ ? DS_NAMES[ds] : "?"; }

bk_status bk_dataset_parse(const char *name, bk_dataset *out)
{
    for (int i = 0; i < BK_DS_COUNT_; i++)
        if (name && !strcmp(name, DS_NAMES[i])) {
            *out = (bk_dataset)i;
            return BK_OK;
        }
    return BK_ERR_ARG;
}

const bk_pq_column *bk_dataset_columns(bk_dataset ds, size_t *n_out)
{
    switch (ds) {
    case BK_DS_BLOCKS: *n_out = B_NCOLS; return BLOCK_COLS;
    case BK_DS_TRANSACTIONS: *n_out = T_NCOLS; return TX_COLS;
    case BK_DS_INPUTS: *n_out = I_NCOLS; return IN_COLS;
    case BK_DS_OUTPUTS: *n_out = O_NCOLS; return OUT_COLS;
    case BK_DS_BLOCK_STATS: stats_cols_init(); *n_out = STATS_NCOLS; return STATS_COLS;
    case BK_DS_BLOCK_FILTERS: *n_out = F_NCOLS; return FILTER_COLS;
    case BK_DS_SP_TWEAKS: *n_out = SPT_NCOLS; return SP_TWEAK_COLS;
    case BK_DS_SP_OUTPUTS: *n_out = SPO_NCOLS; return SP_OUTPUT_COLS;
    default: *n_out = 0; return NULL;
    }
}

/* ---- profiles and column selection (docs/export.md "Profiles and columns") ---- */

/* What --profile lean makes of a column: a hash in display order becomes
 * FIXED_LEN_BYTE_ARRAY(32) (chainwork: its big-endian bytes), a script, a
 * witness item, the coinbase or a filter BYTE_ARRAY, the text derived from
 * a script (asm, desc) is dropped. The one table of the rule, utxos
 * included (profile_internal.h). */
int bk_table_lean_kind_(const char *dataset, const char *column)
{
    static const struct {
        const char *ds, *name;
        int kind;
    } k[] = {
        {"blocks", "hash", BK_LEAN_HASH},
        {"blocks", "merkle_root", BK_LEAN_HASH},
        {"blocks", "previous_block_hash", BK_LEAN_HASH},
        {"blocks", "chainwork", BK_LEAN_HASH},
        {"blocks", "coinbase_param", BK_LEAN_BYTES},
        {"transactions", "hash", BK_LEAN_HASH},
        {"transactions", "wtxid", BK_LEAN_HASH},
        {"transactions", "block_hash", BK_LEAN_HASH},
        {"inputs", "transaction_hash", BK_LEAN_HASH},
        {"inputs", "block_hash", BK_LEAN_HASH},
        {"inputs", "spent_transaction_hash", BK_LEAN_HASH},
        {"inputs", "script_asm", BK_LEAN_DROP},
        {"inputs", "script_hex", BK_LEAN_BYTES},
        {"inputs", "witness", BK_LEAN_BYTES},
        {"inputs", "desc", BK_LEAN_DROP},
        {"outputs", "transaction_hash", BK_LEAN_HASH},
        {"outputs", "block_hash", BK_LEAN_HASH},
        {"outputs", "script_asm", BK_LEAN_DROP},
        {"outputs", "script_hex", BK_LEAN_BYTES},
        {"outputs", "desc", BK_LEAN_DROP},
        {"block_stats", "blockhash", BK_LEAN_HASH},
        {"block_filters", "hash", BK_LEAN_HASH},
        {"block_filters", "filter", BK_LEAN_BYTES},
        {"block_filters", "header", BK_LEAN_HASH},
        {"sp_tweaks", "block_hash", BK_LEAN_HASH},
        {"sp_tweaks", "txid", BK_LEAN_HASH},
        {"sp_tweaks", "tweak", BK_LEAN_BYTES},
        {"sp_outputs", "txid", BK_LEAN_HASH},
        {"sp_outputs", "pubkey", BK_LEAN_BYTES},
        {"utxos", "txid", BK_LEAN_HASH},
        {"utxos", "script_hex", BK_LEAN_BYTES},
        {"utxos", "desc", BK_LEAN_DROP},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(k[i].ds, dataset) && !strcmp(k[i].name, column)) return k[i].kind;
    return BK_LEAN_KEEP;
}

bk_pq_column bk_table_lean_column_(bk_pq_column c, int kind)
{
    if (kind == BK_LEAN_HASH) c.type = BK_PQ_FIXED32;
    else if (kind == BK_LEAN_BYTES) c.type = BK_PQ_BYTES;
    return c;
}

static int lean_kind(bk_dataset ds, const char *name) { return bk_table_lean_kind_(bk_dataset_name(ds), name); }

bk_status bk_table_profile_parse(const char *name, bk_table_profile *out)
{
    if (name && !strcmp(name, "default")) *out = BK_PROFILE_DEFAULT;
    else if (name && !strcmp(name, "lean")) *out = BK_PROFILE_LEAN;
    else return BK_ERR_ARG;
    return BK_OK;
}

const char *bk_table_profile_name(bk_table_profile p) { return p == BK_PROFILE_LEAN ? "lean" : "default"; }

/* The next "dataset.column" entry of a list: 1 with its parts, 0 at the end. */
static int list_next(const char **pp, char *ds, size_t dcap, char *col, size_t ccap, int *bad)
{
    const char *p = *pp;
    *bad = 0;
    if (!p || !*p) return 0;
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    *pp = e ? e + 1 : p + n;
    const char *dot = memchr(p, '.', n);
    if (!dot || dot == p || dot == p + n - 1 || (size_t)(dot - p) >= dcap || (size_t)(p + n - dot - 1) >= ccap) {
        *bad = 1;
        snprintf(col, ccap, "%.*s", (int)(n < ccap - 1 ? n : ccap - 1), p);
        return 1;
    }
    memcpy(ds, p, (size_t)(dot - p));
    ds[dot - p] = 0;
    memcpy(col, dot + 1, (size_t)(p + n - dot - 1));
    col[p + n - dot - 1] = 0;
    return 1;
}

/* Whether list names ds (at all) and ds.col. */
static void list_has(const char *list, bk_dataset ds, const char *col, int *names_ds, int *names_col)
{
    char d[32], c[64];
    int bad;
    *names_ds = *names_col = 0;
    const char *p = list;
    while (list_next(&p, d, sizeof d, c, sizeof c, &bad)) {
        if (bad || strcmp(d, bk_dataset_name(ds)) != 0) continue;
        *names_ds = 1;
        if (!strcmp(c, col)) *names_col = 1;
    }
}

bk_status bk_table_columns_check(const char *list, bk_table_profile prof, bk_error *err)
{
    char d[32], c[64];
    int bad;
    const char *p = list;
    while (list_next(&p, d, sizeof d, c, sizeof c, &bad)) {
        bk_dataset ds;
        if (bad) return bk_error_set(err, BK_ERR_ARG, 0, "'%s' is not dataset.column", c);
        if (bk_dataset_parse(d, &ds) != BK_OK) return bk_error_set(err, BK_ERR_ARG, 0, "no dataset '%s' (in %s.%s)", d, d, c);
        size_t n;
        const bk_pq_column *cols = bk_dataset_columns(ds, &n);
        size_t k = 0;
        while (k < n && strcmp(cols[k].name, c)) k++;
        if (k == n) return bk_error_set(err, BK_ERR_ARG, 0, "%s has no column '%s'", d, c);
        if (prof == BK_PROFILE_LEAN && lean_kind(ds, c) == BK_LEAN_DROP)
            return bk_error_set(err, BK_ERR_ARG, 0, "%s.%s is not in the lean profile (it is derived from script_hex)", d, c);
    }
    return BK_OK;
}

bk_status bk_table_schema_build(bk_table_schema *s, bk_dataset ds, bk_table_profile prof, const char *columns,
                                const char *exclude, bk_error *err)
{
    memset(s, 0, sizeof *s);
    s->dataset = ds;
    s->profile = prof;
    size_t n;
    const bk_pq_column *cols = bk_dataset_columns(ds, &n);
    if (!cols || n > BK_TABLE_COLS_MAX) return bk_error_set(err, BK_ERR_ARG, 0, "no dataset %d", (int)ds);
    bk_status st;
    if ((columns && (st = bk_table_columns_check(columns, prof, err)) != BK_OK) ||
        (exclude && (st = bk_table_columns_check(exclude, BK_PROFILE_DEFAULT, err)) != BK_OK))
        return st;
    s->nmap = n;
    for (size_t k = 0; k < n; k++) {
        int kind = prof == BK_PROFILE_LEAN ? lean_kind(ds, cols[k].name) : BK_LEAN_KEEP;
        int names_ds = 0, named = 0, ex_ds, excluded = 0;
        if (columns) list_has(columns, ds, cols[k].name, &names_ds, &named);
        if (exclude) list_has(exclude, ds, cols[k].name, &ex_ds, &excluded);
        if (kind == BK_LEAN_DROP || (names_ds && !named) || excluded) {
            s->map[k] = -1;
            continue;
        }
        s->map[k] = (int16_t)s->ncols;
        s->cols[s->ncols++] = bk_table_lean_column_(cols[k], kind);
    }
    if (!s->ncols)
        return bk_error_set(err, BK_ERR_ARG, 0, "no column of %s is left to write", bk_dataset_name(ds));
    return BK_OK;
}

void bk_table_scratch_init(bk_table_scratch *s, const bk_allocator *alloc)
{
    memset(s, 0, sizeof *s);
    s->alloc = alloc;
}

void bk_table_scratch_free(bk_table_scratch *s)
{
    bk_free(s->alloc, s->ids, s->ids_cap);
    s->ids = NULL;
    s->ids_cap = 0;
}

/* The bk_table_* calls of the rows below, with Parquet's straight to the
 * writer (one call per value instead of two). Columns are the dataset's
 * full schema: a selection (bk_table_set_columns) maps them here for
 * Parquet, in bk_table_* for the text formats. */
#define R_PQ_COL(t, col)                                                             \
    do {                                                                             \
        if ((t)->map && ((col) = bk_table_col_((t), (col))) == SIZE_MAX) return;     \
    } while (0)
static inline __attribute__((always_inline)) void r_int(bk_table_writer *t, size_t col, int64_t v)
{
    if (!t->pq) {
        bk_table_int(t, col, v);
        return;
    }
    R_PQ_COL(t, col);
    if (!bk_pq_i64_short_(t->pq, col, v)) bk_pq_i64(t->pq, col, v);
}
static inline __attribute__((always_inline)) void r_str(bk_table_writer *t, size_t col, const char *s, size_t n)
{
    if (!t->pq) {
        bk_table_str(t, col, s, n);
        return;
    }
    R_PQ_COL(t, col);
    if (!bk_pq_str_short_(t->pq, col, s, n)) bk_pq_str(t->pq, col, s, n);
}
static inline __attribute__((always_inline)) void r_null(bk_table_writer *t, size_t col)
{
    if (!t->pq) {
        bk_table_null(t, col);
        return;
    }
    R_PQ_COL(t, col);
    if (!bk_pq_null_short_(t->pq, col)) bk_pq_null(t->pq, col);
}
static inline __attribute__((always_inline)) void r_bool(bk_table_writer *t, size_t col, int v)
{
    if (!t->pq) {
        bk_table_bool(t, col, v);
        return;
    }
    R_PQ_COL(t, col);
    if (!bk_pq_bool_short_(t->pq, col, v)) bk_pq_bool(t->pq, col, v);
}
/* 32 bytes last to first (a hash in Core's display order). */
static inline void rev32(uint8_t out[32], const uint8_t in[32])
{
    for (int i = 0; i < 4; i++) {
        uint64_t x;
        memcpy(&x, in + 8 * i, 8);
        x = __builtin_bswap64(x);
        memcpy(out + 24 - 8 * i, &x, 8);
    }
}

/* Whether the column is FIXED32 in this Parquet writer (--profile lean): its mapped index, else SIZE_MAX. */
static inline size_t r_fixed32(const bk_table_writer *t, size_t col)
{
    if (!t->pq) return SIZE_MAX;
    size_t c = bk_table_col_(t, col);
    return c != SIZE_MAX && t->cols[c].type == BK_PQ_FIXED32 ? c : SIZE_MAX;
}

/* A hash column: its display-order hex (computed once per block or tx),
 * or in a FIXED32 column the bytes in that order (disp, computed once
 * too). */
static inline __attribute__((always_inline)) void r_hash(bk_table_writer *t, size_t col, const uint8_t disp[32],
                                                         const char hex[64])
{
    size_t c = r_fixed32(t, col);
    if (c == SIZE_MAX) {
        r_str(t, col, hex, 64);
        return;
    }
    if (!bk_pq_fixed32_short_(t->pq, c, disp)) bk_pq_bin(t->pq, c, disp, 32, 0);
}

/* A hash given in internal order (a prevout's txid): hex in display order,
 * or its bytes in that order. */
static inline __attribute__((always_inline)) void r_hash_rev(bk_table_writer *t, size_t col, const uint8_t raw[32])
{
    size_t c = r_fixed32(t, col);
    if (c == SIZE_MAX) {
        bk_table_hex(t, col, raw, 32, 1);
        return;
    }
    uint8_t d[32];
    rev32(d, raw);
    if (!bk_pq_fixed32_short_(t->pq, c, d)) bk_pq_bin(t->pq, c, d, 32, 0);
}

/* A hash column of a later row (disp/hex as r_hash takes them): its
 * dictionary slot asked of the cache now (bk_pq_dict_prefetch_). */
static inline void r_dict_prefetch(const bk_table_writer *t, size_t col, const uint8_t disp[32], const char hex[64])
{
    if (!t || !t->pq) return;
    size_t c = bk_table_col_(t, col);
    if (c == SIZE_MAX) return;
    if (t->cols[c].type == BK_PQ_FIXED32) bk_pq_dict_prefetch_(t->pq, c, disp, 32);
    else bk_pq_dict_prefetch_(t->pq, c, (const uint8_t *)hex, 64);
}

/* The script columns shared by outputs and spent outputs: type, address, desc. */
static void script_cols(bk_table_writer *t, size_t c_type, size_t c_addr, size_t c_desc, const uint8_t *s, size_t n,
                        bk_network net, bk_script_cursors_ *cur)
{
    bk_script_info info;
    if (bk_script_info_cursors_(s, n, net, cur, &info) != BK_OK) {
        r_null(t, c_type); /* unreachable for a known network; keeps the row whole */
        r_null(t, c_addr);
        r_null(t, c_desc);
        return;
    }
    const char *ty = bk_script_type_name(info.sol.type);
    r_str(t, c_type, ty, strlen(ty));
    /* Core: ExtractDestination gives no address for PUBKEY. */
    if (info.sol.type == BK_SCRIPT_PUBKEY) info.address_len = 0;
    if (c_addr < c_desc) {
        if (info.address_len) r_str(t, c_addr, info.address, info.address_len);
        else r_null(t, c_addr);
    }
    if (bk_table_wants(t, c_desc)) {
        bk_script_info_descriptor(bk_table_str_open(t, c_desc), s, n, &info);
        bk_table_str_close(t, c_desc);
    }
    if (c_addr > c_desc) {
        if (info.address_len) r_str(t, c_addr, info.address, info.address_len);
        else r_null(t, c_addr);
    }
}

static bk_status row_done(bk_table_writer *t, bk_error *err) { return bk_table_end_row(t, err); }

/* What every row of one block shares: the block's identity, its
 * transactions' ids and value sums, the undo walk and the script cursors. */
typedef struct block_ctx {
    const bk_block *b;
    const bk_block_undo *undo;
    const bk_table_block_info *info;
    uint8_t *txids, *wtxids;
    int64_t *sums; /* in, out per tx */
    uint8_t bdisp[32];
    char bhex[64];
    int64_t btime;
    uint64_t n_in, n_out;
    int64_t in_total, out_total, fee_total;
    bk_undo_iter ui;
    bk_script_cursors_ cur;
    int ask_in, asm_out, desc_out; /* the derived text columns, when kept */
} block_ctx;

/* Room in the scratch for n transactions' txids, wtxids and sums. */
static bk_status rows_scratch(bk_table_scratch *s, size_t n, block_ctx *x, bk_error *err)
{
    size_t need = n * 80;
    if (need > s->ids_cap) {
        size_t cap = need + need / 4 + 1024;
        uint8_t *p = bk_realloc(s->alloc, s->ids, s->ids_cap, cap);
        if (!p) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (%zu transactions)", n);
        s->ids = p;
        s->ids_cap = cap;
    }
    x->txids = s->ids;
    x->wtxids = s->ids + 32 * n;
    x->sums = (int64_t *)(void *)(s->ids + 64 * n); /* 64n is 8-aligned */
    return BK_OK;
}

/* Sums: outputs of every tx, spent coins of every non-coinbase tx. */
static bk_status rows_sums(block_ctx *x, bk_error *err)
{
    const bk_block *b = x->b;
    if (x->undo) bk_undo_iter_init(&x->ui, x->undo);
    for (size_t i = 0; i < b->n_tx; i++) {
        const bk_tx *tx = &b->txs[i];
        x->n_in += tx->n_in;
        x->n_out += tx->n_out;
        int64_t os = 0, is = 0;
        bk_txout_iter oi;
        bk_txout o;
        bk_txout_iter_init(&oi, tx);
        while (bk_txout_next(&oi, &o)) os += o.value;
        if (i && x->undo) {
            uint32_t nc;
            bk_coin c;
            if (bk_undo_next_tx(&x->ui, &nc))
                while (nc-- && bk_undo_next_coin(&x->ui, &c)) is += c.value;
            /* Core: CHECK_NONFATAL(MoneyRange(fee)) - a fee outside [0, 21e6 BTC]
             * means the undo record is not this block's. */
            if (is - os < 0 || is - os > (int64_t)2100000000000000)
                return bk_error_set(err, BK_ERR_MISMATCH, 0,
                                    "undo data does not match block: fee out of range in tx %zu (inputs %lld, "
                                    "outputs %lld)", i, (long long)is, (long long)os);
            x->fee_total += is - os;
        }
        x->in_total += is;
        x->out_total += os;
        x->sums[2 * i] = is;
        x->sums[2 * i + 1] = os;
    }
    return BK_OK;
}

/* The block's row. */
static bk_status row_block(bk_table_writer *t, const block_ctx *x, bk_error *err)
{
    const bk_block *b = x->b;
    const bk_table_block_info *info = x->info;
    int have_undo = x->undo != NULL || b->n_tx == 1;
    char bits[9];
    snprintf(bits, sizeof bits, "%08x", b->header.bits);
    r_hash(t, B_HASH, x->bdisp, x->bhex);
    r_int(t, B_SIZE, (int64_t)b->size);
    r_int(t, B_STRIPPED_SIZE, (int64_t)b->stripped_size);
    r_int(t, B_WEIGHT, (int64_t)bk_block_weight(b));
    r_int(t, B_NUMBER, info->height);
    r_int(t, B_VERSION, b->header.version);
    bk_table_hex(t, B_MERKLE_ROOT, b->header.merkle_root, 32, 1);
    r_int(t, B_TIMESTAMP, x->btime);
    r_int(t, B_NONCE, b->header.nonce);
    r_str(t, B_BITS, bits, 8);
    bk_txin_iter ii;
    bk_txin cin;
    bk_txin_iter_init(&ii, &b->txs[0]);
    if (bk_txin_next(&ii, &cin)) bk_table_hex(t, B_COINBASE_PARAM, cin.script_sig, cin.script_sig_len, 0);
    else r_str(t, B_COINBASE_PARAM, "", 0);
    r_int(t, B_TRANSACTION_COUNT, (int64_t)b->n_tx);
    static const uint8_t zero[32];
    if (memcmp(b->header.prev_hash, zero, 32)) bk_table_hex(t, B_PREVIOUS_BLOCK_HASH, b->header.prev_hash, 32, 1);
    else r_null(t, B_PREVIOUS_BLOCK_HASH);
    if (info->mediantime >= 0) r_int(t, B_MEDIAN_TIME, info->mediantime * 1000000);
    else r_null(t, B_MEDIAN_TIME);
    if (info->chainwork) bk_table_hex(t, B_CHAINWORK, info->chainwork, 32, 0);
    else r_null(t, B_CHAINWORK);
    r_int(t, B_INPUT_COUNT, (int64_t)x->n_in);
    r_int(t, B_OUTPUT_COUNT, (int64_t)x->n_out);
    if (have_undo) r_int(t, B_INPUT_VALUE, x->in_total);
    else r_null(t, B_INPUT_VALUE);
    r_int(t, B_OUTPUT_VALUE, x->out_total);
    if (have_undo) r_int(t, B_FEE, x->fee_total);
    else r_null(t, B_FEE);
    return row_done(t, err);
}

/* Transaction i's row (txdisp/txhex: its txid in display order and hex). */
static bk_status row_tx(bk_table_writer *tt, const block_ctx *x, size_t i, const uint8_t txdisp[32],
                        const char txhex[64], bk_error *err)
{
    const bk_tx *tx = &x->b->txs[i];
    int cb = i == 0;
    r_hash(tt, T_HASH, txdisp, txhex);
    bk_table_hex(tt, T_WTXID, x->wtxids + 32 * i, 32, 1);
    r_int(tt, T_SIZE, tx->size);
    r_int(tt, T_VIRTUAL_SIZE, bk_tx_vsize(tx));
    r_int(tt, T_WEIGHT, bk_tx_weight(tx));
    r_int(tt, T_VERSION, tx->version);
    r_int(tt, T_LOCK_TIME, tx->locktime);
    r_hash(tt, T_BLOCK_HASH, x->bdisp, x->bhex);
    r_int(tt, T_BLOCK_NUMBER, x->info->height);
    r_int(tt, T_BLOCK_TIMESTAMP, x->btime);
    r_int(tt, T_INDEX, (int64_t)i);
    r_int(tt, T_INPUT_COUNT, tx->n_in);
    r_int(tt, T_OUTPUT_COUNT, tx->n_out);
    if (!cb && x->undo) r_int(tt, T_INPUT_VALUE, x->sums[2 * i]);
    else r_null(tt, T_INPUT_VALUE);
    r_int(tt, T_OUTPUT_VALUE, x->sums[2 * i + 1]);
    r_bool(tt, T_IS_COINBASE, cb);
    if (!cb && x->undo) r_int(tt, T_FEE, x->sums[2 * i] - x->sums[2 * i + 1]);
    else r_null(tt, T_FEE);
    return row_done(tt, err);
}

/* The first six columns of an input or output row, where it sits:
 * transaction i (txdisp/txhex) of the block, its index there. */
_Static_assert(I_TRANSACTION_HASH == 0 && I_TRANSACTION_INDEX == 1 && I_BLOCK_HASH == 2 && I_BLOCK_NUMBER == 3 &&
                   I_BLOCK_TIMESTAMP == 4 && I_INDEX == 5,
               "inputs: the place columns first");
_Static_assert(O_TRANSACTION_HASH == 0 && O_TRANSACTION_INDEX == 1 && O_BLOCK_HASH == 2 && O_BLOCK_NUMBER == 3 &&
                   O_BLOCK_TIMESTAMP == 4 && O_INDEX == 5,
               "outputs: the place columns first");
static void row_place(bk_table_writer *t, const block_ctx *x, size_t i, const uint8_t txdisp[32],
                      const char txhex[64], int64_t index)
{
    r_hash(t, 0, txdisp, txhex);
    r_int(t, 1, (int64_t)i);
    r_hash(t, 2, x->bdisp, x->bhex);
    r_int(t, 3, x->info->height);
    r_int(t, 4, x->btime);
    r_int(t, 5, index);
}

/* Transaction i's input rows, each with its spent coin from the undo walk
 * while coins says the walk has them (ncoins left). */
static bk_status rows_inputs(bk_table_writer *ti, block_ctx *x, size_t i, const uint8_t txdisp[32],
                             const char txhex[64], int coins, uint32_t ncoins, bk_error *err)
{
    const bk_table_block_info *info = x->info;
    int cb = i == 0;
    bk_txin_iter ii;
    bk_txin in;
    bk_txin_iter_init(&ii, &x->b->txs[i]);
    while (bk_txin_next(&ii, &in)) {
        row_place(ti, x, i, txdisp, txhex, ii.index - 1);
        if (cb) {
            r_null(ti, I_SPENT_TRANSACTION_HASH);
            r_null(ti, I_SPENT_OUTPUT_INDEX);
            r_null(ti, I_SCRIPT_ASM);
        } else {
            r_hash_rev(ti, I_SPENT_TRANSACTION_HASH, in.prev_txid);
            r_int(ti, I_SPENT_OUTPUT_INDEX, in.prev_index);
            if (x->ask_in) {
                bk_script_asm(bk_table_str_open(ti, I_SCRIPT_ASM), in.script_sig, in.script_sig_len, 1);
                bk_table_str_close(ti, I_SCRIPT_ASM);
            }
        }
        bk_table_hex(ti, I_SCRIPT_HEX, in.script_sig, in.script_sig_len, 0);
        r_int(ti, I_SEQUENCE, in.sequence);
        bk_table_list_begin(ti, I_WITNESS);
        bk_witness_iter wi;
        const uint8_t *item;
        uint32_t ilen;
        bk_witness_iter_init(&wi, &in);
        while (bk_witness_next(&wi, &item, &ilen)) bk_table_hex(ti, I_WITNESS, item, ilen, 0);
        bk_table_list_end(ti, I_WITNESS);
        r_bool(ti, I_IS_COINBASE, cb);
        bk_coin c;
        if (coins && ncoins && bk_undo_next_coin(&x->ui, &c)) {
            ncoins--;
            r_int(ti, I_VALUE, c.value);
            script_cols(ti, I_TYPE, I_ADDRESS, I_DESC, bk_coin_script(&c), c.script_len, info->net, &x->cur);
            r_int(ti, I_SPENT_BLOCK_NUMBER, c.height);
            r_bool(ti, I_SPENT_IS_COINBASE, c.coinbase);
        } else {
            for (size_t k = I_VALUE; k <= I_SPENT_IS_COINBASE; k++) r_null(ti, k);
        }
        bk_status st = row_done(ti, err);
        if (st != BK_OK) return st;
    }
    return BK_OK;
}

/* Transaction i's output rows. */
static bk_status rows_outputs(bk_table_writer *to, block_ctx *x, size_t i, const uint8_t txdisp[32],
                              const char txhex[64], bk_error *err)
{
    const bk_table_block_info *info = x->info;
    bk_txout_iter oi;
    bk_txout o;
    bk_txout_iter_init(&oi, &x->b->txs[i]);
    while (bk_txout_next(&oi, &o)) {
        row_place(to, x, i, txdisp, txhex, oi.index - 1);
        if (x->asm_out) {
            bk_script_asm(bk_table_str_open(to, O_SCRIPT_ASM), o.script, o.script_len, 0);
            bk_table_str_close(to, O_SCRIPT_ASM);
        }
        bk_table_hex(to, O_SCRIPT_HEX, o.script, o.script_len, 0);
        /* type, address, desc: the order of the columns here */
        bk_script_info sinfo;
        if (bk_script_info_cursors_(o.script, o.script_len, info->net, &x->cur, &sinfo) != BK_OK)
            return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
        if (sinfo.sol.type == BK_SCRIPT_PUBKEY) sinfo.address_len = 0;
        const char *ty = bk_script_type_name(sinfo.sol.type);
        r_str(to, O_TYPE, ty, strlen(ty));
        if (sinfo.address_len) r_str(to, O_ADDRESS, sinfo.address, sinfo.address_len);
        else r_null(to, O_ADDRESS);
        if (x->desc_out) {
            bk_script_info_descriptor(bk_table_str_open(to, O_DESC), o.script, o.script_len, &sinfo);
            bk_table_str_close(to, O_DESC);
        }
        r_int(to, O_VALUE, o.value);
        bk_status st = row_done(to, err);
        if (st != BK_OK) return st;
    }
    return BK_OK;
}

bk_status bk_table_block_rows(bk_table_writer *const w[BK_DS_COUNT_], const bk_block *b, const bk_block_undo *undo,
                              const bk_table_block_info *info, bk_table_scratch *s, bk_error *err)
{
    if (!w || !b || !info || !s) return bk_error_set(err, BK_ERR_ARG, 0, "table rows: NULL argument");
    bk_status st;
    if (undo && (st = bk_block_undo_check(undo, b, err)) != BK_OK) return st;
    block_ctx x;
    memset(&x, 0, sizeof x);
    x.b = b;
    x.undo = undo;
    x.info = info;
    size_t n = b->n_tx;
    if ((st = rows_scratch(s, n, &x, err)) != BK_OK) return st;
    int need_ids = w[BK_DS_TRANSACTIONS] || w[BK_DS_INPUTS] || w[BK_DS_OUTPUTS];
    if (need_ids) bk_block_txids_wtxids(b, x.txids, x.wtxids);
    uint8_t bhash[32];
    if (info->hash) memcpy(bhash, info->hash, 32);
    else bk_block_hash(b, bhash);
    x.btime = (int64_t)b->header.time * 1000000;
    bk_hex_encode_rev(x.bhex, bhash, 32);
    rev32(x.bdisp, bhash);
    if ((st = rows_sums(&x, err)) != BK_OK) return st;
    if (w[BK_DS_BLOCKS] && (st = row_block(w[BK_DS_BLOCKS], &x, err)) != BK_OK) return st;
    if (!need_ids) return BK_OK;

    if (undo) bk_undo_iter_init(&x.ui, undo);
    bk_table_writer *tt = w[BK_DS_TRANSACTIONS], *ti = w[BK_DS_INPUTS], *to = w[BK_DS_OUTPUTS];
    /* Taproot keys decided in batches, in the order the rows take them
     * (per tx: spent outputs, then outputs; json_internal.h). */
    bk_script_cursors_init_(&x.cur, b, ti ? undo : NULL, info->net);
    /* the derived text columns, when kept (--profile lean drops them) */
    x.ask_in = ti && bk_table_wants(ti, I_SCRIPT_ASM);
    x.asm_out = to && bk_table_wants(to, O_SCRIPT_ASM);
    x.desc_out = to && bk_table_wants(to, O_DESC);
    /* the x-only key checks serve the descriptors alone */
    x.cur.skip_taproot = !x.desc_out && !(ti && bk_table_wants(ti, I_DESC));
    /* txid i's display bytes and hex in slot i & 1, made one transaction
     * ahead so the dictionary slots of the next transaction_hash are
     * loaded while this one's rows are written (r_dict_prefetch) */
    char txhexs[2][64];
    uint8_t txdisps[2][32];
    if (n) {
        bk_hex_encode_rev(txhexs[0], x.txids, 32);
        rev32(txdisps[0], x.txids);
    }
    for (size_t i = 0; i < n; i++) {
        const char *txhex = txhexs[i & 1];
        const uint8_t *txdisp = txdisps[i & 1];
        if (i + 1 < n) {
            const uint8_t *next = x.txids + 32 * (i + 1);
            char *nhex = txhexs[(i + 1) & 1];
            uint8_t *ndisp = txdisps[(i + 1) & 1];
            bk_hex_encode_rev(nhex, next, 32);
            rev32(ndisp, next);
            r_dict_prefetch(ti, I_TRANSACTION_HASH, ndisp, nhex);
            r_dict_prefetch(to, O_TRANSACTION_HASH, ndisp, nhex);
        }
        if (tt && (st = row_tx(tt, &x, i, txdisp, txhex, err)) != BK_OK) return st;
        uint32_t ncoins = 0;
        int coins = i != 0 && undo && bk_undo_next_tx(&x.ui, &ncoins);
        if (ti) {
            if ((st = rows_inputs(ti, &x, i, txdisp, txhex, coins, ncoins, err)) != BK_OK) return st;
        } else if (coins) {
            bk_coin c;
            while (ncoins-- && bk_undo_next_coin(&x.ui, &c)) {
            }
        }
        if (to && (st = rows_outputs(to, &x, i, txdisp, txhex, err)) != BK_OK) return st;
    }
    return BK_OK;
}
