/* SPDX-License-Identifier: Apache-2.0 */
/* contain_probe: a test helper that runs inside box-contain and reports what
 * the kernel allowed. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Usage: contain_probe CMD [ARG...] [CMD [ARG...]]...
 *   read PATH | write PATH | unlink PATH | rename FROM TO | list DIR |
 *   exec PATH | mmap PATH |
 *   connect IP PORT | unix PATH | loopback | ifaces | syscalls | env | fds |
 *   pid | hostname | caps | exit N | kill SIG | sleep
 * Each command prints one line `CMD ...: ok` or `CMD ...: ERRNO_NAME`
 * (list: `list DIR: NAME NAME ...`, sorted, or the error).
 */

static const char *
errname(int err)
{
    const char *n = strerrorname_np(err);
    return n != NULL ? n : "E?";
}

/* A whole decimal number in [lo, hi]: true and *out, or false for junk,
 * an empty string or a value out of range. */
static bool
parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* A number argument, or exit 2 naming it. */
static int
int_arg(const char *s, long lo, long hi)
{
    int v;
    if (!parse_int(s, lo, hi, &v)) {
        fprintf(stderr, "contain_probe: not a number in %ld..%ld: %s\n", lo,
                hi, s);
        exit(2);
    }
    return v;
}

static void
report(const char *what, int rc)
{
    printf("%s: %s\n", what, rc == 0 ? "ok" : errname(errno));
}

static int
do_read(const char *path)
{
    char buf[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf);
    int err = errno;
    close(fd);
    errno = err;
    return n < 0 ? -1 : 0;
}

static int
do_write(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, "x\n", 2);
    int err = errno;
    close(fd);
    errno = err;
    return n == 2 ? 0 : -1;
}

/* What the dynamic loader does with a program or a shared object: map
 * its first page executable from a read-only open. */
static int
do_mmap(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    int err = errno;
    close(fd);
    if (p == MAP_FAILED) {
        errno = err;
        return -1;
    }
    munmap(p, 4096);
    return 0;
}

static int
do_connect(const char *ip, const char *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    sa.sin_port = htons((uint16_t)int_arg(port, 0, 65535));
    inet_pton(AF_INET, ip, &sa.sin_addr);
    int rc = connect(s, (struct sockaddr *)&sa, sizeof sa);
    int err = errno;
    close(s);
    errno = err;
    return rc;
}

/*
 * Starts PATH (no arguments, empty environment) and waits for it: ok when
 * the exec itself succeeded, whatever the program then did. The child
 * reports a failed exec's errno through a close-on-exec pipe.
 */
static int
do_exec(const char *path)
{
    int p[2], err = 0;
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)path, NULL}, *envp[] = {NULL};
        close(p[0]);
        execve(path, argv, envp);
        err = errno;
        if (write(p[1], &err, sizeof err) < 0)
            _exit(126);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    ssize_t n = read(p[0], &err, sizeof err);
    close(p[0]);
    waitpid(pid, NULL, 0);
    errno = err;
    return n == (ssize_t)sizeof err ? -1 : 0;
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

// The entries of DIR but . and .., sorted, on one line.
static void
do_list(const char *dir)
{
    DIR *d = opendir(dir);
    char names[64][NAME_MAX + 1];
    size_t n = 0;
    struct dirent *de;

    printf("list %s:", dir);
    if (d == NULL) {
        printf(" %s\n", errname(errno));
        return;
    }
    while ((de = readdir(d)) != NULL && n < 64) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++)
        printf(" %s", names[i]);
    printf("\n");
}

// Connects to a Unix socket by path (Landlock does not govern this).
static int
do_unix(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    int rc = connect(s, (struct sockaddr *)&sa, sizeof sa);
    int err = errno;
    close(s);
    errno = err;
    return rc;
}

// Listen on 127.0.0.1:0 and connect to it: lo is up inside.
static int
do_loopback(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof sa;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = -1;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l >= 0 && c >= 0 && bind(l, (struct sockaddr *)&sa, sizeof sa) == 0 &&
        listen(l, 1) == 0 && getsockname(l, (struct sockaddr *)&sa, &len) == 0)
        rc = connect(c, (struct sockaddr *)&sa, sizeof sa);
    int err = errno;
    close(l);
    close(c);
    errno = err;
    return rc;
}

static void
do_ifaces(void)
{
    struct if_nameindex *ifs = if_nameindex();
    printf("ifaces:");
    for (struct if_nameindex *i = ifs; i != NULL && i->if_index != 0; i++)
        printf(" %s", i->if_name);
    printf("%s\n", ifs == NULL ? " ERROR" : "");
    if (ifs != NULL)
        if_freenameindex(ifs);
}

static long
try_clone(long flags)
{
    long pid = syscall(SYS_clone, flags | SIGCHLD, 0, NULL, NULL, 0);
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return pid > 0 ? 0 : -1;
}

// The first eight fields of the kernel's struct clone_args
// (CLONE_ARGS_SIZE_VER0).
struct probe_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
        stack_size, tls;
};

static long
try_clone3(void)
{
    struct probe_clone_args ca;
    memset(&ca, 0, sizeof ca);
    ca.exit_signal = SIGCHLD;
    long pid = syscall(SYS_clone3, &ca, sizeof ca);
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return pid > 0 ? 0 : -1;
}

static void
do_syscalls(void)
{
    char params[120];
    memset(params, 0, sizeof params);
    report("ptrace", (int)ptrace(PTRACE_TRACEME, 0, NULL, NULL));
    report("mount", mount("none", "/tmp", "tmpfs", 0, NULL));
    report("umount2", umount2("/proc", MNT_DETACH));
    report("unshare_user", unshare(CLONE_NEWUSER));
    report("clone_newuser", (int)try_clone(CLONE_NEWUSER));
    report("clone3", (int)try_clone3());
    report("io_uring_setup", (int)syscall(SYS_io_uring_setup, 1, params));
    report("bpf", (int)syscall(SYS_bpf, 0, NULL, 0));
    report("keyctl", (int)syscall(SYS_keyctl, 0, -3, 0));
    report("setns", (int)syscall(SYS_setns, 0, 0));
    report("userfaultfd", (int)syscall(SYS_userfaultfd, 0));
    report("fork", (int)try_clone(0));
}

static void
do_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;
    int n = 0;

    printf("fds:");
    if (d == NULL) {
        printf(" %s\n", errname(errno));
        return;
    }
    while ((de = readdir(d)) != NULL) {
        int fd;
        if (!parse_int(de->d_name, 0, INT_MAX, &fd) || fd <= 2 ||
            fd == dirfd(d))
            continue;
        printf(" %d", fd);
        n++;
    }
    closedir(d);
    printf("%s\n", n == 0 ? " none" : "");
}

static void
do_caps(void)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) {
        printf("caps: %s\n", errname(errno));
        return;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "CapEff:", 7) == 0 ||
            strncmp(line, "CapBnd:", 7) == 0 ||
            strncmp(line, "NoNewPrivs:", 11) == 0 ||
            strncmp(line, "Seccomp:", 8) == 0)
            fputs(line, stdout);
    }
    fclose(f);
}

int
main(int argc, char **argv)
{
    extern char **environ;
    char what[512];

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        const char *c = argv[i];
        if (strcmp(c, "read") == 0 && i + 1 < argc) {
            snprintf(what, sizeof what, "read %s", argv[i + 1]);
            report(what, do_read(argv[++i]));
        } else if (strcmp(c, "write") == 0 && i + 1 < argc) {
            snprintf(what, sizeof what, "write %s", argv[i + 1]);
            report(what, do_write(argv[++i]));
        } else if (strcmp(c, "unlink") == 0 && i + 1 < argc) {
            snprintf(what, sizeof what, "unlink %s", argv[i + 1]);
            report(what, unlink(argv[++i]));
        } else if (strcmp(c, "rename") == 0 && i + 2 < argc) {
            snprintf(what, sizeof what, "rename %s %s", argv[i + 1],
                     argv[i + 2]);
            report(what, rename(argv[i + 1], argv[i + 2]));
            i += 2;
        } else if (strcmp(c, "mmap") == 0 && i + 1 < argc) {
            snprintf(what, sizeof what, "mmap %s", argv[i + 1]);
            report(what, do_mmap(argv[++i]));
        } else if (strcmp(c, "exec") == 0 && i + 1 < argc) {
            snprintf(what, sizeof what, "exec %s", argv[i + 1]);
            report(what, do_exec(argv[++i]));
        } else if (strcmp(c, "list") == 0 && i + 1 < argc) {
            do_list(argv[++i]);
        } else if (strcmp(c, "connect") == 0 && i + 2 < argc) {
            snprintf(what, sizeof what, "connect %s %s", argv[i + 1],
                     argv[i + 2]);
            report(what, do_connect(argv[i + 1], argv[i + 2]));
            i += 2;
        } else if (strcmp(c, "unix") == 0 && i + 1 < argc) {
            snprintf(what, sizeof what, "unix %s", argv[i + 1]);
            report(what, do_unix(argv[++i]));
        } else if (strcmp(c, "loopback") == 0) {
            report("loopback", do_loopback());
        } else if (strcmp(c, "ifaces") == 0) {
            do_ifaces();
        } else if (strcmp(c, "syscalls") == 0) {
            do_syscalls();
        } else if (strcmp(c, "env") == 0) {
            for (char **e = environ; *e != NULL; e++)
                printf("%s\n", *e);
        } else if (strcmp(c, "fds") == 0) {
            do_fds();
        } else if (strcmp(c, "pid") == 0) {
            printf("pid=%d ppid=%d\n", (int)getpid(), (int)getppid());
        } else if (strcmp(c, "hostname") == 0) {
            char h[256] = "";
            gethostname(h, sizeof h - 1);
            printf("hostname=%s\n", h);
        } else if (strcmp(c, "caps") == 0) {
            do_caps();
        } else if (strcmp(c, "exit") == 0 && i + 1 < argc) {
            return int_arg(argv[++i], 0, 255);
        } else if (strcmp(c, "kill") == 0 && i + 1 < argc) {
            fflush(stdout);
            raise(int_arg(argv[++i], 1, 64));
            return 99;
        } else if (strcmp(c, "sleep") == 0) {
            printf("ready\n");
            for (;;)
                pause();
        } else {
            fprintf(stderr, "contain_probe: unknown command %s\n", c);
            return 2;
        }
    }
    return 0;
}
