/* Script rendering benches over every output of block 866342 (unit: one
 * scriptPubKey):
 *   ScriptToAsm          ScriptToAsmStr of each output script
 *   ScriptPubKeyToJson   Core's ScriptToUniv fields, compact:
 *                        {"asm","desc","hex","address","type"}
 *   ScriptDescriptor     InferDescriptor + checksum alone
 *   ScriptAddress        address alone
 *   XOnlyValid           XOnlyPubKey::IsFullyValid (x < p and x^3 + 7 a
 *                        square mod p) of each taproot output's key
 *                        (unit: one key; 2757 of them)
 *   XOnlyValidMany       the same keys in one bk_script_xonly_valid_many
 *                        call (the AVX-512 batch kernel when available)
 * and one row per path of the per-output rendering (issues 13 and 14):
 *   ScriptAddress/T      the address of the block's outputs of type T alone
 *                        (p2pkh, p2sh: Base58Check with its SHA256d; p2wpkh,
 *                        p2tr: bech32 / bech32m)
 *   Base58Encode25       Base58 of the P2PKH and P2SH outputs' 25-byte
 *                        payloads (checksum precomputed)
 *   ScriptInfoDescriptor[/T]  bk_script_info_descriptor from a precomputed
 *                        bk_script_info (descriptor text and checksum, no
 *                        solve, no address, no x-only check); all outputs,
 *                        or those of type T (p2pkh, p2wpkh, p2tr)
 *   DescriptorChecksum   bk_descriptor_checksum of each output's descriptor
 *                        text (unit: one descriptor)
 * The block's outputs are located once in setup by a small local walker
 * (the bench needs nothing beyond the script API). */
#include "bench.h"

#include <blockkit/json.h>
#include <blockkit/script.h>
#include <blockkit/sha256.h>
#include <blockkit/stream.h>

#include "../src/bitcoin/script_internal.h" /* bk_script_xonly_valid */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct spk {
    const uint8_t *s;
    uint32_t n;
} spk;

typedef struct script_bench {
    uint8_t *block;
    size_t block_len;
    spk *scripts;
    size_t count;
    size_t bytes;
    bk_writer w;
} script_bench;

/* Skip one transaction, appending its output scripts. */
static int walk_tx(bk_reader *r, script_bench *b, size_t cap)
{
    bk_read_u32(r);
    int witness = 0;
    if (bk_reader_remaining(r) >= 2 && r->data[r->pos] == 0 && r->data[r->pos + 1] == 1) {
        witness = 1;
        bk_read_span(r, 2);
    }
    uint64_t nin = bk_read_compact_size(r, 1);
    for (uint64_t i = 0; i < nin && bk_reader_ok(r); i++) {
        bk_read_span(r, 36);
        bk_read_span(r, bk_read_compact_size(r, 1));
        bk_read_u32(r);
    }
    uint64_t nout = bk_read_compact_size(r, 1);
    for (uint64_t i = 0; i < nout && bk_reader_ok(r); i++) {
        bk_read_u64(r);
        uint64_t len = bk_read_compact_size(r, 1);
        const uint8_t *s = bk_read_span(r, len);
        if (!s) return 0;
        if (b->count == cap) return 0;
        b->scripts[b->count].s = s;
        b->scripts[b->count].n = (uint32_t)len;
        b->count++;
        b->bytes += len;
    }
    if (witness) {
        for (uint64_t i = 0; i < nin && bk_reader_ok(r); i++) {
            uint64_t items = bk_read_compact_size(r, 1);
            for (uint64_t k = 0; k < items && bk_reader_ok(r); k++) bk_read_span(r, bk_read_compact_size(r, 1));
        }
    }
    bk_read_u32(r);
    return bk_reader_ok(r);
}

static int setup_block(void **ctx, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    char path[4096];
    if (bk_bench_data_path(path, sizeof path, "block866342.raw") != 0) return 1;
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    script_bench *b = bk_alloc(alloc, sizeof *b);
    if (!b || len <= 80) {
        fclose(f);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    memset(b, 0, sizeof *b);
    b->block_len = (size_t)len;
    b->block = bk_alloc(alloc, b->block_len);
    size_t cap = b->block_len / 9;
    b->scripts = bk_alloc(alloc, cap * sizeof *b->scripts);
    int ok = b->block && b->scripts && fread(b->block, 1, b->block_len, f) == b->block_len;
    fclose(f);
    if (ok) {
        bk_reader r;
        bk_reader_init(&r, b->block, b->block_len);
        bk_read_span(&r, 80);
        uint64_t ntx = bk_read_compact_size(&r, 1);
        for (uint64_t i = 0; i < ntx && ok; i++) ok = walk_tx(&r, b, cap);
        ok = ok && bk_reader_remaining(&r) == 0;
    }
    bk_writer_init(&b->w, alloc);
    if (!ok || bk_writer_reserve(&b->w, 1 << 20) != BK_OK) {
        bk_writer_free(&b->w);
        bk_free(alloc, b->scripts, cap * sizeof *b->scripts);
        bk_free(alloc, b->block, b->block_len);
        bk_free(alloc, b, sizeof *b);
        return 1;
    }
    *ctx = b;
    return 0;
}

static void teardown_block(void *ctx, const bk_allocator *alloc)
{
    script_bench *b = ctx;
    bk_writer_free(&b->w);
    bk_free(alloc, b->scripts, (b->block_len / 9) * sizeof *b->scripts);
    bk_free(alloc, b->block, b->block_len);
    bk_free(alloc, b, sizeof *b);
}

static void run_asm(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    script_bench *b = ctx;
    for (uint64_t it = 0; it < iters; it++) {
        bk_writer_reset(&b->w);
        for (size_t i = 0; i < b->count; i++) {
            bk_script_asm(&b->w, b->scripts[i].s, b->scripts[i].n, 0);
            bk_writer_putc(&b->w, '\n');
        }
        bk_bench_keep(b->w.data);
    }
}

static void put_hex(bk_writer *w, const uint8_t *p, size_t n)
{
    uint8_t *o = bk_writer_space(w, 2 * n);
    if (!o) return;
    bk_hex_encode((char *)o, p, n);
    bk_writer_commit(w, 2 * n);
}

static void run_json(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    script_bench *b = ctx;
    for (uint64_t it = 0; it < iters; it++) {
        bk_writer *w = &b->w;
        bk_writer_reset(w);
        for (size_t i = 0; i < b->count; i++) {
            const uint8_t *s = b->scripts[i].s;
            size_t n = b->scripts[i].n;
            bk_script_info info;
            if (bk_script_info_get(s, n, BK_NET_MAIN, &info) != BK_OK) return;
            bk_writer_put(w, "{\"asm\":\"", 8);
            bk_script_asm(w, s, n, 0);
            bk_writer_put(w, "\",\"desc\":\"", 10);
            bk_script_info_descriptor(w, s, n, &info);
            bk_writer_put(w, "\",\"hex\":\"", 9);
            put_hex(w, s, n);
            if (info.address_len) {
                bk_writer_put(w, "\",\"address\":\"", 13);
                bk_writer_put(w, info.address, info.address_len);
            }
            bk_writer_put(w, "\",\"type\":\"", 10);
            bk_writer_puts(w, bk_script_type_name(info.sol.type));
            bk_writer_put(w, "\"}\n", 3);
        }
        bk_bench_keep(w->data);
    }
}

static void run_desc(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    script_bench *b = ctx;
    for (uint64_t it = 0; it < iters; it++) {
        bk_writer_reset(&b->w);
        for (size_t i = 0; i < b->count; i++) {
            if (bk_script_descriptor(&b->w, b->scripts[i].s, b->scripts[i].n, BK_NET_MAIN) != BK_OK) return;
            bk_writer_putc(&b->w, '\n');
        }
        bk_bench_keep(b->w.data);
    }
}

static void run_address(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    script_bench *b = ctx;
    char out[BK_SCRIPT_ADDRESS_MAX];
    size_t total = 0;
    for (uint64_t it = 0; it < iters; it++) {
        for (size_t i = 0; i < b->count; i++) {
            size_t len;
            if (bk_script_address(b->scripts[i].s, b->scripts[i].n, BK_NET_MAIN, out, sizeof out, &len) != BK_OK)
                return;
            total += len;
        }
        bk_bench_keep(out);
    }
    bk_bench_keep(&total);
}

/* The taproot outputs' x-only keys, on top of the block's scripts. */
typedef struct xonly_bench {
    void *block;
    const uint8_t **keys;
    size_t count;
    uint8_t *packed; /* the same keys back to back, for the batch API */
    uint8_t *valid;
} xonly_bench;

#define XONLY_KEYS 2757 /* taproot outputs in block 866342 */

static int setup_xonly(void **ctx, const void *arg, const bk_allocator *alloc)
{
    void *bctx;
    if (setup_block(&bctx, arg, alloc) != 0) return 1;
    script_bench *b = bctx;
    xonly_bench *x = bk_alloc(alloc, sizeof *x);
    const uint8_t **keys = bk_alloc(alloc, XONLY_KEYS * sizeof *keys);
    size_t n = 0;
    for (size_t i = 0; keys && i < b->count; i++) {
        const uint8_t *s = b->scripts[i].s;
        if (b->scripts[i].n != 34 || s[0] != 0x51 || s[1] != 0x20) continue;
        if (n == XONLY_KEYS) {
            n++;
            break;
        }
        keys[n++] = s + 2;
    }
    if (!x || !keys || n != XONLY_KEYS) {
        bk_free(alloc, keys, XONLY_KEYS * sizeof *keys);
        bk_free(alloc, x, sizeof *x);
        teardown_block(bctx, alloc);
        return 1;
    }
    x->packed = bk_alloc(alloc, 32 * (size_t)XONLY_KEYS);
    x->valid = bk_alloc(alloc, XONLY_KEYS);
    if (!x->packed || !x->valid) {
        bk_free(alloc, x->packed, 32 * (size_t)XONLY_KEYS);
        bk_free(alloc, x->valid, XONLY_KEYS);
        bk_free(alloc, keys, XONLY_KEYS * sizeof *keys);
        bk_free(alloc, x, sizeof *x);
        teardown_block(bctx, alloc);
        return 1;
    }
    for (size_t i = 0; i < n; i++) memcpy(x->packed + 32 * i, keys[i], 32);
    x->block = bctx;
    x->keys = keys;
    x->count = n;
    *ctx = x;
    return 0;
}

static void teardown_xonly(void *ctx, const bk_allocator *alloc)
{
    xonly_bench *x = ctx;
    teardown_block(x->block, alloc);
    bk_free(alloc, x->keys, XONLY_KEYS * sizeof *x->keys);
    bk_free(alloc, x->packed, 32 * (size_t)XONLY_KEYS);
    bk_free(alloc, x->valid, XONLY_KEYS);
    bk_free(alloc, x, sizeof *x);
}

static void run_xonly(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    xonly_bench *x = ctx;
    size_t valid = 0;
    for (uint64_t it = 0; it < iters; it++) {
        for (size_t i = 0; i < x->count; i++) valid += (size_t)bk_script_xonly_valid(x->keys[i]);
    }
    bk_bench_keep(&valid);
}

/* The same keys through bk_script_xonly_valid_many (AVX-512 when the CPU
 * has it). */
static void run_xonly_many(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    xonly_bench *x = ctx;
    size_t valid = 0;
    for (uint64_t it = 0; it < iters; it++) {
        bk_script_xonly_valid_many(x->packed, x->count, x->valid);
        valid += x->valid[it % x->count];
    }
    bk_bench_keep(&valid);
}

/* ---- per-path rows ---- */

/* The block's outputs of one type (or all, type -1), with their infos and
 * descriptor texts precomputed. */
typedef struct path_arg {
    int type;
    size_t expect;
} path_arg;

typedef struct path_bench {
    void *block;
    size_t count;
    const uint8_t **s;
    size_t *n;
    bk_script_info *info;
    uint8_t (*b58)[25];
    char *desc;       /* descriptor texts without "#checksum", back to back */
    size_t *desc_off; /* count + 1 offsets */
    size_t desc_cap;
    bk_writer w;
} path_bench;

static void teardown_path(void *ctx, const bk_allocator *alloc)
{
    path_bench *p = ctx;
    size_t c = p->count ? p->count : 1;
    bk_writer_free(&p->w);
    bk_free(alloc, p->s, c * sizeof *p->s);
    bk_free(alloc, p->n, c * sizeof *p->n);
    bk_free(alloc, p->info, c * sizeof *p->info);
    bk_free(alloc, p->b58, c * sizeof *p->b58);
    bk_free(alloc, p->desc_off, (c + 1) * sizeof *p->desc_off);
    bk_free(alloc, p->desc, p->desc_cap);
    teardown_block(p->block, alloc);
    bk_free(alloc, p, sizeof *p);
}

static int setup_path(void **ctx, const void *arg, const bk_allocator *alloc)
{
    const path_arg *a = arg;
    void *bctx;
    if (setup_block(&bctx, NULL, alloc) != 0) return 1;
    script_bench *b = bctx;
    path_bench *p = bk_alloc(alloc, sizeof *p);
    if (!p) {
        teardown_block(bctx, alloc);
        return 1;
    }
    memset(p, 0, sizeof *p);
    p->block = bctx;
    bk_writer_init(&p->w, alloc);
    size_t c = a->expect;
    p->count = c;
    p->s = bk_alloc(alloc, c * sizeof *p->s);
    p->n = bk_alloc(alloc, c * sizeof *p->n);
    p->info = bk_alloc(alloc, c * sizeof *p->info);
    p->b58 = bk_alloc(alloc, c * sizeof *p->b58);
    p->desc_off = bk_alloc(alloc, (c + 1) * sizeof *p->desc_off);
    p->desc_cap = 1 << 20;
    p->desc = bk_alloc(alloc, p->desc_cap);
    int ok = p->s && p->n && p->info && p->b58 && p->desc_off && p->desc &&
             bk_writer_reserve(&p->w, 1 << 20) == BK_OK;
    size_t k = 0, dl = 0;
    for (size_t i = 0; ok && i < b->count; i++) {
        bk_script_type t = bk_script_solve(b->scripts[i].s, b->scripts[i].n, NULL);
        if (a->type >= 0 && (int)t != a->type) continue;
        if (k == c) {
            ok = 0;
            break;
        }
        p->s[k] = b->scripts[i].s;
        p->n[k] = b->scripts[i].n;
        ok = bk_script_info_get(p->s[k], p->n[k], BK_NET_MAIN, &p->info[k]) == BK_OK;
        if (t == BK_SCRIPT_PUBKEYHASH || t == BK_SCRIPT_SCRIPTHASH) {
            uint8_t sum[32];
            p->b58[k][0] = t == BK_SCRIPT_SCRIPTHASH ? 5 : 0;
            memcpy(p->b58[k] + 1, p->info[k].sol.data, 20);
            bk_sha256d(sum, p->b58[k], 21);
            memcpy(p->b58[k] + 21, sum, 4);
        }
        bk_writer_reset(&p->w);
        bk_script_info_descriptor(&p->w, p->s[k], p->n[k], &p->info[k]);
        size_t len = p->w.len - 9; /* without "#checksum" */
        if (bk_writer_status(&p->w) != BK_OK || dl + len > p->desc_cap) ok = 0;
        if (ok) {
            p->desc_off[k] = dl;
            memcpy(p->desc + dl, p->w.data, len);
            dl += len;
        }
        k++;
    }
    if (!ok || k != c) {
        if (ok) fprintf(stderr, "bench: %zu outputs of the type in block 866342, expected %zu\n", k, c);
        teardown_path(p, alloc);
        return 1;
    }
    p->desc_off[c] = dl;
    *ctx = p;
    return 0;
}

static void run_path_address(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    path_bench *p = ctx;
    char out[BK_SCRIPT_ADDRESS_MAX];
    size_t total = 0;
    for (uint64_t it = 0; it < iters; it++) {
        for (size_t i = 0; i < p->count; i++) {
            size_t len;
            if (bk_script_address(p->s[i], p->n[i], BK_NET_MAIN, out, sizeof out, &len) != BK_OK) return;
            total += len;
        }
        bk_bench_keep(out);
    }
    bk_bench_keep(&total);
}

static void run_base58(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    path_bench *p = ctx;
    char out[40];
    size_t total = 0;
    for (uint64_t it = 0; it < iters; it++) {
        for (size_t i = 0; i < p->count; i++) {
            if (p->info[i].sol.type != BK_SCRIPT_PUBKEYHASH && p->info[i].sol.type != BK_SCRIPT_SCRIPTHASH)
                continue;
            total += bk_base58_encode25(out, p->b58[i]);
            bk_bench_keep(out);
        }
    }
    bk_bench_keep(&total);
}

static void run_info_desc(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    path_bench *p = ctx;
    for (uint64_t it = 0; it < iters; it++) {
        bk_writer_reset(&p->w);
        for (size_t i = 0; i < p->count; i++) bk_script_info_descriptor(&p->w, p->s[i], p->n[i], &p->info[i]);
        bk_bench_keep(p->w.data);
    }
}

static void run_checksum(void *ctx, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    path_bench *p = ctx;
    char out[9];
    for (uint64_t it = 0; it < iters; it++) {
        for (size_t i = 0; i < p->count; i++) {
            if (bk_descriptor_checksum(p->desc + p->desc_off[i], p->desc_off[i + 1] - p->desc_off[i], out, NULL) !=
                BK_OK)
                return;
            bk_bench_keep(out);
        }
    }
}

/* Output counts of block 866342 by type (setup checks them). */
static const path_arg path_all = {-1, 10327};
static const path_arg path_p2pkh = {BK_SCRIPT_PUBKEYHASH, 204};
static const path_arg path_p2sh = {BK_SCRIPT_SCRIPTHASH, 210};
static const path_arg path_p2wpkh = {BK_SCRIPT_WITNESS_V0_KEYHASH, 3113};
static const path_arg path_p2tr = {BK_SCRIPT_WITNESS_V1_TAPROOT, 2757};

BK_BENCH(bench_addr_p2pkh, "ScriptAddress/p2pkh", "script", 204, 0, &path_p2pkh, setup_path, run_path_address,
         teardown_path)
BK_BENCH(bench_addr_p2sh, "ScriptAddress/p2sh", "script", 210, 0, &path_p2sh, setup_path, run_path_address,
         teardown_path)
BK_BENCH(bench_addr_p2wpkh, "ScriptAddress/p2wpkh", "script", 3113, 0, &path_p2wpkh, setup_path,
         run_path_address, teardown_path)
BK_BENCH(bench_addr_p2tr, "ScriptAddress/p2tr", "script", 2757, 0, &path_p2tr, setup_path, run_path_address,
         teardown_path)
BK_BENCH(bench_base58, "Base58Encode25", "address", 414, 0, &path_all, setup_path, run_base58, teardown_path)
BK_BENCH(bench_info_desc, "ScriptInfoDescriptor", "script", 10327, 0, &path_all, setup_path, run_info_desc,
         teardown_path)
BK_BENCH(bench_info_desc_p2pkh, "ScriptInfoDescriptor/p2pkh", "script", 204, 0, &path_p2pkh, setup_path,
         run_info_desc, teardown_path)
BK_BENCH(bench_info_desc_p2wpkh, "ScriptInfoDescriptor/p2wpkh", "script", 3113, 0, &path_p2wpkh, setup_path,
         run_info_desc, teardown_path)
BK_BENCH(bench_info_desc_p2tr, "ScriptInfoDescriptor/p2tr", "script", 2757, 0, &path_p2tr, setup_path,
         run_info_desc, teardown_path)
BK_BENCH(bench_checksum, "DescriptorChecksum", "descriptor", 10327, 0, &path_all, setup_path, run_checksum,
         teardown_path)

/* 10327 output scripts in block 866342. */
BK_BENCH(bench_script_asm, "ScriptToAsm", "script", 10327, 0, NULL, setup_block, run_asm,
         teardown_block)
BK_BENCH(bench_script_json, "ScriptPubKeyToJson", "script", 10327, 0, NULL, setup_block, run_json,
         teardown_block)
BK_BENCH(bench_script_desc, "ScriptDescriptor", "script", 10327, 0, NULL, setup_block, run_desc,
         teardown_block)
BK_BENCH(bench_script_addr, "ScriptAddress", "script", 10327, 0, NULL, setup_block, run_address,
         teardown_block)
BK_BENCH(bench_script_xonly, "XOnlyValid", "key", XONLY_KEYS, 0, NULL, setup_xonly, run_xonly, teardown_xonly)
BK_BENCH(bench_script_xonly_many, "XOnlyValidMany", "key", XONLY_KEYS, 0, NULL, setup_xonly, run_xonly_many,
         teardown_xonly)
