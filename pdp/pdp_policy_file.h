/* SPDX-License-Identifier: Apache-2.0 */
/* Loading a policy file the one way every caller does (server, CLI). */
#ifndef PDP_POLICY_FILE_H
#define PDP_POLICY_FILE_H

#include "box_err.h"
#include "pdp_policy.h"
#include "pdp_validate.h"

/*
 * Reads path (a regular file of at most PDP_POLICY_MAX_BYTES; NULL means
 * "no authored policy", the empty set that denies everything) and runs
 * the whole Box load of §6.2 against the built-in action schema, with the
 * operator's home for the spelling judgement (NULL skips the home checks).
 * Messages follow §6.2: parse errors read `failed to parse policy source:
 * dogwood parse: FILE:LINE:COL: …`; refusals carry their own texts. On
 * BOX_OK the caller owns *out; warnings (if not NULL) get the load's
 * warnings and must be freed with pdp_validate_warnings_free. On failure
 * *err (caller frees) says why.
 */
/* Reads the whole regular file at path into *text (NUL-ended; the caller
 * frees it), at most max bytes. On failure *err (caller frees) says
 * "cannot read <what> <path>: <reason>", "<what> <path> is not a regular
 * file" or "<what> <path> is N bytes; maximum is M". */
box_err pdp_read_text_file(const char *path, const char *what, size_t max,
                           char **text, size_t *len,
                           char **err) BOX_WARN_UNUSED;

/* The §6.2 text of a Box load's failure rv whose own message is inner
 * (taken: freed or returned): parse failures and provider use get their
 * prefixes, refusals stand as they are. NULL when out of memory. */
char *pdp_policy_load_message(box_err rv, char *inner);

box_err pdp_policy_load_file(const char *path, const char *home,
                             pdp_policy_set **out,
                             pdp_validate_warnings *warnings,
                             char **err) BOX_WARN_UNUSED;

#endif
