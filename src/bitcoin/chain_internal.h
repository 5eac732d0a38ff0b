/* Internal to the chain builders (chain.c: the header scan; chain_index.c:
 * Core's block index): the open-addressing table over bk_chain.entries that
 * bk_chain_find probes. One definition (chain.c), so both builders fill the
 * table exactly the way the lookup reads it. */
#ifndef BLOCKKIT_CHAIN_INTERNAL_H
#define BLOCKKIT_CHAIN_INTERNAL_H

#include <blockkit/chain.h>

/* The entry index of a block hash, or BK_CHAIN_NONE. */
uint32_t bk_chain_table_find(const bk_chain *c, const uint8_t hash[32]);
/* Insert entry idx (the table has room: capacity >= 2 n_entries). */
void bk_chain_table_insert(bk_chain *c, uint32_t idx);

#endif
