/* blockkit: the block reader: a chain entry's block and undo record read
 * by position from a blocks directory (pread, xor.dat de-obfuscation,
 * the undo checksum, block and undo decoding). One per thread; the engine
 * (blockkit/engine.h) gives one to each worker, the lookups (lookup.h)
 * keep one. Nothing here maps, locks, writes, prints or exits. */
#ifndef BLOCKKIT_BLOCKREADER_H
#define BLOCKKIT_BLOCKREADER_H

#include <blockkit/bitcoin.h>
#include <blockkit/blockfile.h>
#include <blockkit/chain.h>
#include <blockkit/undo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a failure happened. */
typedef enum bk_engine_stage {
    BK_STAGE_NONE = 0,
    BK_STAGE_READ,                      /* opening / reading the block bytes */
    BK_STAGE_DECODE,                    /* the block does not parse (err->offset: byte in the block) */
    BK_STAGE_UNDO_READ,                 /* opening / reading its undo record */
    BK_STAGE_UNDO_CHECKSUM,             /* the undo record's checksum (Core's ReadBlockUndo) */
    BK_STAGE_UNDO_DECODE,               /* the undo record does not parse (err->offset: byte in it) */
    BK_STAGE_WORK,                      /* the caller's block callback */
    BK_STAGE_TASK,                      /* the caller's task begin / end callback */
    BK_STAGE_CONSUME,                   /* the caller's consumer */
    BK_STAGE_SETUP                      /* memory, threads */
} bk_engine_stage;

typedef struct bk_engine_where {
    bk_engine_stage stage;
    size_t task;                        /* the failing task */
    size_t item;                        /* the failing block's item index (SIZE_MAX: none) */
    int64_t height;
    uint8_t hash[32];                   /* internal byte order (zero when no block) */
    bk_file_kind kind;                  /* the file read: blk or rev */
    uint32_t file;                      /* its number */
    uint64_t file_offset;               /* of the block / undo bytes in it */
} bk_engine_where;

/* Set w's stage and file position (w may be NULL). */
static inline void bk_engine_where_at(bk_engine_where *w, bk_engine_stage stage, bk_file_kind kind, uint32_t file,
                                      uint64_t off)
{
    if (!w) return;
    w->stage = stage;
    w->kind = kind;
    w->file = file;
    w->file_offset = off;
}

/* A block handed to the callback (valid during the call only). */
typedef struct bk_engine_block {
    size_t item;                        /* index in the item list */
    size_t task;
    int64_t height;
    int orphan;
    const bk_chain_entry *entry;
    const bk_block *block;              /* decoded; NULL when the entry has no data (no_data) */
    const uint8_t *data;                /* its bytes, de-obfuscated */
    size_t size;
    const bk_block_undo *undo;          /* NULL when not read: no undo record, or undo not asked, or
                                           BK_READ_UNDO_RAW (not parsed) */
    const uint8_t *undo_data;           /* the CBlockUndo bytes, de-obfuscated (NULL when not read) */
    size_t undo_size;
    const uint8_t *undo_checksum;       /* the record's 32 checksum bytes after them when they were read
                                           (BK_READ_UNDO_CHECKSUM: already verified), else NULL */
    /* With BK_READ_UNDO_RAW a callback that finds the undo bytes bad may
     * set *undo_stage to BK_STAGE_UNDO_DECODE (or BK_STAGE_UNDO_CHECKSUM)
     * before returning the error: the failure is then reported as that
     * stage at the undo record's file position, as when the engine parses.
     * NULL outside a bk_engine_run callback. */
    bk_engine_stage *undo_stage;
} bk_engine_block;

/* Per-worker block reader: keeps the last blk and rev file open, reads
 * with pread into its own buffers (memory is the largest block and undo
 * record), never maps, locks or writes. */
typedef struct bk_block_reader {
    const bk_blocksdir *dir;
    const bk_allocator *alloc;
    bk_block_decoder dec;
    bk_block blk_dec;
    bk_block_undo undo_dec;
    uint8_t *blk, *undo;
    size_t blk_cap, undo_cap;
    int blk_fd, rev_fd;
    uint32_t blk_num, rev_num;
} bk_block_reader;

#define BK_READ_UNDO 1u                 /* also the undo record when the entry has one */
#define BK_READ_UNDO_CHECKSUM 2u        /* and verify its checksum against the parent hash (Core's
                                           ReadBlockUndo; for records found by position in Core's index:
                                           bk_engine_run sets it itself when chain->from_index) */
#define BK_READ_UNDO_RAW 4u             /* with BK_READ_UNDO: read (and verify, as above) the undo record
                                           but do not parse it: the callback gets undo == NULL and the
                                           bytes in undo_data / undo_size / undo_checksum, for a consumer
                                           that reads the CBlockUndo itself in one pass
                                           (bk_block_stats_compute_undo); saves bk_block_undo_parse */

BK_API void bk_block_reader_init(bk_block_reader *r, const bk_blocksdir *dir, const bk_allocator *alloc);
BK_API void bk_block_reader_free(bk_block_reader *r);
/* Read and decode e's block (and its undo, per flags) into *out (pointers
 * into r's buffers, valid until the next read). An entry with no_data
 * gives out->block == NULL and BK_OK. Errors: BK_ERR_IO (a file that
 * cannot be opened or is shorter than the chain says; the message names
 * the path and offset), the decoders' errors; *where (may be NULL) says
 * which stage and file position and gets e's hash: its task, item and
 * height are the caller's to set (bk_engine_error_format prints the
 * height). */
BK_API bk_status bk_block_reader_read(bk_block_reader *r, const bk_chain_entry *e, unsigned flags,
                                      bk_engine_block *out, bk_engine_where *where, bk_error *err) BK_WARN_UNUSED;

/* len bytes at off of blk/rev file `file` into out (at least len bytes),
 * de-obfuscated, through r's open file of that kind (reopened when the
 * number changes; pread, so a file the node has grown reads to its new
 * end). Errors: BK_ERR_IO (the file cannot be opened or read; the message
 * names the path), BK_ERR_TRUNCATED ("blkNNNNN.dat: len bytes at offset
 * off are past the end of the file"). */
BK_API bk_status bk_block_reader_copy(bk_block_reader *r, bk_file_kind kind, uint32_t file, uint64_t off, void *out,
                                      size_t len, bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
