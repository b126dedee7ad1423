# shellcheck shell=bash
# What the bats files that drive run-benchmarks.sh or a server share (`load helpers`):
#   free_port        a free TCP port on 127.0.0.1, printed
#   results_file     the one results file written under $TMP/out, printed (nothing if none)
#   pid_list         the PID list (results/<stamp>.logs/pids) of the run under $TMP/out, printed
#   valid FILE       0 when FILE is valid against schemas/results.schema.json (lib/schema.sh
#                    sourced; findings on stderr otherwise)
#   stop_recorded    stops, by process group, every process the run under $TMP/out recorded
#                    (a failed test may leave them running); always 0

free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

results_file() { find "$TMP/out" -maxdepth 1 -name '*.json' 2>/dev/null | head -n 1; }

pid_list() { find "$TMP/out" -path '*.logs/pids' 2>/dev/null | head -n 1; }

valid() { schema::validate "$ROOT/schemas/results.schema.json" "$1"; }

stop_recorded() {
  local list pid _
  list=$(pid_list)
  [[ -n $list ]] || return 0
  while IFS=$'\t' read -r pid _; do kill -KILL -- "-$pid" 2>/dev/null || true; done <"$list"
}
