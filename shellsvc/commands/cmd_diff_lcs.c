/* SPDX-License-Identifier: Apache-2.0 */
/* Which lines of two files differ, chosen as GNU diff 3.8 chooses them:
 * its hunks are behaviour, so each step below follows what it does
 * (common ends kept out, lines without a match set aside, Myers' middle
 * snakes with the same tie-breaks, change groups slid the same way). */
#include <limits.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_diff.h"

/* The search over the lines kept after discarding (x: file 0, y: 1). */
typedef struct lcs {
    const int *xv, *yv;
    const long *xreal, *yreal; // body index of each kept line
    char *xchg, *ychg;         // body change flags
    long *fd, *bd;             // furthest x per diagonal, offset below
    long too_expensive;        // edit cost where a search gives up
    sh_ctx *stop;
    unsigned tick;
    bool stopped;
} lcs;

/* Where the search splits a part: a point on an optimal (or, past
 * too_expensive, a good) path, and whether each half must be minimal. */
typedef struct lcs_split {
    long xmid, ymid;
    bool lo_minimal, hi_minimal;
} lcs_split;

/* Past too_expensive: the forward diagonal reaching furthest (largest
 * x + y) and the backward one reaching furthest back; the better wins. */
static void
lcs_give_up(const lcs *s, long xoff, long xlim, long yoff, long ylim,
            long fmin, long fmax, long bmin, long bmax, lcs_split *p)
{
    long fxybest = -1, fxbest = 0;
    for (long d = fmax; d >= fmin; d -= 2) {
        long x = s->fd[d] < xlim ? s->fd[d] : xlim, y = x - d;
        if (ylim < y) {
            x = ylim + d;
            y = ylim;
        }
        if (fxybest < x + y) {
            fxybest = x + y;
            fxbest = x;
        }
    }
    long bxybest = LONG_MAX, bxbest = 0;
    for (long d = bmax; d >= bmin; d -= 2) {
        long x = s->bd[d] > xoff ? s->bd[d] : xoff, y = x - d;
        if (y < yoff) {
            x = yoff + d;
            y = yoff;
        }
        if (x + y < bxybest) {
            bxybest = x + y;
            bxbest = x;
        }
    }
    if ((xlim + ylim) - bxybest < fxybest - (xoff + yoff)) {
        *p = (lcs_split){fxbest, fxybest - fxbest, true, false};
    } else {
        *p = (lcs_split){bxbest, bxybest - bxbest, false, true};
    }
}

/*
 * The middle snake of x[xoff, xlim) against y[yoff, ylim): forward and
 * backward searches one edit at a time until they overlap (Myers 1986,
 * the diagonal order and tie-breaks as GNU's diag()).
 */
static void
lcs_diag(lcs *s, long xoff, long xlim, long yoff, long ylim, bool minimal,
         lcs_split *p)
{
    long *fd = s->fd, *bd = s->bd;
    const int *xv = s->xv, *yv = s->yv;
    long dmin = xoff - ylim, dmax = xlim - yoff;
    long fmid = xoff - yoff, bmid = xlim - ylim;
    long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
    bool odd = ((fmid - bmid) & 1) != 0;
    fd[fmid] = xoff;
    bd[bmid] = xlim;
    for (long c = 1;; c++) {
        if (fmin > dmin)
            fd[--fmin - 1] = -1;
        else
            fmin++;
        if (fmax < dmax)
            fd[++fmax + 1] = -1;
        else
            fmax--;
        for (long d = fmax; d >= fmin; d -= 2) {
            long tlo = fd[d - 1], thi = fd[d + 1];
            long x0 = tlo < thi ? thi : tlo + 1, x = x0, y = x0 - d;
            while (x < xlim && y < ylim && xv[x] == yv[y])
                x++, y++;
            fd[d] = x;
            if (odd && bmin <= d && d <= bmax && bd[d] <= x) {
                *p = (lcs_split){x, y, true, true};
                return;
            }
        }
        if (bmin > dmin)
            bd[--bmin - 1] = LONG_MAX;
        else
            bmin++;
        if (bmax < dmax)
            bd[++bmax + 1] = LONG_MAX;
        else
            bmax--;
        for (long d = bmax; d >= bmin; d -= 2) {
            long tlo = bd[d - 1], thi = bd[d + 1];
            long x0 = tlo < thi ? tlo : thi - 1, x = x0, y = x0 - d;
            while (xoff < x && yoff < y && xv[x - 1] == yv[y - 1])
                x--, y--;
            bd[d] = x;
            if (!odd && fmin <= d && d <= fmax && x <= fd[d]) {
                *p = (lcs_split){x, y, true, true};
                return;
            }
        }
        if (!minimal && c >= s->too_expensive) {
            lcs_give_up(s, xoff, xlim, yoff, ylim, fmin, fmax, bmin, bmax, p);
            return;
        }
    }
}

/* Marks the differences of x[xoff, xlim) and y[yoff, ylim): the common
 * ends slide off, then the middle snake splits the rest in two. */
static void
lcs_compare(lcs *s, long xoff, long xlim, long yoff, long ylim, bool minimal)
{
    if (s->stopped)
        return;
    if ((++s->tick & 1023) == 0 && s->stop != NULL && sh_check_stop(s->stop)) {
        s->stopped = true;
        return;
    }
    const int *xv = s->xv, *yv = s->yv;
    while (xoff < xlim && yoff < ylim && xv[xoff] == yv[yoff])
        xoff++, yoff++;
    while (xoff < xlim && yoff < ylim && xv[xlim - 1] == yv[ylim - 1])
        xlim--, ylim--;
    if (xoff == xlim) {
        while (yoff < ylim)
            s->ychg[s->yreal[yoff++]] = 1;
    } else if (yoff == ylim) {
        while (xoff < xlim)
            s->xchg[s->xreal[xoff++]] = 1;
    } else {
        lcs_split p;
        lcs_diag(s, xoff, xlim, yoff, ylim, minimal, &p);
        lcs_compare(s, xoff, p.xmid, yoff, p.ymid, p.lo_minimal);
        lcs_compare(s, p.xmid, xlim, p.ymid, ylim, p.hi_minimal);
    }
}

/*
 * GNU's discard of confusing lines for one file: a line with no match in
 * the other file is set aside (1); one with very many (over `many`) is
 * set aside only inside a run of set-aside lines (2 = provisional, then
 * resolved here). dis[n] in, resolved in place.
 */
static void
lcs_resolve(char *dis, long n)
{
    for (long i = 0; i < n; i++) {
        if (dis[i] == 2) {
            dis[i] = 0;
            continue;
        }
        if (dis[i] == 0)
            continue;
        long j, provisional = 0;
        for (j = i; j < n && dis[j] != 0; j++)
            if (dis[j] == 2)
                provisional++;
        while (j > i && dis[j - 1] == 2) {
            dis[--j] = 0;
            provisional--;
        }
        long length = j - i;
        if (provisional * 4 > length) {
            while (j > i)
                if (dis[--j] == 2)
                    dis[j] = 0;
        } else {
            long minimum = 1, tem = length >> 2, consec = 0;
            while (0 < (tem >>= 2))
                minimum <<= 1;
            minimum++;
            for (j = 0; j < length; j++) {
                if (dis[i + j] != 2)
                    consec = 0;
                else if (minimum == ++consec)
                    j -= consec; // back to the subrun's start: cancel it
                else if (minimum < consec)
                    dis[i + j] = 0;
            }
            consec = 0;
            for (j = 0; j < length; j++) {
                if (j >= 8 && dis[i + j] == 1)
                    break;
                if (dis[i + j] == 2) {
                    consec = 0;
                    dis[i + j] = 0;
                } else if (dis[i + j] == 0) {
                    consec = 0;
                } else if (++consec == 3) {
                    break;
                }
            }
            i += length - 1;
            consec = 0;
            for (j = 0; j < length; j++) {
                if (j >= 8 && dis[i - j] == 1)
                    break;
                if (dis[i - j] == 2) {
                    consec = 0;
                    dis[i - j] = 0;
                } else if (dis[i - j] == 0) {
                    consec = 0;
                } else if (++consec == 3) {
                    break;
                }
            }
        }
    }
}

/* First guess of dis[] for file f's n lines: counts[] of the other. */
static void
lcs_mark(const int *eq, long n, const long *counts, char *dis)
{
    long many = 5;
    for (long tem = n / 64; (tem >>= 2) > 0;)
        many *= 2;
    for (long i = 0; i < n; i++) {
        long m = counts[eq[i]];
        dis[i] = m == 0 ? 1 : m > many ? 2 : 0;
    }
}

/*
 * GNU's shift of change groups for one file: each group slides up while
 * the line before it equals its last line (merging with groups before),
 * then down as far as it goes, and finally back up to end where a group
 * of the other file ends, when it passed such a place.
 */
static void
lcs_shift(const int *eq, long n, char *chg, const char *other)
{
    long i = 0, j = 0;
    for (;;) {
        while (i < n && !chg[i]) {
            while (other[j++])
                continue;
            i++;
        }
        if (i == n)
            break;
        long start = i, runlength, corresponding;
        while (chg[++i])
            continue;
        while (other[j])
            j++;
        do {
            runlength = i - start;
            while (start > 0 && eq[start - 1] == eq[i - 1]) {
                chg[--start] = 1;
                chg[--i] = 0;
                while (chg[start - 1])
                    start--;
                while (other[--j])
                    continue;
            }
            corresponding = other[j - 1] ? i : n;
            while (i != n && eq[start] == eq[i]) {
                chg[start++] = 0;
                chg[i++] = 1;
                while (chg[i])
                    i++;
                while (other[++j])
                    corresponding = i;
            }
        } while (runlength != i - start);
        while (corresponding < i) {
            chg[--start] = 1;
            chg[--i] = 0;
            while (other[--j])
                continue;
        }
    }
}

/* Discards, searches and shifts over the bodies x[nx], y[ny] (classes
 * below ncls), writing xc/yc (each with two zero sentinels per side). */
static box_err
lcs_body(const int *x, long nx, const int *y, long ny, long ncls,
         bool minimal, char *xc, char *yc, sh_ctx *stop)
{
    box_err e = BOX_ENOMEM;
    long *cnt = box_calloc((size_t)ncls * 2 + 1, sizeof *cnt);
    char *dis = box_calloc((size_t)(nx + ny) + 1, 1);
    int *kv = box_alloc(((size_t)(nx + ny) + 1) * sizeof *kv);
    long *real = box_alloc(((size_t)(nx + ny) + 1) * sizeof *real);
    long *diags = box_alloc(((size_t)(nx + ny) + 3) * 2 * sizeof *diags);
    if (cnt == NULL || dis == NULL || kv == NULL || real == NULL ||
        diags == NULL)
        goto out;
    long *c0 = cnt, *c1 = cnt + ncls;
    for (long i = 0; i < nx; i++)
        c0[x[i]]++;
    for (long i = 0; i < ny; i++)
        c1[y[i]]++;
    lcs_mark(x, nx, c1, dis);
    lcs_mark(y, ny, c0, dis + nx);
    lcs_resolve(dis, nx);
    lcs_resolve(dis + nx, ny);
    long kx = 0, ky = 0;
    for (long i = 0; i < nx; i++) {
        if (dis[i] == 0) {
            kv[kx] = x[i];
            real[kx++] = i;
        } else {
            xc[i] = 1;
        }
    }
    for (long i = 0; i < ny; i++) {
        if (dis[nx + i] == 0) {
            kv[kx + ky] = y[i];
            real[kx + ky++] = i;
        } else {
            yc[i] = 1;
        }
    }
    long span = kx + ky + 3;
    lcs s = {.xv = kv,
             .yv = kv + kx,
             .xreal = real,
             .yreal = real + kx,
             .xchg = xc,
             .ychg = yc,
             .fd = diags + ky + 1,
             .bd = diags + span + ky + 1,
             .stop = stop};
    long te = 1;
    for (long dg = kx + ky + 3; dg != 0; dg >>= 2)
        te <<= 1;
    s.too_expensive = te > 4096 ? te : 4096;
    lcs_compare(&s, 0, kx, 0, ky, minimal);
    if (s.stopped) {
        e = BOX_ECANCELED;
        goto out;
    }
    lcs_shift(x, nx, xc, yc);
    lcs_shift(y, ny, yc, xc);
    e = BOX_OK;
out:
    box_free(cnt);
    box_free(dis);
    box_free(kv);
    box_free(real);
    box_free(diags);
    return e;
}

box_err
diff_compare(const int *eq0, size_t n0, const int *eq1, size_t n1,
             size_t horizon, bool minimal, char *chg0, char *chg1,
             sh_ctx *stop)
{
    memset(chg0, 0, n0);
    memset(chg1, 0, n1);
    size_t pre = 0, suf = 0;
    while (pre < n0 && pre < n1 && eq0[pre] == eq1[pre])
        pre++;
    pre -= pre < horizon ? pre : horizon;
    size_t room = (n0 < n1 ? n0 : n1) - pre;
    while (suf < room && eq0[n0 - 1 - suf] == eq1[n1 - 1 - suf])
        suf++;
    suf -= suf < horizon ? suf : horizon;
    long nx = (long)(n0 - pre - suf), ny = (long)(n1 - pre - suf);
    if (nx == 0 && ny == 0)
        return BOX_OK;
    long ncls = 0;
    for (long i = 0; i < nx; i++)
        ncls = eq0[pre + (size_t)i] >= ncls ? eq0[pre + (size_t)i] + 1 : ncls;
    for (long i = 0; i < ny; i++)
        ncls = eq1[pre + (size_t)i] >= ncls ? eq1[pre + (size_t)i] + 1 : ncls;
    // Flags with two zero sentinels each side: the shift reads past ends.
    char *xc = box_calloc((size_t)nx + 4, 1), *yc = box_calloc((size_t)ny + 4, 1);
    box_err e = BOX_ENOMEM;
    if (xc != NULL && yc != NULL)
        e = lcs_body(eq0 + pre, nx, eq1 + pre, ny, ncls, minimal, xc + 2,
                     yc + 2, stop);
    if (e == BOX_OK) {
        memcpy(chg0 + pre, xc + 2, (size_t)nx);
        memcpy(chg1 + pre, yc + 2, (size_t)ny);
    }
    box_free(xc);
    box_free(yc);
    return e;
}
