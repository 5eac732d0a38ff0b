/* Internal declarations shared by the SSZ sources: an arena, a small strict
 * JSON parser (schemas, values, test vectors), and hashing internals. */
#ifndef BLOCKKIT_SSZ_INTERNAL_H
#define BLOCKKIT_SSZ_INTERNAL_H

#include <blockkit/ssz.h>
#include <blockkit/sha256.h>

/* ---- arena: bump allocation in blocks taken from a bk_allocator ---- */
typedef struct bk_arena_block bk_arena_block;
typedef struct bk_arena {
    const bk_allocator *alloc;
    bk_arena_block *head;
} bk_arena;

void bk_arena_init(bk_arena *a, const bk_allocator *alloc);
/* n zeroed bytes aligned to 16; NULL when the allocator fails. */
void *bk_arena_alloc(bk_arena *a, size_t n);
char *bk_arena_strndup(bk_arena *a, const char *s, size_t n);
void bk_arena_free(bk_arena *a);

/* ---- JSON (RFC 8259, strict: no trailing commas, no comments, no
 * leading zeros, control characters escaped, valid UTF-8 escapes) ---- */
typedef enum bk_sjson_kind {
    BK_SJSON_NULL, BK_SJSON_FALSE, BK_SJSON_TRUE, BK_SJSON_NUMBER, BK_SJSON_STRING,
    BK_SJSON_ARRAY, BK_SJSON_OBJECT
} bk_sjson_kind;

typedef struct bk_sjson bk_sjson;
struct bk_sjson {
    bk_sjson_kind kind;
    size_t off;             /* offset of the value in the text */
    const char *str;        /* string (unescaped, NUL-terminated) or number text */
    size_t len;             /* string / number text length */
    size_t n;               /* array / object: number of children */
    bk_sjson *child;        /* first child */
    bk_sjson *next;         /* next sibling */
    const char *key;        /* member name inside an object */
    size_t keylen;
};

/* Parse one JSON value (surrounding white space allowed, nothing else) with
 * nodes in arena a. BK_ERR_INVALID with the offset on bad JSON. */
bk_status bk_sjson_parse(bk_arena *a, const char *text, size_t len, bk_sjson **root_out, bk_error *err);
/* The same syntax check without building anything (no allocation): BK_OK
 * when bk_sjson_parse would succeed, else its error. *nvalues_out (may be
 * NULL) receives the number of JSON values in the text (the nodes a tree
 * would need). */
bk_status bk_sjson_check(const char *text, size_t len, size_t *nvalues_out, bk_error *err);
/* Object member by name, NULL when absent. */
const bk_sjson *bk_sjson_get(const bk_sjson *obj, const char *key);

/* ---- type helpers ---- */
static inline int bk_ssz_is_basic(const bk_ssz_type *t)
{
    return t->kind == BK_SSZ_UINT || t->kind == BK_SSZ_BOOL;
}
/* Bytes a basic type packs into (uint width, 1 for bool). */
static inline uint32_t bk_ssz_basic_size(const bk_ssz_type *t) { return t->size; }

/* Name-sorted field indices of a container (NULL when not built). */
static inline const uint32_t *bk_ssz_field_index(const bk_ssz_type *t) { return t->field_order; }

/* Prepend a path component to err->path (".name" or "[i]"). */
void bk_ssz_path_field(bk_error *err, const char *name);
void bk_ssz_path_index(bk_error *err, uint64_t i);

/* Span of element i / field i of validated data of a vector, list or
 * container. */
void bk_ssz_elem_span(const bk_ssz_type *t, const uint8_t *data, size_t len, uint64_t i,
                      const uint8_t **p_out, size_t *n_out);
/* Number of elements of validated data of a list/vector (bits for bitfields). */
uint64_t bk_ssz_elem_count(const bk_ssz_type *t, const uint8_t *data, size_t len);

/* ---- hashing plans: the Merkle tree of a small fixed-size type, compiled
 * at type build time into batches of pair hashes by height, so all the
 * independent pairs of a level (across every field) are hashed in one
 * bk_sha256_64 call. ---- */
typedef struct bk_ssz_pref {
    uint8_t kind;           /* BK_SSZ_PREF_LEAF / _ZERO / _NODE */
    uint8_t len;            /* leaf: bytes taken from the data (1..32) */
    uint32_t v;             /* leaf: data offset; zero: depth; node: index;
                               ext: field index */
} bk_ssz_pref;
/* EXT: the root of a variable-size field of the top-level container,
 * computed before the plan runs. */
/* VCHUNK: a chunk of a small variable-size packed field (bitlist or list
 * of basic values, at most BK_SSZ_FOLD_MAX_CHUNKS chunks at its limit) or
 * its length chunk, extracted before the plan runs: such a field's tree is
 * static (short data is zero chunks), so it joins the level batches. */
enum { BK_SSZ_PREF_LEAF, BK_SSZ_PREF_ZERO, BK_SSZ_PREF_NODE, BK_SSZ_PREF_EXT, BK_SSZ_PREF_VCHUNK };
#define BK_SSZ_FOLD_MAX_CHUNKS 16
enum { BK_SSZ_FIELD_FIXED, BK_SSZ_FIELD_EXT, BK_SSZ_FIELD_FOLDED };

typedef struct bk_ssz_pnode {
    bk_ssz_pref l, r;
} bk_ssz_pnode;

typedef struct bk_ssz_plan {
    uint32_t nnodes;
    const bk_ssz_pnode *nodes;  /* sorted by height */
    uint32_t nbatches;
    const uint32_t *batch_end;  /* batch i = nodes [end[i-1], end[i]) */
    uint32_t max_batch;
    bk_ssz_pref root;
    int has_ext;                /* a variable container: EXT/VCHUNK leaves */
    const uint8_t *field_mode;  /* has_ext: BK_SSZ_FIELD_* per field */
    const uint32_t *fold_base;  /* has_ext: first VCHUNK slot of a folded field */
    uint32_t nvchunks;          /* VCHUNK slots */
} bk_ssz_plan;

/* Compile t's plan into arena a (scratch through alloc); NULL when t is
 * neither fixed-size nor a container, is too big for a plan, or memory ran
 * out (hashing then takes the streaming path, with the same result). The
 * variable-size fields of a container are EXT leaves. */
const bk_ssz_plan *bk_ssz_plan_build(bk_arena *a, const bk_allocator *alloc, const bk_ssz_type *t);

/* ---- compression count: every 64-byte SHA-256 message the SSZ code
 * hashes goes through bk_ssz_sha64, which counts it on the calling thread
 * (pool workers add theirs to the caller's at the end of each job), so a
 * benchmark can state the SHA-256 work a root needs (bk_ssz_compressions). */
extern _Thread_local uint64_t bk_ssz_tls_compressions;
static inline void bk_ssz_sha64(uint8_t *out, const uint8_t *in, size_t n)
{
    bk_ssz_tls_compressions += n;
    bk_sha256_64(out, in, n);
}

/* ---- hashing internals (data must be valid) ---- */
struct bk_ssz_hasher {
    const bk_allocator *alloc;
    uint8_t *scratch;       /* stack of merkleizer reservations */
    size_t cap;
    size_t used;
    bk_ssz_pool *pool;      /* large subtrees split across its threads (pool.c) */
    int in_parallel;        /* this hasher is already running pieces */
};

/* pool.c: the root of chunks [lo, hi) of t as a subtree of height sub_depth,
 * in parallel pieces. 0 when it does not apply (no pool, a small range, no
 * scratch): the caller then hashes sequentially. */
int bk_ssz_par_subtree(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t lo,
                       uint64_t hi, unsigned sub_depth, uint8_t out[32], bk_status *st, bk_error *err);

/* Take n bytes (multiple of 32) of scratch; NULL when it does not fit. */
uint8_t *bk_ssz_scratch_take(bk_ssz_hasher *h, size_t n);

/* Number of chunks of the data tree of validated data (before padding). */
uint64_t bk_ssz_chunks(const bk_ssz_type *t, const uint8_t *d, size_t len);

/* Root of the subtree of height sub_depth of the data tree of t whose
 * leftmost chunk is lo (lo a multiple of 2^sub_depth). */
bk_status bk_ssz_subtree(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t lo,
                         unsigned sub_depth, uint8_t out[32], bk_error *err);

/* Chunk i of the data tree (a packed chunk or an element/field root). */
bk_status bk_ssz_chunk(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, uint64_t i,
                       uint8_t out[32], bk_error *err);

/* hash_tree_root of validated data. */
bk_status bk_ssz_root_unchecked(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len,
                                uint8_t out[32], bk_error *err);

void bk_ssz_hash_pair(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);

/* Progressive trees (EIP-7916 / EIP-7495): the data root is spine node 0;
 * spine node k = hash(subtree k, spine node k + 1), subtree k holding chunks
 * [(4^k - 1) / 3, ...) at depth 2k (a ProgressiveContainer's chunks are its
 * active-field positions, zero where inactive). */
uint64_t bk_ssz_prog_chunks(const bk_ssz_type *t, const uint8_t *d, size_t len);
bk_status bk_ssz_prog_subtree(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, unsigned k,
                              uint8_t out[32], bk_error *err);
bk_status bk_ssz_prog_spine(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *d, size_t len, unsigned k0,
                            uint8_t out[32], bk_error *err);
/* Chunk `pos` of a progressive data tree as a generalized index relative
 * to the data root. 0 on overflow. */
uint64_t bk_ssz_prog_chunk_gindex(uint64_t pos);

#endif
