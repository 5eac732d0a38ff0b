/* blockkit ssz: hash_tree_root, decode, encode, proofs and proof checks for
 * SSZ values given as binary, 0x hex or JSON. */
#include "cli.h"
#include "opt.h"

#include <blockkit/hex.h>
#include <blockkit/ssz.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "ssz"; /* "ssz root" etc. once the subcommand is known */

/* Write the whole answer to standard output and flush it: 0, or exit 74
 * naming the error (a full disk, a closed descriptor); a reader that went
 * away (EPIPE: `| head`) is not an error. The shared output checks (cli.h)
 * report once, also for what main flushes after the command. */
static int emit(const void *p, size_t n)
{
    int rc = bk_cli_output_write(CMD, stdout, NULL, p, n);
    return rc ? rc : bk_cli_output_flush(CMD, stdout, NULL);
}

/* The subcommands: one option table each (ssz_rows), dispatched by bk_opt_dispatch. */
enum { SSZ_ROOT, SSZ_DECODE, SSZ_ENCODE, SSZ_PROOF, SSZ_VERIFY, SSZ_SYNTH, SSZ_NSUB };
static const char *const ssz_cmd[SSZ_NSUB] = {"ssz root", "ssz decode", "ssz encode",
                                              "ssz proof", "ssz verify", "ssz synth"};
static const char *const ssz_args[SSZ_NSUB] = {"TYPE [FILE|-]", "TYPE [FILE|-]", "TYPE [FILE|-]",
                                               "TYPE [FILE|-]", "TYPE [PROOF.json|-]", "TYPE"};
static const size_t ssz_max_args[SSZ_NSUB] = {2, 2, 2, 2, 2, 1};
static const char *const ssz_intro[SSZ_NSUB] = {
    "Prints the hash_tree_root of the value in FILE (binary or 0x hex; standard\n"
    "input when none or -) or --hex as 0x + 64 hex digits. With --set: the root,\n"
    "then the root after the edits, applied to a cached tree re-hashing only the\n"
    "changed paths.\n",
    "Prints the value in FILE (binary or 0x hex; standard input when none or -)\n"
    "or --hex as value JSON.\n",
    "Reads value JSON from FILE (standard input when none or -) and prints its\n"
    "serialization as 0x hex.\n",
    "Prints a proof JSON for the value in FILE or --hex: one path or gindex gives\n"
    "gindex, leaf and branch; several give a multiproof. Path elements: field\n"
    "names, list/vector indices, __len__.\n",
    "Checks the proof JSON in PROOF.json (standard input when none or -): exits 0\n"
    "and prints ok when it holds against --root (default: the proof's own root)\n"
    "for the --path or --gindex (default: the proof's own), 1 when it does not.\n",
    "Writes a valid random value (binary) whose lists of limit >= L hold N elements\n"
    "(a mainnet-size BeaconState: synth BeaconState --count 1048576).\n",
};

static const char ssz_outro[] =
    "TYPE: uint8..uint256, bool, Vector[T,N], List[T,N], ByteVector[N],\n"
    "      ByteList[N], Bitvector[N], Bitlist[N], Union[T0,...], ProgressiveList[T],\n"
    "      ProgressiveByteList, ProgressiveBitlist, Container:Name or fork:Name\n"
    "      (every fork's consensus containers are built in: --fork NAME picks the\n"
    "      fork of bare names, default the newest; --preset mainnet|minimal; more\n"
    "      from --schema {\"Name\":[[\"field\",\"type\"],...]}). Forks: --fork list.\n"
    "\n"
    "Exit status (the table in blockkit(1)): 0 ok, 1 proof rejected, 64 usage,\n"
    "65 invalid data (with byte offset and path), 66 missing input, 74 I/O.\n";

static const char ssz_overview[] =
    "usage: blockkit ssz root|decode|encode|proof|verify|synth TYPE [options] [FILE|-]\n"
    "\n"
    "SSZ values given as binary, 0x hex or value JSON: root prints the\n"
    "hash_tree_root, decode the value JSON, encode the 0x hex, proof a Merkle proof\n"
    "JSON; verify checks a proof; synth writes a random valid value.\n"
    "`blockkit ssz SUBCOMMAND --help` explains one subcommand and its options:\n"
    "\n";

typedef struct ssz_opts {
    const char *schema, *hex, *root_hex, *fork;
    int preset, raw, threads;
    int64_t count, min_limit, seed;
    bk_opt_list sets, paths, gindices;
} ssz_opts;

enum { SSZ_MAX_ROWS = 16 };

/* The rows of subcommand mode into rows[] (ended by BK_OPT_END). */
static void ssz_rows(int mode, ssz_opts *o, bk_opt rows[SSZ_MAX_ROWS])
{
    size_t n = 0;
    int input = mode == SSZ_ROOT || mode == SSZ_DECODE || mode == SSZ_PROOF;
    const bk_opt common[] = {
        BK_OPT_ROW_STR("--fork", 0, &o->fork, "F", "the fork of bare container names (default the newest;\n"
                                                     "list: print the forks)"),
        BK_OPT_ROW_CHOICE("--preset", &o->preset, "mainnet|minimal", "the preset (default mainnet)"),
        BK_OPT_ROW_STR("--schema", 0, &o->schema, "FILE", "more containers: {\"Name\":[[\"field\",\"type\"],...]}"),
    };
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) rows[n++] = common[i];
    if (input) {
        const bk_opt in_rows[] = {
            BK_OPT_ROW_STR("--hex", 0, &o->hex, "0x..", "the value as an argument (instead of FILE)"),
            BK_OPT_ROW_FLAG("--raw", 0, &o->raw, "the input is binary, even if it looks like hex"),
        };
        for (size_t i = 0; i < sizeof in_rows / sizeof in_rows[0]; i++) rows[n++] = in_rows[i];
    }
    if (mode == SSZ_ROOT || mode == SSZ_PROOF) {
        const bk_opt r = BK_OPT_JOBS(&o->threads, "hash large lists on N threads (default 1; same result)");
        rows[n++] = r;
    }
    if (mode == SSZ_ROOT) {
        const bk_opt r = BK_OPT_ROW_LIST("--set", 0, &o->sets, "PATH=0xHEX",
                                         "after the root, edit PATH (repeatable, at most 64) and\n"
                                         "print the new root");
        rows[n++] = r;
    }
    if (mode == SSZ_PROOF || mode == SSZ_VERIFY) {
        const bk_opt pr[] = {
            BK_OPT_ROW_LIST("--path", 0, &o->paths, "a.b.c",
                            mode == SSZ_PROOF ? "a path to prove (repeatable; with --gindex at most 64)"
                                              : "the path the proof must be for (at most one\n"
                                                "--path or --gindex)"),
            BK_OPT_ROW_LIST("--gindex", 0, &o->gindices, "N",
                            mode == SSZ_PROOF ? "a generalized index to prove, 1..2^64-1 (repeatable)"
                                              : "the generalized index the proof must be for"),
        };
        for (size_t i = 0; i < sizeof pr / sizeof pr[0]; i++) rows[n++] = pr[i];
    }
    if (mode == SSZ_VERIFY) {
        const bk_opt r = BK_OPT_ROW_STR("--root", 0, &o->root_hex, "0x..",
                                        "the root to check against (0x + 64 hex digits; default\n"
                                        "the proof's own)");
        rows[n++] = r;
    }
    if (mode == SSZ_SYNTH) {
        const bk_opt sr[] = {
            BK_OPT_ROW_I64("--count", 0, &o->count, 0, INT64_MAX, "N", "elements in each list of limit >= L (default 0)"),
            BK_OPT_ROW_I64("--min-limit", 0, &o->min_limit, 0, INT64_MAX, "L", "the smallest limit filled (default 2^40)"),
            BK_OPT_ROW_I64("--seed", 0, &o->seed, 0, INT64_MAX, "S", "the random seed (default 1)"),
        };
        for (size_t i = 0; i < sizeof sr / sizeof sr[0]; i++) rows[n++] = sr[i];
    }
    const bk_opt end = BK_OPT_END;
    rows[n] = end;
}

/* `ssz --help` and `ssz --usage`: the synopsis of every subcommand, from
 * the same tables. */
static int ssz_overview_print(int help)
{
    int rc = help ? bk_cli_help(CMD, ssz_overview) : 0;
    for (int m = 0; m < SSZ_NSUB && !rc; m++) {
        ssz_opts o = {0};
        bk_opt rows[SSZ_MAX_ROWS];
        ssz_rows(m, &o, rows);
        bk_opt_spec spec = {ssz_cmd[m], ssz_args[m], ssz_intro[m], ssz_outro, rows, ssz_max_args[m]};
        rc = bk_opt_print_usage(&spec);
    }
    if (!rc && help) rc = bk_cli_help(CMD, "\n");
    if (!rc && help) rc = bk_cli_help(CMD, ssz_outro);
    return rc;
}

static int put_hex_line(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 4);
    if (!s) return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
    s[0] = '0';
    s[1] = 'x';
    bk_hex_encode(s + 2, p, n);
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
    if (bk_hex_decode(*out, s, l / 2, NULL) != BK_OK) {
        free(*out);
        return 0;
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

/* root --set PATH=0xHEX ...: the root before, then after the edits,
 * re-hashed incrementally through a cached tree (bk_ssz_tree). */
static bk_status ssz_root_sets(bk_ssz_hasher *h, const bk_ssz_type *t, const uint8_t *data, size_t nbytes,
                               const char *const *sets, size_t nsets, int *rc, bk_error *err)
{
    uint8_t r[32];
    bk_ssz_tree *tree = NULL;
    bk_status st = bk_ssz_tree_create(&tree, t, data, nbytes, NULL, err);
    if (st == BK_OK) st = bk_ssz_tree_root(tree, h, r, err);
    if (st == BK_OK) *rc = put_hex_line(r, 32);
    for (size_t k = 0; k < nsets && st == BK_OK && *rc == BK_EXIT_OK; k++) {
        char spec[512];
        const char *eq = strchr(sets[k], '=');
        if (!eq || (size_t)(eq - sets[k]) >= sizeof spec) {
            *rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--set %s: expected PATH=0xHEX", sets[k]);
            break;
        }
        memcpy(spec, sets[k], (size_t)(eq - sets[k]));
        spec[eq - sets[k]] = 0;
        const char *elems[MAX_PATH_ELEMS];
        size_t ne = split_path(spec, elems);
        uint8_t *val = NULL;
        size_t vn = 0;
        if (!unhex_arg(eq + 1, &val, &vn)) {
            *rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--set %s: the value is not hex", sets[k]);
            break;
        }
        st = bk_ssz_tree_set(tree, elems, ne, val, vn, err);
        free(val);
    }
    if (st == BK_OK && *rc == BK_EXIT_OK) st = bk_ssz_tree_root(tree, h, r, err);
    if (st == BK_OK && *rc == BK_EXIT_OK) *rc = put_hex_line(r, 32);
    bk_ssz_tree_free(tree);
    return st;
}

/* verify: the proof JSON against --root (default its own) and the gindex
 * (0: its own); ok, or exit 1 when it does not hold. */
static bk_status ssz_verify_proof(bk_ssz_hasher *h, const uint8_t *data, size_t nbytes, const char *root_hex,
                                  uint64_t gindex, int *rc, bk_error *err)
{
    uint8_t root[32], *rb = NULL;
    size_t rn = 0;
    if (root_hex) {
        if (!unhex_arg(root_hex, &rb, &rn) || rn != 32) {
            free(rb);
            *rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "--root: 0x + 64 hex digits");
            return BK_OK;
        }
        memcpy(root, rb, 32);
        free(rb);
    }
    bk_status st = bk_ssz_proof_verify_json(h, (const char *)data, nbytes, root_hex ? root : NULL, gindex, NULL, err);
    if (st == BK_OK) *rc = emit("ok\n", 3);
    else if (st == BK_ERR_MISMATCH) {
        fprintf(stderr, "blockkit: %s: proof rejected: %s\n", CMD, err->msg);
        *rc = BK_EXIT_FAIL;
        st = BK_OK;
    }
    return st;
}

static int ssz_run(int mode, int argc, char **argv)
{
    CMD = ssz_cmd[mode]; /* messages say "blockkit: ssz root: ..." */
    ssz_opts so = {0};
    so.fork = bk_ssz_fork_name(bk_ssz_fork_count() - 1);
    so.threads = 1;
    so.min_limit = INT64_C(1) << 40;
    so.seed = 1;
    bk_opt rows[SSZ_MAX_ROWS];
    ssz_rows(mode, &so, rows);
    bk_opt_spec ospec = {CMD, ssz_args[mode], ssz_intro[mode], ssz_outro, rows, ssz_max_args[mode]};
    bk_opt_args args;
    int prc = bk_opt_parse(&ospec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    /* argv strings (they outlive args); the lists are copied below. */
    const char *type_str = args.n > 0 ? args.v[0] : NULL, *file = args.n > 1 ? args.v[1] : NULL;
    const char *schema = so.schema, *hex = so.hex, *root_hex = so.root_hex, *fork = so.fork;
    const char *preset = so.preset ? "minimal" : "mainnet";
    int threads = so.threads, raw = so.raw;
    uint64_t count = (uint64_t)so.count, min_limit = (uint64_t)so.min_limit, seed = (uint64_t)so.seed;
    const char *sets[MAX_SETS];
    size_t nsets = so.sets.n;
    const char *paths[MAX_PATHS];
    size_t npaths = so.paths.n;
    uint64_t gidx[MAX_PATHS];
    size_t ng = 0;
    bk_error err;
    bk_error_clear(&err);
    /* --gindex values and the gindices of the paths share gidx[]. */
    int urc = 0;
    if (nsets > MAX_SETS) urc = bk_cli_fail(CMD, BK_EXIT_USAGE, "at most %d --set", MAX_SETS);
    else if (npaths + so.gindices.n > MAX_PATHS)
        urc = bk_cli_fail(CMD, BK_EXIT_USAGE, "too many --path/--gindex: at most %d in total", MAX_PATHS);
    for (size_t k = 0; !urc && k < so.gindices.n; k++) {
        const char *v = so.gindices.v[k];
        if (bk_ssz_gindex_parse(v, strlen(v), &gidx[ng++], &err) != BK_OK)
            urc = bk_cli_fail(CMD, BK_EXIT_USAGE, "bad value for --gindex: '%s' (%s)", v, err.msg);
    }
    if (!urc) {
        /* a subcommand without the row leaves its list NULL */
        if (nsets) memcpy(sets, so.sets.v, nsets * sizeof *sets);
        if (npaths) memcpy(paths, so.paths.v, npaths * sizeof *paths);
    }
    bk_opt_args_free(&args);
    if (urc) return urc;
    if (!strcmp(fork, "list")) {
        for (size_t k = 0; k < bk_ssz_fork_count(); k++)
            if (printf("%s\n", bk_ssz_fork_name(k)) < 0) break;
        return bk_cli_output_flush(CMD, stdout, NULL);
    }
    if (!type_str) return bk_cli_fail(CMD, BK_EXIT_USAGE, "missing TYPE (see --help)");
    if (hex && file) return bk_cli_fail(CMD, BK_EXIT_USAGE, "give FILE or --hex, not both");
    if (mode == SSZ_PROOF && npaths + ng == 0) return bk_cli_fail(CMD, BK_EXIT_USAGE, "proof needs --path or --gindex");
    if (mode == SSZ_VERIFY && npaths + ng > 1)
        return bk_cli_fail(CMD, BK_EXIT_USAGE, "verify takes at most one --path or --gindex");

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
            rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "%s: %s at byte %llu", schema, err.msg, (unsigned long long)err.offset);
            goto out;
        }
    }
    const bk_ssz_type *t;
    if (bk_ssz_type_parse(reg, type_str, &t, &err) != BK_OK) {
        /* "schema: ..." errors are at a byte of the schema text (ssz.h). */
        if (!strncmp(err.msg, "schema: ", 8))
            rc = bk_cli_fail(CMD, BK_EXIT_USAGE, "%s: %s at byte %llu", schema ? schema : "built-in schema", err.msg,
                             (unsigned long long)err.offset);
        else
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
        if (nsets) {
            st = ssz_root_sets(h, t, data, nbytes, sets, nsets, &rc, &err);
            break;
        }
        st = bk_ssz_hash_tree_root(h, t, data, nbytes, r, &err);
        if (st == BK_OK) rc = put_hex_line(r, 32);
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
    case 4: st = ssz_verify_proof(h, data, nbytes, root_hex, ng ? gidx[0] : 0, &rc, &err); break;
    }
    if (st != BK_OK) {
        rc = bk_cli_report(CMD, &err);
        /* a path or generalized index the type does not have is invalid
         * data (65), not a missing input */
        if (st == BK_ERR_NOT_FOUND) rc = BK_EXIT_DATA;
    }
out:
    bk_writer_free(&w);
    free(bytes);
    if (in.data) bk_cli_input_free(&in);
    bk_ssz_hasher_free(h);
    bk_ssz_pool_free(pool);
    bk_ssz_registry_free(reg);
    return rc;
}

static int ssz_root(int argc, char **argv) { return ssz_run(SSZ_ROOT, argc, argv); }
static int ssz_decode(int argc, char **argv) { return ssz_run(SSZ_DECODE, argc, argv); }
static int ssz_encode(int argc, char **argv) { return ssz_run(SSZ_ENCODE, argc, argv); }
static int ssz_proof(int argc, char **argv) { return ssz_run(SSZ_PROOF, argc, argv); }
static int ssz_verify(int argc, char **argv) { return ssz_run(SSZ_VERIFY, argc, argv); }
static int ssz_synth(int argc, char **argv) { return ssz_run(SSZ_SYNTH, argc, argv); }

static int ssz_main(int argc, char **argv)
{
    static const bk_opt_sub subs[] = {{"root", ssz_root},     {"decode", ssz_decode}, {"encode", ssz_encode},
                                      {"proof", ssz_proof},   {"verify", ssz_verify}, {"synth", ssz_synth},
                                      {NULL, NULL}};
    const bk_opt_subcommands sc = {
        "ssz", subs, NULL, ssz_overview_print,
        "missing subcommand: root, decode, encode, proof, verify or synth (see --help)",
        "unknown subcommand \"%s\" (root, decode, encode, proof, verify, synth)"};
    return bk_opt_dispatch(&sc, argc, argv);
}

BK_CLI_COMMAND(ssz_command, "ssz", "root|decode|encode|proof|verify TYPE [options] [FILE|-|--hex 0x..]",
               "SSZ hash_tree_root, decode/encode to value JSON, Merkle proofs", ssz_main)
