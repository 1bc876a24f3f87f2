/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_request: request bytes the way box-pdp takes them. */
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_fuzz.h"
#include "box_wire.h"
#include "box_wire_scan.h"
#include "pdp_decide.h"
#include "pdp_dlog.h"
#include "pdp_policy.h"
#include "pdp_wire.h"

/*
 * The input is one PdpRequest as a peer sends it on pdp.sock. It goes
 * the way server_handle (pdp_server.c) takes it, without nng: the size
 * cap, the pre-scan and decode (box_wire_scan_unpack), then per decision
 * pdp_wire_decide (conversion of the wire values, request validation
 * against the schema, evaluation, the §6.6 message), pdp_wire_enforce,
 * the decision-log line (queued to a log on /dev/null, so the JSON
 * escaping of every hostile string runs) and, for a batch,
 * pdp_wire_response_own; finally the answer is packed and read back as
 * a client would.
 *
 * Invariants checked: Permit only with reason Permitted and no errors; a
 * request with an enforcement gate is never cacheable nor logged as a
 * permit; every answer carries a message; the packed answer decodes.
 */

#define FZ_HOME "/home/op"
#define FZ_ARENA (4u << 20) // as box-pdp's scratch arena
#define FZ_EPOCH 7

/* A policy with permits and forbids that name themselves, patterns, sets,
 * `has`, and an arithmetic overflow (an evaluation error); it loads under
 * Box's schema. */
static const char fz_policy[] =
    "@id(\"shell\")\n"
    "@description(\"Commands run in the box's interpreter.\")\n"
    "permit (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.arg_count < 100 && !(context.input.program like "
    "\"*rm*\") };\n"
    "\n"
    "@id(\"overflow\")\n"
    "@description(\"Errors on a huge argument count: the decision is a "
    "fault.\")\n"
    "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.arg_count + 9223372036854775000 < 0 };\n"
    "\n"
    "@id(\"read\")\n"
    "permit (principal, action in [Box::Action::\"fs:read\", "
    "Box::Action::\"fs:write\"], resource)\n"
    "when { context.input.path like \"~/src/*\" };\n"
    "\n"
    "@id(\"secrets\")\n"
    "@description(\"No .env, \\u{202e} spoofed text stays escaped.\")\n"
    "forbid (principal, action in [Box::Action::\"fs:read\", "
    "Box::Action::\"fs:write\"], resource)\n"
    "when { context.input.path like \"*/.env\" || [\"/etc/shadow\", "
    "\"/etc/passwd\"].contains(context.input.path) };\n"
    "\n"
    "@id(\"spawn\")\n"
    "permit (principal, action == Box::Action::\"shell:spawn\", resource)\n"
    "when { context.input.program_path == \"/usr/bin/git\" &&\n"
    "       !(context.input has credential_reads && "
    "context.input.credential_reads.contains(\"~/.ssh/id_rsa\")) };\n"
    "\n"
    "permit (principal, action == Box::Action::\"http:request\", resource)\n"
    "when { context.input.host == \"example.com\" && context.input.port == 443 "
    "&&\n"
    "       context.input.body_bytes * 2 < 1000000 && "
    "!context.input.intercepted };\n"
    "\n"
    "permit (principal, action == Box::Action::\"net:connect\", resource)\n"
    "when { context.input has ip && context.input.ip like \"10.*\" };\n";

/* Built once and kept for the whole run (reachable, so never a leak). */
static struct {
    pdp_policy_set *st_set;
    pdp_answer *st_ans;
    box_arena *st_arena;
    pdp_dlog *st_log;
} fz;

static void
fz_init(void)
{
    char *err = NULL;
    const pdp_dlog_ident id = {.di_box_id = "box-fuzz", .di_run_id = "run"};
    if (fz.st_set != NULL)
        return;
    if (pdp_policy_load_checked(fz_policy, sizeof fz_policy - 1, "fuzz.dw",
                                NULL, FZ_HOME, &fz.st_set, NULL,
                                &err) != BOX_OK) {
        fprintf(stderr, "fuzz: %s\n", err ? err : "?");
        box_fuzz_fail("the fixed policy does not load");
    }
    if ((fz.st_ans = pdp_answer_new()) == NULL ||
        (fz.st_arena = box_arena_new(FZ_ARENA)) == NULL)
        box_fuzz_fail("out of memory at start");
    if (pdp_dlog_open("/dev/null", &id, PDP_DLOG_QUEUE_DEFAULT, &fz.st_log) !=
        BOX_OK)
        box_fuzz_fail("the decision log does not open on /dev/null");
}

/* One decision as server_decide_one makes it, then its checks. */
static void
fz_decide(const Box__DecisionRequest *req, Box__DecisionResponse *out)
{
    pdp_wire_decided d;
    pdp_wire_decide(fz.st_set, NULL, fz.st_arena, fz.st_ans, req, FZ_EPOCH, out, &d);
    pdp_wire_enforce(fz.st_arena, req, out, &d);
    if (pdp_dlog_decision_add(fz.st_log, &d.wd_log) != BOX_OK)
        box_fuzz_fail("a decision could not be logged");

    int permit = out->verdict == BOX__VERDICT__VERDICT_PERMIT;
    if (permit && (out->reason != BOX__REASON_CLASS__REASON_PERMITTED ||
                   out->n_errors > 0))
        box_fuzz_fail("a permit with another reason or with errors");
    if (permit != d.wd_log.dd_permit && req->enforcement == NULL)
        box_fuzz_fail("the log and the answer disagree");
    if (req->enforcement != NULL && (out->cacheable || d.wd_log.dd_permit))
        box_fuzz_fail("an enforced request cacheable or logged as a permit");
    if (out->message == NULL)
        box_fuzz_fail("an answer without a message");
}

/* The answer packed, then read back the way the client reads it. */
static void
fz_answer(const Box__PdpResponse *resp)
{
    size_t n = box__pdp_response__get_packed_size(resp);
    uint8_t *b = box_alloc(n);
    if (b == NULL)
        box_fuzz_fail("out of memory");
    box__pdp_response__pack(resp, b);
    ProtobufCMessage *m = box_wire_scan_unpack(&box__pdp_response__descriptor,
                                               BOX_WIRE_SCAN_ANY, b, n, NULL);
    if (m == NULL)
        box_fuzz_fail("the packed answer does not decode");
    protobuf_c_message_free_unpacked(m, NULL);
    box_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Box__PdpResponse resp = BOX__PDP_RESPONSE__INIT;
    Box__DecisionResponse one = BOX__DECISION_RESPONSE__INIT;
    Box__DecisionBatchResponse batch = BOX__DECISION_BATCH_RESPONSE__INIT;
    Box__PdpRequest *r;

    fz_init();
    if (size > BOX_PDP_MSG_MAX)
        return 0; // answered ERROR_TOO_LARGE unread
    r = (Box__PdpRequest *)box_wire_scan_unpack(
        &box__pdp_request__descriptor, BOX_WIRE_SCAN_ANY, data, size, NULL);
    if (r == NULL)
        return 0; // answered ERROR_MALFORMED
    switch (r->body_case) {
    case BOX__PDP_REQUEST__BODY_DECIDE:
        fz_decide(r->decide, &one);
        resp.body_case = BOX__PDP_RESPONSE__BODY_DECIDE;
        resp.decide = &one;
        break;
    case BOX__PDP_REQUEST__BODY_DECIDE_BATCH: {
        size_t n = r->decide_batch->n_requests;
        if (n == 0 || n > BOX_PDP_BATCH_MAX)
            break; // answered ERROR_INVALID
        Box__DecisionResponse **outs =
            box_arena_zalloc(fz.st_arena, n * sizeof *outs);
        Box__DecisionResponse *cells =
            box_arena_zalloc(fz.st_arena, n * sizeof *cells);
        if (outs == NULL || cells == NULL)
            break; // answered ERROR_UNAVAILABLE
        for (size_t i = 0; i < n; i++) {
            box__decision_response__init(&cells[i]);
            fz_decide(r->decide_batch->requests[i], &cells[i]);
            pdp_wire_response_own(fz.st_arena, &cells[i]);
            outs[i] = &cells[i];
        }
        batch.n_responses = n;
        batch.responses = outs;
        resp.body_case = BOX__PDP_RESPONSE__BODY_DECIDE_BATCH;
        resp.decide_batch = &batch;
        break;
    }
    default: // health, record and unknown kinds read nothing more
        break;
    }
    fz_answer(&resp);
    box_arena_reset(fz.st_arena);
    box__pdp_request__free_unpacked(r, NULL);
    return 0;
}
