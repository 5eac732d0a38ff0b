/* blockkit: Bitcoin Core's dumptxoutset files (node/utxo_snapshot.h,
 * format version 2): a streaming reader and a writer. Part of
 * blockkit/utxo.h. */
#ifndef BLOCKKIT_UTXO_SNAPSHOT_H
#define BLOCKKIT_UTXO_SNAPSHOT_H

#include <stdio.h>

#include <blockkit/network.h>
#include <blockkit/utxo_coin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------------------- snapshot */

#define BK_UTXO_SNAPSHOT_VERSION 2
/* Magic, version, network magic, base hash, coin count. */
#define BK_UTXO_SNAPSHOT_HEADER_SIZE 51

/* Core's node::SnapshotMetadata (node/utxo_snapshot.h). */
typedef struct bk_utxo_snapshot_meta {
    uint16_t version;
    uint8_t magic[4];          /* the network's message start */
    bk_network net;            /* the network of that magic */
    uint8_t base_hash[32];     /* internal byte order */
    uint64_t coin_count;
} bk_utxo_snapshot_meta;

/* Pull bytes: fill up to cap bytes into buf, set *got (0 = end of input);
 * return 0, or non-zero on a read error. */
typedef int (*bk_read_fn)(void *ctx, uint8_t *buf, size_t cap, size_t *got);

typedef struct bk_utxo_snapshot bk_utxo_snapshot;

/* Open a snapshot stream and read its metadata. Errors (err->offset is the
 * file offset): BK_ERR_TRUNCATED (shorter than the 51-byte metadata),
 * BK_ERR_INVALID (magic is not "utxo\xff": not a UTXO snapshot),
 * BK_ERR_INVALID also for a version other than 2 (the version Core writes),
 * BK_ERR_MAGIC (a network magic of no known network), BK_ERR_IO (read
 * failure), BK_ERR_NOMEM. The reader holds one buffer of about 1 MiB
 * through alloc (NULL = default). */
BK_API bk_status bk_utxo_snapshot_open(bk_utxo_snapshot **out, bk_read_fn read, void *ctx,
                                       const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
/* The same over a file descriptor (read(2); EINTR retried) or a FILE. The
 * descriptor or FILE stays the caller's to close. */
BK_API bk_status bk_utxo_snapshot_open_fd(bk_utxo_snapshot **out, int fd, const bk_allocator *alloc,
                                          bk_error *err) BK_WARN_UNUSED;
BK_API bk_status bk_utxo_snapshot_open_file(bk_utxo_snapshot **out, FILE *f, const bk_allocator *alloc,
                                            bk_error *err) BK_WARN_UNUSED;

BK_API const bk_utxo_snapshot_meta *bk_utxo_snapshot_meta_get(const bk_utxo_snapshot *s);

/* Refuse coins above this height, as Core's loader does ("Bad snapshot
 * data"): call before the first coin when the base block's height is
 * known. */
BK_API void bk_utxo_snapshot_set_base_height(bk_utxo_snapshot *s, uint32_t height);

/* The next coin, in file order: 1 and *u filled, or 0 at the end or on an
 * error (bk_utxo_snapshot_status says which). The end is checked as Core's
 * loader checks it: exactly coin_count coins, then no byte more. Errors
 * carry the file offset: BK_ERR_TRUNCATED (the file ends inside a coin or
 * before coin_count coins), BK_ERR_COUNT (a txid's coin count over the
 * coins left: "Mismatch in coins count"), BK_ERR_TRAILING (bytes after the
 * last coin), BK_ERR_NONCANONICAL / BK_ERR_SIZE (a CompactSize),
 * BK_ERR_OVERFLOW (a VARINT), BK_ERR_SCRIPT (a compressed key off the
 * curve), BK_ERR_VALUE (an amount outside MoneyRange, a height over the
 * base height), BK_ERR_IO. */
BK_API int bk_utxo_snapshot_next(bk_utxo_snapshot *s, bk_utxo *u);
BK_API bk_status bk_utxo_snapshot_status(const bk_utxo_snapshot *s, bk_error *err);
/* Coins returned so far, and bytes consumed (the offset after the last
 * coin returned). */
BK_API uint64_t bk_utxo_snapshot_coins_read(const bk_utxo_snapshot *s);
BK_API uint64_t bk_utxo_snapshot_offset(const bk_utxo_snapshot *s);
BK_API void bk_utxo_snapshot_close(bk_utxo_snapshot *s);

/* -------------------------------------------------- writing a snapshot */

/* A dumptxoutset file (format version 2: node/utxo_snapshot.h, Core's
 * WriteUTXOSnapshot) written through a file descriptor: the metadata, then
 * coins grouped by txid (txid, CompactSize coin count, per coin
 * CompactSize(vout) and the Coin serialization: VARINT(height*2+coinbase),
 * VARINT(CompressAmount(value)), the compressed script). Coins must come
 * in key order (each txid's coins together, as a chainstate cursor or
 * bk_utxo_rollback gives them). The coin count in the metadata is written
 * last, at its offset (pwrite): fd must be a regular file opened for
 * writing, positioned at 0. Memory: one txid's coins and a 1 MiB buffer. */
typedef struct bk_utxo_snapshot_writer bk_utxo_snapshot_writer;

BK_API bk_status bk_utxo_snapshot_writer_open(bk_utxo_snapshot_writer **out, int fd, bk_network net,
                                              const uint8_t base_hash[32], const bk_allocator *alloc,
                                              bk_error *err) BK_WARN_UNUSED;
/* BK_ERR_INVALID for coins out of key order; BK_ERR_IO (errno in the
 * message). */
BK_API bk_status bk_utxo_snapshot_writer_add(bk_utxo_snapshot_writer *w, const bk_utxo *u,
                                             bk_error *err) BK_WARN_UNUSED;
/* Flush the last group and write the coin count; *coins_out (may be
 * NULL) the coins written. */
BK_API bk_status bk_utxo_snapshot_writer_finish(bk_utxo_snapshot_writer *w, uint64_t *coins_out,
                                                bk_error *err) BK_WARN_UNUSED;
BK_API void bk_utxo_snapshot_writer_free(bk_utxo_snapshot_writer *w);

#ifdef __cplusplus
}
#endif
#endif
