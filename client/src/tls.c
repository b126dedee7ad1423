/* tls: OpenSSL 3 transport. Non-blocking: WANT_READ/WANT_WRITE become EAGAIN
 * (or handshake's 1/2), so the worker's event loop drives everything. */
#include "tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct tls_client {
    SSL_CTX *ctx;
    char host[256];
    char sni[256]; /* "" for none */
    bool host_is_ip;
    atomic_bool reported; /* the first handshake failure was printed */
    /* --tls-resume: the newest session a run's connection received (owned; NULL: none yet) */
    bool resume;
    pthread_mutex_t session_mu;
    SSL_SESSION *session;
};

/* SSL ex_data index marking a run's connections (the probe's SSL has none):
 * only their sessions are kept. */
static int run_ssl_index = -1;
static pthread_once_t run_ssl_once = PTHREAD_ONCE_INIT;

static void run_ssl_index_make(void)
{
    run_ssl_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

/* OpenSSL's new-session callback (client side: after a TLS 1.2 handshake, or
 * on each TLS 1.3 NewSessionTicket): keeps a copy of the newest in the
 * client's slot. Copies, never the connection's own: OpenSSL marks a
 * connection's session unresumable when the connection ends in an error,
 * and that must not spoil the slot for every other connection. Returns 0:
 * the connection keeps its own reference. */
static int session_keep(SSL *ssl, SSL_SESSION *sess)
{
    struct tls_client *c = SSL_get_ex_data(ssl, run_ssl_index);
    SSL_SESSION *copy = c && SSL_SESSION_is_resumable(sess) ? SSL_SESSION_dup(sess) : NULL;
    if (!copy) return 0;
    pthread_mutex_lock(&c->session_mu);
    SSL_SESSION *old = c->session;
    c->session = copy;
    pthread_mutex_unlock(&c->session_mu);
    SSL_SESSION_free(old);
    return 0;
}

/* A copy of the slot's session for one connection, its own (NULL: none yet,
 * or out of memory: a full handshake). */
static SSL_SESSION *session_take(struct tls_client *c)
{
    pthread_mutex_lock(&c->session_mu);
    SSL_SESSION *sess = c->session ? SSL_SESSION_dup(c->session) : NULL;
    pthread_mutex_unlock(&c->session_mu);
    return sess;
}

static bool is_ip(const char *host)
{
    unsigned char addr[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

/* "h2,http/1.1" -> ALPN wire format; returns its length, 0 when it does not fit. */
static size_t alpn_wire(const char *list, unsigned char *out, size_t cap)
{
    size_t len = 0;
    while (*list) {
        size_t n = strcspn(list, ",");
        if (n == 0 || n > 255 || len + 1 + n > cap) return 0;
        out[len++] = (unsigned char)n;
        memcpy(out + len, list, n);
        len += n;
        list += n + (list[n] == ',');
    }
    return len;
}

static void openssl_reason(char *err, size_t errlen, const char *what)
{
    unsigned long e = ERR_peek_last_error();
    const char *reason = e ? ERR_reason_error_string(e) : NULL;
    snprintf(err, errlen, "%s: %s", what, reason ? reason : "unknown OpenSSL error");
    ERR_clear_error();
}

/* OpenSSL's pass-phrase callback for an encrypted --key: fails at once
 * (the default one waits on the terminal for good), noting that it was asked. */
static int tls_no_passphrase(char *buf, int size, int rwflag, void *asked)
{
    (void)buf, (void)size, (void)rwflag;
    *(bool *)asked = true;
    return -1;
}

/* --cert/--key: the client's certificate chain and key, checked to match; 0 or -1 (err names the file). */
static int tls_client_certificate(struct tls_client *c, const struct tls_options *opt, char *err, size_t errlen)
{
    char what[600];
    bool asked = false;
    if (!opt->cert) return 0;
    SSL_CTX_set_default_passwd_cb(c->ctx, tls_no_passphrase);
    SSL_CTX_set_default_passwd_cb_userdata(c->ctx, &asked);
    if (SSL_CTX_use_certificate_chain_file(c->ctx, opt->cert) != 1) {
        snprintf(what, sizeof what, "cannot load --cert %s (a PEM certificate chain)", opt->cert);
        openssl_reason(err, errlen, what);
        return -1;
    }
    int loaded = SSL_CTX_use_PrivateKey_file(c->ctx, opt->key, SSL_FILETYPE_PEM);
    SSL_CTX_set_default_passwd_cb_userdata(c->ctx, NULL);
    if (loaded != 1 && asked) {
        snprintf(err, errlen, "--key %s is encrypted (it needs a pass phrase): not supported; decrypt it with "
                 "openssl pkey -in KEY -out PLAIN", opt->key);
        ERR_clear_error();
        return -1;
    }
    if (loaded != 1) {
        if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH)
            snprintf(what, sizeof what, "--key %s is not the key of --cert %s", opt->key, opt->cert);
        else
            snprintf(what, sizeof what, "cannot load --key %s (a PEM private key)", opt->key);
        openssl_reason(err, errlen, what);
        return -1;
    }
    if (SSL_CTX_check_private_key(c->ctx) != 1) {
        snprintf(what, sizeof what, "--key %s is not the key of --cert %s", opt->key, opt->cert);
        openssl_reason(err, errlen, what);
        return -1;
    }
    return 0;
}

struct tls_client *tls_client_new(const struct tls_options *opt, char *err, size_t errlen)
{
    struct tls_client *c = calloc(1, sizeof *c);
    if (c) pthread_mutex_init(&c->session_mu, NULL);
    unsigned char alpn[64];
    size_t alpn_len = alpn_wire(opt->alpn, alpn, sizeof alpn);
    if (!c || !(c->ctx = SSL_CTX_new(TLS_client_method()))) {
        openssl_reason(err, errlen, "cannot create the TLS context");
        tls_client_free(c);
        return NULL;
    }
    c->resume = opt->resume;
    pthread_once(&run_ssl_once, run_ssl_index_make);
    if (c->resume && run_ssl_index < 0) {
        snprintf(err, errlen, "cannot set up the TLS session cache");
        tls_client_free(c);
        return NULL;
    }
    /* the client keeps sessions itself (session_keep), never in OpenSSL's internal store;
     * without --tls-resume none is kept (OpenSSL's default for a client) */
    if (c->resume) {
        SSL_CTX_set_session_cache_mode(c->ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(c->ctx, session_keep);
    }
    if (tls_client_certificate(c, opt, err, errlen)) {
        tls_client_free(c);
        return NULL;
    }
    snprintf(c->host, sizeof c->host, "%s", opt->host);
    c->host_is_ip = is_ip(opt->host);
    /* SNI carries host names only (RFC 6066) */
    snprintf(c->sni, sizeof c->sni, "%s", opt->sni ? opt->sni : c->host_is_ip ? "" : opt->host);
    SSL_CTX_set_min_proto_version(c->ctx, TLS1_2_VERSION);
    /* a peer closing without close_notify is an ordinary end of stream for a load test */
    SSL_CTX_set_options(c->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* buffers stay allocated (SSL_MODE_RELEASE_BUFFERS costs a malloc and free per read) */
    SSL_CTX_set_mode(c->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (alpn_len == 0 || SSL_CTX_set_alpn_protos(c->ctx, alpn, (unsigned)alpn_len) != 0) {
        snprintf(err, errlen, "bad ALPN list '%s'", opt->alpn);
        tls_client_free(c);
        return NULL;
    }
    if (opt->insecure) {
        SSL_CTX_set_verify(c->ctx, SSL_VERIFY_NONE, NULL);
        return c;
    }
    SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_set_default_verify_paths(c->ctx) != 1) {
        openssl_reason(err, errlen, "cannot load the system trust store");
        tls_client_free(c);
        return NULL;
    }
    if (opt->cacert && SSL_CTX_load_verify_locations(c->ctx, opt->cacert, NULL) != 1) {
        char what[300];
        snprintf(what, sizeof what, "cannot load --cacert %s", opt->cacert);
        openssl_reason(err, errlen, what);
        tls_client_free(c);
        return NULL;
    }
    return c;
}

void tls_client_free(struct tls_client *c)
{
    if (!c) return;
    SSL_CTX_free(c->ctx);
    SSL_SESSION_free(c->session);
    pthread_mutex_destroy(&c->session_mu);
    free(c);
}

/* Why a handshake failed, in one line. */
static void handshake_reason(SSL *ssl, int saved_errno, char *buf, size_t len)
{
    long verify = SSL_get_verify_result(ssl);
    unsigned long e = ERR_peek_last_error();
    if (verify != X509_V_OK)
        snprintf(buf, len, "certificate verify failed: %s", X509_verify_cert_error_string(verify));
    else if (e && ERR_reason_error_string(e))
        snprintf(buf, len, "%s", ERR_reason_error_string(e));
    else if (saved_errno)
        snprintf(buf, len, "%s", strerror(saved_errno));
    else
        snprintf(buf, len, "the server closed the connection during the handshake");
    ERR_clear_error();
}

static SSL *new_ssl(struct tls_client *c, int fd)
{
    SSL *ssl = SSL_new(c->ctx);
    if (!ssl) return NULL;
    bool ok = SSL_set_fd(ssl, fd) == 1 && (!c->sni[0] || SSL_set_tlsext_host_name(ssl, c->sni) == 1);
    if (ok && SSL_get_verify_mode(ssl) != SSL_VERIFY_NONE) {
        X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
        ok = c->host_is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, c->host) == 1 : SSL_set1_host(ssl, c->host) == 1;
    }
    if (!ok) {
        SSL_free(ssl);
        return NULL;
    }
    SSL_set_connect_state(ssl);
    return ssl;
}

/* ---- transport ---- */

struct tls_state {
    SSL *ssl;
    struct tls_client *client;
    uint64_t received_ns; /* stamped: the stamp of this read's last socket read, 0 for none */
    bool failed;          /* a read or write failed (not EAGAIN, not a clean close) */
};

/* The read BIO of a stamped TLS transport: OpenSSL's socket BIO with a read
 * that keeps the kernel's receive stamp (transport_recv_stamped) in the
 * connection's tls_state (the BIO's data). Made once, shared by all threads. */
static BIO_METHOD *stamped_bio;
static pthread_once_t stamped_bio_once = PTHREAD_ONCE_INIT;

/* As OpenSSL's socket read (retry on EAGAIN, the EOF flag at 0). */
static int stamped_bio_read(BIO *b, char *out, int outl)
{
    struct tls_state *st = BIO_get_data(b);
    if (!out || outl <= 0) return 0;
    errno = 0;
    int n = (int)transport_recv_stamped(BIO_get_fd(b, NULL), out, (size_t)outl, &st->received_ns);
    BIO_clear_retry_flags(b);
    if (n <= 0) {
        if (BIO_sock_should_retry(n)) BIO_set_retry_read(b);
        else if (n == 0) BIO_set_flags(b, BIO_FLAGS_IN_EOF);
    }
    return n;
}

static void stamped_bio_make(void)
{
    const BIO_METHOD *sock = BIO_s_socket();
    BIO_METHOD *m = BIO_meth_new(BIO_TYPE_SOCKET, "socket, stamped reads");
    if (m && BIO_meth_set_read(m, stamped_bio_read) && BIO_meth_set_write(m, BIO_meth_get_write(sock)) &&
        BIO_meth_set_puts(m, BIO_meth_get_puts(sock)) && BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(sock)) &&
        BIO_meth_set_create(m, BIO_meth_get_create(sock)) && BIO_meth_set_destroy(m, BIO_meth_get_destroy(sock)))
        stamped_bio = m;
    else
        BIO_meth_free(m);
}

static int tls_stamp_reads(struct transport *t)
{
    struct tls_state *st = t->state;
    pthread_once(&stamped_bio_once, stamped_bio_make);
    BIO *b = stamped_bio ? BIO_new(stamped_bio) : NULL;
    if (!b || !st || !st->ssl || transport_socket_stamp(t->fd) < 0) {
        BIO_free(b);
        return -1;
    }
    BIO_set_fd(b, t->fd, BIO_NOCLOSE);
    BIO_set_data(b, st);
    SSL_set0_rbio(st->ssl, b); /* writes keep SSL_set_fd's socket BIO */
    t->stamped = true;
    return 0;
}

static int tls_handshake(struct transport *t)
{
    struct tls_state *st = t->state;
    ERR_clear_error();
    int r = SSL_do_handshake(st->ssl);
    if (r == 1) return 0;
    int saved_errno = errno;
    switch (SSL_get_error(st->ssl, r)) {
    case SSL_ERROR_WANT_READ: return 1;
    case SSL_ERROR_WANT_WRITE: return 2;
    default: break;
    }
    char reason[256];
    handshake_reason(st->ssl, saved_errno, reason, sizeof reason);
    if (!atomic_exchange(&st->client->reported, true))
        fprintf(stderr, "barrage: TLS handshake with %s failed: %s\n", st->client->host, reason);
    errno = EPROTO;
    return -1;
}

static ssize_t tls_io_error(struct tls_state *st, int r)
{
    int saved_errno = errno;
    switch (SSL_get_error(st->ssl, r)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    case SSL_ERROR_SYSCALL: errno = saved_errno ? saved_errno : ECONNRESET; break;
    default: errno = EPROTO; break;
    }
    st->failed = true;
    ERR_clear_error();
    return -1;
}

static ssize_t tls_read(struct transport *t, uint8_t *buf, size_t len, uint64_t *received_ns)
{
    struct tls_state *st = t->state;
    size_t total = 0;
    st->received_ns = 0;
    /* One record per call (no read-ahead): what is left stays in the socket,
     * where readiness shows it. Only a record larger than buf leaves
     * decrypted bytes in OpenSSL (SSL_pending), and those are taken now. */
    do {
        size_t got;
        ERR_clear_error();
        int r = SSL_read_ex(st->ssl, buf + total, len - total, &got);
        if (r != 1) {
            if (total == 0) return tls_io_error(st, r);
            break;
        }
        total += got;
    } while (total < len && SSL_pending(st->ssl) > 0);
    if (st->received_ns) *received_ns = st->received_ns; /* stamped: its last socket read's */
    return (ssize_t)total;
}

static ssize_t tls_write(struct transport *t, const uint8_t *buf, size_t len)
{
    struct tls_state *st = t->state;
    size_t done;
    ERR_clear_error();
    int r = SSL_write_ex(st->ssl, buf, len, &done);
    return r == 1 ? (ssize_t)done : tls_io_error(st, r);
}

static void tls_close(struct transport *t)
{
    struct tls_state *st = t->state;
    if (st) {
        /* OpenSSL makes the session of a connection freed without a shutdown
         * unresumable; one that ended without error stays resumable, marked
         * shut down without sending close_notify (the wire as without --tls-resume) */
        if (st->client->resume && st->ssl && !st->failed && SSL_is_init_finished(st->ssl))
            SSL_set_shutdown(st->ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
        SSL_free(st->ssl);
        free(st);
        t->state = NULL;
    }
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
}

static const struct transport_ops tls_ops = {
    .handshake = tls_handshake,
    .read = tls_read,
    .write = tls_write,
    .close = tls_close,
    .stamp_reads = tls_stamp_reads,
};

int transport_tls_init(struct transport *t, int fd, struct tls_client *c)
{
    t->ops = &tls_ops;
    t->fd = fd;
    t->stamped = false;
    struct tls_state *st = calloc(1, sizeof *st);
    t->state = st;
    if (!st || fd < 0) return -1;
    st->client = c;
    st->ssl = new_ssl(c, fd);
    if (!st->ssl) return -1;
    if (c->resume) {
        SSL_set_ex_data(st->ssl, run_ssl_index, c);
        SSL_SESSION *sess = session_take(c);
        if (sess) SSL_set_session(st->ssl, sess); /* takes its own reference */
        SSL_SESSION_free(sess);
    }
    return 0;
}

bool tls_resumed(const struct transport *t)
{
    const struct tls_state *st = t->state;
    return st && st->ssl && SSL_session_reused(st->ssl) == 1;
}

/* ---- probe ---- */

static int wait_fd(int fd, short events, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, timeout_ms);
    return r > 0 ? 0 : -1;
}

int tls_probe(struct tls_client *c, const struct sockaddr *addr, socklen_t addr_len, int timeout_ms,
              struct tls_session_info *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    if ((connect(fd, addr, addr_len) < 0 && (errno != EINPROGRESS || wait_fd(fd, POLLOUT, timeout_ms)))) {
        snprintf(err, errlen, "cannot connect: %s", strerror(errno ? errno : ETIMEDOUT));
        close(fd);
        return -1;
    }
    SSL *ssl = new_ssl(c, fd);
    if (!ssl) {
        openssl_reason(err, errlen, "cannot set up TLS");
        close(fd);
        return -1;
    }
    int rc = -1;
    for (;;) {
        ERR_clear_error();
        int r = SSL_do_handshake(ssl);
        if (r == 1) {
            const unsigned char *proto;
            unsigned proto_len;
            SSL_get0_alpn_selected(ssl, &proto, &proto_len);
            snprintf(info->alpn, sizeof info->alpn, "%.*s", (int)proto_len, proto ? (const char *)proto : "");
            snprintf(info->version, sizeof info->version, "%s", SSL_get_version(ssl));
            rc = 0;
            break;
        }
        int saved_errno = errno, e = SSL_get_error(ssl, r);
        if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) &&
            wait_fd(fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, timeout_ms) == 0)
            continue;
        char reason[256];
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) snprintf(reason, sizeof reason, "timed out");
        else handshake_reason(ssl, saved_errno, reason, sizeof reason);
        snprintf(err, errlen, "TLS handshake failed: %s", reason);
        /* the caller shows this reason: the run's own failures stay quiet */
        atomic_store(&c->reported, true);
        break;
    }
    SSL_free(ssl);
    close(fd);
    return rc;
}
