/* quic: a QUIC client connection over ngtcp2 0.12 and GnuTLS (contract in
 * quic.h). ngtcp2 does the transport (packets, loss recovery, flow control,
 * the timers); GnuTLS, through ngtcp2's crypto helper, does the handshake and
 * the certificate check. Timestamps handed to ngtcp2 are nanoseconds of
 * CLOCK_MONOTONIC. A fatal error on our side queues a CONNECTION_CLOSE that
 * the next quic_conn_write gives out once. */
#include "quic.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_WINDOW (4u << 20)  /* initial per-stream receive window */
#define CONN_WINDOW (16u << 20)   /* initial connection receive window */
#define MAX_STREAM_WINDOW (32u << 20)
#define MAX_CONN_WINDOW (128u << 20)
#define PEER_UNI_STREAMS 16       /* the server's control and QPACK streams (and spares) */
#define SCID_LEN 17
#define DCID_LEN 18
#define PULL_VECS 16
/* TLS 1.3 only, without the middlebox compatibility mode (RFC 9001, 8.4) */
#define PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:%DISABLE_TLS13_COMPAT_MODE"

struct quic_client {
    gnutls_certificate_credentials_t cred;
    char host[256], sni[256];
    bool insecure;
    uint64_t handshake_timeout_us, idle_timeout_us;
};

struct quic_conn {
    const struct quic_client *client;
    ngtcp2_conn *conn;
    gnutls_session_t tls;
    ngtcp2_crypto_conn_ref ref;
    struct sockaddr_storage local, remote;
    const struct quic_events *ev;
    void *user;
    enum quic_end end;
    uint64_t code;
    bool close_pending; /* a CONNECTION_CLOSE to write */
    ngtcp2_connection_close_error ccerr;
    bool handshake_done;
    char reason[200];
};

static ngtcp2_tstamp ts_of(uint64_t us)
{
    return (ngtcp2_tstamp)us * 1000;
}

const char *quic_library_version(void)
{
    return ngtcp2_version(0)->version_str;
}

/* ---- the shared client ---- */

void quic_client_free(struct quic_client *c)
{
    if (!c) return;
    if (c->cred) gnutls_certificate_free_credentials(c->cred);
    free(c);
}

static bool is_ip(const char *host)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

static int load_trust(struct quic_client *c, const struct quic_options *opt, char *err, size_t errlen)
{
    if (!opt->insecure && gnutls_certificate_set_x509_system_trust(c->cred) < 0) {
        snprintf(err, errlen, "cannot load the system's CA certificates");
        return -1;
    }
    if (!opt->cacert) return 0;
    FILE *f = fopen(opt->cacert, "r");
    if (!f) {
        snprintf(err, errlen, "--cacert %s: cannot be read", opt->cacert);
        return -1;
    }
    fclose(f);
    if (gnutls_certificate_set_x509_trust_file(c->cred, opt->cacert, GNUTLS_X509_FMT_PEM) <= 0) {
        snprintf(err, errlen, "--cacert %s: no PEM certificate in it", opt->cacert);
        return -1;
    }
    return 0;
}

/* --cert/--key: the certificate GnuTLS sends when the server asks for one; 0 or -1. */
static int load_client_certificate(struct quic_client *c, const struct quic_options *opt, char *err, size_t errlen)
{
    if (!opt->cert) return 0;
    int r = gnutls_certificate_set_x509_key_file2(c->cred, opt->cert, opt->key, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (r >= 0) return 0;
    /* GnuTLS asks for no pass phrase: an encrypted key fails to decrypt without one */
    if (r == GNUTLS_E_DECRYPTION_FAILED)
        snprintf(err, errlen, "--key %s is encrypted (it needs a pass phrase): not supported; decrypt it with "
                 "openssl pkey -in KEY -out PLAIN", opt->key);
    else
        snprintf(err, errlen, "cannot load --cert %s with --key %s: %s", opt->cert, opt->key, gnutls_strerror(r));
    return -1;
}

struct quic_client *quic_client_new(const struct quic_options *opt, char *err, size_t errlen)
{
    struct quic_client *c = calloc(1, sizeof *c);
    if (!c || gnutls_certificate_allocate_credentials(&c->cred) < 0) {
        snprintf(err, errlen, "out of memory");
        quic_client_free(c);
        return NULL;
    }
    if (load_trust(c, opt, err, errlen) || load_client_certificate(c, opt, err, errlen)) {
        quic_client_free(c);
        return NULL;
    }
    snprintf(c->host, sizeof c->host, "%s", opt->host);
    if (opt->sni) snprintf(c->sni, sizeof c->sni, "%s", opt->sni);
    else if (!is_ip(opt->host)) snprintf(c->sni, sizeof c->sni, "%s", opt->host);
    c->insecure = opt->insecure;
    c->handshake_timeout_us = opt->handshake_timeout_us;
    c->idle_timeout_us = opt->idle_timeout_us;
    return c;
}

/* ---- ngtcp2 callbacks ---- */

static ngtcp2_conn *get_conn(ngtcp2_crypto_conn_ref *ref)
{
    return ((struct quic_conn *)ref->user_data)->conn;
}

static void rand_cb(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
    (void)ctx;
    gnutls_rnd(GNUTLS_RND_RANDOM, dest, len);
}

static int new_cid_cb(ngtcp2_conn *conn, ngtcp2_cid *cid, uint8_t *token, size_t cidlen, void *user)
{
    (void)conn;
    (void)user;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, cid->data, cidlen) < 0 ||
        gnutls_rnd(GNUTLS_RND_RANDOM, token, NGTCP2_STATELESS_RESET_TOKENLEN) < 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    cid->datalen = cidlen;
    return 0;
}

static int handshake_completed_cb(ngtcp2_conn *conn, void *user)
{
    struct quic_conn *q = user;
    (void)conn;
    gnutls_datum_t alpn = {0};
    if (gnutls_alpn_get_selected_protocol(q->tls, &alpn) != 0 || alpn.size != 2 || memcmp(alpn.data, "h3", 2) != 0) {
        snprintf(q->reason, sizeof q->reason, "the server did not choose ALPN h3");
        q->end = QUIC_END_TLS;
        return NGTCP2_ERR_CALLBACK_FAILURE;
    }
    q->handshake_done = true;
    return q->ev->handshake_done(q->user) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int recv_stream_data_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t offset, const uint8_t *data,
                               size_t len, void *user, void *stream_user)
{
    struct quic_conn *q = user;
    (void)conn;
    (void)offset;
    (void)stream_user;
    bool fin = flags & NGTCP2_STREAM_DATA_FLAG_FIN;
    return q->ev->stream_data(q->user, id, data, len, fin) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int acked_cb(ngtcp2_conn *conn, int64_t id, uint64_t offset, uint64_t len, void *user, void *stream_user)
{
    struct quic_conn *q = user;
    (void)conn;
    (void)offset;
    (void)stream_user;
    return q->ev->acked(q->user, id, len) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int stream_close_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t app_error, void *user,
                           void *stream_user)
{
    struct quic_conn *q = user;
    (void)conn;
    (void)stream_user;
    if (!(flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET)) app_error = UINT64_MAX;
    return q->ev->stream_close(q->user, id, app_error) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int stream_reset_cb(ngtcp2_conn *conn, int64_t id, uint64_t final_size, uint64_t app_error, void *user,
                           void *stream_user)
{
    struct quic_conn *q = user;
    (void)conn;
    (void)final_size;
    (void)stream_user;
    return q->ev->stream_reset(q->user, id, app_error) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int extend_stream_cb(ngtcp2_conn *conn, int64_t id, uint64_t max_data, void *user, void *stream_user)
{
    struct quic_conn *q = user;
    (void)conn;
    (void)max_data;
    (void)stream_user;
    return q->ev->unblock(q->user, id) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static const ngtcp2_callbacks callbacks = {
    .client_initial = ngtcp2_crypto_client_initial_cb,
    .recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb,
    .handshake_completed = handshake_completed_cb,
    .encrypt = ngtcp2_crypto_encrypt_cb,
    .decrypt = ngtcp2_crypto_decrypt_cb,
    .hp_mask = ngtcp2_crypto_hp_mask_cb,
    .recv_stream_data = recv_stream_data_cb,
    .acked_stream_data_offset = acked_cb,
    .stream_close = stream_close_cb,
    .recv_retry = ngtcp2_crypto_recv_retry_cb,
    .rand = rand_cb,
    .get_new_connection_id = new_cid_cb,
    .update_key = ngtcp2_crypto_update_key_cb,
    .stream_reset = stream_reset_cb,
    .extend_max_stream_data = extend_stream_cb,
    .delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb,
    .delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb,
    .get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb,
    .version_negotiation = ngtcp2_crypto_version_negotiation_cb,
};

/* ---- a connection ---- */

static int tls_setup(struct quic_conn *q)
{
    const struct quic_client *c = q->client;
    gnutls_datum_t alpn = {(unsigned char *)"h3", 2};
    if (gnutls_init(&q->tls, GNUTLS_CLIENT) < 0) {
        q->tls = NULL;
        return -1;
    }
    if (gnutls_priority_set_direct(q->tls, PRIORITIES, NULL) < 0 ||
        ngtcp2_crypto_gnutls_configure_client_session(q->tls) != 0 ||
        gnutls_credentials_set(q->tls, GNUTLS_CRD_CERTIFICATE, c->cred) < 0 ||
        gnutls_alpn_set_protocols(q->tls, &alpn, 1, GNUTLS_ALPN_MANDATORY) < 0)
        return -1;
    if (c->sni[0] && gnutls_server_name_set(q->tls, GNUTLS_NAME_DNS, c->sni, strlen(c->sni)) < 0) return -1;
    if (!c->insecure) gnutls_session_set_verify_cert(q->tls, c->host, 0);
    q->ref = (ngtcp2_crypto_conn_ref){.get_conn = get_conn, .user_data = q};
    gnutls_session_set_ptr(q->tls, &q->ref);
    return 0;
}

static void random_cid(ngtcp2_cid *cid, size_t len)
{
    cid->datalen = len;
    gnutls_rnd(GNUTLS_RND_RANDOM, cid->data, len);
}

static int conn_setup(struct quic_conn *q, uint64_t now_us)
{
    const struct quic_client *c = q->client;
    ngtcp2_cid dcid, scid;
    random_cid(&dcid, DCID_LEN);
    random_cid(&scid, SCID_LEN);
    ngtcp2_path path = {
        .local = {.addr = (ngtcp2_sockaddr *)&q->local, .addrlen = sizeof q->local},
        .remote = {.addr = (ngtcp2_sockaddr *)&q->remote, .addrlen = sizeof q->remote},
    };
    path.local.addrlen = q->local.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    path.remote.addrlen = q->remote.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    ngtcp2_settings settings;
    ngtcp2_settings_default(&settings);
    settings.initial_ts = ts_of(now_us);
    settings.handshake_timeout = ts_of(c->handshake_timeout_us);
    settings.max_window = MAX_CONN_WINDOW;
    settings.max_stream_window = MAX_STREAM_WINDOW;
    ngtcp2_transport_params params;
    ngtcp2_transport_params_default(&params);
    params.initial_max_stream_data_bidi_local = STREAM_WINDOW;
    params.initial_max_stream_data_uni = STREAM_WINDOW;
    params.initial_max_data = CONN_WINDOW;
    params.initial_max_streams_uni = PEER_UNI_STREAMS;
    params.initial_max_streams_bidi = 0;
    params.max_idle_timeout = ts_of(c->idle_timeout_us);
    if (ngtcp2_conn_client_new(&q->conn, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, &callbacks, &settings, &params,
                               NULL, q) != 0) {
        q->conn = NULL;
        return -1;
    }
    ngtcp2_conn_set_tls_native_handle(q->conn, q->tls);
    return 0;
}

struct quic_conn *quic_conn_new(const struct quic_client *c, const struct sockaddr *local, socklen_t local_len,
                                const struct sockaddr *remote, socklen_t remote_len, const struct quic_events *ev,
                                void *user, uint64_t now_us)
{
    struct quic_conn *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->client = c;
    q->ev = ev;
    q->user = user;
    memcpy(&q->local, local, local_len < sizeof q->local ? local_len : sizeof q->local);
    memcpy(&q->remote, remote, remote_len < sizeof q->remote ? remote_len : sizeof q->remote);
    if (tls_setup(q) || conn_setup(q, now_us)) {
        quic_conn_free(q);
        return NULL;
    }
    return q;
}

void quic_conn_free(struct quic_conn *q)
{
    if (!q) return;
    if (q->conn) ngtcp2_conn_del(q->conn);
    if (q->tls) gnutls_deinit(q->tls);
    free(q);
}

/* Why the TLS handshake failed, in one line. */
static void tls_reason(struct quic_conn *q)
{
    unsigned status = gnutls_session_get_verify_cert_status(q->tls);
    gnutls_datum_t text = {0};
    if (q->reason[0]) return;
    if (status && gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) == 0) {
        snprintf(q->reason, sizeof q->reason, "certificate verify failed: %s", (const char *)text.data);
        gnutls_free(text.data);
    } else if (ngtcp2_conn_get_tls_alert(q->conn)) {
        snprintf(q->reason, sizeof q->reason, "TLS alert %u", (unsigned)ngtcp2_conn_get_tls_alert(q->conn));
    } else {
        snprintf(q->reason, sizeof q->reason, "the TLS handshake failed");
    }
}

/* A fatal error from ngtcp2 (rv): the connection ends; what the peer said
 * when it closed (draining), or our CONNECTION_CLOSE queued. */
static void conn_failed(struct quic_conn *q, int rv)
{
    if (rv == NGTCP2_ERR_DRAINING || rv == NGTCP2_ERR_CLOSING) {
        ngtcp2_connection_close_error ccerr;
        ngtcp2_conn_get_connection_close_error(q->conn, &ccerr);
        q->code = ccerr.error_code;
        if (q->end == QUIC_END_NONE)
            q->end = ccerr.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION ? QUIC_END_PEER_APP
                                                                                      : QUIC_END_PEER_TRANSPORT;
        if (!q->handshake_done && q->end == QUIC_END_PEER_TRANSPORT && ccerr.error_code >= 0x100 &&
            ccerr.error_code <= 0x1ff) {
            q->end = QUIC_END_TLS; /* a TLS alert from the server (CRYPTO_ERROR) */
            snprintf(q->reason, sizeof q->reason, "the server sent TLS alert %u", (unsigned)(ccerr.error_code - 0x100));
        }
        return;
    }
    if (rv == NGTCP2_ERR_IDLE_CLOSE) {
        q->end = QUIC_END_IDLE;
        return;
    }
    if (rv == NGTCP2_ERR_HANDSHAKE_TIMEOUT) {
        q->end = QUIC_END_HANDSHAKE;
        snprintf(q->reason, sizeof q->reason, "the QUIC handshake timed out");
        return;
    }
    if (q->end == QUIC_END_NONE && q->handshake_done) q->end = QUIC_END_LOCAL;
    else if (q->end == QUIC_END_NONE)
        q->end = rv == NGTCP2_ERR_CRYPTO || ngtcp2_conn_get_tls_alert(q->conn) ? QUIC_END_TLS : QUIC_END_HANDSHAKE;
    if (q->end == QUIC_END_TLS) tls_reason(q);
    uint8_t alert = ngtcp2_conn_get_tls_alert(q->conn);
    if (alert) ngtcp2_connection_close_error_set_transport_error_tls_alert(&q->ccerr, alert, NULL, 0);
    else ngtcp2_connection_close_error_set_transport_error_liberr(&q->ccerr, rv, NULL, 0);
    q->close_pending = true;
}

int quic_conn_read(struct quic_conn *q, const uint8_t *data, size_t len, uint64_t now_us)
{
    if (q->end != QUIC_END_NONE) return -1;
    ngtcp2_path path = {
        .local = {.addr = (ngtcp2_sockaddr *)&q->local, .addrlen = sizeof q->local},
        .remote = {.addr = (ngtcp2_sockaddr *)&q->remote, .addrlen = sizeof q->remote},
    };
    path.local.addrlen = q->local.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    path.remote.addrlen = q->remote.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    ngtcp2_pkt_info pi = {0};
    int rv = ngtcp2_conn_read_pkt(q->conn, &path, &pi, data, len, ts_of(now_us));
    if (rv == 0) return 0;
    conn_failed(q, rv);
    return -1;
}

/* Our CONNECTION_CLOSE, once. */
static size_t write_close(struct quic_conn *q, uint8_t *buf, size_t cap, uint64_t now_us)
{
    q->close_pending = false;
    ngtcp2_ssize n = ngtcp2_conn_write_connection_close(q->conn, NULL, NULL, buf, cap, &q->ccerr, ts_of(now_us));
    return n > 0 ? (size_t)n : 0;
}

size_t quic_conn_write(struct quic_conn *q, uint8_t *buf, size_t cap, uint64_t now_us)
{
    if (q->close_pending) return write_close(q, buf, cap, now_us);
    if (q->end != QUIC_END_NONE) return 0;
    for (;;) {
        struct quic_vec v[PULL_VECS];
        ngtcp2_vec nv[PULL_VECS];
        int64_t id = -1;
        int fin = 0;
        ssize_t count = q->handshake_done ? q->ev->pull(q->user, &id, &fin, v, PULL_VECS) : 0;
        if (count < 0) {
            quic_conn_close(q, 0x102); /* H3_INTERNAL_ERROR */
            return write_close(q, buf, cap, now_us);
        }
        for (ssize_t i = 0; i < count; i++) nv[i] = (ngtcp2_vec){(uint8_t *)v[i].base, v[i].len};
        uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE | (fin ? NGTCP2_WRITE_STREAM_FLAG_FIN : 0);
        ngtcp2_ssize datalen = -1;
        ngtcp2_ssize n = ngtcp2_conn_writev_stream(q->conn, NULL, NULL, buf, cap, &datalen, flags, id, nv,
                                                   (size_t)count, ts_of(now_us));
        if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED || n == NGTCP2_ERR_STREAM_SHUT_WR) {
            q->ev->blocked(q->user, id, n == NGTCP2_ERR_STREAM_SHUT_WR);
            continue;
        }
        if (n == NGTCP2_ERR_WRITE_MORE) {
            if (q->ev->pushed(q->user, id, (size_t)datalen) < 0) quic_conn_close(q, 0x102);
            continue;
        }
        if (n < 0) {
            conn_failed(q, (int)n);
            return q->close_pending ? write_close(q, buf, cap, now_us) : 0;
        }
        if (datalen >= 0 && id >= 0 && q->ev->pushed(q->user, id, (size_t)datalen) < 0) quic_conn_close(q, 0x102);
        return (size_t)n;
    }
}

uint64_t quic_conn_expiry_us(struct quic_conn *q)
{
    if (q->end != QUIC_END_NONE && !q->close_pending) return UINT64_MAX;
    ngtcp2_tstamp t = ngtcp2_conn_get_expiry(q->conn);
    return t == UINT64_MAX ? UINT64_MAX : t / 1000 + 1;
}

int quic_conn_on_expiry(struct quic_conn *q, uint64_t now_us)
{
    if (q->end != QUIC_END_NONE) return -1;
    int rv = ngtcp2_conn_handle_expiry(q->conn, ts_of(now_us));
    if (rv == 0) return 0;
    conn_failed(q, rv);
    return -1;
}

int quic_conn_open_bidi(struct quic_conn *q, int64_t *id)
{
    return ngtcp2_conn_open_bidi_stream(q->conn, id, NULL) == 0 ? 0 : -1;
}

int quic_conn_open_uni(struct quic_conn *q, int64_t *id)
{
    return ngtcp2_conn_open_uni_stream(q->conn, id, NULL) == 0 ? 0 : -1;
}

uint64_t quic_conn_bidi_left(struct quic_conn *q)
{
    return q->end == QUIC_END_NONE ? ngtcp2_conn_get_streams_bidi_left(q->conn) : 0;
}

uint64_t quic_conn_peer_max_bidi(struct quic_conn *q)
{
    if (!q->handshake_done) return 0;
    const ngtcp2_transport_params *p = ngtcp2_conn_get_remote_transport_params(q->conn);
    return p ? p->initial_max_streams_bidi : 0;
}

void quic_conn_consumed(struct quic_conn *q, int64_t id, size_t n)
{
    if (n == 0 || q->end != QUIC_END_NONE) return;
    ngtcp2_conn_extend_max_stream_offset(q->conn, id, n);
    ngtcp2_conn_extend_max_offset(q->conn, n);
}

void quic_conn_shutdown_stream(struct quic_conn *q, int64_t id, uint64_t app_error)
{
    if (q->end == QUIC_END_NONE) ngtcp2_conn_shutdown_stream(q->conn, id, app_error);
}

void quic_conn_keep_alive(struct quic_conn *q, uint64_t every_us)
{
    ngtcp2_conn_set_keep_alive_timeout(q->conn, every_us * NGTCP2_MICROSECONDS);
}

void quic_conn_close(struct quic_conn *q, uint64_t app_error)
{
    if (q->end != QUIC_END_NONE) return;
    q->end = QUIC_END_LOCAL;
    ngtcp2_connection_close_error_set_application_error(&q->ccerr, app_error, NULL, 0);
    q->close_pending = q->handshake_done;
}

enum quic_end quic_conn_ended(const struct quic_conn *q, uint64_t *code, const char **reason)
{
    if (code) *code = q->code;
    if (reason) *reason = q->reason[0] ? q->reason : NULL;
    return q->end;
}

