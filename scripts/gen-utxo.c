/* gen-utxo: write a synthetic UTXO set of N coins (default 10,000,000) as
 * Bitcoin Core would store it, for the Utxo benchmarks (Utxo/chainstate/10M, Utxo/snapshot/10M):
 *
 *   DIR/chainstate/        LevelDB as Core's CDBWrapper writes it: no
 *                          compression, a 10-bit bloom filter, 32 MiB table
 *                          files; a random 8-byte obfuscation key under
 *                          "\x0e\x00obfuscate_key" (stored in the clear),
 *                          every other value XORed with it; coins 'C' +
 *                          txid + VARINT(vout) -> Coin; best block 'B'.
 *   DIR/utxo_snapshot.dat  the same coins as dumptxoutset writes them
 *                          (format 2, mainnet magic, grouped by txid).
 *   DIR/gen-utxo.txt       "coins N\ntxids T\n" for the benchmarks.
 *
 * The coin mix follows mainnet's rough shape: P2WPKH, P2PKH, P2TR, P2SH,
 * P2WSH, compressed P2PK, OP_RETURN-free bare scripts of 1..200 bytes;
 * 1..8 coins per txid (sometimes up to 200); heights 0..880,000; values
 * from dust to 50 BTC. Deterministic (seeded xorshift). Built by CMake as
 * build/gen-utxo; not installed.
 *
 * usage: gen-utxo DIR [N]   (DIR must not exist yet) */
#include <blockkit/stream.h>
#include <blockkit/undo.h>

#include <errno.h>
#include <leveldb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static void rnd_bytes(uint8_t *p, size_t n)
{
    while (n >= 8) {
        uint64_t v = rnd();
        memcpy(p, &v, 8);
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t v = rnd();
        memcpy(p, &v, n);
    }
}

/* Core's Coin serialization (compressed amount and script) of a random coin. */
static size_t make_coin(uint8_t *out)
{
    uint8_t *p = out;
    uint32_t height = (uint32_t)(rnd() % 880001);
    int coinbase = (rnd() % 50) == 0;
    p += bk_varint_encode(p, ((uint64_t)height << 1) | (uint64_t)coinbase);
    uint64_t r = rnd();
    uint64_t value;
    switch (r % 4) {
    case 0: value = 546 + (r >> 8) % 100000; break;                   /* dust-ish */
    case 1: value = ((r >> 8) % 1000) * 100000; break;                /* round mBTC */
    case 2: value = (r >> 8) % 5000000000ULL; break;                  /* anything up to 50 BTC */
    default: value = ((r >> 8) % 100 + 1) * 1000000; break;           /* round 0.01 BTC */
    }
    p += bk_varint_encode(p, bk_amount_compress(value));
    uint64_t t = rnd() % 100;
    if (t < 30) { /* P2WPKH: raw 0014<20> */
        p += bk_varint_encode(p, 22 + 6);
        *p++ = 0x00;
        *p++ = 0x14;
        rnd_bytes(p, 20);
        p += 20;
    } else if (t < 55) { /* P2PKH: nSize 0 */
        *p++ = 0;
        rnd_bytes(p, 20);
        p += 20;
    } else if (t < 75) { /* P2TR: raw 5120<32> */
        p += bk_varint_encode(p, 34 + 6);
        *p++ = 0x51;
        *p++ = 0x20;
        rnd_bytes(p, 32);
        p += 32;
    } else if (t < 88) { /* P2SH: nSize 1 */
        *p++ = 1;
        rnd_bytes(p, 20);
        p += 20;
    } else if (t < 95) { /* P2WSH: raw 0020<32> */
        p += bk_varint_encode(p, 34 + 6);
        *p++ = 0x00;
        *p++ = 0x20;
        rnd_bytes(p, 32);
        p += 32;
    } else if (t < 98) { /* compressed P2PK: nSize 2/3 */
        *p++ = (uint8_t)(2 + (rnd() & 1));
        rnd_bytes(p, 32);
        p += 32;
    } else { /* bare script: OP_1 + data, 1..200 bytes */
        size_t n = 1 + (size_t)(rnd() % 200);
        p += bk_varint_encode(p, n + 6);
        p[0] = 0x51;
        rnd_bytes(p + 1, n - 1);
        p += n;
    }
    return (size_t)(p - out);
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "gen-utxo: %s: %s\n", what, why);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: gen-utxo DIR [N]  (writes DIR/chainstate, DIR/utxo_snapshot.dat; N default 10000000)\n");
        return argc < 2 ? 64 : 0;
    }
    const char *dir = argv[1];
    uint64_t n_coins = argc == 3 ? strtoull(argv[2], NULL, 10) : 10000000ULL;
    if (n_coins == 0) return fail(argv[2], "N must be a positive number");
    if (mkdir(dir, 0777) != 0) return fail(dir, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/chainstate", dir);

    leveldb_options_t *o = leveldb_options_create();
    leveldb_options_set_create_if_missing(o, 1);
    leveldb_options_set_error_if_exists(o, 1);
    leveldb_options_set_compression(o, leveldb_no_compression);
    leveldb_options_set_max_file_size(o, 32u << 20);
    leveldb_options_set_write_buffer_size(o, 64u << 20);
    leveldb_filterpolicy_t *bloom = leveldb_filterpolicy_create_bloom(10);
    leveldb_options_set_filter_policy(o, bloom);
    char *e = NULL;
    leveldb_t *db = leveldb_open(o, path, &e);
    if (e) return fail(path, e);
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();

    uint8_t obf[8];
    rnd_bytes(obf, 8);
    uint8_t obf_val[9] = {8};
    memcpy(obf_val + 1, obf, 8);
    leveldb_put(db, wo, "\x0e\x00obfuscate_key", 15, (const char *)obf_val, 9, &e);
    if (e) return fail(path, e);

    snprintf(path, sizeof path, "%s/utxo_snapshot.dat", dir);
    FILE *snap = fopen(path, "wb");
    if (!snap) return fail(path, strerror(errno));
    setvbuf(snap, NULL, _IOFBF, 1 << 20);
    uint8_t best[32];
    rnd_bytes(best, 32);
    uint8_t hdr[51];
    memcpy(hdr, "utxo\xff\x02\x00\xf9\xbe\xb4\xd9", 11); /* mainnet magic */
    memcpy(hdr + 11, best, 32);
    bk_store_le64(hdr + 43, n_coins);
    if (fwrite(hdr, 1, sizeof hdr, snap) != sizeof hdr) return fail(path, "write failed");

    /* txids strictly increasing in byte order: the first 8 bytes step
     * through the 64-bit range (at most N steps of at most UINT64_MAX / (N+1),
     * so no wrap), the rest is random. */
    uint64_t step = UINT64_MAX / (n_coins + 1);
    uint64_t prefix = 0, done = 0, txids = 0;
    leveldb_writebatch_t *batch = leveldb_writebatch_create();
    size_t in_batch = 0;
    while (done < n_coins) {
        uint64_t left = n_coins - done;
        uint64_t k = 1 + rnd() % 8;
        if (rnd() % 1000 == 0) k = 1 + rnd() % 200;
        if (k > left) k = left;
        prefix += 1 + rnd() % step;
        uint8_t txid[32];
        for (int i = 0; i < 8; i++) txid[i] = (uint8_t)(prefix >> (56 - 8 * i));
        rnd_bytes(txid + 8, 24);
        uint8_t g[41];
        memcpy(g, txid, 32);
        size_t gl = 32 + bk_compact_size_encode(g + 32, k);
        if (fwrite(g, 1, gl, snap) != gl) return fail(path, "write failed");
        uint32_t vout = 0;
        for (uint64_t c = 0; c < k; c++) {
            vout += (uint32_t)(rnd() % 3 == 0 ? rnd() % 3 : 0); /* some outputs already spent */
            uint8_t coin[300], key[43], val[300];
            size_t cl = make_coin(coin);
            uint8_t vo[9];
            size_t vl = bk_compact_size_encode(vo, vout);
            if (fwrite(vo, 1, vl, snap) != vl || fwrite(coin, 1, cl, snap) != cl) return fail(path, "write failed");
            key[0] = 'C';
            memcpy(key + 1, txid, 32);
            size_t kl = 33 + bk_varint_encode(key + 33, vout);
            for (size_t i = 0; i < cl; i++) val[i] = coin[i] ^ obf[i & 7];
            leveldb_writebatch_put(batch, (const char *)key, kl, (const char *)val, cl);
            vout++;
            done++;
            if (++in_batch == 200000) {
                leveldb_write(db, wo, batch, &e);
                if (e) return fail("chainstate", e);
                leveldb_writebatch_clear(batch);
                in_batch = 0;
            }
        }
        txids++;
    }
    uint8_t bv[32];
    for (int i = 0; i < 32; i++) bv[i] = best[i] ^ obf[i & 7];
    leveldb_writebatch_put(batch, "B", 1, (const char *)bv, 32);
    leveldb_write(db, wo, batch, &e);
    if (e) return fail("chainstate", e);
    leveldb_writebatch_destroy(batch);
    leveldb_writeoptions_destroy(wo);
    leveldb_close(db);
    /* Reopen once: LevelDB turns the write-ahead log into a table, as a
     * node's own restart does, so a reader does not replay 64 MiB. */
    leveldb_options_set_error_if_exists(o, 0);
    snprintf(path, sizeof path, "%s/chainstate", dir);
    db = leveldb_open(o, path, &e);
    if (e) return fail(path, e);
    leveldb_close(db);
    leveldb_options_destroy(o);
    leveldb_filterpolicy_destroy(bloom);
    if (fclose(snap) != 0) return fail(path, "write failed");
    snprintf(path, sizeof path, "%s/gen-utxo.txt", dir);
    FILE *m = fopen(path, "w");
    if (!m) return fail(path, strerror(errno));
    fprintf(m, "coins %llu\ntxids %llu\n", (unsigned long long)done, (unsigned long long)txids);
    if (fclose(m) != 0) return fail(path, "write failed");
    printf("%s: %llu coins in %llu txids\n", dir, (unsigned long long)done, (unsigned long long)txids);
    return 0;
}
