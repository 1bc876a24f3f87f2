/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's side of a worker's launch: one permit, one run. */
#ifndef BROKER_LAUNCH_H
#define BROKER_LAUNCH_H

#include <stdbool.h>

#include "box.pb-c.h"
#include "box_err.h"
#include "box_pdp_client.h"
#include "worker.h"

struct sh_launcher;

/*
 * The shell:spawn permits the broker relayed to one worker and that no
 * launch has used yet, oldest first. A worker is confined and may be
 * compromised: it gets a run only for exactly what a permit's request
 * input named, once.
 */
typedef struct broker_permits broker_permits;

broker_permits *broker_permits_new(void);
void broker_permits_free(broker_permits *p);

/* Notes req when it is a shell:spawn the PDP permitted (call only for a
 * permit). Past a bound the oldest is forgotten. */
void broker_permits_note(broker_permits *p, const Box__DecisionRequest *req);

/* What the broker starts runs with (all borrowed, for the broker's life). */
typedef struct broker_launch_cfg {
    const worker_settings *bl_settings; // config, PATH, homes, box dir
    struct sh_launcher *bl_launcher;
    box_pdp_client *bl_pdp; // logs `egress:native` before such a run
} broker_launch_cfg;

/*
 * Handles one Launch frame: takes the run's descriptors from fds_sock
 * (sent before the frame), finds the program, checks a permit for it,
 * builds box-contain's arguments from the configuration and has the
 * launcher start it with a status pipe of the broker's own, whose read end
 * goes back on fds_sock before the answer. A permit is the input of a
 * relayed shell:spawn (what the PDP decided on): the word, the program
 * found, the cwd, the argument count and the first two arguments (the
 * policy sees no more). Returns BOX_OK when an answer is to be sent: started
 * (*refusal NULL), or refused with status 126 and *refusal (the caller's;
 * NULL only when out of memory) to print after `<word>: `. BOX_EPROTO when
 * the worker broke the protocol (no descriptors, or the wrong number): the
 * call ends.
 */
box_err broker_launch(const broker_launch_cfg *cfg, broker_permits *p,
                      int fds_sock, const Box__Launch *l, bool *started,
                      char **refusal) BOX_WARN_UNUSED;

#endif
