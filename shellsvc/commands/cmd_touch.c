/* SPDX-License-Identifier: Apache-2.0 */
/* touch file...: creates missing files, renews times, through the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "sh_internal.h"

/* The session has no umask yet: the mode redirections use. */
#define TOUCH_MODE 0666

/*
 * One fs:write write_content open with O_CREAT and no O_TRUNC, so an
 * existing file keeps its bytes; its times are then set to now on the
 * descriptor that was decided. Returns 0, 1 or 125.
 */
static int
touch_one(sh_ctx *cx, const char *path)
{
    sh_kernel_result r = {0};
    sh_kernel_file *f = NULL;
    if (path[0] == '\0') // the kernel would read "" as the cwd
        return sh_cmd_err(cx, "touch", 1, ": %s", strerror(ENOENT));
    int err = sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, path,
                             O_WRONLY | O_CREAT, TOUCH_MODE, &f, &r);
    if (r.kr_outcome == SH_KR_OS_ERROR && (err == EISDIR || err == ENXIO)) {
        // GNU touches a directory (or a FIFO, socket or device, which the
        // kernel never opens) successfully; it is there, which is all we
        // can give without a set-times operation.
        sh_kernel_result_clear(&r);
        return 0;
    }
    if (err != 0)
        return sh_fs_fail(cx, "touch", path, &r);
    sh_kernel_result_clear(&r);
    int terr = sh_kernel_touch(f);
    sh_kernel_close(f);
    if (terr != 0)
        return sh_cmd_err(cx, "touch", 1, "%s: %s", path, strerror(terr));
    return 0;
}

/*
 * touch file...: creates each missing file (box-spec §3.6: touch is an
 * open for write, fs:write write_content) and sets its times to now.
 */
int
sh_cmd_touch(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int status = 0;
    if (o->o_ind >= argc)
        return sh_cmd_err(cx, "touch", 1, "missing file operand");
    for (int i = o->o_ind; i < argc; i++) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        int rc = touch_one(cx, argv[i]);
        if (rc == BOX_STATUS_FAULT)
            return BOX_STATUS_FAULT;
        if (rc != 0)
            status = 1;
    }
    return status;
}
