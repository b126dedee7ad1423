#!/usr/bin/env bash
# report.sh: a results file as one self-contained HTML page, or two as a comparison page.
# See --help. Exit 0: page written; 1: bad input or failure (nothing written); 2: usage error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=lib/deps.sh
source "$ROOT/lib/deps.sh"
# shellcheck source=lib/schema.sh
source "$ROOT/lib/schema.sh"
# shellcheck source=lib/resultfile.sh
source "$ROOT/lib/resultfile.sh"
# shellcheck source=lib/readme.sh
source "$ROOT/lib/readme.sh"
# shellcheck source=lib/procs.sh
source "$ROOT/lib/procs.sh"
# shellcheck source=lib/outfile.sh
source "$ROOT/lib/outfile.sh"

usage() {
  cat <<'USAGE'
Usage: ./report.sh [OPTIONS] RESULTS.json
       ./report.sh [OPTIONS] [COMPARE OPTIONS] BASE.json NEW.json

One results file: writes RESULTS.html beside it, the run as a web page: the system facts, the
command line and settings; per scenario, protocol and tool the servers ranked by successful
requests/s with their intervals and ties and the README's flags (errors, approximate
accounting, client-bound, not delivered, SLO broken, not steady, drifting), latency by
percentile from the HDR histograms on a log "nines" axis, successful requests/s and p99 per
second (barrage's timeline; warm-up and grace shaded), p99 against the offered rate and the
capacity found (--rates, --capacity), server and load-tool CPU and RSS, every run's figures
with links to its raw output, server and GC logs and flame graph when they exist. An
interrupted run's file ("complete": false) gives a page of what was measured, marked so.

Two results files: writes BASE-vs-NEW.html beside NEW with what compare-results.sh decides
(its JSON document, the same verdicts: regression, improvement, unchanged, ~ within noise),
the confidence intervals of the changes drawn, and each regression's row side by side. The
comparison options are compare-results.sh's, passed on as they are: --threshold,
--p99-threshold, --error-threshold, --alpha, --fail-on, --reference, --noise-floor, --gate,
--any-machine, --slo, --tool, --scenario, --server, --protocol.

The page holds its charting library (Apache ECharts, lib/report/vendor/), styles and data: it
opens from disk without a network. Tables are HTML, readable without JavaScript.

Options:
  -o, --output PATH    where the page goes (default: as above); a folder: the page goes in it
                       under its default name. Never replaces anything but a regular file (not a
                       symlink, not a results file it reads)
  --baseline SERVER    server of the "vs" column of a run's page (default java-http)
  -h, --help           this text

Exit status: 0 written (also when the comparison finds a regression), 1 bad input or
failure (no page written), 2 usage error.
USAGE
}

die_usage() { log::error "$*"; log::error "see ./report.sh --help"; exit 2; }

WORK_DIR='' PAGE_TMP=''
# cleanup: the one EXIT trap: stops the child still running (the page's generator, jq,
# compare-results.sh), by its process group, before its files go: else it writes on.
cleanup() {
  # a subshell that a signal reaches as it is forked runs the traps it inherited (bash): only
  # the main shell removes its files (see on_exit in run-benchmarks.sh)
  [[ $BASHPID == "$$" ]] || return 0
  trap '' INT TERM
  procs::stop_all
  [[ -n $WORK_DIR ]] && rm -rf -- "$WORK_DIR"
  [[ -n $PAGE_TMP ]] && rm -f -- "$PAGE_TMP"
  return 0
}

main() {
  local output='' baseline=java-http baseline_given=0 files=() compare_opts=()
  while (($#)); do
    case $1 in
      -h|--help) usage; exit 0 ;;
      -o|--output|--baseline)
        if (($# < 2)) || [[ -z $2 ]]; then die_usage "$1 needs a value"; fi
        if [[ $1 == --baseline ]]; then baseline=$2 baseline_given=1; else output=$2; fi
        shift 2 ;;
      --threshold|--p99-threshold|--error-threshold|--alpha|--fail-on|--reference|--noise-floor|--gate|--slo|--tool|--scenario|--server|--protocol)
        (($# >= 2)) || die_usage "$1 needs a value"
        compare_opts+=("$1" "$2"); shift 2 ;;
      --any-machine) compare_opts+=("$1"); shift ;;
      --) shift; files+=("$@"); break ;;
      -*) die_usage "unknown option $1" ;;
      *) files+=("$1"); shift ;;
    esac
  done
  ((${#files[@]} == 1 || ${#files[@]} == 2)) || die_usage "expected one results file, or two to compare (got ${#files[@]})"
  ((${#files[@]} == 2 || ${#compare_opts[@]} == 0)) || die_usage "${compare_opts[0]} is an option of a comparison (two files)"
  deps::ensure jq:jq python3:python3 || exit 1

  local file
  # one run's page may show an interrupted run; a comparison needs complete files (as
  # compare-results.sh does, whose exit 2 below is then a comparison option's usage error)
  local check_opts=(--incomplete-ok)
  ((${#files[@]} == 1)) || check_opts=()
  for file in "${files[@]}"; do resultfile::check "$file" "${check_opts[@]}" || exit 1; done
  # a --baseline that names no server of the file would give a page without its "vs" column
  if ((baseline_given)); then
    ((${#files[@]} == 1)) || die_usage "--baseline is an option of one run's page (one file)"
    # the names as a terminal may show them (lib/format.jq's safe), or "" when one is $baseline
    local known
    known=$(jq -r -L "$ROOT/lib" --arg b "$baseline" 'import "format" as fmt;
      if any(.results[]; .server == $b) then "" else [.results[].server] | unique | map(fmt::safe) | join(", ") | if . == "" then "none" else . end end' "${files[0]}")
    [[ -z $known ]] || die_usage "--baseline: '$(jq -Rr -L "$ROOT/lib" 'import "format" as fmt; fmt::safe' <<<"$baseline")' is not a server of ${files[0]} (known: $known)"
  fi
  # the page's own name: RESULTS.html, or BASE-vs-NEW.html; beside the (new) file by default,
  # inside the folder that -o names
  local name=${files[-1]##*/} base_name=${files[0]##*/}
  ((${#files[@]} == 1)) || name=${base_name%.json}-vs-$name
  name=${name%.json}.html
  if [[ -z $output ]]; then output=$(dirname -- "${files[-1]}")/$name
  elif [[ -d $output ]]; then output=${output%/}/$name
  fi
  # the page replaces a page, never a device, a FIFO, a socket, a folder or a symlink (as root,
  # -o /dev/null would replace the system's own), nor a results file it reads
  outfile::check --output "$output" "${files[@]}" || die_usage "give a new file, a regular one or a folder"

  # INT and TERM end the script through cleanup (130, 143); each child runs in a process group
  # of its own (procs::run), which a signal's wait does not hold up
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  WORK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/report.XXXXXX")
  PAGE_TMP=$(mktemp "$(dirname -- "$output")/.report.XXXXXX")
  if ((${#files[@]} == 1)); then
    procs::run model readme::model "${files[0]}" "$baseline" >"$WORK_DIR/model.json" \
      || { log::error "${files[0]}: could not read the results"; exit 1; }
    procs::run page python3 "$ROOT/lib/report/report.py" run --results "${files[0]}" --model "$WORK_DIR/model.json" \
      --out "$PAGE_TMP" || exit 1
  else
    local rc=0
    # compare-results.sh decides; the page shows its document. Exit 1 is a regression, not a failure.
    procs::run compare "$ROOT/compare-results.sh" --format json "${compare_opts[@]}" "${files[@]}" >"$WORK_DIR/compare.json" || rc=$?
    # the files passed resultfile::check above: an exit 2 is a comparison option's usage error
    # (an unknown name, a bad threshold), said on stderr
    ((rc != 2)) || exit 2
    ((rc <= 1)) || { log::error "compare-results.sh could not compare ${files[*]}"; exit 1; }
    rc=0
    procs::run compare "$ROOT/compare-results.sh" --format text "${compare_opts[@]}" "${files[@]}" >"$WORK_DIR/compare.txt" 2>/dev/null || rc=$?
    ((rc <= 1)) || { log::error "compare-results.sh could not compare ${files[*]}"; exit 1; }
    procs::run page python3 "$ROOT/lib/report/report.py" compare --base "${files[0]}" --new "${files[1]}" \
      --document "$WORK_DIR/compare.json" --text "$WORK_DIR/compare.txt" --out "$PAGE_TMP" || exit 1
  fi
  chmod 644 -- "$PAGE_TMP"
  mv -fT -- "$PAGE_TMP" "$output"
  PAGE_TMP=''
  log::info "wrote $output"
  printf '%s\n' "$output"
}

# sourced by tests: then only the functions
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
