/* SPDX-License-Identifier: Apache-2.0 */
/* The alias's internal contract: argv forms, script reading, the broker client.
 */
#ifndef ALIAS_H
#define ALIAS_H

#include <stdbool.h>
#include <stddef.h>

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
} alias_form;

/* Reads argv (after the program name) as one of the accepted forms (see
 * alias_shell.c); false for any other. The strings are argv's. */
bool alias_parse_form(int argc, char *const argv[], alias_form *f);

/*
 * The shell route (arg0: $0 when -c names none): checks the argv form (argv after the program name),
 * reads SCRIPT in the caller's own file system view, then sends the
 * command to the broker at sock and relays its answer. Returns the exit
 * status the alias ends with.
 */
int alias_shell_main(const char *arg0, int argc, char *const argv[],
                     const char *sock);

/*
 * One call on a fresh connection to sock: Open{shell}, Call{source},
 * InputEof, then Output frames to fd 1/2 until Exit or Denied. Returns the
 * status to exit with; every failure is reported via alias_fail.
 */
int alias_client_call(const char *sock, const char *source, size_t len,
                      const alias_form *form);

#endif
