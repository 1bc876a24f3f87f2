/* SPDX-License-Identifier: Apache-2.0 */
/* Human-readable sizes and block sizes as GNU's tools use them. */
#include "cmd_size.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void
cmd_size_human(uint64_t v, bool si, char *out, size_t n)
{
    static const char units[] = "KMGTPEZY";
    unsigned base = si ? 1000 : 1024;
    if (v < base) {
        snprintf(out, n, "%" PRIu64, v);
        return;
    }
    int e = 0;
    unsigned __int128 den = 1;
    while (e < 8 && v / den >= base) {
        den *= base;
        e++;
    }
    for (;;) {
        unsigned __int128 tenths = ((unsigned __int128)v * 10 + den - 1) / den;
        char u = si && e == 1 ? 'k' : units[e - 1];
        if (tenths < 100) {
            snprintf(out, n, "%u.%u%c", (unsigned)(tenths / 10),
                     (unsigned)(tenths % 10), u);
            return;
        }
        unsigned __int128 whole = (v + den - 1) / den;
        if (whole < base || e == 8) {
            snprintf(out, n, "%" PRIu64 "%c", (uint64_t)whole, u);
            return;
        }
        den *= base; // rounding up reached the next unit: "1.0M"
        e++;
    }
}

bool
cmd_size_parse_block(const char *s, uint64_t *out)
{
    static const char units[] = "KMGTPEZY";
    uint64_t num = 1;
    const char *p = s;
    if (*p >= '0' && *p <= '9') {
        num = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (num > (UINT64_MAX - 9) / 10)
                return false;
            num = num * 10 + (uint64_t)(*p - '0');
        }
    }
    uint64_t mul = 1;
    if (*p != '\0') {
        const char *u = strchr(units, *p == 'k' ? 'K' : *p);
        if (u == NULL || *u == '\0')
            return false;
        unsigned base = 1024;
        if (strcmp(p + 1, "B") == 0)
            base = 1000;
        else if (p[1] != '\0' && strcmp(p + 1, "iB") != 0)
            return false;
        for (long e = u - units + 1; e > 0; e--) {
            if (mul > UINT64_MAX / base)
                return false;
            mul *= base;
        }
    }
    if (num == 0 || (mul != 0 && num > UINT64_MAX / mul))
        return false;
    *out = num * mul;
    return true;
}
