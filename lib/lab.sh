#!/usr/bin/env bash
# lab: run-benchmarks.sh on lab hardware over ssh (the place lib/place/lab.sh calls on): the server on one host, barrage spread over
# one or more load hosts (wrk and h2load on the first), results merged exactly.
#
# Every remote step goes through OpenSSH (BatchMode, one ControlMaster connection per host)
# and runs inside a copy of the suite on that host (lib/labhost.sh does the remote half).
# Every remote process is started in a session and process group of its own; its host and
# PGID are recorded (LOG_DIR/lab-pids) and kept until it is stopped, so that lab::cleanup
# stops, by process group, whatever still runs on any host.
#
#   lab::configure SERVER_HOST LOAD_HOSTS LAB_FILE LAB_DIR STRICT
#     Reads LAB_FILE (when given; format in README "Running on lab hardware"), then lets the
#     non-empty arguments override it. Without a server host and load hosts the lab is off.
#     Returns 1 with a message for an unusable configuration.
#   lab::active
#     0 when a lab is configured.
#   lab::connect
#     Opens one ssh connection to every host; a host that cannot be reached is a clear
#     error (return 1) before anything is copied or started.
#   lab::prepare SERVER...
#     Copies the suite to every host (lib, scenarios, the named servers built here,
#     barrage built here, and certs/: a CA and a server certificate for server_address made
#     here for this run, which servers that declare h3 serve QUIC with and the load hosts
#     verify against), gathers each host's facts and runs the pre-flight: errors (no
#     JDK 21+ on the server host, barrage or curl unusable on a load host, a --cpus list
#     a host's taskset refuses: the settings' server_cpus on the server host, client_cpus
#     on the load hosts) return 1; warnings (the governor, swap, busy processes, clocks,
#     round trips, and for the selected churn and idle scenarios a load host's tcp_tw_reuse
#     and port range with the new connections/s they allow, an open-file hard limit below
#     what they need: lib/churn.sh) return 1 too when STRICT was set.
#   lab::record_to FILE
#     From now on, every remote process started gets a line "HOST<TAB>PGID<TAB>LABEL" there.
#   lab::header_json
#     The results file's `lab` object: hosts, their facts, the pre-flight's warnings.
#   lab::base_url PORT [PROTOCOL]
#     The URL the load hosts reach the server at: https:// at PORT + 1 for h1s and h2 (TLS
#     over TCP, the server's TLS_PORT); https:// for h3 (QUIC on the UDP port of
#     the same number), http:// otherwise.
#   lab::start_server NAME PORT LOCAL_LOG [CPULIST]
#     Starts the server on the server host (bound to its lab address; under `taskset -c
#     CPULIST` there when given); 1 when it cannot. lab::run_tool loads the server at this PORT.
#   lab::server_alive
#     0 while the started server's process group has a live process.
#   lab::wait_ready PORT TIMEOUT_S
#     0 once GET /hello answers 200 from the first load host; 1 otherwise.
#   lab::contract NAME PORT PROTOCOLS
#     contract::verify run from the first load host; TAP on stdout, its status. Its h3
#     checks verify against the staged CA and run lib/h3client.py in the lab file's h3_venv
#     (a venv with aioquic on that host), else in one made there from PyPI.
#   lab::stop_server
#     Stops the server's process group and fetches its log; 1 when it does not stop.
#   lab::sample_start / lab::sample_stop LOCAL_FILE
#     Samples the server's CPU and memory on the server host; stop fetches the samples.
#   lab::run_tool SPEC_NAME
#     One run of the run spec SPEC_NAME (lib/spec.tsv), the whole spec sent to each host
#     (spec::serialize) with that host's share and paths (out, dir, url, cacert: for h3
#     https:// with the staged CA; threads, connections, rate, start_at): barrage on every load host at
#     once, each with its share of the connections and, at a fixed rate (requests/s in
#     total), of the rate in proportion; the hosts start together at one wall-clock time
#     (barrage --start-at, each host's measured clock offset applied). THREADS_OVERRIDE
#     (--threads), when not empty, caps each host's threads, else its cores (those of cpus,
#     when given: the tool runs under `taskset -c CPUS` on each host). wrk and h2load run on
#     the first host. Each host's work dir comes back under DIR/hosts/HOST/; OUT gets the
#     metrics record, merged exactly from the hosts' records (client/tools/merge-records),
#     and DIR/lab-hosts.json the per-host records (with each host's connections, threads,
#     rate and start_at_ms, on its clock). Returns 1 when a host's run failed (its messages
#     on stderr).
#   lab::client_json LOCAL_DIR
#     The tool's CPU on the load host that was busiest (of its cores), as system::group_stats
#     prints it plus `host`; what decides whether a lab row is client-bound. null without hosts.
#   lab::cleanup
#     Stops every recorded remote process still running (newest first), closes the ssh
#     connections. Safe to call more than once.
# Reads SETTINGS' server_cpus, client_cpus and threads_option (lib/settings.sh).
# Depends on lib/log.sh, lib/system.sh, lib/certs.sh, lib/spec.sh, lib/churn.sh and lib/tools.sh
# (a tool's capabilities: one with multihost runs on every load host).

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_SERVER='' LAB_SERVER_ADDR='' LAB_DIR=barrage-lab LAB_SSH_CONFIG='' LAB_STRICT=0 LAB_H3_VENV=''
LAB_LOADS=() LAB_SSH_OPTS=() LAB_CONNECTED=() LAB_RUNNING=() LAB_WARNINGS=()
LAB_CONTROL_DIR='' LAB_PIDS_FILE='' LAB_SERVER_PGID='' LAB_SERVER_LOG='' LAB_SAMPLER_PGID=''
LAB_STEP=0 LAB_PORT=''
declare -gA LAB_FACTS=()
# Seconds a remote process group gets to stop after TERM before KILL.
LAB_STOP_TIMEOUT_S=10
# Pre-flight limits: load hosts' clocks apart, and the round trip to the server host.
LAB_CLOCK_SPREAD_US=5000
LAB_RTT_WARN_US=1000
# The load hosts start together this far ahead (barrage --start-at): time for the ssh that
# starts each host's tool, plus this much per host.
LAB_START_MARGIN_MS=1500
LAB_START_PER_HOST_MS=300

lab::configure() {
  local server=$1 loads=$2 file=$3 dir=$4 strict=$5 line key value file_loads=''
  if [[ -n $file ]]; then
    [[ -r $file ]] || { log::error "--lab: cannot read $file"; return 1; }
    while IFS= read -r line || [[ -n $line ]]; do
      line=${line%%#*}
      [[ $line =~ ^[[:space:]]*$ ]] && continue
      [[ $line =~ ^[[:space:]]*([a-z0-9_]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]] \
        || { log::error "$file: not KEY = VALUE: $line"; return 1; }
      key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
      case $key in
        server_host) LAB_SERVER=$value ;;
        server_address) LAB_SERVER_ADDR=$value ;;
        load_hosts) file_loads=$value ;;
        lab_dir) LAB_DIR=$value ;;
        ssh_config) LAB_SSH_CONFIG=$value ;;
        h3_venv) LAB_H3_VENV=$value ;;
        *) log::error "$file: unknown key '$key' (valid: server_host server_address load_hosts lab_dir ssh_config h3_venv)"; return 1 ;;
      esac
    done <"$file"
  fi
  [[ -n $server ]] && LAB_SERVER=$server
  [[ -n $loads ]] && file_loads=$loads
  [[ -n $dir ]] && LAB_DIR=$dir
  LAB_STRICT=$strict
  IFS=', ' read -r -a LAB_LOADS <<<"$file_loads"
  [[ -z $LAB_SERVER && ${#LAB_LOADS[@]} -eq 0 ]] && return 0
  [[ -n $LAB_SERVER ]] || { log::error "load hosts without a server host: give --server-host (or server_host in the lab file)"; return 1; }
  ((${#LAB_LOADS[@]})) || { log::error "a server host without load hosts: give --load-hosts (or load_hosts in the lab file)"; return 1; }
  [[ " ${LAB_LOADS[*]} " != *" $LAB_SERVER "* ]] || { log::error "$LAB_SERVER is both the server host and a load host"; return 1; }
  [[ -z $LAB_SSH_CONFIG || -r $LAB_SSH_CONFIG ]] || { log::error "ssh_config: cannot read $LAB_SSH_CONFIG"; return 1; }
  # The address the load hosts use: the host part of [USER@]HOST unless given.
  LAB_SERVER_ADDR=${LAB_SERVER_ADDR:-${LAB_SERVER#*@}}
  lab::_check_names
}

lab::active() { [[ -n $LAB_SERVER ]]; }

# lab::_check_names: 1 with a message for a host name ssh would read as an option (a leading
# -), one holding white space, or two hosts with one work folder (lab::_host_dir): a load host
# given twice would run two tools in one folder, one record merged twice and the other lost.
lab::_check_names() {
  local hosts=("$LAB_SERVER" "${LAB_LOADS[@]}") folders=() host i j
  for host in "${hosts[@]}"; do
    [[ $host != -* ]] || { log::error "lab host '$host' begins with '-': ssh would read it as an option"; return 1; }
    [[ $host != *[[:space:]]* ]] || { log::error "lab host '$host' holds white space"; return 1; }
  done
  [[ $LAB_SERVER_ADDR != *[[:space:]]* ]] || { log::error "server_address '$LAB_SERVER_ADDR' holds white space"; return 1; }
  for i in "${!hosts[@]}"; do
    folders+=("$(lab::_host_dir "${hosts[i]}")")
    for ((j = 0; j < i; j++)); do
      [[ ${folders[j]} == "${folders[i]}" ]] || continue
      if [[ ${hosts[j]} == "${hosts[i]}" ]]; then log::error "load host '${hosts[i]}' given twice"
      else log::error "lab hosts '${hosts[j]}' and '${hosts[i]}' would share the work folder ${folders[i]}"; fi
      return 1
    done
  done
}

lab::record_to() { LAB_PIDS_FILE=$1; }

lab::base_url() {
  local addr=$LAB_SERVER_ADDR scheme=http
  [[ $addr == *:* ]] && addr="[$addr]"
  local port=$1
  [[ ${2:-} == h3 ]] && scheme=https
  # TLS over TCP: the server's HTTPS port, PORT + 1 (servers::tls_port, labhost::server)
  [[ ${2:-} == h1s || ${2:-} == h2 ]] && scheme=https port=$((port + 1))
  printf '%s://%s:%s\n' "$scheme" "$addr" "$port"
}

# lab::_hosts: the server host, then the load hosts, one per line.
lab::_hosts() { printf '%s\n' "$LAB_SERVER" "${LAB_LOADS[@]}"; }

# lab::_host_dir HOST: the suite's directory on HOST (relative: under the ssh user's home).
# One per host name, so that hosts sharing a home (NFS) do not share it.
lab::_host_dir() { printf '%s/%s\n' "$LAB_DIR" "${1//[^A-Za-z0-9._-]/_}"; }

# lab::_ssh HOST ARG...: ssh to HOST through its master connection (a new connection when
# there is none), never asking for a password or a host key.
lab::_ssh() {
  local host=$1
  shift
  ssh "${LAB_SSH_OPTS[@]}" -o ControlMaster=no "$host" "$@"
}

# lab::_remote HOST CMD...: CMD (a labhost function or a command) in HOST's suite directory;
# its stdout, stderr and status. The script goes on stdin, so no remote shell quoting matters
# beyond printf %q of each argument.
lab::_remote() {
  local host=$1
  shift
  printf 'cd %q || exit 97\nsource lib/labhost.sh || exit 97\n%s\n' "$(lab::_host_dir "$host")" \
    "$(printf '%q ' "$@")" | lab::_ssh "$host" bash -s
}

# lab::_connect HOST: opens HOST's master connection (in a session of its own, so that a
# Ctrl-C to the run leaves it to lab::cleanup); a clear error when HOST cannot be reached.
lab::_connect() {
  local host=$1 err
  err=$LAB_CONTROL_DIR/connect.err
  if ! setsid --wait ssh "${LAB_SSH_OPTS[@]}" -o ControlMaster=yes -o ControlPersist=900 -fN "$host" \
    </dev/null >/dev/null 2>"$err" 3>&-; then
    log::error "cannot reach lab host $host over ssh: $(grep -v '^\s*$' "$err" | tail -n 1)"
    log::error "each host needs sshd and this user's key (BatchMode: no password prompts, a known host key)"
    return 1
  fi
  LAB_CONNECTED+=("$host")
}

# lab::_stage DIR SERVER...: DIR with symlinks to what every host gets (tar -h copies them).
# The certificate is made for this run, for the address the load hosts use (lib/certs.sh's
# names as well); its CA key stays here.
lab::_stage() {
  local dir=$1 server certs=$LAB_CONTROL_DIR/certs file
  shift
  BARRAGE_CERT_SANS=$LAB_SERVER_ADDR${BARRAGE_CERT_SANS:+,$BARRAGE_CERT_SANS} certs::ensure "$certs" || return 1
  mkdir -p "$dir/servers" "$dir/client/build" "$dir/certs"
  for file in ca.pem server.pem server.key; do ln -s "$certs/$file" "$dir/certs/$file"; done
  ln -s "$LAB_ROOT/lib" "$dir/lib"
  ln -s "$LAB_ROOT/scenarios" "$dir/scenarios"
  ln -s "$LAB_ROOT/client/build/barrage" "$dir/client/build/barrage"
  [[ -f $SERVERS_DIR/jvm.options ]] && ln -s "$SERVERS_DIR/jvm.options" "$dir/servers/jvm.options"
  for server in "$@"; do ln -s "$SERVERS_DIR/$server" "$dir/servers/$server"; done
}

# lab::_copy HOST STAGE: replaces the suite's copy on HOST with STAGE's content.
lab::_copy() {
  local host=$1 stage=$2 dir
  dir=$(lab::_host_dir "$host")
  tar -C "$stage" -chf - --exclude=src --exclude=classes --exclude=generated-sources \
      --exclude=maven-status --exclude=maven-archiver --exclude='*.log' . |
    lab::_ssh "$host" "mkdir -p $(printf '%q' "$dir") && cd $(printf '%q' "$dir") && rm -rf lib scenarios servers client certs runs steps logs && tar -xf -"
}

# lab::_facts HOST ROLE: gathers HOST's facts into LAB_FACTS[HOST] (JSON).
lab::_facts() {
  local host=$1 role=$2 tsv
  tsv=$(lab::_remote "$host" labhost::facts) || { log::error "could not read the facts of $host"; return 1; }
  LAB_FACTS[$host]=$(jq -Rn --arg host "$host" --arg role "$role" '
    [inputs | split("\t") | {key: .[0], value: (.[1:] | join("\t"))}] as $kv
    | def one($k): ([$kv[] | select(.key == $k) | .value] | first // "") | if . == "" then null else . end;
    {host: $host, role: $role, os: one("os"), kernel: one("kernel"), arch: one("arch"),
     cpuModel: one("cpu_model"), cpuCores: (one("cores") | tonumber? // null),
     ramGB: (one("ram_kb") | if . == null then null else tonumber / 1048576 * 10 | round / 10 end),
     governor: one("governor"), swap_used_kb: (one("swap_used_kb") | tonumber? // null),
     load1: (one("load1") | tonumber? // null), busy: one("busy"),
     nics: [$kv[] | select(.key == "nic") | .value | capture("^(?<name>.*):(?<speed>[^:]*)$")
            | {name, speed_mbps: (.speed | tonumber? // null)}],
     java: one("java"), java_error: one("java_error"), barrage: one("barrage"),
     curl: (one("curl") == "1"), clock_offset_us: null, rtt_us: null,
     tcp_tw_reuse: (one("tcp_tw_reuse") | tonumber? // null), port_range: one("port_range"),
     nofile_soft: (one("nofile_soft") | if . == "unlimited" then . else tonumber? // null end),
     nofile_hard: (one("nofile_hard") | if . == "unlimited" then . else tonumber? // null end)}' <<<"$tsv")
}

# lab::_fact HOST FILTER: a jq filter over HOST's facts, raw.
lab::_fact() { jq -r "$2" <<<"${LAB_FACTS[$1]}"; }

# lab::_clock HOST: "OFFSET ERROR": HOST's clock minus ours in microseconds, from the quickest
# of five round trips, and the most it can be off (half that round trip).
lab::_clock() {
  local t0 remote t1 i best='' offset
  for ((i = 0; i < 5; i++)); do
    t0=${EPOCHREALTIME/[.,]/}
    remote=$(lab::_ssh "$1" date +%s%6N) || return 1
    t1=${EPOCHREALTIME/[.,]/}
    if [[ -z $best ]] || ((t1 - t0 < best)); then best=$((t1 - t0)) offset=$((remote - (t0 + t1) / 2)); fi
  done
  printf '%s %s\n' "$offset" $((best / 2))
}

# lab::_quic_libs: what a load host also needs to run a barrage built here with HTTP/3.
lab::_quic_libs() {
  barrage::has_h3 2>/dev/null || return 0
  printf '%s' "; built with HTTP/3, also ngtcp2, nghttp3 and GnuTLS (apt-get install libngtcp2-9 libngtcp2-crypto-gnutls2 libnghttp3-3 libgnutls30)"
}

# lab::_warn MSG: a pre-flight warning (kept for the results file).
lab::_warn() { LAB_WARNINGS+=("$1"); log::warn "pre-flight: $1"; }

# lab::_cpus_usable HOST CPULIST ROLE: 0 when CPULIST is empty or HOST's taskset pins to it;
# else 1 with an error.
lab::_cpus_usable() {
  local why
  [[ -n $2 ]] || return 0
  why=$(lab::_remote "$1" taskset -c "$2" true 2>&1) && return 0
  log::error "$3 host $1 cannot pin to CPUs $2 (--cpus): ${why#taskset: }"
  return 1
}

# lab::_preflight_churn: what caps the selected churn and idle scenarios (lib/churn.sh): each
# load host's TIME_WAIT reuse and port range (over the network: the new connections/s they
# allow to the server), and every host's open-file limits against the files they need.
lab::_preflight_churn() {
  local host line churn=0 scenario needed
  for scenario in "${SCENARIOS[@]}"; do
    [[ $(scenarios::field "$scenario" connection 2>/dev/null) == churn:* ]] && churn=1
  done
  needed=$(churn::fds_needed)
  for host in $(lab::_hosts); do
    if ((churn)) && [[ " ${LAB_LOADS[*]} " == *" $host "* ]]; then
      line=$(churn::ceiling_text "$(lab::_fact "$host" '.tcp_tw_reuse // ""')" "$(lab::_fact "$host" '.port_range // ""')" 0)
      [[ -z $line ]] || lab::_warn "$host: $line"
    fi
    line=$(churn::fds_text "$needed" "$(lab::_fact "$host" '.nofile_soft // "unlimited"')" "$(lab::_fact "$host" '.nofile_hard // "unlimited"')")
    # a soft limit below the need is raised where the files are opened (barrage, labhost::server)
    [[ -z $line || $line != *"hard limit"* ]] || lab::_warn "$host: $line"
  done
}

# lab::_preflight: errors and warnings from the gathered facts (see lab::prepare).
lab::_preflight() {
  local host errors=0 value offsets=() rtt offset error
  local low=999999999999 high=-999999999999 slack=0
  value=$(lab::_fact "$LAB_SERVER" '.java // empty')
  if [[ -z $value ]]; then
    log::error "server host $LAB_SERVER has no JDK ${JAVA_MIN_MAJOR:-21}+: $(lab::_fact "$LAB_SERVER" '.java_error // "java::home found none"')"
    errors=1
  fi
  for host in "${LAB_LOADS[@]}"; do
    if [[ -z $(lab::_fact "$host" '.barrage // empty') ]]; then
      log::error "barrage (built here, copied) does not run on load host $host: it needs the runtime libraries of libev, nghttp2, OpenSSL, LuaJIT and zlib (apt-get install libev4 libnghttp2-14 libluajit-5.1-2)$(lab::_quic_libs)"
      errors=1
    fi
  done
  # --cpus: each host's own taskset on its list (a CPU the host lacks would fail every start or run)
  lab::_cpus_usable "$LAB_SERVER" "${SETTINGS[server_cpus]:-}" server || errors=1
  for host in "${LAB_LOADS[@]}"; do lab::_cpus_usable "$host" "${SETTINGS[client_cpus]:-}" load || errors=1; done
  if [[ $(lab::_fact "${LAB_LOADS[0]}" '.curl') != true ]]; then
    log::error "load host ${LAB_LOADS[0]} has no curl: the contract checks and the readiness probe run from it"
    errors=1
  fi
  for host in $(lab::_hosts); do
    value=$(lab::_fact "$host" '.governor // empty')
    [[ -z $value || $value == performance ]] || lab::_warn "$host: CPU frequency governor is '$value', not 'performance'"
    value=$(lab::_fact "$host" '.swap_used_kb // 0')
    ((value == 0)) || lab::_warn "$host: $value kB of swap in use"
    value=$(lab::_fact "$host" '.busy // empty')
    [[ -z $value ]] || lab::_warn "$host: other busy processes: $value"
  done
  for host in "${LAB_LOADS[@]}"; do
    read -r offset error < <(lab::_clock "$host") || offset='' error=''
    rtt=$(lab::_remote "$host" labhost::rtt "$LAB_SERVER_ADDR" 22) || rtt=''
    LAB_FACTS[$host]=$(jq -c --arg offset "$offset" --arg error "$error" --arg rtt "$rtt" '
      .clock_offset_us = ($offset | tonumber? // null) | .clock_error_us = ($error | tonumber? // null)
      | .rtt_us = ($rtt | tonumber? // null)' <<<"${LAB_FACTS[$host]}")
    if [[ -n $offset ]]; then
      offsets+=("$offset")
      ((offset < low)) && low=$offset
      ((offset > high)) && high=$offset
      ((slack += error))
    fi
    if [[ -z $rtt ]]; then lab::_warn "$host: no TCP round trip to $LAB_SERVER_ADDR:22 measured"
    elif ((rtt > LAB_RTT_WARN_US)); then lab::_warn "$host: round trip to $LAB_SERVER_ADDR is ${rtt} us (over ${LAB_RTT_WARN_US} us)"
    fi
  done
  lab::_preflight_churn
  # Apart by more than the limit even after the measurement's own error (a loaded network or
  # host stretches the round trips): only then is it the clocks.
  if ((${#offsets[@]} > 1 && high - low - slack > LAB_CLOCK_SPREAD_US)); then
    lab::_warn "load hosts' clocks are $((high - low)) us apart (+/- ${slack} us; over ${LAB_CLOCK_SPREAD_US} us): their timelines do not line up"
  fi
  ((errors == 0)) || return 1
  if ((LAB_STRICT && ${#LAB_WARNINGS[@]})); then
    log::error "--strict: ${#LAB_WARNINGS[@]} pre-flight warning(s) above; set the hosts up for benchmarking or drop --strict"
    return 1
  fi
}

lab::connect() {
  local host
  LAB_CONTROL_DIR=$(mktemp -d /tmp/barrage-lab.XXXXXX)
  LAB_SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=5 -o ServerAliveInterval=5 -o ServerAliveCountMax=3
    -o ControlPath="$LAB_CONTROL_DIR/%C")
  [[ -n $LAB_SSH_CONFIG ]] && LAB_SSH_OPTS=(-F "$LAB_SSH_CONFIG" "${LAB_SSH_OPTS[@]}")
  for host in $(lab::_hosts); do lab::_connect "$host" || return 1; done
  log::info "lab: connected to $(lab::_hosts | paste -sd' ')"
}

lab::prepare() {
  local host stage=$LAB_CONTROL_DIR/stage
  lab::_stage "$stage" "$@" || return 1
  for host in $(lab::_hosts); do
    log::info "lab: copying the suite to $host:$(lab::_host_dir "$host")"
    lab::_copy "$host" "$stage" || { log::error "could not copy the suite to $host"; return 1; }
  done
  lab::_facts "$LAB_SERVER" server || return 1
  for host in "${LAB_LOADS[@]}"; do lab::_facts "$host" load || return 1; done
  lab::_preflight
}

lab::header_json() {
  local host
  for host in $(lab::_hosts); do printf '%s\n' "${LAB_FACTS[$host]:-null}"; done |
    jq -cs --arg server "$LAB_SERVER" --arg address "$LAB_SERVER_ADDR" --arg dir "$LAB_DIR" \
      --argjson strict "$LAB_STRICT" --arg loads "${LAB_LOADS[*]}" \
      --arg warnings "$(printf '%s\n' "${LAB_WARNINGS[@]}")" '
      {server_host: $server, server_address: $address, load_hosts: ($loads | split(" ")),
       lab_dir: $dir, strict: ($strict == 1), hosts: .,
       warnings: ($warnings | split("\n") | map(select(. != "")))}'
}

# lab::_spawn HOST LABEL LOG CMD...: starts CMD on HOST (labhost::spawn, LOG relative to the
# suite's directory there), records it; sets LAB_PGID.
lab::_spawn() {
  local host=$1 label=$2 log=$3
  shift 3
  LAB_PGID=$(lab::_remote "$host" labhost::spawn "$log" "$@") || LAB_PGID=''
  [[ $LAB_PGID =~ ^[0-9]+$ ]] || { log::error "could not start $label on $host"; return 1; }
  LAB_RUNNING+=("$host"$'\t'"$LAB_PGID")
  [[ -n $LAB_PIDS_FILE ]] && printf '%s\t%s\t%s\n' "$host" "$LAB_PGID" "$label" >>"$LAB_PIDS_FILE"
  return 0
}

# lab::_forget HOST PGID: drops a stopped or ended process group from the running list.
lab::_forget() {
  local i
  for i in "${!LAB_RUNNING[@]}"; do
    [[ ${LAB_RUNNING[i]} == "$1"$'\t'"$2" ]] && unset 'LAB_RUNNING[i]'
  done
  LAB_RUNNING=("${LAB_RUNNING[@]}")
}

# lab::_stop HOST PGID: TERM, then KILL, to the group on HOST; forgets it once gone.
lab::_stop() {
  lab::_remote "$1" labhost::stop "$2" "$LAB_STOP_TIMEOUT_S" || return 1
  lab::_forget "$1" "$2"
}

# lab::_wait TIMEOUT_S HOST<TAB>PGID...: polls until every group has ended; after TIMEOUT_S
# stops those left and returns 1.
lab::_wait() {
  local deadline=$((SECONDS + $1)) entry host pgid still
  shift
  local pending=("$@")
  while ((${#pending[@]})); do
    still=()
    for entry in "${pending[@]}"; do
      IFS=$'\t' read -r host pgid <<<"$entry"
      if [[ -n $(lab::_remote "$host" labhost::alive "$pgid") ]]; then still+=("$entry")
      else lab::_forget "$host" "$pgid"; fi
    done
    pending=("${still[@]}")
    ((${#pending[@]})) || return 0
    if ((SECONDS >= deadline)); then
      for entry in "${pending[@]}"; do IFS=$'\t' read -r host pgid <<<"$entry"; lab::_stop "$host" "$pgid" || true; done
      return 1
    fi
    sleep 0.3
  done
}

# lab::_call HOST LABEL TIMEOUT_S CMD...: CMD on HOST as a recorded process group, waited for;
# its stdout here, its stderr on stderr, its exit status (1 when it had to be stopped).
lab::_call() {
  local host=$1 label=$2 timeout=$3 step rc
  shift 3
  LAB_STEP=$((LAB_STEP + 1))
  step=steps/$LAB_STEP
  lab::_remote "$host" mkdir -p steps || return 1
  lab::_spawn "$host" "$label" "$step.err" labhost::call "$step.out" "$step.rc" "$@" || return 1
  lab::_wait "$timeout" "$host"$'\t'"$LAB_PGID" || { log::error "$label on $host: no end within ${timeout}s"; return 1; }
  lab::_remote "$host" cat "$step.out"
  lab::_remote "$host" cat "$step.err" | log::lines
  rc=$(lab::_remote "$host" cat "$step.rc" 2>/dev/null) || rc=1
  return "${rc:-1}"
}

lab::start_server() {
  local name=$1 port=$2 cpus=${4:-} bind=0.0.0.0
  LAB_SERVER_LOG=$3 LAB_PORT=$2 LAB_SERVER_TLS=0
  # a server that serves HTTPS (h1s, h2) is ready once its TLS port answers too (labhost::server)
  grep -qE '^protocols=(.*,)?(h1s|h2)(,|$)' "$SERVERS_DIR/$name/server.properties" 2>/dev/null && LAB_SERVER_TLS=1
  # Bound to the lab address when it is one (a name resolves on the load hosts only).
  [[ $LAB_SERVER_ADDR =~ ^[0-9.]+$ ]] && bind=$LAB_SERVER_ADDR
  lab::_remote "$LAB_SERVER" mkdir -p logs runs || return 1
  lab::_spawn "$LAB_SERVER" "server $name" "logs/server.log" labhost::server "$name" "$port" "$bind" "$cpus" || return 1
  LAB_SERVER_PGID=$LAB_PGID
}

lab::server_alive() {
  [[ -n $LAB_SERVER_PGID && -n $(lab::_remote "$LAB_SERVER" labhost::alive "$LAB_SERVER_PGID") ]]
}

lab::wait_ready() {
  lab::_call "${LAB_LOADS[0]}" "readiness probe" $(($2 + 10)) labhost::ready "$(lab::base_url "$1")/hello" "$2" || return 1
  ((${LAB_SERVER_TLS:-0})) || return 0
  lab::_call "${LAB_LOADS[0]}" "readiness probe (TLS)" $(($2 + 10)) labhost::ready "$(lab::base_url "$1" h1s)/hello" "$2"
}

lab::contract() {
  lab::_call "${LAB_LOADS[0]}" "contract verification $1" 900 labhost::contract "$1" "$(lab::base_url "$2")" "$3" \
    "$LAB_H3_VENV"
}

lab::stop_server() {
  local rc=0
  [[ -n $LAB_SERVER_PGID ]] || return 0
  lab::_stop "$LAB_SERVER" "$LAB_SERVER_PGID" || rc=1
  lab::_remote "$LAB_SERVER" cat logs/server.log >"$LAB_SERVER_LOG" 2>/dev/null || true
  LAB_SERVER_PGID=''
  return "$rc"
}

lab::sample_start() {
  lab::_spawn "$LAB_SERVER" "cpu sampler" logs/sampler.log labhost::sample "$LAB_SERVER_PGID" runs/samples
  LAB_SAMPLER_PGID=$LAB_PGID
}

lab::sample_stop() {
  [[ -n $LAB_SAMPLER_PGID ]] || return 0
  lab::_stop "$LAB_SERVER" "$LAB_SAMPLER_PGID" || true
  LAB_SAMPLER_PGID=''
  lab::_remote "$LAB_SERVER" bash -c 'cat runs/samples 2>/dev/null; rm -f runs/samples' >"$1" || true
}

# lab::_shares TOTAL N: TOTAL split into N whole shares as even as can be, one per line.
lab::_shares() {
  local i
  for ((i = 0; i < $2; i++)); do printf '%s\n' $(($1 / $2 + (i < $1 % $2 ? 1 : 0))); done
}

# lab::_rate_shares RATE WEIGHT...: RATE (whole requests/s) split in proportion to the
# weights (the hosts' connections), whole shares adding up to RATE, one per line: each
# gets its floor, the remainder goes one by one to the largest fractions.
lab::_rate_shares() {
  local rate=$1
  shift
  printf '%s\n' "$@" | awk -v rate="$rate" '
    { w[NR] = $1; total += $1 }
    END {
      for (i = 1; i <= NR; i++) { exact = rate * w[i] / total; share[i] = int(exact); frac[i] = exact - share[i]; left += share[i] }
      for (left = rate - left; left > 0; left--) {
        best = 0
        for (i = 1; i <= NR; i++) if (!best || frac[i] > frac[best]) best = i
        share[best]++; frac[best] = -1
      }
      for (i = 1; i <= NR; i++) print share[i]
    }'
}

# lab::_start_at HOSTS: a wall-clock start, ms since the epoch by our clock, far enough
# ahead for every host's tool to be started over ssh first.
lab::_start_at() { echo $((${EPOCHREALTIME/[.,]/} / 1000 + LAB_START_MARGIN_MS + LAB_START_PER_HOST_MS * $1)); }

lab::run_tool() {
  local -n lab_spec=$1
  local tool=${lab_spec[tool]} out=${lab_spec[out]} local_dir=${lab_spec[dir]} connections=${lab_spec[connections]}
  local duration=${lab_spec[duration_s]} warmup=${lab_spec[warmup_s]} cpus=${lab_spec[cpus]} rate=${lab_spec[rate]:-}
  local threads=${SETTINGS[threads_option]} hosts=() shares=() rates=() entries=()
  local i host conns host_threads host_rate host_start work rc failed=0 start_at='' key words=()
  local -A host_spec=()
  if tools::can "$tool" multihost; then hosts=("${LAB_LOADS[@]}"); else hosts=("${LAB_LOADS[0]}"); fi
  # Never a host with no connection, nor one with no request to send at a fixed rate.
  ((${#hosts[@]} <= connections)) || hosts=("${hosts[@]:0:connections}")
  [[ -z $rate ]] || ((${#hosts[@]} <= rate)) || hosts=("${hosts[@]:0:rate}")
  mapfile -t shares < <(lab::_shares "$connections" "${#hosts[@]}")
  [[ -z $rate ]] || mapfile -t rates < <(lab::_rate_shares "$rate" "${shares[@]}")
  ((${#hosts[@]} > 1)) && start_at=$(lab::_start_at "${#hosts[@]}")
  work=runs/$(basename "$local_dir")
  for i in "${!hosts[@]}"; do
    host=${hosts[i]} conns=${shares[i]} host_rate=${rates[i]:-}
    if [[ -n $threads ]]; then host_threads=$threads
    elif [[ -n $cpus ]]; then host_threads=$(system::count_cpus "$cpus")
    else host_threads=$(lab::_fact "$host" '.cpuCores // 1')
    fi
    ((host_threads <= conns)) || host_threads=$conns
    spec::in_range threads "$host_threads" || read -r _ host_threads <<<"$(spec::range threads)"
    # The host's clock runs ahead of ours by its offset: the same instant, on its clock.
    host_start=${start_at:+$((start_at + $(lab::_fact "$host" '(.clock_offset_us // 0) / 1000 | round')))}
    # The whole spec goes to the host (warmup_auto, stages and all), with this host's share
    # and its paths: relative to the suite's folder there (labhost::tool).
    # shellcheck disable=SC2034 # serialized by name below
    for key in "${!lab_spec[@]}"; do host_spec[$key]=${lab_spec[$key]}; done
    host_spec["out"]=$work/metrics.json host_spec["dir"]=$work host_spec["start_at"]=$host_start
    host_spec["url"]=$(lab::base_url "$LAB_PORT" "${lab_spec[protocol]}") host_spec["cacert"]=certs/ca.pem
    host_spec["threads"]=$host_threads host_spec["connections"]=$conns host_spec["rate"]=$host_rate
    # shellcheck disable=SC2034 # serialized by name below
    host_spec["samples"]='' host_spec["barrage_bin"]=''
    spec::serialize host_spec words || return 1
    lab::_remote "$host" mkdir -p "$work" || return 1
    lab::_spawn "$host" "tool $tool" "$work/stderr" labhost::call "$work/stdout" "$work/rc" \
      labhost::tool "${words[@]}" || return 1
    entries+=("$host"$'\t'"$LAB_PGID")
    # ("-": none; a tab is blank to read, so an empty field would vanish)
    printf '%s\t%s\t%s\t%s\t%s\n' "$host" "$conns" "$host_threads" "${host_rate:--}" "${host_start:--}" >>"$local_dir/lab-shares"
  done
  lab::_wait $((warmup + duration + 60 + LAB_START_MARGIN_MS / 1000 + 1)) "${entries[@]}" || failed=1
  for host in "${hosts[@]}"; do
    mkdir -p "$local_dir/hosts/$host"
    lab::_remote "$host" tar -C "$work" -cf - . | tar -C "$local_dir/hosts/$host" -xf - || failed=1
    sed "s/^/[$host] /" "$local_dir/hosts/$host/stderr" 2>/dev/null | log::lines || true
    rc=$(cat "$local_dir/hosts/$host/rc" 2>/dev/null) || rc=1
    [[ $rc == 0 && -s $local_dir/hosts/$host/metrics.json ]] || { log::error "$tool on $host failed (exit ${rc:-?})"; failed=1; }
  done
  ((failed == 0)) || return 1
  lab::_merge "$out" "$local_dir" "$duration" "${hosts[@]}"
}

# lab::_merge OUT LOCAL_DIR DURATION_S HOST...: OUT: the hosts' records merged (one host: its
# record as it is); LOCAL_DIR/lab-hosts.json: the per-host records with their shares and the
# tool's CPU on each host.
lab::_merge() {
  local out=$1 dir=$2 duration=$3 host records=() conns cores rate start
  shift 3
  for host in "$@"; do records+=("$dir/hosts/$host/metrics.json"); done
  # lab-shares: a line per host, in run order (lab::run_tool)
  while IFS=$'\t' read -r host conns cores rate start; do
    jq -c --arg host "$host" --argjson client "$(system::group_stats "$dir/hosts/$host/tool-samples" "$duration" "$cores")" \
      --argjson conns "$conns" --argjson threads "$cores" --arg rate "$rate" --arg start "$start" \
      '{host: $host, connections: $conns, threads: $threads, rate: ($rate | tonumber? // null),
        start_at_ms: ($start | tonumber? // null), client_stats: $client, metrics: .}' "$dir/hosts/$host/metrics.json"
  done <"$dir/lab-shares" | jq -s . >"$dir/lab-hosts.json"
  if (($# == 1)); then cp "${records[0]}" "$out"; return 0; fi
  local merged
  merged=$("$LAB_ROOT/client/tools/merge-records" "${records[@]}") || { log::error "merge-records failed"; return 1; }
  # Every field the merge's (merge-records has a rule for each field of the record, the first
  # record's values never stand for the others'): what cannot be added up (per-host
  # histograms, timelines, connect and first-byte times) is left out. At a
  # fixed rate: the hosts' schedules added up, delivered only when every host delivered.
  jq -s --argjson m "$merged" --arg hosts "$*" '
    def latency($name): if $m[$name] == null then null
      else ($m[$name] | del(.count)) + {overflow: (map(.[$name].overflow // 0) | add)} end;
    ($hosts | split(" ")) as $names
    | .[0] + ($m | del(.records, .tools, .latency_us, .latency_uncorrected_us, .error_latency_us, .schedule_lag_us, .rate))
    + {latency_us: latency("latency_us"), error_latency_us: latency("error_latency_us"),
       latency_uncorrected_us: latency("latency_uncorrected_us"), schedule_lag_us: latency("schedule_lag_us"),
       rate: (if $m.rate == null then null else
         .[0].rate + $m.rate + {changes: [],
           not_delivered: ([to_entries[] | select(.value.rate.not_delivered != null)
                            | "\($names[.key]): \(.value.rate.not_delivered)"] | if length == 0 then null else join("; ") end)} end),
       accounting: (if all(.[]; .accounting == "exact") then "exact" else "approximate" end),
       # each host warmed up until its own load was steady: the longest, steady when all were
       warmup: (if all(.[]; .warmup.mode == "auto") then
         .[0].warmup + {seconds: (map(.warmup.seconds) | max), steady: all(.[]; .warmup.steady == true)}
         else .[0].warmup end),
       merged_from: length}
    | del(.histograms, .timeline, .warmup_timeline, .connect_us, .ttfb_us, .max_rss_kb, .threads)' \
    "${records[@]}" >"$out"
}

lab::client_json() {
  local file=$1/lab-hosts.json
  [[ -f $file ]] || { echo null; return 0; }
  jq -c '[.[] | .client_stats + {host}
          | . + {share: ((.busy_pct // .cpu_pct) as $b | if $b == null or .cores == 0 then -1 else $b / .cores end)}]
         | max_by(.share) // null | if . == null then null else del(.share) end' "$file"
}

lab::cleanup() {
  local i host pgid
  lab::active || return 0
  for ((i = ${#LAB_RUNNING[@]} - 1; i >= 0; i--)); do
    IFS=$'\t' read -r host pgid <<<"${LAB_RUNNING[i]}"
    log::info "lab: stopping process group $pgid on $host"
    lab::_stop "$host" "$pgid" || log::error "lab: process group $pgid on $host did not stop"
  done
  for host in "${LAB_CONNECTED[@]}"; do
    ssh "${LAB_SSH_OPTS[@]}" -O exit "$host" 2>/dev/null || true
  done
  LAB_CONNECTED=()
  [[ -n $LAB_CONTROL_DIR ]] && rm -rf -- "$LAB_CONTROL_DIR"
  LAB_CONTROL_DIR=''
}
