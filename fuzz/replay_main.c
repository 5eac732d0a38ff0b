/* A plain main() for the fuzz targets, for builds without libFuzzer (gcc,
 * the sanitizer build): linked with one fuzz/fuzz_<name>.c, it runs that
 * target's LLVMFuzzerTestOneInput once over the empty input and once over
 * every regular file under each argument (a file, or a directory read
 * recursively, in name order), as libFuzzer runs a corpus it is given.
 * Each input is passed in a buffer of exactly its size, so the sanitizer
 * build sees a read past its end. LLVMFuzzerInitialize runs first when the
 * target defines one.
 *
 * usage: fuzz_<name>_replay [--max-seconds S] PATH...
 * Exit status: 0 when every input ran; 1 when an argument cannot be read,
 * or no input file was found under the arguments (an empty or misnamed
 * corpus is an error, not a pass); a crashing input aborts the process
 * (its name is printed before it runs, so the failing file is the last
 * name in the output). --max-seconds stops after the input during which S
 * seconds of wall time have passed, and says how many inputs were left
 * out; the run still fails if none ran. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Defined by the targets that need a one-time setup; NULL otherwise. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

typedef struct paths {
    char **v;
    size_t n, cap;
} paths;

static int push(paths *p, const char *s)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        char **v = realloc(p->v, cap * sizeof *v);
        if (!v) return 0;
        p->v = v;
        p->cap = cap;
    }
    size_t len = strlen(s) + 1;
    char *c = malloc(len);
    if (!c) return 0;
    memcpy(c, s, len);
    p->v[p->n++] = c;
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under path (path itself when it is one). */
static int collect(paths *out, const char *path, int depth)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 0;
    }
    if (S_ISREG(sb.st_mode)) return push(out, path);
    if (!S_ISDIR(sb.st_mode)) return 1; /* a FIFO or device is no input */
    if (depth > 16) {
        fprintf(stderr, "replay: %s: directories nested too deep\n", path);
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 0;
    }
    paths names = {0};
    struct dirent *e;
    int ok = 1;
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue; /* ., .., and hidden files such as .gitignore */
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *full = malloc(len);
        if (!full) {
            ok = 0;
            break;
        }
        snprintf(full, len, "%s/%s", path, e->d_name);
        ok = push(&names, full);
        free(full);
    }
    closedir(d);
    if (names.n) qsort(names.v, names.n, sizeof *names.v, cmp_str);
    for (size_t i = 0; i < names.n; i++) {
        if (ok) ok = collect(out, names.v[i], depth + 1);
        free(names.v[i]);
    }
    free(names.v);
    return ok;
}

/* The file's bytes in a buffer of exactly its size (1 byte for an empty
 * file, passed with size 0); NULL on a read error. */
static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t n = 0;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && sb.st_size >= 0) {
        n = (size_t)sb.st_size;
        buf = malloc(n ? n : 1);
        if (buf && fread(buf, 1, n, f) != n) {
            free(buf);
            buf = NULL;
        }
        if (buf && fgetc(f) != EOF) { /* grew while read: not a stable input */
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double max_seconds = 0;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--max-seconds") == 0) {
        char *end;
        max_seconds = strtod(argv[2], &end);
        if (*end || max_seconds <= 0) {
            fprintf(stderr, "replay: --max-seconds wants a positive number, not '%s'\n", argv[2]);
            return 2;
        }
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [--max-seconds S] CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);

    paths inputs = {0};
    int ok = 1;
    for (int i = first; i < argc && ok; i++) ok = collect(&inputs, argv[i], 0);
    if (!ok) return 1;
    if (inputs.n == 0) {
        fprintf(stderr, "replay: no input files under the given paths: nothing would be tested\n");
        return 1;
    }

    double start = now();
    uint8_t empty = 0;
    LLVMFuzzerTestOneInput(&empty, 0);
    size_t ran = 0, bytes = 0;
    for (size_t i = 0; i < inputs.n; i++) {
        if (max_seconds > 0 && now() - start > max_seconds) {
            printf("replay: time limit of %g s reached: %zu of %zu inputs left out\n", max_seconds,
                   inputs.n - i, inputs.n);
            break;
        }
        size_t len;
        uint8_t *buf = read_all(inputs.v[i], &len);
        if (!buf) {
            fprintf(stderr, "replay: cannot read %s\n", inputs.v[i]);
            ok = 0;
            break;
        }
        printf("Running: %s (%zu bytes)\n", inputs.v[i], len);
        fflush(stdout);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        ran++;
        bytes += len;
    }
    printf("replay: %zu inputs (%zu bytes) and the empty input ran in %.2f s\n", ran, bytes, now() - start);
    for (size_t i = 0; i < inputs.n; i++) free(inputs.v[i]);
    free(inputs.v);
    return ok && ran > 0 ? 0 : 1;
}
