/* SPDX-License-Identifier: Apache-2.0 */
/* The admission's table of permits the decider can serve again: a
 * command's words, cwd and program path to the decider's bt_again token
 * (box_again_fn). Private to sh_admit; the session owns one and uses it
 * under ss_lock. */
#ifndef SH_AGAIN_H
#define SH_AGAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sh_exec.h"

typedef struct sh_again sh_again;

#define SH_AGAIN_KEY_MAX 512u // a longer command is not remembered

/* Everything sh_admit builds a request from, as bytes. */
typedef struct sh_again_key {
    uint8_t ak_buf[SH_AGAIN_KEY_MAX];
    size_t ak_len;
    uint64_t ak_hash;
} sh_again_key;

/* NULL when out of memory. */
sh_again *sh_again_new(void);
void sh_again_free(sh_again *t);

/* cv's key with cwd (what sh_admit reports for it) in *k; false when it
 * is too long to keep, or has a word that came from an expansion. */
bool sh_again_key_of(const sh_cmd_value *cv, const char *cwd, sh_again_key *k);
/* The token kept for k, or 0. */
uint64_t sh_again_find(sh_again *t, const sh_again_key *k);
/* Keeps token for k, in place of what its slot held (nothing when out of
 * memory). */
void sh_again_put(sh_again *t, const sh_again_key *k, uint64_t token);
/* Forgets k's token (the decider said it is no longer good). */
void sh_again_drop(sh_again *t, const sh_again_key *k);

#endif
