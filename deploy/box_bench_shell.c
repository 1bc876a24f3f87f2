/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench shell`: scripts agents write, through a real box, each
 * figure next to bash, dash, busybox sh and just-bash running the same
 * text in the same run. */
#include "box_bench.h"
#include "box_bench_box.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_cmd.h"

static const char sb_usage[] =
    "usage: box bench shell [--runs N] [--only NAME] [--dir DIR]\n"
    "\n"
    "Times scripts through a real box (bin/sh, a copy of box-alias, to\n"
    "box-shell's broker, a worker, box-pdp; permit-everything policy, warm\n"
    "permit cache) next to the same text run by each peer present, calls\n"
    "interleaved in one run: /bin/bash, /bin/dash and busybox sh (POSIX\n"
    "scripts only), and just-bash (node, after `npm --prefix bench/shell\n"
    "install`). Every peer must print what the box prints, else that\n"
    "script has no figure for it. Prints the median per call and the\n"
    "ratios. The box's decision log (written after a call returns, for\n"
    "the permits its call served from its cache) settles before the\n"
    "next call.\n"
    "\n"
    "  --runs N     measured calls per figure (default 5)\n"
    "  --only NAME  one script (a name from the table it prints)\n"
    "  --dir DIR    the bench/shell directory (for just-bash; default:\n"
    "               found from the working directory or next to this\n"
    "               program)\n";

#define SB_RUNS_DEFAULT 5
#define SB_RUNS_MAX 1000
#define SB_CALL_MS 300000 // just-bash on the big scripts takes seconds
#define SB_LINES 10000    // lines of the while-read input
#define SB_FILES 10000    // files the glob script lists

/* ORDER SB_PEER: the columns, in the order they print. */
enum sb_peer { SB_BOX, SB_BASH, SB_DASH, SB_BUSYBOX, SB_JUST_BASH, SB_NPEERS };

static const struct {
    const char *sp_name;
    bool sp_posix_only; // runs only the scripts marked posix
} sb_peers[SB_NPEERS] = {
    [SB_BOX] = {"box", false},
    [SB_BASH] = {"bash", false},
    [SB_DASH] = {"dash", true},
    [SB_BUSYBOX] = {"busybox", true},
    [SB_JUST_BASH] = {"just-bash", false},
};

/* The scripts: the kinds of work, each printing a check value. */
static const struct {
    const char *ss_name;
    bool ss_posix;
    const char *ss_text;
} sb_scripts[] = {
    {"loop", true, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo $i"},
    {"strings", true,
     "s=; i=0; while [ $i -lt 1000 ]; do s=\"${s}ab\"; t=${s%b}; "
     "u=${t#a}; i=$((i+1)); done; echo ${#s} ${#u}"},
    {"functions", true,
     "f() { r=$(($1 + 1)); }; i=0; while [ $i -lt 1000 ]; do f $i; i=$r; "
     "done; echo $i"},
    {"while-read", true,
     "n=0; while read -r a b; do n=$((n+1)); done < lines; echo $n"},
    {"glob", true, "n=0; for f in g/*; do n=$((n+1)); done; echo $n"},
    {"arrays", false,
     "a=(); for ((i=0; i<2000; i++)); do a+=($i); done; s=0; "
     "for x in \"${a[@]}\"; do s=$((s+x)); done; echo ${#a[@]} $s"},
    {"case-test", true,
     "n=0; for w in a1 b2 c3 d4 e5 f6 g7 h8; do for k in 1 2 3 4 5 6 7 8 9 "
     "10 11 12 13 14 15 16 17 18 19 20; do case $w in [a-d]*) "
     "n=$((n+1));; *) [ -n \"$w\" ] && n=$((n+2));; esac; done; done; "
     "echo $n"},
};

#define SB_NSCRIPTS (sizeof sb_scripts / sizeof sb_scripts[0])

typedef struct sb_run {
    bb_box sr_box;
    char sr_busybox[64];               // busybox's path, or ""
    char sr_just_bash[4400];           // just-bash.js, or ""
    const char *sr_missing[SB_NPEERS]; // why a peer has no column
} sb_run;

/* The workspace: lines (SB_LINES of "a b") and g/ with SB_FILES files. */
static bool
sb_write_inputs(const bb_box *b)
{
    char path[128];
    size_t cap = (size_t)SB_LINES * 16, n = 0;
    char *text = box_alloc(cap);
    if (text == NULL)
        return bb_fail("out of memory");
    for (int i = 1; i <= SB_LINES; i++)
        n += (size_t)snprintf(text + n, cap - n, "w%d x%d\n", i, i % 7);
    snprintf(path, sizeof path, "%s/lines", b->bb_ws);
    bool ok = bb_write_file(path, text, n, 0644);
    box_free(text);
    snprintf(path, sizeof path, "%s/g", b->bb_ws);
    if (!ok || mkdir(path, 0755) != 0)
        return ok ? bb_fail("mkdir %s: %s", path, strerror(errno)) : false;
    for (int i = 0; i < SB_FILES && ok; i++) {
        snprintf(path, sizeof path, "%s/g/f%05d", b->bb_ws, i);
        ok = bb_write_file(path, "", 0, 0644);
    }
    return ok;
}

/* Which peers this machine has; the missing ones are named, not failed. */
static void
sb_find_peers(sb_run *r, const char *dir_opt)
{
    static const char *const busyboxes[] = {"/bin/busybox", "/usr/bin/busybox"};
    char dir[4096];
    if (access("/bin/bash", X_OK) != 0)
        r->sr_missing[SB_BASH] = "/bin/bash is not installed";
    if (access("/bin/dash", X_OK) != 0)
        r->sr_missing[SB_DASH] = "/bin/dash is not installed";
    r->sr_missing[SB_BUSYBOX] = "busybox is not installed (apt-get install "
                                "busybox)";
    for (size_t i = 0; i < sizeof busyboxes / sizeof busyboxes[0]; i++)
        if (access(busyboxes[i], X_OK) == 0) {
            snprintf(r->sr_busybox, sizeof r->sr_busybox, "%s", busyboxes[i]);
            r->sr_missing[SB_BUSYBOX] = NULL;
            break;
        }
    r->sr_missing[SB_JUST_BASH] =
        "just-bash is not installed (needs node and `npm --prefix "
        "bench/shell install`)";
    if (box_bench_find_dir("shell", "package.json", dir_opt, dir, sizeof dir)) {
        snprintf(r->sr_just_bash, sizeof r->sr_just_bash,
                 "%s/node_modules/just-bash/dist/bin/just-bash.js", dir);
        if (access(r->sr_just_bash, R_OK) == 0)
            r->sr_missing[SB_JUST_BASH] = NULL;
    }
}

/* True when peer p runs script s in this run. */
static bool
sb_runs(const sb_run *r, enum sb_peer p, size_t s)
{
    return r->sr_missing[p] == NULL &&
           (!sb_peers[p].sp_posix_only || sb_scripts[s].ss_posix);
}

/* One call of script s by peer p; the output lands in out. */
static bool
sb_call(const sb_run *r, enum sb_peer p, size_t s, uint64_t *ns, int *st,
        char *out, size_t outn)
{
    char *text = (char *)sb_scripts[s].ss_text;
    char *ws = (char *)r->sr_box.bb_ws;
    char *argv[8] = {0};
    bb_call_spec cs = {
        .bc_argv = argv, .bc_cwd = ws, .bc_timeout_ms = SB_CALL_MS};
    switch (p) {
    case SB_BOX:
        cs.bc_path = r->sr_box.bb_sh;
        argv[0] = "sh";
        break;
    case SB_BASH:
        cs.bc_path = argv[0] = "/bin/bash";
        break;
    case SB_DASH:
        cs.bc_path = argv[0] = "/bin/dash";
        break;
    case SB_BUSYBOX:
        cs.bc_path = r->sr_busybox;
        argv[0] = "busybox";
        argv[1] = "sh";
        break;
    case SB_JUST_BASH:
        // node from PATH; the script's files are the workspace (read-only).
        cs.bc_path = "/usr/bin/env";
        argv[0] = "env";
        argv[1] = "node";
        argv[2] = (char *)r->sr_just_bash;
        argv[3] = "--root";
        argv[4] = ws;
        break;
    case SB_NPEERS:
        return false;
    }
    size_t k = 0;
    while (argv[k] != NULL)
        k++;
    argv[k] = "-c";
    argv[k + 1] = text;
    return bb_call(&cs, ns, st, out, outn);
}

/* The first call of every figure: each peer must print what the box
 * prints (and exit 0), else it gets no figure for this script. */
static bool
sb_check(sb_run *r, size_t s, bool *ok_peer)
{
    char want[BB_OUT_MAX], got[BB_OUT_MAX];
    uint64_t ns;
    int st = 0;
    if (!sb_call(r, SB_BOX, s, &ns, &st, want, sizeof want))
        return false;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        want[strcspn(want, "\n")] = '\0';
        printf("  %-10s box failed (status %d): %.200s\n",
               sb_scripts[s].ss_name, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
               want);
        return true; // no figure at all for this script
    }
    ok_peer[SB_BOX] = true;
    for (int p = SB_BASH; p < SB_NPEERS; p++) {
        if (!sb_runs(r, (enum sb_peer)p, s))
            continue;
        if (!sb_call(r, (enum sb_peer)p, s, &ns, &st, got, sizeof got))
            return false;
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && strcmp(got, want) == 0) {
            ok_peer[p] = true;
            continue;
        }
        got[strcspn(got, "\n")] = '\0';
        want[strcspn(want, "\n")] = '\0';
        printf("  %-10s %s printed \"%.80s\" (status %d), the box \"%.80s\": "
               "no figure\n",
               sb_scripts[s].ss_name, sb_peers[p].sp_name, got,
               WIFEXITED(st) ? WEXITSTATUS(st) : -1, want);
    }
    return true;
}

static void
sb_print_ratio(double box, double peer)
{
    if (box > 0 && peer > 0)
        printf(" %9.2f×", box / peer);
    else
        printf(" %10s", "-");
}

static int
sb_main(int runs, const char *only, const char *dir_opt)
{
    sb_run r = {0};
    char bindir[4096];
    double med[SB_NSCRIPTS][SB_NPEERS] = {{0}};
    bool ok = false, any = false;

    if (box_cmd_self_dir(bindir, sizeof bindir) == NULL) {
        bb_fail("cannot find this program's directory (box-pdp, "
                "box-shell and box-alias live beside it)");
        goto out;
    }
    for (size_t s = 0; s < SB_NSCRIPTS; s++)
        any |= only == NULL || strcmp(only, sb_scripts[s].ss_name) == 0;
    if (!any) {
        bb_fail("no script is named %s (box bench shell --help)", only);
        goto out;
    }
    sb_find_peers(&r, dir_opt);
    if (!bb_open(&r.sr_box, bindir) || !sb_write_inputs(&r.sr_box))
        goto out;
    printf("box bench shell: box %s, workspace %s · %d calls per figure\n",
           r.sr_box.bb_dir, r.sr_box.bb_ws, runs);
    for (int p = 0; p < SB_NPEERS; p++)
        if (r.sr_missing[p] != NULL)
            printf("  no %s column: %s\n", sb_peers[p].sp_name,
                   r.sr_missing[p]);
    fflush(stdout);

    for (size_t s = 0; s < SB_NSCRIPTS; s++) {
        bool ok_peer[SB_NPEERS] = {0};
        if (only != NULL && strcmp(only, sb_scripts[s].ss_name) != 0)
            continue;
        if (!sb_check(&r, s, ok_peer))
            goto out;
        // Interleaved: each round calls every peer once, so a slow
        // stretch of the machine falls on all of them alike.
        uint64_t *per[SB_NPEERS] = {0};
        bool fail = false;
        for (int p = 0; p < SB_NPEERS && !fail; p++)
            if (ok_peer[p] &&
                (per[p] = box_calloc((size_t)runs, sizeof *per[p])) == NULL)
                fail = !bb_fail("out of memory");
        for (int i = 0; i < runs && !fail; i++)
            for (int p = 0; p < SB_NPEERS && !fail; p++) {
                int st;
                off_t size;
                if (per[p] != NULL &&
                    !sb_call(&r, (enum sb_peer)p, s, &per[p][i], &st, NULL, 0))
                    fail = true;
                // The box's log of a call's permits served from its cache
                // is written after the call returns: let it land before
                // the next call, which would pay for it otherwise.
                if (!fail && p == SB_BOX && !bb_log_settle(&r.sr_box, &size))
                    fail = true;
            }
        for (int p = 0; p < SB_NPEERS; p++) {
            if (per[p] != NULL && !fail) {
                med[s][p] = (double)bb_median_ns(per[p], (size_t)runs) / 1e6;
            }
            box_free(per[p]);
        }
        if (fail)
            goto out;
    }

    printf("\n%-11s", "median, ms");
    for (int p = 0; p < SB_NPEERS; p++)
        printf(" %10s", sb_peers[p].sp_name);
    printf("\n");
    for (size_t s = 0; s < SB_NSCRIPTS; s++) {
        if (only != NULL && strcmp(only, sb_scripts[s].ss_name) != 0)
            continue;
        printf("%-11s", sb_scripts[s].ss_name);
        for (int p = 0; p < SB_NPEERS; p++)
            med[s][p] > 0 ? printf(" %10.2f", med[s][p]) : printf(" %10s", "-");
        printf("\n");
    }
    printf("\n%-11s %10s %10s %10s %10s\n", "box /", "bash", "dash", "busybox",
           "just-bash");
    for (size_t s = 0; s < SB_NSCRIPTS; s++) {
        if (only != NULL && strcmp(only, sb_scripts[s].ss_name) != 0)
            continue;
        printf("%-11s", sb_scripts[s].ss_name);
        for (int p = SB_BASH; p < SB_NPEERS; p++)
            sb_print_ratio(med[s][SB_BOX], med[s][p]);
        printf("\n");
    }
    printf("\ngoals: no slower than bash on builtin-only scripts (box / bash "
           "≤ 1),\nat least 50× faster than just-bash (box / just-bash ≤ "
           "0.02)\n");
    printf("scripts:\n");
    for (size_t s = 0; s < SB_NSCRIPTS; s++)
        if (only == NULL || strcmp(only, sb_scripts[s].ss_name) == 0)
            printf("  %-10s %s\n", sb_scripts[s].ss_name,
                   sb_scripts[s].ss_text);
    ok = true;
out:
    if (!bb_close(&r.sr_box))
        ok = false;
    return ok ? 0 : 1;
}

int
box_bench_shell(int argc, char **argv)
{
    bb_opts o = {.bo_runs = SB_RUNS_DEFAULT};
    int st = bb_parse_opts(argc, argv, sb_usage, BB_OPT_ONLY | BB_OPT_DIR,
                           SB_RUNS_MAX, &o);
    return st >= 0 ? st : sb_main(o.bo_runs, o.bo_only, o.bo_dir);
}
