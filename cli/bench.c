/* blockkit bench: run the registered benchmarks (bench/bench_<x>.c) with the
 * nanobench-style harness (bench/harness.c) and print a markdown table,
 * JSON or CSV. */
#include "cli.h"
#include "opt.h"
#include "harness.h"

#include <regex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static const char *const CMD = "bench";

static const char bench_intro[] =
    "Runs the built-in benchmarks, pinned to one CPU. For each: median\n"
    "ns per unit over N epochs (default 11), units/s, err% (median absolute\n"
    "percent deviation of the epochs), allocations and bytes per op, peak bytes\n"
    "held, MB/s when the bench has an input size, and instructions, cycles,\n"
    "IPC and branch-miss% when the kernel grants perf_event_open.\n";

static const char bench_outro[] = "Exit status (the table in blockkit(1)): 0 ok, 64 usage, 74 I/O.\n";

static int cmp_bench(const void *a, const void *b)
{
    const bk_bench *x = *(const bk_bench *const *)a, *y = *(const bk_bench *const *)b;
    return strcmp(x->name, y->name);
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

enum { FMT_TABLE, FMT_JSON, FMT_CSV }; /* the order of --format's choices */

static void table_header(int hw)
{
    printf("| %21s | %21s | %7s | %10s | %12s | %12s | %10s |", "ns/unit", "unit/s", "err%",
           "allocs/op", "bytes/op", "peak bytes", "MB/s");
    if (hw) printf(" %10s | %10s | %6s | %7s |", "ins/unit", "cyc/unit", "IPC", "bmiss%");
    printf(" benchmark\n");
    printf("|----------------------:|----------------------:|--------:|-----------:|-------------:|"
           "-------------:|-----------:|");
    if (hw) printf("-----------:|-----------:|-------:|--------:|");
    printf(":----------\n");
}

/* v with two decimals and thousands separators, as nanobench prints. */
static const char *group(char *buf, size_t cap, double v)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.2f", v);
    const char *dot = strchr(tmp, '.');
    size_t int_len = dot ? (size_t)(dot - tmp) : strlen(tmp), o = 0;
    for (size_t i = 0; i < int_len && o + 2 < cap; i++) {
        buf[o++] = tmp[i];
        size_t left = int_len - i - 1;
        if (left && left % 3 == 0 && tmp[i] != '-' && o + 2 < cap) buf[o++] = ',';
    }
    snprintf(buf + o, cap - o, "%s", dot ? dot : "");
    return buf;
}

static void table_row(const bk_bench_result *r, int hw)
{
    char ns[48], ups[48];
    char mb[32] = "";
    if (r->mb_per_s > 0) snprintf(mb, sizeof mb, "%.1f", r->mb_per_s);
    printf("| %21s | %21s | %6.1f%% | %10.2f | %12.1f | %12llu | %10s |", group(ns, sizeof ns, r->ns_per_unit),
           group(ups, sizeof ups, r->units_per_s), r->err_pct, r->allocs_per_op, r->bytes_per_op,
           (unsigned long long)r->peak_bytes, mb);
    if (hw) {
        if (r->have_hw)
            printf(" %10.1f | %10.1f | %6.2f | %6.2f%% |", r->ins_per_unit, r->cyc_per_unit, r->ipc,
                   r->branch_miss_pct);
        else
            printf(" %10s | %10s | %6s | %7s |", "", "", "", "");
    }
    printf(" `%s` (%s)\n", r->bench->name, r->bench->unit);
}

static void json_row(const bk_bench_result *r, int first, const char *backend)
{
    printf("%s\n  {\"name\": ", first ? "" : ",");
    json_str(r->bench->name);
    printf(", \"unit\": ");
    json_str(r->bench->unit);
    printf(", \"ns_per_unit\": %.4f, \"ns_per_unit_min\": %.4f, \"units_per_s\": %.2f, \"err_pct\": %.3f, \"allocs_per_op\": %.4f, "
           "\"bytes_per_op\": %.2f, \"peak_bytes\": %llu, \"iters\": %llu, \"epochs\": %d",
           r->ns_per_unit, r->ns_per_unit_min, r->units_per_s, r->err_pct, r->allocs_per_op,
           r->bytes_per_op, (unsigned long long)r->peak_bytes, (unsigned long long)r->iters, r->epochs);
    if (r->mb_per_s > 0) printf(", \"mb_per_s\": %.2f", r->mb_per_s);
    if (r->have_hw)
        printf(", \"ins_per_unit\": %.2f, \"cyc_per_unit\": %.2f, \"ipc\": %.3f, \"branch_miss_pct\": %.3f",
               r->ins_per_unit, r->cyc_per_unit, r->ipc, r->branch_miss_pct);
    printf(", \"sha256_backend\": ");
    json_str(backend);
    printf("}");
}

static void csv_row(const bk_bench_result *r)
{
    printf("\"%s\",%s,%.4f,%.2f,%.3f,%.4f,%.2f,%llu,", r->bench->name, r->bench->unit, r->ns_per_unit,
           r->units_per_s, r->err_pct, r->allocs_per_op, r->bytes_per_op,
           (unsigned long long)r->peak_bytes);
    if (r->mb_per_s > 0) printf("%.2f", r->mb_per_s);
    if (r->have_hw)
        printf(",%.2f,%.2f,%.3f,%.3f\n", r->ins_per_unit, r->cyc_per_unit, r->ipc, r->branch_miss_pct);
    else
        printf(",,,,\n");
}

/* --min-time MS: milliseconds, 0.001 to 10^7, a plain decimal (fractions
 * and exponents allowed, so not an INT row; no sign, space or hex). */
static int parse_min_time(void *dest, const char *s)
{
    if (!((s[0] >= '0' && s[0] <= '9') || s[0] == '.') || s[strspn(s, "0123456789.eE+-")]) return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0.001 && v <= 1e7)) return 0;
    *(double *)dest = v;
    return 1;
}

static int bench_main(int argc, char **argv)
{
    const char *filter = NULL;
    int format = FMT_TABLE, list = 0, want_cpu = -1, no_hw = 0;
    bk_bench_opts o = {300, 11, 1};
    bk_opt opts[] = {
        BK_OPT_ROW_STR("--filter", 0, &filter, "REGEX", "only benches whose name matches (POSIX extended regex)"),
        BK_OPT_ROW_CALL("--min-time", 0, &o.min_time_ms, parse_min_time, "MS",
                        "measured time per bench, all epochs, in milliseconds,\n"
                        "0.001 to 10000000 (default 300)"),
        BK_OPT_ROW_INT("--epochs", 0, &o.epochs, 1, 101, "N", "samples per bench (default 11)"),
        BK_OPT_ROW_CHOICE("--format", &format, "table|json|csv", "table (markdown, default), json (one array) or csv"),
        BK_OPT_ROW_FLAG("--no-hw", 0, &no_hw, "do not try the hardware counters"),
        BK_OPT_ROW_INT("--cpu", 0, &want_cpu, 0, CPU_SETSIZE - 1, "N",
                       "pin to CPU N (default: the CPU it starts on); two\n"
                       "benches run side by side need different CPUs"),
        BK_OPT_ROW_FLAG("--list", 0, &list, "print the matching bench names and units, run nothing"),
        BK_OPT_END,
    };
    bk_opt_spec spec = {CMD, NULL, bench_intro, bench_outro, opts, 0};
    bk_opt_args args;
    int prc = bk_opt_parse(&spec, argc, argv, &args);
    if (prc != BK_OPT_CONTINUE) return prc;
    bk_opt_args_free(&args);
    if (no_hw) o.hw_counters = 0;

    regex_t re;
    if (filter) {
        int rc = regcomp(&re, filter, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[128];
            regerror(rc, &re, msg, sizeof msg);
            return bk_cli_fail(CMD, BK_EXIT_USAGE, "bad value for --filter: '%s' (%s)", filter, msg);
        }
    }
    const bk_bench **sel = malloc(sizeof *sel * (bk_bench_count ? bk_bench_count : 1));
    if (!sel) return bk_cli_fail(CMD, BK_EXIT_SOFTWARE, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < bk_bench_count; i++)
        if (!filter || regexec(&re, bk_bench_table[i]->name, 0, NULL, 0) == 0) sel[n++] = bk_bench_table[i];
    if (filter) regfree(&re);
    qsort(sel, n, sizeof *sel, cmp_bench);

    if (list) {
        for (size_t i = 0; i < n; i++) printf("%s\t%s\n", sel[i]->name, sel[i]->unit);
        free(sel);
        return BK_EXIT_OK;
    }
    if (n == 0) {
        free(sel);
        return bk_cli_fail(CMD, BK_EXIT_USAGE, "no bench matches '%s' (see --list)", filter ? filter : "");
    }

    int cpu = bk_bench_pin_cpu(want_cpu);
    if (want_cpu >= 0 && cpu < 0) {
        free(sel);
        return bk_cli_fail(CMD, BK_EXIT_USAGE, "--cpu %d: not a CPU this process may run on", want_cpu);
    }
    const char *backend = bk_sha256_backend();
    /* The header goes to stdout with the table, to stderr otherwise (the
     * JSON and CSV outputs stay machine-readable). */
    FILE *hf = format == FMT_TABLE ? stdout : stderr;
    fprintf(hf, "# blockkit bench: sha256 backend %s; cpu %d%s; min-time %g ms; %d epochs\n", backend,
            cpu, cpu < 0 ? " (not pinned)" : " (pinned)", o.min_time_ms, o.epochs);
    fflush(hf);

    int hw_cols = -1;  /* decided by the first measured bench */
    int first = 1;
    if (format == FMT_JSON) printf("[");
    if (format == FMT_CSV)
        printf("name,unit,ns_per_unit,units_per_s,err_pct,allocs_per_op,bytes_per_op,peak_bytes,mb_per_s,"
               "ins_per_unit,cyc_per_unit,ipc,branch_miss_pct\n");
    for (size_t i = 0; i < n; i++) {
        bk_bench_result r;
        if (bk_bench_measure(sel[i], &o, &r) != 0) {
            fprintf(stderr, "# %s: skipped (setup declined: backend or data not available)\n", sel[i]->name);
            continue;
        }
        switch (format) {
        case FMT_TABLE:
            if (hw_cols < 0) {
                hw_cols = r.have_hw;
                table_header(hw_cols);
            }
            table_row(&r, hw_cols);
            break;
        case FMT_JSON: json_row(&r, first, backend); break;
        default: csv_row(&r); break;
        }
        first = 0;
        fflush(stdout);
    }
    if (format == FMT_JSON) printf("\n]\n");
    free(sel);
    return fflush(stdout) == 0 ? BK_EXIT_OK : BK_EXIT_IO;
}

BK_CLI_COMMAND(cli_bench, "bench", "[--filter REGEX] [--min-time MS] [--format table|json|csv] [--list]",
               "run the benchmarks (nanobench-style: median ns/unit, err%, allocs/op)", bench_main)
