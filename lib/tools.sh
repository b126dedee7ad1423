#!/usr/bin/env bash
# tools: discovers the load-tool drivers (lib/tools/<tool>.sh, interface in lib/tools/README.md)
# and runs a tool as a bounded, killable child.
#
#   tools::list
#     Tool names, one per line: every lib/tools/*.sh, sorted.
#   tools::load
#     Sources every driver.
#   tools::exec STDOUT_FILE TIMEOUT_S CPULIST CMD...
#     Runs CMD (under `taskset -c CPULIST` when CPULIST is set) in the background with
#     stdout+stderr to STDOUT_FILE and a hard limit of TIMEOUT_S, keeps its PID in the global
#     TOOL_PID while it runs (a signal trap can stop it with tools::stop), waits, and returns
#     CMD's exit status (124 on timeout).
#   tools::stop
#     TERM to the running tool (TOOL_PID; `timeout` passes it on to the tool). No-op if none.

TOOLS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tools
TOOL_PID=''

tools::list() {
  local file
  for file in "$TOOLS_DIR"/*.sh; do
    [[ -f $file ]] && basename "$file" .sh
  done | LC_ALL=C sort
}

tools::load() {
  local tool
  for tool in $(tools::list); do
    # shellcheck source=/dev/null
    source "$TOOLS_DIR/$tool.sh"
  done
}

tools::exec() {
  local out=$1 limit=$2 cpulist=$3 rc=0
  shift 3
  local launcher=(timeout --kill-after=5 "$limit")
  [[ -n $cpulist ]] && launcher+=(taskset -c "$cpulist")
  "${launcher[@]}" "$@" >"$out" 2>&1 &
  TOOL_PID=$!
  wait "$TOOL_PID" || rc=$?
  TOOL_PID=''
  return "$rc"
}

tools::stop() {
  [[ -n $TOOL_PID ]] || return 0
  kill -TERM "$TOOL_PID" 2>/dev/null || true
  wait "$TOOL_PID" 2>/dev/null || true
  TOOL_PID=''
}
