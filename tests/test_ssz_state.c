/* Whole-state hashing: synthetic BeaconStates (bk_ssz_synthesize) of several
 * forks hashed on one thread and on a pool of 2 and 3 threads give the same
 * root, and that root equals @lodestar/types' hash_tree_root of the same
 * bytes (node + the installed test tools; an independent implementation). */
#include <blockkit/ssz.h>

#include <stdio.h>
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

int main(void)
{
    if (bk_ssz_registry_create(&reg, NULL) != BK_OK) return 2;
    RUN(test_pool_errors);
    RUN(test_states);
    bk_ssz_registry_free(reg);
    return check_finish();
}
