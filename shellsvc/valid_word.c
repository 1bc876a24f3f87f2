/* SPDX-License-Identifier: Apache-2.0 */
/* The broker-written, worker-read validity word (valid_word.h). */
#include "valid_word.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define VW_SIZE 4096 // one page

box_err
valid_word_open(valid_word *w)
{
    w->vw_rw = w->vw_ro = NULL;
    int fd = memfd_create("box-valid", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return BOX_EIO;
    box_err rv = BOX_EIO;
    void *rw = MAP_FAILED, *ro = MAP_FAILED;
    if (ftruncate(fd, VW_SIZE) != 0)
        goto out;
    rw = mmap(NULL, VW_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (rw == MAP_FAILED)
        goto out;
    // After the seal no new writable view can be made of the file, the
    // read-only one below included; the view above keeps writing.
    if (fcntl(fd, F_ADD_SEALS,
              F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW |
                  F_SEAL_SEAL) != 0)
        goto out;
    ro = mmap(NULL, VW_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    if (ro == MAP_FAILED)
        goto out;
    w->vw_rw = rw;
    w->vw_ro = ro;
    atomic_store(w->vw_rw, 0);
    rv = BOX_OK;
out:
    if (rv != BOX_OK && rw != MAP_FAILED)
        munmap(rw, VW_SIZE);
    close(fd);
    return rv;
}

void
valid_word_drop_rw(valid_word *w)
{
    if (w->vw_rw != NULL)
        munmap((void *)w->vw_rw, VW_SIZE);
    w->vw_rw = NULL;
}

void
valid_word_close(valid_word *w)
{
    valid_word_drop_rw(w);
    if (w->vw_ro != NULL)
        munmap((void *)w->vw_ro, VW_SIZE);
    w->vw_ro = NULL;
}
