/* SPDX-License-Identifier: Apache-2.0 */
/* The permit-cap judgement of a Box load (dogwood-spec §6.2 step 7, §6.3). */
#ifndef PDP_CAP_H
#define PDP_CAP_H

#include "box_buf.h"
#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_validate.h"

/*
 * Judges every temporal permit against every other permit. A cap beside
 * a permit of the same requests with no condition refuses: BOX_ECONFIG
 * and msg gets "policy writes a cap as a permit: …" (several joined with
 * "; "). One beside a conditioned permit, or one that may cover other
 * resources, is a warning appended to warn (NULL: none kept). BOX_OK
 * otherwise; BOX_ENOMEM.
 */
box_err pdp_cap_judge(const pdp_ast *ast, pdp_validate_warnings *warn,
                      box_buf *msg) BOX_WARN_UNUSED;

#endif
