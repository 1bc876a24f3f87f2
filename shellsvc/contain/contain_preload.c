/* SPDX-License-Identifier: Apache-2.0 */
/* contain_preload: a test helper, a shared object that leaves a mark when
 * the dynamic loader runs it (ld.so --preload), so a test can tell that
 * code from a granted directory never ran. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void
preload_mark(void)
{
    const char *path = getenv("CONTAIN_PRELOAD_MARK");
    int fd;

    if (path == NULL)
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}
