/* SPDX-License-Identifier: Apache-2.0 */
/* factor past 2^128-1 through GMP, as GNU factor takes such numbers with
 * its mpz path: trial division by the small primes, then each composite
 * split by Pollard-Brent rho until every part is prime (GMP's BPSW and
 * Miller-Rabin test). Debian's libgmp rather than a bignum written here. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_factor.h"

#define BIG_TRIAL_MAX 1000u // trial division below this
#define BIG_PRIME_REPS 25   // GMP's rounds beyond its BPSW test
#define BIG_RHO_BATCH 128u  // products per gcd in Brent's rho

/* A list of numbers (primes found, or composites still to split). */
typedef struct big_list {
    __mpz_struct *bl_v;
    size_t bl_n, bl_cap;
} big_list;

static box_err
big_push(big_list *l, const mpz_t x)
{
    if (l->bl_n == l->bl_cap) {
        size_t cap = l->bl_cap ? l->bl_cap * 2 : 16;
        __mpz_struct *v = box_realloc(l->bl_v, cap * sizeof *v);
        if (v == NULL)
            return BOX_ENOMEM;
        l->bl_v = v;
        l->bl_cap = cap;
    }
    mpz_init_set(&l->bl_v[l->bl_n++], x);
    return BOX_OK;
}

static void
big_list_free(big_list *l)
{
    for (size_t i = 0; i < l->bl_n; i++)
        mpz_clear(&l->bl_v[i]);
    box_free(l->bl_v);
}

/* y = y * y + c (mod n) */
static void
big_step(mpz_t y, unsigned long c, const mpz_t n)
{
    mpz_mul(y, y, y);
    mpz_add_ui(y, y, c);
    mpz_mod(y, y, n);
}

/* A factor d of the odd composite n (1 < d < n), by Brent's rho; false
 * when the call stopped first. */
static bool
big_rho(sh_ctx *cx, mpz_t d, const mpz_t n)
{
    mpz_t x, y, ys, q, t;
    mpz_inits(x, y, ys, q, t, NULL);
    bool found = false, stopped = false;
    for (unsigned long c = 1; !found && !stopped; c++) {
        mpz_set_ui(y, 2);
        mpz_set_ui(q, 1);
        mpz_set_ui(d, 1);
        for (unsigned long r = 1; mpz_cmp_ui(d, 1) == 0 && !stopped; r <<= 1) {
            mpz_set(x, y);
            for (unsigned long i = 0; i < r; i++)
                big_step(y, c, n);
            for (unsigned long k = 0; k < r && mpz_cmp_ui(d, 1) == 0;
                 k += BIG_RHO_BATCH) {
                mpz_set(ys, y);
                for (unsigned long i = 0; i < BIG_RHO_BATCH && i < r - k; i++) {
                    big_step(y, c, n);
                    mpz_sub(t, x, y);
                    mpz_abs(t, t);
                    mpz_mul(q, q, t);
                    mpz_mod(q, q, n);
                }
                mpz_gcd(d, q, n);
                if ((stopped = sh_check_stop(cx)))
                    break;
            }
        }
        if (stopped)
            break;
        if (mpz_cmp(d, n) == 0) { // the batch overshot: one step at a time
            do {
                big_step(ys, c, n);
                mpz_sub(t, x, ys);
                mpz_abs(t, t);
                mpz_gcd(d, t, n);
            } while (mpz_cmp_ui(d, 1) == 0);
        }
        found = mpz_cmp(d, n) != 0; // else the next c
    }
    mpz_clears(x, y, ys, q, t, NULL);
    return found;
}

/* The prime factors of n into primes, unsorted. */
static box_err
big_split(sh_ctx *cx, const mpz_t n, big_list *primes)
{
    big_list todo = {0};
    mpz_t m, d;
    mpz_init_set(m, n);
    mpz_init(d);
    box_err e = BOX_OK;
    for (unsigned long p = 2; p < BIG_TRIAL_MAX && e == BOX_OK;
         p += p == 2 ? 1 : 2) {
        mpz_set_ui(d, p);
        while (e == BOX_OK && mpz_divisible_ui_p(m, p)) {
            e = big_push(primes, d);
            mpz_divexact_ui(m, m, p);
        }
    }
    if (e == BOX_OK && mpz_cmp_ui(m, 1) > 0)
        e = big_push(&todo, m);
    while (e == BOX_OK && todo.bl_n > 0) {
        __mpz_struct *c = &todo.bl_v[todo.bl_n - 1];
        mpz_set(m, c);
        mpz_clear(c);
        todo.bl_n--;
        if (mpz_probab_prime_p(m, BIG_PRIME_REPS) > 0) {
            e = big_push(primes, m);
        } else if (!big_rho(cx, d, m)) {
            e = BOX_ECANCELED;
        } else {
            e = big_push(&todo, d);
            mpz_divexact(m, m, d);
            if (e == BOX_OK)
                e = big_push(&todo, m);
        }
    }
    big_list_free(&todo);
    mpz_clears(m, d, NULL);
    return e;
}

static int
big_cmp(const void *a, const void *b)
{
    return mpz_cmp((const __mpz_struct *)a, (const __mpz_struct *)b);
}

static box_err
big_put(box_buf *out, const mpz_t x)
{
    size_t cap = mpz_sizeinbase(x, 10) + 2; // may be one too many
    char *s = box_alloc(cap);
    if (s == NULL)
        return BOX_ENOMEM;
    mpz_get_str(s, 10, x);
    box_err e = box_buf_append(out, s, strlen(s));
    box_free(s);
    return e;
}

box_err
cmd_factor_big(sh_ctx *cx, const char *digits, box_buf *out)
{
    big_list primes = {0};
    mpz_t n;
    if (mpz_init_set_str(n, digits, 10) != 0) { // the caller checked them
        mpz_clear(n);
        return BOX_EINVAL;
    }
    box_err e = big_split(cx, n, &primes);
    if (e == BOX_OK && primes.bl_n > 1)
        qsort(primes.bl_v, primes.bl_n, sizeof *primes.bl_v, big_cmp);
    if (e == BOX_OK)
        e = big_put(out, n);
    if (e == BOX_OK)
        e = box_buf_putc(out, ':');
    for (size_t i = 0; i < primes.bl_n && e == BOX_OK; i++) {
        e = box_buf_putc(out, ' ');
        if (e == BOX_OK)
            e = big_put(out, &primes.bl_v[i]);
    }
    if (e == BOX_OK)
        e = box_buf_putc(out, '\n');
    big_list_free(&primes);
    mpz_clear(n);
    return e;
}
