# shellcheck shell=bash
# What every bats file shares (`load test_helper`). Loading it sets ROOT (the suite) and
# defines:
#   common_setup [LABEL]  the set-up every test shares: TMP, a new temp dir with a space in its
#                       name, and an empty list of background processes; call it first in setup()
#   common_teardown     stops every process `background` started that still runs (its process
#                       group when it leads one, as setsid makes it; TERM, KILL after 2 s),
#                       reaps them, removes TMP; always 0. Call it in teardown()
#   make_tmp [LABEL]    a new temp dir with a space in its name (under BATS_TMPDIR), printed
#   free_port           a port on 127.0.0.1, free with the one above it (TCP and UDP), printed
#   fixture NAME...     the path of tests/fixtures/NAME..., printed
#   run_setup_file, run_setup [LABEL], run_teardown
#                       setup_file, setup and teardown of a file that runs run-benchmarks.sh:
#                       the schema validator; RUN, FAKES, TMP, PORT; stop_recorded + common_teardown
#   results_file        the one results file written under $TMP/out, printed (nothing if none)
#   pid_list            the PID list (results/<stamp>.logs/pids) of the run under $TMP/out, printed
#   valid FILE          0 when FILE is valid against schemas/results.schema.json (lib/schema.sh
#                       sourced; findings on stderr otherwise)
#   leftovers           processes whose command line names this test's $PORT (tools, curl), one a line
#   run_leftovers       every process of the pid list that still runs (same PID, same start
#                       time) or still has a live process in its process group, one a line
#   no_process_left     neither finds a process (retried for a second: a group that was told
#                       to stop may take a moment); prints what is left and returns 1 otherwise
#   stop_recorded       stops, by process group, every process the run under $TMP/out recorded
#                       (a failed test may leave them running); always 0
#   background CMD...   starts CMD in the background with bats' fd 3 closed (else bats waits
#                       for it before it ends), stdout and stderr as the caller set them; sets BG_PID
#                       and lists it for common_teardown
#   stop_background PID stops one of them now (as common_teardown does), reaps it; always 0
#   test_server [ARG...]  client/tests/server.py ARG... in the background, waits (bounded) for the
#                       port it prints; sets PORT and SERVER_PID, its line in $TMP/server.out
#   contract_server     tests/fixtures/fake-servers/contract_server.py on a free port in the
#                       background, waits (bounded) until /hello answers; sets PORT and SERVER_PID
#   assert_jq [JQ_OPTION...] FILTER FILE|-
#                       an assertion on a JSON file a tool wrote (- reads stdin): fails, saying
#                       why, when the input is missing, empty or not JSON, when FILTER gives no
#                       value at all, or when any value it gives is false or null (jq 1.6's
#                       `jq -e FILTER FILE` exits 0 on an empty FILE; a selection that matches
#                       nothing is no pass either: stream the rows, not `[...] | all`)
#   budgeted_results FIXTURE OUT  FIXTURE (tests/fixtures/results/multi-base.json) as a budgeted
#                       run's results in OUT, with a pair left open (update-readme.bats, report.bats)
#   run_spec NAME KEY=VALUE...  fills the associative array NAME (declare it first) with a run
#                       spec for a driver (lib/plan.sh: plan::spec): out=$TMP/out.json dir=$TMP
#                       threads=1 connections=1 streams=1 duration_s=1 warmup_s=0 and empty
#                       url protocol scenario rate cpus samples start_at barrage_bin, then the pairs

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)

make_tmp() { mktemp -d "${BATS_TMPDIR:-/tmp}/${1:-barrage test}.XXXX"; }

BACKGROUND_PIDS=()

common_setup() {
  TMP=$(make_tmp "${1:-barrage test}")
  BACKGROUND_PIDS=()
}

common_teardown() {
  local pid
  for pid in "${BACKGROUND_PIDS[@]}"; do stop_background "$pid"; done
  BACKGROUND_PIDS=()
  [[ -n ${TMP:-} ]] && rm -rf -- "$TMP"
  return 0
}

stop_background() {
  local pid=$1 target i
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  target=$pid
  # a process that leads its own group (setsid) may have children in it: stop them all
  [[ $(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ') == "$pid" ]] && target=-$pid
  kill -TERM -- "$target" 2>/dev/null || true
  for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "$target" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  return 0
}

# BARRAGE_TEST_PYTHON: the interpreter python3 stands for, asked once and exported (a bats
# file's tests and the Python fixture servers they start use it): a version manager's shim in
# front of it (pyenv's) costs ~0.17 s a call.
if [[ -z ${BARRAGE_TEST_PYTHON:-} ]]; then
  BARRAGE_TEST_PYTHON=$(python3 -c 'import sys; print(sys.executable)')
  export BARRAGE_TEST_PYTHON
fi

# Below the ephemeral range, so that no client socket's local port takes the port, or PORT + 1 (a
# server's TLS port), between this check and the server's bind (seen: jetty's TLS port taken, one
# run in ten); even ports handed out in turn through a file the parallel test files share, so that
# two calls never give the same or adjacent ports; each free on TCP and UDP (HTTP/3).
free_port() {
  "$BARRAGE_TEST_PYTHON" - "${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/barrage-free-ports" <<'EOF'
import fcntl, random, socket, sys

def free(port):
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        with socket.socket(socket.AF_INET, kind) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return False
    return True

with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
    ephemeral_low = int(f.read().split()[0])
low = max(1024, ephemeral_low - 12000) // 2 * 2
with open(sys.argv[1], "a+") as state:
    fcntl.flock(state, fcntl.LOCK_EX)
    state.seek(0)
    last = state.read().strip()
    port = int(last) if last else random.randrange(low, ephemeral_low - 2, 2)
    for _ in range((ephemeral_low - low) // 2):
        port = port + 2 if port + 2 < ephemeral_low - 1 else low
        if free(port) and free(port + 1):
            break
    else:
        sys.exit("free_port: no two free ports below %d" % ephemeral_low)
    state.seek(0)
    state.truncate()
    state.write(str(port))
print(port)
EOF
}

fixture() { local IFS=/; printf '%s\n' "$ROOT/tests/fixtures/$*"; }

results_file() { find "$TMP/out" -maxdepth 1 -name '*.json' 2>/dev/null | head -n 1; }

pid_list() { find "$TMP/out" -path '*.logs/pids' 2>/dev/null | head -n 1; }

valid() { schema::validate "$ROOT/schemas/results.schema.json" "$1"; }

leftovers() {
  [[ -n ${PORT:-} ]] || return 0
  pgrep -af -- ":$PORT/|contract_server.py $PORT|--port $PORT" || true
}

run_leftovers() {
  local list pid start label stat fields
  list=$(pid_list)
  [[ -s $list ]] || { echo "no pid list under $TMP/out"; return 0; }
  while IFS=$'\t' read -r pid start label; do
    if read -r stat 2>/dev/null <"/proc/$pid/stat"; then
      read -r -a fields <<<"${stat##*) }"
      [[ ${fields[0]} != Z && ${fields[19]} == "$start" ]] && echo "$label: pid $pid still runs"
    fi
    ps -o pid=,stat=,args= -g "$pid" 2>/dev/null | awk -v what="$label" '$2 !~ /^Z/ {print what ": in its process group: " $0}'
  done <"$list"
}

no_process_left() {
  local left i
  for ((i = 0; i < 10; i++)); do
    left=$(run_leftovers; leftovers)
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  echo "left running: $left"
  return 1
}

stop_recorded() {
  local list pid _
  list=$(pid_list)
  [[ -n $list ]] || return 0
  while IFS=$'\t' read -r pid _; do kill -KILL -- "-$pid" 2>/dev/null || true; done <"$list"
}

# run_setup_file: setup_file of a file that runs run-benchmarks.sh: its results are checked
# with the JSON Schema validator, installed once here.
run_setup_file() {
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=lib/schema.sh
  source "$ROOT/lib/schema.sh"
  schema::ensure_validator
}

# run_setup [TMP_NAME]: setup of a test that runs run-benchmarks.sh: RUN, FAKES (the fixture
# servers), TMP (common_setup), a free PORT, and the log and schema libraries.
run_setup() {
  # shellcheck disable=SC2034 # read by the tests
  RUN=$ROOT/run-benchmarks.sh
  # shellcheck disable=SC2034 # read by the tests
  FAKES=$ROOT/tests/fixtures/fake-servers
  common_setup "${1:-barrage test}"
  PORT=$(free_port)
  # shellcheck source=lib/log.sh
  source "$ROOT/lib/log.sh"
  # shellcheck source=lib/schema.sh
  source "$ROOT/lib/schema.sh"
}

# run_teardown: a failed test may leave its run going (common_teardown stops it) and what
# it recorded (stopped here by process group).
run_teardown() {
  stop_recorded
  common_teardown
}

background() {
  "$@" 3>&- &
  # shellcheck disable=SC2034 # read by the caller
  BG_PID=$!
  BACKGROUND_PIDS+=("$BG_PID")
}

test_server() {
  background "$BARRAGE_TEST_PYTHON" "$ROOT/client/tests/server.py" "$@" >"$TMP/server.out"
  # shellcheck disable=SC2034 # read by the caller
  SERVER_PID=$BG_PID
  for _ in $(seq 100); do [[ -s $TMP/server.out ]] && break; sleep 0.1; done
  PORT=$(jq -r .port "$TMP/server.out")
}

contract_server() {
  PORT=$(free_port)
  background "$BARRAGE_TEST_PYTHON" "$ROOT/tests/fixtures/fake-servers/contract_server.py" "$PORT"
  # shellcheck disable=SC2034 # read by the caller
  SERVER_PID=$BG_PID
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/hello" >/dev/null && break; sleep 0.1; done
}

assert_jq() {
  (($# >= 2)) || { echo "assert_jq: usage: assert_jq [JQ_OPTION...] FILTER FILE|-"; return 2; }
  local file=${!#} input out value
  local args=("${@:1:$#-1}")
  if [[ $file == - ]]; then
    input=$(cat)
    file='stdin'
  else
    [[ -f $file ]] || { echo "assert_jq: $file: no such file"; return 1; }
    input=$(<"$file")
  fi
  [[ $input =~ [^[:space:]] ]] || { echo "assert_jq: $file is empty"; return 1; }
  out=$(jq -c "${args[@]}" <<<"$input") || { echo "assert_jq: jq failed on $file (not JSON?)"; return 1; }
  [[ -n $out ]] || { echo "assert_jq: ${args[*]: -1} gave no value on $file"; return 1; }
  while IFS= read -r value; do
    if [[ $value == false || $value == null ]]; then
      echo "assert_jq: ${args[*]: -1} gave $value on $file"
      return 1
    fi
  done <<<"$out"
}

run_spec() {
  local -n spec_to_fill=$1
  local pair
  shift
  spec_to_fill=([out]="$TMP/out.json" [dir]="$TMP" [threads]=1 [connections]=1 [streams]=1 [duration_s]=1
    [warmup_s]=0 [url]='' [protocol]=h1 [scenario]='' [rate]='' [cpus]='' [samples]='' [start_at]='' [barrage_bin]='')
  # shellcheck disable=SC2034 # a nameref: the caller's array
  for pair in "$@"; do spec_to_fill[${pair%%=*}]=${pair#*=}; done
}

# budgeted_results FIXTURE OUT: FIXTURE as a budgeted run's results (run-benchmarks.sh --budget 1h) that
# ended with the budget: settings' budget and tie margin, and its rounds (lib/rounds.jq) with
# tomcat's hello h1 wrk runs moved next to jetty's, so that a pair is open.
budgeted_results() {
  jq -L "$ROOT/lib" 'import "rounds" as rounds;
    .results |= map(if .server == "tomcat" and .scenario == "hello" and .protocol == "h1"
                    then .metrics.successful_rps = ({"1": 44000, "2": 45900, "3": 43100}[.run | tostring]) else . end)
    | .settings += {budget_s: 3600, tie_margin: 0.03, left_out: "scenarios mixed; --budget none brings them back"}
    | .rounds = {budget_s: 3600, tie_margin: 0.03, min_runs: 3, rounds: 3, spent_s: 3590, estimate_s: 1200, first_s: 1100,
                 ended: "budget", tables: rounds::summary(0.03; 3; []; "budget"), turns: []}' "$1" >"$2"
}
