/* blockkit: Bitcoin Core block files (blocks/blkNNNNN.dat, revNNNNN.dat,
 * xor.dat) read directly, read-only.
 *
 * A blk record is magic(4) || u32 LE size || block; a rev record is
 * magic(4) || u32 LE size || CBlockUndo || SHA256d(parent hash || CBlockUndo)
 * (32 bytes). Core: src/node/blockstorage.cpp WriteBlock/WriteBlockUndo.
 * Since Core v28 every byte of both kinds of file may be XORed with
 * xor.dat's 8-byte key at the byte's absolute file offset (headers
 * included; Core: src/util/obfuscation.h, blockstorage.cpp
 * InitBlocksdirXorKey). A missing or all-zero xor.dat is the identity.
 *
 * A bk_blockfile is one file: either a file opened read-only (never
 * mapped, locked or written: read with pread, so a file that bitcoind
 * shrinks while it is read gives a short read, never SIGBUS) or caller
 * memory. Records are found with bk_record_iter, which never fails: it
 * stops at the first place the file stops holding records and says why
 * (bk_file_end). Record bytes are fetched with bk_blockfile_bytes: a
 * pointer into the image for plain memory images (zero copy), else the
 * de-obfuscated bytes read into a caller buffer. */
#ifndef BLOCKKIT_BLOCKFILE_H
#define BLOCKKIT_BLOCKFILE_H

#include <blockkit/alloc.h>
#include <blockkit/network.h>

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_XOR_KEY_SIZE 8
/* Core: blockstorage.h UNDO_DATA_DISK_OVERHEAD minus the 8-byte header. */
#define BK_UNDO_CHECKSUM_SIZE 32

typedef enum bk_file_kind {
    BK_FILE_BLK = 0, /* blkNNNNN.dat: blocks */
    BK_FILE_REV = 1  /* revNNNNN.dat: undo records */
} bk_file_kind;

typedef struct bk_blockfile {
    const uint8_t *data;            /* the bytes as stored (obfuscated when xored) */
    size_t len;
    bk_file_kind kind;
    uint32_t number;                /* NNNNN of the file name; 0 for memory images */
    uint8_t magic[4];               /* the network's record magic */
    uint8_t key[BK_XOR_KEY_SIZE];   /* all zero when not obfuscated */
    int xored;                      /* non-zero when key is not all zero */
    /* private */
    int fd_;                        /* the open file (bk_blockfile_open), when has_fd_ */
    int has_fd_;
    const bk_allocator *alloc_;
} bk_blockfile;

/* Core: util/obfuscation.h - byte i of a blk/rev file is XORed with
 * key[i % 8] (xor.dat). out[0..len) = in[0..len) de-obfuscated, in being
 * the bytes at file offset off; out may equal in. The one implementation of
 * the rule: readers that pread into their own buffers call it too. */
BK_API void bk_xor_copy(uint8_t *out, const uint8_t *in, size_t len, uint64_t off, const uint8_t key[BK_XOR_KEY_SIZE]);

/* An image over caller memory (borrowed; it must outlive f). key may be
 * NULL (no obfuscation). Never fails. */
BK_API void bk_blockfile_init_mem(bk_blockfile *f, const uint8_t *data, size_t len, bk_file_kind kind,
                                  bk_network net, const uint8_t key[BK_XOR_KEY_SIZE]);

/* Open the file at path read-only (O_RDONLY | O_NONBLOCK, then fstat:
 * anything but a regular file, such as a FIFO or a directory, is refused
 * with BK_ERR_IO "not a regular file" before it can block). len is its size
 * at open; reads use pread. key may be NULL. BK_ERR_IO naming the path when
 * it cannot be opened; BK_ERR_ARG for an unknown network. Release with
 * bk_blockfile_close. */
BK_API bk_status bk_blockfile_open(bk_blockfile *f, const char *path, bk_file_kind kind, uint32_t number,
                                   bk_network net, const uint8_t key[BK_XOR_KEY_SIZE],
                                   const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;

/* Access pattern hint for an opened file (posix_fadvise; a no-op for
 * memory images). Scanning blk headers touches one page per
 * block: BK_ACCESS_RANDOM keeps the kernel from reading whole files ahead.
 * Hashing every rev byte: BK_ACCESS_SEQUENTIAL. */
typedef enum bk_access {
    BK_ACCESS_NORMAL = 0,
    BK_ACCESS_SEQUENTIAL,
    BK_ACCESS_RANDOM
} bk_access;
BK_API void bk_blockfile_advise(const bk_blockfile *f, bk_access access);

/* Close what bk_blockfile_open opened (no-op for memory images). */
BK_API void bk_blockfile_close(bk_blockfile *f);

/* Copy len de-obfuscated bytes from file offset off into out.
 * BK_ERR_TRUNCATED when they are not all inside the file (or the file has
 * shrunk below them since it was opened); BK_ERR_IO for a read error. */
BK_API bk_status bk_blockfile_copy(const bk_blockfile *f, uint64_t off, void *out, size_t len,
                                   bk_error *err) BK_WARN_UNUSED;

/* The len bytes at file offset off, de-obfuscated: *bytes_out points into
 * the image for a memory image that is not obfuscated (buf is then unused
 * and may be NULL), else into buf, where they are read and de-obfuscated
 * (BK_ERR_BUFFER when cap < len). BK_ERR_TRUNCATED when the range is not
 * inside the file (or no longer is); BK_ERR_IO for a read error. */
BK_API bk_status bk_blockfile_bytes(const bk_blockfile *f, uint64_t off, size_t len, uint8_t *buf,
                                    size_t cap, const uint8_t **bytes_out, bk_error *err) BK_WARN_UNUSED;

/* ---- records ---- */

typedef struct bk_record {
    uint32_t file;          /* the file's number */
    uint64_t record_offset; /* offset of the record's magic */
    uint64_t offset;        /* offset of the block / CBlockUndo bytes (record_offset + 8) */
    uint32_t size;          /* their length (the record's size field) */
} bk_record;

/* How a file stopped holding records. */
typedef enum bk_file_end {
    BK_END_NONE = 0,      /* iteration not finished */
    BK_END_CLEAN,         /* the last record ends exactly at the end of the file */
    BK_END_ZERO_TAIL,     /* the rest of the file is never-written pre-allocation (zero bytes on disk, or zero after de-obfuscation) */
    BK_END_BAD_MAGIC,     /* a record header whose magic is not the network's, with non-zero bytes after */
    BK_END_TRUNCATED      /* a record (or its 8-byte header) that runs past the end of the file */
} bk_file_end;

typedef struct bk_record_iter {
    const bk_blockfile *f;
    uint64_t pos;
    bk_file_end end;        /* why the iteration stopped (after next() returned 0) */
    uint64_t end_offset;    /* where: the offset of the first byte not in a record */
    uint64_t count;         /* records returned so far */
    /* Optional (NULL after init): once *cancel is non-zero, the zero-tail
     * check of a long pre-allocated tail stops early (the file then ends
     * as a zero tail); the caller checks the flag and gives up. */
    const volatile sig_atomic_t *cancel;
    /* Optional (NULL after init; bk_record_iter_window): the caller's
     * buffer through which the record headers and bk_record_iter_copy /
     * _bytes are read, a window of the file at a time. */
    uint8_t *win_;
    size_t win_cap_;
    uint64_t win_lo_, win_hi_; /* file bytes [lo, hi) are in win_, de-obfuscated */
} bk_record_iter;

BK_API void bk_record_iter_init(bk_record_iter *it, const bk_blockfile *f);
/* Read through buf (cap bytes, at least 4 KiB; the caller keeps it for the
 * iteration): a file read with pread then costs one system call per
 * window instead of one per record header and per read of the record's
 * bytes (a chain of small blocks: millions). Reads larger than half the
 * window bypass it. Results are the same with or without a window, except
 * that bytes already in the window are served from it: of a file that
 * shrinks mid-iteration, they are what a read at the moment the window was
 * filled returned; reads past them see the shrink as without a window. */
BK_API void bk_record_iter_window(bk_record_iter *it, uint8_t *buf, size_t cap);
/* bk_blockfile_copy / bk_blockfile_bytes of the iterator's file, through
 * its window when it has one (bytes_out may then point into the window,
 * valid until the next call on the iterator). */
BK_API bk_status bk_record_iter_copy(bk_record_iter *it, uint64_t off, void *out, size_t len,
                                     bk_error *err) BK_WARN_UNUSED;
BK_API bk_status bk_record_iter_bytes(bk_record_iter *it, uint64_t off, size_t len, uint8_t *buf, size_t cap,
                                      const uint8_t **bytes_out, bk_error *err) BK_WARN_UNUSED;
/* Returns 1 with the next record, or 0 when there is none (it->end and
 * it->end_offset then say why). For rev files the 32-byte checksum follows
 * the CBlockUndo: record.offset + record.size. */
BK_API int bk_record_next(bk_record_iter *it, bk_record *rec_out);
/* "clean end", "zero tail", "bad magic", "truncated record", "not finished". */
BK_API const char *bk_file_end_str(bk_file_end e);

/* Check a rev record's checksum: SHA256d(parent_hash (internal byte order,
 * as in the block header's hashPrevBlock) || undo). BK_ERR_CHECKSUM when it
 * differs (Core: ReadBlockUndo "Checksum mismatch"). */
BK_API bk_status bk_undo_checksum_verify(const uint8_t *undo, size_t len, const uint8_t parent_hash[32],
                                         const uint8_t checksum[32], bk_error *err) BK_WARN_UNUSED;

/* ---- blocks directory ---- */

typedef struct bk_blocksdir {
    char *path;                     /* a copy of the directory path */
    bk_network net;
    uint8_t key[BK_XOR_KEY_SIZE];   /* xor.dat, or zero */
    int xored;
    uint32_t *blk;                  /* numbers of blkNNNNN.dat present, ascending */
    size_t n_blk;
    uint32_t *rev;                  /* numbers of revNNNNN.dat present, ascending */
    size_t n_rev;
    const bk_allocator *alloc;
} bk_blocksdir;

/* List a blocks directory (files named blkNNNNN.dat / revNNNNN.dat as
 * Core names them: "%05u", so more digits without a leading zero past
 * 99999) and read xor.dat if present (it must be exactly 8
 * bytes: BK_ERR_INVALID otherwise). BK_ERR_IO naming the path when the
 * directory or xor.dat cannot be read. Release with bk_blocksdir_close. */
BK_API bk_status bk_blocksdir_open(bk_blocksdir *d, const char *path, bk_network net,
                                   const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
/* Open d's blkNNNNN.dat or revNNNNN.dat with d's key and network. */
BK_API bk_status bk_blocksdir_open_file(const bk_blocksdir *d, bk_file_kind kind, uint32_t number,
                                        bk_blockfile *f, bk_error *err) BK_WARN_UNUSED;
/* Open d's blkNNNNN.dat or revNNNNN.dat as a descriptor for pread (the
 * caller closes it), with the checks of bk_blockfile_open: O_NONBLOCK and
 * fstat first, so a FIFO or another non-regular file is BK_ERR_IO "not a
 * regular file" naming the path instead of blocking. */
BK_API bk_status bk_blocksdir_open_fd(const bk_blocksdir *d, bk_file_kind kind, uint32_t number, int *fd_out,
                                      bk_error *err) BK_WARN_UNUSED;
/* Whether d lists that file. */
BK_API int bk_blocksdir_has(const bk_blocksdir *d, bk_file_kind kind, uint32_t number);
BK_API void bk_blocksdir_close(bk_blocksdir *d);

#ifdef __cplusplus
}
#endif
#endif
