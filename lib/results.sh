#!/usr/bin/env bash
# results: the results file (schemas/results.schema.json), rewritten whole and atomically
# (temp file in the same folder, then rename) after every row, so that it is valid at any time.
#
#   results::init FILE HEADER_JSON
#     Starts FILE from HEADER_JSON (every top-level field but results and complete) with no
#     rows and "complete": false. The rows are kept beside it in FILE.rows until the end.
#   results::add ROW_JSON
#     Appends one row and rewrites FILE.
#   results::replace_last ROW_JSON
#     Replaces the last row (a row that grows step by step, e.g. a capacity search) and
#     rewrites FILE.
#   results::add_warmup WARMUP_JSON
#     Appends one entry to the file's server_warmups list (kept in FILE.warmups until the end;
#     the list is left out while empty) and rewrites FILE.
#   results::add_cross_check CROSS_CHECK_JSON
#     Appends one entry to the file's cross_checks list (the windows of one alternation of the
#     tools on one JVM: lib/measure.sh; kept in FILE.crosschecks until the end, left out while
#     empty) and rewrites FILE.
#   results::set KEY JSON
#     Sets a top-level field of the header (e.g. noise_floor) and rewrites FILE.
#   results::write COMPLETE
#     Rewrites FILE with every row so far and "complete": COMPLETE (true/false), then
#     validates it against schemas/results.schema.json if RESULTS_VALIDATE_EVERY_S (default
#     30) have passed since the last validation: the validator takes about 0.6 s, as long as
#     a short run, and the last write is always validated. An invalid file is kept as
#     written; the validator's findings go to stderr the first time it is invalid, and
#     RESULTS_INVALID becomes 1 (the caller's exit status should say so).
#   results::finish COMPLETE
#     Rewrites FILE a last time (complete: true at the normal end, false when interrupted),
#     validates it, removes the side files, and repeats the findings when the file is not
#     valid.
# Depends on lib/log.sh and lib/schema.sh (its validator installed: schema::ensure_validator).

RESULTS_FILE='' RESULTS_INVALID=0 RESULTS_VALIDATED_AT=''
RESULTS_VALIDATE_EVERY_S=${RESULTS_VALIDATE_EVERY_S:-30}

results::init() {
  RESULTS_FILE=$1 RESULTS_VALIDATED_AT=$SECONDS
  printf '%s\n' "$2" >"$RESULTS_FILE.header"
  : >"$RESULTS_FILE.rows"
  : >"$RESULTS_FILE.warmups"
  : >"$RESULTS_FILE.crosschecks"
  results::write false
}

results::add_warmup() {
  printf '%s\n' "$1" | jq -c . >>"$RESULTS_FILE.warmups"
  results::write false
}

results::add_cross_check() {
  printf '%s\n' "$1" | jq -c . >>"$RESULTS_FILE.crosschecks"
  results::write false
}

results::set() {
  local tmp
  tmp=$(mktemp "$RESULTS_FILE.XXXXXX")
  jq --arg key "$1" --argjson value "$2" '.[$key] = $value' "$RESULTS_FILE.header" >"$tmp"
  mv -f "$tmp" "$RESULTS_FILE.header"
  results::write false
}

results::add() {
  printf '%s\n' "$1" | jq -c . >>"$RESULTS_FILE.rows"
  results::write false
}

results::replace_last() {
  local tmp
  tmp=$(mktemp "$RESULTS_FILE.XXXXXX")
  { sed '$d' "$RESULTS_FILE.rows"; printf '%s\n' "$1" | jq -c .; } >"$tmp"
  mv -f "$tmp" "$RESULTS_FILE.rows"
  results::write false
}

results::write() {
  results::_rewrite "$1"
  ((SECONDS - RESULTS_VALIDATED_AT >= RESULTS_VALIDATE_EVERY_S)) && results::_validate 0
  return 0
}

# results::_rewrite COMPLETE: FILE from the header, the rows, the warm-ups and the cross-checks, atomically.
results::_rewrite() {
  local complete=$1 tmp
  [[ -n $RESULTS_FILE && -f $RESULTS_FILE.header ]] || return 0
  tmp=$(mktemp "$RESULTS_FILE.XXXXXX")
  jq -n --slurpfile header "$RESULTS_FILE.header" --slurpfile rows "$RESULTS_FILE.rows" \
    --slurpfile warmups "$RESULTS_FILE.warmups" --slurpfile crosschecks "$RESULTS_FILE.crosschecks" --argjson complete "$complete" '
    $header[0] + {complete: $complete}
    + (if ($warmups | length) > 0 then {server_warmups: $warmups} else {} end)
    + (if ($crosschecks | length) > 0 then {cross_checks: $crosschecks} else {} end)
    + {results: $rows}' >"$tmp"
  # mktemp makes the file private; a results file is as readable as any other the user writes
  chmod "$(printf '%04o' $((0666 & ~0$(umask))))" "$tmp"
  mv -f "$tmp" "$RESULTS_FILE"
}

# results::_validate REPEAT: validates FILE; prints the findings when it is newly invalid
# (or still invalid, with REPEAT=1) and sets RESULTS_INVALID.
results::_validate() {
  local repeat=$1 findings status=0
  RESULTS_VALIDATED_AT=$SECONDS
  findings=$(schema::validate "$SCHEMA_ROOT/schemas/results.schema.json" "$RESULTS_FILE" 2>&1) || status=$?
  ((status == 0)) && return 0
  if ((RESULTS_INVALID == 0 || repeat)); then
    log::lines <<<"$findings"
    if ((status == 2)); then
      log::error "$RESULTS_FILE could not be validated: the schema validator could not run (above); kept as written"
    else
      log::error "$RESULTS_FILE is NOT valid against schemas/results.schema.json (validator's findings above); kept as written"
    fi
  fi
  RESULTS_INVALID=1
}

results::finish() {
  local was_invalid=$RESULTS_INVALID
  [[ -n $RESULTS_FILE && -f $RESULTS_FILE.header ]] || return 0
  results::_rewrite "$1"
  rm -f "$RESULTS_FILE.header" "$RESULTS_FILE.rows" "$RESULTS_FILE.warmups" "$RESULTS_FILE.crosschecks"
  # newly invalid: reported now; invalid before: reported then, and repeated here
  results::_validate "$was_invalid"
  return 0
}
