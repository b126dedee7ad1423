#!/usr/bin/env bash
# fetch.sh: re-fetch the charting library the report pages embed (Apache ECharts, pinned) from npm
# and check it against SHA256SUMS; or, with --check, only check the vendored copy.
#
#   lib/report/vendor/fetch.sh [--check]
# Writes echarts.min.js.gz (the library compressed with gzip -9n: git keeps it under 1 MiB; the
# report decompresses it into each page), LICENSE.echarts and NOTICE.echarts next to this script.
# SHA256SUMS pins the uncompressed file. Exit 0: the file in place matches the pinned checksum;
# 1: it does not (nothing replaced); 2: npm failed.
# To move to another version: change ECHARTS_VERSION, run with --update, review, commit.
set -euo pipefail

ECHARTS_VERSION=6.1.0
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# check: the vendored library, decompressed, has the pinned checksum
check() {
  local want got
  want=$(cut -d' ' -f1 "$HERE/SHA256SUMS")
  got=$(gzip -dc "$HERE/echarts.min.js.gz" | sha256sum | cut -d' ' -f1) || return 1
  [[ $got == "$want" ]] || { echo "echarts.min.js.gz does not match SHA256SUMS" >&2; return 1; }
}

main() {
  local mode=${1:-fetch}
  case $mode in
    --check) check; return ;;
    fetch|--update) ;;
    *) echo "usage: $0 [--check|--update]" >&2; return 2 ;;
  esac
  local work
  work=$(mktemp -d)
  # shellcheck disable=SC2064 # expand now: the trap must remove this directory
  trap "rm -rf -- '$work'" EXIT
  (cd "$work" && npm pack --silent "echarts@$ECHARTS_VERSION" >/dev/null) || { echo "npm pack echarts@$ECHARTS_VERSION failed" >&2; return 2; }
  tar -xzf "$work/echarts-$ECHARTS_VERSION.tgz" -C "$work"
  if [[ $mode == --update ]]; then
    (cd "$work/package/dist" && sha256sum echarts.min.js) >"$HERE/SHA256SUMS"
  elif ! (cd "$work/package/dist" && sha256sum --quiet -c "$HERE/SHA256SUMS"); then
    echo "echarts@$ECHARTS_VERSION from npm does not match SHA256SUMS: nothing replaced" >&2
    return 1
  fi
  gzip -9n -c "$work/package/dist/echarts.min.js" >"$HERE/echarts.min.js.gz"
  cp "$work/package/LICENSE" "$HERE/LICENSE.echarts"
  cp "$work/package/NOTICE" "$HERE/NOTICE.echarts"
  check
}

main "$@"
