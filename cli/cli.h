/* blockkit CLI: command registration and shared helpers. Commands live one
 * per file (cli/<name>.c) and register themselves with BK_CLI_COMMAND. */
#ifndef BLOCKKIT_CLI_H
#define BLOCKKIT_CLI_H

#include <stdio.h>
#include <blockkit/blockkit.h>

/* Exit codes (BSD sysexits). */
enum {
    BK_EXIT_OK = 0,
    BK_EXIT_FAIL = 1,        /* a check failed (e.g. verify said no) */
    BK_EXIT_USAGE = 64,
    BK_EXIT_DATA = 65,
    BK_EXIT_NOINPUT = 66,
    BK_EXIT_SOFTWARE = 70,
    BK_EXIT_IO = 74,
    BK_EXIT_TEMPFAIL = 75,   /* another blockkit writes into the same --out (try again later) */
};

typedef struct bk_cli_command {
    const char *name;
    const char *usage;     /* one line: arguments */
    const char *summary;   /* one line: what it does */
    int (*main)(int argc, char **argv);  /* argv[0] is the command name */
} bk_cli_command;

void bk_cli_register(const bk_cli_command *cmd);

#define BK_CLI_COMMAND(ident, name_, usage_, summary_, fn_)                      \
    static const bk_cli_command ident = {name_, usage_, summary_, fn_};          \
    __attribute__((constructor)) static void ident##_register(void)             \
    {                                                                            \
        bk_cli_register(&ident);                                                 \
    }

/* A whole input in memory: a file or standard input ("-"), read (not
 * mapped: a file may shrink while it is read) into one buffer. */
typedef struct bk_cli_input {
    uint8_t *data;
    size_t len;
} bk_cli_input;

/* The most a command reads, by what the input is: no valid input is longer
 * (a FIFO or /dev/zero never makes one allocate more). */
#define BK_CLI_MAX_BLOCK ((size_t)16 << 20)  /* a block or transaction: 4,000,000 bytes, 8,000,000 as hex */
#define BK_CLI_MAX_UNDO ((size_t)256 << 20)  /* a CBlockUndo, or its coins listing */
#define BK_CLI_MAX_SCRIPT ((size_t)16 << 20) /* a script as hex */
#define BK_CLI_MAX_SCHEMA ((size_t)16 << 20) /* an SSZ schema (JSON) */
#define BK_CLI_MAX_SSZ (((size_t)1 << 33) + 64) /* SSZ offsets are 32-bit: 4 GiB, as hex */
#define BK_CLI_WHAT_BLOCK "a block is at most 4,000,000 bytes (8,000,000 hex digits)"

/* Reads all of path ("-" or NULL: standard input), at most max bytes
 * (more: exit 65, "<path>: more than <max> bytes: <what>"). Returns 0 or
 * an exit code after printing "blockkit: <cmd>: ..." on stderr. */
int bk_cli_read_input_max(const char *cmd, const char *path, size_t max, const char *what, bk_cli_input *in);
void bk_cli_input_free(bk_cli_input *in);

/* If the input is hex text (optionally 0x-prefixed, surrounding white space
 * allowed), decode it in place and return 1; return 0 when it is not hex. */
int bk_cli_maybe_unhex(bk_cli_input *in);

/* Print "blockkit: <cmd>: <message>[ at byte N][ (path)]" and return the exit code
 * that the status maps to (bk_cli_exit_code: 64 arguments, 65 bad data, 66
 * not found, 70 out of memory, 74 I/O, 75 locked). */
int bk_cli_report(const char *cmd, const bk_error *err);
int bk_cli_exit_code(bk_status st);

/* Print a formatted error "blockkit: <cmd>: ..." ("blockkit: ..." when cmd is
 * NULL) and return code. */
int bk_cli_fail(const char *cmd, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- output: every write, flush and close is checked (docs/blockkit.1,
 * EXIT STATUS). A closed pipe (`| head`, `| true`) is not an error: the
 * command ends quietly with status 0. Any other write error is exit 74 with
 * "blockkit: <cmd>: <path>: write error: <reason>", the path being the -o
 * file or "standard output". ---- */

/* Write all bytes to a stream; returns 0, or BK_EXIT_IO without a message
 * (the caller names the output; bk_cli_output_error does). A closed pipe is
 * reported as 0 and sets bk_cli_pipe_closed, after which nothing more is
 * written. */
int bk_cli_write_all(FILE *f, const void *p, size_t n);
extern int bk_cli_pipe_closed;
/* errno of the last failed write through these helpers (0: none). */
extern int bk_cli_write_errno;

/* A bk_sink_fn writing to a FILE*. */
int bk_cli_file_sink(void *ctx, const uint8_t *data, size_t len);

/* The name of an output for messages: path, or "standard output" for NULL
 * and "-". */
const char *bk_cli_output_name(const char *path);

/* Whether a failed write to f means its reader went away (EPIPE seen, or the
 * descriptor is a pipe or socket whose other end is closed). */
int bk_cli_output_gone(FILE *f, int err);

/* Report a write error on output path (NULL = standard output) and return
 * BK_EXIT_IO; returns 0 quietly (setting bk_cli_pipe_closed) when the error
 * is a closed pipe. err is the errno (0: bk_cli_write_errno or EIO). */
int bk_cli_output_error(const char *cmd, FILE *f, const char *path, int err);

/* bk_cli_write_all, then bk_cli_output_error on failure: 0 or the exit code
 * (the message printed). */
int bk_cli_output_write(const char *cmd, FILE *f, const char *path, const void *p, size_t n);

/* A command's --help text to standard output, written and flushed here so
 * that a failure names its errno (a text longer than stdio's buffer fails
 * inside fputs, whose errno a later flush no longer knows): 0 or 74. */
int bk_cli_help(const char *cmd, const char *text);

/* Flush f and check its error flag: 0, or bk_cli_output_error's result. */
int bk_cli_output_flush(const char *cmd, FILE *f, const char *path);

/* Flush, check and close f (stdout is flushed and checked, and closed too
 * when close_stdout is set: main does this after every command). Returns 0
 * or bk_cli_output_error's result; f is closed either way. */
int bk_cli_output_close(const char *cmd, FILE *f, const char *path, int close_stdout);

/* Whole lines to an output, never a partial one: lines are gathered in a
 * buffer and written with write(2) on the descriptor; a write that fails
 * part way to a regular file is cut back to the last complete line. Used
 * by `chain` (scan's emitter does the same per block). */
typedef struct bk_cli_lines {
    FILE *f;
    int fd;
    int regular;
    char *buf;
    size_t len, cap;
    int err;      /* errno of the failed write (0: none) */
} bk_cli_lines;

void bk_cli_lines_init(bk_cli_lines *w, FILE *f);
/* Append one complete line; 0, or -1 after a write error (w->err). */
int bk_cli_lines_put(bk_cli_lines *w, const char *line, size_t n);
/* Write what is gathered; 0 or -1 (w->err). */
int bk_cli_lines_flush(bk_cli_lines *w);
void bk_cli_lines_free(bk_cli_lines *w);

/* ---- blocks directories ---- */

#include <blockkit/chain.h>

/* No silent empty success (13-wrong-network-or-garbage-dir-silent-success):
 * after a chain build over d, returns 0 when it found blocks of d's network
 * connected to a genesis block (or any block when orphans_ok), else prints
 * what was found and what to do, and returns 66 (no blk files: "this looks
 * like a datadir, use --datadir"; no genesis: "pruned or partial, see
 * --orphans") or 65 (the files hold another network's records: its magic and
 * `--chain` name; or no records at all). */
int bk_cli_check_chain(const char *cmd, const bk_blocksdir *d, const bk_chain *c, int orphans_ok);

/* The one message for an option the command does not have, and for a
 * known option given last without its value: exit 64. Every command's
 * parser classifies an option before it asks for its value. */
int bk_cli_unknown_option(const char *cmd, const char *opt);
int bk_cli_missing_value(const char *cmd, const char *opt);

/* A whole decimal argument (optional sign) as int64: 1, or 0 when it is
 * empty, has other characters or overflows. */
int bk_cli_parse_i64(const char *s, int64_t *out);
/* A block hash as Core prints it (64 hex digits, reversed) into internal
 * byte order: 1, or 0 when s is not that. */
int bk_cli_parse_block_hash(const char *s, uint8_t out[32]);

/* The undo input of `block --undo` and `stats --undo`: a rev*.dat record
 * (network magic, u32 size, CBlockUndo, 32-byte checksum) whose checksum
 * is verified against b's parent as Core's ReadBlockUndo does
 * (BK_ERR_CHECKSUM), a record framed for another network (BK_ERR_MAGIC
 * naming its --chain), or else a bare CBlockUndo: *undo_out and
 * *undo_len_out the CBlockUndo's bytes. */
bk_status bk_cli_locate_undo(const uint8_t *data, size_t len, const bk_block *b, bk_network net,
                             const uint8_t **undo_out, size_t *undo_len_out, bk_error *err);

/* A block FILE as `block` and `stats` take it: read within
 * BK_CLI_MAX_BLOCK (binary or hex), decoded, and its height (the one
 * given, else its coinbase's BIP34 height: a usage error without one);
 * then, if asked, the --undo FILE read within BK_CLI_MAX_UNDO (binary or
 * hex) into undo_in, for bk_cli_locate_undo. Each returns 0 or an exit
 * code after the message; free what load filled with _free, whatever it
 * returned. */
typedef struct bk_cli_block_file {
    bk_cli_input in, undo_in;
    bk_block_decoder dec;
    bk_block b;
    int64_t height;
} bk_cli_block_file;
int bk_cli_block_file_load(const char *cmd, bk_cli_block_file *f, const char *file, int have_height, int64_t height);
int bk_cli_block_file_undo(const char *cmd, bk_cli_block_file *f, const char *undo_file);
void bk_cli_block_file_free(bk_cli_block_file *f);


/* The stop signals, SIGINT, SIGTERM and SIGHUP, for a command that stops
 * cleanly: bk_cli_stop_signals_catch sets bk_cli_stop to 0 and installs a
 * handler storing the signal's number there (SA_RESTART, the three
 * blocked while it runs) and returns &bk_cli_stop (a library's cancel
 * flag); the command polls it and ends with 128 + bk_cli_stop after its
 * cleanup; bk_cli_stop_signals_restore puts the previous handlers back. */
#include <signal.h>
extern volatile sig_atomic_t bk_cli_stop;
typedef struct bk_cli_stop_saved {
    struct sigaction old[3];
} bk_cli_stop_saved;
volatile sig_atomic_t *bk_cli_stop_signals_catch(bk_cli_stop_saved *saved);
void bk_cli_stop_signals_restore(const bk_cli_stop_saved *saved);

#endif
