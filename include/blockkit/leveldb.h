/* blockkit: read-only access to a LevelDB directory that another process
 * (bitcoind) may hold open and be writing, through a private snapshot.
 *
 * Bitcoin Core keeps its block index (blocks/index), UTXO set (chainstate)
 * and optional indexes (indexes/txindex) in LevelDB. LevelDB always takes an
 * exclusive LOCK on the directory it opens and may write there (a replayed
 * log becomes a table, a new MANIFEST, compactions), and bitcoind holds that
 * lock while it runs. So blockkit never opens the node's directory itself:
 *
 *   1. a fresh directory is made under `tmpdir` (default: $TMPDIR or /tmp);
 *   2. CURRENT is read, and the MANIFEST it names, its live `*.ldb` / `*.sst`
 *      tables and every `*.log` are brought in. CURRENT and the logs are
 *      copied (they grow); of the MANIFEST only what LevelDB reads: up to
 *      its last 32 KiB block that holds a non-zero byte, holes kept as holes
 *      (a sparse or zero-extended MANIFEST costs no time or space; data past
 *      256 MiB is refused as damage). The live tables (immutable once
 *      written) are copied while they total at most 64 MiB, else hard-linked
 *      (copied when the link is refused: another filesystem, a read-only
 *      mount); a table whose size is not the one its MANIFEST records is
 *      damage;
 *   3. if CURRENT, or the MANIFEST's inode or size, changed meanwhile, or a
 *      file vanished (a compaction removed it), the snapshot is discarded and
 *      taken again (at most 16 times; linked, not copied, once two tries saw
 *      a change); the same
 *      file missing, or the same bad CURRENT, on two looks in a row is not a
 *      change but a damaged database, reported as such;
 *   4. libleveldb opens the private copy and replays its logs there.
 *
 * Nothing is ever created, written, locked or removed in the source
 * directory; only regular files are opened there (a FIFO or device is an
 * error, never a hang), so it works on a read-only mount and while the node
 * runs. One thing of the source's changes: the inode ctime (and, while the
 * snapshot lives, the link count) of the live tables of a database over
 * 64 MiB whose tmpdir is on the same filesystem, by the hard link and its
 * removal (docs/blockfiles.md says why they are linked; a tmpdir on
 * another filesystem copies them instead, at the cost of their size).
 * bk_ldb_close() removes the snapshot directory. It is named
 * blockkit-ldb-PID-<random> (blockkit-ldb-new-PID-<random> while it is being
 * made) and flock()ed while open; one left by a process killed with SIGKILL
 * (lock free, PID gone) is removed by the next bk_ldb_open under the same
 * tmpdir.
 *
 * Thread safety: one bk_ldb may be read from several threads with separate
 * iterators; bk_ldb_close() must not race with any other call on it. */
#ifndef BLOCKKIT_LEVELDB_H
#define BLOCKKIT_LEVELDB_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bk_ldb bk_ldb;
typedef struct bk_ldb_iter bk_ldb_iter;

/* Open a private snapshot of the LevelDB directory `dbdir`.
 * tmpdir: where the snapshot directory is made; NULL = $TMPDIR, else /tmp.
 *         On the source's filesystem the tables of a database over 64 MiB
 *         are hard links (no copy).
 * Errors: BK_ERR_NOT_FOUND (no such directory, or no CURRENT: not a LevelDB
 * directory), BK_ERR_INVALID (a damaged database, bad data: a non-regular
 * file where a table/log/manifest should be; CURRENT naming a MANIFEST that
 * does not exist, or holding no MANIFEST name; a live table missing or not
 * of its recorded size; a MANIFEST with data past 256 MiB; LevelDB's
 * Corruption when it opens the snapshot), BK_ERR_IO (a read, copy or open
 * failed, or the source kept changing; the message names the path and the
 * reason), BK_ERR_NOMEM. err->msg names the source directory (or file in
 * it), never the snapshot's. On error *db_out is NULL and nothing is left
 * behind. */
BK_API BK_WARN_UNUSED bk_status bk_ldb_open(const char *dbdir, const char *tmpdir,
                                            bk_ldb **db_out, bk_error *err);

/* How a snapshot is read. max_open_files: tables LevelDB keeps open (and
 * mapped); bk_ldb_open's 64 suit one pass over Core's databases, an index
 * answering random point queries over hundreds of tables wants them all
 * (below 64: 64). block_cache_bytes: LevelDB's block cache (0: LevelDB's
 * own 8 MiB). */
typedef struct bk_ldb_opts {
    int max_open_files;
    size_t block_cache_bytes;
} bk_ldb_opts;

/* bk_ldb_open with options (NULL: bk_ldb_open's). */
BK_API BK_WARN_UNUSED bk_status bk_ldb_open_opts(const char *dbdir, const char *tmpdir, const bk_ldb_opts *o,
                                                 bk_ldb **db_out, bk_error *err);

/* Close the database and remove its snapshot directory. NULL is a no-op. */
BK_API void bk_ldb_close(bk_ldb *db);

/* Keep the table blocks reads decompress in LevelDB's block cache (off
 * at open: one pass over Core's databases would only churn it; on for an
 * index answering many point queries). Set before the reads start. */
BK_API void bk_ldb_fill_cache(bk_ldb *db, int on);

/* The snapshot directory (for messages and tests). */
BK_API const char *bk_ldb_snapshot_dir(const bk_ldb *db);

/* Point lookup. On success *val_out is a malloc'd copy of the value (free
 * it with bk_ldb_free) and *vlen_out its length. BK_ERR_NOT_FOUND when the
 * key is absent (*val_out NULL). A LevelDB error is "<dbdir>: LevelDB:
 * <LevelDB's text>", with any path in the snapshot mapped to the source's
 * file: BK_ERR_INVALID for damage (Corruption, Invalid argument, NotFound,
 * and a read past the end of a table, which LevelDB's mmap reader reports
 * as "IO error: FILE: Invalid argument"), BK_ERR_IO for any other IO error. */
BK_API BK_WARN_UNUSED bk_status bk_ldb_get(bk_ldb *db, const uint8_t *key, size_t klen,
                                           uint8_t **val_out, size_t *vlen_out, bk_error *err);
BK_API void bk_ldb_free(void *p);

/* Iterate the keys that start with `prefix` (plen may be 0: every key), in
 * LevelDB's byte order. The iterator reads a consistent view. */
BK_API BK_WARN_UNUSED bk_status bk_ldb_iter_new(bk_ldb *db, const uint8_t *prefix, size_t plen,
                                                bk_ldb_iter **it_out, bk_error *err);
/* The same over the keys that start with `prefix` and lie in [start,
 * limit) (slen 0: from the first such key; llen 0: to the last), in
 * LevelDB's byte order: disjoint ranges of one prefix can be read from
 * different threads. */
BK_API BK_WARN_UNUSED bk_status bk_ldb_iter_new_range(bk_ldb *db, const uint8_t *prefix, size_t plen,
                                                      const uint8_t *start, size_t slen, const uint8_t *limit,
                                                      size_t llen, bk_ldb_iter **it_out, bk_error *err);
/* 1 and the next key/value (valid until the next call or free), or 0 at the
 * end of the prefix range or on error (then bk_ldb_iter_status says which). */
BK_API int bk_ldb_iter_next(bk_ldb_iter *it, const uint8_t **key, size_t *klen,
                            const uint8_t **val, size_t *vlen);
/* BK_OK, or LevelDB's error as bk_ldb_get reports it: BK_ERR_INVALID for a
 * corrupt table, BK_ERR_IO for a read error. */
BK_API bk_status bk_ldb_iter_status(const bk_ldb_iter *it, bk_error *err);
BK_API void bk_ldb_iter_free(bk_ldb_iter *it);

/* LevelDB's approximate on-disk size of the key range [start, limit) (as
 * Core's gettxoutsetinfo `disk_size` reports for the coin range). */
BK_API uint64_t bk_ldb_approximate_size(bk_ldb *db, const uint8_t *start, size_t slen,
                                        const uint8_t *limit, size_t llen);

#ifdef __cplusplus
}
#endif

#endif /* BLOCKKIT_LEVELDB_H */
