/* Fuzz the chain build from Core's block index (bk_chain_build_index_dirs)
 * over a real node's files damaged by the input: the regtest datadir of
 * tests/data (the environment variable BK_FUZZ_REGTEST_TAR names the
 * archive; by default tests/data/regtest/datadir.tar.zst of the source
 * tree, whose path the build compiles in as BK_SOURCE_DIR, so the target
 * runs from any working directory), extracted once into a private
 * directory by LLVMFuzzerInitialize. Without its data the target exits 1
 * with a message before the first input: it never fuzzes nothing.
 * Per input, a blocks directory of hard links to its files, in which each
 * op of the input copies the file it changes first, and, when an op
 * forgets blocks, a copy of the index without their 'b' records (so their
 * records are past the index: the appended-block scans). The pristine
 * files are never written.
 *
 * Input: byte 0: bit 0 trust_positions, bit 1 read the chainstate; then
 * ops of 7 bytes: kind, file (index into the blk/rev files, blk first),
 * a u32 LE offset, a value. Kinds: flip a byte, cut the file, remove it,
 * append a range of it to the last blk file, forget a block (the offset
 * picks one of the 64 highest 'b' records), append zero bytes
 * (pre-allocation), append the whole
 * file to another. At most 24 ops.
 *
 * Checks on success: every entry with data lies inside its blk file with
 * the record header there (magic, size) and the stored header fields
 * (version, parent, time, bits, nonce); with undo, its record and checksum
 * inside its rev file; counts add up. On error: a message. Memory and
 * descriptors are checked by the sanitizer build (leaks) and by a count
 * of open descriptors around the build. */
#include <blockkit/blockfile.h>
#include <blockkit/blockindex.h>
#include <blockkit/chain.h>

#include <leveldb/c.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef BK_SOURCE_DIR
#error "BK_SOURCE_DIR (the source tree, for tests/data/regtest/datadir.tar.zst) is set by CMakeLists.txt"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_FILES 512
#define MAX_OPS 24
#define OP_SIZE 7

static char g_root[512];              /* private: pristine/, work/, tmp/ */
static char g_names[MAX_FILES][16];   /* blkNNNNN.dat ..., then revNNNNN.dat ... */
static size_t g_n_files, g_n_blk;
static uint8_t g_key[8];
typedef struct bkey {
    uint8_t k[33];
    int32_t height;
} bkey;
static bkey *g_bkeys;                 /* the index's 'b' keys, highest first */
static size_t g_n_bkeys;
static int g_ready = -1;              /* -1 not yet, 0 failed, 1 ready */

static int rm_one(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    remove(p);
    return 0;
}

static void rm_rf(const char *p)
{
    nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
    if (g_root[0]) rm_rf(g_root);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

static int cmp_height_desc(const void *a, const void *b)
{
    const bkey *x = a, *y = b;
    if (x->height != y->height) return x->height > y->height ? -1 : 1;
    return memcmp(x->k, y->k, 33);
}

/* A copy of the pristine index at dst (LevelDB writes LOCK and LOG
 * files even to read), opened; NULL when that fails. */
static leveldb_t *index_copy_open(const char *dst, leveldb_options_t **lo)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp -r '%s/pristine/regtest/blocks/index' '%s'", g_root, dst);
    if (system(cmd) != 0) return NULL;
    *lo = leveldb_options_create();
    char *lerr = NULL;
    leveldb_t *db = leveldb_open(*lo, dst, &lerr);
    if (!db) {
        leveldb_free(lerr);
        leveldb_options_destroy(*lo);
    }
    return db;
}

static int setup(void)
{
    const char *tar = getenv("BK_FUZZ_REGTEST_TAR");
    if (!tar || !tar[0]) tar = BK_SOURCE_DIR "/tests/data/regtest/datadir.tar.zst";
    if (access(tar, R_OK) != 0) {
        fprintf(stderr, "fuzz_chain_index: cannot read %s (set BK_FUZZ_REGTEST_TAR)\n", tar);
        return 0;
    }
    char buf[64]; /* mkdtemp's template: the X's become a unique name */
    snprintf(buf, sizeof buf, "%s/fuzz_chain_index.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(buf)) {
        fprintf(stderr, "fuzz_chain_index: cannot create %s\n", buf);
        return 0;
    }
    snprintf(g_root, sizeof g_root, "%s", buf);
    atexit(cleanup);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/pristine' '%s/tmp' && tar -C '%s/pristine' -I zstd -xf '%s'", g_root,
             g_root, g_root, tar);
    if (system(cmd) != 0) {
        fprintf(stderr, "fuzz_chain_index: cannot extract %s (set BK_FUZZ_REGTEST_TAR)\n", tar);
        return 0;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/pristine/regtest/blocks", g_root);
    DIR *d = opendir(path);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && g_n_files < MAX_FILES)
        if ((!strncmp(e->d_name, "blk", 3) || !strncmp(e->d_name, "rev", 3)) && strlen(e->d_name) < 16)
            memcpy(g_names[g_n_files++], e->d_name, strlen(e->d_name) + 1); /* < 16 bytes, checked */
    closedir(d);
    qsort(g_names, g_n_files, sizeof g_names[0], cmp_name); /* blk < rev */
    for (size_t i = 0; i < g_n_files; i++) g_n_blk += g_names[i][0] == 'b';
    snprintf(path, sizeof path, "%s/pristine/regtest/blocks/xor.dat", g_root);
    FILE *kf = fopen(path, "rb");
    if (kf) {
        if (fread(g_key, 1, 8, kf) != 8) memset(g_key, 0, 8);
        fclose(kf);
    }
    /* The 'b' keys. */
    snprintf(path, sizeof path, "%s/tmp/keys", g_root);
    leveldb_options_t *lo;
    leveldb_t *db = index_copy_open(path, &lo);
    if (!db) {
        fprintf(stderr, "fuzz_chain_index: cannot copy and open the block index of %s\n", tar);
        return 0;
    }
    leveldb_readoptions_t *ro = leveldb_readoptions_create();
    leveldb_iterator_t *it = leveldb_create_iterator(db, ro);
    size_t cap = 0;
    for (leveldb_iter_seek(it, "b", 1); leveldb_iter_valid(it); leveldb_iter_next(it)) {
        size_t kl;
        const char *k = leveldb_iter_key(it, &kl);
        if (kl != 33 || k[0] != 'b') break;
        if (g_n_bkeys == cap) {
            cap = cap ? 2 * cap : 1024;
            void *n = realloc(g_bkeys, cap * sizeof *g_bkeys);
            if (!n) break;
            g_bkeys = n;
        }
        size_t vl;
        const char *v = leveldb_iter_value(it, &vl);
        bk_disk_block_index dbi;
        if (bk_disk_block_index_decode((const uint8_t *)k, kl, (const uint8_t *)v, vl, 0, &dbi, NULL) != BK_OK)
            continue;
        memcpy(g_bkeys[g_n_bkeys].k, k, 33);
        g_bkeys[g_n_bkeys++].height = dbi.height;
    }
    qsort(g_bkeys, g_n_bkeys, sizeof *g_bkeys, cmp_height_desc);
    leveldb_iter_destroy(it);
    leveldb_readoptions_destroy(ro);
    leveldb_close(db);
    leveldb_options_destroy(lo);
    rm_rf(path);
    if (g_n_files == 0 || g_n_blk == 0 || g_n_bkeys == 0) {
        fprintf(stderr, "fuzz_chain_index: %s holds no regtest/blocks with blk files and an index\n", tar);
        return 0;
    }
    return 1;
}

/* The harness itself cannot go on (not a finding in the code under test):
 * loud, never a silent pass. */
static void harness_fail(const char *what, const char *path)
{
    fprintf(stderr, "fuzz_chain_index: %s %s\n", what, path);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    g_ready = setup();
    if (!g_ready) {
        fprintf(stderr, "fuzz_chain_index: no data to fuzz with: stopping\n");
        exit(1);
    }
    return 0;
}

static uint64_t file_len(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* Replace the hard link at path by a copy of its bytes (once per input). */
static void own(const char *path, uint8_t *owned, size_t i)
{
    if (owned[i]) return;
    owned[i] = 1;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.own", path);
    int in = open(path, O_RDONLY), out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in >= 0 && out >= 0) {
        uint8_t buf[65536];
        ssize_t n;
        while ((n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n) break;
    }
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    (void)rename(tmp, path);
}

static void append_bytes(const char *path, const uint8_t *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0) return;
    if (write(fd, p, n) != (ssize_t)n) { /* best effort: the build sees what is there */
    }
    close(fd);
}

static int read_at(const char *path, uint64_t off, uint8_t *out, size_t n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t got = pread(fd, out, n, (off_t)off);
    close(fd);
    if (got != (ssize_t)n) return 0;
    for (size_t i = 0; i < n; i++) out[i] ^= g_key[(off + i) & 7];
    return 1;
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    while (readdir(d) != NULL) n++;
    closedir(d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (g_ready < 0) g_ready = setup(); /* a driver that does not call LLVMFuzzerInitialize */
    if (!g_ready) harness_fail("no data to fuzz with (see above):", "stopping");
    if (size < 1) return 0;
    uint8_t flags = data[0];
    data++;
    size--;
    size_t n_ops = size / OP_SIZE;
    if (n_ops > MAX_OPS) n_ops = MAX_OPS;

    char work[600], blocks[700], path[1100], src[1100], idx[700];
    snprintf(work, sizeof work, "%s/work", g_root);
    rm_rf(work);
    snprintf(blocks, sizeof blocks, "%s/blocks", work);
    if (mkdir(work, 0700) != 0 || mkdir(blocks, 0700) != 0) harness_fail("cannot create", blocks);
    for (size_t i = 0; i < g_n_files; i++) {
        snprintf(src, sizeof src, "%s/pristine/regtest/blocks/%.15s", g_root, g_names[i]);
        snprintf(path, sizeof path, "%s/%.15s", blocks, g_names[i]);
        if (link(src, path) != 0) harness_fail("cannot link", path);
    }
    snprintf(src, sizeof src, "%s/pristine/regtest/blocks/xor.dat", g_root);
    snprintf(path, sizeof path, "%s/xor.dat", blocks);
    if (link(src, path) != 0) harness_fail("cannot link", path);
    snprintf(idx, sizeof idx, "%s/pristine/regtest/blocks/index", g_root);

    uint8_t owned[MAX_FILES] = {0};
    uint8_t removed[MAX_FILES] = {0};
    uint32_t forget[MAX_OPS];
    size_t n_forget = 0;
    for (size_t k = 0; k < n_ops; k++) {
        const uint8_t *op = data + k * OP_SIZE;
        size_t fi = op[1] % g_n_files;
        uint32_t off = (uint32_t)op[2] | (uint32_t)op[3] << 8 | (uint32_t)op[4] << 16 | (uint32_t)op[5] << 24;
        uint8_t val = op[6];
        snprintf(path, sizeof path, "%s/%s", blocks, g_names[fi]);
        if (removed[fi] && op[0] % 7 != 4) continue;
        uint64_t len = file_len(path);
        switch (op[0] % 7) {
        case 0: /* flip a byte */
            if (!len) break;
            own(path, owned, fi);
            {
                int fd = open(path, O_RDWR);
                uint8_t b;
                if (fd >= 0 && pread(fd, &b, 1, (off_t)(off % len)) == 1) {
                    b ^= (uint8_t)(val | 1);
                    if (pwrite(fd, &b, 1, (off_t)(off % len)) != 1) { /* best effort */
                    }
                }
                if (fd >= 0) close(fd);
            }
            break;
        case 1: /* cut */
            own(path, owned, fi);
            if (truncate(path, (off_t)(off % (len + 1))) != 0) { /* best effort */
            }
            break;
        case 2: /* remove (a pruned file) */
            unlink(path);
            removed[fi] = 1;
            break;
        case 3: { /* a range of it appended to the last blk file */
            if (!len) break;
            uint64_t from = off % len, n = (uint64_t)(val + 1) * 64;
            if (n > len - from) n = len - from;
            uint8_t *tmp = malloc((size_t)n);
            int fd = open(path, O_RDONLY);
            ssize_t got = tmp && fd >= 0 ? pread(fd, tmp, (size_t)n, (off_t)from) : -1;
            if (fd >= 0) close(fd);
            size_t last = g_n_blk - 1;
            snprintf(src, sizeof src, "%s/%s", blocks, g_names[last]);
            if (got > 0 && !removed[last]) {
                own(src, owned, last);
                append_bytes(src, tmp, (size_t)got);
            }
            free(tmp);
            break;
        }
        case 4: /* forget one of the 64 highest blocks (its children too, or their parent is missing) */
            forget[n_forget++] = off % (uint32_t)(g_n_bkeys < 64 ? g_n_bkeys : 64);
            break;
        case 5: { /* pre-allocation: zero bytes after the end */
            own(path, owned, fi);
            uint8_t zero[4096] = {0};
            for (unsigned z = 0; z <= val % 8; z++) append_bytes(path, zero, sizeof zero);
            break;
        }
        default: { /* the whole file appended to another of its kind */
            size_t to = val % g_n_files;
            if (to == fi || removed[to] || (g_names[to][0] != g_names[fi][0]) || !len || len > (8u << 20)) break;
            uint8_t *tmp = malloc((size_t)len);
            int fd = open(path, O_RDONLY);
            ssize_t got = tmp && fd >= 0 ? pread(fd, tmp, (size_t)len, 0) : -1;
            if (fd >= 0) close(fd);
            snprintf(src, sizeof src, "%s/%s", blocks, g_names[to]);
            if (got > 0) {
                own(src, owned, to);
                /* The file's own bytes are XORed at their offsets: moved,
                 * they are read with another phase of the key unless the
                 * target's length is a multiple of 8; re-XOR them. */
                uint64_t at = file_len(src);
                for (ssize_t i = 0; i < got; i++) tmp[i] ^= g_key[i & 7] ^ g_key[(at + (uint64_t)i) & 7];
                append_bytes(src, tmp, (size_t)got);
            }
            free(tmp);
            break;
        }
        }
    }
    if (n_forget) {
        snprintf(idx, sizeof idx, "%s/index", work);
        leveldb_options_t *lo;
        leveldb_t *db = index_copy_open(idx, &lo);
        if (!db) harness_fail("cannot copy and open the block index at", idx);
        char *lerr = NULL;
        leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
        for (size_t k = 0; k < n_forget; k++) {
            leveldb_delete(db, wo, (const char *)g_bkeys[forget[k]].k, 33, &lerr);
            leveldb_free(lerr);
            lerr = NULL;
        }
        leveldb_writeoptions_destroy(wo);
        leveldb_close(db);
        leveldb_options_destroy(lo);
    }

    char cs[700], tmpdir[700];
    snprintf(cs, sizeof cs, "%s/pristine/regtest/chainstate", g_root);
    snprintf(tmpdir, sizeof tmpdir, "%s/tmp", g_root);
    bk_index_dirs dirs;
    memset(&dirs, 0, sizeof dirs);
    dirs.blocksdir = blocks;
    dirs.indexdir = idx;
    dirs.chainstatedir = (flags & 2) ? cs : NULL;
    dirs.trust_positions = flags & 1;
    bk_chain_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.tmpdir = tmpdir;
    bk_chain c;
    bk_error err;
    memset(&err, 0, sizeof err);
    int fds = open_fds();
    bk_status st = bk_chain_build_index_dirs(&c, &dirs, BK_NET_REGTEST, &opts, NULL, &err);
    if (open_fds() != fds) abort(); /* a descriptor leaked */
    if (st != BK_OK) {
        if (!err.msg[0]) abort();
        bk_chain_free(&c);
        return 0;
    }
    static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda}; /* regtest */
    uint64_t no_data = 0;
    for (size_t i = 0; i < c.n_entries; i++) {
        const bk_chain_entry *e = &c.entries[i];
        if (bk_chain_find(&c, e->hash) != e) abort();
        if (e->no_data) {
            no_data++;
            continue;
        }
        char name[32];
        snprintf(name, sizeof name, "blk%05u.dat", e->file);
        snprintf(path, sizeof path, "%s/%s", blocks, name);
        uint64_t len = file_len(path);
        if (e->offset < 8 || e->offset + e->size > len || e->size <= BK_HEADER_SIZE) abort();
        uint8_t rec[8 + BK_HEADER_SIZE];
        if (!read_at(path, e->offset - 8, rec, sizeof rec)) abort();
        if (!dirs.trust_positions) {
            if (memcmp(rec, magic, 4) != 0) abort();
            if ((uint32_t)rec[4] + ((uint32_t)rec[5] << 8) + ((uint32_t)rec[6] << 16) + ((uint32_t)rec[7] << 24) != e->size)
                abort();
            const uint8_t *h = rec + 8;
            uint32_t v = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
            if ((int32_t)v != e->version || memcmp(h + 4, e->prev_hash, 32) != 0) abort();
        }
        if (e->has_undo) {
            snprintf(name, sizeof name, "rev%05u.dat", e->undo_file);
            snprintf(path, sizeof path, "%s/%s", blocks, name);
            uint64_t rl = file_len(path);
            if (e->undo_offset < 8 || e->undo_offset + e->undo_size + 32 > rl) abort();
        }
    }
    if (no_data != c.n_no_data) abort();
    if (c.n_active && c.tip == BK_CHAIN_NONE) abort();
    for (size_t k = 1; k < c.n_active; k++) {
        const bk_chain_entry *p = &c.entries[c.active[k - 1]], *e = &c.entries[c.active[k]];
        if (e->parent != c.active[k - 1] || e->height != p->height + 1) abort();
    }
    bk_chain_free(&c);
    return 0;
}
