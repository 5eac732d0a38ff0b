/* The batched x-only key check (AVX-512 lanes where the CPU has them)
 * against the one-key path and libsecp256k1, for any number of keys: the
 * input is cut into 32-byte keys; every answer must agree and nothing may be
 * written past n. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/bitcoin/script_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size / 32;
    if (n > 256) n = 256;
    uint8_t batch[257], one;
    memset(batch, 0xaa, sizeof batch);
    bk_script_xonly_valid_many(data, n, batch);
    if (batch[n] != 0xaa) abort(); /* wrote past n */
    for (size_t i = 0; i < n; i++) {
        one = (uint8_t)bk_script_xonly_valid(data + 32 * i);
        if (batch[i] != one) abort();
        if (one != (uint8_t)bk_script_xonly_valid_reference(data + 32 * i)) abort();
    }
    return 0;
}
