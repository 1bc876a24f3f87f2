/* SPDX-License-Identifier: Apache-2.0 */
/* md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum, b2sum:
 * GNU coreutils 9.1, the digests from OpenSSL's EVP. One table row per
 * command; the same printing and --check for all, and for cksum -a
 * (sh_digest_files, cmd_digest.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_blake2b.h"
#include "cmd_digest.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define DG_CHUNK (64u * 1024u)
#define DG_LINE_MAX (1u << 20) // one line of a checksum file

/* ORDER DG: one row per command (and cksum -a's sm3, no command). */
typedef struct dg_algo {
    const char *da_cmd;   // the command, or NULL
    const char *da_cksum; // cksum -a's name
    const char *da_evp;   // OpenSSL's name
    const char *da_tag;   // --tag's name, and the check messages'
    const char *da_bits;  // the --help line's "(256-bit)"
    const char *da_spec;  // the --help line's standard
} dg_algo;

static const dg_algo dg_algos[] = {
    {"b2sum", "blake2b", "BLAKE2b512", "BLAKE2b", "(512-bit)", "RFC 7693"},
    {"md5sum", "md5", "MD5", "MD5", "(128-bit)", "RFC 1321"},
    {"sha1sum", "sha1", "SHA1", "SHA1", "(160-bit)", "FIPS-180-1"},
    {"sha224sum", "sha224", "SHA224", "SHA224", "(224-bit)", "RFC 3874"},
    {"sha256sum", "sha256", "SHA256", "SHA256", "(256-bit)", "FIPS-180-2"},
    {"sha384sum", "sha384", "SHA384", "SHA384", "(384-bit)", "FIPS-180-2"},
    {"sha512sum", "sha512", "SHA512", "SHA512", "(512-bit)", "FIPS-180-2"},
    {NULL, "sm3", "SM3", "SM3", "(256-bit)", "GB/T 32905-2016"},
};
#define DG_NALGOS (sizeof dg_algos / sizeof dg_algos[0])
#define DG_B2 (&dg_algos[0]) // BLAKE2b: the one with a length

enum {
    DG_O_TAG = SH_GOPT_LONG_ONLY,
    DG_O_IGNORE_MISSING,
    DG_O_QUIET,
    DG_O_STATUS,
    DG_O_STRICT,
};

static const sh_gopt dg_opts[] = {
    {'b', "binary", SH_GARG_NONE},
    {'c', "check", SH_GARG_NONE},
    {DG_O_TAG, "tag", SH_GARG_NONE},
    {'t', "text", SH_GARG_NONE},
    {'z', "zero", SH_GARG_NONE},
    {DG_O_IGNORE_MISSING, "ignore-missing", SH_GARG_NONE},
    {DG_O_QUIET, "quiet", SH_GARG_NONE},
    {DG_O_STATUS, "status", SH_GARG_NONE},
    {DG_O_STRICT, "strict", SH_GARG_NONE},
    {'w', "warn", SH_GARG_NONE},
    {0},
};

typedef struct dg_run {
    sh_cmd_run dr_run;  // first: the bodies get &dr_run
    const char *dr_cmd; // as messages name the command
    const dg_algo *dr_algo;
    unsigned dr_bits;        // BLAKE2b's length in bits; 0: the whole 512
    bool dr_auto;            // cksum -c without -a: each line's tag says
    const char *dr_last_tag; // -w's name for a bad line: the last good
                             // line's algorithm (GNU cksum's guess)
    bool dr_binary, dr_tag, dr_zero;
    bool dr_ignore_missing, dr_quiet, dr_status, dr_strict, dr_warn;
    char *dr_chunk;
    // --check's counts in the checksum file being read
    unsigned long dr_bad_lines, dr_unread, dr_mismatch;
    bool dr_text; // -t given (--tag refuses it)
} dg_run;

/* The digest of in by algorithm a (BLAKE2b cut to bits when not 0), as
 * lowercase hex into hex (2 * EVP_MAX_MD_SIZE + 1). False when reading
 * failed (reported) or the call ends. */
static bool
dg_digest(dg_run *r, const dg_algo *a, unsigned bits, sh_input *in, char *hex,
          bool *failed)
{
    *failed = false;
    bool own = a == DG_B2 && bits != 0 && bits != 512;
    const EVP_MD *md = own ? NULL : EVP_get_digestbyname(a->da_evp);
    EVP_MD_CTX *ctx = own ? NULL : EVP_MD_CTX_new();
    sh_blake2b b2;
    if (own) {
        sh_blake2b_init(&b2, bits / 8);
    } else if (md == NULL || ctx == NULL ||
               EVP_DigestInit_ex(ctx, md, NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        r->dr_run.cr_status =
            sh_cmd_err(r->dr_run.cr_cx, r->dr_cmd, 1,
                       "the %s digest is not available", a->da_evp);
        return false;
    }
    bool go = true;
    for (;;) {
        if (!sh_cmd_live(&r->dr_run)) {
            go = false;
            break;
        }
        ssize_t n = sh_input_read(in, r->dr_chunk, DG_CHUNK);
        if (n < 0 && !sh_cmd_live(&r->dr_run)) {
            go = false;
            break;
        }
        if (n < 0)
            *failed = true; // reported by the input
        if (n <= 0)
            break;
        if (own)
            sh_blake2b_update(&b2, r->dr_chunk, (size_t)n);
        else
            EVP_DigestUpdate(ctx, r->dr_chunk, (size_t)n);
    }
    unsigned char md_out[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (own) {
        sh_blake2b_final(&b2, md_out);
        len = bits / 8;
    } else {
        EVP_DigestFinal_ex(ctx, md_out, &len);
        EVP_MD_CTX_free(ctx);
    }
    for (unsigned i = 0; i < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", md_out[i]);
    hex[2 * len] = '\0';
    return go;
}

/* The tag of a BSD-style line: "MD5", or "BLAKE2b-256" for a cut
 * BLAKE2b. */
static void
dg_tag(const dg_algo *a, unsigned bits, char *buf, size_t n)
{
    if (a == DG_B2 && bits != 0 && bits != 512)
        snprintf(buf, n, "%s-%u", a->da_tag, bits);
    else
        snprintf(buf, n, "%s", a->da_tag);
}

/* GNU escapes a name holding '\\' or '\n' (and then starts the line with
 * '\\'); -z turns that off. */
static bool
dg_needs_escape(const char *name)
{
    return strpbrk(name, "\\\n\r") != NULL;
}

static box_err
dg_put_name(box_buf *b, const char *name, bool escape)
{
    box_err e = BOX_OK;
    for (const char *p = name; *p && e == BOX_OK; p++) {
        if (escape && *p == '\\')
            e = box_buf_puts(b, "\\\\");
        else if (escape && *p == '\n')
            e = box_buf_puts(b, "\\n");
        else if (escape && *p == '\r')
            e = box_buf_puts(b, "\\r");
        else
            e = box_buf_putc(b, *p);
    }
    return e;
}

/* One operand: "HEX  NAME", "HEX *NAME" (-b) or "ALGO (NAME) = HEX". */
static bool
dg_sum_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    dg_run *r = (dg_run *)cr;
    char hex[2 * EVP_MAX_MD_SIZE + 1], tag[32];
    bool failed;
    if (!dg_digest(r, r->dr_algo, r->dr_bits, in, hex, &failed))
        return false;
    dg_tag(r->dr_algo, r->dr_bits, tag, sizeof tag);
    if (failed) {
        cr->cr_status = 1;
        return true;
    }
    bool esc = !r->dr_zero && dg_needs_escape(name);
    box_buf b;
    box_buf_init(&b, DG_LINE_MAX);
    box_err e = esc ? box_buf_putc(&b, '\\') : BOX_OK;
    if (e == BOX_OK && r->dr_tag) {
        e = box_buf_printf(&b, "%s (", tag);
        if (e == BOX_OK)
            e = dg_put_name(&b, name, esc);
        if (e == BOX_OK)
            e = box_buf_printf(&b, ") = %s", hex);
    } else if (e == BOX_OK) {
        e = box_buf_printf(&b, "%s %c", hex, r->dr_binary ? '*' : ' ');
        if (e == BOX_OK)
            e = dg_put_name(&b, name, esc);
    }
    if (e == BOX_OK)
        e = box_buf_putc(&b, r->dr_zero ? '\0' : '\n');
    bool ok = e == BOX_OK ? sh_cmd_emit(cr, b.b_data, b.b_len) : false;
    if (e != BOX_OK)
        cr->cr_status = sh_cmd_err(cr->cr_cx, r->dr_cmd, 1, "out of memory");
    box_buf_reset(&b);
    return ok;
}

/* ---- --check ---------------------------------------------------------- */

/* Undoes dg_put_name's escapes in place; false for a bad escape. */
static bool
dg_unescape(char *s)
{
    char *w = s;
    for (char *p = s; *p; p++) {
        if (*p != '\\') {
            *w++ = *p;
            continue;
        }
        p++;
        if (*p == '\\')
            *w++ = '\\';
        else if (*p == 'n')
            *w++ = '\n';
        else if (*p == 'r')
            *w++ = '\r';
        else
            return false;
    }
    *w = '\0';
    return true;
}

static bool
dg_is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Hex digits of algorithm a's digest (BLAKE2b cut to bits when not 0). */
static size_t
dg_hexlen(const dg_algo *a, unsigned bits)
{
    if (a == DG_B2 && bits != 0)
        return bits / 4;
    const EVP_MD *md = EVP_get_digestbyname(a->da_evp);
    return md != NULL ? 2 * (size_t)EVP_MD_get_size(md) : 0;
}

/* The tag at p naming algorithm a ("MD5", "BLAKE2b-256"), followed by
 * " (": its length, with *bits for a BLAKE2b length; 0 when it is not. */
static size_t
dg_tag_at(const dg_algo *a, const char *p, unsigned *bits)
{
    size_t tl = strlen(a->da_tag);
    if (strncmp(p, a->da_tag, tl) != 0)
        return 0;
    *bits = 0;
    if (a == DG_B2 && p[tl] == '-') {
        unsigned v = 0;
        size_t i = tl + 1;
        for (; p[i] >= '0' && p[i] <= '9' && v <= 512; i++)
            v = v * 10 + (unsigned)(p[i] - '0');
        if (i == tl + 1 || v == 0 || v > 512 || v % 8 != 0)
            return 0;
        *bits = v;
        tl = i;
    }
    return p[tl] == ' ' && p[tl + 1] == '(' ? tl : 0;
}

/*
 * One line of a checksum file: *algo and *bits say which digest it
 * holds, *hex and *name point into line (NUL-ended there). The BSD form
 * "ALGO (NAME) = HEX" (any algorithm for cksum -c without -a, else the
 * run's), or the GNU form "HEX  NAME" or "HEX *NAME" (not for cksum's
 * guessing); a leading '\\' says the name is escaped.
 */
static bool
dg_parse_line(const dg_run *r, char *line, const dg_algo **algo, unsigned *bits,
              char **hex, char **name)
{
    bool esc = line[0] == '\\';
    char *p = line + esc;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t tl = 0;
    *algo = r->dr_algo;
    *bits = r->dr_bits;
    for (size_t i = 0; i < DG_NALGOS && tl == 0; i++) {
        const dg_algo *a = r->dr_auto ? &dg_algos[i] : r->dr_algo;
        if ((tl = dg_tag_at(a, p, bits)) != 0)
            *algo = a;
        if (!r->dr_auto)
            break;
    }
    if (tl != 0) {
        size_t hexlen = dg_hexlen(*algo, *bits);
        char *open = p + tl + 2;
        char *close = strstr(open, ") = ");
        char *last = NULL;
        for (char *c = close; c != NULL; c = strstr(c + 1, ") = "))
            last = c; // the name may hold ") = " itself
        if (last == NULL)
            return false;
        char *h = last + 4;
        if (strlen(h) != hexlen || !dg_is_hex(h, hexlen))
            return false;
        *last = '\0';
        *hex = h;
        *name = open;
        return !esc || dg_unescape(open);
    }
    *bits = r->dr_bits;
    if (r->dr_auto)
        return false;
    size_t hexlen = dg_hexlen(r->dr_algo, r->dr_bits);
    if (strlen(p) < hexlen + 2 || !dg_is_hex(p, hexlen) || p[hexlen] != ' ' ||
        (p[hexlen + 1] != ' ' && p[hexlen + 1] != '*'))
        return false;
    p[hexlen] = '\0';
    *hex = p;
    *name = p + hexlen + 2;
    if (**name == '\0')
        return false;
    return !esc || dg_unescape(*name);
}

static bool
dg_say(dg_run *r, const char *name, const char *verdict)
{
    if (r->dr_status)
        return true;
    // GNU writes a backslash as it is here; a name with a line break
    // escaped, after a leading '\\' as in a sum line.
    bool esc = strpbrk(name, "\n\r") != NULL;
    box_buf b;
    box_buf_init(&b, DG_LINE_MAX);
    box_err e = esc ? box_buf_putc(&b, '\\') : BOX_OK;
    if (e == BOX_OK)
        e = dg_put_name(&b, name, esc);
    if (e == BOX_OK)
        e = box_buf_printf(&b, ": %s\n", verdict);
    bool ok = e == BOX_OK && sh_cmd_emit(&r->dr_run, b.b_data, b.b_len);
    box_buf_reset(&b);
    return ok;
}

/* Checks one named file against hex. False when the run must stop. */
static bool
dg_check_one(dg_run *r, const dg_algo *a, unsigned bits, const char *name,
             const char *hex, bool *verified)
{
    sh_ctx *cx = r->dr_run.cr_cx;
    int st;
    const char *cmd = r->dr_cmd;
    if (r->dr_ignore_missing && strcmp(name, "-") != 0) {
        sh_kernel_stat ks;
        sh_kernel_result kr = {0};
        int err =
            sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, name, &ks, &kr);
        bool fault = kr.kr_outcome == SH_KR_FAULT;
        sh_kernel_result_clear(&kr);
        if (err == ENOENT && !fault)
            return true;
    }
    sh_input *in =
        sh_input_open(cx, cmd, strcmp(name, "-") == 0 ? NULL : name, &st);
    if (in == NULL) {
        if (st == BOX_STATUS_FAULT) {
            r->dr_run.cr_status = st;
            return false;
        }
        r->dr_unread++;
        return dg_say(r, name, "FAILED open or read");
    }
    char got[2 * EVP_MAX_MD_SIZE + 1];
    bool failed;
    bool go = dg_digest(r, a, bits, in, got, &failed);
    sh_input_close(in);
    if (!go)
        return false;
    if (failed) {
        r->dr_unread++;
        return dg_say(r, name, "FAILED open or read");
    }
    *verified = true;
    if (strcasecmp(got, hex) != 0) {
        r->dr_mismatch++;
        return dg_say(r, name, "FAILED");
    }
    return r->dr_quiet || dg_say(r, name, "OK");
}

/* GNU's warnings at the end of a checksum file, and the status they
 * give; the counts start again for the next file. */
static void
dg_check_report(dg_run *r)
{
    sh_ctx *cx = r->dr_run.cr_cx;
    const char *cmd = r->dr_cmd;
    if (!r->dr_status && r->dr_bad_lines > 0)
        sh_cmd_err(cx, cmd, 1, "WARNING: %lu %s improperly formatted",
                   r->dr_bad_lines,
                   r->dr_bad_lines == 1 ? "line is" : "lines are");
    if (!r->dr_status && r->dr_unread > 0)
        sh_cmd_err(cx, cmd, 1, "WARNING: %lu listed %s could not be read",
                   r->dr_unread, r->dr_unread == 1 ? "file" : "files");
    if (!r->dr_status && r->dr_mismatch > 0)
        sh_cmd_err(cx, cmd, 1, "WARNING: %lu computed %s did NOT match",
                   r->dr_mismatch,
                   r->dr_mismatch == 1 ? "checksum" : "checksums");
    if (r->dr_unread > 0 || r->dr_mismatch > 0 ||
        (r->dr_strict && r->dr_bad_lines > 0))
        r->dr_run.cr_status = 1;
    r->dr_bad_lines = r->dr_unread = r->dr_mismatch = 0;
}

/* One checksum file (name "-": stdin), line by line. */
static bool
dg_check_body(sh_cmd_run *cr, sh_input *in, const char *listname)
{
    dg_run *r = (dg_run *)cr;
    sh_ctx *cx = cr->cr_cx;
    const char *cmd = r->dr_cmd;
    box_buf line;
    box_buf_init(&line, DG_LINE_MAX);
    unsigned long lineno = 0, good = 0, bad = 0;
    bool verified = false, go = true;
    for (;;) {
        box_buf_truncate(&line, 0);
        int rc = sh_input_record(in, r->dr_zero ? '\0' : '\n', &line);
        if (rc <= 0) {
            if (rc < 0 && !sh_cmd_live(cr))
                go = false;
            else if (rc < 0)
                cr->cr_status = 1;
            break;
        }
        lineno++;
        if (box_buf_putc(&line, '\0') != BOX_OK) {
            cr->cr_status = sh_cmd_err(cx, cmd, 1, "out of memory");
            go = false;
            break;
        }
        char *text = line.b_data, *hex, *name;
        const dg_algo *algo;
        unsigned bits;
        size_t len = strlen(text);
        if (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\0'))
            text[--len] = '\0';
        if (text[0] == '#')
            continue;
        if (!dg_parse_line(r, text, &algo, &bits, &hex, &name)) {
            bad++;
            if (r->dr_warn)
                sh_cmd_err(cx, cmd, 1,
                           "%s: %lu: improperly formatted %s checksum line",
                           strcmp(listname, "-") == 0 ? "'standard input'"
                                                      : listname,
                           lineno, r->dr_last_tag);
            continue;
        }
        good++;
        r->dr_last_tag = algo->da_tag;
        if (!(go = dg_check_one(r, algo, bits, name, hex, &verified)))
            break;
    }
    box_buf_reset(&line);
    if (!go)
        return false;
    r->dr_bad_lines = bad;
    char *shown =
        sh_gquotef(strcmp(listname, "-") == 0 ? "standard input" : listname);
    if (good == 0) {
        sh_cmd_err(cx, cmd, 1, "%s: no properly formatted checksum lines found",
                   shown != NULL ? shown : listname);
        cr->cr_status = 1;
        r->dr_bad_lines = r->dr_unread = r->dr_mismatch = 0;
    } else if (r->dr_ignore_missing && !verified && r->dr_unread == 0 &&
               r->dr_mismatch == 0) {
        sh_cmd_err(cx, cmd, 1, "%s: no file was verified",
                   shown != NULL ? shown : listname);
        cr->cr_status = 1;
        dg_check_report(r);
    } else {
        dg_check_report(r);
    }
    box_free(shown);
    return true;
}

/* ---- the command ------------------------------------------------------ */

static char *
dg_help(const dg_algo *a)
{
    return box_asprintf(
        "Usage: %s [OPTION]... [FILE]...\n"
        "Print or check %s %s%schecksums.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "  -b, --binary          read in binary mode\n"
        "  -c, --check           read checksums from the FILEs and check "
        "them\n"
        "      --tag             create a BSD-style checksum\n"
        "  -t, --text            read in text mode (default)\n"
        "  -z, --zero            end each output line with NUL, not "
        "newline,\n"
        "                          and disable file name escaping\n"
        "\n"
        "The following five options are useful only when verifying "
        "checksums:\n"
        "      --ignore-missing  don't fail or report status for missing "
        "files\n"
        "      --quiet           don't print OK for each successfully "
        "verified file\n"
        "      --status          don't output anything, status code shows "
        "success\n"
        "      --strict          exit non-zero for improperly formatted "
        "checksum lines\n"
        "  -w, --warn            warn about improperly formatted checksum "
        "lines\n"
        "\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "The sums are computed as described in %s.\n"
        "When checking, the input should be a former output of this "
        "program.\n"
        "The default mode is to print a line with: checksum, a space,\n"
        "a character indicating input mode ('*' for binary, ' ' for text\n"
        "or where binary is insignificant), and name for each FILE.\n"
        "\n"
        "Note: There is no difference between binary mode and text mode on "
        "GNU systems.\n",
        a->da_cmd, a->da_tag, a->da_bits, " ", a->da_spec);
}

int
sh_cmd_digest(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    // The registry's rows share this handler; argv[0] says which ran.
    size_t start, len = strlen(argv[0]);
    sh_path_last(argv[0], &start, &len);
    const dg_algo *a = &dg_algos[1];
    for (size_t i = 0; i < DG_NALGOS; i++)
        if (dg_algos[i].da_cmd != NULL && strlen(dg_algos[i].da_cmd) == len &&
            memcmp(argv[0] + start, dg_algos[i].da_cmd, len) == 0)
            a = &dg_algos[i];
    char *help = dg_help(a);
    sh_gopt_spec spec = {
        .gs_cmd = a->da_cmd, .gs_opts = dg_opts, .gs_fail = 1, .gs_help = help};
    dg_run r = {.dr_run = {.cr_cx = cx, .cr_cmd = a->da_cmd},
                .dr_cmd = a->da_cmd,
                .dr_algo = a,
                .dr_last_tag = a->da_tag};
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &spec, argc, argv);
    const char *arg;
    int id, st = 0;
    bool check = false;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'b':
            r.dr_binary = true;
            break;
        case 't':
            r.dr_binary = false;
            r.dr_text = true;
            break;
        case 'c':
            check = true;
            break;
        case 'z':
            r.dr_zero = true;
            break;
        case 'w':
            r.dr_warn = true;
            break;
        case DG_O_TAG:
            r.dr_tag = true;
            break;
        case DG_O_IGNORE_MISSING:
            r.dr_ignore_missing = true;
            break;
        case DG_O_QUIET:
            r.dr_quiet = true;
            break;
        case DG_O_STATUS:
            r.dr_status = true;
            break;
        case DG_O_STRICT:
            r.dr_strict = true;
            break;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (help == NULL) {
        st = sh_cmd_err(cx, a->da_cmd, 1, "out of memory");
        goto out;
    }
    if (r.dr_tag && check) {
        st = sh_gopt_usage_error(&it, "the --tag option is meaningless when "
                                      "verifying checksums");
        goto out;
    }
    if (r.dr_tag && r.dr_text) {
        st = sh_gopt_usage_error(&it, "--tag does not support --text mode");
        goto out;
    }
    if (!check && (r.dr_ignore_missing || r.dr_quiet || r.dr_status ||
                   r.dr_strict || r.dr_warn)) {
        const char *which = r.dr_ignore_missing ? "--ignore-missing"
                            : r.dr_quiet        ? "--quiet"
                            : r.dr_status       ? "--status"
                            : r.dr_strict       ? "--strict"
                                                : "--warn";
        st = sh_gopt_usage_error(&it,
                                 "the %s option is meaningful only when "
                                 "verifying checksums",
                                 which);
        goto out;
    }
    if (EVP_get_digestbyname(a->da_evp) == NULL ||
        (r.dr_chunk = box_alloc(DG_CHUNK)) == NULL) {
        st = sh_cmd_err(cx, a->da_cmd, 1, "the %s digest is not available",
                        a->da_evp);
        goto out;
    }
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.dr_run, it.gi_nops, it.gi_ops, &ops,
                         check ? dg_check_body : dg_sum_body);
out:
    sh_gopt_free(&it);
    box_free(r.dr_chunk);
    box_free(help);
    return st;
}

/* ---- cksum -a ---------------------------------------------------------- */

bool
sh_digest_known(const char *name)
{
    for (size_t i = 0; i < DG_NALGOS; i++)
        if (strcmp(dg_algos[i].da_cksum, name) == 0)
            return true;
    return false;
}

int
sh_digest_files(sh_ctx *cx, const sh_digest_req *q, int nops, char **ops)
{
    const dg_algo *a = &dg_algos[1];
    for (size_t i = 0; q->dq_algo != NULL && i < DG_NALGOS; i++)
        if (strcmp(dg_algos[i].da_cksum, q->dq_algo) == 0)
            a = &dg_algos[i];
    dg_run r = {.dr_run = {.cr_cx = cx, .cr_cmd = q->dq_cmd},
                .dr_cmd = q->dq_cmd,
                .dr_algo = a,
                .dr_bits = a == DG_B2 ? q->dq_bits : 0,
                .dr_auto = q->dq_check && q->dq_algo == NULL,
                .dr_last_tag = q->dq_algo == NULL ? "CRC" : a->da_tag,
                .dr_binary = q->dq_binary,
                .dr_tag = q->dq_tag,
                .dr_zero = q->dq_zero,
                .dr_ignore_missing = q->dq_ignore_missing,
                .dr_quiet = q->dq_quiet,
                .dr_status = q->dq_status,
                .dr_strict = q->dq_strict,
                .dr_warn = q->dq_warn};
    if ((r.dr_chunk = box_alloc(DG_CHUNK)) == NULL)
        return sh_cmd_err(cx, q->dq_cmd, 1, "out of memory");
    sh_opts ops_at = {.o_ind = 0};
    int st = sh_cmd_operands(&r.dr_run, nops, ops, &ops_at,
                             q->dq_check ? dg_check_body : dg_sum_body);
    box_free(r.dr_chunk);
    return st;
}
