/* tls: the transport interface (transport.h) over OpenSSL 3. One tls_client
 * (the SSL_CTX and the options) is shared by every thread; each connection
 * has its own SSL. Certificates are verified against the system trust store
 * (plus --cacert) unless --insecure. The first handshake failure's reason is
 * printed once to stderr; every failure counts as a tls_errors.
 * --tls-resume (options.resume): the client keeps the newest session the
 * server gave a run's connection (a TLS 1.2 session ID or ticket, a TLS 1.3
 * ticket, as OpenSSL's new-session callback hands it over) in one slot
 * shared by every thread (under a mutex, touched once per connection), and
 * offers it on every new connection; the probe's session is not kept, so
 * the run's first connection makes a full handshake. --cert/--key
 * (options.cert, options.key): a client certificate for servers that ask. */
#ifndef BARRAGE_TLS_H
#define BARRAGE_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "transport.h"

struct tls_client;

struct tls_options {
    const char *host;   /* from the URL: name checked in the certificate */
    const char *sni;    /* NULL: the URL's host unless it is an IP address */
    const char *cacert; /* an extra CA file, or NULL */
    bool insecure;      /* skip verification */
    const char *alpn;   /* comma separated, e.g. "h2,http/1.1" */
    bool resume;        /* --tls-resume: offer the last session on new connections */
    const char *cert;   /* --cert: the client's certificate chain (PEM), or NULL */
    const char *key;    /* --key: its private key (PEM); with cert */
};

/* What a handshake settled. */
struct tls_session_info {
    char alpn[32];    /* negotiated protocol, "" when none */
    char version[16]; /* e.g. "TLSv1.3" */
};

/* Creates the shared client; NULL with the reason in err. */
struct tls_client *tls_client_new(const struct tls_options *opt, char *err, size_t errlen);
void tls_client_free(struct tls_client *c);

/* Wraps a connected, non-blocking socket fd; the transport owns it from now
 * on (even when this fails). handshake returns 1 when it waits to read, 2 to
 * write. Returns 0, or -1 when out of memory. */
int transport_tls_init(struct transport *t, int fd, struct tls_client *c);

/* After a TLS transport's handshake is done: whether it resumed a session
 * (an abbreviated handshake) rather than making a full one. */
bool tls_resumed(const struct transport *t);

/* One blocking connection and handshake within timeout_ms, to learn what the
 * server negotiates. Returns 0, or -1 with the reason in err (prefixed
 * "TLS handshake failed: " when the handshake itself failed). */
int tls_probe(struct tls_client *c, const struct sockaddr *addr, socklen_t addr_len, int timeout_ms,
              struct tls_session_info *info, char *err, size_t errlen);

#endif
