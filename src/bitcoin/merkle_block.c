/* Block-level merkle commitments (include/blockkit/merkle.h): txid root with
 * the CVE-2012-2459 flag, witness root, BIP141 witness commitment, header
 * match. Core: src/consensus/merkle.cpp BlockMerkleRoot and
 * BlockWitnessMerkleRoot, src/validation.cpp GetWitnessCommitmentIndex and
 * CheckWitnessMalleation. */
#include <blockkit/merkle.h>

#include <string.h>

/* Core: consensus/validation.h MINIMUM_WITNESS_COMMITMENT and the header
 * OP_RETURN, push 36, 0xaa21a9ed (BIP141). */
#define WITNESS_COMMITMENT_MIN 38
static const uint8_t witness_commitment_header[6] = {0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed};

const char *bk_witness_commitment_str(bk_witness_commitment c)
{
    switch (c) {
    case BK_WITNESS_COMMITMENT_ABSENT: return "absent";
    case BK_WITNESS_COMMITMENT_OK: return "ok";
    case BK_WITNESS_COMMITMENT_MISMATCH: return "mismatch";
    case BK_WITNESS_COMMITMENT_BAD_NONCE: return "bad-nonce";
    }
    return "unknown";
}

static bk_status check_scratch(const bk_block *b, const uint8_t *scratch, size_t scratch_len, bk_error *err)
{
    if (!b || b->n_tx == 0 || !b->txs) return bk_error_set(err, BK_ERR_NO_TX, 0, "block without transactions");
    size_t need = bk_block_merkle_scratch_size(b->n_tx);
    if (!scratch || scratch_len < need)
        return bk_error_set(err, BK_ERR_BUFFER, 0, "merkle scratch of %zu bytes, %zu needed for %u transactions",
                            scratch_len, need, (unsigned)b->n_tx);
    return BK_OK;
}

/* Core: GetWitnessCommitmentIndex: the LAST coinbase output whose script is
 * at least 38 bytes and starts with the commitment header. Returns the
 * index or -1, and points *script at its bytes. */
static int64_t find_commitment(const bk_tx *coinbase, const uint8_t **script)
{
    bk_txout_iter it;
    bk_txout o;
    int64_t found = -1;
    bk_txout_iter_init(&it, coinbase);
    for (int64_t i = 0; bk_txout_next(&it, &o); i++) {
        if (o.script_len >= WITNESS_COMMITMENT_MIN &&
            !memcmp(o.script, witness_commitment_header, sizeof witness_commitment_header)) {
            found = i;
            *script = o.script;
        }
    }
    return found;
}

/* Core: CheckWitnessMalleation requires the coinbase's first input witness to
 * be exactly one item of 32 bytes (the witness reserved value). */
static int witness_reserved_value(const bk_tx *coinbase, const uint8_t **value)
{
    bk_txin_iter it;
    bk_txin in;
    bk_txin_iter_init(&it, coinbase);
    if (!bk_txin_next(&it, &in) || in.witness_items != 1) return 0;
    bk_witness_iter wi;
    const uint8_t *item;
    uint32_t len;
    bk_witness_iter_init(&wi, &in);
    if (!bk_witness_next(&wi, &item, &len) || len != 32) return 0;
    *value = item;
    return 1;
}

bk_status bk_block_merkle(const bk_block *b, uint8_t *scratch, size_t scratch_len, bk_block_merkle_result *out,
                          bk_error *err)
{
    if (!out) return bk_error_set(err, BK_ERR_ARG, 0, "no result pointer");
    bk_status st = check_scratch(b, scratch, scratch_len, err);
    if (st != BK_OK) return st;
    memset(out, 0, sizeof *out);
    size_t n = b->n_tx, cap = bk_merkle_capacity(n);

    /* One batched pass: a transaction without witness is hashed once. */
    uint8_t *txids = scratch, *wtxids = scratch + 32 * cap;
    bk_block_txids_wtxids(b, txids, wtxids);
    st = bk_merkle_root(txids, n, cap, out->merkle_root, &out->mutated);
    if (st != BK_OK) return bk_error_set(err, st, 0, "merkle root: %s", bk_status_str(st));
    out->header_match = !memcmp(out->merkle_root, b->header.merkle_root, 32);

    /* Core: BlockWitnessMerkleRoot: the coinbase's wtxid is taken as zero;
     * its mutation flag is ignored by CheckWitnessMalleation (the txid tree
     * already rules duplicates out). */
    memset(wtxids, 0, 32);
    st = bk_merkle_root(wtxids, n, cap, out->witness_root, NULL);
    if (st != BK_OK) return bk_error_set(err, st, 0, "witness merkle root: %s", bk_status_str(st));

    for (size_t i = 0; i < n; i++)
        if (b->txs[i].has_witness) {
            out->has_witness = 1;
            break;
        }

    const uint8_t *script = NULL, *reserved = NULL;
    out->commitment_output = find_commitment(&b->txs[0], &script);
    if (out->commitment_output < 0) {
        out->witness_commitment = BK_WITNESS_COMMITMENT_ABSENT;
        return BK_OK;
    }
    memcpy(out->commitment, script + 6, 32);
    if (!witness_reserved_value(&b->txs[0], &reserved)) {
        out->witness_commitment = BK_WITNESS_COMMITMENT_BAD_NONCE;
        return BK_OK;
    }
    uint8_t pair[64];
    memcpy(pair, out->witness_root, 32);
    memcpy(pair + 32, reserved, 32);
    bk_sha256d_64(pair, pair, 1);
    out->witness_commitment = memcmp(pair, out->commitment, 32) ? BK_WITNESS_COMMITMENT_MISMATCH
                                                                 : BK_WITNESS_COMMITMENT_OK;
    return BK_OK;
}

bk_status bk_block_merkle_alloc(const bk_block *b, const bk_allocator *alloc, bk_block_merkle_result *out,
                                bk_error *err)
{
    if (!b || b->n_tx == 0 || !b->txs) return bk_error_set(err, BK_ERR_NO_TX, 0, "block without transactions");
    size_t need = bk_block_merkle_scratch_size(b->n_tx);
    uint8_t *scratch = bk_alloc(alloc, need);
    if (!scratch) return bk_error_set(err, BK_ERR_NOMEM, 0, "cannot allocate %zu bytes of merkle scratch", need);
    bk_status st = bk_block_merkle(b, scratch, need, out, err);
    bk_free(alloc, scratch, need);
    return st;
}

bk_status bk_block_merkle_branch(const bk_block *b, size_t index, uint8_t *scratch, size_t scratch_len,
                                 uint8_t *branch_out, size_t branch_len, size_t *depth_out, bk_error *err)
{
    bk_status st = check_scratch(b, scratch, scratch_len, err);
    if (st != BK_OK) return st;
    if (index >= b->n_tx)
        return bk_error_set(err, BK_ERR_ARG, 0, "no transaction %zu: the block has %u", index, (unsigned)b->n_tx);
    size_t depth = bk_merkle_depth(b->n_tx);
    if (branch_len / 32 < depth)
        return bk_error_set(err, BK_ERR_BUFFER, 0, "branch buffer of %zu bytes, %zu needed", branch_len,
                            depth * 32);
    bk_block_txids(b, scratch);
    st = bk_merkle_branch(scratch, b->n_tx, bk_merkle_capacity(b->n_tx), index, branch_out, branch_len,
                          depth_out, NULL, NULL);
    if (st != BK_OK) return bk_error_set(err, st, 0, "merkle branch: %s", bk_status_str(st));
    return BK_OK;
}
