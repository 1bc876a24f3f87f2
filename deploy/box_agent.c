/* SPDX-License-Identifier: Apache-2.0 */
/* The agent: aliases in bin/, the kernel probe, and the sandboxed start. */
#include "box_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_procspec.h"
#include "box_proctab.h"
#include "box_shells.h"
#include "box_svc.h"

extern char **environ;

#define AGENT_PROBE_MAX (64u * 1024u)

static const char *const agent_alias_names[] = {"zsh", "bash", "sh"};

/* box-contain's environment: its row's names of ours (none but a
 * sanitizer's): the agent's own is exactly the --env pairs it is given,
 * and box-contain itself needs nothing of the operator's. The caller
 * frees env either way. */
static box_err
agent_contain_env(box_argv *env)
{
    return box_proctab_env(box_proctab_get(BOX_PROC_CONTAIN), environ, env);
}

/* posix_spawn of argv with stdout (and stderr) on a pipe; collects the
 * output (capped) and the wait status. */
static box_err
agent_run_capture(char *const *argv, box_buf *out, int *wstatus)
{
    int pp[2];
    if (pipe2(pp, O_CLOEXEC) != 0)
        return BOX_EIO;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pp[1], 2);
    pid_t pid;
    box_argv env = {0};
    int rv = agent_contain_env(&env) != BOX_OK
                 ? ENOMEM
                 : box_svc_spawn(&pid, argv[0], &fa, argv,
                                 box_proctab_envp(&env), 0);
    box_argv_free(&env);
    posix_spawn_file_actions_destroy(&fa);
    close(pp[1]);
    if (rv != 0) {
        close(pp[0]);
        return BOX_EIO;
    }
    char buf[4096];
    for (;;) {
        ssize_t n = read(pp[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (box_buf_append(out, buf, (size_t)n) != BOX_OK)
            continue; // past the cap: the rest is drained, not kept
    }
    close(pp[0]);
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
        ;
    return BOX_OK;
}

box_err
box_agent_probe(const char *bindir, char **err)
{
    char *bin = box_asprintf("%s/box-contain", bindir);
    if (bin == NULL)
        return BOX_ENOMEM;
    char *argv[] = {bin, "--probe", NULL};
    box_buf out;
    box_buf_init(&out, AGENT_PROBE_MAX);
    int ws = 0;
    box_err rv = agent_run_capture(argv, &out, &ws);
    if (rv != BOX_OK) {
        *err = box_asprintf("cannot run %s: %s", bin, strerror(errno));
        goto out;
    }
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
        goto out;
    // Name each missing feature, in the probe's words.
    box_buf why;
    box_buf_init(&why, AGENT_PROBE_MAX);
    const char *p = out.b_len ? out.b_data : "";
    while (*p != '\0') {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (memmem(p, n, ": missing", 9) != NULL &&
            box_buf_printf(&why, "%s%.*s", why.b_len ? "; " : "", (int)n, p) !=
                BOX_OK)
            break; // what fits is enough to name the problem
        p += n + (e ? 1 : 0);
    }
    *err = box_asprintf("this kernel cannot build the sandbox every program "
                        "of the box runs in: %s",
                        why.b_len ? why.b_data : "box-contain --probe failed");
    box_buf_reset(&why);
    rv = BOX_ENOTSUP;
out:
    box_buf_reset(&out);
    box_free(bin);
    return rv;
}

/* Reads a whole file (the alias image) into *img. */
static box_err
agent_read_file(const char *path, char **img, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return BOX_EIO;
    }
    char *p = box_alloc((size_t)st.st_size + 1);
    size_t have = 0;
    while (p != NULL && have < (size_t)st.st_size) {
        ssize_t n = read(fd, p + have, (size_t)st.st_size - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
    }
    close(fd);
    if (p == NULL || have != (size_t)st.st_size) {
        box_free(p);
        return p == NULL ? BOX_ENOMEM : BOX_EIO;
    }
    *img = p;
    *len = have;
    return BOX_OK;
}

/* True when dir/name holds exactly img already. */
static bool
agent_same(const char *dir, const char *name, const char *img, size_t len)
{
    char *path = box_asprintf("%s/%s", dir, name);
    char *old = NULL;
    size_t olen = 0;
    bool same = path != NULL && agent_read_file(path, &old, &olen) == BOX_OK &&
                olen == len && memcmp(old, img, len) == 0;
    box_free(old);
    box_free(path);
    return same;
}

/* Writes img as dir/name through a temporary file and rename(2). */
static box_err
agent_install_one(const char *dir, const char *name, const char *img,
                  size_t len)
{
    char *tmp = box_asprintf("%s/.%s.new", dir, name);
    char *dst = box_asprintf("%s/%s", dir, name);
    box_err rv = BOX_ENOMEM;
    int fd = -1;
    if (tmp == NULL || dst == NULL)
        goto out;
    rv = BOX_EIO;
    (void)unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
    if (fd < 0)
        goto out;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, img + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto out;
        off += (size_t)n;
    }
    if (fchmod(fd, 0500) != 0 || close(fd) != 0) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, dst) == 0)
        rv = BOX_OK;
out:
    if (fd >= 0)
        close(fd);
    if (rv != BOX_OK && tmp != NULL)
        (void)unlink(tmp);
    box_free(tmp);
    box_free(dst);
    return rv;
}

/*
 * The shim box-contain --shells binds over /bin/sh, /bin/bash, ...: the
 * shim's image with the trailer naming dir, the aliases' directory
 * (box_shells.h). *img grows (the caller frees it either way).
 */
static box_err
agent_shim_image(char **img, size_t *len, const char *dir)
{
    size_t dlen = strlen(dir);
    if (dlen == 0 || dlen > UINT32_MAX - BOX_SHIM_TRAILER_FIXED)
        return BOX_EINVAL;
    char *p = box_realloc(*img, *len + dlen + BOX_SHIM_TRAILER_FIXED);
    if (p == NULL)
        return BOX_ENOMEM;
    *img = p;
    memcpy(p + *len, dir, dlen);
    p += *len + dlen;
    for (int i = 0; i < 4; i++)
        p[i] = (char)((dlen >> (8 * i)) & 0xff);
    memcpy(p + 4, BOX_SHIM_MAGIC, BOX_SHIM_MAGIC_LEN);
    *len += dlen + BOX_SHIM_TRAILER_FIXED;
    return BOX_OK;
}

/* dir/name holds img, installed as the aliases are. */
static box_err
agent_install_image(const char *dir, const char *name, const char *img,
                    size_t len, bool *refreshed, char **err)
{
    char *path = box_asprintf("%s/%s", dir, name);
    bool existed = path != NULL && access(path, F_OK) == 0;
    box_free(path);
    if (existed && agent_same(dir, name, img, len))
        return BOX_OK;
    *refreshed = *refreshed || existed;
    box_err rv = agent_install_one(dir, name, img, len);
    if (rv != BOX_OK)
        *err = box_asprintf("cannot install %s/%s: %s", dir, name,
                            strerror(errno));
    return rv;
}

box_err
box_agent_install_aliases(const char *bindir, const char *box_dir,
                          bool *refreshed, char **err)
{
    *refreshed = false;
    char *src = box_asprintf("%s/box-alias", bindir);
    char *dir = box_asprintf("%s/bin", box_dir);
    char *img = NULL;
    size_t len = 0;
    box_err rv = BOX_ENOMEM;
    if (src == NULL || dir == NULL)
        goto out;
    if ((rv = agent_read_file(src, &img, &len)) != BOX_OK) {
        *err = box_asprintf("cannot read the alias program %s", src);
        goto out;
    }
    for (size_t i = 0; i < sizeof agent_alias_names / sizeof *agent_alias_names;
         i++) {
        if ((rv = agent_install_image(dir, agent_alias_names[i], img, len,
                                      refreshed, err)) != BOX_OK)
            goto out;
    }
    // The shim, for `[agent] shells = "all"` (installed whatever the
    // setting, as the aliases are: bin/ is the box's, not the config's).
    box_free(img);
    img = NULL;
    box_free(src);
    if ((src = box_asprintf("%s/" BOX_SHIM_NAME, bindir)) == NULL) {
        rv = BOX_ENOMEM;
        goto out;
    }
    if ((rv = agent_read_file(src, &img, &len)) != BOX_OK) {
        *err = box_asprintf("cannot read the shell shim program %s", src);
        goto out;
    }
    if ((rv = agent_shim_image(&img, &len, dir)) != BOX_OK) {
        *err = box_asprintf("cannot make the shell shim for %s", dir);
        goto out;
    }
    if ((rv = agent_install_image(dir, BOX_SHIM_NAME, img, len, refreshed,
                                  err)) != BOX_OK)
        goto out;
    rv = BOX_OK;
out:
    box_free(src);
    box_free(dir);
    box_free(img);
    return rv;
}

/*
 * The §5 disclosure for each [tool.*] with an `exec` list: the programs
 * its leaf may start with no shell:spawn decision (git's helpers, what
 * an alias or hook names if it lies there). A tool without one starts
 * nothing but its own program, and says nothing.
 */
static void
agent_disclose_tools(FILE *f, const box_config *cfg, const char *home)
{
    for (size_t t = 0;
         f != NULL && cfg != NULL && t < box_config_tool_count(cfg); t++) {
        const box_config_process *pr = box_config_tool(cfg, t);
        const box_config_strv *l = &pr->pr_fs[BOX_GRANT_EXEC];
        for (size_t i = 0; i < l->sv_len; i++) {
            char *p = box_procspec_expand(l->sv_items[i], home);
            const char *shown = p != NULL ? p : l->sv_items[i];
            struct stat st;
            bool dir = stat(shown, &st) == 0 && S_ISDIR(st.st_mode);
            fprintf(f,
                    "strands-box: %s may run %s%s with no policy "
                    "decision\n",
                    pr->pr_table, dir ? "programs beneath " : "", shown);
            box_free(p);
        }
    }
}

/* The §5 disclosure: what the agent reaches with no decision at all. */
static void
agent_disclose(FILE *f, const box_config_process *pr, const char *home,
               const char *program)
{
    if (f == NULL)
        return;
    fprintf(f,
            "strands-box: [agent] runs %s with no policy decision over "
            "these paths:\n",
            program);
    for (int g = 0; g < BOX_GRANT_COUNT; g++) {
        if (g == BOX_GRANT_DENY)
            continue; // a deny is not something the agent reaches
        for (size_t i = 0; i < pr->pr_fs[g].sv_len; i++) {
            char *p = box_procspec_expand(pr->pr_fs[g].sv_items[i], home);
            fprintf(f, "  %-12s%s\n", box_config_grant_key((box_config_grant)g),
                    p ? p : pr->pr_fs[g].sv_items[i]);
            box_free(p);
        }
    }
    fprintf(f, "  %-12s%s (command, implicit)\n", "exec", program);
}

/*
 * The shells disclosure (issue 23), one line: which paths are the box's
 * alias in the agent's sandbox besides zsh, bash and sh on PATH. The same
 * table box-contain covers; a path that does not exist is not named.
 */
static void
agent_disclose_shells(FILE *f, const box_config_process *pr)
{
    if (f == NULL || pr->pr_shells != BOX_SHELLS_ALL)
        return;
    fputs("strands-box: [agent] runs the box's shell (every command decided "
          "by policy) for zsh, bash, sh on PATH",
          f);
    for (size_t i = 0; i < BOX_SHELL_PATH_COUNT; i++) {
        struct stat st;
        if (stat(box_shell_paths[i], &st) == 0 && S_ISREG(st.st_mode))
            fprintf(f, ", %s", box_shell_paths[i]);
    }
    fputs(" and $SHELL\n", f);
}

/* `--shells SHIM` and SHELL: the alias over the shells (issue 23), unless
 * `shells = "path-only"`. SHELL is the alias on PATH (it exists whatever
 * the host has), unless the table's `env` names SHELL itself. */
static box_err
agent_shells_args(box_argv *av, const box_config_process *pr, const char *bin)
{
    box_err rv = BOX_OK;
    if (pr->pr_shells != BOX_SHELLS_ALL)
        return BOX_OK;
    if ((rv = box_argv_push(av, "--shells")) == BOX_OK)
        rv = box_argv_pushf(av, "%s/" BOX_SHIM_NAME, bin);
    if (rv == BOX_OK && box_procspec_env(pr, "SHELL") == NULL &&
        (rv = box_argv_push(av, "--env")) == BOX_OK)
        rv = box_argv_pushf(av, "SHELL=%s/bash", bin);
    return rv;
}

box_err
box_agent_start(const box_agent_opts *o, pid_t *pid, char **err)
{
    const box_config_process *pr = o->ao_spec;
    const char *cmd0 = pr->pr_command.sv_items[0];
    box_argv av = {0};
    char *prog = NULL, *bin = NULL;
    dev_t dev;
    ino_t ino;
    box_err rv = BOX_ENOMEM;

    int werr = box_which(cmd0, box_procspec_path(pr, o->ao_operator_path),
                         &prog, &dev, &ino);
    if (werr != 0) {
        *err = box_asprintf("`[agent]` command \"%s\" is not an executable "
                            "program%s",
                            cmd0, strchr(cmd0, '/') ? "" : " on PATH");
        rv = werr == ENOMEM ? BOX_ENOMEM : BOX_ECONFIG;
        goto out;
    }
    /*
     * The box's bin/ (the aliases): executable, and first on PATH (§5).
     * The rest of the box directory is hidden but bin/ and the alias
     * socket, the agent's one route (§1): Landlock would not stop a
     * connect(2) to the PDP's or a control socket.
     */
    if ((bin = box_asprintf("%s/bin", o->ao_box_dir)) == NULL ||
        box_argv_pushf(&av, "%s/box-contain", o->ao_bindir) != BOX_OK ||
        box_procspec_fs_args(&av, pr, o->ao_operator_home) != BOX_OK ||
        box_argv_push(&av, "--exec") != BOX_OK ||
        box_argv_push(&av, bin) != BOX_OK ||
        box_argv_push(&av, "--hide") != BOX_OK ||
        box_argv_push(&av, o->ao_box_dir) != BOX_OK ||
        box_argv_push(&av, "--show") != BOX_OK ||
        box_argv_push(&av, bin) != BOX_OK ||
        box_argv_push(&av, "--show") != BOX_OK ||
        box_argv_pushf(&av, "%s/run/box.sock", o->ao_box_dir) != BOX_OK ||
        box_argv_push(&av, "--cwd") != BOX_OK ||
        box_argv_push(&av, o->ao_workspace) != BOX_OK ||
        box_procspec_env_args(&av, pr, o->ao_operator_home, o->ao_workspace,
                              o->ao_operator_path, bin,
                              o->ao_egress) != BOX_OK ||
        agent_shells_args(&av, pr, bin) != BOX_OK ||
        // The CA the trust names point at, and the relay to the gateway.
        (o->ao_egress != NULL &&
         (box_argv_push(&av, "--show") != BOX_OK ||
          box_argv_push(&av, o->ao_egress->eg_ca) != BOX_OK ||
          box_procspec_egress_args(&av, o->ao_egress) != BOX_OK)) ||
        box_argv_push(&av, "--exec-path") != BOX_OK ||
        box_argv_push(&av, prog) != BOX_OK ||
        box_argv_push(&av, "--exec-id") != BOX_OK ||
        box_argv_pushf(&av, "%llu:%llu", (unsigned long long)dev,
                       (unsigned long long)ino) != BOX_OK ||
        box_argv_push(&av, "--") != BOX_OK)
        goto out;
    for (size_t i = 0; i < pr->pr_command.sv_len; i++)
        if (box_argv_push(&av, pr->pr_command.sv_items[i]) != BOX_OK)
            goto out;
    for (size_t i = 0; o->ao_args != NULL && o->ao_args[i] != NULL; i++)
        if (box_argv_push(&av, o->ao_args[i]) != BOX_OK)
            goto out;

    agent_disclose_tools(o->ao_disclose, o->ao_config, o->ao_operator_home);
    agent_disclose(o->ao_disclose, pr, o->ao_operator_home, prog);
    agent_disclose_shells(o->ao_disclose, pr);
    if (o->ao_disclose != NULL)
        fputs("strands-box: starting workload\n", o->ao_disclose);
    // The agent starts with a clean signal state, whatever ours is; its
    // box-contain dies with box run, and the agent's whole pid namespace
    // with it.
    box_argv env = {0};
    int e = agent_contain_env(&env) != BOX_OK
                ? ENOMEM
                : box_svc_spawn(pid, av.av_v[0], NULL, av.av_v,
                                box_proctab_envp(&env), BOX_SPAWN_TIED);
    box_argv_free(&env);
    if (e != 0) {
        *err = box_asprintf("cannot start %s: %s", av.av_v[0], strerror(e));
        rv = BOX_EIO;
        goto out;
    }
    rv = BOX_OK;
out:
    box_argv_free(&av);
    box_free(bin);
    box_free(prog);
    return rv;
}
