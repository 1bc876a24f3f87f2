/* SPDX-License-Identifier: Apache-2.0 */
/* A stand-in interpreter for the worker until shellsvc/lang lands. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "worker_interp.h"

/*
 * Not a shell: commands are separated by ';' or newlines, words by spaces
 * or tabs, and there is no quoting, expansion or redirection. It knows the
 * handful of commands the broker's tests need and nothing else. The real
 * interpreter replaces this file and keeps worker_interp_run's contract.
 */

#define STUB_INPUT_MAX (256u * 1024u) // the interpreter's input limit
#define STUB_ARGS_MAX 4096
#define STUB_CHUNK (48u * 1024u) // yes-bytes writes in pieces this big

typedef struct stub_io {
    worker_write_fn si_out;
    worker_write_fn si_err;
    void *si_ctx;
    bool si_stop; // a write refused: end the program
    bool si_exit; // `exit` ran
} stub_io;

typedef int (*stub_cmd_fn)(stub_io *io, int argc, char **argv);

static int
stub_write(stub_io *io, bool err, const char *p, size_t n)
{
    if (io->si_stop)
        return -1;
    if ((err ? io->si_err : io->si_out)(io->si_ctx, p, n) != 0) {
        io->si_stop = true;
        return -1;
    }
    return 0;
}

static int
stub_errf(stub_io *io, const char *a, const char *b)
{
    char line[512];
    size_t n =
        (size_t)snprintf(line, sizeof line, "strands-shell: %s: %s\n", a, b);
    (void)stub_write(io, true, line, n < sizeof line ? n : sizeof line - 1);
    return 1;
}

/* Parses a whole decimal number; false on anything else. */
static bool
stub_number(const char *s, unsigned long long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0';
}

/* Words 1.. joined by single spaces, then a newline, in one write. */
static int
stub_join(stub_io *io, bool err, int argc, char **argv)
{
    box_buf b;
    box_buf_init(&b, STUB_INPUT_MAX + 2);
    box_err rv = BOX_OK;
    for (int i = 1; i < argc && rv == BOX_OK; i++) {
        if (i > 1)
            rv = box_buf_putc(&b, ' ');
        if (rv == BOX_OK)
            rv = box_buf_puts(&b, argv[i]);
    }
    if (rv == BOX_OK)
        rv = box_buf_putc(&b, '\n');
    int status = 0;
    if (rv != BOX_OK)
        status = stub_errf(io, argv[0], box_strerror(rv));
    else if (stub_write(io, err, b.b_data, b.b_len) != 0)
        status = 1;
    box_buf_reset(&b);
    return status;
}

static int
stub_echo(stub_io *io, int argc, char **argv)
{
    return stub_join(io, false, argc, argv);
}

static int
stub_stderr(stub_io *io, int argc, char **argv)
{
    return stub_join(io, true, argc, argv);
}

static int
stub_true(stub_io *io, int argc, char **argv)
{
    return 0;
}

static int
stub_false(stub_io *io, int argc, char **argv)
{
    return 1;
}

static int
stub_exit(stub_io *io, int argc, char **argv)
{
    unsigned long long n = 0;
    io->si_exit = true;
    if (argc > 1 && !stub_number(argv[1], &n)) {
        stub_errf(io, "exit", "numeric argument required");
        return 2;
    }
    return (int)(n & 0xff);
}

/* yes-bytes N: N bytes of "y\n" lines (the last one cut at N). */
static int
stub_yes_bytes(stub_io *io, int argc, char **argv)
{
    unsigned long long n;
    if (argc != 2 || !stub_number(argv[1], &n))
        return stub_errf(io, "yes-bytes", "usage: yes-bytes N");
    char *chunk = box_alloc(STUB_CHUNK);
    if (chunk == NULL)
        return stub_errf(io, "yes-bytes", box_strerror(BOX_ENOMEM));
    for (size_t i = 0; i < STUB_CHUNK; i++)
        chunk[i] = i % 2 == 0 ? 'y' : '\n'; // STUB_CHUNK is even
    int status = 0;
    while (n > 0) {
        size_t k = n < STUB_CHUNK ? (size_t)n : STUB_CHUNK;
        if (stub_write(io, false, chunk, k) != 0) {
            status = 1;
            break;
        }
        n -= k;
    }
    box_free(chunk);
    return status;
}

static int
stub_sleep_ms(stub_io *io, int argc, char **argv)
{
    unsigned long long ms;
    if (argc != 2 || !stub_number(argv[1], &ms))
        return stub_errf(io, "sleep-ms", "usage: sleep-ms N");
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000),
                          .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    return 0;
}

static int
stub_crash(stub_io *io, int argc, char **argv)
{
    raise(SIGSEGV);
    return 125; // not reached: the worker runs with SIGSEGV's default
}

static const struct {
    const char *sc_name;
    stub_cmd_fn sc_fn;
} stub_cmds[] = {
    {"echo", stub_echo},         {"stderr", stub_stderr},
    {"true", stub_true},         {"false", stub_false},
    {"exit", stub_exit},         {"yes-bytes", stub_yes_bytes},
    {"sleep-ms", stub_sleep_ms}, {"crash", stub_crash},
};

/* Runs one simple command: words of s[0..n), split in place. */
static int
stub_simple(stub_io *io, char *s, char **argv)
{
    int argc = 0;
    char *save = NULL;
    for (char *w = strtok_r(s, " \t", &save); w != NULL && argc < STUB_ARGS_MAX;
         w = strtok_r(NULL, " \t", &save))
        argv[argc++] = w;
    if (argc == 0)
        return -1; // empty: keeps the previous status
    for (size_t i = 0; i < sizeof stub_cmds / sizeof stub_cmds[0]; i++) {
        if (strcmp(argv[0], stub_cmds[i].sc_name) == 0)
            return stub_cmds[i].sc_fn(io, argc, argv);
    }
    stub_errf(io, argv[0], "command not found");
    return 127;
}

int
worker_interp_run(const char *source, size_t len, worker_write_fn out,
                  worker_write_fn err, void *ctx)
{
    stub_io io = {.si_out = out, .si_err = err, .si_ctx = ctx};
    if (len > STUB_INPUT_MAX) {
        static const char big[] = "strands-shell: input too large\n";
        (void)stub_write(&io, true, big, sizeof big - 1);
        return 1;
    }
    char *text = box_strndup(source, len);
    char **argv = box_calloc(STUB_ARGS_MAX, sizeof *argv);
    int status = 0;
    if (text == NULL || argv == NULL) {
        static const char oom[] = "strands-shell: out of memory\n";
        (void)stub_write(&io, true, oom, sizeof oom - 1);
        status = 1;
        goto out;
    }
    char *cmd = text;
    while (cmd != NULL && !io.si_exit && !io.si_stop) {
        char *next = strpbrk(cmd, ";\n");
        if (next != NULL)
            *next++ = '\0';
        int st = stub_simple(&io, cmd, argv);
        if (st >= 0)
            status = st;
        cmd = next;
    }
out:
    box_free(argv);
    box_free(text);
    return status;
}
