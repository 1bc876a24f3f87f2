/* SPDX-License-Identifier: Apache-2.0 */
/* chmod's mode grammar (octal and symbolic), shared with mkdir -m. */
#include <string.h>
#include <sys/stat.h>

#include "cmd_mode.h"

#define MODE_ALL 07777u
#define MODE_SETID 06000u
#define MODE_X 0111u

/* An octal mode: digits 0-7 only, at most 07777. */
static bool
mode_octal(const char *s, mode_t *out, size_t *ndigits)
{
    mode_t v = 0;
    size_t n = 0;
    for (; s[n] != '\0'; n++) {
        if (s[n] < '0' || s[n] > '7')
            return false;
        v = v * 8 + (mode_t)(s[n] - '0');
        if (v > MODE_ALL)
            return false;
    }
    *out = v;
    *ndigits = n;
    return n > 0;
}

/* The bits class c ('u', 'g', 'o') of m, copied into all three classes. */
static mode_t
mode_copy(mode_t m, char c)
{
    mode_t v = c == 'u' ? (m >> 6) & 7u : c == 'g' ? (m >> 3) & 7u : m & 7u;
    return v | v << 3 | v << 6;
}

/*
 * One action of a clause: op then perms at *pp ("rwxXst" letters, or one
 * of "ugo" to copy). who is the clause's [ugoa] mask, 0 when none was
 * given (then the umask limits what is set). Updates *m.
 */
static void
mode_action(const char **pp, char op, mode_t who, bool dir, mode_t umask,
            mode_t *m)
{
    const char *p = *pp;
    mode_t perms = 0;
    if (*p == 'u' || *p == 'g' || *p == 'o') {
        perms = mode_copy(*m, *p++);
    } else {
        bool cond_x = false;
        for (; *p != '\0' && strchr("rwxXst", *p) != NULL; p++) {
            switch (*p) {
            case 'r':
                perms |= 0444u;
                break;
            case 'w':
                perms |= 0222u;
                break;
            case 'x':
                perms |= MODE_X;
                break;
            case 'X':
                cond_x = true;
                break;
            case 's':
                perms |= MODE_SETID;
                break;
            default:
                perms |= 01000u;
                break; // 't'
            }
        }
        if (cond_x && (dir || (*m & MODE_X) != 0))
            perms |= MODE_X;
    }
    *pp = p;
    mode_t affected = who != 0 ? who : MODE_ALL;
    mode_t value = perms & affected & (who != 0 ? MODE_ALL : ~umask);
    if (op == '+') {
        *m |= value;
    } else if (op == '-') {
        *m &= ~value;
    } else {
        // '=': a directory keeps its set-ID bits unless the clause names s
        mode_t clear = affected;
        if (dir && (perms & MODE_SETID) == 0)
            clear &= ~(mode_t)MODE_SETID;
        *m = (*m & ~clear) | value;
    }
}

bool
cmd_mode_apply(const char *s, mode_t old, bool dir, mode_t umask, mode_t *out)
{
    mode_t m = old & MODE_ALL;
    size_t nd;
    if (s[0] >= '0' && s[0] <= '7') {
        if (!mode_octal(s, &m, &nd))
            return false;
        // A directory keeps its set-ID bits under a short octal mode.
        if (dir && nd < 5)
            m |= old & MODE_SETID;
        *out = m;
        return true;
    }
    const char *p = s;
    for (;;) {
        mode_t who = 0;
        for (; *p != '\0' && strchr("ugoa", *p) != NULL; p++)
            who |= *p == 'u'   ? 04700u
                   : *p == 'g' ? 02070u
                   : *p == 'o' ? 01007u
                               : MODE_ALL;
        if (*p != '+' && *p != '-' && *p != '=')
            return false;
        while (*p == '+' || *p == '-' || *p == '=') {
            char op = *p++;
            mode_action(&p, op, who, dir, umask, &m);
        }
        if (*p == '\0')
            break;
        if (*p++ != ',')
            return false;
    }
    *out = m;
    return true;
}

bool
cmd_mode_absolute(const char *s)
{
    mode_t a, b, c, d;
    return cmd_mode_apply(s, 0, false, 0, &a) &&
           cmd_mode_apply(s, MODE_ALL, false, 0, &b) &&
           cmd_mode_apply(s, 0, true, 0, &c) &&
           cmd_mode_apply(s, 0755, true, 0, &d) && a == b && a == c && a == d;
}

void
cmd_mode_string(mode_t m, char out[10])
{
    static const char rwx[] = "rwx";
    for (int i = 0; i < 9; i++)
        out[i] = (m & (0400u >> i)) ? rwx[i % 3] : '-';
    if (m & 04000u)
        out[2] = (m & 0100u) ? 's' : 'S';
    if (m & 02000u)
        out[5] = (m & 0010u) ? 's' : 'S';
    if (m & 01000u)
        out[8] = (m & 0001u) ? 't' : 'T';
    out[9] = '\0';
}

void
cmd_mode_ls(mode_t m, char out[11])
{
    out[0] = S_ISDIR(m)    ? 'd'
             : S_ISLNK(m)  ? 'l'
             : S_ISCHR(m)  ? 'c'
             : S_ISBLK(m)  ? 'b'
             : S_ISFIFO(m) ? 'p'
             : S_ISSOCK(m) ? 's'
                           : '-';
    cmd_mode_string(m, out + 1);
}
