#!/usr/bin/env bash
# ci/benchmarks-step.sh: the steps of .github/workflows/benchmarks.yml (issue 52), a script of
# the repository so that they run (and are tested) outside GitHub Actions too.
#
#   ci/benchmarks-step.sh run [RUN-BENCHMARKS OPTION...]
#     ./run-benchmarks.sh --budget $BARRAGE_CI_BUDGET (default 30m) --label ci --output
#     $BARRAGE_CI_RESULTS (default results/ci) plus the options given; writes "results=PATH"
#     (the results file it wrote) to $GITHUB_OUTPUT when set, and prints PATH. Exits as
#     run-benchmarks.sh does (3, a broken --slo condition, still names the file).
#   ci/benchmarks-step.sh compare NEW.json HISTORY_DIR
#     The gate. The baseline is the newest results file of HISTORY_DIR (the kept files of
#     earlier jobs): compare-results.sh BASE NEW, its JSON in $BARRAGE_CI_REPORTS/compare.json
#     (default reports/), as Markdown appended to $GITHUB_STEP_SUMMARY (a job summary; stdout
#     when unset) and as JUnit in compare.xml; with 6 files or more, history.sh over them and
#     NEW the same way (history.json, the summary, history.xml). Exports for dashboards beside them (github-action-benchmark's
#     ok-per-s.json and p99.json, Bencher's bmf.json). Then NEW joins HISTORY_DIR (the next
#     job's baseline) unless the comparison found a regression or failed. Exit: 0 no
#     regression (or no baseline yet: said in the summary), 1 a regression in either, 2 an
#     input error (compare-results.sh's and history.sh's codes).
# Environment: BARRAGE_CI_BUDGET, BARRAGE_CI_RESULTS, BARRAGE_CI_REPORTS, GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY, and BARRAGE_CI_RUN_BENCHMARKS (the runner, default ./run-benchmarks.sh:
# the tests put a stand-in there).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/log.sh
source "$ROOT/lib/log.sh"
# shellcheck source=lib/schema.sh
source "$ROOT/lib/schema.sh"
# shellcheck source=lib/resultfile.sh
source "$ROOT/lib/resultfile.sh"
# shellcheck source=lib/compare.sh
source "$ROOT/lib/compare.sh"

# History files a change point needs: history.sh's --min-files default.
HISTORY_MIN_FILES=6

# summary: appends stdin to the job summary (stdout outside Actions).
summary() { if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then cat >>"$GITHUB_STEP_SUMMARY"; else cat; fi; }

step_run() {
  local out=${BARRAGE_CI_RESULTS:-$ROOT/results/ci} runner=${BARRAGE_CI_RUN_BENCHMARKS:-$ROOT/run-benchmarks.sh}
  local rc=0 file
  mkdir -p -- "$out"
  "$runner" --budget "${BARRAGE_CI_BUDGET:-30m}" --label ci --output "$out" "$@" || rc=$?
  # 3: every row measured, an --slo condition broken: the file is whole and worth keeping
  if ((rc != 0 && rc != 3)); then log::error "run-benchmarks.sh exited $rc"; return "$rc"; fi
  file=$(resultfile::newest "$out") || { log::error "no complete results file in $out"; return 1; }
  [[ -z ${GITHUB_OUTPUT:-} ]] || printf 'results=%s\n' "$file" >>"$GITHUB_OUTPUT"
  printf '%s\n' "$file"
  return "$rc"
}

step_compare() {
  (($# == 2)) || { log::error "usage: ci/benchmarks-step.sh compare NEW.json HISTORY_DIR"; return 2; }
  local new=$1 history=$2 reports=${BARRAGE_CI_REPORTS:-$ROOT/reports} base rc=0 history_rc=0 kept
  resultfile::check "$new" --need-rows || return 2
  mkdir -p -- "$history" "$reports"
  "$ROOT/export-results.sh" "$new" --to gab >"$reports/ok-per-s.json" || return 2
  "$ROOT/export-results.sh" "$new" --to gab --metric p99 >"$reports/p99.json" || return 2
  "$ROOT/export-results.sh" "$new" --to bmf >"$reports/bmf.json" || return 2
  # each analysis runs once (--format json); its Markdown and JUnit are rendered from that
  if ! base=$(resultfile::newest "$history"); then
    printf '## Benchmarks\n\nNo baseline yet (%s holds no results file): this run becomes the first.\n' "$history" | summary
  else
    "$ROOT/compare-results.sh" --format json "$base" "$new" >"$reports/compare.json" || rc=$?
    ((rc <= 1)) || return "$rc"
    printf '## Benchmarks against the previous kept run\n\n' | summary
    compare::render markdown <"$reports/compare.json" | summary
    compare::render junit <"$reports/compare.json" >"$reports/compare.xml"
  fi
  kept=$(find "$history" -maxdepth 1 -name '*.json' -type f | wc -l)
  if ((kept + 1 >= HISTORY_MIN_FILES)); then
    local files=("$history"/*.json "$new")
    "$ROOT/history.sh" --format json "${files[@]}" >"$reports/history.json" || history_rc=$?
    ((history_rc <= 1)) || return "$history_rc"
    printf '\n## History of the kept runs\n\n' | summary
    jq -r -L "$ROOT/lib" 'import "ci_format" as ci; ci::markdown_history' "$reports/history.json" | summary
    jq -r -L "$ROOT/lib" 'import "ci_format" as ci; ci::junit_history' "$reports/history.json" >"$reports/history.xml"
  fi
  if ((rc == 0 && history_rc == 0)); then
    cp -- "$new" "$history/" # the next job's baseline
  else
    log::warn "a regression: $new is not kept as the next baseline"
  fi
  ((rc == 0 && history_rc == 0)) || return 1
}

main() {
  local step=${1:-}
  (($#)) && shift
  case $step in
    run) step_run "$@" ;;
    compare) step_compare "$@" ;;
    *) log::error "usage: ci/benchmarks-step.sh run [OPTION...] | compare NEW.json HISTORY_DIR"; return 2 ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
