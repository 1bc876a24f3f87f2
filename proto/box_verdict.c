/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict's one wire spelling, both ways. */
#include "box_verdict.h"

Box__Verdict
box_verdict_to_wire(box_verdict v)
{
    switch (v) {
    case BOX_VERDICT_PERMIT:
        return BOX__VERDICT__VERDICT_PERMIT;
    case BOX_VERDICT_FAULT:
        return BOX__VERDICT__VERDICT_FAULT;
    case BOX_VERDICT_DENY:
        break;
    }
    return BOX__VERDICT__VERDICT_DENY; // a value outside the enum refuses
}

box_verdict
box_verdict_from_wire(Box__Verdict w)
{
    switch ((int)w) {
    case BOX__VERDICT__VERDICT_PERMIT:
        return BOX_VERDICT_PERMIT;
    case BOX__VERDICT__VERDICT_FAULT:
        return BOX_VERDICT_FAULT;
    default:
        return BOX_VERDICT_DENY; // unset, VERDICT_DENY, or unknown
    }
}
