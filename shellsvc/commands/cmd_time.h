/* SPDX-License-Identifier: Apache-2.0 */
/* Times as the GNU tools read them from the command line: touch -t's
 * POSIX stamp and the date strings of touch -d (and date -d). */
#ifndef CMD_TIME_H
#define CMD_TIME_H

#include <stdbool.h>
#include <time.h>

#include "sh_internal.h"

/* [[CC]YY]MMDDhhmm[.ss] in the call's zone (touch -t); false when it is
 * not one, or names no real time (Feb 30, a DST gap). */
bool cmd_time_posix_stamp(sh_ctx *cx, const char *s, struct timespec *out);

/* A date string as GNU's parse_datetime reads it (date -d's parser), in
 * the call's zone, relative items counted from base; false when it
 * cannot be read. */
bool cmd_time_parse_date(sh_ctx *cx, const char *s, struct timespec base,
                         struct timespec *out);

#endif
