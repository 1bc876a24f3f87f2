/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jq's program as the box compiles it. libjq 1.6 reaches past the shell's
 * kernel in four places, each closed here:
 * - import/include open module files itself (and with no library path
 *   set, an import asserts and aborts the process): refused before
 *   compiling;
 * - modulemeta opens module files at run time: replaced by a definition
 *   that finds no module (there are none in the box);
 * - $ENV and env read the service's own environ: bound to the shell's
 *   exported variables by a prefix, as `$x as $ENV | def env: $ENV; …`;
 * - every compile imports ~/.jq of the service's home ($HOME, else the
 *   passwd entry) when it exists: jq is refused while one exists there.
 * stderr, input_filename and input_line_number are replaced too: libjq's
 * own write the service's stderr and read its own input state.
 */
#include <ctype.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "cmd_jq.h"

#define JQ_NEST_MAX 256 // strings and interpolations the scan follows

// No newline: $__loc__ and the lines of messages stay the user's.
static const char jq_prefix[] =
    "$" JQ_ENV_ARG " as $ENV | "
    "def env: $ENV; "
    "def modulemeta: if type == \"string\" then error(\"module not found: "
    "\\(.)\") else error(\"modulemeta input module name must be a string\") "
    "end; "
    "def stderr: ([\"\\u0001jq-box:stderr\", .] | debug | empty), .; "
    "def input_filename: ([\"\\u0001jq-box:query\", 0] | debug | empty), "
    "input; "
    "def input_line_number: ([\"\\u0001jq-box:query\", 1] | debug | empty), "
    "input; ";

static bool
ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/*
 * Whether text holds the word import or include where jq's lexer reads
 * a keyword: outside strings and comments, not a field (.import), a
 * variable ($import), part of a longer name (a::import) or an object key
 * ({import: 1}). A comment ends at \r as well as \n and too-deep nesting
 * counts as found, so a doubt refuses rather than lets a module load.
 */
static bool
prog_has_import(const char *s)
{
    bool str[JQ_NEST_MAX]; // frame kind: string, else code
    int paren[JQ_NEST_MAX];
    int top = 0;
    str[0] = false;
    paren[0] = 0;
    for (size_t i = 0; s[i] != '\0';) {
        char c = s[i];
        if (str[top]) {
            if (c == '\\' && s[i + 1] == '(') {
                if (++top >= JQ_NEST_MAX)
                    return true;
                str[top] = false;
                paren[top] = 0;
                i += 2;
            } else if (c == '\\') {
                i += s[i + 1] != '\0' ? 2 : 1;
            } else {
                if (c == '"')
                    top--;
                i++;
            }
            continue;
        }
        if (c == '#') {
            while (s[i] != '\0' && s[i] != '\n' && s[i] != '\r')
                i++;
        } else if (c == '"') {
            if (++top >= JQ_NEST_MAX)
                return true;
            str[top] = true;
            i++;
        } else if (c == '(') {
            paren[top]++;
            i++;
        } else if (c == ')') {
            if (paren[top] == 0 && top > 0)
                top--; // the end of an interpolation: back in its string
            else if (paren[top] > 0)
                paren[top]--;
            i++;
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t b = i;
            while (ident_char(s[i]) ||
                   (s[i] == ':' && s[i + 1] == ':' && ident_char(s[i + 2])))
                i += s[i] == ':' ? 2 : 1;
            size_t n = i - b;
            bool kw = (n == 6 && memcmp(s + b, "import", 6) == 0) ||
                      (n == 7 && memcmp(s + b, "include", 7) == 0);
            if (!kw || (b > 0 && (s[b - 1] == '.' || s[b - 1] == '$')))
                continue;
            size_t k = i;
            while (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r')
                k++;
            if (s[k] == ':' && s[k + 1] != ':')
                continue; // an object key
            return true;
        } else {
            i++;
        }
    }
    return false;
}

int
jq_prog_check(sh_cmd_run *r, const char *text)
{
    if (!prog_has_import(text))
        return 0;
    sh_errf(r->cr_cx, "jq: error: import and include are not available in "
                      "the box (libjq would read module files outside the "
                      "shell's kernel)");
    sh_errf(r->cr_cx, "jq: 1 compile error");
    return 3;
}

char *
jq_prog_wrap(const char *text)
{
    return box_asprintf("%s%s", jq_prefix, text);
}

jv
jq_prog_env(sh_ctx *cx)
{
    const sh_state *st = cx->cx_st;
    jv env = jv_object();
    for (size_t i = 0; i < st->st_nvars; i++) {
        const sh_var *v = &st->st_vars[i];
        if (!(v->v_flags & SH_VAR_EXPORT) || v->v_value == NULL ||
            v->v_arr != NULL)
            continue;
        env = jv_object_set(env, jv_string(v->v_name), jv_string(v->v_value));
    }
    return env;
}

/* Whether path exists on the service's own filesystem (libjq's test). */
static bool
home_has(const char *home, const char *tail)
{
    char *p = box_asprintf("%s%s", home, tail);
    struct stat sb;
    // Not a shell file effect: the service's own home, which libjq stats
    // on every compile. A directory there is harmless (libjq's read of it
    // fails, and the import is optional).
    bool yes = p == NULL || (stat(p, &sb) == 0 && !S_ISDIR(sb.st_mode));
    box_free(p);
    return yes;
}

int
jq_prog_home_check(sh_cmd_run *r)
{
    const char *home = getenv("HOME");
    struct passwd pw, *pwp = NULL;
    char pwbuf[1024];
    if (home == NULL &&
        getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &pwp) == 0 &&
        pwp != NULL)
        home = pwp->pw_dir;
    if (home == NULL)
        return 0;
    // find_lib's names for the library "" in the search path [home].
    if (!home_has(home, "/.jq") && !home_has(home, "//jq/main.jq"))
        return 0;
    return sh_cmd_err(r->cr_cx, "jq", 2,
                      "error: refused: libjq would load %s/.jq of the box "
                      "service's own home outside the shell's kernel",
                      home);
}
