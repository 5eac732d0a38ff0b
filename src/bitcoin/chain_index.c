/* The chain from Bitcoin Core's block index (blockkit/blockindex.h):
 * 'b' records through a private LevelDB snapshot, heights and positions as
 * Core recorded them, work and median time past from the stored headers,
 * the tip from the chainstate, record sizes from the blk/rev record
 * headers, and blocks appended to blk files after the index's last flush.
 * Core: node/blockstorage.cpp (LoadBlockIndexGuts, LoadBlockIndex),
 * validation.cpp (LoadChainTip, CBlockIndexWorkComparator), chain.h
 * (GetMedianTimePast), rpc/blockchain.cpp (GetPruneHeight). */
#include <blockkit/blockindex.h>
#include <blockkit/hex.h>
#include <blockkit/leveldb.h>

#include "base/threads.h"
#include "chain_internal.h"
#include "crypto/sha256_headers.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* ---- helpers ---- */

/* Rebuild the table for n_entries (capacity >= 2n, a power of two). */
static bk_status table_build(bk_chain *c)
{
    size_t cap = 16;
    while (cap < 2 * c->n_entries) cap *= 2;
    if (cap != c->table_cap) {
        uint32_t *t = bk_alloc(c->alloc, cap * sizeof *t);
        if (!t) return BK_ERR_NOMEM;
        bk_free(c->alloc, c->table, c->table_cap * sizeof *c->table);
        c->table = t;
        c->table_cap = cap;
    }
    memset(c->table, 0xff, cap * sizeof *c->table);
    for (size_t k = 0; k < c->n_entries; k++) bk_chain_table_insert(c, (uint32_t)k);
    return BK_OK;
}

static int cancelled(const bk_chain_opts *o)
{
    return o && o->cancel && *o->cancel;
}

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static int is_zero32(const uint8_t *p)
{
    for (int i = 0; i < 32; i++)
        if (p[i]) return 0;
    return 1;
}

static bk_status grow_entries(bk_chain *c)
{
    if (c->n_entries < c->cap_entries) return BK_OK;
    size_t nc = c->cap_entries ? c->cap_entries + c->cap_entries / 2 : 1024;
    if (nc >= BK_CHAIN_NONE) nc = BK_CHAIN_NONE - 1;
    if (nc <= c->n_entries) return BK_ERR_NOMEM;
    bk_chain_entry *ne = bk_realloc(c->alloc, c->entries, c->cap_entries * sizeof *ne, nc * sizeof *ne);
    if (!ne) return BK_ERR_NOMEM;
    c->entries = ne;
    c->cap_entries = nc;
    return BK_OK;
}

/* ---- two threads ---- */

/* The caller's allocator as the threads of one build share it: one call
 * at a time (an allocator need not be thread-safe). */
typedef struct locked_alloc {
    bk_allocator base;
    const bk_allocator *inner;
    pthread_mutex_t mu;
} locked_alloc;

static void *la_alloc(void *ctx, size_t size)
{
    locked_alloc *l = ctx;
    pthread_mutex_lock(&l->mu);
    void *p = bk_alloc(l->inner, size);
    pthread_mutex_unlock(&l->mu);
    return p;
}

static void *la_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    locked_alloc *l = ctx;
    pthread_mutex_lock(&l->mu);
    void *p = bk_realloc(l->inner, ptr, old_size, new_size);
    pthread_mutex_unlock(&l->mu);
    return p;
}

static void la_free(void *ctx, void *ptr, size_t size)
{
    locked_alloc *l = ctx;
    pthread_mutex_lock(&l->mu);
    bk_free(l->inner, ptr, size);
    pthread_mutex_unlock(&l->mu);
}

static int locked_alloc_init(locked_alloc *l, const bk_allocator *inner)
{
    l->base.alloc = la_alloc;
    l->base.realloc = la_realloc;
    l->base.free = la_free;
    l->base.ctx = l;
    l->inner = inner;
    return pthread_mutex_init(&l->mu, NULL) == 0;
}

typedef void (*task_fn)(void *arg);

typedef struct task {
    task_fn fn;
    void *arg;
} task;

static void *task_main(void *p)
{
    task *t = p;
    t->fn(t->arg);
    return NULL;
}

/* Tests only (tests/test_blockindex.c): 1 runs the two tasks of a pair
 * on the calling thread in order, 2 the second first; 0 (always outside
 * tests) on two threads. */
extern int bk_chain_index_test_order;
int bk_chain_index_test_order = 0;

/* a(aa) on this thread while b(ba) runs on another; both here, a first,
 * when no thread can be had (the results do not depend on it). */
static void run_pair(task_fn a, void *aa, task_fn b, void *ba)
{
    if (bk_chain_index_test_order) {
        if (bk_chain_index_test_order == 2) {
            b(ba);
            a(aa);
        } else {
            a(aa);
            b(ba);
        }
        return;
    }
    pthread_t th;
    task tb = {b, ba};
    unsigned spawned = bk_threads_start(&th, 1, task_main, &tb, 0);
    a(aa);
    if (spawned) bk_threads_join(&th, 1);
    else b(ba);
}

/* ---- reading the index ---- */

#if defined(__GNUC__)
#define BK_PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define BK_PREFETCH_W(p) ((void)(p))
#endif

/* The entries are written at random places (by height, in key order):
 * with 4 KiB pages nearly every record costs a TLB miss and every page a
 * fault. Transparent huge pages for the 2 MiB-aligned inside of the
 * allocation (advice only: the bytes are ours, and nothing changes when it
 * is refused). */
static void advise_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + len) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

/* Headers hashed against their keys this many at a time (src/crypto/sha256_headers.c:
 * sixteen AVX-512 lanes). */
#define HASH_BATCH 512
#define PLACE_AHEAD 16

/* The 'b' records are read in two key ranges ('b' + hash below 0x80...
 * and from it), one per thread, into the same entries: the first block of
 * each height a thread meets claims c->entries[height] (an atomic bit per
 * height), later ones of a height, and heights past the preallocated
 * entries, go to that thread's overflow, in key order. The entries end in
 * height order, then key order (a chain has one block at most heights): the
 * overflows are joined (the low range's first), a slot the other thread's
 * record of higher key took first goes to the lower key (swapped with it
 * in the overflow), the overflow is sorted and merged in. No sort of the
 * whole array. */
typedef struct idx_shared {
    bk_ldb *db;
    bk_chain_entry *entries;  /* the slots, cap of them */
    _Atomic uint64_t *occ;    /* bit h: entries[h] holds a block of height h */
    size_t cap;
    const bk_allocator *alloc; /* shared by the threads */
    const bk_chain_opts *opts;
} idx_shared;

typedef struct idx_part {
    const idx_shared *sh;
    uint8_t start[2], limit[2];
    size_t slen, llen;        /* llen 0: to the end of the 'b' records */
    bk_chain_entry *ov;       /* records without a slot, in key order */
    size_t n_ov, cap_ov;
    size_t n_primary;         /* slots taken */
    size_t slots_end;         /* one past the highest slot taken */
    int32_t max_h;
    uint64_t n_no_data;
    bk_status st;
    bk_error err;
    /* Entries made, waiting for their places (slots, at random: prefetched
     * when the record is read, written when the ring is full). */
    size_t n_ring;
    bk_chain_entry ring[PLACE_AHEAD];
    bk_chain_entry *ring_dst[PLACE_AHEAD];
    /* Headers waiting to be hashed against their keys (the entries are
     * stored before: a mismatch fails the build, which keeps nothing). */
    size_t n;
    uint8_t hdr[HASH_BATCH][BK_HEADER_SIZE];
    uint8_t key_hash[HASH_BATCH][32];
    uint8_t out[HASH_BATCH * 32];
} idx_part;

static void entry_from_record(bk_chain_entry *e, const bk_disk_block_index *r)
{
    memset(e, 0, sizeof *e);
    memcpy(e->hash, r->hash, 32);
    memcpy(e->prev_hash, r->header.prev_hash, 32);
    e->height = r->height;
    e->version = r->header.version;
    e->time = r->header.time;
    e->bits = r->header.bits;
    e->nonce = r->header.nonce;
    e->n_tx = r->n_tx;
    e->parent = e->next = BK_CHAIN_NONE;
    e->status = r->status;
    e->failed = (r->status & BK_BLOCK_FAILED_MASK) != 0;
    e->no_data = !(r->status & BK_BLOCK_HAVE_DATA);
    if (r->status & BK_BLOCK_HAVE_DATA) {
        e->file = (uint32_t)r->file;
        e->offset = r->data_pos;
    }
    if (r->status & BK_BLOCK_HAVE_UNDO) {
        /* Core: a block's undo goes to the rev file with its blk number. */
        e->has_undo = 1;
        e->undo_file = (uint32_t)r->file;
        e->undo_offset = r->undo_pos;
    }
}

static bk_status part_flush(idx_part *p)
{
    if (!p->n) return BK_OK;
    bk_header_hash_many(p->out, &p->hdr[0][0], p->n);
    size_t n = p->n;
    p->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (memcmp(p->out + 32 * i, p->key_hash[i], 32) == 0) continue;
        uint8_t key[33];
        char kh[67], hex[65];
        key[0] = 'b';
        memcpy(key + 1, p->key_hash[i], 32);
        bk_hex_encode(kh, key, 33);
        kh[66] = 0;
        bk_hash_to_hex(hex, p->out + 32 * i);
        return bk_error_set(&p->err, BK_ERR_MISMATCH, 0,
                            "blocks/index key %s: the stored header hashes to %s, not to its key", kh, hex);
    }
    return BK_OK;
}

/* The entries waiting in the ring to their places. */
static void part_place(idx_part *p)
{
    for (size_t i = 0; i < p->n_ring; i++) memcpy(p->ring_dst[i], &p->ring[i], sizeof p->ring[i]);
    p->n_ring = 0;
}

static bk_status part_record(idx_part *p, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    const idx_shared *sh = p->sh;
    bk_disk_block_index r;
    bk_error e2;
    bk_status st = bk_disk_block_index_decode(k, kl, v, vl, 0, &r, &e2);
    if (st != BK_OK) {
        /* The records before it first: the error told is the first in key
         * order. */
        bk_status fs = part_flush(p);
        if (fs != BK_OK) return fs;
        p->err = e2;
        return st;
    }
    size_t h = (size_t)r.height;
    bk_chain_entry *e = NULL;
    if (h < sh->cap) {
        uint64_t bit = (uint64_t)1 << (h % 64);
        if (!(atomic_fetch_or_explicit(&sh->occ[h / 64], bit, memory_order_relaxed) & bit)) {
            e = &sh->entries[h];
            p->n_primary++;
            if (h + 1 > p->slots_end) p->slots_end = h + 1;
        }
    }
    if (!e) {
        if (p->n_ov == p->cap_ov) {
            part_place(p); /* (pointers into the overflow) */
            size_t nc = p->cap_ov ? p->cap_ov + p->cap_ov / 2 : 64;
            if (nc >= BK_CHAIN_NONE) nc = BK_CHAIN_NONE - 1;
            bk_chain_entry *no = nc > p->n_ov ? bk_realloc(sh->alloc, p->ov, p->cap_ov * sizeof *no, nc * sizeof *no) : NULL;
            if (!no) return bk_error_set(&p->err, BK_ERR_NOMEM, 0, "out of memory");
            p->ov = no;
            p->cap_ov = nc;
        }
        e = &p->ov[p->n_ov++];
    }
    if (p->n_ring == PLACE_AHEAD) part_place(p);
    BK_PREFETCH_W(e);
    BK_PREFETCH_W((const uint8_t *)e + 64);
    BK_PREFETCH_W((const uint8_t *)e + 128);
    p->ring_dst[p->n_ring] = e;
    e = &p->ring[p->n_ring++];
    entry_from_record(e, &r);
    p->n_no_data += e->no_data;
    if (r.height > p->max_h) p->max_h = r.height;
    memcpy(p->hdr[p->n], v + vl - BK_HEADER_SIZE, BK_HEADER_SIZE);
    memcpy(p->key_hash[p->n], r.hash, 32);
    if (++p->n == HASH_BATCH) return part_flush(p);
    return BK_OK;
}

static void part_run(void *arg)
{
    idx_part *p = arg;
    bk_ldb_iter *it = NULL;
    static const uint8_t b = 'b';
    p->st = bk_ldb_iter_new_range(p->sh->db, &b, 1, p->start, p->slen, p->llen ? p->limit : NULL, p->llen, &it,
                                  &p->err);
    if (p->st != BK_OK) return;
    const uint8_t *k, *v;
    size_t kl, vl;
    uint64_t n = 0;
    while (p->st == BK_OK && bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        if ((++n & 4095) == 0 && cancelled(p->sh->opts)) {
            p->st = bk_error_set(&p->err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
        p->st = part_record(p, k, kl, v, vl);
    }
    part_place(p);
    if (p->st == BK_OK) p->st = bk_ldb_iter_status(it, &p->err);
    if (p->st == BK_OK) p->st = part_flush(p);
    bk_ldb_iter_free(it);
}

/* The records of the other kinds Core's BlockTreeDB writes. */
static bk_status read_other(bk_chain *c, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, bk_error *err)
{
    bk_status st = BK_OK;
    switch (bk_index_key_kind_of(k, kl)) {
    case BK_INDEX_KEY_FILE: {
        bk_block_file_info fi;
        st = bk_block_file_info_decode(k, kl, v, vl, &fi, err);
        break;
    }
    case BK_INDEX_KEY_LAST_FILE:
        if (kl == 1) st = bk_index_last_file_decode(v, vl, &c->last_file, err);
        break;
    case BK_INDEX_KEY_REINDEX:
        if (kl == 1) c->reindexing = 1;
        break;
    case BK_INDEX_KEY_FLAG: {
        const uint8_t *name;
        size_t nl;
        int val;
        st = bk_index_flag_decode(k, kl, v, vl, &name, &nl, &val, err);
        if (st == BK_OK && nl == 16 && memcmp(name, "prunedblockfiles", 16) == 0) c->pruned = (uint8_t)val;
        break;
    }
    default:
        break;
    }
    return st;
}

/* a[0, n) into height order, stable (key order within a height), in
 * place: a counting sort gives each entry its place, then cycles are
 * followed. Heights are below n. */
static bk_status sort_by_height(const bk_allocator *al, bk_chain_entry *a, size_t n, int32_t max_h)
{
    if (n < 2) return BK_OK;
    size_t nc = (size_t)max_h + 2;
    uint32_t *count = bk_alloc(al, nc * sizeof *count);
    uint32_t *dest = bk_alloc(al, n * sizeof *dest);
    if (!count || !dest) {
        bk_free(al, count, nc * sizeof *count);
        bk_free(al, dest, n * sizeof *dest);
        return BK_ERR_NOMEM;
    }
    memset(count, 0, nc * sizeof *count);
    for (size_t k = 0; k < n; k++) count[a[k].height + 1]++;
    for (size_t h = 1; h < nc; h++) count[h] += count[h - 1];
    for (size_t k = 0; k < n; k++) dest[k] = count[a[k].height]++;
    for (size_t k = 0; k < n; k++) {
        while (dest[k] != k) {
            uint32_t j = dest[k];
            bk_chain_entry t = a[k];
            a[k] = a[j];
            a[j] = t;
            dest[k] = dest[j];
            dest[j] = j;
        }
    }
    bk_free(al, count, nc * sizeof *count);
    bk_free(al, dest, n * sizeof *dest);
    return BK_OK;
}

static int cmp_entry_hash(const void *a, const void *b)
{
    return memcmp(((const bk_chain_entry *)a)->hash, ((const bk_chain_entry *)b)->hash, 32);
}

static int occ_has(const idx_shared *sh, size_t h)
{
    return h < sh->cap && (atomic_load_explicit(&sh->occ[h / 64], memory_order_relaxed) >> (h % 64) & 1);
}

/* The placed records into c->entries [0, n) in height order (key order
 * within a height): the two overflows joined into lo's, the slots closed
 * up, the overflow sorted and merged in from the back. */
static bk_status place_finish(bk_chain *c, const idx_shared *sh, idx_part *lo, idx_part *hi, bk_error *err)
{
    c->n_entries = 0;
    if (hi->n_ov) {
        size_t n = lo->n_ov + hi->n_ov;
        if (n > lo->cap_ov) {
            bk_chain_entry *no = bk_realloc(c->alloc, lo->ov, lo->cap_ov * sizeof *no, n * sizeof *no);
            if (!no) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            lo->ov = no;
            lo->cap_ov = n;
        }
        memcpy(lo->ov + lo->n_ov, hi->ov, hi->n_ov * sizeof *hi->ov);
        lo->n_ov = n;
        bk_free(c->alloc, hi->ov, hi->cap_ov * sizeof *hi->ov);
        hi->ov = NULL;
        hi->n_ov = hi->cap_ov = 0;
    }
    size_t n_primary = lo->n_primary + hi->n_primary;
    size_t slots_end = lo->slots_end > hi->slots_end ? lo->slots_end : hi->slots_end;
    int32_t max_h = lo->max_h > hi->max_h ? lo->max_h : hi->max_h;
    bk_chain_entry *ov = lo->ov;
    size_t n_ov = lo->n_ov;
    size_t n = n_primary + n_ov;
    if (!n) return BK_OK;
    /* A slot keeps the lowest key of its height: the other thread's record
     * may have claimed it first. */
    int swapped = 0;
    for (size_t k = 0; k < n_ov; k++) {
        size_t h = (size_t)ov[k].height;
        if (occ_has(sh, h) && memcmp(ov[k].hash, c->entries[h].hash, 32) < 0) {
            bk_chain_entry t = ov[k];
            ov[k] = c->entries[h];
            c->entries[h] = t;
            swapped = 1;
        }
    }
    /* Every height needs that many ancestors in the index. */
    if ((size_t)max_h >= n) {
        const bk_chain_entry *bad = NULL;
        size_t h = (size_t)max_h;
        if (occ_has(sh, h)) bad = &c->entries[h];
        const bk_chain_entry *first = NULL;
        for (size_t k = 0; !bad && k < n_ov; k++)
            if (ov[k].height == max_h && (!first || memcmp(ov[k].hash, first->hash, 32) < 0)) first = &ov[k];
        if (!bad) bad = first;
        static const uint8_t none[32];
        char hex[65];
        bk_hash_to_hex(hex, bad ? bad->hash : none);
        return bk_error_set(err, BK_ERR_INVALID, 0, "blocks/index: block %s has height %d but the index holds only %zu blocks",
                            hex, (int)max_h, n);
    }
    if (slots_end != n_primary) {
        size_t w = 0;
        for (size_t h = 0; h < slots_end; h++)
            if (occ_has(sh, h)) {
                if (w != h) c->entries[w] = c->entries[h];
                w++;
            }
    }
    if (!n_ov) {
        c->n_entries = n;
        return BK_OK;
    }
    if (sort_by_height(c->alloc, ov, n_ov, max_h) != BK_OK) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    if (swapped) {
        /* Key order within each height again. */
        for (size_t i = 0, j; i < n_ov; i = j) {
            for (j = i + 1; j < n_ov && ov[j].height == ov[i].height; j++) {}
            if (j - i > 1) qsort(ov + i, j - i, sizeof *ov, cmp_entry_hash);
        }
    }
    if (!n_primary) {
        /* Nothing preallocated (the records are in LevelDB's log): the
         * overflow is the array. */
        bk_free(c->alloc, c->entries, c->cap_entries * sizeof *c->entries);
        c->entries = ov;
        c->cap_entries = lo->cap_ov;
        lo->ov = NULL;
        lo->n_ov = lo->cap_ov = 0;
        c->n_entries = n;
        return BK_OK;
    }
    if (c->cap_entries < n) {
        bk_chain_entry *ne = bk_realloc(c->alloc, c->entries, c->cap_entries * sizeof *ne, n * sizeof *ne);
        if (!ne) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        c->entries = ne;
        c->cap_entries = n;
    }
    size_t i = n_primary, j = n_ov, w = n;
    while (j > 0) {
        if (i > 0 && c->entries[i - 1].height > ov[j - 1].height) c->entries[--w] = c->entries[--i];
        else c->entries[--w] = ov[--j];
    }
    c->n_entries = n;
    return BK_OK;
}

/* Every record of the kinds Core's BlockTreeDB writes: the 'b' records on
 * two threads, then the others. */
static bk_status read_index(bk_chain *c, const char *indexdir, const bk_chain_opts *opts, bk_error *err)
{
    static const uint8_t others[] = {'f', 'l', 'R', 'F'};
    bk_ldb *db = NULL;
    bk_status st = bk_ldb_open(indexdir, opts ? opts->tmpdir : NULL, &db, err);
    if (st != BK_OK) return st;
    idx_part *parts = bk_alloc(c->alloc, 2 * sizeof *parts);
    locked_alloc la;
    if (!parts || !locked_alloc_init(&la, c->alloc)) {
        bk_free(c->alloc, parts, 2 * sizeof *parts);
        bk_ldb_close(db);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    idx_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.db = db;
    sh.alloc = &la.base;
    sh.opts = opts;
    /* Size the entries from the tables' bytes for the 'b' range (a record
     * takes about 130 bytes there, Core stores them uncompressed): one
     * allocation, the slots by height (and 1024 spare). Records still in
     * the log are not counted; they go to the overflow. */
    static const uint8_t b0 = 'b', c0 = 'c';
    uint64_t approx = bk_ldb_approximate_size(db, &b0, 1, &c0, 1);
    if (approx >= 128 && approx / 128 < BK_CHAIN_NONE / 2) {
        size_t want = (size_t)(approx / 128) + 1024, nw = (want + 63) / 64;
        bk_chain_entry *e = bk_alloc(c->alloc, want * sizeof *e);
        _Atomic uint64_t *occ = e ? bk_alloc(c->alloc, nw * sizeof *occ) : NULL;
        if (occ) {
            advise_huge(e, want * sizeof *e);
            for (size_t i = 0; i < nw; i++) atomic_init(&occ[i], 0);
            c->entries = e;
            c->cap_entries = want;
            sh.entries = e;
            sh.occ = occ;
            sh.cap = want;
        } else {
            bk_free(c->alloc, e, want * sizeof *e);
        }
    }
    for (int i = 0; i < 2; i++) {
        idx_part *p = &parts[i];
        p->sh = &sh;
        p->ov = NULL;
        p->n_ov = p->cap_ov = p->n_primary = p->slots_end = 0;
        p->max_h = -1;
        p->n_no_data = 0;
        p->st = BK_OK;
        bk_error_clear(&p->err);
        p->n = 0;
        p->n_ring = 0;
    }
    /* ['b', 'b' 80) and ['b' 80, end of 'b'). */
    parts[0].start[0] = 'b';
    parts[0].slen = 1;
    parts[0].limit[0] = 'b';
    parts[0].limit[1] = 0x80;
    parts[0].llen = 2;
    parts[1].start[0] = 'b';
    parts[1].start[1] = 0x80;
    parts[1].slen = 2;
    parts[1].llen = 0;
    run_pair(part_run, &parts[0], part_run, &parts[1]);
    pthread_mutex_destroy(&la.mu);
    /* The first error in key order. */
    for (int i = 0; i < 2 && st == BK_OK; i++)
        if (parts[i].st != BK_OK) {
            st = parts[i].st;
            if (err) *err = parts[i].err;
        }
    c->n_no_data = parts[0].n_no_data + parts[1].n_no_data;
    uint64_t n = 0;
    for (size_t p = 0; p < sizeof others && st == BK_OK; p++) {
        bk_ldb_iter *it = NULL;
        st = bk_ldb_iter_new(db, &others[p], 1, &it, err);
        if (st != BK_OK) break;
        const uint8_t *k, *v;
        size_t kl, vl;
        while (st == BK_OK && bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
            if ((++n & 4095) == 0 && cancelled(opts)) {
                st = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
                break;
            }
            st = read_other(c, k, kl, v, vl, err);
        }
        if (st == BK_OK) st = bk_ldb_iter_status(it, err);
        bk_ldb_iter_free(it);
    }
    bk_ldb_close(db);
    if (st == BK_OK) st = place_finish(c, &sh, &parts[0], &parts[1], err);
    bk_free(c->alloc, sh.occ, (sh.cap + 63) / 64 * sizeof *sh.occ);
    for (int i = 0; i < 2; i++) bk_free(c->alloc, parts[i].ov, parts[i].cap_ov * sizeof *parts[i].ov);
    bk_free(c->alloc, parts, 2 * sizeof *parts);
    return st;
}

/* ---- links, work, median time past ---- */

/* Core: chain.h GetMedianTimePast (the block and up to 10 ancestors). */
#define MTP_SPAN 11

/* Chain work and median time past of the entries connected last: when
 * the next one's parent is the entry before (a chain walked upwards, the
 * usual case), its work is that entry's plus its own proof, and its
 * median window the parent's, the oldest time out and its own in (kept
 * sorted); otherwise both are read from its ancestors afresh. */
typedef struct link_state {
    uint32_t last;              /* entry the state below is for, or BK_CHAIN_NONE */
    uint64_t work[4];           /* its chainwork, most significant limb first */
    uint32_t ring[MTP_SPAN];    /* its and its ancestors' times, oldest at head once full */
    uint32_t sorted[MTP_SPAN];  /* the same, ascending */
    int n, head;
    uint32_t bits;              /* proof cache: of these bits */
    uint64_t proof[4];
    int proof_valid;
} link_state;

static void link_state_init(link_state *ls)
{
    memset(ls, 0, sizeof *ls);
    ls->last = BK_CHAIN_NONE;
}

static void sorted_insert(uint32_t *a, int n, uint32_t v)
{
    int i = n;
    while (i > 0 && a[i - 1] > v) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = v;
}

static void sorted_remove(uint32_t *a, int n, uint32_t v)
{
    int i = 0;
    while (i < n - 1 && a[i] != v) i++;
    for (; i < n - 1; i++) a[i] = a[i + 1];
}

/* The window of entry p (p and up to 10 ancestors), from the entries. */
static void mtp_window_load(const bk_chain *c, link_state *ls, uint32_t p)
{
    uint32_t t[MTP_SPAN];
    int n = 0;
    for (uint32_t i = p; n < MTP_SPAN && i != BK_CHAIN_NONE; i = c->entries[i].parent) t[n++] = c->entries[i].time;
    ls->n = n;
    ls->head = 0;
    for (int q = 0; q < n; q++) {
        ls->ring[q] = t[n - 1 - q]; /* oldest first */
        sorted_insert(ls->sorted, q, t[n - 1 - q]);
    }
}

static void connect_entry(bk_chain *c, uint32_t k, link_state *ls)
{
    bk_chain_entry *e = &c->entries[k];
    if (!ls->proof_valid || ls->bits != e->bits) {
        uint8_t w[32];
        bk_block_proof(e->bits, w);
        for (int i = 0; i < 4; i++) ls->proof[i] = load_be64(w + 8 * i);
        ls->bits = e->bits;
        ls->proof_valid = 1;
    }
    if (e->parent == BK_CHAIN_NONE) {
        memset(ls->work, 0, sizeof ls->work);
        ls->n = ls->head = 0;
    } else if (e->parent != ls->last) {
        for (int i = 0; i < 4; i++) ls->work[i] = load_be64(c->entries[e->parent].chainwork + 8 * i);
        mtp_window_load(c, ls, e->parent);
    }
    /* work += proof, 256-bit */
    uint64_t carry = 0;
    for (int i = 3; i >= 0; i--) {
        uint64_t x = ls->work[i], s = x + ls->proof[i];
        uint64_t c1 = s < x;
        uint64_t t = s + carry;
        carry = c1 | (t < s);
        ls->work[i] = t;
        store_be64(e->chainwork + 8 * i, t);
    }
    if (ls->n == MTP_SPAN) {
        sorted_remove(ls->sorted, ls->n, ls->ring[ls->head]);
        ls->ring[ls->head] = e->time;
        ls->head = (ls->head + 1) % MTP_SPAN;
        sorted_insert(ls->sorted, MTP_SPAN - 1, e->time);
    } else {
        ls->ring[ls->n] = e->time;
        sorted_insert(ls->sorted, ls->n, e->time);
        ls->n++;
    }
    e->mediantime = ls->sorted[ls->n / 2];
    ls->last = k;
}

static bk_status link_all(bk_chain *c, const bk_chain_opts *opts, bk_error *err)
{
    link_state ls;
    link_state_init(&ls);
    /* Entries are in height order: the parent is among the (usually one)
     * entries of the previous height, [grp_prev, grp_cur). */
    size_t grp_prev = 0, grp_cur = 0;
    for (size_t k = 0; k < c->n_entries; k++) {
        if (k && c->entries[k].height != c->entries[k - 1].height) {
            grp_prev = c->entries[k].height == c->entries[k - 1].height + 1 ? grp_cur : k;
            grp_cur = k;
        }
        if ((k & 16383) == 0 && cancelled(opts)) return bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
        bk_chain_entry *e = &c->entries[k];
        char hex[65], phex[65];
        if (is_zero32(e->prev_hash)) {
            if (e->height != 0) {
                bk_hash_to_hex(hex, e->hash);
                return bk_error_set(err, BK_ERR_INVALID, 0,
                                    "blocks/index: block %s has no parent but height %d", hex, (int)e->height);
            }
        } else {
            uint32_t p = BK_CHAIN_NONE;
            if (grp_cur - grp_prev <= 8) {
                for (size_t q = grp_prev; q < grp_cur && p == BK_CHAIN_NONE; q++)
                    if (memcmp(c->entries[q].hash, e->prev_hash, 32) == 0) p = (uint32_t)q;
            } else {
                p = bk_chain_table_find(c, e->prev_hash);
            }
            if (p == BK_CHAIN_NONE) p = bk_chain_table_find(c, e->prev_hash); /* (then the height check names it) */
            if (p == BK_CHAIN_NONE) {
                bk_hash_to_hex(hex, e->hash);
                bk_hash_to_hex(phex, e->prev_hash);
                return bk_error_set(err, BK_ERR_INVALID, 0,
                                    "blocks/index: the parent %s of block %s is not in the index", phex, hex);
            }
            if (c->entries[p].height + 1 != e->height) {
                bk_hash_to_hex(hex, e->hash);
                return bk_error_set(err, BK_ERR_INVALID, 0,
                                    "blocks/index: block %s has height %d, its parent %d", hex, (int)e->height,
                                    (int)c->entries[p].height);
            }
            e->parent = p;
        }
        /* Heights ascend, so the parent is done. */
        connect_entry(c, (uint32_t)k, &ls);
    }
    return BK_OK;
}

/* ---- record sizes from the blk / rev files ---- */

typedef bk_chain_pos pos_ref;

static int cmp_pos(const void *a, const void *b)
{
    const pos_ref *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int ref_less(const pos_ref *x, const pos_ref *y)
{
    return cmp_pos(x, y) < 0;
}

/* The usual disorder: heights ascend through the files but for a few
 * blocks out of place (a stale sibling stored after its rival's
 * successors). Those few are taken out (a ref leaves the run when it is
 * below the last one kept or above the next one), sorted apart and merged
 * back from the back. Returns 0, refs untouched, when more than n/16 would
 * leave (the radix sort does it then). */
static int sort_refs_nearly(const bk_allocator *a, pos_ref *refs, size_t n)
{
    size_t out = 0, lim = n / 16;
    const pos_ref *last = NULL;
    for (size_t i = 0; i < n; i++) {
        if ((last && ref_less(&refs[i], last)) || (i + 1 < n && ref_less(&refs[i + 1], &refs[i]))) {
            if (++out > lim) return 0;
        } else {
            last = &refs[i];
        }
    }
    pos_ref *ex = bk_alloc(a, out * sizeof *ex);
    if (!ex) return 0;
    size_t kept = 0, m = 0;
    last = NULL;
    for (size_t i = 0; i < n; i++) {
        /* (The same test as above, on the original order: refs[i + 1] is
         * not yet moved, refs[kept - 1] is the last one kept.) */
        if ((last && ref_less(&refs[i], &refs[kept - 1])) || (i + 1 < n && ref_less(&refs[i + 1], &refs[i]))) {
            ex[m++] = refs[i];
        } else {
            refs[kept++] = refs[i];
            last = &refs[kept - 1];
        }
    }
    qsort(ex, m, sizeof *ex, cmp_pos);
    size_t i = kept, j = m, w = n;
    while (j > 0) {
        if (i > 0 && ref_less(&ex[j - 1], &refs[i - 1])) refs[--w] = refs[--i];
        else refs[--w] = ex[--j];
    }
    bk_free(a, ex, out * sizeof *ex);
    return 1;
}

/* Sort refs by (file, pos, idx) in O(n): LSD radix over the 64-bit key
 * file << 32 | pos in 16-bit digits (positions are Core's uint32
 * nDataPos / nUndoPos), skipping digits that are the same everywhere;
 * stable, so equal keys keep their (ascending) idx order. Falls back to
 * qsort when the scratch buffer cannot be had. */
void bk_chain_sort_positions(const bk_allocator *a, bk_chain_pos *refs, size_t n)
{
    if (n < 2) return;
    size_t unsorted = 0;
    for (size_t i = 1; i < n && !unsorted; i++) unsorted = cmp_pos(&refs[i - 1], &refs[i]) > 0;
    if (!unsorted) return; /* heights ascend through the files */
    if (sort_refs_nearly(a, refs, n)) return;
    int radix_ok = 1;
    for (size_t i = 0; i < n && radix_ok; i++) radix_ok = refs[i].pos <= UINT32_MAX;
    pos_ref *tmp = radix_ok ? bk_alloc(a, n * sizeof *tmp) : NULL;
    uint32_t *count = radix_ok ? bk_alloc(a, 65536 * sizeof *count) : NULL;
    if (!tmp || !count) {
        bk_free(a, tmp, n * sizeof *tmp);
        bk_free(a, count, 65536 * sizeof *count);
        qsort(refs, n, sizeof *refs, cmp_pos);
        return;
    }
    pos_ref *src = refs, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++) {
            uint64_t key = (uint64_t)src[i].file << 32 | src[i].pos;
            count[(key >> shift) & 0xffff]++;
        }
        uint64_t first = (uint64_t)src[0].file << 32 | src[0].pos;
        if (count[(first >> shift) & 0xffff] == n) continue; /* one value of this digit */
        uint32_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            uint32_t c0 = count[d];
            count[d] = sum;
            sum += c0;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t key = (uint64_t)src[i].file << 32 | src[i].pos;
            dst[count[(key >> shift) & 0xffff]++] = src[i];
        }
        pos_ref *t = src;
        src = dst;
        dst = t;
    }
    if (src != refs) memcpy(refs, src, n * sizeof *refs);
    bk_free(a, tmp, n * sizeof *tmp);
    bk_free(a, count, 65536 * sizeof *count);
}

static bk_status pos_fail(bk_error *err, bk_status st, const bk_chain_entry *e, bk_file_kind kind, uint64_t pos,
                          const char *what)
{
    uint8_t key[33];
    char kh[67];
    key[0] = 'b';
    memcpy(key + 1, e->hash, 32);
    bk_hex_encode(kh, key, 33);
    kh[66] = 0;
    return bk_error_set(err, st, pos, "blocks/index key %s: %s position %llu in %s%05u.dat: %s", kh,
                        kind == BK_FILE_BLK ? "block data" : "undo", (unsigned long long)pos,
                        kind == BK_FILE_BLK ? "blk" : "rev", kind == BK_FILE_BLK ? e->file : e->undo_file, what);
}

/* Per file of `kind`: the covered end (the byte after the last record the
 * index points into), for the appended-block scan. */
typedef struct covered {
    uint32_t file;
    uint64_t end;
} covered;

typedef struct covered_list {
    covered *v;
    size_t n, cap;
} covered_list;

static bk_status covered_add(const bk_allocator *a, covered_list *l, uint32_t file, uint64_t end)
{
    if (l->n && l->v[l->n - 1].file == file) {
        if (end > l->v[l->n - 1].end) l->v[l->n - 1].end = end;
        return BK_OK;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        covered *nv = bk_realloc(a, l->v, l->cap * sizeof *nv, nc * sizeof *nv);
        if (!nv) return BK_ERR_NOMEM;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n].file = file;
    l->v[l->n].end = end;
    l->n++;
    return BK_OK;
}

static uint64_t covered_end(const covered_list *l, uint32_t file)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->v[mid].file < file) lo = mid + 1;
        else hi = mid;
    }
    return lo < l->n && l->v[lo].file == file ? l->v[lo].end : 0;
}

/* The bytes read_sizes checks of each record come through one window
 * over the file: a single pread covers every record whose checked bytes
 * lie within WIN_SIZE of the first, as long as no gap between two of them
 * exceeds WIN_GAP (reading a few KiB through costs less than another
 * system call; records far apart, as on mainnet, get a read each). */
#define WIN_SIZE (256u << 10)
#define WIN_GAP 4096u

typedef struct read_window {
    uint8_t *buf;
    uint64_t lo, hi; /* file bytes [lo, hi) are in buf, de-obfuscated */
} read_window;

/* The bytes read_sizes checks for a record at pos: its 8-byte record
 * header, and for blocks the 80-byte header after it (cut at the file's
 * end: a record running past it is refused on its size). */
static void checked_range(bk_file_kind kind, uint64_t pos, uint64_t flen, uint64_t *lo, uint64_t *hi)
{
    *lo = pos - 8;
    *hi = kind == BK_FILE_BLK ? (pos + BK_HEADER_SIZE < flen ? pos + BK_HEADER_SIZE : flen) : pos;
}

/* Make refs[i]'s checked bytes available in w (one pread for it and the
 * records after it in the same file that fit the window), de-obfuscated
 * whole: de-obfuscating only each record's checked bytes (8 + 80 of ~220
 * on the synthetic chain) into a small buffer measured slower (a call per
 * record, and its reads of the bytes just stored stall). 0 when the read
 * failed (the file shrank): the caller reads that record on its own. */
static int window_fill(read_window *w, const bk_blockfile *f, bk_file_kind kind, const pos_ref *refs, size_t i,
                       size_t n)
{
    uint64_t lo, hi;
    checked_range(kind, refs[i].pos, f->len, &lo, &hi);
    if (lo >= w->lo && hi <= w->hi) return 1;
    uint64_t end = hi;
    for (size_t j = i + 1; j < n && refs[j].file == refs[i].file; j++) {
        uint64_t l2, h2;
        if (refs[j].pos < 8 || refs[j].pos > f->len) break;
        checked_range(kind, refs[j].pos, f->len, &l2, &h2);
        if (h2 - lo > WIN_SIZE || (l2 > end && l2 - end > WIN_GAP)) break;
        if (h2 > end) end = h2;
    }
    w->lo = w->hi = 0;
    if (bk_blockfile_copy(f, lo, w->buf, (size_t)(end - lo), NULL) != BK_OK) return 0;
    w->lo = lo;
    w->hi = end;
    return 1;
}

/* Per record the index points at, from the bytes before and at it: the
 * record header (the network magic, then the size, which must keep the
 * record and for undo its 32-byte checksum inside the file), and for a
 * block its header against the stored one (all but the merkle root, which
 * the entry does not keep). With trust, a record's size is the distance to
 * the next one the index knows in the file (checked to leave room for a
 * header), and only the last record of each file is read. */
typedef struct sizes_out {
    uint64_t n_missing;  /* entries of files not there */
    uint64_t n_no_data;  /* of them, blocks that lost their data */
} sizes_out;

static bk_status read_sizes(bk_chain *c, const bk_blocksdir *d, bk_file_kind kind, const bk_chain_opts *opts,
                            int trust, covered_list *cov, sizes_out *out, bk_error *err)
{
    if (!c->n_entries) return BK_OK;
    /* (Sized for every entry: one pass over them, not a count first.) */
    size_t ncap = c->n_entries, n = 0;
    pos_ref *refs = bk_alloc(c->alloc, ncap * sizeof *refs);
    if (!refs) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    for (size_t k = 0; k < c->n_entries; k++) {
        const bk_chain_entry *e = &c->entries[k];
        if (kind == BK_FILE_BLK ? e->no_data : !e->has_undo) continue;
        refs[n].file = kind == BK_FILE_BLK ? e->file : e->undo_file;
        refs[n].pos = kind == BK_FILE_BLK ? e->offset : e->undo_offset;
        refs[n].idx = (uint32_t)k;
        n++;
    }
    read_window w = {n ? bk_alloc(c->alloc, WIN_SIZE) : NULL, 0, 0};
    if (!n || !w.buf) {
        bk_free(c->alloc, refs, ncap * sizeof *refs);
        return n ? bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory") : BK_OK;
    }
    bk_chain_sort_positions(c->alloc, refs, n);
    const uint8_t *magic = bk_network_get(c->net)->magic;
    uint64_t tail = kind == BK_FILE_REV ? BK_UNDO_CHECKSUM_SIZE : 0;
    bk_status st = BK_OK;
    for (size_t i = 0; i < n && st == BK_OK;) {
        uint32_t file = refs[i].file;
        if (cancelled(opts)) {
            st = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
        if (!bk_blocksdir_has(d, kind, file)) {
            /* Pruned after the index was read (a running node), or a copy
             * without it: its blocks have no data (or undo) here. */
            for (; i < n && refs[i].file == file; i++) {
                bk_chain_entry *e = &c->entries[refs[i].idx];
                if (kind == BK_FILE_BLK) {
                    e->no_data = 1;
                    e->offset = 0;
                    out->n_no_data++;
                } else {
                    e->has_undo = 0;
                    e->undo_offset = 0;
                }
                out->n_missing++;
            }
            continue;
        }
        bk_blockfile f;
        st = bk_blocksdir_open_file(d, kind, file, &f, err);
        if (st != BK_OK) break;
        bk_blockfile_advise(&f, BK_ACCESS_RANDOM);
        w.lo = w.hi = 0;
        /* (Files are read with pread, never mapped: nothing to drop.) */
        for (; i < n && refs[i].file == file; i++) {
            bk_chain_entry *e = &c->entries[refs[i].idx];
            uint64_t pos = refs[i].pos;
            uint8_t hdr[8 + BK_HEADER_SIZE];
            const uint8_t *rec = hdr; /* the record header, then (blocks) the block header */
            char what[160];
            if (pos < 8 || pos > f.len) {
                snprintf(what, sizeof what, "past the end of the file (%zu bytes)", f.len);
                st = pos_fail(err, BK_ERR_INVALID, e, kind, pos, what);
                break;
            }
            if (trust && i + 1 < n && refs[i + 1].file == file) {
                /* Records are contiguous: this one ends where the next
                 * one's 8-byte header begins (nothing read). */
                uint64_t next = refs[i + 1].pos, min = kind == BK_FILE_BLK ? BK_HEADER_SIZE + 1 : 1;
                if (next < pos + min + tail + 8 || next - pos - tail - 8 > UINT32_MAX) {
                    snprintf(what, sizeof what, "the next record the index knows in the file is at %llu",
                             (unsigned long long)next);
                    st = pos_fail(err, BK_ERR_INVALID, e, kind, pos, what);
                    break;
                }
                uint32_t isize = (uint32_t)(next - pos - tail - 8);
                if (kind == BK_FILE_BLK) e->size = isize;
                else e->undo_size = isize;
                continue;
            }
            uint64_t lo, hi;
            checked_range(kind, pos, f.len, &lo, &hi);
            if (window_fill(&w, &f, kind, refs, i, n)) rec = w.buf + (lo - w.lo);
            else if (bk_blockfile_copy(&f, lo, hdr, (size_t)(hi - lo), NULL) != BK_OK) hi = lo; /* shrank */
            if (hi - lo < 8 || memcmp(rec, magic, 4) != 0) {
                /* Another network's files (a regtest directory read as main):
                 * say which, and the --chain to use. */
                const bk_network_params *other = NULL;
                for (int k = 0; k < BK_NET_COUNT_ && !other && hi - lo >= 8; k++)
                    if (memcmp(bk_network_get((bk_network)k)->magic, rec, 4) == 0) other = bk_network_get((bk_network)k);
                if (other) {
                    st = bk_error_set(err, BK_ERR_MAGIC, pos - 8,
                                      "%s%05u.dat: record magic of %s (%02x%02x%02x%02x), not %s's: use --chain %s",
                                      kind == BK_FILE_BLK ? "blk" : "rev", f.number, other->name, rec[0], rec[1],
                                      rec[2], rec[3], bk_network_get(c->net)->name, other->name);
                } else {
                    st = pos_fail(err, BK_ERR_INVALID, e, kind, pos, "no record header (network magic) before it");
                }
                break;
            }
            uint32_t size = bk_load_le32(rec + 4);
            if (kind == BK_FILE_BLK && size > BK_HEADER_SIZE && pos + BK_HEADER_SIZE <= f.len) {
                /* The block there must be this one: as a reader trusts
                 * the position. */
                const uint8_t *h = rec + 8;
                if (hi - lo < 8 + BK_HEADER_SIZE || (int32_t)bk_load_le32(h) != e->version ||
                    memcmp(h + 4, e->prev_hash, 32) != 0 || bk_load_le32(h + 68) != e->time ||
                    bk_load_le32(h + 72) != e->bits || bk_load_le32(h + 76) != e->nonce) {
                    st = pos_fail(err, BK_ERR_MISMATCH, e, kind, pos, "another block's header is there");
                    break;
                }
            }
            if ((kind == BK_FILE_BLK && size < BK_HEADER_SIZE + 1) || pos + size + tail > f.len) {
                snprintf(what, sizeof what, "its record of %u bytes%s runs past the end of the file (%zu bytes)",
                         size, tail ? " and checksum" : "", f.len);
                st = pos_fail(err, BK_ERR_INVALID, e, kind, pos, what);
                break;
            }
            if (kind == BK_FILE_BLK) e->size = size;
            else e->undo_size = size;
            if ((st = covered_add(c->alloc, cov, file, pos + size + tail)) != BK_OK) {
                bk_error_set(err, st, 0, "out of memory");
                break;
            }
        }
        bk_blockfile_close(&f);
    }
    bk_free(c->alloc, refs, ncap * sizeof *refs);
    bk_free(c->alloc, w.buf, WIN_SIZE);
    return st;
}

/* ---- links and sizes on two threads ---- */

/* The table, links, work and median time past, and the undo sizes on this
 * thread; the block sizes on another. They touch different fields of the
 * entries (table and links: hash, prev_hash, height, bits, time, parent,
 * chainwork, mediantime; blk sizes: file, offset, size, no_data and the
 * header fields; undo sizes: has_undo, undo_*). */
typedef struct links_task {
    bk_chain *c;
    const bk_blocksdir *d;
    const bk_chain_opts *opts;
    int trust;
    covered_list *cov;
    sizes_out out;
    bk_status st;        /* the first error of the task */
    bk_status st_sizes;  /* BK_OK unless it came from read_sizes */
    bk_error err;
    /* The chainstate's best block (NULL: none): the tip, and the best
     * chain walked, here (they touch neither the sizes nor no_data). */
    const uint8_t *best;
    int best_missing;
    bk_status st_walk;
    bk_error err_walk;
} links_task;

static bk_status active_walk(bk_chain *c, bk_error *err);

static void links_task_run(void *arg)
{
    links_task *t = arg;
    if ((t->st = table_build(t->c)) != BK_OK) {
        bk_error_set(&t->err, t->st, 0, "out of memory");
        return;
    }
    if ((t->st = link_all(t->c, t->opts, &t->err)) != BK_OK) return;
    if (t->best) {
        uint32_t tip = bk_chain_table_find(t->c, t->best);
        if (tip == BK_CHAIN_NONE) {
            t->best_missing = 1;
        } else {
            t->c->tip = tip;
            t->c->tip_from_chainstate = 1;
            t->st_walk = active_walk(t->c, &t->err_walk);
        }
    }
    t->st_sizes = t->st = read_sizes(t->c, t->d, BK_FILE_REV, t->opts, t->trust, t->cov, &t->out, &t->err);
}

static void blk_sizes_run(void *arg)
{
    links_task *t = arg;
    t->st_sizes = t->st = read_sizes(t->c, t->d, BK_FILE_BLK, t->opts, t->trust, t->cov, &t->out, &t->err);
}

static bk_status links_and_sizes(bk_chain *c, const bk_blocksdir *d, const bk_chain_opts *opts, int trust,
                                 covered_list *cov_blk, covered_list *cov_rev, const uint8_t *best, bk_error *err)
{
    locked_alloc la;
    if (!locked_alloc_init(&la, c->alloc)) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    const bk_allocator *own = c->alloc;
    c->alloc = &la.base;
    links_task a, b;
    memset(&a, 0, sizeof a);
    a.c = c;
    a.d = d;
    a.opts = opts;
    a.trust = trust;
    b = a;
    a.cov = cov_rev;
    b.cov = cov_blk;
    a.best = best;
    bk_error_clear(&a.err);
    bk_error_clear(&b.err);
    bk_error_clear(&a.err_walk);
    run_pair(links_task_run, &a, blk_sizes_run, &b);
    c->alloc = own;
    pthread_mutex_destroy(&la.mu);
    c->n_missing += a.out.n_missing + b.out.n_missing;
    c->n_no_data += b.out.n_no_data;
    /* The first error in the order of a serial build: table, links, block
     * sizes, undo sizes, the tip, the best chain. */
    const links_task *bad = a.st != BK_OK && a.st_sizes == BK_OK ? &a : b.st != BK_OK ? &b : a.st != BK_OK ? &a : NULL;
    if (bad) {
        if (err) *err = bad->err;
        return bad->st;
    }
    if (a.best_missing) {
        char hex[65];
        bk_hash_to_hex(hex, best);
        return bk_error_set(err, BK_ERR_INVALID, 0, "the chainstate's best block %s is not in the block index", hex);
    }
    if (a.st_walk != BK_OK && err) *err = a.err_walk;
    return a.st_walk;
}

/* ---- blocks past the index's last flush ---- */

/* The records of blk files past what the index covers. A record whose hash
 * the index knows with data is a duplicate; one the index knows only by
 * its header gets its data position; others become entries (linked below).
 * The last record of a file is decoded in full: an interrupted write is
 * dropped, as in the header scan. */
static bk_status scan_appended(bk_chain *c, const bk_blocksdir *d, const covered_list *cov, const bk_chain_opts *opts,
                               size_t *first_new, bk_error *err)
{
    *first_new = c->n_entries;
    bk_block_decoder dec;
    bk_block_decoder_init(&dec, c->alloc);
    uint8_t *buf = NULL;
    size_t cap = 0;
    uint8_t *win = NULL; /* made for the first file with records past the index; none: no window */
    bk_status st = BK_OK;
    for (size_t fi = 0; fi < d->n_blk && st == BK_OK; fi++) {
        if (cancelled(opts)) {
            st = bk_error_set(err, BK_ERR_CANCELLED, 0, "cancelled");
            break;
        }
        uint32_t num = d->blk[fi];
        uint64_t from = covered_end(cov, num);
        bk_blockfile f;
        st = bk_blocksdir_open_file(d, BK_FILE_BLK, num, &f, err);
        if (st != BK_OK) break;
        if (from > f.len) from = f.len; /* the file shrank: nothing past */
        if (!win && from < f.len) win = bk_alloc(c->alloc, BK_CHAIN_SCAN_WINDOW);
        bk_record_iter it;
        bk_record rec;
        bk_record_iter_init(&it, &f);
        if (win) bk_record_iter_window(&it, win, BK_CHAIN_SCAN_WINDOW);
        it.pos = from;
        uint32_t last_new = BK_CHAIN_NONE;
        int last_created = 0;
        uint64_t found = 0;
        while (st == BK_OK && bk_record_next(&it, &rec)) {
            uint8_t hdr[BK_HEADER_SIZE + 9];
            uint64_t n_tx;
            if (!bk_chain_record_header(&it, &rec, hdr, &n_tx)) {
                c->n_bad_records++;
                continue;
            }
            c->n_records++;
            found++;
            uint8_t hash[32];
            bk_header_hash(hdr, hash);
            uint32_t known = bk_chain_table_find(c, hash);
            bk_chain_entry *e;
            if (known != BK_CHAIN_NONE && !c->entries[known].no_data) {
                c->n_duplicates++;
                last_new = BK_CHAIN_NONE;
                continue;
            }
            if (known != BK_CHAIN_NONE) {
                e = &c->entries[known];
                e->no_data = 0;
                c->n_no_data--;
                last_new = known;
                last_created = 0;
            } else {
                if ((st = grow_entries(c)) != BK_OK) {
                    bk_error_set(err, st, 0, "out of memory");
                    break;
                }
                last_new = (uint32_t)c->n_entries++;
                last_created = 1;
                e = &c->entries[last_new];
                bk_chain_entry_from_header(e, hdr, n_tx);
                memcpy(e->hash, hash, 32);
                /* Insert now so a second copy in the tail is a duplicate. */
                if (2 * c->n_entries > c->table_cap) st = table_build(c);
                else bk_chain_table_insert(c, last_new);
                if (st != BK_OK) {
                    bk_error_set(err, st, 0, "out of memory");
                    break;
                }
            }
            e->file = num;
            e->offset = rec.offset;
            e->size = rec.size;
            c->n_appended++;
        }
        if (st == BK_OK && last_new != BK_CHAIN_NONE) {
            bk_chain_entry *e = &c->entries[last_new];
            const uint8_t *bytes;
            bk_block block;
            bk_status dst = BK_OK;
            /* buf for a block the window does not serve (over half of
             * it, or no window), obfuscated or not: a plain file is read
             * with pread too. */
            if (e->size > cap) {
                uint8_t *nb = bk_realloc(c->alloc, buf, cap, e->size);
                if (!nb) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                else {
                    buf = nb;
                    cap = e->size;
                }
            }
            if (st == BK_OK &&
                (bk_record_iter_bytes(&it, e->offset, e->size, buf, cap, &bytes, NULL) != BK_OK ||
                 (dst = bk_block_decode(&dec, bytes, e->size, &block, NULL)) != BK_OK)) {
                if (dst == BK_ERR_NOMEM) st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                else {
                    /* Interrupted write: forget it again. */
                    c->n_bad_records++;
                    c->n_appended--;
                    if (last_created) {
                        c->n_entries--;
                        if ((st = table_build(c)) != BK_OK) bk_error_set(err, st, 0, "out of memory");
                    } else {
                        e->no_data = 1;
                        e->offset = 0;
                        e->size = 0;
                        c->n_no_data++;
                    }
                }
            }
        }
        if (st == BK_OK)
            st = bk_chain_add_file_report(c, BK_FILE_BLK, num, found, it.end, it.end_offset);
        bk_blockfile_close(&f);
    }
    bk_free(c->alloc, buf, cap);
    if (win) bk_free(c->alloc, win, BK_CHAIN_SCAN_WINDOW);
    bk_block_decoder_free(&dec);
    return st;
}

/* Connect the appended entries [first, n): their parents may be appended
 * too and come later in the files, so repeat until nothing changes. */
static void link_appended(bk_chain *c, size_t first)
{
    link_state ls;
    link_state_init(&ls);
    int progress = 1;
    while (progress) {
        progress = 0;
        for (size_t k = first; k < c->n_entries; k++) {
            bk_chain_entry *e = &c->entries[k];
            if (e->height >= 0) continue;
            uint32_t p = bk_chain_table_find(c, e->prev_hash);
            if (p == BK_CHAIN_NONE || c->entries[p].height < 0) continue;
            e->parent = p;
            e->height = c->entries[p].height + 1;
            connect_entry(c, (uint32_t)k, &ls);
            progress = 1;
        }
    }
    for (size_t k = first; k < c->n_entries; k++)
        if (c->entries[k].height < 0) c->n_orphans++;
}

/* Undo records past what the index covers in rev files: they belong to
 * blocks connected after the last flush. The checksum (parent hash ||
 * CBlockUndo) and the tx count name the block among those of the blk file
 * with the same number that have no undo yet; the best chain is preferred. */
static int undo_fits(const bk_chain_entry *e, uint64_t n_txundo, const uint8_t *undo, size_t len,
                     const uint8_t ck[32])
{
    return !e->no_data && !e->has_undo && e->height > 0 && (uint64_t)e->n_tx - 1 == n_txundo &&
           bk_undo_checksum_verify(undo, len, e->prev_hash, ck, NULL) == BK_OK;
}

static bk_status scan_appended_undo(bk_chain *c, const bk_blocksdir *d, const covered_list *cov, bk_error *err)
{
    uint8_t *buf = NULL;
    size_t cap = 0;
    uint8_t *win = NULL; /* as in scan_appended */
    bk_status st = BK_OK;
    /* Candidates (blocks with data, no undo yet), by blk file: made when
     * the first record past the index is found. */
    pos_ref *cand = NULL;
    size_t n_cand = 0;
    int have_cand = 0;
    uint32_t last = BK_CHAIN_NONE;
    size_t lo = 0; /* first candidate of the current file (rev files ascend) */
    for (size_t fi = 0; fi < d->n_rev && st == BK_OK; fi++) {
        uint32_t num = d->rev[fi];
        uint64_t from = covered_end(cov, num);
        bk_blockfile f;
        st = bk_blocksdir_open_file(d, BK_FILE_REV, num, &f, err);
        if (st != BK_OK) break;
        if (from > f.len) from = f.len;
        if (!win && from < f.len) win = bk_alloc(c->alloc, BK_CHAIN_SCAN_WINDOW);
        bk_record_iter it;
        bk_record rec;
        bk_record_iter_init(&it, &f);
        if (win) bk_record_iter_window(&it, win, BK_CHAIN_SCAN_WINDOW);
        it.pos = from;
        size_t hi = 0;
        int range_set = 0;
        while (st == BK_OK && bk_record_next(&it, &rec)) {
            const uint8_t *undo;
            uint8_t ck[32];
            if (!have_cand) {
                have_cand = 1;
                for (size_t k = 0; k < c->n_entries; k++) n_cand += !c->entries[k].no_data && !c->entries[k].has_undo;
                cand = n_cand ? bk_alloc(c->alloc, n_cand * sizeof *cand) : NULL;
                if (n_cand && !cand) {
                    st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                    break;
                }
                size_t m = 0;
                for (size_t k = 0; k < c->n_entries; k++)
                    if (!c->entries[k].no_data && !c->entries[k].has_undo) {
                        cand[m].file = c->entries[k].file;
                        cand[m].pos = c->entries[k].offset;
                        cand[m].idx = (uint32_t)k;
                        m++;
                    }
                bk_chain_sort_positions(c->alloc, cand, n_cand);
            }
            if (!range_set) {
                range_set = 1;
                while (lo < n_cand && cand[lo].file < num) lo++;
                hi = lo;
                while (hi < n_cand && cand[hi].file == num) hi++;
            }
            if (rec.size > cap) {
                uint8_t *nb = bk_realloc(c->alloc, buf, cap, rec.size);
                if (!nb) {
                    st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                    break;
                }
                buf = nb;
                cap = rec.size;
            }
            c->n_undo_records++;
            if (bk_record_iter_copy(&it, rec.offset + rec.size, ck, 32, NULL) != BK_OK ||
                bk_record_iter_bytes(&it, rec.offset, rec.size, buf, cap, &undo, NULL) != BK_OK) {
                c->n_undo_unpaired++;
                continue;
            }
            bk_reader r;
            bk_reader_init(&r, undo, rec.size);
            uint64_t n_txundo = bk_read_compact_size(&r, 1);
            uint32_t pick = BK_CHAIN_NONE;
            if (!bk_reader_ok(&r)) {
                c->n_undo_unpaired++;
                continue;
            }
            /* Records follow connection order: the best-chain successor of
             * the block paired last is the likely owner. */
            uint32_t pred = last != BK_CHAIN_NONE ? c->entries[last].next : BK_CHAIN_NONE;
            if (pred != BK_CHAIN_NONE && c->entries[pred].file == num &&
                undo_fits(&c->entries[pred], n_txundo, undo, rec.size, ck))
                pick = pred;
            for (size_t q = lo; q < hi && (pick == BK_CHAIN_NONE || !c->entries[pick].active); q++) {
                const bk_chain_entry *e = &c->entries[cand[q].idx];
                if (pick != BK_CHAIN_NONE && !e->active) continue;
                if (undo_fits(e, n_txundo, undo, rec.size, ck)) pick = cand[q].idx;
            }
            if (pick == BK_CHAIN_NONE) {
                c->n_undo_unpaired++;
                continue;
            }
            bk_chain_entry *e = &c->entries[pick];
            e->has_undo = 1;
            e->undo_file = num;
            e->undo_offset = rec.offset;
            e->undo_size = rec.size;
            c->n_undo_paired++;
            last = pick;
        }
        bk_blockfile_close(&f);
    }
    bk_free(c->alloc, cand, n_cand * sizeof *cand);
    bk_free(c->alloc, buf, cap);
    if (win) bk_free(c->alloc, win, BK_CHAIN_SCAN_WINDOW);
    return st;
}

/* ---- the tip ---- */

static int cmp_height_ref(const void *a, const void *b)
{
    const pos_ref *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The most-work block with data the index did not know about (appended
 * past its flush) that descends from the tip, or BK_CHAIN_NONE. Descent
 * is marked over the blocks above the tip in height order. */
static bk_status extend_tip(const bk_chain *c, uint32_t *ext_out, bk_error *err)
{
    *ext_out = BK_CHAIN_NONE;
    int32_t base = c->tip == BK_CHAIN_NONE ? -1 : c->entries[c->tip].height;
    size_t m = 0;
    for (size_t k = 0; k < c->n_entries; k++) m += c->entries[k].height > base;
    if (!m) return BK_OK;
    pos_ref *up = bk_alloc(c->alloc, m * sizeof *up);
    uint8_t *desc = bk_alloc(c->alloc, c->n_entries);
    if (!up || !desc) {
        bk_free(c->alloc, up, m * sizeof *up);
        bk_free(c->alloc, desc, c->n_entries);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    memset(desc, 0, c->n_entries);
    if (c->tip != BK_CHAIN_NONE) desc[c->tip] = 1;
    size_t j = 0;
    for (size_t k = 0; k < c->n_entries; k++)
        if (c->entries[k].height > base) {
            up[j].pos = (uint64_t)c->entries[k].height;
            up[j].idx = (uint32_t)k;
            up[j].file = 0;
            j++;
        }
    qsort(up, m, sizeof *up, cmp_height_ref);
    uint32_t best = BK_CHAIN_NONE;
    for (size_t i = 0; i < m; i++) {
        uint32_t k = up[i].idx;
        const bk_chain_entry *e = &c->entries[k];
        desc[k] = c->tip == BK_CHAIN_NONE || (e->parent != BK_CHAIN_NONE && desc[e->parent]);
        /* Data the index did not know about: appended past its flush. */
        if (!desc[k] || e->no_data || e->failed || (e->status & BK_BLOCK_HAVE_DATA)) continue;
        if (best == BK_CHAIN_NONE || memcmp(e->chainwork, c->entries[best].chainwork, 32) > 0) best = k;
    }
    bk_free(c->alloc, up, m * sizeof *up);
    bk_free(c->alloc, desc, c->n_entries);
    *ext_out = best;
    return BK_OK;
}

/* Core: validation.cpp CBlockIndexWorkComparator, with (file, position)
 * standing in for the sequence id. */
static int better(const bk_chain_entry *a, const bk_chain_entry *b)
{
    int w = memcmp(a->chainwork, b->chainwork, 32);
    if (w) return w > 0;
    if (a->file != b->file) return a->file < b->file;
    return a->offset < b->offset;
}

/* Whether each entry or one of its ancestors failed (Core's
 * FindMostWorkChain skips a candidate with an invalid ancestor, marking
 * it BLOCK_FAILED_CHILD): bad[k] = 2 (failed), 1 (not), 0 not yet known.
 * One pass, each path walked once: O(entries). */
static bk_status failed_ancestry(const bk_chain *c, uint8_t *bad, bk_error *err)
{
    uint32_t *path = bk_alloc(c->alloc, (c->n_entries ? c->n_entries : 1) * sizeof *path);
    if (!path) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(bad, 0, c->n_entries);
    for (size_t k = 0; k < c->n_entries; k++) {
        if (bad[k]) continue;
        size_t n = 0;
        uint32_t x = (uint32_t)k;
        while (x != BK_CHAIN_NONE && x < c->n_entries && !bad[x] && n < c->n_entries) {
            path[n++] = x;
            x = c->entries[x].parent;
        }
        uint8_t above = x != BK_CHAIN_NONE && x < c->n_entries ? bad[x] : 1;
        while (n--) {
            uint32_t y = path[n];
            above = (above == 2 || c->entries[y].failed) ? 2 : 1;
            bad[y] = above;
        }
    }
    bk_free(c->alloc, path, (c->n_entries ? c->n_entries : 1) * sizeof *path);
    return BK_OK;
}

static bk_status most_work_tip(const bk_chain *c, uint32_t *tip, bk_error *err)
{
    uint32_t best = BK_CHAIN_NONE;
    uint8_t *bad = bk_alloc(c->alloc, c->n_entries ? c->n_entries : 1);
    if (!bad) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    bk_status st = failed_ancestry(c, bad, err);
    for (size_t k = 0; st == BK_OK && k < c->n_entries; k++) {
        const bk_chain_entry *e = &c->entries[k];
        if (e->height < 0 || e->no_data || bad[k] == 2 || e->status == 0) continue;
        /* Connected once (scripts checked); the genesis stays at
         * BLOCK_VALID_TRANSACTIONS. */
        if (!bk_block_status_valid(e->status, e->height == 0 ? BK_BLOCK_VALID_TRANSACTIONS : BK_BLOCK_VALID_SCRIPTS))
            continue;
        if (best == BK_CHAIN_NONE || better(e, &c->entries[best])) best = (uint32_t)k;
    }
    bk_free(c->alloc, bad, c->n_entries ? c->n_entries : 1);
    *tip = best;
    return st;
}

static bk_status active_walk(bk_chain *c, bk_error *err)
{
    /* Undo a previous best chain (entries start with active 0, next none). */
    for (size_t h = 0; h < c->n_active; h++) {
        c->entries[c->active[h]].active = 0;
        c->entries[c->active[h]].next = BK_CHAIN_NONE;
    }
    bk_free(c->alloc, c->active, c->n_active * sizeof *c->active);
    c->active = NULL;
    c->n_active = 0;
    c->n_stale = 0;
    c->base_height = 0;
    if (c->tip == BK_CHAIN_NONE) return BK_OK;
    const bk_chain_entry *tip = &c->entries[c->tip];
    /* Every chain of the index starts at a height-0 block without a parent
     * (link_all), and heights step by one. */
    c->base_height = 0;
    c->n_active = (size_t)tip->height + 1;
    c->active = bk_alloc(c->alloc, c->n_active * sizeof *c->active);
    if (!c->active) {
        c->n_active = 0;
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    uint32_t next = BK_CHAIN_NONE;
    for (uint32_t i = c->tip; i != BK_CHAIN_NONE; i = c->entries[i].parent) {
        bk_chain_entry *e = &c->entries[i];
        /* Each step waits for the parent's index: fetch ahead where the
         * parents usually are (height order, one block a height). */
        if (i >= 12) BK_PREFETCH_W(&c->entries[i - 12].parent);
        e->active = 1;
        e->next = next;
        next = i;
        c->active[e->height - c->base_height] = i;
    }
    c->n_stale = c->n_entries - c->n_orphans - c->n_active;
    return BK_OK;
}

/* Core: rpc/blockchain.cpp GetPruneHeight, on block data. */
static void set_prune_height(bk_chain *c)
{
    c->prune_height = 0;
    for (size_t h = c->n_active; c->n_no_data && h-- > 0;)
        if (c->entries[c->active[h]].no_data) {
            c->prune_height = (int32_t)(h + 1) + c->base_height;
            break;
        }
}

static bk_status set_active(bk_chain *c, bk_error *err)
{
    bk_status st = active_walk(c, err);
    if (st == BK_OK) set_prune_height(c);
    return st;
}

bk_status bk_chainstate_tip(const char *chainstate_dir, const char *tmpdir, uint8_t hash_out[32], bk_error *err)
{
    bk_ldb *db = NULL;
    bk_status st = bk_ldb_open(chainstate_dir, tmpdir, &db, err);
    if (st != BK_OK) return st;
    uint8_t *v = NULL;
    size_t vl = 0;
    uint8_t key[BK_OBFUSCATE_KEY_MAX];
    size_t key_len = 0;
    st = bk_ldb_get(db, (const uint8_t *)BK_OBFUSCATE_KEY_KEY, BK_OBFUSCATE_KEY_KEY_LEN, &v, &vl, err);
    if (st == BK_OK) {
        st = bk_obfuscate_key_decode(v, vl, key, &key_len, err);
        bk_ldb_free(v);
    } else if (st == BK_ERR_NOT_FOUND) {
        st = BK_OK; /* written before obfuscation existed */
    }
    if (st != BK_OK) {
        bk_ldb_close(db);
        return st;
    }
    static const uint8_t best_key = 'B', heads_key = 'H';
    st = bk_ldb_get(db, &best_key, 1, &v, &vl, err);
    if (st == BK_OK) {
        bk_deobfuscate(v, vl, key, key_len);
        if (vl != 32) st = bk_error_set(err, BK_ERR_LENGTH, 0, "chainstate key 42: best block of %zu bytes, not 32", vl);
        else memcpy(hash_out, v, 32);
        bk_ldb_free(v);
    } else if (st == BK_ERR_NOT_FOUND) {
        /* Core: txdb.cpp GetHeadBlocks - during a flush 'B' is erased and
         * 'H' holds {new head, old head}. */
        st = bk_ldb_get(db, &heads_key, 1, &v, &vl, err);
        if (st == BK_OK) {
            bk_deobfuscate(v, vl, key, key_len);
            bk_reader r;
            bk_reader_init(&r, v, vl);
            uint64_t n = bk_read_compact_size(&r, 1);
            if (!bk_reader_ok(&r) || n < 1 || bk_reader_remaining(&r) != 32 * n)
                st = bk_error_set(err, BK_ERR_INVALID, 0, "chainstate key 48: head blocks record of %zu bytes", vl);
            else memcpy(hash_out, v + r.pos, 32);
            bk_ldb_free(v);
        } else if (st == BK_ERR_NOT_FOUND) {
            bk_error_set(err, BK_ERR_NOT_FOUND, 0, "chainstate %s has no best block", chainstate_dir);
        }
    }
    bk_ldb_close(db);
    return st;
}

/* Bytes a snapshot of LevelDB directory dir under tmpdir would copy: its
 * tables when tmpdir is on another filesystem (hard links are refused
 * there), else 0. */
static uint64_t snapshot_copy_bytes(const char *dir, const char *tmpdir)
{
    const char *t = tmpdir ? tmpdir : getenv("TMPDIR");
    if (!t || !*t) t = "/tmp";
    struct stat sd, st;
    if (stat(dir, &sd) != 0 || stat(t, &st) != 0 || sd.st_dev == st.st_dev) return 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    uint64_t sum = 0;
    struct dirent *de;
    size_t dl = strlen(dir);
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 4 || (strcmp(de->d_name + n - 4, ".ldb") != 0 && strcmp(de->d_name + n - 4, ".sst") != 0)) continue;
        char path[4096];
        if (dl + n + 2 > sizeof path) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat sf;
        if (stat(path, &sf) == 0 && S_ISREG(sf.st_mode)) sum += (uint64_t)sf.st_size;
    }
    closedir(d);
    return sum;
}

/* ---- entry points ---- */

static void chain_reset(bk_chain *c, bk_network net, const bk_allocator *alloc)
{
    memset(c, 0, sizeof *c);
    c->alloc = alloc;
    c->net = net;
    c->tip = BK_CHAIN_NONE;
    c->last_file = -1;
    c->from_index = 1;
}

static char *path_join(const bk_allocator *a, const char *dir, const char *name, size_t *cap_out)
{
    size_t cap = strlen(dir) + strlen(name) + 2;
    char *p = bk_alloc(a, cap);
    if (p) snprintf(p, cap, "%s/%s", dir, name);
    *cap_out = cap;
    return p;
}

bk_status bk_chain_build_index_dirs(bk_chain *c, const bk_index_dirs *dirs, bk_network net, const bk_chain_opts *opts,
                                    const bk_allocator *alloc, bk_error *err)
{
    chain_reset(c, net, alloc);
    if (!bk_network_get(net)) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    if (!dirs || !dirs->blocksdir) return bk_error_set(err, BK_ERR_ARG, 0, "no blocks directory");
    size_t icap = 0;
    char *ipath = NULL;
    const char *indexdir = dirs->indexdir;
    if (!indexdir) {
        ipath = path_join(alloc, dirs->blocksdir, "index", &icap);
        if (!ipath) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        indexdir = ipath;
    }
    bk_blocksdir d;
    covered_list cov_blk = {NULL, 0, 0}, cov_rev = {NULL, 0, 0};
    size_t first_new = 0;
    bk_status st = bk_blocksdir_open(&d, dirs->blocksdir, net, alloc, err);
    if (st != BK_OK) {
        bk_free(alloc, ipath, icap);
        return st;
    }
    /* The chainstate first: Core writes the block index before the
     * chainstate at every flush, so an index snapshot taken after the
     * chainstate's holds its best block even while the node runs. */
    uint8_t best[32];
    int have_best = 0;
    if (dirs->chainstatedir &&
        snapshot_copy_bytes(dirs->chainstatedir, opts ? opts->tmpdir : NULL) > BK_CHAINSTATE_COPY_MAX) {
        c->chainstate_skipped = 1;
    } else if (dirs->chainstatedir) {
        bk_error e2;
        bk_error_clear(&e2);
        bk_status cst = bk_chainstate_tip(dirs->chainstatedir, opts ? opts->tmpdir : NULL, best, &e2);
        if (cst == BK_OK) have_best = 1;
        else if (cst != BK_ERR_NOT_FOUND) {
            st = cst;
            if (err) *err = e2;
        }
    }
    if (st == BK_OK) st = read_index(c, indexdir, opts, err);
    if (st == BK_OK)
        st = links_and_sizes(c, &d, opts, dirs->trust_positions, &cov_blk, &cov_rev, have_best ? best : NULL, err);
    /* The tip Core has: the chainstate's (set, and its chain walked, in
     * links_and_sizes), else the most-work valid block with data (once
     * the sizes have said which blocks have data). */
    if (st == BK_OK && c->tip == BK_CHAIN_NONE) {
        st = most_work_tip(c, &c->tip, err);
        if (st == BK_OK) st = active_walk(c, err);
    }
    if (st == BK_OK) set_prune_height(c);
    /* Blocks and undo written after the index's last flush. */
    if (st == BK_OK) st = scan_appended(c, &d, &cov_blk, opts, &first_new, err);
    if (st == BK_OK && c->n_appended) {
        link_appended(c, first_new);
        /* Appended blocks extend the tip when they descend from it. */
        uint32_t ext = BK_CHAIN_NONE;
        st = extend_tip(c, &ext, err);
        if (st == BK_OK && ext != BK_CHAIN_NONE && ext != c->tip) {
            c->tip = ext;
            st = set_active(c, err);
        }
        c->n_stale = c->n_entries - c->n_orphans - c->n_active;
    }
    if (st == BK_OK && c->n_entries) st = scan_appended_undo(c, &d, &cov_rev, err);
    bk_free(alloc, cov_blk.v, cov_blk.cap * sizeof *cov_blk.v);
    bk_free(alloc, cov_rev.v, cov_rev.cap * sizeof *cov_rev.v);
    bk_blocksdir_close(&d);
    bk_free(alloc, ipath, icap);
    if (st != BK_OK) {
        bk_chain_free(c);
        chain_reset(c, net, alloc);
    }
    return st;
}

bk_status bk_chain_build_index(bk_chain *c, const char *datadir, bk_network net, const bk_chain_opts *opts,
                               const bk_allocator *alloc, bk_error *err)
{
    chain_reset(c, net, alloc);
    if (!bk_network_datadir_subdir(net)) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    if (!datadir) return bk_error_set(err, BK_ERR_ARG, 0, "no data directory");
    /* room for the longer of the two paths */
    size_t cap = (size_t)bk_network_datadir_path(NULL, 0, datadir, net, "chainstate") + 1;
    char *blocks = bk_alloc(alloc, cap), *cs = bk_alloc(alloc, cap);
    if (!blocks || !cs) {
        bk_free(alloc, blocks, cap);
        bk_free(alloc, cs, cap);
        return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    }
    bk_network_datadir_path(blocks, cap, datadir, net, "blocks");
    bk_network_datadir_path(cs, cap, datadir, net, "chainstate");
    struct stat sb;
    bk_index_dirs dirs = {.blocksdir = blocks, .chainstatedir = stat(cs, &sb) == 0 && S_ISDIR(sb.st_mode) ? cs : NULL};
    bk_status st = bk_chain_build_index_dirs(c, &dirs, net, opts, alloc, err);
    bk_free(alloc, blocks, cap);
    bk_free(alloc, cs, cap);
    return st;
}
