/* SPDX-License-Identifier: Apache-2.0 */
/* The host-exec file table and the permit check that evaluates it. */
#include "pdp_hostexec.h"

#include <stdbool.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "box_escape.h"
#include "pdp_decide.h"

const pdp_hostexec_file pdp_hostexec_files[] = {
    {".git", ".git",
     "git, in this directory: a `.git` file (`gitdir: …`) or a planted "
     "directory brings its own config and hooks"},
    {".git/config", ".git/config",
     "git: core.fsmonitor, core.pager, core.sshCommand, aliases and filters "
     "run on the next command"},
    {".git/hooks/*", ".git/hooks/pre-commit",
     "git: hooks run on commit, checkout, merge and push"},
    {".git/commondir", ".git/commondir",
     "git: points the repository at another directory's config and hooks"},
    {".git/config.worktree", ".git/config.worktree",
     "git: per-worktree configuration, read like .git/config"},
    {".git/modules/*", ".git/modules/sub/config",
     "git submodule: each submodule's own config and hooks"},
    {".git/worktrees/*", ".git/worktrees/wt/commondir",
     "git worktree: each linked worktree's gitdir, commondir and config"},
    {".gitmodules", ".gitmodules",
     "git submodule: the repositories it names are fetched and checked out"},
    {".gitconfig", ".gitconfig", "git: the user's configuration, in a home"},
    {".config/git/config", ".config/git/config",
     "git: the user's configuration (XDG), in a home"},
    {".bashrc", ".bashrc", "bash, at every interactive start"},
    {".bash_profile", ".bash_profile", "bash, at login"},
    {".bash_login", ".bash_login", "bash, at login"},
    {".bash_logout", ".bash_logout", "bash, at logout"},
    {".profile", ".profile", "sh, dash and bash, at login"},
    {".zshrc", ".zshrc", "zsh, at every interactive start"},
    {".zshenv", ".zshenv", "zsh, at every start, scripts included"},
    {".zprofile", ".zprofile", "zsh, at login"},
    {".zlogin", ".zlogin", "zsh, at login"},
    {".zlogout", ".zlogout", "zsh, at logout"},
    {".envrc", ".envrc", "direnv, on entering the directory"},
    {".vscode/tasks.json", ".vscode/tasks.json",
     "VS Code: tasks, some run when the folder opens"},
    {".vscode/settings.json", ".vscode/settings.json",
     "VS Code: settings naming programs (terminal, interpreters, git)"},
    {".vscode/launch.json", ".vscode/launch.json",
     "VS Code: launch configurations and their pre-launch tasks"},
    {".devcontainer/devcontainer.json", ".devcontainer/devcontainer.json",
     "VS Code and the devcontainer CLI: initializeCommand runs on the host"},
};
const size_t pdp_hostexec_nfiles =
    sizeof(pdp_hostexec_files) / sizeof(pdp_hostexec_files[0]);

/* Paths listed in one warning before "and N more". */
#define HX_SHOWN 4
/* Memory for one request's values. */
#define HX_ARENA_MAX (1u << 20)

/* One request shape: the action, its operation enum and value. */
typedef struct hx_op {
    const char *ho_action;
    const char *ho_type;
    const char *ho_op;
} hx_op;

/* ORDER HX_OP: the first is asked of files only, the rest of every path. */
static const hx_op hx_ops[] = {
    {"fs:write", "Box::FsWriteOperation", "write_content"},
    {"fs:write", "Box::FsWriteOperation", "symlink"},
    {"fs:move", "Box::FsMoveOperation", "rename"},
};

/* An owned list of distinct strings. */
typedef struct hx_list {
    char **hl_items;
    size_t hl_n, hl_cap;
} hx_list;

static box_err
hx_list_add(hx_list *l, const char *s, size_t n)
{
    for (size_t i = 0; i < l->hl_n; i++)
        if (strlen(l->hl_items[i]) == n && memcmp(l->hl_items[i], s, n) == 0)
            return BOX_OK;
    if (l->hl_n == l->hl_cap) {
        size_t cap = l->hl_cap ? l->hl_cap * 2 : 8;
        char **v = box_realloc(l->hl_items, cap * sizeof *v);
        if (v == NULL)
            return BOX_ENOMEM;
        l->hl_items = v;
        l->hl_cap = cap;
    }
    if ((l->hl_items[l->hl_n] = box_strndup(s, n)) == NULL)
        return BOX_ENOMEM;
    l->hl_n++;
    return BOX_OK;
}

static void
hx_list_free(hx_list *l)
{
    for (size_t i = 0; i < l->hl_n; i++)
        box_free(l->hl_items[i]);
    box_free(l->hl_items);
    memset(l, 0, sizeof *l);
}

/* ---- roots: the directories the policy's fs rules name ---- */

/* True when the rule's action scope can name an fs action. */
static bool
hx_rule_is_fs(const pdp_rule *r)
{
    const pdp_scope *sc = &r->r_action;
    if (sc->sc_op == PDP_SCOPE_ANY)
        return true;
    for (uint32_t i = 0; i < sc->sc_n; i++) {
        size_t n;
        const char *id = pdp_value_entity_id(sc->sc_ents[i], &n);
        if (n >= 3 && memcmp(id, "fs:", 3) == 0)
            return true;
    }
    return false;
}

/* context.input.path */
static bool
hx_is_input_path(const pdp_expr *e)
{
    if (e->x_kind != PDP_X_ATTR || strcmp(e->u.attr.name.s, "path") != 0)
        return false;
    const pdp_expr *in = e->u.attr.obj;
    return in->x_kind == PDP_X_ATTR &&
           strcmp(in->u.attr.name.s, "input") == 0 &&
           in->u.attr.obj->x_kind == PDP_X_VAR &&
           in->u.attr.obj->u.var == PDP_VAR_CONTEXT;
}

/* s[0..n) as a root: without trailing slashes ("/" stays "/"). */
static box_err
hx_add_root(hx_list *roots, const char *s, size_t n)
{
    while (n > 1 && s[n - 1] == '/')
        n--;
    return n == 0 ? BOX_OK : hx_list_add(roots, s, n);
}

/* A path a rule compares with: a root itself, and when it names one of
 * the table's paths (or a directory above one), the root it sits under,
 * so a permit of exactly `~/p/.envrc` is asked about `~/p/.envrc`. */
static box_err
hx_add_lit(hx_list *roots, const pdp_expr *e)
{
    if (e->x_kind != PDP_X_LIT ||
        pdp_value_kind_of(e->x_const) != PDP_VAL_STRING)
        return BOX_OK;
    size_t n;
    const char *s = pdp_value_str(e->x_const, &n);
    box_err rv = hx_add_root(roots, s, n);
    for (size_t f = 0; f < pdp_hostexec_nfiles && rv == BOX_OK; f++) {
        const char *probe = pdp_hostexec_files[f].hf_probe;
        size_t plen = strlen(probe);
        for (size_t end = 1; end <= plen && rv == BOX_OK; end++) {
            if (end < plen && probe[end] != '/')
                continue;
            if (n > end && s[n - end - 1] == '/' &&
                memcmp(s + n - end, probe, end) == 0)
                rv = hx_add_root(roots, s, n - end - 1 > 0 ? n - end - 1 : 1);
        }
    }
    return rv;
}

/* Every root e names; the walk follows every child (the parser caps the
 * depth). */
static box_err
hx_walk(hx_list *roots, const pdp_expr *e)
{
    box_err rv = BOX_OK;
    switch (e->x_kind) {
    case PDP_X_LIT:
    case PDP_X_VAR:
    case PDP_X_TEMPORAL: // reads no input path the way these judge
    case PDP_X_COUNT:
        return BOX_OK;
    case PDP_X_NOT:
    case PDP_X_NEG:
        return hx_walk(roots, e->u.un.arg);
    case PDP_X_AND:
    case PDP_X_OR:
    case PDP_X_SET:
        for (uint32_t i = 0; i < e->u.list.n && rv == BOX_OK; i++)
            rv = hx_walk(roots, e->u.list.items[i]);
        return rv;
    case PDP_X_HAS:
        return hx_walk(roots, e->u.has.obj);
    case PDP_X_ATTR:
        return hx_walk(roots, e->u.attr.obj);
    case PDP_X_LIKE: {
        const pdp_pattern *p = &e->u.like.pat;
        if (hx_is_input_path(e->u.like.obj)) {
            size_t k = 0;
            while (k < p->len && !p->wild[k])
                k++;
            // Before the first wildcard: "X/" names X; "X/ab" names X/ab
            // and X (X/ab/.git and X/abrc both match "X/ab" + wildcard).
            size_t dir = k;
            while (dir > 0 && p->bytes[dir - 1] != '/')
                dir--;
            if (k < p->len &&
                ((rv = hx_add_root(roots, p->bytes, k)) != BOX_OK ||
                 (dir > 0 && dir < k &&
                  (rv = hx_add_root(roots, p->bytes, dir)) != BOX_OK)))
                return rv;
        }
        return hx_walk(roots, e->u.like.obj);
    }
    case PDP_X_IF:
        if ((rv = hx_walk(roots, e->u.cond.c)) == BOX_OK &&
            (rv = hx_walk(roots, e->u.cond.t)) == BOX_OK)
            rv = hx_walk(roots, e->u.cond.e);
        return rv;
    case PDP_X_RECORD:
        for (uint32_t i = 0; i < e->u.rec.n && rv == BOX_OK; i++)
            rv = hx_walk(roots, e->u.rec.vals[i]);
        return rv;
    case PDP_X_METHOD:
        if (e->u.call.m == PDP_M_CONTAINS && e->u.call.n == 1 &&
            e->u.call.recv->x_kind == PDP_X_SET &&
            hx_is_input_path(e->u.call.args[0])) {
            const pdp_expr *set = e->u.call.recv;
            for (uint32_t i = 0; i < set->u.list.n && rv == BOX_OK; i++)
                rv = hx_add_lit(roots, set->u.list.items[i]);
        }
        if (rv == BOX_OK)
            rv = hx_walk(roots, e->u.call.recv);
        for (uint32_t i = 0; i < e->u.call.n && rv == BOX_OK; i++)
            rv = hx_walk(roots, e->u.call.args[i]);
        return rv;
    case PDP_X_CALL:
        for (uint32_t i = 0; i < e->u.call.n && rv == BOX_OK; i++)
            rv = hx_walk(roots, e->u.call.args[i]);
        return rv;
    case PDP_X_IS:
        rv = hx_walk(roots, e->u.is.obj);
        if (rv == BOX_OK && e->u.is.in != NULL)
            rv = hx_walk(roots, e->u.is.in);
        return rv;
    case PDP_X_EQ:
    case PDP_X_NE:
        if (hx_is_input_path(e->u.bin.l))
            rv = hx_add_lit(roots, e->u.bin.r);
        else if (hx_is_input_path(e->u.bin.r))
            rv = hx_add_lit(roots, e->u.bin.l);
        break;
    default:
        break;
    }
    if (rv == BOX_OK)
        rv = hx_walk(roots, e->u.bin.l);
    if (rv == BOX_OK)
        rv = hx_walk(roots, e->u.bin.r);
    return rv;
}

static box_err
hx_policy_roots(const pdp_policy_set *set, hx_list *roots)
{
    box_err rv = BOX_OK;
    for (size_t i = 0; i < pdp_policy_rule_count(set) && rv == BOX_OK; i++) {
        const pdp_rule *r = pdp_policy_rule(set, i);
        if (!hx_rule_is_fs(r))
            continue;
        for (uint32_t c = 0; c < r->r_nconds && rv == BOX_OK; c++)
            rv = hx_walk(roots, r->r_conds[c].cd_body);
    }
    return rv;
}

/* ---- asking the policy ---- */

typedef struct hx_check {
    const pdp_policy_set *hc_set;
    box_arena *hc_arena;
    pdp_answer *hc_ans;
    hx_list *hc_hits; // per rule index: the paths it lets through
} hx_check;

/* Asks op about path; on Allow, files path under each permit that
 * decided it. */
static box_err
hx_ask(hx_check *hc, const hx_op *op, const char *path)
{
    box_arena *a = hc->hc_arena;
    pdp_value *p, *act, *res, *opv, *pathv;
    pdp_value *in = NULL, *ctx = NULL;
    box_err rv;
    box_arena_reset(a);
    if ((rv = pdp_value_entity(a, "Box::Agent", 10, "self", 4, &p)) != BOX_OK ||
        (rv = pdp_value_entity(a, "Box::Action", 11, op->ho_action,
                               strlen(op->ho_action), &act)) != BOX_OK ||
        (rv = pdp_value_entity(a, "Box::Resource", 13, "unused", 6, &res)) !=
            BOX_OK ||
        (rv = pdp_value_entity(a, op->ho_type, strlen(op->ho_type), op->ho_op,
                               strlen(op->ho_op), &opv)) != BOX_OK ||
        (rv = pdp_value_string(a, path, strlen(path), &pathv)) != BOX_OK)
        return rv == BOX_EINVAL ? BOX_OK : rv; // not UTF-8: no such request
    if ((in = pdp_value_record_new(a)) == NULL ||
        (ctx = pdp_value_record_new(a)) == NULL)
        return BOX_ENOMEM;
    if ((rv = pdp_value_record_put(a, in, "path", 4, pathv)) != BOX_OK ||
        (rv = pdp_value_record_put(a, in, "operation", 9, opv)) != BOX_OK ||
        (rv = pdp_value_record_put(a, ctx, "input", 5, in)) != BOX_OK)
        return rv;
    pdp_request rq = {.rq_principal = p,
                      .rq_action = act,
                      .rq_resource = res,
                      .rq_context = ctx,
                      .rq_resource_text = path,
                      .rq_resource_len = strlen(path)};
    if ((rv = pdp_decide(hc->hc_set, &rq, hc->hc_ans)) != BOX_OK)
        return rv;
    if (pdp_answer_verdict(hc->hc_ans) != PDP_ALLOW)
        return BOX_OK;
    for (size_t i = 0; i < pdp_answer_determining_count(hc->hc_ans); i++) {
        const pdp_rule *r = pdp_answer_determining(hc->hc_ans, i);
        if ((rv = hx_list_add(&hc->hc_hits[r->r_index], path, strlen(path))) !=
            BOX_OK)
            return rv;
    }
    return BOX_OK;
}

/* The file's own path under root, then each directory between them. */
static box_err
hx_ask_file(hx_check *hc, const char *root, const char *probe)
{
    box_err rv = BOX_OK;
    box_buf path;
    box_buf_init(&path, 1u << 16);
    size_t plen = strlen(probe);
    // "/" + ".git" is "/.git", not "//.git".
    if ((rv = box_buf_puts(&path, strcmp(root, "/") == 0 ? "" : root)) !=
        BOX_OK)
        goto out;
    size_t base = path.b_len;
    for (size_t end = 0; end <= plen && rv == BOX_OK; end++) {
        if (end < plen && probe[end] != '/')
            continue;
        path.b_len = base;
        if ((rv = box_buf_putc(&path, '/')) != BOX_OK ||
            (rv = box_buf_append(&path, probe, end)) != BOX_OK)
            break;
        size_t first = end == plen ? 0 : 1; // directories: no write_content
        for (size_t o = first;
             o < sizeof hx_ops / sizeof hx_ops[0] && rv == BOX_OK; o++)
            rv = hx_ask(hc, &hx_ops[o], path.b_data);
    }
out:
    box_buf_reset(&path);
    return rv;
}

/* ---- the warning ---- */

static box_err
hx_put_rule(box_buf *b, const pdp_rule *r)
{
    const pdp_annot *an = pdp_rule_annot(r, "id");
    if (an == NULL || pdp_str_blank(an->an_value))
        return box_buf_printf(b, "the permit rule with no @id (rule %u)",
                              r->r_index + 1);
    return pdp_rule_put_id(b, an);
}

static box_err
hx_warn(pdp_validate_warnings *w, const pdp_rule *r, const hx_list *hits)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    box_err rv = hx_put_rule(&b, r);
    if (rv == BOX_OK)
        rv = box_buf_printf(&b,
                            " lets the agent write or rename %zu %s a host "
                            "runs code from later: ",
                            hits->hl_n, hits->hl_n == 1 ? "file" : "files");
    for (size_t i = 0; i < hits->hl_n && i < HX_SHOWN && rv == BOX_OK; i++) {
        if (i > 0)
            rv = box_buf_puts(&b, ", ");
        if (rv == BOX_OK)
            rv = box_escape_debug_str(&b, hits->hl_items[i],
                                      strlen(hits->hl_items[i]));
    }
    if (rv == BOX_OK && hits->hl_n > HX_SHOWN)
        rv = box_buf_printf(&b, " and %zu more", hits->hl_n - HX_SHOWN);
    if (rv == BOX_OK)
        rv = box_buf_puts(&b, "; add a forbid on fs:write, fs:delete and "
                              "fs:move for them (see README, \"Files that "
                              "run code later\")");
    if (rv == BOX_OK)
        rv = pdp_validate_warnings_add(w, b.b_data, b.b_len);
    box_buf_reset(&b);
    return rv;
}

box_err
pdp_hostexec_check(const pdp_policy_set *set, const char *const *extra,
                   size_t nextra, pdp_validate_warnings *w)
{
    size_t nrules = pdp_policy_rule_count(set);
    hx_list roots = {0};
    hx_check hc = {.hc_set = set};
    box_err rv = BOX_ENOMEM;
    if ((hc.hc_arena = box_arena_new(HX_ARENA_MAX)) == NULL ||
        (hc.hc_ans = pdp_answer_new()) == NULL ||
        (nrules > 0 &&
         (hc.hc_hits = box_calloc(nrules, sizeof *hc.hc_hits)) == NULL))
        goto out;
    /* The operator home is host-backed in every box (§3.7). */
    if ((rv = hx_list_add(&roots, "~", 1)) != BOX_OK)
        goto out;
    for (size_t i = 0; i < nextra && rv == BOX_OK; i++)
        rv = hx_add_root(&roots, extra[i], strlen(extra[i]));
    if (rv == BOX_OK)
        rv = hx_policy_roots(set, &roots);
    for (size_t r = 0; r < roots.hl_n && rv == BOX_OK; r++)
        for (size_t f = 0; f < pdp_hostexec_nfiles && rv == BOX_OK; f++)
            rv = hx_ask_file(&hc, roots.hl_items[r],
                             pdp_hostexec_files[f].hf_probe);
    for (size_t i = 0; i < nrules && rv == BOX_OK; i++)
        if (hc.hc_hits[i].hl_n > 0)
            rv = hx_warn(w, pdp_policy_rule(set, i), &hc.hc_hits[i]);
out:
    for (size_t i = 0; hc.hc_hits != NULL && i < nrules; i++)
        hx_list_free(&hc.hc_hits[i]);
    box_free(hc.hc_hits);
    hx_list_free(&roots);
    pdp_answer_free(hc.hc_ans);
    box_arena_free(hc.hc_arena);
    return rv;
}
