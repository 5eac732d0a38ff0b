/* Fuzz bk_tx_parse and bk_tx_parse_legacy: random bytes parse or are refused with a status that
 * matches the error report; a parsed transaction satisfies every view
 * invariant (fuzz_views_check.h). Seeds: real transactions. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_views_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_tx tx;
    bk_error err;
    size_t used = 0;
    bk_status st = bk_tx_parse(data, size, &tx, &used, &err);
    if (st == BK_OK) {
        FZ_REQUIRE(used == tx.size && used <= size && tx.data == data);
        fz_check_tx(&tx);
        /* the whole-buffer form agrees */
        bk_tx whole;
        bk_status st2 = bk_tx_parse(data, size, &whole, NULL, &err);
        FZ_REQUIRE(used == size ? st2 == BK_OK : st2 == BK_ERR_TRAILING);
        if (st2 == BK_ERR_TRAILING) FZ_REQUIRE(err.offset == used);
        (void)bk_tx_is_coinbase(&tx);
    } else {
        FZ_REQUIRE(err.status == st && err.offset <= size && err.msg[0]);
        /* refusing a prefix means refusing the whole buffer the same way */
        bk_tx whole;
        bk_error err2;
        FZ_REQUIRE(bk_tx_parse(data, size, &whole, NULL, &err2) == st);
        FZ_REQUIRE(err2.offset == err.offset);
    }
    /* the legacy (no-witness) deserialization */
    bk_tx legacy;
    st = bk_tx_parse_legacy(data, size, &legacy, &used, &err);
    if (st == BK_OK) {
        FZ_REQUIRE(!legacy.has_witness && used == legacy.size && used <= size);
        fz_check_tx(&legacy);
    } else {
        FZ_REQUIRE(err.status == st && err.offset <= size);
        FZ_REQUIRE(st != BK_ERR_WITNESS_FLAG && st != BK_ERR_SUPERFLUOUS_WITNESS);
    }
    return 0;
}
