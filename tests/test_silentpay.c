/* Silent payments (BIP352): every receiving case of the BIP's own vectors
 * (tests/data/bip352/send_and_receive_test_vectors.json): the input key
 * sum and the tweak (or the skip), and every output the receiver finds
 * with its priv_key_tweak, labels and K_max included; then one case per
 * rule the vectors do not reach (witness v2 inputs, the annex, hybrid
 * keys) and the key parsers' refusals. Runs in tests/data. */
#include "check.h"
#include "ssz/ssz_internal.h"

#include <blockkit/hex.h>
#include <blockkit/json.h>
#include <blockkit/silentpay.h>

#include <secp256k1.h>

static uint8_t *unhex_str(const bk_sjson *v, size_t *n)
{
    *n = 0;
    if (!v || v->kind != BK_SJSON_STRING) return NULL;
    if (v->len == 0) return malloc(1);
    return check_unhex(v->str, n);
}

/* A serialized witness stack (count, items) into bk_sp_input's form. */
static void witness_of(const uint8_t *w, size_t n, bk_sp_input *in)
{
    in->witness = NULL;
    in->witness_items = 0;
    if (n == 0) return;
    bk_reader r;
    bk_reader_init(&r, w, n);
    uint64_t count = bk_read_compact_size(&r, 0);
    CHECK(bk_reader_ok(&r));
    in->witness = w + r.pos;
    in->witness_items = (uint32_t)count;
}

typedef struct vin_buf {
    uint8_t txid[32];
    uint8_t *ss, *wit, *spk;
} vin_buf;

static int found_cmp(const void *a, const void *b)
{
    return memcmp(((const bk_sp_found *)a)->pubkey, ((const bk_sp_found *)b)->pubkey, 32);
}

static void receiving_case(const char *comment, const bk_sjson *rc, int *n_cases, int *n_found_total)
{
    check_case = comment;
    const bk_sjson *given = bk_sjson_get(rc, "given"), *expected = bk_sjson_get(rc, "expected");
    const bk_sjson *vin = bk_sjson_get(given, "vin");
    size_t nin = vin->n;
    bk_sp_input *ins = calloc(nin ? nin : 1, sizeof *ins);
    vin_buf *bufs = calloc(nin ? nin : 1, sizeof *bufs);
    size_t i = 0;
    for (const bk_sjson *v = vin->child; v; v = v->next, i++) {
        const bk_sjson *txid = bk_sjson_get(v, "txid");
        CHECK_EQ_INT(bk_hex_decode_rev(bufs[i].txid, txid->str, 32, NULL), BK_OK);
        size_t n;
        bufs[i].ss = unhex_str(bk_sjson_get(v, "scriptSig"), &n);
        ins[i].script_sig = bufs[i].ss;
        ins[i].script_sig_len = n;
        bufs[i].wit = unhex_str(bk_sjson_get(v, "txinwitness"), &n);
        witness_of(bufs[i].wit, n, &ins[i]);
        const bk_sjson *spk = bk_sjson_get(bk_sjson_get(bk_sjson_get(v, "prevout"), "scriptPubKey"), "hex");
        bufs[i].spk = unhex_str(spk, &n);
        ins[i].prevout_script = bufs[i].spk;
        ins[i].prevout_script_len = n;
        ins[i].prev_txid = bufs[i].txid;
        ins[i].prev_index = (uint32_t)strtoul(bk_sjson_get(v, "vout")->str, NULL, 10);
    }
    bk_sp_scratch sc;
    bk_sp_scratch_init(&sc, NULL);
    bk_sp_verdict verdict;
    bk_sp_tweak tw;
    CHECK_EQ_INT(bk_sp_inputs_tweak(&sc, ins, nin, &verdict, &tw, NULL), BK_OK);
    const bk_sjson *want_tweak = bk_sjson_get(expected, "tweak");
    const bk_sjson *want_sum = bk_sjson_get(expected, "input_pub_key_sum");
    const bk_sjson *want_outs = bk_sjson_get(expected, "outputs");
    const bk_sjson *want_n = bk_sjson_get(expected, "n_outputs");
    char hex[67];
    if (!want_tweak || want_tweak->kind == BK_SJSON_NULL) {
        /* the receiver skips the transaction */
        CHECK(verdict != BK_SP_ELIGIBLE);
        CHECK(want_outs->n == 0);
    } else {
        CHECK_EQ_STR(bk_sp_verdict_name(verdict), "eligible");
        if (verdict == BK_SP_ELIGIBLE) {
            check_hex(hex, tw.tweak, 33);
            CHECK_EQ_STR(hex, want_tweak->str);
            if (want_sum) {
                check_hex(hex, tw.input_pubkey_sum, 33);
                CHECK_EQ_STR(hex, want_sum->str);
            }
        }
    }
    /* the receiver: B_spend from the spend key, the labels, the outputs */
    const bk_sjson *km = bk_sjson_get(given, "key_material");
    uint8_t scan[32], spend_priv[32], spend_pub[33];
    CHECK_EQ_INT(bk_hex_decode(scan, bk_sjson_get(km, "scan_priv_key")->str, 32, NULL), BK_OK);
    CHECK_EQ_INT(bk_hex_decode(spend_priv, bk_sjson_get(km, "spend_priv_key")->str, 32, NULL), BK_OK);
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    secp256k1_pubkey P;
    CHECK(secp256k1_ec_pubkey_create(ctx, &P, spend_priv));
    size_t len = 33;
    CHECK(secp256k1_ec_pubkey_serialize(ctx, spend_pub, &len, &P, SECP256K1_EC_COMPRESSED));
    secp256k1_context_destroy(ctx);
    const bk_sjson *labels = bk_sjson_get(given, "labels");
    uint32_t *lab = calloc(labels->n + 1, sizeof *lab);
    size_t nl = 0;
    for (const bk_sjson *l = labels->child; l; l = l->next) lab[nl++] = (uint32_t)strtoul(l->str, NULL, 10);
    bk_sp_scanner *s = NULL;
    CHECK_EQ_INT(bk_sp_scanner_new(scan, spend_pub, lab, nl, NULL, &s, NULL), BK_OK);
    const bk_sjson *outs = bk_sjson_get(given, "outputs");
    size_t nout = outs->n;
    uint8_t *keys = malloc(32 * (nout ? nout : 1));
    i = 0;
    for (const bk_sjson *o = outs->child; o; o = o->next, i++)
        CHECK_EQ_INT(bk_hex_decode(keys + 32 * i, o->str, 32, NULL), BK_OK);
    bk_sp_found *found = calloc(nout ? nout : 1, sizeof *found);
    size_t nf = 0;
    if (s && verdict == BK_SP_ELIGIBLE) {
        CHECK_EQ_INT(bk_sp_scan(s, &sc, tw.tweak, keys, nout, found, &nf, NULL), BK_OK);
    }
    if (want_n) {
        /* K_max: the count only (the vector lists none) */
        CHECK_EQ_INT(nf, strtoul(want_n->str, NULL, 10));
        CHECK_EQ_INT(nf, BK_SP_K_MAX);
    } else {
        CHECK_EQ_INT(nf, want_outs->n);
        if (nf == want_outs->n) {
            /* the same set (the vector's order is not the k order) */
            bk_sp_found *want = calloc(nf ? nf : 1, sizeof *want);
            i = 0;
            for (const bk_sjson *o = want_outs->child; o; o = o->next, i++) {
                CHECK_EQ_INT(bk_hex_decode(want[i].pubkey, bk_sjson_get(o, "pub_key")->str, 32, NULL), BK_OK);
                CHECK_EQ_INT(bk_hex_decode(want[i].priv_key_tweak, bk_sjson_get(o, "priv_key_tweak")->str, 32, NULL),
                             BK_OK);
            }
            qsort(want, nf, sizeof *want, found_cmp);
            qsort(found, nf, sizeof *found, found_cmp);
            for (i = 0; i < nf; i++) {
                char a[65], b[65];
                check_hex(a, found[i].pubkey, 32);
                check_hex(b, want[i].pubkey, 32);
                CHECK_EQ_STR(a, b);
                check_hex(a, found[i].priv_key_tweak, 32);
                check_hex(b, want[i].priv_key_tweak, 32);
                CHECK_EQ_STR(a, b);
            }
            free(want);
        }
    }
    *n_found_total += (int)nf;
    (*n_cases)++;
    bk_sp_scanner_free(s);
    bk_sp_scratch_free(&sc);
    free(found);
    free(keys);
    free(lab);
    for (i = 0; i < nin; i++) {
        free(bufs[i].ss);
        free(bufs[i].wit);
        free(bufs[i].spk);
    }
    free(bufs);
    free(ins);
}

static void bip352_vectors(void)
{
    size_t n;
    char *text = (char *)check_read_file("bip352/send_and_receive_test_vectors.json", &n);
    bk_arena a;
    bk_arena_init(&a, NULL);
    bk_sjson *doc;
    bk_error err;
    CHECK_EQ_INT(bk_sjson_parse(&a, text, n, &doc, &err), BK_OK);
    int cases = 0, found = 0, groups = 0;
    for (const bk_sjson *c = doc->child; c; c = c->next, groups++) {
        const char *comment = bk_sjson_get(c, "comment")->str;
        for (const bk_sjson *r = bk_sjson_get(c, "receiving")->child; r; r = r->next)
            receiving_case(comment, r, &cases, &found);
    }
    check_case = "bip352_vectors";
    CHECK_EQ_INT(groups, 28);
    CHECK_EQ_INT(cases, 29); /* one group has two receiving cases */
    printf("bip352: %d receiving cases, %d outputs found\n", cases, found);
    bk_arena_free(&a);
    free(text);
}

/* ---- rules the vectors do not reach ---- */

/* A P2WPKH input of the first vector's key, for building cases. */
static const char KEY_HEX[] = "025a1e61f898173040e20616d43e9f496fba90338a39faa1ed98fcbaeee4dd9be5";

static void witness_stack(uint8_t *buf, size_t *len, const uint8_t *const *items, const size_t *lens, size_t n)
{
    size_t p = 0;
    for (size_t i = 0; i < n; i++) {
        buf[p++] = (uint8_t)lens[i];
        memcpy(buf + p, items[i], lens[i]);
        p += lens[i];
    }
    *len = p;
}

static void witness_v2_input_makes_tx_ineligible(void)
{
    uint8_t key[33], txid[32] = {1}, wit[64], spk_wpkh[22] = {0x00, 0x14}, spk_v2[34] = {0x52, 0x20};
    CHECK_EQ_INT(bk_hex_decode(key, KEY_HEX, 33, NULL), BK_OK);
    bk_hash160(spk_wpkh + 2, key, 33);
    const uint8_t *items[1] = {key};
    size_t lens[1] = {33}, wl;
    witness_stack(wit, &wl, items, lens, 1);
    bk_sp_input ins[2] = {
        {txid, 0, NULL, 0, wit, 1, spk_wpkh, sizeof spk_wpkh},
        {txid, 1, NULL, 0, NULL, 0, spk_v2, sizeof spk_v2},
    };
    uint8_t out[33];
    CHECK_EQ_INT(bk_sp_input_key(&ins[0], out), BK_SP_KEY_P2WPKH);
    CHECK_MEM(out, key, 33);
    CHECK_EQ_INT(bk_sp_input_key(&ins[1], out), BK_SP_KEY_WITNESS_V2);
    bk_sp_scratch sc;
    bk_sp_scratch_init(&sc, NULL);
    bk_sp_verdict v;
    bk_sp_tweak t;
    CHECK_EQ_INT(bk_sp_inputs_tweak(&sc, ins, 1, &v, &t, NULL), BK_OK);
    CHECK_EQ_INT(v, BK_SP_ELIGIBLE);
    CHECK_EQ_INT(bk_sp_inputs_tweak(&sc, ins, 2, &v, &t, NULL), BK_OK);
    CHECK_EQ_INT(v, BK_SP_WITNESS_V2);
    /* a version 1 program that is not taproot (P2A anchor) is fine */
    uint8_t p2a[4] = {0x51, 0x02, 0x4e, 0x73};
    ins[1].prevout_script = p2a;
    ins[1].prevout_script_len = 4;
    CHECK_EQ_INT(bk_sp_input_key(&ins[1], out), BK_SP_KEY_NONE);
    CHECK_EQ_INT(bk_sp_inputs_tweak(&sc, ins, 2, &v, &t, NULL), BK_OK);
    CHECK_EQ_INT(v, BK_SP_ELIGIBLE);
    bk_sp_scratch_free(&sc);
}

static void taproot_annex_removed_before_the_nums_check(void)
{
    /* script path: [sig, script, control(c0 || H), annex(50 ..)]: the annex
     * goes first, then the control block names H: skipped */
    static const uint8_t H[32] = {0x50, 0x92, 0x9b, 0x74, 0xc1, 0xa0, 0x49, 0x54, 0xb7, 0x8b, 0x4b,
                                  0x60, 0x35, 0xe9, 0x7a, 0x5e, 0x07, 0x8a, 0x5a, 0x0f, 0x28, 0xec,
                                  0x96, 0xd5, 0x47, 0xbf, 0xee, 0x9a, 0xce, 0x80, 0x3a, 0xc0};
    uint8_t key[33], spk[34] = {0x51, 0x20}, sig[64] = {7}, script[1] = {0x51}, ctl[33] = {0xc0}, annex[2] = {0x50, 1};
    CHECK_EQ_INT(bk_hex_decode(key, KEY_HEX, 33, NULL), BK_OK);
    memcpy(spk + 2, key + 1, 32);
    memcpy(ctl + 1, H, 32);
    uint8_t txid[32] = {2}, wit[256], out[33];
    size_t wl;
    const uint8_t *items[4] = {sig, script, ctl, annex};
    size_t lens[4] = {64, 1, 33, 2};
    witness_stack(wit, &wl, items, lens, 4);
    bk_sp_input in = {txid, 0, NULL, 0, wit, 4, spk, sizeof spk};
    CHECK_EQ_INT(bk_sp_input_key(&in, out), BK_SP_KEY_NONE);
    /* another internal key: the output key counts */
    ctl[1] ^= 1;
    witness_stack(wit, &wl, items, lens, 4);
    CHECK_EQ_INT(bk_sp_input_key(&in, out), BK_SP_KEY_P2TR);
    CHECK_EQ_INT(out[0], 0x02);
    CHECK_MEM(out + 1, key + 1, 32);
    /* key path with an annex: [sig, annex] is a key-path spend */
    const uint8_t *kp[2] = {sig, annex};
    size_t kl[2] = {64, 2};
    witness_stack(wit, &wl, kp, kl, 2);
    in.witness_items = 2;
    CHECK_EQ_INT(bk_sp_input_key(&in, out), BK_SP_KEY_P2TR);
    /* no witness at all: no key */
    in.witness = NULL;
    in.witness_items = 0;
    CHECK_EQ_INT(bk_sp_input_key(&in, out), BK_SP_KEY_NONE);
}

static void p2pkh_hybrid_and_uncompressed_keys_skipped(void)
{
    uint8_t key[33], ss[1 + 65], spk[25] = {0x76, 0xa9, 0x14}, txid[32] = {3}, out[33];
    CHECK_EQ_INT(bk_hex_decode(key, KEY_HEX, 33, NULL), BK_OK);
    spk[23] = 0x88;
    spk[24] = 0xac;
    /* a 65-byte "key" starting 06/07 (hybrid) whose HASH160 is the spent one */
    memset(ss, 0, sizeof ss);
    ss[0] = 65;
    ss[1] = 0x06;
    memcpy(ss + 2, key + 1, 32);
    bk_hash160(spk + 3, ss + 1, 65);
    bk_sp_input in = {txid, 0, ss, sizeof ss, NULL, 0, spk, sizeof spk};
    CHECK_EQ_INT(bk_sp_input_key(&in, out), BK_SP_KEY_NONE);
    /* the compressed key pushed, then junk after it: found anywhere */
    uint8_t ss2[1 + 33 + 3] = {33};
    memcpy(ss2 + 1, key, 33);
    ss2[34] = 0x75;
    ss2[35] = 0x02;
    ss2[36] = 0x03;
    bk_hash160(spk + 3, key, 33);
    in.script_sig = ss2;
    in.script_sig_len = sizeof ss2;
    CHECK_EQ_INT(bk_sp_input_key(&in, out), BK_SP_KEY_P2PKH);
    CHECK_MEM(out, key, 33);
    /* a scriptSig shorter than a key */
    in.script_sig_len = 20;
    CHECK_EQ_INT(bk_sp_input_key(&in, out), BK_SP_KEY_NONE);
}

static void scan_key_file_refusals(void)
{
    uint8_t k[32];
    bk_error err;
    const char good[] = "  0f694e068028a717f8af6b9411f9a133dd3565258714cc226594b34db90c1f2c\n";
    CHECK_EQ_INT(bk_sp_scan_key_parse((const uint8_t *)good, strlen(good), k, &err), BK_OK);
    CHECK_EQ_INT(k[0], 0x0f);
    CHECK_EQ_INT(bk_sp_scan_key_parse((const uint8_t *)"", 0, k, &err), BK_ERR_LENGTH);
    CHECK(strstr(err.msg, "empty") != NULL);
    CHECK_EQ_INT(bk_sp_scan_key_parse((const uint8_t *)"\n\n", 2, k, &err), BK_ERR_LENGTH);
    CHECK_EQ_INT(bk_sp_scan_key_parse((const uint8_t *)"0f69", 4, k, &err), BK_ERR_LENGTH);
    CHECK(strstr(err.msg, "4 hex digits") != NULL);
    const char nothex[] = "0f694e068028a717f8af6b9411f9a133dd3565258714cc226594b34db90c1f2g";
    CHECK_EQ_INT(bk_sp_scan_key_parse((const uint8_t *)nothex, 64, k, &err), BK_ERR_VALUE);
    CHECK_EQ_INT(err.offset, 63);
    const char zero[] = "0000000000000000000000000000000000000000000000000000000000000000";
    CHECK_EQ_INT(bk_sp_scan_key_parse((const uint8_t *)zero, 64, k, &err), BK_ERR_VALUE);
    CHECK(strstr(err.msg, "not a valid") != NULL);
    const char order[] = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
    CHECK_EQ_INT(bk_sp_scan_key_parse((const uint8_t *)order, 64, k, &err), BK_ERR_VALUE);
    uint8_t pk[33];
    CHECK_EQ_INT(bk_sp_pubkey_parse(KEY_HEX, 66, pk, &err), BK_OK);
    CHECK_EQ_INT(bk_sp_pubkey_parse(KEY_HEX, 64, pk, &err), BK_ERR_LENGTH);
    /* x = 5 is not on the curve (5^3 + 7 = 132 is not a square mod p) */
    const char off_curve[] = "020000000000000000000000000000000000000000000000000000000000000005";
    CHECK_EQ_INT(bk_sp_pubkey_parse(off_curve, 66, pk, &err), BK_ERR_VALUE);
    CHECK(strstr(err.msg, "curve") != NULL);
    const char uncompressed_prefix[] = "045a1e61f898173040e20616d43e9f496fba90338a39faa1ed98fcbaeee4dd9be5";
    CHECK_EQ_INT(bk_sp_pubkey_parse(uncompressed_prefix, 66, pk, &err), BK_ERR_VALUE);
}

int main(void)
{
    RUN(bip352_vectors);
    RUN(witness_v2_input_makes_tx_ineligible);
    RUN(taproot_annex_removed_before_the_nums_check);
    RUN(p2pkh_hybrid_and_uncompressed_keys_skipped);
    RUN(scan_key_file_refusals);
    return check_finish();
}
