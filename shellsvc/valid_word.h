/* SPDX-License-Identifier: Apache-2.0 */
/* One word of memory the broker writes and every worker can only read: the
 * PDP client's validity word (co_valid) for the workers' per-call caches. */
#ifndef VALID_WORD_H
#define VALID_WORD_H

#include <stdatomic.h>
#include <stdint.h>

#include "box_err.h"

/*
 * A sealed memfd page mapped twice before the zygote is forked: a writable
 * view for the broker's PDP client and a read-only one for workers. The
 * seal (F_SEAL_FUTURE_WRITE) makes the read-only view impossible to make
 * writable again (mprotect fails), and the zygote unmaps its copy of the
 * writable view before it forks a worker, so a worker taken over by a
 * parser bug cannot move the word other calls read.
 */
typedef struct valid_word {
    _Atomic uint64_t *vw_rw; // NULL in the zygote and its workers
    _Atomic uint64_t *vw_ro;
} valid_word;

box_err valid_word_open(valid_word *w) BOX_WARN_UNUSED;
/* Unmaps the writable view (the zygote does it before forking workers). */
void valid_word_drop_rw(valid_word *w);
void valid_word_close(valid_word *w);

#endif
