/* fileread: bounded whole-file reads (contract in fileread.h). */
#include "fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "signals.h"

#define CHUNK 65536

/* Reads fd to its end, at most max bytes, starting with room for hint. */
static int read_all(int fd, size_t hint, size_t max, char **buf, size_t *len, char *why, size_t whylen)
{
    size_t cap = (hint < CHUNK ? CHUNK : hint) + 2, n = 0; /* one byte more than hint shows the end; a NUL */
    char *b = malloc(cap);
    const char *stop = b ? NULL : "out of memory";
    while (!stop) {
        if (signals_caught()) {
            stop = "interrupted";
            break;
        }
        if (cap - n < 2) { /* room for one more byte and the NUL */
            size_t more = 2 * cap > max + 2 ? max + 2 : 2 * cap;
            char *bigger = realloc(b, more);
            if (!bigger) {
                stop = "out of memory";
                break;
            }
            b = bigger;
            cap = more;
        }
        size_t want = cap - n - 1 < CHUNK ? cap - n - 1 : CHUNK;
        ssize_t r = read(fd, b + n, want);
        if (r < 0 && errno == EINTR) continue; /* the loop's check ends it when it was SIGINT/SIGTERM */
        if (r < 0) stop = strerror(errno);
        else if (r == 0) break;
        else if ((n += (size_t)r) > max) stop = "";
    }
    if (stop) {
        free(b);
        if (*stop) snprintf(why, whylen, "%s", stop);
        else snprintf(why, whylen, "over the limit of %zu MiB", max >> 20);
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int fileread_fd(int fd, size_t max, char **buf, size_t *len, char *why, size_t whylen)
{
    *buf = NULL;
    return read_all(fd, 0, max, buf, len, why, whylen);
}

int fileread_path(const char *path, size_t max, char **buf, size_t *len, char *why, size_t whylen)
{
    /* O_NONBLOCK: a FIFO without a writer does not block the open (and is refused below) */
    *buf = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "not a regular file (%s: its size cannot be known, a read of it might never end)",
                 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                                                                : "a device");
    } else if ((unsigned long long)st.st_size > max) {
        snprintf(why, whylen, "%lld bytes, over the limit of %zu MiB", (long long)st.st_size, max >> 20);
    } else {
        /* a regular file's reads do not block: back to blocking only for clarity */
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        rc = read_all(fd, (size_t)st.st_size, max, buf, len, why, whylen);
    }
    close(fd);
    return rc;
}
