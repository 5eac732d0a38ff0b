/* Fuzz the UTXO decoders. The first byte picks the decoder:
 *   even: a dumptxoutset snapshot stream (read in pieces of a size taken
 *         from the second byte), every coin also fed to the statistics;
 *   odd:  one chainstate entry: the second byte splits key and value, the
 *         value is de-obfuscated with a fixed key and decoded as a Coin.
 * Errors must carry offsets inside the input; nothing may crash, leak or
 * read out of bounds. */
#include <blockkit/utxo.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct src {
    const uint8_t *p;
    size_t len, pos, chunk;
} src;

static int rd(void *ctx, uint8_t *buf, size_t cap, size_t *got)
{
    src *s = ctx;
    size_t n = s->len - s->pos;
    if (n > cap) n = cap;
    if (n > s->chunk) n = s->chunk;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    *got = n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint8_t mode = data[0], arg = data[1];
    data += 2;
    size -= 2;
    bk_error err;
    if (mode & 1) {
        size_t klen = arg < size ? arg : size;
        static const uint8_t obf[8] = {0x5a, 0x01, 0xff, 0x80, 0x00, 0x7e, 0x33, 0xc4};
        uint8_t scratch[4096];
        bk_utxo u;
        size_t vlen = size - klen;
        if (vlen > sizeof scratch) vlen = sizeof scratch;
        bk_status st = bk_chainstate_decode(data, klen, data + klen, vlen, (mode & 2) ? obf : NULL,
                                            (mode & 2) ? 8 : 0, scratch, sizeof scratch, &u, &err);
        if (st != BK_OK) {
            if (err.offset > size) abort();
            return 0;
        }
        if (u.coin.script_len > 10000) abort();
        if (u.coin.raw_script && (u.coin.raw_script < scratch || u.coin.raw_script + u.coin.script_len > scratch + vlen))
            abort();
        bk_coin c;
        if (bk_utxo_coin_decode(data + klen, vlen, &c, &err) != BK_OK && err.offset > vlen) abort();
        return 0;
    }
    src s = {data, size, 0, (size_t)arg * 97 + 1};
    bk_utxo_snapshot *snap;
    if (bk_utxo_snapshot_open(&snap, rd, &s, NULL, &err) != BK_OK) {
        if (err.offset > size) abort();
        return 0;
    }
    if (mode & 2) bk_utxo_snapshot_set_base_height(snap, 1000);
    bk_utxo_stats st;
    if (bk_utxo_stats_begin(&st, (mode & 4) ? BK_UTXO_HASH_MUHASH : BK_UTXO_HASH_SERIALIZED_3, NULL, &err) != BK_OK)
        abort();
    bk_utxo u;
    int stats_ok = 1;
    uint64_t n = 0;
    while (bk_utxo_snapshot_next(snap, &u)) {
        n++;
        if (u.coin.script_len > 10000 || !bk_money_range(u.coin.value)) abort();
        if (stats_ok && bk_utxo_stats_add(&st, &u, &err) != BK_OK) stats_ok = 0;
    }
    if (n > bk_utxo_snapshot_meta_get(snap)->coin_count) abort();
    if (bk_utxo_snapshot_status(snap, &err) != BK_OK) {
        if (err.offset > size) abort();
    } else {
        if (n != bk_utxo_snapshot_meta_get(snap)->coin_count) abort();
        if (bk_utxo_snapshot_offset(snap) != size) abort();
    }
    if (stats_ok && bk_utxo_stats_end(&st, &err) != BK_OK) { /* either answer */
    }
    bk_utxo_stats_free(&st);
    bk_utxo_snapshot_close(snap);
    return 0;
}
