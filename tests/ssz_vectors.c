/* SSZ vector runner: ssz_vectors [--schema FILE] FILE.jsonl[.zst]...
 *
 * Value lines (official ssz_generic / ssz_static, oracle generic / phase0):
 * a valid line validates, decodes to JSON equal to its `value`, re-encodes
 * from that JSON and from `value` to the same bytes, and has the given root;
 * an invalid line is rejected by validate, hash_tree_root and to_json (the
 * two `oracle_accepts` lines included); an illegal type is refused when
 * built. Merkle lines (zero_hash, sha256_64, merkleize, mix_in_length) and
 * proof lines (single branches, multiproofs) are checked against the
 * library. Prints per-file counts; exits non-zero unless every line passes.
 * Files ending in .zst are read through `zstd -dc`. --preset chooses the
 * fork containers' preset (before the files that need it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blockkit/blockkit.h>
#include <blockkit/ssz.h>
#include "ssz/ssz_internal.h"

typedef struct counts {
    unsigned long lines, pass, fail, valid, invalid, illegal, oracle_accepts, merkle, proofs;
} counts;

static bk_ssz_registry *reg;
static bk_ssz_hasher *hasher;
static int verbose;

static int nibble(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* 0x hex to bytes in one pass (a serialized BeaconState is megabytes of hex:
 * sscanf per byte rescans the string and is quadratic). */
static int unhex(const char *s, size_t n, uint8_t **out, size_t *len)
{
    if (n < 2 || s[0] != '0' || s[1] != 'x' || (n - 2) % 2) return 0;
    *len = (n - 2) / 2;
    *out = malloc(*len + 1);
    if (!*out) return 0;
    for (size_t i = 0; i < *len; i++) {
        int hi = nibble(s[2 + 2 * i]), lo = nibble(s[3 + 2 * i]);
        if (hi < 0 || lo < 0) {
            free(*out);
            return 0;
        }
        (*out)[i] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}

static int hex_eq(const bk_sjson *v, const uint8_t *b, size_t n)
{
    uint8_t *x;
    size_t xn;
    if (!v || v->kind != BK_SJSON_STRING || !unhex(v->str, v->len, &x, &xn)) return 0;
    int ok = xn == n && memcmp(x, b, n) == 0;
    free(x);
    return ok;
}

static uint64_t dec(const bk_sjson *v)
{
    return v ? strtoull(v->str, NULL, 10) : 0;
}

/* Canonical compact JSON of a parsed value (for comparison with our output). */
static void dump(const bk_sjson *v, bk_writer *w)
{
    switch (v->kind) {
    case BK_SJSON_NULL: bk_writer_puts(w, "null"); break;
    case BK_SJSON_TRUE: bk_writer_puts(w, "true"); break;
    case BK_SJSON_FALSE: bk_writer_puts(w, "false"); break;
    case BK_SJSON_NUMBER: bk_writer_put(w, v->str, v->len); break;
    case BK_SJSON_STRING:
        bk_writer_putc(w, '"');
        for (size_t i = 0; i < v->len; i++) {
            char c = v->str[i];
            if (c == '"' || c == '\\') bk_writer_putc(w, '\\');
            bk_writer_putc(w, c);
        }
        bk_writer_putc(w, '"');
        break;
    case BK_SJSON_ARRAY:
    case BK_SJSON_OBJECT: {
        int obj = v->kind == BK_SJSON_OBJECT;
        bk_writer_putc(w, obj ? '{' : '[');
        for (const bk_sjson *c = v->child; c; c = c->next) {
            if (c != v->child) bk_writer_putc(w, ',');
            if (obj) {
                bk_writer_putc(w, '"');
                bk_writer_put(w, c->key, c->keylen);
                bk_writer_put(w, "\":", 2);
            }
            dump(c, w);
        }
        bk_writer_putc(w, obj ? '}' : ']');
        break;
    }
    }
}

static const char *str(const bk_sjson *o, const char *k)
{
    const bk_sjson *v = bk_sjson_get(o, k);
    return v && v->kind == BK_SJSON_STRING ? v->str : NULL;
}

static int check_value_line(const bk_sjson *o, counts *c, char *why, size_t whylen)
{
    const char *type = str(o, "type");
    int valid = bk_sjson_get(o, "valid")->kind == BK_SJSON_TRUE;
    const char *reason = str(o, "reason");
    const char *cas = str(o, "case");
    const bk_ssz_type *t;
    bk_error err;
    if (bk_ssz_type_parse(reg, type, &t, &err) != BK_OK) {
        int illegal = (reason && !strcmp(reason, "illegal_type")) ||
                      (cas && (!strncmp(cas, "vec_", 4) || !strncmp(cas, "bitvec_", 7)) &&
                       strlen(cas) > 2 && !strcmp(cas + strlen(cas) - 2, "_0"));
        if (!valid && illegal && err.status == BK_ERR_TYPE) {
            c->illegal++;
            return 1;
        }
        snprintf(why, whylen, "type refused: %s", err.msg);
        return 0;
    }
    if (!valid && reason && !strcmp(reason, "illegal_type")) {
        snprintf(why, whylen, "illegal type accepted");
        return 0;
    }
    uint8_t *ssz;
    size_t n;
    const bk_sjson *sv = bk_sjson_get(o, "ssz");
    if (!unhex(sv->str, sv->len, &ssz, &n)) {
        snprintf(why, whylen, "bad ssz hex in the vector");
        return 0;
    }
    int ok = 1;
    uint8_t root[32];
    bk_writer w, w2;
    bk_writer_init(&w, NULL);
    bk_writer_init(&w2, NULL);
    if (!valid) {
        c->invalid++;
        if (bk_sjson_get(o, "oracle_accepts")) c->oracle_accepts++;
        if (bk_ssz_validate(t, ssz, n, &err) == BK_OK) {
            snprintf(why, whylen, "invalid data accepted");
            ok = 0;
        } else if (bk_ssz_hash_tree_root(hasher, t, ssz, n, root, NULL) == BK_OK ||
                   bk_ssz_to_json(t, ssz, n, &w, NULL) == BK_OK) {
            snprintf(why, whylen, "invalid data hashed/decoded");
            ok = 0;
        } else if (verbose) {
            printf("  rejected %s: %s at %llu (%s)\n", type, err.msg, (unsigned long long)err.offset, err.path);
        }
        goto out;
    }
    c->valid++;
    if (bk_ssz_validate(t, ssz, n, &err) != BK_OK) {
        snprintf(why, whylen, "valid data rejected: %s at %llu (%s)", err.msg, (unsigned long long)err.offset,
                 err.path);
        ok = 0;
        goto out;
    }
    if (bk_ssz_hash_tree_root(hasher, t, ssz, n, root, &err) != BK_OK || !hex_eq(bk_sjson_get(o, "root"), root, 32)) {
        snprintf(why, whylen, "root mismatch (%s)", err.msg);
        ok = 0;
        goto out;
    }
    /* decode -> JSON -> encode */
    if (bk_ssz_to_json(t, ssz, n, &w, &err) != BK_OK) {
        snprintf(why, whylen, "to_json failed: %s", err.msg);
        ok = 0;
        goto out;
    }
    if (bk_ssz_from_json(t, (const char *)w.data, w.len, &w2, NULL, &err) != BK_OK || w2.len != n ||
        (n && memcmp(w2.data, ssz, n))) {
        snprintf(why, whylen, "re-encode of our JSON differs (%s %s)", err.msg, err.path);
        ok = 0;
        goto out;
    }
    const bk_sjson *value = bk_sjson_get(o, "value");
    if (value) {
        bk_writer vw;
        bk_writer_init(&vw, NULL);
        dump(value, &vw);
        if (vw.len != w.len || memcmp(vw.data, w.data, w.len)) {
            snprintf(why, whylen, "decoded JSON differs from value:\n  got:  %.300s\n  want: %.300s",
                     (const char *)w.data, (const char *)vw.data);
            ok = 0;
        } else {
            bk_writer_reset(&w2);
            if (bk_ssz_from_json(t, (const char *)vw.data, vw.len, &w2, NULL, &err) != BK_OK || w2.len != n ||
                (n && memcmp(w2.data, ssz, n))) {
                snprintf(why, whylen, "encode of value differs (%s %s)", err.msg, err.path);
                ok = 0;
            }
        }
        bk_writer_free(&vw);
    }
out:
    bk_writer_free(&w);
    bk_writer_free(&w2);
    free(ssz);
    return ok;
}

static int check_merkle_line(const bk_sjson *o, const char *kind, char *why, size_t whylen)
{
    uint8_t out[32];
    if (!strcmp(kind, "zero_hash")) {
        const uint8_t *z = bk_ssz_zero_hash((unsigned)dec(bk_sjson_get(o, "depth")));
        if (!z || !hex_eq(bk_sjson_get(o, "root"), z, 32)) return snprintf(why, whylen, "zero_hash mismatch"), 0;
        return 1;
    }
    if (!strcmp(kind, "sha256_64")) {
        uint8_t *in;
        size_t n;
        const bk_sjson *iv = bk_sjson_get(o, "input");
        if (!unhex(iv->str, iv->len, &in, &n) || n != 64) return snprintf(why, whylen, "bad input"), 0;
        bk_sha256_64(out, in, 1);
        free(in);
        if (!hex_eq(bk_sjson_get(o, "digest"), out, 32)) return snprintf(why, whylen, "digest mismatch"), 0;
        return 1;
    }
    if (!strcmp(kind, "merkleize")) {
        uint8_t *ch;
        size_t n;
        const bk_sjson *cv = bk_sjson_get(o, "chunks"), *lv = bk_sjson_get(o, "limit");
        if (!unhex(cv->str, cv->len, &ch, &n) || n % 32) return snprintf(why, whylen, "bad chunks"), 0;
        uint64_t limit = lv->kind == BK_SJSON_NULL ? UINT64_MAX : dec(lv);
        bk_error err;
        bk_status st = bk_ssz_merkleize(hasher, ch, n / 32, limit, out, &err);
        free(ch);
        if (bk_sjson_get(o, "error")) {
            if (st != BK_ERR_LENGTH) return snprintf(why, whylen, "exceeds_limit not reported"), 0;
            return 1;
        }
        if (st != BK_OK || !hex_eq(bk_sjson_get(o, "root"), out, 32))
            return snprintf(why, whylen, "merkleize root mismatch"), 0;
        bk_ssz_mix_in_length(out, out, dec(bk_sjson_get(o, "length")));
        if (!hex_eq(bk_sjson_get(o, "mix_in_length"), out, 32)) return snprintf(why, whylen, "mix_in_length mismatch"), 0;
        return 1;
    }
    return snprintf(why, whylen, "unknown kind %s", kind), 0;
}

static int check_proof_line(const bk_sjson *o, const char *kind, char *why, size_t whylen)
{
    const bk_ssz_type *t;
    bk_error err;
    if (bk_ssz_type_parse(reg, str(o, "type"), &t, &err) != BK_OK) return snprintf(why, whylen, "type: %s", err.msg), 0;
    uint8_t *ssz;
    size_t n;
    const bk_sjson *sv = bk_sjson_get(o, "ssz");
    if (!unhex(sv->str, sv->len, &ssz, &n)) return snprintf(why, whylen, "bad ssz"), 0;
    int ok = 0;
    uint8_t root[32];
    if (bk_ssz_hash_tree_root(hasher, t, ssz, n, root, &err) != BK_OK || !hex_eq(bk_sjson_get(o, "root"), root, 32)) {
        snprintf(why, whylen, "root mismatch");
        goto out;
    }
    if (!strcmp(kind, "single")) {
        const bk_sjson *pv = bk_sjson_get(o, "path");
        const char *path[64];
        size_t np = 0;
        for (const bk_sjson *c = pv->child; c && np < 64; c = c->next) path[np++] = c->str;
        uint64_t g;
        if (bk_ssz_gindex(t, path, np, &g, &err) != BK_OK || g != dec(bk_sjson_get(o, "gindex"))) {
            snprintf(why, whylen, "gindex %llu != %s (%s)", (unsigned long long)g, str(o, "gindex"), err.msg);
            goto out;
        }
        uint8_t leaf[32], branch[64][32];
        unsigned depth;
        if (bk_ssz_prove(hasher, t, ssz, n, g, leaf, branch, &depth, &err) != BK_OK) {
            snprintf(why, whylen, "prove failed: %s", err.msg);
            goto out;
        }
        const bk_sjson *bv = bk_sjson_get(o, "branch");
        if (!hex_eq(bk_sjson_get(o, "leaf"), leaf, 32) || depth != bv->n || depth != dec(bk_sjson_get(o, "depth"))) {
            snprintf(why, whylen, "leaf/depth mismatch");
            goto out;
        }
        unsigned i = 0;
        for (const bk_sjson *c = bv->child; c; c = c->next, i++)
            if (!hex_eq(c, branch[i], 32)) {
                snprintf(why, whylen, "branch[%u] mismatch", i);
                goto out;
            }
        if (!bk_ssz_verify_branch(leaf, (const uint8_t(*)[32])branch, depth, g, root)) {
            snprintf(why, whylen, "branch does not verify");
            goto out;
        }
        branch[0][0] ^= 1;
        if (depth && bk_ssz_verify_branch(leaf, (const uint8_t(*)[32])branch, depth, g, root)) {
            snprintf(why, whylen, "tampered branch verifies");
            goto out;
        }
        ok = 1;
        goto out;
    }
    /* multi */
    {
        const bk_sjson *gv = bk_sjson_get(o, "gindices"), *hv = bk_sjson_get(o, "helper_indices");
        const bk_sjson *lv = bk_sjson_get(o, "leaves"), *pv = bk_sjson_get(o, "proof");
        size_t ng = gv->n, nh = 0;
        uint64_t *g = calloc(ng + 1, 8), *helpers = calloc(hv->n + 64 * ng + 1, 8);
        uint8_t(*leaves)[32] = calloc(ng + 1, 32), (*proof)[32] = calloc(pv->n + 1, 32);
        size_t i = 0;
        for (const bk_sjson *c = gv->child; c; c = c->next) g[i++] = dec(c);
        if (bk_ssz_helper_indices(hasher, g, ng, helpers, hv->n + 64 * ng, &nh, &err) != BK_OK || nh != hv->n) {
            snprintf(why, whylen, "helper count %zu != %zu", nh, hv->n);
            goto mout;
        }
        i = 0;
        for (const bk_sjson *c = hv->child; c; c = c->next, i++)
            if (helpers[i] != dec(c)) {
                snprintf(why, whylen, "helper[%zu] mismatch", i);
                goto mout;
            }
        i = 0;
        for (const bk_sjson *c = lv->child; c; c = c->next, i++) {
            if (bk_ssz_node(hasher, t, ssz, n, g[i], leaves[i], &err) != BK_OK || !hex_eq(c, leaves[i], 32)) {
                snprintf(why, whylen, "leaf %zu mismatch", i);
                goto mout;
            }
        }
        i = 0;
        for (const bk_sjson *c = pv->child; c; c = c->next, i++) {
            if (bk_ssz_node(hasher, t, ssz, n, helpers[i], proof[i], &err) != BK_OK || !hex_eq(c, proof[i], 32)) {
                snprintf(why, whylen, "proof node %zu mismatch", i);
                goto mout;
            }
        }
        uint8_t r[32];
        if (bk_ssz_multi_root(hasher, (const uint8_t(*)[32])leaves, g, ng, (const uint8_t(*)[32])proof, pv->n, r,
                              &err) != BK_OK ||
            memcmp(r, root, 32)) {
            snprintf(why, whylen, "multiproof does not verify (%s)", err.msg);
            goto mout;
        }
        ok = 1;
    mout:
        free(g);
        free(helpers);
        free(leaves);
        free(proof);
    }
out:
    free(ssz);
    return ok;
}

static int run_file(const char *path)
{
    size_t pl = strlen(path);
    int zst = pl > 4 && !strcmp(path + pl - 4, ".zst");
    FILE *f;
    if (zst) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "zstd -dc -- '%s'", path);
        f = popen(cmd, "r");
    } else {
        f = fopen(path, "r");
    }
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    counts c = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) > 0) {
        c.lines++;
        bk_arena a;
        bk_arena_init(&a, NULL);
        bk_sjson *o;
        bk_error err;
        char why[1024] = "";
        int ok = 0;
        if (bk_sjson_parse(&a, line, (size_t)got, &o, &err) != BK_OK) {
            snprintf(why, sizeof why, "bad JSON line: %s", err.msg);
        } else {
            const char *kind = str(o, "kind");
            if (!kind) ok = check_value_line(o, &c, why, sizeof why);
            else if (!strcmp(kind, "single") || !strcmp(kind, "multi")) {
                c.proofs++;
                ok = check_proof_line(o, kind, why, sizeof why);
            } else {
                c.merkle++;
                ok = check_merkle_line(o, kind, why, sizeof why);
            }
        }
        if (ok) c.pass++;
        else {
            c.fail++;
            if (c.fail <= 20) {
                const char *id = o ? str(o, "id") : NULL;
                const char *cas = o ? str(o, "case") : NULL;
                const char *type = o ? str(o, "type") : NULL;
                fprintf(stderr, "%s:%lu: FAIL %s %s: %s\n", path, c.lines, id ? id : cas ? cas : "",
                        type ? type : "", why);
            }
        }
        bk_arena_free(&a);
    }
    free(line);
    int rc = zst ? pclose(f) : fclose(f);
    if (rc != 0) {
        fprintf(stderr, "%s: read error (zstd missing?)\n", path);
        return 1;
    }
    printf("%s: %lu lines, %lu passed, %lu failed (valid %lu, invalid %lu, illegal types refused %lu, "
           "oracle_accepts lines rejected %lu, merkle %lu, proofs %lu)\n",
           path, c.lines, c.pass, c.fail, c.valid, c.invalid, c.illegal, c.oracle_accepts, c.merkle, c.proofs);
    return c.fail || c.lines == 0;
}

int main(int argc, char **argv)
{
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&hasher, 0, NULL) != BK_OK) return 2;
    int rc = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) {
            verbose = 1;
            continue;
        }
        if (!strcmp(argv[i], "--preset") && i + 1 < argc) {
            bk_error err;
            if (bk_ssz_registry_set_preset(reg, argv[++i], &err) != BK_OK) return fprintf(stderr, "%s\n", err.msg), 2;
            continue;
        }
        if (!strcmp(argv[i], "--schema") && i + 1 < argc) {
            FILE *f = fopen(argv[++i], "rb");
            if (!f) return fprintf(stderr, "cannot open %s\n", argv[i]), 2;
            static char buf[1 << 20];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            bk_error err;
            if (bk_ssz_registry_load_schema(reg, buf, n, &err) != BK_OK)
                return fprintf(stderr, "%s: %s at %llu\n", argv[i], err.msg, (unsigned long long)err.offset), 2;
            continue;
        }
        files++;
        rc |= run_file(argv[i]);
    }
    bk_ssz_hasher_free(hasher);
    bk_ssz_registry_free(reg);
    if (!files) {
        fprintf(stderr, "usage: ssz_vectors [-v] [--preset mainnet|minimal] [--schema FILE] FILE.jsonl[.zst]...\n");
        return 2;
    }
    return rc;
}
