/* SPDX-License-Identifier: Apache-2.0 */
/* The alias's internal contract: argv forms, script reading, the broker client.
 */
#ifndef ALIAS_H
#define ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_status.h"

#define ALIAS_IMAGE "strands-box-sock-alias"

/*
 * Every alias-side error is one line `strands-box-sock-alias: <message>` on
 * stderr and exit status BOX_STATUS_FAULT (125, box-spec §2). alias_fail
 * prints it and returns that status so callers can `return alias_fail(...)`.
 */
int alias_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Text for an OS error in the spec's form, `<strerror> (os error <n>)`
 * (the message of the original's io::Error). Static storage. */
const char *alias_os_err(int err);

/* How the alias was started: what the call carries besides the text. */
#define ALIAS_SET_MAX 16 // `set` arguments from the alias's options
typedef struct alias_form {
    const char *af_cmd;    // -c's COMMAND, or NULL
    const char *af_script; // SCRIPT, or NULL
    const char *af_arg0;   // $0, or NULL (the shell's own name)
    char *const *af_args;  // $1...
    int af_nargs;
    const char *af_set[ALIAS_SET_MAX];
    int af_nset;
    bool af_stdin_script; // -s: the script is stdin (with af_cmd: refused)
} alias_form;

/* Reads argv (after the program name) as one of the accepted forms (see
 * alias_shell.c); false for any other. The strings are argv's. */
bool alias_parse_form(int argc, char *const argv[], alias_form *f);

/*
 * The shell route (arg0: $0 when -c names none): checks the argv form (argv
 * after the program name), reads SCRIPT in the caller's own file system view,
 * then sends the command to the broker at sock and relays its answer. Returns
 * the exit status the alias ends with.
 */
int alias_shell_main(const char *arg0, int argc, char *const argv[],
                     const char *sock);

/*
 * One call on a fresh connection to sock: Open{shell}, Call{source}, then
 * stdin (alias_stdin_streams; not for -s, whose stdin was the script) as
 * Input frames and InputEof, or InputEof at once, while Output frames go
 * to fd 1/2 until Exit or Denied. Returns the status to exit with; every
 * failure is reported via alias_fail.
 */
int alias_client_call(const char *sock, const char *source, size_t len,
                      const alias_form *form);

/* True when fd 0 is worth streaming to the call: open, and not a terminal
 * (an agent's harness attached to one means no input), /dev/null or a
 * directory. Otherwise the command's stdin is at its end (box-spec §2). */
bool alias_stdin_streams(void);

/* What an input_wanted frame asked of the alias's stdin (protocol 9). */
typedef struct alias_ask {
    bool aa_asked;   // a frame asked since the caller cleared this
    uint32_t aa_max; // 0: all of it, as it comes
    int aa_delim;    // up to and including this byte; -1 none
} alias_ask;

/*
 * Reads one frame from the broker (read_ms bounds it, whole) and acts on
 * it: Output to fd 1/2, Exit and Denied end the call, input_wanted is
 * kept in *ask (NULL: the call streams nothing, and it is ignored).
 * Returns the status to exit with once the call is over (failures
 * reported), else -1.
 */
int alias_relay_one(int fd, int read_ms, alias_ask *ask);

/*
 * The call's stdin and its answer at once (alias_stream.c): fd 0 goes to
 * the broker as Input frames, then InputEof, only as input_wanted frames
 * ask (a command that never reads leaves it unread), never more than one
 * frame read ahead of what the socket took, while every frame the broker
 * sends is relayed as it comes, so a command that writes before it reads
 * never waits on us. Once the call ends (Exit, Denied) nothing more is
 * sent. Returns the status to exit with.
 */
int alias_stream_relay(int fd, uint32_t program);

#endif
