/* decodescript and decoderawtransaction answers of a running Bitcoin Core,
 * replayed: the files in tests/data/core_json/peer/ were written by
 * scripts/peer-core-decode.sh --save against Core master b88bffe (its
 * first line names the version and the command). Each case is
 * "s HEX<TAB>ANSWER" (decodescript, regtest) or "t HEX<TAB>ANSWER"
 * (decoderawtransaction: Core's compact result, or "ERROR <message>" when
 * Core could not decode it). blockkit must print the same bytes
 * (bk_json_decodescript; bk_tx_decode_core + bk_json_tx without hex), and
 * refuse what Core refused. The inputs are generated, shaped like scripts
 * and transactions and mutated, so most are not standard. Runs in
 * tests/data. */
#include "check.h"
#include "json_test_util.h"

#include <blockkit/json.h>

static const char *const FILES[] = {"core_json/peer/decode_seed11.txt.zst"};

static size_t n_scripts, n_txs, n_refused;

static void replay_line(const char *line, size_t len, bk_writer *w)
{
    const char *tab = memchr(line, '\t', len);
    CHECK(tab != NULL && len > 2 && (line[0] == 's' || line[0] == 't') && line[1] == ' ');
    if (!tab || len < 2) return;
    size_t hexlen = (size_t)(tab - (line + 2));
    char *hex = malloc(hexlen + 1);
    memcpy(hex, line + 2, hexlen);
    hex[hexlen] = 0;
    size_t n;
    uint8_t *bin = check_unhex(hex, &n);
    CHECK(bin != NULL);
    const char *want = tab + 1;
    size_t want_len = len - (size_t)(want - line);
    bk_writer_reset(w);
    bk_json j;
    bk_json_init(&j, w, 0);
    bk_error err;
    bk_error_clear(&err);
    bk_status st;
    if (line[0] == 's') {
        n_scripts++;
        st = bk_json_decodescript(&j, bin, n, BK_NET_REGTEST);
    } else {
        n_txs++;
        bk_tx tx;
        st = bk_tx_decode_core(bin, n, &tx, &err);
        if (st == BK_OK) {
            bk_tx_json_opts o;
            bk_tx_json_opts_init(&o);
            o.network = BK_NET_REGTEST;
            o.include_hex = 0;
            st = bk_json_tx(&j, &tx, &o, NULL, &err);
        }
    }
    int core_refused = want_len >= 6 && !memcmp(want, "ERROR ", 6);
    if (core_refused) {
        n_refused++;
        if (st == BK_OK) fprintf(stderr, "Core refused, blockkit decoded: %s\n", hex);
        CHECK(st != BK_OK);
    } else if (st != BK_OK) {
        fprintf(stderr, "blockkit refused (%s), Core decoded: %s\n", err.msg, hex);
        CHECK(st == BK_OK);
    } else if (w->len != want_len || memcmp(w->data, want, want_len) != 0) {
        fprintf(stderr, "differs: %c %s\n  core:     %.*s\n  blockkit: %.*s\n", line[0], hex, (int)want_len, want,
                (int)w->len, (const char *)w->data);
        CHECK(0);
    } else {
        check_passed++;
    }
    free(bin);
    free(hex);
}

static void replay(void)
{
    bk_writer w;
    bk_writer_init(&w, NULL);
    for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
        size_t len;
        char *text = (char *)read_zst(FILES[f], &len);
        CHECK(len > 20 && !strncmp(text, "# Bitcoin Core", 14)); /* the header line names Core's version */
        size_t pos = 0;
        while (pos < len) {
            const char *nl = memchr(text + pos, '\n', len - pos);
            size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
            if (ll && text[pos] != '#') replay_line(text + pos, ll, &w);
            pos += ll + 1;
        }
        free(text);
    }
    bk_writer_free(&w);
    printf("%zu decodescript and %zu decoderawtransaction answers (%zu refused by Core)\n", n_scripts, n_txs,
           n_refused);
    /* the file holds what its generator wrote: both kinds, and refusals */
    CHECK(n_scripts >= 1000);
    CHECK(n_txs >= 1000);
    CHECK(n_refused >= 50);
}

int main(void)
{
    RUN(replay);
    return check_finish();
}
