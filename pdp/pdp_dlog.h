/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log: one OTLP-JSON line per decision, written by its own
 * thread so that a decision never waits on the disk (box-spec §7). */
#ifndef PDP_DLOG_H
#define PDP_DLOG_H

#include <stddef.h>
#include <stdint.h>

#include "box_err.h"

typedef struct pdp_dlog pdp_dlog;

/* Default bound of the queue between deciders and the writer. */
#define PDP_DLOG_QUEUE_DEFAULT 4096
/* Largest record: its log line and its span's line together. */
#define PDP_DLOG_LINE_MAX (256u * 1024u)

/* Identity of the box in every line's resource attributes. Borrowed. */
typedef struct pdp_dlog_ident {
    const char *di_box_id; // strands.box.name
    const char *di_run_id; // strands.box.run.id
} pdp_dlog_ident;

/*
 * Opens (appending, created 0600) the log at path and starts the writer.
 * queue_cap bounds the lines waiting for the disk. When the queue is full a
 * decision WAITS for room (the writer is behind): a slow disk never drops
 * a line. A write the disk refuses (full) is cut back whole, so the file
 * keeps only complete lines, and box-pdp says on stderr how many records
 * that batch held. The caller owns *out.
 */
box_err pdp_dlog_open(const char *path, const pdp_dlog_ident *id,
                      size_t queue_cap, pdp_dlog **out) BOX_WARN_UNUSED;

/* Drains the queue to the file, stops the writer, closes, frees. */
void pdp_dlog_close(pdp_dlog *l);

/* One decision as the log records it. Every string is borrowed for the
 * call; NULL or empty strings are left out. */
typedef struct pdp_dlog_decision {
    const char *dd_action;   // "fs:read"
    const char *dd_resource; // "~/src/main.rs"
    int dd_permit;           // 1 permit, 0 deny
    const char *dd_cause;    // permitted|forbidden|no_match|...
    const char *dd_reason;   // operator words (denials)
    const char
        *dd_rule; // @id / policy_<i> / <default-deny> / enforcement:<gate>
    const char *dd_description;        // the determining rule's @description
    const char *const *dd_determining; // ids
    size_t dd_ndetermining;
    const char *dd_message; // the §3.11 text, as the log body
    const char *dd_error;   // evaluation errors joined, on a fault
    uint64_t dd_epoch;
    int dd_cached; // answered from a client's cache
    // Subject attributes (box-spec §7).
    const char *dd_file_path;
    const char *dd_process_command;
    const char *const *dd_command_args;
    size_t dd_ncommand_args;
    const char *dd_working_directory;
    const char *dd_server_address;
    int64_t dd_server_port; // 0 = absent
    const char *dd_http_method;
} pdp_dlog_decision;

/* Queues one decision line (waits if the queue is full). */
box_err pdp_dlog_decision_add(pdp_dlog *l,
                              const pdp_dlog_decision *d) BOX_WARN_UNUSED;

/*
 * A decision's lines rendered once, to be logged many times: a batch of
 * reports names one served permit once and each time it was served (a
 * loop's `[`). Each record logged from it is the one
 * pdp_dlog_decision_add would write, with its own ids and time.
 */
typedef struct pdp_dlog_tmpl pdp_dlog_tmpl;
/* Renders d (strings copied). The caller owns *out (pdp_dlog_tmpl_free). */
box_err pdp_dlog_tmpl_make(const pdp_dlog *l, const pdp_dlog_decision *d,
                           pdp_dlog_tmpl **out) BOX_WARN_UNUSED;
/* Queues one record of t, as pdp_dlog_decision_add does. */
box_err pdp_dlog_tmpl_add(pdp_dlog *l,
                          const pdp_dlog_tmpl *t) BOX_WARN_UNUSED;
void pdp_dlog_tmpl_free(pdp_dlog_tmpl *t);
/* Queues a control record: operation (policy_installed, policy_refused,
 * box_started, box_stopped), outcome ok|refused, subject, reason. */
box_err pdp_dlog_control_add(pdp_dlog *l, const char *operation,
                             const char *outcome, const char *subject,
                             const char *reason) BOX_WARN_UNUSED;

/* Lines written so far and the most lines ever waiting (for tests). */
uint64_t pdp_dlog_written(pdp_dlog *l);

/* Builds a control record line alone (used by `box run`, which appends its
 * own box_started / box_stopped records). Caller frees the result. */
char *pdp_dlog_control_line(const pdp_dlog_ident *id, const char *operation,
                            const char *outcome, const char *subject,
                            const char *reason);

#endif
