/* SPDX-License-Identifier: Apache-2.0 */
/* The proxies `box bench gateway` measures box-gateway beside: Squid and
 * tinyproxy from their Debian packages, configured in the bench's
 * temporary directory and run in the foreground. */
#ifndef BOX_BENCH_PROXIES_H
#define BOX_BENCH_PROXIES_H

#include <stdbool.h>
#include <sys/types.h>

/* ORDER BP_PEER: the peers, in the order the table prints them. */
typedef enum bp_id { BP_SQUID, BP_TINYPROXY, BP_COUNT } bp_id;

/* A peer the bench started: it owns the process until bp_stop. */
typedef struct bp_proxy {
    bp_id pp_id;
    pid_t pp_pid;     // 0 when not running
    unsigned pp_port; // its listener on 127.0.0.1
    char pp_out[128]; // its stdout and stderr
    char pp_log[128]; // its own log file, or ""
    char pp_conf[128];
    char pp_service[32]; // squid's -n: its shared memory's name prefix
} bp_proxy;

/* The peer's name ("squid", "tinyproxy"). */
const char *bp_name(bp_id id);

/*
 * Starts peer id with a minimal configuration written under tmp (a
 * directory the bench made, mode 0711 so a peer that drops root to its
 * own user can reach its subdirectory): a free port on 127.0.0.1 open to
 * 127.0.0.1 only, CONNECT to any port, no cache, no access log, in the
 * foreground, its pid file in tmp. True once it accepts connections.
 * False when it is not installed (`squid: not installed (apt-get install
 * squid)` printed) or did not come up (why printed, with the end of its
 * output): the bench goes on without it.
 */
bool bp_start(bp_id id, const char *tmp, bp_proxy *p);
/* Stops it (SIGTERM, then SIGKILL) if it runs. */
void bp_stop(bp_proxy *p);

#endif
