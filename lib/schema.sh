#!/usr/bin/env bash
# schema: validate JSON documents against the repo's JSON Schema files with a real
# validator (check-jsonschema from PyPI, installed once into .cache/venv).
#
#   schema::ensure_validator
#     Creates the virtual environment and installs check-jsonschema if needed.
#     Prints nothing on stdout; returns 1 (with a message) if it cannot.
#   schema::validate SCHEMA_FILE JSON_FILE
#     Returns 0 when JSON_FILE is valid; 1 when it is not (the validator's findings
#     on stderr); 2 when the validator could not run (it could not be installed, or it
#     stopped without a verdict, e.g. a crash: its words on stderr). A broken validator
#     is not a broken input.
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
  local schema=$1 file=$2 said status=0
  schema::ensure_validator || return 2
  said=$("$SCHEMA_VENV/bin/check-jsonschema" --schemafile "$schema" "$file" 2>&1) || status=$?
  ((status == 0)) && return 0
  [[ -z $said ]] || printf '%s\n' "$said" >&2
  # its verdicts: findings (exit 1) or a file it could not parse; anything else is no verdict
  if ((status == 1)) && [[ $said == *"Schema validation errors were encountered"* || $said == *"ailed to parse"* ]]; then
    return 1
  fi
  log::error "the schema validator ($SCHEMA_VENV/bin/check-jsonschema) could not run (exit $status)"
  return 2
}
