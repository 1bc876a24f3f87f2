/* SPDX-License-Identifier: Apache-2.0 */
/* readlink [-fem] [-nqsvz] FILE... and realpath [-ems] [-qz]
 * [--relative-to=DIR] [--relative-base=DIR] FILE...: GNU coreutils 9.1.
 * Plain readlink asks the kernel's read_link; the canonical forms ask
 * one read_metadata probe per name (box-spec §3.6 `canonicalize`). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_files.h"
#include "sh_gopt.h"

/* How much of a name must exist (GNU's canonicalize modes). */
typedef enum canon_mode {
    CANON_NONE,         // readlink without -f/-e/-m: the link's text
    CANON_EXISTING,     // -e: every component
    CANON_ALL_BUT_LAST, // -f, realpath's default
    CANON_MISSING,      // -m: none
} canon_mode;

static const char *
kcwd(sh_ctx *cx)
{
    return cx->cx_st->st_cwd;
}

/* path joined to the cwd with "." and ".." folded as text (realpath -s,
 * and -m past what the kernel can walk). Caller frees. */
static char *
lexical(sh_ctx *cx, const char *path)
{
    char *full = path[0] == '/' ? box_strdup(path) : cmd_join(kcwd(cx), path);
    if (full == NULL)
        return NULL;
    char *out = box_alloc(strlen(full) + 2);
    if (out == NULL) {
        box_free(full);
        return NULL;
    }
    size_t o = 0;
    for (const char *p = full; *p != '\0';) {
        while (*p == '/')
            p++;
        const char *e = p;
        while (*e != '\0' && *e != '/')
            e++;
        size_t l = (size_t)(e - p);
        if (l == 0 || (l == 1 && p[0] == '.')) {
        } else if (l == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            out[o++] = '/';
            memcpy(out + o, p, l);
            o += l;
        }
        p = e;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
    box_free(full);
    return out;
}

/*
 * The canonical name of path under mode, in *out (caller frees). One
 * decided probe of the name (read_metadata, followed), and for
 * CANON_ALL_BUT_LAST of its parent when the name is missing. Returns 0
 * or an errno value (EACCES when policy hid the name); a fault is
 * reported and returns -1.
 */
static int
canonical(sh_ctx *cx, const char *cmd, const char *path, canon_mode mode,
          char **out)
{
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    *out = NULL;
    if (path[0] == '\0')
        return ENOENT;
    int err = sh_kernel_stat_path(sh_kern(cx), kcwd(cx), path, &st, &r);
    if (r.kr_outcome == SH_KR_FAULT) {
        sh_fs_fail(cx, cmd, path, &r);
        return -1;
    }
    bool denied = r.kr_outcome == SH_KR_DENIED;
    sh_kernel_result_clear(&r);
    if (denied)
        return EACCES;
    if (err != 0 && mode == CANON_EXISTING)
        return err;
    if (err != 0 && err != ENOENT && mode != CANON_MISSING)
        return err;
    int rerr =
        sh_kernel_resolve_path(sh_kern(cx), kcwd(cx), path, true, out, NULL);
    if (rerr != 0 && mode == CANON_MISSING)
        return (*out = lexical(cx, path)) ? 0 : ENOMEM;
    if (rerr != 0)
        return rerr;
    if (err == 0 || mode == CANON_MISSING)
        return 0;
    // -f: the name is missing; its parent must be a directory.
    char *parent = box_strdup(*out);
    if (parent == NULL)
        return ENOMEM;
    char *slash = strrchr(parent, '/');
    if (slash == parent)
        slash[1] = '\0';
    else if (slash != NULL)
        *slash = '\0';
    err = sh_kernel_stat_path(sh_kern(cx), kcwd(cx), parent, &st, &r);
    if (r.kr_outcome == SH_KR_FAULT) {
        box_free(parent);
        sh_fs_fail(cx, cmd, path, &r);
        return -1;
    }
    sh_kernel_result_clear(&r);
    box_free(parent);
    if (err == 0 && !S_ISDIR(st.ks_mode))
        err = ENOTDIR;
    if (err != 0) {
        box_free(*out);
        *out = NULL;
    }
    return err;
}

/* A name and its end byte on stdout. */
static bool
put_name(sh_ctx *cx, const char *s, char end, bool with_end)
{
    return sh_write(cx, 1, s, strlen(s)) == SH_IO_OK &&
           (!with_end || sh_write(cx, 1, &end, 1) == SH_IO_OK);
}

/* ---- readlink ---- */

static const sh_gopt readlink_opts[] = {
    {'e', "canonicalize-existing", SH_GARG_NONE},
    {'f', "canonicalize", SH_GARG_NONE},
    {'m', "canonicalize-missing", SH_GARG_NONE},
    {'n', "no-newline", SH_GARG_NONE},
    {'q', "quiet", SH_GARG_NONE},
    {'s', "silent", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {'z', "zero", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec readlink_spec = {
    .gs_cmd = "readlink",
    .gs_opts = readlink_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: readlink [OPTION]... FILE...\n"
        "Print value of a symbolic link or canonical file name\n"
        "\n"
        "  -f, --canonicalize            canonicalize by following every sy"
        "mlink in\n"
        "                                every component of the given name "
        "recursively;\n"
        "                                all but the last component must ex"
        "ist\n"
        "  -e, --canonicalize-existing   canonicalize by following every sy"
        "mlink in\n"
        "                                every component of the given name "
        "recursively,\n"
        "                                all components must exist\n"
        "  -m, --canonicalize-missing    canonicalize by following every sy"
        "mlink in\n"
        "                                every component of the given name "
        "recursively,\n"
        "                                without requirements on components"
        " existence\n"
        "  -n, --no-newline              do not output the trailing delimit"
        "er\n"
        "  -q, --quiet\n"
        "  -s, --silent                  suppress most error messages (on b"
        "y default)\n"
        "  -v, --verbose                 report error messages\n"
        "  -z, --zero                    end each output line with NUL, not"
        " newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* readlink: box-spec §3.6 (read_link, not followed). A failure is silent
 * unless -v, and makes the status 1. */
int
sh_cmd_readlink(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &readlink_spec, argc, argv);
    canon_mode mode = CANON_NONE;
    bool no_newline = false, verbose = false;
    char end = '\n';
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'e':
            mode = CANON_EXISTING;
            break;
        case 'f':
            mode = CANON_ALL_BUT_LAST;
            break;
        case 'm':
            mode = CANON_MISSING;
            break;
        case 'n':
            no_newline = true;
            break;
        case 'q':
        case 's':
            verbose = false;
            break;
        case 'v':
            verbose = true;
            break;
        case 'z':
            end = '\0';
            break;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    if (no_newline && it.gi_nops > 1) {
        sh_cmd_err(cx, "readlink", 0,
                   "ignoring --no-newline with multiple arguments");
        no_newline = false;
    }
    for (int i = 0; i < it.gi_nops; i++) {
        if (sh_check_stop(cx)) {
            st = cx->cx_status;
            goto out;
        }
        const char *p = it.gi_ops[i];
        char *text = NULL;
        int err;
        size_t pl = strlen(p);
        if (mode == CANON_NONE && pl > 1 && p[pl - 1] == '/') {
            // A trailing slash follows the link: what is read is never
            // a link (probe: read_metadata).
            sh_kernel_result r = {0};
            sh_kernel_stat kst;
            err = sh_kernel_stat_path(sh_kern(cx), kcwd(cx), p, &kst, &r);
            if (r.kr_outcome == SH_KR_FAULT) {
                st = sh_fs_fail(cx, "readlink", p, &r);
                goto out;
            }
            sh_kernel_result_clear(&r);
            if (err == 0)
                err = EINVAL;
        } else if (mode == CANON_NONE) {
            sh_kernel_result r = {0};
            err = p[0] == '\0'
                      ? ENOENT
                      : sh_kernel_readlink(sh_kern(cx), kcwd(cx), p, &text, &r);
            if (err != 0 && r.kr_outcome == SH_KR_FAULT) {
                st = sh_fs_fail(cx, "readlink", p, &r);
                goto out;
            }
            if (err != 0 && r.kr_outcome != SH_KR_OS_ERROR && verbose &&
                p[0] != '\0') {
                sh_fs_fail(cx, "readlink", p, &r); // the denial's own words
                err = -1;
            }
            sh_kernel_result_clear(&r);
        } else if ((err = canonical(cx, "readlink", p, mode, &text)) < 0) {
            st = BOX_STATUS_FAULT;
            goto out;
        }
        if (err != 0) {
            if (verbose && err > 0) {
                char *q = sh_gquotef(p);
                sh_cmd_err(cx, "readlink", 1, "%s: %s", q ? q : p,
                           strerror(err));
                box_free(q);
            }
            st = 1;
            continue;
        }
        bool ok = put_name(cx, text, end, !no_newline);
        box_free(text);
        if (!ok) {
            st = 1;
            goto out;
        }
    }
out:
    sh_gopt_free(&it);
    return st;
}

/* ---- realpath ---- */

enum { RP_RELATIVE_TO = SH_GOPT_LONG_ONLY, RP_RELATIVE_BASE };

static const sh_gopt realpath_opts[] = {
    {'e', "canonicalize-existing", SH_GARG_NONE},
    {'m', "canonicalize-missing", SH_GARG_NONE},
    {'L', "logical", SH_GARG_NONE},
    {'P', "physical", SH_GARG_NONE},
    {'q', "quiet", SH_GARG_NONE},
    {'s', "strip", SH_GARG_NONE},
    {'s', "no-symlinks", SH_GARG_NONE},
    {'z', "zero", SH_GARG_NONE},
    {RP_RELATIVE_TO, "relative-to", SH_GARG_REQ},
    {RP_RELATIVE_BASE, "relative-base", SH_GARG_REQ},
    {0},
};

static const sh_gopt_spec realpath_spec = {
    .gs_cmd = "realpath",
    .gs_opts = realpath_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: realpath [OPTION]... FILE...\n"
        "Print the resolved absolute file name;\n"
        "all but the last component must exist\n"
        "\n"
        "  -e, --canonicalize-existing  all components of the path must exi"
        "st\n"
        "  -m, --canonicalize-missing   no path components need exist or be"
        " a directory\n"
        "  -L, --logical                resolve '..' components before syml"
        "inks\n"
        "  -P, --physical               resolve symlinks as encountered (de"
        "fault)\n"
        "  -q, --quiet                  suppress most error messages\n"
        "      --relative-to=DIR        print the resolved path relative to"
        " DIR\n"
        "      --relative-base=DIR      print absolute paths unless paths b"
        "elow DIR\n"
        "  -s, --strip, --no-symlinks   don't expand symlinks\n"
        "  -z, --zero                   end each output line with NUL, not "
        "newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct rp_run {
    sh_ctx *rp_cx;
    canon_mode rp_mode;
    bool rp_lexical, rp_quiet;
} rp_run;

/* One name canonicalized as realpath's options say; the message when it
 * fails (unless -q). 0, 1, or 125. */
static int
rp_canon(rp_run *rp, const char *p, char **out)
{
    sh_ctx *cx = rp->rp_cx;
    int err;
    if (rp->rp_lexical && rp->rp_mode == CANON_MISSING) {
        err = p[0] == '\0' ? ENOENT : (*out = lexical(cx, p)) ? 0 : ENOMEM;
    } else {
        err = canonical(cx, "realpath", p, rp->rp_mode, out);
        if (err == 0 && rp->rp_lexical) {
            box_free(*out);
            err = (*out = lexical(cx, p)) ? 0 : ENOMEM;
        }
    }
    if (err < 0)
        return BOX_STATUS_FAULT;
    if (err == 0)
        return 0;
    if (!rp->rp_quiet) {
        char *q = sh_gquotef(p);
        sh_cmd_err(cx, "realpath", 1, "%s: %s", q ? q : p, strerror(err));
        box_free(q);
    }
    return 1;
}

/* realpath: the canonical forms of readlink, and paths relative to a
 * directory. */
int
sh_cmd_realpath(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &realpath_spec, argc, argv);
    rp_run rp = {.rp_cx = cx, .rp_mode = CANON_ALL_BUT_LAST};
    const char *rel_to = NULL, *rel_base = NULL, *arg;
    char *cto = NULL, *cbase = NULL;
    char end = '\n';
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'e':
            rp.rp_mode = CANON_EXISTING;
            break;
        case 'm':
            rp.rp_mode = CANON_MISSING;
            break;
        case 'q':
            rp.rp_quiet = true;
            break;
        case 's':
            rp.rp_lexical = true;
            break;
        case 'L':
            rp.rp_lexical = true;
            break;
        case 'P':
            rp.rp_lexical = false;
            break;
        case 'z':
            end = '\0';
            break;
        case RP_RELATIVE_TO:
            rel_to = arg;
            break;
        case RP_RELATIVE_BASE:
            rel_base = arg;
            break;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    if (rel_to != NULL && (st = rp_canon(&rp, rel_to, &cto)) != 0)
        goto out;
    if (rel_base != NULL && (st = rp_canon(&rp, rel_base, &cbase)) != 0)
        goto out;
    if (cbase != NULL && cto != NULL && !cmd_inside(cbase, cto, false)) {
        box_free(cbase); // --relative-to outside the base: no relativizing
        cbase = NULL;
        box_free(cto);
        cto = NULL;
    } else if (cbase != NULL && cto == NULL) {
        cto = box_strdup(cbase);
    }
    for (int i = 0; i < it.gi_nops; i++) {
        if (sh_check_stop(cx)) {
            st = cx->cx_status;
            goto out;
        }
        char *c = NULL;
        int rc = rp_canon(&rp, it.gi_ops[i], &c);
        if (rc == BOX_STATUS_FAULT) {
            st = rc;
            goto out;
        }
        st = cmd_worse(st, rc);
        if (rc != 0)
            continue;
        char *shown = NULL;
        if (cto != NULL && (cbase == NULL || cmd_inside(cbase, c, false)))
            shown = cmd_relpath(cto, c);
        bool ok = put_name(cx, shown ? shown : c, end, true);
        box_free(shown);
        box_free(c);
        if (!ok) {
            st = 1;
            goto out;
        }
    }
out:
    box_free(cto);
    box_free(cbase);
    sh_gopt_free(&it);
    return st;
}
