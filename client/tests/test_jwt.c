/* Unit tests of jwt.c: base64url without padding, the header and claims JSON
 * (escaped), DER to raw R||S, an HS256 token byte for byte (its expected
 * value computed with Python's hmac, independently), an ES256 token's shape
 * with a key made here, and the key errors. Signatures are verified with
 * PyJWT in tests/jwt/run.py. */
#include "../src/jwt.c"

#include <unistd.h>

#include "tap.h"

static bool b64_is(const char *in, size_t len, const char *want)
{
    char out[64];
    size_t n = jwt_b64url((const uint8_t *)in, len, out);
    return n == strlen(want) && strcmp(out, want) == 0 && n == jwt_b64url_len(len);
}

static void test_b64url(void)
{
    TAP_CHECK(b64_is("", 0, "") && b64_is("f", 1, "Zg") && b64_is("fo", 2, "Zm8") && b64_is("foo", 3, "Zm9v") &&
                  b64_is("foob", 4, "Zm9vYg") && b64_is("fooba", 5, "Zm9vYmE") && b64_is("foobar", 6, "Zm9vYmFy"),
              "base64url: RFC 4648 vectors without padding");
    TAP_CHECK(b64_is("\xfb\xff\xbf", 3, "-_-_") && b64_is("\xfb\xff", 2, "-_8"), "base64url: - and _ for + and /");
}

static void test_json(void)
{
    char out[256];
    size_t n = jwt_header_json("ES256", "k\"1\\", out, sizeof out);
    TAP_CHECK(n == strlen(out) && strcmp(out, "{\"alg\":\"ES256\",\"typ\":\"JWT\",\"kid\":\"k\\\"1\\\\\"}") == 0,
              "header JSON with kid, escaped: %s", out);
    jwt_header_json("HS256", NULL, out, sizeof out);
    TAP_CHECK(strcmp(out, "{\"alg\":\"HS256\",\"typ\":\"JWT\"}") == 0, "header JSON without kid");
    struct jwt_claims c = {.iss = "i", .sub = "s\n", .aud = "a", .exp_s = 60};
    n = jwt_claims_json(&c, 1000, 0xab, 42, out, sizeof out);
    TAP_CHECK(n == strlen(out) && strcmp(out, "{\"iss\":\"i\",\"sub\":\"s\\u000a\",\"aud\":\"a\",\"iat\":1000,\"exp\":1060,"
                                              "\"jti\":\"00000000000000ab-42\"}") == 0,
              "claims JSON: iss, sub, aud, iat, exp = iat + exp_s, jti: %s", out);
    struct jwt_claims none = {0};
    jwt_claims_json(&none, 5, 1, 0, out, sizeof out);
    TAP_CHECK(strcmp(out, "{\"iat\":5,\"jti\":\"0000000000000001-0\"}") == 0, "claims JSON without the optional ones: %s", out);
    TAP_CHECK(jwt_claims_json(&c, 1000, 0xab, 42, out, 20) == 0, "claims JSON: 0 when it does not fit");
    /* every buffer size: nothing written past cap (a guard byte after it), 0 or the whole JSON */
    bool within = true;
    struct jwt_claims empty_iss = {.iss = ""};
    for (size_t cap = 0; cap < 60; cap++) {
        char buf[64];
        memset(buf, '#', sizeof buf);
        size_t h = jwt_header_json("ES256", "", buf, cap);
        within &= buf[cap] == '#' && (h == 0 || (h < cap && strlen(buf) == h));
        memset(buf, '#', sizeof buf);
        size_t k = jwt_claims_json(&empty_iss, 1, 1, 1, buf, cap);
        within &= buf[cap] == '#' && (k == 0 || (k < cap && strlen(buf) == k));
    }
    TAP_CHECK(within, "header and claims JSON never write past the buffer, whatever its size (fuzz_jwt found one)");
}

static void test_der(void)
{
    /* r = 5 (one byte), s = 0x80 then 31 bytes of 0x01 (a leading 00 in DER) */
    uint8_t der[2 + 3 + 35] = {0x30, 3 + 2 + 33, 0x02, 0x01, 0x05, 0x02, 0x21, 0x00, 0x80};
    memset(der + 9, 0x01, 31);
    uint8_t raw[64], want[64] = {0};
    want[31] = 5;
    want[32] = 0x80;
    memset(want + 33, 0x01, 31);
    TAP_CHECK(jwt_der_to_raw(der, sizeof der, raw) == 0 && memcmp(raw, want, 64) == 0,
              "DER ECDSA signature to raw R||S, left-padded, DER's sign byte dropped");
    TAP_CHECK(jwt_der_to_raw(der, 10, raw) == -1, "a truncated DER signature is refused");
}

static const char *write_file(const char *name, const char *text)
{
    FILE *f = fopen(name, "wb");
    fputs(text, f);
    fclose(f);
    return name;
}

static void test_hs256(void)
{
    char err[256], out[512];
    struct jwt_claims c = {.iss = "me", .exp_s = 60};
    struct jwt *j = jwt_new(write_file("test_jwt.secret", "secret\n"), "HS256", &c, 0xab, err, sizeof err);
    size_t n = j ? jwt_sign_at(j, 7, 1700000000, out, sizeof out) : 0;
    const char *want = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJtZSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAwMDYwLCJqd"
                       "GkiOiIwMDAwMDAwMDAwMDAwMGFiLTcifQ.Dm8J4nWGgVBuGAQef94u44sIo9RwS5Wr3WmCDzSH370";
    TAP_CHECK(n == strlen(want) && strcmp(out, want) == 0 && n <= jwt_max_len(j),
              "an HS256 token byte for byte (the file's bytes, newline included, are the secret): %s", j ? out : err);
    TAP_CHECK(j && jwt_sign_at(j, 7, 1, out, jwt_max_len(j)) == 0, "signing refuses a buffer under jwt_max_len + 1");
    jwt_free(j);
    TAP_CHECK(!jwt_new(write_file("test_jwt.empty", ""), "HS256", &c, 1, err, sizeof err) && strstr(err, "empty"),
              "an empty HS256 secret is refused: %s", err);
    TAP_CHECK(!jwt_new("test_jwt.secret", NULL, &c, 1, err, sizeof err) && strstr(err, "--jwt-alg HS256"),
              "a secret without --jwt-alg HS256 is refused: %s", err);
    unlink("test_jwt.secret");
    unlink("test_jwt.empty");
}

/* A PEM private key of this kind (an EVP_PKEY_Q_keygen spec) written to name. */
static const char *write_key(const char *name, EVP_PKEY *key)
{
    BIO *bio = BIO_new_file(name, "w");
    PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL);
    BIO_free(bio);
    EVP_PKEY_free(key);
    return name;
}

static void test_es256(void)
{
    char err[256], out[512];
    struct jwt_claims c = {.kid = "k"};
    const char *ec = write_key("test_jwt.ec.pem", EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"));
    struct jwt *j = jwt_new(ec, NULL, &c, 1, err, sizeof err);
    size_t n = j ? jwt_sign_at(j, 0, 1, out, sizeof out) : 0;
    const char *dot = n ? strrchr(out, '.') : NULL;
    TAP_CHECK(j && strcmp(jwt_alg_name(j), "ES256") == 0 && dot && strlen(dot + 1) == 86 && n <= jwt_max_len(j),
              "an ES256 token: its signature 64 raw bytes (86 base64url characters), within jwt_max_len: %s",
              j ? out : err);
    jwt_free(j);
    TAP_CHECK(!jwt_new(ec, "RS256", &c, 1, err, sizeof err) && strstr(err, "does not sign"), "key/alg mismatch: %s", err);
    TAP_CHECK(!jwt_new(ec, "HS256", &c, 1, err, sizeof err) && strstr(err, "PEM private key"), "a PEM key with HS256: %s", err);
    const char *p384 = write_key("test_jwt.p384.pem", EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384"));
    TAP_CHECK(!jwt_new(p384, NULL, &c, 1, err, sizeof err) && strstr(err, "P-256"), "an EC key on another curve: %s", err);
    const char *ed = write_key("test_jwt.ed.pem", EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"));
    TAP_CHECK(!jwt_new(ed, NULL, &c, 1, err, sizeof err) && strstr(err, "not supported"), "an Ed25519 key: %s", err);
    TAP_CHECK(!jwt_new("test_jwt.absent", NULL, &c, 1, err, sizeof err) && strstr(err, "No such file"), "no file: %s", err);
    unlink(ec);
    unlink(p384);
    unlink(ed);
}

int main(void)
{
    /* The key files in a folder of this run's own: the plain and the sanitized
     * builds' tests run at once (run-tests.sh), from the same tests/ folder. */
    char dir[] = "/tmp/barrage jwt test XXXXXX";
    if (!mkdtemp(dir) || chdir(dir)) abort();
    test_b64url();
    test_json();
    test_der();
    test_hs256();
    test_es256();
    if (chdir("/") || rmdir(dir)) TAP_CHECK(0, "the key files removed from %s", dir);
    TAP_EXIT();
}
