/* blockkit ssz end to end: root/decode/encode/proof/verify on an oracle
 * Attestation, exit codes 65 (with offset and path) and 64. Runs in
 * tests/data. */
#include "check.h"

#include <sys/wait.h>

/* Run a shell command; capture stdout (and stderr when err_too) into out. */
static int run(const char *cmd, char *out, size_t cap)
{
    char full[4096];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *name)
{
    size_t n;
    char *s = (char *)check_read_file(name, &n);
    return s;
}

static void root_matches_oracle(void)
{
    char out[4096], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s ssz root phase0:Attestation ssz/attestation_value.hex", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
    char *want = slurp("ssz/attestation_value.root");
    CHECK_EQ_STR(out, want);
    free(want);
}

static void decode_then_encode_round_trips(void)
{
    char out[8192], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s ssz decode Container:phase0:Attestation ssz/attestation_value.hex", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
    char *want = slurp("ssz/attestation_value.json");
    CHECK_EQ_STR(out, want);
    free(want);
    snprintf(cmd, sizeof cmd, "%s ssz encode --fork phase0 Container:Attestation < ssz/attestation_value.json", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
    want = slurp("ssz/attestation_value.hex");
    CHECK_EQ_STR(out, want);
    free(want);
}

static void proof_matches_oracle_and_verifies(void)
{
    char out[8192], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s ssz proof phase0:Attestation --path data.target.epoch ssz/attestation.hex",
             BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
    char *want = slurp("ssz/attestation_epoch_proof.json");
    CHECK_EQ_STR(out, want);
    free(want);
    snprintf(cmd, sizeof cmd, "%s ssz verify --fork phase0 Attestation --path data.target.epoch "
             "ssz/attestation_epoch_proof.json", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
    /* The proof is for gindex 88, not for the signature (6). */
    snprintf(cmd, sizeof cmd, "%s ssz verify --fork phase0 Attestation --path signature ssz/attestation_epoch_proof.json",
             BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 1);
    snprintf(cmd, sizeof cmd, "%s ssz verify --fork phase0 Attestation --root 0x%064d ssz/attestation_epoch_proof.json",
             BK_CLI_PATH, 0);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 1);
    /* A multiproof round trip through verify. */
    snprintf(cmd, sizeof cmd, "%s ssz proof phase0:Attestation --path data.target.epoch --path signature "
             "--path aggregation_bits.__len__ ssz/attestation.hex | %s ssz verify --fork phase0 Attestation -",
             BK_CLI_PATH, BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
}

static void invalid_data_exits_65_with_path(void)
{
    char out[4096], cmd[1024];
    /* Attestation whose aggregation_bits end in a zero byte. */
    char hex[600] = "0xe4000000";
    for (int i = 0; i < 224; i++) strcat(hex, "00");
    strcat(hex, "ff00");
    snprintf(cmd, sizeof cmd, "%s ssz root phase0:Attestation --hex %s", BK_CLI_PATH, hex);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 65);
    CHECK(strstr(out, "at byte 229") != NULL);
    CHECK(strstr(out, "(.aggregation_bits)") != NULL);
}

static void bad_value_json_exits_65_with_path(void)
{
    char out[4096], cmd[1024];
    snprintf(cmd, sizeof cmd, "echo '{\"epoch\":\"1\",\"root\":\"0x00\"}' | %s ssz encode Container:Checkpoint",
             BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 65);
    CHECK(strstr(out, "(.root)") != NULL);
    CHECK(strstr(out, "at byte 20") != NULL);
}

static void usage_errors_exit_64(void)
{
    char out[4096], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s ssz root 'Vector[uint8,0]' --hex 0x", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 64);
    snprintf(cmd, sizeof cmd, "%s ssz frobnicate uint8", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 64);
    snprintf(cmd, sizeof cmd, "%s ssz proof phase0:Attestation --path nope --hex 0x00", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 64);
    snprintf(cmd, sizeof cmd, "%s ssz --help", BK_CLI_PATH);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
}

static void schema_file_adds_containers(void)
{
    char out[4096], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s ssz root Container:FiveFieldStruct --schema ssz/types.json --hex 0x%0224d",
             BK_CLI_PATH, 0);
    CHECK_EQ_INT(run(cmd, out, sizeof out), 0);
    /* Five zero fields: merkleize of 5 zero chunks = zero_hash[3]. */
    CHECK_EQ_STR(out, "0xc78009fdf07fc56a11f122370658a353aaa542ed63e44c4bc15ff4cd105ab33c\n");
}

int main(void)
{
    RUN(root_matches_oracle);
    RUN(decode_then_encode_round_trips);
    RUN(proof_matches_oracle_and_verifies);
    RUN(invalid_data_exits_65_with_path);
    RUN(bad_value_json_exits_65_with_path);
    RUN(usage_errors_exit_64);
    RUN(schema_file_adds_containers);
    return check_finish();
}
