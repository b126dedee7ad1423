#!/usr/bin/env bash
# servers: the Java server fleet's lifecycle (list, build, start, wait, stop, ports).
#
#   servers::list
#     Server names (folders under servers/ with a server.properties), one per line, sorted.
#   servers::prop NAME KEY
#     A value from servers/NAME/server.properties (name, version, protocols, and PROTOCOL_min_jdk:
#     the oldest JDK feature release a protocol works on, when older ones fail it: lib/plan.sh);
#     returns 1 if the file or key is missing.
#   servers::build [NAME...]
#     Builds the named servers (default: all) with `mvn -B --fail-at-end` under the
#     JDK from java::home, in a process group of its own (lib/procs.sh: a signal trap's
#     procs::stop_all stops the build and every JVM it forked). Maven's output goes to
#     $SERVERS_BUILD_LOG (default servers/target/build.log); its tail is shown on stderr on
#     failure. Skips Maven when every artifact is newer than its sources and poms. Returns 0
#     when all built; otherwise 1, printing `NAME<TAB>reason` on stdout per failed server.
#   servers::start NAME PORT LOGFILE [CPULIST]
#     Starts servers/NAME/start.sh in its own session/process group (PID == PGID ==
#     the JVM's PID, since start.sh execs java) with PORT and BIND=${BIND:-127.0.0.1},
#     stdout+stderr to LOGFILE, under `taskset -c CPULIST` when given. A server whose
#     protocols include h3, h1s or h2 also gets TLS_CERT and TLS_KEY (unless set): the
#     certificate lib/certs.sh makes (certs::ensure) in certs::dir, whose ca.pem verifies it;
#     one that declares h1s or h2 gets TLS_PORT too, its HTTPS port (unless set:
#     servers::tls_port PORT). Sets the global SERVER_PID. Returns 1 if it cannot start
#     (unknown server, a port taken, no certificate). The words of the array
#     SERVERS_START_ENV (KEY=VALUE; a variant's environment), when the caller has one, are
#     added to the server's environment.
#   servers::tls_port PORT
#     The suite's HTTPS (TLS over TCP) port for a server on PORT: PORT + 1.
#   servers::jdk PID
#     The JDK the running process PID is (its executable's home): JSON {version (that home's
#     release), home}, or null when PID is not a java process.
#   servers::wait_ready PID PORT TIMEOUT_S
#     0 once GET /hello on 127.0.0.1:PORT answers 200 and, for a server servers::start gave
#     a TLS_PORT, GET /hello over TLS there too (a framework may bind its listeners one after
#     another: java-http's TLS one comes up after its cleartext one answers); 1 early (with
#     the log tail) if PID died; 1 on timeout.
#   servers::alive PID
#     0 while PID runs (a zombie counts as gone).
#   servers::stop PID [TIMEOUT_S=10]
#     TERM to the process group -PID, waits up to TIMEOUT_S, then KILL to the group.
#     Returns 0 once the group is gone. Touches no other process.
#   servers::port_holder PORT
#     Prints `pid N (command)` of whatever listens on 127.0.0.1/0.0.0.0/[::]:PORT,
#     nothing if the port is free.
#   servers::wait_port_free PORT TIMEOUT_S
#     0 once nothing listens on PORT; 1 on timeout.
# Depends on lib/log.sh (sourced by the caller); sources lib/java.sh and lib/procs.sh itself.

SERVERS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SERVERS_DIR=${SERVERS_DIR:-$(dirname "$SERVERS_LIB_DIR")/servers}
# shellcheck source=lib/java.sh
source "$SERVERS_LIB_DIR/java.sh"
# shellcheck source=lib/procs.sh
source "$SERVERS_LIB_DIR/procs.sh"
# shellcheck source=lib/certs.sh
source "$SERVERS_LIB_DIR/certs.sh"

SERVER_PID=''
# Log file of every server started by this shell, by PID, for wait_ready's messages.
declare -gA SERVERS_LOGS=()
# The TLS_PORT of every server started by this shell that has one, by PID, for wait_ready.
declare -gA SERVERS_TLS_PORTS=()

servers::list() {
  local props
  for props in "$SERVERS_DIR"/*/server.properties; do
    [[ -f $props ]] || continue
    basename "$(dirname "$props")"
  done | LC_ALL=C sort
}

servers::prop() {
  local name=$1 key=$2 file line
  file=$SERVERS_DIR/$name/server.properties
  [[ -f $file ]] || { log::error "no such server: $name ($file missing)"; return 1; }
  line=$(grep -m1 -E "^[[:space:]]*${key}[[:space:]]*=" "$file") || return 1
  line=${line#*=}
  line=${line#"${line%%[![:space:]]*}"}
  printf '%s\n' "${line%"${line##*[![:space:]]}"}"
}

# servers::_artifact NAME: the runnable jar a module builds.
servers::_artifact() { printf '%s\n' "$SERVERS_DIR/$1/target/server.jar"; }

# servers::_fresh NAME: 0 when the artifact exists and is newer than every source and pom.
servers::_fresh() {
  local name=$1 jar newer
  jar=$(servers::_artifact "$name")
  [[ -f $jar ]] || return 1
  [[ $SERVERS_DIR/pom.xml -nt $jar ]] && return 1
  newer=$(find "$SERVERS_DIR/$name/pom.xml" "$SERVERS_DIR/$name/src" -newer "$jar" -print -quit 2>/dev/null)
  [[ -z $newer ]]
}

# servers::_failure_reason NAME LOG: one line saying why Maven failed NAME.
servers::_failure_reason() {
  local name=$1 log=$2 reason
  # A compile error in one of its sources, named by file and line.
  reason=$(grep -E '^\[ERROR\] .*\.java:\[' "$log" | grep -m1 -F "/$name/" | sed -E 's|^\[ERROR\] .*/||')
  if [[ -z $reason ]]; then # an invalid pom: Maven names the project, then the problem
    reason=$(awk -v project=":$name:" 'found { sub(/^\[ERROR\][ \t]*/, ""); print; exit }
      index($0, project) && / has [0-9]+ errors?/ { found = 1 }' "$log")
  fi
  if [[ -z $reason ]]; then # any other failed goal (dependency resolution, packaging)
    reason=$(grep -m1 -E "on project ${name}: " "$log" | sed -E "s/.*on project ${name}: //")
  fi
  printf '%s\n' "${reason:-Maven failed, see $log}" | cut -c1-300
}

servers::build() {
  local names=("$@") name stale=() failed=() java_home log rc=0
  ((${#names[@]})) || mapfile -t names < <(servers::list)
  for name in "${names[@]}"; do
    [[ -f $SERVERS_DIR/$name/pom.xml ]] || { failed+=("$name"$'\t'"no servers/$name/pom.xml"); continue; }
    servers::_fresh "$name" || stale+=("$name")
  done
  if ((${#stale[@]})); then
    java_home=$(java::home) || {
      for name in "${stale[@]}"; do failed+=("$name"$'\t'"no JDK ${JAVA_MIN_MAJOR}+"); done
      printf '%s\n' "${failed[@]}"
      return 1
    }
    log=${SERVERS_BUILD_LOG:-$SERVERS_DIR/target/build.log}
    mkdir -p "$(dirname "$log")"
    log::info "building servers (${stale[*]}) with $java_home; log: $log"
    local modules
    modules=$(IFS=,; printf '%s' "${stale[*]}")
    JAVA_HOME=$java_home procs::run "maven build" mvn -B -Dstyle.color=never --fail-at-end \
      -f "$SERVERS_DIR/pom.xml" -pl "$modules" package >"$log" 2>&1 || rc=$?
    for name in "${stale[@]}"; do
      # A module Maven skipped after another failed has no fresh artifact either.
      if ((rc != 0)) && ! servers::_fresh "$name"; then
        failed+=("$name"$'\t'"$(servers::_failure_reason "$name" "$log")")
      elif ! [[ -f $(servers::_artifact "$name") ]]; then
        failed+=("$name"$'\t'"no artifact $(servers::_artifact "$name") after the build")
      fi
    done
    if ((${#failed[@]})); then
      log::error "server build failed; last lines of $log:"
      tail -n 30 "$log" | log::lines
    fi
  fi
  ((${#failed[@]} == 0)) && return 0
  printf '%s\n' "${failed[@]}"
  return 1
}

servers::tls_port() { echo $(($1 + 1)); }

servers::start() {
  local name=$1 port=$2 logfile=$3 cpulist=${4:-} script holder protocols dir tls_port=''
  local launcher=() tls=()
  script=$SERVERS_DIR/$name/start.sh
  SERVER_PID=''
  [[ -x $script ]] || { log::error "cannot start $name: $script is missing or not executable"; return 1; }
  holder=$(servers::port_holder "$port")
  [[ -z $holder ]] || { log::error "cannot start $name: port $port is taken by $holder"; return 1; }
  [[ -n $cpulist ]] && launcher=(taskset -c "$cpulist")
  protocols=$(servers::prop "$name" protocols 2>/dev/null) || protocols=''
  if [[ ,$protocols, =~ ,(h3|h1s|h2), ]]; then
    certs::ensure || { log::error "cannot start $name: no certificate for TLS (${BASH_REMATCH[1]})"; return 1; }
    dir=$(certs::dir)
    tls=("TLS_CERT=${TLS_CERT:-$dir/server.pem}" "TLS_KEY=${TLS_KEY:-$dir/server.key}")
  fi
  if [[ ,$protocols, =~ ,(h1s|h2), ]]; then
    tls_port=${TLS_PORT:-$(servers::tls_port "$port")}
    holder=$(servers::port_holder "$tls_port")
    [[ -z $holder ]] || { log::error "cannot start $name: its TLS port $tls_port is taken by $holder"; return 1; }
    tls+=("TLS_PORT=$tls_port")
  fi
  # setsid only makes a new session without forking when the caller is not a process
  # group leader; with job control on, `&` would make the child a leader, so turn it off.
  local had_monitor=0
  [[ $- == *m* ]] && { had_monitor=1; set +m; }
  env "${tls[@]}" ${SERVERS_START_ENV[@]+"${SERVERS_START_ENV[@]}"} PORT="$port" BIND="${BIND:-127.0.0.1}" setsid "${launcher[@]}" "$script" </dev/null >"$logfile" 2>&1 &
  SERVER_PID=$!
  ((had_monitor)) && set -m
  SERVERS_LOGS[$SERVER_PID]=$logfile
  [[ -z $tls_port ]] || SERVERS_TLS_PORTS[$SERVER_PID]=$tls_port
  return 0
}

servers::jdk() {
  local exe home version
  exe=$(readlink "/proc/$1/exe" 2>/dev/null) || { echo null; return 0; }
  [[ ${exe##*/} == java ]] || { echo null; return 0; }
  home=${exe%/bin/java}
  version=$(java::version "$home") || version=''
  jq -cn --arg version "$version" --arg home "$home" '{version: (if $version == "" then null else $version end), home: $home}'
}

servers::alive() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ -n $state && $state != Z* ]]
}

servers::wait_ready() {
  local pid=$1 port=$2 timeout=$3 deadline code logfile tls_port=${SERVERS_TLS_PORTS[$1]:-}
  deadline=$((SECONDS + timeout))
  while ((SECONDS <= deadline)); do
    if ! servers::alive "$pid"; then
      logfile=${SERVERS_LOGS[$pid]:-}
      log::error "server (pid $pid) exited before it was ready on port $port"
      [[ -n $logfile && -f $logfile ]] && tail -n 20 "$logfile" | log::lines
      return 1
    fi
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/hello" 2>/dev/null) || true
    # (-k: a readiness probe; the contract checks verify the certificate)
    [[ $code == 200 && -n $tls_port ]] &&
      { code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 1 "https://127.0.0.1:$tls_port/hello" 2>/dev/null) || true; }
    [[ $code == 200 ]] && return 0
    sleep 0.1
  done
  log::error "server (pid $pid) not ready on port $port after ${timeout}s"
  return 1
}

# servers::_group_alive PGID: 0 while any non-zombie process is in the group.
servers::_group_alive() {
  local state
  while read -r state; do
    [[ -n $state && $state != Z* ]] && return 0
  done < <(ps -o stat= -g "$1" 2>/dev/null)
  return 1
}

servers::stop() {
  local pid=$1 timeout=${2:-10} deadline
  [[ $pid =~ ^[0-9]+$ && $pid -gt 1 ]] || { log::error "servers::stop: bad pid '$pid'"; return 1; }
  kill -TERM -- "-$pid" 2>/dev/null || true
  deadline=$((SECONDS + timeout))
  while servers::_group_alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  if servers::_group_alive "$pid"; then
    log::warn "process group $pid still running ${timeout}s after TERM; sending KILL"
    kill -KILL -- "-$pid" 2>/dev/null || true
    deadline=$((SECONDS + 5))
    while servers::_group_alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
  fi
  # Reap it when it is this shell's child (no-op, status 127, otherwise).
  # (only while it exists: bash 5.2 can lose the exit of a child reaped while a trap
  # interrupted `wait`, and a `wait` for it would never return)
  if kill -0 "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null || true; fi
  unset 'SERVERS_LOGS[$pid]' 'SERVERS_TLS_PORTS[$pid]'
  ! servers::_group_alive "$pid"
}

servers::port_holder() {
  local port=$1 line local_addr users pid cmd
  while read -r line; do
    # ss -ltnpH columns: State Recv-Q Send-Q Local:Port Peer:Port [users:((...))]
    read -r _ _ _ local_addr _ users <<<"$line"
    [[ ${local_addr##*:} == "$port" ]] || continue
    case ${local_addr%:*} in
      127.0.0.1|0.0.0.0|'*'|'[::]'|'[::1]'|'[::ffff:127.0.0.1]') ;;
      *) continue ;;
    esac
    if [[ $users =~ \(\(\"([^\"]*)\",pid=([0-9]+) ]]; then
      cmd=${BASH_REMATCH[1]} pid=${BASH_REMATCH[2]}
      printf 'pid %s (%s)\n' "$pid" "$cmd"
    else
      printf 'pid ? (unknown: %s)\n' "$local_addr"
    fi
    return 0
  done < <(ss -ltnpH "sport = :$port" 2>/dev/null)
  return 0
}

servers::wait_port_free() {
  local port=$1 timeout=$2 deadline
  deadline=$((SECONDS + timeout))
  while [[ -n $(servers::port_holder "$port") ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}
