/* SPDX-License-Identifier: Apache-2.0 */
/* A function's text as bash 5.2 reprints it (type, set, declare -f). */
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_ansic.h"
#include "sh_internal.h"

/*
 * bash does not keep a function's source: it prints the parsed command
 * back (print_cmd.c), with its own layout. This follows that code, on
 * the box's tree: each command of a list on its own line, indented four
 * per level, ";" between them, a compound's body ended by ";" before
 * its closing word (semicolon() there, which adds none after a newline
 * or "&"), words as typed. Here-document bodies wait until the command
 * line (and the connector after it) is out, as bash's deferred ones do.
 */

#define PR_INDENT 4
#define PR_MAX_HEREDOCS 16

typedef struct pr {
    box_buf *p_out;
    box_err p_err;
    int p_ind;  // columns of indentation
    int p_skip; // bash's skip_this_indent: the next command is inline
    bool p_was_heredoc;
    int p_conn; // inside a connection (&& || | or a list): defer bodies
    const sh_redir *p_hd[PR_MAX_HEREDOCS];
    int p_nhd;
} pr;

static void
put(pr *p, const char *s, size_t n)
{
    if (p->p_err == BOX_OK)
        p->p_err = box_buf_append(p->p_out, s, n);
}

static void
puts_(pr *p, const char *s)
{
    put(p, s, strlen(s));
}

static void
indent(pr *p)
{
    for (int i = 0; i < p->p_ind; i++)
        put(p, " ", 1);
}

/* bash's newline(): a line break, the indentation, then s. */
static void
newline(pr *p, const char *s)
{
    puts_(p, "\n");
    indent(p);
    puts_(p, s);
}

/* bash's semicolon(): none after a newline or "&". */
static void
semicolon(pr *p)
{
    size_t n = p->p_out->b_len;
    char last = n > 0 ? p->p_out->b_data[n - 1] : '\0';
    if (last != '\n' && last != '&')
        puts_(p, ";");
}

/* $'…' as bash keeps it after parsing: the decoded text in '…'. */
static size_t
ansic_word(pr *p, const char *s, size_t n)
{
    size_t e = 2;
    while (e < n && s[e] != '\'')
        e += s[e] == '\\' && e + 1 < n ? 2 : 1;
    char *dec = box_alloc(e + 1);
    if (dec == NULL) {
        p->p_err = BOX_ENOMEM;
        return n;
    }
    size_t k = sh_ansic_decode(s + 2, e - 2, dec);
    puts_(p, "'");
    for (size_t i = 0; i < k; i++)
        put(p, dec[i] == '\'' ? "'\\''" : dec + i, dec[i] == '\'' ? 4 : 1);
    puts_(p, "'");
    box_free(dec);
    return e < n ? e + 1 : n;
}

/*
 * A word as typed, except that bash has already turned $'…' into '…'
 * (decoded) and $"…" into "…" when it prints: so the spelling is
 * walked with its quoting to find those outside other quotes.
 */
static void
word(pr *p, const sh_word *w)
{
    const char *s = w->w_raw;
    size_t n = w->w_rawlen, i = 0, from = 0;
    char q = 0; // the quote we are in
    while (i < n) {
        char c = s[i];
        if (q == '\'') {
            q = c == '\'' ? 0 : q;
            i++;
        } else if (c == '\\') {
            i += 2;
        } else if (q == '"') {
            q = c == '"' ? 0 : q;
            i++;
        } else if (c == '\'' || c == '"') {
            q = c;
            i++;
        } else if (c == '$' && i + 1 < n &&
                   (s[i + 1] == '\'' || s[i + 1] == '"')) {
            put(p, s + from, i - from);
            if (s[i + 1] == '"') {
                q = '"';
                i += 2;
                from = i - 1; // keep the quote, drop the $
                continue;
            }
            i += ansic_word(p, s + i, n - i);
            from = i;
        } else {
            i++;
        }
    }
    put(p, s + from, (i < n ? i : n) - from);
}

static void assign(pr *p, const sh_assign *a);

static void
words(pr *p, const sh_word *w, const char *sep)
{
    for (; w != NULL; w = w->w_next) {
        // `local a=(1 2)`: the word's spelling stops at the `=`.
        if (w->w_assign != NULL && w->w_assign->a_compound)
            assign(p, w->w_assign);
        else
            word(p, w);
        if (w->w_next != NULL)
            puts_(p, sep);
    }
}

/* The bodies of the here-documents waiting, each after a line break. */
static void
heredoc_bodies(pr *p)
{
    for (int i = 0; i < p->p_nhd; i++) {
        const sh_redir *r = p->p_hd[i];
        puts_(p, "\n");
        if (r->r_body != NULL)
            word(p, r->r_body);
        puts_(p, r->r_delim != NULL ? r->r_delim : "");
        puts_(p, "\n");
    }
    p->p_was_heredoc = p->p_nhd > 0;
    p->p_nhd = 0;
}

static bool
all_digits(const sh_word *w)
{
    if (w->w_rawlen == 0)
        return false;
    for (size_t i = 0; i < w->w_rawlen; i++)
        if (w->w_raw[i] < '0' || w->w_raw[i] > '9')
            return false;
    return true;
}

/* A connector (" |", " &", " && ") and the here-document bodies
 * waiting for it: bash puts a blank after those bodies. */
static void
connector(pr *p, const char *op)
{
    puts_(p, op);
    if (p->p_nhd > 0) {
        heredoc_bodies(p);
        puts_(p, " ");
    }
}

/* One redirection as print_redirection writes it. */
static void
redir(pr *p, const sh_redir *r)
{
    static const struct {
        const char *op;
        int fd; // the default descriptor: not printed
    } ops[SH_R_COUNT] = {
        [SH_R_IN] = {"< ", 0},
        [SH_R_OUT] = {"> ", 1},
        [SH_R_APPEND] = {">> ", 1},
        [SH_R_CLOBBER] = {">| ", 1},
        [SH_R_RDWR] = {"<> ", 0},
        [SH_R_DUPIN] = {"<&", 0},
        [SH_R_DUPOUT] = {">&", 1},
        [SH_R_HEREDOC] = {"<<", 0},
        [SH_R_HEREDOC_STRIP] = {"<<-", 0},
        [SH_R_BOTH] = {"&> ", -1},
        [SH_R_BOTH_APPEND] = {"&>> ", -1},
        [SH_R_HERESTR] = {"<<< ", 0},
    };
    int fd = r->r_fd >= 0 ? r->r_fd : ops[r->r_kind].fd;
    bool dup = r->r_kind == SH_R_DUPIN || r->r_kind == SH_R_DUPOUT;
    const sh_word *t = r->r_target;
    // bash turns `n<&-` / `n>&-` into a close it prints as n>&-, and
    // prints the descriptor of a duplication to a number always.
    bool close = dup && t->w_rawlen == 1 && t->w_raw[0] == '-';
    if (fd >= 0 &&
        (fd != ops[r->r_kind].fd || (dup && (close || all_digits(t)))))
        p->p_err =
            p->p_err == BOX_OK ? box_buf_printf(p->p_out, "%d", fd) : p->p_err;
    puts_(p, close ? ">&" : ops[r->r_kind].op);
    word(p, t);
    if ((r->r_kind == SH_R_HEREDOC || r->r_kind == SH_R_HEREDOC_STRIP) &&
        p->p_nhd < PR_MAX_HEREDOCS)
        p->p_hd[p->p_nhd++] = r;
}

static void
redirs(pr *p, const sh_redir *r)
{
    for (; r != NULL; r = r->r_next) {
        redir(p, r);
        if (r->r_next != NULL)
            puts_(p, " ");
    }
    if (p->p_nhd > 0 && p->p_conn == 0)
        heredoc_bodies(p);
}

static void
assign(pr *p, const sh_assign *a)
{
    put(p, a->a_name, a->a_namelen);
    if (a->a_sub != NULL) {
        puts_(p, "[");
        word(p, a->a_sub);
        puts_(p, "]");
    }
    puts_(p, a->a_append ? "+=" : "=");
    if (!a->a_compound) {
        word(p, a->a_value);
        return;
    }
    puts_(p, "(");
    for (const sh_aelem *e = a->a_elems; e != NULL; e = e->ae_next) {
        if (e->ae_sub != NULL) {
            puts_(p, "[");
            word(p, e->ae_sub);
            puts_(p, e->ae_append ? "]+=" : "]=");
        }
        word(p, e->ae_value);
        if (e->ae_next != NULL)
            puts_(p, " ");
    }
    puts_(p, ")");
}

static void node(pr *p, const sh_node *n);

static bool
empty(const sh_node *n)
{
    return n == NULL || (n->n_kind == SH_N_LIST && n->u.list.items == NULL);
}

/* A compound's body, one level in. */
static void
body(pr *p, const sh_node *n)
{
    p->p_ind += PR_INDENT;
    node(p, n);
    if (p->p_nhd > 0)
        heredoc_bodies(p);
    p->p_ind -= PR_INDENT;
}

static void
list(pr *p, const sh_node *n)
{
    p->p_conn++;
    p->p_skip++;
    for (const sh_node *it = n->u.list.items; it != NULL; it = it->n_next) {
        node(p, it);
        if (it->n_bg) {
            connector(p, " &");
            if (it->n_next != NULL) {
                puts_(p, " ");
                p->p_skip++;
            }
        } else if (it->n_next != NULL) {
            if (p->p_nhd > 0)
                heredoc_bodies(p);
            else if (!p->p_was_heredoc)
                puts_(p, ";");
            p->p_was_heredoc = false;
            puts_(p, "\n"); // inside a function: one command a line
        }
    }
    p->p_conn--;
}

/* a && b, a || b, a | b: the connector, then the rest inline. */
static void
connect(pr *p, const sh_node *l, const char *op, const sh_node *r)
{
    p->p_conn++;
    p->p_skip++;
    node(p, l);
    connector(p, op);
    p->p_skip++;
    node(p, r);
    p->p_conn--;
}

static void
pipeline(pr *p, const sh_node *n)
{
    if (n->u.pipe.bang)
        puts_(p, "! ");
    p->p_conn++;
    p->p_skip++;
    for (const sh_node *s = n->u.pipe.stages; s != NULL; s = s->n_next) {
        node(p, s);
        if (s->n_next != NULL) {
            connector(p, " |");
            puts_(p, " ");
            p->p_skip++;
        }
    }
    p->p_conn--;
}

static void
simple(pr *p, const sh_node *n)
{
    bool any = false;
    for (const sh_assign *a = n->u.simple.assigns; a != NULL; a = a->a_next) {
        if (any)
            puts_(p, " ");
        assign(p, a);
        any = true;
    }
    if (n->u.simple.words != NULL) {
        if (any)
            puts_(p, " ");
        words(p, n->u.simple.words, " ");
    }
}

static void
cond(pr *p, const sh_cond *c)
{
    switch (c->c_kind) {
    case SH_C_AND:
    case SH_C_OR:
        cond(p, c->c_l);
        puts_(p, c->c_kind == SH_C_AND ? " && " : " || ");
        cond(p, c->c_r);
        return;
    case SH_C_NOT:
        puts_(p, "! ");
        cond(p, c->c_l);
        return;
    case SH_C_GROUP:
        puts_(p, "( ");
        cond(p, c->c_l);
        puts_(p, " )");
        return;
    case SH_C_UNARY:
        puts_(p, sh_cond_op_name(c->c_op));
        puts_(p, " ");
        word(p, c->c_w1);
        return;
    default:
        word(p, c->c_w1);
        puts_(p, " ");
        puts_(p, sh_cond_op_name(c->c_op));
        puts_(p, " ");
        word(p, c->c_w2);
        return;
    }
}

/* One part of a for (( ; ; )) header, blanks around it dropped. */
static void
arith_part(pr *p, const sh_word *w)
{
    if (w == NULL) {
        puts_(p, "1"); // bash fills an empty part with 1 (true)
        return;
    }
    size_t a = 0, b = w->w_rawlen;
    while (a < b && (w->w_raw[a] == ' ' || w->w_raw[a] == '\t'))
        a++;
    while (b > a && (w->w_raw[b - 1] == ' ' || w->w_raw[b - 1] == '\t'))
        b--;
    put(p, w->w_raw + a, b - a);
}

static void func_def(pr *p, const char *name, size_t len, const sh_node *b,
                     bool keyword);

static void
loop(pr *p, const char *what, const sh_node *n)
{
    puts_(p, what);
    p->p_skip++;
    node(p, n->u.loop.cond);
    semicolon(p);
    puts_(p, " do\n");
    body(p, n->u.loop.body);
    semicolon(p);
    newline(p, "done");
}

static void
case_(pr *p, const sh_node *n)
{
    static const char *const ends[] = {
        [SH_CT_BREAK] = ";;", [SH_CT_FALL] = ";&", [SH_CT_TEST] = ";;&"};
    puts_(p, "case ");
    word(p, n->u.case_.word);
    puts_(p, " in ");
    p->p_ind += PR_INDENT;
    for (const sh_case_item *ci = n->u.case_.items; ci != NULL;
         ci = ci->ci_next) {
        newline(p, "");
        words(p, ci->ci_pats, " | ");
        puts_(p, ")\n");
        body(p, ci->ci_body);
        newline(p, ends[ci->ci_term]);
    }
    p->p_ind -= PR_INDENT;
    newline(p, "esac");
}

static void
compound(pr *p, const sh_node *n)
{
    switch (n->n_kind) {
    case SH_N_GROUP:
        // A group in a function is printed over several lines.
        puts_(p, "{ \n");
        body(p, n->u.body);
        puts_(p, "\n");
        indent(p);
        puts_(p, "}");
        break;
    case SH_N_SUBSHELL:
        puts_(p, "( ");
        p->p_skip++;
        node(p, n->u.body);
        if (p->p_nhd > 0)
            heredoc_bodies(p);
        puts_(p, " )");
        break;
    case SH_N_IF:
        puts_(p, "if ");
        p->p_skip++;
        node(p, n->u.if_.cond);
        semicolon(p);
        puts_(p, " then\n");
        body(p, n->u.if_.then);
        if (n->u.if_.else_ != NULL) {
            semicolon(p);
            newline(p, "else\n");
            body(p, n->u.if_.else_);
        }
        semicolon(p);
        newline(p, "fi");
        break;
    case SH_N_WHILE:
        loop(p, "while ", n);
        break;
    case SH_N_UNTIL:
        loop(p, "until ", n);
        break;
    case SH_N_FOR:
        puts_(p, "for ");
        put(p, n->u.for_.var, n->u.for_.varlen);
        puts_(p, " in ");
        if (n->u.for_.has_in)
            words(p, n->u.for_.words, " ");
        else
            puts_(p, "\"$@\"");
        puts_(p, ";");
        newline(p, "do\n");
        body(p, n->u.for_.body);
        semicolon(p);
        newline(p, "done");
        break;
    case SH_N_FOR_ARITH:
        puts_(p, "for ((");
        arith_part(p, n->u.for_arith.init);
        puts_(p, "; ");
        arith_part(p, n->u.for_arith.cond);
        puts_(p, "; ");
        arith_part(p, n->u.for_arith.step);
        puts_(p, "))");
        newline(p, "do\n");
        body(p, n->u.for_arith.body);
        semicolon(p);
        newline(p, "done");
        break;
    case SH_N_CASE:
        case_(p, n);
        break;
    case SH_N_COND:
        puts_(p, "[[ ");
        cond(p, n->u.cond);
        puts_(p, " ]]");
        break;
    case SH_N_ARITH:
        word(p, n->u.arith); // its spelling has the parentheses
        break;
    default:
        break;
    }
}

static void
node(pr *p, const sh_node *n)
{
    if (empty(n))
        return;
    if (n->n_kind == SH_N_LIST && n->u.list.items->n_next == NULL &&
        !n->u.list.items->n_bg) {
        node(p, n->u.list.items); // one command: no list around it
        return;
    }
    if (n->n_kind == SH_N_PIPE && n->u.pipe.n == 1 && !n->u.pipe.bang) {
        node(p, n->u.pipe.stages);
        return;
    }
    if (p->p_skip > 0)
        p->p_skip--;
    else
        indent(p);
    switch (n->n_kind) {
    case SH_N_LIST:
        list(p, n);
        return;
    case SH_N_AND:
    case SH_N_OR:
        connect(p, n->u.bin.l, n->n_kind == SH_N_AND ? " && " : " || ",
                n->u.bin.r);
        return;
    case SH_N_PIPE:
        pipeline(p, n);
        return;
    case SH_N_TIME:
        puts_(p, n->u.time.posix ? "time -p " : "time ");
        p->p_skip++;
        node(p, n->u.time.cmd);
        return;
    case SH_N_FUNC:
        func_def(p, n->u.func.name, n->u.func.namelen, n->u.func.body, true);
        return;
    case SH_N_SIMPLE:
        simple(p, n);
        if (n->n_redirs != NULL && (n->u.simple.words || n->u.simple.assigns))
            puts_(p, " ");
        break;
    default:
        compound(p, n);
        if (n->n_redirs != NULL)
            puts_(p, " ");
        break;
    }
    redirs(p, n->n_redirs);
}

/*
 * NAME () then the body in braces: a group's own commands, anything
 * else as the one command inside them; a group's redirections follow
 * the closing brace. A definition nested in a function starts with
 * `function`, as bash (not in POSIX mode) prints it.
 */
static void
func_def(pr *p, const char *name, size_t len, const sh_node *b, bool keyword)
{
    if (keyword)
        puts_(p, "function ");
    put(p, name, len);
    puts_(p, " () \n");
    indent(p);
    puts_(p, "{ \n");
    int conn = p->p_conn;
    p->p_conn = 0;
    p->p_ind += PR_INDENT;
    node(p, b->n_kind == SH_N_GROUP ? b->u.body : b);
    if (p->p_nhd > 0)
        heredoc_bodies(p);
    p->p_ind -= PR_INDENT;
    p->p_conn = conn;
    if (b->n_kind == SH_N_GROUP && b->n_redirs != NULL) {
        newline(p, "} ");
        redirs(p, b->n_redirs);
    } else {
        newline(p, "}");
    }
}

box_err
sh_print_func(box_buf *out, const char *name, const sh_node *b)
{
    pr p = {.p_out = out, .p_err = BOX_OK};
    func_def(&p, name, strlen(name), b, false);
    return p.p_err;
}

box_err
sh_print_node(box_buf *out, const sh_node *n)
{
    pr p = {.p_out = out, .p_err = BOX_OK};
    node(&p, n);
    if (p.p_nhd > 0)
        heredoc_bodies(&p);
    return p.p_err;
}
