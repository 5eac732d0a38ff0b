/* Partial merkle trees: CMerkleBlock build, parse and match extraction
 * (include/blockkit/merkle.h). Core: src/merkleblock.cpp
 * (CPartialMerkleTree::TraverseAndBuild, TraverseAndExtract,
 * ExtractMatches), src/rpc/txoutproof.cpp. Subtree hashes come from
 * bk_merkle_root (merkle.c). */
#include <blockkit/merkle.h>

#include <stdlib.h>
#include <string.h>

/* Nodes at height h of a tree of n leaves (Core CalcTreeWidth). */
static inline size_t tree_width(size_t n, unsigned h) { return (n + ((size_t)1 << h) - 1) >> h; }

static inline unsigned tree_height(size_t n)
{
    unsigned h = 0;
    while (tree_width(n, h) > 1) h++;
    return h;
}

typedef struct pmt_build {
    const uint8_t *txids;
    size_t n;
    const uint8_t *match;
    uint8_t *scratch;        /* bk_merkle_capacity(n) nodes */
    uint8_t *hashes;         /* n nodes */
    size_t n_hashes;
    uint8_t *bits;           /* one byte per flag bit */
    size_t n_bits;
} pmt_build;

/* Core CalcHash(h, pos): the root of the subtree's leaves, paired with
 * itself up to height h when the subtree is the short right edge. */
static void subtree_hash(pmt_build *b, unsigned h, size_t pos, uint8_t out[32])
{
    size_t first = pos << h, cnt = b->n - first;
    if (h < sizeof(size_t) * 8 - 1 && cnt > ((size_t)1 << h)) cnt = (size_t)1 << h;
    memcpy(b->scratch, b->txids + 32 * first, 32 * cnt);
    if (bk_merkle_root(b->scratch, cnt, bk_merkle_capacity(cnt), out, NULL) != BK_OK) memset(out, 0, 32);
    uint8_t pair[64];
    for (size_t d = bk_merkle_depth(cnt); d < h; d++) {
        memcpy(pair, out, 32);
        memcpy(pair + 32, out, 32);
        bk_sha256d_64(out, pair, 1);
    }
}

static void traverse_build(pmt_build *b, unsigned h, size_t pos)
{
    size_t lo = pos << h, hi = (pos + 1) << h;
    if (hi > b->n) hi = b->n;
    int parent_of_match = 0;
    for (size_t p = lo; p < hi && !parent_of_match; p++) parent_of_match = b->match[p] != 0;
    b->bits[b->n_bits++] = (uint8_t)parent_of_match;
    if (h == 0 || !parent_of_match) {
        subtree_hash(b, h, pos, b->hashes + 32 * b->n_hashes++);
        return;
    }
    traverse_build(b, h - 1, pos * 2);
    if (pos * 2 + 1 < tree_width(b->n, h - 1)) traverse_build(b, h - 1, pos * 2 + 1);
}

bk_status bk_merkle_proof_build(const uint8_t header80[80], const uint8_t *txids, size_t n, const uint8_t *match,
                                const bk_allocator *alloc, bk_writer *out, bk_error *err)
{
    if (!header80 || !txids || !match || !out || n == 0) return bk_error_set(err, BK_ERR_ARG, 0, "no transactions");
    if (n > UINT32_MAX) return bk_error_set(err, BK_ERR_ARG, 0, "%zu transactions: over 2^32 - 1", n);
    /* The walk visits each node of the tree at most once: one bit each
     * (the levels' widths summed: up to 2n + height, more than 2n - 1 when
     * a level is odd), and adds at most n hashes (disjoint leaf ranges). */
    size_t cap = bk_merkle_capacity(n), nodes = 0;
    unsigned height = tree_height(n);
    for (unsigned h = 0; h <= height; h++) nodes += tree_width(n, h);
    size_t need = 32 * cap + 32 * n + nodes;
    uint8_t *mem = bk_alloc(alloc, need);
    if (!mem) return bk_error_set(err, BK_ERR_NOMEM, 0, "cannot allocate %zu bytes of proof scratch", need);
    pmt_build b = {txids, n, match, mem, mem + 32 * cap, 0, mem + 32 * cap + 32 * n, 0};
    traverse_build(&b, height, 0);

    uint8_t cs[9], u32[4];
    bk_writer_put(out, header80, 80);
    bk_store_le32(u32, (uint32_t)n);
    bk_writer_put(out, u32, 4);
    bk_writer_put(out, cs, bk_compact_size_encode(cs, b.n_hashes));
    bk_writer_put(out, b.hashes, 32 * b.n_hashes);
    size_t nbytes = (b.n_bits + 7) / 8;
    bk_writer_put(out, cs, bk_compact_size_encode(cs, nbytes));
    for (size_t i = 0; i < nbytes; i++) {
        uint8_t byte = 0;
        for (size_t k = 0; k < 8 && 8 * i + k < b.n_bits; k++) byte |= (uint8_t)(b.bits[8 * i + k] << k);
        bk_writer_put(out, &byte, 1);
    }
    bk_free(alloc, mem, need);
    if (bk_writer_status(out) != BK_OK)
        return bk_error_set(err, bk_writer_status(out), 0, "cannot write the proof: %s",
                            bk_status_str(bk_writer_status(out)));
    return BK_OK;
}

static int cmp_hash(const void *a, const void *b) { return memcmp(a, b, 32); }

bk_status bk_block_merkle_proof(const bk_block *b, const uint8_t *want, size_t n_want, const bk_allocator *alloc,
                                bk_writer *out, size_t *n_found_out, bk_error *err)
{
    if (!b || b->n_tx == 0 || !b->txs) return bk_error_set(err, BK_ERR_NO_TX, 0, "block without transactions");
    if (n_want && !want) return bk_error_set(err, BK_ERR_ARG, 0, "NULL txid list");
    size_t n = b->n_tx;
    size_t need = 32 * n + n + 32 * n_want;
    uint8_t *mem = bk_alloc(alloc, need);
    if (!mem) return bk_error_set(err, BK_ERR_NOMEM, 0, "cannot allocate %zu bytes of proof scratch", need);
    uint8_t *txids = mem, *match = mem + 32 * n, *sorted = mem + 33 * n;
    bk_block_txids(b, txids);
    if (n_want) memcpy(sorted, want, 32 * n_want);
    qsort(sorted, n_want, 32, cmp_hash);
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        match[i] = n_want && bsearch(txids + 32 * i, sorted, n_want, 32, cmp_hash) != NULL;
        found += match[i];
    }
    if (n_found_out) *n_found_out = found;
    bk_status st = bk_merkle_proof_build(b->data, txids, n, match, alloc, out, err);
    bk_free(alloc, mem, need);
    return st;
}

bk_status bk_merkle_proof_parse(const uint8_t *data, size_t len, bk_merkle_proof *p, bk_error *err)
{
    if (!p || (!data && len)) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    memset(p, 0, sizeof *p);
    if (len < 80)
        return bk_error_set(err, BK_ERR_TRUNCATED, len, "proof ends inside the 80-byte block header");
    if (len < 84)
        return bk_error_set(err, BK_ERR_TRUNCATED, len, "proof ends inside the transaction count");
    p->header = data;
    p->n_tx = bk_load_le32(data + 80);
    bk_reader r;
    bk_reader_init(&r, data, len);
    r.pos = 84;
    uint64_t nh = bk_read_compact_size(&r, 1);
    if (!bk_reader_ok(&r)) {
        bk_status st = bk_reader_error(&r, err);
        return bk_error_set(err, st, r.err_pos, "proof hash count at byte 84: %s", r.err_msg ? r.err_msg : bk_status_str(st));
    }
    size_t hpos = r.pos;
    if (nh > (len - hpos) / 32)
        return bk_error_set(err, BK_ERR_TRUNCATED, len,
                            "proof ends inside its %llu hashes (room for %zu from byte %zu)",
                            (unsigned long long)nh, (len - hpos) / 32, hpos);
    p->hashes = data + hpos;
    p->n_hashes = (size_t)nh;
    r.pos = hpos + 32 * (size_t)nh;
    size_t fpos = r.pos;
    uint64_t nf = bk_read_compact_size(&r, 1);
    if (!bk_reader_ok(&r)) {
        bk_status st = bk_reader_error(&r, err);
        return bk_error_set(err, st, r.err_pos, "proof flag byte count at byte %zu: %s", fpos,
                            r.err_msg ? r.err_msg : bk_status_str(st));
    }
    if (nf > len - r.pos)
        return bk_error_set(err, BK_ERR_TRUNCATED, len,
                            "proof ends inside its %llu flag bytes (%zu left from byte %zu)",
                            (unsigned long long)nf, len - r.pos, r.pos);
    p->flags = data + r.pos;
    p->n_flag_bytes = (size_t)nf;
    p->size = r.pos + (size_t)nf;
    return BK_OK;
}

typedef struct pmt_extract {
    const bk_merkle_proof *p;
    size_t n_bits;
    size_t bits_used, hashes_used;
    int bad;
    uint8_t *matches;
    uint32_t *index;
    size_t n_match;
} pmt_extract;

static void traverse_extract(pmt_extract *x, unsigned h, size_t pos, uint8_t out[32])
{
    const bk_merkle_proof *p = x->p;
    if (x->bits_used >= x->n_bits) {
        x->bad = 1;
        memset(out, 0, 32);
        return;
    }
    size_t bi = x->bits_used++;
    int parent_of_match = (p->flags[bi / 8] >> (bi % 8)) & 1;
    if (h == 0 || !parent_of_match) {
        if (x->hashes_used >= p->n_hashes) {
            x->bad = 1;
            memset(out, 0, 32);
            return;
        }
        memcpy(out, p->hashes + 32 * x->hashes_used++, 32);
        if (h == 0 && parent_of_match) {
            memcpy(x->matches + 32 * x->n_match, out, 32);
            if (x->index) x->index[x->n_match] = (uint32_t)pos;
            x->n_match++;
        }
        return;
    }
    uint8_t pair[64];
    traverse_extract(x, h - 1, pos * 2, pair);
    if (pos * 2 + 1 < tree_width(p->n_tx, h - 1)) {
        traverse_extract(x, h - 1, pos * 2 + 1, pair + 32);
        /* CVE-2012-2459: two equal children mean the tree was mutated. */
        if (!memcmp(pair, pair + 32, 32)) x->bad = 1;
    } else {
        memcpy(pair + 32, pair, 32);
    }
    bk_sha256d_64(out, pair, 1);
}

int bk_merkle_proof_extract(const bk_merkle_proof *p, uint8_t *matches_out, uint32_t *index_out, size_t *n_match_out,
                            uint8_t root_out[32], const char **why_out)
{
    const char *why = NULL;
    if (n_match_out) *n_match_out = 0;
    memset(root_out, 0, 32);
    size_t n_bits = p->n_flag_bytes > SIZE_MAX / 8 ? SIZE_MAX : 8 * p->n_flag_bytes;
    if (p->n_tx == 0) why = "the proof's block has no transactions";
    else if (p->n_tx > BK_MERKLE_PROOF_MAX_TX) why = "more transactions than a block can hold";
    else if (p->n_hashes > p->n_tx) why = "more hashes than transactions";
    else if (n_bits < p->n_hashes) why = "fewer flag bits than hashes";
    if (why) {
        if (why_out) *why_out = why;
        return 0;
    }
    pmt_extract x = {p, n_bits, 0, 0, 0, matches_out, index_out, 0};
    uint8_t root[32];
    traverse_extract(&x, tree_height(p->n_tx), 0, root);
    if (n_match_out) *n_match_out = x.n_match;
    if (x.bad) why = "the flag bits and hashes do not form a tree (or two sibling hashes are equal)";
    else if ((x.bits_used + 7) / 8 != p->n_flag_bytes) why = "flag bytes left over";
    else if (x.hashes_used != p->n_hashes) why = "hashes left over";
    if (why) {
        if (why_out) *why_out = why;
        return 0;
    }
    memcpy(root_out, root, 32);
    if (why_out) *why_out = NULL;
    return 1;
}
