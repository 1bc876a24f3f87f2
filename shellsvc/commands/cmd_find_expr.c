/* SPDX-License-Identifier: Apache-2.0 */
/* find's expression parser: GNU findutils 4.9's grammar, predicates and
 * messages, building the tree cmd_find_eval.c judges entries with. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_find.h"
#include "sh_gopt.h"

/* What a predicate word is: the parser switches on these. */
typedef enum fnd_pid {
    P_OPT,    // an option with no argument: true where it stands
    P_DEPTH,  // -depth / -d
    P_FOLLOW, // -follow (as -L)
    P_MAXDEPTH,
    P_MINDEPTH,
    P_REGEXTYPE,
    P_TRUE,
    P_FALSE,
    P_NAME,
    P_INAME,
    P_PATH,
    P_IPATH,
    P_REGEX,
    P_IREGEX,
    P_TYPE,
    P_XTYPE,
    P_SIZE,
    P_MTIME,
    P_MMIN,
    P_NEWER,
    P_EMPTY,
    P_PERM,
    P_PRINT,
    P_PRINT0,
    P_PRINTF,
    P_DELETE,
    P_PRUNE,
    P_QUIT,
    P_EXEC,
    P_EXECDIR,
    P_ASK,   // -ok, -okdir: refused (no terminal)
    P_NOPE0, // known to GNU, not here: refused (no argument)
    P_NOPE1, // the same, one argument
} fnd_pid;

typedef struct fnd_pred {
    const char *p_name;
    fnd_pid p_id;
} fnd_pred;

static const fnd_pred preds[] = {
    {"-amin", P_NOPE1},
    {"-anewer", P_NOPE1},
    {"-atime", P_NOPE1},
    {"-cmin", P_NOPE1},
    {"-cnewer", P_NOPE1},
    {"-context", P_NOPE1},
    {"-ctime", P_NOPE1},
    {"-d", P_DEPTH},
    {"-daystart", P_NOPE0},
    {"-delete", P_DELETE},
    {"-depth", P_DEPTH},
    {"-empty", P_EMPTY},
    {"-exec", P_EXEC},
    {"-execdir", P_EXECDIR},
    {"-executable", P_NOPE0},
    {"-false", P_FALSE},
    {"-files0-from", P_NOPE1},
    {"-fls", P_NOPE1},
    {"-follow", P_FOLLOW},
    {"-fprint", P_NOPE1},
    {"-fprint0", P_NOPE1},
    {"-fprintf", P_NOPE1},
    {"-fstype", P_NOPE1},
    {"-gid", P_NOPE1},
    {"-group", P_NOPE1},
    {"-ignore_readdir_race", P_OPT},
    {"-ilname", P_NOPE1},
    {"-iname", P_INAME},
    {"-inum", P_NOPE1},
    {"-ipath", P_IPATH},
    {"-iregex", P_IREGEX},
    {"-iwholename", P_IPATH},
    {"-links", P_NOPE1},
    {"-lname", P_NOPE1},
    {"-ls", P_NOPE0},
    {"-maxdepth", P_MAXDEPTH},
    {"-mindepth", P_MINDEPTH},
    {"-mmin", P_MMIN},
    {"-mount", P_OPT},
    {"-mtime", P_MTIME},
    {"-name", P_NAME},
    {"-newer", P_NEWER},
    {"-nogroup", P_NOPE0},
    {"-noignore_readdir_race", P_OPT},
    {"-noleaf", P_OPT},
    {"-nouser", P_NOPE0},
    {"-nowarn", P_OPT},
    {"-ok", P_ASK},
    {"-okdir", P_ASK},
    {"-path", P_PATH},
    {"-perm", P_PERM},
    {"-print", P_PRINT},
    {"-print0", P_PRINT0},
    {"-printf", P_PRINTF},
    {"-prune", P_PRUNE},
    {"-quit", P_QUIT},
    {"-readable", P_NOPE0},
    {"-regex", P_REGEX},
    {"-regextype", P_REGEXTYPE},
    {"-samefile", P_NOPE1},
    {"-size", P_SIZE},
    {"-true", P_TRUE},
    {"-type", P_TYPE},
    {"-uid", P_NOPE1},
    {"-used", P_NOPE1},
    {"-user", P_NOPE1},
    {"-warn", P_OPT},
    {"-wholename", P_PATH},
    {"-writable", P_NOPE0},
    {"-xdev", P_OPT},
    {"-xtype", P_XTYPE},
};

/* The parser's cursor over the expression words. */
typedef struct fnd_parser {
    fnd_run *fp_f;
    int fp_argc;
    char **fp_argv;
    int fp_i;
    int fp_err;       // 1 once a message is out
    unsigned fp_nest; // enclosing ( and !
} fnd_parser;

static const fnd_pred *
pred_find(const char *w)
{
    for (size_t i = 0; i < sizeof preds / sizeof preds[0]; i++)
        if (strcmp(preds[i].p_name, w) == 0)
            return &preds[i];
    return NULL;
}

static fnd_node *
node_new(fnd_parser *p, fnd_kind k)
{
    fnd_run *f = p->fp_f;
    if (f->f_nnodes == f->f_capnodes) {
        size_t cap = f->f_capnodes ? f->f_capnodes * 2 : 16;
        fnd_node **v = box_realloc(f->f_nodes, cap * sizeof *v);
        if (v == NULL)
            goto oom;
        f->f_nodes = v;
        f->f_capnodes = cap;
    }
    fnd_node *n = box_calloc(1, sizeof *n);
    if (n == NULL)
        goto oom;
    n->n_kind = k;
    f->f_nodes[f->f_nnodes++] = n;
    return n;
oom:
    if (!p->fp_err)
        sh_cmd_err(f->f_cx, "find", 1, "memory exhausted");
    p->fp_err = 1;
    return NULL;
}

static fnd_node *
perr(fnd_parser *p, const char *fmt, const char *a)
{
    if (!p->fp_err)
        sh_cmd_err(p->fp_f->f_cx, "find", 1, fmt, a);
    p->fp_err = 1;
    return NULL;
}

/* A word GNU quotes with quote() (‘x’) in the message fmt. */
static fnd_node *
perr_q(fnd_parser *p, const char *fmt, const char *a)
{
    char *q = sh_gquote(a);
    perr(p, fmt, q ? q : a);
    box_free(q);
    return NULL;
}

static const char *
peek(fnd_parser *p)
{
    return p->fp_i < p->fp_argc ? p->fp_argv[p->fp_i] : NULL;
}

static bool
is(const char *w, const char *a, const char *b)
{
    return w != NULL && (strcmp(w, a) == 0 || (b && strcmp(w, b) == 0));
}

static bool
is_binary(const char *w)
{
    return is(w, "-a", "-and") || is(w, "-o", "-or") || is(w, ",", NULL);
}

/* [+-]DIGITS: the sign in *cmp, the number in *out. */
static bool
parse_num(const char *s, char *cmp, uintmax_t *out, const char **end)
{
    *cmp = 0;
    if (*s == '+' || *s == '-')
        *cmp = *s++;
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *e;
    *out = strtoumax(s, &e, 10);
    if (errno != 0)
        return false;
    *end = e;
    return true;
}

static fnd_node *
num_node(fnd_parser *p, fnd_kind k, const char *pred, const char *arg,
         uintmax_t unit)
{
    fnd_node *n = node_new(p, k);
    const char *end;
    if (n == NULL)
        return NULL;
    bool ok = parse_num(arg, &n->n_cmp, &n->n_num, &end);
    n->n_frac = 0;
    if (ok && *end == '.' && isdigit((unsigned char)end[1])) {
        // GNU takes a fraction: N.F (kept as a double beside N)
        char *e2;
        n->n_frac = strtod(end, &e2);
        end = e2;
    }
    if (!ok || *end != '\0') {
        if (!p->fp_err)
            sh_cmd_err(p->fp_f->f_cx, "find", 1,
                       "invalid argument `%s' to `%s'", arg, pred);
        p->fp_err = 1;
        return NULL;
    }
    n->n_unit = unit;
    return n;
}

static fnd_node *
size_node(fnd_parser *p, const char *arg)
{
    fnd_node *n = node_new(p, FK_SIZE);
    const char *end;
    if (n == NULL)
        return NULL;
    if (!parse_num(arg, &n->n_cmp, &n->n_num, &end)) {
        const char *t = arg + (*arg == '+' || *arg == '-');
        return perr(p, "invalid -size type `%s'", *t ? t : arg);
    }
    static const char units[] = "bcwkMG";
    static const uintmax_t mult[] = {512, 1, 2, 1024, 1048576, 1073741824};
    n->n_unit = 512;
    if (*end != '\0') {
        const char *u = strchr(units, *end);
        if (u == NULL)
            return perr(p, "invalid -size type `%s'", end);
        if (end[1] != '\0')
            return perr(p, "Invalid argument `%s' to -size", arg);
        n->n_unit = mult[u - units];
    }
    return n;
}

/* -type / -xtype: letters separated by commas. */
static fnd_node *
type_node(fnd_parser *p, fnd_kind k, const char *pred, const char *arg)
{
    static const char letters[] = "bcdpfls";
    fnd_node *n = node_new(p, k);
    if (n == NULL)
        return NULL;
    if (*arg == '\0') {
        if (!p->fp_err)
            sh_cmd_err(p->fp_f->f_cx, "find", 1,
                       "Arguments to %s should contain at least one letter",
                       pred);
        p->fp_err = 1;
        return NULL;
    }
    for (const char *s = arg; *s != '\0'; s++) {
        const char *l = strchr(letters, *s);
        if (l == NULL || *s == '\0') {
            if (!p->fp_err)
                sh_cmd_err(p->fp_f->f_cx, "find", 1,
                           "Unknown argument to %s: %c", pred, *s);
            p->fp_err = 1;
            return NULL;
        }
        unsigned bit = 1u << (l - letters);
        if (n->n_types & bit) {
            if (!p->fp_err)
                sh_cmd_err(p->fp_f->f_cx, "find", 1,
                           "Duplicate file type '%c' in the argument list to "
                           "%s.",
                           *s, pred);
            p->fp_err = 1;
            return NULL;
        }
        n->n_types |= bit;
        if (s[1] != '\0' && s[1] != ',')
            return perr(p, "Must separate multiple arguments to %s using: ','",
                        pred);
        if (s[1] == ',') {
            s++;
            if (s[1] == '\0')
                return perr(p,
                            "Last file type in list argument to %s is "
                            "missing, i.e., list is ending on: ','",
                            pred);
        }
    }
    return n;
}

/* A symbolic mode as chmod reads it, applied to 0: [ugoa]*[-+=][rwxXst]*
 * clauses separated by commas. False when it is not one. */
static bool
perm_symbolic(const char *s, mode_t *out)
{
    mode_t m = 0;
    for (;;) {
        mode_t who = 0;
        for (; strchr("ugoa", *s) && *s; s++)
            who |= *s == 'u'   ? 04700
                   : *s == 'g' ? 02070
                   : *s == 'o' ? 01007
                               : 07777;
        bool any = who == 0;
        if (any)
            who = 07777;
        if (*s != '+' && *s != '-' && *s != '=')
            return false;
        while (*s == '+' || *s == '-' || *s == '=') {
            char op = *s++;
            mode_t bits = 0;
            for (; *s && strchr("rwxXst", *s); s++) {
                switch (*s) {
                case 'r':
                    bits |= 0444;
                    break;
                case 'w':
                    bits |= 0222;
                    break;
                case 'x':
                case 'X':
                    bits |= 0111;
                    break;
                case 's':
                    bits |= 06000;
                    break;
                case 't':
                    bits |= 01000;
                    break;
                }
            }
            bits &= who;
            if (op == '+')
                m |= bits;
            else if (op == '-')
                m &= ~bits;
            else
                m = (m & ~who) | bits;
        }
        if (*s == '\0')
            break;
        if (*s != ',')
            return false;
        s++;
    }
    *out = m;
    return true;
}

static fnd_node *
perm_node(fnd_parser *p, const char *arg)
{
    fnd_node *n = node_new(p, FK_PERM);
    if (n == NULL)
        return NULL;
    const char *s = arg;
    if (*s == '-' || *s == '/' || *s == '+') {
        n->n_permhow = *s == '+' ? '/' : *s;
        s++;
    }
    if (*s >= '0' && *s <= '7') {
        char *e;
        unsigned long v = strtoul(s, &e, 8);
        if (*e != '\0' || v > 07777)
            return perr_q(p, "invalid mode %s", arg);
        n->n_mode = (mode_t)v;
    } else if (!perm_symbolic(s, &n->n_mode)) {
        return perr_q(p, "invalid mode %s", arg);
    }
    if (n->n_permhow == '/' && n->n_mode == 0)
        sh_errf(p->fp_f->f_cx,
                "find: warning: you have specified a mode pattern %s (which "
                "is equivalent to /000). The meaning of -perm /000 has now "
                "been changed to be consistent with -perm -000; that is, "
                "while it used to match no files, it now matches all files.",
                arg);
    return n;
}

/* GNU's default (emacs) syntax in POSIX ERE: \( \) \| are the operators,
 * ( ) | { } are literal; \w \W word classes; brackets as they are. */
static char *
emacs_to_ere(const char *re)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    box_err e = box_buf_puts(&b, "^(");
    for (const char *s = re; *s && e == BOX_OK; s++) {
        if (*s == '[') {
            const char *q = s + 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']') {
                if (q[0] == '[' &&
                    (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
                    const char *c = strchr(q + 2, q[1]);
                    q = c && c[1] == ']' ? c + 2 : q + 1;
                } else {
                    q++;
                }
            }
            if (*q == ']') {
                e = box_buf_append(&b, s, (size_t)(q - s) + 1);
                s = q;
                continue;
            }
            e = box_buf_puts(&b, "\\[");
        } else if (*s == '\\' && s[1] != '\0') {
            s++;
            switch (*s) {
            case '(':
                e = box_buf_putc(&b, '(');
                break;
            case ')':
                e = box_buf_putc(&b, ')');
                break;
            case '|':
                e = box_buf_putc(&b, '|');
                break;
            case 'w':
                e = box_buf_puts(&b, "[[:alnum:]_]");
                break;
            case 'W':
                e = box_buf_puts(&b, "[^[:alnum:]_]");
                break;
            case '`':
                e = box_buf_putc(&b, '^');
                break;
            case '\'':
                e = box_buf_putc(&b, '$');
                break;
            default:
                e = box_buf_putc(&b, '\\');
                if (e == BOX_OK)
                    e = box_buf_putc(&b, *s);
            }
        } else if (strchr("(){}|", *s)) {
            e = box_buf_putc(&b, '\\');
            if (e == BOX_OK)
                e = box_buf_putc(&b, *s);
        } else {
            e = box_buf_putc(&b, *s);
        }
    }
    if (e == BOX_OK)
        e = box_buf_puts(&b, ")$");
    if (e != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

static fnd_node *
regex_node(fnd_parser *p, const char *arg, bool icase)
{
    fnd_node *n = node_new(p, FK_REGEX);
    if (n == NULL)
        return NULL;
    int rt = p->fp_f->f_regextype;
    char *pat = rt == FND_RE_EMACS ? emacs_to_ere(arg)
                : rt == FND_RE_ERE ? box_asprintf("^(%s)$", arg)
                                   : box_asprintf("^\\(%s\\)$", arg);
    if (pat == NULL)
        return perr(p, "%s", "memory exhausted");
    int flags = (rt == FND_RE_BRE ? 0 : REG_EXTENDED) | REG_NOSUB |
                (icase ? REG_ICASE : 0);
    int rc = regcomp(&n->n_re, pat, flags);
    box_free(pat);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &n->n_re, msg, sizeof msg);
        return perr(p, "%s", msg);
    }
    n->n_re_ok = true;
    return n;
}

static const char *const regextypes[] = {
    "findutils-default",
    "ed",
    "emacs",
    "gnu-awk",
    "grep",
    "posix-awk",
    "awk",
    "posix-basic",
    "posix-egrep",
    "egrep",
    "posix-extended",
    "posix-minimal-basic",
    "sed",
    NULL,
};
static const int regextype_vals[] = {
    FND_RE_EMACS, FND_RE_BRE, FND_RE_EMACS, FND_RE_ERE, FND_RE_BRE,
    FND_RE_ERE,   FND_RE_ERE, FND_RE_BRE,   FND_RE_ERE, FND_RE_ERE,
    FND_RE_ERE,   FND_RE_BRE, FND_RE_BRE,
};

static fnd_node *
regextype_opt(fnd_parser *p, const char *arg)
{
    for (int i = 0; regextypes[i]; i++)
        if (strcmp(regextypes[i], arg) == 0) {
            p->fp_f->f_regextype = regextype_vals[i];
            return node_new(p, FK_TRUE);
        }
    char *q = sh_gquote(arg);
    if (!p->fp_err)
        sh_cmd_err(p->fp_f->f_cx, "find", 1,
                   "Unknown regular expression type %s; valid types are "
                   "‘findutils-default’, ‘ed’, ‘emacs’, ‘gnu-awk’, ‘grep’, "
                   "‘posix-awk’, ‘awk’, ‘posix-basic’, ‘posix-egrep’, "
                   "‘egrep’, ‘posix-extended’, ‘posix-minimal-basic’, ‘sed’.",
                   q ? q : arg);
    box_free(q);
    p->fp_err = 1;
    return NULL;
}

static fnd_node *
depth_opt(fnd_parser *p, const char *pred, const char *arg, long *out)
{
    char *e;
    errno = 0;
    long v = isdigit((unsigned char)arg[0]) ? strtol(arg, &e, 10) : -1;
    if (v < 0 || errno != 0 || *e != '\0') {
        char *q = sh_gquote(arg);
        if (!p->fp_err)
            sh_cmd_err(p->fp_f->f_cx, "find", 1,
                       "Expected a positive decimal integer argument to %s, "
                       "but got %s",
                       pred, q ? q : arg);
        box_free(q);
        p->fp_err = 1;
        return NULL;
    }
    *out = v;
    return node_new(p, FK_TRUE);
}

static fnd_node *
newer_node(fnd_parser *p, const char *arg)
{
    fnd_run *f = p->fp_f;
    sh_ctx *cx = f->f_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    if (sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, arg, &st, &r) !=
        0) {
        if (!p->fp_err)
            fnd_fail(f, arg, &r);
        sh_kernel_result_clear(&r);
        p->fp_err = 1;
        return NULL;
    }
    sh_kernel_result_clear(&r);
    fnd_node *n = node_new(p, FK_NEWER);
    if (n != NULL)
        n->n_time = st.ks_mtime;
    return n;
}

/* -exec CMD ARGS… ; or -exec CMD ARGS… {} + */
static fnd_node *
exec_node(fnd_parser *p, const char *pred, bool dir)
{
    int start = p->fp_i, end = -1;
    bool plus = false;
    for (int j = start; j < p->fp_argc; j++) {
        const char *w = p->fp_argv[j];
        if (strcmp(w, ";") == 0) {
            end = j;
            break;
        }
        if (strcmp(w, "+") == 0 && j > start &&
            strcmp(p->fp_argv[j - 1], "{}") == 0) {
            end = j;
            plus = true;
            break;
        }
    }
    if (end < 0 || end == start)
        return perr(p, "missing argument to `%s'", pred);
    if (plus) {
        int braces = 0;
        for (int j = start; j < end; j++)
            braces += strstr(p->fp_argv[j], "{}") != NULL;
        if (braces > 1)
            return perr(p,
                        "Only one instance of {} is supported with %s ... "
                        "+",
                        pred);
    }
    fnd_node *n = node_new(p, FK_EXEC);
    fnd_exec *x = n ? box_calloc(1, sizeof *x) : NULL;
    if (x == NULL)
        return n ? perr(p, "%s", "memory exhausted") : NULL;
    n->n_exec = x;
    x->x_argv = p->fp_argv + start;
    x->x_argc = (plus ? end - 1 : end) - start;
    x->x_plus = plus;
    x->x_dir = dir;
    sh_argv_init(&x->x_batch);
    p->fp_i = end + 1;
    p->fp_f->f_has_action = true;
    return n;
}

/* primary -> PREDICATE [ARG…] */
static fnd_node *
parse_primary(fnd_parser *p)
{
    fnd_run *f = p->fp_f;
    const char *w = p->fp_argv[p->fp_i];
    const fnd_pred *pr = pred_find(w);
    if (pr == NULL) {
        if (w[0] == '-')
            return perr(p, "unknown predicate `%s'", w);
        perr(p, "paths must precede expression: `%s'", w);
        // GNU's hint when the word names a file: a pattern the shell
        // expanded (one read_metadata probe).
        const char *prev = p->fp_i >= 2 ? p->fp_argv[p->fp_i - 2] : NULL;
        sh_kernel_result r = {0};
        sh_kernel_stat st;
        if (prev &&
            (is(prev, "-name", "-iname") || is(prev, "-path", "-ipath") ||
             is(prev, "-wholename", "-iwholename")) &&
            sh_kernel_lstat(sh_kern(f->f_cx), f->f_cx->cx_st->st_cwd, w, &st,
                            &r) == 0)
            sh_cmd_err(f->f_cx, "find", 1,
                       "possible unquoted pattern after predicate `%s'?", prev);
        sh_kernel_result_clear(&r);
        return NULL;
    }
    p->fp_i++;
    const char *arg = NULL;
    bool takes =
        pr->p_id >= P_MAXDEPTH && pr->p_id != P_TRUE && pr->p_id != P_FALSE &&
        pr->p_id != P_EMPTY && pr->p_id != P_PRINT && pr->p_id != P_PRINT0 &&
        pr->p_id != P_DELETE && pr->p_id != P_PRUNE && pr->p_id != P_QUIT &&
        pr->p_id != P_EXEC && pr->p_id != P_EXECDIR && pr->p_id != P_ASK &&
        pr->p_id != P_NOPE0;
    if (takes) {
        if ((arg = peek(p)) == NULL)
            return perr(p, "missing argument to `%s'", w);
        p->fp_i++;
    }
    fnd_node *n = NULL;
    switch (pr->p_id) {
    case P_OPT:
        return node_new(p, FK_TRUE);
    case P_DEPTH:
        f->f_depth = f->f_depth_given = true;
        return node_new(p, FK_TRUE);
    case P_FOLLOW:
        f->f_follow = FND_L;
        return node_new(p, FK_TRUE);
    case P_MAXDEPTH:
        return depth_opt(p, w, arg, &f->f_maxdepth);
    case P_MINDEPTH:
        return depth_opt(p, w, arg, &f->f_mindepth);
    case P_REGEXTYPE:
        return regextype_opt(p, arg);
    case P_TRUE:
        return node_new(p, FK_TRUE);
    case P_FALSE:
        return node_new(p, FK_FALSE);
    case P_NAME:
    case P_INAME:
    case P_PATH:
    case P_IPATH:
        n = node_new(p, pr->p_id <= P_INAME ? FK_NAME : FK_PATH);
        if (n != NULL) {
            n->n_arg = arg;
            n->n_icase = pr->p_id == P_INAME || pr->p_id == P_IPATH;
        }
        return n;
    case P_REGEX:
        return regex_node(p, arg, false);
    case P_IREGEX:
        return regex_node(p, arg, true);
    case P_TYPE:
        return type_node(p, FK_TYPE, w, arg);
    case P_XTYPE:
        return type_node(p, FK_XTYPE, w, arg);
    case P_SIZE:
        return size_node(p, arg);
    case P_MTIME:
        return num_node(p, FK_MTIME, w, arg, 86400);
    case P_MMIN:
        return num_node(p, FK_MTIME, w, arg, 60);
    case P_NEWER:
        return newer_node(p, arg);
    case P_EMPTY:
        return node_new(p, FK_EMPTY);
    case P_PERM:
        return perm_node(p, arg);
    case P_PRINT:
    case P_PRINT0:
        f->f_has_action = true;
        n = node_new(p, FK_PRINT);
        if (n != NULL)
            n->n_icase = pr->p_id == P_PRINT0;
        return n;
    case P_PRINTF:
        f->f_has_action = true;
        if ((p->fp_err = fnd_printf_check(f, arg)) != 0)
            return NULL;
        n = node_new(p, FK_PRINTF);
        if (n != NULL)
            n->n_arg = arg;
        return n;
    case P_DELETE:
        f->f_has_action = f->f_has_delete = true;
        f->f_depth = true;
        return node_new(p, FK_DELETE);
    case P_PRUNE:
        f->f_has_prune = true;
        return node_new(p, FK_PRUNE);
    case P_QUIT:
        return node_new(p, FK_QUIT);
    case P_EXEC:
        return exec_node(p, w, false);
    case P_EXECDIR:
        return exec_node(p, w, true);
    case P_ASK:
        return perr(p,
                    "%s: refused: this box has no terminal to ask on; use "
                    "-exec",
                    w);
    case P_NOPE0:
    case P_NOPE1:
        return perr(p, "%s: not supported by this box's find", w);
    }
    return NULL;
}

static fnd_node *parse_expr(fnd_parser *p);

/* unary -> ( '!' | '-not' ) unary | '(' expr ')' | primary */
static fnd_node *
parse_unary(fnd_parser *p)
{
    const char *w = peek(p);
    if (w == NULL)
        return NULL;
    if ((is(w, "!", "-not") || is(w, "(", NULL)) && p->fp_nest >= FND_MAX_NEST)
        return perr(p, "%s", "invalid expression; nested too deeply");
    if (is(w, "!", "-not")) {
        p->fp_i++;
        const char *nx = peek(p);
        if (nx == NULL || is(nx, ")", NULL))
            return perr(p, "expected an expression after '%s'", w);
        if (is_binary(nx))
            return perr(p,
                        "invalid expression; you have used a binary "
                        "operator '%s' with nothing before it.",
                        nx);
        p->fp_nest++;
        fnd_node *c = parse_unary(p);
        p->fp_nest--;
        fnd_node *n = c ? node_new(p, FK_NOT) : NULL;
        if (n != NULL)
            n->n_l = c;
        return n;
    }
    if (is(w, "(", NULL)) {
        p->fp_i++;
        if (is(peek(p), ")", NULL))
            return perr(p, "%s",
                        "invalid expression; empty parentheses are "
                        "not allowed.");
        p->fp_nest++;
        fnd_node *e = parse_expr(p);
        p->fp_nest--;
        if (e == NULL)
            return NULL;
        if (!is(peek(p), ")", NULL))
            return perr(p, "%s",
                        "invalid expression; I was expecting to find "
                        "a ')' somewhere but did not see one.");
        p->fp_i++;
        return e;
    }
    if (is(w, ")", NULL))
        return perr(p, "%s", "you have too many ')'");
    if (is_binary(w))
        return perr(p,
                    "invalid expression; you have used a binary operator "
                    "'%s' with nothing before it.",
                    w);
    return parse_primary(p);
}

/* Adds r to the chain l of kind k (l becomes one when it is not). */
static fnd_node *
binary(fnd_parser *p, fnd_kind k, fnd_node *l, fnd_node *r)
{
    fnd_node *n = l;
    if (l->n_kind != k || l->n_kids == NULL) {
        if ((n = node_new(p, k)) == NULL)
            return NULL;
        n->n_kids = box_calloc(2, sizeof *n->n_kids);
        if (n->n_kids == NULL)
            return perr(p, "%s", "memory exhausted");
        n->n_kids[n->n_nkids++] = l;
    } else if ((n->n_nkids & (n->n_nkids - 1)) == 0) { // a power of two
        fnd_node **v = box_realloc(n->n_kids, 2 * n->n_nkids * sizeof *v);
        if (v == NULL)
            return perr(p, "%s", "memory exhausted");
        n->n_kids = v;
    }
    n->n_kids[n->n_nkids++] = r;
    return n;
}

/* After a binary operator an operand must follow: false after the
 * message when it does not. */
static bool
operand_follows(fnd_parser *p)
{
    const char *w = peek(p);
    if (w == NULL || is(w, ")", NULL)) {
        perr(p, "%s", "invalid expression");
        return false;
    }
    if (is_binary(w)) {
        perr(p,
             "invalid expression; you have used a binary operator '%s' "
             "with nothing before it.",
             w);
        return false;
    }
    return true;
}

/* and -> unary { [ '-a' | '-and' ] unary } */
static fnd_node *
parse_and(fnd_parser *p)
{
    fnd_node *l = parse_unary(p);
    while (l != NULL) {
        const char *w = peek(p);
        if (w == NULL || is(w, "-o", "-or") || is(w, ",", NULL) ||
            is(w, ")", NULL))
            break;
        if (is(w, "-a", "-and")) {
            p->fp_i++;
            if (!operand_follows(p))
                return NULL;
        }
        fnd_node *r = parse_unary(p);
        l = r ? binary(p, FK_AND, l, r) : NULL;
    }
    return l;
}

/* or -> and { ( '-o' | '-or' ) and } */
static fnd_node *
parse_or(fnd_parser *p)
{
    fnd_node *l = parse_and(p);
    while (l != NULL && is(peek(p), "-o", "-or")) {
        p->fp_i++;
        fnd_node *r = operand_follows(p) ? parse_and(p) : NULL;
        l = r ? binary(p, FK_OR, l, r) : NULL;
    }
    return l;
}

/* expr -> or { ',' or } */
static fnd_node *
parse_expr(fnd_parser *p)
{
    fnd_node *l = parse_or(p);
    while (l != NULL && is(peek(p), ",", NULL)) {
        p->fp_i++;
        fnd_node *r = operand_follows(p) ? parse_or(p) : NULL;
        l = r ? binary(p, FK_COMMA, l, r) : NULL;
    }
    return l;
}

int
fnd_parse(fnd_run *f, int argc, char **argv, int i)
{
    fnd_parser p = {.fp_f = f, .fp_argc = argc, .fp_argv = argv, .fp_i = i};
    fnd_node *root = NULL;
    if (i < argc) {
        root = parse_expr(&p);
        if (root != NULL && p.fp_i < argc)
            root = perr(&p, "%s", "you have too many ')'");
        if (root == NULL)
            return 1;
    }
    if (f->f_has_delete && f->f_has_prune && !f->f_depth_given)
        return sh_cmd_err(f->f_cx, "find", 1,
                          "The -delete action automatically turns on -depth, "
                          "but -prune does nothing when -depth is in effect.  "
                          "If you want to carry on anyway, just explicitly "
                          "use the -depth option.");
    if (!f->f_has_action) {
        fnd_node *pr = node_new(&p, FK_PRINT);
        if (pr == NULL)
            return 1;
        root = root ? binary(&p, FK_AND, root, pr) : pr;
        if (root == NULL)
            return 1;
    }
    f->f_root = root;
    return 0;
}

void
fnd_free(fnd_run *f)
{
    for (size_t i = 0; i < f->f_nnodes; i++) {
        fnd_node *n = f->f_nodes[i];
        if (n->n_re_ok)
            regfree(&n->n_re);
        box_free(n->n_kids);
        if (n->n_exec != NULL) {
            sh_argv_free(&n->n_exec->x_batch);
            box_free(n->n_exec->x_batch_dir);
            box_free(n->n_exec);
        }
        box_free(n);
    }
    box_free(f->f_nodes);
    f->f_nodes = NULL;
    f->f_nnodes = f->f_capnodes = 0;
}
