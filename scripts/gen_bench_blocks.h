/* The bench blocks directory (scripts/gen_bench_blocks.c): real mainnet
 * blocks with their undo data, every transaction made distinct, linked
 * into one chain, written as Core writes blk/rev files. Used by `blockkit
 * bench` (the Scan, Export and Filters rows) and by scripts/gen-bench-blocks
 * (the scale run, docs/export.md). */
#ifndef BK_GEN_BENCH_BLOCKS_H
#define BK_GEN_BENCH_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

/* One template block: its bytes and its CBlockUndo (both are copied). */
typedef struct bk_gen_template {
    const uint8_t *block, *undo;
    size_t block_len, undo_len;
    unsigned weight;           /* copies of it per round of the schedule */
} bk_gen_template;

typedef struct bk_gen_stats {
    uint64_t blocks, txs, block_bytes, undo_bytes, files;
} bk_gen_stats;

/* Write into dir (which must exist): xor.dat (the key from seed),
 * blkNNNNN.dat and revNNNNN.dat of at most 128 MiB, blocks in rounds of
 * the templates' weights until min_bytes of block data, each block the
 * next template with:
 *   - every transaction's nLockTime set to a value unique to (seed, block,
 *     transaction), so no two transactions of the directory share a txid;
 *   - the hash of every P2PKH, P2SH, P2WPKH and P2WSH script, in its
 *     outputs and in its undo data's coins alike, XORed with a 32-byte
 *     key of the block (from seed), so each copy pays other addresses
 *     while a script repeated within a block stays repeated (P2PK and
 *     P2TR keys stay: changed, they would not be curve points);
 *   - each input that spends an earlier transaction of the same block
 *     pointing at that transaction's new txid (the undo data records
 *     coins, not txids; its coins are the varied outputs they were);
 *   - its merkle root recomputed, hashPrevBlock the previous block's hash
 *     (the first on the mainnet genesis), each rev record's checksum over
 *     the new parent.
 * Proof of work and witness commitments are not redone (no reader checks
 * them). Deterministic for (templates, seed, min_bytes). 0, or -1 with
 * errno (a write failed; a template that does not parse: EINVAL). */
int bk_gen_bench_blocks(const char *dir, const bk_gen_template *t, size_t n_templates, uint64_t min_bytes,
                        uint64_t seed, bk_gen_stats *stats);

#endif
