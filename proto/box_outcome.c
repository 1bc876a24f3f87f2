/* SPDX-License-Identifier: Apache-2.0 */
/* Outcome events: one table of their shapes, and the book of permits
 * awaiting theirs. */
#include "box_outcome.h"

#include <string.h>

#include "box_alloc.h"

#define FS_RESULT_TYPE "Box::FsResponseResult"

/* ORDER BOX_OUTCOME: what each outcome is on the wire. */
static const struct outcome_row {
    bool or_shell;          // fits shell:exec / shell:spawn (else fs:*)
    Box__EventKind or_kind; // ::response or ::error
    const char *or_result;  // fs response: output.result's id
} outcome_tab[BOX_OUTCOME_KIND_COUNT] = {
    [BOX_OUTCOME_ERROR] = {false, BOX__EVENT_KIND__EVENT_ERROR, NULL},
    [BOX_OUTCOME_COMPLETED] = {false, BOX__EVENT_KIND__EVENT_RESPONSE,
                               "completed"},
    [BOX_OUTCOME_DESCRIPTOR] = {false, BOX__EVENT_KIND__EVENT_RESPONSE,
                                "descriptor_issued"},
    [BOX_OUTCOME_INDETERMINATE] = {false, BOX__EVENT_KIND__EVENT_RESPONSE,
                                   "indeterminate"},
    [BOX_OUTCOME_STATUS] = {true, BOX__EVENT_KIND__EVENT_RESPONSE, NULL},
    // net:connect's ::response carries no output (box-spec §4).
    [BOX_OUTCOME_OPENED] = {false, BOX__EVENT_KIND__EVENT_RESPONSE, NULL},
};

const Box__Event *
box_outcome_event(box_outcome_ev *ev, uint64_t id, const box_outcome *o)
{
    memset(ev, 0, sizeof *ev);
    box__event__init(&ev->oe_ev);
    if ((unsigned)o->bo_kind >= BOX_OUTCOME_KIND_COUNT)
        return NULL;
    const struct outcome_row *row = &outcome_tab[o->bo_kind];
    ev->oe_ev.kind = row->or_kind;
    ev->oe_ev.request_id = id;
    if (row->or_kind == BOX__EVENT_KIND__EVENT_ERROR ||
        o->bo_kind == BOX_OUTCOME_OPENED)
        return &ev->oe_ev;
    box__value__init(&ev->oe_out);
    box__value_record__init(&ev->oe_rec);
    box__record_field__init(&ev->oe_field);
    box__value__init(&ev->oe_val);
    ev->oe_fieldp[0] = &ev->oe_field;
    ev->oe_rec.n_fields = 1;
    ev->oe_rec.fields = ev->oe_fieldp;
    ev->oe_out.kind_case = BOX__VALUE__KIND_RECORD;
    ev->oe_out.record = &ev->oe_rec;
    ev->oe_field.value = &ev->oe_val;
    if (row->or_shell) {
        ev->oe_field.name = (char *)"status";
        ev->oe_val.kind_case = BOX__VALUE__KIND_LONG;
        ev->oe_val.long_ = o->bo_status;
    } else {
        box__entity_ref__init(&ev->oe_result);
        ev->oe_result.type = (char *)FS_RESULT_TYPE;
        ev->oe_result.id = (char *)row->or_result;
        ev->oe_field.name = (char *)"result";
        ev->oe_val.kind_case = BOX__VALUE__KIND_ENTITY;
        ev->oe_val.entity = &ev->oe_result;
    }
    ev->oe_ev.output = &ev->oe_out;
    return &ev->oe_ev;
}

/* The one field of an output record named name, or NULL. */
static const Box__Value *
output_field(const Box__Value *out, const char *name)
{
    if (out == NULL || out->kind_case != BOX__VALUE__KIND_RECORD ||
        out->record->n_fields != 1 || out->record->fields[0] == NULL ||
        out->record->fields[0]->name == NULL ||
        strcmp(out->record->fields[0]->name, name) != 0)
        return NULL;
    return out->record->fields[0]->value;
}

bool
box_outcome_read(const Box__Event *ev, box_outcome *o)
{
    memset(o, 0, sizeof *o);
    if ((ev->action != NULL && ev->action[0] != '\0') || ev->input != NULL)
        return false;
    if (ev->kind == BOX__EVENT_KIND__EVENT_ERROR) {
        o->bo_kind = BOX_OUTCOME_ERROR;
        return ev->output == NULL;
    }
    if (ev->kind != BOX__EVENT_KIND__EVENT_RESPONSE)
        return false;
    const Box__Value *v = output_field(ev->output, "status");
    if (v != NULL) {
        o->bo_kind = BOX_OUTCOME_STATUS;
        o->bo_status = v->long_;
        return v->kind_case == BOX__VALUE__KIND_LONG;
    }
    v = output_field(ev->output, "result");
    if (v == NULL || v->kind_case != BOX__VALUE__KIND_ENTITY ||
        v->entity->type == NULL || v->entity->id == NULL ||
        strcmp(v->entity->type, FS_RESULT_TYPE) != 0)
        return false;
    for (unsigned k = 0; k < BOX_OUTCOME_KIND_COUNT; k++) {
        const char *r = outcome_tab[k].or_result;
        if (r != NULL && strcmp(r, v->entity->id) == 0) {
            o->bo_kind = (box_outcome_kind)k;
            return true;
        }
    }
    return false;
}

void
box_outcome_ev_clear(box_outcome_ev *ev)
{
    if (ev == NULL)
        return;
    box_free(ev->oe_action);
    if (ev->oe_input != NULL)
        box__value__free_unpacked(ev->oe_input, NULL);
    memset(ev, 0, sizeof *ev);
}

/* ---- the book ---------------------------------------------------------- */

/* One permit: its action and its input, packed (the bytes protobuf-c
 * writes for a value are the same each time, so they are kept as they
 * are and unpacked once, when the outcome comes). */
typedef struct book_entry {
    uint64_t be_id;
    bool be_shell;
    char *be_action;
    uint8_t *be_input;
    size_t be_len;
} book_entry;

struct box_outcome_book {
    book_entry *bk_v; // in the order they were kept
    size_t bk_n, bk_cap;
    size_t bk_bytes;
};

box_outcome_book *
box_outcome_book_new(void)
{
    return box_calloc(1, sizeof(box_outcome_book));
}

static void
entry_clear(book_entry *e)
{
    box_free(e->be_action);
    box_free(e->be_input);
}

void
box_outcome_book_free(box_outcome_book *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->bk_n; i++)
        entry_clear(&b->bk_v[i]);
    box_free(b->bk_v);
    box_free(b);
}

size_t
box_outcome_book_len(const box_outcome_book *b)
{
    return b->bk_n;
}

static book_entry *
book_find(box_outcome_book *b, uint64_t id)
{
    for (size_t i = 0; i < b->bk_n; i++)
        if (b->bk_v[i].be_id == id)
            return &b->bk_v[i];
    return NULL;
}

/* fs:* or shell:*: the actions whose outcomes the shell records. */
static bool
action_kind(const char *action, bool *shell)
{
    if (action == NULL)
        return false;
    *shell =
        strcmp(action, "shell:exec") == 0 || strcmp(action, "shell:spawn") == 0;
    return *shell || strncmp(action, "fs:", 3) == 0;
}

box_err
box_outcome_book_expect(box_outcome_book *b, uint64_t id,
                        const Box__DecisionRequest *req)
{
    bool shell = false;
    if (!action_kind(req->action, &shell) || req->input == NULL)
        return BOX_EINVAL;
    if (book_find(b, id) != NULL)
        return BOX_EBUSY;
    size_t len = box__value__get_packed_size(req->input);
    size_t alen = strlen(req->action);
    if (b->bk_n >= BOX_OUTCOME_BOOK_MAX ||
        b->bk_bytes + len + alen > BOX_OUTCOME_BOOK_BYTES)
        return BOX_ETOOBIG;
    if (b->bk_n == b->bk_cap) {
        size_t cap = b->bk_cap ? b->bk_cap * 2 : 8;
        book_entry *nv = box_realloc(b->bk_v, cap * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        b->bk_v = nv;
        b->bk_cap = cap;
    }
    book_entry e = {.be_id = id, .be_shell = shell, .be_len = len};
    e.be_action = box_strdup(req->action);
    e.be_input = box_alloc(len ? len : 1);
    if (e.be_action == NULL || e.be_input == NULL) {
        entry_clear(&e);
        return BOX_ENOMEM;
    }
    box__value__pack(req->input, e.be_input);
    b->bk_v[b->bk_n++] = e;
    b->bk_bytes += len + alen;
    return BOX_OK;
}

/* The event of entry i with outcome o; the entry is removed on BOX_OK. */
static box_err
book_take_at(box_outcome_book *b, size_t i, const box_outcome *o,
             box_outcome_ev *ev)
{
    book_entry *e = &b->bk_v[i];
    if ((unsigned)o->bo_kind >= BOX_OUTCOME_KIND_COUNT ||
        outcome_tab[o->bo_kind].or_shell != e->be_shell)
        return BOX_EINVAL;
    Box__Value *input = box__value__unpack(NULL, e->be_len, e->be_input);
    if (input == NULL)
        return BOX_ENOMEM; // its own bytes: only memory can fail
    if (box_outcome_event(ev, e->be_id, o) == NULL) {
        box__value__free_unpacked(input, NULL);
        return BOX_EINVAL;
    }
    ev->oe_action = e->be_action;
    ev->oe_input = input;
    ev->oe_ev.action = e->be_action;
    ev->oe_ev.input = input;
    b->bk_bytes -= e->be_len + strlen(e->be_action);
    box_free(e->be_input);
    memmove(e, e + 1, (b->bk_n - i - 1) * sizeof *e);
    b->bk_n--;
    return BOX_OK;
}

box_err
box_outcome_book_take(box_outcome_book *b, uint64_t id, const box_outcome *o,
                      box_outcome_ev *ev)
{
    book_entry *e = book_find(b, id);
    if (e == NULL)
        return BOX_ENOENT;
    return book_take_at(b, (size_t)(e - b->bk_v), o, ev);
}

box_err
box_outcome_book_take_unreported(box_outcome_book *b, box_outcome_ev *ev)
{
    if (b->bk_n == 0)
        return BOX_ENOENT;
    box_outcome o = {.bo_kind = b->bk_v[0].be_shell ? BOX_OUTCOME_STATUS
                                                    : BOX_OUTCOME_INDETERMINATE,
                     .bo_status = BOX_OUTCOME_NO_STATUS};
    return book_take_at(b, 0, &o, ev);
}
