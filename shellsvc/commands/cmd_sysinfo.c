/* SPDX-License-Identifier: Apache-2.0 */
/* uname, nproc and hostname (GNU coreutils 9.1, Debian's hostname 3.23):
 * what the box tells of the machine it runs on; and python, python3,
 * whose route (Monty, box-spec §3.13) this shell does not have yet. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_sys.h"
#include "sh_gopt.h"

/*
 * The box is a sandbox on the host, not a machine of its own: uname
 * reports the host's kernel as uname(2) gives it (the worker's filter
 * allows it, as any process's). Nothing here can change it.
 */

/* ---- uname ---- */

/* The fields in the order -a prints them (ORDER UNAME). */
enum { UN_S, UN_N, UN_R, UN_V, UN_M, UN_P, UN_I, UN_O, UN_COUNT };

static const sh_gopt uname_opts[] = {
    {'a', "all", SH_GARG_NONE},
    {'s', "kernel-name", SH_GARG_NONE},
    {'n', "nodename", SH_GARG_NONE},
    {'r', "kernel-release", SH_GARG_NONE},
    {'v', "kernel-version", SH_GARG_NONE},
    {'m', "machine", SH_GARG_NONE},
    {'p', "processor", SH_GARG_NONE},
    {'i', "hardware-platform", SH_GARG_NONE},
    {'o', "operating-system", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec uname_spec = {
    .gs_cmd = "uname",
    .gs_opts = uname_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: uname [OPTION]...\n"
        "Print certain system information.  With no OPTION, same as -s.\n"
        "\n"
        "  -a, --all                print all information, in the following "
        "order,\n"
        "                             except omit -p and -i if unknown:\n"
        "  -s, --kernel-name        print the kernel name\n"
        "  -n, --nodename           print the network node hostname\n"
        "  -r, --kernel-release     print the kernel release\n"
        "  -v, --kernel-version     print the kernel version\n"
        "  -m, --machine            print the machine hardware name\n"
        "  -p, --processor          print the processor type "
        "(non-portable)\n"
        "  -i, --hardware-platform  print the hardware platform "
        "(non-portable)\n"
        "  -o, --operating-system   print the operating system\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

int
sh_cmd_uname(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &uname_spec, argc, argv);
    static const char letters[] = "snrvmpio";
    const char *arg;
    bool want[UN_COUNT] = {false}, all = false, any = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        any = true;
        if (id == 'a')
            all = true;
        else
            want[strchr(letters, id) - letters] = true;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops > 0) {
        char *q = sh_gquote(it.gi_ops[0]);
        st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : "");
        box_free(q);
        goto out;
    }
    struct utsname u;
    if (uname(&u) != 0) {
        sh_errf(cx, "uname: cannot get system name: %s", strerror(errno));
        st = 1;
        goto out;
    }
    const char *val[UN_COUNT] = {u.sysname, u.nodename, u.release, u.version,
                                 u.machine, "unknown",  "unknown", "GNU/Linux"};
    if (!any)
        want[UN_S] = true;
    box_buf b;
    box_buf_init(&b, 4096);
    box_err acc = BOX_OK;
    for (int i = 0; i < UN_COUNT; i++) {
        // -a leaves out what is unknown; asked for by name it is said.
        bool on = want[i] || (all && strcmp(val[i], "unknown") != 0);
        if (on)
            SH_SYS_ACC(acc,
                       box_buf_printf(&b, "%s%s", b.b_len ? " " : "", val[i]));
    }
    SH_SYS_ACC(acc, box_buf_putc(&b, '\n'));
    st =
        acc == BOX_OK && sh_write(cx, 1, b.b_data, b.b_len) == SH_IO_OK ? 0 : 1;
    box_buf_reset(&b);
out:
    sh_gopt_free(&it);
    return st;
}

/* ---- nproc ---- */

enum { NP_ALL = SH_GOPT_LONG_ONLY, NP_IGNORE };

static const sh_gopt nproc_opts[] = {
    {NP_ALL, "all", SH_GARG_NONE},
    {NP_IGNORE, "ignore", SH_GARG_REQ},
    {0},
};

static const sh_gopt_spec nproc_spec = {
    .gs_cmd = "nproc",
    .gs_opts = nproc_opts,
    .gs_fail = 1,
    .gs_help = "Usage: nproc [OPTION]...\n"
               "Print the number of processing units available to the current "
               "process,\n"
               "which may be less than the number of online processors\n"
               "\n"
               "      --all      print the number of installed processors\n"
               "      --ignore=N  if possible, exclude N processing units\n"
               "      --help        display this help and exit\n"
               "      --version     output version information and exit\n",
};

/* An OMP_* variable as gnulib reads it: leading blanks, digits, then
 * blanks (OMP_NUM_THREADS: or a ',' and more); 0 when unset or junk. */
static unsigned long
np_omp(const sh_ctx *cx, const char *name, bool list)
{
    const char *s = sh_sys_getenv(cx, name);
    if (s == NULL)
        return 0;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\v' || *s == '\f' ||
           *s == '\r')
        s++;
    if (*s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0)
        return 0;
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    return *end == '\0' || (list && *end == ',') ? v : 0;
}

int
sh_cmd_nproc(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &nproc_spec, argc, argv);
    const char *arg;
    bool all = false;
    unsigned long ignore = 0;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == NP_ALL) {
            all = true;
            continue;
        }
        char *end;
        errno = 0;
        unsigned long v = strtoul(arg, &end, 10);
        if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0) {
            char *q = sh_gquote(arg);
            sh_errf(cx, "nproc: invalid number: %s", q ? q : arg);
            box_free(q);
            st = 1;
            goto out;
        }
        ignore = v;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops > 0) {
        char *q = sh_gquote(it.gi_ops[0]);
        st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : "");
        box_free(q);
        goto out;
    }
    unsigned long n;
    if (all) {
        long c = sysconf(_SC_NPROCESSORS_CONF);
        n = c > 0 ? (unsigned long)c : 1;
    } else {
        cpu_set_t set;
        CPU_ZERO(&set);
        n = sched_getaffinity(0, sizeof set, &set) == 0
                ? (unsigned long)CPU_COUNT(&set)
                : 1;
        unsigned long omp = np_omp(cx, "OMP_NUM_THREADS", true);
        unsigned long lim = np_omp(cx, "OMP_THREAD_LIMIT", false);
        if (omp > 0)
            n = omp;
        if (lim > 0 && n > lim)
            n = lim;
    }
    n = ignore < n ? n - ignore : 1;
    char line[32];
    snprintf(line, sizeof line, "%lu\n", n);
    st = sh_puts(cx, 1, line) == SH_IO_OK ? 0 : 1;
out:
    sh_gopt_free(&it);
    return st;
}

/* ---- hostname ---- */

static const sh_gopt hostname_opts[] = {
    {'s', "short", SH_GARG_NONE},
    {'f', "fqdn", SH_GARG_NONE},
    {'F', "file", SH_GARG_REQ},
    {'b', "boot", SH_GARG_NONE},
    {'V', NULL, SH_GARG_NONE},
    {'h', NULL, SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec hostname_spec = {
    .gs_cmd = "hostname",
    .gs_opts = hostname_opts,
    .gs_fail = 1,
    .gs_help = "Usage: hostname [-b] {hostname|-F file}         set host name "
               "(from file)\n"
               "       hostname [-f|-s]                         display "
               "formatted name\n"
               "       hostname                                 display host "
               "name\n"
               "\n"
               "       hostname -V|--version|-h|--help          print info "
               "and exit\n"
               "\n"
               "This box's hostname shows the host's name; it never sets "
               "one.\n",
};

/* The name uname(2) gives (-f: the same, as no resolver is asked; -s: up
 * to the first dot). Setting a name is refused: the host's is not the
 * box's to change. */
int
sh_cmd_hostname(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &hostname_spec, argc, argv);
    const char *arg;
    bool shrt = false, set = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 's')
            shrt = true;
        else if (id == 'F' || id == 'b')
            set = true;
        else if (id == 'V' || id == 'h') {
            (void)sh_puts(cx, 1, hostname_spec.gs_help);
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (set || it.gi_nops > 0) {
        sh_errf(cx, "hostname: the host name cannot be set from this box");
        st = 1;
        goto out;
    }
    struct utsname u;
    if (uname(&u) != 0) {
        sh_errf(cx, "hostname: %s", strerror(errno));
        st = 1;
        goto out;
    }
    if (shrt) {
        char *dot = strchr(u.nodename, '.');
        if (dot != NULL)
            *dot = '\0';
    }
    st = sh_puts(cx, 1, u.nodename) == SH_IO_OK &&
                 sh_puts(cx, 1, "\n") == SH_IO_OK
             ? 0
             : 1;
out:
    sh_gopt_free(&it);
    return st;
}

/* ---- python, python3 ---- */

/*
 * Inside the shell python and python3 are the box's own commands (spec
 * §3.3: they run Monty, never a host interpreter, and the row wins over
 * any host program of that name). Monty is not built yet: the command
 * says so plainly, status 126 (found, cannot run: §3.10's class), and
 * runs nothing. node has no row: it takes the host-program route (a
 * `[tool.*]`, else "no tool runs …" 126, else "command not found" 127).
 */
int
sh_cmd_python(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)argc;
    (void)o;
    sh_errf(cx,
            "%s: the box's Python (Monty) is not available in this shell "
            "yet; nothing was run",
            argv[0]);
    return 126;
}
