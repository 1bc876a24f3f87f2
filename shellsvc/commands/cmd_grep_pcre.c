/* SPDX-License-Identifier: Apache-2.0 */
/* grep -P: one pattern through PCRE2 (JIT when it can), in UTF-8 with
 * invalid bytes allowed, -w and -x as GNU wraps them. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_grep.h"

/* The compiled pattern and its match data; grep_pcre_free releases both. */
struct grep_pcre {
    pcre2_code *gp_code;
    pcre2_match_data *gp_md;
};

grep_pcre *
grep_pcre_compile(grep *g, int *status)
{
    // No pattern at all (-f /dev/null) matches nothing: (?!).
    const char *p = g->g_pats.b_len > 0 ? g->g_pats.b_data : "(?!)";
    size_t n = g->g_pats.b_len > 0 ? g->g_pats.b_len - 1 : 4; // no '\n'
    if (memchr(p, '\n', n) != NULL) {
        *status = sh_cmd_err(g->g_cx, "grep", 2,
                             "the -P option only supports a single pattern");
        return NULL;
    }
    grep_pcre *gp = box_calloc(1, sizeof *gp);
    box_buf w;
    box_buf_init(&w, GREP_PAT_MAX + 64);
    box_err rv = gp == NULL ? BOX_ENOMEM
                            : box_buf_puts(&w, g->g_line   ? "^(?:"
                                               : g->g_word ? "(?<!\\w)(?:"
                                                           : "");
    rv = rv == BOX_OK ? box_buf_append(&w, p, n) : rv;
    rv = rv == BOX_OK ? box_buf_puts(&w, g->g_line   ? ")$"
                                         : g->g_word ? ")(?!\\w)"
                                                     : "")
                      : rv;
    if (rv != BOX_OK) {
        box_buf_reset(&w);
        box_free(gp);
        *status = sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
        return NULL;
    }
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF |
                    (g->g_icase ? PCRE2_CASELESS : 0) |
                    (g->g_eol == '\n' ? 0 : PCRE2_MULTILINE);
    int ec;
    PCRE2_SIZE eo;
    gp->gp_code =
        pcre2_compile((PCRE2_SPTR)w.b_data, w.b_len, opts, &ec, &eo, NULL);
    box_buf_reset(&w);
    if (gp->gp_code == NULL) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        *status = sh_cmd_err(g->g_cx, "grep", 2, "%s", (const char *)msg);
        grep_pcre_free(gp);
        return NULL;
    }
    (void)pcre2_jit_compile(gp->gp_code, PCRE2_JIT_COMPLETE);
    gp->gp_md = pcre2_match_data_create_from_pattern(gp->gp_code, NULL);
    if (gp->gp_md == NULL) {
        *status = sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
        grep_pcre_free(gp);
        return NULL;
    }
    return gp;
}

bool
grep_pcre_line(grep_pcre *gp, const char *line, size_t len, size_t from,
               size_t *ms, size_t *me)
{
    int rc = pcre2_match(gp->gp_code, (PCRE2_SPTR)line, len, from, 0, gp->gp_md,
                         NULL);
    if (rc < 0)
        return false;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(gp->gp_md);
    *ms = ov[0];
    *me = ov[1] < ov[0] ? ov[0] : ov[1]; // \K can end before the start
    return true;
}

void
grep_pcre_free(grep_pcre *gp)
{
    if (gp == NULL)
        return;
    if (gp->gp_md != NULL)
        pcre2_match_data_free(gp->gp_md);
    if (gp->gp_code != NULL)
        pcre2_code_free(gp->gp_code);
    box_free(gp);
}
