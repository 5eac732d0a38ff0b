/* blockkit: SSZ (Ethereum Simple Serialize).
 *
 * Types are built once from type strings ("List[uint64,1099511627776]",
 * "Vector[Container:Checkpoint,4]", "Union[None,uint32,List[uint8,4]]")
 * into a bk_ssz_registry, which owns them (memory from the registry's
 * allocator; freed with the registry). Containers are named: the phase0
 * containers and the ssz_generic test structs are built in, more can be
 * loaded from a JSON schema {"Name": [["field","type"], ...], ...}.
 *
 * Everything else works straight on serialized bytes: strict validation,
 * hash_tree_root, generalized indices, proofs, conversion to and from the
 * JSON value form. Nothing here copies the input. Hashing goes through a
 * bk_ssz_hasher whose scratch is allocated once; after creation validation,
 * hashing, nodes and proofs allocate nothing. Allocation happens only in
 * registry/type building, in functions that read JSON (schemas and proof
 * documents: a parse tree of about 80 bytes per JSON value, built only once
 * the whole text has passed an allocation-free syntax check, freed before
 * they return; values: no tree at all, see bk_ssz_from_json) and in
 * bk_writer growth (through the writer's allocator).
 *
 * Threads: building types (bk_ssz_type_parse, bk_ssz_registry_load_schema)
 * mutates the registry and needs one thread at a time; built types are
 * immutable and may be shared by any number of threads, each with its own
 * bk_ssz_hasher.
 *
 * Errors: bk_error gets a status (BK_ERR_TYPE for illegal types,
 * BK_ERR_OFFSET, BK_ERR_LENGTH, BK_ERR_VALUE, BK_ERR_TRUNCATED,
 * BK_ERR_TRAILING, BK_ERR_INVALID for data), the byte offset of the fault in
 * the input and a path such as ".data.target.epoch" or "[3].B".
 *
 * Rules follow ethereum/consensus-specs ssz/simple-serialize.md and
 * ssz/merkle-proofs.md. */
#ifndef BLOCKKIT_SSZ_H
#define BLOCKKIT_SSZ_H

#include <blockkit/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bk_ssz_kind {
    BK_SSZ_UINT,        /* uint8..uint256 (size 1,2,4,8,16,32) */
    BK_SSZ_BOOL,
    BK_SSZ_VECTOR,      /* Vector[T,N], ByteVector[N] */
    BK_SSZ_LIST,        /* List[T,N], ByteList[N] */
    BK_SSZ_BITVECTOR,
    BK_SSZ_BITLIST,
    BK_SSZ_CONTAINER,
    BK_SSZ_UNION,       /* Union[...], CompatibleUnion[...] (t->compatible) */
    BK_SSZ_NONE         /* only as option 0 of a Union */
} bk_ssz_kind;

typedef struct bk_ssz_type bk_ssz_type;

typedef struct bk_ssz_field {
    const char *name;            /* container field name ("" for union options) */
    const bk_ssz_type *type;
    uint64_t offset;             /* container: position in the fixed part */
    size_t next_var;             /* container: index of the next variable-size
                                    field after this one (nfields when none) */
    uint64_t chunk;              /* container: the field's chunk (leaf) index in
                                    the data tree: its index, or for a
                                    ProgressiveContainer its active-fields position */
} bk_ssz_field;

/* A built type: read-only, owned by its registry. */
struct bk_ssz_type {
    bk_ssz_kind kind;
    int is_variable;             /* variable-size (offset-encoded in a parent) */
    int is_bytes;                /* vector/list of uint8: JSON value is 0x hex */
    int fixed_any;               /* fixed-size and every byte string of that
                                    size is valid (no bool, padding, offsets) */
    uint32_t size;               /* uint: byte width; bool: 1 */
    uint64_t length;             /* vector/bitvector: N; list/bitlist: limit */
    uint64_t fixed_size;         /* fixed-size types: serialized size;
                                    variable containers: size of the fixed part */
    uint64_t chunk_count;        /* chunks of the data tree (limit for lists) */
    uint32_t depth;              /* ceil(log2(chunk_count)), data tree depth */
    const bk_ssz_type *elem;     /* vector/list element */
    const bk_ssz_field *fields;  /* container fields / union options */
    size_t nfields;
    const char *name;            /* container name, or the canonical type string */
    const void *plan;            /* internal: precompiled, level-batched hashing
                                    schedule of a small fixed-size type */
    const uint32_t *field_order; /* internal: container field indices sorted
                                    by name (NULL: lookups scan the fields) */
    int progressive;             /* EIP-7916 ProgressiveList / ProgressiveByteList /
                                    ProgressiveBitlist (kind LIST / BITLIST, length
                                    = the 2^32 - 1 element cap), or an EIP-7495
                                    ProgressiveContainer (kind CONTAINER) */
    const uint8_t *active_fields;/* ProgressiveContainer: the active-fields
                                    bitvector, bit i of byte i/8 (LSB first) */
    uint32_t active_bits;        /* its length (<= 256; the last bit is set) */
    int compatible;              /* EIP-8016 CompatibleUnion (kind UNION): fields[s]
                                    is the option of selector s (1..127), type NULL
                                    where there is none; nfields = largest selector + 1 */
};

/* The element (bit) cap of progressive lists and bitlists. */
#define BK_SSZ_PROGRESSIVE_MAX UINT64_C(0xffffffff)
/* A schema container whose first member is [BK_SSZ_ACTIVE_FIELDS_KEY,
 * "ProgressiveContainer[1,0,1,...]"] is an EIP-7495 ProgressiveContainer;
 * the members after it are its active fields in order. */
#define BK_SSZ_ACTIVE_FIELDS_KEY "__active_fields__"

typedef struct bk_ssz_registry bk_ssz_registry;

/* Create a registry (alloc NULL = default) holding the built-in containers:
 * the phase0 containers (Fork, Checkpoint, Validator, AttestationData,
 * IndexedAttestation, PendingAttestation, Eth1Data, Eth1Block,
 * DepositMessage, DepositData, BeaconBlockHeader, SigningData,
 * SignedBeaconBlockHeader, ProposerSlashing, AttesterSlashing, Attestation,
 * Deposit, VoluntaryExit, SignedVoluntaryExit, AggregateAndProof,
 * SignedAggregateAndProof, ForkData) and the ssz_generic test structs.
 * Returns BK_ERR_NOMEM or BK_OK. Free with bk_ssz_registry_free. */
BK_API bk_status bk_ssz_registry_create(bk_ssz_registry **reg_out, const bk_allocator *alloc)
    BK_WARN_UNUSED;
BK_API void bk_ssz_registry_free(bk_ssz_registry *reg);

/* Consensus forks built in: phase0 .. the newest that @lodestar/types
 * defines (scripts/gen-ssz-forks.mjs), in chain order. Their containers are
 * named "fork:Name" ("deneb:BeaconState", "Container:electra:Attestation"). */
BK_API size_t bk_ssz_fork_count(void);
BK_API const char *bk_ssz_fork_name(size_t i);   /* NULL past the end */

/* The fork whose containers bare names ("BeaconState") mean when the caller
 * has not defined them; phase0 by default. BK_ERR_ARG for an unknown fork
 * (the message lists the forks). */
BK_API bk_status bk_ssz_registry_set_fork(bk_ssz_registry *reg, const char *fork, bk_error *err)
    BK_WARN_UNUSED;
/* "mainnet" (default) or "minimal": the preset of the fork containers'
 * list and vector lengths. Must be chosen before a fork container is used. */
BK_API bk_status bk_ssz_registry_set_preset(bk_ssz_registry *reg, const char *preset, bk_error *err)
    BK_WARN_UNUSED;

/* Add the container schemas of a JSON text {"Name": [["field","type"],...]}.
 * A name already defined is replaced for types built afterwards. Fields are
 * resolved when a container is first used; a ProgressiveContainer's
 * active fields are checked here (BK_SSZ_ACTIVE_FIELDS_KEY must be the
 * first member). BK_ERR_TYPE (with the offset in json) for a malformed
 * schema. */
BK_API bk_status bk_ssz_registry_load_schema(bk_ssz_registry *reg, const char *json, size_t len,
                                             bk_error *err) BK_WARN_UNUSED;

/* Build (or find) the type a type string names. "Container:Name" or a bare
 * "Name" name a container: the caller's schemas first, then the registry's
 * fork (bk_ssz_registry_set_fork), then the ssz_generic test structs;
 * "fork:Name" names a fork's container. Progressive types:
 * ProgressiveList[T], ProgressiveByteList, ProgressiveBitlist (EIP-7916);
 * ProgressiveContainer via a schema (BK_SSZ_ACTIVE_FIELDS_KEY, EIP-7495).
 * CompatibleUnion[S1:T1,S2:T2,...] (EIP-8016): selectors 1..127 (any order,
 * each once), every two options of compatible Merkleization (as
 * @chainsafe/ssz's areTypesCompatible; docs/ssz.md); serialized as the
 * selector byte and the option's value, root = mix_in_selector(value root,
 * selector), JSON {"selector":"S","data":...}, paths "data" (gindex 2; below
 * it the fields of whichever option has them) and "selector" (3). *type_out
 * is owned by reg. BK_ERR_TYPE for a
 * malformed or illegal type: Vector[T,0], Bitvector[0], Union[None],
 * None other than as option 0 of a Union, a Union of more than 128 options,
 * a CompatibleUnion without options, with a selector outside 1..127 or
 * twice, or with incompatible options,
 * an unknown or recursive container, sizes beyond 2^62 bytes or depths beyond
 * 64 levels. List[T,0] is legal. err->offset is the character offset in str,
 * except for errors inside a schema's container (in a field's type string,
 * its active fields), whose message starts with "schema: " and whose offset
 * is the byte offset in the JSON text the container came from. */
BK_API bk_status bk_ssz_type_parse(bk_ssz_registry *reg, const char *str, const bk_ssz_type **type_out,
                                   bk_error *err) BK_WARN_UNUSED;

/* Canonical type string of t into buf (at most cap bytes, NUL-terminated);
 * returns the length it needs (like snprintf). */
BK_API size_t bk_ssz_type_name(const bk_ssz_type *t, char *buf, size_t cap);

/* Smallest and largest valid serialized sizes of t. */
BK_API uint64_t bk_ssz_min_size(const bk_ssz_type *t);
BK_API uint64_t bk_ssz_max_size(const bk_ssz_type *t);

/* ---- validation ---- */

/* Strictly check that data[0..len) is the canonical serialization of a value
 * of type t: every offset rule (first offset equals the fixed-part size,
 * offsets non-decreasing and within bounds), exact sizes, list lengths within
 * limits, element sizes dividing the list size, bitlist delimiter present and
 * length within the limit, bitvector padding bits zero, bool 0 or 1, union
 * selector in range and None without payload, no trailing bytes. Never reads
 * outside data[0..len). Allocates nothing. */
BK_API bk_status bk_ssz_validate(const bk_ssz_type *t, const uint8_t *data, size_t len, bk_error *err)
    BK_WARN_UNUSED;

/* ---- hashing ---- */

/* The number of 64-byte SHA-256 compressions the SSZ functions have done on
 * the calling thread (including pool workers' work for its calls): the
 * difference around a call is the SHA-256 work that call needed. */
BK_API uint64_t bk_ssz_compressions(void);

/* zero_hash[depth] (depth 0..64): the root of a tree of 2^depth zero chunks.
 * Returns NULL for depth > 64. The table is constant. */
BK_API const uint8_t *bk_ssz_zero_hash(unsigned depth);

/* out = SHA256(root || uint256_le(length)). out may equal root. */
BK_API void bk_ssz_mix_in_length(uint8_t out[32], const uint8_t root[32], uint64_t length);

/* A reusable hashing context: a fixed scratch (one 32-byte slot per tree
 * level and batch buffers) allocated once. Not thread-safe: one per thread.
 * scratch_bytes 0 = default (256 KiB); larger batches hash big lists a
 * little faster. */
typedef struct bk_ssz_hasher bk_ssz_hasher;

BK_API bk_status bk_ssz_hasher_create(bk_ssz_hasher **h_out, size_t scratch_bytes,
                                      const bk_allocator *alloc) BK_WARN_UNUSED;
BK_API void bk_ssz_hasher_free(bk_ssz_hasher *h);

/* A pool of threads for hashing one large value on several cores: a hasher
 * given a pool (bk_ssz_hasher_set_pool) splits every list or vector subtree
 * of 4096 chunks or more into pieces that the pool's threads and the calling
 * thread hash together (BeaconState validators, balances, participation).
 * nthreads counts the caller: 1 = no extra thread. Each worker thread has
 * its own hasher of scratch_bytes (0 = default); nothing is allocated per
 * call. The result equals the one-thread result bit for bit. One call at a
 * time may use a pool. BK_ERR_NOMEM, BK_ERR_IO (a thread could not start). */
typedef struct bk_ssz_pool bk_ssz_pool;
BK_API bk_status bk_ssz_pool_create(bk_ssz_pool **pool_out, unsigned nthreads, size_t scratch_bytes,
                                    const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_ssz_pool_free(bk_ssz_pool *pool);
BK_API unsigned bk_ssz_pool_threads(const bk_ssz_pool *pool);
/* NULL detaches. The pool must outlive its use by h. */
BK_API void bk_ssz_hasher_set_pool(bk_ssz_hasher *h, bk_ssz_pool *pool);


/* hash_tree_root of the serialized value data[0..len) of type t, validated
 * first (errors as bk_ssz_validate). With a hasher it allocates nothing;
 * h NULL: a temporary hasher is created (and freed) with the default
 * allocator. BK_ERR_BUFFER when a type nests so deep that the hasher's
 * scratch cannot hold its levels. */
BK_API bk_status bk_ssz_hash_tree_root(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data,
                                       size_t len, uint8_t out[32], bk_error *err) BK_WARN_UNUSED;

/* merkleize(chunks, limit) of the spec: n 32-byte chunks padded with zero
 * chunks to next_pow_of_two(limit) (limit UINT64_MAX: no limit, pad to
 * next_pow_of_two(n)). BK_ERR_LENGTH when n > limit or limit > 2^63.
 * h NULL: a temporary hasher, as above. */
BK_API bk_status bk_ssz_merkleize(bk_ssz_hasher *h, const uint8_t *chunks, uint64_t n, uint64_t limit,
                                  uint8_t out[32], bk_error *err) BK_WARN_UNUSED;

/* Append to w (a memory writer) a valid serialization of t with random
 * contents from seed (uint64 values below 2^52, exact as doubles in
 * JavaScript clients): every list (and bitlist) whose limit is at least
 * min_limit holds min(n, limit) elements (bits), every other list is empty.
 * E.g. n = 2^20, min_limit = 2^40: a BeaconState with 2^20 validators,
 * balances, participation flags and inactivity scores. The result is
 * validated before returning. BK_ERR_NOMEM; BK_ERR_LENGTH over 4 GiB. */
BK_API bk_status bk_ssz_synthesize(const bk_ssz_type *t, uint64_t n, uint64_t min_limit, uint64_t seed,
                                   bk_writer *w, bk_error *err) BK_WARN_UNUSED;

/* ---- incremental re-hashing: a cached tree over a container's bytes ----
 * The tree keeps a copy of the serialization, every top-level field's root,
 * and the levels of every large list or vector field (256 chunks or more at
 * its limit: a BeaconState's validators, balances, participation, scores,
 * mixes, roots). Edits write the bytes and mark what they touched;
 * bk_ssz_tree_root re-hashes only those paths (one balance of a 2^20-validator
 * state: 45 dependent pair hashes). Memory: about 64 bytes per cached composite
 * element (validator) and 32 bytes per 2 leaf chunks of packed lists, plus
 * the bytes. Progressive list fields are not cached (re-hashed from their
 * bytes when touched). */
typedef struct bk_ssz_tree bk_ssz_tree;
/* Validate data (a container of type t) and copy it; nothing is hashed
 * until the first bk_ssz_tree_root. BK_ERR_ARG when t is no container. */
BK_API bk_status bk_ssz_tree_create(bk_ssz_tree **tree_out, const bk_ssz_type *t, const uint8_t *data, size_t len,
                                    const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;
BK_API void bk_ssz_tree_free(bk_ssz_tree *tree);
/* The root now; the first call hashes everything (h's pool, if any, is
 * used), later ones only what changed. */
BK_API bk_status bk_ssz_tree_root(bk_ssz_tree *tree, bk_ssz_hasher *h, uint8_t out[32], bk_error *err)
    BK_WARN_UNUSED;
/* Overwrite the fixed-size value at path (field names and indices, as for
 * bk_ssz_gindex: {"balances","17"}, {"slot"}, {"validators","5",
 * "effective_balance"}) with n serialized bytes (validated for its type).
 * BK_ERR_NOT_FOUND for a missing field or an index past the end, BK_ERR_ARG
 * for a variable-size target, BK_ERR_LENGTH for a wrong size. */
BK_API bk_status bk_ssz_tree_set(bk_ssz_tree *tree, const char *const *path, size_t npath, const uint8_t *value,
                                 size_t n, bk_error *err) BK_WARN_UNUSED;
/* The index of the top-level field `name` (for bk_ssz_tree_set_elem, so a
 * loop of edits resolves the name once). BK_ERR_NOT_FOUND when absent. */
BK_API bk_status bk_ssz_tree_field(const bk_ssz_tree *tree, const char *name, size_t *field_out, bk_error *err)
    BK_WARN_UNUSED;
/* Overwrite element `index` of the list or vector field number `field`
 * (fixed-size elements: balances, validators, randao_mixes, ...) with n
 * serialized bytes (validated for the element type): the same edit as
 * bk_ssz_tree_set with the path {name, "index"}, without parsing a path.
 * BK_ERR_NOT_FOUND for a field or index past the end, BK_ERR_ARG for a field
 * that is no such list or vector, BK_ERR_LENGTH for a wrong size. */
BK_API bk_status bk_ssz_tree_set_elem(bk_ssz_tree *tree, size_t field, uint64_t index, const uint8_t *value,
                                      size_t n, bk_error *err) BK_WARN_UNUSED;
/* Append one fixed-size element (n serialized bytes) to the list field
 * `field` of the top-level container (validators, balances, ...); later
 * variable fields move. BK_ERR_LENGTH when the list is full. */
BK_API bk_status bk_ssz_tree_append(bk_ssz_tree *tree, const char *field, const uint8_t *value, size_t n,
                                    bk_error *err) BK_WARN_UNUSED;
/* A single-branch proof of generalized index g over the tree's current
 * value (as bk_ssz_prove: branch_out[0] the leaf's sibling, 64 entries of
 * room), its nodes taken from the cache where it holds them (a balance's
 * proof in a 2^20-validator state reads ~45 cached nodes instead of
 * re-hashing the list). */
BK_API bk_status bk_ssz_tree_prove(bk_ssz_tree *tree, bk_ssz_hasher *h, uint64_t g, uint8_t leaf_out[32],
                                   uint8_t (*branch_out)[32], unsigned *depth_out, bk_error *err) BK_WARN_UNUSED;
/* The current serialization (owned by the tree; valid until the next edit). */
BK_API const uint8_t *bk_ssz_tree_bytes(const bk_ssz_tree *tree, size_t *len_out);

/* ---- values (the JSON form of the consensus spec tests) ----
 * Integers are decimal strings, bool true/false, byte vectors/lists and
 * bitfields "0x" hex of their serialized bytes, containers objects keyed by
 * field name, unions {"selector":n,"value":...} (null for None). */

/* Validate data and append its value as compact JSON to w. */
BK_API bk_status bk_ssz_to_json(const bk_ssz_type *t, const uint8_t *data, size_t len, bk_writer *w,
                                bk_error *err) BK_WARN_UNUSED;

/* Parse a JSON value of type t and append its serialization to w (a memory
 * writer: one without a sink, as offsets are patched in place). The result is
 * validated: it is canonical or an error is returned (then w holds garbage
 * past its old length). err->offset is the offset in json; err->path names
 * the value. The text is checked against the JSON grammar first (a syntax
 * error anywhere is BK_ERR_INVALID "JSON: ..." before any type error), then
 * encoded straight from the text: memory beyond w is one slot per field of
 * each open container (more than 16 fields) and an unescaped copy of a
 * string with escapes, through alloc (NULL = default), freed before
 * returning. Field names are matched in O(log fields). */
BK_API bk_status bk_ssz_from_json(const bk_ssz_type *t, const char *json, size_t len, bk_writer *w,
                                  const bk_allocator *alloc, bk_error *err) BK_WARN_UNUSED;

/* ---- generalized indices and proofs (ssz/merkle-proofs.md) ---- */

/* Generalized index of a path (path[i] are field names, decimal list or
 * vector indices, or "__len__" for a list's or bitlist's length). Returns
 * BK_ERR_NOT_FOUND for an unknown field or an index past the limit,
 * BK_ERR_ARG for a path through a basic type or "__len__" on a non-list,
 * BK_ERR_OVERFLOW when the index needs more than 64 bits. */
BK_API bk_status bk_ssz_gindex(const bk_ssz_type *t, const char *const *path, size_t npath,
                               uint64_t *gindex_out, bk_error *err) BK_WARN_UNUSED;

/* Parse a generalized index given as text s[0..len): decimal digits only
 * (no sign, no white space), 1..2^64-1. BK_ERR_ARG otherwise, with the
 * character offset of the fault. */
BK_API bk_status bk_ssz_gindex_parse(const char *s, size_t len, uint64_t *gindex_out, bk_error *err)
    BK_WARN_UNUSED;

/* Generalized index of a dotted path text path[0..len) such as
 * "data.target.epoch" or "validators.3.__len__" (elements as for
 * bk_ssz_gindex, any number of them; "" is the root, gindex 1). Errors as
 * bk_ssz_gindex with err->offset the character offset of the element at
 * fault; an empty element ("a..b", a trailing dot) is BK_ERR_ARG. */
BK_API bk_status bk_ssz_path_gindex(const bk_ssz_type *t, const char *path, size_t len, uint64_t *gindex_out,
                                    bk_error *err) BK_WARN_UNUSED;

/* In this section a NULL hasher means a temporary one (default allocator,
 * created and freed inside the call). */

/* The node at generalized index g of the tree of value data (validated):
 * g = 1 is the root. Nodes inside zero padding are zero hashes; a path
 * below a padding chunk or a basic leaf is BK_ERR_NOT_FOUND. */
BK_API bk_status bk_ssz_node(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t len,
                             uint64_t g, uint8_t out[32], bk_error *err) BK_WARN_UNUSED;

/* Single-branch proof for g: leaf and branch[0..depth) with depth =
 * floor(log2(g)), branch[0] the leaf's sibling (is_valid_merkle_branch
 * order). branch must hold 64 entries; *depth_out receives the count. */
BK_API bk_status bk_ssz_prove(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t len,
                              uint64_t g, uint8_t leaf_out[32], uint8_t (*branch_out)[32],
                              unsigned *depth_out, bk_error *err) BK_WARN_UNUSED;

/* Spec is_valid_merkle_branch(leaf, branch, depth, index, root) with
 * index = g - 2^depth. Returns 1 when the branch proves leaf at g. */
BK_API int bk_ssz_verify_branch(const uint8_t leaf[32], const uint8_t (*branch)[32], unsigned depth,
                                uint64_t g, const uint8_t root[32]);

/* Spec get_helper_indices: the helper gindices of a multiproof for
 * indices[0..n), sorted descending, into helpers_out (capacity cap).
 * *nhelpers_out gets the count (BK_ERR_BUFFER when over cap; the count is
 * still reported). indices must be >= 1. The workspace (2 * 64 * n
 * uint64 entries) comes from the hasher's scratch (BK_ERR_BUFFER when it
 * does not fit); nothing is allocated. */
BK_API bk_status bk_ssz_helper_indices(bk_ssz_hasher *h, const uint64_t *indices, size_t n,
                                       uint64_t *helpers_out, size_t cap, size_t *nhelpers_out,
                                       bk_error *err) BK_WARN_UNUSED;

/* Spec calculate_multi_merkle_root: root of leaves at indices with the
 * proof nodes at the helper indices of bk_ssz_helper_indices (same order).
 * Work space from the hasher's scratch. BK_ERR_ARG when the counts do not
 * match, BK_ERR_INVALID when the proof does not determine the root. */
BK_API bk_status bk_ssz_multi_root(bk_ssz_hasher *h, const uint8_t (*leaves)[32], const uint64_t *indices,
                                   size_t n, const uint8_t (*proof)[32], size_t nproof, uint8_t root_out[32],
                                   bk_error *err) BK_WARN_UNUSED;

/* Proof documents (JSON). One index: {"gindex":"88","depth":6,
 * "leaf":"0x..","branch":["0x..",...],"root":"0x.."} (branch in
 * is_valid_merkle_branch order). Several: {"gindices":[...],
 * "helper_indices":[...],"leaves":[...],"proof":[...],"root":"0x.."}
 * (helpers in get_helper_indices order). Appended to w. */
BK_API bk_status bk_ssz_proof_to_json(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t len,
                                      const uint64_t *gindices, size_t n, bk_writer *w, bk_error *err)
    BK_WARN_UNUSED;

/* Check a proof document of either form against root (NULL: against the
 * document's own "root" member). BK_OK when it proves its leaves,
 * BK_ERR_MISMATCH when it does not, BK_ERR_INVALID for a malformed
 * document. When gindex_want is not 0, a single-branch document must be for
 * that index (BK_ERR_MISMATCH otherwise). The parser allocates through alloc
 * (NULL = default) and frees before returning. */
BK_API bk_status bk_ssz_proof_verify_json(bk_ssz_hasher *h, const char *json, size_t len, const uint8_t *root,
                                          uint64_t gindex_want, const bk_allocator *alloc, bk_error *err)
    BK_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
