/* Lookups in a node's datadir answered as bitcoin-cli would (blockkit/lookup.h):
 * getblockheader, getblock, getrawtransaction (txindex), getchaintips. */
#include <blockkit/blockindex.h>
#include <blockkit/blockreader.h>
#include <blockkit/hex.h>
#include <blockkit/leveldb.h>
#include <blockkit/lookup.h>
#include <blockkit/merkle.h>
#include <blockkit/sha256.h>
#include <blockkit/txindex.h>
#include <blockkit/utxo.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct bk_lookup {
    const bk_allocator *alloc;
    bk_network net;
    bk_chain chain;
    bk_blocksdir blocks;
    int have_blocks;
    bk_block_reader rd;    /* the block reader (blockkit/blockreader.h): every blk/rev read */
    char *netdir;          /* <datadir>/<subdir> */
    char *tmpdir;
    bk_txindex *txi;
    int txi_tried;
    bk_status txi_status;
    char txi_msg[BK_ERROR_MSG_MAX];
    bk_chainstate *cs;     /* opened on demand: gettxoutproof's coin lookup */
    int cs_tried;
    bk_ldb *index;         /* opened on demand: headers of blocks without data */
    bk_block_decoder dec;
    uint8_t *buf;          /* block bytes */
    size_t cap;
    uint8_t *ubuf;         /* undo bytes + checksum */
    size_t ucap;
    uint8_t *hbuf;         /* a header read from a blk file */
    size_t hcap;
    uint8_t *rbuf;         /* a record's 8-byte header */
    size_t rcap;
    /* The last block and undo loaded (batches of lookups in one block). */
    const bk_chain_entry *blk_of;
    bk_block blk;
    const bk_chain_entry *undo_of;
    bk_block_undo undo;
    int undo_ok;
    int rpc_code;
    char warning[BK_ERROR_MSG_MAX];
    int has_warning;
};

static bk_status rpc_error(bk_lookup *l, bk_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bk_status rpc_error(bk_lookup *l, bk_error *err, int code, const char *fmt, ...)
{
    char msg[BK_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    l->rpc_code = code;
    return bk_error_set(err, code == BK_RPC_INVALID_PARAMETER ? BK_ERR_ARG : BK_ERR_NOT_FOUND, 0, "%s", msg);
}

static void warn(bk_lookup *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(bk_lookup *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->warning, sizeof l->warning, fmt, ap);
    va_end(ap);
    l->has_warning = 1;
}

static char *join(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s%s%s", a, b, c);
    return p;
}

/* <dir>/<net subdir><leaf> (bk_network_datadir_path), malloc'd; NULL when
 * out of memory. net is a valid network. */
static char *net_path(const char *dir, bk_network net, const char *leaf)
{
    int n = bk_network_datadir_path(NULL, 0, dir, net, leaf);
    char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (p) bk_network_datadir_path(p, (size_t)n + 1, dir, net, leaf);
    return p;
}

bk_status bk_lookup_open(const char *datadir, const char *blocksdir, bk_network net, const bk_chain_opts *opts,
                         const bk_allocator *alloc, bk_lookup **l_out, bk_error *err)
{
    if (!datadir || !l_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *l_out = NULL;
    if (!bk_network_datadir_subdir(net)) return bk_error_set(err, BK_ERR_ARG, 0, "unknown network");
    bk_lookup *l = calloc(1, sizeof *l);
    if (!l) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    l->alloc = alloc ? alloc : bk_default_allocator();
    l->net = net;
    bk_block_decoder_init(&l->dec, l->alloc);
    l->netdir = net_path(datadir, net, "");
    l->tmpdir = opts && opts->tmpdir ? join(opts->tmpdir, "", "") : NULL;
    /* Core: -blocksdir moves the blk/rev files to <blocksdir>/<net>/blocks;
     * the index stays in <datadir>/<net>/blocks/index. */
    char *blocks = net_path(blocksdir ? blocksdir : datadir, net, "blocks");
    char *index = net_path(datadir, net, "blocks/index"), *cs = net_path(datadir, net, "chainstate");
    bk_status st = BK_OK;
    if (!l->netdir || !blocks || !index || !cs || (opts && opts->tmpdir && !l->tmpdir)) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto fail;
    }
    struct stat sb;
    bk_index_dirs dirs;
    memset(&dirs, 0, sizeof dirs);
    dirs.blocksdir = blocks;
    dirs.indexdir = index;
    dirs.chainstatedir = stat(cs, &sb) == 0 && S_ISDIR(sb.st_mode) ? cs : NULL;
    /* A lookup reads a few records: their sizes come from their own
     * headers when read (record_size), so the build need not touch one
     * page per block of a node's files to learn them. */
    dirs.trust_positions = 1;
    st = bk_chain_build_index_dirs(&l->chain, &dirs, net, opts, l->alloc, err);
    if (st != BK_OK) goto fail;
    st = bk_blocksdir_open(&l->blocks, blocks, net, l->alloc, err);
    if (st != BK_OK) goto fail;
    l->have_blocks = 1;
    bk_block_reader_init(&l->rd, &l->blocks, l->alloc);
    free(blocks);
    free(index);
    free(cs);
    *l_out = l;
    return BK_OK;
fail:
    free(blocks);
    free(index);
    free(cs);
    bk_lookup_close(l);
    return st;
}

void bk_lookup_close(bk_lookup *l)
{
    if (!l) return;
    bk_chain_free(&l->chain);
    if (l->have_blocks) {
        bk_block_reader_free(&l->rd);
        bk_blocksdir_close(&l->blocks);
    }
    bk_txindex_close(l->txi);
    bk_chainstate_close(l->cs);
    bk_ldb_close(l->index);
    bk_block_decoder_free(&l->dec);
    if (l->buf) bk_free(l->alloc, l->buf, l->cap);
    if (l->ubuf) bk_free(l->alloc, l->ubuf, l->ucap);
    if (l->hbuf) bk_free(l->alloc, l->hbuf, l->hcap);
    if (l->rbuf) bk_free(l->alloc, l->rbuf, l->rcap);
    free(l->netdir);
    free(l->tmpdir);
    free(l);
}

const bk_chain *bk_lookup_chain(const bk_lookup *l) { return &l->chain; }
const bk_blocksdir *bk_lookup_blocksdir(const bk_lookup *l) { return l->have_blocks ? &l->blocks : NULL; }
int bk_lookup_rpc_code(const bk_lookup *l) { return l->rpc_code; }
const char *bk_lookup_warning(const bk_lookup *l) { return l->has_warning ? l->warning : NULL; }

static void start(bk_lookup *l)
{
    l->rpc_code = 0;
    l->has_warning = 0;
}

/* Core ParseHashV: 64 hex digits (the length is checked first), the
 * reversed display order. */
static bk_status parse_hash(bk_lookup *l, const char *s, const char *name, uint8_t out[32], bk_error *err)
{
    size_t n = strlen(s);
    if (n != 64)
        return rpc_error(l, err, BK_RPC_INVALID_PARAMETER, "%s must be of length 64 (not %zu, for '%.100s')", name, n, s);
    if (bk_hex_decode_rev(out, s, 32, NULL) != BK_OK)
        return rpc_error(l, err, BK_RPC_INVALID_PARAMETER, "%s must be hexadecimal string (not '%.100s')", name, s);
    return BK_OK;
}

bk_status bk_lookup_resolve(bk_lookup *l, const char *arg, const char *param_name, const bk_chain_entry **e_out,
                            bk_error *err)
{
    if (!l || !arg || !e_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    start(l);
    *e_out = NULL;
    size_t n = strlen(arg);
    int digits = n > 0 && n < 64;
    for (size_t i = 0; i < n && digits; i++) digits = arg[i] >= '0' && arg[i] <= '9';
    if (digits || (arg[0] == '-' && n > 1 && n < 20)) {
        char *end;
        long long h = strtoll(arg, &end, 10);
        if (*end == 0) {
            /* getblockhash: "Block height out of range" below 0 or past the tip. */
            const bk_chain_entry *e = bk_chain_at_height(&l->chain, h);
            if (!e) return rpc_error(l, err, BK_RPC_INVALID_PARAMETER, "Block height out of range");
            *e_out = e;
            return BK_OK;
        }
    }
    uint8_t hash[32];
    bk_status st = parse_hash(l, arg, param_name ? param_name : "blockhash", hash, err);
    if (st != BK_OK) return st;
    const bk_chain_entry *e = bk_chain_find(&l->chain, hash);
    if (!e) return rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    *e_out = e;
    return BK_OK;
}

/* ---- reading the files ---- */

static bk_status grow(bk_lookup *l, uint8_t **p, size_t *cap, size_t need, bk_error *err)
{
    if (*cap >= need) return BK_OK;
    size_t ncap = need < 4096 ? 4096 : need;
    uint8_t *q = bk_realloc(l->alloc, *p, *cap, ncap);
    if (!q) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    *p = q;
    *cap = ncap;
    return BK_OK;
}

/* Copy len bytes at off of blk/rev file `number` into *p (grown), through
 * the block reader (pread: a file the node has grown reads to its new
 * end). BK_ERR_NOT_FOUND when the file is not there, BK_ERR_TRUNCATED
 * when the bytes run past its end. */
static bk_status read_range(bk_lookup *l, bk_file_kind kind, uint32_t number, uint64_t off, size_t len, uint8_t **p,
                            size_t *cap, bk_error *err)
{
    bk_status st = grow(l, p, cap, len ? len : 1, err);
    if (st != BK_OK) return st;
    return bk_block_reader_copy(&l->rd, kind, number, off, *p, len, err);
}

/* The size field of the blk/rev record whose bytes start at off (its
 * 8-byte header: network magic, size). */
static bk_status record_size(bk_lookup *l, bk_file_kind kind, uint32_t number, uint64_t off, uint32_t *size,
                             bk_error *err)
{
    if (off < 8)
        return bk_error_set(err, BK_ERR_INVALID, off, "%s%05u.dat: no record header before offset %llu",
                            kind == BK_FILE_BLK ? "blk" : "rev", number, (unsigned long long)off);
    bk_status st = read_range(l, kind, number, off - 8, 8, &l->rbuf, &l->rcap, err);
    if (st != BK_OK) return st;
    const uint8_t *hdr = l->rbuf;
    const bk_network_params *np = bk_network_get(l->net);
    if (!np || memcmp(hdr, np->magic, 4) != 0)
        return bk_error_set(err, BK_ERR_MAGIC, off - 8, "%s%05u.dat: no record (network magic) at offset %llu",
                            kind == BK_FILE_BLK ? "blk" : "rev", number, (unsigned long long)(off - 8));
    *size = bk_load_le32(hdr + 4);
    return BK_OK;
}

/* Core BlockManager::IsBlockPruned (no_data: the index has no data for
 * the block; blocks found past the index's last flush have data). */
static int is_pruned(const bk_lookup *l, const bk_chain_entry *e)
{
    return l->chain.pruned && e->no_data && e->n_tx > 0;
}

static int has_data(const bk_lookup *l, const bk_chain_entry *e)
{
    (void)l;
    return !e->no_data;
}

/* The block's bytes, decoded into l->dec. Core's ReadBlockFromDisk also
 * checks that the bytes hash to the index's hash. */
static bk_status load_block(bk_lookup *l, const bk_chain_entry *e, bk_block *b, bk_error *err)
{
    if (l->blk_of == e) {
        *b = l->blk;
        return BK_OK;
    }
    l->blk_of = NULL;
    l->undo_of = NULL;
    uint32_t size = 0;
    bk_status st = record_size(l, BK_FILE_BLK, e->file, e->offset, &size, err);
    if (st == BK_OK) st = read_range(l, BK_FILE_BLK, e->file, e->offset, size, &l->buf, &l->cap, err);
    if (st == BK_OK) st = bk_block_decode(&l->dec, l->buf, size, b, err);
    if (st == BK_OK) {
        uint8_t h[32];
        bk_block_hash(b, h);
        if (memcmp(h, e->hash, 32) != 0)
            st = bk_error_set(err, BK_ERR_MISMATCH, e->offset,
                              "blk%05u.dat: the block at offset %llu is not the one the index names", e->file,
                              (unsigned long long)e->offset);
    }
    if (st == BK_OK) {
        l->blk_of = e;
        l->blk = *b;
    }
    return st;
}

/* The block's undo data as Core's UndoReadFromDisk reads it: at the
 * index's position, checksum against the parent hash. 0 with *u filled, or
 * -1 when there is none or it does not read (Core then renders the block
 * without undo; a warning says why). */
static int load_undo_uncached(bk_lookup *l, const bk_chain_entry *e, const bk_block *b, bk_block_undo *u)
{
    if (!e->has_undo) return -1;
    bk_error er;
    uint32_t usize = 0;
    if (record_size(l, BK_FILE_REV, e->undo_file, e->undo_offset, &usize, &er) != BK_OK) {
        warn(l, "undo data not read: %s", er.msg);
        return -1;
    }
    size_t n = (size_t)usize;
    if (read_range(l, BK_FILE_REV, e->undo_file, e->undo_offset, n + BK_UNDO_CHECKSUM_SIZE, &l->ubuf, &l->ucap,
                   &er) != BK_OK) {
        warn(l, "undo data not read: %s", er.msg);
        return -1;
    }
    if (bk_undo_checksum_verify(l->ubuf, n, e->prev_hash, l->ubuf + n, &er) != BK_OK) {
        warn(l, "rev%05u.dat: the undo record at offset %llu fails its checksum; rendered without undo data as Core does",
             e->undo_file, (unsigned long long)e->undo_offset);
        return -1;
    }
    if (bk_block_undo_parse(l->ubuf, n, u, &er) != BK_OK || bk_block_undo_check(u, b, &er) != BK_OK) {
        warn(l, "rev%05u.dat: the undo record at offset %llu does not decode for this block (%s)", e->undo_file,
             (unsigned long long)e->undo_offset, er.msg);
        return -1;
    }
    return 0;
}

/* b must be the block load_block gave for e (the cache holds the pair). */
static int load_undo(bk_lookup *l, const bk_chain_entry *e, const bk_block *b, bk_block_undo *u)
{
    if (l->undo_of != e) {
        l->undo_ok = load_undo_uncached(l, e, b, &l->undo) == 0;
        l->undo_of = l->undo_ok ? e : NULL;
    }
    if (l->undo_ok) *u = l->undo;
    return l->undo_ok ? 0 : -1;
}

/* The 80 header bytes: from the blk file when the block has data, else
 * from the index record (pruned and headers-only blocks). */
static bk_status load_header(bk_lookup *l, const bk_chain_entry *e, uint8_t hdr[BK_HEADER_SIZE], bk_error *err)
{
    if (has_data(l, e) && bk_blocksdir_has(&l->blocks, BK_FILE_BLK, e->file)) {
        bk_status st = read_range(l, BK_FILE_BLK, e->file, e->offset, BK_HEADER_SIZE, &l->hbuf, &l->hcap, err);
        if (st != BK_OK) return st;
        uint8_t h[32];
        bk_header_hash(l->hbuf, h);
        if (memcmp(h, e->hash, 32) == 0) {
            memcpy(hdr, l->hbuf, BK_HEADER_SIZE);
            return BK_OK;
        }
    }
    if (!l->index) {
        char *dir = join(l->netdir, "blocks/index", "");
        if (!dir) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        bk_status st = bk_ldb_open(dir, l->tmpdir, &l->index, err);
        free(dir);
        if (st != BK_OK) return st;
    }
    uint8_t key[33];
    key[0] = 'b';
    memcpy(key + 1, e->hash, 32);
    uint8_t *v = NULL;
    size_t vl = 0;
    bk_status st = bk_ldb_get(l->index, key, sizeof key, &v, &vl, err);
    if (st != BK_OK) return st;
    bk_disk_block_index r;
    st = bk_disk_block_index_decode(key, sizeof key, v, vl, 1, &r, err);
    bk_ldb_free(v);
    if (st != BK_OK) return st;
    bk_store_le32(hdr, (uint32_t)r.header.version);
    memcpy(hdr + 4, r.header.prev_hash, 32);
    memcpy(hdr + 36, r.header.merkle_root, 32);
    bk_store_le32(hdr + 68, r.header.time);
    bk_store_le32(hdr + 72, r.header.bits);
    bk_store_le32(hdr + 76, r.header.nonce);
    return BK_OK;
}

/* ---- the RPCs ---- */

bk_status bk_lookup_block_header(bk_lookup *l, const bk_chain_entry *e, int verbose, const bk_block_json_opts *o,
                                 bk_json *j, bk_error *err)
{
    if (!l || !e || !j) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    start(l);
    uint8_t hdr[BK_HEADER_SIZE];
    bk_status st = load_header(l, e, hdr, err);
    if (st != BK_OK) return st;
    if (!verbose) {
        bk_json_hex(j, hdr, BK_HEADER_SIZE);
        st = bk_json_status(j);
        return st == BK_OK ? BK_OK : bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
    }
    bk_chain_context ctx;
    st = bk_chain_context_fill(&l->chain, e, &ctx, err);
    if (st != BK_OK) return st;
    bk_block_json_opts oo;
    if (o) oo = *o;
    else bk_block_json_opts_init(&oo);
    oo.hash = e->hash;
    return bk_json_block_header_raw(j, hdr, e->n_tx, &ctx, &oo, err);
}

/* Core GetBlockChecked: the refusals for a block without data. */
static bk_status check_block_data(bk_lookup *l, const bk_chain_entry *e, bk_error *err)
{
    if (is_pruned(l, e)) return rpc_error(l, err, BK_RPC_MISC_ERROR, "Block not available (pruned data)");
    if (!has_data(l, e) || !bk_blocksdir_has(&l->blocks, BK_FILE_BLK, e->file))
        return rpc_error(l, err, BK_RPC_MISC_ERROR, "Block not found on disk");
    return BK_OK;
}

bk_status bk_lookup_block(bk_lookup *l, const bk_chain_entry *e, const bk_block_json_opts *o, bk_json *j,
                          bk_error *err)
{
    if (!l || !e || !j) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    start(l);
    bk_block_json_opts oo;
    if (o) oo = *o;
    else bk_block_json_opts_init(&oo);
    if (oo.verbosity < 0 || oo.verbosity > 3)
        return bk_error_set(err, BK_ERR_ARG, 0, "verbosity %d not in 0..3", oo.verbosity);
    bk_status st = check_block_data(l, e, err);
    if (st != BK_OK) return st;
    bk_block b;
    st = load_block(l, e, &b, err);
    if (st != BK_OK) return st;
    if (oo.verbosity == 0) {
        bk_json_hex(j, b.data, b.size);
        st = bk_json_status(j);
        return st == BK_OK ? BK_OK : bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
    }
    bk_chain_context ctx;
    st = bk_chain_context_fill(&l->chain, e, &ctx, err);
    if (st != BK_OK) return st;
    bk_block_undo u, *up = NULL;
    if (oo.verbosity >= 2 && !is_pruned(l, e) && load_undo(l, e, &b, &u) == 0) up = &u;
    oo.hash = e->hash;
    return bk_json_block(j, &b, up, &ctx, &oo, err);
}

bk_status bk_lookup_chain_tips(bk_lookup *l, bk_json *j, bk_error *err)
{
    if (!l || !j) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    start(l);
    bk_chaintip *tips;
    size_t n;
    bk_status st = bk_chain_tips(&l->chain, l->alloc, &tips, &n, err);
    if (st != BK_OK) return st;
    st = bk_json_chain_tips(j, &l->chain, tips, n, err);
    bk_free(l->alloc, tips, (n ? n : 1) * sizeof *tips);
    return st;
}

/* The genesis coinbase txids (Core refuses to look them up): main,
 * testnet3, signet and regtest share one genesis coinbase; testnet4 has
 * its own. Internal byte order. */
static int is_genesis_coinbase(bk_network net, const uint8_t txid[32])
{
    static const uint8_t common[32] = {0x3b, 0xa3, 0xed, 0xfd, 0x7a, 0x7b, 0x12, 0xb2, 0x7a, 0xc7, 0x2c,
                                       0x3e, 0x67, 0x76, 0x8f, 0x61, 0x7f, 0xc8, 0x1b, 0xc3, 0x88, 0x8a,
                                       0x51, 0x32, 0x3a, 0x9f, 0xb8, 0xaa, 0x4b, 0x1e, 0x5e, 0x4a};
    static const uint8_t testnet4[32] = {0x4e, 0x7b, 0x2b, 0x91, 0x28, 0xfe, 0x02, 0x91, 0xdb, 0x06, 0x93,
                                         0xaf, 0x2a, 0xe4, 0x18, 0xb7, 0x67, 0xe6, 0x57, 0xcd, 0x40, 0x7e,
                                         0x80, 0xcb, 0x14, 0x34, 0x22, 0x1e, 0xae, 0xa7, 0xa0, 0x7a};
    return memcmp(txid, net == BK_NET_TESTNET4 ? testnet4 : common, 32) == 0;
}

/* Reopen the top-level object j just closed so members can follow
 * (bk_json_tx writes a whole object; getrawtransaction adds to it). The
 * closing brace is still in the writer: "}" compact, "\n}" pretty. */
static int reopen_object(bk_json *j)
{
    size_t tail = j->indent ? 2 : 1;
    bk_writer *w = j->w;
    if (j->status != BK_OK || j->depth != 0 || w->len < tail || w->data[w->len - 1] != '}') return -1;
    w->len -= tail;
    j->is_object[0] = 1;
    j->has_items[0] = 1;
    j->depth = 1;
    return 0;
}

static const char NO_TXINDEX[] = "No such mempool transaction. Use -txindex or provide a block hash to enable "
                                 "blockchain transaction queries. Use gettransaction for wallet transactions.";
static const char NO_SUCH_TX[] = "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.";

/* Insert text at offset `at` of j's writer (the result is in memory). */
static int insert_text(bk_json *j, size_t at, const char *text, size_t n)
{
    bk_writer *w = j->w;
    if (at > w->len || bk_writer_reserve(w, n) != BK_OK) return -1;
    memmove(w->data + at + n, w->data + at, w->len - at);
    memcpy(w->data + at, text, n);
    w->len += n;
    return 0;
}

static const char NO_TX_IN_BLOCK[] = "No such transaction found in the provided block. Use gettransaction for wallet "
                                     "transactions.";

/* The txindex, opened at the first lookup that needs it; l->txi_status
 * and l->txi_msg keep how that went. */
static bk_status open_txindex(bk_lookup *l)
{
    if (l->txi_tried) return l->txi_status;
    char *dir = join(l->netdir, "indexes/txindex", "");
    if (!dir) return BK_ERR_NOMEM;
    l->txi_tried = 1;
    bk_error e;
    bk_error_clear(&e);
    l->txi_status = bk_txindex_open(dir, l->tmpdir, &l->txi, &e);
    snprintf(l->txi_msg, sizeof l->txi_msg, "%s", e.msg);
    free(dir);
    return l->txi_status;
}

bk_status bk_lookup_transaction(bk_lookup *l, const uint8_t txid[32], int verbosity, const bk_tx_json_opts *o,
                                bk_json *j, bk_error *err)
{
    return bk_lookup_transaction_in(l, txid, NULL, verbosity, o, j, err);
}

bk_status bk_lookup_transaction_in(bk_lookup *l, const uint8_t txid[32], const bk_chain_entry *in_block,
                                   int verbosity, const bk_tx_json_opts *o, bk_json *j, bk_error *err)
{
    if (!l || !txid || !j) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    start(l);
    if (verbosity < 0 || verbosity > 2) return bk_error_set(err, BK_ERR_ARG, 0, "verbosity %d not in 0..2", verbosity);
    if (is_genesis_coinbase(l->net, txid))
        return rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY,
                         "The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved");
    uint8_t *txb = NULL, block_hash[32];
    size_t txlen = 0;
    int owned = 0;
    bk_tx_pos pos;
    bk_error e;
    bk_status st;
    if (in_block) {
        /* Core GetTransaction with a block index: read the block, take the
         * tx whose txid matches. */
        bk_block b;
        if (!has_data(l, in_block) || load_block(l, in_block, &b, &e) != BK_OK)
            return rpc_error(l, err, BK_RPC_MISC_ERROR, "Block not available");
        uint32_t k = 0;
        uint8_t id[32];
        for (; k < b.n_tx; k++) {
            bk_tx_txid(&b.txs[k], id);
            if (memcmp(id, txid, 32) == 0) break;
        }
        if (k == b.n_tx) return rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "%s", NO_TX_IN_BLOCK);
        txb = (uint8_t *)b.txs[k].data; /* in the cached block: not ours to free */
        txlen = b.txs[k].size;
        memcpy(block_hash, in_block->hash, 32);
        pos.file = in_block->file;
        pos.block_pos = (uint32_t)in_block->offset;
        pos.tx_offset = (uint32_t)(b.txs[k].data - b.data - BK_HEADER_SIZE);
    } else {
        /* Core refuses -txindex together with -prune: a pruned node's
         * indexes/txindex is a leftover it does not read. */
        if (l->chain.pruned) {
            warn(l, "the node is pruned; Core does not run -txindex with -prune");
            return rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "%s", NO_TXINDEX);
        }
        if (open_txindex(l) == BK_ERR_NOMEM) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        if (l->txi_status == BK_ERR_NOT_FOUND) {
            warn(l, "%sindexes/txindex not found: the node runs without -txindex", l->netdir);
            return rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "%s", NO_TXINDEX);
        }
        if (l->txi_status != BK_OK) return bk_error_set(err, l->txi_status, 0, "%s", l->txi_msg);
        st = bk_txindex_find(l->txi, txid, &pos, &e);
        if (st == BK_ERR_NOT_FOUND) return rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "%s", NO_SUCH_TX);
        if (st != BK_OK) {
            if (err) *err = e;
            return st;
        }
        st = bk_txindex_read_tx(&l->blocks, &pos, txid, l->alloc, &txb, &txlen, block_hash, &e);
        if (st != BK_OK) {
            /* Core's FindTx fails the lookup the same way (and logs why). */
            warn(l, "%s", e.msg);
            return rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "%s", NO_SUCH_TX);
        }
        owned = 1;
    }
    if (verbosity == 0) {
        bk_json_hex(j, txb, txlen);
        st = bk_json_status(j);
        if (st != BK_OK) st = bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
        goto done;
    }
    bk_tx tx;
    st = bk_tx_parse(txb, txlen, &tx, NULL, err);
    if (st != BK_OK) goto done;
    bk_tx_json_opts to;
    if (o) to = *o;
    else bk_tx_json_opts_init(&to);
    to.network = l->net;
    to.include_hex = 1;
    to.verbosity = BK_TXV_DETAILS;
    to.txid = txid;
    to.wtxid = NULL;
    const bk_chain_entry *be = in_block ? in_block : bk_chain_find(&l->chain, block_hash);

    /* Verbosity 2: the tx's CTxUndo from its block's undo data, when the
     * block has data and undo (Core: BLOCK_HAVE_MASK, then
     * UndoReadFromDisk) and it is no coinbase. */
    bk_block_undo u;
    bk_undo_iter it, *itp = NULL;
    if (verbosity == 2 && be && !bk_tx_is_coinbase(&tx) && has_data(l, be) && be->has_undo) {
        bk_block b;
        bk_error be_err;
        if (load_block(l, be, &b, &be_err) == BK_OK && load_undo(l, be, &b, &u) == 0) {
            /* The tx by its position in the block. */
            size_t want = BK_HEADER_SIZE + pos.tx_offset;
            uint32_t k = 0;
            while (k < b.n_tx && (size_t)(b.txs[k].data - b.data) != want) k++;
            if (k > 0 && k < b.n_tx) {
                bk_undo_iter_init(&it, &u);
                uint32_t coins = 0;
                for (uint32_t t = 0; t < k; t++) bk_undo_next_tx(&it, &coins);
                itp = &it;
                to.verbosity = BK_TXV_DETAILS_AND_PREVOUT;
            }
        }
    }
    size_t start_at = j->w->len;
    st = bk_json_tx(j, &tx, &to, itp, err);
    if (st != BK_OK) goto done;
    if (reopen_object(j) != 0) {
        st = bk_error_set(err, BK_ERR_ARG, 0, "the transaction object cannot be extended (JSON writer state)");
        goto done;
    }
    if (in_block) {
        /* Core: "in_active_chain" first when a block hash was given. */
        char text[80];
        int n = snprintf(text, sizeof text, "%s%*s\"in_active_chain\":%s%s,", j->indent ? "\n" : "", (int)j->indent,
                         "", j->indent ? " " : "", in_block->active ? "true" : "false");
        if (insert_text(j, start_at + 1, text, (size_t)n) != 0) {
            st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
            goto done;
        }
    }
    /* Core TxToJSON: blockhash, then with the block in the index
     * confirmations (0 off the active chain), time and blocktime. */
    BK_JSON_KEY(j, "blockhash");
    bk_json_hex_rev(j, block_hash, 32);
    if (be && be->height >= 0) {
        const bk_chain_entry *tip = bk_chain_tip(&l->chain);
        if (be->active && tip) {
            BK_JSON_KEY(j, "confirmations");
            bk_json_int(j, (int64_t)tip->height - be->height + 1);
            BK_JSON_KEY(j, "time");
            bk_json_int(j, be->time);
            BK_JSON_KEY(j, "blocktime");
            bk_json_int(j, be->time);
        } else {
            BK_JSON_KEY(j, "confirmations");
            bk_json_int(j, 0);
        }
    }
    bk_json_end_object(j);
    st = bk_json_status(j);
    if (st != BK_OK) st = bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
done:
    if (owned) bk_free(l->alloc, txb, txlen);
    return st;
}

/* ---- gettxoutproof, verifytxoutproof (Core: rpc/txoutproof.cpp) ---- */

static int cmp_txid(const void *a, const void *b) { return memcmp(a, b, 32); }

/* The block whose height an unspent output of one of the sorted txids
 * records in the chainstate (Core: AccessByTxid over CoinsTip, first txid
 * of the set that has one), or NULL. Chainstate errors are notes, as a
 * missing coin would be. */
static const bk_chain_entry *block_by_coin(bk_lookup *l, const uint8_t *sorted, size_t n)
{
    if (!l->cs_tried) {
        l->cs_tried = 1;
        char *dir = join(l->netdir, "chainstate", "");
        struct stat sb;
        bk_error e;
        if (dir && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) &&
            bk_chainstate_open(dir, l->tmpdir, l->alloc, &l->cs, &e) != BK_OK) {
            warn(l, "the chainstate does not open (%s): the txindex alone finds the block", e.msg);
            l->cs = NULL;
        }
        free(dir);
    }
    if (!l->cs) return NULL;
    for (size_t i = 0; i < n; i++) {
        bk_utxo u;
        bk_error e;
        bk_status st = bk_chainstate_find_txid(l->cs, sorted + 32 * i, &u, &e);
        if (st == BK_OK) return bk_chain_at_height(&l->chain, (int64_t)u.coin.height);
        if (st != BK_ERR_NOT_FOUND) warn(l, "chainstate: %s", e.msg);
    }
    return NULL;
}

bk_status bk_lookup_txoutproof(bk_lookup *l, const char *const *txids, size_t n, const char *blockhash,
                               bk_writer *out, bk_error *err)
{
    if (!l || !out || (n && !txids)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    start(l);
    if (n == 0) return rpc_error(l, err, BK_RPC_INVALID_PARAMETER, "Parameter 'txids' cannot be empty");
    if (n > SIZE_MAX / 32) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    uint8_t *set = bk_alloc(l->alloc, 32 * n);
    if (!set) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    bk_status st = BK_OK;
    /* Core inserts each txid into a std::set in the order given: the
     * first one already there is the duplicate it names. */
    for (size_t i = 0; i < n && st == BK_OK; i++) {
        st = parse_hash(l, txids[i], "txid", set + 32 * i, err);
        for (size_t k = 0; k < i && st == BK_OK; k++)
            if (!memcmp(set + 32 * k, set + 32 * i, 32))
                st = rpc_error(l, err, BK_RPC_INVALID_PARAMETER, "Invalid parameter, duplicated txid: %.100s", txids[i]);
    }
    if (st != BK_OK) goto done;
    qsort(set, n, 32, cmp_txid);
    const bk_chain_entry *e = NULL;
    if (blockhash) {
        uint8_t bh[32];
        if ((st = parse_hash(l, blockhash, "blockhash", bh, err)) != BK_OK) goto done;
        e = bk_chain_find(&l->chain, bh);
        if (!e) {
            st = rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
            goto done;
        }
    } else {
        e = block_by_coin(l, set, n);
        if (!e) {
            /* GetTransaction through the txindex with the set's first txid
             * (Core runs no txindex on a pruned node). */
            bk_tx_pos pos;
            bk_error te;
            uint8_t *txb = NULL, hb[32];
            size_t txlen = 0;
            bk_status ts = l->chain.pruned ? BK_ERR_NOT_FOUND : open_txindex(l);
            if (ts == BK_ERR_NOMEM) {
                st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
                goto done;
            }
            if (ts == BK_OK) ts = bk_txindex_find(l->txi, set, &pos, &te);
            if (ts == BK_OK) ts = bk_txindex_read_tx(&l->blocks, &pos, set, l->alloc, &txb, &txlen, hb, &te);
            if (ts != BK_OK) {
                if (l->txi_tried && l->txi_status != BK_OK && l->txi_status != BK_ERR_NOT_FOUND)
                    warn(l, "txindex: %s", l->txi_msg);
                else if (ts != BK_ERR_NOT_FOUND && l->txi_status == BK_OK)
                    warn(l, "txindex: %s", te.msg);
                st = rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "Transaction not yet in block");
                goto done;
            }
            bk_free(l->alloc, txb, txlen);
            e = bk_chain_find(&l->chain, hb);
            if (!e) {
                st = rpc_error(l, err, BK_RPC_INTERNAL_ERROR, "Transaction index corrupt");
                goto done;
            }
        }
    }
    /* Core CheckBlockDataAvailability(.., check_for_undo false), ReadBlock. */
    if (e->no_data) {
        st = rpc_error(l, err, BK_RPC_MISC_ERROR, is_pruned(l, e) ? "Block not available (pruned data)"
                                                                   : "Block not available (not fully downloaded)");
        goto done;
    }
    bk_block b;
    bk_error re;
    if (load_block(l, e, &b, &re) != BK_OK) {
        warn(l, "%s", re.msg);
        st = rpc_error(l, err, BK_RPC_INTERNAL_ERROR, "Can't read block from disk");
        goto done;
    }
    size_t found = 0;
    size_t mark = out->len;
    st = bk_block_merkle_proof(&b, set, n, l->alloc, out, &found, err);
    if (st == BK_OK && found != n) {
        out->len = mark;
        st = rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "Not all transactions found in specified or retrieved block");
    }
done:
    bk_free(l->alloc, set, 32 * n);
    return st;
}

bk_status bk_lookup_verifytxoutproof(bk_lookup *l, const char *proof_hex, bk_json *j, bk_error *err)
{
    if (!l || !proof_hex || !j) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    start(l);
    /* Core ParseHexV: IsHex (non-empty, even length, hex digits only). */
    size_t hl = strlen(proof_hex);
    int hex = hl > 0 && hl % 2 == 0;
    for (size_t i = 0; i < hl && hex; i++) hex = bk_hex_digit((unsigned char)proof_hex[i]) >= 0;
    if (!hex) return rpc_error(l, err, BK_RPC_INVALID_PARAMETER, "proof must be hexadecimal string (not '%.100s')", proof_hex);
    size_t len = hl / 2;
    uint8_t *bytes = bk_alloc(l->alloc, len);
    if (!bytes) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    bk_status st = bk_hex_decode(bytes, proof_hex, len, err);
    bk_merkle_proof p;
    if (st == BK_OK) st = bk_merkle_proof_parse(bytes, len, &p, err);
    if (st != BK_OK) goto done;
    size_t n_match = 0, cap = p.n_hashes ? p.n_hashes : 1;
    uint8_t *matches = bk_alloc(l->alloc, 32 * cap);
    if (!matches) {
        st = bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    uint8_t root[32];
    const char *why = NULL;
    int ok = bk_merkle_proof_extract(&p, matches, NULL, &n_match, root, &why);
    /* Core's ExtractMatches gives uint256() (zero) for an invalid tree, and
     * verifytxoutproof compares that with the header's root: a header whose
     * root is zero goes on to the block lookup. */
    if (!ok) memset(root, 0, sizeof root);
    bk_json_begin_array(j);
    if (memcmp(root, p.header + 36, 32) != 0) {
        warn(l, "the proof is not valid: %s", ok ? "its tree does not reduce to the header's merkle root" : why);
    } else {
        uint8_t bh[32];
        bk_sha256d(bh, p.header, BK_HEADER_SIZE);
        const bk_chain_entry *e = bk_chain_find(&l->chain, bh);
        if (!e || !e->active || e->n_tx == 0) {
            bk_free(l->alloc, matches, 32 * cap);
            st = rpc_error(l, err, BK_RPC_INVALID_ADDRESS_OR_KEY, "Block not found in chain");
            goto done;
        }
        if (!ok) {
            warn(l, "the proof is not valid: %s", why);
        } else if (e->n_tx == p.n_tx) {
            for (size_t i = 0; i < n_match; i++) bk_json_hex_rev(j, matches + 32 * i, 32);
        } else {
            warn(l, "the proof counts %u transactions, the block %u", (unsigned)p.n_tx, (unsigned)e->n_tx);
        }
    }
    bk_json_end_array(j);
    bk_free(l->alloc, matches, 32 * cap);
    st = bk_json_status(j);
    if (st != BK_OK) st = bk_error_set(err, st, 0, "JSON writer: %s", bk_status_str(st));
done:
    bk_free(l->alloc, bytes, len);
    return st;
}
