#!/usr/bin/env bash
# tools: discovers the load-tool drivers (lib/tools/<tool>.sh, interface in lib/tools/README.md)
# and runs a tool as a bounded, killable child.
#
#   tools::list
#     Tool names, one per line: every lib/tools/*.sh, sorted.
#   tools::load
#     Sources every driver.
#   tools::can TOOL CAPABILITY
#     0 when TOOL's driver declares CAPABILITY (<tool>::capabilities, lib/tools/README.md:
#     warmup, timeline, rate, stages, multihost); else 1.
#   tools::with CAPABILITY
#     The tools that declare CAPABILITY, one per line, in tools::list's order (nothing when
#     none does).
#   tools::exec SPEC_NAME STDOUT_FILE TIMEOUT_S CMD...
#     Runs CMD for the run spec SPEC_NAME (lib/plan.sh: plan::spec) under `taskset -c CPUS`
#     when its cpus key is set, with stdout+stderr to STDOUT_FILE and a hard limit of
#     TIMEOUT_S, in a process group of its own recorded by lib/procs.sh (so that
#     procs::stop_all in a signal trap stops it at once), waits, and returns CMD's exit status
#     (124 on timeout). When the spec's samples key names a file, the CPU of CMD's process
#     tree is sampled into it meanwhile (system::group_sample_start; the sampler is recorded
#     as "tool cpu sampler").
# Sources lib/procs.sh and lib/system.sh.

TOOLS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tools
# shellcheck source=lib/procs.sh
source "$TOOLS_DIR/../procs.sh"
# shellcheck source=lib/system.sh
source "$TOOLS_DIR/../system.sh"

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

tools::can() {
  local word
  for word in $("$1::capabilities"); do [[ $word == "$2" ]] && return 0; done
  return 1
}

tools::with() {
  local tool
  for tool in $(tools::list); do
    if tools::can "$tool" "$1"; then printf '%s\n' "$tool"; fi
  done
  return 0
}

tools::exec() {
  local -n exec_spec=$1
  local out=$2 limit=$3 rc=0
  shift 3
  local launcher=(timeout --kill-after=5 "$limit")
  [[ -n ${exec_spec[cpus]:-} ]] && launcher+=(taskset -c "${exec_spec[cpus]}")
  procs::spawn "tool ${1##*/}" "${launcher[@]}" "$@" >"$out" 2>&1
  if [[ -n ${exec_spec[samples]:-} ]]; then
    system::group_sample_start "$PROCS_PID" "${exec_spec[samples]}"
    procs::record "$GROUP_SAMPLER_PID" "tool cpu sampler"
  fi
  procs::wait "$PROCS_PID" || rc=$?
  system::group_sample_stop
  return "$rc"
}
