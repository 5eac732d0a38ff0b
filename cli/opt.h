/* blockkit CLI: the one option parser. A command is a table of rows plus a
 * call; the parser, the --help option list and the man page synopsis
 * (--usage) all come from the same rows (docs/blockkit.1, tests/cli_contract).
 *
 * Grammar, the same for every command:
 *   --name VALUE, --name=VALUE    a value option (a FLAG refuses =VALUE)
 *   -x VALUE, -xVALUE             a short option with a value (-j4, -o F)
 *   --                            ends the options: the rest are arguments
 *   -                             an argument (standard input or output)
 *   options and arguments in any order; --help/-h anywhere prints the help,
 *   --usage prints the synopsis line.
 * Messages (exit 64, nothing on standard output):
 *   "unknown option X (see --help)", "X needs a value",
 *   "bad value for X: 'V'" (plus the allowed values or bounds),
 *   "X takes no value", "unexpected argument 'A' (see --help)". */
#ifndef BLOCKKIT_CLI_OPT_H
#define BLOCKKIT_CLI_OPT_H

#include <stddef.h>
#include <stdint.h>

typedef enum bk_opt_kind {
    BK_OPT_FLAG,   /* no value: *(int *)dest = set (1 when set is 0) */
    BK_OPT_STR,    /* *(const char **)dest = the value (never empty) */
    BK_OPT_INT,    /* *(int *)dest: a whole decimal number within [min, max] */
    BK_OPT_I64,    /* *(int64_t *)dest: the same, 64-bit */
    BK_OPT_CHOICE, /* *(int *)dest = the index of the value in arg ("a|b|c") */
    BK_OPT_CALL,   /* parse(dest, value): 1 taken, 0 a bad value */
    BK_OPT_LIST,   /* repeatable: each value appended to a bk_opt_list */
} bk_opt_kind;

/* The values of a repeatable option, in order (storage owned by the
 * parse: bk_opt_args_free). */
typedef struct bk_opt_list {
    const char **v;
    size_t n;
} bk_opt_list;

typedef struct bk_opt {
    const char *name;  /* "--datadir"; NULL ends a table */
    char short_name;   /* 'o', 'j', 0 for none */
    bk_opt_kind kind;
    void *dest;
    int64_t min, max;  /* INT, I64 bounds */
    const char *arg;   /* the value's name in help ("DIR"); CHOICE: "auto|always|never" */
    const char *help;  /* help text; each '\n' starts a continuation line */
    int (*parse)(void *dest, const char *value); /* CALL */
    int set;           /* FLAG: the value stored (0 means 1) */
    int seen;          /* filled by the parser: how many times it was given */
    unsigned modes;    /* the command's modes it is for (bit i: mode i; 0: every mode): BK_OPT_IN */
} bk_opt;

#define BK_OPT_END {NULL, 0, BK_OPT_FLAG, NULL, 0, 0, NULL, NULL, NULL, 0, 0, 0}

/* Row constructors. */
#define BK_OPT_ROW_FLAG(name, sh, dest, help) {name, sh, BK_OPT_FLAG, dest, 0, 0, NULL, help, NULL, 0, 0, 0}
#define BK_OPT_ROW_FLAGV(name, dest, value, help) {name, 0, BK_OPT_FLAG, dest, 0, 0, NULL, help, NULL, value, 0, 0}
#define BK_OPT_ROW_STR(name, sh, dest, arg, help) {name, sh, BK_OPT_STR, dest, 0, 0, arg, help, NULL, 0, 0, 0}
#define BK_OPT_ROW_INT(name, sh, dest, lo, hi, arg, help) {name, sh, BK_OPT_INT, dest, lo, hi, arg, help, NULL, 0, 0, 0}
#define BK_OPT_ROW_I64(name, sh, dest, lo, hi, arg, help) {name, sh, BK_OPT_I64, dest, lo, hi, arg, help, NULL, 0, 0, 0}
#define BK_OPT_ROW_CHOICE(name, dest, choices, help) {name, 0, BK_OPT_CHOICE, dest, 0, 0, choices, help, NULL, 0, 0, 0}
#define BK_OPT_ROW_CALL(name, sh, dest, fn, arg, help) {name, sh, BK_OPT_CALL, dest, 0, 0, arg, help, fn, 0, 0, 0}
#define BK_OPT_ROW_LIST(name, sh, dest, arg, help) {name, sh, BK_OPT_LIST, dest, 0, 0, arg, help, NULL, 0, 0, 0}

/* A row for some of a command's modes only (a command with modes: block FILE
 * or --datadir lookups, export's block datasets, --verify, utxos...):
 * BK_OPT_IN(BIT(FILE) | BIT(DIR), BK_OPT_ROW_...(...)). bk_opt_mode_check
 * refuses a row given in a mode it is not for. */
static inline bk_opt bk_opt_in_(unsigned modes, bk_opt o)
{
    o.modes = modes;
    return o;
}
#define BK_OPT_IN(modes, row) bk_opt_in_((modes), (bk_opt)row)

/* What a command's mode is called in the refusal of an option given in a
 * mode it is not for: "X is not for <not_for>" when the mode in use has
 * not_for, else "X is for <is_for>" of the option's first mode (X being
 * "-c/--name" for a row with a short name). */
typedef struct bk_opt_mode {
    const char *is_for;
    const char *not_for;
} bk_opt_mode;

/* A command's whole option contract. */
typedef struct bk_opt_spec {
    const char *cmd;      /* "scan", "utxo stats": messages say "blockkit: <cmd>: ..." */
    const char *args;     /* the arguments in the synopsis ("HASH|HEIGHT..."; NULL: none) */
    const char *intro;    /* the text between the usage line and the options */
    const char *outro;    /* the text after the options (signals, exit status) */
    bk_opt *opts;         /* the rows, ended by BK_OPT_END */
    size_t max_args;      /* positional arguments allowed (SIZE_MAX: any number) */
} bk_opt_spec;

typedef struct bk_opt_args {
    const char **v;       /* positional arguments, in order */
    size_t n;
    void *owned_;         /* the parse's storage */
} bk_opt_args;

/* 0, or 64 after the message for the first row (in table order) given
 * that is not for mode (an index into modes[]). */
int bk_opt_mode_check(const bk_opt_spec *spec, int mode, const bk_opt_mode *modes);

/* Subcommands: a command whose first argument may be a word naming one of
 * its tables (filter match, proof verify, utxo stats|dump|snapshot, ssz
 * root|...). bk_opt_dispatch runs the subcommand named by argv[1] (its
 * main gets argv[1..]); "--usage" as argv[1] prints every synopsis line
 * (plain's, then each subcommand's); anything else goes to plain (the
 * command's own table) or, for a command that needs a word: --help/-h
 * prints help(1); no word: the missing message (NULL: help(0) on stderr),
 * exit 64; another word: the unknown message (one %s: the word), 64. */
typedef struct bk_opt_sub {
    const char *name;                    /* NULL ends the table */
    int (*main)(int argc, char **argv);  /* argv[0] is the subcommand's word */
} bk_opt_sub;

typedef struct bk_opt_subcommands {
    const char *cmd;
    const bk_opt_sub *subs;
    int (*plain)(int argc, char **argv); /* no subcommand word: NULL when one is needed */
    int (*help)(int to_stdout);          /* needed word: the overview; to stdout: 0 or 74 */
    const char *missing;
    const char *unknown;
} bk_opt_subcommands;

int bk_opt_dispatch(const bk_opt_subcommands *sc, int argc, char **argv);

/* bk_opt_parse's result when the command should go on. */
#define BK_OPT_CONTINUE (-1)

/* Parse argv[1..argc-1] (argv[0] is the command's name) against the spec.
 * Returns BK_OPT_CONTINUE with the arguments in *args (free them with
 * bk_opt_args_free), or the status to exit with: 0 after --help or
 * --usage was printed, 64 after a usage message, 74 when printing failed. */
int bk_opt_parse(const bk_opt_spec *spec, int argc, char **argv, bk_opt_args *args);
void bk_opt_args_free(bk_opt_args *args);

/* The row named name (NULL when the table has none): its seen count says
 * whether the user gave it. */
const bk_opt *bk_opt_find(const bk_opt_spec *spec, const char *name);
int bk_opt_given(const bk_opt_spec *spec, const char *name);

/* The --help text (usage line, intro, one line per option from the rows,
 * outro) and the synopsis line ("blockkit <cmd> [--x V]... ARGS"), each
 * written to standard output with every write checked: 0 or 74. */
int bk_opt_print_help(const bk_opt_spec *spec);
int bk_opt_print_usage(const bk_opt_spec *spec);

/* ---- the shared groups: one spelling of each shared option ---- */

/* Range: --start H, --end H|-N (N blocks below the tip). end and
 * below_tip are -1 when not given. */
typedef struct bk_cli_range {
    int64_t start;
    int64_t end;
    int64_t below_tip;
} bk_cli_range;
void bk_cli_range_init(bk_cli_range *r);
int bk_opt_parse_end(void *dest, const char *value);
/* No silent empty success: "no block in heights S..E" (the range as
 * given), exit 66. */
int bk_cli_empty_range(const char *cmd, const bk_cli_range *r);
#define BK_OPT_RANGE(r) BK_OPT_ROW_START(r), BK_OPT_ROW_END(r)
#define BK_OPT_ROW_START(r) BK_OPT_ROW_I64("--start", 0, &(r)->start, 0, INT32_MAX, "H", "first height (default 0)")
#define BK_OPT_ROW_END(r)                                                                            \
    BK_OPT_ROW_CALL("--end", 0, (r), bk_opt_parse_end, "H|-N",                                        \
                    "last height (default the tip; past the tip: the tip);\n-N: N blocks below the tip")

/* Workers: -j N / -jN / --jobs N (default: online CPUs, at most 256) and
 * --progress auto|always|never (auto: when stderr is a terminal). */
enum { BK_PROGRESS_AUTO = 0, BK_PROGRESS_ALWAYS = 1, BK_PROGRESS_NEVER = 2 };
int bk_cli_default_workers(void);
#define BK_OPT_JOBS(dest, help) BK_OPT_ROW_INT("--jobs", 'j', dest, 1, 256, "N", help)
#define BK_OPT_PROGRESS(dest)                                                                        \
    BK_OPT_ROW_CHOICE("--progress", dest, "auto|always|never",                                        \
                      "progress on stderr (default auto: when stderr is a terminal)")
/* Whether progress is on for a BK_PROGRESS_* choice. */
int bk_cli_progress_on(int choice);

/* Output: -o/--output FILE|-, --force, --resume, --pretty. */
#define BK_OPT_OUTPUT(dest, help) BK_OPT_ROW_STR("--output", 'o', dest, "FILE|-", help)
#define BK_OPT_FORCE(dest) BK_OPT_ROW_FLAG("--force", 0, dest, "overwrite an existing non-empty output file")
#define BK_OPT_PRETTY(dest) BK_OPT_ROW_FLAGV("--pretty", dest, 2, "bitcoin-cli's indented form")

/* Table format (export, utxo dump): --format, --compression, --zstd-level. */
#define BK_OPT_TABLE_FORMAT(fmt, codec, level)                                                       \
    BK_OPT_ROW_FORMAT(fmt), BK_OPT_ROW_COMPRESSION(codec), BK_OPT_ROW_ZSTD_LEVEL(level)
#define BK_OPT_ROW_FORMAT(fmt)                                                                       \
    BK_OPT_ROW_CALL("--format", 0, fmt, bk_opt_parse_table_format, "parquet|csv|ndjson",            \
                    "table format (default parquet)")
#define BK_OPT_ROW_COMPRESSION(codec)                                                                \
    BK_OPT_ROW_CALL("--compression", 0, codec, bk_opt_parse_codec, "zstd|snappy|none",              \
                    "Parquet page compression (default zstd)")
#define BK_OPT_ROW_ZSTD_LEVEL(level)                                                                 \
    BK_OPT_ROW_INT("--zstd-level", 0, level, -7, 19, "N", "zstd level, -7 (fastest) .. 19 (default -5)")
int bk_opt_parse_table_format(void *dest, const char *value);
int bk_opt_parse_codec(void *dest, const char *value);

/* --chain NAME into a bk_network (cli/source.h's group uses it). */
int bk_opt_parse_network(void *dest, const char *value);

#endif
