#!/usr/bin/env bash
# place/lab: where a run happens on lab hardware (lib/lab.sh, README "Running on lab
# hardware"): the server on the server host, the load tools on the load hosts, over ssh. The
# same functions as lib/place/local.sh (its header says what each does); what differs here:
#   place::default_pinning   nothing: dedicated hosts, no pinning unless --cpus asks (then
#                            SERVER on the server host, CLIENT on each load host)
#   place::check_options     --profile attaches to a server on this machine, and a ramped
#                            rate is not split over the hosts: neither here
#   place::protocols         h1, h2c, h1s, h2 (TLS over TCP on the port after --port) and h3
#                            (QUIC to server_address), with a certificate made for it for
#                            the run: lab::prepare
#   place::connect           one ssh connection per host (lab::connect)
#   place::prepare SERVER... barrage built here, it and the servers that built copied to the
#                            hosts, their facts and pre-flight in the results (lab)
#   place::run_tool SPEC     barrage spread over the load hosts, wrk and h2load on the first
#                            (lab::run_tool); threads from --threads, else each host's cores
#   place::collect SPEC      the tool's CPU on the busiest load host; none here
# SERVER_PID and SERVER_GC_LOG stay empty: no server runs on this machine.

# shellcheck disable=SC2034 # read by lib/measure.sh
SERVER_PID='' SERVER_GC_LOG=''

place::default_pinning() { return 0; }

place::check_options() {
  local scenario
  if [[ -n ${SETTINGS[profile]} ]]; then
    echo "--profile attaches to a server on this machine; not in a lab run"
    return 1
  fi
  # lab::run_tool splits a fixed rate over the load hosts, not a ramp
  for scenario in "${SCENARIOS[@]}"; do
    [[ -z $(openloop::stages_of "$scenario") ]] && continue
    echo "a ramped rate (--rate-stages, or the scenario table's stages for $scenario) is not split over lab hosts; not in a lab run"
    return 1
  done
}

place::protocols() { printf '%s\n' h1 h2c h1s h2 h3; }

place::connect() { lab::connect || exit 1; }

place::prepare() {
  barrage::build || exit 1
  lab::record_to "$LOG_DIR/lab-pids"
  lab::prepare "$@" || exit 1
  results::set lab "$(lab::header_json)"
}

place::start_server() {
  local slot=$1 log=$2
  local -n start_reason=$3
  log::info "starting $slot on $LAB_SERVER port ${SETTINGS[port]} (log: $log)"
  lab::start_server "$(plan::slot_server "$slot")" "${SETTINGS[port]}" "$log" "${SETTINGS[server_cpus]}" && return 0
  # shellcheck disable=SC2034 # a nameref: the caller's variable
  start_reason="start failed on $LAB_SERVER"
  return 1
}

place::wait_ready() { lab::wait_ready "${SETTINGS[port]}" "$READY_TIMEOUT_S"; }

place::server_alive() { lab::server_alive; }

# (variants are measured on this machine only: run-benchmarks.sh refuses them with a lab)
place::server_jdk() { echo null; }

place::verify_contract() { lab::contract "$1" "${SETTINGS[port]}" "$2"; }

place::stop_server() { lab::stop_server || log::die "could not stop $1 on $LAB_SERVER"; }

place::sample_start() { lab::sample_start; }

place::sample_stop() { lab::sample_stop "$1/samples"; }

place::run_tool() { lab::run_tool "$1"; }

place::collect() {
  local -n collect_spec=$1
  # (the samples are the server host's, where no load tool runs)
  printf '{"client":%s,"here":{"cpu_pct":0}}\n' "$(lab::client_json "${collect_spec[dir]}")"
}

place::cleanup() { lab::cleanup; }
