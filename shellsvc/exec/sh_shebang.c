/* SPDX-License-Identifier: Apache-2.0 */
/* `#!` scripts naming a shell: the stage rewritten to run them in-process
 * (spec §3.4), and bash's messages for a path nothing can run. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "box_status.h"
#include "sh_internal.h"

/*
 * Before admission a `/`-spelled word is probed (fs:read exec, in
 * sh_host_multicall) and, when it is an executable file, its first 256
 * bytes are read here (fs:read read_content): policy decides both, a
 * denial reads as "not a script".
 * A `#!` line naming a shell this interpreter stands for rewrites the
 * stage to `<shell> [<arg>] <script> ARGS…`, so the decision is about
 * the shell program (shell:exec) and then every command of the script
 * gets its own. Any other interpreter is left alone: the host decides.
 */

#define SH_SHEBANG_HEAD 256

static const char *const sh_shells[] = {"sh", "bash", "zsh", "dash", "lash"};

static bool
is_shell(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof sh_shells / sizeof sh_shells[0]; i++)
        if (strlen(sh_shells[i]) == n && memcmp(sh_shells[i], s, n) == 0)
            return true;
    return false;
}

/* The next blank-separated token of [*p, end): start and length. */
static size_t
token(const char **p, const char *end, const char **tok)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    const char *e = s;
    while (e < end && *e != ' ' && *e != '\t')
        e++;
    *tok = s;
    *p = e;
    return (size_t)(e - s);
}

/* The first 256 bytes of the file (n read), or -1 when this shell may
 * not read it; -2 with *st after a fault. */
static ssize_t
read_head(sh_ctx *cx, const char *word, char *head, int *st)
{
    sh_kernel *k = sh_kern(cx);
    const char *cwd = cx->cx_st->st_cwd;
    sh_kernel_result r = {0};
    sh_kernel_file *f = NULL;
    if (sh_kernel_open(k, cwd, word, O_RDONLY, 0, &f, &r) != 0) {
        if (r.kr_outcome == SH_KR_FAULT) {
            *st = sh_fs_fail(cx, NULL, word, &r);
            return -2;
        }
        sh_kernel_result_clear(&r);
        return -1;
    }
    sh_kernel_result_clear(&r);
    ssize_t n = 0;
    while (n < SH_SHEBANG_HEAD) {
        ssize_t got =
            sh_kernel_read(f, head + n, (size_t)(SH_SHEBANG_HEAD - n));
        if (got <= 0)
            break;
        n += got;
    }
    sh_kernel_close(f);
    return n;
}

int
sh_shebang(sh_ctx *cx, int argc, char *const *argv, const bool *exp,
           sh_argv *out)
{
    if (argc < 1 || strchr(argv[0], '/') == NULL)
        return 0;
    char head[SH_SHEBANG_HEAD];
    int st = 0;
    ssize_t n = read_head(cx, argv[0], head, &st);
    if (n == -2)
        return st;
    if (n < 2 || head[0] != '#' || head[1] != '!')
        return 0;
    const char *p = head + 2;
    const char *end = memchr(head, '\n', (size_t)n);
    if (end == NULL)
        end = head + n;
    const char *interp;
    size_t ilen = token(&p, end, &interp);
    const char *base = interp + ilen;
    while (base > interp && base[-1] != '/')
        base--;
    size_t blen = (size_t)(interp + ilen - base);
    if (blen == 3 && memcmp(base, "env", 3) == 0) // #!/usr/bin/env bash
        blen = token(&p, end, &base);
    if (!is_shell(base, blen))
        return 0;
    // The rest of the line is one argument, as the kernel passes it.
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *rend = end;
    while (rend > p &&
           (rend[-1] == ' ' || rend[-1] == '\t' || rend[-1] == '\r'))
        rend--;
    box_err e = sh_argv_push(out, base, blen, false);
    if (e == BOX_OK && rend > p)
        e = sh_argv_push(out, p, (size_t)(rend - p), false);
    for (int i = 0; i < argc && e == BOX_OK; i++)
        e = sh_argv_push(out, argv[i], strlen(argv[i]), exp ? exp[i] : false);
    if (e != BOX_OK) {
        sh_errf(cx, "out of memory");
        return 1;
    }
    return 0;
}

int
sh_shebang_missing(sh_ctx *cx, const char *word)
{
    sh_kernel_stat ks;
    sh_kernel_result r = {0};
    int err =
        sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, word, &ks, &r);
    if (r.kr_outcome == SH_KR_FAULT)
        return sh_fs_fail(cx, NULL, word, &r);
    sh_kernel_result_clear(&r);
    if (err != 0) { // spec §3.10: an unbound path spelling
        sh_errf(cx, "%s: command not found", word);
        return BOX_STATUS_NOT_FOUND;
    }
    if (S_ISREG(ks.ks_mode) && (ks.ks_mode & 0111)) {
        // An executable no host program may run here (spec §3.10).
        sh_errf(cx, "%s: command not found", word);
        return BOX_STATUS_NOT_FOUND;
    }
    sh_errf(cx, "%s: %s", word,
            S_ISDIR(ks.ks_mode) ? "Is a directory" : "Permission denied");
    return BOX_STATUS_CANNOT_RUN;
}
