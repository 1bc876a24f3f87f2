/* SPDX-License-Identifier: Apache-2.0 */
/* tr's STRINGs (GNU coreutils 9.1, bytes): read into elements, and walked
 * as the runs of bytes they stand for. Private to cmd_tr.c. */
#ifndef CMD_TR_SET_H
#define CMD_TR_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sh_ctx sh_ctx;

// ORDER TRCLASS: tr_class_name in cmd_tr_set.c
typedef enum tr_class {
    TR_ALNUM,
    TR_ALPHA,
    TR_BLANK,
    TR_CNTRL,
    TR_DIGIT,
    TR_GRAPH,
    TR_LOWER,
    TR_PRINT,
    TR_PUNCT,
    TR_SPACE,
    TR_UPPER,
    TR_XDIGIT,
    TR_NCLASSES
} tr_class;

typedef enum tr_kind {
    TR_CHAR,   // c
    TR_RANGE,  // c-c
    TR_CLASS,  // [:name:]
    TR_EQUIV,  // [=c=]: in the C.UTF-8 locale, c alone
    TR_REPEAT, // [c*n], [c*] (te_fill)
} tr_kind;

typedef struct tr_elem {
    tr_kind te_kind;
    unsigned char te_lo; // the byte; a range's first
    unsigned char te_hi; // a range's last
    tr_class te_class;   // TR_CLASS
    bool te_fill;        // TR_REPEAT: [c*] or [c*0], count set by the caller
    uintmax_t te_count;  // TR_REPEAT: copies
} tr_elem;

typedef struct tr_set {
    tr_elem *ts_v; // owned
    size_t ts_n;
} tr_set;

/*
 * Reads STRING s (escapes, ranges, [:class:], [=c=], [c*n]) into set as
 * GNU tr does, printing its warnings (a lone trailing backslash, an octal
 * escape past \377). False after GNU's message for a malformed string;
 * set is then empty. The caller frees set with tr_set_free.
 */
bool tr_set_parse(sh_ctx *cx, const char *s, tr_set *set);
void tr_set_free(tr_set *set);

/* Whether byte c is in class k (ASCII only, as glibc's C.UTF-8). */
bool tr_class_has(tr_class k, unsigned c);

/* How many bytes e stands for (a class: its members). */
uintmax_t tr_elem_len(const tr_elem *e);

/* Whether byte c is in e. */
bool tr_elem_has(const tr_elem *e, unsigned c);

/*
 * A walk over the bytes a set stands for, in runs: tw_c tw_n times. A
 * [c*n] is one run, so a huge count costs nothing. After the set, tw_pad
 * copies of tw_padc (GNU's padding of STRING2).
 */
typedef struct tr_walk {
    const tr_elem *tw_e, *tw_end;
    bool tw_in; // within *tw_e: tw_next is the next byte to try
    unsigned tw_next;
    uintmax_t tw_pad;
    unsigned char tw_padc;
    unsigned char tw_c;  // the current run
    uintmax_t tw_n;      // bytes left of it
    bool tw_class_start; // it is the first byte of a [:class:]
} tr_walk;

void tr_walk_start(tr_walk *w, const tr_set *s, uintmax_t pad,
                   unsigned char padc);
/* Loads the next run; false at the end. */
bool tr_walk_next(tr_walk *w);
/* Leaves the current element: the next tr_walk_next starts the next. */
void tr_walk_skip(tr_walk *w);

#endif
