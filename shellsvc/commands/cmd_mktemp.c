/* SPDX-License-Identifier: Apache-2.0 */
/* mktemp [-dqtu] [-p DIR] [--suffix=SUFF] [TEMPLATE]: GNU coreutils 9.1;
 * the name created new (O_EXCL) through the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "sh_gopt.h"

#define MKTEMP_DEFAULT "tmp.XXXXXXXXXX"
#define MKTEMP_MIN_X 3
#define MKTEMP_TRIES 100 // names taken in a row before giving up (EEXIST)

enum { MKTEMP_SUFFIX = SH_GOPT_LONG_ONLY, MKTEMP_TMPDIR };

static const sh_gopt mktemp_opts[] = {
    {'d', "directory", SH_GARG_NONE},
    {'p', NULL, SH_GARG_REQ},
    {'q', "quiet", SH_GARG_NONE},
    {'t', NULL, SH_GARG_NONE},
    {'u', "dry-run", SH_GARG_NONE},
    {MKTEMP_SUFFIX, "suffix", SH_GARG_REQ},
    {MKTEMP_TMPDIR, "tmpdir", SH_GARG_OPT},
    {0},
};

static const sh_gopt_spec mktemp_spec = {
    .gs_cmd = "mktemp",
    .gs_opts = mktemp_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: mktemp [OPTION]... [TEMPLATE]\n"
        "Create a temporary file or directory, safely, and print its name."
        "\n"
        "TEMPLATE must contain at least 3 consecutive 'X's in last componen"
        "t.\n"
        "If TEMPLATE is not specified, use tmp.XXXXXXXXXX, and --tmpdir is "
        "implied.\n"
        "Files are created u+rw, and directories u+rwx, minus umask restric"
        "tions.\n"
        "\n"
        "  -d, --directory     create a directory, not a file\n"
        "  -u, --dry-run       do not create anything; merely print a name "
        "(unsafe)\n"
        "  -q, --quiet         suppress diagnostics about file/dir-creation"
        " failure\n"
        "      --suffix=SUFF   append SUFF to TEMPLATE; SUFF must not conta"
        "in a slash.\n"
        "                        This option is implied if TEMPLATE does no"
        "t end in X\n"
        "  -p DIR, --tmpdir[=DIR]  interpret TEMPLATE relative to DIR; if D"
        "IR is not\n"
        "                        specified, use $TMPDIR if set, else /tmp. "
        " With\n"
        "                        this option, TEMPLATE must not be an absol"
        "ute name;\n"
        "                        unlike with -t, TEMPLATE may contain slash"
        "es, but\n"
        "                        mktemp creates only the final component\n"
        "  -t                  interpret TEMPLATE as a single file name com"
        "ponent,\n"
        "                        relative to a directory: $TMPDIR, if set; "
        "else the\n"
        "                        directory specified via -p; else /tmp [dep"
        "recated]\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* Fills n bytes at p with letters and digits from the kernel's random
 * source (getrandom(2); no file is opened). */
static bool
fill_random(char *p, size_t n)
{
    static const char set[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char rnd[64];
    while (n > 0) {
        size_t k = n < sizeof rnd ? n : sizeof rnd;
        if (getrandom(rnd, k, 0) != (ssize_t)k)
            return false;
        for (size_t i = 0; i < k; i++) {
            // 62 * 4 = 248: a byte at or above it is drawn again
            while (rnd[i] >= 248)
                if (getrandom(&rnd[i], 1, 0) != 1)
                    return false;
            *p++ = set[rnd[i] % 62];
        }
        n -= k;
    }
    return true;
}

/*
 * Creates name (its n_x bytes at x replaced each try) as a file (0600,
 * O_EXCL: fs:write write_content) or directory (0700: fs:write
 * create_dir); a taken name is tried again. 0, or the failure in r.
 */
static int
make_one(sh_ctx *cx, char *name, char *x, size_t n_x, bool dir, bool dry,
         sh_kernel_result *r)
{
    for (int i = 0; i < MKTEMP_TRIES; i++) {
        if (!fill_random(x, n_x)) {
            *r = (sh_kernel_result){.kr_outcome = SH_KR_OS_ERROR,
                                    .kr_errno = errno ? errno : EIO};
            return r->kr_errno;
        }
        if (dry)
            return 0;
        int err;
        if (dir) {
            err =
                sh_kernel_mkdir(sh_kern(cx), cx->cx_st->st_cwd, name, 0700, r);
        } else {
            sh_kernel_file *f = NULL;
            err = sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, name,
                                 O_WRONLY | O_CREAT | O_EXCL, 0600, &f, r);
            if (f != NULL)
                sh_kernel_close(f);
        }
        if (err == 0) {
            sh_kernel_result_clear(r);
            return 0;
        }
        if (!(r->kr_outcome == SH_KR_OS_ERROR && err == EEXIST))
            return err;
        sh_kernel_result_clear(r);
    }
    *r = (sh_kernel_result){.kr_outcome = SH_KR_OS_ERROR, .kr_errno = EEXIST};
    return EEXIST;
}

/* mktemp: box-spec §3.3. */
int
sh_cmd_mktemp(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &mktemp_spec, argc, argv);
    bool dir = false, quiet = false, dry = false, use_t = false;
    bool tmpdir_set = false;
    const char *tmpdir = NULL, *suffix = NULL, *arg;
    char *name = NULL, *tmpl = NULL;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'd':
            dir = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 't':
            use_t = true;
            break;
        case 'u':
            dry = true;
            break;
        case 'p':
        case MKTEMP_TMPDIR:
            tmpdir_set = true;
            tmpdir = arg;
            break;
        case MKTEMP_SUFFIX:
            suffix = arg;
            break;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops > 1) {
        st = sh_gopt_usage_error(&it, "too many templates");
        goto out;
    }
    const char *given = it.gi_nops == 1 ? it.gi_ops[0] : NULL;
    if (given == NULL) {
        given = MKTEMP_DEFAULT;
        tmpdir_set = true;
    }
    // The suffix: --suffix's (the template must end in X), else whatever
    // follows the template's last X.
    size_t glen = strlen(given);
    if (suffix != NULL && strchr(suffix, '/') != NULL) {
        char *q = sh_gquote(suffix);
        st = sh_cmd_err(cx, "mktemp", 1,
                        "invalid suffix %s, contains directory separator",
                        q ? q : suffix);
        box_free(q);
        goto out;
    }
    if (suffix != NULL && (glen == 0 || given[glen - 1] != 'X')) {
        char *q = sh_gquote(given);
        st = sh_cmd_err(cx, "mktemp", 1,
                        "with --suffix, template %s must end in X",
                        q ? q : given);
        box_free(q);
        goto out;
    }
    tmpl = suffix ? box_asprintf("%s%s", given, suffix) : box_strdup(given);
    if (tmpl == NULL) {
        st = sh_cmd_err(cx, "mktemp", 1, "out of memory");
        goto out;
    }
    size_t end = suffix ? glen : strlen(tmpl);
    if (suffix == NULL)
        while (end > 0 && tmpl[end - 1] != 'X')
            end--;
    size_t start = end;
    while (start > 0 && tmpl[start - 1] == 'X')
        start--;
    if (end - start < MKTEMP_MIN_X) {
        char *q = sh_gquote(tmpl);
        st = sh_cmd_err(cx, "mktemp", 1, "too few X's in template %s",
                        q ? q : tmpl);
        box_free(q);
        goto out;
    }
    if (use_t || tmpdir_set) {
        if (use_t && strchr(tmpl, '/') != NULL) {
            char *q = sh_gquote(tmpl);
            st = sh_cmd_err(cx, "mktemp", 1,
                            "invalid template, %s, contains directory "
                            "separator",
                            q ? q : tmpl);
            box_free(q);
            goto out;
        }
        const char *env = sh_var_get(cx->cx_st, "TMPDIR");
        const char *d = NULL;
        if (use_t && env != NULL && env[0] != '\0')
            d = env;
        else if (tmpdir != NULL && tmpdir[0] != '\0')
            d = tmpdir;
        else if (env != NULL && env[0] != '\0')
            d = env;
        else
            d = "/tmp";
        name = cmd_join(d, tmpl);
    } else {
        name = box_strdup(tmpl);
    }
    if (name == NULL) {
        st = sh_cmd_err(cx, "mktemp", 1, "out of memory");
        goto out;
    }
    size_t off = strlen(name) - strlen(tmpl);
    sh_kernel_result r = {0};
    char *shown = box_strdup(name); // the template, X's and all
    if (shown == NULL) {
        st = sh_cmd_err(cx, "mktemp", 1, "out of memory");
        goto out;
    }
    if (make_one(cx, name, name + off + start, end - start, dir, dry, &r) !=
        0) {
        if (quiet && r.kr_outcome == SH_KR_OS_ERROR) {
            sh_kernel_result_clear(&r);
            st = 1;
        } else {
            st = cmd_failq(cx, "mktemp", &r,
                           dir ? "failed to create directory via template"
                               : "failed to create file via template",
                           CMD_QL, shown);
        }
        box_free(shown);
        goto out;
    }
    box_free(shown);
    if (sh_puts(cx, 1, name) != SH_IO_OK || sh_puts(cx, 1, "\n") != SH_IO_OK)
        st = 1;
out:
    box_free(name);
    box_free(tmpl);
    sh_gopt_free(&it);
    return st;
}
