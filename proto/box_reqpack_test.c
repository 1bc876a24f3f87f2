/* SPDX-License-Identifier: Apache-2.0 */
/* box_reqpack: the same bytes as protobuf-c for hand-made and random
 * requests, and 0 (never a short or wrong packing) for what it leaves to
 * protobuf-c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "box_reqpack.h"

#define PACK_MAX 65536

/* Every allocation of one generated request, freed together. */
typedef struct pool {
    void *p_ptr[4096];
    size_t p_n;
    uint64_t p_rng;
} pool;

static void *
pool_alloc(pool *p, size_t n)
{
    void *m = box_calloc(1, n);
    assert_non_null(m);
    assert_true(p->p_n < sizeof p->p_ptr / sizeof p->p_ptr[0]);
    p->p_ptr[p->p_n++] = m;
    return m;
}

static void
pool_free(pool *p)
{
    for (size_t i = 0; i < p->p_n; i++)
        box_free(p->p_ptr[i]);
    p->p_n = 0;
}

static uint64_t
rnd(pool *p)
{
    p->p_rng ^= p->p_rng << 13;
    p->p_rng ^= p->p_rng >> 7;
    p->p_rng ^= p->p_rng << 17;
    return p->p_rng;
}

/* NULL, the empty string (ours and protobuf-c's), or a few bytes that
 * may hold any byte but NUL. */
static char *
rnd_str(pool *p)
{
    switch (rnd(p) % 8) {
    case 0:
        return NULL;
    case 1:
        return (char *)protobuf_c_empty_string;
    case 2:
        return pool_alloc(p, 1);
    default: {
        size_t n = rnd(p) % (rnd(p) % 4 == 0 ? 300 : 12);
        char *s = pool_alloc(p, n + 1);
        for (size_t i = 0; i < n; i++)
            s[i] = (char)(1 + rnd(p) % 255);
        return s;
    }
    }
}

static int64_t
rnd_long(pool *p)
{
    static const int64_t edge[] = {0, 1, -1, 127, 128, INT64_MAX, INT64_MIN};
    return rnd(p) % 2 ? edge[rnd(p) % 7] : (int64_t)rnd(p);
}

static Box__Value *
rnd_value(pool *p, int depth)
{
    Box__Value *v = pool_alloc(p, sizeof *v);
    box__value__init(v);
    unsigned kind = (unsigned)(rnd(p) % (depth > 4 ? 4 : 8));
    switch (kind) {
    case 0:
        v->kind_case = BOX__VALUE__KIND_STR;
        v->str = rnd_str(p);
        break;
    case 1:
        v->kind_case = BOX__VALUE__KIND_LONG;
        v->long_ = rnd_long(p);
        break;
    case 2:
        v->kind_case = BOX__VALUE__KIND_BOOLEAN;
        v->boolean = (protobuf_c_boolean)(rnd(p) % 2);
        break;
    case 3:
        v->kind_case = rnd(p) % 2 ? BOX__VALUE__KIND__NOT_SET : 42;
        break;
    case 4: {
        v->kind_case = BOX__VALUE__KIND_SET;
        if (rnd(p) % 8 == 0)
            break; // a NULL set
        v->set = pool_alloc(p, sizeof *v->set);
        box__value_set__init(v->set);
        v->set->n_elements = rnd(p) % 4;
        v->set->elements =
            pool_alloc(p, (v->set->n_elements + 1) * sizeof(Box__Value *));
        for (size_t i = 0; i < v->set->n_elements; i++)
            v->set->elements[i] = rnd_value(p, depth + 1);
        break;
    }
    case 5:
    case 6: {
        v->kind_case = BOX__VALUE__KIND_RECORD;
        v->record = pool_alloc(p, sizeof *v->record);
        box__value_record__init(v->record);
        v->record->n_fields = rnd(p) % 6;
        v->record->fields = pool_alloc(p, (v->record->n_fields + 1) *
                                              sizeof(Box__RecordField *));
        for (size_t i = 0; i < v->record->n_fields; i++) {
            Box__RecordField *f = pool_alloc(p, sizeof *f);
            box__record_field__init(f);
            f->name = rnd_str(p);
            f->value = rnd(p) % 10 ? rnd_value(p, depth + 1) : NULL;
            v->record->fields[i] = f;
        }
        break;
    }
    default:
        v->kind_case = BOX__VALUE__KIND_ENTITY;
        if (rnd(p) % 8 == 0)
            break;
        v->entity = pool_alloc(p, sizeof *v->entity);
        box__entity_ref__init(v->entity);
        v->entity->type = rnd_str(p);
        v->entity->id = rnd_str(p);
        break;
    }
    return v;
}

static Box__DecisionRequest *
rnd_request(pool *p)
{
    Box__DecisionRequest *r = pool_alloc(p, sizeof *r);
    box__decision_request__init(r);
    r->action = rnd_str(p);
    r->resource = rnd_str(p);
    r->box_id = rnd_str(p);
    r->request_id = rnd(p) % 2 ? rnd(p) : 0;
    r->cached = (protobuf_c_boolean)(rnd(p) % 2);
    r->cached_epoch = rnd(p) % 2 ? rnd(p) % 1000 : 0;
    if (rnd(p) % 4 != 0)
        r->input = rnd_value(p, 0);
    if (rnd(p) % 2) {
        Box__Subject *s = pool_alloc(p, sizeof *s);
        box__subject__init(s);
        s->n_command_args = rnd(p) % 5;
        s->command_args =
            pool_alloc(p, (s->n_command_args + 1) * sizeof(char *));
        for (size_t i = 0; i < s->n_command_args; i++)
            if ((s->command_args[i] = rnd_str(p)) == NULL)
                s->command_args[i] = ""; // protobuf-c cannot size NULL
        s->working_directory = rnd_str(p);
        s->server_address = rnd_str(p);
        s->server_port = rnd(p) % 2 ? rnd_long(p) : 0;
        s->http_method = rnd_str(p);
        s->file_path = rnd_str(p);
        s->process_command = rnd_str(p);
        r->subject = s;
    }
    if (rnd(p) % 5 == 0) {
        Box__Enforcement *e = pool_alloc(p, sizeof *e);
        box__enforcement__init(e);
        e->gate = rnd_str(p);
        e->reason = rnd_str(p);
        r->enforcement = e;
    }
    return r;
}

/* r packs to protobuf-c's bytes (at the buffer's end), and to NULL in one
 * byte less room. */
static void
assert_same_bytes(const Box__DecisionRequest *r)
{
    static uint8_t want[PACK_MAX], got[PACK_MAX];
    size_t wn = box__decision_request__get_packed_size(r);
    assert_true(wn <= PACK_MAX);
    assert_int_equal(box__decision_request__pack(r, want), wn);
    size_t gn = 1;
    uint8_t *p = box_reqpack(r, got, sizeof got, &gn);
    assert_ptr_equal(p, got + sizeof got - wn);
    assert_int_equal(gn, wn);
    assert_memory_equal(p, want, wn);
    if (wn > 0) {
        assert_null(box_reqpack(r, got, wn - 1, &gn));
        assert_int_equal(gn, 0);
    }
    assert_ptr_equal(box_reqpack(r, got, wn, &gn), got);
    assert_int_equal(gn, wn);
}

static void
test_shell_request(void **state)
{
    (void)state;
    Box__Value cmd = BOX__VALUE__INIT, n = BOX__VALUE__INIT;
    cmd.kind_case = BOX__VALUE__KIND_STR;
    cmd.str = "ls -la";
    n.kind_case = BOX__VALUE__KIND_LONG;
    n.long_ = 1;
    Box__RecordField f1 = BOX__RECORD_FIELD__INIT, f2 = BOX__RECORD_FIELD__INIT;
    f1.name = "command";
    f1.value = &cmd;
    f2.name = "arg_count";
    f2.value = &n;
    Box__RecordField *fs[] = {&f1, &f2};
    Box__ValueRecord rec = BOX__VALUE_RECORD__INIT;
    rec.n_fields = 2;
    rec.fields = fs;
    Box__Value in = BOX__VALUE__INIT;
    in.kind_case = BOX__VALUE__KIND_RECORD;
    in.record = &rec;
    char *argv[] = {"ls", "-la"};
    Box__Subject sub = BOX__SUBJECT__INIT;
    sub.n_command_args = 2;
    sub.command_args = argv;
    sub.working_directory = "/home/agent/project";
    Box__DecisionRequest r = BOX__DECISION_REQUEST__INIT;
    r.action = "shell:exec";
    r.resource = "ls";
    r.input = &in;
    r.subject = &sub;
    r.request_id = 300; // two varint bytes
    r.cached = 1;
    r.cached_epoch = 7;
    assert_same_bytes(&r);

    Box__DecisionRequest empty = BOX__DECISION_REQUEST__INIT;
    uint8_t b[4];
    size_t len = 1;
    assert_ptr_equal(box_reqpack(&empty, b, 0, &len), b); // nothing to write
    assert_int_equal(len, 0);
    assert_same_bytes(&empty);
}

static void
test_random_requests(void **state)
{
    (void)state;
    pool p = {.p_rng = 0x9e3779b97f4a7c15ULL};
    for (int i = 0; i < 20000; i++) {
        assert_same_bytes(rnd_request(&p));
        pool_free(&p);
    }
}

/* Unknown fields, too deep a value, a NULL set element: 0, so the caller
 * packs with protobuf-c. */
static void
test_left_to_protobuf_c(void **state)
{
    (void)state;
    static uint8_t buf[PACK_MAX];
    size_t n;
    Box__DecisionRequest r = BOX__DECISION_REQUEST__INIT;
    r.action = "fs:read";
    ProtobufCMessageUnknownField uf = {.tag = 99,
                                       .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT,
                                       .len = 1,
                                       .data = (uint8_t *)"\x01"};
    r.base.n_unknown_fields = 1;
    r.base.unknown_fields = &uf;
    assert_null(box_reqpack(&r, buf, sizeof buf, &n));
    // box_reqpack_any hands it to protobuf-c, at the buffer's start, and
    // gives up only when it does not fit.
    static uint8_t want[PACK_MAX];
    size_t wn = box__decision_request__pack(&r, want);
    assert_ptr_equal(box_reqpack_any(&r, buf, sizeof buf, &n), buf);
    assert_int_equal(n, wn);
    assert_memory_equal(buf, want, wn);
    assert_null(box_reqpack_any(&r, buf, wn - 1, &n));
    r.base.n_unknown_fields = 0;
    r.base.unknown_fields = NULL;

    // 100 sets, one inside the other.
    Box__Value v[100];
    Box__ValueSet s[100];
    Box__Value *el[100];
    for (int i = 0; i < 100; i++) {
        box__value__init(&v[i]);
        box__value_set__init(&s[i]);
        v[i].kind_case = BOX__VALUE__KIND_SET;
        v[i].set = &s[i];
        if (i + 1 < 100) {
            el[i] = &v[i + 1];
            s[i].n_elements = 1;
            s[i].elements = &el[i];
        }
    }
    r.input = &v[0];
    assert_null(box_reqpack(&r, buf, sizeof buf, &n));
    r.input = &v[90]; // ten deep packs
    assert_same_bytes(&r);

    Box__Value *holes[] = {NULL};
    Box__ValueSet hs = BOX__VALUE_SET__INIT;
    hs.n_elements = 1;
    hs.elements = holes;
    Box__Value hv = BOX__VALUE__INIT;
    hv.kind_case = BOX__VALUE__KIND_SET;
    hv.set = &hs;
    r.input = &hv;
    assert_null(box_reqpack(&r, buf, sizeof buf, &n));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shell_request),
        cmocka_unit_test(test_random_requests),
        cmocka_unit_test(test_left_to_protobuf_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
