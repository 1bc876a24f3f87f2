/* SPDX-License-Identifier: Apache-2.0 */
/* factor [NUMBER]...: GNU coreutils 9.1, the prime factors of numbers up
 * to 2^128-1 (trial division, then Miller-Rabin and Pollard-Brent rho),
 * and past it through GMP (cmd_factor_big.c), from the operands or the
 * words of standard input. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_factor.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define FACTOR_WORD_MAX (64u * 1024u) // one word of stdin held whole
#define FACTOR_MAX 128                // factors of one number, at most
#define FACTOR_LBUF 512 // GNU's line buffer: written in pieces this size

typedef unsigned __int128 u128;

static const sh_gopt factor_opts[] = {{0}};

static const sh_gopt_spec factor_spec = {
    .gs_cmd = "factor",
    .gs_opts = factor_opts,
    .gs_fail = 1,
    .gs_help = "Usage: factor [NUMBER]...\n"
               "  or:  factor OPTION\n"
               "Print the prime factors of each specified integer NUMBER.  "
               "If none\n"
               "are specified on the command line, read them from standard "
               "input.\n"
               "\n"
               "      --help        display this help and exit\n"
               "      --version     output version information and exit\n",
};

/* ---- arithmetic modulo n < 2^128 ---- */

static u128
fa_addmod(u128 a, u128 b, u128 n)
{
    // a + b may pass 2^128: compare against what is left below n.
    return a >= n - b ? a - (n - b) : a + b;
}

/* a * b mod n: by 64-bit products when n is small, else by doubling. */
static u128
fa_mulmod(u128 a, u128 b, u128 n)
{
    if ((n >> 64) == 0)
        return (u128)((uint64_t)a) * (uint64_t)b % n;
    u128 r = 0;
    a %= n;
    for (; b != 0; b >>= 1) {
        if (b & 1)
            r = fa_addmod(r, a, n);
        a = fa_addmod(a, a, n);
    }
    return r;
}

static u128
fa_powmod(u128 b, u128 e, u128 n)
{
    u128 r = 1 % n;
    for (b %= n; e != 0; e >>= 1) {
        if (e & 1)
            r = fa_mulmod(r, b, n);
        b = fa_mulmod(b, b, n);
    }
    return r;
}

/* Miller-Rabin with the first prime bases: exact below 3.3e24, and no
 * composite of 128 bits is known to pass all of them. */
static bool
fa_prime(u128 n)
{
    static const unsigned bases[] = {2,  3,  5,  7,  11, 13, 17, 19, 23,
                                     29, 31, 37, 41, 43, 47, 53, 59, 61};
    if (n < 2)
        return false;
    for (size_t i = 0; i < sizeof bases / sizeof *bases; i++)
        if (n % bases[i] == 0)
            return n == bases[i];
    u128 d = n - 1;
    int s = 0;
    for (; (d & 1) == 0; s++)
        d >>= 1;
    for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
        u128 x = fa_powmod(bases[i], d, n);
        if (x == 1 || x == n - 1)
            continue;
        int k = 1;
        for (; k < s; k++) {
            x = fa_mulmod(x, x, n);
            if (x == n - 1)
                break;
        }
        if (k == s)
            return false;
    }
    return true;
}

static u128
fa_gcd(u128 a, u128 b)
{
    while (b != 0) {
        u128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A factor of the odd composite n (1 < f < n), by Brent's rho. */
static u128
fa_rho(sh_ctx *cx, u128 n)
{
    for (u128 c = 1;; c++) {
        u128 y = 2, x = 2, q = 1, g = 1, ys = 2;
        for (u128 r = 1; g == 1; r <<= 1) {
            x = y;
            for (u128 i = 0; i < r; i++)
                y = fa_addmod(fa_mulmod(y, y, n), c, n);
            for (u128 k = 0; k < r && g == 1; k += 128) {
                ys = y;
                for (u128 i = 0; i < 128 && i < r - k; i++) {
                    y = fa_addmod(fa_mulmod(y, y, n), c, n);
                    q = fa_mulmod(q, x > y ? x - y : y - x, n);
                }
                g = fa_gcd(q, n);
                if (sh_check_stop(cx))
                    return n;
            }
        }
        if (g == n) { // the batch overshot: step one at a time
            do {
                ys = fa_addmod(fa_mulmod(ys, ys, n), c, n);
                g = fa_gcd(x > ys ? x - ys : ys - x, n);
            } while (g == 1);
        }
        if (g != n)
            return g;
    }
}

/* The prime factors of n into f (unsorted), *nf counting them. */
static void
fa_split(sh_ctx *cx, u128 n, u128 *f, int *nf)
{
    if (n == 1 || *nf >= FACTOR_MAX)
        return;
    if (fa_prime(n)) {
        f[(*nf)++] = n;
        return;
    }
    u128 d = fa_rho(cx, n);
    if (d == n) // the call is over
        return;
    fa_split(cx, d, f, nf);
    fa_split(cx, n / d, f, nf);
}

static int
fa_cmp(const void *a, const void *b)
{
    u128 x = *(const u128 *)a, y = *(const u128 *)b;
    return x < y ? -1 : x > y;
}

static void
fa_sort(u128 *f, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && fa_cmp(&f[j - 1], &f[j]) > 0; j--) {
            u128 t = f[j];
            f[j] = f[j - 1];
            f[j - 1] = t;
        }
}

static box_err
fa_put(box_buf *b, u128 v)
{
    char d[48];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    return box_buf_append(b, d + i, sizeof d - i);
}

/* ---- one number ---- */

/* GNU's reading of a number: blanks, an optional '+', then digits to the
 * end. 0 with *v, 1 when it is no number, 2 when it passes 2^128-1. */
static int
fa_parse(const char *s, u128 *v)
{
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    s += *s == '+';
    if (*s == '\0')
        return 1;
    u128 x = 0;
    bool big = false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 1;
        unsigned d = (unsigned)(*s - '0');
        if (x > (~(u128)0 - d) / 10)
            big = true;
        else
            x = x * 10 + d;
    }
    *v = x;
    return big ? 2 : 0;
}

/*
 * GNU's factor buffers its lines and writes, once FACTOR_LBUF bytes are
 * held, the whole lines in the first FACTOR_LBUF; numbers from 2^127 up
 * take its GMP path, whose line goes out at once, ahead of what is held.
 * The same order here, so a pipe sees the same bytes.
 */
static bool
fa_flush(sh_cmd_run *r, box_buf *held, bool all)
{
    if (held->b_len == 0 || (!all && held->b_len < FACTOR_LBUF))
        return true;
    size_t cut = held->b_len;
    if (!all) {
        cut = FACTOR_LBUF;
        while (cut > 0 && held->b_data[cut - 1] != '\n')
            cut--;
        if (cut == 0)
            cut = held->b_len;
    }
    if (!sh_cmd_emit(r, held->b_data, cut))
        return false;
    memmove(held->b_data, held->b_data + cut, held->b_len - cut);
    box_buf_truncate(held, held->b_len - cut);
    return true;
}

/* A word past 2^128-1 (fa_parse said 2): its line goes out at once, as
 * GNU's GMP path writes it. False to stop. */
static bool
fa_word_big(sh_cmd_run *r, const char *w, box_buf *out)
{
    while (*w == ' ' || (*w >= '\t' && *w <= '\r'))
        w++;
    w += *w == '+';
    box_buf_truncate(out, 0);
    box_err e = cmd_factor_big(r->cr_cx, w, out);
    if (e == BOX_ECANCELED || !sh_cmd_live(r))
        return false;
    if (e != BOX_OK) {
        r->cr_status = sh_cmd_err(r->cr_cx, "factor", 1, "out of memory");
        return false;
    }
    return sh_cmd_emit(r, out->b_data, out->b_len);
}

/* Factors one word and writes its line; false to stop (status in *st). */
static bool
fa_word(sh_cmd_run *r, const char *w, box_buf *out, box_buf *held)
{
    u128 n, f[FACTOR_MAX];
    int nf = 0, p = fa_parse(w, &n);
    if (p == 2)
        return fa_word_big(r, w, out);
    if (p != 0) {
        char *q = sh_gquote(w);
        sh_cmd_err(r->cr_cx, "factor", 1, "%s is not a valid positive integer",
                   q != NULL ? q : w);
        box_free(q);
        r->cr_status = 1;
        return true;
    }
    // Trial division first: it finds the small factors fast.
    u128 m = n;
    for (unsigned d = 2; m > 1 && d < 1000 && nf < FACTOR_MAX;
         d += d == 2 ? 1 : 2) {
        while (m % d == 0 && nf < FACTOR_MAX) {
            f[nf++] = d;
            m /= d;
        }
    }
    if (m > 1)
        fa_split(r->cr_cx, m, f, &nf);
    if (!sh_cmd_live(r))
        return false;
    fa_sort(f, nf);
    bool direct = (n >> 127) != 0;
    if (!direct)
        out = held;
    else
        box_buf_truncate(out, 0);
    box_err e = fa_put(out, n);
    if (e == BOX_OK)
        e = box_buf_putc(out, ':');
    for (int i = 0; i < nf && e == BOX_OK; i++) {
        e = box_buf_putc(out, ' ');
        if (e == BOX_OK)
            e = fa_put(out, f[i]);
    }
    if (e == BOX_OK)
        e = box_buf_putc(out, '\n');
    if (e != BOX_OK) {
        r->cr_status = sh_cmd_err(r->cr_cx, "factor", 1, "out of memory");
        return false;
    }
    if (direct)
        return sh_cmd_emit(r, out->b_data, out->b_len);
    return fa_flush(r, held, false);
}

/* The words of standard input, split at white space. */
static void
fa_stdin(sh_cmd_run *r, box_buf *out, box_buf *held)
{
    int st = 0;
    sh_input *in = sh_input_open(r->cr_cx, "factor", NULL, &st);
    if (in == NULL) {
        r->cr_status = st;
        return;
    }
    box_buf word;
    box_buf_init(&word, FACTOR_WORD_MAX);
    char chunk[4096];
    bool go = true;
    while (go) {
        if (!sh_cmd_live(r))
            break;
        ssize_t n = sh_input_read(in, chunk, sizeof chunk);
        if (n < 0 && !sh_cmd_live(r))
            break;
        if (n < 0)
            r->cr_status = 1;
        for (ssize_t i = 0; go && i < (n > 0 ? n : 1); i++) {
            char c = n > 0 ? chunk[i] : ' ';
            if (c != ' ' && c != '\t' && c != '\n') {
                if (box_buf_putc(&word, c) != BOX_OK) {
                    r->cr_status =
                        sh_cmd_err(r->cr_cx, "factor", 1, "out of memory");
                    go = false;
                }
                continue;
            }
            if (word.b_len == 0)
                continue;
            if (box_buf_putc(&word, '\0') != BOX_OK) {
                r->cr_status =
                    sh_cmd_err(r->cr_cx, "factor", 1, "out of memory");
                go = false;
                break;
            }
            go = fa_word(r, word.b_data, out, held);
            box_buf_truncate(&word, 0);
        }
        if (n <= 0)
            break;
    }
    box_buf_reset(&word);
    sh_input_close(in);
}

int
sh_cmd_factor(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_cmd_run r = {.cr_cx = cx, .cr_cmd = "factor"};
    box_buf out, held;
    box_buf_init(&out, 4096);
    box_buf_init(&held, 64u * 1024u);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &factor_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        ;
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0)
        fa_stdin(&r, &out, &held);
    bool go = true;
    for (int i = 0; go && i < it.gi_nops; i++)
        go = fa_word(&r, it.gi_ops[i], &out, &held);
    if (go)
        fa_flush(&r, &held, true);
    st = r.cr_status;
out:
    box_buf_reset(&out);
    box_buf_reset(&held);
    sh_gopt_free(&it);
    return st;
}
