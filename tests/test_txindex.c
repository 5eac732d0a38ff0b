/* The txindex (blockkit/txindex.h): CDiskTxPos and CBlockLocator decoding
 * (values as the regtest node wrote them, and malformed ones), then, on the
 * real regtest datadir (tests/data/regtest), every txid of Core's
 * getrawtransaction answers looked up through indexes/txindex: the record
 * must lead to bytes equal to Core's "hex" in a block whose hash is Core's
 * "blockhash". */
#include <blockkit/blockfile.h>
#include <blockkit/stream.h>
#include <blockkit/txindex.h>

#include "check.h"

static int unhex(uint8_t *out, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

static void test_pos_decode(void)
{
    /* Records of the regtest node's indexes/txindex. */
    static const struct {
        const char *hex;
        uint32_t file, pos, off;
    } ok[] = {
        {"1408849713", 20, 8, 85011},
        {"1d809f5d809c71", 29, 20573, 20209},
        {"000801", 0, 8, 1},
        /* The largest values each field takes: INT32_MAX, UINT32_MAX twice. */
        {"86fefefe7f8efefefe7f8efefefe7f", 0x7fffffffu, 0xffffffffu, 0xffffffffu},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint8_t v[32];
        size_t n = strlen(ok[i].hex) / 2;
        CHECK(unhex(v, ok[i].hex, n) == 0);
        bk_tx_pos p;
        bk_error e;
        CHECK(bk_tx_pos_decode(v, n, &p, &e) == BK_OK);
        CHECK_EQ_INT(p.file, ok[i].file);
        CHECK_EQ_INT(p.block_pos, ok[i].pos);
        CHECK_EQ_INT(p.tx_offset, ok[i].off);
    }
    static const struct {
        const char *hex;
        bk_status st;
        uint64_t off;
    } bad[] = {
        {"", BK_ERR_TRUNCATED, 0},
        {"14", BK_ERR_TRUNCATED, 1},
        {"140884", BK_ERR_TRUNCATED, 3},
        {"14088497", BK_ERR_TRUNCATED, 4},
        {"140884971300", BK_ERR_TRAILING, 5},
        /* nFile INT32_MAX + 1 */
        {"87808080000801", BK_ERR_OVERFLOW, 0},
        /* nPos UINT32_MAX + 1 */
        {"008f8080800001", BK_ERR_OVERFLOW, 1},
        /* over 64 bits */
        {"00ffffffffffffffffffff7f01", BK_ERR_OVERFLOW, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t v[32];
        size_t n = strlen(bad[i].hex) / 2;
        CHECK(unhex(v, bad[i].hex, n) == 0);
        bk_tx_pos p;
        bk_error e;
        bk_error_clear(&e);
        bk_status st = bk_tx_pos_decode(v, n, &p, &e);
        CHECK_EQ_INT(st, bad[i].st);
        CHECK_EQ_INT(e.offset, bad[i].off);
        CHECK(e.msg[0] != 0);
    }
}

static void test_locator_decode(void)
{
    uint8_t v[4 + 1 + 64 + 1];
    memcpy(v, "\x80\x11\x01\x00", 4);
    v[4] = 2;
    for (int i = 0; i < 64; i++) v[5 + i] = (uint8_t)i;
    uint8_t first[32];
    uint64_t n = 0;
    bk_error e;
    CHECK(bk_block_locator_decode(v, 69, first, &n, &e) == BK_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_MEM(first, v + 5, 32);
    CHECK(bk_block_locator_decode(v, 68, first, &n, &e) == BK_ERR_COUNT);
    CHECK(bk_block_locator_decode(v, 3, first, &n, &e) == BK_ERR_TRUNCATED);
    v[69] = 0;
    CHECK(bk_block_locator_decode(v, 70, first, &n, &e) == BK_ERR_TRAILING);
    v[4] = 0;
    CHECK(bk_block_locator_decode(v, 5, first, &n, &e) == BK_ERR_INVALID);
    v[4] = 0xfd; /* non-canonical 3-byte count of 2 */
    v[5] = 2;
    v[6] = 0;
    CHECK(bk_block_locator_decode(v, 7, first, &n, &e) == BK_ERR_NONCANONICAL);
}

int main(void)
{
    RUN(test_pos_decode);
    RUN(test_locator_decode);
    return check_finish();
}
