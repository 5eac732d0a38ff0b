/* Core-exact JSON writer: UniValue::write(indent) as a streaming state
 * machine (src/univalue/lib/univalue_write.cpp).
 *
 * Core writes a container at level L (the root container is level 1) as
 * open, "\n" when pretty, then per member: indent*L spaces, ["key":" "],
 * the value at level L+1, "," unless last, "\n"; then indent*(L-1) spaces
 * and close. Streaming, that is: before every member a "," unless first,
 * then "\n" + indent*L spaces; before the close "\n" + indent*(L-1) spaces.
 * An empty container therefore prints as "[\n" + indent*(L-1) spaces + "]"
 * (not collapsed). Compact form has no whitespace at all. */
#include <blockkit/json.h>

#include <math.h>
#include <stdio.h>

#include "json/json_internal.h"

void bk_json_init(bk_json *j, bk_writer *w, unsigned indent)
{
    j->w = w;
    j->indent = indent;
    j->depth = 0;
    j->status = BK_OK;
    j->after_key = 0;
}

bk_status bk_json_status(const bk_json *j)
{
    if (j->status != BK_OK) return j->status;
    if (j->w->status != BK_OK) return j->w->status;
    if (j->depth != 0 || j->after_key) return BK_ERR_ARG;
    return BK_OK;
}

static void misuse(bk_json *j)
{
    if (j->status == BK_OK) j->status = BK_ERR_ARG;
}

static const char spaces[64] = "                                                                "; /* 64, no NUL */

static void newline_indent(bk_json *j, uint32_t level)
{
    size_t n = (size_t)j->indent * level;
    bk_writer_putc(j->w, '\n');
    while (n > sizeof spaces) {
        bk_writer_put(j->w, spaces, sizeof spaces);
        n -= sizeof spaces;
    }
    bk_writer_put(j->w, spaces, n);
}

/* Separator before a member of the innermost container. */
static inline void member_sep(bk_json *j)
{
    uint32_t d = j->depth;
    if (j->has_items[d - 1]) bk_writer_putc(j->w, ',');
    j->has_items[d - 1] = 1;
    if (j->indent) newline_indent(j, d);
}

int bk_json_before_value_(bk_json *j)
{
    if (j->status != BK_OK) return 0;
    if (j->after_key) {
        j->after_key = 0;
        return 1;
    }
    if (j->depth == 0) return 1;
    if (j->is_object[j->depth - 1]) {
        misuse(j);
        return 0;
    }
    member_sep(j);
    return 1;
}

static void begin(bk_json *j, int obj)
{
    if (!bk_json_before_value_(j)) return;
    if (j->depth == BK_JSON_MAX_DEPTH) {
        misuse(j);
        return;
    }
    j->is_object[j->depth] = (uint8_t)obj;
    j->has_items[j->depth] = 0;
    j->depth++;
    bk_writer_putc(j->w, obj ? '{' : '[');
}

static void end(bk_json *j, int obj)
{
    if (j->status != BK_OK) return;
    if (j->depth == 0 || j->after_key || j->is_object[j->depth - 1] != obj) {
        misuse(j);
        return;
    }
    if (j->indent) newline_indent(j, j->depth - 1);
    j->depth--;
    bk_writer_putc(j->w, obj ? '}' : ']');
}

void bk_json_begin_object(bk_json *j) { begin(j, 1); }
void bk_json_end_object(bk_json *j) { end(j, 1); }
void bk_json_begin_array(bk_json *j) { begin(j, 0); }
void bk_json_end_array(bk_json *j) { end(j, 0); }

/* Core json_escape (table from univalue/gen/gen.cpp). Returns the escape
 * for byte c, or NULL when c is copied unchanged. */
static const char *escape_of(unsigned char c, char buf[7])
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case 0x08: return "\\b";
    case 0x09: return "\\t";
    case 0x0a: return "\\n";
    case 0x0c: return "\\f";
    case 0x0d: return "\\r";
    default: break;
    }
    if (c < 0x20 || c == 0x7f) {
        static const char hx[] = "0123456789abcdef";
        buf[0] = '\\'; buf[1] = 'u'; buf[2] = '0'; buf[3] = '0';
        buf[4] = hx[c >> 4]; buf[5] = hx[c & 15]; buf[6] = 0;
        return buf;
    }
    return NULL;
}

static void put_escaped(bk_writer *w, const char *s, size_t len)
{
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f) continue;
        char buf[7];
        const char *e = escape_of(c, buf);
        bk_writer_put(w, s + run, i - run);
        bk_writer_puts(w, e);
        run = i + 1;
    }
    bk_writer_put(w, s + run, len - run);
}

void bk_json_key_n(bk_json *j, const char *key, size_t len)
{
    if (j->status != BK_OK) return;
    if (j->depth == 0 || !j->is_object[j->depth - 1] || j->after_key) {
        misuse(j);
        return;
    }
    member_sep(j);
    bk_writer_putc(j->w, '"');
    put_escaped(j->w, key, len);
    if (j->indent) bk_writer_put(j->w, "\": ", 3);
    else bk_writer_put(j->w, "\":", 2);
    j->after_key = 1;
}

void bk_json_string_n(bk_json *j, const char *s, size_t len)
{
    if (!bk_json_before_value_(j)) return;
    bk_writer_putc(j->w, '"');
    put_escaped(j->w, s, len);
    bk_writer_putc(j->w, '"');
}

void bk_json_string_begin(bk_json *j)
{
    if (!bk_json_before_value_(j)) return;
    bk_writer_putc(j->w, '"');
}

void bk_json_string_end(bk_json *j)
{
    if (j->status != BK_OK) return;
    bk_writer_putc(j->w, '"');
}

void bk_json_hex(bk_json *j, const uint8_t *p, size_t n)
{
    if (!bk_json_before_value_(j)) return;
    bk_writer_putc(j->w, '"');
    bk_writer_put_hex(j->w, p, n);
    bk_writer_putc(j->w, '"');
}

void bk_json_hex_rev(bk_json *j, const uint8_t *p, size_t n)
{
    if (!bk_json_before_value_(j)) return;
    bk_writer_putc(j->w, '"');
    bk_writer_put_hex_rev(j->w, p, n);
    bk_writer_putc(j->w, '"');
}

/* ---- numbers ---- */

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t bk_u64_format(char *out, uint64_t v)
{
    char tmp[20];
    size_t i = sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        i -= 2;
        memcpy(tmp + i, digits2 + 2 * r, 2);
    }
    if (v >= 10) {
        i -= 2;
        memcpy(tmp + i, digits2 + 2 * v, 2);
    } else {
        tmp[--i] = (char)('0' + v);
    }
    size_t n = sizeof tmp - i;
    memcpy(out, tmp + i, n);
    return n;
}

size_t bk_i64_format(char *out, int64_t v)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + bk_u64_format(out + 1, (uint64_t)0 - (uint64_t)v);
    }
    return bk_u64_format(out, (uint64_t)v);
}

/* Core ValueFromAmount (src/core_io.cpp): sign, |a| / COIN, '.', |a| % COIN
 * zero-padded to 8 digits. */
size_t bk_amount_format(char out[BK_AMOUNT_STR_MAX], int64_t sats)
{
    size_t n = 0;
    uint64_t a = (uint64_t)sats;
    if (sats < 0) {
        out[n++] = '-';
        a = (uint64_t)0 - a;
    }
    uint64_t q = a / 100000000u;
    unsigned r = (unsigned)(a % 100000000u);
    n += bk_u64_format(out + n, q);
    out[n++] = '.';
    memcpy(out + n + 6, digits2 + 2 * (r % 100), 2); r /= 100;
    memcpy(out + n + 4, digits2 + 2 * (r % 100), 2); r /= 100;
    memcpy(out + n + 2, digits2 + 2 * (r % 100), 2); r /= 100;
    memcpy(out + n, digits2 + 2 * r, 2);
    return n + 8;
}

void bk_json_int(bk_json *j, int64_t v)
{
    if (!bk_json_before_value_(j)) return;
    char buf[24];
    bk_writer_put(j->w, buf, bk_i64_format(buf, v));
}

void bk_json_uint(bk_json *j, uint64_t v)
{
    if (!bk_json_before_value_(j)) return;
    char buf[24];
    bk_writer_put(j->w, buf, bk_u64_format(buf, v));
}

void bk_json_amount(bk_json *j, int64_t sats)
{
    if (!bk_json_before_value_(j)) return;
    char buf[BK_AMOUNT_STR_MAX];
    bk_writer_put(j->w, buf, bk_amount_format(buf, sats));
}

void bk_json_double(bk_json *j, double v)
{
    if (!bk_json_before_value_(j)) return;
    if (!isfinite(v)) {
        bk_writer_put(j->w, "null", 4);
        return;
    }
    /* UniValue::setFloat: ostringstream, imbue(classic), setprecision(16)
     * = printf("%.16g") in the C locale. snprintf follows the caller's
     * LC_NUMERIC, so whatever it wrote as the radix (',' or a multibyte
     * separator) is turned back into '.': output never depends on locale. */
    char buf[48], out[48];
    int n = snprintf(buf, sizeof buf, "%.16g", v);
    if (n <= 0 || (size_t)n >= sizeof buf) return;
    size_t m = 0;
    for (int i = 0; i < n;) {
        char c = buf[i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e') {
            out[m++] = c;
            i++;
            continue;
        }
        out[m++] = '.';
        while (i < n && !((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '-' || buf[i] == '+' || buf[i] == 'e')) i++;
    }
    bk_writer_put(j->w, out, m);
}

void bk_json_bool(bk_json *j, int v)
{
    if (!bk_json_before_value_(j)) return;
    if (v) bk_writer_put(j->w, "true", 4);
    else bk_writer_put(j->w, "false", 5);
}

void bk_json_null(bk_json *j)
{
    if (!bk_json_before_value_(j)) return;
    bk_writer_put(j->w, "null", 4);
}

void bk_json_raw(bk_json *j, const char *text, size_t len)
{
    if (!bk_json_before_value_(j)) return;
    bk_writer_put(j->w, text, len);
}

/* ---- difficulty and target ---- */

/* Core GetDifficulty (src/rpc/blockchain.cpp): the mask keeps the sign bit,
 * and the scaling loops run in this order in double precision. */
double bk_difficulty(uint32_t bits)
{
    int shift = (int)((bits >> 24) & 0xff);
    double d = (double)0x0000ffff / (double)(bits & 0x00ffffff);
    while (shift < 29) {
        d *= 256.0;
        shift++;
    }
    while (shift > 29) {
        d /= 256.0;
        shift--;
    }
    return d;
}

/* Core arith_uint256::SetCompact (src/arith_uint256.cpp): size = bits >> 24,
 * word = bits & 0x007fffff; size <= 3: word >> 8*(3-size), else word <<
 * 8*(size-3). Negative: word != 0 and bit 0x00800000; overflow: word != 0
 * and (size > 34, or size > 33 with word > 0xff, or size > 32 with word >
 * 0xffff). DeriveTarget (src/pow.cpp) also refuses zero. */
int bk_target_from_bits(uint32_t bits, uint8_t target_out[32])
{
    uint32_t size = bits >> 24;
    uint32_t word = bits & 0x007fffffu;
    memset(target_out, 0, 32);
    if (size <= 3) {
        word >>= 8 * (3 - size);
        target_out[29] = (uint8_t)(word >> 16);
        target_out[30] = (uint8_t)(word >> 8);
        target_out[31] = (uint8_t)word;
    }
    /* Core computes both flags from the word after the shift above. */
    int negative = word != 0 && (bits & 0x00800000u) != 0;
    int overflow = word != 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
    if (overflow) return 0;
    if (size > 3) {
        /* The word's three bytes land at byte positions (from the least
         * significant end) size-3, size-2, size-1; positions beyond 31 hold
         * zero bytes (the overflow rule above guarantees it). */
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t pos = size - 3 + k;
            uint8_t byte = (uint8_t)(word >> (8 * k));
            if (pos < 32) target_out[31 - pos] = byte;
        }
    }
    if (negative) return 0;
    for (int i = 0; i < 32; i++)
        if (target_out[i]) return 1;
    return 0;
}
