/* SPDX-License-Identifier: Apache-2.0 */
/* Commands whose permit the decider can serve again, by their words. */
#include "sh_again.h"

#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_hash.h"

/*
 * sh_admit builds a command's request from cv_argv, cv_expanded, cv_cwd
 * and cv_program_path alone (it reads no shell state), so two commands
 * equal in those have requests equal byte for byte. A loop's `read -r a
 * b` is one such command thousands of times, and building its request
 * and the decider's identity of it was a third of a served command's
 * cost. This table keeps, per key, the bt_again token the decider gave
 * its served permit; the decider still checks that the token is good
 * (policy, batch, age) and reports every serving.
 *
 * Only commands spelled out in full are kept: one with a word from an
 * expansion (`[ $i -lt 9 ]`) seldom repeats word for word, and keying it
 * would be a cost every time for a hit almost never.
 */

#define SH_AGAIN_SLOTS 32 // a power of two; a loop repeats a few commands

typedef struct sh_again_slot {
    uint64_t as_hash;
    uint64_t as_token; // 0: empty
    box_buf as_key;    // the key's bytes
} sh_again_slot;

struct sh_again {
    sh_again_slot ag_slot[SH_AGAIN_SLOTS];
};

sh_again *
sh_again_new(void)
{
    sh_again *t = box_calloc(1, sizeof(sh_again));
    for (size_t i = 0; t != NULL && i < SH_AGAIN_SLOTS; i++)
        box_buf_init(&t->ag_slot[i].as_key, SH_AGAIN_KEY_MAX);
    return t;
}

void
sh_again_free(sh_again *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < SH_AGAIN_SLOTS; i++)
        box_buf_reset(&t->ag_slot[i].as_key);
    box_free(t);
}

/* Appends a string as its bytes and a NUL (no string holds one, so the
 * end is unambiguous); false when the key is full. One pass, copying as
 * it measures: the strings are a few bytes, and a strlen and a memcpy
 * call each cost more than the copy. */
static bool
key_str(sh_again_key *k, const char *s)
{
    uint8_t *d = k->ak_buf + k->ak_len;
    size_t room = SH_AGAIN_KEY_MAX - k->ak_len;
    for (size_t n = 0; n < room; n++)
        if ((d[n] = (uint8_t)s[n]) == '\0') {
            k->ak_len += n + 1;
            return true;
        }
    return false;
}

bool
sh_again_key_of(const sh_cmd_value *cv, const char *cwd, sh_again_key *k)
{
    for (int i = 0; cv->cv_expanded != NULL && i < cv->cv_argc; i++)
        if (cv->cv_expanded[i])
            return false;
    // The header: the action (a program path makes it shell:spawn), argc.
    // (With no word expanded, no word is redacted: the words are all.)
    uint32_t head[2] = {cv->cv_program_path != NULL, (uint32_t)cv->cv_argc};
    memcpy(k->ak_buf, head, sizeof head);
    k->ak_len = sizeof head;
    if (!key_str(k, cwd) ||
        (cv->cv_program_path != NULL && !key_str(k, cv->cv_program_path)))
        return false;
    for (int i = 0; i < cv->cv_argc; i++)
        if (!key_str(k, cv->cv_argv[i]))
            return false;
    k->ak_hash = box_hash_words(k->ak_buf, k->ak_len);
    return true;
}

static sh_again_slot *
slot_of(sh_again *t, uint64_t hash)
{
    return &t->ag_slot[hash & (SH_AGAIN_SLOTS - 1)];
}

uint64_t
sh_again_find(sh_again *t, const sh_again_key *k)
{
    const sh_again_slot *s = slot_of(t, k->ak_hash);
    if (s->as_token == 0 || s->as_hash != k->ak_hash ||
        s->as_key.b_len != k->ak_len ||
        memcmp(s->as_key.b_data, k->ak_buf, k->ak_len) != 0)
        return 0;
    return s->as_token;
}

void
sh_again_put(sh_again *t, const sh_again_key *k, uint64_t token)
{
    sh_again_slot *s = slot_of(t, k->ak_hash);
    box_buf_truncate(&s->as_key, 0);
    if (box_buf_append(&s->as_key, k->ak_buf, k->ak_len) != BOX_OK) {
        s->as_token = 0; // out of memory: the slot holds nothing
        return;
    }
    s->as_hash = k->ak_hash;
    s->as_token = token;
}

void
sh_again_drop(sh_again *t, const sh_again_key *k)
{
    sh_again_slot *s = slot_of(t, k->ak_hash);
    if (s->as_hash == k->ak_hash)
        s->as_token = 0;
}
