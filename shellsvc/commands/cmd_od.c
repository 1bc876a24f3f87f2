/* SPDX-License-Identifier: Apache-2.0 */
/* od [OPTION]... [FILE]...: GNU coreutils 9.1. The operands are one
 * input; each output line shows -w bytes once per -t type, fields lined
 * up across the types as GNU lines them up. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_dump.h"
#include "sh_gopt.h"

#define OD_MAX_SPECS 64
#define OD_MAX_WIDTH (1u << 20) // -w: one line held twice
#define OD_OUT_MAX (64u << 20)

/* ORDER OD_KIND: the -t letters (od_letters). */
typedef enum od_kind {
    OD_NAMED,  // a: ASCII names
    OD_CHAR,   // c: characters and escapes
    OD_SIGNED, // d
    OD_FLOAT,  // f
    OD_OCTAL,  // o
    OD_UNSIGN, // u
    OD_HEX,    // x
} od_kind;
static const char od_letters[] = "acdfoux";

typedef struct od_spec {
    od_kind os_kind;
    unsigned os_size; // bytes per field
    int os_width;     // a field's digits, before its separating space
    int os_pad;       // spaces the line adds to line the types up
    bool os_trailer;  // z: the printable bytes after the fields
} od_spec;

typedef struct od_run {
    sh_cmd_run or_run;
    od_spec or_specs[OD_MAX_SPECS];
    int or_nspecs;
    char or_radix;  // d o x n
    bool or_big;    // --endian=big
    bool or_all;    // -v
    size_t or_wide; // bytes per line
    box_buf or_out;
} od_run;

enum {
    OD_O_ENDIAN = SH_GOPT_LONG_ONLY,
    OD_O_TRADITIONAL,
};

static const sh_gopt od_opts[] = {
    {'A', "address-radix", SH_GARG_REQ},
    {'j', "skip-bytes", SH_GARG_REQ},
    {'N', "read-bytes", SH_GARG_REQ},
    {'S', "strings", SH_GARG_OPT},
    {'t', "format", SH_GARG_REQ},
    {'v', "output-duplicates", SH_GARG_NONE},
    {'w', "width", SH_GARG_OPT},
    {OD_O_ENDIAN, "endian", SH_GARG_REQ},
    {OD_O_TRADITIONAL, "traditional", SH_GARG_NONE},
    {'a', NULL, SH_GARG_NONE},
    {'b', NULL, SH_GARG_NONE},
    {'c', NULL, SH_GARG_NONE},
    {'d', NULL, SH_GARG_NONE},
    {'f', NULL, SH_GARG_NONE},
    {'i', NULL, SH_GARG_NONE},
    {'l', NULL, SH_GARG_NONE},
    {'o', NULL, SH_GARG_NONE},
    {'s', NULL, SH_GARG_NONE},
    {'x', NULL, SH_GARG_NONE},
    {0},
};

static const char od_help[] =
    "Usage: od [OPTION]... [FILE]...\n"
    "  or:  od [-abcdfilosx]... [FILE] [[+]OFFSET[.][b]]\n"
    "  or:  od --traditional [OPTION]... [FILE] [[+]OFFSET[.][b] "
    "[+][LABEL][.][b]]\n"
    "\n"
    "Write an unambiguous representation, octal bytes by default,\n"
    "of FILE to standard output.  With more than one FILE argument,\n"
    "concatenate them in the listed order to form the input.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "If first and second call formats both apply, the second format is "
    "assumed\n"
    "if the last operand begins with + or (if there are 2 operands) a digit.\n"
    "An OFFSET operand means -j OFFSET.  LABEL is the pseudo-address\n"
    "at first byte printed, incremented when dump is progressing.\n"
    "For OFFSET and LABEL, a 0x or 0X prefix indicates hexadecimal;\n"
    "suffixes may be . for octal and b for multiply by 512.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options too.\n"
    "  -A, --address-radix=RADIX   output format for file offsets; RADIX is "
    "one\n"
    "                                of [doxn], for Decimal, Octal, Hex or "
    "None\n"
    "      --endian={big|little}   swap input bytes according the specified "
    "order\n"
    "  -j, --skip-bytes=BYTES      skip BYTES input bytes first\n"
    "  -N, --read-bytes=BYTES      limit dump to BYTES input bytes\n"
    "  -S BYTES, --strings[=BYTES]  output strings of at least BYTES graphic "
    "chars;\n"
    "                                3 is implied when BYTES is not specified\n"
    "  -t, --format=TYPE           select output format or formats\n"
    "  -v, --output-duplicates     do not use * to mark line suppression\n"
    "  -w[BYTES], --width[=BYTES]  output BYTES bytes per output line;\n"
    "                                32 is implied when BYTES is not "
    "specified\n"
    "      --traditional           accept arguments in third form above\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n"
    "\n"
    "\n"
    "Traditional format specifications may be intermixed; they accumulate:\n"
    "  -a   same as -t a,  select named characters, ignoring high-order bit\n"
    "  -b   same as -t o1, select octal bytes\n"
    "  -c   same as -t c,  select printable characters or backslash escapes\n"
    "  -d   same as -t u2, select unsigned decimal 2-byte units\n"
    "  -f   same as -t fF, select floats\n"
    "  -i   same as -t dI, select decimal ints\n"
    "  -l   same as -t dL, select decimal longs\n"
    "  -o   same as -t o2, select octal 2-byte units\n"
    "  -s   same as -t d2, select decimal 2-byte units\n"
    "  -x   same as -t x2, select hexadecimal 2-byte units\n"
    "\n"
    "\n"
    "TYPE is made up of one or more of these specifications:\n"
    "  a          named character, ignoring high-order bit\n"
    "  c          printable character or backslash escape\n"
    "  d[SIZE]    signed decimal, SIZE bytes per integer\n"
    "  f[SIZE]    floating point, SIZE bytes per float\n"
    "  o[SIZE]    octal, SIZE bytes per integer\n"
    "  u[SIZE]    unsigned decimal, SIZE bytes per integer\n"
    "  x[SIZE]    hexadecimal, SIZE bytes per integer\n"
    "\n"
    "SIZE is a number.  For TYPE in [doux], SIZE may also be C for\n"
    "sizeof(char), S for sizeof(short), I for sizeof(int) or L for\n"
    "sizeof(long).  If TYPE is f, SIZE may also be F for sizeof(float), D\n"
    "for sizeof(double) or L for sizeof(long double).\n"
    "\n"
    "Adding a z suffix to any type displays printable characters at the end "
    "of\n"
    "each output line.\n"
    "\n"
    "\n"
    "BYTES is hex with 0x or 0X prefix, and may have a multiplier suffix:\n"
    "  b    512\n"
    "  KB   1000\n"
    "  K    1024\n"
    "  MB   1000*1000\n"
    "  M    1024*1024\n"
    "and so on for G, T, P, E, Z, Y.\n"
    "Binary prefixes can be used, too: KiB=K, MiB=M, and so on.\n";

static const sh_gopt_spec od_spec_opts = {
    .gs_cmd = "od",
    .gs_opts = od_opts,
    .gs_fail = 1,
    .gs_help = od_help,
};

/* ---- -t TYPE ---------------------------------------------------------- */

/* The digits a field of kind k and size bytes needs: the widest value. */
static int
od_width(od_kind k, unsigned size)
{
    static const int sgn[] = {0, 4, 6, 0, 11, 0, 0, 0, 20};
    static const int uns[] = {0, 3, 5, 0, 10, 0, 0, 0, 20};
    switch (k) {
    case OD_NAMED:
    case OD_CHAR:
        return 3;
    case OD_SIGNED:
        return sgn[size];
    case OD_UNSIGN:
        return uns[size];
    case OD_OCTAL:
        return (int)(size * 8 + 2) / 3;
    case OD_HEX:
        return (int)size * 2;
    case OD_FLOAT:
        return size == 4 ? 15 : size == 8 ? 24 : 29;
    }
    return 0;
}

/* Adds the types of one -t argument ("x1z", "d2u4", "fD"). 0, or 1 after
 * GNU's message. */
static int
od_add_types(od_run *r, const char *arg)
{
    sh_ctx *cx = r->or_run.cr_cx;
    for (const char *p = arg; *p != '\0';) {
        const char *at = strchr(od_letters, *p);
        if (at == NULL || *p == '\0')
            goto bad_char;
        od_kind k = (od_kind)(at - od_letters);
        p++;
        unsigned size = 1;
        if (k == OD_FLOAT || k == OD_SIGNED || k == OD_OCTAL ||
            k == OD_UNSIGN || k == OD_HEX) {
            size = k == OD_FLOAT ? 8 : 4;
            if (*p >= '0' && *p <= '9') {
                unsigned long v = 0;
                const char *d = p;
                while (*p >= '0' && *p <= '9' && v < 100000)
                    v = v * 10 + (unsigned)(*p++ - '0');
                bool ok = k == OD_FLOAT ? v == 4 || v == 8 || v == 16
                                        : v == 1 || v == 2 || v == 4 || v == 8;
                if (!ok) {
                    char *q = sh_gquote(arg);
                    sh_cmd_err(cx, "od", 1, "invalid type string %s;", q);
                    box_free(q);
                    char line[128];
                    snprintf(line, sizeof line,
                             "this system doesn't provide a %.*s-byte %s "
                             "type\n",
                             (int)(p - d), d,
                             k == OD_FLOAT ? "floating point" : "integral");
                    (void)sh_puts(cx, 2, line);
                    return 1;
                }
                size = (unsigned)v;
            } else if (k == OD_FLOAT && *p != '\0' && strchr("FDL", *p)) {
                size = *p == 'F' ? 4 : *p == 'D' ? 8 : 16;
                p++;
            } else if (k != OD_FLOAT && *p != '\0' && strchr("CSIL", *p)) {
                size = *p == 'C' ? 1 : *p == 'S' ? 2 : *p == 'I' ? 4 : 8;
                p++;
            }
        }
        bool z = *p == 'z';
        if (z)
            p++;
        if (r->or_nspecs == OD_MAX_SPECS) {
            sh_cmd_err(cx, "od", 1, "too many types");
            return 1;
        }
        r->or_specs[r->or_nspecs++] = (od_spec){.os_kind = k,
                                                .os_size = size,
                                                .os_width = od_width(k, size),
                                                .os_trailer = z};
        continue;
    bad_char:;
        char *q = sh_gquote(arg);
        sh_cmd_err(cx, "od", 1, "invalid character '%c' in type string %s", *p,
                   q);
        box_free(q);
        return 1;
    }
    return 0;
}

/* ---- one line --------------------------------------------------------- */

static const char *const od_names[] = {
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs",  "ht",  "nl",
    "vt",  "ff",  "cr",  "so",  "si",  "dle", "dc1", "dc2", "dc3", "dc4", "nak",
    "syn", "etb", "can", "em",  "sub", "esc", "fs",  "gs",  "rs",  "us",  "sp"};

/* The field's bytes as an unsigned value, in the chosen byte order. */
static uintmax_t
od_value(const od_run *r, const unsigned char *p, unsigned size)
{
    uintmax_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v = v << 8 | p[r->or_big ? i : size - 1 - i];
    return v;
}

/* The shortest %g text that reads back as the same value (GNU's
 * ftoastr), starting from the type's DIG digits. */
static void
od_float(const od_run *r, const unsigned char *p, unsigned size, char *buf,
         size_t n)
{
    unsigned char b[16] = {0};
    for (unsigned i = 0; i < size; i++)
        b[i] = p[r->or_big ? size - 1 - i : i];
    if (size == 4) {
        float f;
        memcpy(&f, b, sizeof f);
        int start = f != 0 && f < FLT_MIN && -f < FLT_MIN ? 1 : FLT_DIG;
        for (int prec = start; prec <= FLT_DIG + 3; prec++) {
            snprintf(buf, n, "%.*g", prec, (double)f);
            if (strtof(buf, NULL) == f)
                return;
        }
    } else if (size == 8) {
        double d;
        memcpy(&d, b, sizeof d);
        int start = d != 0 && d < DBL_MIN && -d < DBL_MIN ? 1 : DBL_DIG;
        for (int prec = start; prec <= DBL_DIG + 3; prec++) {
            snprintf(buf, n, "%.*g", prec, d);
            if (strtod(buf, NULL) == d)
                return;
        }
    } else {
        long double l;
        memcpy(&l, b, sizeof l);
        int start = l != 0 && (l < LDBL_MIN && -l < LDBL_MIN) ? 1 : LDBL_DIG;
        for (int prec = start; prec <= LDBL_DIG + 4; prec++) {
            snprintf(buf, n, "%.*Lg", prec, l);
            if (strtold(buf, NULL) == l)
                return;
        }
    }
}

/* One field's text, not padded. */
static void
od_field(const od_run *r, const od_spec *s, const unsigned char *p, char *buf,
         size_t n)
{
    unsigned char c = p[0];
    uintmax_t v;
    switch (s->os_kind) {
    case OD_NAMED:
        c &= 0x7f;
        if (c <= 32)
            snprintf(buf, n, "%s", od_names[c]);
        else if (c == 127)
            snprintf(buf, n, "del");
        else
            snprintf(buf, n, "%c", c);
        return;
    case OD_CHAR: {
        static const char esc[] = "\0\a\b\f\n\r\t\v";
        static const char name[] = "0abfnrtv";
        const char *e = c != 0 ? memchr(esc + 1, c, 7) : esc;
        if (e != NULL)
            snprintf(buf, n, "\\%c", name[e - esc]);
        else if (c >= 32 && c < 127)
            snprintf(buf, n, "%c", c);
        else
            snprintf(buf, n, "%03o", c);
        return;
    }
    case OD_SIGNED:
        v = od_value(r, p, s->os_size);
        if (s->os_size < 8 && (v >> (s->os_size * 8 - 1)) & 1)
            v |= ~(uintmax_t)0 << (s->os_size * 8);
        snprintf(buf, n, "%jd", (intmax_t)v);
        return;
    case OD_UNSIGN:
        snprintf(buf, n, "%ju", od_value(r, p, s->os_size));
        return;
    case OD_OCTAL:
        snprintf(buf, n, "%0*jo", s->os_width, od_value(r, p, s->os_size));
        return;
    case OD_HEX:
        snprintf(buf, n, "%0*jx", s->os_width, od_value(r, p, s->os_size));
        return;
    case OD_FLOAT:
        od_float(r, p, s->os_size, buf, n);
        return;
    }
}

static bool
od_pad(box_buf *b, size_t n)
{
    while (n-- > 0)
        if (box_buf_putc(b, ' ') != BOX_OK)
            return false;
    return true;
}

/*
 * One type's line of the n bytes at p (the line is or_wide bytes, zero
 * after n). Each field is its digits right in a width of os_width + 1,
 * and the line's os_pad spaces are spread over the fields as GNU spreads
 * them: field i of f (counting down) gets pad*(i)/f - pad*(i-1)/f more.
 */
static bool
od_type_line(od_run *r, const od_spec *s, const unsigned char *p, size_t n)
{
    box_buf *b = &r->or_out;
    size_t fields = r->or_wide / s->os_size;
    size_t blank = (r->or_wide - n) / s->os_size;
    size_t pad = (size_t)s->os_pad, left = pad, written = 0;
    char text[128];
    for (size_t i = fields; i > blank; i--) {
        size_t next = pad * (i - 1) / fields;
        size_t w = left - next + (size_t)s->os_width + 1;
        left = next;
        od_field(r, s, p, text, sizeof text);
        p += s->os_size;
        size_t tl = strlen(text);
        if ((tl < w && !od_pad(b, w - tl)) ||
            box_buf_append(b, text, tl) != BOX_OK)
            return false;
        written += tl < w ? w : tl;
    }
    if (s->os_trailer) {
        size_t full = fields * ((size_t)s->os_width + 1) + pad;
        if ((written < full && !od_pad(b, full - written)) ||
            box_buf_puts(b, "  >") != BOX_OK)
            return false;
        const unsigned char *q = p - (fields - blank) * s->os_size;
        for (size_t i = 0; i < n; i++)
            if (box_buf_putc(b, q[i] >= 32 && q[i] < 127 ? (char)q[i] : '.') !=
                BOX_OK)
                return false;
        if (box_buf_putc(b, '<') != BOX_OK)
            return false;
    }
    return box_buf_putc(b, '\n') == BOX_OK;
}

static bool
od_offset(od_run *r, uintmax_t off)
{
    switch (r->or_radix) {
    case 'o':
        return box_buf_printf(&r->or_out, "%07jo", off) == BOX_OK;
    case 'd':
        return box_buf_printf(&r->or_out, "%07ju", off) == BOX_OK;
    case 'x':
        return box_buf_printf(&r->or_out, "%06jx", off) == BOX_OK;
    default:
        return true;
    }
}

/* All the types' lines for one line of input. */
static bool
od_line(od_run *r, uintmax_t off, const unsigned char *p, size_t n)
{
    int indent = r->or_radix == 'o' || r->or_radix == 'd' ? 7
                 : r->or_radix == 'x'                     ? 6
                                                          : 0;
    for (int i = 0; i < r->or_nspecs; i++) {
        bool ok =
            i == 0 ? od_offset(r, off) : od_pad(&r->or_out, (size_t)indent);
        if (!ok || !od_type_line(r, &r->or_specs[i], p, n))
            return false;
    }
    return true;
}

static bool
od_flush(od_run *r)
{
    bool ok = sh_cmd_emit(&r->or_run, r->or_out.b_data, r->or_out.b_len);
    box_buf_truncate(&r->or_out, 0);
    return ok;
}

/* Lines the types up: each type's line is as wide as the widest. */
static void
od_layout(od_run *r)
{
    size_t widest = 0;
    for (int i = 0; i < r->or_nspecs; i++) {
        od_spec *s = &r->or_specs[i];
        size_t w = r->or_wide / s->os_size * ((size_t)s->os_width + 1);
        if (w > widest)
            widest = w;
    }
    for (int i = 0; i < r->or_nspecs; i++) {
        od_spec *s = &r->or_specs[i];
        size_t w = r->or_wide / s->os_size * ((size_t)s->os_width + 1);
        s->os_pad = (int)(widest - w);
    }
}

/* The dump: -j, then lines of or_wide bytes up to -N, a run of equal
 * lines shown as one "*" unless -v, then the end offset. */
static int
od_dump(od_run *r, dump_src *src, uintmax_t skip, uintmax_t limit)
{
    sh_cmd_run *cr = &r->or_run;
    uintmax_t left;
    if (!dump_src_skip(src, skip, &left))
        return cr->cr_status;
    if (left > 0) {
        sh_cmd_err(cr->cr_cx, "od", 1,
                   "cannot skip past end of combined input");
        return 1;
    }
    size_t w = r->or_wide;
    unsigned char *cur = box_alloc(2 * w + 16), *prev = cur + w + 16;
    if (cur == NULL)
        return sh_cmd_err(cr->cr_cx, "od", 1, "out of memory");
    uintmax_t off = skip;
    bool have_prev = false, starred = false;
    for (;;) {
        size_t want = limit < w ? (size_t)limit : w;
        ssize_t n = want > 0 ? dump_src_fill(src, cur, want) : 0;
        if (n < 0)
            goto out;
        if (n == 0)
            break;
        memset(cur + n, 0, w + 16 - (size_t)n);
        limit -= (uintmax_t)n;
        if ((size_t)n == w && have_prev && !r->or_all &&
            memcmp(cur, prev, w) == 0) {
            if (!starred && box_buf_puts(&r->or_out, "*\n") != BOX_OK)
                goto oom;
            starred = true;
        } else {
            starred = false;
            if (!od_line(r, off, cur, (size_t)n))
                goto oom;
        }
        memcpy(prev, cur, w);
        have_prev = true;
        off += (uintmax_t)n;
        if (r->or_out.b_len >= 65536 && !od_flush(r))
            goto out;
        if ((size_t)n < want)
            break;
    }
    if (r->or_radix != 'n' &&
        (!od_offset(r, off) || box_buf_putc(&r->or_out, '\n') != BOX_OK))
        goto oom;
    (void)od_flush(r);
    goto out;
oom:
    cr->cr_status = sh_cmd_err(cr->cr_cx, "od", 1, "out of memory");
out:
    box_free(cur);
    return cr->cr_status;
}

/* ---- options ---------------------------------------------------------- */

/* -j/-N's argument; 0, or 1 after GNU's message. */
static int
od_count_arg(sh_ctx *cx, char opt, const char *arg, uintmax_t *out)
{
    int rc = dump_count(arg, out);
    if (rc == 0)
        return 0;
    sh_cmd_err(cx, "od", 1, "%s-%c argument '%s'%s",
               rc == 1 ? "invalid suffix in " : "invalid ", opt, arg,
               rc == 3 ? ": Value too large for defined data type" : "");
    return 1;
}

/* GNU's old offset operand: [+]OCTAL[b], or 0x HEX (9.1 takes no '.'
 * for decimal, whatever its usage says). True with *off when s is one. */
static bool
od_old_offset(const char *s, uintmax_t *off)
{
    if (*s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    unsigned base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 8;
    if (base == 16)
        s += 2;
    uintmax_t v = 0;
    bool any = false;
    for (; *s; s++) {
        unsigned d = *s >= '0' && *s <= '9'   ? (unsigned)(*s - '0')
                     : *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10)
                     : *s >= 'A' && *s <= 'F' ? (unsigned)(*s - 'A' + 10)
                                              : 99;
        if (d >= base || v > (UINTMAX_MAX - d) / base)
            break;
        v = v * base + d;
        any = true;
    }
    if ((*s == 'b' || *s == 'B') && s[1] == '\0' && v <= UINTMAX_MAX / 512) {
        v *= 512;
        s++;
    }
    if (!any || *s != '\0')
        return false;
    *off = v;
    return true;
}

static const char *const od_endians[] = {"little", "big", NULL};
static const int od_endian_vals[] = {0, 1};

int
sh_cmd_od(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    od_run r = {.or_run = {.cr_cx = cx, .cr_cmd = "od"}, .or_radix = 'o'};
    box_buf_init(&r.or_out, OD_OUT_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &od_spec_opts, argc, argv);
    const char *arg;
    int id, st = 0;
    uintmax_t skip = 0, limit = UINTMAX_MAX, wide = 16;
    bool wide_set = false;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        const char *t = NULL;
        switch (id) {
        case 'A':
            if (strlen(arg) != 1 || strchr("doxn", arg[0]) == NULL) {
                st = sh_cmd_err(cx, "od", 1,
                                "invalid output address radix '%c'; it must "
                                "be one character from [doxn]",
                                arg[0]);
                goto out;
            }
            r.or_radix = arg[0];
            break;
        case 'j':
            if ((st = od_count_arg(cx, 'j', arg, &skip)) != 0)
                goto out;
            break;
        case 'N':
            if ((st = od_count_arg(cx, 'N', arg, &limit)) != 0)
                goto out;
            break;
        case 'S':
            st = sh_cmd_err(cx, "od", 1,
                            "-S (strings) is not supported by "
                            "this od; use strings -n");
            goto out;
        case 'w':
            wide_set = true;
            wide = 32;
            if (arg != NULL && (st = od_count_arg(cx, 'w', arg, &wide)) != 0)
                goto out;
            break;
        case 'v':
            r.or_all = true;
            break;
        case OD_O_ENDIAN: {
            int v = sh_gopt_argmatch(&it, "--endian", arg, od_endians,
                                     od_endian_vals, &st);
            if (v < 0)
                goto out;
            r.or_big = v == 1;
            break;
        }
        case OD_O_TRADITIONAL:
            break;
        case 't':
            t = arg;
            break;
        case 'a':
            t = "a";
            break;
        case 'b':
            t = "o1";
            break;
        case 'c':
            t = "c";
            break;
        case 'd':
            t = "u2";
            break;
        case 'f':
            t = "fF";
            break;
        case 'i':
            t = "dI";
            break;
        case 'l':
            t = "dL";
            break;
        case 'o':
            t = "o2";
            break;
        case 's':
            t = "d2";
            break;
        case 'x':
            t = "x2";
            break;
        default:
            break;
        }
        if (t != NULL && (st = od_add_types(&r, t)) != 0)
            goto out;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (r.or_nspecs == 0)
        (void)od_add_types(&r, "o2");
    // od FILE [+]OFFSET, or od +OFFSET: the old way to say -j.
    int nops = it.gi_nops;
    uintmax_t old;
    if (nops == 2 && od_old_offset(it.gi_ops[1], &old)) {
        skip = old;
        nops = 1;
    } else if (nops == 1 && it.gi_ops[0][0] == '+' &&
               od_old_offset(it.gi_ops[0], &old)) {
        skip = old;
        nops = 0;
    }
    // The line holds a whole number of each type's fields.
    unsigned lcm = 1;
    for (int i = 0; i < r.or_nspecs; i++)
        while (lcm % r.or_specs[i].os_size != 0)
            lcm *= 2;
    if (wide == 0 || wide % lcm != 0 || wide > OD_MAX_WIDTH) {
        if (wide_set)
            sh_cmd_err(cx, "od", 0,
                       "warning: invalid width %ju; using %u "
                       "instead",
                       wide, lcm);
        wide = lcm;
    }
    r.or_wide = (size_t)wide;
    od_layout(&r);
    dump_src src;
    dump_src_init(&src, &r.or_run, nops, it.gi_ops);
    st = od_dump(&r, &src, skip, limit);
    dump_src_close(&src);
out:
    sh_gopt_free(&it);
    box_buf_reset(&r.or_out);
    return st;
}
