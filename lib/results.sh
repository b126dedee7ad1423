#!/usr/bin/env bash
# results: the results file (schemas/results.schema.json), rewritten whole and atomically
# (temp file in the same folder, then rename) after every row, so that it is valid at any time.
#
#   results::init FILE HEADER_JSON
#     Starts FILE from HEADER_JSON (every top-level field but results and complete) with no
#     rows and "complete": false. The rows are kept beside it in FILE.rows until the end.
#   results::add ROW_JSON
#     Appends one row and rewrites FILE.
#   results::write COMPLETE
#     Rewrites FILE with every row so far and "complete": COMPLETE (true/false).
#   results::finish COMPLETE
#     Rewrites FILE a last time (complete: true at the normal end, false when interrupted)
#     and removes the side files.

RESULTS_FILE=''

results::init() {
  RESULTS_FILE=$1
  printf '%s\n' "$2" >"$RESULTS_FILE.header"
  : >"$RESULTS_FILE.rows"
  results::write false
}

results::add() {
  printf '%s\n' "$1" | jq -c . >>"$RESULTS_FILE.rows"
  results::write false
}

results::write() {
  local complete=$1 tmp
  [[ -n $RESULTS_FILE && -f $RESULTS_FILE.header ]] || return 0
  tmp=$(mktemp "$RESULTS_FILE.XXXXXX")
  jq -n --slurpfile header "$RESULTS_FILE.header" --slurpfile rows "$RESULTS_FILE.rows" \
    --argjson complete "$complete" '$header[0] + {complete: $complete, results: $rows}' >"$tmp"
  # mktemp makes the file private; a results file is as readable as any other the user writes
  chmod "$(printf '%04o' $((0666 & ~0$(umask))))" "$tmp"
  mv -f "$tmp" "$RESULTS_FILE"
}

results::finish() {
  results::write "$1"
  rm -f "$RESULTS_FILE.header" "$RESULTS_FILE.rows"
}
