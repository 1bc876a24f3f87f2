/* SPDX-License-Identifier: Apache-2.0 */
/* stat [-L] [-t] [-c FORMAT | --printf FORMAT] FILE...: GNU coreutils
 * 9.1's file status through the kernel (fs:read read_metadata; %N of a
 * link reads it, fs:read read_link). File systems (-f) are not shown. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_files.h"
#include "cmd_mode.h"
#include "sh_gopt.h"
#include "sh_ids.h"

enum { STAT_PRINTF = SH_GOPT_LONG_ONLY, STAT_CACHED };

static const sh_gopt stat_opts[] = {
    {'L', "dereference", SH_GARG_NONE},
    {'f', "file-system", SH_GARG_NONE},
    {'c', "format", SH_GARG_REQ},
    {STAT_PRINTF, "printf", SH_GARG_REQ},
    {'t', "terse", SH_GARG_NONE},
    {STAT_CACHED, "cached", SH_GARG_REQ},
    {0},
};

static const sh_gopt_spec stat_spec = {
    .gs_cmd = "stat",
    .gs_opts = stat_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: stat [OPTION]... FILE...\n"
        "Display file or file system status.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short option"
        "s too.\n"
        "  -L, --dereference     follow links\n"
        "  -f, --file-system     display file system status instead of fil"
        "e status\n"
        "      --cached=MODE     specify how to use cached attributes;\n"
        "                          useful on remote file systems. See MODE "
        "below\n"
        "  -c  --format=FORMAT   use the specified FORMAT instead of the def"
        "ault;\n"
        "                          output a newline after each use of FORMA"
        "T\n"
        "      --printf=FORMAT   like --format, but interpret backslash esc"
        "apes,\n"
        "                          and do not output a mandatory trailing n"
        "ewline;\n"
        "                          if you want a newline, include \\n in FO"
        "RMAT\n"
        "  -t, --terse           print the information in terse form\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* The directive that ends a stat: an invalid one stops the command. */
typedef struct stat_run {
    sh_ctx *sr_cx;
    bool sr_deref;
    bool sr_literal_names; // the default format shows %N unquoted
    box_buf sr_out;
} stat_run;

/* One file's facts as the directives read them. */
typedef struct stat_file {
    const char *sf_name;
    const sh_kernel_stat *sf_st;
} stat_file;

static const char *
stat_type(mode_t m, uint64_t size)
{
    switch (m & S_IFMT) {
    case S_IFREG: return size == 0 ? "regular empty file" : "regular file";
    case S_IFDIR: return "directory";
    case S_IFLNK: return "symbolic link";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    case S_IFCHR: return "character special file";
    case S_IFBLK: return "block special file";
    default: return "weird file";
    }
}

/* "2026-12-04 20:34:32.261646391 +0000" in the local zone. */
static void
stat_human_time(int64_t secs, long ns, char *out, size_t n)
{
    time_t t = (time_t)secs;
    struct tm tm;
    char a[40], z[16];
    if (localtime_r(&t, &tm) == NULL) {
        snprintf(out, n, "%" PRId64, secs);
        return;
    }
    strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S", &tm);
    strftime(z, sizeof z, "%z", &tm);
    snprintf(out, n, "%s.%09ld %s", a, ns, z);
}

/* The printf spec of one directive: flags, width and precision as they
 * were written ("%-10" ...), the conversion appended by the caller. */
typedef struct stat_spec_text {
    char st_flags[8];
    int st_width;     // -1: none
    int st_prec;      // -1: none; a lone '.' is 0 for strings
    bool st_has_prec; // a '.' was written
} stat_spec_text;

static box_err
stat_put_str(box_buf *b, const stat_spec_text *sp, const char *s)
{
    char fmt[32];
    snprintf(fmt, sizeof fmt, "%%%s%s*.*s",
             strchr(sp->st_flags, '-') ? "-" : "", "");
    int prec = sp->st_has_prec ? (sp->st_prec < 0 ? 0 : sp->st_prec)
                               : (int)strlen(s);
    return box_buf_printf(b, fmt, sp->st_width < 0 ? 0 : sp->st_width, prec,
                          s);
}

/* An unsigned number in base conv ('u', 'o', 'x') with the written
 * flags; '#' only means something for octal and hex. */
static box_err
stat_put_uint(box_buf *b, const stat_spec_text *sp, uintmax_t v, char conv)
{
    char fmt[48];
    snprintf(fmt, sizeof fmt, "%%%s%s%s%s%c", sp->st_flags, "*",
             sp->st_has_prec ? ".*" : "", "j", conv);
    int w = sp->st_width < 0 ? 0 : sp->st_width;
    int p = sp->st_prec < 0 ? 0 : sp->st_prec;
    return sp->st_has_prec ? box_buf_printf(b, fmt, w, p, v)
                           : box_buf_printf(b, fmt, w, v);
}

/* A signed number (times in seconds). */
static box_err
stat_put_int(box_buf *b, const stat_spec_text *sp, intmax_t v)
{
    char fmt[48];
    snprintf(fmt, sizeof fmt, "%%%s*jd", sp->st_flags);
    return box_buf_printf(b, fmt, sp->st_width < 0 ? 0 : sp->st_width, v);
}

/* %X %Y %Z with a precision: seconds, '.', that many digits of the
 * nanoseconds (a lone '.' is all nine), the whole padded to the width. */
static box_err
stat_put_epoch(box_buf *b, const stat_spec_text *sp, int64_t secs, long ns)
{
    if (!sp->st_has_prec)
        return stat_put_int(b, sp, secs);
    int prec = sp->st_prec < 0 ? 9 : sp->st_prec;
    char frac[16], txt[64];
    snprintf(frac, sizeof frac, "%09ld", ns);
    if (prec > 9) // GNU pads with zeros past the nanoseconds
        prec = 9;
    frac[prec] = '\0';
    snprintf(txt, sizeof txt, "%" PRId64 "%s%s", secs, prec ? "." : "",
             frac);
    stat_spec_text s2 = *sp;
    s2.st_has_prec = false;
    return stat_put_str(b, &s2, txt);
}

/* %N: the name, and " -> target" for a link (the link read through the
 * kernel). Quoted as GNU quotes it under -c, as it is in the default
 * format. */
static box_err
stat_put_quoted_name(stat_run *sr, const stat_spec_text *sp,
                     const stat_file *f)
{
    sh_ctx *cx = sr->sr_cx;
    char *q = sr->sr_literal_names ? box_strdup(f->sf_name)
                                   : sh_gquoteaf(f->sf_name);
    char *target = NULL, *qt = NULL, *all = NULL;
    box_err rv = BOX_ENOMEM;
    if (q == NULL)
        goto out;
    if (S_ISLNK(f->sf_st->ks_mode)) {
        sh_kernel_result r = {0};
        if (sh_kernel_readlink(sh_kern(cx), cx->cx_st->st_cwd, f->sf_name,
                               &target, &r) == 0) {
            qt = sr->sr_literal_names ? box_strdup(target)
                                      : sh_gquoteaf(target);
            if (qt == NULL)
                goto out;
        }
        sh_kernel_result_clear(&r);
    }
    all = qt != NULL ? box_asprintf("%s -> %s", q, qt) : box_strdup(q);
    if (all != NULL)
        rv = stat_put_str(&sr->sr_out, sp, all);
out:
    box_free(q);
    box_free(target);
    box_free(qt);
    box_free(all);
    return rv;
}

/* A name, or the id's number when it has none. */
static box_err
stat_put_id_name(box_buf *b, const stat_spec_text *sp, const char *name,
                 uint32_t id)
{
    char num[16];
    snprintf(num, sizeof num, "%" PRIu32, id);
    return stat_put_str(b, sp, name != NULL ? name : num);
}

/* One directive with its modifier ('H', 'L' or 0) and conversion c; a
 * letter stat does not know prints "?". Returns 1 for a modifier it
 * cannot take, -1 when out of memory. */
static int
stat_directive(stat_run *sr, const stat_spec_text *sp, char mod, char c,
               const stat_file *f)
{
    const sh_kernel_stat *st = f->sf_st;
    box_buf *b = &sr->sr_out;
    char t[112];
    if (mod != 0) {
        uint64_t dev = c == 'd' ? st->ks_dev : st->ks_rdev;
        if (c != 'd' && c != 'r')
            return 1;
        return stat_put_uint(b, sp, mod == 'H' ? major(dev) : minor(dev),
                             'u') != BOX_OK;
    }
    box_err rv;
    switch (c) {
    case 'a': rv = stat_put_uint(b, sp, st->ks_mode & 07777, 'o'); break;
    case 'A': {
        char m[11];
        cmd_mode_ls(st->ks_mode, m);
        rv = stat_put_str(b, sp, m);
        break;
    }
    case 'b': rv = stat_put_uint(b, sp, st->ks_blocks, 'u'); break;
    case 'B': rv = stat_put_uint(b, sp, 512, 'u'); break;
    case 'C': rv = stat_put_str(b, sp, "?"); break;
    case 'd': rv = stat_put_uint(b, sp, st->ks_dev, 'u'); break;
    case 'D': rv = stat_put_uint(b, sp, st->ks_dev, 'x'); break;
    case 'f': rv = stat_put_uint(b, sp, st->ks_mode, 'x'); break;
    case 'F': rv = stat_put_str(b, sp, stat_type(st->ks_mode, st->ks_size));
        break;
    case 'g': rv = stat_put_uint(b, sp, st->ks_gid, 'u'); break;
    case 'G':
        rv = stat_put_id_name(b, sp, sh_ids_group(st->ks_gid), st->ks_gid);
        break;
    case 'h': rv = stat_put_uint(b, sp, st->ks_nlink, 'u'); break;
    case 'i': rv = stat_put_uint(b, sp, st->ks_ino, 'u'); break;
    case 'm': rv = stat_put_str(b, sp, "?"); break; // mounts are not shown
    case 'n': rv = stat_put_str(b, sp, f->sf_name); break;
    case 'N': rv = stat_put_quoted_name(sr, sp, f); break;
    case 'o': rv = stat_put_uint(b, sp, st->ks_blksize, 'u'); break;
    case 's': rv = stat_put_int(b, sp, (intmax_t)st->ks_size); break;
    case 'r': rv = stat_put_uint(b, sp, st->ks_rdev, 'u'); break;
    case 'R': rv = stat_put_uint(b, sp, st->ks_rdev, 'x'); break;
    case 't': rv = stat_put_uint(b, sp, major(st->ks_rdev), 'x'); break;
    case 'T': rv = stat_put_uint(b, sp, minor(st->ks_rdev), 'x'); break;
    case 'u': rv = stat_put_uint(b, sp, st->ks_uid, 'u'); break;
    case 'U':
        rv = stat_put_id_name(b, sp, sh_ids_user(st->ks_uid), st->ks_uid);
        break;
    // The birth time is not known here: GNU's words for that.
    case 'w': rv = stat_put_str(b, sp, "-"); break;
    case 'W': rv = stat_put_epoch(b, sp, 0, 0); break;
    case 'x':
        stat_human_time(st->ks_atime, st->ks_atime_ns, t, sizeof t);
        rv = stat_put_str(b, sp, t);
        break;
    case 'X': rv = stat_put_epoch(b, sp, st->ks_atime, st->ks_atime_ns); break;
    case 'y':
        stat_human_time(st->ks_mtime, st->ks_mtime_ns, t, sizeof t);
        rv = stat_put_str(b, sp, t);
        break;
    case 'Y': rv = stat_put_epoch(b, sp, st->ks_mtime, st->ks_mtime_ns); break;
    case 'z':
        stat_human_time(st->ks_ctime, st->ks_ctime_ns, t, sizeof t);
        rv = stat_put_str(b, sp, t);
        break;
    case 'Z': rv = stat_put_epoch(b, sp, st->ks_ctime, st->ks_ctime_ns); break;
    default: rv = stat_put_str(b, sp, "?"); break; // GNU's for the unknown
    }
    return rv != BOX_OK ? -1 : 0;
}

/* --printf's backslash escapes; *p is past the backslash. */
static box_err
stat_escape(stat_run *sr, const char **pp)
{
    const char *p = *pp;
    static const char from[] = "abefnrtv\"\\", to[] = "\a\b\x1b\f\n\r\t\v\"\\";
    const char *hit = *p != '\0' ? strchr(from, *p) : NULL;
    int ch;
    if (hit != NULL) {
        ch = to[hit - from];
        p++;
    } else if (*p >= '0' && *p <= '7') {
        ch = 0;
        for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++)
            ch = ch * 8 + (*p++ - '0');
    } else if (*p == 'x' && strchr("0123456789abcdefABCDEF", p[1]) &&
               p[1] != '\0') {
        p++;
        ch = 0;
        for (int i = 0; i < 2 && *p != '\0' &&
                        strchr("0123456789abcdefABCDEF", *p);
             i++, p++)
            ch = ch * 16 + (*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
    } else if (*p == '\0') {
        sh_errf(sr->sr_cx, "stat: warning: backslash at end of format");
        ch = '\\';
    } else {
        sh_errf(sr->sr_cx, "stat: warning: unrecognized escape '\\%c'", *p);
        ch = *p++;
    }
    *pp = p;
    return box_buf_putc(&sr->sr_out, (char)ch);
}

/*
 * One file through the format into sr_out. Returns 0; 1 for an invalid
 * directive (after GNU's message: the command stops there); -1 when out
 * of memory.
 */
static int
stat_format(stat_run *sr, const char *fmt, bool escapes, const stat_file *f)
{
    for (const char *p = fmt; *p != '\0';) {
        if (escapes && *p == '\\') {
            p++;
            if (stat_escape(sr, &p) != BOX_OK)
                return -1;
            continue;
        }
        if (*p != '%' || p[1] == '\0') {
            if (box_buf_putc(&sr->sr_out, *p++) != BOX_OK)
                return -1;
            continue;
        }
        const char *start = p++;
        stat_spec_text sp = {.st_width = -1, .st_prec = -1};
        size_t nf = 0;
        while (*p != '\0' && strchr("-#+ 0'", *p) && nf < 6)
            sp.st_flags[nf++] = *p++;
        while (*p != '\0' && strchr("-#+ 0'", *p))
            p++;
        if (*p >= '0' && *p <= '9')
            for (sp.st_width = 0; *p >= '0' && *p <= '9'; p++)
                sp.st_width = sp.st_width * 10 + (*p - '0') % 100000;
        if (*p == '.') {
            sp.st_has_prec = true;
            p++;
            if (*p >= '0' && *p <= '9')
                for (sp.st_prec = 0; *p >= '0' && *p <= '9'; p++)
                    sp.st_prec = sp.st_prec * 10 + (*p - '0') % 100000;
        }
        char mod = 0;
        if ((*p == 'H' || *p == 'L') && (p[1] == 'd' || p[1] == 'r'))
            mod = *p++;
        if (*p == '%' && p == start + 1) {
            p++;
            if (box_buf_putc(&sr->sr_out, '%') != BOX_OK)
                return -1;
            continue;
        }
        int rc = *p == '\0' || *p == '%' ? 1
                                          : stat_directive(sr, &sp, mod, *p, f);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            size_t len = (size_t)(p - start) + (*p != '\0');
            char *d = box_strndup(start, len), *q = d ? sh_gquote(d) : NULL;
            sh_errf(sr->sr_cx, "stat: %s: invalid directive", q ? q : start);
            box_free(d);
            box_free(q);
            return 1;
        }
        p++;
    }
    return 0;
}

/* GNU's default format for st, built for this file's type. */
static const char *
stat_default_format(const sh_kernel_stat *st)
{
    bool dev = S_ISCHR(st->ks_mode) || S_ISBLK(st->ks_mode);
    return dev ? "  File: %N\n"
                 "  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n"
                 "Device: %Hd,%Ld\tInode: %-11i Links: %-5h Device type: "
                 "%Hr,%Lr\n"
                 "Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n"
                 "Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"
               : "  File: %N\n"
                 "  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n"
                 "Device: %Hd,%Ld\tInode: %-11i Links: %h\n"
                 "Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n"
                 "Access: %x\nModify: %y\nChange: %z\n Birth: %w\n";
}

/* Flushes sr_out to standard output; false when the output is gone. */
static bool
stat_flush(stat_run *sr)
{
    bool ok = sr->sr_out.b_len == 0 ||
              sh_write(sr->sr_cx, 1, sr->sr_out.b_data, sr->sr_out.b_len) ==
                  SH_IO_OK;
    box_buf_truncate(&sr->sr_out, 0);
    return ok;
}

int
sh_cmd_stat(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    stat_run sr = {.sr_cx = cx};
    const char *fmt = NULL, *arg;
    bool escapes = false, terse = false, newline = true, fs = false;
    int status = 0, id;
    sh_gopt_iter it;
    box_buf_init(&sr.sr_out, SIZE_MAX);
    sh_gopt_init(&it, cx, &stat_spec, argc, argv);
    while ((id = sh_gopt_next(&it, &arg, &status)) >= 0) {
        switch (id) {
        case 'L': sr.sr_deref = true; break;
        case 'f': fs = true; break;
        case 't': terse = true; break;
        case 'c': fmt = arg; escapes = false; newline = true; break;
        case STAT_PRINTF: fmt = arg; escapes = true; newline = false; break;
        default: break; // --cached: there is no cache to bypass
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        status = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    if (fs) {
        status = sh_cmd_err(cx, "stat", 1,
                            "-f (--file-system) is not supported in this box: "
                            "its files live on binds and in memory; use df");
        goto out;
    }
    if (fmt == NULL && terse)
        fmt = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o";
    sr.sr_literal_names = fmt == NULL;
    for (int i = 0; i < it.gi_nops; i++) {
        const char *name = it.gi_ops[i];
        sh_kernel_stat st;
        sh_kernel_result r = {0};
        if (sh_check_stop(cx)) {
            status = cx->cx_status;
            goto out;
        }
        int err = sr.sr_deref ? sh_kernel_stat_path(sh_kern(cx),
                                                    cx->cx_st->st_cwd, name,
                                                    &st, &r)
                              : sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd,
                                                name, &st, &r);
        if (err != 0 || name[0] == '\0') {
            if (r.kr_outcome == SH_KR_DENIED || r.kr_outcome == SH_KR_OK) {
                r.kr_outcome = SH_KR_OS_ERROR; // a denied probe is absent
                r.kr_errno = ENOENT;
            }
            status = cmd_worse(status, cmd_failq(cx, "stat", &r,
                                                 "cannot statx", CMD_QAF,
                                                 name));
            if (status == BOX_STATUS_FAULT)
                goto out;
            continue;
        }
        sh_kernel_result_clear(&r);
        stat_file f = {.sf_name = name, .sf_st = &st};
        int rc = stat_format(&sr, fmt != NULL ? fmt : stat_default_format(&st),
                             escapes, &f);
        if (rc == 0 && newline && fmt != NULL &&
            box_buf_putc(&sr.sr_out, '\n') != BOX_OK)
            rc = -1;
        if (!stat_flush(&sr)) {
            status = 1;
            goto out;
        }
        if (rc < 0) {
            status = sh_cmd_err(cx, "stat", 1, "out of memory");
            goto out;
        }
        if (rc > 0) {
            status = 1;
            goto out;
        }
    }
out:
    box_buf_reset(&sr.sr_out);
    sh_gopt_free(&it);
    return status;
}
