#!/usr/bin/env bash
# tools: discovers the load-tool drivers (lib/tools/<tool>.sh, interface in lib/tools/README.md)
# and runs a tool as a bounded, killable child.
#
#   tools::list
#     Tool names, one per line: every lib/tools/*.sh, sorted.
#   tools::load
#     Sources every driver.
#   tools::exec STDOUT_FILE TIMEOUT_S CPULIST CMD...
#     Runs CMD (under `taskset -c CPULIST` when CPULIST is set) with stdout+stderr to
#     STDOUT_FILE and a hard limit of TIMEOUT_S, in a process group of its own recorded by
#     lib/procs.sh (so that procs::stop_all in a signal trap stops it at once), waits, and
#     returns CMD's exit status (124 on timeout). When TOOLS_SAMPLES is set, the CPU of CMD's
#     process tree is sampled into that file meanwhile (system::group_sample_start; the
#     sampler is recorded as "tool cpu sampler").
# Sources lib/procs.sh and lib/system.sh.

TOOLS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tools
# shellcheck source=lib/procs.sh
source "$TOOLS_DIR/../procs.sh"
# shellcheck source=lib/system.sh
source "$TOOLS_DIR/../system.sh"

TOOLS_SAMPLES=''

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
  local out=$1 limit=$2 cpulist=$3
  shift 3
  local launcher=(timeout --kill-after=5 "$limit")
  [[ -n $cpulist ]] && launcher+=(taskset -c "$cpulist")
  local rc=0
  procs::spawn "tool ${1##*/}" "${launcher[@]}" "$@" >"$out" 2>&1
  if [[ -n $TOOLS_SAMPLES ]]; then
    system::group_sample_start "$PROCS_PID" "$TOOLS_SAMPLES"
    procs::record "$GROUP_SAMPLER_PID" "tool cpu sampler"
  fi
  procs::wait "$PROCS_PID" || rc=$?
  system::group_sample_stop
  return "$rc"
}
