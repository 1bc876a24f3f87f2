/* SPDX-License-Identifier: Apache-2.0 */
/* diff [OPTION]... FILES: GNU diffutils 3.8's options and operands; the
 * comparing is in cmd_diff_files.c, the matching in cmd_diff_lcs.c. */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_diff.h"
#include "sh_gopt.h"

enum {
    DIFF_OPT_NORMAL = SH_GOPT_LONG_ONLY,
    DIFF_OPT_LABEL,
    DIFF_OPT_COLOR,
    DIFF_OPT_STRIP_CR,
    DIFF_OPT_UNINEW,
    DIFF_OPT_HORIZON,
    DIFF_OPT_CONTEXT, // --context[=NUM]: -C NUM, or -c
    DIFF_OPT_UNIFIED, // --unified[=NUM]: -U NUM, or -u
    DIFF_OPT_NOCOMMON,
    DIFF_OPT_ACCEPT,      // options that change nothing here
    DIFF_OPT_UNSUPPORTED, // long-only options the box does not do
};

static const sh_gopt diff_opts[] = {
    {'a', "text", SH_GARG_NONE},
    {'b', "ignore-space-change", SH_GARG_NONE},
    {'B', "ignore-blank-lines", SH_GARG_NONE},
    {'c', NULL, SH_GARG_NONE},
    {'C', NULL, SH_GARG_REQ},
    {DIFF_OPT_CONTEXT, "context", SH_GARG_OPT},
    {'d', "minimal", SH_GARG_NONE},
    {'e', "ed", SH_GARG_NONE},
    {'E', "ignore-tab-expansion", SH_GARG_NONE},
    {'i', "ignore-case", SH_GARG_NONE},
    {'N', "new-file", SH_GARG_NONE},
    {'q', "brief", SH_GARG_NONE},
    {'r', "recursive", SH_GARG_NONE},
    {'s', "report-identical-files", SH_GARG_NONE},
    {'u', NULL, SH_GARG_NONE},
    {'U', NULL, SH_GARG_REQ},
    {DIFF_OPT_UNIFIED, "unified", SH_GARG_OPT},
    {'w', "ignore-all-space", SH_GARG_NONE},
    {'x', "exclude", SH_GARG_REQ},
    {'Z', "ignore-trailing-space", SH_GARG_NONE},
    {'D', "ifdef", SH_GARG_REQ},
    {'F', "show-function-line", SH_GARG_REQ},
    {'I', "ignore-matching-lines", SH_GARG_REQ},
    {'l', "paginate", SH_GARG_NONE},
    {'n', "rcs", SH_GARG_NONE},
    {'p', "show-c-function", SH_GARG_NONE},
    {'S', "starting-file", SH_GARG_REQ},
    {'t', "expand-tabs", SH_GARG_NONE},
    {'T', "initial-tab", SH_GARG_NONE},
    {'W', "width", SH_GARG_REQ},
    {'X', "exclude-from", SH_GARG_REQ},
    {'y', "side-by-side", SH_GARG_NONE},
    {DIFF_OPT_NORMAL, "normal", SH_GARG_NONE},
    {DIFF_OPT_LABEL, "label", SH_GARG_REQ},
    {DIFF_OPT_COLOR, "color", SH_GARG_OPT},
    {DIFF_OPT_STRIP_CR, "strip-trailing-cr", SH_GARG_NONE},
    {DIFF_OPT_UNINEW, "unidirectional-new-file", SH_GARG_NONE},
    {DIFF_OPT_HORIZON, "horizon-lines", SH_GARG_REQ},
    {DIFF_OPT_ACCEPT, "speed-large-files", SH_GARG_NONE},
    {DIFF_OPT_ACCEPT, "no-dereference", SH_GARG_NONE},
    {DIFF_OPT_ACCEPT, "palette", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "left-column", SH_GARG_NONE},
    {DIFF_OPT_NOCOMMON, "suppress-common-lines", SH_GARG_NONE},
    {DIFF_OPT_UNSUPPORTED, "suppress-blank-empty", SH_GARG_NONE},
    {DIFF_OPT_UNSUPPORTED, "tabsize", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "from-file", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "to-file", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "line-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "old-line-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "new-line-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "unchanged-line-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "old-group-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "new-group-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "changed-group-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "unchanged-group-format", SH_GARG_REQ},
    {DIFF_OPT_UNSUPPORTED, "ignore-file-name-case", SH_GARG_NONE},
    {DIFF_OPT_UNSUPPORTED, "no-ignore-file-name-case", SH_GARG_NONE},
    SH_GOPT_DIGIT_ROWS,
    {0},
};

static const sh_gopt_spec diff_spec = {
    .gs_cmd = "diff",
    .gs_opts = diff_opts,
    .gs_flags = SH_GOPT_F_NOTRY, // GNU's Try line carries "diff: "
    .gs_fail = 2,
    .gs_help = diff_help,
};

/* GNU's try_help: "diff: MSG" (when msg) then "diff: Try …"; 2. */
static int
diff_usage(sh_ctx *cx, const char *msg, const char *arg)
{
    if (msg != NULL) {
        char *q = arg != NULL ? sh_gquoteaf(arg) : NULL;
        sh_cmd_err(cx, "diff", 2, msg, q != NULL ? q : "");
        box_free(q);
    }
    return sh_cmd_err(cx, "diff", 2,
                      "Try 'diff --help' for more information.");
}

/* -C/-U/--context=/--unified= NUM: digits only. */
static bool
context_num(const char *s, long *out)
{
    if (*s == '\0')
        return false;
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v > 100000000 ? v : v * 10 + (*s - '0');
    }
    *out = v;
    return true;
}

/* The style an option asks for; a second, different one is GNU's
 * "conflicting output style options". */
static bool
set_style(diff_run *d, bool *given, diff_style s)
{
    if (*given && d->dr_style != s)
        return false;
    *given = true;
    d->dr_style = s;
    return true;
}

/* " WORD" for each option word of argv, quoted as GNU's switch string
 * is: what "diff -r -u A/f B/f" repeats in a directory walk. */
static int
switches(diff_run *d, sh_gopt_iter *it, int argc, char **argv)
{
    box_buf b;
    box_buf_init(&b, SIZE_MAX);
    box_err e = box_buf_puts(&b, "");
    for (int i = 1; i < argc && e == BOX_OK; i++) {
        bool op = false;
        for (int k = 0; k < it->gi_nops && !op; k++)
            op = it->gi_ops[k] == argv[i];
        if (op)
            continue;
        char *q = sh_gquotef(argv[i]);
        e = q != NULL ? box_buf_printf(&b, " %s", q) : BOX_ENOMEM;
        box_free(q);
    }
    if (e != BOX_OK) {
        box_buf_reset(&b);
        return sh_cmd_err(it->gi_cx, "diff", 2, "memory exhausted");
    }
    d->dr_switches = box_buf_take(&b);
    return 0;
}

/* One option into d: 0, or the status of a usage error (printed). */
static int
diff_option(diff_run *d, sh_ctx *cx, int id, const char *arg, bool *styled,
            int *last)
{
    int prev = *last;
    *last = id;
    switch (id) {
    case 'a': d->dr_text = true; return 0;
    case 'b': d->dr_ws |= DIFF_WS_CHANGE; return 0;
    case 'B': d->dr_blank = true; return 0;
    case 'd': d->dr_minimal = true; return 0;
    case 'E': d->dr_ws |= DIFF_WS_TAB; return 0;
    case 'i': d->dr_icase = true; return 0;
    case 'N': d->dr_new = true; return 0;
    case 'q': d->dr_brief = true; return 0;
    case 'r': d->dr_recursive = true; return 0;
    case 's': d->dr_same = true; return 0;
    case 'w': d->dr_ws |= DIFF_WS_ALL; return 0;
    case 'Z': d->dr_ws |= DIFF_WS_TRAIL; return 0;
    case DIFF_OPT_STRIP_CR: d->dr_strip_cr = true; return 0;
    case DIFF_OPT_UNINEW: d->dr_new_first = true; return 0;
    case DIFF_OPT_ACCEPT: return 0;
    case DIFF_OPT_HORIZON: return 0; // the hunks GNU prints do not move
    case DIFF_OPT_NOCOMMON: d->dr_no_common = true; return 0;
    case 'W': {
        long v = 0;
        if (!context_num(arg, &v) || v == 0)
            return diff_usage(cx, "invalid width %s", arg);
        d->dr_width = (size_t)v;
        return 0;
    }
    case 'c':
    case 'u':
    case 'e':
    case 'y':
    case DIFF_OPT_NORMAL: {
        diff_style s = id == 'c'   ? DIFF_CONTEXT
                       : id == 'u' ? DIFF_UNIFIED
                       : id == 'e' ? DIFF_ED
                       : id == 'y' ? DIFF_SIDE
                                   : DIFF_NORMAL;
        if (!set_style(d, styled, s))
            return diff_usage(cx, "conflicting output style options", NULL);
        return 0;
    }
    case 'C':
    case 'U':
    case DIFF_OPT_CONTEXT:
    case DIFF_OPT_UNIFIED: {
        bool ctx = id == 'C' || id == DIFF_OPT_CONTEXT;
        long v = 3;
        if (arg != NULL && !context_num(arg, &v))
            return diff_usage(cx, "invalid context length %s", arg);
        if (!set_style(d, styled, ctx ? DIFF_CONTEXT : DIFF_UNIFIED))
            return diff_usage(cx, "conflicting output style options", NULL);
        if (arg != NULL || d->dr_context < 0)
            d->dr_context = v;
        return 0;
    }
    case 'x': {
        const char **nx = box_realloc(d->dr_exclude, (d->dr_nexclude + 1) *
                                                         sizeof *nx);
        if (nx == NULL)
            return sh_cmd_err(cx, "diff", 2, "memory exhausted");
        d->dr_exclude = nx;
        nx[d->dr_nexclude++] = arg;
        return 0;
    }
    case DIFF_OPT_LABEL:
        if (d->dr_label[1] != NULL) // GNU's fatal error: no Try line
            return sh_cmd_err(cx, "diff", 2, "too many file label options");
        d->dr_label[d->dr_label[0] != NULL] = arg;
        return 0;
    case DIFF_OPT_COLOR:
        if (arg != NULL && strcmp(arg, "never") != 0 &&
            strcmp(arg, "auto") != 0 && strcmp(arg, "always") != 0)
            return diff_usage(cx, "invalid color %s", arg);
        return 0; // output is never a terminal: never coloured
    default:
        break;
    }
    if (id >= '0' && id <= '9') {
        long v = prev >= '0' && prev <= '9' && d->dr_context >= 0
                     ? d->dr_context
                     : 0;
        d->dr_context = v > 100000000 ? v : v * 10 + (id - '0');
        return 0;
    }
    if (id < 128)
        return sh_cmd_err(cx, "diff", 2,
                          "option '-%c' is not supported in this box", id);
    return sh_cmd_err(cx, "diff", 2,
                      "this option is not supported in this box");
}

int
sh_cmd_diff(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    diff_run d = {.dr_run = {.cr_cx = cx, .cr_cmd = "diff"},
                  .dr_context = -1,
                  .dr_width = 130,
                  .dr_switches = NULL};
    box_buf_init(&d.dr_out, SIZE_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &diff_spec, argc, argv);
    const char *arg;
    int id, st = 0, last = 0;
    bool styled = false;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        if ((st = diff_option(&d, cx, id, arg, &styled, &last)) != 0)
            goto out;
    if (id == SH_GOPT_EXIT) {
        if (st == 2)
            diff_usage(cx, NULL, NULL);
        goto out;
    }
    if (d.dr_context < 0)
        d.dr_context = 3;
    if (it.gi_nops < 2) {
        st = diff_usage(cx, "missing operand after %s",
                        it.gi_nops == 0 ? "diff" : it.gi_ops[0]);
        goto out;
    }
    if (it.gi_nops > 2) {
        st = diff_usage(cx, "extra operand %s", it.gi_ops[2]);
        goto out;
    }
    if ((st = switches(&d, &it, argc, argv)) != 0)
        goto out;
    st = diff_files(&d, it.gi_ops[0], it.gi_ops[1], true);
    if (!d.dr_stop)
        (void)diff_flush(&d);
    if (d.dr_stop && d.dr_run.cr_status != 0)
        st = d.dr_run.cr_status;
out:
    box_buf_reset(&d.dr_out);
    box_free(d.dr_switches);
    box_free(d.dr_exclude);
    sh_gopt_free(&it);
    return st;
}
