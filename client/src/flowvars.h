/* flowvars: a flow's values at run time (flow.h): a template written out for
 * one user's request, a capture taken from a response (a header, a JSON
 * pointer, a regular expression's group) and the body check. Used by
 * source_flow.c on the worker's thread; nothing here is shared or blocking.
 *
 * Ownership: a flowvars_buf owns its bytes (flowvars_buf_free); everything
 * else is borrowed for the call. */
#ifndef BARRAGE_FLOWVARS_H
#define BARRAGE_FLOWVARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"
#include "response.h"
#include "rng.h"

/* Bytes that grow as needed (reused: no allocation once large enough). */
struct flowvars_buf {
    char *p;
    size_t len, cap;
};

/* Appends n bytes; 0, or -1 when out of memory. */
int flowvars_append(struct flowvars_buf *b, const char *s, size_t n);
void flowvars_buf_free(struct flowvars_buf *b);

/* What a template's variables read: the user (from 1), its iteration, the
 * values its earlier steps captured (values[i] for flow.vars[i]) and the rng
 * ${rand} and ${uuid} draw from. */
struct flowvars_env {
    const struct flow *flow;
    unsigned user;
    uint64_t seq;
    const struct flowvars_buf *values;
    struct rng *rng;
};

/* Appends t written out for env to out; 0, or -1 when out of memory. */
int flowvars_expand(const struct flow_template *t, const struct flowvars_env *env, struct flowvars_buf *out);

/* Appends target written as a request target: a byte RFC 3986 does not allow
 * percent-encoded (a valid %XX kept), an absolute URL's scheme and authority
 * dropped (http[s]://host/path -> /path), "/" for nothing; 0 or -1 (memory). */
int flowvars_target(const char *target, size_t len, struct flowvars_buf *out);

/* Takes capture c from response r into out (replacing what it held): 1 when
 * found, 0 when the response has no such header, no such JSON value (or a
 * body that is not JSON), no match, or a value with a control byte but tab
 * (CR, LF, NUL...: never written into a request); -1 when out of memory. */
int flowvars_capture(const struct flow_capture *c, const struct response_data *r, struct flowvars_buf *out);

/* The value at pointer (RFC 6901, "/a/0/b") in json[0..len), into out
 * (replacing): a string unescaped, anything else as its text. 1, 0 (not
 * there, a token over FLOW_TOKEN_MAX, or not JSON up to it), -1 (memory). */
int flowvars_json_pointer(const char *json, size_t len, const char *pointer, struct flowvars_buf *out);

/* Whether body[0..len) (any bytes) matches re; scratch holds a copy of the
 * body (regexec reads a NUL-terminated string). */
bool flowvars_matches(const regex_t *re, const uint8_t *body, size_t len, struct flowvars_buf *scratch);

/* Whether body[0..len) matches the pattern t (an `expect body ~` with
 * variables) written out for env, each variable's value as literal text
 * (ERE's special bytes escaped; a value holding a NUL matches nothing), and
 * compiled for this call. pattern and scratch are the caller's buffers. 1,
 * 0, or -1 (out of memory, or a pattern regcomp refused). */
int flowvars_matches_pattern(const struct flow_template *t, const struct flowvars_env *env, const uint8_t *body,
                             size_t len, struct flowvars_buf *pattern, struct flowvars_buf *scratch);

#endif
