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

/* fd's file: regular and at most max bytes; its size in *size, or -1 with why. */
static int check_fd(int fd, size_t max, size_t *size, char *why, size_t whylen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "is a directory (it takes a regular file)");
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "is %s, not a regular file: its size cannot be known, a read of it might never end",
                 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
        return -1;
    }
    if ((unsigned long long)st.st_size > max) {
        snprintf(why, whylen, "%lld bytes, over the limit of %zu MiB", (long long)st.st_size, max >> 20);
        return -1;
    }
    *size = (size_t)st.st_size;
    return 0;
}

/* path opened for reading without blocking (a FIFO without a writer does not
 * block the open: check_fd refuses it); -1 with why. */
static int open_nonblocking(const char *path, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) snprintf(why, whylen, "%s", strerror(errno));
    return fd;
}

int fileread_check(const char *path, size_t max, char *why, size_t whylen)
{
    size_t size;
    int fd = open_nonblocking(path, why, whylen);
    if (fd < 0) return -1;
    int rc = check_fd(fd, max, &size, why, whylen);
    close(fd);
    return rc;
}

int fileread_path(const char *path, size_t max, char **buf, size_t *len, char *why, size_t whylen)
{
    size_t size;
    *buf = NULL;
    int fd = open_nonblocking(path, why, whylen);
    if (fd < 0) return -1;
    int rc = check_fd(fd, max, &size, why, whylen);
    if (rc == 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK); /* a regular file's reads never block anyway */
        rc = read_all(fd, size, max, buf, len, why, whylen);
    }
    close(fd);
    return rc;
}
