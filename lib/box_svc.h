/* SPDX-License-Identifier: Apache-2.0 */
/* What every service's main shares: signals, --help/--version, uptime. */
#ifndef BOX_SVC_H
#define BOX_SVC_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

/* Blocks SIGTERM, SIGINT, SIGHUP and SIGPIPE in the calling thread (call it
 * first in main, before any thread exists, so every thread inherits the
 * mask) and fills *set with the three that box_svc_wait_signal returns. */
void box_svc_block_signals(sigset_t *set);

/* Waits for one of the signals in set; returns its number. */
int box_svc_wait_signal(const sigset_t *set);

/* Prints `NAME VERSION` to out. */
void box_svc_print_version(FILE *out, const char *name);

/* Milliseconds on the monotonic clock. */
uint64_t box_svc_now_ms(void);

#endif
