/* SPDX-License-Identifier: Apache-2.0 */
/* Fixed probes the generator mixes into its random policies. */
#ifndef CD_PROBES_H
#define CD_PROBES_H

#include <stddef.h>

/* Conditions at the edges of Cedar's grammar and operators (one `when`
 * or `unless` body each; some must not parse). */
extern const char *const cd_probes[];
extern const size_t cd_nprobes;
/* Annotation lines (with their newline), some of which must not parse. */
extern const char *const cd_probe_annots[];
extern const size_t cd_nprobe_annots;

#endif
