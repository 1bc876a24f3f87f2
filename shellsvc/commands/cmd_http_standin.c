/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: the stand-in gateway curl's and wget's tests share (see
 * cmd_http_standin.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_procspec.h"
#include "box_seccomp.h"
#include "cmd_http_standin.h"
#include "cmd_test_table.h"

/* One answer for one request on fd: by its request line. */
static void
gw_answer(int fd, const char *req, size_t n)
{
    char out[512];
    const char *body = "";
    const char *extra = "";
    int code = 200;
    char *big = NULL;
    size_t blen;
    if (strncmp(req, "CONNECT example.com:443 ", 24) == 0) {
        code = 403;
        extra = "x-strands-box-egress: refused\r\n";
        body = "net:connect gate: policy denied this operation on "
               "'example.com' [policy: no_example].";
    } else if (strncmp(req, "CONNECT empty.com:443 ", 22) == 0) {
        code = 502;
    } else if (strncmp(req, "CONNECT ", 8) == 0) {
        code = 502;
        body = "upstream connect failed";
    } else if (strstr(req, " http://example.com/ok ") != NULL) {
        body = "hello\n";
        extra = "Content-Type: text/plain\r\n";
    } else if (strstr(req, " http://example.com/refused ") != NULL) {
        code = 403;
        extra = "x-strands-box-egress: refused\r\n";
        body = REFUSAL "\nsecond line\n";
    } else if (strstr(req, " http://example.com/refused-empty ") != NULL) {
        code = 403;
        extra = "X-Strands-Box-Egress: refused\r\n";
    } else if (strstr(req, " http://example.com/404 ") != NULL) {
        code = 404;
        body = "nope\n";
    } else if (strstr(req, " http://example.com/redir ") != NULL) {
        code = 302;
        extra = "Location: http://example.com/ok\r\n";
        body = "moved\n";
    } else if (strstr(req, " http://example.com/redir-echo ") != NULL) {
        code = 307;
        extra = "Location: http://example.com/echo\r\n";
    } else if (strstr(req, " http://example.com/loop ") != NULL) {
        code = 302;
        extra = "Location: /loop\r\n";
    } else if (strstr(req, " http://example.com/redir-local ") != NULL) {
        code = 302;
        extra = "Location: http://127.0.0.1/admin\r\n";
    } else if (strstr(req, " http://example.com/redir-ftp ") != NULL) {
        code = 302;
        extra = "Location: ftp://example.com/f\r\n";
    } else if (strstr(req, " http://example.com/slow ") != NULL) {
        struct timespec ts = {.tv_sec = 2};
        nanosleep(&ts, NULL);
        body = "late\n";
    } else if (strstr(req, " http://example.com/big ") != NULL) {
        big = box_alloc(BODY_BIG + 1);
        memset(big, 'x', BODY_BIG);
        big[BODY_BIG] = '\0';
        body = big;
    } else if (strstr(req, " http://example.com/401 ") != NULL) {
        code = 401;
        body = "who?\n";
    } else if (strstr(req, " http://example.com/files/") != NULL) {
        body = "file\n";
        extra = "Content-Type: text/plain\r\n";
    } else if (strstr(req, " http://example.com/echo ") != NULL) {
        body = req; // the request as it came, headers and body
    } else {
        code = 500;
        body = "unexpected\n";
    }
    blen = body == req ? n : strlen(body);
    int h = snprintf(out, sizeof out,
                     "HTTP/1.1 %d X\r\n%sContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     code, extra, blen);
    if (strncmp(req, "HEAD ", 5) == 0)
        blen = 0; // the length said, no body sent
    if (write(fd, out, (size_t)h) == h && blen > 0 && write(fd, body, blen) < 0)
        h = -1;
    box_free(big);
}

/* Reads one request (head and a Content-Length body) and answers it;
 * after a 200 to CONNECT there is nothing more this stand-in can do. */
static void *
gw_serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char req[8192];
    size_t n = 0;
    char *end = NULL;
    while (end == NULL && n < sizeof req - 1) {
        ssize_t k = read(fd, req + n, sizeof req - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
        req[n] = '\0';
        end = strstr(req, "\r\n\r\n");
    }
    if (end != NULL) {
        const char *cl = strcasestr(req, "\r\nContent-Length: ");
        size_t want = cl != NULL ? strtoul(cl + 18, NULL, 10) : 0;
        size_t head = (size_t)(end + 4 - req);
        while (n < head + want && n < sizeof req - 1) {
            ssize_t k = read(fd, req + n, sizeof req - 1 - n);
            if (k <= 0)
                break;
            n += (size_t)k;
        }
        req[n] = '\0';
        gw_answer(fd, req, n);
    }
    shutdown(fd, SHUT_WR);
    char drain[256];
    while (read(fd, drain, sizeof drain) > 0)
        ;
    close(fd);
    return NULL;
}

int standin_dials;

box_err
standin_dial(void *arg, int *sock, char **err)
{
    (void)arg;
    (void)err;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    pthread_t t;
    assert_int_equal(
        pthread_create(&t, NULL, gw_serve, (void *)(intptr_t)sv[1]), 0);
    pthread_detach(t);
    *sock = sv[0];
    standin_dials++;
    return BOX_OK;
}

box_err
standin_dial_refused(void *arg, int *sock, char **err)
{
    (void)arg;
    (void)sock;
    *err = box_strdup("cannot connect to the egress gateway: Connection "
                      "refused");
    return BOX_ECLOSED;
}

static const box_procspec_egress gw_eg = {.eg_socket =
                                              "/nonexistent/egress.sock",
                                          .eg_port = 3128,
                                          .eg_ca = "/nonexistent/cert.pem"};

int
standin_run(th *t, const char *script, sh_dial_fn dial)
{
    box_buf_init(&t->th_out, 1u << 22);
    box_buf_init(&t->th_err, 1u << 22);
    box_buf_init(&t->th_log, 1u << 22);
    box_buf_init(&t->th_fslog, 1u << 22);
    static const char *const env[] = {"HOME=/home/lash", NULL};
    static const char ca[] = "not a real CA\n";
    sh_host_opts host = {.ho_egress = dial != NULL ? &gw_eg : NULL,
                         .ho_egress_ca = ca,
                         .ho_egress_ca_len = sizeof ca - 1,
                         .ho_dial = dial};
    sh_session_opts o = {
        .so_decide = th_decide,
        .so_decide_arg = t,
        .so_out = th_out,
        .so_err = th_err,
        .so_io_arg = t,
        .so_cwd = "/home/lash",
        .so_env = env,
        .so_host = &host,
        .so_timeout_ms = 10000,
    };
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    int st = sh_session_run(ss, script, strlen(script));
    sh_session_free(ss);
    return st;
}

bool
standin_row(size_t i, const char *script, const char *deny_fs, int status,
            const char *out, const char *err, int dials)
{
    th t = {.th_deny_fs = deny_fs};
    standin_dials = 0;
    int st = standin_run(&t, script, standin_dial);
    bool ok = tcase_check(i, script, st, &t, status, out, err);
    if (dials >= 0 && standin_dials != dials) {
        print_error("case %zu: %s: %d dials (want %d)\n", i, script,
                    standin_dials, dials);
        ok = false;
    }
    th_reset(&t);
    return ok;
}

void
standin_confine_connect(void)
{
    const box_sc_rule rules[] = {
        {BOX_SC_SYS(connect), .sr_errno = EINPROGRESS},
    };
    box_sc_filter f = {.sf_mode = BOX_SC_DENYLIST,
                       .sf_rules = rules,
                       .sf_nrules = 1,
                       // LeakSanitizer stops the world with ptrace
                       .sf_let_ptrace = true};
    box_sc_prog *p = NULL;
    char *err = NULL;
    assert_int_equal(box_sc_compile(&f, &p, &err), BOX_OK);
    assert_int_equal(box_sc_install(p, 0, &err), BOX_OK);
    box_sc_prog_free(p);
}
