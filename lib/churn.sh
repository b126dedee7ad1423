#!/usr/bin/env bash
# churn: what the scenarios with a connection mode (scenarios.tsv's connection column: churn:N,
# churn:N:resume, idle:N; lib/scenarios.sh) add to a results row, and the host limits that cap
# them: TIME_WAIT reuse and the ephemeral port range (new connections per second to one server
# address), and the open-file limits (idle connections).
#
#   churn::row_json SCENARIO METRICS_FILE SAMPLES_FILE
#     The row's `connection` object (docs/metrics.md), or null for a keep-alive scenario or a
#     record without what it needs. churn: {mode, requests_per_connection, resume,
#     connections_per_s, handshakes_per_s (null without TLS), handshakes_full,
#     handshakes_resumed}, per second of the measured window. idle: {mode, idle_connections,
#     idle_open_at_end, idle_closed, server_rss_before_kb (the server's first sample, before
#     the tool connected), server_rss_peak_kb (the measured window's), server_rss_kb_per_idle_connection
#     ((peak - before) / idle connections open at the end: the busy connections' share and any
#     heap growth are in it too, small beside 10,000 idle ones), busy_latency_p50_us,
#     busy_latency_p99_us}. SAMPLES_FILE: system::sample_start's lines for the server.
#   churn::host_facts
#     "KEY<TAB>VALUE" lines about this host: tcp_tw_reuse (net.ipv4.tcp_tw_reuse, "" when
#     unreadable), port_range ("LOW HIGH"), tw_seconds (60: Linux's TIME_WAIT), nofile_soft,
#     nofile_hard (ulimit -n / -Hn of this shell). No jq (lib/labhost.sh runs it on lab hosts).
#   churn::ceiling_text TW_REUSE PORT_RANGE LOOPBACK
#     One line on the new connections per second these settings allow from one load host to
#     one server address:port (LOOPBACK 1: over 127.0.0.1/::1), e.g. "tcp_tw_reuse=0: at most
#     470 new connections/s ..."; nothing when nothing caps them.
#   churn::fds_needed
#     The open files the selected scenarios need at most (connections + idle connections +
#     a margin), from SCENARIOS and plan::connections_of.
#   churn::fds_text NEEDED SOFT HARD
#     A line when the limits cannot hold NEEDED files (the hard limit below it), or when the
#     soft one is below it (it is raised: barrage raises its own, the suite raises its shell's);
#     nothing when they fit.
#   churn::preflight_local
#     This machine's checks for the selected scenarios, as log::warn lines (loopback: TIME_WAIT
#     reuse only matters when tcp_tw_reuse is 0), after the soft open-file limit was raised.
# Depends on lib/log.sh, jq (row_json), lib/scenarios.sh and lib/plan.sh (fds_needed).

CHURN_TIME_WAIT_S=60  # Linux's TCP_TIMEWAIT_LEN
CHURN_FD_MARGIN=64    # barrage's own files (threads' event loops, eventfds, logs) and the suite's

churn::row_json() {
  local scenario=$1 metrics=$2 samples=$3 mode before=null
  mode=$(scenarios::field "$scenario" connection 2>/dev/null) || mode=''
  if [[ -z $mode || $mode == - || ! -s $metrics ]]; then echo null; return 0; fi
  [[ -s $samples ]] && before=$(awk 'NR == 1 {print $3; exit}' "$samples")
  jq -c --arg mode "$mode" --argjson before "${before:-null}" --argjson peak "$(churn::_rss_peak "$samples")" '
    def per_s(n): if n == null or (.duration_us // 0) == 0 then null else (n * 1e6 / .duration_us * 10 | round / 10) end;
    ($mode | split(":")) as $m
    | if $m[0] == "churn" then
        {mode: "churn", requests_per_connection: ($m[1] | tonumber), resume: ($m[2] == "resume"),
         connections_per_s: per_s(.connections.established),
         handshakes_per_s: (if .connections.handshakes_full == null then null
                            else per_s(.connections.handshakes_full + .connections.handshakes_resumed) end),
         handshakes_full: .connections.handshakes_full, handshakes_resumed: .connections.handshakes_resumed}
      elif $m[0] == "idle" then
        (.idle_connections // {}) as $i
        | {mode: "idle", idle_connections: ($m[1] | tonumber), idle_open_at_end: $i.open_at_end,
           idle_closed: $i.closed, server_rss_before_kb: $before, server_rss_peak_kb: $peak,
           server_rss_kb_per_idle_connection:
             (if $before == null or $peak == null or ($i.open_at_end // 0) == 0 then null
              else (($peak - $before) / $i.open_at_end * 100 | round / 100) end),
           busy_latency_p50_us: .latency_us.p50?, busy_latency_p99_us: .latency_us.p99?}
      else null end' "$metrics" 2>/dev/null || echo null
}

# churn::_rss_peak SAMPLES: the largest VmRSS sampled (kB), or null.
churn::_rss_peak() {
  [[ -s $1 ]] || { echo null; return 0; }
  awk '$3 > peak {peak = $3} END {print peak ? peak : "null"}' "$1"
}

churn::host_facts() {
  local reuse='' low='' high=''
  read -r reuse 2>/dev/null </proc/sys/net/ipv4/tcp_tw_reuse || reuse=''
  read -r low high 2>/dev/null </proc/sys/net/ipv4/ip_local_port_range || { low='' high=''; }
  printf 'tcp_tw_reuse\t%s\nport_range\t%s\ntw_seconds\t%s\n' "$reuse" "${low:+$low $high}" "$CHURN_TIME_WAIT_S"
  printf 'nofile_soft\t%s\nnofile_hard\t%s\n' "$(ulimit -Sn)" "$(ulimit -Hn)"
}

churn::ceiling_text() {
  local reuse=$1 range=$2 loopback=$3 low high ports
  read -r low high <<<"$range"
  [[ $low =~ ^[0-9]+$ && $high =~ ^[0-9]+$ ]] || return 0
  ports=$((high - low + 1))
  # tcp_tw_reuse 1: outgoing connections reuse TIME_WAIT ports (with timestamps) everywhere;
  # 2 (Linux's default since 5.7): over loopback only
  if [[ $reuse == 1 ]] || [[ $reuse == 2 && $loopback == 1 ]]; then return 0; fi
  printf 'tcp_tw_reuse=%s and %d ephemeral ports (ip_local_port_range %s-%s): at most about %d new connections/s to one server address:port before the ports in TIME_WAIT (%d s) run out; churn scenarios above that measure the client'"'"'s ports, not the server (sysctl -w net.ipv4.tcp_tw_reuse=1, or widen the range)\n' \
    "${reuse:-?}" "$ports" "$low" "$high" $((ports / CHURN_TIME_WAIT_S)) "$CHURN_TIME_WAIT_S"
}

churn::fds_needed() {
  local scenario mode most=0 n
  for scenario in "${SCENARIOS[@]}"; do
    n=$(plan::connections_of "$scenario")
    mode=$(scenarios::field "$scenario" connection 2>/dev/null) || mode=''
    [[ $mode == idle:* ]] && n=$((n + ${mode#idle:}))
    ((n > most)) && most=$n
  done
  echo $((most + CHURN_FD_MARGIN))
}

churn::fds_text() {
  local needed=$1 soft=$2 hard=$3
  if [[ $hard != unlimited ]] && ((hard < needed)); then
    printf 'open-file hard limit %s is below the %s files the selected scenarios need (connections + idle connections + %s): raise it (limits.conf nofile, systemd LimitNOFILE) or their runs fail\n' \
      "$hard" "$needed" "$CHURN_FD_MARGIN"
  elif [[ $soft != unlimited ]] && ((soft < needed)); then
    printf 'open-file soft limit %s is below the %s files the selected scenarios need: raised to the hard limit %s where it can be\n' "$soft" "$needed" "$hard"
  fi
}

churn::preflight_local() {
  local key value reuse='' range='' soft='' hard='' line scenario churn=0
  while IFS=$'\t' read -r key value; do
    case $key in
      tcp_tw_reuse) reuse=$value ;; port_range) range=$value ;; nofile_soft) soft=$value ;; nofile_hard) hard=$value ;;
    esac
  done < <(churn::host_facts)
  for scenario in "${SCENARIOS[@]}"; do
    [[ $(scenarios::field "$scenario" connection 2>/dev/null) == churn:* ]] && churn=1
  done
  if ((churn)); then
    line=$(churn::ceiling_text "$reuse" "$range" 1)
    [[ -z $line ]] || log::warn "pre-flight: $line"
  fi
  line=$(churn::fds_text "$(churn::fds_needed)" "$soft" "$hard")
  [[ -z $line ]] || log::warn "pre-flight: $line"
  return 0
}
