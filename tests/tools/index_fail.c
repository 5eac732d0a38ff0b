/* index-fail: make a COPY of a Core block index prefer another branch, as
 * `bitcoin-cli invalidateblock` would: every block named on standard input
 * ("<height>\t<hash>" lines, Core's display order, as bestchain.tsv holds
 * them) at or above HEIGHT gets BLOCK_FAILED_VALID in its nStatus.
 *
 *   index-fail INDEXDIR HEIGHT < bestchain.tsv
 *
 * INDEXDIR is opened read-write with libleveldb: never point it at a
 * node's own blocks/index. For the reorg tests of `export --verify`
 * (tests/export/verify_cli.sh). Exit 0, 64 usage, 65 bad record, 74 I/O. */
#include <blockkit/blockkit.h>
#include <leveldb/c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAILED_VALID 32u

/* Core's VARINT (serialize.h): base 128, most significant group first,
 * each group but the last one less than stored. */
static int varint_read(const uint8_t *p, size_t n, size_t *at, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 10 && *at < n; i++) {
        uint8_t b = p[(*at)++];
        x = (x << 7) | (b & 0x7f);
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
        x++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: index-fail INDEXDIR HEIGHT < bestchain.tsv\n");
        return 64;
    }
    long from = strtol(argv[2], NULL, 10);
    char *e = NULL;
    leveldb_options_t *opt = leveldb_options_create();
    leveldb_t *db = leveldb_open(opt, argv[1], &e);
    if (e) {
        fprintf(stderr, "index-fail: %s: %s\n", argv[1], e);
        return 74;
    }
    leveldb_readoptions_t *ro = leveldb_readoptions_create();
    leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
    leveldb_writeoptions_set_sync(wo, 1);
    char line[256];
    int rc = 0, n = 0;
    while (rc == 0 && fgets(line, sizeof line, stdin)) {
        long h;
        char hex[80];
        if (sscanf(line, "%ld %70s", &h, hex) != 2 || h < from) continue;
        uint8_t key[33];
        key[0] = 'b';
        bk_error err;
        if (strlen(hex) != 64 || bk_hex_decode_rev(key + 1, hex, 32, &err) != BK_OK) {
            fprintf(stderr, "index-fail: bad hash at height %ld\n", h);
            rc = 65;
            break;
        }
        size_t vl = 0;
        char *v = leveldb_get(db, ro, (const char *)key, sizeof key, &vl, &e);
        if (e || !v) {
            fprintf(stderr, "index-fail: height %ld: %s\n", h, e ? e : "not in the index");
            rc = e ? 74 : 65;
            break;
        }
        /* version, height, status, then the rest as it is */
        size_t at = 0;
        uint64_t ver, height, status;
        if (!varint_read((uint8_t *)v, vl, &at, &ver) || !varint_read((uint8_t *)v, vl, &at, &height) ||
            !varint_read((uint8_t *)v, vl, &at, &status) || (long)height != h) {
            fprintf(stderr, "index-fail: height %ld: not a CDiskBlockIndex of that height\n", h);
            leveldb_free(v);
            rc = 65;
            break;
        }
        uint8_t out[512];
        size_t o = 0;
        o += bk_varint_encode(out + o, ver);
        o += bk_varint_encode(out + o, height);
        o += bk_varint_encode(out + o, status | FAILED_VALID);
        if (o + (vl - at) > sizeof out) {
            leveldb_free(v);
            rc = 65;
            break;
        }
        memcpy(out + o, v + at, vl - at);
        o += vl - at;
        leveldb_free(v);
        leveldb_put(db, wo, (const char *)key, sizeof key, (const char *)out, o, &e);
        if (e) {
            fprintf(stderr, "index-fail: %s\n", e);
            rc = 74;
            break;
        }
        n++;
    }
    leveldb_writeoptions_destroy(wo);
    leveldb_readoptions_destroy(ro);
    leveldb_close(db);
    leveldb_options_destroy(opt);
    if (rc == 0 && n == 0) {
        fprintf(stderr, "index-fail: no block at or above height %ld on standard input\n", from);
        rc = 65;
    }
    return rc;
}
