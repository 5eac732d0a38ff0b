/* Silent payments: input key extraction and eligibility (BIP352 "Inputs For
 * Shared Secret Derivation", "Scanning silent payment eligible
 * transactions") over arbitrary scripts and witnesses, then the receiver's
 * scan over arbitrary output keys. Input: a count byte (1..8 inputs), per
 * input a u8-length prevout script, a u16-length scriptSig, a witness item
 * count byte and u8-length items; the rest as 32-byte output keys (at most
 * 16). Checks: every key extracted is a compressed point equal to the bytes
 * it came from, the verdict follows from the kinds, a tweak is a point, and
 * the scan (both label strategies) finds at most one hit per output. */
#include <blockkit/silentpay.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct cur {
    const uint8_t *p;
    size_t n;
} cur;

static int take(cur *c, size_t k, const uint8_t **out)
{
    if (c->n < k) return 0;
    *out = c->p;
    c->p += k;
    c->n -= k;
    return 1;
}

static bk_sp_scanner *scanner(size_t n_labels)
{
    static const uint8_t scan[32] = {0x0f, 0x69, 0x4e, 0x06, 0x80, 0x28, 0xa7, 0x17, 0xf8, 0xaf, 0x6b,
                                     0x94, 0x11, 0xf9, 0xa1, 0x33, 0xdd, 0x35, 0x65, 0x25, 0x87, 0x14,
                                     0xcc, 0x22, 0x65, 0x94, 0xb3, 0x4d, 0xb9, 0x0c, 0x1f, 0x2c};
    /* the generator point, compressed */
    static const uint8_t G[33] = {0x02, 0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0,
                                  0x62, 0x95, 0xce, 0x87, 0x0b, 0x07, 0x02, 0x9b, 0xfc, 0xdb, 0x2d,
                                  0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98};
    uint32_t labels[64];
    for (uint32_t i = 0; i < 64; i++) labels[i] = i;
    bk_sp_scanner *s = NULL;
    if (bk_sp_scanner_new(scan, G, labels, n_labels, NULL, &s, NULL) != BK_OK) abort();
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bk_sp_scanner *few, *many;
    if (!few) {
        few = scanner(2);
        many = scanner(64);
    }
    cur c = {data, size};
    const uint8_t *b;
    if (!take(&c, 1, &b)) return 0;
    size_t n_in = (size_t)(b[0] % 8) + 1;
    bk_sp_input ins[8];
    uint8_t wit[8][2048];
    uint8_t txids[8][32];
    int any_key = 0, any_v2 = 0;
    size_t got = 0;
    for (size_t i = 0; i < n_in; i++) {
        bk_sp_input *in = &ins[i];
        memset(in, 0, sizeof *in);
        const uint8_t *len;
        if (!take(&c, 1, &len) || !take(&c, len[0], &in->prevout_script)) break;
        in->prevout_script_len = len[0];
        if (!take(&c, 2, &len)) break;
        size_t ssl = (size_t)len[0] | (size_t)(len[1] & 0x0f) << 8;
        if (!take(&c, ssl, &in->script_sig)) break;
        in->script_sig_len = ssl;
        /* the witness in a parsed transaction's form: CompactSize lengths */
        if (!take(&c, 1, &len)) break;
        uint32_t items = len[0] % 8;
        size_t w = 0;
        uint32_t k;
        for (k = 0; k < items; k++) {
            const uint8_t *il, *item;
            if (!take(&c, 1, &il) || !take(&c, il[0], &item)) break;
            if (il[0] >= 0xfd) break; /* a one-byte CompactSize only */
            wit[i][w++] = il[0];
            memcpy(wit[i] + w, item, il[0]);
            w += il[0];
        }
        in->witness = k ? wit[i] : NULL;
        in->witness_items = k;
        memset(txids[i], (int)i, 32);
        in->prev_txid = txids[i];
        in->prev_index = (uint32_t)i;
        got++;
        uint8_t key[33];
        bk_sp_key_kind kind = bk_sp_input_key(in, key);
        if (kind == BK_SP_KEY_WITNESS_V2) any_v2 = 1;
        else if (kind != BK_SP_KEY_NONE) {
            any_key = 1;
            if (key[0] != 0x02 && key[0] != 0x03) abort();
            if (kind == BK_SP_KEY_P2TR && (key[0] != 0x02 || memcmp(key + 1, in->prevout_script + 2, 32) != 0))
                abort();
        }
    }
    if (got == 0) return 0;
    bk_sp_scratch sc;
    bk_sp_scratch_init(&sc, NULL);
    bk_sp_verdict v;
    bk_sp_tweak t;
    if (bk_sp_inputs_tweak(&sc, ins, got, &v, &t, NULL) != BK_OK) abort();
    if (any_v2 && v != BK_SP_WITNESS_V2) abort();
    if (!any_v2 && !any_key && v != BK_SP_NO_INPUT_KEY) abort();
    if (v == BK_SP_ELIGIBLE) {
        if (t.tweak[0] != 0x02 && t.tweak[0] != 0x03) abort();
        size_t n_out = c.n / 32;
        if (n_out > 16) n_out = 16;
        bk_sp_found found[16];
        for (int pass = 0; pass < 2; pass++) {
            size_t nf = 99;
            if (bk_sp_scan(pass ? many : few, &sc, t.tweak, c.p, n_out, found, &nf, NULL) != BK_OK) abort();
            if (nf > n_out) abort();
            for (size_t i = 0; i < nf; i++)
                for (size_t j = 0; j < i; j++)
                    if (found[i].output == found[j].output) abort();
        }
    }
    bk_sp_scratch_free(&sc);
    return 0;
}
