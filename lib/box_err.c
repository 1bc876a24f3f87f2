/* SPDX-License-Identifier: Apache-2.0 */
/* Texts for the box error enum. */
#include "box_err.h"

#include <stddef.h>

/* ORDER BOX_ERR */
static const char *const box_err_text[BOX_ERR_COUNT] = {
    [BOX_OK] = "success",
    [BOX_ENOMEM] = "out of memory",
    [BOX_EINVAL] = "invalid argument",
    [BOX_ETIMEDOUT] = "timed out",
    [BOX_EPROTO] = "protocol error",
    [BOX_ECLOSED] = "connection closed",
    [BOX_ETOOBIG] = "too large",
    [BOX_EIO] = "input/output error",
    [BOX_ENOENT] = "not found",
    [BOX_EPARSE] = "parse error",
    [BOX_ECONFIG] = "configuration refused",
    [BOX_EDENIED] = "denied",
    [BOX_EBUSY] = "busy",
    [BOX_ENOTSUP] = "not supported",
    [BOX_ECANCELED] = "canceled",
};

const char *
box_strerror(box_err e)
{
    if ((int)e < 0 || e >= BOX_ERR_COUNT || box_err_text[e] == NULL)
        return "unknown error";
    return box_err_text[e];
}
