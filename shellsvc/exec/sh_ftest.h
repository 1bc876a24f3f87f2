/* SPDX-License-Identifier: Apache-2.0 */
/* File tests shared by test / [ and [[ ]]: every probe through the kernel. */
#ifndef SH_FTEST_H
#define SH_FTEST_H

#include <stdbool.h>

#include "sh_internal.h"

/*
 * What a file test found (spec §3.6). A probe the policy denies, or one
 * that fails, reads as "absent": SH_FT_FALSE, never an error. FAULT: the
 * decision could not be made; the message is out and the call stops
 * (status 125, sh_fs_fail).
 */
typedef enum sh_ftest {
    SH_FT_FAULT = -1,
    SH_FT_FALSE,
    SH_FT_TRUE,
} sh_ftest;

/* Whether -op is a unary file test: e f d L h r w x s b c p S u g k G O
 * (test's set) and a (exists, as in [[ ]]). */
bool sh_ftest_is_unary(char op);
/* -op path; who names the command in a fault message. stat is fs:read
 * read_metadata, -L/-h an lstat, -x the fs:read exec probe. */
sh_ftest sh_ftest_unary(sh_ctx *cx, const char *who, char op,
                        const char *path);
/* l -nt r, l -ot r, l -ef r (op "-nt", "-ot", "-ef"); a missing file is
 * older than any that exists. */
sh_ftest sh_ftest_binary(sh_ctx *cx, const char *who, const char *l,
                         const char *op, const char *r);

#endif
