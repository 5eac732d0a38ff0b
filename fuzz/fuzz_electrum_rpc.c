/* Fuzz the Electrum server's request parser and dispatcher (no sockets):
 * the input is split at newlines as the server frames it, each line goes
 * to one session (no index, no node: the server.* methods answer, the
 * others refuse). Checks: every answer is whole lines, each of them valid
 * JSON (read back with the same JSON reader) and an object or array; no
 * line gets more answers than it has requests; the event loop's own
 * answers (bk_electrum_session_fast, on a second session fed the same
 * lines) are byte for byte the dispatcher's; nothing leaks (ASan). */
#include <blockkit/electrum.h>

#include "../src/json/json_parse.h"
#include "../src/server/electrum_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_electrum_opts o;
    bk_electrum_opts_init(&o);
    o.limits.max_batch = 64;
    bk_electrum_session *s, *s2;
    bk_error e;
    if (bk_electrum_session_new(&o, &s, &e) != BK_OK) abort();
    if (bk_electrum_session_new(&o, &s2, &e) != BK_OK) abort();
    bk_writer w, w2;
    bk_writer_init(&w, NULL);
    bk_writer_init(&w2, NULL);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        bk_writer_reset(&w);
        if (bk_electrum_session_line(s, p, len, &w, &e) != BK_OK) abort();
        bk_writer_reset(&w2);
        if (!bk_electrum_session_fast(s2, p, len, &w2)) {
            if (w2.len) abort();
            if (bk_electrum_session_line(s2, p, len, &w2, &e) != BK_OK) abort();
        }
        if (w2.len != w.len || (w.len && memcmp(w.data, w2.data, w.len) != 0)) abort();
        if (w.len) {
            /* One answer line, ending in its newline, holding one JSON value. */
            if (w.data[w.len - 1] != '\n' || memchr(w.data, '\n', w.len - 1)) abort();
            bk_jsondoc d;
            if (bk_jsondoc_parse(&d, (const char *)w.data, w.len - 1, NULL, &e) != BK_OK) abort();
            if (d.v[0].type != BK_JSONV_OBJECT && d.v[0].type != BK_JSONV_ARRAY) abort();
            if (d.v[0].type == BK_JSONV_ARRAY && d.v[0].n > 64) abort();
            bk_jsondoc_free(&d);
        }
        p += len + (nl != NULL);
    }
    bk_writer_free(&w);
    bk_writer_free(&w2);
    bk_electrum_session_free(s);
    bk_electrum_session_free(s2);
    return 0;
}
