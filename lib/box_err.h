/* SPDX-License-Identifier: Apache-2.0 */
/* The one error enum every box module returns; 0 is success. */
#ifndef BOX_ERR_H
#define BOX_ERR_H

#define BOX_WARN_UNUSED __attribute__((warn_unused_result))

/* ORDER BOX_ERR: keep box_strerror's table in box_err.c in this order. */
typedef enum box_err {
    BOX_OK = 0,
    BOX_ENOMEM,    // allocation failed
    BOX_EINVAL,    // bad argument or bad input
    BOX_ETIMEDOUT, // a peer did not answer within its deadline
    BOX_EPROTO,    // a peer sent something malformed
    BOX_ECLOSED,   // the peer or socket is gone
    BOX_ETOOBIG,   // input or message over its named limit
    BOX_EIO,       // an operating-system call failed (see errno)
    BOX_ENOENT,    // no such file, key or entry
    BOX_EPARSE,    // a text did not parse (details in the caller's message)
    BOX_ECONFIG,   // configuration refused (details in the caller's message)
    BOX_EDENIED,   // a decision refused the operation
    BOX_EBUSY,     // the resource is held by someone else
    BOX_ENOTSUP,   // not supported (yet)
    BOX_ECANCELED, // the caller asked the operation to stop
    BOX_ERR_COUNT
} box_err;

/* Returns x's code from the calling function when x fails: the early
 * return of a function that has nothing of its own to clean up (its
 * allocations are an arena's, or the caller's). */
#define BOX_TRY(x)                                                             \
    do {                                                                       \
        box_err box_try_rv_ = (x);                                             \
        if (box_try_rv_ != BOX_OK)                                             \
            return box_try_rv_;                                                \
    } while (0)

/* Static text for an error code; never NULL. */
const char *box_strerror(box_err e);

#endif
