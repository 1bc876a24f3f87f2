/* SPDX-License-Identifier: Apache-2.0 */
/* wget's parts: its log (GNU Wget 1.21's lines on stderr) and where a
 * document is saved. The transfer is the shell's one (cmd_http.h). */
#ifndef CMD_WGET_H
#define CMD_WGET_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"
#include "cmd_http.h"

typedef struct sh_ctx sh_ctx;
typedef struct sh_stream sh_stream;

/* How much wget says: -q, -nv, the default (-v). */
typedef enum wget_verb {
    WGET_QUIET,
    WGET_TERSE,
    WGET_VERBOSE,
} wget_verb;

/* One wget call: its options as they bear on the log and the saving. */
typedef struct wget_run {
    sh_ctx *wr_cx;
    wget_verb wr_verb;
    bool wr_server_response; // -S
    bool wr_spider;          // --spider: nothing is saved
    bool wr_no_clobber;      // -nc
    const char *wr_output;   // -O FILE ("-": stdout), or NULL
    const char *wr_prefix;   // -P DIR, or NULL
    sh_stream *wr_out;       // -O FILE's stream once opened (all URLs')
    long wr_t0;              // http_now_ms() when this URL began
    unsigned wr_saved;       // documents saved, for the summary
    size_t wr_bytes;         // and their bytes
} wget_run;

/* ---- where a document goes (cmd_wget_save.c) ---- */

/*
 * The file name GNU Wget gives url's document: the last segment of its
 * path, %XX decoded (a '/', NUL or control byte stays encoded), with
 * "?query" when it has one; "index.html" for an empty segment. *out is
 * the caller's. BOX_EINVAL when url does not parse.
 */
box_err wget_local_name(const char *url, char **out) BOX_WARN_UNUSED;

/* url with "http://" in front when it names no scheme, as Wget reads
 * "example.com/x". The caller frees it; NULL when out of memory. */
char *wget_url(const char *url);

/*
 * Saves res's body for url (the first URL asked) as the options say: to
 * -O's stream (opened, truncated, on the first document), stdout for
 * "-O -", else a new file named by wget_local_name under -P, with ".1",
 * ".2" … when the name is taken (-nc: not saved). Logs "Saving to:" and
 * the "saved" lines. Returns wget's status: 0, 3 (the file could not be
 * written; the message said why), or 125.
 */
int wget_save(wget_run *wr, const char *url, const http_result *res);

/* -nc: true (after the log line) when url's file is there already. */
bool wget_clobber_skip(wget_run *wr, const char *url);

/* ---- the log (cmd_wget_log.c) ---- */

/* The transfer's hops as Wget logs them (http_req.hr_on_hop; arg the
 * wget_run). */
void wget_log_hop(void *arg, const http_hop *hop);

/* "Length: 6 [text/plain]" and what follows the answer of a 2xx. */
void wget_log_length(wget_run *wr, const http_result *res);

/* "Saving to: ‘NAME’" (NULL: stdout) and, once written, the progress and
 * "saved" lines for len bytes. */
void wget_log_saving(wget_run *wr, const char *name);
void wget_log_saved(wget_run *wr, const char *name, const http_result *res);

/* The printf'd line on stderr, unless wr's verbosity is under least. */
void wget_logf(wget_run *wr, wget_verb least, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "2025-01-31 12:00:00": the local time now. */
void wget_stamp(char out[32]);

/* Content-Length from a head, or -1. */
long long wget_content_length(const char *head, size_t len);

/* GNU's "(68K)" size text of n bytes for "Length:" (n >= 1024). */
#define WGET_SIZE_TEXT 24 // any long long, or a scaled size and its unit
void wget_size_text(long long n, char out[WGET_SIZE_TEXT]);

#endif
