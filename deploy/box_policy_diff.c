/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy diff`: what a policy edit would change, shown on a box's
 * recorded decisions before the edit is installed (issue 21 #9). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_cmd.h"
#include "box_escape.h"
#include "box_json.h"
#include "box_policy_ask.h"
#include "box_policy_verbs.h"
#include "pdp_diff.h"
#include "pdp_dlread.h"
#include "pdp_evschema.h"
#include "pdp_hstore.h"
#include "pdp_policy_file.h"
#include "pdp_trace.h"

static const char diff_usage[] =
    "usage: box policy diff --old A.dw --new B.dw --log DECISIONS\n"
    "                       [--history HIST] [--json] [--home DIR]\n"
    "\n"
    "Replays a box's recorded decisions (DECISIONS: its decision log,\n"
    "<box_dir>/private/telemetry/records.jsonl) against the policy A it\n"
    "was written under and the candidate B, and lists every decision B\n"
    "would answer otherwise: permit → deny, deny → permit, or the same\n"
    "verdict by another rule. They are grouped by the rule of B that\n"
    "decides them (<default-deny> when none does), with a count and up to\n"
    "5 examples each. Run it before installing B (SIGHUP).\n"
    "\n"
    "The log keeps only part of each request (box-spec §7): an fs:*\n"
    "operation, redacted arguments, an http body size are not in it. Each\n"
    "request is rebuilt from the log as far as it goes (an fs operation\n"
    "is tried with each of its values, keeping those under which A gives\n"
    "the logged answer); a decision that either policy could answer\n"
    "otherwise with what is missing is listed under `cannot tell`, naming\n"
    "the field, never counted as unchanged. So is a decision A does not\n"
    "answer as the log says (the log was written under another policy).\n"
    "Control records, enforcement entries, cached answers and decisions\n"
    "made before a policy was installed are skipped and counted.\n"
    "\n"
    "--history HIST reads the box's history (<box_dir>/private/history/\n"
    "dogwood.history, or a trace in the format `box policy replay` reads):\n"
    "a decision whose own ::request event it holds (same action, agreeing\n"
    "with the log, in order) is replayed with that full request, and\n"
    "temporal rules are decided over the history up to it, as if B had\n"
    "been in force all along (once installed, a new or changed temporal\n"
    "rule starts with an empty history). The history holds the events of\n"
    "the actions A's temporal rules read: a decision that needs the\n"
    "history, or events of an action A did not read, cannot be told. The\n"
    "history is only read, never changed.\n"
    "\n"
    "A and B load as box-pdp loads them (--home names the operator home\n"
    "for the spelling checks, default $HOME).\n"
    "\n"
    "Output: `N decisions replayed: N unchanged, N change, N cannot tell,\n"
    "N skipped`, then each group, e.g.\n"
    "  permit → deny  (rule new:no-secrets)  2 decisions\n"
    "    fs:read  ~/.ssh/id_rsa  (was: permit by read-home)\n"
    "--json prints the same as one JSON object:\n"
    "  {\"replayed\": N, \"unchanged\": N, \"changed\": N, \"cannot_tell\": "
    "N,\n"
    "   \"skipped\": N, \"skipped_by\": {\"control\": N, \"enforcement\": N,\n"
    "   \"cached\": N, \"pending\": N, \"other\": N},\n"
    "   \"changes\": [{\"from\": V, \"to\": V, \"rule\": ID, \"count\": N,\n"
    "                \"examples\": [{\"line\": L, \"action\": A, "
    "\"resource\":\n"
    "                R, \"was_rule\": ID, \"from_history\": B}]}],\n"
    "   \"cannot_tell_groups\": [{\"reason\": \"...\", \"count\": N,\n"
    "                \"examples\": [{\"line\": L, \"action\": A, "
    "\"resource\":\n"
    "                R, \"logged\": V, \"logged_rule\": ID, \"detail\":\n"
    "                \"...\"}]}],\n"
    "   \"warnings\": [\"...\"]}\n"
    "\n"
    "Exits 0 when every replayed decision is unchanged, 1 when one changes\n"
    "or cannot be told, 2 on a usage error or an input that does not read\n"
    "or load (the message names the file and line).\n";

#define DIFF_EXAMPLES 5
#define DIFF_WARNINGS_MAX 16

enum { DIFF_SAME = 0, DIFF_CHANGES = 1, DIFF_BAD = 2 };

typedef struct diff_args {
    const char *da_old, *da_new, *da_log, *da_history, *da_home;
    bool da_json;
} diff_args;

/* DIFF_SAME, or the status to exit with (usage printed); -1 for --help. */
static int
diff_parse_args(int argc, char **argv, diff_args *a)
{
    a->da_home = getenv("HOME");
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(s, "--help") == 0) {
            fputs(diff_usage, stdout);
            return -1;
        } else if (strcmp(s, "--old") == 0 && more) {
            a->da_old = argv[++i];
        } else if (strcmp(s, "--new") == 0 && more) {
            a->da_new = argv[++i];
        } else if (strcmp(s, "--log") == 0 && more) {
            a->da_log = argv[++i];
        } else if (strcmp(s, "--history") == 0 && more) {
            a->da_history = argv[++i];
        } else if (strcmp(s, "--home") == 0 && more) {
            a->da_home = argv[++i];
        } else if (strcmp(s, "--json") == 0) {
            a->da_json = true;
        } else {
            fputs(diff_usage, stderr);
            return DIFF_BAD;
        }
    }
    if (a->da_old == NULL || a->da_new == NULL || a->da_log == NULL) {
        fputs(diff_usage, stderr);
        return DIFF_BAD;
    }
    return DIFF_SAME;
}

/* ---- inputs ---- */

/*
 * One policy file: refused as box-pdp would refuse it (the message names
 * file:line:col), then loaded again for the replay without request
 * validation (a rebuilt request lacks fields on purpose, pdp_diff.h) but
 * with Box's event schema, as box-pdp decides temporal rules.
 */
static bool
diff_load_policy(const char *path, const char *home, const pdp_evschema *es,
                 pdp_policy_set **out)
{
    char *text = NULL, *err = NULL;
    size_t len = 0;
    pdp_policy_set *checked = NULL;
    box_err rv = pdp_read_text_file(path, "policy file", PDP_POLICY_MAX_BYTES,
                                    &text, &len, &err);
    if (rv != BOX_OK) {
        box_cmd_error("%s", err ? err : box_strerror(rv));
        goto out;
    }
    rv = box_ask_load_text(path, text, len, BOX_ASK_LOAD_BOX, NULL, home,
                           &checked, NULL, &err);
    if (rv == BOX_OK) {
        box_free(err);
        err = NULL;
        rv = pdp_policy_load_events(text, len, path, NULL, es, out, NULL, &err);
    }
    if (rv != BOX_OK)
        box_cmd_error("policy file %s will not load: %s", path,
                      err ? err : box_strerror(rv));
out:
    pdp_policy_free(checked);
    box_free(text);
    box_free(err);
    return rv == BOX_OK;
}

static bool
diff_load_log(const char *path, pdp_dlread *log)
{
    char *text = NULL, *err = NULL;
    size_t len = 0;
    box_buf msg;
    box_buf_init(&msg, 1u << 16);
    box_err rv = pdp_read_text_file(path, "decision log", PDP_DLREAD_MAX_BYTES,
                                    &text, &len, &err);
    if (rv != BOX_OK)
        box_cmd_error("%s", err ? err : box_strerror(rv));
    else if ((rv = pdp_dlread_load(text, len, path, log, &msg)) != BOX_OK)
        box_cmd_error("decision log %s",
                      msg.b_len > 0 ? msg.b_data : box_strerror(rv));
    box_buf_reset(&msg);
    box_free(text);
    box_free(err);
    return rv == BOX_OK;
}

/* Whether path starts as a box history file does (pdp_hstore.h). */
static bool
diff_is_hstore(const char *path)
{
    char head[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f != NULL)
        fclose(f);
    return n == sizeof head && memcmp(head, "BOXHIS01", sizeof head) == 0;
}

/* The history: a box's history file (its last rules record into
 * *rules), or a trace; *warn (caller frees) when a torn tail was left
 * unread. */
static bool
diff_load_history(const char *path, pdp_hist *h, pdp_hstore_rules *rules,
                  char **warn)
{
    char *text = NULL, *err = NULL;
    size_t len = 0;
    box_buf msg;
    box_buf_init(&msg, 1u << 16);
    box_err rv;
    if (diff_is_hstore(path)) {
        if ((rv = pdp_hstore_read(path, h, rules, warn, &err)) != BOX_OK)
            box_cmd_error("%s", err ? err : box_strerror(rv));
    } else if ((rv = pdp_read_text_file(path, "history", PDP_TRACE_MAX_BYTES,
                                        &text, &len, &err)) != BOX_OK) {
        box_cmd_error("%s", err ? err : box_strerror(rv));
    } else if ((rv = pdp_trace_load(text, len, path, h, NULL, &msg)) !=
               BOX_OK) {
        box_cmd_error("history %s",
                      msg.b_len > 0 ? msg.b_data : box_strerror(rv));
    }
    box_buf_reset(&msg);
    box_free(text);
    box_free(err);
    return rv == BOX_OK;
}

/* ---- grouping ---- */

/* The decisions of one group: a change of one kind decided by one rule
 * of the new policy, or one reason a decision cannot be told. */
typedef struct group {
    bool g_unknown;
    pdp_verdict g_from, g_to;
    const pdp_rule *g_rule; // of the new policy; NULL: <default-deny>
    const char *g_why;      // g_unknown
    size_t g_count;
    const pdp_diff_item *g_ex[DIFF_EXAMPLES];
} group;

typedef struct tally {
    size_t t_n[4]; // by pdp_diff_class
    size_t t_skip[PDP_DIFF_SKIP_COUNT];
    group *t_groups;
    size_t t_ngroups;
} tally;

static bool
group_fits(const group *g, const pdp_diff_item *it)
{
    if (it->di_class == PDP_DIFF_UNKNOWN)
        return g->g_unknown && strcmp(g->g_why, it->di_why) == 0;
    return !g->g_unknown && g->g_from == it->di_old.ds_verdict &&
           g->g_to == it->di_new.ds_verdict && g->g_rule == it->di_new.ds_rule;
}

static box_err
tally_add(tally *t, const pdp_diff_item *it)
{
    t->t_n[it->di_class]++;
    if (it->di_class == PDP_DIFF_SKIPPED)
        t->t_skip[it->di_skip]++;
    if (it->di_class != PDP_DIFF_CHANGED && it->di_class != PDP_DIFF_UNKNOWN)
        return BOX_OK;
    group *g = NULL;
    for (size_t i = 0; i < t->t_ngroups && g == NULL; i++)
        if (group_fits(&t->t_groups[i], it))
            g = &t->t_groups[i];
    if (g == NULL) {
        group *grown =
            box_realloc(t->t_groups, (t->t_ngroups + 1) * sizeof *grown);
        if (grown == NULL)
            return BOX_ENOMEM;
        t->t_groups = grown;
        g = &grown[t->t_ngroups++];
        *g = (group){.g_unknown = it->di_class == PDP_DIFF_UNKNOWN,
                     .g_from = it->di_old.ds_verdict,
                     .g_to = it->di_new.ds_verdict,
                     .g_rule = it->di_new.ds_rule,
                     .g_why = it->di_why};
    }
    if (g->g_count < DIFF_EXAMPLES)
        g->g_ex[g->g_count] = it;
    g->g_count++;
    return BOX_OK;
}

/* Changes first (permit → deny, then deny → permit, then another rule),
 * then what cannot be told; the larger group first within each. */
static int
group_rank(const group *g)
{
    if (g->g_unknown)
        return 3;
    if (g->g_from != g->g_to)
        return g->g_to == PDP_DENY ? 0 : 1;
    return 2;
}

static int
group_cmp(const void *x, const void *y)
{
    const group *a = x, *b = y;
    int ra = group_rank(a), rb = group_rank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return a->g_count > b->g_count ? -1 : a->g_count < b->g_count;
}

/* ---- printing ---- */

static const char *
verdict_word(pdp_verdict v)
{
    return v == PDP_ALLOW ? "permit" : "deny";
}

static pdp_str
rule_name(const pdp_rule *r)
{
    return r != NULL ? pdp_rule_display_id(r) : (pdp_str){"<default-deny>", 14};
}

/* Text the agent may have steered (a path, an argument), one line. */
static box_err
put_esc(box_buf *b, const char *s, size_t n)
{
    return box_escape_debug(b, s != NULL ? s : "", s != NULL ? n : 0);
}

static box_err
put_esc_c(box_buf *b, const char *s)
{
    return put_esc(b, s, s != NULL ? strlen(s) : 0);
}

static box_err
text_example(box_buf *b, const group *g, const pdp_diff_item *it)
{
    const pdp_dlrec *d = it->di_rec;
    BOX_TRY(box_buf_puts(b, "  "));
    BOX_TRY(put_esc_c(b, d->dr_action));
    BOX_TRY(box_buf_puts(b, "  "));
    BOX_TRY(put_esc_c(b, d->dr_resource));
    if (g->g_unknown) {
        BOX_TRY(box_buf_puts(b, "  ("));
        if (it->di_detail != NULL && it->di_detail[0] != '\0') {
            BOX_TRY(put_esc_c(b, it->di_detail));
        } else {
            BOX_TRY(box_buf_printf(b, "logged: %s by ", d->dr_verdict));
            BOX_TRY(put_esc_c(b, d->dr_rule ? d->dr_rule : "?"));
        }
        return box_buf_printf(b, "; line %u)\n", d->dr_line);
    }
    pdp_str was = rule_name(it->di_old.ds_rule);
    BOX_TRY(box_buf_printf(b, "  (was: %s by ",
                           verdict_word(it->di_old.ds_verdict)));
    BOX_TRY(put_esc(b, was.s, was.len));
    return box_buf_printf(b, "; line %u)\n", d->dr_line);
}

static box_err
print_text(const tally *t, const char *const *warn, size_t nwarn, box_buf *b)
{
    size_t total = t->t_n[0] + t->t_n[1] + t->t_n[2] + t->t_n[3];
    BOX_TRY(box_buf_printf(b,
                           "%zu decisions replayed: %zu unchanged, %zu change, "
                           "%zu cannot tell, %zu skipped",
                           total, t->t_n[PDP_DIFF_UNCHANGED],
                           t->t_n[PDP_DIFF_CHANGED], t->t_n[PDP_DIFF_UNKNOWN],
                           t->t_n[PDP_DIFF_SKIPPED]));
    const char *sep = " (";
    for (int s = PDP_DIFF_SKIP_CONTROL; s < PDP_DIFF_SKIP_COUNT; s++) {
        if (t->t_skip[s] == 0)
            continue;
        BOX_TRY(box_buf_printf(b, "%s%zu %s", sep, t->t_skip[s],
                               pdp_diff_skip_name((pdp_diff_skip)s)));
        sep = ", ";
    }
    BOX_TRY(box_buf_puts(b, sep[0] == ',' ? ")\n" : "\n"));
    for (size_t i = 0; i < nwarn; i++)
        BOX_TRY(box_buf_printf(b, "warning: %s\n", warn[i]));
    for (size_t i = 0; i < t->t_ngroups; i++) {
        const group *g = &t->t_groups[i];
        const char *s = g->g_count == 1 ? "" : "s";
        if (g->g_unknown) {
            BOX_TRY(box_buf_printf(b, "cannot tell: %s  %zu decision%s\n",
                                   g->g_why, g->g_count, s));
        } else {
            pdp_str id = rule_name(g->g_rule);
            BOX_TRY(box_buf_printf(
                b, "%s → %s%s  (rule new:", verdict_word(g->g_from),
                verdict_word(g->g_to),
                g->g_from == g->g_to ? ", another rule" : ""));
            BOX_TRY(put_esc(b, id.s, id.len));
            BOX_TRY(box_buf_printf(b, ")  %zu decision%s\n", g->g_count, s));
        }
        for (size_t k = 0; k < g->g_count && k < DIFF_EXAMPLES; k++)
            BOX_TRY(text_example(b, g, g->g_ex[k]));
    }
    return BOX_OK;
}

static box_err
json_example(box_buf *b, const group *g, const pdp_diff_item *it)
{
    const pdp_dlrec *d = it->di_rec;
    BOX_TRY(box_buf_printf(b, "{\"line\":%u,\"action\":", d->dr_line));
    BOX_TRY(box_json_cstr(b, d->dr_action));
    BOX_TRY(box_buf_puts(b, ",\"resource\":"));
    BOX_TRY(box_json_cstr(b, d->dr_resource));
    if (g->g_unknown) {
        BOX_TRY(box_buf_puts(b, ",\"logged\":"));
        BOX_TRY(box_json_cstr(b, d->dr_verdict));
        BOX_TRY(box_buf_puts(b, ",\"logged_rule\":"));
        BOX_TRY(box_json_cstr(b, d->dr_rule));
        BOX_TRY(box_buf_puts(b, ",\"detail\":"));
        BOX_TRY(box_json_cstr(b, it->di_detail));
        return box_buf_putc(b, '}');
    }
    pdp_str was = rule_name(it->di_old.ds_rule);
    BOX_TRY(box_buf_puts(b, ",\"was_rule\":"));
    BOX_TRY(box_json_str(b, was.s, was.len));
    return box_buf_printf(b, ",\"from_history\":%s}",
                          it->di_from_history ? "true" : "false");
}

static box_err
print_json(const tally *t, const char *const *warn, size_t nwarn, box_buf *b)
{
    size_t total = t->t_n[0] + t->t_n[1] + t->t_n[2] + t->t_n[3];
    BOX_TRY(box_buf_printf(b,
                           "{\"replayed\":%zu,\"unchanged\":%zu,"
                           "\"changed\":%zu,\"cannot_tell\":%zu,"
                           "\"skipped\":%zu,\"skipped_by\":{",
                           total, t->t_n[PDP_DIFF_UNCHANGED],
                           t->t_n[PDP_DIFF_CHANGED], t->t_n[PDP_DIFF_UNKNOWN],
                           t->t_n[PDP_DIFF_SKIPPED]));
    for (int s = PDP_DIFF_SKIP_CONTROL; s < PDP_DIFF_SKIP_COUNT; s++)
        BOX_TRY(box_buf_printf(
            b, "%s\"%s\":%zu", s == PDP_DIFF_SKIP_CONTROL ? "" : ",",
            pdp_diff_skip_name((pdp_diff_skip)s), t->t_skip[s]));
    for (int pass = 0; pass < 2; pass++) {
        BOX_TRY(box_buf_puts(b, pass == 0 ? "},\"changes\":["
                                          : "],\"cannot_tell_groups\":["));
        bool first = true;
        for (size_t i = 0; i < t->t_ngroups; i++) {
            const group *g = &t->t_groups[i];
            if (g->g_unknown != (pass == 1))
                continue;
            BOX_TRY(box_buf_puts(b, first ? "{" : ",{"));
            first = false;
            if (g->g_unknown) {
                BOX_TRY(box_buf_puts(b, "\"reason\":"));
                BOX_TRY(box_json_cstr(b, g->g_why));
            } else {
                pdp_str id = rule_name(g->g_rule);
                BOX_TRY(box_buf_printf(b,
                                       "\"from\":\"%s\",\"to\":\"%s\","
                                       "\"rule\":",
                                       verdict_word(g->g_from),
                                       verdict_word(g->g_to)));
                BOX_TRY(box_json_str(b, id.s, id.len));
            }
            BOX_TRY(
                box_buf_printf(b, ",\"count\":%zu,\"examples\":[", g->g_count));
            for (size_t k = 0; k < g->g_count && k < DIFF_EXAMPLES; k++) {
                if (k > 0)
                    BOX_TRY(box_buf_putc(b, ','));
                BOX_TRY(json_example(b, g, g->g_ex[k]));
            }
            BOX_TRY(box_buf_puts(b, "]}"));
        }
    }
    BOX_TRY(box_buf_puts(b, "],\"warnings\":["));
    for (size_t i = 0; i < nwarn; i++) {
        if (i > 0)
            BOX_TRY(box_buf_putc(b, ','));
        BOX_TRY(box_json_cstr(b, warn[i]));
    }
    return box_buf_puts(b, "]}\n");
}

/* The warnings a reader of the result should see: a torn history tail,
 * and the actions whose events the new policy reads but the history was
 * not kept for. Each string is the caller's to free. */
static size_t
diff_warnings(const pdp_policy_set *old, const pdp_policy_set *new_, bool hist,
              char *torn, char **warn)
{
    size_t n = 0;
    if (torn != NULL)
        warn[n++] = torn;
    if (!hist)
        return n;
    const char *acts[DIFF_WARNINGS_MAX];
    size_t na = pdp_diff_unrecorded(old, new_, acts, DIFF_WARNINGS_MAX - 1);
    for (size_t i = 0; i < na && n < DIFF_WARNINGS_MAX; i++) {
        char *w = box_asprintf("the history holds no %s events (the old "
                               "policy's rules did not use them) and the "
                               "new policy's temporal rules do: what needs "
                               "them is listed as cannot tell",
                               acts[i]);
        if (w != NULL)
            warn[n++] = w;
    }
    return n;
}

int
box_policy_diff(int argc, char **argv)
{
    diff_args a = {0};
    int status = diff_parse_args(argc, argv, &a);
    if (status != DIFF_SAME)
        return status < 0 ? DIFF_SAME : status;
    pdp_evschema *es = NULL;
    pdp_policy_set *old = NULL, *new_ = NULL;
    pdp_dlread log = {0};
    pdp_hist *h = NULL;
    pdp_hstore_rules rules = {0};
    uint64_t *since = NULL;
    pdp_diff_result res = {0};
    size_t nwarn = 0;
    char *torn = NULL, *warn[DIFF_WARNINGS_MAX];
    tally t = {0};
    box_buf msg, out;
    box_buf_init(&msg, 1u << 16);
    box_buf_init(&out, SIZE_MAX);
    box_err rv;
    status = DIFF_BAD;
    if ((rv = pdp_evschema_load_builtin(PDP_EVSCHEMA_BOX, &es, &msg)) !=
        BOX_OK) {
        box_cmd_error("Box's event schema: %s",
                      msg.b_len ? msg.b_data : box_strerror(rv));
        goto out;
    }
    if (!diff_load_policy(a.da_old, a.da_home, es, &old) ||
        !diff_load_policy(a.da_new, a.da_home, es, &new_) ||
        !diff_load_log(a.da_log, &log))
        goto out;
    if (a.da_history != NULL) {
        if ((h = pdp_hist_new()) == NULL) {
            box_cmd_error("out of memory");
            goto out;
        }
        if (!diff_load_history(a.da_history, h, &rules, &torn))
            goto out;
        if (rules.hs_n > 0 && pdp_diff_since(old, &rules, &since) != BOX_OK) {
            box_cmd_error("out of memory");
            goto out;
        }
    }
    pdp_diff_in in = {.dn_old = old,
                      .dn_new = new_,
                      .dn_log = &log,
                      .dn_hist = h,
                      .dn_old_since = since};
    if ((rv = pdp_diff_run(&in, &res)) != BOX_OK) {
        box_cmd_error("the replay failed: %s", box_strerror(rv));
        goto out;
    }
    for (size_t i = 0; i < res.rs_n; i++)
        if ((rv = tally_add(&t, &res.rs_items[i])) != BOX_OK) {
            box_cmd_error("out of memory");
            goto out;
        }
    if (t.t_ngroups > 1)
        qsort(t.t_groups, t.t_ngroups, sizeof *t.t_groups, group_cmp);
    nwarn = diff_warnings(old, new_, h != NULL, torn, warn);
    torn = NULL; // warn owns it now
    rv = a.da_json ? print_json(&t, (const char *const *)warn, nwarn, &out)
                   : print_text(&t, (const char *const *)warn, nwarn, &out);
    if (rv != BOX_OK) {
        box_cmd_error("cannot print the result: %s", box_strerror(rv));
        goto out;
    }
    fwrite(out.b_data, 1, out.b_len, stdout);
    if (fflush(stdout) != 0)
        goto out;
    status = t.t_n[PDP_DIFF_CHANGED] + t.t_n[PDP_DIFF_UNKNOWN] > 0
                 ? DIFF_CHANGES
                 : DIFF_SAME;
out:
    for (size_t i = 0; i < nwarn; i++)
        box_free(warn[i]);
    box_free(torn);
    box_free(t.t_groups);
    pdp_diff_result_free(&res);
    pdp_hist_free(h);
    pdp_hstore_rules_free(&rules);
    box_free(since);
    pdp_dlread_free(&log);
    pdp_policy_free(old);
    pdp_policy_free(new_);
    pdp_evschema_free(es);
    box_buf_reset(&msg);
    box_buf_reset(&out);
    return status;
}
