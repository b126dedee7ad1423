#!/usr/bin/env bash
# labhost: what lib/lab.sh runs on a lab host, over ssh, inside the suite's copy there (the
# host's lab directory holds lib/, scenarios/, servers/ and client/build/barrage). Sourced
# by `bash -s` with the lab directory as working directory; needs bash, coreutils, procps
# and, for contract checks and readiness, curl. No jq on the hosts: facts are TSV.
#
#   labhost::facts
#     Prints "KEY<TAB>VALUE" lines about this host: os, kernel, arch, cpu_model, cores,
#     ram_kb, governor (cpufreq of CPU 0, "" when the kernel has none), swap_used_kb,
#     load1, busy (the commands, other than this one's, above 10% of a core), nic
#     (NAME:SPEED_MBPS of each interface with a link, "?" for an unknown speed), java
#     (the version of java::home's JDK, "" when there is none), java_error (its message),
#     barrage (the copied binary's version, "" when it does not run here), curl (1 or 0), and
#     what caps churn and idle connections (lib/churn.sh: churn::host_facts): tcp_tw_reuse,
#     port_range, tw_seconds, nofile_soft, nofile_hard.
#   labhost::spawn LOG CMD...
#     Starts CMD (a command or a labhost function) in a new session, so in a process group of its own (PGID == PID), stdin
#     from /dev/null, stdout+stderr to LOG; prints the PGID. The process outlives the ssh
#     session that started it.
#   labhost::call OUT RC CMD...
#     Runs CMD (a command or a labhost function) with stdout to OUT, then writes its exit
#     status to RC. What lib/lab.sh spawns for a remote step it waits for.
#   labhost::alive PGID...
#     Prints the PGIDs among the arguments that still have a live (non-zombie) process.
#   labhost::stop PGID TIMEOUT_S
#     TERM to the process group, KILL after TIMEOUT_S; returns 0 once the group is gone.
#   labhost::server NAME PORT BIND [CPULIST]
#     Execs servers/NAME/start.sh with PORT and BIND, under `taskset -c CPULIST` when given
#     (run under labhost::spawn); a server that declares h3, h1s or h2 also gets TLS_CERT and
#     TLS_KEY, and one that declares h1s or h2 TLS_PORT (PORT + 1):
#     certs/server.pem and certs/server.key, which lib/lab.sh made for the server's lab
#     address and copied here. Returns 1 (with a message) when they are missing. The soft
#     open-file limit is raised to the hard one first (idle-connection scenarios).
#   labhost::sample PID FILE
#     Samples PID's CPU and memory into FILE until PID ends (system::sample_start's lines).
#   labhost::ready URL TIMEOUT_S
#     0 once GET URL answers 200 (within TIMEOUT_S), else 1.
#   labhost::contract LABEL BASE_URL PROTOCOLS [H3_VENV]
#     contract::verify from here: TAP on stdout, 0 when every check passed. h3 checks verify
#     against certs/ca.pem and run in H3_VENV when given (else one made here from PyPI).
#   labhost::tool KEY=VALUE...
#     Runs the tool's driver (lib/tools/TOOL.sh, TOOL::run) here on the run spec the words
#     make (spec::deserialize; lib/spec.tsv: out, dir and cacert relative to the lab
#     directory, start_at ms since the epoch on this host's clock or empty), with the
#     barrage copied here (barrage_bin: nothing is built) and the tool's CPU sampled into
#     DIR/tool-samples; its exit status (2 for a word that is no spec key). TERM or INT
#     stops the tool's process group.
#   labhost::rtt ADDRESS PORT
#     Prints the TCP connect time to ADDRESS:PORT in microseconds (one round trip), or
#     nothing when it cannot connect within 2 s.

labhost::facts() {
  local os cores governor='' swap_total swap_free nic speed java_home java='' java_error='' barrage=''
  os=$(. /etc/os-release 2>/dev/null && printf '%s' "${PRETTY_NAME:-$NAME}") || os=$(uname -s)
  cores=$(nproc)
  printf 'os\t%s\nkernel\t%s\narch\t%s\n' "$os" "$(uname -r)" "$(uname -m)"
  printf 'cpu_model\t%s\n' "$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
  printf 'cores\t%s\n' "$cores"
  printf 'ram_kb\t%s\n' "$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
  read -r governor 2>/dev/null </sys/devices/system/cpu/cpu0/cpufreq/scaling_governor || governor=''
  printf 'governor\t%s\n' "$governor"
  swap_total=$(awk '/^SwapTotal:/ {print $2}' /proc/meminfo)
  swap_free=$(awk '/^SwapFree:/ {print $2}' /proc/meminfo)
  printf 'swap_used_kb\t%s\n' $((swap_total - swap_free))
  printf 'load1\t%s\n' "$(cut -d' ' -f1 /proc/loadavg)"
  # ps's %CPU is over each process's life: a long-lived idle daemon stays low.
  printf 'busy\t%s\n' "$(ps -eo pid=,pcpu=,comm= | awk -v self=$$ '$1 != self && $3 != "ps" && $2 > 10 {printf "%s%s(%s%%)", sep, $3, $2; sep = " "}')"
  for nic in /sys/class/net/*; do
    [[ ${nic##*/} == lo || $(cat "$nic/operstate" 2>/dev/null) == down ]] && continue
    speed=$(cat "$nic/speed" 2>/dev/null) || speed=''
    [[ $speed =~ ^[0-9]+$ ]] || speed='?'
    printf 'nic\t%s:%s\n' "${nic##*/}" "$speed"
  done
  # shellcheck source=lib/log.sh
  source lib/log.sh
  # shellcheck source=lib/java.sh
  source lib/java.sh
  if java_home=$(java::home 2>"${TMPDIR:-/tmp}/labhost-java.$$"); then
    java=$(java::version "$java_home") || java=''
  else
    java_error=$(grep -m1 'error' "${TMPDIR:-/tmp}/labhost-java.$$" | sed 's/^[^:]*: //')
  fi
  rm -f "${TMPDIR:-/tmp}/labhost-java.$$"
  printf 'java\t%s\njava_error\t%s\n' "$java" "$java_error"
  barrage=$(client/build/barrage --version 2>/dev/null | awk 'NR == 1 {print $2}') || barrage=''
  printf 'barrage\t%s\n' "$barrage"
  if command -v curl >/dev/null; then printf 'curl\t1\n'; else printf 'curl\t0\n'; fi
  # shellcheck source=lib/churn.sh
  source lib/churn.sh
  churn::host_facts
}

labhost::spawn() {
  local log=$1
  shift
  # A background job of a non-interactive shell is not a group leader, so setsid does not
  # fork: the PID printed is the new session's and group's.
  setsid bash -c 'source lib/labhost.sh && "$@"' labhost "$@" </dev/null >"$log" 2>&1 &
  printf '%s\n' "$!"
}

labhost::call() {
  local out=$1 rc_file=$2 rc=0
  shift 2
  "$@" >"$out" || rc=$?
  printf '%s\n' "$rc" >"$rc_file"
}

labhost::alive() {
  local pgid state
  for pgid in "$@"; do
    while read -r state; do
      [[ -n $state && $state != Z* ]] && { printf '%s\n' "$pgid"; break; }
    done < <(ps -o stat= -g "$pgid" 2>/dev/null)
  done
}

labhost::stop() {
  local pgid=$1 timeout=$2 deadline
  [[ $pgid =~ ^[0-9]+$ && $pgid -gt 1 ]] || return 1
  kill -TERM -- "-$pgid" 2>/dev/null || true
  deadline=$((SECONDS + timeout))
  while [[ -n $(labhost::alive "$pgid") ]] && ((SECONDS < deadline)); do sleep 0.1; done
  if [[ -n $(labhost::alive "$pgid") ]]; then
    kill -KILL -- "-$pgid" 2>/dev/null || true
    deadline=$((SECONDS + 3))
    while [[ -n $(labhost::alive "$pgid") ]] && ((SECONDS < deadline)); do sleep 0.1; done
  fi
  [[ -z $(labhost::alive "$pgid") ]]
}

labhost::server() {
  local launcher=() tls=()
  [[ -n ${4:-} ]] && launcher=(taskset -c "$4")
  # A server that declares h3 gets its certificate, whatever the run measures (without one
  # it would serve no HTTP/3: servers/CONTRACT.md): the one lib/lab.sh made for the lab address.
  if grep -qE '^protocols=(.*,)?(h3|h1s|h2)(,|$)' "servers/$1/server.properties" 2>/dev/null; then
    [[ -s certs/server.pem && -s certs/server.key ]] || { echo "labhost: no certs/server.pem and server.key in $PWD (lib/lab.sh copies them)" >&2; return 1; }
    tls=("TLS_CERT=$PWD/certs/server.pem" "TLS_KEY=$PWD/certs/server.key")
  fi
  # HTTPS (h1s, h2) on PORT + 1, as servers::tls_port says
  if grep -qE '^protocols=(.*,)?(h1s|h2)(,|$)' "servers/$1/server.properties" 2>/dev/null; then
    tls+=("TLS_PORT=$(($2 + 1))")
  fi
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true # the server keeps the soft limit it was given
  exec env "${tls[@]}" PORT="$2" BIND="$3" "${launcher[@]}" "servers/$1/start.sh"
}

labhost::sample() {
  # shellcheck source=lib/system.sh
  source lib/system.sh
  system::sample_start "$1" "$2"
  wait
}

labhost::ready() {
  local url=$1 deadline=$((SECONDS + $2)) code
  while ((SECONDS <= deadline)); do
    # (-k: a readiness probe; the contract checks verify the certificate)
    code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 1 "$url" 2>/dev/null) || true
    [[ $code == 200 ]] && return 0
    sleep 0.1
  done
  return 1
}

labhost::contract() {
  export TLS_CA=$PWD/certs/ca.pem
  [[ -n ${4:-} ]] && export BARRAGE_H3_VENV=$4
  # shellcheck source=lib/log.sh
  source lib/log.sh
  # shellcheck source=lib/contract.sh
  source lib/contract.sh
  contract::verify "$1" "$2" "$3"
}

labhost::tool() {
  local -A LABHOST_SPEC=()
  # shellcheck source=lib/log.sh
  source lib/log.sh
  # shellcheck source=lib/spec.sh
  source lib/spec.sh
  spec::deserialize LABHOST_SPEC "$@" || return 2
  # shellcheck source=lib/deps.sh
  source lib/deps.sh
  # shellcheck source=lib/scenarios.sh
  source lib/scenarios.sh
  # shellcheck source=lib/tools.sh
  source lib/tools.sh
  # shellcheck source=/dev/null
  source "lib/tools/${LABHOST_SPEC[tool]}.sh"
  # barrage was built on the controller and copied: a load host needs no compiler.
  LABHOST_SPEC["barrage_bin"]=${BARRAGE_BIN:-}
  [[ -n ${LABHOST_SPEC[cacert]:-} && ${LABHOST_SPEC[cacert]} != /* ]] && LABHOST_SPEC["cacert"]=$PWD/${LABHOST_SPEC[cacert]}
  LABHOST_SPEC["samples"]=${LABHOST_SPEC[dir]}/tool-samples
  mkdir -p "${LABHOST_SPEC[dir]}"
  # tools::exec starts the tool in a process group of its own, outside the one lib/lab.sh
  # recorded: when that group is told to stop, stop the tool's too. (Only this shell: a
  # subshell the signal reaches as it is forked runs the trap it inherited; see on_exit.)
  trap '[[ $BASHPID != "$$" ]] || procs::stop_all; exit 143' TERM INT
  "${LABHOST_SPEC[tool]}::run" LABHOST_SPEC
}

labhost::rtt() {
  # Timed inside the child, so that starting it is not counted.
  # shellcheck disable=SC2016 # expanded by the child
  timeout 2 bash -c 'start=${EPOCHREALTIME/[.,]/}; exec 3<>"/dev/tcp/$0/$1" || exit 0
    printf "%s\n" $((${EPOCHREALTIME/[.,]/} - start))' "$1" "$2" 2>/dev/null || true
}
