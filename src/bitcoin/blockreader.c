/* The block reader (blockkit/blockreader.h): a chain entry's block and
 * undo record read by position with pread into the reader's own buffers,
 * de-obfuscated there with xor.dat's key, decoded with its decoder. The
 * engine gives one to each worker; the lookups keep one. */
#define _POSIX_C_SOURCE 200809L
#include <blockkit/blockreader.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void bk_block_reader_init(bk_block_reader *r, const bk_blocksdir *dir, const bk_allocator *alloc)
{
    memset(r, 0, sizeof *r);
    r->dir = dir;
    r->alloc = alloc;
    bk_block_decoder_init(&r->dec, alloc);
    r->blk_fd = r->rev_fd = -1;
}

void bk_block_reader_free(bk_block_reader *r)
{
    bk_block_decoder_free(&r->dec);
    bk_free(r->alloc, r->blk, r->blk_cap);
    bk_free(r->alloc, r->undo, r->undo_cap);
    if (r->blk_fd >= 0) close(r->blk_fd);
    if (r->rev_fd >= 0) close(r->rev_fd);
    r->blk = r->undo = NULL;
    r->blk_cap = r->undo_cap = 0;
    r->blk_fd = r->rev_fd = -1;
}

/* r's open file of that kind, reopened when the number changes. */
static bk_status file_fd(bk_block_reader *r, bk_file_kind kind, uint32_t num, int *fd_out, bk_error *err)
{
    int *fd = kind == BK_FILE_BLK ? &r->blk_fd : &r->rev_fd;
    uint32_t *cur = kind == BK_FILE_BLK ? &r->blk_num : &r->rev_num;
    if (*fd < 0 || *cur != num) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
        /* O_RDONLY, no locks: safe beside a running bitcoind; a FIFO or
         * another non-regular file is refused before it can block. */
        bk_status st = bk_blocksdir_open_fd(r->dir, kind, num, fd, err);
        if (st != BK_OK) {
            *fd = -1;
            return st;
        }
        *cur = num;
    }
    *fd_out = *fd;
    return BK_OK;
}

/* len bytes at off of fd into out; *got: the count read (short at the
 * end of the file). 0, or the errno of a read error. */
static int pread_all(int fd, uint8_t *out, size_t len, uint64_t off, size_t *got)
{
    *got = 0;
    while (*got < len) {
        ssize_t n = pread(fd, out + *got, len - *got, (off_t)(off + *got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) break;
        *got += (size_t)n;
    }
    return 0;
}

static const char *kind_name(bk_file_kind kind) { return kind == BK_FILE_BLK ? "blk" : "rev"; }

/* len bytes at off of blk/rev file num into *buf, de-obfuscated. */
static bk_status read_range(bk_block_reader *r, bk_file_kind kind, uint32_t num, uint64_t off, size_t len,
                            uint8_t **buf, size_t *cap, bk_error *err)
{
    int fd;
    bk_status st = file_fd(r, kind, num, &fd, err);
    if (st != BK_OK) return st;
    if (bk_grow(r->alloc, buf, cap, len ? len : 1)) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory (%zu bytes)", len);
    size_t got;
    int e = pread_all(fd, *buf, len, off, &got);
    if (e || got < len) {
        uint64_t at = off + got;
        /* Core: FlatFileSeq "%s%05u.dat" */
        return bk_error_set(err, BK_ERR_IO, at, "%s/%s%05u.dat: %s at offset %llu", r->dir->path, kind_name(kind),
                            num, e ? strerror(e) : "file shorter than when the chain was built",
                            (unsigned long long)at);
    }
    if (r->dir->xored) bk_xor_copy(*buf, *buf, len, off, r->dir->key);
    return BK_OK;
}

bk_status bk_block_reader_copy(bk_block_reader *r, bk_file_kind kind, uint32_t file, uint64_t off, void *out,
                               size_t len, bk_error *err)
{
    if (!bk_blocksdir_has(r->dir, kind, file))
        return bk_error_set(err, BK_ERR_NOT_FOUND, off, "%s%05u.dat is not in %s", kind_name(kind), file,
                            r->dir->path);
    int fd;
    bk_status st = file_fd(r, kind, file, &fd, err);
    if (st != BK_OK) return st;
    size_t got;
    int e = pread_all(fd, out, len, off, &got);
    if (e)
        return bk_error_set(err, BK_ERR_IO, off + got, "%s/%s%05u.dat: %s at offset %llu", r->dir->path,
                            kind_name(kind), file, strerror(e), (unsigned long long)(off + got));
    if (got < len)
        return bk_error_set(err, BK_ERR_TRUNCATED, off, "%s%05u.dat: %zu bytes at offset %llu are past the end of the file",
                            kind_name(kind), file, len, (unsigned long long)off);
    if (r->dir->xored) bk_xor_copy(out, out, len, off, r->dir->key);
    return BK_OK;
}

bk_status bk_block_reader_read(bk_block_reader *r, const bk_chain_entry *e, unsigned flags, bk_engine_block *out,
                               bk_engine_where *where, bk_error *err)
{
    memset(out, 0, sizeof *out);
    out->entry = e;
    if (where) memcpy(where->hash, e->hash, 32);
    bk_engine_where_at(where, BK_STAGE_NONE, BK_FILE_BLK, e->file, e->offset);
    if (e->no_data) return BK_OK;
    bk_status st = read_range(r, BK_FILE_BLK, e->file, e->offset, e->size, &r->blk, &r->blk_cap, err);
    if (st != BK_OK) {
        bk_engine_where_at(where, BK_STAGE_READ, BK_FILE_BLK, e->file, e->offset);
        return st;
    }
    st = bk_block_decode(&r->dec, r->blk, e->size, &r->blk_dec, err);
    if (st != BK_OK) {
        bk_engine_where_at(where, BK_STAGE_DECODE, BK_FILE_BLK, e->file, e->offset);
        return st;
    }
    out->block = &r->blk_dec;
    out->data = r->blk;
    out->size = e->size;
    if (!(flags & BK_READ_UNDO) || !e->has_undo) return BK_OK;
    /* A record paired by the header scan had its checksum verified then;
     * one found by position in Core's block index is checked here, as
     * Core's ReadBlockUndo does. */
    size_t ck = flags & BK_READ_UNDO_CHECKSUM ? BK_UNDO_CHECKSUM_SIZE : 0;
    st = read_range(r, BK_FILE_REV, e->undo_file, e->undo_offset, (size_t)e->undo_size + ck, &r->undo,
                    &r->undo_cap, err);
    if (st != BK_OK) {
        bk_engine_where_at(where, BK_STAGE_UNDO_READ, BK_FILE_REV, e->undo_file, e->undo_offset);
        return st;
    }
    if (ck && (st = bk_undo_checksum_verify(r->undo, e->undo_size, e->prev_hash, r->undo + e->undo_size, err)) !=
                  BK_OK) {
        bk_engine_where_at(where, BK_STAGE_UNDO_CHECKSUM, BK_FILE_REV, e->undo_file, e->undo_offset);
        return st;
    }
    out->undo_data = r->undo;
    out->undo_size = e->undo_size;
    out->undo_checksum = ck ? r->undo + e->undo_size : NULL;
    if (flags & BK_READ_UNDO_RAW) return BK_OK; /* the consumer reads the CBlockUndo itself */
    if ((st = bk_block_undo_parse(r->undo, e->undo_size, &r->undo_dec, err)) != BK_OK) {
        out->undo_data = NULL;
        out->undo_size = 0;
        out->undo_checksum = NULL;
        bk_engine_where_at(where, BK_STAGE_UNDO_DECODE, BK_FILE_REV, e->undo_file, e->undo_offset);
        return st;
    }
    out->undo = &r->undo_dec;
    return BK_OK;
}
