/* Addresses: Base58Check and bech32/bech32m encoding of scriptPubKeys as
 * Core's EncodeDestination prints them, BIP173/BIP350 decoding rules, and
 * Core's own renderings round-tripped through the decoder. */
#include "script_vectors.h"
#include "script_ref.h"
#include "bitcoin/script_internal.h"

static const char *addr_of(const char *hex, bk_network net)
{
    static char out[BK_SCRIPT_ADDRESS_MAX];
    size_t n, len = 99;
    uint8_t *s = check_unhex(hex, &n);
    bk_status st = bk_script_address(s, n, net, out, sizeof out, &len);
    free(s);
    CHECK_EQ_INT(st, BK_OK);
    CHECK_EQ_INT(len, strlen(out));
    return out;
}

/* Decode addr and compare with the expected script hex; "" = must fail. */
static void decode_is(const char *addr, bk_network net, const char *want_hex)
{
    uint8_t script[64];
    size_t len = 0;
    bk_error err;
    bk_status st = bk_address_decode(addr, net, script, sizeof script, &len, &err);
    if (!*want_hex) {
        if (st == BK_OK) {
            check_failed++;
            fprintf(stderr, "[%s] %s decoded but must be rejected\n", check_case, addr);
        } else {
            check_passed++;
        }
        return;
    }
    if (st != BK_OK) {
        check_failed++;
        fprintf(stderr, "[%s] %s rejected: %s (offset %llu)\n", check_case, addr, err.msg,
                (unsigned long long)err.offset);
        return;
    }
    char hex[200];
    check_hex(hex, script, len);
    CHECK_EQ_STR(hex, want_hex);
}

/* Decoding must fail with a message containing why. */
static void reject_because(const char *addr, bk_network net, const char *why)
{
    uint8_t script[64];
    size_t len = 0;
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_address_decode(addr, net, script, sizeof script, &len, &err);
    CHECK(st != BK_OK);
    if (!strstr(err.msg, why)) {
        check_failed++;
        fprintf(stderr, "[%s] %s: error \"%s\" does not mention \"%s\"\n", check_case, addr, err.msg, why);
    } else {
        check_passed++;
    }
}

/* ---- encoding ---- */

static void base58check_p2pkh_and_p2sh(void)
{
    CHECK_EQ_STR(addr_of("76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac", BK_NET_MAIN),
                 "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa");
    CHECK_EQ_STR(addr_of("76a914751e76e8199196d454941c45d1b3a323f1433bd688ac", BK_NET_MAIN),
                 "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH");
    CHECK_EQ_STR(addr_of("76a914751e76e8199196d454941c45d1b3a323f1433bd688ac", BK_NET_TESTNET3),
                 "mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r");
    CHECK_EQ_STR(addr_of("a914cd7b44d0b03f2d026d1e586d7ae18903b0d385f687", BK_NET_MAIN),
                 "3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr");
    CHECK_EQ_STR(addr_of("a914cd7b44d0b03f2d026d1e586d7ae18903b0d385f687", BK_NET_TESTNET4),
                 "2NByiBUaEXrhmqAsg7BbLpcQSAQs1EDwt5w");
}

static void base58_of_25_bytes_matches_core_vector(void)
{
    /* Core: src/test/data/base58_encode_decode.json (plain Base58). */
    size_t n;
    uint8_t *in = check_unhex("00eb15231dfceb60925886b67d065299925915aeb172c06647", &n);
    char out[40];
    size_t len = bk_base58_encode25(out, in);
    out[len] = 0;
    CHECK_EQ_STR(out, "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L");
    memset(in, 0xff, 25);
    len = bk_base58_encode25(out, in);
    CHECK_EQ_INT(len, 35);
    memset(in, 0, 25);
    len = bk_base58_encode25(out, in);
    out[len] = 0;
    CHECK_EQ_STR(out, "1111111111111111111111111");
    free(in);
}

/* Seeded random payloads (every count of leading zero bytes, all-0xff
 * tails, single bits) against Core's byte-at-a-time conversion. */
static void base58_of_25_bytes_matches_core_algorithm(void)
{
    uint64_t x = 0x2545f4914f6cdd1dull;
    uint8_t in[25];
    char got[40], want[64];
    for (int t = 0; t < 30000; t++) {
        for (int i = 0; i < 25; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            in[i] = (uint8_t)(x >> 32);
        }
        int z = t % 27;
        if (z <= 25) memset(in, 0, (size_t)z);
        if (t % 5 == 1) memset(in + (t % 25), 0xff, 25 - (size_t)(t % 25));
        if (t % 11 == 2) {
            memset(in, 0, 25);
            in[(t / 11) % 25] = (uint8_t)(1u << (t % 8));
        }
        size_t gl = bk_base58_encode25(got, in), wl = ref_base58(want, in, 25);
        got[gl] = 0;
        want[wl] = 0;
        CHECK_EQ_STR(got, want);
    }
}

static void base58_leading_zero_bytes_become_ones(void)
{
    CHECK_EQ_STR(addr_of("76a914000000000000000000000000000000000000000088ac", BK_NET_MAIN),
                 "1111111111111111111114oLvT2");
}

static void bech32_for_v0_bech32m_for_v1_and_up(void)
{
    CHECK_EQ_STR(addr_of("0014751e76e8199196d454941c45d1b3a323f1433bd6", BK_NET_MAIN),
                 "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
    CHECK_EQ_STR(addr_of("00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262", BK_NET_TESTNET3),
                 "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7");
    CHECK_EQ_STR(addr_of("5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6", BK_NET_MAIN),
                 "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y");
    CHECK_EQ_STR(addr_of("6002751e", BK_NET_MAIN), "bc1sw50qgdz25j");
    CHECK_EQ_STR(addr_of("5210751e76e8199196d454941c45d1b3a323", BK_NET_MAIN), "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs");
    CHECK_EQ_STR(addr_of("0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433", BK_NET_SIGNET),
                 "tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy");
    CHECK_EQ_STR(addr_of("5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433", BK_NET_TESTNET3),
                 "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c");
    CHECK_EQ_STR(addr_of("512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", BK_NET_MAIN),
                 "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0");
}

static void anchor_address_on_every_network(void)
{
    CHECK_EQ_STR(addr_of("51024e73", BK_NET_MAIN), "bc1pfeessrawgf");
    CHECK_EQ_STR(addr_of("51024e73", BK_NET_REGTEST), "bcrt1pfeesnyr2tx");
    CHECK_EQ_STR(addr_of("51024e73", BK_NET_TESTNET3), "tb1pfees9rn5nz");
    CHECK_EQ_STR(addr_of("51024e73", BK_NET_TESTNET4), "tb1pfees9rn5nz");
    CHECK_EQ_STR(addr_of("51024e73", BK_NET_SIGNET), "tb1pfees9rn5nz");
}

static void no_address_for_pubkey_multisig_nulldata_nonstandard(void)
{
    CHECK_EQ_STR(addr_of("210279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798ac", BK_NET_MAIN), "");
    CHECK_EQ_STR(addr_of("51210279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f8179851ae", BK_NET_MAIN), "");
    CHECK_EQ_STR(addr_of("6a0401020304", BK_NET_MAIN), "");
    CHECK_EQ_STR(addr_of("", BK_NET_MAIN), "");
    CHECK_EQ_STR(addr_of("0010000000000000000000000000000000000000", BK_NET_MAIN), "");
}

static void address_buffer_too_small_is_refused(void)
{
    static const uint8_t s[] = {0x51, 0x02, 0x4e, 0x73};
    char out[BK_SCRIPT_ADDRESS_MAX];
    size_t len = 7;
    CHECK_EQ_INT(bk_script_address(s, 4, BK_NET_MAIN, out, 14, &len), BK_ERR_BUFFER); /* 14 chars, no room for NUL */
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_INT(bk_script_address(s, 4, BK_NET_MAIN, out, 15, &len), BK_OK);
    CHECK_EQ_INT(len, 14);
    CHECK_EQ_INT(bk_script_address(s, 4, (bk_network)42, out, sizeof out, &len), BK_ERR_ARG);
    CHECK_EQ_INT(bk_script_address(s, 4, BK_NET_MAIN, out, sizeof out, NULL), BK_ERR_ARG);
    /* No address needs only the NUL; cap 0 is fine. */
    static const uint8_t ret[] = {0x6a};
    CHECK_EQ_INT(bk_script_address(ret, 1, BK_NET_MAIN, NULL, 0, &len), BK_OK);
    CHECK_EQ_INT(len, 0);
}

/* ---- BIP173 / BIP350 checksum vectors (generic bech32 strings) ---- */

static int bech32_kind(const char *s)
{
    char hrp[91];
    uint8_t data[90];
    size_t dl;
    return bk_bech32_decode(s, strlen(s), hrp, data, &dl, NULL);
}

static void bip173_valid_bech32_checksums(void)
{
    char q[100], l[100];
    snprintf(q, sizeof q, "11%.*s%s", 82,
             "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", "c8247j");
    snprintf(l, sizeof l, "11%.*s%s", 83,
             "lllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll", "udsr8");
    const char *bech32[] = {
        "A12UEL5L", "a12uel5l",
        "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
        "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw", q,
        "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", "?1ezyfcl",
    };
    const char *bech32m[] = {
        "A1LQFN3A", "a1lqfn3a",
        "an83characterlonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber11sg7hg6",
        "abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx", l,
        "split1checkupstagehandshakeupstreamerranterredcaperredlc445v", "?1v759aa",
    };
    for (size_t i = 0; i < sizeof bech32 / sizeof bech32[0]; i++) CHECK_EQ_INT(bech32_kind(bech32[i]), 1);
    for (size_t i = 0; i < sizeof bech32m / sizeof bech32m[0]; i++) CHECK_EQ_INT(bech32_kind(bech32m[i]), 2);
}

static void bip173_bip350_invalid_checksums(void)
{
    const char *bad[] = {
        "\x20" "1nwldj5", "\x7f" "1axkwrx", "\x80" "1eym55h",
        "an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx",
        "pzry9x0s0muk", "1pzry9x0s0muk", "x1b4n0q5v", "li1dgmt3", "de1lg7wt" "\xff", "A1G7SGD8",
        "10a06t8", "1qzzfhee",
        "\x20" "1xj0phk", "\x7f" "1g6xzxy", "\x80" "1vctc34",
        "an84characterslonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber11d6pts4",
        "qyrz8wqd2c9m", "1qyrz8wqd2c9m", "y1b0jsk6g", "lt1igcx5c0", "in1muywd", "mm1crxm3i", "au1s5cgom",
        "M1VUXWEZ", "16plkw9", "1p2gdwpf",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (bech32_kind(bad[i]) != 0) {
            check_failed++;
            fprintf(stderr, "[%s] accepted invalid %s\n", check_case, bad[i]);
        } else {
            check_passed++;
        }
    }
}

/* ---- decoding segwit addresses (BIP350 vectors) ---- */

static void bip350_valid_segwit_addresses_decode(void)
{
    decode_is("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", BK_NET_MAIN, "0014751e76e8199196d454941c45d1b3a323f1433bd6");
    decode_is("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", BK_NET_TESTNET3,
              "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262");
    decode_is("bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", BK_NET_MAIN,
              "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6");
    decode_is("BC1SW50QGDZ25J", BK_NET_MAIN, "6002751e");
    decode_is("bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", BK_NET_MAIN, "5210751e76e8199196d454941c45d1b3a323");
    decode_is("tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy", BK_NET_TESTNET3,
              "0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433");
    decode_is("tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c", BK_NET_TESTNET3,
              "5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433");
    decode_is("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", BK_NET_MAIN,
              "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
    decode_is("bcrt1pfeesnyr2tx", BK_NET_REGTEST, "51024e73");
}

/* The same BIP350 vectors the other way: their scripts encode to the
 * addresses, lowercased (every witness version 0, 1, 2, 16 and program
 * length 2, 16, 20, 32, 40 among them). */
static void bip350_valid_segwit_addresses_encode(void)
{
    static const struct {
        const char *addr, *hex;
        bk_network net;
    } v[] = {
        {"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "0014751e76e8199196d454941c45d1b3a323f1433bd6", BK_NET_MAIN},
        {"tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
         "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262", BK_NET_TESTNET3},
        {"bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
         "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6", BK_NET_MAIN},
        {"bc1sw50qgdz25j", "6002751e", BK_NET_MAIN},
        {"bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "5210751e76e8199196d454941c45d1b3a323", BK_NET_MAIN},
        {"tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy",
         "0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433", BK_NET_TESTNET3},
        {"tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
         "5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433", BK_NET_TESTNET3},
        {"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
         "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", BK_NET_MAIN},
        {"bcrt1pfeesnyr2tx", "51024e73", BK_NET_REGTEST},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) CHECK_EQ_STR(addr_of(v[i].hex, v[i].net), v[i].addr);
}

static void bip350_invalid_segwit_addresses_rejected_for_their_reason(void)
{
    reject_because("tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut", BK_NET_MAIN, "human-readable part");
    reject_because("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", BK_NET_MAIN, "bech32 checksum");
    reject_because("tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf", BK_NET_TESTNET3, "bech32 checksum");
    reject_because("BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", BK_NET_MAIN, "bech32 checksum");
    reject_because("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", BK_NET_MAIN, "bech32m checksum");
    reject_because("tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47", BK_NET_TESTNET3, "bech32m checksum");
    reject_because("bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", BK_NET_MAIN, "data character");
    reject_because("BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", BK_NET_MAIN, "witness version");
    reject_because("bc1pw5dgrnzv", BK_NET_MAIN, "program of 1 bytes");
    reject_because("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav", BK_NET_MAIN, "program of 41 bytes");
    reject_because("BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", BK_NET_MAIN, "v0 program of 16 bytes");
    reject_because("tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", BK_NET_TESTNET3, "mixed case");
    reject_because("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", BK_NET_MAIN, "padding");
    reject_because("tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j", BK_NET_TESTNET3, "padding");
    reject_because("bc1gmk9yu", BK_NET_MAIN, "empty witness data");
}

static void decode_uses_the_network(void)
{
    reject_because("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", BK_NET_TESTNET3, "human-readable part");
    reject_because("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", BK_NET_TESTNET3, "version byte");
    decode_is("mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r", BK_NET_TESTNET3, "76a914751e76e8199196d454941c45d1b3a323f1433bd688ac");
    decode_is("2NByiBUaEXrhmqAsg7BbLpcQSAQs1EDwt5w", BK_NET_REGTEST, "a914cd7b44d0b03f2d026d1e586d7ae18903b0d385f687");
}

static void base58check_decode_rules(void)
{
    decode_is("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", BK_NET_MAIN, "76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac");
    decode_is("3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", BK_NET_MAIN, "a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87");
    decode_is("1111111111111111111114oLvT2", BK_NET_MAIN, "76a914000000000000000000000000000000000000000088ac");
    reject_because("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", BK_NET_MAIN, "checksum");
    reject_because("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfN0", BK_NET_MAIN, "Base58");
    reject_because("1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf", BK_NET_MAIN, "Base58");
    reject_because("", BK_NET_MAIN, "Base58");
    uint8_t small[10];
    size_t len;
    CHECK_EQ_INT(bk_address_decode("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", BK_NET_MAIN, small, sizeof small, &len, NULL),
                 BK_ERR_BUFFER);
    CHECK_EQ_INT(bk_address_decode(NULL, BK_NET_MAIN, small, sizeof small, &len, NULL), BK_ERR_ARG);
}

/* ---- Core's renderings ---- */

static void check_spk_line(const sv_line *l, const char *file)
{
    size_t n;
    uint8_t *s = check_unhex(l->f[1], &n);
    bk_network net = sv_net(l->f[0]);
    char out[BK_SCRIPT_ADDRESS_MAX];
    size_t len;
    bk_status st = bk_script_address(s, n, net, out, sizeof out, &len);
    CHECK_EQ_INT(st, BK_OK);
    sv_check_str(out, l->f[4], "address", file, l->lineno);
    if (len) {
        uint8_t back[64];
        size_t blen = 0;
        bk_error err;
        st = bk_address_decode(out, net, back, sizeof back, &blen, &err);
        CHECK_EQ_INT(st, BK_OK);
        CHECK(blen == n && memcmp(back, s, n) == 0);
    }
    free(s);
}

static void core_block_scriptpubkeys_addresses(void)
{
    CHECK(sv_each("script/core_block_scripts.txt", check_spk_line) > 1000);
}

static void core_decodescript_addresses(void)
{
    CHECK_EQ_INT(sv_each("script/core_decodescript.txt", check_spk_line), 11);
}

static void spec_vectors_addresses(void)
{
    CHECK_EQ_INT(sv_each("script/spec_scripts.txt", check_spk_line), 15);
}

int main(void)
{
    RUN(base58check_p2pkh_and_p2sh);
    RUN(base58_of_25_bytes_matches_core_vector);
    RUN(base58_of_25_bytes_matches_core_algorithm);
    RUN(base58_leading_zero_bytes_become_ones);
    RUN(bech32_for_v0_bech32m_for_v1_and_up);
    RUN(anchor_address_on_every_network);
    RUN(no_address_for_pubkey_multisig_nulldata_nonstandard);
    RUN(address_buffer_too_small_is_refused);
    RUN(bip173_valid_bech32_checksums);
    RUN(bip173_bip350_invalid_checksums);
    RUN(bip350_valid_segwit_addresses_decode);
    RUN(bip350_valid_segwit_addresses_encode);
    RUN(bip350_invalid_segwit_addresses_rejected_for_their_reason);
    RUN(decode_uses_the_network);
    RUN(base58check_decode_rules);
    RUN(core_block_scriptpubkeys_addresses);
    RUN(core_decodescript_addresses);
    RUN(spec_vectors_addresses);
    return check_finish();
}
