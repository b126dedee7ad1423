/* jwt: a JSON Web Token (RFC 7519) signed per request (--jwt-key). The only
 * file that calls OpenSSL to sign: it loads the key (a PEM EC P-256 private
 * key: ES256; a PEM RSA private key: RS256; with --jwt-alg HS256 the file's
 * bytes, as they are, are the HMAC secret), builds the header and the claims
 * and signs them. A token is header.claims.signature, each part base64url
 * without padding; an ES256 signature is the raw 64-byte R||S (JWS, RFC 7518
 * 3.4), not OpenSSL's DER.
 *
 * Claims, in this order, each only when given: iss, sub, aud (a string),
 * iat (seconds since the epoch, when signed), exp (iat + --jwt-exp), jti
 * (the run's random id, '-', a sequence number: distinct per token). The
 * header: {"alg":"ES256","typ":"JWT"} and "kid" when given.
 *
 * Ownership: jwt_new copies what it keeps (the claims' strings included);
 * the key is read-only afterwards, so jwt_sign may run in any number of
 * threads at once. */
#ifndef BARRAGE_JWT_H
#define BARRAGE_JWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jwt;

struct jwt_claims {
    const char *kid, *iss, *sub, *aud; /* NULL: left out */
    uint64_t exp_s;                    /* 0: no exp claim */
};

/* The key of key_file for alg ("ES256", "RS256", "HS256"; NULL: from the
 * key, ES256 or RS256) and the claims of every token; NULL with the reason
 * in err: a file that does not read, not a private key, a key type or curve
 * not supported, a key that does not fit alg, an empty secret. */
struct jwt *jwt_new(const char *key_file, const char *alg, const struct jwt_claims *claims, uint64_t run_id,
                    char *err, size_t errlen);
void jwt_free(struct jwt *j);

const char *jwt_alg_name(const struct jwt *j);
/* The longest token jwt_sign writes (without its '\0'). */
size_t jwt_max_len(const struct jwt *j);

/* How long before its exp a token is last sent (--jwt-exp): its signature's
 * life ends this much before exp, so it reaches a server whose clock is
 * within this of ours while still valid. README.md states it. */
#define JWT_EXP_MARGIN_US 100000

/* The token with jti "<run id>-<seq>" and iat now (whole seconds, as RFC 7519
 * NumericDate is read), into out (cap at least jwt_max_len + 1,
 * '\0'-terminated); its length, 0 when signing failed. *life_us: for how long
 * from now it may be sent, until JWT_EXP_MARGIN_US before its exp (UINT64_MAX
 * without exp); never 0: with --jwt-exp 1s, in the last JWT_EXP_MARGIN_US of a
 * second (where iat's truncation leaves less than that) it waits for the
 * next second and signs then. Thread-safe. The signature of
 * jwtpool_sign_fn (jwt is a struct jwt *). */
size_t jwt_sign_seq(void *jwt, uint64_t seq, char *out, size_t cap, uint64_t *life_us);
/* The same with iat given: what the unit test calls. */
size_t jwt_sign_at(const struct jwt *j, uint64_t seq, uint64_t iat, char *out, size_t cap);

/* ---- the building blocks, pure (unit-tested) ---- */

/* base64url of in (len bytes) without padding into out (at least
 * jwt_b64url_len(len) + 1 bytes, '\0'-terminated); its length. */
size_t jwt_b64url(const uint8_t *in, size_t len, char *out);
static inline size_t jwt_b64url_len(size_t len)
{
    return len / 3 * 4 + (len % 3 ? len % 3 + 1 : 0);
}
/* The header JSON for alg and kid (NULL: none) into out; its length, or 0 when cap is too small. */
size_t jwt_header_json(const char *alg, const char *kid, char *out, size_t cap);
/* The claims JSON; its length, or 0 when cap is too small. */
size_t jwt_claims_json(const struct jwt_claims *c, uint64_t iat, uint64_t run_id, uint64_t seq, char *out, size_t cap);
/* A DER ECDSA-Sig-Value to the raw R||S of a P-256 signature (32 bytes each,
 * left-padded); 0, or -1 when der is not one. */
int jwt_der_to_raw(const uint8_t *der, size_t len, uint8_t raw[64]);

#endif
