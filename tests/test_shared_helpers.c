/* The shared helpers of src/base (issue 27 item 6): a network's datadir
 * paths beside the network table (bk_network_datadir_subdir,
 * bk_network_datadir_path), and the hex helpers the SSZ and JSON code now
 * use instead of their own digit tables. */
#include "check.h"

#include <blockkit/hex.h>
#include <blockkit/network.h>

static void test_datadir_subdir(void)
{
    static const char *const want[BK_NET_COUNT_] = {"", "testnet3/", "testnet4/", "signet/", "regtest/"};
    for (int n = 0; n < BK_NET_COUNT_; n++) CHECK_EQ_STR(bk_network_datadir_subdir((bk_network)n), want[n]);
    CHECK(bk_network_datadir_subdir(BK_NET_COUNT_) == NULL);
    CHECK(bk_network_datadir_subdir((bk_network)-1) == NULL);
}

static void test_datadir_path(void)
{
    char p[64];
    CHECK_EQ_INT(bk_network_datadir_path(p, sizeof p, "/d", BK_NET_MAIN, "blocks/index"), 15);
    CHECK_EQ_STR(p, "/d/blocks/index");
    CHECK_EQ_INT(bk_network_datadir_path(p, sizeof p, "/d", BK_NET_TESTNET4, "chainstate"), 22);
    CHECK_EQ_STR(p, "/d/testnet4/chainstate");
    /* leaf "" (or NULL): the network's folder */
    CHECK_EQ_INT(bk_network_datadir_path(p, sizeof p, "/d", BK_NET_REGTEST, ""), 11);
    CHECK_EQ_STR(p, "/d/regtest/");
    CHECK_EQ_INT(bk_network_datadir_path(p, sizeof p, "/d", BK_NET_MAIN, NULL), 3);
    CHECK_EQ_STR(p, "/d/");
    /* sizing, and a path cut short */
    CHECK_EQ_INT(bk_network_datadir_path(NULL, 0, "/d", BK_NET_SIGNET, "blocks"), 16);
    CHECK_EQ_INT(bk_network_datadir_path(p, 8, "/d", BK_NET_SIGNET, "blocks"), 16);
    CHECK_EQ_STR(p, "/d/sign");
    /* an unknown network or no directory */
    p[0] = 'x';
    CHECK_EQ_INT(bk_network_datadir_path(p, sizeof p, "/d", BK_NET_COUNT_, "blocks"), -1);
    CHECK_EQ_STR(p, "");
    CHECK_EQ_INT(bk_network_datadir_path(p, sizeof p, NULL, BK_NET_MAIN, "blocks"), -1);
}

static void test_hex(void)
{
    uint8_t b[40];
    char s[81];
    for (int i = 0; i < 40; i++) b[i] = (uint8_t)(i * 37 + 5);
    /* every length through the SIMD paths' tails, against a plain table */
    for (size_t n = 0; n <= sizeof b; n++) {
        char want[81];
        for (size_t i = 0; i < n; i++) snprintf(want + 2 * i, 3, "%02x", b[i]);
        memset(s, '?', sizeof s);
        bk_hex_encode(s, b, n);
        CHECK_MEM(s, want, 2 * n);
        CHECK(s[2 * n] == '?');
        uint8_t back[40];
        CHECK_EQ_INT(bk_hex_decode(back, want, n, NULL), BK_OK);
        CHECK_MEM(back, b, n);
    }
    CHECK_EQ_INT(bk_hex_digit('F'), 15);
    CHECK_EQ_INT(bk_hex_digit('a'), 10);
    CHECK_EQ_INT(bk_hex_digit('g'), -1);
    CHECK_EQ_INT(bk_hex_digit((unsigned char)'\xb0'), -1);
    uint8_t one;
    CHECK(bk_hex_decode(&one, "0G", 1, NULL) != BK_OK);
}

int main(void)
{
    RUN(test_datadir_subdir);
    RUN(test_datadir_path);
    RUN(test_hex);
    return check_finish();
}
