/* Internal helpers shared by the script modules of src/bitcoin.
 *
 * Layering: each module calls only the ones below it (never up):
 *
 *   JSON and tables (src/json/script_json.c, decodescript.c; src/table)
 *     ^ descriptors  (descriptor.c: bk_script_info_descriptor, checksum)
 *     ^ script info  (script_info.c: bk_script_info_get[_hint])
 *     ^ addresses    (address.c: Base58Check, bech32; bk_script_address)
 *     ^ solver       (script.c: bk_script_solve, bk_script_asm, hex)
 *   and the x-only key check (xonly.c, xonly_avx512.c), a leaf that script
 *   info calls and that calls none of the others.
 *
 * The declarations below are grouped by the module that defines them. */
#ifndef BLOCKKIT_SCRIPT_INTERNAL_H
#define BLOCKKIT_SCRIPT_INTERNAL_H

#include <blockkit/script.h>

/* ---- script.c (solver) ---- */

/* Lowercase hex of src[0..n) into dst[0..2n) (no NUL). */
void bk_script_hex(char *dst, const uint8_t *src, size_t n);

/* Room for n bytes at the end of w (fast path inline). NULL on failure. */
static inline uint8_t *bk_script_space(bk_writer *w, size_t n)
{
    if (n <= w->cap - w->len && w->data) return w->data + w->len; /* (an empty writer has no buffer) */
    return bk_writer_space(w, n);
}

/* ---- address.c (addresses) ---- */

/* Address of a solved script (Core: ExtractDestination + EncodeDestination)
 * into out (BK_SCRIPT_ADDRESS_MAX bytes), NUL-terminated; returns its
 * length, 0 when Core prints no address. */
size_t bk_script_address_encode(const bk_script_solution *sol, const bk_network_params *p,
                                char out[BK_SCRIPT_ADDRESS_MAX]);

/* Base58Check of prefix + hash with its checksum given (the first 4 bytes
 * of SHA256d(prefix + hash), computed by the caller, e.g. for many at once
 * with bk_sha256d_msgs), NUL-terminated into out (BK_SCRIPT_ADDRESS_MAX);
 * returns the length. */
size_t bk_base58check21_sum(char *out, uint8_t prefix, const uint8_t hash[20], const uint8_t sum[4]);

/* Base58 of 25 bytes (at most 35 characters, no NUL); returns the length. */
size_t bk_base58_encode25(char *out, const uint8_t in[25]);

/* Generic bech32/bech32m decoding (BIP173 rules: printable ASCII, no mixed
 * case, <= 90 characters, non-empty hrp, >= 6 data characters, valid
 * checksum). hrp receives the lowercased hrp, data the 5-bit values without
 * the checksum (*dlen_out of them). Returns 1 for bech32, 2 for bech32m, 0
 * on error (err filled). */
int bk_bech32_decode(const char *s, size_t len, char hrp[91], uint8_t data[90], size_t *dlen_out,
                     bk_error *err);

/* ---- xonly.c, xonly_avx512.c (x-only keys) ---- */

/* XOnlyPubKey::IsFullyValid: x < p and x^3 + 7 is a square mod p. */
int bk_script_xonly_valid(const uint8_t x[32]);
/* The same through libsecp256k1's secp256k1_xonly_pubkey_parse (the
 * reference the fast path is tested against). */
int bk_script_xonly_valid_reference(const uint8_t x[32]);
/* The Jacobi-symbol decision alone (src/bitcoin/xonly.c): 1 valid, 0
 * invalid, -1 when the loop did not converge within its budget (then
 * bk_script_xonly_valid asks libsecp256k1). Exposed for tests. */
int bk_script_xonly_check(const uint8_t x[32]);

/* bk_script_xonly_valid for n keys of 32 bytes each (keys[32 i ..]), into
 * valid_out[0..n) (0 or 1; identical results). Uses the AVX-512 kernel when
 * the CPU has it (bk_script_xonly_many_simd() != 0), else the scalar loop
 * (bk_script_xonly_valid_many_scalar). Never allocates. */
void bk_script_xonly_valid_many(const uint8_t *keys, size_t n, uint8_t *valid_out);
void bk_script_xonly_valid_many_scalar(const uint8_t *keys, size_t n, uint8_t *valid_out);
int bk_script_xonly_many_simd(void);
/* The AVX-512 kernel (src/bitcoin/xonly_avx512.c, x86-64 only): out[l] =
 * (g4[l] | p) as 1 or -1 for 0 < g4[l] < p (little-endian 64-bit limbs), 0
 * when the loop did not converge within its budget; BK_XONLY_LANES (a
 * multiple of 8) at a time. */
#define BK_XONLY_LANES 16
void bk_xonly_jacobi_avx512(const uint64_t g4[BK_XONLY_LANES][4], int8_t out[BK_XONLY_LANES]);

/* ---- script_info.c (script info) ---- */

/* bk_script_info_get, except that for a taproot script the x-only decision
 * is taproot_valid_hint when it is 0 or 1 (the caller must have computed it
 * with bk_script_xonly_valid / _many on the same 32 bytes), computed when it
 * is -1. */
bk_status bk_script_info_get_hint(const uint8_t *s, size_t n, bk_network net, int taproot_valid_hint,
                                  bk_script_info *info);

#endif
