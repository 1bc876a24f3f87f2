/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench commands`: the box's own text and data commands on 10 MB
 * files through a real box, each figure next to the GNU tool (or jq)
 * running the same command line under /bin/bash in the same run. */
#include "box_bench.h"
#include "box_bench_box.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_cmd.h"

static const char bc_usage[] =
    "usage: box bench commands [--runs N] [--only NAME]\n"
    "\n"
    "Times the box's own commands (grep, sed, awk, sort, uniq, wc, cut, tr,\n"
    "jq, diff) on 10 MB files in the workspace of a real box (the alias, the\n"
    "broker, a worker, box-pdp; permit-everything policy) next to the GNU\n"
    "tools and jq running the same command line under /bin/bash, calls\n"
    "interleaved in one run. Each writes its output to a file in the\n"
    "workspace; a command whose output differs from the GNU tool's gets no\n"
    "figure (the bench says so). Prints the median per call and the ratio;\n"
    "the goal is box / GNU <= 2.\n"
    "\n"
    "  --runs N     measured calls per figure (default 3)\n"
    "  --only NAME  one command line (a name from the table it prints)\n";

#define BC_RUNS_DEFAULT 3
#define BC_RUNS_MAX 100
#define BC_CALL_MS 300000
#define BC_INPUT_BYTES (10u << 20)
#define BC_OUT_BOX "out-box"
#define BC_OUT_GNU "out-gnu"

/* ORDER BC_PEER: the columns. */
enum bc_peer { BC_BOX, BC_GNU, BC_NPEERS };

/* The command lines; text.csv holds "N,userNNN,N,word word"
 * lines, items.json one array of objects. */
static const struct {
    const char *bs_name;
    const char *bs_cmd;
} bc_scripts[] = {
    {"grep-c", "grep -c alpha text.csv"},
    {"grep-E", "grep -E 'alpha|gamma' text.csv"},
    {"sed-s-g", "sed s/user/USER/g text.csv"},
    {"awk-sum", "awk '{s+=$1} END{print s}' text.csv"},
    {"awk-F", "awk -F, '{print $3}' text.csv"},
    {"sort", "sort text.csv"},
    {"sort-n", "sort -n text.csv"},
    {"uniq-c", "uniq -c text.csv"},
    {"wc-l", "wc -l text.csv"},
    {"cut", "cut -d, -f2 text.csv"},
    {"tr", "tr a-z A-Z < text.csv"},
    {"jq-dot", "jq . items.json"},
    {"jq-names", "jq '.[] | .name' items.json"},
    {"diff", "diff text.csv text2.csv"},
};

#define BC_NSCRIPTS (sizeof bc_scripts / sizeof bc_scripts[0])

static const char *const bc_words[] = {"alpha", "beta",  "gamma", "delta",
                                       "omega", "kappa", "sigma", "theta"};

/* Fills a buffer of BC_INPUT_BYTES or a little more with line after line
 * from make(i, buf, room), then writes it to the workspace. */
static bool
bc_write_input(const bb_box *b, const char *name, const char *head,
               const char *tail,
               int (*make)(unsigned i, char *p, size_t room))
{
    size_t cap = BC_INPUT_BYTES + 4096, n = 0;
    char *text = box_alloc(cap), path[128];
    if (text == NULL)
        return bb_fail("out of memory");
    n += (size_t)snprintf(text, cap, "%s", head);
    for (unsigned i = 0; n < BC_INPUT_BYTES; i++)
        n += (size_t)make(i, text + n, cap - n);
    n += (size_t)snprintf(text + n, cap - n, "%s", tail);
    snprintf(path, sizeof path, "%s/%s", b->bb_ws, name);
    bool ok = bb_write_file(path, text, n, 0644);
    box_free(text);
    return ok;
}

static int
bc_csv_line(unsigned i, char *p, size_t room)
{
    return snprintf(p, room, "%u,user%03u,%u,%s %s\n", i, i % 1000,
                    (i * 7919u) % 100000u, bc_words[i % 8],
                    bc_words[(i / 8) % 8]);
}

/* text.csv with a few lines changed (one in 50,000): diff's input. */
static int
bc_csv_line2(unsigned i, char *p, size_t room)
{
    if (i % 50000u == 25000u)
        return snprintf(p, room, "%u,changed\n", i);
    return bc_csv_line(i, p, room);
}

static int
bc_json_item(unsigned i, char *p, size_t room)
{
    return snprintf(p, room,
                    "%s{\"id\":%u,\"name\":\"user%u\",\"score\":%u.%u,"
                    "\"tags\":[\"%s\",\"%s\"]}",
                    i > 0 ? ",\n" : "", i, i % 1000, i % 97, i % 10,
                    bc_words[i % 8], bc_words[(i / 8) % 8]);
}

/* One call of script s by peer p; output to its own file, messages into
 * msg. */
static bool
bc_call(const bb_box *b, enum bc_peer p, size_t s, uint64_t *ns, int *st,
        char *msg, size_t msgn)
{
    char text[512];
    char *argv[4] = {0};
    bb_call_spec cs = {
        .bc_argv = argv, .bc_cwd = b->bb_ws, .bc_timeout_ms = BC_CALL_MS};
    if (p == BC_BOX) {
        snprintf(text, sizeof text, "%s > %s", bc_scripts[s].bs_cmd,
                 BC_OUT_BOX);
        cs.bc_path = b->bb_sh;
        argv[0] = "sh";
    } else {
        // The box's commands work in C.UTF-8; so must the GNU tools.
        snprintf(text, sizeof text, "export LC_ALL=C.UTF-8; %s > %s",
                 bc_scripts[s].bs_cmd, BC_OUT_GNU);
        cs.bc_path = argv[0] = "/bin/bash";
    }
    argv[1] = "-c";
    argv[2] = text;
    return bb_call(&cs, ns, st, msg, msgn);
}

/* The whole of a workspace file (NULL after a message). */
static char *
bc_slurp(const bb_box *b, const char *name, size_t *n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", b->bb_ws, name);
    char *p = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        bb_fail("%s: %s", path, strerror(errno));
        goto out;
    }
    if ((p = box_alloc((size_t)st.st_size + 1)) == NULL) {
        bb_fail("out of memory");
        goto out;
    }
    *n = 0;
    while (*n < (size_t)st.st_size) {
        ssize_t r = read(fd, p + *n, (size_t)st.st_size - *n);
        if (r <= 0)
            break;
        *n += (size_t)r;
    }
out:
    if (fd >= 0)
        close(fd);
    return p;
}

/* The first call of each: both must end with the same status, 0 or 1
 * (diff's "the files differ"), and write the same bytes, else no figure
 * (*same false). False only when the bench itself fails. */
static bool
bc_check(const bb_box *b, size_t s, bool *same)
{
    char msg[BB_OUT_MAX];
    uint64_t ns;
    int st[BC_NPEERS] = {0};
    *same = false;
    const char *name = bc_scripts[s].bs_name;
    for (int p = 0; p < BC_NPEERS; p++) {
        if (!bc_call(b, (enum bc_peer)p, s, &ns, &st[p], msg, sizeof msg))
            return false;
        int code = WIFEXITED(st[p]) ? WEXITSTATUS(st[p]) : -1;
        bool agrees = p == 0 || (WIFEXITED(st[0]) && st[0] == st[p]);
        if (code < 0 || code > 1 || !agrees) {
            msg[strcspn(msg, "\n")] = '\0';
            printf("  %-9s %s failed (status %d): %.160s: no figure\n", name,
                   p == BC_BOX ? "box" : "GNU", code, msg);
            return true;
        }
    }
    size_t nb = 0, ng = 0;
    char *ob = bc_slurp(b, BC_OUT_BOX, &nb), *og = bc_slurp(b, BC_OUT_GNU, &ng);
    bool ok = ob != NULL && og != NULL;
    if (ok && (nb != ng || memcmp(ob, og, nb) != 0)) {
        size_t at = 0;
        while (at < nb && at < ng && ob[at] == og[at])
            at++;
        printf("  %-9s outputs differ (box %zu bytes, GNU %zu; first at byte "
               "%zu): no figure\n",
               name, nb, ng, at);
    } else if (ok) {
        *same = true;
    }
    box_free(ob);
    box_free(og);
    return ok;
}

static int
bc_main(int runs, const char *only)
{
    bb_box box = {0};
    char bindir[4096];
    double med[BC_NSCRIPTS][BC_NPEERS] = {{0}};
    bool ok = false, any = false;

    if (box_cmd_self_dir(bindir, sizeof bindir) == NULL) {
        bb_fail("cannot find this program's directory (box-pdp, "
                "box-shell and box-alias live beside it)");
        goto out;
    }
    for (size_t s = 0; s < BC_NSCRIPTS; s++)
        any |= only == NULL || strcmp(only, bc_scripts[s].bs_name) == 0;
    if (!any) {
        bb_fail("no command line is named %s (box bench commands --help)",
                only);
        goto out;
    }
    if (access("/bin/bash", X_OK) != 0) {
        bb_fail("/bin/bash is not installed: the GNU tools run under it");
        goto out;
    }
    if (!bb_open(&box, bindir) ||
        !bc_write_input(&box, "text.csv", "", "", bc_csv_line) ||
        !bc_write_input(&box, "text2.csv", "", "", bc_csv_line2) ||
        !bc_write_input(&box, "items.json", "[\n", "\n]\n", bc_json_item))
        goto out;
    printf("box bench commands: box %s, workspace %s · %d calls per figure "
           "· inputs of %u MiB\n",
           box.bb_dir, box.bb_ws, runs, BC_INPUT_BYTES >> 20);
    fflush(stdout);

    for (size_t s = 0; s < BC_NSCRIPTS; s++) {
        bool same;
        if (only != NULL && strcmp(only, bc_scripts[s].bs_name) != 0)
            continue;
        if (!bc_check(&box, s, &same))
            goto out;
        if (!same)
            continue;
        // Interleaved: a slow stretch of the machine falls on both alike.
        uint64_t *per[BC_NPEERS] = {0};
        bool fail = false;
        for (int p = 0; p < BC_NPEERS && !fail; p++)
            if ((per[p] = box_calloc((size_t)runs, sizeof *per[p])) == NULL)
                fail = !bb_fail("out of memory");
        for (int i = 0; i < runs && !fail; i++)
            for (int p = 0; p < BC_NPEERS && !fail; p++) {
                int st;
                if (!bc_call(&box, (enum bc_peer)p, s, &per[p][i], &st, NULL,
                             0))
                    fail = true;
            }
        for (int p = 0; p < BC_NPEERS; p++) {
            if (per[p] != NULL && !fail)
                med[s][p] = (double)bb_median_ns(per[p], (size_t)runs) / 1e6;
            box_free(per[p]);
        }
        if (fail)
            goto out;
    }

    printf("\n%-10s %10s %10s %10s  %s\n", "median, ms", "box", "GNU",
           "box / GNU", "command line");
    for (size_t s = 0; s < BC_NSCRIPTS; s++) {
        if (only != NULL && strcmp(only, bc_scripts[s].bs_name) != 0)
            continue;
        printf("%-10s", bc_scripts[s].bs_name);
        for (int p = 0; p < BC_NPEERS; p++)
            med[s][p] > 0 ? printf(" %10.1f", med[s][p])
                          : printf(" %10s", "-");
        if (med[s][BC_BOX] > 0 && med[s][BC_GNU] > 0)
            printf(" %9.2f×", med[s][BC_BOX] / med[s][BC_GNU]);
        else
            printf(" %10s", "-");
        printf("  %s\n", bc_scripts[s].bs_cmd);
    }
    printf("\ngoal: within 2× of GNU for each (box / GNU ≤ 2); the box's "
           "figure includes\nthe call through the alias and a decision per "
           "file it opens\n");
    ok = true;
out:
    if (!bb_close(&box))
        ok = false;
    return ok ? 0 : 1;
}

int
box_bench_commands(int argc, char **argv)
{
    bb_opts o = {.bo_runs = BC_RUNS_DEFAULT};
    int st = bb_parse_opts(argc, argv, bc_usage, BB_OPT_ONLY, BC_RUNS_MAX, &o);
    return st >= 0 ? st : bc_main(o.bo_runs, o.bo_only);
}
