/* Unit tests of control.c: the commands and what is not one, lines split
 * across reads, an overlong line reported once, a FIFO across writers, and a
 * regular file read from its end as it grows. */
#include "../src/control.c"

#include <stdlib.h>
#include <sys/stat.h>

#include "tap.h"

static enum control_kind kind_of(const char *line)
{
    return control_parse(line, strlen(line)).kind;
}

static void test_parse(void)
{
    struct control_command c = control_parse(" rate  2000.5 \r", 15);
    TAP_CHECK(c.kind == CONTROL_RATE && c.rate == 2000.5, "'rate 2000.5' with blanks and a CR");
    TAP_CHECK(kind_of("stop") == CONTROL_STOP && kind_of("  stop\t") == CONTROL_STOP, "'stop'");
    TAP_CHECK(kind_of("rate 0") == CONTROL_RATE, "'rate 0' pauses");
    TAP_CHECK(kind_of("") == CONTROL_NONE && kind_of("   ") == CONTROL_NONE && kind_of("# rate 5") == CONTROL_NONE,
              "blank lines and comments are no command");
    const char *bad[] = {"rate", "rate -1", "rate abc", "rate 10 20", "rate 1e10", "rate 0.0001", "rate nan",
                         "stop now", "Rate 5", "go"};
    bool all_bad = true;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) all_bad &= kind_of(bad[i]) == CONTROL_BAD;
    TAP_CHECK(all_bad, "bad commands are CONTROL_BAD");
}

static void test_pipe_reads(void)
{
    int fds[2];
    if (pipe(fds)) abort();
    struct control c = {.fd = fds[0], .fifo = true};
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    TAP_CHECK(control_next(&c).kind == CONTROL_NONE, "nothing arrived: none");
    if (write(fds[1], "ra", 2) != 2) abort();
    TAP_CHECK(control_next(&c).kind == CONTROL_NONE, "half a line: none yet");
    if (write(fds[1], "te 300\n\n# x\nstop\nbogus\n", 23) != 23) abort();
    struct control_command a = control_next(&c), b = control_next(&c), d = control_next(&c), e = control_next(&c);
    TAP_CHECK(a.kind == CONTROL_RATE && a.rate == 300 && b.kind == CONTROL_STOP && d.kind == CONTROL_BAD &&
                  strcmp(d.line, "bogus") == 0 && e.kind == CONTROL_NONE,
              "a line split across reads, then stop, then a bad line named");
    char big[400];
    memset(big, 'x', sizeof big);
    if (write(fds[1], big, sizeof big) != sizeof big || write(fds[1], "\nstop\n", 6) != 6) abort();
    a = control_next(&c);
    b = control_next(&c);
    TAP_CHECK(a.kind == CONTROL_BAD && b.kind == CONTROL_STOP && control_next(&c).kind == CONTROL_NONE,
              "an overlong line is reported once, the next line read");
    close(fds[0]);
    close(fds[1]);
}

static void test_files(void)
{
    char dir[] = "/tmp/barrage control XXXXXX", path[64], err[128];
    if (!mkdtemp(dir)) abort();
    snprintf(path, sizeof path, "%s/fifo", dir);
    mkfifo(path, 0600);
    struct control c;
    TAP_CHECK(control_open(&c, path, err, sizeof err) == 0 && control_poll_fd(&c) >= 0, "a FIFO opens at once, pollable");
    for (int i = 0; i < 2; i++) { /* two writers one after the other: no end of file in between */
        int w = open(path, O_WRONLY);
        if (write(w, "rate 7\n", 7) != 7) abort();
        close(w);
        struct control_command cmd = control_next(&c);
        TAP_CHECK(cmd.kind == CONTROL_RATE && cmd.rate == 7, "FIFO writer %d read", i + 1);
    }
    control_close(&c);
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *f = fopen(path, "w");
    fputs("stop\n", f);
    fflush(f);
    TAP_CHECK(control_open(&c, path, err, sizeof err) == 0 && control_poll_fd(&c) < 0, "a regular file opens, not polled");
    TAP_CHECK(control_next(&c).kind == CONTROL_NONE, "what the file held before is no command");
    fputs("rate 9\n", f);
    fflush(f);
    struct control_command cmd = control_next(&c);
    TAP_CHECK(cmd.kind == CONTROL_RATE && cmd.rate == 9, "a line appended while running is read");
    fclose(f);
    control_close(&c);
    snprintf(path, sizeof path, "%s/missing", dir);
    TAP_CHECK(control_open(&c, path, err, sizeof err) == -1 && strstr(err, "No such file"), "a missing file: %s", err);
    unlink(path);
    snprintf(path, sizeof path, "%s/fifo", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/file", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_parse();
    test_pipe_reads();
    test_files();
    TAP_EXIT();
}
