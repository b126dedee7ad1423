#!/usr/bin/env bash
# export-results.sh: a results file's figures in the JSON benchmark dashboards read (issue 52).
# See usage below; the conversion is lib/export.jq.
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

usage() {
  cat <<'USAGE'
Usage: ./export-results.sh RESULTS.json --to gab|bmf [--metric rps|p99]

Prints a results file's figures, per closed-loop row (SERVER/SCENARIO/PROTOCOL/TOOL, as
compare-results.sh joins them), in the JSON a benchmark dashboard reads: successful
requests/s ("ok/s": failed requests are not throughput) and p99 latency, each the median of
the row's ok runs, with the 95% interval of its typical value (a t-interval on log values)
when the row has 2 runs or more. Rows at a fixed rate or of a capacity search, and rows
without an ok run, are left out.

  --to gab       github-action-benchmark's custom tools (one metric a file, as the action
                 takes one tool a step): --metric rps (default) is "customBiggerIsBetter"
                 (unit ok/s), --metric p99 "customSmallerIsBetter" (unit us). Each entry
                 {name, unit, value, range, extra}: range "± H", half the interval's width;
                 extra the interval and the run count
  --to bmf       Bencher Metric Format (bencher run --adapter json): per benchmark the
                 measures "throughput" (ok/s) and "latency-p99" (nanoseconds), each
                 {value, lower_value, upper_value} (bounds: the interval, with 2+ runs)
  --metric M     for gab: rps or p99 (above)
  -h, --help     this text

Output on stdout; nothing when the input is refused.
Exit status: 0 written, 2 usage or input error (a file that is not a valid, complete
results file, or one without a row to export).
USAGE
}

die_usage() { log::error "$1 (see --help)"; exit 2; }

main() {
  local file='' to='' metric=''
  while (($#)); do
    case $1 in
      -h|--help) usage; exit 0 ;;
      --to|--metric)
        (($# >= 2)) || die_usage "$1 needs a value"
        [[ $1 == --to ]] && to=$2 || metric=$2
        shift 2 ;;
      -*) die_usage "unknown option '$1'" ;;
      *) [[ -z $file ]] || die_usage "one results file only (got '$file' and '$1')"; file=$1; shift ;;
    esac
  done
  [[ -n $file ]] || die_usage "give a results file"
  [[ $to == gab || $to == bmf ]] || die_usage "--to takes gab or bmf, got '$to'"
  [[ $to == gab || -z $metric ]] || die_usage "--metric is for --to gab (bmf holds both)"
  metric=${metric:-rps}
  [[ $metric == rps || $metric == p99 ]] || die_usage "--metric takes rps or p99, got '$metric'"
  deps::ensure jq:jq || exit 2
  resultfile::check "$file" --need-ok || exit 2
  local out
  if [[ $to == gab ]]; then
    out=$(jq -L "$ROOT/lib" --arg metric "$metric" 'import "export" as ex; ex::gab($metric)' "$file")
  else
    out=$(jq -L "$ROOT/lib" 'import "export" as ex; ex::bmf' "$file")
  fi || { log::error "could not convert $file"; exit 2; }
  [[ $(jq 'length' <<<"$out") -gt 0 ]] || { log::error "$file: no closed-loop row with an ok run to export"; exit 2; }
  printf '%s\n' "$out"
}

main "$@"
