/* getblockstats (see blockkit/blockstats.h and docs/stats.md).
 *
 * One pass over the transactions: outputs (count, sum, UTXO sizes and the
 * unspendable rule), sizes and weights, and for each non-coinbase
 * transaction its spent coins from the undo data (value and script length
 * straight from the compressed form: the coins were validated when the
 * CBlockUndo was parsed, so nothing is decompressed here). Fees, sizes and
 * (feerate, weight) pairs go into the scratch tables, which are then
 * sorted in place (no allocation) for the medians and percentiles. */
#include <blockkit/blockstats.h>
#include <blockkit/blockfile.h>
#include <blockkit/hex.h>

#include "bitcoin/tx_internal.h"
#include "bitcoin/undo_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Core: consensus/amount.h MAX_MONEY, consensus/consensus.h
 * MAX_BLOCK_SERIALIZED_SIZE, WITNESS_SCALE_FACTOR (MAX_SCRIPT_SIZE and
 * nSpecialScripts: undo_internal.h). */
#define MAX_MONEY (21000000LL * 100000000LL)
#define MAX_BLOCK_SERIALIZED_SIZE 4000000LL
#define WITNESS_SCALE_FACTOR 4
/* Core's PER_UTXO_OVERHEAD: sizeof(COutPoint) + sizeof(uint32_t) +
 * sizeof(bool) = 41 up to v31; 40 since bitcoin/bitcoin#31449 (v32: the
 * coinbase flag lives in the height word). */
static int64_t per_utxo_overhead(int core)
{
    return core >= 32 ? 40 : 41;
}

static const char *const stat_names[BK_STAT_COUNT] = {
    "avgfee",       "avgfeerate",    "avgtxsize",     "blockhash",      "feerate_percentiles",
    "height",       "ins",           "maxfee",        "maxfeerate",     "maxtxsize",
    "medianfee",    "mediantime",    "mediantxsize",  "minfee",         "minfeerate",
    "mintxsize",    "outs",          "subsidy",       "swtotal_size",   "swtotal_weight",
    "swtxs",        "time",          "total_out",     "total_size",     "total_weight",
    "totalfee",     "txs",           "utxo_increase", "utxo_size_inc",  "utxo_increase_actual",
    "utxo_size_inc_actual",
};

const char *bk_stat_name(bk_stat s)
{
    return (unsigned)s < BK_STAT_COUNT ? stat_names[s] : NULL;
}

#define F64(name) {#name, BK_STAT_KIND_INT64, offsetof(bk_block_stats, name)}
static const bk_stat_field stat_fields[BK_STAT_COUNT] = {
    F64(avgfee),
    F64(avgfeerate),
    F64(avgtxsize),
    {"blockhash", BK_STAT_KIND_HASH, offsetof(bk_block_stats, blockhash)},
    {"feerate_percentiles", BK_STAT_KIND_PERCENTILES, offsetof(bk_block_stats, feerate_percentiles)},
    F64(height),
    F64(ins),
    F64(maxfee),
    F64(maxfeerate),
    F64(maxtxsize),
    F64(medianfee),
    F64(mediantime),
    F64(mediantxsize),
    F64(minfee),
    F64(minfeerate),
    F64(mintxsize),
    F64(outs),
    F64(subsidy),
    F64(swtotal_size),
    F64(swtotal_weight),
    F64(swtxs),
    F64(time),
    F64(total_out),
    F64(total_size),
    F64(total_weight),
    F64(totalfee),
    F64(txs),
    F64(utxo_increase),
    F64(utxo_size_inc),
    F64(utxo_increase_actual),
    F64(utxo_size_inc_actual),
};
#undef F64

const bk_stat_field *bk_stat_fields(void)
{
    return stat_fields;
}

void bk_block_stats_opts_init(bk_block_stats_opts *o)
{
    memset(o, 0, sizeof *o);
    o->core_version = BK_CORE_NEWEST;
}

/* ---- selection ---- */

/* std::string operator< : bytewise, then shorter first. */
static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return al < bl ? -1 : al > bl;
}

static int stat_lookup(const char *s, size_t len)
{
    for (int i = 0; i < BK_STAT_COUNT; i++)
        if (strlen(stat_names[i]) == len && memcmp(stat_names[i], s, len) == 0) return i;
    return -1;
}

bk_status bk_block_stats_select(const char *const *names, const size_t *lens, size_t n, uint32_t *mask_out,
                                bk_error *err)
{
    if (!mask_out || (n && (!names || !lens))) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    uint32_t mask = 0;
    const char *bad = NULL;
    size_t bad_len = 0;
    for (size_t i = 0; i < n; i++) {
        int k = stat_lookup(names[i], lens[i]);
        if (k >= 0) {
            mask |= 1u << k;
        } else if (!bad || name_cmp(names[i], lens[i], bad, bad_len) < 0) {
            bad = names[i];
            bad_len = lens[i];
        }
    }
    if (bad) {
        int shown = bad_len > 120 ? 120 : (int)bad_len;
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "Invalid selected statistic '%.*s'", shown, bad);
    }
    *mask_out = mask;
    return BK_OK;
}

bk_status bk_block_stats_select_list(const char *list, size_t len, uint32_t *mask_out, bk_error *err)
{
    if (!mask_out || (len && !list)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    if (len == 0) {
        *mask_out = BK_STATS_ALL;
        return BK_OK;
    }
    uint32_t mask = 0;
    const char *bad = NULL;
    size_t bad_len = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && list[i] != ',') continue;
        const char *nm = list + start;
        size_t nl = i - start;
        int k = stat_lookup(nm, nl);
        if (k >= 0) {
            mask |= 1u << k;
        } else if (!bad || name_cmp(nm, nl, bad, bad_len) < 0) {
            bad = nm;
            bad_len = nl;
        }
        start = i + 1;
    }
    if (bad) {
        int shown = bad_len > 120 ? 120 : (int)bad_len;
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "Invalid selected statistic '%.*s'", shown, bad);
    }
    *mask_out = mask;
    return BK_OK;
}

/* ---- scratch ---- */

/* Radix digits: bytes, eight passes cover 64-bit keys (the histograms of
 * all eight fit in 8 KB). */
#define RADIX_BITS 8
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES 8
/* Histograms are counted in four interleaved copies: keys that share a
 * digit (many equal feerates) would otherwise make each increment wait for
 * the one before. */
#define RADIX_COPIES 4

void bk_block_stats_scratch_init(bk_block_stats_scratch *s, const bk_allocator *alloc)
{
    memset(s, 0, sizeof *s);
    s->alloc = alloc;
}

/* One block of 6 x n words (fees, sizes, feerates, weights, and two sort
 * buffers) plus the radix histograms. */
static size_t scratch_words(size_t cap)
{
    return 6 * cap + (size_t)RADIX_COPIES * RADIX_PASSES * RADIX_SIZE / 2;
}

void bk_block_stats_scratch_free(bk_block_stats_scratch *s)
{
    if (s->fees) bk_free(s->alloc, s->fees, scratch_words(s->cap) * sizeof(uint64_t));
    s->fees = s->sizes = s->rates = NULL;
    s->cap = 0;
}

static bk_status scratch_reserve(bk_block_stats_scratch *s, size_t n)
{
    if (n <= s->cap) return BK_OK;
    size_t cap = (n + 255) & ~(size_t)255;
    if (cap > SIZE_MAX / (8 * sizeof(uint64_t)) - RADIX_COPIES * RADIX_PASSES * RADIX_SIZE) return BK_ERR_NOMEM;
    uint64_t *p = bk_alloc(s->alloc, scratch_words(cap) * sizeof(uint64_t));
    if (!p) return BK_ERR_NOMEM;
    bk_block_stats_scratch_free(s);
    s->fees = (int64_t *)p;
    s->sizes = (int64_t *)p + cap;
    s->rates = (int64_t *)p + 2 * cap; /* feerates, then weights at + cap */
    s->cap = cap;
    return BK_OK;
}

/* ---- sorting: LSD radix over the keys' offsets from the smallest key
 * (so signed order is unsigned order), a byte a pass, as many passes as
 * the range of the keys needs; stable, so a payload (the weights) keeps its
 * key's place. n words of tmp (and tmp_pay with a payload). ---- */

static void radix_sort(int64_t *key, int64_t *pay, size_t n, int64_t *tmp, int64_t *tmp_pay, uint32_t *hist)
{
    if (n < 2) return;
    int64_t lo = key[0], hi = key[0];
    for (size_t i = 1; i < n; i++) {
        if (key[i] < lo) lo = key[i];
        if (key[i] > hi) hi = key[i];
    }
    /* keys as unsigned offsets from the smallest: only the digits the
     * range needs are sorted (feerates take one pass, fees and sizes two
     * or three) */
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    int passes = 0;
    while (passes < RADIX_PASSES && (range >> (passes * RADIX_BITS))) passes++;
    if (passes == 0) return;
    /* count only the digits that will be sorted, in RADIX_COPIES copies
     * (key i into copy i % RADIX_COPIES), then fold them into copy 0 */
    const size_t stride = (size_t)RADIX_PASSES * RADIX_SIZE;
    for (int c = 0; c < RADIX_COPIES; c++) memset(hist + c * stride, 0, sizeof(uint32_t) * (size_t)passes * RADIX_SIZE);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)key[i] - (uint64_t)lo;
        uint32_t *h = hist + (i % RADIX_COPIES) * stride;
        for (int d = 0; d < passes; d++) h[d * RADIX_SIZE + ((k >> (d * RADIX_BITS)) & (RADIX_SIZE - 1))]++;
    }
    for (int c = 1; c < RADIX_COPIES; c++)
        for (size_t b = 0; b < (size_t)passes * RADIX_SIZE; b++) hist[b] += hist[c * stride + b];
    int64_t *src = key, *dst = tmp, *psrc = pay, *pdst = tmp_pay;
    for (int d = 0; d < passes; d++) {
        uint32_t *h = hist + d * RADIX_SIZE;
        uint32_t sum = 0;
        for (uint32_t b = 0; b < RADIX_SIZE; b++) {
            uint32_t c = h[b];
            h[b] = sum;
            sum += c;
        }
        const int shift = d * RADIX_BITS;
        if (pay) {
            for (size_t i = 0; i < n; i++) {
                uint32_t at = h[(((uint64_t)src[i] - (uint64_t)lo) >> shift) & (RADIX_SIZE - 1)]++;
                dst[at] = src[i];
                pdst[at] = psrc[i];
            }
        } else {
            for (size_t i = 0; i < n; i++) dst[h[(((uint64_t)src[i] - (uint64_t)lo) >> shift) & (RADIX_SIZE - 1)]++] = src[i];
        }
        int64_t *t = src;
        src = dst;
        dst = t;
        t = psrc;
        psrc = pdst;
        pdst = t;
    }
    if (src != key) {
        memcpy(key, src, n * sizeof *key);
        if (pay) memcpy(pay, psrc, n * sizeof *pay);
    }
}

/* Money sums wrap instead of overflowing (undefined in C): only invalid
 * data (negative or huge values, which Core's validation keeps out of any
 * block with undo data) can get there, and fee sums are range-checked. */
static inline int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t wmul4(int64_t a) { return (int64_t)((uint64_t)a * WITNESS_SCALE_FACTOR); }

/* ---- selection: the k-th smallest of n keys without sorting them. MSD
 * radix select over the keys' offsets from the smallest: a histogram of the
 * top SELECT_BITS bits of the range, the bucket holding rank k kept (copied
 * to tmp, then filtered in place), the next bits of that bucket, and so on;
 * at most 64 / SELECT_BITS + 1 levels, each over fewer keys: linear time in
 * the worst case, whatever the keys (no pivot to defeat). ---- */
#define SELECT_BITS 11
#define SELECT_SIZE (1u << SELECT_BITS)

static int64_t radix_select(const int64_t *v, size_t n, size_t k, int64_t lo, int64_t hi, int64_t *tmp,
                            uint32_t *hist)
{
    const int64_t *src = v;
    for (;;) {
        uint64_t range = (uint64_t)hi - (uint64_t)lo;
        if (range == 0) return lo;
        int bits = 64 - __builtin_clzll(range);
        int shift = bits > SELECT_BITS ? bits - SELECT_BITS : 0;
        size_t nb = (size_t)(range >> shift) + 1;
        /* four histograms, key i into copy i % 4: runs of keys in one
         * bucket do not wait on each other's increments */
        uint32_t *h0 = hist, *h1 = hist + SELECT_SIZE, *h2 = hist + 2 * SELECT_SIZE, *h3 = hist + 3 * SELECT_SIZE;
        for (int c = 0; c < 4; c++) memset(hist + c * SELECT_SIZE, 0, sizeof(uint32_t) * nb);
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            h0[((uint64_t)src[i] - (uint64_t)lo) >> shift]++;
            h1[((uint64_t)src[i + 1] - (uint64_t)lo) >> shift]++;
            h2[((uint64_t)src[i + 2] - (uint64_t)lo) >> shift]++;
            h3[((uint64_t)src[i + 3] - (uint64_t)lo) >> shift]++;
        }
        for (; i < n; i++) h0[((uint64_t)src[i] - (uint64_t)lo) >> shift]++;
        size_t b = 0, below = 0;
        for (;; b++) {
            size_t c = (size_t)h0[b] + h1[b] + h2[b] + h3[b];
            if (below + c > k) break;
            below += c;
        }
        uint64_t base = (uint64_t)lo + ((uint64_t)b << shift);
        if (shift == 0) return (int64_t)base;
        /* the bucket's keys: [base, base + 2^shift - 1], within hi */
        size_t m = 0;
        for (i = 0; i < n; i++) {
            tmp[m] = src[i];
            m += (((uint64_t)src[i] - (uint64_t)lo) >> shift) == b;
        }
        uint64_t top = base + (((uint64_t)1 << shift) - 1);
        lo = (int64_t)base;
        if (top - (uint64_t)lo < (uint64_t)hi - (uint64_t)lo) hi = (int64_t)top;
        k -= below;
        n = m;
        src = tmp;
    }
}

/* Core: CalculateTruncatedMedian over v[0..n) (whose smallest and largest
 * are lo and hi): the middle value, or the truncated mean of the two
 * middle ones. v is left as it was. */
static int64_t truncated_median(bk_block_stats_scratch *s, const int64_t *v, size_t n, int64_t lo, int64_t hi)
{
    if (n == 0) return 0;
    int64_t *tmp = s->fees + 4 * s->cap;
    uint32_t *hist = (uint32_t *)(s->fees + 6 * s->cap);
    int64_t upper = radix_select(v, n, n / 2, lo, hi, tmp, hist);
    if (n % 2) return upper;
    /* the (n/2 - 1)-th: upper again unless n/2 keys lie below it, then the
     * largest of those */
    size_t less = 0;
    int64_t below = lo;
    for (size_t i = 0; i < n; i++) {
        int lt = v[i] < upper;
        less += (size_t)lt;
        if (lt && v[i] > below) below = v[i];
    }
    int64_t lower = less >= n / 2 ? below : upper;
    return wadd(lower, upper) / 2;
}

/* Core: CalculatePercentilesByWeight over (feerate, weight) pairs. Core
 * sorts the pairs by feerate, then weight; sorting by feerate alone (stable)
 * gives the same answer: a threshold is crossed inside a run of equal
 * feerates whatever the order of their weights, and the run's feerate is
 * the value either way. */
static void percentiles_by_weight(bk_block_stats_scratch *s, int64_t out[BK_STATS_PERCENTILES], size_t n,
                                  int64_t total_weight, int64_t lo, int64_t hi)
{
    for (int i = 0; i < BK_STATS_PERCENTILES; i++) out[i] = 0;
    if (n == 0) return;
    int64_t *rate = s->rates, *weight = s->rates + s->cap;
    const double tw = (double)total_weight;
    const double thresholds[BK_STATS_PERCENTILES] = {tw / 10.0, tw / 4.0, tw / 2.0, (tw * 3.0) / 4.0,
                                                     (tw * 9.0) / 10.0};
    int next = 0;
    int64_t cumulative = 0;
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    if (range < 2 * (uint64_t)s->cap) {
        /* Feerates span fewer values than the two sort buffers hold words
         * (the usual case: sat/vB): the weight of each feerate, summed in
         * feerate order. A run of equal feerates is one bucket, and the
         * sorted walk crosses a threshold inside a run exactly when the sum
         * at the run's end crosses it, with the run's feerate either way. */
        int64_t *sum = s->fees + 4 * s->cap;
        size_t width = (size_t)range + 1;
        if (4 * width <= 2 * s->cap) {
            /* four tables, tx i into table i % 4: runs of equal feerates
             * do not wait on each other's additions; folded into the first */
            int64_t *s1 = sum + width, *s2 = sum + 2 * width, *s3 = sum + 3 * width;
            memset(sum, 0, sizeof(int64_t) * 4 * width);
            size_t i = 0;
            for (; i + 4 <= n; i += 4) {
                sum[(uint64_t)rate[i] - (uint64_t)lo] += weight[i];
                s1[(uint64_t)rate[i + 1] - (uint64_t)lo] += weight[i + 1];
                s2[(uint64_t)rate[i + 2] - (uint64_t)lo] += weight[i + 2];
                s3[(uint64_t)rate[i + 3] - (uint64_t)lo] += weight[i + 3];
            }
            for (; i < n; i++) sum[(uint64_t)rate[i] - (uint64_t)lo] += weight[i];
            for (size_t r = 0; r < width; r++) sum[r] += s1[r] + s2[r] + s3[r];
        } else {
            memset(sum, 0, sizeof(int64_t) * width);
            for (size_t i = 0; i < n; i++) sum[(uint64_t)rate[i] - (uint64_t)lo] += weight[i];
        }
        for (uint64_t r = 0; r <= range && next < BK_STATS_PERCENTILES; r++) {
            if (!sum[r]) continue;
            cumulative += sum[r];
            while (next < BK_STATS_PERCENTILES && (double)cumulative >= thresholds[next])
                out[next++] = (int64_t)((uint64_t)lo + r);
        }
        for (int i = next; i < BK_STATS_PERCENTILES; i++) out[i] = hi;
        return;
    }
    radix_sort(rate, weight, n, s->fees + 4 * s->cap, s->fees + 5 * s->cap, (uint32_t *)(s->fees + 6 * s->cap));
    for (size_t i = 0; i < n; i++) {
        cumulative += weight[i];
        while (next < BK_STATS_PERCENTILES && (double)cumulative >= thresholds[next]) out[next++] = rate[i];
    }
    for (int i = next; i < BK_STATS_PERCENTILES; i++) out[i] = rate[n - 1];
}

/* ---- chain rules ---- */

int64_t bk_block_subsidy(bk_network net, int64_t height)
{
    /* Core: kernel/chainparams.cpp nSubsidyHalvingInterval. */
    int64_t interval = net == BK_NET_REGTEST ? 150 : 210000;
    if (height < 0) return 0;
    int64_t halvings = height / interval;
    if (halvings >= 64) return 0;
    return (int64_t)(50 * 100000000ULL >> halvings);
}

/* Core: validation.cpp IsBIP30Repeat - the two mainnet blocks whose
 * coinbase repeated an earlier one's txid (hashes in internal order). */
static int is_bip30_repeat(const bk_chain_context *ctx, const uint8_t hash[32])
{
    if (ctx->network != BK_NET_MAIN || (ctx->height != 91842 && ctx->height != 91880)) return 0;
    char hex[65];
    bk_hex_encode_rev(hex, hash, 32);
    hex[64] = 0;
    return strcmp(hex, ctx->height == 91842 ? "00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec"
                                            : "00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721") == 0;
}

/* A walk over a CBlockUndo that bk_block_undo_parse has validated: the
 * reads cannot fail, so they are plain pointer steps (bounded by end all
 * the same). */
typedef struct undo_walk {
    const uint8_t *p, *end;
} undo_walk;

/* Core: serialize.h ReadVarInt (MSB base-128, +1 per continuation). */
static inline uint64_t walk_varint(undo_walk *w)
{
    uint64_t n = 0;
    while (w->p < w->end) {
        uint8_t b = *w->p++;
        n = (n << 7) | (b & 0x7f);
        if (!(b & 0x80)) return n;
        n++;
    }
    return n;
}

static inline uint64_t walk_compact(undo_walk *w)
{
    if (w->p >= w->end) return 0;
    uint8_t b = *w->p++;
    size_t k = b < 0xfd ? 0 : b == 0xfd ? 2 : b == 0xfe ? 4 : 8;
    if (k == 0) return b;
    if ((size_t)(w->end - w->p) < k) {
        w->p = w->end;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++) v |= (uint64_t)w->p[i] << (8 * i);
    w->p += k;
    return v;
}

static inline void walk_skip(undo_walk *w, uint64_t n)
{
    w->p = n < (uint64_t)(w->end - w->p) ? w->p + n : w->end;
}

/* One coin: its value and the length of its decompressed scriptPubKey
 * (Core: compressor.cpp; an over-long raw script reads back as the single
 * byte OP_RETURN). */
static inline void coin_value_len(undo_walk *w, int64_t *value, uint64_t *script_len)
{
    uint64_t code = walk_varint(w);
    if (code >> 1) (void)walk_varint(w); /* nVersion dummy */
    *value = (int64_t)bk_undo_amount_decompress(walk_varint(w));
    uint64_t n_size = walk_varint(w);
    if (n_size < BK_SPECIAL_SCRIPTS) {
        static const uint8_t lens[BK_SPECIAL_SCRIPTS] = {25, 23, 35, 35, 67, 67};
        *script_len = lens[n_size];
        walk_skip(w, n_size < 2 ? 20 : 32);
    } else {
        uint64_t raw = n_size - BK_SPECIAL_SCRIPTS;
        *script_len = raw > BK_MAX_SCRIPT_SIZE ? 1 : raw;
        walk_skip(w, raw);
    }
}

/* ---- the same reads with bk_block_undo_parse's checks (or stricter):
 * 0 for anything the parser might refuse ---- */

/* Which of Core's loops a selection runs (getblockstats loop_inputs etc.):
 * only the fee range check depends on it here. */
static int selection_loops_inputs(uint32_t sel)
{
    if (sel == BK_STATS_ALL) return 1;
    const uint32_t need = (1u << BK_STAT_MEDIANFEE) | (1u << BK_STAT_FEERATE_PERCENTILES) |
                          (1u << BK_STAT_UTXO_INCREASE) | (1u << BK_STAT_UTXO_INCREASE_ACTUAL) |
                          (1u << BK_STAT_UTXO_SIZE_INC) | (1u << BK_STAT_UTXO_SIZE_INC_ACTUAL) |
                          (1u << BK_STAT_TOTALFEE) | (1u << BK_STAT_AVGFEE) | (1u << BK_STAT_AVGFEERATE) |
                          (1u << BK_STAT_MINFEE) | (1u << BK_STAT_MAXFEE) | (1u << BK_STAT_MINFEERATE) |
                          (1u << BK_STAT_MAXFEERATE);
    return (sel & need) != 0;
}

/* The checks every entry point makes before the walk, in their order:
 * Core version, the undo's CTxUndo count (n_txundo, -1: not known yet),
 * the coinbase; *overhead_out is the version's per-UTXO overhead, out is
 * zeroed with its hash set, the scratch holds the block's tables. */
static bk_status stats_prelude(bk_block_stats_scratch *s, const bk_block *b, int64_t n_txundo,
                               const bk_chain_context *ctx, const bk_block_stats_opts *o, bk_block_stats *out,
                               int64_t *overhead_out, bk_error *err)
{
    int core = o->core_version ? o->core_version : BK_CORE_NEWEST;
    if (core < BK_CORE_MIN || core > BK_STATS_CORE_NEWEST)
        return bk_error_set(err, BK_ERR_ARG, 0, "core version %d outside %d..%d", core, BK_CORE_MIN,
                            BK_STATS_CORE_NEWEST);
    *overhead_out = per_utxo_overhead(core);

    memset(out, 0, sizeof *out);
    if (o->hash) memcpy(out->blockhash, o->hash, 32);
    else bk_block_hash(b, out->blockhash);
    char hex[65];

    /* The undo's shape (bk_block_undo_check: n_tx - 1 CTxUndo, one coin
     * per input) is checked as the coins are walked (the count here, but
     * for the single pass, which reads it itself). */
    if (n_txundo >= 0 && (uint64_t)n_txundo != (uint64_t)b->n_tx - 1) {
        bk_hash_to_hex(hex, out->blockhash);
        return bk_error_set(err, BK_ERR_MISMATCH, 0,
                            "block %s at height %lld: undo data does not match block: %u CTxUndo for %u transactions",
                            hex, (long long)ctx->height, (unsigned)n_txundo, b->n_tx);
    }
    if (!bk_tx_is_coinbase_fast(&b->txs[0])) {
        bk_hash_to_hex(hex, out->blockhash);
        return bk_error_set(err, BK_ERR_INVALID, 0, "block %s at height %lld: first transaction is not a coinbase",
                            hex, (long long)ctx->height);
    }
    if (scratch_reserve(s, b->n_tx) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    return BK_OK;

}

/* Core's loops over the transactions and their spent coins (getblockstats)
 * over a CBlockUndo's bytes. fast 0: bytes bk_block_undo_parse has
 * validated (the reads cannot fail). fast 1: raw bytes, read with at least
 * the parser's checks; anything the parser or this pass might refuse, and
 * anything unusual, returns FALLBACK (no message), and the caller takes
 * the staged path, which reports it as the stages would. */
#define FALLBACK BK_ERR_UNSUPPORTED
/* The smallest Coin (code 00, amount 00, script size 06), as the parser. */
#define MIN_COIN_SIZE 3u

/* The running sums of a block's loops, as Core's getblockstats names them. */
typedef struct {
    int64_t maxfee, maxfeerate, minfee, minfeerate;
    int64_t total_out, totalfee, inputs, outputs;
    int64_t maxtxsize, mintxsize;
    int64_t swtotal_size, swtotal_weight, swtxs, total_size, total_weight;
    int64_t utxos, utxo_size_inc, utxo_size_inc_actual;
    /* the true extremes of the tables (the min/max statistics above start
     * from Core's sentinels and may not be reached by invalid data) */
    int64_t fee_lo, fee_hi, rate_lo, rate_hi, size_lo, size_hi;
    size_t n_fees;
} stats_sums;

/* One transaction's outputs, straight from the decoded bytes (validated by
 * the block decoder): value, script length, Core's unspendable rule. */
static inline __attribute__((always_inline)) void
tally_outputs(const bk_tx *tx, int64_t overhead, int64_t *tx_out, int64_t *tx_utxos, int64_t *size_inc,
              int64_t *size_inc_actual)
{
    int64_t sum = 0, n = 0, inc = 0, inc_actual = 0;
    const uint8_t *op = tx->data + tx->vout_pos;
    for (uint32_t k = 0; k < tx->n_out; k++) {
        int64_t value = (int64_t)bk_load_le64(op);
        op += 8;
        uint64_t sl = *op;
        size_t cl = 1;
        if (BK_UNLIKELY(sl >= 0xfd)) {
            const uint8_t *q = op;
            sl = bk_cs_get(&q);
            cl = (size_t)(q - op);
        }
        const uint8_t *script = op + cl;
        op = script + sl;
        sum = wadd(sum, value);
        int64_t sz = 8 + (int64_t)cl + (int64_t)sl + overhead;
        inc += sz;
        /* Core: CScript::IsUnspendable */
        int spendable = !((sl > 0 && script[0] == 0x6a) || sl > BK_MAX_SCRIPT_SIZE);
        n += spendable;
        inc_actual += spendable ? sz : 0;
    }
    *tx_out = sum;
    *tx_utxos = n;
    *size_inc = inc;
    *size_inc_actual = inc_actual;
}

/* A counted transaction's size, weight, fee and feerate into the sums and
 * the tables. */
static inline __attribute__((always_inline)) void
record_tx(bk_block_stats_scratch *s, stats_sums *a, const bk_tx *tx, size_t sizes_slot, int64_t fee)
{
    int64_t tx_size = tx->size;
    s->sizes[sizes_slot] = tx_size;
    if (tx_size > a->maxtxsize) a->maxtxsize = tx_size;
    if (tx_size < a->mintxsize) a->mintxsize = tx_size;
    if (tx_size > a->size_hi) a->size_hi = tx_size;
    if (tx_size < a->size_lo) a->size_lo = tx_size;
    a->total_size += tx_size;

    int64_t weight = 3 * (int64_t)tx->stripped_size + (int64_t)tx->size;
    a->total_weight += weight;
    if (tx->has_witness) {
        a->swtxs++;
        a->swtotal_size += tx_size;
        a->swtotal_weight += weight;
    }

    size_t n = a->n_fees;
    s->fees[n] = fee;
    if (fee > a->maxfee) a->maxfee = fee;
    if (fee < a->minfee) a->minfee = fee;
    if (fee > a->fee_hi) a->fee_hi = fee;
    if (fee < a->fee_lo) a->fee_lo = fee;
    a->totalfee = wadd(a->totalfee, fee);
    /* Core: (txfee * WITNESS_SCALE_FACTOR) / weight, truncated; a
     * 32-bit division when both fit (the same quotient, far cheaper) */
    int64_t fee4 = wmul4(fee);
    int64_t feerate = 0;
    if (weight) {
        if ((uint64_t)fee4 <= UINT32_MAX && (uint64_t)weight <= UINT32_MAX)
            feerate = (int64_t)((uint32_t)fee4 / (uint32_t)weight);
        else
            feerate = fee4 / weight;
    }
    s->rates[n] = feerate;
    s->rates[s->cap + n] = weight;
    a->n_fees = n + 1;
    if (feerate > a->maxfeerate) a->maxfeerate = feerate;
    if (feerate < a->minfeerate) a->minfeerate = feerate;
    if (feerate > a->rate_hi) a->rate_hi = feerate;
    if (feerate < a->rate_lo) a->rate_lo = feerate;
}

/* The sums into Core's getblockstats fields. */
static void stats_finish(bk_block_stats_scratch *s, const bk_block *b, const bk_chain_context *ctx,
                         const stats_sums *a, bk_block_stats *out)
{
    percentiles_by_weight(s, out->feerate_percentiles, a->n_fees, a->total_weight, a->rate_lo, a->rate_hi);

    const uint64_t n_tx = b->n_tx;
    out->avgfee = n_tx > 1 ? (int64_t)((uint64_t)a->totalfee / (n_tx - 1)) : 0;
    out->avgfeerate = a->total_weight ? wmul4(a->totalfee) / a->total_weight : 0;
    out->avgtxsize = n_tx > 1 ? (int64_t)((uint64_t)a->total_size / (n_tx - 1)) : 0;
    out->height = ctx->height;
    out->ins = a->inputs;
    out->maxfee = a->maxfee;
    out->maxfeerate = a->maxfeerate;
    out->maxtxsize = a->maxtxsize;
    out->medianfee = truncated_median(s, s->fees, a->n_fees, a->fee_lo, a->fee_hi);
    out->mediantime = ctx->mediantime;
    out->mediantxsize = truncated_median(s, s->sizes, a->n_fees, a->size_lo, a->size_hi);
    out->minfee = a->minfee == MAX_MONEY ? 0 : a->minfee;
    out->minfeerate = a->minfeerate == MAX_MONEY ? 0 : a->minfeerate;
    out->mintxsize = a->mintxsize == MAX_BLOCK_SERIALIZED_SIZE ? 0 : a->mintxsize;
    out->outs = a->outputs;
    out->subsidy = bk_block_subsidy(ctx->network, ctx->height);
    out->swtotal_size = a->swtotal_size;
    out->swtotal_weight = a->swtotal_weight;
    out->swtxs = a->swtxs;
    out->time = b->header.time;
    out->total_out = a->total_out;
    out->total_size = a->total_size;
    out->total_weight = a->total_weight;
    out->totalfee = a->totalfee;
    out->txs = (int64_t)n_tx;
    out->utxo_increase = a->outputs - a->inputs;
    out->utxo_size_inc = a->utxo_size_inc;
    out->utxo_increase_actual = a->utxos - a->inputs;
    out->utxo_size_inc_actual = a->utxo_size_inc_actual;
}

static inline __attribute__((always_inline)) bk_status
stats_pass(bk_block_stats_scratch *s, const bk_block *b, const uint8_t *data, size_t size,
           const bk_chain_context *ctx, const bk_block_stats_opts *o, int64_t overhead, bk_block_stats *out,
           bk_error *err, const int fast)
{
    char hex[65];
    const int check_fees = selection_loops_inputs(o->select);
    const int skip_coinbase_utxos = ctx->height == 0 || is_bip30_repeat(ctx, out->blockhash);

    stats_sums a = {.minfee = MAX_MONEY, .minfeerate = MAX_MONEY, .mintxsize = MAX_BLOCK_SERIALIZED_SIZE,
                    .fee_lo = INT64_MAX, .fee_hi = INT64_MIN, .rate_lo = INT64_MAX, .rate_hi = INT64_MIN,
                    .size_lo = INT64_MAX, .size_hi = INT64_MIN};
    int any_coinbase_shaped = 0;

    const uint8_t *const undo_data = data;
    undo_walk ur = {data, data + size};
    if (fast) {
        /* the CTxUndo count, as bk_block_undo_parse reads it; its checks
         * and the shape check are the fallback's */
        uint64_t n_txundo;
        if (!bk_undo_fast_compact(&ur.p, ur.end, &n_txundo) || n_txundo != (uint64_t)b->n_tx - 1 ||
            n_txundo > (uint64_t)(ur.end - ur.p))
            return FALLBACK;
    } else {
        (void)walk_compact(&ur);
    }

    for (uint32_t i = 0; i < b->n_tx; i++) {
        const bk_tx *tx = &b->txs[i];
        a.outputs += tx->n_out;
        const int coinbase = bk_tx_is_coinbase_fast(tx);
        const int skip_utxos = skip_coinbase_utxos && (ctx->height == 0 || coinbase);

        int64_t tx_out, tx_utxos, tx_size_inc, tx_size_inc_actual;
        tally_outputs(tx, overhead, &tx_out, &tx_utxos, &tx_size_inc, &tx_size_inc_actual);
        a.utxo_size_inc += tx_size_inc;
        if (!skip_utxos) {
            a.utxos += tx_utxos;
            a.utxo_size_inc_actual += tx_size_inc_actual;
        }

        if (i == 0) continue;
        /* Core reads vtxundo.at(i - 1) for every later transaction; the
         * undo entries are walked in step even past a coinbase-shaped one. */
        size_t undo_pos = (size_t)(ur.p - undo_data);
        uint64_t n_coins;
        if (fast) {
            if (!bk_undo_fast_compact(&ur.p, ur.end, &n_coins) || n_coins != tx->n_in ||
                n_coins > (uint64_t)(ur.end - ur.p) / MIN_COIN_SIZE)
                return FALLBACK;
        } else {
            n_coins = walk_compact(&ur);
        }
        if (n_coins != tx->n_in) {
            bk_hash_to_hex(hex, out->blockhash);
            return bk_error_set(err, BK_ERR_MISMATCH, undo_pos,
                                "block %s at height %lld: undo data does not match block: tx %u has %u inputs, "
                                "CTxUndo has %u coins",
                                hex, (long long)ctx->height, i, tx->n_in, (unsigned)n_coins);
        }

        int64_t tx_in = 0, spent_size = 0;
        for (uint64_t c = 0; c < n_coins; c++) {
            int64_t v;
            uint64_t l;
            if (fast) {
                if (!bk_undo_fast_coin(&ur.p, ur.end, &v, &l)) return FALLBACK;
            } else {
                coin_value_len(&ur, &v, &l);
            }
            tx_in = wadd(tx_in, v);
            spent_size += 8 + (l < 0xfd ? 1 : 3) + (int64_t)l + overhead; /* l <= BK_MAX_SCRIPT_SIZE */
        }
        if (coinbase) { /* walked, not counted */
            any_coinbase_shaped = 1;
            continue;
        }
        a.inputs += tx->n_in;
        a.total_out = wadd(a.total_out, tx_out);
        a.utxo_size_inc -= spent_size;
        a.utxo_size_inc_actual -= spent_size;
        int64_t fee = wsub(tx_in, tx_out);
        if (check_fees && (fee < 0 || fee > MAX_MONEY)) {
            if (fast) return FALLBACK;
            bk_hash_to_hex(hex, out->blockhash);
            return bk_error_set(err, BK_ERR_INVALID, 0,
                                "block %s at height %lld: fee of transaction %u out of range (%lld sat; "
                                "Core: MoneyRange(txfee))",
                                hex, (long long)ctx->height, i, (long long)fee);
        }
        record_tx(s, &a, tx, i - 1, fee);
    }
    if (fast) {
        /* bk_block_undo_parse: nothing after the CBlockUndo */
        if (ur.p != ur.end) return FALLBACK;
    }
    /* The sizes table holds an entry per non-coinbase tx in block order;
     * compact it to the n_fees counted ones (coinbase-shaped later txs are
     * skipped by Core). */
    if (any_coinbase_shaped) {
        size_t k = 0;
        for (uint32_t i = 1; i < b->n_tx; i++)
            if (!bk_tx_is_coinbase_fast(&b->txs[i])) s->sizes[k++] = s->sizes[i - 1];
    }
    stats_finish(s, b, ctx, &a, out);
    return BK_OK;
}

static bk_status stats_validated(bk_block_stats_scratch *s, const bk_block *b, const uint8_t *data, size_t size,
                                 const bk_chain_context *ctx, const bk_block_stats_opts *o, int64_t overhead,
                                 bk_block_stats *out, bk_error *err)
{
    return stats_pass(s, b, data, size, ctx, o, overhead, out, err, 0);
}

static bk_status stats_raw(bk_block_stats_scratch *s, const bk_block *b, const uint8_t *data, size_t size,
                           const bk_chain_context *ctx, const bk_block_stats_opts *o, int64_t overhead,
                           bk_block_stats *out)
{
    return stats_pass(s, b, data, size, ctx, o, overhead, out, NULL, 1);
}

bk_status bk_block_stats_compute(bk_block_stats_scratch *s, const bk_block *b, const bk_block_undo *undo,
                                 const bk_chain_context *ctx, const bk_block_stats_opts *o, bk_block_stats *out,
                                 bk_error *err)
{
    if (!s || !b || !ctx || !out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    /* Core: GetUndoChecked - "The Genesis block does not have undo data":
     * height 0 always gets an empty CBlockUndo. */
    static const uint8_t empty_undo_bytes[1] = {0};
    bk_block_undo empty_undo = {empty_undo_bytes, 1, 0};
    if (ctx->height == 0) undo = &empty_undo;
    if (!undo) return bk_error_set(err, BK_ERR_ARG, 0, "no undo data (Core: Undo data not available)");
    bk_block_stats_opts defaults;
    if (!o) {
        bk_block_stats_opts_init(&defaults);
        o = &defaults;
    }
    int64_t overhead = 0;
    bk_status st = stats_prelude(s, b, undo->n_txundo, ctx, o, out, &overhead, err);
    if (st != BK_OK) return st;
    return stats_validated(s, b, undo->data, undo->size, ctx, o, overhead, out, err);
}

bk_status bk_block_stats_compute_undo(bk_block_stats_scratch *s, const bk_block *b, const uint8_t *undo,
                                      size_t len, const uint8_t checksum[32], const bk_chain_context *ctx,
                                      const bk_block_stats_opts *o, bk_block_stats *out, bk_error *err)
{
    if (!s || !b || !ctx || !out || (!undo && len)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    bk_block_stats_opts defaults;
    if (!o) {
        bk_block_stats_opts_init(&defaults);
        o = &defaults;
    }
    /* Core's ReadBlockUndo verifies the checksum before it deserializes */
    bk_status st;
    if (checksum && undo && (st = bk_undo_checksum_verify(undo, len, b->header.prev_hash, checksum, err)) != BK_OK)
        return st;
    if (ctx->height != 0 && undo) {
        /* one pass: parse and statistics */
        int64_t overhead;
        if (stats_prelude(s, b, -1, ctx, o, out, &overhead, NULL) == BK_OK &&
            stats_raw(s, b, undo, len, ctx, o, overhead, out) == BK_OK)
            return BK_OK;
    }
    /* the stages one after the other, as a caller runs them: the first
     * error is theirs */
    bk_block_undo parsed, *up = NULL;
    if (undo) {
        if ((st = bk_block_undo_parse(undo, len, &parsed, err)) != BK_OK) return st;
        up = &parsed;
    }
    return bk_block_stats_compute(s, b, up, ctx, o, out, err);
}
