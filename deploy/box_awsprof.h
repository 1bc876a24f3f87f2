/* SPDX-License-Identifier: Apache-2.0 */
/* One profile of the AWS shared credentials file: an aws://PROFILE secret. */
#ifndef BOX_AWSPROF_H
#define BOX_AWSPROF_H

#include <stddef.h>

#include "box_err.h"

/* The credential a profile holds. Owned; box_awsprof_free wipes it. */
typedef struct box_awsprof {
    char *ap_key_id; // aws_access_key_id
    char *ap_secret; // aws_secret_access_key
    char *ap_token;  // aws_session_token, or NULL
    char *ap_file;   // the file it came from
} box_awsprof;

/*
 * Reads profile from the shared credentials file: creds_file (the value of
 * $AWS_SHARED_CREDENTIALS_FILE, NULL or "" when unset; a leading "~/" is
 * home's) or else home/.aws/credentials. The caller reads the environment;
 * this reads only the file.
 *
 * The file is INI as the AWS CLI reads it: `[NAME]` sections (the name
 * trimmed; a `#` or `;` comment may follow the `]`), `key = value` or
 * `key: value` lines (keys in any case, whitespace around the delimiter
 * and the value dropped), whole-line `#` and `;` comments, blank lines,
 * CRLF or LF, a UTF-8 byte-order mark. An indented line continues the
 * value above it: refused when that value is one read here (a credential
 * never spans lines), ignored otherwise. Reads aws_access_key_id and
 * aws_secret_access_key (both required, non-empty) and aws_session_token
 * (optional); every other key is ignored. Refused, so that no guess is
 * made about which value the AWS CLI would use: the profile defined twice,
 * a key set twice in it, a line that is none of the above anywhere in the
 * file, a value with a control character.
 *
 * BOX_OK with *out filled (free with box_awsprof_free). Otherwise *out is
 * empty and *err the message (the caller's; NULL only when even that could
 * not be allocated), each starting "aws://PROFILE: ", e.g.
 *   aws://dev: no profile "dev" in /home/u/.aws/credentials
 *   aws://dev: profile "dev" in FILE has no aws_access_key_id
 *   aws://dev: cannot read FILE: No such file or directory
 *   aws://dev: FILE defines the profile "dev" twice (lines 3 and 9)
 * BOX_ENOENT for a missing profile or file, BOX_EIO for another read
 * failure, BOX_ECONFIG for the rest, BOX_ENOMEM.
 */
box_err box_awsprof_load(const char *profile, const char *home,
                         const char *creds_file, box_awsprof *out,
                         char **err) BOX_WARN_UNUSED;

/* Wipes and frees what box_awsprof_load put in p, leaving it empty. */
void box_awsprof_free(box_awsprof *p);

/* The credentials file's size limit (the CLI's files are a few KiB). */
#define BOX_AWSPROF_FILE_MAX (1024 * 1024)

#endif
