/* SSZ types: type strings, container schemas, the type registry.
 * Legality rules from ethereum/consensus-specs ssz/simple-serialize.md
 * ("Illegal types": empty vectors and bitvectors, containers without
 * fields, Union[None], None outside option 0, more than 128 options). */
#include "ssz_internal.h"

#include <stdio.h>
#include <string.h>

#include "forks_generated.inc"
#include "generic_schema.inc"

#define MAX_LENGTH (UINT64_C(1) << 56)   /* N and limits; keeps sizes in 64 bits */
#define MAX_SIZE (UINT64_C(1) << 62)
#define MAX_NEST 64                      /* type string nesting */
#define CACHE_BUCKETS 256

typedef struct schema {
    const char *name;
    const bk_sjson *fields;     /* array of [name, type] pairs */
    const bk_ssz_type *built;
    int building;
    int builtin;                /* from the built-in tables, not the caller */
    struct schema *next;
} schema;

typedef struct cache_entry {
    const char *str;
    const bk_ssz_type *type;
    struct cache_entry *next;
} cache_entry;

struct bk_ssz_registry {
    bk_arena arena;
    schema *schemas;
    cache_entry *cache[CACHE_BUCKETS];
    bk_ssz_type basic[8];       /* uint8..uint256, bool, byte */
    int preset;                 /* index into bk_ssz_fork_schemas */
    int fork;                   /* the fork of unqualified container names */
    uint32_t forks_loaded;      /* bit per fork whose table is in schemas */
};

static bk_status load_schema(bk_ssz_registry *reg, const char *json, size_t len, int builtin, bk_error *err);
static bk_status parse_active_fields(bk_error *err, const char *cname, const bk_sjson *v, uint8_t bits[32],
                                     uint32_t *nbits, size_t nactive);

static void init_basic(bk_ssz_type *t, bk_ssz_kind k, uint32_t size, const char *name)
{
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->size = size;
    t->fixed_size = size;
    t->fixed_any = k == BK_SSZ_UINT;
    t->chunk_count = 1;
    t->name = name;
}

bk_status bk_ssz_registry_create(bk_ssz_registry **reg_out, const bk_allocator *alloc)
{
    *reg_out = NULL;
    bk_ssz_registry *r = bk_alloc(alloc, sizeof *r);
    if (!r) return BK_ERR_NOMEM;
    memset(r, 0, sizeof *r);
    bk_arena_init(&r->arena, alloc);
    static const char *names[6] = {"uint8", "uint16", "uint32", "uint64", "uint128", "uint256"};
    for (int i = 0; i < 6; i++) init_basic(&r->basic[i], BK_SSZ_UINT, 1u << i, names[i]);
    init_basic(&r->basic[6], BK_SSZ_BOOL, 1, "bool");
    init_basic(&r->basic[7], BK_SSZ_UINT, 1, "byte");
    bk_status st = load_schema(r, bk_ssz_builtin_schema, sizeof bk_ssz_builtin_schema - 1, 1, NULL);
    if (st != BK_OK) {
        bk_ssz_registry_free(r);
        return st;
    }
    *reg_out = r;
    return BK_OK;
}

void bk_ssz_registry_free(bk_ssz_registry *reg)
{
    if (!reg) return;
    const bk_allocator *a = reg->arena.alloc;
    bk_arena_free(&reg->arena);
    bk_free(a, reg, sizeof *reg);
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Order of field nodes by name, ties by position in the text. */
static int node_less(const bk_sjson *a, const bk_sjson *b)
{
    int c = strcmp(a->child->str, b->child->str);
    return c < 0 || (c == 0 && a->off < b->off);
}

static void node_sift(const bk_sjson **v, size_t root, size_t n)
{
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n) return;
        if (c + 1 < n && node_less(v[c], v[c + 1])) c++;
        if (!node_less(v[root], v[c])) return;
        const bk_sjson *t = v[root];
        v[root] = v[c];
        v[c] = t;
        root = c;
    }
}

/* Among the first n fields of the list starting at f, the earliest one whose
 * name an earlier field already has (*dup_out NULL when none): a heap sort
 * of the names, n log n. */
static bk_status first_duplicate(const bk_allocator *alloc, const bk_sjson *f, size_t n, const bk_sjson **dup_out)
{
    *dup_out = NULL;
    if (n < 2) return BK_OK;
    const bk_sjson **v = bk_alloc(alloc, n * sizeof *v);
    if (!v) return BK_ERR_NOMEM;
    for (size_t i = 0; i < n; i++, f = f->next) v[i] = f;
    for (size_t i = n / 2; i-- > 0;) node_sift(v, i, n);
    for (size_t i = n; i-- > 1;) {
        const bk_sjson *t = v[0];
        v[0] = v[i];
        v[i] = t;
        node_sift(v, 0, i);
    }
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i - 1]->child->str, v[i]->child->str) == 0 && (i < 2 || strcmp(v[i - 2]->child->str, v[i]->child->str) != 0) &&
            (!*dup_out || v[i]->off < (*dup_out)->off))
            *dup_out = v[i];
    bk_free(alloc, v, n * sizeof *v);
    return BK_OK;
}

size_t bk_ssz_fork_count(void) { return BK_SSZ_N_FORKS; }

const char *bk_ssz_fork_name(size_t i) { return i < BK_SSZ_N_FORKS ? bk_ssz_fork_names[i] : NULL; }

static int fork_index(const char *name, size_t n)
{
    for (int i = 0; i < BK_SSZ_N_FORKS; i++)
        if (strlen(bk_ssz_fork_names[i]) == n && memcmp(bk_ssz_fork_names[i], name, n) == 0) return i;
    return -1;
}

bk_status bk_ssz_registry_set_fork(bk_ssz_registry *reg, const char *fork, bk_error *err)
{
    int i = fork ? fork_index(fork, strlen(fork)) : -1;
    if (i < 0) {
        char list[256];
        size_t n = 0;
        for (int k = 0; k < BK_SSZ_N_FORKS && n < sizeof list; k++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", bk_ssz_fork_names[k]);
        return bk_error_set(err, BK_ERR_ARG, 0, "unknown fork '%s' (forks: %s)", fork ? fork : "(null)", list);
    }
    reg->fork = i;
    memset(reg->cache, 0, sizeof reg->cache); /* unqualified names may now mean other types */
    return BK_OK;
}

bk_status bk_ssz_registry_set_preset(bk_ssz_registry *reg, const char *preset, bk_error *err)
{
    int p = preset && !strcmp(preset, "mainnet") ? 0 : preset && !strcmp(preset, "minimal") ? 1 : -1;
    if (p < 0) return bk_error_set(err, BK_ERR_ARG, 0, "unknown preset '%s' (mainnet, minimal)", preset ? preset : "(null)");
    if (reg->forks_loaded && p != reg->preset)
        return bk_error_set(err, BK_ERR_ARG, 0, "the preset must be chosen before fork containers are used");
    reg->preset = p;
    return BK_OK;
}

/* Make fork i's containers available (once per registry). */
static bk_status need_fork(bk_ssz_registry *reg, int i, bk_error *err)
{
    if (reg->forks_loaded >> i & 1) return BK_OK;
    bk_status st = load_schema(reg, bk_ssz_fork_schemas[reg->preset][i], bk_ssz_fork_schema_lens[reg->preset][i], 1, err);
    if (st == BK_OK) reg->forks_loaded |= UINT32_C(1) << i;
    return st;
}

bk_status bk_ssz_registry_load_schema(bk_ssz_registry *reg, const char *json, size_t len, bk_error *err)
{
    return load_schema(reg, json, len, 0, err);
}

/* builtin: the generated tables, whose names are fork-qualified ("fork:Name"). */
static bk_status load_schema(bk_ssz_registry *reg, const char *json, size_t len, int builtin, bk_error *err)
{
    bk_sjson *root;
    /* Syntax first, without allocating (nothing is kept from a bad text). */
    bk_status st = bk_sjson_check(json, len, NULL, err);
    if (st == BK_OK) st = bk_sjson_parse(&reg->arena, json, len, &root, err);
    if (st != BK_OK) {
        if (st == BK_ERR_NOMEM) return st;
        if (!err) return BK_ERR_TYPE;
        /* Copy first: formatting err->msg into itself overlaps (finding 07). */
        char msg[BK_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return bk_error_set(err, BK_ERR_TYPE, err->offset, "schema: %s", msg);
    }
    if (root->kind != BK_SJSON_OBJECT) return bk_error_set(err, BK_ERR_TYPE, root->off, "schema: not an object");
    /* Check everything first so a bad schema adds nothing. */
    for (const bk_sjson *c = root->child; c; c = c->next) {
        if (c->keylen == 0) return bk_error_set(err, BK_ERR_TYPE, c->off, "schema: empty container name");
        for (size_t i = 0; i < c->keylen; i++)
            if (!is_name_char(c->key[i]) && !(builtin && c->key[i] == ':'))
                return bk_error_set(err, BK_ERR_TYPE, c->off, "schema: bad container name \"%s\"", c->key);
        if (c->kind != BK_SJSON_ARRAY)
            return bk_error_set(err, BK_ERR_TYPE, c->off, "schema: %s: fields must be an array", c->key);
        /* simple-serialize.md: containers with no fields are illegal. */
        if (c->n == 0) return bk_error_set(err, BK_ERR_TYPE, c->off, "schema: %s: container without fields", c->key);
        /* The first malformed field, and before it the first field that
         * repeats an earlier name (sorted, not pairwise: finding 08). */
        const bk_sjson *bad = NULL;
        size_t nok = 0;
        for (const bk_sjson *f = c->child; f && !bad; f = f->next, nok++)
            if (f->kind != BK_SJSON_ARRAY || f->n != 2 || f->child->kind != BK_SJSON_STRING ||
                f->child->next->kind != BK_SJSON_STRING || f->child->len == 0)
                bad = f;
        if (bad) nok--;
        const bk_sjson *dup = NULL;
        st = first_duplicate(reg->arena.alloc, c->child, nok, &dup);
        if (st != BK_OK) return bk_error_set(err, st, c->off, "out of memory");
        if (dup)
            return bk_error_set(err, BK_ERR_TYPE, dup->off, "schema: %s: duplicate field %s", c->key, dup->child->str);
        if (bad) return bk_error_set(err, BK_ERR_TYPE, bad->off, "schema: %s: a field is [\"name\",\"type\"]", c->key);
        /* EIP-7495: the active-fields marker comes first; its bits are
         * checked here, where the error can name its place in the text. */
        for (const bk_sjson *f = c->child->next; f; f = f->next)
            if (strcmp(f->child->str, BK_SSZ_ACTIVE_FIELDS_KEY) == 0)
                return bk_error_set(err, BK_ERR_TYPE, f->off, "schema: %s: %s must be the first member", c->key,
                                    BK_SSZ_ACTIVE_FIELDS_KEY);
        if (strcmp(c->child->child->str, BK_SSZ_ACTIVE_FIELDS_KEY) == 0) {
            uint8_t bits[32];
            uint32_t nbits;
            st = parse_active_fields(err, c->key, c->child->child->next, bits, &nbits, c->n - 1);
            if (st != BK_OK) return st;
        }
    }
    for (const bk_sjson *c = root->child; c; c = c->next) {
        schema *s = bk_arena_alloc(&reg->arena, sizeof *s);
        if (!s) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        s->name = c->key;
        s->fields = c;
        s->builtin = builtin;
        s->next = reg->schemas;
        reg->schemas = s;
    }
    /* Cached type strings may name replaced containers: forget them. */
    memset(reg->cache, 0, sizeof reg->cache);
    return BK_OK;
}

/* ---- type string parser ---- */

typedef struct tparser {
    bk_ssz_registry *reg;
    const char *s;
    size_t pos;
    size_t base;        /* offset of s in the original string (for errors) */
    bk_error *err;
} tparser;

static bk_status parse_type(tparser *p, const bk_ssz_type **out, int depth, int none_ok);

static bk_status terr(tparser *p, const char *msg, const char *detail)
{
    return bk_error_set(p->err, BK_ERR_TYPE, p->base + p->pos, "type: %s%s%s", msg, detail ? ": " : "",
                        detail ? detail : "");
}

static int eat(tparser *p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(p->s + p->pos, lit, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

/* A keyword that is a whole name (so "bool" does not match "boolean"). */
static int eat_word(tparser *p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(p->s + p->pos, word, n) == 0 && !is_name_char(p->s[p->pos + n])) {
        p->pos += n;
        return 1;
    }
    return 0;
}

static bk_status parse_num(tparser *p, uint64_t *out)
{
    const char *s = p->s + p->pos;
    if (*s < '0' || *s > '9') return terr(p, "expected a decimal number", NULL);
    if (*s == '0' && s[1] >= '0' && s[1] <= '9') return terr(p, "leading zero in a number", NULL);
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > MAX_LENGTH) return terr(p, "length over 2^56", NULL);
        s++;
    }
    p->pos = (size_t)(s - p->s);
    *out = v;
    return BK_OK;
}

static unsigned ceil_log2(uint64_t n)
{
    unsigned d = 0;
    while (d < 64 && (UINT64_C(1) << d) < n) d++;
    return d;
}

static bk_ssz_type *new_type(tparser *p, bk_ssz_kind k)
{
    bk_ssz_type *t = bk_arena_alloc(&p->reg->arena, sizeof *t);
    if (t) t->kind = k;
    else bk_error_set(p->err, BK_ERR_NOMEM, 0, "out of memory");
    return t;
}

/* Fill the derived sizes of a vector/list/bitfield. */
static bk_status finish_seq(tparser *p, bk_ssz_type *t)
{
    const bk_ssz_type *e = t->elem;
    if (t->kind == BK_SSZ_BITVECTOR || t->kind == BK_SSZ_BITLIST) {
        t->chunk_count = (t->length + 255) / 256;
        t->fixed_size = t->kind == BK_SSZ_BITVECTOR ? (t->length + 7) / 8 : 0;
        t->is_variable = t->kind == BK_SSZ_BITLIST;
        t->fixed_any = t->kind == BK_SSZ_BITVECTOR && t->length % 8 == 0;
    } else {
        if (bk_ssz_is_basic(e)) {
            t->chunk_count = (t->length * e->size + 31) / 32;
        } else {
            t->chunk_count = t->length;
        }
        if (t->kind == BK_SSZ_VECTOR) {
            t->is_variable = e->is_variable;
            uint64_t es = e->is_variable ? 4 : e->fixed_size;
            if (es && t->length > MAX_SIZE / es) return terr(p, "vector size over 2^62 bytes", NULL);
            t->fixed_size = t->length * es;
            t->fixed_any = e->fixed_any;
        } else {
            t->is_variable = 1;
            t->fixed_size = 0;
            /* The largest encoding must stay addressable by 64-bit sizes. */
            if (!e->is_variable && e->fixed_size && t->length > MAX_SIZE / e->fixed_size)
                return terr(p, "list size over 2^62 bytes", NULL);
        }
    }
    t->depth = ceil_log2(t->chunk_count);
    t->plan = t->progressive ? NULL : bk_ssz_plan_build(&p->reg->arena, p->reg->arena.alloc, t);
    return BK_OK;
}

/* "ProgressiveContainer[1,0,1,...]": EIP-7495's active_fields, at most 256
 * bits, the last one set, with exactly `nactive` ones (the fields that
 * follow the marker in the schema). v is the marker's type string in the
 * schema text: errors are "schema: ..." with their byte offset there (the
 * string's offset plus the character's position in it). */
static bk_status parse_active_fields(bk_error *err, const char *cname, const bk_sjson *v, uint8_t bits[32],
                                     uint32_t *nbits, size_t nactive)
{
    const char *str = v->str;
    uint64_t at = v->off + 1;
    const char *kw = "ProgressiveContainer[";
    size_t pos = strlen(kw);
    if (strncmp(str, kw, pos) != 0)
        return bk_error_set(err, BK_ERR_TYPE, v->off, "schema: %s: %s must be ProgressiveContainer[bits]", cname,
                            BK_SSZ_ACTIVE_FIELDS_KEY);
    uint32_t n = 0;
    size_t ones = 0;
    memset(bits, 0, 32);
    for (;;) {
        char c = str[pos];
        if (c != '0' && c != '1')
            return bk_error_set(err, BK_ERR_TYPE, at + pos, "schema: %s: active fields: expected 0 or 1", cname);
        if (n == 256)
            return bk_error_set(err, BK_ERR_TYPE, at + pos, "schema: %s: more than 256 active-field bits", cname);
        if (c == '1') {
            bits[n / 8] |= (uint8_t)(1u << (n % 8));
            ones++;
        }
        n++;
        pos++;
        if (str[pos] == ']') {
            pos++;
            break;
        }
        if (str[pos] != ',')
            return bk_error_set(err, BK_ERR_TYPE, at + pos, "schema: %s: active fields: expected ',' or ']'", cname);
        pos++;
    }
    if (str[pos]) return bk_error_set(err, BK_ERR_TYPE, at + pos, "schema: %s: text after the active fields", cname);
    if (!(bits[(n - 1) / 8] >> ((n - 1) % 8) & 1))
        return bk_error_set(err, BK_ERR_TYPE, at + pos - 2, "schema: %s: the last active-field bit must be 1", cname);
    if (ones != nactive)
        return bk_error_set(err, BK_ERR_TYPE, v->off, "schema: %s: %zu active-field bits set for %zu fields", cname,
                            ones, nactive);
    *nbits = n;
    return BK_OK;
}

/* Sort idx[0..n) by fields[idx].name (heap sort: no recursion, no
 * allocation, n log n). */
static int field_less(const bk_ssz_field *f, uint32_t a, uint32_t b)
{
    return strcmp(f[a].name, f[b].name) < 0;
}

static void sift(uint32_t *idx, const bk_ssz_field *f, size_t root, size_t n)
{
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n) return;
        if (c + 1 < n && field_less(f, idx[c], idx[c + 1])) c++;
        if (!field_less(f, idx[root], idx[c])) return;
        uint32_t t = idx[root];
        idx[root] = idx[c];
        idx[c] = t;
        root = c;
    }
}

static void sort_fields(uint32_t *idx, const bk_ssz_field *f, size_t n)
{
    for (size_t i = n / 2; i-- > 0;) sift(idx, f, i, n);
    for (size_t i = n; i-- > 1;) {
        uint32_t t = idx[0];
        idx[0] = idx[i];
        idx[i] = t;
        sift(idx, f, 0, i);
    }
}

static bk_status build_container(tparser *p, schema *s, const bk_ssz_type **out, int depth)
{
    if (s->built) {
        *out = s->built;
        return BK_OK;
    }
    if (s->building) return terr(p, "recursive container", s->name);
    if (depth > MAX_NEST) return terr(p, "type nests too deep", NULL);
    s->building = 1;
    bk_ssz_type *t = new_type(p, BK_SSZ_CONTAINER);
    const bk_sjson *first = s->fields->child;
    size_t nf = s->fields->n;
    uint8_t *active = NULL;
    uint32_t nbits = 0;
    bk_status st = BK_OK;
    if (t && strcmp(first->child->str, BK_SSZ_ACTIVE_FIELDS_KEY) == 0) {
        /* EIP-7495 ProgressiveContainer: the marker, then the active fields. */
        active = bk_arena_alloc(&p->reg->arena, 32);
        if (!active) {
            st = bk_error_set(p->err, BK_ERR_NOMEM, 0, "out of memory");
            goto done;
        }
        st = parse_active_fields(p->err, s->name, first->child->next, active, &nbits, nf - 1);
        if (st != BK_OK) goto done;
        first = first->next;
        nf--;
        t->progressive = 1;
        t->active_fields = active;
        t->active_bits = nbits;
    }
    bk_ssz_field *fields = t ? bk_arena_alloc(&p->reg->arena, nf * sizeof *fields) : NULL;
    if (!fields) {
        st = bk_error_set(p->err, BK_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    size_t i = 0;
    uint64_t fixed = 0;
    uint32_t pos = 0;
    for (const bk_sjson *f = first; f; f = f->next, i++) {
        if (active)
            while (!(active[pos / 8] >> (pos % 8) & 1)) pos++;
        fields[i].chunk = active ? pos++ : i;
        tparser sub = {p->reg, f->child->next->str, 0, 0, p->err};
        st = parse_type(&sub, &fields[i].type, depth + 1, 0);
        if (st == BK_OK && sub.s[sub.pos]) st = terr(&sub, "text after the type", NULL);
        if (st != BK_OK) {
            /* An error in this field's type string: its place in the schema
             * text (the string's offset plus the position in it). An error
             * from a container it names already has its own. */
            if (p->err && st == BK_ERR_TYPE && strncmp(p->err->msg, "schema: ", 8) != 0) {
                char msg[BK_ERROR_MSG_MAX];
                snprintf(msg, sizeof msg, "%s", p->err->msg);
                bk_error_set(p->err, BK_ERR_TYPE, f->child->next->off + 1 + p->err->offset, "schema: %s.%s: %s",
                             s->name, f->child->str, msg);
            }
            goto done;
        }
        fields[i].name = f->child->str;
        fields[i].offset = fixed;
        if (fields[i].type->is_variable) t->is_variable = 1;
        fixed += fields[i].type->is_variable ? 4 : fields[i].type->fixed_size;
        if (fixed > MAX_SIZE) {
            st = terr(p, "container size over 2^62 bytes", s->name);
            goto done;
        }
    }
    size_t next = nf;
    for (size_t j = nf; j-- > 0;) {
        fields[j].next_var = next;
        if (fields[j].type->is_variable) next = j;
    }
    t->fixed_any = !t->is_variable;
    for (size_t j = 0; j < nf; j++)
        if (!fields[j].type->fixed_any) t->fixed_any = 0;
    t->fields = fields;
    t->nfields = nf;
    {
        uint32_t *order = nf <= UINT32_MAX ? bk_arena_alloc(&p->reg->arena, nf * sizeof *order) : NULL;
        if (order) {
            for (size_t j = 0; j < nf; j++) order[j] = (uint32_t)j;
            sort_fields(order, fields, nf);
            t->field_order = order;
        }
    }
    t->fixed_size = fixed;
    t->chunk_count = active ? nbits : t->nfields;
    t->depth = ceil_log2(t->chunk_count);
    t->name = s->name;
    /* A progressive tree has no fixed shape for a plan (hash.c hashes it). */
    t->plan = active ? NULL : bk_ssz_plan_build(&p->reg->arena, p->reg->arena.alloc, t);
    s->built = t;
    *out = t;
done:
    s->building = 0;
    return st;
}

/* EIP-8016 "compatible Merkleization" (as @chainsafe/ssz's areTypesCompatible):
 * a type with itself, byte with uint8 (uints of one width), bitlists and
 * bitvectors of one capacity, lists and vectors of one capacity and
 * compatible elements, progressive lists (bitlists) of compatible elements,
 * containers with the same field names in order and compatible field types,
 * ProgressiveContainers whose fields at a position they share have one name
 * and compatible types and whose shared names sit at one position,
 * CompatibleUnions whose options are pairwise compatible. Two Unions: the
 * same number of options, pairwise compatible. *work counts comparisons (the
 * caller refuses the type past COMPAT_WORK_MAX, so nested unions of many
 * options cannot take exponential time). */
#define COMPAT_WORK_MAX 1000000UL
static int types_compatible(const bk_ssz_type *a, const bk_ssz_type *b, unsigned long *work)
{
    if (a == b) return 1;
    if (++*work > COMPAT_WORK_MAX) return 0;
    if (a->kind != b->kind || a->progressive != b->progressive) return 0;
    switch (a->kind) {
    case BK_SSZ_UINT: return a->size == b->size;
    case BK_SSZ_BOOL:
    case BK_SSZ_NONE: return 1;
    case BK_SSZ_BITVECTOR:
    case BK_SSZ_BITLIST: return a->progressive || a->length == b->length;
    case BK_SSZ_VECTOR:
    case BK_SSZ_LIST:
        return (a->progressive || a->length == b->length) && types_compatible(a->elem, b->elem, work);
    case BK_SSZ_UNION:
        if (a->compatible != b->compatible) return 0;
        if (a->compatible) {
            for (size_t i = 0; i < a->nfields; i++)
                for (size_t j = 0; j < b->nfields; j++)
                    if (a->fields[i].type && b->fields[j].type &&
                        !types_compatible(a->fields[i].type, b->fields[j].type, work))
                        return 0;
            return 1;
        }
        if (a->nfields != b->nfields) return 0;
        for (size_t i = 0; i < a->nfields; i++)
            if (!types_compatible(a->fields[i].type, b->fields[i].type, work)) return 0;
        return 1;
    case BK_SSZ_CONTAINER:
        if (!a->progressive) {
            if (a->nfields != b->nfields) return 0;
            for (size_t i = 0; i < a->nfields; i++)
                if (strcmp(a->fields[i].name, b->fields[i].name) != 0 ||
                    !types_compatible(a->fields[i].type, b->fields[i].type, work))
                    return 0;
            return 1;
        }
        for (size_t i = 0; i < a->nfields; i++) {
            *work += b->nfields;
            for (size_t j = 0; j < b->nfields; j++) {
                int same_pos = a->fields[i].chunk == b->fields[j].chunk;
                int same_name = strcmp(a->fields[i].name, b->fields[j].name) == 0;
                if (same_pos != same_name) return 0;
                if (same_pos && !types_compatible(a->fields[i].type, b->fields[j].type, work)) return 0;
            }
        }
        return 1;
    }
    return 0;
}

static schema *find_schema(bk_ssz_registry *reg, const char *name, size_t n, int builtin)
{
    for (schema *s = reg->schemas; s; s = s->next)
        if (s->builtin == builtin && strlen(s->name) == n && memcmp(s->name, name, n) == 0) return s;
    return NULL;
}

/* After "CompatibleUnion[": EIP-8016's selector:type pairs, selectors
 * 1..127, every two options of compatible Merkleization. */
static bk_status parse_compatible_union(tparser *p, const bk_ssz_type **out, int depth)
{
    const bk_ssz_type *opts[128] = {0};
    size_t maxsel = 0;
    if (p->s[p->pos] == ']') return terr(p, "illegal type: CompatibleUnion without options", NULL);
    for (;;) {
        size_t at = p->pos;
        uint64_t sel;
        bk_status st = parse_num(p, &sel);
        if (st != BK_OK) return st;
        if (sel < 1 || sel > 127) {
            p->pos = at;
            return terr(p, "illegal type: a CompatibleUnion selector is 1..127", NULL);
        }
        if (opts[sel]) {
            p->pos = at;
            return terr(p, "illegal type: CompatibleUnion selector given twice", NULL);
        }
        if (!eat(p, ":")) return terr(p, "expected ':' after a CompatibleUnion selector", NULL);
        st = parse_type(p, &opts[sel], depth + 1, 0);
        if (st != BK_OK) return st;
        if (sel > maxsel) maxsel = (size_t)sel;
        if (eat(p, "]")) break;
        if (!eat(p, ",")) return terr(p, "expected ',' or ']'", NULL);
    }
    unsigned long work = 0;
    for (size_t a = 1; a <= maxsel; a++)
        for (size_t b = a + 1; b <= maxsel; b++) {
            if (!opts[a] || !opts[b]) continue;
            int c = types_compatible(opts[a], opts[b], &work);
            if (work > COMPAT_WORK_MAX)
                return terr(p, "illegal type: CompatibleUnion options too many to compare", NULL);
            if (!c) {
                char detail[64];
                snprintf(detail, sizeof detail, "options %zu and %zu", a, b);
                return terr(p, "illegal type: CompatibleUnion options of incompatible Merkleization", detail);
            }
        }
    bk_ssz_type *t = new_type(p, BK_SSZ_UNION);
    bk_ssz_field *f = t ? bk_arena_alloc(&p->reg->arena, (maxsel + 1) * sizeof *f) : NULL;
    if (!f) return bk_error_set(p->err, BK_ERR_NOMEM, 0, "out of memory");
    for (size_t i = 0; i <= maxsel; i++) {
        f[i].name = "";
        f[i].type = opts[i];
        f[i].chunk = i;
    }
    t->fields = f;
    t->nfields = maxsel + 1;
    t->compatible = 1;
    t->is_variable = 1;
    t->chunk_count = 1;
    *out = t;
    return BK_OK;
}

static bk_status parse_type(tparser *p, const bk_ssz_type **out, int depth, int none_ok)
{
    if (depth > MAX_NEST) return terr(p, "type nests too deep", NULL);
    static const char *uints[6] = {"uint8", "uint16", "uint32", "uint64", "uint128", "uint256"};
    for (int i = 0; i < 6; i++) {
        if (eat_word(p, uints[i])) {
            *out = &p->reg->basic[i];
            return BK_OK;
        }
    }
    if (eat_word(p, "bool")) {
        *out = &p->reg->basic[6];
        return BK_OK;
    }
    if (eat_word(p, "None")) {
        if (!none_ok) return terr(p, "None is legal only as option 0 of a Union", NULL);
        bk_ssz_type *t = new_type(p, BK_SSZ_NONE);
        if (!t) return BK_ERR_NOMEM;
        t->name = "None";
        t->is_variable = 0;
        *out = t;
        return BK_OK;
    }
    /* EIP-7916: no limit in the type; 2^32 - 1 elements (bits) at most, as
     * offsets and @chainsafe/ssz cap them. */
    int prog_bits = eat_word(p, "ProgressiveBitlist");
    int prog_bytes = !prog_bits && eat_word(p, "ProgressiveByteList");
    int prog_list = !prog_bits && !prog_bytes && eat(p, "ProgressiveList[");
    if (prog_bits || prog_bytes || prog_list) {
        bk_ssz_type *t = new_type(p, prog_bits ? BK_SSZ_BITLIST : BK_SSZ_LIST);
        if (!t) return BK_ERR_NOMEM;
        t->progressive = 1;
        t->length = BK_SSZ_PROGRESSIVE_MAX;
        /* An optional validation cap, ProgressiveList[T,N] / ProgressiveBitlist[N]
         * / ProgressiveByteList[N]: the tree is the same, longer values are
         * invalid (as @lodestar/types checks MAX_* of EIP-7688 lists). */
        int capped = 0;
        if (prog_list) {
            bk_status st = parse_type(p, &t->elem, depth + 1, 0);
            if (st != BK_OK) return st;
            capped = eat(p, ",");
        } else {
            if (prog_bytes) t->elem = &p->reg->basic[7];
            capped = eat(p, "[");
        }
        if (capped) {
            bk_status st = parse_num(p, &t->length);
            if (st != BK_OK) return st;
            if (t->length > BK_SSZ_PROGRESSIVE_MAX) return terr(p, "progressive cap over 2^32 - 1", NULL);
        }
        if ((prog_list || capped) && !eat(p, "]")) return terr(p, "expected ']'", NULL);
        if (t->elem == &p->reg->basic[7]) t->is_bytes = 1;
        bk_status st = finish_seq(p, t);
        if (st != BK_OK) return st;
        *out = t;
        return BK_OK;
    }
    struct { const char *kw; bk_ssz_kind kind; int elem; int bytes; } seqs[] = {
        {"Vector[", BK_SSZ_VECTOR, 1, 0}, {"List[", BK_SSZ_LIST, 1, 0},
        {"ByteVector[", BK_SSZ_VECTOR, 0, 1}, {"ByteList[", BK_SSZ_LIST, 0, 1},
        {"Bitvector[", BK_SSZ_BITVECTOR, 0, 0}, {"Bitlist[", BK_SSZ_BITLIST, 0, 0},
    };
    for (size_t k = 0; k < sizeof seqs / sizeof seqs[0]; k++) {
        if (!eat(p, seqs[k].kw)) continue;
        bk_ssz_type *t = new_type(p, seqs[k].kind);
        if (!t) return BK_ERR_NOMEM;
        if (seqs[k].elem) {
            bk_status st = parse_type(p, &t->elem, depth + 1, 0);
            if (st != BK_OK) return st;
            if (!eat(p, ",")) return terr(p, "expected ','", NULL);
        } else if (seqs[k].bytes) {
            t->elem = &p->reg->basic[7];
        }
        if (t->elem && t->elem == &p->reg->basic[7]) t->is_bytes = 1;
        bk_status st = parse_num(p, &t->length);
        if (st != BK_OK) return st;
        if (!eat(p, "]")) return terr(p, "expected ']'", NULL);
        /* simple-serialize.md: Vector[T,0] and Bitvector[0] are illegal. */
        if (t->length == 0 && (t->kind == BK_SSZ_VECTOR || t->kind == BK_SSZ_BITVECTOR))
            return terr(p, "illegal type: zero-length vector", NULL);
        st = finish_seq(p, t);
        if (st != BK_OK) return st;
        *out = t;
        return BK_OK;
    }
    if (eat(p, "CompatibleUnion[")) return parse_compatible_union(p, out, depth);
    if (eat(p, "Union[")) {
        const bk_ssz_type *opts[129];
        size_t n = 0;
        for (;;) {
            if (n == 129) return terr(p, "illegal type: Union of more than 128 options", NULL);
            bk_status st = parse_type(p, &opts[n], depth + 1, n == 0);
            if (st != BK_OK) return st;
            n++;
            if (eat(p, "]")) break;
            if (!eat(p, ",")) return terr(p, "expected ',' or ']'", NULL);
        }
        if (n > 128) return terr(p, "illegal type: Union of more than 128 options", NULL);
        if (n == 1 && opts[0]->kind == BK_SSZ_NONE) return terr(p, "illegal type: Union[None]", NULL);
        bk_ssz_type *t = new_type(p, BK_SSZ_UNION);
        bk_ssz_field *f = t ? bk_arena_alloc(&p->reg->arena, n * sizeof *f) : NULL;
        if (!f) return bk_error_set(p->err, BK_ERR_NOMEM, 0, "out of memory");
        for (size_t i = 0; i < n; i++) {
            f[i].name = "";
            f[i].type = opts[i];
        }
        t->fields = f;
        t->nfields = n;
        t->is_variable = 1;
        t->chunk_count = 1;
        *out = t;
        return BK_OK;
    }
    eat(p, "Container:");
    size_t start = p->pos;
    while (is_name_char(p->s[p->pos])) p->pos++;
    if (p->pos == start) return terr(p, "unknown type", NULL);
    if (p->pos - start == 4 && memcmp(p->s + start, "byte", 4) == 0) {
        *out = &p->reg->basic[7];
        return BK_OK;
    }
    schema *s = NULL;
    int fork = -1;
    if (p->s[p->pos] == ':' && (fork = fork_index(p->s + start, p->pos - start)) >= 0) {
        /* "fork:Name": that fork's container. */
        p->pos++;
        while (is_name_char(p->s[p->pos])) p->pos++;
        bk_status st = need_fork(p->reg, fork, p->err);
        if (st != BK_OK) return st;
        s = find_schema(p->reg, p->s + start, p->pos - start, 1);
    } else {
        /* A bare name: the caller's schemas first, then the registry's fork
         * (phase0 unless bk_ssz_registry_set_fork chose another), then the
         * ssz_generic test structs. */
        size_t n = p->pos - start;
        s = find_schema(p->reg, p->s + start, n, 0);
        if (!s && n < 64) {
            char q[96];
            snprintf(q, sizeof q, "%s:%.*s", bk_ssz_fork_names[p->reg->fork], (int)n, p->s + start);
            bk_status st = need_fork(p->reg, p->reg->fork, p->err);
            if (st != BK_OK) return st;
            s = find_schema(p->reg, q, strlen(q), 1);
        }
        if (!s) s = find_schema(p->reg, p->s + start, n, 1);
    }
    if (!s) {
        char name[96];
        snprintf(name, sizeof name, "%.*s", (int)(p->pos - start), p->s + start);
        p->pos = start;
        return terr(p, "unknown container", name);
    }
    return build_container(p, s, out, depth);
}

static size_t hash_str(const char *s)
{
    size_t h = 5381;
    while (*s) h = h * 33 + (unsigned char)*s++;
    return h % CACHE_BUCKETS;
}

bk_status bk_ssz_type_parse(bk_ssz_registry *reg, const char *str, const bk_ssz_type **type_out, bk_error *err)
{
    *type_out = NULL;
    size_t b = hash_str(str);
    for (cache_entry *c = reg->cache[b]; c; c = c->next)
        if (strcmp(c->str, str) == 0) {
            *type_out = c->type;
            return BK_OK;
        }
    tparser p = {reg, str, 0, 0, err};
    const bk_ssz_type *t;
    bk_status st = parse_type(&p, &t, 0, 0);
    if (st != BK_OK) return st;
    if (str[p.pos]) return terr(&p, "text after the type", NULL);
    cache_entry *c = bk_arena_alloc(&reg->arena, sizeof *c);
    char *copy = bk_arena_strndup(&reg->arena, str, strlen(str));
    if (c && copy) {
        c->str = copy;
        c->type = t;
        c->next = reg->cache[b];
        reg->cache[b] = c;
    }
    *type_out = t;
    return BK_OK;
}

size_t bk_ssz_type_name(const bk_ssz_type *t, char *buf, size_t cap)
{
    char tmp[64];
    size_t n = 0;
#define PUT(s)                                                                   \
    do {                                                                         \
        const char *s_ = (s);                                                    \
        size_t l_ = strlen(s_);                                                  \
        for (size_t i_ = 0; i_ < l_; i_++, n++)                                  \
            if (n + 1 < cap) buf[n] = s_[i_];                                    \
    } while (0)
#define PUTSUB(ty)                                                               \
    do {                                                                         \
        size_t m_ = bk_ssz_type_name((ty), n < cap ? buf + n : NULL, n < cap ? cap - n : 0); \
        n += m_;                                                                 \
    } while (0)
    switch (t->kind) {
    case BK_SSZ_UINT:
    case BK_SSZ_BOOL:
    case BK_SSZ_NONE: PUT(t->name); break;
    case BK_SSZ_CONTAINER: PUT("Container:"); PUT(t->name); break;
    case BK_SSZ_VECTOR:
    case BK_SSZ_LIST:
        if (t->progressive) {
            int capped = t->length != BK_SSZ_PROGRESSIVE_MAX;
            snprintf(tmp, sizeof tmp, capped ? "%s%llu]" : "]", t->is_bytes ? "[" : ",", (unsigned long long)t->length);
            if (t->is_bytes) {
                PUT("ProgressiveByteList");
                if (capped) PUT(tmp);
            } else {
                PUT("ProgressiveList[");
                PUTSUB(t->elem);
                PUT(tmp);
            }
            break;
        }
        if (t->is_bytes) PUT(t->kind == BK_SSZ_VECTOR ? "ByteVector[" : "ByteList[");
        else {
            PUT(t->kind == BK_SSZ_VECTOR ? "Vector[" : "List[");
            PUTSUB(t->elem);
            PUT(",");
        }
        snprintf(tmp, sizeof tmp, "%llu]", (unsigned long long)t->length);
        PUT(tmp);
        break;
    case BK_SSZ_BITVECTOR:
    case BK_SSZ_BITLIST:
        if (t->progressive) {
            PUT("ProgressiveBitlist");
            if (t->length != BK_SSZ_PROGRESSIVE_MAX) {
                snprintf(tmp, sizeof tmp, "[%llu]", (unsigned long long)t->length);
                PUT(tmp);
            }
            break;
        }
        snprintf(tmp, sizeof tmp, "%s[%llu]", t->kind == BK_SSZ_BITVECTOR ? "Bitvector" : "Bitlist",
                 (unsigned long long)t->length);
        PUT(tmp);
        break;
    case BK_SSZ_UNION:
        PUT(t->compatible ? "CompatibleUnion[" : "Union[");
        for (size_t i = 0, k = 0; i < t->nfields; i++) {
            if (!t->fields[i].type) continue;
            if (k++) PUT(",");
            if (t->compatible) {
                snprintf(tmp, sizeof tmp, "%zu:", i);
                PUT(tmp);
            }
            PUTSUB(t->fields[i].type);
        }
        PUT("]");
        break;
    }
    if (cap) buf[n < cap ? n : cap - 1] = 0;
    return n;
#undef PUT
#undef PUTSUB
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

uint64_t bk_ssz_min_size(const bk_ssz_type *t)
{
    switch (t->kind) {
    case BK_SSZ_LIST: return 0;
    case BK_SSZ_BITLIST: return 1;
    case BK_SSZ_NONE: return 0;
    case BK_SSZ_UNION: {
        if (!t->compatible) return 1;
        uint64_t m = UINT64_MAX;
        for (size_t i = 0; i < t->nfields; i++)
            if (t->fields[i].type && bk_ssz_min_size(t->fields[i].type) < m) m = bk_ssz_min_size(t->fields[i].type);
        return sat_add(m, 1);
    }
    case BK_SSZ_VECTOR:
        if (t->elem->is_variable) {
            uint64_t m = bk_ssz_min_size(t->elem);
            return t->length * 4 + (m && t->length > (MAX_SIZE / m) ? MAX_SIZE : t->length * m);
        }
        return t->fixed_size;
    case BK_SSZ_CONTAINER: {
        uint64_t s = t->fixed_size;
        for (size_t i = 0; i < t->nfields; i++)
            if (t->fields[i].type->is_variable) s += bk_ssz_min_size(t->fields[i].type);
        return s;
    }
    default: return t->fixed_size;
    }
}

uint64_t bk_ssz_max_size(const bk_ssz_type *t)
{
    switch (t->kind) {
    case BK_SSZ_LIST:
        if (t->elem->is_variable) return sat_mul(t->length, sat_add(4, bk_ssz_max_size(t->elem)));
        return sat_mul(t->length, t->elem->fixed_size);
    case BK_SSZ_BITLIST: return t->length / 8 + 1;
    case BK_SSZ_NONE: return 0;
    case BK_SSZ_UNION: {
        uint64_t m = 0;
        for (size_t i = 0; i < t->nfields; i++) {
            if (!t->fields[i].type) continue;
            uint64_t s = bk_ssz_max_size(t->fields[i].type);
            if (s > m) m = s;
        }
        return sat_add(m, 1);
    }
    case BK_SSZ_VECTOR:
        if (t->elem->is_variable) return sat_mul(t->length, sat_add(4, bk_ssz_max_size(t->elem)));
        return t->fixed_size;
    case BK_SSZ_CONTAINER: {
        uint64_t s = t->fixed_size;
        for (size_t i = 0; i < t->nfields; i++)
            if (t->fields[i].type->is_variable) s = sat_add(s, bk_ssz_max_size(t->fields[i].type));
        return s;
    }
    default: return t->fixed_size;
    }
}
