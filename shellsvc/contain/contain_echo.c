/* SPDX-License-Identifier: Apache-2.0 */
/* Test support: a Unix stream echo server on a thread (the gateway's stand-in).
 */
#include "contain_echo.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"

struct echo_srv {
    int es_lfd;
    const char *es_answer; // NULL: echo
    int es_stop[2];        // closing es_stop[1] ends the accept thread
    char es_path[sizeof((struct sockaddr_un *)0)->sun_path];
    pthread_t es_thread;
    pthread_mutex_t es_lock;
    pthread_cond_t es_done;
    unsigned es_accepted, es_open; // under es_lock
};

typedef struct echo_conn {
    echo_srv *ec_srv;
    int ec_fd;
} echo_conn;

static bool
echo_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static void *
echo_conn_main(void *arg)
{
    echo_conn *c = arg;
    echo_srv *s = c->ec_srv;
    char buf[16384];

    if (s->es_answer != NULL) {
        if (recv(c->ec_fd, buf, sizeof buf, 0) > 0)
            echo_write_all(c->ec_fd, s->es_answer, strlen(s->es_answer));
        goto out;
    }
    for (;;) {
        ssize_t n = recv(c->ec_fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || !echo_write_all(c->ec_fd, buf, (size_t)n))
            break;
    }
    shutdown(c->ec_fd, SHUT_WR);
out:
    close(c->ec_fd);
    box_free(c);
    pthread_mutex_lock(&s->es_lock);
    s->es_open--;
    pthread_cond_broadcast(&s->es_done);
    pthread_mutex_unlock(&s->es_lock);
    return NULL;
}

static void *
echo_accept_main(void *arg)
{
    echo_srv *s = arg;

    for (;;) {
        struct pollfd p[2] = {{s->es_lfd, POLLIN, 0},
                              {s->es_stop[0], POLLIN, 0}};
        pthread_t t;
        echo_conn *c;
        int fd;

        if (poll(p, 2, -1) < 0)
            continue;
        if (p[1].revents != 0)
            return NULL;
        fd = accept4(s->es_lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        if ((c = box_alloc(sizeof *c)) == NULL) {
            close(fd);
            continue;
        }
        c->ec_srv = s;
        c->ec_fd = fd;
        pthread_mutex_lock(&s->es_lock);
        s->es_accepted++;
        s->es_open++;
        pthread_mutex_unlock(&s->es_lock);
        if (pthread_create(&t, NULL, echo_conn_main, c) != 0) {
            close(fd);
            box_free(c);
            pthread_mutex_lock(&s->es_lock);
            s->es_open--;
            pthread_mutex_unlock(&s->es_lock);
            continue;
        }
        pthread_detach(t);
    }
}

echo_srv *
echo_start(const char *path, const char *answer)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    echo_srv *s = box_calloc(1, sizeof *s);

    if (s == NULL)
        return NULL;
    s->es_lfd = s->es_stop[0] = s->es_stop[1] = -1;
    s->es_answer = answer;
    pthread_mutex_init(&s->es_lock, NULL);
    pthread_cond_init(&s->es_done, NULL);
    if (strlen(path) >= sizeof sa.sun_path)
        goto fail;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    snprintf(s->es_path, sizeof s->es_path, "%s", path);
    s->es_lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->es_lfd < 0 ||
        bind(s->es_lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(s->es_lfd, 1024) != 0 || pipe2(s->es_stop, O_CLOEXEC) != 0 ||
        pthread_create(&s->es_thread, NULL, echo_accept_main, s) != 0)
        goto fail;
    return s;
fail:
    for (int i = 0; i < 2; i++) {
        if (s->es_stop[i] >= 0)
            close(s->es_stop[i]);
    }
    if (s->es_lfd >= 0)
        close(s->es_lfd);
    box_free(s);
    return NULL;
}

unsigned
echo_accepted(echo_srv *s)
{
    unsigned n;

    pthread_mutex_lock(&s->es_lock);
    n = s->es_accepted;
    pthread_mutex_unlock(&s->es_lock);
    return n;
}

unsigned
echo_open(echo_srv *s)
{
    unsigned n;

    pthread_mutex_lock(&s->es_lock);
    n = s->es_open;
    pthread_mutex_unlock(&s->es_lock);
    return n;
}

void
echo_stop(echo_srv *s)
{
    if (s == NULL)
        return;
    close(s->es_stop[1]); // the accept thread sees the hang-up and ends
    pthread_join(s->es_thread, NULL);
    close(s->es_lfd);
    unlink(s->es_path);
    pthread_mutex_lock(&s->es_lock);
    while (s->es_open > 0)
        pthread_cond_wait(&s->es_done, &s->es_lock);
    pthread_mutex_unlock(&s->es_lock);
    close(s->es_stop[0]);
    pthread_mutex_destroy(&s->es_lock);
    pthread_cond_destroy(&s->es_done);
    box_free(s);
}
