#!/usr/bin/env bash
# screenshots.sh: the README's pictures of report.sh's pages, made from the test fixtures by the
# browser check the tests use (lib/report/browser.py, headless chromium).
#
#   lib/report/screenshots.sh [OUT_DIR]     (default: docs/ of the suite)
# Writes OUT_DIR/report-run.png (a run with per-second timelines) and OUT_DIR/report-compare.png
# (a comparison with a regression). Exit 0, or 1 when a page or a screenshot could not be made.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$ROOT/docs}
FIXTURES=$ROOT/tests/fixtures/results

main() {
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/report screenshots.XXXXXX")
  # shellcheck disable=SC2064 # expand now: the trap must remove this directory
  trap "rm -rf -- '$work'" EXIT
  cp "$FIXTURES/readme-timeline.json" "$work/run.json"
  "$ROOT/report.sh" "$work/run.json" >/dev/null
  "$ROOT/report.sh" -o "$work/compare.html" "$FIXTURES/multi-base.json" "$FIXTURES/multi-shift10.json" >/dev/null
  mkdir -p "$OUT"
  python3 "$ROOT/lib/report/browser.py" "$work/run.html" --screenshot "$OUT/report-run.png" --width 1100 --height 1300 >/dev/null
  python3 "$ROOT/lib/report/browser.py" "$work/compare.html" --screenshot "$OUT/report-compare.png" --width 1100 --height 1100 >/dev/null
  printf '%s\n' "$OUT/report-run.png" "$OUT/report-compare.png"
}

main "$@"
