/* Internal to the silent-payment sources: the scratch carving, shared by
 * the rules (silentpay.c) and the scan (silentpay_scan.c). */
#ifndef BLOCKKIT_SILENTPAY_INTERNAL_H
#define BLOCKKIT_SILENTPAY_INTERNAL_H

#include <blockkit/silentpay.h>

#include <secp256k1.h>

/* Grow s->buf to at least n bytes (contents not kept). 0, or -1 on no memory. */
int bk_sp_scratch_need(bk_sp_scratch *s, size_t n);

/* hash_BIP0352/<tag>(msg) through libsecp256k1 (tag without the prefix). */
void bk_sp_tagged(uint8_t out[32], const char *tag, const uint8_t *msg, size_t len);

/* The input's key as libsecp256k1's parsed point (bk_sp_input_key's rules). */
bk_sp_key_kind bk_sp_input_point(const bk_sp_input *in, secp256k1_pubkey *pk_out);

#endif
