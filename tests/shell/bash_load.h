/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: the bash differential's cases and known gaps, read from the
 * source tree (BOX_SOURCE_DIR, which ctest sets). */
#ifndef BASH_LOAD_H
#define BASH_LOAD_H

#include "bash_case.h"

/* Every tests/shell/cases/NAME.cases, in name order; fails the test on a
 * file that does not read or parse. */
void bd_load_cases(bd_cases *cs);
/* tests/shell/known-gaps, checked against cs (every name a case; a spec
 * gap says what the box prints, and only a spec gap does). */
void bd_load_gaps(bd_gaps *gs, const bd_cases *cs);

#endif
