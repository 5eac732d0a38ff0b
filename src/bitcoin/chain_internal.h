/* Internal to the chain builders (chain.c: the header scan; chain_index.c:
 * Core's block index): the open-addressing table over bk_chain.entries that
 * bk_chain_find probes. One definition (chain.c), so both builders fill the
 * table exactly the way the lookup reads it. */
#ifndef BLOCKKIT_CHAIN_INTERNAL_H
#define BLOCKKIT_CHAIN_INTERNAL_H

#include <blockkit/blockfile.h>
#include <blockkit/chain.h>
#include <blockkit/stream.h>

#include <string.h>

/* The entry index of a block hash, or BK_CHAIN_NONE. */
uint32_t bk_chain_table_find(const bk_chain *c, const uint8_t hash[32]);
/* Insert entry idx (the table has room: capacity >= 2 n_entries). */
void bk_chain_table_insert(bk_chain *c, uint32_t idx);

/* Append a file's report (bk_chain.files: records read, how the file ended,
 * where) for both builders; BK_ERR_NOMEM when the array cannot grow. */
bk_status bk_chain_add_file_report(bk_chain *c, bk_file_kind kind, uint32_t number, uint64_t records,
                                   bk_file_end end, uint64_t end_offset);

/* The sequential scans of blk and rev files (the header scan, and the
 * index path's scan of records past the index's last flush) read record
 * headers, block headers and undo records with their checksums through a
 * record-iterator window of this size: one pread per window, not two or
 * three per record (900k small blocks: 4.5 M system calls). */
#define BK_CHAIN_SCAN_WINDOW (256u << 10)

/* A blk record as both scans take it: its 80-byte header and the
 * transaction count after it (*n_tx), read through the iterator's window
 * into hdr. 1 when the record holds a header and a CompactSize count of at
 * least one; 0 for a record the builders count as bad. */
static inline int bk_chain_record_header(bk_record_iter *it, const bk_record *rec, uint8_t hdr[BK_HEADER_SIZE + 9],
                                         uint64_t *n_tx)
{
    size_t n = rec->size < BK_HEADER_SIZE + 9 ? (size_t)rec->size : BK_HEADER_SIZE + 9;
    if (rec->size <= BK_HEADER_SIZE || bk_record_iter_copy(it, rec->offset, hdr, n, NULL) != BK_OK) return 0;
    bk_reader r;
    bk_reader_init(&r, hdr + BK_HEADER_SIZE, n - BK_HEADER_SIZE);
    *n_tx = bk_read_compact_size(&r, 1);
    return bk_reader_ok(&r) && *n_tx != 0;
}

/* A new entry from a record's header (the hash aside), unlinked and of no
 * height yet, as both scans make it. */
static inline void bk_chain_entry_from_header(bk_chain_entry *e, const uint8_t hdr[BK_HEADER_SIZE], uint64_t n_tx)
{
    memset(e, 0, sizeof *e);
    e->version = (int32_t)bk_load_le32(hdr);
    memcpy(e->prev_hash, hdr + 4, 32);
    e->time = bk_load_le32(hdr + 68);
    e->bits = bk_load_le32(hdr + 72);
    e->nonce = bk_load_le32(hdr + 76);
    e->n_tx = (uint32_t)n_tx;
    e->height = -1;
    e->parent = e->next = BK_CHAIN_NONE;
}

/* A position in a blk or rev file and the entry it belongs to (the block
 * index builder, chain_index.c). */
typedef struct bk_chain_pos {
    uint32_t file;
    uint32_t idx;
    uint64_t pos;
} bk_chain_pos;

/* Sort refs by (file, pos, idx): already sorted costs one pass; a few out
 * of place are taken out, sorted and merged back; otherwise an LSD radix
 * sort (positions up to UINT32_MAX, else qsort). The refs come with idx
 * ascending (built in one pass over the entries), which the radix sort's
 * stability keeps among equal positions. Internal, visible to
 * tests/test_chain_positions.c. */
void bk_chain_sort_positions(const bk_allocator *a, bk_chain_pos *refs, size_t n);

#endif
