/* SPDX-License-Identifier: Apache-2.0 */
/* getopts: one option of the positional parameters (or given words) per call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * As bash: OPTIND is the index of the next word; the place inside a word
 * of grouped options (-ab) is kept in the context, and forgotten when
 * OPTIND no longer holds the value getopts left there (a script resets
 * with OPTIND=1). OPTARG is unset unless the option found sets it. A
 * leading ':' in the option string is silent mode: no message, the
 * letter in OPTARG, and ':' for a missing argument. OPTERR=0 silences the
 * messages too.
 */

static bool
set_var(sh_ctx *cx, const char *name, const char *v)
{
    if (sh_var_set(cx->cx_st, name, v, strlen(v)) != BOX_OK) {
        sh_errf(cx, "out of memory");
        return false;
    }
    return true;
}

/* Leaves the call's result: name=c, OPTIND, OPTARG (NULL: unset). */
static int
finish(sh_ctx *cx, sh_bistate *bs, const char *name, char c, long optind,
       const char *optarg, int status)
{
    char ch[2] = {c, '\0'}, num[32];
    snprintf(num, sizeof num, "%ld", optind);
    bs->bs_optind = optind;
    if (optarg != NULL) {
        if (!set_var(cx, "OPTARG", optarg))
            return 1;
    } else {
        sh_var_unset(cx->cx_st, "OPTARG");
    }
    if (!set_var(cx, "OPTIND", num) || !set_var(cx, name, ch))
        return 1;
    return status;
}

int
sh_bi_getopts(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (argc < 3) {
        (void)sh_puts(cx, 2,
                      "getopts: usage: getopts optstring name [arg ...]\n");
        return 2;
    }
    const char *spec = argv[1], *name = argv[2];
    if (!sh_name_valid(name, strlen(name)))
        return sh_cmd_err(cx, "getopts", 1, "`%s': not a valid identifier",
                          name);
    sh_bistate *bs = sh_bistate_get(cx);
    if (bs == NULL)
        return 1;
    char *const *words = argc > 3 ? argv + 3 : cx->cx_st->st_pos;
    long nwords = argc > 3 ? argc - 3 : cx->cx_st->st_npos;
    const char *oi = sh_var_get(cx->cx_st, "OPTIND");
    char *end = NULL;
    long optind = oi != NULL ? strtol(oi, &end, 10) : 1;
    if (oi == NULL || end == oi || *end != '\0' || optind < 1)
        optind = 1;
    if (optind != bs->bs_optind)
        bs->bs_optchar = 0;
    // The words changed under a group half read (set --): start afresh.
    if (bs->bs_optchar > 0 &&
        (optind > nwords ||
         (size_t)bs->bs_optchar >= strlen(words[optind - 1])))
        bs->bs_optchar = 0;
    bool silent = spec[0] == ':';
    const char *opterr = sh_var_get(cx->cx_st, "OPTERR");
    bool quiet = silent || (opterr != NULL && strcmp(opterr, "0") == 0);

    if (bs->bs_optchar == 0) {
        if (optind > nwords)
            return finish(cx, bs, name, '?', optind, NULL, 1);
        const char *w = words[optind - 1];
        if (w[0] != '-' || w[1] == '\0')
            return finish(cx, bs, name, '?', optind, NULL, 1);
        if (strcmp(w, "--") == 0)
            return finish(cx, bs, name, '?', optind + 1, NULL, 1);
        bs->bs_optchar = 1;
    }
    const char *w = words[optind - 1];
    char c = w[bs->bs_optchar++];
    bool word_done = w[bs->bs_optchar] == '\0';
    const char *at = c != ':' ? strchr(spec + silent, c) : NULL;
    if (at == NULL) {
        if (word_done) {
            optind++;
            bs->bs_optchar = 0;
        }
        if (!quiet)
            sh_errf(cx, "illegal option -- %c", c);
        char ch[2] = {c, '\0'};
        return finish(cx, bs, name, '?', optind, silent ? ch : NULL, 0);
    }
    if (at[1] != ':') {
        if (word_done) {
            optind++;
            bs->bs_optchar = 0;
        }
        return finish(cx, bs, name, c, optind, NULL, 0);
    }
    const char *rest = w + bs->bs_optchar;
    bs->bs_optchar = 0;
    if (!word_done) // -cfoo
        return finish(cx, bs, name, c, optind + 1, rest, 0);
    if (optind < nwords)
        return finish(cx, bs, name, c, optind + 2, words[optind], 0);
    if (silent) {
        char ch[2] = {c, '\0'};
        return finish(cx, bs, name, ':', optind + 1, ch, 0);
    }
    if (!quiet)
        sh_errf(cx, "option requires an argument -- %c", c);
    return finish(cx, bs, name, '?', optind + 1, NULL, 0);
}
