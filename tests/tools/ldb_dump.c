/* ldb-dump: the rows of an address index as "key=value" hex lines in key
 * order, as the library reads them (bk_addrindex_rows: a row a script or
 * txid is found by once, in one logical layout whether stored one key a
 * row or in a bulk commit's groups), through a READ handle's private
 * snapshot (so the directory is never written). For comparing two address
 * indexes' contents (tests/addrindex/addrindex_cli.sh).
 *
 *   ldb-dump DIR
 *   ldb-dump --put DIR KEYHEX VALUEHEX   write one row with libleveldb (a
 *                                        test's damaged or old index)
 *
 * Exit 0, 64 usage, 65/74 as the open or the read fails. */
#include <blockkit/blockkit.h>

#include <leveldb/c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_row(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    (void)ctx;
    static char hex[2 * 65536 + 1];
    for (size_t off = 0; off < kl || (off == 0 && kl == 0); off += 65536) {
        size_t n = kl - off < 65536 ? kl - off : 65536;
        bk_hex_encode(hex, k + off, n);
        hex[2 * n] = 0;
        fputs(hex, stdout);
    }
    putchar('=');
    for (size_t off = 0; off < vl; off += 65536) {
        size_t n = vl - off < 65536 ? vl - off : 65536;
        bk_hex_encode(hex, v + off, n);
        hex[2 * n] = 0;
        fputs(hex, stdout);
    }
    putchar('\n');
    return 0;
}

static int put(const char *dir, const char *khex, const char *vhex)
{
    size_t kl = strlen(khex) / 2, vl = strlen(vhex) / 2;
    uint8_t *k = malloc(kl + 1), *v = malloc(vl + 1);
    bk_error err;
    if (!k || !v || (strlen(khex) & 1) || bk_hex_decode(k, khex, kl, &err) != BK_OK ||
        (strlen(vhex) & 1) || bk_hex_decode(v, vhex, vl, &err) != BK_OK) {
        fputs("ldb-dump --put: KEYHEX and VALUEHEX are hex\n", stderr);
        free(k);
        free(v);
        return 64;
    }
    leveldb_options_t *lo = leveldb_options_create();
    char *msg = NULL;
    leveldb_t *db = leveldb_open(lo, dir, &msg);
    int rc = 0;
    if (db) {
        leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
        leveldb_put(db, wo, (const char *)k, kl, (const char *)v, vl, &msg);
        leveldb_writeoptions_destroy(wo);
        leveldb_close(db);
    }
    if (msg) {
        fprintf(stderr, "ldb-dump --put: %s: %s\n", dir, msg);
        leveldb_free(msg);
        rc = 74;
    }
    leveldb_options_destroy(lo);
    free(k);
    free(v);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--put")) return put(argv[2], argv[3], argv[4]);
    if (argc != 2) {
        fputs("usage: ldb-dump DIR | ldb-dump --put DIR KEYHEX VALUEHEX\n", stderr);
        return 64;
    }
    bk_addrindex_opts o;
    bk_addrindex_opts_init(&o);
    o.net = BK_NET_COUNT_; /* the index's own */
    o.cache_bytes = 0;
    bk_addrindex *ix;
    bk_error err;
    if (bk_addrindex_open(&ix, argv[1], BK_ADDRINDEX_READ, &o, &err) != BK_OK) {
        fprintf(stderr, "ldb-dump: %s\n", err.msg);
        return 74;
    }
    int rc = bk_addrindex_rows(ix, print_row, NULL, &err) == BK_OK ? 0 : 65;
    if (rc) fprintf(stderr, "ldb-dump: %s\n", err.msg);
    bk_addrindex_close(ix);
    return rc;
}
