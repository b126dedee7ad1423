/* control: commands read from --control FILE while a run goes on, one per
 * line: `rate N` (requests/s in total from now on; 0 pauses), `stop` (end the
 * run as the deadline would). Blank lines and lines starting with # are
 * skipped. FILE is a FIFO (opened read-write, so it never reports end of file
 * between writers: `echo 'rate 2000' > FILE` works again and again) or a
 * regular file read as it grows from where it ended when the run began
 * (`echo stop >> FILE`). The main thread polls
 * it; nothing here touches the engine. */
#ifndef BARRAGE_CONTROL_H
#define BARRAGE_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#define CONTROL_LINE_MAX 128

enum control_kind {
    CONTROL_NONE, /* no complete line has arrived */
    CONTROL_RATE, /* rate: the new total rate */
    CONTROL_STOP,
    CONTROL_BAD,  /* line: what could not be read */
};

struct control_command {
    enum control_kind kind;
    double rate;
    char line[CONTROL_LINE_MAX]; /* the line as read (cut at CONTROL_LINE_MAX - 1) */
};

struct control {
    int fd;
    bool fifo;
    char buf[CONTROL_LINE_MAX];
    size_t len;
    bool overlong; /* skipping the rest of a line longer than buf */
};

/* Opens path (a FIFO, or a regular file read from its end as it is now).
 * Returns 0, or -1 with the reason in err. */
int control_open(struct control *c, const char *path, char *err, size_t errlen);
void control_close(struct control *c);
/* The descriptor to poll for input, or -1 for a regular file (poll it by
 * calling control_next now and then). */
int control_poll_fd(const struct control *c);
/* The next command that has arrived, reading what is there without
 * blocking; CONTROL_NONE when no complete line is waiting. */
struct control_command control_next(struct control *c);
/* One line (without its newline) as a command; CONTROL_NONE for a blank
 * line or a comment. */
struct control_command control_parse(const char *line, size_t len);

#endif
