/* SPDX-License-Identifier: Apache-2.0 */
/* cp [OPTION]... SOURCE DEST | SOURCE... DIRECTORY | -t DIRECTORY SOURCE...:
 * GNU coreutils 9.1, every effect through the kernel (cmd_copy.c). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "sh_gopt.h"

enum {
    CP_PRESERVE = SH_GOPT_LONG_ONLY,
    CP_NO_PRESERVE,
    CP_REMOVE_DEST,
    CP_STRIP_SLASHES,
};

static const sh_gopt cp_opts[] = {
    {'a', "archive", SH_GARG_NONE},
    {'d', NULL, SH_GARG_NONE},
    {'f', "force", SH_GARG_NONE},
    {'H', NULL, SH_GARG_NONE},
    {'i', "interactive", SH_GARG_NONE},
    {'l', "link", SH_GARG_NONE},
    {'L', "dereference", SH_GARG_NONE},
    {'n', "no-clobber", SH_GARG_NONE},
    {'P', "no-dereference", SH_GARG_NONE},
    {'p', NULL, SH_GARG_NONE},
    {'r', "recursive", SH_GARG_NONE},
    {'R', NULL, SH_GARG_NONE},
    {'t', "target-directory", SH_GARG_REQ},
    {'T', "no-target-directory", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {'x', "one-file-system", SH_GARG_NONE},
    {CP_PRESERVE, "preserve", SH_GARG_OPT},
    {CP_NO_PRESERVE, "no-preserve", SH_GARG_REQ},
    {CP_STRIP_SLASHES, "strip-trailing-slashes", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec cp_spec = {
    .gs_cmd = "cp",
    .gs_opts = cp_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: cp [OPTION]... [-T] SOURCE DEST\n"
        "  or:  cp [OPTION]... SOURCE... DIRECTORY\n"
        "  or:  cp [OPTION]... -t DIRECTORY SOURCE...\n"
        "Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short option"
        "s too.\n"
        "  -a, --archive                same as -dR --preserve=all\n"
        "      --attributes-only        don't copy the file data, just the "
        "attributes\n"
        "      --backup[=CONTROL]       make a backup of each existing dest"
        "ination file\n"
        "  -b                           like --backup but does not accept a"
        "n argument\n"
        "      --copy-contents          copy contents of special files when"
        " recursive\n"
        "  -d                           same as --no-dereference --preserve"
        "=links\n"
        "  -f, --force                  if an existing destination file can"
        "not be\n"
        "                                 opened, remove it and try again ("
        "this option\n"
        "                                 is ignored when the -n option is "
        "also used)\n"
        "  -i, --interactive            prompt before overwrite (overrides "
        "a previous -n\n"
        "                                  option)\n"
        "  -H                           follow command-line symbolic links "
        "in SOURCE\n"
        "  -l, --link                   hard link files instead of copying"
        "\n"
        "  -L, --dereference            always follow symbolic links in SOU"
        "RCE\n"
        "  -n, --no-clobber             do not overwrite an existing file ("
        "overrides\n"
        "                                 a previous -i option)\n"
        "  -P, --no-dereference         never follow symbolic links in SOUR"
        "CE\n"
        "  -p                           same as --preserve=mode,ownership,t"
        "imestamps\n"
        "      --preserve[=ATTR_LIST]   preserve the specified attributes ("
        "default:\n"
        "                                 mode,ownership,timestamps), if po"
        "ssible\n"
        "                                 additional attributes: context, l"
        "inks, xattr,\n"
        "                                 all\n"
        "      --no-preserve=ATTR_LIST  don't preserve the specified attrib"
        "utes\n"
        "      --parents                use full source file name under DIR"
        "ECTORY\n"
        "  -R, -r, --recursive          copy directories recursively\n"
        "      --reflink[=WHEN]         control clone/CoW copies. See below"
        "\n"
        "      --remove-destination     remove each existing destination fi"
        "le before\n"
        "                                 attempting to open it (contrast w"
        "ith --force)\n"
        "      --sparse=WHEN            control creation of sparse files. S"
        "ee below\n"
        "      --strip-trailing-slashes  remove any trailing slashes from e"
        "ach SOURCE\n"
        "                                 argument\n"
        "  -s, --symbolic-link          make symbolic links instead of copy"
        "ing\n"
        "  -S, --suffix=SUFFIX          override the usual backup suffix\n"
        "  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into"
        " DIRECTORY\n"
        "  -T, --no-target-directory    treat DEST as a normal file\n"
        "  -u, --update                 copy only when the SOURCE file is n"
        "ewer\n"
        "                                 than the destination file or when"
        " the\n"
        "                                 destination file is missing\n"
        "  -v, --verbose                explain what is being done\n"
        "  -x, --one-file-system        stay on this file system\n"
        "  -Z                           set SELinux security context of des"
        "tination\n"
        "                                 file to default type\n"
        "      --context[=CTX]          like -Z, or if CTX is specified the"
        "n set the\n"
        "                                 SELinux or SMACK security context"
        " to CTX\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "By default, sparse SOURCE files are detected by a crude heuristic "
        "and the\n"
        "corresponding DEST file is made sparse as well.  That is the behav"
        "ior\n"
        "selected by --sparse=auto.  Specify --sparse=always to create a sp"
        "arse DEST\n"
        "file whenever the SOURCE file contains a long enough sequence of z"
        "ero bytes.\n"
        "Use --sparse=never to inhibit creation of sparse files.\n"
        "\n"
        "When --reflink[=always] is specified, perform a lightweight copy, "
        "where the\n"
        "data blocks are copied only when modified.  If this is not possibl"
        "e the copy\n"
        "fails, or if --reflink=auto is specified, fall back to a standard "
        "copy.\n"
        "Use --reflink=never to ensure a standard copy is performed.\n"
        "\n"
        CMD_BACKUP_HELP
        "\n"
        "As a special case, cp makes a backup of SOURCE when the force and "
        "backup\n"
        "options are given and SOURCE and DEST are the same name for an exi"
        "sting,\n"
        "regular file.\n",
};

/* Whether a --preserve / --no-preserve list names attr (or "all"): the
 * mode and the timestamps are what the kernel can set (owners and xattrs
 * it cannot). */
static bool
list_has(const char *list, const char *attr)
{
    size_t al = strlen(attr);
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ",");
        if ((l == al && strncmp(p, attr, al) == 0) ||
            (l == 3 && strncmp(p, "all", 3) == 0))
            return true;
        p += l + (p[l] == ',');
    }
    return false;
}

/* cmd_place_fn: one source copied to one destination. */
typedef struct cp_place_run {
    sh_ctx *pr_cx;
    const cmd_copy_opts *pr_o;
} cp_place_run;

static int
cp_place(void *run, const char *src, const char *dst)
{
    cp_place_run *pr = run;
    return cmd_copy(pr->pr_cx, pr->pr_o, src, dst);
}

/*
 * cp: box-spec §3.6 (the destination is an open for write, fs:write
 * write_content). -i asks questions no one can answer here (the box has
 * no terminal) and -l makes hard links the kernel has no operation for:
 * both are refused. -p and -a keep the mode; the kernel cannot set
 * times or owners, so those are not kept.
 */
int
sh_cmd_cp(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &cp_spec, argc, argv);
    cmd_copy_opts o = {.co_cmd = "cp"};
    const char *target = NULL, *arg;
    bool no_target = false, deref_set = false, deref = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'a':
            o.co_recursive = o.co_preserve_mode = true;
            o.co_preserve_times = true;
            deref_set = true;
            deref = false;
            break;
        case 'd':
        case 'P':
            deref_set = true;
            deref = o.co_deref_top = false;
            break;
        case 'L':
            deref_set = deref = true;
            break;
        case 'H':
            deref_set = true;
            deref = false;
            o.co_deref_top = true;
            break;
        case 'f':
            o.co_force = true;
            break;
        case 'n':
            o.co_no_clobber = true;
            break;
        case 'p':
            o.co_preserve_mode = o.co_preserve_times = true;
            break;
        case 'r':
        case 'R':
            o.co_recursive = true;
            break;
        case 't':
            target = arg;
            break;
        case 'T':
            no_target = true;
            break;
        case 'v':
            o.co_verbose = true;
            break;
        case CP_PRESERVE:
            if (arg == NULL || list_has(arg, "mode"))
                o.co_preserve_mode = true;
            if (arg == NULL || list_has(arg, "timestamps"))
                o.co_preserve_times = true;
            break;
        case CP_NO_PRESERVE:
            if (list_has(arg, "mode"))
                o.co_preserve_mode = false;
            if (list_has(arg, "timestamps"))
                o.co_preserve_times = false;
            break;
        case 'i':
            st = cmd_no_interactive(cx, "cp");
            goto out;
        case 'l':
            st = sh_cmd_err(cx, "cp", 1,
                            "hard links are not supported in this box");
            goto out;
        default:
            break; // -x, --strip-trailing-slashes: nothing to do here
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    o.co_deref = deref_set ? deref : !o.co_recursive;
    cp_place_run pr = {cx, &o};
    st = cmd_place_operands(&it, target, no_target, cp_place, &pr);
out:
    sh_gopt_free(&it);
    return st;
}
