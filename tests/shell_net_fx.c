/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: the real services for the shell's HTTP client (see
 * shell_net_fx.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_control.h"
#include "box_proc.h"
#include "box_req.h"
#include "box_testutil.h"
#include "gw_ca.h"
#include "shell_net_fx.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#define SC_START_MS 60000
#define SC_RUN_MS 60000

static const char nf_policy[] =
    "@id(\"all\") permit (principal, action, resource);\n"
    "@id(\"nosecret\") @description(\"No secrets.\") forbid (principal, "
    "action == Box::Action::\"http:request\", resource) when { "
    "context.input.path like \"/secret*\" };\n"
    "@id(\"noblocked\") forbid (principal, action == "
    "Box::Action::\"net:connect\", resource) when { context.input.host == "
    "\"blocked.invalid\" };\n"
    "@id(\"nowrite\") forbid (principal, action == Box::Action::\"fs:write\", "
    "resource) when { context.input.path like \"*forbidden*\" };\n";

/* ---- the upstream: one request a connection, by path ---- */

typedef struct upstream {
    SSL_CTX *us_tls; // NULL: plain
    int us_fd;
    unsigned us_port;
    pthread_t us_thread;
} upstream;

static void
us_send(int fd, SSL *ssl, const char *p, size_t n)
{
    if (ssl != NULL)
        (void)SSL_write(ssl, p, (int)n);
    else
        (void)send(fd, p, n, MSG_NOSIGNAL);
}

static void
us_conn(int fd, SSL *ssl)
{
    char in[8192];
    size_t n = 0;
    while (n < sizeof in - 1) {
        int r = ssl != NULL ? SSL_read(ssl, in + n, (int)(sizeof in - 1 - n))
                            : (int)recv(fd, in + n, sizeof in - 1 - n, 0);
        if (r <= 0)
            return;
        n += (size_t)r;
        in[n] = '\0';
        if (strstr(in, "\r\n\r\n") != NULL)
            break;
    }
    char path[256] = "";
    if (sscanf(in, "%*s %255s", path) != 1)
        return;
    const char *status = "200 OK", *body = "hello\n";
    if (strcmp(path, "/404") == 0) {
        status = "404 Not Found";
        body = "nope\n";
    } else if (strcmp(path, "/slow") == 0) {
        struct timespec ts = {.tv_sec = 4};
        nanosleep(&ts, NULL);
    }
    char resp[512];
    int k = snprintf(resp, sizeof resp,
                     "HTTP/1.1 %s\r\ncontent-type: text/plain\r\n"
                     "content-length: %zu\r\nconnection: close\r\n\r\n%s",
                     status, strlen(body), body);
    us_send(fd, ssl, resp, (size_t)k);
}

static void *
us_main(void *arg)
{
    upstream *us = arg;
    for (;;) {
        int fd = accept(us->us_fd, NULL, NULL);
        if (fd < 0)
            return NULL; // closed by the teardown
        SSL *ssl = NULL;
        if (us->us_tls != NULL) {
            ssl = SSL_new(us->us_tls);
            SSL_set_fd(ssl, fd);
            if (SSL_accept(ssl) != 1) {
                ERR_clear_error();
                SSL_free(ssl);
                close(fd);
                continue;
            }
        }
        us_conn(fd, ssl);
        if (ssl != NULL) {
            SSL_shutdown(ssl);
            SSL_free(ssl);
        }
        close(fd);
    }
}

static void
us_start(upstream *us, SSL_CTX *tls)
{
    memset(us, 0, sizeof *us);
    us->us_tls = tls;
    us->us_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof in;
    assert_int_equal(bind(us->us_fd, (struct sockaddr *)&in, sizeof in), 0);
    assert_int_equal(listen(us->us_fd, 16), 0);
    assert_int_equal(getsockname(us->us_fd, (struct sockaddr *)&in, &sl), 0);
    us->us_port = ntohs(in.sin_port);
    assert_int_equal(pthread_create(&us->us_thread, NULL, us_main, us), 0);
}

static void
us_stop(upstream *us)
{
    shutdown(us->us_fd, SHUT_RDWR);
    close(us->us_fd);
    pthread_join(us->us_thread, NULL);
    SSL_CTX_free(us->us_tls);
}

/* ---- the box: pdp, gateway, shell, alias ---- */

struct fx {
    char dir[64], work[64]; // the box dir; the workspace (-o writes there)
    char host[HOST_NAME_MAX + 1]; // names the upstream (NET_FX_HOST)
    char hosts[160];              // the gateway's --hosts-file
    char pdp[160], pub[160], gw_ctl[160], sh_ctl[160], sock[160], ca[160];
    char up_ca[160], gw_addr[64];
    box_proc pdp_p, gw_p, sh_p;
    upstream us, tus;
};

static void
start(box_proc *p, char **argv)
{
    assert_true(box_proc_start(p, argv, NULL));
}

static void
stop(box_proc *p)
{
    if (p->bp_pid <= 0)
        return;
    kill(p->bp_pid, SIGTERM);
    box_proc_result r;
    box_proc_finish(p, 15000, &r);
    box_proc_result_free(&r);
}

static void
gw_start(fx *f)
{
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box-gateway");
    snprintf(f->hosts, sizeof f->hosts, "%s/run/hosts", f->dir);
    box_test_put(f->hosts, "127.0.0.1 " NET_FX_HOST "\n");
    char *argv[] = {bin,       "--pdp",         f->pdp,   "--control",
                    f->gw_ctl, "--socket",      f->sock,  "--ca-cert",
                    f->ca,     "--upstream-ca", f->up_ca, "--hosts-file",
                    f->hosts,  NULL};
    start(&f->gw_p, argv);
    uint64_t deadline = (uint64_t)box_test_now_ms() + SC_START_MS;
    box_health_probe *p = NULL;
    Box__HealthResponse *h = NULL;
    assert_int_equal(box_health_probe_open(f->gw_ctl, false, 1000, &p), BOX_OK);
    while ((uint64_t)box_test_now_ms() < deadline &&
           box_health_probe_ask(p, &h) != BOX_OK)
        box_test_sleep_ms(20);
    box_health_probe_close(p);
    assert_non_null(h);
    snprintf(f->gw_addr, sizeof f->gw_addr, "%s", h->listen_address);
    box__health_response__free_unpacked(h, NULL);
}

static void
sh_start(fx *f)
{
    char bin[PATH_MAX], sock[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box-shell");
    char *argv[] = {bin,        "--box-dir",
                    f->dir,     "--pdp",
                    f->pdp,     "--epoch-pub",
                    f->pub,     "--workspace",
                    f->work,    "--control",
                    f->sh_ctl,  "--gateway",
                    f->gw_addr, "--egress-socket",
                    f->sock,    "--trust-cert",
                    f->ca,      NULL};
    start(&f->sh_p, argv);
    snprintf(sock, sizeof sock, "%s/run/box.sock", f->dir);
    for (int i = 0; i < 3000; i++) {
        struct stat sb;
        if (stat(sock, &sb) == 0)
            return;
        box_test_sleep_ms(10);
    }
    fail_msg("box-shell did not start serving %s", f->dir);
}

int
net_fx_setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    assert_non_null(f);
    // The URLs name origin.test, which the gateway alone resolves (its
    // --hosts-file): the shell's floor judges the spelling, a name.
    snprintf(f->host, sizeof f->host, "%s", NET_FX_HOST);
    snprintf(f->dir, sizeof f->dir, "/tmp/box-net-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->work, sizeof f->work, "/tmp/box-net-w-XXXXXX");
    assert_non_null(mkdtemp(f->work));
    char p[PATH_MAX], bin[PATH_MAX], policy[PATH_MAX], log[PATH_MAX];
    const char *subs[] = {"bin", "run", "trust"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", f->dir, subs[i]);
        assert_int_equal(mkdir(p, 0700), 0);
    }
    box_proc_bin(bin, sizeof bin, "box-alias");
    snprintf(p, sizeof p, "%s/bin/sh", f->dir);
    box_test_copy(bin, p, 0500);
    snprintf(f->pdp, sizeof f->pdp, "ipc://%s/run/pdp.sock", f->dir);
    snprintf(f->pub, sizeof f->pub, "ipc://%s/run/pdp-epoch.sock", f->dir);
    snprintf(f->gw_ctl, sizeof f->gw_ctl, "ipc://%s/run/gw-ctl.sock", f->dir);
    snprintf(f->sh_ctl, sizeof f->sh_ctl, "ipc://%s/run/shell-ctl.sock",
             f->dir);
    snprintf(f->sock, sizeof f->sock, "%s/run/egress.sock", f->dir);
    snprintf(f->ca, sizeof f->ca, "%s/trust/cert.pem", f->dir);
    snprintf(f->up_ca, sizeof f->up_ca, "%s/run/upstream-ca.pem", f->dir);
    snprintf(policy, sizeof policy, "%s/run/policy.dw", f->dir);
    snprintf(log, sizeof log, "%s/run/records.jsonl", f->dir);
    box_test_put(policy, nf_policy);
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,        "--listen", f->pdp,  "--epoch-pub", f->pub,
                    "--policy", policy,     "--log", log,           NULL};
    start(&f->pdp_p, argv);
    Box__HealthResponse *h = box_wait_pdp(f->pdp, SC_START_MS);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);
    // The TLS upstream's CA stands for the public roots (--upstream-ca);
    // its leaf names the host the URLs use.
    gw_ca *up = NULL;
    char *err = NULL;
    SSL_CTX *tls = NULL;
    assert_int_equal(gw_ca_new(&up, &err), BOX_OK);
    assert_int_equal(gw_ca_write_cert(up, f->up_ca, &err), BOX_OK);
    assert_int_equal(gw_ca_server_ctx(up, f->host, &tls, &err), BOX_OK);
    gw_ca_free(up);
    us_start(&f->us, NULL);
    us_start(&f->tus, tls);
    gw_start(f);
    sh_start(f);
    *state = f;
    return 0;
}

int
net_fx_teardown(void **state)
{
    fx *f = *state;
    if (f == NULL)
        return 0;
    stop(&f->sh_p);
    stop(&f->gw_p);
    stop(&f->pdp_p);
    us_stop(&f->us);
    us_stop(&f->tus);
    box_test_rmtree(f->dir);
    box_test_rmtree(f->work);
    box_free(f);
    return 0;
}

/* Runs `sh -c SCRIPT` through the box's alias (net_fx.h's %H %P %T). */
static void
run(const fx *f, const char *script, box_proc_result *r)
{
    char text[2048], path[PATH_MAX];
    size_t o = 0;
    for (const char *s = script; *s != '\0' && o < sizeof text - 64; s++) {
        if (s[0] == '%' && (s[1] == 'H' || s[1] == 'P' || s[1] == 'T')) {
            s++;
            if (*s == 'H')
                o += (size_t)snprintf(text + o, sizeof text - o, "%s", f->host);
            else
                o += (size_t)snprintf(text + o, sizeof text - o, "%u",
                                      *s == 'P' ? f->us.us_port
                                                : f->tus.us_port);
        } else {
            text[o++] = *s;
        }
    }
    text[o] = '\0';
    snprintf(path, sizeof path, "%s/bin/sh", f->dir);
    char *argv[] = {path, "-c", text, NULL};
    box_proc_run(argv, SC_RUN_MS, r);
    assert_false(r->pr_timeout);
}

void
net_fx_expect(const fx *f, const char *script, int status, const char *out,
              const char *want_err)
{
    box_proc_result r;
    run(f, script, &r);
    size_t wl = strlen(want_err);
    bool prefix = wl > 0 && want_err[wl - 1] == '*';
    bool err_ok = prefix ? strncmp(r.pr_err, want_err, wl - 1) == 0
                         : strcmp(r.pr_err, want_err) == 0;
    if (r.pr_status != status || strcmp(r.pr_out, out) != 0 || !err_ok)
        print_error("%s: status %d (want %d) out [%.300s] (want [%s]) err "
                    "[%.500s] (want [%s])\n",
                    script, r.pr_status, status, r.pr_out, out, r.pr_err,
                    want_err);
    assert_int_equal(r.pr_status, status);
    assert_string_equal(r.pr_out, out);
    assert_true(err_ok);
    box_proc_result_free(&r);
}
