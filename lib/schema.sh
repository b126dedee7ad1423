#!/usr/bin/env bash
# schema: validate JSON documents against the repo's JSON Schema files with a real
# validator (check-jsonschema from PyPI, installed once into .cache/venv).
#
#   schema::ensure_validator
#     Creates the virtual environment and installs check-jsonschema if needed.
#     Prints nothing on stdout; returns 1 (with a message) if it cannot.
#   schema::validate SCHEMA_FILE JSON_FILE...
#     Returns 0 when every JSON_FILE is valid; 1 when one is not (the validator's findings,
#     naming the file, on stderr); 2 when the validator could not run (it could not be
#     installed, or it stopped without a verdict, e.g. a crash: its words on stderr). A
#     broken validator is not a broken input. The files go to one validator process (its
#     start-up costs about a second), and a success is remembered (see schema::_key): the
#     same file against the same schemas is not validated twice, which the tests and
#     compare-results.sh's repeated reads of one baseline would otherwise pay for each time.
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

# schema::_key SCHEMA_FILE JSON_FILE: prints the key of a validation: a SHA-256 over the
# validator's version, the schema's name, every schema beside it (they refer to each other)
# and the document. Fails when a file cannot be read (then nothing is remembered).
schema::_key() {
  local schema=$1 file=$2 sum
  sum=$({ printf '%s\n%s\n' "$SCHEMA_VALIDATOR_VERSION" "${schema##*/}" \
    && cat "${schema%/*}"/*.json "$file"; } | sha256sum) || return 1
  printf '%s\n' "${sum%% *}"
}

schema::validate() {
  local schema=$1 said status=0 file key
  shift
  local -a keys=() unknown=()
  schema::ensure_validator || return 2
  # successes are kept inside the validator's venv: another validator starts with none
  for file in "$@"; do
    key=$(schema::_key "$schema" "$file" 2>/dev/null) || key=''
    [[ -n $key && -e $SCHEMA_VENV/validated/$key ]] && continue
    unknown+=("$file")
    keys+=("$key")
  done
  ((${#unknown[@]})) || return 0
  said=$("$SCHEMA_VENV/bin/check-jsonschema" --schemafile "$schema" "${unknown[@]}" 2>&1) || status=$?
  if ((status == 0)); then
    for key in "${keys[@]}"; do
      [[ -z $key ]] || { mkdir -p "$SCHEMA_VENV/validated" && : >"$SCHEMA_VENV/validated/$key"; } 2>/dev/null || true
    done
    return 0
  fi
  [[ -z $said ]] || log::lines <<<"$said"
  # its verdicts: findings (exit 1) or a file it could not parse; anything else is no verdict
  if ((status == 1)) && [[ $said == *"Schema validation errors were encountered"* || $said == *"ailed to parse"* ]]; then
    return 1
  fi
  log::error "the schema validator ($SCHEMA_VENV/bin/check-jsonschema) could not run (exit $status)"
  return 2
}
