#!/usr/bin/env bash
# jvm: GC and JVM facts of every measured run, from the unified log (-Xlog) that each server
# start writes, read for the run's measured window (lib/gclog.jq; docs/metrics.md, "JVM and
# GC facts").
#
# The options reach the JVM through JDK_JAVA_OPTIONS, which the `java` launcher adds to its
# command line (before the flags of servers/jvm.options or JAVA_OPTS, which stay as they are):
# start.sh needs no change, and a file name may hold spaces there (quoted), not in JAVA_OPTS.
#
#   jvm::launcher_options GC_LOG [OPTION...]
#     Prints the value of JDK_JAVA_OPTIONS for one server start: the GC log to GC_LOG (none when
#     GC_LOG is empty), each OPTION, then what JDK_JAVA_OPTIONS held already, each one quoted.
#     Returns 1 (with a message) when a path holds a quote, which the launcher cannot take.
#   jvm::now_ms
#     Milliseconds since the epoch (the clock of the log's timemillis decorator).
#   jvm::facts GC_LOG FROM_MS TO_MS
#     Prints the row's "jvm" object for the window [FROM_MS, TO_MS] (epoch ms), or null when
#     GC_LOG is empty, missing or not a HotSpot log (a server that is not a JVM).
# Depends on jq and lib/log.sh; lib/gclog.jq next to this file.

JVM_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Every gc tag (pauses, heap, the start-up facts) and the arguments (the JVM's own flags);
# time stamps in epoch ms to match the measured window; no rotation: one file per start.
JVM_LOG_SELECTION='gc*,arguments'
JVM_LOG_DECORATORS='timemillis,uptimemillis,level,tags'

jvm::launcher_options() {
  local gc_log=$1 option options=()
  shift
  for option in "$gc_log" "$@"; do
    if [[ $option == *[\'\"]* ]]; then
      log::error "cannot pass a quote to the JVM through JDK_JAVA_OPTIONS: $option"
      return 1
    fi
  done
  [[ -n $gc_log ]] && options+=("-Xlog:$JVM_LOG_SELECTION:file=\"$gc_log\":$JVM_LOG_DECORATORS:filecount=0")
  options+=("$@")
  for option in "${options[@]}"; do printf "'%s' " "$option"; done
  printf '%s\n' "${JDK_JAVA_OPTIONS:-}"
}

jvm::now_ms() { date +%s%3N; }

jvm::facts() {
  local gc_log=$1 from=$2 to=$3
  if [[ -z $gc_log || ! -f $gc_log ]]; then echo null; return 0; fi
  jq -c -R -n -L "$JVM_LIB_DIR" --argjson from "$from" --argjson to "$to" \
    'import "gclog" as gclog; gclog::facts($from; $to)' "$gc_log"
}
