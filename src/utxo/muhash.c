/* MuHash3072 as Bitcoin Core defines it (crypto/muhash.cpp): each element
 * is hashed with SHA-256, the digest keys ChaCha20 (zero nonce, counter 0)
 * whose first 384 bytes are read as a little-endian 3072-bit number, and
 * the numbers are multiplied modulo the prime p = 2^3072 - 1103717 (a
 * numerator for inserted elements, a denominator for removed ones).
 * Finalize: numerator / denominator mod p, fully reduced, as 384
 * little-endian bytes, hashed with SHA-256.
 *
 * The arithmetic is libgmp's: mpn_mul_n for the 3072x3072-bit product, and
 * the special form of p for the reduction (2^3072 = 1103717 mod p, so the
 * high half folds onto the low half with one mpn_addmul_1); the state is
 * kept below 2^3072 but not necessarily below p until the end. A
 * denominator other than 1 is inverted at the end by Fermat's little
 * theorem (den^(p-2), about 4,600 products). Nothing is allocated. */
#include <blockkit/utxo_coin.h>
#include <blockkit/sha256.h>

#include <gmp.h>
#include <string.h>

#include "crypto/chacha20.h"
#include "utxo/muhash_internal.h"

#if GMP_NAIL_BITS != 0
#error "blockkit needs a libgmp without nail bits"
#endif

#define MU_BITS 3072
#define MU_BYTES (MU_BITS / 8)
#define MU_LIMBS (MU_BITS / GMP_NUMB_BITS)
#define MU_DIFF 1103717u

_Static_assert(sizeof(((bk_muhash *)0)->num) == MU_LIMBS * sizeof(mp_limb_t), "MuHash state size");

static inline mp_limb_t *limbs(uint64_t *p) { return (mp_limb_t *)(void *)p; }

static void set_one(mp_limb_t *x)
{
    memset(x, 0, MU_LIMBS * sizeof(mp_limb_t));
    x[0] = 1;
}

static void from_bytes(mp_limb_t *x, const uint8_t b[MU_BYTES])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(x, b, MU_BYTES); /* the limbs are little-endian words already */
#else
    const size_t lb = sizeof(mp_limb_t);
    for (size_t i = 0; i < MU_LIMBS; i++) {
        mp_limb_t v = 0;
        for (size_t k = 0; k < lb; k++) v |= (mp_limb_t)b[i * lb + k] << (8 * k);
        x[i] = v;
    }
#endif
}

/* x = x * y mod p, both below 2^3072; the result below 2^3072. */
static void mulmod(mp_limb_t *x, const mp_limb_t *y)
{
    mp_limb_t t[2 * MU_LIMBS];
    mpn_mul_n(t, x, y, MU_LIMBS);
    /* t = lo + hi * 2^3072 = lo + hi * MU_DIFF (mod p) */
    mp_limb_t carry = mpn_addmul_1(t, t + MU_LIMBS, MU_LIMBS, MU_DIFF);
    /* now t[0..N) + carry * 2^3072; carry <= MU_DIFF, so carry * MU_DIFF fits a limb */
    mp_limb_t c2 = mpn_add_1(t, t, MU_LIMBS, carry * (mp_limb_t)MU_DIFF);
    if (c2) (void)mpn_add_1(t, t, MU_LIMBS, MU_DIFF); /* the wrapped value is small: no carry again */
    memcpy(x, t, MU_LIMBS * sizeof(mp_limb_t));
}

/* Bring x (below 2^3072) below p. */
static void full_reduce(mp_limb_t *x)
{
    for (size_t i = 1; i < MU_LIMBS; i++)
        if (x[i] != GMP_NUMB_MAX) return;
    if (x[0] < GMP_NUMB_MAX - (MU_DIFF - 1)) return;
    /* x >= p: x - p = x + MU_DIFF - 2^3072 */
    (void)mpn_add_1(x, x, MU_LIMBS, MU_DIFF);
}

void bk_muhash_element(const void *data, size_t len, uint8_t out[384])
{
    uint8_t key[32];
    static const uint8_t nonce[12] = {0};
    bk_sha256(key, data, len);
    bk_chacha20_stream(key, 0, nonce, out, MU_BYTES);
}

void bk_muhash_init(bk_muhash *m)
{
    set_one(limbs(m->num));
    set_one(limbs(m->den));
}

void bk_muhash_insert(bk_muhash *m, const void *data, size_t len)
{
    uint8_t b[MU_BYTES];
    mp_limb_t x[MU_LIMBS];
    bk_muhash_element(data, len, b);
    from_bytes(x, b);
    mulmod(limbs(m->num), x);
}

void bk_muhash_remove(bk_muhash *m, const void *data, size_t len)
{
    uint8_t b[MU_BYTES];
    mp_limb_t x[MU_LIMBS];
    bk_muhash_element(data, len, b);
    from_bytes(x, b);
    mulmod(limbs(m->den), x);
}

#define KEYS_AT_ONCE 8 /* 48 ChaCha20 blocks: three runs of 16 lanes, six of 8 */

void bk_muhash_mul_keys(uint64_t acc[48], const uint8_t *keys, size_t n)
{
    uint8_t el[KEYS_AT_ONCE * MU_BYTES];
    while (n) {
        size_t k = n < KEYS_AT_ONCE ? n : KEYS_AT_ONCE;
        bk_chacha20_elements(keys, k, el);
        for (size_t i = 0; i < k; i++) {
            mp_limb_t x[MU_LIMBS];
            from_bytes(x, el + MU_BYTES * i);
            mulmod(limbs(acc), x);
        }
        keys += 32 * k;
        n -= k;
    }
}

void bk_muhash_combine(bk_muhash *m, const bk_muhash *other)
{
    mp_limb_t tmp[MU_LIMBS];
    memcpy(tmp, other->num, sizeof tmp);
    mulmod(limbs(m->num), tmp);
    memcpy(tmp, other->den, sizeof tmp);
    mulmod(limbs(m->den), tmp);
}

void bk_muhash_finalize(const bk_muhash *m, uint8_t out[32])
{
    mp_limb_t num[MU_LIMBS], den[MU_LIMBS];
    memcpy(num, m->num, sizeof num);
    memcpy(den, m->den, sizeof den);
    full_reduce(num);
    full_reduce(den);
    int den_is_one = den[0] == 1;
    for (size_t i = 1; i < MU_LIMBS && den_is_one; i++) den_is_one = den[i] == 0;
    if (!den_is_one) {
        /* num / den = num * den^(p-2) (Fermat; p is prime). den = 0 mod p
         * gives 0, as Core's safegcd inverse does. */
        mp_limb_t inv[MU_LIMBS];
        set_one(inv);
        for (size_t i = MU_LIMBS; i-- > 0;) {
            mp_limb_t e = i ? GMP_NUMB_MAX : GMP_NUMB_MAX - (mp_limb_t)(MU_DIFF + 1);
            for (int bit = GMP_NUMB_BITS - 1; bit >= 0; bit--) {
                mp_limb_t sq[MU_LIMBS];
                memcpy(sq, inv, sizeof sq);
                mulmod(inv, sq);
                if ((e >> bit) & 1) mulmod(inv, den);
            }
        }
        mulmod(num, inv);
        full_reduce(num);
    }
    uint8_t b[MU_BYTES];
    const size_t lb = sizeof(mp_limb_t);
    for (size_t i = 0; i < MU_LIMBS; i++)
        for (size_t k = 0; k < lb; k++) b[i * lb + k] = (uint8_t)(num[i] >> (8 * k));
    bk_sha256(out, b, sizeof b);
}
