#!/usr/bin/env bash
# rows: the results document of run-benchmarks.sh (schemas/results.schema.json, docs/metrics.md):
# its header, one row per plan entry, and the summary table printed at the end. The file itself
# is written by lib/results.sh.
#
#   rows::header_json
#     The document's header (every top-level field but results, server_warmups and
#     complete): when, which commit and command line, the system, the tools' versions and
#     the settings (a variant run: settings.variants, its contestants' labels in order). Reads
#     the run's settings (lib/settings.sh), JAVA_HOME_FOUND and PLAN_CONTESTANTS.
#   rows::add SPEC_NAME STATUS REASON [STEP_JSON [CAPACITY_JSON]]
#     Adds the row of the run spec SPEC_NAME (lib/plan.sh: plan::spec) to the results file:
#     STATUS ok, failed or skipped, REASON (empty: none), STEP_JSON the result of the
#     measured run (lib/measure.sh: measure::step; absent: a row that was not measured) and
#     CAPACITY_JSON a capacity search's object (lib/openloop.sh).
#   rows::replace_last SPEC_NAME STATUS REASON [STEP_JSON [CAPACITY_JSON]]
#     The same row, replacing the last one (a capacity search, step after step).
#   rows::client_bound CLIENT_STATS_JSON
#     Where a row's client_bound is decided: true when the load tool was busy (on a CPU or
#     waiting for one; its CPU without schedstat) for ROWS_CLIENT_BOUND_SHARE or more of
#     the cores it could use, false below, null when unknown. What such a row measured is
#     the tool's own ceiling.
#   rows::print_summary FILE
#     One line per row of a results file, then each server start's time to steady state per
#     shape, then per ranked table how many pairs of neighbours are decided, equal and open
#     (lib/summary.jq).
#   rows::now_utc
#     The time, as the document writes it.
# Depends on lib/plan.sh, lib/servers.sh, lib/scenarios.sh, lib/openloop.sh, lib/results.sh,
# lib/system.sh, jq.

ROWS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROWS_CLIENT_BOUND_SHARE=0.9

rows::now_utc() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# rows::_suite_commit: the suite's git commit, -dirty when the tree has changes; empty outside git.
rows::_suite_commit() {
  local commit root=$ROWS_LIB_DIR/..
  commit=$(git -C "$root" rev-parse HEAD 2>/dev/null) || return 0
  [[ -n $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] && commit+=-dirty
  printf '%s\n' "$commit"
}

rows::header_json() {
  local tools_json driver version jvm_flags='' java_version=''
  tools_json=$(for driver in "${TOOLS[@]}"; do
      version=$("$driver::version" 2>/dev/null) || version=''
      printf '%s\t%s\n' "$driver" "$version"
    done | jq -Rnc '[inputs | split("\t") | {(.[0]): (if .[1] == "" then null else .[1] end)}] | add')
  if [[ -n $JAVA_HOME_FOUND ]]; then
    java_version=$(java::version "$JAVA_HOME_FOUND") || java_version=''
    [[ -f $SERVERS_DIR/jvm.options ]] && jvm_flags=$(java::server_options "$SERVERS_DIR/jvm.options" | paste -sd' ')
  fi
  jq -n --arg timestamp "$(rows::now_utc)" --arg commit "$(rows::_suite_commit)" --arg command "${SETTINGS[command_line]}" \
    --arg run_label "${SETTINGS[label]}" --argjson system "$(system::info "${SETTINGS[description]}" "$java_version" "$jvm_flags" "${SETTINGS[server_cpus]}" "${SETTINGS[client_cpus]}")" \
    --argjson tools "$tools_json" --argjson duration "${SETTINGS[duration_s]}" --argjson warmup "${SETTINGS[warmup_s]}" --argjson runs "${SETTINGS[runs]}" \
    --argjson server_warmup "${SETTINGS[server_warmup_s]}" --arg server_warmup_mode "${SETTINGS[server_warmup_mode]}" --argjson seed "${SETTINGS[seed]}" --argjson aa "${SETTINGS[aa]}" \
    --arg profile "${SETTINGS[profile]}" --argjson gc_log "${SETTINGS[gc_log]}" \
    --arg budget "${SETTINGS[budget_s]}" --argjson tie_margin "${SETTINGS[tie_margin]}" --arg cross "${SETTINGS[cross_check]}" \
    --arg main_tool "${SETTINGS[main_tool]}" --arg left_out "${SETTINGS[left_out]}" \
    --arg order "$(printf '%s\n' "${ROUND_ORDER[@]}")" --arg variants "$(printf '%s\n' "${PLAN_CONTESTANTS[@]}")" '
    {version: 1, timestamp: $timestamp, commit: (if $commit == "" then null else $commit end),
     command: $command, "label": (if $run_label == "" then null else $run_label end), system: $system,
     tools: $tools,
     settings: ({duration_s: $duration, warmup_s: $warmup, runs: $runs, server_warmup_s: $server_warmup,
                server_warmup_mode: $server_warmup_mode,
                seed: $seed, order: ($order | split("\n") | map(split(" "))), aa: ($aa == 1),
                profile: (if $profile == "" then null else $profile end), gc_log: ($gc_log == 1),
                budget_s: (if $budget == "" then null else ($budget | tonumber) end), tie_margin: $tie_margin,
                cross_check: (if $cross == "" then null else {tool: $main_tool, scenarios: ($cross | split(" "))} end),
                left_out: (if $left_out == "" then null else $left_out end)}
               # a variant run: its contestants in order (the first of a server is what its others are compared with)
               + (if $variants == "" then {} else {variants: ($variants | split("\n"))} end))}'
}

# rows::_config_json SPEC_NAME: the row's config object.
rows::_config_json() {
  local -n config_spec=$1
  local streams=null
  # streams per connection: HTTP/2 and HTTP/3 multiplex; HTTP/1.1 has one request at a time
  [[ ${config_spec[protocol]} == h2* || ${config_spec[protocol]} == h3 ]] && streams=${config_spec[streams]}
  jq -cn --argjson threads "${config_spec[threads]}" --argjson connections "${config_spec[connections]}" \
    --argjson streams "$streams" --argjson duration "${config_spec[duration_s]}" --argjson warmup "${config_spec[warmup_s]}" \
    --arg endpoint "$(scenarios::field "${config_spec[scenario]}" endpoint)" \
    --arg method "$(scenarios::field "${config_spec[scenario]}" method)" \
    --arg group "$(scenarios::field "${config_spec[scenario]}" group)" \
    --arg timeout "${config_spec[request_timeout_s]}" \
    '{threads: ([$threads, $connections] | min), connections: $connections, streams: $streams,
      duration_s: $duration, warmup_s: $warmup, endpoint: $endpoint, method: $method,
      group: (if $group == "" or $group == "-" then null else $group end),
      request_timeout_s: (if $timeout == "" then null else ($timeout | tonumber) end)}'
}

rows::client_bound() {
  jq -c --argjson share "$ROWS_CLIENT_BOUND_SHARE" \
    '(.busy_pct // .cpu_pct) as $busy | if $busy == null then null else $busy >= $share * 100 * .cores end' <<<"$1"
}

# rows::_lab_hosts METRICS_FILE: the per-host records of a lab run beside METRICS_FILE
# (lab-hosts.json, lib/place/lab.sh), or null.
rows::_lab_hosts() {
  local file
  [[ -n $1 ]] || { echo null; return 0; }
  file=$(dirname "$1")/lab-hosts.json
  if [[ -f $file ]]; then cat "$file"; else echo null; fi
}

# rows::_json SPEC_NAME STATUS REASON [STEP_JSON [CAPACITY_JSON]]: the row (in an A/A run with
# its label, aa_group; in a variant run with its variant; in a budgeted run with why it was made, round_reason; an open-loop entry with its load, a capacity search with its capacity,
# a gated scenario with its slo check).
rows::_json() {
  local -n row_spec=$1
  local status=$2 reason=$3 step=${4:-null} capacity=${5:-null}
  local metrics_file metrics=null slo=null client bound=null
  metrics_file=$(jq -r '.metrics_file // ""' <<<"$step")
  client=$(jq -c '.client_stats // null' <<<"$step")
  [[ $client == null ]] || bound=$(rows::client_bound "$client")
  # A capacity search's record is the run at the edge of its own conditions by construction:
  # the gates judge closed-loop and fixed-rate rows.
  [[ $status == ok && ${row_spec[load]} != capacity ]] && slo=$(openloop::slo_json "${row_spec[scenario]}" "$metrics_file")
  [[ -n $metrics_file ]] && metrics=$(<"$metrics_file")
  jq -cn --arg server "${row_spec[server]}" --arg version "${row_spec[server_version]}" --arg tool "${row_spec[tool]}" \
    --argjson load "$(openloop::load_json "${row_spec[load]}" "${row_spec[scenario]}")" --argjson capacity "$capacity" --argjson slo "$slo" \
    --arg aa_group "${row_spec[aa_group]}" --arg round_reason "${row_spec[round_reason]:-}" --argjson client "$client" --argjson bound "$bound" \
    --arg proto "${row_spec[protocol]}" --arg scenario "${row_spec[scenario]}" --argjson run "${row_spec[run]}" \
    --argjson step "$step" --argjson config "$(rows::_config_json "$1")" \
    --argjson metrics "$metrics" --arg status "$status" --arg reason "$reason" \
    --argjson lab_hosts "$(rows::_lab_hosts "$metrics_file")" \
    --argjson server_warmup "$(steady::row_warmup "${row_spec[protocol]}" "${row_spec[scenario]}")" \
    --argjson variant "$(rows::_variant_json "${row_spec[slot]}")" \
    -L "$ROWS_LIB_DIR" 'import "drift" as drift;
    def nullable: if . == "" or . == null then null else . end;
    {server: $server, server_version: ($version | nullable), tool: $tool, protocol: $proto,
     scenario: $scenario, run: $run, started: ($step.started | nullable), ended: ($step.ended | nullable),
     config: $config, metrics: $metrics, server_stats: $step.server_stats, status: $status,
     reason: ($reason | nullable)}
    + (if $aa_group == "" then {} else {aa_group: $aa_group} end)
    + (if $variant == null then {} else {variant: $variant} end)
    + (if $round_reason == "" then {} else {round_reason: $round_reason} end)
    + (if $step.machine_stats == null then {} else {machine_stats: $step.machine_stats} end)
    + (if $lab_hosts == null then {} else {lab_hosts: $lab_hosts} end)
    + (if $load == null then {} else {load: $load} end)
    + (if $capacity == null then {} else {capacity: $capacity} end)
    + (if $slo == null then {} else {slo: $slo} end)
    + ($step.extra // {})
    + (if $client == null then {} else {client_stats: $client, client_bound: $bound} end)
    + {server_warmup: $server_warmup}
    | .drift = drift::row'
}

# rows::_variant_json SLOT: the row's variant object in a variant run (its contestant, the
# variant's name as "name", and the JDK the server's process ran on: SERVER_JDK), else null.
rows::_variant_json() {
  local contestant
  contestant=$(plan::contestant "$1")
  [[ -n $contestant ]] || { echo null; return 0; }
  jq -c --argjson runtime "${SERVER_JDK:-null}" \
    '{"label": .label, name: .variant} + del(.label, .server, .variant)
     + {jdk_version: ($runtime.version // null), java_home: ($runtime.home // null)}' <<<"$contestant"
}

rows::add() { results::add "$(rows::_json "$@")"; }
rows::replace_last() { results::replace_last "$(rows::_json "$@")"; }

rows::print_summary() {
  local width
  # the first column as wide as the longest name (a variant's label: jetty:vt+jdk25+zgc)
  width=$(jq -L "$ROWS_LIB_DIR" -r 'import "summary" as summary; [16, (.results[] | summary::fields | .[0] | length)] | max' "$1")
  printf '%-*s %-10s %-5s %-26s %-3s %-8s %12s %10s %8s %s\n' "$width" SERVER TOOL PROTO SCENARIO RUN STATUS REQ/S P99_US ERRORS NOTE
  jq -L "$ROWS_LIB_DIR" -r 'import "summary" as summary; .results[] | summary::fields | @tsv' "$1" |
    while IFS=$'\t' read -r server tool proto scenario run status rps p99 errors note; do
      printf '%-*s %-10s %-5s %-26s %-3s %-8s %12s %10s %8s %s\n' "$width" "$server" "$tool" "$proto" "$scenario" \
        "$run" "$status" "$rps" "$p99" "$errors" "$note"
    done
  jq -L "$ROWS_LIB_DIR" -r 'import "summary" as summary; summary::warmup_lines, summary::pair_lines' "$1"
}
