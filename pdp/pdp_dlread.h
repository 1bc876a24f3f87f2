/* SPDX-License-Identifier: Apache-2.0 */
/* A decision log (box-spec §7, pdp_dlog.h) read back: one record per
 * OTLP log record, for `box policy diff`. */
#ifndef PDP_DLREAD_H
#define PDP_DLREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "box_err.h"

/* What a record is. */
typedef enum pdp_dlrec_kind {
    PDP_DLREC_DECISION, // scope strands-box.policy
    PDP_DLREC_CONTROL,  // scope strands-box.control (policy_installed, …)
    PDP_DLREC_OTHER,    // anything else: containment refusals, an agent's
                        // relayed telemetry, spans, metrics
} pdp_dlrec_kind;

/*
 * One record. Strings are NUL-terminated, live in the reader's arena and
 * are NULL when the attribute is absent (pdp_dlog leaves empty ones
 * out). The attribute each field comes from is in the comment.
 */
typedef struct pdp_dlrec {
    pdp_dlrec_kind dr_kind;
    uint32_t dr_line; // 1-based line of the log
    bool dr_has_ts;
    int64_t dr_ts;           // timeUnixNano, in whole seconds
    const char *dr_action;   // strands.box.policy.action ("fs:read")
    const char *dr_resource; // .resource
    const char *dr_verdict;  // .verdict: "permit" or "deny" (checked)
    const char *dr_cause;    // .cause
    const char *dr_rule;     // .rule (@id, policy_<i>, <default-deny>, …)
    const char *const *dr_determining; // .determining.ids
    size_t dr_ndetermining;
    bool dr_cached; // .cached
    bool dr_has_epoch;
    uint64_t dr_epoch; // .epoch
    // Subject attributes.
    const char *dr_file_path;   // file.path
    const char *dr_command;     // process.command
    const char *const *dr_args; // process.command_args (redacted)
    size_t dr_nargs;
    const char *dr_cwd;     // process.working_directory
    const char *dr_address; // server.address
    bool dr_has_port;
    int64_t dr_port;          // server.port
    const char *dr_method;    // http.request.method
    const char *dr_operation; // control: strands.box.control.operation
} pdp_dlrec;

/* Every record of one log, in order; owns its strings. */
typedef struct pdp_dlread {
    pdp_dlrec *dl_recs;
    size_t dl_n, dl_cap;
    box_arena *dl_arena;
} pdp_dlread;

/* Largest log text read. */
#define PDP_DLREAD_MAX_BYTES ((size_t)1 << 30)

/*
 * Reads the log text[0..len) (file names it in messages) into *out,
 * which the caller frees with pdp_dlread_free (also after a failure).
 * Blank lines are skipped. BOX_EPARSE with err "file:line: why" for a
 * line that is not a JSON object, not OTLP (no resourceLogs,
 * resourceSpans or resourceMetrics), or a decision record without an
 * action or with a verdict other than permit and deny; BOX_ENOMEM.
 */
box_err pdp_dlread_load(const char *text, size_t len, const char *file,
                        pdp_dlread *out, box_buf *err) BOX_WARN_UNUSED;

void pdp_dlread_free(pdp_dlread *r);

#endif
