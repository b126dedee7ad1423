#!/usr/bin/env bash
# place/local: where a run happens when no lab is configured: the server and every load tool
# on this machine, over loopback (127.0.0.1:PORT). One of two places (lib/place/lab.sh is the
# other); run-benchmarks.sh loads one, and both define the same functions:
#
#   place::default_pinning
#     Prints "SERVER_CPUS CLIENT_CPUS" when --cpus is not given (here: disjoint halves of the
#     cores, system::default_pinning), nothing for no pinning.
#   place::check_options
#     Returns 1 with the reason on stdout when an option cannot be honoured here (here: a
#     --cpus list taskset refuses).
#   place::protocols
#     The protocols measured here, one a line: what --protocol all means.
#   place::connect / place::prepare SERVER...
#     Before the runs: reach the hosts / copy what they need (here: nothing). exit 1 on failure.
#   place::start_server SLOT LOG REASON_VAR
#     Starts SLOT's server (its log to LOG); returns 1 with the reason the slot's rows get in
#     REASON_VAR when it cannot.
#   place::wait_ready / place::server_alive / place::verify_contract NAME PROTOCOLS
#     The started server answers GET /hello (within READY_TIMEOUT_S) / still runs / keeps the
#     contract (TAP on stdout).
#   place::server_jdk
#     The running server's JDK, as JSON {version, home} from its process (servers::jdk), or null.
#   place::stop_server NAME
#     Stops the started server; log::die when it does not stop.
#   place::sample_start DIR / place::sample_stop DIR
#     Samples the server's CPU and memory into DIR/samples (system::sample_start's lines).
#   place::run_tool SPEC_NAME
#     One run of the spec's tool (lib/plan.sh; the spec's url set here), its record in the
#     spec's out; the tool's status.
#   place::collect SPEC_NAME
#     After a run: {"client": the row's client_stats, "here": the load tool's CPU on this
#     machine, for machine_stats' other_cpu_pct}.
#   place::cleanup
#     From the EXIT trap: stops what this place started and still runs.
# Here: SERVER_PID is the running server's process group, SERVER_GC_LOG its GC log (empty:
# none). Reads SETTINGS' cpus, port, gc_log, profile, server_cpus (lib/settings.sh) and
# PROFILE_LIB, LOG_DIR, STOP_TIMEOUT_S, READY_TIMEOUT_S, SCRATCH_DIR; with SETTINGS' metrics,
# lib/prom.sh's JVM agent.

SERVER_PID='' SERVER_GC_LOG=''

place::default_pinning() { system::default_pinning; }

place::check_options() {
  local list why
  # taskset's own verdict on each --cpus list, before anything starts: a CPU this machine does
  # not have (or may not use) would fail every start and every run
  if [[ -z ${SETTINGS[cpus]:-} || ${SETTINGS[cpus]} == none ]] || ! command -v taskset >/dev/null; then return 0; fi
  for list in "${SETTINGS[cpus]%%:*}" "${SETTINGS[cpus]#*:}"; do
    why=$(taskset -c "$list" true 2>&1) && continue
    echo "--cpus: taskset cannot pin to CPUs $list here (${why#taskset: }; CPUs here: $(taskset -pc $$ | sed 's/.*: //'))"
    return 1
  done
}

place::protocols() { printf '%s\n' h1 h2c h1s h2 h3; }

place::connect() { return 0; }

place::prepare() { return 0; }

place::start_server() {
  local slot=$1 log=$2 server holder launcher_options
  local -n start_reason=$3
  server=$(plan::slot_server "$slot")
  holder=$(servers::port_holder "${SETTINGS[port]}")
  if [[ -n $holder ]]; then
    log::error "port ${SETTINGS[port]} is taken by $holder before starting $server; free it or pick another with --port"
    exit 1
  fi
  # a server that serves HTTPS takes the next port too (servers::tls_port)
  if [[ ,$(plan::declared_protocols "$server"), =~ ,(h1s|h2), ]]; then
    holder=$(servers::port_holder "$(servers::tls_port "${SETTINGS[port]}")")
    if [[ -n $holder ]]; then
      log::error "port $(servers::tls_port "${SETTINGS[port]}") (HTTPS, --port + 1) is taken by $holder before starting $server; free it or pick another with --port"
      exit 1
    fi
  fi
  log::info "starting $slot on port ${SETTINGS[port]} (log: $log)"
  SERVER_GC_LOG=''
  [[ ${SETTINGS[gc_log]} == 0 ]] || SERVER_GC_LOG=${log%.log}.gc.log
  local agents=()
  [[ -z ${SETTINGS[profile]} ]] || agents+=("-agentpath:$PROFILE_LIB")
  # --metrics: the JMX exporter's agent, scraped as job jvm with this slot's label (lib/prom.sh)
  [[ ${SETTINGS[metrics]:-0} == 0 ]] || agents+=("$(prom::jvm_agent_option "$slot")")
  launcher_options=$(jvm::launcher_options "$SERVER_GC_LOG" ${agents[@]+"${agents[@]}"}) || exit 1
  # a contestant of a variant run: its JDK, JVM options, environment and cores (lib/variants.sh)
  local contestant cpus=${SETTINGS[server_cpus]} java_home=${JAVA_HOME:-} variant_options="" count jdk aot=
  local -a SERVERS_START_ENV=()
  contestant=$(plan::contestant "$slot")
  if [[ -n $contestant ]]; then
    variant_options=$(variants::launch_options "$contestant" | paste -sd' ')
    # shellcheck disable=SC2034 # read by servers::start (dynamic scope)
    mapfile -t SERVERS_START_ENV < <(jq -r '.env | to_entries[] | "\(.key)=\(.value)"' <<<"$contestant")
    count=$(jq -r '.server_cpus // ""' <<<"$contestant")
    if [[ -n $count ]] && ! cpus=$(variants::cpu_list "${SETTINGS[server_cpus]}" "$count"); then
      # shellcheck disable=SC2034 # a nameref: the caller's variable
      start_reason="start failed: $cpus"
      return 1
    fi
    jdk=$(jq -r '.jdk // ""' <<<"$contestant")
    [[ -z $jdk ]] || java_home=${JDK_HOMES[$jdk]}
    if [[ $(jq -r .variant <<<"$contestant") == "$VARIANTS_AOT" ]]; then
      local aot_options=()
      mapfile -t aot_options < <(variants::aot_options "$SERVERS_DIR/$server" "${java_home:-$(java::home)}" "$VARIANTS_AOT_CACHE")
      # the cache's option on its own (its path may hold spaces), the logging with the variant's
      aot=${aot_options[0]} variant_options+=" ${aot_options[*]:1}"
      [[ $aot != *AOTCacheOutput* ]] || PLACE_STOP_TIMEOUT_S=$VARIANTS_AOT_STOP_TIMEOUT_S PLACE_AOT_TRAINED=${aot#*=}
      if [[ $aot == *AOTCacheOutput* ]]; then log::info "$slot: no AOT cache of this build and JDK yet: this start trains it ($aot), written when the server stops"
      else log::info "$slot: starting from its AOT cache ($aot)"; fi
    fi
  fi
  if ! JAVA_HOME=$java_home VARIANT_JVM_OPTIONS=$variant_options JDK_JAVA_OPTIONS=$launcher_options AOT_JVM_OPTION=$aot \
    servers::start "$server" "${SETTINGS[port]}" "$log" "$cpus"; then
    # shellcheck disable=SC2034 # a nameref: the caller's variable
    start_reason="start failed: see $log"
    return 1
  fi
  procs::record "$SERVER_PID" "server $server"
}

place::wait_ready() { servers::wait_ready "$SERVER_PID" "${SETTINGS[port]}" "$READY_TIMEOUT_S"; }

place::server_jdk() { servers::jdk "$SERVER_PID"; }

place::server_alive() { servers::alive "$SERVER_PID"; }

place::verify_contract() {
  # In the background, in a process group of its own: a signal stops it and its curl at once.
  TMPDIR=$SCRATCH_DIR procs::run "contract verification $1" contract::verify "$1" "http://127.0.0.1:${SETTINGS[port]}" "$2"
}

place::stop_server() {
  # an aot training start writes its cache as it stops: it gets longer
  servers::stop "$SERVER_PID" "${PLACE_STOP_TIMEOUT_S:-$STOP_TIMEOUT_S}" || log::die "could not stop $1 (process group $SERVER_PID)"
  SERVER_PID='' PLACE_STOP_TIMEOUT_S=''
  if [[ -n ${PLACE_AOT_TRAINED:-} && ! -s $PLACE_AOT_TRAINED ]]; then
    log::warn "$1 did not write its AOT cache as it stopped (see its log): the next start trains again"
    rm -f -- "$PLACE_AOT_TRAINED" "$PLACE_AOT_TRAINED.config"
  fi
  PLACE_AOT_TRAINED=''
  servers::wait_port_free "${SETTINGS[port]}" "$STOP_TIMEOUT_S" \
    || log::die "port ${SETTINGS[port]} still taken by $(servers::port_holder "${SETTINGS[port]}") after stopping $1"
}

place::sample_start() {
  system::sample_start "$SERVER_PID" "$1/samples"
  procs::record "$SAMPLER_PID" "cpu sampler"
}

place::sample_stop() { system::sample_stop; }

place::run_tool() {
  local -n local_spec=$1
  local_spec["url"]=http://127.0.0.1:${SETTINGS[port]}
  # HTTP/3: QUIC on UDP at the same port, with the certificate servers::start gave the server;
  # h1s and h2: TLS over TCP on its HTTPS port (servers::tls_port), the same certificate
  case ${local_spec[protocol]} in
    h3) local_spec["url"]=https://127.0.0.1:${SETTINGS[port]} local_spec["cacert"]=$(certs::dir)/ca.pem ;;
    h1s|h2) local_spec["url"]=https://127.0.0.1:$(servers::tls_port "${SETTINGS[port]}") local_spec["cacert"]=$(certs::dir)/ca.pem ;;
  esac
  "${local_spec[tool]}::run" "$1"
}

# place::_client_cores SPEC_NAME: the cores the load tool can use: its threads (one event loop
# each), at most the CPUs it is pinned to (all of them when it is not pinned).
place::_client_cores() {
  local -n cores_spec=$1
  local cpus threads=${cores_spec[threads]} connections=${cores_spec[connections]}
  ((connections < threads)) && threads=$connections
  if [[ -n ${cores_spec[cpus]} ]]; then cpus=$(system::count_cpus "${cores_spec[cpus]}"); else cpus=$(system::cores); fi
  echo $((threads < cpus ? threads : cpus))
}

place::collect() {
  local -n collect_spec=$1
  local client
  client=$(system::group_stats "${collect_spec[dir]}/tool-samples" "${collect_spec[duration_s]}" "$(place::_client_cores "$1")")
  printf '{"client":%s,"here":%s}\n' "$client" "$client"
}

place::cleanup() {
  if [[ -n $SERVER_PID ]]; then
    log::info "stopping server process group $SERVER_PID"
    servers::stop "$SERVER_PID" "$STOP_TIMEOUT_S" || log::error "process group $SERVER_PID did not stop"
    SERVER_PID=''
  fi
}
