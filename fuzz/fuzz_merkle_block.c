/* Fuzz the block-level merkle checks: any input that parses as a block gets
 * bk_block_merkle and a branch of one transaction; the roots must equal a
 * reference built from per-transaction txids/wtxids, the commitment status
 * must agree with a direct scan of the coinbase (Core's
 * GetWitnessCommitmentIndex / CheckWitnessMalleation), the branch must
 * verify, and a short scratch must be refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <blockkit/merkle.h>

static void ref_root(uint8_t *level, size_t n, uint8_t root[32])
{
    while (n > 1) {
        if (n & 1) memcpy(level + 32 * n, level + 32 * (n - 1), 32), n++;
        for (size_t i = 0; i < n / 2; i++) bk_sha256d(level + 32 * i, level + 64 * i, 64);
        n /= 2;
    }
    memcpy(root, level, 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cap = bk_block_max_txs(size);
    if (cap > 4096) cap = 4096;
    bk_tx *txs = malloc((cap ? cap : 1) * sizeof *txs);
    bk_block b;
    if (bk_block_parse(data, size, txs, cap, &b, NULL) != BK_OK) {
        free(txs);
        return 0;
    }
    size_t n = b.n_tx, slen = bk_block_merkle_scratch_size(n);
    uint8_t *scratch = malloc(slen), *level = malloc(32 * (n + 1)), ref[32];
    bk_block_merkle_result r;
    if (bk_block_merkle(&b, scratch, slen - 1, &r, NULL) != BK_ERR_BUFFER) abort();
    if (bk_block_merkle(&b, scratch, slen, &r, NULL) != BK_OK) abort();

    for (size_t i = 0; i < n; i++) bk_tx_txid(&b.txs[i], level + 32 * i);
    ref_root(level, n, ref);
    if (memcmp(ref, r.merkle_root, 32)) abort();
    if (r.header_match != !memcmp(ref, b.header.merkle_root, 32)) abort();
    for (size_t i = 0; i < n; i++) bk_tx_wtxid(&b.txs[i], level + 32 * i);
    memset(level, 0, 32);
    ref_root(level, n, ref);
    if (memcmp(ref, r.witness_root, 32)) abort();

    /* Commitment: the last output of at least 38 bytes with the header. */
    bk_txout_iter oi;
    bk_txout o;
    int64_t last = -1;
    const uint8_t *commit = NULL;
    bk_txout_iter_init(&oi, &b.txs[0]);
    for (int64_t i = 0; bk_txout_next(&oi, &o); i++)
        if (o.script_len >= 38 && !memcmp(o.script, "\x6a\x24\xaa\x21\xa9\xed", 6)) last = i, commit = o.script + 6;
    if (r.commitment_output != last) abort();
    if (last < 0) {
        if (r.witness_commitment != BK_WITNESS_COMMITMENT_ABSENT) abort();
    } else if (r.witness_commitment != BK_WITNESS_COMMITMENT_BAD_NONCE) {
        bk_txin_iter ii;
        bk_txin in;
        bk_txin_iter_init(&ii, &b.txs[0]);
        if (!bk_txin_next(&ii, &in) || in.witness_items != 1) abort();
        uint8_t pair[64], h[32];
        memcpy(pair, r.witness_root, 32);
        memcpy(pair + 32, in.witness + 1, 32); /* item length byte 0x20, then the value */
        bk_sha256d(h, pair, 64);
        int ok = !memcmp(h, commit, 32);
        if (ok != (r.witness_commitment == BK_WITNESS_COMMITMENT_OK)) abort();
    }

    size_t index = n > 1 ? data[size - 1] % n : 0, depth = bk_merkle_depth(n);
    uint8_t *branch = malloc(32 * depth + 1), txid[32];
    size_t got_depth = 0;
    if (bk_block_merkle_branch(&b, index, scratch, slen, branch, 32 * depth, &got_depth, NULL) != BK_OK) abort();
    bk_tx_txid(&b.txs[index], txid);
    if (got_depth != depth || !bk_merkle_verify_branch(txid, branch, depth, index, r.merkle_root)) abort();

    free(branch);
    free(level);
    free(scratch);
    free(txs);
    return 0;
}
