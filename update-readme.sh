#!/usr/bin/env bash
# update-readme.sh: write a results file into the README's performance section, with charts.
# See --help. Exit 0: written; 1: bad input or a step failed (README and charts untouched);
# 2: usage error.
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

usage() {
  cat <<'USAGE'
Usage: ./update-readme.sh [--file RESULTS.json | --results DIR] [--readme README.md]
                          [--baseline SERVER] [--charts DIR]

Replaces what lies between "<!-- performance:start -->" and "<!-- performance:end -->" in the
README with the results of one run (a "## Performance" section with the markers is created
when there is none):
  - one table per scenario x protocol x tool, servers sorted by successful requests/s
    (failed requests are not throughput: a server answering errors fast ranks by what it
    answered well): successful requests/s, errors (share of requests that failed, and per
    second), p50 / p99 / p99.9 latency (time to the final response, any status), server
    CPU, peak RSS and successful requests/s as a percentage of the baseline server; with
    several runs, the median and, for successful requests/s and p99, ± the 95% confidence
    interval (3+ runs: a t-interval on log values, docs/statistics.md) or the range min–max
    (2 runs); with 3+ runs a rank column where servers whose intervals overlap share a rank,
    marked tied (=); failed or skipped servers with the reason;
  - marks on the rows that had errors (⚠), on those of a tool whose accounting is
    approximate (≈, wrk) and on client-bound ones (†: the load tool was busy on 90% or more
    of its cores), explained under the table; the request timeout of each table
    when the tools ran with different ones (config.request_timeout_s; not shown for
    results files that do not record it);
  - charts drawn with gnuplot: successful requests/s per server for each scenario (grouped
    bars, one chart per protocol and tool) and the latency percentile spectrum of each table;
    when barrage recorded its per-second timeline, successful requests/s and p99 per second
    for each server in the headline scenario (the first such table; its median run), with
    the plotted numbers beside it (timeline-*.dat);
  - when the file has jdk-client and barrage rows: whether jdk-client ranks the servers both
    measured in the same order as barrage, per scenario and protocol ("Second opinion");
  - rows at the same load (run-benchmarks.sh --rates, --capacity), apart from the tables above:
    per scenario a table of each server at each offered rate (p50, p99, p99.9, errors; a rate
    not delivered shows the achieved rate and backlog, never a latency) with charts of latency
    by percentile (log "nines" axis, a curve per server and rate) and of p99 against the
    offered rate; the capacity under the --capacity conditions beside peak requests/s, with a
    bar chart; rows that broke an --slo condition are marked ✗;
  - the response-size sweep (rows of the size-sweep scenario group: GET /file?size=N at
    several N): per protocol and tool a table of each server's successful requests/s and MB/s
    of response bodies at each size, and a chart of both against the size (log axis);
  - the date, machine, OS, Java, suite commit and the command that reproduces the run.
Same input, same README, byte for byte. The README and the charts are replaced only once
everything has been made and staged beside them (temporary files, then renames); on any error,
including a chart that cannot be put in place, both stay as they were. A symlinked README is
written through the link (the file it points to is replaced; the link stays). In the charts
directory only the files an earlier run of this tool made are ever deleted (they are listed in
its .update-readme-manifest; without one, those the README's performance section links): a
file of your own there stays, unless a new chart has its very name.

Options:
  --file PATH        results file (default: the newest complete file in the results
                     directory, by its "timestamp" field, not by the file's date)
  --results DIR      the results directory (default: results/ of the suite)
  --readme PATH      README to update (default: README.md of the suite)
  --baseline SERVER  server of the "vs" column (successful requests/s relative to it;
                     default java-http; a table where it has no figure: its slowest server;
                     no column where fewer than two servers have one)
  --charts DIR       where the charts go (default: docs/charts of the suite); the README
                     links them by their path relative to the README
  -h, --help         this text

Exit status: 0 written, 1 bad input or failure (nothing changed), 2 usage error.
USAGE
}

die_usage() { log::error "$*"; log::error "see ./update-readme.sh --help"; exit 2; }

WORK_DIR=''
README_TMP=''
STAGE_DIR=''
# The names of the files this tool made in a charts directory, one a line: the only ones it
# ever deletes there (a user's own rps-*.png stays).
MANIFEST=.update-readme-manifest
# cleanup: the one EXIT trap: stops the child still running (jq, the charts' gnuplot), by its
# process group, before its files go: else it writes on into them.
cleanup() {
  # a subshell that a signal reaches as it is forked runs the traps it inherited (bash): only
  # the main shell removes its files (see on_exit in run-benchmarks.sh)
  [[ $BASHPID == "$$" ]] || return 0
  trap '' INT TERM
  procs::stop_all
  [[ -n $WORK_DIR ]] && rm -rf -- "$WORK_DIR"
  [[ -n $README_TMP ]] && rm -f -- "$README_TMP"
  [[ -n $STAGE_DIR ]] && rm -rf -- "$STAGE_DIR"
  return 0
}

# from_model MODEL CMD...: CMD with MODEL on its stdin.
from_model() { local model=$1; shift; "$@" <"$model"; }

# made_before CHARTS_DIR README CHARTS_LINK: the files an earlier run made in CHARTS_DIR, one a
# line: its manifest; without one (a directory from before manifests), the charts the README's
# performance section links (and a timeline chart's data file).
made_before() {
  local charts_dir=$1 readme=$2 charts_link=$3 name
  if [[ -f $charts_dir/$MANIFEST ]]; then
    grep -v '^$' -- "$charts_dir/$MANIFEST" || true
    return 0
  fi
  sed -n "/^$README_START\$/,/^$README_END\$/p" -- "$readme" \
    | { grep -oE "\]\(${charts_link//./[.]}/(rps|latency|timeline|variants)-[^/()[:space:]]+\.png\)" || true; } \
    | sed -E 's/^.*\/([^/]+)\)$/\1/' | sort -u \
    | while IFS= read -r name; do
        printf '%s\n' "$name"
        [[ $name != timeline-* ]] || printf '%s\n' "${name%.png}.dat"
      done
}

# install_all NEW_DIR CHARTS_DIR README_TMP README_TARGET OLD_LIST FILE...: puts the new charts
# (FILE..., in NEW_DIR) and the README in place, all or nothing. The charts are first copied
# into a stage inside CHARTS_DIR (same file system: each swap is a rename); a file they replace
# is moved aside, not deleted; if any swap fails (a directory in a chart's place, ...), every
# one done so far is undone and the README is not touched. Only once the README is in place are
# the files of OLD_LIST (an earlier run's manifest) that this run did not make deleted, and the
# new manifest kept. Returns 1, with the reason logged, when nothing was changed.
install_all() {
  local new_dir=$1 charts_dir=$2 readme_tmp=$3 readme_target=$4 old_list=$5 file
  shift 5
  mkdir -p -- "$charts_dir" || return 1
  STAGE_DIR=$(mktemp -d "$charts_dir/.update-readme.XXXXXX") || return 1
  mkdir -- "$STAGE_DIR/new" "$STAGE_DIR/old" || return 1
  for file in "$@"; do
    cp -- "$new_dir/$file" "$STAGE_DIR/new/$file" || { log::error "could not stage $file in $charts_dir"; return 1; }
  done
  printf '%s\n' "$@" >"$STAGE_DIR/new/$MANIFEST" || return 1
  local placed=()
  for file in "$@" "$MANIFEST"; do
    if [[ -d $charts_dir/$file && ! -L $charts_dir/$file ]]; then
      log::error "$charts_dir/$file is a directory: the chart cannot be put in its place"
      install_undo "$charts_dir" "${placed[@]}"; return 1
    fi
    # a FIFO, a socket, a device: not a chart of ours to replace (it would be deleted with the
    # files replaced)
    if [[ -e $charts_dir/$file && ! -f $charts_dir/$file && ! -L $charts_dir/$file ]]; then
      log::error "$charts_dir/$file is not a regular file: the chart cannot be put in its place"
      install_undo "$charts_dir" "${placed[@]}"; return 1
    fi
    if [[ -e $charts_dir/$file || -L $charts_dir/$file ]] && ! mv -T -- "$charts_dir/$file" "$STAGE_DIR/old/$file"; then
      install_undo "$charts_dir" "${placed[@]}"; return 1
    fi
    placed+=("$file")
    if ! mv -T -- "$STAGE_DIR/new/$file" "$charts_dir/$file"; then
      log::error "could not move $file into $charts_dir"
      install_undo "$charts_dir" "${placed[@]}"; return 1
    fi
  done
  if ! mv -T -- "$readme_tmp" "$readme_target"; then
    log::error "could not move the new README into place"
    install_undo "$charts_dir" "${placed[@]}"; return 1
  fi
  while IFS= read -r file; do
    [[ -n $file && $file != */* ]] || continue
    # a here-string, not a pipe: under pipefail grep's early exit could fail the test and delete a chart just placed
    grep -qxF -- "$file" <<<"$(printf '%s\n' "$@" "$MANIFEST")" && continue
    [[ -f $charts_dir/$file ]] && rm -f -- "$charts_dir/$file"
  done <<<"$old_list"
  return 0
}

# install_undo CHARTS_DIR FILE...: puts back what install_all replaced of FILE... (reverse order).
install_undo() {
  local charts_dir=$1 i file
  shift
  for ((i = $#; i >= 1; i--)); do
    file=${!i}
    if [[ -e $STAGE_DIR/old/$file || -L $STAGE_DIR/old/$file ]]; then
      mv -fT -- "$STAGE_DIR/old/$file" "$charts_dir/$file" || log::error "could not put $charts_dir/$file back (it is in $STAGE_DIR/old)"
    else
      rm -f -- "$charts_dir/$file"
    fi
  done
  log::error "README and charts unchanged"
}

main() {
  local file='' results_dir=$ROOT/results readme=$ROOT/README.md baseline=java-http charts_dir=$ROOT/docs/charts
  while (($#)); do
    case $1 in
      -h|--help) usage; exit 0 ;;
      --file|--results|--readme|--baseline|--charts)
        if (($# < 2)) || [[ -z $2 ]]; then die_usage "$1 needs a value"; fi
        case $1 in
          --file) file=$2 ;;
          --results) results_dir=${2%/} ;;
          --readme) readme=$2 ;;
          --baseline) baseline=$2 ;;
          --charts) charts_dir=${2%/} ;;
        esac
        shift 2 ;;
      *) die_usage "unknown argument '$1'" ;;
    esac
  done

  deps::ensure jq:jq gnuplot:gnuplot-nox || exit 1
  if [[ -z $file ]]; then
    file=$(resultfile::newest "$results_dir") \
      || log::die "no complete results file in $results_dir: run ./run-benchmarks.sh first, or pass --file"
    log::info "newest results file: $file"
  fi
  resultfile::check "$file" --need-ok || exit 1
  [[ -f $readme && -r $readme && -w $readme ]] || log::die "$readme: not a writable file"
  # two files, not one: the README would be the results file it was made from
  [[ ! $readme -ef $file ]] || die_usage "--readme $readme is the results file it would be made from ($file)"
  # a symlinked README is written through the link: the new one goes where the link points
  local readme_dir readme_target
  readme_dir=$(dirname -- "$readme")
  readme_target=$(readlink -f -- "$readme")

  # INT and TERM end the script through cleanup (130, 143); each step that may take a while
  # runs in a process group of its own (procs::run), which a signal's wait does not hold up
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  WORK_DIR=$(mktemp -d "$readme_dir/.update-readme.XXXXXX")
  README_TMP=$(mktemp "$(dirname -- "$readme_target")/.README.XXXXXX")

  local charts_link charts=()
  charts_link=$(realpath -m --relative-to="$readme_dir" -- "$charts_dir")
  procs::run model readme::model "$file" "$baseline" "$(realpath -m --relative-to="$readme_dir" -- "$(dirname -- "$file")")" \
    >"$WORK_DIR/model.json" || log::die "$file: could not read the results"
  if ! jq -e --arg b "$baseline" 'any(.tables[].measured[]; .server == $b)' "$WORK_DIR/model.json" >/dev/null; then
    log::warn "baseline server '$baseline' has no successful run: each table's \"vs\" column is against its slowest server"
  fi
  # (a spawned job's stdin is /dev/null: the model goes in inside the job, from_model)
  procs::run section from_model "$WORK_DIR/model.json" readme::section "$charts_link" "${file##*/}" >"$WORK_DIR/section.md" \
    || log::die "could not write the performance section"
  mkdir "$WORK_DIR/charts"
  procs::run charts from_model "$WORK_DIR/model.json" readme::charts "$WORK_DIR/charts" >"$WORK_DIR/charts.list" \
    || log::die "could not draw the charts (gnuplot's words above); README and charts unchanged"
  mapfile -t charts <"$WORK_DIR/charts.list"
  # every file with a successful row has a chart at least: none is a step that did not run
  ((${#charts[@]})) || log::die "no chart was drawn; README and charts unchanged"
  readme::splice "$readme" "$WORK_DIR/section.md" >"$README_TMP" \
    || log::die "$readme: cannot place the performance section; README unchanged"
  chmod --reference="$readme_target" -- "$README_TMP"

  # all or nothing: a signal must not cut the swap in half (cleanup would delete the charts it
  # moved aside); it takes milliseconds, and the run ends right after it
  trap '' INT TERM
  install_all "$WORK_DIR/charts" "$charts_dir" "$README_TMP" "$readme_target" \
    "$(made_before "$charts_dir" "$readme" "$charts_link")" "${charts[@]}" || exit 1
  README_TMP=''
  log::info "wrote the performance section of $readme from $file (${#charts[@]} charts in $charts_dir)"
}

# sourced by tests: then only the functions
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
