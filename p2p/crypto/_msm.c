/* Variable-time multi-scalar multiplication on ristretto255, for checking public data.
 *
 * Why this exists: a shuffle proof's verifier computes sums  k_1*P_1 + ... + k_n*P_n  of
 * about a hundred terms.  Through libsodium each term costs a constant-time scalar
 * multiplication plus an addition, and every call decodes and re-encodes its points (an
 * inverse square root each).  Here the points are decoded once, kept in extended
 * coordinates, and the sum shares its doublings between all terms (Straus's method with
 * signed sliding windows for up to a few hundred terms, Pippenger's bucket method beyond):
 * a 106-term sum costs about a fifth of the libsodium way.
 *
 * VARIABLE TIME: the running time depends on the scalars.  Use it only where every scalar
 * and point is public (a verifier's checks), never with a secret.
 *
 * References (docs/protocol.md, section "Group arithmetic"):
 *   - RFC 9496, The ristretto255 and decaf448 Groups, sections 4.2 (SQRT_RATIO_M1),
 *     4.3.1 (decode), 4.3.2 (encode) and its constants;
 *   - Hisil, Wong, Carter, Dawson, "Twisted Edwards Curves Revisited", ASIACRYPT 2008:
 *     extended coordinates, addition "add-2008-hwcd-3" and doubling "dbl-2008-hwcd"
 *     (complete on edwards25519, a = -1, d not a square);
 *   - Bernstein, Duif, Lange, Schwabe, Yang, "High-speed high-security signatures", 2011:
 *     the field representation (five 51-bit limbs) and the exponentiation chain of
 *     z^((p-5)/8);
 *   - Straus's simultaneous multiplication (Straus, "Addition chains of vectors", 1964)
 *     with the signed sliding windows of ref10's double-scalar multiplication (Bernstein
 *     et al. 2011, above), and Pippenger's bucket method as described by Bernstein,
 *     Doumen, Lange, Oosterwijk, "Faster batch forgery identification", INDOCRYPT 2012,
 *     section 4.
 * Every result is checked against libsodium in tests/test_crypto_msm.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t fe[5];
typedef unsigned __int128 u128;
#define M51 ((uint64_t)0x7ffffffffffffULL)

static const fe FE_D = {0x34dca135978a3ULL, 0x1a8283b156ebdULL, 0x5e7a26001c029ULL,
                        0x739c663a03cbbULL, 0x52036cee2b6ffULL};
static const fe FE_D2 = {0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL,
                         0x6738cc7407977ULL, 0x2406d9dc56dffULL};
static const fe FE_SQRT_M1 = {0x61b274a0ea0b0ULL, 0xd5a5fc8f189dULL, 0x7ef5e9cbd0c60ULL,
                              0x78595a6804c9eULL, 0x2b8324804fc1dULL};
static const fe FE_INVSQRT_A_MINUS_D = {0xfdaa805d40eaULL, 0x2eb482e57d339ULL,
                                        0x7610274bc58ULL, 0x6510b613dc8ffULL,
                                        0x786c8905cfaffULL};
static const fe FE_ONE = {1, 0, 0, 0, 0};
static const fe FE_ZERO = {0, 0, 0, 0, 0};

/* ------------------------------------------------------------------ field GF(2^255-19) */
/* Limbs are kept below 2^52 between operations ("loosely reduced"). */

static void fe_copy(fe h, const fe f) { memcpy(h, f, sizeof(fe)); }

static void fe_carry(fe h) {
    uint64_t c;
    c = h[0] >> 51; h[0] &= M51; h[1] += c;
    c = h[1] >> 51; h[1] &= M51; h[2] += c;
    c = h[2] >> 51; h[2] &= M51; h[3] += c;
    c = h[3] >> 51; h[3] &= M51; h[4] += c;
    c = h[4] >> 51; h[4] &= M51; h[0] += c * 19;
}

static void fe_add(fe h, const fe f, const fe g) {
    for (int i = 0; i < 5; i++) h[i] = f[i] + g[i];
    fe_carry(h);
}

/* f - g computed as f + 4p - g, so no limb goes below zero for g's limbs < 2^53. */
static void fe_sub(fe h, const fe f, const fe g) {
    h[0] = f[0] + 0x1fffffffffffb4ULL - g[0];
    h[1] = f[1] + 0x1ffffffffffffcULL - g[1];
    h[2] = f[2] + 0x1ffffffffffffcULL - g[2];
    h[3] = f[3] + 0x1ffffffffffffcULL - g[3];
    h[4] = f[4] + 0x1ffffffffffffcULL - g[4];
    fe_carry(h);
}

static void fe_neg(fe h, const fe f) { fe_sub(h, FE_ZERO, f); }

/* Carries a product's five 128-bit column sums (each below 2^115) into loose limbs. */
static inline void fe_from_wide(fe h, u128 r0, u128 r1, u128 r2, u128 r3, u128 r4) {
    uint64_t h0, h1, h2, h3, h4;
    r1 += (uint64_t)(r0 >> 51); h0 = (uint64_t)r0 & M51;
    r2 += (uint64_t)(r1 >> 51); h1 = (uint64_t)r1 & M51;
    r3 += (uint64_t)(r2 >> 51); h2 = (uint64_t)r2 & M51;
    r4 += (uint64_t)(r3 >> 51); h3 = (uint64_t)r3 & M51;
    u128 top = r4 >> 51; h4 = (uint64_t)r4 & M51;
    u128 t = top * 19 + h0;
    h0 = (uint64_t)t & M51;
    h1 += (uint64_t)(t >> 51);
    h[0] = h0; h[1] = h1; h[2] = h2; h[3] = h3; h[4] = h4;
}

static void fe_mul(fe h, const fe f, const fe g) {
    uint64_t f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4];
    uint64_t g0 = g[0], g1 = g[1], g2 = g[2], g3 = g[3], g4 = g[4];
    uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
    u128 r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19
              + (u128)f4 * g1_19;
    u128 r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19
              + (u128)f4 * g2_19;
    u128 r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19
              + (u128)f4 * g3_19;
    u128 r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0
              + (u128)f4 * g4_19;
    u128 r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0;
    fe_from_wide(h, r0, r1, r2, r3, r4);
}

static void fe_sq(fe h, const fe f) {
    uint64_t f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4];
    uint64_t f0_2 = 2 * f0, f1_2 = 2 * f1;
    uint64_t f1_38 = 38 * f1, f2_38 = 38 * f2, f3_38 = 38 * f3, f3_19 = 19 * f3,
             f4_19 = 19 * f4;
    u128 r0 = (u128)f0 * f0 + (u128)f1_38 * f4 + (u128)f2_38 * f3;
    u128 r1 = (u128)f0_2 * f1 + (u128)f2_38 * f4 + (u128)f3_19 * f3;
    u128 r2 = (u128)f0_2 * f2 + (u128)f1 * f1 + (u128)f3_38 * f4;
    u128 r3 = (u128)f0_2 * f3 + (u128)f1_2 * f2 + (u128)f4_19 * f4;
    u128 r4 = (u128)f0_2 * f4 + (u128)f1_2 * f3 + (u128)f2 * f2;
    fe_from_wide(h, r0, r1, r2, r3, r4);
}

static void fe_sqn(fe h, const fe f, int n) {
    fe_sq(h, f);
    for (int i = 1; i < n; i++) fe_sq(h, h);
}

static uint64_t load64(const unsigned char *s) {
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--) w = (w << 8) | s[i];
    return w;
}

static void store64(unsigned char *s, uint64_t w) {
    for (int i = 0; i < 8; i++) { s[i] = (unsigned char)w; w >>= 8; }
}

/* The low 255 bits of s (the top bit is ignored; callers check canonicity). */
static void fe_frombytes(fe h, const unsigned char *s) {
    uint64_t w0 = load64(s), w1 = load64(s + 8), w2 = load64(s + 16), w3 = load64(s + 24);
    h[0] = w0 & M51;
    h[1] = ((w0 >> 51) | (w1 << 13)) & M51;
    h[2] = ((w1 >> 38) | (w2 << 26)) & M51;
    h[3] = ((w2 >> 25) | (w3 << 39)) & M51;
    h[4] = (w3 >> 12) & M51;
}

/* The canonical encoding: the unique representative in [0, p). */
static void fe_tobytes(unsigned char *s, const fe f) {
    fe h;
    uint64_t c, q;
    fe_copy(h, f);
    fe_carry(h);
    fe_carry(h);
    q = (h[0] + 19) >> 51;
    q = (h[1] + q) >> 51;
    q = (h[2] + q) >> 51;
    q = (h[3] + q) >> 51;
    q = (h[4] + q) >> 51;
    h[0] += 19 * q;
    c = h[0] >> 51; h[0] &= M51; h[1] += c;
    c = h[1] >> 51; h[1] &= M51; h[2] += c;
    c = h[2] >> 51; h[2] &= M51; h[3] += c;
    c = h[3] >> 51; h[3] &= M51; h[4] += c;
    h[4] &= M51;
    store64(s, h[0] | (h[1] << 51));
    store64(s + 8, (h[1] >> 13) | (h[2] << 38));
    store64(s + 16, (h[2] >> 26) | (h[3] << 25));
    store64(s + 24, (h[3] >> 39) | (h[4] << 12));
}

static int fe_isneg(const fe f) {
    unsigned char s[32];
    fe_tobytes(s, f);
    return s[0] & 1;
}

static int fe_iszero(const fe f) {
    unsigned char s[32];
    unsigned char acc = 0;
    fe_tobytes(s, f);
    for (int i = 0; i < 32; i++) acc |= s[i];
    return acc == 0;
}

static int fe_eq(const fe f, const fe g) {
    fe d;
    fe_sub(d, f, g);
    return fe_iszero(d);
}

/* |f|: the non-negative one of f and -f (RFC 9496, CT_ABS). */
static void fe_abs(fe h, const fe f) {
    if (fe_isneg(f)) fe_neg(h, f);
    else fe_copy(h, f);
}

/* z^((p-5)/8) = z^(2^252 - 3), the chain of ref10. */
static void fe_pow22523(fe out, const fe z) {
    fe t0, t1, t2;
    fe_sq(t0, z);              /* 2 */
    fe_sqn(t1, t0, 2);         /* 8 */
    fe_mul(t1, z, t1);         /* 9 */
    fe_mul(t0, t0, t1);        /* 11 */
    fe_sq(t0, t0);             /* 22 */
    fe_mul(t0, t1, t0);        /* 2^5 - 1 */
    fe_sqn(t1, t0, 5);
    fe_mul(t0, t1, t0);        /* 2^10 - 1 */
    fe_sqn(t1, t0, 10);
    fe_mul(t1, t1, t0);        /* 2^20 - 1 */
    fe_sqn(t2, t1, 20);
    fe_mul(t1, t2, t1);        /* 2^40 - 1 */
    fe_sqn(t1, t1, 10);
    fe_mul(t0, t1, t0);        /* 2^50 - 1 */
    fe_sqn(t1, t0, 50);
    fe_mul(t1, t1, t0);        /* 2^100 - 1 */
    fe_sqn(t2, t1, 100);
    fe_mul(t1, t2, t1);        /* 2^200 - 1 */
    fe_sqn(t1, t1, 50);
    fe_mul(t0, t1, t0);        /* 2^250 - 1 */
    fe_sqn(t0, t0, 2);         /* 2^252 - 4 */
    fe_mul(out, t0, z);        /* 2^252 - 3 */
}

/* RFC 9496 section 4.2: (was_square, r) with r = sqrt(u/v) or sqrt(i*u/v), r >= 0. */
static int sqrt_ratio_m1(fe r, const fe u, const fe v) {
    fe v3, v7, t, check, neg_u, neg_u_i, r_prime;
    fe_sq(v3, v);
    fe_mul(v3, v3, v);         /* v^3 */
    fe_sq(v7, v3);
    fe_mul(v7, v7, v);         /* v^7 */
    fe_mul(t, u, v7);
    fe_pow22523(t, t);
    fe_mul(r, u, v3);
    fe_mul(r, r, t);           /* (u v^3)(u v^7)^((p-5)/8) */
    fe_sq(check, r);
    fe_mul(check, check, v);
    fe_neg(neg_u, u);
    fe_mul(neg_u_i, neg_u, FE_SQRT_M1);
    int correct = fe_eq(check, u);
    int flipped = fe_eq(check, neg_u);
    int flipped_i = fe_eq(check, neg_u_i);
    if (flipped || flipped_i) {
        fe_mul(r_prime, r, FE_SQRT_M1);
        fe_copy(r, r_prime);
    }
    fe_abs(r, r);
    return correct || flipped;
}

/* ------------------------------------------------------------------ group */

typedef struct { fe X, Y, Z, T; } ge;

static void ge_identity(ge *p) {
    fe_copy(p->X, FE_ZERO); fe_copy(p->Y, FE_ONE); fe_copy(p->Z, FE_ONE);
    fe_copy(p->T, FE_ZERO);
}

/* add-2008-hwcd-3 (a = -1); r may alias p or q. */
static void ge_add(ge *r, const ge *p, const ge *q) {
    fe a, b, c, d, e, f, g, h, t;
    fe_sub(a, p->Y, p->X); fe_sub(t, q->Y, q->X); fe_mul(a, a, t);
    fe_add(b, p->Y, p->X); fe_add(t, q->Y, q->X); fe_mul(b, b, t);
    fe_mul(c, p->T, q->T); fe_mul(c, c, FE_D2);
    fe_mul(d, p->Z, q->Z); fe_add(d, d, d);
    fe_sub(e, b, a); fe_sub(f, d, c); fe_add(g, d, c); fe_add(h, b, a);
    fe_mul(r->X, e, f); fe_mul(r->Y, g, h); fe_mul(r->T, e, h); fe_mul(r->Z, f, g);
}

/* dbl-2008-hwcd (a = -1); r may alias p. */
static void ge_dbl(ge *r, const ge *p) {
    fe a, b, c, e, f, g, h, t;
    fe_sq(a, p->X); fe_sq(b, p->Y); fe_sq(c, p->Z); fe_add(c, c, c);
    fe_add(t, p->X, p->Y); fe_sq(t, t);
    fe_sub(e, t, a); fe_sub(e, e, b);      /* E = (X+Y)^2 - A - B */
    fe_sub(g, b, a);                       /* G = -A + B */
    fe_sub(f, g, c);                       /* F = G - C */
    fe_add(h, a, b); fe_neg(h, h);         /* H = -A - B */
    fe_mul(r->X, e, f); fe_mul(r->Y, g, h); fe_mul(r->T, e, h); fe_mul(r->Z, f, g);
}

/* RFC 9496 section 4.3.1; returns 0 on success, -1 if s is not a valid encoding. */
static int ge_decode(ge *p, const unsigned char *s) {
    fe s_, ss, u1, u2, u2_sqr, v, t, invsqrt, den_x, den_y, x, y;
    unsigned char back[32];
    fe_frombytes(s_, s);
    fe_tobytes(back, s_);
    if (memcmp(back, s, 32) != 0) return -1;   /* not canonical (s >= p or top bit) */
    if (s[0] & 1) return -1;                   /* negative */
    fe_sq(ss, s_);
    fe_sub(u1, FE_ONE, ss);
    fe_add(u2, FE_ONE, ss);
    fe_sq(u2_sqr, u2);
    fe_sq(t, u1);
    fe_mul(t, t, FE_D);
    fe_neg(t, t);
    fe_sub(v, t, u2_sqr);                      /* -(D u1^2) - u2^2 */
    fe_mul(t, v, u2_sqr);
    int was_square = sqrt_ratio_m1(invsqrt, FE_ONE, t);
    fe_mul(den_x, invsqrt, u2);
    fe_mul(den_y, invsqrt, den_x);
    fe_mul(den_y, den_y, v);
    fe_add(x, s_, s_);
    fe_mul(x, x, den_x);
    fe_abs(x, x);
    fe_mul(y, u1, den_y);
    fe_mul(t, x, y);
    if (!was_square || fe_isneg(t) || fe_iszero(y)) return -1;
    fe_copy(p->X, x); fe_copy(p->Y, y); fe_copy(p->Z, FE_ONE); fe_copy(p->T, t);
    return 0;
}

/* RFC 9496 section 4.3.2. */
static void ge_encode(unsigned char *s, const ge *p) {
    fe u1, u2, t, invsqrt, den1, den2, z_inv, ix0, iy0, ench, x, y, den_inv;
    fe_add(u1, p->Z, p->Y);
    fe_sub(t, p->Z, p->Y);
    fe_mul(u1, u1, t);
    fe_mul(u2, p->X, p->Y);
    fe_sq(t, u2);
    fe_mul(t, t, u1);
    (void)sqrt_ratio_m1(invsqrt, FE_ONE, t);
    fe_mul(den1, invsqrt, u1);
    fe_mul(den2, invsqrt, u2);
    fe_mul(z_inv, den1, den2);
    fe_mul(z_inv, z_inv, p->T);
    fe_mul(ix0, p->X, FE_SQRT_M1);
    fe_mul(iy0, p->Y, FE_SQRT_M1);
    fe_mul(ench, den1, FE_INVSQRT_A_MINUS_D);
    fe_mul(t, p->T, z_inv);
    if (fe_isneg(t)) {
        fe_copy(x, iy0); fe_copy(y, ix0); fe_copy(den_inv, ench);
    } else {
        fe_copy(x, p->X); fe_copy(y, p->Y); fe_copy(den_inv, den2);
    }
    fe_mul(t, x, z_inv);
    if (fe_isneg(t)) fe_neg(y, y);
    fe_sub(t, p->Z, y);
    fe_mul(t, den_inv, t);
    fe_abs(t, t);
    fe_tobytes(s, t);
}

/* ------------------------------------------------------------------ Pippenger */

#define SCALAR_BITS 253   /* scalars are reduced modulo the group order, below 2^253 */

static unsigned window_digit(const unsigned char *k, unsigned offset, unsigned width) {
    unsigned byte = offset >> 3, shift = offset & 7;
    uint32_t v = 0;
    for (unsigned i = 0; i < 3 && byte + i < 32; i++) v |= (uint32_t)k[byte + i] << (8 * i);
    return (v >> shift) & ((1u << width) - 1);
}


/* sum of k_i * P_i; scalars are 32-byte little-endian values below 2^253. */
static void msm(ge *out, const unsigned char *scalars, const ge *points, size_t n,
                ge *buckets, unsigned char *used, unsigned width) {
    unsigned windows = (SCALAR_BITS + width - 1) / width;
    size_t nb = ((size_t)1 << width) - 1;
    int acc_set = 0;
    ge acc, running, sum;
    ge_identity(&acc);
    for (int w = (int)windows - 1; w >= 0; w--) {
        if (acc_set)
            for (unsigned j = 0; j < width; j++) ge_dbl(&acc, &acc);
        memset(used, 0, nb);
        for (size_t i = 0; i < n; i++) {
            unsigned d = window_digit(scalars + 32 * i, (unsigned)w * width, width);
            if (d == 0) continue;
            if (used[d - 1]) ge_add(&buckets[d - 1], &buckets[d - 1], &points[i]);
            else { buckets[d - 1] = points[i]; used[d - 1] = 1; }
        }
        int running_set = 0, sum_set = 0;
        for (size_t b = nb; b-- > 0;) {
            if (used[b]) {
                if (running_set) ge_add(&running, &running, &buckets[b]);
                else { running = buckets[b]; running_set = 1; }
            }
            if (running_set) {
                if (sum_set) ge_add(&sum, &sum, &running);
                else { sum = running; sum_set = 1; }
            }
        }
        if (sum_set) {
            if (acc_set) ge_add(&acc, &acc, &sum);
            else { acc = sum; acc_set = 1; }
        }
    }
    *out = acc;
}

/* ------------------------------------------------------------------ Straus (few terms) */

#define STRAUS_TABLE 8   /* odd multiples P, 3P, ..., 15P */

static void ge_neg(ge *r, const ge *p) {
    fe_neg(r->X, p->X); fe_copy(r->Y, p->Y); fe_copy(r->Z, p->Z); fe_neg(r->T, p->T);
}

/* Signed sliding window of a scalar below 2^253: digits odd in [-15, 15] or zero, at most
 * one non-zero digit in any 5 consecutive positions (the "slide" of ref10). */
static void slide(signed char r[256], const unsigned char *k) {
    for (int i = 0; i < 256; i++) r[i] = (signed char)(1 & (k[i >> 3] >> (i & 7)));
    for (int i = 0; i < 256; i++) {
        if (!r[i]) continue;
        for (int b = 1; b <= 6 && i + b < 256; b++) {
            if (!r[i + b]) continue;
            if (r[i] + (r[i + b] << b) <= 15) {
                r[i] = (signed char)(r[i] + (r[i + b] << b));
                r[i + b] = 0;
            } else if (r[i] - (r[i + b] << b) >= -15) {
                r[i] = (signed char)(r[i] - (r[i + b] << b));
                for (int j = i + b; j < 256; j++) {
                    if (!r[j]) { r[j] = 1; break; }
                    r[j] = 0;
                }
            } else {
                break;
            }
        }
    }
}

static void straus(ge *out, const unsigned char *scalars, const ge *points, size_t n,
                   ge *table, signed char *digits) {
    ge two, neg;
    int top = -1;
    for (size_t i = 0; i < n; i++) {
        ge *t = table + STRAUS_TABLE * i;
        t[0] = points[i];
        ge_dbl(&two, &points[i]);
        for (int j = 1; j < STRAUS_TABLE; j++) ge_add(&t[j], &t[j - 1], &two);
        slide(digits + 256 * i, scalars + 32 * i);
        for (int p = 255; p > top; p--)
            if (digits[256 * i + (size_t)p]) { top = p; break; }
    }
    ge acc;
    int acc_set = 0;
    ge_identity(&acc);
    for (int p = top; p >= 0; p--) {
        if (acc_set) ge_dbl(&acc, &acc);
        for (size_t i = 0; i < n; i++) {
            int d = digits[256 * i + (size_t)p];
            if (d == 0) continue;
            const ge *t = table + STRAUS_TABLE * i;
            const ge *term;
            if (d > 0) term = &t[d / 2];
            else { ge_neg(&neg, &t[(-d) / 2]); term = &neg; }
            if (acc_set) ge_add(&acc, &acc, term);
            else { acc = *term; acc_set = 1; }
        }
    }
    *out = acc;
}

/* Estimated point operations of each method; the cheaper one is used. */
static double straus_cost(size_t n) { return SCALAR_BITS + (double)n * (SCALAR_BITS / 6.0 + 8); }

static double pippenger_cost(size_t n, unsigned c) {
    return (double)((SCALAR_BITS + c - 1) / c) * ((double)n + (double)(2u << c)) + SCALAR_BITS;
}

/* ------------------------------------------------------------------ constant time (secrets) */
/* For a prover's sums, whose scalars are secret: every scalar is recoded into 64 signed
 * radix-16 digits in [-8, 8), every digit selects its multiple from an 8-entry table by
 * scanning all entries with masks, and every term is added at every window, so neither
 * the branches nor the memory addresses depend on a scalar (the structure of ref10's and
 * libsodium's constant-time multiplication, here for several terms sharing the doublings).
 * The points are public (decoded in variable time) and so is the result. */

static void fe_cmov(fe f, const fe g, uint64_t mask) {
    for (int i = 0; i < 5; i++) f[i] ^= mask & (f[i] ^ g[i]);
}

static void ge_cmov(ge *t, const ge *u, unsigned char b) {
    uint64_t mask = (uint64_t)0 - (uint64_t)b;
    fe_cmov(t->X, u->X, mask); fe_cmov(t->Y, u->Y, mask);
    fe_cmov(t->Z, u->Z, mask); fe_cmov(t->T, u->T, mask);
}

static unsigned char ct_equal(signed char b, signed char c) {
    uint32_t y = (unsigned char)(b ^ c);
    y -= 1;
    return (unsigned char)(y >> 31);
}

static unsigned char ct_negative(signed char b) {
    uint64_t x = (uint64_t)(int64_t)b;
    return (unsigned char)(x >> 63);
}

/* t = b * P from the table P, 2P, ..., 8P, for b in [-8, 8]. */
static void ct_select(ge *t, const ge table[8], signed char b) {
    unsigned char bneg = ct_negative(b);
    signed char babs = (signed char)(b - (((-bneg) & b) * 2));
    ge minus;
    ge_identity(t);
    for (int k = 1; k <= 8; k++) ge_cmov(t, &table[k - 1], ct_equal(babs, (signed char)k));
    ge_neg(&minus, t);
    ge_cmov(t, &minus, bneg);
}

/* 64 digits e_i in [-8, 8) with k = sum e_i 16^i, for k < 2^255. */
static void recode16(signed char e[64], const unsigned char *k) {
    signed char carry = 0;
    for (int i = 0; i < 32; i++) {
        e[2 * i] = (signed char)(k[i] & 15);
        e[2 * i + 1] = (signed char)((k[i] >> 4) & 15);
    }
    for (int i = 0; i < 63; i++) {
        e[i] = (signed char)(e[i] + carry);
        carry = (signed char)((e[i] + 8) >> 4);
        e[i] = (signed char)(e[i] - carry * 16);
    }
    e[63] = (signed char)(e[63] + carry);
}

static void ct_sum(ge *out, const unsigned char *scalars, const ge *points, size_t n,
                   ge *tables, signed char *digits) {
    ge acc, t;
    for (size_t i = 0; i < n; i++) {
        ge *tab = tables + 8 * i;
        tab[0] = points[i];
        ge_dbl(&tab[1], &points[i]);
        for (int j = 2; j < 8; j++) ge_add(&tab[j], &tab[j - 1], &points[i]);
        recode16(digits + 64 * i, scalars + 32 * i);
    }
    ge_identity(&acc);
    for (int w = 63; w >= 0; w--) {
        if (w != 63)
            for (int j = 0; j < 4; j++) ge_dbl(&acc, &acc);
        for (size_t i = 0; i < n; i++) {
            ct_select(&t, tables + 8 * i, digits[64 * i + (size_t)w]);
            ge_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

/* Fixed-base multiplication by a point H known in advance (a hand's joint key): rows of
 * (j+1)*16^i*H for i = 0..63, j = 0..7, so k*H is 64 masked selections and 64 additions,
 * no doubling.  Constant time in k, like ct_sum. */

#define FIXED_ROWS 64
#define FIXED_POINTS (FIXED_ROWS * 8)

static void fixed_table(ge *table, const ge *h) {
    ge base = *h;
    for (int i = 0; i < FIXED_ROWS; i++) {
        ge *row = table + 8 * i;
        row[0] = base;
        ge_dbl(&row[1], &base);
        for (int j = 2; j < 8; j++) ge_add(&row[j], &row[j - 1], &base);
        ge_dbl(&base, &row[7]);   /* 16 * base */
    }
}

static void fixed_mul_add(ge *out, const ge *table, const unsigned char *k, const ge *addend) {
    signed char e[64];
    ge acc = *addend, t;
    recode16(e, k);
    for (int i = 0; i < FIXED_ROWS; i++) {
        ct_select(&t, table + 8 * i, e[i]);
        ge_add(&acc, &acc, &t);
    }
    *out = acc;
}

/* ------------------------------------------------------------------ Python binding */

#define MAX_TERMS ((Py_ssize_t)1 << 20)

PyDoc_STRVAR(msm_doc,
"msm(scalars, points) -> bytes\n\n"
"The ristretto255 encoding of sum k_i*P_i.  ``scalars`` is n 32-byte little-endian\n"
"scalars, each below 2^253 (reduce them modulo the group order first); ``points`` is n\n"
"32-byte encodings.  Raises ValueError naming the first point that does not decode.\n"
"Variable time: public inputs only.  Releases the GIL while it computes.");

/* Parses (scalars, points) as n 32-byte scalars below 2^253 and n 32-byte strings. */
static int parse_terms(PyObject *args, const char *format, const unsigned char **scalars,
                       const unsigned char **points, Py_ssize_t *n) {
    Py_ssize_t ns, np;
    if (!PyArg_ParseTuple(args, format, scalars, &ns, points, &np)) return -1;
    if (ns % 32 != 0 || np % 32 != 0 || ns != np) {
        PyErr_SetString(PyExc_ValueError, "scalars and points must be n 32-byte strings each");
        return -1;
    }
    *n = np / 32;
    if (*n > MAX_TERMS) {
        PyErr_SetString(PyExc_ValueError, "too many terms");
        return -1;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        if ((*scalars)[32 * i + 31] & 0xe0) {
            PyErr_Format(PyExc_ValueError, "scalar %zd is not below 2^253", i);
            return -1;
        }
    }
    return 0;
}

static PyObject *bad_point(Py_ssize_t i) {
    PyErr_Format(PyExc_ValueError, "point %zd is not a valid ristretto255 encoding", i);
    return NULL;
}

PyDoc_STRVAR(ct_sum_doc,
"ct_sum(scalars, points) -> bytes\n\n"
"Like msm, in time independent of the scalars (a prover's secret nonces and witnesses);\n"
"the points and the result are public.  Releases the GIL while it computes.");

/* The sum of the terms in ``args``: public (variable time: Straus or Pippenger, whichever
 * is estimated cheaper) or secret (constant time in the scalars: ct_sum). */
static PyObject *sum_terms(PyObject *args, const char *format, int secret) {
    const unsigned char *scalars, *points;
    Py_ssize_t n;
    if (parse_terms(args, format, &scalars, &points, &n) != 0) return NULL;
    size_t m = (size_t)(n > 0 ? n : 1);
    unsigned width = 0;   /* public: 0 for Straus, else Pippenger's window */
    size_t table_points = 8 * m, scratch_bytes = 64 * m;   /* secret: tables, digits */
    if (!secret) {
        double best = straus_cost(m);
        for (unsigned c = 2; c <= 16; c++) {
            double cost = pippenger_cost(m, c);
            if (cost < best) { best = cost; width = c; }
        }
        size_t nb = ((size_t)1 << width) - 1;
        table_points = width ? nb : STRAUS_TABLE * m;   /* buckets, or Straus's tables */
        scratch_bytes = width ? nb : 256 * m;           /* bucket flags, or digits */
    }
    ge *decoded = PyMem_RawMalloc(sizeof(ge) * m);
    ge *table = PyMem_RawMalloc(sizeof(ge) * table_points);
    unsigned char *scratch = PyMem_RawMalloc(scratch_bytes);
    if (decoded == NULL || table == NULL || scratch == NULL) {
        PyMem_RawFree(decoded); PyMem_RawFree(table); PyMem_RawFree(scratch);
        return PyErr_NoMemory();
    }
    Py_ssize_t bad = -1;
    unsigned char enc[32];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ge_decode(&decoded[i], points + 32 * i) != 0) { bad = i; break; }
    }
    if (bad < 0) {
        ge result;
        if (secret) ct_sum(&result, scalars, decoded, (size_t)n, table, (signed char *)scratch);
        else if (width) msm(&result, scalars, decoded, (size_t)n, table, scratch, width);
        else straus(&result, scalars, decoded, (size_t)n, table, (signed char *)scratch);
        ge_encode(enc, &result);
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(decoded); PyMem_RawFree(table); PyMem_RawFree(scratch);
    if (bad >= 0) return bad_point(bad);
    return PyBytes_FromStringAndSize((const char *)enc, 32);
}

static PyObject *py_ct_sum(PyObject *self, PyObject *args) {
    (void)self;
    return sum_terms(args, "y#y#:ct_sum", 1);
}

static PyObject *py_msm(PyObject *self, PyObject *args) {
    (void)self;
    return sum_terms(args, "y#y#:msm", 0);
}

PyDoc_STRVAR(fixed_table_doc,
"fixed_table(point) -> bytes\n\n"
"The precomputed multiples of ``point`` that fixed_mul_add reads (opaque, 80 KB).");

static PyObject *py_fixed_table(PyObject *self, PyObject *args) {
    const unsigned char *point;
    Py_ssize_t np;
    (void)self;
    if (!PyArg_ParseTuple(args, "y#:fixed_table", &point, &np)) return NULL;
    if (np != 32) {
        PyErr_SetString(PyExc_ValueError, "fixed_table: a point is 32 bytes");
        return NULL;
    }
    ge h;
    if (ge_decode(&h, point) != 0) return bad_point(0);
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(sizeof(ge) * FIXED_POINTS));
    if (out == NULL) return NULL;
    ge *table = (ge *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    fixed_table(table, &h);
    Py_END_ALLOW_THREADS
    return out;
}

PyDoc_STRVAR(fixed_mul_add_doc,
"fixed_mul_add(table, scalars, addends) -> bytes\n\n"
"The n encodings of A_i + k_i*H, for the table of H made by fixed_table, n 32-byte\n"
"scalars below 2^253 and n point encodings A_i.  Constant time in the scalars.");

static PyObject *py_fixed_mul_add(PyObject *self, PyObject *args) {
    const unsigned char *table_bytes, *scalars, *addends;
    Py_ssize_t nt, n;
    (void)self;
    {
        Py_ssize_t ns, na;
        if (!PyArg_ParseTuple(args, "y#y#y#:fixed_mul_add", &table_bytes, &nt, &scalars, &ns,
                              &addends, &na))
            return NULL;
        if (nt != (Py_ssize_t)(sizeof(ge) * FIXED_POINTS) || ns % 32 || na != ns) {
            PyErr_SetString(PyExc_ValueError, "fixed_mul_add: bad table or sizes");
            return NULL;
        }
        n = ns / 32;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (scalars[32 * i + 31] & 0xe0) {
                PyErr_Format(PyExc_ValueError, "scalar %zd is not below 2^253", i);
                return NULL;
            }
        }
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, 32 * n);
    if (out == NULL) return NULL;
    unsigned char *enc = (unsigned char *)PyBytes_AS_STRING(out);
    const ge *table = (const ge *)table_bytes;
    Py_ssize_t bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        ge a, r;
        if (ge_decode(&a, addends + 32 * i) != 0) { bad = i; break; }
        fixed_mul_add(&r, table, scalars + 32 * i, &a);
        ge_encode(enc + 32 * i, &r);
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        Py_DECREF(out);
        return bad_point(bad);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"msm", py_msm, METH_VARARGS, msm_doc},
    {"ct_sum", py_ct_sum, METH_VARARGS, ct_sum_doc},
    {"fixed_table", py_fixed_table, METH_VARARGS, fixed_table_doc},
    {"fixed_mul_add", py_fixed_mul_add, METH_VARARGS, fixed_mul_add_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_msm",
    "Variable-time ristretto255 multi-scalar multiplication for verifiers (see _msm.c).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__msm(void) { return PyModule_Create(&module); }
