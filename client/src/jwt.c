/* jwt: key loading, token building and signing with OpenSSL (jwt.h). */
#include "jwt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <pthread.h>

#define JWT_SECRET_MAX (1 << 16)
#define JWT_JSON_MAX 2048 /* the header or the claims, escaped */

enum jwt_alg { JWT_ES256, JWT_RS256, JWT_HS256 };

static const char *const alg_names[] = {"ES256", "RS256", "HS256"};

struct jwt {
    enum jwt_alg alg;
    EVP_PKEY *key;        /* owned: ES256, RS256 */
    pthread_key_t thread_ctx; /* ES256, RS256: each thread's EVP_PKEY_CTX, initialised once for
                               * signing (an init per signature costs more than the signature),
                               * freed when its thread exits (the calling thread's by jwt_free) */
    bool thread_ctx_made;
    uint8_t *secret;      /* owned: HS256 */
    size_t secret_len;
    char *header_b64;     /* owned: the first part and its '.' */
    size_t header_b64_len;
    struct jwt_claims claims; /* its strings owned */
    uint64_t run_id;
    size_t sig_len;       /* the signature's bytes */
    size_t max_len;
};

/* ---- the building blocks ---- */

size_t jwt_b64url(const uint8_t *in, size_t len, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = abc[v >> 18], out[o++] = abc[v >> 12 & 63], out[o++] = abc[v >> 6 & 63], out[o++] = abc[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = abc[v >> 18], out[o++] = abc[v >> 12 & 63];
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = abc[v >> 18], out[o++] = abc[v >> 12 & 63], out[o++] = abc[v >> 6 & 63];
    }
    out[o] = '\0';
    return o;
}

/* Appends "name":"s" (s JSON-escaped) to out at *at; false when it does not fit. */
static bool json_member(char *out, size_t cap, size_t *at, const char *name, const char *s)
{
    int n = snprintf(out + *at, cap - *at, "%s\"%s\":\"", *at > 1 ? "," : "", name);
    if (n < 0 || (size_t)n >= cap - *at) return false;
    *at += (size_t)n;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') snprintf(esc, sizeof esc, "\\%c", c);
        else if (c < 0x20) snprintf(esc, sizeof esc, "\\u%04x", c);
        else esc[0] = (char)c, esc[1] = '\0';
        size_t e = strlen(esc);
        if (*at + e + 2 >= cap) return false;
        memcpy(out + *at, esc, e);
        *at += e;
    }
    if (*at + 2 > cap) return false; /* the closing quote and the '\0' */
    out[(*at)++] = '"';
    out[*at] = '\0';
    return true;
}

size_t jwt_header_json(const char *alg, const char *kid, char *out, size_t cap)
{
    size_t at = 1;
    if (cap < 2) return 0;
    out[0] = '{';
    if (!json_member(out, cap, &at, "alg", alg) || !json_member(out, cap, &at, "typ", "JWT")) return 0;
    if (kid && !json_member(out, cap, &at, "kid", kid)) return 0;
    if (at + 2 > cap) return 0;
    out[at++] = '}';
    out[at] = '\0';
    return at;
}

size_t jwt_claims_json(const struct jwt_claims *c, uint64_t iat, uint64_t run_id, uint64_t seq, char *out, size_t cap)
{
    size_t at = 1;
    if (cap < 2) return 0;
    out[0] = '{';
    out[1] = '\0';
    if ((c->iss && !json_member(out, cap, &at, "iss", c->iss)) || (c->sub && !json_member(out, cap, &at, "sub", c->sub)) ||
        (c->aud && !json_member(out, cap, &at, "aud", c->aud)))
        return 0;
    int n = snprintf(out + at, cap - at, "%s\"iat\":%" PRIu64, at > 1 ? "," : "", iat);
    if (n < 0 || (size_t)n >= cap - at) return 0;
    at += (size_t)n;
    if (c->exp_s) {
        n = snprintf(out + at, cap - at, ",\"exp\":%" PRIu64, iat + c->exp_s);
        if (n < 0 || (size_t)n >= cap - at) return 0;
        at += (size_t)n;
    }
    n = snprintf(out + at, cap - at, ",\"jti\":\"%016" PRIx64 "-%" PRIu64 "\"}", run_id, seq);
    if (n < 0 || (size_t)n >= cap - at) return 0;
    return at + (size_t)n;
}

int jwt_der_to_raw(const uint8_t *der, size_t len, uint8_t raw[64])
{
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)len);
    if (!sig) return -1;
    const BIGNUM *r, *s;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = p == der + len && BN_bn2binpad(r, raw, 32) == 32 && BN_bn2binpad(s, raw + 32, 32) == 32;
    ECDSA_SIG_free(sig);
    return ok ? 0 : -1;
}

/* ---- the key ---- */

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The whole file (at most JWT_SECRET_MAX bytes); NULL with err. */
static uint8_t *read_secret(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, errlen, "--jwt-key %s: %s", path, strerror(errno)), NULL;
    uint8_t *buf = malloc(JWT_SECRET_MAX + 1);
    size_t n = buf ? fread(buf, 1, JWT_SECRET_MAX + 1, f) : 0;
    bool bad = !buf || ferror(f);
    fclose(f);
    if (bad || n == 0 || n > JWT_SECRET_MAX) {
        fail(err, errlen, "--jwt-key %s: %s", path,
             !buf ? "out of memory" : bad ? "cannot be read" : n ? "an HS256 secret of over 64 KiB" : "an empty HS256 secret");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* The file's PEM private key (unencrypted: the passphrase tried is empty), or NULL. */
static EVP_PKEY *read_pem_key(const char *path)
{
    BIO *bio = BIO_new_file(path, "r");
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)"") : NULL;
    BIO_free(bio);
    ERR_clear_error();
    return key;
}

/* The algorithm key fits: ES256 for EC P-256, RS256 for RSA; -1 with err. */
static int key_alg(EVP_PKEY *key, const char *path, enum jwt_alg *alg, char *err, size_t errlen)
{
    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA) {
        if (EVP_PKEY_get_bits(key) < 2048) return fail(err, errlen, "--jwt-key %s: an RSA key of under 2048 bits", path);
        *alg = JWT_RS256;
        return 0;
    }
    char group[64] = "";
    size_t glen;
    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC) {
        if (EVP_PKEY_get_group_name(key, group, sizeof group, &glen) == 1 && strcmp(group, "prime256v1") == 0) {
            *alg = JWT_ES256;
            return 0;
        }
        return fail(err, errlen, "--jwt-key %s: an EC key on curve %s: ES256 needs P-256 (prime256v1)", path,
                    group[0] ? group : "unknown");
    }
    return fail(err, errlen, "--jwt-key %s: the %s key type is not supported "
                "(EC P-256: ES256, RSA: RS256, --jwt-alg HS256: a secret)",
                path, EVP_PKEY_get0_type_name(key) ? EVP_PKEY_get0_type_name(key) : "unknown");
}

static int parse_alg(const char *name, enum jwt_alg *alg, char *err, size_t errlen)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, alg_names[i]) == 0) {
            *alg = (enum jwt_alg)i;
            return 0;
        }
    return fail(err, errlen, "bad --jwt-alg '%s': ES256, RS256 or HS256", name);
}

static void free_thread_ctx(void *ctx)
{
    EVP_PKEY_CTX_free(ctx);
}

/* This thread's signing context for j's key (made at its first call); NULL
 * when OpenSSL cannot make one. */
static EVP_PKEY_CTX *thread_ctx(const struct jwt *j)
{
    EVP_PKEY_CTX *c = pthread_getspecific(j->thread_ctx);
    if (c) return c;
    c = EVP_PKEY_CTX_new(j->key, NULL);
    bool ok = c && EVP_PKEY_sign_init(c) == 1 && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) == 1 &&
              (j->alg != JWT_RS256 || EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) == 1) &&
              pthread_setspecific(j->thread_ctx, c) == 0;
    if (ok) return c;
    EVP_PKEY_CTX_free(c);
    ERR_clear_error();
    return NULL;
}

/* j->key or j->secret and j->alg from the file and alg; -1 with err. */
static int load_key(struct jwt *j, const char *path, const char *alg, char *err, size_t errlen)
{
    enum jwt_alg want = JWT_ES256;
    if (alg && parse_alg(alg, &want, err, errlen)) return -1;
    EVP_PKEY *key = read_pem_key(path);
    if (alg && want == JWT_HS256) {
        if (key) {
            EVP_PKEY_free(key);
            return fail(err, errlen, "--jwt-key %s: a PEM private key, but --jwt-alg HS256 takes a file of secret bytes",
                        path);
        }
        j->alg = JWT_HS256;
        j->secret = read_secret(path, &j->secret_len, err, errlen);
        return j->secret ? 0 : -1;
    }
    if (!key) {
        FILE *f = fopen(path, "rb");
        if (!f) return fail(err, errlen, "--jwt-key %s: %s", path, strerror(errno));
        fclose(f);
        return fail(err, errlen, "--jwt-key %s: not a PEM private key (EC P-256 or RSA, unencrypted; "
                    "an HMAC secret needs --jwt-alg HS256)", path);
    }
    j->key = key;
    if (key_alg(key, path, &j->alg, err, errlen)) return -1;
    if (pthread_key_create(&j->thread_ctx, free_thread_ctx)) return fail(err, errlen, "out of thread keys");
    j->thread_ctx_made = true;
    if (!thread_ctx(j)) return fail(err, errlen, "--jwt-key %s: OpenSSL cannot sign with this key", path);
    if (alg && want != j->alg) {
        snprintf(err, errlen, "--jwt-key %s: %s key does not sign --jwt-alg %s (it signs %s)", path,
                 j->alg == JWT_RS256 ? "an RSA" : "an EC P-256", alg, alg_names[j->alg]);
        return -1;
    }
    return 0;
}

static char *copy(const char *s, bool *oom)
{
    if (!s) return NULL;
    char *c = strdup(s);
    if (!c) *oom = true;
    return c;
}

/* The header part and the longest token; -1 when out of memory or a claim is too long. */
static int prepare(struct jwt *j, char *err, size_t errlen)
{
    char json[JWT_JSON_MAX];
    size_t hlen = jwt_header_json(alg_names[j->alg], j->claims.kid, json, sizeof json);
    size_t clen = jwt_claims_json(&j->claims, UINT64_MAX / 2, UINT64_MAX, UINT64_MAX, json + hlen, sizeof json - hlen);
    if (!hlen || !clen) return fail(err, errlen, "--jwt-kid, --jwt-iss, --jwt-sub and --jwt-aud: too long");
    j->header_b64 = malloc(jwt_b64url_len(hlen) + 2);
    if (!j->header_b64) return fail(err, errlen, "out of memory");
    j->header_b64_len = jwt_b64url((const uint8_t *)json, hlen, j->header_b64);
    j->header_b64[j->header_b64_len++] = '.';
    j->header_b64[j->header_b64_len] = '\0';
    j->sig_len = j->alg == JWT_ES256 ? 64 : j->alg == JWT_HS256 ? 32 : (size_t)EVP_PKEY_get_size(j->key);
    j->max_len = j->header_b64_len + jwt_b64url_len(clen) + 1 + jwt_b64url_len(j->sig_len);
    return 0;
}

struct jwt *jwt_new(const char *key_file, const char *alg, const struct jwt_claims *claims, uint64_t run_id,
                    char *err, size_t errlen)
{
    struct jwt *j = calloc(1, sizeof *j);
    if (!j) return fail(err, errlen, "out of memory"), NULL;
    bool oom = false;
    j->claims = (struct jwt_claims){.kid = copy(claims->kid, &oom), .iss = copy(claims->iss, &oom),
                                    .sub = copy(claims->sub, &oom), .aud = copy(claims->aud, &oom),
                                    .exp_s = claims->exp_s};
    j->run_id = run_id;
    if (oom) fail(err, errlen, "out of memory");
    if (oom || load_key(j, key_file, alg, err, errlen) || prepare(j, err, errlen)) {
        jwt_free(j);
        return NULL;
    }
    return j;
}

void jwt_free(struct jwt *j)
{
    if (!j) return;
    if (j->thread_ctx_made) {
        free_thread_ctx(pthread_getspecific(j->thread_ctx));
        pthread_key_delete(j->thread_ctx);
    }
    EVP_PKEY_free(j->key);
    free(j->secret);
    free(j->header_b64);
    free((char *)j->claims.kid);
    free((char *)j->claims.iss);
    free((char *)j->claims.sub);
    free((char *)j->claims.aud);
    free(j);
}

const char *jwt_alg_name(const struct jwt *j)
{
    return alg_names[j->alg];
}

size_t jwt_max_len(const struct jwt *j)
{
    return j->max_len;
}

/* ---- signing ---- */

/* The signature of the len bytes at in, in its JWS form, into sig (j->sig_len bytes); 0 or -1. */
static int sign_bytes(const struct jwt *j, const char *in, size_t len, uint8_t *sig)
{
    if (j->alg == JWT_HS256) {
        unsigned int n = 0;
        return HMAC(EVP_sha256(), j->secret, (int)j->secret_len, (const unsigned char *)in, len, sig, &n) && n == 32 ? 0 : -1;
    }
    uint8_t der[EVP_MAX_MD_SIZE + 1024], digest[32];
    size_t dlen = j->alg == JWT_ES256 ? sizeof der : j->sig_len;
    EVP_PKEY_CTX *ctx = thread_ctx(j);
    if (!ctx || !SHA256((const unsigned char *)in, len, digest) ||
        EVP_PKEY_sign(ctx, j->alg == JWT_ES256 ? der : sig, &dlen, digest, sizeof digest) != 1) {
        ERR_clear_error();
        return -1;
    }
    if (j->alg == JWT_ES256) return jwt_der_to_raw(der, dlen, sig);
    return dlen == j->sig_len ? 0 : -1;
}

size_t jwt_sign_at(const struct jwt *j, uint64_t seq, uint64_t iat, char *out, size_t cap)
{
    char json[JWT_JSON_MAX];
    uint8_t sig[1024];
    if (cap < j->max_len + 1 || j->sig_len > sizeof sig) return 0;
    size_t clen = jwt_claims_json(&j->claims, iat, j->run_id, seq, json, sizeof json);
    if (!clen) return 0;
    memcpy(out, j->header_b64, j->header_b64_len);
    size_t at = j->header_b64_len;
    at += jwt_b64url((const uint8_t *)json, clen, out + at);
    if (sign_bytes(j, out, at, sig)) return 0;
    out[at++] = '.';
    return at + jwt_b64url(sig, j->sig_len, out + at);
}

size_t jwt_sign_seq(void *jwt, uint64_t seq, char *out, size_t cap, uint64_t *life_us)
{
    const struct jwt *j = jwt;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    *life_us = UINT64_MAX;
    if (j->claims.exp_s) {
        uint64_t into = (uint64_t)now.tv_nsec / 1000, lifetime = j->claims.exp_s * 1000000;
        while (into + JWT_EXP_MARGIN_US >= lifetime) { /* only with exp 1 s, at the end of a second */
            struct timespec next = {.tv_sec = now.tv_sec + 1};
            clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &next, NULL); /* EINTR: looked at again */
            clock_gettime(CLOCK_REALTIME, &now);
            into = (uint64_t)now.tv_nsec / 1000;
        }
        *life_us = lifetime - into - JWT_EXP_MARGIN_US;
    }
    return jwt_sign_at(j, seq, (uint64_t)now.tv_sec, out, cap);
}
