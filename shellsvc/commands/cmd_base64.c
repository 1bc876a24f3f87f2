/* SPDX-License-Identifier: Apache-2.0 */
/* base64 and base32 [-d] [-i] [-w COLS] [FILE]: GNU coreutils 9.1, RFC
 * 4648's alphabets. One streaming coder for both: a group of symbols
 * (4 or 8) stands for a block of bytes (3 or 5). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define B64_CHUNK (48u * 1024u) // a multiple of 3 and of 5 (and of 15)
#define B64_OUT_MAX (256u * 1024u)
#define B64_WRAP_DEFAULT 76

/* ORDER B64: one row per command. */
typedef struct b64_code {
    const char *bc_cmd;
    const char *bc_alphabet;
    unsigned bc_bits;   // per symbol: 6 or 5
    unsigned bc_group;  // symbols per group: 4 or 8
    unsigned bc_block;  // bytes per group: 3 or 5
    const char *bc_name; // in --help: "Base64", "Base32"
    bool bc_partial;     // a cut group's bytes are written before the
                         // fault (gnulib's base64 does, its base32 not)
} b64_code;

static const b64_code b64_codes[] = {
    {"base32", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 5, 8, 5, "Base32", false},
    {"base64",
     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 6, 4,
     3, "Base64", true},
};

static const sh_gopt b64_opts[] = {
    {'d', "decode", SH_GARG_NONE},
    {'i', "ignore-garbage", SH_GARG_NONE},
    {'w', "wrap", SH_GARG_REQ},
    {0},
};

typedef struct b64_run {
    sh_cmd_run br_run; // first: the bodies get &br_run
    const b64_code *br_code;
    signed char br_value[256]; // symbol -> value, -1 for none
    bool br_ignore;            // -i
    unsigned long br_wrap;     // 0: one line
    unsigned long br_col;      // encoding: the output line so far
    char *br_chunk;
    box_buf br_out;
} b64_run;

static bool
b64_flush(b64_run *r)
{
    bool ok = sh_cmd_emit(&r->br_run, r->br_out.b_data, r->br_out.b_len);
    box_buf_truncate(&r->br_out, 0);
    return ok;
}

static bool
b64_put(b64_run *r, char c)
{
    if (box_buf_putc(&r->br_out, c) != BOX_OK) {
        r->br_run.cr_status = sh_cmd_err(r->br_run.cr_cx, r->br_code->bc_cmd, 1,
                                         "out of memory");
        return false;
    }
    return r->br_out.b_len < B64_OUT_MAX / 2 || b64_flush(r);
}

/* One encoded symbol, with a newline every br_wrap of them. */
static bool
b64_put_symbol(b64_run *r, char c)
{
    if (!b64_put(r, c))
        return false;
    if (r->br_wrap != 0 && ++r->br_col == r->br_wrap) {
        r->br_col = 0;
        return b64_put(r, '\n');
    }
    return true;
}

/* n (< one block, at the end: padded) bytes as one group of symbols. */
static bool
b64_encode_block(b64_run *r, const unsigned char *p, size_t n)
{
    const b64_code *c = r->br_code;
    unsigned bits = (unsigned)n * 8, nsym = (bits + c->bc_bits - 1) / c->bc_bits;
    uint64_t v = 0;
    for (size_t i = 0; i < c->bc_block; i++)
        v = (v << 8) | (i < n ? p[i] : 0);
    unsigned total = c->bc_block * 8;
    for (unsigned k = 0; k < c->bc_group; k++) {
        char s = '=';
        if (k < nsym)
            s = c->bc_alphabet[(v >> (total - (k + 1) * c->bc_bits)) &
                               ((1u << c->bc_bits) - 1)];
        if (!b64_put_symbol(r, s))
            return false;
    }
    return true;
}

static bool
b64_encode(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    b64_run *r = (b64_run *)cr;
    size_t block = r->br_code->bc_block, have = 0;
    for (;;) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, r->br_chunk + have, B64_CHUNK - have);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            break;
        have += (size_t)n;
        size_t whole = have / block * block;
        for (size_t i = 0; i < whole; i += block)
            if (!b64_encode_block(r, (unsigned char *)r->br_chunk + i, block))
                return false;
        memmove(r->br_chunk, r->br_chunk + whole, have - whole);
        have -= whole;
    }
    if (have > 0 && !b64_encode_block(r, (unsigned char *)r->br_chunk, have))
        return false;
    // A last line that is not full ends with a newline; -w 0 writes none.
    if (r->br_wrap != 0 && r->br_col > 0) {
        r->br_col = 0;
        if (!b64_put(r, '\n'))
            return false;
    }
    return b64_flush(r);
}

/* Whether a padded group may hold nsym data symbols: what a final block
 * of 1, 2 … bytes encodes to. */
static bool
b64_padded_ok(const b64_code *c, unsigned nsym)
{
    for (unsigned n = 1; n < c->bc_block; n++)
        if ((n * 8 + c->bc_bits - 1) / c->bc_bits == nsym)
            return true;
    return false;
}

/* The bytes of a group of nsym data symbols (values in sym). */
static bool
b64_decode_group(b64_run *r, const unsigned char *sym, unsigned nsym)
{
    const b64_code *c = r->br_code;
    uint64_t v = 0;
    for (unsigned k = 0; k < c->bc_group; k++)
        v = (v << c->bc_bits) | (k < nsym ? sym[k] : 0);
    unsigned nbytes = nsym * c->bc_bits / 8;
    unsigned total = c->bc_group * c->bc_bits;
    for (unsigned i = 0; i < nbytes; i++)
        if (!b64_put(r, (char)((v >> (total - (i + 1) * 8)) & 0xFF)))
            return false;
    return true;
}

static bool
b64_invalid(b64_run *r)
{
    if (!b64_flush(r))
        return false;
    r->br_run.cr_status =
        sh_cmd_err(r->br_run.cr_cx, r->br_code->bc_cmd, 1, "invalid input");
    return false;
}

/*
 * Decoding, as gnulib's decoder reads: newlines anywhere; groups one
 * after another, a padded group ending early (more may follow); what a
 * cut or broken group held before the fault is written, then "invalid
 * input". -i skips every byte outside the alphabet.
 */
static bool
b64_decode(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    b64_run *r = (b64_run *)cr;
    const b64_code *c = r->br_code;
    unsigned char sym[8];
    unsigned nsym = 0, npad = 0;
    for (;;) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, r->br_chunk, B64_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)r->br_chunk[i];
            if (ch == '\n')
                continue;
            if (ch == '=') {
                if (nsym + npad < 2) {
                    if (r->br_ignore)
                        continue;
                    return b64_invalid(r);
                }
                npad++;
            } else if (r->br_value[ch] < 0 || npad > 0) {
                if (r->br_ignore && r->br_value[ch] < 0)
                    continue;
                // Data after padding in the same group, or garbage.
                if (c->bc_partial && npad == 0 &&
                    !b64_decode_group(r, sym, nsym))
                    return false;
                return b64_invalid(r);
            } else {
                sym[nsym++] = (unsigned char)r->br_value[ch];
            }
            if (nsym + npad < c->bc_group)
                continue;
            if (npad > 0 && !b64_padded_ok(c, nsym)) {
                if (!b64_decode_group(r, sym, nsym))
                    return false;
                return b64_invalid(r);
            }
            if (!b64_decode_group(r, sym, nsym))
                return false;
            nsym = npad = 0;
        }
    }
    if (nsym + npad > 0) { // cut short: what it holds, then the fault
        if (c->bc_partial && !b64_decode_group(r, sym, nsym))
            return false;
        return b64_invalid(r);
    }
    return b64_flush(r);
}

static char *
b64_help(const b64_code *c)
{
    return box_asprintf(
        "Usage: %s [OPTION]... [FILE]\n"
        "%s encode or decode FILE, or standard input, to standard output.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short options "
        "too.\n"
        "  -d, --decode          decode data\n"
        "  -i, --ignore-garbage  when decoding, ignore non-alphabet "
        "characters\n"
        "  -w, --wrap=COLS       wrap encoded lines after COLS character "
        "(default 76).\n"
        "                          Use 0 to disable line wrapping\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "The data are encoded as described for the %s alphabet in RFC "
        "4648.\n"
        "When decoding, the input may contain newlines in addition to the "
        "bytes of\n"
        "the formal %s alphabet.  Use --ignore-garbage to attempt to "
        "recover\n"
        "from any other non-alphabet bytes in the encoded stream.\n",
        c->bc_cmd, c->bc_name, c->bc_cmd, c->bc_cmd);
}

int
sh_cmd_base64(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    // The registry's two rows share this handler; argv[0] says which ran.
    size_t start, len = strlen(argv[0]);
    sh_path_last(argv[0], &start, &len);
    const b64_code *c = &b64_codes[1];
    if (len == 6 && memcmp(argv[0] + start, "base32", 6) == 0)
        c = &b64_codes[0];
    char *help = b64_help(c);
    sh_gopt_spec spec = {.gs_cmd = c->bc_cmd, .gs_opts = b64_opts,
                         .gs_fail = 1, .gs_help = help};
    b64_run r = {.br_run = {.cr_cx = cx, .cr_cmd = c->bc_cmd},
                 .br_code = c,
                 .br_wrap = B64_WRAP_DEFAULT};
    box_buf_init(&r.br_out, B64_OUT_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &spec, argc, argv);
    const char *arg;
    int id, st = 0;
    bool decode = false;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'd') {
            decode = true;
        } else if (id == 'i') {
            r.br_ignore = true;
        } else if (id == 'w') {
            char *end;
            errno = 0;
            unsigned long w = strtoul(arg, &end, 10);
            if (*arg == '\0' || *arg == '-' || *end != '\0' || errno != 0) {
                char *q = sh_gquote(arg);
                st = sh_cmd_err(cx, c->bc_cmd, 1, "invalid wrap size: %s",
                                q != NULL ? q : arg);
                box_free(q);
                goto out;
            }
            r.br_wrap = w;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (help == NULL || (r.br_chunk = box_alloc(B64_CHUNK)) == NULL) {
        st = sh_cmd_err(cx, c->bc_cmd, 1, "out of memory");
        goto out;
    }
    if (it.gi_nops > 1) {
        char *q = sh_gquote(it.gi_ops[1]);
        st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : "");
        box_free(q);
        goto out;
    }
    memset(r.br_value, -1, sizeof r.br_value);
    for (int k = 0; c->bc_alphabet[k]; k++)
        r.br_value[(unsigned char)c->bc_alphabet[k]] = (signed char)k;
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.br_run, it.gi_nops, it.gi_ops, &ops,
                         decode ? b64_decode : b64_encode);
out:
    sh_gopt_free(&it);
    box_buf_reset(&r.br_out);
    box_free(r.br_chunk);
    box_free(help);
    return st;
}
