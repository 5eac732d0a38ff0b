/* Fuzz `blockkit script` (bk_json_decodescript): any bytes as a script on
 * mainnet and regtest. The result is one complete JSON object, and the
 * segwit object, when there is one, holds a script that decodes again. No
 * crash, no leak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blockkit/blockkit.h>
#include <blockkit/json.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const bk_network nets[2] = {BK_NET_MAIN, BK_NET_REGTEST};
    for (int k = 0; k < 2; k++) {
        bk_writer w;
        bk_writer_init(&w, NULL);
        bk_json j;
        bk_json_init(&j, &w, k ? 2 : 0);
        if (bk_json_decodescript(&j, data, size, nets[k]) != BK_OK) abort();
        if (w.len < 2 || w.data[0] != '{' || w.data[w.len - 1] != '}') abort();
        /* The segwit program's hex decodes as a witness program. */
        const char *h = memmem(w.data, w.len, "\"hex\":", 6);
        if (h) {
            h = memchr(h + 6, '"', w.len - (size_t)(h + 6 - (const char *)w.data));
            if (!h) abort();
            uint8_t prog[34];
            size_t n = 0;
            for (h++; *h != '"' && n < sizeof prog; h += 2) {
                unsigned v;
                if (sscanf(h, "%2x", &v) != 1) abort();
                prog[n++] = (uint8_t)v;
            }
            if (n != 22 && n != 34) abort();
            bk_script_solution sol;
            bk_script_type ty = bk_script_solve(prog, n, &sol);
            if (ty != BK_SCRIPT_WITNESS_V0_KEYHASH && ty != BK_SCRIPT_WITNESS_V0_SCRIPTHASH) abort();
        }
        bk_writer_free(&w);
    }
    return 0;
}
