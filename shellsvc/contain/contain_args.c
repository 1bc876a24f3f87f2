/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain command line: one option table, one parser, the usage text. */
#include "contain.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"

static const char contain_usage_text[] =
    "usage: box-contain [OPTIONS] (--exec-fd N | --exec-path P --exec-id "
    "DEV:INO) -- ARGV0 [ARGS...]\n"
    "       box-contain --probe\n"
    "\n"
    "Applies a sandbox to itself, then runs the program the caller decided,\n"
    "by file descriptor (execveat), never by re-resolving a name.\n"
    "\n"
    "Program identity (exactly one of):\n"
    "  --exec-fd N          run the regular file open on inherited fd N (>= "
    "3;\n"
    "                       O_PATH or O_RDONLY). --exec-id may be added as an\n"
    "                       extra check.\n"
    "  --exec-path P --exec-id DEV:INO\n"
    "                       open P (symlinks followed) and run it only if its\n"
    "                       st_dev:st_ino equals DEV:INO (decimal, as printed\n"
    "                       by `stat -L -c %d:%i P`); otherwise refuse, 126.\n"
    "\n"
    "Filesystem (Landlock; every path absolute, existing, not a symlink):\n"
    "  --read P             read files and list directories beneath P\n"
    "  --write P            --read plus create/write/remove/rename beneath P\n"
    "  --read-file F        read that one file\n"
    "  --write-file F       read and write that one file\n"
    "  --list D             list D and the directories beneath (no contents)\n"
    "                       A --read, --read-file or --list path inside a\n"
    "                       --write tree is read-only there (the deepest\n"
    "                       entry wins): writes in it fail (EROFS), a rename\n"
    "                       onto it or its removal fails (EBUSY); a --write\n"
    "                       deeper inside it is writable again. The same\n"
    "                       path in --read and --write is writable\n"
    "  --metadata P         accepted; Landlock never restricts stat, so stat\n"
    "                       works everywhere and no rule is added\n"
    "  --exec P             execute (and read) P, or the files beneath P.\n"
    "                       Nothing else may be executed: not /usr, not\n"
    "                       /bin (a #! script's interpreter must be listed)\n"
    "  --deny P             P stays unreachable: it is masked in the\n"
    "                       sandbox's mount namespace (an empty read-only\n"
    "                       file over a file, an empty read-only directory\n"
    "                       over a directory), so no grant around it\n"
    "                       reaches it. Refused (125): a grant inside (or\n"
    "                       equal to) a deny, and a deny that does not exist\n"
    "                       inside a grant (a mask covers only what is\n"
    "                       there, and Landlock cannot carve a hole in a\n"
    "                       grant)\n"
    "  --hide DIR           mount an empty read-only directory over DIR in\n"
    "                       the sandbox's mount namespace: nothing beneath\n"
    "                       (files, Unix sockets) can be reached, not even\n"
    "                       by connect(2), which Landlock does not govern\n"
    "  --show P             P, beneath a --hide directory, stays at its path\n"
    "                       (the original, bound back over the cover); a\n"
    "                       --show inside another --show is refused\n"
    "  --shells SHIM        bind the regular file SHIM (box-shell-shim, which\n"
    "                       runs the box's alias) over each of /bin/sh,\n"
    "                       /bin/bash, /usr/bin/sh, /usr/bin/bash, /bin/zsh,\n"
    "                       /usr/bin/zsh, /bin/dash, /usr/bin/dash that\n"
    "                       exists, each distinct file once (its canonical\n"
    "                       path, so a link to it leads to SHIM too), after\n"
    "                       the --deny masks and --hide covers; a shell a\n"
    "                       --deny masks stays masked. SHIM gets\n"
    "                       read+execute.\n"
    "                       The program was opened before: one of those\n"
    "                       shells as the program, or as a #! program's\n"
    "                       interpreter, is the real one\n"
    "  Always granted: /usr /lib /lib64 /bin /sbin (read; never execute),\n"
    "  /etc/ld.so.cache (read), /dev/null /dev/zero (read+write), "
    "/dev/urandom\n"
    "  (read), /proc (read, a fresh procfs for the pid namespace), the\n"
    "  program's own file (read+execute), and read+execute on the ELF\n"
    "  interpreter (PT_INTERP, the dynamic loader) that the program, its #!\n"
    "  interpreter or a --exec file names: the kernel checks the execute\n"
    "  right when it opens that loader. Shared libraries need only read.\n"
    "  Mapped executable: the dynamic loader runs any ELF it can map, so\n"
    "  every grant above and the system's program directories (/usr/bin,\n"
    "  /usr/sbin, /usr/local/bin, /usr/local/sbin, /usr/games,\n"
    "  /usr/local/games, /usr/libexec, /usr/local/libexec, what /bin and\n"
    "  /sbin resolve to, /usr/lib/git-core, /usr/lib/*/bin,\n"
    "  /usr/lib/*/libexec, /usr/lib/jvm/*/bin, /usr/local/lib/*/bin) are\n"
    "  bound over themselves noexec in the sandbox's mount namespace (the\n"
    "  program directories also read-only, unless a --write reaches them);\n"
    "  the program's own file and each --exec path are bound executable\n"
    "  (the deepest entry wins: a grant inside an --exec directory is\n"
    "  noexec again). So the loader maps only the program, the --exec\n"
    "  files and the libraries: the library trees (/usr, /lib, /lib64)\n"
    "  keep the host's exec, a read-type path inside one changes none, and\n"
    "  a grant around one (--read /) leaves it as the host has it. A\n"
    "  shared object loaded from a granted directory outside them needs\n"
    "  that directory in --exec. What remains: an ELF program that lives\n"
    "  in a library directory outside the program directories above (e.g.\n"
    "  gcc's cc1, systemd's helpers) can still be run through the loader.\n"
    "\n"
    "Process:\n"
    "  --cwd DIR            working directory (default /)\n"
    "  --env K=V            the program's environment is exactly these\n"
    "  --net none           network namespace holding only `lo`, up (the\n"
    "                       default)\n"
    "  --net host           the caller's network namespace: native egress\n"
    "                       (box.toml network.contain_egress = false), no\n"
    "                       gateway between the program and the network\n"
    "  --egress UNIX_PATH:PORT\n"
    "                       the one way out (the namespace still holds only\n"
    "                       lo): 127.0.0.1:PORT inside accepts TCP, bound\n"
    "                       before the program starts, and a relay in the\n"
    "                       sandbox (pid 2; the program is then pid 3)\n"
    "                       splices each connection, both ways, to a fresh\n"
    "                       connection to the Unix stream socket UNIX_PATH\n"
    "                       (absolute, at most 107 bytes, naming the socket,\n"
    "                       no '.' or '..' component; PORT 1..65535; given\n"
    "                       at most once). Its directory must exist: it is\n"
    "                       opened before the mounts change, so a --hide or\n"
    "                       --deny over it hides it from the program only.\n"
    "                       At most 256 connections (past that, accepted and\n"
    "                       reset) and 64 KiB per direction; an end is\n"
    "                       passed on as a half-close; when UNIX_PATH does\n"
    "                       not accept, the connection is reset at once\n"
    "\n"
    "Sandbox, in this order: user namespace (when not root; the caller's\n"
    "uid/gid map to themselves), mount+pid+ipc+uts+net namespaces, fork (the\n"
    "first child is pid 1 and reaps; the program is its child, pid 2, or 3\n"
    "with --egress),\n"
    "fresh /proc, the binds above, --deny masks, --hide covers, the --shells\n"
    "binds, hostname\n"
    "`box`, lo up, the --egress port listening, no_new_privs, Landlock,\n"
    "seccomp (ptrace, mount, bpf, keyctl, kexec, perf_event_open, io_uring,\n"
    "module loading, new user namespaces, clone3 (ENOSYS), ... refused),\n"
    "rlimits (NPROC 1024, NOFILE 4096, CORE 0; never raised), every\n"
    "capability dropped, the --egress relay forked (not dumpable; init keeps\n"
    "none of its fds), then the program: fds above 2 closed (a #! script\n"
    "keeps its own fd, which the interpreter reads through /dev/fd), signals\n"
    "reset to default.\n"
    "\n"
    "--probe checks every kernel feature and prints one line each:\n"
    "  NAME: ok (...) | NAME: missing (...) | NAME: unused (...)\n"
    "and exits 0 only if every needed feature is present. A missing feature\n"
    "makes a normal run refuse: `box-contain: refusing to run: ...`, 125.\n"
    "\n"
    "Exit: the program's status (signal n: 128+n); 125 box-contain's own\n"
    "failure or refusal; 126 identity changed or not executable; 127\n"
    "program or interpreter not found. Messages: stderr, `box-contain: `.\n";

const char *
contain_usage(void)
{
    return contain_usage_text;
}

typedef enum opt_kind {
    OPT_LIST, // one of the filesystem lists; ov_list says which
    OPT_CWD,
    OPT_ENV,
    OPT_NET,
    OPT_EGRESS,
    OPT_EXEC_FD,
    OPT_EXEC_PATH,
    OPT_EXEC_ID,
    OPT_HIDE,
    OPT_SHOW,
    OPT_SHELLS,
    OPT_PROBE,
    OPT_HELP,
} opt_kind;

typedef struct opt_row {
    const char *ov_name;
    opt_kind ov_kind;
    bool ov_arg;
    contain_list ov_list;
} opt_row;

static const opt_row contain_opts[] = {
    {"--read", OPT_LIST, true, CONTAIN_READ},
    {"--write", OPT_LIST, true, CONTAIN_WRITE},
    {"--read-file", OPT_LIST, true, CONTAIN_READ_FILE},
    {"--write-file", OPT_LIST, true, CONTAIN_WRITE_FILE},
    {"--list", OPT_LIST, true, CONTAIN_LIST},
    {"--metadata", OPT_LIST, true, CONTAIN_METADATA},
    {"--exec", OPT_LIST, true, CONTAIN_EXEC},
    {"--deny", OPT_LIST, true, CONTAIN_DENY},
    {"--cwd", OPT_CWD, true, 0},
    {"--env", OPT_ENV, true, 0},
    {"--net", OPT_NET, true, 0},
    {"--egress", OPT_EGRESS, true, 0},
    {"--exec-fd", OPT_EXEC_FD, true, 0},
    {"--exec-path", OPT_EXEC_PATH, true, 0},
    {"--exec-id", OPT_EXEC_ID, true, 0},
    {"--hide", OPT_HIDE, true, 0},
    {"--show", OPT_SHOW, true, 0},
    {"--shells", OPT_SHELLS, true, 0},
    {"--probe", OPT_PROBE, false, 0},
    {"--help", OPT_HELP, false, 0},
};

static box_status args_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static box_status
args_fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "box-contain: %s (see box-contain --help)\n", msg);
    return BOX_STATUS_FAULT;
}

// Whole-string decimal; false on junk, sign or overflow.
static bool
args_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}

// A '..' component anywhere (an absolute path cannot start with one).
static bool
args_dotdot(const char *v)
{
    size_t n = strlen(v);
    return strstr(v, "/../") != NULL ||
           (n >= 3 && strcmp(v + n - 3, "/..") == 0);
}

/* path lies strictly beneath dir (both absolute, compared as spelled). */
static bool
args_beneath(const char *dir, const char *path)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (strncmp(dir, path, n) != 0 || path[n] != '/')
        return false;
    while (path[n] == '/')
        n++;
    return path[n] != '\0';
}

/*
 * Every --show names something beneath a --hide (it is bound back over
 * that cover), and none lies inside another: the inner one's mount point
 * would have to be made inside the outer one, which is the host's own
 * directory.
 */
static box_status
args_shows(const contain_spec *spec)
{
    for (size_t i = 0; i < spec->cs_nshow; i++) {
        const char *s = spec->cs_show[i];
        bool under = false;

        for (size_t h = 0; h < spec->cs_nhide && !under; h++)
            under = args_beneath(spec->cs_hide[h], s);
        if (!under)
            return args_fail("--show %s: it lies beneath no --hide directory",
                             s);
        for (size_t k = 0; k < spec->cs_nshow; k++) {
            if (k != i && (args_beneath(spec->cs_show[k], s) ||
                           (k < i && strcmp(spec->cs_show[k], s) == 0)))
                return args_fail("--show %s: it lies inside --show %s", s,
                                 spec->cs_show[k]);
        }
    }
    return BOX_STATUS_OK;
}

static box_status
args_path(const opt_row *o, const char *v, contain_spec *spec)
{
    if (v[0] != '/')
        return args_fail("%s %s: the path must be absolute", o->ov_name, v);
    if (args_dotdot(v))
        return args_fail("%s %s: the path must not contain '..'", o->ov_name,
                         v);
    spec->cs_paths[spec->cs_npaths].cp_list = o->ov_list;
    spec->cs_paths[spec->cs_npaths].cp_path = v;
    spec->cs_npaths++;
    return BOX_STATUS_OK;
}

/*
 * --egress UNIX_PATH:PORT, split at the last ':' (a path may hold one).
 * The path must fit a sockaddr_un with its NUL and name a socket in a
 * directory: the relay connects to its last component from inside that
 * directory (contain_egress.c).
 */
static box_status
args_egress(const char *v, contain_spec *spec)
{
    const char *colon = strrchr(v, ':');
    size_t plen = colon != NULL ? (size_t)(colon - v) : 0;
    uint64_t port;

    if (spec->cs_egress_path[0] != '\0')
        return args_fail("--egress given twice");
    if (colon == NULL || plen == 0)
        return args_fail("--egress %s: expected UNIX_PATH:PORT", v);
    if (v[0] != '/')
        return args_fail("--egress %s: the socket path must be absolute", v);
    if (plen > CONTAIN_EGRESS_PATH_MAX)
        return args_fail("--egress %s: the socket path is %zu bytes; a Unix "
                         "socket address holds at most %d",
                         v, plen, CONTAIN_EGRESS_PATH_MAX);
    if (colon[-1] == '/')
        return args_fail("--egress %s: the socket path ends in '/'; it must "
                         "name the socket",
                         v);
    char path[CONTAIN_EGRESS_PATH_MAX + 1];
    memcpy(path, v, plen);
    path[plen] = '\0';
    if (args_dotdot(path) || strstr(path, "/./") != NULL ||
        (plen >= 2 && strcmp(path + plen - 2, "/.") == 0))
        return args_fail("--egress %s: the socket path must not contain '.' "
                         "or '..' components",
                         v);
    if (!args_u64(colon + 1, &port) || port < 1 || port > 65535)
        return args_fail("--egress %s: expected a port 1..65535 after the "
                         "last ':'",
                         v);
    memcpy(spec->cs_egress_path, path, plen + 1);
    spec->cs_egress_port = (unsigned)port;
    return BOX_STATUS_OK;
}

static box_status
args_one(const opt_row *o, const char *v, contain_spec *spec)
{
    uint64_t n, dev, ino;
    const char *colon;

    switch (o->ov_kind) {
    case OPT_LIST:
        return args_path(o, v, spec);
    case OPT_CWD:
        if (v[0] != '/')
            return args_fail("--cwd %s: the path must be absolute", v);
        spec->cs_cwd = v;
        return BOX_STATUS_OK;
    case OPT_ENV:
        if (v[0] == '=' || strchr(v, '=') == NULL)
            return args_fail("--env %s: expected NAME=VALUE", v);
        spec->cs_env[spec->cs_nenv++] = (char *)v;
        return BOX_STATUS_OK;
    case OPT_NET:
        if (strcmp(v, "none") != 0 && strcmp(v, "host") != 0)
            return args_fail("--net %s: the network modes are `none` and "
                             "`host`",
                             v);
        spec->cs_net_host = strcmp(v, "host") == 0;
        return BOX_STATUS_OK;
    case OPT_EGRESS:
        return args_egress(v, spec);
    case OPT_EXEC_FD:
        if (spec->cs_exec_fd >= 0)
            return args_fail("--exec-fd given twice");
        if (!args_u64(v, &n) || n < 3 || n > INT32_MAX)
            return args_fail("--exec-fd %s: expected a descriptor >= 3", v);
        spec->cs_exec_fd = (int)n;
        return BOX_STATUS_OK;
    case OPT_EXEC_PATH:
        if (spec->cs_exec_path != NULL)
            return args_fail("--exec-path given twice");
        if (v[0] != '/')
            return args_fail("--exec-path %s: the path must be absolute", v);
        spec->cs_exec_path = v;
        return BOX_STATUS_OK;
    case OPT_EXEC_ID:
        if (spec->cs_has_id)
            return args_fail("--exec-id given twice");
        colon = strchr(v, ':');
        if (colon == NULL)
            return args_fail("--exec-id %s: expected DEV:INO", v);
        char devs[32];
        size_t dl = (size_t)(colon - v);
        if (dl == 0 || dl >= sizeof devs)
            return args_fail("--exec-id %s: expected DEV:INO", v);
        memcpy(devs, v, dl);
        devs[dl] = '\0';
        if (!args_u64(devs, &dev) || !args_u64(colon + 1, &ino))
            return args_fail("--exec-id %s: expected decimal DEV:INO", v);
        spec->cs_dev = (dev_t)dev;
        spec->cs_ino = (ino_t)ino;
        spec->cs_has_id = true;
        return BOX_STATUS_OK;
    case OPT_HIDE:
        if (v[0] != '/' || strcmp(v, "/") == 0)
            return args_fail("--hide %s: expected an absolute directory "
                             "other than /",
                             v);
        spec->cs_hide[spec->cs_nhide++] = v;
        return BOX_STATUS_OK;
    case OPT_SHOW:
        if (v[0] != '/' || args_dotdot(v))
            return args_fail("--show %s: expected an absolute path without "
                             "'..'",
                             v);
        spec->cs_show[spec->cs_nshow++] = v;
        return BOX_STATUS_OK;
    case OPT_SHELLS:
        if (spec->cs_shells != NULL)
            return args_fail("--shells given twice");
        if (v[0] != '/' || args_dotdot(v))
            return args_fail("--shells %s: expected an absolute path without "
                             "'..'",
                             v);
        spec->cs_shells = v;
        return BOX_STATUS_OK;
    case OPT_PROBE:
        spec->cs_probe = true;
        return BOX_STATUS_OK;
    case OPT_HELP:
        spec->cs_help = true;
        return BOX_STATUS_OK;
    }
    return args_fail("internal: unknown option kind");
}

box_status
contain_parse(int argc, char **argv, contain_spec *spec)
{
    size_t cap = argc > 0 ? (size_t)argc : 1;
    int i;
    box_status st;

    memset(spec, 0, sizeof *spec);
    spec->cs_exec_fd = -1;
    spec->cs_paths = box_calloc(cap, sizeof *spec->cs_paths);
    spec->cs_env = box_calloc(cap + 1, sizeof *spec->cs_env);
    spec->cs_hide = box_calloc(cap, sizeof *spec->cs_hide);
    spec->cs_show = box_calloc(cap, sizeof *spec->cs_show);
    if (spec->cs_paths == NULL || spec->cs_env == NULL ||
        spec->cs_hide == NULL || spec->cs_show == NULL) {
        fprintf(stderr, "box-contain: out of memory\n");
        return BOX_STATUS_FAULT;
    }
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const opt_row *o = NULL;

        if (strcmp(a, "--") == 0) {
            spec->cs_argv = argv + i + 1;
            break;
        }
        for (size_t k = 0; k < sizeof contain_opts / sizeof *contain_opts;
             k++) {
            if (strcmp(a, contain_opts[k].ov_name) == 0) {
                o = &contain_opts[k];
                break;
            }
        }
        if (o == NULL)
            return args_fail("unknown option %s", a);
        if (o->ov_arg && i + 1 >= argc)
            return args_fail("%s needs a value", a);
        st = args_one(o, o->ov_arg ? argv[i + 1] : NULL, spec);
        if (st != BOX_STATUS_OK)
            return st;
        if (o->ov_arg)
            i++;
    }
    if (spec->cs_help || spec->cs_probe) {
        if (i < argc || spec->cs_npaths || spec->cs_nenv || spec->cs_nhide ||
            spec->cs_nshow || spec->cs_exec_fd >= 0 || spec->cs_exec_path ||
            spec->cs_egress_port != 0 || spec->cs_shells != NULL)
            return args_fail("--probe and --help take no other arguments");
        return BOX_STATUS_OK;
    }
    if (spec->cs_argv == NULL || spec->cs_argv[0] == NULL)
        return args_fail("missing `-- ARGV0 [ARGS...]`");
    if (spec->cs_net_host && spec->cs_egress_port != 0)
        return args_fail("--net host and --egress do not go together: a "
                         "program on the host's network needs no relay");
    if ((spec->cs_exec_fd >= 0) == (spec->cs_exec_path != NULL))
        return args_fail("give exactly one of --exec-fd N and --exec-path P");
    if (spec->cs_exec_path != NULL && !spec->cs_has_id)
        return args_fail("--exec-path %s needs --exec-id DEV:INO, the "
                         "identity the caller decided on",
                         spec->cs_exec_path);
    return args_shows(spec);
}

void
contain_spec_free(contain_spec *spec)
{
    box_free(spec->cs_paths);
    box_free(spec->cs_env);
    box_free(spec->cs_hide);
    box_free(spec->cs_show);
    spec->cs_hide = NULL;
    spec->cs_show = NULL;
    spec->cs_paths = NULL;
    spec->cs_env = NULL;
}
