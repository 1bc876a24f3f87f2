/* SPDX-License-Identifier: Apache-2.0 */
/* touch [-acfhm] [-d DATE | -r FILE | -t STAMP] [--time=WORD] FILE...:
 * GNU coreutils 9.1, every effect through the kernel. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd_files.h"
#include "cmd_time.h"
#include "sh_bistate.h"
#include "sh_gopt.h"

enum { TOUCH_TIME = SH_GOPT_LONG_ONLY };

static const sh_gopt touch_opts[] = {
    {'a', NULL, SH_GARG_NONE},
    {'c', "no-create", SH_GARG_NONE},
    {'d', "date", SH_GARG_REQ},
    {'f', NULL, SH_GARG_NONE},
    {'h', "no-dereference", SH_GARG_NONE},
    {'m', NULL, SH_GARG_NONE},
    {'r', "reference", SH_GARG_REQ},
    {'t', NULL, SH_GARG_REQ},
    {TOUCH_TIME, "time", SH_GARG_REQ},
    {0},
};

static const sh_gopt_spec touch_spec = {
    .gs_cmd = "touch",
    .gs_opts = touch_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: touch [OPTION]... FILE...\n"
        "Update the access and modification times of each FILE to the curr"
        "ent time.\n"
        "\n"
        "A FILE argument that does not exist is created empty, unless -c or"
        " -h\n"
        "is supplied.\n"
        "\n"
        "A FILE argument string of - is handled specially and causes touch "
        "to\n"
        "change the times of the file associated with standard output.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short option"
        "s too.\n"
        "  -a                     change only the access time\n"
        "  -c, --no-create        do not create any files\n"
        "  -d, --date=STRING      parse STRING and use it instead of current"
        " time\n"
        "  -f                     (ignored)\n"
        "  -h, --no-dereference   affect each symbolic link instead of any r"
        "eferenced\n"
        "                         file (useful only on systems that can cha"
        "nge the\n"
        "                         timestamps of a symlink)\n"
        "  -m                     change only the modification time\n"
        "  -r, --reference=FILE   use this file's times instead of current t"
        "ime\n"
        "  -t STAMP               use [[CC]YY]MMDDhhmm[.ss] instead of curre"
        "nt time\n"
        "      --time=WORD        change the specified time:\n"
        "                           WORD is access, atime, or use: equivalen"
        "t to -a\n"
        "                           WORD is modify or mtime: equivalent to -"
        "m\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Note that the -d and -t options accept different time-date formats"
        ".\n",
};

enum { TOUCH_ATIME = 1, TOUCH_MTIME = 2 };

typedef struct touch_run {
    sh_ctx *tr_cx;
    bool tr_no_create, tr_no_deref;
    struct timespec tr_times[2]; // access, modification (utimensat's)
} touch_run;

/* Reports a failure: "cannot touch 'F'" for a failed create, "setting
 * times of 'F'" for a failed change; a denial as sh_fs_fail says it. */
static int
touch_fail(touch_run *tr, const char *what, const char *path,
           sh_kernel_result *r)
{
    return cmd_failq(tr->tr_cx, "touch", r, what, CMD_QAF, path);
}

/*
 * One file: one decision, what box-spec §3.6 gives touch (fs:write
 * write_content), then the times set on the decided identity; a missing
 * file is created unless -c or -h. Returns 0, 1 or 125.
 */
static int
touch_one(void *run, const char *path)
{
    touch_run *tr = run;
    sh_ctx *cx = tr->tr_cx;
    sh_kernel_result r = {0};
    if (strcmp(path, "-") == 0) // standard output: a pipe here, no file
        return 0;
    unsigned fl = (tr->tr_no_create || tr->tr_no_deref ? 0 : SH_KT_CREATE) |
                  (tr->tr_no_deref ? SH_KT_NOFOLLOW : 0);
    int err = path[0] == '\0'
                  ? ENOENT // the kernel would read "" as the cwd
                  : sh_kernel_set_times(sh_kern(cx), cx->cx_st->st_cwd, path,
                                        tr->tr_times, fl,
                                        sh_umask_apply(cx, 0666), &r);
    if (err == 0)
        return 0;
    if (path[0] == '\0') {
        r.kr_outcome = SH_KR_OS_ERROR;
        r.kr_errno = ENOENT;
    }
    bool os = r.kr_outcome == SH_KR_OS_ERROR;
    if (err == ENOENT && tr->tr_no_create && os) {
        sh_kernel_result_clear(&r);
        return 0;
    }
    // GNU's words: a file it could not make, or times it could not set.
    bool made = (fl & SH_KT_CREATE) && os && err != EPERM;
    return touch_fail(tr, made ? "cannot touch" : "setting times of", path,
                      &r);
}

/* -r FILE: its access and modification times (stat, or lstat with -h). */
static int
touch_reference(touch_run *tr, const char *ref, struct timespec out[2])
{
    sh_ctx *cx = tr->tr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    int err = tr->tr_no_deref
                  ? sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, ref, &st,
                                    &r)
                  : sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, ref,
                                        &st, &r);
    if (err != 0) {
        // A denied probe answers "absent": GNU's words for a missing file.
        if (r.kr_outcome == SH_KR_DENIED)
            r.kr_outcome = SH_KR_OS_ERROR;
        return cmd_failq(cx, "touch", &r, "failed to get attributes of",
                         CMD_QAF, ref);
    }
    out[0] = (struct timespec){st.ks_atime, st.ks_atime_ns};
    out[1] = (struct timespec){st.ks_mtime, st.ks_mtime_ns};
    return 0;
}

/* "invalid date format ‘S’", status 1. */
static int
touch_bad_date(sh_ctx *cx, const char *s)
{
    return cmd_errq(cx, "touch", 1, "invalid date format", CMD_QL, s);
}

/* The times the options ask for into tr->tr_times; 0 or the status
 * after a message. */
static int
touch_times(touch_run *tr, const char *date, const char *ref,
            const char *stamp, int which)
{
    struct timespec t[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    if (ref != NULL) {
        int rc = touch_reference(tr, ref, t);
        if (rc != 0)
            return rc;
    }
    if (stamp != NULL) {
        if (!cmd_time_posix_stamp(tr->tr_cx, stamp, &t[0]))
            return touch_bad_date(tr->tr_cx, stamp);
        t[1] = t[0];
    }
    if (date != NULL) {
        // Relative items count from the reference file's times with -r
        // (each of its two), else from now.
        struct timespec base[2] = {t[0], t[1]};
        if (ref == NULL)
            clock_gettime(CLOCK_REALTIME, &base[0]), base[1] = base[0];
        for (int i = 0; i < 2; i++)
            if (!cmd_time_parse_date(tr->tr_cx, date, base[i], &t[i]))
                return touch_bad_date(tr->tr_cx, date);
    }
    if (which == TOUCH_ATIME)
        t[1].tv_nsec = UTIME_OMIT;
    else if (which == TOUCH_MTIME)
        t[0].tv_nsec = UTIME_OMIT;
    memcpy(tr->tr_times, t, sizeof t);
    return 0;
}

int
sh_cmd_touch(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    static const char *const time_names[] = {"atime", "access", "use",
                                             "mtime", "modify", NULL};
    static const int time_vals[] = {TOUCH_ATIME, TOUCH_ATIME, TOUCH_ATIME,
                                    TOUCH_MTIME, TOUCH_MTIME};
    touch_run tr = {.tr_cx = cx};
    const char *date = NULL, *ref = NULL, *stamp = NULL;
    int which = 0, status = 0, id;
    const char *arg;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &touch_spec, argc, argv);
    while ((id = sh_gopt_next(&it, &arg, &status)) >= 0) {
        switch (id) {
        case 'a': which |= TOUCH_ATIME; break;
        case 'm': which |= TOUCH_MTIME; break;
        case 'c': tr.tr_no_create = true; break;
        case 'h': tr.tr_no_deref = true; break;
        case 'f': break;
        case 'd': date = arg; break;
        case 'r': ref = arg; break;
        case 't': stamp = arg; break;
        case TOUCH_TIME: {
            int k = sh_gopt_argmatch(&it, "--time", arg, time_names,
                                     time_vals, &status);
            if (k < 0)
                goto out;
            which |= time_vals[k];
            break;
        }
        default: break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (stamp != NULL && (date != NULL || ref != NULL)) {
        status = sh_gopt_usage_error(
            &it, "cannot specify times from more than one source");
        goto out;
    }
    if (it.gi_nops == 0) {
        status = sh_gopt_usage_error(&it, "missing file operand");
        goto out;
    }
    if (which == (TOUCH_ATIME | TOUCH_MTIME))
        which = 0;
    if ((status = touch_times(&tr, date, ref, stamp, which)) != 0)
        goto out;
    status = cmd_each_operand(&it, touch_one, &tr);
out:
    sh_gopt_free(&it);
    return status;
}
