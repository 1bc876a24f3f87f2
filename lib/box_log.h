/* SPDX-License-Identifier: Apache-2.0 */
/* Structured log lines on stderr: `ts=… level=… svc=… msg="…"`. */
#ifndef BOX_LOG_H
#define BOX_LOG_H

typedef enum box_log_level {
    BOX_LOG_DEBUG,
    BOX_LOG_INFO,
    BOX_LOG_WARN,
    BOX_LOG_ERROR,
} box_log_level;

/* One line per call, written with a single write(2) so lines from
 * concurrent threads never interleave. svc names the service. Lines below
 * the level named by the environment's BOX_LOG_LEVEL (debug, info, warn,
 * error; default info) are not written. */
void box_log(box_log_level lvl, const char *svc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
