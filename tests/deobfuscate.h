/* Test helper: a blocks directory without obfuscation, as Core's files
 * are on every node created before v28. */
#ifndef BLOCKKIT_TEST_DEOBFUSCATE_H
#define BLOCKKIT_TEST_DEOBFUSCATE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Undo a blocks directory's obfuscation in place: every blk/rev file
 * XORed back with xor.dat's key (at each byte's file offset), then an
 * all-zero key, which Core reads as no obfuscation (the files of every
 * node created before v28 have none). 1 on success. */
static inline int deobfuscate_dir(const char *blocks)
{
    char path[4608];
    uint8_t key[8];
    snprintf(path, sizeof path, "%s/xor.dat", blocks);
    FILE *kf = fopen(path, "rb");
    if (!kf) return 0;
    int ok = fread(key, 1, 8, kf) == 8;
    fclose(kf);
    DIR *d = ok ? opendir(blocks) : NULL;
    if (!d) return 0;
    struct dirent *de;
    while (ok && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "blk", 3) != 0 && strncmp(de->d_name, "rev", 3) != 0) continue;
        snprintf(path, sizeof path, "%s/%s", blocks, de->d_name);
        FILE *f = fopen(path, "r+b");
        if (!f) {
            ok = 0;
            break;
        }
        uint8_t buf[65536];
        long pos = 0;
        size_t n;
        while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0) {
            for (size_t i = 0; i < n; i++) buf[i] ^= key[(size_t)(pos + (long)i) & 7];
            ok = fseek(f, pos, SEEK_SET) == 0 && fwrite(buf, 1, n, f) == n;
            pos += (long)n;
            ok = ok && fseek(f, pos, SEEK_SET) == 0;
        }
        ok = (fclose(f) == 0) && ok;
    }
    closedir(d);
    if (!ok) return 0;
    static const uint8_t zero[8];
    snprintf(path, sizeof path, "%s/xor.dat", blocks);
    kf = fopen(path, "wb");
    if (!kf) return 0;
    ok = fwrite(zero, 1, 8, kf) == 8;
    return (fclose(kf) == 0) && ok;
}

#endif
