/* Silent payments (BIP352): the receiver's scan ("Scanning", "Labels"),
 * through libsecp256k1 (ecdh for the secret multiplication, tweak_add for
 * B_spend + t·G, combine for the label checks). */
#include "silentpay_internal.h"

#include <secp256k1_ecdh.h>

#include <stdlib.h>
#include <string.h>

typedef struct sp_label {
    uint8_t ser[33];              /* label·G compressed: the sort key */
    uint32_t m;
    uint8_t tweak[32];            /* hash_BIP0352/Label(ser256(b_scan) || ser32(m)) */
    secp256k1_pubkey point;       /* label·G */
} sp_label;

struct bk_sp_scanner {
    const bk_allocator *alloc;
    uint8_t b_scan[32];
    secp256k1_pubkey B_spend;
    sp_label *labels;             /* sorted by ser */
    size_t n_labels;
};

/* -P (never fails on a parsed point) */
static void negate(secp256k1_pubkey *p)
{
    if (!secp256k1_ec_pubkey_negate(secp256k1_context_static, p)) memset(p, 0, sizeof *p);
}

static int label_cmp(const void *a, const void *b)
{
    return memcmp(((const sp_label *)a)->ser, ((const sp_label *)b)->ser, 33);
}

/* "Labels": label_m = hash_BIP0352/Label(ser256(b_scan) || ser32(m)),
 * B_m = B_spend + label_m·G (tweak_add: no signing context needed). */
static int label_make(const uint8_t b_scan[32], const secp256k1_pubkey *B_spend, uint32_t m, uint8_t tweak[32],
                      secp256k1_pubkey *B_m)
{
    uint8_t msg[36];
    memcpy(msg, b_scan, 32);
    msg[32] = (uint8_t)(m >> 24);
    msg[33] = (uint8_t)(m >> 16);
    msg[34] = (uint8_t)(m >> 8);
    msg[35] = (uint8_t)m;
    bk_sp_tagged(tweak, "Label", msg, sizeof msg);
    memset(msg, 0, sizeof msg);
    *B_m = *B_spend;
    return secp256k1_ec_pubkey_tweak_add(secp256k1_context_static, B_m, tweak);
}

bk_status bk_sp_scanner_new(const uint8_t scan_key[32], const uint8_t spend_pubkey[33], const uint32_t *labels,
                            size_t n_labels, const bk_allocator *alloc, bk_sp_scanner **out, bk_error *err)
{
    if (!scan_key || !spend_pubkey || !out || (n_labels && !labels))
        return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *out = NULL;
    if (!alloc) alloc = bk_default_allocator();
    if (!secp256k1_ec_seckey_verify(secp256k1_context_static, scan_key))
        return bk_error_set(err, BK_ERR_VALUE, 0, "the scan key is not a valid secp256k1 private key");
    if (n_labels > SIZE_MAX / sizeof(sp_label) / 2) return bk_error_set(err, BK_ERR_NOMEM, 0, "too many labels");
    bk_sp_scanner *s = bk_alloc(alloc, sizeof *s);
    if (!s) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    memset(s, 0, sizeof *s);
    s->alloc = alloc;
    memcpy(s->b_scan, scan_key, 32);
    if (spend_pubkey[0] != 0x02 && spend_pubkey[0] != 0x03) goto bad_spend;
    if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, &s->B_spend, spend_pubkey, 33)) goto bad_spend;
    if (n_labels) {
        s->labels = bk_alloc(alloc, n_labels * sizeof *s->labels);
        if (!s->labels) {
            bk_sp_scanner_free(s);
            return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
        }
        secp256k1_pubkey neg = s->B_spend;
        negate(&neg);
        for (size_t i = 0; i < n_labels; i++) {
            sp_label *L = &s->labels[i];
            secp256k1_pubkey B_m;
            L->m = labels[i];
            /* label·G = B_m - B_spend */
            const secp256k1_pubkey *two[2] = {&B_m, &neg};
            if (!label_make(s->b_scan, &s->B_spend, labels[i], L->tweak, &B_m) ||
                !secp256k1_ec_pubkey_combine(secp256k1_context_static, &L->point, two, 2)) {
                bk_sp_scanner_free(s);
                return bk_error_set(err, BK_ERR_VALUE, 0, "label %u gives no valid key", labels[i]);
            }
            size_t len = 33;
            (void)secp256k1_ec_pubkey_serialize(secp256k1_context_static, L->ser, &len, &L->point,
                                                SECP256K1_EC_COMPRESSED);
        }
        s->n_labels = n_labels;
        qsort(s->labels, n_labels, sizeof *s->labels, label_cmp);
    }
    *out = s;
    return BK_OK;
bad_spend:
    bk_sp_scanner_free(s);
    return bk_error_set(err, BK_ERR_VALUE, 0, "the spend public key is not a compressed point on the curve");
}

void bk_sp_scanner_free(bk_sp_scanner *s)
{
    if (!s) return;
    if (s->labels) {
        volatile uint8_t *p = (volatile uint8_t *)s->labels;
        for (size_t i = 0; i < s->n_labels * sizeof *s->labels; i++) p[i] = 0;
        bk_free(s->alloc, s->labels, s->n_labels * sizeof *s->labels);
    }
    /* the scan key is a secret: wiped before the memory goes back */
    volatile uint8_t *k = s->b_scan;
    for (size_t i = 0; i < sizeof s->b_scan; i++) k[i] = 0;
    bk_free(s->alloc, s, sizeof *s);
}

bk_status bk_sp_scanner_label(const bk_sp_scanner *s, uint32_t m, uint8_t tweak_out[32], uint8_t spend_out[33],
                              bk_error *err)
{
    if (!s || !tweak_out || !spend_out) return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    secp256k1_pubkey B_m;
    if (!label_make(s->b_scan, &s->B_spend, m, tweak_out, &B_m))
        return bk_error_set(err, BK_ERR_VALUE, 0, "label %u gives no valid key", m);
    size_t len = 33;
    (void)secp256k1_ec_pubkey_serialize(secp256k1_context_static, spend_out, &len, &B_m, SECP256K1_EC_COMPRESSED);
    return BK_OK;
}

/* secp256k1_ecdh's hash step replaced by the point itself, compressed:
 * BIP352 needs serP(b_scan·tweak), not a hash of it. */
static int ecdh_point(unsigned char *out, const unsigned char *x32, const unsigned char *y32, void *data)
{
    (void)data;
    out[0] = (unsigned char)(0x02 | (y32[31] & 1));
    memcpy(out + 1, x32, 32);
    return 1;
}

typedef struct out_key {
    uint8_t x[32];
    uint32_t idx;
} out_key;

static int out_key_cmp(const void *a, const void *b)
{
    const out_key *p = a, *q = b;
    int c = memcmp(p->x, q->x, 32);
    if (c) return c;
    return p->idx < q->idx ? -1 : p->idx > q->idx;
}

/* The first output not yet found whose x-only key is x: its index, or -1. */
static long find_output(const out_key *sorted, size_t n, const uint8_t *done, const uint8_t x[32])
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (memcmp(sorted[mid].x, x, 32) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < n && memcmp(sorted[i].x, x, 32) == 0; i++)
        if (!done[sorted[i].idx]) return (long)sorted[i].idx;
    return -1;
}

static const sp_label *find_label(const bk_sp_scanner *s, const uint8_t ser[33])
{
    size_t lo = 0, hi = s->n_labels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = memcmp(s->labels[mid].ser, ser, 33);
        if (c == 0) return &s->labels[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

static void xonly_of(const secp256k1_pubkey *p, uint8_t x[32])
{
    uint8_t c[33];
    size_t len = 33;
    (void)secp256k1_ec_pubkey_serialize(secp256k1_context_static, c, &len, p, SECP256K1_EC_COMPRESSED);
    memcpy(x, c + 1, 32);
}

bk_status bk_sp_scan(const bk_sp_scanner *s, bk_sp_scratch *sc, const uint8_t tweak[33], const uint8_t *outputs,
                     size_t n, bk_sp_found *found, size_t *n_found, bk_error *err)
{
    if (!s || !sc || !tweak || !n_found || (n && (!outputs || !found)))
        return bk_error_set(err, BK_ERR_ARG, 0, "NULL argument");
    *n_found = 0;
    if (n == 0) return BK_OK;
    secp256k1_pubkey T;
    if (tweak[0] != 0x02 && tweak[0] != 0x03) return BK_OK;
    if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, &T, tweak, 33)) return BK_OK;
    /* the scratch: sorted keys, found flags, lifted outputs and their
     * "lifted" flags (the label subtraction) */
    size_t each = sizeof(out_key) + 1 + sizeof(secp256k1_pubkey) + 1;
    if (n > (SIZE_MAX - 64) / each) return bk_error_set(err, BK_ERR_NOMEM, 0, "too many outputs");
    if (bk_sp_scratch_need(sc, n * each + 64) != 0) return bk_error_set(err, BK_ERR_NOMEM, 0, "out of memory");
    uint8_t *p = sc->buf;
    secp256k1_pubkey *lifted = (secp256k1_pubkey *)(void *)p;
    p += n * sizeof(secp256k1_pubkey);
    out_key *sorted = (out_key *)(void *)p;
    p += n * sizeof(out_key);
    uint8_t *done = p;
    uint8_t *lift_state = p + n; /* 0 not yet, 1 lifted, 2 not a point */
    memset(done, 0, n);
    memset(lift_state, 0, n);
    for (size_t i = 0; i < n; i++) {
        memcpy(sorted[i].x, outputs + 32 * i, 32);
        sorted[i].idx = (uint32_t)i;
    }
    qsort(sorted, n, sizeof *sorted, out_key_cmp);

    /* "Scanning": ecdh_shared_secret = b_scan·(input_hash·A), constant time */
    uint8_t ecdh[33 + 4];
    if (!secp256k1_ecdh(secp256k1_context_static, ecdh, &T, s->b_scan, ecdh_point, NULL)) return BK_OK;
    size_t left = n, nf = 0;
    for (uint32_t k = 0; k < BK_SP_K_MAX && left > 0; k++) {
        /* t_k = hash_BIP0352/SharedSecret(serP(ecdh_shared_secret) || ser32(k)) */
        ecdh[33] = (uint8_t)(k >> 24);
        ecdh[34] = (uint8_t)(k >> 16);
        ecdh[35] = (uint8_t)(k >> 8);
        ecdh[36] = (uint8_t)k;
        uint8_t t_k[32];
        bk_sp_tagged(t_k, "SharedSecret", ecdh, sizeof ecdh);
        /* P_k = B_spend + t_k·G */
        secp256k1_pubkey P = s->B_spend;
        if (!secp256k1_ec_pubkey_tweak_add(secp256k1_context_static, &P, t_k)) break;
        uint8_t x[32];
        xonly_of(&P, x);
        long hit = find_output(sorted, n, done, x);
        const sp_label *lab = NULL;
        if (hit < 0 && s->n_labels) {
            if (s->n_labels <= 2 * left) {
                /* few labels: P_k + label·G for each, against the outputs */
                for (size_t i = 0; i < s->n_labels && hit < 0; i++) {
                    secp256k1_pubkey Q;
                    const secp256k1_pubkey *two[2] = {&P, &s->labels[i].point};
                    if (!secp256k1_ec_pubkey_combine(secp256k1_context_static, &Q, two, 2)) continue;
                    xonly_of(&Q, x);
                    hit = find_output(sorted, n, done, x);
                    if (hit >= 0) lab = &s->labels[i];
                }
            } else {
                /* many labels: output - P_k and -output - P_k against the
                 * label table, output by output (the BIP's own order) */
                secp256k1_pubkey negP = P;
                negate(&negP);
                for (size_t i = 0; i < n && hit < 0; i++) {
                    if (done[i]) continue;
                    if (lift_state[i] == 0) {
                        uint8_t c[33];
                        c[0] = 0x02;
                        memcpy(c + 1, outputs + 32 * i, 32);
                        lift_state[i] = secp256k1_ec_pubkey_parse(secp256k1_context_static, &lifted[i], c, 33) ? 1 : 2;
                    }
                    if (lift_state[i] != 1) continue;
                    for (int neg = 0; neg < 2 && hit < 0; neg++) {
                        secp256k1_pubkey O = lifted[i], D;
                        if (neg) negate(&O);
                        const secp256k1_pubkey *two[2] = {&O, &negP};
                        if (!secp256k1_ec_pubkey_combine(secp256k1_context_static, &D, two, 2)) continue;
                        uint8_t ser[33];
                        size_t len = 33;
                        (void)secp256k1_ec_pubkey_serialize(secp256k1_context_static, ser, &len, &D,
                                                            SECP256K1_EC_COMPRESSED);
                        lab = find_label(s, ser);
                        if (lab) hit = (long)i;
                    }
                }
            }
        }
        if (hit < 0) break;
        bk_sp_found *f = &found[nf++];
        f->output = (uint32_t)hit;
        f->k = k;
        memcpy(f->pubkey, outputs + 32 * (size_t)hit, 32);
        memcpy(f->priv_key_tweak, t_k, 32);
        f->has_label = lab != NULL;
        f->label = lab ? lab->m : 0;
        /* a labelled output's key is P_k + label·G: its tweak t_k + label */
        if (lab && !secp256k1_ec_seckey_tweak_add(secp256k1_context_static, f->priv_key_tweak, lab->tweak)) {
            nf--;
            break;
        }
        done[hit] = 1;
        left--;
    }
    *n_found = nf;
    return BK_OK;
}
