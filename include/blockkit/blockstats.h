/* blockkit: Bitcoin Core's getblockstats for a decoded block and its undo
 * data (Core: src/rpc/blockchain.cpp getblockstats, CalculatePercentilesByWeight,
 * CalculateTruncatedMedian; docs/stats.md).
 *
 * The 31 statistics are computed with Core's integer arithmetic: fees and
 * feerates in satoshis, feerate = fee * 4 / weight truncated (sat/vB),
 * averages and medians truncated, percentiles by cumulative weight against
 * double-precision thresholds exactly as Core compares them; a UTXO's size
 * is its CTxOut serialization plus Core's PER_UTXO_OVERHEAD (41: outpoint,
 * height, coinbase flag, up to v31; 40 from v32, bitcoin/bitcoin#31449); the *_actual counts skip unspendable outputs (OP_RETURN
 * first byte or a script over 10000 bytes), the genesis block and the two
 * BIP30-repeat coinbases of mainnet (91842, 91880).
 *
 * bk_block_stats holds typed results (the struct a column export uses);
 * bk_json_block_stats (json.h) renders them as Core's RPC result, byte for byte.
 * After a scratch has seen the largest block, computing allocates nothing. */
#ifndef BLOCKKIT_BLOCKSTATS_H
#define BLOCKKIT_BLOCKSTATS_H

#include <blockkit/bitcoin.h>
#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The statistics, in the order Core pushes them into its full result. */
typedef enum bk_stat {
    BK_STAT_AVGFEE = 0,
    BK_STAT_AVGFEERATE,
    BK_STAT_AVGTXSIZE,
    BK_STAT_BLOCKHASH,
    BK_STAT_FEERATE_PERCENTILES,
    BK_STAT_HEIGHT,
    BK_STAT_INS,
    BK_STAT_MAXFEE,
    BK_STAT_MAXFEERATE,
    BK_STAT_MAXTXSIZE,
    BK_STAT_MEDIANFEE,
    BK_STAT_MEDIANTIME,
    BK_STAT_MEDIANTXSIZE,
    BK_STAT_MINFEE,
    BK_STAT_MINFEERATE,
    BK_STAT_MINTXSIZE,
    BK_STAT_OUTS,
    BK_STAT_SUBSIDY,
    BK_STAT_SWTOTAL_SIZE,
    BK_STAT_SWTOTAL_WEIGHT,
    BK_STAT_SWTXS,
    BK_STAT_TIME,
    BK_STAT_TOTAL_OUT,
    BK_STAT_TOTAL_SIZE,
    BK_STAT_TOTAL_WEIGHT,
    BK_STAT_TOTALFEE,
    BK_STAT_TXS,
    BK_STAT_UTXO_INCREASE,
    BK_STAT_UTXO_SIZE_INC,
    BK_STAT_UTXO_INCREASE_ACTUAL,
    BK_STAT_UTXO_SIZE_INC_ACTUAL,
    BK_STAT_COUNT
} bk_stat;

/* Core's name of a statistic ("avgfee", ...), NULL out of range. */
BK_API const char *bk_stat_name(bk_stat s);

#define BK_STATS_PERCENTILES 5

/* Typed results: satoshis, bytes, weight units, sat/vB, counts. */
typedef struct bk_block_stats {
    int64_t avgfee;
    int64_t avgfeerate;
    int64_t avgtxsize;
    uint8_t blockhash[32];                        /* internal byte order */
    int64_t feerate_percentiles[BK_STATS_PERCENTILES]; /* 10th, 25th, 50th, 75th, 90th */
    int64_t height;
    int64_t ins;
    int64_t maxfee;
    int64_t maxfeerate;
    int64_t maxtxsize;
    int64_t medianfee;
    int64_t mediantime;
    int64_t mediantxsize;
    int64_t minfee;
    int64_t minfeerate;
    int64_t mintxsize;
    int64_t outs;
    int64_t subsidy;
    int64_t swtotal_size;
    int64_t swtotal_weight;
    int64_t swtxs;
    int64_t time;
    int64_t total_out;
    int64_t total_size;
    int64_t total_weight;
    int64_t totalfee;
    int64_t txs;
    int64_t utxo_increase;
    int64_t utxo_size_inc;
    int64_t utxo_increase_actual;
    int64_t utxo_size_inc_actual;
} bk_block_stats;

/* The struct's fields as a table, in bk_stat order, for a column export:
 * each statistic's name, kind and offset in bk_block_stats. */
typedef enum bk_stat_kind {
    BK_STAT_KIND_INT64 = 0,     /* one int64_t */
    BK_STAT_KIND_HASH,          /* uint8_t[32], internal byte order (Core prints it reversed) */
    BK_STAT_KIND_PERCENTILES    /* int64_t[BK_STATS_PERCENTILES]: 10th, 25th, 50th, 75th, 90th */
} bk_stat_kind;

typedef struct bk_stat_field {
    const char *name;           /* Core's key */
    bk_stat_kind kind;
    size_t offset;              /* offsetof(bk_block_stats, ...) */
} bk_stat_field;

/* BK_STAT_COUNT entries, indexed by bk_stat. */
BK_API const bk_stat_field *bk_stat_fields(void);

/* A selection of statistics: bit (1u << bk_stat) per selected one.
 * BK_STATS_ALL (0) is Core's default (no stats argument, or an empty
 * list): every statistic, in Core's push order. A non-zero mask gives the
 * selected keys in Core's std::set order (bytewise sorted: utxo_increase,
 * utxo_increase_actual, utxo_size_inc, utxo_size_inc_actual). */
#define BK_STATS_ALL 0u

/* Core's stats argument as names (duplicates allowed, order irrelevant)
 * into a mask. An unknown name: BK_ERR_NOT_FOUND with Core's message
 * "Invalid selected statistic 'NAME'" for the bytewise-smallest unknown
 * name (the one Core's sorted walk reports), *mask_out unchanged; Core
 * reports it only after reading the block and its undo data, so callers
 * reproducing its precedence check block errors first. n 0 = all. */
BK_API bk_status bk_block_stats_select(const char *const *names, const size_t *lens, size_t n, uint32_t *mask_out,
                                       bk_error *err) BK_WARN_UNUSED;
/* The same from a comma-separated list ("a,b,c"; "" = all; an empty item
 * is the name "", which Core refuses too). */
BK_API bk_status bk_block_stats_select_list(const char *list, size_t len, uint32_t *mask_out,
                                            bk_error *err) BK_WARN_UNUSED;

/* getblockstats follows Core past BK_CORE_NEWEST (block JSON's newest
 * release): 32 is Core master since bitcoin/bitcoin#31449 (2026-04-20),
 * checked against Core's answers for the regtest node. */
#define BK_STATS_CORE_NEWEST 32

typedef struct bk_block_stats_opts {
    uint32_t select;          /* BK_STATS_ALL or a mask (decides which checks run, as in Core) */
    int core_version;         /* 28..32 (0 = BK_CORE_NEWEST, 31): the same 31 stats; 32 counts 40 bytes
                                 of per-UTXO overhead instead of 41 (docs/stats.md) */
    const uint8_t *hash;      /* optional: the block hash (internal order), else hashed */
} bk_block_stats_opts;

BK_API void bk_block_stats_opts_init(bk_block_stats_opts *o);

/* Reusable per-thread scratch: the fee, size and feerate tables, grown to
 * the largest block seen (then nothing is allocated). Sorting is an LSD
 * radix sort in these buffers: no allocation, linear time. */
typedef struct bk_block_stats_scratch {
    const bk_allocator *alloc;
    int64_t *fees;            /* one allocation: fees, sizes, feerates, weights, */
    int64_t *sizes;           /* two sort buffers (cap words each), then the */
    int64_t *rates;           /* radix histograms */
    size_t cap;               /* transactions each table holds */
} bk_block_stats_scratch;

/* alloc NULL = default allocator. Allocates nothing yet. */
BK_API void bk_block_stats_scratch_init(bk_block_stats_scratch *s, const bk_allocator *alloc);
BK_API void bk_block_stats_scratch_free(bk_block_stats_scratch *s);

/* Compute getblockstats for block b with its CBlockUndo (parsed by
 * bk_block_undo_parse; Core refuses a block without undo data, and so does
 * this: BK_ERR_ARG for NULL; at height 0 undo is ignored and may be NULL:
 * Core gives the genesis block an empty CBlockUndo) in chain context ctx (network: subsidy
 * schedule and BIP30 blocks; height; mediantime). Every statistic is
 * filled whatever o->select says. Errors name the block (hash and height):
 * BK_ERR_MISMATCH when the undo's shape does not match the block
 * (bk_block_undo_check), BK_ERR_INVALID when the first transaction is not
 * a coinbase or (when the selection needs fees, as Core's
 * CHECK_NONFATAL(MoneyRange(txfee))) a fee lies outside [0, 21e6 BTC],
 * BK_ERR_NOMEM, BK_ERR_ARG for a core_version outside 28..32. */
BK_API bk_status bk_block_stats_compute(bk_block_stats_scratch *s, const bk_block *b, const bk_block_undo *undo,
                                        const bk_chain_context *ctx, const bk_block_stats_opts *o,
                                        bk_block_stats *out, bk_error *err) BK_WARN_UNUSED;

/* The same from the undo record's bytes: undo[0..len) is the CBlockUndo as
 * stored in rev*.dat (without the magic and size words); checksum, unless
 * NULL, the record's 32 bytes after it, verified first as Core's
 * ReadBlockUndo does (SHA256d(b's parent hash || CBlockUndo)). The result
 * and every error are exactly those of bk_undo_checksum_verify (when
 * checksum is given), bk_block_undo_parse and bk_block_stats_compute run
 * one after the other, but the CBlockUndo is read once: the statistics'
 * walk makes the parser's checks itself; a record failing any of them (or
 * holding anything unusual) is handed to those stages, which report it.
 * undo NULL: Core's "Undo data not available" (BK_ERR_ARG) but at height 0. */
BK_API bk_status bk_block_stats_compute_undo(bk_block_stats_scratch *s, const bk_block *b, const uint8_t *undo,
                                             size_t len, const uint8_t checksum[32], const bk_chain_context *ctx,
                                             const bk_block_stats_opts *o, bk_block_stats *out,
                                             bk_error *err) BK_WARN_UNUSED;

/* Core: GetBlockSubsidy (50 BTC halved every 210000 blocks, every 150 on
 * regtest; 0 from the 64th halving). */
BK_API int64_t bk_block_subsidy(bk_network net, int64_t height);

#ifdef __cplusplus
}
#endif
#endif
