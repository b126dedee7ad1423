#!/usr/bin/env bash
# system: facts about the machine for the results file, CPU pinning, and /proc sampling
# of a server's CPU and memory.
#
#   system::cores
#     Number of online CPUs.
#   system::default_pinning
#     Prints "SERVER_CPUS CLIENT_CPUS" (taskset lists) that split the cores into two
#     disjoint halves, the server's first; prints nothing on a single-core machine.
#   system::count_cpus CPULIST
#     Number of CPUs in a taskset list like 0-3,6.
#   system::info DESCRIPTION JAVA_VERSION JVM_FLAGS SERVER_CPUS CLIENT_CPUS
#     Prints the results file's `system` object (empty strings become null; no pinning
#     when SERVER_CPUS is empty).
#   system::sample_start PID FILE
#     Starts a background sampler that appends "TIME_US CPU_TICKS RSS_KB" lines to FILE
#     every 200 ms while PID lives: utime+stime of all its threads, and VmRSS. Sets SAMPLER_PID.
#   system::sample_stop
#     Stops the sampler (no-op if none is running).
#   system::stats FILE SECONDS
#     Prints the row's `server_stats` object from the samples of the last SECONDS (the
#     measured phase; the warm-up before it is left out): cpu_pct (100 = one core busy,
#     null with fewer than two samples) and rss_peak_kb, the largest VmRSS.

SAMPLER_PID=''

system::cores() { nproc; }

system::count_cpus() {
  local part count=0 parts
  IFS=, read -r -a parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then count=$((count + ${part#*-} - ${part%-*} + 1)); else count=$((count + 1)); fi
  done
  printf '%s\n' "$count"
}

system::default_pinning() {
  local cores half
  cores=$(system::cores)
  ((cores >= 2)) || return 0
  half=$((cores / 2))
  # A one-CPU half is written as a single number, not "0-0".
  if ((half == 1)); then printf '0 '; else printf '0-%d ' $((half - 1)); fi
  if ((cores - half == 1)); then printf '%d\n' "$half"; else printf '%d-%d\n' "$half" $((cores - 1)); fi
}

system::info() {
  local description=$1 java=$2 jvm_flags=$3 server_cpus=$4 client_cpus=$5 os cpu_model ram_kb
  os=$(. /etc/os-release 2>/dev/null && printf '%s' "${PRETTY_NAME:-$NAME}") || os=$(uname -s)
  cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  ram_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  jq -n --arg os "${os:-$(uname -s)}" --arg kernel "$(uname -r)" --arg arch "$(uname -m)" \
    --arg cpu "${cpu_model:-unknown}" --argjson cores "$(system::cores)" --argjson ram_kb "${ram_kb:-0}" \
    --arg java "$java" --arg flags "$jvm_flags" --arg description "$description" \
    --arg server "$server_cpus" --arg client "$client_cpus" '
    def nullable: if . == "" then null else . end;
    {os: $os, kernel: $kernel, arch: $arch, cpuModel: $cpu, cpuCores: $cores,
     ramGB: ($ram_kb / 1048576 * 10 | round / 10),
     java: ($java | nullable), jvmFlags: ($flags | nullable), description: ($description | nullable),
     cpuPinning: (if $server == "" then null else {server: $server, client: $client} end)}'
}

system::sample_start() {
  local pid=$1 file=$2
  (
    local stat fields rss
    while read -r stat 2>/dev/null <"/proc/$pid/stat"; do
      # After the command (which may hold spaces), utime and stime are fields 12 and 13.
      read -r -a fields <<<"${stat##*) }"
      rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || rss=''
      printf '%s %s %s\n' "${EPOCHREALTIME/[.,]/}" $((fields[11] + fields[12])) "${rss:-0}"
      sleep 0.2
    done
  ) >>"$file" &
  SAMPLER_PID=$!
}

system::sample_stop() {
  [[ -n $SAMPLER_PID ]] || return 0
  # Reap it only while it exists: bash 5.2 can lose the exit of a child reaped while a trap
  # interrupted `wait`, and a `wait` for that PID then never returns.
  if kill "$SAMPLER_PID" 2>/dev/null; then wait "$SAMPLER_PID" 2>/dev/null || true; fi
  SAMPLER_PID=''
}

system::stats() {
  local file=$1 seconds=$2
  awk -v seconds="$seconds" -v hz="$(getconf CLK_TCK)" '
    { t[NR] = $1; ticks[NR] = $2; rss[NR] = $3 }
    END {
      if (NR == 0) { print "{\"cpu_pct\":null,\"rss_peak_kb\":null}"; exit }
      first = NR
      while (first > 1 && t[NR] - t[first - 1] <= seconds * 1000000) first--
      peak = 0
      for (i = first; i <= NR; i++) if (rss[i] > peak) peak = rss[i]
      if (NR - first < 1 || t[NR] == t[first]) cpu = "null"
      else cpu = sprintf("%.1f", (ticks[NR] - ticks[first]) / hz / ((t[NR] - t[first]) / 1000000) * 100)
      printf "{\"cpu_pct\":%s,\"rss_peak_kb\":%d}\n", cpu, peak
    }' "$file"
}
