/* Fuzz the script renderers: any bytes as a scriptPubKey/scriptSig.
 * Checks: no crash or leak; the descriptor's checksum verifies; every
 * address decodes back to the script it came from; bk_script_info agrees
 * with the one-call functions; asm never reads past the input. */
#include <blockkit/script.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first byte picks the network; the rest is the script. */
    if (size < 1) return 0;
    bk_network net = (bk_network)(data[0] % BK_NET_COUNT_);
    const uint8_t *s = data + 1;
    size_t n = size - 1;

    bk_writer w;
    bk_writer_init(&w, NULL);
    bk_script_solution sol;
    bk_script_type t = bk_script_solve(s, n, &sol);
    if ((unsigned)t >= BK_SCRIPT_TYPE_COUNT_) abort();
    if (sol.data && (sol.data < s || sol.data + sol.data_len > s + n)) abort();

    bk_script_asm(&w, s, n, 0);
    bk_writer_reset(&w);
    bk_script_asm(&w, s, n, 1);
    bk_writer_reset(&w);

    char addr[BK_SCRIPT_ADDRESS_MAX];
    size_t alen = 0;
    if (bk_script_address(s, n, net, addr, sizeof addr, &alen) != BK_OK) abort();
    if (alen) {
        uint8_t back[64];
        size_t blen = 0;
        if (bk_address_decode(addr, net, back, sizeof back, &blen, NULL) != BK_OK) abort();
        if (blen != n || memcmp(back, s, n) != 0) abort();
    }

    if (bk_script_descriptor(&w, s, n, net) != BK_OK) abort();
    bk_writer_putc(&w, 0);
    const char *desc = (const char *)w.data;
    const char *hash = strrchr(desc, '#');
    if (!hash || strlen(hash) != 9) abort();
    char sum[9];
    if (bk_descriptor_checksum(desc, (size_t)(hash - desc), sum, NULL) != BK_OK) abort();
    if (memcmp(sum, hash + 1, 8) != 0) abort();

    bk_script_info info;
    if (bk_script_info_get(s, n, net, &info) != BK_OK) abort();
    if (info.sol.type != t || info.address_len != alen || memcmp(info.address, addr, alen) != 0) abort();

    /* The input as address text must never crash the decoder. */
    char text[128];
    size_t tl = n < sizeof text - 1 ? n : sizeof text - 1;
    memcpy(text, s, tl);
    text[tl] = 0;
    uint8_t out[64];
    size_t olen;
    if (bk_address_decode(text, net, out, sizeof out, &olen, NULL) != BK_OK) { /* either answer */
    }
    if (bk_descriptor_checksum(text, tl, sum, NULL) != BK_OK) { /* either answer */
    }

    bk_writer_free(&w);
    return 0;
}
