/* response: a response's header fields and body as a session collected them,
 * for a source that reads responses (a script's response()). Plain data, no
 * I/O; nothing here owns what it points to. */
#ifndef BARRAGE_RESPONSE_H
#define BARRAGE_RESPONSE_H

#include <stddef.h>
#include <stdint.h>

/* One header field as received (HTTP/2 names arrive lower-case); not
 * NUL-terminated. */
struct response_header {
    const char *name, *value;
    size_t name_len, value_len;
};

/* A final response's fields (pseudo-headers and 1xx responses left out) and
 * its body (decoded from chunks), owned by the session that collected them and
 * valid while its outcome is being reported. */
struct response_data {
    const struct response_header *headers;
    size_t header_count;
    const uint8_t *body;
    size_t body_len;
};

#endif
