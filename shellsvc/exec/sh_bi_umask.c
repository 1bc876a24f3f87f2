/* SPDX-License-Identifier: Apache-2.0 */
/* umask: the file-creation mask, printed and set in octal or symbolic form. */
#include <stdio.h>
#include <string.h>

#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * The mask is the context's (a subshell changes its own copy): the files
 * its redirections and commands create get 0666 (directories 0777) less
 * it, SH_UMASK_DEFAULT until a script sets one.
 */

/* u=rwx,g=rx,o=rx for mask m. */
static void
symbolic(unsigned m, char *buf, size_t len)
{
    unsigned perm = ~m & 0777u;
    char out[32];
    size_t k = 0;
    static const char who[] = "ugo";
    for (int i = 0; i < 3; i++) {
        unsigned bits = (perm >> (6 - 3 * i)) & 7u;
        out[k++] = who[i];
        out[k++] = '=';
        if (bits & 4u)
            out[k++] = 'r';
        if (bits & 2u)
            out[k++] = 'w';
        if (bits & 1u)
            out[k++] = 'x';
        if (i < 2)
            out[k++] = ',';
    }
    out[k] = '\0';
    snprintf(buf, len, "%s", out);
}

/* Applies a symbolic mode (bash's grammar: [ugoa]*[-+=][rwx]*, more
 * operators and clauses after commas) to mask *m. 0 or 1 after the
 * message. */
static int
parse_symbolic(sh_ctx *cx, const char *s, unsigned *m)
{
    unsigned perm = ~*m & 0777u;
    for (;;) {
        unsigned who = 0;
        for (; strchr("ugoa", *s) != NULL && *s; s++)
            who |= *s == 'u'   ? 0700u
                   : *s == 'g' ? 0070u
                   : *s == 'o' ? 0007u
                               : 0777u;
        if (who == 0)
            who = 0777u;
        if (*s != '+' && *s != '-' && *s != '=')
            return sh_cmd_err(cx, "umask", 1,
                              "`%c': invalid symbolic mode operator",
                              *s ? *s : ' ');
        while (*s == '+' || *s == '-' || *s == '=') {
            char op = *s++;
            unsigned bits = 0;
            for (; *s && *s != ',' && strchr("+-=", *s) == NULL; s++) {
                if (*s == 'r')
                    bits |= 0444u;
                else if (*s == 'w')
                    bits |= 0222u;
                else if (*s == 'x')
                    bits |= 0111u;
                else
                    return sh_cmd_err(cx, "umask", 1,
                                      "`%c': invalid symbolic mode character",
                                      *s);
            }
            bits &= who;
            if (op == '+')
                perm |= bits;
            else if (op == '-')
                perm &= ~bits;
            else
                perm = (perm & ~who) | bits;
        }
        if (*s == '\0')
            break;
        if (*s != ',')
            return sh_cmd_err(cx, "umask", 1,
                              "`%c': invalid symbolic mode operator", *s);
        s++;
    }
    *m = ~perm & 0777u;
    return 0;
}

int
sh_bi_umask(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool sym = sh_opt(o, 'S'), reusable = sh_opt(o, 'p');
    if (o->o_ind >= argc) {
        unsigned m = sh_umask_get(cx);
        char line[64], mode[32];
        if (sym)
            symbolic(m, mode, sizeof mode);
        else
            snprintf(mode, sizeof mode, "%04o", m);
        snprintf(line, sizeof line, "%s%s%s\n", reusable ? "umask " : "",
                 reusable && sym ? "-S " : "", mode);
        return sh_puts(cx, 1, line) == SH_IO_OK ? 0 : 1;
    }
    const char *arg = argv[o->o_ind];
    sh_bistate *bs = sh_bistate_get(cx);
    if (bs == NULL)
        return 1;
    unsigned m = bs->bs_umask;
    if (arg[0] >= '0' && arg[0] <= '9') {
        unsigned v = 0;
        for (const char *p = arg; *p; p++) {
            if (*p < '0' || *p > '7' ||
                (v = v * 8 + (unsigned)(*p - '0')) > 0777u)
                return sh_cmd_err(cx, "umask", 1,
                                  "%s: octal number out of range", arg);
        }
        m = v;
    } else if (parse_symbolic(cx, arg, &m) != 0) {
        return 1;
    }
    bs->bs_umask = m;
    bs->bs_umask_set = true;
    if (sym) { // bash prints the new mask with -S
        char mode[32];
        symbolic(m, mode, sizeof mode);
        if (sh_puts(cx, 1, mode) != SH_IO_OK ||
            sh_puts(cx, 1, "\n") != SH_IO_OK)
            return 1;
    }
    return 0;
}
