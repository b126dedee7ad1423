/* fileread: a file read whole into memory, with a bound, for what barrage
 * reads before a run (--urls lists, -B and @BODYFILE bodies; -s scripts,
 * --jwt-key and --cacert files are checked the same way by fileread_check). A read that
 * could never end is refused: only a regular file is read by path (a device
 * such as /dev/zero, a FIFO, a socket or a directory has no size to check and
 * a FIFO without a writer would block for ever: it is opened without blocking
 * and refused), and no more than max bytes (a file over it is refused before
 * it is read). Standard input (--urls -) may be anything, read up to max.
 * A first SIGINT/SIGTERM (signals_caught) stops a read between two chunks,
 * and a blocked read returns EINTR (signals.c installs no SA_RESTART).
 * Ownership: *buf is malloc'd (len bytes and a NUL after them), the caller's;
 * NULL after a failure. */
#ifndef BARRAGE_FILEREAD_H
#define BARRAGE_FILEREAD_H

#include <stddef.h>

/* The limits, documented in README.md: a --urls list (a million lines of
 * ~40 bytes is 40 MB), a body file (-B, @BODYFILE), and all the body files of
 * one list together. */
#define FILEREAD_LIST_MAX ((size_t)256 << 20)
#define FILEREAD_BODY_MAX ((size_t)64 << 20)
#define FILEREAD_BODIES_MAX ((size_t)256 << 20)
/* A file another part reads itself (-s, --jwt-key, --cacert), checked first. */
#define FILEREAD_CONFIG_MAX ((size_t)16 << 20)

/* The regular file at path, at most max bytes: 0 with *buf and *len set, or
 * -1 with the reason (without the path) in why: the system's error, "not a
 * regular file (...)", "N bytes, over the limit of M MiB", "interrupted". */
int fileread_path(const char *path, size_t max, char **buf, size_t *len, char *why, size_t whylen);

/* Whether path is a regular file of at most max bytes, for a file read by
 * another part (Lua, OpenSSL, GnuTLS) that would block on a FIFO or read a
 * device for ever: 0, or -1 with why as fileread_path. */
int fileread_check(const char *path, size_t max, char *why, size_t whylen);

/* Everything left in fd (a pipe, a terminal, a device, a file), at most max
 * bytes: 0 or -1 as fileread_path. */
int fileread_fd(int fd, size_t max, char **buf, size_t *len, char *why, size_t whylen);

#endif
