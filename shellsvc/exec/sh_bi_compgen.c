/* SPDX-License-Identifier: Apache-2.0 */
/* compgen [-abcdefgjksuv] [-o OPT] [-A ACTION] [-G GLOB] [-W WORDS]
 * [-X FILTER] [-P PREFIX] [-S SUFFIX] [WORD]: the words bash's completion
 * would offer, from what this shell knows. */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_bistate.h"
#include "sh_glob.h"
#include "sh_internal.h"

/* ORDER ACTION: the letters and names of bash's actions. */
enum cg_action {
    CG_ALIAS,
    CG_ARRAYVAR,
    CG_BINDING,
    CG_BUILTIN,
    CG_COMMAND,
    CG_DIRECTORY,
    CG_DISABLED,
    CG_ENABLED,
    CG_EXPORT,
    CG_FILE,
    CG_FUNCTION,
    CG_GROUP,
    CG_HELPTOPIC,
    CG_HOSTNAME,
    CG_JOB,
    CG_KEYWORD,
    CG_RUNNING,
    CG_SERVICE,
    CG_SETOPT,
    CG_SHOPT,
    CG_SIGNAL,
    CG_STOPPED,
    CG_USER,
    CG_VARIABLE,
    CG_COUNT
};

static const struct {
    const char *name;
    char letter; // 0: only -A names it
} cg_actions[CG_COUNT] = {
    [CG_ALIAS] = {"alias", 'a'},      [CG_ARRAYVAR] = {"arrayvar", 0},
    [CG_BINDING] = {"binding", 0},    [CG_BUILTIN] = {"builtin", 'b'},
    [CG_COMMAND] = {"command", 'c'},  [CG_DIRECTORY] = {"directory", 'd'},
    [CG_DISABLED] = {"disabled", 0},  [CG_ENABLED] = {"enabled", 0},
    [CG_EXPORT] = {"export", 'e'},    [CG_FILE] = {"file", 'f'},
    [CG_FUNCTION] = {"function", 0},  [CG_GROUP] = {"group", 'g'},
    [CG_HELPTOPIC] = {"helptopic", 0}, [CG_HOSTNAME] = {"hostname", 0},
    [CG_JOB] = {"job", 'j'},          [CG_KEYWORD] = {"keyword", 'k'},
    [CG_RUNNING] = {"running", 0},    [CG_SERVICE] = {"service", 's'},
    [CG_SETOPT] = {"setopt", 0},      [CG_SHOPT] = {"shopt", 0},
    [CG_SIGNAL] = {"signal", 0},      [CG_STOPPED] = {"stopped", 0},
    [CG_USER] = {"user", 'u'},        [CG_VARIABLE] = {"variable", 'v'},
};

typedef struct cg_run {
    sh_ctx *cg_cx;
    const char *cg_word; // the prefix every result has
    sh_argv cg_out;
    bool cg_oom;
} cg_run;

static void
cg_add(cg_run *g, const char *s)
{
    if (strncmp(s, g->cg_word, strlen(g->cg_word)) != 0)
        return;
    if (sh_argv_push(&g->cg_out, s, strlen(s), false) != BOX_OK)
        g->cg_oom = true;
}

static int
cg_strcmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names from the state in byte order (bash lists variables, functions
 * and aliases sorted). */
static void
cg_add_sorted(cg_run *g, const char **names, size_t n)
{
    qsort(names, n, sizeof *names, cg_strcmp);
    for (size_t i = 0; i < n; i++)
        cg_add(g, names[i]);
}

static void
cg_vars(cg_run *g, unsigned need)
{
    sh_calls_sync(g->cg_cx->cx_st); // FUNCNAME, BASH_LINENO as they are
    const sh_state *st = g->cg_cx->cx_st;
    const char **v = box_calloc(st->st_nvars + 1, sizeof *v);
    size_t n = 0;
    if (v == NULL) {
        g->cg_oom = true;
        return;
    }
    for (size_t i = 0; i < st->st_nvars; i++) {
        const sh_var *x = &st->st_vars[i];
        bool set = x->v_value != NULL || x->v_arr != NULL;
        if (set && (need == 0 || (x->v_flags & need) != 0))
            v[n++] = x->v_name;
    }
    cg_add_sorted(g, v, n);
    box_free(v);
}

static void
cg_funcs(cg_run *g)
{
    const sh_state *st = g->cg_cx->cx_st;
    const char **v = box_calloc(st->st_nfuncs + 1, sizeof *v);
    if (v == NULL) {
        g->cg_oom = true;
        return;
    }
    for (size_t i = 0; i < st->st_nfuncs; i++)
        v[i] = st->st_funcs[i].f_name;
    cg_add_sorted(g, v, st->st_nfuncs);
    box_free(v);
}

static void
cg_aliases(cg_run *g)
{
    const sh_bistate *bs = g->cg_cx->cx_bi;
    if (bs == NULL || bs->bs_nalias == 0)
        return;
    const char **v = box_calloc(bs->bs_nalias, sizeof *v);
    if (v == NULL) {
        g->cg_oom = true;
        return;
    }
    for (size_t i = 0; i < bs->bs_nalias; i++)
        v[i] = bs->bs_alias[i].al_name;
    cg_add_sorted(g, v, bs->bs_nalias);
    box_free(v);
}

/* The registry's rows in its (byte) order: builtins, or the commands
 * bash would find as programs, enabled or disabled ones. */
static void
cg_registry(cg_run *g, bool programs, bool disabled)
{
    const sh_state *st = g->cg_cx->cx_st;
    for (size_t i = 0; sh_cmd_at(i) != NULL; i++) {
        const sh_cmd *c = sh_cmd_at(i);
        bool off = sh_cmd_find(st, c->c_name) == NULL;
        if (((c->c_mode & SH_CMD_PROGRAM) != 0) == programs && off == disabled)
            cg_add(g, c->c_name);
    }
}

/* Files (or only directories) in the directory the word names, as
 * pathname expansion lists them. */
static int
cg_files(cg_run *g, bool dirs)
{
    char *pat = box_asprintf("%s*%s", g->cg_word, dirs ? "/" : "");
    sh_argv m;
    size_t n = 0;
    sh_argv_init(&m);
    if (pat == NULL) {
        g->cg_oom = true;
        return 1;
    }
    int rc = sh_glob_expand(g->cg_cx, pat, 0, false, &m, &n);
    for (int i = 0; rc == 0 && i < m.av_n; i++) {
        size_t l = strlen(m.av_v[i]);
        if (dirs && l > 1 && m.av_v[i][l - 1] == '/')
            m.av_v[i][l - 1] = '\0';
        cg_add(g, m.av_v[i]);
    }
    sh_argv_free(&m);
    box_free(pat);
    return rc;
}

static int
cg_action(cg_run *g, enum cg_action a)
{
    switch (a) {
    case CG_ALIAS: cg_aliases(g); break;
    case CG_ARRAYVAR: cg_vars(g, SH_VAR_ARRAY | SH_VAR_ASSOC); break;
    case CG_BUILTIN:
    case CG_ENABLED:
    case CG_HELPTOPIC: cg_registry(g, false, false); break;
    case CG_DISABLED: cg_registry(g, false, true); break;
    case CG_COMMAND:
        cg_aliases(g);
        cg_registry(g, false, false);
        cg_registry(g, true, false);
        cg_funcs(g);
        for (size_t i = 0; i < sh_nkeywords; i++)
            cg_add(g, sh_keywords[i]);
        break;
    case CG_DIRECTORY: return cg_files(g, true);
    case CG_FILE: return cg_files(g, false);
    case CG_EXPORT: cg_vars(g, SH_VAR_EXPORT); break;
    case CG_FUNCTION: cg_funcs(g); break;
    case CG_KEYWORD:
        for (size_t i = 0; i < sh_nkeywords; i++)
            cg_add(g, sh_keywords[i]);
        break;
    case CG_VARIABLE: cg_vars(g, 0); break;
    // Nothing to offer in a box call: no key bindings, no running jobs
    // to name, and the host's users, groups, hosts and services are
    // not the box's to list.
    default: break;
    }
    return 0;
}

/* -W's list: split on IFS outside quotes, then each word expanded as
 * bash expands it (quotes removed). */
static int
cg_words(cg_run *g, const char *list)
{
    const char *ifs = sh_var_get(g->cg_cx->cx_st, "IFS");
    if (ifs == NULL)
        ifs = SH_IFS_DEFAULT;
    for (const char *p = list; *p != '\0';) {
        if (strchr(ifs, *p) != NULL) {
            p++;
            continue;
        }
        const char *start = p;
        char q = 0;
        for (; *p != '\0' && (q != 0 || strchr(ifs, *p) == NULL); p++) {
            if (*p == '\\' && q != '\'' && p[1] != '\0')
                p++;
            else if (q == 0 && (*p == '\'' || *p == '"'))
                q = *p;
            else if (*p == q)
                q = 0;
        }
        char *e = NULL;
        size_t el = 0;
        int rc = sh_expand_word_text(g->cg_cx, "compgen", start,
                                     (size_t)(p - start), &e, &el);
        if (rc != 0)
            return rc;
        cg_add(g, e);
        box_free(e);
    }
    return 0;
}

/* -X: drops what matches (with a leading '!', what does not). */
static void
cg_filter(cg_run *g, const char *pat)
{
    bool keep_match = pat[0] == '!';
    if (keep_match)
        pat++;
    int k = 0;
    for (int i = 0; i < g->cg_out.av_n; i++) {
        bool m = sh_glob_match(pat, g->cg_out.av_v[i], 0);
        if (m == keep_match)
            g->cg_out.av_v[k++] = g->cg_out.av_v[i];
        else
            sh_argv_drop(&g->cg_out, g->cg_out.av_v[i]);
    }
    g->cg_out.av_n = k;
    g->cg_out.av_v[k] = NULL;
}

static int
cg_usage(sh_ctx *cx)
{
    sh_errf(cx, "compgen: usage: compgen [-abcdefgjksuv] [-o option] [-A "
                "action] [-G globpat] [-W wordlist] [-F function] [-C "
                "command] [-X filterpat] [-P prefix] [-S suffix] [word]");
    return 2;
}

int
sh_bi_compgen(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    cg_run g = {.cg_cx = cx, .cg_word = ""};
    bool act[CG_COUNT] = {false};
    const char *glob = NULL, *words = NULL, *filter = NULL;
    const char *prefix = "", *suffix = "";
    int i = 1, rc = 0;
    sh_argv_init(&g.cg_out);
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        for (const char *p = argv[i] + 1; *p != '\0'; p++) {
            const char **slot = NULL;
            enum cg_action a = CG_COUNT;
            for (int k = 0; k < CG_COUNT; k++)
                if (cg_actions[k].letter == *p)
                    a = (enum cg_action)k;
            if (a != CG_COUNT) {
                act[a] = true;
                continue;
            }
            const char *arg = NULL;
            if (strchr("oAGWXPSFC", *p) != NULL) {
                arg = p[1] != '\0' ? p + 1 : i + 1 < argc ? argv[++i] : NULL;
                if (arg == NULL) {
                    sh_errf(cx, "compgen: -%c: option requires an argument",
                            *p);
                    rc = cg_usage(cx);
                    goto out;
                }
            }
            switch (*p) {
            case 'A': {
                int k = 0;
                while (k < CG_COUNT && strcmp(cg_actions[k].name, arg) != 0)
                    k++;
                if (k == CG_COUNT) {
                    sh_errf(cx, "compgen: %s: invalid action name", arg);
                    rc = 2;
                    goto out;
                }
                act[k] = true;
                break;
            }
            case 'G': slot = &glob; break;
            case 'W': slot = &words; break;
            case 'X': slot = &filter; break;
            case 'P': slot = &prefix; break;
            case 'S': slot = &suffix; break;
            case 'o': break; // display options: nothing to display here
            case 'F':
            case 'C':
                sh_errf(cx, "compgen: -%c: not supported in this box: a "
                            "completion function or command has no "
                            "line being edited to complete",
                        *p);
                rc = 2;
                goto out;
            default:
                sh_errf(cx, "compgen: -%c: invalid option", *p);
                rc = cg_usage(cx);
                goto out;
            }
            if (slot != NULL)
                *slot = arg;
            if (arg != NULL) // it took the rest of the word, or the next
                break;
        }
    }
    if (i < argc)
        g.cg_word = argv[i];
    bool any = glob || words;
    for (int k = 0; k < CG_COUNT; k++)
        any = any || act[k];
    if (!any) // bash's default: file names
        act[CG_FILE] = true;
    for (int k = 0; k < CG_COUNT && rc == 0; k++)
        if (act[k])
            rc = cg_action(&g, (enum cg_action)k);
    if (rc == 0 && glob != NULL) {
        size_t n;
        rc = sh_glob_expand(cx, glob, 0, false, &g.cg_out, &n);
    }
    if (rc == 0 && words != NULL)
        rc = cg_words(&g, words);
    if (rc != 0)
        goto out;
    if (g.cg_oom) {
        sh_errf(cx, "compgen: out of memory");
        rc = 1;
        goto out;
    }
    if (filter != NULL)
        cg_filter(&g, filter);
    for (int k = 0; k < g.cg_out.av_n; k++) {
        if (sh_puts(cx, 1, prefix) != SH_IO_OK ||
            sh_puts(cx, 1, g.cg_out.av_v[k]) != SH_IO_OK ||
            sh_puts(cx, 1, suffix) != SH_IO_OK ||
            sh_puts(cx, 1, "\n") != SH_IO_OK) {
            rc = 1;
            goto out;
        }
    }
    rc = g.cg_out.av_n > 0 ? 0 : 1;
out:
    sh_argv_free(&g.cg_out);
    return rc;
}
