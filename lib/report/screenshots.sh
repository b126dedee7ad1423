#!/usr/bin/env bash
# screenshots.sh: the README's pictures of report.sh's pages, made from the test fixtures by the
# browser check the tests use (lib/report/browser.py, headless chromium).
#
#   lib/report/screenshots.sh [OUT_DIR]     (default: docs/ of the suite)
# Writes OUT_DIR/report-run.png (a run with per-second timelines) and OUT_DIR/report-compare.png
# (a comparison with a regression), both or neither: each is made in a work folder, then renamed
# into place. Replaces only regular files. Exit 0, or 1 when a page or a screenshot could not be
# made or a picture's place holds something else (a folder, a FIFO, a device).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$ROOT/docs}
FIXTURES=$ROOT/tests/fixtures/results
WORK='' STAGED=()

cleanup() {
  [[ -z $WORK ]] || rm -rf -- "$WORK"
  ((${#STAGED[@]} == 0)) || rm -f -- "${STAGED[@]}"
}

main() {
  local name
  for name in report-run.png report-compare.png; do
    if [[ -e $OUT/$name || -L $OUT/$name ]] && [[ ! -f $OUT/$name ]]; then
      echo "screenshots.sh: $OUT/$name exists and is not a regular file: not replaced" >&2
      exit 1
    fi
  done
  trap cleanup EXIT
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/report screenshots.XXXXXX")
  cp "$FIXTURES/readme-timeline.json" "$WORK/run.json"
  "$ROOT/report.sh" "$WORK/run.json" >/dev/null
  "$ROOT/report.sh" -o "$WORK/compare.html" "$FIXTURES/multi-base.json" "$FIXTURES/multi-shift10.json" >/dev/null
  python3 "$ROOT/lib/report/browser.py" "$WORK/run.html" --screenshot "$WORK/report-run.png" --width 1100 --height 1300 >/dev/null
  python3 "$ROOT/lib/report/browser.py" "$WORK/compare.html" --screenshot "$WORK/report-compare.png" --width 1100 --height 1100 >/dev/null
  mkdir -p -- "$OUT"
  # both copied beside their places first: the renames are then on one file system, and
  # nothing is replaced unless both are there
  for name in report-run.png report-compare.png; do
    STAGED+=("$OUT/.$name.new")
    cp -- "$WORK/$name" "$OUT/.$name.new"
  done
  for name in report-run.png report-compare.png; do mv -fT -- "$OUT/.$name.new" "$OUT/$name"; done
  STAGED=()
  printf '%s\n' "$OUT/report-run.png" "$OUT/report-compare.png"
}

main "$@"
