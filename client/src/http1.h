/* http1: the HTTP/1.1 session (session.h) with keep-alive and pipelining. */
#ifndef BARRAGE_HTTP1_H
#define BARRAGE_HTTP1_H

#include "session.h"

extern const struct protocol http1_protocol;

#endif
