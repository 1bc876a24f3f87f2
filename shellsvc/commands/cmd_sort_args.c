/* SPDX-License-Identifier: Apache-2.0 */
/* sort's option arguments that GNU checks although they change nothing
 * here (-S, --parallel, --batch-size), -t's separator, and -R's key. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "cmd_sort.h"
#include "sh_gopt.h"
#include "sh_internal.h"

/* The digits of a count as xstrtoumax reads them (spaces, '+', digits):
 * its end, or NULL with none; a value past UINTMAX_MAX is *over. */
static const char *
sort_umax(const char *s, uintmax_t *v, bool *over)
{
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s == '+')
        s++;
    *v = 0;
    *over = false;
    if (*s < '0' || *s > '9')
        return NULL;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (*v > (UINTMAX_MAX - d) / 10)
            *over = true;
        else
            *v = *v * 10 + d;
    }
    return s;
}

/*
 * -S SIZE: checked as GNU checks it, then ignored (all is in memory).
 * A number is KiB unless a suffix says otherwise: b bytes, % of memory,
 * or a power of 1024 (k K m M g G t T P E Z Y; a suffix alone is one).
 */
int
sort_size_arg(sh_ctx *cx, const char *arg)
{
    static const char powers[] = "kKmMgGtTPEZY"; // ORDER: by power
    static const int shift[] = {10, 10, 20, 20, 30, 30, 40, 40, 50, 60, 70, 80};
    uintmax_t v;
    bool over;
    const char *end = sort_umax(arg, &v, &over);
    bool digits = end != NULL;
    if (end == NULL && arg[0] != '\0' && strchr(powers, arg[0]) != NULL) {
        end = arg;
        v = 1;
    }
    if (end == NULL)
        return sh_cmd_err(cx, "sort", SORT_FAIL, "invalid -S argument '%s'",
                          arg);
    const char *p = *end != '\0' ? strchr(powers, *end) : NULL;
    bool plain = digits && (*end == 'b' || *end == '%');
    if (*end != '\0' && (end[1] != '\0' || (p == NULL && !plain)))
        return sh_cmd_err(cx, "sort", SORT_FAIL,
                          "invalid suffix in -S argument '%s'", arg);
    if (*end == '%') {
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        double mem = (double)pages * (double)psize * (double)v / 100.0;
        over = over || mem >= (double)UINTMAX_MAX;
    } else if (*end != 'b') {
        int sh = p != NULL ? shift[p - powers] : 10;
        over = over || (v > 0 && (sh >= 64 || v > (UINTMAX_MAX >> sh)));
    }
    if (over)
        return sh_cmd_err(cx, "sort", SORT_FAIL, "-S argument '%s' too large",
                          arg);
    return 0;
}

/* --parallel=N and --batch-size=M: checked, then ignored. */
int
sort_count_arg(sh_ctx *cx, bool parallel, const char *arg)
{
    const char *name = parallel ? "parallel" : "batch-size";
    uintmax_t v;
    bool over;
    const char *end = sort_umax(arg, &v, &over);
    if (end == NULL || *end != '\0')
        return sh_cmd_err(cx, "sort", SORT_FAIL, "invalid --%s argument '%s'",
                          name, arg);
    if (parallel)
        return v == 0 && !over
                   ? sh_cmd_err(cx, "sort", SORT_FAIL,
                                "number in parallel must be nonzero")
                   : 0;
    char *q = sh_gquote(arg);
    int st = 0;
    if (!over && v < 2) {
        st = sh_cmd_err(cx, "sort", SORT_FAIL,
                        "invalid --batch-size argument %s", q ? q : arg);
        sh_cmd_err(cx, "sort", SORT_FAIL,
                   "minimum --batch-size argument is \xe2\x80\x98"
                   "2\xe2\x80\x99");
    } else {
        struct rlimit rl;
        uintmax_t max =
            getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                ? (uintmax_t)rl.rlim_cur - 3
                : UINTMAX_MAX;
        if (over || v > max) {
            st = sh_cmd_err(cx, "sort", SORT_FAIL,
                            "--batch-size argument %s too large", q ? q : arg);
            sh_cmd_err(cx, "sort", SORT_FAIL,
                       "maximum --batch-size argument with current rlimit "
                       "is %ju",
                       max);
        }
    }
    box_free(q);
    return st;
}

/* -t SEP: one byte, or "\0" for NUL. */
int
sort_tab_arg(sh_ctx *cx, const char *arg, int *tab)
{
    int t;
    if (arg[0] == '\0')
        return sh_cmd_err(cx, "sort", SORT_FAIL, "empty tab");
    if (arg[1] == '\0') {
        t = (unsigned char)arg[0];
    } else if (strcmp(arg, "\\0") == 0) {
        t = 0;
    } else {
        char *q = sh_gquote(arg);
        int st = sh_cmd_err(cx, "sort", SORT_FAIL, "multi-character tab %s",
                            q ? q : arg);
        box_free(q);
        return st;
    }
    if (*tab >= 0 && *tab != t)
        return sh_cmd_err(cx, "sort", SORT_FAIL, "incompatible tabs");
    *tab = t;
    return 0;
}

#define SORT_SEED_BYTES 16 // what GNU takes from --random-source

/*
 * -R's hash key: fresh for each run, or from --random-source=FILE (the
 * order still differs from GNU's, whose hash is MD5). FILE must hold
 * SORT_SEED_BYTES bytes, as GNU wants.
 */
int
sort_seed(sh_ctx *cx, const char *source, uint64_t *seed)
{
    if (source == NULL) {
        if (getrandom(seed, sizeof *seed, GRND_NONBLOCK) != sizeof *seed)
            *seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
        return 0;
    }
    int st;
    sh_input *in = sh_input_open(cx, "sort: open failed", source, &st);
    if (in == NULL)
        return st == BOX_STATUS_FAULT ? st : SORT_FAIL;
    sh_input_quiet(in);
    unsigned char key[SORT_SEED_BYTES];
    size_t have = 0;
    ssize_t n = 1;
    while (have < sizeof key &&
           (n = sh_input_read(in, key + have, sizeof key - have)) > 0)
        have += (size_t)n;
    char *q = sh_gquote(source);
    if (n < 0 && sh_check_stop(cx))
        st = cx->cx_status;
    else if (n < 0)
        st = sh_cmd_err(cx, "sort", SORT_FAIL, "%s: read error: %s",
                        q ? q : source, strerror(sh_input_errno(in)));
    else if (have < sizeof key)
        st = sh_cmd_err(cx, "sort", SORT_FAIL, "%s: end of file",
                        q ? q : source);
    box_free(q);
    sh_input_close(in);
    *seed = 0;
    for (size_t i = 0; i < have; i++)
        *seed = *seed * 131 + key[i];
    return st;
}
