/* libFuzzer target for jwt.c's building blocks. The first byte chooses:
 * even: the rest is a DER ECDSA signature for jwt_der_to_raw, which either
 * refuses it or gives 64 bytes that encode back (i2d) to a signature with the
 * same R and S; odd: the rest, split at NUL bytes, is kid, iss, sub and aud,
 * and the header and claims JSON must hold no unescaped control byte or quote
 * inside a string (every '"' in a value escaped), end in '}', fit their
 * buffer, and base64url to exactly jwt_b64url_len characters of its alphabet.
 * Any violation is a crash. */
#include "../src/jwt.c"

static void check_b64(const char *json, size_t len)
{
    char out[8192];
    size_t n = jwt_b64url((const uint8_t *)json, len, out);
    if (n != jwt_b64url_len(len) || strlen(out) != n) abort();
    for (size_t i = 0; i < n; i++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", out[i])) abort();
}

/* No control byte; strings closed; every '"' inside one escaped: the
 * unescaped quotes are exactly want (4 per "name":"value", 2 per "name":N). */
static void check_json(const char *json, size_t len, unsigned want)
{
    unsigned quotes = 0;
    if (len == 0) return;
    if (json[0] != '{' || json[len - 1] != '}' || strlen(json) != len) abort();
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)json[i];
        if (c < 0x20) abort();
        if (c == '\\') i++;
        else if (c == '"') quotes++;
    }
    if (quotes != want) abort();
    check_b64(json, len);
}

static void fuzz_der(const uint8_t *data, size_t size)
{
    uint8_t raw[64];
    if (jwt_der_to_raw(data, size, raw)) return;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, 32, NULL), *s = BN_bin2bn(raw + 32, 32, NULL);
    ECDSA_SIG_set0(sig, r, s);
    unsigned char *der = NULL;
    int n = i2d_ECDSA_SIG(sig, &der);
    uint8_t again[64];
    if (n <= 0 || jwt_der_to_raw(der, (size_t)n, again) || memcmp(raw, again, 64)) abort();
    OPENSSL_free(der);
    ECDSA_SIG_free(sig);
}

static void fuzz_claims(const char *text, size_t size)
{
    const char *part[4] = {NULL, NULL, NULL, NULL};
    size_t at = 0;
    for (int i = 0; i < 4 && at <= size; i++) {
        part[i] = text + at;
        at += strlen(text + at) + 1;
    }
    char json[JWT_JSON_MAX];
    size_t n = jwt_header_json("ES256", part[0], json, sizeof json);
    check_json(json, n, 4 * (2 + (part[0] != NULL)));
    struct jwt_claims c = {.iss = part[1], .sub = part[2], .aud = part[3], .exp_s = 60};
    n = jwt_claims_json(&c, 1700000000, 0xabcdef, 12345, json, sizeof json);
    /* iat and exp 2 quotes each, jti 4 */
    check_json(json, n, 8 + 4 * ((part[1] != NULL) + (part[2] != NULL) + (part[3] != NULL)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    if (data[0] % 2 == 0) {
        fuzz_der(data + 1, size - 1);
        return 0;
    }
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    fuzz_claims(text, size - 1);
    free(text);
    return 0;
}
