/* SPDX-License-Identifier: Apache-2.0 */
/*
 * times: the user and system CPU time of the shell and of its children,
 * as bash prints them. The shell is this call's worker process (its
 * builtins and commands run here); its children are the host programs
 * it started and waited for.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "sh_internal.h"

/* "XmY.ZZZs" */
static void
fmt_time(const struct timeval *tv, char *buf, size_t len)
{
    long ms = (long)tv->tv_usec / 1000;
    snprintf(buf, len, "%ldm%ld.%03lds", (long)tv->tv_sec / 60,
             (long)tv->tv_sec % 60, ms);
}

int
sh_bi_times(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)argc, (void)argv, (void)o; // bash ignores operands too
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) != 0 ||
        getrusage(RUSAGE_CHILDREN, &kids) != 0) {
        sh_errf(cx, "times: cannot read the CPU times");
        return 1;
    }
    char su[64], ss[64], cu[64], cs[64], out[300];
    fmt_time(&self.ru_utime, su, sizeof su);
    fmt_time(&self.ru_stime, ss, sizeof ss);
    fmt_time(&kids.ru_utime, cu, sizeof cu);
    fmt_time(&kids.ru_stime, cs, sizeof cs);
    snprintf(out, sizeof out, "%s %s\n%s %s\n", su, ss, cu, cs);
    return sh_puts(cx, 1, out) == SH_IO_OK ? 0 : 1;
}
