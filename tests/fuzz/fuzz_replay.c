/* SPDX-License-Identifier: Apache-2.0 */
/* Replays files through a fuzz target's entry point, without libFuzzer. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fuzz.h"

/*
 * A normal test build links each target's LLVMFuzzerTestOneInput to this
 * main, and ctest runs it over tests/fuzz/<target>/: the seeds and every
 * crash libFuzzer kept. Each file is handed over in a buffer of exactly
 * its size, as libFuzzer does, so an over-read is still caught under ASan.
 * A path holding no file at all fails: a wrong path must not pass as an
 * empty corpus.
 */

// Inputs past this are refused rather than replayed (a stray large file).
#define REPLAY_MAX_FILE (16u << 20)

static size_t replay_count;
static int replay_failed;

/* Reads the whole regular file at path into a buffer of its exact size. */
static uint8_t *
replay_read(const char *path, size_t *len)
{
    uint8_t *buf = NULL;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0)
        goto fail;
    if (st.st_size < 0 || (size_t)st.st_size > REPLAY_MAX_FILE) {
        errno = EFBIG;
        goto fail;
    }
    *len = (size_t)st.st_size;
    if ((buf = box_alloc(*len)) == NULL)
        goto fail;
    for (size_t got = 0; got < *len;) {
        ssize_t r = read(fd, buf + got, *len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO; // the file shrank under us
            goto fail;
        }
        got += (size_t)r;
    }
    close(fd);
    return buf;
fail:
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    box_free(buf);
    if (fd >= 0)
        close(fd);
    return NULL;
}

static int
replay_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    size_t len = 0;
    uint8_t *buf;
    if (type != FTW_F)
        return 0;
    // Named before it runs: a crash report then says which input it was.
    printf("replay: %s\n", path);
    fflush(stdout);
    if ((buf = replay_read(path, &len)) == NULL) {
        replay_failed = 1;
        return 0;
    }
    (void)LLVMFuzzerTestOneInput(buf, len);
    box_free(buf);
    replay_count++;
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
        return 100;
    }
    for (int i = 1; i < argc; i++) {
        size_t before = replay_count;
        if (nftw(argv[i], replay_one, 16, FTW_PHYS) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            replay_failed = 1;
        } else if (replay_count == before) {
            fprintf(stderr, "replay: %s: no input files\n", argv[i]);
            replay_failed = 1;
        }
    }
    printf("replay: %zu inputs\n", replay_count);
    return replay_failed;
}
