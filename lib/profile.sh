#!/usr/bin/env bash
# profile: async-profiler on a server during its measured runs only (run-benchmarks.sh
# --profile): a flame graph per run and its top frames by self time in the row
# (docs/profiling.md).
#
# The agent library comes from Maven Central (tools.profiler:async-profiler, whose jar holds
# the native library of each platform, but no asprof launcher). It is loaded when the server
# starts (-agentpath, through JDK_JAVA_OPTIONS: lib/jvm.sh), so it is not a dynamically loaded
# agent, which the JVM warns about (JEP 451), but profiles nothing until told. Each command
# (start, stop, dump) reaches it over HotSpot's attach API, as `jcmd PID JVMTI.agent_load`
# would send it, from lib/hotspot_attach.py: jcmd is a JVM that takes seconds to start on a
# busy machine, which would start the profile late into the measured window.
#
#   profile::events
#     The events --profile takes, one per line.
#   profile::ensure CACHE_DIR JAVA_HOME
#     Fetches the jar into CACHE_DIR with Maven (once) and extracts this platform's library
#     with JAVA_HOME's jar tool; sets PROFILE_LIB. Returns 1 with a message on failure.
#   profile::begin PID EVENT DELAY_S DIR
#     In the background (a process group recorded with lib/procs.sh): after DELAY_S (the
#     tool's warm-up), starts EVENT on the JVM PID. For cpu it asks for the perf event
#     $PROFILE_PERF_EVENT (default cpu-clock) and falls back to the timer-based ctimer where
#     perf events are not available; DIR/profile-mode.json records what ran. Sets
#     PROFILE_CONTROLLER_PID.
#   profile::end PID EVENT DIR NAME TITLE
#     Stops what profile::begin started once the tool is done: writes DIR/flame.html (titled
#     TITLE) and prints the row's "profile" object (NAME: the flame graph's path as the row
#     names it); with "error" set and no flame graph when profiling never started or failed.
#   profile::top_frames COLLAPSED N
#     Prints {samples, top_frames: [{frame, samples, share}]}: the N frames with the most
#     samples on top of the stack (self time), from collapsed stacks ("a;b;c COUNT" lines).
#   profile::comparable BASE NEW
#     0 when the two results files were measured alike: both without a profiler, or both with
#     the same event. Otherwise says why on stderr and returns 1: a profiler changes what it
#     measures, so profiled rows are never compared with unprofiled ones.
# Depends on jq, python3, lib/log.sh and lib/procs.sh; lib/hotspot_attach.py next to this file.

PROFILE_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROFILE_VERSION=4.1
PROFILE_LIB='' PROFILE_CONTROLLER_PID=''
# The system's python starts in tens of ms; a version manager's shim (pyenv) takes ten times that.
if [[ -z ${PROFILE_PYTHON:-} ]]; then
  if [[ -x /usr/bin/python3 ]]; then PROFILE_PYTHON=/usr/bin/python3; else PROFILE_PYTHON=$(command -v python3) || true; fi
fi
PROFILE_PERF_EVENT=${PROFILE_PERF_EVENT:-cpu-clock}
PROFILE_TOP_FRAMES=10
# CPU samples every 1 ms of CPU time (async-profiler: 10 ms), so that a short run has enough.
PROFILE_CPU_INTERVAL=1ms

profile::events() { printf '%s\n' cpu alloc wall lock; }

profile::ensure() {
  local cache=$1/async-profiler-$PROFILE_VERSION java_home=$2 platform jar
  case $(uname -m) in
    x86_64) platform=linux-x64 ;;
    aarch64) platform=linux-arm64 ;;
    *) log::error "--profile: async-profiler's jar has no library for $(uname -m)"; return 1 ;;
  esac
  jar=$cache/async-profiler-$PROFILE_VERSION.jar
  PROFILE_LIB=$cache/$platform/libasyncProfiler.so
  [[ -n $PROFILE_PYTHON ]] || { log::error "--profile needs python3 (lib/hotspot_attach.py)"; return 1; }
  [[ -f $PROFILE_LIB ]] && return 0
  mkdir -p "$cache"
  if [[ ! -f $jar ]]; then
    log::info "fetching async-profiler $PROFILE_VERSION from Maven Central into $cache"
    JAVA_HOME=$java_home mvn -B -q -Dstyle.color=never dependency:copy \
      "-Dartifact=tools.profiler:async-profiler:$PROFILE_VERSION" "-DoutputDirectory=$cache" >&2 \
      || { log::error "--profile: Maven could not fetch tools.profiler:async-profiler:$PROFILE_VERSION"; return 1; }
  fi
  (cd "$cache" && "$java_home/bin/jar" xf "$jar" "$platform/libasyncProfiler.so") || true
  [[ -f $PROFILE_LIB ]] || { log::error "--profile: no $platform/libasyncProfiler.so in $jar"; return 1; }
}

# profile::_agent PID COMMAND: hands COMMAND (async-profiler's agent syntax) to the agent in
# the JVM PID; the JVM's reply on stdout. 0 when the agent accepted it.
profile::_agent() {
  "$PROFILE_PYTHON" "$PROFILE_LIB_DIR/hotspot_attach.py" "$1" "$PROFILE_LIB" "$2" 2>&1
}

# profile::_start PID EVENT DELAY_S DIR: the background part of profile::begin.
profile::_start() {
  local pid=$1 event=$2 dir=$3 mode reason=null
  sleep "$4"
  mode=$event
  if [[ $event == cpu ]]; then
    mode=perf_events
    if ! profile::_agent "$pid" "start,event=$PROFILE_PERF_EVENT,interval=$PROFILE_CPU_INTERVAL,log=$dir/profiler.log" >"$dir/profiler-start.txt"; then
      reason=$(grep -m1 -E '^\[ERROR\]' "$dir/profiler.log" 2>/dev/null || echo "the agent refused $PROFILE_PERF_EVENT")
      reason=$(jq -cn --arg r "perf event $PROFILE_PERF_EVENT: $reason" '$r')
      mode=ctimer
      profile::_agent "$pid" "start,event=ctimer,interval=$PROFILE_CPU_INTERVAL,log=$dir/profiler.log" >>"$dir/profiler-start.txt" || return 1
    fi
  else
    profile::_agent "$pid" "start,event=$event,log=$dir/profiler.log" >"$dir/profiler-start.txt" || return 1
  fi
  jq -cn --arg mode "$mode" --argjson reason "$reason" '{mode: $mode, fallback_reason: $reason}' >"$dir/profile-mode.json"
}

profile::begin() {
  local pid=$1 event=$2 delay=$3 dir=$4
  rm -f "$dir/profile-mode.json"
  if [[ $dir == *,* ]]; then log::warn "--profile: the agent cannot take a path with a comma: $dir"; fi
  procs::spawn "profiler start" profile::_start "$pid" "$event" "$dir" "$delay"
  PROFILE_CONTROLLER_PID=$PROCS_PID
}

profile::top_frames() {
  awk '{ count = $NF; sub(/ [0-9]+$/, ""); n = split($0, frames, ";"); self[frames[n]] += count; total += count }
       END { for (f in self) printf "%s\t%d\n", f, self[f]; printf "\t%d\n", total }' "$1" |
    jq -R -n -c --argjson top "$2" '
      [inputs | split("\t") | {frame: .[0], samples: (.[1] | tonumber)}]
      | (map(select(.frame == "")) | .[0].samples // 0) as $total
      | {samples: $total,
         top_frames: (map(select(.frame != "")) | sort_by(-.samples, .frame) | .[:$top]
                      | map(.share = (if $total > 0 then (.samples / $total * 10000 | round / 10000) else null end)))}'
}

profile::end() {
  local pid=$1 event=$2 dir=$3 name=$4 title=$5 rc=0 error='' mode='{"mode": null, "fallback_reason": null}' top='{"samples": null, "top_frames": []}'
  if [[ -n $PROFILE_CONTROLLER_PID ]]; then
    # Still waiting for the warm-up to end: the tool stopped early; nothing was profiled.
    if kill -0 "$PROFILE_CONTROLLER_PID" 2>/dev/null && [[ ! -f $dir/profile-mode.json ]]; then
      procs::stop "$PROFILE_CONTROLLER_PID" 5 || true
      procs::wait "$PROFILE_CONTROLLER_PID" >/dev/null 2>&1 || true
    else
      procs::wait "$PROFILE_CONTROLLER_PID" || rc=$?
    fi
    PROFILE_CONTROLLER_PID=''
  fi
  if [[ -f $dir/profile-mode.json ]]; then
    mode=$(<"$dir/profile-mode.json")
    if profile::_agent "$pid" "stop,file=$dir/flame.html,title=$title,dot" >"$dir/profiler-stop.txt" \
      && profile::_agent "$pid" "collapsed,dot,file=$dir/stacks.collapsed" >>"$dir/profiler-stop.txt"; then
      top=$(profile::top_frames "$dir/stacks.collapsed" "$PROFILE_TOP_FRAMES")
      # The flame graph holds the same stacks; the collapsed text is many times its size.
      rm -f "$dir/stacks.collapsed"
    else
      error="the profiler could not be stopped or dumped (see profiler-stop.txt)"
    fi
  elif ((rc != 0)); then
    error="the profiler did not start (see profiler-start.txt, profiler.log)"
  else
    error="not profiled: the run ended before its warm-up did"
  fi
  [[ -f $dir/flame.html ]] || name=''
  jq -cn --arg event "$event" --argjson mode "$mode" --argjson top "$top" --arg flame "$name" --arg error "$error" '
    {event: $event} + $mode
    + {flame_graph: (if $flame == "" then null else $flame end)} + $top
    + {error: (if $error == "" then null else $error end)}'
}

profile::comparable() {
  local base new
  base=$(jq -r '.settings.profile // "none"' "$1") || return 1
  new=$(jq -r '.settings.profile // "none"' "$2") || return 1
  [[ $base == "$new" ]] && return 0
  log::error "$1 was measured with profiler: $base, $2 with profiler: $new;" \
    "a profiler changes what it measures: compare files measured alike (run-benchmarks.sh --profile)"
  return 1
}
