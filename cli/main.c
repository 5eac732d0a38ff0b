/* blockkit: command dispatch. Commands register themselves (cli.h). */
#include "cli.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMMANDS 32
static const bk_cli_command *commands[MAX_COMMANDS];
static size_t n_commands;

void bk_cli_register(const bk_cli_command *cmd)
{
    if (n_commands < MAX_COMMANDS) commands[n_commands++] = cmd;
}

static int cmp_cmd(const void *a, const void *b)
{
    const bk_cli_command *x = *(const bk_cli_command *const *)a;
    const bk_cli_command *y = *(const bk_cli_command *const *)b;
    return strcmp(x->name, y->name);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: blockkit <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < n_commands; i++)
        fprintf(f, "  %-8s %s\n  %-8s   %s\n", commands[i]->name, commands[i]->usage, "",
                commands[i]->summary);
    fprintf(f, "\nblockkit <command> --help for details; blockkit --version.\n");
}

int main(int argc, char **argv)
{
    /* A closed pipe shows up as EPIPE from write, handled by the commands. */
    signal(SIGPIPE, SIG_IGN);
    qsort(commands, n_commands, sizeof commands[0], cmp_cmd);
    if (argc < 2) {
        usage(stderr);
        return BK_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return bk_cli_output_close(NULL, stdout, NULL, 1);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("blockkit %s (sha256 backend: %s)\n", BK_VERSION_STRING, bk_sha256_backend());
        return bk_cli_output_close(NULL, stdout, NULL, 1);
    }
    for (size_t i = 0; i < n_commands; i++)
        if (!strcmp(argv[1], commands[i]->name)) {
            int rc = commands[i]->main(argc - 1, argv + 1);
            /* Whatever a command left in stdout's buffer is written and
             * checked here: a write error is exit 74 naming standard output,
             * a closed pipe status 0 (cli.h). A command that failed has said
             * why; its status stands and stdout is closed without a second
             * message. */
            if (rc) {
                fclose(stdout);
                return rc;
            }
            return bk_cli_output_close(commands[i]->name, stdout, NULL, 1);
        }
    fprintf(stderr, "blockkit: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return BK_EXIT_USAGE;
}
