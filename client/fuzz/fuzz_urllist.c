/* libFuzzer target for urllist.c, the --urls list parser. The first byte
 * chooses the command line's scheme (bit 0: https); the rest is the list.
 * Checked on any input: urllist_parse either fails with "list:LINE: why" and
 * leaves the list empty, or gives at least one request, each with a method of
 * token characters, a path from '/' of visible ASCII only (nothing that could
 * add a line to a request), an origin that exists, and a line number within
 * the text; every origin's port is 1..65535. urllist_first_url either fails
 * with "list:LINE: why" or gives a target with "://" of visible ASCII (whose
 * scheme and origin url.c then checks). Any violation is a crash. */
#include "../src/urllist.c"
#include "../src/fileread.c"
#include "../src/signals.c"
#include "../src/url.c"

#include <stdint.h>

static void check_list(const struct urllist *l, size_t lines_in_text)
{
    if (l->count == 0 || l->origin_count == 0) abort();
    for (size_t i = 0; i < l->count; i++) {
        const struct urllist_line *ln = &l->lines[i];
        if (!ln->method[0] || ln->path[0] != '/' || ln->origin >= l->origin_count || ln->lineno == 0 ||
            ln->lineno > lines_in_text)
            abort();
        for (const char *c = ln->method; *c; c++)
            if (!tchar(*c)) abort();
        for (const char *c = ln->path; *c; c++)
            if (!target_char(*c)) abort();
    }
    for (size_t i = 0; i < l->origin_count; i++) {
        long port = strtol(l->origins[i].port, NULL, 10);
        if (!l->origins[i].host[0] || port < 1 || port > 65535) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    bool tls = data[0] & 1;
    const char *text = (const char *)data + 1;
    size_t len = size - 1, lines_in_text = 1;
    for (size_t i = 0; i < len; i++) lines_in_text += text[i] == '\n';
    struct urllist l;
    char err[512];
    if (urllist_parse(&l, text, len, "list", tls, "127.0.0.1", "8080", err, sizeof err) == 0) {
        check_list(&l, lines_in_text);
        urllist_free(&l);
    } else if (strncmp(err, "list:", 5) || l.count || l.lines || l.origins) {
        abort();
    }
    char *url = NULL;
    if (urllist_first_url(text, len, "list", &url, err, sizeof err) == 0) {
        if (!strstr(url, "://") || !visible(url)) abort();
        free(url);
    } else if (url || strncmp(err, "list:", 5)) {
        abort();
    }
    return 0;
}
