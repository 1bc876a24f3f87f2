/* SPDX-License-Identifier: Apache-2.0 */
/* od's and hexdump's input: the operands as one stream, each decided by
 * policy when it is opened; their count syntax. */
#include <errno.h>
#include <string.h>

#include "cmd_dump.h"

void
dump_src_init(dump_src *s, sh_cmd_run *run, int nops, char **ops)
{
    *s = (dump_src){.ds_run = run, .ds_ops = ops, .ds_nops = nops};
}

/* Opens the next operand that opens. False at the end or to stop. */
static bool
dump_src_open(dump_src *s)
{
    while (s->ds_in == NULL) {
        int total = s->ds_nops > 0 ? s->ds_nops : 1;
        if (s->ds_next >= total) {
            s->ds_done = true;
            return false;
        }
        const char *op = s->ds_nops > 0 ? s->ds_ops[s->ds_next] : NULL;
        s->ds_next++;
        if (op != NULL && strcmp(op, "-") == 0)
            op = NULL;
        int st = 0;
        s->ds_in = sh_input_open(s->ds_run->cr_cx, s->ds_run->cr_cmd, op, &st);
        if (s->ds_in == NULL) {
            s->ds_failed++;
            s->ds_run->cr_status = st;
            if (st == BOX_STATUS_FAULT) { // the decision failed: stop
                s->ds_stop = true;
                return false;
            }
        }
    }
    return true;
}

ssize_t
dump_src_fill(dump_src *s, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n && !s->ds_done && !s->ds_stop) {
        if (!sh_cmd_live(s->ds_run)) {
            s->ds_stop = true;
            break;
        }
        if (!dump_src_open(s))
            break;
        ssize_t r = sh_input_read(s->ds_in, (char *)buf + got, n - got);
        if (r < 0 && !sh_cmd_live(s->ds_run)) {
            s->ds_stop = true;
            break;
        }
        if (r < 0)
            s->ds_run->cr_status = 1; // reported by the input
        if (r <= 0) {
            sh_input_close(s->ds_in);
            s->ds_in = NULL;
            continue;
        }
        got += (size_t)r;
    }
    return s->ds_stop ? -1 : (ssize_t)got;
}

bool
dump_src_skip(dump_src *s, uintmax_t n, uintmax_t *left)
{
    char chunk[8192];
    while (n > 0) {
        size_t want = n < sizeof chunk ? (size_t)n : sizeof chunk;
        ssize_t r = dump_src_fill(s, chunk, want);
        if (r < 0)
            return false;
        n -= (uintmax_t)r;
        if ((size_t)r < want)
            break;
    }
    *left = n;
    return true;
}

void
dump_src_close(dump_src *s)
{
    sh_input_close(s->ds_in);
    s->ds_in = NULL;
}

int
dump_count(const char *s, uintmax_t *out)
{
    const char *p = s;
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p[0] == '0') {
        base = 8;
    }
    uintmax_t v = 0;
    bool any = false, big = false;
    for (;; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (*p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (*p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            break;
        if (d >= base)
            break;
        any = true;
        if (v > (UINTMAX_MAX - d) / base)
            big = true;
        else
            v = v * base + d;
    }
    if (!any && base != 16)
        return 2;
    if (!any) // "0x" alone: the 0, then a bad suffix
        return 1;
    uintmax_t mul = 1;
    if (*p != '\0') {
        static const char pw[] = "KMGTPEZY";
        unsigned b = 1024;
        const char *k = NULL;
        if (p[0] == 'b' && p[1] == '\0') {
            mul = 512;
        } else if ((k = strchr(pw, p[0] == 'k'   ? 'K'
                                   : p[0] == 'm' ? 'M'
                                                 : p[0])) == NULL ||
                   p[0] == '\0') {
            return 1;
        } else {
            if (strcmp(p + 1, "B") == 0)
                b = 1000;
            else if (p[1] != '\0' && strcmp(p + 1, "iB") != 0)
                return 1;
            for (long i = 0; i <= k - pw; i++) {
                if (mul > UINTMAX_MAX / b)
                    return 3;
                mul *= b;
            }
        }
    }
    if (big || (v != 0 && mul > UINTMAX_MAX / v))
        return 3;
    *out = v * mul;
    return 0;
}
