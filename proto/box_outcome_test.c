/* SPDX-License-Identifier: Apache-2.0 */
/* box_outcome: the wire shape of each outcome, read back; the book that
 * takes only outcomes owed, in their action's shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "box_effect.h"
#include "box_outcome.h"

/* The request of an fs:read of path, or of shell:exec `rm x` (path NULL). */
static const Box__DecisionRequest *
request(box_effect_req *er, const char *path)
{
    static char *argv[] = {"rm", "x"};
    static char *args[] = {"rm", "x"};
    box_effect e = {.e_kind = BOX_EFFECT_FS_READ,
                    .e_fs = {.ef_operation = "read_content",
                             .ef_reported = path,
                             .ef_canonical = path}};
    if (path == NULL)
        e = (box_effect){.e_kind = BOX_EFFECT_SHELL_EXEC,
                         .e_cmd = {.ec_command = "rm x",
                                   .ec_argc = 2,
                                   .ec_argv = argv,
                                   .ec_cwd = "/w",
                                   .ec_args = args,
                                   .ec_nargs = 2}};
    const Box__DecisionRequest *rq = box_effect_request(er, &e);
    assert_non_null(rq);
    return rq;
}

/* Packs ev and unpacks it again, as the broker gets it from a worker. */
static Box__Event *
wire(const Box__Event *ev)
{
    uint8_t buf[256];
    size_t n = box__event__get_packed_size(ev);
    assert_true(n <= sizeof buf);
    box__event__pack(ev, buf);
    Box__Event *back = box__event__unpack(NULL, n, buf);
    assert_non_null(back);
    return back;
}

static void
test_shapes_read_back(void **state)
{
    static const struct {
        box_outcome o;
        Box__EventKind kind;
        const char *field; // the output's one field, or NULL for none
    } rows[] = {
        {{BOX_OUTCOME_ERROR, 0}, BOX__EVENT_KIND__EVENT_ERROR, NULL},
        {{BOX_OUTCOME_COMPLETED, 0}, BOX__EVENT_KIND__EVENT_RESPONSE, "result"},
        {{BOX_OUTCOME_DESCRIPTOR, 0},
         BOX__EVENT_KIND__EVENT_RESPONSE,
         "result"},
        {{BOX_OUTCOME_INDETERMINATE, 0},
         BOX__EVENT_KIND__EVENT_RESPONSE,
         "result"},
        {{BOX_OUTCOME_STATUS, 0}, BOX__EVENT_KIND__EVENT_RESPONSE, "status"},
        {{BOX_OUTCOME_STATUS, 137}, BOX__EVENT_KIND__EVENT_RESPONSE, "status"},
        {{BOX_OUTCOME_STATUS, BOX_OUTCOME_NO_STATUS},
         BOX__EVENT_KIND__EVENT_RESPONSE,
         "status"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        box_outcome_ev ev;
        const Box__Event *e = box_outcome_event(&ev, 40 + i, &rows[i].o);
        assert_non_null(e);
        Box__Event *w = wire(e);
        assert_int_equal(w->kind, rows[i].kind);
        assert_int_equal(w->request_id, 40 + i);
        assert_null(w->input);
        if (rows[i].field == NULL)
            assert_null(w->output);
        else
            assert_string_equal(w->output->record->fields[0]->name,
                                rows[i].field);
        box_outcome o;
        assert_true(box_outcome_read(w, &o));
        assert_int_equal(o.bo_kind, rows[i].o.bo_kind);
        assert_int_equal(o.bo_status, rows[i].o.bo_status);
        box__event__free_unpacked(w, NULL);
        box_outcome_ev_clear(&ev);
    }
    // net:connect's ::response has no output, and a worker cannot send
    // one: only the gateway records it, for its own decisions.
    {
        box_outcome_ev oev;
        box_outcome op = {.bo_kind = BOX_OUTCOME_OPENED};
        const Box__Event *oe = box_outcome_event(&oev, 7, &op);
        assert_non_null(oe);
        assert_int_equal(oe->kind, BOX__EVENT_KIND__EVENT_RESPONSE);
        assert_null(oe->output);
        box_outcome back;
        assert_false(box_outcome_read(oe, &back));
        box_outcome_ev_clear(&oev);
    }
    // The result is an enum entity (Box::FsResponseResult::"…").
    box_outcome_ev ev;
    box_outcome o = {.bo_kind = BOX_OUTCOME_DESCRIPTOR};
    const Box__Event *e = box_outcome_event(&ev, 1, &o);
    const Box__Value *v = e->output->record->fields[0]->value;
    assert_int_equal(v->kind_case, BOX__VALUE__KIND_ENTITY);
    assert_string_equal(v->entity->type, "Box::FsResponseResult");
    assert_string_equal(v->entity->id, "descriptor_issued");
    // Anything else is refused: an unknown result, a request kind, an
    // ::error with an output, an action or an input sent along.
    Box__Event *w = wire(e);
    w->output->record->fields[0]->value->entity->id[0] = 'X';
    assert_false(box_outcome_read(w, &o));
    box__event__free_unpacked(w, NULL);
    w = wire(e);
    w->kind = BOX__EVENT_KIND__EVENT_REQUEST;
    assert_false(box_outcome_read(w, &o));
    w->kind = BOX__EVENT_KIND__EVENT_ERROR;
    assert_false(box_outcome_read(w, &o));
    box__event__free_unpacked(w, NULL);
    Box__Event forged = *e;
    forged.action = "fs:write";
    assert_false(box_outcome_read(&forged, &o));
    box_effect_req er;
    forged = *e;
    forged.input = request(&er, "/w/a")->input;
    assert_false(box_outcome_read(&forged, &o));
    box_outcome_ev_clear(&ev);
}

static void
test_book(void **state)
{
    box_outcome_book *b = box_outcome_book_new();
    assert_non_null(b);
    box_effect_req er;
    assert_int_equal(box_outcome_book_expect(b, 1, request(&er, "/w/a")),
                     BOX_OK);
    assert_int_equal(box_outcome_book_expect(b, 2, request(&er, NULL)), BOX_OK);
    assert_int_equal(box_outcome_book_expect(b, 3, request(&er, "/w/c")),
                     BOX_OK);
    assert_int_equal(box_outcome_book_expect(b, 3, request(&er, "/w/c")),
                     BOX_EBUSY);
    // Not an action whose outcome the shell records.
    Box__DecisionRequest other = *request(&er, "/w/d");
    other.action = "net:connect";
    assert_int_equal(box_outcome_book_expect(b, 4, &other), BOX_EINVAL);
    assert_int_equal(box_outcome_book_len(b), 3);

    // An outcome of another shape, or not owed, is refused.
    box_outcome_ev ev;
    box_outcome st = {.bo_kind = BOX_OUTCOME_STATUS, .bo_status = 0};
    box_outcome done = {.bo_kind = BOX_OUTCOME_COMPLETED};
    assert_int_equal(box_outcome_book_take(b, 1, &st, &ev), BOX_EINVAL);
    assert_int_equal(box_outcome_book_take(b, 2, &done, &ev), BOX_EINVAL);
    assert_int_equal(box_outcome_book_take(b, 9, &done, &ev), BOX_ENOENT);
    assert_int_equal(box_outcome_book_len(b), 3);

    // Owed: the event has the decided action and input; once.
    assert_int_equal(box_outcome_book_take(b, 2, &st, &ev), BOX_OK);
    assert_string_equal(ev.oe_ev.action, "shell:exec");
    assert_int_equal(ev.oe_ev.request_id, 2);
    assert_int_equal(ev.oe_ev.kind, BOX__EVENT_KIND__EVENT_RESPONSE);
    const Box__ValueRecord *in = ev.oe_ev.input->record;
    assert_string_equal(in->fields[0]->name, "command");
    assert_string_equal(in->fields[0]->value->str, "rm x");
    assert_string_equal(in->fields[1]->value->str, "rm");
    box_outcome_ev_clear(&ev);
    assert_int_equal(box_outcome_book_take(b, 2, &st, &ev), BOX_ENOENT);

    box_outcome err = {.bo_kind = BOX_OUTCOME_ERROR};
    assert_int_equal(box_outcome_book_take(b, 3, &err, &ev), BOX_OK);
    assert_string_equal(ev.oe_ev.action, "fs:read");
    assert_int_equal(ev.oe_ev.kind, BOX__EVENT_KIND__EVENT_ERROR);
    assert_null(ev.oe_ev.output);
    assert_string_equal(ev.oe_ev.input->record->fields[0]->value->str, "/w/c");
    box_outcome_ev_clear(&ev);

    // What was never reported: an fs effect may have happened.
    assert_int_equal(box_outcome_book_expect(b, 5, request(&er, NULL)), BOX_OK);
    assert_int_equal(box_outcome_book_take_unreported(b, &ev), BOX_OK);
    assert_int_equal(ev.oe_ev.request_id, 1);
    assert_string_equal(ev.oe_ev.output->record->fields[0]->value->entity->id,
                        "indeterminate");
    box_outcome_ev_clear(&ev);
    assert_int_equal(box_outcome_book_take_unreported(b, &ev), BOX_OK);
    assert_int_equal(ev.oe_ev.request_id, 5);
    assert_int_equal(ev.oe_ev.output->record->fields[0]->value->long_,
                     BOX_OUTCOME_NO_STATUS);
    box_outcome_ev_clear(&ev);
    assert_int_equal(box_outcome_book_take_unreported(b, &ev), BOX_ENOENT);
    box_outcome_book_free(b);
}

static void
test_book_is_bounded(void **state)
{
    box_outcome_book *b = box_outcome_book_new();
    assert_non_null(b);
    box_effect_req er;
    const Box__DecisionRequest *rq = request(&er, "/w/a");
    for (uint64_t i = 0; i < BOX_OUTCOME_BOOK_MAX; i++)
        assert_int_equal(box_outcome_book_expect(b, i, rq), BOX_OK);
    assert_int_equal(box_outcome_book_expect(b, BOX_OUTCOME_BOOK_MAX, rq),
                     BOX_ETOOBIG);
    box_outcome_ev ev;
    box_outcome done = {.bo_kind = BOX_OUTCOME_COMPLETED};
    assert_int_equal(box_outcome_book_take(b, 17, &done, &ev), BOX_OK);
    box_outcome_ev_clear(&ev);
    assert_int_equal(box_outcome_book_expect(b, BOX_OUTCOME_BOOK_MAX, rq),
                     BOX_OK);
    // Freed with entries still kept (a call that ended badly).
    box_outcome_book_free(b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_read_back),
        cmocka_unit_test(test_book),
        cmocka_unit_test(test_book_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
