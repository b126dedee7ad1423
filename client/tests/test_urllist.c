/* Unit tests of urllist.c: the line forms, origins, comments and blanks,
 * CRLF, and each kind of bad line as "file:line: why". */
#include "../src/urllist.c"
#include "../src/fileread.c"
#include "../src/signals.c"
#include "../src/url.c"

#include <fcntl.h>
#include <unistd.h>

#include "tap.h"

static int parse(struct urllist *l, const char *text, char *err, size_t errlen)
{
    return urllist_parse(l, text, strlen(text), "list.txt", false, "127.0.0.1", "8080", err, errlen);
}

static void test_forms(void)
{
    struct urllist l;
    char err[300] = "";
    const char *text = "/a\r\n# a comment\n\n  POST /b?x=1 @b.json\nhttp://127.0.0.1:9000/c\nDELETE http://[::1]/d\n"
                       "http://127.0.0.1:9000\n/e";
    int rc = parse(&l, text, err, sizeof err);
    TAP_CHECK(rc == 0 && l.count == 6, "six requests, comments and blank lines skipped (%d, %s)", rc, err);
    if (rc) return;
    TAP_CHECK(!strcmp(l.lines[0].method, "GET") && !strcmp(l.lines[0].path, "/a") && l.lines[0].origin == 0 &&
                  l.lines[0].lineno == 1, "a path: GET on the command line's origin, CR dropped");
    TAP_CHECK(!strcmp(l.lines[1].method, "POST") && !strcmp(l.lines[1].path, "/b?x=1") &&
                  !strcmp(l.lines[1].body_file, "b.json") && l.lines[1].lineno == 4, "a method, a path, a body file");
    TAP_CHECK(l.lines[2].origin == 1 && !strcmp(l.lines[2].path, "/c") && !strcmp(l.origins[1].authority, "127.0.0.1:9000"),
              "an absolute URL on another port: a second origin");
    TAP_CHECK(l.lines[3].origin == 2 && !strcmp(l.origins[2].host, "::1") && !strcmp(l.origins[2].authority, "[::1]") &&
                  !strcmp(l.lines[3].method, "DELETE"), "IPv6 in brackets, the default port left out of the authority");
    TAP_CHECK(l.lines[4].origin == 1 && !strcmp(l.lines[4].path, "/"), "the same origin again, no path: /");
    TAP_CHECK(l.origin_count == 3 && !strcmp(l.origins[0].authority, "127.0.0.1:8080"), "three origins, 0 the command line's");
    urllist_free(&l);
}

static void test_errors(void)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"/a\nGET\n", "list.txt:2: no target after the method"},
        {"G(T /a\n", "list.txt:1: bad method 'G(T'"},
        {"/a\n\nGET /a @b c\n", "list.txt:3: too many fields (expected [METHOD] TARGET [@BODYFILE])"},
        {"GET /a b\n", "list.txt:1: bad body 'b' (expected @FILE)"},
        {"https://h/a\n", "list.txt:1: every URL must be http:// as the command line's: 'https://h/a'"},
        {"http://h:99999/a\n", "list.txt:1: bad port: 'http://h:99999/a'"},
        {"http://:80/a\n", "list.txt:1: bad host: 'http://:80/a'"},
        {"GET a\n", "list.txt:1: bad target 'a' (a path from / or an absolute URL)"},
        {"/a\x01\n", "list.txt:1: bad character in target '/a\x01'"},
        {"# nothing\n\n", "list.txt:2: no request in the list"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct urllist l;
        char err[300] = "";
        int rc = parse(&l, bad[i].text, err, sizeof err);
        TAP_CHECK(rc == -1 && !strcmp(err, bad[i].why) && l.count == 0, "refused: %s (want %s)", err, bad[i].why);
    }
}

/* urllist_read then urllist_load, as cli.c and source_gen.c do */
static int load_file(struct urllist *l, const char *path, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (urllist_read(path, &text, &len, err, errlen)) return -1;
    int rc = urllist_load(l, text, len, path, false, "h", "80", err, errlen);
    free(text);
    return rc;
}

static void test_load_bodies(void)
{
    char dir[] = "/tmp/urllist test.XXXXXX", path[200], body[200];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/list.txt", dir);
    snprintf(body, sizeof body, "%s/b.json", dir);
    FILE *f = fopen(path, "w");
    fputs("POST /a @b.json\nPOST /b @missing\n", f);
    fclose(f);
    f = fopen(body, "w");
    fputs("{\"k\":1}", f);
    fclose(f);
    struct urllist l;
    char err[300] = "";
    int rc = load_file(&l, path, err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "list.txt:2: cannot read body file") && strstr(err, "missing"),
              "a missing body file: file:line (%s)", err);
    f = fopen(path, "w");
    fputs("POST /a @b.json\n", f);
    fclose(f);
    rc = load_file(&l, path, err, sizeof err);
    TAP_CHECK(rc == 0 && l.lines[0].body_len == 7 && !memcmp(l.lines[0].body, "{\"k\":1}", 7),
              "a body file read relative to the list's folder");
    if (rc == 0) urllist_free(&l);
    f = fopen(path, "w");
    fputs("POST /a @b.json\nPUT /b @b.json\n/c\nPOST /d @b.json\n", f);
    fclose(f);
    rc = load_file(&l, path, err, sizeof err);
    TAP_CHECK(rc == 0 && l.body_count == 1 && l.lines[1].body == l.lines[0].body && l.lines[3].body == l.lines[0].body &&
                  l.lines[3].body_len == 7 && !l.lines[2].body,
              "a body file named by three lines is read once, the lines share it (%s)", err);
    if (rc == 0) urllist_free(&l);
    remove(body);
    remove(path);
    rmdir(dir);
}

/* writes text to path; the first URL of the file, or the error, into out */
static int first_url_of(const char *path, const char *content, char *out, size_t cap)
{
    FILE *f = fopen(path, "w");
    if (!f) return -2;
    fputs(content, f);
    fclose(f);
    char *url = NULL, *text;
    size_t len;
    int rc = urllist_read(path, &text, &len, out, cap);
    if (rc) return rc;
    rc = urllist_first_url(text, len, path, &url, out, cap);
    free(text);
    if (rc == 0) snprintf(out, cap, "%s", url);
    free(url);
    return rc;
}

static void test_first_url(void)
{
    char dir[] = "/tmp/urllist first.XXXXXX", path[200], out[300];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/list.txt", dir);
    int rc = first_url_of(path, "# a list\r\n\n  POST\thttp://h:81/a?b=1 @x\n/b\n", out, sizeof out);
    TAP_CHECK(rc == 0 && !strcmp(out, "http://h:81/a?b=1"), "the first request line's URL, after a method (%s)", out);
    rc = first_url_of(path, "https://[::1]/\r\n", out, sizeof out);
    TAP_CHECK(rc == 0 && !strcmp(out, "https://[::1]/"), "a CRLF line (%s)", out);
    rc = first_url_of(path, "\n# only\n/a\nhttp://h/b\n", out, sizeof out);
    TAP_CHECK(rc == -1 && strstr(out, "list.txt:3: the first request is a path ('/a')"), "a path first: file:line (%s)",
              out);
    rc = first_url_of(path, "# nothing\n\n", out, sizeof out);
    TAP_CHECK(rc == -1 && strstr(out, "list.txt:2: no request in the list"), "no request (%s)", out);
    rc = first_url_of(path, "", out, sizeof out);
    TAP_CHECK(rc == -1 && strstr(out, "list.txt: no request in the list"), "an empty file, no line named (%s)", out);
    rc = first_url_of(path, "http://h/a\rb\n", out, sizeof out);
    TAP_CHECK(rc == -1 && strstr(out, "list.txt:1: bad character in target"), "a CR inside the line, as the parser (%s)",
              out);
    rc = first_url_of(path, "\r\n\r\nhttp://h/\r\n", out, sizeof out);
    TAP_CHECK(rc == 0 && !strcmp(out, "http://h/"), "CRLF lines before it (%s)", out);
    rc = first_url_of(path, "DELETE\n", out, sizeof out);
    TAP_CHECK(rc == -1 && strstr(out, "list.txt:1: no target after the method"), "a method alone (%s)", out);
    remove(path);
    rmdir(dir);
    char *text = (char *)"untouched";
    size_t len;
    rc = urllist_read("/nonexistent/urls.txt", &text, &len, out, sizeof out);
    TAP_CHECK(rc == -1 && text == NULL && strstr(out, "--urls /nonexistent/urls.txt: No such file"),
              "a missing file (%s)", out);
}

/* "-" is standard input (h2load -i -): read whole, named "stdin" in errors,
 * body files from the working folder. */
static void test_stdin(void)
{
    char dir[] = "/tmp/urllist stdin.XXXXXX", path[200], cwd[4096], err[300] = "";
    if (!mkdtemp(dir) || !getcwd(cwd, sizeof cwd)) return;
    snprintf(path, sizeof path, "%s/in.txt", dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 2000; i++) fprintf(f, "/p%d\n", i); /* more than one read's 4 KiB */
    fputs("POST /last @b.txt\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/b.txt", dir);
    f = fopen(path, "w");
    fputs("body", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/in.txt", dir);
    int saved = dup(0), in = open(path, O_RDONLY);
    dup2(in, 0);
    close(in);
    char *text;
    size_t len;
    int rc = urllist_read("-", &text, &len, err, sizeof err);
    dup2(saved, 0);
    close(saved);
    TAP_CHECK(rc == 0 && len > 4096 && !memcmp(text, "/p0\n", 4), "\"-\" reads standard input whole (%zu bytes)",
              rc == 0 ? len : 0);
    struct urllist l;
    if (rc == 0 && chdir(dir) == 0) {
        rc = urllist_load(&l, text, len, "-", false, "h", "80", err, sizeof err);
        TAP_CHECK(rc == 0 && l.count == 2001 && l.lines[2000].body_len == 4, "its body files from the working folder (%s)",
                  err);
        if (rc == 0) urllist_free(&l);
        if (chdir(cwd)) return;
    }
    free(text);
    rc = urllist_load(&l, "/a\nGET\n", 7, "-", false, "h", "80", err, sizeof err);
    TAP_CHECK(rc == -1 && !strcmp(err, "stdin:2: no target after the method"), "its errors name stdin (%s)", err);
    char *url = NULL;
    rc = urllist_first_url("/a\n", 3, urllist_name("-"), &url, err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "stdin:1: the first request is a path"), "and its first line too (%s)", err);
    remove(path);
    snprintf(path, sizeof path, "%s/b.txt", dir);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    test_forms();
    test_errors();
    test_load_bodies();
    test_first_url();
    test_stdin();
    TAP_EXIT();
}
