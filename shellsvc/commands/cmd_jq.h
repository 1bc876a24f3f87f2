/* SPDX-License-Identifier: Apache-2.0 */
/* jq's private parts: one run of the box's jq (libjq 1.6) and the files
 * that share it (options and driver, input through the kernel, output,
 * the program's wrapping, the watchdog). */
#ifndef CMD_JQ_H
#define CMD_JQ_H

#include <jq.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "box_buf.h"
#include "sh_internal.h"

/* What jq 1.6's main calls its options (a bit each). */
enum {
    JQ_SLURP = 1u << 0,
    JQ_RAW_OUTPUT = 1u << 1,
    JQ_RAW_NO_LF = 1u << 2,
    JQ_COLOR = 1u << 3,
    JQ_NO_COLOR = 1u << 4,
    JQ_ASCII = 1u << 5,
    JQ_SORTED = 1u << 6,
    JQ_RAW_INPUT = 1u << 7,
    JQ_NULL_INPUT = 1u << 8,
    JQ_FROM_FILE = 1u << 9,
    JQ_EXIT_STATUS = 1u << 10,
    JQ_SEQ = 1u << 11,
    JQ_UNBUFFERED = 1u << 12,
};

/* jq 1.6 reads its input with fgets into a 4096-byte buffer: a chunk is
 * a line, or 4095 bytes of one. Positions in messages count those. */
#define JQ_CHUNK 4096

/*
 * The input: operands read in order through the kernel (sh_input), fed
 * to one parser as jq 1.6's jq_util_input does (one stream across files:
 * a value may start in one file and end in the next, as with jq).
 */
typedef struct jq_in {
    sh_cmd_run *ji_run;     // for messages, the status and the stop check
    char **ji_files;        // operands ("-": stdin); borrowed
    int ji_nfiles, ji_next; // how many, the next to open
    int ji_failures;        // operands that could not be opened or read
    sh_input *ji_cur;       // the operand being read, or NULL
    bool ji_cur_eof;        // ji_cur gave its last byte
    char *ji_name;          // its name as input_filename shows it, or NULL
    unsigned long ji_line;  // lines of it read so far
    jv_parser *ji_parser;   // NULL: raw input (-R)
    jv ji_slurped;          // -s: what was read so far; else invalid
    char *ji_buf;           // the chunk read last (JQ_CHUNK bytes)
    size_t ji_len, ji_pos;  // its length; how much of it -R has used
    char *ji_rd;            // read-ahead from ji_cur (JQ_READ_AHEAD)
    size_t ji_rdlen, ji_rdpos;
    int ji_query;    // a wrapped builtin asked: JQ_Q_* for the next input()
    bool ji_stopped; // the call ended while reading
} jq_in;

enum { JQ_Q_NONE, JQ_Q_FILENAME, JQ_Q_LINE };

box_err jq_in_init(jq_in *in, sh_cmd_run *r, char **files, int nfiles, bool raw,
                   bool slurp, int parser_flags);
void jq_in_free(jq_in *in);
/* The next input value; invalid without a message at the end, invalid
 * with one for a parse error (jq's text, without "parse error: "). */
jv jq_in_next(jq_in *in);
/* "<stdin>:3", "f.json:0" or "<unknown>", as jq's messages place them. */
jv jq_in_position(const jq_in *in);
/* libjq's input callback (input, inputs) over a jq_in. */
jv jq_in_cb(jq_state *jq, void *data);

/*
 * A whole file read through the kernel, for --slurpfile, --rawfile and
 * -f: 0 with *out (box_alloc'd, NUL-terminated) and *len, or 2 after
 * jq's message "jq: <what><path>: <why>" (what e.g. "Bad JSON in
 * --rawfile x "), or 125 when the decision failed.
 */
int jq_read_file(sh_cmd_run *r, const char *what, const char *path, char **out,
                 size_t *len);

/* Output to the shell's fd 1 through a stdio FILE (fopencookie), so
 * jv_dumpf streams. */
typedef struct jq_out {
    sh_cmd_run *jo_run;
    FILE *jo_f;
    bool jo_failed; // a write failed: the run stops (status set)
    int jo_dumpopts;
    unsigned jo_options;
} jq_out;

box_err jq_out_open(jq_out *o, sh_cmd_run *r, unsigned options, int dumpopts);
/* Prints one result as jq 1.6's process() does; false to stop. */
bool jq_out_result(jq_out *o, jv result);
/* Flushes; false when the output failed. */
bool jq_out_flush(jq_out *o);
void jq_out_close(jq_out *o);
/* libjq's debug callback: ["DEBUG:",v] on the shell's stderr, or the
 * wrapped builtins' requests (stderr, input_filename). data: jq_run. */
void jq_debug_cb(void *data, jv v);
/* libjq's error callback: the message on the shell's stderr. */
void jq_error_cb(void *data, jv msg);

/*
 * The program as compiled: the user's text after a prefix that binds
 * $ENV and env to the shell's exported variables (never the service's
 * own environment) and replaces the builtins that would reach past the
 * kernel (modulemeta, stderr, input_filename, input_line_number). The
 * prefix adds no newline, so $__loc__ and messages keep their lines.
 */
/* Refuses import and include (modules are files libjq would open
 * itself): 0, or 3 after the message. */
int jq_prog_check(sh_cmd_run *r, const char *text);
/* The text to compile (box_alloc'd), or NULL when out of memory. */
char *jq_prog_wrap(const char *text);
/* The name the wrapping binds the environment object to. */
#define JQ_ENV_ARG "__jq_box_env"
/* The shell's exported variables as a jq object. */
jv jq_prog_env(sh_ctx *cx);
/* 0 when libjq would load no ~/.jq of the service's own home, else 2
 * after saying why jq is refused. */
int jq_prog_home_check(sh_cmd_run *r);

/* Marker strings the wrapped builtins send through `debug`. */
#define JQ_MARK_STDERR "\x01jq-box:stderr"
#define JQ_MARK_QUERY "\x01jq-box:query"

/*
 * The watchdog: a thread that halts the jq program (jq_halt) when the
 * call must stop (its budget, an abort, a kill) or the process's peak
 * resident size has grown by JQ_HEAP_MAX while jq_next runs; jq_next
 * checks for a halt before each instruction.
 */
#define JQ_HEAP_MAX (1ull << 30)
typedef struct jq_dog {
    pthread_t jd_thread;
    pthread_mutex_t jd_lock;
    pthread_cond_t jd_cv;
    bool jd_started;
    bool jd_done;    // the run is over: the thread ends
    bool jd_in_next; // jq_next is running
    int jd_fired;    // JQ_DOG_*: why the program was halted
    jq_state *jd_jq;
    sh_ctx *jd_cx;
    size_t jd_heap0; // the peak resident size when jq started
} jq_dog;

enum { JQ_DOG_NONE, JQ_DOG_STOP, JQ_DOG_MEMORY };

box_err jq_dog_start(jq_dog *d, sh_ctx *cx, jq_state *jq);
void jq_dog_stop(jq_dog *d);
/* jq_next under the watchdog. */
jv jq_dog_next(jq_dog *d, jq_state *jq);
/* Why the program was halted (JQ_DOG_*). */
int jq_dog_fired(jq_dog *d);

/* One run: what the callbacks share. */
typedef struct jq_run {
    sh_cmd_run jr_run; // first: the helpers get &jr_run
    jq_in jr_in;
    jq_out jr_out;
    int jr_dumpopts;
    bool jr_quiet_errors; // compiling the wrapped text: its messages would
                          // show the prefix (the plain text is compiled
                          // again for them)
} jq_run;

#endif
