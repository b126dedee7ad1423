/* control: a line buffer over a non-blocking descriptor. */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pacer.h"

int control_open(struct control *c, const char *path, char *err, size_t errlen)
{
    struct stat st;
    *c = (struct control){.fd = -1};
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "--control %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        snprintf(err, errlen, "--control %s: %s (it takes a file or a FIFO)", path,
                 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        return -1;
    }
    c->fifo = S_ISFIFO(st.st_mode);
    /* a FIFO opened for writing too always has a writer: no end of file between echos */
    c->fd = open(path, (c->fifo ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
    if (c->fd < 0) {
        snprintf(err, errlen, "--control %s: %s", path, strerror(errno));
        return -1;
    }
    if (!c->fifo) lseek(c->fd, 0, SEEK_END); /* what the file held before the run is no command */
    return 0;
}

void control_close(struct control *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

int control_poll_fd(const struct control *c)
{
    return c->fifo ? c->fd : -1;
}

static bool blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r';
}

struct control_command control_parse(const char *line, size_t len)
{
    struct control_command cmd = {.kind = CONTROL_BAD};
    size_t n = len < CONTROL_LINE_MAX - 1 ? len : CONTROL_LINE_MAX - 1;
    memcpy(cmd.line, line, n);
    cmd.line[n] = '\0';
    char *s = cmd.line, *end;
    while (blank(*s)) s++;
    for (end = s + strlen(s); end > s && blank(end[-1]); end--) continue;
    if (s == end || *s == '#') {
        cmd.kind = CONTROL_NONE;
        return cmd;
    }
    if (n < len) return cmd; /* cut: not a command we know */
    char word[CONTROL_LINE_MAX];
    size_t w = 0;
    while (s + w < end && !blank(s[w])) w++;
    memcpy(word, s, w);
    word[w] = '\0';
    const char *arg = s + w;
    while (arg < end && blank(*arg)) arg++;
    if (strcmp(word, "stop") == 0 && arg == end) {
        cmd.kind = CONTROL_STOP;
    } else if (strcmp(word, "rate") == 0 && arg < end) {
        char *stop;
        errno = 0;
        double rate = strtod(arg, &stop);
        if (!errno && stop == end && isfinite(rate) && (rate == 0 || (rate >= 0.001 && rate <= PACER_MAX_RATE))) {
            cmd.kind = CONTROL_RATE;
            cmd.rate = rate;
        }
    }
    return cmd;
}

/* Takes the first complete line off buf into *out (CONTROL_NONE for a blank
 * line, a comment, or the rest of an overlong line); false when none is complete. */
static bool take_line(struct control *c, struct control_command *out)
{
    char *nl = memchr(c->buf, '\n', c->len);
    if (!nl) {
        if (c->len < sizeof c->buf) return false;
        /* longer than any command: reported once, the rest of it skipped */
        *out = control_parse(c->buf, c->len);
        out->kind = c->overlong ? CONTROL_NONE : CONTROL_BAD;
        c->len = 0;
        c->overlong = true;
        return true;
    }
    size_t n = (size_t)(nl - c->buf);
    *out = control_parse(c->buf, n);
    if (c->overlong) out->kind = CONTROL_NONE;
    c->overlong = false;
    memmove(c->buf, nl + 1, c->len - n - 1);
    c->len -= n + 1;
    return true;
}

struct control_command control_next(struct control *c)
{
    struct control_command cmd;
    for (;;) {
        while (take_line(c, &cmd))
            if (cmd.kind != CONTROL_NONE) return cmd;
        ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n <= 0) return (struct control_command){.kind = CONTROL_NONE};
        c->len += (size_t)n;
    }
}
