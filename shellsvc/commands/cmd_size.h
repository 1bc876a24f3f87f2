/* SPDX-License-Identifier: Apache-2.0 */
/* Sizes as the GNU tools print and read them: ls -h, du -h, du -B. */
#ifndef CMD_SIZE_H
#define CMD_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GNU's human_readable with ceiling rounding: "1023", "1.0K", "1.5K",
 * "11K", "1.0M"; si: powers of 1000, "k" for kilo. */
void cmd_size_human(uint64_t v, bool si, char *out, size_t n);

/* A block size as --block-size reads it: [NUMBER][UNIT], the unit K M G
 * T P E Z Y (powers of 1024), KB MB … (of 1000), KiB … (of 1024). False
 * when s is not one, or is 0. */
bool cmd_size_parse_block(const char *s, uint64_t *out);

#endif
