/* Whole-state hashing: synthetic BeaconStates (bk_ssz_synthesize) of several
 * forks hashed on one thread and on a pool of 2 and 3 threads give the same
 * root, and that root equals @lodestar/types' hash_tree_root of the same
 * bytes (node + the installed test tools; an independent implementation). */
#include <blockkit/ssz.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static bk_ssz_registry *reg;

static void hexroot(char out[67], const uint8_t r[32])
{
    static const char hx[] = "0123456789abcdef";
    out[0] = '0';
    out[1] = 'x';
    for (int i = 0; i < 32; i++) {
        out[2 + 2 * i] = hx[r[i] >> 4];
        out[3 + 2 * i] = hx[r[i] & 15];
    }
    out[66] = 0;
}

static void state_case(const char *fork, uint64_t nvals)
{
    char tname[64];
    snprintf(tname, sizeof tname, "%s:BeaconState", fork);
    const bk_ssz_type *t;
    bk_error err;
    CHECK_EQ_INT(bk_ssz_type_parse(reg, tname, &t, &err), BK_OK);
    bk_writer w;
    bk_writer_init(&w, NULL);
    CHECK_EQ_INT(bk_ssz_synthesize(t, nvals, UINT64_C(1) << 24, 7, &w, &err), BK_OK);
    uint8_t r1[32], r2[32], r3[32];
    bk_ssz_hasher *h;
    CHECK_EQ_INT(bk_ssz_hasher_create(&h, 0, NULL), BK_OK);
    CHECK_EQ_INT(bk_ssz_hash_tree_root(h, t, w.data, w.len, r1, &err), BK_OK);
    for (unsigned n = 2; n <= 3; n++) {
        bk_ssz_pool *pool;
        CHECK_EQ_INT(bk_ssz_pool_create(&pool, n, 0, NULL, &err), BK_OK);
        CHECK_EQ_INT(bk_ssz_pool_threads(pool), n);
        bk_ssz_hasher_set_pool(h, pool);
        uint8_t *r = n == 2 ? r2 : r3;
        CHECK_EQ_INT(bk_ssz_hash_tree_root(h, t, w.data, w.len, r, &err), BK_OK);
        CHECK_MEM(r, r1, 32);
        bk_ssz_hasher_set_pool(h, NULL);
        bk_ssz_pool_free(pool);
    }
    /* The oracle. */
    char path[] = "/tmp/bk-test-state-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, w.data, w.len) == (ssize_t)w.len);
        close(fd);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "node %s/../ssz/lodestar-root.mjs %s BeaconState %s", BK_TEST_DATA, fork, path);
        FILE *p = popen(cmd, "r");
        char got[128] = "";
        CHECK(p && fgets(got, sizeof got, p));
        if (p) pclose(p);
        char want[67];
        hexroot(want, r1);
        got[strcspn(got, "\n")] = 0;
        CHECK_EQ_STR(got, want);
        unlink(path);
    }
    bk_ssz_hasher_free(h);
    bk_writer_free(&w);
}

static void test_states(void)
{
    state_case("phase0", 5000);
    state_case("electra", 5000);   /* 5000 validators: over the 4096-chunk parallel threshold */
    state_case("heze", 5000);      /* ProgressiveContainer, progressive lists */
}

static void test_pool_errors(void)
{
    bk_ssz_pool *p;
    bk_error err;
    CHECK_EQ_INT(bk_ssz_pool_create(&p, 1000, 0, NULL, &err), BK_ERR_ARG);
    CHECK_EQ_INT(bk_ssz_pool_create(&p, 1, 0, NULL, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_pool_threads(p), 1);
    bk_ssz_pool_free(p);
    bk_ssz_pool_free(NULL);
}

/* Long random edit sequences on a cached tree: after every step its root
 * equals a full recomputation over its current bytes. */
static uint64_t rng = 88172645463325252ULL;
static uint64_t xr(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void tree_case(const char *tname, uint64_t nvals, int steps)
{
    const bk_ssz_type *t, *vt;
    bk_error err;
    CHECK_EQ_INT(bk_ssz_type_parse(reg, tname, &t, &err), BK_OK);
    char vname[64];
    snprintf(vname, sizeof vname, "%.*s:Validator", (int)(strchr(tname, ':') - tname), tname);
    CHECK_EQ_INT(bk_ssz_type_parse(reg, vname, &vt, &err), BK_OK);
    bk_writer w;
    bk_writer_init(&w, NULL);
    CHECK_EQ_INT(bk_ssz_synthesize(t, nvals, UINT64_C(1) << 24, 3, &w, &err), BK_OK);
    bk_ssz_tree *tr;
    CHECK_EQ_INT(bk_ssz_tree_create(&tr, t, w.data, w.len, NULL, &err), BK_OK);
    bk_ssz_hasher *h;
    CHECK_EQ_INT(bk_ssz_hasher_create(&h, 0, NULL), BK_OK);
    uint8_t a[32], b[32];
    CHECK_EQ_INT(bk_ssz_tree_root(tr, h, a, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_hash_tree_root(h, t, w.data, w.len, b, &err), BK_OK);
    CHECK_MEM(a, b, 32);
    int mismatches = 0;
    uint64_t count = nvals;
    size_t fbal, fval;
    CHECK_EQ_INT(bk_ssz_tree_field(tr, "balances", &fbal, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_tree_field(tr, "validators", &fval, &err), BK_OK);
    for (int s = 0; s < steps; s++) {
        size_t len;
        const uint8_t *cur = bk_ssz_tree_bytes(tr, &len);
        uint8_t v8[8];
        bk_store_le64(v8, xr() >> 12);
        char idx[32];
        int op = (int)(xr() % 6);
        bk_status st = BK_OK;
        /* An index a little past the end now and then: refused, nothing changes. */
        uint64_t count_hint = count + (xr() % 16 == 0 ? 4 : 0);
        snprintf(idx, sizeof idx, "%llu", (unsigned long long)(xr() % count_hint));
        if (op == 0 && xr() % 2) {
            const char *pp[] = {"balances", idx};
            st = bk_ssz_tree_set(tr, pp, 2, v8, 8, &err);
        } else if (op == 0) {
            /* The same edit by field index (no path). */
            st = bk_ssz_tree_set_elem(tr, fbal, strtoull(idx, NULL, 10), v8, 8, &err);
        } else if (op == 1 && xr() % 4 == 0) {
            /* A whole validator by index. */
            uint8_t val[121];
            for (size_t k = 0; k < sizeof val; k++) val[k] = (uint8_t)xr();
            val[88] &= 1;
            st = bk_ssz_tree_set_elem(tr, fval, strtoull(idx, NULL, 10), val, sizeof val, &err);
        } else if (op == 1) {
            const char *pp[] = {"validators", idx, "effective_balance"};
            st = bk_ssz_tree_set(tr, pp, 3, v8, 8, &err);
        } else if (op == 2) {
            const char *pp[] = {"slot"};
            st = bk_ssz_tree_set(tr, pp, 1, v8, 8, &err);
        } else if (op == 3) {
            uint8_t val[121];
            for (size_t k = 0; k < sizeof val; k++) val[k] = (uint8_t)xr();
            val[88] &= 1; /* slashed: bool */
            for (size_t k = 89; k < 121; k += 8) bk_store_le64(val + k, xr() >> 12);
            st = bk_ssz_tree_append(tr, "validators", val, sizeof val, &err);
            if (st == BK_OK) st = bk_ssz_tree_append(tr, "balances", v8, 8, &err);
            if (st == BK_OK) count++;
        } else if (op == 4) {
            const char *pp[] = {"randao_mixes", idx};
            uint8_t mix[32];
            for (size_t k = 0; k < 32; k++) mix[k] = (uint8_t)xr();
            st = bk_ssz_tree_set(tr, pp, 2, mix, 32, &err);
        } else {
            const char *pp[] = {"inactivity_scores", idx};
            st = bk_ssz_tree_set(tr, pp, 2, v8, 8, &err);
        }
        if (st != BK_OK && st != BK_ERR_NOT_FOUND) {
            fprintf(stderr, "edit %d (op %d): %s\n", s, op, err.msg);
            CHECK(0);
        }
        if (s % 100 == 99) {
            /* Many balances at once (the radix-sorted, level-batched path). */
            for (int k = 0; k < 600; k++) {
                bk_store_le64(v8, xr() >> 12);
                CHECK_EQ_INT(bk_ssz_tree_set_elem(tr, fbal, xr() % count, v8, 8, &err), BK_OK);
            }
        }
        /* Every step at first (one marked leaf per field: the single-path
         * chain, appends that add a level), then every 7th. */
        if (s < 16 || s % 7 == 0 || s % 100 == 99 || s == steps - 1) {
            cur = bk_ssz_tree_bytes(tr, &len);
            CHECK_EQ_INT(bk_ssz_tree_root(tr, h, a, &err), BK_OK);
            CHECK_EQ_INT(bk_ssz_hash_tree_root(h, t, cur, len, b, &err), BK_OK);
            if (memcmp(a, b, 32)) mismatches++;
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    /* Proofs from the cached tree equal bk_ssz_prove over the bytes. */
    {
        size_t len;
        const uint8_t *cur = bk_ssz_tree_bytes(tr, &len);
        const char *paths[][3] = {{"balances", "17", NULL}, {"validators", "5", "effective_balance"},
                                  {"slot", NULL, NULL}, {"randao_mixes", "100", NULL}, {"validators", "0", NULL},
                                  {"inactivity_scores", "3", NULL}};
        int proofs_ok = 0;
        for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
            size_t np = paths[k][2] ? 3 : paths[k][1] ? 2 : 1;
            uint64_t g;
            if (bk_ssz_gindex(t, paths[k], np, &g, &err) != BK_OK) continue;
            uint8_t l1[32], l2[32], b1[64][32], b2[64][32];
            unsigned d1 = 0, d2 = 0;
            CHECK_EQ_INT(bk_ssz_tree_prove(tr, h, g, l1, b1, &d1, &err), BK_OK);
            CHECK_EQ_INT(bk_ssz_prove(h, t, cur, len, g, l2, b2, &d2, &err), BK_OK);
            CHECK_EQ_INT(d1, d2);
            CHECK_MEM(l1, l2, 32);
            CHECK(d1 == d2 && memcmp(b1, b2, 32 * (size_t)d1) == 0);
            CHECK_EQ_INT(bk_ssz_tree_root(tr, h, a, &err), BK_OK);
            CHECK(bk_ssz_verify_branch(l1, (const uint8_t(*)[32])b1, d1, g, a));
            proofs_ok++;
        }
        CHECK(proofs_ok >= 5);
    }
    /* Wrong sizes, paths and types are refused. */
    const char *bad1[] = {"balances", "999999999"};
    CHECK_EQ_INT(bk_ssz_tree_set(tr, bad1, 2, (const uint8_t *)"12345678", 8, &err), BK_ERR_NOT_FOUND);
    const char *bad2[] = {"nosuchfield"};
    CHECK_EQ_INT(bk_ssz_tree_set(tr, bad2, 1, (const uint8_t *)"12345678", 8, &err), BK_ERR_NOT_FOUND);
    const char *bad3[] = {"slot"};
    CHECK_EQ_INT(bk_ssz_tree_set(tr, bad3, 1, (const uint8_t *)"1234", 4, &err), BK_ERR_LENGTH);
    const char *bad4[] = {"validators"};
    CHECK_EQ_INT(bk_ssz_tree_set(tr, bad4, 1, (const uint8_t *)"1234", 4, &err), BK_ERR_ARG);
    CHECK_EQ_INT(bk_ssz_tree_append(tr, "slot", (const uint8_t *)"12345678", 8, &err), BK_ERR_ARG);
    size_t fi;
    CHECK_EQ_INT(bk_ssz_tree_field(tr, "nosuchfield", &fi, &err), BK_ERR_NOT_FOUND);
    CHECK_EQ_INT(bk_ssz_tree_field(tr, "slot", &fi, &err), BK_OK);
    CHECK_EQ_INT(bk_ssz_tree_set_elem(tr, fi, 0, (const uint8_t *)"12345678", 8, &err), BK_ERR_ARG);
    CHECK_EQ_INT(bk_ssz_tree_set_elem(tr, t->nfields, 0, (const uint8_t *)"12345678", 8, &err), BK_ERR_NOT_FOUND);
    CHECK_EQ_INT(bk_ssz_tree_set_elem(tr, fbal, count, (const uint8_t *)"12345678", 8, &err), BK_ERR_NOT_FOUND);
    CHECK_EQ_INT(bk_ssz_tree_set_elem(tr, fbal, 0, (const uint8_t *)"1234", 4, &err), BK_ERR_LENGTH);
    {
        /* A refused validator (slashed = 2) leaves bytes and root alone. */
        uint8_t val[121] = {0}, before[32];
        val[88] = 2;
        CHECK_EQ_INT(bk_ssz_tree_root(tr, h, before, &err), BK_OK);
        CHECK_EQ_INT(bk_ssz_tree_set_elem(tr, fval, 1, val, sizeof val, &err), BK_ERR_VALUE);
        CHECK_EQ_INT(bk_ssz_tree_root(tr, h, a, &err), BK_OK);
        CHECK_MEM(a, before, 32);
    }
    bk_ssz_tree_free(tr);
    bk_ssz_hasher_free(h);
    bk_writer_free(&w);
}

static void test_tree(void)
{
    tree_case("electra:BeaconState", 3000, 300);
    tree_case("heze:BeaconState", 1000, 120);   /* progressive container, progressive lists */
    tree_case("phase0:BeaconState", 300, 100);
}

/* The strided check of a registry's bool bytes reports the same error as
 * the per-field check: offset, path. */
static void test_registry_bool_scan(void)
{
    const bk_ssz_type *lt;
    bk_error err;
    CHECK_EQ_INT(bk_ssz_type_parse(reg, "List[phase0:Validator,1099511627776]", &lt, &err), BK_OK);
    uint8_t v[121 * 5];
    memset(v, 0, sizeof v);
    CHECK_EQ_INT(bk_ssz_validate(lt, v, sizeof v, &err), BK_OK);
    v[121 * 3 + 88] = 1; /* slashed = true: fine */
    CHECK_EQ_INT(bk_ssz_validate(lt, v, sizeof v, &err), BK_OK);
    v[121 * 2 + 88] = 2;
    CHECK_EQ_INT(bk_ssz_validate(lt, v, sizeof v, &err), BK_ERR_VALUE);
    CHECK_EQ_INT(err.offset, 121 * 2 + 88);
    CHECK_EQ_STR(err.path, "[2].slashed");
}

int main(void)
{
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK) return 2;
    RUN(test_pool_errors);
    RUN(test_registry_bool_scan);
    RUN(test_states);
    RUN(test_tree);
    bk_ssz_registry_free(reg);
    return check_finish();
}
