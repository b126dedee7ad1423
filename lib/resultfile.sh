#!/usr/bin/env bash
# resultfile: find and check the results files that update-readme.sh and compare-results.sh read.
#
#   resultfile::check FILE [--need-ok|--need-rows]
#     Returns 0 when FILE exists, is readable, is JSON, is valid against
#     schemas/results.schema.json and is complete (the run ended); with --need-ok it
#     must also hold at least one successful row, with --need-rows at least one row.
#     Otherwise logs why and returns 1.
#   resultfile::newest DIR
#     Prints the path of the newest complete results file in DIR, judged by its
#     "timestamp" field, not by the file's modification time (a copied or restored
#     file keeps its run's date). Files that are not JSON are skipped with a warning.
#     Returns 1 (and prints nothing) when there is none.
# Depends on lib/log.sh and lib/schema.sh.

resultfile::check() {
  local file=$1 need_ok=${2:-}
  if [[ ! -e $file ]]; then log::error "$file: no such file"; return 1; fi
  if [[ -d $file ]]; then log::error "$file: is a directory, not a results file"; return 1; fi
  if [[ ! -r $file ]]; then log::error "$file: not readable"; return 1; fi
  if ! jq -e 'type == "object"' "$file" >/dev/null 2>&1; then
    log::error "$file: not a JSON object (a results file is one JSON object)"; return 1
  fi
  local findings
  # The validator also reports success; keep its words for when the file is invalid.
  if ! findings=$(schema::validate "$SCHEMA_ROOT/schemas/results.schema.json" "$file" 2>&1); then
    printf '%s\n' "$findings" >&2
    log::error "$file: not a valid results file (schemas/results.schema.json; findings above)"; return 1
  fi
  if ! jq -e '.complete' "$file" >/dev/null; then
    log::error "$file: incomplete (\"complete\": false): the run was interrupted or is still going"; return 1
  fi
  if [[ $need_ok == --need-ok ]] && [[ $(jq 'any(.results[]; .status == "ok")' "$file") != true ]]; then
    log::error "$file: no successful rows: every server failed or was skipped, nothing to report"; return 1
  fi
  if [[ $need_ok == --need-rows ]] && [[ $(jq '.results | length' "$file") == 0 ]]; then
    log::error "$file: no rows: nothing was measured, nothing to compare"; return 1
  fi
}

resultfile::newest() {
  local dir=$1 file stamp candidates=''
  for file in "$dir"/*.json; do
    [[ -f $file ]] || continue
    if ! stamp=$(jq -r 'select(type == "object" and .complete == true) | .timestamp // empty' "$file" 2>/dev/null); then
      log::warn "$file: not JSON, ignored"; continue
    fi
    if [[ -n $stamp ]]; then candidates+="$stamp"$'\t'"$file"$'\n'; fi
  done
  [[ -n $candidates ]] || return 1
  # RFC 3339 UTC stamps of one writer sort as strings (bytewise, whatever the locale).
  printf '%s' "$candidates" | LC_ALL=C sort -t $'\t' -k1,1 | tail -n 1 | cut -f 2-
}
