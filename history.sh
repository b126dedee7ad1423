#!/usr/bin/env bash
# history.sh: change points in a history of results files, and the CI gate on the newest ones.
# See --help. Exit 0: no regression (or no verdict); 1: a regression at the newest change point;
# 2: usage or input error.
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
# shellcheck source=lib/history.sh
source "$ROOT/lib/history.sh"
# shellcheck source=lib/outfile.sh
source "$ROOT/lib/outfile.sh"

usage() {
  cat <<'USAGE'
Usage: ./history.sh [OPTIONS] DIR|FILE...

Reads a history of results files (every *.json in DIR, or the FILEs; ordered by the "timestamp"
each records, not by name) and finds, per series, where its performance changed: which file
(its commit) a change starts at, by how much, and how sure that is. Made for a job that
benchmarks every commit or every night on the same machine, where checking each run against
the previous one raises alarms on noise.

A series is one row of the plan over time: server (an A/A run's label, server@A), scenario,
protocol and tool, a profiled row apart (its event), and its plan (threads, connections,
streams, duration, endpoint, method: the same row measured with another plan is another
series). Only the files that measured a row form its series: a row added or dropped by a
changed plan has the files that hold it, and the report says so. Rows at a fixed rate or of
a capacity search are not trended (compare-results.sh --slo judges those).

Each file is one point per metric: successful requests/s ("ok/s": failed requests are not
throughput) and p99 latency, the median of the file's ok runs (a run that went wrong does not
move the point). Change points come from Apache Otava (the E-divisive means detector with a
t-test, built by MongoDB's performance team as Hunter; PyPI apache-otava, installed once into
.cache/otava-venv), one metric at a time. For each it prints the first file after the change,
its commit, the means before and after (over the files between the neighbouring change points),
the change with its 95% interval (Welch's t-interval on log values) and the p-value.
A change beyond the threshold is a regression or an improvement; within it, "small" (real, too
small to matter). With --noise-floor, a change no larger than the floor an A/A run measured is
no change at all (a step this machine makes from nothing).

The gate: exit 1 when the newest change point of a series is a regression of a metric in
--fail-on. An older regression that a later change point undid (an improvement) does not gate;
one that nothing undid still does (the series is still worse than before it), until it is
accepted: --accept names the file it starts at (as the report names it), and from then on the
series is judged from that level; a later regression still gates.
A series of
fewer than --min-files points gets no verdict (said so); when none has enough, the exit is 0.
A change point needs 3 files on each side: one odd file at either end of a series (the newest
run on a bad day) is not a change of level, and never gates.

Files from other machines (another CPU, core count, memory or lab hosts: the files' system
facts) are refused: a change of machine is not a change of the code. A new kernel or JDK on
the same machine is allowed and said beside a change point that comes with it.

Options:
  --threshold PCT      ok/s change that matters (default 5)
  --p99-threshold PCT  p99 change that matters (default 20)
  --alpha P            the detection's significance level (Otava's max p-value, default 0.001:
                       a series of 25 noisy files then finds a false change point rarely)
  --fail-on LIST       metrics whose regression exits 1: rps, p99 (default rps,p99)
  --noise-floor FILE   an A/A run's results (run-benchmarks.sh --aa): changes within its floor
                       (same scenario, protocol and tool, else its largest) are no change
  --min-files N        points a series needs for a verdict (default 6, at least 6)
  --window N           files Otava analyzes at once (default 6, at least 6; a window should
                       hold about one change: Otava's own default, 50, misses a regression
                       that was undone a few files later, and on 60 files of noise finds
                       more false change points than 6 does)
  --accept FILE|COMMIT a known change: a regression whose newest change point is at this
                       file (its path or name, or 7+ characters of its commit) does not gate;
                       may be repeated. A name that matches no file is a usage error (exit 2)
  --any-machine        analyze files from several machines anyway (the report names them)
  --skip-invalid       skip malformed files with a warning instead of refusing them
  --html FILE          also write the trend page: every series over time, its change points
                       marked, each point linking to its run's page (report.sh's RESULTS.html).
                       FILE is new or a regular file, replaced whole; never a symlink, a
                       device, a FIFO or a file the run reads (exit 2)
  --format text|json|markdown|junit
                       output format (default text): markdown, the change points as a table
                       for a job summary or a pull-request comment; junit, JUnit XML for a CI
                       test report (a test case per series, a failure per regression the exit
                       counts, the change point's figures in its message); same exit status.
                       Files are numbered from 1 (oldest) in text and json: the text's #13 is
                       the JSON's files[].number 13 and file_number 13 (each "file" beside it
                       is the 0-based index into files)
  --server S, --scenario S, --protocol P, --tool T
                       only these rows; each may be repeated or a comma list, each name must
                       be in a file
  -h, --help           this text

In DIR, a file of a run that is still going or was interrupted ("complete": false) is skipped
with a warning; named on the command line, it is refused. Other malformed files (not JSON,
invalid against schemas/results.schema.json, a run recorded twice, no rows) are refused
(exit 2) unless --skip-invalid. Two files with the same timestamp are the same run twice.

Exit status: 0 no regression at the newest change point (or too few files for a verdict),
1 at least one, 2 usage or input error.
USAGE
}

die_usage() { log::error "$*"; log::error "see ./history.sh --help"; exit 2; }

is_number() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }

WORK_DIR='' PAGE_TMP=''
cleanup() {
  # only the main shell removes its files (a subshell a signal reaches runs inherited traps)
  [[ $BASHPID == "$$" ]] || return 0
  [[ -n $WORK_DIR ]] && rm -rf -- "$WORK_DIR"
  [[ -n $PAGE_TMP ]] && rm -f -- "$PAGE_TMP"
  return 0
}

# list LIST...: the comma lists as a JSON array.
list() { local IFS=,; jq -cn --arg l "$*" '$l | split(",") | map(select(length > 0))'; }

main() {
  local threshold=5 p99_threshold=20 alpha=0.001 fail_on=rps,p99 noise_floor_file='' min_files=6 window=6
  local any_machine=false skip_invalid='' html='' format=text args=() servers=() scenarios=() protocols=() tools=() accept=()
  while (($#)); do
    case $1 in
      -h|--help) usage; exit 0 ;;
      --any-machine) any_machine=true; shift ;;
      --skip-invalid) skip_invalid=1; shift ;;
      --threshold|--p99-threshold|--alpha|--fail-on|--noise-floor|--min-files|--window|--html|--format|--server|--scenario|--protocol|--tool|--accept)
        if (($# < 2)) || [[ -z $2 ]]; then die_usage "$1 needs a value"; fi
        case $1 in
          --threshold) threshold=$2 ;;
          --p99-threshold) p99_threshold=$2 ;;
          --alpha) alpha=$2 ;;
          --fail-on) fail_on=$2 ;;
          --noise-floor) noise_floor_file=$2 ;;
          --min-files) min_files=$2 ;;
          --window) window=$2 ;;
          --html) html=$2 ;;
          --format) format=$2 ;;
          --server) servers+=("$2") ;;
          --scenario) scenarios+=("$2") ;;
          --protocol) protocols+=("$2") ;;
          --tool) tools+=("$2") ;;
          --accept) accept+=("$2") ;;
        esac
        shift 2 ;;
      --) shift; args+=("$@"); break ;;
      -*) die_usage "unknown option $1" ;;
      *) args+=("$1"); shift ;;
    esac
  done
  ((${#args[@]})) || die_usage "expected a folder of results files or the files themselves"
  is_number "$threshold" || die_usage "--threshold must be a number of percent, got '$threshold'"
  is_number "$p99_threshold" || die_usage "--p99-threshold must be a number of percent, got '$p99_threshold'"
  if ! is_number "$alpha" || ! awk -v a="$alpha" 'BEGIN { exit !(a > 0 && a < 1) }'; then
    die_usage "--alpha must be between 0 and 1, got '$alpha'"
  fi
  [[ $fail_on =~ ^(rps|p99)(,(rps|p99))*$ ]] || die_usage "--fail-on takes a comma list of rps and p99, got '$fail_on'"
  if [[ ! $min_files =~ ^[0-9]+$ ]] || ((min_files < 6)); then die_usage "--min-files must be a whole number of at least 6 (a change point needs 3 files on each side), got '$min_files'"; fi
  if [[ ! $window =~ ^[0-9]+$ ]] || ((window < 6)); then die_usage "--window must be a whole number of at least 6, got '$window'"; fi
  [[ $format =~ ^(text|json|markdown|junit)$ ]] || die_usage "--format takes text, json, markdown or junit, got '$format'"
  if [[ -n $html ]]; then
    [[ -d $(dirname -- "$html") ]] || die_usage "--html: $(dirname -- "$html"): no such directory"
    [[ ! -d $html ]] || die_usage "--html: $html is a directory"
  fi
  deps::ensure jq:jq python3:python3 || exit 2

  # DIR: its *.json; FILE: itself (checked more strictly: a run still going is refused)
  local arg file candidates=() from_dir=()
  for arg in "${args[@]}"; do
    if [[ -d $arg ]]; then
      local found=0
      for file in "$arg"/*.json; do
        [[ -f $file ]] || continue
        candidates+=("$file"); from_dir+=(1); found=1
      done
      ((found)) || { log::error "$arg: no results files (*.json) in it"; exit 2; }
    else
      candidates+=("$arg"); from_dir+=(0)
    fi
  done
  # the page is written beside --html and renamed over it: a regular file only, never an input
  if [[ -n $html ]]; then
    outfile::check --html "$html" "${candidates[@]}" ${noise_floor_file:+"$noise_floor_file"} || die_usage "see above"
  fi
  trap cleanup EXIT
  WORK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/history.XXXXXX")
  # one validator process for them all (its successes are remembered: the checks below reuse them)
  local readable=()
  for file in "${candidates[@]}"; do [[ -f $file && -r $file ]] && readable+=("$file"); done
  ((${#readable[@]} == 0)) || schema::validate "$ROOT/schemas/results.schema.json" "${readable[@]}" >/dev/null 2>&1 || true
  # the checks side by side, one per core (each reads its file whole); said in the files' order
  local i rc files=() cores
  cores=$(nproc 2>/dev/null || echo 2)
  mkdir "$WORK_DIR/checks"
  for i in "${!candidates[@]}"; do
    (
      rc=0
      resultfile::check "${candidates[i]}" --need-rows --incomplete-ok 2>"$WORK_DIR/checks/$i.err" || rc=$?
      ((rc != 0)) || [[ $(jq '.complete' "${candidates[i]}") == true ]] || rc=incomplete
      echo "$rc" >"$WORK_DIR/checks/$i.rc"
    ) &
    while (($(jobs -rp | wc -l) >= cores)); do wait -n || true; done
  done
  wait
  for i in "${!candidates[@]}"; do
    file=${candidates[i]}
    rc=$(<"$WORK_DIR/checks/$i.rc")
    cat -- "$WORK_DIR/checks/$i.err" >&2
    [[ $rc != 2 ]] || exit 2 # the validator could not run: no verdict on any file
    if [[ $rc == incomplete ]]; then
      if ((from_dir[i])); then log::warn "$file: skipped: incomplete (\"complete\": false): the run is still going or was interrupted"; continue; fi
      log::error "$file: incomplete (\"complete\": false): the run was interrupted or is still going"; rc=1
    fi
    if [[ $rc != 0 ]]; then
      [[ -n $skip_invalid ]] || { log::error "$file: not a results file history.sh can read (--skip-invalid skips such files)"; exit 2; }
      log::warn "$file: skipped (--skip-invalid)"; continue
    fi
    files+=("$file")
  done
  ((${#files[@]})) || { log::error "no results file left to read"; exit 2; }

  local noise_floor=null
  if [[ -n $noise_floor_file ]]; then noise_floor=$(resultfile::noise_floor "$noise_floor_file") || exit 2; fi

  jq -n --argjson alpha "$alpha" --argjson threshold "$threshold" --argjson p99_threshold "$p99_threshold" \
    --argjson fail_on "$(list "$fail_on")" --argjson min_points "$min_files" --argjson window "$window" --argjson noise_floor "$noise_floor" \
    --argjson any_machine "$any_machine" --argjson server "$(list "${servers[@]}")" \
    --argjson scenario "$(list "${scenarios[@]}")" --argjson protocol "$(list "${protocols[@]}")" --argjson tool "$(list "${tools[@]}")" \
    --args '
    {accept: $ARGS.positional, alpha: $alpha, threshold: ($threshold / 100), p99_threshold: ($p99_threshold / 100), fail_on: ($fail_on | unique),
     min_points: $min_points, window: $window, noise_floor: $noise_floor, any_machine: $any_machine,
     filters: {server: $server, scenario: $scenario, protocol: $protocol, tool: $tool}}' "${accept[@]}" >"$WORK_DIR/opts.json"

  history::ensure_otava || { log::error "the change-point detector (apache-otava) could not be installed: no verdict"; exit 2; }
  rc=0
  "$(history::python)" "$ROOT/lib/history.py" analyze --opts "$WORK_DIR/opts.json" --out "$WORK_DIR/doc.json" "${files[@]}" || rc=$?
  ((rc == 0)) || { ((rc == 2)) || log::error "the analysis failed (exit $rc)"; exit 2; }

  if [[ -n $html ]]; then
    PAGE_TMP=$(mktemp "$(dirname -- "$html")/.history.XXXXXX")
    python3 "$ROOT/lib/history_page.py" --doc "$WORK_DIR/doc.json" --page "$html" --out "$PAGE_TMP" \
      || { log::error "could not write the trend page $html"; exit 2; }
    chmod 644 -- "$PAGE_TMP"
    mv -f -- "$PAGE_TMP" "$html"
    PAGE_TMP=''
    log::info "wrote $html"
  fi
  case $format in
    json) jq . "$WORK_DIR/doc.json" ;;
    markdown | junit) jq -r -L "$ROOT/lib" "import \"ci_format\" as ci; ci::${format}_history" "$WORK_DIR/doc.json" ;;
    *) "$(history::python)" "$ROOT/lib/history.py" render "$WORK_DIR/doc.json" ;;
  esac
  [[ $(jq -r '.verdict' "$WORK_DIR/doc.json") != regression ]] || exit 1
}

# sourced by tests: then only the functions
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
