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

#ifdef __cplusplus
}
#endif
#endif
