#!/usr/bin/env bash
# report: the run's web page beside its results file (report.sh), for run-benchmarks.sh.
#
#   report::page RESULTS_FILE
#     Writes RESULTS_FILE's page (the same name, .html) with report.sh. A page that cannot be
#     written is a warning, never a failure: the results file is what counts. Always returns 0.
# Depends on lib/log.sh; report.sh one folder up.

REPORT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

report::page() {
  local file=$1
  [[ -f $file ]] || return 0
  if "$REPORT_ROOT/report.sh" "$file" >/dev/null; then
    log::info "web page: ${file%.json}.html"
  else
    log::warn "could not write the web page of $file (the results file is kept; try ./report.sh $file)"
  fi
  return 0
}
