/* blockkit script = Core's decodescript: every vector of Core's own
 * rpc_decodescript.json (tests/data/core_json), compared byte for byte with
 * the object Core prints (members in Core's push order: ScriptToUniv's asm,
 * desc, address, type, then p2sh and segwit{asm, desc, hex, address, type,
 * p2sh-segwit}), compact and --pretty (bitcoin-cli's indent 2); HASH160 and
 * the P2WPKH wrapping checked on the generator point's key (BIP173's
 * example address); exit codes. Runs in tests/data. */
#include "check.h"
#include "json_test_util.h"
#include "ssz/ssz_internal.h"

#include <blockkit/json.h>
#include <blockkit/script.h>

static const char *const TOP[] = {"asm", "desc", "address", "type", "p2sh", "segwit"};
static const char *const SEG[] = {"asm", "desc", "hex", "address", "type", "p2sh-segwit"};

/* The expected compact text: the vector's members in Core's order. */
static void expect_obj(tbuf *o, const bk_sjson *v, const char *const *order, size_t norder)
{
    tbuf_put(o, "{", 1);
    size_t used = 0, first = 1;
    for (size_t i = 0; i < norder; i++) {
        const bk_sjson *m = bk_sjson_get(v, order[i]);
        if (!m) continue;
        used++;
        if (!first) tbuf_put(o, ",", 1);
        first = 0;
        tbuf_put(o, "\"", 1);
        tbuf_put(o, order[i], strlen(order[i]));
        tbuf_put(o, "\":", 2);
        if (m->kind == BK_SJSON_OBJECT) expect_obj(o, m, SEG, 6);
        else {
            CHECK(m->kind == BK_SJSON_STRING);
            tbuf_put(o, "\"", 1);
            tbuf_put(o, m->str, m->len);
            tbuf_put(o, "\"", 1);
        }
    }
    /* Every member of the vector is one Core prints. */
    CHECK_EQ_INT(used, v->n);
    tbuf_put(o, "}", 1);
}

static void core_vectors(void)
{
    size_t n;
    char *text = (char *)check_read_file("core_json/rpc_decodescript.json", &n);
    bk_arena a;
    bk_arena_init(&a, NULL);
    bk_sjson *doc;
    bk_error err;
    CHECK_EQ_INT(bk_sjson_parse(&a, text, n, &doc, &err), BK_OK);
    CHECK(doc->kind == BK_SJSON_ARRAY);
    size_t count = 0;
    for (const bk_sjson *c = doc->child; c; c = c->next, count++) {
        const bk_sjson *hex = c->child, *want = hex->next;
        tbuf exp = {0};
        expect_obj(&exp, want, TOP, 6);
        tbuf_put(&exp, "\n", 1);
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "%s script '%s' --chain regtest", BK_CLI_PATH, hex->str);
        size_t gl;
        int st;
        char *got = run_cmd(cmd, &gl, &st);
        CHECK_EQ_INT(st, 0);
        CHECK_EQ_STR(got, exp.p);
        free(got);
        /* bitcoin-cli's form. */
        exp.p[--exp.len] = 0;
        tbuf pretty = ref_pretty(exp.p, 2);
        tbuf_put(&pretty, "\n", 1);
        snprintf(cmd, sizeof cmd, "%s script '%s' --chain regtest --pretty", BK_CLI_PATH, hex->str);
        got = run_cmd(cmd, &gl, &st);
        CHECK_EQ_INT(st, 0);
        CHECK_EQ_STR(got, pretty.p);
        free(got);
        free(pretty.p);
        free(exp.p);
    }
    CHECK_EQ_INT(count, 10);
    bk_arena_free(&a);
    free(text);
}

/* HASH160 of the generator's compressed key is 751e76e8...3bd6, whose
 * P2WPKH address is BIP173's example. Core wraps a compressed P2PK as
 * P2WPKH; the segwit object's own hex decodes to the same asm and type. */
static void pubkey_wraps_as_p2wpkh(void)
{
    static const uint8_t g[33] = {0x02, 0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0,
                                  0x62, 0x95, 0xce, 0x87, 0x0b, 0x07, 0x02, 0x9b, 0xfc, 0xdb, 0x2d,
                                  0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98};
    uint8_t h[20];
    char hx[41];
    bk_hash160(h, g, 33);
    check_hex(hx, h, 20);
    CHECK_EQ_STR(hx, "751e76e8199196d454941c45d1b3a323f1433bd6");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s script 210279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798ac",
             BK_CLI_PATH);
    size_t gl;
    int st;
    char *got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(got, "\"type\":\"pubkey\",\"p2sh\":\"3") != NULL);
    CHECK(strstr(got, "\"segwit\":{\"asm\":\"0 751e76e8199196d454941c45d1b3a323f1433bd6\"") != NULL);
    CHECK(strstr(got, "\"hex\":\"0014751e76e8199196d454941c45d1b3a323f1433bd6\","
                      "\"address\":\"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4\",\"type\":\"witness_v0_keyhash\","
                      "\"p2sh-segwit\":\"3") != NULL);
    /* No "address" for a bare pubkey (Core: PubKeyDestination). */
    CHECK(strstr(got, "\"desc\":\"pk(0279be") != NULL);
    CHECK(strncmp(got, "{\"asm\":\"0279be", 14) == 0);
    free(got);
    /* The same key uncompressed: p2sh, but no segwit object. */
    snprintf(cmd, sizeof cmd, "%s script 410479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
             "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8ac", BK_CLI_PATH);
    got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(got, "\"p2sh\":\"3") != NULL);
    CHECK(strstr(got, "segwit") == NULL);
    free(got);
}

/* A compressed 1-of-2 multisig: segwit desc wsh(multi(...)) with a checksum
 * that verifies. */
static void multisig_segwit_descriptor(void)
{
    const char *k = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s script 5121%s21%s52ae", BK_CLI_PATH, k, k);
    size_t gl;
    int st;
    char *got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_INT(st, 0);
    char want[512];
    snprintf(want, sizeof want, "\"desc\":\"wsh(multi(1,%s,%s))#", k, k);
    char *p = strstr(got, want);
    CHECK(p != NULL);
    if (p) {
        const char *d = p + 8, *hash = strchr(d, '#');
        char ck[9];
        CHECK_EQ_INT(bk_descriptor_checksum(d, (size_t)(hash - d), ck, NULL), BK_OK);
        CHECK(strncmp(hash + 1, ck, 8) == 0);
    }
    CHECK(strstr(got, "\"type\":\"multisig\",\"p2sh\":\"3") != NULL);
    CHECK(strstr(got, "\"type\":\"witness_v0_scripthash\",\"p2sh-segwit\":\"3") != NULL);
    free(got);
}

static void exit_codes(void)
{
    char cmd[1024];
    size_t gl;
    int st;
    char *got;
    /* The empty script (Core: "Empty scripts are valid"). */
    snprintf(cmd, sizeof cmd, "%s script ''", BK_CLI_PATH);
    got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strncmp(got, "{\"asm\":\"\",\"desc\":\"raw()#", 24) == 0);
    CHECK(strstr(got, "\"type\":\"nonstandard\",\"p2sh\":\"") != NULL);
    free(got);
    static const char *const bad[] = {"0", "zz", "0x6a00", "6a 00"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(cmd, sizeof cmd, "%s script '%s' 2>/dev/null", BK_CLI_PATH, bad[i]);
        free(run_cmd(cmd, &gl, &st));
        CHECK_EQ_INT(st, 65);
    }
    snprintf(cmd, sizeof cmd, "%s script 2>/dev/null", BK_CLI_PATH);
    free(run_cmd(cmd, &gl, &st));
    CHECK_EQ_INT(st, 64);
    snprintf(cmd, sizeof cmd, "%s script 6a00 --chain nosuch 2>/dev/null", BK_CLI_PATH);
    free(run_cmd(cmd, &gl, &st));
    CHECK_EQ_INT(st, 64);
    snprintf(cmd, sizeof cmd, "echo 6a00 | %s script -", BK_CLI_PATH);
    got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(got, "nulldata") != NULL);
    free(got);
    /* <key> OP_CHECKSIGVERIFY 1 OP_CHECKSEQUENCEVERIFY (and_v(v:pk(K),older(1))):
     * the miniscript case blockkit cannot infer says so on stderr. */
    snprintf(cmd, sizeof cmd, "%s script 210279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798ad51b2 "
             "2>&1 >/dev/null", BK_CLI_PATH);
    got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(got, "note: if this script is sane miniscript") != NULL);
    free(got);
    snprintf(cmd, sizeof cmd, "%s script 02eeee 2>&1 >/dev/null", BK_CLI_PATH);
    got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK_EQ_STR(got, "");
    free(got);
    snprintf(cmd, sizeof cmd, "%s script 6a00 >/dev/full 2>/dev/null; echo $?", BK_CLI_PATH);
    got = run_cmd(cmd, &gl, &st);
    CHECK_EQ_STR(got, "74\n");
    free(got);
}

int main(void)
{
    RUN(core_vectors);
    RUN(pubkey_wraps_as_p2wpkh);
    RUN(multisig_segwit_descriptor);
    RUN(exit_codes);
    return check_finish();
}
