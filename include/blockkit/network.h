/* blockkit: Bitcoin network parameters (Core: src/kernel/chainparams.cpp).
 * Address prefixes and HRPs for EncodeDestination, block/undo file magic,
 * and the proof-of-work limit. */
#ifndef BLOCKKIT_NETWORK_H
#define BLOCKKIT_NETWORK_H

#include <blockkit/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bk_network {
    BK_NET_MAIN = 0,
    BK_NET_TESTNET3,
    BK_NET_TESTNET4,
    BK_NET_SIGNET,
    BK_NET_REGTEST,
    BK_NET_COUNT_
} bk_network;

typedef struct bk_network_params {
    const char *name;          /* "main", "testnet3", "testnet4", "signet", "regtest" (Core's chain names: "main", "test", "testnet4", "signet", "regtest") */
    const char *core_name;     /* Core's getblockchaininfo "chain" */
    uint8_t magic[4];          /* message start / blk and rev file record magic */
    uint8_t p2pkh_prefix;      /* Base58 PUBKEY_ADDRESS */
    uint8_t p2sh_prefix;       /* Base58 SCRIPT_ADDRESS */
    const char *hrp;           /* bech32 human-readable part */
    uint8_t pow_limit[32];     /* big-endian */
} bk_network_params;

/* Parameters of a network; NULL for an out-of-range value. */
BK_API const bk_network_params *bk_network_get(bk_network net);

/* Parse a network name: main|mainnet|bitcoin, test|testnet|testnet3,
 * testnet4, signet, regtest. BK_ERR_ARG when unknown. */
BK_API bk_status bk_network_parse(const char *name, bk_network *net_out) BK_WARN_UNUSED;

/* The subdirectory Core uses for a network's data ("" for main,
 * "testnet3/", "testnet4/", "signet/", "regtest/"; Core:
 * chainparamsbase.cpp). Never NULL for a valid network. */
BK_API const char *bk_network_datadir_subdir(bk_network net);

/* The path "<dir>/<subdir><leaf>" of a network's data in a Core -datadir
 * (or -blocksdir) dir, e.g. leaf "blocks/index" or "chainstate"; leaf ""
 * gives the network's folder ("<dir>/" on main). Written into out[cap]
 * as snprintf does (cut short, always NUL-terminated when cap > 0; out
 * may be NULL when cap is 0). Returns the length of the whole path (out
 * holds it all when that is below cap), -1 for an unknown network or a
 * NULL dir. */
BK_API int bk_network_datadir_path(char *out, size_t cap, const char *dir, bk_network net, const char *leaf);

#ifdef __cplusplus
}
#endif
#endif
