/* SPDX-License-Identifier: Apache-2.0 */
/* A small single-threaded process that starts children on request and
 * reports each one's end: the shell's zygote and its launcher. */
#ifndef FORKER_H
#define FORKER_H

#include <stddef.h>
#include <sys/types.h>

#include "box_err.h"

/*
 * box-shell becomes multi-threaded (nng, the broker's connection threads),
 * and forking a threaded process is unsafe (locks held by other threads
 * are copied locked). So before any thread exists, box-shell forks small
 * processes that stay single-threaded for their whole life and do every
 * fork: the zygote (workers) and the launcher (box-contain, for host
 * programs; the confined worker cannot exec). The broker asks one for a
 * child by sending descriptors over a SOCK_SEQPACKET socket with
 * SCM_RIGHTS. The first descriptor of every request is the write end of
 * the child's status pipe: the forker writes one int there when the child
 * ends (its wait status, or a negative errno when it could not start) and
 * kills the child's process group when the pipe's reader goes away (the
 * broker or the worker closing its end is how a child is stopped). The
 * forker kills every child and exits when its request socket closes,
 * which is what ends it when box-shell dies: its parent-death signal is
 * held back once the broker is in a Landlock domain that scopes signals
 * (ABI 6), as the forker is outside it.
 */
typedef struct forker forker;

/* Where a forker keeps its request socket: the only descriptor besides
 * 0-2 it has when its prepare function runs. */
#define FORKER_CTL_FD 3

/* The most descriptors one request carries, the status pipe included. */
#define FORKER_FDS_MAX 6

/* What the status pipe says when the child could not be started and the
 * start function gave no errno. */
#define FORKER_NOT_STARTED (-1)

/*
 * Starts one child in the forker process. fds are the request's
 * descriptors after the status pipe (n of them, close-on-exec; the forker
 * closes its copies afterwards). Returns 0 with *pid the child, which must
 * lead a process group of its own, or an errno. Runs single-threaded.
 */
typedef int (*forker_start_fn)(void *ctx, char op, const int *fds, size_t n,
                               pid_t *pid);

/*
 * What a forker runs, all in the forker process with ctx: fo_start for each
 * request; fo_prepare (NULL: nothing) once before serving, which may
 * confine the forker further and returns 0 or exits; fo_reaped (NULL:
 * nothing) after children ended and were reaped, with the number of
 * started children still alive (work a child's end makes room for, such
 * as the zygote's next waiting worker, is done there, off the call that
 * was running).
 */
typedef struct forker_ops {
    forker_start_fn fo_start;
    int (*fo_prepare)(void *ctx);
    void (*fo_reaped)(void *ctx, size_t live);
} forker_ops;

/*
 * Forks the forker; call before any thread exists. name is its process
 * name (prctl, at most 15 bytes). On BOX_OK the caller owns *out
 * (forker_stop).
 */
box_err forker_start(const char *name, const forker_ops *ops, void *ctx,
                     forker **out) BOX_WARN_UNUSED;

/*
 * Sends one request: op, then fds[0..n) where fds[0] is the status pipe's
 * write end (every descriptor stays the caller's). Safe from any thread.
 * BOX_ECLOSED when the forker is gone.
 */
box_err forker_request(forker *f, char op, const int *fds,
                       size_t n) BOX_WARN_UNUSED;

/*
 * Waits up to timeout_ms (-1: no bound) for the int on a status pipe:
 * BOX_OK with *wstatus (a wait status, or a negative errno: not started),
 * BOX_ETIMEDOUT, or BOX_ECLOSED when the forker went away without saying.
 */
box_err forker_wait(int status, int timeout_ms, int *wstatus) BOX_WARN_UNUSED;

/* The forker's pid (for tests and the process table). */
pid_t forker_pid(const forker *f);

/* The request socket, which the caller keeps open when it confines
 * itself (box_proc_confine closes every descriptor it is not told of). */
int forker_fd(const forker *f);

/* Closes the request socket (the forker kills and reaps every live child
 * first), reaps the forker (SIGKILL after a bound; when the caller may not
 * signal it, it is left to end on the closed socket). Frees f. */
void forker_stop(forker *f);

#endif
