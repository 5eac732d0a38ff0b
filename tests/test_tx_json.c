/* TxToUniv JSON against Bitcoin Core's bitcoin-tx -json outputs
 * (tests/data/core_json/util, write(4)), the spec's worked examples §13.2
 * and §13.3, decoderawtransaction's shape and DecodeTx heuristics, error
 * cases, allocation-free rendering, and the `blockkit tx` CLI. */
#include <blockkit/json.h>

#include <dirent.h>
#include <unistd.h>

#include "check.h"
#include "json_test_util.h"

static bk_writer w;

static const char *wtext(void)
{
    bk_writer_putc(&w, 0);
    w.len--;
    return (const char *)w.data;
}

static int str_same(const char *got, const char *want)
{
    if (got && want && strcmp(got, want) == 0) return 1;
    if (!got || !want) return 0;
    size_t i = 0;
    while (got[i] && got[i] == want[i]) i++;
    fprintf(stderr, "  strings differ at byte %zu\n  got:  %.100s\n  want: %.100s\n", i, got + (i > 30 ? i - 30 : 0),
            want + (i > 30 ? i - 30 : 0));
    return 0;
}

/* The value of "hex" in a Core JSON text (a fresh string). */
static char *json_hex_field(const char *json)
{
    const char *p = strstr(json, "\"hex\": \"");
    const char *last = NULL;
    while (p) { /* the tx's own hex is the last "hex" key */
        last = p;
        p = strstr(p + 1, "\"hex\": \"");
    }
    if (!last) return NULL;
    last += 8;
    const char *e = strchr(last, '"');
    char *out = malloc((size_t)(e - last) + 1);
    memcpy(out, last, (size_t)(e - last));
    out[e - last] = 0;
    return out;
}

static bk_status render_tx(const uint8_t *raw, size_t len, unsigned indent, int include_hex, bk_undo_iter *u,
                           int verbosity, bk_tx *tx_out, bk_error *err)
{
    bk_tx tx;
    bk_status st = bk_tx_decode_core(raw, len, &tx, err);
    if (st != BK_OK) return st;
    if (tx_out) *tx_out = tx;
    bk_tx_json_opts o;
    bk_tx_json_opts_init(&o);
    o.include_hex = include_hex;
    o.verbosity = verbosity;
    bk_writer_reset(&w);
    bk_json j;
    bk_json_init(&j, &w, indent);
    st = bk_json_tx(&j, &tx, &o, u, err);
    bk_writer_putc(&w, '\n');
    wtext();
    return st;
}

/* Every bitcoin-tx -json output: TxToUniv(include_hex) written with
 * indent 4, byte for byte; and decoderawtransaction's compact form (the
 * same tree without "hex"). */
static void bitcoin_tx_json_outputs_byte_for_byte(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/core_json/util", BK_TEST_DATA);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        char name[600];
        snprintf(name, sizeof name, "core_json/util/%s", e->d_name);
        check_case = e->d_name;
        size_t len;
        char *want = (char *)check_read_file(name, &len);
        char *hex = json_hex_field(want);
        CHECK(hex != NULL);
        if (!hex) { free(want); continue; }
        size_t rl;
        uint8_t *raw = check_unhex(hex, &rl);
        bk_error err;
        CHECK_EQ_INT(render_tx(raw, rl, 4, 1, NULL, 2, NULL, &err), BK_OK);
        CHECK(str_same(wtext(), want));
        /* decoderawtransaction: compact, no "hex" */
        tbuf c = ref_compact(want, len);
        char cut[16384];
        snprintf(cut, sizeof cut, ",\"hex\":\"%s\"}", hex);
        char *p = strstr(c.p, cut);
        CHECK(p != NULL);
        if (p) strcpy(p, "}");
        tbuf_put(&c, "", 0);
        CHECK_EQ_INT(render_tx(raw, rl, 0, 0, NULL, 2, NULL, &err), BK_OK);
        w.data[--w.len] = 0; /* newline */
        CHECK(str_same(wtext(), c.p));
        /* The .hex file of the same name holds the raw tx, except where
         * Core's test made the .json by a different command: txcreatedata1
         * (.hex from "-create" = version 2, .json from "nversion=1"). */
        snprintf(name, sizeof name, "%s/core_json/util/%.*s.hex", BK_TEST_DATA, (int)(n - 5), e->d_name);
        if (access(name, R_OK) == 0) {
            size_t hl;
            char *filehex = (char *)check_read_file(name, &hl);
            while (hl && (filehex[hl - 1] == '\n' || filehex[hl - 1] == '\r')) filehex[--hl] = 0;
            if (strcmp(e->d_name, "txcreatedata1.json") == 0) {
                CHECK(strncmp(filehex, "02000000", 8) == 0 && strncmp(hex, "01000000", 8) == 0);
                CHECK_EQ_STR(filehex + 8, hex + 8);
            } else {
                CHECK_EQ_STR(filehex, hex);
            }
            free(filehex);
        }
        files++;
        free(c.p);
        free(raw);
        free(hex);
        free(want);
    }
    closedir(d);
    CHECK(files >= 24);
}

static uint8_t *spec_file(const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "core_json/spec/%s", name);
    return check_read_file(path, len);
}

/* §13.3: block 170's second tx with its CTxUndo, verbosity 3 and 2. */
static void spec_13_3_block170_with_undo(void)
{
    size_t len;
    char *want = (char *)spec_file("13_3_block170_tx1_v3.indent2.json", &len);
    char *hex = json_hex_field(want);
    size_t rl, ul;
    uint8_t *raw = check_unhex(hex, &rl);
    uint8_t *undo = check_unhex("01011300320511db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5c", &ul);
    bk_block_undo bu;
    bk_error err;
    CHECK_EQ_INT(bk_block_undo_parse(undo, ul, &bu, &err), BK_OK);
    for (int v = 3; v >= 2; v--) {
        bk_undo_iter it;
        uint32_t nc;
        bk_undo_iter_init(&it, &bu);
        CHECK(bk_undo_next_tx(&it, &nc) && nc == 1);
        CHECK_EQ_INT(render_tx(raw, rl, 2, 1, &it, v, NULL, &err), BK_OK);
        if (v == 3) {
            CHECK(str_same(wtext(), want));
        } else {
            /* verbosity 2: the same without the prevout object */
            char *p = strstr(want, "      \"prevout\": {");
            char *e = strstr(want, "      \"sequence\"");
            memmove(p, e, strlen(e) + 1);
            CHECK(str_same(wtext(), want));
        }
    }
    /* without undo: no fee, no prevout */
    CHECK_EQ_INT(render_tx(raw, rl, 0, 1, NULL, 3, NULL, &err), BK_OK);
    CHECK(strstr(wtext(), "\"fee\"") == NULL && strstr(wtext(), "\"prevout\"") == NULL);
    free(undo);
    free(raw);
    free(hex);
    free(want);
}

/* §13.2: the genesis coinbase as a getblock verbosity-2 element. */
static void spec_13_2_genesis_coinbase(void)
{
    size_t len;
    char *want = (char *)spec_file("13_2_genesis_coinbase.indent2.json", &len);
    char *hex = json_hex_field(want);
    size_t rl;
    uint8_t *raw = check_unhex(hex, &rl);
    bk_error err;
    bk_tx tx;
    CHECK_EQ_INT(render_tx(raw, rl, 2, 1, NULL, 3, &tx, &err), BK_OK);
    CHECK(str_same(wtext(), want));
    CHECK(bk_tx_is_coinbase(&tx));
    /* a coinbase spends nothing: passing coins is a caller error */
    /* one CTxUndo with one coin: height 9 coinbase, 50 BTC, P2PKH */
    size_t ul;
    uint8_t *undo = check_unhex("0101130032001111111111111111111111111111111111111111", &ul);
    bk_block_undo bu;
    CHECK_EQ_INT(bk_block_undo_parse(undo, ul, &bu, &err), BK_OK);
    bk_undo_iter it;
    uint32_t nc = 0;
    bk_undo_iter_init(&it, &bu);
    CHECK(bk_undo_next_tx(&it, &nc) && nc == 1);
    if (nc == 1) CHECK_EQ_INT(render_tx(raw, rl, 0, 1, &it, 3, NULL, &err), BK_ERR_ARG);
    free(undo);
    free(raw);
    free(hex);
    free(want);
}

/* A coinbase with a witness (BIP141 commitment nonce) prints txinwitness. */
static void coinbase_witness_printed(void)
{
    /* version 2, marker/flag, 1 input (null prevout, scriptSig 03 + 3 bytes),
     * 1 output (0 sat, OP_TRUE), witness: 1 item of 32 zero bytes */
    char hex[1024] = "020000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff0403a08601"
                     "ffffffff01000000000000000001510120";
    for (int i = 0; i < 32; i++) strcat(hex, "00");
    strcat(hex, "00000000");
    size_t rl;
    uint8_t *raw = check_unhex(hex, &rl);
    bk_error err;
    CHECK_EQ_INT(render_tx(raw, rl, 0, 0, NULL, 2, NULL, &err), BK_OK);
    CHECK(strstr(wtext(), "\"vin\":[{\"coinbase\":\"03a08601\",\"txinwitness\":[\"0000000000000000000000000000000000000000000000000000000000000000\"],\"sequence\":4294967295}]") != NULL);
    CHECK(json_valid(wtext(), strlen(wtext())));
    free(raw);
}

/* Core >= v28 prints nVersion unsigned; older releases signed. */
static void version_unsigned_and_signed(void)
{
    size_t rl;
    uint8_t *raw = check_unhex("ffffffff000000000000", &rl);
    bk_tx tx;
    bk_error err;
    CHECK_EQ_INT(bk_tx_decode_core(raw, rl, &tx, &err), BK_OK);
    bk_tx_json_opts o;
    bk_tx_json_opts_init(&o);
    o.include_hex = 0;
    for (int s = 0; s < 2; s++) {
        o.signed_version = s;
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, 0);
        CHECK_EQ_INT(bk_json_tx(&j, &tx, &o, NULL, &err), BK_OK);
        CHECK(strstr(wtext(), s ? "\"version\":-1," : "\"version\":4294967295,") != NULL);
        CHECK(strstr(wtext(), "\"vin\":[],\"vout\":[]}") != NULL);
    }
    free(raw);
}

/* DecodeTx: bytes with zero inputs whose next byte is not 0 decode only
 * legacy-style (that byte is the output count); a witness tx decodes
 * extended. */
static void decode_tx_heuristics(void)
{
    size_t rl;
    /* version 1, 0 inputs, 1 output of 1000 sat paying OP_TRUE, locktime 0 */
    uint8_t *raw = check_unhex("010000000001e803000000000000015100000000", &rl);
    bk_tx tx;
    bk_error err;
    CHECK_EQ_INT(bk_tx_decode_core(raw, rl, &tx, &err), BK_OK);
    CHECK_EQ_INT(tx.n_in, 0);
    CHECK_EQ_INT(tx.n_out, 1);
    CHECK_EQ_INT(tx.has_witness, 0);
    CHECK_EQ_INT(render_tx(raw, rl, 0, 0, NULL, 2, NULL, &err), BK_OK);
    CHECK(strstr(wtext(), "\"vin\":[],\"vout\":[{\"value\":0.00001000,\"n\":0,\"scriptPubKey\":{\"asm\":\"1\",") != NULL);
    CHECK(strstr(wtext(), "\"size\":20,\"vsize\":20,\"weight\":80,") != NULL);
    free(raw);
    /* not a transaction at all: the extended decoder's error */
    raw = check_unhex("0100000001", &rl);
    CHECK(bk_tx_decode_core(raw, rl, &tx, &err) != BK_OK);
    CHECK(err.status != BK_OK && err.msg[0] != 0);
    free(raw);
}

static void undo_errors(void)
{
    size_t len;
    char *want = (char *)spec_file("13_3_block170_tx1_v3.indent2.json", &len);
    char *hex = json_hex_field(want);
    size_t rl, ul;
    uint8_t *raw = check_unhex(hex, &rl);
    bk_error err;
    /* two coins for one input */
    uint8_t *undo = check_unhex("0102130032001111111111111111111111111111111111111111"
                                "130032001111111111111111111111111111111111111111", &ul);
    bk_block_undo bu;
    bk_undo_iter it;
    uint32_t nc;
    if (bk_block_undo_parse(undo, ul, &bu, &err) == BK_OK) {
        bk_undo_iter_init(&it, &bu);
        CHECK(bk_undo_next_tx(&it, &nc) && nc == 2);
        CHECK_EQ_INT(render_tx(raw, rl, 0, 1, &it, 3, NULL, &err), BK_ERR_MISMATCH);
        CHECK(strstr(err.msg, "undo data does not match") != NULL);
    } else {
        CHECK(0);
    }
    free(undo);
    /* a prevout worth less than the outputs: negative fee, refused as Core does */
    undo = check_unhex("01011300090511db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5c", &ul);
    CHECK_EQ_INT(bk_block_undo_parse(undo, ul, &bu, &err), BK_OK);
    bk_undo_iter_init(&it, &bu);
    CHECK(bk_undo_next_tx(&it, &nc));
    CHECK_EQ_INT(render_tx(raw, rl, 0, 1, &it, 3, NULL, &err), BK_ERR_INVALID);
    CHECK(strstr(err.msg, "fee") != NULL);
    free(undo);
    free(raw);
    free(hex);
    free(want);
}

static void reused_writer_allocates_nothing(void)
{
    size_t len;
    char *want = (char *)spec_file("13_3_block170_tx1_v3.indent2.json", &len);
    char *hex = json_hex_field(want);
    size_t rl, ul;
    uint8_t *raw = check_unhex(hex, &rl);
    uint8_t *undo = check_unhex("01011300320511db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5c", &ul);
    bk_block_undo bu;
    bk_error err;
    CHECK_EQ_INT(bk_block_undo_parse(undo, ul, &bu, &err), BK_OK);
    bk_tx tx;
    CHECK_EQ_INT(bk_tx_decode_core(raw, rl, &tx, &err), BK_OK);
    bk_counting_allocator ca;
    bk_counting_allocator_init(&ca, NULL);
    bk_writer cw;
    bk_writer_init(&cw, &ca.base);
    bk_tx_json_opts o;
    bk_tx_json_opts_init(&o);
    o.verbosity = 3;
    for (int k = 0; k < 3; k++) {
        if (k == 2) bk_counting_allocator_reset(&ca);
        bk_undo_iter it;
        uint32_t nc;
        bk_undo_iter_init(&it, &bu);
        CHECK(bk_undo_next_tx(&it, &nc));
        bk_writer_reset(&cw);
        bk_json j;
        bk_json_init(&j, &cw, 2);
        CHECK_EQ_INT(bk_json_tx(&j, &tx, &o, &it, &err), BK_OK);
    }
    CHECK_EQ_INT(ca.allocs, 0);
    bk_writer_free(&cw);
    free(undo);
    free(raw);
    free(hex);
    free(want);
}

/* §13.4: scriptPubKey objects (ScriptToUniv with hex and address). */
static void spec_13_4_script_pubkeys(void)
{
    static const char gx[] = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    static const struct {
        const char *hex, *asm_, *desc, *address, *type;
    } rows[] = {
        {"0014751e76e8199196d454941c45d1b3a323f1433bd6", "0 751e76e8199196d454941c45d1b3a323f1433bd6",
         "addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)#uyjndxcw", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
         "witness_v0_keyhash"},
        {"00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262",
         "0 1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262",
         "addr(bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3)#8kzm8txf",
         "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", "witness_v0_scripthash"},
        {"5120X", "1 X", "rawtr(X)#xsjqcczm", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
         "witness_v1_taproot"},
        {"51200000000000000000000000000000000000000000000000000000000000000005",
         "1 0000000000000000000000000000000000000000000000000000000000000005",
         "addr(bc1pqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqzs2jkusy)#kf0n0f5y",
         "bc1pqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqzs2jkusy", "witness_v1_taproot"},
        {"51024e73", "1 29518", "addr(bc1pfeessrawgf)#d6x2lh3c", "bc1pfeessrawgf", "anchor"},
        {"521000000000000000000000000000000000", "2 00000000000000000000000000000000",
         "addr(bc1zqqqqqqqqqqqqqqqqqqqqqqqqqqr3t3q4)#jlkye8ap", "bc1zqqqqqqqqqqqqqqqqqqqqqqqqqqr3t3q4",
         "witness_unknown"},
        {"6a0401020304", "OP_RETURN 67305985", "raw(6a0401020304)#g0fz96j4", NULL, "nulldata"},
        {"a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87",
         "OP_HASH160 b472a266d0bd89c13706a4132ccfb16f7c3b9fcb OP_EQUAL",
         "addr(3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy)#rsjl0crt", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "scripthash"},
        {"2102Xac", "02X OP_CHECKSIG", "pk(02X)#gn28ywm7", NULL, "pubkey"},
        {"", "", "raw()#58lrscpx", NULL, "nonstandard"},
        {"4c", "[error]", "raw(4c)#w8vxm298", NULL, "nonstandard"},
        {"001000000000000000000000000000000000", "0 00000000000000000000000000000000",
         "raw(001000000000000000000000000000000000)#e7hrkrj4", NULL, "nonstandard"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char hex[256], asm_[256], desc[256], want[1024];
        /* X stands for G.x */
        const char *src[3] = {rows[i].hex, rows[i].asm_, rows[i].desc};
        char *dst[3] = {hex, asm_, desc};
        for (int k = 0; k < 3; k++) {
            char *o = dst[k];
            for (const char *c = src[k]; *c; c++) {
                if (*c == 'X') { strcpy(o, gx); o += 64; }
                else *o++ = *c;
            }
            *o = 0;
        }
        size_t len;
        uint8_t *script = check_unhex(hex, &len);
        bk_writer_reset(&w);
        bk_json j;
        bk_json_init(&j, &w, 0);
        bk_json_script_pubkey(&j, script, len, BK_NET_MAIN);
        CHECK_EQ_INT(bk_json_status(&j), BK_OK);
        if (rows[i].address)
            snprintf(want, sizeof want, "{\"asm\":\"%s\",\"desc\":\"%s\",\"hex\":\"%s\",\"address\":\"%s\",\"type\":\"%s\"}",
                     asm_, desc, hex, rows[i].address, rows[i].type);
        else
            snprintf(want, sizeof want, "{\"asm\":\"%s\",\"desc\":\"%s\",\"hex\":\"%s\",\"type\":\"%s\"}", asm_, desc,
                     hex, rows[i].type);
        check_case = rows[i].desc;
        CHECK(str_same(wtext(), want));
        free(script);
    }
}

/* ---- CLI ---- */

static char *cli(const char *args, size_t *len, int *status)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>/dev/null", BK_TEST_DATA, BK_CLI_PATH, args);
    return run_cmd(cmd, len, status);
}

static void cli_tx(void)
{
    size_t len, rl;
    int st;
    char *want = (char *)check_read_file("core_json/util/txcreatesignv1.json", &len);
    char *hex = json_hex_field(want);
    char args[8192];
    /* HEX argument, --indent 4 --include-hex: bitcoin-tx -json */
    snprintf(args, sizeof args, "tx %s --indent 4 --include-hex", hex);
    char *out = cli(args, &rl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(str_same(out, want));
    free(out);
    /* --file with hex text and stdin: decoderawtransaction compact */
    tbuf c = ref_compact(want, len);
    char cutp[4096];
    snprintf(cutp, sizeof cutp, ",\"hex\":\"%s\"}", hex);
    char *p = strstr(c.p, cutp);
    CHECK(p != NULL);
    if (p) strcpy(p, "}\n");
    out = cli("tx --file core_json/util/txcreatesignv1.hex", &rl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(str_same(out, c.p));
    free(out);
    out = cli("tx - < core_json/util/txcreatesignv1.hex", &rl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(str_same(out, c.p));
    free(out);
    free(c.p);
    free(hex);
    free(want);
    /* --undo-coins: getrawtransaction verbosity 2 shape (§13.3) */
    want = (char *)spec_file("13_3_block170_tx1_v3.indent2.json", &len);
    hex = json_hex_field(want);
    char coins[128];
    snprintf(coins, sizeof coins, "/tmp/bk_json_test_coins.%d", (int)getpid());
    FILE *f = fopen(coins, "w");
    fputs("011300320511db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5c\n", f);
    fclose(f);
    snprintf(args, sizeof args, "tx %s --undo-coins %s --pretty", hex, coins);
    out = cli(args, &rl, &st);
    CHECK_EQ_INT(st, 0);
    CHECK(str_same(out, want));
    free(out);
    /* coins that do not fit: 65 */
    f = fopen(coins, "w");
    fputs("00\n", f);
    fclose(f);
    out = cli(args, &rl, &st);
    CHECK_EQ_INT(st, 65);
    CHECK_EQ_INT(rl, 0);
    free(out);
    unlink(coins);
    /* bad input: 65; usage: 64 */
    out = cli("tx 0100", &rl, &st);
    CHECK_EQ_INT(st, 65);
    free(out);
    out = cli("tx nothex", &rl, &st);
    CHECK_EQ_INT(st, 65);
    free(out);
    out = cli("tx", &rl, &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    out = cli("tx 00 --bogus", &rl, &st);
    CHECK_EQ_INT(st, 64);
    free(out);
    out = cli("tx --file /nonexistent/tx.hex", &rl, &st);
    CHECK_EQ_INT(st, 66);
    free(out);
    out = cli("tx --help", &rl, &st);
    CHECK_EQ_INT(st, 0);
    free(out);
    free(hex);
    free(want);
}

int main(void)
{
    bk_writer_init(&w, NULL);
    RUN(bitcoin_tx_json_outputs_byte_for_byte);
    RUN(spec_13_3_block170_with_undo);
    RUN(spec_13_2_genesis_coinbase);
    RUN(coinbase_witness_printed);
    RUN(version_unsigned_and_signed);
    RUN(decode_tx_heuristics);
    RUN(undo_errors);
    RUN(reused_writer_allocates_nothing);
    RUN(spec_13_4_script_pubkeys);
    RUN(cli_tx);
    bk_writer_free(&w);
    return check_finish();
}
