/* `blockkit bench` end to end: --list, JSON and CSV output carry the
 * contract's fields, allocation counting is exact, bad options are refused.
 * No timing is asserted. */
#include "check.h"

#include <sys/wait.h>

static char buf[1 << 16];

static int run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after "key": in the first object of a JSON text, or -1. */
static double json_num(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : -1;
}

static void list_names_every_bench(void)
{
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --list"), 0);
    CHECK(strstr(buf, "SHA256/64B/portable\tmessage\n") != NULL);
    CHECK(strstr(buf, "SHA256D64/portable\tnode\n") != NULL);
    CHECK(strstr(buf, "SHA256/1MiB/portable\tcompression\n") != NULL);
    CHECK(strstr(buf, "StreamInitAndFree\tMB\n") != NULL);
    CHECK(strstr(buf, "StreamInitAndFree/ZeroAfterFree\tMB\n") != NULL);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --list --filter '^SHA256D64/'"), 0);
    CHECK(strstr(buf, "SHA256D64/portable") != NULL);
    CHECK(strstr(buf, "SHA256/64B") == NULL);
}

static void json_has_contract_fields(void)
{
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'SHA256/64B/portable' --min-time 20 --format json 2>/dev/null"), 0);
    const char *p = buf;
    while (*p == ' ' || *p == '\n') p++;
    CHECK(*p == '[');
    CHECK(strstr(buf, "\"name\": \"SHA256/64B/portable\"") != NULL);
    CHECK(strstr(buf, "\"unit\": \"message\"") != NULL);
    CHECK(json_num(buf, "ns_per_unit") > 0);
    CHECK(json_num(buf, "ns_per_unit_min") > 0 && json_num(buf, "ns_per_unit_min") <= json_num(buf, "ns_per_unit"));
    CHECK(json_num(buf, "units_per_s") > 0);
    CHECK(json_num(buf, "err_pct") >= 0);
    CHECK(json_num(buf, "allocs_per_op") == 0);  /* hashing allocates nothing */
    CHECK(json_num(buf, "bytes_per_op") == 0);
    CHECK(json_num(buf, "peak_bytes") > 0);      /* the bench's own buffers, from setup */
    CHECK(json_num(buf, "mb_per_s") > 0);
    CHECK(strstr(buf, "\"sha256_backend\": \"") != NULL);
    /* Exactly one object, the array closed. */
    CHECK(strchr(buf, '{') == strrchr(buf, '{'));
    CHECK(strstr(buf, "}\n]\n") != NULL);
}

/* The writer grows 256 B doubling to 1 MiB for 1 MB: 13 allocations per op,
 * the same with the zero-after-free allocator (it only wipes). */
static void stream_allocs_counted_exactly(void)
{
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter '^StreamInitAndFree$' --min-time 5 --epochs 3 --format json 2>/dev/null"), 0);
    CHECK(json_num(buf, "allocs_per_op") == 13);
    CHECK(json_num(buf, "bytes_per_op") == 256.0 * (8192 - 1));  /* 256 + 512 + ... + 2^20 */
    CHECK(json_num(buf, "peak_bytes") >= 1048576);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'ZeroAfterFree' --min-time 5 --epochs 3 --format json 2>/dev/null"), 0);
    CHECK(json_num(buf, "allocs_per_op") == 13);
}

static void csv_and_table(void)
{
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'SHA256D64/portable' --min-time 10 --epochs 3 --format csv 2>/dev/null"), 0);
    CHECK(strncmp(buf, "name,unit,ns_per_unit,units_per_s,err_pct,allocs_per_op,bytes_per_op,peak_bytes,mb_per_s", 88) == 0);
    CHECK(strstr(buf, "\n\"SHA256D64/portable\",node,") != NULL);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'SHA256D64/portable' --min-time 10 --epochs 3"), 0);
    CHECK(strstr(buf, "# blockkit bench: sha256 backend ") == buf);
    CHECK(strstr(buf, "ns/unit") != NULL && strstr(buf, "err%") != NULL);
    CHECK(strstr(buf, "| `SHA256D64/portable` (node)\n") != NULL);
}

static void bad_options_refused(void)
{
    /* --cpu: the CPU a plain run starts on can be asked for by number */
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'SHA256D64/portable' --min-time 5 --epochs 3"), 0);
    int cpu = -1;
    CHECK(sscanf(buf, "# blockkit bench: sha256 backend %*s cpu %d (pinned)", &cpu) == 1 && cpu >= 0);
    char cmd[512], want[64];
    snprintf(cmd, sizeof cmd, "'" BK_CLI_PATH "' bench --filter 'SHA256D64/portable' --min-time 5 --epochs 3 --cpu %d",
             cpu);
    CHECK_EQ_INT(run(cmd), 0);
    snprintf(want, sizeof want, "; cpu %d (pinned);", cpu);
    CHECK(strstr(buf, want) != NULL);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'SHA256D64/portable' --cpu 100000 2>/dev/null"), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'SHA256D64/portable' --cpu 1023 2>/dev/null"), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'SHA256D64/portable' --cpu x 2>/dev/null"), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --format xml 2>/dev/null"), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --min-time -3 2>/dev/null"), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter '(' 2>/dev/null"), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --filter 'no such bench' 2>/dev/null"), 64);
    CHECK_EQ_INT(run("'" BK_CLI_PATH "' bench --help"), 0);
}

int main(void)
{
    RUN(list_names_every_bench);
    RUN(json_has_contract_fields);
    RUN(stream_allocs_counted_exactly);
    RUN(csv_and_table);
    RUN(bad_options_refused);
    return check_finish();
}
