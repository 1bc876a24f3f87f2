/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper run inside a sandbox: can it connect(2) to a Unix socket? */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * connect_probe PATH: prints `connected` (exit 0) or `refused: <strerror>`
 * (exit 1). It never sends a byte: reaching the socket is the question.
 */
int
main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: connect_probe SOCKET\n", stderr);
        return 2;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof sa.sun_path) {
        printf("refused: %s\n", strerror(ENAMETOOLONG));
        return 1;
    }
    memcpy(sa.sun_path, argv[1], strlen(argv[1]) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        printf("refused: %s\n", strerror(errno));
        return 1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        printf("refused: %s\n", strerror(errno));
        close(fd);
        return 1;
    }
    close(fd);
    puts("connected");
    return 0;
}
