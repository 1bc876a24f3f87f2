/* SPDX-License-Identifier: Apache-2.0 */
/*
 * file [-bEhiLkNrsz0 …] FILE...: file 5.44's answers, through Debian's
 * libmagic. libmagic never opens a FILE itself: what a name is comes
 * from the kernel's lstat/stat (each decided), and its bytes from a
 * kernel open (fs:read read_content): a host file's decided descriptor
 * goes to magic_descriptor (ELF notes need pread), an in-memory file's
 * bytes to magic_buffer. The magic database is read-only public data
 * (/usr/lib/file, granted to the worker as the zone files are).
 */
#include <errno.h>
#include <fcntl.h>
#include <magic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

// The compiled database itself (magic.mgc in /usr/share/misc links here):
// libmagic reads no $HOME/.magic when it is given a path.
#define FILE_MAGIC_DB "/usr/lib/file/magic.mgc"
#define FILE_BYTES_MAX (7u << 20) // file 5.44's default `-P bytes`
// A name's answer was a message already printed (a denial, a fault, the
// database missing): no line for it.
#define FILE_REPORTED BOX_ECANCELED

enum {
    FO_APPLE = SH_GOPT_LONG_ONLY,
    FO_EXT,
    FO_MIME_TYPE,
    FO_MIME_ENC,
    FO_EXCLUDE_QUIET,
};

static const sh_gopt file_opts[] = {
    {'0', "print0", SH_GARG_NONE},
    {'b', "brief", SH_GARG_NONE},
    {'c', "checking-printout", SH_GARG_NONE},
    {'C', "compile", SH_GARG_NONE},
    {'d', "debug", SH_GARG_NONE},
    {'E', NULL, SH_GARG_NONE},
    {'e', "exclude", SH_GARG_REQ},
    {FO_EXCLUDE_QUIET, "exclude-quiet", SH_GARG_REQ},
    {'f', "files-from", SH_GARG_REQ},
    {'F', "separator", SH_GARG_REQ},
    {'h', "no-dereference", SH_GARG_NONE},
    {'i', "mime", SH_GARG_NONE},
    {FO_APPLE, "apple", SH_GARG_NONE},
    {FO_EXT, "extension", SH_GARG_NONE},
    {FO_MIME_TYPE, "mime-type", SH_GARG_NONE},
    {FO_MIME_ENC, "mime-encoding", SH_GARG_NONE},
    {'k', "keep-going", SH_GARG_NONE},
    {'l', "list", SH_GARG_NONE},
    {'L', "dereference", SH_GARG_NONE},
    {'m', "magic-file", SH_GARG_REQ},
    {'n', "no-buffer", SH_GARG_NONE},
    {'N', "no-pad", SH_GARG_NONE},
    {'p', "preserve-date", SH_GARG_NONE},
    {'P', "parameter", SH_GARG_REQ},
    {'r', "raw", SH_GARG_NONE},
    {'s', "special-files", SH_GARG_NONE},
    {'S', "no-sandbox", SH_GARG_NONE},
    {'v', NULL, SH_GARG_NONE},
    {'z', "uncompress", SH_GARG_NONE},
    {'Z', "uncompress-noreport", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec file_spec = {
    .gs_cmd = "file",
    .gs_opts = file_opts,
    .gs_flags = SH_GOPT_F_NOTRY, // file prints its usage, no "Try" line
    .gs_fail = 1,
    .gs_usage =
        "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] "
        "[--mime-encoding]\n"
        "            [--mime-type] [-e <testname>] [-F <separator>]  "
        "[-f <namefile>]\n"
        "            [-m <magicfiles>] [-P <parameter=value>] "
        "[--exclude-quiet]\n"
        "            <file> ...\n"
        "       file -C [-m <magicfiles>]\n"
        "       file [--help]",
    .gs_help =
        "Usage: file [OPTION...] [FILE...]\n"
        "Determine type of FILEs.\n"
        "\n"
        "      --help                 display this help and exit\n"
        "  -v, --version              output version information and exit\n"
        "  -m, --magic-file LIST      use LIST as a colon-separated list of "
        "magic\n"
        "                               number files\n"
        "  -z, --uncompress           try to look inside compressed files\n"
        "  -Z, --uncompress-noreport  only print the contents of compressed "
        "files\n"
        "  -b, --brief                do not prepend filenames to output "
        "lines\n"
        "  -c, --checking-printout    print the parsed form of the magic "
        "file, use in\n"
        "                               conjunction with -m to debug a new "
        "magic file\n"
        "                               before installing it\n"
        "  -e, --exclude TEST         exclude TEST from the list of test to "
        "be\n"
        "                               performed for file. Valid tests "
        "are:\n"
        "                               apptype, ascii, cdf, compress, csv, "
        "elf,\n"
        "                               encoding, soft, tar, json, text,\n"
        "                               tokens\n"
        "      --exclude-quiet TEST   like exclude, but ignore unknown tests\n"
        "  -f, --files-from FILE      read the filenames to be examined from "
        "FILE\n"
        "  -F, --separator STRING     use string as separator instead of "
        "`:'\n"
        "  -i, --mime                 output MIME type strings (--mime-type "
        "and\n"
        "                               --mime-encoding)\n"
        "      --apple                output the Apple CREATOR/TYPE\n"
        "      --extension            output a slash-separated list of "
        "extensions\n"
        "      --mime-type            output the MIME type\n"
        "      --mime-encoding        output the MIME encoding\n"
        "  -k, --keep-going           don't stop at the first match\n"
        "  -l, --list                 list magic strength\n"
        "  -L, --dereference          follow symlinks (default if "
        "POSIXLY_CORRECT is set)\n"
        "  -h, --no-dereference       don't follow symlinks (default if "
        "POSIXLY_CORRECT is not set) (default)\n"
        "  -n, --no-buffer            do not buffer output\n"
        "  -N, --no-pad               do not pad output\n"
        "  -0, --print0               terminate filenames with ASCII NUL\n"
        "  -p, --preserve-date        preserve access times on files\n"
        "  -P, --parameter            set file engine parameter limits\n"
        "                                   bytes 7340032 max bytes to look "
        "inside file\n"
        "                               elf_notes     256 max ELF notes "
        "processed\n"
        "                               elf_phnum    2048 max ELF prog "
        "sections processed\n"
        "                               elf_shnum   32768 max ELF sections "
        "processed\n"
        "                                encoding   65536 max bytes to scan "
        "for encoding\n"
        "                                   indir      50 recursion limit "
        "for indirection\n"
        "                                    name      50 use limit for "
        "name/use magic\n"
        "                                   regex    8192 length limit for "
        "REGEX searches\n"
        "  -r, --raw                  don't translate unprintable chars to "
        "\\ooo\n"
        "  -s, --special-files        treat special (block/char devices) "
        "files as\n"
        "                             ordinary ones\n"
        "  -S, --no-sandbox           disable system call sandboxing\n"
        "  -C, --compile              compile file specified by -m\n"
        "  -d, --debug                print debugging messages\n"
        "\n"
        "Report bugs to https://bugs.astron.com/\n",
};

/* -e TEST: the check each name turns off (file 5.44's list). */
static const struct {
    const char *ft_name;
    int ft_flag;
} file_tests[] = {
    {"apptype", MAGIC_NO_CHECK_APPTYPE},   {"ascii", MAGIC_NO_CHECK_ASCII},
    {"cdf", MAGIC_NO_CHECK_CDF},           {"compress", MAGIC_NO_CHECK_COMPRESS},
    {"csv", MAGIC_NO_CHECK_CSV},           {"elf", MAGIC_NO_CHECK_ELF},
    {"encoding", MAGIC_NO_CHECK_ENCODING}, {"soft", MAGIC_NO_CHECK_SOFT},
    {"tar", MAGIC_NO_CHECK_TAR},           {"json", MAGIC_NO_CHECK_JSON},
    {"text", MAGIC_NO_CHECK_TEXT},         {"tokens", MAGIC_NO_CHECK_TOKENS},
};

/* -P NAME=VALUE: libmagic's parameters (bytes also bounds what is read
 * here for magic_buffer). */
static const struct {
    const char *fp_name;
    int fp_param;
} file_params[] = {
    {"bytes", MAGIC_PARAM_BYTES_MAX},
    {"elf_notes", MAGIC_PARAM_ELF_NOTES_MAX},
    {"elf_phnum", MAGIC_PARAM_ELF_PHNUM_MAX},
    {"elf_shnum", MAGIC_PARAM_ELF_SHNUM_MAX},
    {"encoding", MAGIC_PARAM_ENCODING_MAX},
    {"indir", MAGIC_PARAM_INDIR_MAX},
    {"name", MAGIC_PARAM_NAME_MAX},
    {"regex", MAGIC_PARAM_REGEX_MAX},
};
#define FILE_NPARAMS (sizeof file_params / sizeof file_params[0])

typedef struct file_run {
    sh_ctx *fr_cx;
    magic_t fr_magic; // opened at the first regular file, NULL before
    int fr_flags;     // MAGIC_* for libmagic
    size_t fr_bytes;  // how much of a file libmagic sees
    size_t fr_param[FILE_NPARAMS];
    bool fr_set[FILE_NPARAMS];
    bool fr_brief, fr_follow, fr_nopad, fr_print0, fr_errexit;
    const char *fr_sep;
    int fr_status;
    bool fr_stop; // -E after an error, a fault, or output gone
} file_run;

/* What a name that is not a regular file is, in each output mode. */
typedef struct file_kind {
    const char *fk_text; // "%s" takes the link target or device numbers
    const char *fk_mime; // MIME type
} file_kind;

static const file_kind fk_dir = {"directory", "inode/directory"};
static const file_kind fk_link = {"symbolic link to %s", "inode/symlink"};
static const file_kind fk_fifo = {"fifo (named pipe)", "inode/fifo"};
static const file_kind fk_sock = {"socket", "inode/socket"};
static const file_kind fk_chr = {"character special (%s)", "inode/chardevice"};
static const file_kind fk_blk = {"block special (%s)", "inode/blockdevice"};
static const file_kind fk_empty = {"empty", "inode/x-empty"};

/* libmagic ready with the run's flags and parameters, loaded once per
 * command. False after file's own message. */
static bool
file_magic(file_run *r)
{
    if (r->fr_magic != NULL)
        return true;
    magic_t m = magic_open(r->fr_flags);
    if (m == NULL) {
        r->fr_status = sh_cmd_err(r->fr_cx, "file", 1, "%s", strerror(errno));
        return false;
    }
    if (magic_load(m, FILE_MAGIC_DB) != 0) {
        r->fr_status = sh_cmd_err(r->fr_cx, "file", 1, "%s",
                                  magic_error(m) != NULL ? magic_error(m)
                                                         : "could not find "
                                                           "any valid magic "
                                                           "files!");
        magic_close(m);
        return false;
    }
    for (size_t i = 0; i < FILE_NPARAMS; i++)
        if (r->fr_set[i])
            (void)magic_setparam(m, file_params[i].fp_param, &r->fr_param[i]);
    r->fr_magic = m;
    return true;
}

/* The description for the mode asked: the text, or the MIME type and
 * "; charset=binary" as libmagic gives a special file's. */
static box_err
file_kind_out(const file_run *r, const file_kind *k, const char *arg,
              bool broken, box_buf *out)
{
    int mime = r->fr_flags & MAGIC_MIME;
    if (mime == MAGIC_MIME_ENCODING)
        return box_buf_puts(out, "binary");
    if (mime != 0) {
        box_err rv = box_buf_puts(out, k->fk_mime);
        // A dangling link gets no charset: libmagic stops before it.
        if (rv == BOX_OK && mime == MAGIC_MIME && !broken)
            rv = box_buf_puts(out, "; charset=binary");
        return rv;
    }
    if (broken && box_buf_puts(out, "broken ") != BOX_OK)
        return BOX_ENOMEM;
    return box_buf_printf(out, k->fk_text, arg != NULL ? arg : "");
}

/* The setuid/setgid/sticky words libmagic's stat step writes first
 * (text mode only), joined as it joins them. */
static box_err
file_mode_words(const file_run *r, mode_t mode, box_buf *out)
{
    if (r->fr_flags & (MAGIC_MIME | MAGIC_EXTENSION | MAGIC_APPLE))
        return BOX_OK;
    static const struct {
        mode_t bit;
        const char *word;
    } words[] = {{S_ISUID, "setuid"}, {S_ISGID, "setgid"}, {S_ISVTX, "sticky"}};
    box_err rv = BOX_OK;
    for (size_t i = 0; i < 3 && rv == BOX_OK; i++)
        if (mode & words[i].bit)
            rv = box_buf_printf(out, "%s%s", out->b_len > 0 ? ", " : "",
                                words[i].word);
    return rv;
}

/* libmagic's answer on a host descriptor or on bytes held in memory. */
static const char *
file_classify(file_run *r, int fd, const char *bytes, size_t n)
{
    if (fd < 0)
        return magic_buffer(r->fr_magic, bytes, n);
    if (lseek(fd, 0, SEEK_SET) < 0)
        return NULL;
    return magic_descriptor(r->fr_magic, fd);
}

/* libmagic's answer on the bytes after the mode words already in out.
 * FILE_REPORTED when the database would not load (reported). */
static box_err
file_magic_out(file_run *r, int fd, const char *bytes, size_t n,
               box_buf *out)
{
    bool words = out->b_len > 0;
    if (!file_magic(r)) {
        r->fr_stop = true;
        return FILE_REPORTED;
    }
    const char *d = file_classify(r, fd, bytes, n);
    if (d == NULL)
        return box_buf_printf(out, "%sERROR: %s", words ? " " : "",
                              magic_error(r->fr_magic) != NULL
                                  ? magic_error(r->fr_magic)
                                  : strerror(EIO));
    if (!words)
        return box_buf_puts(out, d);
    // libmagic's text step starts its words with ", " when its stat step
    // wrote the mode words and no magic matched: "setuid , ASCII text"
    // (file 5.44), where soft magic and JSON give "setuid JSON text data".
    // Asked again without the text step, such a file is bare "data".
    char *keep = box_strdup(d);
    if (keep == NULL)
        return BOX_ENOMEM;
    bool text_first = false;
    if (strcmp(keep, "data") != 0) {
        int flags = r->fr_flags;
        (void)magic_setflags(r->fr_magic, flags | MAGIC_NO_CHECK_TEXT |
                                              MAGIC_NO_CHECK_ENCODING);
        const char *bare = file_classify(r, fd, bytes, n);
        text_first = bare != NULL && strcmp(bare, "data") == 0;
        (void)magic_setflags(r->fr_magic, flags);
    }
    box_err rv = box_buf_printf(out, " %s%s", text_first ? ", " : "", keep);
    box_free(keep);
    return rv;
}

/* Up to r->fr_bytes of what `read` gives, for magic_buffer: an in-memory
 * file's bytes or the shell's stdin. *n 0 is an empty file. */
typedef ssize_t (*file_read_fn)(void *src, void *buf, size_t n);

static box_err
file_slurp(const file_run *r, file_read_fn read, void *src, char **bytes,
           size_t *n)
{
    size_t cap = r->fr_bytes < 65536 ? r->fr_bytes : 65536;
    char *b = box_alloc(cap + 1);
    if (b == NULL)
        return BOX_ENOMEM;
    size_t len = 0;
    for (;;) {
        if (len == cap) {
            if (cap >= r->fr_bytes)
                break;
            size_t nc = cap * 2 < r->fr_bytes ? cap * 2 : r->fr_bytes;
            char *nb = box_realloc(b, nc + 1);
            if (nb == NULL) {
                box_free(b);
                return BOX_ENOMEM;
            }
            b = nb;
            cap = nc;
        }
        ssize_t got = read(src, b + len, cap - len);
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    *bytes = b;
    *n = len;
    return BOX_OK;
}

static ssize_t
file_read_kernel(void *src, void *buf, size_t n)
{
    return sh_kernel_read(src, buf, n);
}

static ssize_t
file_read_input(void *src, void *buf, size_t n)
{
    return sh_input_read(src, buf, n);
}

/* A regular file's description after the mode words already in out. */
static box_err
file_regular(file_run *r, const char *name, box_buf *out)
{
    sh_ctx *cx = r->fr_cx;
    sh_kernel_result kr = {0};
    sh_kernel_file *f = NULL;
    int err = sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, name, O_RDONLY,
                             0, &f, &kr);
    if (err != 0) {
        if (kr.kr_outcome == SH_KR_DENIED || kr.kr_outcome == SH_KR_FAULT) {
            r->fr_status = sh_fs_fail(cx, "file", name, &kr);
            r->fr_stop = r->fr_status == BOX_STATUS_FAULT;
            return FILE_REPORTED; // reported: no line
        }
        sh_kernel_result_clear(&kr);
        return box_buf_printf(out, "cannot open `%s' (%s)", name,
                              strerror(err));
    }
    sh_kernel_result_clear(&kr);
    char *bytes = NULL;
    size_t n = 0;
    int fd = sh_kernel_file_fd(f);
    box_err rv = BOX_OK;
    if (fd < 0)
        rv = file_slurp(r, file_read_kernel, f, &bytes, &n);
    if (rv == BOX_OK)
        rv = file_magic_out(r, fd, bytes, n, out);
    box_free(bytes);
    sh_kernel_close(f);
    return rv;
}

/* `file -`: the shell's stdin, whatever it is, read as bytes. */
static box_err
file_stdin(file_run *r, box_buf *out)
{
    int st = 0;
    sh_input *in = sh_input_open(r->fr_cx, "file", "-", &st);
    if (in == NULL) {
        r->fr_status = st;
        r->fr_stop = true;
        return FILE_REPORTED;
    }
    char *bytes = NULL;
    size_t n = 0;
    box_err rv = file_slurp(r, file_read_input, in, &bytes, &n);
    sh_input_close(in);
    if (rv == BOX_OK)
        rv = n == 0 ? file_kind_out(r, &fk_empty, NULL, false, out)
                    : file_magic_out(r, -1, bytes, n, out);
    box_free(bytes);
    return rv;
}

/* The description of one name (no line when FILE_REPORTED). */
static box_err
file_describe(file_run *r, const char *name, box_buf *out)
{
    sh_ctx *cx = r->fr_cx;
    sh_kernel *k = sh_kern(cx);
    const char *cwd = cx->cx_st->st_cwd;
    sh_kernel_result kr = {0};
    sh_kernel_stat ks;
    int err = r->fr_follow ? sh_kernel_stat_path(k, cwd, name, &ks, &kr)
                           : sh_kernel_lstat(k, cwd, name, &ks, &kr);
    // A stat is a probe: a denied one answers "absent" (spec §3.6), and
    // file says so as it says it of a missing name.
    if (kr.kr_outcome == SH_KR_FAULT) {
        r->fr_status = sh_fs_fail(cx, "file", name, &kr);
        r->fr_stop = true;
        return FILE_REPORTED;
    }
    sh_kernel_result_clear(&kr);
    if (err != 0) {
        if (r->fr_errexit) {
            r->fr_status = 1; // and file goes on with the next name
            return box_buf_printf(out, "ERROR: cannot stat `%s' (%s)", name,
                                  strerror(err));
        }
        return box_buf_printf(out, "cannot open `%s' (%s)", name,
                              strerror(err));
    }
    box_err rv = file_mode_words(r, ks.ks_mode, out);
    if (rv != BOX_OK)
        return rv;
    if (S_ISREG(ks.ks_mode)) {
        if (ks.ks_size == 0) {
            if (out->b_len > 0 && box_buf_puts(out, ", ") != BOX_OK)
                return BOX_ENOMEM;
            return file_kind_out(r, &fk_empty, NULL, false, out);
        }
        return file_regular(r, name, out);
    }
    const file_kind *kind = &fk_sock;
    char arg[64] = "";
    char *target = NULL;
    bool broken = false;
    if (S_ISDIR(ks.ks_mode)) {
        kind = &fk_dir;
    } else if (S_ISFIFO(ks.ks_mode)) {
        kind = &fk_fifo;
    } else if (S_ISCHR(ks.ks_mode) || S_ISBLK(ks.ks_mode)) {
        kind = S_ISCHR(ks.ks_mode) ? &fk_chr : &fk_blk;
        snprintf(arg, sizeof arg, "%u/%u", major(ks.ks_rdev),
                 minor(ks.ks_rdev));
    } else if (S_ISLNK(ks.ks_mode)) {
        kind = &fk_link;
        if (sh_kernel_readlink(k, cwd, name, &target, &kr) != 0) {
            sh_kernel_result_clear(&kr);
            return box_buf_printf(out, "unreadable symlink `%s' (%s)", name,
                                  strerror(EIO));
        }
        sh_kernel_result_clear(&kr);
        sh_kernel_stat ts;
        broken = sh_kernel_stat_path(k, cwd, name, &ts, &kr) != 0;
        sh_kernel_result_clear(&kr);
        if (broken && r->fr_errexit) {
            r->fr_status = 1;
            rv = box_buf_printf(out, "ERROR: broken symbolic link to %s (%s)",
                                target, strerror(ENOENT));
            box_free(target);
            return rv;
        }
    }
    if (out->b_len > 0 && box_buf_puts(out, ", ") != BOX_OK)
        rv = BOX_ENOMEM;
    if (rv == BOX_OK)
        rv = file_kind_out(r, kind, target != NULL ? target : arg, broken,
                           out);
    box_free(target);
    return rv;
}

/* One output line: NAME, the separator, padding to wid, the answer. */
static void
file_one(file_run *r, const char *name, size_t wid)
{
    box_buf line, desc;
    box_buf_init(&line, 1u << 20);
    box_buf_init(&desc, 1u << 20);
    // `-` is the shell's stdin, shown as file shows it.
    bool dash = strcmp(name, "-") == 0;
    const char *shown = dash ? "/dev/stdin" : name;
    box_err rv = dash ? file_stdin(r, &desc) : file_describe(r, name, &desc);
    if (rv == FILE_REPORTED)
        goto out;
    if (rv != BOX_OK) {
        r->fr_status = sh_cmd_err(r->fr_cx, "file", 1, "%s", strerror(ENOMEM));
        r->fr_stop = true;
        goto out;
    }
    if (!r->fr_brief) {
        size_t len = strlen(shown);
        rv = box_buf_append(&line, shown, len + (r->fr_print0 ? 1 : 0));
        if (rv == BOX_OK)
            rv = box_buf_puts(&line, r->fr_sep);
        for (size_t i = len; !r->fr_nopad && i < wid && rv == BOX_OK; i++)
            rv = box_buf_puts(&line, " ");
        if (rv == BOX_OK)
            rv = box_buf_puts(&line, " ");
    }
    if (rv == BOX_OK)
        rv = box_buf_append(&line, desc.b_data, desc.b_len);
    if (rv == BOX_OK)
        rv = box_buf_puts(&line, "\n");
    if (rv != BOX_OK ||
        sh_write(r->fr_cx, 1, line.b_data, line.b_len) != SH_IO_OK)
        r->fr_stop = true;
out:
    box_buf_reset(&line);
    box_buf_reset(&desc);
}


/* -f LIST: one name a line, padded to the list's widest (file reads the
 * list twice; here it is read once and held). */
static void
file_from_list(file_run *r, const char *list)
{
    // file's own words for a list that is not there; a denial or a
    // fault is left to the open, which reports it.
    sh_ctx *cx = r->fr_cx;
    sh_kernel_stat ks;
    sh_kernel_result kr = {0};
    int err = strcmp(list, "-") == 0
                  ? 0
                  : sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, list,
                                        &ks, &kr);
    bool decided =
        kr.kr_outcome != SH_KR_DENIED && kr.kr_outcome != SH_KR_FAULT;
    sh_kernel_result_clear(&kr);
    if (err != 0 && decided) {
        r->fr_status = sh_cmd_err(cx, "file", 1, "Cannot open `%s' (%s)",
                                  list, strerror(err));
        r->fr_stop = true; // file names no operand after that
        return;
    }
    int st = 0;
    sh_input *in = sh_input_open(cx, "file", list, &st);
    if (in == NULL) {
        r->fr_status = st;
        r->fr_stop = true;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0, wid = 0;
    box_buf rec;
    box_buf_init(&rec, SH_LINE_MAX);
    int got;
    while ((got = sh_input_record(in, '\n', &rec)) == 1) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nv = box_realloc(names, nc * sizeof *nv);
            if (nv == NULL)
                break;
            names = nv;
            cap = nc;
        }
        names[n] = box_strndup(rec.b_data != NULL ? rec.b_data : "",
                               rec.b_len);
        if (names[n] == NULL)
            break;
        if (rec.b_len > wid)
            wid = rec.b_len;
        n++;
    }
    box_buf_reset(&rec);
    sh_input_close(in);
    for (size_t i = 0; i < n && !r->fr_stop && !sh_check_stop(r->fr_cx); i++)
        file_one(r, names[i], wid);
    for (size_t i = 0; i < n; i++)
        box_free(names[i]);
    box_free(names);
}

/* Options this box does not give: a magic file of the caller's own
 * (libmagic would open it itself, past the kernel), listing or compiling
 * the database, and looking inside compressed files (Debian's libmagic
 * forks a decompressor for that; the worker starts no process). */
static int
file_refused(sh_ctx *cx, int id)
{
    const char *what =
        id == 'z' || id == 'Z'
            ? "looking inside compressed files"
            : id == 'm' ? "a magic file of your own"
                        : id == 'l' ? "listing the magic database"
                                    : "compiling or printing a magic file";
    return sh_cmd_err(cx, "file", 1, "-%c: %s is not available in this box",
                      id, what);
}

/* -P NAME=VALUE into r; false after file's message. */
static bool
file_param(file_run *r, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t nl = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    for (size_t i = 0; eq != NULL && i < FILE_NPARAMS; i++) {
        if (strlen(file_params[i].fp_name) != nl ||
            strncmp(file_params[i].fp_name, arg, nl) != 0)
            continue;
        // file reads the value as strtoul does: junk is 0.
        unsigned long long v = strtoull(eq + 1, NULL, 0);
        r->fr_param[i] = (size_t)v;
        r->fr_set[i] = true;
        if (file_params[i].fp_param == MAGIC_PARAM_BYTES_MAX)
            r->fr_bytes = (size_t)v;
        return true;
    }
    r->fr_status = sh_cmd_err(r->fr_cx, "file", 1, "Unknown param %s", arg);
    return false;
}

/* -e / --exclude-quiet TEST into r's flags; false after the usage when the
 * test is unknown and not quiet. */
static bool
file_exclude(file_run *r, sh_gopt_iter *it, const char *test, bool quiet)
{
    for (size_t i = 0; i < sizeof file_tests / sizeof file_tests[0]; i++)
        if (strcmp(file_tests[i].ft_name, test) == 0) {
            r->fr_flags |= file_tests[i].ft_flag;
            return true;
        }
    if (quiet)
        return true;
    r->fr_status = sh_gopt_try(it);
    return false;
}

int
sh_cmd_file(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    file_run r = {
        .fr_cx = cx,
        .fr_flags = MAGIC_NO_COMPRESS_FORK, // the worker starts no process
        .fr_bytes = FILE_BYTES_MAX,
        .fr_sep = ":",
    };
    const char **lists = NULL; // -f LISTs, in order
    size_t nlists = 0;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &file_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    bool ok = true;
    while (ok && (id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case '0': r.fr_print0 = true; break;
        case 'b': r.fr_brief = true; break;
        case 'E': r.fr_errexit = true; break;
        case 'h': r.fr_follow = false; break;
        case 'L': r.fr_follow = true; break;
        case 'i': r.fr_flags |= MAGIC_MIME; break;
        case FO_MIME_TYPE: r.fr_flags |= MAGIC_MIME_TYPE; break;
        case FO_MIME_ENC: r.fr_flags |= MAGIC_MIME_ENCODING; break;
        case FO_APPLE: r.fr_flags |= MAGIC_APPLE; break;
        case FO_EXT: r.fr_flags |= MAGIC_EXTENSION; break;
        case 'k': r.fr_flags |= MAGIC_CONTINUE; break;
        case 'r': r.fr_flags |= MAGIC_RAW; break;
        case 'N': r.fr_nopad = true; break;
        case 'F': r.fr_sep = arg; break;
        case 'e':
        case FO_EXCLUDE_QUIET:
            ok = file_exclude(&r, &it, arg, id == FO_EXCLUDE_QUIET);
            break;
        case 'P': ok = file_param(&r, arg); break;
        case 'f': {
            const char **nl = box_realloc(lists, (nlists + 1) * sizeof *nl);
            if (nl == NULL) {
                r.fr_status = sh_cmd_err(cx, "file", 1, "%s",
                                         strerror(ENOMEM));
                ok = false;
                break;
            }
            lists = nl;
            lists[nlists++] = arg;
            break;
        }
        case 'v':
            st = sh_gopt_version(&it);
            goto out;
        case 'c': case 'C': case 'l': case 'm': case 'z': case 'Z':
            r.fr_status = file_refused(cx, id);
            ok = false;
            break;
        default: break; // -d -n -p -s -S: nothing to do here
        }
    }
    if (!ok) {
        st = r.fr_status;
        goto out;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0 && nlists == 0) {
        st = sh_gopt_try(&it);
        goto out;
    }
    for (size_t i = 0; i < nlists && !r.fr_stop; i++)
        file_from_list(&r, lists[i]);
    size_t wid = 0;
    for (int i = 0; i < it.gi_nops; i++) {
        size_t len = strcmp(it.gi_ops[i], "-") == 0 ? strlen("/dev/stdin")
                                                    : strlen(it.gi_ops[i]);
        if (len > wid)
            wid = len;
    }
    for (int i = 0; i < it.gi_nops && !r.fr_stop && !sh_check_stop(cx); i++)
        file_one(&r, it.gi_ops[i], wid);
    st = r.fr_status;
out:
    if (r.fr_magic != NULL)
        magic_close(r.fr_magic);
    box_free(lists);
    sh_gopt_free(&it);
    return st;
}
