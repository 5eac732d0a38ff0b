/* Best chain of a blocks directory: header scan, hash table, heights, chain
 * work, median time past, undo pairing. Core: chain.cpp (GetBlockProof),
 * chain.h (GetMedianTimePast, nMedianTimeSpan = 11), arith_uint256.cpp
 * (SetCompact), validation.cpp (CBlockIndexWorkComparator). */
#include <blockkit/chain.h>
#include <blockkit/hex.h>

#include "chain_internal.h"
#include <blockkit/undo.h>

#include <stdlib.h>
#include <string.h>

/* ---- 256-bit arithmetic (little-endian 64-bit limbs) ---- */

typedef struct { uint64_t w[4]; } u256;

static int u256_is_zero(const u256 *a) { return !(a->w[0] | a->w[1] | a->w[2] | a->w[3]); }

static int u256_cmp(const u256 *a, const u256 *b)
{
    for (int i = 3; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void u256_add(u256 *r, const u256 *a, const u256 *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t s = a->w[i] + carry;
        uint64_t c1 = s < carry;
        uint64_t t = s + b->w[i];
        carry = c1 | (t < s);
        r->w[i] = t;
    }
}

static void u256_sub(u256 *r, const u256 *a, const u256 *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t x = a->w[i], y = b->w[i];
        uint64_t d = x - y - borrow;
        borrow = (x < y) | ((x == y) & borrow);
        r->w[i] = d;
    }
}

/* q = a / d (d != 0), restoring long division. */
static void u256_div(u256 *q, const u256 *a, const u256 *d)
{
    u256 r = {{0, 0, 0, 0}}, quo = {{0, 0, 0, 0}};
    for (int bit = 255; bit >= 0; bit--) {
        uint64_t top = r.w[3] >> 63;
        for (int i = 3; i > 0; i--) r.w[i] = (r.w[i] << 1) | (r.w[i - 1] >> 63);
        r.w[0] = (r.w[0] << 1) | ((a->w[bit / 64] >> (bit % 64)) & 1);
        if (top || u256_cmp(&r, d) >= 0) {
            u256_sub(&r, &r, d);
            quo.w[bit / 64] |= 1ULL << (bit % 64);
        }
    }
    *q = quo;
}

static void u256_to_be(const u256 *a, uint8_t out[32])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) out[31 - (8 * i + j)] = (uint8_t)(a->w[i] >> (8 * j));
}

static void u256_from_be(u256 *a, const uint8_t in[32])
{
    for (int i = 0; i < 4; i++) {
        a->w[i] = 0;
        for (int j = 0; j < 8; j++) a->w[i] |= (uint64_t)in[31 - (8 * i + j)] << (8 * j);
    }
}

static void proof(uint32_t bits, u256 *work)
{
    /* Core: arith_uint256::SetCompact. */
    uint32_t size = bits >> 24;
    uint32_t word = bits & 0x007fffff;
    u256 t = {{0, 0, 0, 0}};
    if (size <= 3) {
        t.w[0] = word >> (8 * (3 - size));
    } else {
        uint32_t shift = 8 * (size - 3);
        if (shift < 256) {
            uint32_t limb = shift / 64, off = shift % 64;
            t.w[limb] = (uint64_t)word << off;
            if (off && limb + 1 < 4) t.w[limb + 1] = (uint64_t)word >> (64 - off);
        }
    }
    int negative = word != 0 && (bits & 0x00800000) != 0;
    int overflow = word != 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
    /* Core: chain.cpp GetBlockProof. */
    memset(work, 0, sizeof *work);
    if (negative || overflow || u256_is_zero(&t)) return;
    u256 not_t, t1, one = {{1, 0, 0, 0}};
    for (int i = 0; i < 4; i++) not_t.w[i] = ~t.w[i];
    u256_add(&t1, &t, &one);
    u256_div(work, &not_t, &t1);
    u256_add(work, work, &one);
}

void bk_block_proof(uint32_t bits, uint8_t work_out[32])
{
    u256 w;
    proof(bits, &w);
    u256_to_be(&w, work_out);
}

/* ---- network genesis blocks (Core: kernel/chainparams.cpp) ---- */

typedef struct genesis_info {
    const char *hash_hex; /* display order */
    uint32_t time;
    uint32_t bits;
} genesis_info;

static const genesis_info genesis_of[BK_NET_COUNT_] = {
    [BK_NET_MAIN] = {"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f", 1231006505, 0x1d00ffff},
    [BK_NET_TESTNET3] = {"000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943", 1296688602, 0x1d00ffff},
    [BK_NET_TESTNET4] = {"00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043", 1714777860, 0x1d00ffff},
    [BK_NET_SIGNET] = {"00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6", 1598918400, 0x1e0377ae},
    [BK_NET_REGTEST] = {"0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206", 1296688602, 0x207fffff},
};

static bk_status genesis_hash(bk_network net, uint8_t out[32])
{
    bk_error e;
    if (bk_hex_decode_rev(out, genesis_of[net].hash_hex, 32, &e) != BK_OK)
        return BK_ERR_INVALID; /* the table above is 64 digits per network */
    return BK_OK;
}

/* ---- hash table ---- */

static size_t slot_of(const uint8_t hash[32], size_t mask)
{
    /* Block hashes are uniform in their first bytes (internal order). */
    uint64_t a = bk_load_le64(hash), b = bk_load_le64(hash + 8);
    return (size_t)((a ^ (b * 0x9e3779b97f4a7c15ULL)) & mask);
}

uint32_t bk_chain_table_find(const bk_chain *c, const uint8_t hash[32])
{
    if (!c->table_cap) return BK_CHAIN_NONE;
    size_t mask = c->table_cap - 1;
    for (size_t s = slot_of(hash, mask);; s = (s + 1) & mask) {
        uint32_t idx = c->table[s];
        if (idx == BK_CHAIN_NONE) return BK_CHAIN_NONE;
        if (memcmp(c->entries[idx].hash, hash, 32) == 0) return idx;
    }
}

void bk_chain_table_insert(bk_chain *c, uint32_t idx)
{
    size_t mask = c->table_cap - 1;
    size_t s = slot_of(c->entries[idx].hash, mask);
    while (c->table[s] != BK_CHAIN_NONE) s = (s + 1) & mask;
    c->table[s] = idx;
}

/* ---- scanning ---- */

bk_status bk_chain_add_file_report(bk_chain *c, bk_file_kind kind, uint32_t number, uint64_t records,
                                   bk_file_end end, uint64_t end_offset)
{
    if (c->n_files == c->cap_files) {
        size_t nc = c->cap_files ? c->cap_files * 2 : 16;
        bk_chain_file *nf = bk_realloc(c->alloc, c->files, c->cap_files * sizeof *nf, nc * sizeof *nf);
        if (!nf) return BK_ERR_NOMEM;
        c->files = nf;
        c->cap_files = nc;
    }
    bk_chain_file *r = &c->files[c->n_files++];
    r->kind = kind;
    r->number = number;
    r->records = records;
    r->end = end;
    r->end_offset = end_offset;
    return BK_OK;
}

/* The report of a file one scan read to its end. */
static bk_status add_file_report(bk_chain *c, const bk_blockfile *f, const bk_record_iter *it)
{
    return bk_chain_add_file_report(c, f->kind, f->number, it->count, it->end, it->end_offset);
}

/* Header hashes are computed in batches so that several SHA-256 streams
 * are in flight (bk_sha256d_msgs). */
#define HASH_BATCH 32

typedef struct hash_batch {
    uint8_t hdr[HASH_BATCH][BK_HEADER_SIZE];
    bk_sha256_seg seg[HASH_BATCH];
    bk_sha256_msg msg[HASH_BATCH];
    uint8_t out[HASH_BATCH * 32];
    size_t first; /* entry index of hdr[0] */
    size_t n;
} hash_batch;

static void hash_flush(bk_chain *c, hash_batch *hb)
{
    if (!hb->n) return;
    for (size_t i = 0; i < hb->n; i++) {
        hb->seg[i].data = hb->hdr[i];
        hb->seg[i].len = BK_HEADER_SIZE;
        hb->msg[i].segs = &hb->seg[i];
        hb->msg[i].nsegs = 1;
    }
    bk_sha256d_msgs(hb->out, hb->msg, hb->n);
    for (size_t i = 0; i < hb->n; i++) memcpy(c->entries[hb->first + i].hash, hb->out + 32 * i, 32);
    hb->n = 0;
}

static int cancelled(const volatile sig_atomic_t *cancel)
{
    return cancel && *cancel;
}

/* The records of blk file f through it (scan_blk sets it up). */
static bk_status scan_blk_records(bk_chain *c, const bk_blockfile *f, bk_record_iter *it,
                                  const volatile sig_atomic_t *cancel)
{
    bk_record rec;
    hash_batch hb;
    hb.n = 0;
    size_t first_entry = c->n_entries;
    while (bk_record_next(it, &rec)) {
        /* Polling every 1024 records is well under a millisecond apart. */
        if ((c->n_records & 1023) == 0 && cancelled(cancel)) return BK_ERR_CANCELLED;
        c->n_records++;
        uint8_t hdr[BK_HEADER_SIZE + 9];
        uint64_t n_tx;
        if (!bk_chain_record_header(it, &rec, hdr, &n_tx)) {
            c->n_bad_records++;
            continue;
        }
        if (c->n_entries == c->cap_entries) {
            size_t nc = c->cap_entries ? c->cap_entries * 2 : 1024;
            if (nc >= BK_CHAIN_NONE) return BK_ERR_NOMEM;
            bk_chain_entry *ne = bk_realloc(c->alloc, c->entries, c->cap_entries * sizeof *ne, nc * sizeof *ne);
            if (!ne) return BK_ERR_NOMEM;
            c->entries = ne;
            c->cap_entries = nc;
        }
        if (hb.n == 0) hb.first = c->n_entries;
        memcpy(hb.hdr[hb.n++], hdr, BK_HEADER_SIZE);
        bk_chain_entry *e = &c->entries[c->n_entries++];
        bk_chain_entry_from_header(e, hdr, n_tx);
        e->file = rec.file;
        e->offset = rec.offset;
        e->size = rec.size;
        if (hb.n == HASH_BATCH) hash_flush(c, &hb);
    }
    hash_flush(c, &hb);
    if (cancelled(cancel)) return BK_ERR_CANCELLED; /* (also ends a long zero-tail check early) */
    /* A crash while Core writes a block leaves its record framed but cut
     * short, the rest of the pre-allocated chunk zero: the header is
     * there, the block is not. Only a file's last record can be in that
     * state, so it alone is decoded; if it does not parse it is dropped. */
    if (c->n_entries > first_entry) {
        bk_chain_entry *e = &c->entries[c->n_entries - 1];
        uint8_t *buf = NULL;
        const uint8_t *bytes;
        bk_block_decoder dec;
        bk_block block;
        bk_status st = BK_OK;
        buf = bk_alloc(c->alloc, e->size ? e->size : 1);
        if (!buf) return BK_ERR_NOMEM;
        bk_block_decoder_init(&dec, c->alloc);
        if (bk_blockfile_bytes(f, e->offset, e->size, buf, e->size, &bytes, NULL) != BK_OK ||
            (st = bk_block_decode(&dec, bytes, e->size, &block, NULL)) != BK_OK) {
            if (st == BK_ERR_NOMEM) {
                bk_block_decoder_free(&dec);
                bk_free(c->alloc, buf, e->size ? e->size : 1);
                return BK_ERR_NOMEM;
            }
            c->n_entries--;
            c->n_bad_records++;
        }
        bk_block_decoder_free(&dec);
        bk_free(c->alloc, buf, e->size ? e->size : 1);
    }
    return add_file_report(c, f, it);
}

static bk_status scan_blk(bk_chain *c, const bk_blockfile *f, const volatile sig_atomic_t *cancel)
{
    bk_record_iter it;
    bk_record_iter_init(&it, f);
    it.cancel = cancel;
    uint8_t *win = bk_alloc(c->alloc, BK_CHAIN_SCAN_WINDOW); /* none: read without a window */
    if (win) bk_record_iter_window(&it, win, BK_CHAIN_SCAN_WINDOW);
    bk_status st = scan_blk_records(c, f, &it, cancel);
    if (win) bk_free(c->alloc, win, BK_CHAIN_SCAN_WINDOW);
    return st;
}

static int is_zero32(const uint8_t *p)
{
    for (int i = 0; i < 32; i++)
        if (p[i]) return 0;
    return 1;
}

/* Core: chain.h CBlockIndex::GetMedianTimePast - median of the nTime of the
 * block and up to 10 ancestors (the implied genesis counts). */
static int64_t median_time_past(const bk_chain *c, uint32_t idx, int implied_genesis, uint32_t genesis_time)
{
    int64_t t[11] = {0};
    int n = 0;
    uint32_t i = idx;
    for (; n < 11 && i != BK_CHAIN_NONE; i = c->entries[i].parent) t[n++] = c->entries[i].time;
    if (n < 11 && implied_genesis) t[n++] = genesis_time;
    for (int a = 1; a < n; a++) /* insertion sort: at most 11 values */
        for (int b = a; b > 0 && t[b - 1] > t[b]; b--) {
            int64_t x = t[b];
            t[b] = t[b - 1];
            t[b - 1] = x;
        }
    return t[n / 2];
}

/* Heights, work, and mediantime for every connected entry. stack has room
 * for n_entries indices. */
static bk_status connect_all(bk_chain *c, uint32_t *stack)
{
    uint8_t gen[32];
    bk_status gst = genesis_hash(c->net, gen);
    if (gst != BK_OK) return gst;
    u256 gen_work;
    proof(genesis_of[c->net].bits, &gen_work);
    uint32_t cached_bits = 0;
    u256 cached_work;
    proof(0, &cached_work);
    /* height: -1 unknown/orphan; use a separate "visited" marker: the
     * mediantime field holds 1 once visited (reset below). */
    for (size_t k = 0; k < c->n_entries; k++) c->entries[k].mediantime = 0;
    for (size_t k = 0; k < c->n_entries; k++) {
        if (c->entries[k].mediantime) continue;
        size_t sp = 0;
        uint32_t i = (uint32_t)k;
        /* Walk up to a visited ancestor or a root. */
        while (i != BK_CHAIN_NONE && !c->entries[i].mediantime) {
            stack[sp++] = i;
            c->entries[i].mediantime = 1;
            i = c->entries[i].parent;
        }
        /* Unwind from the top-most new entry down. */
        while (sp) {
            bk_chain_entry *e = &c->entries[stack[--sp]];
            u256 base, w;
            int connected = 1;
            int32_t h;
            if (e->parent != BK_CHAIN_NONE) {
                const bk_chain_entry *p = &c->entries[e->parent];
                connected = p->height >= 0;
                h = p->height + 1;
                if (connected) u256_from_be(&base, p->chainwork);
            } else if (is_zero32(e->prev_hash)) {
                h = 0;
                memset(&base, 0, sizeof base);
            } else if (memcmp(e->prev_hash, gen, 32) == 0) {
                h = 1;
                base = gen_work;
            } else {
                connected = 0;
                h = -1;
            }
            if (!connected) {
                e->height = -1;
                c->n_orphans++;
                continue;
            }
            if (e->bits != cached_bits) {
                cached_bits = e->bits;
                proof(e->bits, &cached_work);
            }
            u256_add(&w, &base, &cached_work);
            u256_to_be(&w, e->chainwork);
            e->height = h;
        }
    }
    for (size_t k = 0; k < c->n_entries; k++) {
        bk_chain_entry *e = &c->entries[k];
        if (e->height < 0) {
            e->mediantime = 0;
            continue;
        }
        /* Walk to this entry's root to learn whether the genesis is implied:
         * the 11-step window only reaches it for heights below 11. */
        int implied = 0;
        if (e->height < 11) {
            uint32_t i = (uint32_t)k;
            while (c->entries[i].parent != BK_CHAIN_NONE) i = c->entries[i].parent;
            implied = c->entries[i].height == 1;
        }
        e->mediantime = median_time_past(c, (uint32_t)k, implied, genesis_of[c->net].time);
    }
    return BK_OK;
}

static bk_status choose_best(bk_chain *c)
{
    c->tip = BK_CHAIN_NONE;
    for (size_t k = 0; k < c->n_entries; k++) {
        const bk_chain_entry *e = &c->entries[k];
        if (e->height < 0) continue;
        /* Core: CBlockIndexWorkComparator - more work wins; ties go to the
         * block seen first (file order here). */
        if (c->tip == BK_CHAIN_NONE || memcmp(e->chainwork, c->entries[c->tip].chainwork, 32) > 0)
            c->tip = (uint32_t)k;
    }
    if (c->tip == BK_CHAIN_NONE) return BK_OK;
    const bk_chain_entry *tip = &c->entries[c->tip];
    uint32_t root = c->tip;
    while (c->entries[root].parent != BK_CHAIN_NONE) root = c->entries[root].parent;
    c->base_height = c->entries[root].height;
    c->n_active = (size_t)(tip->height - c->base_height) + 1;
    c->active = bk_alloc(c->alloc, c->n_active * sizeof *c->active);
    if (!c->active) return BK_ERR_NOMEM;
    uint32_t next = BK_CHAIN_NONE;
    for (uint32_t i = c->tip; i != BK_CHAIN_NONE; i = c->entries[i].parent) {
        bk_chain_entry *e = &c->entries[i];
        e->active = 1;
        e->next = next;
        next = i;
        c->active[e->height - c->base_height] = i;
    }
    for (size_t k = 0; k < c->n_entries; k++)
        if (c->entries[k].height >= 0 && !c->entries[k].active) c->n_stale++;
    return BK_OK;
}

static bk_status index_entries(bk_chain *c)
{
    size_t cap = 16;
    while (cap < 2 * c->n_entries) cap *= 2;
    c->table = bk_alloc(c->alloc, cap * sizeof *c->table);
    if (!c->table) return BK_ERR_NOMEM;
    c->table_cap = cap;
    memset(c->table, 0xff, cap * sizeof *c->table);
    /* Drop duplicates (keep the first record), compacting in place. */
    size_t w = 0;
    for (size_t k = 0; k < c->n_entries; k++) {
        if (bk_chain_table_find(c, c->entries[k].hash) != BK_CHAIN_NONE) {
            c->n_duplicates++;
            continue;
        }
        if (w != k) c->entries[w] = c->entries[k];
        bk_chain_table_insert(c, (uint32_t)w);
        w++;
    }
    c->n_entries = w;
    for (size_t k = 0; k < c->n_entries; k++)
        c->entries[k].parent = bk_chain_table_find(c, c->entries[k].prev_hash);
    return BK_OK;
}

/* ---- undo pairing ---- */

typedef struct pair_ctx {
    uint8_t *buf;      /* de-obfuscation buffer for undo bytes */
    size_t cap;
    uint8_t *bbuf;     /* de-obfuscation buffer for block bytes */
    size_t bcap;
    bk_block_decoder dec;
    uint32_t last;     /* entry paired with the previous record */
    uint32_t *first_child; /* per entry: first child (file order), or BK_CHAIN_NONE */
    uint32_t *next_sib;    /* per entry: next child of the same parent */
    size_t n_links;
    int sorted_files;      /* entries are in ascending blk file order */
    const volatile sig_atomic_t *cancel;
} pair_ctx;

static bk_status grow(const bk_allocator *a, uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return BK_OK;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need) nc *= 2;
    uint8_t *nb = bk_realloc(a, *buf, *cap, nc);
    if (!nb) return BK_ERR_NOMEM;
    *buf = nb;
    *cap = nc;
    return BK_OK;
}

/* Whether e may own a record of rev file `file` holding n_txundo CTxUndo:
 * stored in blk file `file`, not yet paired, tx count n_txundo + 1. */
static int candidate(const bk_chain_entry *e, uint32_t file, uint64_t n_txundo)
{
    /* Orphans too: pairing needs only the parent hash. A genesis has no undo. */
    return e->file == file && !e->has_undo && !is_zero32(e->prev_hash) && (uint64_t)e->n_tx - 1 == n_txundo;
}

/* Core: the undo of a block has n_tx - 1 CTxUndo with one coin per input
 * of each non-coinbase tx; the undo must also parse. */
static int shape_matches(pair_ctx *pc, const bk_chain *c, const bk_blockfile *bf, const bk_chain_entry *e,
                         const uint8_t *undo, size_t undo_len)
{
    const uint8_t *bytes;
    bk_block block;
    bk_block_undo u;
    if (!bf || e->file != bf->number) return 0;
    if (grow(c->alloc, &pc->bbuf, &pc->bcap, e->size) != BK_OK ||
        bk_blockfile_bytes(bf, e->offset, e->size, pc->bbuf, pc->bcap, &bytes, NULL) != BK_OK)
        return 0;
    if (bk_block_decode(&pc->dec, bytes, e->size, &block, NULL) != BK_OK) return 0;
    if (bk_block_undo_parse(undo, undo_len, &u, NULL) != BK_OK) return 0;
    return bk_block_undo_check(&u, &block, NULL) == BK_OK;
}

/* Bounds of the pairing work per rev record (docs/blockfiles.md, "Undo
 * pairing"): near-linear in the size of the files whatever they hold
 * (02-chain-undo-pairing-quadratic). */
#define PAIR_SUCCESSOR_STEPS 64 /* best-chain successors of the last match looked through */
#define PAIR_WINDOW 1024        /* file positions either side of the last match searched */
#define PAIR_MAX_TRIES 64       /* checksums computed per record */
#define PAIR_MAX_CHILDREN 64    /* children of one parent looked at for siblings */

/* Entries sharing f's parent: through the child links when the parent is
 * known (at most PAIR_MAX_CHILDREN of them), else by scanning blk file f's
 * entries within PAIR_WINDOW positions of f. */
typedef struct sib_iter {
    uint32_t cur;
    size_t k, end;
    int linked;
    int seen;
    int overflow; /* more children than PAIR_MAX_CHILDREN */
} sib_iter;

static void sib_first(sib_iter *si, const pair_ctx *pc, const bk_chain *c, const bk_chain_entry *f, size_t first,
                      size_t end)
{
    size_t at = (size_t)(f - c->entries);
    si->linked = f->parent != BK_CHAIN_NONE;
    si->cur = si->linked ? pc->first_child[f->parent] : BK_CHAIN_NONE;
    si->k = at > first + PAIR_WINDOW ? at - PAIR_WINDOW : first;
    si->end = end - at > PAIR_WINDOW + 1 ? at + PAIR_WINDOW + 1 : end;
    si->seen = 0;
    si->overflow = 0;
}

static uint32_t sib_next(sib_iter *si, const bk_chain *c, const pair_ctx *pc, const bk_chain_entry *f)
{
    if (si->linked) {
        uint32_t r = si->cur;
        if (r == BK_CHAIN_NONE) return r;
        if (++si->seen > PAIR_MAX_CHILDREN) {
            si->overflow = 1;
            return BK_CHAIN_NONE;
        }
        si->cur = pc->next_sib[r];
        return r;
    }
    while (si->k < si->end) {
        size_t k = si->k++;
        if (c->entries[k].parent == BK_CHAIN_NONE && memcmp(c->entries[k].prev_hash, f->prev_hash, 32) == 0)
            return (uint32_t)k;
    }
    return BK_CHAIN_NONE;
}

static int try_entry(const bk_chain *c, uint32_t i, const bk_blockfile *rf, uint64_t n_txundo, const uint8_t *undo,
                     size_t len, const uint8_t ck[32], int *tries, const pair_ctx *pc)
{
    const bk_chain_entry *e = &c->entries[i];
    if (!candidate(e, rf->number, n_txundo)) return 0;
    /* A cancel request ends the tries (the build then returns
     * BK_ERR_CANCELLED): one record may be large. */
    if (pc->cancel && *pc->cancel) {
        *tries = PAIR_MAX_TRIES;
        return 0;
    }
    ++*tries;
    return bk_undo_checksum_verify(undo, len, e->prev_hash, ck, NULL) == BK_OK;
}

/* Pair one rev record. The checksum commits to the parent hash, so it
 * names the block unless siblings (same parent, same tx count) are in the
 * same blk file: only then is the shape decided by decoding the blocks
 * (bk_block_undo_check); see docs/blockfiles.md. Candidates are bounded:
 * the predicted block (records are in connection order: the best-chain
 * successor of the last match), then the same-shape blocks nearest to the
 * last match in file order, at most PAIR_MAX_TRIES checksums within
 * PAIR_WINDOW positions; a record that matches none of them is unpaired. */
static void pair_record(bk_chain *c, bk_record_iter *rit, const bk_blockfile *bf, const bk_record *rec,
                        pair_ctx *pc, size_t first, size_t end)
{
    const bk_blockfile *rf = rit->f;
    const uint8_t *undo;
    uint8_t ck[32];
    c->n_undo_records++;
    /* The checksum first: undo may point into the iterator's window, valid
     * until its next read. */
    if (grow(c->alloc, &pc->buf, &pc->cap, rec->size ? rec->size : 1) != BK_OK ||
        bk_record_iter_copy(rit, rec->offset + rec->size, ck, 32, NULL) != BK_OK ||
        bk_record_iter_bytes(rit, rec->offset, rec->size, pc->buf, pc->cap, &undo, NULL) != BK_OK) {
        c->n_undo_unpaired++;
        return;
    }
    bk_reader r;
    bk_reader_init(&r, undo, rec->size);
    uint64_t n_txundo = bk_read_compact_size(&r, 1);
    if (!bk_reader_ok(&r) || first == end) {
        c->n_undo_unpaired++;
        return;
    }
    uint32_t found = BK_CHAIN_NONE;
    int tries = 0;
    /* The predicted block: the first best-chain successor of the previous
     * match stored in this blk file. */
    uint32_t i = pc->last == BK_CHAIN_NONE ? BK_CHAIN_NONE : c->entries[pc->last].next;
    for (int steps = 0; steps < PAIR_SUCCESSOR_STEPS && i != BK_CHAIN_NONE; steps++, i = c->entries[i].next) {
        if (c->entries[i].file != rf->number) continue;
        if (try_entry(c, i, rf, n_txundo, undo, rec->size, ck, &tries, pc)) found = i;
        break;
    }
    /* Then outward from the previous match's position in this file (the
     * file's start for its first record). */
    size_t anchor = pc->last != BK_CHAIN_NONE && c->entries[pc->last].file == rf->number ? pc->last : first;
    for (size_t d = 0; found == BK_CHAIN_NONE && d <= PAIR_WINDOW && tries < PAIR_MAX_TRIES; d++) {
        int any = 0;
        if (anchor + d < end) {
            any = 1;
            if (try_entry(c, (uint32_t)(anchor + d), rf, n_txundo, undo, rec->size, ck, &tries, pc)) found = (uint32_t)(anchor + d);
        }
        if (found == BK_CHAIN_NONE && d && anchor >= first + d && tries < PAIR_MAX_TRIES) {
            any = 1;
            if (try_entry(c, (uint32_t)(anchor - d), rf, n_txundo, undo, rec->size, ck, &tries, pc)) found = (uint32_t)(anchor - d);
        }
        if (!any) break;
    }
    if (found == BK_CHAIN_NONE) {
        c->n_undo_unpaired++;
        return;
    }
    /* Siblings that the checksum cannot tell apart. */
    const bk_chain_entry *f = &c->entries[found];
    int siblings = 0;
    sib_iter si;
    uint32_t k;
    for (sib_first(&si, pc, c, f, first, end); (k = sib_next(&si, c, pc, f)) != BK_CHAIN_NONE;)
        if (k != found && candidate(&c->entries[k], rf->number, n_txundo)) siblings++;
    if (si.overflow) {
        /* A parent with more children than any real chain has: no
         * guess (counted unpaired). */
        c->n_undo_unpaired++;
        return;
    }
    if (siblings) {
        uint32_t pick = BK_CHAIN_NONE;
        if (shape_matches(pc, c, bf, f, undo, rec->size)) pick = found;
        for (sib_first(&si, pc, c, f, first, end); pick == BK_CHAIN_NONE && (k = sib_next(&si, c, pc, f)) != BK_CHAIN_NONE;)
            if (k != found && candidate(&c->entries[k], rf->number, n_txundo) &&
                shape_matches(pc, c, bf, &c->entries[k], undo, rec->size))
                pick = k;
        if (pick == BK_CHAIN_NONE) {
            c->n_undo_unpaired++;
            return;
        }
        found = pick;
    }
    bk_chain_entry *e = &c->entries[found];
    e->has_undo = 1;
    e->undo_file = rf->number;
    e->undo_offset = rec->offset;
    e->undo_size = rec->size;
    c->n_undo_paired++;
    pc->last = found;
}

/* Pair every record of rev file rf (blk file bf with the same number, or
 * NULL when absent: then nothing pairs). */
static bk_status scan_rev(bk_chain *c, const bk_blockfile *rf, const bk_blockfile *bf, pair_ctx *pc,
                          const volatile sig_atomic_t *cancel)
{
    /* Entries of blk file N are contiguous (scanned file by file); when the
     * files were scanned in ascending order, found by bisection. */
    size_t first = 0, end = 0;
    if (pc->sorted_files) {
        size_t lo = 0, hi = c->n_entries;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->entries[mid].file < rf->number) lo = mid + 1;
            else hi = mid;
        }
        first = lo;
    } else {
        while (first < c->n_entries && c->entries[first].file != rf->number) first++;
    }
    end = first;
    while (end < c->n_entries && c->entries[end].file == rf->number) end++;
    bk_record_iter it;
    bk_record rec;
    bk_record_iter_init(&it, rf);
    it.cancel = cancel;
    uint8_t *win = bk_alloc(c->alloc, BK_CHAIN_SCAN_WINDOW); /* none: read without a window */
    if (win) bk_record_iter_window(&it, win, BK_CHAIN_SCAN_WINDOW);
    while (bk_record_next(&it, &rec)) {
        /* Every record (its tries poll too: pair_ctx.cancel). */
        if (cancelled(cancel)) break;
        if (bf) pair_record(c, &it, bf, &rec, pc, first, end);
        else {
            c->n_undo_records++;
            c->n_undo_unpaired++;
        }
    }
    if (win) bk_free(c->alloc, win, BK_CHAIN_SCAN_WINDOW);
    if (cancelled(cancel)) return BK_ERR_CANCELLED;
    return add_file_report(c, rf, &it);
}

static void chain_init(bk_chain *c, bk_network net, const bk_allocator *alloc)
{
    memset(c, 0, sizeof *c);
    c->alloc = alloc;
    c->net = net;
    c->tip = BK_CHAIN_NONE;
}

static bk_status pair_init(pair_ctx *pc, const bk_chain *c, const bk_allocator *alloc)
{
    memset(pc, 0, sizeof *pc);
    bk_block_decoder_init(&pc->dec, alloc);
    pc->last = BK_CHAIN_NONE;
    pc->n_links = c->n_entries;
    if (!c->n_entries) return BK_OK;
    pc->first_child = bk_alloc(alloc, c->n_entries * sizeof *pc->first_child);
    pc->next_sib = bk_alloc(alloc, c->n_entries * sizeof *pc->next_sib);
    if (!pc->first_child || !pc->next_sib) return BK_ERR_NOMEM;
    pc->sorted_files = 1;
    for (size_t k = 1; k < c->n_entries; k++)
        if (c->entries[k].file < c->entries[k - 1].file) pc->sorted_files = 0;
    memset(pc->first_child, 0xff, c->n_entries * sizeof *pc->first_child);
    memset(pc->next_sib, 0xff, c->n_entries * sizeof *pc->next_sib);
    for (size_t k = c->n_entries; k-- > 0;) {
        uint32_t p = c->entries[k].parent;
        if (p == BK_CHAIN_NONE) continue;
        pc->next_sib[k] = pc->first_child[p];
        pc->first_child[p] = (uint32_t)k;
    }
    return BK_OK;
}

static void pair_free(pair_ctx *pc, const bk_allocator *alloc)
{
    bk_free(alloc, pc->buf, pc->cap);
    bk_free(alloc, pc->bbuf, pc->bcap);
    bk_free(alloc, pc->first_child, pc->n_links * sizeof *pc->first_child);
    bk_free(alloc, pc->next_sib, pc->n_links * sizeof *pc->next_sib);
    bk_block_decoder_free(&pc->dec);
}

/* After all blk files: table, heights, best chain. */
static bk_status finish_headers(bk_chain *c)
{
    bk_status st = index_entries(c);
    if (st != BK_OK) return st;
    uint32_t *stack = c->n_entries ? bk_alloc(c->alloc, c->n_entries * sizeof *stack) : NULL;
    if (c->n_entries && !stack) return BK_ERR_NOMEM;
    st = connect_all(c, stack);
    bk_free(c->alloc, stack, c->n_entries * sizeof *stack);
    if (st != BK_OK) return st;
    return choose_best(c);
}

static bk_status fail(bk_chain *c, bk_status st, bk_error *err)
{
    if (st == BK_ERR_NOMEM) bk_error_set(err, st, 0, "out of memory building the chain");
    if (st == BK_ERR_CANCELLED) bk_error_set(err, st, 0, "building the chain was cancelled");
    bk_chain_free(c);
    return st;
}

bk_status bk_chain_build_files(bk_chain *c, bk_network net, const bk_blockfile *blk, size_t n_blk,
                               const bk_blockfile *rev, size_t n_rev, const bk_allocator *alloc, bk_error *err)
{
    return bk_chain_build_files_opts(c, net, blk, n_blk, rev, n_rev, NULL, alloc, err);
}

bk_status bk_chain_build_files_opts(bk_chain *c, bk_network net, const bk_blockfile *blk, size_t n_blk,
                                    const bk_blockfile *rev, size_t n_rev, const bk_chain_opts *opts,
                                    const bk_allocator *alloc, bk_error *err)
{
    const volatile sig_atomic_t *cancel = opts ? opts->cancel : NULL;
    if (!bk_network_get(net)) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    chain_init(c, net, alloc);
    bk_status st = BK_OK;
    for (size_t i = 0; i < n_blk && st == BK_OK; i++)
        st = cancelled(cancel) ? BK_ERR_CANCELLED : scan_blk(c, &blk[i], cancel);
    if (st == BK_OK) st = cancelled(cancel) ? BK_ERR_CANCELLED : finish_headers(c);
    if (st != BK_OK) return fail(c, st, err);
    pair_ctx pc;
    st = pair_init(&pc, c, alloc);
    pc.cancel = cancel;
    for (size_t i = 0; i < n_rev && st == BK_OK; i++) {
        const bk_blockfile *bf = NULL;
        for (size_t j = 0; j < n_blk; j++)
            if (blk[j].number == rev[i].number) bf = &blk[j];
        st = cancelled(cancel) ? BK_ERR_CANCELLED : scan_rev(c, &rev[i], bf, &pc, cancel);
    }
    pair_free(&pc, alloc);
    return st == BK_OK ? BK_OK : fail(c, st, err);
}

bk_status bk_chain_build(bk_chain *c, const bk_blocksdir *d, const bk_allocator *alloc, bk_error *err)
{
    return bk_chain_build_opts(c, d, NULL, alloc, err);
}

bk_status bk_chain_build_opts(bk_chain *c, const bk_blocksdir *d, const bk_chain_opts *opts,
                              const bk_allocator *alloc, bk_error *err)
{
    const volatile sig_atomic_t *cancel = opts ? opts->cancel : NULL;
    chain_init(c, d->net, alloc);
    bk_status st = BK_OK;
    for (size_t i = 0; i < d->n_blk && st == BK_OK; i++) {
        if (cancelled(cancel)) {
            st = BK_ERR_CANCELLED;
            break;
        }
        bk_blockfile f;
        st = bk_blocksdir_open_file(d, BK_FILE_BLK, d->blk[i], &f, err);
        if (st != BK_OK) break;
        bk_blockfile_advise(&f, BK_ACCESS_RANDOM); /* headers only */
        st = scan_blk(c, &f, cancel);
        bk_blockfile_close(&f);
    }
    if (st == BK_OK) st = cancelled(cancel) ? BK_ERR_CANCELLED : finish_headers(c);
    if (st != BK_OK) return fail(c, st, err);
    pair_ctx pc;
    st = pair_init(&pc, c, alloc);
    pc.cancel = cancel;
    for (size_t i = 0; i < d->n_rev && st == BK_OK; i++) {
        if (cancelled(cancel)) {
            st = BK_ERR_CANCELLED;
            break;
        }
        bk_blockfile rf, bf;
        int have_blk = bk_blocksdir_has(d, BK_FILE_BLK, d->rev[i]);
        st = bk_blocksdir_open_file(d, BK_FILE_REV, d->rev[i], &rf, err);
        if (st != BK_OK) break;
        if (have_blk) {
            st = bk_blocksdir_open_file(d, BK_FILE_BLK, d->rev[i], &bf, err);
            if (st != BK_OK) {
                bk_blockfile_close(&rf);
                break;
            }
        }
        bk_blockfile_advise(&rf, BK_ACCESS_SEQUENTIAL); /* every byte is hashed */
        if (have_blk) bk_blockfile_advise(&bf, BK_ACCESS_RANDOM); /* siblings only */
        st = scan_rev(c, &rf, have_blk ? &bf : NULL, &pc, cancel);
        if (have_blk) bk_blockfile_close(&bf);
        bk_blockfile_close(&rf);
    }
    pair_free(&pc, alloc);
    return st == BK_OK ? BK_OK : fail(c, st, err);
}

void bk_chain_free(bk_chain *c)
{
    bk_free(c->alloc, c->entries, c->cap_entries * sizeof *c->entries);
    bk_free(c->alloc, c->table, c->table_cap * sizeof *c->table);
    bk_free(c->alloc, c->active, c->n_active * sizeof *c->active);
    bk_free(c->alloc, c->files, c->cap_files * sizeof *c->files);
    chain_init(c, c->net, c->alloc);
}

const bk_chain_entry *bk_chain_find(const bk_chain *c, const uint8_t hash[32])
{
    uint32_t i = bk_chain_table_find(c, hash);
    return i == BK_CHAIN_NONE ? NULL : &c->entries[i];
}

const bk_chain_entry *bk_chain_at_height(const bk_chain *c, int64_t height)
{
    if (c->tip == BK_CHAIN_NONE || height < c->base_height) return NULL;
    uint64_t k = (uint64_t)(height - c->base_height);
    return k < c->n_active ? &c->entries[c->active[k]] : NULL;
}

bk_status bk_chain_context_fill(const bk_chain *c, const bk_chain_entry *e, bk_chain_context *ctx, bk_error *err)
{
    if (e->height < 0)
        return bk_error_set(err, BK_ERR_NOT_FOUND, 0, "block is not connected to a genesis block");
    const bk_chain_entry *tip = &c->entries[c->tip];
    memset(ctx, 0, sizeof *ctx);
    ctx->network = c->net;
    ctx->height = e->height;
    /* Core: rpc/blockchain.cpp blockheaderToJSON - confirmations -1 off the active chain. */
    ctx->confirmations = e->active ? (int64_t)tip->height - e->height + 1 : -1;
    ctx->mediantime = e->mediantime;
    memcpy(ctx->chainwork, e->chainwork, 32);
    if (e->active && e->next != BK_CHAIN_NONE) {
        ctx->has_next = 1;
        memcpy(ctx->next_hash, c->entries[e->next].hash, 32);
    }
    ctx->tip_bits = tip->bits;
    return BK_OK;
}
