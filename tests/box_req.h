/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: build decision requests the way enforcement points do. */
#ifndef BOX_REQ_H
#define BOX_REQ_H

#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"

/* A request plus the storage it points into; all inline, no allocation. */
#define BOX_REQ_MAX_FIELDS 8
typedef struct box_req {
    Box__DecisionRequest r_req;
    Box__Value r_input;
    Box__ValueRecord r_rec;
    Box__RecordField r_fields[BOX_REQ_MAX_FIELDS];
    Box__RecordField *r_fieldp[BOX_REQ_MAX_FIELDS];
    Box__Value r_vals[BOX_REQ_MAX_FIELDS];
    Box__EntityRef r_ent;
} box_req;

/* shell:exec {command, program, arg_count, cwd}; strings borrowed. */
void box_req_exec(box_req *q, const char *program, const char *command,
                  long arg_count, const char *cwd);
/* fs:<verb> {path, operation: Box::Fs<Verb>Operation::"op"}. */
void box_req_fs(box_req *q, const char *action, const char *optype,
                const char *op, const char *path);

/*
 * The wire bytes of a message nested exactly `depth` messages deep, the
 * outermost being 1 (as BOX_WIRE_DEPTH_MAX counts): a top message whose
 * field top_field holds a DecisionRequest (an AliasFrame's decide, 11, or
 * a PdpRequest's, 1), whose input is a Value nested through sets (Value ->
 * ValueSet -> Value ...) down to an empty message at `depth` (>= 2). About
 * 4 bytes a level past the first hundred. The caller frees the bytes with
 * box_free; NULL when out of memory.
 */
uint8_t *box_req_nested(uint32_t top_field, unsigned depth, size_t *len);

/* Asks the PDP at url for health until it answers or timeout_ms passes
 * (a loaded machine can be slow to start a service). On success the
 * caller frees the answer with box__health_response__free_unpacked. */
Box__HealthResponse *box_wait_pdp(const char *url, int timeout_ms);

#endif
