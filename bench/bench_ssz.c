/* SSZ benches: hash_tree_root straight from serialized bytes through one
 * reused bk_ssz_hasher (allocs/op must be 0), the merkleizer on a big
 * level, and strict decoding.
 *
 *   HashTreeRoot/DepositData               184 bytes, 7 pair hashes, unit op
 *   HashTreeRoot/BeaconBlockHeader         112 bytes, 7 pair hashes, unit op
 *   HashTreeRoot/Attestation               full 2048-bit aggregation_bits, unit op
 *   Merkleize/1M                           2^20 chunks (limit 2^20), unit pair (2^20 - 1)
 *   HashTreeRoot/List[uint64,2^40]/1M      2^20 uint64 = 2^18 chunks, unit chunk
 *   HashTreeRoot/List[Validator,2^40]/4096 4096 validators (the beacon state
 *                                          registry shape), unit validator
 *   Decode/Attestation                     strict validation, unit op
 *   HashTreeRoot/ProgressiveContainer/heze:Attestation, HashTreeRoot/ProgressiveList[uint64]/1024,
 *   HashTreeRoot/uint64                    values synthesized (bk_ssz_synthesize), unit op
 *   HashTreeRoot/CompatibleUnion/...       the same value as option 1 of a
 *                                          CompatibleUnion (EIP-8016): the row
 *                                          above plus one compression (the
 *                                          selector mix-in), unit op */
#include "bench.h"

#include <string.h>
#include <blockkit/sha256.h>
#include <blockkit/ssz.h>

typedef enum { B_ROOT, B_MERKLEIZE, B_DECODE } bkind;

typedef struct ssz_arg {
    bkind k;
    const char *type;
    size_t len;             /* serialized bytes (0: see setup) */
    const char *value_type; /* non-NULL: data = bk_ssz_synthesize(value_type, n), */
    uint64_t n;
    int selector;           /* prefixed by this selector byte when not 0 */
} ssz_arg;

typedef struct ssz_ctx {
    bk_ssz_registry *reg;
    bk_ssz_hasher *h;
    const bk_ssz_type *t;
    uint8_t *data;
    size_t len;
    const ssz_arg *arg;
} ssz_ctx;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void ssz_teardown(void *p, const bk_allocator *alloc)
{
    ssz_ctx *c = p;
    if (!c) return;
    bk_ssz_hasher_free(c->h);
    bk_ssz_registry_free(c->reg);
    bk_free(alloc, c->data, c->len);
    bk_free(alloc, c, sizeof *c);
}

static int ssz_setup(void **out, const void *argp, const bk_allocator *alloc)
{
    const ssz_arg *a = argp;
    ssz_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    memset(c, 0, sizeof *c);
    c->arg = a;
    if (bk_ssz_registry_create(&c->reg, alloc) != BK_OK || bk_ssz_hasher_create(&c->h, 0, alloc) != BK_OK ||
        (a->type && bk_ssz_type_parse(c->reg, a->type, &c->t, NULL) != BK_OK)) {
        ssz_teardown(c, alloc);
        return 1;
    }
    if (a->value_type) {
        /* A synthesized value (as the union's option when selector != 0). */
        const bk_ssz_type *vt;
        bk_writer w;
        bk_writer_init(&w, alloc);
        if (a->selector) bk_writer_putc(&w, (char)a->selector);
        if (bk_ssz_type_parse(c->reg, a->value_type, &vt, NULL) != BK_OK ||
            bk_ssz_synthesize(vt, a->n, 0, 7, &w, NULL) != BK_OK || w.status != BK_OK) {
            bk_writer_free(&w);
            ssz_teardown(c, alloc);
            return 1;
        }
        c->len = w.len;
        c->data = bk_alloc(alloc, c->len);
        if (c->data) memcpy(c->data, w.data, w.len);
        bk_writer_free(&w);
        if (!c->data || bk_ssz_validate(c->t, c->data, c->len, NULL) != BK_OK) {
            ssz_teardown(c, alloc);
            return 1;
        }
        *out = c;
        return 0;
    }
    c->len = a->len;
    c->data = bk_alloc(alloc, c->len);
    if (!c->data) {
        ssz_teardown(c, alloc);
        return 1;
    }
    uint64_t s = 7;
    for (size_t i = 0; i < c->len; i++) c->data[i] = (uint8_t)lcg(&s);
    if (a->type && !strcmp(a->type, "Container:Attestation")) {
        /* aggregation_bits: offset 228, 2048 bits + delimiter byte. */
        bk_store_le32(c->data, 228);
        c->data[c->len - 1] = 1;
    }
    if (a->type && strstr(a->type, "Validator")) {
        /* slashed (byte 88 of each 121-byte validator) is a bool. */
        for (size_t i = 88; i < c->len; i += 121) c->data[i] &= 1;
    }
    if (a->k != B_MERKLEIZE && bk_ssz_validate(c->t, c->data, c->len, NULL) != BK_OK) {
        ssz_teardown(c, alloc);
        return 1;
    }
    *out = c;
    return 0;
}

static void ssz_run(void *p, uint64_t iters, const bk_allocator *alloc)
{
    ssz_ctx *c = p;
    uint8_t r[32];
    (void)alloc;
    for (uint64_t i = 0; i < iters; i++) {
        bk_status st;
        switch (c->arg->k) {
        case B_ROOT: st = bk_ssz_hash_tree_root(c->h, c->t, c->data, c->len, r, NULL); break;
        case B_MERKLEIZE: st = bk_ssz_merkleize(c->h, c->data, c->len / 32, c->len / 32, r, NULL); break;
        default: st = bk_ssz_validate(c->t, c->data, c->len, NULL); r[0] = (uint8_t)st; break;
        }
        (void)st;
        bk_bench_keep(r);
    }
}

static const ssz_arg a_deposit = {B_ROOT, "Container:DepositData", 184, NULL, 0, 0};
static const ssz_arg a_header = {B_ROOT, "Container:BeaconBlockHeader", 112, NULL, 0, 0};
static const ssz_arg a_att = {B_ROOT, "Container:Attestation", 228 + 257, NULL, 0, 0};
static const ssz_arg a_mz = {B_MERKLEIZE, NULL, (size_t)32 << 20, NULL, 0, 0};
static const ssz_arg a_list = {B_ROOT, "List[uint64,1099511627776]", (size_t)8 << 20, NULL, 0, 0};
static const ssz_arg a_vals = {B_ROOT, "List[Container:Validator,1099511627776]", 121 * 4096, NULL, 0, 0};
static const ssz_arg a_dec = {B_DECODE, "Container:Attestation", 228 + 257, NULL, 0, 0};

BK_BENCH(bench_ssz_deposit, "HashTreeRoot/DepositData", "op", 1, 184, &a_deposit, ssz_setup, ssz_run, ssz_teardown)
BK_BENCH(bench_ssz_header, "HashTreeRoot/BeaconBlockHeader", "op", 1, 112, &a_header, ssz_setup, ssz_run,
         ssz_teardown)
BK_BENCH(bench_ssz_att, "HashTreeRoot/Attestation", "op", 1, 485, &a_att, ssz_setup, ssz_run, ssz_teardown)
BK_BENCH(bench_ssz_mz, "Merkleize/1M", "pair", (double)((1 << 20) - 1), (double)(32 << 20), &a_mz, ssz_setup,
         ssz_run, ssz_teardown)
BK_BENCH(bench_ssz_list, "HashTreeRoot/List[uint64,2^40]/1M", "chunk", (double)(1 << 18), (double)(8 << 20),
         &a_list, ssz_setup, ssz_run, ssz_teardown)
BK_BENCH(bench_ssz_vals, "HashTreeRoot/List[Validator,2^40]/4096", "validator", 4096, 121 * 4096, &a_vals, ssz_setup,
         ssz_run, ssz_teardown)
BK_BENCH(bench_ssz_dec, "Decode/Attestation", "op", 1, 485, &a_dec, ssz_setup, ssz_run, ssz_teardown)

/* Progressive values and the same values inside a CompatibleUnion: the
 * union row costs its value row plus one compression (mix_in_selector). */
static const ssz_arg a_pc = {B_ROOT, "heze:Attestation", 0, "heze:Attestation", 2048, 0};
static const ssz_arg a_cu_pc = {B_ROOT, "CompatibleUnion[1:heze:Attestation]", 0, "heze:Attestation", 2048, 1};
static const ssz_arg a_pl = {B_ROOT, "ProgressiveList[uint64]", 0, "ProgressiveList[uint64]", 1024, 0};
static const ssz_arg a_cu_pl = {B_ROOT, "CompatibleUnion[1:ProgressiveList[uint64],2:ProgressiveList[uint64]]", 0,
                                "ProgressiveList[uint64]", 1024, 1};
static const ssz_arg a_u64 = {B_ROOT, "uint64", 0, "uint64", 1, 0};
static const ssz_arg a_cu_u64 = {B_ROOT, "CompatibleUnion[1:uint64]", 0, "uint64", 1, 1};
BK_BENCH(bench_ssz_pc, "HashTreeRoot/ProgressiveContainer/heze:Attestation", "op", 1, 0, &a_pc, ssz_setup, ssz_run,
         ssz_teardown)
BK_BENCH(bench_ssz_cu_pc, "HashTreeRoot/CompatibleUnion/heze:Attestation", "op", 1, 0, &a_cu_pc, ssz_setup, ssz_run,
         ssz_teardown)
BK_BENCH(bench_ssz_pl, "HashTreeRoot/ProgressiveList[uint64]/1024", "op", 1, 0, &a_pl, ssz_setup, ssz_run,
         ssz_teardown)
BK_BENCH(bench_ssz_cu_pl, "HashTreeRoot/CompatibleUnion/ProgressiveList[uint64]/1024", "op", 1, 0, &a_cu_pl,
         ssz_setup, ssz_run, ssz_teardown)
BK_BENCH(bench_ssz_u64, "HashTreeRoot/uint64", "op", 1, 8, &a_u64, ssz_setup, ssz_run, ssz_teardown)
BK_BENCH(bench_ssz_cu_u64, "HashTreeRoot/CompatibleUnion/uint64", "op", 1, 9, &a_cu_u64, ssz_setup, ssz_run,
         ssz_teardown)

/* The SHA-256 work of DepositData's hash_tree_root alone, in the engine's
 * own schedule (its compiled plan, docs/ssz.md): 7 pair hashes in 4
 * dependent batches of 2, 2, 2, 1 messages through bk_sha256_64:
 *   1: the two signature pairs          S0 = H(s0,s1), S1 = H(s2,0)
 *   2: signature root, pubkey root      S = H(S0,S1),  P = H(pk0,pk1)
 *   3: both halves of the root          A = H(P,creds), B = H(amount,S)
 *   4: the root                         R = H(A,B)
 * No SSZ code at all: the floor the HashTreeRoot/DepositData row can
 * approach on this CPU. As in that row, every op starts from the same
 * constant leaves and its root feeds nothing, so consecutive ops may
 * overlap exactly as consecutive hash_tree_root calls do. (The first
 * version hashed 3, 2, 1, 1 messages and chained each root into the next
 * op: a different schedule and a serial latency, so it measured slower
 * than the row it claimed to bound.) */
typedef struct chain_ctx {
    uint8_t m1[2 * 64];   /* batch 1: signature chunks s0 s1 | s2 zero */
    uint8_t m2[2 * 64];   /* batch 2: S0 S1 (written) | pk0 pk1 (constant) */
    uint8_t o2[2 * 32];   /* batch 2 out: S P */
    uint8_t m3[2 * 64];   /* batch 3: P creds | amount S */
    uint8_t m4[64];       /* batch 3 out = batch 4 in: A B */
    uint8_t root[32];
} chain_ctx;

static int chain_setup(void **out, const void *arg, const bk_allocator *alloc)
{
    (void)arg;
    chain_ctx *c = bk_alloc(alloc, sizeof *c);
    if (!c) return 1;
    uint8_t *b = (uint8_t *)c;
    for (size_t i = 0; i < sizeof *c; i++) b[i] = (uint8_t)(i * 7 + 1);
    *out = c;
    return 0;
}

static void chain_run(void *p, uint64_t iters, const bk_allocator *alloc)
{
    (void)alloc;
    chain_ctx *c = p;
    for (uint64_t i = 0; i < iters; i++) {
        bk_sha256_64(c->m2, c->m1, 2);        /* S0, S1 */
        bk_sha256_64(c->o2, c->m2, 2);        /* S, P */
        memcpy(c->m3, c->o2 + 32, 32);        /* P */
        memcpy(c->m3 + 96, c->o2, 32);        /* S */
        bk_sha256_64(c->m4, c->m3, 2);        /* A, B */
        bk_sha256_64(c->root, c->m4, 1);      /* R: read by nothing */
        bk_bench_keep(c->root);
    }
}

static void chain_teardown(void *p, const bk_allocator *alloc)
{
    bk_free(alloc, p, sizeof(chain_ctx));
}

BK_BENCH(bench_ssz_deposit_sha_floor, "HashTreeRoot/DepositData/ShaChainOnly", "op", 1, 0, NULL, chain_setup,
         chain_run, chain_teardown)
