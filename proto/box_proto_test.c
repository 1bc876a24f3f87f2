/* SPDX-License-Identifier: Apache-2.0 */
/* Round trip of every message of box.proto, every oneof case, every field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box.pb-c.h"
#include "box_alloc.h"

/* Every message of box.proto. test_table_is_complete checks this list
 * against the .proto file, so a new message cannot skip its round trip. */
static const ProtobufCMessageDescriptor *const all_messages[] = {
    &box__value__descriptor,
    &box__value_set__descriptor,
    &box__value_record__descriptor,
    &box__record_field__descriptor,
    &box__entity_ref__descriptor,
    &box__subject__descriptor,
    &box__decision_request__descriptor,
    &box__enforcement__descriptor,
    &box__worker_answer__descriptor,
    &box__served_batch__descriptor,
    &box__launch__descriptor,
    &box__launch_answer__descriptor,
    &box__egress_dial__descriptor,
    &box__egress_dialed__descriptor,
    &box__input_wanted__descriptor,
    &box__egress_route__descriptor,
    &box__egress_routes__descriptor,
    &box__determining_policy__descriptor,
    &box__decision_response__descriptor,
    &box__decision_batch__descriptor,
    &box__decision_batch_response__descriptor,
    &box__event__descriptor,
    &box__event_batch__descriptor,
    &box__event_ack__descriptor,
    &box__epoch_notice__descriptor,
    &box__health_request__descriptor,
    &box__health_response__descriptor,
    &box__error_reply__descriptor,
    &box__pdp_request__descriptor,
    &box__pdp_response__descriptor,
    &box__control_request__descriptor,
    &box__control_response__descriptor,
    &box__open_shell__descriptor,
    &box__open_python__descriptor,
    &box__open_mcp__descriptor,
    &box__open__descriptor,
    &box__correlation__descriptor,
    &box__call__descriptor,
    &box__input__descriptor,
    &box__input_eof__descriptor,
    &box__signal__descriptor,
    &box__close__descriptor,
    &box__output__descriptor,
    &box__exit__descriptor,
    &box__denied__descriptor,
    &box__alias_frame__descriptor,
};
#define N_MESSAGES (sizeof all_messages / sizeof all_messages[0])

/* A test-side allocator record so every fill is freed. Fills are built with
 * box_calloc and released by fill_free below, mirroring the structure. */

#define FILL_DEPTH 3

static void *fill_new(const ProtobufCMessageDescriptor *d, int depth,
                      int oneof_pick, int *seq);

static void
fill_scalar(const ProtobufCFieldDescriptor *f, void *slot, int depth, int *seq)
{
    int v = ++*seq;
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        *(int32_t *)slot = -v;
        break;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        *(uint32_t *)slot = (uint32_t)v;
        break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        *(int64_t *)slot = -((int64_t)v << 33);
        break;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        *(uint64_t *)slot = (uint64_t)v << 35;
        break;
    case PROTOBUF_C_TYPE_BOOL:
        *(protobuf_c_boolean *)slot = 1;
        break;
    case PROTOBUF_C_TYPE_ENUM: {
        const ProtobufCEnumDescriptor *e = f->descriptor;
        // The last value: never the zero (unspecified) one.
        *(int *)slot = e->values[e->n_values - 1].value;
        break;
    }
    case PROTOBUF_C_TYPE_STRING: {
        char buf[64];
        snprintf(buf, sizeof buf, "s%d-\xc3\xa9\"\\", v);
        *(char **)slot = box_strdup(buf);
        break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        ProtobufCBinaryData *b = slot;
        b->len = 3;
        b->data = box_alloc(3);
        b->data[0] = 0;
        b->data[1] = (uint8_t)v;
        b->data[2] = 0xff;
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
        *(void **)slot = fill_new(f->descriptor, depth + 1, 0, seq);
        break;
    default:
        fail_msg("field %s: type %d not handled", f->name, f->type);
    }
}

static size_t
field_size(const ProtobufCFieldDescriptor *f)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        return 8;
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default:
        return 4;
    }
}

/* Builds a message with every field set. oneof_pick chooses which member
 * of each oneof is set (modulo the members of that oneof). */
static void *
fill_new(const ProtobufCMessageDescriptor *d, int depth, int oneof_pick,
         int *seq)
{
    ProtobufCMessage *m = box_calloc(1, d->sizeof_message);
    d->message_init(m);
    if (depth > FILL_DEPTH)
        return m;
    // Oneof members share a quantifier offset; count position per oneof.
    unsigned last_q = (unsigned)-1;
    int idx_in_oneof = 0, members = 0;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        char *base = (char *)m;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            if (f->quantifier_offset != last_q) {
                last_q = f->quantifier_offset;
                idx_in_oneof = 0;
                members = 0;
                for (unsigned j = i; j < d->n_fields; j++)
                    if ((d->fields[j].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
                        d->fields[j].quantifier_offset == last_q)
                        members++;
            }
            int me = idx_in_oneof++;
            if (me != oneof_pick % members)
                continue;
            *(uint32_t *)(base + f->quantifier_offset) = f->id;
            fill_scalar(f, base + f->offset, depth, seq);
            continue;
        }
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = 2, sz = field_size(f);
            char *arr = box_calloc(n, sz);
            for (size_t k = 0; k < n; k++)
                fill_scalar(f, arr + k * sz, depth, seq);
            *(size_t *)(base + f->quantifier_offset) = n;
            *(void **)(base + f->offset) = arr;
            continue;
        }
        fill_scalar(f, base + f->offset, depth, seq);
    }
    return m;
}

static void fill_free(ProtobufCMessage *m);

static void
free_scalar(const ProtobufCFieldDescriptor *f, void *slot)
{
    if (f->type == PROTOBUF_C_TYPE_STRING)
        box_free(*(char **)slot);
    else if (f->type == PROTOBUF_C_TYPE_BYTES)
        box_free(((ProtobufCBinaryData *)slot)->data);
    else if (f->type == PROTOBUF_C_TYPE_MESSAGE && *(void **)slot != NULL)
        fill_free(*(ProtobufCMessage **)slot);
}

static void
fill_free(ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        char *base = (char *)m;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            if (*(uint32_t *)(base + f->quantifier_offset) == f->id)
                free_scalar(f, base + f->offset);
            continue;
        }
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(size_t *)(base + f->quantifier_offset);
            char *arr = *(char **)(base + f->offset);
            for (size_t k = 0; k < n; k++)
                free_scalar(f, arr + k * field_size(f));
            box_free(arr);
            continue;
        }
        free_scalar(f, base + f->offset);
    }
    box_free(m);
}

static int
oneof_members_max(const ProtobufCMessageDescriptor *d)
{
    int best = 1;
    for (unsigned i = 0; i < d->n_fields; i++) {
        if (!(d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
            continue;
        int n = 0;
        for (unsigned j = 0; j < d->n_fields; j++)
            if ((d->fields[j].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
                d->fields[j].quantifier_offset ==
                    d->fields[i].quantifier_offset)
                n++;
        if (n > best)
            best = n;
    }
    return best;
}

/* pack -> unpack -> pack must give the same bytes, and every field we set
 * must be present after the unpack (non-empty bytes for a filled message). */
static void
round_trip(const ProtobufCMessageDescriptor *d, int pick)
{
    int seq = 0;
    ProtobufCMessage *m = fill_new(d, 0, pick, &seq);
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *a = box_alloc(n);
    assert_int_equal(protobuf_c_message_pack(m, a), n);
    if (d->n_fields > 0)
        assert_true(n > 0);
    ProtobufCMessage *u = protobuf_c_message_unpack(d, NULL, n, a);
    assert_non_null(u);
    assert_true(protobuf_c_message_check(u));
    size_t n2 = protobuf_c_message_get_packed_size(u);
    assert_int_equal(n, n2);
    uint8_t *b = box_alloc(n2);
    protobuf_c_message_pack(u, b);
    assert_memory_equal(a, b, n);
    // Truncations never decode to garbage silently: every prefix either
    // fails or decodes to a message that packs shorter.
    for (size_t cut = 0; cut < n; cut++) {
        ProtobufCMessage *t = protobuf_c_message_unpack(d, NULL, cut, a);
        if (t != NULL) {
            assert_true(protobuf_c_message_get_packed_size(t) < n);
            protobuf_c_message_free_unpacked(t, NULL);
        }
    }
    protobuf_c_message_free_unpacked(u, NULL);
    box_free(a);
    box_free(b);
    fill_free(m);
}

static void
test_every_message_round_trips(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_MESSAGES; i++) {
        int cases = oneof_members_max(all_messages[i]);
        for (int pick = 0; pick < cases; pick++)
            round_trip(all_messages[i], pick);
    }
}

static void
test_table_is_complete(void **state)
{
    (void)state;
    const char *src = getenv("BOX_SOURCE_DIR");
    assert_non_null(src);
    char path[4096];
    snprintf(path, sizeof path, "%s/proto/box.proto", src);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[512];
    size_t found = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        char name[128];
        if (sscanf(line, "message %127s", name) != 1)
            continue;
        found++;
        bool listed = false;
        for (size_t i = 0; i < N_MESSAGES; i++)
            if (strcmp(all_messages[i]->short_name, name) == 0)
                listed = true;
        if (!listed)
            fail_msg("message %s has no round-trip test", name);
    }
    fclose(fp);
    assert_int_equal(found, N_MESSAGES);
}

static void
test_garbage_does_not_decode(void **state)
{
    (void)state;
    // Field 1, wire type 7 (invalid).
    const uint8_t bad[] = {0x0f, 0x01};
    assert_null(box__pdp_request__unpack(NULL, sizeof bad, bad));
    // A length that runs past the end.
    const uint8_t trunc[] = {0x0a, 0x7f, 0x01};
    assert_null(box__pdp_request__unpack(NULL, sizeof trunc, trunc));
}

static void
test_unspecified_verdict_is_zero(void **state)
{
    (void)state;
    // A response with no verdict set must read as the zero value, which
    // every reader treats as a deny.
    Box__DecisionResponse r = BOX__DECISION_RESPONSE__INIT;
    assert_int_equal(r.verdict, BOX__VERDICT__VERDICT_UNSPECIFIED);
    assert_int_equal(BOX__VERDICT__VERDICT_UNSPECIFIED, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_message_round_trips),
        cmocka_unit_test(test_table_is_complete),
        cmocka_unit_test(test_garbage_does_not_decode),
        cmocka_unit_test(test_unspecified_verdict_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
