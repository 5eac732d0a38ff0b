/* blockkit: the UTXO datasets as table rows - the utxos dataset (one row
 * per coin: `blockkit export --datasets utxos`, `blockkit utxo dump`) and
 * the utxo_stats dataset (one row per height: `blockkit export --datasets
 * utxo_stats`). The coins and statistics themselves are blockkit/utxo.h;
 * the table writer is blockkit/table.h. */
#ifndef BLOCKKIT_UTXO_TABLE_H
#define BLOCKKIT_UTXO_TABLE_H

#include <signal.h>

#include <blockkit/table.h>
#include <blockkit/utxo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- the utxos rows */

/* The utxos dataset (`blockkit export --datasets utxos`, `blockkit utxo
 * dump`; docs/utxo.md): txid (hex, Core's display order), vout (INT64),
 * value (satoshis, INT64), height (INT32), is_coinbase (BOOLEAN),
 * script_hex, type (Core's name, dictionary-encoded), address (optional:
 * null when Core prints none), desc (Core's inferred descriptor with its
 * checksum). type, address and desc are what Core's gettxout prints in
 * scriptPubKey. */
BK_API const bk_pq_column *bk_utxo_columns(size_t *n_out);
/* The columns under a profile (blockkit/table.h): BK_PROFILE_LEAN has txid
 * as FIXED_LEN_BYTE_ARRAY(32) in Core's display order, script_hex as the
 * script's bytes (BYTE_ARRAY), and no desc; the default is
 * bk_utxo_columns. */
BK_API const bk_pq_column *bk_utxo_columns_profile(bk_table_profile p, size_t *n_out);

/* Rows are rendered a batch at a time: the coins are copied in (their
 * scripts into the batch's own arena), then bk_utxo_batch_render computes
 * every text column (hex, type, address, descriptor; the taproot key checks
 * of the whole batch at once, with AVX-512 when the CPU has it), then
 * bk_utxo_batch_write hands rows to a table writer. Distinct batches may be
 * rendered on distinct threads. A batch holds at most BK_UTXO_BATCH coins
 * and BK_UTXO_BATCH_SCRIPT_BYTES of raw scripts, so its memory stays about
 * 1.5 MB whatever the coins. */
#define BK_UTXO_BATCH 1024
#define BK_UTXO_BATCH_SCRIPT_BYTES (256u << 10)

typedef struct bk_utxo_batch bk_utxo_batch;

BK_API bk_status bk_utxo_batch_new(bk_utxo_batch **out, bk_network net, const bk_allocator *alloc) BK_WARN_UNUSED;
BK_API void bk_utxo_batch_free(bk_utxo_batch *b);
/* Empty it (keeps its memory). */
BK_API void bk_utxo_batch_reset(bk_utxo_batch *b);
/* Render and write rows of profile p (default: bk_utxo_columns; lean:
 * bk_utxo_columns_profile(BK_PROFILE_LEAN), no hex or descriptor text
 * rendered). */
BK_API void bk_utxo_batch_set_profile(bk_utxo_batch *b, bk_table_profile p);
/* Copy u in: 1, or 0 when the batch is full (u not added). */
BK_API int bk_utxo_batch_add(bk_utxo_batch *b, const bk_utxo *u);
BK_API size_t bk_utxo_batch_count(const bk_utxo_batch *b);
/* The i-th coin as added (its raw script in the batch's arena). */
BK_API const bk_utxo *bk_utxo_batch_coin(const bk_utxo_batch *b, size_t i);
/* Render the text columns of every coin. BK_ERR_NOMEM. */
BK_API bk_status bk_utxo_batch_render(bk_utxo_batch *b) BK_WARN_UNUSED;
/* Rows [from, to) of a rendered batch into t (opened with bk_utxo_columns),
 * each ended with bk_table_end_row; the writer's errors are returned. */
BK_API bk_status bk_utxo_batch_write(const bk_utxo_batch *b, size_t from, size_t to, bk_table_writer *t,
                                     bk_error *err) BK_WARN_UNUSED;

/* ---- the rows of a whole set, rendered in parallel, in order ----
 *
 * The engine of `blockkit utxo dump` and `blockkit export --datasets utxos`:
 * coins from next (a chainstate iterator, a snapshot reader, anything that
 * returns them in order) are copied into batches, the batches rendered on
 * worker threads, and each handed to emit on the calling thread in the
 * source's order. At most threads + 2 batches exist (about 1.5 MB each),
 * whatever the size of the set. */

/* 1 with the next coin in *u (valid until the next call), 0 at the end or
 * on an error (the caller asks its source which, after the run). */
typedef int (*bk_utxo_next_fn)(void *ctx, bk_utxo *u);
/* A rendered batch, in order; anything but BK_OK ends the run with that
 * status (set err to say why). */
typedef bk_status (*bk_utxo_emit_fn)(void *ctx, const bk_utxo_batch *b, bk_error *err);

#define BK_UTXO_ROWS_THREADS_MAX 64

/* Run the source to its end. threads < 2 renders on the calling thread;
 * more start that many workers (at most BK_UTXO_ROWS_THREADS_MAX; none
 * could be started: inline). cancel (may be NULL) is polled between
 * batches: BK_ERR_CANCELLED, the batches still being rendered waited for
 * and not emitted. Errors: emit's, BK_ERR_NOMEM (batches, or rendering),
 * BK_ERR_ARG (no next or emit). The source's own end status is not looked
 * at here: check it after BK_OK. */
BK_API bk_status bk_utxo_rows_run(bk_network net, bk_utxo_next_fn next, void *next_ctx, unsigned threads,
                                  bk_utxo_emit_fn emit, void *emit_ctx, const volatile sig_atomic_t *cancel,
                                  const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
/* The same with the batches of profile p (bk_utxo_batch_set_profile). */
BK_API bk_status bk_utxo_rows_run_profile(bk_network net, bk_table_profile p, bk_utxo_next_fn next, void *next_ctx,
                                          unsigned threads, bk_utxo_emit_fn emit, void *emit_ctx,
                                          const volatile sig_atomic_t *cancel, const bk_allocator *alloc,
                                          bk_error *err) BK_WARN_UNUSED;


/* ---------------------------------------------------- the utxo_stats rows */

/* The utxo_stats dataset (`blockkit export --datasets utxo_stats`): one
 * row per height, gettxoutsetinfo's numbers as typed columns, amounts in
 * satoshis (INT64): height (INT32), bestblock (hex, display order),
 * txouts, bogosize, muhash (hex; null for hash type none), total_amount,
 * total_unspendable_amount, then block_info: prevout_spent, coinbase,
 * new_outputs_ex_coinbase, unspendable, unspendable_genesis_block,
 * unspendable_bip30, unspendable_scripts, unspendable_unclaimed_rewards. */
BK_API const bk_pq_column *bk_coinstats_columns(size_t *n_out);
/* One row into t (opened with bk_coinstats_columns), ended with
 * bk_table_end_row; its error returned. */
BK_API bk_status bk_coinstats_row(bk_table_writer *t, const bk_coinstats *cur, const bk_coinstats *prev,
                                  bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
