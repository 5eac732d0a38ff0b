/* ldb-dump: every key and value of a LevelDB directory as "key=value" hex
 * lines in key order, read through blockkit's private snapshot (so the
 * directory is never written). For comparing two address indexes'
 * logical contents (tests/addrindex/addrindex_cli.sh).
 *
 *   ldb-dump DIR
 *
 * Exit 0, 64 usage, 65/74 as the open or the read fails. */
#include <blockkit/blockkit.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: ldb-dump DIR\n", stderr);
        return 64;
    }
    bk_ldb *db;
    bk_error err;
    if (bk_ldb_open(argv[1], NULL, &db, &err) != BK_OK) {
        fprintf(stderr, "ldb-dump: %s\n", err.msg);
        return 74;
    }
    bk_ldb_iter *it;
    if (bk_ldb_iter_new(db, NULL, 0, &it, &err) != BK_OK) {
        fprintf(stderr, "ldb-dump: %s\n", err.msg);
        bk_ldb_close(db);
        return 74;
    }
    const uint8_t *k, *v;
    size_t kl, vl;
    char hex[2 * 65536 + 1];
    while (bk_ldb_iter_next(it, &k, &kl, &v, &vl)) {
        bk_hex_encode(hex, k, kl < 65536 ? kl : 65536);
        hex[2 * (kl < 65536 ? kl : 65536)] = 0;
        fputs(hex, stdout);
        putchar('=');
        for (size_t off = 0; off < vl; off += 65536) {
            size_t n = vl - off < 65536 ? vl - off : 65536;
            bk_hex_encode(hex, v + off, n);
            hex[2 * n] = 0;
            fputs(hex, stdout);
        }
        putchar('\n');
    }
    int rc = bk_ldb_iter_status(it, &err) == BK_OK ? 0 : 65;
    if (rc) fprintf(stderr, "ldb-dump: %s\n", err.msg);
    bk_ldb_iter_free(it);
    bk_ldb_close(db);
    return rc;
}
