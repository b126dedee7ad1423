#!/usr/bin/env bash
# schema: validate JSON documents against the repo's JSON Schema files with a real
# validator (check-jsonschema from PyPI, installed once into .cache/venv).
#
#   schema::ensure_validator
#     Creates the virtual environment and installs check-jsonschema if needed.
#     Prints nothing on stdout; returns 1 (with a message) if it cannot.
#   schema::validate SCHEMA_FILE JSON_FILE
#     Returns 0 when JSON_FILE is valid; otherwise prints the validator's
#     findings on stderr and returns 1.
# Depends on lib/log.sh.

SCHEMA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCHEMA_VENV=${BARRAGE_VENV:-$SCHEMA_ROOT/.cache/venv}
SCHEMA_VALIDATOR_VERSION=0.39.0

schema::ensure_validator() {
  [[ -x $SCHEMA_VENV/bin/check-jsonschema ]] && return 0
  log::info "installing check-jsonschema $SCHEMA_VALIDATOR_VERSION into $SCHEMA_VENV"
  if ! python3 -m venv "$SCHEMA_VENV" >&2; then
    log::error "python3 -m venv failed: install python3-venv (apt-get install -y python3-venv)"
    return 1
  fi
  "$SCHEMA_VENV/bin/pip" install -q "check-jsonschema==$SCHEMA_VALIDATOR_VERSION" >&2 \
    || { log::error "pip could not install check-jsonschema"; return 1; }
}

schema::validate() {
  local schema=$1 file=$2
  schema::ensure_validator || return 1
  "$SCHEMA_VENV/bin/check-jsonschema" --schemafile "$schema" "$file" >&2
}
