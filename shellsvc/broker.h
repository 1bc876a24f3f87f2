/* SPDX-License-Identifier: Apache-2.0 */
/* The alias broker: <box_dir>/run/box.sock, one worker process per call. */
#ifndef BROKER_H
#define BROKER_H

#include <stddef.h>
#include <stdint.h>

#include "box_err.h"
#include "box_pdp_client.h"
#include "worker_pool.h"

/*
 * One thread accepts on the socket; each connection (at most
 * BOX_MAX_CONNECTIONS; the next one gets Denied{flow_control} and is
 * closed) gets a thread that reads Open and Call, asks the pool for a
 * fresh worker, forwards the Call to it and relays the worker's Output and
 * Exit frames to the alias; the worker's decide frames are answered here
 * from bc_pdp (cache or PDP) and never reach the alias. The broker owns the
 * alias connection from the first byte to the last, so it can always end it
 * with a whole terminal frame: the output budget (Denied{over_budget}), the
 * backstop (Denied{timeout}), an Open or Call that is not whole within 5 s of
 * the one before (Denied{timeout}: a silent peer must not hold a slot), a
 * frame over 1 MiB, nested too deep, malformed or of a kind an alias may not
 * send (Denied{transport_error}, decided before its body is decoded) and a
 * crashed worker (Output(stderr) + Exit{125}) are all decided here, never in
 * the worker. A call that streams stdin (protocol 8) gets a pipe the
 * worker reads as the command's stdin; the broker feeds it the alias's
 * input frames, one frame at a time and only as fast as the command reads
 * (broker_stdin.h), up to bc_input_max (Denied{over_budget}).
 */
typedef struct broker broker;

typedef struct broker_config {
    const char *bc_box_dir; // the socket is <bc_box_dir>/run/box.sock
    worker_pool *bc_pool;   // borrowed; must outlive the broker
    int bc_backstop_ms;     // per call (BOX_CALL_BACKSTOP_MS)
    int bc_grace_ms;        // drain: how long calls in flight may go on
    /* Stdin one call may stream (protocol 8), bytes: past it the call
     * ends with Denied{over_budget}; 0: BOX_CALL_INPUT_MAX. */
    uint64_t bc_input_max;
    /* Answers the workers' decide frames (borrowed; outlives the broker).
     * One client for every call, so its permit cache stays warm. */
    box_pdp_client *bc_pdp;
    /* Host programs: the box they run in and the launcher that starts
     * box-contain (both borrowed; NULL: no host programs). */
    const worker_settings *bc_settings;
    struct sh_launcher *bc_launcher;
} broker_config;

/*
 * Binds the socket (mode 0600; a leftover socket is removed only when no
 * one answers on it, a live one is refused) and starts accepting. It sets
 * the umask around bind, so call it before other threads exist. On BOX_OK
 * the caller owns *out (broker_drain frees it); on error err holds one
 * line saying why.
 */
box_err broker_start(const broker_config *cfg, broker **out, char *err,
                     size_t errlen) BOX_WARN_UNUSED;

/*
 * Stops accepting and removes the socket, ends connections that have not
 * sent their call yet, lets calls in flight run up to bc_grace_ms, then
 * kills their workers and ends them with Denied{internal}. Returns when
 * every connection thread is done; frees b.
 */
void broker_drain(broker *b);

#endif
