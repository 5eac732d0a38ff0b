/* The export directory's own files (src/table/catalog.c): the datasets
 * manifest OUT/_blockkit/datasets.ndjson and the catalogue's writes. */
#ifndef BK_CATALOG_INTERNAL_H
#define BK_CATALOG_INTERNAL_H

#include <blockkit/export.h>

/* One dataset of an export: how its chunks are cut and the range done. */
typedef struct bk_ds_manifest {
    int present;
    bk_table_format format;
    bk_network net;
    int64_t chunk_size;
    int64_t start, end;        /* end -1: nothing complete recorded yet */
    bk_table_profile profile;
    char columns[1024];        /* the names of the columns written, comma-separated */
} bk_ds_manifest;

/* Read datasets.ndjson into m[BK_DS_COUNT_] (absent: none present, *found
 * 0). BK_ERR_INVALID naming the line. */
bk_status bk_manifest_load(const char *out_dir, bk_ds_manifest m[BK_DS_COUNT_], int *found, bk_error *err);
/* Write it whole (temporary file, fsync, rename). */
bk_status bk_manifest_write(const char *out_dir, const bk_ds_manifest m[BK_DS_COUNT_], bk_error *err);

/* Remove the temporary files (.tmp-PID) a killed run left in OUT/_blockkit (the
 * caller holds OUT's lock). */
void bk_export_meta_clean(const char *out_dir);
/* Append e's line to chunks.ndjson (created with _blockkit/) and fsync. */
bk_status bk_catalog_append(const char *out_dir, const bk_catalog_entry *e, bk_error *err);
/* Rewrite chunks.ndjson with c's entries whose files exist, sorted by
 * file; c keeps only those. */
bk_status bk_catalog_write(bk_catalog *c, const char *out_dir, bk_error *err);
/* The hashes a chunk of first..last records: the best-chain blocks at the
 * lowest and highest of its heights the chain has (zero when none), and
 * bk_export_chain_digest. */
void bk_export_chunk_hashes(const bk_chain *c, int64_t first, int64_t last, uint8_t first_hash[32],
                            uint8_t last_hash[32], uint8_t digest[32]);
/* "<name>_<first:08>_<last:08>.<ext>", as bk_chunk_path writes them (8 to 12
 * digits each, last >= first, a table format's extension) -> its parts, the
 * name into dataset (cap bytes); 0: not such a name. */
int bk_chunk_name_split(const char *name, char *dataset, size_t cap, int64_t *first, int64_t *last,
                        bk_table_format *fmt);
/* The same for an export dataset's chunk (the name one of bk_dataset). */
int bk_chunk_name_parse(const char *name, bk_dataset *ds, int64_t *first, int64_t *last, bk_table_format *fmt);
/* The footer keys of a Parquet chunk, into kv[BK_EXPORT_FOOTER_KEYS]
 * with their strings in text (at least 512 bytes). */
#define BK_EXPORT_FOOTER_KEYS 10
void bk_export_footer_keys(const bk_catalog_entry *e, bk_pq_kv kv[BK_EXPORT_FOOTER_KEYS], char *text, size_t cap);

#endif
