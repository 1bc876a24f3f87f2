/* SPDX-License-Identifier: Apache-2.0 */
/* The confinement profiles: one per kind of process of a box. */
#ifndef BOX_PROFILE_H
#define BOX_PROFILE_H

/*
 * What box_proc_confine lets a process reach (box_confine.h builds each),
 * named by the process table's rows (box_proctab.h). 0 is no profile,
 * which no row may have (the table's test says so).
 */
typedef enum box_profile {
    BOX_PROFILE_NONE = 0,
    BOX_PROFILE_PDP,
    BOX_PROFILE_GATEWAY,
    BOX_PROFILE_BROKER,
    BOX_PROFILE_WORKER,
    BOX_PROFILE_LAUNCHER,
    BOX_PROFILE_CONTAIN,
    BOX_PROFILE_PDP_PEERS, // box-pdp's peer identifier (pdp_peer_ident.c)
    BOX_PROFILE_COUNT
} box_profile;

#endif
