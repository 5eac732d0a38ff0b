/* Shared by test_script.c, test_address.c, test_descriptor.c: read the
 * tab-separated script vectors in tests/data/script/ and render each script
 * as Core would. Lines: net<TAB>hex<TAB>asm<TAB>desc<TAB>address<TAB>type
 * (scriptPubKeys) or net<TAB>hex<TAB>asm (scriptSigs, asm with sighash
 * decoding). '#' starts a comment line. */
#ifndef BLOCKKIT_TEST_SCRIPT_VECTORS_H
#define BLOCKKIT_TEST_SCRIPT_VECTORS_H

#include "check.h"
#include <blockkit/script.h>

#define SV_MAX_FIELDS 6

typedef struct sv_line {
    char *f[SV_MAX_FIELDS];
    int nf;
    int lineno;
} sv_line;

/* Split the file's text in place and call fn for every vector line.
 * Returns the number of lines visited. */
static inline int sv_each(const char *name, void (*fn)(const sv_line *l, const char *file))
{
    size_t len;
    char *text = (char *)check_read_file(name, &len);
    int count = 0, lineno = 0;
    char *p = text;
    while (*p) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        lineno++;
        if (*p && *p != '#') {
            sv_line l;
            l.nf = 0;
            l.lineno = lineno;
            char *q = p;
            while (l.nf < SV_MAX_FIELDS) {
                l.f[l.nf++] = q;
                char *t = strchr(q, '\t');
                if (!t) break;
                *t = 0;
                q = t + 1;
            }
            fn(&l, name);
            count++;
        }
        if (!nl) break;
        p = nl + 1;
    }
    free(text);
    return count;
}

static inline bk_network sv_net(const char *name)
{
    bk_network net = BK_NET_MAIN;
    if (strcmp(name, "test") == 0) name = "testnet3";
    if (bk_network_parse(name, &net) != BK_OK) {
        fprintf(stderr, "unknown network %s\n", name);
        exit(2);
    }
    return net;
}

/* Render into a NUL-terminated string owned by the writer. */
static inline const char *sv_cstr(bk_writer *w)
{
    bk_writer_putc(w, 0);
    return (const char *)w->data;
}

/* Report a mismatch with the file and line. */
static inline void sv_check_str(const char *got, const char *want, const char *what, const char *file, int lineno)
{
    if (strcmp(got, want) == 0) {
        check_passed++;
    } else {
        check_failed++;
        fprintf(stderr, "%s:%d: %s mismatch\n  got:  %s\n  want: %s\n", file, lineno, what, got, want);
    }
}

#endif
