/* SPDX-License-Identifier: Apache-2.0 */
/* cksum [OPTION]... [FILE]... and sum [-rs] [FILE]...: GNU coreutils
 * 9.1. The CRC, System V and BSD sums are here; cksum -a md5 … sm3 and
 * blake2b are md5sum's code (cmd_digest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_digest.h"
#include "sh_gopt.h"

#define CK_CHUNK (64u * 1024u)

/* ORDER CK_ALGO: cksum -a's names, as GNU lists them. */
static const char *const ck_names[] = {
    "bsd",    "sysv",   "crc",    "md5",     "sha1", "sha224",
    "sha256", "sha384", "sha512", "blake2b", "sm3",  NULL,
};
typedef enum ck_algo { CK_BSD, CK_SYSV, CK_CRC, CK_DIGEST } ck_algo;
#define CK_BLAKE2B 9 // its index in ck_names

enum {
    CK_O_TAG = SH_GOPT_LONG_ONLY,
    CK_O_UNTAGGED,
    CK_O_IGNORE_MISSING,
    CK_O_QUIET,
    CK_O_STATUS,
    CK_O_STRICT,
    CK_O_DEBUG,
};

static const sh_gopt ck_opts[] = {
    {'a', "algorithm", SH_GARG_REQ},
    {'c', "check", SH_GARG_NONE},
    {'l', "length", SH_GARG_REQ},
    {CK_O_TAG, "tag", SH_GARG_NONE},
    {CK_O_UNTAGGED, "untagged", SH_GARG_NONE},
    {'z', "zero", SH_GARG_NONE},
    {CK_O_IGNORE_MISSING, "ignore-missing", SH_GARG_NONE},
    {CK_O_QUIET, "quiet", SH_GARG_NONE},
    {CK_O_STATUS, "status", SH_GARG_NONE},
    {CK_O_STRICT, "strict", SH_GARG_NONE},
    {'w', "warn", SH_GARG_NONE},
    {CK_O_DEBUG, "debug", SH_GARG_NONE},
    {0},
};

static const char ck_help[] =
    "Usage: cksum [OPTION]... [FILE]...\n"
    "Print or verify checksums.\n"
    "By default use the 32 bit CRC algorithm.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options too.\n"
    "  -a, --algorithm=TYPE  select the digest type to use.  See DIGEST "
    "below.\n"
    "  -c, --check           read checksums from the FILEs and check them\n"
    "  -l, --length=BITS     digest length in bits; must not exceed the max "
    "for\n"
    "                          the blake2 algorithm and must be a multiple of "
    "8\n"
    "      --tag             create a BSD-style checksum (the default)\n"
    "      --untagged        create a reversed style checksum, without digest "
    "type\n"
    "  -z, --zero            end each output line with NUL, not newline,\n"
    "                          and disable file name escaping\n"
    "\n"
    "The following five options are useful only when verifying checksums:\n"
    "      --ignore-missing  don't fail or report status for missing files\n"
    "      --quiet           don't print OK for each successfully verified "
    "file\n"
    "      --status          don't output anything, status code shows success\n"
    "      --strict          exit non-zero for improperly formatted checksum "
    "lines\n"
    "  -w, --warn            warn about improperly formatted checksum lines\n"
    "\n"
    "      --debug           indicate which implementation used\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n"
    "\n"
    "DIGEST determines the digest algorithm and default output format:\n"
    "  sysv      (equivalent to sum -s)\n"
    "  bsd       (equivalent to sum -r)\n"
    "  crc       (equivalent to cksum)\n"
    "  md5       (equivalent to md5sum)\n"
    "  sha1      (equivalent to sha1sum)\n"
    "  sha224    (equivalent to sha224sum)\n"
    "  sha256    (equivalent to sha256sum)\n"
    "  sha384    (equivalent to sha384sum)\n"
    "  sha512    (equivalent to sha512sum)\n"
    "  blake2b   (equivalent to b2sum)\n"
    "  sm3       (only available through cksum)\n"
    "\n"
    "When checking, the input should be a former output of this program,\n"
    "or equivalent standalone program.\n";

static const sh_gopt_spec ck_spec = {
    .gs_cmd = "cksum",
    .gs_opts = ck_opts,
    .gs_fail = 1,
    .gs_help = ck_help,
};

static const sh_gopt sum_opts[] = {
    {'r', NULL, SH_GARG_NONE},
    {'s', "sysv", SH_GARG_NONE},
    {0},
};

static const char sum_help[] =
    "Usage: sum [OPTION]... [FILE]...\n"
    "Print or check BSD (16-bit) checksums.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -r              use BSD sum algorithm (the default), use 1K blocks\n"
    "  -s, --sysv      use System V sum algorithm, use 512 bytes blocks\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const sh_gopt_spec sum_spec = {
    .gs_cmd = "sum",
    .gs_opts = sum_opts,
    .gs_fail = 1,
    .gs_help = sum_help,
};

typedef struct ck_run {
    sh_cmd_run kr_run;
    ck_algo kr_algo;
    bool kr_zero;  // -z
    bool kr_named; // a FILE was given: lines name it ("-" too)
    char *kr_chunk;
} ck_run;

/* The POSIX CRC (polynomial 0x04C11DB7, most significant bit first),
 * one table for a byte at a time. */
static void
ck_crc_table(uint32_t t[256])
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i << 24;
        for (int k = 0; k < 8; k++)
            c = c & 0x80000000u ? c << 1 ^ 0x04C11DB7u : c << 1;
        t[i] = c;
    }
}

/* One operand's sum line in the algorithm's form. */
static bool
ck_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    ck_run *r = (ck_run *)cr;
    uint32_t table[256];
    if (r->kr_algo == CK_CRC)
        ck_crc_table(table);
    uint32_t crc = 0, sysv = 0;
    unsigned bsd = 0;
    uintmax_t total = 0;
    for (;;) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, r->kr_chunk, CK_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0) {
            cr->cr_status = 1; // reported by the input; no line
            return true;
        }
        if (n == 0)
            break;
        const unsigned char *p = (const unsigned char *)r->kr_chunk;
        total += (uintmax_t)n;
        for (ssize_t i = 0; i < n; i++) {
            switch (r->kr_algo) {
            case CK_CRC:
                crc = crc << 8 ^ table[(crc >> 24) ^ p[i]];
                break;
            case CK_SYSV:
                sysv += p[i];
                break;
            default:
                bsd = (bsd >> 1) + ((bsd & 1) << 15) + p[i];
                bsd &= 0xffff;
                break;
            }
        }
    }
    char line[128];
    int len;
    if (r->kr_algo == CK_CRC) {
        for (uintmax_t l = total; l != 0; l >>= 8)
            crc = crc << 8 ^ table[(crc >> 24) ^ (l & 0xff)];
        len = snprintf(line, sizeof line, "%u %ju", ~crc, total);
    } else if (r->kr_algo == CK_SYSV) {
        uint32_t s = (sysv & 0xffff) + (sysv >> 16);
        s = (s & 0xffff) + (s >> 16);
        len = snprintf(line, sizeof line, "%u %ju", s, (total + 511) / 512);
    } else {
        len = snprintf(line, sizeof line, "%05u %5ju", bsd,
                       (total + 1023) / 1024);
    }
    char end = r->kr_zero ? '\0' : '\n';
    return sh_cmd_emit(cr, line, (size_t)len) &&
           (!r->kr_named ||
            (sh_cmd_emit(cr, " ", 1) && sh_cmd_emit(cr, name, strlen(name)))) &&
           sh_cmd_emit(cr, &end, 1);
}

static int
ck_sums(sh_ctx *cx, const char *cmd, ck_algo algo, bool zero, int nops,
        char **ops)
{
    ck_run r = {.kr_run = {.cr_cx = cx, .cr_cmd = cmd},
                .kr_algo = algo,
                .kr_zero = zero,
                .kr_named = nops > 0};
    if ((r.kr_chunk = box_alloc(CK_CHUNK)) == NULL)
        return sh_cmd_err(cx, cmd, 1, "out of memory");
    sh_opts at = {.o_ind = 0};
    int st = sh_cmd_operands(&r.kr_run, nops, ops, &at, ck_body);
    box_free(r.kr_chunk);
    return st;
}

/* -a TYPE: only a whole name (GNU 9.1 takes no abbreviation here). */
static int
ck_algo_arg(sh_gopt_iter *it, const char *arg, int *which)
{
    for (int i = 0; ck_names[i] != NULL; i++) {
        if (strcmp(arg, ck_names[i]) == 0) {
            *which = i;
            return 0;
        }
    }
    char *q = sh_gquote(arg);
    sh_cmd_err(it->gi_cx, "cksum", 1,
               "invalid argument %s for \xe2\x80\x98--algorithm\xe2\x80\x99",
               q != NULL ? q : arg);
    box_free(q);
    (void)sh_puts(it->gi_cx, 2, "Valid arguments are:\n");
    for (int i = 0; ck_names[i] != NULL; i++) {
        char line[64];
        snprintf(line, sizeof line, "  - \xe2\x80\x98%s\xe2\x80\x99\n",
                 ck_names[i]);
        (void)sh_puts(it->gi_cx, 2, line);
    }
    return sh_gopt_try(it);
}

/* -l BITS: a multiple of 8 up to 512 (0: the whole digest). */
static int
ck_length_arg(sh_ctx *cx, const char *arg, unsigned *bits)
{
    char *end = NULL;
    unsigned long v =
        arg[0] >= '0' && arg[0] <= '9' ? strtoul(arg, &end, 10) : 0;
    char *q = sh_gquote(arg);
    int st = 0;
    if (end == NULL || *end != '\0') {
        st = sh_cmd_err(cx, "cksum", 1, "invalid length: %s", q ? q : arg);
    } else if (v > 512 || v % 8 != 0) {
        sh_cmd_err(cx, "cksum", 1, "invalid length: %s", q ? q : arg);
        st = sh_cmd_err(cx, "cksum", 1, "length is not a multiple of 8");
    } else {
        *bits = (unsigned)v;
    }
    box_free(q);
    return st;
}

int
sh_cmd_cksum(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &ck_spec, argc, argv);
    sh_digest_req q = {.dq_cmd = "cksum", .dq_tag = true};
    const char *arg;
    int id, st = 0, algo = CK_CRC;
    bool given = false, length = false;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'a':
            if ((st = ck_algo_arg(&it, arg, &algo)) != 0)
                goto out;
            given = true;
            break;
        case 'l':
            if ((st = ck_length_arg(cx, arg, &q.dq_bits)) != 0)
                goto out;
            length = true;
            break;
        case 'c':
            q.dq_check = true;
            break;
        case 'z':
            q.dq_zero = true;
            break;
        case 'w':
            q.dq_warn = true;
            break;
        case CK_O_TAG:
            q.dq_tag = true;
            break;
        case CK_O_UNTAGGED:
            q.dq_tag = false;
            break;
        case CK_O_IGNORE_MISSING:
            q.dq_ignore_missing = true;
            break;
        case CK_O_QUIET:
            q.dq_quiet = true;
            break;
        case CK_O_STATUS:
            q.dq_status = true;
            break;
        case CK_O_STRICT:
            q.dq_strict = true;
            break;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (length && algo != CK_BLAKE2B) {
        st = sh_cmd_err(cx, "cksum", 1,
                        "--length is only supported with --algorithm=blake2b");
        goto out;
    }
    if (q.dq_check && algo < CK_DIGEST && given) {
        st = sh_cmd_err(cx, "cksum", 1,
                        "--check is not supported with "
                        "--algorithm={bsd,sysv,crc}");
        goto out;
    }
    if (!q.dq_check && (q.dq_ignore_missing || q.dq_quiet || q.dq_status ||
                        q.dq_strict || q.dq_warn)) {
        const char *which = q.dq_ignore_missing ? "--ignore-missing"
                            : q.dq_quiet        ? "--quiet"
                            : q.dq_status       ? "--status"
                            : q.dq_strict       ? "--strict"
                                                : "--warn";
        st = sh_gopt_usage_error(&it,
                                 "the %s option is meaningful only when "
                                 "verifying checksums",
                                 which);
        goto out;
    }
    if (algo < CK_DIGEST && !q.dq_check) {
        st = ck_sums(cx, "cksum", (ck_algo)algo, q.dq_zero, it.gi_nops,
                     it.gi_ops);
        goto out;
    }
    q.dq_algo = given ? ck_names[algo] : NULL;
    st = sh_digest_files(cx, &q, it.gi_nops, it.gi_ops);
out:
    sh_gopt_free(&it);
    return st;
}

int
sh_cmd_sum(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &sum_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    ck_algo algo = CK_BSD;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        algo = id == 's' ? CK_SYSV : CK_BSD;
    if (id != SH_GOPT_EXIT)
        st = ck_sums(cx, "sum", algo, false, it.gi_nops, it.gi_ops);
    sh_gopt_free(&it);
    return st;
}
