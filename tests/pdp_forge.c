/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: a process that is not the box's shell asks the PDP directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "box.pb-c.h"

#define FORGE_WAIT_MS 3000

/*
 * pdp_forge URL TAG: sends one shell:exec DecisionRequest for the program
 * `forged-TAG` to the PDP at URL, as a hostile leaf would, and prints
 * `decided permit|deny` (exit 0) or `refused: <why>` (exit 1) when no
 * answer came. (The prefix keeps the forged request apart from the
 * shell's own log line for running pdp_forge, which names TAG.)
 * Built without sanitizers and with nothing of ours linked (it runs in a
 * leaf sandbox too), so it speaks nng and protobuf-c directly.
 */
int
main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: pdp_forge URL TAG\n", stderr);
        return 2;
    }
    char program[256];
    snprintf(program, sizeof program, "forged-%s", argv[2]);
    Box__RecordField f[4];
    Box__RecordField *fp[4];
    Box__Value v[4];
    const char *names[4] = {"command", "program", "cwd", "arg_count"};
    for (int i = 0; i < 4; i++) {
        box__record_field__init(&f[i]);
        box__value__init(&v[i]);
        f[i].name = (char *)names[i];
        f[i].value = &v[i];
        fp[i] = &f[i];
        v[i].kind_case = BOX__VALUE__KIND_STR;
        v[i].str = i < 2 ? program : "/";
    }
    v[3].kind_case = BOX__VALUE__KIND_LONG;
    v[3].long_ = 0;
    Box__ValueRecord rec = BOX__VALUE_RECORD__INIT;
    rec.n_fields = 4;
    rec.fields = fp;
    Box__Value input = BOX__VALUE__INIT;
    input.kind_case = BOX__VALUE__KIND_RECORD;
    input.record = &rec;
    Box__DecisionRequest d = BOX__DECISION_REQUEST__INIT;
    d.action = "shell:exec";
    d.resource = program;
    d.input = &input;
    Box__PdpRequest req = BOX__PDP_REQUEST__INIT;
    req.body_case = BOX__PDP_REQUEST__BODY_DECIDE;
    req.decide = &d;

    // A small request (the program name is at most 255 bytes): packed on
    // the stack, since nothing of ours is linked here.
    uint8_t buf[1024];
    size_t n = box__pdp_request__get_packed_size(&req);
    if (n > sizeof buf)
        return 2;
    box__pdp_request__pack(&req, buf);

    nng_socket s;
    int rv = nng_req0_open(&s);
    if (rv == 0)
        rv = nng_socket_set_ms(s, NNG_OPT_SENDTIMEO, FORGE_WAIT_MS);
    if (rv == 0)
        rv = nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, FORGE_WAIT_MS);
    if (rv == 0)
        rv = nng_dial(s, argv[1], NULL, NNG_FLAG_NONBLOCK);
    if (rv == 0)
        rv = nng_send(s, buf, n, 0);
    void *ans = NULL;
    size_t len = 0;
    if (rv == 0)
        rv = nng_recv(s, &ans, &len, NNG_FLAG_ALLOC);
    if (rv != 0) {
        printf("refused: %s\n", nng_strerror(rv));
        return 1;
    }
    Box__PdpResponse *r = box__pdp_response__unpack(NULL, len, ans);
    nng_free(ans, len);
    if (r == NULL || r->body_case != BOX__PDP_RESPONSE__BODY_DECIDE) {
        printf("refused: no decision in the answer\n");
        return 1;
    }
    printf("decided %s\n", r->decide->verdict == BOX__VERDICT__VERDICT_PERMIT
                               ? "permit"
                               : "deny");
    box__pdp_response__free_unpacked(r, NULL);
    return 0;
}
