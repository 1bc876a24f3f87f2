/* SPDX-License-Identifier: Apache-2.0 */
/* Squid and tinyproxy for `box bench gateway` (box_bench_proxies.h): one
 * row each, a configuration written per run, started and stopped. */
#include "box_bench_proxies.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <netinet/in.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_bench_box.h"
#include "box_svc.h"

extern char **environ;

#define BP_START_MS 20000
#define BP_CONF_MAX 2048

/* Writes the peer's configuration text for p->pp_port into conf (n
 * bytes), preparing what it needs under tmp; may set pp_log and
 * pp_service. */
typedef bool (*bp_conf_fn)(const char *tmp, bp_proxy *p, char *conf, size_t n);

static bool bp_squid_conf(const char *tmp, bp_proxy *p, char *conf, size_t n);
static bool bp_tinyproxy_conf(const char *tmp, bp_proxy *p, char *conf,
                              size_t n);

/* ORDER BP_PEER */
static const struct {
    const char *pr_name;
    const char *pr_path; // where Debian puts it, when not on PATH
    bp_conf_fn pr_conf;
    const char *pr_flags[2]; // foreground, then the flag before the config
} bp_tab[BP_COUNT] = {
    [BP_SQUID] = {"squid", "/usr/sbin/squid", bp_squid_conf, {"-N", "-f"}},
    [BP_TINYPROXY] = {"tinyproxy",
                      "/usr/bin/tinyproxy",
                      bp_tinyproxy_conf,
                      {"-d", "-c"}},
};

const char *
bp_name(bp_id id)
{
    return bp_tab[id].pr_name;
}

/*
 * Squid 5 as a plain forward proxy. Started as root it must drop to an
 * unprivileged user (it refuses to serve as root), so its log and pid
 * file go to a subdirectory that user owns. No DNS is needed for
 * 127.0.0.1; the resolver points at loopback so it never asks outside.
 * Its shared memory segments (/dev/shm/NAME-*) are named by its service
 * name: one of this run's own, so a segment a crashed squid left behind
 * (it refuses to start over one) is never ours, and ours go at bp_stop.
 */
static bool
bp_squid_conf(const char *tmp, bp_proxy *p, char *conf, size_t n)
{
    char dir[96], user[64] = "";
    snprintf(dir, sizeof dir, "%s/squid", tmp);
    snprintf(p->pp_log, sizeof p->pp_log, "%s/cache.log", dir);
    snprintf(p->pp_service, sizeof p->pp_service, "boxbench%ld",
             (long)getpid());
    if (mkdir(dir, 0755) != 0)
        return bb_fail("mkdir %s: %s", dir, strerror(errno));
    if (geteuid() == 0) {
        struct passwd *pw = getpwnam("proxy");
        if (pw == NULL)
            pw = getpwnam("nobody");
        if (pw == NULL || chown(dir, pw->pw_uid, pw->pw_gid) != 0)
            return bb_fail("squid: no user to run as (proxy or nobody)");
        snprintf(user, sizeof user, "cache_effective_user %s\n", pw->pw_name);
    }
    int k = snprintf(conf, n,
                     "# box bench gateway: a forward proxy for 127.0.0.1\n"
                     "http_port 127.0.0.1:%u\n"
                     "http_access allow localhost\n"
                     "http_access deny all\n"
                     "cache deny all\n"
                     "cache_mem 0 MB\n"
                     "access_log none\n"
                     "cache_store_log none\n"
                     "cache_log %s\n"
                     "pid_filename %s/squid.pid\n"
                     "coredump_dir %s\n"
                     "shutdown_lifetime 0 seconds\n"
                     "pinger_enable off\n"
                     "dns_nameservers 127.0.0.1\n"
                     "%s",
                     p->pp_port, p->pp_log, dir, dir, user);
    return k > 0 && (size_t)k < n;
}

/* tinyproxy 1.11; it logs errors only, to its stderr (-d). */
static bool
bp_tinyproxy_conf(const char *tmp, bp_proxy *p, char *conf, size_t n)
{
    int k = snprintf(conf, n,
                     "# box bench gateway: a forward proxy for 127.0.0.1\n"
                     "Port %u\n"
                     "Listen 127.0.0.1\n"
                     "Allow 127.0.0.1\n"
                     "Timeout 60\n"
                     "MaxClients 1024\n"
                     "LogLevel Error\n"
                     "PidFile \"%s/tinyproxy.pid\"\n",
                     p->pp_port, tmp);
    return k > 0 && (size_t)k < n;
}

/* The program: the first name on PATH, else Debian's place. */
static bool
bp_find(bp_id id, char *out, size_t n)
{
    const char *path = getenv("PATH");
    const char *name = bp_tab[id].pr_name;
    while (path != NULL && *path != '\0') {
        size_t len = strcspn(path, ":");
        if (len > 0 &&
            snprintf(out, n, "%.*s/%s", (int)len, path, name) < (int)n &&
            access(out, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    snprintf(out, n, "%s", bp_tab[id].pr_path);
    return access(out, X_OK) == 0;
}

/* A port free on 127.0.0.1 now (the peer binds it a moment later). */
static unsigned
bp_free_port(void)
{
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof in;
    unsigned port = 0;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&in, sizeof in) == 0 &&
        getsockname(fd, (struct sockaddr *)&in, &len) == 0)
        port = ntohs(in.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static bool
bp_accepts(unsigned port)
{
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&in, sizeof in) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static bool
bp_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "wx");
    bool ok = f != NULL && fputs(text, f) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = false;
    return ok || bb_fail("cannot write %s: %s", path, strerror(errno));
}

bool
bp_start(bp_id id, const char *tmp, bp_proxy *p)
{
    const char *name = bp_tab[id].pr_name;
    char prog[4096], conf[BP_CONF_MAX];
    *p = (bp_proxy){.pp_id = id};
    if (!bp_find(id, prog, sizeof prog)) {
        printf("%s: not installed (apt-get install %s)\n", name, name);
        return false;
    }
    snprintf(p->pp_out, sizeof p->pp_out, "%s/%s.out", tmp, name);
    snprintf(p->pp_conf, sizeof p->pp_conf, "%s/%s.conf", tmp, name);
    if ((p->pp_port = bp_free_port()) == 0 ||
        !bp_tab[id].pr_conf(tmp, p, conf, sizeof conf) ||
        !bp_write(p->pp_conf, conf)) {
        printf("%s: cannot be configured; left out\n", name);
        return false;
    }
    char *argv[] = {prog,
                    (char *)bp_tab[id].pr_flags[0],
                    (char *)bp_tab[id].pr_flags[1],
                    p->pp_conf,
                    p->pp_service[0] ? "-n" : NULL,
                    p->pp_service,
                    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, p->pp_out,
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int rv = box_svc_spawn(&p->pp_pid, prog, &fa, argv, environ, 0);
    posix_spawn_file_actions_destroy(&fa);
    if (rv != 0) {
        p->pp_pid = 0;
        printf("%s: cannot start %s: %s; left out\n", name, prog, strerror(rv));
        return false;
    }
    for (uint64_t end = box_svc_now_ms() + BP_START_MS;
         box_svc_now_ms() < end && bb_alive(&p->pp_pid);) {
        if (bp_accepts(p->pp_port))
            return true;
        usleep(20000);
    }
    printf("%s: %s on 127.0.0.1:%u; left out\n", name,
           p->pp_pid > 0 ? "did not start serving" : "exited before serving",
           p->pp_port);
    bp_stop(p);
    bb_tail(p->pp_out);
    if (p->pp_log[0] != '\0')
        bb_tail(p->pp_log);
    return false;
}

void
bp_stop(bp_proxy *p)
{
    if (p->pp_pid > 0 && !bb_stop(&p->pp_pid, bp_tab[p->pp_id].pr_name)) {
        bb_tail(p->pp_out);
        if (p->pp_log[0] != '\0')
            bb_tail(p->pp_log);
    }
    // What a squid that did not exit cleanly left in shared memory.
    char pat[64];
    glob_t gl;
    if (p->pp_service[0] == '\0' ||
        snprintf(pat, sizeof pat, "/dev/shm/%s-*", p->pp_service) >=
            (int)sizeof pat ||
        glob(pat, 0, NULL, &gl) != 0)
        return;
    for (size_t i = 0; i < gl.gl_pathc; i++)
        unlink(gl.gl_pathv[i]);
    globfree(&gl);
}
