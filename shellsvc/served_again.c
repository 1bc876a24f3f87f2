/* SPDX-License-Identifier: Apache-2.0 */
/* Served permits found again by identity (served_again.h). */
#include "served_again.h"

#include <string.h>

#include "box_alloc.h"
#include "box_hash.h"
#include "box_pdp_client.h"

#define SA_SLOTS 128 // a power of two; a loop repeats a handful of commands

typedef struct sa_slot {
    uint64_t ss_hash;
    uint8_t *ss_id; // ss_len bytes, owned; NULL: empty
    size_t ss_len, ss_cap;
    uint64_t ss_gen, ss_batch, ss_born_ms, ss_epoch;
    size_t ss_index;
    uint64_t ss_serial; // which put made the slot what it is
} sa_slot;

struct served_again {
    sa_slot sa_slot[SA_SLOTS];
    uint64_t sa_puts; // puts so far: a slot's serial, a token's half
};

served_again *
served_again_new(void)
{
    return box_calloc(1, sizeof(served_again));
}

void
served_again_free(served_again *a)
{
    if (a == NULL)
        return;
    for (size_t i = 0; i < SA_SLOTS; i++)
        box_free(a->sa_slot[i].ss_id);
    box_free(a);
}

/* ------------------------------------------------------------------ */
/* Identity                                                            */
/* ------------------------------------------------------------------ */

/* Appends n bytes; false (and the identity unusable) when full. */
static bool
id_put(served_again_id *id, const void *p, size_t n)
{
    if (n > SERVED_AGAIN_ID_MAX - id->si_len)
        return false;
    memcpy(id->si_buf + id->si_len, p, n);
    id->si_len += n;
    return true;
}

static bool
id_u64(served_again_id *id, uint64_t v)
{
    return id_put(id, &v, sizeof v);
}

/* A string as its length + 1 (0: NULL, which packs as "" but is told
 * apart here: a miss at worst) and its bytes. */
static bool
id_str(served_again_id *id, const char *s)
{
    // One pass over the bytes, copied as they are measured: the strings
    // are short, and a strlen and a memcpy call each were most of the
    // identity's cost.
    uint32_t head = 0;
    size_t at = id->si_len, n = 0;
    if (SERVED_AGAIN_ID_MAX - at < sizeof head)
        return false;
    if (s != NULL) {
        uint8_t *d = id->si_buf + at + sizeof head;
        size_t room = SERVED_AGAIN_ID_MAX - at - sizeof head;
        for (; s[n] != '\0'; n++) {
            if (n == room)
                return false;
            d[n] = (uint8_t)s[n];
        }
        head = (uint32_t)n + 1u; // n < SERVED_AGAIN_ID_MAX
    }
    memcpy(id->si_buf + at, &head, sizeof head);
    id->si_len = at + sizeof head + n;
    return true;
}

static bool
id_subject(served_again_id *id, const Box__Subject *s)
{
    uint8_t present = s != NULL;
    if (!id_put(id, &present, 1))
        return false;
    if (s == NULL)
        return true;
    if (!id_u64(id, s->n_command_args))
        return false;
    for (size_t i = 0; i < s->n_command_args; i++)
        if (!id_str(id, s->command_args[i]))
            return false;
    return id_str(id, s->working_directory) &&
           id_str(id, s->server_address) &&
           id_u64(id, (uint64_t)s->server_port) &&
           id_str(id, s->http_method) && id_str(id, s->file_path) &&
           id_str(id, s->process_command);
}

/* The input as permit_memo_report_input makes it: each field's name in
 * order, then its value where the report keeps it (a field the policy
 * reads, or one of a kind it cannot blank), else only its kind. */
static bool
id_input(served_again_id *id, const Box__Value *in, char *const *fields,
         size_t nfields)
{
    if (in == NULL || in->kind_case != BOX__VALUE__KIND_RECORD ||
        in->record == NULL ||
        in->record->n_fields > PERMIT_MEMO_BLANK_FIELDS ||
        !id_u64(id, in->record->n_fields))
        return false;
    for (size_t i = 0; i < in->record->n_fields; i++) {
        const Box__RecordField *f = in->record->fields[i];
        if (f == NULL || f->name == NULL || f->value == NULL ||
            !id_str(id, f->name))
            return false;
        uint8_t tag = (uint8_t)f->value->kind_case;
        if (permit_memo_blanks(fields, nfields, f)) {
            if (!id_put(id, &tag, 1))
                return false;
            continue;
        }
        size_t n = box_pdp_canon_key(NULL, f->value, id->si_buf + id->si_len,
                                     SERVED_AGAIN_ID_MAX - id->si_len);
        if (n == 0)
            return false;
        id->si_len += n;
    }
    return true;
}

bool
served_again_id_of(const permit_memo *m, const Box__DecisionRequest *req,
                   served_again_id *id)
{
    size_t nfields;
    id->si_len = 0;
    if (!permit_memo_keeps(req))
        return false;
    char *const *fields = permit_memo_fields(m, req->action, &nfields);
    if (fields == NULL || !id_str(id, req->action) ||
        !id_str(id, req->resource) || !id_str(id, req->box_id) ||
        !id_u64(id, req->request_id) || !id_subject(id, req->subject) ||
        !id_input(id, req->input, fields, nfields))
        return false;
    id->si_hash = box_hash_words(id->si_buf, id->si_len);
    return true;
}

/* ------------------------------------------------------------------ */
/* Table                                                               */
/* ------------------------------------------------------------------ */

static sa_slot *
sa_slot_of(const served_again *a, uint64_t hash)
{
    // The hash's high bits: its low ones also pick the memo's slots.
    return (sa_slot *)&a->sa_slot[(hash >> 40) & (SA_SLOTS - 1)];
}

/* Whether s, when it holds anything, still holds a good report. */
static bool
sa_slot_good(const sa_slot *s, uint64_t gen, uint64_t batch, uint64_t now_ms,
             uint64_t max_age_ms)
{
    return s->ss_id != NULL && s->ss_gen == gen && s->ss_batch == batch &&
           (max_age_ms == 0 || now_ms - s->ss_born_ms <= max_age_ms);
}

/* The token naming s as it is now: its serial above, its place below. */
static uint64_t
sa_token(const served_again *a, const sa_slot *s)
{
    return s->ss_serial * SA_SLOTS + (uint64_t)(s - a->sa_slot);
}

bool
served_again_find(const served_again *a, const served_again_id *id,
                  uint64_t gen, uint64_t batch, uint64_t now_ms,
                  uint64_t max_age_ms, size_t *index, uint64_t *epoch,
                  uint64_t *token)
{
    const sa_slot *s = sa_slot_of(a, id->si_hash);
    if (!sa_slot_good(s, gen, batch, now_ms, max_age_ms) ||
        s->ss_hash != id->si_hash || s->ss_len != id->si_len ||
        memcmp(s->ss_id, id->si_buf, id->si_len) != 0)
        return false;
    *index = s->ss_index;
    *epoch = s->ss_epoch;
    *token = sa_token(a, s);
    return true;
}

bool
served_again_find_token(const served_again *a, uint64_t token, uint64_t gen,
                        uint64_t batch, uint64_t now_ms, uint64_t max_age_ms,
                        size_t *index)
{
    const sa_slot *s = &a->sa_slot[token % SA_SLOTS];
    // Serials start at 1: token 0 (none) never names a slot.
    if (s->ss_serial == 0 || s->ss_serial != token / SA_SLOTS ||
        !sa_slot_good(s, gen, batch, now_ms, max_age_ms))
        return false;
    *index = s->ss_index;
    return true;
}

uint64_t
served_again_put(served_again *a, const served_again_id *id, uint64_t gen,
                 uint64_t batch, const permit_memo_hit *hit, size_t index)
{
    sa_slot *s = sa_slot_of(a, id->si_hash);
    if (s->ss_cap < id->si_len) {
        uint8_t *p = box_alloc(id->si_len);
        if (p == NULL)
            return 0; // the slot keeps what it had: still true of its batch
        box_free(s->ss_id);
        s->ss_id = p;
        s->ss_cap = id->si_len;
    }
    memcpy(s->ss_id, id->si_buf, id->si_len);
    s->ss_len = id->si_len;
    s->ss_hash = id->si_hash;
    s->ss_gen = gen;
    s->ss_batch = batch;
    s->ss_born_ms = hit->ph_born_ms;
    s->ss_epoch = hit->ph_epoch;
    s->ss_index = index;
    s->ss_serial = ++a->sa_puts;
    return sa_token(a, s);
}
