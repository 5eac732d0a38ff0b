/* blockkit: Bitcoin scripts rendered exactly as Bitcoin Core renders them.
 *
 *  - bk_script_solve: Core's Solver (src/script/solver.cpp) and the type
 *    names of GetTxnOutputType, including "anchor" (v28+).
 *  - bk_script_asm: Core's ScriptToAsmStr (src/core_io.cpp), with the
 *    optional sighash-type decoding Core applies to scriptSigs.
 *  - bk_script_address: Core's ExtractDestination + EncodeDestination
 *    (src/addresstype.cpp, src/key_io.cpp): Base58Check, bech32, bech32m.
 *  - bk_script_descriptor: InferDescriptor(script, dummy provider)->ToString()
 *    (src/script/descriptor.cpp) with its "#checksum".
 *  - bk_script_info_get: all of the above from one solve, for the JSON
 *    writer's hot path (every scriptPubKey of every output and prevout).
 *  - bk_address_decode, bk_descriptor_checksum: the inverse direction and the
 *    checksum alone (tests, fuzzing, CLI).
 *
 * Nothing here allocates except through the bk_writer the caller passes
 * (which grows through the caller's allocator); outputs into caller buffers
 * are refused with BK_ERR_BUFFER when too small, never truncated. Scripts are
 * borrowed bytes; pointers in a bk_script_solution point into them.
 * Output text is pure ASCII and never needs JSON escaping. */
#ifndef BLOCKKIT_SCRIPT_H
#define BLOCKKIT_SCRIPT_H

#include <blockkit/network.h>
#include <blockkit/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Core: TxoutType (src/script/solver.h). */
typedef enum bk_script_type {
    BK_SCRIPT_NONSTANDARD = 0,
    BK_SCRIPT_PUBKEY,
    BK_SCRIPT_PUBKEYHASH,
    BK_SCRIPT_SCRIPTHASH,
    BK_SCRIPT_MULTISIG,
    BK_SCRIPT_NULLDATA,
    BK_SCRIPT_ANCHOR,
    BK_SCRIPT_WITNESS_V0_KEYHASH,
    BK_SCRIPT_WITNESS_V0_SCRIPTHASH,
    BK_SCRIPT_WITNESS_V1_TAPROOT,
    BK_SCRIPT_WITNESS_UNKNOWN,
    BK_SCRIPT_TYPE_COUNT_
} bk_script_type;

/* Core: MAX_PUBKEYS_PER_MULTISIG (src/script/script.h). */
#define BK_SCRIPT_MAX_MULTISIG_KEYS 20

/* Longest address text plus its NUL: a bech32 string is at most 90
 * characters (BIP173); Base58Check of 25 bytes is at most 35. */
#define BK_SCRIPT_ADDRESS_MAX 91

/* What Solver found. Pointers borrow the script's bytes. */
typedef struct bk_script_solution {
    bk_script_type type;
    /* Witness programs (v0 keyhash/scripthash, taproot, unknown, anchor):
     * the version 0..16; -1 for everything else. */
    int witness_version;
    /* The type's payload: the pubkey (pubkey: 33 or 65 bytes), the hash
     * (pubkeyhash, scripthash: 20 bytes), the witness program (2..40 bytes).
     * NULL/0 for multisig, nulldata and nonstandard. */
    const uint8_t *data;
    size_t data_len;
    /* Multisig only: required signatures m, key count n and the keys in
     * script order (each 33 or 65 bytes, lengths in key_len). */
    uint8_t m, n;
    uint8_t key_len[BK_SCRIPT_MAX_MULTISIG_KEYS];
    const uint8_t *keys[BK_SCRIPT_MAX_MULTISIG_KEYS];
} bk_script_solution;

/* Classify a scriptPubKey exactly as Core's Solver does (first match wins:
 * scripthash, witness program, nulldata, pubkey, pubkeyhash, multisig,
 * nonstandard). s may be NULL when n == 0. sol_out may be NULL; when given it
 * is filled as documented above. Never fails. */
BK_API bk_script_type bk_script_solve(const uint8_t *s, size_t n, bk_script_solution *sol_out);

/* Core's GetTxnOutputType string ("pubkeyhash", "witness_v1_taproot",
 * "anchor", ...); "nonstandard" for an out-of-range value. */
BK_API const char *bk_script_type_name(bk_script_type type);

/* Append Core's ScriptToAsmStr(script, sighash_decode) to w. Pushes of at
 * most 4 bytes print as CScriptNum decimals, longer pushes as hex; a push
 * running past the end prints "[error]" and ends the text. With
 * sighash_decode non-zero (Core does this for scriptSigs) a push that is a
 * strict-DER signature with a defined hash type prints without its last
 * byte followed by "[ALL]", "[NONE|ANYONECANPAY]", ..., unless the script
 * is unspendable (starts with OP_RETURN or is over 10000 bytes). Writer
 * failures are sticky in w (check bk_writer_status). */
BK_API void bk_script_asm(bk_writer *w, const uint8_t *s, size_t n, int sighash_decode);

/* The address Core prints for a scriptPubKey on network net, NUL-terminated
 * into out[0..cap). *len_out receives its length (without the NUL), 0 when
 * Core prints no address (pubkey, multisig, nulldata, nonstandard; out then
 * holds "" if cap > 0). Errors: BK_ERR_ARG for an unknown network or NULL
 * len_out; BK_ERR_BUFFER when cap cannot hold the address and its NUL
 * (BK_SCRIPT_ADDRESS_MAX always suffices). */
BK_API bk_status bk_script_address(const uint8_t *s, size_t n, bk_network net, char *out,
                                   size_t cap, size_t *len_out) BK_WARN_UNUSED;

/* Append InferDescriptor(script)->ToString() (with "#" and the 8-character
 * checksum) to w, as Core prints it in "desc": pk(), multi(), rawtr(),
 * addr() or raw(). BK_ERR_ARG for an unknown network (nothing written);
 * otherwise BK_OK or the writer's sticky status. */
BK_API bk_status bk_script_descriptor(bk_writer *w, const uint8_t *s, size_t n, bk_network net) BK_WARN_UNUSED;

/* One solve for everything Core's ScriptToUniv prints. */
typedef struct bk_script_info {
    bk_script_solution sol;
    size_t address_len;                  /* 0: Core prints no "address" */
    char address[BK_SCRIPT_ADDRESS_MAX]; /* NUL-terminated */
    int taproot_valid;                   /* taproot only: x is on the curve (rawtr) */
} bk_script_info;

/* Solve s, encode its address (network net) and, for taproot, decide
 * whether x is a valid x-only key (Core: XOnlyPubKey::IsFullyValid, by a
 * Jacobi symbol: about 2.5 us, the dominant cost of a taproot script; every
 * other type costs well under 0.2 us). BK_ERR_ARG for an unknown network or
 * NULL info_out. */
BK_API bk_status bk_script_info_get(const uint8_t *s, size_t n, bk_network net,
                                    bk_script_info *info_out) BK_WARN_UNUSED;
/* The descriptor of s from info (which must come from bk_script_info_get on
 * the same s); same output as bk_script_descriptor. */
BK_API void bk_script_info_descriptor(bk_writer *w, const uint8_t *s, size_t n,
                                      const bk_script_info *info);

/* Decode an address of network net into the scriptPubKey it pays to:
 * Base58Check (P2PKH, P2SH prefixes of net) or bech32/bech32m with the
 * BIP173/BIP350 rules (hrp of net, no mixed case, at most 90 characters,
 * bech32 for v0 and bech32m for v1..16, v0 programs of 20 or 32 bytes,
 * programs of 2..40 bytes, zero padding of at most 4 bits). addr is
 * NUL-terminated. script_out receives at most 42 bytes; *len_out its length.
 * Errors: BK_ERR_INVALID (bad characters, checksum, prefix, hrp, version,
 * length, padding; err->msg says which and err->offset where), BK_ERR_BUFFER
 * when cap is too small, BK_ERR_ARG for NULL arguments or unknown network. */
BK_API bk_status bk_address_decode(const char *addr, bk_network net, uint8_t *script_out,
                                   size_t cap, size_t *len_out, bk_error *err) BK_WARN_UNUSED;

/* Core's DescriptorChecksum over desc[0..len) (without any "#..."), into
 * out as 8 characters and a NUL. BK_ERR_INVALID (offset of the character)
 * when desc holds a character outside Core's INPUT_CHARSET. */
BK_API bk_status bk_descriptor_checksum(const char *desc, size_t len, char out[9],
                                        bk_error *err) BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
