/* SPDX-License-Identifier: Apache-2.0 */
/* Builds decision requests for tests, all storage inline. */
#include "box_req.h"

#include <string.h>
#include <time.h>

#include "box_alloc.h"
#include "box_control.h"
#include "box_svc.h"

static void
req_init(box_req *q, const char *action, const char *resource)
{
    memset(q, 0, sizeof *q);
    box__decision_request__init(&q->r_req);
    box__value__init(&q->r_input);
    box__value_record__init(&q->r_rec);
    q->r_req.action = (char *)action;
    q->r_req.resource = (char *)resource;
    q->r_req.input = &q->r_input;
    q->r_input.kind_case = BOX__VALUE__KIND_RECORD;
    q->r_input.record = &q->r_rec;
    q->r_rec.fields = q->r_fieldp;
}

static Box__Value *
req_field(box_req *q, const char *name)
{
    size_t i = q->r_rec.n_fields++;
    box__record_field__init(&q->r_fields[i]);
    box__value__init(&q->r_vals[i]);
    q->r_fields[i].name = (char *)name;
    q->r_fields[i].value = &q->r_vals[i];
    q->r_fieldp[i] = &q->r_fields[i];
    return &q->r_vals[i];
}

static void
req_str(box_req *q, const char *name, const char *v)
{
    Box__Value *x = req_field(q, name);
    x->kind_case = BOX__VALUE__KIND_STR;
    x->str = (char *)v;
}

void
box_req_exec(box_req *q, const char *program, const char *command,
             long arg_count, const char *cwd)
{
    req_init(q, "shell:exec", program);
    req_str(q, "command", command);
    req_str(q, "program", program);
    Box__Value *n = req_field(q, "arg_count");
    n->kind_case = BOX__VALUE__KIND_LONG;
    n->long_ = arg_count;
    req_str(q, "cwd", cwd);
}

void
box_req_fs(box_req *q, const char *action, const char *optype, const char *op,
           const char *path)
{
    req_init(q, action, path);
    req_str(q, "path", path);
    Box__Value *o = req_field(q, "operation");
    box__entity_ref__init(&q->r_ent);
    q->r_ent.type = (char *)optype;
    q->r_ent.id = (char *)op;
    o->kind_case = BOX__VALUE__KIND_ENTITY;
    o->entity = &q->r_ent;
}

Box__HealthResponse *
box_wait_pdp(const char *url, int timeout_ms)
{
    // One socket for every try, as box run waits for its services: a
    // fresh socket per try leaves a timed-out REQ behind each time, and
    // closing those can hang in nng 1.5.2 (#1543) and stall later tries.
    uint64_t deadline = box_svc_now_ms() + (uint64_t)timeout_ms;
    box_health_probe *p = NULL;
    Box__HealthResponse *h = NULL;
    if (box_health_probe_open(url, true, 1000, &p) != BOX_OK)
        return NULL;
    while (box_svc_now_ms() < deadline) {
        if (box_health_probe_ask(p, &h) == BOX_OK)
            break;
        h = NULL;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    box_health_probe_close(p);
    return h;
}

/* The field of the message at level - 1 that holds the one at level. */
static uint32_t
req_nest_field(uint32_t top_field, unsigned level)
{
    if (level == 2)
        return top_field;
    if (level == 3)
        return 2;                  // DecisionRequest.input
    return level % 2 == 0 ? 4 : 1; // Value.set, ValueSet.elements
}

uint8_t *
box_req_nested(uint32_t top_field, unsigned depth, size_t *len)
{
    // Built from the innermost message out, backwards from the end.
    size_t cap = (size_t)depth * 6 + 16, pos = cap;
    uint8_t *b = box_alloc(cap);
    if (b == NULL)
        return NULL;
    for (unsigned level = depth; level >= 2; level--) {
        uint8_t v[10];
        size_t n = 0;
        for (uint64_t x = cap - pos; n == 0 || x != 0; x >>= 7)
            v[n++] = (uint8_t)((x & 0x7f) | (x >> 7 ? 0x80 : 0));
        pos -= n;
        memcpy(b + pos, v, n);
        b[--pos] = (uint8_t)(req_nest_field(top_field, level) << 3 | 2);
    }
    memmove(b, b + pos, cap - pos);
    *len = cap - pos;
    return b;
}
