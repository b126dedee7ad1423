#!/usr/bin/env bash
# compare: two results files -> a comparison document and its report (the work of
# compare-results.sh; the logic is in lib/compare.jq, the statistics in lib/stats.jq).
#
#   compare::document BASE NEW OPTS_JSON
#     Prints the comparison document (JSON) of two checked results files. OPTS_JSON
#     holds the options lib/compare.jq's compare() expects. Returns jq's status.
#   compare::render FORMAT [DETAILS]
#     Reads a comparison document on stdin and prints it as FORMAT (text, markdown
#     or json); text's table is the narrow one unless DETAILS is 1. Returns jq's status.
#   compare::regressions
#     Reads a comparison document on stdin and prints its number of regressions (the length
#     of its regressions list).
# Depends on jq and on lib/compare.jq, lib/stats.jq, lib/format.jq next to this file.

COMPARE_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

compare::document() {
  local base=$1 new=$2 opts=$3
  jq -n -L "$COMPARE_LIB" --slurpfile base "$base" --slurpfile new "$new" --argjson opts "$opts" \
    'import "compare" as c; c::compare($base[0]; $new[0]; $opts)'
}

compare::render() {
  case $1 in
    json) jq . ;;
    text) jq -r -L "$COMPARE_LIB" --argjson details "$([[ ${2:-0} == 1 ]] && echo true || echo false)" \
      'import "compare" as c; c::render_text($details)' ;;
    markdown) jq -r -L "$COMPARE_LIB" 'import "compare" as c; c::render_markdown' ;;
    junit) jq -r -L "$COMPARE_LIB" 'import "ci_format" as ci; ci::junit_compare' ;;
    *) log::error "unknown format '$1'"; return 2 ;;
  esac
}

compare::regressions() { jq -r '.regressions | length'; }
