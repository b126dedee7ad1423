#!/usr/bin/env bash
# certs: the TLS certificate the servers serve HTTP/3 (QUIC) with, made with openssl and
# kept out of git (.cache/certs by default).
#
#   certs::dir
#     Prints the directory the certificate lives in: $BARRAGE_CERTS_DIR, default
#     <suite>/.cache/certs (git-ignored).
#   certs::ensure [DIR]
#     Makes, when missing or expiring within a day, in DIR (default certs::dir):
#       ca.pem / ca.key          a self-signed CA (EC P-256), valid 825 days
#       server.pem / server.key  a server certificate signed by it (EC P-256, PKCS#8 key,
#                                no password) for DNS:localhost, IP:127.0.0.1, IP:::1 and
#                                every name or IP in $BARRAGE_CERT_SANS (comma-separated)
#     The certificate is remade when those names change. Prints nothing on stdout;
#     openssl's words go to stderr only on failure. Returns 1 (with a message) when
#     openssl is missing or fails.
#   certs::export [DIR]
#     certs::ensure, then exports TLS_CERT, TLS_KEY (what a server reads) and TLS_CA (what
#     a client verifies against) as the files in DIR, unless they are set already.
# Depends on lib/log.sh.

CERTS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

certs::dir() { printf '%s\n' "${BARRAGE_CERTS_DIR:-$CERTS_ROOT/.cache/certs}"; }

# certs::_sans: the subjectAltName value for the server certificate.
certs::_sans() {
  local sans='DNS:localhost,IP:127.0.0.1,IP:::1' extra name
  IFS=, read -r -a extra <<<"${BARRAGE_CERT_SANS:-}"
  for name in "${extra[@]}"; do
    name=${name//[[:space:]]/}
    [[ -n $name ]] || continue
    if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then sans+=",IP:$name"; else sans+=",DNS:$name"; fi
  done
  printf '%s\n' "$sans"
}

# certs::_fresh DIR SANS: 0 when DIR holds all four files, for SANS, valid for another day.
certs::_fresh() {
  local dir=$1 sans=$2 f
  for f in ca.pem ca.key server.pem server.key sans; do [[ -s $dir/$f ]] || return 1; done
  [[ $(<"$dir/sans") == "$sans" ]] || return 1
  openssl x509 -checkend 86400 -noout -in "$dir/server.pem" >/dev/null 2>&1 &&
    openssl x509 -checkend 86400 -noout -in "$dir/ca.pem" >/dev/null 2>&1
}

certs::ensure() {
  local dir=${1:-$(certs::dir)} sans tmp err
  command -v openssl >/dev/null 2>&1 || { log::error "certs: openssl is missing (apt-get install -y openssl)"; return 1; }
  sans=$(certs::_sans)
  certs::_fresh "$dir" "$sans" && return 0
  mkdir -p "$dir" || { log::error "certs: cannot create $dir"; return 1; }
  log::info "certs: making a CA and a server certificate ($sans) in $dir"
  tmp=$(mktemp -d "$dir/.new.XXXXXX")
  err=$tmp/openssl.err
  if ! {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 \
      -subj '/CN=Barrage test CA' -addext 'basicConstraints=critical,CA:TRUE' \
      -addext 'keyUsage=critical,keyCertSign,cRLSign' \
      -keyout "$tmp/ca.key" -out "$tmp/ca.pem" &&
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj '/CN=localhost' \
        -keyout "$tmp/server.key" -out "$tmp/server.csr" &&
      openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" \
        -CAcreateserial -days 825 -out "$tmp/server.pem" \
        -extfile <(printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$sans")
  } >"$err" 2>&1; then
    log::error "certs: openssl failed:"
    cat "$err" >&2
    rm -rf -- "$tmp"
    return 1
  fi
  chmod 600 "$tmp/ca.key" "$tmp/server.key"
  printf '%s\n' "$sans" >"$tmp/sans"
  mv -f "$tmp/ca.pem" "$tmp/ca.key" "$tmp/server.pem" "$tmp/server.key" "$tmp/sans" "$dir/"
  rm -rf -- "$tmp"
}

certs::export() {
  local dir=${1:-$(certs::dir)}
  certs::ensure "$dir" || return 1
  export TLS_CERT=${TLS_CERT:-$dir/server.pem} TLS_KEY=${TLS_KEY:-$dir/server.key} TLS_CA=${TLS_CA:-$dir/ca.pem}
}
