#!/usr/bin/env bash
# resultfile: find and check the results files that update-readme.sh and compare-results.sh read.
#
#   resultfile::check FILE [--need-ok] [--need-rows] [--incomplete-ok]
#     Returns 0 when FILE exists, is a regular readable file of at most 256 MiB, is one JSON object (not empty, not
#     truncated, no NaN or Infinity, no number beyond 2^53), is valid against
#     schemas/results.schema.json, records each run once (no duplicated row) and is
#     complete (the run ended; --incomplete-ok: need not be); with --need-ok it must
#     also hold at least one successful row, with --need-rows at least one row.
#     Otherwise logs why and returns 1; returns 2 when the schema validator could not
#     run (the file may be fine).
#   resultfile::newest DIR
#     Prints the path of the newest complete results file in DIR, judged by its
#     "timestamp" field, not by the file's modification time (a copied or restored
#     file keeps its run's date). Files that are not JSON are skipped with a warning.
#     Returns 1 (and prints nothing) when there is none.
#   resultfile::noise_floor FILE
#     Prints the noise floor of FILE, the results of an A/A run, as one JSON object with
#     "file": FILE added. Returns 1 (after resultfile::check's or its own message, which
#     points to the calling script's --help) when FILE is not a valid results file or holds
#     no noise floor.
# Depends on lib/log.sh, lib/schema.sh, jq and python3.

# The largest results file read: a --quick run of every server writes about 1 MiB.
RESULTFILE_MAX_BYTES=$((256 << 20))

resultfile::check() {
  local file=$1 opt need_ok='' need_rows='' incomplete_ok='' status=0
  shift
  for opt in "$@"; do
    case $opt in
      --need-ok) need_ok=1 ;;
      --need-rows) need_rows=1 ;;
      --incomplete-ok) incomplete_ok=1 ;;
      *) log::error "resultfile::check: unknown option $opt"; return 2 ;;
    esac
  done
  if [[ ! -e $file ]]; then log::error "$file: no such file"; return 1; fi
  if [[ -d $file ]]; then log::error "$file: is a directory, not a results file"; return 1; fi
  # a device or a pipe would be read without end (/dev/zero) or block for ever (a FIFO nobody writes)
  if [[ ! -f $file ]]; then log::error "$file: not a regular file (a device or a pipe), not a results file"; return 1; fi
  if [[ ! -r $file ]]; then log::error "$file: not readable"; return 1; fi
  if (($(stat -c %s -- "$file") > RESULTFILE_MAX_BYTES)); then
    log::error "$file: over $((RESULTFILE_MAX_BYTES >> 20)) MiB, not a results file"
    return 1
  fi
  resultfile::_json "$file" || return
  local findings
  # The validator also reports success; keep its words for when the file is invalid.
  findings=$(schema::validate "$SCHEMA_ROOT/schemas/results.schema.json" "$file" 2>&1) || status=$?
  if ((status == 2)); then
    log::lines <<<"$findings"
    log::error "$file: could not be checked: the schema validator could not run (above); the file itself may be fine"
    return 2
  elif ((status != 0)); then
    log::lines <<<"$findings"
    log::error "$file: not a valid results file (schemas/results.schema.json; findings above)"; return 1
  fi
  local twice
  # the rows named as a terminal may show them (lib/format.jq's safe)
  twice=$(jq -r -L "$SCHEMA_ROOT/lib" 'import "format" as fmt; .results | to_entries | group_by(.value | [.server, .aa_group, .variant.label?, .scenario, .protocol, .tool, .load, .run])
    | map(select(length > 1) | (.[0].value | "\(.variant.label? // .server)\(if .aa_group then "@" + .aa_group else "" end) \(.scenario) \(.protocol) \(.tool)\(if .load then " " + (.load | tojson) else "" end) run \(.run)")
          + " (rows " + (map(.key + 1 | tostring) | join(", ")) + ")")
    | .[] | fmt::safe' "$file")
  if [[ -n $twice ]]; then
    log::error "$file: the same run recorded more than once: $(paste -sd';' <<<"$twice" | sed 's/;/; /g') (each run is one row: a duplicated row is not a second run)"
    return 1
  fi
  if [[ -z $incomplete_ok && $(jq '.complete' "$file") != true ]]; then
    log::error "$file: incomplete (\"complete\": false): the run was interrupted or is still going"; return 1
  fi
  if [[ -n $need_ok && $(jq 'any(.results[]; .status == "ok")' "$file") != true ]]; then
    log::error "$file: no successful rows: every server failed or was skipped, nothing to report"; return 1
  fi
  if [[ -n $need_rows && $(jq '.results | length' "$file") == 0 ]]; then
    log::error "$file: no rows: nothing was measured, nothing to compare"; return 1
  fi
}

# resultfile::_json FILE: FILE is one JSON object whose numbers a results file can hold. Each
# way it is not gets its own message (jq 1.6 reads NaN as null and 1e1000 as the largest
# double, and `jq -e` passes an empty file): returns 1 with it logged.
resultfile::_json() {
  local said
  if said=$(python3 - "$1" 2>&1 <<'PY'
import json, math, sys

LIMIT = 2 ** 53  # beyond it a double no longer holds every whole number: no count or time is that large

class Constant:
    def __init__(self, name): self.name = name

def where(path):
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "."

def walk(value, path):
    if isinstance(value, Constant):
        return f"{value.name} at {where(path)}: JSON has no NaN or Infinity (the writer of the file is broken)"
    if isinstance(value, float) and not math.isfinite(value):
        return f"a number too large for a double at {where(path)}: not a measurement (a corrupted or edited file?)"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > LIMIT:
        return f"{value:g} at {where(path)} is beyond 2^53: no count, rate or time is that large (a corrupted or edited file?)"
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found = walk(child, path + [key])
        if found:
            return found
    return None

text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
if not text.strip():
    sys.exit("empty: no JSON at all (a results file is one JSON object)")
try:
    doc = json.loads(text, parse_constant=Constant)
except json.JSONDecodeError as e:
    if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
        sys.exit(f"truncated: the JSON stops before its end (line {e.lineno}, column {e.colno}: {e.msg}); "
                 "a run killed while writing it, or a partial copy")
    sys.exit(f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}")
if not isinstance(doc, dict):
    sys.exit("not a JSON object (a results file is one JSON object)")
found = walk(doc, [])
if found:
    sys.exit(found)
PY
  ); then
    return 0
  fi
  log::error "$1: ${said:-python3 could not read it}"
  return 1
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

resultfile::noise_floor() {
  local file=$1 floor
  resultfile::check "$file" || return 1
  floor=$(jq -c --arg file "$file" '.noise_floor // empty | . + {file: $file}' "$file")
  if [[ -z $floor ]]; then
    log::error "$file holds no noise floor: give the results of an A/A run (run-benchmarks.sh --aa)"
    log::error "see ./${0##*/} --help"
    return 1
  fi
  printf '%s\n' "$floor"
}
