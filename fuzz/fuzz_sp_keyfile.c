/* Silent payments: the `sp scan` key file (bk_sp_scan_key_parse) and the
 * --spend-pubkey value (bk_sp_pubkey_parse) over arbitrary bytes: never a
 * crash, and an accepted key is exactly 64 hex digits between white space
 * that decode to it; a refused one says why. */
#include <blockkit/hex.h>
#include <blockkit/silentpay.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t key[32];
    bk_error err;
    bk_error_clear(&err);
    bk_status st = bk_sp_scan_key_parse(data, size, key, &err);
    if (st == BK_OK) {
        size_t a = 0, b = size;
        while (a < b && space(data[a])) a++;
        while (b > a && space(data[b - 1])) b--;
        if (b - a != 64) abort();
        uint8_t again[32];
        if (bk_hex_decode(again, (const char *)data + a, 32, NULL) != BK_OK) abort();
        if (memcmp(again, key, 32) != 0) abort();
    } else {
        if (st != BK_ERR_LENGTH && st != BK_ERR_VALUE) abort();
        if (err.msg[0] == 0) abort();
    }
    uint8_t pk[33];
    st = bk_sp_pubkey_parse((const char *)data, size, pk, &err);
    if (st == BK_OK && (size != 66 || (pk[0] != 0x02 && pk[0] != 0x03))) abort();
    if (st != BK_OK && st != BK_ERR_LENGTH && st != BK_ERR_VALUE) abort();
    return 0;
}
