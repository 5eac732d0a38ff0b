/* blockkit ssz: hash_tree_root, decode, encode, proofs and proof checks for
 * SSZ values given as binary, 0x hex or JSON. */
#include "cli.h"

#include <blockkit/ssz.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "ssz";

/* Write the whole answer to standard output and flush it: 0, or exit 74
 * naming the error (a full disk, a closed descriptor); a reader that went
 * away (EPIPE: `| head`) is not an error. The shared output checks (cli.h)
 * report once, also for what main flushes after the command. */
static int emit(const void *p, size_t n)
{
    int rc = bk_cli_output_write(CMD, stdout, NULL, p, n);
    return rc ? rc : bk_cli_output_flush(CMD, stdout, NULL);
}

static int usage(FILE *f)
{
    fprintf(f,
            "usage: blockkit ssz root|decode TYPE [--fork F] [--preset P] [--schema FILE] [--raw] [-j N] [--set PATH=0xHEX]\n"
            "                                [FILE | - | --hex 0x..]\n"
            "       blockkit ssz encode TYPE [--schema FILE] [FILE | -]          (value JSON in, 0x hex out)\n"
            "       blockkit ssz proof TYPE --path a.b.c [--path ...] [--gindex N ...] [--schema FILE] [FILE | - | --hex 0x..]\n"
            "       blockkit ssz verify TYPE [--path a.b.c] [--root 0x..] [--schema FILE] [PROOF.json | -]\n"
            "       blockkit ssz synth TYPE --count N [--min-limit L] [--seed S]   (binary out)\n"
            "root and proof take -j N: hash large lists on N threads (same result).\n"
            "root --set PATH=0xHEX (repeatable): print the root, apply the edits to a cached\n"
            "tree and print the new root, re-hashing only the changed paths.\n"
            "synth writes a valid random value whose lists of limit >= L (default 2^40) hold N\n"
            "elements (a mainnet-size BeaconState: synth BeaconState --count 1048576).\n"
            "\n"
            "TYPE: uint8..uint256, bool, Vector[T,N], List[T,N], ByteVector[N], ByteList[N],\n"
            "      Bitvector[N], Bitlist[N], Union[T0,...], ProgressiveList[T], ProgressiveByteList,\n"
            "      ProgressiveBitlist, Container:Name or fork:Name (every fork's consensus containers\n"
            "      are built in: --fork NAME picks the fork of bare names, default the newest;\n"
            "      --preset mainnet|minimal; more from --schema {\"Name\":[[\"field\",\"type\"],...]}).\n"
            "      Forks: --fork list.\n"
            "Input bytes may be binary or 0x hex (hex is detected; --raw forces binary).\n"
            "root prints 0x + 64 hex; decode prints the value JSON; proof prints a proof JSON\n"
            "(one path: gindex, leaf, branch; several: a multiproof); verify exits 0 when the\n"
            "proof holds against --root (default: the proof's own root), 1 when it does not.\n"
            "Path elements: field names, list/vector indices, __len__.\n"
            "Exit status (the table in blockkit(1)): 0 ok, 1 proof rejected, 64 usage,\n"
            "65 invalid data (with byte offset and path), 66 missing input, 74 I/O.\n");
    if (f != stdout) return BK_EXIT_USAGE;
    return emit("", 0);
}

static int put_hex_line(const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    char *s = malloc(2 * n + 4);
    if (!s) return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
    s[0] = '0';
    s[1] = 'x';
    for (size_t i = 0; i < n; i++) {
        s[2 + 2 * i] = hx[p[i] >> 4];
        s[3 + 2 * i] = hx[p[i] & 15];
    }
    s[2 + 2 * n] = '\n';
    int rc = emit(s, 2 * n + 3);
    free(s);
    return rc;
}

static int unhex_arg(const char *s, uint8_t **out, size_t *n)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t l = strlen(s);
    if (l % 2) return 0;
    *out = malloc(l / 2 + 1);
    if (!*out) return 0;
    for (size_t i = 0; i < l / 2; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                free(*out);
                return 0;
            }
            v = v << 4 | d;
        }
        (*out)[i] = (uint8_t)v;
    }
    *n = l / 2;
    return 1;
}

#define MAX_PATHS 64
#define MAX_SETS 64
#define MAX_PATH_ELEMS 64

/* Split "a.b.3.__len__" in place into elements. */
static size_t split_path(char *s, const char **elems)
{
    size_t n = 0;
    if (!*s) return 0;
    for (char *p = s;;) {
        char *dot = strchr(p, '.');
        if (n < MAX_PATH_ELEMS) elems[n++] = p;
        if (!dot) break;
        *dot = 0;
        p = dot + 1;
    }
    return n;
}

static int ssz_main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr);
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) return usage(stdout);
    int mode = !strcmp(sub, "root") ? 0 : !strcmp(sub, "decode") ? 1 : !strcmp(sub, "encode") ? 2
             : !strcmp(sub, "proof") ? 3 : !strcmp(sub, "verify") ? 4 : !strcmp(sub, "synth") ? 5 : -1;
    if (mode < 0)
        return bk_cli_fail(CMD, BK_EXIT_USAGE, "unknown subcommand \"%s\" (root, decode, encode, proof, verify, synth)", sub);
    const char *type_str = NULL, *schema = NULL, *file = NULL, *hex = NULL, *root_hex = NULL;
    const char *fork = bk_ssz_fork_name(bk_ssz_fork_count() - 1), *preset = "mainnet";
    unsigned long long threads = 1, count = 0, min_limit = UINT64_C(1) << 40, seed = 1;
    const char *sets[MAX_SETS];
    size_t nsets = 0;
    char *paths[MAX_PATHS];
    size_t npaths = 0;
    uint64_t gidx[MAX_PATHS];
    size_t ng = 0;
    int raw = 0;
    bk_error err;
    bk_error_clear(&err);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout);
        int need = !strcmp(a, "--schema") || !strcmp(a, "--hex") || !strcmp(a, "--path") || !strcmp(a, "--root") ||
                   !strcmp(a, "--gindex") || !strcmp(a, "--fork") || !strcmp(a, "--preset") || !strcmp(a, "-j") ||
                   !strcmp(a, "--count") || !strcmp(a, "--min-limit") || !strcmp(a, "--seed") || !strcmp(a, "--set");
        if (need && i + 1 >= argc) return bk_cli_missing_value(CMD, a);
        if (!strcmp(a, "--schema")) schema = argv[++i];
        else if (!strcmp(a, "--fork")) fork = argv[++i];
        else if (!strcmp(a, "--set")) {
            if (nsets == MAX_SETS) return bk_cli_fail(CMD, BK_EXIT_USAGE, "at most %d --set", MAX_SETS);
            sets[nsets++] = argv[++i];
        }
        else if (!strcmp(a, "-j") || !strcmp(a, "--count") || !strcmp(a, "--min-limit") || !strcmp(a, "--seed")) {
            char *end;
            const char *v = argv[++i];
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (!*v || *end || errno || *v == '-' || (!strcmp(a, "-j") && (x < 1 || x > 256)))
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "%s: expected a number%s, got \"%s\"", a,
                                   !strcmp(a, "-j") ? " from 1 to 256" : "", v);
            if (!strcmp(a, "-j")) threads = x;
            else if (!strcmp(a, "--count")) count = x;
            else if (!strcmp(a, "--min-limit")) min_limit = x;
            else seed = x;
        }
        else if (!strcmp(a, "--preset")) preset = argv[++i];
        else if (!strcmp(a, "--hex")) hex = argv[++i];
        else if (!strcmp(a, "--root")) root_hex = argv[++i];
        else if (!strcmp(a, "--raw")) raw = 1;
        else if (!strcmp(a, "--path")) {
            if (npaths + ng == MAX_PATHS)
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "too many --path/--gindex: at most %d in total", MAX_PATHS);
            paths[npaths++] = argv[++i];
        } else if (!strcmp(a, "--gindex")) {
            const char *v = argv[++i];
            if (bk_ssz_gindex_parse(v, strlen(v), &gidx[ng], &err) != BK_OK)
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "bad --gindex \"%s\": %s", v, err.msg);
            if (npaths + ng == MAX_PATHS)
                return bk_cli_fail(CMD, BK_EXIT_USAGE, "too many --path/--gindex: at most %d in total", MAX_PATHS);
            ng++;
        } else if (a[0] == '-' && a[1]) return bk_cli_unknown_option(CMD, a);
        else if (!type_str) type_str = a;
        else if (!file) file = a;
        else return bk_cli_fail(CMD, BK_EXIT_USAGE, "too many arguments");
    }
    if (!type_str) return bk_cli_fail(CMD, BK_EXIT_USAGE, "missing TYPE");
    /* --gindex values and the gindices of the paths share gidx[]. */
    if (npaths + ng > MAX_PATHS)
        return bk_cli_fail(CMD, BK_EXIT_USAGE, "too many --path/--gindex: at most %d in total", MAX_PATHS);
    if (hex && file) return bk_cli_fail(CMD, BK_EXIT_USAGE, "give FILE or --hex, not both");
    if (hex && (mode == 2 || mode == 4)) return bk_cli_fail(CMD, BK_EXIT_USAGE, "--hex is for root, decode and proof");
    if (mode == 3 && npaths + ng == 0) return bk_cli_fail(CMD, BK_EXIT_USAGE, "proof needs --path or --gindex");
    if (mode != 3 && mode != 4 && (npaths || ng)) return bk_cli_fail(CMD, BK_EXIT_USAGE, "--path is for proof and verify");
    if (mode == 4 && npaths + ng > 1) return bk_cli_fail(CMD, BK_EXIT_USAGE, "verify takes at most one --path");
    if (root_hex && mode != 4) return bk_cli_fail(CMD, BK_EXIT_USAGE, "--root is for verify");

    int rc = BK_EXIT_OK;
    bk_ssz_registry *reg = NULL;
    bk_ssz_hasher *h = NULL;
    bk_ssz_pool *pool = NULL;
    bk_cli_input in = {0};
    uint8_t *bytes = NULL;
    size_t nbytes = 0;
    bk_writer w;
    bk_writer_init(&w, NULL);
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK || bk_ssz_hasher_create(&h, 0, NULL) != BK_OK) {
        rc = bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
        goto out;
    }
    if (!strcmp(fork, "list")) {
        for (size_t k = 0; k < bk_ssz_fork_count(); k++) printf("%s\n", bk_ssz_fork_name(k));
        rc = BK_EXIT_OK;
        goto out;
    }
    if (bk_ssz_registry_set_fork(reg, fork, &err) != BK_OK || bk_ssz_registry_set_preset(reg, preset, &err) != BK_OK) {
        rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "%s", err.msg);
        goto out;
    }
    if (schema) {
        bk_cli_input s;
        if ((rc = bk_cli_read_input_max(CMD, schema, BK_CLI_MAX_SCHEMA, "a schema is at most 16 MiB", &s)) != 0) goto out;
        bk_status st = bk_ssz_registry_load_schema(reg, (const char *)s.data, s.len, &err);
        bk_cli_input_free(&s);
        if (st != BK_OK) {
            fprintf(stderr, "blockkit: ssz: %s: %s at byte %llu\n", schema, err.msg, (unsigned long long)err.offset);
            rc = BK_EXIT_USAGE;
            goto out;
        }
    }
    const bk_ssz_type *t;
    if (bk_ssz_type_parse(reg, type_str, &t, &err) != BK_OK) {
        rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "%s (\"%s\" at character %llu)", err.msg, type_str,
                         (unsigned long long)err.offset);
        goto out;
    }
    if (threads > 1) {
        if (bk_ssz_pool_create(&pool, (unsigned)threads, 0, NULL, &err) != BK_OK) {
            rc = bk_cli_report(CMD, &err);
            goto out;
        }
        bk_ssz_hasher_set_pool(h, pool);
    }
    if (mode == 5) {
        /* A synthetic valid value: binary on stdout. */
        if (bk_ssz_synthesize(t, count, min_limit, seed, &w, &err) != BK_OK) {
            rc = bk_cli_report(CMD, &err);
            goto out;
        }
        rc = emit(w.data, w.len);
        goto out;
    }
    /* Generalized indices of the paths. */
    for (size_t i = 0; i < npaths; i++) {
        if (bk_ssz_path_gindex(t, paths[i], strlen(paths[i]), &gidx[ng], &err) != BK_OK) {
            rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--path %s: %s (at character %llu)", paths[i], err.msg,
                             (unsigned long long)err.offset);
            goto out;
        }
        ng++;
    }
    if (hex) {
        if (!unhex_arg(hex, &bytes, &nbytes)) {
            rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--hex: not hex");
            goto out;
        }
    } else {
        if ((rc = bk_cli_read_input_max(CMD, file, BK_CLI_MAX_SSZ, "an SSZ value is at most 4 GiB (SSZ offsets are 32-bit)", &in)) != 0) goto out;
        if (mode != 2 && mode != 4 && !raw) bk_cli_maybe_unhex(&in);
        bytes = NULL;
        nbytes = in.len;
    }
    const uint8_t *data = hex ? bytes : in.data;
    bk_status st = BK_OK;
    switch (mode) {
    case 0: {
        uint8_t r[32];
        if (!nsets) {
            st = bk_ssz_hash_tree_root(h, t, data, nbytes, r, &err);
            if (st == BK_OK) rc = put_hex_line(r, 32);
            break;
        }
        /* --set PATH=0xHEX ...: the root before, then after the edits,
         * re-hashed incrementally through a cached tree (bk_ssz_tree). */
        bk_ssz_tree *tree = NULL;
        st = bk_ssz_tree_create(&tree, t, data, nbytes, NULL, &err);
        if (st == BK_OK) st = bk_ssz_tree_root(tree, h, r, &err);
        if (st == BK_OK) rc = put_hex_line(r, 32);
        for (size_t k = 0; k < nsets && st == BK_OK && rc == BK_EXIT_OK; k++) {
            char spec[512];
            const char *eq = strchr(sets[k], '=');
            if (!eq || (size_t)(eq - sets[k]) >= sizeof spec) {
                rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--set %s: expected PATH=0xHEX", sets[k]);
                break;
            }
            memcpy(spec, sets[k], (size_t)(eq - sets[k]));
            spec[eq - sets[k]] = 0;
            const char *elems[MAX_PATH_ELEMS];
            size_t ne = split_path(spec, elems);
            uint8_t *val = NULL;
            size_t vn = 0;
            if (!unhex_arg(eq + 1, &val, &vn)) {
                rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--set %s: the value is not hex", sets[k]);
                break;
            }
            st = bk_ssz_tree_set(tree, elems, ne, val, vn, &err);
            free(val);
        }
        if (st == BK_OK && rc == BK_EXIT_OK) st = bk_ssz_tree_root(tree, h, r, &err);
        if (st == BK_OK && rc == BK_EXIT_OK) rc = put_hex_line(r, 32);
        bk_ssz_tree_free(tree);
        break;
    }
    case 1:
        st = bk_ssz_to_json(t, data, nbytes, &w, &err);
        if (st == BK_OK) {
            bk_writer_putc(&w, '\n');
            rc = emit(w.data, w.len);
        }
        break;
    case 2:
        st = bk_ssz_from_json(t, (const char *)data, nbytes, &w, NULL, &err);
        if (st == BK_OK) rc = put_hex_line(w.data, w.len);
        break;
    case 3:
        st = bk_ssz_proof_to_json(h, t, data, nbytes, gidx, ng, &w, &err);
        if (st == BK_OK) {
            bk_writer_putc(&w, '\n');
            rc = emit(w.data, w.len);
        }
        break;
    case 4: {
        uint8_t root[32], *rb = NULL;
        size_t rn = 0;
        if (root_hex) {
            if (!unhex_arg(root_hex, &rb, &rn) || rn != 32) {
                free(rb);
                rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--root: 0x + 64 hex digits");
                goto out;
            }
            memcpy(root, rb, 32);
            free(rb);
        }
        st = bk_ssz_proof_verify_json(h, (const char *)data, nbytes, root_hex ? root : NULL, ng ? gidx[0] : 0, NULL,
                                      &err);
        if (st == BK_OK) rc = emit("ok\n", 3);
        else if (st == BK_ERR_MISMATCH) {
            fprintf(stderr, "blockkit: ssz: proof rejected: %s\n", err.msg);
            rc = BK_EXIT_FAIL;
            st = BK_OK;
        }
        break;
    }
    }
    if (st != BK_OK) rc = bk_cli_report(CMD, &err);
out:
    bk_writer_free(&w);
    free(bytes);
    if (in.data) bk_cli_input_free(&in);
    bk_ssz_hasher_free(h);
    bk_ssz_pool_free(pool);
    bk_ssz_registry_free(reg);
    return rc;
}

BK_CLI_COMMAND(ssz_command, "ssz", "root|decode|encode|proof|verify TYPE [options] [FILE|-|--hex 0x..]",
               "SSZ hash_tree_root, decode/encode to value JSON, Merkle proofs", ssz_main)
