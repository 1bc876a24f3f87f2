/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: a stand-in gateway on a socket pair (what the broker's dial
 * hands a worker), answering by the request line, so the shell's HTTP
 * client (curl, wget) is seen without a network. */
#ifndef CMD_HTTP_STANDIN_H
#define CMD_HTTP_STANDIN_H

#include "box_err.h"
#include "sh_test_harness.h"

#define BODY_BIG 70000 // /big's body: over HTTP_BODY_MAX
#define REFUSAL                                                                \
    "http:request gate: policy denied this operation [default-deny]: No "      \
    "permit policy matched this request."

/* How many sockets the transfers asked for (reset it before a run). */
extern int standin_dials;

/* A dial answered by a new stand-in thread; one the gateway refused. */
box_err standin_dial(void *arg, int *sock, char **err);
box_err standin_dial_refused(void *arg, int *sock, char **err);

/* th_run_with, with a host whose gateway is the stand-in (dial NULL: the
 * box has no network). */
int standin_run(th *t, const char *script, sh_dial_fn dial);

/* One row of a command's table: script run against the stand-in with
 * deny_fs refused; its status, stdout and stderr as tcase_check wants
 * them, and (dials >= 0) that many dials. False, after saying why. */
bool standin_row(size_t i, const char *script, const char *deny_fs, int status,
                 const char *out, const char *err, int dials);

/* The worker's answer to connect(2) (worker_confine.c): EINPROGRESS, so
 * libcurl 7.88, which calls connect even on a socket its sockopt callback
 * calls connected, goes on to the socket it was handed. Once, first. */
void standin_confine_connect(void);

#endif
