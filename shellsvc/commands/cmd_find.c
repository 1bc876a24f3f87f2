/* SPDX-License-Identifier: Apache-2.0 */
/* find [-H|-L|-P] [PATH…] [EXPRESSION]: GNU findutils 4.9 over the
 * kernel (box-spec §3.3, §3.5, §3.6). */
#include <string.h>
#include <time.h>

#include "box_alloc.h"
#include "cmd_find.h"
#include "sh_gopt.h"

static const sh_gopt find_opts[] = {{0}};

static const sh_gopt_spec find_spec = {
    .gs_cmd = "find",
    .gs_opts = find_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] "
        "[expression]\n"
        "\n"
        "Default path is the current directory; default expression is "
        "-print.\n"
        "Expression may consist of: operators, options, tests, and "
        "actions.\n"
        "\n"
        "Operators (decreasing precedence; -and is implicit where no others "
        "are given):\n"
        "      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and "
        "EXPR2\n"
        "      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2\n"
        "\n"
        "Positional options (always true):\n"
        "      -daystart -follow -nowarn -regextype -warn\n"
        "\n"
        "Normal options (always true, specified before other expressions):\n"
        "      -depth -files0-from FILE -maxdepth LEVELS -mindepth LEVELS\n"
        "       -mount -noleaf -xdev -ignore_readdir_race "
        "-noignore_readdir_race\n"
        "\n"
        "Tests (N can be +N or -N or N):\n"
        "      -amin N -anewer FILE -atime N -cmin N -cnewer FILE -context "
        "CONTEXT\n"
        "      -ctime N -empty -false -fstype TYPE -gid N -group NAME -ilname "
        "PATTERN\n"
        "      -iname PATTERN -inum N -iwholename PATTERN -iregex PATTERN\n"
        "      -links N -lname PATTERN -mmin N -mtime N -name PATTERN -newer "
        "FILE\n"
        "      -nouser -nogroup -path PATTERN -perm [-/]MODE -regex PATTERN\n"
        "      -readable -writable -executable\n"
        "      -wholename PATTERN -size N[bcwkMG] -true -type [bcdpflsD] -uid "
        "N\n"
        "      -used N -user NAME -xtype [bcdpfls]\n"
        "\n"
        "Actions:\n"
        "      -delete -print0 -printf FORMAT -fprintf FILE FORMAT -print \n"
        "      -fprint0 FILE -fprint FILE -ls -fls FILE -prune -quit\n"
        "      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;\n"
        "      -execdir COMMAND ; -execdir COMMAND {} + -okdir COMMAND ;\n"
        "\n"
        "Other common options:\n"
        "      --help                   display this help and exit\n"
        "      --version                output version information and exit\n"
        "\n"
        "In this box every command -exec and -execdir run is its own "
        "shell:exec\n"
        "decision; a directory is listed in sorted order. Refused: -ok, "
        "-okdir, -D,\n"
        "-files0-from, -fprint, -fprint0, -fprintf, -ls, -fls, and the tests "
        "and\n"
        "-printf directives needing owners, link counts, blocks or access "
        "and\n"
        "change times, which the box's kernel does not report.\n",
};

/* --help / --version (the first argument only, as GNU reads them). */
static bool
find_common(sh_ctx *cx, int argc, char **argv, int *status)
{
    if (argc < 2 ||
        (strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "--version") != 0))
        return false;
    char *two[3] = {argv[0], argv[1], NULL};
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &find_spec, 2, two);
    const char *arg;
    (void)sh_gopt_next(&it, &arg, status);
    sh_gopt_free(&it);
    return true;
}

int
sh_cmd_find_files(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    int status = 0;
    if (find_common(cx, argc, argv, &status))
        return status;
    fnd_run f = {
        .f_cx = cx,
        .f_follow = FND_P,
        .f_maxdepth = -1,
        .f_regextype = FND_RE_EMACS,
    };
    box_buf_init(&f.f_out, 1u << 20);
    int i = 1;
    for (; i < argc; i++) {
        const char *w = argv[i];
        if (strcmp(w, "-H") == 0)
            f.f_follow = FND_H;
        else if (strcmp(w, "-L") == 0)
            f.f_follow = FND_L;
        else if (strcmp(w, "-P") == 0)
            f.f_follow = FND_P;
        else if (strncmp(w, "-O", 2) == 0 && w[2] >= '0' && w[2] <= '9')
            continue;
        else if (strcmp(w, "-D") == 0) {
            status = sh_cmd_err(cx, "find", 1,
                                "-D: debug options are not supported by "
                                "this box's find");
            goto out;
        } else if (strcmp(w, "--") == 0) {
            i++;
            break;
        } else
            break;
    }
    int first = i;
    while (i < argc && !(argv[i][0] == '-' && argv[i][1] != '\0') &&
           strcmp(argv[i], "(") != 0 && strcmp(argv[i], "!") != 0)
        i++;
    int npaths = i - first;
    if ((status = fnd_parse(&f, argc, argv, i)) != 0)
        goto out;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    f.f_now = (int64_t)now.tv_sec;
    f.f_now_ns = now.tv_nsec;
    if (npaths == 0)
        fnd_walk(&f, ".");
    for (int j = first; j < first + npaths && !f.f_stop && !f.f_quit; j++)
        fnd_walk(&f, argv[j]);
    if (!f.f_stop)
        fnd_exec_flush_all(&f);
    (void)fnd_out_flush(&f);
    status = f.f_status;
    if (sh_check_stop(cx) && status == 0)
        status = cx->cx_status ? cx->cx_status : 1;
out:
    fnd_free(&f);
    box_buf_reset(&f.f_out);
    return status;
}
