/* JSON writer: Core's UniValue::write byte for byte (compact and pretty),
 * json_escape, ValueFromAmount, %.16g, GetDifficulty, SetCompact, hex. */
#include <blockkit/json.h>

#include <stdlib.h>

#include "check.h"

static bk_writer w;

static const char *text(void)
{
    bk_writer_putc(&w, 0);
    w.len--;
    return (const char *)w.data;
}

static void start(bk_json *j, unsigned indent)
{
    bk_writer_reset(&w);
    bk_json_init(j, &w, indent);
}

/* {"a":[],"b":{},"c":[1,{"d":"x"}],"e":null,"f":true,"g":false} */
static void nested(bk_json *j)
{
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "a");
    bk_json_begin_array(j);
    bk_json_end_array(j);
    BK_JSON_KEY(j, "b");
    bk_json_begin_object(j);
    bk_json_end_object(j);
    BK_JSON_KEY(j, "c");
    bk_json_begin_array(j);
    bk_json_int(j, 1);
    bk_json_begin_object(j);
    BK_JSON_KEY(j, "d");
    bk_json_string(j, "x");
    bk_json_end_object(j);
    bk_json_end_array(j);
    BK_JSON_KEY(j, "e");
    bk_json_null(j);
    BK_JSON_KEY(j, "f");
    bk_json_bool(j, 1);
    BK_JSON_KEY(j, "g");
    bk_json_bool(j, 0);
    bk_json_end_object(j);
}

static void compact_has_no_whitespace(void)
{
    bk_json j;
    start(&j, 0);
    nested(&j);
    CHECK_EQ_INT(bk_json_status(&j), BK_OK);
    CHECK_EQ_STR(text(), "{\"a\":[],\"b\":{},\"c\":[1,{\"d\":\"x\"}],\"e\":null,\"f\":true,\"g\":false}");
}

/* UniValue::write(2): members at indent*level, close at indent*(level-1),
 * empty containers not collapsed. */
static void pretty_indent2_matches_univalue(void)
{
    bk_json j;
    start(&j, 2);
    nested(&j);
    CHECK_EQ_INT(bk_json_status(&j), BK_OK);
    CHECK_EQ_STR(text(),
                 "{\n"
                 "  \"a\": [\n"
                 "  ],\n"
                 "  \"b\": {\n"
                 "  },\n"
                 "  \"c\": [\n"
                 "    1,\n"
                 "    {\n"
                 "      \"d\": \"x\"\n"
                 "    }\n"
                 "  ],\n"
                 "  \"e\": null,\n"
                 "  \"f\": true,\n"
                 "  \"g\": false\n"
                 "}");
}

static void pretty_indent4_empty_root_containers(void)
{
    bk_json j;
    start(&j, 4);
    bk_json_begin_array(&j);
    bk_json_end_array(&j);
    CHECK_EQ_STR(text(), "[\n]");
    start(&j, 4);
    bk_json_begin_object(&j);
    BK_JSON_KEY(&j, "vin");
    bk_json_begin_array(&j);
    bk_json_end_array(&j);
    bk_json_end_object(&j);
    CHECK_EQ_STR(text(), "{\n    \"vin\": [\n    ]\n}");
    /* deep nesting beyond the 64-space constant block */
    start(&j, 20);
    for (int i = 0; i < 5; i++) bk_json_begin_array(&j);
    for (int i = 0; i < 5; i++) bk_json_end_array(&j);
    CHECK_EQ_INT(bk_json_status(&j), BK_OK);
    const char *t = text();
    /* Second line: 20 spaces then '[' (array member at level 1). */
    CHECK(strncmp(t, "[\n                    [\n", 24) == 0);
    /* The innermost (level 5) closes after 4 * 20 spaces. */
    char close80[84];
    close80[0] = '\n';
    memset(close80 + 1, ' ', 80);
    close80[81] = ']';
    close80[82] = 0;
    CHECK(strstr(t, close80) != NULL);
    CHECK_EQ_INT(strlen(t), 10 /* brackets */ + 9 /* newlines */ + (20 + 40 + 60 + 80) + (80 + 60 + 40 + 20 + 0));
}

/* Core json_escape, table from univalue/gen/gen.cpp. */
static void escaping_table(void)
{
    static const struct {
        unsigned char in;
        const char *out;
    } rows[] = {
        {0x00, "\\u0000"}, {0x01, "\\u0001"}, {0x07, "\\u0007"}, {0x08, "\\b"},   {0x09, "\\t"},
        {0x0a, "\\n"},     {0x0b, "\\u000b"}, {0x0c, "\\f"},     {0x0d, "\\r"},   {0x0e, "\\u000e"},
        {0x1b, "\\u001b"}, {0x1f, "\\u001f"}, {0x20, " "},       {'"', "\\\""},   {'/', "/"},
        {'\\', "\\\\"},    {0x7e, "~"},       {0x7f, "\\u007f"}, {0x80, "\x80"},  {0xff, "\xff"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bk_json j;
        start(&j, 0);
        char in[3] = {'a', (char)rows[i].in, 'b'};
        bk_json_string_n(&j, in, 3);
        char want[32];
        snprintf(want, sizeof want, "\"a%sb\"", rows[i].out);
        CHECK_EQ_STR(text(), want);
    }
    /* keys are escaped the same way */
    bk_json j;
    start(&j, 0);
    bk_json_begin_object(&j);
    bk_json_key(&j, "k\"\n");
    bk_json_string(&j, "");
    bk_json_end_object(&j);
    CHECK_EQ_STR(text(), "{\"k\\\"\\n\":\"\"}");
}

static void amount_text(int64_t sats, const char *want)
{
    char buf[BK_AMOUNT_STR_MAX + 1];
    size_t n = bk_amount_format(buf, sats);
    buf[n] = 0;
    CHECK_EQ_STR(buf, want);
}

/* Core ValueFromAmount. */
static void amounts(void)
{
    amount_text(0, "0.00000000");
    amount_text(1, "0.00000001");
    amount_text(5000000000LL, "50.00000000");
    amount_text(-150000000LL, "-1.50000000");
    amount_text(2100000000000000LL, "21000000.00000000");
    amount_text(100000, "0.00100000");
    amount_text(-1, "-0.00000001");
    amount_text(INT64_MAX, "92233720368.54775807");
    amount_text(INT64_MIN, "-92233720368.54775808");
    bk_json j;
    start(&j, 0);
    bk_json_begin_array(&j);
    bk_json_amount(&j, 123456789);
    bk_json_amount(&j, -5);
    bk_json_end_array(&j);
    CHECK_EQ_STR(text(), "[1.23456789,-0.00000005]");
}

static void integers(void)
{
    bk_json j;
    start(&j, 0);
    bk_json_begin_array(&j);
    bk_json_int(&j, 0);
    bk_json_int(&j, -1);
    bk_json_int(&j, 9);
    bk_json_int(&j, 10);
    bk_json_int(&j, 99);
    bk_json_int(&j, 100);
    bk_json_int(&j, INT64_MIN);
    bk_json_int(&j, INT64_MAX);
    bk_json_uint(&j, UINT64_MAX);
    bk_json_uint(&j, 4294967295u);
    bk_json_end_array(&j);
    CHECK_EQ_STR(text(), "[0,-1,9,10,99,100,-9223372036854775808,9223372036854775807,18446744073709551615,4294967295]");
}

static void double_text(double v, const char *want)
{
    bk_json j;
    start(&j, 0);
    bk_json_double(&j, v);
    CHECK_EQ_STR(text(), want);
}

/* UniValue::setFloat = %.16g; spec §13.4 difficulty vectors. */
static void doubles_and_difficulty(void)
{
    double_text(1.0, "1");
    double_text(1.5e16, "1.5e+16");
    double_text(1234567890123456789.0, "1.234567890123457e+18");
    double_text(bk_difficulty(0x1d00ffff), "1");
    double_text(bk_difficulty(0x17053894), "53911173001054.59");
    double_text(bk_difficulty(0x207fffff), "4.656542373906925e-10");
    /* block 277647 (0x1903a30c) as Core printed it in core_json/blocks */
    double_text(bk_difficulty(0x1903a30c), "1180923195.258026");
}

static void target_hex(uint32_t bits, int ok, const char *want)
{
    uint8_t t[32];
    char hex[65];
    CHECK_EQ_INT(bk_target_from_bits(bits, t), ok);
    check_hex(hex, t, 32);
    CHECK_EQ_STR(hex, want);
}

/* Core SetCompact / DeriveTarget. */
static void targets(void)
{
    target_hex(0x1d00ffff, 1, "00000000ffff0000000000000000000000000000000000000000000000000000");
    target_hex(0x17053894, 1, "0000000000000000000538940000000000000000000000000000000000000000");
    target_hex(0x207fffff, 1, "7fffff0000000000000000000000000000000000000000000000000000000000");
    target_hex(0x03123456, 1, "0000000000000000000000000000000000000000000000000000000000123456");
    target_hex(0x02123456, 1, "0000000000000000000000000000000000000000000000000000000000001234");
    target_hex(0x01003456, 0, "0000000000000000000000000000000000000000000000000000000000000000");
    target_hex(0x04923456, 0, "0000000000000000000000000000000000000000000000000000000012345600"); /* negative */
    target_hex(0x01803456, 0, "0000000000000000000000000000000000000000000000000000000000000000"); /* word 0 after shift: not negative, zero */
    target_hex(0x22000001, 1, "0100000000000000000000000000000000000000000000000000000000000000");
    target_hex(0x23000001, 0, "0000000000000000000000000000000000000000000000000000000000000000"); /* overflow: size 35 */
    target_hex(0x22000100, 0, "0000000000000000000000000000000000000000000000000000000000000000"); /* overflow */
    target_hex(0x21010000, 0, "0000000000000000000000000000000000000000000000000000000000000000"); /* overflow */
    target_hex(0x21001234, 1, "1234000000000000000000000000000000000000000000000000000000000000");
}

static void hex_matches_reference(void)
{
    uint8_t in[1000];
    char got[2001], want[2001];
    srand(7);
    for (size_t i = 0; i < sizeof in; i++) in[i] = (uint8_t)rand();
    for (size_t n = 0; n <= 70; n++) {
        bk_hex_encode(got, in + 3, n);
        got[2 * n] = 0;
        check_hex(want, in + 3, n);
        CHECK_EQ_STR(got, want);
    }
    bk_hex_encode(got, in, 1000);
    got[2000] = 0;
    check_hex(want, in, 1000);
    CHECK_EQ_STR(got, want);
    uint8_t rev[32];
    for (int i = 0; i < 32; i++) rev[i] = in[31 - i];
    bk_hex_encode_rev(got, in, 32);
    got[64] = 0;
    check_hex(want, rev, 32);
    CHECK_EQ_STR(got, want);
    bk_json j;
    start(&j, 0);
    static const uint8_t b[3] = {0x00, 0xab, 0xff};
    bk_json_begin_array(&j);
    bk_json_hex(&j, b, 3);
    bk_json_hex_rev(&j, b, 3);
    bk_json_hex(&j, b, 0);
    bk_json_end_array(&j);
    CHECK_EQ_STR(text(), "[\"00abff\",\"ffab00\",\"\"]");
}

static int collect_sink(void *ctx, const uint8_t *data, size_t len)
{
    bk_writer *out = ctx;
    bk_writer_put(out, data, len);
    return 0;
}

/* A sink writer with a small chunk gets the same bytes, including a hex
 * string much longer than the chunk. */
static void sink_writer_same_bytes(void)
{
    static uint8_t big[100000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7);
    bk_writer collected, sinkw;
    bk_writer_init(&collected, NULL);
    bk_writer_init_sink(&sinkw, NULL, collect_sink, &collected, 1024);
    bk_json a, b;
    start(&a, 2);
    bk_json_init(&b, &sinkw, 2);
    for (int k = 0; k < 2; k++) {
        bk_json *j = k ? &b : &a;
        bk_json_begin_object(j);
        BK_JSON_KEY(j, "hex");
        bk_json_hex(j, big, sizeof big);
        BK_JSON_KEY(j, "rev");
        bk_json_hex_rev(j, big, sizeof big);
        bk_json_end_object(j);
    }
    CHECK_EQ_INT(bk_writer_flush(&sinkw), BK_OK);
    CHECK_EQ_INT(collected.len, w.len);
    CHECK(collected.len == w.len && memcmp(collected.data, w.data, w.len) == 0);
    bk_writer_free(&collected);
    bk_writer_free(&sinkw);
}

static void misuse_is_sticky(void)
{
    bk_json j;
    start(&j, 0);
    bk_json_begin_object(&j);
    bk_json_int(&j, 1); /* value without key */
    CHECK_EQ_INT(bk_json_status(&j), BK_ERR_ARG);
    size_t len = w.len;
    BK_JSON_KEY(&j, "a");
    bk_json_end_object(&j);
    CHECK_EQ_INT(w.len, len);

    start(&j, 0);
    bk_json_begin_array(&j);
    BK_JSON_KEY(&j, "a"); /* key in array */
    CHECK_EQ_INT(bk_json_status(&j), BK_ERR_ARG);

    start(&j, 0);
    bk_json_begin_array(&j);
    bk_json_end_object(&j); /* wrong close */
    CHECK_EQ_INT(bk_json_status(&j), BK_ERR_ARG);

    start(&j, 0);
    bk_json_begin_array(&j); /* left open */
    CHECK_EQ_INT(bk_json_status(&j), BK_ERR_ARG);

    start(&j, 0);
    for (int i = 0; i < BK_JSON_MAX_DEPTH; i++) bk_json_begin_array(&j);
    CHECK_EQ_INT(j.status, BK_OK);
    bk_json_begin_array(&j); /* one level too deep */
    CHECK_EQ_INT(j.status, BK_ERR_ARG);

    start(&j, 0);
    bk_json_begin_object(&j);
    BK_JSON_KEY(&j, "a");
    bk_json_end_object(&j); /* key without value */
    CHECK_EQ_INT(bk_json_status(&j), BK_ERR_ARG);
}

static void streamed_string(void)
{
    bk_json j;
    start(&j, 2);
    bk_json_begin_object(&j);
    BK_JSON_KEY(&j, "asm");
    bk_json_string_begin(&j);
    bk_writer_puts(bk_json_writer(&j), "OP_DUP OP_HASH160");
    bk_json_string_end(&j);
    bk_json_end_object(&j);
    CHECK_EQ_INT(bk_json_status(&j), BK_OK);
    CHECK_EQ_STR(text(), "{\n  \"asm\": \"OP_DUP OP_HASH160\"\n}");
}

int main(void)
{
    bk_writer_init(&w, NULL);
    RUN(compact_has_no_whitespace);
    RUN(pretty_indent2_matches_univalue);
    RUN(pretty_indent4_empty_root_containers);
    RUN(escaping_table);
    RUN(amounts);
    RUN(integers);
    RUN(doubles_and_difficulty);
    RUN(targets);
    RUN(hex_matches_reference);
    RUN(sink_writer_same_bytes);
    RUN(misuse_is_sticky);
    RUN(streamed_string);
    bk_writer_free(&w);
    return check_finish();
}
