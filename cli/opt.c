/* The one option parser (cli/opt.h). */
#include "opt.h"
#include "cli.h"

#include <blockkit/parquet.h>
#include <blockkit/table.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the table ---- */

static bk_opt *find_long(const bk_opt_spec *spec, const char *name, size_t len)
{
    for (bk_opt *o = spec->opts; o && o->name; o++)
        if (strlen(o->name) == len && !memcmp(o->name, name, len)) return o;
    return NULL;
}

static bk_opt *find_short(const bk_opt_spec *spec, char c)
{
    for (bk_opt *o = spec->opts; o && o->name; o++)
        if (o->short_name == c) return o;
    return NULL;
}

const bk_opt *bk_opt_find(const bk_opt_spec *spec, const char *name)
{
    return find_long(spec, name, strlen(name));
}

int bk_opt_given(const bk_opt_spec *spec, const char *name)
{
    const bk_opt *o = bk_opt_find(spec, name);
    return o && o->seen;
}

static int takes_value(const bk_opt *o)
{
    return o->kind != BK_OPT_FLAG;
}

/* The n-th of "a|b|c" equal to v: its index, or -1. */
static int choice_index(const char *choices, const char *v)
{
    size_t vl = strlen(v);
    int idx = 0;
    for (const char *p = choices; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == vl && !memcmp(p, v, l)) return idx;
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

/* What a bad value should have been, for the message. */
static void value_hint(const bk_opt *o, char *buf, size_t cap)
{
    buf[0] = 0;
    if (o->kind == BK_OPT_INT || o->kind == BK_OPT_I64)
        snprintf(buf, cap, " (a whole number, %lld to %lld)", (long long)o->min, (long long)o->max);
    else if (o->kind == BK_OPT_CHOICE || (o->kind == BK_OPT_CALL && o->arg && strchr(o->arg, '|')))
        snprintf(buf, cap, " (%s)", o->arg);
}

/* Store value into the row's destination: 0, or the exit code after the
 * message. */
static int take(const bk_opt_spec *spec, bk_opt *o, const char *shown, const char *v, size_t list_cap)
{
    const char *cmd = spec->cmd;
    int ok = 1;
    int64_t n = 0;
    switch (o->kind) {
    case BK_OPT_FLAG: *(int *)o->dest = o->set ? o->set : 1; break;
    case BK_OPT_STR:
        ok = v[0] != 0;
        if (ok) *(const char **)o->dest = v;
        break;
    case BK_OPT_INT:
    case BK_OPT_I64:
        ok = bk_cli_parse_i64(v, &n) && n >= o->min && n <= o->max;
        if (ok && o->kind == BK_OPT_INT) *(int *)o->dest = (int)n;
        else if (ok) *(int64_t *)o->dest = n;
        break;
    case BK_OPT_CHOICE: {
        int idx = choice_index(o->arg, v);
        ok = idx >= 0;
        if (ok) *(int *)o->dest = idx;
        break;
    }
    case BK_OPT_CALL: ok = v[0] != 0 && o->parse(o->dest, v); break;
    case BK_OPT_LIST: {
        bk_opt_list *l = o->dest;
        ok = v[0] != 0 && l->n < list_cap;
        if (ok) l->v[l->n++] = v;
        break;
    }
    }
    if (!ok) {
        char hint[160];
        value_hint(o, hint, sizeof hint);
        return bk_cli_fail(cmd, BK_EXIT_USAGE, "bad value for %s: '%s'%s", shown, v, hint);
    }
    o->seen++;
    return 0;
}

int bk_opt_parse(const bk_opt_spec *spec, int argc, char **argv, bk_opt_args *args)
{
    memset(args, 0, sizeof *args);
    const char *cmd = spec->cmd;
    for (bk_opt *o = spec->opts; o && o->name; o++) o->seen = 0;
    /* --help and --usage win over everything else on the line (before any
     * other message), but not as the value of an option or after "--". */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) break;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return bk_opt_print_help(spec);
        if (!strcmp(a, "--usage")) return bk_opt_print_usage(spec);
        if (a[0] == '-' && a[1] == '-' && !strchr(a, '=')) {
            const bk_opt *o = find_long(spec, a, strlen(a));
            if (o && takes_value(o)) i++;
        } else if (a[0] == '-' && a[1] && a[1] != '-' && !a[2]) {
            const bk_opt *o = find_short(spec, a[1]);
            if (o && takes_value(o)) i++;
        }
    }
    /* One block holds the positional arguments and the values of every
     * list option: at most argc of each. */
    size_t n_lists = 0;
    for (bk_opt *o = spec->opts; o && o->name; o++)
        if (o->kind == BK_OPT_LIST) n_lists++;
    size_t cap = (size_t)(argc > 0 ? argc : 1);
    const char **store = calloc(cap * (1 + n_lists), sizeof *store);
    if (!store) return bk_cli_fail(cmd, BK_EXIT_SOFTWARE, "out of memory");
    args->owned_ = store;
    args->v = store;
    size_t li = 1;
    for (bk_opt *o = spec->opts; o && o->name; o++)
        if (o->kind == BK_OPT_LIST) {
            bk_opt_list *l = o->dest;
            l->v = store + cap * li++;
            l->n = 0;
        }
    int rc = 0, only_args = 0;
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || !a[1]) {
            if (args->n >= spec->max_args) {
                rc = spec->max_args ? bk_cli_fail(cmd, BK_EXIT_USAGE, "unexpected argument '%s' (see --help)", a)
                                    : bk_cli_fail(cmd, BK_EXIT_USAGE, "unexpected argument '%s' (%s takes no "
                                                                      "arguments; see --help)", a, cmd);
                break;
            }
            args->v[args->n++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_args = 1;
            continue;
        }
        bk_opt *o;
        const char *v = NULL; /* the value, when it came with the option */
        char shown[64];
        if (a[1] == '-') {
            const char *eq = strchr(a, '=');
            size_t len = eq ? (size_t)(eq - a) : strlen(a);
            o = find_long(spec, a, len);
            snprintf(shown, sizeof shown, "%.*s", (int)(len < 60 ? len : 60), a);
            if (!o) {
                rc = bk_cli_unknown_option(cmd, shown);
                break;
            }
            if (eq) {
                if (!takes_value(o)) {
                    rc = bk_cli_fail(cmd, BK_EXIT_USAGE, "%s takes no value", shown);
                    break;
                }
                v = eq + 1;
            }
        } else {
            o = find_short(spec, a[1]);
            snprintf(shown, sizeof shown, "-%c", a[1]);
            if (!o) {
                rc = bk_cli_unknown_option(cmd, a[2] ? shown : a);
                break;
            }
            if (a[2]) {
                if (!takes_value(o)) {
                    rc = bk_cli_unknown_option(cmd, a);
                    break;
                }
                v = a + 2;
            }
        }
        if (takes_value(o) && !v) {
            if (i + 1 >= argc) {
                rc = bk_cli_missing_value(cmd, shown);
                break;
            }
            v = argv[++i];
        }
        rc = take(spec, o, shown, v ? v : "", cap);
    }
    if (rc) bk_opt_args_free(args);
    return rc ? rc : BK_OPT_CONTINUE;
}

void bk_opt_args_free(bk_opt_args *args)
{
    free(args->owned_);
    memset(args, 0, sizeof *args);
}

/* ---- modes and subcommands ---- */

int bk_opt_mode_check(const bk_opt_spec *spec, int mode, const bk_opt_mode *modes)
{
    for (const bk_opt *o = spec->opts; o && o->name; o++) {
        if (!o->seen || !o->modes || (o->modes & (1u << mode))) continue;
        char name[72];
        if (o->short_name) snprintf(name, sizeof name, "-%c/%s", o->short_name, o->name);
        else snprintf(name, sizeof name, "%s", o->name);
        if (modes[mode].not_for)
            return bk_cli_fail(spec->cmd, BK_EXIT_USAGE, "%s is not for %s", name, modes[mode].not_for);
        int m = 0;
        while (!(o->modes & (1u << m))) m++;
        return bk_cli_fail(spec->cmd, BK_EXIT_USAGE, "%s is for %s", name, modes[m].is_for);
    }
    return 0;
}

int bk_opt_dispatch(const bk_opt_subcommands *sc, int argc, char **argv)
{
    const char *w = argc >= 2 ? argv[1] : NULL;
    for (const bk_opt_sub *s = sc->subs; w && s->name; s++)
        if (!strcmp(w, s->name)) return s->main(argc - 1, argv + 1);
    if (w && !strcmp(w, "--usage")) { /* every synopsis line */
        char use[] = "--usage";
        char *v[] = {argv[0], use, NULL};
        int rc = sc->plain ? sc->plain(2, v) : 0;
        for (const bk_opt_sub *s = sc->subs; !rc && s->name; s++) {
            char *sv[] = {(char *)s->name, use, NULL};
            rc = s->main(2, sv);
        }
        return rc;
    }
    if (sc->plain) return sc->plain(argc, argv);
    if (w && (!strcmp(w, "--help") || !strcmp(w, "-h"))) return sc->help(1);
    if (!w) return sc->missing ? bk_cli_fail(sc->cmd, BK_EXIT_USAGE, "%s", sc->missing) : (sc->help(0), BK_EXIT_USAGE);
    char msg[256];
    snprintf(msg, sizeof msg, sc->unknown, w);
    return bk_cli_fail(sc->cmd, BK_EXIT_USAGE, "%s", msg);
}

/* ---- help and synopsis ---- */

typedef struct text {
    char *p;
    size_t n, cap;
    int oom;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->oom) return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->n + n + 1) cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->oom = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = 0;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* "--name ARG" (with "-x, " before it for a short name). */
static void opt_label(text *t, const bk_opt *o)
{
    if (o->short_name) {
        char sh[8] = {'-', o->short_name, ',', ' ', 0};
        puts_(t, sh);
    }
    puts_(t, o->name);
    if (takes_value(o) && o->arg) {
        puts_(t, " ");
        puts_(t, o->arg);
    }
}

static void synopsis(text *t, const bk_opt_spec *spec)
{
    puts_(t, "blockkit ");
    puts_(t, spec->cmd);
    for (const bk_opt *o = spec->opts; o && o->name; o++) {
        puts_(t, " [");
        if (o->short_name) {
            char sh[4] = {'-', o->short_name, '|', 0};
            puts_(t, sh);
        }
        puts_(t, o->name);
        if (takes_value(o) && o->arg) {
            puts_(t, " ");
            puts_(t, o->arg);
        }
        puts_(t, "]");
        if (o->kind == BK_OPT_LIST) puts_(t, "...");
    }
    if (spec->args) {
        puts_(t, " ");
        puts_(t, spec->args);
    }
}

static int emit(const bk_opt_spec *spec, text *t)
{
    if (t->oom) {
        free(t->p);
        return bk_cli_fail(spec->cmd, BK_EXIT_SOFTWARE, "out of memory");
    }
    int rc = bk_cli_help(spec->cmd, t->p);
    free(t->p);
    return rc;
}

int bk_opt_print_usage(const bk_opt_spec *spec)
{
    text t = {0};
    synopsis(&t, spec);
    puts_(&t, "\n");
    return emit(spec, &t);
}

enum { HELP_COL = 24 };

int bk_opt_print_help(const bk_opt_spec *spec)
{
    text t = {0};
    puts_(&t, "usage: ");
    synopsis(&t, spec);
    puts_(&t, "\n");
    if (spec->intro) {
        puts_(&t, "\n");
        puts_(&t, spec->intro);
    }
    puts_(&t, "\noptions:\n");
    for (const bk_opt *o = spec->opts; o && o->name; o++) {
        size_t start = t.n;
        puts_(&t, "  ");
        opt_label(&t, o);
        size_t w = t.n - start;
        const char *h = o->help ? o->help : "";
        if (w + 1 > HELP_COL) {
            puts_(&t, "\n");
            w = 0;
        }
        for (;;) {
            for (; w < HELP_COL; w++) puts_(&t, " ");
            const char *nl = strchr(h, '\n');
            put(&t, h, nl ? (size_t)(nl - h) : strlen(h));
            puts_(&t, "\n");
            if (!nl) break;
            h = nl + 1;
            w = 0;
        }
    }
    puts_(&t, "  -h, --help            this text; --usage: the synopsis line\n");
    if (spec->outro) {
        puts_(&t, "\n");
        puts_(&t, spec->outro);
    }
    return emit(spec, &t);
}

/* ---- the shared groups ---- */

void bk_cli_range_init(bk_cli_range *r)
{
    r->start = 0;
    r->end = -1;
    r->below_tip = -1;
}

int bk_opt_parse_end(void *dest, const char *value)
{
    bk_cli_range *r = dest;
    int64_t n;
    if (!bk_cli_parse_i64(value, &n)) return 0;
    if (value[0] == '-') {
        if (n == INT64_MIN || -n > INT32_MAX) return 0;
        r->below_tip = -n;
        r->end = -1;
    } else {
        if (n > INT32_MAX) return 0;
        r->end = n;
        r->below_tip = -1;
    }
    return 1;
}

int bk_cli_empty_range(const char *cmd, const bk_cli_range *r)
{
    char end[48];
    if (r->end >= 0) snprintf(end, sizeof end, "%lld", (long long)r->end);
    else if (r->below_tip > 0) snprintf(end, sizeof end, "the tip - %lld", (long long)r->below_tip);
    else snprintf(end, sizeof end, "the tip");
    return bk_cli_fail(cmd, BK_EXIT_NOINPUT, "no block in heights %lld..%s (the chain is shorter): nothing written",
                       (long long)r->start, end);
}

int bk_cli_default_workers(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return ncpu > 0 ? (int)(ncpu > 256 ? 256 : ncpu) : 1;
}

int bk_cli_progress_on(int choice)
{
    return choice == BK_PROGRESS_ALWAYS || (choice == BK_PROGRESS_AUTO && isatty(STDERR_FILENO));
}

int bk_opt_parse_table_format(void *dest, const char *value)
{
    return bk_table_format_parse(value, dest) == BK_OK;
}

int bk_opt_parse_codec(void *dest, const char *value)
{
    return bk_pq_codec_parse(value, dest) == BK_OK;
}

int bk_opt_parse_network(void *dest, const char *value)
{
    return bk_network_parse(value, dest) == BK_OK;
}
