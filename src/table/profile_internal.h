/* The lean profile's one rule (blockkit/table.h; src/table/rows.c), for
 * every dataset including utxos (src/table/utxos.c). */
#ifndef BK_TABLE_PROFILE_INTERNAL_H
#define BK_TABLE_PROFILE_INTERNAL_H

#include <blockkit/parquet.h>

enum { BK_LEAN_KEEP, BK_LEAN_HASH, BK_LEAN_BYTES, BK_LEAN_DROP };

/* What --profile lean makes of column `column` of dataset `dataset`
 * ("blocks" ... "utxos"): kept as it is, a FIXED_LEN_BYTE_ARRAY(32) hash,
 * BYTE_ARRAY bytes, or dropped. */
int bk_table_lean_kind_(const char *dataset, const char *column);
/* Column c as the lean profile types it (kind not BK_LEAN_DROP). */
bk_pq_column bk_table_lean_column_(bk_pq_column c, int kind);

#endif
