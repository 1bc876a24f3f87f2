/* SPDX-License-Identifier: Apache-2.0 */
/* A call's streamed stdin: the alias's input frames into the worker's pipe. */
#ifndef BROKER_STDIN_H
#define BROKER_STDIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"

/*
 * When a protocol 8 alias streams its stdin (Call.stdin_stream), the
 * broker makes one pipe per call: the worker reads its read end as the
 * command's stdin, and the broker writes each input frame's bytes into
 * the write end, which never blocks it. At most one frame waits here for
 * room in the pipe, and while one does the broker reads nothing more from
 * the alias (broker_stdin_waiting), so a command that reads slowly, or
 * not at all, holds the alias back instead of filling the broker's memory.
 * Once the reader is gone (the command ended, or closed its stdin) the
 * bytes still coming are dropped. Owned by the connection thread.
 */
typedef struct broker_stdin {
    int bs_fd;                 // the pipe's write end, -1 when closed
    bool bs_on;                // the call streams stdin
    bool bs_eof;               // input_eof came
    Box__AliasFrame *bs_frame; // an input frame whose bytes wait for room
    size_t bs_off;             // of its data, written already
    uint64_t bs_total;         // bytes taken, against bs_max
    uint64_t bs_max;           // the call's input budget
} broker_stdin;

/* Nothing streamed yet; max is the call's input budget in bytes. */
void broker_stdin_init(broker_stdin *s, uint64_t max);

/* Makes the call's pipe; on BOX_OK *rd is its read end, the caller's (to
 * hand to the worker), and s streams. BOX_EIO (errno) otherwise. */
box_err broker_stdin_open(broker_stdin *s, int *rd) BOX_WARN_UNUSED;

/* True while an input frame waits for room: poll bs_fd for POLLOUT, and
 * read no frame from the alias. */
bool broker_stdin_waiting(const broker_stdin *s);

/*
 * Takes an input frame f (which becomes s's on BOX_OK) and writes what the
 * pipe takes now; the rest waits. Dropped (BOX_OK, freed) when the call
 * does not stream or its reader is gone. BOX_ETOOBIG: the call's input
 * went past its budget; BOX_EPROTO: input after input_eof (f stays the
 * caller's in both).
 */
box_err broker_stdin_take(broker_stdin *s, Box__AliasFrame *f) BOX_WARN_UNUSED;

/* Writes what waits, as far as the pipe takes it now (bs_fd was
 * writable, or its reader is gone). */
void broker_stdin_pump(broker_stdin *s);

/* input_eof: the reader sees end of file once what waits is written.
 * BOX_EPROTO for a second one. */
box_err broker_stdin_eof(broker_stdin *s) BOX_WARN_UNUSED;

/* Closes the pipe and drops what waits (the call is over). */
void broker_stdin_close(broker_stdin *s);

#endif
